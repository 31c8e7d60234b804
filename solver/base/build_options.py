"""How a value table is to be built: worker count, joblib backend, progress display.

Its own module on the lowest floor so that the store, the solvers and the front ends share
the type without importing one another (the decision record lives in `decision`).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BuildOptions:
    """How to build: joblib worker count and backend, progress display."""

    jobs: int = 1
    backend: str = "loky"
    progress: bool = True
