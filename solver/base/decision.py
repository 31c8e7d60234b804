"""What solvers hand upwards: a ranked action, and how a table is to be built.

The lowest floor beside dice, errors and tables, so that solvers, bots and front ends
share these types without importing one another.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class BuildOptions:
    """How to build: joblib worker count and backend, progress display."""

    jobs: int = 1
    backend: str = "loky"
    progress: bool = True


@dataclass(frozen=True)
class Decision:
    """One legal action with the value the ranking agent optimises (best first lists)."""

    action: Any
    value: float
    label: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
