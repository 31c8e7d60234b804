"""The value of a card at the start of its next turn, read from a solved expected-score
table (:mod:`kocka.solver.solvers.scorecard.values`): what the table needs of a card
(:class:`_CardKey`) and its turn-start value (:func:`value_of_card`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kocka.solver.base.errors import InvalidStateError
from kocka.solver.rules.scorecard import Card, ScorecardGame
from kocka.solver.base.table_file import Table
from kocka.solver.solvers.scorecard.model import _flag_box


@dataclass(frozen=True)
class _CardKey:
    mask: int
    tracker: int
    flag: int
    so_far: int
    yahtzee_entry: int | None


def _card_key(game: ScorecardGame, card: Card) -> _CardKey:
    """What the table needs of a card; ``so_far`` counts its entries and bonus Yahtzees
    (the upper bonus is part of the values, through the tracker offset)."""
    flag_box = _flag_box(game)
    y_entry = None if flag_box is None else card.entries[flag_box]
    flag = 0
    if y_entry is not None:
        flag = int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, y_entry) > 0)
    return _CardKey(card.filled_mask, game.tracker_of(card), flag, game.entries_total(card), y_entry)


def _state_value(table: Table, game: ScorecardGame, mask: int, tracker: np.ndarray | int, flag) -> np.ndarray:
    """Expected future score (tracker offset included) of turn-start states."""
    U = mask & ((1 << len(game.upper_boxes)) - 1)
    base = int(table["base"][mask])
    cls = table["tclass"][U, tracker]
    if base < 0 or np.any(cls < 0):
        raise InvalidStateError(f"{game.NAME}: card with filled mask {mask:#x} and tracker {tracker!r} cannot occur under these rules")
    return table["values"][base + cls * int(table["nflag"][mask]) + flag] + table["toffset"][U, tracker]


def value_of_card(game: ScorecardGame, table: Table, card: Card) -> float:
    """Expected final score of ``card`` at the start of its next turn (optimal play)."""
    key = _card_key(game, card)
    if card.is_full:
        return float(game.card_total(card))
    return float(key.so_far + _state_value(table, game, key.mask, key.tracker, key.flag))

