# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Kernel of the two-player race of the Polish basic game (see ``kocka.solver.solvers.polish.race``).

A turn is three throws over the 252 sorted outcomes and the 462 keeps, through the keep
lattice (``keep_lattice.pxd``) (a keep of m dice is the mean of its six children with one
die more; the best keep inside an outcome is pushed up the lattice). The turn ends in a
record (worth the successor's value, known: it has one more combination recorded) or
without one (PL-5), which hands the same scores to the other player: the value of passing
is 1 - the other player's value there, so the two players' values at equal cards and
scores are solved together.

Every value in a turn is a linear function of the pass value x while no decision changes,
so the kernel carries each value with its slope in x and the margins of x within which
every decision stays (after ``_kocka.pyx``'s race). Newton on the two linear turn values
then lands on the exact fixed point as soon as it lies inside the margins.

The Python side builds every table (offsets, rewards, the order of the pairs); this file
only runs loops over typed memoryviews without the GIL.
"""
from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, fabs
from libc.stdlib cimport free

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

from keep_lattice cimport N_KEEP, N_OUT

ctypedef long long i64

cdef extern from *:
    """
    /* The turn of RACE_LANES states side by side (one lane each), in GCC's vector types:
       every operation runs along the lanes, the arithmetic of each lane the scalar turn's in
       the same order (no multiply-add is fused: setup.py compiles with -ffp-contract=off),
       so a lane gives the same bits whatever the others hold. x86-64 Linux GCC also builds
       an AVX2 version, which the loader picks where the CPU has it. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define KOCKA_RACE_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define KOCKA_RACE_CLONES
    #endif
    #define KOCKA_RACE_LANES 4
    typedef double kr_v __attribute__((vector_size(8 * KOCKA_RACE_LANES)));
    typedef long long kr_m __attribute__((vector_size(8 * KOCKA_RACE_LANES)));

    /* a slope difference below this is rounding noise: no margin is drawn from it */
    static const double KOCKA_SLOPE_EPS = 1e-15;

    /* macros, not functions: a vector passed by value would change the ABI of the plain
       (non-AVX) build, which GCC warns about */
    #define kr_sel(m, a, b) ((kr_v)(((m) & (kr_m)(a)) | (~(m) & (kr_m)(b))))
    #define kr_abs(a) ((kr_v)((kr_m)(a) & (0x7fffffffffffffffLL - (kr_m){})))
    #define kr_all(x) ((x) - (kr_v){})

    /* The candidate (cv, cs) against the best so far (*mv, *ms) (value, slope in the pass
       value x): the candidate wins when strictly greater, and stays ahead while x moves by
       at most d / ds (down where ds > 0, else up). The margins lo, hi shrink to the least
       of these (_margins, in the order of the comparisons); here only d, ds go to *dd,
       *dds and the lanes where they may shrink a margin as it stands (lo, hi) come back:
       a group of comparisons then reads the margins once. Lanes in ``mute`` take no
       margin (a forced record). The test leaves out |ds| <= KOCKA_SLOPE_EPS: only a few
       more lanes pass it, and kr_margins tests each comparison exactly. */
    static inline __attribute__((always_inline)) void kr_pick(const kr_v *cvp, const kr_v *csp, kr_v *mv, kr_v *ms,
                                                               const kr_v *lo, const kr_v *hi, const kr_m *mute,
                                                               kr_v *dd, kr_v *dds, kr_m *need) {
        kr_v cv = *cvp, cs = *csp;
        kr_m better = cv > *mv;
        kr_v d = kr_abs(cv - *mv);
        kr_v diff = cs - *ms;
        kr_v ds = kr_sel(better, diff, -diff);
        kr_v ads = kr_abs(ds);
        kr_v m = kr_sel(ds > kr_all(0.0), *lo, *hi);
        *mv = kr_sel(better, cv, *mv);
        *ms = kr_sel(better, cs, *ms);
        *dd = kr_sel(*mute, kr_all(__builtin_inf()), d);
        *dds = ds;
        *need |= (d < m * ads) & ~*mute;
    }

    /* The margins shrunk by n comparisons in order (their d, ds from kr_pick), where
       ``need`` (the OR of kr_pick's answers) says that some may: a margin only shrinks, so
       a comparison kr_pick found harmless against the margins before the group stays so.
       Branch-free along the lanes (a lane's divisions count only where it shrinks a
       margin, so its bits are those of a scalar loop): a branch per lane and comparison
       mispredicted often enough to cost about a fifth of the turn. */
    static inline __attribute__((always_inline)) void kr_margins(const kr_m *needp, const kr_v *dd, const kr_v *dds, int n, kr_v *lo, kr_v *hi) {
        kr_m any = *needp;
    #if KOCKA_RACE_LANES == 8
        any |= __builtin_shufflevector(any, any, 4, 5, 6, 7, 0, 1, 2, 3);
        any |= __builtin_shufflevector(any, any, 2, 3, 0, 1, 6, 7, 4, 5);
        any |= __builtin_shufflevector(any, any, 1, 0, 3, 2, 5, 4, 7, 6);
    #else
        any |= __builtin_shufflevector(any, any, 2, 3, 0, 1);
        any |= __builtin_shufflevector(any, any, 1, 0, 3, 2);
    #endif
        if (__builtin_expect(any[0] == 0, 1)) return;
        for (int i = 0; i < n; i++) {
            kr_v d = dd[i], ds = dds[i], ads = kr_abs(ds), q = d / ads;
            kr_m up = (ds > kr_all(KOCKA_SLOPE_EPS)) & (d < *lo * ds);
            kr_m down = (ds < kr_all(-KOCKA_SLOPE_EPS)) & (d < -*hi * ds);
            *lo = kr_sel(up, q, *lo);
            *hi = kr_sel(down, q, *hi);
        }
    }

    /* Keep values when the next throw ends in (tv, ts) (N_OUT rows), and the best proper
       keep of each outcome (pv, ps), with the margins of every comparison; K (N_KEEP rows)
       is scratch, the best sub-keep pushed up in place. */
    static inline __attribute__((always_inline)) void kr_keep_stage(const kr_v *tv, const kr_v *ts, kr_v *Kv, kr_v *Ks, kr_v *pv, kr_v *ps,
                                     const int *child, kr_v *lo, kr_v *hi) {
        int k, f;
        const kr_m keep = {};
        for (k = 0; k < KOCKA_N_OUT; k++) { Kv[KOCKA_N_SMALL + k] = tv[k]; Ks[KOCKA_N_SMALL + k] = ts[k]; }
        for (k = KOCKA_N_SMALL - 1; k >= 0; k--) {
            const int *row = child + 6 * k;
            kr_v sv = kr_all(0.0), ss = kr_all(0.0);
            for (f = 0; f < 6; f++) { sv = sv + Kv[row[f]]; ss = ss + Ks[row[f]]; }
            Kv[k] = sv * kr_all(1.0 / 6.0);
            Ks[k] = ss * kr_all(1.0 / 6.0);
        }
        for (k = 0; k < KOCKA_N_OUT; k++) { pv[k] = kr_all(-__builtin_inf()); ps[k] = kr_all(0.0); }
        for (k = 0; k < KOCKA_N_FOUR; k++) {
            const int *row = child + 6 * k;
            kr_v mv = Kv[k], ms = Ks[k], dd[6], dds[6];
            kr_m need = {};
            for (f = 0; f < 6; f++) kr_pick(&mv, &ms, &Kv[row[f]], &Ks[row[f]], lo, hi, &keep, &dd[f], &dds[f], &need);
            kr_margins(&need, dd, dds, 6, lo, hi);
        }
        for (k = KOCKA_N_FOUR; k < KOCKA_N_SMALL; k++) {
            const int *row = child + 6 * k;
            kr_v mv = Kv[k], ms = Ks[k], dd[6], dds[6];
            kr_m need = {};
            for (f = 0; f < 6; f++)
                kr_pick(&mv, &ms, &pv[row[f] - KOCKA_N_SMALL], &ps[row[f] - KOCKA_N_SMALL], lo, hi, &keep,
                        &dd[f], &dds[f], &need);
            kr_margins(&need, dd, dds, 6, lo, hi);
        }
    }

    /* Value and slope in the pass value of a whole turn from before its first throw, for
       every lane: ``rec`` (2 * N_OUT rows: after a later / the first throw) the best record
       per outcome (-inf: none shown), ``shown`` where a new combination is shown (with
       ``mandatory`` it must be recorded, PL-5), (xv, xs) ending the turn without one.
       ``work``: 2 * (2 + 1 + 1) * N_OUT + 2 * N_KEEP rows. */
    KOCKA_RACE_CLONES
    static void kocka_race_turn(const kr_v *rec, const kr_m *shown, int mandatory, const double *xv,
                                const double *xs, const int *child, const double *probs, kr_v *work,
                                double *value, double *slope, double *lo_out, double *hi_out) {
        kr_v *Fv = work, *Fs = Fv + 2 * KOCKA_N_OUT, *Kv = Fs + 2 * KOCKA_N_OUT, *Ks = Kv + KOCKA_N_KEEP;
        kr_v *Pv = Ks + KOCKA_N_KEEP, *Ps = Pv + KOCKA_N_OUT, *Sv = Ps + KOCKA_N_OUT, *Ss = Sv + KOCKA_N_OUT;
        kr_v x, s, lo = kr_all(__builtin_inf()), hi = kr_all(__builtin_inf()), tv = kr_all(0.0), ts = kr_all(0.0);
        const kr_m none = {};
        const kr_v zero = kr_all(0.0);
        int o, g, l;
        for (l = 0; l < KOCKA_RACE_LANES; l++) { x[l] = xv[l]; s[l] = xs[l]; }
        for (o = 0; o < 2 * KOCKA_N_OUT; o += 6) {
            kr_v dd[6], dds[6];
            kr_m need = {};
            for (g = 0; g < 6; g++) {
                kr_v fv = x, fs = s, r = rec[o + g];
                kr_m forced = mandatory ? shown[o + g] : none;
                kr_pick(&r, &zero, &fv, &fs, &lo, &hi, &forced, &dd[g], &dds[g], &need);
                Fv[o + g] = kr_sel(forced, r, fv);
                Fs[o + g] = kr_sel(forced, kr_all(0.0), fs);
            }
            kr_margins(&need, dd, dds, 6, &lo, &hi);
        }
        kr_keep_stage(Fv, Fs, Kv, Ks, Pv, Ps, child, &lo, &hi);  /* before the third throw */
        for (o = 0; o < KOCKA_N_OUT; o += 6) {
            kr_v dd[6], dds[6];
            kr_m need = {};
            for (g = 0; g < 6; g++) {
                kr_v fv = Fv[o + g], fs = Fs[o + g];
                kr_pick(&Pv[o + g], &Ps[o + g], &fv, &fs, &lo, &hi, &none, &dd[g], &dds[g], &need);
                Sv[o + g] = fv;
                Ss[o + g] = fs;
            }
            kr_margins(&need, dd, dds, 6, &lo, &hi);
        }
        kr_keep_stage(Sv, Ss, Kv, Ks, Pv, Ps, child, &lo, &hi);  /* before the second throw */
        for (o = 0; o < KOCKA_N_OUT; o += 6) {
            kr_v dd[6], dds[6];
            kr_m need = {};
            for (g = 0; g < 6; g++) {
                kr_v fv = Fv[KOCKA_N_OUT + o + g], fs = Fs[KOCKA_N_OUT + o + g];  /* from hand */
                kr_pick(&Pv[o + g], &Ps[o + g], &fv, &fs, &lo, &hi, &none, &dd[g], &dds[g], &need);
                tv = tv + kr_all(probs[o + g]) * fv;
                ts = ts + kr_all(probs[o + g]) * fs;
            }
            kr_margins(&need, dd, dds, 6, &lo, &hi);
        }
        for (l = 0; l < KOCKA_RACE_LANES; l++) { value[l] = tv[l]; slope[l] = ts[l]; lo_out[l] = lo[l]; hi_out[l] = hi[l]; }
    }
    """
    enum:
        LANES "KOCKA_RACE_LANES"
    ctypedef double kr_v "kr_v"
    ctypedef long long kr_m "kr_m"
    void kocka_race_turn(const kr_v* rec, const kr_m* shown, int mandatory, const double* xv, const double* xs,
                         const int* child, const double* probs, kr_v* work, double* value, double* slope,
                         double* lo, double* hi) noexcept nogil


cdef struct Card:
    int n_boxes
    int nmask
    int finish_round          # 1: seat 0 completing his card gives seat 1 a last turn (PL-7)
    int mandatory             # 1: a shown new combination must be recorded (pl.basic_record)
    const i64* gain           # (nmask,) most points the open combinations can still add
    const i64* off            # (nmask * nmask,) first value of (mover's mask, other's mask)
    const i64* loff           # (nmask,) first last-turn value of seat 1's mask
    const int* rec_index      # (n_boxes, 2, N_OUT) which of the box's point values a record scores (-1: not shown)
    const i64* rec_points     # (n_boxes, max_points) the distinct point values of each box
    const int* n_points       # (n_boxes,)
    int max_points
    const double* probs       # (N_OUT,)
    const int* child          # (N_SMALL, 6)
    double* v0                # values, seat 0 to move
    double* v1                # values, seat 1 to move (v0 itself when the seats are alike)
    double* last              # seat 1's last turn after seat 0 completed (finish_round)


cdef enum:
    TURN_ROWS = 8 * N_OUT + 2 * N_KEEP   # kocka_race_turn's scratch, in rows of LANES doubles
    REC_ROWS = 2 * N_OUT                 # one seat's records (and shown flags), rows of LANES


cdef struct Lane:
    # one state being solved in a lane of solve_pairs: pair i at lead d (up to d_hi), the
    # current guesses a, b and the Newton steps taken there
    Py_ssize_t i
    i64 d
    i64 d_hi
    double a
    double b
    int steps


cdef struct Work:
    # views into one per-thread, 32-byte aligned buffer (see _work_new); every array is
    # (rows, LANES), one lane per state
    double* rec               # (2 seats, REC_ROWS, LANES) best record per outcome after a later / the first throw
    i64* shown                # (2 seats, REC_ROWS, LANES) -1 where some new combination is shown, else 0
    double* turn              # (TURN_ROWS, LANES) scratch of kocka_race_turn
    double* xv                # (LANES,) the pass value of each lane, and its slope
    double* xs
    double* value             # (2 seats, LANES) the turn values of the last evaluation, their slopes, margins
    double* slope
    double* lo
    double* hi
    double* bvalue            # (4, LANES) the bracketed search's own turn values (value, slope, margins)
    double* best              # (REC_ROWS,) scratch of _records
    double* succ              # (n_boxes, max_points + 1) -inf, then the value of recording each box with each point value
    Lane* lanes               # (LANES,) the state of each lane (solve_pairs), the thread's own


cdef struct Solved:
    double a                  # seat 0's value (to move at s0, s1, d)
    double b                  # seat 1's value (to move at s1, s0, -d)
    int evals                 # turn evaluations (negative: no convergence)
    int never_ending          # 1: neither player records; counted as a tie
    int fallback              # 1: Newton cycled and the bracketed search solved it


cdef Work _work_new(int extra) noexcept nogil:
    """A thread's buffers (``w.rec`` NULL when the memory is not there); ``extra``: the
    doubles of ``succ``."""
    cdef Work w
    cdef void* buf = NULL
    cdef Py_ssize_t rows = 4 * REC_ROWS + TURN_ROWS + 2 + 8 + 4
    if posix_memalign(&buf, 64, (rows * LANES + REC_ROWS + extra) * sizeof(double) + LANES * sizeof(Lane)) != 0:
        buf = NULL
    w.rec = <double*>buf
    if buf == NULL:
        w.shown = NULL
        w.turn = w.xv = w.xs = w.value = w.slope = w.lo = w.hi = w.bvalue = w.best = w.succ = NULL
        w.lanes = NULL
        return w
    w.shown = <i64*>(w.rec + 2 * REC_ROWS * LANES)
    w.turn = <double*>(w.shown + 2 * REC_ROWS * LANES)
    w.xv = w.turn + TURN_ROWS * LANES
    w.xs = w.xv + LANES
    w.value = w.xs + LANES
    w.slope = w.value + 2 * LANES
    w.lo = w.slope + 2 * LANES
    w.hi = w.lo + 2 * LANES
    w.bvalue = w.hi + 2 * LANES
    w.best = w.bvalue + 4 * LANES
    w.succ = w.best + REC_ROWS
    w.lanes = <Lane*>(w.succ + extra)
    return w


cdef inline double _terminal(i64 d) noexcept nogil:
    """Win share of a player ``d`` points ahead when the game ends (PL-7: the highest
    total wins; a tie counts one half)."""
    if d > 0:
        return 1.0
    if d < 0:
        return 0.0
    return 0.5


cdef inline double _value(const Card* c, const double* v, int m, int o, i64 d) noexcept nogil:
    """Value to the player to move with mask ``m`` against ``o``, ``d`` points ahead:
    decided (1 or 0) when the other's open combinations cannot catch up, or his own
    cannot."""
    if d > c.gain[o]:
        return 1.0
    if d < -c.gain[m]:
        return 0.0
    return v[c.off[<i64>m * c.nmask + o] + d + c.gain[m]]


cdef inline double _last(const Card* c, int m, i64 d) noexcept nogil:
    """Seat 1's value in his last turn (seat 0 has completed), ``d`` points ahead."""
    if d > 0:
        return 1.0
    if d < -c.gain[m]:
        return 0.0
    return c.last[c.loff[m] + d + c.gain[m]]


cdef inline void _turn(const Card* c, Work* w, int seat, double* value, double* slope, double* lo,
                       double* hi) noexcept nogil:
    """``seat``'s whole turn in every lane from before its first throw (records in
    ``w.rec``, pass values in ``w.xv``/``w.xs``): value and slope in the pass value per
    lane, and the margins of the pass value within which no decision changes."""
    kocka_race_turn(<const kr_v*>(w.rec + seat * REC_ROWS * LANES), <const kr_m*>(w.shown + seat * REC_ROWS * LANES),
                    c.mandatory, w.xv, w.xs, c.child, c.probs, <kr_v*>w.turn, value, slope, lo, hi)


cdef void _records(const Card* c, Work* w, int seat, int me, int other, i64 d, int lane) noexcept nogil:
    """``seat``'s part of ``w.rec`` in ``lane``: his best record per outcome (mask ``me``
    against ``other``, ``d`` points ahead), and (``pl.basic_record = mandatory``) of
    ``w.shown``. Recording his last combination ends the game, or (seat 0,
    ``finish_round``) gives seat 1 a last turn (PL-7); in that last turn every end of it
    ends the game."""
    cdef int t, b, j, nm, full = c.nmask - 1, mp = c.max_points, row = c.max_points + 1
    cdef i64 pts
    cdef double r
    cdef double* succ
    cdef double* best = w.best
    cdef const int* idx
    cdef double* rec = w.rec + seat * REC_ROWS * LANES + lane
    cdef i64* shown = w.shown + seat * REC_ROWS * LANES + lane
    for t in range(REC_ROWS):
        best[t] = -INFINITY
    for b in range(c.n_boxes):
        if me >> b & 1:
            continue
        nm = me | (1 << b)
        succ = w.succ + b * row
        succ[0] = -INFINITY  # rec_index -1: the dice do not show the box
        for j in range(c.n_points[b]):
            pts = c.rec_points[b * mp + j]
            if seat == 1 and other == full:
                r = _terminal(d + pts)
            elif nm == full:
                if seat == 0 and c.finish_round:
                    r = 1.0 - _last(c, other, -(d + pts))
                else:
                    r = _terminal(d + pts)
            elif seat == 0:
                r = 1.0 - _value(c, c.v1, other, nm, -(d + pts))
            else:
                r = 1.0 - _value(c, c.v0, other, nm, -(d + pts))
            succ[j + 1] = r
        idx = c.rec_index + b * REC_ROWS
        succ = succ + 1
        for t in range(REC_ROWS):  # max over the boxes: the order of the boxes gives the same bits
            r = succ[idx[t]]
            best[t] = r if r > best[t] else best[t]
    for t in range(REC_ROWS):
        rec[t * LANES] = best[t]
    if c.mandatory:
        for t in range(REC_ROWS):
            shown[t * LANES] = 0
        for b in range(c.n_boxes):
            if me >> b & 1:
                continue
            idx = c.rec_index + b * REC_ROWS
            for t in range(REC_ROWS):
                if idx[t] >= 0:
                    shown[t * LANES] = -1


cdef inline bint _newton_step(Lane* s, double va, double sa, double loa, double hia, double vb, double sb, double lob,
                              double hib, double tol, int* never_ending) noexcept nogil:
    """One Newton step of the state in ``s`` (seat 0 to move at (s0, s1, d) and seat 1 to
    move at (s1, s0, -d), each passing to the other at the same cards and scores) from both
    turns evaluated at its guesses: solve the 2 x 2 linear system of the policies found.
    True when the answer (now in ``s``) is exact: the pass values it implies lie within
    both turns' margins (or the step is below ``tol``), or neither player records."""
    cdef double alpha_a, alpha_b, det, na, nb, a = s.a, b = s.b
    alpha_a = va - sa * (1.0 - b)
    alpha_b = vb - sb * (1.0 - a)
    det = 1.0 - sa * sb
    if det < 1e-12:
        # neither player ever records under these policies: a game that never ends,
        # counted as a tie (each 1/2) and reported
        if a == 0.5 and b == 0.5:
            never_ending[0] = 1
            return True
        s.a = 0.5
        s.b = 0.5
        return False
    na = (alpha_a + sa * (1.0 - alpha_b - sb)) / det
    nb = alpha_b + sb * (1.0 - na)
    s.a = na
    s.b = nb
    # seat 0's pass value 1 - b moves by b - nb, seat 1's by a - na
    return (-loa <= b - nb <= hia and -lob <= a - na <= hib) or (fabs(na - a) <= tol and fabs(nb - b) <= tol)


cdef Solved _bracketed(const Card* c, Work* w, int lane, double a, double tol, int evals) noexcept nogil:
    """The safe way to the fixed point of the state in ``lane`` (its records in ``w``):
    seat 0's value ``a`` solves F(a) = f(1 - g(1 - a)) - a = 0, where g and f are the two
    turn values as functions of the pass value. F is nonincreasing (each turn value moves
    by at most as much as its pass value) with F(0) >= 0 >= F(1), so a bracket [lo, hi]
    shrinks around the root; Newton steps (slope s_a s_b - 1) are taken while they stay
    inside it, halvings otherwise. Every lane is evaluated; only ``lane`` is read."""
    cdef Solved out
    cdef double lo = 0.0, hi = 1.0, F, slope, na, va, sa, vb, sb
    cdef double* got = w.bvalue
    cdef int _, l
    out.never_ending = 0
    out.fallback = 1
    out.a = a
    out.b = 1.0 - a
    if a < 0.0 or a > 1.0:
        a = 0.5
    for _ in range(400):
        for l in range(LANES):
            w.xv[l] = 1.0 - a
            w.xs[l] = 1.0
        _turn(c, w, 1, got, got + LANES, got + 2 * LANES, got + 3 * LANES)
        vb = got[lane]
        sb = got[LANES + lane]
        for l in range(LANES):
            w.xv[l] = 1.0 - vb
        _turn(c, w, 0, got, got + LANES, got + 2 * LANES, got + 3 * LANES)
        va = got[lane]
        sa = got[LANES + lane]
        evals += 2
        F = va - a
        out.a = va
        out.b = vb
        if fabs(F) <= tol or hi - lo <= tol:
            out.evals = evals
            return out
        if F > 0.0:
            lo = a
        else:
            hi = a
        slope = sa * sb - 1.0
        na = a - F / slope if slope < -1e-12 else 0.5 * (lo + hi)
        if not (lo < na < hi):
            na = 0.5 * (lo + hi)
        a = na
    out.evals = -evals
    return out


cdef void _card(Card* c, const i64[::1] gain, const i64[::1] off, const i64[::1] loff,
                const int[:, :, ::1] rec_index, const i64[:, ::1] rec_points, const int[::1] n_points,
                const double[::1] probs, const int[:, ::1] child, int finish_round, int mandatory):
    if rec_index.shape[1] != 2 or rec_index.shape[2] != N_OUT or child.shape[0] != N_KEEP - N_OUT or child.shape[1] != 6:
        raise ValueError("rec_index must be (boxes, 2, 252) and child (210, 6)")
    if rec_points.shape[0] != rec_index.shape[0] or n_points.shape[0] != rec_index.shape[0]:
        raise ValueError("rec_points and n_points need one row per box")
    if gain.shape[0] != (1 << rec_index.shape[0]) or loff.shape[0] != gain.shape[0] or probs.shape[0] != N_OUT:
        raise ValueError("gain and loff must have one entry per mask, probs 252")
    c.n_boxes = rec_index.shape[0]
    c.nmask = gain.shape[0]
    c.finish_round = finish_round
    c.mandatory = mandatory
    c.gain = &gain[0]
    c.off = &off[0]
    c.loff = &loff[0]
    c.rec_index = &rec_index[0, 0, 0]
    c.rec_points = &rec_points[0, 0]
    c.n_points = &n_points[0]
    c.max_points = rec_points.shape[1]
    c.probs = &probs[0]
    c.child = &child[0, 0]
    c.v0 = NULL
    c.v1 = NULL
    c.last = NULL


def solve_last_turns(const i64[::1] gain, const i64[::1] loff, const int[:, :, ::1] rec_index,
                     const i64[:, ::1] rec_points, const int[::1] n_points, const double[::1] probs,
                     const int[:, ::1] child, int mandatory, double[::1] last, int num_threads=1):
    """Fill ``last``: seat 1's value in his last turn after seat 0 has completed his card
    (``pl.basic_end = finish_round``), for every mask m of seat 1 and d = -gain[m]..0
    points ahead (PL-7), LANES leads at a time."""
    cdef Card c
    cdef Work w
    cdef int m, full, l, n
    cdef i64 d, d0
    cdef int no_memory[1]
    no_memory[0] = 0
    _card(&c, gain, gain, loff, rec_index, rec_points, n_points, probs, child, 1, mandatory)
    c.last = &last[0]
    full = c.nmask - 1
    with nogil, parallel(num_threads=num_threads):
        w = _work_new(c.n_boxes * (c.max_points + 1))
        if w.rec == NULL:
            no_memory[0] = 1
        else:
            for m in prange(full, schedule="dynamic"):
                d0 = -gain[m]
                while d0 <= 0:
                    n = <int>min(<i64>LANES, 1 - d0)
                    for l in range(LANES):  # a short last group repeats its last lead
                        d = d0 + min(l, n - 1)
                        _records(&c, &w, 1, m, full, d, l)
                        w.xv[l] = _terminal(d)
                        w.xs[l] = 0.0
                    _turn(&c, &w, 1, w.value, w.slope, w.lo, w.hi)
                    for l in range(n):
                        last[loff[m] + d0 + l + gain[m]] = w.value[l]
                    d0 = d0 + LANES
            free(w.rec)
    if no_memory[0]:
        raise MemoryError("polish-basic race: no memory for a thread's buffers")


cdef bint _next_state(const Card* c, Work* w, Lane* s, int lane, const int[:, ::1] pairs, Py_ssize_t* next_pair,
                      Py_ssize_t end, int symmetric, int start) noexcept nogil:
    """Move ``lane`` to its next state: the next lead of its pair, or (``start``, or its
    leads done) the first lead of the next pair of the chunk, with the guesses a = 0, b = 1;
    its records into ``w``. False when the chunk has no pair left (the lane idles)."""
    cdef int s0, s1
    if not start:
        s.d += 1
    if start or s.d > s.d_hi:
        if next_pair[0] >= end:
            s.i = -1
            return False
        s.i = next_pair[0]
        next_pair[0] += 1
        s0 = pairs[s.i, 0]
        s1 = pairs[s.i, 1]
        s.d = 0 if symmetric and s0 == s1 else -c.gain[s0]  # (s, s, -d) is seat 1's side of (s, s, d)
        s.d_hi = c.gain[s1]
        s.a = 0.0
        s.b = 1.0
    s.steps = 0
    s0 = pairs[s.i, 0]
    s1 = pairs[s.i, 1]
    _records(c, w, 0, s0, s1, s.d, lane)
    _records(c, w, 1, s1, s0, -s.d, lane)
    return True


def solve_pairs(const i64[::1] gain, const i64[::1] off, const i64[::1] loff, const int[:, :, ::1] rec_index,
                const i64[:, ::1] rec_points, const int[::1] n_points, const double[::1] probs,
                const int[:, ::1] child, const int[:, ::1] pairs, int finish_round, int mandatory,
                double[::1] v0, double[::1] v1, double[::1] last, int symmetric, double tol=1e-13,
                int max_iter=60, int num_threads=1, int chunk=16):
    """Fill ``v0`` (seat 0 to move) and ``v1`` (seat 1 to move) for every pair of cards in
    ``pairs`` (rows ``(s0, s1)``: one level, every value they read already solved) and
    every score difference that does not decide the game. With ``symmetric``
    (``pl.basic_end = immediate``: the seats are alike) ``v1`` is ``v0`` and each unordered
    pair appears once.

    Each thread takes ``chunk`` pairs at a time and solves LANES states side by side, one
    per lane: a lane walks the leads of a pair in order, each state warm-started from the
    lead before, and takes the next pair of the chunk when its pair is done; every lane's
    arithmetic is that of one state alone, so the values do not depend on the lanes, the
    chunk or the threads.

    Returns ``(turn evaluations, unconverged states, states where neither player records,
    states that needed the bracketed search)``.
    """
    cdef Card c
    cdef Work w
    cdef Solved got
    cdef Lane* s
    cdef int nmask, s0, s1, l, never, active
    cdef Py_ssize_t k, n_pairs = pairs.shape[0], next_pair, end
    cdef i64 total_evals = 0, failed = 0, never_ending = 0, fallbacks = 0
    cdef bint done
    cdef int no_memory[1]
    no_memory[0] = 0
    _card(&c, gain, off, loff, rec_index, rec_points, n_points, probs, child, finish_round, mandatory)
    nmask = c.nmask
    if off.shape[0] != <Py_ssize_t>nmask * nmask or pairs.shape[1] != 2:
        raise ValueError("off must have one entry per pair of masks and pairs two columns")
    if n_pairs == 0:
        return 0, 0, 0, 0
    chunk = max(chunk, 1)
    c.v0 = &v0[0]
    c.v1 = &v1[0]
    if finish_round:
        c.last = &last[0]
    with nogil, parallel(num_threads=num_threads):
        w = _work_new(c.n_boxes * (c.max_points + 1))
        if w.rec == NULL:
            no_memory[0] = 1
        else:
            for k in prange((n_pairs + chunk - 1) // chunk, schedule="dynamic"):
                next_pair = k * chunk
                end = min(next_pair + chunk, n_pairs)
                active = 0
                for l in range(LANES):
                    active = active + _next_state(&c, &w, &w.lanes[l], l, pairs, &next_pair, end, symmetric, 1)
                while active > 0:
                    for l in range(LANES):
                        w.xv[l] = 1.0 - w.lanes[l].b
                        w.xs[l] = 1.0
                    _turn(&c, &w, 0, w.value, w.slope, w.lo, w.hi)
                    for l in range(LANES):
                        w.xv[l] = 1.0 - w.lanes[l].a
                    _turn(&c, &w, 1, w.value + LANES, w.slope + LANES, w.lo + LANES, w.hi + LANES)
                    for l in range(LANES):
                        s = &w.lanes[l]
                        if s.i < 0:
                            continue
                        while True:
                            if s.steps < max_iter:
                                never = 0
                                done = _newton_step(s, w.value[l], w.slope[l], w.lo[l], w.hi[l], w.value[LANES + l],
                                                    w.slope[LANES + l], w.lo[LANES + l], w.hi[LANES + l], tol, &never)
                                s.steps += 1
                                total_evals += 2
                                never_ending += never
                                if not done and s.steps < max_iter:
                                    break  # the next evaluation of every lane
                                if not done:
                                    got = _bracketed(&c, &w, l, s.a, tol, 0)
                            else:  # no Newton step at all (max_iter 0)
                                done = False
                                got = _bracketed(&c, &w, l, s.a, tol, 0)
                            if not done:
                                s.a = got.a
                                s.b = got.b
                                fallbacks += 1
                                if got.evals < 0:
                                    failed += 1
                                    total_evals += -got.evals
                                else:
                                    total_evals += got.evals
                            s0 = pairs[s.i, 0]
                            s1 = pairs[s.i, 1]
                            v0[off[<i64>s0 * nmask + s1] + s.d + gain[s0]] = s.a
                            v1[off[<i64>s1 * nmask + s0] - s.d + gain[s1]] = s.b
                            if not _next_state(&c, &w, s, l, pairs, &next_pair, end, symmetric, 0):
                                active = active - 1
                                break
                            if max_iter > 0:
                                break
            free(w.rec)
    if no_memory[0]:
        raise MemoryError("polish-basic race: no memory for a thread's buffers")
    return total_evals, failed, never_ending, fallbacks
