"""Five-dice combinations shared by the scorecard games (:mod:`.scorecard`: HU, SK, Yahtzee,
Yatzy) and Polish poker dice (:mod:`.polish`): pattern values, the face boxes and the
:class:`Keep` action.

Every pattern function takes the face counts ``c`` of five dice (``c[f - 1]`` = number of
dice showing f, as :func:`kocka.solver.base.dice.counts` returns them) and is *best fit*: of all
the ways the dice show the pattern, the highest value counts, and a pattern that is not
shown scores 0 (HU-4, HU-6, PL-3, SK-6). Only the rules that really are common live here;
what differs between the games is a parameter (``same_face`` for ``same_face_groups``,
``low`` for the straight) or stays in the game's module (the Yahtzee fixed values 25/30/40
and its run-based straights, the 50 of HU nagy póker and Yatzy's yatzy, SK doubling and
the Polish multipliers).

>>> from kocka.solver.base.dice import counts
>>> c = counts((3, 3, 3, 5, 5))
>>> of_a_kind(c, 2), two_pairs(c, same_face=False), full_house(c, same_face=False)
(10, 16, 19)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Sequence

from kocka.solver.base.dice import Dice, validate_dice
from kocka.solver.base.errors import InvalidStateError, RulesError, shown
from kocka.solver.base.i18n import N_, _
from kocka.solver.rules.words import Words, normalize

if TYPE_CHECKING:
    from kocka.solver.rules.base import Game, Rules

NUM_DICE = 5
"""HU-1, PL-1, SK-1: every game here uses five dice."""
FACE_BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes")
"""Box ids of the six face boxes, face 1 first."""
FACE_OF_BOX = {name: face for face, name in enumerate(FACE_BOXES, start=1)}
"""Face box id -> its face (1..6)."""

Counts = Sequence[int]
"""Face counts of five dice: ``c[f - 1]`` dice show face f."""
Scorer = Callable[[Counts], int]


# ----------------------------------------------------------------------------------------
# Pattern values
# ----------------------------------------------------------------------------------------
def highest_group(c: Counts, size: int) -> int:
    """Highest face shown by at least ``size`` dice, or 0 if none is."""
    for face in range(6, 0, -1):
        if c[face - 1] >= size:
            return face
    return 0


def of_a_kind(c: Counts, size: int) -> int:
    """``size`` x the face of the best group of ``size`` equal dice, 0 if there is none:
    pair 2f, three of a kind 3f, four of a kind 4f, poker 5f (HU-6, PL-3, SK-6, Yatzy).
    Larger groups contain smaller ones: four 1s are also a pair (2)."""
    return size * highest_group(c, size)


def two_pairs(c: Counts, same_face: bool) -> int:
    """Sum of the best two pairs: two different faces, 2f + 2g; with ``same_face`` (option
    ``same_face_groups = yes``) also four dice of one face, 4f (HU-6, PL-3, SK-6; Yatzy
    uses ``same_face = False``)."""
    best = 0
    high = highest_group(c, 2)
    if high:
        low = max((f for f in range(1, high) if c[f - 1] >= 2), default=0)
        best = 2 * (high + low) if low else 0
    if same_face:
        best = max(best, 4 * highest_group(c, 4))
    return best


def is_full_house(c: Counts, same_face: bool) -> bool:
    """Three dice of one face and two of a different one; five of a kind counts too only
    with ``same_face`` (HU-6, PL-3, SK-6; Yahtzee and Yatzy use ``same_face = False``)."""
    groups = sorted(n for n in c if n)
    return groups == [2, 3] or (same_face and groups == [5])


def full_house(c: Counts, same_face: bool) -> int:
    """The sum of the five dice if they are a full house (:func:`is_full_house`), else 0
    (HU-6, PL-3, SK-6, Yatzy)."""
    return dice_sum(c) if is_full_house(c, same_face) else 0


def dice_sum(c: Counts) -> int:
    """Sum of the five dice: chance (HU-6, PL-3, SK-6, Yahtzee, Yatzy)."""
    return sum(face * n for face, n in enumerate(c, start=1))


def is_five_of_a_kind(c: Counts) -> bool:
    """All five dice show one face (HU nagy póker, PL/SK poker, Yahtzee, Yatzy)."""
    return NUM_DICE in c


def exact_straight(c: Counts, low: int) -> int:
    """The sum of the dice if they are exactly ``low .. low + 4``, else 0: the small
    straight 1-5 scores 15 and the large 2-6 scores 20 (HU-6, PL-3, SK-6, Yatzy)."""
    if all(c[face - 1] == 1 for face in range(low, low + NUM_DICE)):
        return dice_sum(c)
    return 0


def longest_run(c: Counts) -> int:
    """Length of the longest run of consecutive faces shown (Yahtzee straights: 4 or 5)."""
    best = run = 0
    for n in c:
        run = run + 1 if n else 0
        best = max(best, run)
    return best


def net_face_entry(c: Counts, face: int) -> int:
    """Face box entry ``(c - 3) x f``, from -3f to +2f (HU-5, PL-9, SK-4)."""
    return (c[face - 1] - 3) * face


def face_sum(c: Counts, face: int) -> int:
    """Yahtzee/Yatzy upper box entry: the sum of the dice showing ``face``."""
    return c[face - 1] * face


@lru_cache(maxsize=None)
def combination_scorers(same_face: bool) -> Mapping[str, Scorer]:
    """Box id -> scorer for the combinations HU, PL and SK score alike (best fit, the sum
    of the dice forming the combination; HU-6, PL-3, SK-6), ``same_face`` being the
    ``same_face_groups`` option. Each game takes the ids it has; five of a kind is
    ``poker`` = 5f (PL, SK), HU's nagy póker (a fixed 50) is not here."""
    return {
        "pair": partial(of_a_kind, size=2),
        "two_pairs": partial(two_pairs, same_face=same_face),
        "three_kind": partial(of_a_kind, size=3),
        "four_kind": partial(of_a_kind, size=4),
        "poker": partial(of_a_kind, size=NUM_DICE),
        "full_house": partial(full_house, same_face=same_face),
        "small_straight": partial(exact_straight, low=1),
        "large_straight": partial(exact_straight, low=2),
        "chance": dice_sum,
    }


# ----------------------------------------------------------------------------------------
# Reduced cards
# ----------------------------------------------------------------------------------------
def normalize_boxes(rules: Rules, all_boxes: tuple[str, ...]) -> None:
    """Check the rule option ``rules.boxes`` (a reduced card) and store it as a tuple in card
    order, so equal subsets compare equal. Accepts a list (JSON) or a comma-separated
    string of distinct ids from ``all_boxes``, at least one."""
    value = rules.boxes  # type: ignore[attr-defined]
    names = [s.strip() for s in value.split(",") if s.strip()] if isinstance(value, str) else value
    try:
        names = list(names)
    except TypeError:
        raise RulesError(_("the rule option boxes must be a list of boxes, not {value}", value=shown(value))) from None
    unknown = [n for n in names if n not in all_boxes]
    if unknown or not names or len(set(names)) != len(names):
        raise RulesError(_("the rule option boxes must name one or more different boxes out of {known}, not {value}",
                           known=", ".join(all_boxes), value=shown(value) or _("nothing")))
    object.__setattr__(rules, "boxes", tuple(b for b in all_boxes if b in names))


# ----------------------------------------------------------------------------------------
# Cards: box names, bit masks, dice in messages
# ----------------------------------------------------------------------------------------
def box_named(words: Words, boxes: Sequence[str], name: object) -> str | None:
    """The box of ``boxes`` that ``name`` names: its id, or its name in any language of
    ``words`` (accents and case ignored, :meth:`Words.box_aliases`); None if no box or more
    than one has that name.

    >>> from kocka.solver.rules.words import Words
    >>> box_named(Words("hu", {"full_house": "full"}), ("pair", "full_house"), "Full")
    'full_house'
    """
    if not isinstance(name, str):
        return None
    if name in boxes:
        return name
    wanted = normalize(name)
    found = [b for b in boxes if wanted in words.box_aliases(b)]
    return found[0] if len(found) == 1 else None


def card_entries(game: Game, boxes: Sequence[str], entries: Any) -> tuple[int | None, ...]:
    """The entries of a card of ``boxes`` from a mapping of box name to entry (ids, or
    names in any of ``game``'s languages, :func:`box_named`); boxes not named stay open.
    Raises :class:`InvalidStateError` naming a box that is not on the card."""
    if not isinstance(entries, Mapping):
        raise InvalidStateError(_("a card gives each box its entry, not {value}", value=shown(entries)))
    values: list[int | None] = [None] * len(boxes)
    for name, entry in entries.items():
        box = box_named(game.words, boxes, name)
        if box is None:
            names = ", ".join(game.box_label(b) for b in boxes)
            raise InvalidStateError(_("there is no box {name} on this card; the boxes are {boxes}", name=shown(name), boxes=names))
        values[boxes.index(box)] = entry
    return tuple(values)


def bits_of(boxes: Iterable[int]) -> int:
    """The bit mask of box indices ``boxes`` (bit i set = box i)."""
    bits = 0
    for b in boxes:
        bits |= 1 << b
    return bits


def dice_list(dice: Iterable[int]) -> str:
    """Dice as a player reads them in messages, sorted: ``1 2 2 5 6``."""
    return " ".join(str(d) for d in sorted(int(d) for d in dice))


# ----------------------------------------------------------------------------------------
# The shared action
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Keep:
    """Keep these dice (sorted on creation) and throw the others again (HU-2, PL-2, SK-2).
    ``Keep(())`` throws all five: in the Polish games it is also the first throw of a turn.
    Keeping all five dice is never a Keep: stopping is filling a box."""

    dice: Dice = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", validate_dice(self.dice, what=N_("the kept dice")))


__all__ = [
    "FACE_BOXES", "FACE_OF_BOX", "NUM_DICE", "Counts", "Keep", "Scorer", "bits_of", "box_named",
    "card_entries", "combination_scorers", "dice_list", "dice_sum", "exact_straight", "face_sum", "full_house", "highest_group", "is_five_of_a_kind",
    "is_full_house", "longest_run", "net_face_entry", "normalize_boxes", "of_a_kind", "two_pairs",
]  # fmt: skip
