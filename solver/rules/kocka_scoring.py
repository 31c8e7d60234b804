"""KOCKA's rule options and the pure scoring of a roll (RULES.md section 1, KOCKA-2..7,
KOCKA-13..19): what :mod:`kocka.solver.rules.kocka`'s engine and the solvers share.

* :class:`KockaRules`, the options of RULES.md section 6 and the numeric parameters of
  small variants, with the rule readings the engine asks of them (KOCKA-13, 14, 19).
* **Pure scoring** on sorted dice tuples (KOCKA-4..7, KOCKA-17): :func:`set_aside_value`,
  :func:`valid_set_asides`, :func:`is_full`, :func:`best_score`, :func:`scores`, and the
  series helpers :func:`series_value`, :func:`series_matches`, :func:`series_starts`.
  The solvers build their tables from these; the heavy ones are cached per
  ``(roll, straight counts)``, so enumerating every outcome of 1..6 dice is instant.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import ClassVar, Mapping, Sequence

from kocka.solver.base.dice import Dice, FACES, counts, validate_dice
from kocka.solver.base.errors import Reason, RulesError, shown
from kocka.solver.base.i18n import N_, _, ngettext
from kocka.solver.rules.base import Rules

NUM_DICE = 6
STRAIGHT: Dice = (1, 2, 3, 4, 5, 6)
STRAIGHT_VALUE = 1500
SINGLE_VALUES = {1: 100, 5: 50}
"""Faces that score alone (KOCKA-5); other faces score only as three or six of a kind."""

PHASE_BELOW = "below_2500"
PHASE_HIGH = "2500+"


# ----------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KockaRules(Rules):
    """Rule options of KOCKA (RULES.md section 6) plus numeric parameters.

    ``target`` (KOCKA-3), ``series_threshold`` (the 2500 of KOCKA-2/13/14) and
    ``min_bank_points`` (the 350 of KOCKA-13) are parameters so that small variants can be
    solved exactly; they must be non-negative multiples of 50 (``target`` positive).
    """

    GAME: ClassVar[str] = "kocka"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "end": ("immediate", "last_turn", "finish_round"),
        "min_bank": ("below_2500", "always"),
        "straight": ("any_six_dice_roll", "opening_roll_only"),
        "series_start": ("opening_roll", "any_six_dice_roll"),
        "series_from_full": ("allowed", "forbidden"),
        "ones_series": ("instant_win", "normal"),
    }

    end: str = "immediate"
    min_bank: str = "below_2500"
    straight: str = "any_six_dice_roll"
    series_start: str = "opening_roll"
    series_from_full: str = "allowed"
    ones_series: str = "instant_win"
    target: int = 10000
    series_threshold: int = 2500
    min_bank_points: int = 350

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("target", "series_threshold", "min_bank_points"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value % 50:
                raise RulesError(_("the rule option {name} must be 0 or a multiple of 50, not {value}",
                                   name=name, value=shown(value)))
        if self.target == 0:
            raise RulesError(_("the target must be more than 0 points"))

    @property
    def six_ones_win(self) -> bool:
        """Does a completed series of 1s with a scoring re-roll win at once (KOCKA-19)?
        Always under ``end = immediate``; otherwise per ``kocka.ones_series``."""
        return self.end == "immediate" or self.ones_series == "instant_win"

    @property
    def series_on_reroll(self) -> bool:
        """May a 2500+ player start a series on a compulsory six-dice re-roll as well as
        on the opening roll (KOCKA-14, ``kocka.series_start = any_six_dice_roll``)?"""
        return self.series_start == "any_six_dice_roll"

    def bank_minimum(self, phase: str) -> int:
        """The smallest turn total a player in ``phase`` may bank (KOCKA-13,
        ``kocka.min_bank``): ``min_bank_points`` below 2500, and from 2500 only under
        ``always``; otherwise 0."""
        return self.min_bank_points if self.min_bank == "always" or phase == PHASE_BELOW else 0


DEFAULT_RULES = KockaRules()


# ----------------------------------------------------------------------------------------
# Pure scoring (KOCKA-4..7)
# ----------------------------------------------------------------------------------------
def face_value(face: int, k: int) -> int | None:
    """Value of ``k`` dice of ``face`` set aside together from one roll (KOCKA-5), or
    ``None`` if exactly these k dice cannot all be set aside (a 2, 3, 4 or 6 counted other
    than 0, 3 or 6 times, KOCKA-6).

    >>> face_value(1, 4), face_value(5, 2), face_value(2, 3), face_value(6, 6), face_value(4, 4)
    (1100, 100, 200, 1200, None)
    """
    if k == 0:
        return 0
    single = SINGLE_VALUES.get(face)
    triple = 1000 if face == 1 else 100 * face
    if k == 6:
        return 2 * triple  # two three-of-a-kinds
    if k >= 3:
        if single is None:
            return triple if k == 3 else None  # "3 used": the extra dice cannot be taken
        return triple + (k - 3) * single
    return k * single if single is not None else None


def straight_counts(roll_size: int, rules: KockaRules = DEFAULT_RULES, opening: bool = False) -> bool:
    """Does the straight score in a roll of ``roll_size`` dice (KOCKA-5, ``kocka.straight``)?
    Only a six-dice roll; under ``opening_roll_only`` only the turn's opening roll."""
    return roll_size == NUM_DICE and (rules.straight == "any_six_dice_roll" or opening)


def _per_face_value(c: Sequence[int]) -> int | None:
    total = 0
    for face, k in zip(FACES, c):
        v = face_value(face, k)
        if v is None:
            return None
        total += v
    return total


@lru_cache(maxsize=None)
def set_aside_choices(roll: Dice, straight: bool) -> tuple[tuple[Dice, int], ...]:
    """Every valid set-aside of a sorted ``roll`` with its value, ``straight`` saying
    whether the straight counts: :func:`valid_set_asides` without the checks, for the
    engine, which has validated the roll and knows the straight's standing."""
    c = counts(roll)
    per_face_choices = []
    for face, k in zip(FACES, c):
        ks = range(k + 1) if face in SINGLE_VALUES else [j for j in (0, 3, 6) if j <= k]
        per_face_choices.append([(j, face_value(face, j)) for j in ks])
    result = []
    for choice in product(*per_face_choices):
        subset = tuple(face for face, (j, _value) in zip(FACES, choice) for _copy in range(j))
        if subset:
            result.append((subset, sum(v for _count, v in choice)))
    if straight and roll == STRAIGHT:
        result.append((STRAIGHT, STRAIGHT_VALUE))
    return tuple(sorted(result))


def set_aside_value(
    dice: Sequence[int], roll_size: int, rules: KockaRules = DEFAULT_RULES, opening: bool = False
) -> int | None:
    """Value of setting ``dice`` aside from a roll of ``roll_size`` dice, or ``None`` if it
    is not a valid set-aside (KOCKA-6): empty, a 2/3/4/6 counted other than 0, 3 or 6
    times, or a straight where it does not count (:func:`straight_counts`). Whether
    ``dice`` is part of the roll is the caller's business.

    >>> set_aside_value([1, 5], 6), set_aside_value([2, 2], 6), set_aside_value([1, 2, 3, 4, 5, 6], 6)
    (150, None, 1500)
    """
    dice = validate_dice(dice, what=N_("the dice set aside"))
    if not dice or len(dice) > roll_size:
        return None
    if dice == STRAIGHT and straight_counts(roll_size, rules, opening):
        return STRAIGHT_VALUE
    return _per_face_value(counts(dice))


def valid_set_asides(
    roll: Sequence[int], rules: KockaRules = DEFAULT_RULES, opening: bool = False
) -> list[tuple[Dice, int]]:
    """Every valid non-empty set-aside of ``roll`` with its value (KOCKA-6), sorted by dice.

    >>> valid_set_asides([1, 2, 2, 5])
    [((1,), 100), ((1, 5), 150), ((5,), 50)]
    """
    roll = validate_dice(roll, what=N_("the roll"))
    return list(set_aside_choices(roll, straight_counts(len(roll), rules, opening)))


def is_full(roll: Sequence[int], rules: KockaRules = DEFAULT_RULES, opening: bool = False) -> bool:
    """Is the whole roll a valid set-aside, every die scoring (KOCKA-7)?

    >>> is_full([1, 5]), is_full([1, 1, 2, 2, 3, 3]), is_full([2, 2, 2, 3, 3, 3])
    (True, False, True)
    """
    roll = validate_dice(roll, what=N_("the roll"))
    return bool(roll) and roll_is_full(roll, straight_counts(len(roll), rules, opening))


def best_score(roll: Sequence[int], rules: KockaRules = DEFAULT_RULES, opening: bool = False) -> int:
    """Highest value one set-aside of ``roll`` can add, 0 if the roll busts (KOCKA-5/6).

    >>> best_score([2, 2, 2, 2, 3, 4]), best_score([2, 3, 3, 4, 6, 6])
    (200, 0)
    """
    return max((v for _dice, v in valid_set_asides(roll, rules, opening)), default=0)


def scores(roll: Sequence[int], rules: KockaRules = DEFAULT_RULES, opening: bool = False) -> bool:
    """Does ``roll`` contain a valid set-aside (KOCKA-6), i.e. not bust under normal scoring?

    >>> scores([2, 3, 4]), scores([4, 4, 4])
    (False, True)
    """
    roll = validate_dice(roll, what=N_("the roll"))
    return roll_scores(roll, straight_counts(len(roll), rules, opening))


def roll_scores(roll: Dice, straight: bool) -> bool:
    """:func:`scores` on a validated sorted roll, the straight's standing decided."""
    return bool(set_aside_choices(roll, straight))


def roll_is_full(roll: Dice, straight: bool) -> bool:
    """:func:`is_full` on a validated non-empty sorted roll, the straight's standing decided."""
    return (straight and roll == STRAIGHT) or _per_face_value(counts(roll)) is not None


# ----- series (KOCKA-14..19) -----
def series_value(face: int) -> int:
    """Value of a complete series of ``face`` (KOCKA-17): 1000 x f, and 10000 for 1s.

    >>> series_value(3), series_value(1)
    (3000, 10000)
    """
    if face not in FACES:
        raise RulesError(_("a series is of a face from 1 to 6, not {face}", face=shown(face)))
    return 10000 if face == 1 else 1000 * face


def series_matches(roll: Sequence[int], face: int, joker: int | None = None) -> int:
    """How many dice of ``roll`` may be taken for a series of ``face`` (KOCKA-15): the dice
    showing ``face``; a named joker counts as ``face`` on the last die (KOCKA-18).
    0 means the roll busts the series.

    >>> series_matches([1, 6, 6], 6), series_matches([2], 6, joker=2), series_matches([1, 5], 6)
    (2, 1, 0)
    """
    c = counts(roll)
    matches = c[face - 1]
    if joker is not None and len(roll) == 1:
        matches += c[joker - 1]
    return matches


def series_starts(roll: Sequence[int]) -> list[tuple[int, int]]:
    """Every ``(face, count)`` that can start a series from ``roll`` (KOCKA-14): a face
    shown in the roll and 1..(dice showing it) of those dice.

    >>> series_starts([4, 4, 6])
    [(4, 1), (4, 2), (6, 1)]
    """
    return [(face, k) for face, c in zip(FACES, counts(roll)) for k in range(1, c + 1)]


def series_allowed_from(roll: Sequence[int], rules: KockaRules = DEFAULT_RULES, opening: bool = False) -> bool:
    """May a player who can start a series now start one from ``roll`` (KOCKA-14,
    ``kocka.series_from_full``)? Always, except from a full roll under ``forbidden``.

    >>> series_allowed_from([1, 1, 1, 5, 5, 5]), series_allowed_from([1, 1, 1, 5, 5, 5], KockaRules(series_from_full="forbidden"))
    (True, False)
    """
    return rules.series_from_full == "allowed" or not is_full(roll, rules, opening)


def unscored_reason(dice: Sequence[int], roll_size: int, rules: KockaRules = DEFAULT_RULES,
                    opening: bool = False) -> str | None:
    """Why ``dice`` cannot be set aside from a roll of ``roll_size`` dice, as a player
    reads it (KOCKA-5, KOCKA-6, KOCKA-10), or ``None`` when they can.

    >>> unscored_reason([2], 6)
    'a lone 2 does not score: set aside 1s, 5s or three of a kind'
    >>> unscored_reason([2], 6).rule
    'KOCKA-5'
    >>> unscored_reason([1, 5], 6) is None
    True
    """
    dice = validate_dice(dice, what=N_("the dice set aside"))
    if set_aside_value(dice, roll_size, rules, opening) is not None:
        return None
    if not dice:
        return Reason(_("at least one die must be set aside"), "KOCKA-10")
    if dice == STRAIGHT and roll_size == NUM_DICE:
        return Reason(_("the straight scores only in the opening roll of a turn"), "KOCKA-5")
    for face, k in zip(FACES, counts(dice)):
        if face_value(face, k) is None:
            if k >= 3:  # four or five of a 2, 3, 4 or 6: "3 used"
                return Reason(ngettext("only three of the {n} dice showing {face} score: set aside three of them",
                                       "only three of the {n} dice showing {face} score: set aside three of them",
                                       k, face=face), "KOCKA-5")
            if k == 1:
                return Reason(_("a lone {face} does not score: set aside 1s, 5s or three of a kind", face=face), "KOCKA-5")
            return Reason(_("a pair of {face}s does not score: set aside 1s, 5s or three of a kind", face=face), "KOCKA-5")
    return Reason(ngettext("{n} die cannot be set aside from a roll of {size}", "{n} dice cannot be set aside from a roll of {size}",
                           len(dice), size=roll_size), "KOCKA-6")


__all__ = [
    "DEFAULT_RULES", "KockaRules", "NUM_DICE", "PHASE_BELOW", "PHASE_HIGH", "STRAIGHT", "STRAIGHT_VALUE",
    "best_score", "face_value", "is_full", "roll_is_full", "roll_scores", "scores", "series_allowed_from",
    "series_matches", "series_starts", "series_value", "set_aside_choices", "set_aside_value",
    "straight_counts", "unscored_reason", "valid_set_asides",
]
