"""Agents for chip-bidding kockapóker (RULES.md HU-10..HU-19).

All three play their card the same way, optimally for the expected final score (the
scorecard solver's table, ``kocka-solve build kockapoker``); they differ in the betting:

* ``bettor`` (:class:`BettingAgent`) raises, holds or passes by the expected net chips of
  the settlement (HU-15..HU-19, the engine's :func:`~kocka.solver.rules.chip_bidding.settle`)
  under its estimate of who finishes with the most points;
* ``score-only`` (:class:`ScoreOnlyAgent`) never raises and holds every raise (it passes
  only when it cannot pay);
* ``reckless`` (:class:`RecklessAgent`) raises at every opportunity and answers every raise
  with a raise until the stake reaches :attr:`RecklessAgent.STAKE_CAP`, then holds (a cap,
  or two reckless players would raise forever under ``hu_bid.response = until_answered``).

**Who finishes top.** The cards are public and independent, so each player's final total
has its own distribution under optimal (expected-score) play: at the start of a turn the
one stored for every card in the target table (``kocka-solve build kockapoker --kind
target``, :meth:`~kocka.solver.solvers.scorecard.target.TargetView.final_distribution`, the same
distributions the scorecard games' ``winner`` agent plays against); mid-turn, for the
player whose turn it is, the scorecard solver's forward distribution from his position
(:func:`~kocka.solver.solvers.scorecard.distribution.score_distribution`) while his card has at most
:data:`EXACT_MAX_OPEN` open boxes, else his card's at the start of the turn. From the
distributions, P(the top set is exactly S) for every set S of players (ties included),
exactly, and each player's P(finishing first) with ties shared (RULES.md section 0), the
``winner``'s win share. Without a target table (:class:`FinalTotals` with none) a card
with more than :data:`EXACT_MAX_OPEN` open boxes gets a normal distribution with the exact
mean and the empty card's standard deviation scaled by the square root of the open share.

**The bettor's value of an action** is its expected net result (received minus paid) if
the betting then stood still: the settlement averaged over the top sets, after the
answers it provokes. Those answers are predicted with the same model: each player still to
answer holds when holding is worth more to him than passing (those after him assumed to
hold); a player who cannot pay passes. It is myopic (later raises and the drift of the
estimates are ignored) and assumes opponents answer rationally; what it does weigh is the
pot (a raise that is held grows the bank it expects to win), the chance of an early end
(HU-15: a raise everybody passes takes the bank) and the small prize of a top player who
passed (HU-17).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from kocka.agents.bots.base import Agent, AgentUnavailable, ranked
from kocka.agents.bots.catalogue import AgentOptions
from kocka.solver.solvers.scorecard import ranking as scorecard_ranking
from kocka.solver.solvers.scorecard.card_values import value_of_card
from kocka.solver.solvers.scorecard.distribution import score_distribution
from kocka.solver.solvers.scorecard.target import view_of
from kocka.solver.base.errors import TableError
from kocka.solver.base.decision import Decision
from kocka.solver.models.finishing import first_place_shares, top_set_probabilities
from kocka.solver.store.table_store import get_table
from kocka.solver.rules import Game
from kocka.solver.rules.chip_bidding import (
    PLAY, RAISE, RESPOND, ChipBiddingGame, ChipBiddingState, Decline, Hold, Pass, Raise, settle,
)
from kocka.solver.rules.scorecard import Card, HungarianGame

EXACT_MAX_OPEN = 11
"""Cards with at most this many open boxes use the exact remaining-score distribution
(propagating a card with 14 open boxes takes seconds, with 11 about a tenth of one)."""


# ----------------------------------------------------------------------------------------
# Who finishes top
# ----------------------------------------------------------------------------------------
class FinalTotals:
    """Distributions of every player's final total for one chip-bidding game (cached per
    card: cards recur within and across games)."""

    def __init__(self, game: ChipBiddingGame, table: Any, exact_max_open: int = EXACT_MAX_OPEN,
                 target_table: Any = None) -> None:
        self.game = game
        self.table = table
        self.exact_max_open = exact_max_open
        self.solo = HungarianGame(game.rules.scorecard_rules(), num_players=1)
        self.view = None if target_table is None else view_of(self.solo, target_table)
        self.empty_std = score_distribution(self.solo, table, None).std()
        self._cache: dict[Card, tuple[int, np.ndarray]] = {}

    def of_card(self, card: Card) -> tuple[int, np.ndarray]:
        """``(first, probs)``: P(final total = first + i) = probs[i], from the start of a turn."""
        if card not in self._cache:
            self._cache[card] = self._compute(card)
        return self._cache[card]

    def _compute(self, card: Card) -> tuple[int, np.ndarray]:
        filled = sum(e is not None for e in card.entries)
        if card.is_full:
            return self.solo.card_total(card), np.ones(1)
        if self.view is not None:
            return self.view.final_distribution(card)
        if len(card.entries) - filled <= self.exact_max_open:
            dist = score_distribution(self.solo, self.table, card)
            return dist.first, np.asarray(dist.probs, dtype=float)
        mean = value_of_card(self.solo, self.table, card)
        std = self.empty_std * math.sqrt((len(card.entries) - filled) / len(card.entries))
        return _discrete_normal(mean, std)

    def of_player(self, state: ChipBiddingState, player: int) -> tuple[int, np.ndarray]:
        """Player ``player``'s final total; mid-turn for the player whose turn it is."""
        card_state = state.card
        card = card_state.cards[player]
        mid_turn = card_state.player == player and (card_state.throw > 0 or card_state.dice is not None)
        if mid_turn and sum(e is None for e in card.entries) <= self.exact_max_open:
            dist = score_distribution(self.game.card_game, self.table, card_state)
            return dist.first, np.asarray(dist.probs, dtype=float)
        return self.of_card(card)

    def of_players(self, state: ChipBiddingState) -> list[tuple[int, np.ndarray]]:
        """Every player's final total, in seat order (:meth:`of_player`)."""
        return [self.of_player(state, p) for p in range(self.game.num_players)]

    def top_sets(self, state: ChipBiddingState) -> dict[frozenset[int], float]:
        """P(the players with the highest final total are exactly S), for every S."""
        return top_set_probabilities(self.of_players(state))


def _discrete_normal(mean: float, std: float) -> tuple[int, np.ndarray]:
    lo, hi = int(math.floor(mean - 5 * std)), int(math.ceil(mean + 5 * std))
    scores = np.arange(lo, hi + 1)
    weights = np.exp(-0.5 * ((scores - mean) / max(std, 1e-9)) ** 2)
    return lo, weights / weights.sum()


def expected_net(
    top_sets: dict[frozenset[int], float], paid: Sequence[int], passed: Sequence[bool], player: int, rules: Any
) -> float:
    """``player``'s expected net result if the betting stays at (paid, passed): the
    settlement (HU-15..HU-19) averaged over who finishes top."""
    if passed.count(False) == 1:  # HU-15: decided now, whatever the totals
        return float(settle([0] * len(paid), paid, passed, rules)[player])
    total = 0.0
    for top, p in top_sets.items():
        totals = [1 if i in top else 0 for i in range(len(paid))]
        total += p * float(settle(totals, paid, passed, rules)[player])
    return total


# ----------------------------------------------------------------------------------------
# Agents
# ----------------------------------------------------------------------------------------
class _CardPlayer(Agent):
    """Plays the card optimally (the scorecard solver's ``rank``); subclasses bet."""

    value_name = "expected final score (card) / expected net chips (betting)"

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> None:
        if not isinstance(game, ChipBiddingGame):
            raise AgentUnavailable(f"{type(self).__name__} plays kockapoker-bid, not {game.NAME!r}")
        super().__init__(game, seed)
        solo = HungarianGame(game.rules.scorecard_rules(), num_players=1)
        try:
            self.table = get_table(solo, None, options.cache_dir, build_missing=options.build_missing)
        except TableError as exc:
            raise AgentUnavailable(f"agent {self.name!r} plays its card from the kockapoker table: {exc}") from None
        except (ImportError, AttributeError) as exc:
            raise AgentUnavailable(f"agent {self.name!r} needs the scorecard solver: {exc}") from None

    def rank(self, state: ChipBiddingState) -> list[Decision]:
        actions = self.decision_actions(state)
        if state.phase == PLAY:
            return scorecard_ranking.rank(self.game.card_game, self.table, state.card)
        return ranked(self.rank_betting(state, actions))

    def rank_betting(self, state: ChipBiddingState, actions: list) -> list[Decision]:
        raise NotImplementedError


class ScoreOnlyAgent(_CardPlayer):
    """Never raises; holds every raise it can pay (HU-13), else passes."""

    name = "score-only"
    description = "kockapoker-bid: optimal card play, never raises, holds every raise"

    def rank_betting(self, state: ChipBiddingState, actions: list) -> list[Decision]:
        order = [Decline, Hold, Pass, Raise]
        choice = min(actions, key=lambda a: order.index(type(a)))
        return [Decision(a, 1.0 if a == choice else 0.0, type(a).__name__.lower()) for a in actions]


class RecklessAgent(_CardPlayer):
    """Raises at every opportunity; answers a raise by raising while the stake is below
    :attr:`STAKE_CAP`, then holds (passes only when it cannot pay)."""

    name = "reckless"
    description = "kockapoker-bid: optimal card play, raises at every chance (re-raises up to a stake of 10)"
    STAKE_CAP = 10

    def rank_betting(self, state: ChipBiddingState, actions: list) -> list[Decision]:
        kinds = {type(a): a for a in actions}
        if Raise in kinds and (state.phase == RAISE or state.stake < self.STAKE_CAP):
            choice = kinds[Raise]
        else:
            choice = kinds.get(Hold) or kinds.get(Decline) or kinds[Pass]
        return [Decision(a, 1.0 if a == choice else 0.0, type(a).__name__.lower()) for a in actions]


class BettingAgent(_CardPlayer):
    """Bets by the expected net chips of the settlement (module docstring); ``detail``
    shows P(finishing top) for every player."""

    name = "bettor"
    description = "kockapoker-bid: raises, holds or passes by P(finishing top) from the stored score distributions"

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> None:
        super().__init__(game, seed, options)
        solo = HungarianGame(self.game.rules.scorecard_rules(), num_players=1)
        try:
            target = get_table(solo, "target", options.cache_dir, build_missing=options.build_missing)
        except TableError as exc:
            raise AgentUnavailable(f"agent 'bettor' weighs who finishes top with the kockapoker target table: {exc}") from None
        self.totals = FinalTotals(self.game, self.table, target_table=target)

    def rank_betting(self, state: ChipBiddingState, actions: list) -> list[Decision]:
        me = self.game.current_player(state)
        totals = self.totals.of_players(state)
        tops = top_set_probabilities(totals)
        p_top = [sum(p for s, p in tops.items() if i in s) for i in range(self.game.num_players)]
        detail = {"P(top)": p_top, "P(win)": first_place_shares(totals)}
        decisions = []
        for action in actions:
            paid, passed = self.after(state, me, action, tops)
            value = expected_net(tops, paid, passed, me, self.game.rules)
            decisions.append(Decision(action, value, type(action).__name__.lower(), detail))
        return decisions

    # ----- predicted betting -----
    def after(
        self, state: ChipBiddingState, me: int, action: Any, tops: dict[frozenset[int], float]
    ) -> tuple[tuple[int, ...], tuple[bool, ...]]:
        """(paid, passed) once ``action`` and the answers it provokes are made."""
        paid, passed, stake = list(state.paid), list(state.passed), state.stake
        pending = list(state.pending[1:]) if state.phase == RESPOND else []
        if isinstance(action, Hold):
            paid[me] += stake
        elif isinstance(action, Pass):
            passed[me] = True
        elif isinstance(action, Raise):
            stake += 1
            paid[me] += stake
            n = self.game.num_players
            if state.phase == RESPOND and self.game.rules.response == "one_lap":
                pending = list(state.pending[1:])
            else:
                pending = [p for p in ((me + i) % n for i in range(1, n)) if not passed[p]]
        return self._answers(paid, passed, stake, pending, tops)

    def _answers(
        self, paid: list[int], passed: list[bool], stake: int, pending: list[int], tops: dict[frozenset[int], float]
    ) -> tuple[tuple[int, ...], tuple[bool, ...]]:
        """Each pending player holds if that is worth more to him than passing, those
        after him assumed to hold; one who cannot pay passes."""
        stack = self.game.rules.stack
        for i, player in enumerate(pending):
            if passed.count(False) == 1:
                break
            if stack is not None and stack - paid[player] < stake:
                passed[player] = True
                continue
            later = pending[i + 1 :]

            def worth(hold: bool) -> float:
                p, q = list(paid), list(passed)
                if hold:
                    p[player] += stake
                else:
                    q[player] = True
                for other in later:
                    p[other] += stake
                return expected_net(tops, p, q, player, self.game.rules)

            if worth(True) >= worth(False):
                paid[player] += stake
            else:
                passed[player] = True
        return tuple(paid), tuple(passed)


# ----------------------------------------------------------------------------------------
# Factories (registered in kocka.agents.bots.catalogue)
# ----------------------------------------------------------------------------------------
def bettor_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return BettingAgent(game, seed, options)


def score_only_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return ScoreOnlyAgent(game, seed, options)


def reckless_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return RecklessAgent(game, seed, options)


__all__ = [
    "BettingAgent", "EXACT_MAX_OPEN", "FinalTotals", "RecklessAgent", "ScoreOnlyAgent", "expected_net",
    "top_set_probabilities",
]  # fmt: skip
