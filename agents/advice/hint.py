"""Hints: "what is the best action here, and how much worse are the others?"

A game's spec names its hint function (``GameSpec.hint``), which turns
:class:`HintParams` (what a person types) into a :class:`HintReport` (the position it
understood, and every legal action with its value, best first). This module only
dispatches and renders; the values come from the solvers' tables.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from kocka.solver.base.errors import RulesError
from kocka.solver.base.decision import Decision
from kocka.solver.rules import Game, game_specs, resolve


@dataclass(frozen=True)
class HintParams:
    """Everything ``kocka hint`` accepts; each game uses the fields that apply to it."""

    dice: tuple[int, ...] | None = None
    roll: int | None = None            # scorecard games: throws made so far this turn (1..3)
    card: Any = None                   # scorecard games: filled boxes as JSON
    state: Any = None                  # any game: a full state document (docs/STATE.md)
    score: int | None = None           # kocka: my banked score
    opponent: int | None = None        # kocka: opponent's banked score
    turn_total: int | None = None      # kocka: points set aside this turn
    dice_left: int | None = None       # kocka: dice that were rolled for --dice
    cache_dir: str | None = None
    build_missing: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HintReport:
    """The position as understood, and the ranked actions (best first)."""

    position: str
    value_name: str                   # e.g. "expected final score", "P(win)"
    decisions: Sequence[Decision]
    notes: Sequence[str] = ()
    columns: Sequence[str] = ()       # detail keys shown as more columns (e.g. the expected score)

    def to_json(self) -> dict:
        best = self.decisions[0].value if self.decisions else None
        return {
            "position": self.position,
            "value": self.value_name,
            "actions": [
                {"action": d.label, "value": d.value, "loss": None if best is None else best - d.value,
                 **({"detail": dict(d.detail)} if d.detail else {})}
                for d in self.decisions
            ],
            "notes": list(self.notes),
        }


def games_with_hints() -> tuple[str, ...]:
    return tuple(spec.name for spec in game_specs() if spec.hint is not None)


def hint(game: Game, params: HintParams) -> HintReport:
    reference = game.spec().hint
    if reference is None:
        raise RulesError(f"no hints for {game.spec().title} yet; hints exist for {', '.join(games_with_hints())}")
    fn: Callable[[Game, HintParams], HintReport] = resolve(reference)
    return fn(game, params)


def render(report: HintReport, top: int | None = None, as_json: bool = False) -> str:
    if as_json:
        return json.dumps(report.to_json())
    lines = [report.position, ""]
    decisions = list(report.decisions)[: top or None]
    if not decisions:
        return "\n".join(lines + ["no legal action"])
    best = decisions[0].value
    width = max(len(d.label) for d in decisions)
    extra = "".join(f"  {c:>22}" for c in report.columns)
    lines.append(f"  {'action':<{width}}  {report.value_name:>22}  {'loss vs best':>12}{extra}")
    for i, d in enumerate(decisions):
        mark = "*" if i == 0 else " "
        cells = "".join(f"  {_cell(d.detail.get(c) if d.detail else None):>22}" for c in report.columns)
        lines.append(f"{mark} {d.label:<{width}}  {d.value:>22.4f}  {best - d.value:>12.4f}{cells}")
    hidden = len(report.decisions) - len(decisions)
    if hidden > 0:
        lines.append(f"  ... {hidden} more (use --top 0 for all)")
    lines.extend(report.notes)
    return "\n".join(lines)


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.4f}" if isinstance(value, float) else str(value)
