"""The engine common to the five-dice scorecard games (:mod:`kocka.solver.rules.scorecard`):
cards, positions and actions, the scoring layer solvers build their tables from, and the
state machine of a turn. The four games' rules options, their own scoring and their
engines are in :mod:`kocka.solver.rules.scorecard`, which registers them.

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

**State machine.** A turn is: roll 5 dice (a chance node), then up to two Keep decisions each
followed by a roll of the other dice, then one Fill. ``throw`` counts the throws made this
turn (0..3); a state with ``dice is None`` is a chance node that rolls ``5 - len(kept)`` dice,
and the chance outcome is the sorted tuple of the rolled dice. Keeping all five dice is not a
Keep: stopping is simply filling a box (HU-2). Under SK ``part1_choice =
declare_after_first_throw`` the face box is declared after the first throw (SK-3, the
option) with a Declare action; see :class:`~kocka.solver.rules.scorecard.SlovakGame`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Hashable, Callable, ClassVar, Iterable, Mapping, NamedTuple, Sequence

import numpy as np

from kocka.solver.base.dice import (
    Dice, all_outcomes, counts, is_sub_multiset, outcome_distribution, sub_multisets, validate_dice,
)
from kocka.solver.kernels.dice_transitions import dice_tables  # noqa: F401  (named by the docstrings)
from kocka.solver.base.errors import DiceError, IllegalActionError, InvalidStateError, Reason, RulesError, shown
from kocka.solver.base.i18n import N_, _, ngettext
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, Rules, TurnProgress
from kocka.solver.rules.five_dice import FACE_OF_BOX, NUM_DICE, Keep, Scorer, bits_of, card_entries, dice_list
from kocka.solver.rules.words import seat_label

MAX_THROWS = 3
UPPER_BONUS_THRESHOLD = 63
"""Yahtzee/Yatzy upper bonus threshold; also 3 x (1+...+6), the HU house base (HU-7)."""
YAHTZEE_BONUS = 100


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
    NET_UPPER: ClassVar[bool] = False
    """Whether face entries count net of three of each face (HU, SK): the upper section
    then shows a signed net score, else a plain sum."""

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
            raise IllegalActionError(_("there is no box {name} on this card; the boxes are {boxes}",
                                     name=shown(name), boxes=self._boxes_text())) from None

    def _boxes_text(self) -> str:
        return ", ".join(self.box_label(b) for b in self.boxes)

    def upper_face(self, box: int) -> int:
        """The face (1..6) of face box ``box``."""
        self._check_box(box)
        if box not in self.upper_boxes:
            raise RulesError(_("{box} is not a face box", box=self.box_label(self.boxes[box])))
        return FACE_OF_BOX[self.boxes[box]]

    def _check_box(self, box: int) -> None:
        if isinstance(box, bool) or not isinstance(box, int) or not 0 <= box < len(self.boxes):
            raise RulesError(_("a box number is from 0 to {last}, not {value}", last=len(self.boxes) - 1, value=shown(box)))

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

    def action_box(self, action: Any) -> str | None:
        """The box a :class:`Fill` writes or a :class:`Declare` names."""
        return action.box if isinstance(action, (Fill, Declare)) else None

    def box_points(self, box: str, dice: Sequence[int], first_throw: bool = False) -> int:
        """:meth:`box_score` by box id (the box-name form of the Game API)."""
        if box not in self._index:
            raise RulesError(_("there is no box {name} on this card; the boxes are {boxes}",
                                name=shown(box), boxes=self._boxes_text()))
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
            raise InvalidStateError(_("a card gives each box its entry, not {value}", value=shown(entries)))
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

    def card_totals(self, state: ScorecardState) -> list[dict]:
        """The upper section, its bonus as it stands (HU-7: the house's 63 while net >= 0;
        SK-5; the Yahtzee and Yatzy bonus: :meth:`final_bonus`) and the total, per card."""
        out = []
        for card in state.cards:
            upper = sum(card.entries[i] or 0 for i in self.upper_boxes)
            bonus = self.final_bonus(self.tracker_of(card))
            out.append({"upper": upper, "bonus": bonus, "total": self.entries_total(card) + bonus})
        return out

    def turn_progress(self, state: ScorecardState) -> TurnProgress:
        """Throw ``throw`` of the turn's three (HU-2)."""
        return TurnProgress(state.throw, MAX_THROWS)

    def dice_in_view(self, state: ScorecardState) -> Dice | None:
        """The five dice of the last throw (None before the turn's first, HU-2)."""
        return state.dice

    def dice_kept(self, state: ScorecardState) -> Dice:
        """The dice kept for the throw due (HU-2)."""
        return state.kept

    def declared_box(self, state: ScorecardState) -> str | None:
        """The face box declared after the first throw (SK-3); None elsewhere."""
        return state.declared

    def box_scores_now(self, state: ScorecardState) -> dict[str, int]:
        """Each box a :class:`Fill` may write now: its entry plus the bonus it earns, as
        writing it would count them (:meth:`_fill_score`)."""
        out = {}
        for action in self.legal_actions(state):
            if isinstance(action, Fill):
                score = self._fill_score(state, self.box_index(action.box))
                out[action.box] = score.entry + score.bonus
        return out

    def keep_action(self, state: ScorecardState, dice: tuple[int, ...]) -> Keep:
        """A :class:`Keep` of ``dice`` (HU-2)."""
        return Keep(dice)

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
            raise IllegalActionError(ngettext("a roll of {n} die is due, not {dice}", "a roll of {n} dice is due, not {dice}",
                                              rolled, dice=shown(outcome))) from None
        if tuple(outcome) != tuple(sorted(outcome)):
            raise IllegalActionError(_("a roll must list its dice from low to high, not {dice}", dice=shown(outcome)))

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
                return Reason(_("no throw is left after throw {throw}: write a box instead of {action}",
                                throw=state.throw, action=self.describe_action(action, state)))
            if not is_sub_multiset(action.dice, state.dice):
                return Reason(_("the kept dice {kept} are not among the dice {dice}",
                                kept=dice_list(action.dice), dice=dice_list(state.dice)))
            if len(action.dice) == NUM_DICE:
                return Reason(_("keeping all five dice {dice} means stopping: write a box instead", dice=dice_list(action.dice)))
        if isinstance(action, Fill):
            box = self.box_index(action.box)
            label = self.box_label(action.box)
            if card.entries[box] is not None:
                return Reason(_("{box} is already written, with {entry}; open boxes: {allowed}",
                                box=label, entry=card.entries[box], allowed=self._labels(self._fillable(state))))
            return Reason(_("{box} may not be written now; open boxes: {allowed}",
                            box=label, allowed=self._labels(self._fillable(state))))
        return Reason(_("{action} is not a move of this game", action=shown(self.describe_action(action, state))))

    def _labels(self, boxes: Iterable[int]) -> str:
        return ", ".join(self.box_label(self.boxes[b]) for b in boxes) or _("none")

    def _apply(self, state: ScorecardState, action: Any) -> ScorecardState:
        if state.dice is None:  # chance node: the outcome is the rolled dice
            return replace(state, dice=tuple(sorted(state.kept + tuple(action))), kept=(), throw=state.throw + 1)
        if isinstance(action, Keep):
            return replace(state, dice=None, kept=action.dice)
        if isinstance(action, Declare):
            return replace(state, declared=action.box)
        return self._apply_fill(state, self.box_index(action.box))

    def _fill_score(self, state: ScorecardState, box: int) -> FillScore:
        """What writing the dice of ``state`` into ``box`` scores on the card of the player
        on turn (first-throw rules, Yahtzee's joker and bonus included)."""
        assert state.dice is not None
        card = state.cards[state.player]
        return self.fill_score(box, state.dice, state.throw == 1, card.filled_mask, self._yahtzee_entry(card))

    def _apply_fill(self, state: ScorecardState, box: int) -> ScorecardState:
        card = state.cards[state.player]
        score = self._fill_score(state, box)
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
        def bad(why: str, rule: str | None = None) -> InvalidStateError:
            return InvalidStateError(why, rule=rule)

        if not isinstance(state.cards, tuple) or len(state.cards) != self.num_players:
            got = len(state.cards) if isinstance(state.cards, tuple) else _("nothing") if state.cards is None else shown(state.cards)
            raise bad(ngettext("there must be {n} card, one per player, not {value}",
                                "there must be {n} cards, one per player, not {value}", self.num_players, value=shown(got)))
        for seat, card in enumerate(state.cards):
            self._check_card(seat, card, bad)
        if isinstance(state.player, bool) or not isinstance(state.player, int) or not 0 <= state.player < self.num_players:
            raise bad(_("the player to move must be one of the {count} players, not {value}",
                         count=self.num_players, value=shown(state.player)))
        filled = [card.filled_count for card in state.cards]
        # seats before the one to play have had one more turn this round (HU-3, SK-2)
        expected = [filled[state.player] + (1 if seat < state.player else 0) for seat in range(self.num_players)]
        if filled != expected:
            raise bad(_("the cards hold {filled} entries, which is impossible with {player} to play: "
                         "each player writes one box per turn, in seat order", filled=shown(filled),
                         player=seat_label(state.player)), "HU-3, SK-2")
        if isinstance(state.throw, bool) or state.throw not in range(MAX_THROWS + 1):
            raise bad(_("the throw must be from 0 to {most}, not {value}", most=MAX_THROWS, value=shown(state.throw)))
        try:
            kept = validate_dice(state.kept, what=N_("the kept dice"))
        except DiceError as exc:
            raise bad(str(exc)) from None
        if kept != state.kept:
            raise bad(_("the kept dice must be listed from low to high, not {dice}", dice=shown(state.kept)))
        if all(card.is_full for card in state.cards):
            if state != ScorecardState(cards=state.cards):
                raise bad(_("every card is full, so no turn can be in progress"))
            return
        if state.dice is None:
            if state.throw >= MAX_THROWS:
                raise bad(_("no roll can follow throw {throw}", throw=state.throw))
            if len(kept) >= NUM_DICE or (state.throw == 0 and kept):
                raise bad(_("the kept dice {dice} are impossible before throw {throw}", dice=shown(kept) or _("nothing"),
                             throw=state.throw + 1))
        else:
            try:
                dice = validate_dice(state.dice, NUM_DICE)
            except DiceError as exc:
                raise bad(str(exc)) from None
            if dice != state.dice:
                raise bad(_("the dice must be listed from low to high, not {dice}", dice=shown(state.dice)))
            if state.throw == 0 or kept:
                raise bad(_("dice on the table come from a throw, with no dice kept aside"))
        self._check_declared(state, bad)

    def _check_card(self, seat: int, card: Card, bad: Callable[..., InvalidStateError]) -> None:
        if not isinstance(card, Card) or not isinstance(card.entries, tuple) or len(card.entries) != len(self.boxes):
            got = len(card.entries) if isinstance(card, Card) and isinstance(card.entries, tuple) else _("nothing")
            raise bad(_("the card of {player} must have {count} boxes, not {value}", player=seat_label(seat),
                         count=len(self.boxes), value=shown(got)))
        for b, (name, entry) in enumerate(zip(self.boxes, card.entries)):
            if entry is None:
                continue
            if isinstance(entry, bool) or not isinstance(entry, int) or entry not in self._possible_entries_of(b):
                raise bad(_("{value} cannot be written in {box} on the card of {player}", value=shown(entry),
                             box=self.box_label(name), player=seat_label(seat)))
        if isinstance(card.yahtzee_bonuses, bool) or not isinstance(card.yahtzee_bonuses, int) or card.yahtzee_bonuses < 0:
            raise bad(_("the Yahtzee bonuses of {player} must be a count, not {value}", player=seat_label(seat),
                         value=shown(card.yahtzee_bonuses)))
        if card.yahtzee_bonuses > self._max_yahtzee_bonuses(card):
            raise bad(_("{count} bonus Yahtzees are impossible on the card of {player}", count=card.yahtzee_bonuses,
                         player=seat_label(seat)))

    def _max_yahtzee_bonuses(self, card: Card) -> int:
        return 0

    def _check_declared(self, state: ScorecardState, bad: Callable[..., InvalidStateError]) -> None:
        if state.declared is not None:
            raise bad(_("boxes are not declared in this game"))

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
            raise InvalidStateError(_("the state has no field {fields}", fields=", ".join(sorted(map(str, unknown)))))
        cards = []
        for doc in fields["cards"]:
            entries = doc["entries"]
            if set(entries) != set(self.boxes):
                raise InvalidStateError(_("a card must give the boxes {boxes}, not {value}", boxes=", ".join(self.boxes),
                                                 value=", ".join(sorted(map(str, entries)))))
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
        """The position in one sentence, in the language in force: who is on turn, which
        throw, the dice, the dice kept and the box declared."""
        parts = [seat_label(state.player)] + ([self.turn_progress(state).throw_text()] if state.throw else [])
        parts += [_("no dice thrown yet") if state.dice is None else _("dice {dice}", dice=dice_list(state.dice))]
        if state.kept:
            parts.append(_("kept {dice}", dice=dice_list(state.kept)))
        if state.declared:
            parts.append(_("declared {box}", box=self.box_label(state.declared)))
        return ", ".join(parts)

