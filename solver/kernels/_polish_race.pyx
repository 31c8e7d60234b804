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
from libc.stdlib cimport free, malloc

from keep_lattice cimport N_FOUR, N_KEEP, N_OUT, N_SMALL

ctypedef long long i64

cdef extern from *:
    """
    /* a slope difference below this is rounding noise: no margin is drawn from it */
    static const double KOCKA_SLOPE_EPS = 1e-15;
    """
    const double SLOPE_EPS "KOCKA_SLOPE_EPS"


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


cdef struct Work:
    # views into one per-thread buffer of WORK_DOUBLES + n_boxes * max_points doubles
    double* rec               # (2 seats, 2, N_OUT) best record per outcome after a later / the first throw
    double* shown             # (2 seats, 2, N_OUT) 1.0 where some new combination is shown
    double* Kv                # (N_KEEP,) keep values and slopes
    double* Ks
    double* Mv                # (N_SMALL,) best sub-keep so far
    double* Ms
    double* Pv                # (N_OUT,) best proper keep of each outcome
    double* Ps
    double* Sv                # (N_OUT,) the value after a throw
    double* Ss
    double* Fv                # (2, N_OUT) the best end of the turn after a later / the first throw
    double* Fs
    double* succ              # (n_boxes, max_points) value of recording each box with each point value


cdef enum:
    WORK_DOUBLES = 8 * N_OUT + 2 * N_KEEP + 2 * N_SMALL + 4 * N_OUT + 4 * N_OUT


cdef struct Solved:
    double a                  # seat 0's value (to move at s0, s1, d)
    double b                  # seat 1's value (to move at s1, s0, -d)
    int evals                 # turn evaluations (negative: no convergence)
    int never_ending          # 1: neither player records; counted as a tie
    int fallback              # 1: Newton cycled and the bracketed search solved it


cdef inline Work _work(double* buf) noexcept nogil:
    cdef Work w
    w.rec = buf
    w.shown = buf + 4 * N_OUT
    w.Kv = buf + 8 * N_OUT
    w.Ks = w.Kv + N_KEEP
    w.Mv = w.Ks + N_KEEP
    w.Ms = w.Mv + N_SMALL
    w.Pv = w.Ms + N_SMALL
    w.Ps = w.Pv + N_OUT
    w.Sv = w.Ps + N_OUT
    w.Ss = w.Sv + N_OUT
    w.Fv = w.Ss + N_OUT
    w.Fs = w.Fv + 2 * N_OUT
    w.succ = w.Fs + 2 * N_OUT
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


cdef inline void _margin(double vw, double sw, double vl, double sl, double* lo, double* hi) noexcept nogil:
    """The winner (vw, sw) of a comparison stays ahead of (vl, sl) while x moves by at most
    lo down and hi up (the division only when the margin shrinks)."""
    cdef double d = vw - vl, ds = sw - sl
    if ds > SLOPE_EPS:
        if d < lo[0] * ds:
            lo[0] = d / ds
    elif ds < -SLOPE_EPS:
        if d < -hi[0] * ds:
            hi[0] = d / (-ds)


cdef inline void _keep_stage(const Card* c, Work* w, const double* topv, const double* tops,
                             double* lo, double* hi) noexcept nogil:
    """Keep values when the next throw ends in ``top``, and the best proper keep of each
    outcome (``Pv``/``Ps``), with the margins of every comparison."""
    cdef int k, f, ch
    cdef double sv, ss, mv, ms
    cdef const int* row
    for k in range(N_OUT):
        w.Kv[N_SMALL + k] = topv[k]
        w.Ks[N_SMALL + k] = tops[k]
    for k in range(N_SMALL - 1, -1, -1):
        row = c.child + 6 * k
        sv = 0.0
        ss = 0.0
        for f in range(6):
            sv = sv + w.Kv[row[f]]
            ss = ss + w.Ks[row[f]]
        w.Kv[k] = sv * (1.0 / 6.0)
        w.Ks[k] = ss * (1.0 / 6.0)
    for k in range(N_SMALL):
        w.Mv[k] = w.Kv[k]
        w.Ms[k] = w.Ks[k]
    for k in range(N_OUT):
        w.Pv[k] = -INFINITY
        w.Ps[k] = 0.0
    for k in range(N_FOUR):
        mv = w.Mv[k]
        ms = w.Ms[k]
        row = c.child + 6 * k
        for f in range(6):
            ch = row[f]
            if mv > w.Mv[ch]:
                _margin(mv, ms, w.Mv[ch], w.Ms[ch], lo, hi)
                w.Mv[ch] = mv
                w.Ms[ch] = ms
            else:
                _margin(w.Mv[ch], w.Ms[ch], mv, ms, lo, hi)
    for k in range(N_FOUR, N_SMALL):
        mv = w.Mv[k]
        ms = w.Ms[k]
        row = c.child + 6 * k
        for f in range(6):
            ch = row[f] - N_SMALL
            if w.Pv[ch] == -INFINITY:
                w.Pv[ch] = mv
                w.Ps[ch] = ms
            elif mv > w.Pv[ch]:
                _margin(mv, ms, w.Pv[ch], w.Ps[ch], lo, hi)
                w.Pv[ch] = mv
                w.Ps[ch] = ms
            else:
                _margin(w.Pv[ch], w.Ps[ch], mv, ms, lo, hi)


cdef inline void _stop(const Card* c, const Work* w, int seat, int ft, int o, double xv, double xs,
                       double* v, double* s, double* lo, double* hi) noexcept nogil:
    """The best end of ``seat``'s turn on outcome ``o``: the best record, or ending without
    one (worth ``xv`` with slope ``xs``), which ``pl.basic_record = mandatory`` allows only
    when no new combination is shown (PL-5)."""
    cdef int at = (2 * seat + ft) * N_OUT + o
    cdef double r = w.rec[at]
    if c.mandatory and w.shown[at] > 0.0:
        v[0] = r
        s[0] = 0.0
    elif r > xv:
        _margin(r, 0.0, xv, xs, lo, hi)
        v[0] = r
        s[0] = 0.0
    else:
        if r > -INFINITY:
            _margin(xv, xs, r, 0.0, lo, hi)
        v[0] = xv
        s[0] = xs


cdef void _turn(const Card* c, Work* w, int seat, double xv, double xs, double* value, double* slope,
                double* lo, double* hi) noexcept nogil:
    """Value (and slope in the pass value) of ``seat``'s whole turn from before its first
    throw, his records in ``w.rec``; ``lo``/``hi`` receive the margins."""
    cdef int o
    cdef double fv, fs, tv, ts
    lo[0] = INFINITY
    hi[0] = INFINITY
    for o in range(2 * N_OUT):
        _stop(c, w, seat, o // N_OUT, o % N_OUT, xv, xs, &w.Fv[o], &w.Fs[o], lo, hi)
    _keep_stage(c, w, w.Fv, w.Fs, lo, hi)  # before the third throw
    for o in range(N_OUT):
        fv = w.Fv[o]
        fs = w.Fs[o]
        if w.Pv[o] > fv:
            _margin(w.Pv[o], w.Ps[o], fv, fs, lo, hi)
            w.Sv[o] = w.Pv[o]
            w.Ss[o] = w.Ps[o]
        else:
            _margin(fv, fs, w.Pv[o], w.Ps[o], lo, hi)
            w.Sv[o] = fv
            w.Ss[o] = fs
    _keep_stage(c, w, w.Sv, w.Ss, lo, hi)  # before the second throw
    tv = 0.0
    ts = 0.0
    for o in range(N_OUT):
        fv = w.Fv[N_OUT + o]  # from hand
        fs = w.Fs[N_OUT + o]
        if w.Pv[o] > fv:
            _margin(w.Pv[o], w.Ps[o], fv, fs, lo, hi)
            fv = w.Pv[o]
            fs = w.Ps[o]
        else:
            _margin(fv, fs, w.Pv[o], w.Ps[o], lo, hi)
        tv = tv + c.probs[o] * fv
        ts = ts + c.probs[o] * fs
    value[0] = tv
    slope[0] = ts


cdef void _records(const Card* c, Work* w, int seat, int me, int other, i64 d) noexcept nogil:
    """``seat``'s part of ``w.rec``: his best record per outcome (mask ``me`` against
    ``other``, ``d`` points ahead), and of ``w.shown``. Recording his last combination ends
    the game, or (seat 0, ``finish_round``) gives seat 1 a last turn (PL-7); in that last
    turn every end of it ends the game."""
    cdef int ft, o, b, j, nm, at, full = c.nmask - 1, mp = c.max_points
    cdef i64 pts
    cdef double r, best, shown
    for b in range(c.n_boxes):
        if me >> b & 1:
            continue
        nm = me | (1 << b)
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
            w.succ[b * mp + j] = r
    for ft in range(2):
        for o in range(N_OUT):
            best = -INFINITY
            shown = 0.0
            for b in range(c.n_boxes):
                if me >> b & 1:
                    continue
                j = c.rec_index[(b * 2 + ft) * N_OUT + o]
                if j < 0:
                    continue
                shown = 1.0
                r = w.succ[b * mp + j]
                if r > best:
                    best = r
            at = (2 * seat + ft) * N_OUT + o
            w.rec[at] = best
            w.shown[at] = shown


cdef Solved _solve_scores(const Card* c, Work* w, int s0, int s1, i64 d, double a, double b,
                          double tol, int max_iter) noexcept nogil:
    """Solve seat 0 to move at (s0, s1, d) and seat 1 to move at (s1, s0, -d) together,
    from the guesses ``a``, ``b``: each passes to the other at the same cards and scores.

    Newton on the two piecewise-linear turn values: evaluate both turns at the guesses,
    solve the 2 x 2 linear system of the policies found; the answer is exact as soon as the
    pass values it implies lie within both turns' margins (or the step is below ``tol``).
    Should that cycle between policies, :func:`_bracketed` finishes the job."""
    cdef Solved out
    cdef double alpha_a, alpha_b, det, na, nb
    cdef double va = 0.0, sa = 0.0, vb = 0.0, sb = 0.0  # written by _turn
    cdef double loa = 0.0, hia = 0.0, lob = 0.0, hib = 0.0
    cdef int _
    out.evals = 0
    out.never_ending = 0
    out.fallback = 0
    _records(c, w, 0, s0, s1, d)
    _records(c, w, 1, s1, s0, -d)
    for _ in range(max_iter):
        _turn(c, w, 0, 1.0 - b, 1.0, &va, &sa, &loa, &hia)
        _turn(c, w, 1, 1.0 - a, 1.0, &vb, &sb, &lob, &hib)
        out.evals += 2
        alpha_a = va - sa * (1.0 - b)
        alpha_b = vb - sb * (1.0 - a)
        det = 1.0 - sa * sb
        if det < 1e-12:
            # neither player ever records under these policies: a game that never ends,
            # counted as a tie (each 1/2) and reported
            if a == 0.5 and b == 0.5:
                out.never_ending = 1
                break
            a = 0.5
            b = 0.5
            continue
        na = (alpha_a + sa * (1.0 - alpha_b - sb)) / det
        nb = alpha_b + sb * (1.0 - na)
        # seat 0's pass value 1 - b moves by b - nb, seat 1's by a - na
        if (-loa <= b - nb <= hia and -lob <= a - na <= hib) or (fabs(na - a) <= tol and fabs(nb - b) <= tol):
            a = na
            b = nb
            break
        a = na
        b = nb
    else:
        out = _bracketed(c, w, a, tol, out.evals)
    out.a = a if out.fallback == 0 else out.a
    out.b = b if out.fallback == 0 else out.b
    return out


cdef Solved _bracketed(const Card* c, Work* w, double a, double tol, int evals) noexcept nogil:
    """The safe way to the same fixed point: seat 0's value ``a`` solves
    F(a) = f(1 - g(1 - a)) - a = 0, where g and f are the two turn values as functions of
    the pass value. F is nonincreasing (each turn value moves by at most as much as its pass
    value) with F(0) >= 0 >= F(1), so a bracket [lo, hi] shrinks around the root; Newton
    steps (slope s_a s_b - 1) are taken while they stay inside it, halvings otherwise. The
    records of both seats are already in ``w``."""
    cdef Solved out
    cdef double lo = 0.0, hi = 1.0, F, slope, na
    cdef double va = 0.0, sa = 0.0, vb = 0.0, sb = 0.0, m0 = 0.0, m1 = 0.0  # written by _turn
    cdef int _
    out.never_ending = 0
    out.fallback = 1
    out.a = a
    out.b = 1.0 - a
    if a < 0.0 or a > 1.0:
        a = 0.5
    for _ in range(400):
        _turn(c, w, 1, 1.0 - a, 1.0, &vb, &sb, &m0, &m1)
        _turn(c, w, 0, 1.0 - vb, 1.0, &va, &sa, &m0, &m1)
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
    if rec_index.shape[1] != 2 or rec_index.shape[2] != N_OUT or child.shape[0] != N_SMALL or child.shape[1] != 6:
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
    points ahead (PL-7)."""
    cdef Card c
    cdef Work w
    cdef int m, full
    cdef i64 d
    cdef double* buf = NULL
    cdef double* out = NULL  # per thread: value, slope and margins of one turn
    _card(&c, gain, gain, loff, rec_index, rec_points, n_points, probs, child, 1, mandatory)
    c.last = &last[0]
    full = c.nmask - 1
    with nogil, parallel(num_threads=num_threads):
        buf = <double*>malloc((WORK_DOUBLES + c.n_boxes * c.max_points + 4) * sizeof(double))
        out = buf + WORK_DOUBLES + c.n_boxes * c.max_points
        for m in prange(full, schedule="dynamic"):
            w = _work(buf)
            for d in range(-gain[m], 1):
                _records(&c, &w, 1, m, full, d)
                _turn(&c, &w, 1, _terminal(d), 0.0, &out[0], &out[1], &out[2], &out[3])
                last[loff[m] + d + gain[m]] = out[0]
        free(buf)


def solve_pairs(const i64[::1] gain, const i64[::1] off, const i64[::1] loff, const int[:, :, ::1] rec_index,
                const i64[:, ::1] rec_points, const int[::1] n_points, const double[::1] probs,
                const int[:, ::1] child, const int[:, ::1] pairs, int finish_round, int mandatory,
                double[::1] v0, double[::1] v1, double[::1] last, int symmetric, double tol=1e-13,
                int max_iter=60, int num_threads=1):
    """Fill ``v0`` (seat 0 to move) and ``v1`` (seat 1 to move) for every pair of cards in
    ``pairs`` (rows ``(s0, s1)``: one level, every value they read already solved) and
    every score difference that does not decide the game. With ``symmetric``
    (``pl.basic_end = immediate``: the seats are alike) ``v1`` is ``v0`` and each unordered
    pair appears once.

    Returns ``(turn evaluations, unconverged states, states where neither player records,
    states that needed the bracketed search)``.
    """
    cdef Card c
    cdef Work w
    cdef Solved got
    cdef int nmask, s0, s1
    cdef Py_ssize_t i, n_pairs = pairs.shape[0]
    cdef i64 d, d_lo, d_hi, total_evals = 0, failed = 0, never_ending = 0, fallbacks = 0
    cdef double a, b
    cdef double* buf = NULL
    _card(&c, gain, off, loff, rec_index, rec_points, n_points, probs, child, finish_round, mandatory)
    nmask = c.nmask
    if off.shape[0] != <Py_ssize_t>nmask * nmask or pairs.shape[1] != 2:
        raise ValueError("off must have one entry per pair of masks and pairs two columns")
    if n_pairs == 0:
        return 0, 0, 0, 0
    c.v0 = &v0[0]
    c.v1 = &v1[0]
    if finish_round:
        c.last = &last[0]
    with nogil, parallel(num_threads=num_threads):
        buf = <double*>malloc((WORK_DOUBLES + c.n_boxes * c.max_points) * sizeof(double))
        for i in prange(n_pairs, schedule="dynamic"):
            w = _work(buf)
            s0 = pairs[i, 0]
            s1 = pairs[i, 1]
            d_lo = -gain[s0]
            d_hi = gain[s1]
            if symmetric and s0 == s1:
                d_lo = 0  # (s, s, -d) is seat 1's side of (s, s, d)
            a = 0.0
            b = 1.0
            for d in range(d_lo, d_hi + 1):
                got = _solve_scores(&c, &w, s0, s1, d, a, b, tol, max_iter)
                a = got.a
                b = got.b
                if got.evals < 0:
                    failed += 1
                    total_evals += -got.evals
                else:
                    total_evals += got.evals
                never_ending += got.never_ending
                fallbacks += got.fallback
                v0[off[<i64>s0 * nmask + s1] + d + gain[s0]] = a
                v1[off[<i64>s1 * nmask + s0] - d + gain[s1]] = b
        free(buf)
    return total_evals, failed, never_ending, fallbacks
