# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Push-your-luck turn kernels: one turn's Bellman recursion, and the races of two, three or four.

The within-turn model is compiled in Python (``kocka.solver.solvers.kocka.turn_model.TurnModel``) from the rules
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
cimport cython
from cython.parallel cimport parallel, prange
from libc.math cimport fabs
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np


cdef enum:
    MAX_GROUP = 64  # most choices one roll can offer (checked when a model is passed in)
    MAX_PLAYERS = 4  # the most players the many-player race solves
    MAX_OTHERS = 3   # MAX_PLAYERS - 1


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
    int win_kind              # a kind whose scoring roll wins the game at once (KOCKA-19), or -1


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


# What a turn walk carries besides the mover's value and its slope: nothing with two
# players (the other's chance is 1 - the mover's), the other two players' values with
# three or four. One walk (:func:`_turn_walk`) serves both, specialised at compile time.
cdef struct TwoPlayers:
    char unused               # a C struct needs a member


cdef struct ManyPlayers:
    int n_others              # players besides the mover (2 or 3)
    double X[MAX_OTHERS]      # their bust values, in seat order after the mover
    double* vo                # (rows * n_cols, n_others): their values under the mover's choices


ctypedef fused Others:
    TwoPlayers
    ManyPlayers


# the two-player specialisation leaves the many-player accumulators unused, by design
@cython.warn.unused(False)
cdef void _turn_walk(const Model* m, const Phase* ph, int cap, int clamp_row, double x,
                     const double* bank, double* val, double* slope, double* margin, Others* others) noexcept nogil:
    """Fill rows ``cap-1 .. 0`` of ``val``/``slope``; rows ``cap .. cap + plain_reach``
    (at least) are given.

    ``val`` is the mover's value (maximised), ``x`` his bust value; ``bank[t]`` the value
    of banking turn total ``t`` (slope 0: it never depends on the bust value). With three
    or more players ``bank[n t + i]`` holds player i's (0 the mover) and ``others`` carries
    the others' bust values and receives their values under the mover's choices; the
    slope is common to all (P(bust) under those choices: every value is ``R + slope
    * X`` with X the bust value of its player). Plain kinds read rows directly (the fast
    path: no lottery, no clamping); the others read rows beyond ``clamp_row`` as
    ``clamp_row``. Ties go to the first entry, and to banking.

    With ``margin`` (not NULL, holding two large numbers) the kernel also narrows it to
    the bust values ``[x - margin[0], x + margin[1]]`` over which every choice made stays
    optimal. Within that interval each value is exactly ``val + slope * (x' - x)``: every
    comparison is between functions that are linear there, by induction from the top row.
    """
    cdef int K = m.n_kinds, ncol = m.n_cols, bank_col = 2 * m.n_kinds
    cdef int t, ki, k, g, g_end, e, e0, e1, r, idx, best_idx, i, best_i, base, j, no = 0
    cdef bint plain
    cdef double rv, rb, best, v, q, best_q, best_slope, p, b
    cdef double ro[MAX_OTHERS]  # the others' values of rolling kind k
    cdef double* vo = NULL
    cdef double cand_val[MAX_GROUP]
    cdef double cand_slope[MAX_GROUP]
    cdef int cand_idx[MAX_GROUP]
    cdef Py_ssize_t row
    if Others is ManyPlayers:
        no = others.n_others
        vo = others.vo
    for t in range(cap - 1, -1, -1):
        row = <Py_ssize_t>t * ncol
        if Others is ManyPlayers:
            b = bank[(no + 1) * t]
            for j in range(no):
                vo[no * (row + bank_col) + j] = bank[(no + 1) * t + 1 + j]
        else:
            b = bank[t]
        val[row + bank_col] = b
        slope[row + bank_col] = 0.0
        for ki in range(ph.n_kinds):
            k = ph.kinds[ki]
            if m.opening_only[k] and t != 0:
                continue
            rv = 0.0
            rb = 0.0
            if Others is ManyPlayers:
                for j in range(no):
                    ro[j] = 0.0
            plain = m.plain[k]
            base = t * ncol
            if k == m.win_kind:
                # KOCKA-19: a scoring roll of this kind wins (worth 1), whatever the total
                p = m.bust_prob[k]
                rv = 1.0 - p
                g_end = m.group_ptr[k]  # no groups visited
            else:
                g_end = m.group_ptr[k + 1]
            for g in range(m.group_ptr[k], g_end):
                e0 = m.entry_ptr[g]
                e1 = m.entry_ptr[g + 1]
                best_q = 1.0
                if plain:
                    best_idx = base + m.entry_offset[e0]
                    best = val[best_idx]
                    for e in range(e0 + 1, e1):
                        idx = base + m.entry_offset[e]
                        v = val[idx]
                        if v > best:
                            best = v
                            best_idx = idx
                    best_slope = slope[best_idx]
                    if margin != NULL and e1 - e0 > 1:
                        # the margins against every other choice (one leading to the
                        # same state as the best would narrow nothing)
                        for e in range(e0, e1):
                            idx = base + m.entry_offset[e]
                            if idx != best_idx:
                                _narrow(best - val[idx], best_slope - slope[idx], margin)
                elif margin == NULL or e1 - e0 == 1:
                    best = -1e300
                    best_idx = 0
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
                        if Others is ManyPlayers:
                            cand_idx[i] = idx
                        if cand_val[i] > cand_val[best_i]:
                            best_i = i
                    best = cand_val[best_i]
                    best_slope = cand_slope[best_i]
                    if Others is ManyPlayers:
                        best_idx = cand_idx[best_i]
                        best_q = m.entry_q[e0 + best_i]
                    _narrow_to_best(cand_val, cand_slope, e1 - e0, best_i, margin)
                p = m.group_prob[g]
                rv += p * best
                rb += p * best_slope
                if Others is ManyPlayers:
                    # the others' values where the mover's best choice leads (a lottery
                    # that fails is a bust: worth each his bust value)
                    if plain:
                        for j in range(no):
                            ro[j] += p * vo[no * best_idx + j]
                    else:
                        for j in range(no):
                            ro[j] += p * (best_q * vo[no * best_idx + j] + (1.0 - best_q) * others.X[j])
            p = m.bust_prob[k]
            rv += p * x
            rb += p
            val[row + K + k] = rv
            slope[row + K + k] = rb
            if Others is ManyPlayers:
                for j in range(no):
                    ro[j] += p * others.X[j]
                    vo[no * (row + K + k) + j] = ro[j]
            # the free state: bank (ties go to banking) or roll on
            if t > 0 and t >= ph.min_bank and b >= rv:
                val[row + k] = b
                slope[row + k] = 0.0
                if Others is ManyPlayers:
                    for j in range(no):
                        vo[no * (row + k) + j] = bank[(no + 1) * t + 1 + j]
                if margin != NULL:
                    _narrow(b - rv, -rb, margin)
            else:
                val[row + k] = rv
                slope[row + k] = rb
                if Others is ManyPlayers:
                    for j in range(no):
                        vo[no * (row + k) + j] = ro[j]
                if margin != NULL and t > 0 and t >= ph.min_bank:
                    _narrow(rv - b, rb, margin)


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
    m.win_kind = -1
    return m


cdef class RaceTurn:
    """A compiled turn with its two phases, as the kernels (:func:`turn_values`,
    :func:`solve_race`, :func:`solve_race_ends`, :class:`ManyPlayerKernel`) read it.

    ``turn``: the kernel arrays of the turn (``TurnModel.kernel_args()``); ``phases``:
    ``TurnModel.phase_args()`` (the roll kinds of each phase padded with -1, their number,
    the opening kind and the least bank); ``threshold``: phase 1 from this banked score
    (units); ``tail_success`` (K,): P(some bank | kind k rolled beyond every target);
    ``win_kind``: a kind whose scoring roll wins the game at once (KOCKA-19), or -1."""

    cdef Model model
    cdef Phase phases[2]
    cdef const double* tail_success
    cdef object keep           # the arrays the pointers above point into
    cdef readonly int threshold
    cdef readonly int min_bank  # the larger least bank of the two phases (units)

    def __init__(self, tuple turn, tuple phases, int threshold, const double[::1] tail_success, int win_kind=-1):
        cdef int p
        cdef const int[:, ::1] kinds
        cdef const int[::1] n_kinds, opening, min_bank
        if len(turn) != 11 or len(phases) != 4:
            raise ValueError(f"turn takes the 11 kernel arrays and phases the 4 phase arrays, got {len(turn)} and {len(phases)}")
        kinds, n_kinds, opening, min_bank = phases
        self.model = _model(turn[0], turn[1], turn[2], turn[3], turn[4], turn[5], turn[6], turn[7], turn[8], turn[9],
                            turn[10])
        if not -1 <= win_kind < self.model.n_kinds:
            raise ValueError(f"win_kind must be -1 or a kind index below {self.model.n_kinds}, got {win_kind!r}")
        if tail_success.shape[0] != self.model.n_kinds:
            raise ValueError(f"tail_success must be ({self.model.n_kinds},), got ({tail_success.shape[0]},)")
        if kinds.shape[0] != 2 or n_kinds.shape[0] != 2 or opening.shape[0] != 2 or min_bank.shape[0] != 2:
            raise ValueError("phases must describe two phases")
        self.model.win_kind = win_kind
        self.keep = (turn, phases, tail_success)
        for p in range(2):
            self.phases[p].kinds = &kinds[p, 0]
            self.phases[p].n_kinds = n_kinds[p]
            self.phases[p].opening_kind = opening[p]
            self.phases[p].min_bank = min_bank[p]
        self.threshold = threshold
        self.tail_success = &tail_success[0]
        self.min_bank = max(min_bank[0], min_bank[1])


def turn_values(RaceTurn turn, int phase, int cap, int clamp_row, double x, const double[::1] bank,
                double[:, ::1] val, double[:, ::1] slope):
    """One turn's values in phase ``phase`` (0 or 1) of ``turn`` for every turn total below
    ``cap`` (rows ``>= cap`` of ``val``/``slope`` are the caller's boundary values); see the
    module docstring. A scoring roll of ``turn.win_kind`` is worth 1 (a win)."""
    cdef const Model* m = &turn.model
    cdef TwoPlayers two
    if not 0 <= phase < 2:
        raise ValueError(f"phase must be 0 or 1, got {phase!r}")
    if val.shape[1] != m.n_cols or slope.shape[1] != m.n_cols:
        raise ValueError(f"value arrays need {m.n_cols} columns, got {val.shape[1]!r}")
    if not (0 < cap <= clamp_row < val.shape[0] and cap + m.plain_reach < val.shape[0]) or bank.shape[0] < cap:
        raise ValueError(f"need 0 < cap <= clamp_row < rows, cap + plain_reach < rows and bank rows >= cap; "
                         f"got cap={cap!r}, clamp_row={clamp_row!r}, plain_reach={m.plain_reach!r}, "
                         f"rows={val.shape[0]!r}, bank rows={bank.shape[0]!r}")
    with nogil:
        _turn_walk(m, &turn.phases[phase], cap, clamp_row, x, &bank[0], &val[0, 0], &slope[0, 0], NULL, &two)


# ========================================================================================
# The two-player race, under every end rule (KOCKA-20)
# ========================================================================================
cdef struct Race:
    int goal                  # units a bank must reach to end the race
    int threshold             # phase 1 from this banked score (units)
    int top                   # a leader's banked score is followed exactly below top (units)
    int n_beyond              # length of the last axis of beyond
    const double* tail_success  # (K,) P(some bank | kind k rolled beyond every target)
    double* win0              # (goal, goal): seat 0 to move, P(he wins | own score, other's)
    double* win1              # (goal, goal): seat 1 to move (the same array when the seats are alike)
    const double* beyond      # (2 seats, 2 phases of the other, n_beyond): value to the mover of
                              # banking to (other's score + d) >= goal, when lead[seat]
    int lead0                 # 1: seat 0's banks at the goal start the other's last turn
    int lead1                 # the same for seat 1 (0: a bank reaching the goal wins)
    int symmetric             # win0 is win1


cdef void _seat_values(const Model* m, const Phase* phases, const Race* race, int seat, int me, int other,
                       double x, double* bank, double* val, double* slope, double* out_val, double* out_slope,
                       double* margin) noexcept nogil:
    """The opening value (and its slope in the bust value ``x``) of seat ``seat`` to move
    with banked units ``me`` against ``other``, and the margins of ``x`` within which it is
    exact (see :func:`_turn_walk`)."""
    cdef const Phase* ph = &phases[1 if me >= race.threshold else 0]
    cdef int goal = race.goal
    cdef int cap, t, lead, po, score
    cdef Py_ssize_t off
    cdef double top_value
    cdef const double* nxt = race.win1 if seat == 0 else race.win0
    lead = race.lead0 if seat == 0 else race.lead1
    po = 1 if other >= race.threshold else 0
    off = (<Py_ssize_t>(seat * 2 + po)) * race.n_beyond - other
    if lead:
        cap = race.top - me
        top_value = race.beyond[off + race.top]
    else:
        cap = goal - me
        top_value = 1.0
    if cap < ph.min_bank:
        cap = ph.min_bank
    for t in range(cap):
        score = me + t
        if score < goal:
            bank[t] = 1.0 - nxt[<Py_ssize_t>other * goal + score]
        elif lead:
            bank[t] = race.beyond[off + score]
        else:
            bank[t] = 1.0
    _walk_below_top(m, ph, race.tail_success, cap, top_value, x, bank, val, slope, out_val, out_slope, margin)


cdef void _walk_below_top(const Model* m, const Phase* ph, const double* tail_success, int cap, double top_value,
                          double x, const double* bank, double* val, double* slope, double* out_val,
                          double* out_slope, double* margin) noexcept nogil:
    """The opening value of a turn (and its slope in the bust value ``x``) whose banks of
    ``cap`` units or more are all worth ``top_value``, ``bank[t]`` below; ``margin``: the
    bust values around ``x`` within which it is exact (see :func:`_turn_walk`)."""
    cdef int K = m.n_kinds, ncol = m.n_cols, t, k
    cdef Py_ssize_t row
    cdef double u
    cdef TwoPlayers two
    # beyond the cap any bank is worth top_value, so a roll there is worth P(some bank) of
    # it: the same row for every total, written once and copied
    row = <Py_ssize_t>cap * ncol
    for k in range(K):
        u = (1.0 - m.bust_prob[k]) if k == m.win_kind else tail_success[k]
        val[row + k] = top_value
        slope[row + k] = 0.0
        val[row + K + k] = (u if k == m.win_kind else u * top_value) + (1.0 - u) * x
        slope[row + K + k] = 1.0 - u
    val[row + 2 * K] = top_value
    slope[row + 2 * K] = 0.0
    for t in range(cap + 1, cap + m.plain_reach + 1):
        memcpy(&val[<Py_ssize_t>t * ncol], &val[row], ncol * sizeof(double))
        memcpy(&slope[<Py_ssize_t>t * ncol], &slope[row], ncol * sizeof(double))
    margin[0] = 1e300
    margin[1] = 1e300
    _turn_walk(m, ph, cap, cap, x, bank, val, slope, margin, &two)
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


cdef int _solve_seats(const Model* m, const Phase* phases, const Race* race, int a, int b, double tol,
                      double* bank, double* val, double* slope) noexcept nogil:
    """Solve seat 0 to move at (a, b) together with seat 1 to move at (b, a): a bust hands
    the turn over at the same scores; every other value they need has a larger score sum
    and is known.

    Newton on the piecewise-linear convex turn values: evaluate both turns at the current
    guesses, solve the 2x2 linear system of the policies found. The answer is exact as
    soon as it lies where those policies stay optimal (the kernel's margins), or when the
    iteration stands still. Returns the number of turn evaluations, negative if it did
    not converge."""
    cdef int goal = race.goal, _, evals = 0
    cdef bint single = race.symmetric and a == b
    cdef double w0, w1, n0, n1, a1, a2
    cdef double v1 = 0.0, s1 = 0.0, v2 = 0.0, s2 = 0.0  # written by _seat_values
    cdef double m1[2]
    cdef double m2[2]
    w0 = _guess(race.win0, goal, a, b)
    w1 = _guess(race.win1, goal, b, a)
    for _ in range(100):
        _seat_values(m, phases, race, 0, a, b, 1.0 - w1, bank, val, slope, &v1, &s1, m1)
        evals += 1
        a1 = v1 - s1 * (1.0 - w1)
        if single:
            n0 = (a1 + s1) / (1.0 + s1)
            n1 = n0
            m2[0] = m1[0]
            m2[1] = m1[1]
        else:
            _seat_values(m, phases, race, 1, b, a, 1.0 - w0, bank, val, slope, &v2, &s2, m2)
            evals += 1
            a2 = v2 - s2 * (1.0 - w0)
            n0 = (a1 + s1 * (1.0 - a2 - s2)) / (1.0 - s1 * s2)
            n1 = a2 + s2 * (1.0 - n0)
        # the bust value of seat 0 at (a, b) is 1 - W1(b, a), and it moved by w1 - n1
        if (-m1[0] <= w1 - n1 <= m1[1] and -m2[0] <= w0 - n0 <= m2[1]) or (
                fabs(n0 - w0) <= tol and fabs(n1 - w1) <= tol):
            w0 = n0
            w1 = n1
            break
        w0 = n0
        w1 = n1
    else:
        evals = -evals
    race.win0[<Py_ssize_t>a * goal + b] = w0
    race.win1[<Py_ssize_t>b * goal + a] = w1
    return evals


cdef void _solve_diagonals(const Model* m, const Phase* phases, const Race* race, int rows, double tol,
                           int num_threads, long long* counts) noexcept:
    """Solve every score pair in decreasing a + b, each diagonal in parallel (a pair reads
    only larger sums); ``rows``: the rows of a work array. ``counts``: turn evaluations,
    turn rows evaluated (counted for the race without a lead, where a turn at scores (c, d)
    fills goal - c rows), unconverged pairs."""
    cdef int goal = race.goal, s, a, a_lo, a_hi, evals
    cdef long long total_evals = 0, total_rows = 0, failed = 0
    cdef double* bank = NULL
    cdef double* val = NULL
    cdef double* slope = NULL
    for s in range(2 * (goal - 1), -1, -1):
        a_lo = s - (goal - 1) if s > goal - 1 else 0
        a_hi = s // 2 if race.symmetric else min(s, goal - 1)
        with nogil, parallel(num_threads=num_threads):
            bank = <double*>malloc(rows * sizeof(double))
            val = <double*>malloc(rows * m.n_cols * sizeof(double))
            slope = <double*>malloc(rows * m.n_cols * sizeof(double))
            for a in prange(a_lo, a_hi + 1, schedule="dynamic"):
                evals = _solve_seats(m, phases, race, a, s - a, tol, bank, val, slope)
                if evals < 0:
                    failed += 1
                    evals = -evals
                total_evals += evals
                # the pair's rows are split evenly between its two turns
                total_rows += evals * (2 * goal - s) // 2
            free(bank)
            free(val)
            free(slope)
    counts[0] = total_evals
    counts[1] = total_rows
    counts[2] = failed


def solve_race(RaceTurn turn, double[:, ::1] win, double tol=1e-13, int num_threads=1):
    """Two-player race to ``goal = win.shape[0]`` units: fill ``win[a, b]``, the
    probability that the player to move at banked scores (a, b) wins with both playing
    optimally (a bank reaching the goal wins: ``turn.win_kind`` is not read). Score pairs
    are solved in decreasing a + b, each diagonal in parallel; the seats are alike (one
    table, :func:`solve_race_ends` without a lead).

    Returns ``(turn evaluations, turn rows evaluated, unconverged pairs)``.
    """
    cdef Model m = turn.model
    cdef Race race
    cdef int goal = win.shape[0]
    cdef long long counts[3]
    if win.shape[1] != goal:
        raise ValueError(f"win must be (goal, goal), got ({win.shape[0]}, {win.shape[1]})")
    m.win_kind = -1
    race.goal = goal
    race.threshold = turn.threshold
    race.top = 0
    race.n_beyond = 0
    race.tail_success = turn.tail_success
    race.win0 = &win[0, 0]
    race.win1 = &win[0, 0]
    race.beyond = NULL
    race.lead0 = 0
    race.lead1 = 0
    race.symmetric = 1
    _solve_diagonals(&m, turn.phases, &race, max(goal, turn.min_bank) + m.plain_reach + 1, tol, num_threads, counts)
    return counts[0], counts[1], counts[2]


def solve_race_ends(RaceTurn turn, double[:, ::1] win0, double[:, ::1] win1, const double[:, :, ::1] beyond,
                    int lead0, int lead1, int top, double tol=1e-13, int num_threads=1):
    """Two-player race under any end rule (KOCKA-20): fill ``win0[a, b]`` (seat 0 to move
    with a against b) and ``win1[b, a]`` (seat 1 to move). A bank of seat s reaching the
    goal wins when ``lead_s`` is 0; otherwise it is worth ``beyond[s, phase of the other,
    other + d]`` for a banked score of other + d (the other's last turn decides), followed
    exactly below ``top``. Pass the same array twice when the seats are alike (then
    ``beyond[0] == beyond[1]`` and ``lead0 == lead1``). Pairs are solved in decreasing
    a + b, each diagonal in parallel.

    Returns ``(turn evaluations, unconverged pairs)``.
    """
    cdef const Model* m = &turn.model
    cdef Race race
    cdef int goal = win0.shape[0]
    cdef long long counts[3]
    cdef bint symmetric = &win0[0, 0] == &win1[0, 0]
    if win0.shape[1] != goal or win1.shape[0] != goal or win1.shape[1] != goal:
        raise ValueError(f"win0 and win1 must be (goal, goal), got ({win0.shape[0]}, {win0.shape[1]}) "
                         f"and ({win1.shape[0]}, {win1.shape[1]})")
    if (lead0 or lead1) and (top <= goal + turn.min_bank
                             or beyond.shape[0] != 2 or beyond.shape[1] != 2 or beyond.shape[2] <= top):
        raise ValueError(f"a leader's turn needs top > goal + the minimum bank and beyond of shape (2, 2, > top), "
                         f"got top={top!r}, beyond ({beyond.shape[0]}, {beyond.shape[1]}, {beyond.shape[2]})")
    if symmetric and lead0 != lead1:
        raise ValueError("one table for both seats needs the same end for both")
    race.goal = goal
    race.threshold = turn.threshold
    race.top = top
    race.n_beyond = beyond.shape[2] if (lead0 or lead1) else 0
    race.tail_success = turn.tail_success
    race.win0 = &win0[0, 0]
    race.win1 = &win1[0, 0]
    race.beyond = &beyond[0, 0, 0] if (lead0 or lead1) else NULL
    race.lead0 = lead0
    race.lead1 = lead1
    race.symmetric = symmetric
    _solve_diagonals(m, turn.phases, &race, max(top if (lead0 or lead1) else goal, turn.min_bank) + m.plain_reach + 1,
                     tol, num_threads, counts)
    return counts[0], counts[2]


# ========================================================================================
# The best reply of one player to two opponents of fixed policies (three players)
# ========================================================================================
cdef struct Reply3:
    int goal
    int threshold
    const double* tail_success
    const double* move_next   # (goal, goal): P(the next player banks t units from score b), t >= 1
    const double* stay_next   # (goal,): P(his score stays)
    const double* move_last   # the same for the last player
    const double* stay_last
    double* mine              # (goal,)^3 [a, b, c]: P(I win | my turn), me a, next b, last c
    double* to_next           # P(I win | the next player's turn), the same scores
    double* to_last           # P(I win | the last player's turn)


cdef int _solve_reply_triple(const Model* m, const Phase* phases, const Reply3* r, int a, int b, int c,
                             double tol, double* bank, double* val, double* slope) noexcept nogil:
    """Solve the triple (a, b, c): a bust of mine hands the turn on at the same scores, and
    so does each opponent's stay, so P(I win | my turn) is a fixed point ``v = f(k + s v)``
    (f my turn's opening value in its bust value, k what the opponents' moves to larger
    totals give, s the chance both stay); every other value it needs has a larger total.
    Newton steps as in :func:`_solve_seats`. Returns the turn evaluations, negative if
    they did not settle."""
    cdef int goal = r.goal, t, cap, evals = 0, _
    cdef Py_ssize_t G2 = <Py_ssize_t>goal * goal, here = a * G2 + <Py_ssize_t>b * goal + c
    cdef const Phase* ph = &phases[1 if a >= r.threshold else 0]
    cdef double moved_last = 0.0, moved_next = 0.0, k, s, w, x, v = 0.0, dv = 0.0, n
    cdef double margin[2]
    for t in range(1, goal - c):
        moved_last += r.move_last[<Py_ssize_t>c * goal + t] * r.mine[here + t]
    for t in range(1, goal - b):
        moved_next += r.move_next[<Py_ssize_t>b * goal + t] * r.to_last[here + t * goal]
    k = moved_next + r.stay_next[b] * moved_last
    s = r.stay_next[b] * r.stay_last[c]
    cap = goal - a
    if cap < ph.min_bank:
        cap = ph.min_bank
    bank[0] = 0.0  # a turn total of 0 is never banked
    for t in range(1, cap):
        bank[t] = r.to_next[here + t * G2] if a + t < goal else 1.0
    w = r.mine[here + G2] if a + 1 < goal else 0.5
    for _ in range(100):
        x = k + s * w
        _walk_below_top(m, ph, r.tail_success, cap, 1.0, x, bank, val, slope, &v, &dv, margin)
        evals += 1
        n = (v - dv * x + dv * k) / (1.0 - dv * s)
        if -margin[0] <= s * (n - w) <= margin[1] or fabs(n - w) <= tol:
            w = n
            break
        w = n
    else:
        evals = -evals
    r.mine[here] = w
    r.to_last[here] = moved_last + r.stay_last[c] * w
    r.to_next[here] = moved_next + r.stay_next[b] * r.to_last[here]
    return evals


def solve_reply_three(RaceTurn turn, const double[:, ::1] move_next, const double[::1] stay_next,
                      const double[:, ::1] move_last, const double[::1] stay_last, double[:, :, ::1] mine,
                      double[:, :, ::1] to_next, double[:, :, ::1] to_last, double tol=1e-13, int num_threads=1):
    """The best reply of one player (me) to two opponents whose turns are fixed chains, three
    players, a bank reaching ``goal = mine.shape[0]`` units winning at once: fill ``mine[a,
    b, c]`` (my turn, banked units a; the next player's b; the last's c), ``to_next`` (the
    next player's turn) and ``to_last`` (the last's), each my P(win). An opponent at score
    b banks t units with ``move[b, t]`` (t >= 1, below the goal), stays with ``stay[b]``,
    and reaches the goal with the rest. Triples are solved in decreasing a + b + c, those of
    one total in parallel.

    Returns ``(turn evaluations, unconverged triples)``.
    """
    cdef Model m = turn.model
    cdef Reply3 r
    cdef int goal = mine.shape[0], total, a, b, evals, a_lo, a_hi, rows
    cdef long long total_evals = 0, failed = 0
    cdef double* bank = NULL
    cdef double* val = NULL
    cdef double* slope = NULL
    for name, arr in (("to_next", to_next), ("to_last", to_last), ("mine", mine)):
        if tuple(arr.shape[:3]) != (goal, goal, goal):
            raise ValueError(f"{name} must be ({goal}, {goal}, {goal}), got {tuple(arr.shape[:3])}")
    for name, arr in (("move_next", move_next), ("move_last", move_last)):
        if tuple(arr.shape[:2]) != (goal, goal):
            raise ValueError(f"{name} must be ({goal}, {goal}), got {tuple(arr.shape[:2])}")
    if stay_next.shape[0] != goal or stay_last.shape[0] != goal:
        raise ValueError(f"stay_next and stay_last must be ({goal},)")
    m.win_kind = -1
    r.goal = goal
    r.threshold = turn.threshold
    r.tail_success = turn.tail_success
    r.move_next = &move_next[0, 0]
    r.stay_next = &stay_next[0]
    r.move_last = &move_last[0, 0]
    r.stay_last = &stay_last[0]
    r.mine = &mine[0, 0, 0]
    r.to_next = &to_next[0, 0, 0]
    r.to_last = &to_last[0, 0, 0]
    rows = max(goal, turn.min_bank) + m.plain_reach + 1
    for total in range(3 * (goal - 1), -1, -1):
        a_lo = total - 2 * (goal - 1) if total > 2 * (goal - 1) else 0
        a_hi = min(total, goal - 1)
        with nogil, parallel(num_threads=num_threads):
            bank = <double*>malloc(rows * sizeof(double))
            val = <double*>malloc(rows * m.n_cols * sizeof(double))
            slope = <double*>malloc(rows * m.n_cols * sizeof(double))
            for a in prange(a_lo, a_hi + 1, schedule="dynamic"):
                for b in range(max(0, total - a - (goal - 1)), min(goal - 1, total - a) + 1):
                    evals = _solve_reply_triple(&m, turn.phases, &r, a, b, total - a - b, tol, bank, val, slope)
                    if evals < 0:
                        failed += 1
                        evals = -evals
                    total_evals += evals
            free(bank)
            free(val)
            free(slope)
    return total_evals, failed


# ========================================================================================
# The game of three or four players (KOCKA-1, KOCKA-3, kocka.end = immediate)
# ========================================================================================
# A position s = (s_0, .., s_{n-1}): s_0 is the player to move, s_1 moves next, and so on.
# W[s, i] is the probability that player i of that order wins (i = 0 the mover), every
# player maximising his own. A bank of t hands the turn to s_1 at (s_1, .., s_{n-1},
# s_0 + t) (the mover becomes the last of the order), a bust at (s_1, .., s_{n-1}, s_0).
# Rotation (P u)_c = u_{c-1 mod n} maps the values at the next position onto the order of s.
cdef struct RaceN:
    int goal
    int players
    int threshold
    int rows
    const double* tail_success
    double* w                 # (goal,) * players + (players,), flat


# the non-empty subsets of MAX_PLAYERS axes by size, then in lexicographic order: the
# inclusion-exclusion of :func:`_guess_many` in this order (for three players: x, y, z,
# xy, xz, yz, xyz) keeps its sums in one fixed order
cdef int SUBSETS[15]
SUBSETS[:] = [1, 2, 4, 8, 3, 5, 9, 6, 10, 12, 7, 11, 13, 14, 15]


cdef inline Py_ssize_t _index(const int* s, int n, int goal) noexcept nogil:
    """The offset of position ``s`` in the flat table."""
    cdef Py_ssize_t at = 0
    cdef int j
    for j in range(n):
        at = at * goal + s[j]
    return at * n


cdef int _state_many(const Model* models, const Phase* phases, const RaceN* race, const int* s,
                     const double* X, double* bank, double* v0, double* vo, double* sl,
                     double* out, double* margin) noexcept nogil:
    """Evaluate the turn of the mover at ``s`` with bust values ``X`` (in the order of s):
    ``out`` = (the n players' opening values, slope, 1 if every set-aside had to be a choice
    else 0); ``margin`` as in :func:`_turn_walk`. Returns the number of rows evaluated.

    ``models[0]`` keeps only the most points for each number of dice left, ``models[1]``
    every set-aside (same kinds and slots). The first is exact whenever the mover's bank
    values do not fall as the total grows: then no value of the turn falls with the total
    (a bank allowed at t is allowed later, and beyond the cap every bank wins), so the most
    points are always among the best choices, for every bust value. Falls of bank values
    below 1e-13 (rounding noise where the minimum bank makes scores equivalent) are
    ignored: the pruned choice then loses at most that much."""
    cdef const Model* m = &models[0]
    cdef int n = race.players, no = race.players - 1, x = s[0]
    cdef const Phase* ph = &phases[1 if x >= race.threshold else 0]
    cdef int goal = race.goal, K = models[0].n_kinds, ncol = models[0].n_cols, cap, t, k, score, j
    cdef Py_ssize_t row, line = 0
    cdef double u
    cdef ManyPlayers others
    for j in range(1, n):
        line = line * goal + s[j]
    line = line * goal * n
    cap = goal - x
    if cap < ph.min_bank:
        cap = ph.min_bank
    for t in range(cap):
        score = x + t
        if score < goal:
            # banking hands the turn to s_1 at (s_1, .., x + t): the mover is the last there
            bank[n * t] = race.w[line + n * score + no]
            for j in range(1, n):
                bank[n * t + j] = race.w[line + n * score + j - 1]
        else:
            bank[n * t] = 1.0
            for j in range(1, n):
                bank[n * t + j] = 0.0
    out[n + 1] = 0.0
    for t in range(1, cap):
        # scores the minimum bank makes equivalent (within 350 of the target, say) carry
        # rounding noise of a few 1e-16: a fall below 1e-13 costs at most that, once
        if bank[n * t] < bank[n * (t - 1)] - 1e-13:
            m = &models[1]
            out[n + 1] = 1.0
            break
    for t in range(cap, cap + max(models[0].plain_reach, models[1].plain_reach) + 1):
        row = <Py_ssize_t>t * ncol
        for k in range(K):
            v0[row + k] = 1.0
            sl[row + k] = 0.0
            u = (1.0 - m.bust_prob[k]) if k == m.win_kind else race.tail_success[k]
            v0[row + K + k] = u + (1.0 - u) * X[0]
            sl[row + K + k] = 1.0 - u
            for j in range(no):
                vo[no * (row + k) + j] = 0.0
                vo[no * (row + K + k) + j] = (1.0 - u) * X[j + 1]
        v0[row + 2 * K] = 1.0
        sl[row + 2 * K] = 0.0
        for j in range(no):
            vo[no * (row + 2 * K) + j] = 0.0
    margin[0] = 1e300
    margin[1] = 1e300
    others.n_others = no
    for j in range(no):
        others.X[j] = X[j + 1]
    others.vo = vo
    _turn_walk(m, ph, cap, cap, X[0], bank, v0, sl, margin, &others)
    k = K + ph.opening_kind
    out[0] = v0[k]
    for j in range(no):
        out[1 + j] = vo[no * k + j]
    out[n] = sl[k]
    return cap


cdef void _guess_many(const double* w, int goal, int n, const int* s, double* out) noexcept nogil:
    """W(s) extrapolated from solved neighbours (one coordinate or more larger): the
    inclusion-exclusion over the coordinates that can grow."""
    cdef int i, a, mask, bits, free_axes = 0
    cdef int t[MAX_PLAYERS]
    cdef Py_ssize_t at
    for a in range(n):
        if s[a] + 1 < goal:
            free_axes |= 1 << a
    for i in range(n):
        out[i] = 0.0
    if free_axes == 0:
        for i in range(n):
            out[i] = 1.0 / n
        return
    for i in range(15):
        mask = SUBSETS[i]
        if mask & ~free_axes:
            continue
        bits = 0
        for a in range(n):
            t[a] = s[a] + ((mask >> a) & 1)
            bits += (mask >> a) & 1
        at = _index(t, n, goal)
        for a in range(n):
            if bits & 1:
                out[a] = out[a] + w[at + a]
            else:
                out[a] = out[a] - w[at + a]


cdef inline void _rot(int n, const double* u, double* out) noexcept nogil:
    """P u: values in the order of the next position -> the order of this one."""
    cdef int c
    out[0] = u[n - 1]
    for c in range(1, n):
        out[c] = u[c - 1]


cdef void _cycle_many(int n, int period, const double* R, const double* beta, double* W) noexcept nogil:
    """Solve W_i = R_i + beta_i P W_{i+1} (indices mod ``period``, the class's number of
    positions; P^n = 1) for fixed policies: W_0 = (R_0 + b_0 P R_1 + b_0 b_1 P^2 R_2 + ..)
    / (1 - b_0 b_1 .. b_{n-1}) and its rotations."""
    cdef int i, c, k, src
    cdef double d, prod, coef, acc
    prod = beta[0]
    for k in range(1, n):
        prod = prod * beta[k % period]
    d = 1.0 - prod
    for i in range(period):
        for c in range(n):
            acc = R[n * i + c]
            coef = 1.0
            for k in range(1, n):
                coef = beta[i] if k == 1 else coef * beta[(i + k - 1) % period]
                src = n * ((i + k) % period)
                acc = acc + coef * R[src + (c - k + n) % n]  # (P^k R_{i+k})_c
            W[n * i + c] = acc / d


cdef int _period(const int* s, int n) noexcept nogil:
    """The number of distinct positions in the rotation class of ``s``."""
    cdef int r, c
    cdef bint same
    for r in range(1, n):
        if n % r:
            continue
        same = True
        for c in range(n):
            if s[c] != s[(c + r) % n]:
                same = False
                break
        if same:
            return r
    return n


cdef int _solve_class_many(const Model* models, const Phase* phases, const RaceN* race, const int* s0,
                           double tol, int max_iter, double* bank, double* v0, double* vo, double* sl,
                           long long* rows, long long* full) noexcept nogil:
    # rows[0], full[0]: turn rows evaluated, evaluations with every set-aside (added to)
    """Solve the rotation class of ``s0`` (a bust hands the turn round it): Newton steps as
    in :func:`_solve_seats`, the fixed policies' cycle solved by :func:`_cycle_many`,
    exact once every new bust value lies within its margins. Returns the number of turn
    evaluations, negative if it did not settle (then the last iterate is stored and the
    caller resolves the class)."""
    cdef int goal = race.goal, n = race.players, period, i, j, c, _, evals = 0
    cdef int s[MAX_PLAYERS * MAX_PLAYERS]
    cdef double W[MAX_PLAYERS * MAX_PLAYERS]
    cdef double Wn[MAX_PLAYERS * MAX_PLAYERS]
    cdef double R[MAX_PLAYERS * MAX_PLAYERS]
    cdef double beta[MAX_PLAYERS]
    cdef double X[MAX_PLAYERS]
    cdef double out[MAX_PLAYERS + 2]
    cdef double mg[2 * MAX_PLAYERS]
    cdef bint inside, still
    cdef double* w = race.w
    cdef Py_ssize_t at
    period = _period(s0, n)
    for i in range(period):
        for c in range(n):
            s[n * i + c] = s0[(c + i) % n]
        _guess_many(w, goal, n, &s[n * i], &W[n * i])
    for _ in range(max_iter):
        for i in range(period):
            j = (i + 1) % period
            _rot(n, &W[n * j], X)
            rows[0] += _state_many(models, phases, race, &s[n * i], X, bank, v0, vo, sl, out, &mg[2 * i])
            full[0] += <long long>out[n + 1]
            evals += 1
            beta[i] = out[n]
            for c in range(n):
                R[n * i + c] = out[c] - out[n] * X[c]
        _cycle_many(n, period, R, beta, Wn)
        inside = True
        still = True
        for i in range(period):
            j = (i + 1) % period
            # the mover's own bust value is W_{i+1}[n-1]; it moves from W to Wn
            if not (-mg[2 * i] <= Wn[n * j + n - 1] - W[n * j + n - 1] <= mg[2 * i + 1]):
                inside = False
            for c in range(n):
                if fabs(Wn[n * i + c] - W[n * i + c]) > tol:
                    still = False
        for i in range(n * period):
            W[i] = Wn[i]
        if inside or still:
            break
    else:
        evals = -evals
    for i in range(period):
        at = _index(&s[n * i], n, goal)
        for c in range(n):
            w[at + c] = W[n * i + c]
    return evals


cdef class ManyPlayerKernel:
    """The compiled turn model bound to a table ``w`` of three or four players, shape
    (goal,) * n + (n,).

    :meth:`solve_classes` solves rotation classes in parallel (OpenMP); :meth:`evaluate`
    values one turn at given bust values (for the mixed classes, the checks and the
    hints)."""

    cdef Model models[2]
    cdef Phase phases[2]
    cdef RaceN race
    cdef object keep           # the two RaceTurns and the table, which hold the arrays the pointers point into
    cdef const double[::1] w
    cdef readonly int goal, players, rows, n_cols
    cdef readonly bint writable  # may solve_classes write into w (a loaded table is read-only)

    def __init__(self, RaceTurn pruned, RaceTurn full, w, bint writable=True):
        """``pruned``: the turn keeping the most points for each number of dice left, and
        ``full`` the same turn with every set-aside a choice (same kinds, slots, phases,
        threshold and win kind; the phases and tails are read from ``full``); see
        :func:`_state_many`. ``w``: a C-contiguous float64 array (goal,) * n + (n,), n = 3
        or 4. ``writable``: whether :meth:`solve_classes` may write into ``w`` (pass False
        for a loaded, read-only table: :meth:`evaluate` only reads)."""
        if pruned.model.n_kinds != full.model.n_kinds or pruned.threshold != full.threshold:
            raise ValueError("the pruned and the full turn must have the same kinds and threshold")
        if pruned.model.win_kind != full.model.win_kind:
            raise ValueError(f"the pruned and the full turn must have the same win kind, got "
                             f"{pruned.model.win_kind} and {full.model.win_kind}")
        shape = tuple(w.shape)
        n = len(shape) - 1
        if not (3 <= n <= MAX_PLAYERS and shape[n] == n and len(set(shape[:n])) == 1):
            raise ValueError(f"w must be (goal,) * n + (n,) for n = 3 or 4 players, got {shape}")
        if w.dtype != np.float64 or not w.flags.c_contiguous:
            raise ValueError("w must be a C-contiguous float64 array")
        self.models[0] = pruned.model
        self.models[1] = full.model
        self.phases[0] = full.phases[0]
        self.phases[1] = full.phases[1]
        self.keep = (pruned, full, w)
        self.w = w.reshape(-1)
        self.goal = shape[0]
        self.players = n
        self.n_cols = self.models[0].n_cols
        self.rows = max(self.goal, full.min_bank) + max(self.models[0].plain_reach, self.models[1].plain_reach) + 1
        self.race.goal = self.goal
        self.race.players = n
        self.race.threshold = full.threshold
        self.race.rows = self.rows
        self.race.tail_success = full.tail_success
        self.writable = writable
        self.race.w = <double*>&self.w[0]  # written only by solve_classes, which needs writable

    def solve_classes(self, const int[:, ::1] classes, int[::1] status, long long[::1] rows_done,
                      long long[::1] full_done, double tol=1e-13, int max_iter=60, int num_threads=1):
        """Solve the rotation classes ``classes[i]`` (a position each; independent of each
        other: every bank they read is solved); ``status[i]`` = turn evaluations, negative
        where the class did not settle; ``rows_done[i]`` the turn rows evaluated,
        ``full_done[i]`` the evaluations that needed every set-aside as a choice."""
        cdef Py_ssize_t i, n = classes.shape[0]
        cdef int rows = self.rows, ncol = self.n_cols, np_ = self.players, c
        cdef double* bank = NULL
        cdef double* v0 = NULL
        cdef double* vo = NULL
        cdef double* sl = NULL
        if not self.writable:
            raise ValueError("this kernel's table is read-only; solve into a writable array")
        if classes.shape[1] != np_ or status.shape[0] < n or rows_done.shape[0] < n or full_done.shape[0] < n:
            raise ValueError(f"classes must be (n, {np_}), status, rows_done and full_done at least (n,)")
        for i in range(n):
            for c in range(np_):
                if not (0 <= classes[i, c] < self.goal):
                    raise ValueError(f"class {i} has scores outside 0..{self.goal - 1}")
        with nogil, parallel(num_threads=num_threads):
            bank = <double*>malloc(np_ * rows * sizeof(double))
            v0 = <double*>malloc(rows * ncol * sizeof(double))
            vo = <double*>malloc((np_ - 1) * rows * ncol * sizeof(double))
            sl = <double*>malloc(rows * ncol * sizeof(double))
            for i in prange(n, schedule="dynamic"):
                rows_done[i] = 0
                full_done[i] = 0
                status[i] = _solve_class_many(self.models, self.phases, &self.race, &classes[i, 0], tol, max_iter,
                                              bank, v0, vo, sl, &rows_done[i], &full_done[i])
            free(bank)
            free(v0)
            free(vo)
            free(sl)

    def evaluate(self, *args, values=None):
        """``evaluate(*scores, *bust_values)``: the turn of the mover at ``scores`` (n of
        them) with the n bust values in that order: ``(v_0, .., v_{n-1}, slope,
        margin_below, margin_above)`` of the opening roll. With ``values`` (a tuple of n + 1
        (rows, n_cols) float64 arrays): every turn state's n values and slope, rows up to
        the cap filled; returns also the cap."""
        cdef int rows = self.rows, ncol = self.n_cols, cap, n = self.players, c
        cdef int s[MAX_PLAYERS]
        cdef double X[MAX_PLAYERS]
        cdef double out[MAX_PLAYERS + 2]
        cdef double mg[2]
        if len(args) != 2 * n:
            raise ValueError(f"evaluate takes {n} scores and {n} bust values, got {len(args)} numbers")
        for c in range(n):
            s[c] = args[c]
            X[c] = args[n + c]
            if not (0 <= s[c] < self.goal):
                raise ValueError(f"scores must be in 0..{self.goal - 1}, got {args[:n]!r}")
        bank = np.empty(n * rows)
        v0 = np.empty(rows * ncol)
        vo = np.empty((n - 1) * rows * ncol)
        sl = np.empty(rows * ncol)
        cdef double[::1] b_ = bank
        cdef double[::1] v0_ = v0
        cdef double[::1] vo_ = vo
        cdef double[::1] sl_ = sl
        with nogil:
            cap = _state_many(self.models, self.phases, &self.race, s, X, &b_[0], &v0_[0], &vo_[0], &sl_[0], out, mg)
        head = tuple(out[c] for c in range(n + 1)) + (mg[0], mg[1])
        if values is not None:
            if len(values) != n + 1:
                raise ValueError(f"values must be {n + 1} arrays")
            if values[0].shape[0] < rows or values[0].shape[1] != ncol:
                raise ValueError(f"value arrays must be ({rows}, {ncol})")
            top = cap + max(self.models[0].plain_reach, self.models[1].plain_reach) + 1
            values[0][:top, :] = v0.reshape(rows, ncol)[:top]
            others = vo.reshape(rows, ncol, n - 1)
            for c in range(n - 1):
                values[1 + c][:top, :] = others[:top, :, c]
            values[n][:top, :] = sl.reshape(rows, ncol)[:top]
            return head + (cap,)
        return head
