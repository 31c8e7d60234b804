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


@pytest.fixture(scope="session")
def liars_match_table():
    """The liar's poker match table from 1 chip each (2 in play), built and measured once
    into the session's table cache (tests/test_bluff_round.py, tests/test_bluff_hint.py).
    The smallest match there is (every round ends it) and one process: under ``-n auto``
    each xdist worker already has a core of its own."""
    from kocka.solver.solvers.bluff.match import LIARS_MATCH
    from kocka.solver.base.build_options import BuildOptions
    from kocka.solver.store.table_store import build_table
    from kocka.solver.rules.bluff import LiarsPokerGame, LiarsPokerRules

    return build_table(LiarsPokerGame(LiarsPokerRules(start_chips=1), 2), LIARS_MATCH, BuildOptions(jobs=1, progress=False))


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
