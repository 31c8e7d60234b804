"""The chance of finishing first, ties shared (RULES.md section 0: 1/m of a win to each of
m players tied at the top), for players whose final totals are independent integers.

Everything that values "P(finishing first)" reads it from here: the scorecard target
solver's win share against other cards (:func:`win_curve`, its ``G(x)``), the companion's
chances of every player and the chip-bidding ``bettor``'s (:func:`first_place_shares`),
and the top sets the bettor settles by (:func:`top_set_probabilities`).

A distribution is ``(first, probs)``: ``probs[k]`` = P(final total = first + k).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

import numpy as np

Distribution = tuple[int, np.ndarray]
"""``(first, probs)``: P(total = first + k) = probs[k]."""


@dataclass(frozen=True)
class WinCurve:
    """``G(x)``: my expected win share when my final total is x, against independent
    opponents' totals (ties shared, RULES.md section 0): ``values[x - first]`` on
    ``first <= x <= first + len - 1``, 0 below, 1 above."""

    first: int
    values: np.ndarray

    def __call__(self, x: np.ndarray | int) -> np.ndarray:
        x = np.asarray(x, dtype=np.int64)
        i = x - self.first
        inside = (i >= 0) & (i < len(self.values))
        return np.where(i < 0, 0.0, np.where(inside, self.values[np.clip(i, 0, len(self.values) - 1)], 1.0))

    @property
    def steps(self) -> np.ndarray:
        """``G(x) - G(x - 1)`` for ``x = first .. first + len``."""
        return np.diff(np.concatenate([[0.0], self.values, [1.0]]))


def win_curve(distributions: Sequence[Distribution]) -> WinCurve:
    """:class:`WinCurve` against opponents with final-total pmfs ``(first, probs)``.

    With a_j = P(Y_j < x) and b_j = P(Y_j = x), the share is the mean of 1/(k+1) over the
    k opponents tied at x, all others below: ``G(x) = integral over z in [0, 1] of
    prod_j (a_j + b_j z)``.

    >>> win_curve([(10, np.array([0.5, 0.5]))]).values.tolist()
    [0.25, 0.75]
    """
    if not distributions:
        return WinCurve(0, np.ones(0))
    first = max(f for f, _ in distributions)       # below: someone is surely above
    last = max(f + len(p) - 1 for f, p in distributions)
    xs = np.arange(first, last + 1)
    poly = [np.ones(len(xs))]                        # coefficients of z^k, per x
    for f, p in distributions:
        pmf = np.zeros(len(xs))
        idx = xs - f
        inside = (idx >= 0) & (idx < len(p))
        pmf[inside] = p[idx[inside]]
        cum = np.concatenate([[0.0], np.cumsum(p)])
        cdf_below = np.where(idx < 0, 0.0, cum[np.clip(idx, 0, len(p))])
        new = [np.zeros(len(xs)) for _ in range(len(poly) + 1)]
        for k, c in enumerate(poly):
            new[k] += c * cdf_below
            new[k + 1] += c * pmf
        poly = new
    G = sum(c / (k + 1) for k, c in enumerate(poly))
    return WinCurve(first, np.clip(G, 0.0, 1.0))


def lowered(distribution: Distribution, loss: Distribution) -> Distribution:
    """The total of ``distribution`` minus an independent ``loss`` (a distribution of
    whole points >= 0): their difference's distribution, one convolution.

    >>> first, probs = lowered((10, np.array([0.5, 0.5])), (1, np.array([0.75, 0.25])))
    >>> first, probs.tolist()
    (8, [0.125, 0.5, 0.375])
    """
    first, probs = distribution
    loss_first, loss_probs = loss
    if loss_first < 0:
        raise ValueError(f"a loss is a distribution of points >= 0, not from {loss_first}")
    if loss_first == 0 and len(loss_probs) == 1:  # no loss: the very same numbers (no float widening)
        return distribution
    out = np.convolve(probs, np.asarray(loss_probs, dtype=float)[::-1])
    return first - loss_first - len(loss_probs) + 1, out


def sum_of_draws(points: Sequence[float], weights: Sequence[float], draws: int) -> Distribution:
    """The distribution of the sum of ``draws`` independent draws, each ``points[i]`` with
    chance ``weights[i]`` (normalised): a fractional point split between its two whole
    neighbours by the fraction, so that the mean is kept exactly.

    >>> first, probs = sum_of_draws([1.25], [1.0], 1)
    >>> first, probs.tolist()
    (1, [0.75, 0.25])
    """
    if draws < 0 or any(not p >= 0 for p in points) or not sum(weights) > 0:
        raise ValueError("draws >= 0 of points >= 0 with positive weights")
    one = np.zeros(math.floor(max(points, default=0.0)) + 2)
    total = float(sum(weights))
    for p, w in zip(points, weights):
        whole = math.floor(p)
        one[whole] += (1.0 - (p - whole)) * w / total
        one[whole + 1] += (p - whole) * w / total
    out = np.ones(1)
    for _ in range(draws):
        out = np.convolve(out, one)
    nonzero = np.flatnonzero(out > 0)
    return int(nonzero[0]), out[nonzero[0]:nonzero[-1] + 1]


def first_place_shares(distributions: Sequence[Distribution]) -> list[float]:
    """Each player's chance of finishing first, ties shared, for independent final totals:
    player i's share is the mean of his :class:`WinCurve` against the others over his own
    total, ``sum_x P_i(x) G_{-i}(x)``.

    >>> [float(s) for s in first_place_shares([(10, np.array([1.0])), (5, np.array([0.5, 0.0, 0.0, 0.0, 0.0, 0.5]))])]
    [0.75, 0.25]
    """
    shares = []
    for i, (first, probs) in enumerate(distributions):
        curve = win_curve([d for j, d in enumerate(distributions) if j != i])
        probs = np.asarray(probs, dtype=float)
        shares.append(float(probs @ curve(np.arange(first, first + len(probs)))))
    return shares


def top_set_probabilities(distributions: Sequence[Distribution]) -> dict[frozenset[int], float]:
    """P(the set of players sharing the highest total is exactly S), for every non-empty S
    (zero ones left out): what a settlement that pays the top set needs (HU-15..HU-19).

    >>> top_set_probabilities([(0, np.array([0.5, 0.5])), (1, np.array([1.0]))])
    {frozenset({1}): 0.5, frozenset({0, 1}): 0.5}
    """
    lo = min(first for first, _ in distributions)
    hi = max(first + len(p) for first, p in distributions)
    n = len(distributions)
    pmf = np.zeros((n, hi - lo))
    for i, (first, probs) in enumerate(distributions):
        pmf[i, first - lo : first - lo + len(probs)] = probs
    below = np.cumsum(pmf, axis=1) - pmf  # P(T_i < t)
    result: dict[frozenset[int], float] = {}
    for size in range(1, n + 1):
        for members in combinations(range(n), size):
            others = [j for j in range(n) if j not in members]
            p = float((np.prod(pmf[list(members)], axis=0) * np.prod(below[others], axis=0)).sum())
            if p > 0:
                result[frozenset(members)] = p
    return result


__all__ = ["Distribution", "WinCurve", "first_place_shares", "lowered", "sum_of_draws", "top_set_probabilities", "win_curve"]
