"""Benchmark of the target tables (``kocka-solve build GAME --kind target``).

For each game: the build's wall and CPU seconds and peak memory (each build in a fresh
process, so the peak is the build's own), the table's size, P(final >= T) from the empty
card, and the hint latency with ``--target`` from the loaded table (warm, median of many).
``--dask`` builds again on a ``distributed.LocalCluster`` of two workers (one thread each).
Prints figures, asserts nothing; the README's "Play to win" table comes from here.

    python scripts/bench_target.py                         # slovak yahtzee kockapoker, 2 threads
    python scripts/bench_target.py --games slovak --dask   # and on a local dask cluster
    python scripts/bench_target.py --games yahtzee --rules joker=forced
    python scripts/bench_target.py --arena winner,optimal --games kockapoker --rounds 20000 --jobs 2

``--arena AGENTS`` instead plays the agents at one table (``kocka arena GAME --table``: seat
order rotating, each seat's dice shared by the rotations) and prints, besides the arena's
own Wilson intervals, the intervals over the rotation groups, which are independent
(the games within a group share dice, so their results are negatively correlated and the
per-game Wilson interval is conservative).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, os, resource, sys, time
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.store.table_store import build_table, game_from_cli, solver_for
name, rules, jobs, backend, cache = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
game = game_from_cli(name, rules)
if backend == "dask":
    # deferred: dask is an optional extra
    from dask.distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
wall, cpu = time.perf_counter(), time.process_time()
table = build_table(game, solver_for(name, "target"), BuildOptions(jobs=jobs, backend=backend, progress=False), cache)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if backend == "dask":
    workers = client.run(lambda: __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss / 1024)
    peak_workers = max(workers.values())
    client.close(); cluster.close()
else:
    peak_workers = 0.0
print(json.dumps({"wall": wall, "cpu": cpu, "peak_mb": peak, "peak_worker_mb": peak_workers,
                  "size_mb": os.path.getsize(table.path) / 2**20, "extra": dict(table.meta.extra)}))
"""

HINT = r"""
import json, statistics, sys, time
from kocka.solver.store.table_store import game_from_cli, get_table
from kocka.solver.rules.scorecard import ScorecardState
from kocka.solver.solvers.scorecard.target import rank_target
name, rules, cache, target = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])
game = game_from_cli(name, rules)
t = time.perf_counter(); table = get_table(game, "target", cache); load = time.perf_counter() - t
card = game.card_from_entries(None)
state = ScorecardState(cards=(card,), throw=1, dice=(1, 1, 3, 4, 6))
rank_target(game, table, state, target)  # warm: the model, the view
times = []
for dice in [(1, 1, 3, 4, 6), (2, 3, 3, 5, 6), (1, 4, 6, 6, 6), (1, 2, 3, 4, 5)] * 10:
    s = ScorecardState(cards=(card,), throw=1, dice=dice)
    t = time.perf_counter(); rank_target(game, table, s, target); times.append(time.perf_counter() - t)
print(json.dumps({"load_s": load, "hint_ms": 1000 * statistics.median(times)}))
"""


def run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def arena(args: argparse.Namespace) -> None:
    # deferred: the arena is a front end, loaded only for --arena
    import math

    import numpy as np

    from kocka.agents.frontends.games.arena import run_arena
    from kocka.agents.bots.catalogue import AgentOptions
    from kocka.solver.store.table_store import game_from_cli

    names = args.arena.split(",")
    k = len(names)
    for name in args.games:
        game = game_from_cli(name, args.rules)
        start, cpu = time.perf_counter(), time.process_time()
        result = run_arena(game, names, args.rounds, args.seed, args.jobs,
                           AgentOptions(cache_dir=args.cache_dir, build_missing=False), table=True)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"{name}: {result.games} games, seed {args.seed}, agents {','.join(names)} at one table; "
              f"{wall:.0f} s wall ({args.jobs} jobs), {1000 * wall * args.jobs / result.games:.1f} ms per game and job")
        groups = result.games // k
        for a, s in enumerate(result.summaries()):
            w = result.wins[:groups * k, a].reshape(groups, k).mean(axis=1)
            pts = result.scores[:groups * k, a].reshape(groups, k).mean(axis=1)
            wh = 1.96 * w.std(ddof=1) / math.sqrt(groups)
            ph = 1.96 * pts.std(ddof=1) / math.sqrt(groups)
            print(f"  {s.label:<10} win rate {s.win_rate:.4f} (Wilson 95% [{s.win_ci[0]:.4f}, {s.win_ci[1]:.4f}]; "
                  f"over {groups} rotation groups [{w.mean() - wh:.4f}, {w.mean() + wh:.4f}]), mean score "
                  f"{s.mean:.2f} [{pts.mean() - ph:.2f}, {pts.mean() + ph:.2f}]")
        d = (result.scores[:, 0] - result.scores[:, 1])[:groups * k].reshape(groups, k).mean(axis=1)
        dh = 1.96 * d.std(ddof=1) / math.sqrt(groups)
        print(f"  {result.labels[0]} - {result.labels[1]}: {d.mean():+.2f} points [{d.mean() - dh:+.2f}, {d.mean() + dh:+.2f}]")
        if args.json:
            np.savez(args.json.replace("{game}", name), scores=result.scores, wins=result.wins, seats=result.seats)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["slovak", "yahtzee", "kockapoker"])
    ap.add_argument("--rules", "-r", action="append", default=[], help="a rule option key=value for every game")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dask", action="store_true", help="also build on a LocalCluster of 2 workers")
    ap.add_argument("--dask-only", action="store_true", help="build only on the LocalCluster")
    ap.add_argument("--cache-dir", default=None, help="where to build (default: a temporary folder, removed)")
    ap.add_argument("--target", type=int, default=250, help="the hint's target")
    ap.add_argument("--arena", default=None, metavar="AGENTS", help="play these agents at one table instead")
    ap.add_argument("--rounds", type=int, default=2000, help="--arena: games")
    ap.add_argument("--seed", type=int, default=1, help="--arena: seed")
    ap.add_argument("--json", default=None, metavar="FILE", help="--arena: save the per-game results ({game} in the name)")
    args = ap.parse_args()
    if args.arena:
        arena(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache_dir or tmp
        for name in args.games:
            for backend in ["dask"] if args.dask_only else ["threading"] + (["dask"] if args.dask else []):
                r = run(CHILD, name, json.dumps(args.rules), str(args.jobs), backend, cache)
                x = r["extra"]
                print(f"{name} [{backend}, {args.jobs} jobs]: build {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU "
                      f"(this process), peak {r['peak_mb']:.0f} MB"
                      + (f" (+ {r['peak_worker_mb']:.0f} MB per worker)" if backend == "dask" else "")
                      + f"; table {r['size_mb']:.0f} MB, {x['states']:,} states, "
                        f"{x['reach_values'] + x['ev_values']:,} stored values; phases: values {x['seconds_values']} s, "
                        f"reach {x['seconds_reach']} s, policy {x['seconds_policy']} s")
                print("  P(final >= T) from the empty card, best / expected-score play: " + ", ".join(
                    f"T={T}: {v['best']:.6f} / {v['expected_score_policy']:.6f}" for T, v in x["start_reach"].items()))
            h = run(HINT, name, json.dumps(args.rules), cache, str(args.target))
            print(f"  table load {h['load_s']:.2f} s; hint --target {args.target} from the loaded table: "
                  f"{h['hint_ms']:.2f} ms (median)")


if __name__ == "__main__":
    main()
