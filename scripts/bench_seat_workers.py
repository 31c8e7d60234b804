#!/usr/bin/env python3
"""Seat throughput and memory with worker processes sharing memory-mapped tables (issue 28).

On loopback (127.0.0.1) only. In order:

1. *Tables*: the kockapóker tables of ``--cache-dir`` (built if missing, with
   ``--build-missing``). Format 2 tables (unaligned) are rewritten as format 3 into
   ``--scratch`` (their checksum verified in full first), so that every array is mapped;
   the benchmark then reads the tables from there.
2. *Checksum*: sha256 over the mapped kockapóker target table (the biggest, 1.3 GB) with
   the file's pages evicted first (``posix_fadvise(DONTNEED)``: as after a reboot) and
   again from the page cache; then ``open_table`` with ``verify="full"`` and with the
   verified record (``"recorded"``, what every load uses).
3. *First hint after loading*: in a fresh process, the table loaded (``get_table``), then
   one hint (``rank`` of a decision position met in play) timed: the figure
   ``scripts/bench_peers.py`` prints as "first hint after loading", measured the same way
   (``gc.collect()`` first, the best of ``--first-runs`` fresh processes), for kockapóker
   and Yahtzee.
4. *Throughput*: ``kocka seat --http 127.0.0.1:0 --workers N`` for each N of
   ``--workers`` (default 1 and 2); ``--clients`` keep-alive clients, each in its own
   process, send a kockapóker mix (``rank`` and ``choose`` with each of ``--agents``:
   ``optimal`` reads the 9 MB expected-score table, ``target`` the 1.3 GB target table;
   ``legal``, ``apply``, ``score``) for ``--seconds`` after a warm-up that reaches every
   worker; prints requests/s, p50 and p99, and each worker's RSS, PSS and USS from
   ``/proc/<pid>/smaps_rollup`` (RSS counts the shared table pages in full in every
   process; PSS splits them between the processes that map them; USS is what the process
   alone holds, i.e. what one more worker costs) and the table files each has mapped.

    python scripts/bench_seat_workers.py                      # 1 and 2 workers, 10 s each
    python scripts/bench_seat_workers.py --workers 1 2 4 --seconds 20 --clients 4
    python scripts/bench_seat_workers.py --agents optimal target --skip-checksum
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import multiprocessing
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time

from seat_load import HOST, Connection
from seat_tools import percentile

GAME = "kockapoker"


# ----------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------
def prepare_tables(cache_dir: pathlib.Path, scratch: pathlib.Path, build_missing: bool) -> pathlib.Path:
    """``scratch``, holding every table the benchmark reads (kockapóker's, Yahtzee's
    default one) at format 3: a format 3 table of ``cache_dir`` linked, a format 2 one
    rewritten (its checksum verified in full first; the new file gets its own)."""
    from kocka.solver.base.table_file import TABLE_FORMAT_VERSION, read_table, save_table
    from kocka.solver.rules import get_game
    from kocka.solver.store.table_store import get_table, path_for, solvers_for

    scratch.mkdir(parents=True, exist_ok=True)
    for name, solvers in ((GAME, solvers_for(GAME)), ("yahtzee", solvers_for("yahtzee")[:1])):
        game = get_game(name)
        for solver in solvers:
            source, target = path_for(game, solver, cache_dir), path_for(game, solver, scratch)
            if target.is_file() and read_table(target).meta.format_version == TABLE_FORMAT_VERSION:
                continue
            old = get_table(game, solver.kind, cache_dir, build_missing=build_missing)
            if old.meta.format_version == TABLE_FORMAT_VERSION:
                target.unlink(missing_ok=True)
                target.symlink_to(source.resolve())
                continue
            start = time.perf_counter()
            old = read_table(source, verify="full")
            doc = json.loads(old.meta.to_json())
            doc.update(format_version=TABLE_FORMAT_VERSION, checksum="")
            save_table(target, old.arrays, type(old.meta)(**doc))
            print(f"  {source.name}: format {old.meta.format_version} rewritten as format {TABLE_FORMAT_VERSION} "
                  f"({target.stat().st_size / 2**20:,.0f} MiB, {time.perf_counter() - start:.1f} s)", flush=True)
    return scratch


def checksum_costs(folder: pathlib.Path) -> None:
    from kocka.solver.base import table_file
    from kocka.solver.rules import get_game
    from kocka.solver.store.table_store import open_table, path_for, solver_for

    game, solver = get_game(GAME), solver_for(GAME, "target")
    path = path_for(game, solver, folder)
    size = path.stat().st_size
    table = table_file.read_table(path)  # mapped; the verified record is trusted (or written)
    for label in ("pages evicted first", "from the page cache"):
        if label.startswith("pages"):
            with open(path, "rb") as fh:
                os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        start = time.perf_counter()
        digest = table_file.checksum(table.arrays, json.loads(table.meta.to_json()))
        took = time.perf_counter() - start
        assert digest == table.meta.checksum
        print(f"  sha256 over the mapped {path.name} ({size / 2**30:.2f} GiB), {label}: {took:.2f} s "
              f"({size / took / 2**30:.2f} GiB/s)", flush=True)
    for verify in ("full", "recorded"):
        times = []
        for _ in range(3 if verify == "recorded" else 1):
            start = time.perf_counter()
            open_table(game, solver, folder, verify=verify)
            times.append(time.perf_counter() - start)
        print(f"  open_table(verify={verify!r}) of that table: {min(times) * 1000:,.1f} ms "
              "(format, identity, layout, checksum" + (" from the verified record" if verify == "recorded" else "")
              + ", spot checks)", flush=True)


def child_first_hint(game_name: str, folder: str) -> None:
    """(In a fresh process.) Load the table, then time the first hint: prints ms."""
    import random

    from kocka.agents.bots.base import positions_with_rng
    from kocka.solver.rules import get_game
    from kocka.solver.solvers.scorecard.values import rank
    from kocka.solver.store.table_store import get_table

    game = get_game(game_name)
    table = get_table(game, cache_dir=folder)
    # a decision position of seeded play, found without the table (random legal actions)
    rng = random.Random(3)
    state = positions_with_rng(game, lambda s: rng.choice(list(game.legal_actions(s))), random.Random(3), 5)[-1]
    gc.collect()
    start = time.perf_counter()
    rank(game, table, state)[0]
    print(json.dumps({"first_ms": (time.perf_counter() - start) * 1000}))


def first_hint(game_name: str, folder: pathlib.Path, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        out = subprocess.run([sys.executable, __file__, "--child-first", game_name, "--cache-dir", str(folder)],
                             capture_output=True, text=True, timeout=300)
        if out.returncode:
            raise SystemExit(f"first hint of {game_name} failed: {out.stderr.strip()[-800:]}")
        best = min(best, json.loads(out.stdout.strip().splitlines()[-1])["first_ms"])
    return best


# ----------------------------------------------------------------------------------------
# The seat
# ----------------------------------------------------------------------------------------
def start_seat(workers: int, folder: pathlib.Path) -> tuple[subprocess.Popen, int]:
    command = [str(pathlib.Path(sys.executable).with_name("kocka")), "seat", "--http", f"{HOST}:0",
               "--workers", str(workers), "--cache-dir", str(folder), "--max-inflight", "256"]
    seat = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    line = seat.stderr.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not found:
        seat.kill()
        raise SystemExit(f"the seat did not start: {line}{seat.stderr.read()[-800:]}")
    # the rest of its log is passed on, so that a full pipe never blocks it
    threading.Thread(target=lambda: [sys.stderr.write(x) for x in seat.stderr], daemon=True).start()
    return seat, int(found.group(1))


def worker_pids(seat: subprocess.Popen, workers: int) -> list[int]:
    """The processes that answer: the seat itself, or its uvicorn workers (not the
    multiprocessing resource tracker)."""
    if workers == 1:
        return [seat.pid]
    children = pathlib.Path(f"/proc/{seat.pid}/task/{seat.pid}/children").read_text().split()
    return [int(pid) for pid in children if b"spawn_main" in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()]


def memory_mib(pid: int) -> dict[str, float]:
    """RSS, PSS and USS (private clean + dirty) of ``pid``, MiB, from smaps_rollup."""
    fields = {}
    for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, value = line.partition(":")
        fields[name] = int(value.split()[0]) / 1024
    return {"rss": fields["Rss"], "pss": fields["Pss"], "uss": fields["Private_Clean"] + fields["Private_Dirty"]}


def mapped_tables(pid: int) -> dict[str, float]:
    """The table files ``pid`` maps, with their resident MiB in it."""
    out, current = {}, None
    for line in pathlib.Path(f"/proc/{pid}/smaps").read_text().splitlines():
        parts = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            current = parts[5] if len(parts) > 5 and parts[5].endswith(".npz") else None
        elif current and parts[0] == "Rss:":
            out[pathlib.Path(current).name] = out.get(pathlib.Path(current).name, 0) + int(parts[1]) / 1024
    return out


async def _mix(port: int, agents: list[str]) -> list[tuple[str, bytes]]:
    conn = Connection(port)
    _, data = await conn.request(json.dumps({"id": 0, "method": "new", "game": GAME}).encode())
    chance = json.loads(data)["result"]["state"]
    _, data = await conn.request(json.dumps({"id": 0, "method": "apply", "state": chance, "outcome": [1, 1, 3, 4, 6]}).encode())
    decision = json.loads(data)["result"]["state"]
    _, data = await conn.request(json.dumps({"id": 0, "method": "legal", "state": decision}).encode())
    action = json.loads(data)["result"]["actions"][5]["action"]
    await conn.close()
    fields = [(method, {"state": decision, "agent": agent, **({"seed": 1} if method == "choose" else {})})
              for agent in agents for method in ("rank", "choose")]
    fields += [("legal", {"state": decision}), ("apply", {"state": decision, "action": action}),
              ("score", {"game": GAME, "dice": [3, 3, 3, 5, 5]})]
    return [(f"{method} {f.get('agent', '')}".strip(), json.dumps({"id": 1, "method": method, **f}).encode())
            for method, f in fields]


def client_process(port: int, agents: list[str], seconds: float, send) -> None:
    """(In a child process.) Requests of the mix back to back over one keep-alive
    connection for ``seconds``; sends back the latencies and the errors."""
    async def go():
        mix = await _mix(port, agents)
        conn, latencies, errors, n = Connection(port), [], 0, 0
        stop = time.perf_counter() + seconds
        while time.perf_counter() < stop:
            _, body = mix[n % len(mix)]
            n += 1
            start = time.perf_counter()
            status, data = await conn.request(body)
            latencies.append(time.perf_counter() - start)
            errors += status != 200 or not data.startswith(b'{"id":1,"result":')
        await conn.close()
        return latencies, errors
    send.send(asyncio.run(go()))


async def _warm_up(port: int, pids: list[int], agents: list[str]) -> None:
    """New connections (each accepted by whichever worker is free) until every worker has
    answered ``rank`` with every agent (a table each), or 60 s."""
    mix = dict(await _mix(port, agents))
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline:
        conns = [Connection(port) for _ in range(2 * len(pids))]
        async def both(conn: Connection) -> None:
            for label in (f"rank {agent}" for agent in agents):
                await conn.request(mix[label])
        await asyncio.gather(*(both(c) for c in conns))
        await asyncio.gather(*(c.close() for c in conns))
        if all(len(mapped_tables(pid)) >= len(agents) for pid in pids):
            return


def measure(workers: int, folder: pathlib.Path, clients: int, seconds: float, agents: list[str]) -> dict:
    seat, port = start_seat(workers, folder)
    try:
        time.sleep(0.5)
        pids = worker_pids(seat, workers)
        while workers > 1 and len(pids) < workers:
            time.sleep(0.2)
            pids = worker_pids(seat, workers)
        asyncio.run(_warm_up(port, pids, agents))
        context = multiprocessing.get_context("fork")
        pipes, procs = [], []
        for _ in range(clients):
            receive, send = context.Pipe(duplex=False)
            proc = context.Process(target=client_process, args=(port, agents, seconds, send))
            proc.start()
            pipes.append(receive)
            procs.append(proc)
        results = [p.recv() for p in pipes]
        for proc in procs:
            proc.join()
        latencies = [x for lat, _ in results for x in lat]
        memory = [memory_mib(pid) for pid in pids]
        tables = [mapped_tables(pid) for pid in pids]
    finally:
        seat.send_signal(signal.SIGTERM)
        try:
            seat.wait(30)
        except subprocess.TimeoutExpired:
            seat.kill()
    return {"workers": workers, "rps": len(latencies) / seconds, "p50_ms": percentile(latencies, 0.5) * 1000,
            "p99_ms": percentile(latencies, 0.99) * 1000, "errors": sum(e for _, e in results),
            "memory": memory, "tables": tables}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", type=pathlib.Path, default=None)
    parser.add_argument("--scratch", type=pathlib.Path, default=pathlib.Path("/tmp/kocka-bench-seat-workers"),
                        help="where format 2 tables are rewritten as format 3")
    parser.add_argument("--build-missing", action="store_true")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--first-runs", type=int, default=3)
    parser.add_argument("--agents", nargs="+", default=["optimal"], choices=["optimal", "target"],
                        help="the agents of rank and choose: optimal reads the 9 MB table, target the 1.3 GB one")
    parser.add_argument("--skip-checksum", action="store_true")
    parser.add_argument("--child-first", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_first:
        child_first_hint(args.child_first, str(args.cache_dir))
        return 0
    from kocka.solver.base.table_file import default_cache_dir

    cache_dir = args.cache_dir or default_cache_dir()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; tables from {cache_dir}", flush=True)
    print(f"tables (format 3) in {args.scratch}:", flush=True)
    folder = prepare_tables(cache_dir, args.scratch, args.build_missing)
    if not args.skip_checksum:
        print("checksum:", flush=True)
        checksum_costs(folder)
    print("first hint after loading (best of %d fresh processes, target <= 0.2 ms):" % args.first_runs, flush=True)
    for name in (GAME, "yahtzee"):
        print(f"  {name}: {first_hint(name, folder, args.first_runs):.3f} ms", flush=True)
    print(f"seat, {args.clients} keep-alive clients (each its own process), {args.seconds:g} s, kockapoker mix "
          f"(rank, choose with {' and '.join(args.agents)}; legal; apply; score):", flush=True)
    for workers in args.workers:
        r = measure(workers, folder, args.clients, args.seconds, args.agents)
        print(f"  {workers} worker(s): {r['rps']:,.0f} requests/s, p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, "
              f"errors {r['errors']}", flush=True)
        for i, (mem, tables) in enumerate(zip(r["memory"], r["tables"])):
            mapped = ", ".join(f"{name} {mib:.1f} MiB resident" for name, mib in sorted(tables.items())) or "none"
            print(f"    worker {i + 1}: RSS {mem['rss']:.1f} MiB, PSS {mem['pss']:.1f} MiB, USS {mem['uss']:.1f} MiB; "
                  f"tables mapped: {mapped}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
