"""An answer of the seat never depends on earlier requests, whatever JSON types a state
document holds (issue 24, point 3).

Python takes ``0 == 0.0 == False`` (and ``1 == 1.0 == True``), and they hash alike, so a
memo keyed on a state read from JSON once let ``"player": 0.0`` through after ``0`` had
been seen, and crashed on it. Here every integer or boolean field of a few states of every
game is sent in each of its type-confusable forms, in both orders, to a fresh seat; each
answer must be the answer of a fresh seat to that form alone, and none ``internal_error``.
"""
from __future__ import annotations

import copy
import json
import random
from typing import Any, Iterator

import pytest

from seat_requests import CHEAP_AGENT, first_move, request_body
from kocka.agents.frontends.seat.protocol import Seat
from kocka.solver.rules import CHANCE, TERMINAL, game_names, get_game

FORMS = (0, 0.0, False, True, 1, 1.0)
"""The values Python confuses with each other (beside a field's own value and its float)."""
PATHS_PER_GAME = 10
"""Integer or boolean fields tried per game (the first ones of each state, then sampled)."""
METHODS = ("legal", "apply", "choose", "rank")


def _leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every integer or boolean inside a state body."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, path + (index,))
    elif isinstance(value, (bool, int)):
        yield path, value


def _with(doc: dict, path: tuple, value: Any) -> dict:
    changed = copy.deepcopy(doc)
    place = changed["state"]
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    return changed


def _cases(name: str) -> list[tuple[dict, tuple, Any]]:
    """(state document, field path, the field's own value) for a few states of one game:
    the first position of a decision and of a roll along a seeded random game."""
    game = get_game(name)
    rng = random.Random(24)
    state = game.new_initial_state()
    picked: dict[str, Any] = {}
    for step in range(400):
        player = game.current_player(state)
        if player == TERMINAL:
            break
        kind = "chance" if player == CHANCE else "decision"
        if step >= 3 and kind not in picked:
            picked[kind] = state
        if len(picked) == 2:
            break
        if player == CHANCE:
            outcomes = game.chance_outcomes(state)
            state = game.apply(state, outcomes[rng.randrange(len(outcomes))][0])
        else:
            actions = game.legal_actions(state)
            state = game.apply(state, actions[rng.randrange(len(actions))])
    picked.setdefault("start", game.new_initial_state())
    cases = []
    for state in picked.values():
        doc = game.state_to_json(state)
        for path, value in _leaves(doc["state"]):
            cases.append((doc, path, value))
    top = [c for c in cases if len(c[1]) == 1]
    deep = [c for c in cases if len(c[1]) > 1]
    chosen = top[:PATHS_PER_GAME // 2]
    rest = top[PATHS_PER_GAME // 2:] + deep
    chosen += random.Random(name).sample(rest, min(len(rest), PATHS_PER_GAME - len(chosen)))
    return chosen


def _request(method: str, doc: dict, move: dict) -> str:
    return json.dumps(request_body(method, doc, move))


_move = first_move


@pytest.mark.parametrize("name", game_names())
def test_answers_do_not_depend_on_the_json_types_seen_before(name: str) -> None:
    for doc, path, own in _cases(name):
        move = _move(name, doc)
        # the field's own value and its float, then the confusable forms it is not (0 and
        # 0.0 are different forms, though equal)
        forms = [own, float(own)] + [f for f in FORMS if not (type(f) is type(own) and f == own)
                                     and not (type(f) is float and f == float(own))]
        for method in METHODS:
            requests = [_request(method, _with(doc, path, form), move) for form in forms]
            alone = [Seat().handle_line(r) for r in requests]
            for answer, form in zip(alone, forms):
                assert '"internal_error"' not in answer, f"{name} {method} {path}={form!r}: {answer}"
            for order in (range(len(forms)), reversed(range(len(forms)))):
                seat = Seat()
                for index in order:
                    answer = seat.handle_line(requests[index])
                    assert answer == alone[index], (f"{name} {method} {path}={forms[index]!r} after other forms:\n"
                                                    f"  {answer}\n  alone: {alone[index]}")


def test_a_float_player_is_refused_after_the_integer_was_seen() -> None:
    """The case of the issue: 0.0, then 0, then 0.0 answered illegal_state, ok, internal_error."""
    doc = get_game("kocka").state_to_json(get_game("kocka").new_initial_state())
    seat = Seat()
    answers = [json.loads(seat.handle_line(_request("legal", _with(doc, ("player",), p), {}))) for p in (0.0, 0, 0.0)]
    assert [a.get("error", {}).get("code", "ok") for a in answers] == ["illegal_state", "ok", "illegal_state"]


def _first_decision(name: str, seed: int = 0) -> dict:
    """The state document of the first decision after the seating of a seeded random game."""
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_initial_state()
    while game.current_player(state) < 0 or state.phase == "seating":
        moves = [o for o, _ in game.chance_outcomes(state)] if game.current_player(state) == CHANCE else game.legal_actions(state)
        state = game.apply(state, moves[rng.randrange(len(moves))])
    return game.state_to_json(state)


def _error_of(answer: str) -> dict:
    return json.loads(answer).get("error", {})


def test_seat_rolls_given_as_an_object_is_an_illegal_state() -> None:
    """Issue 24, point 4: ``"seat_rolls": {}`` answered internal_error in apply."""
    game = get_game("liars-poker")
    doc = game.state_to_json(game.new_initial_state())
    doc["state"]["seat_rolls"] = {}
    for request in ({"method": "apply", "outcome": [1, 2], "lang": "en"}, {"method": "legal", "lang": "en"}):
        error = _error_of(Seat().handle_line(json.dumps({"id": 1, "state": doc, **request})))
        assert error["code"] == "illegal_state" and "seat_rolls must be an array" in error["message"], error
        assert "\n" not in error["message"]


def test_a_reveal_before_any_round_ended_is_an_illegal_state() -> None:
    """Issue 24, point 4: ``"revealed": [0, [1, 2]]`` in a first round reached an agent."""
    doc = _first_decision("bidding-bluff")
    assert doc["state"]["rounds"] == 0
    doc["state"]["revealed"] = [0, [1, 2]]
    for agent in ("bayes", "truthful", "random"):
        error = _error_of(Seat().handle_line(json.dumps({"id": 1, "method": "rank", "state": doc, "agent": agent, "lang": "en"})))
        assert error["code"] == "illegal_state" and "no round has ended" in error["message"], error


@pytest.mark.parametrize("name", ["abazs", "bidding-bluff", "liars-poker"])
@pytest.mark.parametrize("field, value", [("active", 0.0), ("order", [0.0, 1]), ("answered", 0.0), ("bank", False),
                                          ("seat_rolls", [2.0]), ("rerolled", 0), ("chips", {}), ("stake", [1])])
def test_bluff_state_fields_of_the_wrong_json_type_are_illegal_states(name: str, field: str, value: Any) -> None:
    doc = _first_decision(name)
    doc["state"][field] = value
    for method in METHODS:
        request = {"id": 1, "method": method, "state": doc, "agent": CHEAP_AGENT, **_move(name, _first_decision(name))}
        request = {k: v for k, v in request.items() if method in ("choose", "rank") or k != "agent"}
        request = {k: v for k, v in request.items() if method == "apply" or k not in ("action", "outcome")}
        error = _error_of(Seat().handle_line(json.dumps(request)))
        assert error.get("code") == "illegal_state" and field in error["message"], (method, error)
