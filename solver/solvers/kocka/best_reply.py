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
from kocka.solver.kernels import _kocka
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


@dataclass(frozen=True)
class BestReplyThree:
    """The best reply of one player to two opponents of fixed policies, three players
    (``kocka.end = immediate``), with banked units a (mine), b (the next player's), c (the
    last's): ``to_next[a, b, c]``, my P(win) at the start of the next player's turn (what my
    banks and busts lead to, all my turn needs), and ``starts``, my P(win) from the empty
    scores sitting in seat 0, 1 or 2 (seat 0 begins; the next player is seat + 1, the last
    seat + 2, modulo 3)."""

    to_next: np.ndarray
    starts: tuple[float, float, float]
    turn_evaluations: int

    @property
    def goal(self) -> int:
        return self.to_next.shape[0]


def chain_arrays(outcomes: Sequence[PolicyTurnOutcomes], threshold: int, goal: int) -> tuple[np.ndarray, np.ndarray]:
    """``(move, stay)``, the opponent chain of :func:`opponent_chain` as arrays:
    ``move[b, t]`` (zero from the goal on) and ``stay[b]``."""
    move = np.zeros((goal, goal))
    stay = np.zeros(goal)
    for b, (moves, stays, _reach) in enumerate(opponent_chain(outcomes, threshold, goal)):
        move[b, :len(moves)] = moves
        stay[b] = stays
    return move, stay


def solve_best_reply_three(model: TurnModel, goal: int, next_outcomes: Sequence[PolicyTurnOutcomes],
                           last_outcomes: Sequence[PolicyTurnOutcomes], threads: int = 1) -> BestReplyThree:
    """The best reply table against two opponents, the one after me playing
    ``next_outcomes[p]`` in phase p, the one after him ``last_outcomes[p]``: a one-sided
    value iteration as for two players, each triple a fixed point of my turn, my bust and
    both their stays returning to it (the kernel's ``solve_reply_three``); triples in
    decreasing total, those of one total on ``threads`` threads."""
    if goal < 1:
        raise RulesError(f"goal must be at least one unit, got {goal!r}")
    move_next, stay_next = chain_arrays(next_outcomes, model.threshold, goal)
    move_last, stay_last = chain_arrays(last_outcomes, model.threshold, goal)
    if float((stay_next * stay_last).max()) >= 1.0:
        raise RulesError("both opponents never leave some score: the race would have no end")
    mine, to_next, to_last = (np.zeros((goal, goal, goal)) for _ in range(3))
    evaluations, failed = _kocka.solve_reply_three(model.race_turn(), move_next, stay_next, move_last, stay_last,
                                                   mine, to_next, to_last, TOLERANCE, max(1, threads))
    if failed:
        raise RulesError(f"the best reply's Newton steps did not settle in {failed} score triples")
    starts = (float(mine[0, 0, 0]), float(to_last[0, 0, 0]), float(to_next[0, 0, 0]))
    return BestReplyThree(to_next, starts, int(evaluations))


def best_reply_three_turn_values(model: TurnModel, table: BestReplyThree, a: int, b: int, c: int) -> TurnValues:
    """My turn at (a, b, c), valued by P(win) from ``table``."""
    goal = table.goal
    if not all(0 <= u < goal for u in (a, b, c)):
        raise InvalidStateError(f"scores must be below the goal of {goal} units, got ({a!r}, {b!r}, {c!r})")
    return solve_turn(model, model.phase_index(a), table.to_next[a:, b, c].copy(), goal - a,
                      bust=float(table.to_next[a, b, c]), boundary="goal")


__all__ = ["BestReply", "BestReplyThree", "best_reply_three_turn_values", "best_reply_turn_values", "chain_arrays",
           "opening_value_and_slope", "opponent_chain", "solve_best_reply", "solve_best_reply_three"]
