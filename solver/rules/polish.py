"""Polish poker dice (RULES.md section 4): the basic game and the full three-stage game.

Both games use five dice (PL-1). A turn starts with a throw of all five; between throws the
player keeps any dice and throws the rest (PL-2).

- **Basic game** (:class:`PolishBasicGame`, PL-4..PL-7): collect eight combinations, at most
  one per turn, recording is optional (no zero entries); from-hand records count more.
- **Full game** (:class:`PolishGame`, PL-8..PL-17): three stages of a 15-box card; stage 1 in
  any order, stage 2 with a box declared after the first throw, stage 3 in a fixed order.
  Fences (*płoty*) carry unused throws between turns: the budget is 3 + F, and filling a box
  after t throws sets F to F + 3 - t (PL-12).

The rule options, the card's boxes and the pure scoring of dice (:class:`PolishRules`,
:func:`box_value`, ...) are :mod:`kocka.solver.rules.polish_scoring`; this module holds the
two engines and their specs. The card rules solvers need beyond the scores are
:class:`PolishGame` methods: ``net_upper_range`` and ``stage_bonus`` (PL-9),
``scratch_entry`` (PL-11), ``box_groups`` and ``turn_boxes`` (PL-14..PL-16);
``card_from_entries`` reads a card named in any of the game's languages.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Hashable, Iterable, Mapping, Sequence

from kocka.solver.base.dice import Dice, is_sub_multiset, outcome_distribution, sub_multisets, validate_dice
from kocka.solver.base.errors import DiceError, InvalidStateError, Reason, RulesError, shown
from kocka.solver.base.i18n import N_, _, ngettext
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, TurnProgress
from kocka.solver.rules.five_dice import FACE_OF_BOX, NUM_DICE, Keep, card_entries, dice_list
from kocka.solver.rules.polish_scoring import (
    BASE_THROWS, BOXES, COMBINATIONS, PolishBasicRules, PolishRules, basic_value, box_value, is_whole_number,
    possible_entries, shows, stage_total, upper_bonus,
)
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game
from kocka.solver.rules.words import Words, seat_label, snake


# ----------------------------------------------------------------------------------------
# Actions
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Write:
    """Full game: fill ``box`` with the current dice (PL-10)."""

    box: str


@dataclass(frozen=True)
class Scratch:
    """Full game: fill ``box`` with a scratch (PL-11): 0 for a lower box; before any throw,
    -3f for a face box (``pl.upper_scratch``). After a throw a face box can only take its
    formula value, which is :class:`Write`."""

    box: str


@dataclass(frozen=True)
class Declare:
    """Full game, stage 2: name the one box this turn may fill, right after the first
    throw (PL-15)."""

    box: str


@dataclass(frozen=True)
class Record:
    """Basic game: record ``combo`` with the current dice and end the turn (PL-5)."""

    combo: str


@dataclass(frozen=True)
class EndTurn:
    """Basic game: end the turn without recording (PL-5)."""


@lru_cache(maxsize=65536)
def _bad_basic_entry(row: tuple, boxes: tuple[str, ...], same_face_groups: str, hand_mult: int) -> tuple | None:
    """The first (combination, entry) of a basic-game record row that no record can hold,
    or None. There are no zero entries in the basic game (PL-5): a record is a shown
    combination's value (PL-3, PL-6)."""
    for combo, value in zip(boxes, row):
        possible = possible_entries(combo, same_face_groups, "basic", hand_mult)
        if value is not None and (not is_whole_number(value) or value == 0 or value not in possible):
            return combo, value
    return None


@lru_cache(maxsize=1024)
def _shown_combinations(dice: Dice, same_face_groups: str) -> frozenset[str]:
    """The combinations of the basic game that sorted ``dice`` show (PL-3), once per roll."""
    return frozenset(c for c in COMBINATIONS if shows(c, dice, same_face_groups))


@lru_cache(maxsize=4096)
def _rethrow_keeps(dice: Dice) -> tuple[Keep, ...]:
    """Every keep before a further throw: any sub-multiset but all five (that is stopping)."""
    return tuple(Keep(k) for k in sub_multisets(dice) if len(k) < NUM_DICE)



def _check_dice_field(name: str, value: Any, count: int | None) -> None:
    if value is None:
        return
    try:
        ok = isinstance(value, tuple) and validate_dice(value, count) == value
    except DiceError:
        ok = False
    if not ok:
        if count:
            raise InvalidStateError(ngettext("the state field {name} must be {n} die listed from low to high, not {value}",
                                             "the state field {name} must be {n} dice listed from low to high, not {value}",
                                             count, name=name, value=shown(value)))
        raise InvalidStateError(_("the state field {name} must be dice listed from low to high, not {value}",
                                  name=name, value=shown(value)))


def _keep_problem(game: Game, state: Any, keep: Keep, budget: int) -> Reason | None:
    """Why ``keep`` is illegal for the turn in ``state`` (shared by both games), or None."""
    if state.throws >= budget:
        return Reason(_("no throws are left, {used} of {budget} are used, so {action} is not possible",
                        used=state.throws, budget=budget, action=game.describe_action(keep, state)), "PL-2, PL-12")
    if state.dice is None and keep.dice:
        return Reason(_("the first throw is with all five dice, so {action} is not possible",
                        action=game.describe_action(keep, state)), "PL-2")
    if state.dice is not None and len(keep.dice) >= NUM_DICE:
        return Reason(_("keeping all five dice {dice} means stopping, not throwing", dice=dice_list(keep.dice)), "PL-2")
    if state.dice is not None and not is_sub_multiset(keep.dice, state.dice):
        return Reason(_("the kept dice {kept} are not among the dice {dice}", kept=dice_list(keep.dice),
                        dice=dice_list(state.dice)))
    return None


def _not_a_move(game: Game, state: Any, action: Any) -> Reason:
    moves = ", ".join(snake(c.__name__).replace("_", " ") for c in game.ACTIONS)
    return Reason(_("that is not a move of this game; its moves are {moves}", moves=moves))


def _not_now(game: Game, state: Any, action: Any) -> Reason:
    return Reason(_("{action} is not allowed now", action=shown(game.describe_action(action, state))))


def _check_turn_fields(state: Any, budget: int) -> None:
    """Consistency of ``throws``, ``dice`` and ``kept`` (shared by both games)."""
    t = state.throws
    if not is_whole_number(t) or not 0 <= t <= budget:
        raise InvalidStateError(_("the throws made must be from 0 to {budget}, not {value}", budget=budget, value=shown(t)))
    _check_dice_field("dice", state.dice, NUM_DICE)
    _check_dice_field("kept", state.kept, None)
    if state.kept is not None:
        if state.dice is not None:
            raise InvalidStateError(_("a roll is due, so no dice can be on the table"))
        if t >= budget or len(state.kept) >= NUM_DICE or (t == 0 and state.kept):
            raise InvalidStateError(ngettext("keeping {dice} after {n} throw is impossible", "keeping {dice} after {n} throws is impossible",
                                             t, dice=shown(state.kept) or _("nothing")))
    elif (state.dice is None) != (t == 0):
        if state.dice is None:
            raise InvalidStateError(ngettext("after {n} throw the dice must be on the table",
                                             "after {n} throws the dice must be on the table", t))
        raise InvalidStateError(_("the dice {dice} are on the table before the first throw", dice=shown(state.dice)))


def _dice_text(dice: Any) -> str:
    """Dice of a state for a message: a sorted list, or the value as it is when it is not dice."""
    try:
        return dice_list(dice)
    except (TypeError, ValueError):
        return shown(dice)


def _dice_parts(state: Any) -> list[str]:
    """The dice of a Polish position for :meth:`PolishGame.describe_state`: thrown (or none
    yet) and kept, in the language in force."""
    parts = [_("no dice thrown yet") if state.dice is None else _("dice {dice}", dice=_dice_text(state.dice))]
    if state.kept is not None:
        parts.append(_("kept {dice}", dice=_dice_text(state.kept)) if state.kept else _("nothing kept"))
    return parts


def _roll_outcomes(state: Any) -> list[tuple[Dice, float]]:
    return list(outcome_distribution(NUM_DICE - len(state.kept)))


def _check_roll(game: Game, state: Any, outcome: Any) -> None:
    validate_dice(outcome, NUM_DICE - len(state.kept), what=N_("the roll"))


def _land_roll(state: Any, outcome: Sequence[int]) -> Any:
    dice = tuple(sorted(state.kept + tuple(outcome)))
    return replace(state, dice=dice, kept=None, throws=state.throws + 1)


# ----------------------------------------------------------------------------------------
# The full game
# ----------------------------------------------------------------------------------------
Card = tuple[int | None, ...]


@dataclass(frozen=True)
class PolishState:
    """One position of the full game.

    ``cards[stage - 1][seat]`` holds one entry per box of ``rules.boxes`` (None = open).
    ``fences[seat]`` is F (PL-12). The turn: ``throws`` made so far (t), the current
    ``dice`` (None before the first throw and while a roll is pending), ``kept`` (the dice
    kept for the pending roll: set exactly at chance nodes) and ``declared`` (stage 2,
    PL-15).
    """

    stage: int
    player: int
    cards: tuple[tuple[Card, ...], ...]
    fences: tuple[int, ...]
    throws: int = 0
    dice: Dice | None = None
    kept: Dice | None = None
    declared: str | None = None


class _PolishTurnHooks:
    """The front ends' hooks of a Polish turn (rules/base.py ``Game``), shared by the full
    and the basic game: five dice thrown up to the turn's budget, some kept (PL-2), and an
    action that scores the dice in a box (:meth:`scored_box`, per game)."""

    def dice_in_view(self, state: Any) -> Dice | None:
        """The five dice of the last throw (None before the turn's first, PL-2)."""
        return state.dice

    def dice_kept(self, state: Any) -> Dice:
        """The dice kept for the throw due (PL-2)."""
        return state.kept or ()

    def box_scores_now(self, state: Any) -> dict[str, int]:
        """Each box an action may score now, with what the dice score there."""
        if state.dice is None:
            return {}
        scored = ((self.scored_box(a), a) for a in self.legal_actions(state))  # type: ignore[attr-defined]
        return {box: self.box_points(box, state.dice, state.throws == 1)  # type: ignore[attr-defined]
                for box, _action in scored if box is not None}

    def keep_action(self, state: Any, dice: tuple[int, ...]) -> Keep:
        """A :class:`Keep` of ``dice`` (PL-2)."""
        return Keep(dice)


class PolishGame(_PolishTurnHooks, Game):
    """The full game: three stages of a 15-box card with fences (PL-8..PL-17).

    Decisions: :class:`Keep` (throw; legal while t < 3 + F), :class:`Write` (after a throw),
    :class:`Scratch` (before the first throw, or a lower box after any throw) and, in stage 2
    right after the first throw, :class:`Declare`. Returns are game totals (PL-17).
    """

    NAME = "polish"
    RULES = PolishRules
    STATE = PolishState
    ACTIONS = (Keep, Write, Scratch, Declare)
    rules: PolishRules

    # ----- facts and derived quantities -----
    def new_initial_state(self) -> PolishState:
        empty: Card = (None,) * len(self.rules.boxes)
        cards = tuple((empty,) * self.num_players for _stage in range(self.rules.stages))
        return PolishState(stage=1, player=0, cards=cards, fences=(0,) * self.num_players)

    def roll_key(self, state: PolishState) -> Hashable:
        """(seat, stage, boxes filled, throw): the same throw of the same turn on any card."""
        filled = sum(v is not None for v in state.cards[state.stage - 1][state.player])
        return ("turn", state.player, state.stage, filled, state.throws)

    def current_player(self, state: PolishState) -> int:
        if self._game_over(state):
            return TERMINAL
        return CHANCE if state.kept is not None else state.player

    def budget(self, state: PolishState) -> int:
        """Throws allowed this turn: 3 + F of the player to act (PL-2, PL-12)."""
        return BASE_THROWS + state.fences[state.player]

    def turn_progress(self, state: PolishState) -> TurnProgress:
        """Throw ``throws`` of :meth:`budget`, on the stage's card, with the fences left."""
        return TurnProgress(state.throws, self.budget(state), state.stage, state.fences[state.player])

    def declared_box(self, state: PolishState) -> str | None:
        """The box declared after the first throw of a stage-2 turn (PL-15)."""
        return state.declared

    @staticmethod
    def scored_box(action: Any) -> str | None:
        """The box a :class:`Write` fills (a scratch writes 0 and is not listed: PL-9, PL-10,
        PL-13)."""
        return action.box if isinstance(action, Write) else None

    def card(self, state: PolishState, seat: int, stage: int | None = None) -> dict[str, int | None]:
        """``seat``'s card of ``stage`` (default: the current one) as box -> entry."""
        entries = state.cards[(stage or state.stage) - 1][seat]
        return dict(zip(self.rules.boxes, entries))

    def card_totals(self, state: PolishState) -> list[dict]:
        """Per seat, the current stage's upper section, its bonus as it stands (PL-9: +50
        or -20) and the game total so far (earlier stages and this one with its bonus)."""
        out = []
        for seat, per_stage in enumerate(self.stage_totals(state)):
            card = self.card(state, seat)
            upper = sum(v or 0 for b, v in card.items() if b in FACE_OF_BOX)
            bonus = self.stage_bonus(upper)
            this_stage = sum(v for v in card.values() if v is not None) + bonus
            earlier = sum(per_stage[: state.stage - 1])
            out.append({"upper": upper, "bonus": bonus, "total": earlier + this_stage})
        return out

    def stage_totals(self, state: PolishState) -> tuple[tuple[int, ...], ...]:
        """``[seat][stage - 1]`` stage totals so far (PL-17)."""
        return tuple(
            tuple(stage_total(self.card(state, seat, stage), self.rules) for stage in range(1, self.rules.stages + 1))
            for seat in range(self.num_players)
        )

    def totals(self, state: PolishState) -> tuple[int, ...]:
        """Game total of each seat: the sum of its stage totals (PL-17)."""
        return tuple(sum(per_stage) for per_stage in self.stage_totals(state))

    def describe_state(self, state: PolishState) -> str:
        """The position in one sentence, in the language in force: the stage, who is on
        turn, which throw of his three and his fences left, the dice, the dice kept and the
        combination declared."""
        parts = [_("stage {stage}", stage=state.stage), seat_label(state.player)]
        if state.throws:  # none before the first throw: "no dice thrown yet" says it
            parts.append(TurnProgress(state.throws, BASE_THROWS).throw_text())
        if 0 <= state.player < len(state.fences):
            fences = state.fences[state.player]
            parts.append(ngettext("{n} fence left", "{n} fences left", fences))
        parts += _dice_parts(state)
        if isinstance(state.declared, str):
            parts.append(_("declared {box}", box=self.box_label(state.declared)))
        return ", ".join(parts)

    # ----- the card (PL-8, PL-9, PL-11, PL-14..PL-16) -----
    @property
    def upper_boxes(self) -> tuple[int, ...]:
        """Positions of the face boxes in ``rules.boxes`` (card order)."""
        return tuple(i for i, b in enumerate(self.rules.boxes) if b in FACE_OF_BOX)

    def net_upper_range(self) -> tuple[int, int]:
        """PL-9: the lowest and the highest net upper score of a stage card, -3 and +2
        times the sum of the faces whose boxes are on the card (no die of each face, or
        five)."""
        faces = sum(FACE_OF_BOX[self.rules.boxes[i]] for i in self.upper_boxes)
        return -3 * faces, 2 * faces

    def stage_bonus(self, net: int) -> int:
        """PL-9, PL-17: what the upper section adds to a stage card whose face entries sum
        to ``net`` once they are filled (:func:`upper_bonus`); nothing on a card without
        face boxes (a validation variant)."""
        return upper_bonus(net, self.rules) if self.upper_boxes else 0

    def scratch_entry(self, box: str) -> int | None:
        """PL-11: the entry of scratching ``box`` before the first throw: 0 for a lower
        box, -3f for a face box (it counts no die of its face); None where a face box may
        not be scratched before a throw (``pl.upper_scratch = forbidden``). After a throw
        only a lower box is scratched, for 0."""
        if box not in FACE_OF_BOX:
            return 0
        return -3 * FACE_OF_BOX[box] if self.rules.upper_scratch == "minus_3f" else None

    def box_groups(self, stage: int, filled_mask: int) -> list[int]:
        """The groups of boxes one turn of ``stage`` on a stage card with ``filled_mask``
        may end in, as bit masks (bit i = box i of ``rules.boxes``); a turn fills one box
        of one group. Stage 1: one group, every open box (PL-14); stage 2: each open box
        alone, declared after the first throw (PL-15); stage 3: the first open box in card
        order (PL-16). None on a full card."""
        open_bits = ((1 << len(self.rules.boxes)) - 1) & ~filled_mask
        if not open_bits:
            return []
        if stage == 2:
            return [1 << b for b in range(len(self.rules.boxes)) if open_bits >> b & 1]
        if stage == 3:
            return [open_bits & -open_bits]
        return [open_bits]

    def card_from_entries(self, entries: Mapping[str, int | None] | None = None) -> Card:
        """A stage card from its filled boxes, ``{"pair": 10, "fives": 5}``: each box named
        by its id or by its name in any of the game's languages (``"para"``, ``"piątki"``,
        ``"5s"``); ``None`` is the empty card. The entries are checked when the card is
        part of a state (:meth:`check_state`)."""
        if entries is None:
            return (None,) * len(self.rules.boxes)
        return card_entries(self, self.rules.boxes, entries)

    def _game_over(self, state: PolishState) -> bool:
        return state.stage == self.rules.stages and all(None not in c for c in state.cards[-1])

    def _open_boxes(self, state: PolishState) -> list[str]:
        entries = state.cards[state.stage - 1][state.player]
        return [b for b, v in zip(self.rules.boxes, entries) if v is None]

    def turn_boxes(self, state: PolishState) -> list[str]:
        """Boxes the turn in progress may fill: any open box (stage 1, and stage 2 before
        the first throw), the declared box (stage 2; none while the declaration is due,
        PL-15), the first open box (stage 3, PL-16)."""
        open_boxes = self._open_boxes(state)
        if state.stage == 3:
            return open_boxes[:1]
        if state.stage == 2 and state.throws > 0:
            return [state.declared] if state.declared in open_boxes else []
        return open_boxes

    def _must_declare(self, state: PolishState) -> bool:
        return state.stage == 2 and state.throws > 0 and state.declared is None

    # ----- hooks -----
    def _legal_actions(self, state: PolishState) -> list:
        if self._must_declare(state):
            return [Declare(b) for b in self._open_boxes(state)]
        fillable = self.turn_boxes(state)
        actions: list = []
        if state.throws < self.budget(state):
            actions += [Keep(())] if state.dice is None else list(_rethrow_keeps(state.dice))
        if state.throws == 0:
            actions += [Scratch(b) for b in fillable if self.scratch_entry(b) is not None]
        else:
            actions += [Write(b) for b in fillable]
            actions += [Scratch(b) for b in fillable if b not in FACE_OF_BOX]
        return actions

    def _chance_outcomes(self, state: PolishState) -> list[tuple[Dice, float]]:
        return _roll_outcomes(state)

    def _check_outcome(self, state: PolishState, outcome: Any) -> None:
        _check_roll(self, state, outcome)

    def _why_illegal(self, state: PolishState, action: Any) -> str:
        """A one-line reason naming the offending value (only called for illegal actions)."""
        if not isinstance(action, self.ACTIONS):
            return _not_a_move(self, state, action)
        text = self.describe_action(action, state)
        box = getattr(action, "box", None)
        if box is not None:
            if box not in BOXES:
                return Reason(_("there is no box {name}; the boxes are {boxes}", name=shown(box), boxes=self._labels(BOXES)))
            if box not in self.rules.boxes:
                return Reason(_("{box} is not on this card; the boxes are {boxes}", box=self.box_label(box),
                                boxes=self._labels(self.rules.boxes)))
            entry = self.card(state, state.player)[box]
            if entry is not None:
                return Reason(_("{box} is already written, with {entry}", box=self.box_label(box), entry=entry))
        if isinstance(action, Declare):
            if state.stage != 2:
                return Reason(_("{action} is not possible: boxes are declared only in stage 2, and this is stage {stage}",
                                action=text, stage=state.stage), "PL-15")
            if state.throws == 0:
                return Reason(_("{action} comes right after the first throw, not before it", action=text), "PL-15")
            return Reason(_("{box} is already declared this turn, so {action} is not possible",
                            box=self.box_label(state.declared), action=text), "PL-15")
        if self._must_declare(state):
            return Reason(_("in stage 2 declare a box right after the first throw, before {action}", action=text), "PL-15")
        if isinstance(action, Keep):
            return _keep_problem(self, state, action, self.budget(state)) or _not_now(self, state, action)
        fillable = self.turn_boxes(state)
        if box not in fillable and state.stage == 2:
            return Reason(_("in stage 2 only the declared box {declared} may be written, not {box}",
                            declared=self.box_label(state.declared), box=self.box_label(box)), "PL-15")
        if box not in fillable and state.stage == 3:
            return Reason(_("in stage 3 the next box in order is {next}, not {box}", next=self.box_label(fillable[0]),
                            box=self.box_label(box)), "PL-16")
        if isinstance(action, Write) and state.throws == 0:
            return Reason(_("{action} is not possible before the first throw; scratch the box instead", action=text),
                          "PL-10, PL-11")
        if isinstance(action, Scratch) and box in FACE_OF_BOX:
            if state.throws == 0:
                return Reason(_("{box} cannot be scratched before a throw under these rules", box=self.box_label(box)),
                              "PL-11")
            return Reason(_("after a throw the face box {box} takes its formula value: {action}", box=self.box_label(box),
                            action=self.describe_action(Write(box), state)), "PL-11")
        return _not_now(self, state, action)

    def _labels(self, boxes: Iterable[str]) -> str:
        return ", ".join(self.box_label(b) for b in boxes)

    def _apply(self, state: PolishState, action: Any) -> PolishState:
        if state.kept is not None:
            return _land_roll(state, action)
        if isinstance(action, Keep):
            return replace(state, dice=None, kept=action.dice)
        if isinstance(action, Declare):
            return replace(state, declared=action.box)
        if isinstance(action, Write):
            value = box_value(action.box, state.dice, state.throws == 1, self.rules)
        else:  # Scratch: before any throw, PL-11; after one only a lower box, for 0
            value = self.scratch_entry(action.box) if state.throws == 0 else 0
        return self._fill(state, action.box, value)

    def _fill(self, state: PolishState, box: str, value: int) -> PolishState:
        """Enter ``value``, update the fences (PL-12) and pass the turn (PL-8)."""
        seat, index = state.player, self.rules.boxes.index(box)
        stage_cards = list(state.cards[state.stage - 1])
        stage_cards[seat] = stage_cards[seat][:index] + (value,) + stage_cards[seat][index + 1:]
        cards = state.cards[: state.stage - 1] + (tuple(stage_cards),) + state.cards[state.stage:]
        fences = state.fences[state.player] + BASE_THROWS - state.throws
        if self.rules.fence_cap is not None:
            fences = min(fences, self.rules.fence_cap)
        stage, player = state.stage, (seat + 1) % self.num_players
        if player == 0 and stage < self.rules.stages and all(None not in c for c in stage_cards):
            stage += 1
        return PolishState(
            stage=stage,
            player=player,
            cards=cards,
            fences=state.fences[:seat] + (fences,) + state.fences[seat + 1:],
        )

    def card_boxes(self) -> tuple[str, ...]:
        return self.rules.boxes

    def action_box(self, action: Any) -> str | None:
        """The box a :class:`Write`, :class:`Scratch` or :class:`Declare` names."""
        return action.box if isinstance(action, (Write, Scratch, Declare)) else None

    def box_points(self, box: str, dice: Sequence[int], first_throw: bool = False) -> int:
        """PL-9, PL-10, PL-13: what ``dice`` score in ``box`` (:func:`box_value`)."""
        if box not in self.rules.boxes:
            raise RulesError(_("there is no box {name} on this card; the boxes are {boxes}", name=shown(box),
                                  boxes=self._labels(self.rules.boxes)))
        return box_value(box, dice, first_throw, self.rules)

    def _returns(self, state: PolishState) -> tuple[int, ...]:
        return self.totals(state)

    def _check_state(self, state: PolishState) -> None:
        rules, n = self.rules, self.num_players
        if not is_whole_number(state.stage) or not 1 <= state.stage <= rules.stages:
            raise InvalidStateError(_("the stage must be from 1 to {most}, not {value}", most=rules.stages, value=shown(state.stage)))
        if not is_whole_number(state.player) or not 0 <= state.player < n:
            raise InvalidStateError(_("the player to move must be one of the {count} players, not {value}", count=n,
                                      value=shown(state.player)))
        fences = state.fences
        if not isinstance(fences, tuple) or len(fences) != n or not all(is_whole_number(f) and f >= 0 for f in fences):
            raise InvalidStateError(ngettext("the fences must be {n} whole number of at least 0, not {value}",
                                              "the fences must be {n} whole numbers of at least 0, not {value}", n,
                                              value=shown(fences)))
        if rules.fence_cap is not None and max(fences) > rules.fence_cap:
            raise InvalidStateError(_("the fences {fences} exceed the cap of {cap}", fences=shown(fences), cap=rules.fence_cap))
        self._check_cards(state)
        filled = [sum(v is not None for stage in state.cards for v in stage[seat]) for seat in range(n)]
        for seat in range(n):
            if fences[seat] > BASE_THROWS * filled[seat]:
                raise InvalidStateError(ngettext(
                    "{player} holds {fences} fences after only {n} turn; a turn earns 3 at most",
                    "{player} holds {fences} fences after only {n} turns; a turn earns 3 at most",
                    filled[seat], player=seat_label(seat), fences=fences[seat]), rule="PL-12")
        if self._game_over(state):
            if (state.player, state.throws, state.dice, state.kept, state.declared) != (0, 0, None, None, None):
                raise InvalidStateError(_("the game is over, so no turn can be in progress"))
            return
        _check_turn_fields(state, self.budget(state))
        declared = state.declared
        if declared is not None:
            if state.stage != 2 or state.throws == 0 or declared not in self._open_boxes(state):
                raise InvalidStateError(_("the declared box {box} is impossible here: a box is declared in stage 2, "
                                          "after the first throw, among the open boxes", box=shown(declared)), rule="PL-15")
        elif state.stage == 2 and state.kept is not None and state.throws > 0:
            raise InvalidStateError(_("in stage 2 a box is declared before the dice are thrown again"), rule="PL-15")

    def _check_cards(self, state: PolishState) -> None:
        rules, n, size = self.rules, self.num_players, len(self.rules.boxes)
        cards = state.cards
        shape_ok = (
            isinstance(cards, tuple)
            and len(cards) == rules.stages
            and all(isinstance(s, tuple) and len(s) == n for s in cards)
            and all(isinstance(c, tuple) and len(c) == size for s in cards for c in s)
        )
        if not shape_ok:
            raise InvalidStateError(_("the cards must be {stages} stages of {players} cards of {boxes} boxes each",
                                      stages=rules.stages, players=n, boxes=size))
        for stage_index, stage in enumerate(cards, start=1):
            for seat, card in enumerate(stage):
                for box, value in zip(rules.boxes, card):
                    if value is not None and (
                        not is_whole_number(value) or value not in possible_entries(box, rules.same_face_groups, "full_game")
                    ):
                        raise InvalidStateError(_("{value} cannot be written in {box} on the stage {stage} card of {player}",
                                                          value=shown(value), box=self.box_label(box), stage=stage_index,
                                                          player=seat_label(seat)))
                filled = len(card) - card.count(None)
                if stage_index == 3 and None in card[:filled]:
                    raise InvalidStateError(_("the stage 3 card of {player} is not written in order", player=seat_label(seat)),
                                            rule="PL-16")
                complete = None not in card
                if stage_index < state.stage and not complete:
                    raise InvalidStateError(_("the stage {stage} card of {player} is unfinished in stage {now}", stage=stage_index,
                                              player=seat_label(seat), now=state.stage))
                if stage_index > state.stage and any(v is not None for v in card):
                    raise InvalidStateError(_("the stage {stage} card of {player} is written before that stage", stage=stage_index,
                                              player=seat_label(seat)))
        current = [size - c.count(None) for c in cards[state.stage - 1]]
        k = current[state.player]
        expected = [k + 1] * state.player + [k] * (n - state.player)
        if current != expected and not self._game_over(state):
            raise InvalidStateError(_("the boxes written in stage {stage}, {counts}, do not fit {player} to play: "
                                      "each player writes one box per turn", stage=state.stage, counts=shown(current),
                                      player=seat_label(state.player)), rule="PL-8")


# ----------------------------------------------------------------------------------------
# The basic game
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PolishBasicState:
    """One position of the basic game.

    ``records[seat]`` holds one entry per combination of ``rules.boxes`` (default: the eight
    of :data:`COMBINATIONS`; None = not yet recorded). The turn: ``throws`` made (t), ``dice`` (None before the first throw and
    while a roll is pending) and ``kept`` (set exactly at chance nodes).
    """

    player: int
    records: tuple[tuple[int | None, ...], ...]
    throws: int = 0
    dice: Dice | None = None
    kept: Dice | None = None


class PolishBasicGame(_PolishTurnHooks, Game):
    """The basic game: record the eight combinations (PL-4..PL-7).

    ``rules.boxes`` may name fewer (a validation variant); the solitaire readings
    ``solo_turns`` and ``solo_zero_entries`` are not rules and change nothing here.

    Decisions: :class:`Keep` (at most 3 throws), :class:`Record` (one new combination the
    dice show; ends the turn) and :class:`EndTurn` (no record; not allowed with
    ``pl.basic_record = mandatory`` while the dice show a new combination). The first throw
    is always made. Returns are the totals of recorded values.
    """

    NAME = "polish-basic"
    RULES = PolishBasicRules
    STATE = PolishBasicState
    ACTIONS = (Keep, Record, EndTurn)
    rules: PolishBasicRules

    def new_initial_state(self) -> PolishBasicState:
        return PolishBasicState(player=0, records=((None,) * len(self.rules.boxes),) * self.num_players)

    def current_player(self, state: PolishBasicState) -> int:
        if self._game_over(state):
            return TERMINAL
        return CHANCE if state.kept is not None else state.player

    def totals(self, state: PolishBasicState) -> tuple[int, ...]:
        """Sum of each seat's recorded values (PL-7)."""
        return tuple(sum(v for v in row if v is not None) for row in state.records)

    def record_sheet(self, state: PolishBasicState, seat: int) -> dict[str, int | None]:
        return dict(zip(self.rules.boxes, state.records[seat]))

    def card_totals(self, state: PolishBasicState) -> list[dict]:
        """The race has no upper section: each seat's total."""
        return [{"upper": 0, "bonus": 0, "total": t} for t in self.totals(state)]

    def turn_progress(self, state: PolishBasicState) -> TurnProgress:
        """Throw ``throws`` of the turn's three (PL-5)."""
        return TurnProgress(state.throws, BASE_THROWS)

    @staticmethod
    def scored_box(action: Any) -> str | None:
        """The combination a :class:`Record` records (PL-5, PL-6)."""
        return action.combo if isinstance(action, Record) else None

    def describe_state(self, state: PolishBasicState) -> str:
        """The position in one sentence, in the language in force: who is on turn, which
        throw, the dice and the dice kept."""
        throw = [self.turn_progress(state).throw_text()] if state.throws else []
        return ", ".join([seat_label(state.player), *throw, *_dice_parts(state)])

    def card_from_entries(self, entries: Mapping[str, int | None] | None = None) -> tuple[int | None, ...]:
        """A record sheet from the recorded combinations, ``{"pair": 8, "ful": 48}``: each
        named by its id or by its name in any of the game's languages; ``None`` is the
        empty sheet. The entries are checked when the sheet is part of a state."""
        if entries is None:
            return (None,) * len(self.rules.boxes)
        return card_entries(self, self.rules.boxes, entries)

    def _complete_seats(self, state: PolishBasicState) -> list[int]:
        return [seat for seat, row in enumerate(state.records) if None not in row]

    def _game_over(self, state: PolishBasicState) -> bool:
        """PL-7: someone has all his combinations; with ``finish_round`` the round must be over too
        (rounds start at seat 0, so the next turn would open a new round)."""
        if not self._complete_seats(state):
            return False
        return self.rules.basic_end == "immediate" or (state.player == 0 and state.throws == 0 and state.kept is None)

    def _new_records(self, state: PolishBasicState) -> list[str]:
        """Unrecorded combinations the current dice show (PL-5)."""
        row = state.records[state.player]
        shown = _shown_combinations(state.dice, self.rules.same_face_groups)
        return [c for c, v in zip(self.rules.boxes, row) if v is None and c in shown]

    # ----- hooks -----
    def _legal_actions(self, state: PolishBasicState) -> list:
        if state.dice is None:
            return [Keep(())]
        actions: list = list(_rethrow_keeps(state.dice)) if state.throws < BASE_THROWS else []
        records = [Record(c) for c in self._new_records(state)]
        actions += records
        if not (records and self.rules.basic_record == "mandatory"):
            actions.append(EndTurn())
        return actions

    def _chance_outcomes(self, state: PolishBasicState) -> list[tuple[Dice, float]]:
        return _roll_outcomes(state)

    def _check_outcome(self, state: PolishBasicState, outcome: Any) -> None:
        _check_roll(self, state, outcome)

    def _why_illegal(self, state: PolishBasicState, action: Any) -> str:
        if not isinstance(action, self.ACTIONS):
            return _not_a_move(self, state, action)
        text = self.describe_action(action, state)
        if isinstance(action, Keep):
            return _keep_problem(self, state, action, BASE_THROWS) or _not_now(self, state, action)
        if state.dice is None:
            return Reason(_("the turn starts with a throw, so {action} is not possible before it", action=text), "PL-5")
        if isinstance(action, EndTurn):
            new = ", ".join(self.box_label(c) for c in self._new_records(state))
            return Reason(_("the dice {dice} show new combinations, {new}: under these rules one must be recorded",
                            dice=dice_list(state.dice), new=new), "PL-5")
        combo = action.combo
        if combo not in self.rules.boxes:
            names = ", ".join(self.box_label(c) for c in self.rules.boxes)
            return Reason(_("there is no combination {name}; the combinations are {known}", name=shown(combo), known=names),
                          "PL-4")
        entry = self.record_sheet(state, state.player)[combo]
        if entry is not None:
            return Reason(_("{box} is already recorded, with {entry}", box=self.box_label(combo), entry=entry), "PL-5")
        return Reason(_("the dice {dice} do not show {box}", dice=dice_list(state.dice), box=self.box_label(combo)),
                      "PL-3, PL-5")

    def _apply(self, state: PolishBasicState, action: Any) -> PolishBasicState:
        if state.kept is not None:
            return _land_roll(state, action)
        if isinstance(action, Keep):
            return replace(state, dice=None, kept=action.dice)
        records = state.records
        if isinstance(action, Record):
            seat, index = state.player, self.rules.boxes.index(action.combo)
            value = basic_value(action.combo, state.dice, state.throws == 1, self.rules)
            row = records[seat][:index] + (value,) + records[seat][index + 1:]
            records = records[:seat] + (row,) + records[seat + 1:]
        return PolishBasicState(player=(state.player + 1) % self.num_players, records=records)

    def card_boxes(self) -> tuple[str, ...]:
        return self.rules.boxes

    def action_box(self, action: Any) -> str | None:
        """The combination a :class:`Record` records."""
        return action.combo if isinstance(action, Record) else None

    def box_points(self, box: str, dice: Sequence[int], first_throw: bool = False) -> int:
        """PL-5, PL-6: what ``dice`` score as combination ``box`` (:func:`basic_value`)."""
        if box not in self.rules.boxes:
            names = ", ".join(self.box_label(c) for c in self.rules.boxes)
            raise RulesError(_("there is no combination {name}; the combinations are {known}", name=shown(box), known=names))
        return basic_value(box, dice, first_throw, self.rules)

    def _returns(self, state: PolishBasicState) -> tuple[int, ...]:
        return self.totals(state)

    def _check_state(self, state: PolishBasicState) -> None:
        n = self.num_players
        if not is_whole_number(state.player) or not 0 <= state.player < n:
            raise InvalidStateError(_("the player to move must be one of the {count} players, not {value}", count=n,
                                      value=shown(state.player)))
        records = state.records
        if not (
            isinstance(records, tuple)
            and len(records) == n
            and all(isinstance(r, tuple) and len(r) == len(self.rules.boxes) for r in records)
        ):
            raise InvalidStateError(_("the records must be {players} rows of {boxes} entries each", players=n,
                                      boxes=len(self.rules.boxes)))
        rules = self.rules
        for seat, row in enumerate(records):
            plain = all(v is None or type(v) is int for v in row)  # then equal rows are alike: check once
            bad = (_bad_basic_entry(row, rules.boxes, rules.same_face_groups, rules.basic_hand_mult) if plain
                   else _bad_basic_entry.__wrapped__(row, rules.boxes, rules.same_face_groups, rules.basic_hand_mult))
            if bad is not None:
                raise InvalidStateError(_("{value} cannot be recorded in {box} on the card of {player}", value=shown(bad[1]),
                                          box=self.box_label(bad[0]) if isinstance(bad[0], str) else shown(bad[0]),
                                          player=seat_label(seat)))
        if self._game_over(state):
            if (state.throws, state.dice, state.kept) != (0, None, None):
                raise InvalidStateError(_("the game is over, so no turn can be in progress"))
            return
        late = [seat for seat in self._complete_seats(state) if seat >= state.player]
        if late:
            raise InvalidStateError(_("{players} recorded every combination, yet {player} still plays",
                                      players=", ".join(seat_label(s) for s in late), player=seat_label(state.player)),
                                    rule="PL-7")
        _check_turn_fields(state, BASE_THROWS)


# ----------------------------------------------------------------------------------------
# Specs (kocka.solver.rules.spec)
# ----------------------------------------------------------------------------------------
POLISH_WORDS = Words("pl", {
    "ones": "jedynki", "twos": "dwójki", "threes": "trójki", "fours": "czwórki", "fives": "piątki",
    "sixes": "szóstki", "pair": "para", "two_pairs": "dwie pary", "three_kind": "trójka",
    "small_straight": "mały strit", "large_straight": "duży strit", "full_house": "ful",
    "four_kind": "kareta", "poker": "poker", "chance": "szansa",
})  # fmt: skip
"""Polish names of the boxes (PL-3, PL-8), shown on the card and accepted as input."""

_POLISH_COMMON = dict(players=(1, 6), words=POLISH_WORDS, hint="kocka.agents.advice.cards:polish_hint",
                      judges=("optimal",))

register_game(GameSpec(
    name="polish", title="Polish poker dice (full game)", engine=PolishGame,
    tables=(TableKind("ev", "kocka.solver.solvers.polish.values:POLISH_EV"),), view="kocka.agents.frontends.games.views:render_polish",
    agents=(
        AgentEntry("optimal", "kocka.agents.bots.catalogue:polish_optimal",
                   "plays the best action from the exact three-stage table (expected game total)"),
        AgentEntry("heuristic", "kocka.agents.bots.heuristic:polish_heuristic",
                   "a human-like rule set: chases the most valuable open box (kocka.agents.bots.heuristic)"),
    ),
    hint_parameters="kocka.agents.advice.cards:PolishHintParams", **_POLISH_COMMON,
))
register_game(GameSpec(
    name="polish-basic", title="Polish poker dice (basic game)", engine=PolishBasicGame,
    tables=(TableKind("ev", "kocka.solver.solvers.polish.values:POLISH_BASIC_EV"),
            TableKind("race", "kocka.solver.solvers.polish.race:POLISH_BASIC_RACE")),
    view="kocka.agents.frontends.games.views:render_polish_basic", outcome="race",
    agents=(
        AgentEntry("optimal", "kocka.agents.bots.catalogue:polish_optimal",
                   "plays the best action from the exact solitaire table (expected total within solo_turns turns)"),
        AgentEntry("winner", "kocka.agents.bots.polish_race_agent:polish_basic_winner",
                   "two players: plays the race to win, from the exact race table (P(win), PL-7)"),
        AgentEntry("heuristic", "kocka.agents.bots.heuristic:polish_basic_heuristic",
                   "a human-like rule set: records the most valuable combination (kocka.agents.bots.heuristic)"),
    ),
    hint_parameters="kocka.agents.advice.cards:PolishBasicHintParams",
    level_base=((2, "winner"),),  # two players race: a level is a weaker racer, valued in P(win)
    **{**_POLISH_COMMON, "judges": ("winner", "optimal")},
))
