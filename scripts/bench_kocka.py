"""Benchmark the Kocka solver and print the figures quoted in docs/SOLVER.md.

    python scripts/bench_kocka.py            # everything (about 15 s)
    python scripts/bench_kocka.py --quick    # skip the thread comparison and the openings

Prints, per table: seconds, states and states/s; the peak memory of the process (max RSS);
P(first player wins); the expected turn score per phase; the optimal action for a few
telling opening rolls.
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from kocka.solver.kocka_solver import (
    UNIT, kocka_model, rank, series_odds, solve_race, turn_ev_values, turn_reach_values,
)
from kocka.solver.pig import pig_win_probabilities
from kocka.solver.decision import BuildOptions
from kocka.solver.registry import build_table
from kocka.solver.rules.kocka import KockaGame, KockaRules, KockaState
from kocka.solver.kocka_solver import KOCKA_TURN_EV, KOCKA_WINPROB

TELLING_ROLLS = [
    (1, 1, 1, 2, 5, 5),   # RULES.md 1.6 example 3: bank 1100, series of 1s, or 1000 and roll on
    (1, 1, 1, 1, 1, 1),   # 2000 and a compulsory re-roll, or a complete series of 1s
    (2, 3, 4, 6, 6, 6),   # RULES.md 1.6 example 2: 600, or a series of 6s
    (1, 2, 2, 3, 4, 6),   # a lone 1
    (1, 2, 3, 3, 5, 6),   # 1 and 5: take both or only the 1?
    (2, 2, 3, 4, 6, 6),   # nothing scores: a bust below 2500, a series from 2500
]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    rules = KockaRules()

    kocka_model.cache_clear()
    model, secs = timed(kocka_model, rules)
    tm = model.turn
    print(f"model: {tm.n_kinds} roll kinds, {len(tm.group_prob)} outcome groups, {len(tm.entry_q)} choices, "
          f"choices per turn total {tm.entries_per_row}; compiled from the engine in {secs:.3f}s")

    print("\n== single-turn tables ==")
    for phase, name in enumerate(("below 2500", "2500+")):
        tv, secs = timed(turn_ev_values, model, phase)
        states = tv.cap * len(tv.phase.kinds) * 2
        print(f"EV {name}: {secs * 1000:.1f} ms for {tv.cap} turn totals ({states:,} states, "
              f"{states / secs:,.0f} states/s); expected turn score {tv.opening:.4f} points")
    start = time.perf_counter()
    states = 0
    for phase in (0, 1):
        for target in range(1, model.goal + 1):
            tv = turn_reach_values(model, phase, target)
            states += tv.cap * len(tv.phase.kinds) * 2
    secs = time.perf_counter() - start
    print(f"reach, T = 50..{rules.target} for both phases: {secs:.3f}s ({2 * model.goal} tables, "
          f"{states:,} states, {states / secs:,.0f} states/s)")
    for phase, name in enumerate(("below 2500", "2500+")):
        facts = ", ".join(f"P(>= {t * UNIT}) = {turn_reach_values(model, phase, t).opening:.4f}" for t in (7, 20, 40, 200))
        print(f"  from a fresh turn, {name}: {facts}")
    for phase, name in enumerate(("below 2500", "2500+")):
        tv = turn_ev_values(model, phase)
        last = {}
        for n in range(1, 6):
            k = model.keys[("roll", n, False)]
            rolls_on = np.nonzero(tv.val[1:, tm.roll_slot(k)] > tv.val[1:, tm.bank_slot])[0] + 1
            last[n] = int(rolls_on.max() * UNIT) if len(rolls_on) else None
        print(f"  EV policy {name}: the largest turn total at which it rolls on, by dice left: {last}")
    odds = series_odds()
    print("series completion odds by dice aside (joker named at five): "
          + ", ".join(f"{c}: {odds.after[(2, c)]:.5f}" for c in range(1, 7)))

    print("\n== two-player win probability ==")
    thread_counts = [1, args.threads] if not args.quick and args.threads > 1 else [args.threads]
    for threads in thread_counts:
        sol = solve_race(tm, model.goal, threads=threads)
        turn_states = sol.positions * (len(tm.phases[0].kinds) - 1)
        print(f"threads={threads}: {sol.seconds:.2f}s; {model.goal ** 2:,} score pairs, {sol.positions:,} "
              f"(scores, turn total) positions, {turn_states:,} roll states (6 per position); {sol.turn_evaluations:,} turn "
              f"evaluations ({sol.turn_evaluations / model.goal ** 2:.2f} per score pair), {sol.turn_rows:,} rows "
              f"({sol.turn_rows * tm.entries_per_row['below 2500'] / sol.seconds / 1e9:.2f} G choices/s, "
              f"{turn_states / sol.seconds:,.0f} roll states/s); unconverged {sol.unconverged}")
    print(f"P(first player wins), both optimal: {sol.first_player:.6f}")
    print(f"peak memory (max RSS of this process so far): {peak_mb():.0f} MB")
    pig, secs = timed(pig_win_probabilities)
    print(f"Pig (goal 100): P(first player wins) = {pig.first_player:.6f} in {secs * 1000:.1f} ms")

    if args.quick:
        return
    print("\n== optimal openings ==")
    ev_table = build_table(KockaGame(rules), KOCKA_TURN_EV, BuildOptions(progress=False), save=False)
    win_table = build_table(KockaGame(rules, num_players=2), KOCKA_WINPROB,
                            BuildOptions(jobs=args.threads, progress=False), save=False)
    one, two = KockaGame(rules), KockaGame(rules, num_players=2)
    for roll in TELLING_ROLLS:
        for banked in (0, 2500):
            state = KockaState(scores=(banked,), stage="set_aside", roll=roll, last_event="rolled")
            if one.roll_result(state, roll) != "live":
                print(f"{list(roll)} {'2500+' if banked else 'below 2500'}: bust")
                continue
            ranked = rank(one, ev_table, state)[:3]
            print(f"{list(roll)} {'2500+' if banked else 'below 2500':10s} EV: "
                  + "; ".join(f"{d.label} = {d.value:.1f}" for d in ranked))
        for me, opp in ((0, 0), (3000, 3000), (3000, 8650), (8000, 3000)):
            state = KockaState(scores=(me, opp), stage="set_aside", roll=roll, last_event="rolled")
            if two.roll_result(state, roll) != "live":
                continue
            d = rank(two, win_table, state)[0]
            print(f"    at {me}-{opp}: {d.label}, P(win) = {d.value:.4f} (EV {d.detail['ev']:.1f})")
    print(f"peak memory (max RSS): {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
