"""One stage of a betting round (RULES.md BLUFF-12..BLUFF-15): a one-shot signalling game
with stakes, solved exactly in :class:`~fractions.Fraction` and certified.

**A stage** is "X is about to roll and must beat claim s, holding x chips against y"
(why that is a public state: :mod:`kocka.solver.solvers.bluff.betting`):

* the roller's private *type* is what his dice make (two-dice games: the result; liar's
  poker: the hand with the three public dice); types whose truth over every allowed claim
  is the same are merged (BLUFF-4);
* his *message* is a claim c above s (BLUFF-3; achievable with the public dice in liar's
  poker, BLUFF-20) and a stake k of 1..x (BLUFF-12); in liar's poker he may instead throw
  one die again (BLUFF-18), which leads to a *re-throw stage* of its own: the kept die is
  shown and the new die is fresh, so nothing he knew before is hidden any more, and the
  re-throw is worth a fixed R(s, x, y, shown die) to him, an *outside option*;
* the answerer sees the message and passes (the claimant gets +1 and the claim stands:
  the answerer rolls next, holding y - 1 against x + 1, worth 1 - V(c, y - 1, x + 1) to
  the claimant; a pass of one's last chip ends the game, BLUFF-6) or bets (the reveal pays
  +-k, BLUFF-15); he cannot bet more chips than he has (BLUFF-13), and the top claim must
  be bet on (BLUFF-5, ``first_must_bet``), then with all his chips if he has fewer than k.

What a pass and a bet are worth is the stage's data (:class:`StageClaim`): chips in the
round plan, the chance to win the match in the match plan.

**The answerer's side, in closed form.** A lie pays the same to every type (only true or
false matters), and a true claim pays its claimant at least what a lie of the same claim
and stake pays. So the answerer's strategy is summed up by the *lie value* lambda, the
most any lie earns: type t earns max(lambda, its outside options, max over its true claims
c of T_c), where T_c, the most a true claim c earns, is smallest when the answerer bets on
each stake k just enough that a liar there earns at most lambda:

    P(bet | c, k) = clip((P_c - lambda) / (k + P_c), 0, 1)   (P_c the pass value; 1 if
    k < P_c; 0 if k + P_c <= 0 or the answerer holds fewer than k chips)

Then T_c(lambda) = max(min(K, P_c), P_c + rho (P_c - lambda)) with rho = (k* - P_c) /
(k* + P_c) at the best stake k* of the K = min(x, y) the answerer can bet on (the largest
when P_c > 0, the smallest above -P_c when P_c < 0), and T_c = P_c when the claimant can
stake more than the answerer holds (no bet possible). The answerer's problem is the
one-dimensional convex piecewise-linear minimisation over lambda of

    F(lambda) = sum_t w_t max(lambda, O_t, max_{c true for t} T_c(lambda)),

minimised exactly at one of its breakpoints (:func:`minimise_lie_value`). ``lambda`` is
at least the worst a lie can be made to earn: -1 (stake 1, bet on), or P_c for a claim
that cannot be bet on.

**The claimant's side.** Given lambda*, each type uses only messages that earn it its
value; a true claim at a stake with a mixed answer needs lie mass rho x its truthful mass
beside it (that makes the answerer indifferent), and the optimality of lambda* (zero in
the subgradient of F) is exactly the balance of the lie mass the liars supply and the
true claims need. The split is found in closed form and the lies are placed by an exact
max-flow (a type cannot lie with a claim that is true for it); a degenerate stage where
that fails is solved by the exact sequence-form LP of
:func:`~kocka.solver.solvers.bluff.lp.solve_signalling` instead.

**Certified.** Every stage is checked exactly: the claimant's best reply to the answerer's
strategy over *every* message (every claim and stake) earns V, and the answerer's best
reply to the claimant's strategy concedes V; so both strategies are optimal (LP duality)
and V is the stage's value (:func:`solve_stage`).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from kocka.solver.solvers.bluff.lp import LPError, solve_signalling


@dataclass(frozen=True)
class StageClaim:
    """A claim of a stage as the stage sees it: ``pass_value`` is what the claimant gets
    when the answerer passes (1 - V of the next stage, or 1 where a pass ends the round);
    ``forced``: the answerer must bet (the top claim under ``first_must_bet``, BLUFF-5).
    A bet pays the claimant the chips bet, +k if the claim is true and -k if not (the
    round plan); ``win[k - 1]`` and ``lose[k - 1]``, when given, are what a bet on stake k
    is worth to him instead (the match plan: his chance to win the match after the
    reveal; a forced bet already counts an answerer who bets all he has)."""

    pass_value: Fraction
    forced: bool = False
    win: tuple[Fraction, ...] | None = None
    lose: tuple[Fraction, ...] | None = None


@dataclass(frozen=True)
class StageGame:
    """A stage (module docstring): the claimant holds ``active_chips``, the answerer
    ``responder_chips``. Type t has chance ``weights[t]``; ``truth[t][c]`` says whether
    claim c is true for it; ``outside[j]`` is the value of outside option j (a re-throw)
    and ``available[t][j]`` whether type t has it. Stakes run 1..active_chips."""

    weights: tuple[Fraction, ...]
    truth: tuple[tuple[bool, ...], ...]
    claims: tuple[StageClaim, ...]
    active_chips: int
    responder_chips: int
    outside: tuple[Fraction, ...] = ()
    available: tuple[tuple[bool, ...], ...] = ()

    @property
    def bettable(self) -> int:
        """K: the stakes the answerer can bet on are 1..K (BLUFF-13)."""
        return min(self.active_chips, self.responder_chips)

    def outside_value(self, t: int) -> Fraction | None:
        values = [v for v, ok in zip(self.outside, self.available[t] if self.available else ()) if ok]
        return max(values) if values else None


OUTSIDE = -1
"""``Message(OUTSIDE, j)``: take outside option j (a re-throw) instead of claiming."""


@dataclass(frozen=True, order=True)
class Message:
    """What a claimant does at a stage: claim ``claim`` (an index into the stage's claims)
    with ``stake``, or (``claim == OUTSIDE``) take outside option ``stake``."""

    claim: int
    stake: int


def bet_probability(pass_value: Any, lie_value: Any, stake: int, responder_chips: int, forced: bool,
                    win: Any = None, lose: Any = None) -> Any:
    """The answerer's equilibrium chance of betting on a claim with pass value P =
    ``pass_value`` and ``stake`` when the lie value is ``lie_value`` (module docstring):
    just enough that a liar earns at most the lie value, (P - lie value) / (P - lose),
    clipped to 0..1; 1 where a bet hurts a true claim too (win < P) and on a forced claim
    (BLUFF-5), 0 where a bet would help a lie (lose >= P) and on a stake above his chips
    (BLUFF-13). ``win`` and ``lose`` (default +-stake) are what the bet pays the claimant."""
    if forced:
        return 1
    if stake > responder_chips:
        return 0
    p = pass_value
    win = stake if win is None else win
    lose = -stake if lose is None else lose
    if p - lose <= 0:
        return 0  # betting would help the liar and the truth alike
    if win < p:
        return 1  # betting hurts the truth and the liar alike
    beta = (p - lie_value) / (p - lose)
    return 0 if beta <= 0 else 1 if beta >= 1 else beta


def _amount(stage: StageGame, claim: StageClaim, stake: int) -> int:
    """Chips moved by a bet at the reveal: the stake, or all the answerer holds when
    BLUFF-5 obliges him with fewer (BLUFF-13)."""
    return min(stake, stage.responder_chips) if claim.forced else stake


def bet_values(stage: StageGame, claim: StageClaim, stake: int) -> tuple[Any, Any]:
    """What a bet on ``claim`` with ``stake`` pays the claimant: (if true, if false)."""
    if claim.win is not None:
        return claim.win[stake - 1], claim.lose[stake - 1]
    amount = _amount(stage, claim, stake)
    return amount, -amount


def message_payoffs(stage: StageGame, lie_value: Fraction, c: int, stake: int) -> tuple[Fraction, Fraction, Fraction]:
    """(P(bet), what a true claim earns, what a lie earns) for claim ``c`` with ``stake``."""
    claim = stage.claims[c]
    win, lose = bet_values(stage, claim, stake)
    beta = bet_probability(claim.pass_value, lie_value, stake, stage.responder_chips, claim.forced, win, lose)
    passed = (1 - beta) * claim.pass_value
    return beta, beta * win + passed, passed + beta * lose


def canonical_stakes(stage: StageGame, c: int) -> tuple[int, ...]:
    """The stakes of claim ``c`` that differ for the answerer: 1..K that he can bet on, and
    K + 1 (the smallest he cannot) when the claimant holds more; on a forced claim 1..K
    (a bet of all his chips is the same from K up)."""
    a, k = stage.active_chips, stage.bettable
    if stage.claims[c].forced:
        return tuple(range(1, k + 1))
    return tuple(range(1, k + 1)) + ((k + 1,) if a > k else ())


# ----- the answerer's side: F(lambda) -----
Line = tuple[Fraction, Fraction]
"""(slope, intercept): the value slope * lambda + intercept."""


def _claim_lines(stage: StageGame, c: int) -> tuple[Fraction, list[Line]]:
    """(lowest lie value the answerer can enforce, lines whose maximum is T_c(lambda))."""
    claim = stage.claims[c]
    if claim.win is not None:
        return _general_claim_lines(stage, claim)
    if claim.forced:
        return Fraction(-1), [(Fraction(0), Fraction(stage.bettable))]
    p = claim.pass_value
    k_max = stage.bettable
    if stage.active_chips > k_max:  # a stake he cannot bet on: truth and lie both earn P
        return p, [(Fraction(0), p)]
    lines: list[Line] = [(Fraction(0), min(Fraction(k_max), p))]
    if p > 0:
        best = k_max if k_max > p else None
    elif p < 0:
        best = int(-p) + 1  # the smallest stake above -P
        best = best if best <= k_max else None
    else:
        best = k_max
    if best is not None:
        rho = (best - p) / (best + p)
        lines.append((-rho, p + rho * p))
    return min(p, Fraction(-1)), lines


def _general_claim_lines(stage: StageGame, claim: StageClaim) -> tuple[Fraction, list[Line]]:
    """:func:`_claim_lines` for any bet payoffs: for each stake the least truth payoff
    once every lie there earns at most lambda, max(P, P + rho (P - lambda)) with rho =
    (win - P) / (P - lose), or win where a bet hurts the truth too, or P where it would
    help the lie; the lowest lie value is the largest of the stakes' lowest."""
    stakes = range(1, stage.bettable + 1)
    if claim.forced:
        return max(claim.lose[k - 1] for k in stakes), [(Fraction(0), max(claim.win[k - 1] for k in stakes))]
    p = claim.pass_value
    low = p if stage.active_chips > stage.bettable else None
    constant, slopes = (p if low is not None else None), {}
    for k in stakes:
        win, lose = claim.win[k - 1], claim.lose[k - 1]
        a, b = win - p, p - lose
        if b <= 0:
            floor, value = p, p
        elif a < 0:
            floor, value = lose, win
        else:
            floor, value = lose, p
            rho = a / b
            slopes[-rho] = max(slopes.get(-rho, p + rho * p), p + rho * p)
        low = floor if low is None or floor > low else low
        constant = value if constant is None or value > constant else constant
    lines = [(Fraction(0), constant)] + [(m, q) for m, q in slopes.items() if m != 0]
    return low, _upper_envelope(lines, low)


def _upper_envelope(lines: Sequence[Line], low: Fraction) -> list[Line]:
    """The lines that are the maximum somewhere on [low, oo) (convex hull trick)."""
    by_slope: dict[Fraction, Fraction] = {}
    for m, q in lines:
        by_slope[m] = max(by_slope.get(m, q), q)
    ordered = sorted(by_slope.items())  # slope ascending: the steepest descent first
    hull: list[Line] = []
    for m, q in ordered:
        while hull:
            m1, q1 = hull[-1]
            # at the left end the line of smaller slope is higher; it stays in the hull only if it is
            # the maximum somewhere right of low
            if m1 * low + q1 <= m * low + q:
                hull.pop()
                continue
            if len(hull) >= 2:
                m0, q0 = hull[-2]
                # the new line overtakes hull[-2] before hull[-1] does: hull[-1] is never on top
                if (q - q0) * (m0 - m1) <= (q1 - q0) * (m0 - m):
                    hull.pop()
                    continue
            break
        hull.append((m, q))
    return hull


def _type_lines(stage: StageGame, claim_lines: Sequence[list[Line]]) -> list[list[Line]]:
    lines = []
    for t, truth in enumerate(stage.truth):
        own: list[Line] = [(Fraction(1), Fraction(0))]
        outside = stage.outside_value(t)
        if outside is not None:
            own.append((Fraction(0), outside))
        for c, true in enumerate(truth):
            if true:
                own.extend(claim_lines[c])
        lines.append(sorted(set(own)))
    return lines


def _objective(weights: Sequence[Fraction], lines: Sequence[list[Line]], lam: Fraction) -> Fraction:
    return sum((w * max(m * lam + q for m, q in own) for w, own in zip(weights, lines)), Fraction(0))


def minimise_lie_value(stage: StageGame) -> tuple[Fraction, Fraction]:
    """(lambda*, F(lambda*)): the answerer's optimal lie value and the stage's value,
    by exact evaluation of the convex piecewise-linear F at its breakpoints (the
    leftmost minimiser)."""
    per_claim = [_claim_lines(stage, c) for c in range(len(stage.claims))]
    low = max(lo for lo, _ in per_claim)
    lines = _type_lines(stage, [ls for _, ls in per_claim])
    candidates = {low}
    for own in lines:
        for i, (m1, q1) in enumerate(own):
            for m2, q2 in own[i + 1 :]:
                if m1 != m2:
                    x = (q2 - q1) / (m1 - m2)
                    if x > low:
                        candidates.add(x)
    ordered = sorted(candidates)
    # F is convex on the sorted breakpoints: the leftmost i with F(i) <= F(i + 1)
    lo, hi = 0, len(ordered) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _objective(stage.weights, lines, ordered[mid]) <= _objective(stage.weights, lines, ordered[mid + 1]):
            hi = mid
        else:
            lo = mid + 1
    return ordered[lo], _objective(stage.weights, lines, ordered[lo])


# ----- the claimant's side -----
INFINITE = None
"""An upper bound on lie mass that does not exist (a message a liar may use freely)."""


@dataclass(frozen=True)
class _Option:
    """A best message of one type at lambda*: ``kind`` is ``truth``, ``lie`` or
    ``outside``; a truthful message needs lie mass beside it in ``[low, high]`` x its own
    (``high`` None: any amount)."""

    kind: str
    message: Message | None
    low: Fraction = Fraction(0)
    high: Fraction | None = Fraction(0)


def _ratio_bounds(stage: StageGame, c: int, stake: int, beta: Fraction) -> tuple[Fraction, Fraction | None]:
    """Lie mass per unit of truthful mass that keeps the answer ``beta`` a best reply at
    (c, stake): the sender's bet-minus-pass gain tau (win - P) - Lambda (P - lose) must be
    0 (mixed), >= 0 (the answerer passes) or <= 0 (he bets)."""
    claim = stage.claims[c]
    if claim.forced or stake > stage.responder_chips:
        return Fraction(0), INFINITE
    win, lose = bet_values(stage, claim, stake)
    p = claim.pass_value
    if p - lose <= 0:
        return Fraction(0), INFINITE  # a pass is best whatever the mix (beta is 0)
    rho = (win - p) / (p - lose)
    if 0 < beta < 1:
        return rho, rho
    if beta == 0:
        return Fraction(0), rho
    return max(Fraction(0), rho), INFINITE


@dataclass(frozen=True)
class StageSolution:
    """An exact equilibrium of a :class:`StageGame`: ``value`` to the claimant, the lie
    value ``lie_value`` (the answerer's strategy, :func:`bet_probability`) and
    ``sender[t]``, type t's probability of each message; ``method`` says how the claimant's
    side was found (``closed form`` or ``LP``)."""

    value: Fraction
    lie_value: Fraction
    sender: tuple[Mapping[Message, Fraction], ...]
    method: str = "closed form"


def _max_flow(capacity: dict[Any, dict[Any, Any]], source: Any, sink: Any, flow: dict) -> Fraction:
    """Augment ``flow`` (edge -> amount, updated in place) from ``source`` to ``sink`` along
    shortest paths (Edmonds-Karp, exact); capacities None are unbounded. Returns the flow
    added."""
    added = Fraction(0)
    while True:
        parent: dict[Any, tuple[Any, bool]] = {source: (None, True)}
        queue = [source]
        for node in queue:
            for nxt, cap in capacity.get(node, {}).items():
                if nxt not in parent and (cap is None or cap - flow.get((node, nxt), 0) > 0):
                    parent[nxt] = (node, True)
                    queue.append(nxt)
            for prev in capacity:
                if node in capacity[prev] and prev not in parent and flow.get((prev, node), 0) > 0:
                    parent[prev] = (node, False)
                    queue.append(prev)
            if sink in parent:
                break
        if sink not in parent:
            return added
        path, node = [], sink
        while node != source:
            prev, forward = parent[node]
            path.append((prev, node, forward))
            node = prev
        push: Fraction | None = None
        for prev, node, forward in path:
            if forward:
                cap = capacity[prev][node]
                room = None if cap is None else cap - flow.get((prev, node), 0)
            else:
                room = flow[(node, prev)]
            if room is not None and (push is None or room < push):
                push = room
        assert push is not None and push > 0, "a path of unbounded capacity only: the supply edges bound every path"
        for prev, node, forward in path:
            if forward:
                flow[(prev, node)] = flow.get((prev, node), 0) + push
            else:
                flow[(node, prev)] -= push
        added += push


def _closed_form_sender(
    stage: StageGame, lam: Fraction, values: Sequence[Fraction], table: Mapping[tuple[int, int], tuple]
) -> tuple[dict, ...] | None:
    """The claimant's equilibrium strategy at lambda* (module docstring), or None where the
    closed form does not apply (a degenerate stage: the caller solves the LP)."""
    options: list[list[_Option]] = []
    for t, truth in enumerate(stage.truth):
        v = values[t]
        own: list[_Option] = []
        for (c, k), (beta, true_pay, lie_pay) in table.items():
            if truth[c] and true_pay == v:
                low, high = _ratio_bounds(stage, c, k, beta)
                own.append(_Option("truth", Message(c, k), low, high))
        if any(not truth[c] and lie_pay == v for (c, _), (_, _, lie_pay) in table.items()):
            own.append(_Option("lie", None))
        for j, (value, ok) in enumerate(zip(stage.outside, stage.available[t] if stage.available else ())):
            if ok and value == v:
                own.append(_Option("outside", Message(OUTSIDE, j)))
        if not own:
            return None
        options.append(own)

    def supply_first(o: _Option) -> tuple:
        return (0 if o.kind == "lie" else 1 if o.kind == "outside" else 2, o.low)

    def demand_first(o: _Option) -> tuple:
        if o.kind != "truth":
            return (1, 0 if o.kind == "outside" else 1)
        return (0, 0 if o.high is None else 1, -(o.high or 0))

    ends = [(min(own, key=demand_first), min(own, key=supply_first)) for own in options]  # (theta = 0, theta = 1)
    # lie messages a liar may use with no truth beside them (they absorb surplus lies)
    sinks = [
        (c, k) for (c, k), (beta, _, lie_pay) in table.items()
        if lie_pay == lam and _ratio_bounds(stage, c, k, beta)[1] is INFINITE
    ]

    def totals(end: int) -> tuple[Fraction, Fraction, Fraction | None]:
        supply, low, high = Fraction(0), Fraction(0), Fraction(0)
        for w, pair in zip(stage.weights, ends):
            o = pair[end]
            if o.kind == "lie":
                supply += w
            elif o.kind == "truth":
                low += w * o.low
                high = None if high is None or o.high is None else high + w * o.high
        return supply, low, (None if sinks else high)

    s0, lo0, hi0 = totals(0)
    s1, lo1, hi1 = totals(1)
    # theta: supply s(theta) >= demanded low(theta), and <= high(theta)
    gap0, gap1 = s0 - lo0, s1 - lo1
    if gap1 < 0:
        return None
    theta = Fraction(0) if gap0 >= 0 else -gap0 / (gap1 - gap0)
    supply = s0 + theta * (s1 - s0)
    if hi0 is not None and hi1 is not None and supply > hi0 + theta * (hi1 - hi0):
        return None
    mass: list[dict[Any, Fraction]] = []
    demand: dict[Message, list[Fraction | None]] = {}
    liars: dict[int, Fraction] = {}
    for t, (w, pair) in enumerate(zip(stage.weights, ends)):
        share: dict[Any, Fraction] = {}
        for o, part in ((pair[0], 1 - theta), (pair[1], theta)):
            if part == 0:
                continue
            key = "lie" if o.kind == "lie" else o.message
            share[key] = share.get(key, Fraction(0)) + w * part
            if o.kind == "truth":
                bounds = demand.setdefault(o.message, [Fraction(0), Fraction(0)])
                bounds[0] += w * part * o.low
                bounds[1] = None if bounds[1] is None or o.high is None else bounds[1] + w * part * o.high
        if "lie" in share:
            liars[t] = share["lie"]
        mass.append(share)
    # place the lies: liars -> lie messages of claims false for them
    source, sink = "source", "sink"
    capacity: dict[Any, dict[Any, Any]] = {source: {("type", t): m for t, m in liars.items()}}
    targets = {m: b for m, b in demand.items() if table[(m.claim, m.stake)][2] == lam and (b[1] is None or b[1] > 0)}
    for m in sinks:
        targets.setdefault(Message(*m), [Fraction(0), None])
    for t in liars:
        capacity[("type", t)] = {("msg", m): None for m in targets if not stage.truth[t][m.claim]}
    flow: dict = {}
    capacity.update({("msg", m): {sink: b[0]} for m, b in targets.items()})
    needed = sum((b[0] for b in targets.values()), Fraction(0))
    if sum((b[0] for m, b in demand.items() if m not in targets), Fraction(0)) > 0:
        return None  # lie mass demanded where no liar earns lambda
    if _max_flow(capacity, source, sink, flow) != needed:
        return None
    for m, b in targets.items():
        capacity[("msg", m)][sink] = b[1]
    _max_flow(capacity, source, sink, flow)
    if sum(flow.get((source, ("type", t)), 0) for t in liars) != sum(liars.values()):
        return None
    sender = []
    for t, (w, share) in enumerate(zip(stage.weights, mass)):
        probs: dict[Message, Fraction] = {}
        for key, amount in share.items():
            if key != "lie":
                probs[key] = probs.get(key, Fraction(0)) + amount / w
        for m in targets:
            placed = flow.get((("type", t), ("msg", m)), 0)
            if placed:
                probs[m] = probs.get(m, Fraction(0)) + placed / w
        sender.append({m: p for m, p in probs.items() if p})
    return tuple(sender)


# ----- certification -----
def sender_best_reply(stage: StageGame, lam: Fraction) -> Fraction:
    """What the claimant earns by a best reply to the answerer's strategy of lie value
    ``lam``, over every message (every claim and every stake 1..x) and outside option."""
    best = [stage.outside_value(t) for t in range(len(stage.weights))]
    for c in range(len(stage.claims)):
        for k in range(1, stage.active_chips + 1):
            _, true_pay, lie_pay = message_payoffs(stage, lam, c, k)
            for t, truth in enumerate(stage.truth):
                pay = true_pay if truth[c] else lie_pay
                if best[t] is None or pay > best[t]:
                    best[t] = pay
    return sum((w * b for w, b in zip(stage.weights, best)), Fraction(0))


def answerer_best_reply(stage: StageGame, sender: Sequence[Mapping[Message, Fraction]]) -> Fraction:
    """What the claimant's strategy ``sender`` earns when the answerer best-replies to it
    (at each message the answer that gives the claimant least; a forced bet or a stake
    above the answerer's chips has one answer)."""
    total = Fraction(0)
    at: dict[Message, list[Fraction]] = {}
    for t, (w, probs) in enumerate(zip(stage.weights, sender)):
        for m, p in probs.items():
            if m.claim == OUTSIDE:
                total += w * p * stage.outside[m.stake]
                continue
            claim = stage.claims[m.claim]
            win, lose = bet_values(stage, claim, m.stake) if claim.forced or m.stake <= stage.responder_chips else (0, 0)
            pay = at.setdefault(m, [Fraction(0), Fraction(0)])
            pay[0] += w * p * (win if stage.truth[t][m.claim] else lose)  # bet
            pay[1] += w * p * claim.pass_value  # pass
    for m, (bet, passed) in at.items():
        claim = stage.claims[m.claim]
        if claim.forced:
            total += bet
        elif m.stake > stage.responder_chips:
            total += passed
        else:
            total += min(bet, passed)
    return total


def _lp_sender(stage: StageGame, value: Fraction) -> tuple[dict, ...]:
    """The claimant's strategy by the exact sequence-form LP over the canonical stakes and
    the outside options (types without an option get a payoff below every other)."""
    messages = [Message(c, k) for c in range(len(stage.claims)) for k in canonical_stakes(stage, c)]
    messages += [Message(OUTSIDE, j) for j in range(len(stage.outside))]
    floor = -Fraction(4 * (stage.active_chips + stage.responder_chips + 4))
    payoffs = []
    for t, truth in enumerate(stage.truth):
        row = []
        for m in messages:
            if m.claim == OUTSIDE:
                row.append([stage.outside[m.stake] if stage.available[t][m.stake] else floor])
                continue
            claim = stage.claims[m.claim]
            if claim.forced or m.stake <= stage.responder_chips:
                win, lose = bet_values(stage, claim, m.stake)
                bet = win if truth[m.claim] else lose
            if claim.forced:
                row.append([bet])
            elif m.stake > stage.responder_chips:
                row.append([claim.pass_value])
            else:
                row.append([bet, claim.pass_value])
        payoffs.append(row)
    solved = solve_signalling(stage.weights, payoffs)
    if solved.value != value:
        raise LPError(f"the stage LP gives {solved.value}, the lie-value minimisation {value}")
    return tuple({m: p for m, p in zip(messages, probs) if p} for probs in solved.sender)


def solve_stage(stage: StageGame) -> StageSolution:
    """The exact equilibrium of one stage (module docstring), certified: the claimant's
    best reply to the answerer earns the value, and the answerer's best reply to the
    claimant concedes it."""
    lam, value = minimise_lie_value(stage)
    table = {
        (c, k): message_payoffs(stage, lam, c, k) for c in range(len(stage.claims)) for k in canonical_stakes(stage, c)
    }
    values = []
    for t, truth in enumerate(stage.truth):
        v = stage.outside_value(t)
        for (c, _), (_, true_pay, lie_pay) in table.items():
            pay = true_pay if truth[c] else lie_pay
            if v is None or pay > v:
                v = pay
        values.append(v)
    sender = _closed_form_sender(stage, lam, values, table)
    method = "closed form"
    if sender is None or answerer_best_reply(stage, sender) != value:
        sender, method = _lp_sender(stage, value), "LP"
    reply = sender_best_reply(stage, lam)
    conceded = answerer_best_reply(stage, sender)
    if not reply == value == conceded:
        raise LPError(f"stage not certified: value {value}, claimant's best reply {reply}, answerer's {conceded}")
    return StageSolution(value, lam, sender, method)
