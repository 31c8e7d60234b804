# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Push-your-luck turn kernels: one turn's Bellman recursion, and the two-player race.

The within-turn model is compiled in Python (``kocka_solver.TurnModel``) from the rules
engine; this module only sees arrays:

* roll *kinds* ``k`` (n dice thrown in some situation), each a list of *groups* of
  outcomes sharing one choice set, with the group's probability; a kind's bust
  probability is the rest;
* each group lists *entries* ``(points, slot, q)``: set aside ``points`` units and go to
  ``slot``; ``q`` < 1 makes it a lottery (a series completes with probability ``q``,
  otherwise the turn busts).

Values live in a ``(rows, 2K+1)`` array indexed by the turn total in units and a slot:
``k`` is the free state after a set-aside with kind ``k`` to roll next (bank or roll on),
``K + k`` is "kind ``k`` must be rolled" (a compulsory roll, or rolling on), ``2K`` is
"bank now". Every entry adds at least one unit, except entries into ``2K``, so rows are
filled from the highest turn total down. Alongside each value the kernel carries its
slope with respect to the bust value ``x``: with the policy held fixed a turn's value is
``A + B x``, which is what the two-player race's Newton steps need.

*Plain* kinds (no lottery, every entry within ``plain_reach`` units: all but the series
kinds) take a fast path that reads ``row + entry_offset`` directly, so the caller fills
the rows up to ``cap + plain_reach``; the other kinds clamp their reads at ``clamp_row``.
"""
from cython.parallel cimport parallel, prange
from libc.math cimport fabs
from libc.stdlib cimport free, malloc


cdef enum:
    MAX_GROUP = 64  # most choices one roll can offer (checked when a model is passed in)


cdef struct Model:
    int n_kinds
    int n_cols
    const int* group_ptr      # (K+1,) groups of kind k: group_ptr[k]:group_ptr[k+1]
    const double* group_prob  # (G,)
    const int* entry_ptr      # (G+1,)
    const int* entry_points   # (E,) units added
    const int* entry_slot     # (E,) 0..2K
    const double* entry_q     # (E,) completion probability (1 for an ordinary set-aside)
    const double* bust_prob   # (K,)
    const unsigned char* opening_only  # (K,) kinds rolled only at turn total 0
    const int* entry_offset   # (E,) points * n_cols + slot
    const unsigned char* plain  # (K,) no lotteries and no entry beyond plain_reach
    int plain_reach           # most points of an entry of a plain kind


cdef struct Phase:
    const int* kinds          # kinds to evaluate in this phase
    int n_kinds
    int opening_kind
    int min_bank              # smallest turn total (units) that may be banked


cdef inline void _narrow(double gap, double dslope, double* margin) noexcept nogil:
    """The option ahead by ``gap`` at x, with slope larger by ``dslope``, stays ahead for
    bust values in [x - margin[0], x + margin[1]]; narrow the margins to keep it so."""
    if dslope > 0.0:
        if gap < margin[0] * dslope:
            margin[0] = gap / dslope
    elif dslope < 0.0:
        if gap < -margin[1] * dslope:
            margin[1] = -gap / dslope


cdef inline void _narrow_to_best(const double* cand_val, const double* cand_slope, int n, int best_i,
                                 double* margin) noexcept nogil:
    """Narrow ``margin`` so that candidate ``best_i`` of the ``n`` stays ahead of each other one."""
    cdef int i
    for i in range(n):
        if i != best_i:
            _narrow(cand_val[best_i] - cand_val[i], cand_slope[best_i] - cand_slope[i], margin)


cdef void _turn_dp(const Model* m, const Phase* ph, int cap, int clamp_row, double x,
                   const double* bank, double* val, double* slope, double* margin) noexcept nogil:
    """Fill rows ``cap-1 .. 0`` of ``val``/``slope``; rows ``cap .. cap + plain_reach``
    (at least) are given.

    ``bank[t]`` is the value of banking turn total ``t`` (slope 0: it never depends on
    the bust value). Plain kinds read rows directly (the fast path: no lottery, no
    clamping); the others read rows beyond ``clamp_row`` as ``clamp_row``.

    With ``margin`` (not NULL, holding two large numbers) the kernel also narrows it to
    the bust values ``[x - margin[0], x + margin[1]]`` over which every choice made stays
    optimal. Within that interval each value is exactly ``val + slope * (x' - x)``: every
    comparison is between functions that are linear there, by induction from the top row.
    """
    cdef int K = m.n_kinds, ncol = m.n_cols, bank_col = 2 * m.n_kinds
    cdef int t, ki, k, g, e, e0, e1, r, idx, best_idx, i, best_i, base
    cdef bint plain
    cdef double rv, rb, best, v, q, best_q, best_slope, p
    cdef double cand_val[MAX_GROUP]
    cdef double cand_slope[MAX_GROUP]
    cdef Py_ssize_t row
    for t in range(cap - 1, -1, -1):
        row = <Py_ssize_t>t * ncol
        val[row + bank_col] = bank[t]
        slope[row + bank_col] = 0.0
        for ki in range(ph.n_kinds):
            k = ph.kinds[ki]
            if m.opening_only[k] and t != 0:
                continue
            rv = 0.0
            rb = 0.0
            plain = m.plain[k]
            base = t * ncol
            for g in range(m.group_ptr[k], m.group_ptr[k + 1]):
                e0 = m.entry_ptr[g]
                e1 = m.entry_ptr[g + 1]
                if plain and (margin == NULL or e1 - e0 == 1):
                    best_idx = base + m.entry_offset[e0]
                    best = val[best_idx]
                    for e in range(e0 + 1, e1):
                        idx = base + m.entry_offset[e]
                        v = val[idx]
                        if v > best:
                            best = v
                            best_idx = idx
                    best_slope = slope[best_idx]
                elif plain:
                    best_i = 0
                    for i in range(e1 - e0):
                        idx = base + m.entry_offset[e0 + i]
                        cand_val[i] = val[idx]
                        cand_slope[i] = slope[idx]
                        if cand_val[i] > cand_val[best_i]:
                            best_i = i
                    best = cand_val[best_i]
                    best_slope = cand_slope[best_i]
                    _narrow_to_best(cand_val, cand_slope, e1 - e0, best_i, margin)
                elif margin == NULL or e1 - e0 == 1:
                    best = -1e300
                    best_idx = 0
                    best_q = 1.0
                    for e in range(e0, e1):
                        r = t + m.entry_points[e]
                        if r > clamp_row:
                            r = clamp_row
                        idx = r * ncol + m.entry_slot[e]
                        q = m.entry_q[e]
                        v = q * val[idx] + (1.0 - q) * x
                        if v > best:
                            best = v
                            best_idx = idx
                            best_q = q
                    best_slope = best_q * slope[best_idx] + (1.0 - best_q)
                else:
                    # keep every candidate (value, slope) for the margins
                    best_i = 0
                    for i in range(e1 - e0):
                        e = e0 + i
                        r = t + m.entry_points[e]
                        if r > clamp_row:
                            r = clamp_row
                        idx = r * ncol + m.entry_slot[e]
                        q = m.entry_q[e]
                        cand_val[i] = q * val[idx] + (1.0 - q) * x
                        cand_slope[i] = q * slope[idx] + (1.0 - q)
                        if cand_val[i] > cand_val[best_i]:
                            best_i = i
                    best = cand_val[best_i]
                    best_slope = cand_slope[best_i]
                    _narrow_to_best(cand_val, cand_slope, e1 - e0, best_i, margin)
                p = m.group_prob[g]
                rv += p * best
                rb += p * best_slope
            p = m.bust_prob[k]
            rv += p * x
            rb += p
            val[row + K + k] = rv
            slope[row + K + k] = rb
            # the free state: bank (ties go to banking) or roll on
            if t > 0 and t >= ph.min_bank and bank[t] >= rv:
                val[row + k] = bank[t]
                slope[row + k] = 0.0
                if margin != NULL:
                    _narrow(bank[t] - rv, -rb, margin)
            else:
                val[row + k] = rv
                slope[row + k] = rb
                if margin != NULL and t > 0 and t >= ph.min_bank:
                    _narrow(rv - bank[t], rb, margin)


cdef Model _model(const int[::1] group_ptr, const double[::1] group_prob, const int[::1] entry_ptr,
                  const int[::1] entry_points, const int[::1] entry_slot, const double[::1] entry_q,
                  const double[::1] bust_prob, const unsigned char[::1] opening_only,
                  const int[::1] entry_offset, const unsigned char[::1] plain, int plain_reach):
    cdef Model m
    cdef int g
    for g in range(entry_ptr.shape[0] - 1):
        if entry_ptr[g + 1] - entry_ptr[g] > MAX_GROUP:
            raise ValueError(f"a roll offers {entry_ptr[g + 1] - entry_ptr[g]} choices, the kernel takes {MAX_GROUP}")
    m.n_kinds = bust_prob.shape[0]
    m.n_cols = 2 * m.n_kinds + 1
    m.group_ptr = &group_ptr[0]
    m.group_prob = &group_prob[0]
    m.entry_ptr = &entry_ptr[0]
    m.entry_points = &entry_points[0]
    m.entry_slot = &entry_slot[0]
    m.entry_q = &entry_q[0]
    m.bust_prob = &bust_prob[0]
    m.opening_only = &opening_only[0]
    m.entry_offset = &entry_offset[0]
    m.plain = &plain[0]
    m.plain_reach = plain_reach
    return m


def turn_values(const int[::1] group_ptr, const double[::1] group_prob, const int[::1] entry_ptr,
                const int[::1] entry_points, const int[::1] entry_slot, const double[::1] entry_q,
                const double[::1] bust_prob, const unsigned char[::1] opening_only,
                const int[::1] entry_offset, const unsigned char[::1] plain, int plain_reach,
                const int[::1] phase_kinds, int opening_kind, int min_bank,
                int cap, int clamp_row, double x, const double[::1] bank,
                double[:, ::1] val, double[:, ::1] slope):
    """One turn's values for every turn total below ``cap`` (rows ``>= cap`` of
    ``val``/``slope`` are the caller's boundary values); see the module docstring."""
    cdef Model m = _model(group_ptr, group_prob, entry_ptr, entry_points, entry_slot, entry_q,
                          bust_prob, opening_only, entry_offset, plain, plain_reach)
    cdef Phase ph
    if val.shape[1] != m.n_cols or slope.shape[1] != m.n_cols:
        raise ValueError(f"value arrays need {m.n_cols} columns, got {val.shape[1]!r}")
    if not (0 < cap <= clamp_row < val.shape[0] and cap + plain_reach < val.shape[0]) or bank.shape[0] < cap:
        raise ValueError(f"need 0 < cap <= clamp_row < rows, cap + plain_reach < rows and bank rows >= cap; "
                         f"got cap={cap!r}, clamp_row={clamp_row!r}, plain_reach={plain_reach!r}, "
                         f"rows={val.shape[0]!r}, bank rows={bank.shape[0]!r}")
    ph.kinds = &phase_kinds[0]
    ph.n_kinds = phase_kinds.shape[0]
    ph.opening_kind = opening_kind
    ph.min_bank = min_bank
    with nogil:
        _turn_dp(&m, &ph, cap, clamp_row, x, &bank[0], &val[0, 0], &slope[0, 0], NULL)


cdef struct Race:
    int goal                  # units a bank must reach to win
    int threshold             # phase 1 from this banked score (units)
    int rows                  # rows of a work array: largest cap + plain_reach + 1
    const double* tail_success  # (K,) P(some bank | kind k rolled beyond every target)
    double* win               # (goal, goal): P(player to move wins | own score, other's)


cdef void _pair_values(const Model* m, const Phase* phases, const Race* race, int a, int b, double x,
                       double* bank, double* val, double* slope, double* out_val, double* out_slope,
                       double* margin) noexcept nogil:
    """The opening value (and its slope in ``x``) of the player to move at scores (a, b),
    and the margins of ``x`` within which that linear value is exact."""
    cdef const Phase* ph = &phases[1 if a >= race.threshold else 0]
    cdef int goal = race.goal, K = m.n_kinds, ncol = m.n_cols
    cdef int cap = goal - a, t, k
    cdef Py_ssize_t row
    if cap < ph.min_bank:
        cap = ph.min_bank
    for t in range(cap):
        bank[t] = 1.0 if a + t >= goal else 1.0 - race.win[<Py_ssize_t>b * goal + a + t]
    # beyond the target any bank wins, so a roll there is worth P(some bank) of a win
    for t in range(cap, cap + m.plain_reach + 1):
        row = <Py_ssize_t>t * ncol
        for k in range(K):
            val[row + k] = 1.0
            slope[row + k] = 0.0
            val[row + K + k] = race.tail_success[k] + (1.0 - race.tail_success[k]) * x
            slope[row + K + k] = 1.0 - race.tail_success[k]
        val[row + 2 * K] = 1.0
        slope[row + 2 * K] = 0.0
    margin[0] = 1e300
    margin[1] = 1e300
    _turn_dp(m, ph, cap, cap, x, bank, val, slope, margin)
    out_val[0] = val[K + ph.opening_kind]
    out_slope[0] = slope[K + ph.opening_kind]


cdef inline double _guess(const double* win, int goal, int a, int b) noexcept nogil:
    """W(a, b) extrapolated from solved neighbours (larger score sums)."""
    if a + 1 < goal and b + 1 < goal:
        return (win[<Py_ssize_t>(a + 1) * goal + b] + win[<Py_ssize_t>a * goal + b + 1]
                - win[<Py_ssize_t>(a + 1) * goal + b + 1])
    if a + 1 < goal:
        return win[<Py_ssize_t>(a + 1) * goal + b]
    if b + 1 < goal:
        return win[<Py_ssize_t>a * goal + b + 1]
    return 0.5


cdef int _solve_pair(const Model* m, const Phase* phases, const Race* race, int a, int b, double tol,
                     double* bank, double* val, double* slope) noexcept nogil:
    """Solve W(a, b) and W(b, a) together (a bust hands the turn over at the same
    scores); every other value they need has a larger score sum and is known.

    Newton on the piecewise-linear convex turn values: evaluate both turns at the current
    guesses, solve the 2x2 linear system of the policies found. The answer is exact as
    soon as it lies where those policies stay optimal (the kernel's margins), or when the
    iteration stands still. Returns the number of turn evaluations."""
    cdef int goal = race.goal, it, evals = 0
    cdef double* win = race.win
    cdef double w_ab, w_ba, n_ab, n_ba, v1, s1, v2, s2, a1, a2
    cdef double m1[2]
    cdef double m2[2]
    w_ab = _guess(win, goal, a, b)
    w_ba = _guess(win, goal, b, a)
    for it in range(100):
        _pair_values(m, phases, race, a, b, 1.0 - w_ba, bank, val, slope, &v1, &s1, m1)
        evals += 1
        a1 = v1 - s1 * (1.0 - w_ba)
        if a == b:
            n_ab = (a1 + s1) / (1.0 + s1)
            n_ba = n_ab
            m2[0] = m1[0]
            m2[1] = m1[1]
        else:
            _pair_values(m, phases, race, b, a, 1.0 - w_ab, bank, val, slope, &v2, &s2, m2)
            evals += 1
            a2 = v2 - s2 * (1.0 - w_ab)
            n_ab = (a1 + s1 * (1.0 - a2 - s2)) / (1.0 - s1 * s2)
            n_ba = a2 + s2 * (1.0 - n_ab)
        # the bust value of (a, b) is 1 - W(b, a), and it moved by w_ba - n_ba
        if (-m1[0] <= w_ba - n_ba <= m1[1] and -m2[0] <= w_ab - n_ab <= m2[1]) or (
                fabs(n_ab - w_ab) <= tol and fabs(n_ba - w_ba) <= tol):
            w_ab = n_ab
            w_ba = n_ba
            break
        w_ab = n_ab
        w_ba = n_ba
    else:
        evals = -evals  # no convergence: reported to the caller
    win[<Py_ssize_t>a * goal + b] = w_ab
    win[<Py_ssize_t>b * goal + a] = w_ba
    return evals


def solve_race(const int[::1] group_ptr, const double[::1] group_prob, const int[::1] entry_ptr,
               const int[::1] entry_points, const int[::1] entry_slot, const double[::1] entry_q,
               const double[::1] bust_prob, const unsigned char[::1] opening_only,
               const int[::1] entry_offset, const unsigned char[::1] plain, int plain_reach,
               const int[:, ::1] phase_kinds, const int[::1] phase_n_kinds, const int[::1] phase_opening,
               const int[::1] phase_min_bank, int threshold, const double[::1] tail_success,
               double[:, ::1] win, double tol=1e-13, int num_threads=1):
    """Two-player race to ``goal = win.shape[0]`` units: fill ``win[a, b]``, the
    probability that the player to move at banked scores (a, b) wins with both playing
    optimally. Score pairs are solved in decreasing a + b, each diagonal in parallel.

    Returns ``(turn evaluations, turn rows evaluated, unconverged pairs)``.
    """
    cdef Model m = _model(group_ptr, group_prob, entry_ptr, entry_points, entry_slot, entry_q,
                          bust_prob, opening_only, entry_offset, plain, plain_reach)
    cdef Phase phases[2]
    cdef Race race
    cdef int goal = win.shape[0], p, s, a, a_lo, a_hi, evals
    cdef long long total_evals = 0, total_rows = 0, failed = 0
    cdef double* bank = NULL
    cdef double* val = NULL
    cdef double* slope = NULL
    if win.shape[1] != goal or tail_success.shape[0] != m.n_kinds:
        raise ValueError(f"win must be (goal, goal) and tail_success ({m.n_kinds},)")
    for p in range(2):
        phases[p].kinds = &phase_kinds[p, 0]
        phases[p].n_kinds = phase_n_kinds[p]
        phases[p].opening_kind = phase_opening[p]
        phases[p].min_bank = phase_min_bank[p]
    race.goal = goal
    race.threshold = threshold
    race.rows = max(goal, phase_min_bank[0], phase_min_bank[1]) + plain_reach + 1
    race.tail_success = &tail_success[0]
    race.win = &win[0, 0]
    for s in range(2 * (goal - 1), -1, -1):
        a_lo = s - (goal - 1) if s > goal - 1 else 0
        a_hi = s // 2
        with nogil, parallel(num_threads=num_threads):
            bank = <double*>malloc(race.rows * sizeof(double))
            val = <double*>malloc(race.rows * m.n_cols * sizeof(double))
            slope = <double*>malloc(race.rows * m.n_cols * sizeof(double))
            for a in prange(a_lo, a_hi + 1, schedule="dynamic"):
                evals = _solve_pair(&m, phases, &race, a, s - a, tol, bank, val, slope)
                if evals < 0:
                    failed += 1
                    evals = -evals
                total_evals += evals
                # a turn evaluation at scores (c, d) fills goal - c rows; the pair's are split evenly
                total_rows += evals * (2 * goal - s) // 2
            free(bank)
            free(val)
            free(slope)
    return total_evals, total_rows, failed
