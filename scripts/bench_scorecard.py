#!/usr/bin/env python
"""Benchmark of the exact scorecard solver: build every full table, load it, time hints.

Each variant runs in a fresh subprocess, so its peak memory (``ru_maxrss``) and load time
are its own. For every variant it prints the build time split into the state-space model
(Python + numpy), the expected-value table (the Cython kernel) and the score distribution
(forward propagation), then the whole ``build_table`` (with the atomic write); wall and CPU
seconds (CPU is the robust figure on a shared machine; with threads it adds up every
thread), solved states per second, peak memory, the table size and load time, and the
hint latency (median of warm ``kocka hint`` answers, and the first answer after loading
in the same process, the engine's scoring tables already made by the build; the first hint
of a fresh process is ``scripts/bench_hint.py``'s), then the targets of issue 15 that these
figures decide: peak memory (Yahtzee <= 60 MB, kockapoker <= 120 MB) and the score
distribution step no slower than the values step (CPU seconds).

    python scripts/bench_scorecard.py                  # all variants, one job
    python scripts/bench_scorecard.py --jobs 2 --backend threading
    python scripts/bench_scorecard.py --only yahtzee kockapoker
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

VARIANTS = {
    "kockapoker": ("kockapoker", {}),
    "kockapoker-count": ("kockapoker", {"house_negative": "count"}),
    "slovak": ("slovak", {}),
    "yahtzee": ("yahtzee", {}),
    "yahtzee-forced": ("yahtzee", {"joker": "forced"}),
    "yahtzee-nobonus": ("yahtzee", {"yahtzee_bonus": False}),
    "yatzy": ("yatzy", {}),
}
HINT_POSITIONS = [((1, 1, 3, 4, 6), 1), ((2, 2, 5, 5, 6), 2), ((3, 3, 3, 5, 5), 3)]
MEMORY_TARGETS_MB = {"yahtzee": 60, "kockapoker": 120}  # issue 15


class Clock:
    """Wall and CPU seconds of a block (the CPU figure is robust on a shared machine)."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu


def run_one(variant: str, jobs: int, backend: str, cache_dir: str) -> dict:
    """Build, store, reload and query one variant (runs in its own process)."""
    from kocka.agents.advice.cards import ScorecardHintParams
    from kocka.agents.advice.hint import hint
    from kocka.solver.store import table_store
    from kocka.solver.base.build_options import BuildOptions
    from kocka.solver.store.table_store import build_table, get_table, solver_for
    from kocka.solver.rules import get_game

    name, options = VARIANTS[variant]
    game = get_game(name, options)
    with Clock() as build_clock:
        table = build_table(game, solver_for(name), BuildOptions(jobs=jobs, backend=backend, progress=False), cache_dir)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    x = table.meta.extra
    table_store._LOADED.clear()
    with Clock() as load_clock:
        get_table(game, cache_dir=cache_dir)
    params = [ScorecardHintParams(dice=d, roll=r, cache_dir=cache_dir) for d, r in HINT_POSITIONS]
    with Clock() as first_hint:
        hint(game, params[0])
    latencies = []
    for _ in range(30):
        for p in params:
            t = time.perf_counter()
            hint(game, p)
            latencies.append(time.perf_counter() - t)
    return {
        "variant": variant,
        "expected_score": x["expected_score"],
        "states": x["states"],
        "model_s": x["seconds_model"],
        "values_s": x["seconds_values"], "values_cpu_s": x["cpu_seconds_values"],
        "dist_s": x["seconds_distribution"], "dist_cpu_s": x["cpu_seconds_distribution"],
        "build_s": build_clock.wall, "build_cpu_s": build_clock.cpu,
        "states_per_s": x["states"] / x["seconds_values"],
        "peak_mb": peak_mb,
        "peak_before_dist_mb": x.get("peak_rss_mb_before_distribution"),
        "table_mb": os.path.getsize(table.path) / 2**20,
        "load_ms": load_clock.wall * 1000,
        "first_hint_ms": first_hint.wall * 1000,
        "hint_ms": statistics.median(latencies) * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--backend", default="loky", help="joblib backend (loky, threading)")
    parser.add_argument("--only", nargs="*", choices=sorted(VARIANTS), help="variants to run")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.jobs, args.backend, args.cache_dir)))
        return
    cache_dir = args.cache_dir or tempfile.mkdtemp(prefix="kocka-bench-")
    print(f"# bench_scorecard: jobs={args.jobs} backend={args.backend} cpus={os.cpu_count()} "
          f"load average={os.getloadavg()[0]:.2f} tables in {cache_dir}")
    header = (f"{'variant':17s} {'E[score]':>10s} {'states':>9s} {'model s':>7s} {'values s':>8s} "
              f"{'(cpu)':>6s} {'states/s':>9s} {'dist s':>6s} {'(cpu)':>6s} {'build s':>7s} {'(cpu)':>6s} "
              f"{'peak MB':>7s} {'table MB':>8s} {'load ms':>7s} {'hint ms':>7s} {'1st hint':>8s}")
    print(header)
    rows = []
    for variant in args.only or VARIANTS:
        out = subprocess.run(
            [sys.executable, __file__, "--one", variant, "--jobs", str(args.jobs), "--backend", args.backend,
             "--cache-dir", cache_dir],
            capture_output=True, text=True, check=True,
        )
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{r['variant']:17s} {r['expected_score']:10.4f} {r['states']:9,d} {r['model_s']:7.2f} "
              f"{r['values_s']:8.2f} {r['values_cpu_s']:6.2f} {r['states_per_s']:9,.0f} {r['dist_s']:6.2f} "
              f"{r['dist_cpu_s']:6.2f} {r['build_s']:7.2f} {r['build_cpu_s']:6.2f} {r['peak_mb']:7.0f} "
              f"{r['table_mb']:8.1f} {r['load_ms']:7.1f} {r['hint_ms']:7.2f} {r['first_hint_ms']:8.1f}", flush=True)
        rows.append(r)
    print()
    for r in rows:
        checks = [f"distribution / values CPU {r['dist_cpu_s'] / max(r['values_cpu_s'], 1e-9):.2f} (target <= 1): "
                  f"{'met' if r['dist_cpu_s'] <= r['values_cpu_s'] else 'NOT met'}"]
        if r["variant"] in MEMORY_TARGETS_MB:
            limit = MEMORY_TARGETS_MB[r["variant"]]
            checks.append(f"peak {r['peak_mb']:.0f} MB (target <= {limit}): {'met' if r['peak_mb'] <= limit else 'NOT met'}"
                          f", {r['peak_before_dist_mb']:.0f} MB before the distribution step")
        print(f"{r['variant']}: " + "; ".join(checks))


if __name__ == "__main__":
    main()
