"""The AI seat: our agents behind a line protocol any frontend can speak (as chess GUIs
speak UCI), over stdio or HTTP. The protocol is specified in docs/PROTOCOL.md and
agents/frontends/seat/seat_schema.json; this module is its one implementation.

One request is one JSON object (one line on stdin, or one HTTP POST body); one response
comes back for it: ``{"id": ..., "result": {...}}`` or ``{"id": ..., "error": {"code":
..., "message": ...}}``. The ``id`` is echoed. The seat keeps serving after any error.

:class:`Seat` holds the caches (games by rules variant, agents by game; the value tables
themselves are loaded once per process by :func:`kocka.solver.store.table_store.get_table`) and
turns one request into one response with :meth:`Seat.handle` (decoded JSON) or
:meth:`Seat.handle_line` (raw text), from any number of threads at once. :func:`serve_stdio`
(here, standard library only) and :mod:`kocka.agents.frontends.seat.http` (uvicorn and
starlette, imported only for HTTP) are the two transports; both answer a request that
overruns its time budget with ``timeout`` (:class:`Workers`). ``kocka seat`` (``python -m
kocka.agents.frontends.seat.protocol``) runs them.

Requests are stateless: every request carries the whole state document (docs/STATE.md),
and ``choose``/``rank`` reseed the agent from the request's ``seed`` first, so equal
requests get equal answers.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import logging
from importlib.metadata import version
import math
import pathlib
import queue
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, ClassVar, Iterator, Mapping

from kocka.agents.bots.base import Agent, AgentUnavailable, UnknownAgentError
from kocka.agents.advice.cards import advice_lines
from kocka.solver.base.jsonio import JSONInputError, JSONLimitError
from kocka.solver.base.jsonio import loads as load_json
from kocka.agents.bots.catalogue import AgentOptions, agent_games, agent_names, describe_agents, make_agent
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import DiceError, IllegalActionError, InvalidStateError, KockaError, RulesError, TableError
from kocka.solver.rules import CHANCE, TERMINAL, Game, game_names, game_specs, get_game, spec_for
from kocka.solver.rules.base import STATE_SCHEMA, _jsonable, _tuplify
from kocka.solver.rules.bluff import Claim, ClaimRange
from kocka.solver.rules.scorecard import ScorecardGame
from kocka.solver.rules.words import LANGUAGES
from kocka.solver.solvers.scorecard.values import score_distribution

PROTOCOL_VERSION = "kocka.seat/1"
MAX_LINE_BYTES = 1 << 20
"""Longest request accepted (a full state document is a few kilobytes)."""
MAX_MESSAGE_CHARS = 2000
"""Error messages are cut to this length: they quote what the other side sent."""
MAX_SEED = 2**63 - 1
DEFAULT_REQUEST_TIMEOUT = 5.0
"""Seconds a request may take before it is answered with ``timeout`` (``--request-timeout``)."""
DEFAULT_MAX_INFLIGHT = 64
"""Requests being worked on at once, abandoned ones included, before new ones get ``busy``."""
DEFAULT_WORKER_THREADS = 4
"""Threads computing answers at once; further requests wait their turn in a queue. The
answers are mostly Python holding the interpreter lock, so more threads add no
throughput: they only make every waiter, ``hello`` on the HTTP event loop included, wait
longer for the lock."""

log = logging.getLogger("kocka.seat")

ERROR_CODES: dict[str, str] = {
    "parse_error": "the request is not valid JSON (or not UTF-8)",
    "invalid_request": "not a request object, a missing or unknown field, a field of the wrong type, or a line too long",
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


def _show(value: Any, limit: int = 80) -> str:
    """``repr`` of a value the other side sent, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _json_type(value: Any) -> str:
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
# Request fields
# ----------------------------------------------------------------------------------------
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
            raise ProtocolError("invalid_request", f"field {name!r} must be a JSON {self.kind}, got {_json_type(value)} {_show(value)}")


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

DEFAULT_AGENT = "optimal"


def check_fields(method: str, request: Mapping[str, Any]) -> None:
    """Raise ``invalid_request`` for a missing, unknown or wrongly typed field."""
    fields = REQUEST_FIELDS[method]
    unknown = sorted(k for k in request if k not in fields and k not in ENVELOPE)
    if unknown:
        raise ProtocolError("invalid_request", f"{method}: unknown field(s) {_show(unknown)}; fields: {sorted(fields)!r}")
    for name, spec in fields.items():
        if name in request:
            spec.check(name, request[name])
        elif spec.required:
            raise ProtocolError("invalid_request", f"{method}: missing field {name!r}")


# ----------------------------------------------------------------------------------------
# The seat
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SeatOptions:
    """Where table agents find their tables and whether a missing one is built (with a
    message on stderr) instead of being reported as ``table_missing``."""

    cache_dir: str | pathlib.Path | None = None
    build_missing: bool = False


class _LRU:
    """A small least-recently-used cache, safe to share between threads: a frontend
    sending ever new rule variants cannot grow the process without bound.

    ``_lock`` guards the order and contents and is held for dictionary operations only;
    a value is made under a lock of its own key, so two requests wanting the same new
    value make it once (a table agent loads its table in ``make``) while other keys are
    made and served meanwhile. A ``make`` that raises caches nothing.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: collections.OrderedDict[Any, Any] = collections.OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[Any, threading.Lock] = {}

    def __len__(self) -> int:
        return len(self._items)

    def _hit(self, key: Any) -> tuple[bool, Any]:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return True, self._items[key]
        return False, None

    def get_or_make(self, key: Any, make: Callable[[], Any]) -> Any:
        found, value = self._hit(key)
        if found:
            return value
        with self._lock:
            key_lock = self._making.setdefault(key, threading.Lock())
        try:
            with key_lock:
                found, value = self._hit(key)  # made by another thread while this one waited
                if found:
                    return value
                value = make()
                with self._lock:
                    self._items[key] = value
                    if len(self._items) > self.size:
                        self._items.popitem(last=False)
                return value
        finally:
            with self._lock:
                if self._making.get(key) is key_lock:
                    del self._making[key]


class _AgentPool:
    """The agents of one (agent name, game) pair. A request borrows one for the whole of
    its reset-and-decide, so concurrent requests never share an agent (an agent keeps its
    random generator and caches of its own) and equal requests still get equal answers.
    A new agent is made only when every one made so far is lent out; at most
    ``keep`` idle ones are kept."""

    def __init__(self, game: Game, make: Callable[[], Agent], keep: int = 4) -> None:
        self.game = game  # held so that the id(game) in the seat's cache key stays this game's
        self._make = make
        self._keep = keep
        self._idle: list[Agent] = []
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def borrow(self) -> Iterator[Agent]:
        with self._lock:
            agent = self._idle.pop() if self._idle else None
        if agent is None:
            agent = self._make()
        try:
            yield agent
        finally:
            with self._lock:
                if len(self._idle) < self._keep:
                    self._idle.append(agent)


class Seat:
    """Answers protocol requests; one per process (see the module docstring).

    Parameters
    ----------
    options:
        Table location and ``build_missing``.
    game_cache_size, agent_cache_size:
        How many games (rules variants) and agents stay built.
    """

    def __init__(self, options: SeatOptions = SeatOptions(), game_cache_size: int = 128, agent_cache_size: int = 64) -> None:
        self.options = options
        self.agent_options = AgentOptions(cache_dir=options.cache_dir, build_missing=options.build_missing)
        self._games = _LRU(game_cache_size)
        self._agents = _LRU(agent_cache_size)
        self._distributions = _LRU(64)  # a forward pass early in a game takes a second: equal requests share it
        self._hello: dict | None = None
        self.quit_requested = False
        self.handlers: dict[str, Callable[[dict], dict]] = {
            "hello": self.hello,
            "new": self.new,
            "legal": self.legal,
            "apply": self.apply,
            "choose": self.choose,
            "rank": self.rank,
            "score": self.score,
            "distribution": self.distribution,
            "advice": self.advice,
            "quit": self.quit,
        }

    # ----- one request -----
    def handle_line(self, line: bytes | str, refuse: Mapping[str, str] | None = None) -> str:
        """One raw request line -> one response line (JSON text, no newline)."""
        try:
            request = decode_request(line)
        except ProtocolError as exc:
            return encode_response(error_response(None, exc.code, str(exc)))
        return encode_response(self.handle(request, refuse))

    def handle(self, request: Any, refuse: Mapping[str, str] | None = None) -> dict:
        """One decoded request -> its response object (never raises). ``refuse`` maps
        the methods a transport disables to the message of their ``forbidden`` answer.

        Safe to call from several threads at once: the games are immutable, the caches
        lock (:class:`_LRU`), and an agent serves one request at a time (:class:`_AgentPool`).
        """
        request_id = None
        started = time.perf_counter()
        method = None
        try:
            if not isinstance(request, dict):
                raise ProtocolError("invalid_request", f"a request must be a JSON object, got {_json_type(request)} {_show(request)}")
            request_id = request.get("id")
            if not (request_id is None or isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))):
                bad, request_id = request_id, None
                raise ProtocolError("invalid_request", f"'id' must be a string, an integer or null, got {_json_type(bad)} {_show(bad)}")
            method = request.get("method")
            if method is None:
                raise ProtocolError("invalid_request", "missing field 'method'")
            if not isinstance(method, str):
                raise ProtocolError("invalid_request", f"'method' must be a string, got {_json_type(method)} {_show(method)}")
            if method not in self.handlers:
                raise ProtocolError("unknown_method", f"unknown method {_show(method)}; methods: {', '.join(self.handlers)}")
            if refuse and method in refuse:
                raise ProtocolError("forbidden", refuse[method])
            if method in REQUEST_FIELDS:  # a handler added by a test or a benchmark checks its own fields
                check_fields(method, request)
            response = {"id": request_id, "result": self.handlers[method](request)}
        except Exception as exc:  # the seat answers every request, whatever went wrong
            code, message = classify(exc)
            if code == "internal_error":
                log.exception("internal error answering %s", _show(request, 200))
            else:
                log.info("request %s: %s: %s", _show(request_id), code, message)
            response = error_response(request_id, code, message)
        log.debug("%s %s answered in %.3f ms", method, _show(request_id), 1000 * (time.perf_counter() - started))
        return response

    # ----- games, states, agents -----
    def game(self, name: str, rules: Mapping[str, Any] | None, players: int | None) -> Game:
        """The game ``name`` under ``rules`` for ``players`` seats (built once, cached)."""
        if name not in game_names():
            raise ProtocolError("unknown_game", f"unknown game {_show(name)}; games: {', '.join(game_names())}")
        if players is None:
            players = spec_for(name).default_players
        key = (name, json.dumps(rules or {}, sort_keys=True), players)

        def build() -> Game:
            try:
                return get_game(name, rules, num_players=players)
            except KockaError:
                raise
            except (TypeError, ValueError, AttributeError, KeyError) as exc:  # odd option values reach dataclass code
                raise RulesError(f"{name}: bad rules {_show(rules)}: {_short(exc)}") from None

        return self._games.get_or_make(key, build)

    def game_and_state(self, request: Mapping[str, Any]) -> tuple[Game, Any]:
        """The game and state of a request with a ``state`` document; ``game``, ``rules``
        and ``players`` default to the document's own."""
        doc = request["state"]
        name = request.get("game", doc.get("game"))
        if not isinstance(name, str):
            raise InvalidStateError(f"state document must name its game as a string, got {_show(doc.get('game'))}")
        if "game" in request and "game" in doc and doc["game"] != name:
            raise InvalidStateError(f"state document is for game {_show(doc['game'])}, the request for {name!r}")
        rules = request.get("rules", doc.get("rules"))
        if rules is not None and not isinstance(rules, dict):
            raise InvalidStateError(f"state document 'rules' must be an object, got {_show(rules)}")
        players = request.get("players", doc.get("players"))
        if players is not None and (isinstance(players, bool) or not isinstance(players, int)):
            raise InvalidStateError(f"state document 'players' must be an integer, got {_show(players)}")
        try:
            game = self.game(name, rules, players)
        except RulesError as exc:
            if "rules" in request or "players" in request:
                raise
            # the document's own rules or player count do not fit its game
            raise InvalidStateError(f"state document does not fit game {name!r}: {exc}") from None
        if "players" in doc and doc["players"] != game.num_players:
            raise InvalidStateError(f"state document is for {_show(doc['players'])} players, the request for {game.num_players}")
        try:
            state = game.state_from_json(doc)
        except KockaError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # wrong types deep in a document
            raise InvalidStateError(f"malformed {game.NAME} state: {_short(exc)}") from None
        return game, state

    def agents(self, name: str, game: Game) -> _AgentPool:
        """The agents ``name`` for ``game`` (the first is built on the first request and
        kept: table agents load their table then)."""
        key = (name, id(game))  # a pool holds its game, so the id stays unique

        def make() -> Agent:
            try:
                return make_agent(name, game, seed=0, options=self.agent_options)
            except ModuleNotFoundError as exc:  # an agent whose module has not landed in this install
                raise AgentUnavailable(f"agent {name!r} is not available here: module {exc.name!r} is missing") from None

        def build() -> _AgentPool:
            pool = _AgentPool(game, make)
            with pool.borrow():  # builds the first agent now: an agent that cannot be built caches nothing
                pass
            return pool

        return self._agents.get_or_make(key, build)

    def agent(self, name: str, game: Game) -> Agent:
        """An agent ``name`` for ``game``, to look at (its table, its name); a request
        borrows one for its whole length instead (:meth:`decision_agent`)."""
        with self.agents(name, game).borrow() as agent:
            return agent

    @contextlib.contextmanager
    def decision_agent(self, request: Mapping[str, Any]) -> Iterator[tuple[Game, Any, Agent, int]]:
        """The game, state, player to move and an agent reseeded from the request, lent
        to this request alone until the ``with`` block ends."""
        game, state = self.game_and_state(request)
        player = game.current_player(state)
        if player < 0:
            where = "a chance node (apply a roll outcome first)" if player == CHANCE else "a finished game"
            raise ProtocolError("no_decision", f"{game.NAME}: nobody decides at {where}: {_short(game.describe_state(state))}")
        seed = request.get("seed", 0)
        if not 0 <= seed <= MAX_SEED:
            raise ProtocolError("invalid_request", f"'seed' must be in 0..{MAX_SEED}, got {_show(seed)}")
        with self.agents(request.get("agent", DEFAULT_AGENT), game).borrow() as agent:
            agent.reset(seed)
            yield game, state, agent, player

    # ----- methods -----
    def hello(self, request: Mapping[str, Any]) -> dict:
        if "client" in request:
            log.info("hello from %s", _show(request["client"]))
        if self._hello is None:
            self._hello = describe_server()
        return self._hello

    def new(self, request: Mapping[str, Any]) -> dict:
        game = self.game(request["game"], request.get("rules"), request.get("players"))
        return position(game, game.new_initial_state())

    def legal(self, request: Mapping[str, Any]) -> dict:
        game, state = self.game_and_state(request)
        result = node_info(game, state)
        if result["node"] == "decision":
            result["actions"] = legal_entries(game, state, request_lang(request))
        elif result["node"] == "chance":
            result["outcomes"] = [{"outcome": _jsonable(o), "probability": p} for o, p in game.chance_outcomes(state)]
        return result

    def apply(self, request: Mapping[str, Any]) -> dict:
        game, state = self.game_and_state(request)
        has_action, has_outcome = "action" in request, "outcome" in request
        if has_action == has_outcome:
            raise ProtocolError("invalid_request", "apply needs exactly one of 'action' (a decision) or 'outcome' (a roll)")
        player = game.current_player(state)
        if player == TERMINAL:
            raise IllegalActionError(f"{game.NAME}: the game is over; nothing can be applied")
        if player == CHANCE:
            if has_action:
                raise IllegalActionError(f"{game.NAME}: a roll is due: send 'outcome' (the dice rolled), not 'action' {_show(request['action'])}")
            move = chance_outcome(game, state, request["outcome"])
        else:
            if has_outcome:
                raise IllegalActionError(f"{game.NAME}: seat {player} must decide: send 'action', not 'outcome' {_show(request['outcome'])}")
            move = parse_action(game, request["action"])
        return position(game, game.apply(state, move))

    def choose(self, request: Mapping[str, Any]) -> dict:
        with self.decision_agent(request) as (game, state, agent, player):
            action = agent.choose(state)
        return {
            "agent": agent.name,
            "player": player,
            "action": game.action_to_json(action),
            "label": action_label(game, state, action),
        }

    def rank(self, request: Mapping[str, Any]) -> dict:
        lang = request_lang(request)
        with self.decision_agent(request) as (game, state, agent, player):
            decisions = agent.rank(state)
            # agents that play to win say their chance of finishing first (winner)
            win = agent.win_probability(state) if callable(getattr(agent, "win_probability", None)) else None
        best = decisions[0].value if decisions else 0.0
        actions = []
        for d in decisions:
            label = d.label or action_label(game, state, d.action)
            if lang is not None and label == action_label(game, state, d.action):  # the engine's words, not a solver's
                label = action_label(game, state, d.action, lang)
            entry = {
                "action": game.action_to_json(d.action),
                "label": label,
                "value": _finite(d.value),
                "loss": _finite(best - d.value),
            }
            if d.detail:
                entry["detail"] = _plain_json(d.detail)
            actions.append(entry)
        result = {"agent": agent.name, "player": player, "value_name": agent.value_name, "actions": actions}
        if win is not None:
            result["win_probability"] = _finite(win)
        return result

    def score(self, request: Mapping[str, Any]) -> dict:
        game = self.game(request["game"], request.get("rules"), request.get("players"))
        boxes = game.card_boxes()
        if not boxes:
            raise ProtocolError("not_supported", f"score is for the games with boxes ({', '.join(scored_games())}), not {game.NAME!r}")
        dice = request["dice"]
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in dice):
            raise DiceError(f"dice must be 5 integers in 1..6, got {_show(dice)}")
        dice = validate_dice(dice, 5)
        if "box" in request and request["box"] not in boxes:
            raise ProtocolError("unknown_box", f"{game.NAME}: no box {_show(request['box'])} on this card; boxes: {', '.join(boxes)}")
        first_throw = request.get("first_throw", False)
        wanted = [request["box"]] if "box" in request else list(boxes)
        return {"dice": list(dice), "first_throw": first_throw, "points": {b: game.box_points(b, dice, first_throw) for b in wanted}}

    def distribution(self, request: Mapping[str, Any]) -> dict:
        """The distribution of one seat's final score under the optimal agent's play (the
        scorecard games): the player to move from this position, another seat from its
        card at the start of its next turn; and every seat's card total so far."""
        game, state = self.game_and_state(request)
        if not isinstance(game, ScorecardGame):
            names = ", ".join(s.name for s in game_specs() if issubclass(s.engine, ScorecardGame))
            raise ProtocolError("not_supported", f"distribution is for the scorecard games ({names}), not {game.NAME!r}")
        seat = request.get("seat", state.player)
        if not 0 <= seat < game.num_players:
            raise ProtocolError("invalid_request", f"'seat' must be in 0..{game.num_players - 1}, got {_show(seat)}")
        table = self.agent(DEFAULT_AGENT, game).table
        mover = seat == state.player and not game.is_terminal(state)
        where = state if mover else state.cards[seat]
        dist = self._distributions.get_or_make((id(game), where), lambda: score_distribution(game, table, where))
        return {"seat": seat, "first": dist.first, "probs": [_finite(p) for p in dist.probs], "mean": _finite(dist.mean()),
                "totals": [game.card_total(card) for card in state.cards]}

    def advice(self, request: Mapping[str, Any]) -> dict:
        """The agent's first ``top`` actions in plain words (what a keep is going for,
        what it gives up), for hint displays."""
        lang = request_lang(request)
        top = request.get("top", 3)
        if not 1 <= top <= 50:
            raise ProtocolError("invalid_request", f"'top' must be in 1..50, got {_show(top)}")
        with self.decision_agent(request) as (game, state, agent, player):
            decisions = agent.rank(state)
            walk = agent.rank if game.card_boxes() else None  # a keep's targets: a walk of the turn
            lines = advice_lines(game, state, decisions, agent.value_name, walk, top, lang)
        return {"agent": agent.name, "player": player,
                "advice": [{"action": game.action_to_json(d.action), "text": t} for d, t in zip(decisions, lines)]}

    def quit(self, request: Mapping[str, Any]) -> dict:
        self.quit_requested = True
        return {"bye": True}


# ----------------------------------------------------------------------------------------
# Helpers of the methods
# ----------------------------------------------------------------------------------------
def node_info(game: Game, state: Any) -> dict:
    """What kind of node ``state`` is, who acts, and the returns once it is over."""
    player = game.current_player(state)
    if player == TERMINAL:
        return {"node": "terminal", "player": None, "returns": [_finite(r) for r in game.returns(state)]}
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
        raise IllegalActionError(f"{game.NAME}: malformed action {_show(doc)}: {exc}") from None
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise IllegalActionError(f"{game.NAME}: malformed action {_show(doc)}: {_short(exc)}") from None


def chance_outcome(game: Game, state: Any, doc: list) -> Any:
    """A roll outcome document -> one of the node's outcomes.

    Dice may come in any order (a frontend reads real dice); a flat list of integers is
    sorted before it is matched. A value outside 1..6 is ``bad_dice``; a roll that cannot
    happen here (the wrong number of dice) is ``illegal_action``.
    """
    outcome = _tuplify(doc)
    flat_ints = all(isinstance(v, int) and not isinstance(v, bool) for v in outcome)
    if flat_ints:
        if any(not 1 <= v <= 6 for v in outcome):
            raise DiceError(f"{game.NAME}: dice are 1..6, got outcome {_show(doc)}")
        outcome = tuple(sorted(outcome))
    outcomes = [o for o, _ in game.chance_outcomes(state)]
    if outcome not in outcomes:
        sizes = sorted({len(o) for o in outcomes if isinstance(o, tuple)})
        need = f"; this roll throws {' or '.join(map(str, sizes))} {'die' if sizes == [1] else 'dice'}" if sizes else ""
        raise IllegalActionError(f"{game.NAME}: impossible roll outcome {_show(doc)} here{need}")
    return outcome


def action_label(game: Game, state: Any, action: Any, lang: str | None = None) -> str:
    """What a person would type for ``action`` (the engine's words; box names in the
    game's language, or ``lang``)."""
    return game.describe_action(action, state, lang)


def request_lang(request: Mapping[str, Any]) -> str | None:
    """The ``lang`` of a request (None: the game's own language), checked."""
    lang = request.get("lang")
    if lang is not None and lang not in LANGUAGES:
        raise ProtocolError("invalid_request", f"'lang' must be one of {', '.join(LANGUAGES)}, got {_show(lang)}")
    return lang


def legal_entries(game: Game, state: Any, lang: str | None = None) -> list[dict]:
    """The ``actions`` of ``legal`` at a decision: each legal action with its label, except
    that a claim of the bluff games comes once, with its stakes as a range: ``stake``
    ``{"min": ..., "max": ...}`` beside an ``action`` that carries the smallest stake (any
    stake of the range may be sent instead, docs/PROTOCOL.md). The list is as long as
    there are claims and answers, whatever the chips."""
    choices = game.legal_choices(state) if hasattr(game, "legal_choices") else game.legal_actions(state)
    entries = []
    for choice in choices:
        if not isinstance(choice, ClaimRange):
            entries.append({"action": game.action_to_json(choice), "label": action_label(game, state, choice, lang)})
            continue
        lo, hi = choice.min_stake, choice.max_stake
        action = choice.with_stake(lo)
        label = action_label(game, state, action) if lo == hi else f"{action_label(game, state, Claim(choice.claim))} stake {lo}..{hi}"
        entries.append({"action": game.action_to_json(action), "label": label, "stake": {"min": lo, "max": hi}})
    return entries


def scored_games() -> list[str]:
    """The games with boxes on a card (those ``score`` answers for)."""
    return [spec.name for spec in game_specs() if spec.engine(num_players=spec.default_players).card_boxes()]


def describe_server() -> dict:
    """The ``hello`` result: protocol version, methods, error codes, games and agents."""
    try:
        server = f"kocka {version('kocka')}"
    except Exception:  # not installed as a distribution (a bare checkout)
        server = "kocka"
    return {
        "protocol": PROTOCOL_VERSION,
        "server": server,
        "methods": list(REQUEST_FIELDS),
        "error_codes": list(ERROR_CODES),
        "state_schema": STATE_SCHEMA,
        "default_agent": DEFAULT_AGENT,
        "games": [describe_game(name) for name in game_names()],
        "agents": [
            {"name": name, "description": description, "games": agent_games(name)}
            for name, description in describe_agents()
        ],
    }


def describe_game(name: str) -> dict:
    """One game in the ``hello`` result (an engine that fails to import is marked so)."""
    try:
        cls = spec_for(name).engine
        game = cls(num_players=spec_for(name).default_players)
    except Exception as exc:  # one broken engine must not take hello down
        log.warning("game %s is unavailable: %s", name, exc)
        return {"name": name, "available": False, "description": f"unavailable: {_short(exc)}"}
    lo, hi = game.player_range()
    rules = []
    for f in dataclasses.fields(cls.RULES):
        default = getattr(game.rules, f.name)
        option = {"name": f.name, "default": _plain_json(default)}
        if f.name in cls.RULES.OPTIONS:
            option["values"] = _plain_json(list(cls.RULES.OPTIONS[f.name]))
        rules.append(option)
    doc = " ".join((cls.__doc__ or name).strip().split("\n\n")[0].split())  # the first paragraph
    return {
        "name": name,
        "available": True,
        "description": doc,
        "players": {"min": lo, "max": hi},
        "rules": rules,
        "actions": [a.__name__ for a in cls.ACTIONS],
        "agents": agent_names(name),
        "score": bool(game.card_boxes()),
        "language": game.words.language,
        "boxes": [{"id": b, "labels": {lang: game.box_label(b, lang) for lang in dict.fromkeys((game.words.language, "en"))}}
                  for b in game.card_boxes()],
    }


# ----------------------------------------------------------------------------------------
# Errors and encoding
# ----------------------------------------------------------------------------------------
def classify(exc: BaseException) -> tuple[str, str]:
    """The protocol error code and message of an exception raised answering a request."""
    message = str(exc)
    if isinstance(exc, ProtocolError):
        return exc.code, _short(message)
    if isinstance(exc, UnknownAgentError):
        return "unknown_agent", _short(message)
    if isinstance(exc, AgentUnavailable):
        # the registry wraps the table store's TableError (``raise ... from None`` keeps it
        # as the context); the message then carries the kocka-solve command
        behind = exc.__cause__ or exc.__context__
        return ("table_missing" if isinstance(behind, TableError) else "agent_unavailable"), _short(message)
    if isinstance(exc, TableError):
        return "table_missing", _short(message)
    for kind, code in ((DiceError, "bad_dice"), (InvalidStateError, "illegal_state"),
                       (IllegalActionError, "illegal_action"), (RulesError, "bad_rules"), (KockaError, "invalid_request")):
        if isinstance(exc, kind):
            return code, _short(message)
    return "internal_error", _short(f"{type(exc).__name__}: {message}")


def error_response(request_id: Any, code: str, message: str) -> dict:
    return {"id": request_id, "error": {"code": code, "message": message}}


def decode_request(line: bytes | str) -> Any:
    """One raw request -> the decoded JSON value, by the front ends' one loader
    (:mod:`kocka.solver.base.jsonio`). Raises :class:`ProtocolError`:
    ``parse_error`` for text that is not JSON or not UTF-8, ``invalid_request`` for JSON
    nested too deeply or with a number too large to accept."""
    try:
        return load_json(line, "request")
    except JSONLimitError as exc:
        raise ProtocolError("invalid_request", _short(exc)) from None
    except JSONInputError as exc:
        raise ProtocolError("parse_error", _short(exc)) from None


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
        fallback = error_response(response.get("id"), "internal_error", _short(f"response not encodable: {exc}"))
        return json.dumps(fallback, separators=(",", ":"))


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 3] + "..."


def _finite(value: float) -> float | None:
    """Values go out as numbers; a non-finite one (no such value) as null."""
    value = float(value)
    return value if math.isfinite(value) else None


def _plain_json(value: Any) -> Any:
    """Decision details and option values as plain JSON (tuples -> lists, numpy scalars ->
    numbers, non-finite floats -> null)."""
    value = _jsonable(value)
    if isinstance(value, Mapping):
        return {str(k): _plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_json(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return _finite(value)
    if hasattr(value, "item"):  # numpy scalar
        return _plain_json(value.item())
    return str(value)


# ----------------------------------------------------------------------------------------
# Transports
# ----------------------------------------------------------------------------------------
class Job:
    """One request handed to :class:`Workers`: ``done`` is set once ``value`` (the
    response line) is there, with ``error_code`` (None for a success); ``request_id``
    once the request is decoded, for a ``timeout`` answer given before ``done``."""

    __slots__ = ("work", "on_done", "done", "value", "request_id", "error_code", "started", "abandoned", "stuck")

    def __init__(self, work: Callable[["Job"], str], on_done: Callable[["Job"], None] | None) -> None:
        self.work = work
        self.on_done = on_done
        self.done = threading.Event()
        self.value: str | None = None
        self.request_id: Any = None
        self.error_code: str | None = None
        self.started = False
        self.abandoned = False
        self.stuck = False


class Workers:
    """Threads that answer requests, so that a transport can give a request up at its
    deadline and answer ``timeout``.

    At most ``threads`` requests are computed at once (:data:`DEFAULT_WORKER_THREADS`);
    the others wait in a queue. A Python thread cannot be stopped from outside: the thread
    of a request given up (:meth:`abandon`) while it runs finishes the work and its answer
    is dropped, and a new thread takes its place in the count; a request given up before
    a thread took it is never computed. The threads are daemons, so one stuck in a request
    never keeps the process from exiting. ``limit`` bounds the requests submitted and not
    finished, abandoned ones included: :meth:`submit` refuses more (the transport answers
    ``busy``). Threads start when needed and wait for the next job when idle.
    """

    def __init__(self, limit: int = DEFAULT_MAX_INFLIGHT, threads: int = DEFAULT_WORKER_THREADS) -> None:
        if limit < 1:
            raise ValueError(f"the seat needs room for one request at least, got a limit of {limit}")
        if threads < 1:
            raise ValueError(f"the seat needs one worker thread at least, got {threads}")
        self.limit = limit
        self.threads = threads
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._running = 0  # submitted, not finished
        self._queued = 0   # submitted, not yet taken by a thread
        self._idle = 0     # threads waiting for a job
        self._started = 0  # threads alive
        self._stuck = 0    # threads finishing an abandoned job

    @property
    def running(self) -> int:
        """Requests submitted and not finished (abandoned ones included)."""
        return self._running

    def submit(self, work: Callable[[Job], str], on_done: Callable[[Job], None] | None = None) -> Job | None:
        """Run ``work(job)`` on a worker thread; then ``on_done(job)`` there. None when
        ``limit`` requests are in progress."""
        with self._lock:
            if self._running >= self.limit:
                return None
            self._running += 1
            self._queued += 1
            start = self._start_needed()
        job = Job(work, on_done)
        self._jobs.put(job)
        if start:
            self._start_thread()
        return job

    def abandon(self, job: Job) -> None:
        """The transport has answered ``timeout`` for ``job``: never start it, and if it
        is running, let another thread take its place."""
        with self._lock:
            job.abandoned = True
            if job.started and not job.done.is_set() and not job.stuck:
                job.stuck = True
                self._stuck += 1
            start = self._start_needed()
        if start:
            self._start_thread()

    def _start_needed(self) -> bool:
        """Under the lock: whether a queued job has no idle thread and the cap allows
        another (then the thread is counted)."""
        if self._queued > self._idle and self._started - self._stuck < self.threads:
            self._started += 1
            return True
        return False

    def _start_thread(self) -> None:
        threading.Thread(target=self._serve, name=f"kocka-seat-{self._started}", daemon=True).start()

    def _serve(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            job = self._jobs.get()
            with self._lock:
                self._idle -= 1
                self._queued -= 1
                job.started = True
                skip = job.abandoned
            if not skip:
                try:
                    job.value = job.work(job)
                except BaseException as exc:  # noqa: BLE001 (the transport must get an answer)
                    log.exception("a worker failed")
                    job.value = encode_response(error_response(job.request_id, "internal_error", _short(f"{type(exc).__name__}: {exc}")))
            with self._lock:
                self._running -= 1
                if job.stuck:
                    self._stuck -= 1
                    self._started -= 1  # this thread was replaced: it ends here
                    leave = True
                else:
                    leave = False
            job.done.set()
            if job.on_done is not None:
                job.on_done(job)
            if leave:
                return


def answer_work(seat: Seat, body: bytes | str, refuse: Mapping[str, str] | None = None) -> Callable[[Job], str]:
    """The work of one request for :meth:`Workers.submit`: decode, note the id, handle."""

    def work(job: Job) -> str:
        try:
            request = decode_request(body)
        except ProtocolError as exc:
            job.error_code = exc.code
            return encode_response(error_response(None, exc.code, str(exc)))
        job.request_id = request_id_of(request)
        response = seat.handle(request, refuse)
        job.error_code = response["error"]["code"] if "error" in response else None
        return encode_response(response)

    return work


def busy_response() -> dict:
    return error_response(None, "busy", "the seat is working on as many requests as it takes at once; retry shortly")


def timeout_response(request_id: Any, seconds: float) -> dict:
    return error_response(request_id, "timeout", f"no answer within the seat's budget of {seconds:g} s per request; "
                                                 "the seat keeps serving (the work is abandoned)")


def answer_within(seat: Seat, workers: Workers | None, line: bytes | str, timeout: float | None) -> str:
    """The response line to ``line``, or ``timeout`` when it takes longer than ``timeout``
    seconds (None: no limit, and no worker thread)."""
    if workers is None or timeout is None:
        return seat.handle_line(line)
    job = workers.submit(answer_work(seat, line))
    if job is None:
        return encode_response(busy_response())
    if not job.done.wait(timeout):
        workers.abandon(job)
        log.warning("request %s: no answer within %g s; answered timeout", _show(job.request_id), timeout)
        return encode_response(timeout_response(job.request_id, timeout))
    return job.value


def serve_stdio(seat: Seat, stdin: BinaryIO, stdout: BinaryIO, request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
                max_inflight: int = DEFAULT_MAX_INFLIGHT) -> None:
    """Answer one request line after another until ``quit`` or end of input.

    Blank lines are skipped without an answer. A line longer than
    :data:`MAX_LINE_BYTES` is read to its end and answered with ``invalid_request``.
    A request is worked on in a worker thread and answered ``timeout`` when it takes
    longer than ``request_timeout`` seconds (None: no limit, no worker thread); the next
    line is read meanwhile. ``max_inflight`` bounds the abandoned requests still running
    (then ``busy``).
    """
    workers = None if request_timeout is None else Workers(max_inflight)
    while True:
        line = stdin.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:  # skip the rest of the oversized line
                rest = stdin.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
            answer = encode_response(error_response(None, "invalid_request", f"request line longer than {MAX_LINE_BYTES} bytes"))
        elif not line.strip():
            continue
        else:
            answer = answer_within(seat, workers, line, request_timeout)
        stdout.write(answer.encode("ascii") + b"\n")
        stdout.flush()
        if seat.quit_requested:
            return


def parse_address(text: str) -> tuple[str, int]:
    """``"127.0.0.1:8765"`` -> ``("127.0.0.1", 8765)``; port 0 picks a free port."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--http needs HOST:PORT, e.g. 127.0.0.1:8765, got {text!r}")
    return host.strip("[]"), int(port)


def make_http_server(seat: Seat, address: str, **options: Any) -> Any:
    """The seat over HTTP on ``address`` (``HOST:PORT``), bound and ready for
    ``serve_forever()``: a :class:`kocka.agents.frontends.seat.http.SeatHTTPServer`;
    ``options`` are fields of its :class:`~kocka.agents.frontends.seat.http.HTTPOptions`."""
    # deferred heavy optional import: starlette and uvicorn load only for HTTP, so the
    # stdio seat starts on the standard library alone
    from kocka.agents.frontends.seat import http as seat_http

    return seat_http.SeatHTTPServer(seat, seat_http.http_options(address, **options))


def run(options: SeatOptions = SeatOptions(), http: Any = None, log_level: str = "warning",
        request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT, max_inflight: int = DEFAULT_MAX_INFLIGHT) -> int:
    """Run the seat until ``quit`` or end of input (stdio), or ``quit`` (HTTP); the
    ``kocka seat`` command. ``http``: ``HOST:PORT`` or a
    :class:`~kocka.agents.frontends.seat.http.HTTPOptions` (None: stdio). Logs go to
    stderr; in stdio mode anything an engine might print is diverted to stderr too, so
    stdout carries responses only."""
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(), format="kocka seat: %(levelname)s %(message)s")
    seat = Seat(options)
    if http is not None:
        # deferred heavy optional import (starlette, uvicorn): only for --http
        from kocka.agents.frontends.seat import http as seat_http

        if isinstance(http, str):
            http = seat_http.http_options(http, request_timeout=request_timeout, max_inflight=max_inflight)
        return seat_http.serve(seat, http, log_level=log_level)
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    print(f"kocka seat: {PROTOCOL_VERSION} ready on stdin/stdout", file=sys.stderr, flush=True)
    try:
        serve_stdio(seat, sys.stdin.buffer, protocol_out, request_timeout, max_inflight)
    except (BrokenPipeError, KeyboardInterrupt):  # the frontend went away
        pass
    return 0

