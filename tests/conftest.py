"""Shared test helpers."""
from __future__ import annotations

import pathlib

import pytest

RULES_MD = pathlib.Path(__file__).resolve().parents[2] / "shared" / "RULES.md"


@pytest.fixture
def rng():
    import random

    return random.Random(12345)
