"""Shared test helpers."""
from __future__ import annotations

import pathlib

import pytest

RULES_MD = pathlib.Path(__file__).resolve().parents[2] / "shared" / "RULES.md"


@pytest.fixture
def rng():
    import random

    return random.Random(12345)


def published(name: str) -> dict:
    """A figure from tests/data/published.json (shared/PUBLISHED.md, with its source)."""
    import json

    data = json.loads((pathlib.Path(__file__).parent / "data" / "published.json").read_text())
    return data[name]
