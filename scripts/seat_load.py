#!/usr/bin/env python3
"""Load test of the AI seat over HTTP, on loopback (127.0.0.1) only.

Starts ``kocka seat``'s HTTP server in a child process (this script with ``--serve``: the
real app and uvicorn settings, plus one test-only method ``slow`` that keeps the CPU busy
in pure Python for ``--slow-seconds``, holding the GIL as long as the interpreter lets
it, the worst kind of slow request). Then, for ``--seconds``:

* ``--clients`` keep-alive clients (default 32) send a mix of requests back to back
  (``score``, ``legal`` at a decision and at a roll, ``apply``, ``choose`` / ``rank``
  with ``--agent``, ``new``, ``hello``), each answer checked for its kind;
* one client keeps a ``slow`` request in flight all the time;
* one client, in a process of its own, sends ``GET /`` (``hello``) every 20 ms and times
  it while ``slow`` runs.

Then it opens ``--half-open`` connections (default 500: half send nothing, half a
partial request head) and waits until the server has closed each (its head timeout),
while timing ``hello`` again. Prints throughput, p50 / p99 per method and overall,
errors (answers of the wrong kind, statuses other than 200, broken connections), the p99
of ``hello`` while ``slow`` runs (target < 50 ms), how many half-open connections the
server closed and how long that took, and the server's resident memory. Exits 1 on any
error or an unclosed connection. Everything is bounded in time and stops by itself.

    python scripts/seat_load.py                       # 32 clients, 60 s, 500 half-open
    python scripts/seat_load.py --seconds 10 --clients 8 --half-open 100
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import http.client
import json
import multiprocessing
import os
import random
import subprocess
import sys
import time
from typing import Any

from seat_tools import percentile, rss_kib

HOST = "127.0.0.1"  # loopback only, by design
HU_RULES = None  # the full card


# ----------------------------------------------------------------------------------------
# The server (child process)
# ----------------------------------------------------------------------------------------
def serve(args: argparse.Namespace) -> int:
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
    from kocka.agents.frontends.seat.http import SeatHTTPServer, http_options, run_server

    seat = Seat(SeatOptions(cache_dir=args.cache_dir))

    def slow(request: dict) -> dict:  # test-only: pure-Python work for slow_seconds
        end, n = time.perf_counter() + args.slow_seconds, 0
        while time.perf_counter() < end:
            n += sum(i * i for i in range(200))
        return {"spun": n > 0}

    seat.handlers["slow"] = slow
    options = http_options(f"{HOST}:0", request_timeout=args.request_timeout, head_timeout=args.head_timeout)
    server = SeatHTTPServer(seat, options)
    # kocka seat --http's own start-up; the URL goes to stdout, where the parent reads it
    return run_server(server, server.url, stream=sys.stdout)


# ----------------------------------------------------------------------------------------
# A lean HTTP/1.1 keep-alive client (the load must not be limited by the client's CPU)
# ----------------------------------------------------------------------------------------
class Connection:
    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, body: bytes | None) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        head = f"{'GET' if body is None else 'POST'} / HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + (body or b""))
        status_line = await self.reader.readline()
        if not status_line:
            await self.close()
            raise ConnectionError("closed by the server")
        length, close = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        data = await self.reader.readexactly(length)
        if close:
            await self.close()
        return int(status_line.split()[1]), data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass
        self.reader = self.writer = None


def probe_hello(port: int, seconds: float, slow_in_flight: Any, send: Any) -> None:
    """(In a child process.) ``GET /`` every 20 ms for ``seconds`` over one blocking
    keep-alive connection; sends back the latencies of those made while the slow
    request was in flight from start to end, and any errors."""
    samples, errors = [], []
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        time.sleep(0.02)
        before = slow_in_flight.value
        start = time.perf_counter()
        try:
            conn.request("GET", "/")
            reply = conn.getresponse()
            body = reply.read()
        except (OSError, http.client.HTTPException) as exc:
            errors.append(repr(exc))
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
            continue
        took = time.perf_counter() - start
        if reply.status != 200 or not body.startswith(b'{"id":null,"result":{"protocol"'):
            errors.append(f"status {reply.status}: {body[:200]!r}")
        elif before and slow_in_flight.value:
            samples.append(took)
    conn.close()
    send.send((samples, errors))


class Load:
    def __init__(self, port: int, args: argparse.Namespace) -> None:
        self.port = port
        self.args = args
        self.latency: dict[str, list[float]] = collections.defaultdict(list)
        self.errors: collections.Counter = collections.Counter()
        self.examples: list[str] = []
        self.hello_while_slow: list[float] = []
        self.hello_half_open: list[float] = []
        self.slow_in_flight = multiprocessing.get_context("fork").Value("b", 0)
        self.slow_done = 0
        self.stop = 0.0
        self.server: subprocess.Popen | None = None

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        if len(self.examples) < 10:
            self.examples.append(f"{kind}: {detail[:300]}")

    async def positions(self) -> list[tuple[str, dict, str]]:
        """(method, request fields, expected kind) of the mix, from real positions."""
        conn = Connection(self.port)
        rules = {} if HU_RULES is None else {"rules": HU_RULES}
        _, data = await conn.request(json.dumps({"id": 0, "method": "new", "game": "kockapoker", **rules}).encode())
        chance = json.loads(data)["result"]["state"]
        _, data = await conn.request(json.dumps({"id": 0, "method": "apply", "state": chance, "outcome": [1, 1, 3, 4, 6]}).encode())
        decision = json.loads(data)["result"]["state"]
        _, data = await conn.request(json.dumps({"id": 0, "method": "legal", "state": decision}).encode())
        action = json.loads(data)["result"]["actions"][5]["action"]
        await conn.close()
        agent = self.args.agent
        return [
            ("score", {"game": "kockapoker", "dice": [3, 3, 3, 5, 5]}, "result"),
            ("legal (decision)", {"state": decision}, "result"),
            ("legal (chance)", {"state": chance}, "result"),
            ("apply", {"state": decision, "action": action}, "result"),
            ("choose", {"state": decision, "agent": agent, "seed": 1}, "result"),
            ("rank", {"state": decision, "agent": agent}, "result"),
            ("new", {"game": "yatzy"}, "result"),
            ("hello", {}, "result"),
            ("malformed", {"dice": [7, 7, 7, 7, 7], "game": "kockapoker"}, "bad_dice"),
        ]

    async def client(self, mix: list[tuple[str, dict, str]], weights: list[int], seed: int) -> None:
        rng = random.Random(seed)
        conn = Connection(self.port)
        n = 0
        while time.perf_counter() < self.stop:
            label, fields, expect = rng.choices(mix, weights)[0]
            n += 1
            method = {"legal (decision)": "legal", "legal (chance)": "legal", "malformed": "score"}.get(label, label)
            body = json.dumps({"id": n, "method": method, **fields}).encode()
            start = time.perf_counter()
            try:
                status, data = await conn.request(body)
            except (ConnectionError, OSError, asyncio.IncompleteReadError) as exc:
                self.error("connection", repr(exc))
                await conn.close()
                continue
            self.latency[label].append(time.perf_counter() - start)
            if status != 200:
                self.error(f"status {status}", data.decode(errors="replace"))
                continue
            # the seat writes {"id":N,"result":...} or {"id":N,"error":{"code":...}}: checked on
            # the bytes, so that decoding big answers does not slow the client down
            wanted = b'{"id":%d,"result":' % n if expect == "result" else b'{"id":%d,"error":{"code":"%s"' % (n, expect.encode())
            if not data.startswith(wanted):
                self.error(f"{label}: not {expect}", data[:300].decode(errors="replace"))
        await conn.close()

    async def slow_client(self) -> None:
        conn = Connection(self.port)
        while time.perf_counter() < self.stop:
            self.slow_in_flight.value = 1
            try:
                status, data = await conn.request(b'{"id": "slow", "method": "slow"}')
            except (ConnectionError, OSError, asyncio.IncompleteReadError) as exc:
                self.error("connection (slow)", repr(exc))
                await conn.close()
                continue
            finally:
                self.slow_in_flight.value = 0
            if status != 200 or "result" not in json.loads(data):
                self.error("slow", data.decode(errors="replace"))
            self.slow_done += 1
        await conn.close()

    async def hello_probe(self, into: list[float], until: Any) -> None:
        conn = Connection(self.port)
        while not until():
            await asyncio.sleep(0.02)
            start = time.perf_counter()
            try:
                status, data = await conn.request(None)
            except (ConnectionError, OSError, asyncio.IncompleteReadError) as exc:
                self.error("connection (hello)", repr(exc))
                await conn.close()
                continue
            into.append(time.perf_counter() - start)
            if status != 200:
                self.error(f"hello status {status}", data.decode(errors="replace"))
        await conn.close()

    async def half_open(self, count: int) -> tuple[int, float, float]:
        """Open ``count`` connections that never finish a request; (closed by the
        server, seconds until the last was closed, seconds until all were open)."""
        start = time.perf_counter()
        opened: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        for i in range(count):
            reader, writer = await asyncio.open_connection(HOST, self.port)
            if i % 2:
                writer.write(f"POST / HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nContent-Ty".encode())
            opened.append((reader, writer))
        all_open = time.perf_counter() - start

        async def wait_closed(reader: asyncio.StreamReader) -> float | None:
            try:
                await asyncio.wait_for(reader.read(), self.args.head_timeout + 15)  # until the server closes
            except (asyncio.TimeoutError, OSError):
                return None
            return time.perf_counter() - start

        done = asyncio.get_running_loop().create_future()
        probe = asyncio.create_task(self.hello_probe(self.hello_half_open, done.done))
        times = await asyncio.gather(*(wait_closed(r) for r, _ in opened))
        done.set_result(None)
        await probe
        for _, writer in opened:
            writer.close()
        closed = [t for t in times if t is not None]
        return len(closed), max(closed, default=float("nan")), all_open

    async def run(self) -> dict:
        mix = await self.positions()
        weights = [20, 18, 8, 16, 14, 8, 6, 5, 5]
        self.stop = time.perf_counter() + self.args.seconds
        started = time.perf_counter()
        # hello is timed from a process of its own: this one's event loop is busy with the
        # other clients, and its delays are not the server's
        receive, send = multiprocessing.get_context("fork").Pipe(duplex=False)
        probe = multiprocessing.get_context("fork").Process(
            target=probe_hello, args=(self.port, self.args.seconds, self.slow_in_flight, send), daemon=True)
        probe.start()
        await asyncio.gather(*(self.client(mix, weights, seed) for seed in range(self.args.clients)), self.slow_client())
        elapsed = time.perf_counter() - started
        self.hello_while_slow, probe_errors = await asyncio.get_running_loop().run_in_executor(None, receive.recv)
        probe.join(30)
        for error in probe_errors:
            self.error("hello", error)
        if self.server is not None and self.server.poll() is not None:
            raise SystemExit(f"seat_load: the server exited (status {self.server.returncode}) during the load")
        closed, last_closed, all_open = await self.half_open(self.args.half_open)
        return {"elapsed": elapsed, "closed": closed, "last_closed": last_closed, "all_open": all_open}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--half-open", type=int, default=500)
    parser.add_argument("--agent", default="heuristic", help="agent of choose/rank (optimal needs its table)")
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--slow-seconds", type=float, default=3.0)
    parser.add_argument("--request-timeout", type=float, default=5.0)
    parser.add_argument("--head-timeout", type=float, default=5.0)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args)

    command = [sys.executable, os.path.abspath(__file__), "--serve", "--slow-seconds", str(args.slow_seconds),
               "--request-timeout", str(args.request_timeout), "--head-timeout", str(args.head_timeout)]
    if args.cache_dir:
        command += ["--cache-dir", args.cache_dir]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        if not url.startswith(f"http://{HOST}:"):
            print(f"seat_load: the server did not start ({url!r})", file=sys.stderr)
            return 1
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        load = Load(port, args)
        load.server = server
        rss_start = rss_kib(server.pid)
        figures = asyncio.run(load.run())
        rss_end = rss_kib(server.pid)
    finally:
        server.terminate()  # the child this script started
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()

    all_latency = [t for values in load.latency.values() for t in values]
    requests = len(all_latency)
    errors = sum(load.errors.values())
    print(f"seat_load: {args.clients} clients for {figures['elapsed']:.1f} s on {url}, agent {args.agent}, "
          f"one '{args.slow_seconds:g} s' slow request always in flight ({load.slow_done} done)")
    print(f"  throughput {requests / figures['elapsed']:.0f} requests/s ({requests} requests), "
          f"p50 {1000 * percentile(all_latency, 0.5):.2f} ms, p99 {1000 * percentile(all_latency, 0.99):.2f} ms, "
          f"errors {errors}")
    for label, values in sorted(load.latency.items(), key=lambda kv: -len(kv[1])):
        print(f"    {label:18s} {len(values):7d}  p50 {1000 * percentile(values, 0.5):7.2f} ms  "
              f"p99 {1000 * percentile(values, 0.99):7.2f} ms  max {1000 * max(values):7.1f} ms")
    hello = load.hello_while_slow
    print(f"  hello while the slow request runs: {len(hello)} samples, p50 {1000 * percentile(hello, 0.5):.2f} ms, "
          f"p99 {1000 * percentile(hello, 0.99):.2f} ms (target < 50 ms)")
    print(f"  half-open connections: {figures['closed']} of {args.half_open} closed by the server, the last "
          f"{figures['last_closed']:.2f} s after the first opened (head timeout {args.head_timeout:g} s; all open after "
          f"{figures['all_open']:.2f} s); hello meanwhile p99 {1000 * percentile(load.hello_half_open, 0.99):.2f} ms")
    show = lambda kib: "?" if kib is None else f"{kib / 1024:.1f} MiB"  # noqa: E731
    print(f"  server RSS: {show(rss_start)} at the start, {show(rss_end)} at the end")
    for example in load.examples:
        print("  ERROR " + example)
    return 1 if errors or figures["closed"] != args.half_open else 0


if __name__ == "__main__":
    sys.exit(main())
