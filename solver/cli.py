"""``kocka-solve``: precompute, inspect and verify value tables."""
from __future__ import annotations

import json
import os
import pathlib
import sys

import click

from kocka.solver.errors import KockaError, TableError
from kocka.solver.decision import BuildOptions
from kocka.solver.registry import (
    build_command, build_table, games_with_tables, game_from_cli, open_table, path_for, solver_for, solvers_for,
)
from kocka.solver.parallel import prepare_backend
from kocka.solver.tables import default_cache_dir, read_table

RULE_HELP = "Rule option as key=value (names from RULES.md section 6, e.g. -r house_negative=count). Repeatable."
CACHE_HELP = "Folder for tables (default: $KOCKA_CACHE, the checkout's cache/, or ~/.cache/kocka)."


def _fail(exc: Exception) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Precompute the value tables the kocka hints and AI players use.

    \b
    Examples:
      kocka-solve list                      what can be built, and what is built
      kocka-solve build kockapoker          exact table for Hungarian kockapoker
      kocka-solve build yahtzee -r joker=forced
      kocka-solve info kockapoker           expected score, states, size, rules match
      kocka-solve verify kockapoker         checksum + independent spot checks
    """


def _stored_table_options(command):
    """GAME, ``-r``, ``--kind`` and ``--cache-dir``: which stored table a command reads."""
    for option in reversed((
        click.argument("game"),
        click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP),
        click.option("--kind", default=None, help="Table kind, when a game has several."),
        click.option("--cache-dir", type=click.Path(file_okay=False), default=None, help=CACHE_HELP),
    )):
        command = option(command)
    return command


def _game_and_solver(game_name: str, rules: tuple[str, ...], kind: str | None):
    game = game_from_cli(game_name, rules)
    return game, solver_for(game.NAME, kind)


@main.command()
@click.argument("game")
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
@click.option("--kind", default=None, help="Table kind, when a game has several (see `kocka-solve list`).")
@click.option("--jobs", "-j", default=1, show_default=True, help="Parallel worker processes (joblib).")
@click.option("--backend", default="loky", show_default=True,
              help="joblib backend for chunked builds: loky (local processes), threading, or dask / ray "
                   "(optional extras kocka[dask] / kocka[ray]; $DASK_SCHEDULER_ADDRESS / $RAY_ADDRESS "
                   "pick the cluster). The Kocka win table uses OpenMP threads (--jobs) instead.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, help=CACHE_HELP)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def build(game, rules, kind, jobs, backend, cache_dir, quiet):
    """Build and store the table for GAME (atomic write; records rules, format, checksum)."""
    try:
        g, solver = _game_and_solver(game, rules, kind)
        prepare_backend(backend)
        table = build_table(g, solver, BuildOptions(jobs=jobs, backend=backend, progress=not quiet), cache_dir)
    except (KockaError, TableError) as exc:
        _fail(exc)
    click.echo(f"built {g.NAME}/{solver.kind} in {table.meta.build_seconds:.2f}s -> {table.path}")
    for key, value in solver.summary(table).items():
        click.echo(f"  {key}: {value}")


@main.command()
@_stored_table_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def info(game, rules, kind, cache_dir, as_json):
    """Expected value, state count, size, path, and whether the stored table matches the rules."""
    try:
        g, solver = _game_and_solver(game, rules, kind)
        path = path_for(g, solver, cache_dir)
        table = open_table(g, solver, cache_dir)
        summary = _summary(g, solver, table, cache_dir)
    except (KockaError, TableError) as exc:
        _fail(exc)
    facts = {
        "game": g.NAME, "kind": solver.kind, "path": str(path), "size_bytes": path.stat().st_size,
        "rules": g.rules.describe(), "variant_id": g.rules.variant_id(), "matches_rules": True,
        "format_version": table.meta.format_version, "built_at": table.meta.built_at,
        "build_seconds": table.meta.build_seconds, **summary,
    }
    if as_json:
        click.echo(json.dumps(facts, default=str))
    else:
        for key, value in facts.items():
            click.echo(f"{key}: {value}")


def _summary(game, solver, table, cache_dir) -> dict:
    """``solver.summary``; metadata it cannot read (a table whose checksum was forged) is a
    TableError like any other damage."""
    try:
        return solver.summary(table)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise TableError(f"table {str(table.path)!r} has metadata its solver cannot summarise ({exc!r:.200}); "
                         f"rebuild it with: {build_command(game, solver, cache_dir)}") from None


@main.command()
@_stored_table_options
def verify(game, rules, kind, cache_dir):
    """Re-check a stored table: the full checksum (never the verified record), layout, rules
    variant, and independent spot checks."""
    try:
        g, solver = _game_and_solver(game, rules, kind)
        path = path_for(g, solver, cache_dir)
        table = open_table(g, solver, cache_dir, verify="full")
        problems = solver.check(g, table)
    except (KockaError, TableError) as exc:
        _fail(exc)
    if problems:
        for p in problems:
            click.echo(f"FAIL: {p}", err=True)
        sys.exit(1)
    click.echo(f"ok: {path} (full checksum, layout, rules variant {g.rules.variant_id()}, spot checks)")


@main.command(name="list")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, help=CACHE_HELP)
def list_tables(cache_dir):
    """Show the table kinds that can be built and the tables already built."""
    folder = pathlib.Path(cache_dir) if cache_dir else default_cache_dir()
    click.echo("buildable tables (kocka-solve build GAME [--kind KIND]):")
    for game in games_with_tables():
        try:
            for s in solvers_for(game):
                click.echo(f"  {game:12s} {s.kind:8s} {s.description}")
        except (ImportError, AttributeError) as exc:
            click.echo(f"  {game:12s} (unavailable: {exc})")
    click.echo(f"built in {folder}:")
    found = sorted(folder.glob("*.npz")) if folder.is_dir() else []
    if not found:
        click.echo("  (none)")
    for path in found:
        try:
            meta = read_table(path).meta
            click.echo(f"  {path.name}: {meta.game}/{meta.kind}, built {meta.built_at} "
                       f"in {meta.build_seconds:.2f}s, {os.path.getsize(path):,} bytes")
        except TableError as exc:
            click.echo(f"  {path.name}: unreadable ({exc})")
