"""Agents of the scorecard games that play to win rather than for points, from the target
table (``kocka-solve build GAME --kind target``, :mod:`kocka.solver.solvers.scorecard.target`).

* ``target`` (:class:`TargetAgent`) maximises P(final total >= T) for a fixed T: exactly, the
  table holding the best chance of every target from every card. T defaults to the
  expected final score of optimal expected-score play, rounded up (``target=`` sets it).
* ``winner`` (:class:`WinnerAgent`) maximises its win share, P(finishing strictly first)
  with ties shared (RULES.md section 0), against the other cards of the game, whose owners
  are taken to play for expected points (their final totals from the stored distributions
  of expected-score play). Its own turn is solved exactly for the win share; what follows
  the turn is valued as if the opponents' totals were known in advance (an upper bound
  that each later turn re-solves), and exactly once every opponent has finished
  (:func:`~kocka.solver.solvers.scorecard.target.rank_winner`).

Both cache the solved turn (the fill values do not depend on the dice), so the three
decisions of a turn cost one solve.
"""
from __future__ import annotations

import math
from typing import Any

from kocka.agents.bots.base import Agent, AgentUnavailable
from kocka.agents.bots.catalogue import AgentOptions
from kocka.solver.solvers.scorecard import target as scorecard_target
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import TableError
from kocka.solver.store.table_store import get_table
from kocka.solver.rules import Game
from kocka.solver.rules.scorecard import Card, ScorecardGame, ScorecardState

_TURN_CACHE = 64
"""Solved turns kept per agent (a game visits one per turn; a seat serves many games)."""


class _TargetTableAgent(Agent):
    """Loads the target table of ``game``'s rules and caches solved turns."""

    def __init__(self, game: Game, seed: int, options: AgentOptions) -> None:
        if not isinstance(game, ScorecardGame):
            raise AgentUnavailable(f"agent {self.name!r} plays the scorecard games, not {game.NAME!r}")
        super().__init__(game, seed)
        try:
            self.table = get_table(game, "target", options.cache_dir, build_missing=options.build_missing)
        except TableError as exc:
            raise AgentUnavailable(f"agent {self.name!r} needs the target table: {exc}") from None
        self.view = scorecard_target.view_of(game, self.table)
        self._turns: dict[Any, scorecard_target.TurnValues] = {}

    def _turn(self, key: Any, solve) -> scorecard_target.TurnValues:
        tv = self._turns.get(key)
        if tv is None:
            if len(self._turns) >= _TURN_CACHE:
                self._turns.pop(next(iter(self._turns)))
            tv = self._turns[key] = solve()
        return tv

    def _expected(self, card: Card) -> scorecard_target.TurnValues:
        return self._turn(("expected", card), lambda: scorecard_target.expected_turn(self.view, card))

    def _detail(self, state: ScorecardState, card: Card) -> dict:
        ev = scorecard_target.rank_turn(self.game, state, self._expected(card))
        return {d.action: {"expected final score": d.value} for d in ev}


class TargetAgent(_TargetTableAgent):
    """Maximises P(final total >= ``target``) (module docstring)."""

    name = "target"
    description = "maximises P(final total >= T), T = the optimal expected score rounded up unless set (target table)"

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions(), target: int | None = None) -> None:
        super().__init__(game, seed, options)
        if target is None:
            target = math.ceil(self.table.meta.extra["expected_score"])
        if isinstance(target, bool) or not isinstance(target, int):
            raise AgentUnavailable(f"the target agent's target must be a whole number of points, got {target!r}")
        self.target = target
        self.value_name = f"P(final >= {target})"

    def rank(self, state: ScorecardState) -> list[Decision]:
        self.require_decision(state)
        card = state.cards[state.player]
        key = self.view.key(card)
        tv = self._turn(("target", card, self.target), lambda: scorecard_target.solve_turn(
            self.game, key.mask, scorecard_target.target_fill_values(self.view, key, self.target)))
        return scorecard_target.rank_turn(self.game, state, tv, self._detail(state, card))

    def choose(self, state: ScorecardState) -> Any:
        self.require_decision(state)
        card = state.cards[state.player]
        key = self.view.key(card)
        tv = self._turn(("target", card, self.target), lambda: scorecard_target.solve_turn(
            self.game, key.mask, scorecard_target.target_fill_values(self.view, key, self.target)))
        return scorecard_target.rank_turn(self.game, state, tv)[0].action


class WinnerAgent(_TargetTableAgent):
    """Maximises the win share against the other cards of the game (module docstring)."""

    name = "winner"
    description = ("maximises P(finishing first) against the other players' cards, who play for points "
                   "(target table; two or more players)")
    value_name = "P(win)"
    continuation = "policy"
    """How the turns after this one are valued (:func:`~kocka.solver.solvers.scorecard.target.winner_fill_values`):
    expected-score play, a strategy it could follow, so each turn improves on it."""

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> None:
        if getattr(game, "num_players", 1) < 2:
            raise AgentUnavailable(
                f"agent {self.name!r} plays against opponents: {game.NAME!r} with {getattr(game, 'num_players', 1)} player "
                "has none (use 'target' or 'optimal'; the arena seats it at one table: kocka arena GAME "
                "--agents winner,optimal --table)")
        super().__init__(game, seed, options)

    def shortfalls(self, state: ScorecardState) -> tuple[tuple[int, tuple[float, ...]], ...] | None:
        """Per other card (in seat order), the distribution ``(first, probs)`` of the points
        below expected-score play its owner is taken to finish; ``None``: none below
        (``winner`` takes the opponents to play for points; the adaptive agent,
        :mod:`kocka.agents.bots.adaptive_scorecard`, fits them)."""
        return None

    def _winner_turn(self, state: ScorecardState) -> scorecard_target.TurnValues:
        card = state.cards[state.player]
        opponents = tuple(c for i, c in enumerate(state.cards) if i != state.player)
        shortfalls = self.shortfalls(state)

        def solve() -> scorecard_target.TurnValues:
            curve = scorecard_target.opponents_curve(self.view, opponents, shortfalls)
            return scorecard_target.winner_turn(self.view, card, curve, exact=scorecard_target.is_exact(card, opponents),
                                             continuation=self.continuation)

        return self._turn(("winner", card, opponents, shortfalls), solve)

    def rank(self, state: ScorecardState) -> list[Decision]:
        self.require_decision(state)
        card = state.cards[state.player]
        return scorecard_target.rank_turn(self.game, state, self._winner_turn(state), self._detail(state, card))

    def choose(self, state: ScorecardState) -> Any:
        self.require_decision(state)
        return scorecard_target.rank_turn(self.game, state, self._winner_turn(state))[0].action

    def win_probability(self, state: ScorecardState) -> float:
        """The win share of the best action (the value ``rank`` puts first)."""
        self.require_decision(state)
        return scorecard_target.rank_turn(self.game, state, self._winner_turn(state))[0].value


def target_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return TargetAgent(game, seed, options)


def winner_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return WinnerAgent(game, seed, options)


__all__ = ["TargetAgent", "WinnerAgent", "target_factory", "winner_factory"]
