# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Turn kernel of the five-dice card solvers (``solvers/scorecard/values.py``,
``solvers/polish/values.py``).

One turn is solved exactly: three throws over the 252 sorted outcomes and the 462 keeps
(sub-multisets, the empty keep included). Keep values use the *keep lattice* instead of the
dense 462 x 252 transition matrix:

* the value of keeping m dice is the mean, over one more die, of keeping m + 1 dice
  (a keep of 5 dice is an outcome), so every keep costs 6 additions;
* the best keep inside an outcome is the best over its sub-multisets, found by the same
  lattice: each keep passes its best sub-keep on to its six children (one die more).

A state is (filled-box mask, tracker class, flag); the caller lays the states out so that
state ``base[m] + c * nflag[m] + f`` is class ``c``, flag ``f`` of mask ``m``.

**Successors.** Writing an outcome into a face box moves the tracker by the box's entry,
and the entry depends on the dice only through its *entry group* (``egrp[u, o]``, at most
``MAX_G`` groups: for a face box the number of dice showing its face), so a face-box fill
has at most ``G`` successor states, read once per state instead of once per outcome
(``tnext``/``toff`` rows of ``G`` columns). A lower box has one successor, the flag box
(Yahtzee's "holds 50") two. Rewards are one (box, first-throw, outcome) table; the few
*special* outcomes whose points and allowed boxes depend on the card (bonus Yahtzees, the
joker) are patched per reward context (``srew``), after the vector pass.

The Python side builds every table; this file only runs loops over typed memoryviews
without the GIL: the backward solve (:func:`solve_masks`), the forward propagation of the
score distribution (:func:`forward_distribution`, cancellable; its first turn alone:
:func:`root_turn_entries`), the ranking of one position's actions
(:class:`TurnTables`) and the Polish throw-budget solve (:func:`solve_budget_masks`).
"""
import numpy as np

from libc.math cimport INFINITY, NAN, floor
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memset

from keep_lattice cimport N_FOUR, N_KEEP, N_OUT, N_SMALL, popcount
from scorecard_fill cimport (
    MAX_BOXES, MAX_G, BoxSucc, Problem, _max, _problem, box_succ, fill_value, fix_specials, group_fills, i64,
    special_reward, succ_index, succ_of, turn_keep_stages,
)
from scorecard_fill cimport fill_points as _fill_points

cdef extern from *:
    """
    /* The loops below run along arrays of doubles; on x86-64 Linux GCC also compiles an
       AVX2 version of them, which the loader picks where the CPU has it. Both give the same
       bits (no multiply-add is fused: setup.py compiles with -ffp-contract=off). An AVX-512
       version was slower on this project's machine (an AMD EPYC: the Polish stage 2 took
       152 s against 135 s with AVX2), so there is none. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define KOCKA_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define KOCKA_VECTOR_CLONES
    #endif

    /* dst += p * src over n doubles (restrict lets the compiler vectorize; the score
       distribution spends much of its time here) */
    KOCKA_VECTOR_CLONES
    static void kocka_axpy(double *__restrict__ dst, const double *__restrict__ src,
                           double p, Py_ssize_t n) {
        for (Py_ssize_t i = 0; i < n; i++) dst[i] += p * src[i];
    }
    """
    void kocka_axpy(double* dst, const double* src, double p, Py_ssize_t n) noexcept nogil

cdef extern from *:
    """
    /* The keep stage (keep_stage below) of B widgets side by side: arrays are (rows, B),
       row-major, so every operation runs along the B lanes, which the compiler vectorizes
       (see KOCKA_VECTOR_CLONES). The arithmetic of each lane is keep_stage's, in the same
       order, so the values are the same bit for bit. K (210 rows) is scratch: the keeps of
       four dice read the outcomes from top, the smaller ones their children in K, and the
       best sub-keep is then pushed up in place (a keep's value is not read again once its
       children have theirs). */
    KOCKA_VECTOR_CLONES
    static void kocka_keep_stage_lanes(const double *__restrict__ top, double *__restrict__ K,
                                       double *__restrict__ proper, const int *__restrict__ child,
                                       int B) {
        int k, f, l;
        for (k = KOCKA_N_SMALL - 1; k >= 0; k--) {
            const int *ch = child + 6 * k;
            const double *src = K;
            int shift = 0;
            if (k >= KOCKA_N_FOUR) { src = top; shift = KOCKA_N_SMALL; }   /* four dice: one more is an outcome */
            const double *a = src + (ch[0] - shift) * B, *b = src + (ch[1] - shift) * B;
            const double *c = src + (ch[2] - shift) * B, *d = src + (ch[3] - shift) * B;
            const double *e = src + (ch[4] - shift) * B, *g = src + (ch[5] - shift) * B;
            double *out = K + k * B;
            for (l = 0; l < B; l++) out[l] = (a[l] + b[l] + c[l] + d[l] + e[l] + g[l]) * (1.0 / 6.0);
        }
        for (k = 0; k < KOCKA_N_OUT * B; k++) proper[k] = -__builtin_inf();
        for (k = 0; k < KOCKA_N_FOUR; k++) {
            const double *mk = K + k * B;
            for (f = 0; f < 6; f++) {
                double *mc = K + child[6 * k + f] * B;
                for (l = 0; l < B; l++) mc[l] = mk[l] > mc[l] ? mk[l] : mc[l];
            }
        }
        for (k = KOCKA_N_FOUR; k < KOCKA_N_SMALL; k++) {
            const double *mk = K + k * B;
            for (f = 0; f < 6; f++) {
                double *pc = proper + (child[6 * k + f] - KOCKA_N_SMALL) * B;
                for (l = 0; l < B; l++) pc[l] = mk[l] > pc[l] ? mk[l] : pc[l];
            }
        }
    }

    /* dst[i] = max(dst[i], x + src[i]) and dst[i] = x + src[i] along the lanes (restrict:
       the compiler may vectorize; max as _max: the new value when strictly greater) */
    static inline void kocka_lane_max_add(double *__restrict__ dst, const double *__restrict__ src,
                                          double x, int n) {
        for (int i = 0; i < n; i++) { double v = x + src[i]; dst[i] = v > dst[i] ? v : dst[i]; }
    }
    static inline void kocka_lane_add(double *__restrict__ dst, const double *__restrict__ src,
                                      double x, int n) {
        for (int i = 0; i < n; i++) dst[i] = x + src[i];
    }
    static inline void kocka_lane_max(double *__restrict__ dst, const double *__restrict__ src, int n) {
        for (int i = 0; i < n; i++) dst[i] = src[i] > dst[i] ? src[i] : dst[i];
    }
    /* dst[i] = a[i] if a[i] > b[i] else b[i] (a fill, unless the best keep is better) */
    KOCKA_VECTOR_CLONES
    static void kocka_max_of(double *__restrict__ dst, const double *__restrict__ a,
                             const double *__restrict__ b, int n) {
        for (int i = 0; i < n; i++) dst[i] = a[i] > b[i] ? a[i] : b[i];
    }

    /* The fills of one box along n lanes, for every outcome o: G[o * stride + i] is
       x[o] + vg[g(o) * vg_stride + i] (one box per group) or the larger of that and
       itself, for the later throws (G0, x0) and from hand (G1, x1); g(o) = eg[o], or 0
       where eg is NULL (a box with one successor). */
    KOCKA_VECTOR_CLONES
    static void kocka_box_fills_lanes(double *G0, double *G1, const double *x0, const double *x1,
                                      const signed char *eg, const double *vg, int vg_stride,
                                      int stride, int n, int single) {
        for (int o = 0; o < KOCKA_N_OUT; o++) {
            const double *v = vg + (eg ? eg[o] : 0) * vg_stride;
            if (single) {
                kocka_lane_add(G0 + o * stride, v, x0[o], n);
                kocka_lane_add(G1 + o * stride, v, x1[o], n);
            } else {
                kocka_lane_max_add(G0 + o * stride, v, x0[o], n);
                kocka_lane_max_add(G1 + o * stride, v, x1[o], n);
            }
        }
    }

    /* acc[i] += sum over outcomes o of pr[o] * (the best of V[o * stride + g * n + i] over
       the groups g < ng), in outcome order: the mean over the first throw of the value
       after it, its best group played (best: scratch of n doubles) */
    KOCKA_VECTOR_CLONES
    static void kocka_best_group_mean(const double *V, const double *pr, int stride, int n, int ng,
                                      double *__restrict__ best, double *__restrict__ acc) {
        for (int o = 0; o < KOCKA_N_OUT; o++) {
            const double *row = V + o * stride;
            for (int i = 0; i < n; i++) best[i] = row[i];
            for (int g = 1; g < ng; g++) kocka_lane_max(best, row + g * n, n);
            for (int i = 0; i < n; i++) acc[i] += pr[o] * best[i];
        }
    }

    /* hand freed heap pages back to the system (glibc keeps them resident otherwise) */
    #if defined(__GLIBC__)
    #include <malloc.h>
    static void kocka_release_free_memory(void) { malloc_trim(0); }
    #else
    static void kocka_release_free_memory(void) {}
    #endif
    """
    void kocka_release_free_memory() noexcept nogil
    void kocka_keep_stage_lanes(const double* top, double* K, double* proper, const int* child,
                                int B) noexcept nogil
    void kocka_max_of(double* dst, const double* a, const double* b, int n) noexcept nogil
    void kocka_box_fills_lanes(double* G0, double* G1, const double* x0, const double* x1,
                               const signed char* eg, const double* vg, int vg_stride,
                               int stride, int n, int single) noexcept nogil
    void kocka_best_group_mean(const double* V, const double* pr, int stride, int n, int ng,
                               double* best, double* acc) noexcept nogil

LATTICE_SIZES = {"N_OUT": N_OUT, "N_KEEP": N_KEEP, "N_SMALL": N_SMALL, "N_FOUR": N_FOUR}
"""The keep lattice's sizes (keep_lattice.pxd) for the Python side (``card_model``)."""

cdef enum:
    MAX_THROWS = 3   # throws of a scorecard turn
    ENTRY_CAP = 4096  # (next state, points) pairs of one turn, at most 2 * 252 per box group


# ------------------------------------------------------------------------------------------
# Keeps
# ------------------------------------------------------------------------------------------
cdef struct Lattice:
    const int* child      # (N_SMALL, 6): keep + one die of face f


cdef int _lattice(const int[:, ::1] child, Lattice* lat) except -1:
    if child.shape[0] != N_SMALL or child.shape[1] != 6:
        raise ValueError(f"the keep lattice must be ({N_SMALL}, 6), got {tuple(child.shape)!r}")
    lat.child = &child[0, 0]
    return 0


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


# ------------------------------------------------------------------------------------------
# The problem: states, fills and their successors (the Problem struct, _problem and the
# fills of one box group, shared with _simulate: scorecard_fill.pxd)
# ------------------------------------------------------------------------------------------
cdef inline void group_fills_arg(const Problem* P, int m, int c, int f, int bits, double* F0,
                                 double* F1, i64* A0, i64* A1, BoxSucc* bs) noexcept nogil:
    """:func:`group_fills` (same values) that also gives the box of each best fill (ties:
    the first box); :func:`fill_move` gives where it leads."""
    cdef int o, b
    cdef double x
    cdef double Q[N_OUT]
    cdef bint better
    cdef const double* r0
    cdef const double* r1
    cdef const signed char* idx
    cdef const double* V
    cdef bint two = P.n_ft == 2
    cdef int A[N_OUT]
    for o in range(N_OUT):
        F0[o] = -INFINITY
        F1[o] = -INFINITY
        A0[o] = -1
        A1[o] = -1
    for b in range(P.n_boxes):
        if not (bits >> b) & 1:
            continue
        box_succ(P, m, c, f, b, &bs[b])
        r0 = P.rew + (<i64> b * P.n_ft) * N_OUT
        r1 = r0 + (P.n_ft - 1) * N_OUT
        idx = succ_index(P, &bs[b], b, f)
        V = bs[b].V
        if idx == NULL:
            for o in range(N_OUT):
                Q[o] = V[0]
        else:
            for o in range(N_OUT):
                Q[o] = V[idx[o]]
        # branch-free selects of equal width (the compiler turns them into blends)
        for o in range(N_OUT):
            x = r0[o] + Q[o]
            better = x > F0[o]
            F0[o] = x if better else F0[o]
            A0[o] = b if better else A0[o]
        if two:
            for o in range(N_OUT):
                x = r1[o] + Q[o]
                better = x > F1[o]
                F1[o] = x if better else F1[o]
                A1[o] = b if better else A1[o]
    if P.ctx_of[2 * m + f] != 0:
        for o in range(N_OUT):
            A[o] = <int> A0[o]
        fix_specials(P, m, f, bits, F0, F1, A, NULL, bs)
        for o in range(N_OUT):
            A0[o] = A[o]
        if two:
            for o in range(N_OUT):
                A[o] = <int> A1[o]
            fix_specials(P, m, f, bits, F0, F1, NULL, A, bs)
            for o in range(N_OUT):
                A1[o] = A[o]
    if not two:
        for o in range(N_OUT):
            F1[o] = F0[o]
            A1[o] = A0[o]


# ------------------------------------------------------------------------------------------
# Backward solve
# ------------------------------------------------------------------------------------------
def solve_masks(
    const int[::1] masks, i64 first_state, double[::1] out, const double[::1] W,
    const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, ::1] rew, const int[::1] special, const double[:, :, :, ::1] srew,
    const i64[::1] tstart, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
    const signed char[:, ::1] egrp, const signed char[:, :, ::1] fnext,
    int n_upper, const double[::1] probs, const int[:, ::1] child,
):
    """Expected future score of every state of ``masks`` (all in one layer), written to
    ``out[state - first_state]``; successors are read from ``W``. Releases the GIL.

    Parameters
    ----------
    masks : (M,) int32, masks whose states are contiguous from ``first_state``
    out : (S,) float64, the values of those states
    W : (N,) float64, values of all states (later layers must be filled)
    rew : (n_boxes, n_ft, 252) float64, points of a fill
    special, srew : (n_special,) int32 outcomes and (n_ctx, n_boxes, n_ft, n_special) their
        points per reward context (-inf: not allowed); -1 pads an empty list
    tstart, uprank, tnext, toff, egrp : the tracker rows (``ScorecardModel`` of solvers/scorecard/values.py)
    fnext : (n_boxes, 2, 252) int8, flag after a fill of the flag box
    child : (210, 6) int32, the keep lattice (``card_model.keep_lattice``, keep_lattice.pxd)
    """
    cdef Problem P = _problem(W, base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rew, special, srew,
                              tstart, uprank, tnext, toff, egrp, fnext, n_upper)
    cdef Lattice lat
    _lattice(child, &lat)
    cdef const double* pr = &probs[0]
    cdef double* buf = <double*> malloc(sizeof(double) * (6 * N_OUT + 2 * N_KEEP + 2))
    cdef BoxSucc* bs = <BoxSucc*> malloc(sizeof(BoxSucc) * MAX_BOXES)
    if buf == NULL or bs == NULL:
        free(buf)
        free(bs)
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
                        group_fills(&P, m, c, f, P.grp_bits[g], F0, F1, bs)
                        turn_from_fills(F0, F1, V2, V1, K, Mx, proper, lat)
                        for o in range(N_OUT):
                            if V1[o] > best[o]:
                                best[o] = V1[o]
                    e = 0.0
                    for o in range(N_OUT):
                        e += pr[o] * best[o]
                    out[P.base[m] + <i64> c * P.nflag[m] + f - first_state] = e
    free(buf)
    free(bs)


# ------------------------------------------------------------------------------------------
# One turn of the optimal policy, forwards
# ------------------------------------------------------------------------------------------
# Scratch of turn_entries and the ranking (one per caller).
cdef struct Work:
    double F0[N_OUT]
    double F1[N_OUT]
    double V1[N_OUT]
    double V2[N_OUT]
    double best[N_OUT]
    double tmp[N_OUT]
    double proper2[N_OUT]
    double proper3[N_OUT]
    double P1[N_OUT]
    double P2[N_OUT]
    double PF0[N_OUT]
    double PF1[N_OUT]
    double K[N_KEEP + 1]
    double Mx[N_KEEP + 1]
    double KM[N_KEEP + 1]
    int Marg[N_KEEP + 1]
    i64 A0[N_OUT]
    i64 A1[N_OUT]
    int arg2[N_OUT]
    int arg3[N_OUT]
    int gbest[N_OUT]
    BoxSucc bs[MAX_BOXES]
    int sp_of[N_OUT]          # the special index of each outcome (-1: none)
    int rlo                   # every fill moves the score by rlo .. rlo + span - 1
    int span
    bint overflow             # a fill moved it by more (cannot happen: a bad table)
    double* acc               # (n_boxes * MAX_G, span) mass per (box, successor) cell and points
    int cell_id[MAX_BOXES * MAX_G]   # the number of each (box, successor) cell in use (-1: none)
    int cells[MAX_BOXES * MAX_G]     # the cells used, in order of first use
    int cell_lo[MAX_BOXES * MAX_G]   # points range used in each (numbered) cell
    int cell_hi[MAX_BOXES * MAX_G]
    i64 cell_succ[MAX_BOXES * MAX_G]
    i64 e_succ[ENTRY_CAP]     # the entries of one turn: next state, points, probability
    int e_rew[ENTRY_CAP]
    double e_p[ENTRY_CAP]


cdef Work* _new_work(const Problem* P) noexcept nogil:
    """Scratch for ``P`` with its points range (:func:`_set_span`); NULL when out of
    memory. Free it with :func:`_free_work`."""
    cdef Work* w = <Work*> malloc(sizeof(Work))
    cdef int k, o
    if w == NULL:
        return NULL
    for o in range(N_OUT):
        w.sp_of[o] = -1
    for k in range(P.n_special):
        w.sp_of[P.special[k]] = k
    for k in range(MAX_BOXES * MAX_G):
        w.cell_id[k] = -1
    w.overflow = False
    w.acc = NULL
    if not _set_span(w, P):
        free(w)
        return NULL
    return w


cdef void _free_work(Work* w) noexcept nogil:
    if w != NULL:
        free(w.acc)
        free(w)


cdef bint _set_span(Work* w, const Problem* P) noexcept nogil:
    """Size the points range of :func:`turn_entries` from the rewards and the tracker
    offsets; False when out of memory."""
    cdef double lo = 0.0, hi = 0.0, v
    cdef i64 i
    for i in range(<i64> P.n_boxes * P.n_ft * N_OUT):
        v = P.rew[i]
        if v > -INFINITY:
            lo = v if v < lo else lo
            hi = v if v > hi else hi
    for i in range(<i64> P.n_ctx * P.n_boxes * P.n_ft * P.sp_stride):
        v = P.srew[i]
        if v > -INFINITY:
            lo = v if v < lo else lo
            hi = v if v > hi else hi
    cdef double tlo = 0.0, thi = 0.0
    for i in range(P.n_rows * P.G):
        tlo = P.toff[i] if P.toff[i] < tlo else tlo
        thi = P.toff[i] if P.toff[i] > thi else thi
    w.rlo = <int> floor(lo + tlo) - 1
    w.span = <int> floor(hi + thi) + 2 - w.rlo
    free(w.acc)
    w.acc = <double*> calloc(<i64> P.n_boxes * MAX_G * w.span, sizeof(double))
    return w.acc != NULL


cdef int turn_entries(const Problem* P, Lattice lat, const double* probs, int m, int c, int f,
                      int root_stage, const double* root_mass, int root_group, Work* w,
                      double* box_mass) noexcept nogil:
    """Where one turn of the optimal policy leads from state (m, c, f): entries
    ``(w.e_succ, w.e_rew, w.e_p)`` = (next state, points, probability), one per distinct
    (next state, points); returns their number (``w`` must have its points range set,
    :func:`_set_span`). With
    ``box_mass`` not NULL, adds the probability that the turn ends in each box.

    ``root_stage`` 0: the turn starts. 1, 2 or 3: the turn is under way, ``root_mass``
    (252,) is the distribution of the dice after that throw and ``root_group`` the box
    group already committed to (-1: none yet). Ties: the first box; fill when it is at
    least as good as the best keep; the larger keep, then the first in keep order; the
    first group.
    """
    cdef int g0 = P.grp_ptr[m]
    cdef int ng = P.grp_ptr[m + 1] - g0
    cdef int g, o, ft, n = 0, nc = 0, b, k, fi, r, cell
    cdef int ctx = P.ctx_of[2 * m + f]
    cdef double p, rew
    cdef double* start
    cdef const double* first
    for o in range(N_OUT):
        w.gbest[o] = 0
    if root_stage == 0 or root_stage == 1:
        if root_group >= 0:
            for o in range(N_OUT):
                w.gbest[o] = root_group
        elif ng > 1:  # which group each first-throw outcome continues in
            for o in range(N_OUT):
                w.best[o] = -INFINITY
            for g in range(ng):
                group_fills(P, m, c, f, P.grp_bits[g0 + g], w.F0, w.F1, w.bs)
                turn_from_fills(w.F0, w.F1, w.V2, w.V1, w.K, w.Mx, w.tmp, lat)
                for o in range(N_OUT):
                    if w.V1[o] > w.best[o]:
                        w.best[o] = w.V1[o]
                        w.gbest[o] = g
    elif root_group >= 0:
        for o in range(N_OUT):
            w.gbest[o] = root_group
    for g in range(ng):
        for o in range(N_OUT):
            w.P1[o] = 0.0
            w.P2[o] = 0.0
            w.PF0[o] = 0.0
            w.PF1[o] = 0.0
        # the start of this group's turn: the first throw, or the root's position
        if root_stage <= 1:
            start = &w.P1[0]
        elif root_stage == 2:
            start = &w.P2[0]
        else:
            start = &w.PF0[0]
        first = probs if root_stage == 0 else root_mass
        p = 0.0
        for o in range(N_OUT):
            if w.gbest[o] == g:
                start[o] = first[o]
                p += first[o]
        if p == 0.0:
            continue
        group_fills_arg(P, m, c, f, P.grp_bits[g0 + g], w.F0, w.F1, w.A0, w.A1, w.bs)
        turn_keep_stages(w.F0, w.V2, w.K, w.K, w.Mx, w.Marg, w.proper3, w.arg3, w.proper2, w.arg2, lat.child)
        # after the first throw: fill from hand, or keep and throw again
        throw_step(w.P1, w.F1, w.proper2, w.arg2, w.PF1, w.P2, w.KM, lat)
        # after the second throw: fill, or keep, throw the third time and fill
        throw_step(w.P2, w.F0, w.proper3, w.arg3, w.PF0, w.PF0, w.KM, lat)
        # the fills, gathered by (box, successor) cell and points
        for ft in range(2):
            for o in range(N_OUT):
                p = w.PF1[o] if ft else w.PF0[o]
                if p == 0.0:
                    continue
                b = <int> (w.A1[o] if ft else w.A0[o])
                if box_mass != NULL:
                    box_mass[b] += p
                k = succ_of(P, &w.bs[b], b, f, o)
                fi = (P.n_ft - 1) if ft else 0
                if ctx != 0 and w.sp_of[o] >= 0:
                    rew = special_reward(P, ctx, b, fi, w.sp_of[o])
                else:
                    rew = P.rew[(<i64> b * P.n_ft + fi) * N_OUT + o]
                rew = rew + w.bs[b].T[k]  # an integer: points and offsets are
                r = <int> (rew + 0.5 if rew >= 0 else rew - 0.5) - w.rlo
                if r < 0 or r >= w.span:
                    w.overflow = True
                    continue
                cell = w.cell_id[b * MAX_G + k]
                if cell < 0:  # cells are numbered in order of first use (a compact buffer)
                    cell = w.cell_id[b * MAX_G + k] = nc
                    w.cells[nc] = b * MAX_G + k
                    nc += 1
                    w.cell_succ[cell] = w.bs[b].S[k]
                    w.cell_lo[cell] = r
                    w.cell_hi[cell] = r
                elif r < w.cell_lo[cell]:
                    w.cell_lo[cell] = r
                elif r > w.cell_hi[cell]:
                    w.cell_hi[cell] = r
                w.acc[<i64> cell * w.span + r] += p
    for cell in range(nc):
        for r in range(w.cell_lo[cell], w.cell_hi[cell] + 1):
            p = w.acc[<i64> cell * w.span + r]
            if p != 0.0:
                w.e_succ[n] = w.cell_succ[cell]
                w.e_rew[n] = r + w.rlo
                w.e_p[n] = p
                n += 1
                w.acc[<i64> cell * w.span + r] = 0.0
        w.cell_id[w.cells[cell]] = -1
    return n


# ----------------------------------------------------------------------------------------
# The forward pass of the score distribution
# ----------------------------------------------------------------------------------------
# A layer's histograms of the score so far live in one *store*: state k's histogram is
# P(score lo[k] + i) = data[off[k] + i] for 0 <= i < hi[k] - lo[k], exactly its support
# (lo >= hi: no mass), laid out in the order the next step reads the states. The store is
# a block of memory, or a file read through a mapping whose pages are let go of as the
# reading passes them (the page cache keeps them; this process holds a window of them).
cdef extern from *:
    """
    #include <errno.h>
    #include <stdint.h>
    #include <sys/mman.h>
    #include <unistd.h>
    /* write n bytes at byte offset at, retrying short writes: 0, or the errno */
    static int kocka_pwrite_all(int fd, const void *buf, size_t n, long long at) {
        const char *p = (const char *) buf;
        while (n > 0) {
            ssize_t k = pwrite(fd, p, n, (off_t) at);
            if (k < 0) {
                if (errno == EINTR) continue;
                return errno ? errno : EIO;
            }
            p += k; n -= (size_t) k; at += k;
        }
        return 0;
    }
    /* read n bytes at byte offset at (the file holds them): 0, or the errno */
    static int kocka_pread_all(int fd, void *buf, size_t n, long long at) {
        char *p = (char *) buf;
        while (n > 0) {
            ssize_t k = pread(fd, p, n, (off_t) at);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) return k < 0 && errno ? errno : EIO;
            p += k; n -= (size_t) k; at += k;
        }
        return 0;
    }
    static int kocka_truncate(int fd) { return ftruncate(fd, 0) == 0 ? 0 : (errno ? errno : EIO); }
    /* the first n bytes of file fd, read-only (NULL: failed); random: a fault maps only its
       own page (no fault-around), as the pass reads few, scattered histograms of a store */
    static const void *kocka_map(int fd, long long n, int random) {
        void *m = mmap(NULL, (size_t) n, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) return NULL;
        if (random) madvise(m, (size_t) n, MADV_RANDOM);
        return m;
    }
    static void kocka_unmap(const void *m, long long n) {
        if (m != NULL && n > 0) munmap((void *) m, (size_t) n);
    }
    /* let go of the whole pages of the mapped bytes [m + a, m + b) (to_end: and of the page
       b ends in): a read of them later maps them again from the page cache (MAP_SHARED), so
       this frees memory and changes no value */
    static void kocka_drop_pages(const void *m, long long a, long long b, int to_end) {
        uintptr_t page = (uintptr_t) sysconf(_SC_PAGESIZE);
        uintptr_t lo = ((uintptr_t) m + (uintptr_t) a + page - 1) / page * page;
        uintptr_t hi = ((uintptr_t) m + (uintptr_t) b + (to_end ? page - 1 : 0)) / page * page;
        if (m != NULL && hi > lo) madvise((void *) lo, hi - lo, MADV_DONTNEED);
    }
    """
    int kocka_pwrite_all(int fd, const void* buf, size_t n, long long at) noexcept nogil
    int kocka_pread_all(int fd, void* buf, size_t n, long long at) noexcept nogil
    int kocka_truncate(int fd) noexcept nogil
    const void* kocka_map(int fd, long long n, int random) noexcept nogil
    void kocka_unmap(const void* m, long long n) noexcept nogil
    void kocka_drop_pages(const void* m, long long a, long long b, int to_end) noexcept nogil


cdef enum:
    CANCEL_POLL_STATES = 64   # forward_distribution reads its cancel flag once per this many states
    DROP_WINDOW = 262144      # a mapped file's pages are let go of once the reading is 256 KB past them
    ENTRY_BUFFER = 8192       # entries (192 KB) buffered before they are written to their file
    BUCKET_BUFFER = 128       # entries of one group buffered before they are written to its bucket
    FORWARD_OK = 0
    FORWARD_NO_MEMORY = 1
    FORWARD_CANCELLED = 2
    FORWARD_IO = 3


cdef extern from *:
    """
    /* The cancel flag of forward_distribution is written by another thread: read it
       with an atomic load so the compiler never keeps it in a register across the loop. */
    static inline int kocka_flag_is_set(const int* flag) {
        return flag != NULL && __atomic_load_n(flag, __ATOMIC_RELAXED) != 0;
    }
    """
    bint kocka_flag_is_set(const int* flag) noexcept nogil


class ForwardCancelled(RuntimeError):
    """:func:`forward_distribution` stopped because its cancel flag was set (everything
    it held is freed)."""


cdef struct Layer:
    i64 count         # states of the layer
    int* lo           # per state: its support lo <= x < hi (lo >= hi: no mass)
    int* hi
    i64* off          # where its histogram starts in the store
    i64 size          # doubles in the store
    double* mem       # the store in memory, or NULL: in file fd
    const double* map # the file's mapping while the layer is read
    int fd


cdef bint _new_layer(Layer* y, i64 count) noexcept nogil:
    """An empty layer of ``count`` states (no mass anywhere); False when out of memory."""
    cdef i64 t
    memset(y, 0, sizeof(Layer))
    y.count = count
    y.fd = -1
    y.lo = <int*> malloc(sizeof(int) * max(count, 1))
    y.hi = <int*> malloc(sizeof(int) * max(count, 1))
    y.off = <i64*> malloc(sizeof(i64) * max(count, 1))
    if y.lo == NULL or y.hi == NULL or y.off == NULL:
        return False
    for t in range(count):
        y.lo[t] = 2147483647
        y.hi[t] = -2147483647
    return True


cdef void _free_layer(Layer* y) noexcept nogil:
    free(y.lo)
    free(y.hi)
    free(y.off)
    free(y.mem)
    kocka_unmap(y.map, sizeof(double) * y.size)
    memset(y, 0, sizeof(Layer))


cdef const double* _layer_data(Layer* y) noexcept nogil:
    """The layer's store to read (its file mapped at the first call); NULL when that fails."""
    if y.mem != NULL or y.size == 0:
        return y.mem
    if y.map == NULL:
        y.map = <const double*> kocka_map(y.fd, sizeof(double) * y.size, 1)
    return y.map


cdef struct Entry:     # one turn entry: source state, target state (of the next layer), points, probability
    int src
    int target
    int rew
    double p


cdef struct Entries:   # a list of entries, in memory or written to a file
    i64 n
    Entry* buf         # in memory: all of them; with a file: those not written yet
    i64 cap, written
    int fd             # the file (-1: none)
    int io_errno


cdef bint _grow(void** a, i64 cap, size_t item) noexcept nogil:
    cdef void* q = realloc(a[0], cap * item)
    if q == NULL:
        return False
    a[0] = q
    return True


cdef int _flush_entries(Entries* e) noexcept nogil:
    if e.fd >= 0 and e.n > e.written:
        e.io_errno = kocka_pwrite_all(e.fd, e.buf, sizeof(Entry) * (e.n - e.written),
                                      <long long> sizeof(Entry) * e.written)
        if e.io_errno != 0:
            return FORWARD_IO
        e.written = e.n
    return FORWARD_OK


cdef int _add_entries(Entries* e, i64 src, const Work* w, int ne) noexcept nogil:
    """Append one source state's turn entries (written out a buffer at a time with a file)."""
    cdef int j
    cdef i64 cap, at
    if e.n - e.written + ne > e.cap:
        if _flush_entries(e) != FORWARD_OK:
            return FORWARD_IO
        if e.n - e.written + ne > e.cap:
            cap = max(2 * e.cap, e.n - e.written + ne + 4096) if e.fd < 0 else max(<i64> ENTRY_BUFFER, ne)
            if not _grow(<void**> &e.buf, cap, sizeof(Entry)):
                return FORWARD_NO_MEMORY
            e.cap = cap
    at = e.n - e.written
    for j in range(ne):
        e.buf[at + j].src = <int> src
        e.buf[at + j].target = <int> w.e_succ[j]
        e.buf[at + j].rew = w.e_rew[j]
        e.buf[at + j].p = w.e_p[j]
    e.n += ne
    return FORWARD_OK


cdef int _clear_entries(Entries* e) noexcept nogil:
    """Empty, for the next layer (its file truncated)."""
    if e.fd >= 0 and e.written > 0:
        e.io_errno = kocka_truncate(e.fd)
    e.n = e.written = 0
    return FORWARD_IO if e.io_errno != 0 else FORWARD_OK


cdef const Entry* _read_entries(Entries* e, i64 at, i64 count, Entry* chunk) noexcept nogil:
    """Entries ``[at, at + count)``: in memory, or read from the file into ``chunk`` (room
    for ``count``); NULL when the read fails."""
    if e.fd < 0:
        return e.buf + at
    e.io_errno = kocka_pread_all(e.fd, chunk, sizeof(Entry) * count, <long long> sizeof(Entry) * at)
    return chunk if e.io_errno == 0 else NULL


cdef void _free_entries(Entries* e) noexcept nogil:
    free(e.buf)


cdef int _layer_entries(const Problem* P, Lattice lat, const double* probs, const int* masks,
                        const i64* layer_ptr, int L, int L0, i64 src_start, i64 dst_start,
                        int root_stage, const double* root_mass, int root_group, Work* w,
                        Layer* cur, Layer* nxt, Entries* e, const int* flag, int* since_poll) noexcept nogil:
    """The turn entries of every state of layer ``L`` with mass, sources in the pass's
    order (masks decreasing: the colex order of their complements, as the pass has always
    read them), and the support of every state of the next layer they reach."""
    cdef i64 i, s, t
    cdef int m, c, f, j, ne
    for i in range(layer_ptr[L + 1] - 1, layer_ptr[L] - 1, -1):
        m = masks[i]
        for c in range(P.ncls[m]):
            for f in range(P.nflag[m]):
                s = P.base[m] + <i64> c * P.nflag[m] + f - src_start
                if cur.hi[s] <= cur.lo[s]:
                    continue
                since_poll[0] += 1
                if since_poll[0] >= CANCEL_POLL_STATES:
                    since_poll[0] = 0
                    if kocka_flag_is_set(flag):
                        return FORWARD_CANCELLED
                ne = turn_entries(P, lat, probs, m, c, f, root_stage if L == L0 else 0, root_mass,
                                  root_group if L == L0 else -1, w, NULL)
                for j in range(ne):
                    w.e_succ[j] -= dst_start
                    t = w.e_succ[j]
                    nxt.lo[t] = min(nxt.lo[t], cur.lo[s] + w.e_rew[j])
                    nxt.hi[t] = max(nxt.hi[t], cur.hi[s] + w.e_rew[j])
                j = _add_entries(e, s, w, ne)
                if j != FORWARD_OK:
                    return j
    return FORWARD_OK


cdef i64 _layout(const Problem* P, const int* masks, const i64* layer_ptr, int L, i64 start,
                 Layer* y, i64 group_size, int* group_of, i64* group_end) noexcept nogil:
    """Lay layer ``L``'s histograms out in the order the next step reads them (masks
    decreasing), cut into groups of about ``group_size`` doubles (``group_of``: each
    state's group, NULL: one group; ``group_end``: the store offset where each ends);
    returns the number of groups."""
    cdef i64 i, t, g0 = 0, groups = 0, width
    cdef int m, c, f
    y.size = 0
    for i in range(layer_ptr[L + 1] - 1, layer_ptr[L] - 1, -1):
        m = masks[i]
        for c in range(P.ncls[m]):
            for f in range(P.nflag[m]):
                t = P.base[m] + <i64> c * P.nflag[m] + f - start
                width = y.hi[t] - y.lo[t] if y.hi[t] > y.lo[t] else 0
                if group_of != NULL and width and y.size > g0 and y.size + width - g0 > group_size:
                    group_end[groups] = y.size
                    groups += 1
                    g0 = y.size
                y.off[t] = y.size
                if group_of != NULL:
                    group_of[t] = <int> groups
                y.size += width
    group_end[groups] = y.size
    return groups + 1


cdef int _bucket_entries(Entries* e, Entry* chunk, const int* group_of, i64 groups, i64* bucket_start,
                         Entries* buckets) noexcept nogil:
    """Sort the entries (written out) by the group of their target into ``buckets`` (a
    file), keeping their order within each group (a counting sort: ``bucket_start[g]`` is
    where group g's entries begin); ``chunk``: room for :data:`ENTRY_BUFFER` entries."""
    cdef i64 k, g, at, count
    cdef int sweep
    cdef const Entry* ents
    cdef i64* fill = <i64*> calloc(groups, sizeof(i64))
    cdef Entry* buf = <Entry*> malloc(sizeof(Entry) * BUCKET_BUFFER * groups)
    cdef int err = FORWARD_OK
    if fill == NULL or buf == NULL:
        free(fill)
        free(buf)
        return FORWARD_NO_MEMORY
    for g in range(groups + 1):
        bucket_start[g] = 0
    for sweep in range(2):  # count each group's entries, then write them where the counts say
        at = 0
        while err == FORWARD_OK and at < e.n:
            count = min(<i64> ENTRY_BUFFER, e.n - at)
            ents = _read_entries(e, at, count, chunk)
            if ents == NULL:
                err = FORWARD_IO
                break
            for k in range(count):
                g = group_of[ents[k].target]
                if sweep == 0:
                    bucket_start[g + 1] += 1
                    continue
                buf[g * BUCKET_BUFFER + fill[g]] = ents[k]
                fill[g] += 1
                if fill[g] == BUCKET_BUFFER:
                    buckets.io_errno = kocka_pwrite_all(buckets.fd, &buf[g * BUCKET_BUFFER],
                                                        sizeof(Entry) * BUCKET_BUFFER,
                                                        <long long> sizeof(Entry) * bucket_start[g])
                    bucket_start[g] += BUCKET_BUFFER
                    fill[g] = 0
                    if buckets.io_errno != 0:
                        err = FORWARD_IO
                        break
            at += count
        if sweep == 0:
            for g in range(groups):
                bucket_start[g + 1] += bucket_start[g]
    for g in range(groups):
        if err == FORWARD_OK and fill[g] > 0:
            buckets.io_errno = kocka_pwrite_all(buckets.fd, &buf[g * BUCKET_BUFFER], sizeof(Entry) * fill[g],
                                                <long long> sizeof(Entry) * bucket_start[g])
            if buckets.io_errno != 0:
                err = FORWARD_IO
        bucket_start[g] += fill[g]
    # bucket_start[g] now ends group g: shift it back to where the group begins
    for g in range(groups, 0, -1):
        bucket_start[g] = bucket_start[g - 1]
    bucket_start[0] = 0
    buckets.n = buckets.written = e.n
    free(fill)
    free(buf)
    return err


cdef int _fill_group(Layer* cur, const double* src_data, Layer* nxt, Entries* e, i64 start, i64 count,
                     Entry* chunk, i64 g0, double* arena, const int* flag) noexcept nogil:
    """Add the mass of the entries ``[start, start + count)`` of ``e`` (one group's, in the
    pass's order; read into ``chunk`` from a file) into ``arena`` (the group's histograms,
    from store offset ``g0``, zeroed): each target gets its sources' shifted histograms in
    the same order as in one pass over the layer, so its values are the same bits however
    the layer is cut."""
    cdef i64 k, s, t, at, n, dropped = 0
    cdef const Entry* ents
    at = start
    while at < start + count:
        n = min(<i64> ENTRY_BUFFER, start + count - at)
        ents = _read_entries(e, at, n, chunk)
        if ents == NULL:
            return FORWARD_IO
        for k in range(n):
            s = ents[k].src
            t = ents[k].target
            kocka_axpy(arena + (nxt.off[t] - g0) + (cur.lo[s] + ents[k].rew - nxt.lo[t]), src_data + cur.off[s],
                       ents[k].p, cur.hi[s] - cur.lo[s])
            if cur.map != NULL and cur.off[s] - dropped >= DROP_WINDOW // sizeof(double):
                kocka_drop_pages(cur.map, sizeof(double) * dropped, sizeof(double) * cur.off[s], 0)
                dropped = cur.off[s]
        at += n
        if kocka_flag_is_set(flag):  # once per chunk of entries
            return FORWARD_CANCELLED
    if cur.map != NULL:
        kocka_drop_pages(cur.map, 0, sizeof(double) * cur.size, 1)
    return FORWARD_OK


def forward_distribution(
    const int[::1] masks, const i64[::1] layer_ptr, i64 start_state, int start_mask, int start_score,
    int root_stage, const double[::1] root_mass, int root_group,
    const double[::1] W, const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, ::1] rew, const int[::1] special, const double[:, :, :, ::1] srew,
    const i64[::1] tstart, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
    const signed char[:, ::1] egrp, const signed char[:, :, ::1] fnext,
    int n_upper, const double[::1] probs, const int[:, ::1] child,
    int[::1] cancel=None, spill=None, i64 group_doubles=32768,
):
    """Distribution of the final score under the optimal policy, from one state: returns
    ``(lowest score, probabilities)``. Releases the GIL.

    ``cancel``: a one-element int32 array another thread may set nonzero to stop the pass
    (read every :data:`CANCEL_POLL_STATES` states, before the first one too); a stopped
    pass frees what it holds and raises :class:`ForwardCancelled`.

    The score so far of every state reached is pushed turn by turn (layer by layer) to the
    full card. For each layer the turn entries of its states (:func:`turn_entries`) are
    listed first, in the order the pass reads its states; they give the exact support of
    every histogram of the next layer. ``spill`` None: the next layer is then filled in
    memory, whole, by one pass over the entries. ``spill``: four file descriptors open for
    reading and writing (empty temporary files): the entries go to the third, sorted by
    the group of their target (groups of about ``group_doubles`` doubles of the next
    layer) into the fourth, and each group is filled by a pass over its own entries and
    written to the first or second file, from which the next step reads it through a
    mapping; the pass then holds one group and windows of pages. Each histogram gets the
    same additions in the same order either way, so the answer is the same bits.

    Parameters
    ----------
    masks, layer_ptr : the reachable masks in layer order, ``masks[layer_ptr[k]:layer_ptr[k+1]]``
        having k boxes filled
    start_state, start_mask, start_score : the state to start from, its mask, and its score
        so far (points written plus the tracker offset)
    root_stage, root_mass, root_group : the start state's turn under way (see
        :func:`turn_entries`); ``root_stage`` 0 starts a turn
    the rest : as :func:`solve_masks`
    """
    cdef Problem P = _problem(W, base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rew, special, srew,
                              tstart, uprank, tnext, toff, egrp, fnext, n_upper)
    cdef Lattice lat
    _lattice(child, &lat)
    cdef int n = P.n_boxes
    cdef i64 n_states = W.shape[0]
    cdef const int* flag = NULL
    cdef int since_poll = 0
    cdef int fds[4]
    fds[0] = fds[1] = fds[2] = fds[3] = -1
    if cancel is not None:
        if cancel.shape[0] != 1:
            raise ValueError("cancel must be a one-element int32 array")
        flag = &cancel[0]
        if kocka_flag_is_set(flag):
            raise ForwardCancelled("the forward distribution was cancelled before it started")
    if spill is not None:
        fds[0], fds[1], fds[2], fds[3] = spill
    if layer_ptr.shape[0] != n + 2 or root_mass.shape[0] != N_OUT:
        raise ValueError(f"layer_ptr must have {n + 2} entries and root_mass 252")
    if group_doubles < 1:
        raise ValueError("group_doubles must be positive")
    kocka_release_free_memory()  # what the values pass freed, before the histograms come
    cdef bint spilling = fds[0] >= 0
    cdef i64* lstart = <i64*> malloc(sizeof(i64) * (n + 2))
    cdef Work* w = _new_work(&P)
    cdef Layer cur, nxt
    cdef Entries e, buckets
    cdef int L, L0 = popcount(<unsigned int> start_mask)
    cdef int err = FORWARD_OK
    cdef i64 t, g, g0, groups = 1, largest
    cdef i64* group_end = NULL
    cdef i64* bucket_start = NULL
    cdef int* group_of = NULL
    cdef double* arena = NULL
    cdef const double* src_data
    cdef Entry* chunk = NULL
    memset(&e, 0, sizeof(Entries))
    memset(&buckets, 0, sizeof(Entries))
    memset(&cur, 0, sizeof(Layer))
    memset(&nxt, 0, sizeof(Layer))
    e.fd = fds[2]
    buckets.fd = fds[3]
    if lstart == NULL or w == NULL:
        free(lstart)
        _free_work(w)
        raise MemoryError()
    for L in range(n + 2):
        lstart[L] = base[masks[layer_ptr[L]]] if layer_ptr[L] < masks.shape[0] else n_states
    if not _new_layer(&cur, lstart[L0 + 1] - lstart[L0]):
        err = FORWARD_NO_MEMORY
    else:  # the start: its score so far, for sure
        cur.mem = <double*> malloc(sizeof(double))
        if cur.mem == NULL:
            err = FORWARD_NO_MEMORY
        else:
            t = start_state - lstart[L0]
            cur.mem[0] = 1.0
            cur.size = 1
            cur.lo[t] = start_score
            cur.hi[t] = start_score + 1
            cur.off[t] = 0
    with nogil:
        L = L0
        while err == FORWARD_OK and L < n:
            err = _clear_entries(&e)
            if err == FORWARD_OK:
                err = _clear_entries(&buckets)
            if err != FORWARD_OK:
                break
            if not _new_layer(&nxt, lstart[L + 2] - lstart[L + 1]):
                err = FORWARD_NO_MEMORY
                break
            err = _layer_entries(&P, lat, &probs[0], &masks[0], &layer_ptr[0], L, L0, lstart[L], lstart[L + 1],
                                 root_stage, &root_mass[0], root_group, w, &cur, &nxt, &e, flag, &since_poll)
            if err != FORWARD_OK:
                break
            free(group_end)
            free(group_of)
            group_end = <i64*> malloc(sizeof(i64) * (nxt.count + 1))
            group_of = <int*> malloc(sizeof(int) * max(nxt.count, 1)) if spilling else NULL
            if group_end == NULL or (spilling and group_of == NULL):
                err = FORWARD_NO_MEMORY
                break
            groups = _layout(&P, &masks[0], &layer_ptr[0], L + 1, lstart[L + 1], &nxt, group_doubles,
                             group_of, group_end)
            src_data = _layer_data(&cur)
            if (src_data == NULL and cur.size > 0) or _flush_entries(&e) != FORWARD_OK:
                err = FORWARD_IO
                break
            free(bucket_start)
            bucket_start = <i64*> malloc(sizeof(i64) * (groups + 1))
            if bucket_start == NULL:
                err = FORWARD_NO_MEMORY
                break
            if spilling:
                if chunk == NULL:
                    chunk = <Entry*> malloc(sizeof(Entry) * ENTRY_BUFFER)
                    if chunk == NULL:
                        err = FORWARD_NO_MEMORY
                        break
                err = _bucket_entries(&e, chunk, group_of, groups, bucket_start, &buckets)
                if err == FORWARD_OK:
                    err = _clear_entries(&e)
                if err != FORWARD_OK:
                    break
                nxt.fd = fds[(L - L0) % 2]
                err = FORWARD_IO if kocka_truncate(nxt.fd) != 0 else FORWARD_OK  # it held the layer before cur
                if err != FORWARD_OK:
                    break
            else:
                bucket_start[0] = 0
                bucket_start[1] = e.n
            largest = 0
            for g in range(groups):
                largest = max(largest, group_end[g] - (group_end[g - 1] if g > 0 else 0))
            free(arena)
            arena = <double*> malloc(sizeof(double) * max(largest, 1))
            if arena == NULL:
                err = FORWARD_NO_MEMORY
                break
            for g in range(groups):
                g0 = group_end[g - 1] if g > 0 else 0
                memset(arena, 0, sizeof(double) * (group_end[g] - g0))
                err = _fill_group(&cur, src_data, &nxt, &buckets if spilling else &e, bucket_start[g],
                                  bucket_start[g + 1] - bucket_start[g], chunk, g0, arena, flag)
                if err != FORWARD_OK:
                    break
                if spilling:
                    buckets.io_errno = kocka_pwrite_all(nxt.fd, arena, sizeof(double) * (group_end[g] - g0),
                                                        <long long> sizeof(double) * g0)
                    if buckets.io_errno != 0:
                        err = FORWARD_IO
                        break
                else:  # one group: the arena is the store
                    nxt.mem = arena
                    arena = NULL
            _free_layer(&cur)
            cur = nxt
            memset(&nxt, 0, sizeof(Layer))
            L += 1
        free(arena)
        free(chunk)
        free(group_end)
        free(group_of)
        free(bucket_start)
        _free_entries(&e)
        _free_entries(&buckets)
        kocka_release_free_memory()  # the entries' and groups' pages go back to the system
    if err != FORWARD_OK:
        _free_layer(&cur)
        _free_layer(&nxt)
        free(lstart)
        _free_work(w)
        if err == FORWARD_CANCELLED:
            raise ForwardCancelled("the forward distribution was cancelled")
        if err == FORWARD_IO:
            code = max(e.io_errno, buckets.io_errno)
            what = "the score distribution's spill files could not be written or mapped"
            raise OSError(code, what) if code else OSError(what)
        raise MemoryError("out of memory while propagating the score distribution")
    if w.overflow:
        _free_layer(&cur)
        free(lstart)
        _free_work(w)
        raise ValueError("a fill's points fall outside the range of the table's rewards (a damaged table?)")
    # the full card: add up its states
    cdef int lo = 2147483647, hi = -2147483647, x
    for t in range(cur.count):
        if cur.hi[t] > cur.lo[t]:
            lo = min(lo, cur.lo[t])
            hi = max(hi, cur.hi[t])
    result = np.zeros(max(hi - lo, 0))
    cdef double[::1] rv = result
    src_data = _layer_data(&cur)
    if src_data == NULL and cur.size > 0:
        _free_layer(&cur)
        free(lstart)
        _free_work(w)
        raise OSError("the score distribution's last spill file could not be mapped")
    for t in range(cur.count):
        if cur.hi[t] > cur.lo[t]:
            for x in range(cur.lo[t], cur.hi[t]):
                rv[x - lo] += src_data[cur.off[t] + x - cur.lo[t]]
    _free_layer(&cur)
    free(lstart)
    _free_work(w)
    return lo, result


def root_turn_entries(
    int m, int c, int f, int root_stage, const double[::1] root_mass, int root_group,
    const double[::1] W, const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, ::1] rew, const int[::1] special, const double[:, :, :, ::1] srew,
    const i64[::1] tstart, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
    const signed char[:, ::1] egrp, const signed char[:, :, ::1] fnext,
    int n_upper, const double[::1] probs, const int[:, ::1] child,
):
    """The first turn of :func:`forward_distribution` alone: where the optimal policy's
    turn from state (mask ``m``, tracker class ``c``, flag ``f``) leads, with the root of
    :func:`turn_entries` (``root_stage`` 0: the turn starts). Returns ``(successor states
    (int64), points (int32, the fill and the change of tracker offset), probabilities)``,
    one entry per distinct (successor, points); the same entries, ties broken the same way,
    as the pass pushes from its start state."""
    cdef Problem P = _problem(W, base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rew, special, srew,
                              tstart, uprank, tnext, toff, egrp, fnext, n_upper)
    cdef Lattice lat
    _lattice(child, &lat)
    if root_mass.shape[0] != N_OUT:
        raise ValueError("root_mass must have 252 entries")
    if not 0 <= root_stage <= MAX_THROWS:
        raise ValueError(f"no turn position at throw {root_stage!r}")
    if not 0 <= m < ncls.shape[0] or base[m] < 0 or not 0 <= c < ncls[m] or not 0 <= f < nflag[m]:
        raise ValueError(f"no state with mask {m:#x}, class {c}, flag {f} in this model")
    if not (root_group == -1 or 0 <= root_group < grp_ptr[m + 1] - grp_ptr[m]):
        raise ValueError(f"mask {m:#x} has no box group {root_group!r}")
    cdef Work* w = _new_work(&P)
    if w == NULL:
        raise MemoryError()
    cdef int ne, j
    with nogil:
        ne = turn_entries(&P, lat, &probs[0], m, c, f, root_stage, &root_mass[0], root_group, w, NULL)
    if w.overflow:
        _free_work(w)
        raise ValueError("a fill's points fall outside the range of the table's rewards (a damaged table?)")
    succ = np.empty(ne, dtype=np.int64)
    points = np.empty(ne, dtype=np.int32)
    mass = np.empty(ne, dtype=np.float64)
    cdef i64[::1] sv = succ
    cdef int[::1] rv = points
    cdef double[::1] pv = mass
    for j in range(ne):
        sv[j] = w.e_succ[j]
        rv[j] = w.e_rew[j]
        pv[j] = w.e_p[j]
    _free_work(w)
    return succ, points, mass


# ------------------------------------------------------------------------------------------
# Ranking the actions of one position
# ------------------------------------------------------------------------------------------
cdef class TurnTables:
    """The turn widget of one scorecard variant over a solved table: the value of every
    fill and keep of one position in one call (:meth:`rank`), many positions at once
    (:meth:`rank_positions`), a declaration's value (:meth:`group_value`) and where the
    turn ends (:meth:`turn_shares`).

    Holds references to the arrays it reads; the arguments are those of
    :func:`solve_masks` after ``W`` (which comes first here), plus ``keep_counts``
    (462, 6) int8, the face counts of every keep (the last 252 are the outcomes). The
    one-position methods keep the GIL (they share one scratch, and take microseconds);
    :meth:`rank_positions` releases it with scratch of its own.
    """

    cdef Problem P
    cdef Lattice lat
    cdef object refs
    cdef const double* probs
    cdef Work* w
    cdef int okeep_ptr[N_OUT + 1]   # the proper keeps of each outcome, larger first, then in
    cdef int* okeep                 # keep order (the tie order of rank)

    def __init__(
        self, const double[::1] W, const i64[::1] base, const int[::1] ncls, const signed char[::1] nflag,
        const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
        const double[:, :, ::1] rew, const int[::1] special, const double[:, :, :, ::1] srew,
        const i64[::1] tstart, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
        const signed char[:, ::1] egrp, const signed char[:, :, ::1] fnext,
        int n_upper, const double[::1] probs, const int[:, ::1] child, const signed char[:, ::1] keep_counts,
    ):
        cdef int size, k, j, o, n, total
        cdef int size_start[7]
        cdef bint inside
        if keep_counts.shape[0] != N_KEEP or keep_counts.shape[1] != 6 or probs.shape[0] != N_OUT:
            raise ValueError("keep_counts must be (462, 6) and probs (252,)")
        self.P = _problem(W, base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rew, special, srew,
                          tstart, uprank, tnext, toff, egrp, fnext, n_upper)
        _lattice(child, &self.lat)
        self.probs = &probs[0]
        # keeps are ordered by size: the first keep of each size 0..5
        for size in range(7):
            size_start[size] = N_KEEP
        for k in range(N_KEEP - 1, -1, -1):
            total = 0
            for j in range(6):
                total += keep_counts[k, j]
            if total > 5:
                raise ValueError(f"keep {k} holds {total} dice")
            size_start[total] = k
        self.okeep = <int*> malloc(sizeof(int) * N_OUT * 32)
        if self.okeep == NULL:
            raise MemoryError()
        n = 0
        for o in range(N_OUT):
            self.okeep_ptr[o] = n
            for size in range(4, -1, -1):
                for k in range(size_start[size], size_start[size + 1]):
                    inside = True
                    for j in range(6):
                        if keep_counts[k, j] > keep_counts[N_SMALL + o, j]:
                            inside = False
                    if inside:
                        self.okeep[n] = k
                        n += 1
        self.okeep_ptr[N_OUT] = n
        self.refs = (W, base, ncls, nflag, grp_ptr, grp_bits, ctx_of, rew, special, srew, tstart, uprank,
                     tnext, toff, egrp, fnext, probs, child, keep_counts)
        self.w = _new_work(&self.P)
        if self.w == NULL:
            raise MemoryError()

    def __dealloc__(self):
        _free_work(self.w)
        free(self.okeep)

    cdef int _values(self, Work* w, int m, int c, int f, int throw, int o, int bits, int* ids,
                     double* vals) noexcept nogil:
        """The fills of ``bits`` and the keeps of outcome ``o`` at ``throw`` with their values
        (order: fills by box, keeps larger first, then in keep order); their number. ``w``:
        scratch (``self.w`` while the GIL is held)."""
        cdef int n = 0, b, j, k, ft
        group_fills(&self.P, m, c, f, bits, w.F0, w.F1, w.bs)
        ft = (self.P.n_ft - 1) if throw == 1 else 0
        for b in range(self.P.n_boxes):
            if not (bits >> b) & 1:
                continue
            if not fill_value(&self.P, w.bs, m, f, b, ft, o, &vals[n]):
                continue
            ids[n] = b
            n += 1
        if throw < MAX_THROWS:
            keep_stage(w.F0, w.K, w.Mx, w.proper3, self.lat)      # keeps before the third throw
            if throw == 1:
                for k in range(N_OUT):
                    w.V2[k] = w.F0[k] if w.F0[k] > w.proper3[k] else w.proper3[k]
                keep_stage(w.V2, w.K, w.Mx, w.proper2, self.lat)  # keeps before the second
            for j in range(self.okeep_ptr[o], self.okeep_ptr[o + 1]):
                k = self.okeep[j]
                ids[n] = self.P.n_boxes + k
                vals[n] = w.K[k]
                n += 1
        return n

    def rank(self, int m, int c, int f, int throw, int o, int bits, double shift):
        """Every fill (of the boxes in ``bits``) and keep of the position (state (m, c, f),
        throw ``throw`` 1..3 made, showing outcome ``o``), best first, as ``(ids, values)``
        lists: id ``b < n_boxes`` writes box b, ``n_boxes + k`` keeps keep k. ``shift``
        (the points so far plus the tracker offset) is added to every value. Ties keep the
        order fills (by box), keeps (larger first, then in keep order)."""
        cdef int ids[MAX_BOXES + N_SMALL]
        cdef double vals[MAX_BOXES + N_SMALL]
        cdef int n, i, j, ti
        cdef double tv
        if not 1 <= throw <= MAX_THROWS or not 0 <= o < N_OUT:
            raise ValueError(f"throw must be 1..3 and the outcome 0..251, got {throw!r}, {o!r}")
        n = self._values(self.w, m, c, f, throw, o, bits, ids, vals)
        for i in range(1, n):  # stable insertion sort, best first
            tv = vals[i]
            ti = ids[i]
            j = i - 1
            while j >= 0 and vals[j] < tv:
                vals[j + 1] = vals[j]
                ids[j + 1] = ids[j]
                j -= 1
            vals[j + 1] = tv
            ids[j + 1] = ti
        return [ids[i] for i in range(n)], [vals[i] + shift for i in range(n)]

    def fill_points(self, int m, int f, int b, int first_throw, int o):
        """The points of writing outcome ``o`` into box ``b`` on a card with mask ``m`` and
        flag ``f`` (-inf: not allowed)."""
        return _fill_points(&self.P, m, f, b, (self.P.n_ft - 1) if first_throw else 0, o)

    def group_value(self, int m, int c, int f, int bits, int o):
        """Value of the turn played in the boxes ``bits`` after the first throw showed ``o``
        (a declaration's value, SK-3), without any shift."""
        cdef Work* w = self.w
        group_fills(&self.P, m, c, f, bits, w.F0, w.F1, w.bs)
        turn_from_fills(w.F0, w.F1, w.V2, w.V1, w.K, w.Mx, w.tmp, self.lat)
        return w.V1[o]

    def turn_shares(self, int m, int c, int f, int stage, int o, int keep, int group):
        """P(the turn ends in box b) for every box (a list), under the optimal policy from a
        turn under way: after throw ``stage`` (1..3) showing outcome ``o``, or (``keep`` >= 0)
        with keep ``keep`` set aside for throw ``stage + 1``; ``group``: the index of the
        box group the turn is committed to (-1: none yet)."""
        cdef Work* w = self.w
        cdef double mass[N_OUT]
        cdef double shares[MAX_BOXES]
        cdef int k, root
        if not 0 <= group < self.P.grp_ptr[m + 1] - self.P.grp_ptr[m] and group != -1:
            raise ValueError(f"mask {m:#x} has no box group {group!r}")
        for k in range(MAX_BOXES):
            shares[k] = 0.0
        if keep >= 0:
            for k in range(N_KEEP + 1):
                w.KM[k] = 0.0
            w.KM[keep] = 1.0
            roll_keeps(w.KM, self.lat)
            for k in range(N_OUT):
                mass[k] = w.KM[N_SMALL + k]
            root = stage + 1
        else:
            for k in range(N_OUT):
                mass[k] = 0.0
            mass[o] = 1.0
            root = stage
        if not 1 <= root <= MAX_THROWS:
            raise ValueError(f"no turn position at throw {root!r}")
        turn_entries(&self.P, self.lat, self.probs, m, c, f, root, mass, group, w, shares)
        return [shares[k] for k in range(self.P.n_boxes)]

    def rank_positions(self, const int[::1] m, const int[::1] c, const signed char[::1] f,
                       const signed char[::1] throw, const short[::1] o, const int[::1] bits,
                       const double[::1] shift, double[:, ::1] out):
        """:meth:`rank` for many positions: ``out[i, a]`` is the value of action id ``a`` at
        position i (NaN: not legal there), ``out`` (N, n_boxes + 210). Releases the GIL."""
        cdef int ids[MAX_BOXES + N_SMALL]
        cdef double vals[MAX_BOXES + N_SMALL]
        cdef Py_ssize_t i, a, N = m.shape[0]
        cdef int n, j
        if out.shape[0] != N or out.shape[1] != self.P.n_boxes + N_SMALL:
            raise ValueError(f"out must be ({N}, {self.P.n_boxes + N_SMALL})")
        cdef Work* w = _new_work(&self.P)  # its own scratch: other threads may rank meanwhile
        if w == NULL:
            raise MemoryError()
        with nogil:
            for i in range(N):
                for a in range(out.shape[1]):
                    out[i, a] = NAN
                n = self._values(w, m[i], c[i], f[i], throw[i], o[i], bits[i], ids, vals)
                for j in range(n):
                    out[i, ids[j]] = vals[j] + shift[i]
        _free_work(w)


# ------------------------------------------------------------------------------------------
# Throw budgets: turns whose unused throws carry over (Polish fences, PL-12)
# ------------------------------------------------------------------------------------------
cdef inline void budget_fills(const double* Wn, i64 next_first, int NFn, int Fp, int m, int c, int bits,
                              const i64* base, const double* rewards, int n_boxes,
                              const i64* tstart, const int* uprank, const int* tnext,
                              const double* toff, int G, const signed char* egrp, int n_upper,
                              double* G0, double* G1) noexcept nogil:
    """Best fill of each outcome among the boxes in ``bits`` when the turn ends holding
    ``Fp`` carried throws: ``G0`` after a later throw, ``G1`` from hand. ``Wn`` is the next
    layer's values, (states, NFn) row-major from state ``next_first``; ``rewards``
    (n_boxes, 2, N_OUT) with [b, 1] from hand."""
    cdef int o, b, g, n_open_upper
    cdef i64 b2, row
    cdef double v
    cdef double Vg[MAX_G]
    cdef const double* r0
    cdef const double* r1
    cdef const signed char* eg
    cdef int U = m & ((1 << n_upper) - 1)
    n_open_upper = n_upper - popcount(U)
    for o in range(N_OUT):
        G0[o] = -INFINITY
        G1[o] = -INFINITY
    for b in range(n_boxes):
        if not (bits >> b) & 1:
            continue
        b2 = base[m | (1 << b)] - next_first
        r0 = rewards + (<i64> b * 2) * N_OUT
        r1 = r0 + N_OUT
        if b < n_upper:
            row = (tstart[U] + <i64> c * n_open_upper + uprank[U * n_upper + b]) * G
            for g in range(G):
                Vg[g] = Wn[(b2 + tnext[row + g]) * NFn + Fp] + toff[row + g]
            eg = egrp + <i64> b * N_OUT
            for o in range(N_OUT):
                G0[o] = _max(G0[o], r0[o] + Vg[eg[o]])
                G1[o] = _max(G1[o], r1[o] + Vg[eg[o]])
        else:
            v = Wn[(b2 + c) * NFn + Fp]
            for o in range(N_OUT):
                G0[o] = _max(G0[o], r0[o] + v)
                G1[o] = _max(G1[o], r1[o] + v)


cdef enum:
    MAX_LANES = 64   # widgets solved side by side by solve_budget_masks, at most
    LANES = 64       # and the batch aimed at: the full Polish build on the 2-core machine took
                     # 152 s with 32, 130 s with 48, 120 s with 64 and 118 s with 128 lanes
                     # (scripts/bench_polish.py --jobs 2); 64 keep a thread's scratch in 0.8 MB


cdef void lane_fills(const double* Wn, i64 next_first, int NFn, int Fp, int m, int c0, int ncb,
                     const int* gbits, int ng, const i64* base, const double* rewards, int n_boxes,
                     const i64* tstart, const int* uprank, const int* tnext, const double* toff, int G,
                     const signed char* egrp, int n_upper, double* VG, double* G0, double* G1) noexcept nogil:
    """:func:`budget_fills` of ``ng * ncb`` widgets side by side: lane ``gi * ncb + ci`` is
    class ``c0 + ci`` played in box group ``gbits[gi]``; the fills are written as (N_OUT,
    lanes) arrays. The successor values of each (box, entry group, lane) are read once
    (``VG``, lanes innermost), then the fills of one box run along the lanes. Same
    arithmetic as budget_fills, so the same values."""
    cdef int U = m & ((1 << n_upper) - 1)
    cdef int n_open_upper = n_upper - popcount(U)
    cdef int nl = ng * ncb
    cdef int single = 1, gi, ci, l, b, g, o, lo
    cdef i64 b2, row
    cdef const double* r0
    for gi in range(ng):
        single = single and (gbits[gi] & (gbits[gi] - 1)) == 0
    for gi in range(ng):
        for b in range(n_boxes):
            if not (gbits[gi] >> b) & 1:
                continue
            b2 = base[m | (1 << b)] - next_first
            for ci in range(ncb):
                l = gi * ncb + ci
                if b < n_upper:
                    row = (tstart[U] + <i64> (c0 + ci) * n_open_upper + uprank[U * n_upper + b]) * G
                    for g in range(G):
                        VG[(<i64> b * MAX_G + g) * MAX_LANES + l] = Wn[(b2 + tnext[row + g]) * NFn + Fp] + toff[row + g]
                else:
                    VG[(<i64> b * MAX_G) * MAX_LANES + l] = Wn[(b2 + c0 + ci) * NFn + Fp]
    if not single:
        for o in range(N_OUT * nl):
            G0[o] = -INFINITY
            G1[o] = -INFINITY
    for gi in range(ng):
        lo = gi * ncb
        for b in range(n_boxes):
            if not (gbits[gi] >> b) & 1:
                continue
            r0 = rewards + (<i64> b * 2) * N_OUT
            # single: one box per group (the declaration, PL-15), its fill is the best
            kocka_box_fills_lanes(G0 + lo, G1 + lo, r0, r0 + N_OUT,
                                  egrp + <i64> b * N_OUT if b < n_upper else NULL,
                                  VG + (<i64> b * MAX_G) * MAX_LANES + lo, MAX_LANES, nl, ncb, single)


def solve_budget_masks(
    const int[::1] masks, i64 first_state, double[:, ::1] out, i64 next_first, const double[:, ::1] Wn,
    const i64[::1] base, const int[::1] ncls, const int[::1] grp_ptr, const int[::1] grp_bits,
    const double[:, :, ::1] rewards, const double[::1] scratch_rew, const int[::1] scratch_out,
    const i64[::1] tstart, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
    const signed char[:, ::1] egrp, int n_upper, int base_throws, const double[::1] probs,
    const int[:, ::1] child, int cap,
):
    """Turn-start values of every state of ``masks`` (one layer) for the counts of carried
    throws F = 0..NF-1 (``out[state - first_state, F]``, NF = ``out.shape[1]``), when a
    turn's budget is ``base_throws + F`` throws and ending it after t throws carries
    ``min(budget - t, cap)`` (Polish fences, PL-12). Successors are read from the next
    layer's values ``Wn`` (its states from ``next_first``, one row each, ``Wn.shape[1]``
    counts: enough for every count this layer carries on, ``NF + base_throws - 1`` or
    ``cap + 1``). Releases the GIL.

    A state is (mask, tracker class) at ``base[m] + c`` (no flag). After the first throw the
    turn picks one box group (``grp_bits``: declared box, PL-15); a box with a finite
    ``scratch_rew`` may instead be scratched before the first throw, its tracker moving as
    if outcome ``scratch_out[b]`` were written. The widget is solved once per remaining
    budget r: ``X[r]`` after a later throw, from-hand values at r = F + base_throws - 1.
    The widgets of a mask's (class, group) pairs run side by side, up to ``MAX_LANES`` at
    a time (whole classes), through one keep stage (``kocka_keep_stage_lanes``).
    """
    cdef int NF = out.shape[1]
    cdef int NFn = Wn.shape[1]
    cdef int n_boxes = rewards.shape[0]
    cdef int G = tnext.shape[1]
    if rewards.shape[1] != 2 or base_throws < 1 or NF < 1 or cap < 0:
        raise ValueError("rewards must be (n_boxes, 2, 252), base_throws >= 1, out must hold a count, cap >= 0")
    if NFn < min(NF + base_throws, cap + 1) or not 1 <= G <= MAX_G or egrp.shape[1] != N_OUT:
        raise ValueError(f"the next layer must hold {min(NF + base_throws, cap + 1)} counts, got {NFn}; "
                         f"tracker rows 1..{MAX_G} entry groups")
    cdef int max_groups = 1
    cdef Py_ssize_t i
    for i in range(masks.shape[0]):
        max_groups = max(max_groups, grp_ptr[masks[i] + 1] - grp_ptr[masks[i]])
    if max_groups > MAX_LANES:
        raise ValueError(f"a mask has {max_groups} box groups, at most {MAX_LANES} run side by side")
    cdef Lattice lat
    _lattice(child, &lat)
    cdef const double* pr = &probs[0]
    cdef int L = MAX_LANES
    # per lane: the fills (G0, G1), the widget X, the keep stage's K / proper and the value
    # after the first throw (Vb), all (rows, L)
    cdef double* buf = <double*> malloc(sizeof(double) * ((5 * N_OUT + N_SMALL) * L))
    cdef double* VG = <double*> malloc(sizeof(double) * n_boxes * MAX_LANES * MAX_G)
    if buf == NULL or VG == NULL:
        free(buf)
        free(VG)
        raise MemoryError()
    cdef double* G0 = buf
    cdef double* G1 = G0 + N_OUT * L
    cdef double* X = G1 + N_OUT * L
    cdef double* proper = X + N_OUT * L
    cdef double* K = proper + N_OUT * L
    cdef double* Vb = K + N_SMALL * L
    cdef double ebuf[MAX_LANES]
    cdef double bestb[MAX_LANES]
    cdef const double* Wp = &Wn[0, 0]
    cdef const i64* bp = &base[0]
    cdef const double* rp = &rewards[0, 0, 0]
    cdef const i64* tsp = &tstart[0]
    cdef const int* upp = &uprank[0]
    cdef const int* tnp = &tnext[0, 0]
    cdef const double* top = &toff[0, 0]
    cdef const signed char* egp = &egrp[0, 0]
    cdef int m, c, c0, c1, g, g0, ng, o, r, F, Fp, b, U, n_open_upper, allbits, first_r, nl, l, per, ncb
    cdef i64 b2, row, s
    cdef double e, sc
    first_r = base_throws - 1   # remaining budget right after the first throw with F = 0
    with nogil:
        for i in range(masks.shape[0]):
            m = masks[i]
            U = m & ((1 << n_upper) - 1)
            n_open_upper = n_upper - popcount(U)
            g0 = grp_ptr[m]
            ng = grp_ptr[m + 1] - g0
            allbits = 0
            for g in range(ng):
                allbits = allbits | grp_bits[g0 + g]
            per = max(LANES // ng, 1)   # whole classes per batch; lane gi * ncb + ci
            c0 = 0
            while c0 < ncls[m]:
                c1 = min(ncls[m], c0 + per)
                ncb = c1 - c0
                nl = ncb * ng
                for r in range(NF - 1 + base_throws):
                    Fp = r if r < cap else cap
                    if r <= cap:   # beyond the cap the fills are those of the cap
                        lane_fills(Wp, next_first, NFn, Fp, m, c0, ncb, &grp_bits[g0], ng, bp, rp, n_boxes, tsp, upp,
                                   tnp, top, G, egp, n_upper, VG, G0, G1)
                    if r == 0:
                        for o in range(N_OUT * nl):
                            proper[o] = -INFINITY
                    else:
                        kocka_keep_stage_lanes(X, K, proper, lat.child, nl)
                    if r >= first_r:  # after the first throw: from hand or keep, the best group
                        F = r - first_r
                        kocka_max_of(Vb, G1, proper, N_OUT * nl)
                        for l in range(ncb):
                            ebuf[l] = 0.0
                        kocka_best_group_mean(Vb, pr, nl, ncb, ng, bestb, ebuf)
                        for l in range(ncb):
                            out[bp[m] + c0 + l - first_state, F] = ebuf[l]
                    kocka_max_of(X, G0, proper, N_OUT * nl)
                c0 = c1
            # scratching before the first throw (PL-11): a box written without throwing
            for c in range(ncls[m]):
                s = bp[m] + c
                for F in range(NF):
                    e = out[s - first_state, F]
                    Fp = F + base_throws if F + base_throws < cap else cap
                    for b in range(n_boxes):
                        if not (allbits >> b) & 1 or scratch_rew[b] == -INFINITY:
                            continue
                        b2 = bp[m | (1 << b)] - next_first
                        if b < n_upper:
                            row = (tsp[U] + <i64> c * n_open_upper + upp[U * n_upper + b]) * G
                            g = egp[<i64> b * N_OUT + scratch_out[b]]
                            sc = scratch_rew[b] + Wp[(b2 + tnp[row + g]) * NFn + Fp] + top[row + g]
                        else:
                            sc = scratch_rew[b] + Wp[(b2 + c) * NFn + Fp]
                        e = _max(e, sc)
                    out[s - first_state, F] = e
    free(buf)
    free(VG)
