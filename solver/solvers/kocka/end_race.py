"""The two-player Kocka game under the end rules that follow the target with more turns
(KOCKA-20: ``kocka.end = last_turn`` or ``finish_round``): the last turn of a player who
must beat the leader, and the race in which a bank reaching the target gives the other
player that last turn.

Every set-aside is a separate choice here
(:attr:`~kocka.solver.solvers.kocka.kocka_turn.KockaModel.turn_full`): near the target the
value of a bank is not monotone in its points. A leader's bank is followed exactly up to
:data:`LEAD_UNITS` past the target.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from kocka.solver.base.errors import InvalidStateError, RulesError
from kocka.solver.kernels import _kocka
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.kocka_turn import KockaModel
from kocka.solver.solvers.kocka.turn_model import TurnValues, solve_turn

LEAD_UNITS = 200
"""How far past the target (units: 10000 points) a leader's bank is followed exactly under
``kocka.end = last_turn`` / ``finish_round``; beyond, every bank counts as this one (see
docs/SOLVER.md: doubling it moves no value)."""


def final_turn_values(model: KockaModel, phase: int, need: int, tie: float = 0.5) -> TurnValues:
    """The last turn of a player who must end ``need`` units above his banked score to win
    (KOCKA-20: the highest score wins; ending level is worth ``tie``, a shared win):
    P(end above) + tie x P(end level), busting (the score stays below) worth 0. A complete
    series of 1s with a scoring re-roll wins at once under ``kocka.ones_series =
    instant_win`` (KOCKA-19). Every bank is at worst level or below, never both better and
    worse, so the pruned turn model is exact here."""
    if need < 0:
        raise InvalidStateError(f"a last turn needs a score to beat, got need {need!r}")
    bank = np.zeros(need + 1)
    bank[need] = tie
    return solve_turn(model.turn, phase, bank, need + 1, bust=0.0, boundary="goal", win_kind=model.win_kind)


def final_turn_table(model: KockaModel, rows: int) -> np.ndarray:
    """``final[p, d]``: :func:`final_turn_values` opening values for d = 0 .. rows - 1, both phases."""
    return np.array([[final_turn_values(model, p, d).opening for d in range(rows)] for p in (0, 1)])


@dataclass(frozen=True)
class EndRaceSolution:
    """The two-player race under ``kocka.end = last_turn`` or ``finish_round``.

    ``win[a, b]``: P(win) of the first seat to move with a against b; ``win_second[b, a]``:
    of the second seat (the same array under ``last_turn``: the seats are alike);
    ``final[p, d]``: P(win) of a last turn in phase p that must gain more than d units
    (a tie worth half); banks are followed exactly up to ``goal + lead`` units.
    """

    win: np.ndarray
    win_second: np.ndarray
    final: np.ndarray
    lead: int
    seconds: float
    turn_evaluations: int
    unconverged: int

    @property
    def first_player(self) -> float:
        return float(self.win[0, 0])


def _leads(rules: KockaRules) -> tuple[int, int]:
    """Does a bank reaching the target by seat 0 / seat 1 give the other a last turn
    (KOCKA-20)? ``last_turn``: both; ``finish_round``: only the first seat's."""
    if rules.end == "last_turn":
        return 1, 1
    if rules.end == "finish_round":
        return 1, 0
    return 0, 0


def solve_race_ends(model: KockaModel, threads: int = 1, lead: int = LEAD_UNITS, tol: float = 1e-13) -> EndRaceSolution:
    """Solve the two-player game under ``model.rules.end`` (``last_turn`` or
    ``finish_round``) exactly, with every set-aside a separate choice (the value of a bank
    is not monotone near the target)."""
    rules = model.rules
    if rules.end == "immediate":
        raise RulesError("under kocka.end='immediate' use solve_race (the pruned model is exact there)")
    tm = model.turn_full
    goal = model.goal
    if lead < max(ph.min_bank for ph in tm.phases) + 1:
        raise RulesError(f"the lead followed past the target must exceed the minimum bank, got {lead!r}")
    top = goal + lead
    start = time.perf_counter()
    final = final_turn_table(model, top + 1)
    lead0, lead1 = _leads(rules)
    win = np.zeros((goal, goal))
    win_second = win if rules.end == "last_turn" else np.zeros((goal, goal))
    beyond = np.ascontiguousarray(np.stack([1.0 - final, 1.0 - final]))
    evals, failed = _kocka.solve_race_ends(tm.race_turn(model.win_kind), win, win_second, beyond, lead0, lead1, top,
                                           tol, max(1, threads))
    return EndRaceSolution(win, win_second, final, lead, time.perf_counter() - start, int(evals), int(failed))


def end_race_turn_values(model: KockaModel, win: np.ndarray, win_second: np.ndarray, final: np.ndarray,
                         seat: int, a: int, b: int) -> TurnValues:
    """The turn of seat ``seat`` (0: the first seat) to move with banked units a against b,
    valued by the tables of :func:`solve_race_ends` (the same turn the kernel solves)."""
    rules = model.rules
    goal = model.goal
    if not (0 <= a < goal and 0 <= b < goal):
        raise InvalidStateError(f"scores must be below the goal of {goal} units, got ({a!r}, {b!r})")
    top = final.shape[1] - 1
    nxt = win_second if seat == 0 else win
    leads = _leads(rules)[seat]
    po = model.turn.phase_index(b)
    cap = top - a if leads else goal - a
    scores_ = a + np.arange(cap)
    bank = np.ones(cap)
    below = scores_ < goal
    bank[below] = 1.0 - nxt[b, scores_[below]]
    if leads:
        bank[~below] = 1.0 - final[po, scores_[~below] - b]
    top_value = float(1.0 - final[po, top - b]) if leads else 1.0
    return solve_turn(model.turn_full, model.turn.phase_index(a), bank, cap, bust=1.0 - float(nxt[b, a]),
                      boundary="goal", top=top_value, win_kind=model.win_kind)



__all__ = [
    "LEAD_UNITS", "EndRaceSolution", "end_race_turn_values", "final_turn_table", "final_turn_values", "solve_race_ends",
]
