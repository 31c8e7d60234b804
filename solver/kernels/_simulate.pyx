# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Whole games of the expected-score policy of the five-dice scorecard games, played in
compiled code (``solvers/scorecard/simulate.py``): the arena's fast path for the ``optimal``
agent.

**The same games as the engine.** The arena rolls every throw from its own generator
(:class:`kocka.agents.bots.base.ChanceSampler`): Python's ``random.Random`` seeded with
``derive_seed("chance", game_seed, ("turn", seat, boxes filled, throws made))`` (a BLAKE2b
digest of that text, 8 bytes, big-endian, halved), the rolled dice drawn one by one as
``randint(1, 6)``. This file does the same in C: BLAKE2b (RFC 7693) of the same text,
CPython's MT19937 seeding (``init_by_array`` over the seed's 32-bit words, low word first)
and ``randint(1, 6)`` as CPython draws it (``getrandbits(3)`` until below 6), so every roll
shows the engine's dice. :func:`roll_seed` and :func:`roll_dice` expose both steps to the
tests, which compare them with ``derive_seed`` and ``random.Random``.

**The same decisions as** ``ranking.rank``. A state is (mask, tracker class, flag) as in
``_scorecard``; a turn values every fill and keep from the table's values exactly as
``_scorecard.TurnTables`` does: the same code, the fills of ``scorecard_fill.pxd`` and the
keep lattice of ``keep_lattice.pxd``, so the same floating-point operations in the same
order. It takes the first best action of rank's order:
fills by box (so a fill wins a tie with a keep), then the keeps of the outcome, larger
first, then in keep order (``okeep``, made by the Python side). Games whose turn may be
played in several box groups (the SK declaration) are not played here.

**The levels** (``kocka.agents.bots.levels``, ``level:N``): the same ranking, every action
with its value in rank's order (a stable sort, best first, the points so far added), and
the softmax choice of ``LevelAgent.choose`` made by the same floating-point operations
(libm's ``exp``, the sums added in order) from one ``random.random()`` per decision of the
level's own stream: ``random.Random(agent seed)``, seeded as one more lane beside the
game's rolls and read two words per draw as CPython reads them.

Everything runs without the GIL on the caller's arrays; the Python side splits the games
between threads.
"""
from libc.math cimport INFINITY, exp, floor
from libc.stdlib cimport free, malloc

from keep_lattice cimport N_KEEP, N_OUT, N_SMALL, popcount
from scorecard_fill cimport (
    MAX_BOXES, BoxSucc, Problem, _problem, fill_move, fill_value, group_fills, i64, turn_keep_stages,
)

ctypedef unsigned long long u64
ctypedef unsigned int u32

cdef extern from *:
    """
    #include <stdint.h>
    #include <stdio.h>
    #include <string.h>

    /* BLAKE2b (RFC 7693), unkeyed, 8-byte digest, of a message of at most 128 bytes (one
       block): what hashlib.blake2b(text, digest_size=8) gives for the arena's seed texts. */
    static const uint64_t kocka_b2_iv[8] = {
        0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
        0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
    static const unsigned char kocka_b2_sigma[10][16] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
        {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
        {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
        {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
        {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
        {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
        {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
        {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
        {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0}};
    static inline uint64_t kocka_rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }
    #define KOCKA_B2_G(a, b, c, d, x, y) do { \\
        v[a] = v[a] + v[b] + (x); v[d] = kocka_rotr64(v[d] ^ v[a], 32); \\
        v[c] = v[c] + v[d]; v[b] = kocka_rotr64(v[b] ^ v[c], 24); \\
        v[a] = v[a] + v[b] + (y); v[d] = kocka_rotr64(v[d] ^ v[a], 16); \\
        v[c] = v[c] + v[d]; v[b] = kocka_rotr64(v[b] ^ v[c], 63); } while (0)

    /* The first 8 digest bytes read as a big-endian number, or 0 for a message too long. */
    static uint64_t kocka_blake2b_8(const char *text, int len) {
        uint64_t h0, v[16], m[16];
        unsigned char block[128];
        int r, i;
        if (len < 0 || len > 128) return 0;
        memset(block, 0, sizeof block);
        memcpy(block, text, (size_t)len);
        for (i = 0; i < 16; i++) {
            uint64_t w = 0;
            for (int j = 7; j >= 0; j--) w = (w << 8) | block[8 * i + j];
            m[i] = w;
        }
        for (i = 0; i < 8; i++) { v[i] = kocka_b2_iv[i]; v[i + 8] = kocka_b2_iv[i]; }
        v[0] ^= 0x01010000ULL ^ 8ULL;   /* parameter block: digest 8 bytes, no key, fanout and depth 1 */
        h0 = v[0];
        v[12] ^= (uint64_t)len;         /* the byte counter */
        v[14] = ~v[14];                 /* the last block */
        for (r = 0; r < 12; r++) {
            const unsigned char *s = kocka_b2_sigma[r % 10];
            KOCKA_B2_G(0, 4, 8, 12, m[s[0]], m[s[1]]);
            KOCKA_B2_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
            KOCKA_B2_G(2, 6, 10, 14, m[s[4]], m[s[5]]);
            KOCKA_B2_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
            KOCKA_B2_G(0, 5, 10, 15, m[s[8]], m[s[9]]);
            KOCKA_B2_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
            KOCKA_B2_G(2, 7, 8, 13, m[s[12]], m[s[13]]);
            KOCKA_B2_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
        }
        h0 ^= v[0] ^ v[8];
        return __builtin_bswap64(h0);   /* the digest's bytes are h0's, little-endian */
    }

    /* derive_seed("chance", game_seed, ("turn", seat, filled, throw)) */
    static int64_t kocka_roll_seed(int64_t game_seed, int seat, int filled, int throw_) {
        char text[160];
        int len = snprintf(text, sizeof text, "chance/%lld/('turn', %d, %d, %d)",
                           (long long)game_seed, seat, filled, throw_);
        return (int64_t)(kocka_blake2b_8(text, len) >> 1);
    }

    /* CPython's Mersenne Twister (Modules/_randommodule.c): seeded from a non-negative
       integer of at most 64 bits, words made on demand (a roll reads a handful of the 624
       of its first block; each is the twist of that position, in order). */
    typedef struct { uint32_t mt[624]; int made; int next; } kocka_mt;
    static uint32_t kocka_mt_start[624];   /* init_genrand(19650218), the start of every seeding */

    static void kocka_mt_prepare(void) {
        kocka_mt_start[0] = 19650218U;
        for (int i = 1; i < 624; i++)
            kocka_mt_start[i] = 1812433253U * (kocka_mt_start[i - 1] ^ (kocka_mt_start[i - 1] >> 30)) + (uint32_t)i;
    }

    static void kocka_mt_seed(kocka_mt *g, uint64_t seed) {
        uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        int key_length = (seed >> 32) ? 2 : 1;   /* CPython: the words of abs(seed), at least one */
        uint32_t *mt = g->mt;
        int i = 1, j = 0, k;
        memcpy(mt, kocka_mt_start, sizeof kocka_mt_start);
        for (k = 624; k; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
            i++; j++;
            if (i >= 624) { mt[0] = mt[623]; i = 1; }
            if (j >= key_length) j = 0;
        }
        for (k = 623; k; k--) {
            mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
            i++;
            if (i >= 624) { mt[0] = mt[623]; i = 1; }
        }
        mt[0] = 0x80000000U;
        g->made = 0;
        g->next = 0;
    }

    /* A generator whose words lie L apart (one lane of kocka_mt_seed_lanes; L = 1: a kocka_mt),
       words twisted on demand. */
    typedef struct { uint32_t *mt; int L; int made; int next; } kocka_lane;

    static uint32_t kocka_lane_next(kocka_lane *g) {
        uint32_t *mt = g->mt, y;
        const int L = g->L;
        int kk;
        if (g->next >= 624) { g->next = 0; g->made = 0; }
        while (g->made <= g->next) {
            kk = g->made;
            y = (mt[kk * L] & 0x80000000U) | (mt[((kk + 1) % 624) * L] & 0x7fffffffU);
            mt[kk * L] = mt[((kk + 397) % 624) * L] ^ (y >> 1) ^ ((y & 1U) ? 0x9908b0dfU : 0U);
            g->made++;
        }
        y = mt[(g->next++) * L];
        y ^= (y >> 11);
        y ^= (y << 7) & 0x9d2c5680U;
        y ^= (y << 15) & 0xefc60000U;
        y ^= (y >> 18);
        return y;
    }

    /* A generator's next word: its words are one lane of width 1. */
    static uint32_t kocka_mt_next(kocka_mt *g) {
        kocka_lane lane = {g->mt, 1, g->made, g->next};
        uint32_t y = kocka_lane_next(&lane);
        g->made = lane.made;
        g->next = lane.next;
        return y;
    }

    /* random.randint(1, 6): _randbelow(6) by getrandbits(3) */
    static int kocka_die(kocka_mt *g) {
        uint32_t r;
        do { r = kocka_mt_next(g) >> 29; } while (r >= 6);
        return (int)r + 1;
    }

    /* Many generators seeded side by side, every roll of a game at once (lanes: word i of
       lane l at mt[i * L + l]): seeding is a chain of 1,247 dependent steps, the same steps
       for every seed, so the lanes run along vector registers (GCC also compiles an AVX2
       version, picked where the CPU has it). A seed of one 32-bit word (CPython's key is
       shorter then; one seed in 2^31) is seeded alone. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define KOCKA_SIM_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define KOCKA_SIM_CLONES
    #endif
    enum { KOCKA_MAX_LANES = 80 };

    KOCKA_SIM_CLONES
    static void kocka_mt_seed_lanes(uint32_t *mt, const unsigned long long *seeds, int L) {
        uint32_t k0[KOCKA_MAX_LANES], k1[KOCKA_MAX_LANES];
        int i, j, k, l;
        for (l = 0; l < L; l++) { k0[l] = (uint32_t)seeds[l]; k1[l] = (uint32_t)(seeds[l] >> 32); }
        for (i = 0; i < 624; i++)
            for (l = 0; l < L; l++) mt[i * L + l] = kocka_mt_start[i];
        i = 1; j = 0;
        for (k = 624; k; k--) {
            uint32_t *__restrict__ row = mt + i * L;
            const uint32_t *__restrict__ prev = mt + (i - 1) * L;
            const uint32_t *__restrict__ key = j ? k1 : k0;
            for (l = 0; l < L; l++)
                row[l] = (row[l] ^ ((prev[l] ^ (prev[l] >> 30)) * 1664525U)) + key[l] + (uint32_t)j;
            i++; j ^= 1;
            if (i >= 624) { memcpy(mt, mt + 623 * L, sizeof(uint32_t) * (size_t)L); i = 1; }
        }
        for (k = 623; k; k--) {
            uint32_t *__restrict__ row = mt + i * L;
            const uint32_t *__restrict__ prev = mt + (i - 1) * L;
            for (l = 0; l < L; l++)
                row[l] = (row[l] ^ ((prev[l] ^ (prev[l] >> 30)) * 1566083941U)) - (uint32_t)i;
            i++;
            if (i >= 624) { memcpy(mt, mt + 623 * L, sizeof(uint32_t) * (size_t)L); i = 1; }
        }
        for (l = 0; l < L; l++) mt[l] = 0x80000000U;
        for (l = 0; l < L; l++) {
            if ((seeds[l] >> 32) == 0) {
                kocka_mt g;
                kocka_mt_seed(&g, seeds[l]);
                for (i = 0; i < 624; i++) mt[i * L + l] = g.mt[i];
            }
        }
    }

    static int kocka_lane_die(kocka_lane *g) {
        uint32_t r;
        do { r = kocka_lane_next(g) >> 29; } while (r >= 6);
        return (int)r + 1;
    }

    /* random.random(): 53 bits from two words (Modules/_randommodule.c, random_random) */
    static double kocka_lane_random(kocka_lane *g) {
        uint32_t a = kocka_lane_next(g) >> 5, b = kocka_lane_next(g) >> 6;
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }
    """
    ctypedef struct kocka_mt:
        u32 mt[624]
        int made
        int next
    long long kocka_roll_seed(long long game_seed, int seat, int filled, int throw_) noexcept nogil
    void kocka_mt_prepare() noexcept nogil
    void kocka_mt_seed(kocka_mt* g, u64 seed) noexcept nogil
    int kocka_die(kocka_mt* g) noexcept nogil
    enum: KOCKA_MAX_LANES
    ctypedef struct kocka_lane:
        u32* mt
        int L
        int made
        int next
    void kocka_mt_seed_lanes(u32* mt, const u64* seeds, int L) noexcept nogil
    int kocka_lane_die(kocka_lane* g) noexcept nogil
    double kocka_lane_random(kocka_lane* g) noexcept nogil

kocka_mt_prepare()

# A loaded expected-score table: _scorecard's Problem (every mask with one box group) and
# the keep lattice.
cdef struct Tables:
    Problem card
    const int* child       # (N_SMALL, 6) the keep lattice
    const signed char* keep_size   # (N_KEEP,) dice in each keep
    const int* okeep_ptr   # (N_OUT + 1,) CSR: the keeps inside each outcome in rank's order
    const int* okeep


# A difficulty level (``kocka.agents.bots.levels``): a softmax over the ranked values.
cdef struct Level:
    double temperature   # > 0 (INFINITY: uniform); relative: a multiple of the values' spread
    int relative


# Scratch of one thread.
cdef struct Turn:
    BoxSucc bs[MAX_BOXES]
    double F0[N_OUT]
    double V2[N_OUT]
    double proper[N_OUT]
    int arg[N_OUT]
    double K3[N_KEEP + 1]   # keep values before the third throw
    double K2[N_KEEP + 1]   # before the second
    double M[N_KEEP + 1]
    int Marg[N_KEEP + 1]
    int ids[MAX_BOXES + N_SMALL]       # a level's ranking: the actions (box, or n_boxes + keep) ...
    double vals[MAX_BOXES + N_SMALL]   # ... and their values, best first
    u64 seeds[KOCKA_MAX_LANES]          # the seed of every roll of the game: lane 3 * turn + throws made,
                                        # then a level's own generator
    u32 lanes[624 * KOCKA_MAX_LANES]   # their generators (kocka_mt_seed_lanes)


cdef void start_turn(const Tables* P, int m, int c, int f, int bits, Turn* t) noexcept nogil:
    """The successors of every open box and the keep values of both keeps of the turn,
    as TurnTables values them (the later-throw fills F0, the keeps before the third
    throw from F0, the keeps before the second from max(F0, best keep))."""
    group_fills(&P.card, m, c, f, bits, t.F0, NULL, t.bs)
    turn_keep_stages(t.F0, t.V2, t.K3, t.K2, t.M, t.Marg, t.proper, t.arg, t.proper, t.arg, P.child)


cdef inline int best_action(const Tables* P, const Turn* t, int m, int f, int bits, int throw, int o,
                            int* box) noexcept nogil:
    """The first best action of rank's order at throw ``throw`` showing ``o``: returns the
    keep (0..N_SMALL-1), or -1 with the box to fill in ``box``."""
    cdef int b, j, k, keep = -1
    cdef int ft = (P.card.n_ft - 1) if throw == 1 else 0
    cdef double v = 0.0, best = -INFINITY, kbest = -INFINITY   # v: set by fill_value
    cdef const double* K
    box[0] = -1
    for b in range(P.card.n_boxes):
        if not (bits >> b) & 1:
            continue
        if not fill_value(&P.card, t.bs, m, f, b, ft, o, &v):
            continue
        if v > best or box[0] < 0:
            best = v
            box[0] = b
    if throw < 3:
        if throw == 1:
            K = &t.K2[0]
        else:
            K = &t.K3[0]
        for j in range(P.okeep_ptr[o], P.okeep_ptr[o + 1]):
            k = P.okeep[j]
            if K[k] > kbest or keep < 0:
                kbest = K[k]
                keep = k
        if keep >= 0 and (box[0] < 0 or kbest > best):
            return keep
    return -1


cdef int softmax_pick(const double* vals, int n, double temperature, int relative, double u) noexcept nogil:
    """The action a level plays among ``vals`` (best first) for its uniform draw ``u``, by
    the floating-point operations of ``levels.LevelAgent.choose``: P(i) = exp((v_i - v_0) /
    T) / total, the total and the cumulative sums added in rank order, the first i with u
    below the cumulative sum (else the last one with P > 0); T infinite: 1/n each."""
    cdef int i, last = 0
    cdef double best = vals[0], low = vals[0], total = 0.0, cum = 0.0, p
    cdef double w[MAX_BOXES + N_SMALL]
    for i in range(1, n):
        if vals[i] < low:
            low = vals[i]
    if relative and temperature != INFINITY:
        temperature = INFINITY if best - low == 0 else temperature * (best - low)
    if temperature == INFINITY:
        p = 1.0 / n
        for i in range(n):
            cum += p
            if u < cum:
                return i
        return n - 1
    for i in range(n):
        w[i] = exp((vals[i] - best) / temperature)
        total += w[i]
    for i in range(n):
        p = w[i] / total
        cum += p
        if u < cum:
            return i
        if p > 0:
            last = i
    return last


cdef int level_action(const Tables* P, Turn* t, int m, int f, int bits, int throw, int o, double shift,
                      const Level* lv, kocka_lane* g, int* box) noexcept nogil:
    """A level's action at throw ``throw`` showing ``o``, as :func:`best_action` returns it:
    the ranking of ``_scorecard.TurnTables.rank`` (fills by box, then the outcome's keeps in
    rank's order, a stable sort best first, ``shift`` added to every value), one uniform
    from the level's generator ``g``, :func:`softmax_pick`."""
    cdef int n = 0, b, j, k, i, ti, a
    cdef int ft = (P.card.n_ft - 1) if throw == 1 else 0
    cdef double v = 0.0, tv   # v: set by fill_value
    cdef const double* K
    box[0] = -1
    for b in range(P.card.n_boxes):
        if (bits >> b) & 1 and fill_value(&P.card, t.bs, m, f, b, ft, o, &v):
            t.ids[n] = b
            t.vals[n] = v
            n += 1
    if throw < 3:
        K = &t.K2[0] if throw == 1 else &t.K3[0]
        for j in range(P.okeep_ptr[o], P.okeep_ptr[o + 1]):
            k = P.okeep[j]
            t.ids[n] = P.card.n_boxes + k
            t.vals[n] = K[k]
            n += 1
    if n == 0:
        return -1
    for i in range(1, n):  # the stable insertion sort of TurnTables.rank
        tv = t.vals[i]
        ti = t.ids[i]
        j = i - 1
        while j >= 0 and t.vals[j] < tv:
            t.vals[j + 1] = t.vals[j]
            t.ids[j + 1] = t.ids[j]
            j -= 1
        t.vals[j + 1] = tv
        t.ids[j + 1] = ti
    for i in range(n):
        t.vals[i] = t.vals[i] + shift
    a = t.ids[softmax_pick(t.vals, n, lv.temperature, lv.relative, kocka_lane_random(g))]
    if a < P.card.n_boxes:
        box[0] = a
        return -1
    return a - P.card.n_boxes


cdef inline int roll(const Tables* P, Turn* t, int L, int lane, int keep) noexcept nogil:
    """The outcome after keeping ``keep`` (0: nothing) and rolling the other dice from
    generator ``lane`` of the ``L`` seeded for the game."""
    cdef int n = 5 - P.keep_size[keep]
    cdef kocka_lane g
    g.mt = &t.lanes[lane]
    g.L = L
    g.made = 0
    g.next = 0
    while n > 0:  # the dice one by one, each a child in the keep lattice
        keep = P.child[6 * keep + kocka_lane_die(&g) - 1]
        n -= 1
    return keep - N_SMALL


cdef double play_one(const Tables* P, Turn* t, i64 game_seed, int seat, int m, int c, int f,
                     double score, int full, const Level* lv, i64 agent_seed) noexcept nogil:
    """One card played to the end from state (m, c, f) with ``score`` so far (points plus
    the tracker offset); the final score. ``lv`` NULL: the expected-score policy; else
    that level, its generator seeded with ``agent_seed``."""
    cdef int bits, throw, o, keep, m2, nf2, turn
    cdef int b = -1
    cdef int first = popcount(<unsigned int> m)
    cdef int rolls = 3 * (popcount(<unsigned int> full) - first)
    cdef int L = rolls + (lv != NULL)
    cdef i64 s
    cdef double points = 0.0   # set by fill_move
    cdef kocka_lane g
    # every roll the game may make is known before it starts: one per (turn, throws made)
    for turn in range(rolls // 3):
        for throw in range(3):
            t.seeds[3 * turn + throw] = <u64> kocka_roll_seed(game_seed, seat, first + turn, throw)
    if lv != NULL:  # the level's random.Random(agent_seed), the last lane
        t.seeds[rolls] = <u64> agent_seed
    kocka_mt_seed_lanes(t.lanes, t.seeds, L)
    g.mt = &t.lanes[rolls]
    g.L = L
    g.made = 0
    g.next = 0
    while m != full:
        turn = popcount(<unsigned int> m) - first
        bits = P.card.grp_bits[P.card.grp_ptr[m]]
        start_turn(P, m, c, f, bits, t)
        o = roll(P, t, L, 3 * turn, 0)
        throw = 1
        while True:
            if lv == NULL:
                keep = best_action(P, t, m, f, bits, throw, o, &b)
            else:
                keep = level_action(P, t, m, f, bits, throw, o, score, lv, &g, &b)
            if keep < 0:
                break
            o = roll(P, t, L, 3 * turn + throw, keep)
            throw += 1
        if b < 0:  # no box may take these dice: a damaged table
            return -INFINITY
        s = fill_move(&P.card, t.bs, m, f, b, (P.card.n_ft - 1) if throw == 1 else 0, o, &points)
        score += points
        m2 = m | (1 << b)
        nf2 = P.card.nflag[m2]
        c = <int> ((s - P.card.base[m2]) // nf2)
        f = <int> ((s - P.card.base[m2]) % nf2)
        m = m2
    return floor(score + 0.5)  # points and offsets are integers


def play_games(
    const i64[::1] game_seeds, int seat, int start_mask, int start_class, int start_flag, double start_score,
    double[::1] out,
    const double[::1] W, const i64[::1] base, const signed char[::1] nflag,
    const int[::1] grp_ptr, const int[::1] grp_bits, const int[::1] ctx_of,
    const double[:, :, ::1] rew, const int[::1] special, const double[:, :, :, ::1] srew,
    const i64[::1] tstart, const int[::1] uprank, const int[:, ::1] tnext, const double[:, ::1] toff,
    const signed char[:, ::1] egrp, const signed char[:, :, ::1] fnext, int n_upper,
    const int[:, ::1] child, const signed char[::1] keep_size, const int[::1] okeep_ptr, const int[::1] okeep,
    const i64[::1] agent_seeds=None, double temperature=0.0, bint relative=False,
):
    """Final score of one card per game, ``out[i]``, played by the expected-score policy
    from state (``start_mask``, ``start_class``, ``start_flag``) with ``start_score`` so far,
    the dice of game i rolled from ``game_seeds[i]`` for seat ``seat`` as the arena's
    ChanceSampler rolls them. The tables are those of ``_scorecard.TurnTables`` (every mask
    with one box group); ``keep_size`` (462,) the dice of each keep, ``okeep_ptr``/``okeep``
    the keeps inside each outcome, larger first, then in keep order. Releases the GIL.
    -inf marks a game that met dice no box could take (a damaged table).

    With ``agent_seeds`` a level plays instead: the softmax at ``temperature`` (> 0, inf:
    uniform; ``relative``: times the spread of the values at each decision), one
    ``random.Random(agent_seeds[i]).random()`` per decision of game i."""
    cdef Tables P
    cdef Level lv
    cdef Level* plv = NULL
    cdef const i64* aseeds = NULL
    cdef Py_ssize_t i
    cdef int n_boxes = rew.shape[0]
    if out.shape[0] != game_seeds.shape[0]:
        raise ValueError(f"out has {out.shape[0]} entries for {game_seeds.shape[0]} games")
    if agent_seeds is not None:
        if agent_seeds.shape[0] != game_seeds.shape[0]:
            raise ValueError(f"{agent_seeds.shape[0]} agent seeds for {game_seeds.shape[0]} games")
        if not temperature > 0:
            raise ValueError(f"a level's temperature must be > 0 here (0 is the expected-score policy), got {temperature!r}")
        lv.temperature = temperature
        lv.relative = relative
        plv = &lv
        if agent_seeds.shape[0]:
            aseeds = &agent_seeds[0]
    P.card = _problem(W, base, None, nflag, grp_ptr, grp_bits, ctx_of, rew, special, srew,
                      tstart, uprank, tnext, toff, egrp, fnext, n_upper)   # checks the card's shapes
    if 3 * n_boxes + 1 > KOCKA_MAX_LANES:
        raise ValueError(f"at most {(KOCKA_MAX_LANES - 1) // 3} boxes: every roll of a game is seeded at once")
    if child.shape[0] != N_SMALL or child.shape[1] != 6 or keep_size.shape[0] != N_KEEP or okeep_ptr.shape[0] != N_OUT + 1:
        raise ValueError("the keep lattice must be (210, 6), keep_size (462,) and okeep_ptr (253,)")
    if not 0 <= start_mask < (1 << n_boxes) or base[start_mask] < 0:
        raise ValueError(f"no state with mask {start_mask:#x} in these tables")
    P.child = &child[0, 0]
    P.keep_size = &keep_size[0]
    P.okeep_ptr = &okeep_ptr[0]
    P.okeep = &okeep[0]
    cdef Turn* t = <Turn*> malloc(sizeof(Turn))
    if t == NULL:
        raise MemoryError()
    cdef int full = (1 << n_boxes) - 1
    with nogil:
        for i in range(game_seeds.shape[0]):
            out[i] = play_one(&P, t, game_seeds[i], seat, start_mask, start_class, start_flag, start_score, full,
                              plv, aseeds[i] if aseeds != NULL else 0)
    free(t)


def roll_seed(long long game_seed, int seat, int filled, int throw):
    """The seed of one roll: ``derive_seed("chance", game_seed, ("turn", seat, filled, throw))``."""
    return kocka_roll_seed(game_seed, seat, filled, throw)


def roll_dice(unsigned long long seed, int count):
    """``[random.Random(seed).randint(1, 6) for _ in range(count)]``, drawn by this file's generator."""
    cdef kocka_mt* g = <kocka_mt*> malloc(sizeof(kocka_mt))
    if g == NULL:
        raise MemoryError()
    kocka_mt_seed(g, seed)
    dice = []
    while len(dice) < count:
        dice.append(kocka_die(g))
    free(g)
    return dice


def roll_dice_lanes(const u64[::1] seeds, int count, bint randoms=False):
    """:func:`roll_dice` of every seed, the generators seeded side by side as a game's are
    (``randoms``: ``random.Random(seed).random()`` draws instead, as a level draws them)."""
    cdef int L = seeds.shape[0]
    cdef int l
    cdef kocka_lane g
    if not 1 <= L <= KOCKA_MAX_LANES:
        raise ValueError(f"1..{KOCKA_MAX_LANES} seeds at once, got {L}")
    cdef u32* mt = <u32*> malloc(sizeof(u32) * 624 * L)
    if mt == NULL:
        raise MemoryError()
    kocka_mt_seed_lanes(mt, &seeds[0], L)
    dice = []
    for l in range(L):
        g.mt = &mt[l]
        g.L = L
        g.made = 0
        g.next = 0
        lane = []
        while len(lane) < count:
            lane.append(kocka_lane_random(&g) if randoms else kocka_lane_die(&g))
        dice.append(lane)
    free(mt)
    return dice


def level_choice(values, double temperature, bint relative, double u):
    """The index :func:`softmax_pick` plays among ``values`` (best first) for the draw ``u``."""
    cdef double vals[MAX_BOXES + N_SMALL]
    cdef int i, n = len(values)
    if not 1 <= n <= MAX_BOXES + N_SMALL:
        raise ValueError(f"1..{MAX_BOXES + N_SMALL} values, got {n}")
    for i in range(n):
        vals[i] = values[i]
    return softmax_pick(vals, n, temperature, relative, u)
