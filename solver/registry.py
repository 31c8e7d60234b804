"""Which table solvers exist, and the shared build / load / hint plumbing around them.

A *table solver* computes one kind of value table for one game (``kockapoker``/``ev``,
``kocka``/``winprob``, ...). Each solver module exposes an object satisfying
:class:`TableSolver` and registers it in :data:`SOLVERS` (lazy ``"module:attr"``
strings, so a broken solver cannot hide the others). The CLI, the agents and the seat
all go through :func:`get_table`, which refuses stale tables and never builds silently.
"""
from __future__ import annotations

import json
import pathlib
import sys
import time
from importlib import import_module
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np

from kocka.solver.errors import TableError
from kocka.solver.rules import Game, get_game
from kocka.solver.decision import BuildOptions, Decision
from kocka.solver.tables import Table, TableMeta, default_cache_dir, load_table, save_table, table_path


class TableSolver(Protocol):
    game: str
    kind: str
    description: str

    def build(self, game: Game, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Compute the arrays and the summary facts to record (``extra`` metadata)."""

    def summary(self, table: Table) -> dict[str, Any]:
        """Facts for ``kocka-solve info`` (expected score, state count, ...)."""

    def check(self, game: Game, table: Table) -> list[str]:
        """Independent spot checks for ``kocka-solve verify``; problems found (empty = fine)."""


_SCORECARD_EV = "kocka.solver.scorecard_solver:SCORECARD_EV"
# game -> "module:attr" solver objects; the first is the game's default kind
SOLVERS: dict[str, list[str]] = {
    "kockapoker": [_SCORECARD_EV],
    "slovak": [_SCORECARD_EV],
    "yahtzee": [_SCORECARD_EV],
    "yatzy": [_SCORECARD_EV],
    "kocka": [
        "kocka.solver.kocka_solver:KOCKA_WINPROB",
        "kocka.solver.kocka_solver:KOCKA_TURN_EV",
        "kocka.solver.kocka_solver:KOCKA_TURN_REACH",
    ],
    "abazs": ["kocka.solver.bluff_equilibrium:ABAZS_EQUILIBRIUM"],
    "polish": ["kocka.solver.polish_solver:POLISH_EV"],
    "polish-basic": ["kocka.solver.polish_solver:POLISH_BASIC_EV"],
}


def register(game: str, target: str) -> None:
    SOLVERS.setdefault(game, [])
    if target not in SOLVERS[game]:
        SOLVERS[game].append(target)


def solvers_for(game: str) -> list[TableSolver]:
    if game not in SOLVERS:
        raise TableError(f"no table solver for game {game!r} yet; games with tables: {sorted(SOLVERS)!r}")
    result = []
    for target in SOLVERS[game]:
        module, attr = target.split(":")
        result.append(getattr(import_module(module), attr))
    return result


def solver_for(game: str, kind: str | None = None) -> TableSolver:
    options = solvers_for(game)
    if kind is None:
        return options[0]
    for s in options:
        if s.kind == kind:
            return s
    raise TableError(f"game {game!r} has no table kind {kind!r}; kinds: {[s.kind for s in options]!r}")


def path_for(game: Game, solver: TableSolver, cache_dir: pathlib.Path | str | None = None) -> pathlib.Path:
    return table_path(cache_dir or default_cache_dir(), game.NAME, solver.kind, game.rules.variant_id())


def build_table(
    game: Game, solver: TableSolver, options: BuildOptions = BuildOptions(),
    cache_dir: pathlib.Path | str | None = None, *, save: bool = True,
) -> Table:
    """Build (and by default store, atomically) the table of ``solver`` for ``game``."""
    start = time.perf_counter()
    arrays, extra = solver.build(game, options)
    meta = TableMeta(
        game=game.NAME, kind=solver.kind, variant_id=game.rules.variant_id(),
        rules=game.rules.options(), build_seconds=round(time.perf_counter() - start, 3), extra=extra,
    )
    if not save:
        from kocka.solver.tables import checksum

        return Table(arrays=arrays, meta=TableMeta(**{**json.loads(meta.to_json()), "checksum": checksum(arrays)}))
    return save_table(path_for(game, solver, cache_dir), arrays, meta)


_LOADED: dict[tuple[str, str, str, str], Table] = {}


def get_table(
    game: Game, kind: str | None = None, cache_dir: pathlib.Path | str | None = None, *,
    build_missing: bool = False, options: BuildOptions = BuildOptions(), announce: Callable[[str], None] | None = None,
) -> Table:
    """The table for ``game`` (loaded once per process and shared).

    A missing table raises :class:`TableError` naming the ``kocka-solve`` command that
    builds it, unless ``build_missing``: then it is built with a message (``announce``,
    default stderr), never silently.
    """
    solver = solver_for(game.NAME, kind)
    path = path_for(game, solver, cache_dir)
    key = (str(path), game.NAME, solver.kind, game.rules.variant_id())
    if key in _LOADED:
        return _LOADED[key]
    if not path.is_file():
        if not build_missing:
            raise TableError(
                f"no {game.NAME}/{solver.kind} table for these rules at {str(path)!r}; "
                f"build it with: {build_command(game, solver, cache_dir)}"
            )
        (announce or (lambda m: print(m, file=sys.stderr)))(
            f"building the missing {game.NAME}/{solver.kind} table ({path}) ..."
        )
        table = build_table(game, solver, options, cache_dir)
    else:
        table = load_table(path, game=game.NAME, kind=solver.kind, variant_id=game.rules.variant_id())
    _LOADED[key] = table
    return table


def build_command(game: Game, solver: TableSolver, cache_dir: pathlib.Path | str | None = None) -> str:
    parts = ["kocka-solve", "build", game.NAME]
    if solver.kind != solvers_for(game.NAME)[0].kind:
        parts += ["--kind", solver.kind]
    defaults = type(game.rules)().options()
    for k, v in game.rules.options().items():
        if v != defaults[k]:
            parts += ["-r", f"{k}={_cli_value(v)}"]
    if cache_dir is not None:
        parts += ["--cache-dir", str(cache_dir)]
    return " ".join(parts)


def _cli_value(v: Any) -> str:
    if isinstance(v, (tuple, list)):
        return ",".join(str(x) for x in v)
    return str(v).lower() if isinstance(v, bool) else str(v)


def game_from_cli(name: str, rule_pairs: Sequence[str], num_players: int | None = None) -> Game:
    """``-r key=value`` pairs (comma lists become tuples) -> a Game (``num_players``
    default: the fewest the game takes, 1, or 2 for the bluff and chip-bidding games)."""
    options: dict[str, Any] = {}
    for pair in rule_pairs:
        if "=" not in pair:
            from kocka.solver.errors import RulesError

            raise RulesError(f"rule option must look like key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        options[key.strip()] = tuple(value.split(",")) if "," in value else value.strip()
    if num_players is None:
        from kocka.solver.rules import game_class

        cls = game_class(name)
        num_players = cls.player_range(cls.__new__(cls))[0]  # player_range reads no instance state
    return get_game(name, options, num_players=num_players)
