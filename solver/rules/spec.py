"""One frozen description per game, and the registry that holds them.

After OpenSpiel's ``register_game``: each engine module ends by registering one
:class:`GameSpec` per game it implements. Everything else -- :func:`get_game`, the list
of games on every command, the table kinds and solvers a game has, its hint, its agents,
how a front end draws it, the words a player reads -- is read from these specs, so adding
a game means adding one spec and nothing else names a game.

The spec sits on the rules floor, below the solvers, bots and front ends it names. Those
are named by ``"module:attribute"`` references (like packaging entry points) and resolved
by :func:`resolve` in the floor that uses them, so this floor imports nothing above it
and ``lint-imports`` sees every real import. ``tests/test_games_api.py`` resolves every
reference of every spec, so a misspelt one fails the tests, not a user.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Iterator

from kocka.solver.base.errors import RulesError, shown
from kocka.solver.base.i18n import _
from kocka.solver.rules.words import Words

if TYPE_CHECKING:  # the engine base class imports this module for spec lookups
    from kocka.solver.rules.base import Game


@dataclass(frozen=True)
class TableKind:
    """One kind of value table a game has: ``solver`` is a ``"module:attribute"``
    reference to a table solver object (``kocka.solver.store.table_store.TableSolver``)."""

    kind: str
    solver: str


@dataclass(frozen=True)
class AgentEntry:
    """An agent that plays this game: ``factory`` is ``"module:callable"`` taking
    ``(game, seed, options)``; ``description`` is what ``kocka agents`` prints."""

    name: str
    factory: str
    description: str


@dataclass(frozen=True)
class GameSpec:
    """Everything the code knows about one game besides its rules engine.

    ``players`` is (fewest, most) seats, ``default_players`` what the commands use when
    none are given. ``outcome`` says what a player's result is: ``"score"`` (each plays
    his own card; the final total decides, ties shared -- the scorecard games), ``"win"``
    (the engine's returns are win shares -- Kocka), ``"race"`` (each plays his own card, but
    the game ends for all when one player completes his, so the players interact; the
    final total decides, ties shared -- the Polish basic game, PL-7) or ``"chips"`` (chip
    games). ``tables`` lists its table kinds, the default first; ``hint`` is ``"module:function(game,
    params) -> HintReport"`` and ``hint_parameters`` the ``"module:Class"`` of its
    ``params`` (a ``kocka.agents.advice.hint.HintParams`` dataclass whose declared fields
    are the options of ``kocka hint GAME``); ``view`` the front end's ``"module:function(game, state,
    seat_names, viewer) -> str"`` (``None``: the generic observation view); ``judges``
    the agents whose valuation judges a human's moves (hints and the cost of mistakes in
    ``kocka play``), the first that can play the position wins: exact tables first, in
    the bluff and betting games the strongest bot; ``hides_information`` whether some players do not see the whole
    state (bluff dice).

    What a generic front end needs of a game beyond the engine's methods is named here
    too, so that no front end tests a game's class: ``distribution`` is
    ``"module:function(game, table, position, **tables) -> ScoreDistribution"``, the distribution of
    one seat's final score from :meth:`~kocka.solver.rules.base.Game.final_score_position`
    under the default table's play (``tables``: further tables by kind where built, e.g.
    ``target=``, that answer faster; ``None``: the seats' scores are not independent);
    ``companion`` the ``"module:attribute"`` of the
    :class:`~kocka.agents.advice.table_talk.TableTalk` that says what ``kocka table`` says
    of this game beyond the engine's words (``None``: the generic one). ``level_base``:
    (player count, agent) pairs naming the agent the difficulty levels err around at that
    player count, where it is not the first table agent the spec lists (e.g. the two-player
    race table's player in a race whose ``optimal`` plays a solitaire table).
    """

    name: str
    title: str
    engine: type[Game]
    words: Words
    players: tuple[int, int]
    default_players: int = 1
    outcome: str = "score"
    tables: tuple[TableKind, ...] = ()
    hint: str | None = None
    hint_parameters: str | None = None
    agents: tuple[AgentEntry, ...] = ()
    view: str | None = None
    judges: tuple[str, ...] = ()
    hides_information: bool = False
    distribution: str | None = None
    companion: str | None = None
    level_base: tuple[tuple[int, str], ...] = ()

    def __post_init__(self) -> None:
        lo, hi = self.players
        if not 1 <= lo <= self.default_players <= hi:
            raise RulesError(f"{self.name}: default player count {self.default_players} outside {self.players}")
        if self.outcome not in ("score", "win", "race", "chips"):
            raise RulesError(f"{self.name}: unknown outcome kind {self.outcome!r}")

    @property
    def table_kinds(self) -> tuple[str, ...]:
        return tuple(t.kind for t in self.tables)

    def table(self, kind: str | None = None) -> TableKind:
        """The table kind ``kind`` (``None``: the default one)."""
        if not self.tables:
            raise RulesError(_("this game has no value tables"))
        if kind is None:
            return self.tables[0]
        for t in self.tables:
            if t.kind == kind:
                return t
        raise RulesError(_("this game has no table kind {kind}; its kinds are {kinds}", kind=shown(kind),
                           kinds=", ".join(self.table_kinds)))

    def agent(self, name: str) -> AgentEntry | None:
        return next((a for a in self.agents if a.name == name), None)


_SPECS: dict[str, GameSpec] = {}


def register_game(spec: GameSpec) -> GameSpec:
    """Add ``spec`` (once per name); engine classes learn their spec from here."""
    if spec.name in _SPECS and _SPECS[spec.name] != spec:
        raise RulesError(f"game {spec.name!r} is registered twice")
    if spec.engine.NAME != spec.name:
        raise RulesError(f"spec {spec.name!r} names engine {spec.engine.__name__} whose NAME is {spec.engine.NAME!r}")
    _SPECS[spec.name] = spec
    return spec


def game_specs() -> Iterator[GameSpec]:
    """Every registered game, in registration order."""
    return iter(tuple(_SPECS.values()))


def game_names() -> tuple[str, ...]:
    return tuple(_SPECS)


def spec_for(name: str) -> GameSpec:
    spec = _SPECS.get(name)
    if spec is None:
        raise RulesError(_("there is no game {name}; the games are {games}", name=shown(name), games=", ".join(_SPECS)))
    return spec


def resolve(reference: str) -> Any:
    """The object a ``"module:attribute"`` reference names (imported on first use)."""
    module, _colon, attribute = reference.partition(":")
    try:
        return getattr(import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        raise RulesError(f"the game registry names {reference!r}, which does not exist: {exc}") from None
