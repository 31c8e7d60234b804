"""Engine states onto the Kocka turn model: where each legal action of a decision state
leads (:func:`action_prospects`), and what it is worth under any
:class:`~kocka.solver.solvers.kocka.turn_model.TurnValues` (:func:`prospect_value`). The
ranking and the tables' independent checks both read actions this way."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kocka.solver.base.errors import InvalidStateError
from kocka.solver.rules.kocka import (
    STAGE_BANK_OR_ROLL, STAGE_JOKER, Bank, KockaGame, KockaState, NameJoker, Roll, SetAside, StartSeries,
    TakeSeries,
)
from kocka.solver.rules.kocka_scoring import series_value
from kocka.solver.solvers.kocka.kocka_turn import kocka_model, to_units
from kocka.solver.solvers.kocka.turn_model import TurnValues


@dataclass(frozen=True)
class Prospect:
    """Where an action leads: turn total (units), a :class:`TurnModel` slot (the bank
    slot for :class:`Bank`), and the chance q that it pays out (a series completing;
    otherwise the turn busts)."""

    total: int
    slot: int
    q: float = 1.0


def action_prospects(game: KockaGame, state: KockaState) -> list[tuple[Any, Prospect, str]]:
    """Every legal action at a decision state with where it leads in the turn model."""
    if game.is_terminal(state) or game.is_chance_node(state):
        raise InvalidStateError(f"kocka: no decision to rank at stage {state.stage!r}")
    model = kocka_model(game.rules)
    tm = model.turn
    phase = tm.phase_index(to_units(state.scores[state.player]))
    t = to_units(state.turn_total)
    out = []
    for action in game.legal_actions(state):
        if isinstance(action, Bank):
            out.append((action, Prospect(t, tm.bank_slot), f"bank {state.turn_total}"))
        elif isinstance(action, Roll) and state.stage == STAGE_BANK_OR_ROLL:
            kind = model.keys[("roll", state.dice_in_play, model.series_on_reroll(phase))]
            dice = "1 die" if state.dice_in_play == 1 else f"{state.dice_in_play} dice"
            out.append((action, Prospect(t, tm.roll_slot(kind)), f"roll {dice}"))
        elif state.stage == STAGE_JOKER:
            face, _ = state.series
            joker = action.face if isinstance(action, NameJoker) else None
            label = f"name {joker} as joker and roll" if joker else "roll the last die without a joker"
            out.append((action, Prospect(t + to_units(series_value(face)), model.completion_slot(phase, face),
                                         model.series.last_die[(face, joker)]), label))
        elif isinstance(action, SetAside):
            value = game.set_aside_points(state, action.dice)
            left = state.dice_in_play - len(action.dice)
            slot = model.after_set_aside_slot(phase, left)
            what = "all six come back" if left == 0 else f"{left} {'die' if left == 1 else 'dice'} left"
            out.append((action, Prospect(t + to_units(value), slot),
                        f"set aside {' '.join(map(str, action.dice))} (+{value}, {what})"))
        elif isinstance(action, StartSeries):
            out.append((action, Prospect(t + to_units(series_value(action.face)), model.completion_slot(phase, action.face),
                                         model.series.after[(action.face, action.count)]),
                        f"start a series of {action.face}s with {action.count}"))
        elif isinstance(action, TakeSeries):
            face, collected = state.series
            out.append((action, Prospect(t + to_units(series_value(face)), model.completion_slot(phase, face),
                                         model.series.after[(face, collected + action.count)]),
                        f"take {action.count} more {face}s ({collected + action.count} of 6)"))
        else:
            raise InvalidStateError(f"kocka: cannot value {game.describe_action(action, state)!r} at stage {state.stage!r}")
    return out


def prospect_value(tv: TurnValues, p: Prospect) -> float:
    """The value of reaching ``p`` under ``tv`` (a lottery when the action may bust)."""
    return tv.lottery(p.total, p.slot, p.q)


__all__ = ["Prospect", "action_prospects", "prospect_value"]
