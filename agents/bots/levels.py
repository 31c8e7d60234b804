"""Difficulty levels: ``level:1`` (weakest) ... ``level:10`` (the table agent itself), a
player who errs like a person: more often by a little than by a lot.

How a level chooses (one rule per kind of game, one parameter, its *temperature* T):

* **Games with a value table** (``optimal``: the scorecard games, Polish, Kocka): a
  softmax over the table agent's ranked values, P(a) proportional to exp((v(a) - v_max) / T),
  T in the unit of the values (points of expected final score, or P(win)). T = 0 plays
  the table's best action (the first of its ranking: ties broken as the table breaks
  them), T = infinity (stored as ``null``) is uniform over the legal actions, the
  ``random`` agent. An action that costs d below the best is chosen exp(-d / T) times as
  often as the best one: small errors are common, large ones rare (a quantal response).
* **The bluff games** (``equilibrium``: its play is a mixed strategy, so the best action
  alone is no strong player): with probability w = T / (1 + T) (T in chips, the game's
  stake unit) the level departs from the equilibrium and draws from the softmax above
  over the actions' values against the equilibrium; otherwise it draws from the
  equilibrium's own mix. T = 0 is the equilibrium, T = infinity uniform play; in between
  the departures prefer the actions that lose least, and the mix degrades smoothly. (A
  pure softmax over equilibrium values would not do: the actions an equilibrium mixes
  have equal values, so its T -> 0 limit is uniform over them, an exploitable player.)
* **Games without a table agent** (the chip-bidding game): the softmax runs over the
  ``heuristic``'s priorities instead, whose units differ from decision to decision (points
  over par at the card, a rule's choice at a raise), so T is relative to their spread at
  each decision (the entry's ``"scale": "relative"``); calibrated like the others, on the
  chips per game a level gives up against the heuristic (scripts/calibrate_levels.py).

The temperatures of a game come from :data:`TEMPERATURES_FILE`, written by
``scripts/calibrate_levels.py`` so that each level's mean loss follows a geometric ladder
(docs/AGENTS.md); an entry that names the values it was fitted to (the bluff games' round
plan, in chips) serves only a base agent with those values (:func:`calibrated_for`). A
game, rules variant or player count with no calibrated entry uses
:data:`RELATIVE_LADDER`: T = c_level x (max - min of the values at the decision), an
uncalibrated ladder of the same shape (``calibrated`` False). A game whose table agent
cannot play here (its table is not built, or no table covers this player count) raises
:class:`~kocka.agents.bots.base.AgentUnavailable` naming what is missing, as every table
agent does: a level never turns silently into a weaker kind of player.

Reproducible: a level draws one number from its own generator per decision (none at
T = 0), seeded by the seat or arena seed (:meth:`Agent.reset`).

Whole games in compiled code: where the table agent has a compiled player that can play
levels (the scorecard games' simulation kernel), :meth:`LevelAgent.simulator` gives a
:class:`LevelSimulator`, which plays the same games as :meth:`LevelAgent.choose` does --
the same ranked values, the same floating-point softmax and one ``random()`` of the same
stream per decision -- given each game's agent seed (``tests/test_simulate.py``).
"""
from __future__ import annotations

import json
import math
import os
import pathlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Sequence

from kocka.agents.bots.base import Agent, AgentUnavailable, UnknownAgentError
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import KockaError
from kocka.solver.rules import Game, spec_for

LEVELS = tuple(range(1, 11))
"""The levels, weakest first; the last one is the table agent itself."""

LEVEL_PREFIX = "level:"

LEVEL_LABELS = {1: "beginner", 2: "beginner", 3: "casual", 4: "casual", 5: "intermediate", 6: "intermediate",
                7: "advanced", 8: "advanced", 9: "expert", 10: "expert"}
"""A level's label: a stable key that a front end translates and shows (not a sentence)."""

TEMPERATURES_FILE = pathlib.Path(__file__).with_name("level_temperatures.json")
TEMPERATURES_ENV = "KOCKA_LEVEL_TEMPERATURES"
"""An environment variable naming another temperature file (a calibration run's output)."""
TEMPERATURES_FORMAT = "kocka.level_temperatures/1"

RELATIVE_LADDER = {1: None, 2: 4.0, 3: 2.0, 4: 1.0, 5: 0.5, 6: 0.25, 7: 0.125, 8: 0.0625, 9: 0.03125, 10: 0.0}
"""Uncalibrated temperatures, as multiples of the spread of the values at a decision
(``None``: uniform). Halving from level to level, as the calibrated ladders halve the loss."""

SCALES = ("absolute", "relative")
"""How an entry's temperatures are read (:class:`LevelTemperatures`); absolute unless the
entry says ``"scale"``."""

VALUE_AGENTS = ("optimal", "equilibrium")
"""The table agents a level errs around, in order of preference (the first the game's
spec lists)."""

FALLBACK_AGENT = "heuristic"


class LevelError(KockaError):
    """A level temperature file that cannot be read, or a bad level name."""


def is_level_name(name: str) -> bool:
    return name.startswith(LEVEL_PREFIX)


def parse_level(name: str) -> int:
    """``"level:3"`` -> 3; a clear error for anything else."""
    text = name[len(LEVEL_PREFIX):] if is_level_name(name) else None
    if text is None or not re.fullmatch(r"[1-9][0-9]?", text) or int(text) not in LEVELS:
        raise UnknownAgentError(f"unknown level {name!r}: levels are level:{LEVELS[0]} ... level:{LEVELS[-1]}")
    return int(text)


def level_name(level: int) -> str:
    return f"{LEVEL_PREFIX}{level}"


# ----------------------------------------------------------------------------------------
# The temperatures
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LevelTemperatures:
    """The temperatures one game plays its levels with.

    ``scale``: ``"absolute"`` (T in the unit of the values) or ``"relative"`` (T times the
    spread of the values at each decision). ``calibrated``: read from the calibration
    file for this game, rules and player count. ``entry``: that file's entry (its ladder,
    measurements and how they were computed), or None."""

    game: str
    temperatures: Mapping[int, float | None]
    scale: str
    calibrated: bool
    entry: Mapping[str, Any] | None = None


def _plain(value: Any) -> Any:
    """Rules option values as JSON writes them (tuples become lists)."""
    return list(value) if isinstance(value, tuple) else value


def rules_key(game: Game) -> dict[str, Any]:
    """The game's rules options as the calibration file records them."""
    return {k: _plain(v) for k, v in game.rules.options().items()}


@lru_cache(maxsize=4)
def _load_entries(path: str) -> tuple[Mapping[str, Any], ...]:
    file = pathlib.Path(path)
    if not file.exists():
        return ()
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LevelError(f"cannot read the level temperatures {file}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != TEMPERATURES_FORMAT or not isinstance(doc.get("games"), list):
        raise LevelError(f"{file} is not a {TEMPERATURES_FORMAT} file")
    return tuple(doc["games"])


def temperatures_file() -> pathlib.Path:
    """$KOCKA_LEVEL_TEMPERATURES, else :data:`TEMPERATURES_FILE`."""
    return pathlib.Path(os.environ.get(TEMPERATURES_ENV) or TEMPERATURES_FILE)


def calibration_entry(game: Game, path: str | pathlib.Path | None = None) -> Mapping[str, Any] | None:
    """The file's entry for this game, its rules and (where the entry names one) its
    number of players, or None."""
    rules = rules_key(game)
    for entry in _load_entries(str(path or temperatures_file())):
        if (entry.get("game") == game.NAME and entry.get("rules") == rules
                and entry.get("players") in (None, game.num_players)):
            return entry
    return None


def level_temperatures(game: Game, path: str | pathlib.Path | None = None) -> LevelTemperatures:
    """The calibrated temperatures of ``game`` where the file has them, else the
    relative ladder :data:`RELATIVE_LADDER`."""
    entry = calibration_entry(game, path)
    if entry is None:
        return LevelTemperatures(game.NAME, RELATIVE_LADDER, "relative", calibrated=False)
    raw = entry.get("temperatures", {})
    try:
        temperatures = {level: (None if raw[str(level)] is None else float(raw[str(level)])) for level in LEVELS}
    except (KeyError, TypeError, ValueError):
        raise LevelError(f"{TEMPERATURES_FILE.name}: the {game.NAME} entry needs a temperature for every level "
                         f"{LEVELS[0]}..{LEVELS[-1]} (a number >= 0, or null for uniform)") from None
    if any(t is not None and not t >= 0 for t in temperatures.values()):
        raise LevelError(f"{TEMPERATURES_FILE.name}: the {game.NAME} temperatures must be >= 0 or null")
    scale = entry.get("scale", "absolute")
    if scale not in SCALES:
        raise LevelError(f"{TEMPERATURES_FILE.name}: the {game.NAME} entry's scale must be one of "
                         f"{', '.join(SCALES)}, not {scale!r}")
    return LevelTemperatures(game.NAME, temperatures, scale, calibrated=True, entry=entry)


# ----------------------------------------------------------------------------------------
# Choice probabilities (the error model)
# ----------------------------------------------------------------------------------------
def softmax_probabilities(values: Sequence[float], temperature: float | None) -> list[float]:
    """P(action i) proportional to exp((v_i - v_max) / T); T = 0: all mass on the first
    best value (the ranking's own tie-break); T = None (infinite): uniform."""
    n = len(values)
    if n == 0:
        raise LevelError("a level needs at least one action to choose from")
    if temperature is None or math.isinf(temperature):
        return [1.0 / n] * n
    best = max(values)
    if temperature == 0:
        first = values.index(best)
        return [1.0 if i == first else 0.0 for i in range(n)]
    weights = [math.exp((v - best) / temperature) for v in values]
    total = 0.0
    for w in weights:  # added in order, as the simulation kernel adds them (sum() differs from Python 3.12)
        total += w
    return [w / total for w in weights]


def departure_weight(temperature: float | None) -> float:
    """The bluff levels' chance of leaving the equilibrium's mix: T / (1 + T), T in chips
    (0 at T = 0, 1 at T = infinity)."""
    if temperature is None or math.isinf(temperature):
        return 1.0
    return temperature / (1.0 + temperature)


def equilibrium_mix_probabilities(decisions: Sequence[Decision], temperature: float | None) -> list[float]:
    """(1 - w) x the equilibrium's probabilities (``detail["P(chosen)"]``) + w x the
    softmax over the values, w = :func:`departure_weight`."""
    try:
        equilibrium = [float(d.detail["P(chosen)"]) for d in decisions]
    except KeyError:
        raise LevelError("a bluff level needs the equilibrium's probabilities (detail 'P(chosen)') in its ranking") from None
    total = sum(equilibrium)
    if not total > 0:
        raise LevelError("the equilibrium gave no action a positive probability")
    w = departure_weight(temperature)
    softmax = softmax_probabilities([d.value for d in decisions], temperature)
    return [(1 - w) * e / total + w * s for e, s in zip(equilibrium, softmax)]


# ----------------------------------------------------------------------------------------
# The agent
# ----------------------------------------------------------------------------------------
class LevelAgent(Agent):
    """``level:N``: chooses from the probabilities of its error model (module docstring)
    over the ``base`` agent's ranking. ``rank`` is the base agent's ranking (its values,
    best first) with each action's chance of being chosen by this level in
    ``detail["P(level)"]``."""

    def __init__(self, game: Game, seed: int, base: Agent, level: int, temperatures: LevelTemperatures,
                 mixes_equilibrium: bool, fallback_reason: str = "") -> None:
        super().__init__(game, seed)
        self.base = base
        self.level = level
        self.name = level_name(level)
        self.label = LEVEL_LABELS[level]
        self.value_name = base.value_name
        self.temperatures = temperatures
        self.temperature = temperatures.temperatures[level]
        self.mixes_equilibrium = mixes_equilibrium
        self.fallback_reason = fallback_reason
        self.regret = 0.0
        """The base agent's value this level has given up since :meth:`reset`: the sum, over
        its decisions, of the best ranked value minus the chosen one's. Where the values are
        the mover's exact chance to win with the base agent in every other seat (two-player
        Kocka), its mean is the level's expected loss in P(win) against the base agent
        (scripts/calibrate_levels.py, the ``regret`` estimator)."""
        how = "mixes the equilibrium with a softmax" if mixes_equilibrium else "a softmax"
        relative = " (relative to the values' spread)" if temperatures.scale == "relative" else ""
        ladder = ("calibrated" if temperatures.calibrated else "uncalibrated") + relative
        self.description = f"level {level} of 10 ({self.label}): {how} over {base.name!r}'s values, {ladder}"

    @property
    def calibrated(self) -> bool:
        return self.temperatures.calibrated

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.base.reset(seed)
        self.regret = 0.0

    def effective_temperature(self, values: Sequence[float]) -> float | None:
        """The temperature at this decision: absolute, or the relative ladder's multiple of
        the values' spread (a spread of 0: every action is as good, uniform)."""
        t = self.temperature
        if t is None or self.temperatures.scale == "absolute":
            return t
        spread = max(values) - min(values)
        return None if spread == 0 and t > 0 else t * spread

    def probabilities(self, decisions: Sequence[Decision]) -> list[float]:
        """Each ranked action's chance of being chosen by this level."""
        values = [d.value for d in decisions]
        temperature = self.effective_temperature(values)
        if self.mixes_equilibrium:
            return equilibrium_mix_probabilities(decisions, temperature)
        return softmax_probabilities(values, temperature)

    def simulator(self) -> LevelSimulator | None:
        """The compiled player of this level's whole games (:class:`LevelSimulator`), where
        the base agent's compiled player plays levels; else None."""
        if self.mixes_equilibrium:
            return None
        player = self.base.simulator()
        if player is None or not hasattr(player, "level_scores"):
            return None
        return LevelSimulator(player, self.temperature, self.temperatures.scale == "relative")

    def rank(self, state: Any) -> list[Decision]:
        decisions = self.base.rank(state)
        return [Decision(d.action, d.value, d.label, {**d.detail, "P(level)": p})
                for d, p in zip(decisions, self.probabilities(decisions))]

    def choose(self, state: Any) -> Any:
        if self.temperature == 0 and not self.mixes_equilibrium:
            return self.base.choose(state)  # the table's own best action, no draw, nothing given up
        decisions = self.base.rank(state)
        probabilities = self.probabilities(decisions)
        u = self.rng.random()
        cumulative = 0.0
        chosen = None
        for decision, p in zip(decisions, probabilities):
            cumulative += p
            if u < cumulative:
                chosen = decision
                break
        if chosen is None:  # u beyond the rounded total: the last action with any chance
            chosen = next(d for d, p in zip(reversed(decisions), reversed(probabilities)) if p > 0)
        self.regret += decisions[0].value - chosen.value
        return chosen.action


class LevelSimulator:
    """A level's compiled player (:meth:`LevelAgent.simulator`): :meth:`scores` as the
    base agent's compiled player gives them, for the level's temperature. A level's games
    depend on its own draws, so it takes each game's agent seed (``needs_agent_seeds``:
    the seed :meth:`Agent.reset` gets for that game)."""

    needs_agent_seeds = True

    def __init__(self, player: Any, temperature: float | None, relative: bool) -> None:
        self.player, self.temperature, self.relative = player, temperature, relative

    def scores(self, game_seeds: Any, seat: int = 0, jobs: int = 1, agent_seeds: Any = None) -> Any:
        """Final score of seat ``seat``'s card in each game (dice from ``game_seeds[i]``,
        the level's draws from ``random.Random(agent_seeds[i])``)."""
        if self.temperature == 0:  # the table agent itself: no draw
            return self.player.scores(game_seeds, seat, jobs)
        if agent_seeds is None:
            raise LevelError("a level's games depend on its draws: give the agent seed of every game")
        return self.player.level_scores(game_seeds, agent_seeds, self.temperature, self.relative, seat, jobs)


def base_agent_name(game: Game) -> str:
    """The agent a game's levels err around: the one its spec names for this player count
    (``level_base``), else its table agent, else its heuristic."""
    spec = game.spec()
    named = dict(spec.level_base).get(game.num_players)
    if named is not None:
        return named
    for name in VALUE_AGENTS:
        if spec.agent(name) is not None:
            return name
    if spec.agent(FALLBACK_AGENT) is not None:
        return FALLBACK_AGENT
    raise AgentUnavailable(f"no levels for {game.NAME!r}: it has no table agent ({', '.join(VALUE_AGENTS)}) "
                           f"and no {FALLBACK_AGENT!r} to err around")


def calibrated_for(temperatures: LevelTemperatures, base: Agent) -> bool:
    """Whether calibrated temperatures were fitted to the values ``base`` ranks by: an entry
    that names its values (``"values"``, the base agent's ``value_name``) serves only a base
    with those values. The bluff games' betting equilibrium plays the match plan, valued in
    P(win), where its match table is built, and the round plan, valued in chips, otherwise:
    temperatures in chips mean nothing for P(win). An entry that names its table kind
    (``"table"``) serves only a base playing from that kind: three-player Kocka's levels were
    fitted to the exact three-player table's values, not to the race against the leader that
    ``optimal`` falls back to without it."""
    entry = temperatures.entry or {}
    values, kind = entry.get("values"), entry.get("table")
    return (values is None or values == base.value_name) and (kind is None or kind == played_table_kind(base))


def played_table_kind(agent: Agent) -> str | None:
    """The kind of the value table ``agent`` plays from (``winprob3``, ``ev``, ...), or None
    for an agent without one: what a calibration entry records as ``"table"``."""
    return getattr(getattr(getattr(agent, "table", None), "meta", None), "kind", None)


def make_level_agent(name: str, game: Game, seed: int, options: Any, temperatures: LevelTemperatures | None = None) -> LevelAgent:
    """Build ``level:N`` for ``game`` (what :func:`kocka.agents.bots.catalogue.make_agent`
    calls for a level name). ``temperatures`` overrides the file's (calibration runs)."""
    from kocka.agents.bots.catalogue import make_agent  # here: the catalogue imports this module

    level = parse_level(name)
    base_name = base_agent_name(game)
    try:
        base = make_agent(base_name, game, seed, options)
    except AgentUnavailable as exc:
        raise AgentUnavailable(f"{name!r} errs around {base_name!r}, which cannot play here: {exc}") from None
    if temperatures is None:
        temperatures = level_temperatures(game)
        # priorities (unless calibrated as multiples of their spread), or values the entry was
        # not fitted to: only the relative ladder means anything
        uncommon_units = base_name == FALLBACK_AGENT and temperatures.scale != "relative"
        if uncommon_units or not calibrated_for(temperatures, base):
            temperatures = LevelTemperatures(game.NAME, RELATIVE_LADDER, "relative", calibrated=False)
    return LevelAgent(game, seed, base, level, temperatures, mixes_equilibrium=base_name == "equilibrium",
                      fallback_reason=f"{game.NAME} has no value table" if base_name == FALLBACK_AGENT else "")


def describe_levels(game_name: str) -> list[dict[str, Any]]:
    """The levels of a game for a front end (the seat's ``hello``): name, label, the agent
    they err around and whether the game's default variant is calibrated."""
    spec = spec_for(game_name)
    game = spec.engine(num_players=spec.default_players)
    try:
        base = base_agent_name(game)
    except AgentUnavailable:
        return []
    calibrated = calibration_entry(game) is not None
    return [{"name": level_name(level), "label": LEVEL_LABELS[level], "base": base, "calibrated": calibrated}
            for level in LEVELS]


def level_names() -> list[str]:
    return [level_name(level) for level in LEVELS]
