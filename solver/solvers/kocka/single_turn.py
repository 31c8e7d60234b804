"""One Kocka turn on its own: the expected points it banks (``turn_ev``) and the chance that
it banks at least T points (``turn_reach``).

``turn_reach`` needs no cap on the turn total (a bank of T or more succeeds). ``turn_ev`` is
cut at :data:`EV_CAP_UNITS` (100000 points) by a policy that banks there and counts a
compulsory roll there as a bust: a lower bound, and ``tests/test_kocka_solver.py`` shows the
values do not move when the cap is doubled (reaching 100000 points in one turn needs well
over a hundred full rolls).
"""
from __future__ import annotations

import numpy as np

from kocka.solver.base.errors import RulesError
from kocka.solver.base.table_file import Table
from kocka.solver.solvers.kocka.kocka_turn import UNIT, KockaModel
from kocka.solver.solvers.kocka.turn_model import TurnValues, solve_turn

EV_CAP_UNITS = 2000
"""Turn totals (units) beyond which the EV table banks at once (see the module docstring)."""


def turn_ev_values(model: KockaModel, phase: int, cap: int = EV_CAP_UNITS) -> TurnValues:
    """Expected points banked this turn (bust = 0) for every turn state, in points."""
    bank = np.arange(cap, dtype=np.float64) * UNIT
    return solve_turn(model.turn, phase, bank, cap, bust=0.0, boundary="ev")


def turn_reach_values(model: KockaModel, phase: int, target_units: int) -> TurnValues:
    """P(this turn banks at least ``target_units``) for every turn state."""
    if target_units < 1:
        raise RulesError(f"the points to reach must be at least {UNIT}, got {target_units * UNIT!r}")
    bank = np.zeros(target_units)  # banks of target_units or more succeed
    return solve_turn(model.turn, phase, bank, target_units, bust=0.0, boundary="goal")


def ev_table_values(model: KockaModel, table: Table, phase: int) -> TurnValues:
    """A stored ``turn_ev`` table as :class:`TurnValues`."""
    ev = table["ev"][phase]
    return TurnValues(model.turn, model.turn.phases[phase], ev, np.zeros_like(ev), ev.shape[0], "ev", 0.0)


__all__ = ["EV_CAP_UNITS", "ev_table_values", "turn_ev_values", "turn_reach_values"]
