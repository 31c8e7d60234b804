#!/usr/bin/env python3
"""How long the chances of finishing first take: the companion's ``?`` and ``cards``
(``kocka table``) for 2..6 players, and the seat's ``distribution`` with the page's chart
(P(final >= x)) over HTTP on loopback, for kockapóker.

    python scripts/bench_finishing.py [--repeat 5] [--rounds 4] [--cache-dir DIR]

Needs the kockapóker tables in the cache (``kocka-solve build kockapoker`` and
``kocka-solve build kockapoker --kind target``): with the target table every distribution
is a look-up of its stored vector (a turn start) or one turn over them (a turn under way).
For each player count a game is played ``--rounds`` rounds (seeded, the optimal agent),
then the player on turn throws 1 1 3 4 6 (the tables are loaded first, their time
printed apart; "cold" is a session's first ``?``, before its caches hold anything). Prints the median and the slowest of ``--repeat``
calls in milliseconds. Targets (issue 26): ``?`` with three players under 1 s, ``cards``
under 0.5 s, the chart under 200 ms, on the quiet 2-core machine. Not a test: times
depend on the machine.
"""
from __future__ import annotations

import argparse
import http.client
import json
import pathlib
import random
import statistics
import sys
import tempfile
import threading
import time

HOST = "127.0.0.1"  # loopback only
ROLL = "11346"


def timed(call, repeat: int) -> tuple[float, float, object]:
    """(median ms, max ms, the last result) of ``repeat`` calls."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = call()
        times.append(1000 * (time.perf_counter() - t0))
    return statistics.median(times), max(times), result


def played(game, agent, rounds: int, seed: int):
    """A state after ``rounds`` rounds of ``agent`` on seeded dice, the next player's
    first throw not yet made."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    turns = 0
    while turns < rounds * game.num_players and not game.is_terminal(state):
        if game.is_chance_node(state):
            outcomes, weights = zip(*game.chance_outcomes(state))
            state = game.apply(state, rng.choices(outcomes, weights)[0])
            continue
        before = sum(e is not None for c in state.cards for e in c.entries)
        state = game.apply(state, agent.choose(state))
        turns += sum(e is not None for c in state.cards for e in c.entries) - before
    return state


def companion(args: argparse.Namespace) -> None:
    from kocka.agents.bots.catalogue import AgentOptions, make_agent
    from kocka.agents.frontends.games.companion import TableSession

    options = AgentOptions(cache_dir=args.cache_dir)
    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench-finishing-"))
    print(f"companion (kocka table kockapoker), {args.rounds} rounds played, then {' '.join(ROLL)} thrown; "
          f"median / max of {args.repeat} in ms")
    print(f"  {'players':>7}  {'? cold':>8}  {'?':>15}  {'cards':>15}")
    for n in range(2, 7):
        names = [f"P{i + 1}" for i in range(n)]
        session = TableSession.start("kockapoker", names, path=folder / f"{n}.json", options=options)
        agent = make_agent("optimal", session.game, 0, options)
        session.state = played(session.game, agent, args.rounds, seed=n)
        answer = session.handle(ROLL)
        if "throw" not in answer and "dobás" not in answer and "\n" not in answer:
            print(f"  (the roll was not taken: {answer})")
        t0 = time.perf_counter()
        first = session.handle("?")
        cold = 1000 * (time.perf_counter() - t0)
        if "chance of finishing first" not in first:
            print(f"  ({n} players: no chances in the hint: {first.splitlines()[-1] if first else ''})")
        hint_med, hint_max, _ = timed(lambda: session.handle("?"), args.repeat)
        # cards: a fresh cache each time, so the player on turn's distribution is computed again
        def cards():
            session._chances.clear()
            return session.handle("cards")
        cards_med, cards_max, _ = timed(cards, args.repeat)
        print(f"  {n:>7}  {cold:>8.0f}  {hint_med:>6.0f} / {hint_max:>6.0f}  {cards_med:>6.1f} / {cards_max:>6.1f}")


def seat_over_http(args: argparse.Namespace) -> None:
    from kocka.agents.frontends.seat.http import SeatHTTPServer, http_options
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
    from kocka.agents.bots.catalogue import AgentOptions, make_agent
    from kocka.solver.rules import get_game

    server = SeatHTTPServer(Seat(SeatOptions(cache_dir=args.cache_dir)), http_options(f"{HOST}:0"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    game = get_game("kockapoker", num_players=3)
    agent = make_agent("optimal", game, 0, AgentOptions(cache_dir=args.cache_dir))
    positions = {"empty card, 1 1 3 4 6 thrown": game.apply(game.new_initial_state(), (1, 1, 3, 4, 6))}
    mid = played(game, agent, args.rounds, seed=3)
    positions[f"after {args.rounds} rounds, 1 1 3 4 6 thrown"] = game.apply(mid, (1, 1, 3, 4, 6))
    positions[f"after {args.rounds} rounds, a card waiting (seat 1)"] = mid
    conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def call(body: dict) -> dict:
        data = json.dumps(body).encode()
        conn.request("POST", "/", data, {"Content-Type": "application/json", "Host": f"{HOST}:{port}"})
        return json.loads(conn.getresponse().read())

    try:
        call({"method": "hello"})
        print(f"seat distribution over HTTP ({HOST}, keep-alive), three players; median / max of {args.repeat} in ms")
        for label, state in positions.items():
            body = {"id": 1, "method": "distribution", "state": game.state_to_json(state)}
            if "waiting" in label:
                body["seat"] = 1
            cold_t0 = time.perf_counter()
            first = call(body)
            cold = 1000 * (time.perf_counter() - cold_t0)
            if "error" in first:
                print(f"  {label}: {first['error']['code']}: {first['error']['message']}")
                continue
            # the page's chart: P(final >= x) for every x, from the answer (a fresh seat cache
            # each time would measure the seat; the chart itself is the answer plus this sum)
            def chart():
                result = call(dict(body, id=time.perf_counter_ns()))["result"]
                probs = result["probs"]
                at_least, acc = [], 0.0
                for p in reversed(probs):
                    acc += p
                    at_least.append(acc)
                return result["first"], at_least[::-1]
            med, worst, (first_score, at_least) = timed(chart, args.repeat)
            print(f"  {label}: first {cold:.1f} ms (a new position: computed), then {med:.1f} / {worst:.1f} ms; "
                  f"mean {first['result']['mean']:.2f}, P(final >= 200) = "
                  f"{at_least[200 - first_score] if 0 <= 200 - first_score < len(at_least) else float(200 < first_score):.4f}")
    finally:
        conn.close()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=4, help="rounds played before the measured throw")
    parser.add_argument("--cache-dir", default=None, help="the table cache (default: the usual one)")
    args = parser.parse_args(argv)
    from kocka.solver.rules import get_game
    from kocka.solver.store.table_store import get_table

    game = get_game("kockapoker")
    t0 = time.perf_counter()
    try:
        get_table(game, cache_dir=args.cache_dir)
        get_table(game, "target", cache_dir=args.cache_dir)
    except Exception as exc:  # noqa: BLE001 (one line, then out)
        print(f"bench_finishing needs the kockapóker tables: {exc}", file=sys.stderr)
        return 1
    print(f"tables loaded (once per process, before the first answer) in {time.perf_counter() - t0:.2f} s")
    companion(args)
    seat_over_http(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
