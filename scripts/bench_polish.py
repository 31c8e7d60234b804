"""Benchmark of the Polish solver: seconds and states/s per stage, the optimum and the
value of a fence, for one or more fence caps (the cap-convergence table of docs/SOLVER.md),
with the wall and CPU seconds (every thread) and the peak memory of the whole build.
Targets (issue 15): the exact build (no cap) in <= 150 s on the quiet 2-core machine and
<= 1.2 GB; ``kocka-solve build polish`` under ``/usr/bin/time -v`` gives the same figures
for the build with the table written.

    python scripts/bench_polish.py --jobs 2                  # the exact game (no cap)
    python scripts/bench_polish.py --caps 24 --jobs 2
    python scripts/bench_polish.py --caps 8 16 24 32 --jobs 16 --json caps.json
    python scripts/bench_polish.py --basic
"""
from __future__ import annotations

import argparse
import json
import resource
import time

from kocka.solver.solvers.polish.values import build_arrays, build_basic_arrays
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.rules.polish import PolishBasicGame, PolishGame
from kocka.solver.rules.polish_scoring import PolishRules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--caps", type=lambda v: None if v == "none" else int(v), nargs="+", default=[None],
                        help="fence caps to build ('none': the rules as written, the exact game; the default)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--boxes", default=None, help="comma list of boxes (default: the full card)")
    parser.add_argument("--stages", type=int, default=3)
    parser.add_argument("--basic", action="store_true", help="also build the basic game")
    parser.add_argument("--json", default=None, help="write the results here")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args()
    results = []
    for cap in args.caps:
        options = {"fence_cap": cap, "stages": args.stages}
        if args.boxes:
            options["boxes"] = tuple(args.boxes.split(","))
        game = PolishGame(PolishRules(**options))
        start, cpu_start = time.perf_counter(), time.process_time()
        _, extra = build_arrays(game, BuildOptions(jobs=args.jobs, backend="threading", progress=args.progress))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        row = {"cap": cap, "expected_score": extra["expected_score"], "seconds": round(wall, 2),
               "cpu_seconds": round(cpu, 2),
               "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "stages": {}}
        for k, s in sorted(extra["stages"].items()):
            secs = s["seconds_values"]
            row["stages"][k] = {
                "states": s["states"], "seconds": secs, "states_per_s": round(s["states"] / max(secs, 1e-9)),
                "start_value_F0": s["start_value_by_fences"][0], "fence_value": s["fence_value_at_start"],
                "start_value_by_fences": s["start_value_by_fences"],
            }
            print(f"cap {str(cap):>4s} stage {k}: {s['states']:>9,} states  {secs:8.2f} s  "
                  f"{s['states'] / max(secs, 1e-9):>10,.0f} states/s  value(F=0) {s['start_value_by_fences'][0]:.6f}  "
                  f"fence {s['fence_value_at_start']:.6f}", flush=True)
        print(f"cap {str(cap):>4s}: expected total {extra['expected_score']:.9f}  ({wall:.1f} s wall, {cpu:.1f} s CPU, "
              f"peak RSS {row['peak_rss_mb']} MB)", flush=True)
        results.append(row)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
    if args.basic:
        start = time.perf_counter()
        _, extra = build_basic_arrays(PolishBasicGame())
        print(f"basic game: expected total {extra['expected_score']:.6f}, {extra['states']} states, "
              f"{time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
