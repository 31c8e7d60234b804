#!/usr/bin/env python3
"""Fuzz the AI seat over stdio: many valid and malformed requests through one ``kocka
seat`` process, as a hostile or buggy frontend would send them.

The requests mix (by weight) whole games played through the protocol (``new``,
``legal``, ``apply`` with legal and illegal moves and rolls, ``choose`` / ``rank`` with
every agent the game has, ``score``, ``hello``) for every game and player count;
the same requests with one node anywhere in them replaced, dropped or added; text that
is not JSON (cut short, random bytes, not UTF-8, ``NaN``); and the hostile cases of
docs/PROTOCOL.md: nesting 33 to 100,000 levels deep (bare, or inside a state document),
integers of 65 to 20,000 digits, numbers beyond a double, long strings, and (rarely) a
line over 1 MiB.

Counts, and exits 1 unless each is 0: crashes (the process ended), hangs (no answer
within 1 s), answers that are not one JSON response object, ``internal_error`` answers,
and answers whose ``id`` is not the request's. Prints the request count, answers by code,
latency p50/p99/max, and the seat's resident memory (VmRSS) at start, peak and end. It
imports nothing from kocka (a frontend's view) and stops by itself.

    python scripts/seat_fuzz.py --requests 50000 --seed 1
    python scripts/seat_fuzz.py --requests 2000 --seat "kocka seat --request-timeout 2"
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import random
import select
import shlex
import subprocess
import sys
import tempfile
import time
from typing import Any

from seat_tools import mutate, percentile, rss_kib

HANG_SECONDS = 1.0
GIVE_UP_SECONDS = 30.0  # a request unanswered this long counts as a crash: the seat is restarted
MAX_LINE = 1 << 20
GAMES_PLAYERS = [("kocka", 1), ("kocka", 2), ("kocka", 3), ("kockapoker", 1), ("kockapoker", 2), ("slovak", 1),
                 ("slovak", 3), ("yahtzee", 1), ("yatzy", 2), ("polish", 1), ("polish", 2), ("polish-basic", 1),
                 ("kockapoker-bid", 2), ("kockapoker-bid", 3), ("abazs", 2), ("abazs", 4), ("bidding-bluff", 2),
                 ("bidding-bluff", 3), ("liars-poker", 2), ("liars-poker", 4)]
RULES = {"kockapoker": {"boxes": ["sixes", "chance", "pair"]}, "yatzy": {"boxes": ["pair", "chance", "yatzy"]},
         "slovak": {"part1_choice": "declare_after_first_throw"}, "abazs": {"start_chips": 3},
         "bidding-bluff": {"start_chips": 3}, "liars-poker": {"start_chips": 3}, "kocka": {"target": 1000}}
SCORED = ["kockapoker", "slovak", "yahtzee", "yatzy", "polish", "polish-basic"]
BOXES = ["ones", "sixes", "chance", "pair", "two_pairs", "three_kind", "full_house", "poker", "yatzy", "five_kind", "x"]


class Seat:
    """One ``kocka seat`` process; its stderr goes to a file (read after a crash)."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.buffer = b""

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, hang: float, give_up: float) -> tuple[bytes | None, float, bool]:
        """(the next response line or None, seconds waited, whether it took over ``hang``)."""
        start = time.perf_counter()
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            waited = time.perf_counter() - start
            if waited > give_up:
                return None, waited, True
            ready, _, _ = select.select([fd], [], [], min(0.25, give_up - waited))
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    return None, time.perf_counter() - start, False  # the process ended
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        waited = time.perf_counter() - start
        return line, waited, waited > hang

    def stderr_tail(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def close(self) -> int:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


# ----------------------------------------------------------------------------------------
# Requests
# ----------------------------------------------------------------------------------------
def random_json(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.5:
        return rng.choice([None, True, False, 0, -1, 1, 7, 2**63, -2**70, 0.5, 1e300, "", "x", "ones", "Keep", "\u00e1",
                           [], {}, [1, 1], [6, 6, 6, 6, 6], rng.randint(-10, 10), rng.random()])
    if roll < 0.75:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["type", "dice", "box", "game", "state", "x", "players", ""]): random_json(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


def deep(rng: random.Random) -> str:
    levels = rng.choice([33, 40, 100, 500, 990, 1000, 3000, 30_000, 100_000])
    if rng.random() < 0.5:
        return "[" * levels + "]" * levels
    return '{"a": ' * levels + "1" + "}" * levels


def hostile(rng: random.Random, valid: dict) -> bytes:
    """One of the hostile cases of the module docstring, as a request line."""
    kind = rng.randrange(8)
    if kind == 0:
        return deep(rng).encode()
    if kind == 1:  # deep JSON inside a real request
        levels = rng.choice([33, 200, 990, 5000])
        return json.dumps(valid).replace('"state": {', '"state": {"x": ' + "[" * levels + "]" * levels + ", ", 1).encode() \
            if '"state": {' in json.dumps(valid) else ('{"id": 1, "method": "new", "game": "kocka", "rules": {"a": '
                                                     + "[" * levels + "]" * levels + "}}").encode()
    if kind == 2:  # a huge integer where a number goes
        digits = rng.choice([65, 100, 4300, 4301, 5000, 20_000])
        return (json.dumps({"id": 1, "method": "choose", "agent": "random", "state": valid.get("state", {})})[:-1]
                + ', "seed": ' + "9" * digits + "}").encode()
    if kind == 3:
        return b'{"id": 1, "method": "score", "game": "kockapoker", "dice": [1e400, 1, 1, 1, 1]}'
    if kind == 4:
        return json.dumps({"id": "s", "method": "hello", "client": "x" * rng.choice([10_000, 500_000])}).encode()
    if kind == 5:
        return b"-" + b"1" * rng.choice([5000, 50_000])
    if kind == 6:
        return json.dumps({"id": 1, "method": "legal", "state": {"schema": "kocka.state/1", "game": "kockapoker",
                                                                 "state": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}).encode()
    return ('{"id": 1, "method": "new", "game": "yatzy", "rules": {"boxes": ' + json.dumps(["chance"] * 30_000) + "}}").encode()


def malformed(rng: random.Random, valid: dict) -> bytes:
    kind = rng.randrange(7)
    text = json.dumps(valid)
    if kind == 0:
        return text[: rng.randrange(1, max(2, len(text)))].encode()
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randint(1, 200))).replace(b"\n", b" ").replace(b"\r", b" ")
    if kind == 2:
        return text.encode()[:-1] + b"\xff\xfe}"
    if kind == 3:
        return b'{"id": 1, "method": "score", "game": "yatzy", "dice": [1, 2, 3, 4, NaN]}'
    if kind == 4:
        return json.dumps(random_json(rng)).encode()
    if kind == 5:
        return json.dumps({"id": rng.choice([[1], True, 1.5, {}]), "method": "hello"}).encode()
    return json.dumps({**valid, "method": rng.choice(["", "HELLO", "Choose", "apply ", "quit2", 5, None])}).encode()


class Games:
    """Positions of every game, advanced through the seat's own answers."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.positions: dict[tuple[str, int], dict | None] = {key: None for key in GAMES_PLAYERS}
        self.legal: dict[tuple[str, int], dict] = {}
        self.agents: dict[str, list[str]] = {}

    def learn_hello(self, result: dict) -> None:
        self.agents = {g["name"]: g.get("agents", []) + ["nobody"] for g in result.get("games", [])}

    def request(self) -> tuple[dict, tuple[str, int] | None]:
        """A valid-looking request and the game whose position its answer advances."""
        rng = self.rng
        key = rng.choice(GAMES_PLAYERS)
        name, players = key
        position = self.positions[key]
        if position is None or rng.random() < 0.01:
            return {"method": "new", "game": name, "players": players, **({"rules": RULES[name]} if name in RULES else {})}, key
        state = position["state"]
        roll = rng.random()
        if roll < 0.05:
            return {"method": "hello", "client": "seat_fuzz"}, None
        if roll < 0.12:
            return {"method": "score", "game": rng.choice(SCORED), "dice": [rng.randint(1, 6) for _ in range(5)],
                    **({"box": rng.choice(BOXES)} if rng.random() < 0.5 else {}), "first_throw": rng.random() < 0.3}, None
        if roll < 0.35 or key not in self.legal:
            return {"method": "legal", "state": state}, key
        legal = self.legal[key]
        if roll < 0.5 and position.get("node") == "decision":
            agent = rng.choice(self.agents.get(name, ["random"]))
            return {"method": rng.choice(["choose", "rank"]), "state": state, "agent": agent, "seed": rng.randrange(2**63)}, None
        if legal.get("node") == "chance":
            outcomes = legal["outcomes"]
            outcome = rng.choice(outcomes)["outcome"] if rng.random() < 0.9 else [rng.randint(0, 7) for _ in range(rng.randint(0, 6))]
            if isinstance(outcome, list) and outcome and all(isinstance(v, int) for v in outcome):
                outcome = rng.sample(outcome, len(outcome))  # any order is allowed
            return {"method": "apply", "state": state, "outcome": outcome}, key
        if legal.get("node") == "decision":
            action = rng.choice(legal["actions"])["action"] if rng.random() < 0.9 else random_json(rng)
            return {"method": "apply", "state": state, "action": action}, key
        self.positions[key] = None  # finished
        return {"method": "legal", "state": state}, None

    def learn(self, key: tuple[str, int] | None, request: dict, response: dict) -> None:
        if key is None or "result" not in response:
            return
        result = response["result"]
        if request["method"] in ("new", "apply"):
            self.positions[key] = None if result.get("node") == "terminal" else result
            self.legal.pop(key, None)
        elif request["method"] == "legal" and self.positions[key] is not None and request["state"] == self.positions[key]["state"]:
            self.legal[key] = result


# ----------------------------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--failures", type=pathlib.Path, default=None,
                        help="write each failing request line in full to this file (one per line)")
    parser.add_argument("--seat", default=f"{shlex.quote(sys.executable)} -m kocka.agents.frontends.commands seat",
                        help="the command that starts the seat (default: this Python's kocka seat)")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    command = shlex.split(args.seat)
    seat = Seat(command)
    games = Games(rng)
    counts = collections.Counter()
    codes = collections.Counter()
    kinds = collections.Counter()
    latency: list[float] = []
    failures: list[str] = []
    rss_start = rss_peak = rss_end = None
    startup = float("nan")
    started = time.perf_counter()
    next_id = 0
    for n in range(args.requests):
        next_id += 1
        request, key = games.request()
        request = {"id": next_id, **request}
        expect_id: Any = next_id
        roll = rng.random()
        if n == 0:
            request, key, kind = {"id": next_id, "method": "hello"}, None, "valid"
        elif roll < 0.55:
            kind = "valid"
        elif roll < 0.80:
            kind = "mutated"
            request = mutate(request, rng, random_json(rng) if rng.random() < 0.6 else rng.choice(
                [0, -1, 7, 99, [], {}, None, "pair", [1, 2, 3, 4, 5, 6, 7], [0], "Keep", 2**64]))
            key = None
            expect_id = request.get("id") if isinstance(request, dict) else None
        elif roll < 0.92:
            kind = "malformed"
        else:
            kind = "hostile"
        if kind in ("valid", "mutated"):
            line = json.dumps(request).encode()
        elif kind == "malformed":
            line, key, expect_id = malformed(rng, request), None, "?"
        else:
            line, key, expect_id = hostile(rng, request), None, "?"
        if n % 5000 == 4999:
            line, key, expect_id, kind = b"[" + b" " * (MAX_LINE + 10) + b"]", None, None, "hostile"
        if not isinstance(expect_id, (str, int)) or isinstance(expect_id, bool):
            expect_id = None
        kinds[kind] += 1
        if not line.strip():
            line = b"{}"
        try:
            seat.send(line)
            raw, waited, slow = seat.receive(HANG_SECONDS, GIVE_UP_SECONDS)
        except (BrokenPipeError, OSError):
            raw, waited, slow = None, 0.0, False
        if n == 0:  # the first answer waits for the seat to start: timed apart, not a hang
            rss_start, startup, slow = rss_kib(seat.proc.pid), waited, False
        else:
            latency.append(waited)
        if slow:
            counts["hangs"] += 1
            failures.append(f"hang {waited:.2f} s: {line[:200]!r}")
        if raw is None:
            counts["crashes"] += 1
            failures.append(f"crash (exit {seat.proc.poll()}) at {line[:200]!r}: {seat.stderr_tail()}")
            seat.close()
            if counts["crashes"] >= 3:
                break
            seat = Seat(command)
            continue
        try:
            response = json.loads(raw)
            ok = (isinstance(response, dict) and set(response) in ({"id", "result"}, {"id", "error"})
                  and (("result" in response and isinstance(response["result"], dict))
                       or ("error" in response and isinstance(response["error"].get("code"), str)
                           and isinstance(response["error"].get("message"), str))))
        except (ValueError, AttributeError):
            ok = False
        if not ok:
            counts["non_json"] += 1
            failures.append(f"not a response: {raw[:200]!r} to {line[:200]!r}")
            continue
        code = response["error"]["code"] if "error" in response else "ok"
        codes[code] += 1
        if code == "internal_error":
            counts["internal_error"] += 1
            failures.append(f"internal_error: {response['error']['message'][:300]} to {line[:300]!r}")
            if args.failures is not None:
                with args.failures.open("ab") as out:
                    out.write(line + b"\n")
        if expect_id != "?" and response["id"] != expect_id:
            counts["id_mismatch"] += 1
            failures.append(f"id {response['id']!r} for {expect_id!r}: {line[:200]!r}")
        if kind == "valid" and request.get("method") == "hello" and "result" in response:
            games.learn_hello(response["result"])
        if kind == "valid":
            games.learn(key, request, response)
        if n % 250 == 0:
            rss = rss_kib(seat.proc.pid)
            if rss is not None:
                rss_peak = max(rss_peak or 0, rss)
    rss_end = rss_kib(seat.proc.pid)
    rss_peak = max(rss_peak or 0, rss_end or 0)
    elapsed = time.perf_counter() - started
    exit_code = seat.close()

    sent = sum(kinds.values())
    print(f"seat_fuzz: {sent} requests in {elapsed:.1f} s ({sent / elapsed:.0f}/s) to: {' '.join(command)}")
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print("  answers: " + ", ".join(f"{k} {v}" for k, v in codes.most_common()))
    print(f"  crashes {counts['crashes']}, hangs > {HANG_SECONDS:g} s {counts['hangs']}, non-JSON responses "
          f"{counts['non_json']}, internal_error {counts['internal_error']}, id mismatches {counts['id_mismatch']}")
    print(f"  latency ms: p50 {1000 * percentile(latency, 0.5):.3f}, p99 {1000 * percentile(latency, 0.99):.3f}, "
          f"max {1000 * max(latency, default=float('nan')):.1f} (the first answer, with the seat's start: {startup:.2f} s)")
    show = lambda kib: "?" if kib is None else f"{kib / 1024:.1f} MiB"  # noqa: E731
    print(f"  seat RSS: start {show(rss_start)}, peak {show(rss_peak)}, end {show(rss_end)}; exit status {exit_code}")
    for failure in failures[:20]:
        print("  FAIL " + failure)
    bad = counts["crashes"] + counts["hangs"] + counts["non_json"] + counts["internal_error"] + counts["id_mismatch"]
    return 1 if bad or exit_code != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
