"""The figures of docs/BLUFF.md section 7 (the betting games' exact two-player round and
match): the exploitability of the stored plans and of the bots, and what the bots lose
against the equilibrium, all by the independent best response of
:mod:`kocka.solver.solvers.bluff.best_response` (exact walks of the engine's game, in floats).

    python scripts/bluff_round_figures.py bidding-bluff [ranking=pro] [chips=10] [policies=...]
    python scripts/bluff_round_figures.py liars-poker [chips=10] [public=6,6,6 | public=all] [policies=...] [jobs=1]
    python scripts/bluff_round_figures.py liars-all [chips=10] [jobs=1]      (= liars-poker public=all policies=equilibrium)
    python scripts/bluff_round_figures.py match [game=liars-poker] [ranking=pro] [chips=10] [steps=3]
                                          [public=6,6,6] [plans=match,round] [jobs=1]

``policies`` is a comma-separated subset of equilibrium,bayes,truthful,threshold (default:
all four). The round tables must be built first (``kocka-solve build bidding-bluff``, ``-r
ranking=pro``, ``kocka-solve build liars-poker``); ``match game=liars-poker`` reads the
match table (``kocka-solve build liars-poker --kind match``) and solves the round plan in
memory, ``match`` for the bidding bluff solves both in memory. Liar's poker is measured
after one public roll, or with ``public=all`` over the public roll (the chance node before
the round: every roll walked, weighted by its chance; in ``jobs`` processes); ``match
game=liars-poker public=6,6,6`` takes one step with the first round after that roll.
Prints one JSON object per line.
"""
from __future__ import annotations

import json
import sys
import time

from joblib import Parallel, delayed

from kocka.agents.bots.bluff_bots import BayesBot, ThresholdBot, TruthfulBot
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.dice import outcome_distribution
from kocka.solver.rules import get_game
from kocka.solver.rules.bluff import BiddingBluffGame, LiarsPokerGame
from kocka.solver.solvers.bluff.best_response import round_value
from kocka.solver.solvers.bluff.betting import orbits, unstored_table
from kocka.solver.solvers.bluff.bidding import solve_two_dice_orbit, stages_policy
from kocka.solver.solvers.bluff.liars import LiarsPlan, liars_arrays
from kocka.solver.solvers.bluff.match import (
    liars_match_step, match_exploitability, solve_bidding_match, stationary_match_values, two_dice_match_values,
)
from kocka.solver.solvers.bluff.plans import canonical_betting_game, canonical_match_game, plan_for
from kocka.solver.solvers.bluff.two_player import EQUILIBRIUM_KIND, MATCH_KIND
from kocka.solver.store.table_store import get_table

POLICIES = ("equilibrium", "bayes", "truthful", "threshold")
BOTS = {"bayes": BayesBot, "truthful": TruthfulBot, "threshold": ThresholdBot}


def bot_policy(bot):
    """A deterministic bot as a turn policy: its best-ranked action (re-throws included),
    with its memory untouched (the bot as it plays a match's first round)."""

    def policy(state):
        return {bot.rank(state)[0].action: 1.0}

    return policy


def _labels(options: dict) -> list[str]:
    labels = options.pop("policies", ",".join(POLICIES)).split(",")
    unknown = sorted(set(labels) - set(POLICIES))
    if unknown:
        raise SystemExit(f"unknown policies {unknown}; choose from {','.join(POLICIES)}")
    return labels


def _setup(name: str, rules: str, chips: int):
    """The game, its round plan and the policies (the table is loaded once per process)."""
    game = get_game(name, {**json.loads(rules), "start_chips": chips}, num_players=2)
    canonical = canonical_betting_game(game)
    plan = plan_for(canonical, get_table(canonical, EQUILIBRIUM_KIND))
    policies = {"equilibrium": plan.policy()}
    policies.update({label: bot_policy(bot(game, 0)) for label, bot in BOTS.items()})
    return game, plan, policies


def measure(name: str, rules: str, chips: int, public: tuple | None, labels: list[str]) -> dict:
    """At ``chips`` each (seat 0 starts; liar's poker after ``public``): the equilibrium's
    value as played and as the table says, and per policy the best responses (seat 0,
    seat 1) and its gains against the equilibrium (as starter, as first answerer)."""
    game, plan, policies = _setup(name, rules, chips)
    start = (chips, chips)
    began = time.perf_counter()

    def value(seats, player=0):
        if public is not None:
            return round_value(game, start, seats, player, public)
        return round_value(game, start, seats, player)

    eq = policies["equilibrium"]
    v = value([eq, eq])
    if public is None:
        table = plan.value(None, *start)
    else:
        table = plan.value(public, None, *start) * (1 if game.rules.first_turn == "starter" else -1)
    out = {"value": v, "table value": table, "policies": {}}
    for label in labels:
        policy = policies[label]
        best = (value([None, policy], 0), value([policy, None], 1))
        against = (0.0, 0.0) if label == "equilibrium" else (value([policy, eq], 0) - v, value([eq, policy], 1) + v)
        out["policies"][label] = {"best_response": best, "against": against}
    out["seconds"] = round(time.perf_counter() - began, 1)
    return out


def policy_line(label: str, entry: dict, seconds: float | None = None) -> dict:
    best, against = entry["best_response"], entry["against"]
    line = {
        "policy": label, "best_response": list(best), "exploitability": (best[0] + best[1]) / 2,
        "gain vs equilibrium (as starter, as answerer first)": list(against),
        "mean gain vs equilibrium": (against[0] + against[1]) / 2,
    }
    if seconds is not None:
        line["seconds"] = seconds
    return line


def rounds(name: str, options: dict) -> None:
    """The round at ``chips`` each: one public roll (or the two-dice round), or with
    ``public=all`` every public roll and their mean over the public roll's chances."""
    chips = int(options.pop("chips", 10))
    jobs = int(options.pop("jobs", 1))
    labels = _labels(options)
    liar = name == LiarsPokerGame.NAME
    public_text = options.pop("public", "6,6,6") if liar else None
    rules = json.dumps(options, sort_keys=True)
    if public_text != "all":
        public = tuple(int(d) for d in public_text.split(",")) if liar else None
        entry = measure(name, rules, chips, public, labels)
        print(json.dumps({"game": name, "rules": options, "chips": [chips, chips], "public": public_text,
                          "value (seat 0 starts)": entry["value"], "table value": entry["table value"]}), flush=True)
        for label in labels:
            print(json.dumps(policy_line(label, entry["policies"][label])), flush=True)
        print(json.dumps({"seconds": entry["seconds"]}), flush=True)
        return
    rolls = [(tuple(p), w) for p, w in outcome_distribution(3)]
    began = time.perf_counter()
    calls = [delayed(measure)(name, rules, chips, p, labels) for p, _ in rolls]
    mean = {label: {"best_response": [0.0, 0.0], "against": [0.0, 0.0]} for label in labels}
    value = worst = 0.0
    for (public, w), entry in zip(rolls, Parallel(n_jobs=jobs, return_as="generator")(calls)):
        value += w * entry["value"]
        worst = max(worst, abs(entry["value"] - entry["table value"]))
        line = {"public": list(public), "chance": w, "value": entry["value"], "seconds": entry["seconds"]}
        for label, measured in entry["policies"].items():
            best, against = measured["best_response"], measured["against"]
            line[label] = {"exploitability": (best[0] + best[1]) / 2, "mean gain vs equilibrium": (against[0] + against[1]) / 2}
            for i in (0, 1):
                mean[label]["best_response"][i] += w * best[i]
                mean[label]["against"][i] += w * against[i]
        print(json.dumps(line), flush=True)
    print(json.dumps({"game": name, "rules": options, "chips": [chips, chips], "public": "all (mean over the public roll)",
                      "value (seat 0 starts)": value, "worst |played - table value| at a roll": worst,
                      "seconds": round(time.perf_counter() - began)}), flush=True)
    for label in labels:
        print(json.dumps(policy_line(label, mean[label])), flush=True)


def match_plans(game, chips: int, jobs: int, wanted: list[str]):
    """(label, policy, W) of the match plan and of the round plan played in the match."""
    total = 2 * chips
    if isinstance(game, LiarsPokerGame):
        canonical, match_game = canonical_betting_game(game), canonical_match_game(game)
        if "match" in wanted:
            table = get_table(match_game, MATCH_KIND)
            yield "match plan", plan_for(canonical, table).policy(), {x: float(table["win"][x]) for x in range(1, total)}
        if "round" in wanted:
            step = liars_match_step(match_game.rules, total, BuildOptions(jobs=jobs))
            _, affine, rows = step(None)
            arrays = liars_arrays(rows, len(canonical.claims()), total)
            plan = LiarsPlan(canonical, unstored_table(arrays, {"total": total}))
            yield "round plan", plan.policy(), stationary_match_values(affine, total)
        return
    if "match" in wanted:
        solved = solve_bidding_match(game.rules, total)
        yield "match plan", stages_policy(game, solved.stages), solved.win
    if "round" in wanted:
        pairs = [(x, total - x) for x in range(1, total)]
        stages = [st for group in orbits(total) if sum(group[0]) == total
                  for st in solve_two_dice_orbit(game.rules, group) if st.chips in pairs]
        yield "round plan", stages_policy(game, stages), two_dice_match_values(stages, game, total)


def match(options: dict) -> None:
    """The match (BLUFF-6): the match plan's and the round plan's chance to win from
    ``chips`` each, and what a best responder gains against each in the match (value
    iteration from the plan's own match values, ``steps`` steps: a lower bound that is
    exact once a step changes nothing; with ``public`` one step, the first round after
    that public roll)."""
    name = options.pop("game", BiddingBluffGame.NAME)
    chips, steps = int(options.pop("chips", 10)), int(options.pop("steps", 3))
    jobs = int(options.pop("jobs", 1))
    wanted = options.pop("plans", "match,round").split(",")
    public = options.pop("public", None)
    public = tuple(int(d) for d in public.split(",")) if public else None
    if public is not None:
        steps = 1
    game = get_game(name, {**options, "start_chips": chips}, num_players=2)
    for label, policy, win in match_plans(game, chips, jobs, wanted):
        t = time.perf_counter()
        result = match_exploitability(game, policy, win, chips, steps, public=public, jobs=jobs)
        print(json.dumps({"game": name, "plan": label, "rules": options, "chips": chips, "P(starter wins)": win[chips],
                          **({"first round after": list(public) if public else "any public roll"}
                             if isinstance(game, LiarsPokerGame) else {}),
                          "gain of a best responder (P(win), mean over who starts)": result.gain,
                          "best_response": result.best_response, "steps": result.steps, "last change": result.change,
                          "seconds": round(time.perf_counter() - t, 1)}), flush=True)


def main(argv: list[str]) -> None:
    name, options = argv[0], dict(a.split("=", 1) for a in argv[1:])
    if name == "match":
        return match(options)
    if name == "liars-all":
        return rounds(LiarsPokerGame.NAME, {"public": "all", "policies": "equilibrium", **options})
    return rounds(name, options)


if __name__ == "__main__":
    main(sys.argv[1:])
