#!/usr/bin/env python3
"""A minimal frontend for the AI seat (docs/PROTOCOL.md): it starts ``kocka seat``, rolls
the dice itself, lets the AI choose every move, and prints the game.

It imports nothing from kocka: only the standard library, a subprocess and JSON lines,
which is all a frontend in any language needs.

    python scripts/seat_client.py --game kockapoker --agent heuristic --players 2 --seed 1
    python scripts/seat_client.py --game yatzy --rules '{"boxes": ["chance", "yatzy"]}' --agent random --hints
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import shlex
import subprocess
import sys
from typing import Any


class SeatError(RuntimeError):
    """An error answer of the seat: ``code`` as in docs/PROTOCOL.md, and its message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class SeatClient:
    """Talks to one ``kocka seat`` process: one request line out, one response line in."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.ids = itertools.count(1)

    def request(self, method: str, **fields: Any) -> dict:
        """Send one request and return its result, or raise :class:`SeatError`."""
        request_id = next(self.ids)
        self.process.stdin.write(json.dumps({"id": request_id, "method": method, **fields}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SeatError("closed", "the seat process ended")
        response = json.loads(line)
        assert response["id"] == request_id, response
        if "error" in response:
            raise SeatError(response["error"]["code"], response["error"]["message"])
        return response["result"]

    def close(self) -> None:
        try:
            self.request("quit")
        finally:
            self.process.stdin.close()
            self.process.wait(timeout=30)


def roll(client: SeatClient, state: dict, rng: random.Random) -> list:
    """Roll the dice at a chance node: the seat lists the possible outcomes and their
    probabilities; a frontend with real dice would send what it reads instead."""
    outcomes = client.request("legal", state=state)["outcomes"]
    return rng.choices([o["outcome"] for o in outcomes], weights=[o["probability"] for o in outcomes])[0]


def play(client: SeatClient, game: str, rules: dict, players: int, agent: str, seed: int, hints: bool) -> list:
    rng = random.Random(seed)
    position = client.request("new", game=game, rules=rules, players=players)
    for move in itertools.count():
        state = position["state"]
        if position["node"] == "terminal":
            return position["returns"]
        if position["node"] == "chance":
            outcome = roll(client, state, rng)
            print(f"roll: {outcome}")
            position = client.request("apply", state=state, outcome=outcome)
            continue
        if hints:
            ranked = client.request("rank", state=state, agent=agent, seed=seed + move)
            best = ", ".join(f"{a['label']} ({a['value']:.3f})" for a in ranked["actions"][:3])
            print(f"  hint ({ranked['value_name']}): {best}")
        choice = client.request("choose", state=state, agent=agent, seed=seed + move)
        print(f"seat {choice['player']}: {choice['label']}  {json.dumps(choice['action'])}")
        position = client.request("apply", state=state, action=choice["action"])
    raise AssertionError("unreachable")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kockapoker")
    parser.add_argument("--rules", default="{}", help="rule options as a JSON object")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--agent", default="heuristic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hints", action="store_true", help="show the agent's top three actions before each move")
    parser.add_argument("--seat-command", default=f"{shlex.quote(sys.executable)} -m kocka.agents.frontends.commands seat",
                        help="how to start the seat (default: this Python's kocka)")
    args = parser.parse_args(argv)
    client = SeatClient(shlex.split(args.seat_command))
    try:
        hello = client.request("hello", client="seat_client.py")
        print(f"connected: {hello['server']}, protocol {hello['protocol']}")
        players = args.players
        if players is None:  # the game's smallest table
            players = next(g["players"]["min"] for g in hello["games"] if g["name"] == args.game)
        returns = play(client, args.game, json.loads(args.rules), players, args.agent, args.seed, args.hints)
        print(f"final returns: {returns}")
    except SeatError as exc:
        print(f"seat error {exc}", file=sys.stderr)
        return 1
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
