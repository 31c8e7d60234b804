"""Exact linear programming in :class:`~fractions.Fraction`: a two-phase simplex
(:func:`solve_lp`) and, on it, the exact equilibrium of a zero-sum one-shot signalling game
(:func:`solve_signalling`), the building block of every bluff equilibrium here: an Abázs
stage (:mod:`kocka.solver.solvers.bluff.abazs`) and a betting stage the closed form of
:mod:`kocka.solver.solvers.bluff.stage` leaves degenerate. Exact, so that an equilibrium can be
certified by LP duality (equal optimal values of the two players' programs) rather than
trusted to a floating-point tolerance; scipy is not needed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence


class LPError(ArithmeticError):
    """An infeasible or unbounded linear program (a bug in a stage model, never input)."""


@dataclass(frozen=True)
class LPSolution:
    """An optimal solution: ``value``, the point ``x`` and the dual prices ``duals`` of the
    ``<=`` constraints (nonnegative; the value's rate of change with each bound)."""

    value: Fraction
    x: list[Fraction]
    duals: list[Fraction]


def solve_lp(
    objective: Sequence[Any],
    a_ub: Sequence[Sequence[Any]] = (),
    b_ub: Sequence[Any] = (),
    a_eq: Sequence[Sequence[Any]] = (),
    b_eq: Sequence[Any] = (),
) -> LPSolution:
    """Maximise ``objective . x`` subject to ``a_ub x <= b_ub``, ``a_eq x = b_eq``,
    ``x >= 0``, exactly (two-phase tableau simplex over Fractions, Bland's rule, so it
    cannot cycle). The duals are read off the final reduced costs of the slack columns
    (a slack's reduced cost is minus its row's price, whatever the row's sign).

    >>> sol = solve_lp([1, 1], [[1, 2], [3, 1]], [4, 6])
    >>> sol.value, sol.x, sol.duals
    (Fraction(14, 5), [Fraction(8, 5), Fraction(6, 5)], [Fraction(2, 5), Fraction(1, 5)])
    """
    n = len(objective)
    rows = [(a, Fraction(b), True) for a, b in zip(a_ub, b_ub)] + [(a, Fraction(b), False) for a, b in zip(a_eq, b_eq)]
    if any(len(a) != n for a, _, _ in rows):
        raise LPError(f"every constraint row needs {n} coefficients")
    n_slack = len(a_ub)
    needs_artificial = [not upper or b < 0 for _, b, upper in rows]
    first_art = n + n_slack
    width = first_art + sum(needs_artificial)
    tableau: list[list[Fraction]] = []
    basis: list[int] = []
    slack_col, art_col = n, first_art
    for (a, b, upper), artificial in zip(rows, needs_artificial):
        row = [Fraction(v) for v in a] + [Fraction(0)] * (width - n) + [b]
        if upper:
            row[slack_col] = Fraction(1)
        if b < 0:
            row = [-v for v in row]
        if artificial:
            row[art_col] = Fraction(1)
            basis.append(art_col)
            art_col += 1
        else:
            basis.append(slack_col)
        slack_col += upper
        tableau.append(row)
    cost: list[Fraction] = []

    def pivot(r: int, c: int) -> None:
        prow = tableau[r]
        if prow[c] != 1:
            inv = 1 / prow[c]
            tableau[r] = prow = [v * inv for v in prow]
        nonzero = [j for j, v in enumerate(prow) if v]
        for i, row in enumerate(tableau):
            f = row[c]
            if i != r and f:
                for j in nonzero:
                    row[j] -= f * prow[j]
        f = cost[c]
        if f:
            for j in nonzero:
                cost[j] -= f * prow[j]
        basis[r] = c

    def optimise() -> None:
        while True:
            enter = next((j for j in range(first_art) if cost[j] > 0), None)
            if enter is None:
                return
            best: tuple[Fraction, int] | None = None
            for i, row in enumerate(tableau):
                if row[enter] > 0:
                    ratio = row[-1] / row[enter]
                    if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                        best = (ratio, i)
            if best is None:
                raise LPError("the linear program is unbounded")
            pivot(best[1], enter)

    # phase 1: drive the artificial variables to 0 (maximise minus their sum)
    cost = [Fraction(0)] * (width + 1)
    for i, b in enumerate(basis):
        if b >= first_art:
            cost = [c + v for c, v in zip(cost, tableau[i])]
    for j in range(first_art, width):
        cost[j] = Fraction(0)
    optimise()
    if cost[-1] != 0:
        raise LPError("the linear program is infeasible")
    for i, b in enumerate(basis):
        if b >= first_art:  # a degenerate artificial left in the basis: swap it out
            j = next((j for j in range(first_art) if tableau[i][j]), None)
            if j is not None:
                pivot(i, j)
    # phase 2: the objective, in reduced-cost form over the current basis
    cost = [Fraction(v) for v in objective] + [Fraction(0)] * (width + 1 - n)
    for i, b in enumerate(basis):
        f = cost[b]
        if f:
            cost = [c - f * v for c, v in zip(cost, tableau[i])]
    optimise()
    x = [Fraction(0)] * n
    for i, b in enumerate(basis):
        if b < n:
            x[b] = tableau[i][-1]
    return LPSolution(-cost[-1], x, [-cost[n + i] for i in range(n_slack)])


@dataclass(frozen=True)
class SignallingSolution:
    """An exact equilibrium of a one-shot signalling game (:func:`solve_signalling`):
    ``value`` to the sender, ``sender[t][m]`` = P(message m | type t), ``receiver[m][a]``
    = P(answer a | message m)."""

    value: Fraction
    sender: tuple[tuple[Fraction, ...], ...]
    receiver: tuple[tuple[Fraction, ...], ...]


def solve_signalling(weights: Sequence[Any], payoffs: Sequence[Sequence[Sequence[Any]]]) -> SignallingSolution:
    """The exact equilibrium of a zero-sum one-shot signalling game: chance draws the
    sender's private type t with probability ``weights[t]``; he sends a message m; the
    receiver sees m only and answers a; the sender gets ``payoffs[t][m][a]`` (every type
    may send every message; message m has the same answers for every type).

    The sender's sequence-form LP: maximise sum_m z_m subject to z_m <= sum_t w_t x_tm
    u(t, m, a) for each answer a of m (z free: z = z+ - z-), sum_m x_tm = 1. The dual
    prices of the rows of a message are the receiver's answer probabilities (dual
    feasibility for the free z_m: they sum to 1). The sender's best reply to them is then
    checked to earn exactly the LP value (LP duality: both strategies are optimal).

    >>> # a good or bad hand; "bet" (answers fold, call: +1, +-2) or "check" (showdown +-1)
    >>> sol = solve_signalling([Fraction(1, 2)] * 2, [[[1, 2], [1]], [[1, -2], [-1]]])
    >>> sol.value, sol.receiver[0]
    (Fraction(1, 3), (Fraction(1, 3), Fraction(2, 3)))
    """
    g, k = len(weights), len(payoffs[0])
    w = [Fraction(v) for v in weights]
    nx = g * k
    n = nx + 2 * k
    a_ub: list[list[Fraction]] = []
    rows_of: list[list[int]] = []
    for m in range(k):
        rows_of.append([])
        for a in range(len(payoffs[0][m])):
            row = [Fraction(0)] * n
            for t in range(g):
                row[t * k + m] = -w[t] * Fraction(payoffs[t][m][a])
            row[nx + m], row[nx + k + m] = Fraction(1), Fraction(-1)
            rows_of[m].append(len(a_ub))
            a_ub.append(row)
    a_eq = [[Fraction(int(t * k <= j < (t + 1) * k)) for j in range(n)] for t in range(g)]
    solution = solve_lp([0] * nx + [1] * k + [-1] * k, a_ub, [0] * len(a_ub), a_eq, [1] * g)
    receiver = tuple(tuple(solution.duals[r] for r in rows) for rows in rows_of)
    best_reply = sum(
        w[t] * max(sum(p * Fraction(u) for p, u in zip(receiver[m], payoffs[t][m])) for m in range(k)) for t in range(g)
    )
    if best_reply != solution.value or not all(p >= 0 for answers in receiver for p in answers):
        raise LPError(f"sender value {solution.value} != best reply {best_reply} to {receiver}")
    sender = tuple(tuple(solution.x[t * k : (t + 1) * k]) for t in range(g))
    return SignallingSolution(solution.value, sender, receiver)


__all__ = ["LPError", "LPSolution", "SignallingSolution", "solve_lp", "solve_signalling"]
