# The fills of one turn of the five-dice scorecard games, declared once for the kernels
# that value them: the solver (_scorecard: backward solve, forward distribution, ranking)
# and the compiled games of the expected-score policy (_simulate). Both must take the same
# floating-point operations in the same order, so that a simulated game makes the ranking's
# choices bit for bit; hence this one copy.
#
# A state is (filled-box mask, tracker class, flag) at ``base[m] + c * nflag[m] + f``.
# Writing an outcome into a face box moves the tracker by the box's entry, which depends on
# the dice only through its entry group (``egrp``), so a face-box fill has at most ``G``
# successors (``tnext``/``toff`` rows); a lower box has one, the flag box two. The few
# special outcomes whose points and allowed boxes depend on the card (bonus Yahtzees, the
# joker) read their points per reward context (``srew``) instead of the plain table.
from libc.math cimport INFINITY

from keep_lattice cimport N_OUT, keep_stage_arg, popcount

ctypedef long long i64

cdef enum:
    MAX_G = 8        # successor states of one fill at most (entry groups of a face box)
    MAX_BOXES = 24   # boxes of a card at most (masks are int)
    KIND_CONST = 0   # a box with one successor state
    KIND_FACE = 1    # a face box: one successor per entry group
    KIND_FLAG = 2    # the flag box: one successor per flag


cdef inline double _max(double a, double b) noexcept nogil:
    return b if b > a else a


cdef struct Problem:
    const double* W          # values of all states (successors are read from here)
    const i64* base          # (2^n,) first state of each mask
    const int* ncls          # (2^n,) tracker classes of each mask
    const signed char* nflag
    const int* grp_ptr       # (2^n + 1,) CSR of box groups (bit masks) per mask
    const int* grp_bits
    const int* ctx_of        # (2^n * 2,) reward context of (mask, flag); 0: the plain table
    const double* rew        # (n_boxes, n_ft, N_OUT) points of a fill
    int n_boxes
    int n_ft
    const int* special       # (n_special,) outcomes patched per context
    const double* srew       # (n_ctx, n_boxes, n_ft, sp_stride) their points (-inf: not allowed)
    int n_special
    int sp_stride
    int n_ctx
    const i64* tstart        # (2^n_upper,) first tracker row of each face-box set
    const int* uprank        # (2^n_upper * n_upper,) rank of an open face box among open ones
    const int* tnext         # (rows, G) class after writing an entry group into a face box
    const double* toff       # (rows, G) value offset of that class member
    int G
    i64 n_rows
    const signed char* egrp  # (n_upper, N_OUT) entry group of each outcome in face box u
    const signed char* fnext # (n_boxes, 2, N_OUT) flag after writing the flag box
    int n_upper


cdef inline Problem _problem(
    const double[::1] W, const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, ::1] rew, const int[::1] special, const double[:, :, :, ::1] srew,
    const i64[::1] tstart, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
    const signed char[:, ::1] egrp, const signed char[:, :, ::1] fnext, int n_upper,
) except *:
    """The :class:`Problem` over the caller's tables (pointers into its memoryviews, which
    must outlive the returned struct); ``ncls`` None: a caller that never reads it."""
    cdef Problem P
    cdef int k
    if rew.shape[2] != N_OUT or egrp.shape[1] != N_OUT or fnext.shape[2] != N_OUT:
        raise ValueError("outcome axes must have 252 entries")
    if not 1 <= tnext.shape[1] <= MAX_G or toff.shape[1] != tnext.shape[1]:
        raise ValueError(f"tracker rows must have 1..{MAX_G} entry groups, got {tnext.shape[1]} and {toff.shape[1]}")
    if rew.shape[0] > MAX_BOXES or srew.shape[1] != rew.shape[0] or srew.shape[2] != rew.shape[1]:
        raise ValueError(f"at most {MAX_BOXES} boxes, and special rewards of the reward table's shape")
    if special.shape[0] != srew.shape[3] or special.shape[0] < 1:
        raise ValueError("special outcomes: one column of special rewards each (at least one, -1 padding)")
    P.W = &W[0]
    P.base = &base[0]
    P.ncls = NULL
    if ncls is not None:
        P.ncls = &ncls[0]
    P.nflag = &nflag[0]
    P.grp_ptr = &grp_ptr[0]
    P.grp_bits = &grp_bits[0]
    P.ctx_of = &ctx_of[0]
    P.rew = &rew[0, 0, 0]
    P.n_boxes = rew.shape[0]
    P.n_ft = rew.shape[1]
    P.special = &special[0]
    P.srew = &srew[0, 0, 0, 0]
    P.sp_stride = srew.shape[3]
    P.n_ctx = srew.shape[0]
    P.n_special = 0
    for k in range(special.shape[0]):
        if special[k] >= 0:
            P.n_special = k + 1
    P.tstart = &tstart[0]
    P.uprank = &uprank[0]
    P.tnext = &tnext[0, 0]
    P.toff = &toff[0, 0]
    P.G = tnext.shape[1]
    P.n_rows = tnext.shape[0]
    P.egrp = &egrp[0, 0]
    P.fnext = &fnext[0, 0, 0]
    P.n_upper = n_upper
    return P


# Where writing one box leads from one state: states S[j], value offsets T[j] and
# V[j] = W[S[j]] + T[j], j picked per outcome by succ_of.
cdef struct BoxSucc:
    int kind
    i64 S[MAX_G]
    double T[MAX_G]
    double V[MAX_G]


cdef inline void box_succ(const Problem* P, int m, int c, int f, int b, BoxSucc* sb) noexcept nogil:
    """The successors of writing box ``b`` from state (m, c, f), and their values."""
    cdef int m2 = m | (1 << b)
    cdef i64 b2 = P.base[m2]
    cdef int nf2 = P.nflag[m2]
    cdef int U, g
    cdef i64 row
    if b < P.n_upper:
        U = m & ((1 << P.n_upper) - 1)
        row = (P.tstart[U] + <i64> c * (P.n_upper - popcount(U)) + P.uprank[U * P.n_upper + b]) * P.G
        sb.kind = KIND_FACE
        for g in range(P.G):
            sb.S[g] = b2 + <i64> P.tnext[row + g] * nf2 + f   # a face box leaves the flag as it is
            sb.T[g] = P.toff[row + g]
            sb.V[g] = P.W[sb.S[g]] + sb.T[g]
    elif nf2 != P.nflag[m]:  # the flag box itself: the flag follows the dice
        sb.kind = KIND_FLAG
        for g in range(2):
            sb.S[g] = b2 + <i64> c * nf2 + g
            sb.T[g] = 0.0
            sb.V[g] = P.W[sb.S[g]]
    else:
        sb.kind = KIND_CONST
        sb.S[0] = b2 + <i64> c * nf2 + f
        sb.T[0] = 0.0
        sb.V[0] = P.W[sb.S[0]]


cdef inline const signed char* succ_index(const Problem* P, const BoxSucc* sb, int b, int f) noexcept nogil:
    """Per outcome, which of ``sb``'s successors a fill of box ``b`` reaches (NULL: one)."""
    if sb.kind == KIND_FACE:
        return P.egrp + <i64> b * N_OUT
    if sb.kind == KIND_FLAG:
        return P.fnext + (<i64> b * 2 + f) * N_OUT
    return NULL


cdef inline int succ_of(const Problem* P, const BoxSucc* sb, int b, int f, int o) noexcept nogil:
    cdef const signed char* idx = succ_index(P, sb, b, f)
    return 0 if idx == NULL else idx[o]


cdef inline double special_reward(const Problem* P, int ctx, int b, int ft, int k) noexcept nogil:
    return P.srew[((<i64> ctx * P.n_boxes + b) * P.n_ft + ft) * P.sp_stride + k]


cdef inline double fill_points(const Problem* P, int m, int f, int b, int ft, int o) noexcept nogil:
    """Points of writing outcome ``o`` into box ``b`` (``ft``: index into the first-throw
    axis of the rewards), -inf where it may not be written."""
    cdef int k
    cdef int ctx = P.ctx_of[2 * m + f]
    if ctx != 0:
        for k in range(P.n_special):
            if P.special[k] == o:
                return special_reward(P, ctx, b, ft, k)
    return P.rew[(<i64> b * P.n_ft + ft) * N_OUT + o]


cdef inline bint fill_value(const Problem* P, const BoxSucc* bs, int m, int f, int b, int ft, int o,
                            double* value) noexcept nogil:
    """Whether outcome ``o`` may be written into box ``b``, and then in ``value`` the fill's
    value: its points plus the value of where it leads (``bs`` from :func:`group_fills`)."""
    cdef double v = fill_points(P, m, f, b, ft, o)
    if v == -INFINITY:
        return False
    value[0] = v + bs[b].V[succ_of(P, &bs[b], b, f, o)]
    return True


cdef inline i64 fill_move(const Problem* P, const BoxSucc* bs, int m, int f, int b, int ft, int o,
                          double* points) noexcept nogil:
    """The state that writing outcome ``o`` into box ``b`` leads to (``bs`` from
    :func:`group_fills`), and in ``points`` what the score moves by: the fill's points
    plus the tracker offset (``ft``: index into the first-throw axis of the rewards)."""
    cdef int k = succ_of(P, &bs[b], b, f, o)
    points[0] = fill_points(P, m, f, b, ft, o) + bs[b].T[k]
    return bs[b].S[k]


cdef inline void fix_specials(const Problem* P, int m, int f, int bits, double* F0, double* F1,
                              int* A0, int* A1, const BoxSucc* bs) noexcept nogil:
    """Best fill of each special outcome recomputed with its context's points (and, with
    ``A0`` not NULL, which box: ties the first). ``F1`` NULL: the later throws' fills only."""
    cdef int ctx = P.ctx_of[2 * m + f]
    cdef int n_ft = P.n_ft if F1 != NULL else 1
    cdef int k, o, ft, b, arg
    cdef double best, r, v
    if ctx == 0:
        return
    for k in range(P.n_special):
        o = P.special[k]
        for ft in range(n_ft):
            best = -INFINITY
            arg = -1
            for b in range(P.n_boxes):
                if not (bits >> b) & 1:
                    continue
                r = special_reward(P, ctx, b, ft, k)
                if r == -INFINITY:
                    continue
                v = r + bs[b].V[succ_of(P, &bs[b], b, f, o)]
                if v > best:
                    best = v
                    arg = b
            # (no box allowed leaves F = -inf and the box as it was: never chosen then)
            if ft == 0:
                F0[o] = best
                if A0 != NULL and arg >= 0:
                    A0[o] = arg
            else:
                F1[o] = best
                if A1 != NULL and arg >= 0:
                    A1[o] = arg


cdef inline void group_fills(const Problem* P, int m, int c, int f, int bits, double* F0,
                             double* F1, BoxSucc* bs) noexcept nogil:
    """Best fill of each outcome among the boxes in ``bits``: ``F0`` after a later throw,
    ``F1`` after the first (first-throw points; NULL: not wanted); ``bs[b]`` the successors
    of each box."""
    cdef int o, b
    cdef double v
    cdef const double* r0
    cdef const double* r1
    cdef const signed char* idx
    cdef const double* V
    cdef bint two = P.n_ft == 2 and F1 != NULL
    for o in range(N_OUT):
        F0[o] = -INFINITY
    if F1 != NULL:
        for o in range(N_OUT):
            F1[o] = -INFINITY
    for b in range(P.n_boxes):
        if not (bits >> b) & 1:
            continue
        box_succ(P, m, c, f, b, &bs[b])
        r0 = P.rew + (<i64> b * P.n_ft) * N_OUT
        r1 = r0 + (P.n_ft - 1) * N_OUT
        idx = succ_index(P, &bs[b], b, f)
        V = bs[b].V
        if idx == NULL:  # one successor state for every outcome: a plain vector max
            v = V[0]
            for o in range(N_OUT):
                F0[o] = _max(F0[o], r0[o] + v)
            if two:
                for o in range(N_OUT):
                    F1[o] = _max(F1[o], r1[o] + v)
        else:
            for o in range(N_OUT):
                F0[o] = _max(F0[o], r0[o] + V[idx[o]])
            if two:
                for o in range(N_OUT):
                    F1[o] = _max(F1[o], r1[o] + V[idx[o]])
    fix_specials(P, m, f, bits, F0, F1, NULL, NULL, bs)
    if not two and F1 != NULL:
        for o in range(N_OUT):
            F1[o] = F0[o]


cdef inline void turn_keep_stages(const double* F0, double* V2, double* K3, double* K2, double* M, int* Marg,
                                  double* proper3, int* arg3, double* proper2, int* arg2,
                                  const int* child) noexcept nogil:
    """Both keep stages of a turn whose later-throw fills are ``F0``: the keeps before the
    third throw (values ``K3``, best keep inside each outcome ``proper3``/``arg3``), then
    ``V2`` = the better of filling and that keep after the second throw, and the keeps before
    the second throw from ``V2`` (``K2``, ``proper2``/``arg2``). ``K3`` and ``K2`` (and the
    proper/arg pairs) may be the same arrays where only the later stage's are read."""
    cdef int o
    keep_stage_arg(F0, K3, M, Marg, proper3, arg3, child)
    for o in range(N_OUT):
        V2[o] = F0[o] if F0[o] > proper3[o] else proper3[o]
    keep_stage_arg(V2, K2, M, Marg, proper2, arg2, child)
