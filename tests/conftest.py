"""Shared test helpers."""
from __future__ import annotations

import contextlib
import pathlib
import threading
from typing import Any, Iterator

import pytest

RULES_MD = pathlib.Path(__file__).resolve().parents[2] / "shared" / "RULES.md"


@pytest.fixture(autouse=True, scope="session")
def _isolated_table_cache(tmp_path_factory):
    """Tests never read or write the user's table cache: tables they need are built into a
    fresh folder (or the tmp dirs they pass explicitly)."""
    import os

    old = os.environ.get("KOCKA_CACHE")
    os.environ["KOCKA_CACHE"] = str(tmp_path_factory.mktemp("kocka-cache"))
    yield
    if old is None:
        os.environ.pop("KOCKA_CACHE", None)
    else:
        os.environ["KOCKA_CACHE"] = old


class SharedTables:
    """Tables built once for the whole test run, however many xdist workers it has: the
    first worker to ask for one builds it into a folder all the workers share (under a file
    lock, so that the others wait for it rather than build it again), and every worker then
    loads it through the store, with the store's checks (``open_table``: format, rules
    variant, layout, checksum, spot check).

    Why: the same table (the Abázs equilibrium, the liar's poker match, the whole
    kockapóker card) was built by several modules and again in each worker, some ten
    seconds a build. Only the registered solvers' tables go here (``solver_for``): the
    folder is keyed by game, kind and rules variant, which would not tell a solver made
    with other parameters (a different ``max_total``) from the registered one."""

    def __init__(self, root: pathlib.Path):
        self.root = root

    def folder(self, game: Any, solver: Any) -> pathlib.Path:
        """The shared folder holding the table of ``solver`` for ``game``, built (one
        process, quietly) by the first worker to ask."""
        import fcntl

        from kocka.solver.base.build_options import BuildOptions
        from kocka.solver.store.table_store import build_table, path_for, solver_for

        if solver is not solver_for(game.NAME, solver.kind):
            raise ValueError(f"only registered solvers' tables are shared, not {solver!r}")
        folder = self.root / path_for(game, solver, self.root).stem  # game, kind, rules variant
        with open(self.root / f"{folder.name}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            done = folder / "built"
            if not done.is_file():
                folder.mkdir(exist_ok=True)
                build_table(game, solver, BuildOptions(jobs=1, progress=False), folder)
                done.touch()
        return folder

    def table(self, game: Any, solver: Any) -> Any:
        """The table, opened from the shared folder through the store."""
        from kocka.solver.store.table_store import open_table

        return open_table(game, solver, self.folder(game, solver))

    def install(self, game: Any, solver: Any, cache_dir: pathlib.Path | str | None = None) -> Any:
        """The table copied into ``cache_dir`` (default: this session's table cache, where
        ``get_table`` and the seat look) and opened there through the store."""
        import shutil

        from kocka.solver.store.table_store import open_table, path_for

        source = path_for(game, solver, self.folder(game, solver))
        target = path_for(game, solver, cache_dir)
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target.with_name(target.name + ".copying"))
            target.with_name(target.name + ".copying").replace(target)
        return open_table(game, solver, cache_dir)


@pytest.fixture(scope="session")
def shared_tables(tmp_path_factory) -> SharedTables:
    """The run's :class:`SharedTables`: under xdist the workers' temporary folders are
    siblings (``popen-gw0``, ``popen-gw1``) under the run's own, which holds the shared one."""
    import os

    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-tables"
    root.mkdir(exist_ok=True)
    return SharedTables(root)


@pytest.fixture(scope="session")
def abazs_equilibrium_table(shared_tables):
    """Abázs's equilibrium table for the default rules (BLUFF-1..10), built once per run
    (tests/test_bluff_bots.py, test_bluff_equilibrium.py, test_bluff_frequencies.py,
    test_browser.py, test_table_integrity.py), opened from the shared folder (its
    ``path.parent``, a folder to pass as a cache)."""
    from kocka.solver.rules.bluff import AbazsGame, AbazsRules
    from kocka.solver.store.table_store import solver_for

    return shared_tables.table(AbazsGame(AbazsRules(), 2), solver_for("abazs", "equilibrium"))


@pytest.fixture(scope="session")
def liars_match_table(shared_tables):
    """The liar's poker match table from 1 chip each (2 in play), built and measured once
    per run and installed into the session's table cache (tests/test_bluff_round.py,
    tests/test_bluff_hint.py). The smallest match there is (every round ends it)."""
    from kocka.solver.solvers.bluff.match import LIARS_MATCH
    from kocka.solver.rules.bluff import LiarsPokerGame, LiarsPokerRules

    return shared_tables.install(LiarsPokerGame(LiarsPokerRules(start_chips=1), 2), LIARS_MATCH)


@pytest.fixture
def rng():
    import random

    return random.Random(12345)


@contextlib.contextmanager
def serving_in_thread(server: Any) -> Iterator[str]:
    """Serve ``server`` (a seat's HTTP server or ``kocka web``'s: ``serve_forever``,
    ``shutdown``, ``server_close``) from a daemon thread of this process until the block
    ends, yielding its base URL ``http://127.0.0.1:PORT`` (no trailing slash). The HTTP and
    web tests (test_seat_http, test_web, test_browser) share it, so that each stops its
    server and joins the thread the same way."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def published(name: str) -> dict:
    """A figure from tests/data/published.json (shared/PUBLISHED.md, with its source)."""
    import json

    data = json.loads((pathlib.Path(__file__).parent / "data" / "published.json").read_text())
    return data[name]
