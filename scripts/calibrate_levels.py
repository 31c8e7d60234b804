"""Calibrate the difficulty levels of a game (kocka.agents.bots.levels) to the published ladder.

    python scripts/calibrate_levels.py kockapoker --grid-games 300 --bisect-games 300 \
        --verify-games 1000 --seed 1 --jobs 2

The ladder: level 1 plays uniformly (infinite temperature; the loss of ``random``), level
10 is the table agent (temperature 0, loss 0), and levels 2..9 lose L_k = L_1 x ratio^(k-1)
per game (geometric; ``--ratio``, default 0.7), where the loss is

* scorecard games (spec outcome ``score``): points per game below ``optimal`` on the same
  dice (each on its own card, the arena's solitaire mode: common random numbers);
* every other game: ``--players`` seats (default 2), the level against the table agent
  (``optimal``) in every other seat, the level's seat rotating: for races and Kocka
  (outcome ``race``/``win``) 1/n - the level's win share; for chip games the chips per
  game the level gives up (minus its mean return);
* the bluff games (the level around ``equilibrium``): chips per round, exact (below).

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

**The bluff games** (levels around ``equilibrium``: Abázs, the bidding bluff, liar's poker,
two players) are calibrated on an *exact* loss instead: the chips per round a level gives
up against the equilibrium, walked on the engine's game with every chance and action
weighted (:class:`kocka.agents.bots.level_loss.BluffLevelLoss`: Abázs's match average per
round, the betting games' round from the starting chips with the level in either seat;
liar's poker over every public roll, or after the one of ``--public``). The same log grid
and bisection run on these exact values (``--steps``, default 6 here; no games, no noise;
liar's poker over every public roll, where each loss walks 56 rounds: one pass over a
half-octave grid and log-log interpolation, :func:`fit_ladder_in_one_pass`), and the
written temperatures' own losses are computed again and stored as exact (``"exact"``),
with whether they fall from level to level; for liar's poker calibrated after one public
roll, ``--verify-public all`` adds the exact losses over every public roll (the whole
round). The entry names the values it was fitted to (``"values"``: the round plan's, in
chips; :func:`kocka.agents.bots.levels.calibrated_for`).

    python scripts/calibrate_levels.py abazs    (bidding-bluff, liars-poker; --public 6,6,6)
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
from kocka.agents.bots.level_loss import BluffLevelLoss
from kocka.agents.frontends.games.arena import final_scores, mean_interval, play_match, run_arena, win_shares
from kocka.solver.rules import get_game
from kocka.solver.rules.bluff import LiarsPokerGame

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


REGRET_GAMES = {("kocka", 2), ("kocka", 3), ("polish-basic", 2), ("polish", 1)}
"""(game, seats) whose levels' base agent's values are the mover's exact P(win) (ties
shared) with that agent in every other seat (Kocka's ``optimal``: the two-player table and
the three-player equilibrium table, whose values are the mover's under the equilibrium's
own mixed play where it mixes; the basic Polish race's ``winner``, its spec's
``level_base``): there a level's expected loss equals the expected sum of what it gives up
by those values (:attr:`LevelAgent.regret`; the table's value is a martingale under the
table's own moves and the dice, and drops by exactly that at each of the level's moves,
and the n seats' starting values add up to 1, so over games whose seats rotate they average
1/n), an estimator whose spread per game is a fraction of a win share's. The same holds in
points for the full Polish game (one card, no compiled player of its levels): ``optimal``'s
values are the exact expected game totals of the ``ev`` table, so the points a level gives
up by them at its moves add up, in expectation, to its points below ``optimal`` on the same
dice (a Polish game through the engine loop is about a second; this needs no reference
game and a fraction of the games). Not the bluff games (their values price the
equilibrium's mix, not its best action)."""


STAND_IN_REGRET_GAMES = {("kocka", 4), ("kocka", 5), ("kocka", 6)}
"""(game, seats) whose base agent plays from a stand-in table, not the game's own (Kocka
with four to six players, no table of their own here: ``optimal`` races the two leading opponents
on the three-player table): their levels are calibrated by the P(win) they give up at
their moves *as those values count it*, the regret estimator of :data:`REGRET_GAMES` with
values that are not the mover's exact P(win) at this table. Not an unbiased estimate of
the level's win-share loss, but a well-defined one with the regret's small spread (the
paired win-share loss, whose spread is a whole win's, would need some 15,000 games per
level to part the top levels); the entry's loss says so, and docs/AGENTS.md compares it
with the paired loss where that is measurable."""


def regret_kind(game) -> str | None:
    """``exact`` for :data:`REGRET_GAMES`, ``stand-in`` for :data:`STAND_IN_REGRET_GAMES`,
    else None."""
    key = (game.NAME, game.num_players)
    return "exact" if key in REGRET_GAMES else "stand-in" if key in STAND_IN_REGRET_GAMES else None


def loss_estimator(game, measure: str) -> str:
    """``regret`` where :data:`REGRET_GAMES` allows it; else ``outcome`` for the scorecard
    games (the table agent's score on the same dice minus the level's) and ``paired`` for
    the others: the result of the base agent in the level's seat of the same game (the
    same seeds, the base agent in every other seat) minus the level's. Seats rotate and
    the base agent against itself averages 1/n (win) or 0 (chips), so its mean is the
    level's loss; the two games share their dice until the level first departs from the
    base agent, so the difference's spread is a fraction of a result's (the arena's
    ``--baseline``)."""
    if measure in ("win", "points") and regret_kind(game) is not None:
        return "regret"
    return "outcome" if measure == "points" else "paired"


def temperature_scale(base: str) -> str:
    """``relative`` for levels around the heuristic (its priorities have no common unit:
    :mod:`kocka.agents.bots.levels`), else ``absolute``."""
    return "relative" if base == levels.FALLBACK_AGENT else "absolute"


def fixed_temperatures(game, temperature: float | None, scale: str = "absolute") -> levels.LevelTemperatures:
    """Every level at one temperature (the calibration plays ``level:5`` with it)."""
    return levels.LevelTemperatures(game.NAME, {k: temperature for k in levels.LEVELS}, scale, calibrated=True)


def _losses_chunk(game_name, rules, players, measure, base, temperature, seed, start, stop, cache_dir, best_scores=None,
                  estimator="outcome", scale="absolute"):
    """Per-game losses of the level at ``temperature`` over games start..stop-1
    (``temperature`` "reference": the base agent's own results, its score or, ``paired``,
    its result in the level's seat; a ``level:N`` name: that level with the temperature
    file's temperatures, as the arena plays it). ``estimator``: :func:`loss_estimator`."""
    game = get_game(game_name, rules, num_players=players)
    options = AgentOptions(cache_dir=cache_dir)
    reference = make_agent(base, game, 0, options)
    # the other seats' table agents (one per seat: an agent may keep what its seat has seen)
    others = [make_agent(base, game, s, options) for s in range(1, players)] if measure != "points" else []
    if temperature == "reference" and measure == "points":
        return [final_scores(game, play_match(game, [reference], ChanceSampler(derive_seed("game", seed, i))))[0]
                for i in range(start, stop)]
    if temperature == "reference":
        level = make_agent(base, game, 0, options)
    elif isinstance(temperature, str):
        level = make_agent(temperature, game, 0, options)
    else:
        level = levels.make_level_agent("level:5", game, 0, options, fixed_temperatures(game, temperature, scale))
    out = []
    for i in range(start, stop):
        reference.reset(derive_seed("agent", seed, i, 0))
        level.reset(derive_seed("agent", seed, i, 1))
        if measure == "points" and estimator == "regret":
            play_match(game, [level], ChanceSampler(derive_seed("game", seed, i)))
            out.append(level.regret)
        elif measure == "points":  # the table agent draws nothing: its score of game i is best_scores[i - start]
            mine = final_scores(game, play_match(game, [level], ChanceSampler(derive_seed("game", seed, i))))[0]
            out.append(best_scores[i - start] - mine)
        else:
            me = i % players  # the level's seat rotates; the table agent sits in every other seat
            for k, other in enumerate(others, start=2):
                other.reset(derive_seed("agent", seed, i, k))
            rest = iter([reference, *others])
            seats = [level if s == me else next(rest) for s in range(players)]
            state = play_match(game, seats, ChanceSampler(derive_seed("game", seed, i)))
            if estimator == "regret":
                out.append(level.regret)
                continue
            returns = np.asarray(game.returns(state), dtype=float)
            mine = float(win_shares(returns)[me]) if measure == "win" else float(returns[me])
            out.append(mine if temperature == "reference" else best_scores[i - start] - mine)  # paired
    return out


def kernel_level(game, base, cache_dir, temperature):
    """The compiled player of a level at ``temperature`` (``level:5`` of
    :func:`fixed_temperatures`), or None where the game's table agent has none."""
    level = levels.make_level_agent("level:5", game, 0, AgentOptions(cache_dir=cache_dir),
                                    fixed_temperatures(game, temperature, temperature_scale(base)))
    return level.simulator()


class LossCurve:
    """Mean loss per game at a temperature, over a fixed set of seeded games (cached):
    game i's dice from ``derive_seed("game", seed, i)``, the level's draws from
    ``derive_seed("agent", seed, i, 1)``, in compiled code where it plays the game (points)."""

    def __init__(self, game, measure, base, games, seed, jobs, cache_dir):
        self.game, self.measure, self.base, self.games, self.seed, self.jobs = game, measure, base, games, seed, jobs
        self.cache_dir = cache_dir
        self.estimator = loss_estimator(game, measure)
        self.scale = temperature_scale(base)
        self.cache: dict = {}
        self.kernel = measure == "points" and kernel_level(game, base, cache_dir, 1.0) is not None
        if self.kernel:
            self.game_seeds = np.array([derive_seed("game", seed, i) for i in range(games)], dtype=np.int64)
            self.agent_seeds = np.array([derive_seed("agent", seed, i, 1) for i in range(games)], dtype=np.int64)
            reference = make_agent(base, game, 0, AgentOptions(cache_dir=cache_dir)).simulator()
            self.best = reference.scores(self.game_seeds, 0, jobs)
        elif self.estimator in ("outcome", "paired"):  # the base agent's own results, game by game
            self.best = self._run("reference", [None] * games)
        else:
            self.best = [None] * games

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
            parts = [_losses_chunk(*args, lo, hi, self.cache_dir, best[lo:hi], self.estimator, self.scale)
                     for lo, hi in bounds]
        else:
            from joblib import Parallel, delayed

            parts = Parallel(n_jobs=self.jobs)(delayed(_losses_chunk)(*args, lo, hi, self.cache_dir, best[lo:hi],
                                                                      self.estimator, self.scale) for lo, hi in bounds)
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
    return log_log_interpolate(lo, hi, curve(lo), curve(hi), target)


def log_log_interpolate(lo: float, hi: float, a: float, b: float, target: float) -> float:
    """T in [lo, hi] where the line through (log lo, log a) and (log hi, log b) reaches
    log target (the geometric mean where the losses do not rise)."""
    if a <= 0 or b <= a:
        return math.sqrt(lo * hi)
    x = (math.log(target) - math.log(a)) / (math.log(b) - math.log(a))
    return math.exp(math.log(lo) + min(1.0, max(0.0, x)) * (math.log(hi) - math.log(lo)))


class ExactLossCurve:
    """Exact loss per round of the level at a temperature (bluff games; module docstring),
    remembered per temperature."""

    def __init__(self, game, cache_dir, publics=None):
        self.game, self.cache_dir = game, cache_dir
        self.measure = BluffLevelLoss(game, AgentOptions(cache_dir=cache_dir), publics)
        self.cache: dict = {}

    def level(self, temperature: float | None):
        return levels.make_level_agent("level:5", self.game, 0, AgentOptions(cache_dir=self.cache_dir),
                                       fixed_temperatures(self.game, temperature))

    def many(self, temperatures) -> list[float]:
        """The losses of several temperatures in one pass (liar's poker: one public roll in
        memory at a time)."""
        todo = [t for t in dict.fromkeys(temperatures) if t not in self.cache]
        for t, loss in zip(todo, self.measure.losses([self.level(t) for t in todo])):
            self.cache[t] = loss
            print(f"  T={t!s:>12}  exact loss {loss:.6f}", file=sys.stderr, flush=True)
        return [self.cache[t] for t in temperatures]

    def __call__(self, temperature: float | None) -> float:
        return self.many([temperature])[0]


def parse_publics(game, text: str | None):
    """``--public``: None (every public roll with its chance) for ``all`` or a game without
    a public roll, else one roll (weight 1), e.g. ``6,6,6``."""
    if text is None or text == "all" or not isinstance(game, LiarsPokerGame):
        return None
    return [(tuple(sorted(int(d) for d in text.split(","))), 1.0)]


def describe_publics(publics) -> str:
    if publics is None:
        return "every public roll, weighted by its chance"
    return "after the public roll " + " and ".join(str(list(roll)) for roll, _ in publics)


def exact_over(game, publics) -> str:
    """What an exact loss of ``game`` averages over, in a few words."""
    if game.NAME == "abazs":
        return "the match, per round"
    rounds = f"one round from {game.rules.start_chips} chips each, either seat"
    return f"{rounds}, {describe_publics(publics)}" if isinstance(game, LiarsPokerGame) else rounds


def exact_round_text(game, publics) -> str:
    """What the exact loss of ``game`` is, for the entry's ``loss`` text."""
    if game.NAME == "abazs":
        return ("chips per round given up against the equilibrium, exact: the level's average chips per round "
                "in the match against it, who starts each round by BLUFF-10 (abazs.match_value, walked exactly)")
    chips = game.rules.start_chips
    where = f"; {describe_publics(publics)}" if isinstance(game, LiarsPokerGame) else ""
    return (f"chips per round given up against the equilibrium, exact: one round from {chips} chips each, "
            f"the level as starter and as the other seat, averaged (best_response walks{where})")


def exact_ladder(curve: ExactLossCurve, temperatures: dict) -> dict:
    """The exact loss of each written temperature, and whether they fall from level to level."""
    loss = dict(zip([str(k) for k in levels.LEVELS], curve.many([temperatures[str(k)] for k in levels.LEVELS])))
    means = [loss[str(k)] for k in levels.LEVELS]
    return {"loss": loss, "monotone": all(a > b for a, b in zip(means, means[1:]))}


def calibrate_exact(game, base, args) -> int:
    """The bluff games' ladder on exact losses (module docstring)."""
    started, cpu = time.time(), time.process_time()
    publics = parse_publics(game, args.public)
    curve = ExactLossCurve(game, args.cache_dir, publics)
    steps = 6 if args.steps is None else args.steps
    spread = value_spread(game, base, args.cache_dir, args.seed)
    print(f"{game.NAME}: levels around {base!r}, exact loss in chips per round, median value spread {spread:.4g}",
          file=sys.stderr)
    if isinstance(game, LiarsPokerGame) and publics is None:  # every public roll: one pass, no bisection
        random_loss, targets, temperatures = fit_ladder_in_one_pass(curve, spread, args.ratio)
        method = "exact; the losses of a half-octave grid in one pass over the public rolls, log-log interpolation"
    else:
        random_loss, targets, temperatures = fit_ladder(curve, curve, spread, args.ratio, steps)
        method = f"exact; log grid, then {steps} bisection halvings in log T and log-log interpolation"
    entry = {
        "game": game.NAME, "rules": levels.rules_key(game), "players": game.num_players, "base": base,
        "values": curve.measure.agent.value_name, "loss": exact_round_text(game, publics),
        "ladder": {"ratio": args.ratio, "random_loss": random_loss, "targets": {str(k): v for k, v in targets.items()}},
        "temperatures": temperatures,
        "computed": {"script": "scripts/calibrate_levels.py", "method": method, "value_spread": spread,
                     "seed": args.seed, "date": datetime.date.today().isoformat()},
        "exact": {**exact_ladder(curve, temperatures), "over": exact_over(game, publics)},
    }
    if publics is not None:
        entry["computed"]["public"] = list(publics[0][0])
    whole_round(entry, game, publics, args)
    entry["computed"]["cpu_seconds"] = round(time.process_time() - cpu, 1)
    write_entry(args.out, entry)
    print_exact(entry)
    print(f"temperatures written to {args.out} ({time.time() - started:.0f} s wall, "
          f"{entry['computed']['cpu_seconds']} s CPU)", file=sys.stderr, flush=True)
    return 0


def whole_round(entry: dict, game, publics, args) -> None:
    """Liar's poker calibrated after one public roll: the written temperatures' exact losses
    over every public roll too (``--verify-public all``)."""
    if publics is not None and args.verify_public == "all":
        whole = ExactLossCurve(game, args.cache_dir, None)
        entry["exact_whole_round"] = {**exact_ladder(whole, entry["temperatures"]), "over": describe_publics(None)}


def verify_exact(game, entry: dict, args) -> int:
    """``--verify-only`` for a bluff game: the stored temperatures' exact losses, computed
    again (after the entry's own public roll), stored and printed."""
    public = entry["computed"].get("public")
    publics = None if public is None else [(tuple(public), 1.0)]
    entry["exact"] = {**exact_ladder(ExactLossCurve(game, args.cache_dir, publics), entry["temperatures"]),
                      "over": exact_over(game, publics)}
    whole_round(entry, game, publics, args)
    write_entry(args.out, entry)
    print_exact(entry)
    return 0


def fixed(value: float, places: int) -> str:
    """``value`` to ``places`` decimals, a rounding error around 0 (level 10's exact loss,
    -5.6e-17 in Abázs) shown as 0, not -0."""
    return f"{round(value, places) + 0.0:.{places}f}"


def print_exact(entry: dict) -> None:
    whole = entry.get("exact_whole_round")
    print(f"{'level':>5}  {'target':>9}  {'temperature':>11}  {'exact loss':>10}" + ("  whole round" if whole else ""),
          flush=True)
    for k in levels.LEVELS:
        t = entry["temperatures"][str(k)]
        target = entry["ladder"]["random_loss"] if k == 1 else entry["ladder"]["targets"].get(str(k), 0.0)
        line = f"{k:>5}  {target:>9.4f}  {'uniform' if t is None else f'{t:.5g}':>11}  {fixed(entry['exact']['loss'][str(k)], 6):>10}"
        print(line + (f"  {fixed(whole['loss'][str(k)], 6):>11}" if whole else ""), flush=True)
    print(json.dumps({"monotone": entry["exact"]["monotone"],
                      **({"whole round monotone": whole["monotone"]} if whole else {})}), flush=True)


def fit_ladder(grid_curve, curve, spread: float, ratio: float, steps: int):
    """(random loss, targets, temperatures per level): the loss of uniform play, the
    geometric targets below it, and each level's temperature, bracketed on the log grid of
    ``grid_curve`` (from the value spread, up until the weakest target is passed) and
    bisected on ``curve`` (:func:`bisect_level`)."""
    random_loss = grid_curve(None)
    targets = {k: random_loss * ratio ** (k - 1) for k in levels.LEVELS[1:-1]}
    grid = [spread * 2.0 ** j for j in range(-8, 7)]
    grid_losses = []
    for t in grid:  # up the grid until the weakest target is passed
        grid_losses.append(grid_curve(t))
        if grid_losses[-1] >= targets[2]:
            break
    temperatures: dict[str, float | None] = {"1": None, str(levels.LEVELS[-1]): 0.0}
    for k, target in targets.items():
        above = next((i for i, loss in enumerate(grid_losses) if loss >= target), None)
        if above is None:
            temperatures[str(k)] = grid[len(grid_losses) - 1]
            continue
        lo = grid[above - 1] if above > 0 else grid[0] / 2
        temperatures[str(k)] = bisect_level(curve, target, lo, grid[above], steps)
        print(f"level {k}: target {target:.4f} -> T {temperatures[str(k)]:.5g}", file=sys.stderr, flush=True)
    return random_loss, targets, {str(k): temperatures[str(k)] for k in levels.LEVELS}


def fit_ladder_in_one_pass(curve: ExactLossCurve, spread: float, ratio: float):
    """:func:`fit_ladder` for a curve whose every call walks many rounds (liar's poker over
    its 56 public rolls, each walked alone to bound the memory): uniform play and a
    half-octave grid (spread x 2^-4.5 ... spread x 2^3.5) in one pass, then each level's
    temperature by log-log interpolation in its bracket (no bisection: each would be
    another pass)."""
    grid = [spread * 2.0 ** (j / 2) for j in range(-9, 8)]
    random_loss, *grid_losses = curve.many([None] + grid)
    targets = {k: random_loss * ratio ** (k - 1) for k in levels.LEVELS[1:-1]}
    temperatures: dict[str, float | None] = {"1": None, str(levels.LEVELS[-1]): 0.0}
    for k, target in targets.items():
        above = next((i for i, loss in enumerate(grid_losses) if loss >= target), None)
        if above is None or above == 0:
            temperatures[str(k)] = grid[-1] if above is None else grid[0]
        else:
            temperatures[str(k)] = log_log_interpolate(grid[above - 1], grid[above], grid_losses[above - 1],
                                                       grid_losses[above], target)
        print(f"level {k}: target {target:.4f} -> T {temperatures[str(k)]:.5g}", file=sys.stderr, flush=True)
    return random_loss, targets, {str(k): temperatures[str(k)] for k in levels.LEVELS}


def verify(game, measure, base, temperatures_file_entry, games, seed, jobs, cache_dir):
    """The ladder as ``kocka arena`` measures it with the written temperatures: per level
    (mean loss, low, high) at 95 %."""
    options = AgentOptions(cache_dir=cache_dir)
    result = {}
    if loss_estimator(game, measure) in ("regret", "paired"):  # the arena keeps no regret: its engine loop, its seeds
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
            arena = run_arena(game, [name] + [base] * (game.num_players - 1), games, seed, jobs, options)
            if measure == "win":
                result[str(k)] = list(mean_interval(1 / game.num_players - arena.wins[:, 0]))
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
    measured loss with its interval per level (the bluff games: the exact loss)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for entry in doc["games"]:
        measured, exact = entry.get("measured"), entry.get("exact")
        whole = entry.get("exact_whole_round")
        rules = ", ".join(f"{k}={v}" for k, v in entry["rules"].items() if not isinstance(v, list)) or "defaults"
        head = f"**{entry['game']}** ({rules}; loss: {entry['loss']}; ratio {entry['ladder']['ratio']})"
        if entry.get("scale") == "relative":
            head += "; temperatures are multiples of the spread of the values at each decision"
        if measured:
            head += (f"; measured over {measured['games']} games, seed {measured['seed']}: "
                     f"monotone {measured['monotone']}, neighbours' intervals disjoint {measured['neighbours_disjoint']}")
        if exact:
            head += f"; exact, no intervals: monotone {exact['monotone']}"
            if whole:
                head += f"; over every public roll (whole round): monotone {whole['monotone']}"
        # a loss in P(win) (below 1) needs four decimals for its interval to say anything
        places = 4 if entry["ladder"]["random_loss"] < 1 else 2
        if exact:
            places = 4
            columns = "| level | label | temperature | target loss | exact loss |" + (" exact loss, whole round |" if whole else "")
            out += [head, "", columns, "|---:|---|---:|---:|---:|" + ("---:|" if whole else "")]
        else:
            out += [head, "", "| level | label | temperature | target loss | measured loss | 95% interval |", "|---:|---|---:|---:|---:|---|"]
        for k in levels.LEVELS:
            t = entry["temperatures"][str(k)]
            target = entry["ladder"]["random_loss"] if k == 1 else entry["ladder"]["targets"].get(str(k), 0.0)
            shown_t = "uniform" if t is None else f"{t:.4g}"
            if exact:
                row = f"| {k} | {levels.LEVEL_LABELS[k]} | {shown_t} | {target:.{places}f} | {fixed(exact['loss'][str(k)], places)} |"
                out.append(row + (f" {fixed(whole['loss'][str(k)], places)} |" if whole else ""))
                continue
            mean, lo, hi = measured["loss"][str(k)] if measured else (float("nan"),) * 3
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
    partial = path.with_name(path.name + ".partial")  # written whole, then renamed into place
    partial.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    partial.replace(path)
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
    parser.add_argument("--steps", type=int, default=None,
                        help="bisection halvings per level (default 3; 6 for the bluff games' exact losses)")
    parser.add_argument("--public", default="all",
                        help="liar's poker: the public roll the exact losses are taken after (e.g. 6,6,6), or all")
    parser.add_argument("--verify-public", default="all", choices=("all", "same"),
                        help="liar's poker calibrated after one roll: also the exact losses over every public roll "
                             "(all, default) or not (same)")
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
    if base == "equilibrium":  # the bluff games: exact losses
        if args.verify_only:
            entry = levels.calibration_entry(game, args.out)
            if entry is None:
                parser.error(f"{args.out} has no entry for {game.NAME} with these rules: calibrate it first")
            return verify_exact(game, dict(entry), args)
        return calibrate_exact(game, base, args)
    if args.steps is None:
        args.steps = 3
    measure = measure_game(game, outcome)
    started = time.time()
    if args.verify_only:
        entry = levels.calibration_entry(game, args.out)
        if entry is None:
            parser.error(f"{args.out} has no entry for {game.NAME} with these rules: calibrate it first")
        return report(dict(entry), game, measure, base, args)
    scale = temperature_scale(base)
    # relative temperatures are multiples of each decision's spread: the grid starts at 1
    spread = value_spread(game, base, args.cache_dir, args.seed) if scale == "absolute" else 1.0
    print(f"{game.NAME}: levels around {base!r}, loss in {measure}, {scale} temperatures, grid from {spread:.4g}",
          file=sys.stderr)
    grid_curve = LossCurve(game, measure, base, args.grid_games, args.seed, args.jobs, args.cache_dir)
    curve = grid_curve if args.bisect_games == args.grid_games else LossCurve(
        game, measure, base, args.bisect_games, args.seed + 500, args.jobs, args.cache_dir)
    random_loss, targets, temperatures = fit_ladder(grid_curve, curve, spread, args.ratio, args.steps)
    table_kind = levels.played_table_kind(make_agent(base, game, 0, AgentOptions(cache_dir=args.cache_dir)))
    entry = {
        "game": game.NAME, "rules": levels.rules_key(game), "players": None if outcome == "score" else players,
        "base": base, **({"table": table_kind} if table_kind else {}), **({"scale": scale} if scale != "absolute" else {}),
        "loss": loss_text(game, measure, base, players),
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


def loss_text(game, measure: str, base: str, players: int) -> str:
    """What an entry's loss is, in a sentence (the entry's ``loss``)."""
    against = "the heuristic" if base == levels.FALLBACK_AGENT else "the table agent"
    seats = "seat" if players == 2 else f"{players - 1} seats"
    text = {"points": "points per game below optimal, same dice",
            "win": f"1/{players} - win share against {against} in the other {seats}, seats rotating",
            "chips": f"chips per game given up against {against} in the other {seats}, seats rotating"}[measure]
    return text + {
        "outcome": "",
        "regret": f" (estimated by the {'points' if measure == 'points' else 'P(win)'} the level gives up at its moves"
                  + (", as the three-player table it plays from against the two leading opponents values them: "
                     f"not the exact {players}-player P(win))" if regret_kind(game) == "stand-in" else ")"),
        "paired": f" (paired: {against}'s own result in that seat of the same game, same seeds, minus the level's)",
    }[loss_estimator(game, measure)]


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
