"""Shared test helpers."""
from __future__ import annotations

import pathlib

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


@pytest.fixture
def rng():
    import random

    return random.Random(12345)


def published(name: str) -> dict:
    """A figure from tests/data/published.json (shared/PUBLISHED.md, with its source)."""
    import json

    data = json.loads((pathlib.Path(__file__).parent / "data" / "published.json").read_text())
    return data[name]
