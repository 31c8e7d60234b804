#!/usr/bin/env python
"""What the integrity checks add to loading a table (docs/SOLVER.md, "Table integrity").

For each table it times, warm (page cache hot; the fastest of ``--repeat`` interleaved loads):

* ``unchecked``: reading every array and the metadata record, nothing checked (the load
  before issue 12);
* ``recorded``: :func:`kocka.solver.store.table_store.open_table` as every load runs it: format,
  variant, the recorded rules through the Rules class, the layout, and the checksum
  vouched for by the verified record of the unchanged file;
* ``full``: the same with the full sha256 (``kocka-solve verify``, and the first load of a
  new or changed file);

and prints each as a ratio to ``unchecked``. Tables: kockapoker/ev (the largest that
builds in seconds) and kocka/winprob, built into ``--cache-dir`` when missing; polish/ev
when it is already there (it takes minutes to build); ``--synthetic-mb N`` adds a table of
one float64 array of N MB (the full Polish table is 723 MB) read with
:func:`kocka.solver.base.table_file.read_table`.

    python scripts/bench_table_load.py
    python scripts/bench_table_load.py --cache-dir cache --synthetic-mb 723
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile
import time

import numpy as np

from kocka.solver.base import table_file as tables
from kocka.solver.store.table_store import build_table, open_table, path_for, solver_for
from kocka.solver.rules import get_game
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import KockaError, TableError

TABLES = [("kockapoker", {}, None, 1, True), ("kocka", {}, "winprob", 2, True), ("polish", {}, None, 1, False)]


def unchecked_load(path: pathlib.Path) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    json.loads(arrays.pop("__meta__").tobytes())


def best_seconds(fns, repeat: int) -> list[float]:
    """The fastest of ``repeat`` timings of each function, taken in interleaved rounds so
    that other load on the machine hits them alike (the minimum: the cost without noise)."""
    for fn in fns:
        fn()  # warm the page cache and the per-rules caches (the Kocka turn model, ...)
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def ensure_recorded(path: pathlib.Path, load) -> None:
    """Wait until the file is old enough for a verified record, then write it (one full load)."""
    st = path.stat()
    wait = (max(st.st_mtime_ns, st.st_ctime_ns) + tables._RACY_NS) / 1e9 - time.time() + 0.1
    if wait > 0:
        time.sleep(wait)
    load("full")
    if not tables.verified_path(path).is_file():
        sys.exit(f"no verified record was written for {path} (read-only folder?)")


def report(label: str, size: int, unchecked: float, recorded: float, full: float) -> None:
    print(f"{label:16s} {size / 1e6:9.1f} MB  unchecked {unchecked * 1e3:9.2f} ms   "
          f"recorded {recorded * 1e3:9.2f} ms ({recorded / unchecked:5.2f}x, {100 * (recorded / unchecked - 1):+6.1f} %)   "
          f"full {full * 1e3:9.2f} ms ({full / unchecked:5.2f}x, {100 * (full / unchecked - 1):+6.1f} %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", default=None, help="folder of the tables (default: a fresh temporary one)")
    parser.add_argument("--repeat", type=int, default=30, help="loads per measurement (the fastest counts)")
    parser.add_argument("--jobs", type=int, default=2, help="threads for building the winprob table")
    parser.add_argument("--synthetic-mb", type=float, default=0.0, help="also time a synthetic table of this size")
    args = parser.parse_args()
    cache = pathlib.Path(args.cache_dir or tempfile.mkdtemp(prefix="kocka-bench-"))
    print(f"tables in {cache}; best of {args.repeat} warm loads; ratios to the unchecked read")
    for name, rules, kind, players, build in TABLES:
        try:
            game = get_game(name, rules, num_players=players)
            solver = solver_for(game.NAME, kind)
        except (KockaError, TableError) as exc:
            print(f"{name:16s} (unavailable: {exc})")
            continue
        path = path_for(game, solver, cache)
        if not path.is_file():
            if not build:
                print(f"{name + '/' + solver.kind:16s} (not built: {path})")
                continue
            print(f"building {name}/{solver.kind} ...", flush=True)
            build_table(game, solver, BuildOptions(jobs=args.jobs, progress=False), cache)

        def load(verify: str, game=game, solver=solver) -> None:
            open_table(game, solver, cache, verify=verify)

        ensure_recorded(path, load)
        repeat = args.repeat if path.stat().st_size < 100e6 else max(3, args.repeat // 10)
        report(f"{name}/{solver.kind}", path.stat().st_size,
               *best_seconds([lambda: unchecked_load(path), lambda: load("recorded"), lambda: load("full")], repeat))
    if args.synthetic_mb:
        path = cache / "synthetic-ev-000000000000.npz"
        values = np.random.default_rng(0).random(int(args.synthetic_mb * 1e6 / 8))
        tables.save_table(path, {"values": values}, tables.TableMeta(game="synthetic", kind="ev", variant_id="synthetic:0",
                                                                   rules={}))
        del values

        def read(verify: str) -> None:
            tables.read_table(path, verify=verify)

        ensure_recorded(path, read)
        repeat = max(3, args.repeat // 10)
        report("synthetic", path.stat().st_size,
               *best_seconds([lambda: unchecked_load(path), lambda: read("recorded"), lambda: read("full")], repeat))
        path.unlink()
        tables.verified_path(path).unlink(missing_ok=True)
    if not args.cache_dir:
        for p in cache.iterdir():
            p.unlink()
        os.rmdir(cache)


if __name__ == "__main__":
    main()
