"""Each stage's own expected total under optimal Polish play, by simulation.

The exact table gives the value of the rest of the game at each stage start; a stage's own
total depends on the fences it hands on, so this script plays N seeded games of the
`optimal` agent through the rules engine and reports the mean of every stage total (and
the game total, whose exact value the table gives, as a check) with 95 % normal intervals.

Usage: python scripts/polish_stage_totals.py [--games N] [--seed S] [--jobs J] [--cache-dir DIR]
(needs `kocka-solve build polish`).
"""
from __future__ import annotations

import argparse
import math

from joblib import Parallel, delayed

from kocka.agents.bots.base import ChanceSampler
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.rules import get_game


def play_games(indices: list[int], seed: int, cache_dir: str | None) -> list[tuple[int, ...]]:
    game = get_game("polish")
    agent = make_agent("optimal", game, seed, AgentOptions(cache_dir=cache_dir))
    results = []
    for i in indices:
        sampler = ChanceSampler(seed * 1_000_003 + i)
        state, chance = game.new_initial_state(), 0
        while not game.is_terminal(state):
            if game.is_chance_node(state):
                state = game.apply(state, sampler.sample(game, state, chance))
                chance += 1
            else:
                state = game.apply(state, agent.choose(state))
        stages = game.stage_totals(state)[0]
        results.append((*stages, sum(stages)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()
    chunks = [list(range(k, args.games, args.jobs)) for k in range(args.jobs)]
    rows = [r for part in Parallel(n_jobs=args.jobs)(delayed(play_games)(c, args.seed, args.cache_dir) for c in chunks)
            for r in part]
    n = len(rows)
    print(f"polish, optimal agent, {n} games, seed {args.seed}: mean (95% normal interval)")
    for k, name in enumerate(["stage 1", "stage 2", "stage 3", "game total"]):
        values = [r[k] for r in rows]
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        half = 1.96 * sd / math.sqrt(n)
        print(f"  {name:10s} {mean:9.3f}  [{mean - half:.3f}, {mean + half:.3f}]  sd {sd:.2f}")


if __name__ == "__main__":
    main()
