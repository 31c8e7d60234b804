#!/usr/bin/env python3
"""Soak test of the AI seat: many mixed requests through one ``kocka seat`` process.

Plays whole games through the protocol (``new``, ``legal`` at every roll, ``apply``,
``choose`` at every decision) with ``rank``, ``legal`` and ``score`` requests, ``hello``
and malformed requests mixed in, until ``--requests`` requests have been answered. Reports
the round-trip latency of each method (client encoding and pipes included) as p50 / p99 /
max, and the seat's resident memory (``VmRSS``) after start, after the warm-up (tables
loaded), after each tenth of the run and at the end. Exits 1 if any answer was not the
expected kind. ``--in-process`` calls the seat in this process instead (no pipes, no second
process to schedule) and adds the CPU time per request; its memory figures then include
the client's own.

    python scripts/seat_soak.py --game kockapoker --agent optimal --requests 100000
    python scripts/seat_soak.py --game yatzy --rules '{"boxes": ["chance", "yatzy"]}' --agent heuristic --requests 2000
"""
from __future__ import annotations

import argparse
import json
import pathlib
import random
import shlex
import sys
import time
from collections import defaultdict

from seat_client import SeatClient, SeatError
from seat_tools import percentile, rss_kib

MALFORMED = [  # (raw line, expected error code)
    ('{"id": "bad", "method": "hello"', "parse_error"),
    ('{"id": "bad", "method": "resign"}', "unknown_method"),
    ('{"id": "bad", "method": "score", "game": "kockapoker", "dice": [1, 2, 3, 4, 7]}', "bad_dice"),
    ('{"id": "bad", "method": "legal", "state": {"schema": "kocka.state/1", "game": "kockapoker", "state": {}}}', "illegal_state"),
    ('[1, 2, 3]', "invalid_request"),
]


class PipeSeat:
    """A ``kocka seat`` process, spoken to over its pipes (what a frontend sees)."""

    def __init__(self, command: list[str]) -> None:
        self.client = SeatClient(command)
        self.pid = self.client.process.pid

    def exchange(self, line: str) -> str:
        self.client.process.stdin.write(line + "\n")
        self.client.process.stdin.flush()
        return self.client.process.stdout.readline()

    def close(self) -> None:
        self.client.close()


class InProcessSeat:
    """The seat called directly in this process: no pipes and no second process to
    schedule, so the figures are the seat's own cost (``cpu`` columns too)."""

    def __init__(self, cache_dir: str | None, build_missing: bool) -> None:
        import os

        from kocka.agents.frontends.seat.protocol import Seat, SeatOptions

        self.seat = Seat(SeatOptions(cache_dir=cache_dir, build_missing=build_missing))
        self.pid = os.getpid()

    def exchange(self, line: str) -> str:
        return self.seat.handle_line(line)

    def close(self) -> None:
        pass


class TimedClient:
    """Sends requests, checks each answer's id and kind, and records the wall-clock
    round trip (and, in process, the CPU time) of every request by method."""

    def __init__(self, seat: PipeSeat | InProcessSeat) -> None:
        self.seat = seat
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.cpu: dict[str, list[float]] = defaultdict(list)
        self.count = 0
        self.unexpected: list[str] = []

    def request(self, method: str, **fields) -> dict:
        """One untimed request (warm-up); raises :class:`SeatError` on an error answer."""
        response = json.loads(self.seat.exchange(json.dumps({"id": 0, "method": method, **fields})))
        if "error" in response:
            raise SeatError(response["error"]["code"], response["error"]["message"])
        return response["result"]

    def send(self, key: str, line: str) -> dict:
        start, cpu_start = time.perf_counter(), time.process_time()
        response = json.loads(self.seat.exchange(line))
        self.latencies[key].append(time.perf_counter() - start)
        self.cpu[key].append(time.process_time() - cpu_start)
        self.count += 1
        return response

    def timed(self, key: str, method: str, **fields) -> dict | None:
        """One timed request; an error answer is recorded as unexpected."""
        response = self.send(key, json.dumps({"id": self.count, "method": method, **fields}))
        if response.get("id") != self.count - 1 or "error" in response:
            self.unexpected.append(f"{method}: {response}")
            return None
        return response["result"]

    def malformed(self, line: str, code: str) -> None:
        response = self.send("malformed", line)
        if response.get("error", {}).get("code") != code:
            self.unexpected.append(f"malformed {line!r}: {response}")


def soak(client: TimedClient, args: argparse.Namespace, rules: dict, players: int) -> tuple[int, list[int | None]]:
    """Play games until ``args.requests`` requests were answered; return the games played
    and the seat's RSS after each tenth of the requests (memory must level off)."""
    rng = random.Random(args.seed)
    games = 0
    rss_samples: list[int | None] = []
    while client.count < args.requests:
        if client.count >= (len(rss_samples) + 1) * args.requests // 10:
            rss_samples.append(rss_kib(client.seat.pid))
        games += 1
        position = client.timed("new", "new", game=args.game, rules=rules, players=players)
        while position is not None and position["node"] != "terminal" and client.count < args.requests:
            state = position["state"]
            if position["node"] == "chance":
                outcomes = client.timed("legal (chance)", "legal", state=state)["outcomes"]
                outcome = rng.choices([o["outcome"] for o in outcomes], [o["probability"] for o in outcomes])[0]
                position = client.timed("apply", "apply", state=state, outcome=outcome)
                continue
            seed = rng.randrange(2**31)
            if rng.random() < 0.3:
                client.timed("rank", "rank", state=state, agent=args.agent, seed=seed)
            if rng.random() < 0.3:
                client.timed("legal (decision)", "legal", state=state)
            dice = state["state"].get("dice")
            if args.scored and isinstance(dice, list) and len(dice) == 5 and rng.random() < 0.2:
                client.timed("score", "score", game=args.game, rules=rules, dice=dice)
            if rng.random() < 0.01:
                client.timed("hello", "hello")
            if rng.random() < 0.05:
                client.malformed(*rng.choice(MALFORMED))
            choice = client.timed("choose", "choose", state=state, agent=args.agent, seed=seed)
            if choice is None:
                break
            position = client.timed("apply", "apply", state=state, action=choice["action"])
    rss_samples.append(rss_kib(client.seat.pid))
    return games, rss_samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kockapoker")
    parser.add_argument("--rules", default="{}", help="rule options as a JSON object")
    parser.add_argument("--players", type=int, default=1)
    parser.add_argument("--agent", default="optimal")
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--build-missing", action="store_true")
    parser.add_argument("--in-process", action="store_true",
                        help="call the seat in this process instead of through a kocka seat process (the seat's own cost)")
    parser.add_argument("--json", dest="json_out", default=None, help="also write the figures to this JSON file")
    parser.add_argument("--seat-command", default=f"{shlex.quote(sys.executable)} -m kocka.agents.frontends.commands seat")
    args = parser.parse_args(argv)
    rules = json.loads(args.rules)
    command = shlex.split(args.seat_command)
    if args.cache_dir:
        command += ["--cache-dir", args.cache_dir]
    if args.build_missing:
        command += ["--build-missing"]

    seat: PipeSeat | InProcessSeat = InProcessSeat(args.cache_dir, args.build_missing) if args.in_process else PipeSeat(command)
    client = TimedClient(seat)
    try:
        hello = client.request("hello", client="seat_soak.py")
        args.scored = any(g["name"] == args.game and g.get("score") for g in hello["games"])  # the seat says which games have boxes
        rss_start = rss_kib(seat.pid)
        # warm-up: one decision, so that the agent (and its table) is loaded before timing
        warm = client.request("new", game=args.game, rules=rules, players=args.players)
        while warm["node"] == "chance":
            outcome = client.request("legal", state=warm["state"])["outcomes"][0]["outcome"]
            warm = client.request("apply", state=warm["state"], outcome=outcome)
        if warm["node"] == "decision":
            client.request("choose", state=warm["state"], agent=args.agent)
        rss_warm = rss_kib(seat.pid)
        started = time.perf_counter()
        games, rss_samples = soak(client, args, rules, args.players)
        elapsed = time.perf_counter() - started
        rss_end = rss_kib(seat.pid)
    except SeatError as exc:
        print(f"seat error during warm-up: {exc}", file=sys.stderr)
        return 1
    finally:
        seat.close()

    rows = []
    for key, values in sorted(client.latencies.items(), key=lambda kv: -len(kv[1])):
        values.sort()
        cpu = sorted(client.cpu[key])
        row = {"method": key, "count": len(values), "p50_ms": 1000 * percentile(values, 0.5),
               "p99_ms": 1000 * percentile(values, 0.99), "max_ms": 1000 * values[-1]}
        if args.in_process:
            row.update(cpu_p50_ms=1000 * percentile(cpu, 0.5), cpu_p99_ms=1000 * percentile(cpu, 0.99))
        rows.append(row)
    report = {"mode": "in-process" if args.in_process else "stdio", "game": args.game, "rules": rules, "agent": args.agent, "players": args.players,
              "requests": client.count, "games": games, "seconds": round(elapsed, 1),
              "rss_kib": {"start": rss_start, "warm": rss_warm, "end": rss_end, "by_tenth": rss_samples}, "methods": rows,
              "unexpected": len(client.unexpected)}
    print(f"{client.count} requests, {games} games of {args.game} ({args.agent}, {report['mode']}) in {elapsed:.1f} s")
    cpu_head = f"{'cpu p50':>10}{'cpu p99':>10}" if args.in_process else ""
    print(f"{'method':<18}{'count':>8}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}{cpu_head}")
    for row in rows:
        cpu_cols = f"{row['cpu_p50_ms']:>10.3f}{row['cpu_p99_ms']:>10.3f}" if args.in_process else ""
        print(f"{row['method']:<18}{row['count']:>8}{row['p50_ms']:>10.3f}{row['p99_ms']:>10.3f}{row['max_ms']:>10.2f}{cpu_cols}")
    print(f"seat RSS: {rss_start} KiB after start, {rss_warm} KiB warmed up, {rss_end} KiB at the end")
    print(f"seat RSS by tenth of the run (KiB): {rss_samples}")
    for problem in client.unexpected[:10]:
        print(f"unexpected: {problem}", file=sys.stderr)
    if args.json_out:
        pathlib.Path(args.json_out).write_text(json.dumps(report, indent=2) + "\n")
    return 1 if client.unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
