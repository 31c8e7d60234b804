"""Dice as sorted tuples: validation and small multiset helpers (pure Python).

The Cython module :mod:`kocka.solver.kernels._dicetables` builds the indexed tables (all
outcomes of n dice, their probabilities, keep -> outcome transitions) that solvers use;
this module is the readable, validated front door.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Iterable, Sequence

from kocka.solver.base.errors import DiceError, shown
from kocka.solver.base.i18n import N_, _, ngettext

Dice = tuple[int, ...]
FACES = (1, 2, 3, 4, 5, 6)
_SORTED_DICE = frozenset(d for n in range(7) for d in combinations_with_replacement(FACES, n))
"""Every sorted tuple of up to six dice, the most any game rolls."""
_INTS_ONLY = frozenset({int})


def _dice_name(what: str | None) -> str:
    """The dice's name in a message of :func:`validate_dice`, in the language in force."""
    return _(what) if what else _("the dice")


def validate_dice(dice: Iterable[int], count: int | None = None, *, what: str | None = None) -> Dice:
    """Return ``dice`` as a sorted tuple, or raise :class:`DiceError` naming the problem.

    ``what`` names the dice in the message: an English phrase marked for the catalogues
    (``N_("the kept dice")``), translated into the language in force only when a message is
    written, since the engines validate dice on every move; None: "the dice".

    >>> validate_dice([5, 1, 3])
    (1, 3, 5)
    """
    # the engines' own dice: already a sorted tuple of ints (a bool or a float equals an
    # int and hashes alike, hence the type test before the lookup)
    if type(dice) is tuple and _INTS_ONLY.issuperset(map(type, dice)) and dice in _SORTED_DICE:
        if count is None or len(dice) == count:
            return dice
    try:
        values = list(dice)
    except TypeError:
        raise DiceError(_("{what} must be a list of values from 1 to 6, not {value}", what=_dice_name(what), value=shown(dice))) from None
    bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 6]
    if bad:
        raise DiceError(_("{what} must be values from 1 to 6, not {dice}", what=_dice_name(what), dice=shown(values) or _("nothing")))
    if count is not None and len(values) != count:
        raise DiceError(ngettext("{what} must be {n} die, not {dice}", "{what} must be {n} dice, not {dice}", count,
                                 what=_dice_name(what), dice=shown(values) or _("nothing")))
    return tuple(sorted(values))


def counts(dice: Sequence[int]) -> tuple[int, int, int, int, int, int]:
    """Number of dice showing each face 1..6."""
    c = Counter(dice)
    return tuple(c.get(f, 0) for f in FACES)  # type: ignore[return-value]


@lru_cache(maxsize=None)
def all_outcomes(n: int) -> tuple[Dice, ...]:
    """All sorted outcomes of ``n`` dice, in lexicographic order (252 for n = 5)."""
    return tuple(combinations_with_replacement(FACES, n))


def outcome_probability(dice: Sequence[int]) -> float:
    """Probability that rolling ``len(dice)`` dice gives exactly this multiset."""
    n = len(dice)
    return factorial(n) / prod(factorial(c) for c in counts(dice)) / 6**n


@lru_cache(maxsize=None)
def outcome_distribution(n: int) -> tuple[tuple[Dice, float], ...]:
    """``(outcome, probability)`` for every sorted outcome of ``n`` dice."""
    return tuple((o, outcome_probability(o)) for o in all_outcomes(n))


def sub_multisets(dice: Sequence[int]) -> list[Dice]:
    """Every distinct sub-multiset of ``dice`` (sorted tuples), the empty one included."""
    c = counts(dice)
    result: list[Dice] = [()]
    for face, k in zip(FACES, c):
        result = [s + (face,) * j for s in result for j in range(k + 1)]
    return sorted(set(result))


def is_sub_multiset(part: Sequence[int], whole: Sequence[int]) -> bool:
    """True if ``part`` can be taken out of ``whole``."""
    cp, cw = counts(part), counts(whole)
    return all(a <= b for a, b in zip(cp, cw))


def remove(whole: Sequence[int], part: Sequence[int]) -> Dice:
    """``whole`` minus ``part`` as multisets; ``part`` must be contained in ``whole``."""
    rest = Counter(whole)
    rest.subtract(part)
    if any(v < 0 for v in rest.values()):
        raise DiceError(_("{part} is not part of the dice {whole}", part=shown(list(part)), whole=shown(list(whole))))
    return tuple(sorted(rest.elements()))
