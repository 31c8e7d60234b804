"""The independent reference ranking of a scorecard position (:func:`rank_reference`):
the engine's legal actions and fill scores, the expected-score table's turn-start values
and the dense keep transitions, without the kernel's turn. Slow; the table's spot checks
(:class:`.values.ScorecardEV`) and the tests compare :func:`.ranking.rank` with it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from operator import or_
from typing import Callable

import numpy as np

from kocka.solver.models.card_model import N_OUT, three_throw_turn, tracker_after_table
from kocka.solver.base.decision import Decision
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.rules.five_dice import bits_of
from kocka.solver.rules.scorecard import Card, Declare, Fill, Keep, ScorecardGame, ScorecardState
from kocka.solver.base.table_file import Table
from kocka.solver.solvers.scorecard.card_values import _CardKey, _card_key, _state_value
from kocka.solver.solvers.scorecard.model import _fill_rewards, _flag_box, _special_outcomes

# Each entry is about n_boxes x 2 x 252 float64 (60 KB for 15 boxes): 256 of them cover
# many concurrent games (a game visits one mask per turn) while keeping a long-running
# process's memory bounded (~15 MB).
_REWARD_CACHE_ENTRIES = 256


@dataclass(frozen=True)
class _GameFacts:
    """Per-variant constants of :func:`rank_reference` (computed once per game object)."""

    n_ft: int
    flag_box: int | None
    special: tuple[int, ...]
    flag_after_flag_box: np.ndarray | None  # flag after writing each outcome in the flag box
    rewards: dict = field(default_factory=dict)  # (mask, Yahtzee entry) -> fill points


@lru_cache(maxsize=16)
def _facts(game: ScorecardGame) -> _GameFacts:
    st = game.score_table()
    flag_box = _flag_box(game)
    flags = None
    if flag_box is not None:
        flags = np.array([int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, int(e)) > 0) for e in st[flag_box, :, 0]])
    return _GameFacts(2 if (st[:, :, 0] != st[:, :, 1]).any() else 1, flag_box,
                      tuple(_special_outcomes(game, flag_box)), flags)


def _fill_values(game: ScorecardGame, table: Table, key: _CardKey, allowed_bits: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``Q[b, ft, o]``: expected final score of writing outcome ``o`` into box ``b`` (after
    the first throw when ``ft``), -inf where not allowed; and the fill points ``rew``."""
    n = game.num_boxes
    facts = _facts(game)
    n_ft, flag_box = facts.n_ft, facts.flag_box
    rew = facts.rewards.get((key.mask, key.yahtzee_entry))
    if rew is None:
        if len(facts.rewards) >= _REWARD_CACHE_ENTRIES:
            facts.rewards.clear()
        rew = facts.rewards[key.mask, key.yahtzee_entry] = _fill_rewards(game, key.mask, key.yahtzee_entry, n_ft, facts.special)
    Q = np.full((n, 2, N_OUT), -math.inf)
    after = tracker_after_table(game)
    for b in range(n):
        if not allowed_bits >> b & 1:
            continue
        m2 = key.mask | 1 << b
        if b in game.upper_boxes:
            future = _state_value(table, game, m2, after[b, key.tracker], key.flag)
        elif b == flag_box:
            future = _state_value(table, game, m2, key.tracker, facts.flag_after_flag_box)
        else:
            future = np.full(N_OUT, _state_value(table, game, m2, key.tracker, key.flag))
        Q[b] = key.so_far + rew[b, -1 if n_ft == 1 else slice(None)] + future
    return Q, rew


def rank_reference(game: ScorecardGame, table: Table, state: ScorecardState) -> list[Decision]:
    """:func:`rank` recomputed without the kernel's turn: the engine's legal actions and
    fill scores (``allowed_boxes``/``fill_score``), the table's turn-start values and the
    dense keep -> outcome transitions (:func:`.card_model.three_throw_turn`). Slow (about a
    millisecond); the spot checks and the tests compare :func:`rank` with it."""
    actions = game.legal_actions(state)
    if not actions:
        return []
    card = state.cards[state.player]
    key = _card_key(game, card)
    dt = dice_tables(5)
    o = dt.outcome_index(state.dice)
    groups = game.box_groups(key.mask)
    Q, rew = _fill_values(game, table, key, reduce(or_, groups, 0))
    turns = {}
    for g in groups:
        boxes = [b for b in range(game.num_boxes) if g >> b & 1]
        turns[g] = three_throw_turn(Q[boxes, 0].max(axis=0), Q[boxes, 1].max(axis=0))
    current = bits_of(game.turn_boxes(state))  # the group of this turn (SK: the declared box)
    first_throw = int(state.throw == 1)
    fills, declares, keeps = [], [], []
    for action in actions:
        if isinstance(action, Fill):
            b = game.box_index(action.box)
            entry = rew[b, -1 if rew.shape[1] == 1 else first_throw, o]
            value = float(Q[b, first_throw, o])
            fills.append(Decision(action, value, game.describe_action(action, state),
                                  {"type": "fill", "box": action.box, "points": int(entry)}))
        elif isinstance(action, Declare):
            value = float(turns[1 << game.box_index(action.box)]["V1"][o])
            declares.append(Decision(action, value, game.describe_action(action, state), {"type": "declare", "box": action.box}))
        elif isinstance(action, Keep):
            stage = "K2" if state.throw == 1 else "K3"
            value = float(turns[current][stage][dt.keep_index(action.dice)])
            keeps.append(Decision(action, value, game.describe_action(action, state), {"type": "keep", "dice": list(action.dice)}))
    keeps.sort(key=lambda d: -len(d.action.dice))
    return sorted(fills + declares + keeps, key=lambda d: -d.value)

def expected_turn_value(game: ScorecardGame, table: Table, card: Card) -> float:
    """Expected final score of ``card`` at a turn start, recomputed from
    :func:`rank_reference` over the 252 first throws (a check of the table against the
    rules engine, independent of the kernel's turn)."""
    return turn_start_average(game, card, lambda state: rank_reference(game, table, state)[0].value)


def turn_start_average(game: ScorecardGame, card: Card, value: Callable[[ScorecardState], float]) -> float:
    """The average of ``value(state)`` over the 252 first throws of a turn of ``card``
    (every player holding it), each state after the first throw.

    Why one function: the checks that recompute a turn-start value through a ranking,
    :func:`expected_turn_value` (expected score) and :func:`.target.turn_reach_value`
    (chance of a target), average over the same first throws in the same order."""
    dt = dice_tables(5)
    total = 0.0
    for o, p in enumerate(dt.probs):
        dice = tuple(int(v) for v in dt.outcomes[o])
        state = ScorecardState(cards=(card,) * game.num_players, throw=1, dice=dice)
        total += p * value(state)
    return total

