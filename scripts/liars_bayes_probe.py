#!/usr/bin/env python3
"""How ``adaptive`` fares against ``bayes`` (who models his opponent too) in liar's kockapóker
(issue 27; RULES.md BLUFF-17..BLUFF-21): one-round games from 10 chips each in one series,
seats alternating, as ``kocka arena liars-poker --series -r max_rounds=1 -r payoff=chips``.

    python scripts/liars_bayes_probe.py --rounds 1000 --seed 1 [--agent adaptive|equilibrium]
        [--epsilon 0.1] [--one-honesty] [--pretrain N] [--freeze]

``--pretrain N`` first lets ``bayes`` learn from N rounds against ``equilibrium`` (its own
seeds); ``--freeze`` then stops its learning, so that it is a fixed opponent: with
``--pretrain 0 --freeze`` it keeps its prior rates (the opponent whose exploitability the
README's bluff table gives), with ``--pretrain 1000 --freeze`` the rates it learns against
the equilibrium. ``--epsilon`` is the adaptive agent's bound (its default 0.1 chips per
round). ``--one-honesty`` gives the agent the bidding bluff's model (one honesty number, the
equilibrium's bets as the bet prior) instead of its fits per stake class (docs/AGENTS.md).
Every tenth of the run it prints the first agent's mean chips per round (95 % interval,
normal approximation over rounds), the adaptive agent's budget (what it may still risk)
and how many of the opponent's decisions it has seen. Needs ``kocka-solve build
liars-poker`` (about 1.5 min on 2 cores); 1,000 rounds take about 3 min for ``adaptive``.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from kocka.agents.bots.adaptive_bluff import AdaptiveLiarsBot
from kocka.agents.bots.base import ChanceSampler, derive_seed
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import final_scores, mean_interval, play_match
from kocka.solver.rules import get_game

START_CHIPS = 10


def _freeze(bayes) -> None:
    """Stop ``bayes`` learning: it still follows the game (its memory of the round), but
    neither answers nor reveals update its rates."""
    bayes.observe = lambda event: bayes.memory.follow(event, lambda *_: None, lambda *_: None)


def _series(game, first, second, rounds: int, seed: int, label: str, report=None) -> list[float]:
    """``rounds`` one-round games of ``first`` against ``second`` in one series, seats
    alternating; ``first``'s chips won per round."""
    won: list[float] = []
    for i in range(rounds):
        for k, agent in enumerate((first, second)):
            agent.reseed(derive_seed(label, seed, i, k))
        seats = (first, second) if i % 2 == 0 else (second, first)
        scores = final_scores(game, play_match(game, list(seats), ChanceSampler(derive_seed(label + " game", seed, i))))
        won.append((scores[0] if i % 2 == 0 else scores[1]) - START_CHIPS)
        if report is not None and (i + 1) % max(1, rounds // 10) == 0:
            report(i + 1, won)
    return won


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--agent", choices=("adaptive", "equilibrium"), default="adaptive")
    parser.add_argument("--one-honesty", action="store_true",
                        help="the bidding bluff's model: one honesty number, the equilibrium's bets as prior")
    parser.add_argument("--epsilon", type=float, default=None, help="the adaptive agent's bound (default its own, 0.1)")
    parser.add_argument("--pretrain", type=int, default=0, help="rounds bayes first learns from against equilibrium")
    parser.add_argument("--freeze", action="store_true", help="bayes stops learning after the pretraining")
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()

    game = get_game("liars-poker", {"max_rounds": 1, "payoff": "chips"}, 2)
    options = AgentOptions(cache_dir=args.cache_dir)
    bayes = make_agent("bayes", game, 0, options)
    bayes.reset(derive_seed("bayes", args.seed))
    if args.pretrain:
        teacher = make_agent("equilibrium", game, 0, options)
        _series(game, teacher, bayes, args.pretrain, args.seed, "pretrain")
        rates = {seat: (round(m.lie_rate(1), 3), round(m.lie_rate(2), 3), round(m.smallest_rate(), 3)) for seat, m in bayes.models.items()}
        print(f"bayes after {args.pretrain} rounds against equilibrium: (lie rate at stake 1, at stake 2+, smallest-lie rate) per seat {rates}")
    if args.freeze:
        _freeze(bayes)
    if args.agent == "adaptive":
        agent = AdaptiveLiarsBot(game, 0, options, epsilon=args.epsilon, per_stake_class=not args.one_honesty)
    else:
        agent = make_agent("equilibrium", game, 0, options)
    agent.reset(derive_seed("agent", args.seed))
    started = time.perf_counter()

    def report(done: int, won: list[float]) -> None:
        mean, lo, hi = mean_interval(won)
        extra = f"  budget {agent.budget:.2f}  his decisions seen {agent.model.observed}" if args.agent == "adaptive" else ""
        print(f"{done:6d} rounds: {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] chips per round{extra}  ({time.perf_counter() - started:.0f} s)", flush=True)

    _series(game, agent, bayes, args.rounds, args.seed, "probe", report)


if __name__ == "__main__":
    main()
