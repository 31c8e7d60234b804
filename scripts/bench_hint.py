#!/usr/bin/env python
"""Benchmark of hints from a loaded table: the first hint after loading, and warm hints.

For every variant, each figure of the "first" kind runs in a fresh subprocess (imports
done, the table loaded, then one call timed), so nothing of an earlier call is cached:

* ``first rank`` -- the first :func:`~kocka.solver.solvers.scorecard.values.rank` after
  :func:`~kocka.solver.store.table_store.get_table`, on an empty card and on a card with entries;
* ``first hint`` -- the first ``kocka hint`` answer (:func:`~kocka.agents.advice.hint.hint`
  and its report) in the same situations.

Warm figures (one process, positions met in seeded optimal play; the minimum over repeats
of the mean per call, which a busy machine disturbs least):

* ``rank`` -- every keep or box of a position ranked, from a position seen before;
* ``rank, new position`` -- the same on a state object never seen (the engine's
  ``check_state`` runs);
* ``hint`` -- ``hint()`` with its report (position, notes with the plain-words line), and
  ``hint + JSON`` -- the report rendered as ``kocka hint --json`` prints it (every action
  made into a Decision).

    python scripts/bench_hint.py --cache-dir /tmp/tables            # builds missing tables
    python scripts/bench_hint.py --only yahtzee --json hint.json

Targets (issue 15): rank <= 20 us, hint <= 100 us, first hint <= 5 ms.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import timeit

VARIANTS = {"yahtzee": ("yahtzee", {}), "yatzy": ("yatzy", {}), "kockapoker": ("kockapoker", {})}
CARDS = {  # a card with entries per game (valid entries, a few boxes filled)
    "yahtzee": {"ones": 2, "fours": 12, "chance": 21, "full_house": 25},
    "yatzy": {"twos": 6, "pair": 10, "chance": 22, "yatzy": 50},
    "kockapoker": {"ones": -1, "sixes": 6, "pair": 10, "chance": 20},
}
TARGETS = {"rank_us": 20.0, "hint_us": 100.0, "first_ms": 5.0}


def _one_first(variant: str, what: str, card: str, cache_dir: str) -> float:
    """(runs in a fresh process) milliseconds of the first ``what`` after loading."""
    import gc
    import time

    from kocka.agents.advice.cards import ScorecardHintParams
    from kocka.agents.advice.hint import hint
    from kocka.solver.store.table_store import get_table
    from kocka.solver.rules import get_game, resolve
    from kocka.solver.rules.scorecard import ScorecardState
    from kocka.solver.solvers.scorecard.values import rank

    name, options = VARIANTS[variant]
    game = get_game(name, options)
    resolve(game.spec().hint)  # the front end's module imported, as the kocka command has it
    get_table(game, cache_dir=cache_dir)
    entries = CARDS[variant] if card == "filled" else None
    gc.collect()  # what loading left to collect is not the hint's (timeit even disables the collector)
    start = time.perf_counter()
    if what == "rank":
        state = ScorecardState(cards=(game.card_from_entries(entries),), throw=1, dice=(1, 1, 3, 4, 6))
        rank(game, get_table(game, cache_dir=cache_dir), state)[0]
    else:
        hint(game, ScorecardHintParams(dice=(1, 1, 3, 4, 6), roll=1, card=entries, cache_dir=cache_dir)).to_json()
    return (time.perf_counter() - start) * 1000


def _positions(game, table, count: int, seed: int = 3):
    """Decision positions of seeded games played with the table's best actions."""
    import random

    from kocka.agents.bots.base import positions_with_rng
    from kocka.solver.solvers.scorecard.values import rank

    return positions_with_rng(game, lambda s: rank(game, table, s)[0].action, random.Random(seed), count)


def _per_call_us(fn, calls: int, repeat: int = 25) -> float:
    return min(timeit.repeat(fn, number=1, repeat=repeat)) / calls * 1e6


def _warm(variant: str, cache_dir: str) -> dict:
    """(runs in a fresh process) warm per-call figures over 60 positions."""
    from kocka.agents.advice.hint import HintParams, hint
    from kocka.solver.solvers.scorecard import ranking as scorecard_ranking
    from kocka.solver.store.table_store import get_table
    from kocka.solver.rules import get_game
    from kocka.solver.solvers.scorecard.values import rank

    name, options = VARIANTS[variant]
    game = get_game(name, options)
    table = get_table(game, cache_dir=cache_dir)
    states = _positions(game, table, 60)
    for s in states:
        rank(game, table, s)
    actions = sum(len(rank(game, table, s)) for s in states) / len(states)
    n = len(states)
    warm = _per_call_us(lambda: [rank(game, table, s) for s in states], n)
    ranker = scorecard_ranking._ranker(game, table)

    def forget_states():
        game.__dict__.get("_checked_states", {}).clear()  # the engine's memo of valid states (Game.check_state)

    def unseen(s):
        """rank as if the position had never been met: what the ranker remembers of
        states and cards forgotten (the engine's check_state runs again)."""
        forget_states()
        ranker._cards.clear()
        return rank(game, table, s)

    fresh = _per_call_us(lambda: [unseen(s) for s in states], n)
    forget = _per_call_us(lambda: [(forget_states(), ranker._cards.clear()) for s in states], n)
    params = [HintParams(state=game.state_to_json(s), cache_dir=cache_dir) for s in states]
    for p in params:
        hint(game, p)
    hint_us = _per_call_us(lambda: [hint(game, p) for p in params], n)
    json_us = _per_call_us(lambda: [hint(game, p).to_json() for p in params], n)
    return {"actions": actions, "rank_us": warm, "rank_new_us": fresh - forget, "hint_us": hint_us,
            "hint_json_us": json_us}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(VARIANTS))
    parser.add_argument("--cache-dir", default=None, help="table folder (missing tables are built there)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    parser.add_argument("--first", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--warm", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.first:
        print(json.dumps(_one_first(*args.first)))
        return
    if args.warm:
        print(json.dumps(_warm(*args.warm)))
        return
    cache_dir = args.cache_dir or tempfile.mkdtemp(prefix="kocka-bench-")
    print(f"# bench_hint: cpus={os.cpu_count()} load average={os.getloadavg()[0]:.2f} tables in {cache_dir}")
    print(f"{'variant':11s} {'actions':>7s} {'rank us':>8s} {'new pos':>8s} {'hint us':>8s} {'+JSON':>8s} "
          f"{'1st rank ms':>11s} {'(card)':>7s} {'1st hint ms':>11s} {'(card)':>7s}")
    results = {}
    for variant in args.only or VARIANTS:
        name, options = VARIANTS[variant]
        subprocess.run([sys.executable, "-c", "import sys; from kocka.solver.store.table_store import get_table; "
                        "from kocka.solver.rules import get_game; "
                        f"get_table(get_game({name!r}, {options!r}), cache_dir=sys.argv[1], build_missing=True)",
                        cache_dir], check=True, capture_output=True)

        def child(*extra: str) -> float | dict:
            out = subprocess.run([sys.executable, __file__, *extra], capture_output=True, text=True, check=True)
            return json.loads(out.stdout.strip().splitlines()[-1])

        firsts = {f"{what}_{card}": min(child("--first", variant, what, card, cache_dir) for _ in range(3))
                  for what in ("rank", "hint") for card in ("empty", "filled")}
        w = child("--warm", variant, cache_dir)
        results[variant] = {**w, **{f"first_{k}_ms": v for k, v in firsts.items()}}
        print(f"{variant:11s} {w['actions']:7.1f} {w['rank_us']:8.1f} {w['rank_new_us']:8.1f} {w['hint_us']:8.1f} "
              f"{w['hint_json_us']:8.1f} {firsts['rank_empty']:11.2f} {firsts['rank_filled']:7.2f} "
              f"{firsts['hint_empty']:11.2f} {firsts['hint_filled']:7.2f}", flush=True)
    print()
    for variant, r in results.items():
        met = {
            f"warm rank {r['rank_us']:.1f} us <= {TARGETS['rank_us']:.0f}": r["rank_us"] <= TARGETS["rank_us"],
            f"warm hint {r['hint_us']:.1f} us <= {TARGETS['hint_us']:.0f}": r["hint_us"] <= TARGETS["hint_us"],
            f"first hint {max(r['first_hint_empty_ms'], r['first_hint_filled_ms']):.2f} ms <= {TARGETS['first_ms']:.0f}":
                max(r["first_hint_empty_ms"], r["first_hint_filled_ms"]) <= TARGETS["first_ms"],
        }
        print(f"{variant}: " + "; ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in met.items()))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
