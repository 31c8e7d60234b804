"""``kocka-solve``: precompute, inspect and verify value tables."""
from __future__ import annotations

import json
import os
import pathlib
import sys

import click

from kocka.solver.base.errors import KockaError, TableError
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.store.table_store import (
    build_command, build_table, games_with_tables, game_from_cli, open_table, path_for, solver_for, solvers_for,
)
from kocka.solver.base.parallel import prepare_backend
from kocka.solver.base.table_file import default_cache_dir, is_stale, read_table, temporary_files

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
      kocka-solve build kocka --players 3   exact three-player Kocka table
      kocka-solve build kocka --players 4 -r target=2000 --scheduler tcp://host:8786
                                            four-player table on a dask cluster
      kocka-solve info kockapoker           expected score, states, size, rules match
      kocka-solve verify kockapoker         checksum + independent spot checks
    """


PLAYERS_HELP = ("Players the table is for, when a game's tables depend on it (Kocka: 2, 3 or 4; "
                "picks the table kind that declares it).")


def _stored_table_options(command):
    """GAME, ``-r``, ``--kind``, ``--players`` and ``--cache-dir``: which stored table a command reads."""
    for option in reversed((
        click.argument("game"),
        click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP),
        click.option("--kind", default=None, help="Table kind, when a game has several."),
        click.option("--players", type=int, default=None, help=PLAYERS_HELP),
        click.option("--cache-dir", type=click.Path(file_okay=False), default=None, help=CACHE_HELP),
    )):
        command = option(command)
    return command


def _game_and_solver(game_name: str, rules: tuple[str, ...], kind: str | None, players: int | None = None):
    """The game (with ``players`` seats) and the table solver: ``--kind``, or the first
    kind whose solver declares ``players`` (:attr:`TableSolver.players`);
    a kind whose declared players exclude ``players`` is refused."""
    probe = game_from_cli(game_name, rules)
    # without --players only the chosen kind's solver is imported (issue 28, build memory)
    solvers = solvers_for(probe.NAME) if kind is None and players is not None else [solver_for(probe.NAME, kind)]
    if players is not None:
        declared = [s for s in solvers if s.players is not None]
        fits = [s for s in declared if players in s.players]
        if declared and not fits:
            counts = ", ".join(f"{'/'.join(map(str, s.players))} players ({s.kind})" for s in declared)
            raise TableError(f"{probe.NAME} has no {kind or ''}{' ' if kind else ''}table for {players} players; "
                             f"its tables by player count: {counts}")
        solver = fits[0] if fits else solvers[0]
    else:
        solver = solvers[0]
        players = solver.players[0] if kind is not None and solver.players else None
    game = game_from_cli(game_name, rules, players)
    return game, solver


@main.command()
@click.argument("game")
@click.option("-r", "--rule", "--rules", "rules", multiple=True, help=RULE_HELP)
@click.option("--kind", default=None, help="Table kind, when a game has several (see `kocka-solve list`).")
@click.option("--players", type=int, default=None, help=PLAYERS_HELP)
@click.option("--jobs", "-j", default=1, show_default=True, help="Parallel worker processes (joblib).")
@click.option("--backend", default="loky", show_default=True,
              help="joblib backend for chunked builds: loky (local processes), threading, or dask / ray "
                   "(optional extras kocka[dask] / kocka[ray]; $DASK_SCHEDULER_ADDRESS / $RAY_ADDRESS "
                   "pick the cluster). The Kocka win tables use OpenMP threads (--jobs); the three- and "
                   "four-player ones spread over a dask cluster with --backend dask.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="The dask scheduler to build on (tcp://host:8786); implies --backend dask.")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, help=CACHE_HELP)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def build(game, rules, kind, players, jobs, backend, scheduler, cache_dir, quiet):
    """Build and store the table for GAME (atomic write; records rules, format, checksum)."""
    try:
        g, solver = _game_and_solver(game, rules, kind, players)
        if scheduler is not None:
            os.environ["DASK_SCHEDULER_ADDRESS"] = scheduler
            backend = "dask"
        prepare_backend(backend)
        table = build_table(g, solver, BuildOptions(jobs=jobs, backend=backend, progress=not quiet), cache_dir)
    except (KockaError, TableError, OSError) as exc:  # the destination is checked before the solve
        _fail(exc)
    click.echo(f"built {g.NAME}/{solver.kind} in {table.meta.build_seconds:.2f}s -> {table.path}")
    for key, value in solver.summary(table).items():
        click.echo(f"  {key}: {_fact_text(value)}")


def _fact_text(value) -> str:
    """A summary value as a reader sees it: mappings as ``key value`` pairs and lists
    comma-separated, never a Python repr; a number to 6 decimals (one below 1e-6 to 3
    significant digits). The summaries hold full precision, which ``info --json`` gives."""
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_fact_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_fact_text(v) for v in value)
    if isinstance(value, float):
        shown = round(value, 6)
        return f"{value:.3g}" if shown == 0 and value != 0 else str(shown)
    return str(value)


@main.command()
@_stored_table_options
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def info(game, rules, kind, players, cache_dir, as_json):
    """Expected value, state count, size, path, and whether the stored table matches the rules."""
    try:
        g, solver = _game_and_solver(game, rules, kind, players)
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
    if as_json:  # every number as the table records it (json writes a float's shortest exact repr)
        click.echo(json.dumps(facts, default=str))
    else:
        for key, value in facts.items():
            click.echo(f"{key}: {_fact_text(value)}")


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
def verify(game, rules, kind, players, cache_dir):
    """Re-check a stored table: the full checksum (never the verified record), layout, rules
    variant, and independent spot checks."""
    try:
        g, solver = _game_and_solver(game, rules, kind, players)
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


@main.command()
@_stored_table_options
@click.option("--limit", type=click.IntRange(min=1), default=1000, show_default=True, help="Positions to write.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the dice of the games played.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="File to write (written whole, then renamed into place); default: standard output.")
def export(game, rules, kind, players, cache_dir, limit, seed, out_path):
    """Labelled positions of GAME for training programs, one JSON object a line: a state
    document and every legal action with its value from the stored table, best first
    (decision positions met in seeded games played with the table's best actions)."""
    try:
        g, solver = _game_and_solver(game, rules, kind, players)
        if not hasattr(solver, "export"):
            raise TableError(f"{g.NAME}/{solver.kind} tables have no export of labelled positions")
        table = open_table(g, solver, cache_dir)
        lines = (json.dumps(row) + "\n" for row in solver.export(g, table, limit, seed))
        if out_path is None:
            for line in lines:
                click.echo(line, nl=False)
            return
        target = pathlib.Path(out_path)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.writelines(lines)
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
    except (KockaError, TableError, OSError) as exc:
        _fail(exc)
    click.echo(f"wrote {limit} positions of {g.NAME} to {out_path}", err=True)


@main.command(name="list")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None, help=CACHE_HELP)
def list_tables(cache_dir):
    """Show the table kinds that can be built and the tables already built."""
    from kocka.agents.bots.catalogue import describe_cache_file  # agents' own caches share the folder

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
        cache = describe_cache_file(path)
        if cache is not None:
            click.echo(f"  {path.name}: {cache}, {os.path.getsize(path):,} bytes")
            continue
        try:
            meta = read_table(path).meta
            click.echo(f"  {path.name}: {meta.game}/{meta.kind}, built {meta.built_at} "
                       f"in {meta.build_seconds:.2f}s, {os.path.getsize(path):,} bytes")
        except TableError as exc:
            click.echo(f"  {path.name}: unreadable ({exc})")
    for tmp in sorted({t for path in [*found, *_orphan_targets(folder, found)] for t in temporary_files(path)}):
        state = ("stale: left by a build that died; the next build of that table removes it" if is_stale(tmp)
                 else "being written by a build now")
        click.echo(f"  {tmp.name}: temporary file, {os.path.getsize(tmp):,} bytes ({state})")


def _orphan_targets(folder: pathlib.Path, found: list[pathlib.Path]) -> list[pathlib.Path]:
    """The tables that temporary files in ``folder`` were written for, where the table
    itself is not there (a first build that died)."""
    if not folder.is_dir():
        return []
    targets = {t.name.split(".npz.", 1)[0] + ".npz" for t in folder.glob("*.npz.*.tmp")}
    return [folder / name for name in sorted(targets - {p.name for p in found})]
