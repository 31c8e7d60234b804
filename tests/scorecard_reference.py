"""The turn of a scorecard card, three throws and every keep, for the tests' naive
expectimaxes: ``NaiveExpectimax`` (tests/test_scorecard_solver.py, expected points) and
``NaiveThreshold`` (tests/test_target_solver.py, P(reaching each target), numpy arrays over
the targets). The two differ only in what a fill is worth, so the turn around it is written
once, here, with the cards one turn after the empty card where both are checked
(:func:`one_box_cards`).

Written from the rules on top of the engine only: every roll from ``outcome_distribution``,
every keep from ``sub_multisets``, the boxes a turn may end in from the engine's legal
actions (``legal_actions``, ``allowed_boxes``). Nothing of the solvers' kernels is used.
Values are floats or numpy arrays; the best of two is their (elementwise) maximum.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kocka.solver.base.dice import outcome_distribution, sub_multisets
from kocka.solver.base.errors import InvalidStateError
from kocka.solver.rules.scorecard import Card, Declare, Fill, Keep, ScorecardState

FIVE = outcome_distribution(5)


def filled_card(game, mask: int) -> Card:
    """The card whose boxes in ``mask`` are filled (any entry: the one for 1 1 1 1 1) and
    the others open."""
    entries = tuple(int(game.score_table()[b, 0, 0]) if mask >> b & 1 else None for b in range(game.num_boxes))
    return Card(entries=entries)


def one_box_cards(game):
    """Every card with exactly one box filled, with any entry the box can take, as
    (box, entry, card): the cards one turn after the empty card that the engine accepts
    (``check_state``), where both naive expectimaxes are checked against the tables."""
    st = game.score_table()
    for b in range(game.num_boxes):
        for entry in sorted({int(v) for v in st[b].ravel()}):
            card = Card(entries=tuple(entry if i == b else None for i in range(game.num_boxes)))
            try:
                game.check_state(ScorecardState(cards=(card,)))
            except InvalidStateError:
                continue  # e.g. a part-2 box before part 1 (SK-3)
            yield b, entry, card


def box_groups(game, mask: int) -> list[set[int]]:
    """The boxes one turn may end in, as the engine allows them: each box it lets one
    declare after the first throw (SK-3) on its own, then one group of the boxes a turn
    without a declaration may fill."""
    probe = ScorecardState(cards=(filled_card(game, mask),), throw=1, dice=(1, 2, 3, 4, 6))
    actions = game.legal_actions(probe)
    declared = [game.box_index(a.box) for a in actions if isinstance(a, Declare)]
    plain = {game.box_index(a.box) for a in actions if isinstance(a, Fill)}
    if any(isinstance(a, Keep) for a in actions):
        plain |= {b for b in game.allowed_boxes(mask) if b not in declared}
    return [{b} for b in declared] + ([plain] if plain else [])


_OUTCOME = {dice: o for o, (dice, _) in enumerate(FIVE)}
_P_FIVE = np.array([p for _, p in FIVE])


def _keep_rolls() -> tuple[list, np.ndarray, int]:
    """The keeps between two throws in numpy, so that a turn is a few array operations
    rather than a Python loop per keep and roll. Per number of dice kept (the keeps of one
    size roll the same number of dice, so their rolls form a full array): the rows of those
    keeps, the outcome each roll ends in and its chance (``outcome_distribution``); and
    ``keeps[o]``, the keeps of outcome ``o`` (``sub_multisets`` without the whole throw),
    padded with the row after the last keep, a keep worth -inf; the number of keeps."""
    kept = sorted({k for dice, _ in FIVE for k in sub_multisets(dice) if len(k) < 5})
    row = {k: i for i, k in enumerate(kept)}
    by_size = []
    for size in range(5):
        keeps_of_size = [k for k in kept if len(k) == size]
        rolls = outcome_distribution(5 - size)
        lands = np.array([[_OUTCOME[tuple(sorted(k + r))] for r, _ in rolls] for k in keeps_of_size])
        by_size.append((np.array([row[k] for k in keeps_of_size]), lands, np.array([p for _, p in rolls])))
    per_outcome = [[row[k] for k in sub_multisets(dice) if len(k) < 5] for dice, _ in FIVE]
    keeps = np.full((len(FIVE), max(map(len, per_outcome))), len(kept))
    for o, ks in enumerate(per_outcome):
        keeps[o, :len(ks)] = ks
    return by_size, keeps, len(kept)


_ROLLS_BY_SIZE, _KEEPS, _N_KEEPS = _keep_rolls()


def keep_or(next_throw: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Value after a throw, per outcome (rows in ``FIVE``'s order): stop (``stop``, fill
    now) or the best keep, re-rolling the rest into the next throw (``next_throw``: the
    value after it). Rows are floats or arrays over targets, compared elementwise."""
    by_keep = np.full((_N_KEEPS + 1, *next_throw.shape[1:]), -np.inf)
    for rows, lands, chances in _ROLLS_BY_SIZE:
        by_keep[rows] = np.einsum("j,kj...->k...", chances, next_throw[lands])
    best = np.array(stop, dtype=float)
    for column in _KEEPS.T:  # one keep per outcome at a time: no (outcomes, keeps, targets) array
        np.maximum(best, by_keep[column], out=best)
    return best


def turn_value(game, mask: int, fill: Callable[[tuple, bool, set], Any]) -> Any:
    """The value of a turn on the card ``mask`` before its first throw, with the best play
    in every group of :func:`box_groups`: ``fill(dice, first, boxes)`` is what ending the
    turn with ``dice`` in the best box of ``boxes`` is worth (``first``: after the first
    throw)."""
    best_first = None
    for boxes in box_groups(game, mask):
        after3 = np.array([fill(d, False, boxes) for d, _ in FIVE], dtype=float)
        after2 = keep_or(after3, after3)
        after1 = keep_or(after2, np.array([fill(d, True, boxes) for d, _ in FIVE], dtype=float))
        best_first = after1 if best_first is None else np.maximum(best_first, after1)
    value = _P_FIVE @ best_first
    return float(value) if np.ndim(value) == 0 else value
