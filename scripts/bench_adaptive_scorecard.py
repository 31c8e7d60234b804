"""CPU seconds per game of the scorecard games' ``adaptive`` against ``winner``, both in the
first seat of a three-player kockapóker table against two ``heuristic`` seats, the same
seeded games (the seats' moves included); prints both and their ratio, then, over the
same games, the share of ``adaptive``'s decisions where ``winner`` would choose otherwise
and the points given up per turn it fitted to each ``heuristic`` seat.

Needs both kockapóker tables: ``kocka-solve build kockapoker`` and ``--kind target``.
Usage: ``python scripts/bench_adaptive_scorecard.py [--games 20] [--cache-dir cache]``.
"""
from __future__ import annotations

import time

import click

from kocka.agents.bots.base import ChanceSampler
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import play_match
from kocka.solver.rules import get_game


@click.command()
@click.option("--games", default=20, show_default=True, help="games per agent")
@click.option("--cache-dir", default="cache", show_default=True, help="where the tables are")
def main(games: int, cache_dir: str) -> None:
    solo = get_game("kockapoker", {})
    game = type(solo)(solo.rules, num_players=3)
    options = AgentOptions(cache_dir=cache_dir)
    seats = [make_agent("heuristic", game, seed, options) for seed in (2, 3)]
    cost = {}
    for name in ("winner", "adaptive"):
        agent = make_agent(name, game, 1, options)
        start = time.process_time()
        for i in range(games):
            for a in (agent, *seats):
                a.reset()
            play_match(game, [agent, *seats], ChanceSampler(100 + i))
        cost[name] = (time.process_time() - start) / games
        print(f"{name}: {cost[name]:.3f} s CPU per game ({games} games)")
    print(f"adaptive / winner: {cost['adaptive'] / cost['winner']:.2f}")
    adaptive, winner = make_agent("adaptive", game, 1, options), make_agent("winner", game, 1, options)
    differ = decisions = 0
    rates = []

    class Compared:  # adaptive in the seat, winner asked the same question
        has_memory = True

        def __getattr__(self, name):
            return getattr(adaptive, name)

        def choose(self, state):
            nonlocal differ, decisions
            action = adaptive.choose(state)
            decisions += 1
            differ += action != winner.choose(state)
            return action

    for i in range(games):
        for a in (adaptive, *seats):
            a.reset()
        play_match(game, [Compared(), *seats], ChanceSampler(100 + i))
        rates.append([adaptive.rate(seat) for seat in (1, 2)])
    mean_rates = ", ".join(f"{sum(r[k] for r in rates) / len(rates):.2f}" for k in range(2))
    print(f"decisions where winner chooses otherwise: {differ} of {decisions} ({differ / decisions:.1%}); "
          f"points given up per turn fitted to the heuristic seats (mean over the games): {mean_rates}")


if __name__ == "__main__":
    main()
