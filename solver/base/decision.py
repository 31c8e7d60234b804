"""The decision record: what solvers hand upwards, one ranked legal action.

The lowest floor beside dice, errors and tables, so that solvers, bots and front ends
share the type without importing one another (how a table is built: `build_options`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass(frozen=True)
class Decision:
    """One legal action with the value the ranking agent optimises (best first lists)."""

    action: Any
    value: float
    label: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
