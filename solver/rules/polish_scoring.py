"""Polish poker dice's rule options and pure scoring (RULES.md section 4, PL-1..PL-17): the
card's boxes, the full and basic games' options, and the entries dice earn.

The pure scoring functions (:func:`base_value`, :func:`shows`, :func:`face_entry`,
:func:`box_value`, :func:`basic_value`, :func:`upper_bonus`, :func:`stage_total`) work on
sorted five-dice tuples and are what solvers use to build their value tables; the engines
of :mod:`kocka.solver.rules.polish` check positions against :func:`possible_entries`.

Box ids are the strings in :data:`BOXES`; their order is the card order and the fixed
stage-3 order (PL-16).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Iterable, Mapping

from kocka.solver.base.dice import FACES, all_outcomes, counts, validate_dice
from kocka.solver.base.errors import InvalidStateError, RulesError, either, shown
from kocka.solver.base.i18n import _
from kocka.solver.rules.base import Rules
from kocka.solver.rules.five_dice import FACE_BOXES, FACE_OF_BOX, NUM_DICE, combination_scorers, net_face_entry, normalize_boxes

BASE_THROWS = 3
"""Throws per turn before fences (PL-2)."""
UPPER_BONUS = 50
UPPER_PENALTY = -20
"""PL-9: net upper score above 0 earns the bonus, below 0 the penalty."""

COMBINATIONS = (
    "pair", "two_pairs", "three_kind", "small_straight", "large_straight",
    "full_house", "four_kind", "poker",
)
"""The eight combinations of the basic game (PL-4), in card order."""
LOWER_BOXES = COMBINATIONS + ("chance",)
BOXES = FACE_BOXES + LOWER_BOXES
"""The 15 boxes of a full-game card (PL-8), in the fixed stage-3 order (PL-16)."""

FULL_GAME_MULTIPLIER = {"poker": 3}
"""PL-13: poker counts three times its sum whenever it is written."""
FULL_GAME_FROM_HAND_MULTIPLIER = {"full_house": 3, "four_kind": 3, "poker": 6}
"""PL-13: multipliers for a box written right after the first throw (others: none)."""
BASIC_FROM_HAND_FIXED = {"pair": 1, "two_pairs": 2}
"""PL-6: pair is never boosted, two pairs always doubles; the other six use ``basic_hand_mult``."""


# ----------------------------------------------------------------------------------------
# Pure scoring on sorted five-dice tuples
# ----------------------------------------------------------------------------------------
def _check_same_face_groups(value: str) -> bool:
    if value not in ("no", "yes"):
        raise RulesError(_("the rule option {name} must be {options}, not {value}", name="same_face_groups",
                           options=either(("no", "yes")), value=shown(value)))
    return value == "yes"


def _check_lower(combo: str) -> None:
    if combo not in LOWER_BOXES:
        raise RulesError(_("there is no combination {name}; the combinations are {known}", name=shown(combo),
                           known=", ".join(LOWER_BOXES)))


def base_value(combo: str, dice: Iterable[int], same_face_groups: str = "no") -> int:
    """PL-3 base value of ``combo`` on five dice (best fit), 0 if the dice do not show it.

    Every shown combination has a positive base value (the smallest is a pair of 1s, 2).
    The patterns are the ones HU-6 and SK-6 share (:func:`.five_dice.combination_scorers`).

    >>> base_value("two_pairs", [3, 3, 6, 6, 6])
    18
    """
    _check_lower(combo)
    same_groups = _check_same_face_groups(same_face_groups)
    return combination_scorers(same_groups)[combo](counts(validate_dice(dice, NUM_DICE)))


def shows(combo: str, dice: Iterable[int], same_face_groups: str = "no") -> bool:
    """True if the five dice show the pattern of ``combo`` (PL-3).

    >>> shows("full_house", [6, 6, 6, 6, 6]), shows("full_house", [6, 6, 6, 6, 6], "yes")
    (False, True)
    """
    return base_value(combo, dice, same_face_groups) > 0


def face_entry(face: int, dice: Iterable[int]) -> int:
    """Face-box entry ``(c - 3) * f`` for c dice showing ``face`` (PL-9).

    >>> face_entry(1, [1, 2, 3, 4, 6]), face_entry(6, [1, 2, 3, 4, 6])
    (-2, -12)
    """
    if face not in FACES:
        raise RulesError(_("a face is from 1 to 6, not {value}", value=shown(face)))
    return net_face_entry(counts(validate_dice(dice, NUM_DICE)), face)


def box_value(box: str, dice: Iterable[int], from_hand: bool, rules: "PolishRules") -> int:
    """Entry for writing ``box`` of the full game with ``dice`` (PL-9, PL-10, PL-13).

    A face box takes ``(c - 3) * f``; a lower box its base value if the dice show its
    pattern, else 0. Full and four of a kind count triple from hand; poker counts 3 x its
    sum, 6 x from hand.

    >>> box_value("full_house", [3, 3, 6, 6, 6], True, PolishRules())
    72
    """
    if box in FACE_OF_BOX:
        return face_entry(FACE_OF_BOX[box], dice)
    value = base_value(box, dice, rules.same_face_groups)
    table = FULL_GAME_FROM_HAND_MULTIPLIER if from_hand else FULL_GAME_MULTIPLIER
    return value * table.get(box, 1)


def basic_value(combo: str, dice: Iterable[int], from_hand: bool, rules: "PolishBasicRules") -> int:
    """Value of recording ``combo`` in the basic game (PL-3, PL-6); 0 if not shown.

    From hand, a pair is never boosted, two pairs count double and the other six
    combinations count ``rules.basic_hand_mult`` times.

    >>> basic_value("two_pairs", [2, 2, 4, 4, 6], True, PolishBasicRules())
    24
    """
    if combo not in COMBINATIONS:
        raise RulesError(_("there is no combination {name}; the combinations are {known}", name=shown(combo),
                           known=", ".join(COMBINATIONS)))
    value = base_value(combo, dice, rules.same_face_groups)
    if not from_hand:
        return value
    return value * BASIC_FROM_HAND_FIXED.get(combo, rules.basic_hand_mult)


def upper_bonus(net: int, rules: "PolishRules") -> int:
    """PL-9 bonus for a stage's net upper score: +50 above 0, -20 below, 0 at exactly 0
    (``pl.bonus_zero = plus50``: +50 at 0).

    >>> upper_bonus(1, PolishRules()), upper_bonus(0, PolishRules()), upper_bonus(-4, PolishRules())
    (50, 0, -20)
    """
    if net > 0 or (net == 0 and rules.bonus_zero == "plus50"):
        return UPPER_BONUS
    return UPPER_PENALTY if net < 0 else 0


def stage_total(card: Mapping[str, int | None], rules: "PolishRules") -> int:
    """PL-17 total of one stage card (box id -> entry, None or missing for open boxes).

    Face entries, plus the upper bonus, plus lower entries. The bonus is counted once every
    face box on the card is filled; a card without face boxes (a validation variant that
    drops them) has no bonus.
    """
    unknown = sorted(set(card) - set(rules.boxes))
    if unknown:
        raise InvalidStateError(_("there is no box {name} on this card; the boxes are {boxes}", name=shown(unknown),
                                  boxes=", ".join(rules.boxes)))
    entries = {box: card.get(box) for box in rules.boxes}
    total = sum(v for v in entries.values() if v is not None)
    faces = [entries[b] for b in rules.boxes if b in FACE_OF_BOX]
    if faces and None not in faces:
        total += upper_bonus(sum(faces), rules)
    return total


@lru_cache(maxsize=None)
def possible_entries(box: str, same_face_groups: str, kind: str, hand_mult: int = 2) -> frozenset[int]:
    """Every entry a box can hold (any dice, from hand or not, or scratched): for state checks."""
    if box in FACE_OF_BOX:
        return frozenset((c - 3) * FACE_OF_BOX[box] for c in range(NUM_DICE + 1))
    values = {0}
    for dice in all_outcomes(NUM_DICE):
        for from_hand in (False, True):
            if kind == "full_game":
                values.add(box_value(box, dice, from_hand, PolishRules(same_face_groups=same_face_groups)))
            else:
                rules = PolishBasicRules(basic_hand_mult=hand_mult, same_face_groups=same_face_groups)
                values.add(basic_value(box, dice, from_hand, rules))
    return frozenset(values)


# ----------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PolishRules(Rules):
    """Options of the full game (RULES.md section 6) plus small-variant parameters.

    ``boxes``, ``stages`` and ``fence_cap`` exist for exact solvers validated on small
    variants: a card of only some boxes (kept in card order), fewer stages (1..3, played
    in order: 1 = free order, 2 = declared box, 3 = fixed order), and fences saturating at
    ``fence_cap`` (None: unbounded, the rules as written).
    """

    GAME: ClassVar[str] = "polish"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "bonus_zero": ("none", "plus50"),
        "upper_scratch": ("minus_3f", "forbidden"),
        "same_face_groups": ("no", "yes"),
    }

    bonus_zero: str = "none"
    upper_scratch: str = "minus_3f"
    same_face_groups: str = "no"
    boxes: tuple[str, ...] = BOXES
    stages: int = 3
    fence_cap: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        normalize_boxes(self, BOXES)
        if isinstance(self.stages, bool) or self.stages not in (1, 2, 3):
            raise RulesError(_("the rule option {name} must be {options}, not {value}", name="stages",
                               options=either((1, 2, 3)), value=shown(self.stages)))
        cap = self.fence_cap
        if isinstance(cap, str):
            cap = None if cap.lower() in ("none", "") else (int(cap) if cap.isdigit() else cap)
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
            raise RulesError(_("the rule option fence_cap must be none or a whole number of at least 0, not {value}",
                               value=shown(self.fence_cap)))
        object.__setattr__(self, "fence_cap", cap)


@dataclass(frozen=True)
class PolishBasicRules(Rules):
    """Options of the basic game (RULES.md section 6: ``pl.basic_hand_mult``,
    ``pl.basic_record``, ``pl.basic_end``, ``same_face_groups``), a small-variant
    parameter and two readings of the solitaire table.

    ``boxes`` is a card of only some of the eight combinations (kept in card order), for
    exact solvers validated on small variants; the game then ends when a player has
    recorded all of them (PL-7).

    ``solo_turns`` and ``solo_zero_entries`` are **solver-horizon readings, not rules**
    (RULES.md has no turn limit): they say what the solitaire ``ev`` table of
    :mod:`kocka.solver.solvers.polish.values` values, and the engine ignores them. Played alone
    with unlimited turns the basic game has no useful optimum (recording is optional, so a
    player could wait for the best throw of every combination), so the table gives the
    player ``solo_turns`` turns (default 8, the fewest that fill the card) and totals what
    he has recorded when they run out. ``solo_zero_entries = "yes"`` values the older
    reading in which every turn must fill a combination and one the dice do not show gets a
    0 entry; the default ``"no"`` is PL-5 as written (no zero entries: a turn may end
    without a record).
    """

    GAME: ClassVar[str] = "polish-basic"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "basic_hand_mult": (2, 1, 3),
        "basic_record": ("optional", "mandatory"),
        "basic_end": ("finish_round", "immediate"),
        "same_face_groups": ("no", "yes"),
        "solo_zero_entries": ("no", "yes"),
    }

    basic_hand_mult: int = 2
    basic_record: str = "optional"
    basic_end: str = "finish_round"
    same_face_groups: str = "no"
    boxes: tuple[str, ...] = COMBINATIONS
    solo_turns: int = 8
    solo_zero_entries: str = "no"

    def __post_init__(self) -> None:
        super().__post_init__()
        normalize_boxes(self, COMBINATIONS)
        turns = self.solo_turns
        if not is_whole_number(turns) or not 1 <= turns <= MAX_SOLO_TURNS:
            raise RulesError(_("the rule option solo_turns must be a whole number from 1 to {most}, not {value}",
                               most=MAX_SOLO_TURNS, value=shown(turns)))


MAX_SOLO_TURNS = 64
"""Largest ``solo_turns`` (the solitaire table holds one layer per turn left)."""


def is_whole_number(value: Any) -> bool:
    """An int that is not a bool: what a count, a throw number or an entry must be."""
    return isinstance(value, int) and not isinstance(value, bool)


__all__ = [
    "BASE_THROWS", "BASIC_FROM_HAND_FIXED", "BOXES", "COMBINATIONS", "FULL_GAME_FROM_HAND_MULTIPLIER",
    "FULL_GAME_MULTIPLIER", "LOWER_BOXES", "MAX_SOLO_TURNS", "PolishBasicRules", "PolishRules", "UPPER_BONUS",
    "UPPER_PENALTY", "base_value", "basic_value", "box_value", "face_entry", "is_whole_number", "possible_entries",
    "shows", "stage_total", "upper_bonus",
]
