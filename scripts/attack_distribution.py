#!/usr/bin/env python3
"""The ``distribution`` flood on the HTTP seat (issue 24, point 1), on loopback (127.0.0.1) only.

Starts ``kocka seat --http 127.0.0.1:PORT`` as a child process, twice: with the usual table
cache (the kockapóker target table built: every distribution a look-up), then with a cache
holding only the expected-score table (the forward pass, priced and cancellable). Each
time, after a warm-up (the tables loaded, the positions' vectors read once), ``--clients``
(default 8) clients send ``distribution`` requests over HTTP keep-alive for ``--seconds``
(default 30), each for a random three-player kockapóker position: the first throw on an
empty card, dice kept before the second throw, or (forward pass only) a card some boxes
into the game. Meanwhile one more client sends ``hello`` every 20 ms.

Prints the seat's threads and memory (``/proc/PID/status``: VmRSS, and RssAnon, the
memory the process allocated, as opposed to pages of the memory-mapped tables) before the
flood, at its peak and after it, when they came back within 10 % of their level before
(polled for 5 s after the last answer), the answers by code, and the ``hello`` round trip
(median, p99, max). Targets (issue 24): threads and RSS back within 10 % within 5 s of
the last answer; ``hello`` p99 < 50 ms. Exits 1 when a target is missed.

    python scripts/attack_distribution.py
    python scripts/attack_distribution.py --clients 8 --seconds 10 --only target
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import pathlib
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HOST = "127.0.0.1"  # loopback only, by design
RECOVERY_SECONDS = 5.0
HELLO_P99_MS = 50.0
BODY_HELLO = json.dumps({"id": "h", "method": "hello"}).encode()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def proc_status(pid: int) -> dict[str, int]:
    """Threads, VmRSS and RssAnon (kB) of process ``pid``."""
    out = {}
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("Threads", "VmRSS", "RssAnon", "RssFile"):
            out[key] = int(value.split()[0])
    return out


class Client:
    """One keep-alive HTTP connection to the seat."""

    def __init__(self, port: int, timeout: float = 60.0) -> None:
        self.port = port
        self.timeout = timeout
        self.conn = http.client.HTTPConnection(HOST, port, timeout=timeout)

    def post(self, body: bytes) -> dict:
        for attempt in range(2):
            try:
                self.conn.request("POST", "/", body, {"Content-Type": "application/json"})
                return json.loads(self.conn.getresponse().read())
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


def positions(forward: bool, count: int, seed: int) -> list[tuple[int, bytes]]:
    """``count`` distribution requests for random three-player kockapóker positions, each
    with its kind (0: a first throw on an empty card, 1: dice kept before the second
    throw, 2: cards some boxes into the game)."""
    from kocka.solver.rules import get_game
    from kocka.solver.rules.scorecard import Card, ScorecardState

    game = get_game("kockapoker", num_players=3)
    rng = random.Random(seed)
    empty = Card(entries=(None,) * game.num_boxes)
    bodies = []
    for i in range(count):
        kind = rng.randrange(3 if forward else 2)
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(5)))
        if kind == 0:
            state = ScorecardState(cards=(empty,) * 3, dice=dice, throw=1)
        elif kind == 1:
            kept = tuple(sorted(rng.sample(dice, rng.randint(0, 3))))
            state = ScorecardState(cards=(empty,) * 3, kept=kept, throw=1)
        else:  # cards some boxes into the game: the forward pass is admitted, and takes a while
            filled = rng.randint(3, 6)
            state = game.new_initial_state()
            while not (game.is_chance_node(state) and state.player == 0 and state.throw == 0
                       and sum(e is not None for e in state.cards[0].entries) == filled):
                if game.is_chance_node(state):
                    outcomes, weights = zip(*game.chance_outcomes(state))
                    state = game.apply(state, rng.choices(outcomes, weights)[0])
                else:
                    state = game.apply(state, rng.choice(game.legal_actions(state)))
            state = game.apply(state, dice)
        bodies.append((kind, json.dumps({"id": i, "method": "distribution", "state": game.state_to_json(state)}).encode()))
    return bodies


def flood_process(port: int, bodies: list[bytes], clients: int, seconds: float, queue) -> None:
    """``clients`` threads sending ``bodies`` at random for ``seconds``; puts (answers by
    code, time.monotonic() of the last answer) on ``queue``."""
    codes: dict[str, int] = {}
    lock = threading.Lock()
    last = [time.monotonic()]
    stop = time.monotonic() + seconds

    def client(index: int) -> None:
        rng = random.Random(index)
        conn = Client(port)
        while time.monotonic() < stop:
            answer = conn.post(rng.choice(bodies))
            code = answer["error"]["code"] if "error" in answer else "ok"
            with lock:
                codes[code] = codes.get(code, 0) + 1
                last[0] = time.monotonic()
        conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put((codes, last[0]))


def attack(args: argparse.Namespace, cache_dir: str, forward: bool) -> dict:
    port = free_port()
    command = [str(pathlib.Path(sys.executable).with_name("kocka")), "seat", "--http", f"{HOST}:{port}",
               "--cache-dir", cache_dir, "--log-level", "error"]
    if args.worker_threads is not None:
        command += ["--worker-threads", str(args.worker_threads)]
    seat = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 30
        while True:
            try:
                Client(port, 5).post(BODY_HELLO)
                break
            except OSError:
                if time.monotonic() > end or seat.poll() is not None:
                    raise RuntimeError(f"the seat did not start: {seat.stderr.read().decode()[-500:]}")
                time.sleep(0.1)
        hello_page = http.client.HTTPConnection(HOST, port, timeout=30)
        hello_page.request("GET", "/")  # hello made once, before the attack (then answered on the event loop)
        hello_page.getresponse().read()
        hello_page.close()
        kinds = positions(forward, 400, seed=1)
        bodies = [body for _, body in kinds]
        # the warm-up: the tables loaded, the positions' vectors read once, and as many
        # requests at once as in the flood (the slow ones first), so the worker threads
        # are all started before the level "before" is read
        slow = [body for kind, body in kinds if kind == 2][:args.clients]
        sample = slow + bodies[:: max(1, len(bodies) // 40)]

        def warm(part: list[bytes]) -> None:
            client = Client(port)
            for body in part:
                client.post(body)
            client.close()

        warmers = [threading.Thread(target=warm, args=(sample[i::args.clients],)) for i in range(args.clients)]
        for t in warmers:
            t.start()
        for t in warmers:
            t.join()
        time.sleep(1.0)
        before = proc_status(seat.pid)
        peak = dict(before)
        hello_ms: list[float] = []

        # the flood runs in a process of its own, so the hello prober here never waits for
        # the flood clients' interpreter lock: its times are the seat's
        queue: multiprocessing.Queue = multiprocessing.Queue()
        flood = multiprocessing.Process(target=flood_process, args=(port, bodies, args.clients, args.seconds, queue))
        flood.start()
        prober = Client(port)
        stop = time.monotonic() + args.seconds
        next_poll = 0.0
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            prober.post(BODY_HELLO)
            hello_ms.append(1000 * (time.perf_counter() - t0))
            if time.monotonic() >= next_poll:
                now = proc_status(seat.pid)
                peak = {k: max(peak[k], v) for k, v in now.items()}
                next_poll = time.monotonic() + 0.25
            time.sleep(0.02)
        prober.close()
        while flood.is_alive():
            now = proc_status(seat.pid)
            peak = {k: max(peak[k], v) for k, v in now.items()}
            flood.join(0.25)
        codes, last = queue.get(timeout=30)
        last_answer = [last]
        recovered_after = None
        after = proc_status(seat.pid)
        while time.monotonic() - last_answer[0] < RECOVERY_SECONDS + 0.5:
            after = proc_status(seat.pid)
            if after["Threads"] <= 1.1 * before["Threads"] and after["VmRSS"] <= 1.1 * before["VmRSS"]:
                recovered_after = time.monotonic() - last_answer[0]
                break
            time.sleep(0.1)
        return {"before": before, "peak": peak, "after": after, "recovered_after": recovered_after, "codes": codes,
                "hello": sorted(hello_ms)}
    finally:
        seat.terminate()
        try:
            seat.wait(10)
        except subprocess.TimeoutExpired:
            seat.kill()


def report(title: str, result: dict) -> bool:
    b, p, a = result["before"], result["peak"], result["after"]
    hello = result["hello"]
    p99 = hello[min(len(hello) - 1, int(0.99 * len(hello)))] if hello else float("inf")
    print(title)
    for key in ("Threads", "VmRSS", "RssAnon"):
        unit = "" if key == "Threads" else " MB"
        scale = 1 if key == "Threads" else 1 / 1024
        print(f"  {key:<8} before {b[key] * scale:8.1f}{unit}, peak {p[key] * scale:8.1f}{unit}, "
              f"after {a[key] * scale:8.1f}{unit}")
    back = result["recovered_after"]
    print("  threads and VmRSS back within 10 %: " + (f"{back:.1f} s after the last answer" if back is not None
                                                      else f"NOT within {RECOVERY_SECONDS:g} s"))
    total = sum(result["codes"].values())
    print(f"  answers: {total} ({', '.join(f'{k} {v}' for k, v in sorted(result['codes'].items()))})")
    if hello:
        print(f"  hello meanwhile: {len(hello)} round trips, median {statistics.median(hello):.1f} ms, "
              f"p99 {p99:.1f} ms, max {hello[-1]:.1f} ms (target p99 < {HELLO_P99_MS:g} ms)")
    bad = [k for k in result["codes"] if k == "internal_error"]
    return back is not None and p99 < HELLO_P99_MS and not bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--cache-dir", default=None, help="the table cache with both kockapóker tables (default: the usual one)")
    parser.add_argument("--worker-threads", type=int, default=None, help="the seat's (default: its own default)")
    parser.add_argument("--only", choices=("target", "forward"), default=None, help="run one of the two attacks")
    args = parser.parse_args(argv)
    from kocka.solver.rules import get_game
    from kocka.solver.store.table_store import path_for, solver_for

    game = get_game("kockapoker")
    ev = path_for(game, solver_for(game.NAME), args.cache_dir)
    target = path_for(game, solver_for(game.NAME, "target"), args.cache_dir)
    if not ev.is_file() or not target.is_file():
        print("attack_distribution needs both kockapóker tables: kocka-solve build kockapoker; "
              "kocka-solve build kockapoker --kind target", file=sys.stderr)
        return 1
    ok = True
    shape = f"{args.clients} clients x distribution for {args.seconds:g} s"
    if args.only in (None, "target"):
        ok &= report(f"{shape}, target table built (a look-up per request):", attack(args, str(ev.parent), False))
    if args.only in (None, "forward"):
        bare = tempfile.mkdtemp(prefix="attack-distribution-")
        try:
            shutil.copy(ev, pathlib.Path(bare) / ev.name)
            ok &= report(f"{shape}, no target table (the forward pass, priced and cancellable):", attack(args, bare, True))
        finally:
            shutil.rmtree(bare, ignore_errors=True)
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
