"""The seat's fast yes/no of the schema (agents/frontends/seat/acceptor.py) against the
authority, the ``jsonschema`` validator of agents/frontends/seat/schema.py: on every
game's state documents and every method's requests, mutated by the schema-directed
fuzzer of test_seat_schema_fuzz.py and by random edits (values of every JSON type,
``0``/``0.0``/``false`` confusions, fields removed and added, arrays lengthened and
shortened), the two say valid for the same values; and the seat's answers are the ones
the validator alone gives. Also the engine's ``types_checked`` read of a state document
(solver/rules/base.py) and the JSON loader's fast path for integers (solver/base/jsonio.py).
"""
from __future__ import annotations

import copy
import json
import random
from typing import Any, Iterator

import pytest

from seat_requests import first_move, request_body
from test_seat_schema_fuzz import mutations, positions
from kocka.agents.frontends.seat import schema
from kocka.agents.frontends.seat.acceptor import Unsupported, compile_acceptor
from kocka.agents.frontends.seat.encoding import ProtocolError
from kocka.agents.frontends.seat.protocol import Seat
from kocka.solver.base import jsonio
from kocka.solver.base.errors import InvalidStateError
from kocka.solver.rules import game_names, get_game

EDITS_PER_DOCUMENT = 40
"""Random edits tried per state document and per request (seeded: the test stays fast)."""
MUTATIONS_PER_DOCUMENT = 80
"""Schema-directed mutations tried per state document (sampled with the test's seed)."""
CONFUSABLE = [0, 0.0, False, 1, 1.0, True, -1, 7, 2**40, 1.5, "x", "", None, [], {}, [1, 2, 3, 4, 5], [None], {"a": [1]},
              "kockapoker", "kocka.state/1", "hu", "optimal"]
"""Replacement values: every JSON type, the forms Python takes as equal (0, 0.0, false),
and strings the schema does know (a game, the state schema, a language, an agent)."""


def _paths(value: Any, path: tuple = ()) -> Iterator[tuple]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, path + (index,))


def _edited(value: Any, rng: random.Random) -> Any:
    """``value`` with one to three random edits somewhere inside it."""
    value = copy.deepcopy(value)
    for _edit in range(rng.randint(1, 3)):
        path = rng.choice(list(_paths(value)))
        if not path:
            continue
        parent = value
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        edit = rng.randrange(5)
        if edit == 0 and isinstance(parent, dict):
            del parent[last]
        elif edit == 1 and isinstance(parent, dict):
            parent["zz_" + str(rng.randrange(3))] = rng.choice(CONFUSABLE)
        elif edit == 2 and isinstance(parent[last], list):
            parent[last] = parent[last] + parent[last][:1] if rng.random() < 0.5 else parent[last][:-1]
        else:
            parent[last] = copy.deepcopy(rng.choice(CONFUSABLE))
    return value


def _agree(definition: str, value: Any, envelope: bool = False) -> None:
    validator = schema.validator(definition, envelope)
    assert schema.acceptor(definition, envelope)(value) is validator.is_valid(value), (definition, value)


def test_every_definition_the_seat_checks_with_compiles() -> None:
    """No request or state schema falls back to the validator alone (a keyword the
    acceptor does not know would make it raise Unsupported, not skip the keyword)."""
    for method in schema.METHODS:
        compile_acceptor(schema.validator(f"request_{method}", envelope=True).schema)
    for name in game_names():
        compile_acceptor(schema.validator(f"state_{name}").schema)


@pytest.mark.parametrize("name", game_names())
def test_the_acceptor_agrees_with_the_validator_on_fuzzed_state_documents(name: str) -> None:
    rng = random.Random(sum(map(ord, name)))  # seeded per game, the same in every process
    definition = f"state_{name}"
    for doc in positions(name):
        _agree(definition, doc)
        found = list(mutations(doc, name))
        for _what, _path, mutated, _forbidden in rng.sample(found, min(len(found), MUTATIONS_PER_DOCUMENT)):
            _agree(definition, mutated)
        for _edit in range(EDITS_PER_DOCUMENT):
            _agree(definition, _edited(doc, rng))


@pytest.mark.parametrize("name", game_names())
def test_the_acceptor_agrees_with_the_validator_on_fuzzed_requests(name: str) -> None:
    rng = random.Random(7 + sum(map(ord, name)))
    doc = positions(name)[-1]
    move = first_move(name, doc)
    for method in schema.METHODS:
        request = request_body(method, doc, move) if "state" in schema.DEFS[f"request_{method}"]["properties"] else {
            "id": "a", "method": method}
        if method in ("new", "score"):
            request.update(game=name, players=1, rules={}, dice=[1, 2, 3, 4, 5])
        request.update(lang=rng.choice(["hu", "pl", "xx", 3]), seed=rng.choice([0, 2**63 - 1, 2**63, -1, 1.0, True]))
        definition = f"request_{method}"
        _agree(definition, request, envelope=True)
        for _edit in range(EDITS_PER_DOCUMENT):
            _agree(definition, _edited(request, rng), envelope=True)


def test_the_seat_answers_as_with_the_validator_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """check_request refuses the same requests with the same code and message whether the
    acceptor or the validator says yes (the acceptor never decides a refusal)."""
    rng = random.Random(11)
    requests = []
    for name in game_names():
        doc = positions(name)[-1]
        for method in ("legal", "choose", "apply"):
            requests += [_edited(request_body(method, doc, first_move(name, doc)), rng) for _i in range(8)]

    def outcomes() -> list:
        found = []
        for request in requests:
            try:
                schema.check_request(request["method"], request)
                found.append(None)
            except ProtocolError as exc:
                found.append((exc.code, str(exc)))
            except (KeyError, TypeError):  # an edit removed or retyped the method itself
                found.append("no method")
        return found

    fast = outcomes()
    monkeypatch.setattr(schema, "acceptor", lambda definition, envelope=False: schema.validator(definition, envelope).is_valid)
    assert fast == outcomes()
    assert None in fast and any(isinstance(o, tuple) for o in fast)  # both kinds were met


@pytest.mark.parametrize("subschema, value, valid", [
    # JSON Schema 2020-12 (the validation vocabulary, 6.1.1 type) with the seat's strict integer
    ({"type": "integer"}, 1, True),
    ({"type": "integer"}, True, False),  # a boolean is no integer
    ({"type": "integer"}, 1.0, False),  # the seat's integer is a JSON integer only
    ({"type": "number"}, 1.5, True),
    ({"type": "number"}, False, False),
    ({"const": True}, 1, False),  # 6.1.3 const: true and 1 are different JSON values
    ({"const": True}, True, True),
    ({"enum": ["a", "b"]}, "b", True),
    ({"enum": ["a", "b"]}, ["a"], False),
    ({"minimum": 2}, "x", True),  # 6.2.4: bounds apply to numbers only
    ({"maxItems": 1}, {"a": 1, "b": 2}, True),  # 6.4.1: to arrays only
    ({"required": ["a"]}, [1], True),  # 6.5.3: to objects only
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, 3, False),  # valid under both: not exactly one
    ({"oneOf": [{"type": "integer"}, {"minimum": 0}]}, -3, True),
    ({"anyOf": [{"type": "null"}, {"type": "string"}]}, 0, False),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}, {"a": "x", "b": 1}, True),
    ({"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "integer"}}, {"a": "x", "b": "y"}, False),
    ({"additionalProperties": False, "properties": {"a": {}}}, {"a": 0, "b": 0}, False),
    ({"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 6}}, [1, 6, 7], False),
    (False, None, False),
])
def test_each_keyword_means_what_the_standard_says(subschema: Any, value: Any, valid: bool) -> None:
    assert compile_acceptor(subschema)(value) is valid
    assert schema.StrictValidator(subschema).is_valid(value) is valid  # the authority agrees


@pytest.mark.parametrize("subschema", [{"pattern": "^a"}, {"const": 1}, {"enum": [1, "a"]}, {"type": "integer", "multipleOf": 2},
                                       {"items": [{"type": "integer"}]}, {"type": "whole"}])
def test_a_keyword_it_does_not_compile_is_refused(subschema: Any) -> None:
    with pytest.raises(Unsupported):
        compile_acceptor(subschema)


def test_a_state_read_with_types_checked_is_remembered_by_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game.state_from_json checks a state in full every time unless the caller says the
    schema checked the document's types (the seat does, for the requests it has checked);
    a document with ``0.0`` for an integer is refused by the default read even after the
    integer form was found valid (RULES.md HU-3: the seat to move is a player number)."""
    game = get_game("kockapoker")
    doc = positions("kockapoker")[1]
    calls = []
    check = game._check_state
    monkeypatch.setattr(game, "_check_state", lambda state: (calls.append(state), check(state))[1])
    state = game.state_from_json(doc)
    assert game.state_from_json(doc, types_checked=True) == state
    assert len(calls) == 1  # the second read: the memo answered
    game.state_from_json(doc)
    assert len(calls) == 2  # the default read: in full again
    confused = json.loads(json.dumps(doc))
    confused["state"]["player"] = 0.0
    with pytest.raises(InvalidStateError):
        game.state_from_json(confused)


def test_the_seat_reads_a_state_its_schema_checked_with_the_engine_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    seat = Seat()
    doc = positions("yatzy")[1]
    game = seat.game("yatzy", doc.get("rules"), doc.get("players"))
    calls = []
    check = game._check_state
    monkeypatch.setattr(game, "_check_state", lambda state: (calls.append(state), check(state))[1])
    game.__dict__.pop("_checked_states", None)
    request = {"id": 1, "method": "legal", "state": doc}
    first, second = seat.handle(dict(request)), seat.handle(dict(request))
    assert "result" in first and first == second
    assert len(calls) == 1
    confused = json.loads(json.dumps(doc))
    confused["state"]["player"] = 0.0
    assert seat.handle({"id": 2, "method": "legal", "state": confused})["error"]["code"] == "illegal_state"


@pytest.mark.parametrize("text, expected", [
    ('{"seed": 9223372036854775807, "dice": [1, 2]}', {"seed": 2**63 - 1, "dice": [1, 2]}),
    ("[" + "9" * jsonio.MAX_INT_DIGITS + "]", [10**jsonio.MAX_INT_DIGITS - 1]),  # the longest integer accepted
    ('["' + "7" * 100 + '", -3]', ["7" * 100, -3]),  # a long run of digits in a string is no integer
    ('["\u0663\u0663", 1.5]', ["\u0663\u0663", 1.5]),  # Arabic-Indic digits are text
])
def test_the_json_loader_reads_integers_as_json_loads_does(text: str, expected: Any) -> None:
    assert jsonio.loads(text) == expected == json.loads(text)
    assert [type(v) for v in jsonio.loads(text)] == [type(v) for v in json.loads(text)]


@pytest.mark.parametrize("text", ["[" + "9" * (jsonio.MAX_INT_DIGITS + 1) + "]",
                                  '{"a": "x", "b": -' + "1" * (jsonio.MAX_INT_DIGITS + 1) + "}"])
def test_the_json_loader_still_refuses_an_integer_over_the_limit(text: str) -> None:
    with pytest.raises(jsonio.JSONLimitError, match=f"{jsonio.MAX_INT_DIGITS + 1} digits"):
        jsonio.loads(text)


def test_the_json_loader_refuses_a_byte_order_mark_as_json_loads_does() -> None:
    with pytest.raises(json.JSONDecodeError) as plain:
        json.loads("\ufeff[1]")
    with pytest.raises(jsonio.JSONInputError, match="BOM") as ours:
        jsonio.loads("\ufeff[1]")
    assert str(plain.value) in str(ours.value)
