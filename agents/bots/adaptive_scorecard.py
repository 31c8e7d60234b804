"""``adaptive`` in the scorecard games: the finishing-chance player (``winner``) against
opponents modelled by the points they give up, fitted from their moves at this table.

``winner`` (:mod:`kocka.agents.bots.target_agents`) maximises its win share (P(finishing
strictly first), ties shared: RULES.md section 0) taking every other player to play for
expected points: each other card's final total is drawn from the stored distribution of
expected-score play from that card. Against weaker players that overrates them, and
``winner`` pays for chances it does not need (10.8-15 expected points a game against
``optimal`` players: README "Play to win").

The model. At every decision of another player this agent values the legal actions by the
expected final score of expected-score play (the ``optimal`` table, ``kocka-solve build
GAME``) and adds what his choice gave up, ``best - chosen`` (0 for ``optimal``; a level
gives up, in expectation, exactly its ladder's points: its loss is this sum's mean,
``docs/AGENTS.md``). His rate per turn is the sum over his turns seen, shrunk towards 0 by
:attr:`AdaptiveScorecardAgent.PRIOR_TURNS` turns that gave up nothing; his card is taken
to finish ``rate * open boxes`` below expected-score play: the stored distribution lowered
by that many points (:func:`kocka.solver.models.finishing.lowered`, the mean exact, the
shape kept). The reply is ``winner``'s turn solved against those lowered distributions.

What it assumes: a player gives up points at a steady rate per turn, and his totals keep
the spread of expected-score play. Against ``optimal`` the rate is exactly 0 and it plays
``winner``'s moves. A player who gives up expected points for a wider spread (``winner``,
``target``) is taken to be weaker than he is; the README measures what that costs.

Memory: one game. ``reset`` and ``reseed`` forget (the arena rotates seats between games,
and the model is kept per seat).
"""
from __future__ import annotations

from typing import Any

from kocka.agents.bots.base import AgentUnavailable, Event
from kocka.agents.bots.catalogue import AgentOptions
from kocka.agents.bots.target_agents import WinnerAgent
from kocka.solver.base.errors import TableError
from kocka.solver.rules import CHANCE, Game
from kocka.solver.rules.scorecard import Fill, ScorecardState
from kocka.solver.solvers.scorecard import values as scorecard_values
from kocka.solver.store.table_store import get_table


class AdaptiveScorecardAgent(WinnerAgent):
    """``winner`` against each other card lowered by its owner's fitted points given up
    per turn (module docstring)."""

    name = "adaptive"
    description = ("maximises P(finishing first) against the other players as they play: each modelled by the "
                   "expected points his moves give up (target and expected-score tables; two or more players)")
    has_memory = True
    PRIOR_TURNS = 2.0
    """Turns of expected-score play every player is credited with before his first: the
    rate after n turns is (points given up) / (n + PRIOR_TURNS), so one unlucky-looking turn
    does not make a strong player weak."""
    SHORTFALL_DIGITS = 1
    """The modelled shortfalls are rounded to tenths of a point: a solved turn is reused
    while the fitted model stays the same at this grain."""

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> None:
        super().__init__(game, seed, options)
        try:
            self.ev_table = get_table(game, None, options.cache_dir, build_missing=options.build_missing)
        except TableError as exc:
            raise AgentUnavailable(f"agent 'adaptive' needs the expected-score table to value the other players' "
                                   f"moves: {exc}") from None
        self._forget()

    def _forget(self) -> None:
        n = self.game.num_players
        self.given_up = [0.0] * n
        self.turns_seen = [0] * n
        self._before: ScorecardState | None = None
        self._seat: int | None = None

    def reseed(self, seed: int | None = None) -> None:
        super().reseed(seed)
        self._forget()

    def observe(self, event: Event) -> None:
        before, self._before = self._before, event.state
        seat = event.player
        if seat == CHANCE or seat == self._seat or before is None or before.dice is None or before.player != seat:
            return
        ranking = scorecard_values.rank(self.game, self.ev_table, before)
        chosen = next((d.value for d in ranking if d.action == event.action), None)
        if chosen is None:  # not a move of the position seen (a match joined part-way)
            return
        self.given_up[seat] += max(0.0, ranking[0].value - chosen)
        if isinstance(event.action, Fill):
            self.turns_seen[seat] += 1

    def rate(self, seat: int) -> float:
        """Expected points seat ``seat`` gives up per turn, as fitted so far."""
        return self.given_up[seat] / (self.turns_seen[seat] + self.PRIOR_TURNS)

    def shortfalls(self, state: ScorecardState) -> tuple[float, ...]:
        self._seat = state.player
        return tuple(round(self.rate(seat) * sum(e is None for e in card.entries), self.SHORTFALL_DIGITS)
                     for seat, card in enumerate(state.cards) if seat != state.player)

    def choose(self, state: ScorecardState) -> Any:
        self._seat = state.player
        return super().choose(state)


def adaptive_factory(game: Game, seed: int, options: AgentOptions) -> AdaptiveScorecardAgent:
    return AdaptiveScorecardAgent(game, seed, options)


__all__ = ["AdaptiveScorecardAgent", "adaptive_factory"]
