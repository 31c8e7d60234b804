"""The two-player Kocka race (``kocka.end = immediate``, KOCKA-20) against an opponent whose
turns follow a *fixed* policy: the best reply table.

The opponent's turn from b units is the chain of
:meth:`~kocka.solver.solvers.kocka.policy_turns.PolicyTurnOutcomes.transition` (bank t,
stay, or reach the goal), one outcome table per phase (KOCKA-2); the player to reply
maximises P(win) over his own turn with the turn model
(:func:`~kocka.solver.solvers.kocka.turn_model.solve_turn`). A one-sided value iteration:

* ``reply[a, b]``: P(the replying player wins | his turn, his a units against b);
* ``waiting[a, b]``: P(he wins | the opponent's turn, the same scores)
  ``= sum_t move_b[t] reply[a, b + t] + stay_b reply[a, b]`` (reaching the goal: 0).

A bank of the reply's own turn moves to ``waiting[a + t, b]`` (1 at the goal), a bust to
``waiting[a, b]``; the score pairs are solved in decreasing a + b, and each pair's fixed
point ``reply = f(c + stay reply)`` (f the opening value of the turn as a function of the
bust value: convex, piecewise linear, with its slope from the kernel) by Newton steps,
which end in finitely many on a piecewise-linear f.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from kocka.solver.base.errors import InvalidStateError, RulesError
from kocka.solver.solvers.kocka.policy_turns import PolicyTurnOutcomes
from kocka.solver.solvers.kocka.turn_model import TurnModel, TurnValues, solve_turn

NEWTON_STEPS = 50
TOLERANCE = 1e-13


@dataclass(frozen=True)
class BestReply:
    """``reply[a, b]`` and ``waiting[a, b]`` of the module docstring (units)."""

    reply: np.ndarray
    waiting: np.ndarray
    turn_evaluations: int

    @property
    def goal(self) -> int:
        return self.reply.shape[0]


def opponent_chain(outcomes: Sequence[PolicyTurnOutcomes], threshold: int, goal: int
                   ) -> list[tuple[np.ndarray, float, float]]:
    """``chain[b] = (move, stay, reach)`` for every opponent score b < goal, with
    ``outcomes[p]`` the turn of phase p (0: below ``threshold`` units, 1: from it)."""
    return [outcomes[1 if b >= threshold else 0].transition(b, goal) for b in range(goal)]


def solve_best_reply(model: TurnModel, goal: int, outcomes: Sequence[PolicyTurnOutcomes]) -> BestReply:
    """The best reply table against an opponent whose turn in phase p is ``outcomes[p]``."""
    if goal < 1:
        raise RulesError(f"goal must be at least one unit, got {goal!r}")
    chain = opponent_chain(outcomes, model.threshold, goal)
    reply = np.zeros((goal, goal))
    waiting = np.zeros((goal, goal))
    evaluations = 0
    for total in range(2 * goal - 2, -1, -1):
        for a in range(max(0, total - goal + 1), min(goal - 1, total) + 1):
            b = total - a
            move, stay, _reach = chain[b]
            ahead = reply[a, b + 1: b + len(move)]
            moved = float(np.dot(move[1: 1 + len(ahead)], ahead))
            bank = waiting[a:, b].copy()  # bank t -> waiting[a + t, b]; t = 0 is never banked
            guess = reply[a, b + 1] if b + 1 < goal else 0.5
            for _step in range(NEWTON_STEPS):
                bust = moved + stay * guess
                tv = solve_turn(model, model.phase_index(a), bank, goal - a, bust=bust, boundary="goal")
                evaluations += 1
                value, slope = opening_value_and_slope(tv)
                new = (value + slope * (moved - bust)) / (1.0 - slope * stay)
                done = abs(new - guess) < TOLERANCE
                guess = new
                if done:
                    break
            reply[a, b] = guess
            waiting[a, b] = moved + stay * guess
    return BestReply(reply, waiting, evaluations)


def opening_value_and_slope(tv: TurnValues) -> tuple[float, float]:
    """The opening value of a turn and its derivative in the bust value."""
    slot = tv.model.roll_slot(tv.phase.opening_kind)
    return float(tv.val[0, slot]), float(tv.slope[0, slot])


def best_reply_turn_values(model: TurnModel, table: BestReply, a: int, b: int) -> TurnValues:
    """The replying player's turn at (a, b), valued by P(win) from ``table``."""
    goal = table.goal
    if not (0 <= a < goal and 0 <= b < goal):
        raise InvalidStateError(f"scores must be below the goal of {goal} units, got ({a!r}, {b!r})")
    return solve_turn(model, model.phase_index(a), table.waiting[a:, b].copy(), goal - a,
                      bust=float(table.waiting[a, b]), boundary="goal")


__all__ = ["BestReply", "best_reply_turn_values", "opening_value_and_slope", "opponent_chain", "solve_best_reply"]
