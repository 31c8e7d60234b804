"""The one protocol every player implements (after OpenSpiel's bots: thin objects over
the game API).

An :class:`Agent` plays one :class:`~kocka.solver.rules.Game`. Given a decision state it
returns its choice with :meth:`Agent.choose`, and with :meth:`Agent.rank` every legal
action with the value it optimises, best first (expected final score, win probability,
expected chips, or a heuristic's priority: ``value_name`` says which). Table agents
choose ``rank(state)[0]``.

Agents are stateless per call: what they choose depends only on the state, their seed
and the number of random draws made since the last :meth:`Agent.reset`. The one
exception is an opponent-modelling bot, which declares ``has_memory = True`` and learns
from :meth:`Agent.observe` events; the match loops (:mod:`kocka.agents.frontends.games.arena`,
:mod:`kocka.agents.frontends.games.play`) deliver every event to every agent and reset agents between
games.

Hidden information: agents receive the full state (the loops have nothing else to give)
and must read only ``game.observation(state, seat)`` in games that hide information.
"""
from __future__ import annotations

import hashlib
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from math import comb
from typing import Any, Callable, ClassVar, Hashable

from kocka.solver.base.dice import outcome_probability
from kocka.solver.base.errors import IllegalActionError, KockaError
from kocka.solver.base.decision import Decision
from kocka.solver.rules import CHANCE, Game
from kocka.solver.rules.base import pick_outcome


class AgentUnavailable(RuntimeError):
    """The named agent cannot play this game here (no solver yet, or its table is
    missing); the message names what is missing and how to get it."""


class UnknownAgentError(KockaError):
    """An agent name that is not registered."""


@dataclass(frozen=True)
class Event:
    """Something that happened in a match, delivered to :meth:`Agent.observe`.

    ``player`` is the seat that acted, or :data:`~kocka.solver.rules.CHANCE` for a roll.
    ``action`` is that seat's action; for chance events it is ``None`` because a roll may
    be private: agents learn what they may see from ``game.observation(state, seat)``.
    ``state`` is the state after the event.
    """

    player: int
    action: Any
    state: Any


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed from any printable parts (stable across processes and platforms,
    unlike ``hash()``), e.g. ``derive_seed("arena", seed, game_index, seat)``."""
    text = "/".join(str(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


class Agent(ABC):
    """Base class of every agent; subclasses implement :meth:`rank`.

    Parameters
    ----------
    game:
        The game (rules and number of players) the agent plays.
    seed:
        Seeds the agent's own random draws (tie-breaks, random play); agents that draw
        nothing ignore it. Equal seeds and equal states give equal choices.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    value_name: ClassVar[str] = "value"
    has_memory: ClassVar[bool] = False
    stand_in: Any = None
    """A :class:`kocka.agents.bots.fallback.StandIn` when the agent plays a stand-in for its
    exact method (a table not here), for the line its hints show; ``None``: the method itself."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        self.game = game
        self.seed = seed
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game.NAME!r}, seed={self.seed!r})"

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed (with ``seed`` if given, :meth:`reseed`) and forget any memory."""
        self.reseed(seed)

    def reseed(self, seed: int | None = None) -> None:
        """Start a new game keeping what was learnt (the arena's ``series``): reseed only."""
        if seed is not None:
            self.seed = seed
        self.rng = random.Random(self.seed)

    @abstractmethod
    def rank(self, state: Any) -> list[Decision]:
        """Every legal action of the seat to act, with this agent's value, best first."""

    def choose(self, state: Any) -> Any:
        """The action this agent plays in ``state`` (always a legal action)."""
        return self.rank(state)[0].action

    def observe(self, event: Event) -> None:
        """Learn from a match event; agents without memory ignore it."""

    def simulator(self) -> Any:
        """This agent's compiled player of whole games, or ``None`` (most agents): an object
        whose ``scores(game_seeds, seat, jobs)`` gives, as a float64 array, the final score
        of seat ``seat``'s card in every game whose dice come from
        ``ChanceSampler(game_seeds[i])``, exactly the games this agent plays in the match
        loop. Only an agent whose play depends on its own card alone may have one; the
        arena (:mod:`kocka.agents.frontends.games.arena`) uses it when every seat has one."""
        return None

    # ----- helpers for subclasses -----
    def require_decision(self, state: Any) -> int:
        """The seat to act; an error at a chance node or a finished game."""
        player = self.game.current_player(state)
        if player < 0:
            kind = "a chance node" if player == CHANCE else "a finished game"
            raise IllegalActionError(f"{self.game.NAME}: no decision to make at {kind}: {self.game.describe_state(state)}")
        return player

    def decision_actions(self, state: Any) -> list:
        """The legal actions at a decision node; an error anywhere else."""
        self.require_decision(state)
        actions = self.game.legal_actions(state)
        if not actions:
            raise IllegalActionError(f"{self.game.NAME}: no legal action in {self.game.describe_state(state)}")
        return actions


def ranked(decisions: list[Decision]) -> list[Decision]:
    """Sort best first; equal values keep their given (engine) order, so ties are broken
    the same way every time."""
    return sorted(decisions, key=lambda d: -d.value)


# ----------------------------------------------------------------------------------------
# Seeded chance
# ----------------------------------------------------------------------------------------
class ChanceSampler:
    """Samples chance outcomes reproducibly from ``seed``.

    Each roll gets its own generator, seeded from ``(seed, key)``: the key is the
    (seat, turn, throw) of ``game.roll_key(state)`` where the game has one (common random
    numbers, and an undone decision is followed by the same roll), else the number of
    chance nodes met so far in the game (passed in by the match loop). When the outcomes
    are the sorted results of k fair dice, k dice are drawn one by one and sorted, so the
    first dice of a throw are shared by every agent that throws at least that many;
    otherwise one uniform number picks the outcome by inverse CDF.
    """

    _multiset_checked: ClassVar[dict[tuple, bool]] = {}  # shared: outcome lists are per game class

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def key(self, game: Game, state: Any, counter: int) -> Hashable:
        turn_key = game.roll_key(state)
        return turn_key if turn_key is not None else ("roll", counter)

    def sample(self, game: Game, state: Any, counter: int) -> Any:
        """The outcome of the chance node ``state``, the ``counter``-th of its game."""
        outcomes = game.chance_outcomes(state)
        rng = random.Random(derive_seed("chance", self.seed, self.key(game, state, counter)))
        dice_count = self._dice_count(game, outcomes)
        if dice_count is not None:
            return tuple(sorted(rng.randint(1, 6) for _ in range(dice_count)))
        return pick_outcome(outcomes, rng.random())

    def _dice_count(self, game: Game, outcomes: list[tuple[Any, float]]) -> int | None:
        """k if ``outcomes`` are all sorted throws of k fair dice with their multinomial
        probabilities (checked in full once per game class and k), else None."""
        first = outcomes[0][0]
        if not isinstance(first, tuple) or not all(isinstance(v, int) for v in first):
            return None
        k = len(first)
        cache_key = (type(game), k, len(outcomes))
        if cache_key not in self._multiset_checked:
            self._multiset_checked[cache_key] = len(outcomes) == comb(k + 5, 5) and all(
                isinstance(o, tuple) and len(o) == k and o == tuple(sorted(o)) and all(1 <= v <= 6 for v in o)
                and abs(p - outcome_probability(o)) < 1e-12
                for o, p in outcomes
            ) and len({o for o, _ in outcomes}) == len(outcomes)
        return k if self._multiset_checked[cache_key] else None


# ----------------------------------------------------------------------------------------
# One game from one generator
# ----------------------------------------------------------------------------------------
def draw_outcome(game: Game, state: Any, rng: random.Random) -> Any:
    """An outcome of the chance node ``state``: one ``rng.choices`` draw weighted by the
    engine's probabilities."""
    outcomes = game.chance_outcomes(state)
    return rng.choices([o for o, _ in outcomes], weights=[p for _, p in outcomes])[0]


def play_with_rng(game: Game, choose: Callable[[Any], Any], rng: random.Random, state: Any = None) -> Any:
    """Play from ``state`` (a new game when None) to the end and return the final state:
    each roll is :func:`draw_outcome` from ``rng``, each decision ``choose(state)`` (an
    agent's ``choose``, or a table's best action).

    This is the loop that Monte-Carlo checks and benchmarks use to play many games from
    one seeded generator. They all share it, so that they play every game the same way
    and draw the dice in the same order (the same seed, the same games). The arena's
    :func:`~kocka.agents.frontends.games.arena.play_match` works differently: it gives each roll
    its own seed from a :class:`ChanceSampler`, so that the lineups it compares see the
    same dice, and it also sends every event to agents with memory."""
    state = game.new_initial_state() if state is None else state
    while not game.is_terminal(state):
        state = game.apply(state, draw_outcome(game, state, rng) if game.is_chance_node(state) else choose(state))
    return state


def positions_with_rng(game: Game, choose: Callable[[Any], Any], rng: random.Random, count: int) -> list[Any]:
    """The first ``count`` decision states that :func:`play_with_rng` meets when it plays
    game after game with ``choose`` and ``rng`` (positions for benchmarks and checks).
    ``choose`` may draw from ``rng`` too: its draws and the dice then come in the order
    of play."""
    found: list[Any] = []

    def record(state: Any) -> Any:
        found.append(state)
        return choose(state)

    while len(found) < count:
        play_with_rng(game, record, rng)
    return found[:count]
