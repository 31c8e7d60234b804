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
from math import gcd, lcm
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
    ``x >= 0``, exactly (two-phase tableau simplex over the rationals, Bland's rule, so it
    cannot cycle). The duals are read off the final reduced costs of the slack columns
    (a slack's reduced cost is minus its row's price, whatever the row's sign).

    Each tableau row (and the cost row) is held as integers over one positive
    denominator of its own, in lowest terms: the same rationals as a tableau of
    :class:`~fractions.Fraction`, so the same pivots and the same solution, without a gcd
    per entry and operation (several times faster on the Abázs stages).

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
    tableau: list[list[int]] = []  # row i is tableau[i] / dens[i]
    dens: list[int] = []
    basis: list[int] = []
    slack_col, art_col = n, first_art
    for (a, b, upper), artificial in zip(rows, needs_artificial):
        row = _rationals(a) + [0] * (width - n) + [b]
        if upper:
            row[slack_col] = 1
        if b < 0:
            row = [-v for v in row]
        if artificial:
            row[art_col] = 1
            basis.append(art_col)
            art_col += 1
        else:
            basis.append(slack_col)
        slack_col += upper
        ints, den = _integer_row(row)
        tableau.append(ints)
        dens.append(den)
    cost: list[int] = []  # the cost row is cost / cost_den
    cost_den = 1

    def pivot(r: int, c: int) -> None:
        nonlocal cost, cost_den
        prow, p = tableau[r], tableau[r][c]
        if p != dens[r]:  # divide the row by its entry in column c: that entry becomes 1 (p / p)
            if p < 0:
                prow, p = [-v for v in prow], -p
            prow, p = _lowest(prow, p)
            tableau[r], dens[r] = prow, p
        for i, row in enumerate(tableau):
            f = row[c]
            if i != r and f:  # row / d - (f / d) (prow / p)
                tableau[i], dens[i] = _lowest([v * p - f * w for v, w in zip(row, prow)], dens[i] * p)
        f = cost[c]
        if f:
            cost, cost_den = _lowest([v * p - f * w for v, w in zip(cost, prow)], cost_den * p)
        basis[r] = c

    def optimise() -> None:
        while True:
            enter = next((j for j in range(first_art) if cost[j] > 0), None)
            if enter is None:
                return
            best: tuple[int, int, int] | None = None  # the least ratio's (numerator, denominator, row)
            for i, row in enumerate(tableau):
                a = row[enter]
                if a > 0:  # the ratio row[-1] / a, its row's denominator cancelling
                    if best is None:
                        best = (row[-1], a, i)
                        continue
                    lhs, rhs = row[-1] * best[1], best[0] * a
                    if lhs < rhs or (lhs == rhs and basis[i] < basis[best[2]]):
                        best = (row[-1], a, i)
            if best is None:
                raise LPError("the linear program is unbounded")
            pivot(best[2], enter)

    # phase 1: drive the artificial variables to 0 (maximise minus their sum)
    artificial_rows = [i for i, b in enumerate(basis) if b >= first_art]
    cost_den = lcm(*(dens[i] for i in artificial_rows))
    cost = [0] * (width + 1)
    for i in artificial_rows:
        scale = cost_den // dens[i]
        cost = [c + scale * v for c, v in zip(cost, tableau[i])]
    for j in range(first_art, width):
        cost[j] = 0
    cost, cost_den = _lowest(cost, cost_den)
    optimise()
    if cost[-1] != 0:
        raise LPError("the linear program is infeasible")
    for i, b in enumerate(basis):
        if b >= first_art:  # a degenerate artificial left in the basis: swap it out
            j = next((j for j in range(first_art) if tableau[i][j]), None)
            if j is not None:
                pivot(i, j)
    # phase 2: the objective, in reduced-cost form over the current basis
    cost, cost_den = _integer_row(_rationals(objective) + [0] * (width + 1 - n))
    for i, b in enumerate(basis):
        f = cost[b]
        if f:  # cost / cd - (f / cd) (row / d)
            cost, cost_den = _lowest([c * dens[i] - f * v for c, v in zip(cost, tableau[i])], cost_den * dens[i])
    optimise()
    x = [Fraction(0)] * n
    for i, b in enumerate(basis):
        if b < n:
            x[b] = Fraction(tableau[i][-1], dens[i])
    return LPSolution(-Fraction(cost[-1], cost_den), x, [-Fraction(cost[n + i], cost_den) for i in range(n_slack)])


def _rationals(values: Sequence[Any]) -> list[int | Fraction]:
    """The values as exact rationals: ints and Fractions as they are, anything else (a
    float, exactly) through Fraction."""
    return [v if type(v) is int or type(v) is Fraction else Fraction(v) for v in values]


def _integer_row(values: Sequence[int | Fraction]) -> tuple[list[int], int]:
    """Rationals as (integers, a positive denominator) in lowest terms."""
    den = lcm(*(v.denominator for v in values))
    return _lowest([v.numerator * (den // v.denominator) for v in values], den)


def _lowest(ints: list[int], den: int) -> tuple[list[int], int]:
    """``ints / den`` (den > 0) with the common factor divided out."""
    g = gcd(den, *ints)
    return ([v // g for v in ints], den // g) if g > 1 else (ints, den)


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
