"""Which table solvers exist, and the shared build / load / hint plumbing around them.

A *table solver* computes one kind of value table for one game. Each solver module
exposes an instance of a :class:`~kocka.solver.models.table_solver.TableSolver`
subclass; a game's spec names them (``GameSpec.tables``, resolved here on first use).
The CLI, the agents and the seat all go through :func:`get_table`, which refuses stale
or inconsistent tables (every load re-solves a few states from the rules:
:meth:`TableSolver.spot_check`) and never builds silently. A build checks its
destination before it computes (:func:`build_table`), and a build that failed is not
retried by every later request of the process.
"""
from __future__ import annotations

import json
import pathlib
import sys
import threading
import time
from typing import Any, Callable, Sequence

from kocka.solver.base.errors import RulesError, TableError
from kocka.solver.rules import Game, game_specs, get_game, resolve, spec_for
from kocka.solver.rules.spec import TableKind
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.table_file import (
    Table, TableMeta, check_destination, checksum, default_cache_dir, load_table, remove_stale_temporaries,
    save_table, table_path,
)
from kocka.solver.models.table_solver import MIN_FREE_BYTES, TableSolver, require_game, spot_seed


def games_with_tables() -> tuple[str, ...]:
    """The games whose spec names at least one table kind."""
    return tuple(spec.name for spec in game_specs() if spec.tables)


def _table_kinds(game: str) -> tuple[TableKind, ...]:
    tables = spec_for(game).tables
    if not tables:
        raise TableError(f"no table solver for game {game!r} yet; games with tables: {', '.join(games_with_tables())}")
    return tables


def solvers_for(game: str) -> list[TableSolver]:
    """The table solvers of ``game``, its default kind first (from its spec)."""
    return [resolve(t.solver) for t in _table_kinds(game)]


def solver_for(game: str, kind: str | None = None) -> TableSolver:
    """The table solver of ``kind`` (default: the spec's first): only that solver's module
    is imported, so a Yahtzee ev build does not load the target solver and its kernel
    (issue 28, build memory)."""
    tables = _table_kinds(game)
    for table in tables:
        if kind is None or table.kind == kind:
            return resolve(table.solver)  # tests/test_specs.py: each solver builds the kind its spec names
    raise TableError(f"game {game!r} has no table kind {kind!r}; kinds: {[t.kind for t in tables]!r}")


def path_for(game: Game, solver: TableSolver, cache_dir: pathlib.Path | str | None = None) -> pathlib.Path:
    return table_path(cache_dir or default_cache_dir(), game.NAME, solver.kind, game.rules.variant_id())


def build_table(
    game: Game, solver: TableSolver, options: BuildOptions = BuildOptions(),
    cache_dir: pathlib.Path | str | None = None, *, save: bool = True,
) -> Table:
    """Build (and by default store, atomically) the table of ``solver`` for ``game``.

    Before anything is computed a stored build checks its destination (writable, free
    space for :func:`estimated_bytes`) and removes the stale temporary files of earlier
    builds of the same table that died (``kill -9``); a destination that cannot take the
    table is a one-line TableError within a second, not after the whole solve."""
    require_game(solver, game)
    path = path_for(game, solver, cache_dir)
    if save:
        check_destination(path, estimated_bytes(game, solver, path))
        remove_stale_temporaries(path)
    start = time.perf_counter()
    arrays, extra = solver.build(game, options)
    meta = TableMeta(
        game=game.NAME, kind=solver.kind, variant_id=game.rules.variant_id(),
        rules=game.rules.options(), build_seconds=round(time.perf_counter() - start, 3), extra=extra,
    )
    if not save:
        return Table(arrays=arrays, meta=TableMeta(**{**json.loads(meta.to_json()), "checksum": checksum(arrays, meta)}))
    return save_table(path, arrays, meta)


def estimated_bytes(game: Game, solver: TableSolver, path: pathlib.Path) -> int:
    """The free space a build of ``path`` asks for: the solver's estimate, else the size
    of the table it replaces (the same rules give the same size), else
    :data:`MIN_FREE_BYTES`."""
    estimate = solver.estimated_bytes(game)
    if estimate is None:
        try:
            estimate = path.stat().st_size
        except OSError:
            estimate = 0
    return max(int(estimate), MIN_FREE_BYTES)


_LOADED: dict[tuple[str, str, str, str], Table] = {}
_FAILED_BUILDS: dict[tuple[str, str, str, str], TableError] = {}
"""Builds (``build_missing``) that failed in this process, by table: a later request gets
the same refusal at once instead of computing the table again."""
_LOADING = threading.Lock()  # the HTTP seat serves requests on threads: load (or build) each table once


def get_table(
    game: Game, kind: str | None = None, cache_dir: pathlib.Path | str | None = None, *,
    build_missing: bool = False, options: BuildOptions = BuildOptions(), announce: Callable[[str], None] | None = None,
) -> Table:
    """The table for ``game`` (loaded once per process and shared).

    A missing table raises :class:`TableError` naming the ``kocka-solve`` command that
    builds it, unless ``build_missing``: then it is built with a message (``announce``,
    default stderr), never silently, and at most once per process: a build that failed
    (a read-only or full cache, rules the solver does not cover) is a TableError with its
    reason for every later request, without another attempt.
    """
    solver = solver_for(game.NAME, kind)
    path = path_for(game, solver, cache_dir)
    key = (str(path), game.NAME, solver.kind, game.rules.variant_id())
    table = _LOADED.get(key)
    if table is not None:
        return table
    with _LOADING:
        if key not in _LOADED:
            _LOADED[key] = _load_or_build(game, solver, path, cache_dir, build_missing, options, announce, key)
        return _LOADED[key]


def _load_or_build(
    game: Game, solver: TableSolver, path: pathlib.Path, cache_dir: pathlib.Path | str | None,
    build_missing: bool, options: BuildOptions, announce: Callable[[str], None] | None,
    key: tuple[str, str, str, str],
) -> Table:
    if path.is_file():
        return open_table(game, solver, cache_dir)
    if not build_missing:
        raise TableError(
            f"no {game.NAME}/{solver.kind} table for these rules at {str(path)!r}; "
            f"build it with: {build_command(game, solver, cache_dir)}"
        )
    failed = _FAILED_BUILDS.get(key)
    if failed is not None:
        raise TableError(str(failed))
    (announce or (lambda m: print(m, file=sys.stderr)))(
        f"building the missing {game.NAME}/{solver.kind} table ({path}) ..."
    )
    try:
        return build_table(game, solver, options, cache_dir)
    except (TableError, RulesError, OSError, MemoryError) as exc:
        failure = TableError(f"building the missing {game.NAME}/{solver.kind} table failed, not retried in this "
                             f"process: {' '.join(str(exc).split()) or type(exc).__name__}; "
                             f"build it with: {build_command(game, solver, cache_dir)}")
        _FAILED_BUILDS[key] = failure
        raise TableError(str(failure)) from None


def open_table(
    game: Game, solver: TableSolver, cache_dir: pathlib.Path | str | None = None, *, verify: str = "recorded",
) -> Table:
    """Load the stored table of ``solver`` for ``game`` and refuse any mismatch: format,
    game and kind, rules variant, the recorded rules against that variant (through the
    game's Rules class), the arrays against ``solver.layout`` (from their headers, before
    any is read), the checksum over arrays and metadata (``verify``: ``"recorded"``
    trusts the verified record of an unchanged file, ``"full"`` always hashes), and
    :meth:`TableSolver.spot_check`: a few states re-solved from the rules, so a table
    whose values were changed and its checksum recomputed is refused too. A refusal is
    one TableError line naming the file, what is wrong and the command that rebuilds it."""
    require_game(solver, game)
    variant_id = game.rules.variant_id()
    path = table_path(cache_dir or default_cache_dir(), game.NAME, solver.kind, variant_id)
    try:
        table = load_table(
            path, game=game.NAME, kind=solver.kind, variant_id=variant_id,
            variant_of=lambda rules: game.RULES.from_options(rules).variant_id(),
            layout=lambda meta: solver.layout(game, meta), verify=verify,
        )
        _spot_check(game, solver, table)
    except TableError as exc:
        verb = "build" if not path.is_file() else "rebuild"
        raise TableError(f"{exc}; {verb} it with: {build_command(game, solver, cache_dir)}") from None
    return table


def _spot_check(game: Game, solver: TableSolver, table: Table) -> None:
    """Refuse a table that disagrees with the rules at the states its spot check draws
    (seeded from the file's checksum)."""
    where = repr(str(table.path))
    try:
        problems = solver.spot_check(game, table, spot_seed(table))
    except (KeyError, IndexError, TypeError, ValueError) as exc:  # metadata a forger made consistent
        raise TableError(f"table {where} has content its solver cannot check: {exc!r:.200}") from None
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise TableError(f"table {where} disagrees with the rules: {' '.join(problems[0].split()):.300}{more}")


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
    default: the spec's default seat count)."""
    options: dict[str, Any] = {}
    for pair in rule_pairs:
        if "=" not in pair:
            raise RulesError(f"rule option must look like key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        options[key.strip()] = tuple(value.split(",")) if "," in value else value.strip()
    return get_game(name, options, num_players=num_players)
