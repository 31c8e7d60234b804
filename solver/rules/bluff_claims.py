"""BLUFF claims: the two-dice results of Abázs and the bidding bluff (BLUFF-7) and the
five-dice hands of liar's dice poker (BLUFF-19), their order, their chances and when a
claim is true of dice (BLUFF-4); how claims read in messages and in state documents.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, total_ordering
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kocka.solver.base.dice import FACES, Dice, all_outcomes, counts, validate_dice
from kocka.solver.base.errors import DiceError, IllegalActionError, RulesError, either, shown
from kocka.solver.base.i18n import N_, _

if TYPE_CHECKING:  # the rules classes live with their games, which import these claims
    from kocka.solver.rules.bluff_engine import _BluffRules
    from kocka.solver.rules.liars_poker import LiarsPokerRules

_RANKINGS = ("simple", "pro")
"""The ``bluff.ranking`` choices of the two-dice games (BLUFF-7)."""


def _whole(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a bool) in ``low..high``."""
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def _text(value: Any) -> str:
    """A value of a state or an action as a message shows it: claims by name, dice and
    other lists as their items (``1 3``; lists of lists separated by commas), nothing
    quoted or bracketed."""
    if isinstance(value, (TwoDiceClaim, Hand)):
        return str(value)
    if isinstance(value, DiceClaim):
        return _("the hidden dice {dice}", dice=shown(value.dice))
    if isinstance(value, (tuple, list)):
        nested = any(isinstance(v, (tuple, list, TwoDiceClaim, Hand, DiceClaim)) for v in value)
        return (", " if nested else " ").join(_text(v) for v in value) or _("nothing")
    return shown(value)


# ----------------------------------------------------------------------------------------
# Claims: two-dice results (BLUFF-7) and five-dice hands (BLUFF-19)
# ----------------------------------------------------------------------------------------
SUM, NON_PAIR, PAIR = "sum", "nonpair", "pair"
_CLAIM_VALUES = {SUM: range(2, 13), NON_PAIR: range(3, 12), PAIR: range(1, 7)}


@total_ordering
@dataclass(frozen=True)
class TwoDiceClaim:
    """A two-dice result or claim (BLUFF-7): ``sum`` 2..12 under the simple ranking;
    ``nonpair`` 3..11 (the sum of two different faces) or ``pair`` 1..6 (the face) under the
    pro ranking. Ordered by :func:`claim_rank`; only claims of one ranking compare."""

    kind: str
    value: int

    def __post_init__(self) -> None:
        allowed = _CLAIM_VALUES.get(self.kind)
        if allowed is None or isinstance(self.value, bool) or self.value not in allowed:
            raise IllegalActionError(_("a two-dice claim is a sum from 2 to 12, a non-pair sum from 3 to 11 or a pair "
                                       "of 1s to 6s, not {kind} {value}", kind=shown(self.kind), value=shown(self.value)),
                                     rule="BLUFF-7")

    @property
    def ranking(self) -> str:
        return "simple" if self.kind == SUM else "pro"

    @property
    def rank(self) -> int:
        """Position in :func:`all_claims` of its ranking (0 = lowest)."""
        if self.kind == SUM:
            return self.value - 2
        if self.kind == NON_PAIR:
            return self.value - 3
        return len(_CLAIM_VALUES[NON_PAIR]) + self.value - 1  # every pair beats every non-pair

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, TwoDiceClaim):
            return NotImplemented
        if other.ranking != self.ranking:
            raise TypeError(
                f"claims of the {self.ranking} and {other.ranking} rankings do not compare: {self} and {other}"
            )
        return self.rank < other.rank

    def __str__(self) -> str:
        if self.kind == SUM:
            return f"sum {self.value}"
        if self.kind == NON_PAIR:
            return f"non-pair {self.value}"
        return f"pair of {self.value}s"


NOTHING, ONE_PAIR, TWO_PAIRS, THREE_KIND, SMALL_STRAIGHT, LARGE_STRAIGHT, FULL_HOUSE, FOUR_KIND, FIVE_KIND = range(9)
CATEGORY_NAMES = (
    "nothing", "pair", "two pairs", "three of a kind", "small straight",
    "large straight", "full house", "four of a kind", "five of a kind",
)  # fmt: skip


@dataclass(frozen=True, order=True)
class Hand:
    """A liar's dice poker hand or claim (BLUFF-19): a category 0..8 and the faces it is
    compared by, highest first (with ``liar.kickers = counted`` the kickers follow).
    The dataclass order (category, then faces) is the hand ranking."""

    category: int
    faces: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "faces", tuple(self.faces))
        if (
            isinstance(self.category, bool)
            or self.category not in range(len(CATEGORY_NAMES))
            or any(isinstance(f, bool) or f not in FACES for f in self.faces)
        ):
            raise IllegalActionError(_("a hand is a category from 0 to 8 with faces from 1 to 6, not category {category} "
                                       "with faces {faces}", category=shown(self.category), faces=_text(self.faces)),
                                     rule="BLUFF-19")

    def __str__(self) -> str:
        # the faces as dice, no list brackets: "two pairs 6 5" (what a player types, too)
        return " ".join([CATEGORY_NAMES[self.category], *map(str, self.faces)])


@dataclass(frozen=True)
class DiceClaim:
    """``liar.claim = dice``: a claim naming the claimant's hidden die values (sorted)."""

    dice: Dice

    def __post_init__(self) -> None:
        try:
            dice = validate_dice(self.dice, what=N_("the claimed hidden dice"))
        except DiceError as exc:
            raise IllegalActionError(str(exc)) from None
        if not 1 <= len(dice) <= 2:
            raise IllegalActionError(_("a dice claim names 1 or 2 hidden dice, not {dice}", dice=_text(dice)), rule="BLUFF-20")
        object.__setattr__(self, "dice", dice)


AnyClaim = TwoDiceClaim | Hand | DiceClaim


def _kickers(rules: LiarsPokerRules | _BluffRules | None) -> str:
    """The ``liar.kickers`` option of ``rules``; rules without it (None, the two-dice
    games' rules) ignore kickers."""
    return getattr(rules, "kickers", "ignored")


@lru_cache(maxsize=None)
def _hand_of_sorted(dice: Dice, kickers: str) -> Hand:
    c = counts(dice)
    # groups by size, then face, both highest first: "three 5s, two 2s" -> (5, 2)
    groups = sorted(((c[f - 1], f) for f in FACES if c[f - 1]), reverse=True)
    shape = tuple(n for n, _face in groups)
    big = tuple(f for n, f in groups if n >= 2)
    single = tuple(f for n, f in groups if n == 1)
    if shape == (1, 1, 1, 1, 1):
        if dice == (1, 2, 3, 4, 5):
            return Hand(SMALL_STRAIGHT)
        if dice == (2, 3, 4, 5, 6):
            return Hand(LARGE_STRAIGHT)
        return Hand(NOTHING, single)  # all five faces are compared (BLUFF-19)
    category = {(5,): FIVE_KIND, (4, 1): FOUR_KIND, (3, 2): FULL_HOUSE, (3, 1, 1): THREE_KIND,
                (2, 2, 1): TWO_PAIRS, (2, 1, 1, 1): ONE_PAIR}[shape]  # fmt: skip
    return Hand(category, big + single if kickers == "counted" else big)


def hand_of(dice: Sequence[int], rules: LiarsPokerRules | _BluffRules | None = None) -> Hand:
    """The hand five dice make (BLUFF-19): the highest category they satisfy, with its
    faces (and the kickers under ``liar.kickers = counted``).

    >>> str(hand_of([2, 5, 5, 5, 2]))
    'full house 5 2'
    """
    return _hand_of_sorted(validate_dice(dice, 5), _kickers(rules))


def actual_result(dice: Sequence[int], ranking: str = "simple") -> TwoDiceClaim:
    """A two-dice roll's result (BLUFF-7): its sum (simple), or its pair / non-pair sum (pro).

    >>> str(actual_result([2, 2], "pro"))
    'pair of 2s'
    """
    a, b = validate_dice(dice, 2)
    if ranking not in _RANKINGS:
        raise RulesError(_("the ranking must be {options}, not {value}", options=either(_RANKINGS), value=shown(ranking)))
    if ranking == "simple":
        return TwoDiceClaim(SUM, a + b)
    return TwoDiceClaim(PAIR, a) if a == b else TwoDiceClaim(NON_PAIR, a + b)


@lru_cache(maxsize=None)
def all_claims(ranking: str = "simple", rules: LiarsPokerRules | None = None) -> tuple[Any, ...]:
    """Every claim of a ranking, lowest first: ``simple`` (11 sums), ``pro`` (9 non-pairs,
    then 6 pairs: 15) or ``liar`` (the distinct hands of five dice: 75 with kickers ignored,
    BLUFF-19)."""
    if ranking == "simple":
        return tuple(TwoDiceClaim(SUM, v) for v in _CLAIM_VALUES[SUM])
    if ranking == "pro":
        return tuple(TwoDiceClaim(NON_PAIR, v) for v in _CLAIM_VALUES[NON_PAIR]) + tuple(
            TwoDiceClaim(PAIR, v) for v in _CLAIM_VALUES[PAIR]
        )
    if ranking == "liar":
        return _all_hands(_kickers(rules))
    raise RulesError(_("the ranking must be {options}, not {value}", options=either(("simple", "pro", "liar")),
                       value=shown(ranking)))


@lru_cache(maxsize=None)
def _all_hands(kickers: str) -> tuple[Hand, ...]:
    return tuple(sorted({_hand_of_sorted(d, kickers) for d in all_outcomes(5)}))


@lru_cache(maxsize=None)
def _hand_ranks(kickers: str) -> Mapping[Hand, int]:
    return {hand: i for i, hand in enumerate(_all_hands(kickers))}


def claim_rank(claim: TwoDiceClaim | Hand, rules: LiarsPokerRules | None = None) -> int:
    """Index of ``claim`` in :func:`all_claims` of its ranking (0 = lowest). Hands need the
    kicker option of ``rules``; a hand that five dice cannot make raises."""
    if isinstance(claim, TwoDiceClaim):
        return claim.rank
    if isinstance(claim, Hand):
        ranks = _hand_ranks(_kickers(rules))
        if claim not in ranks:
            raise IllegalActionError(_("no five dice make the hand {hand} under these rules", hand=claim), rule="BLUFF-19")
        return ranks[claim]
    raise IllegalActionError(_("only a two-dice claim or a hand has a rank, not {claim}", claim=_text(claim)))


def is_true(claim: TwoDiceClaim | Hand, dice: Sequence[int], rules: _BluffRules | None = None) -> bool:
    """Whether ``claim`` is true of ``dice`` (BLUFF-4): the claimant's two dice for a
    two-dice claim, all five dice (public + private) for a hand. ``bluff.truth = exact``:
    the result equals the claim; ``at_least``: it ranks at or above it."""
    truth = "exact" if rules is None else rules.truth
    if isinstance(claim, TwoDiceClaim):
        actual: Any = actual_result(dice, claim.ranking)
    elif isinstance(claim, Hand):
        actual = hand_of(dice, rules)  # the two-dice games' rules have no kickers option
    else:
        raise IllegalActionError(_("only a two-dice claim or a hand is true or false of dice, not {claim}", claim=_text(claim)))
    return actual == claim if truth == "exact" else actual >= claim


def claim_probabilities(ranking: str = "simple") -> dict[TwoDiceClaim, Fraction]:
    """Chance of each two-dice result (BLUFF-7), exact: a double is 1/36, any other sorted
    pair 2/36."""
    if ranking not in _RANKINGS:
        raise RulesError(_("the ranking must be {options}, not {value}", options=either(_RANKINGS), value=shown(ranking)))
    chances = {claim: Fraction(0) for claim in all_claims(ranking)}
    for a, b in all_outcomes(2):
        chances[actual_result((a, b), ranking)] += Fraction(1 if a == b else 2, 36)
    return chances


@lru_cache(maxsize=None)
def _achievable_hands(public: Dice, shown: Dice, hidden_count: int, kickers: str) -> tuple[Hand, ...]:
    known = public + shown
    return tuple(sorted({_hand_of_sorted(tuple(sorted(known + h)), kickers) for h in all_outcomes(hidden_count)}))


def achievable_claims(
    public: Sequence[int],
    shown: Sequence[int] = (),
    hidden_count: int = 2,
    standing: Hand | None = None,
    rules: LiarsPokerRules | None = None,
) -> list[Hand]:
    """Hands a liar's poker claimant may claim (BLUFF-20), lowest first: those that some
    values of his ``hidden_count`` hidden dice make together with the three ``public`` dice
    and the ``shown`` die, ranking strictly above ``standing`` (None: any).

    >>> [str(h) for h in achievable_claims([2, 5, 5], [6], 1)]
    ['pair 5', 'two pairs 5 2', 'two pairs 6 5', 'three of a kind 5']
    """
    public_dice = validate_dice(public, 3, what=N_("the public dice"))
    shown_dice = validate_dice(shown, what=N_("the shown dice"))
    if len(shown_dice) + hidden_count != 2 or hidden_count < 0:
        raise DiceError(_("the two dice of a player are shown or hidden, not {shown} shown and {hidden} hidden",
                          shown=len(shown_dice), hidden=hidden_count), rule="BLUFF-18")
    hands = _achievable_hands(public_dice, shown_dice, hidden_count, _kickers(rules))
    return [h for h in hands if standing is None or h > standing]


def top_claim(public: Sequence[int], rules: LiarsPokerRules | None = None) -> Hand:
    """The top claim of BLUFF-5 in liar's poker: the highest hand achievable from the public
    dice alone (BLUFF-20)."""
    return achievable_claims(public, (), 2, None, rules)[-1]


def _claim_from_json(doc: Any) -> AnyClaim | None:
    if doc is None or isinstance(doc, (TwoDiceClaim, Hand, DiceClaim)):
        return doc
    if not isinstance(doc, Mapping):
        raise IllegalActionError(_("a claim must be a JSON object, not {value}", value=shown(doc)))
    keys = set(doc)
    if keys == {"kind", "value"}:
        return TwoDiceClaim(doc["kind"], doc["value"])
    if keys <= {"category", "faces"} and "category" in keys:
        return Hand(doc["category"], tuple(doc.get("faces", ())))
    if keys == {"dice"}:
        return DiceClaim(tuple(doc["dice"]))
    raise IllegalActionError(_("a claim has a kind and a value, a category and faces, or dice, not {value}", value=shown(doc)))
