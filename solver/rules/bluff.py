"""BLUFF: the Hungarian two-dice bluff games (RULES.md section 3, BLUFF-1..BLUFF-21).

Three games share one state shape and one engine core:

* :class:`AbazsGame` (*2 kockás blöff*, BLUFF-7..BLUFF-10): claim, then the next seat
  accepts (and must claim higher on his own roll) or challenges; 1 chip changes hands.
* :class:`BiddingBluffGame` (*Licitálós 2 kockás blöff*, BLUFF-11..BLUFF-16): the active
  player claims with a stake of k chips, every other player passes (1 chip into the bank)
  or bets k that the claim is false.
* :class:`LiarsPokerGame` (*Hazudós kockapóker*, BLUFF-17..BLUFF-21): three public dice,
  two private ones, one optional re-throw, five-dice hands (75 claims), betting as above.

Hidden information is explicit: a :class:`BluffState` holds every die, the active player's
private dice included; :meth:`_BluffGame.observation` gives one seat's view, with the dice
it may not see replaced by ``null`` (docs/STATE.md). Chance is explicit too: the seating
rolls (BLUFF-1, ``seating = roll``), every private roll, the public roll and the re-throw
are chance nodes whose outcomes are sorted tuples of the rolled dice.

Players are the indices ``0..n-1`` given by the caller; ``state.order`` lists them in seat
order (decided by the seating rolls, or ``0..n-1`` under ``seating = given``). "The next
seat" is the next player in that order.

Chips: ``state.chips[p]`` is what player p holds. A stake is only *put in front* of a
player (BLUFF-12/13) and changes hands at the reveal, so it stays in ``chips`` until then;
a pass pays 1 chip into ``state.bank`` at once. Hence ``sum(chips) + bank`` never changes:
it is ``sum(initial) + initial_bank``, the chips the game began with.

Stakes are a range, not a list (BLUFF-12): :meth:`_BluffGame.stake_range` is every stake
the active player may put on a claim (1 up to his cap; 0 alone in Abázs, which has no
stakes), and :meth:`~Game.apply` accepts every one of them. So that no query grows with
the chips, :meth:`~Game.legal_actions` lists each allowed claim with the stakes of
:meth:`_BluffGame.candidate_stakes` only: every stake up to :data:`STAKES_LISTED`, the
largest, and the stakes where who can bet changes (each other player's chips and one
more, BLUFF-13). Between two candidates nobody's ability to bet changes and what each
betting pattern moves at the reveal only grows with the stake, so a player who maximises
expected chips against answers that depend on the stake only through who can bet finds
his best stake among the candidates. With a cap of at most :data:`STAKES_LISTED` (every
two-player game from the default 10 chips) the candidates are all the stakes.
:meth:`_BluffGame.legal_choices` gives each claim once, as a :class:`ClaimRange` with its
smallest and largest stake.

Bounds, checked by the rules (``start_chips``, ``max_rounds``) and by
:meth:`~Game.check_state` (every state field): a player starts with 1 to
:data:`MAX_CHIPS` chips, a bank starts with 0 to :data:`MAX_CHIPS` chips, a game lasts at
most :data:`MAX_ROUNDS` rounds (also with ``max_rounds = None``), and a state's chips add
up to what the game began with, stakes and bets fit the chips, and the claims fit the
round's history.

Engine parameters beside the RULES.md options: ``max_rounds`` (stop after that many
rounds; ``None`` plays until someone has 0 chips, BLUFF-6) and ``payoff`` (``win_share``:
1/m to each of the m players with the most chips, BLUFF-6; ``chips``: each player's chip
change, for one-round equilibrium solvers). :func:`single_round_game` and
:meth:`_BluffGame.new_round_state` make one round from given chips a game of its own.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache, total_ordering
from typing import Any, ClassVar, Iterable, Mapping, Sequence

from kocka.solver.base.dice import FACES, Dice, all_outcomes, counts, outcome_distribution, remove, validate_dice
from kocka.solver.base.errors import DiceError, IllegalActionError, InvalidStateError, KockaError, RulesError
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, Rules, jsonable, tuplify
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game
from kocka.solver.rules.words import Words

MAX_CHIPS = 10**6
"""The most chips a player may start with (``start_chips``, each entry of a state's
``initial``), and the most a bank may start with (``initial_bank``)."""
MAX_ROUNDS = 10**6
"""The most rounds a game lasts: the largest ``max_rounds``; with ``max_rounds = None`` a
game that nobody has lost by then ends after this many rounds."""
STAKES_LISTED = 20
""":meth:`~Game.legal_actions` lists the stakes 1..STAKES_LISTED one by one (with the
larger candidates of :meth:`_BluffGame.candidate_stakes`): every stake of a two-player
game from the default 10 chips."""


def _whole(value: Any, low: int, high: int) -> bool:
    """Whether ``value`` is an integer (not a bool) in ``low..high``."""
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def _text(value: Any) -> str:
    """A value of a state or an action as a message shows it: claims by name, tuples as
    lists (as the state document has them), anything else as Python writes it."""
    if isinstance(value, (TwoDiceClaim, Hand)):
        return str(value)
    if isinstance(value, DiceClaim):
        return f"the hidden dice {_text(value.dice)}"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return repr(value)


# ----------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _BluffRules(Rules):
    """Options every bluff game has (BLUFF-1..BLUFF-6) plus the engine parameters."""

    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "seating": ("roll", "given"),
        "escalation": ("strict", "off"),
        "truth": ("exact", "at_least"),
        "payoff": ("win_share", "chips"),
    }
    seating: str = "roll"
    escalation: str = "strict"
    truth: str = "exact"
    start_chips: int = 10
    max_rounds: int | None = None
    payoff: str = "win_share"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not _whole(self.start_chips, 1, MAX_CHIPS):
            raise RulesError(
                f"{self.GAME}: start_chips must be a whole number of chips from 1 to {MAX_CHIPS}, got {self.start_chips!r}"
            )
        rounds = self.max_rounds
        if isinstance(rounds, str):  # from the command line: "none" or a number
            rounds = None if rounds.lower() in ("none", "") else int(rounds) if rounds.isdigit() else rounds
            object.__setattr__(self, "max_rounds", rounds)
        if rounds is not None and not _whole(rounds, 1, MAX_ROUNDS):
            raise RulesError(
                f"{self.GAME}: max_rounds must be None (no limit) or a whole number from 1 to {MAX_ROUNDS}, "
                f"got {self.max_rounds!r}"
            )

    @property
    def round_limit(self) -> int:
        """The number of rounds after which the game ends at the latest."""
        return MAX_ROUNDS if self.max_rounds is None else self.max_rounds


_RANKINGS = ("simple", "pro")
_BETTING_OPTIONS: Mapping[str, tuple] = {
    "stake_cap": ("own_chips", "coverable"),
    "top_claim": ("first_must_bet", "all_pass_resets"),
    "next_active": ("next_seat", "first_bettor"),
}


@dataclass(frozen=True)
class AbazsRules(_BluffRules):
    """Abázs: ``bluff.*`` options, ``bluff.ranking`` (BLUFF-7) and ``abazs.next_starter``
    (BLUFF-10)."""

    GAME: ClassVar[str] = "abazs"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        **_BluffRules.OPTIONS,
        "ranking": _RANKINGS,
        "next_starter": ("challenger", "loser"),
    }
    ranking: str = "simple"
    next_starter: str = "challenger"


@dataclass(frozen=True)
class BiddingBluffRules(_BluffRules):
    """Bidding bluff: ``bluff.*`` options, ``bluff.ranking`` and the ``bid.*`` options
    (BLUFF-5, BLUFF-12, BLUFF-15, BLUFF-16)."""

    GAME: ClassVar[str] = "bidding-bluff"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {**_BluffRules.OPTIONS, "ranking": _RANKINGS, **_BETTING_OPTIONS}
    ranking: str = "simple"
    stake_cap: str = "own_chips"
    top_claim: str = "first_must_bet"
    next_active: str = "next_seat"


@dataclass(frozen=True)
class LiarsPokerRules(_BluffRules):
    """Liar's dice poker: ``bluff.*``, ``bid.*`` and ``liar.*`` options (BLUFF-17..BLUFF-21)."""

    GAME: ClassVar[str] = "liars-poker"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        **_BluffRules.OPTIONS,
        **_BETTING_OPTIONS,
        "first_turn": ("starter", "next_seat"),
        "reroll": ("one_shown", "one_or_both"),
        "kickers": ("ignored", "counted"),
        "claim": ("hand", "dice"),
    }
    stake_cap: str = "own_chips"
    top_claim: str = "first_must_bet"
    next_active: str = "next_seat"
    first_turn: str = "starter"
    reroll: str = "one_shown"
    kickers: str = "ignored"
    claim: str = "hand"


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
            raise IllegalActionError(
                "a two-dice claim is a sum 2..12, a non-pair sum 3..11 or a pair 1..6 (kinds 'sum', 'nonpair', "
                f"'pair'), got kind {self.kind!r} with value {self.value!r}"
            )

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
            raise IllegalActionError(
                f"a hand is a category 0..8 with faces 1..6, got category {self.category!r} with faces {_text(self.faces)}"
            )

    def __str__(self) -> str:
        return f"{CATEGORY_NAMES[self.category]} {list(self.faces)}" if self.faces else CATEGORY_NAMES[self.category]


@dataclass(frozen=True)
class DiceClaim:
    """``liar.claim = dice``: a claim naming the claimant's hidden die values (sorted)."""

    dice: Dice

    def __post_init__(self) -> None:
        try:
            dice = validate_dice(self.dice, what="claimed hidden dice")
        except DiceError as exc:
            raise IllegalActionError(str(exc)) from None
        if not 1 <= len(dice) <= 2:
            raise IllegalActionError(f"a dice claim names 1 or 2 hidden dice, got {_text(dice)}")
        object.__setattr__(self, "dice", dice)


AnyClaim = TwoDiceClaim | Hand | DiceClaim


def _kickers(rules: LiarsPokerRules | None) -> str:
    return "ignored" if rules is None else rules.kickers


@lru_cache(maxsize=None)
def _hand_of_sorted(dice: Dice, kickers: str) -> Hand:
    c = counts(dice)
    # groups by size, then face, both highest first: "three 5s, two 2s" -> (5, 2)
    groups = sorted(((c[f - 1], f) for f in FACES if c[f - 1]), reverse=True)
    shape = tuple(n for n, _ in groups)
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


def hand_of(dice: Sequence[int], rules: LiarsPokerRules | None = None) -> Hand:
    """The hand five dice make (BLUFF-19): the highest category they satisfy, with its
    faces (and the kickers under ``liar.kickers = counted``).

    >>> str(hand_of([2, 5, 5, 5, 2]))
    'full house [5, 2]'
    """
    return _hand_of_sorted(validate_dice(dice, 5), _kickers(rules))


def actual_result(dice: Sequence[int], ranking: str = "simple") -> TwoDiceClaim:
    """A two-dice roll's result (BLUFF-7): its sum (simple), or its pair / non-pair sum (pro).

    >>> str(actual_result([2, 2], "pro"))
    'pair of 2s'
    """
    a, b = validate_dice(dice, 2)
    if ranking not in _RANKINGS:
        raise RulesError(f"ranking must be one of {list(_RANKINGS)!r}, got {ranking!r}")
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
        return tuple(sorted({_hand_of_sorted(d, _kickers(rules)) for d in all_outcomes(5)}))
    raise RulesError(f"ranking must be 'simple', 'pro' or 'liar', got {ranking!r}")


@lru_cache(maxsize=None)
def _hand_ranks(kickers: str) -> Mapping[Hand, int]:
    rules = LiarsPokerRules(kickers=kickers)
    return {hand: i for i, hand in enumerate(all_claims("liar", rules))}


def claim_rank(claim: TwoDiceClaim | Hand, rules: LiarsPokerRules | None = None) -> int:
    """Index of ``claim`` in :func:`all_claims` of its ranking (0 = lowest). Hands need the
    kicker option of ``rules``; a hand that five dice cannot make raises."""
    if isinstance(claim, TwoDiceClaim):
        return claim.rank
    if isinstance(claim, Hand):
        ranks = _hand_ranks(_kickers(rules))
        if claim not in ranks:
            raise IllegalActionError(f"no five dice make the hand {claim} (liar.kickers {_kickers(rules)!r})")
        return ranks[claim]
    raise IllegalActionError(f"only a two-dice claim or a hand has a rank, got {_text(claim)}")


def is_true(claim: TwoDiceClaim | Hand, dice: Sequence[int], rules: _BluffRules | None = None) -> bool:
    """Whether ``claim`` is true of ``dice`` (BLUFF-4): the claimant's two dice for a
    two-dice claim, all five dice (public + private) for a hand. ``bluff.truth = exact``:
    the result equals the claim; ``at_least``: it ranks at or above it."""
    truth = "exact" if rules is None else rules.truth
    if isinstance(claim, TwoDiceClaim):
        actual: Any = actual_result(dice, claim.ranking)
    elif isinstance(claim, Hand):
        actual = hand_of(dice, rules if isinstance(rules, LiarsPokerRules) else None)
    else:
        raise IllegalActionError(f"only a two-dice claim or a hand is true or false of dice, got {_text(claim)}")
    return actual == claim if truth == "exact" else actual >= claim


def claim_probabilities(ranking: str = "simple") -> dict[TwoDiceClaim, Fraction]:
    """Chance of each two-dice result (BLUFF-7), exact: a double is 1/36, any other sorted
    pair 2/36."""
    if ranking not in _RANKINGS:
        raise RulesError(f"ranking must be one of {list(_RANKINGS)!r}, got {ranking!r}")
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
    ['pair [5]', 'two pairs [5, 2]', 'two pairs [6, 5]', 'three of a kind [5]']
    """
    public_dice = validate_dice(public, 3, what="public dice")
    shown_dice = validate_dice(shown, what="shown dice")
    if len(shown_dice) + hidden_count != 2 or hidden_count < 0:
        raise DiceError(f"two private dice are shown or hidden, got shown {list(shown)!r} and {hidden_count!r} hidden")
    hands = _achievable_hands(public_dice, shown_dice, hidden_count, _kickers(rules))
    return [h for h in hands if standing is None or h > standing]


def top_claim(public: Sequence[int], rules: LiarsPokerRules | None = None) -> Hand:
    """The top claim of BLUFF-5 in liar's poker: the highest hand achievable from the public
    dice alone (BLUFF-20)."""
    return achievable_claims(public, (), 2, None, rules)[-1]


# ----------------------------------------------------------------------------------------
# Actions
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """Make ``claim`` (BLUFF-8/9, BLUFF-12, BLUFF-20). ``stake`` is the k chips put in front
    of the claimant in the betting games; it is 0 in Abázs (no stakes)."""

    claim: AnyClaim
    stake: int = 0


@dataclass(frozen=True)
class Accept:
    """Abázs: accept the standing claim, roll afresh and claim higher (BLUFF-9)."""


@dataclass(frozen=True)
class Challenge:
    """Abázs: challenge the standing claim; the claimant shows his dice (BLUFF-10)."""


@dataclass(frozen=True)
class Pass:
    """Betting games: accept the claim and pay 1 chip into the bank (BLUFF-13)."""


@dataclass(frozen=True)
class Bet:
    """Betting games: bet the stake k that the claim is false (BLUFF-13); a player obliged
    by BLUFF-5 with fewer than k chips bets all he has."""


@dataclass(frozen=True)
class Reroll:
    """Liar's poker: throw one private die again, keeping and showing the other, which has
    face ``keep_shown`` (BLUFF-18); ``keep_shown = None`` throws both again, both hidden
    (``liar.reroll = one_or_both`` only)."""

    keep_shown: int | None


@dataclass(frozen=True)
class ClaimRange:
    """One allowed claim with every stake that may go with it (BLUFF-12): ``Claim(claim,
    k)`` is legal for each k from ``min_stake`` to ``max_stake`` (both 0 in Abázs, which
    has no stakes). Not an action itself: :meth:`with_stake` makes one."""

    claim: AnyClaim
    min_stake: int
    max_stake: int

    @property
    def stakes(self) -> range:
        return range(self.min_stake, self.max_stake + 1)

    def with_stake(self, stake: int) -> Claim:
        """The claim with ``stake`` (one of :attr:`stakes`)."""
        if not _whole(stake, self.min_stake, self.max_stake):
            raise IllegalActionError(f"the stake must be {self.min_stake}..{self.max_stake} chips, got {stake!r}")
        return Claim(self.claim, stake)


# ----------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------
SEATING, PUBLIC, ROLL, REROLL, CLAIM, ANSWER, OVER = "seating", "public", "roll", "reroll", "claim", "answer", "over"
_CHANCE_PHASES = (SEATING, PUBLIC, ROLL, REROLL)


@dataclass(frozen=True)
class BluffState:
    """One position of a bluff game (fields a game does not use keep their defaults).

    ``phase`` says what happens next: ``seating`` (a seating roll, BLUFF-1), ``public``
    (liar's poker: the starter rolls the public dice), ``roll`` (the active player rolls his
    two private dice), ``reroll`` (his re-throw), ``claim`` (he claims), ``answer`` (the
    next seat accepts or challenges; in the betting games the others pass or bet in turn),
    ``over``.

    ``seating`` is the ordered partition of the players while the seating rolls last: the
    first block with more than one player is rolling, and ``seat_rolls`` are the sums its
    first members threw. ``order`` is the seat order once it is known.

    ``active`` is the claimant (Abázs) or active player, ``dice`` his private dice (hidden),
    ``public`` the public dice and ``shown`` the private die he kept and showed on a
    re-throw (0: none); ``rerolled`` says he has used his re-throw this turn.

    ``standing`` is the standing claim (a hand in liar's poker, also under
    ``liar.claim = dice``, where ``claimed_dice`` are the hidden values named); ``history``
    the public claim history of the round (BLUFF-3): every claim made since the round
    began, oldest first, so it ends with ``standing`` and is empty exactly when no claim
    stands (``history[-2]`` is the claim the standing claim beat); ``stake`` its
    stake k; ``bets`` the ``(player, chips bet)`` pairs in betting order and ``answered`` how
    many players have answered in this betting round.

    ``rounds`` counts finished rounds (BLUFF-3); ``revealed`` is ``(player, private dice)``
    of the latest reveal, None before the first; ``initial`` the chips at the start (the
    ``payoff = chips`` baseline) and ``initial_bank`` the bank then (0 unless one round
    was set up with a bank, :meth:`_BluffGame.new_round_state`; the state document leaves
    it out when it is 0). ``sum(chips) + bank == sum(initial) + initial_bank`` always.
    """

    phase: str
    chips: tuple[int, ...]
    initial: tuple[int, ...]
    bank: int = 0
    initial_bank: int = 0
    order: tuple[int, ...] = ()
    seating: tuple[tuple[int, ...], ...] = ()
    seat_rolls: tuple[int, ...] = ()
    active: int = -1
    dice: Dice = ()
    public: Dice = ()
    shown: int = 0
    rerolled: bool = False
    standing: TwoDiceClaim | Hand | None = None
    history: tuple[TwoDiceClaim | Hand, ...] = ()
    claimed_dice: Dice = ()
    stake: int = 0
    bets: tuple[tuple[int, int], ...] = ()
    answered: int = 0
    rounds: int = 0
    revealed: tuple[int, Dice] | None = None

    @property
    def previous(self) -> TwoDiceClaim | Hand | None:
        """The claim the standing claim beat (None: it opened the round, or none stands)."""
        return self.history[-2] if len(self.history) >= 2 else None


@dataclass(frozen=True)
class AbazsState(BluffState):
    """A position of Abázs."""


@dataclass(frozen=True)
class BiddingBluffState(BluffState):
    """A position of the bidding bluff."""


@dataclass(frozen=True)
class LiarsPokerState(BluffState):
    """A position of liar's dice poker."""


def _claim_from_json(doc: Any) -> AnyClaim | None:
    if doc is None or isinstance(doc, (TwoDiceClaim, Hand, DiceClaim)):
        return doc
    if not isinstance(doc, Mapping):
        raise IllegalActionError(f"a claim must be a JSON object, got {doc!r}")
    keys = set(doc)
    if keys == {"kind", "value"}:
        return TwoDiceClaim(doc["kind"], doc["value"])
    if keys <= {"category", "faces"} and "category" in keys:
        return Hand(doc["category"], tuple(doc.get("faces", ())))
    if keys == {"dice"}:
        return DiceClaim(tuple(doc["dice"]))
    raise IllegalActionError(f"unknown claim {doc!r}; a claim has kind+value, category+faces or dice")


# ----------------------------------------------------------------------------------------
# Engine core
# ----------------------------------------------------------------------------------------
class _BluffGame(Game):
    """What the three bluff games share: seating (BLUFF-1), chips (BLUFF-2), the round
    structure (BLUFF-3), the end (BLUFF-6), claims and stakes, observations and JSON.

    The rules queries that bots and solvers ask are public methods: :meth:`claims_above`
    and :meth:`claimable` (which claims may be made), :meth:`claim_true` (whether a claim
    is true of dice), :meth:`claim_strength`, :meth:`hidden_dice` and :meth:`shown_dice`,
    :meth:`stake_range`, :meth:`candidate_stakes`, :meth:`claim_ranges` and
    :meth:`legal_choices` (the module docstring says how stakes are listed)."""

    RULES: ClassVar[type[Rules]] = _BluffRules
    STATE: ClassVar[type] = BluffState
    rules: Any

    # ----- starting positions -----
    def new_initial_state(self) -> BluffState:
        """BLUFF-1, BLUFF-2: everyone holds ``start_chips``; the seating rolls come first
        (``seating = roll``), or seat order is player order (``given``) and seat 0 starts."""
        chips = (self.rules.start_chips,) * self.num_players
        if self.rules.seating == "roll":
            return self.STATE(phase=SEATING, chips=chips, initial=chips, seating=(tuple(range(self.num_players)),))
        return self.new_round_state(chips, starter=0)

    def new_round_state(
        self, chips: Sequence[int], starter: int = 0, bank: int = 0, order: Sequence[int] | None = None
    ) -> BluffState:
        """The start of a round, with no claim standing: ``starter`` is about to roll (the
        public dice in liar's poker). ``chips`` (1..:data:`MAX_CHIPS` each) become the
        ``payoff = chips`` baseline and ``bank`` (0..:data:`MAX_CHIPS`) the starting bank;
        ``order`` is the seat order (default ``0..n-1``). With ``max_rounds = 1`` this is
        one round as a game of its own (see :func:`single_round_game`)."""
        n = self.num_players
        chips = tuple(chips)
        seat_order = tuple(range(n)) if order is None else tuple(order)
        if len(chips) != n or not all(_whole(c, 1, MAX_CHIPS) for c in chips):
            raise InvalidStateError(f"{self.NAME}: a round starts with {n} chip counts of 1 to {MAX_CHIPS}, got {_text(chips)}")
        if sorted(seat_order) != list(range(n)):
            raise InvalidStateError(f"{self.NAME}: the seat order must be a permutation of 0..{n - 1}, got {_text(seat_order)}")
        if starter not in seat_order:
            raise InvalidStateError(f"{self.NAME}: the starter must be a player 0..{n - 1}, got {starter!r}")
        if not _whole(bank, 0, MAX_CHIPS):
            raise InvalidStateError(f"{self.NAME}: the bank must hold 0 to {MAX_CHIPS} chips, got {bank!r}")
        base = self.STATE(phase=ROLL, chips=chips, initial=chips, bank=bank, initial_bank=bank, order=seat_order)
        state = self._start_round(base, starter)
        self.check_state(state)
        return state

    # ----- turn order -----
    def current_player(self, state: BluffState) -> int:
        if state.phase in _CHANCE_PHASES:
            return CHANCE
        if state.phase == OVER:
            return TERMINAL
        if state.phase == CLAIM:
            return state.active
        return self._responder(state)

    def _responder(self, state: BluffState) -> int:
        """Who answers now: the next seat after the claimant, then the following ones."""
        return self._next_seat(state, state.active, 1 + state.answered)

    def _next_seat(self, state: BluffState, player: int, steps: int = 1) -> int:
        order = state.order
        return order[(order.index(player) + steps) % len(order)]

    def _is_top(self, state: BluffState) -> bool:
        """BLUFF-5: the standing claim is the highest claim the next claimant could make."""
        return state.standing == self._top_claim(state)

    # ----- chance -----
    def _chance_outcomes(self, state: BluffState) -> Iterable[tuple[Dice, float]]:
        if state.phase == PUBLIC:
            return outcome_distribution(3)
        if state.phase == REROLL and state.shown:
            return outcome_distribution(1)
        return outcome_distribution(2)

    def _check_outcome(self, state: BluffState, outcome: Any) -> None:
        wanted = len(self._chance_outcomes(state)[0][0])  # type: ignore[index]
        try:
            dice = validate_dice(outcome, wanted)
        except DiceError:
            raise IllegalActionError(f"{self.NAME}: a roll of {wanted} dice is due here, got {outcome!r}") from None
        if dice != tuple(outcome):
            raise IllegalActionError(f"{self.NAME}: a roll outcome lists its dice in ascending order, got {outcome!r}")

    def _apply(self, state: BluffState, action: Any) -> BluffState:
        if state.phase == SEATING:
            return self._apply_seating_roll(state, sum(action))
        if state.phase == ROLL:
            return replace(state, phase=CLAIM, dice=tuple(action))
        return self._apply_game(state, action)

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        raise NotImplementedError

    def _apply_seating_roll(self, state: BluffState, total: int) -> BluffState:
        """BLUFF-1: the players of the first undecided block roll one by one; then they sit
        by decreasing sum, and those with equal sums form a new block that rolls again."""
        at = next(i for i, block in enumerate(state.seating) if len(block) > 1)
        block, rolls = state.seating[at], state.seat_rolls + (total,)
        if len(rolls) < len(block):
            return replace(state, seat_rolls=rolls)
        sums = sorted(set(rolls), reverse=True)
        split = tuple(tuple(p for p, r in zip(block, rolls) if r == s) for s in sums)
        seating = state.seating[:at] + split + state.seating[at + 1 :]
        if any(len(b) > 1 for b in seating):
            return replace(state, seating=seating, seat_rolls=())
        order = tuple(b[0] for b in seating)
        return self._start_round(replace(state, seating=(), seat_rolls=(), order=order), order[0])

    # ----- rounds and the end -----
    def _start_round(self, state: BluffState, starter: int) -> BluffState:
        """A new round with no standing claim (BLUFF-3); ``starter`` rolls first."""
        return replace(
            state, phase=ROLL, active=starter, dice=(), public=(), shown=0, rerolled=False,
            standing=None, history=(), claimed_dice=(), stake=0, bets=(), answered=0,
        )  # fmt: skip

    def _end_round(self, state: BluffState, next_starter: int) -> BluffState:
        """The round is over: end the game (BLUFF-6, ``max_rounds``, :data:`MAX_ROUNDS`) or
        start the next."""
        state = replace(state, rounds=state.rounds + 1)
        if 0 in state.chips or state.rounds >= self.rules.round_limit:
            return self._game_over(state)
        return self._start_round(state, next_starter)

    def _game_over(self, state: BluffState) -> BluffState:
        return replace(self._start_round(state, -1), phase=OVER)

    def final_scores(self, state: BluffState) -> tuple[float, ...]:
        """The chips each seat holds (the returns are win shares)."""
        self.returns(state)  # checks that the game is over
        return tuple(float(c) for c in state.chips)

    def _returns(self, state: BluffState) -> Sequence[float]:
        """BLUFF-6: the m players with the most chips get 1/m each (``payoff = win_share``);
        or each player's chip change since :attr:`BluffState.initial` (``payoff = chips``)."""
        if self.rules.payoff == "chips":
            return tuple(float(c - i) for c, i in zip(state.chips, state.initial))
        best = max(state.chips)
        winners = state.chips.count(best)
        return tuple(1.0 / winners if c == best else 0.0 for c in state.chips)

    @staticmethod
    def _pay(chips: tuple[int, ...], payer: int, payee: int, amount: int) -> tuple[int, ...]:
        moved = list(chips)
        moved[payer] -= amount
        moved[payee] += amount
        return tuple(moved)

    # ----- claims (public rules queries for bots and solvers) -----
    def claims(self) -> tuple[Any, ...]:
        """Every claim of these rules, lowest first (the top claim last)."""
        raise NotImplementedError

    def claims_above(self, beaten: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> list:
        """The claims a claimant may make when ``beaten`` is the claim to beat (None: no
        claim stands), lowest first: strictly higher under ``bluff.escalation = strict``,
        any with ``off`` (BLUFF-3). Liar's poker also needs the ``public`` dice and the
        ``shown`` die (BLUFF-18, BLUFF-20); the two-dice games ignore them."""
        raise NotImplementedError

    def claimable(self, state: BluffState) -> list:
        """The claims the active player may make in ``state``, lowest first (the claims
        of :meth:`legal_actions`)."""
        return self.claims_above(state.standing, state.public, self.shown_dice(state))

    def shown_dice(self, state: BluffState) -> Dice:
        """The private die the active player showed on a re-throw (liar's poker), or ()."""
        return (state.shown,) if state.shown else ()

    def hidden_dice(self, state: BluffState) -> Dice:
        """The active player's private dice that the others cannot see."""
        return remove(state.dice, (state.shown,)) if state.shown else state.dice

    def claim_true(self, claim: Any, hidden: Sequence[int], public: Sequence[int] = (), shown: Sequence[int] = ()) -> bool:
        """Whether ``claim`` is true (BLUFF-4, ``bluff.truth``) for a claimant whose private
        dice are ``hidden`` (those the others cannot see) and ``shown``, with the
        ``public`` dice of liar's poker (BLUFF-20)."""
        return is_true(claim, hidden, self.rules)

    def claim_strength(self, claim: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> int:
        """The position of ``claim`` in :meth:`claims` (0 = lowest); a dice claim
        (``liar.claim = dice``) ranks as the hand it names."""
        return claim_rank(claim)

    def claim_as_made(self, state: BluffState) -> Any:
        """The standing claim as its claimant made it: under ``liar.claim = dice`` the
        hidden dice he named (``state.standing`` is the hand they make)."""
        return state.standing

    def _claim_true(self, state: BluffState) -> bool:
        """BLUFF-4: is the standing claim true of the active player's dice?"""
        return self.claim_true(self.claim_as_made(state), self.hidden_dice(state), state.public, self.shown_dice(state))

    # ----- stakes and the legal actions -----
    def stake_range(self, state: BluffState) -> range:
        """Every stake the active player may put on a claim in ``state`` (BLUFF-12); Abázs
        has no stakes: 0 alone."""
        return range(0, 1)

    def candidate_stakes(self, state: BluffState) -> tuple[int, ...]:
        """The stakes :meth:`legal_actions` lists with each claim, smallest first (the
        module docstring says which, and why they suffice); every stake of
        :meth:`stake_range` is legal."""
        return (0,)

    def claim_ranges(self, state: BluffState) -> list[ClaimRange]:
        """Each claim the active player may make in ``state``, with its stakes, lowest
        claim first; empty where nobody claims."""
        self.check_state(state)
        return self._claim_ranges(state)

    def legal_choices(self, state: BluffState) -> list:
        """The legal decisions with each claim given once, as a :class:`ClaimRange`, and
        every other action as :meth:`legal_actions` gives it: as many entries as there are
        claims and answers, whatever the chips."""
        self.check_state(state)
        if self.current_player(state) < 0:
            return []
        return self._claim_ranges(state) + self._other_actions(state)

    def choice_to_json(self, choice: Any, state: BluffState, lang: str | None = None) -> dict:
        """A claim range comes once, with its stakes as a range: ``stake`` ``{"min": ...,
        "max": ...}`` beside an ``action`` that carries the smallest stake (any stake of the
        range may be sent instead, docs/PROTOCOL.md); other choices as the base says."""
        if not isinstance(choice, ClaimRange):
            return super().choice_to_json(choice, state, lang)
        lo, hi = choice.min_stake, choice.max_stake
        action = choice.with_stake(lo)
        label = (self.describe_action(action, state) if lo == hi
                 else f"{self.describe_action(Claim(choice.claim), state)} stake {lo}..{hi}")
        return {"action": self.action_to_json(action), "label": label, "stake": {"min": lo, "max": hi}}

    def _claim_ranges(self, state: BluffState) -> list[ClaimRange]:
        if state.phase != CLAIM:
            return []
        stakes = self.stake_range(state)
        return [ClaimRange(c, stakes[0], stakes[-1]) for c in self.claimable(state)]

    def _legal_actions(self, state: BluffState) -> list:
        claims: list = []
        if state.phase == CLAIM:
            stakes = self.candidate_stakes(state)
            claims = [Claim(c, k) for c in self.claimable(state) for k in stakes]
        return claims + self._other_actions(state)

    def _other_actions(self, state: BluffState) -> list:
        """The legal actions other than claims (answers; re-throws in liar's poker)."""
        raise NotImplementedError

    def _check_action(self, state: BluffState, action: Any) -> None:
        """Exact legality: a claim with any stake of :meth:`stake_range` (not only the
        listed candidates), or one of the other legal actions."""
        if isinstance(action, Claim) and state.phase == CLAIM:
            stakes = self.stake_range(state)
            legal = _whole(action.stake, stakes[0], stakes[-1]) and action.claim in self.claimable(state)
        else:
            legal = action in self._other_actions(state)
        if not legal:
            raise IllegalActionError(f"{self.NAME}: {self._why_illegal(state, action)}")

    # ----- hidden information -----
    def observation(self, state: BluffState, player: int) -> dict:
        """What ``player`` may see (docs/STATE.md): the state document with every die he
        may not see replaced by ``null``. The active player sees his private dice; the
        others see only the die shown on a re-throw. Public dice, claims, stakes, bets,
        chips, seating rolls and the dice of the latest reveal are public."""
        if not _whole(player, 0, self.num_players - 1):
            raise KockaError(f"{self.NAME}: the observer must be a player 0..{self.num_players - 1}, got {player!r}")
        doc = self.state_to_json(state)
        if player != state.active:
            doc["state"]["dice"] = list(self.shown_dice(state)) + [None] * len(self.hidden_dice(state))
        doc["observer"] = player
        return doc

    # ----- JSON -----
    def _state_fields(self, state: BluffState) -> Mapping[str, Any]:
        # converted here: the base converts dataclasses and tuples, not the values of a dict;
        # a bank at the start is rare (one round set up with one), so documents without it stay as they were
        return {
            f.name: jsonable(getattr(state, f.name))
            for f in dataclasses.fields(state)
            if f.name != "initial_bank" or state.initial_bank != 0
        }

    def _state_from_fields(self, fields: Mapping[str, Any]) -> BluffState:
        known = {f.name for f in dataclasses.fields(self.STATE)}
        unknown = set(fields) - known
        if unknown:
            raise InvalidStateError(f"{self.NAME}: a state has no field(s) {', '.join(sorted(map(str, unknown)))}")
        _check_json_types(self.NAME, fields)
        values = tuplify(dict(fields))
        try:
            values["standing"] = _claim_from_json(fields.get("standing"))
            if "history" in fields:
                history = fields["history"]
                if not isinstance(history, (list, tuple)):
                    raise IllegalActionError(f"the history is a list of claims, got {history!r}")
                values["history"] = tuple(_claim_from_json(c) for c in history)
            elif values["standing"] is not None:
                # documents written before the field existed: the standing claim opened the round
                values["history"] = (values["standing"],)
        except IllegalActionError as exc:
            raise InvalidStateError(f"{self.NAME}: the standing claim or the history is malformed: {exc}") from None
        return self.STATE(**values)

    def action_from_json(self, doc: Mapping[str, Any] | str) -> Any:
        """As :meth:`Game.action_from_json`, with the nested claim of a :class:`Claim`."""
        if isinstance(doc, Mapping) and doc.get("type") == "Claim":
            unknown = set(doc) - {"type", "claim", "stake"}
            if unknown or "claim" not in doc:
                raise IllegalActionError(f"{self.NAME}: a Claim action has the fields 'claim' and 'stake', got {dict(doc)!r}")
            return Claim(_claim_from_json(doc["claim"]), doc.get("stake", 0))  # type: ignore[arg-type]
        return super().action_from_json(doc)

    def describe_state(self, state: BluffState) -> str:
        """The position in words, for messages: who acts, the standing claim, the chips."""
        if state.phase == SEATING:
            doing = "the players roll for their seats"
        elif state.phase == OVER:
            doing = f"the game is over after {state.rounds} rounds"
        elif state.phase == ANSWER:
            doing = f"player {self._responder(state)} answers the claim of player {state.active}"
        else:
            doing = {
                PUBLIC: "rolls the public dice", ROLL: "rolls", REROLL: "throws again", CLAIM: "claims",
            }.get(state.phase, f"is in phase {state.phase!r}")
            doing = f"player {state.active} {doing}"
        if state.standing is None:
            standing = "no claim stands"
        else:
            standing = f"the standing claim is {_text(state.standing)}"
            if state.claimed_dice:
                standing += f" (it names the hidden dice {_text(state.claimed_dice)})"
            if state.stake:
                standing += f", stake {state.stake}"
        chips = "chips " + ", ".join(str(c) for c in state.chips) + (f", bank {state.bank}" if state.bank else "")
        return f"{doing}; {standing}; {chips}"

    # ----- checks -----
    def _why_illegal(self, state: BluffState, action: Any) -> str:
        if type(action) not in self.ACTIONS:
            kinds = ", ".join(a.__name__ for a in self.ACTIONS)
            return f"{type(action).__name__} is not an action of {self.NAME}, whose actions are {kinds}"
        said = self.describe_action(action, state)
        if state.phase == CLAIM and isinstance(action, Claim):
            stakes = self.stake_range(state)
            if not _whole(action.stake, stakes[0], stakes[-1]):
                return self._why_stake_illegal(state, action)
            return f"{said} is not allowed: {self._why_claim_illegal(state, action.claim)}"
        if state.phase == ANSWER:
            responder = self._responder(state)
            if isinstance(action, Accept) and self._is_top(state):
                return f"the top claim {_text(state.standing)} cannot be accepted: it must be challenged (BLUFF-5)"
            if isinstance(action, Pass) and self.must_bet(state):
                return f"player {responder} must bet on the top claim {_text(state.standing)} (BLUFF-5)"
            if isinstance(action, Bet):
                return (
                    f"player {responder} holds {state.chips[responder]} chips, fewer than the stake {state.stake}, "
                    f"so he cannot bet (BLUFF-13)"
                )
        return f"{said} is not a move of this moment: {self.describe_state(state)}"

    def _why_stake_illegal(self, state: BluffState, action: Claim) -> str:
        return f"Abázs claims carry no stake, got stake {action.stake!r}"

    def _why_claim_illegal(self, state: BluffState, claim: Any) -> str:
        """Why ``claim`` is not among :meth:`claimable` (two-dice games)."""
        if claim not in self.claims():
            return f"{_text(claim)} is not a claim of the {self.rules.ranking} ranking (BLUFF-7)"
        return f"{_text(claim)} does not rank above the standing claim {_text(state.standing)} (BLUFF-3)"

    def must_bet(self, state: BluffState) -> bool:
        """Whether the player to answer must bet (BLUFF-5); never in Abázs."""
        return False

    def _check_state(self, state: BluffState) -> None:
        n = self.num_players

        def bad(why: str) -> InvalidStateError:
            return InvalidStateError(f"{self.NAME}: {why}")

        def count(value: Any) -> bool:
            return not isinstance(value, bool) and isinstance(value, int) and value >= 0

        if state.phase not in self._phases():
            raise bad(f"the phase must be one of {', '.join(self._phases())}, got {state.phase!r}")
        for name in ("chips", "initial"):
            value = getattr(state, name)
            if not isinstance(value, tuple) or len(value) != n or not all(count(c) for c in value):
                raise bad(f"{name} must be {n} chip counts, got {_text(value)}")
        if not all(1 <= c <= MAX_CHIPS for c in state.initial):
            raise bad(f"every player starts with 1 to {MAX_CHIPS} chips, got initial {_text(state.initial)}")
        if not _whole(state.initial_bank, 0, MAX_CHIPS):
            raise bad(f"a bank starts with 0 to {MAX_CHIPS} chips, got initial_bank {state.initial_bank!r}")
        if not count(state.bank):
            raise bad(f"the bank must be a chip count, got {state.bank!r}")
        began = sum(state.initial) + state.initial_bank
        if sum(state.chips) + state.bank != began:
            at_start = f"the chips {_text(state.initial)}" + (f" and a bank of {state.initial_bank}" if state.initial_bank else "")
            raise bad(
                f"the chips do not add up: the players hold {_text(state.chips)} and the bank {state.bank}, "
                f"{sum(state.chips) + state.bank} in all, but the game began with {at_start}, {began} in all (BLUFF-2)"
            )
        limit = self.rules.round_limit
        if not _whole(state.rounds, 0, limit):
            raise bad(f"the number of rounds played must be 0..{limit}, got {state.rounds!r}")
        if state.phase != OVER and state.rounds >= limit:
            raise bad(f"{state.rounds} rounds are played and the game ends after {limit}, yet the phase is {state.phase!r}")
        if state.phase == OVER and 0 not in state.chips and state.rounds < limit:
            raise bad(
                f"the game ends when a player has no chips left (BLUFF-6) or after {limit} rounds, "
                f"but the chips are {_text(state.chips)} after {state.rounds} rounds"
            )
        if state.phase not in (ANSWER, OVER) and 0 in state.chips:
            raise bad(
                f"the game ends when a player has 0 chips (BLUFF-6), got chips {_text(state.chips)} in phase {state.phase!r}"
            )
        if state.phase == SEATING:
            self._check_seating(state, bad)
        else:
            if state.seating or state.seat_rolls or not isinstance(state.order, tuple) or sorted(state.order) != list(range(n)):
                raise bad(f"once seated, the seat order is a permutation of 0..{n - 1}, got {_text(state.order)}")
            if (state.active == -1) != (state.phase == OVER) or (state.active != -1 and state.active not in state.order):
                raise bad(f"the active player cannot be {state.active!r} in phase {state.phase!r}")
        if state.revealed is not None:
            revealed = state.revealed
            if not (isinstance(revealed, tuple) and len(revealed) == 2 and _whole(revealed[0], 0, n - 1)
                    and _safe_dice(revealed[1], 2) is not None):
                raise bad(f"revealed is a player and his two sorted dice, got {_text(revealed)}")
            if state.rounds == 0:
                raise bad(f"dice are revealed when a round ends (BLUFF-3), yet no round has ended: revealed {_text(revealed)}")
        self._check_turn(state, bad)

    def _check_seating(self, state: BluffState, bad: Any) -> None:
        n = self.num_players
        blocks = state.seating if isinstance(state.seating, tuple) else ()
        players = [p for block in blocks if isinstance(block, tuple) for p in block]
        if not blocks or sorted(players) != list(range(n)) or not all(isinstance(b, tuple) and b for b in blocks):
            raise bad(f"the seating is an ordered partition of the players 0..{n - 1}, got {_text(state.seating)}")
        rolling = next((b for b in blocks if len(b) > 1), None)
        if rolling is None or len(state.seat_rolls) >= len(rolling):
            raise bad(
                f"nobody is left to roll for a seat in seating {_text(state.seating)} with rolls {_text(state.seat_rolls)}"
            )
        if any(r not in range(2, 13) for r in state.seat_rolls):
            raise bad(f"seating rolls are sums 2..12, got {_text(state.seat_rolls)}")
        if state.order or state.active != -1 or state != replace(
            self.STATE(phase=SEATING, chips=state.chips, initial=state.initial, bank=state.bank),
            seating=state.seating, seat_rolls=state.seat_rolls,
        ):
            raise bad("nothing but the seating rolls can happen before the seating is decided")
        if state.chips != state.initial or state.bank != 0 or state.rounds != 0 or state.revealed is not None:
            raise bad(f"no chips move before the seating is decided, got chips {_text(state.chips)} and bank {state.bank}")

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        """Game-specific field checks (dice, claims, stakes, bets)."""

    def _phases(self) -> tuple[str, ...]:
        return (SEATING, ROLL, CLAIM, ANSWER, OVER)


def _check_json_types(game: str, fields: Mapping[str, Any]) -> None:
    """Refuse the fields of a state document that have the wrong JSON type, before any
    check compares them: Python takes ``0.0 == 0 == False``, so a float or a boolean where
    a whole number belongs passes ``in range(...)`` and then fails as an index, and an
    object where an array belongs fails in a sum. The types come from the annotations of
    :class:`BluffState`: a ``tuple`` or ``Dice`` field is an array (null too where the
    annotation allows None), a ``bool`` one a boolean, an ``int`` one an integer; no
    number anywhere in a state is a float, and a boolean sits only in a ``bool`` field."""
    kinds = {f.name: str(f.type) for f in dataclasses.fields(BluffState)}
    for name, value in fields.items():
        kind = kinds.get(name, "")
        if value is None and kind.endswith("| None"):
            continue
        if kind.startswith("tuple") or kind == "Dice":
            want, fits = "an array", isinstance(value, (list, tuple))
        elif kind == "bool":
            want, fits = "a boolean", isinstance(value, bool)
        elif kind == "int":
            want, fits = "an integer", isinstance(value, int) and not isinstance(value, bool)
        else:
            want, fits = "", True
        if not fits:
            raise InvalidStateError(f"{game}: the state field {name} must be {want}, got {_text(value)}")
        stray = _stray_number(value, booleans=kind == "bool")
        if stray is not None:
            raise InvalidStateError(f"{game}: the state field {name} holds {stray!r}, where only integers belong")


def _stray_number(value: Any, booleans: bool) -> float | bool | None:
    """The first float inside a JSON value (or boolean, unless ``booleans``), else None."""
    if isinstance(value, bool):
        return None if booleans else value
    if isinstance(value, float):
        return value
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, (list, tuple)) else ()
    for item in items:
        stray = _stray_number(item, booleans)
        if stray is not None:
            return stray
    return None


def _safe_dice(dice: Any, count: int | None = None) -> Dice | None:
    """``dice`` if it is a sorted tuple of valid dice (of ``count`` dice), else None."""
    try:
        valid = validate_dice(dice, count)
    except DiceError:
        return None
    return valid if valid == dice else None


class _TwoDiceClaims:
    """Claims of the two-dice games (Abázs and the bidding bluff): the ``ranking`` option's
    list (BLUFF-7), whose last is the top claim."""

    def claims(self) -> tuple[TwoDiceClaim, ...]:
        """Every claim of the ranking, lowest first."""
        return all_claims(self.rules.ranking)

    def claims_above(self, beaten: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> list[TwoDiceClaim]:
        """The claims allowed when ``beaten`` is the claim to beat (BLUFF-3: strictly
        higher, any under ``escalation = off``; None: any), lowest first."""
        claims = self.claims()
        if beaten is None or self.rules.escalation == "off":
            return list(claims)
        return list(claims[claim_rank(beaten) + 1 :])

    def _top_claim(self, state: BluffState) -> TwoDiceClaim:
        return self.claims()[-1]


# ----------------------------------------------------------------------------------------
# Abázs
# ----------------------------------------------------------------------------------------
class AbazsGame(_TwoDiceClaims, _BluffGame):
    """Abázs (*2 kockás blöff*), BLUFF-1..BLUFF-10.

    Phases: ``roll`` (the claimant rolls under cover) -> ``claim`` -> ``answer`` (the next
    seat: :class:`Accept`, which leads to his own ``roll``, or :class:`Challenge`, which
    settles 1 chip and ends the round). Claims carry no stake (``stake = 0``).
    """

    NAME = "abazs"
    RULES = AbazsRules
    STATE = AbazsState
    ACTIONS = (Claim, Accept, Challenge)
    rules: AbazsRules

    def _other_actions(self, state: BluffState) -> list:
        if state.phase == CLAIM:
            return []
        if self._is_top(state):  # BLUFF-5: a top claim must be challenged
            return [Challenge()]
        return [Accept(), Challenge()]

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        if state.phase == CLAIM:
            return replace(state, phase=ANSWER, standing=action.claim, history=state.history + (action.claim,))
        challenger = self._responder(state)
        if isinstance(action, Accept):  # BLUFF-9: he becomes the claimant and rolls afresh
            return replace(state, phase=ROLL, active=challenger, dice=())
        # BLUFF-10: the claimant shows his dice; the loser pays the winner 1 chip
        claimant = state.active
        loser, winner = (challenger, claimant) if self._claim_true(state) else (claimant, challenger)
        settled = replace(state, chips=self._pay(state.chips, loser, winner, 1), revealed=(claimant, state.dice))
        return self._end_round(settled, challenger if self.rules.next_starter == "challenger" else loser)

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.bank or state.initial_bank or state.public or state.shown or state.rerolled or state.claimed_dice \
                or state.stake or state.bets or state.answered:
            raise bad("Abázs has no bank, public dice, re-throws, stakes or bets")
        _check_private_dice(state, bad)
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")


def _check_private_dice(state: BluffState, bad: Any) -> None:
    """The active player's two dice exist exactly from his roll until the round moves on."""
    if state.phase in (CLAIM, ANSWER):
        if _safe_dice(state.dice, 2) is None:
            raise bad(f"the active player holds two sorted dice in phase {state.phase!r}, got {_text(state.dice)}")
    elif state.dice != () and state.phase != REROLL:
        raise bad(f"nobody holds private dice in phase {state.phase!r}, got {_text(state.dice)}")


def _check_standing(state: BluffState, claims: Sequence[Any], bad: Any, strict: bool) -> None:
    """The standing claim and the round's claim history (BLUFF-3): claims of these rules,
    ending with the standing claim, each above the one before under ``strict`` escalation."""
    if state.standing is not None and state.standing not in claims:
        raise bad(f"the standing claim {_text(state.standing)} is not a claim of these rules")
    history = state.history
    if not isinstance(history, tuple) or (history[-1:] != ((state.standing,) if state.standing is not None else ())):
        standing = "no claim (so it is empty)" if state.standing is None else f"the standing claim {_text(state.standing)}"
        raise bad(f"the claim history {_text(history)} must end with {standing}")
    for claim in history:
        if claim not in claims:
            raise bad(f"the claim {_text(claim)} in the history is not a claim of these rules")
    for earlier, later in zip(history, history[1:]):
        if strict and not earlier < later:
            raise bad(f"each claim of the history must beat the one before (BLUFF-3), got {_text(earlier)} then {_text(later)}")
    if state.phase == ANSWER and state.standing is None:
        raise bad("an answer needs a standing claim")
    if state.phase in (SEATING, PUBLIC, OVER) and state.standing is not None:
        raise bad(f"no claim stands in phase {state.phase!r}, got {_text(state.standing)}")


# ----------------------------------------------------------------------------------------
# The betting games
# ----------------------------------------------------------------------------------------
class _BettingGame(_BluffGame):
    """The betting round of BLUFF-12..BLUFF-16, shared by the bidding bluff and liar's
    poker: a claim with stake k, one answer (pass or bet) from every other player in seat
    order, then the settlement."""

    def max_stake(self, state: BluffState) -> int:
        """BLUFF-12: k <= the active player's chips (``own_chips``), or k <= chips divided by
        the number of opponents, rounded down, at least 1 (``coverable``)."""
        chips = state.chips[state.active]
        if self.rules.stake_cap == "coverable":
            return max(1, chips // (self.num_players - 1))
        return chips

    def stake_range(self, state: BluffState) -> range:
        """Every stake the active player may put on a claim: 1..:meth:`max_stake` (BLUFF-12)."""
        return range(1, self.max_stake(state) + 1)

    def candidate_stakes(self, state: BluffState) -> tuple[int, ...]:
        """The stakes listed with each claim: 1..:data:`STAKES_LISTED`, the largest stake,
        and each other player's chips and one more (above his chips he cannot bet,
        BLUFF-13), as far as the cap allows; at most STAKES_LISTED + 2 x (players - 1) + 1."""
        top = self.max_stake(state)
        chosen = set(range(1, min(top, STAKES_LISTED) + 1))
        chosen.add(top)
        for player in state.order:
            if player != state.active:
                chosen.update((state.chips[player], state.chips[player] + 1))
        return tuple(sorted(k for k in chosen if 1 <= k <= top))

    def must_bet(self, state: BluffState) -> bool:
        """BLUFF-5 (``first_must_bet``): the first player to answer a top claim must bet."""
        return state.answered == 0 and self.rules.top_claim == "first_must_bet" and self._is_top(state)

    def _other_actions(self, state: BluffState) -> list:
        if state.phase == CLAIM:
            return []
        if self.must_bet(state):
            return [Bet()]
        if state.chips[self._responder(state)] >= state.stake:
            return [Pass(), Bet()]
        return [Pass()]  # BLUFF-13: fewer than k chips cannot bet

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        if isinstance(action, Claim):
            return self._apply_claim(state, action)
        responder = self._responder(state)
        if isinstance(action, Pass):
            chips = list(state.chips)
            chips[responder] -= 1
            state = replace(state, chips=tuple(chips), bank=state.bank + 1, answered=state.answered + 1)
        else:  # Bet: k chips, or all he has when BLUFF-5 obliges him with fewer
            amount = min(state.stake, state.chips[responder])
            state = replace(state, bets=state.bets + ((responder, amount),), answered=state.answered + 1)
        if state.answered < self.num_players - 1:
            return state
        return self._settle(state)

    def _apply_claim(self, state: BluffState, action: Claim) -> BluffState:
        return replace(
            state, phase=ANSWER, standing=action.claim, history=state.history + (action.claim,),
            stake=action.stake, bets=(), answered=0,
        )  # fmt: skip

    def _settle(self, state: BluffState) -> BluffState:
        """The betting round is answered: BLUFF-14 (everybody passed) or BLUFF-15 (reveal)."""
        active, next_seat = state.active, self._next_seat(state, state.active)
        if not state.bets:
            # BLUFF-14: the active player takes the bank (his stake never left him)
            chips = list(state.chips)
            chips[active] += state.bank
            paid = replace(state, chips=tuple(chips), bank=0)
            if self._is_top(state):  # only under all_pass_resets: the round ends unrevealed
                return self._end_round(paid, next_seat)
            if 0 in paid.chips:  # BLUFF-6: a passer paid his last chip
                return self._game_over(paid)
            return self._next_turn(paid, next_seat)
        chips = state.chips
        if self._claim_true(state):  # BLUFF-15 true: every bettor's chips go to the claimant
            for bettor, amount in state.bets:
                chips = self._pay(chips, bettor, active, amount)
        else:  # false: he pays each bettor in betting order while he has chips
            for bettor, amount in state.bets:
                chips = self._pay(chips, active, bettor, min(amount, chips[active]))
        revealed = replace(state, chips=chips, revealed=(active, state.dice))
        first_bettor = state.bets[0][0]
        return self._end_round(revealed, next_seat if self.rules.next_active == "next_seat" else first_bettor)

    def _next_turn(self, state: BluffState, player: int) -> BluffState:
        """BLUFF-14: the claim stays standing and ``player`` becomes active."""
        return replace(state, phase=ROLL, active=player, dice=(), shown=0, rerolled=False, stake=0, bets=(), answered=0)

    def _why_stake_illegal(self, state: BluffState, action: Claim) -> str:
        return (
            f"the stake must be 1..{self.max_stake(state)} chips here, got {action.stake!r} "
            f"(BLUFF-12, bid.stake_cap {self.rules.stake_cap!r})"
        )

    def _check_bets(self, state: BluffState, bad: Any) -> None:
        n = self.num_players
        if state.phase != ANSWER:
            if state.stake or state.bets or state.answered:
                raise bad(f"stakes, bets and answers belong to phase 'answer', not {state.phase!r}")
            return
        if not _whole(state.stake, 1, self.max_stake(state)):
            raise bad(f"the stake must be 1..{self.max_stake(state)}, got {state.stake!r} (BLUFF-12)")
        if not _whole(state.answered, 0, n - 2):
            raise bad(f"the number of players who answered must be 0..{n - 2}, got {state.answered!r}")
        answerers = [self._next_seat(state, state.active, i) for i in range(1, state.answered + 1)]
        if not isinstance(state.bets, tuple) or not all(isinstance(b, tuple) and len(b) == 2 for b in state.bets):
            raise bad(f"bets are (player, chips) pairs, got {_text(state.bets)}")
        bettors = [b for b, _ in state.bets]
        if bettors != [p for p in answerers if p in bettors] or len(set(bettors)) != len(bettors):
            raise bad(
                f"the bets {_text(state.bets)} must come from the players who answered ({_text(answerers)}), in seat order"
            )
        passes = state.answered - len(bettors)
        if state.bank < passes:
            raise bad(f"the bank holds {state.bank} chips, fewer than the {passes} passes of this betting round paid in")
        for bettor, amount in state.bets:
            obliged = bettor == answerers[0] and self.rules.top_claim == "first_must_bet" and self._is_top(state)
            if not obliged and state.chips[bettor] < state.stake:
                raise bad(
                    f"player {bettor} holds {state.chips[bettor]} chips, fewer than the stake {state.stake}, "
                    f"so he cannot have bet (BLUFF-13)"
                )
            owed = min(state.stake, state.chips[bettor]) if obliged else state.stake
            if amount != owed or owed < 1:
                why = "all he has up to the stake, as BLUFF-5 obliges him" if obliged else "the stake (BLUFF-13)"
                raise bad(f"player {bettor} bet {amount!r} chips, but a bet is {why}: {owed}")


class BiddingBluffGame(_TwoDiceClaims, _BettingGame):
    """The bidding bluff (*Licitálós 2 kockás blöff*), BLUFF-1..BLUFF-7, BLUFF-11..BLUFF-16.

    Phases: ``roll`` (the active player rolls under cover) -> ``claim`` (a :class:`Claim`
    with stake) -> ``answer`` (each other player, from the active player's left, plays
    :class:`Pass` or :class:`Bet`) -> settlement.
    """

    NAME = "bidding-bluff"
    RULES = BiddingBluffRules
    STATE = BiddingBluffState
    ACTIONS = (Claim, Pass, Bet)
    rules: BiddingBluffRules

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.public or state.shown or state.rerolled or state.claimed_dice:
            raise bad("the bidding bluff has no public dice or re-throws")
        _check_private_dice(state, bad)
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")
        self._check_bets(state, bad)


class LiarsPokerGame(_BettingGame):
    """Liar's dice poker (*Hazudós kockapóker*), BLUFF-1..BLUFF-6, BLUFF-17..BLUFF-21.

    Phases: ``public`` (the round's starter rolls three public dice) -> ``roll`` (the
    active player rolls two private dice) -> ``claim`` (a :class:`Claim` with stake, or
    once per turn a :class:`Reroll`, followed by ``reroll`` and ``claim`` again) ->
    ``answer`` -> settlement. After everybody passed the next seat plays a new turn with
    the same public dice; after a reveal the next round rolls new public dice.
    """

    NAME = "liars-poker"
    RULES = LiarsPokerRules
    STATE = LiarsPokerState
    ACTIONS = (Claim, Reroll, Pass, Bet)
    rules: LiarsPokerRules

    def claims(self) -> tuple[Hand, ...]:
        """Every hand, lowest first (75 with kickers ignored, BLUFF-19)."""
        return all_claims("liar", self.rules)

    def _phases(self) -> tuple[str, ...]:
        return (SEATING, PUBLIC, ROLL, REROLL, CLAIM, ANSWER, OVER)

    def _start_round(self, state: BluffState, starter: int) -> BluffState:
        """BLUFF-17, BLUFF-21: a round begins with the starter's public roll."""
        return replace(super()._start_round(state, starter), phase=PUBLIC)

    def _apply(self, state: BluffState, action: Any) -> BluffState:
        if state.phase == PUBLIC:  # liar.first_turn: the starter, or the seat after him
            first = state.active if self.rules.first_turn == "starter" else self._next_seat(state, state.active)
            return replace(state, phase=ROLL, public=tuple(action), active=first)
        if state.phase == REROLL:
            return replace(state, phase=CLAIM, dice=tuple(sorted(state.dice + tuple(action))))
        return super()._apply(state, action)

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        if isinstance(action, Reroll):
            if action.keep_shown is None:
                return replace(state, phase=REROLL, dice=(), rerolled=True)
            return replace(state, phase=REROLL, dice=(action.keep_shown,), shown=action.keep_shown, rerolled=True)
        return super()._apply_game(state, action)

    def _apply_claim(self, state: BluffState, action: Claim) -> BluffState:
        if isinstance(action.claim, DiceClaim):
            hand = self.dice_claim_hand(action.claim, state.public, self.shown_dice(state))
            claimed = super()._apply_claim(state, action)
            return replace(claimed, standing=hand, history=state.history + (hand,), claimed_dice=action.claim.dice)
        return super()._apply_claim(state, action)

    # ----- claims -----
    def _top_claim(self, state: BluffState) -> Hand:
        return top_claim(state.public, self.rules)

    def dice_claim_hand(self, claim: DiceClaim, public: Sequence[int], shown: Sequence[int] = ()) -> Hand:
        """``liar.claim = dice``: the hand the named hidden dice make with the ``public``
        dice and the ``shown`` die; escalation compares these hands."""
        return hand_of(tuple(public) + tuple(shown) + tuple(claim.dice), self.rules)

    def claims_above(self, beaten: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> list:
        """The claims allowed over ``beaten`` (BLUFF-3; None: any) with the three
        ``public`` dice and the ``shown`` die, lowest first: hands that some values of the
        hidden dice make (BLUFF-20), or under ``liar.claim = dice`` the hidden dice
        themselves, ordered by the hand they name (ties in the order of the dice)."""
        public, shown = tuple(public), tuple(shown)
        beat = None if self.rules.escalation == "off" else beaten
        hidden = 2 - len(shown)
        if self.rules.claim == "hand":
            return achievable_claims(public, shown, hidden, beat, self.rules)
        named = [
            (self.dice_claim_hand(DiceClaim(h), public, shown), i, DiceClaim(h)) for i, h in enumerate(all_outcomes(hidden))
        ]
        return [claim for hand, _, claim in sorted(named) if beat is None or hand > beat]

    def claim_true(self, claim: Any, hidden: Sequence[int], public: Sequence[int] = (), shown: Sequence[int] = ()) -> bool:
        """BLUFF-4, BLUFF-20: a claimed hand against the best hand of the public and private
        dice. A dice claim (``liar.claim = dice``) is true under ``exact`` if it names the
        hidden dice; under ``at_least`` if the actual hand ranks at or above the hand the
        named dice would make (**decided** here: the option pair is otherwise undefined)."""
        dice = tuple(public) + tuple(shown) + tuple(hidden)
        if not isinstance(claim, DiceClaim):
            return is_true(claim, dice, self.rules)
        if self.rules.truth == "exact":
            return tuple(sorted(hidden)) == claim.dice
        return hand_of(dice, self.rules) >= self.dice_claim_hand(claim, public, shown)

    def claim_strength(self, claim: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> int:
        if isinstance(claim, DiceClaim):
            claim = self.dice_claim_hand(claim, public, shown)
        return claim_rank(claim, self.rules)

    def claim_as_made(self, state: BluffState) -> Any:
        return DiceClaim(state.claimed_dice) if self.rules.claim == "dice" else state.standing

    def _other_actions(self, state: BluffState) -> list:
        actions = super()._other_actions(state)
        if state.phase != CLAIM or state.rerolled:
            return actions
        # BLUFF-18: no re-throw that would show a die leaving no claim above the standing one
        rerolls: list = [
            Reroll(face) for face in sorted(set(state.dice)) if self._hands_above(state, (face,))
        ]
        if self.rules.reroll == "one_or_both":
            rerolls.append(Reroll(None))
        return actions + rerolls

    def _hands_above(self, state: BluffState, shown: Dice) -> list[Hand]:
        """The hands some hidden dice make over the standing claim with ``shown`` shown."""
        beat = None if self.rules.escalation == "off" else state.standing
        return achievable_claims(state.public, shown, 2 - len(shown), beat, self.rules)

    def _why_claim_illegal(self, state: BluffState, claim: Any) -> str:
        shown = self.shown_dice(state)
        with_shown = f" and the shown {shown[0]}" if shown else ""
        if self.rules.claim == "dice":
            if not isinstance(claim, DiceClaim):
                return f"under liar.claim 'dice' a claim names the hidden dice, got {_text(claim)} (BLUFF-20)"
            if len(claim.dice) != 2 - len(shown):
                return f"a dice claim names the {2 - len(shown)} hidden dice, got {_text(claim.dice)}"
            hand = self.dice_claim_hand(claim, state.public, shown)
            return f"those dice make {hand}, which does not rank above the standing claim {_text(state.standing)} (BLUFF-3)"
        if not isinstance(claim, Hand) or claim not in self.claims():
            return f"a claim names a hand of five dice, got {_text(claim)} (BLUFF-19, BLUFF-20)"
        if claim not in _achievable_hands(state.public, shown, 2 - len(shown), self.rules.kickers):
            return f"no hidden dice make {claim} with the public dice {_text(state.public)}{with_shown} (BLUFF-20)"
        return f"{claim} does not rank above the standing claim {_text(state.standing)} (BLUFF-3)"

    def _why_illegal(self, state: BluffState, action: Any) -> str:
        if isinstance(action, Reroll) and state.phase == CLAIM:
            said = self.describe_action(action, state)
            if state.rerolled:
                return f"{said} is not allowed: one re-throw per turn, and player {state.active} has had his (BLUFF-18)"
            if action.keep_shown is None:
                return f"{said} is not allowed: throwing both dice again needs liar.reroll 'one_or_both' (BLUFF-18)"
            if action.keep_shown not in state.dice:
                return f"the kept die must be one of the dice {_text(state.dice)}, got {action.keep_shown!r}"
            return f"showing {action.keep_shown} would leave no claim above {_text(state.standing)} (BLUFF-18)"
        return super()._why_illegal(state, action)

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.phase in (SEATING, PUBLIC, OVER):
            if state.public or state.dice or state.shown or state.rerolled or state.claimed_dice:
                raise bad(f"no dice are on the table in phase {state.phase!r}")
        elif _safe_dice(state.public, 3) is None:
            raise bad(f"three sorted public dice are on the table in phase {state.phase!r}, got {_text(state.public)}")
        if state.phase == REROLL:
            if not state.rerolled or state.dice != self.shown_dice(state):
                raise bad(
                    f"during a re-throw only the kept, shown die stays, got dice {_text(state.dice)} and shown {state.shown!r}"
                )
        else:
            _check_private_dice(state, bad)
        if state.shown and (not state.rerolled or state.shown not in state.dice):
            raise bad(f"the shown die {state.shown!r} must be the die kept at a re-throw")
        if state.rerolled and state.phase not in (REROLL, CLAIM, ANSWER):
            raise bad(f"a re-throw happens within a turn, not in phase {state.phase!r}")
        if state.rerolled and not state.shown and self.rules.reroll != "one_or_both":
            raise bad("throwing both dice again needs liar.reroll 'one_or_both'")
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")
        if state.history:  # BLUFF-20: every claim of the round was achievable with these public dice
            possible = _achievable_hands(state.public, (), 2, self.rules.kickers)
            impossible = [h for h in state.history if h not in possible]
            if impossible:
                raise bad(f"no two dice make {impossible[0]} with the public dice {_text(state.public)} (BLUFF-20)")
        if self.rules.claim == "hand" and state.claimed_dice:
            raise bad(f"claimed dice need liar.claim 'dice', got {_text(state.claimed_dice)}")
        if self.rules.claim == "dice":
            if (state.standing is None) != (state.claimed_dice == ()):
                raise bad(
                    f"a dice claim names hidden dice with its hand, got claimed dice {_text(state.claimed_dice)} "
                    f"and the standing claim {_text(state.standing)}"
                )
            if state.claimed_dice and (_safe_dice(state.claimed_dice) is None or not 1 <= len(state.claimed_dice) <= 2):
                raise bad(f"claimed dice are 1 or 2 sorted dice, got {_text(state.claimed_dice)}")
        self._check_bets(state, bad)


# ----------------------------------------------------------------------------------------
# One round for equilibrium solvers
# ----------------------------------------------------------------------------------------
def single_round_game(game: type[_BluffGame] | str, num_players: int = 2, **options: Any) -> _BluffGame:
    """One bluff round as a game of its own: seat order ``0..n-1`` (``seating = given``),
    ``max_rounds = 1`` and ``payoff = chips`` (returns are chip changes; the bank is nobody's),
    so a round is a finite game. Start it with :meth:`_BluffGame.new_round_state` for
    chosen chips, starter and bank, or :meth:`~Game.new_initial_state` for the default.

    >>> g = single_round_game("abazs", 2, ranking="pro")
    >>> g.rules.max_rounds, g.rules.payoff
    (1, 'chips')
    """
    by_name = {cls.NAME: cls for cls in (AbazsGame, BiddingBluffGame, LiarsPokerGame)}
    cls = by_name.get(game) if isinstance(game, str) else game
    if not (isinstance(cls, type) and issubclass(cls, _BluffGame)):
        raise RulesError(f"{game!r} is not a bluff game; they are {', '.join(sorted(by_name))}")
    rules = cls.RULES.from_options({"seating": "given", "max_rounds": 1, "payoff": "chips", **options})
    return cls(rules, num_players=num_players)


__all__ = [
    "Accept", "AbazsGame", "AbazsRules", "AbazsState", "Bet", "BiddingBluffGame", "BiddingBluffRules",
    "BiddingBluffState", "BluffState", "CATEGORY_NAMES", "Challenge", "Claim", "ClaimRange", "DiceClaim", "Hand",
    "LiarsPokerGame", "LiarsPokerRules", "LiarsPokerState", "MAX_CHIPS", "MAX_ROUNDS", "Pass", "Reroll",
    "STAKES_LISTED", "TwoDiceClaim",
    "achievable_claims", "actual_result", "all_claims", "claim_probabilities", "claim_rank", "hand_of",
    "is_true", "single_round_game", "top_claim",
]  # fmt: skip


# ----------------------------------------------------------------------------------------
# Specs (kocka.solver.rules.spec)
# ----------------------------------------------------------------------------------------
_BLUFF_AGENTS = (
    AgentEntry("bayes", "kocka.agents.bots.bluff_bots:bayes_factory",
               "Bayesian posterior over the claimant's dice, learns lie and call rates"),
    AgentEntry("truthful", "kocka.agents.bots.bluff_bots:truthful_factory",
               "claims the truth (else the smallest lie), believes every claim"),
    AgentEntry("threshold", "kocka.agents.bots.bluff_bots:threshold_factory",
               "claims like 'truthful', challenges every claim at or above a fixed claim"),
    AgentEntry("heuristic", "kocka.agents.bots.heuristic:bluff_heuristic",
               "a human-like rule set, documented in kocka.agents.bots.heuristic"),
)
_BLUFF = dict(outcome="win", players=(2, 6), default_players=2, hides_information=True, words=Words("hu"))

_HINT = "kocka.agents.advice.bluff:hint"
_EQUILIBRIUM_AGENT = AgentEntry("equilibrium", "kocka.agents.bots.bluff_bots:equilibrium_factory",
                                "two players: the exact round equilibrium (table), mixed strategies")

register_game(GameSpec(
    name="abazs", title="Abázs", engine=AbazsGame,
    tables=(TableKind("equilibrium", "kocka.solver.solvers.bluff.abazs:ABAZS_EQUILIBRIUM"),),
    agents=_BLUFF_AGENTS + (
        AgentEntry("equilibrium", "kocka.agents.bots.bluff_bots:equilibrium_factory",
                   "two-player Abázs: the exact match equilibrium (table), mixed strategies"),
    ),
    hint=_HINT, hint_parameters="kocka.agents.advice.bluff:BluffHintParams", judges=("equilibrium", "bayes"),
    **_BLUFF,
))
register_game(GameSpec(
    name="bidding-bluff", title="bidding bluff", engine=BiddingBluffGame,
    tables=(TableKind("equilibrium", "kocka.solver.solvers.bluff.bidding:BIDDING_EQUILIBRIUM"),
            TableKind("match", "kocka.solver.solvers.bluff.match:BIDDING_MATCH")),
    agents=_BLUFF_AGENTS + (_EQUILIBRIUM_AGENT,), hint=_HINT,
    hint_parameters="kocka.agents.advice.bluff:BettingHintParams", judges=("equilibrium", "bayes"), **_BLUFF,
))
register_game(GameSpec(
    name="liars-poker", title="liar's kockapóker", engine=LiarsPokerGame,
    tables=(TableKind("equilibrium", "kocka.solver.solvers.bluff.liars:LIARS_EQUILIBRIUM"),
            TableKind("match", "kocka.solver.solvers.bluff.match:LIARS_MATCH")),
    agents=_BLUFF_AGENTS + (_EQUILIBRIUM_AGENT,), hint=_HINT,
    hint_parameters="kocka.agents.advice.bluff:LiarsPokerHintParams", judges=("equilibrium", "bayes"), **_BLUFF,
))
