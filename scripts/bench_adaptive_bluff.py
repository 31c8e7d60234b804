#!/usr/bin/env python3
"""CPU cost of the Abázs ``adaptive`` agent (issue 27; agents/bots/adaptive_bluff.py): its
loading (the equilibrium's guarantee, two best-response walks), one best reply to a model,
one worst-case-loss walk, and a whole 100-round match against ``truthful`` with the number
of plans it made. CPU seconds (``time.process_time``), default rules; needs the table
(``kocka-solve build abazs``).

    python scripts/bench_adaptive_bluff.py
"""
from __future__ import annotations

import time

from kocka.agents.bots.adaptive_bluff import AdaptiveAbazsBot
from kocka.agents.bots.base import ChanceSampler
from kocka.agents.bots.bluff_bots import TruthfulBot
from kocka.agents.frontends.games.arena import play_match
from kocka.solver.rules.bluff import AbazsGame, AbazsRules
from kocka.solver.solvers.bluff import adaptive as bluff_adaptive


def main() -> None:
    game = AbazsGame(AbazsRules(start_chips=1000, max_rounds=100, payoff="chips"), 2)
    start = time.process_time()
    agent = AdaptiveAbazsBot(game)
    print(f"loading: {time.process_time() - start:.3f} s CPU")
    plans = []
    walk = bluff_adaptive.worst_case_loss

    def counted(*args, **kwargs):  # counts the plans of the match
        plans.append(1)
        return walk(*args, **kwargs)

    bluff_adaptive.worst_case_loss = counted
    start = time.process_time()
    play_match(game, [agent, TruthfulBot(game)], ChanceSampler(1))
    match_seconds = time.process_time() - start
    bluff_adaptive.worst_case_loss = walk
    model = agent.models[1]
    print(f"100-round match vs truthful: {match_seconds:.3f} s CPU, {len(plans)} plans, "
          f"{model.observed} opponent decisions seen, final weight {agent._planned[1][2]:.4f}")
    start = time.process_time()
    for _round in range(20):
        bluff_adaptive.best_reply(game, model.claim_policy(), model.challenge_policy(), agent.challenged)
    print(f"best reply: {(time.process_time() - start) / 20 * 1000:.2f} ms CPU")
    start = time.process_time()
    loss = walk(game, agent._planned[1][1], agent.guarantee, agent.start_value)
    print(f"worst-case loss walk: {time.process_time() - start:.3f} s CPU (L = {loss:.4f} chips per round)")


if __name__ == "__main__":
    main()
