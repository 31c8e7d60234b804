#!/usr/bin/env python
"""Side-by-side benchmark against the fastest public Yahtzee/Yatzy solver, the
``yatzy-solver`` package (PyPI, Rust with a Python binding; precisit/yatzy-solver).

Runs only where ``yatzy_solver`` is importable (``pip install yatzy-solver``); it is never a
dependency of kocka. On the same machine, each measurement in a fresh process and the two
solvers alternating (ours, theirs, ours, theirs; the better of the two runs counts):

* build: CPU seconds (every thread counted), wall seconds and peak memory (``ru_maxrss``)
  of building and writing the table; ours includes the score distribution, theirs has none,
  so the values step alone is shown too;
* first hint: the first query answered after the table is loaded;
* warm hint: every option of a position valued, per position, over 60 positions met in
  seeded optimal play (the same positions for both, converted to their notation); ours as
  :func:`~kocka.solver.solvers.scorecard.values.rank` returns it (values computed and sorted, the
  Decision objects made when read) and with every Decision made;
* agreement: the largest difference between the two solvers' values of every option at
  those positions (theirs are remaining scores: ours less the points written, with the
  upper bonus once the face boxes are full);
* variants: the optimal expected score of every house-rule variant both have;
* simulation (Yahtzee): ``optimal`` games played per second, the whole arena
  (``run_arena``, ``--jobs`` threads) through the simulation kernel and through the Python
  engine loop, against their ``Solver.simulate`` on all cores. Without ``yatzy_solver`` only
  ours are measured, and the ratio is to the peer's figure that issue 28 quotes
  (:data:`PEER_QUOTED_GAMES_PER_S`).

    python scripts/bench_peers.py --cache-dir /tmp/tables
    python scripts/bench_peers.py --only yatzy --skip-variants
    python scripts/bench_peers.py --only-simulation --sim-games 20000 --jobs 2
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import timeit

PAIRS = {
    # name: ((our game, our rule options), their variant id, their ids of our boxes)
    "yahtzee": (("yahtzee", {}), "american", {
        "three_kind": "three_of_a_kind", "four_kind": "four_of_a_kind", "yahtzee": "five_of_a_kind"}),
    "yatzy": (("yatzy", {}), "yatzy-scandinavian", {
        "pair": "one_pair", "three_kind": "three_of_a_kind", "four_kind": "four_of_a_kind"}),
}
PEER_QUOTED_GAMES_PER_S = 2900.0
"""The peer's optimal Yahtzee games per second as issue 28 quotes it (``yatzy-solver``
``simulate(20000)``: 6.9 s on the quiet 2-core machine): the reference where the peer is
not installed; with it installed the script measures it instead."""

VARIANTS = [  # (our game, our options, their variant id)
    ("yahtzee", {}, "american"),
    ("yahtzee", {"joker": "forced"}, "american+forced-joker"),
    ("yahtzee", {"yahtzee_bonus": False}, "american+no-bonus"),
    ("yatzy", {}, "yatzy-scandinavian"),
    ("yatzy", {"five_kind_full_house": "yes"}, "yatzy-scandinavian+fh5"),
    ("yatzy", {"four_kind_two_pairs": "yes"}, "yatzy-scandinavian+tp4"),
    ("yatzy", {"five_kind_full_house": "yes", "four_kind_two_pairs": "yes"}, "yatzy-scandinavian+fh5+tp4"),
    ("yatzy", {"order": "forced"}, "yatzy-scandinavian+forced"),
    ("yatzy", {"five_kind_full_house": "yes", "order": "forced"}, "yatzy-scandinavian+fh5+forced"),
    ("yatzy", {"four_kind_two_pairs": "yes", "order": "forced"}, "yatzy-scandinavian+tp4+forced"),
    ("yatzy", {"five_kind_full_house": "yes", "four_kind_two_pairs": "yes", "order": "forced"},
     "yatzy-scandinavian+fh5+tp4+forced"),
]


# ----------------------------------------------------------------------------------------
# Children (each runs in a fresh process and prints one JSON line)
# ----------------------------------------------------------------------------------------
def _usage() -> dict:
    import resource

    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {"cpu_s": ru.ru_utime + ru.ru_stime, "peak_mb": ru.ru_maxrss / 1024}


def child_build(side: str, name: str, folder: str) -> dict:
    import time

    start = time.perf_counter()
    before = _usage()
    if side == "ours":
        from kocka.solver.base.build_options import BuildOptions
        from kocka.solver.store.table_store import build_table, solver_for
        from kocka.solver.rules import get_game

        (game, options), _, _ = PAIRS[name]
        g = get_game(game, options)
        before, start = _usage(), time.perf_counter()
        table = build_table(g, solver_for(game), BuildOptions(progress=False), folder)
        x = table.meta.extra
        extra = {"values_cpu_s": x["cpu_seconds_values"], "distribution_cpu_s": x["cpu_seconds_distribution"],
                 "model_cpu_s": x["cpu_seconds_model"], "expected_score": x["expected_score"]}
    else:
        import yatzy_solver as ys

        variant = ys.Variant(PAIRS[name][1])
        before, start = _usage(), time.perf_counter()
        ys.Solver.build_table(variant, str(pathlib.Path(folder) / f"{PAIRS[name][1]}.yzt"), "f64")
        extra = {}
    after = _usage()
    return {"cpu_s": after["cpu_s"] - before["cpu_s"], "wall_s": time.perf_counter() - start,
            "peak_mb": after["peak_mb"], **extra}


def _our_solver(name: str, folder: str):
    from kocka.solver.store.table_store import get_table
    from kocka.solver.rules import get_game

    (game, options), _, _ = PAIRS[name]
    g = get_game(game, options)
    return g, get_table(g, cache_dir=folder)


def child_first(side: str, name: str, folder: str, positions: str) -> dict:
    import gc
    import time

    pos = json.loads(pathlib.Path(positions).read_text())[0]
    if side == "ours":
        from kocka.solver.solvers.scorecard.values import rank

        g, table = _our_solver(name, folder)
        state = g.state_from_json(pos["state"])
        gc.collect()
        start = time.perf_counter()
        rank(g, table, state)[0]
    else:
        import yatzy_solver as ys

        variant = ys.Variant(PAIRS[name][1])
        solver = ys.Solver.load(str(pathlib.Path(folder) / f"{PAIRS[name][1]}.yzt"), variant)
        gc.collect()
        start = time.perf_counter()
        solver.option_values(pos["notation"])
    return {"first_ms": (time.perf_counter() - start) * 1000}


def _per_call_us(fn, calls: int) -> float:
    return min(timeit.repeat(fn, number=1, repeat=25)) / calls * 1e6


def child_warm(side: str, name: str, folder: str, positions: str) -> dict:
    pos = json.loads(pathlib.Path(positions).read_text())
    if side == "ours":
        from kocka.solver.solvers.scorecard.values import rank

        g, table = _our_solver(name, folder)
        states = [g.state_from_json(p["state"]) for p in pos]
        for s in states:
            rank(g, table, s)
        return {"rank_us": _per_call_us(lambda: [rank(g, table, s) for s in states], len(states)),
                "decisions_us": _per_call_us(lambda: [list(rank(g, table, s)) for s in states], len(states))}
    import yatzy_solver as ys

    variant = ys.Variant(PAIRS[name][1])
    solver = ys.Solver.load(str(pathlib.Path(folder) / f"{PAIRS[name][1]}.yzt"), variant)
    sits = [p["notation"] for p in pos]
    for s in sits:
        solver.option_values(s)
    return {"rank_us": _per_call_us(lambda: [solver.option_values(s) for s in sits], len(sits))}


def child_simulate(side: str, name: str, folder: str, games: str, jobs: str) -> dict:
    """Games per second of optimal play: ``kernel`` and ``engine`` are our arena with and
    without the simulation kernel (the table loaded before the clock starts), ``theirs``
    their ``Solver.simulate`` (all cores)."""
    import time

    n, jobs_n = int(games), int(jobs)
    if side == "theirs":
        import yatzy_solver as ys

        variant = ys.Variant(PAIRS[name][1])
        solver = ys.Solver.load(str(pathlib.Path(folder) / f"{PAIRS[name][1]}.yzt"), variant)
        start = time.perf_counter()
        mean = float(solver.simulate(n, seed=1)["mean"])
    else:
        from kocka.agents.bots.catalogue import AgentOptions, make_agent
        from kocka.agents.frontends.games.arena import run_arena

        g, _ = _our_solver(name, folder)
        options = AgentOptions(cache_dir=folder)
        make_agent("optimal", g, 0, options)  # the table loaded (once per process)
        start = time.perf_counter()
        result = run_arena(g, ["optimal"], n, seed=1, jobs=jobs_n, options=options, kernels=side == "kernel")
        mean = float(result.scores.mean())
    seconds = time.perf_counter() - start
    return {"games": n, "seconds": seconds, "games_per_s": n / seconds, "mean": mean}


def simulation(folder: str, rounds: int, games: int, engine_games: int, jobs: int, peer: bool) -> dict:
    """Print and return the simulation figures of optimal Yahtzee (each run in a fresh
    process, the sides alternating, the best run counted)."""
    if not peer:  # the table is built here, the peer's child_build is not run
        run("--child", "build", "ours", "yahtzee", folder)
    sides = [("kernel", games), ("engine", engine_games)] + ([("theirs", games)] if peer else [])
    rows: dict[str, list] = {side: [] for side, _ in sides}
    for _ in range(rounds):
        for side, n in sides:
            rows[side].append(run("--child", "simulate", side, "yahtzee", folder, str(n), str(jobs)))
    rate = {side: max(r["games_per_s"] for r in rows[side]) for side in rows}
    reference = rate["theirs"] if peer else PEER_QUOTED_GAMES_PER_S
    where = f"{PAIRS['yahtzee'][1]} measured here" if peer else "quoted in issue 28, not measured here"
    print(f"\nsimulation: optimal Yahtzee games per second ({jobs} jobs; ours the whole arena, run_arena)")
    print(f"  ours, simulation kernel      {rate['kernel']:12.0f}  ({games} games, mean {rows['kernel'][0]['mean']:.2f})")
    print(f"  ours, Python engine loop     {rate['engine']:12.0f}  ({engine_games} games); "
          f"the kernel is {rate['kernel'] / rate['engine']:.0f}x faster")
    print(f"  peer ({where}) {reference:12.0f}")
    print(f"  ratio, their games/s / ours (<= 1: ours as fast): kernel {reference / rate['kernel']:.2f}, "
          f"engine loop {reference / rate['engine']:.2f}")
    return {"games_per_s": rate, "peer_games_per_s": reference, "peer_measured": peer,
            "ratio_kernel": reference / rate["kernel"], "ratio_engine": reference / rate["engine"], "jobs": jobs}


def child_variant(side: str, game: str, options: str, peer: str) -> dict:
    if side == "ours":
        from kocka.solver.rules import get_game
        from kocka.solver.solvers.scorecard.values import build_model, solve_values

        g = get_game(game, json.loads(options))
        model = build_model(g)
        W = solve_values(model)
        t = g.initial_tracker
        return {"expected_score": float(W[model.base[0] + model.tclass[0, t]] + model.toffset[0, t])}
    import yatzy_solver as ys

    return {"expected_score": ys.Solver.build(ys.Variant(peer)).state_value("upper 0 | filled -")}


# ----------------------------------------------------------------------------------------
# The parent
# ----------------------------------------------------------------------------------------
def notation(game, state, ids: dict) -> str:
    """A state of ours in their notation (docs/notation.md)."""
    card = state.cards[state.player]
    filled = [ids.get(b, b) for b, e in zip(game.boxes, card.entries) if e is not None]
    upper = sum(card.entries[u] for u in game.upper_boxes if card.entries[u] is not None)
    text = (f"dice {' '.join(map(str, state.dice))} | rolls {3 - state.throw} | upper {upper} | "
            f"filled {','.join(filled) or '-'}")
    if "yahtzee" in game.boxes and card.entries[game.boxes.index("yahtzee")] is not None:
        text += f" | five_of_a_kind {card.entries[game.boxes.index('yahtzee')]}"
    return text


def make_positions(name: str, folder: str, path: pathlib.Path, count: int = 60, seed: int = 3) -> None:
    """Decision positions of seeded games played with our table's best actions."""
    import random

    from kocka.agents.bots.base import positions_with_rng
    from kocka.solver.solvers.scorecard.values import rank

    g, table = _our_solver(name, folder)
    ids = PAIRS[name][2]
    states = positions_with_rng(g, lambda s: rank(g, table, s)[0].action, random.Random(seed), count)
    path.write_text(json.dumps([{"state": g.state_to_json(s), "notation": notation(g, s, ids)} for s in states]))


def agreement(name: str, folder: str, positions: pathlib.Path) -> tuple[float, int]:
    """The largest |our value - card total so far - their value| over every option of every
    position, and the number of options compared."""
    import yatzy_solver as ys

    from kocka.solver.solvers.scorecard.values import rank

    g, table = _our_solver(name, folder)
    ids = PAIRS[name][2]
    solver = ys.Solver.load(str(pathlib.Path(folder) / f"{PAIRS[name][1]}.yzt"), ys.Variant(PAIRS[name][1]))
    worst, compared = 0.0, 0
    for p in json.loads(positions.read_text()):
        state = g.state_from_json(p["state"])
        # their score so far counts the upper bonus once the face boxes are full
        so_far = g.card_total(state.cards[state.player])
        theirs = dict(solver.option_values(p["notation"]))
        for d in rank(g, table, state):
            a = d.action
            key = f"score {ids.get(a.box, a.box)}" if hasattr(a, "box") else f"keep {' '.join(map(str, a.dice)) or '-'}"
            worst = max(worst, abs(d.value - so_far - theirs.pop(key)))
            compared += 1
        if theirs:
            raise SystemExit(f"their options {sorted(theirs)} at {p['notation']!r} are not ours")
    return worst, compared


def run(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(rows: list[dict], key: str) -> float:
    return min(r[key] for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(PAIRS))
    parser.add_argument("--cache-dir", default=None, help="folder for both solvers' tables")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs of each measurement")
    parser.add_argument("--skip-variants", action="store_true")
    parser.add_argument("--json", default=None, help="also write the figures here")
    parser.add_argument("--only-simulation", action="store_true", help="only the simulation figures")
    parser.add_argument("--sim-games", type=int, default=20000, help="games of each kernel and peer simulation run")
    parser.add_argument("--engine-games", type=int, default=400, help="games of each engine-loop run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="our arena's jobs (the peer uses every core)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        fn = {"build": child_build, "first": child_first, "warm": child_warm, "variant": child_variant,
              "simulate": child_simulate}[kind]
        print(json.dumps(fn(*rest)))
        return
    folder = args.cache_dir or tempfile.mkdtemp(prefix="kocka-peers-")
    try:
        import yatzy_solver  # noqa: F401  (only to see that it is there)
    except ImportError:
        print(f"# bench_peers: cpus={os.cpu_count()} load average={os.getloadavg()[0]:.2f}; tables in {folder}")
        print("yatzy_solver is not installed (pip install yatzy-solver): only our simulation figures")
        results = {"simulation": simulation(folder, args.rounds, args.sim_games, args.engine_games, args.jobs, False)}
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
        return
    print(f"# bench_peers: cpus={os.cpu_count()} load average={os.getloadavg()[0]:.2f} "
          f"yatzy-solver {yatzy_solver.__version__}; tables in {folder}")
    results: dict = {}
    if args.only_simulation:
        for side in ("ours", "theirs"):
            run("--child", "build", side, "yahtzee", folder)
        results["simulation"] = simulation(folder, args.rounds, args.sim_games, args.engine_games, args.jobs, True)
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(results, indent=1))
        return
    for name in args.only or PAIRS:
        rows: dict[str, dict[str, list]] = {"ours": {}, "theirs": {}}
        for _ in range(args.rounds):
            for side in ("ours", "theirs"):
                rows[side].setdefault("build", []).append(run("--child", "build", side, name, folder))
        positions = pathlib.Path(folder) / f"{name}-positions.json"
        make_positions(name, folder, positions)
        for _ in range(args.rounds):
            for side in ("ours", "theirs"):
                rows[side].setdefault("first", []).append(run("--child", "first", side, name, folder, str(positions)))
                rows[side].setdefault("warm", []).append(run("--child", "warm", side, name, folder, str(positions)))
        worst, compared = agreement(name, folder, positions)
        o, t = rows["ours"], rows["theirs"]
        r = {
            "build_cpu_s": (best(o["build"], "cpu_s"), best(t["build"], "cpu_s")),
            "build_wall_s": (best(o["build"], "wall_s"), best(t["build"], "wall_s")),
            "values_cpu_s": (best(o["build"], "values_cpu_s"), best(t["build"], "cpu_s")),
            "distribution_cpu_s": best(o["build"], "distribution_cpu_s"),
            "peak_mb": (best(o["build"], "peak_mb"), best(t["build"], "peak_mb")),
            "first_hint_ms": (best(o["first"], "first_ms"), best(t["first"], "first_ms")),
            "warm_hint_us": (best(o["warm"], "rank_us"), best(t["warm"], "rank_us")),
            "warm_hint_decisions_us": (best(o["warm"], "decisions_us"), best(t["warm"], "rank_us")),
            "agreement": {"largest_difference": worst, "options_compared": compared},
        }
        results[name] = r
        print(f"\n{name} (ours vs {PAIRS[name][1]}): our / their ratio")
        for key, label in [("build_cpu_s", "build incl. distribution, CPU s"), ("build_wall_s", "build, wall s"),
                           ("values_cpu_s", "values step alone vs their build, CPU s"),
                           ("peak_mb", "peak memory while building, MB"),
                           ("first_hint_ms", "first hint after loading, ms"),
                           ("warm_hint_us", "warm hint, all options (ours: rank), us"),
                           ("warm_hint_decisions_us", "warm hint, every Decision made, us")]:
            ours, theirs = r[key]
            print(f"  {label:45s} {ours:10.3f} {theirs:10.3f}   ratio {ours / theirs:7.2f}")
        print(f"  score distribution step (ours only), CPU s     {r['distribution_cpu_s']:10.3f}")
        print(f"  agreement: largest difference {worst:.2e} over {compared} option values")
    if "yahtzee" in (args.only or PAIRS):  # both tables were built above
        results["simulation"] = simulation(folder, args.rounds, args.sim_games, args.engine_games, args.jobs, True)
    if not args.skip_variants:
        print("\nvariants: optimal expected score, ours vs theirs")
        results["variants"] = []
        for game, options, peer in VARIANTS:
            ours = run("--child", "variant", "ours", game, json.dumps(options), peer)["expected_score"]
            theirs = run("--child", "variant", "theirs", game, json.dumps(options), peer)["expected_score"]
            results["variants"].append({"game": game, "options": options, "peer": peer, "ours": ours, "theirs": theirs})
            print(f"  {game:8s} {json.dumps(options):78s} {ours:12.7f} {theirs:12.7f}  {peer}  "
                  f"{'agree' if abs(ours - theirs) < 1e-6 else 'DIFFER'}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
