"""Five-dice scorecard games: Hungarian kockapóker (HU-1..HU-9), Slovak yatzi (SK-1..SK-11),
and two validation variants, standard Yahtzee and Scandinavian Yatzy (PUBLISHED.md).

The module has two layers.

**Scoring layer** (what solvers build their tables from; they never re-implement a rule).
Boxes are addressed by index into ``game.boxes``; a card is a bit mask of filled boxes
(bit ``i`` set = box ``i`` filled) plus the *tracker*, one integer summarising the face boxes:

* ``box_score(box, dice, first_throw)`` -- the entry written into a box for these dice,
  including first-throw doubling (SK-7) and the poker bonus (SK-8); ``score_table()`` is the
  same as an int32 array ``[box, outcome_index, first_throw]`` over the 252 outcomes.
* ``tracker_after(tracker, box, dice)`` and ``final_bonus(tracker)`` -- the card-dependent
  upper-section part. The final total of a card decomposes exactly as

      total = sum of the box entries + final_bonus(tracker) + 100 x bonus Yahtzees

  The face entries are already in the box entries, so ``final_bonus`` is only what the
  upper-section rule adds on top of them:

  ======== ====================================== =========================================
  game     tracker                                final_bonus(tracker)
  ======== ====================================== =========================================
  HU       net upper score + 3*S (0..5*S)         63 if net >= 0; else -net (house 0,
                                                  ``house_negative = zero``) or 0 (``count``)
  SK       net upper score + 3*S (0..5*S)         50 if net >= 0 else 0 (SK-5)
  Yahtzee  upper total capped at min(63, 5*S)     35 if the total reached 63
  Yatzy    upper total capped at min(63, 5*S)     50 if the total reached 63
  ======== ====================================== =========================================

  where S is the sum of the faces whose boxes are on the card (21 for a full card, so the
  HU/SK tracker is net + 63 in 0..105 and the Yahtzee/Yatzy tracker is 0..63). HU-7: the
  house is 63 + net when net >= 0, so house - net = 63; when net < 0 the house is 0 (the
  entries, summing to net, are cancelled by -net) or net (nothing to add).
* ``allowed_boxes(filled_mask, dice=None)`` -- the boxes a Fill may choose (SK part order,
  Yahtzee forced joker); ``fill_score(...)`` -- entry and bonus of one Fill, the single
  function the state machine uses.
* ``box_groups(filled_mask)`` -- the groups of boxes one turn may end in, as bit masks (one
  group, or under the SK declaration one per face box, SK-3); ``turn_boxes(state)`` -- the
  group the turn in progress is played in. Solvers lay out their turns by these.
* ``entries_total(card)``, ``card_total(card)`` -- the points written so far, and the total
  (HU-8, SK-10); ``SlovakGame.settlement(state)`` -- SK-11's results at the end;
  ``card_from_entries(mapping)`` -- a card from box names in any of the game's languages.

**Reduced cards.** Every Rules class takes ``boxes``, a tuple of box names (default: the whole
card) that restricts the card to a subset, for small exact validation games. The rule
formulas are kept as they are: the HU house still adds 63 at net >= 0, the SK bonus 50, the
Yahtzee/Yatzy bonus still needs an upper total of 63 (so a card whose face boxes cannot reach
63 never gets it). A card without face boxes has net 0, so HU always adds 63 and SK 50.
The Yahtzee bonus and joker need the ``yahtzee`` box on the card.

**Yahtzee joker** (Verhoeff's "Optimal Solitaire Yahtzee Player", Glenn 2006). A *bonus
Yahtzee* is five of a kind rolled while the Yahtzee box is already filled (with 50 or 0).
With ``yahtzee_bonus = True`` (the default):

* it earns +100 if the Yahtzee box holds 50 (none if it holds 0);
* it is a *joker* if, in addition, the upper box of its face is already filled (or not on
  the card): a joker written into full house, small straight or large straight scores
  25 / 30 / 40 although the pattern does not fit. Every other box scores it normally (three
  and four of a kind and chance: the sum; its own face box: 5 x face; other face boxes: 0).
* ``joker = "free"`` (Verhoeff's convention): the roll may be written into any open box.
  ``joker = "forced"`` (Hasbro's rules): it must go into the upper box of its face if that
  is open; otherwise into any open lower box; only if every lower box is filled, into any
  open upper box (scoring 0).

With ``yahtzee_bonus = False`` there is neither bonus nor joker; five of a kind is never a
full house or a straight. Published expected scores under optimal play: 254.5896 (free),
254.5877 (forced), 245.8708 (no bonus) -- PUBLISHED.md.

**State machine.** A turn is: roll 5 dice (a chance node), then up to two Keep decisions each
followed by a roll of the other dice, then one Fill. ``throw`` counts the throws made this
turn (0..3); a state with ``dice is None`` is a chance node that rolls ``5 - len(kept)`` dice,
and the chance outcome is the sorted tuple of the rolled dice. Keeping all five dice is not a
Keep: stopping is simply filling a box (HU-2). Under SK ``part1_choice =
declare_after_first_throw`` the face box is declared after the first throw (SK-3, the
option) with a Declare action; see :class:`SlovakGame`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property, partial
from typing import Any, Hashable, Callable, ClassVar, Iterable, Mapping, NamedTuple, Sequence

import numpy as np

from kocka.solver.base.dice import (
    Dice, all_outcomes, counts, is_sub_multiset, outcome_distribution, sub_multisets, validate_dice,
)
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import DiceError, IllegalActionError, InvalidStateError, RulesError
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, Rules
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game
from kocka.solver.rules.words import Words
from kocka.solver.rules.five_dice import (  # FACE_BOXES, NUM_DICE, Keep: re-exported
    FACE_BOXES,
    FACE_OF_BOX,
    NUM_DICE,
    Counts,
    Keep,
    Scorer,
    bits_of,
    card_entries,
    combination_scorers,
    dice_list,
    dice_sum,
    face_sum,
    full_house,
    highest_group,
    is_five_of_a_kind,
    is_full_house,
    longest_run,
    net_face_entry,
    normalize_boxes,
    two_pairs,
)

MAX_THROWS = 3
UPPER_BONUS_THRESHOLD = 63
"""Yahtzee/Yatzy upper bonus threshold; also 3 x (1+...+6), the HU house base (HU-7)."""
YAHTZEE_BONUS = 100


# ----------------------------------------------------------------------------------------
# Box scorers (functions of the face counts; the patterns are in .five_dice)
# ----------------------------------------------------------------------------------------
def _fixed_value(value: int, pattern: Callable[[Counts], bool]) -> Scorer:
    """``value`` if the dice show ``pattern``, else 0 (nagy póker, Yahtzee, Yatzy's yatzy)."""
    return lambda c: value if pattern(c) else 0


def _face_boxes(entry: Callable[[Counts, int], int]) -> dict[str, Scorer]:
    """Scorers of the six face boxes from ``entry(c, face)``."""
    return {name: partial(entry, face=face) for name, face in FACE_OF_BOX.items()}


# ----------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _CardRules(Rules):
    """Base of the scorecard games' rules: every one takes ``boxes``, a reduced card of
    ``ALL_BOXES`` (see :func:`~kocka.solver.rules.five_dice.normalize_boxes`)."""

    ALL_BOXES: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        normalize_boxes(self, self.ALL_BOXES)


HUNGARIAN_BOXES = FACE_BOXES + (
    "chance", "pair", "three_kind", "two_pairs", "four_kind",
    "full_house", "small_straight", "large_straight", "five_kind",
)  # fmt: skip
SLOVAK_BOXES = FACE_BOXES + (
    "pair", "two_pairs", "three_kind", "small_straight", "large_straight",
    "full_house", "four_kind", "poker", "chance",
)  # fmt: skip
YAHTZEE_BOXES = FACE_BOXES + (
    "three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yahtzee", "chance",
)  # fmt: skip
YATZY_BOXES = FACE_BOXES + (
    "pair", "two_pairs", "three_kind", "four_kind", "small_straight",
    "large_straight", "full_house", "chance", "yatzy",
)  # fmt: skip


@dataclass(frozen=True)
class HungarianRules(_CardRules):
    """HU-1..HU-9 options: ``hu.house_negative`` (HU-7) and ``same_face_groups`` (HU-6)."""

    GAME: ClassVar[str] = "kockapoker"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {"house_negative": ("zero", "count"), "same_face_groups": ("no", "yes")}
    ALL_BOXES: ClassVar[tuple[str, ...]] = HUNGARIAN_BOXES
    house_negative: str = "zero"
    same_face_groups: str = "no"
    boxes: tuple[str, ...] = HUNGARIAN_BOXES


@dataclass(frozen=True)
class SlovakRules(_CardRules):
    """SK-1..SK-11 options: ``sk.part_order``, ``sk.part1_choice`` (SK-3), ``sk.poker_bonus``
    (SK-8) and ``same_face_groups`` (SK-6)."""

    GAME: ClassVar[str] = "slovak"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "part_order": ("part1_first", "free"),
        "part1_choice": ("after_turn", "declare_after_first_throw"),
        "poker_bonus": ("flat", "doubled"),
        "same_face_groups": ("no", "yes"),
    }
    ALL_BOXES: ClassVar[tuple[str, ...]] = SLOVAK_BOXES
    part_order: str = "part1_first"
    part1_choice: str = "after_turn"
    poker_bonus: str = "flat"
    same_face_groups: str = "no"
    boxes: tuple[str, ...] = SLOVAK_BOXES


@dataclass(frozen=True)
class YahtzeeRules(_CardRules):
    """Standard Yahtzee (validation variant): ``joker`` = ``free`` | ``forced`` and
    ``yahtzee_bonus`` (+100 per bonus Yahtzee and the joker; False: neither)."""

    GAME: ClassVar[str] = "yahtzee"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {"joker": ("free", "forced"), "yahtzee_bonus": (True, False)}
    ALL_BOXES: ClassVar[tuple[str, ...]] = YAHTZEE_BOXES
    joker: str = "free"
    yahtzee_bonus: bool = True
    boxes: tuple[str, ...] = YAHTZEE_BOXES


@dataclass(frozen=True)
class YatzyRules(_CardRules):
    """Scandinavian Yatzy (validation variant) and the house rules players use, as
    precisit/yatzy-solver lists them (docs/rules.md, its variant suffixes in brackets):

    * ``five_kind_full_house`` = ``yes`` [+fh5]: five of a kind is also a full house, for
      the sum of the dice (default: three of one face and two of another only);
    * ``four_kind_two_pairs`` = ``yes`` [+tp4]: four (or five) of a kind is also two pairs,
      for 4 x the face (default: two different faces only);
    * ``single_pair_two_pairs`` = ``yes`` [+tp1]: one pair alone scores in two pairs, as
      2 x the face (the scoring of the 2012 KTH thesis's code, which gave its 248.63;
      nobody plays by it, PUBLISHED.md);
    * ``order`` = ``forced`` [+forced], "tvångsyatzy": the boxes are filled top to bottom,
      one per turn, in card order.
    """

    GAME: ClassVar[str] = "yatzy"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "five_kind_full_house": ("no", "yes"), "four_kind_two_pairs": ("no", "yes"),
        "single_pair_two_pairs": ("no", "yes"), "order": ("free", "forced"),
    }
    ALL_BOXES: ClassVar[tuple[str, ...]] = YATZY_BOXES
    five_kind_full_house: str = "no"
    four_kind_two_pairs: str = "no"
    single_pair_two_pairs: str = "no"
    order: str = "free"
    boxes: tuple[str, ...] = YATZY_BOXES


# ----------------------------------------------------------------------------------------
# States and actions
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Card:
    """One player's scorecard: ``entries[i]`` is box i's entry, ``None`` while open;
    ``yahtzee_bonuses`` counts the +100 bonus Yahtzees (Yahtzee only)."""

    entries: tuple[int | None, ...]
    yahtzee_bonuses: int = 0

    @property
    def filled_mask(self) -> int:
        """Bit i set when box i is filled."""
        return sum(1 << i for i, e in enumerate(self.entries) if e is not None)

    @property
    def filled_count(self) -> int:
        return sum(e is not None for e in self.entries)

    @property
    def is_full(self) -> bool:
        return all(e is not None for e in self.entries)


@dataclass(frozen=True)
class ScorecardState:
    """One position: every player's card, the seat to play and his turn so far.

    ``throw`` is the number of throws made this turn (0..3). ``dice`` are the five dice on
    the table after the last throw, ``None`` at a chance node; ``kept`` are the dice kept
    for the pending roll (chance nodes only). ``declared`` is the face box declared after
    the first throw (SK ``declare_after_first_throw`` only).
    """

    cards: tuple[Card, ...]
    player: int = 0
    throw: int = 0
    dice: Dice | None = None
    kept: Dice = ()
    declared: str | None = None


@dataclass(frozen=True)
class Fill:
    """End the turn by writing the dice into the open box ``box`` (a box id)."""

    box: str


@dataclass(frozen=True)
class Declare:
    """SK ``part1_choice = declare_after_first_throw``: commit to face box ``box``."""

    box: str


class FillScore(NamedTuple):
    """Points of one Fill: the ``entry`` written into the box, and the ``bonus`` earned
    outside the boxes (+100 for a bonus Yahtzee, else 0)."""

    entry: int
    bonus: int


# ----------------------------------------------------------------------------------------
# Games
# ----------------------------------------------------------------------------------------
class ScorecardGame(Game):
    """Common engine of the five-dice scorecard games; see the module docstring.

    Subclasses define ``_box_scorers`` (box id -> function of the face counts), the tracker
    geometry (``_tracker_offset``, ``_tracker_cap``) and ``final_bonus``.
    """

    STATE = ScorecardState
    ACTIONS: ClassVar[tuple[type, ...]] = (Keep, Fill)

    def __init__(self, rules: Rules | None = None, num_players: int = 1) -> None:
        super().__init__(rules, num_players)
        self.boxes: tuple[str, ...] = self.rules.boxes  # type: ignore[attr-defined]
        self._index = {name: i for i, name in enumerate(self.boxes)}
        self.upper_boxes: tuple[int, ...] = tuple(i for i, b in enumerate(self.boxes) if b in FACE_OF_BOX)
        self.lower_boxes: tuple[int, ...] = tuple(i for i in range(len(self.boxes)) if i not in self.upper_boxes)
        scorers = self._box_scorers()
        self._scorers = tuple(scorers[b] for b in self.boxes)
        self.upper_face_sum = sum(FACE_OF_BOX[self.boxes[i]] for i in self.upper_boxes)
        self.tracker_size: int = self._tracker_cap() + 1
        self.initial_tracker: int = self._tracker_offset()

    def roll_key(self, state: ScorecardState) -> Hashable:
        """(seat, boxes filled, throw): the same throw of the same turn on any card."""
        return ("turn", state.player, state.cards[state.player].filled_count, state.throw)

    # ----- boxes -----
    @property
    def num_boxes(self) -> int:
        return len(self.boxes)

    @property
    def full_mask(self) -> int:
        return (1 << len(self.boxes)) - 1

    @property
    def box_labels(self) -> dict[str, str]:
        """Box id -> its name on the card, in card order (:meth:`box_label`, the spec's words)."""
        return {b: self.box_label(b) for b in self.boxes}

    def box_index(self, name: str) -> int:
        """Index of box id ``name`` in :attr:`boxes`."""
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise IllegalActionError(f"{self.NAME}: no box {name!r} on this card; {self._boxes_text()}") from None

    def _boxes_text(self) -> str:
        return "the boxes are " + ", ".join(self.box_label(b) for b in self.boxes)

    def upper_face(self, box: int) -> int:
        """The face (1..6) of face box ``box``."""
        self._check_box(box)
        if box not in self.upper_boxes:
            raise RulesError(f"{self.NAME}: {self.box_label(self.boxes[box])} is not a face box")
        return FACE_OF_BOX[self.boxes[box]]

    def _check_box(self, box: int) -> None:
        if isinstance(box, bool) or not isinstance(box, int) or not 0 <= box < len(self.boxes):
            raise RulesError(f"{self.NAME}: a box number is 0..{len(self.boxes) - 1}, got {box!r}")

    # ----- scoring -----
    def _box_scorers(self) -> Mapping[str, Scorer]:
        raise NotImplementedError

    def box_score(self, box: int, dice: Sequence[int], first_throw: bool = False) -> int:
        """The entry written into box ``box`` for these dice (best fit; 0 if they do not
        fit), including first-throw doubling and the poker bonus (SK-7, SK-8), but not the
        card-dependent extras (upper bonus or house, Yahtzee bonus and joker)."""
        self._check_box(box)
        return self._scorers[box](counts(validate_dice(dice, NUM_DICE)))

    def card_boxes(self) -> tuple[str, ...]:
        return self.boxes

    def box_points(self, box: str, dice: Sequence[int], first_throw: bool = False) -> int:
        """:meth:`box_score` by box id (the box-name form of the Game API)."""
        if box not in self._index:
            raise RulesError(f"{self.NAME}: no box {box!r} on this card; {self._boxes_text()}")
        return self.box_score(self._index[box], dice, first_throw)

    def card_from_entries(self, entries: Mapping[str, Any] | None = None) -> Card:
        """A card from its filled boxes: ``{"pair": 10, "sixes": -6}``, each box named by
        its id or by its name in any of the game's languages (``"pár"``, ``"szemét"``,
        ``"6s"``), or ``{"entries": {...}, "yahtzee_bonuses": 1}``; ``None`` is the empty
        card. The entries are checked when the card is part of a state
        (:meth:`check_state`)."""
        if entries is None:
            return Card(entries=(None,) * len(self.boxes))
        if not isinstance(entries, Mapping):
            raise InvalidStateError(f"{self.NAME}: a card is a mapping of box to entry, got {entries!r}")
        bonuses = entries.get("yahtzee_bonuses", 0)
        named = entries.get("entries", {k: v for k, v in entries.items() if k != "yahtzee_bonuses"})
        return Card(entries=card_entries(self, self.boxes, named), yahtzee_bonuses=bonuses)

    def score_table(self) -> np.ndarray:
        """``box_score`` for every box, outcome and first-throw flag: int32 array of shape
        ``(num_boxes, 252, 2)`` indexed ``[box, dice_tables(5).outcome_index(dice),
        int(first_throw)]`` (cached, read-only)."""
        return self._score_table

    @cached_property
    def _score_table(self) -> np.ndarray:
        outcomes = all_outcomes(NUM_DICE)  # dice_tables(5)'s order, without building its tables
        # where box_score is the plain scorers (no first-throw rule), score each outcome's
        # face counts once: a hint right after a table is loaded waits for this table
        # (flat lists of ints: nested lists would wake the garbage collector)
        if type(self).box_score is ScorecardGame.box_score:
            faces = [counts(dice) for dice in outcomes]
            flat = [score(c) for score in self._scorers for c in faces]
            table = np.repeat(np.array(flat, dtype=np.int32).reshape(len(self.boxes), len(outcomes), 1), 2, axis=2)
        else:
            flat = [self.box_score(b, dice, first) for b in range(len(self.boxes)) for dice in outcomes
                    for first in (False, True)]
            table = np.array(flat, dtype=np.int32).reshape(len(self.boxes), len(outcomes), 2)
        table.setflags(write=False)
        return table

    @cached_property
    def _possible_entries(self) -> tuple[frozenset[int], ...]:
        return tuple(self._possible_entries_of(b) for b in range(len(self.boxes)))

    def _possible_entries_of(self, box: int) -> frozenset[int]:
        """The entries ``box`` can hold: its score of every outcome (from the score table
        once it exists; before, of this box alone, so that checking a card with a few
        entries does not wait for the whole table)."""
        known = self.__dict__.setdefault("_possible_by_box", {})
        entries = known.get(box)
        if entries is None:
            if "_score_table" in self.__dict__:
                entries = frozenset(self._score_table[box].ravel().tolist())
            elif type(self).box_score is ScorecardGame.box_score:
                entries = frozenset(self._scorers[box](counts(dice)) for dice in all_outcomes(NUM_DICE))
            else:
                entries = frozenset(self.box_score(box, dice, first) for dice in all_outcomes(NUM_DICE)
                                    for first in (False, True))
            known[box] = entries
        return entries

    # ----- upper section tracker -----
    def _tracker_offset(self) -> int:
        """Tracker value of a card with no face box filled."""
        return 0

    def _tracker_cap(self) -> int:
        """Largest tracker value (totals above it are capped)."""
        raise NotImplementedError

    def tracker_after(self, tracker: int, box: int, dice: Sequence[int]) -> int:
        """Tracker after writing ``dice`` into ``box`` (unchanged for a lower box)."""
        if box not in self.upper_boxes:
            self._check_box(box)
            return tracker
        return min(tracker + self.box_score(box, dice, False), self._tracker_cap())

    def tracker_of(self, card: Card) -> int:
        """Tracker of a card, from its face entries."""
        total = sum(card.entries[i] or 0 for i in self.upper_boxes)
        return min(self._tracker_offset() + total, self._tracker_cap())

    def final_bonus(self, tracker: int) -> int:
        """What the upper-section rule adds to the box entries at the end of the game."""
        raise NotImplementedError

    # ----- fills -----
    def allowed_boxes(self, filled_mask: int, dice: Sequence[int] | None = None) -> list[int]:
        """Boxes a Fill may choose on a card with ``filled_mask`` (all open boxes unless the
        game restricts them; ``dice`` matter only for the Yahtzee forced joker)."""
        return [b for b in range(len(self.boxes)) if not filled_mask >> b & 1]

    def box_groups(self, filled_mask: int) -> list[int]:
        """The groups of boxes one turn on a card with ``filled_mask`` may end in, as bit
        masks (bit i = box i); a turn fills one box of one group. Here a single group, the
        boxes a Fill may choose (:meth:`allowed_boxes`), and none on a full card; under SK
        ``declare_after_first_throw`` every face box is a group of its own (SK-3,
        :meth:`SlovakGame.box_groups`)."""
        bits = bits_of(self.allowed_boxes(filled_mask))
        return [bits] if bits else []

    def turn_boxes(self, state: ScorecardState) -> list[int]:
        """The boxes the turn in progress may still end in, whatever the dice: the group of
        :meth:`box_groups` it is played in (empty while a declaration is due, SK-3)."""
        return self.allowed_boxes(state.cards[state.player].filled_mask)

    def fill_score(
        self,
        box: int,
        dice: Sequence[int],
        first_throw: bool,
        filled_mask: int = 0,
        yahtzee_box_value: int | None = None,
    ) -> FillScore:
        """Entry and bonus of writing ``dice`` into ``box`` on a card with ``filled_mask``
        (and, for Yahtzee, the entry of its Yahtzee box, None while open)."""
        return FillScore(self.box_score(box, dice, first_throw), 0)

    # ----- totals -----
    def entries_total(self, card: Card) -> int:
        """The points written on ``card`` so far: its entries plus 100 per bonus Yahtzee
        (:meth:`card_total` without the upper-section bonus)."""
        return sum(e for e in card.entries if e is not None) + YAHTZEE_BONUS * card.yahtzee_bonuses

    def card_total(self, card: Card) -> int:
        """HU-8, SK-10: the entries plus the upper-section bonus (counted once every face
        box is filled) plus 100 per bonus Yahtzee."""
        total = self.entries_total(card)
        if all(card.entries[i] is not None for i in self.upper_boxes):
            total += self.final_bonus(self.tracker_of(card))
        return total

    def scores_so_far(self, state: ScorecardState) -> tuple[int, ...]:
        """Every card's total so far (:meth:`card_total`)."""
        return tuple(self.card_total(card) for card in state.cards)

    def final_score_position(self, state: ScorecardState, seat: int) -> ScorecardState | Card:
        """Each seat plays its own card: the position of the turn in progress for the seat
        on turn, the seat's card (at the start of its next turn) for the others."""
        return state if seat == state.player and not self.is_terminal(state) else state.cards[seat]

    def max_lower_total(self) -> int:
        """Largest possible sum of the lower-box entries (no bonuses), from the score table."""
        return int(sum(self._score_table[b].max() for b in self.lower_boxes))

    # ----- game API -----
    def new_initial_state(self) -> ScorecardState:
        empty = Card(entries=(None,) * len(self.boxes))
        return ScorecardState(cards=(empty,) * self.num_players)

    def current_player(self, state: ScorecardState) -> int:
        if all(card.is_full for card in state.cards):
            return TERMINAL
        if state.dice is None:
            return CHANCE
        return state.player

    def _chance_outcomes(self, state: ScorecardState) -> Iterable[tuple[Dice, float]]:
        return outcome_distribution(NUM_DICE - len(state.kept))

    def _check_outcome(self, state: ScorecardState, outcome: Any) -> None:
        rolled = NUM_DICE - len(state.kept)
        try:
            validate_dice(outcome, rolled)
        except DiceError:
            raise IllegalActionError(f"{self.NAME}: a roll of {rolled} dice is due, got {outcome!r}") from None
        if tuple(outcome) != tuple(sorted(outcome)):
            raise IllegalActionError(f"{self.NAME}: a roll outcome must be sorted, got {outcome!r}")

    def _legal_actions(self, state: ScorecardState) -> list:
        assert state.dice is not None
        keeps: list = []
        if state.throw < MAX_THROWS:
            keeps = [Keep(k) for k in sub_multisets(state.dice) if len(k) < NUM_DICE]
        return keeps + [Fill(self.boxes[b]) for b in self._fillable(state)]

    def _fillable(self, state: ScorecardState) -> list[int]:
        assert state.dice is not None
        return self.allowed_boxes(state.cards[state.player].filled_mask, state.dice)

    def _why_illegal(self, state: ScorecardState, action: Any) -> str:
        """One line naming what is wrong with ``action`` (it is known to be illegal)."""
        assert state.dice is not None
        card = state.cards[state.player]
        if isinstance(action, Keep):
            if state.throw >= MAX_THROWS:
                return f"no throw left after throw {state.throw}: write a box instead of {self.describe_action(action, state)}"
            if not is_sub_multiset(action.dice, state.dice):
                return f"kept dice {dice_list(action.dice)} are not among the dice {dice_list(state.dice)}"
            if len(action.dice) == NUM_DICE:
                return f"keeping all five dice {dice_list(action.dice)} means stopping: write a box instead"
        if isinstance(action, Fill):
            box = self.box_index(action.box)
            label = self.box_label(action.box)
            if card.entries[box] is not None:
                return f"{label} is already filled (with {card.entries[box]})"
            return f"{label} may not be filled now; allowed: {self._labels(self._fillable(state))}"
        return f"{self.describe_action(action, state)} is not a move of {self.spec().title}"

    def _labels(self, boxes: Iterable[int]) -> str:
        return ", ".join(self.box_label(self.boxes[b]) for b in boxes) or "none"

    def _apply(self, state: ScorecardState, action: Any) -> ScorecardState:
        if state.dice is None:  # chance node: the outcome is the rolled dice
            return replace(state, dice=tuple(sorted(state.kept + tuple(action))), kept=(), throw=state.throw + 1)
        if isinstance(action, Keep):
            return replace(state, dice=None, kept=action.dice)
        if isinstance(action, Declare):
            return replace(state, declared=action.box)
        return self._apply_fill(state, self.box_index(action.box))

    def _apply_fill(self, state: ScorecardState, box: int) -> ScorecardState:
        assert state.dice is not None
        card = state.cards[state.player]
        score = self.fill_score(box, state.dice, state.throw == 1, card.filled_mask, self._yahtzee_entry(card))
        entries = card.entries[:box] + (score.entry,) + card.entries[box + 1 :]
        bonuses = card.yahtzee_bonuses + (score.bonus // YAHTZEE_BONUS)
        cards = state.cards[: state.player] + (Card(entries, bonuses),) + state.cards[state.player + 1 :]
        return ScorecardState(cards=cards, player=(state.player + 1) % self.num_players)

    def _yahtzee_entry(self, card: Card) -> int | None:
        return None

    def _returns(self, state: ScorecardState) -> Sequence[float]:
        return tuple(self.card_total(card) for card in state.cards)

    # ----- state checks -----
    def _check_state(self, state: ScorecardState) -> None:
        def bad(why: str) -> InvalidStateError:
            return InvalidStateError(f"{self.NAME}: {why}")

        if not isinstance(state.cards, tuple) or len(state.cards) != self.num_players:
            got = len(state.cards) if isinstance(state.cards, tuple) else type(state.cards).__name__
            raise bad(f"expected {self.num_players} cards, one per seat, got {got}")
        for seat, card in enumerate(state.cards):
            self._check_card(seat, card, bad)
        if isinstance(state.player, bool) or not isinstance(state.player, int) or not 0 <= state.player < self.num_players:
            raise bad(f"player must be in 0..{self.num_players - 1}, got {state.player!r}")
        filled = [card.filled_count for card in state.cards]
        # seats before the one to play have had one more turn this round (HU-3, SK-2)
        expected = [filled[state.player] + (1 if seat < state.player else 0) for seat in range(self.num_players)]
        if filled != expected:
            raise bad(f"cards of seats 0..{self.num_players - 1} hold {filled!r} entries, impossible with seat {state.player!r} to play")
        if isinstance(state.throw, bool) or state.throw not in range(MAX_THROWS + 1):
            raise bad(f"throw must be in 0..{MAX_THROWS}, got {state.throw!r}")
        try:
            kept = validate_dice(state.kept, what="kept dice")
        except DiceError as exc:
            raise bad(str(exc)) from None
        if kept != state.kept:
            raise bad(f"kept dice must be a sorted tuple, got {state.kept!r}")
        if all(card.is_full for card in state.cards):
            if state != ScorecardState(cards=state.cards):
                raise bad(f"a finished game has no turn in progress, got throw {state.throw!r}, dice {state.dice}")
            return
        if state.dice is None:
            if state.throw >= MAX_THROWS:
                raise bad(f"no roll can follow throw {state.throw!r}")
            if len(kept) >= NUM_DICE or (state.throw == 0 and kept):
                raise bad(f"kept dice {list(kept)!r} impossible before throw {state.throw + 1!r}")
        else:
            try:
                dice = validate_dice(state.dice, NUM_DICE)
            except DiceError as exc:
                raise bad(str(exc)) from None
            if dice != state.dice:
                raise bad(f"dice must be a sorted tuple, got {state.dice!r}")
            if state.throw == 0 or kept:
                raise bad(f"dice {list(dice)!r} on the table need throw >= 1 and no kept dice, got throw {state.throw!r}, kept {list(kept)!r}")
        self._check_declared(state, bad)

    def _check_card(self, seat: int, card: Card, bad: Callable[[str], InvalidStateError]) -> None:
        if not isinstance(card, Card) or not isinstance(card.entries, tuple) or len(card.entries) != len(self.boxes):
            got = len(card.entries) if isinstance(card, Card) and isinstance(card.entries, tuple) else type(card).__name__
            raise bad(f"the card of seat {seat} must have {len(self.boxes)} entries, got {got}")
        for b, (name, entry) in enumerate(zip(self.boxes, card.entries)):
            if entry is None:
                continue
            if isinstance(entry, bool) or not isinstance(entry, int) or entry not in self._possible_entries_of(b):
                raise bad(f"seat {seat}: {entry!r} is not a possible entry of {self.box_label(name)}")
        if isinstance(card.yahtzee_bonuses, bool) or not isinstance(card.yahtzee_bonuses, int) or card.yahtzee_bonuses < 0:
            raise bad(f"seat {seat}: yahtzee_bonuses must be a count, got {card.yahtzee_bonuses!r}")
        if card.yahtzee_bonuses > self._max_yahtzee_bonuses(card):
            raise bad(f"seat {seat}: {card.yahtzee_bonuses!r} bonus Yahtzees are impossible on this card")

    def _max_yahtzee_bonuses(self, card: Card) -> int:
        return 0

    def _check_declared(self, state: ScorecardState, bad: Callable[[str], InvalidStateError]) -> None:
        if state.declared is not None:
            raise bad(f"{self.spec().title} has no declared box, got {state.declared!r}")

    # ----- JSON -----
    def _state_fields(self, state: ScorecardState) -> Mapping[str, Any]:
        return {
            "cards": [
                {"entries": dict(zip(self.boxes, card.entries)), "yahtzee_bonuses": card.yahtzee_bonuses}
                for card in state.cards
            ],
            "player": state.player,
            "throw": state.throw,
            "dice": state.dice,
            "kept": state.kept,
            "declared": state.declared,
        }

    def _state_from_fields(self, fields: Mapping[str, Any]) -> ScorecardState:
        unknown = set(fields) - {"cards", "player", "throw", "dice", "kept", "declared"}
        if unknown:
            raise InvalidStateError(f"{self.NAME}: unknown state field(s) {sorted(unknown)!r}")
        cards = []
        for doc in fields["cards"]:
            entries = doc["entries"]
            if set(entries) != set(self.boxes):
                raise InvalidStateError(f"{self.NAME}: card entries must name the boxes {list(self.boxes)!r}, got {sorted(entries)!r}")
            cards.append(Card(tuple(entries[b] for b in self.boxes), doc.get("yahtzee_bonuses", 0)))
        dice = fields.get("dice")
        return ScorecardState(
            cards=tuple(cards),
            player=fields["player"],
            throw=fields["throw"],
            dice=None if dice is None else tuple(dice),
            kept=tuple(fields.get("kept", ())),
            declared=fields.get("declared"),
        )

    def describe_state(self, state: ScorecardState) -> str:
        dice = "none yet" if state.dice is None else dice_list(state.dice)
        kept = f", kept {dice_list(state.kept)}" if state.kept else ""
        declared = f", declared {self.box_label(state.declared)}" if state.declared else ""
        return f"seat {state.player}, throw {state.throw} of {MAX_THROWS}, dice {dice}{kept}{declared}"


class _NetUpperGame(ScorecardGame):
    """HU and SK: face entries (c - 3) x f; the tracker is the net upper score + 3*S."""

    def _tracker_offset(self) -> int:
        return 3 * self.upper_face_sum

    def _tracker_cap(self) -> int:
        return 5 * self.upper_face_sum

    def net_upper(self, tracker: int) -> int:
        """Net upper score of a tracker value."""
        return tracker - self._tracker_offset()


class HungarianGame(_NetUpperGame):
    """Hungarian kockapóker scorecard game, HU-1..HU-9 (one or more players).

    15 boxes: six face boxes (the house) and nine lower boxes (HU-1, HU-6). Three throws
    (HU-2), any open box (HU-3, HU-4), face entries (c - 3) x f (HU-5), house 63 + net or
    0 / net (HU-7, option ``house_negative``), total = house + lower entries (HU-8).
    """

    NAME = "kockapoker"
    RULES = HungarianRules

    def _box_scorers(self) -> Mapping[str, Scorer]:
        return {
            **_face_boxes(net_face_entry),
            **combination_scorers(self.rules.same_face_groups == "yes"),
            "five_kind": _fixed_value(50, is_five_of_a_kind),
        }

    def final_bonus(self, tracker: int) -> int:
        """HU-7: house minus net = 63 if net >= 0; else -net (house 0) or 0 (house = net)."""
        net = self.net_upper(tracker)
        if net >= 0:
            return UPPER_BONUS_THRESHOLD
        return -net if self.rules.house_negative == "zero" else 0

    def house(self, card: Card) -> int:
        """HU-7: the house score of a card whose face boxes are all filled."""
        net = self.net_upper(self.tracker_of(card))
        return net + self.final_bonus(self.tracker_of(card))


class SlovakGame(_NetUpperGame):
    """Slovak kockový poker (yatzi), SK-1..SK-11 (1..4 players; SK-1 says 2..4, one is
    accepted for analysis).

    Part 1 (face boxes, (c - 3) x f, SK-4) comes first unless ``part_order = free`` (SK-3);
    +50 if the net is >= 0 (SK-5); part 2 scores the dice forming the combination (SK-6),
    doubled from the first throw except chance (SK-7), poker +50 flat or doubled (SK-8);
    a box that does not fit takes a dash, 0 (SK-9).

    ``part1_choice = declare_after_first_throw``: after the first throw of a turn the
    player declares a face box with :class:`Declare` and must fill that box at the end of
    the turn. While part 1 must come first the declaration is compulsory. With
    ``part_order = free`` it is optional (**decided** here, the options combined): a player
    who keeps or fills without declaring cannot fill a face box this turn; if only face
    boxes are open he must declare.
    """

    NAME = "slovak"
    RULES = SlovakRules
    ACTIONS = (Keep, Fill, Declare)
    PART1_BONUS = 50
    POKER_BONUS = 50

    def _box_scorers(self) -> Mapping[str, Scorer]:
        return {**_face_boxes(net_face_entry), **combination_scorers(self.rules.same_face_groups == "yes")}

    def box_score(self, box: int, dice: Sequence[int], first_throw: bool = False) -> int:
        """SK-4, SK-6..SK-9: the combination value, doubled from the first throw (part 2,
        not chance); a poker adds 50, doubled too only under ``poker_bonus = doubled``."""
        value = super().box_score(box, dice, first_throw)
        name = self.boxes[box]
        if name in FACE_OF_BOX or name == "chance":
            return value
        bonus = self.POKER_BONUS if name == "poker" and value else 0
        if first_throw:
            value *= 2
            if self.rules.poker_bonus == "doubled":
                bonus *= 2
        return value + bonus

    def final_bonus(self, tracker: int) -> int:
        """SK-5: +50 when the part 1 sum is 0 or more; no penalty."""
        return self.PART1_BONUS if self.net_upper(tracker) >= 0 else 0

    def settlement(self, state: ScorecardState) -> tuple[Fraction, ...]:
        """SK-11: each player's result at the end of the game, his total minus the mean of
        all players' totals, exact (they sum to 0; RULES.md displays them rounded to two
        decimals). The returns stay the totals (SK-10), which rank the players alike."""
        if not self.is_terminal(state):
            raise IllegalActionError(f"{self.NAME}: the settlement is made only at the end of the game (SK-11)")
        return slovak_settlement([self.card_total(card) for card in state.cards])

    def in_part1(self, filled_mask: int) -> bool:
        """True while part 1 must be played (``part_order = part1_first`` and a face box open)."""
        return self.rules.part_order == "part1_first" and any(not filled_mask >> b & 1 for b in self.upper_boxes)

    def allowed_boxes(self, filled_mask: int, dice: Sequence[int] | None = None) -> list[int]:
        """SK-3: only the open face boxes while part 1 lasts; then (or under ``free``) all
        open boxes."""
        open_boxes = super().allowed_boxes(filled_mask)
        if self.in_part1(filled_mask):
            return [b for b in open_boxes if b in self.upper_boxes]
        return open_boxes

    @property
    def declares(self) -> bool:
        """Whether the face box is declared after the first throw (SK-3, ``part1_choice``)."""
        return self.rules.part1_choice == "declare_after_first_throw"

    def box_groups(self, filled_mask: int) -> list[int]:
        """SK-3: under ``declare_after_first_throw`` each face box that may be filled is a
        group of its own (it is declared after the first throw), and the other boxes that
        may be filled one more group; otherwise the one group of all of them."""
        if not self.declares:
            return super().box_groups(filled_mask)
        allowed = self.allowed_boxes(filled_mask)
        rest = bits_of(b for b in allowed if b not in self.upper_boxes)
        return [1 << b for b in allowed if b in self.upper_boxes] + ([rest] if rest else [])

    def turn_boxes(self, state: ScorecardState) -> list[int]:
        """SK-3: under ``declare_after_first_throw`` the declared face box; before a
        declaration the boxes that are not face boxes (a turn played without declaring
        cannot fill one)."""
        allowed = super().turn_boxes(state)
        if not self.declares:
            return allowed
        if state.declared is not None:
            return [self.box_index(state.declared)]
        return [b for b in allowed if b not in self.upper_boxes]

    def _fillable(self, state: ScorecardState) -> list[int]:
        return self.turn_boxes(state)  # the Slovak boxes do not depend on the dice

    def _legal_actions(self, state: ScorecardState) -> list:
        if not (self.declares and state.throw == 1 and state.declared is None):
            return super()._legal_actions(state)
        mask = state.cards[state.player].filled_mask
        allowed = self.allowed_boxes(mask)
        declarations = [Declare(self.boxes[b]) for b in allowed if b in self.upper_boxes]
        if not any(b not in self.upper_boxes for b in allowed):
            return declarations  # only face boxes are open: declaring is compulsory
        return declarations + super()._legal_actions(state)

    def _why_illegal(self, state: ScorecardState, action: Any) -> str:
        text = self.describe_action(action, state)
        if isinstance(action, Declare):
            if not self.declares:
                return f"{text}: face boxes are declared only under the option sk.part1_choice = declare_after_first_throw (SK-3)"
            if state.throw != 1 or state.declared is not None:
                return f"a face box is declared once, right after the first throw; cannot {text} at throw {state.throw} (SK-3)"
            return f"{self.box_label(action.box)} is not an open face box to declare (SK-3)"
        if self.declares and state.throw == 1 and state.declared is None and self._must_declare(state):
            return f"declare a face box first: only face boxes are left, and {text} comes after the declaration (SK-3)"
        if isinstance(action, Fill) and self.declares and action.box in FACE_OF_BOX and state.declared != action.box:
            declared = self.box_label(state.declared) if state.declared else "none"
            return f"{self.box_label(action.box)} was not declared after the first throw; declared: {declared} (SK-3)"
        if isinstance(action, Fill) and action.box in self._index and self.in_part1(state.cards[state.player].filled_mask):
            if self.box_index(action.box) in self.lower_boxes:
                return (f"{self.box_label(action.box)} may not be filled before part 1 is complete; "
                        f"allowed: {self._labels(self._fillable(state))} (SK-3)")
        return super()._why_illegal(state, action)

    def _must_declare(self, state: ScorecardState) -> bool:
        allowed = self.allowed_boxes(state.cards[state.player].filled_mask)
        return not any(b not in self.upper_boxes for b in allowed)

    def _check_declared(self, state: ScorecardState, bad: Callable[[str], InvalidStateError]) -> None:
        if state.declared is None:
            undecided_past_first_throw = state.throw > 1 or (state.throw == 1 and state.dice is None)
            if self.declares and undecided_past_first_throw and self._must_declare(state):
                raise bad(f"throw {state.throw} in part 1 without a declared face box")
            return
        if not self.declares:
            raise bad(f"declared box {state.declared!r} needs part1_choice 'declare_after_first_throw'")
        if state.declared not in FACE_OF_BOX or state.declared not in self._index:
            raise bad(f"declared box must be a face box on the card, got {state.declared!r}")
        box = self._index[state.declared]
        if box not in self.allowed_boxes(state.cards[state.player].filled_mask):
            raise bad(f"declared box {state.declared!r} is not an open box that may be filled now")
        if state.throw == 0:
            raise bad(f"box {state.declared!r} declared before the first throw")

    def _check_card(self, seat: int, card: Card, bad: Callable[[str], InvalidStateError]) -> None:
        super()._check_card(seat, card, bad)
        mask = card.filled_mask
        if self.in_part1(mask) and any(mask >> b & 1 for b in self.lower_boxes):
            raise bad(f"seat {seat}: a part 2 box is filled before part 1 is complete (SK-3)")


class YahtzeeGame(ScorecardGame):
    """Standard Yahtzee (13 boxes), a validation variant (PUBLISHED.md); the bonus Yahtzee
    and joker rules are described in the module docstring."""

    NAME = "yahtzee"
    RULES = YahtzeeRules
    UPPER_BONUS = 35
    JOKER_VALUES = {"full_house": 25, "small_straight": 30, "large_straight": 40}

    def _box_scorers(self) -> Mapping[str, Scorer]:
        def of_a_kind_sum(size: int) -> Scorer:
            """Yahtzee kinds score all five dice, not just the group."""
            return lambda c: dice_sum(c) if max(c) >= size else 0

        return {
            **_face_boxes(face_sum),
            "three_kind": of_a_kind_sum(3),
            "four_kind": of_a_kind_sum(4),
            "full_house": _fixed_value(25, partial(is_full_house, same_face=False)),
            "small_straight": _fixed_value(30, lambda c: longest_run(c) >= 4),
            "large_straight": _fixed_value(40, lambda c: longest_run(c) == 5),
            "yahtzee": _fixed_value(50, is_five_of_a_kind),
            "chance": dice_sum,
        }

    def _tracker_cap(self) -> int:
        return min(UPPER_BONUS_THRESHOLD, 5 * self.upper_face_sum)

    def final_bonus(self, tracker: int) -> int:
        """35 once the upper total reaches 63."""
        return self.UPPER_BONUS if tracker >= UPPER_BONUS_THRESHOLD else 0

    @property
    def yahtzee_box(self) -> int | None:
        """Index of the Yahtzee box, None on a card without it."""
        return self._index.get("yahtzee")

    def is_bonus_yahtzee(self, dice: Sequence[int], filled_mask: int) -> bool:
        """Five of a kind with the Yahtzee box already filled (and ``yahtzee_bonus`` on)."""
        box = self.yahtzee_box
        return (
            self.rules.yahtzee_bonus
            and box is not None
            and bool(filled_mask >> box & 1)
            and len(set(validate_dice(dice, NUM_DICE))) == 1
        )

    def is_joker(self, dice: Sequence[int], filled_mask: int) -> bool:
        """A bonus Yahtzee whose face box is filled (or not on the card): it may score
        25 / 30 / 40 as full house / small / large straight."""
        if not self.is_bonus_yahtzee(dice, filled_mask):
            return False
        face_box = self._index.get(FACE_BOXES[dice[0] - 1])
        return face_box is None or bool(filled_mask >> face_box & 1)

    def joker_score(self, box: int, dice: Sequence[int], filled_mask: int) -> int:
        """The entry written into ``box``: the joker value for full house / small / large
        straight when :meth:`is_joker`, else :meth:`box_score`."""
        if self.boxes[box] in self.JOKER_VALUES and self.is_joker(dice, filled_mask):
            return self.JOKER_VALUES[self.boxes[box]]
        return self.box_score(box, dice)

    def yahtzee_bonus(self, dice: Sequence[int], filled_mask: int, yahtzee_box_value: int | None) -> int:
        """+100 for a bonus Yahtzee when the Yahtzee box holds 50, else 0."""
        if yahtzee_box_value == 50 and self.is_bonus_yahtzee(dice, filled_mask):
            return YAHTZEE_BONUS
        return 0

    def fill_score(
        self,
        box: int,
        dice: Sequence[int],
        first_throw: bool,
        filled_mask: int = 0,
        yahtzee_box_value: int | None = None,
    ) -> FillScore:
        return FillScore(self.joker_score(box, dice, filled_mask), self.yahtzee_bonus(dice, filled_mask, yahtzee_box_value))

    def allowed_boxes(self, filled_mask: int, dice: Sequence[int] | None = None) -> list[int]:
        """All open boxes; with ``joker = forced`` a bonus Yahtzee must go to its open face
        box, else to an open lower box, else to an open face box."""
        open_boxes = super().allowed_boxes(filled_mask)
        if self.rules.joker != "forced" or dice is None or not self.is_bonus_yahtzee(dice, filled_mask):
            return open_boxes
        face_box = self._index.get(FACE_BOXES[dice[0] - 1])
        if face_box in open_boxes:
            return [face_box]
        lower = [b for b in open_boxes if b in self.lower_boxes]
        return lower or open_boxes

    def _yahtzee_entry(self, card: Card) -> int | None:
        box = self.yahtzee_box
        return None if box is None else card.entries[box]

    def _max_yahtzee_bonuses(self, card: Card) -> int:
        if not self.rules.yahtzee_bonus or self._yahtzee_entry(card) != 50:
            return 0
        return card.filled_count - 1


class YatzyGame(ScorecardGame):
    """Scandinavian Yatzy (15 boxes), a validation variant (PUBLISHED.md): pairs and kinds
    score the dice forming them, straights 1-5 = 15 and 2-6 = 20, full house the sum (two
    different faces, as two pairs), yatzy 50, upper bonus 50 at 63; the house rules of
    :class:`YatzyRules` change the full house, the two pairs and the order of the boxes."""

    NAME = "yatzy"
    RULES = YatzyRules
    UPPER_BONUS = 50

    def _box_scorers(self) -> Mapping[str, Scorer]:
        """Pairs, kinds, straights, full house and chance as HU/SK with two pairs and full
        house of different faces (``same_face = False``) unless the house rules say
        otherwise; yatzy a fixed 50."""
        rules = self.rules
        scorers = {
            **_face_boxes(face_sum),
            **combination_scorers(same_face=False),
            "yatzy": _fixed_value(50, is_five_of_a_kind),
        }
        if rules.five_kind_full_house == "yes":
            scorers["full_house"] = partial(full_house, same_face=True)
        scorers["two_pairs"] = partial(
            _yatzy_two_pairs, four_kind=rules.four_kind_two_pairs == "yes", single=rules.single_pair_two_pairs == "yes")
        return scorers

    def allowed_boxes(self, filled_mask: int, dice: Sequence[int] | None = None) -> list[int]:
        """All open boxes; under ``order = forced`` only the first open box in card order."""
        open_boxes = super().allowed_boxes(filled_mask)
        return open_boxes[:1] if self.rules.order == "forced" else open_boxes

    def _tracker_cap(self) -> int:
        return min(UPPER_BONUS_THRESHOLD, 5 * self.upper_face_sum)

    def final_bonus(self, tracker: int) -> int:
        """50 once the upper total reaches 63."""
        return self.UPPER_BONUS if tracker >= UPPER_BONUS_THRESHOLD else 0


def _yatzy_two_pairs(c: Counts, four_kind: bool, single: bool) -> int:
    """Yatzy's two pairs: two pairs of different faces, 2a + 2b; with ``four_kind`` four of
    a kind too, for 4 x the face (+tp4); with ``single`` the highest pair alone, 2 x the
    face, when there is no second pair (+tp1)."""
    best = two_pairs(c, same_face=four_kind)
    if single and not best:
        best = 2 * highest_group(c, 2)
    return best


def slovak_settlement(totals: Sequence[int]) -> tuple[Fraction, ...]:
    """SK-11: each player's total minus the mean of all totals, exact (they sum to 0)."""
    values = list(totals)
    if not values or any(isinstance(t, bool) or not isinstance(t, int) for t in values):
        raise InvalidStateError(f"settlement needs one integer total per player, got {totals!r}")
    mean = Fraction(sum(values), len(values))
    return tuple(Fraction(t) - mean for t in values)


__all__ = [
    "Card", "Declare", "Fill", "FillScore", "HungarianGame", "HungarianRules", "Keep",
    "ScorecardGame", "ScorecardState", "SlovakGame", "SlovakRules", "YahtzeeGame",
    "YahtzeeRules", "YatzyGame", "YatzyRules", "slovak_settlement",
]  # fmt: skip


# ----------------------------------------------------------------------------------------
# The four scorecard games' specs (kocka.solver.rules.spec)
# ----------------------------------------------------------------------------------------
_SCORECARD_TABLES = (TableKind("ev", "kocka.solver.solvers.scorecard.values:SCORECARD_EV"),
                     TableKind("target", "kocka.solver.solvers.scorecard.target:SCORECARD_TARGET"))
_SCORECARD_AGENTS = (
    AgentEntry("optimal", "kocka.agents.bots.catalogue:scorecard_optimal",
               "plays the best action from the game's exact table (expected final score)"),
    AgentEntry("heuristic", "kocka.agents.bots.heuristic:scorecard_heuristic",
               "a human-like rule set: chases the most valuable open box (kocka.agents.bots.heuristic)"),
    AgentEntry("target", "kocka.agents.bots.target_agents:target_factory",
               "maximises P(final total >= T), T the optimal expected score rounded up (target table)"),
    AgentEntry("winner", "kocka.agents.bots.target_agents:winner_factory",
               "maximises P(finishing first) against the other players' cards (target table; 2+ players)"),
)
_SCORECARD_FRONT = dict(hint="kocka.agents.advice.cards:scorecard_hint",
                        hint_parameters="kocka.agents.advice.cards:ScorecardHintParams", view="kocka.agents.frontends.games.play:render_scorecard",
                        tables=_SCORECARD_TABLES, agents=_SCORECARD_AGENTS, judges=("optimal",),
                        distribution="kocka.solver.solvers.scorecard.values:score_distribution",
                        companion="kocka.agents.advice.table_talk:SCORECARD_TALK")

HUNGARIAN_WORDS = Words("hu", {
    "ones": "1-esek", "twos": "2-esek", "threes": "3-asok", "fours": "4-esek", "fives": "5-ösök", "sixes": "6-osok",
    "chance": "szemét", "pair": "pár", "three_kind": "drill", "two_pairs": "2 pár", "four_kind": "kis póker",
    "full_house": "full", "small_straight": "kis sor", "large_straight": "nagy sor", "five_kind": "nagy póker",
})  # fmt: skip
"""The Hungarian names of the kockapóker boxes (HU-1), also the chip-bidding game's."""

register_game(GameSpec(
    name="kockapoker", title="Hungarian kockapóker", engine=HungarianGame, players=(1, 6), words=HUNGARIAN_WORDS,
    **_SCORECARD_FRONT,
))
register_game(GameSpec(
    name="slovak", title="Slovak kockový poker (yatzi)", engine=SlovakGame, players=(1, 4),
    words=Words("sk", {
        "ones": "jednotky", "twos": "dvojky", "threes": "trojky", "fours": "štvorky", "fives": "päťky",
        "sixes": "šestky", "pair": "pár", "two_pairs": "dva páry", "three_kind": "trojica",
        "small_straight": "malá postupka", "large_straight": "veľká postupka", "full_house": "full house",
        "four_kind": "štvorica", "poker": "poker", "chance": "šanca",
    }),
    **_SCORECARD_FRONT,
))  # fmt: skip
register_game(GameSpec(
    name="yahtzee", title="Yahtzee (validation variant)", engine=YahtzeeGame, players=(1, 6),
    words=Words("en", {
        "ones": "Aces", "twos": "Twos", "threes": "Threes", "fours": "Fours", "fives": "Fives", "sixes": "Sixes",
        "three_kind": "3 of a kind", "four_kind": "4 of a kind", "full_house": "Full House",
        "small_straight": "Sm. Straight", "large_straight": "Lg. Straight", "yahtzee": "YAHTZEE", "chance": "Chance",
    }),
    **_SCORECARD_FRONT,
))  # fmt: skip
register_game(GameSpec(
    name="yatzy", title="Scandinavian Yatzy (validation variant)", engine=YatzyGame, players=(1, 6),
    words=Words("en", {
        "ones": "Ones", "twos": "Twos", "threes": "Threes", "fours": "Fours", "fives": "Fives", "sixes": "Sixes",
        "pair": "One Pair", "two_pairs": "Two Pairs", "three_kind": "Three of a Kind", "four_kind": "Four of a Kind",
        "small_straight": "Small Straight", "large_straight": "Large Straight", "full_house": "Full House",
        "chance": "Chance", "yatzy": "Yatzy",
    }),
    **_SCORECARD_FRONT,
))  # fmt: skip
