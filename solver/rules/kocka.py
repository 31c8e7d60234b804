"""KOCKA, the Hungarian "10000" (RULES.md section 1, KOCKA-1..KOCKA-20): the game engine
and its spec.

The rule options and the pure scoring of a roll (:class:`KockaRules`,
:func:`valid_set_asides`, :func:`series_value`, ...) are
:mod:`kocka.solver.rules.kocka_scoring`; this module is **the game**
(:class:`KockaGame`): a turn is a walk through stages

``"roll"`` (chance: ``dice_in_play`` dice are thrown) ->
``"set_aside"`` (the roll is shown: :class:`SetAside`, :class:`StartSeries` or
:class:`TakeSeries`) -> ``"bank_or_roll"`` (:class:`Bank` or :class:`Roll`) or straight
back to ``"roll"`` (a full roll's compulsory re-roll, or the next roll of a series) ->
``"joker"`` (five of the series face aside: :class:`NameJoker` or :class:`Roll`) ->
... -> ``"over"``.

A roll that does not score ends the turn at once when it is applied (a bust, KOCKA-9):
the next state is the next player's opening roll and its ``last_event`` is ``"bust"``.

Resolved readings (none changes the default game's values, so none is an option):

* KOCKA-19: when a completed series of 1s is followed by a scoring re-roll, the turn total
  *before* that re-roll is banked (the re-roll's dice are never set aside); the win does
  not depend on the amount. Under ``end = immediate`` KOCKA-19 holds whatever
  ``kocka.ones_series`` says (that option is about ``last_turn`` / ``finish_round``).
* KOCKA-18: declining the joker is the :class:`Roll` action at the ``"joker"`` stage.
* ``series_start = any_six_dice_roll``: only the re-roll right after a complete series is
  barred from starting a series (KOCKA-17); a later compulsory re-roll in the same turn
  may start a new one (the literal reading).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from kocka.solver.base.dice import Dice, FACES, is_sub_multiset, outcome_distribution, validate_dice
from kocka.solver.base.errors import (DiceError, IllegalActionError, InvalidStateError, KockaError, Reason, either,
                                      shown)
from kocka.solver.base.i18n import N_, _, ngettext
from kocka.solver.rules.base import CHANCE, TERMINAL, Game
from kocka.solver.rules.kocka_scoring import (NUM_DICE, PHASE_BELOW, PHASE_HIGH, KockaRules, roll_is_full,
                                              roll_scores, series_allowed_from, series_matches, series_starts,
                                              series_value, set_aside_choices, set_aside_value, straight_counts,
                                              unscored_reason)
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game
from kocka.solver.rules.words import Words, dice_text, seat_label

# Stages of a turn; only "roll" is a chance node and only "over" is terminal.
STAGE_ROLL = "roll"
STAGE_SET_ASIDE = "set_aside"
STAGE_BANK_OR_ROLL = "bank_or_roll"
STAGE_JOKER = "joker"
STAGE_OVER = "over"
STAGES = (STAGE_ROLL, STAGE_SET_ASIDE, STAGE_BANK_OR_ROLL, STAGE_JOKER, STAGE_OVER)

# What the last transition was, and the stages it can lead to.
EVENT_STAGES: Mapping[str, tuple[str, ...]] = {
    "start": (STAGE_ROLL,),                 # the initial state, or a position set up by hand
    "rolled": (STAGE_SET_ASIDE,),           # a roll that scores (or can start a series)
    "bust": (STAGE_ROLL, STAGE_OVER),       # KOCKA-9/15/17/18: the turn is lost
    "set_aside": (STAGE_BANK_OR_ROLL,),     # KOCKA-10/12
    "full": (STAGE_ROLL,),                  # KOCKA-11: all six dice come back
    "series": (STAGE_ROLL, STAGE_JOKER),    # KOCKA-14/15: a series started or grew
    "series_complete": (STAGE_ROLL,),       # KOCKA-17: value added, compulsory re-roll
    "joker": (STAGE_ROLL,),                 # KOCKA-18
    "roll_on": (STAGE_ROLL,),               # the Roll() decision
    "bank": (STAGE_ROLL, STAGE_OVER),       # KOCKA-12/13/20
    "six_ones": (STAGE_OVER,),              # KOCKA-19: instant win
}


# ----------------------------------------------------------------------------------------
# Actions
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SetAside:
    """Set these dice of the roll aside and score them normally (KOCKA-6, KOCKA-10).
    Also the move that scores the re-roll after a complete series (KOCKA-17)."""

    dice: Dice

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", validate_dice(self.dice, what=N_("the dice set aside")))


@dataclass(frozen=True)
class StartSeries:
    """Start a series of ``face`` with ``count`` dice showing it (KOCKA-14, 2500+ only)."""

    face: int
    count: int


@dataclass(frozen=True)
class TakeSeries:
    """In a series, set aside ``count`` dice showing the series face (or the joker on the
    last die) (KOCKA-15, KOCKA-18)."""

    count: int


@dataclass(frozen=True)
class NameJoker:
    """Name ``face`` as joker before rolling the last die of a series (KOCKA-18)."""

    face: int


@dataclass(frozen=True)
class Bank:
    """Add the turn total to the banked score; the turn ends (KOCKA-12, KOCKA-13)."""


@dataclass(frozen=True)
class Roll:
    """Roll the dice still in play (KOCKA-12); at the joker stage, roll without a joker."""


Action = SetAside | StartSeries | TakeSeries | NameJoker | Bank | Roll


# ----------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KockaState:
    """One position of a KOCKA game (frozen, hashable; JSON via the game).

    Attributes
    ----------
    scores : banked score per seat.
    player : seat whose turn it is (at ``"over"``: the seat whose turn ended the game).
    stage : one of :data:`STAGES` (see the module docstring).
    turn_total : points collected this turn, not yet banked (a series counts only once
        complete, KOCKA-16).
    dice_in_play : dice to throw (``"roll"``), dice thrown (``"set_aside"``), dice left
        (``"bank_or_roll"``, ``"joker"``).
    roll : the sorted roll being decided on (``"set_aside"`` only), else ``None``.
    series : ``(face, collected)`` while a series runs (collected 1..5), and
        ``(face, 6)`` from its completion until its compulsory re-roll is scored.
    joker : the named joker face for the last die of a series, else ``None``.
    reached_by : the first seat whose bank reached the target (KOCKA-20), else ``None``.
    final_turns : turns still to play after ``reached_by``'s, counting the current one
        (``last_turn`` / ``finish_round``); 0 at the end; ``None`` before.
    winners : seats sharing the win, set at ``"over"``.
    last_event : the last transition, a key of :data:`EVENT_STAGES` (``"bust"`` makes a
        bust visible).

    The phase (KOCKA-2) is not stored: the banked score changes only when a turn ends,
    so it is derived from ``scores[player]`` (:meth:`KockaGame.phase`).
    """

    scores: tuple[int, ...]
    player: int = 0
    stage: str = STAGE_ROLL
    turn_total: int = 0
    dice_in_play: int = NUM_DICE
    roll: Dice | None = None
    series: tuple[int, int] | None = None
    joker: int | None = None
    reached_by: int | None = None
    final_turns: int | None = None
    winners: tuple[int, ...] = ()
    last_event: str = "start"

    @property
    def is_opening(self) -> bool:
        """Is the roll due / shown the turn's opening roll (KOCKA-8)? Derived: six dice,
        nothing collected and no series only happen before the first set-aside, since a
        full set-aside always adds points."""
        return (self.stage in (STAGE_ROLL, STAGE_SET_ASIDE) and self.dice_in_play == NUM_DICE
                and self.turn_total == 0 and self.series is None)

    @property
    def is_compulsory(self) -> bool:
        """Is the roll due / shown a compulsory six-dice re-roll (KOCKA-11, KOCKA-17)?
        All six dice are in play again only after a full roll or a complete series."""
        return (self.stage in (STAGE_ROLL, STAGE_SET_ASIDE) and self.dice_in_play == NUM_DICE
                and not self.is_opening)

    @property
    def series_running(self) -> bool:
        """Is an unfinished series under way (KOCKA-15, KOCKA-16)?"""
        return self.series is not None and self.series[1] < NUM_DICE


# ----------------------------------------------------------------------------------------
# Game
# ----------------------------------------------------------------------------------------
def _invalid(message: str, rule: str | None = None) -> InvalidStateError:
    return InvalidStateError(message, rule=rule)


class KockaGame(Game):
    """KOCKA for 1..6 seats (one seat: the analysis mode of KOCKA-1, ending when the
    target is reached). Returns are win shares: 1/m to each of m tied winners."""

    NAME = "kocka"
    RULES = KockaRules
    STATE = KockaState
    ACTIONS = (SetAside, StartSeries, TakeSeries, NameJoker, Bank, Roll)

    rules: KockaRules

    # ----- facts -----
    def new_initial_state(self) -> KockaState:
        """Seat 0's opening roll is due; every score is 0 (KOCKA-1, KOCKA-8)."""
        return KockaState(scores=(0,) * self.num_players)

    def current_player(self, state: KockaState) -> int:
        if state.stage == STAGE_OVER:
            return TERMINAL
        if state.stage == STAGE_ROLL:
            return CHANCE
        return state.player

    def phase(self, state: KockaState) -> str:
        """:data:`PHASE_BELOW` or :data:`PHASE_HIGH` for the player to move (KOCKA-2)."""
        high = state.scores[state.player] >= self.rules.series_threshold
        return PHASE_HIGH if high else PHASE_BELOW

    def may_bank(self, state: KockaState) -> bool:
        """May the player bank his turn total now (KOCKA-12, KOCKA-13, ``kocka.min_bank``)?"""
        return state.stage == STAGE_BANK_OR_ROLL and state.turn_total >= self.rules.bank_minimum(self.phase(state))

    def may_start_series(self, state: KockaState) -> bool:
        """May the roll due / shown start a series (KOCKA-14, ``kocka.series_start``)?
        Only a 2500+ player with no series under way or just completed, on the opening
        roll (or, under ``any_six_dice_roll``, on a compulsory re-roll)."""
        if self.phase(state) != PHASE_HIGH or state.series is not None:
            return False
        return state.is_opening or (state.is_compulsory and self.rules.series_on_reroll)

    def straight_counts(self, state: KockaState) -> bool:
        """Does a straight score in the roll due / shown (KOCKA-5)?"""
        return straight_counts(state.dice_in_play, self.rules, state.is_opening)

    def set_aside_points(self, state: KockaState, dice: Sequence[int]) -> int | None:
        """What setting ``dice`` aside from the roll shown in ``state`` adds to the turn
        total (KOCKA-5, KOCKA-6), or ``None`` if they are not a valid set-aside; whether
        they are part of the roll is not checked."""
        return set_aside_value(dice, state.dice_in_play, self.rules, state.is_opening)

    def points_to_target(self, state: KockaState) -> int:
        """Points the player to move still needs to bank to reach the target (KOCKA-3,
        KOCKA-20); 0 or less once he has."""
        return self.rules.target - state.scores[state.player]

    def position(self, scores: Sequence[int], *, player: int = 0, turn_total: int = 0,
                 roll: Sequence[int] | None = None, dice_left: int | None = None) -> KockaState:
        """The position a player describes in numbers, checked against the rules.

        With ``roll``: that roll is shown and must be used (stage ``"set_aside"``), with
        ``turn_total`` points set aside earlier this turn (0 and six dice: the opening
        roll; more and six dice: a compulsory re-roll, KOCKA-11). Without: a set-aside has
        just left ``dice_left`` dice with a turn total of ``turn_total``, and the player
        banks or rolls on (stage ``"bank_or_roll"``, KOCKA-12).

        Raises :class:`~kocka.solver.base.errors.DiceError` for a roll that is not 1..6 dice and
        :class:`~kocka.solver.base.errors.InvalidStateError` for a position the rules cannot
        produce.
        """
        scores = tuple(scores)
        if roll is not None:
            dice = validate_dice(roll)
            if not 1 <= len(dice) <= NUM_DICE:
                raise DiceError(_("a roll is of 1 to 6 dice, not {count}: {dice}", count=len(dice), dice=shown(dice)))
            if dice_left is not None and dice_left != len(dice):
                raise DiceError(ngettext("the {n} die rolled does not match the {left} dice left", "the {n} dice rolled do not match the {left} dice left",
                                         len(dice), left=shown(dice_left)))
            state = KockaState(scores=scores, player=player, stage=STAGE_SET_ASIDE, turn_total=turn_total,
                               dice_in_play=len(dice), roll=dice, last_event="rolled")
        elif dice_left is None:
            raise DiceError(_("a position needs the roll to use, or the number of dice left after a set-aside"))
        else:
            state = KockaState(scores=scores, player=player, stage=STAGE_BANK_OR_ROLL, turn_total=turn_total,
                               dice_in_play=dice_left, last_event="set_aside")
        self.check_state(state)
        return state

    def roll_result(self, state: KockaState, roll: Dice) -> str:
        """What ``roll`` does at this chance node: ``"bust"`` (KOCKA-9/15/17/18),
        ``"six_ones"`` (KOCKA-19) or ``"live"`` (a decision follows)."""
        if state.series_running:
            face = state.series[0]  # type: ignore[index]
            return "live" if series_matches(roll, face, state.joker) else "bust"
        if self.may_start_series(state):
            return "live"  # every roll shows some face (KOCKA-14)
        if not roll_scores(roll, self.straight_counts(state)):
            return "bust"
        if state.series == (1, NUM_DICE) and self.rules.six_ones_win:
            return "six_ones"
        return "live"

    # ----- hooks -----
    def _legal_actions(self, state: KockaState) -> list[Action]:
        if state.stage == STAGE_BANK_OR_ROLL:
            return [Bank(), Roll()] if self.may_bank(state) else [Roll()]
        if state.stage == STAGE_JOKER:
            face = state.series[0]  # type: ignore[index]
            return [NameJoker(j) for j in FACES if j != face] + [Roll()]
        if state.stage != STAGE_SET_ASIDE:
            return []
        roll = state.roll
        assert roll is not None
        if state.series_running:
            face = state.series[0]  # type: ignore[index]
            return [TakeSeries(k) for k in range(1, series_matches(roll, face, state.joker) + 1)]
        straight = self.straight_counts(state)
        full = roll_is_full(roll, straight)
        actions: list[Action] = []
        if full:
            actions.append(SetAside(roll))  # a full roll is set aside whole (KOCKA-10)
        else:
            actions.extend(SetAside(dice) for dice, _value in set_aside_choices(roll, straight))
        if self.may_start_series(state) and series_allowed_from(roll, self.rules, state.is_opening):
            actions.extend(StartSeries(face, k) for face, k in series_starts(roll))
        return actions

    def _chance_outcomes(self, state: KockaState) -> list[tuple[Dice, float]]:
        return list(outcome_distribution(state.dice_in_play))

    def _check_outcome(self, state: KockaState, outcome: Any) -> None:
        validate_dice(outcome, state.dice_in_play, what=N_("the roll"))

    def _apply(self, state: KockaState, action: Any) -> KockaState:
        if state.stage == STAGE_ROLL:
            return self._apply_roll(state, validate_dice(action))
        if isinstance(action, SetAside):
            value = self.set_aside_points(state, action.dice)
            assert value is not None
            total = state.turn_total + value
            left = state.dice_in_play - len(action.dice)
            if left == 0:  # full: all six back, compulsory re-roll (KOCKA-11)
                return self._replace(state, stage=STAGE_ROLL, turn_total=total, dice_in_play=NUM_DICE,
                                     series=None, last_event="full")
            return self._replace(state, stage=STAGE_BANK_OR_ROLL, turn_total=total, dice_in_play=left,
                                 series=None, last_event="set_aside")
        if isinstance(action, StartSeries):
            return self._grow_series(state, action.face, action.count)
        if isinstance(action, TakeSeries):
            face, collected = state.series  # type: ignore[misc]
            return self._grow_series(state, face, collected + action.count)
        if isinstance(action, NameJoker):
            return self._replace(state, stage=STAGE_ROLL, joker=action.face, last_event="joker")
        if isinstance(action, Roll):
            return self._replace(state, stage=STAGE_ROLL, last_event="roll_on")
        if isinstance(action, Bank):
            return self._end_turn(state, banked=state.turn_total, event="bank")
        raise IllegalActionError(self._why_illegal(state, action))  # unreachable after the check

    def final_scores(self, state: KockaState) -> tuple[float, ...]:
        """The banked scores (the returns are win shares)."""
        self.returns(state)  # checks that the game is over
        return tuple(float(s) for s in state.scores)

    def _returns(self, state: KockaState) -> list[float]:
        share = 1.0 / len(state.winners)
        return [share if seat in state.winners else 0.0 for seat in range(self.num_players)]

    # ----- transitions -----
    @staticmethod
    def _replace(state: KockaState, **changes: Any) -> KockaState:
        changes.setdefault("roll", None)
        return dataclasses.replace(state, **changes)

    def _apply_roll(self, state: KockaState, roll: Dice) -> KockaState:
        result = self.roll_result(state, roll)
        if result == "bust":
            return self._end_turn(state, banked=0, event="bust")
        if result == "six_ones":
            return self._finish(state, self._bank(state.scores, state.player, state.turn_total),
                                (state.player,), "six_ones", state.reached_by, state.final_turns)
        return dataclasses.replace(state, stage=STAGE_SET_ASIDE, roll=roll, last_event="rolled")

    def _grow_series(self, state: KockaState, face: int, collected: int) -> KockaState:
        if collected == NUM_DICE:  # complete: value added, compulsory re-roll (KOCKA-17)
            return self._replace(state, stage=STAGE_ROLL, turn_total=state.turn_total + series_value(face),
                                 dice_in_play=NUM_DICE, series=(face, collected), joker=None,
                                 last_event="series_complete")
        stage = STAGE_JOKER if collected == NUM_DICE - 1 else STAGE_ROLL
        return self._replace(state, stage=stage, dice_in_play=NUM_DICE - collected,
                             series=(face, collected), last_event="series")

    @staticmethod
    def _bank(scores: tuple[int, ...], seat: int, points: int) -> tuple[int, ...]:
        return scores[:seat] + (scores[seat] + points,) + scores[seat + 1:]

    def _turns_after_reaching(self, seat: int) -> int:
        """Turns still to play once ``seat`` reaches the target (KOCKA-20)."""
        if self.rules.end == "last_turn":
            return self.num_players - 1
        if self.rules.end == "finish_round":
            return self.num_players - 1 - seat
        return 0

    def _end_turn(self, state: KockaState, banked: int, event: str) -> KockaState:
        """Bank ``banked`` points (0 on a bust) and pass the turn, or end the game."""
        new_scores = self._bank(state.scores, state.player, banked)
        reached_by, final_turns = state.reached_by, state.final_turns
        if final_turns is not None:
            final_turns -= 1  # this was one of the final turns
        elif new_scores[state.player] >= self.rules.target:
            reached_by, final_turns = state.player, self._turns_after_reaching(state.player)
        if final_turns == 0:
            best = max(new_scores)
            winners = tuple(seat for seat, s in enumerate(new_scores) if s == best)
            return self._finish(state, new_scores, winners, event, reached_by, 0)
        return KockaState(scores=new_scores, player=(state.player + 1) % self.num_players,
                          reached_by=reached_by, final_turns=final_turns, last_event=event)

    @staticmethod
    def _finish(state: KockaState, new_scores: tuple[int, ...], winners: tuple[int, ...], event: str,
                reached_by: int | None, final_turns: int | None) -> KockaState:
        return KockaState(scores=new_scores, player=state.player, stage=STAGE_OVER, reached_by=reached_by,
                          final_turns=final_turns, winners=winners, last_event=event)

    # ----- checks -----
    def _why_illegal(self, state: KockaState, action: Any) -> Reason:
        """A sentence saying why ``action`` is not allowed, naming it as a player types it
        and saying what is possible instead; the rule it follows from in ``.rule``."""
        if not isinstance(action, self.ACTIONS):
            return Reason(_("that is not a move of this game; the moves are take, series, joker, bank and roll"))
        series_known = state.series is not None or not isinstance(action, TakeSeries)
        text = self.describe_action(action, state if series_known else None)
        if state.stage == STAGE_BANK_OR_ROLL:
            minimum = self.rules.bank_minimum(self.phase(state))
            if isinstance(action, Bank):
                return Reason(_("you cannot bank yet: the turn total {total} is below the minimum bank of {minimum}; "
                                "roll on", total=state.turn_total, minimum=minimum), "KOCKA-13")
            if state.turn_total >= minimum:
                return Reason(ngettext(
                    "{action} is not possible now: the dice are set aside, so bank your {total} points or roll the {n} die left",
                    "{action} is not possible now: the dice are set aside, so bank your {total} points or roll the {n} dice left",
                    state.dice_in_play, action=text, total=state.turn_total), "KOCKA-12")
            return Reason(ngettext(
                "{action} is not possible now: the dice are set aside, so roll the {n} die left; "
                "banking needs at least {minimum} points",
                "{action} is not possible now: the dice are set aside, so roll the {n} dice left; "
                "banking needs at least {minimum} points",
                state.dice_in_play, action=text, minimum=minimum), "KOCKA-12, KOCKA-13")
        face = state.series[0] if state.series is not None else None
        if state.stage == STAGE_JOKER:
            if isinstance(action, NameJoker):
                return Reason(_("{action} is not allowed: the joker must be a face from 1 to 6 other than the series face {face}",
                                action=text, face=face), "KOCKA-18")
            return Reason(_("{action} is not possible now: name a joker or roll the last die", action=text), "KOCKA-18")
        roll = state.roll
        assert roll is not None  # stage "set_aside"
        rolled = shown(roll)
        if isinstance(action, (Bank, Roll, NameJoker)):
            return Reason(_("{action} is not possible yet: use the roll {dice} first by setting dice aside",
                            action=text, dice=rolled), "KOCKA-10")
        if state.series_running:
            if isinstance(action, TakeSeries):
                if action.count < 1:
                    return Reason(_("take at least one die for the series of {face}s", face=face), "KOCKA-15")
                matches = series_matches(roll, face, state.joker)
                return Reason(ngettext("{action} is not possible: the roll {dice} has only {n} die for the series of {face}s",
                                       "{action} is not possible: the roll {dice} has only {n} dice for the series of {face}s",
                                       matches, action=text, dice=rolled, face=face), "KOCKA-15")
            if state.joker is not None:
                return Reason(_("{action} is not possible: in a series of {face}s only dice showing {face} or the joker "
                                "{joker} may be taken", action=text, face=face, joker=state.joker), "KOCKA-15")
            return Reason(_("{action} is not possible: in a series of {face}s only dice showing {face} may be taken",
                            action=text, face=face), "KOCKA-15")
        if isinstance(action, TakeSeries):
            return Reason(_("no series is under way, so there are no series dice to take"), "KOCKA-15")
        if isinstance(action, StartSeries):
            if self.phase(state) != PHASE_HIGH:
                return Reason(_("{action} is not allowed: a series needs a banked score of {threshold} or more",
                                action=text, threshold=self.rules.series_threshold), "KOCKA-14")
            if state.series is not None:
                return Reason(_("{action} is not allowed: the re-roll after a complete series is scored normally",
                                action=text), "KOCKA-17")
            if not self.may_start_series(state):
                if self.rules.series_on_reroll:
                    return Reason(_("{action} is not allowed: a series can start only on a roll of all six dice",
                                    action=text), "KOCKA-14")
                return Reason(_("{action} is not allowed: a series can start only on the opening roll of a turn",
                                action=text), "KOCKA-14")
            if (action.face, action.count) not in series_starts(roll):
                return Reason(ngettext("{action} is not possible: the roll {dice} does not show {n} die of face {face}",
                                       "{action} is not possible: the roll {dice} does not show {n} dice of face {face}",
                                       action.count, action=text, dice=rolled, face=action.face), "KOCKA-14")
            return Reason(_("{action} is not allowed: the full roll {dice} must be scored normally, not as a series",
                            action=text, dice=rolled), "KOCKA-14")
        if not is_sub_multiset(action.dice, roll):
            return Reason(_("{action} is not possible: {dice} is not part of the roll {roll}",
                            action=text, dice=shown(action.dice), roll=rolled))
        reason = unscored_reason(action.dice, state.dice_in_play, self.rules, state.is_opening)
        if reason is not None:
            return reason
        return Reason(_("{action} is not allowed: the roll {dice} is full and must be set aside whole",
                        action=text, dice=rolled), "KOCKA-10")

    def _check_state(self, state: KockaState) -> None:
        """Reject every field combination the rules cannot produce."""
        def need_int(name: str, value: Any, lo: int, hi: int | None = None) -> None:
            """``name``: marked with N_, translated only for the message (this runs on every move)."""
            if isinstance(value, bool) or not isinstance(value, int) or value < lo or (hi is not None and value > hi):
                name = _(name)
                if hi is None:
                    raise _invalid(_("{name} must be a whole number of at least {low}, not {value}",
                                     name=name, low=lo, value=shown(value)))
                raise _invalid(_("{name} must be a whole number from {low} to {high}, not {value}",
                                 name=name, low=lo, high=hi, value=shown(value)))

        n = self.num_players
        if not isinstance(state.scores, tuple) or len(state.scores) != n:
            raise _invalid(ngettext("there must be {n} banked score, one per player, not {value}",
                                    "there must be {n} banked scores, one per player, not {value}", n,
                                    value=shown(state.scores)))
        for s in state.scores:
            need_int(N_("a banked score"), s, 0)
            if s % 50:
                raise _invalid(_("banked scores are multiples of 50, not {value}", value=s), "KOCKA-5")
        need_int(N_("the player to move"), state.player, 0, n - 1)
        if not isinstance(state.stage, str) or state.stage not in STAGES:
            raise _invalid(_("the stage must be {options}, not {value}", options=either(STAGES), value=shown(state.stage)))
        need_int(N_("the turn total"), state.turn_total, 0)
        if state.turn_total % 50:
            raise _invalid(_("the turn total is a multiple of 50, not {value}", value=state.turn_total), "KOCKA-5")
        need_int(N_("the number of dice in play"), state.dice_in_play, 1, NUM_DICE)
        if not isinstance(state.last_event, str) or state.last_event not in EVENT_STAGES:
            raise _invalid(_("the last event must be {options}, not {value}", options=either(EVENT_STAGES),
                             value=shown(state.last_event)))
        if state.stage not in EVENT_STAGES[state.last_event]:
            raise _invalid(_("the event {event} cannot lead to the stage {stage}", event=state.last_event, stage=state.stage))
        if state.roll is not None and state.stage != STAGE_SET_ASIDE:
            raise _invalid(_("a roll is shown only while dice are to be set aside, not at the stage {stage}",
                             stage=state.stage))
        self._check_game_end(state)
        if state.stage == STAGE_OVER:
            if state.turn_total or state.series is not None or state.joker is not None:
                raise _invalid(_("a finished game has no turn in progress"))
            return
        if state.winners:
            raise _invalid(_("the winners are known only at the end of the game"))
        if state.last_event in ("bust", "bank") and not state.is_opening:
            raise _invalid(_("after a bust or a bank the opening roll of the next turn is due"), "KOCKA-12")
        if state.last_event in ("full", "series_complete") and not state.is_compulsory:
            raise _invalid(_("after all dice are set aside the compulsory six-dice re-roll is due"), "KOCKA-11")
        if state.last_event == "series_complete" and (state.series is None or state.series_running):
            raise _invalid(_("a series is complete only when all six dice are collected"), "KOCKA-17")
        if state.last_event == "series" and not state.series_running:
            raise _invalid(_("a die was taken for a series, but no series is running"), "KOCKA-15")
        if state.last_event == "joker" and state.joker is None:
            raise _invalid(_("a joker was named, but the position has none"), "KOCKA-18")
        self._check_series(state)
        if state.stage == STAGE_BANK_OR_ROLL and state.dice_in_play == NUM_DICE:
            raise _invalid(_("all six dice are in play only for an opening or a compulsory roll, not to bank or roll on"),
                           "KOCKA-11")
        if state.series is None and state.dice_in_play < NUM_DICE:
            # every die set aside normally is worth at least 50 (a single 5, KOCKA-5)
            aside = NUM_DICE - state.dice_in_play
            minimum = 50 * aside
            if state.turn_total < minimum:
                raise _invalid(ngettext(
                    "with {left} dice in play, {n} die is already set aside this turn, worth at least {minimum} points, "
                    "but the turn total is {total}: give the points set aside so far, or roll all six dice",
                    "with {left} dice in play, {n} dice are already set aside this turn, worth at least {minimum} points, "
                    "but the turn total is {total}: give the points set aside so far, or roll all six dice",
                    aside, left=state.dice_in_play, minimum=minimum, total=state.turn_total), "KOCKA-5")
        if state.stage == STAGE_SET_ASIDE:
            try:
                roll = validate_dice(state.roll if state.roll is not None else (), state.dice_in_play, what=N_("the roll"))
            except KockaError as exc:
                raise _invalid(str(exc)) from None
            if roll != state.roll:
                raise _invalid(_("the roll must list its dice from low to high, not {dice}", dice=shown(state.roll)))
            result = self.roll_result(state, roll)
            if result == "bust":
                raise _invalid(_("the roll {dice} scores nothing, so the turn is lost: there is nothing to decide",
                                 dice=shown(roll)), "KOCKA-9")
            if result != "live":
                raise _invalid(_("the roll {dice} wins the game at once: there is nothing to decide", dice=shown(roll)),
                               "KOCKA-19")

    def _check_series(self, state: KockaState) -> None:
        if state.joker is not None and (isinstance(state.joker, bool) or state.joker not in FACES):
            raise _invalid(_("the joker must be a face from 1 to 6, not {value}", value=shown(state.joker)), "KOCKA-18")
        if state.joker is not None and not (state.series is not None and state.series[1] == NUM_DICE - 1
                                            and state.stage in (STAGE_ROLL, STAGE_SET_ASIDE)):
            raise _invalid(_("a joker is named only for the last die of a series"), "KOCKA-18")
        if state.series is None:
            if state.stage == STAGE_JOKER:
                raise _invalid(_("a joker is named only during a series"), "KOCKA-18")
            return
        series = state.series
        if (not isinstance(series, tuple) or len(series) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in series)
                or series[0] not in FACES or not 1 <= series[1] <= NUM_DICE):
            raise _invalid(_("a series is a face from 1 to 6 and the number of dice collected, 1 to 6, not {value}",
                             value=shown(series)))
        face, collected = series
        banked = state.scores[state.player]
        if banked < self.rules.series_threshold:
            raise _invalid(_("a series needs a banked score of {threshold} or more, but {player} has {score}",
                             threshold=self.rules.series_threshold, player=seat_label(state.player), score=banked),
                           "KOCKA-14")
        if state.stage == STAGE_BANK_OR_ROLL:
            raise _invalid(_("a series cannot be banked"), "KOCKA-16")
        if collected < NUM_DICE:
            if state.dice_in_play != NUM_DICE - collected:
                raise _invalid(ngettext("a series with {n} die collected leaves {left} dice in play, not {value}",
                                        "a series with {n} dice collected leaves {left} dice in play, not {value}",
                                        collected, left=NUM_DICE - collected, value=shown(state.dice_in_play)))
            if (state.stage == STAGE_JOKER) != (collected == NUM_DICE - 1 and state.last_event == "series"):
                raise _invalid(ngettext("the stage {stage} does not fit a series with {n} die collected",
                                        "the stage {stage} does not fit a series with {n} dice collected",
                                        collected, stage=state.stage), "KOCKA-18")
            if self.rules.series_start == "opening_roll" and state.turn_total:
                raise _invalid(_("a series starts on the opening roll, so the turn total must be 0, not {total}",
                                 total=state.turn_total), "KOCKA-14")
            if state.joker == face:
                raise _invalid(_("the joker must differ from the series face {face}", face=face), "KOCKA-18")
        else:
            if state.turn_total < series_value(face):
                raise _invalid(_("a complete series of {face}s is worth {value}, but the turn total is {total}",
                                 face=face, value=series_value(face), total=state.turn_total), "KOCKA-17")

    def _check_game_end(self, state: KockaState) -> None:
        rules, n = self.rules, self.num_players
        if state.reached_by is None:
            if state.final_turns is not None:
                raise _invalid(_("final turns are played only after a player reaches the target"), "KOCKA-20")
            if state.stage != STAGE_OVER and max(state.scores) >= rules.target:
                raise _invalid(_("a score of {score} has reached the target {target}, but nobody is marked as "
                                 "having reached it", score=max(state.scores), target=rules.target), "KOCKA-20")
        else:
            if isinstance(state.reached_by, bool) or state.reached_by not in range(n):
                raise _invalid(_("the player who reached the target must be one of the {count} players, not {value}",
                                 count=n, value=shown(state.reached_by)))
            if state.scores[state.reached_by] < rules.target:
                raise _invalid(_("{player} has {score}, below the target {target}", player=seat_label(state.reached_by),
                                 score=state.scores[state.reached_by], target=rules.target), "KOCKA-20")
            after = self._turns_after_reaching(state.reached_by)
            if (isinstance(state.final_turns, bool) or not isinstance(state.final_turns, int)
                    or not 0 <= state.final_turns <= after):
                raise _invalid(_("the final turns left must be from 0 to {most} under these rules, not {value}",
                                 most=after, value=shown(state.final_turns)), "KOCKA-20")
            if state.stage != STAGE_OVER:
                if state.final_turns == 0:
                    raise _invalid(_("no final turns are left, so the game must be over"), "KOCKA-20")
                expected = (state.reached_by + after - state.final_turns + 1) % n
                if state.player != expected:
                    raise _invalid(ngettext("with {n} final turn left it is the turn of {player}, not of {other}",
                                            "with {n} final turns left it is the turn of {player}, not of {other}",
                                            state.final_turns, player=seat_label(expected),
                                            other=seat_label(state.player)), "KOCKA-20")
        if state.stage != STAGE_OVER:
            return
        winners = state.winners
        if (not isinstance(winners, tuple) or not winners or list(winners) != sorted(set(winners))
                or any(w not in range(n) for w in winners)):
            raise _invalid(_("the winners must be different players, in seat order, not {value}", value=shown(winners)))
        if state.last_event == "six_ones":
            if winners != (state.player,):
                raise _invalid(_("six 1s win the game for {player} alone", player=seat_label(state.player)), "KOCKA-19")
            return
        if state.final_turns != 0:
            raise _invalid(_("the game ends when a player reaches the target and the final turns are played"), "KOCKA-20")
        best = max(state.scores)
        if winners != tuple(seat for seat, s in enumerate(state.scores) if s == best):
            raise _invalid(_("the winners must be the players with the best score, {best}", best=best), "KOCKA-20")

    def scores_so_far(self, state: KockaState) -> tuple[int, ...]:
        """The banked scores (KOCKA-1, KOCKA-12)."""
        return tuple(state.scores)

    def dice_in_view(self, state: KockaState) -> Dice | None:
        """The roll to set dice aside from (``"set_aside"``), else None."""
        return state.roll

    def rethrow_size(self, state: KockaState) -> int | None:
        """The dice left at ``"bank_or_roll"`` (KOCKA-12), else None."""
        return state.dice_in_play if state.stage == STAGE_BANK_OR_ROLL else None

    def turn_total(self, state: KockaState) -> int:
        """The state's ``turn_total`` (KOCKA-10, KOCKA-16)."""
        return state.turn_total

    def turn_event(self, state: KockaState) -> str:
        """The state's ``last_event`` (:data:`EVENT_STAGES`)."""
        return state.last_event

    def dice_in_play(self, state: KockaState) -> int:
        """The state's ``dice_in_play`` (KOCKA-10)."""
        return state.dice_in_play

    def keep_action(self, state: KockaState, dice: tuple[int, ...]) -> SetAside | TakeSeries:
        """A :class:`SetAside` of ``dice`` (KOCKA-10); while a series runs, a
        :class:`TakeSeries` of as many dice (KOCKA-15)."""
        return TakeSeries(len(dice)) if state.series_running else SetAside(dice)

    def describe_state(self, state: KockaState) -> str:
        """One line for people, in the language in force: who is to do what, the banked
        scores, the turn total, the dice in play, and the roll, series and joker when there
        are any."""
        player = seat_label(state.player)
        parts = [_(_STAGE_WORDS[state.stage], player=player),
                 _("banked {scores}", scores=", ".join(str(s) for s in state.scores)),
                 _("turn total {total}", total=state.turn_total),
                 ngettext("{n} die in play", "{n} dice in play", state.dice_in_play)]
        if state.roll is not None:
            parts.append(_("thrown {dice}", dice=dice_text(state.roll)))
        if state.series is not None:
            face, collected = state.series
            parts.append(_("the series of {face}s is complete", face=face) if collected == NUM_DICE
                         else ngettext("series of {face}s with {n} die aside", "series of {face}s with {n} dice aside",
                                       collected, face=face))
        if state.joker is not None:
            parts.append(_("joker {face}", face=state.joker))
        return "; ".join(parts)


_STAGE_WORDS = {
    STAGE_ROLL: N_("{player} to throw"), STAGE_SET_ASIDE: N_("{player} to set dice aside"),
    STAGE_BANK_OR_ROLL: N_("{player} to bank or throw again"), STAGE_JOKER: N_("{player} to name the joker"),
    STAGE_OVER: N_("the game is over"),
}
"""What the player on turn is to do at each stage, as :meth:`KockaGame.describe_state` says it."""


__all__ = [
    "Bank", "EVENT_STAGES", "KockaGame", "KockaState", "NameJoker", "Roll", "STAGES", "SetAside",
    "StartSeries", "TakeSeries",
]


register_game(GameSpec(
    name="kocka", title="Hungarian 10000 (Kocka)", engine=KockaGame, players=(1, 6), outcome="win",
    words=Words("hu"),
    tables=(
        TableKind("winprob", "kocka.solver.solvers.kocka.tables:KOCKA_WINPROB"),
        TableKind("turn_ev", "kocka.solver.solvers.kocka.tables:KOCKA_TURN_EV"),
        TableKind("turn_reach", "kocka.solver.solvers.kocka.tables:KOCKA_TURN_REACH"),
        TableKind("winprob3", "kocka.solver.solvers.kocka.tables:KOCKA_WINPROB3"),
        TableKind("winprob4", "kocka.solver.solvers.kocka.tables:KOCKA_WINPROB4"),
    ),
    hint="kocka.agents.advice.kocka:hint", hint_parameters="kocka.agents.advice.kocka:KockaHintParams",
    view="kocka.agents.frontends.games.views:render_kocka",
    companion="kocka.agents.advice.table_talk:KOCKA_TALK",
    agents=(
        AgentEntry("optimal", "kocka.agents.bots.catalogue:kocka_optimal",
                   "plays the best action by P(win): exact for two players under every end rule and for "
                   "three under kocka.end=immediate (without that table here: the race against the leader, and the "
                   "hint says so); otherwise the leading opponents stand for all"),
        AgentEntry("leader", "kocka.agents.bots.catalogue:kocka_leader",
                   "P(win) from the two-player table against the leading opponent (exact for two players; "
                   "the approximation measured against optimal for three and four)"),
        AgentEntry("ev", "kocka.agents.bots.catalogue:kocka_ev",
                   "maximises the expected points banked this turn (turn EV table)"),
        AgentEntry("heuristic", "kocka.agents.bots.heuristic:kocka_heuristic",
                   "a human-like rule set, documented in kocka.agents.bots.heuristic"),
        AgentEntry("bold", "kocka.agents.bots.heuristic:bold_factory", "chases series and big turns, banks late"),
        AgentEntry("cautious", "kocka.agents.bots.heuristic:cautious_factory",
                   "never starts a series and banks every allowed total"),
        AgentEntry("adaptive", "kocka.agents.bots.adaptive_kocka:adaptive_factory",
                   "fits each opponent's banking policy at the table and plays the best reply to it once "
                   "confident, else the optimal move (documented in kocka.agents.bots.adaptive_kocka)"),
    ),
    judges=("optimal", "ev"),
))
