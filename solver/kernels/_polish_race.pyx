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
from libc.math cimport INFINITY, NAN, fabs
from libc.stdlib cimport free

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

from keep_lattice cimport N_KEEP, N_OUT, N_SMALL

ctypedef long long i64

cdef extern from *:
    """
    /* The turn of KOCKA_RACE_LANES states side by side (one lane each): every operation
       runs along the lanes, the arithmetic of each lane the scalar turn's in the same order
       (no multiply-add is fused: setup.py compiles with -ffp-contract=off), so a lane gives
       the same bits whatever the others hold. Two versions of the same turn: the portable
       one in GCC's vector types, four lanes at a time (run twice, once per half of the
       lanes; x86-64 Linux GCC also builds an AVX2 version, which the loader picks where the
       CPU has it), and where the CPU has AVX-512 one of all eight lanes at once in its
       intrinsics, with mask registers for the comparisons (GCC 12 turns a comparison of
       eight-double generic vectors into scalar code). kocka_race_turn_lanes picks. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define KOCKA_RACE_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define KOCKA_RACE_CLONES
    #endif
    #if defined(__GNUC__) && defined(__x86_64__)
    #define KOCKA_RACE_WIDE 1
    #include <immintrin.h>
    #else
    #define KOCKA_RACE_WIDE 0
    #endif
    #define KOCKA_RACE_LANES 8   /* states side by side: the rows of every lane array */
    #define KOCKA_VEC_LANES 4    /* lanes of the portable vector type */
    #define KOCKA_VEC_STRIDE (KOCKA_RACE_LANES / KOCKA_VEC_LANES)
    /* one lane's records (and shown flags), after a later / the first throw: a seat's
       records are KOCKA_RACE_LANES of these one after the other, each lane's written by
       itself (_records) and read across the lanes by a turn */
    #define KOCKA_REC_ROWS (2 * KOCKA_N_OUT)
    typedef double kr_v __attribute__((vector_size(8 * KOCKA_VEC_LANES)));
    typedef long long kr_m __attribute__((vector_size(8 * KOCKA_VEC_LANES)));

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
        any |= __builtin_shufflevector(any, any, 2, 3, 0, 1);
        any |= __builtin_shufflevector(any, any, 1, 0, 3, 2);
        if (__builtin_expect(any[0] == 0, 1)) return;
        for (int i = 0; i < n; i++) {
            kr_v d = dd[i], ds = dds[i], ads = kr_abs(ds), q = d / ads;
            kr_m up = (ds > kr_all(KOCKA_SLOPE_EPS)) & (d < *lo * ds);
            kr_m down = (ds < kr_all(-KOCKA_SLOPE_EPS)) & (d < -*hi * ds);
            *lo = kr_sel(up, q, *lo);
            *hi = kr_sel(down, q, *hi);
        }
    }

    /* Keep values when the next throw ends in the outcomes' values, rows N_SMALL.. of
       (Kv, Ks) (N_KEEP rows each: the turn lays each stage's outcomes out after N_SMALL
       rows of scratch, so that the children's indices reach them without a copy; they are
       only read), and the best proper keep of each outcome (pv, ps), with the margins of
       every comparison; rows 0..N_SMALL are scratch, the best sub-keep pushed up in place
       (a keep of at most three dice has children of at most four). */
    static inline __attribute__((always_inline)) void kr_keep_stage(kr_v *Kv, kr_v *Ks, kr_v *pv, kr_v *ps,
                                     const int *child, kr_v *lo, kr_v *hi) {
        int k, f;
        const kr_m keep = {};
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
       four lanes: ``rec`` (KOCKA_REC_ROWS per lane, the four lanes' one after the other)
       the best record per outcome (-inf: none shown), ``shown`` where a new combination is shown (with
       ``mandatory`` it must be recorded, PL-5), (xv, xs) ending the turn without one.
       ``work``: 4 * N_SMALL + 8 * N_OUT rows. */
    KOCKA_RACE_CLONES
    static void kocka_race_turn4(const double *rec, const long long *shown, int mandatory, const double *xv,
                                 const double *xs, const int *child, const double *probs, kr_v *work,
                                 double *value, double *slope, double *lo_out, double *hi_out) {
        /* each stage's outcomes (F: after a throw, both kinds; S: the second stage's) follow
           N_SMALL rows of its keep stage's scratch (kr_keep_stage) */
        kr_v *Fv = work + KOCKA_N_SMALL, *Fs = Fv + 2 * KOCKA_N_OUT + KOCKA_N_SMALL;
        kr_v *Sv = Fs + 2 * KOCKA_N_OUT + KOCKA_N_SMALL, *Ss = Sv + KOCKA_N_OUT + KOCKA_N_SMALL;
        kr_v *Pv = Ss + KOCKA_N_OUT, *Ps = Pv + KOCKA_N_OUT;
        kr_v x, s, lo = kr_all(__builtin_inf()), hi = kr_all(__builtin_inf()), tv = kr_all(0.0), ts = kr_all(0.0);
        const kr_m none = {};
        const kr_v zero = kr_all(0.0);
        int o, g, l;
        for (l = 0; l < KOCKA_VEC_LANES; l++) { x[l] = xv[l]; s[l] = xs[l]; }
        for (o = 0; o < 2 * KOCKA_N_OUT; o += 6) {
            kr_v dd[6], dds[6];
            kr_m need = {};
            for (g = 0; g < 6; g++) {
                const int row = o + g;
                kr_v fv = x, fs = s, r = {rec[row], rec[KOCKA_REC_ROWS + row], rec[2 * KOCKA_REC_ROWS + row],
                                          rec[3 * KOCKA_REC_ROWS + row]};
                kr_m forced = none;
                if (mandatory) {
                    const kr_m sh = {shown[row], shown[KOCKA_REC_ROWS + row], shown[2 * KOCKA_REC_ROWS + row],
                                     shown[3 * KOCKA_REC_ROWS + row]};
                    forced = sh;
                }
                kr_pick(&r, &zero, &fv, &fs, &lo, &hi, &forced, &dd[g], &dds[g], &need);
                Fv[o + g] = kr_sel(forced, r, fv);
                Fs[o + g] = kr_sel(forced, kr_all(0.0), fs);
            }
            kr_margins(&need, dd, dds, 6, &lo, &hi);
        }
        kr_keep_stage(Fv - KOCKA_N_SMALL, Fs - KOCKA_N_SMALL, Pv, Ps, child, &lo, &hi);  /* before the third throw */
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
        kr_keep_stage(Sv - KOCKA_N_SMALL, Ss - KOCKA_N_SMALL, Pv, Ps, child, &lo, &hi);  /* before the second throw */
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
        for (l = 0; l < KOCKA_VEC_LANES; l++) { value[l] = tv[l]; slope[l] = ts[l]; lo_out[l] = lo[l]; hi_out[l] = hi[l]; }
    }

    #if KOCKA_RACE_WIDE
    /* The same turn in AVX-512, all KOCKA_RACE_LANES lanes at once: each function below is
       its kr_ namesake operation for operation (a mask register where that has a mask
       vector; -x flips the sign bit, as GCC's vector negation). */
    #define KW_TARGET __attribute__((target("avx512f")))
    #define KW_INLINE static inline __attribute__((always_inline)) KW_TARGET

    KW_INLINE __m512d kw_neg_where(__m512d a, __mmask8 m) {
        __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
        return _mm512_castsi512_pd(_mm512_mask_xor_epi64(_mm512_castpd_si512(a), m, _mm512_castpd_si512(a), sign));
    }

    KW_INLINE void kw_pick(__m512d cv, __m512d cs, __m512d *mv, __m512d *ms, __m512d lo, __m512d hi, __mmask8 mute,
                           __m512d *dd, __m512d *dds, __mmask8 *need) {
        __mmask8 better = _mm512_cmp_pd_mask(cv, *mv, _CMP_GT_OQ);
        __m512d d = _mm512_abs_pd(_mm512_sub_pd(cv, *mv));
        __m512d ds = kw_neg_where(_mm512_sub_pd(cs, *ms), (__mmask8)~better);
        __m512d ads = _mm512_abs_pd(ds);
        __m512d m = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(ds, _mm512_setzero_pd(), _CMP_GT_OQ), hi, lo);
        *mv = _mm512_mask_blend_pd(better, *mv, cv);
        *ms = _mm512_mask_blend_pd(better, *ms, cs);
        *dd = _mm512_mask_blend_pd(mute, d, _mm512_set1_pd(__builtin_inf()));
        *dds = ds;
        *need |= _mm512_mask_cmp_pd_mask((__mmask8)~mute, d, _mm512_mul_pd(m, ads), _CMP_LT_OQ);
    }

    KW_INLINE void kw_margins(__mmask8 need, const __m512d *dd, const __m512d *dds, int n, __m512d *lo, __m512d *hi) {
        if (__builtin_expect(need == 0, 1)) return;
        const __m512d eps = _mm512_set1_pd(KOCKA_SLOPE_EPS), neps = _mm512_set1_pd(-KOCKA_SLOPE_EPS);
        for (int i = 0; i < n; i++) {
            __m512d d = dd[i], ds = dds[i], q = _mm512_div_pd(d, _mm512_abs_pd(ds));
            __mmask8 up = _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(ds, eps, _CMP_GT_OQ), d,
                                                  _mm512_mul_pd(*lo, ds), _CMP_LT_OQ);
            __mmask8 down = _mm512_mask_cmp_pd_mask(_mm512_cmp_pd_mask(ds, neps, _CMP_LT_OQ), d,
                                                    _mm512_mul_pd(kw_neg_where(*hi, 0xff), ds), _CMP_LT_OQ);
            *lo = _mm512_mask_blend_pd(up, *lo, q);
            *hi = _mm512_mask_blend_pd(down, *hi, q);
        }
    }

    KW_INLINE void kw_keep_stage(__m512d *Kv, __m512d *Ks, __m512d *pv, __m512d *ps, const int *child, __m512d *lo,
                                 __m512d *hi) {
        int k, f;
        const __m512d sixth = _mm512_set1_pd(1.0 / 6.0);
        for (k = KOCKA_N_SMALL - 1; k >= 0; k--) {
            const int *row = child + 6 * k;
            __m512d sv = _mm512_setzero_pd(), ss = _mm512_setzero_pd();
            for (f = 0; f < 6; f++) { sv = _mm512_add_pd(sv, Kv[row[f]]); ss = _mm512_add_pd(ss, Ks[row[f]]); }
            Kv[k] = _mm512_mul_pd(sv, sixth);
            Ks[k] = _mm512_mul_pd(ss, sixth);
        }
        for (k = 0; k < KOCKA_N_OUT; k++) { pv[k] = _mm512_set1_pd(-__builtin_inf()); ps[k] = _mm512_setzero_pd(); }
        for (k = 0; k < KOCKA_N_FOUR; k++) {
            const int *row = child + 6 * k;
            __m512d mv = Kv[k], ms = Ks[k], dd[6], dds[6], l0 = *lo, h0 = *hi;
            __mmask8 need = 0;
            for (f = 0; f < 6; f++) kw_pick(mv, ms, &Kv[row[f]], &Ks[row[f]], l0, h0, 0, &dd[f], &dds[f], &need);
            kw_margins(need, dd, dds, 6, lo, hi);
        }
        for (k = KOCKA_N_FOUR; k < KOCKA_N_SMALL; k++) {
            const int *row = child + 6 * k;
            __m512d mv = Kv[k], ms = Ks[k], dd[6], dds[6], l0 = *lo, h0 = *hi;
            __mmask8 need = 0;
            for (f = 0; f < 6; f++)
                kw_pick(mv, ms, &pv[row[f] - KOCKA_N_SMALL], &ps[row[f] - KOCKA_N_SMALL], l0, h0, 0, &dd[f], &dds[f],
                        &need);
            kw_margins(need, dd, dds, 6, lo, hi);
        }
    }

    /* kocka_race_turn4 for all lanes at once (``rec``, ``shown``: KOCKA_RACE_LANES lanes'
       records, gathered row by row; ``work`` as there, in rows of KOCKA_RACE_LANES). */
    KW_TARGET static void kocka_race_turn8(const double *rec, const long long *shown, int mandatory, const double *xv,
                                           const double *xs, const int *child, const double *probs, double *work,
                                           double *value, double *slope, double *lo_out, double *hi_out) {
        __m512d *Fv = (__m512d *)work + KOCKA_N_SMALL, *Fs = Fv + 2 * KOCKA_N_OUT + KOCKA_N_SMALL;  /* as turn4's */
        __m512d *Sv = Fs + 2 * KOCKA_N_OUT + KOCKA_N_SMALL, *Ss = Sv + KOCKA_N_OUT + KOCKA_N_SMALL;
        __m512d *Pv = Ss + KOCKA_N_OUT, *Ps = Pv + KOCKA_N_OUT;
        const __m512d zero = _mm512_setzero_pd();
        __m512d x = _mm512_loadu_pd(xv), s = _mm512_loadu_pd(xs), lo = _mm512_set1_pd(__builtin_inf()), hi = lo;
        __m512d tv = zero, ts = zero;
        const __m512i lane_rows = _mm512_set_epi64(7 * KOCKA_REC_ROWS, 6 * KOCKA_REC_ROWS, 5 * KOCKA_REC_ROWS,
                                                   4 * KOCKA_REC_ROWS, 3 * KOCKA_REC_ROWS, 2 * KOCKA_REC_ROWS,
                                                   KOCKA_REC_ROWS, 0);
        int o, g;
        for (o = 0; o < 2 * KOCKA_N_OUT; o += 6) {
            __m512d dd[6], dds[6];
            __mmask8 need = 0;
            for (g = 0; g < 6; g++) {
                __m512d fv = x, fs = s, r = _mm512_i64gather_pd(lane_rows, rec + o + g, 8);
                __mmask8 forced = 0;
                if (mandatory) {
                    __m512i sh = _mm512_i64gather_epi64(lane_rows, (const void *)(shown + o + g), 8);
                    forced = _mm512_test_epi64_mask(sh, sh);
                }
                kw_pick(r, zero, &fv, &fs, lo, hi, forced, &dd[g], &dds[g], &need);
                Fv[o + g] = _mm512_mask_blend_pd(forced, fv, r);
                Fs[o + g] = _mm512_mask_blend_pd(forced, fs, zero);
            }
            kw_margins(need, dd, dds, 6, &lo, &hi);
        }
        kw_keep_stage(Fv - KOCKA_N_SMALL, Fs - KOCKA_N_SMALL, Pv, Ps, child, &lo, &hi);  /* before the third throw */
        for (o = 0; o < KOCKA_N_OUT; o += 6) {
            __m512d dd[6], dds[6];
            __mmask8 need = 0;
            for (g = 0; g < 6; g++) {
                __m512d fv = Fv[o + g], fs = Fs[o + g];
                kw_pick(Pv[o + g], Ps[o + g], &fv, &fs, lo, hi, 0, &dd[g], &dds[g], &need);
                Sv[o + g] = fv;
                Ss[o + g] = fs;
            }
            kw_margins(need, dd, dds, 6, &lo, &hi);
        }
        kw_keep_stage(Sv - KOCKA_N_SMALL, Ss - KOCKA_N_SMALL, Pv, Ps, child, &lo, &hi);  /* before the second throw */
        for (o = 0; o < KOCKA_N_OUT; o += 6) {
            __m512d dd[6], dds[6];
            __mmask8 need = 0;
            for (g = 0; g < 6; g++) {
                __m512d fv = Fv[KOCKA_N_OUT + o + g], fs = Fs[KOCKA_N_OUT + o + g];  /* from hand */
                kw_pick(Pv[o + g], Ps[o + g], &fv, &fs, lo, hi, 0, &dd[g], &dds[g], &need);
                tv = _mm512_add_pd(tv, _mm512_mul_pd(_mm512_set1_pd(probs[o + g]), fv));
                ts = _mm512_add_pd(ts, _mm512_mul_pd(_mm512_set1_pd(probs[o + g]), fs));
            }
            kw_margins(need, dd, dds, 6, &lo, &hi);
        }
        _mm512_storeu_pd(value, tv);
        _mm512_storeu_pd(slope, ts);
        _mm512_storeu_pd(lo_out, lo);
        _mm512_storeu_pd(hi_out, hi);
    }
    #endif

    /* 1: kocka_race_turn8 (the CPU has AVX-512; set when the module loads, see
       wide_turns), 0: kocka_race_turn4 on each half of the lanes. The same bits either way. */
    static int kocka_race_wide = 0;

    static int kocka_race_wide_available(void) {
    #if KOCKA_RACE_WIDE
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
    #else
        return 0;
    #endif
    }

    /* The turn of every lane (arguments as kocka_race_turn8's). */
    static void kocka_race_turn_lanes(const double *rec, const long long *shown, int mandatory, const double *xv,
                                      const double *xs, const int *child, const double *probs, double *work,
                                      double *value, double *slope, double *lo, double *hi) {
        int h;
    #if KOCKA_RACE_WIDE
        if (kocka_race_wide) {
            kocka_race_turn8(rec, shown, mandatory, xv, xs, child, probs, work, value, slope, lo, hi);
            return;
        }
    #endif
        for (h = 0; h < KOCKA_VEC_STRIDE; h++) {
            int l0 = h * KOCKA_VEC_LANES;
            kocka_race_turn4(rec + l0 * KOCKA_REC_ROWS, shown + l0 * KOCKA_REC_ROWS, mandatory, xv + l0, xs + l0, child,
                             probs, (kr_v *)work, value + l0, slope + l0, lo + l0, hi + l0);
        }
    }
    """
    enum:
        LANES "KOCKA_RACE_LANES"
    int kocka_race_wide
    int kocka_race_wide_available() noexcept nogil
    void kocka_race_turn_lanes(const double* rec, const long long* shown, int mandatory, const double* xv,
                               const double* xs, const int* child, const double* probs, double* work,
                               double* value, double* slope, double* lo, double* hi) noexcept nogil


cdef struct Card:
    int n_boxes
    int nmask
    int finish_round          # 1: seat 0 completing his card gives seat 1 a last turn (PL-7)
    int mandatory             # 1: a shown new combination must be recorded (pl.basic_record)
    const i64* gain           # (nmask,) most points the open combinations can still add
    const i64* off            # (nmask * nmask,) first value of (mover's mask, other's mask)
    const i64* loff           # (nmask,) first last-turn value of seat 1's mask
    const int* rec_index      # (n_boxes, 2, N_OUT) which of the box's point values a record scores (-1: not shown)
    const int* shown_rows     # the rows (throw kind, outcome) where each box is shown: box b's are
    const i64* shown_ptr      # shown_rows[shown_ptr[b]:shown_ptr[b + 1]], the rows of rec_index[b] >= 0
    const i64* rec_points     # (n_boxes, max_points) the distinct point values of each box
    const int* n_points       # (n_boxes,)
    int max_points
    const double* probs       # (N_OUT,)
    const int* child          # (N_SMALL, 6)
    double* v0                # values, seat 0 to move
    double* v1                # values, seat 1 to move (v0 itself when the seats are alike)
    double* last              # seat 1's last turn after seat 0 completed (finish_round)


kocka_race_wide = kocka_race_wide_available()


def wide_turns(enabled=None):
    """Whether a turn runs in AVX-512, every lane at once (else the portable turn, four
    lanes at a time): the CPU's answer unless ``enabled`` sets it (False: the portable
    turn, which tests compare; True: AVX-512 where the CPU has it). The same bits either
    way. Returns the setting in force."""
    global kocka_race_wide
    if enabled is not None:
        kocka_race_wide = kocka_race_wide_available() if enabled else 0
    return bool(kocka_race_wide)


cdef enum:
    TURN_ROWS = 4 * N_SMALL + 8 * N_OUT  # a turn's scratch (kocka_race_turn8), in rows of LANES doubles
    REC_ROWS = 2 * N_OUT                 # one lane's records (and shown flags) of one seat


cdef struct Lane:
    # one state being solved in a lane of solve_pairs: pair i at lead d (up to d_hi), the
    # current guesses a, b and the Newton steps taken there
    Py_ssize_t i
    i64 d
    i64 d_hi
    double a
    double b
    double prev_a             # the solution at the lead before (nan: none yet)
    double prev_b
    int steps


cdef struct Work:
    # views into one per-thread, 32-byte aligned buffer (see _work_new); every array is
    # (rows, LANES), one lane per state
    double* rec               # (2 seats, LANES, REC_ROWS) best record per outcome after a later / the first throw
    i64* shown                # (2 seats, LANES, REC_ROWS) -1 where some new combination is shown, else 0
    double* turn              # (TURN_ROWS, LANES) scratch of kocka_race_turn
    double* xv                # (LANES,) the pass value of each lane, and its slope
    double* xs
    double* value             # (2 seats, LANES) the turn values of the last evaluation, their slopes, margins
    double* slope
    double* lo
    double* hi
    double* bvalue            # (4, LANES) the bracketed search's own turn values (value, slope, margins)
    double* succ              # (n_boxes, max_points) the value of recording each box with each of its point values
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
    if posix_memalign(&buf, 64, (rows * LANES + extra) * sizeof(double) + LANES * sizeof(Lane)) != 0:
        buf = NULL
    w.rec = <double*>buf
    if buf == NULL:
        w.shown = NULL
        w.turn = w.xv = w.xs = w.value = w.slope = w.lo = w.hi = w.bvalue = w.succ = NULL
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
    w.succ = w.bvalue + 4 * LANES
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


cdef inline void _turn(const Card* c, Work* w, int seat, double* value, double* slope, double* lo,
                       double* hi) noexcept nogil:
    """``seat``'s whole turn in every lane from before its first throw (records in
    ``w.rec``, pass values in ``w.xv``/``w.xs``): value and slope in the pass value per
    lane, and the margins of the pass value within which no decision changes."""
    kocka_race_turn_lanes(w.rec + seat * REC_ROWS * LANES, <const long long*>(w.shown + seat * REC_ROWS * LANES),
                          c.mandatory, w.xv, w.xs, c.child, c.probs, w.turn, value, slope, lo, hi)


cdef double[1] _TIE
_TIE[0] = 0.5


cdef void _records(const Card* c, Work* w, int seat, int me, int other, i64 d, int lane) noexcept nogil:
    """``seat``'s part of ``w.rec`` in ``lane``: his best record per outcome (mask ``me``
    against ``other``, ``d`` points ahead), and (``pl.basic_record = mandatory``) of
    ``w.shown``. Recording his last combination ends the game, or (seat 0,
    ``finish_round``) gives seat 1 a last turn (PL-7); in that last turn every end of it
    ends the game."""
    cdef int t, b, j, nm, full = c.nmask - 1, mp = c.max_points
    cdef i64 k, e, e_lo, e_hi
    cdef double r
    cdef double* succ
    cdef const double* after
    cdef const int* idx
    # the lane's own rows (the turn gathers them across the lanes)
    cdef double* best = w.rec + (seat * LANES + lane) * REC_ROWS
    cdef i64* shown = w.shown + (seat * LANES + lane) * REC_ROWS
    for t in range(REC_ROWS):
        best[t] = -INFINITY
    for b in range(c.n_boxes):
        if me >> b & 1:
            continue
        nm = me | (1 << b)
        # the other's value after the record, at his lead e = -(d + points): 1 above e_hi
        # (more than the mover can make up), 0 below e_lo (more than he can), else after[e]
        # (his stored value; at the end of the game the tie's 1/2, _terminal); the record
        # is worth 1 - that
        if (seat == 1 and other == full) or (nm == full and not (seat == 0 and c.finish_round)):
            e_lo = 0  # the game ends (PL-7): e = 0 is a tie
            e_hi = 0
            after = &_TIE[0]
        elif nm == full:  # seat 0 completes: seat 1's last turn (finish_round)
            e_lo = -c.gain[other]
            e_hi = 0
            after = c.last + c.loff[other] + c.gain[other]
        else:
            e_lo = -c.gain[other]
            e_hi = c.gain[nm]
            after = (c.v1 if seat == 0 else c.v0) + c.off[<i64>other * c.nmask + nm] + c.gain[other]
        succ = w.succ + b * mp
        for j in range(c.n_points[b]):
            e = -(d + c.rec_points[b * mp + j])
            if e > e_hi:
                succ[j] = 0.0
            elif e < e_lo:
                succ[j] = 1.0
            else:
                succ[j] = 1.0 - after[e]
        idx = c.rec_index + b * REC_ROWS
        # max over the boxes, only where the dice show the box (elsewhere it would be -inf):
        # the order of the boxes gives the same bits
        for k in range(c.shown_ptr[b], c.shown_ptr[b + 1]):
            t = c.shown_rows[k]
            r = succ[idx[t]]
            best[t] = r if r > best[t] else best[t]
    if c.mandatory:
        for t in range(REC_ROWS):
            shown[t] = 0
        for b in range(c.n_boxes):
            if me >> b & 1:
                continue
            for k in range(c.shown_ptr[b], c.shown_ptr[b + 1]):
                shown[c.shown_rows[k]] = -1


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
                const int[:, :, ::1] rec_index, const int[::1] shown_rows, const i64[::1] shown_ptr,
                const i64[:, ::1] rec_points, const int[::1] n_points, const double[::1] probs,
                const int[:, ::1] child, int finish_round, int mandatory):
    if rec_index.shape[1] != 2 or rec_index.shape[2] != N_OUT or child.shape[0] != N_KEEP - N_OUT or child.shape[1] != 6:
        raise ValueError("rec_index must be (boxes, 2, 252) and child (210, 6)")
    if rec_points.shape[0] != rec_index.shape[0] or n_points.shape[0] != rec_index.shape[0]:
        raise ValueError("rec_points and n_points need one row per box")
    if shown_ptr.shape[0] != rec_index.shape[0] + 1 or shown_ptr[0] != 0 or shown_ptr[rec_index.shape[0]] != shown_rows.shape[0]:
        raise ValueError("shown_ptr must bound each box's rows of shown_rows")
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
    c.shown_rows = &shown_rows[0] if shown_rows.shape[0] > 0 else NULL
    c.shown_ptr = &shown_ptr[0]
    c.rec_points = &rec_points[0, 0]
    c.n_points = &n_points[0]
    c.max_points = rec_points.shape[1]
    c.probs = &probs[0]
    c.child = &child[0, 0]
    c.v0 = NULL
    c.v1 = NULL
    c.last = NULL


def solve_last_turns(const i64[::1] gain, const i64[::1] loff, const int[:, :, ::1] rec_index,
                     const int[::1] shown_rows, const i64[::1] shown_ptr, const i64[:, ::1] rec_points, const int[::1] n_points, const double[::1] probs,
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
    _card(&c, gain, gain, loff, rec_index, shown_rows, shown_ptr, rec_points, n_points, probs, child, 1, mandatory)
    c.last = &last[0]
    full = c.nmask - 1
    with nogil, parallel(num_threads=num_threads):
        w = _work_new(c.n_boxes * c.max_points)
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
    cdef double ga, gb
    if not start:
        s.d += 1
        # the next lead's guess: the line through the last two solutions (the leads of a
        # pair move the fixed point smoothly, so fewer policies change between guess and root)
        if s.prev_a == s.prev_a:
            ga = 2.0 * s.a - s.prev_a
            gb = 2.0 * s.b - s.prev_b
        else:
            ga = s.a
            gb = s.b
        s.prev_a = s.a
        s.prev_b = s.b
        s.a = 0.0 if ga < 0.0 else (1.0 if ga > 1.0 else ga)
        s.b = 0.0 if gb < 0.0 else (1.0 if gb > 1.0 else gb)
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
        s.prev_a = NAN
        s.prev_b = NAN
    s.steps = 0
    s0 = pairs[s.i, 0]
    s1 = pairs[s.i, 1]
    _records(c, w, 0, s0, s1, s.d, lane)
    _records(c, w, 1, s1, s0, -s.d, lane)
    return True


def solve_pairs(const i64[::1] gain, const i64[::1] off, const i64[::1] loff, const int[:, :, ::1] rec_index,
                const int[::1] shown_rows, const i64[::1] shown_ptr, const i64[:, ::1] rec_points, const int[::1] n_points, const double[::1] probs,
                const int[:, ::1] child, const int[:, ::1] pairs, int finish_round, int mandatory,
                double[::1] v0, double[::1] v1, double[::1] last, int symmetric, double tol=1e-13,
                int max_iter=60, int num_threads=1, int chunk=16):
    """Fill ``v0`` (seat 0 to move) and ``v1`` (seat 1 to move) for every pair of cards in
    ``pairs`` (rows ``(s0, s1)``: one level, every value they read already solved) and
    every score difference that does not decide the game. With ``symmetric``
    (``pl.basic_end = immediate``: the seats are alike) ``v1`` is ``v0`` and each unordered
    pair appears once.

    Each thread takes ``chunk`` pairs at a time and solves LANES states side by side, one
    per lane: a lane walks the leads of a pair in order, each state warm-started on the
    line through the solutions at the two leads before (see _next_state), and takes the next pair of the chunk when its pair is done; every lane's
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
    _card(&c, gain, off, loff, rec_index, shown_rows, shown_ptr, rec_points, n_points, probs, child, finish_round,
          mandatory)
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
        w = _work_new(c.n_boxes * c.max_points)
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
