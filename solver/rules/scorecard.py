"""Five-dice scorecard games: Hungarian kockapóker (HU-1..HU-9), Slovak yatzi (SK-1..SK-11),
and two validation variants, standard Yahtzee and Scandinavian Yatzy (PUBLISHED.md).

This module holds the four games' rules options, their own scoring and their engines, and
registers their specs (:mod:`kocka.solver.rules.spec`). The engine common to them (cards,
positions, actions, the scoring layer solvers build their tables from, and the state
machine of a turn) is :mod:`kocka.solver.rules.scorecard_engine`; its names are imported
from here too.

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
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any, Callable, ClassVar, Mapping, Sequence

from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import IllegalActionError, InvalidStateError, Reason, shown
from kocka.solver.base.i18n import _
from kocka.solver.rules.base import Rules
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game
from kocka.solver.rules.words import Words, seat_label
from kocka.solver.rules.five_dice import (  # FACE_BOXES, NUM_DICE, Keep: re-exported
    FACE_BOXES,
    FACE_OF_BOX,
    NUM_DICE,
    Counts,
    Keep,
    Scorer,
    bits_of,
    combination_scorers,
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
from kocka.solver.rules.scorecard_engine import (  # MAX_THROWS, FillScore and the rest: re-exported
    MAX_THROWS, UPPER_BONUS_THRESHOLD, YAHTZEE_BONUS, Card, Declare, Fill, FillScore, ScorecardGame, ScorecardState,
)


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


class _NetUpperGame(ScorecardGame):
    """HU and SK: face entries (c - 3) x f; the tracker is the net upper score + 3*S."""

    NET_UPPER = True

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
            raise IllegalActionError(_("the settlement is made only at the end of the game"), rule="SK-11")
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
                return Reason(_("{action} is not possible: in these rules face boxes are not declared", action=text), "SK-3")
            if state.throw != 1 or state.declared is not None:
                return Reason(_("a face box is declared once, right after the first throw, so {action} is not possible "
                                "at throw {throw}", action=text, throw=state.throw), "SK-3")
            return Reason(_("{box} is not an open face box to declare", box=self.box_label(action.box)), "SK-3")
        if self.declares and state.throw == 1 and state.declared is None and self._must_declare(state):
            return Reason(_("declare a face box first: only face boxes are left, and {action} comes after the declaration",
                            action=text), "SK-3")
        if isinstance(action, Fill) and self.declares and action.box in FACE_OF_BOX and state.declared != action.box:
            if state.declared:
                return Reason(_("{box} was not declared after the first throw; the declared box is {declared}",
                                box=self.box_label(action.box), declared=self.box_label(state.declared)), "SK-3")
            return Reason(_("{box} was not declared after the first throw, and no box was", box=self.box_label(action.box)),
                          "SK-3")
        if isinstance(action, Fill) and action.box in self._index and self.in_part1(state.cards[state.player].filled_mask):
            if self.box_index(action.box) in self.lower_boxes:
                return Reason(_("{box} may not be written before part 1 is complete; open boxes: {allowed}",
                                box=self.box_label(action.box), allowed=self._labels(self._fillable(state))), "SK-3")
        return super()._why_illegal(state, action)

    def _must_declare(self, state: ScorecardState) -> bool:
        allowed = self.allowed_boxes(state.cards[state.player].filled_mask)
        return not any(b not in self.upper_boxes for b in allowed)

    def _check_declared(self, state: ScorecardState, bad: Callable[..., InvalidStateError]) -> None:
        if state.declared is None:
            undecided_past_first_throw = state.throw > 1 or (state.throw == 1 and state.dice is None)
            if self.declares and undecided_past_first_throw and self._must_declare(state):
                raise bad(_("throw {throw} in part 1 needs a declared face box", throw=state.throw), "SK-3")
            return
        if not self.declares:
            raise bad(_("boxes are not declared under these rules, yet {box} is declared", box=shown(state.declared)), "SK-3")
        if state.declared not in FACE_OF_BOX or state.declared not in self._index:
            raise bad(_("the declared box must be a face box on the card, not {box}", box=shown(state.declared)), "SK-3")
        box = self._index[state.declared]
        if box not in self.allowed_boxes(state.cards[state.player].filled_mask):
            raise bad(_("the declared box {box} is not an open box that may be written now", box=self.box_label(state.declared)), "SK-3")
        if state.throw == 0:
            raise bad(_("{box} is declared before the first throw", box=self.box_label(state.declared)), "SK-3")

    def _check_card(self, seat: int, card: Card, bad: Callable[..., InvalidStateError]) -> None:
        super()._check_card(seat, card, bad)
        mask = card.filled_mask
        if self.in_part1(mask) and any(mask >> b & 1 for b in self.lower_boxes):
            raise bad(_("on the card of {player} a part 2 box is written before part 1 is complete", player=seat_label(seat)), "SK-3")


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
        raise InvalidStateError(_("the settlement needs one whole-number total per player, not {value}", value=shown(totals)))
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
    AgentEntry("adaptive", "kocka.agents.bots.adaptive_scorecard:adaptive_factory",
               "winner against the other players as they play: each modelled by the expected points his "
               "moves give up (target and expected-score tables; 2+ players)"),
)
_SCORECARD_FRONT = dict(hint="kocka.agents.advice.cards:scorecard_hint",
                        hint_parameters="kocka.agents.advice.cards:ScorecardHintParams", view="kocka.agents.frontends.games.views:render_scorecard",
                        tables=_SCORECARD_TABLES, agents=_SCORECARD_AGENTS, judges=("optimal",),
                        distribution="kocka.solver.solvers.scorecard.distribution:score_distribution",
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
