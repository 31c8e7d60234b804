"""The fields of every request and their checks: which a method takes, which it needs,
their JSON types (agents/frontends/seat/seat_schema.json says the same), and the checks of
values the methods share (a seed, a language).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping

from kocka.agents.frontends.seat.encoding import ProtocolError, json_type, show
from kocka.solver.rules.words import LANGUAGES

MAX_SEED = 2**63 - 1
"""The largest ``seed`` a request may carry."""


@dataclass(frozen=True)
class Field:
    """One request field: its JSON ``kind`` and whether it must be present."""

    kind: str
    required: bool = False

    CHECKS: ClassVar[Mapping[str, Callable[[Any], bool]]] = {
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
    }

    def check(self, name: str, value: Any) -> None:
        if not self.CHECKS[self.kind](value):
            raise ProtocolError("invalid_request", f"field {name!r} must be a JSON {self.kind}, got {json_type(value)} {show(value)}")


ENVELOPE = ("id", "method")
_GAME = {"game": Field("string", True), "rules": Field("object"), "players": Field("integer")}
_STATEFUL = {"game": Field("string"), "rules": Field("object"), "players": Field("integer"), "state": Field("object", True)}
_AGENT = {"agent": Field("string"), "seed": Field("integer")}

REQUEST_FIELDS: dict[str, dict[str, Field]] = {
    "hello": {"client": Field("string")},
    "new": dict(_GAME),
    "legal": {**_STATEFUL, "lang": Field("string")},
    "apply": {**_STATEFUL, "action": Field("object"), "outcome": Field("array")},
    "choose": {**_STATEFUL, **_AGENT},
    "rank": {**_STATEFUL, **_AGENT, "lang": Field("string")},
    "score": {**_GAME, "dice": Field("array", True), "box": Field("string"), "first_throw": Field("boolean")},
    "distribution": {**_STATEFUL, "seat": Field("integer")},
    "advice": {**_STATEFUL, **_AGENT, "lang": Field("string"), "top": Field("integer")},
    "quit": {},
}
"""Method -> its fields besides ``id`` and ``method`` (agents/frontends/seat/seat_schema.json says the same)."""


def check_fields(method: str, request: Mapping[str, Any]) -> None:
    """Raise ``invalid_request`` for a missing, unknown or wrongly typed field."""
    fields = REQUEST_FIELDS[method]
    unknown = sorted(k for k in request if k not in fields and k not in ENVELOPE)
    if unknown:
        raise ProtocolError("invalid_request", f"{method}: unknown field(s) {show(unknown)}; fields: {sorted(fields)!r}")
    for name, spec in fields.items():
        if name in request:
            spec.check(name, request[name])
        elif spec.required:
            raise ProtocolError("invalid_request", f"{method}: missing field {name!r}")


def request_lang(request: Mapping[str, Any]) -> str | None:
    """The ``lang`` of a request (None: the game's own language), checked."""
    lang = request.get("lang")
    if lang is not None and lang not in LANGUAGES:
        raise ProtocolError("invalid_request", f"'lang' must be one of {', '.join(LANGUAGES)}, got {show(lang)}")
    return lang
