# The five-dice keep lattice, declared once for every card kernel (_scorecard, _target,
# _polish_race; the Python side reads the sizes from _scorecard.LATTICE_SIZES).
#
# The 252 sorted outcomes of five dice and the 462 keeps (sub-multisets, the empty keep
# included) in the order of dice_transitions.dice_tables: by size, then lexicographic, so
# the last 252 keeps are the outcomes in outcome order and keeps N_FOUR..N_SMALL-1 hold
# four dice. ``child`` (N_SMALL, 6): keep k plus one die of face f + 1; a keep's children
# come after it.
#
# The sizes are C enum constants (KOCKA_N_OUT, ...) so that the C loops written verbatim
# in the kernels use the same numbers as their Cython code.
from libc.math cimport INFINITY

cdef extern from *:
    """
    enum {
        KOCKA_N_OUT = 252,    /* sorted outcomes of five dice */
        KOCKA_N_KEEP = 462,   /* keeps of 0..5 dice; the last 252 are the outcomes */
        KOCKA_N_SMALL = 210,  /* keeps of 0..4 dice */
        KOCKA_N_FOUR = 84     /* keeps of 0..3 dice */
    };
    """
    enum:
        N_OUT "KOCKA_N_OUT"
        N_KEEP "KOCKA_N_KEEP"
        N_SMALL "KOCKA_N_SMALL"
        N_FOUR "KOCKA_N_FOUR"


cdef inline int popcount(unsigned int x) noexcept nogil:
    """Set bits of a filled-box mask."""
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef inline void keep_stage_arg(const double* top, double* K, double* M, int* Marg, double* proper,
                                int* arg, const int* child) noexcept nogil:
    """Keep values ``K`` (N_KEEP) when the next throw ends in
    ``top`` (per outcome), and for every outcome the best keep strictly inside it: value
    ``proper`` and keep ``arg``. Ties: the larger keep, then the first in keep order: the
    expected-score policy's tie rule, which the forward distribution, the ranking of a
    position (_scorecard) and the policy vectors (_target) must share bit for bit, hence
    this one copy. ``M``/``Marg`` (N_SMALL): scratch for the best sub-keep of each keep."""
    cdef int k, f, c, ak
    cdef double mk
    cdef bint better
    cdef const int* ch
    for k in range(N_OUT):
        K[N_SMALL + k] = top[k]
    # keeps are ordered by size, so children (one die more) come later
    for k in range(N_SMALL - 1, -1, -1):
        ch = child + 6 * k
        K[k] = (K[ch[0]] + K[ch[1]] + K[ch[2]] + K[ch[3]] + K[ch[4]] + K[ch[5]]) * (1.0 / 6.0)
    for k in range(N_SMALL):
        M[k] = K[k]
        Marg[k] = k
    for k in range(N_OUT):
        proper[k] = -INFINITY
        arg[k] = -1
    # the best sub-keep, pushed from each keep to its six children (smaller keeps first);
    # branch-free selects: the comparisons are unpredictable
    for k in range(N_FOUR):
        ch = child + 6 * k
        mk = M[k]
        ak = Marg[k]
        for f in range(6):
            c = ch[f]
            better = mk > M[c]
            M[c] = mk if better else M[c]
            Marg[c] = ak if better else Marg[c]
    for k in range(N_FOUR, N_SMALL):
        ch = child + 6 * k
        mk = M[k]
        ak = Marg[k]
        for f in range(6):
            c = ch[f] - N_SMALL
            better = mk > proper[c]
            proper[c] = mk if better else proper[c]
            arg[c] = ak if better else arg[c]
