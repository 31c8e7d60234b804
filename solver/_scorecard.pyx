# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Turn kernel of the five-dice scorecard solver (see ``scorecard_solver.py``).

One turn is solved exactly: three throws over the 252 sorted outcomes and the 462 keeps
(sub-multisets, the empty keep included). Keep values use the *keep lattice* instead of the
dense 462 x 252 transition matrix:

* the value of keeping m dice is the mean, over one more die, of keeping m + 1 dice
  (a keep of 5 dice is an outcome), so every keep costs 6 additions;
* the best keep inside an outcome is the best over its sub-multisets, found by the same
  lattice read downwards: ``best[k] = max(value[k], best[k minus one die])``.

A state is (filled-box mask, tracker class, flag); the caller lays the states out so that
state ``base[m] + c * nflag[m] + f`` is class ``c``, flag ``f`` of mask ``m``. The Python
side builds every table; this file only runs loops over typed memoryviews without the GIL.
"""
from libc.math cimport INFINITY
from libc.stdlib cimport free, malloc

ctypedef long long i64

DEF N_OUT = 252      # sorted outcomes of five dice
DEF N_KEEP = 462     # keeps of 0..5 dice; the last 252 are the outcomes, in outcome order
DEF N_SMALL = 210    # keeps of 0..4 dice


DEF N_PAR = 5       # distinct faces of a keep of at most five dice


cdef inline double _max(double a, double b) noexcept nogil:
    return b if b > a else a


cdef struct Lattice:
    const int* child      # (N_SMALL, 6): keep + one die of face f
    const int* parent     # (N_KEEP, N_PAR): keep minus one die, padded with N_KEEP (-inf)


cdef inline void keep_stage(const double* top, double* K, double* M, double* proper,
                            Lattice lat) noexcept nogil:
    """Values of every keep when the next throw ends in ``top`` (per outcome), and for
    every outcome the best keep strictly inside it (``proper``). ``M`` has N_KEEP + 1
    slots; the last holds -inf for padded parents."""
    cdef int k
    cdef double s
    cdef const int* ch
    cdef const int* pa
    for k in range(N_OUT):
        K[N_SMALL + k] = top[k]
    # keeps are ordered by size, so children (one die more) come later
    for k in range(N_SMALL - 1, -1, -1):
        ch = lat.child + 6 * k
        s = K[ch[0]] + K[ch[1]] + K[ch[2]] + K[ch[3]] + K[ch[4]] + K[ch[5]]
        K[k] = s * (1.0 / 6.0)
    M[N_KEEP] = -INFINITY
    M[0] = K[0]
    for k in range(1, N_SMALL):
        pa = lat.parent + N_PAR * k
        M[k] = _max(_max(_max(K[k], M[pa[0]]), _max(M[pa[1]], M[pa[2]])), _max(M[pa[3]], M[pa[4]]))
    for k in range(N_OUT):
        pa = lat.parent + N_PAR * (N_SMALL + k)
        proper[k] = _max(_max(M[pa[0]], M[pa[1]]), _max(_max(M[pa[2]], M[pa[3]]), M[pa[4]]))


cdef inline void turn_from_fills(const double* F0, const double* F1, double* V2, double* V1,
                                 double* K, double* M, double* proper, Lattice lat) noexcept nogil:
    """V2[o]: value after the second throw shows o (fill, or keep for the third throw);
    V1[o]: the same after the first throw (fill from hand, or keep)."""
    cdef int o
    keep_stage(F0, K, M, proper, lat)
    for o in range(N_OUT):
        V2[o] = F0[o] if F0[o] > proper[o] else proper[o]
    keep_stage(V2, K, M, proper, lat)
    for o in range(N_OUT):
        V1[o] = F1[o] if F1[o] > proper[o] else proper[o]


cdef struct Problem:
    const double* W          # values of all states (successors are read from here)
    const i64* base          # (2^n,) first state of each mask
    const int* ncls          # (2^n,) tracker classes of each mask
    const signed char* nflag
    const int* grp_ptr       # (2^n + 1,) CSR of box groups (bit masks) per mask
    const int* grp_bits
    const int* ctx_of        # (2^n * 2,) reward context of (mask, flag)
    const double* rewards    # (n_ctx, n_boxes, n_ft, N_OUT)
    int n_boxes
    int n_ft
    const i64* tbase         # (2^n,) first tracker-transition row of the mask's classes
    const int* uprank        # (2^n_upper * n_upper,) rank of an open face box among open ones
    const int* tnext         # (rows, N_OUT) class after writing the outcome in a face box
    const double* toff       # (rows, N_OUT) value offset of that class member
    const signed char* fnext  # (n_boxes, 2, N_OUT) flag after writing the outcome
    int n_upper


cdef inline int _popcount(unsigned int x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef inline void group_fills(Problem* P, int m, int c, int f, int bits, double* F0,
                             double* F1) noexcept nogil:
    """Best fill of each outcome (first throw or later) among the boxes in ``bits``."""
    cdef int o, b, m2, nf2, cls2, upper_open, n_open_upper
    cdef i64 b2, row
    cdef double v
    cdef const double* r0
    cdef const double* r1
    cdef const signed char* fn
    cdef const int* tn
    cdef const double* to
    cdef int ctx = P.ctx_of[2 * m + f]
    cdef int U = m & ((1 << P.n_upper) - 1)
    cdef bint two = P.n_ft == 2
    for o in range(N_OUT):
        F0[o] = -INFINITY
        F1[o] = -INFINITY
    n_open_upper = P.n_upper - _popcount(U)
    for b in range(P.n_boxes):
        if not (bits >> b) & 1:
            continue
        m2 = m | (1 << b)
        b2 = P.base[m2]
        nf2 = P.nflag[m2]
        r0 = P.rewards + ((<i64> ctx * P.n_boxes + b) * P.n_ft) * N_OUT
        r1 = r0 + (P.n_ft - 1) * N_OUT
        fn = P.fnext + (b * 2 + f) * N_OUT
        if b < P.n_upper:
            row = P.tbase[m] + <i64> c * n_open_upper + P.uprank[U * P.n_upper + b]
            tn = P.tnext + row * N_OUT
            to = P.toff + row * N_OUT
            for o in range(N_OUT):
                v = P.W[b2 + <i64> tn[o] * nf2 + fn[o]] + to[o]
                F0[o] = _max(F0[o], r0[o] + v)
                if two:
                    F1[o] = _max(F1[o], r1[o] + v)
        elif nf2 != P.nflag[m]:  # the flag box itself: the flag follows the dice
            for o in range(N_OUT):
                v = P.W[b2 + <i64> c * nf2 + fn[o]]
                F0[o] = _max(F0[o], r0[o] + v)
                if two:
                    F1[o] = _max(F1[o], r1[o] + v)
        else:  # one successor state for every outcome: a plain vector max
            v = P.W[b2 + <i64> c * nf2 + f]
            for o in range(N_OUT):
                F0[o] = _max(F0[o], r0[o] + v)
            if two:
                for o in range(N_OUT):
                    F1[o] = _max(F1[o], r1[o] + v)
    if not two:
        for o in range(N_OUT):
            F1[o] = F0[o]


cdef Lattice _lattice(const int[:, ::1] child, const int[:, ::1] parent):
    cdef Lattice lat
    lat.child = &child[0, 0]
    lat.parent = &parent[0, 0]
    return lat


def solve_masks(
    const int[::1] masks, i64 first_state, double[::1] out, const double[::1] W,
    const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, :, ::1] rewards, const i64[::1] tbase, const int[::1] uprank,
    const int[:, ::1] tnext, const double[:, ::1] toff, const signed char[:, :, ::1] fnext,
    int n_upper, const double[::1] probs,
    const int[:, ::1] child, const int[:, ::1] parent,
):
    """Expected future score of every state of ``masks`` (all in one layer), written to
    ``out[state - first_state]``; successors are read from ``W``. Releases the GIL.

    Parameters
    ----------
    masks : (M,) int32, masks whose states are contiguous from ``first_state``
    out : (S,) float64, the values of those states
    W : (N,) float64, values of all states (later layers must be filled)
    rewards : (n_ctx, n_boxes, n_ft, 252) float64, points of a fill (-inf: not allowed)
    tnext, toff : (rows, 252), tracker class and value offset after a face-box fill
    fnext : (n_boxes, 2, 252) int8, flag after a fill
    child, parent : the keep lattice (see ``scorecard_solver.keep_lattice``)
    """
    cdef Problem P
    P.W = &W[0]
    P.base = &base[0]
    P.ncls = &ncls[0]
    P.nflag = &nflag[0]
    P.grp_ptr = &grp_ptr[0]
    P.grp_bits = &grp_bits[0]
    P.ctx_of = &ctx_of[0]
    P.rewards = &rewards[0, 0, 0, 0]
    P.n_boxes = rewards.shape[1]
    P.n_ft = rewards.shape[2]
    P.tbase = &tbase[0]
    P.uprank = &uprank[0]
    P.tnext = &tnext[0, 0]
    P.toff = &toff[0, 0]
    P.fnext = &fnext[0, 0, 0]
    P.n_upper = n_upper
    cdef Lattice lat = _lattice(child, parent)
    cdef const double* pr = &probs[0]
    cdef double* buf = <double*> malloc(sizeof(double) * (6 * N_OUT + 2 * N_KEEP + 2))
    if buf == NULL:
        raise MemoryError()
    cdef double* F0 = buf
    cdef double* F1 = buf + N_OUT
    cdef double* V2 = buf + 2 * N_OUT
    cdef double* V1 = buf + 3 * N_OUT
    cdef double* best = buf + 4 * N_OUT
    cdef double* proper = buf + 5 * N_OUT
    cdef double* K = buf + 6 * N_OUT
    cdef double* Mx = K + N_KEEP + 1
    cdef Py_ssize_t i
    cdef int m, c, f, g, o
    cdef double e
    with nogil:
        for i in range(masks.shape[0]):
            m = masks[i]
            for c in range(P.ncls[m]):
                for f in range(P.nflag[m]):
                    for o in range(N_OUT):
                        best[o] = -INFINITY
                    for g in range(P.grp_ptr[m], P.grp_ptr[m + 1]):
                        group_fills(&P, m, c, f, P.grp_bits[g], F0, F1)
                        turn_from_fills(F0, F1, V2, V1, K, Mx, proper, lat)
                        for o in range(N_OUT):
                            if V1[o] > best[o]:
                                best[o] = V1[o]
                    e = 0.0
                    for o in range(N_OUT):
                        e += pr[o] * best[o]
                    out[P.base[m] + <i64> c * P.nflag[m] + f - first_state] = e
    free(buf)


def turn_values(const double[::1] F0, const double[::1] F1, double[::1] K3, double[::1] V2,
                double[::1] K2, double[::1] V1,
                const int[:, ::1] child, const int[:, ::1] parent):
    """One turn from its fill values, for hints: ``K3``/``K2`` (462,) are the values of
    every keep before the third/second throw, ``V2``/``V1`` (252,) the values after the
    second/first throw shows each outcome. Same arithmetic as :func:`solve_masks`."""
    cdef Lattice lat = _lattice(child, parent)
    cdef double Mx[N_KEEP + 1]
    cdef double proper[N_OUT]
    cdef int o
    with nogil:
        keep_stage(&F0[0], &K3[0], Mx, proper, lat)
        for o in range(N_OUT):
            V2[o] = F0[o] if F0[o] > proper[o] else proper[o]
        keep_stage(&V2[0], &K2[0], Mx, proper, lat)
        for o in range(N_OUT):
            V1[o] = F1[o] if F1[o] > proper[o] else proper[o]
