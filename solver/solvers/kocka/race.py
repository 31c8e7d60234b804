"""The two-player race to a goal: the first to bank ``goal`` units wins (Pig; Kocka under
``kocka.end = immediate``, KOCKA-20).

:func:`solve_race` solves it exactly in the Cython kernel (score pairs in decreasing a + b,
the bust fixed point between (a, b) and (b, a) by Newton steps). No cap on the turn total
is needed: once a bank would reach the goal, the only question left is whether the turn
ends in a bank at all, a constant per roll kind
(:attr:`~kocka.solver.solvers.kocka.turn_model.TurnModel.tail_success`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from kocka.solver.base.errors import InvalidStateError, RulesError
from kocka.solver.kernels import _kocka
from kocka.solver.solvers.kocka.turn_model import TurnModel, TurnValues, solve_turn


@dataclass(frozen=True)
class RaceSolution:
    """``win[a, b]``: P(the player to move wins | his banked units a, the other's b)."""

    win: np.ndarray
    seconds: float
    turn_evaluations: int
    turn_rows: int
    unconverged: int

    @property
    def first_player(self) -> float:
        return float(self.win[0, 0])

    @property
    def positions(self) -> int:
        """Distinct (banked scores, turn total) positions of the race; each holds one state
        per roll kind of its phase (seven or eight in Kocka)."""
        g = self.win.shape[0]
        return int(g * g * (g + 1) // 2)


def solve_race(model: TurnModel, goal: int, threads: int = 1, tol: float = 1e-13) -> RaceSolution:
    """Solve the two-player race to ``goal`` units exactly (see :mod:`_kocka`)."""
    if goal < 1:
        raise RulesError(f"goal must be at least one unit, got {goal!r}")
    win = np.zeros((goal, goal))
    start = time.perf_counter()
    evals, rows, failed = _kocka.solve_race(model.race_turn(), win, tol, max(1, threads))
    return RaceSolution(win, time.perf_counter() - start, int(evals), int(rows), int(failed))


def race_turn_values(model: TurnModel, win: np.ndarray, a: int, b: int) -> TurnValues:
    """The turn of the player to move at banked units (a, b), valued by P(win) from the
    race table ``win``: bank t -> 1 - win[b, a + t] (1 at the goal), bust -> 1 - win[b, a]."""
    goal = win.shape[0]
    if not (0 <= a < goal and 0 <= b < goal):
        raise InvalidStateError(f"scores must be below the goal of {goal} units, got ({a!r}, {b!r})")
    t = np.arange(goal - a)
    bank = 1.0 - win[b, a + t]
    return solve_turn(model, model.phase_index(a), bank, goal - a, bust=1.0 - float(win[b, a]), boundary="goal")


__all__ = ["RaceSolution", "race_turn_values", "solve_race"]
