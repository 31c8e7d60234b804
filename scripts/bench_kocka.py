"""Benchmark the Kocka solver and print the figures quoted in docs/SOLVER.md.

    python scripts/bench_kocka.py            # everything two-player (about 2 minutes)
    python scripts/bench_kocka.py --quick    # skip the thread comparison, the openings and the end rules
    python scripts/bench_kocka.py --three 10000 [--dask]   # the three-player table (minutes; 2.3 GB with --dask)
    python scripts/bench_kocka.py --three 5000 --pure      # ... and what the mixed classes change
    python scripts/bench_kocka.py --four 1000 1500 2000    # four players: CPU per state, projection

Prints, per table: seconds, states and states/s; the peak memory of the process (max RSS);
P(first player wins) under every end rule (KOCKA-20); the expected turn score per phase;
the optimal action for a few telling opening rolls; with ``--three``: the three start
figures, the classes with mixed play, and (``--pure``) how far the start figures move when
those classes are settled by the closest pure play instead; with ``--dask``: the same
table on a ``distributed.LocalCluster`` of two workers, compared bit for bit; with
``--four``: the four-player table at each target on one thread, its CPU time per score
quadruple, and the projection for the full game (goal 10000, 200 units: a straight line
through the measured cost per quadruple against the goal in units, extrapolated).
"""
from __future__ import annotations

import argparse
import math
import random
import resource
import time

import numpy as np

from kocka.solver.solvers.kocka.dask_runner import DaskClassRunner
from kocka.solver.solvers.kocka.end_race import LEAD_UNITS, solve_race_ends
from kocka.solver.solvers.kocka.kocka_turn import UNIT, kocka_model, series_odds
from kocka.solver.solvers.kocka.race import solve_race
from kocka.solver.solvers.kocka.ranking import rank
from kocka.solver.solvers.kocka.single_turn import turn_ev_values, turn_reach_values
from kocka.solver.solvers.kocka.three_players import class_count, solve_four, solve_three
from kocka.agents.bots.base import play_with_rng
from kocka.agents.bots.catalogue import make_agent
from kocka.solver.solvers.kocka.pig import pig_win_probabilities
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.store.table_store import build_table
from kocka.solver.rules.kocka import KockaGame, KockaState
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.tables import KOCKA_TURN_EV, KOCKA_WINPROB

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
    parser.add_argument("--three", type=int, default=0, metavar="TARGET",
                        help="only the three-player table for this target (10000: the full game)")
    parser.add_argument("--pure", action="store_true", help="with --three: also settle the cycling classes by pure play")
    parser.add_argument("--dask", action="store_true", help="with --three: also build on a two-worker LocalCluster")
    parser.add_argument("--four", type=int, nargs="+", default=[], metavar="TARGET",
                        help="only the four-player table at these targets (one thread), and the projection")
    parser.add_argument("--approx", type=int, default=0, metavar="GAMES",
                        help="measure the approximations: paired games, three and four players (tables from the cache)")
    args = parser.parse_args()
    if args.three:
        three_player(args.three, args.threads, args.pure, args.dask)
        return
    if args.four:
        four_player(args.four)
        return
    if args.approx:
        approximations(args.approx, args.threads)
        return
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
    print("\n== two players under every end rule (KOCKA-20, kocka.ones_series) ==")
    for end, ones in (("last_turn", "instant_win"), ("last_turn", "normal"), ("finish_round", "instant_win"),
                      ("finish_round", "normal")):
        ends_rules = KockaRules(end=end, ones_series=ones)
        ends_model = kocka_model(ends_rules)
        sol = solve_race_ends(ends_model, threads=args.threads)
        seat2 = 1 - sol.first_player
        print(f"end={end}, ones_series={ones}: W(0, 0) = {sol.first_player:.6f} (P(seat 2 wins) {seat2:.6f}); "
              f"{sol.seconds:.2f}s, {sol.turn_evaluations:,} turn evaluations "
              f"({sol.turn_evaluations / ends_model.goal ** 2:.2f} per score pair), unconverged {sol.unconverged}")
        if end == "last_turn" and ones == "instant_win":
            wide = solve_race_ends(ends_model, threads=args.threads, lead=2 * LEAD_UNITS)
            print(f"  following banks {2 * LEAD_UNITS * UNIT} instead of {LEAD_UNITS * UNIT} past the target moves "
                  f"no value by more than {np.max(np.abs(wide.win - sol.win)):.1e}")
    print(f"peak memory (max RSS of this process so far): {peak_mb():.0f} MB")

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


def three_player(target: int, threads: int, pure: bool, dask: bool) -> None:
    """The three-player table for ``target``: time, memory, start figures, mixed classes."""
    model = kocka_model(KockaRules(target=target))
    cpu = time.process_time()
    sol = solve_three(model, threads=threads)
    cpu = time.process_time() - cpu
    goal = model.goal
    mixing = [m for m in sol.mixed if any(p is not None for p in m.probabilities)]
    print(f"three players, target {target}: {sol.seconds:.1f}s wall, {cpu:.1f}s CPU ({threads} threads); "
          f"{goal ** 3:,} score triples, {sol.classes:,} rotation classes; {sol.turn_evaluations:,} turn evaluations "
          f"({sol.turn_evaluations / goal ** 3:.3f} per position), {sol.turn_rows:,} rows, "
          f"{sol.full_evaluations:,} with every set-aside a choice")
    print(f"  P(seat 1, 2, 3 wins) = {', '.join(f'{v:.6f}' for v in sol.start)}")
    print(f"  classes whose Newton steps cycled: {len(sol.mixed)} ({len(mixing)} settled by mixed play, "
          f"{len(sol.mixed) - len(mixing) - sol.unresolved} by a pure equilibrium the steps jumped over, "
          f"{sol.unresolved} unresolved); largest gain of a pure deviation "
          f"{max((m.gain for m in sol.mixed), default=0.0):.1e}")
    for m in sol.mixed:
        print(f"    {[tuple(v * UNIT for v in s) for s in m.states][0]}: probabilities {m.probabilities}, "
              f"policies seen {m.policies}, gain {m.gain:.1e}")
    print(f"  peak memory (max RSS of this process so far): {peak_mb():.0f} MB")
    if pure:
        alt = solve_three(model, threads=threads, mix=False)
        diff = np.abs(alt.win - sol.win)
        states = {s for m in alt.mixed for s in m.states}
        inside = max((float(diff[s].max()) for s in states), default=0.0)
        print(f"  pure play in the cycling classes instead: the start figures move by {diff[0, 0, 0].max():.1e}; "
              f"values inside those classes by up to {inside:.1e}, anywhere by up to {diff.max():.1e}; largest "
              f"gain of a deviation then {max((m.gain for m in alt.mixed), default=0.0):.1e}")
    if dask:
        from distributed import Client, LocalCluster  # optional dependency (kocka[dask])

        with LocalCluster(n_workers=2, threads_per_worker=max(1, threads // 2), processes=True,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            other = solve_three(model, runner=DaskClassRunner(client, threads=max(1, threads // 2)))
        print(f"  dask LocalCluster (2 workers): {other.seconds:.1f}s wall; bitwise identical: "
              f"{np.array_equal(other.win, sol.win)}; peak memory of this process {peak_mb():.0f} MB")


def four_player(targets: list[int]) -> None:
    """The four-player table at each target on one thread: CPU µs per score quadruple, and
    the projection for the full game (hours on N workers, memory)."""
    goals, costs = [], []
    for target in targets:
        model = kocka_model(KockaRules(target=target))
        cpu = time.process_time()
        sol = solve_four(model, threads=1)
        cpu = time.process_time() - cpu
        goal = model.goal
        per_state = cpu / goal ** 4 * 1e6
        goals.append(goal)
        costs.append(per_state)
        mixing = sum(any(p is not None for p in m.probabilities) for m in sol.mixed)
        print(f"four players, target {target}: {cpu:.1f}s CPU (1 thread), {goal ** 4:,} score quadruples, "
              f"{sol.classes:,} rotation classes, {sol.turn_evaluations:,} turn evaluations; "
              f"{per_state:.1f} µs CPU per quadruple; {len(sol.mixed)} classes cycled ({mixing} mixed, "
              f"{sol.unresolved} unresolved); P(seat 1..4 wins) = {', '.join(f'{v:.6f}' for v in sol.start)}")
    full_goal = KockaRules().target // UNIT
    states = full_goal ** 4
    if len(goals) > 1:
        slope, intercept = np.polyfit(goals, costs, 1)
    else:
        slope, intercept = costs[0] / goals[0], 0.0  # one target: proportional to the goal
    per_state = slope * full_goal + intercept
    hours = states * per_state * 1e-6 / 3600
    table_gb = states * 4 * 8 / 1e9
    print(f"projection for the full game (goal {full_goal} units, {states:,} quadruples, "
          f"{class_count(full_goal, 4):,} rotation classes): {per_state:.0f} µs CPU per quadruple "
          f"(straight line through {len(goals)} targets), {hours:,.0f} CPU-hours; on N workers "
          f"{', '.join(f'{n}: {hours / n:,.1f} h' for n in (1, 8, 32, 128))} (the layers split evenly; one sync per "
          f"score layer, {4 * (full_goal - 1) + 1} layers); table {table_gb:.1f} GB float64 "
          f"((goal^4) x 4 values), one copy on the client and one on each dask worker")


def _play(game, agents, seed: int) -> tuple[float, ...]:
    """One game through the engine: seat i plays ``agents[i]`` (an ``Agent``), the dice
    drawn from ``random.Random(seed)`` in order (the same stream for every lineup)."""
    final = play_with_rng(game, lambda state: agents[state.player].choose(state), random.Random(seed))
    return tuple(game.returns(final))


def _paired(args: tuple) -> list[tuple[int, float, float]]:
    """Games ``seeds``: the test seat (seed mod players) plays ``test``, everybody else
    ``base``; the same game again with ``base`` in that seat too. Returns (seat, its win
    share with test, with base) per game."""
    players, test, base, seeds = args
    game = KockaGame(KockaRules(), num_players=players)
    agents = {name: make_agent(name, game, 0) for name in {test, base}}
    out = []
    for seed in seeds:
        seat = seed % players
        lineup = [agents[base]] * players
        with_base = _play(game, lineup, seed)[seat]
        lineup[seat] = agents[test]
        out.append((seat, _play(game, lineup, seed)[seat], with_base))
    return out


def approximations(games: int, jobs: int) -> None:
    """How much the race against the leading opponent loses with three players, and
    which approximation is better with four: paired games (the same dice for both
    lineups), differences with 95 % normal intervals."""
    from concurrent.futures import ProcessPoolExecutor  # only this measurement runs processes

    for players, test, base, what in ((3, "leader", "optimal", "P(win) of leader minus optimal (exact), 3 players"),
                                      (4, "leader", "optimal", "P(win) of leader minus optimal (3-player table), 4 players")):
        start = time.perf_counter()
        chunks = [(players, test, base, range(i, games, jobs)) for i in range(jobs)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            rows = [r for part in pool.map(_paired, chunks) for r in part]
        diff = np.array([t - b for _, t, b in rows])
        mean, se = diff.mean(), diff.std(ddof=1) / math.sqrt(len(diff))
        rate_t = np.mean([t for _, t, _ in rows])
        rate_b = np.mean([b for _, _, b in rows])
        print(f"{what}: {mean:+.4f} [{mean - 1.96 * se:+.4f}, {mean + 1.96 * se:+.4f}] over {len(diff):,} paired games "
              f"(win share in the test seat: {test} {rate_t:.4f}, {base} {rate_b:.4f}; "
              f"{time.perf_counter() - start:.0f}s)")
        for seat in range(players):
            d = np.array([t - b for s_, t, b in rows if s_ == seat])
            print(f"  seat {seat + 1}: {d.mean():+.4f} +- {1.96 * d.std(ddof=1) / math.sqrt(len(d)):.4f} ({len(d):,} games)")


if __name__ == "__main__":
    main()
