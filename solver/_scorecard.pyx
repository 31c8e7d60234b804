# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Turn kernel of the five-dice scorecard solver (see ``scorecard_solver.py``).

One turn is solved exactly: three throws over the 252 sorted outcomes and the 462 keeps
(sub-multisets, the empty keep included). Keep values use the *keep lattice* instead of the
dense 462 x 252 transition matrix:

* the value of keeping m dice is the mean, over one more die, of keeping m + 1 dice
  (a keep of 5 dice is an outcome), so every keep costs 6 additions;
* the best keep inside an outcome is the best over its sub-multisets, found by the same
  lattice: each keep passes its best sub-keep on to its six children (one die more).

A state is (filled-box mask, tracker class, flag); the caller lays the states out so that
state ``base[m] + c * nflag[m] + f`` is class ``c``, flag ``f`` of mask ``m``. The Python
side builds every table; this file only runs loops over typed memoryviews without the GIL.
"""
from libc.math cimport INFINITY
from libc.stdlib cimport calloc, free, malloc

ctypedef long long i64

cdef extern from *:
    """
    /* dst += p * src over n doubles; restrict lets the compiler vectorize */
    static inline void kocka_axpy(double *__restrict__ dst, const double *__restrict__ src,
                                  double p, Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) dst[i] += p * src[i];
    }
    """
    void kocka_axpy(double* dst, const double* src, double p, Py_ssize_t n) noexcept nogil

DEF N_OUT = 252      # sorted outcomes of five dice
DEF N_KEEP = 462     # keeps of 0..5 dice; the last 252 are the outcomes, in outcome order
DEF N_SMALL = 210    # keeps of 0..4 dice
DEF N_FOUR = 84      # keeps of 0..3 dice (keeps N_FOUR..N_SMALL-1 hold four dice)




cdef inline double _max(double a, double b) noexcept nogil:
    return b if b > a else a


cdef struct Lattice:
    const int* child      # (N_SMALL, 6): keep + one die of face f


cdef inline void keep_stage(const double* top, double* K, double* M, double* proper,
                            Lattice lat) noexcept nogil:
    """Values of every keep when the next throw ends in ``top`` (per outcome), and for
    every outcome the best keep strictly inside it (``proper``)."""
    cdef int k, f
    cdef double s, mk
    cdef const int* ch
    for k in range(N_OUT):
        K[N_SMALL + k] = top[k]
    # keeps are ordered by size, so children (one die more) come later
    for k in range(N_SMALL - 1, -1, -1):
        ch = lat.child + 6 * k
        s = K[ch[0]] + K[ch[1]] + K[ch[2]] + K[ch[3]] + K[ch[4]] + K[ch[5]]
        K[k] = s * (1.0 / 6.0)
    # best sub-keep, pushed from each keep to its six children (smaller keeps first)
    for k in range(N_SMALL):
        M[k] = K[k]
    for k in range(N_OUT):
        proper[k] = -INFINITY
    for k in range(N_FOUR):
        mk = M[k]
        ch = lat.child + 6 * k
        for f in range(6):
            M[ch[f]] = _max(M[ch[f]], mk)
    for k in range(N_FOUR, N_SMALL):
        mk = M[k]
        ch = lat.child + 6 * k
        for f in range(6):
            proper[ch[f] - N_SMALL] = _max(proper[ch[f] - N_SMALL], mk)


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
                             double* F1, int* A0, int* A1, i64* S0, i64* S1, double* R0,
                             double* R1) noexcept nogil:
    """Best fill of each outcome (first throw or later) among the boxes in ``bits``; with
    ``A0``/``A1`` not NULL also the box of that fill (ties: the first box), the state it
    leads to (``S0``/``S1``) and the points the score moves by (``R0``/``R1``)."""
    cdef double Q[N_OUT]
    cdef double T[N_OUT]
    cdef i64 S[N_OUT]
    cdef bint better
    cdef int o, b, m2, nf2, n_open_upper
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
        if A0 != NULL:  # forward pass: the same values, which box, and where it leads
            if b < P.n_upper:
                row = P.tbase[m] + <i64> c * n_open_upper + P.uprank[U * P.n_upper + b]
                tn = P.tnext + row * N_OUT
                to = P.toff + row * N_OUT
                for o in range(N_OUT):
                    S[o] = b2 + <i64> tn[o] * nf2 + fn[o]
                    T[o] = to[o]
                    Q[o] = P.W[S[o]] + to[o]
            else:
                for o in range(N_OUT):
                    S[o] = b2 + <i64> c * nf2 + fn[o]
                    T[o] = 0.0
                    Q[o] = P.W[S[o]]
            # branch-free selects (the compiler turns them into blends)
            for o in range(N_OUT):
                better = r0[o] + Q[o] > F0[o]
                F0[o] = r0[o] + Q[o] if better else F0[o]
                A0[o] = b if better else A0[o]
                S0[o] = S[o] if better else S0[o]
                R0[o] = r0[o] + T[o] if better else R0[o]
            for o in range(N_OUT if two else 0):
                better = r1[o] + Q[o] > F1[o]
                F1[o] = r1[o] + Q[o] if better else F1[o]
                A1[o] = b if better else A1[o]
                S1[o] = S[o] if better else S1[o]
                R1[o] = r1[o] + T[o] if better else R1[o]
        elif b < P.n_upper:
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
        if A0 != NULL:
            for o in range(N_OUT):
                A1[o] = A0[o]
                S1[o] = S0[o]
                R1[o] = R0[o]


cdef Lattice _lattice(const int[:, ::1] child):
    cdef Lattice lat
    if child.shape[0] != N_SMALL or child.shape[1] != 6:
        raise ValueError(f"the keep lattice must be ({N_SMALL}, 6), got {tuple(child.shape)!r}")
    lat.child = &child[0, 0]
    return lat


cdef Problem _problem(
    const double[::1] W, const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, :, ::1] rewards, const i64[::1] tbase, const int[::1] uprank,
    const int[:, ::1] tnext, const double[:, ::1] toff, const signed char[:, :, ::1] fnext,
    int n_upper,
) noexcept:
    """The :class:`Problem` over the caller's tables (pointers into its memoryviews, which
    must outlive the returned struct)."""
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
    return P


def solve_masks(
    const int[::1] masks, i64 first_state, double[::1] out, const double[::1] W,
    const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, :, ::1] rewards, const i64[::1] tbase, const int[::1] uprank,
    const int[:, ::1] tnext, const double[:, ::1] toff, const signed char[:, :, ::1] fnext,
    int n_upper, const double[::1] probs,
    const int[:, ::1] child,
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
    child : (210, 6) int32, the keep lattice (see ``scorecard_solver.keep_lattice``)
    """
    cdef Problem P = _problem(W, base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rewards, tbase, uprank,
                              tnext, toff, fnext, n_upper)
    cdef Lattice lat = _lattice(child)
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
                        group_fills(&P, m, c, f, P.grp_bits[g], F0, F1, NULL, NULL, NULL, NULL, NULL, NULL)
                        turn_from_fills(F0, F1, V2, V1, K, Mx, proper, lat)
                        for o in range(N_OUT):
                            if V1[o] > best[o]:
                                best[o] = V1[o]
                    e = 0.0
                    for o in range(N_OUT):
                        e += pr[o] * best[o]
                    out[P.base[m] + <i64> c * P.nflag[m] + f - first_state] = e
    free(buf)


# ------------------------------------------------------------------------------------------
# Forward propagation of the score under the optimal policy
# ------------------------------------------------------------------------------------------
cdef void keep_stage_arg(const double* top, double* K, double* M, int* Marg, double* proper,
                         int* arg, Lattice lat) noexcept nogil:
    """:func:`keep_stage` that also gives the best keep strictly inside each outcome
    (``arg``; ties: the larger keep, then the first in keep order). Same values."""
    cdef int k, f, c
    cdef double mk
    cdef const int* ch
    for k in range(N_OUT):
        K[N_SMALL + k] = top[k]
    for k in range(N_SMALL - 1, -1, -1):
        ch = lat.child + 6 * k
        K[k] = (K[ch[0]] + K[ch[1]] + K[ch[2]] + K[ch[3]] + K[ch[4]] + K[ch[5]]) * (1.0 / 6.0)
    for k in range(N_SMALL):
        M[k] = K[k]
        Marg[k] = k
    for k in range(N_OUT):
        proper[k] = -INFINITY
        arg[k] = -1
    for k in range(N_FOUR):
        ch = lat.child + 6 * k
        for f in range(6):
            c = ch[f]
            if M[k] > M[c]:
                M[c] = M[k]
                Marg[c] = Marg[k]
    for k in range(N_FOUR, N_SMALL):
        ch = lat.child + 6 * k
        for f in range(6):
            c = ch[f] - N_SMALL
            if M[k] > proper[c]:
                proper[c] = M[k]
                arg[c] = Marg[k]


cdef inline void roll_keeps(double* KM, Lattice lat) noexcept nogil:
    """Mass on keeps -> mass on the outcomes of throwing the other dice (KM[N_SMALL + o])."""
    cdef int k, f
    cdef double share
    for k in range(N_SMALL):
        if KM[k] != 0.0:
            share = KM[k] * (1.0 / 6.0)
            for f in range(6):
                KM[lat.child[6 * k + f]] += share


cdef inline void throw_step(const double* mass, const double* fill, const double* proper,
                            const int* arg, double* filled, double* thrown, double* KM,
                            Lattice lat) noexcept nogil:
    """Move the ``mass`` of one throw's outcomes on: to ``filled`` where filling (``fill``)
    is at least as good as the best keep (``proper``), else to keep ``arg`` and on through
    the next throw into ``thrown``. ``KM`` is (N_KEEP + 1,) scratch."""
    cdef int o
    for o in range(N_KEEP + 1):
        KM[o] = 0.0
    for o in range(N_OUT):
        if mass[o] != 0.0:
            if fill[o] >= proper[o]:
                filled[o] += mass[o]
            else:
                KM[arg[o]] += mass[o]
    roll_keeps(KM, lat)
    for o in range(N_OUT):
        thrown[o] += KM[N_SMALL + o]


DEF N_SLOTS = 256


def turn_transitions(
    const i64[::1] states, const int[::1] smask, const int[::1] scls, const signed char[::1] sflag,
    int root_stage, const double[::1] root_mass, int root_group, i64 rew_lo, int rew_span,
    i64[::1] e_src, i64[::1] e_succ, i64[::1] e_rew, double[::1] e_p,
    const double[::1] W,
    const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, :, ::1] rewards, const i64[::1] tbase, const int[::1] uprank,
    const int[:, ::1] tnext, const double[:, ::1] toff, const signed char[:, :, ::1] fnext,
    int n_upper, const double[::1] probs,
    const int[:, ::1] child,
):
    """Where one turn of the optimal policy leads from each state of ``states``: entries
    ``(e_src = position in states, e_succ = next state, e_rew = points, e_p = probability)``,
    one per distinct (next state, points). Returns the number of entries, or -1 when the
    entry arrays are too short.

    ``root_stage`` 0: every state starts its turn. 1, 2 or 3 (a single state): the turn is
    under way, ``root_mass`` (252,) is the distribution of the dice after that throw and
    ``root_group`` the box group already committed to (-1: none yet).
    Rewards must lie in ``[rew_lo, rew_lo + rew_span)``.
    """
    cdef Problem P = _problem(W, base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rewards, tbase, uprank,
                              tnext, toff, fnext, n_upper)
    cdef Lattice lat = _lattice(child)
    cdef i64 cap = e_src.shape[0]
    cdef i64 n_out = 0
    cdef int max_groups = 0
    cdef Py_ssize_t i
    for i in range(grp_ptr.shape[0] - 1):
        if grp_ptr[i + 1] - grp_ptr[i] > max_groups:
            max_groups = grp_ptr[i + 1] - grp_ptr[i]
    max_groups = max(max_groups, 1)
    # zeroed once: the histograms are cleared again as they are emitted
    cdef double* dbuf = <double*> calloc((14 + max_groups) * N_OUT + 3 * (N_KEEP + 1) + <i64> N_SLOTS * rew_span,
                                         sizeof(double))
    cdef int* ibuf = <int*> malloc(sizeof(int) * ((N_KEEP + 1) + N_OUT * 5 + 3 * N_SLOTS))
    cdef i64* slot_succ = <i64*> malloc(sizeof(i64) * (N_SLOTS + 2 * N_OUT))
    cdef i64* S0 = slot_succ + N_SLOTS
    cdef i64* S1 = S0 + N_OUT
    if dbuf == NULL or ibuf == NULL or slot_succ == NULL:
        free(dbuf); free(ibuf); free(slot_succ)
        raise MemoryError()
    cdef double* F0 = dbuf
    cdef double* F1 = dbuf + N_OUT
    cdef double* V2 = dbuf + 2 * N_OUT
    cdef double* proper3 = dbuf + 3 * N_OUT
    cdef double* proper2 = dbuf + 4 * N_OUT
    cdef double* P1 = dbuf + 5 * N_OUT
    cdef double* P2 = dbuf + 6 * N_OUT
    cdef double* PF0 = dbuf + 7 * N_OUT
    cdef double* PF1 = dbuf + 8 * N_OUT
    cdef double* V1 = dbuf + 9 * N_OUT
    cdef double* best = dbuf + 10 * N_OUT
    cdef double* tmp = dbuf + 11 * N_OUT
    cdef double* gV1 = dbuf + 12 * N_OUT                      # (max_groups, N_OUT)
    cdef double* K = gV1 + max_groups * N_OUT
    cdef double* Mx = K + (N_KEEP + 1)
    cdef double* KM = Mx + (N_KEEP + 1)
    cdef double* R0 = KM + (N_KEEP + 1)
    cdef double* R1 = R0 + N_OUT
    cdef double* hist = R1 + N_OUT                             # (N_SLOTS, rew_span)
    cdef int* Marg = ibuf
    cdef int* A0 = ibuf + (N_KEEP + 1)
    cdef int* A1 = A0 + N_OUT
    cdef int* arg2 = A1 + N_OUT
    cdef int* arg3 = arg2 + N_OUT
    cdef int* gbest = arg3 + N_OUT
    cdef int* slot_lo = gbest + N_OUT
    cdef int* slot_hi = slot_lo + N_SLOTS
    cdef int* slot_used = slot_hi + N_SLOTS
    cdef int m, c, f, g, g0, g1, ng, o, ft, b, bits, s, j, n_used, r
    cdef i64 succ, h
    cdef double rew, p
    cdef double* start
    cdef const double* first
    cdef bint overflow = False
    for s in range(N_SLOTS):
        slot_succ[s] = -1
    with nogil:
        for i in range(states.shape[0]):
            m = smask[i]
            c = scls[i]
            f = sflag[i]
            g0 = P.grp_ptr[m]
            ng = P.grp_ptr[m + 1] - g0
            # which group each first-throw outcome continues in
            for o in range(N_OUT):
                gbest[o] = 0
            if root_stage == 0 or root_stage == 1:
                if root_group >= 0:
                    for o in range(N_OUT):
                        gbest[o] = root_group
                elif ng > 1:
                    for o in range(N_OUT):
                        best[o] = -INFINITY
                    for g in range(ng):
                        group_fills(&P, m, c, f, P.grp_bits[g0 + g], F0, F1, NULL, NULL, NULL, NULL, NULL, NULL)
                        turn_from_fills(F0, F1, V2, V1, K, Mx, tmp, lat)
                        for o in range(N_OUT):
                            if V1[o] > best[o]:
                                best[o] = V1[o]
                                gbest[o] = g
            elif root_group >= 0:
                for o in range(N_OUT):
                    gbest[o] = root_group
            n_used = 0
            for g in range(ng):
                bits = P.grp_bits[g0 + g]
                for o in range(N_OUT):
                    P1[o] = 0.0
                    P2[o] = 0.0
                    PF0[o] = 0.0
                    PF1[o] = 0.0
                # the start of this group's turn: the first throw, or the root's position
                start = P1 if root_stage <= 1 else (P2 if root_stage == 2 else PF0)
                first = &probs[0] if root_stage == 0 else &root_mass[0]
                p = 0.0
                for o in range(N_OUT):
                    if gbest[o] == g:
                        start[o] = first[o]
                        p += first[o]
                if p == 0.0:
                    continue
                group_fills(&P, m, c, f, bits, F0, F1, A0, A1, S0, S1, R0, R1)
                keep_stage_arg(F0, K, Mx, Marg, proper3, arg3, lat)
                for o in range(N_OUT):
                    V2[o] = F0[o] if F0[o] > proper3[o] else proper3[o]
                keep_stage_arg(V2, K, Mx, Marg, proper2, arg2, lat)
                # after the first throw: fill from hand, or keep and throw again
                throw_step(P1, F1, proper2, arg2, PF1, P2, KM, lat)
                # after the second throw
                throw_step(P2, F0, proper3, arg3, PF0, PF0, KM, lat)
                # the fills, gathered by (next state, points)
                for ft in range(2):
                    for o in range(N_OUT):
                        p = PF1[o] if ft else PF0[o]
                        if p == 0.0:
                            continue
                        succ = S1[o] if ft else S0[o]
                        rew = R1[o] if ft else R0[o]
                        r = <int> (rew - rew_lo + 0.5) if rew >= rew_lo else -1
                        if r < 0 or r >= rew_span:
                            overflow = True
                            continue
                        h = (succ * <i64> 40503) & (N_SLOTS - 1)
                        while slot_succ[h] != -1 and slot_succ[h] != succ:
                            h = (h + 1) & (N_SLOTS - 1)
                        if slot_succ[h] == -1:
                            slot_succ[h] = succ
                            slot_lo[h] = r
                            slot_hi[h] = r
                            slot_used[n_used] = <int> h
                            n_used += 1
                        if r < slot_lo[h]:
                            slot_lo[h] = r
                        if r > slot_hi[h]:
                            slot_hi[h] = r
                        hist[h * rew_span + r] += p
            for j in range(n_used):
                h = slot_used[j]
                for r in range(slot_lo[h], slot_hi[h] + 1):
                    if hist[h * rew_span + r] != 0.0:
                        if n_out < cap:
                            e_src[n_out] = i
                            e_succ[n_out] = slot_succ[h]
                            e_rew[n_out] = rew_lo + r
                            e_p[n_out] = hist[h * rew_span + r]
                        n_out += 1
                        hist[h * rew_span + r] = 0.0
                slot_succ[h] = -1
    free(dbuf)
    free(ibuf)
    free(slot_succ)
    if overflow:
        raise ValueError(f"a fill's points fall outside [{rew_lo}, {rew_lo + rew_span})")
    return n_out if n_out <= cap else -1


def push_mass(const i64[::1] e_src, const i64[::1] e_tgt, const i64[::1] e_rew, const double[::1] e_p,
              const i64[::1] src_lo, const i64[::1] src_off, const double[::1] src_buf,
              const i64[::1] tgt_lo, const i64[::1] tgt_off, double[::1] tgt_buf):
    """``tgt[e_tgt][x + e_rew] += e_p * src[e_src][x]`` for every entry: score
    distributions are stored as ``buf[off[s]:off[s + 1]]`` over scores ``lo[s]...``."""
    cdef Py_ssize_t e, w
    with nogil:
        for e in range(e_src.shape[0]):
            w = src_off[e_src[e] + 1] - src_off[e_src[e]]
            kocka_axpy(&tgt_buf[tgt_off[e_tgt[e]] + src_lo[e_src[e]] + e_rew[e] - tgt_lo[e_tgt[e]]],
                       &src_buf[src_off[e_src[e]]], e_p[e], w)


# ------------------------------------------------------------------------------------------
# Throw budgets: turns whose unused throws carry over (Polish fences, PL-12)
# ------------------------------------------------------------------------------------------
cdef inline void budget_fills(const double* W, int NF, int Fp, int m, int c, int bits,
                              const i64* base, const double* rewards, int n_boxes,
                              const i64* tbase, const int* uprank, const int* tnext,
                              const double* toff, int n_upper, double* G0, double* G1) noexcept nogil:
    """Best fill of each outcome among the boxes in ``bits`` when the turn ends holding
    ``Fp`` carried throws: ``G0`` after a later throw, ``G1`` from hand. ``W`` is
    (states, NF) row-major; ``rewards`` (n_boxes, 2, N_OUT) with [b, 1] from hand."""
    cdef int o, b, n_open_upper
    cdef i64 b2, row
    cdef double v
    cdef const double* r0
    cdef const double* r1
    cdef const int* tn
    cdef const double* to
    cdef int U = m & ((1 << n_upper) - 1)
    n_open_upper = n_upper - _popcount(U)
    for o in range(N_OUT):
        G0[o] = -INFINITY
        G1[o] = -INFINITY
    for b in range(n_boxes):
        if not (bits >> b) & 1:
            continue
        b2 = base[m | (1 << b)]
        r0 = rewards + (<i64> b * 2) * N_OUT
        r1 = r0 + N_OUT
        if b < n_upper:
            row = tbase[m] + <i64> c * n_open_upper + uprank[U * n_upper + b]
            tn = tnext + row * N_OUT
            to = toff + row * N_OUT
            for o in range(N_OUT):
                v = W[(b2 + tn[o]) * NF + Fp] + to[o]
                G0[o] = _max(G0[o], r0[o] + v)
                G1[o] = _max(G1[o], r1[o] + v)
        else:
            v = W[(b2 + c) * NF + Fp]
            for o in range(N_OUT):
                G0[o] = _max(G0[o], r0[o] + v)
                G1[o] = _max(G1[o], r1[o] + v)


def solve_budget_masks(
    const int[::1] masks, i64 first_state, double[:, ::1] out, const double[:, ::1] W,
    const i64[::1] base, const int[::1] ncls, const int[::1] grp_ptr, const int[::1] grp_bits,
    const double[:, :, ::1] rewards, const double[::1] scratch_rew, const int[::1] scratch_out,
    const i64[::1] tbase, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
    int n_upper, int base_throws, const double[::1] probs, const int[:, ::1] child,
    int n_fences,
):
    """Turn-start values of every state of ``masks`` (one layer) for the counts of carried
    throws F = 0..n_fences-1 (``out[state - first_state, F]``; the other columns are left
    alone, for counts the layer cannot reach), when a turn's budget is
    ``base_throws + F`` throws and ending it after t throws carries ``min(budget - t, NF - 1)``
    (Polish fences, PL-12). Successors are read from ``W`` (states, NF). Releases the GIL.

    A state is (mask, tracker class) at ``base[m] + c`` (no flag). After the first throw the
    turn picks one box group (``grp_bits``: declared box, PL-15); a box with a finite
    ``scratch_rew`` may instead be scratched before the first throw, its tracker moving as
    if outcome ``scratch_out[b]`` were written. The widget is solved once per remaining
    budget r: ``X[r]`` after a later throw, from-hand values at r = F + base_throws - 1.
    """
    cdef int NF = W.shape[1]
    cdef int cap = NF - 1
    cdef int n_boxes = rewards.shape[0]
    if rewards.shape[1] != 2 or out.shape[1] != NF or base_throws < 1 or not 1 <= n_fences <= NF:
        raise ValueError("rewards must be (n_boxes, 2, 252), out (states, NF), base_throws >= 1, 1 <= n_fences <= NF")
    cdef Lattice lat = _lattice(child)
    cdef const double* pr = &probs[0]
    cdef double* buf = <double*> malloc(sizeof(double) * ((NF + 5) * N_OUT + 2 * (N_KEEP + 1)))
    if buf == NULL:
        raise MemoryError()
    cdef double* best = buf                       # (NF, N_OUT)
    cdef double* G0 = buf + NF * N_OUT
    cdef double* G1 = G0 + N_OUT
    cdef double* X = G1 + N_OUT
    cdef double* proper = X + N_OUT
    cdef double* tmp = proper + N_OUT
    cdef double* K = tmp + N_OUT
    cdef double* Mx = K + (N_KEEP + 1)
    cdef const double* Wp = &W[0, 0]
    cdef const i64* bp = &base[0]
    cdef const double* rp = &rewards[0, 0, 0]
    cdef const i64* tbp = &tbase[0]
    cdef const int* upp = &uprank[0]
    cdef const int* tnp = &tnext[0, 0]
    cdef const double* top = &toff[0, 0]
    cdef Py_ssize_t i
    cdef int m, c, g, o, r, F, Fp, b, U, n_open_upper, bits, allbits, first_r
    cdef i64 b2, row, s
    cdef double e, v, sc
    first_r = base_throws - 1   # remaining budget right after the first throw with F = 0
    with nogil:
        for i in range(masks.shape[0]):
            m = masks[i]
            U = m & ((1 << n_upper) - 1)
            n_open_upper = n_upper - _popcount(U)
            for c in range(ncls[m]):
                s = bp[m] + c
                for o in range(n_fences * N_OUT):
                    best[o] = -INFINITY
                allbits = 0
                for g in range(grp_ptr[m], grp_ptr[m + 1]):
                    bits = grp_bits[g]
                    allbits = allbits | bits
                    for r in range(n_fences - 1 + base_throws):
                        Fp = r if r < cap else cap
                        if r <= cap:   # beyond the cap the fills are those of the cap
                            budget_fills(Wp, NF, Fp, m, c, bits, bp, rp, n_boxes, tbp, upp, tnp, top,
                                         n_upper, G0, G1)
                        if r == 0:
                            for o in range(N_OUT):
                                proper[o] = -INFINITY
                        else:
                            keep_stage(X, K, Mx, proper, lat)
                        if r >= first_r:
                            F = r - first_r
                            for o in range(N_OUT):
                                v = G1[o] if G1[o] > proper[o] else proper[o]
                                best[F * N_OUT + o] = _max(best[F * N_OUT + o], v)
                        for o in range(N_OUT):
                            X[o] = G0[o] if G0[o] > proper[o] else proper[o]
                for F in range(n_fences):
                    e = 0.0
                    for o in range(N_OUT):
                        e += pr[o] * best[F * N_OUT + o]
                    Fp = F + base_throws if F + base_throws < cap else cap
                    for b in range(n_boxes):
                        if not (allbits >> b) & 1 or scratch_rew[b] == -INFINITY:
                            continue
                        b2 = bp[m | (1 << b)]
                        if b < n_upper:
                            row = tbp[m] + <i64> c * n_open_upper + upp[U * n_upper + b]
                            o = scratch_out[b]
                            sc = scratch_rew[b] + Wp[(b2 + tnp[row * N_OUT + o]) * NF + Fp] + top[row * N_OUT + o]
                        else:
                            sc = scratch_rew[b] + Wp[(b2 + c) * NF + Fp]
                        e = _max(e, sc)
                    out[s - first_state, F] = e
    free(buf)
