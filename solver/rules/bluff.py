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
a pass pays 1 chip into ``state.bank`` at once. Hence ``sum(chips) + bank`` never changes.

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

from kocka.solver.dice import FACES, Dice, all_outcomes, counts, outcome_distribution, remove, validate_dice
from kocka.solver.errors import DiceError, IllegalActionError, InvalidStateError, KockaError, RulesError
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, Rules, _jsonable, _tuplify

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
        if isinstance(self.start_chips, bool) or not isinstance(self.start_chips, int) or self.start_chips < 1:
            raise RulesError(f"{self.GAME} parameter 'start_chips' must be a positive integer, got {self.start_chips!r}")
        rounds = self.max_rounds
        if isinstance(rounds, str):  # from the command line: "none" or a number
            rounds = None if rounds.lower() in ("none", "") else int(rounds) if rounds.isdigit() else rounds
            object.__setattr__(self, "max_rounds", rounds)
        if rounds is not None and (isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1):
            raise RulesError(f"{self.GAME} parameter 'max_rounds' must be None or a positive integer, got {self.max_rounds!r}")


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
                f"a two-dice claim is ('sum', 2..12), ('nonpair', 3..11) or ('pair', 1..6), got ({self.kind!r}, {self.value!r})"
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
            raise TypeError(f"cannot compare claims of the {self.ranking} and {other.ranking} rankings: {self!r}, {other!r}")
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
            raise IllegalActionError(f"a hand is a category 0..8 and faces 1..6, got ({self.category!r}, {self.faces!r})")

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
            raise IllegalActionError(f"a dice claim names 1 or 2 hidden dice, got {self.dice!r}")
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
            raise IllegalActionError(f"no five dice make the hand {claim!r} (kickers {_kickers(rules)!r})")
        return ranks[claim]
    raise IllegalActionError(f"not a rankable claim: {claim!r}")


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
        raise IllegalActionError(f"is_true needs a two-dice claim or a hand, got {claim!r}")
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
    ``payoff = chips`` baseline).
    """

    phase: str
    chips: tuple[int, ...]
    initial: tuple[int, ...]
    bank: int = 0
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
    structure (BLUFF-3), the end (BLUFF-6), observations and JSON."""

    RULES: ClassVar[type[Rules]] = _BluffRules
    STATE: ClassVar[type] = BluffState
    rules: Any

    def player_range(self) -> tuple[int, int]:
        return (2, 6)

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
        public dice in liar's poker). ``chips`` (all positive) become the ``payoff = chips``
        baseline; ``order`` is the seat order (default ``0..n-1``). With ``max_rounds = 1``
        this is one round as a game of its own (see :func:`single_round_game`)."""
        n = self.num_players
        chips = tuple(chips)
        seat_order = tuple(range(n)) if order is None else tuple(order)
        if len(chips) != n or any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in chips):
            raise InvalidStateError(f"{self.NAME}: a round starts with {n} positive chip counts, got {chips!r}")
        if sorted(seat_order) != list(range(n)):
            raise InvalidStateError(f"{self.NAME}: seat order must be a permutation of 0..{n - 1}, got {order!r}")
        if starter not in seat_order:
            raise InvalidStateError(f"{self.NAME}: starter must be a player 0..{n - 1}, got {starter!r}")
        if isinstance(bank, bool) or not isinstance(bank, int) or bank < 0:
            raise InvalidStateError(f"{self.NAME}: bank must be a chip count, got {bank!r}")
        base = self.STATE(phase=ROLL, chips=chips, initial=chips, bank=bank, order=seat_order)
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
            raise IllegalActionError(f"{self.NAME}: a roll of {wanted} dice is due ({state.phase}), got {outcome!r}") from None
        if dice != tuple(outcome):
            raise IllegalActionError(f"{self.NAME}: a roll outcome must be a sorted tuple, got {outcome!r}")

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
        """The round is over: end the game (BLUFF-6, ``max_rounds``) or start the next."""
        state = replace(state, rounds=state.rounds + 1)
        limit = self.rules.max_rounds
        if 0 in state.chips or (limit is not None and state.rounds >= limit):
            return self._game_over(state)
        return self._start_round(state, next_starter)

    def _game_over(self, state: BluffState) -> BluffState:
        return replace(self._start_round(state, -1), phase=OVER)

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

    # ----- hidden information -----
    def observation(self, state: BluffState, player: int) -> dict:
        """What ``player`` may see (docs/STATE.md): the state document with every die he
        may not see replaced by ``null``. The active player sees his private dice; the
        others see only the die shown on a re-throw. Public dice, claims, stakes, bets,
        chips, seating rolls and the dice of the latest reveal are public."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.num_players:
            raise KockaError(f"{self.NAME}: observer must be a player 0..{self.num_players - 1}, got {player!r}")
        doc = self.state_to_json(state)
        if player != state.active:
            hidden = list(remove(state.dice, (state.shown,))) if state.shown else list(state.dice)
            doc["state"]["dice"] = ([state.shown] if state.shown else []) + [None] * len(hidden)
        doc["observer"] = player
        return doc

    # ----- JSON -----
    def _state_fields(self, state: BluffState) -> Mapping[str, Any]:
        # converted here: the base converts dataclasses and tuples, not the values of a dict
        return {f.name: _jsonable(getattr(state, f.name)) for f in dataclasses.fields(state)}

    def _state_from_fields(self, fields: Mapping[str, Any]) -> BluffState:
        known = {f.name for f in dataclasses.fields(self.STATE)}
        unknown = set(fields) - known
        if unknown:
            raise InvalidStateError(f"{self.NAME}: unknown state field(s) {sorted(unknown)!r}")
        values = _tuplify(dict(fields))
        try:
            values["standing"] = _claim_from_json(fields.get("standing"))
            if "history" in fields:
                history = fields["history"]
                if not isinstance(history, (list, tuple)):
                    raise IllegalActionError(f"history must be a list of claims, got {history!r}")
                values["history"] = tuple(_claim_from_json(c) for c in history)
            elif values["standing"] is not None:
                # documents written before the field existed: the standing claim opened the round
                values["history"] = (values["standing"],)
        except IllegalActionError as exc:
            raise InvalidStateError(f"{self.NAME}: bad standing claim or history: {exc}") from None
        return self.STATE(**values)

    def action_from_json(self, doc: Mapping[str, Any] | str) -> Any:
        """As :meth:`Game.action_from_json`, with the nested claim of a :class:`Claim`."""
        if isinstance(doc, Mapping) and doc.get("type") == "Claim":
            unknown = set(doc) - {"type", "claim", "stake"}
            if unknown or "claim" not in doc:
                raise IllegalActionError(f"{self.NAME}: a Claim action has 'claim' and 'stake', got {dict(doc)!r}")
            return Claim(_claim_from_json(doc["claim"]), doc.get("stake", 0))  # type: ignore[arg-type]
        return super().action_from_json(doc)

    def describe_state(self, state: BluffState) -> str:
        return (
            f"{state.phase}, active {state.active!r}, standing {state.standing!s}, stake {state.stake!r}, "
            f"chips {list(state.chips)!r}, bank {state.bank!r}"
        )

    # ----- checks -----
    def _why_illegal(self, state: BluffState, action: Any) -> str:
        if state.phase == CLAIM and isinstance(action, Claim):
            if state.standing is not None and self.rules.escalation == "strict":
                return f"claim {action.claim!s} with stake {action.stake!r} is not allowed: it must rank above {state.standing!s} (BLUFF-3) and be possible"
            return f"claim {action.claim!s} with stake {action.stake!r} is not allowed here"
        if state.phase == ANSWER and isinstance(action, Accept):
            return f"the top claim {state.standing!s} cannot be accepted (BLUFF-5)"
        if state.phase == ANSWER and isinstance(action, Pass):
            return f"player {self._responder(state)!r} must bet on the top claim {state.standing!s} (BLUFF-5)"
        if state.phase == ANSWER and isinstance(action, Bet):
            return f"player {self._responder(state)!r} holds {state.chips[self._responder(state)]!r} chips, fewer than the stake {state.stake!r} (BLUFF-13)"
        return f"{action!r} is not a legal action in phase {state.phase!r}"

    def _check_state(self, state: BluffState) -> None:
        n = self.num_players

        def bad(why: str) -> InvalidStateError:
            return InvalidStateError(f"{self.NAME}: {why}")

        def count(value: Any) -> bool:
            return not isinstance(value, bool) and isinstance(value, int) and value >= 0

        if state.phase not in self._phases():
            raise bad(f"phase must be one of {list(self._phases())!r}, got {state.phase!r}")
        for name in ("chips", "initial"):
            value = getattr(state, name)
            if not isinstance(value, tuple) or len(value) != n or not all(count(c) for c in value):
                raise bad(f"{name} must be {n} chip counts, got {value!r}")
        if not all(c >= 1 for c in state.initial):
            raise bad(f"every player starts with chips, got initial {state.initial!r}")
        if not count(state.bank) or not count(state.rounds):
            raise bad(f"bank and rounds must be counts, got {state.bank!r}, {state.rounds!r}")
        if state.phase not in (ANSWER, OVER) and 0 in state.chips:
            raise bad(f"the game ends when a player has 0 chips (BLUFF-6), got {list(state.chips)!r} in phase {state.phase!r}")
        limit = self.rules.max_rounds
        if state.phase != OVER and limit is not None and state.rounds >= limit:
            raise bad(f"{state.rounds!r} rounds played, the limit is {limit!r}")
        if state.phase == SEATING:
            self._check_seating(state, bad)
        else:
            if state.seating or state.seat_rolls or sorted(state.order) != list(range(n)):
                raise bad(f"seat order must be a permutation of 0..{n - 1} once seated, got {state.order!r}")
            if (state.active == -1) != (state.phase == OVER) or (state.active != -1 and state.active not in state.order):
                raise bad(f"active player {state.active!r} impossible in phase {state.phase!r}")
        if state.revealed is not None:
            player, shown_dice = state.revealed
            if player not in range(n) or _safe_dice(shown_dice, 2) is None:
                raise bad(f"revealed must be (player, two dice), got {state.revealed!r}")
        self._check_turn(state, bad)

    def _check_seating(self, state: BluffState, bad: Any) -> None:
        n = self.num_players
        players = [p for block in state.seating for p in block]
        if sorted(players) != list(range(n)) or not all(isinstance(b, tuple) and b for b in state.seating):
            raise bad(f"seating must be an ordered partition of 0..{n - 1}, got {state.seating!r}")
        rolling = next((b for b in state.seating if len(b) > 1), None)
        if rolling is None or len(state.seat_rolls) >= len(rolling):
            raise bad(f"seating {state.seating!r} with rolls {state.seat_rolls!r} has nobody to roll")
        if any(r not in range(2, 13) for r in state.seat_rolls):
            raise bad(f"seating rolls must be sums 2..12, got {state.seat_rolls!r}")
        if state.order or state.active != -1 or state != replace(
            self.STATE(phase=SEATING, chips=state.chips, initial=state.initial, bank=state.bank),
            seating=state.seating, seat_rolls=state.seat_rolls,
        ):
            raise bad("nothing but the seating rolls can happen before the seating is decided")
        if state.chips != state.initial or state.bank != 0 or state.rounds != 0 or state.revealed is not None:
            raise bad(f"no chips move before the seating is decided, got chips {state.chips!r}, bank {state.bank!r}")

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        """Game-specific field checks (dice, claims, stakes, bets)."""

    def _phases(self) -> tuple[str, ...]:
        return (SEATING, ROLL, CLAIM, ANSWER, OVER)


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

    def _top_claim(self, state: BluffState) -> TwoDiceClaim:
        return self.claims()[-1]


# ----------------------------------------------------------------------------------------
# Abázs
# ----------------------------------------------------------------------------------------
class AbazsGame(_TwoDiceClaims, _BluffGame):
    """Abázs (*2 kockás blöff*), BLUFF-1..BLUFF-10.

    Phases: ``roll`` (the claimant rolls under cover) -> ``claim`` -> ``answer`` (the next
    seat: :class:`Accept`, which leads to his own ``roll``, or :class:`Challenge`, which
    settles 1 chip and ends the round).
    """

    NAME = "abazs"
    RULES = AbazsRules
    STATE = AbazsState
    ACTIONS = (Claim, Accept, Challenge)
    rules: AbazsRules

    def claimable(self, standing: TwoDiceClaim | None) -> list[TwoDiceClaim]:
        """Claims allowed over ``standing`` (BLUFF-3: strictly higher; any with
        ``escalation = off``)."""
        claims = self.claims()
        if standing is None or self.rules.escalation == "off":
            return list(claims)
        return list(claims[standing.rank + 1 :])

    def _legal_actions(self, state: BluffState) -> list:
        if state.phase == CLAIM:
            return [Claim(c) for c in self.claimable(state.standing)]
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
        assert state.standing is not None
        true = is_true(state.standing, state.dice, self.rules)
        loser, winner = (challenger, claimant) if true else (claimant, challenger)
        settled = replace(state, chips=self._pay(state.chips, loser, winner, 1), revealed=(claimant, state.dice))
        return self._end_round(settled, challenger if self.rules.next_starter == "challenger" else loser)

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.bank or state.public or state.shown or state.rerolled or state.claimed_dice or state.stake or state.bets or state.answered:
            raise bad("Abázs has no bank, public dice, re-throws, stakes or bets")
        _check_private_dice(state, bad)
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")


def _check_private_dice(state: BluffState, bad: Any) -> None:
    """The active player's two dice exist exactly from his roll until the round moves on."""
    if state.phase in (CLAIM, ANSWER):
        if _safe_dice(state.dice, 2) is None:
            raise bad(f"the active player holds two sorted dice in phase {state.phase!r}, got {state.dice!r}")
    elif state.dice != () and state.phase != REROLL:
        raise bad(f"no private dice in phase {state.phase!r}, got {state.dice!r}")


def _check_standing(state: BluffState, claims: Sequence[Any], bad: Any, strict: bool) -> None:
    """The standing claim and the round's claim history (BLUFF-3): claims of these rules,
    ending with the standing claim, each above the one before under ``strict`` escalation."""
    if state.standing is not None and state.standing not in claims:
        raise bad(f"standing claim {state.standing!r} is not a claim of these rules")
    history = state.history
    if not isinstance(history, tuple) or (history[-1:] != ((state.standing,) if state.standing is not None else ())):
        raise bad(f"the claim history {history!r} must end with the standing claim {state.standing!r} (empty if none)")
    for claim in history:
        if claim not in claims:
            raise bad(f"claim {claim!r} in the history is not a claim of these rules")
    for earlier, later in zip(history, history[1:]):
        if strict and not earlier < later:
            raise bad(f"each claim of the history must beat the one before (BLUFF-3), got {earlier!s} then {later!s}")
    if state.phase == ANSWER and state.standing is None:
        raise bad("an answer needs a standing claim")
    if state.phase in (SEATING, PUBLIC, OVER) and state.standing is not None:
        raise bad(f"no claim stands in phase {state.phase!r}, got {state.standing!r}")


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

    def must_bet(self, state: BluffState) -> bool:
        """BLUFF-5 (``first_must_bet``): the first player to answer a top claim must bet."""
        return state.answered == 0 and self.rules.top_claim == "first_must_bet" and self._is_top(state)

    def _claimable(self, state: BluffState) -> list[Any]:
        raise NotImplementedError

    def _claim_actions(self, state: BluffState) -> list:
        stakes = range(1, self.max_stake(state) + 1)
        return [Claim(c, k) for c in self._claimable(state) for k in stakes]

    def _legal_actions(self, state: BluffState) -> list:
        if state.phase == CLAIM:
            return self._claim_actions(state)
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

    def _claim_true(self, state: BluffState) -> bool:
        raise NotImplementedError

    def _why_illegal(self, state: BluffState, action: Any) -> str:
        if state.phase == CLAIM and isinstance(action, Claim) and not 1 <= action.stake <= self.max_stake(state):
            return f"stake must be 1..{self.max_stake(state)} (BLUFF-12, {self.rules.stake_cap}), got {action.stake!r}"
        return super()._why_illegal(state, action)

    def _check_bets(self, state: BluffState, bad: Any) -> None:
        n = self.num_players
        if state.phase != ANSWER:
            if state.stake or state.bets or state.answered:
                raise bad(f"stake, bets and answers belong to phase 'answer', not {state.phase!r}")
            return
        if isinstance(state.stake, bool) or not isinstance(state.stake, int) or not 1 <= state.stake <= self.max_stake(state):
            raise bad(f"stake must be 1..{self.max_stake(state)}, got {state.stake!r}")
        if isinstance(state.answered, bool) or not isinstance(state.answered, int) or not 0 <= state.answered < n - 1:
            raise bad(f"answered must be 0..{n - 2}, got {state.answered!r}")
        answerers = [self._next_seat(state, state.active, i) for i in range(1, state.answered + 1)]
        bettors = [b for b, _ in state.bets]
        if bettors != [p for p in answerers if p in bettors] or len(set(bettors)) != len(bettors):
            raise bad(f"bets {state.bets!r} must come from the {state.answered!r} players who answered, in seat order")
        for bettor, amount in state.bets:
            if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= state.stake:
                raise bad(f"player {bettor!r} bet {amount!r}, not 1..{state.stake!r}")
            obliged = bettor == answerers[0] and self.rules.top_claim == "first_must_bet" and self._is_top(state)
            if amount < state.stake and not obliged:
                raise bad(f"only a player obliged by BLUFF-5 bets less than the stake: {bettor!r} bet {amount!r}")


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

    def _claimable(self, state: BluffState) -> list[TwoDiceClaim]:
        claims = self.claims()
        if state.standing is None or self.rules.escalation == "off":
            return list(claims)
        return list(claims[state.standing.rank + 1 :])  # type: ignore[union-attr]

    def _claim_true(self, state: BluffState) -> bool:
        return is_true(state.standing, state.dice, self.rules)  # type: ignore[arg-type]

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
            hand = self.dice_claim_hand(state, action.claim)
            claimed = super()._apply_claim(state, action)
            return replace(claimed, standing=hand, history=state.history + (hand,), claimed_dice=action.claim.dice)
        return super()._apply_claim(state, action)

    # ----- claims -----
    def hidden_dice(self, state: BluffState) -> Dice:
        """The active player's private dice that the others cannot see."""
        return remove(state.dice, (state.shown,)) if state.shown else state.dice

    def _shown(self, state: BluffState) -> Dice:
        return (state.shown,) if state.shown else ()

    def _top_claim(self, state: BluffState) -> Hand:
        return top_claim(state.public, self.rules)

    def _claimable_hands(self, state: BluffState, shown: Dice) -> list[Hand]:
        standing = None if self.rules.escalation == "off" else state.standing
        return achievable_claims(state.public, shown, 2 - len(shown), standing, self.rules)  # type: ignore[arg-type]

    def dice_claim_hand(self, state: BluffState, claim: DiceClaim) -> Hand:
        """``liar.claim = dice``: the hand the named hidden dice make with the public dice and
        the shown die; escalation compares these hands."""
        return hand_of(state.public + self._shown(state) + claim.dice, self.rules)

    def _claimable(self, state: BluffState) -> list[Any]:
        shown = self._shown(state)
        if self.rules.claim == "hand":
            return self._claimable_hands(state, shown)
        beaten = None if self.rules.escalation == "off" else state.standing
        return [
            DiceClaim(h)
            for h in all_outcomes(2 - len(shown))
            if beaten is None or self.dice_claim_hand(state, DiceClaim(h)) > beaten
        ]

    def _legal_actions(self, state: BluffState) -> list:
        actions = super()._legal_actions(state)
        if state.phase != CLAIM or state.rerolled:
            return actions
        # BLUFF-18: no re-throw that would show a die leaving no claim above the standing one
        rerolls: list = [
            Reroll(face) for face in sorted(set(state.dice)) if self._claimable_hands(state, (face,))
        ]
        if self.rules.reroll == "one_or_both":
            rerolls.append(Reroll(None))
        return actions + rerolls

    def _claim_true(self, state: BluffState) -> bool:
        """BLUFF-4, BLUFF-20: the claimed hand against the best hand of the public and private
        dice. Under ``liar.claim = dice`` an exact claim is true if the named dice are the
        hidden ones; under ``at_least`` if the actual hand ranks at or above the hand the
        named dice would make (**decided** here: the option pair is otherwise undefined)."""
        if self.rules.claim == "hand":
            return is_true(state.standing, state.public + state.dice, self.rules)  # type: ignore[arg-type]
        hidden = self.hidden_dice(state)
        if self.rules.truth == "exact":
            return hidden == state.claimed_dice
        return hand_of(state.public + state.dice, self.rules) >= state.standing  # type: ignore[operator]

    def _why_illegal(self, state: BluffState, action: Any) -> str:
        if isinstance(action, Reroll) and state.phase == CLAIM:
            if state.rerolled:
                return f"one re-throw per turn (BLUFF-18), already used; got {action!r}"
            if action.keep_shown is None:
                return f"re-throwing both dice needs liar.reroll 'one_or_both', got {action!r}"
            if action.keep_shown not in state.dice:
                return f"the kept die must be one of the dice {list(state.dice)!r}, got {action.keep_shown!r}"
            return f"showing {action.keep_shown!r} would leave no claim above {state.standing!s} (BLUFF-18)"
        return super()._why_illegal(state, action)

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.phase in (SEATING, PUBLIC, OVER):
            if state.public or state.dice or state.shown or state.rerolled or state.claimed_dice:
                raise bad(f"no dice are on the table in phase {state.phase!r}")
        elif _safe_dice(state.public, 3) is None:
            raise bad(f"three sorted public dice are on the table in phase {state.phase!r}, got {state.public!r}")
        if state.phase == REROLL:
            if not state.rerolled or state.dice != self._shown(state):
                raise bad(f"during a re-throw only the kept, shown die stays, got dice {state.dice!r}, shown {state.shown!r}")
        else:
            _check_private_dice(state, bad)
        if state.shown and (not state.rerolled or state.shown not in state.dice):
            raise bad(f"the shown die {state.shown!r} must be a kept die of a re-throw")
        if state.rerolled and state.phase not in (REROLL, CLAIM, ANSWER):
            raise bad(f"a re-throw happens within a turn, not in phase {state.phase!r}")
        if state.rerolled and not state.shown and self.rules.reroll != "one_or_both":
            raise bad("re-throwing both dice needs liar.reroll 'one_or_both'")
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")
        if state.history:  # BLUFF-20: every claim of the round was achievable with these public dice
            possible = _achievable_hands(state.public, (), 2, self.rules.kickers)
            impossible = [h for h in state.history if h not in possible]
            if impossible:
                raise bad(f"no two dice make {impossible[0]!s} with the public dice {list(state.public)!r} (BLUFF-20)")
        if self.rules.claim == "hand" and state.claimed_dice:
            raise bad(f"claimed dice need liar.claim 'dice', got {state.claimed_dice!r}")
        if self.rules.claim == "dice" and (state.standing is None) != (state.claimed_dice == ()):
            raise bad(f"a dice claim names hidden dice with its hand, got {state.claimed_dice!r}, {state.standing!r}")
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
        raise RulesError(f"not a bluff game: {game!r}")
    rules = cls.RULES.from_options({"seating": "given", "max_rounds": 1, "payoff": "chips", **options})
    return cls(rules, num_players=num_players)


__all__ = [
    "Accept", "AbazsGame", "AbazsRules", "AbazsState", "Bet", "BiddingBluffGame", "BiddingBluffRules",
    "BiddingBluffState", "BluffState", "CATEGORY_NAMES", "Challenge", "Claim", "DiceClaim", "Hand",
    "LiarsPokerGame", "LiarsPokerRules", "LiarsPokerState", "Pass", "Reroll", "TwoDiceClaim",
    "achievable_claims", "actual_result", "all_claims", "claim_probabilities", "claim_rank", "hand_of",
    "is_true", "single_round_game", "top_claim",
]  # fmt: skip
