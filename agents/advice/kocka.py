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
from typing import Mapping

from kocka.agents.advice.hint import HintParams, HintReport, hint_option
from kocka.solver.solvers.kocka import ranking as kocka_ranking
from kocka.solver.store import table_store
from kocka.solver.base.decision import Decision
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import DiceError, RulesError
from kocka.solver.rules.kocka import KockaGame, KockaState


def banked_scores(text: str) -> tuple[int, ...]:
    """``--opponents`` as typed: banked scores separated by commas (``4500,8000``)."""
    try:
        return tuple(int(part.strip()) for part in text.split(","))
    except ValueError:
        raise RulesError(f"--opponents must be banked scores separated by commas, e.g. 4500,8000, got {text!r}") from None


@dataclass(frozen=True)
class KockaHintParams(HintParams):
    """What ``kocka hint kocka`` takes: the roll to use, or the dice left to bank or roll,
    and the banked scores around it (none: rank by the points of this turn alone)."""

    dice: tuple[int, ...] | None = hint_option(
        "The dice just rolled, to choose which to set aside, e.g. --dice 1 1 1 5 5 2 (the values after --dice "
        "are collected).", type=int, rest=True, metavar="DIE")
    score: int | None = hint_option("Your banked score (default 0).", type=int)
    opponent: int | None = hint_option(
        "The other player's banked score: ranks by P(win) against him (the two-player table of kocka-solve "
        "build kocka).", type=int)
    opponents: tuple[int, ...] | None = hint_option(
        "The other players' banked scores in turn order after you, e.g. --opponents 4500,8000 (one to five; "
        "instead of --opponent).", parse=banked_scores, metavar="SCORES")
    turn_total: int | None = hint_option("Points already set aside this turn (default 0).", type=int)
    dice_left: int | None = hint_option(
        "How many dice were rolled for --dice; without --dice (and with --turn-total): bank, or roll this many "
        "dice?", type=int)


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
        kind = kocka_ranking.win_table_kind(game)
        table = table_store.get_table(game, kind, params.cache_dir, build_missing=params.build_missing)
        decisions = [Decision(d.action, d.value, f"{d.label} [EV {d.detail['ev']:.1f}]", d.detail)
                     for d in kocka_ranking.rank_with_details(game, table, state)]
        value_name = "P(win)"
        notes.append(f"P(win) {_source(game, kind, state)}; EV = expected points banked this turn if the rest of "
                     "it maximises them; reach_target = P(banking the "
                     f"{game.points_to_target(state)} still needed this turn)")
    else:
        decisions = kocka_ranking.rank_by_turn_ev(game, state)
        value_name = "expected points this turn"
    phase = game.phase(state).replace("_", " ")
    return HintReport(f"kocka: {game.describe_state(state)} ({phase} phase)", value_name, decisions, tuple(notes))


def _source(game: KockaGame, kind: str, state: KockaState) -> str:
    """Where the P(win) figures come from, as a player reads it."""
    n = game.num_players
    if state.final_turns is not None:
        return "of this last turn, beating the best of the other scores (KOCKA-20)"
    if kind == "winprob3":
        if n == 3:
            return "from the exact three-player table (the chance if every player plays to win from here)"
        return "from the three-player table, with the two leading opponents standing for all"
    if n == 2:
        return "from the exact two-player table (the chance if both play to win from here)"
    return "from the two-player table, with the leading opponent standing for all"


def opponent_scores(params: KockaHintParams) -> tuple[int, ...]:
    """The other players' banked scores: ``--opponent`` (one) or ``--opponents`` (in turn
    order after the player); () when neither is given."""
    scores = params.opponents
    if scores is None:
        return () if params.opponent is None else (params.opponent,)
    if params.opponent is not None:
        raise RulesError("give --opponent or --opponents, not both")
    if not 1 <= len(scores) <= 5:
        raise RulesError(f"--opponents takes one to five scores (Kocka seats two to six players), got {len(scores)}")
    return scores


def typed_position(game: KockaGame, params: KockaHintParams, opponents: tuple[int, ...] | None = None) -> KockaState:
    """The position the command line describes: ``--dice`` (the roll to use) or
    ``--dice-left`` (bank or roll?), with ``--score``, the opponents' scores and
    ``--turn-total`` (0 when not given)."""
    if params.dice is None and params.dice_left is None:
        raise DiceError("kocka hint needs --dice (the roll to use) or --dice-left with --turn-total (bank or roll?)")
    if params.dice is not None and params.dice_left is not None:
        if params.dice_left != len(validate_dice(params.dice)):
            raise DiceError(f"--dice-left {params.dice_left!r} must equal the number of dice rolled, "
                            f"got {list(params.dice)!r}")
    others = opponents if opponents is not None else opponent_scores(params)
    others = others or (0,) * (game.num_players - 1)
    return game.position((params.score or 0, *others), turn_total=params.turn_total or 0,
                         roll=params.dice, dice_left=params.dice_left)


__all__ = ["KockaHintParams", "banked_scores", "hint", "opponent_scores", "typed_position"]
