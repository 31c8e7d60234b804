"""The AI seat (agents/seat.py): the kocka.seat/1 protocol of docs/PROTOCOL.md.

Every request and response that passes through :func:`exchange` is checked against
agents/frontends/seat/seat_schema.json with a small validator of the JSON Schema keywords the schema uses
(:func:`schema_errors`; it refuses any other keyword, so the schema cannot silently use
one it does not check). Expected values come from RULES.md section 7 (reference cases,
cited by number), from counting by hand, or from a brute-force enumeration in the test.
"""
from __future__ import annotations

import json
import math
import pathlib
import random
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kocka.agents.frontends.seat import protocol
from kocka.agents.frontends.seat.protocol import ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION, REQUEST_FIELDS, Seat, SeatOptions
from kocka.solver.rules import GAME_NAMES, get_game
from script_modules import script_module

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "agents" / "frontends" / "seat" / "seat_schema.json").read_text())
PROTOCOL_MD = (ROOT / "docs" / "PROTOCOL.md").read_text()


mutate = script_module("seat_tools").mutate  # the request mutator scripts/seat_fuzz.py uses


# ----------------------------------------------------------------------------------------
# A validator for the JSON Schema subset the seat schema uses
# ----------------------------------------------------------------------------------------
_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "$comment", "default", "examples"}
_KEYWORDS = {"$ref", "type", "enum", "const", "minimum", "maximum", "items", "minItems", "maxItems",
             "required", "properties", "additionalProperties", "oneOf", "anyOf"}
_TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of JSON values (true is not 1, unlike Python's ==)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    return a == b


def schema_errors(instance: Any, schema: Any = None, path: str = "$") -> list[str]:
    """Where ``instance`` breaks ``schema`` (default: the whole seat schema); [] if valid."""
    schema = SCHEMA if schema is None else schema
    if schema is True or schema == {}:
        return []
    unknown = set(schema) - _KEYWORDS - _ANNOTATIONS
    if unknown:
        raise ValueError(f"schema at {path} uses keyword(s) {sorted(unknown)!r} the test validator does not check")
    errors: list[str] = []
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/$defs/"), ref
        errors += schema_errors(instance, SCHEMA["$defs"][ref.split("/")[-1]], path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](instance) for t in types):
            return errors + [f"{path}: {instance!r:.60} is not of type {types}"]
    if "enum" in schema and not any(_json_equal(instance, e) for e in schema["enum"]):
        errors.append(f"{path}: {instance!r:.60} not in {schema['enum']!r:.80}")
    if "const" in schema and not _json_equal(instance, schema["const"]):
        errors.append(f"{path}: {instance!r:.60} is not {schema['const']!r}")
    if _TYPES["number"](instance):
        if "minimum" in schema and instance < schema["minimum"]:
            errors.append(f"{path}: {instance} < {schema['minimum']}")
        if "maximum" in schema and instance > schema["maximum"]:
            errors.append(f"{path}: {instance} > {schema['maximum']}")
    if isinstance(instance, list):
        if "minItems" in schema and len(instance) < schema["minItems"]:
            errors.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(instance) > schema["maxItems"]:
            errors.append(f"{path}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, item in enumerate(instance):
                errors += schema_errors(item, schema["items"], f"{path}[{i}]")
    if isinstance(instance, dict):
        errors += [f"{path}: missing {k!r}" for k in schema.get("required", ()) if k not in instance]
        properties = schema.get("properties", {})
        for key, value in instance.items():
            if key in properties:
                errors += schema_errors(value, properties[key], f"{path}.{key}")
            elif schema.get("additionalProperties", True) is False:
                errors.append(f"{path}: unexpected property {key!r}")
            elif isinstance(schema.get("additionalProperties"), dict):
                errors += schema_errors(value, schema["additionalProperties"], f"{path}.{key}")
    if "oneOf" in schema:
        matches = sum(not schema_errors(instance, s, path) for s in schema["oneOf"])
        if matches != 1:
            errors.append(f"{path}: matches {matches} of the oneOf alternatives, not exactly 1")
    if "anyOf" in schema and all(schema_errors(instance, s, path) for s in schema["anyOf"]):
        errors.append(f"{path}: matches none of the anyOf alternatives")
    return errors


def check_response(response: dict, method: str | None) -> None:
    """``response`` is a valid response; a success also has the result shape of ``method``."""
    assert schema_errors(response, {"$ref": "#/$defs/response"}) == [], response
    if "result" in response and method in REQUEST_FIELDS:
        assert schema_errors(response["result"], {"$ref": f"#/$defs/result_{method}"}) == [], response


SEAT = Seat()


def exchange(request: dict, seat: Seat = SEAT, *, valid: bool = True) -> dict:
    """Send one request through the full text path (encode, handle_line, decode), with
    the schema checks; ``valid`` requests must satisfy the request schema."""
    if valid:
        assert schema_errors(request, {"$ref": "#/$defs/request"}) == [], request
    line = seat.handle_line(json.dumps(request))
    assert "\n" not in line
    response = json.loads(line)
    method = request.get("method") if isinstance(request, dict) else None
    check_response(response, method if isinstance(method, str) else None)
    if isinstance(request, dict) and "id" in request and isinstance(request["id"], (str, int)) and not isinstance(request["id"], bool):
        assert response["id"] == request["id"]
    return response


def result(request: dict, seat: Seat = SEAT) -> dict:
    response = exchange(request, seat)
    assert "result" in response, response
    return response["result"]


def error_code(request: Any, seat: Seat = SEAT, valid: bool = False) -> str:
    response = exchange(request, seat, valid=valid)
    assert "error" in response, response
    return response["error"]["code"]


# ----------------------------------------------------------------------------------------
# Positions used below, built with the engines (not through the seat)
# ----------------------------------------------------------------------------------------
HU = get_game("kockapoker")
HU_ROLLED = HU.apply(HU.new_initial_state(), (1, 1, 3, 4, 6))  # throw 1, dice 1 1 3 4 6
HU_ROLLED_DOC = HU.state_to_json(HU_ROLLED)
HU_KEPT_DOC = HU.state_to_json(HU.apply(HU_ROLLED, HU.action_from_json({"type": "Keep", "dice": [1, 1, 3]})))


def finished_state_doc(game_name: str, players: int = 1, rules: dict | None = None) -> dict:
    game = get_game(game_name, rules, players)
    from kocka.solver.rules import play_random_game

    state, _ = play_random_game(game, random.Random(7))
    return game.state_to_json(state)


# ----------------------------------------------------------------------------------------
# The schema, the docs and the code agree
# ----------------------------------------------------------------------------------------
def test_schema_validator_distinguishes_json_types():
    # the validator itself: true is not an integer, 1 is not a boolean, oneOf means exactly one
    assert schema_errors(True, {"type": "integer"}) != []
    assert schema_errors(1, {"type": "boolean"}) != []
    assert schema_errors(1, {"enum": [True]}) != []
    assert schema_errors(3, {"oneOf": [{"type": "integer"}, {"type": "number"}]}) != []
    assert schema_errors(3.5, {"oneOf": [{"type": "integer"}, {"type": "number"}]}) == []
    with pytest.raises(ValueError, match="pattern"):
        schema_errors("x", {"pattern": "x"})


@pytest.mark.parametrize("method", list(REQUEST_FIELDS))
def test_schema_request_fields_match_the_seat(method):
    definition = SCHEMA["$defs"][f"request_{method}"]
    assert set(definition["properties"]) == set(REQUEST_FIELDS[method]) | {"id", "method"}
    required = {name for name, field in REQUEST_FIELDS[method].items() if field.required} | {"method"}
    assert set(definition["required"]) == required
    assert f"result_{method}" in SCHEMA["$defs"]
    assert method in Seat().handlers


def test_schema_lists_every_error_code_game_and_method():
    codes = SCHEMA["$defs"]["failure"]["properties"]["error"]["properties"]["code"]["enum"]
    assert codes == list(ERROR_CODES)
    assert SCHEMA["$defs"]["game"]["enum"] == list(GAME_NAMES)
    assert len(SCHEMA["$defs"]["request"]["oneOf"]) == len(REQUEST_FIELDS)


@pytest.mark.parametrize("name", list(REQUEST_FIELDS) + list(ERROR_CODES))
def test_protocol_md_documents(name):
    # every method has its own section and every error code its row in docs/PROTOCOL.md
    assert f"`{name}`" in PROTOCOL_MD


def _doc_examples() -> list[tuple[dict | None, dict]]:
    """The ``> request`` / ``< response`` pairs of docs/PROTOCOL.md (request None for a
    response to a line that is not JSON)."""
    pairs, pending = [], None
    for line in PROTOCOL_MD.splitlines():
        if line.startswith("> {"):
            pending = json.loads(line[2:])
        elif line.startswith("< {"):
            pairs.append((pending, json.loads(line[2:])))
            pending = None
    return pairs


# engine answers that must match the docs exactly; agents' answers (and hello) may change
# as agents improve and tables get built, so for them only the outcome kind is compared
_EXACT_METHODS = {"new", "legal", "apply", "score", "quit"}


@pytest.mark.parametrize("request_, documented", _doc_examples())
def test_protocol_md_examples_are_real_traffic(request_, documented):
    check_response(documented, request_["method"] if request_ else None)
    if request_ is None:
        return
    if "result" in documented:
        assert schema_errors(request_, {"$ref": "#/$defs/request"}) == []
    answer = exchange(request_, Seat(), valid=False)
    if request_["method"] in _EXACT_METHODS or "error" in documented and documented["error"]["code"] != "table_missing":
        if "error" in documented:
            assert answer["error"]["code"] == documented["error"]["code"]
        else:
            assert answer == documented
    else:
        assert answer.keys() == documented.keys() or "table_missing" in json.dumps(documented)


# ----------------------------------------------------------------------------------------
# hello, new, quit
# ----------------------------------------------------------------------------------------
def test_hello_describes_games_agents_and_rules():
    hello = result({"id": 1, "method": "hello", "client": "pytest"})
    assert hello["protocol"] == PROTOCOL_VERSION
    assert [g["name"] for g in hello["games"]] == list(GAME_NAMES)
    games = {g["name"]: g for g in hello["games"]}
    # RULES.md section 6: kockapoker's hu.house_negative is zero (default) or count
    options = {o["name"]: o for o in games["kockapoker"]["rules"]}
    assert options["house_negative"] == {"name": "house_negative", "default": "zero", "values": ["zero", "count"]}
    # the bluff games need two players at least (BLUFF-1), the scorecard games one (HU-1)
    assert games["abazs"]["players"]["min"] == 2 and games["kockapoker"]["players"]["min"] == 1
    assert "random" in {a["name"] for a in hello["agents"]}
    assert games["kockapoker"]["score"] and not games["kocka"]["score"]


@pytest.mark.parametrize("game, players, node", [
    ("kockapoker", None, "chance"),   # HU-2: a turn starts with a throw
    ("abazs", None, "chance"),        # BLUFF-1 seating = roll: the seating rolls come first
    ("kocka", 3, "chance"),
])
def test_new_gives_the_initial_state(game, players, node):
    request = {"id": "n", "method": "new", "game": game, **({"players": players} if players else {})}
    position = result(request)
    assert position["node"] == node and position["player"] is None
    assert position["state"]["game"] == game
    assert position["state"]["players"] == (players or (2 if game == "abazs" else 1))


def test_quit_answers_and_sets_the_flag():
    seat = Seat()
    assert result({"id": 9, "method": "quit"}, seat) == {"bye": True}
    assert seat.quit_requested


# ----------------------------------------------------------------------------------------
# score: RULES.md section 7 reference cases
# ----------------------------------------------------------------------------------------
SCORE_CASES = [
    # (reference case, game, rules, dice, first_throw, box, points)
    (14, "kockapoker", {}, [3, 3, 3, 5, 5], False, "full_house", 19),
    (14, "kockapoker", {}, [3, 3, 3, 5, 5], False, "two_pairs", 16),
    (14, "kockapoker", {}, [3, 3, 3, 5, 5], False, "pair", 10),
    (14, "kockapoker", {}, [3, 3, 3, 5, 5], False, "three_kind", 9),
    (14, "kockapoker", {}, [3, 3, 3, 5, 5], False, "chance", 19),
    (15, "kockapoker", {}, [3, 3, 3, 5, 5], False, "fives", -5),
    (15, "kockapoker", {}, [5, 3, 5, 3, 3], False, "ones", -3),  # dice in any order
    (16, "kockapoker", {}, [6, 6, 6, 6, 6], False, "five_kind", 50),
    (16, "kockapoker", {}, [6, 6, 6, 6, 6], False, "four_kind", 24),
    (16, "kockapoker", {}, [6, 6, 6, 6, 6], False, "sixes", 12),
    (17, "kockapoker", {}, [6, 6, 6, 6, 6], False, "two_pairs", 0),
    (17, "kockapoker", {"same_face_groups": "yes"}, [6, 6, 6, 6, 6], False, "full_house", 30),
    (17, "kockapoker", {"hu.same_face_groups": "yes"}, [6, 6, 6, 6, 6], False, "two_pairs", 24),
    (18, "kockapoker", {}, [2, 3, 4, 5, 6], False, "large_straight", 20),
    (18, "kockapoker", {}, [2, 3, 4, 5, 6], False, "small_straight", 0),
    (19, "kockapoker", {}, [1, 1, 1, 1, 4], False, "fours", -8),
    (21, "polish", {}, [3, 3, 6, 6, 6], True, "full_house", 72),
    (22, "polish", {}, [3, 3, 6, 6, 6], False, "two_pairs", 18),
    (23, "polish", {}, [5, 5, 5, 5, 5], True, "poker", 150),
    (24, "polish", {}, [6, 6, 6, 6, 6], False, "poker", 90),
    (25, "polish", {}, [1, 4, 4, 4, 4], True, "four_kind", 48),
    (27, "polish", {}, [1, 2, 3, 4, 6], False, "sixes", -12),
    (30, "polish-basic", {}, [2, 2, 4, 4, 6], True, "two_pairs", 24),
    (30, "polish-basic", {}, [2, 2, 4, 4, 6], False, "two_pairs", 12),
    (31, "polish-basic", {}, [1, 2, 3, 4, 4], True, "pair", 8),
    (32, "slovak", {}, [6, 6, 6, 6, 6], False, "sixes", 12),
    (33, "slovak", {}, [1, 3, 4, 5, 6], True, "chance", 19),
    (34, "slovak", {}, [1, 2, 3, 3, 5], True, "pair", 12),
    (35, "slovak", {}, [4, 4, 4, 4, 4], True, "poker", 90),
    (36, "slovak", {}, [2, 3, 4, 5, 6], True, "large_straight", 40),
    # standard Yahtzee scoring (Hasbro rules, PUBLISHED.md validation variant): fixed values
    ("yahtzee", "yahtzee", {}, [2, 2, 3, 3, 3], False, "full_house", 25),
    ("yahtzee", "yahtzee", {}, [1, 2, 3, 4, 6], False, "small_straight", 30),
    ("yahtzee", "yahtzee", {}, [4, 4, 4, 4, 4], False, "yahtzee", 50),
]


@pytest.mark.parametrize("case, game, rules, dice, first_throw, box, points", SCORE_CASES)
def test_score_reference_cases(case, game, rules, dice, first_throw, box, points):
    answer = result({"id": case, "method": "score", "game": game, "rules": rules, "dice": dice,
                     "first_throw": first_throw, "box": box})
    assert answer == {"dice": sorted(dice), "first_throw": first_throw, "points": {box: points}}


def test_score_without_box_scores_every_box():
    # reference case 14 again, read off the all-boxes answer
    points = result({"id": 1, "method": "score", "game": "kockapoker", "dice": [3, 3, 3, 5, 5]})["points"]
    assert len(points) == 15  # HU-1: 15 boxes
    assert (points["full_house"], points["two_pairs"], points["pair"], points["three_kind"], points["chance"]) == (19, 16, 10, 9, 19)


@pytest.mark.parametrize("request_, code", [
    ({"game": "kockapoker", "dice": [1, 2, 3, 4, 7]}, "bad_dice"),
    ({"game": "kockapoker", "dice": [1, 2, 3, 4]}, "bad_dice"),
    ({"game": "kockapoker", "dice": [1, 2, 3, 4, "5"]}, "bad_dice"),
    ({"game": "kockapoker", "dice": [1, 2, 3, 4, True]}, "bad_dice"),
    ({"game": "kockapoker", "dice": [1, 2, 3, 4, 5], "box": "yahtzee"}, "unknown_box"),
    ({"game": "kocka", "dice": [1, 2, 3, 4, 5]}, "not_supported"),
    ({"game": "kockapoker", "dice": [1, 2, 3, 4, 5], "rules": {"house_negative": "maybe"}}, "bad_rules"),
    ({"game": "kockapoker", "dice": [1, 2, 3, 4, 5], "players": 9}, "bad_rules"),  # HU/SK: 1..4 players
    ({"game": "tarokk", "dice": [1, 2, 3, 4, 5]}, "unknown_game"),
    ({"game": "kockapoker", "dice": "12345"}, "invalid_request"),
    ({"game": "kockapoker"}, "invalid_request"),
])
def test_score_errors(request_, code):
    assert error_code({"id": 3, "method": "score", **request_}) == code


# ----------------------------------------------------------------------------------------
# legal and apply
# ----------------------------------------------------------------------------------------
def test_legal_at_a_decision_lists_keeps_and_boxes():
    answer = result({"id": 1, "method": "legal", "state": HU_ROLLED_DOC})
    assert answer["node"] == "decision" and answer["player"] == 0
    keeps = [a["action"] for a in answer["actions"] if a["action"]["type"] == "Keep"]
    fills = [a["action"] for a in answer["actions"] if a["action"]["type"] == "Fill"]
    # brute force: the distinct sub-multisets of 1 1 3 4 6 except all five (HU-2: keeping all is stopping)
    dice = (1, 1, 3, 4, 6)
    expected = {tuple(sorted(c)) for n in range(5) for c in combinations(dice, n)}
    assert sorted(tuple(k["dice"]) for k in keeps) == sorted(expected)
    assert len(keeps) == 3 * 2 * 2 * 2 - 1  # ones 0..2, three/four/six 0..1, minus keep-all
    assert len(fills) == 15  # every box is open (HU-3)
    assert all(a["label"] for a in answer["actions"])


def test_legal_at_a_chance_node_lists_rolls_with_probabilities():
    answer = result({"id": 2, "method": "legal", "state": HU_KEPT_DOC})
    outcomes = {tuple(o["outcome"]): o["probability"] for o in answer["outcomes"]}
    assert answer["node"] == "chance" and answer["player"] is None
    assert len(outcomes) == 21  # two dice: 6 doubles + 15 pairs of different faces
    assert math.isclose(outcomes[(1, 2)], 2 / 36) and math.isclose(outcomes[(6, 6)], 1 / 36)
    assert math.isclose(sum(outcomes.values()), 1.0)


def test_legal_at_the_end_gives_the_returns():
    doc = finished_state_doc("kockapoker", rules={"boxes": ["chance"]})
    answer = result({"id": 3, "method": "legal", "state": doc})
    assert answer["node"] == "terminal"
    entries = doc["state"]["cards"][0]["entries"]
    # HU-7/HU-8: a card without face boxes has net 0, so the house adds 63 (scorecard.py docstring)
    assert answer["returns"] == [entries["chance"] + 63]


def test_apply_a_roll_in_any_order_then_an_action():
    after_roll = result({"id": 1, "method": "apply", "state": HU_KEPT_DOC, "outcome": [6, 1]})
    assert after_roll["node"] == "decision"
    assert after_roll["state"]["state"]["dice"] == [1, 1, 1, 3, 6] and after_roll["state"]["state"]["throw"] == 2
    after_fill = result({"id": 2, "method": "apply", "state": after_roll["state"], "action": {"type": "Fill", "box": "ones"}})
    # HU-5: three 1s give (3 - 3) x 1 = 0; a one-player game then rolls again
    assert after_fill["state"]["state"]["cards"][0]["entries"]["ones"] == 0
    assert after_fill["node"] == "chance"


@pytest.mark.parametrize("request_, code", [
    ({"state": HU_KEPT_DOC, "outcome": [1, 7]}, "bad_dice"),
    ({"state": HU_KEPT_DOC, "outcome": [1, 2, 3]}, "illegal_action"),   # two dice are due
    ({"state": HU_KEPT_DOC, "outcome": [[1], 2]}, "illegal_action"),
    ({"state": HU_KEPT_DOC, "action": {"type": "Fill", "box": "ones"}}, "illegal_action"),
    ({"state": HU_ROLLED_DOC, "outcome": [1, 2]}, "illegal_action"),
    ({"state": HU_ROLLED_DOC, "action": {"type": "Keep", "dice": [2, 2]}}, "illegal_action"),
    ({"state": HU_ROLLED_DOC, "action": {"type": "Keep", "dice": [1, 1, 3, 4, 6]}}, "illegal_action"),
    ({"state": HU_ROLLED_DOC, "action": {"type": "Fill", "box": "yahtzee"}}, "illegal_action"),
    ({"state": HU_ROLLED_DOC, "action": {"type": "Bank"}}, "illegal_action"),
    ({"state": HU_ROLLED_DOC, "action": {"type": "Fill", "box": "ones", "extra": 1}}, "illegal_action"),
    ({"state": HU_ROLLED_DOC, "action": {"type": "Keep", "dice": 5}}, "illegal_action"),
    ({"state": HU_ROLLED_DOC}, "invalid_request"),
    ({"state": HU_ROLLED_DOC, "action": {"type": "Fill", "box": "ones"}, "outcome": [1]}, "invalid_request"),
    ({"state": HU_ROLLED_DOC, "action": "Fill ones"}, "invalid_request"),
    ({"state": {**HU_ROLLED_DOC, "schema": "kocka.state/2"}, "action": {"type": "Fill", "box": "ones"}}, "illegal_state"),
    ({"state": {**HU_ROLLED_DOC, "players": 2}, "action": {"type": "Fill", "box": "ones"}}, "illegal_state"),
    ({"state": {**HU_ROLLED_DOC, "state": {**HU_ROLLED_DOC["state"], "dice": [1, 1, 3, 4, 9]}},
      "action": {"type": "Fill", "box": "ones"}}, "illegal_state"),
    ({"state": {**HU_ROLLED_DOC, "state": {**HU_ROLLED_DOC["state"], "throw": "one"}},
      "action": {"type": "Fill", "box": "ones"}}, "illegal_state"),
    ({"state": {**HU_ROLLED_DOC, "game": "yatzy"}, "action": {"type": "Fill", "box": "ones"}}, "illegal_state"),
    ({"state": HU_ROLLED_DOC, "game": "yatzy", "action": {"type": "Fill", "box": "ones"}}, "illegal_state"),
    ({"state": {**HU_ROLLED_DOC, "game": "tarokk"}, "action": {"type": "Fill", "box": "ones"}}, "unknown_game"),
    ({"state": HU_ROLLED_DOC, "rules": {"house_negative": "count"}, "action": {"type": "Fill", "box": "ones"}}, "illegal_state"),
    ({"state": finished_state_doc("yatzy", rules={"boxes": ["chance"]}), "action": {"type": "Fill", "box": "chance"}}, "illegal_action"),
])
def test_apply_errors(request_, code):
    assert error_code({"id": "e", "method": "apply", **request_}) == code


# ----------------------------------------------------------------------------------------
# choose and rank
# ----------------------------------------------------------------------------------------
def test_choose_is_legal_and_reproducible_with_a_seed():
    legal = [a["action"] for a in result({"id": 1, "method": "legal", "state": HU_ROLLED_DOC})["actions"]]
    chosen = [result({"id": s, "method": "choose", "state": HU_ROLLED_DOC, "agent": "random", "seed": s})["action"]
              for s in range(40)]
    assert all(a in legal for a in chosen)
    again = result({"id": 3, "method": "choose", "state": HU_ROLLED_DOC, "agent": "random", "seed": 3})["action"]
    assert again == chosen[3]
    # 40 uniform draws from 38 actions all equal: probability 38^-39, i.e. never
    assert len({json.dumps(a, sort_keys=True) for a in chosen}) > 1


def test_rank_lists_every_legal_action_with_losses():
    legal = result({"id": 1, "method": "legal", "state": HU_ROLLED_DOC})["actions"]
    ranked = result({"id": 2, "method": "rank", "state": HU_ROLLED_DOC, "agent": "random", "seed": 1})
    assert ranked["player"] == 0 and ranked["agent"] == "random"
    assert sorted(json.dumps(a["action"], sort_keys=True) for a in ranked["actions"]) == \
        sorted(json.dumps(a["action"], sort_keys=True) for a in legal)
    # the random agent ranks every action at 1/n, so every loss is 0
    assert all(math.isclose(a["value"], 1 / 38) and a["loss"] == 0 for a in ranked["actions"])


@pytest.mark.parametrize("request_, code", [
    ({"state": HU_KEPT_DOC, "agent": "random"}, "no_decision"),
    ({"state": finished_state_doc("yatzy", rules={"boxes": ["chance"]}), "agent": "random"}, "no_decision"),
    ({"state": HU_ROLLED_DOC, "agent": "deep-blue"}, "unknown_agent"),
    ({"state": HU_ROLLED_DOC, "agent": "bold"}, "agent_unavailable"),  # bold plays only kocka
    ({"state": HU_ROLLED_DOC, "agent": "random", "seed": -1}, "invalid_request"),
    ({"state": HU_ROLLED_DOC, "agent": "random", "seed": 1.5}, "invalid_request"),
    ({"state": HU_ROLLED_DOC, "agent": 7}, "invalid_request"),
    ({"state": [HU_ROLLED_DOC]}, "invalid_request"),
])
@pytest.mark.parametrize("method", ["choose", "rank"])
def test_choose_and_rank_errors(method, request_, code):
    assert error_code({"id": 4, "method": method, **request_}) == code


# a one-box Yahtzee card: its score is the chance box, the sum of five dice, so the optimal
# policy treats each die alone: with k throws left a die is worth E1 = 3.5,
# E2 = (4 + 5 + 6)/6 + 3/6 x 3.5 = 4.25 and E3 = (5 + 6)/6 + 4/6 x 4.25 = 14/3; no face
# boxes, so the upper bonus of 63 points is out of reach.
TINY_RULES = {"boxes": ["chance"]}


def test_optimal_without_its_table_reports_the_build_command(tmp_path):
    seat = Seat(SeatOptions(cache_dir=tmp_path))
    doc = get_game("yahtzee", TINY_RULES).state_to_json(
        get_game("yahtzee", TINY_RULES).apply(get_game("yahtzee", TINY_RULES).new_initial_state(), (1, 2, 3, 4, 6)))
    response = exchange({"id": 1, "method": "choose", "state": doc, "agent": "optimal"}, seat)
    if response.get("error", {}).get("code") == "agent_unavailable":
        pytest.skip(f"the scorecard solver is not ready: {response['error']['message']}")
    assert response["error"]["code"] == "table_missing"
    assert "kocka-solve build yahtzee" in response["error"]["message"]
    assert str(tmp_path) in response["error"]["message"]
    assert not list(tmp_path.iterdir())  # nothing was built silently


def test_optimal_with_build_missing_plays_the_hand_computed_policy(tmp_path):
    seat = Seat(SeatOptions(cache_dir=tmp_path, build_missing=True))
    game = get_game("yahtzee", TINY_RULES)
    doc = game.state_to_json(game.apply(game.new_initial_state(), (1, 2, 3, 4, 6)))
    response = exchange({"id": 1, "method": "rank", "state": doc, "agent": "optimal"}, seat)
    if response.get("error", {}).get("code") == "agent_unavailable":
        pytest.skip(f"the scorecard solver is not ready: {response['error']['message']}")
    ranked = response["result"]["actions"]
    # two throws left: keep only the 6 (> E2 = 4.25) and throw four dice: 6 + 4 x 4.25 = 23
    assert ranked[0]["action"] == {"type": "Keep", "dice": [6]}
    assert math.isclose(ranked[0]["value"], 23.0, abs_tol=1e-9)
    values = {json.dumps(a["action"], sort_keys=True): a["value"] for a in ranked}
    assert math.isclose(values['{"box": "chance", "type": "Fill"}'], 16.0, abs_tol=1e-9)  # 1+2+3+4+6
    # keeping 4 and 6: 10 + 3 x 4.25 = 22.75, a loss of 0.25
    assert math.isclose(values['{"dice": [4, 6], "type": "Keep"}'], 22.75, abs_tol=1e-9)
    chosen = result({"id": 2, "method": "choose", "state": doc, "agent": "optimal"}, seat)
    assert chosen["action"] == {"type": "Keep", "dice": [6]}


def test_agents_and_tables_are_built_once_and_shared(tmp_path, monkeypatch):
    built = []
    real_make_agent = protocol.make_agent

    def counting_make_agent(name, game, seed=0, options=None):
        built.append(name)
        return real_make_agent(name, game, seed=seed, options=options)

    monkeypatch.setattr(protocol, "make_agent", counting_make_agent)
    seat = Seat(SeatOptions(cache_dir=tmp_path, build_missing=True))
    game = get_game("yahtzee", TINY_RULES)
    state = game.apply(game.new_initial_state(), (1, 2, 3, 4, 6))
    first = exchange({"id": 1, "method": "choose", "state": game.state_to_json(state), "agent": "optimal"}, seat)
    if first.get("error", {}).get("code") == "agent_unavailable":
        pytest.skip(f"the scorecard solver is not ready: {first['error']['message']}")
    later = game.apply(game.apply(state, game.action_from_json({"type": "Keep", "dice": [6]})), (1, 1, 2, 2))
    for seed in range(5):  # another position of the same game, other seeds
        result({"id": seed, "method": "rank", "state": game.state_to_json(later), "agent": "optimal", "seed": seed}, seat)
    assert built == ["optimal"]
    tables = list(tmp_path.iterdir())
    assert len(tables) == 1  # built once (--build-missing), into the given cache
    # a second seat in the same process shares the loaded table (kocka.solver.store.table_store.get_table)
    other = Seat(SeatOptions(cache_dir=tmp_path))
    result({"id": 9, "method": "choose", "state": game.state_to_json(state), "agent": "optimal"}, other)
    assert seat.agent("optimal", seat.game("yahtzee", TINY_RULES, None)).table is \
        other.agent("optimal", other.game("yahtzee", TINY_RULES, None)).table


def test_hidden_dice_do_not_change_the_answer():
    """Abázs (BLUFF-7): the seat answering a claim cannot see the claimant's two dice, so
    any dice in their place give the same choice (docs/PROTOCOL.md, hidden information)."""
    game = get_game("abazs", {"seating": "given"}, 2)
    state = game.new_initial_state()
    state = game.apply(state, (3, 5))  # seat 0's private roll
    state = game.apply(state, game.legal_actions(state)[0])  # seat 0 claims
    assert game.current_player(state) == 1 and state.active == 0
    import dataclasses

    for agent in ("heuristic", "random"):
        answers = set()
        for dice in combinations(range(1, 7), 2):
            hidden = dataclasses.replace(state, dice=dice)
            game.check_state(hidden)
            chosen = result({"id": 1, "method": "choose", "state": game.state_to_json(hidden), "agent": agent, "seed": 5})
            answers.add(json.dumps(chosen["action"], sort_keys=True))
        assert len(answers) == 1, (agent, answers)


# ----------------------------------------------------------------------------------------
# The bluff games' stakes are a range: no request grows with the chips (issue 12)
# ----------------------------------------------------------------------------------------
def _claiming_doc(name: str, chips: int, players: int = 2) -> dict:
    """A bluff game's first claim position, every player holding ``chips``."""
    game = get_game(name, {"seating": "given", "start_chips": chips}, players)
    state = game.new_initial_state()
    while game.is_chance_node(state):
        state = game.apply(state, game.chance_outcomes(state)[7][0])
    return game.state_to_json(state)


def test_bluff_chips_that_do_not_add_up_are_an_illegal_state():
    doc = _claiming_doc("bidding-bluff", 10)
    doc["state"]["chips"] = [10, 1000000]  # the game began with [10, 10]
    response = exchange({"id": 1, "method": "legal", "state": doc, "lang": "en"})
    assert response["error"]["code"] == "illegal_state"
    assert "the chips do not add up: the players and the bank hold 1000010 in all, but the game began with 20" in response["error"]["message"]
    for method in ("choose", "rank"):
        assert error_code({"id": 2, "method": method, "state": doc, "agent": "bayes"}) == "illegal_state"


def test_bluff_start_chips_beyond_a_million_are_bad_rules():
    response = exchange({"id": 1, "method": "new", "game": "bidding-bluff", "rules": {"start_chips": 1000000000}, "lang": "en"})
    assert response["error"] == {
        "code": "bad_rules", "message": "the starting chips must be a whole number from 1 to 1000000, not 1000000000",
    }


@pytest.mark.parametrize("name, claims", [("bidding-bluff", 11), ("liars-poker", None)])
def test_bluff_a_million_chips_give_answers_of_bounded_size(name, claims):
    doc = _claiming_doc(name, 1000000)
    game = get_game(name, doc["rules"], 2)
    state = game.state_from_json(doc)
    claims = claims or len(game.claimable(state))
    legal = result({"id": 1, "method": "legal", "state": doc, "lang": "en"})["actions"]
    # one entry per claim (its stakes as a range) and per re-throw: not one per stake
    claim_entries = [a for a in legal if a["action"]["type"] == "Claim"]
    assert len(claim_entries) == claims and len(legal) <= claims + 2
    assert all(a["stake"] == {"min": 1, "max": 1000000} and a["action"]["stake"] == 1 for a in claim_entries)
    assert claim_entries[0]["label"].endswith(" stake 1..1000000")
    for agent in ("bayes", "truthful", "threshold", "heuristic", "random"):
        ranked = result({"id": 2, "method": "rank", "state": doc, "agent": agent})["actions"]
        assert len(ranked) <= claims * (20 + 2 + 1) + 2  # the engine's candidate stakes
        chosen = result({"id": 3, "method": "choose", "state": doc, "agent": agent})["action"]
        assert 1 <= chosen.get("stake", 1) <= 1000000
        result({"id": 4, "method": "apply", "state": doc, "action": chosen})
    # any stake of the range may be sent, listed or not
    claim = claim_entries[0]["action"]
    after = result({"id": 5, "method": "apply", "state": doc, "action": {**claim, "stake": 777777}})
    assert after["state"]["state"]["stake"] == 777777
    assert error_code({"id": 6, "method": "apply", "state": doc, "action": {**claim, "stake": 1000001}}) == "illegal_action"


def test_bluff_legal_at_ten_chips_offers_each_claim_once():
    # bidding bluff, two players, 10 chips: seat 0 claims 9 with stake 1, seat 1 passes
    # and takes the turn over the standing 9 holding 9 chips (BLUFF-14): claims 10, 11, 12
    game = get_game("bidding-bluff", {"seating": "given"}, 2)
    state = game.new_initial_state()
    for step in [(4, 5), game.action_from_json({"type": "Claim", "claim": {"kind": "sum", "value": 9}, "stake": 1}),
                 game.action_from_json({"type": "Pass"}), (2, 4)]:
        state = game.apply(state, step)
    legal = result({"id": 1, "method": "legal", "state": game.state_to_json(state), "lang": "en"})
    assert [(a["action"]["claim"]["value"], a["label"], a["stake"]) for a in legal["actions"]] == [
        (v, f"claim {v} stake 1..9", {"min": 1, "max": 9}) for v in (10, 11, 12)
    ]
    abazs = get_game("abazs", {"seating": "given"}, 2)
    opening = abazs.apply(abazs.new_initial_state(), (1, 3))
    entries = result({"id": 2, "method": "legal", "state": abazs.state_to_json(opening), "lang": "en"})["actions"]
    assert len(entries) == 11 and entries[0] == {
        "action": {"type": "Claim", "claim": {"kind": "sum", "value": 2}, "stake": 0}, "label": "claim 2", "stake": {"min": 0, "max": 0},
    }


# ----------------------------------------------------------------------------------------
# Malformed requests, by hand
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("line, code", [
    ("", "parse_error"),
    ("{", "parse_error"),
    ('{"id": 1, "method": "hello"', "parse_error"),
    ("NaN", "parse_error"),
    ('{"id": 1, "method": "score", "game": "yatzy", "dice": [1, 2, 3, 4, NaN]}', "parse_error"),
    ("[" * 100_000, "invalid_request"),  # nested deeper than jsonio.MAX_DEPTH (before the end is seen)
    ("1" * 5000, "invalid_request"),  # longer than jsonio.MAX_INT_DIGITS (and Python's int-from-string limit)
    ("[]", "invalid_request"),
    ('"hello"', "invalid_request"),
    ("null", "invalid_request"),
    ("{}", "invalid_request"),
    ('{"id": 1}', "invalid_request"),
    ('{"id": 1, "method": 5}', "invalid_request"),
    ('{"id": 1, "method": "Hello"}', "unknown_method"),
    ('{"id": [1], "method": "hello"}', "invalid_request"),
    ('{"id": true, "method": "hello"}', "invalid_request"),
    ('{"id": 1, "method": "hello", "verbose": true}', "invalid_request"),
    ('{"id": 1, "method": "new", "game": "kockapoker", "players": true}', "invalid_request"),
    ('{"id": 1, "method": "new", "game": "kockapoker", "players": 0}', "bad_rules"),
    ('{"id": 1, "method": "new", "game": "kockapoker", "rules": {"boxes": 5}}', "bad_rules"),
    ('{"id": 1, "method": "new", "game": "kockapoker", "rules": {"colour": "red"}}', "bad_rules"),
    ('{"id": 1, "method": "new", "game": "kocka", "rules": {"target": [1]}}', "bad_rules"),
    ('{"id": 1, "method": "new", "game": "abazs", "players": 1}', "bad_rules"),  # BLUFF: 2..6 players
])
def test_malformed_lines(line, code):
    response = json.loads(SEAT.handle_line(line))
    check_response(response, None)
    assert response["error"]["code"] == code, response
    if code in ("parse_error",) or line in ("[]", '"hello"', "null", '{"id": [1], "method": "hello"}'):
        assert response["id"] is None


def test_non_utf8_line_is_a_parse_error():
    response = json.loads(SEAT.handle_line(b'{"id": 1, "method": "hel\xff\xfelo"}'))
    assert response == {"id": None, "error": {"code": "parse_error", "message": response["error"]["message"]}}


def test_an_engine_crash_is_an_internal_error_and_the_seat_goes_on(monkeypatch):
    seat = Seat()

    def broken(request):
        raise ZeroDivisionError("a bug")

    monkeypatch.setitem(seat.handlers, "legal", broken)
    response = exchange({"id": 5, "method": "legal", "state": HU_ROLLED_DOC}, seat)
    assert response["error"] == {"code": "internal_error", "message": "ZeroDivisionError: a bug"}
    assert result({"id": 6, "method": "score", "game": "kockapoker", "dice": [6, 6, 6, 6, 6], "box": "sixes"}, seat)["points"] == {"sixes": 12}


# ----------------------------------------------------------------------------------------
# Fuzzing: thousands of broken requests, then a valid one
# ----------------------------------------------------------------------------------------
FUZZ_SEAT = Seat()


def _state_docs() -> list[dict]:
    """States of several games, at decision and chance nodes (random play, fixed seed)."""
    docs = []
    rng = random.Random(11)
    for name, players, rules in [("kockapoker", 2, None), ("slovak", 1, {"part1_choice": "declare_after_first_throw"}),
                                 ("yahtzee", 1, None), ("polish", 2, None), ("polish-basic", 1, None),
                                 ("kocka", 2, None), ("abazs", 2, None), ("liars-poker", 3, None),
                                 ("kockapoker-bid", 2, None)]:
        game = get_game(name, rules, players)
        state = game.new_initial_state()
        for step in range(60):
            if game.is_terminal(state):
                break
            if step % 7 in (3, 6):
                docs.append(game.state_to_json(state))
            if game.is_chance_node(state):
                outcomes = game.chance_outcomes(state)
                state = game.apply(state, outcomes[rng.randrange(len(outcomes))][0])
            else:
                actions = game.legal_actions(state)
                state = game.apply(state, actions[rng.randrange(len(actions))])
    return docs


STATE_DOCS = _state_docs()
ACTION_DOCS = [{"type": "Keep", "dice": [1, 1]}, {"type": "Fill", "box": "chance"}, {"type": "Bank"},
               {"type": "Roll"}, {"type": "Write", "box": "poker"}, {"type": "Declare", "box": "sixes"},
               {"type": "SetAside", "dice": [1, 5]}, {"type": "Keep", "dice": [7]}, {"type": "Keep"}]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ids = st.none() | st.integers(-10**6, 10**6) | st.text(max_size=6)


def _valid_requests(rng_seed: int) -> list[dict]:
    rng = random.Random(rng_seed)
    doc = rng.choice(STATE_DOCS)
    return [
        {"method": "legal", "state": doc},
        {"method": "apply", "state": doc, "action": rng.choice(ACTION_DOCS)},
        {"method": "apply", "state": doc, "outcome": [rng.randint(1, 6) for _ in range(rng.randint(1, 6))]},
        {"method": "choose", "state": doc, "agent": rng.choice(["random", "heuristic", "nobody"]), "seed": 3},
        {"method": "rank", "state": doc, "agent": "random"},
        {"method": "score", "game": rng.choice(GAME_NAMES), "dice": [rng.randint(0, 7) for _ in range(5)], "box": "pair"},
        {"method": "new", "game": doc["game"], "players": rng.randint(-1, 7)},
    ]


def _broken(request: dict, rng: random.Random, replacement: Any) -> dict:
    """One field of ``request`` broken: mostly deep inside its state document (where the
    engines' state checks are tested), else at the top."""
    if "state" in request and rng.random() < 0.6:
        return {**request, "state": mutate(request["state"], rng, replacement)}
    return mutate(request, rng, replacement)


def _assert_survives(request: Any, line: str | bytes | None = None) -> None:
    raw = FUZZ_SEAT.handle_line(line if line is not None else json.dumps(request))
    response = json.loads(raw)
    check_response(response, request.get("method") if isinstance(request, dict) and isinstance(request.get("method"), str) else None)
    if "error" in response:
        assert response["error"]["code"] != "internal_error", (request, response)


def _assert_still_serving() -> None:
    # reference case 16: five 6s in nagy póker score 50
    assert json.loads(FUZZ_SEAT.handle_line('{"id": "ok", "method": "score", "game": "kockapoker", '
                                            '"dice": [6, 6, 6, 6, 6], "box": "five_kind"}')) == \
        {"id": "ok", "result": {"dice": [6, 6, 6, 6, 6], "first_throw": False, "points": {"five_kind": 50}}}
    legal = json.loads(FUZZ_SEAT.handle_line(json.dumps({"id": 1, "method": "legal", "state": HU_ROLLED_DOC})))
    assert len(legal["result"]["actions"]) == 23 + 15  # test_legal_at_a_decision_lists_keeps_and_boxes


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(st.lists(st.binary(max_size=200), min_size=5, max_size=10))
def test_fuzz_random_bytes(lines):
    for line in lines:
        _assert_survives(None, line)
    _assert_still_serving()


@FUZZ
@given(st.lists(st.tuples(ids, st.sampled_from(list(REQUEST_FIELDS) + ["", "HELLO", "apply "]), json_values), min_size=5, max_size=10))
def test_fuzz_wrong_shapes(items):
    """Known and unknown methods with random JSON in their fields, and bare JSON values."""
    for request_id, method, value in items:
        _assert_survives(value)
        if isinstance(value, dict):
            _assert_survives({**value, "id": request_id, "method": method})
        fields = list(REQUEST_FIELDS.get(method, {})) or ["game"]
        _assert_survives({"id": request_id, "method": method, fields[len(str(value)) % len(fields)]: value})
    _assert_still_serving()


# values that fit the shape of a state field often (small numbers, dice, box ids) and so
# reach the engines' consistency checks, besides arbitrary JSON
plausible_values = (json_values | st.integers(-2, 8) | st.lists(st.integers(0, 7), max_size=7)
                    | st.sampled_from([None, True, "ones", "chance", "pair", "poker", "claim", "roll", "over", "sum"]))


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 10**9), plausible_values), min_size=5, max_size=10))
def test_fuzz_mutated_requests(items):
    """Valid requests of every method with one field anywhere in them (deep inside state
    documents too) replaced, dropped or added: wrong types, impossible dice, illegal actions."""
    for seed, replacement in items:
        rng = random.Random(seed)
        for request in rng.sample(_valid_requests(seed), 3):
            _assert_survives(_broken({"id": seed, **request}, rng, replacement))
    _assert_still_serving()


# ----------------------------------------------------------------------------------------
# Transports: stdio through a real process, HTTP through a real socket
# ----------------------------------------------------------------------------------------
def test_stdio_process_answers_line_by_line_and_survives_garbage():
    requests = [
        json.dumps({"id": 1, "method": "hello"}),
        "this is not json",
        "",  # blank lines get no answer
        "x" * (MAX_LINE_BYTES + 10),
        '{"id": 2, "method": "score", "game": "kockapoker", "dice": [2, 3, 4, 5, 6], "box": "large_straight"}\r',
        json.dumps({"id": 3, "method": "legal", "state": HU_ROLLED_DOC}),
        json.dumps({"id": 4, "method": "quit"}),
        json.dumps({"id": 5, "method": "hello"}),  # after quit: never read
    ]
    proc = subprocess.run([sys.executable, "-m", "kocka.agents.frontends.commands", "seat"], input=("\n".join(requests) + "\n").encode(),
                          capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    lines = proc.stdout.decode("ascii").splitlines()
    responses = [json.loads(line) for line in lines]
    for response in responses:
        check_response(response, None)
    assert [r["id"] for r in responses] == [1, None, None, 2, 3, 4]
    assert responses[0]["result"]["protocol"] == PROTOCOL_VERSION
    assert responses[1]["error"]["code"] == "parse_error"
    assert responses[2]["error"]["code"] == "invalid_request" and "longer than" in responses[2]["error"]["message"]
    assert responses[3]["result"]["points"] == {"large_straight": 20}  # reference case 18
    assert len(responses[4]["result"]["actions"]) == 38
    assert responses[5]["result"] == {"bye": True}
    assert b"ready" in proc.stderr


def test_stdio_process_ends_at_end_of_input():
    proc = subprocess.run([sys.executable, "-m", "kocka.agents.frontends.commands", "seat"], input=b'{"id": 1, "method": "new", "game": "yatzy"}\n',
                          capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["result"]["node"] == "chance"


def _post(url: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_http_serves_the_same_methods():
    server = protocol.make_http_server(Seat(), "127.0.0.1:0", allow_quit=True)  # quit over HTTP is opt-in
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        status, answer = _post(url, json.dumps({"id": 1, "method": "legal", "state": HU_ROLLED_DOC}).encode())
        check_response(answer, "legal")
        assert status == 200 and len(answer["result"]["actions"]) == 38
        status, answer = _post(url, b"{oops")
        assert status == 200 and answer["error"]["code"] == "parse_error"
        with urllib.request.urlopen(url, timeout=30) as reply:  # GET / is hello
            assert json.loads(reply.read())["result"]["protocol"] == PROTOCOL_VERSION
        status, answer = _post(url + "nowhere", b"{}")
        assert status == 404 and answer["error"]["code"] == "invalid_request"
        status, answer = _post(url, json.dumps({"id": "q", "method": "quit"}).encode())
        assert answer == {"id": "q", "result": {"bye": True}}
        thread.join(timeout=10)
        assert not thread.is_alive()  # quit stops the server
    finally:
        server.shutdown()
        server.server_close()


def test_cli_http_mode_serves_until_quit():
    proc = subprocess.Popen([sys.executable, "-m", "kocka.agents.frontends.commands", "seat", "--http", "127.0.0.1:0", "--allow-quit"],
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()  # "kocka seat: serving kocka.seat/1 on http://127.0.0.1:PORT/"
        url = line.split(" on ")[-1].strip()
        assert url.startswith("http://127.0.0.1:"), line
        status, answer = _post(url, json.dumps({"id": 1, "method": "score", "game": "slovak", "dice": [4, 4, 4, 4, 4],
                                                "box": "poker", "first_throw": True}).encode())
        assert answer == {"id": 1, "result": {"dice": [4, 4, 4, 4, 4], "first_throw": True, "points": {"poker": 90}}}  # case 35
        _post(url, json.dumps({"id": 2, "method": "quit"}).encode())
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()


def test_cli_rejects_a_bad_http_address():
    from click.testing import CliRunner

    from kocka.agents.frontends.commands.kocka_cli import main

    outcome = CliRunner().invoke(main, ["seat", "--http", "localhost"])
    assert outcome.exit_code == 2 and "HOST:PORT" in outcome.output


def test_example_client_plays_a_whole_game():
    script = ROOT / "scripts" / "seat_client.py"
    proc = subprocess.run([sys.executable, str(script), "--game", "yatzy", "--rules", '{"boxes": ["chance", "yatzy"]}',
                           "--agent", "random", "--seed", "4"], capture_output=True, timeout=120, text=True)
    assert proc.returncode == 0, proc.stderr
    # two boxes, one player: two turns, each ending with one Fill, then the returns
    moves = [line for line in proc.stdout.splitlines() if line.startswith("seat 0: ")]
    assert sum('"type": "Fill"' in line for line in moves) == 2, proc.stdout
    assert proc.stdout.splitlines()[-1].startswith("final returns: [")


# ----- worker threads (the cap that keeps hello answered quickly over HTTP) -----
def _blocking_work(release: threading.Event, started: list, name: str):
    def work(job):
        started.append(name)
        release.wait(10)  # a safety bound only; the test releases it
        return name
    return work


def test_workers_compute_at_most_their_thread_count_and_queue_the_rest():
    """Workers(threads=2): a third request waits in the queue until a thread is free
    (Workers docstring); it is still answered."""
    workers = protocol.Workers(limit=8, threads=2)
    release, started = threading.Event(), []
    jobs = [workers.submit(_blocking_work(release, started, f"r{i}")) for i in range(3)]
    for _ in range(200):
        if len(started) == 2:
            break
        threading.Event().wait(0.01)
    assert sorted(started) == ["r0", "r1"]   # the third is queued, not computed
    release.set()
    assert all(j.done.wait(10) for j in jobs)
    assert [j.value for j in jobs] == ["r0", "r1", "r2"]
    assert workers.running == 0


def test_an_abandoned_request_is_never_computed_and_a_stuck_thread_is_replaced():
    """The transport answered timeout (Workers.abandon): a queued request given up is
    skipped; a running one given up frees its place, so the next request is computed."""
    workers = protocol.Workers(limit=8, threads=1)
    release, started = threading.Event(), []
    first = workers.submit(_blocking_work(release, started, "first"))
    queued = workers.submit(_blocking_work(release, started, "queued"))
    for _ in range(200):
        if started:
            break
        threading.Event().wait(0.01)
    workers.abandon(queued)            # given up before any thread took it
    workers.abandon(first)             # given up while it runs: a new thread may start
    after = workers.submit(lambda job: "after")
    assert after.done.wait(10) and after.value == "after"   # not stuck behind `first`
    release.set()
    assert first.done.wait(10) and queued.done.wait(10)
    assert started == ["first"]        # `queued` never ran
    assert workers.running == 0


@pytest.mark.parametrize("game, rules, outcome, action", [
    ("slovak", {"part1_choice": "declare_after_first_throw"}, [1, 2, 2, 3, 5], "Declare"),
    ("slovak", {}, [1, 2, 2, 3, 5], "Fill"),
    ("polish", {}, None, "Scratch"),
])
@pytest.mark.parametrize("box", [5, 0.5, {}, [1, 1], None, True])
def test_an_action_field_of_the_wrong_json_type_is_an_illegal_action(game, rules, outcome, action, box):
    """PROTOCOL.md, error codes: a malformed action is `illegal_action` (found by
    scripts/seat_fuzz.py as internal_error: a box given as a number reached the words)."""
    seat = Seat(SeatOptions())
    state = seat.handle({"id": 1, "method": "new", "game": game, "rules": rules})["result"]["state"]
    if outcome is not None:
        state = seat.handle({"id": 2, "method": "apply", "state": state, "outcome": outcome})["result"]["state"]
    answer = seat.handle({"id": 3, "method": "apply", "state": state, "action": {"type": action, "box": box}, "lang": "en"})
    assert answer["error"]["code"] == "illegal_action"
    assert "needs box as a name" in answer["error"]["message"]
