"""Requests the seat tests send for an unchanged state document: its first legal move and a
method's request body (shared by the type-confusion and the schema-fuzzing tests)."""
from __future__ import annotations

import json
from typing import Any

from kocka.solver.rules import CHANCE, TERMINAL, get_game

CHEAP_AGENT = "random"  # plays every game without a table


def first_move(name: str, doc: dict) -> dict:
    """What ``apply`` sends for the unchanged state: its first legal move (or outcome)."""
    game = get_game(name)
    state = game.state_from_json(doc)
    if game.current_player(state) == CHANCE:
        return {"outcome": json.loads(json.dumps(game.chance_outcomes(state)[0][0]))}
    if game.current_player(state) == TERMINAL:
        return {"action": {"type": "none"}}
    return {"action": game.action_to_json(game.legal_actions(state)[0])}


def request_body(method: str, doc: dict, move: dict) -> dict[str, Any]:
    """The request of ``method`` for ``doc``: ``apply`` with ``move``, the agents' methods
    with :data:`CHEAP_AGENT`."""
    body: dict[str, Any] = {"id": 1, "method": method, "state": doc}
    if method == "apply":
        body.update(move)
    if method in ("choose", "rank"):
        body["agent"] = CHEAP_AGENT
    return body
