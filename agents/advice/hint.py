"""Hints: "what is the best action here, and how much worse are the others?"

A game's spec names its hint function (``GameSpec.hint``), which turns the game's hint
parameters (what a person types) into a :class:`HintReport` (the position it understood,
and every legal action with its value, best first), and the class of those parameters
(``GameSpec.hint_parameters``): a :class:`HintParams` dataclass whose fields made with
:func:`hint_option` declare the options of ``kocka hint GAME``. This module only
declares, dispatches and renders; the values come from the solvers' tables.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Mapping, Sequence

from kocka.agents.bots.fallback import StandIn
from kocka.solver.base.errors import RulesError
from kocka.solver.base.decision import Decision
from kocka.solver.base.i18n import N_, _, ngettext, number
from kocka.solver.rules import Game, GameSpec, game_specs, resolve
from kocka.solver.rules.words import game_title


@dataclass(frozen=True)
class HintParams:
    """What every game's hint takes: a whole state document (instead of the options of
    the game's own parameters, a subclass of this), and where the value tables are.

    A plain ``HintParams`` asks any game's hint about ``state``; :func:`hint` hands the
    game's hint its own parameters class with these fields."""

    state: Any = None                  # a full state document (docs/STATE.md)
    cache_dir: str | None = None
    build_missing: bool = False


@dataclass(frozen=True)
class HintOption:
    """How one field of a game's hint parameters is offered as an option of ``kocka hint
    GAME``: ``help`` is what ``--help`` prints; ``type`` what the option reads (``int``
    or ``str``), ``nargs`` how many values; ``flag`` its spelling when not ``--`` and the
    field's name with dashes; ``parse`` turns what was read into the field's value (it
    raises :class:`~kocka.solver.base.errors.KockaError` on bad text); ``rest``: the
    loose values after the option belong to it too (``--dice 1 1 3 4 6``)."""

    help: str
    type: type = str
    nargs: int = 1
    flag: str | None = None
    parse: Callable[[Any], Any] | None = None
    rest: bool = False
    metavar: str | None = None

    def spelling(self, field_name: str) -> str:
        """The option as typed: ``flag``, or ``--dice-left`` for field ``dice_left``."""
        return self.flag or "--" + field_name.replace("_", "-")


_OPTION = "kocka.hint_option"


def hint_option(help: str, *, default: Any = None, **how: Any) -> Any:
    """A field of a game's hint parameters that ``kocka hint GAME`` offers as an option
    (:class:`HintOption` says how); ``default`` is the field's value when not given."""
    return field(default=default, metadata={_OPTION: HintOption(help, **how)})


def declared_options(params_class: type[HintParams]) -> list[tuple[str, HintOption]]:
    """The fields of ``params_class`` that are options, in field order, with their option."""
    return [(f.name, f.metadata[_OPTION]) for f in fields(params_class) if _OPTION in f.metadata]


def parameters_class(spec: GameSpec) -> type[HintParams]:
    """The class of the hint parameters of the game of ``spec`` (:class:`HintParams` for a
    game without hints: only the state document)."""
    return HintParams if spec.hint_parameters is None else resolve(spec.hint_parameters)


def parse_options(params_class: type[HintParams], values: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``params_class`` from the values of its options as they were read
    (``None`` or absent: not given), each through its option's ``parse``."""
    parsed = {}
    for name, option in declared_options(params_class):
        value = values.get(name)
        if value is not None:
            parsed[name] = value if option.parse is None else option.parse(value)
    return parsed


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
    """The hint of ``game`` for ``params``: the game's own parameters class, or a plain
    :class:`HintParams` (a state document), which becomes that class."""
    spec = game.spec()
    if spec.hint is None:
        raise RulesError(_("no hints for {game} yet; hints exist for {games}", game=game_title(spec.name),
                           games=", ".join(games_with_hints())))
    wanted = parameters_class(spec)
    if type(params) is HintParams:
        params = wanted(**{f.name: getattr(params, f.name) for f in fields(HintParams)})
    elif not isinstance(params, wanted):
        raise RulesError(f"the {spec.title} hint takes {wanted.__name__}, got {type(params).__name__}")
    fn: Callable[[Game, HintParams], HintReport] = resolve(spec.hint)
    return fn(game, params)


VALUE_WORDS = {
    "expected final score": N_("expected final score"), "expected final total": N_("expected final total"),
    "expected total": N_("expected total"), "expected points this turn": N_("expected points this turn"),
    "ev": N_("expected points this turn"), "reach_target": N_("chance to bank what is still needed"),
    "P(win)": N_("chance of winning"), "P(win the match) vs equilibrium": N_("chance of winning the match"),
    "expected chips this round vs equilibrium": N_("expected chips this round"),
    "expected chips vs equilibrium": N_("expected chips"), "expected chips": N_("expected chips"),
    "points over par": N_("points over par"), "rule choice (1 = chosen)": N_("rule choice (1 = chosen)"),
    "P(chosen)": N_("chance of being chosen"),
}
"""What a value (a judge's ``value_name``, or a detail shown as a column) is called, in words."""
_TARGET = re.compile(r"P\(final >= (\d+)\)")


def value_words(value_name: str) -> str:
    """``value_name`` (``"P(win)"``, ``"expected final score"``, ``"P(final >= 250)"``) as a
    player reads it in the language in force; a name not known here is shown as it is."""
    target = _TARGET.fullmatch(value_name)
    if target:
        return _("chance of reaching {target}", target=target.group(1))
    return _(VALUE_WORDS[value_name]) if value_name in VALUE_WORDS else value_name


def is_probability(value_name: str) -> bool:
    """Whether values called ``value_name`` are chances (shown as percentages in words)."""
    return value_name.startswith("P(") or value_name == "reach_target"


def render(report: HintReport, top: int | None = None, as_json: bool = False) -> str:
    """The hint as a table, in the language in force: the position, every action with its
    value and its loss against the best, then the notes (``as_json``: the report's JSON)."""
    if as_json:
        return json.dumps(report.to_json())
    lines = [report.position, ""]
    decisions = list(report.decisions)[: top or None]
    if not decisions:
        return "\n".join(lines + [_("no legal action")])
    best = decisions[0].value
    heads = [_("action"), value_words(report.value_name), _("loss vs best"), *(value_words(c) for c in report.columns)]
    width = max(len(heads[0]), *(len(d.label) for d in decisions))
    cells = [max(22, len(h)) for h in heads[1:]]
    cells[1] = max(12, len(heads[2]))
    extra = "".join(f"  {h:>{w}}" for h, w in zip(heads[3:], cells[2:]))
    lines.append(f"  {heads[0]:<{width}}  {heads[1]:>{cells[0]}}  {heads[2]:>{cells[1]}}{extra}")
    for i, d in enumerate(decisions):
        mark = "*" if i == 0 else " "
        more = "".join(f"  {_cell(d.detail.get(c) if d.detail else None):>{w}}" for c, w in zip(report.columns, cells[2:]))
        lines.append(f"{mark} {d.label:<{width}}  {number(d.value, 4):>{cells[0]}}  {number(best - d.value, 4):>{cells[1]}}{more}")
    hidden = len(report.decisions) - len(decisions)
    if hidden > 0:
        lines.append("  " + ngettext("... {n} more (use --top 0 for all)", "... {n} more (use --top 0 for all)", hidden))
    lines.extend(report.notes)
    return "\n".join(lines)


def _cell(value: Any) -> str:
    return "-" if value is None else number(value, 4) if isinstance(value, float) else str(value)


def points_instead_line(stand_in: StandIn) -> str:
    """The line of a play-to-win hint that ranks by points because the target table is
    not here (:func:`kocka.agents.bots.fallback.points_instead`): what "play to win" needs,
    in one sentence in the language in force."""
    return _("no target table here, so these moves are ranked by points (the expected final score), not by the "
             "chance of winning; to play to win, build the target table once: {command}", command=stand_in.build)


def or_list(items: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c`` in the language in force."""
    if len(items) <= 1:
        return "".join(items)
    return _("{items} or {last}", items=", ".join(items[:-1]), last=items[-1])
