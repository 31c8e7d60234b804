"""``kocka hint kocka``: what a player types about a Kocka position, turned into a ranking.

The input is the roll to use (``--dice``), or, without one, the bank-or-roll choice with
``--dice-left`` dice left; ``--score``, ``--opponent`` and ``--turn-total`` give the
numbers around it, or ``--state`` a whole state document. The engine builds and checks
the position (:meth:`~kocka.solver.rules.kocka.KockaGame.position`); the values come from
:mod:`kocka.solver.kocka_solver`: P(win) from the two-player table when the scores are
given, else the expected points banked this turn.
"""
from __future__ import annotations

from typing import Mapping

from kocka.agents.frontends.hint import HintParams, HintReport
from kocka.solver import kocka_solver, registry
from kocka.solver.decision import Decision
from kocka.solver.dice import validate_dice
from kocka.solver.errors import DiceError, RulesError
from kocka.solver.rules.kocka import KockaGame, KockaState


def hint(game: KockaGame, params: HintParams) -> HintReport:
    """Rank the actions for the roll ``params.dice`` (or, with no dice, the bank-or-roll
    choice with ``params.dice_left`` dice), by P(win) when the scores are given (the
    winprob table), else by expected points this turn."""
    if not isinstance(game, KockaGame):
        raise RulesError(f"the Kocka hint needs a KockaGame, got {type(game).__name__}")
    if params.state is not None:
        doc = params.state
        players = doc.get("players", 2) if isinstance(doc, Mapping) else 2
        game = KockaGame(game.rules, num_players=players)
        state = game.state_from_json(doc)
    else:
        game = KockaGame(game.rules, num_players=2)
        state = typed_position(game, params)
    notes = []
    if game.num_players >= 2 and (params.opponent is not None or params.state is not None):
        table = registry.get_table(game, "winprob", params.cache_dir, build_missing=params.build_missing)
        decisions = [Decision(d.action, d.value, f"{d.label} [EV {d.detail['ev']:.1f}]", d.detail)
                     for d in kocka_solver.rank_with_details(game, table, state)]
        value_name = "P(win)"
        leader = " (the leading opponent stands for all)" if game.num_players > 2 else ""
        notes.append(f"P(win) from the exact two-player table{leader}; EV = expected points banked this turn "
                     "if the rest of it maximises them; reach_target = P(banking the "
                     f"{game.points_to_target(state)} still needed this turn)")
    else:
        decisions = kocka_solver.rank_by_turn_ev(game, state)
        value_name = "expected points this turn"
    phase = game.phase(state).replace("_", " ")
    return HintReport(f"kocka: {game.describe_state(state)} ({phase} phase)", value_name, decisions, tuple(notes))


def typed_position(game: KockaGame, params: HintParams) -> KockaState:
    """The position the command line describes: ``--dice`` (the roll to use) or
    ``--dice-left`` (bank or roll?), with ``--score``, ``--opponent`` and
    ``--turn-total`` (0 when not given)."""
    if params.dice is None and params.dice_left is None:
        raise DiceError("kocka hint needs --dice (the roll to use) or --dice-left with --turn-total (bank or roll?)")
    if params.dice is not None and params.dice_left is not None:
        if params.dice_left != len(validate_dice(params.dice)):
            raise DiceError(f"--dice-left {params.dice_left!r} must equal the number of dice rolled, "
                            f"got {list(params.dice)!r}")
    return game.position((params.score or 0, params.opponent or 0), turn_total=params.turn_total or 0,
                         roll=params.dice, dice_left=params.dice_left)


__all__ = ["hint", "typed_position"]
