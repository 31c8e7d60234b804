"""The bluff games' exact two-player equilibria (RULES.md section 3), by linear programming.

From the bottom up: :mod:`.lp` (exact LP, the signalling game), :mod:`.best_response` (the
independent best response that measures every plan and bot), :mod:`.two_player` (what every
equilibrium here shares); Abázs in :mod:`.abazs`; the betting games' stage
(:mod:`.stage`), what their rounds share (:mod:`.betting`), the bidding bluff
(:mod:`.bidding`), liar's poker (:mod:`.liars`), whole matches (:mod:`.match`), and the
plans as agents and hints read them (:mod:`.plans`).
"""
