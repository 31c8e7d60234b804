"""Every agent by name, with a one-line description, and the agents that need no rules
knowledge: ``random`` and the table-backed ``optimal`` / ``ev``.

:func:`make_agent` is the one way the CLI, the arena, terminal play and the seat build a
player. An agent that cannot play a game here raises :class:`AgentUnavailable` naming
what is missing (a solver that has not landed, a table to build) -- it never falls back
to random play. Other modules add agents with :func:`register_agent` (the bluff bots do).
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable

from kocka.agents.base import Agent, AgentUnavailable, UnknownAgentError
from kocka.solver.errors import TableError
from kocka.solver.decision import Decision
from kocka.solver.registry import get_table
from kocka.solver.rules import Game


@dataclass(frozen=True)
class AgentOptions:
    """Where table agents find their tables, and whether a missing one may be built
    (with a message, never silently)."""

    cache_dir: str | pathlib.Path | None = None
    build_missing: bool = False


@dataclass(frozen=True)
class AgentSpec:
    """A registered agent: ``factory`` is ``"module:callable"`` taking ``(game, seed,
    options)``; ``games`` lists the games it plays (``None``: every game)."""

    name: str
    description: str
    factory: str
    games: tuple[str, ...] | None = None


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
        return [Decision(a, p, _label(a)) for a in actions]

    def choose(self, state: Any) -> Any:
        actions = self.decision_actions(state)
        return actions[self.rng.randrange(len(actions))]


def _label(action: Any) -> str:
    from kocka.agents.frontends.play import format_action

    return format_action(action)


# ----------------------------------------------------------------------------------------
# table agents
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableBackend:
    """How a table agent ranks one game: table ``kind`` (``None``: the game's default
    kind) and ``rank``, a ``"module:function(game, table, state) -> list[Decision]"``."""

    kind: str | None
    rank: str
    value_name: str
    solver_issue: str
    min_players: int = 1
    alternative: str = ""


_SCORECARD = TableBackend(None, "kocka.solver.scorecard_solver:rank", "expected final score", "the scorecard solver")
OPTIMAL_BACKENDS: dict[str, TableBackend] = {
    "kockapoker": _SCORECARD,
    "slovak": _SCORECARD,
    "yahtzee": _SCORECARD,
    "yatzy": _SCORECARD,
    "kocka": TableBackend("winprob", "kocka.solver.kocka_solver:rank", "P(win)", "the Kocka solver", min_players=2,
                          alternative="for one player use 'ev' (expected points banked per turn)"),
    "polish": TableBackend(None, "kocka.solver.polish_solver:rank", "expected final score", "the Polish solver"),
    "polish-basic": TableBackend(None, "kocka.solver.polish_solver:rank", "expected final score", "the Polish solver"),
}
"""Game -> what ``optimal`` plays with. Games missing here have no optimal agent yet."""

EV_BACKENDS: dict[str, TableBackend] = {
    "kocka": TableBackend("turn_ev", "kocka.solver.kocka_solver:rank", "expected points this turn", "the Kocka solver"),
}


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
        module_name, func = backend.rank.split(":")
        try:
            module = import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            raise AgentUnavailable(
                f"agent {name!r} cannot play {game.NAME!r} yet: {backend.solver_issue} "
                f"({module_name}) is missing from this installation"
            ) from None
        rank = getattr(module, func, None)
        if rank is None:
            raise AgentUnavailable(
                f"agent {name!r} cannot play {game.NAME!r} yet: {module_name} has no {func}() to rank moves"
            )
        self._rank: Callable[[Game, Any, Any], list[Decision]] = rank
        try:
            self.table = get_table(game, backend.kind, options.cache_dir, build_missing=options.build_missing)
        except TableError as exc:
            raise AgentUnavailable(f"agent {name!r} needs a value table: {exc}") from None
        except (ImportError, AttributeError) as exc:  # the solver registry names a solver not yet written
            raise AgentUnavailable(f"agent {name!r} cannot play {game.NAME!r} yet: its table solver is missing ({exc})") from None

    def rank(self, state: Any) -> list[Decision]:
        self.require_decision(state)
        decisions = list(self._rank(self.game, self.table, state))
        if not decisions:
            raise AgentUnavailable(f"{self.backend.rank} ranked no action in {self.game.describe_state(state)}")
        return decisions


def _table_factory(backends: dict[str, TableBackend], name: str) -> Callable[[Game, int, AgentOptions], Agent]:
    def factory(game: Game, seed: int, options: AgentOptions) -> Agent:
        backend = backends.get(game.NAME)
        if backend is None:
            raise AgentUnavailable(
                f"no {name!r} agent for {game.NAME!r}: no table solver covers it yet; "
                f"{name!r} plays {sorted(backends)!r}"
            )
        if game.num_players < backend.min_players:
            raise AgentUnavailable(
                f"{name!r} plays {game.NAME!r} with {backend.min_players}+ players (its table is a "
                f"{backend.value_name} table), got {game.num_players}; {backend.alternative}".rstrip("; ")
            )
        return TableAgent(game, seed, options, backend, name)

    return factory


optimal_factory = _table_factory(OPTIMAL_BACKENDS, "optimal")
ev_factory = _table_factory(EV_BACKENDS, "ev")


def random_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return RandomAgent(game, seed)


# ----------------------------------------------------------------------------------------
# the registry
# ----------------------------------------------------------------------------------------
AGENTS: dict[str, AgentSpec] = {}


def register_agent(spec: AgentSpec) -> None:
    """Add (or replace) an agent under ``spec.name``."""
    AGENTS[spec.name] = spec


for _spec in (
    AgentSpec("optimal", "plays the best action from the game's exact value table "
                         "(expected score; Kocka: win probability)", "kocka.agents.registry:optimal_factory"),
    AgentSpec("heuristic", "a human-like rule set per game, documented in kocka.agents.heuristic",
              "kocka.agents.heuristic:heuristic_factory"),
    AgentSpec("bold", "Kocka: chases series and big turns, banks late",
              "kocka.agents.heuristic:bold_factory", ("kocka",)),
    AgentSpec("cautious", "Kocka: never starts a series and banks every allowed total",
              "kocka.agents.heuristic:cautious_factory", ("kocka",)),
    AgentSpec("ev", "Kocka: maximises the expected points banked this turn (turn EV table)",
              "kocka.agents.registry:ev_factory", ("kocka",)),
    AgentSpec("random", "uniform over the legal actions (seeded)", "kocka.agents.registry:random_factory"),
    AgentSpec("bayes", "bluff games: Bayesian posterior over the claimant's dice, learns lie and call rates",
              "kocka.agents.bluff_bots:bayes_factory", ("abazs", "bidding-bluff", "liars-poker")),
    AgentSpec("truthful", "bluff games: claims the truth (else the smallest lie), believes every claim",
              "kocka.agents.bluff_bots:truthful_factory", ("abazs", "bidding-bluff", "liars-poker")),
    AgentSpec("threshold", "bluff games: claims like 'truthful', challenges every claim at or above a fixed claim",
              "kocka.agents.bluff_bots:threshold_factory", ("abazs", "bidding-bluff", "liars-poker")),
    AgentSpec("equilibrium", "two-player Abázs: the exact match equilibrium (table), mixed strategies",
              "kocka.agents.bluff_bots:equilibrium_factory", ("abazs",)),
    AgentSpec("bettor", "kockapoker-bid: raises, holds or passes by P(finishing top) from the score distributions",
              "kocka.agents.betting:bettor_factory", ("kockapoker-bid",)),
    AgentSpec("score-only", "kockapoker-bid: optimal card play, never raises, holds every raise",
              "kocka.agents.betting:score_only_factory", ("kockapoker-bid",)),
    AgentSpec("reckless", "kockapoker-bid: optimal card play, raises at every chance (re-raises up to a stake of 10)",
              "kocka.agents.betting:reckless_factory", ("kockapoker-bid",)),
):
    register_agent(_spec)


def agent_names(game: str | None = None) -> list[str]:
    """Registered agent names (those that may play ``game``, when given)."""
    return [n for n, s in AGENTS.items() if game is None or s.games is None or game in s.games]


def describe_agents(game: str | None = None) -> list[tuple[str, str]]:
    """``(name, one-line description)`` of every agent (for ``game``, when given)."""
    return [(n, AGENTS[n].description) for n in agent_names(game)]


def make_agent(name: str, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> Agent:
    """Build agent ``name`` for ``game``.

    Raises :class:`UnknownAgentError` for a name nobody registered and
    :class:`AgentUnavailable` when the agent cannot play this game here.
    """
    spec = AGENTS.get(name)
    if spec is None:
        raise UnknownAgentError(f"unknown agent {name!r}; agents: {', '.join(AGENTS)}")
    if spec.games is not None and game.NAME not in spec.games:
        raise AgentUnavailable(f"agent {name!r} plays only {', '.join(spec.games)}, not {game.NAME!r}")
    module, attr = spec.factory.split(":")
    factory: Callable[[Game, int, AgentOptions], Agent] = getattr(import_module(module), attr)
    return factory(game, seed, options)
