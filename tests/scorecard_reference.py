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

import math
from typing import Any, Callable

import numpy as np

from kocka.solver.base.dice import outcome_distribution, sub_multisets
from kocka.solver.base.errors import InvalidStateError
from kocka.solver.rules.scorecard import Card, Declare, Fill, Keep, ScorecardState

FIVE = outcome_distribution(5)


def _larger(a: Any, b: Any) -> Any:
    """The better of two values: floats stay floats, arrays compare elementwise."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.maximum(a, b)
    return max(a, b)


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


def keep_or(next_throw: dict, stop: dict) -> dict:
    """Value after a throw: stop (``stop[dice]``, fill now) or the best keep, re-rolling the
    rest into the next throw (``next_throw``: the value after it, per sorted five dice)."""
    memo: dict = {}

    def keep_value(kept):
        if kept not in memo:
            memo[kept] = sum(p * next_throw[tuple(sorted(kept + r))] for r, p in outcome_distribution(5 - len(kept)))
        return memo[kept]

    out = {}
    for d in stop:
        v = stop[d]
        for k in sub_multisets(d):
            if len(k) < 5:
                v = _larger(v, keep_value(k))
        out[d] = v
    return out


def turn_value(game, mask: int, fill: Callable[[tuple, bool, set], Any]) -> Any:
    """The value of a turn on the card ``mask`` before its first throw, with the best play
    in every group of :func:`box_groups`: ``fill(dice, first, boxes)`` is what ending the
    turn with ``dice`` in the best box of ``boxes`` is worth (``first``: after the first
    throw)."""
    best_first: dict = {d: -math.inf for d, _ in FIVE}
    for boxes in box_groups(game, mask):
        after3 = {d: fill(d, False, boxes) for d, _ in FIVE}
        after2 = keep_or(after3, dict(after3))
        after1 = keep_or(after2, {d: fill(d, True, boxes) for d in after2})
        for d in best_first:
            best_first[d] = _larger(best_first[d], after1[d])
    return sum(p * best_first[d] for d, p in FIVE)
