# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Target kernel of the five-dice scorecard games (see ``solvers/scorecard/target.py``).

The expected-score kernel (``_scorecard.pyx``) carries one number through the widget of a
turn. This one carries a *vector over targets*: for a turn-start state s and every integer
t, ``R(s, t)``, the largest probability over strategies that the points still to come
reach t. Each t is an independent scalar problem with the same widget (max over fills and
keeps, means over throws), so the vector is cut into tiles of ``TW`` consecutive targets
and the widget runs once per tile on rows of ``TW`` contiguous values (the inner loops have
a fixed trip count, which the compiler vectorizes).

A stored vector is three numbers and a run of values: R(s, t) = 1 for t <= lo[s], the run
for lo[s] < t <= lo[s] + len[s], 0 beyond. A successor's vector shifted by a fill's points
r is read with two clamps (1 below, 0 above), so a fill costs one pass over the tile.

Mode 0 (*reach*): the maximum over strategies, ``R``. Mode 1 (*policy*): the survival
function ``P(points to come >= t)`` of the expected-score-optimal policy, whose decisions
are recomputed here from the expected-score values ``W`` with the tie rules of
``_scorecard.turn_entries`` (first box; fill when it is at least as good as the best
keep; the larger keep; the first group), so the distributions agree with the forward
distribution of ``solvers/scorecard/values.py``.

Exact ones stay exact: a mean of six ones times (1/6) rounds to 1 in float32 and float64,
and the last mean over the 252 first throws uses the integer outcome counts and one
division by 7776. The values are monotone in t because rounding is monotone.
"""
cimport cython
from libc.math cimport INFINITY
from libc.stdlib cimport calloc, free, malloc

from keep_lattice cimport N_FOUR, N_KEEP, N_OUT, N_SMALL, keep_stage_arg, popcount

ctypedef long long i64

ctypedef fused real:
    float
    double

cdef extern from *:
    """
    #include <string.h>
    #define KT_TW 64
    /* Row operations on KT_TW contiguous values; restrict and the fixed length let the
       compiler vectorize them without alias checks. One set per value type. */
    #define KT_DEFINE(T, S)                                                                  \
    static inline void kt_max_##S(T *__restrict__ d, const T *__restrict__ s) {             \
        for (int j = 0; j < KT_TW; j++) d[j] = s[j] > d[j] ? s[j] : d[j];                   \
    }                                                                                        \
    static inline void kt_max2_##S(T *__restrict__ d, const T *__restrict__ a,              \
                                   const T *__restrict__ b) {                                \
        for (int j = 0; j < KT_TW; j++) d[j] = a[j] > b[j] ? a[j] : b[j];                   \
    }                                                                                        \
    static inline void kt_copy_##S(T *__restrict__ d, const T *__restrict__ s) {            \
        memcpy(d, s, sizeof(T) * KT_TW);                                                     \
    }                                                                                        \
    static inline void kt_set_##S(T *__restrict__ d, T v) {                                  \
        for (int j = 0; j < KT_TW; j++) d[j] = v;                                            \
    }                                                                                        \
    static inline void kt_mean6_##S(T *__restrict__ d, const T *a, const T *b, const T *c,   \
                                    const T *e, const T *f, const T *g) {                    \
        const T sixth = (T) (1.0 / 6.0);                                                     \
        for (int j = 0; j < KT_TW; j++) d[j] = (a[j] + b[j] + c[j] + e[j] + f[j] + g[j]) * sixth; \
    }                                                                                        \
    static inline void kt_acc_##S(double *__restrict__ acc, const T *__restrict__ s, double w) { \
        for (int j = 0; j < KT_TW; j++) acc[j] += w * (double) s[j];                        \
    }
    KT_DEFINE(float, f)
    KT_DEFINE(double, d)
    """
    void kt_max_f(float* d, const float* s) noexcept nogil
    void kt_max2_f(float* d, const float* a, const float* b) noexcept nogil
    void kt_copy_f(float* d, const float* s) noexcept nogil
    void kt_set_f(float* d, float v) noexcept nogil
    void kt_mean6_f(float* d, const float* a, const float* b, const float* c, const float* e, const float* f,
                    const float* g) noexcept nogil
    void kt_acc_f(double* acc, const float* s, double w) noexcept nogil
    void kt_max_d(double* d, const double* s) noexcept nogil
    void kt_max2_d(double* d, const double* a, const double* b) noexcept nogil
    void kt_copy_d(double* d, const double* s) noexcept nogil
    void kt_set_d(double* d, double v) noexcept nogil
    void kt_mean6_d(double* d, const double* a, const double* b, const double* c, const double* e, const double* f,
                    const double* g) noexcept nogil
    void kt_acc_d(double* acc, const double* s, double w) noexcept nogil
    enum:
        TW "KT_TW"   # targets per tile

cdef enum:
    NO_FILL = -2147483647  # an entry that may not be written (-inf points)
    THROWS = 7776    # 6^5: the first throw's outcome counts sum to it


cdef struct Model:
    const i64* base          # (2^n,) first state of each mask
    const int* ncls
    const signed char* nflag
    const int* grp_ptr       # (2^n + 1,) CSR of box groups per mask
    const int* grp_bits
    const int* ctx_of        # (2^n * 2,) reward context of (mask, flag)
    const double* rewards    # (n_ctx, n_boxes, n_ft, N_OUT), -inf: not allowed
    int n_boxes
    int n_ft
    const i64* tbase
    const int* uprank
    const int* tnext         # (rows, N_OUT)
    const double* toff       # (rows, N_OUT)
    const signed char* fnext  # (n_boxes, 2, N_OUT)
    int n_upper
    const int* child         # (N_SMALL, 6) keep lattice
    const int* counts        # (N_OUT,) outcome counts of the first throw
    i64 next_first           # first state of the next layer
    i64 next_count
    const int* nlo           # (next_count,) next layer: R = 1 up to lo
    const i64* noff          # (next_count + 1,) its runs


cdef Model _model(
    const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag, const int[::1] grp_ptr,
    const int[::1] grp_bits, const int[::1] ctx_of, const double[:, :, :, ::1] rewards, const i64[::1] tbase,
    const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff, const signed char[:, :, ::1] fnext,
    int n_upper, const int[:, ::1] child, const int[::1] counts,
    i64 next_first, const int[::1] nlo, const i64[::1] noff,
) except *:
    cdef Model M
    if child.shape[0] != N_SMALL or child.shape[1] != 6:
        raise ValueError(f"the keep lattice must be ({N_SMALL}, 6), got {tuple(child.shape)!r}")
    if counts.shape[0] != N_OUT or tnext.shape[1] != N_OUT or toff.shape[1] != N_OUT or rewards.shape[3] != N_OUT:
        raise ValueError("outcome axes must have 252 entries")
    if noff.shape[0] != nlo.shape[0] + 1:
        raise ValueError(f"the next layer has {nlo.shape[0]} states but {noff.shape[0]} run offsets")
    M.base = &base[0]
    M.ncls = &ncls[0]
    M.nflag = &nflag[0]
    M.grp_ptr = &grp_ptr[0]
    M.grp_bits = &grp_bits[0]
    M.ctx_of = &ctx_of[0]
    M.rewards = &rewards[0, 0, 0, 0]
    M.n_boxes = rewards.shape[1]
    M.n_ft = rewards.shape[2]
    M.tbase = &tbase[0]
    M.uprank = &uprank[0]
    M.tnext = &tnext[0, 0]
    M.toff = &toff[0, 0]
    M.fnext = &fnext[0, 0, 0]
    M.n_upper = n_upper
    M.child = &child[0, 0]
    M.counts = &counts[0]
    M.next_first = next_first
    M.next_count = nlo.shape[0]
    M.nlo = &nlo[0] if nlo.shape[0] > 0 else NULL
    M.noff = &noff[0]
    return M


cdef inline int _all_bits(const Model* M, int m) noexcept nogil:
    cdef int g, bits = 0
    for g in range(M.grp_ptr[m], M.grp_ptr[m + 1]):
        bits = bits | M.grp_bits[g]
    return bits


cdef int _entries(const Model* M, int m, int c, int f, int bits, int* e_base, int* e_top, i64* e_vp,
                  i64* e_succ, double* e_pts) noexcept nogil:
    """Every fill of a state (m, c, f): for box b, first-throw flag ft and outcome o, entry
    ``(b * 2 + ft) * N_OUT + o``: the next state ``e_succ`` (relative to the next layer),
    the points ``e_pts`` (-inf: not allowed), and the successor's vector shifted by them:
    1 for t <= e_base, ``vals[e_vp + t]`` up to e_top, 0 beyond. Returns -1 when a next
    state falls outside the next layer (a table that does not fit the model)."""
    cdef int b, o, ft, m2, nf2, n_open_upper, lo, p
    cdef int U = m & ((1 << M.n_upper) - 1)
    cdef i64 b2, row, s, idx
    cdef double pts, shift
    cdef const double* r
    cdef const signed char* fn
    cdef int ctx = M.ctx_of[2 * m + f]
    n_open_upper = M.n_upper - popcount(U)
    for b in range(M.n_boxes):
        if not (bits >> b) & 1:
            continue
        m2 = m | (1 << b)
        b2 = M.base[m2]
        nf2 = M.nflag[m2]
        fn = M.fnext + (b * 2 + f) * N_OUT
        row = -1
        if b < M.n_upper:
            row = M.tbase[m] + <i64> c * n_open_upper + M.uprank[U * M.n_upper + b]
        for o in range(N_OUT):
            if row >= 0:
                s = b2 + <i64> M.tnext[row * N_OUT + o] * nf2 + fn[o]
                shift = M.toff[row * N_OUT + o]
            else:
                s = b2 + <i64> c * nf2 + fn[o]
                shift = 0.0
            s -= M.next_first
            if s < 0 or s >= M.next_count:
                return -1
            lo = M.nlo[s]
            for ft in range(2):
                idx = (b * 2 + ft) * N_OUT + o
                r = M.rewards + ((<i64> ctx * M.n_boxes + b) * M.n_ft + (ft if M.n_ft == 2 else 0)) * N_OUT
                pts = r[o]
                e_succ[idx] = s
                if pts == -INFINITY:
                    e_pts[idx] = -INFINITY
                    e_base[idx] = NO_FILL
                    continue
                pts = pts + shift
                e_pts[idx] = pts
                p = <int> pts
                e_base[idx] = lo + p
                e_top[idx] = lo + p + <int> (M.noff[s + 1] - M.noff[s])
                e_vp[idx] = M.noff[s] - (lo + p) - 1
    return 0


def target_bounds(
    const int[::1] masks, i64 first_state, int[::1] t0, int[::1] t1,
    i64 next_first, const int[::1] nlo, const i64[::1] noff,
    const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag, const int[::1] grp_ptr,
    const int[::1] grp_bits, const int[::1] ctx_of, const double[:, :, :, ::1] rewards, const i64[::1] tbase,
    const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff, const signed char[:, :, ::1] fnext,
    int n_upper, const int[:, ::1] child, const int[::1] counts,
):
    """For every state of ``masks`` (contiguous from ``first_state``): the targets its vector
    can vary over, ``t0 < t <= t1`` (below, every fill reaches t; above, none can). Reads the
    next layer's ``nlo``/``noff`` (first state ``next_first``)."""
    cdef Model M = _model(base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rewards, tbase, uprank, tnext, toff,
                          fnext, n_upper, child, counts, next_first, nlo, noff)
    cdef i64 size = <i64> M.n_boxes * 2 * N_OUT
    cdef int* e_base = <int*> malloc(sizeof(int) * 2 * size)
    cdef int* e_top = e_base + size
    cdef i64* e_vp = <i64*> malloc(sizeof(i64) * 2 * size)
    cdef i64* e_succ = e_vp + size
    cdef double* e_pts = <double*> malloc(sizeof(double) * size)
    if e_base == NULL or e_vp == NULL or e_pts == NULL:
        free(e_base); free(e_vp); free(e_pts)
        raise MemoryError()
    cdef Py_ssize_t i
    cdef i64 s, idx
    cdef int m, c, f, bits, b, lo, hi, bad = 0
    with nogil:
        for i in range(masks.shape[0]):
            m = masks[i]
            bits = _all_bits(&M, m)
            for c in range(M.ncls[m]):
                for f in range(M.nflag[m]):
                    s = M.base[m] + <i64> c * M.nflag[m] + f - first_state
                    if _entries(&M, m, c, f, bits, e_base, e_top, e_vp, e_succ, e_pts) < 0:
                        bad = 1
                        break
                    lo = 2147483647
                    hi = -2147483647
                    for b in range(M.n_boxes):
                        if not (bits >> b) & 1:
                            continue
                        for idx in range(b * 2 * N_OUT, (b * 2 + (2 if M.n_ft == 2 else 1)) * N_OUT):
                            if e_base[idx] == NO_FILL:
                                continue
                            if e_base[idx] < lo:
                                lo = e_base[idx]
                            if e_top[idx] > hi:
                                hi = e_top[idx]
                    if hi < lo:  # no fill at all cannot happen on a card with open boxes
                        bad = 2
                        break
                    t0[s] = lo
                    t1[s] = hi
                if bad:
                    break
            if bad:
                break
    free(e_base)
    free(e_vp)
    free(e_pts)
    if bad == 1:
        raise ValueError("a fill leads outside the next layer: the layer arrays do not fit the model")
    if bad == 2:
        raise ValueError("a state without any allowed fill")


# ------------------------------------------------------------------------------------------
# Tile operations on rows of TW values
# ------------------------------------------------------------------------------------------
cdef inline void _vmax(real* dst, const real* src) noexcept nogil:
    if real is float:
        kt_max_f(dst, src)
    else:
        kt_max_d(dst, src)


cdef inline void _vmax2(real* dst, const real* a, const real* b) noexcept nogil:
    if real is float:
        kt_max2_f(dst, a, b)
    else:
        kt_max2_d(dst, a, b)


cdef inline void _copy(real* dst, const real* src) noexcept nogil:
    if real is float:
        kt_copy_f(dst, src)
    else:
        kt_copy_d(dst, src)


cdef inline void _set(real* dst, real v) noexcept nogil:
    if real is float:
        kt_set_f(dst, v)
    else:
        kt_set_d(dst, v)


cdef inline void _acc(double* acc, const real* src, double w) noexcept nogil:
    if real is float:
        kt_acc_f(acc, src, w)
    else:
        kt_acc_d(acc, src, w)


cdef enum:
    ZERO_ROW = 0     # a successor row of zeros
    ONE_ROW = 1      # of ones
    MIXED_ROW = 2    # anything else


cdef inline int _pair_row(real* dst, int p_base, int p_top, i64 p_vp, int tf, const real* vals) noexcept nogil:
    """The successor vector shifted by a fill's points over targets tf .. tf + TW - 1:
    1 up to p_base, ``vals[p_vp + t]`` up to p_top, 0 beyond. Returns ZERO_ROW or ONE_ROW
    when the row is constant (then ``dst`` is not written), else MIXED_ROW."""
    cdef int j, j1, j2
    cdef const real* src
    j1 = p_base - tf + 1
    if j1 >= TW:
        return ONE_ROW
    if j1 < 0:
        j1 = 0
    j2 = p_top - tf + 1
    if j2 > TW:
        j2 = TW
    if j2 <= 0:
        return ZERO_ROW
    if j2 < j1:
        j2 = j1
    for j in range(j1):
        dst[j] = 1
    src = vals + p_vp + tf
    for j in range(j1, j2):
        dst[j] = src[j]
    for j in range(j2, TW):
        dst[j] = 0
    return MIXED_ROW


cdef inline void _row_of(real* dst, int kind, const real* row) noexcept nogil:
    if kind == MIXED_ROW:
        _copy(dst, row)
    else:
        _set(dst, <real> kind)


cdef inline void _averages(const real* top, real* K, const int* child) noexcept nogil:
    """K[k] (keeps of 0..4 dice) = the mean over one more die, rows of TW; ``top`` holds the
    outcomes (keeps of five dice). Keeps are ordered by size, so children come later.
    The six terms are added in one fixed order, so six exact ones give exactly one."""
    cdef int k, j
    cdef const int* ch
    cdef const real* r[6]
    for k in range(N_SMALL - 1, -1, -1):
        ch = child + 6 * k
        for j in range(6):
            r[j] = (top + (ch[j] - N_SMALL) * TW) if ch[j] >= N_SMALL else (K + ch[j] * TW)
        if real is float:
            kt_mean6_f(K + k * TW, r[0], r[1], r[2], r[3], r[4], r[5])
        else:
            kt_mean6_d(K + k * TW, r[0], r[1], r[2], r[3], r[4], r[5])


cdef inline void _best_inside(real* K, real* proper, const int* child) noexcept nogil:
    """proper[o] = the best keep strictly inside outcome o, from the keep values K (which
    become the best sub-keep of each keep): each keep pushes its best to its children.
    The four-dice keeps inside an outcome start it (every outcome has one)."""
    cdef int k, f, o
    cdef const int* ch
    cdef signed char started[N_OUT]
    for k in range(N_FOUR):
        ch = child + 6 * k
        for f in range(6):
            _vmax(K + ch[f] * TW, K + k * TW)
    for o in range(N_OUT):
        started[o] = 0
    for k in range(N_FOUR, N_SMALL):
        ch = child + 6 * k
        for f in range(6):
            o = ch[f] - N_SMALL
            if started[o]:
                _vmax(proper + o * TW, K + k * TW)
            else:
                _copy(proper + o * TW, K + k * TW)
                started[o] = 1


# ------------------------------------------------------------------------------------------
# Scalar expected-score decisions (policy mode), as in _scorecard.turn_entries (the keep
# stage and its tie rule: keep_lattice.keep_stage_arg, shared)
# ------------------------------------------------------------------------------------------
cdef void _policy(const Model* M, const double* W, int bits, const i64* e_succ, const double* e_pts,
                  int* A0, int* A1, signed char* fill2, signed char* fill1, int* arg3, int* arg2,
                  double* V1, double* scratch, int* iscratch) noexcept nogil:
    """The expected-score policy of one box group (``W``: the next layer's values): best box after a later throw / the
    first (A0/A1, first box on ties), whether to fill after the second / first throw
    (fill2/fill1: at least as good as the best keep), the keeps otherwise (arg3/arg2), and
    the value after the first throw V1."""
    cdef int b, o, ft
    cdef i64 idx
    cdef double q
    cdef double* F0 = scratch
    cdef double* F1 = scratch + N_OUT
    cdef double* V2 = scratch + 2 * N_OUT
    cdef double* proper = scratch + 3 * N_OUT
    cdef double* K = scratch + 4 * N_OUT
    cdef double* Mx = K + N_KEEP + 1
    for o in range(N_OUT):
        F0[o] = -INFINITY
        F1[o] = -INFINITY
        A0[o] = -1
        A1[o] = -1
    for b in range(M.n_boxes):
        if not (bits >> b) & 1:
            continue
        for ft in range(2):
            for o in range(N_OUT):
                idx = (b * 2 + ft) * N_OUT + o
                if e_pts[idx] == -INFINITY:
                    continue
                q = e_pts[idx] + W[e_succ[idx]]
                if ft == 0 and q > F0[o]:
                    F0[o] = q
                    A0[o] = b
                elif ft == 1 and q > F1[o]:
                    F1[o] = q
                    A1[o] = b
    keep_stage_arg(F0, K, Mx, iscratch, proper, arg3, M.child)
    for o in range(N_OUT):
        fill2[o] = F0[o] >= proper[o]
        V2[o] = F0[o] if fill2[o] else proper[o]
    keep_stage_arg(V2, K, Mx, iscratch, proper, arg2, M.child)
    for o in range(N_OUT):
        fill1[o] = F1[o] >= proper[o]
        V1[o] = F1[o] if fill1[o] else proper[o]


# ------------------------------------------------------------------------------------------
# The solve
# ------------------------------------------------------------------------------------------
# (the fused dispatcher Cython writes for a def function trips its own flow analysis)
@cython.warn.maybe_uninitialized(False)
def solve_target_masks(
    const int[::1] masks, i64 first_state, int mode, const i64[::1] slot, const int[::1] t0,
    real[::1] out, int[::1] res_lo, int[::1] res_start, int[::1] res_len, double cap,
    i64 next_first, const int[::1] nlo, const i64[::1] noff, const real[::1] nvals, const double[::1] W,
    const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag, const int[::1] grp_ptr,
    const int[::1] grp_bits, const int[::1] ctx_of, const double[:, :, :, ::1] rewards, const i64[::1] tbase,
    const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff, const signed char[:, :, ::1] fnext,
    int n_upper, const int[:, ::1] child, const int[::1] counts,
):
    """Vectors over targets of every state of ``masks`` (all in one layer, contiguous from
    ``first_state``), read from the next layer (``nlo``, ``noff``, ``nvals``: R = 1 up to
    ``nlo``, the run, then 0). Releases the GIL.

    State ``s`` (local index ``s - first_state``) gets ``out[slot[s] : slot[s + 1]]`` for
    the targets ``t0[s] + 1 ...`` (the bounds of :func:`target_bounds`; the slot must hold
    ``t1 - t0`` values). On return its stored run is ``out[slot[s] + res_start[s]:][:res_len[s]]``
    for targets ``res_lo[s] + 1 ...``: leading exact ones and trailing values below ``cap``
    are cut (R = 1 up to ``res_lo``, 0 after the run).

    The fills of a state lead to few distinct (next state, points) pairs (a lower box has
    one next state, a face box one per entry), so each tile builds every pair's shifted row
    once and the outcomes take maxima of those rows.

    Parameters
    ----------
    mode : 0 for the maximum over strategies, 1 for the expected-score policy (``W``: the
        expected-score values of the next layer's states, float64; unused in mode 0)
    out, nvals : float32 or float64 (the same)
    rewards : (n_ctx, n_boxes, n_ft, 252) float64, the fill points (-inf: not allowed)
    counts : (252,) int32, outcome counts of five dice (sum 7776)
    """
    cdef Model M = _model(base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rewards, tbase, uprank, tnext, toff,
                          fnext, n_upper, child, counts, next_first, nlo, noff)
    if mode not in (0, 1):
        raise ValueError(f"mode must be 0 (reach) or 1 (policy), got {mode!r}")
    if mode == 1 and W.shape[0] < nlo.shape[0]:
        raise ValueError(f"policy mode needs the expected-score values of the next layer's {nlo.shape[0]} states, got {W.shape[0]}")
    cdef int max_groups = 1
    cdef Py_ssize_t i
    for i in range(grp_ptr.shape[0] - 1):
        if grp_ptr[i + 1] - grp_ptr[i] > max_groups:
            max_groups = grp_ptr[i + 1] - grp_ptr[i]
    cdef i64 size = <i64> M.n_boxes * 2 * N_OUT
    cdef int* e_base = <int*> malloc(sizeof(int) * 3 * size)
    cdef i64* e_vp = <i64*> malloc(sizeof(i64) * 2 * size)
    cdef double* e_pts = <double*> malloc(sizeof(double) * size)
    # pairs: base, top (ints), vp (i64), kind (int); a hash of (base, vp) -> pair
    cdef int* p_int = <int*> malloc(sizeof(int) * (3 * size + 2 * 8192))
    cdef i64* p_vp = <i64*> malloc(sizeof(i64) * size)
    cdef real* prow = <real*> malloc(sizeof(real) * TW * size)
    # tile rows: F0, F1, V2, best, proper: 5 x 252; keeps: 210
    cdef real* rows = <real*> malloc(sizeof(real) * TW * (5 * N_OUT + N_SMALL))
    cdef double* acc = <double*> malloc(sizeof(double) * TW)
    # policy decisions per group: A0, A1, arg3, arg2 (ints), fill2, fill1 (chars); gbest
    cdef int* pol = <int*> malloc(sizeof(int) * (max_groups * 4 * N_OUT + N_OUT + N_KEEP + 1))
    cdef signed char* pflag = <signed char*> malloc(max_groups * 2 * N_OUT)
    cdef double* scratch = <double*> malloc(sizeof(double) * (6 * N_OUT + 2 * (N_KEEP + 1)))
    cdef int* gboxes = <int*> malloc(sizeof(int) * (max_groups * (M.n_boxes + 1)))
    if e_base == NULL or e_vp == NULL or e_pts == NULL or p_int == NULL or p_vp == NULL or prow == NULL \
            or rows == NULL or acc == NULL or pol == NULL or pflag == NULL or scratch == NULL or gboxes == NULL:
        free(e_base); free(e_vp); free(e_pts); free(p_int); free(p_vp); free(prow); free(rows); free(acc)
        free(pol); free(pflag); free(scratch); free(gboxes)
        raise MemoryError()
    cdef int* e_top = e_base + size
    cdef int* e_pair = e_base + 2 * size
    cdef i64* e_succ = e_vp + size
    cdef int* p_base = p_int
    cdef int* p_top = p_int + size
    cdef int* p_kind = p_int + 2 * size
    cdef int* p_hash = p_int + 3 * size          # (8192, 2): pair + 1, 0 = empty
    cdef real* F0 = rows
    cdef real* F1 = rows + N_OUT * TW
    cdef real* V2 = rows + 2 * N_OUT * TW
    cdef real* best = rows + 3 * N_OUT * TW
    cdef real* proper = rows + 4 * N_OUT * TW
    cdef real* K = rows + 5 * N_OUT * TW
    cdef int* gbest = pol + max_groups * 4 * N_OUT
    cdef int* iscratch = gbest + N_OUT
    cdef double* V1 = scratch + 4 * N_OUT + 2 * (N_KEEP + 1)
    cdef double* bestV = V1 + N_OUT
    cdef const real* nv = &nvals[0] if nvals.shape[0] > 0 else NULL
    cdef const double* Wp = &W[0] if W.shape[0] > 0 else NULL
    cdef bint two = M.n_ft == 2
    cdef int m, c, f, g, g0, ng, allbits, b, o, j, tf, tile, n, lead, last, bad = 0, n_pairs, q, k, kind, nb, ft
    cdef i64 s, at, e, h
    cdef int* A0
    cdef int* A1
    cdef int* a3
    cdef int* a2
    cdef int* gb
    cdef signed char* f2
    cdef signed char* f1
    cdef real* F1p
    cdef real* dst
    cdef bint mixed
    cdef real one = 1
    with nogil:
        for i in range(masks.shape[0]):
            m = masks[i]
            g0 = M.grp_ptr[m]
            ng = M.grp_ptr[m + 1] - g0
            allbits = _all_bits(&M, m)
            for g in range(ng):  # the boxes of each group, as a list
                gb = gboxes + g * (M.n_boxes + 1)
                nb = 0
                for b in range(M.n_boxes):
                    if (M.grp_bits[g0 + g] >> b) & 1:
                        gb[1 + nb] = b
                        nb += 1
                gb[0] = nb
            for c in range(M.ncls[m]):
                for f in range(M.nflag[m]):
                    s = M.base[m] + <i64> c * M.nflag[m] + f - first_state
                    if _entries(&M, m, c, f, allbits, e_base, e_top, e_vp, e_succ, e_pts) < 0:
                        bad = 1
                        break
                    # the distinct (next state, points) pairs of the fills
                    for j in range(2 * 8192):
                        p_hash[j] = 0
                    n_pairs = 0
                    for b in range(M.n_boxes):
                        if not (allbits >> b) & 1:
                            continue
                        for ft in range(2 if two else 1):
                            for o in range(N_OUT):
                                e = (b * 2 + ft) * N_OUT + o
                                if e_base[e] == NO_FILL:
                                    e_pair[e] = -1
                                    continue
                                h = ((e_vp[e] * <i64> 40503 + e_base[e] * <i64> 9973) & 8191)
                                q = p_hash[2 * h] - 1
                                while True:
                                    if q < 0:
                                        q = n_pairs
                                        n_pairs += 1
                                        p_hash[2 * h] = q + 1
                                        p_base[q] = e_base[e]
                                        p_top[q] = e_top[e]
                                        p_vp[q] = e_vp[e]
                                        break
                                    if p_vp[q] == e_vp[e] and p_base[q] == e_base[e] and p_top[q] == e_top[e]:
                                        break
                                    h = (h + 1) & 8191
                                    q = p_hash[2 * h] - 1
                                e_pair[e] = q
                    if mode == 1:
                        for o in range(N_OUT):
                            bestV[o] = -INFINITY
                            gbest[o] = 0
                        for g in range(ng):
                            _policy(&M, Wp, M.grp_bits[g0 + g], e_succ, e_pts,
                                    pol + (g * 4) * N_OUT, pol + (g * 4 + 1) * N_OUT,
                                    pflag + (g * 2) * N_OUT, pflag + (g * 2 + 1) * N_OUT,
                                    pol + (g * 4 + 2) * N_OUT, pol + (g * 4 + 3) * N_OUT,
                                    V1, scratch, iscratch)
                            for o in range(N_OUT):
                                if V1[o] > bestV[o]:
                                    bestV[o] = V1[o]
                                    gbest[o] = g
                    n = <int> (slot[s + 1] - slot[s])
                    at = slot[s]
                    for tile in range((n + TW - 1) // TW):
                        tf = t0[s] + 1 + tile * TW
                        for q in range(n_pairs):
                            p_kind[q] = _pair_row(prow + <i64> q * TW, p_base[q], p_top[q], p_vp[q], tf, nv)
                        _set(best, 0)
                        for o in range(1, N_OUT):
                            _set(best + o * TW, 0)
                        for g in range(ng):
                            gb = gboxes + g * (M.n_boxes + 1)
                            if mode == 0:
                                for ft in range(2 if two else 1):
                                    for o in range(N_OUT):
                                        dst = (F1 if ft else F0) + o * TW
                                        mixed = False
                                        kind = ZERO_ROW
                                        for k in range(gb[0]):
                                            q = e_pair[(gb[1 + k] * 2 + ft) * N_OUT + o]
                                            if q < 0 or p_kind[q] == ZERO_ROW:
                                                continue
                                            if p_kind[q] == ONE_ROW:
                                                kind = ONE_ROW
                                                break
                                            if mixed:
                                                _vmax(dst, prow + <i64> q * TW)
                                            else:
                                                _copy(dst, prow + <i64> q * TW)
                                                mixed = True
                                        if kind == ONE_ROW or not mixed:
                                            _set(dst, <real> kind)
                                F1p = F1 if two else F0
                                _averages(F0, K, M.child)
                                _best_inside(K, proper, M.child)
                                for o in range(N_OUT):
                                    _vmax2(V2 + o * TW, F0 + o * TW, proper + o * TW)
                                _averages(V2, K, M.child)
                                _best_inside(K, proper, M.child)
                                for o in range(N_OUT):
                                    _vmax(best + o * TW, proper + o * TW)
                                    _vmax(best + o * TW, F1p + o * TW)
                            else:
                                A0 = pol + (g * 4) * N_OUT
                                A1 = pol + (g * 4 + 1) * N_OUT
                                a3 = pol + (g * 4 + 2) * N_OUT
                                a2 = pol + (g * 4 + 3) * N_OUT
                                f2 = pflag + (g * 2) * N_OUT
                                f1 = pflag + (g * 2 + 1) * N_OUT
                                for o in range(N_OUT):
                                    if gbest[o] == g:
                                        break
                                else:
                                    continue
                                for o in range(N_OUT):
                                    if A0[o] >= 0:
                                        q = e_pair[A0[o] * 2 * N_OUT + o]
                                        _row_of(F0 + o * TW, p_kind[q], prow + <i64> q * TW)
                                    else:
                                        _set(F0 + o * TW, 0)
                                _averages(F0, K, M.child)
                                for o in range(N_OUT):
                                    if f2[o]:
                                        _copy(V2 + o * TW, F0 + o * TW)
                                    else:
                                        _copy(V2 + o * TW, K + a3[o] * TW)
                                _averages(V2, K, M.child)
                                for o in range(N_OUT):
                                    if gbest[o] != g:
                                        continue
                                    if f1[o]:
                                        if two:
                                            q = e_pair[(A1[o] * 2 + 1) * N_OUT + o]
                                            _row_of(best + o * TW, p_kind[q], prow + <i64> q * TW)
                                        else:
                                            _copy(best + o * TW, F0 + o * TW)
                                    else:
                                        _copy(best + o * TW, K + a2[o] * TW)
                        for j in range(TW):
                            acc[j] = 0.0
                        for o in range(N_OUT):
                            _acc(acc, best + o * TW, <double> M.counts[o])
                        for j in range(TW):
                            if tf - t0[s] - 1 + j < n:
                                out[at + tf - t0[s] - 1 + j] = <real> (acc[j] / THROWS)
                    # cut the exact ones in front and the values below the cap behind
                    lead = 0
                    while lead < n and out[at + lead] >= one:
                        lead += 1
                    last = n
                    while last > lead and out[at + last - 1] < cap:
                        last -= 1
                    res_lo[s] = t0[s] + lead
                    res_start[s] = lead
                    res_len[s] = last - lead
                if bad:
                    break
            if bad:
                break
    free(e_base); free(e_vp); free(e_pts); free(p_int); free(p_vp); free(prow); free(rows); free(acc)
    free(pol); free(pflag); free(scratch); free(gboxes)
    if bad:
        raise ValueError("a fill leads outside the next layer: the layer arrays do not fit the model")


@cython.warn.maybe_uninitialized(False)  # the fused dispatcher, as above
def gather_runs(const real[::1] src, const i64[::1] slot, const int[::1] start, const int[::1] length,
                real[::1] dst, const i64[::1] dst_off):
    """``dst[dst_off[s]:][:length[s]] = src[slot[s] + start[s]:][:length[s]]`` for every s."""
    cdef Py_ssize_t s
    cdef i64 j
    if dst_off.shape[0] != start.shape[0] + 1 or slot.shape[0] < start.shape[0] or length.shape[0] != start.shape[0]:
        raise ValueError("gather_runs: start, length, slot and dst_off must describe the same states")
    with nogil:
        for s in range(start.shape[0]):
            for j in range(length[s]):
                dst[dst_off[s] + j] = src[slot[s] + start[s] + j]
