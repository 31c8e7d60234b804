"""The fields of every request: which a method takes and which it needs, read from the
published schema (agents/frontends/seat/seat_schema.json, ``request_<method>``), and the
check of a request against it (:func:`check_fields`, by :mod:`.schema`: types, ranges,
unknown and missing fields, the state document of the request's game).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from kocka.agents.frontends.seat.schema import DEFS, METHODS, check_request

ENVELOPE = ("id", "method")
MAX_SEED: int = DEFS["seed"]["maximum"]
"""The largest ``seed`` a request may carry."""


@dataclass(frozen=True)
class Field:
    """One request field: its schema definition and whether it must be present."""

    schema: Mapping[str, Any]
    required: bool = False


def _fields(method: str) -> dict[str, Field]:
    definition = DEFS[f"request_{method}"]
    return {name: Field(schema, name in definition.get("required", ()))
            for name, schema in definition["properties"].items() if name not in ENVELOPE}


REQUEST_FIELDS: dict[str, dict[str, Field]] = {method: _fields(method) for method in METHODS}
"""Method -> its fields besides ``id`` and ``method``, as the schema has them."""


class SchemaChecked(dict):
    """A request that its method's schema accepted, its state document included (the
    document's own game's schema), JSON types taken strictly: what a handler may rely on
    without checking again (:meth:`Game.state_from_json
    <kocka.solver.rules.base.Game.state_from_json>`'s ``types_checked``)."""


def check_fields(method: str, request: Mapping[str, Any]) -> SchemaChecked:
    """``request`` marked as checked; raise
    :class:`~kocka.agents.frontends.seat.encoding.ProtocolError` for a missing, unknown,
    wrongly typed or out-of-range field, or a state document its game's schema refuses
    (:func:`kocka.agents.frontends.seat.schema.check_request`)."""
    check_request(method, request)
    return SchemaChecked(request)


def request_lang(request: Mapping[str, Any]) -> str | None:
    """The ``lang`` of a request (None: the game's own language); the schema checked it."""
    return request.get("lang")
