"""A fuzzer derived from the published state schema (issue 24: one strict state reader per
game, from the schema; agents/frontends/seat/seat_schema.json).

For valid state documents of every game (positions of a seeded engine game), this test
walks the game's schema (``$defs/state_<game>``) beside the document with its own small
reader of the schema (not the seat's), and makes the mutations the schema decides:
every field removed, every value given each JSON type (null, boolean, integer, number,
string, array, object), every numeric bound reached and crossed (minimum - 1, maximum + 1), every
array one item shorter and longer, one unknown field in every object. Each mutated state
goes through :meth:`Seat.handle` with a method of the protocol; the answer is never
``internal_error`` nor a multi-line message (a traceback); where the schema itself
forbids the mutation the answer is a refusal that names the field's path, with
``illegal_state`` (the code of everything inside a state document).

Where the schema allows the mutation (an optional field removed, an integer changed
within its range, an extra key where the reader keeps them), the engine decides: then any
answer but ``internal_error`` will do.

And type confusion: the same state with ``0``, ``0.0`` and ``false`` (and ``1``, ``1.0``,
``true``) at one integer field gives, in both orders on one seat, the answer a fresh seat
gives to each alone (issue 24, point 3).
"""
from __future__ import annotations

import copy
import json
import pathlib
import random
from typing import Any, Iterator

import pytest

from seat_requests import first_move, request_body
from kocka.agents.frontends.seat.encoding import json_type  # the JSON name of a value's type
from kocka.agents.frontends.seat.protocol import Seat
from kocka.solver.rules import CHANCE, TERMINAL, game_names, get_game

SCHEMA = json.loads((pathlib.Path(__file__).resolve().parents[1] / "agents" / "frontends" / "seat" / "seat_schema.json").read_text())
DEFS = SCHEMA["$defs"]
MUTATIONS_PER_GAME = 150
"""Mutations tried per game (sampled with a fixed seed from all of them: the test stays fast)."""
CONFUSED_FIELDS_PER_GAME = 3
METHODS = ("legal", "apply", "choose", "rank")
SEAT = Seat()

SAMPLES: dict[str, Any] = {"null": None, "boolean": True, "integer": 7, "number": 1.5, "string": "x", "array": [], "object": {}}
"""One value of each JSON type (an integer field also gets its own value as a float)."""




def resolve(schema: Any) -> dict:
    """A subschema with its ``$ref`` followed (its own keywords win)."""
    while isinstance(schema, dict) and "$ref" in schema:
        schema = {**DEFS[schema["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema if isinstance(schema, dict) else {}


def allowed_types(schema: Any) -> set[str]:
    """The JSON types a subschema lets through (an integer is also a number)."""
    schema = resolve(schema)
    if "const" in schema:
        return {json_type(schema["const"])}
    if "enum" in schema:
        return {json_type(v) for v in schema["enum"]}
    if "anyOf" in schema:
        return set().union(*(allowed_types(s) for s in schema["anyOf"]))
    kinds = schema.get("type")
    if kinds is None:
        return set(SAMPLES)
    kinds = set(kinds if isinstance(kinds, list) else [kinds])
    return kinds | ({"integer"} if "number" in kinds else set())


def branch(schema: Any, value: Any) -> dict:
    """The alternative of an ``anyOf`` that ``value``'s JSON type belongs to."""
    schema = resolve(schema)
    while "anyOf" in schema:
        fits = [s for s in schema["anyOf"] if json_type(value) in allowed_types(s)]
        schema = resolve(fits[0])
    return schema


def example(schema: Any) -> Any:
    """A value of ``schema`` (the smallest), to lengthen an empty array."""
    schema = resolve(schema)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        alternatives = [s for s in schema["anyOf"] if resolve(s).get("type") != "null"]
        return example(alternatives[0])
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "integer":
        return schema.get("minimum", 0)
    if kind == "array":
        return [example(schema.get("items", {})) for _i in range(schema.get("minItems", 0))]
    if kind == "object":
        return {k: example(schema["properties"][k]) for k in schema.get("required", ())}
    return {"string": "x", "boolean": False, "number": 0.0}.get(kind)


def locations(schema: Any, value: Any, path: tuple = (), parent: dict | None = None) -> Iterator[tuple]:
    """(path, the value's declared schema, the branch of it the value's type takes, the
    value, its parent object's schema or None) of every value in a document, walking the
    schema beside it."""
    here = branch(schema, value)
    yield path, schema, here, value, parent
    if isinstance(value, dict):
        for key, item in value.items():
            yield from locations(here.get("properties", {}).get(key, {}), item, path + (key,), here)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from locations(here.get("items", {}), item, path + (index,))


def path_text(path: tuple) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else str(step))
    return text


def changed(doc: dict, path: tuple, value: Any = None, remove: bool = False) -> dict:
    new = copy.deepcopy(doc)
    place = new
    for step in path[:-1]:
        place = place[step]
    if remove:
        del place[path[-1]]
    else:
        place[path[-1]] = value
    return new


def mutations(doc: dict, game: str) -> Iterator[tuple[str, tuple, dict, bool]]:
    """(what, path, mutated document, whether the schema forbids it) of every mutation the
    schema decides; paths are inside the state document."""
    for path, declared, schema, value, parent in locations(DEFS[f"state_{game}"], doc):
        if path and parent is not None:
            yield "removed", path, changed(doc, path, remove=True), path[-1] in parent.get("required", ())
        if path:
            allowed = allowed_types(declared)
            for kind, sample in SAMPLES.items():
                if kind == "number" and json_type(value) == "integer":
                    sample = float(value)  # the confusable form
                if json_type(sample) == json_type(value) and sample == value:
                    continue
                yield f"type {kind}", path, changed(doc, path, sample), kind not in allowed
        if json_type(value) == "integer":
            for bound, step in (("minimum", -1), ("maximum", 1)):
                if bound in schema:
                    yield f"{bound}{step:+d}", path, changed(doc, path, schema[bound] + step), True
                    yield bound, path, changed(doc, path, schema[bound]), False  # the bound itself: the engine decides
        if isinstance(value, list) and path:
            longer = value + [copy.deepcopy(value[-1]) if value else example(schema.get("items", {}))]
            for what, items in (("one item more", longer), ("one item less", value[:-1])):
                if what == "one item less" and not value:
                    continue
                too_many = "maxItems" in schema and len(items) > schema["maxItems"]
                too_few = "minItems" in schema and len(items) < schema["minItems"]
                yield what, path, changed(doc, path, items), too_many or too_few
        if isinstance(value, dict):
            extra = changed(doc, path + ("zz_unknown",), 1) if path else {**doc, "zz_unknown": 1}
            yield "unknown field", path + ("zz_unknown",), extra, schema.get("additionalProperties", True) is False


def positions(name: str) -> list[dict]:
    """State documents of a seeded random game: its start, a decision and a roll after it."""
    game = get_game(name)
    rng = random.Random(2024)
    state = game.new_initial_state()
    picked = {"start": state}
    for step in range(300):
        player = game.current_player(state)
        if player == TERMINAL or len(picked) == 3:
            break
        kind = "chance" if player == CHANCE else "decision"
        if step >= 4 and kind not in picked:
            picked[kind] = state
        moves = [o for o, _p in game.chance_outcomes(state)] if player == CHANCE else game.legal_actions(state)
        state = game.apply(state, moves[rng.randrange(len(moves))])
    return [json.loads(json.dumps(game.state_to_json(s))) for s in picked.values()]


request = request_body


def test_the_valid_documents_pass_the_schema_walk() -> None:
    """The walker's own reading of the schema lets every engine-made document through: a
    document of each game fits the types the schema declares at each of its values."""
    for name in game_names():
        for doc in positions(name):
            for path, declared, _branch, value, _parent in locations(DEFS[f"state_{name}"], doc):
                assert json_type(value) in allowed_types(declared), (name, path, value)


@pytest.mark.parametrize("name", game_names())
def test_schema_mutations_are_refused_clearly(name: str) -> None:
    cases = []
    for doc in positions(name):
        move = first_move(name, doc)
        cases += [(what, path, mutated, forbidden, move) for what, path, mutated, forbidden in mutations(doc, name)]
    kinds = {what.split()[0] for what, *_rest in cases}
    assert {"removed", "type", "unknown"} <= kinds and ("minimum-1" in kinds or "maximum+1" in kinds), kinds
    rng = random.Random(name)
    forbidden_cases = [c for c in cases if c[3]]
    sample = rng.sample(forbidden_cases, min(len(forbidden_cases), MUTATIONS_PER_GAME))
    allowed_cases = [c for c in cases if not c[3]]
    sample += rng.sample(allowed_cases, min(len(allowed_cases), MUTATIONS_PER_GAME // 3))
    for index, (what, path, mutated, forbidden, move) in enumerate(sample):
        method = METHODS[index % len(METHODS)]
        answer = SEAT.handle(request(method, mutated, move))
        where = f"{name} {method} {what} at {path_text(path)}: {answer}"
        assert answer.get("error", {}).get("code") != "internal_error", where
        if "error" in answer:
            assert "\n" not in answer["error"]["message"] and "Traceback" not in answer["error"]["message"], where
        if forbidden:
            assert "error" in answer, where
            if path != ("game",):  # another game's name is the handler's: unknown_game, illegal_state
                assert answer["error"]["code"] == "illegal_state", where
                named = path_text(("state",) + path[:-1]) if what in ("removed", "unknown field") else path_text(("state",) + path)
                assert named in answer["error"]["message"], where
                if what in ("removed", "unknown field"):
                    assert repr(path[-1]) in answer["error"]["message"], where


@pytest.mark.parametrize("name", game_names())
def test_zero_float_zero_and_false_answer_alike_in_every_order(name: str) -> None:
    doc = positions(name)[-1]
    move = first_move(name, doc)
    integers = [path for path, _declared, _branch, value, _parent in locations(DEFS[f"state_{name}"], doc)
                if path and json_type(value) == "integer"]
    for path in random.Random(name).sample(integers, min(len(integers), CONFUSED_FIELDS_PER_GAME)):
        own = changed(doc, path, 0)
        for forms in ((0, 0.0, False), (1, 1.0, True)):
            for method in METHODS:
                requests = [request(method, changed(own, path, form), move) for form in forms]
                alone = [Seat().handle(r) for r in requests]
                for answer, form in zip(alone, forms):
                    assert answer.get("error", {}).get("code") != "internal_error", (name, method, path, form, answer)
                    if not isinstance(form, int) or isinstance(form, bool):  # 0.0 and false are not integers
                        assert answer.get("error", {}).get("code") == "illegal_state", (name, method, path, form, answer)
                for order in (range(len(forms)), reversed(range(len(forms)))):
                    seat = Seat()
                    for index in order:
                        assert seat.handle(requests[index]) == alone[index], (name, method, path, forms[index])


def test_the_two_state_reader_gaps_of_the_issue() -> None:
    """Issue 24, point 4. Liar's poker with ``"seat_rolls": {}`` is refused before
    ``apply`` reaches the engine (the schema: an array). Bidding bluff with ``"revealed":
    [0, [1, 2]]``: a refusal in a first round (no round has ended yet, BLUFF-3), and after
    a round a position like any other, which ``rank`` answers (1 2 is a possible reveal)."""
    liars = get_game("liars-poker")
    doc = liars.state_to_json(liars.new_initial_state())
    doc["state"]["seat_rolls"] = {}
    answer = Seat().handle({"id": 1, "method": "apply", "state": doc, "outcome": [1, 2], "lang": "en"})
    assert answer["error"]["code"] == "illegal_state" and "state.state.seat_rolls must be an array" in answer["error"]["message"]

    game = get_game("bidding-bluff")
    rng = random.Random(3)
    state = game.new_initial_state()
    first_round = None
    while not (state.rounds >= 1 and game.current_player(state) >= 0):
        if state.rounds == 0 and game.current_player(state) >= 0 and state.phase != "seating":
            first_round = first_round or game.state_to_json(state)
        moves = [o for o, _p in game.chance_outcomes(state)] if game.current_player(state) == CHANCE else game.legal_actions(state)
        state = game.apply(state, moves[rng.randrange(len(moves))])
    later = game.state_to_json(state)
    for agent in ("bayes", "truthful", "random"):
        for doc, refused in ((first_round, True), (later, False)):
            doc = changed(doc, ("state", "revealed"), [0, [1, 2]])
            answer = Seat().handle({"id": 1, "method": "rank", "state": doc, "agent": agent, "lang": "en"})
            if refused:
                assert answer["error"]["code"] == "illegal_state" and "no round has ended" in answer["error"]["message"], answer
            else:
                assert "result" in answer, answer
                legal = [game.action_to_json(a) for a in game.legal_actions(game.state_from_json(doc))]
                assert all(entry["action"] in legal for entry in answer["result"]["actions"]), answer
