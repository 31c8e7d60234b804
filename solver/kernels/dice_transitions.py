"""Indexed tables over dice multisets, built by the Cython kernel ``_dicetables``.

:func:`dice_tables` returns, for a game of n dice, every sorted outcome with its
probability, every keep (sub-multiset of an outcome), and the sparse keep -> outcome
transition probabilities: the raw material of every scorecard and Kocka solver.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from kocka.solver.kernels import _dicetables
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import DiceError
from kocka.solver.base.i18n import N_


@dataclass(frozen=True)
class DiceTables:
    """Outcomes, keeps and keep transitions of a game with ``n`` dice.

    Attributes
    ----------
    n : int
    outcomes : ndarray, shape (K, n), int8
        Sorted outcomes in lexicographic order (K = 252 for n = 5).
    probs : ndarray, shape (K,)
        Probability of each outcome when all n dice are rolled.
    keeps : ndarray, shape (R, n), int8
        Every keep (sub-multiset of size 0..n), padded with 0; R = 462 for n = 5.
    keep_sizes : ndarray, shape (R,), int8
    trans_indptr, trans_indices, trans_probs : ndarray
        CSR matrix (R x K): P(final outcome | keep), the rest of the dice re-rolled.
    outcome_keeps_indptr, outcome_keeps : ndarray
        CSR list of the keep rows that are sub-multisets of each outcome.
    """

    n: int
    outcomes: np.ndarray
    probs: np.ndarray
    keeps: np.ndarray
    keep_sizes: np.ndarray
    trans_indptr: np.ndarray
    trans_indices: np.ndarray
    trans_probs: np.ndarray
    outcome_keeps_indptr: np.ndarray
    outcome_keeps: np.ndarray
    _outcome_key_index: np.ndarray
    _keep_lookup: dict

    def outcome_index(self, dice: Sequence[int]) -> int:
        """Row of ``dice`` (any order) in :attr:`outcomes`."""
        d = validate_dice(dice, self.n)
        key = 0
        for v in d:
            key = key * 7 + v
        return int(self._outcome_key_index[key])

    def keep_index(self, kept: Sequence[int]) -> int:
        """Row of the keep ``kept`` (0..n dice, any order) in :attr:`keeps`."""
        d = validate_dice(kept, what=N_("the kept dice"))
        if len(d) > self.n:
            raise DiceError(f"cannot keep {len(d)} dice out of {self.n}: {list(kept)!r}")
        return self._keep_lookup[d]

    def keep_dice(self, row: int) -> tuple[int, ...]:
        return tuple(int(v) for v in self.keeps[row, : self.keep_sizes[row]])


@lru_cache(maxsize=None)
def dice_tables(n: int) -> DiceTables:
    """Tables for a game of ``n`` dice (1 <= n <= 8), cached per process."""
    if not 1 <= n <= 8:
        raise DiceError(f"number of dice must be in 1..8, got {n!r}")
    outcomes, probs = _dicetables.enumerate_outcomes(n)
    key_index = _dicetables.key_index(outcomes)
    keep_rows: list[tuple[int, ...]] = []
    for m in range(n + 1):
        sub, _ = _dicetables.enumerate_outcomes(m) if m else (np.zeros((1, 0), np.int8), None)
        keep_rows.extend(tuple(int(v) for v in row) for row in sub)
    keeps = np.zeros((len(keep_rows), n), dtype=np.int8)
    keep_sizes = np.array([len(k) for k in keep_rows], dtype=np.int8)
    for r, k in enumerate(keep_rows):
        keeps[r, : len(k)] = k
    indptr, indices, tprobs = _dicetables.keep_transitions(keeps, keep_sizes, n, key_index)
    lookup = {k: r for r, k in enumerate(keep_rows)}
    # keeps contained in each outcome: the choices available after a roll
    ok_ptr = [0]
    ok_rows: list[int] = []
    for row in outcomes:
        c = np.bincount(row, minlength=7)
        subs = [()]
        for face in range(1, 7):
            subs = [s + (face,) * j for s in subs for j in range(c[face] + 1)]
        ok_rows.extend(sorted(lookup[s] for s in subs))
        ok_ptr.append(len(ok_rows))
    return DiceTables(
        n=n,
        outcomes=outcomes,
        probs=probs,
        keeps=keeps,
        keep_sizes=keep_sizes,
        trans_indptr=indptr,
        trans_indices=indices,
        trans_probs=tprobs,
        outcome_keeps_indptr=np.asarray(ok_ptr, dtype=np.int64),
        outcome_keeps=np.asarray(ok_rows, dtype=np.int32),
        _outcome_key_index=key_index,
        _keep_lookup=lookup,
    )
