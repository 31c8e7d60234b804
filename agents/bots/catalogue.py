"""Every agent by name, and the agents that need no rules knowledge: ``random`` and the
table-backed ones (``optimal``, ``ev``).

Which agents play a game is a fact of its spec (``GameSpec.agents``); ``random`` plays
every game. :func:`make_agent` is the one way the CLI, the arena, terminal play and the
seat build a player. An agent that cannot play a game here raises
:class:`AgentUnavailable` naming what is missing (a table to build) -- it never falls
back to random play.
"""
from __future__ import annotations

import pathlib
from importlib import import_module
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kocka.agents.bots.base import Agent, AgentUnavailable, UnknownAgentError
from kocka.agents.bots.levels import is_level_name, make_level_agent
from kocka.agents.bots.fallback import kocka_win_table
from kocka.solver.solvers.kocka import ranking as kocka_ranking
from kocka.solver.solvers.polish import values as polish_values
from kocka.solver.solvers.scorecard import simulate as scorecard_simulate
from kocka.solver.solvers.scorecard import values as scorecard_values
from kocka.solver.base.errors import TableError
from kocka.solver.base.decision import Decision
from kocka.solver.store.table_store import get_table
from kocka.solver.rules import Game, game_specs, resolve
from kocka.solver.rules.spec import AgentEntry


@dataclass(frozen=True)
class AgentOptions:
    """Where table agents find their tables, and whether a missing one may be built
    (with a message, never silently)."""

    cache_dir: str | pathlib.Path | None = None
    build_missing: bool = False


# ----------------------------------------------------------------------------------------
# random
# ----------------------------------------------------------------------------------------
class RandomAgent(Agent):
    """Uniform over the legal actions, from its own seeded generator.

    ``rank`` lists every legal action in engine order with its probability of being
    chosen, 1/n (there is nothing better to rank by).
    """

    name = "random"
    description = "uniform over the legal actions (seeded)"
    value_name = "P(chosen)"

    def rank(self, state: Any) -> list[Decision]:
        actions = self.decision_actions(state)
        p = 1.0 / len(actions)
        return [Decision(a, p, self.game.describe_action(a, state)) for a in actions]

    def choose(self, state: Any) -> Any:
        actions = self.decision_actions(state)
        return actions[self.rng.randrange(len(actions))]


# ----------------------------------------------------------------------------------------
# table agents
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableBackend:
    """How a table agent ranks: table ``kind`` (``None``: the game's default kind) and
    ``rank(game, table, state) -> list[Decision]``, a solver's ranking function."""

    kind: str | None
    rank: Callable[[Game, Any, Any], list[Decision]]
    value_name: str
    min_players: int = 1
    alternative: str = ""
    simulate: Callable[[Game, Any], Any] | None = None
    """``simulate(game, table)``: the compiled player of whole games (:meth:`Agent.simulator`),
    or ``None`` where it does not play this game's variant; ``None`` here: no such player."""


class TableAgent(Agent):
    """Plays ``rank(state)[0]`` from a solver's value table (loaded once per process).

    Raises :class:`AgentUnavailable` at construction when the solver module or the table
    is missing; the message names the module, or the ``kocka-solve`` command to run.
    """

    description = "table-backed"

    def __init__(self, game: Game, seed: int, options: AgentOptions, backend: TableBackend, name: str) -> None:
        super().__init__(game, seed)
        self.name = name
        self.backend = backend
        self.value_name = backend.value_name
        try:
            self.table = get_table(game, backend.kind, options.cache_dir, build_missing=options.build_missing)
        except TableError as exc:
            raise AgentUnavailable(f"agent {name!r} needs a value table: {exc}") from None

    def rank(self, state: Any) -> list[Decision]:
        return list(self._ranked(state))

    def choose(self, state: Any) -> Any:
        # the best action only: a solver's ranking may make its decisions as they are read
        return self._ranked(state)[0].action

    def simulator(self) -> Any:
        return None if self.backend.simulate is None else self.backend.simulate(self.game, self.table)

    def _ranked(self, state: Any) -> Sequence[Decision]:
        self.require_decision(state)
        decisions = self.backend.rank(self.game, self.table, state)
        if not decisions:
            raise AgentUnavailable(f"the {self.game.NAME} table ranked no action in {self.game.describe_state(state)}")
        return decisions


def table_agent(backend: TableBackend, name: str) -> Callable[[Game, int, AgentOptions], Agent]:
    """A factory of table agents ranking with ``backend`` (what a spec's agent entry names)."""

    def factory(game: Game, seed: int, options: AgentOptions) -> Agent:
        if game.num_players < backend.min_players:
            raise AgentUnavailable(
                f"{name!r} plays {game.NAME!r} with {backend.min_players}+ players (its table is a "
                f"{backend.value_name} table), got {game.num_players}; {backend.alternative}".rstrip("; ")
            )
        return TableAgent(game, seed, options, backend, name)

    return factory


scorecard_optimal = table_agent(TableBackend(None, scorecard_values.rank, "expected final score",
                                              simulate=scorecard_simulate.simulator), "optimal")
polish_optimal = table_agent(TableBackend(None, polish_values.rank, "expected final score"), "optimal")
def kocka_optimal(game: Game, seed: int, options: AgentOptions) -> Agent:
    """Kocka's ``optimal``: ranks by P(win) from the win table that fits the game
    (:func:`kocka.solver.solvers.kocka.ranking.win_table_kind`: the exact two-player table under
    every end rule, the exact three-player one under ``kocka.end = immediate``; with more
    players the leading opponents stand for all). Without the three-player table it races the
    leading opponent with the two-player table, and says so: its ``stand_in``
    (:func:`kocka.agents.bots.fallback.kocka_win_table`)."""
    stand_in = None
    kind = kocka_ranking.win_table_kind(game)
    if game.num_players >= 2:  # (one player: the factory below says which agent plays alone)
        try:
            table, stand_in = kocka_win_table(game, options.cache_dir, options.build_missing)
        except TableError as exc:
            raise AgentUnavailable(f"agent 'optimal' needs a value table: {exc}") from None
        kind = table.meta.kind
    backend = TableBackend(kind, kocka_ranking.rank, "P(win)", min_players=2,
                           alternative="for one player use 'ev' (expected points banked per turn)")
    agent = table_agent(backend, "optimal")(game, seed, options)
    agent.stand_in = stand_in
    return agent


kocka_leader = table_agent(
    TableBackend("winprob", kocka_ranking.rank, "P(win)", min_players=2,
                 alternative="for one player use 'ev' (expected points banked per turn)"), "leader")
kocka_ev = table_agent(TableBackend("turn_ev", kocka_ranking.rank, "expected points this turn"), "ev")


def random_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return RandomAgent(game, seed)


# ----------------------------------------------------------------------------------------
# the catalogue: the agents of every game's spec, plus the agents that play any game
# ----------------------------------------------------------------------------------------
ANY_GAME_AGENTS = (AgentEntry("random", "kocka.agents.bots.catalogue:random_factory", "uniform over the legal actions (seeded)"),)


def _entries(game: str | None) -> list[AgentEntry]:
    """Agent entries of ``game`` (every game's, first description kept, when ``None``)."""
    found: dict[str, AgentEntry] = {}
    for spec in game_specs():
        if game is None or spec.name == game:
            for entry in spec.agents:
                found.setdefault(entry.name, entry)
    for entry in ANY_GAME_AGENTS:
        found.setdefault(entry.name, entry)
    return list(found.values())


def agent_names(game: str | None = None) -> list[str]:
    """Agent names (those that may play ``game``, when given)."""
    return [e.name for e in _entries(game)]


def describe_agents(game: str | None = None) -> list[tuple[str, str]]:
    """``(name, one-line description)`` of every agent (for ``game``, when given)."""
    return [(e.name, e.description) for e in _entries(game)]


def agent_games(name: str) -> list[str] | None:
    """The games agent ``name`` plays (``None``: every game)."""
    if any(e.name == name for e in ANY_GAME_AGENTS):
        return None
    return [spec.name for spec in game_specs() if spec.agent(name) is not None]


def describe_cache_file(path: Any) -> str | None:
    """What ``path`` in the table cache is when an agent keeps it there as a cache of its
    own (not a table: no metadata record): each agent module of the registry may say so with
    a ``cache_file_description(path)`` function; None when none claims it."""
    modules = sorted({entry.factory.partition(":")[0] for spec in game_specs() for entry in spec.agents})
    for module in modules:
        try:
            describe = getattr(import_module(module), "cache_file_description", None)
        except ImportError:
            continue
        found = describe(path) if describe is not None else None
        if found is not None:
            return found
    return None


def make_agent(name: str, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> Agent:
    """Build agent ``name`` for ``game``.

    Raises :class:`UnknownAgentError` for a name no game knows and
    :class:`AgentUnavailable` when the agent cannot play this game here.
    """
    if is_level_name(name):  # level:1 .. level:10 of every game: a name with a number, no entry
        return make_level_agent(name, game, seed, options)
    entry = game.spec().agent(name) or next((e for e in ANY_GAME_AGENTS if e.name == name), None)
    if entry is None:
        if name not in agent_names():
            raise UnknownAgentError(f"unknown agent {name!r}; agents: {', '.join(agent_names())}, level:1 ... level:10")
        raise AgentUnavailable(f"no {name!r} agent for {game.NAME!r} "
                               f"(agent {name!r} plays only {', '.join(agent_games(name) or ())}, not {game.NAME!r})")
    factory: Callable[[Game, int, AgentOptions], Agent] = resolve(entry.factory)
    return factory(game, seed, options)
