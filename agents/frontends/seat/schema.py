"""The seat's strict reader of requests and state documents: the published schema
(agents/frontends/seat/seat_schema.json) validated with the ``jsonschema`` library before
a handler or an engine sees a value.

Every request is checked against its method's ``request_<method>`` definition, and the
state document it carries against its game's ``state_<game>`` definition (the schema of
each game's ``state`` object is ``state_body_<game>``): every field's JSON type, range,
array length and enumerated values, unknown fields where the readers refuse them. JSON
types are taken strictly: ``false`` and ``0.0`` are not integers (Python takes
``0 == 0.0 == False``; the standard checker also takes ``1.0`` for an integer), and
``true`` is not ``1`` in an ``enum`` or ``const``. A value is first put to the schema
compiled into a yes/no function (:func:`acceptor`, :mod:`.acceptor`); only a value it
refuses is walked by the validator, which names what is wrong.

What the schema cannot say, because it depends on the rules or the player count (a card
of as many seats as players, entries a box can hold, a position the rules can reach), the
engine checks after it (:meth:`Game.state_from_json <kocka.solver.rules.base.Game.state_from_json>`).

A refusal is one line naming the field's path (``state.state.player``) and what is wrong,
with the code of the field: ``illegal_state`` inside a state document, ``bad_dice`` inside
the dice of ``score``, ``illegal_action`` inside an action, else ``invalid_request`` (also
for a state, dice or action field that is not even of its JSON type).
"""
from __future__ import annotations

import functools
import json
import pathlib
from typing import Any, Callable, Iterable, Mapping

import jsonschema
from jsonschema.exceptions import ValidationError

from kocka.agents.frontends.seat.acceptor import Unsupported, compile_acceptor
from kocka.agents.frontends.seat.encoding import ProtocolError, json_type, show
from kocka.solver.base.i18n import _
from kocka.solver.rules import game_names

SCHEMA_PATH = pathlib.Path(__file__).with_name("seat_schema.json")
SCHEMA: dict = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
"""The published schema of the protocol (requests, responses, every game's state document)."""
DEFS: dict = SCHEMA["$defs"]

METHODS: tuple[str, ...] = tuple(ref["$ref"].rsplit("_", 1)[-1] for ref in DEFS["request"]["oneOf"])
"""The methods, in the order the schema lists them (``hello``'s ``methods``)."""

FIELD_CODES = {"state": "illegal_state", "dice": "bad_dice", "action": "illegal_action"}
"""The error code of a value inside a request field (the field itself of the wrong JSON type
is ``invalid_request``)."""
HANDLER_CHECKS = {("game",): "enum"}
"""Schema failures the handlers answer with a code of their own: a game name that is not
ours (``unknown_game``; ``not_supported`` for ``score`` of a game without boxes). A state
document naming no game of ours is not read with a schema (:func:`state_game`): the
handler answers it (``unknown_game``, or ``illegal_state`` for a name that is no string)."""


def _strict_integer(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer),
)
"""Draft 2020-12 with ``integer`` meaning a JSON integer only (not ``1.0``, not ``true``)."""


def _envelope_defs() -> dict:
    """The definitions with each request's ``state`` as a bare object: a state document is
    checked on its own, against its game's schema, so that a refusal names the field that
    is wrong rather than "none of the eleven games"."""
    defs = dict(DEFS)
    for method in METHODS:
        request = defs[f"request_{method}"]
        if "state" in request["properties"]:
            defs[f"request_{method}"] = {**request, "properties": {**request["properties"], "state": {"type": "object"}}}
    return defs


def _inlined(schema: Any, defs: Mapping[str, Any]) -> Any:
    """``schema`` with every ``$ref`` replaced by its definition (the seat schema has no
    cycles): following references costs jsonschema half of its time on a state document."""
    if isinstance(schema, dict):
        inlined = {k: _inlined(v, defs) for k, v in schema.items() if k != "$ref"}
        if "$ref" in schema:
            return {**_inlined(defs[schema["$ref"].rsplit("/", 1)[-1]], defs), **inlined}
        return inlined
    if isinstance(schema, list):
        return [_inlined(v, defs) for v in schema]
    return schema


@functools.lru_cache(maxsize=None)
def validator(definition: str, envelope: bool = False) -> Any:
    """A strict validator of ``$defs/<definition>`` (``envelope``: of a request without
    its state document), made once."""
    defs = _envelope_defs() if envelope else DEFS
    if definition not in defs:
        raise KeyError(f"the seat schema has no definition {definition!r}")
    return StrictValidator(_inlined(defs[definition], defs))


@functools.lru_cache(maxsize=None)
def acceptor(definition: str, envelope: bool = False) -> Callable[[Any], bool]:
    """Whether a value is valid against :func:`validator`'s schema, compiled once
    (:mod:`.acceptor`): the validator walks its schema for every value, this costs a few
    microseconds. A value it refuses is read by the validator for its error; a schema
    it cannot compile is answered by the validator alone."""
    checker = validator(definition, envelope)
    try:
        return compile_acceptor(checker.schema)
    except Unsupported:
        return checker.is_valid


def check_request(method: str, request: Mapping[str, Any]) -> None:
    """Raise :class:`ProtocolError` for the first thing in ``request`` that its method's
    schema, or its state document's game schema, refuses."""
    definition = f"request_{method}"
    error = None
    if not acceptor(definition, envelope=True)(request):
        error = _first(validator(definition, envelope=True).iter_errors(request), ())
    if error is None and isinstance(request.get("state"), Mapping):
        name = state_game(request)
        if name is not None:
            error = _state_error(name, request["state"])
    if error is not None:
        raise ProtocolError(_code(error), message(error, method))


def _state_error(name: str, document: Mapping[str, Any]) -> ValidationError | None:
    """The first error of ``document`` against game ``name``'s schema, None when it is
    valid (checked in full every time: an answer never depends on the requests before it)."""
    definition = f"state_{name}"
    return None if acceptor(definition)(document) else _first(validator(definition).iter_errors(document), ("state",))


def state_game(request: Mapping[str, Any]) -> str | None:
    """The game whose schema a request's state document is read with: the document's own
    game when it names one of ours, else the request's; None when neither does (the
    handler then says what is wrong with the name)."""
    for name in (request["state"].get("game"), request.get("game")):
        if isinstance(name, str) and name in game_names():
            return name
    return None


def _first(errors: Iterable[ValidationError], prefix: tuple) -> ValidationError | None:
    """The error to answer: the first the handlers do not answer themselves, made as
    precise as its alternatives allow (:func:`_narrowed`)."""
    for error in errors:
        error = _narrowed(error)
        path = prefix + tuple(error.absolute_path)
        if HANDLER_CHECKS.get(path) == error.validator:
            continue
        if prefix:
            error.path.extendleft(reversed(prefix))
        return error
    return None


def _narrowed(error: ValidationError) -> ValidationError:
    """Of an ``anyOf``/``oneOf`` failure, the failure inside the one alternative of the
    value's own JSON type (``dice: [1, 9]`` is a list that is not dice, not "not null"),
    repeated inwards; the failure itself when no single alternative fits."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        by_alternative: dict[int, list[ValidationError]] = {}
        for inner in error.context:
            by_alternative.setdefault(inner.relative_schema_path[0], []).append(inner)
        fitting = [errs for errs in by_alternative.values() if not _fails_at_root(errs, ("type", "const", "enum"))]
        if len(fitting) > 1:  # objects of several shapes: the one whose keys fit (a liar's poker hand, not dice)
            fitting = [errs for errs in fitting if not _fails_at_root(errs, ("required", "additionalProperties"))]
        if len(fitting) != 1:
            break
        inner = fitting[0][0]
        # the inner error's path is relative to the alternative: make it absolute
        inner.path.extendleft(reversed(error.absolute_path))
        inner.parent = None
        error = inner
    return error


def _fails_at_root(errors: list[ValidationError], validators: tuple[str, ...]) -> bool:
    """Whether one of an alternative's ``errors`` is a failure of ``validators`` at the value itself."""
    return any(e.validator in validators and not e.relative_path for e in errors)


def _code(error: ValidationError) -> str:
    path = tuple(error.absolute_path)
    code = FIELD_CODES.get(path[0]) if path else None
    if code is None or (len(path) == 1 and error.validator == "type"):
        return "invalid_request"
    return code


def _resolve(schema: Any) -> dict:
    """A subschema with its ``$ref`` followed (its own keywords win)."""
    if not isinstance(schema, dict):
        return {}
    while "$ref" in schema:
        target = DEFS[schema["$ref"].rsplit("/", 1)[-1]]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def expected(schema: Any) -> str:
    """What ``schema`` wants, in words: "an integer from 0 to 5", "null or an array of 5 items"."""
    schema = _resolve(schema)
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return _("one of {values}", values=", ".join(json.dumps(v) for v in schema["enum"]))
    for keyword in ("anyOf", "oneOf"):
        if keyword in schema:
            return _(" or ").join(dict.fromkeys(expected(alternative) for alternative in schema[keyword]))
    kinds = schema.get("type")
    if kinds is None:
        return _("a JSON value")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return _(" or ").join(_kind_words(kind, schema) for kind in kinds)


def _kind_words(kind: str, schema: dict) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if kind == "integer":
        if low is not None and high is not None:
            return _("an integer from {low} to {high}", low=low, high=high)
        if low is not None:
            return _("an integer of at least {low}", low=low)
        return _("an integer of at most {high}", high=high) if high is not None else _("an integer")
    if kind == "array":
        fewest, most = schema.get("minItems"), schema.get("maxItems")
        if fewest is not None and fewest == most:
            return _("an array of {n} items", n=fewest)
        if fewest is not None and most is not None:
            return _("an array of {fewest} to {most} items", fewest=fewest, most=most)
        if most is not None:
            return _("an array of at most {most} items", most=most)
        return _("an array of at least {fewest} items", fewest=fewest) if fewest else _("an array")
    return {"null": "null", "boolean": _("a boolean"), "number": _("a number"), "string": _("a string"),
            "object": _("an object")}.get(kind, kind)


def path_text(path: Iterable[Any]) -> str:
    """``("state", "cards", 0, "entries")`` -> ``state.cards[0].entries``."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def message(error: ValidationError, where: str, prefix: tuple = ()) -> str:
    """One line: the field's path and what is wrong with it (``where``, the method or the
    game, names the request's top level)."""
    path = prefix + tuple(error.absolute_path)
    # a request field by its name in quotes, as the other refusals name it; a value deeper
    # in a document by its path
    field = show(path[0]) if len(path) == 1 else path_text(path) or where
    value = error.instance
    if error.validator == "required":
        missing = [name for name in error.validator_value if not (isinstance(value, Mapping) and name in value)]
        return _("{where}: missing field {field}", where=field, field=show(missing[0] if missing else error.validator_value))
    if error.validator == "additionalProperties":
        known = sorted(_resolve(error.schema).get("properties", {}))
        unknown = sorted(k for k in value if k not in known)
        return _("{where}: unknown field(s) {unknown}; fields: {known}", where=field, unknown=show(unknown), known=show(known, 400))
    if error.validator == "oneOf" and all("required" in _resolve(s) for s in error.validator_value):
        choices = _(" or ").join(show(_resolve(s)["required"][0]) for s in error.validator_value)
        return _("{where}: needs exactly one of {choices}", where=field, choices=choices)
    if error.validator in ("minItems", "maxItems"):
        return _("{field} must be {expected}, got {n} items", field=field, expected=expected(error.schema), n=len(value))
    return _("{field} must be {expected}, got {kind} {value}", field=field, expected=expected(error.schema),
             kind=json_type(value), value=show(value))


__all__ = ["DEFS", "METHODS", "SCHEMA", "SCHEMA_PATH", "StrictValidator", "acceptor", "check_request", "expected", "message",
           "path_text", "state_game", "validator"]
