"""``kocka hint kocka``: what a player types about a Kocka position, turned into a ranking.

The input is the roll to use (``--dice``), or, without one, the bank-or-roll choice with
``--dice-left`` dice left; ``--score``, ``--opponent`` (one other player) or
``--opponents 4500,8000`` (the others in turn order after the player) and
``--turn-total`` give the numbers around it, or ``--state`` a whole state document. The
engine builds and checks the position
(:meth:`~kocka.solver.rules.kocka.KockaGame.position`); the values come from
:mod:`kocka.solver.solvers.kocka.ranking`: P(win) from the win table of that many players when
the scores are given (:func:`~kocka.solver.solvers.kocka.ranking.win_table_kind`), else the
expected points banked this turn.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from kocka.agents.advice.hint import HintParams, HintReport, hint_option
from kocka.agents.bots.fallback import LEADER_RACE, TWO_LEADERS, StandIn, kocka_win_table
from kocka.solver.base.i18n import N_, _, ngettext
from kocka.solver.solvers.kocka import ranking as kocka_ranking
from kocka.solver.base.decision import Decision
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import DiceError, RulesError
from kocka.solver.rules.kocka import (
    STAGE_JOKER, Bank, KockaGame, KockaState, NameJoker, Roll, SetAside, StartSeries, TakeSeries,
)
from kocka.solver.rules.kocka_scoring import PHASE_BELOW, PHASE_HIGH
from kocka.solver.rules.words import dice_text, seat_label


def banked_scores(text: str) -> tuple[int, ...]:
    """``--opponents`` as typed: banked scores separated by commas (``4500,8000``)."""
    try:
        return tuple(int(part.strip()) for part in text.split(","))
    except ValueError:
        raise RulesError(_("--opponents must be banked scores separated by commas, e.g. 4500,8000, got {text}",
                           text=text)) from None


@dataclass(frozen=True)
class KockaHintParams(HintParams):
    """What ``kocka hint kocka`` takes: the roll to use, or the dice left to bank or roll,
    and the banked scores around it (none: rank by the points of this turn alone)."""

    dice: tuple[int, ...] | None = hint_option(
        N_("The dice just rolled, to choose which to set aside, e.g. --dice 1 1 1 5 5 2 (the values after --dice "
           "are collected)."), type=int, rest=True, metavar="DIE")
    score: int | None = hint_option(N_("Your banked score (default 0)."), type=int)
    opponent: int | None = hint_option(
        N_("The other player's banked score: ranks by P(win) against him (the two-player table of kocka-solve "
           "build kocka)."), type=int)
    opponents: tuple[int, ...] | None = hint_option(
        N_("The other players' banked scores in turn order after you, e.g. --opponents 4500,8000 (one to five; "
           "instead of --opponent)."), parse=banked_scores, metavar="SCORES")
    turn_total: int | None = hint_option(N_("Points already set aside this turn (default 0)."), type=int)
    dice_left: int | None = hint_option(
        N_("How many dice were rolled for --dice; without --dice (and with --turn-total): bank, or roll this many "
           "dice?"), type=int)


def hint(game: KockaGame, params: KockaHintParams) -> HintReport:
    """Rank the actions for the roll ``params.dice`` (or, with no dice, the bank-or-roll
    choice with ``params.dice_left`` dice), by P(win) when the scores are given (the win
    table for that many players), else by expected points this turn."""
    if not isinstance(game, KockaGame):
        raise RulesError(f"the Kocka hint needs a KockaGame, got {type(game).__name__}")
    opponents = opponent_scores(params)
    if params.state is not None:
        doc = params.state
        players = doc.get("players", 2) if isinstance(doc, Mapping) else 2
        game = KockaGame(game.rules, num_players=players)
        state = game.state_from_json(doc)
    else:
        game = KockaGame(game.rules, num_players=1 + max(1, len(opponents)))
        state = typed_position(game, params, opponents)
    notes = []
    if game.num_players >= 2 and (opponents or params.state is not None):
        table, stand_in = kocka_win_table(game, params.cache_dir, params.build_missing)
        kind = table.meta.kind
        decisions = move_words(game, state, kocka_ranking.rank_with_details(game, table, state))
        value_name = "P(win)"
        columns = ("ev", "reach_target")  # shown beside the chance of winning (value_words names them)
        line = stand_in_line(game, state, stand_in)
        if line:
            notes.append(line)
        notes.append(_("chance of winning: {source}", source=_source(game, kind, state)))
        notes.append(_("expected points this turn: what this turn banks on average if the rest of it is played for "
                       "points; chance to bank what is still needed: the chance that this turn banks the {points} "
                       "points still needed to win", points=game.points_to_target(state)))
    else:
        decisions = move_words(game, state, kocka_ranking.rank_by_turn_ev(game, state))
        value_name = "expected points this turn"
        columns = ()
    position = f"{game.describe_state(state)}; {_(PHASE_WORDS[game.phase(state)])}"
    return HintReport(position, value_name, decisions, tuple(notes), columns)


PHASE_WORDS = {PHASE_BELOW: N_("below 2500 points"), PHASE_HIGH: N_("2500 points or more")}
"""The two phases of a player's score (KOCKA-2) in words."""


def move_words(game: KockaGame, state: KockaState, decisions: list[Decision]) -> list[Decision]:
    """``decisions`` with each move told in the language in force (:func:`move_text`)."""
    return [Decision(d.action, d.value, move_text(game, state, d), d.detail) for d in decisions]


def move_text(game: KockaGame, state: KockaState, decision: Decision) -> str:
    """A Kocka move as the hint tells it: what it sets aside and scores, how many dice are
    left, and whether the best play then banks or rolls on ("set aside 1 (+100, 5 dice
    left), then roll on"; "bank 350"; "roll 3 dice")."""
    action = decision.action
    if isinstance(action, Bank):
        return _("bank {points}", points=state.turn_total)
    if state.stage == STAGE_JOKER:
        if isinstance(action, NameJoker):
            return _("name {face} as joker and roll", face=action.face)
        return _("roll the last die without a joker")
    if isinstance(action, Roll):
        return ngettext("roll {n} die", "roll {n} dice", state.dice_in_play)
    if isinstance(action, SetAside):
        left = state.dice_in_play - len(action.dice)
        what = _("all six come back") if left == 0 else ngettext("{n} die left", "{n} dice left", left)
        text = _("set aside {dice} (+{points}, {left})", dice=dice_text(action.dice),
                 points=game.set_aside_points(state, action.dice), left=what)
    elif isinstance(action, StartSeries):
        text = _("start a series of {face}s with {count}", face=action.face, count=action.count)
    elif isinstance(action, TakeSeries):
        face, collected = state.series
        text = _("take {count} more {face}s ({total} of 6)", count=action.count, face=face,
                 total=collected + action.count)
    else:
        return game.describe_action(action, state)
    then = (decision.detail or {}).get("then")
    if then == "bank":
        return _("{move}, then bank", move=text)
    if then == "roll on":
        return _("{move}, then roll on", move=text)
    return text


def _source(game: KockaGame, kind: str, state: KockaState) -> str:
    """Where the P(win) figures come from, as a player reads it."""
    n = game.num_players
    if state.final_turns is not None:
        return _("of this last turn, beating the best of the other scores")
    if kind == "winprob4":
        return _("from the exact four-player table (the chance if every player plays to win from here)")
    if kind == "winprob3":
        if n == 3:
            return _("from the exact three-player table (the chance if every player plays to win from here)")
        return _("from the three-player table, with the two leading opponents standing for all")
    if n == 2:
        return _("from the exact two-player table (the chance if both play to win from here)")
    return _("from the two-player table, with the leading opponent standing for all")


def stand_in_line(game: KockaGame, state: KockaState, stand_in: StandIn | None,
                  names: Sequence[str] | None = None) -> str:
    """The line a Kocka hint shows when it plays a stand-in for the exact method
    (:mod:`kocka.agents.bots.fallback`), in the language in force: which race it plays,
    against whom (``names``: the players' names; else "player 2"), and the build that
    would give the exact (or a closer) hint; "" for the exact method, and in the last turns
    (beating the best of the other scores is the method then, KOCKA-3)."""
    if stand_in is None or stand_in.method not in (LEADER_RACE, TWO_LEADERS) or state.final_turns is not None:
        return ""
    n = stand_in.players
    if stand_in.method == TWO_LEADERS:
        first, second = (_opponent(state, seat, names)
                         for seat in kocka_ranking.leading_opponent_seats(state.scores, state.player, 2))
        if stand_in.exact_exists:
            return _("the exact four-player table is not built here (at the usual target it is a cluster's work: "
                     "{command}): this hint plays the three-player table against the two leading opponents, "
                     "{first} and {second}", command=stand_in.build, first=first, second=second)
        return ngettext("there is no exact table for {n} player: this hint plays the three-player table against "
                        "the two leading opponents, {first} and {second}",
                        "there is no exact table for {n} players: this hint plays the three-player table against "
                        "the two leading opponents, {first} and {second}", n, first=first, second=second)
    leader = _opponent(state, kocka_ranking.leading_opponent_seats(state.scores, state.player, 1)[0], names)
    if stand_in.exact_exists:
        return _("no exact three-player table here: this hint plays the race against the leader, {leader}; "
                 "for the exact hint, build it once: {command}", leader=leader, command=stand_in.build)
    if stand_in.build is not None and n == 4:
        return _("the exact four-player table and the three-player table are not built here: this hint plays the "
                 "race against the leader, {leader}; for a closer one (against the two leading opponents), build "
                 "the three-player table once: {command}", leader=leader, command=stand_in.build)
    if stand_in.build is not None:
        return ngettext("there is no exact table for {n} player: this hint plays the race against the leader, "
                        "{leader}; for a closer one (against the two leading opponents), build the three-player "
                        "table once: {command}",
                        "there is no exact table for {n} players: this hint plays the race against the leader, "
                        "{leader}; for a closer one (against the two leading opponents), build the three-player "
                        "table once: {command}", n, leader=leader, command=stand_in.build)
    return ngettext("there is no exact table for {n} player under this end rule: this hint plays the race "
                    "against the leader, {leader}",
                    "there is no exact table for {n} players under this end rule: this hint plays the race "
                    "against the leader, {leader}", n, leader=leader)


def _opponent(state: KockaState, seat: int, names: Sequence[str] | None) -> str:
    """An opponent as the stand-in line names him: name (or seat) and banked score."""
    return f"{seat_label(seat, names)} ({state.scores[seat]})"  # a name and a number: the same in every language


def opponent_scores(params: KockaHintParams) -> tuple[int, ...]:
    """The other players' banked scores: ``--opponent`` (one) or ``--opponents`` (in turn
    order after the player); () when neither is given."""
    scores = params.opponents
    if scores is None:
        return () if params.opponent is None else (params.opponent,)
    if params.opponent is not None:
        raise RulesError(_("give --opponent or --opponents, not both"))
    if not 1 <= len(scores) <= 5:
        raise RulesError(_("--opponents takes one to five scores (Kocka seats two to six players), got {count}",
                           count=len(scores)))
    return scores


def typed_position(game: KockaGame, params: KockaHintParams, opponents: tuple[int, ...] | None = None) -> KockaState:
    """The position the command line describes: ``--dice`` (the roll to use) or
    ``--dice-left`` (bank or roll?), with ``--score``, the opponents' scores and
    ``--turn-total`` (0 when not given)."""
    if params.dice is None and params.dice_left is None:
        raise DiceError(_("kocka hint needs --dice (the roll to use) or --dice-left with --turn-total (bank or roll?)"))
    if params.dice is not None and params.dice_left is not None:
        if params.dice_left != len(validate_dice(params.dice)):
            raise DiceError(_("--dice-left {count} must equal the number of dice rolled, got {dice}",
                              count=params.dice_left, dice=dice_text(params.dice)))
    others = opponents if opponents is not None else opponent_scores(params)
    others = others or (0,) * (game.num_players - 1)
    return game.position((params.score or 0, *others), turn_total=params.turn_total or 0,
                         roll=params.dice, dice_left=params.dice_left)


__all__ = ["KockaHintParams", "banked_scores", "hint", "opponent_scores", "stand_in_line", "typed_position"]
