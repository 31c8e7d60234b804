"""Calibrate the difficulty levels of a game (kocka.agents.bots.levels) to the published ladder.

    python scripts/calibrate_levels.py kockapoker --grid-games 300 --bisect-games 300 \
        --verify-games 1000 --seed 1 --jobs 2

The ladder: level 1 plays uniformly (infinite temperature; the loss of ``random``), level
10 is the table agent (temperature 0, loss 0), and levels 2..9 lose L_k = L_1 x ratio^(k-1)
per game (geometric; ``--ratio``, default 0.7), where the loss is

* scorecard games (spec outcome ``score``): points per game below ``optimal`` on the same
  dice (each on its own card, the arena's solitaire mode: common random numbers);
* every other game: two seats, the level against the table agent (``optimal`` or
  ``equilibrium``), seats rotating: for races and Kocka (outcome ``race``/``win`` with an
  ``optimal``) 0.5 - the level's win share; for the bluff games and chip games the chips
  per game the level gives up (minus its mean return).

The scorecard games play their games in compiled code where the simulation kernel plays
the variant (:meth:`kocka.agents.bots.levels.LevelAgent.simulator`: the same games, game
by game, as the engine loop), so tens of thousands of games per temperature are cheap;
other games go through the engine loop (joblib workers).

How: the losses of a log grid of temperatures (``--grid-games`` seeded games each, the
same games for every temperature, so the loss curve is smooth), then for each level a
bisection in log T inside its grid bracket (``--steps`` halvings, ``--bisect-games``),
then log-log interpolation in the last bracket. The temperatures go to
agents/bots/level_temperatures.json (the entry of this game, rules and player count is
replaced), and ``--verify-games`` fresh games (seed + 1000) are played through
:func:`kocka.agents.frontends.games.arena.run_arena` with the ``level:N`` names, as
``kocka arena`` plays them: their losses with 95 % intervals are stored with the entry and
printed, with whether the ladder is monotone and neighbours' intervals are disjoint.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import pathlib
import statistics
import sys
import time

import numpy as np

from kocka.agents.bots.base import ChanceSampler, derive_seed, positions_with_rng
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.bots import levels
from kocka.agents.frontends.games.arena import final_scores, mean_interval, play_match, run_arena, win_shares
from kocka.solver.rules import get_game

import random


def measure_game(game, spec_outcome: str) -> str:
    """``points`` (scorecard games), ``chips`` (games whose returns are chip changes:
    ``payoff = chips``), else ``win``: the bluff games' default matches return win shares
    (0 or 1), so their loss is one in P(win) as for the races."""
    if spec_outcome == "score":
        return "points"
    if getattr(game.rules, "payoff", None) == "chips" or spec_outcome == "chips":
        return "chips"
    return "win"


REGRET_GAMES = {("kocka", 2)}
"""(game, seats) whose table agent's values are the mover's exact P(win) with the table
agent in the other seat: there a level's expected loss equals the expected sum of what it
gives up by those values (:attr:`LevelAgent.regret`; the table's value is a martingale
under the table's own moves and the dice, and drops by exactly that at each of the
level's moves, and the two seats' starting values add up to 1), an estimator whose
spread per game is a fraction of a win share's 0.5. Not the bluff games (their values
price the equilibrium's mix, not its best action) nor the basic Polish race (its
``optimal`` plays the solitaire table)."""


def loss_estimator(game, measure: str) -> str:
    """``regret`` where :data:`REGRET_GAMES` allows it, else ``outcome`` (the game's own result)."""
    return "regret" if measure == "win" and (game.NAME, game.num_players) in REGRET_GAMES else "outcome"


def fixed_temperatures(game, temperature: float | None) -> levels.LevelTemperatures:
    """Every level at one temperature (the calibration plays ``level:5`` with it)."""
    return levels.LevelTemperatures(game.NAME, {k: temperature for k in levels.LEVELS}, "absolute", calibrated=True)


def _losses_chunk(game_name, rules, players, measure, base, temperature, seed, start, stop, cache_dir, best_scores=None,
                  estimator="outcome"):
    """Per-game losses of the level at ``temperature`` over games start..stop-1
    (``temperature`` "reference": the table agent's own scores, points measure; a
    ``level:N`` name: that level with the temperature file's temperatures, as the arena
    plays it). ``estimator`` "regret": the value the level gave up (:data:`REGRET_GAMES`)."""
    game = get_game(game_name, rules, num_players=players)
    options = AgentOptions(cache_dir=cache_dir)
    reference = make_agent(base, game, 0, options)
    if temperature == "reference":
        return [final_scores(game, play_match(game, [reference], ChanceSampler(derive_seed("game", seed, i))))[0]
                for i in range(start, stop)]
    if isinstance(temperature, str):
        level = make_agent(temperature, game, 0, options)
    else:
        level = levels.make_level_agent("level:5", game, 0, options, fixed_temperatures(game, temperature))
    out = []
    for i in range(start, stop):
        reference.reset(derive_seed("agent", seed, i, 0))
        level.reset(derive_seed("agent", seed, i, 1))
        if measure == "points":  # the table agent draws nothing: its score of game i is best_scores[i - start]
            mine = final_scores(game, play_match(game, [level], ChanceSampler(derive_seed("game", seed, i))))[0]
            out.append(best_scores[i - start] - mine)
        else:
            seats = [level, reference] if i % 2 == 0 else [reference, level]
            state = play_match(game, seats, ChanceSampler(derive_seed("game", seed, i)))
            me = 0 if i % 2 == 0 else 1
            if estimator == "regret":
                out.append(level.regret)
            elif measure == "win":
                out.append(0.5 - float(win_shares(np.asarray(game.returns(state), dtype=float))[me]))
            else:
                out.append(-float(game.returns(state)[me]))
    return out


def kernel_level(game, base, cache_dir, temperature):
    """The compiled player of a level at ``temperature`` (``level:5`` of
    :func:`fixed_temperatures`), or None where the game's table agent has none."""
    level = levels.make_level_agent("level:5", game, 0, AgentOptions(cache_dir=cache_dir),
                                    fixed_temperatures(game, temperature))
    return level.simulator()


class LossCurve:
    """Mean loss per game at a temperature, over a fixed set of seeded games (cached):
    game i's dice from ``derive_seed("game", seed, i)``, the level's draws from
    ``derive_seed("agent", seed, i, 1)``, in compiled code where it plays the game (points)."""

    def __init__(self, game, measure, base, games, seed, jobs, cache_dir):
        self.game, self.measure, self.base, self.games, self.seed, self.jobs = game, measure, base, games, seed, jobs
        self.cache_dir = cache_dir
        self.estimator = loss_estimator(game, measure)
        self.cache: dict = {}
        self.kernel = measure == "points" and kernel_level(game, base, cache_dir, 1.0) is not None
        if self.kernel:
            self.game_seeds = np.array([derive_seed("game", seed, i) for i in range(games)], dtype=np.int64)
            self.agent_seeds = np.array([derive_seed("agent", seed, i, 1) for i in range(games)], dtype=np.int64)
            reference = make_agent(base, game, 0, AgentOptions(cache_dir=cache_dir)).simulator()
            self.best = reference.scores(self.game_seeds, 0, jobs)
        else:
            self.best = self._run("reference", [None] * games) if measure == "points" else [None] * games

    def _run(self, temperature, best):
        """Per-game losses at ``temperature`` (or of a ``level:N`` name, see :func:`_losses_chunk`)."""
        if self.kernel:
            player = kernel_level(self.game, self.base, self.cache_dir, temperature)
            return self.best - player.scores(self.game_seeds, 0, self.jobs, agent_seeds=self.agent_seeds)
        chunk = max(1, math.ceil(self.games / (self.jobs * 4)))
        bounds = [(s, min(s + chunk, self.games)) for s in range(0, self.games, chunk)]
        args = (self.game.NAME, self.game.rules.options(), self.game.num_players, self.measure, self.base, temperature,
                self.seed)
        if self.jobs == 1:
            parts = [_losses_chunk(*args, lo, hi, self.cache_dir, best[lo:hi], self.estimator) for lo, hi in bounds]
        else:
            from joblib import Parallel, delayed

            parts = Parallel(n_jobs=self.jobs)(delayed(_losses_chunk)(*args, lo, hi, self.cache_dir, best[lo:hi],
                                                                      self.estimator) for lo, hi in bounds)
        return [x for p in parts for x in p]

    def __call__(self, temperature: float | None) -> float:
        if temperature not in self.cache:
            self.cache[temperature] = float(np.mean(self._run(temperature, self.best)))
            print(f"  T={temperature!s:>12}  loss {self.cache[temperature]:.4f}", file=sys.stderr, flush=True)
        return self.cache[temperature]


def value_spread(game, base, cache_dir, seed) -> float:
    """Median spread (max - min) of the base agent's values over seeded positions of its
    own play: the scale the temperature grid starts from."""
    agent = make_agent(base, game, 0, AgentOptions(cache_dir=cache_dir))
    spreads = []
    for state in positions_with_rng(game, agent.choose, random.Random(seed), 200):
        values = [d.value for d in agent.rank(state)]
        if len(values) > 1:
            spreads.append(max(values) - min(values))
    return statistics.median(spreads) if spreads else 1.0


def bisect_level(curve: LossCurve, target: float, lo: float, hi: float, steps: int) -> float:
    """T with curve(T) ~ target, curve(lo) <= target <= curve(hi): halvings in log T, then
    log-log interpolation in the last bracket."""
    for _step in range(steps):
        mid = math.sqrt(lo * hi)
        if curve(mid) < target:
            lo = mid
        else:
            hi = mid
    a, b = curve(lo), curve(hi)
    if a <= 0 or b <= a:
        return math.sqrt(lo * hi)
    x = (math.log(target) - math.log(a)) / (math.log(b) - math.log(a))
    return math.exp(math.log(lo) + min(1.0, max(0.0, x)) * (math.log(hi) - math.log(lo)))


def verify(game, measure, base, temperatures_file_entry, games, seed, jobs, cache_dir):
    """The ladder as ``kocka arena`` measures it with the written temperatures: per level
    (mean loss, low, high) at 95 %."""
    options = AgentOptions(cache_dir=cache_dir)
    result = {}
    if loss_estimator(game, measure) == "regret":  # the arena keeps no agent's regret: its engine loop, its seeds
        curve = LossCurve(game, measure, base, games, seed, jobs, cache_dir)
        for name in levels.level_names():
            result[name.split(":")[1]] = list(mean_interval(np.asarray(curve._run(name, curve.best))))
        return result
    if measure == "points":
        names = ["optimal"] + levels.level_names()
        arena = run_arena(get_game(game.NAME, game.rules.options(), num_players=1), names, games, seed, jobs, options)
        for k, name in enumerate(levels.level_names(), start=1):
            result[str(k)] = list(mean_interval(arena.scores[:, 0] - arena.scores[:, k]))
    else:
        for k, name in enumerate(levels.level_names(), start=1):
            arena = run_arena(game, [name, base], games, seed, jobs, options)
            if measure == "win":
                result[str(k)] = list(mean_interval(0.5 - arena.wins[:, 0]))
            else:
                result[str(k)] = list(mean_interval(-arena.scores[:, 0]))
    return result


def ladder_checks(measured: dict) -> dict:
    means = [measured[str(k)][0] for k in levels.LEVELS]
    monotone = all(a > b for a, b in zip(means, means[1:]))
    disjoint = all(measured[str(k)][1] > measured[str(k + 1)][2] for k in levels.LEVELS[:-1])
    return {"monotone": monotone, "neighbours_disjoint": disjoint}


def ladder_tables(path: pathlib.Path) -> str:
    """The stored ladders as Markdown: per calibrated game its target, temperature and the
    measured loss with its interval per level."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for entry in doc["games"]:
        measured = entry.get("measured")
        rules = ", ".join(f"{k}={v}" for k, v in entry["rules"].items() if not isinstance(v, list)) or "defaults"
        head = f"**{entry['game']}** ({rules}; loss: {entry['loss']}; ratio {entry['ladder']['ratio']})"
        if measured:
            head += (f"; measured over {measured['games']} games, seed {measured['seed']}: "
                     f"monotone {measured['monotone']}, neighbours' intervals disjoint {measured['neighbours_disjoint']}")
        # a loss in P(win) (below 1) needs four decimals for its interval to say anything
        places = 4 if entry["ladder"]["random_loss"] < 1 else 2
        out += [head, "", "| level | label | temperature | target loss | measured loss | 95% interval |", "|---:|---|---:|---:|---:|---|"]
        for k in levels.LEVELS:
            t = entry["temperatures"][str(k)]
            target = entry["ladder"]["random_loss"] if k == 1 else entry["ladder"]["targets"].get(str(k), 0.0)
            mean, lo, hi = measured["loss"][str(k)] if measured else (float("nan"),) * 3
            shown_t = "uniform" if t is None else f"{t:.4g}"
            out.append(f"| {k} | {levels.LEVEL_LABELS[k]} | {shown_t} | {target:.{places}f} | {mean:.{places}f} | [{lo:.{places}f}, {hi:.{places}f}] |")
        out.append("")
    return "\n".join(out)


def write_entry(path: pathlib.Path, entry: dict) -> None:
    doc = {"format": levels.TEMPERATURES_FORMAT, "games": []}
    if path.exists():
        doc = json.loads(path.read_text(encoding="utf-8"))
    doc["about"] = ("Temperatures of the difficulty levels (kocka.agents.bots.levels), per game, rules and player "
                    "count (null players: any), written by scripts/calibrate_levels.py; temperature null = uniform.")
    doc["games"] = [e for e in doc["games"]
                    if not (e["game"] == entry["game"] and e["rules"] == entry["rules"] and e.get("players") == entry.get("players"))]
    doc["games"].append(entry)
    doc["games"].sort(key=lambda e: (e["game"], json.dumps(e["rules"], sort_keys=True)))
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    levels._load_entries.cache_clear()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", help="the game to calibrate (omit with --show)")
    parser.add_argument("--show", action="store_true", help="print the stored ladders as Markdown tables and stop")
    parser.add_argument("--verify-only", action="store_true",
                        help="keep the stored temperatures of GAME and only measure them (--verify-games, seed + 1000)")
    parser.add_argument("-r", "--rule", action="append", default=[], help="rule option key=value")
    parser.add_argument("--players", type=int, default=2, help="seats of the non-scorecard games (default 2)")
    parser.add_argument("--ratio", type=float, default=0.7)
    parser.add_argument("--grid-games", type=int, default=300)
    parser.add_argument("--bisect-games", type=int, default=300)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--verify-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--out", type=pathlib.Path, default=levels.temperatures_file())
    args = parser.parse_args(argv)
    os.environ[levels.TEMPERATURES_ENV] = str(args.out)  # the levels of this run (and its workers) read --out
    if args.show:
        print(ladder_tables(args.out))
        return 0
    if not args.game:
        parser.error("name a game to calibrate, or --show")

    rules = dict(r.split("=", 1) for r in args.rule)
    probe = get_game(args.game, rules or None)
    outcome = probe.spec().outcome
    players = 1 if outcome == "score" else args.players
    game = get_game(args.game, rules or None, num_players=players)
    base = levels.base_agent_name(game)
    if base not in levels.VALUE_AGENTS:
        print(f"{game.NAME}: no table agent, its levels stay uncalibrated", file=sys.stderr)
        return 2
    measure = measure_game(game, outcome)
    started = time.time()
    if args.verify_only:
        entry = levels.calibration_entry(game, args.out)
        if entry is None:
            parser.error(f"{args.out} has no entry for {game.NAME} with these rules: calibrate it first")
        return report(dict(entry), game, measure, base, args)
    spread = value_spread(game, base, args.cache_dir, args.seed)
    print(f"{game.NAME}: levels around {base!r}, loss in {measure}, median value spread {spread:.4g}", file=sys.stderr)
    grid_curve = LossCurve(game, measure, base, args.grid_games, args.seed, args.jobs, args.cache_dir)
    random_loss = grid_curve(None)
    targets = {k: random_loss * args.ratio ** (k - 1) for k in levels.LEVELS[1:-1]}
    grid = [spread * 2.0 ** j for j in range(-8, 7)]
    grid_losses = []
    for t in grid:  # up the grid until the weakest target is passed
        grid_losses.append(grid_curve(t))
        if grid_losses[-1] >= targets[2]:
            break
    curve = grid_curve if args.bisect_games == args.grid_games else LossCurve(
        game, measure, base, args.bisect_games, args.seed + 500, args.jobs, args.cache_dir)
    temperatures: dict[str, float | None] = {"1": None, str(levels.LEVELS[-1]): 0.0}
    for k, target in targets.items():
        above = next((i for i, loss in enumerate(grid_losses) if loss >= target), None)
        if above is None:
            temperatures[str(k)] = grid[len(grid_losses) - 1]
            continue
        lo = grid[above - 1] if above > 0 else grid[0] / 2
        temperatures[str(k)] = bisect_level(curve, target, lo, grid[above], args.steps)
        print(f"level {k}: target {target:.4f} -> T {temperatures[str(k)]:.5g}", file=sys.stderr, flush=True)
    entry = {
        "game": game.NAME, "rules": levels.rules_key(game), "players": None if outcome == "score" else players,
        "base": base, "loss": {"points": "points per game below optimal, same dice",
                               "win": "0.5 - win share against the table agent, seats rotating",
                               "chips": "chips per game given up against the table agent, seats rotating"}[measure]
        + {"outcome": "", "regret": " (estimated by the P(win) the level gives up at its moves)"}[loss_estimator(game, measure)],
        "ladder": {"ratio": args.ratio, "random_loss": random_loss, "targets": {str(k): v for k, v in targets.items()}},
        "temperatures": {str(k): temperatures[str(k)] for k in levels.LEVELS},
        "computed": {"script": "scripts/calibrate_levels.py", "seed": args.seed, "grid_games": args.grid_games,
                     "bisect_games": args.bisect_games, "steps": args.steps, "value_spread": spread,
                     "date": datetime.date.today().isoformat()},
    }
    write_entry(args.out, entry)
    print(f"temperatures written to {args.out} ({time.time() - started:.0f} s)", file=sys.stderr, flush=True)
    if args.verify_games:
        report(entry, game, measure, base, args)
    print(f"done in {time.time() - started:.0f} s", file=sys.stderr)
    return 0


def report(entry: dict, game, measure: str, base: str, args) -> int:
    """Measure the entry's temperatures through the arena, store and print the ladder."""
    verify_seed = args.seed + 1000
    measured = verify(game, measure, base, entry, args.verify_games, verify_seed, args.jobs, args.cache_dir)
    entry["measured"] = {"games": args.verify_games, "seed": verify_seed, "interval": "normal, 95%",
                         "loss": measured, **ladder_checks(measured)}
    write_entry(args.out, entry)
    print(f"{'level':>5}  {'target':>9}  {'loss':>9}  95% interval", flush=True)
    for k in levels.LEVELS:
        mean, lo, hi = measured[str(k)]
        target = entry["ladder"]["random_loss"] if k == 1 else entry["ladder"]["targets"].get(str(k), 0.0)
        print(f"{k:>5}  {target:>9.4f}  {mean:>9.4f}  [{lo:.4f}, {hi:.4f}]", flush=True)
    print(json.dumps(ladder_checks(measured)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
