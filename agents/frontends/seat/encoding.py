"""The seat's JSON on the wire (docs/PROTOCOL.md): decoding a request line, encoding one
response line, the error codes and the exception each answers, and the plain JSON of the
values a result carries (numbers, decision details, node kinds, actions and roll outcomes
as the state documents spell them, docs/STATE.md).
"""
from __future__ import annotations

import json
import logging
import math
from typing import Any, Mapping

from kocka.agents.bots.base import AgentUnavailable, UnknownAgentError
from kocka.solver.base.errors import DiceError, IllegalActionError, InvalidStateError, KockaError, RulesError, TableError
from kocka.solver.base.jsonio import JSONInputError, JSONLimitError
from kocka.solver.base.work_limit import TooExpensiveError, WorkCancelledError
from kocka.solver.base.jsonio import loads as load_json
from kocka.solver.rules import CHANCE, TERMINAL, Game
from kocka.solver.rules.base import jsonable, tuplify

MAX_LINE_BYTES = 1 << 20
"""Longest request accepted (a full state document is a few kilobytes)."""
MAX_MESSAGE_CHARS = 2000
"""Error messages are cut to this length: they quote what the other side sent."""

log = logging.getLogger("kocka.seat")

ERROR_CODES: dict[str, str] = {
    "parse_error": "the request is not valid JSON (or not UTF-8)",
    "invalid_request": "not a request object, a missing or unknown field, a field of the wrong type or out of its range, or a line too long",
    "unknown_method": "no method of that name",
    "unknown_game": "no game of that name",
    "unknown_agent": "no agent of that name",
    "agent_unavailable": "the agent exists but cannot play this game here (no solver for it yet, or it plays other games)",
    "bad_rules": "an unknown rule option, a value it cannot take, or a player count the game does not allow",
    "illegal_state": "the state document is malformed or describes a position that cannot occur under the rules",
    "illegal_action": "an action or roll outcome that the rules do not allow in this state",
    "no_decision": "choose/rank at a chance node or a finished game: nobody has a decision to make",
    "bad_dice": "impossible dice: a value outside 1..6 or the wrong number of dice",
    "unknown_box": "score: no box of that name on this game's card",
    "not_supported": "the method does not apply to this game (score is for the scorecard games)",
    "table_missing": "the agent's value table is not built (or is unusable); the message names the kocka-solve command that builds it",
    "timeout": "no answer within the seat's time budget of a request (--request-timeout); the seat keeps serving",
    "busy": "the seat is working on as many requests as it takes at once (--max-inflight); retry shortly",
    "too_expensive": "the answer would take longer than the seat's budget of a request; refused before any work, the message says what makes it cheap (a table to build)",
    "unauthorized": "HTTP: no bearer token, or a wrong one (the seat was started with --token)",
    "forbidden": "HTTP: a foreign Origin or Host header, or a method disabled over HTTP (quit without --allow-quit)",
    "internal_error": "a bug in the seat or an engine; the request may be retried, the seat keeps serving",
}
"""Every error code, with what it means (docs/PROTOCOL.md lists the same)."""


class ProtocolError(ValueError):
    """A request the seat refuses, with the protocol error ``code`` to answer."""

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown protocol error code {code!r}")
        super().__init__(message)
        self.code = code


def show(value: Any, limit: int = 80) -> str:
    """``repr`` of a value the other side sent, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), type(value).__name__)


# ----------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------
def classify(exc: BaseException) -> tuple[str, str]:
    """The protocol error code and message of an exception raised answering a request."""
    message = str(exc)
    if isinstance(exc, ProtocolError):
        return exc.code, short(message)
    if isinstance(exc, UnknownAgentError):
        return "unknown_agent", short(message)
    if isinstance(exc, AgentUnavailable):
        # the agent catalogue wraps the table store's TableError (``raise ... from None`` keeps it
        # as the context); the message then carries the kocka-solve command
        behind = exc.__cause__ or exc.__context__
        return ("table_missing" if isinstance(behind, TableError) else "agent_unavailable"), short(message)
    if isinstance(exc, TableError):
        return "table_missing", short(message)
    if isinstance(exc, TooExpensiveError):
        return "too_expensive", short(message)
    if isinstance(exc, WorkCancelledError):  # given up at the deadline: the transport has answered timeout
        return "timeout", short(message)
    for kind, code in ((DiceError, "bad_dice"), (InvalidStateError, "illegal_state"),
                       (IllegalActionError, "illegal_action"), (RulesError, "bad_rules"), (KockaError, "invalid_request")):
        if isinstance(exc, kind):
            return code, short(message)
    return "internal_error", short(f"{type(exc).__name__}: {message}")


def error_response(request_id: Any, code: str, message: str) -> dict:
    return {"id": request_id, "error": {"code": code, "message": message}}


def busy_response() -> dict:
    return error_response(None, "busy", "the seat is working on as many requests as it takes at once; retry shortly")


def timeout_response(request_id: Any, seconds: float) -> dict:
    return error_response(request_id, "timeout", f"no answer within the seat's budget of {seconds:g} s per request; "
                                                 "the seat keeps serving (the work is abandoned)")


# ----------------------------------------------------------------------------------------
# Requests in, responses out
# ----------------------------------------------------------------------------------------
def decode_request(line: bytes | str) -> Any:
    """One raw request -> the decoded JSON value, by the front ends' one loader
    (:mod:`kocka.solver.base.jsonio`). Raises :class:`ProtocolError`:
    ``parse_error`` for text that is not JSON or not UTF-8, ``invalid_request`` for JSON
    nested too deeply or with a number too large to accept."""
    try:
        return load_json(line, "request")
    except JSONLimitError as exc:
        raise ProtocolError("invalid_request", short(exc)) from None
    except JSONInputError as exc:
        raise ProtocolError("parse_error", short(exc)) from None


def request_id_of(request: Any) -> Any:
    """The ``id`` a response to ``request`` carries (null when it has none or a wrong one)."""
    request_id = request.get("id") if isinstance(request, dict) else None
    if isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool)):
        return request_id
    return None


def encode_response(response: dict) -> str:
    """One response as one line of ASCII JSON (a NaN or an odd value becomes an
    ``internal_error`` rather than invalid JSON)."""
    try:
        return json.dumps(response, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        log.exception("cannot encode a response")
        fallback = error_response(response.get("id"), "internal_error", short(f"response not encodable: {exc}"))
        return json.dumps(fallback, separators=(",", ":"))


def short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 3] + "..."


def finite(value: float) -> float | None:
    """Values go out as numbers; a non-finite one (no such value) as null."""
    value = float(value)
    return value if math.isfinite(value) else None


def plain_json(value: Any) -> Any:
    """Decision details and option values as plain JSON (tuples -> lists, numpy scalars ->
    numbers, non-finite floats -> null)."""
    value = jsonable(value)
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return finite(value)
    if hasattr(value, "item"):  # numpy scalar
        return plain_json(value.item())
    return str(value)


# ----------------------------------------------------------------------------------------
# Positions, actions and roll outcomes
# ----------------------------------------------------------------------------------------
def node_info(game: Game, state: Any) -> dict:
    """What kind of node ``state`` is, who acts, and the returns once it is over."""
    player = game.current_player(state)
    if player == TERMINAL:
        return {"node": "terminal", "player": None, "returns": [finite(r) for r in game.returns(state)]}
    if player == CHANCE:
        return {"node": "chance", "player": None}
    return {"node": "decision", "player": player}


def position(game: Game, state: Any) -> dict:
    """The response body of ``new`` and ``apply``: the state document and its node."""
    return {"state": game.state_to_json(state), **node_info(game, state)}


def parse_action(game: Game, doc: Mapping[str, Any]) -> Any:
    """An action document -> the game's action (``illegal_action`` when malformed)."""
    try:
        return game.action_from_json(doc)
    except KockaError as exc:
        if isinstance(exc, IllegalActionError):
            raise
        raise IllegalActionError(f"{game.NAME}: malformed action {show(doc)}: {exc}") from None
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise IllegalActionError(f"{game.NAME}: malformed action {show(doc)}: {short(exc)}") from None


def chance_outcome(game: Game, state: Any, doc: list) -> Any:
    """A roll outcome document -> one of the node's outcomes.

    Dice may come in any order (a frontend reads real dice); a flat list of integers is
    sorted before it is matched. A value outside 1..6 is ``bad_dice``; a roll that cannot
    happen here (the wrong number of dice) is ``illegal_action``.
    """
    outcome = tuplify(doc)
    flat_ints = all(isinstance(v, int) and not isinstance(v, bool) for v in outcome)
    if flat_ints:
        if any(not 1 <= v <= 6 for v in outcome):
            raise DiceError(f"{game.NAME}: dice are 1..6, got outcome {show(doc)}")
        outcome = tuple(sorted(outcome))
    outcomes = [o for o, _ in game.chance_outcomes(state)]
    if outcome not in outcomes:
        sizes = sorted({len(o) for o in outcomes if isinstance(o, tuple)})
        need = f"; this roll throws {' or '.join(map(str, sizes))} {'die' if sizes == [1] else 'dice'}" if sizes else ""
        raise IllegalActionError(f"{game.NAME}: impossible roll outcome {show(doc)} here{need}")
    return outcome
