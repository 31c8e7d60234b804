"""The figures of docs/BLUFF.md section 7 (the betting games' exact two-player round):
the exploitability of the stored round plan and of the bots in the real round, and what
``bayes`` loses against the equilibrium, all by the independent best response of
:mod:`kocka.solver.bluff_round` (exact walks of the engine's game, in floats).

    python scripts/bluff_round_figures.py bidding-bluff [ranking=pro] [chips=10]
    python scripts/bluff_round_figures.py liars-poker [chips=10] [public=6,6,6]
    python scripts/bluff_round_figures.py match [ranking=pro] [chips=10] [steps=3]
    python scripts/bluff_round_figures.py liars-all [chips=10]     (every public roll; ~40 min)

The equilibrium tables must be built first (``kocka-solve build bidding-bluff``, ``-r
ranking=pro``, ``kocka-solve build liars-poker``). Liar's poker is measured after the given
public roll (a walk of all 56 is hours of engine calls). Prints one JSON object per line.
"""
from __future__ import annotations

import json
import sys
import time

from kocka.agents.bluff_bots import BayesBot, ThresholdBot, TruthfulBot
from kocka.solver import bluff_round as br
from kocka.solver.dice import outcome_distribution
from kocka.solver.registry import get_table
from kocka.solver.rules import get_game


def bot_policy(bot):
    """A deterministic bot as a turn policy: its best-ranked action (re-throws included),
    with its memory untouched (the bot as it plays a match's first round)."""

    def policy(state):
        return {bot.rank(state)[0].action: 1.0}

    return policy


def match(options: dict) -> None:
    """The match (BLUFF-6): the match plan's and the round plan's chance to win from
    ``chips`` each, and what a best responder gains against each in the match (value
    iteration from the plan's own match values, ``steps`` steps: a lower bound that is
    exact once a step changes nothing)."""
    chips, steps = int(options.pop("chips", 10)), int(options.pop("steps", 3))
    game = get_game(br.BiddingBluffGame.NAME, {**options, "start_chips": chips}, num_players=2)
    total = 2 * chips
    solved = br.solve_bidding_match(game.rules, total)
    pairs = [(x, total - x) for x in range(1, total)]
    round_stages = [st for group in br.orbits(total) if sum(group[0]) == total
                    for st in br.solve_two_dice_orbit(game.rules, group) if st.chips in pairs]
    round_win = br._evaluate_match(round_stages, game, total)
    for label, stages, win in (("match plan", solved.stages, solved.win),
                               ("round plan", round_stages, {x: float(round_win[x]) for x in range(1, total)})):
        t = time.perf_counter()
        result = br.match_exploitability(game, br.stages_policy(game, stages), win, chips, steps)
        print(json.dumps({"plan": label, "rules": options, "chips": chips, "P(starter wins)": win[chips],
                          "gain of a best responder (P(win), mean over who starts)": result.gain,
                          "best_response": result.best_response, "steps": result.steps, "last change": result.change,
                          "seconds": round(time.perf_counter() - t, 1)}), flush=True)


def liars_all(options: dict) -> None:
    """The liar's poker round plan's exploitability after every public roll, and its mean
    over the public roll's chances."""
    chips = int(options.pop("chips", 10))
    game = get_game(br.LiarsPokerGame.NAME, {**options, "start_chips": chips}, num_players=2)
    canonical = br.canonical_game(game)
    plan = br.plan_for(canonical, get_table(canonical, br.KIND))
    mean = worst = 0.0
    began = time.perf_counter()
    for public, p in outcome_distribution(3):
        entry = br._measure_public(game, plan, (chips, chips), tuple(public))
        mean += p * entry["exploitability"]
        worst = max(worst, abs(entry["exploitability"]), abs(entry["played"] - entry["value"]))
        print(json.dumps({"public": list(public), "exploitability": entry["exploitability"], "value": entry["value"]}),
              flush=True)
    print(json.dumps({"mean exploitability over the public roll": mean, "worst |exploitability| or |played - value|": worst,
                      "seconds": round(time.perf_counter() - began)}), flush=True)


def main(argv: list[str]) -> None:
    name, options = argv[0], dict(a.split("=", 1) for a in argv[1:])
    if name == "match":
        return match(options)
    if name == "liars-all":
        return liars_all(options)
    chips = int(options.pop("chips", 10))
    public = tuple(int(d) for d in options.pop("public", "6,6,6").split(","))
    game = get_game(name, {**options, "start_chips": chips}, num_players=2)
    canonical = br.canonical_game(game)
    plan = br.plan_for(canonical, get_table(canonical, br.KIND))
    liar = name == br.LiarsPokerGame.NAME
    start = (chips, chips)

    def value(policies, player=0):
        if liar:
            return br.public_round_value(game, start, public, policies, player)
        return br.round_value(game, start, policies, player)

    eq = plan.policy()
    rows = {"equilibrium": eq, "bayes": bot_policy(BayesBot(game, 0)), "truthful": bot_policy(TruthfulBot(game, 0)),
            "threshold": bot_policy(ThresholdBot(game, 0))}
    v = value([eq, eq])
    print(json.dumps({"game": name, "rules": options, "chips": start, "public": list(public) if liar else None,
                      "value (seat 0 starts)": v}), flush=True)
    for label, policy in rows.items():
        t = time.perf_counter()
        best = (value([None, policy], 0), value([policy, None], 1))
        against_eq = (value([policy, eq], 0) - v, value([eq, policy], 1) + v)
        print(json.dumps({
            "policy": label, "best_response": best, "exploitability": (best[0] + best[1]) / 2,
            "gain vs equilibrium (as starter, as answerer first)": against_eq,
            "mean gain vs equilibrium": (against_eq[0] + against_eq[1]) / 2, "seconds": round(time.perf_counter() - t, 1),
        }), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
