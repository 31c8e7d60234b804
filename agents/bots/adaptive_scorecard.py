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
``docs/AGENTS.md``), turn by turn. His final total is then expected-score play's stored
distribution from his card minus what his turns still to come will give up, taken as
independent draws from his turns seen so far (each open box one draw; each turn seen one
chance, and :attr:`AdaptiveScorecardAgent.PRIOR_TURNS` turns that gave up nothing), so
that the spread of his mistakes widens his distribution as well as lowering it: by the
martingale of expected-score play's values his total is that value at his card, minus the
points his moves give up, plus the dice's increments (:func:`kocka.solver.models.finishing.lowered`,
:func:`~kocka.solver.models.finishing.sum_of_draws`). The reply is ``winner``'s turn solved
against those distributions.

What it assumes: a player's turns give up points as independent draws from one
distribution, independent of the dice that follow. Against ``optimal`` the rate is exactly 0 and it plays
``winner``'s moves. A player who gives up expected points for a wider spread (``winner``,
``target``) is taken to be weaker than he is; the README measures what that costs.

Memory: one game. ``reset`` and ``reseed`` forget (the arena rotates seats between games,
and the model is kept per seat).
"""
from __future__ import annotations

from kocka.agents.bots.base import AgentUnavailable, Event
from kocka.agents.bots.catalogue import AgentOptions
from kocka.agents.bots.target_agents import WinnerAgent
from kocka.solver.base.errors import TableError
from kocka.solver.models.finishing import sum_of_draws
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
    """Turns of expected-score play every player is credited with before his first: after n
    turns, each turn to come gives up nothing with chance 2 / (n + 2), so one unlucky-looking
    turn does not make a strong player weak."""
    REGRET_DIGITS = 1
    """A turn's points given up are kept to tenths of a point: a solved turn is reused while
    the model stays the same at this grain."""

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
        self.turn_losses: list[list[float]] = [[] for _ in range(n)]
        self._this_turn = [0.0] * n
        self._before: ScorecardState | None = None
        self._seat: int | None = None
        self._losses_to_come: dict[tuple[tuple[float, ...], int], tuple[int, tuple[float, ...]]] = {}

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
        self._this_turn[seat] += max(0.0, ranking[0].value - chosen)
        if isinstance(event.action, Fill):
            self.turn_losses[seat].append(round(self._this_turn[seat], self.REGRET_DIGITS))
            self._this_turn[seat] = 0.0

    def rate(self, seat: int) -> float:
        """Expected points seat ``seat`` gives up per turn to come, as fitted so far."""
        return sum(self.turn_losses[seat]) / (len(self.turn_losses[seat]) + self.PRIOR_TURNS)

    def shortfalls(self, state: ScorecardState) -> tuple[tuple[int, tuple[float, ...]], ...]:
        """Per other card (seat order), the distribution of the points its owner's turns to
        come give up, ``(first, probs)`` (module docstring)."""
        self._seat = state.player  # (every rank and choose asks this first: my seat is known before my moves are seen)
        return tuple(self._loss_to_come(tuple(self.turn_losses[seat]), sum(e is None for e in card.entries))
                     for seat, card in enumerate(state.cards) if seat != state.player)

    def _loss_to_come(self, losses: tuple[float, ...], open_boxes: int) -> tuple[int, tuple[float, ...]]:
        """:func:`sum_of_draws` of a player's turns seen, once per model (the three
        decisions of a turn ask for the same)."""
        key = (losses, open_boxes)
        if key not in self._losses_to_come:
            first, probs = sum_of_draws([0.0, *losses], [self.PRIOR_TURNS, *([1.0] * len(losses))], open_boxes)
            self._losses_to_come[key] = (first, tuple(probs.tolist()))
        return self._losses_to_come[key]


def adaptive_factory(game: Game, seed: int, options: AgentOptions) -> AdaptiveScorecardAgent:
    return AdaptiveScorecardAgent(game, seed, options)


__all__ = ["AdaptiveScorecardAgent", "adaptive_factory"]
