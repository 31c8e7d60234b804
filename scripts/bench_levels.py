"""Games per CPU second of a difficulty level in the arena: the Python engine loop against
the simulation kernel (issue 28: levels played in compiled code).

    python scripts/bench_levels.py yahtzee --agents level:5,optimal --engine-games 300 --kernel-games 20000

Both runs are ``run_arena`` in this process (``kernels=False``, then the default), one job,
the tables loaded before the clock starts; a "game" is one card of one agent (the arena's
solitaire mode plays every agent on the same dice), so ``--agents level:5,optimal`` plays
two cards per arena game. The two runs also play the same first games: the script checks
that their scores agree before it prints the rates and the ratio, measured in CPU time
(``time.process_time``), not wall time, on a shared machine.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import run_arena
from kocka.solver.rules import get_game


def cpu_rate(game, agents, games, seed, options, kernels):
    """(cards per CPU second, the arena's scores)."""
    start = time.process_time()
    result = run_arena(game, agents, games, seed, options=options, kernels=kernels)
    return games * len(agents) / (time.process_time() - start), result.scores


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--agents", default="level:5,optimal")
    parser.add_argument("--engine-games", type=int, default=300)
    parser.add_argument("--kernel-games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args(argv)
    game = get_game(args.game)
    agents = args.agents.split(",")
    options = AgentOptions(cache_dir=args.cache_dir)
    for name in agents:  # load the tables before any clock starts
        make_agent(name, game, 0, options)
    engine, engine_scores = cpu_rate(game, agents, args.engine_games, args.seed, options, kernels=False)
    kernel, kernel_scores = cpu_rate(game, agents, args.kernel_games, args.seed, options, kernels=True)
    same = np.array_equal(engine_scores, kernel_scores[: args.engine_games])
    print(f"{game.NAME}, agents {', '.join(agents)}: cards per CPU second (one job)")
    print(f"  engine loop       {engine:10.0f}  ({args.engine_games} games)")
    print(f"  simulation kernel {kernel:10.0f}  ({args.kernel_games} games)")
    print(f"  ratio kernel/engine {kernel / engine:.1f}; the first {args.engine_games} games' scores equal: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
