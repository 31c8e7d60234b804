# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Indexed dice tables shared by every solver (kernel half; see dice_tables.py).

Outcomes of n dice are sorted tuples listed in lexicographic order. A sorted tuple is
keyed by its base-7 digits, and a dense key -> index array makes look-ups O(n).
"""
import numpy as np
cimport numpy as cnp

cnp.import_array()


cdef inline long _key(const signed char[:] dice, int n) noexcept nogil:
    cdef long key = 0
    cdef int i
    for i in range(n):
        key = key * 7 + dice[i]
    return key


def enumerate_outcomes(int n):
    """All sorted outcomes of n dice (shape (K, n), int8) with their probabilities (K,)."""
    cdef int k, i, j, total = 1
    cdef double fact[16]
    if not 0 <= n < 16:
        raise ValueError(f"outcomes are enumerated for 0..15 dice, got {n!r}")
    fact[0] = 1.0
    for i in range(1, 16):
        fact[i] = fact[i - 1] * i
    # C(n + 5, 5) sorted outcomes
    for i in range(1, 6):
        total = total * (n + i) // i
    outcomes = np.empty((total, n), dtype=np.int8)
    probs = np.empty(total, dtype=np.float64)
    cdef signed char[:, :] out = outcomes
    cdef double[:] p = probs
    cdef signed char cur[16]
    cdef int counts[7]
    cdef double denominator = 1.0
    for i in range(n):
        cur[i] = 1
        denominator *= 6.0
    for k in range(total):
        for i in range(7):
            counts[i] = 0
        for i in range(n):
            out[k, i] = cur[i]
            counts[cur[i]] += 1
        p[k] = fact[n]
        for i in range(1, 7):
            p[k] /= fact[counts[i]]
        p[k] /= denominator
        # next sorted tuple: bump the last die below 6, reset the tail to that value
        i = n - 1
        while i >= 0 and cur[i] == 6:
            i -= 1
        if i < 0:
            break
        cur[i] += 1
        # backwards: GCC would turn a forward loop into a 16-byte store and warn of an overflow
        j = n - 1
        while j > i:
            cur[j] = cur[i]
            j -= 1
    return outcomes, probs


def key_index(const signed char[:, :] outcomes):
    """Dense array mapping the base-7 key of a sorted tuple to its row in ``outcomes``."""
    cdef Py_ssize_t k, K = outcomes.shape[0]
    cdef int n = outcomes.shape[1]
    cdef long size = 1
    cdef int _
    for _ in range(n):
        size *= 7
    index = np.full(size, -1, dtype=np.int32)
    cdef int[:] idx = index
    for k in range(K):
        idx[_key(outcomes[k], n)] = <int>k
    return index


def keep_transitions(const signed char[:, :] keeps, const signed char[:] keep_sizes,
                     int n, const int[:] final_index):
    """Sparse keep -> final-outcome probabilities for a game of ``n`` dice.

    For keep row r (its first ``keep_sizes[r]`` entries are the kept dice, sorted), the
    other dice are rolled again. Returns CSR arrays ``(indptr, indices, probs)``: the
    final sorted outcomes of n dice reachable from each keep, with probabilities.
    """
    cdef Py_ssize_t r, R = keeps.shape[0], K
    cdef int m
    indptr = np.zeros(R + 1, dtype=np.int64)
    chunks_i = []
    chunks_p = []
    cdef long nnz = 0
    rolled_cache = {}
    for r in range(R):
        m = keep_sizes[r]
        if (n - m) not in rolled_cache:
            rolled_cache[n - m] = enumerate_outcomes(n - m)
        rolled, rolled_p = rolled_cache[n - m]
        K = rolled.shape[0]
        idx = np.empty(K, dtype=np.int32)
        _merge_all(keeps[r], m, rolled, n, final_index, idx)
        chunks_i.append(idx)
        chunks_p.append(rolled_p)
        nnz += K
        indptr[r + 1] = nnz
    return indptr, np.concatenate(chunks_i), np.concatenate(chunks_p)


cdef void _merge_all(const signed char[:] keep, int m, const signed char[:, :] rolled, int n,
                     const int[:] final_index, int[:] out) noexcept nogil:
    """Index of sorted(keep + rolled[k]) for every k (a merge of two sorted runs)."""
    cdef Py_ssize_t k
    cdef int a, b, _, rest = n - m
    cdef long key
    for k in range(rolled.shape[0]):
        a = 0
        b = 0
        key = 0
        for _ in range(n):
            if b >= rest or (a < m and keep[a] <= rolled[k, b]):
                key = key * 7 + keep[a]
                a += 1
            else:
                key = key * 7 + rolled[k, b]
                b += 1
        out[k] = final_index[key]
