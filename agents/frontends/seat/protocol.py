"""The AI seat: our agents behind a line protocol any frontend can speak (as chess GUIs
speak UCI), over stdio or HTTP. The protocol is specified in docs/PROTOCOL.md and
agents/frontends/seat/seat_schema.json; this module is its methods and their dispatch.

One request is one JSON object (one line on stdin, or one HTTP POST body); one response
comes back for it: ``{"id": ..., "result": {...}}`` or ``{"id": ..., "error": {"code":
..., "message": ...}}``. The ``id`` is echoed. The seat keeps serving after any error.

:class:`Seat` holds the caches (games by rules variant, agents by game; the value tables
themselves are loaded once per process by :func:`kocka.solver.store.table_store.get_table`) and
turns one request into one response with :meth:`Seat.handle` (decoded JSON) or
:meth:`Seat.handle_line` (raw text), from any number of threads at once. The rest of the
seat lives beside it: the request fields and their checks (:mod:`.fields`), the JSON in
and out and the error codes (:mod:`.encoding`), the worker threads that give a request
up at its deadline (:mod:`.workers`), and the two transports, :func:`serve_stdio`
(:mod:`.stdio`, standard library only) and :mod:`kocka.agents.frontends.seat.http`
(uvicorn and starlette, imported only for HTTP); both answer a request that overruns its
time budget with ``timeout``. :func:`run` (``kocka seat``) runs them.

The seat names no game: what it needs of one beyond the engine's methods comes from the
base :class:`~kocka.solver.rules.base.Game` (``legal_choices``, ``choice_to_json``,
``final_score_position``, ``scores_so_far``) or from the game's spec (``distribution``).

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
import pathlib
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

from kocka.agents.bots.base import Agent, AgentUnavailable
from kocka.agents.advice.cards import advice_lines
from kocka.agents.advice.bluff import frequencies_json, mixed_strategy, suggestion_text
from kocka.agents.advice.table_talk import distribution_tables
from kocka.agents.advice.kocka import stand_in_line
from kocka.agents.bots.catalogue import AgentOptions, agent_games, agent_names, describe_agents, make_agent
from kocka.agents.bots.levels import describe_levels
from kocka.agents.frontends.seat.encoding import (
    ERROR_CODES, MAX_LINE_BYTES, ProtocolError, chance_outcome, classify, decode_request, encode_response,
    error_response, finite, json_type, node_info, parse_action, plain_json, position, short, show,
)
from kocka.agents.frontends.seat.fields import REQUEST_FIELDS, SchemaChecked, check_fields, request_lang
from kocka.agents.frontends.seat.stdio import serve_stdio
from kocka.agents.frontends.seat.workers import (
    DEFAULT_MAX_INFLIGHT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WORKER_THREADS, DEFAULT_WRITE_TIMEOUT, Workers)
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.i18n import (
    DEFAULT_LANGUAGE, LANGUAGES, LanguageError, _, choose_language, current_language, use_language)
from kocka.solver.base.errors import IllegalActionError, InvalidStateError, KockaError, RulesError
from kocka.solver.base.work_limit import TooExpensiveError
from kocka.solver.store.table_store import build_command, solver_for
from kocka.solver.rules import CHANCE, TERMINAL, Game, game_names, game_specs, get_game, resolve, spec_for
from kocka.solver.rules.base import STATE_SCHEMA, jsonable
from kocka.solver.rules.words import seat_label

PROTOCOL_VERSION = "kocka.seat/1"
DEFAULT_AGENT = "optimal"

log = logging.getLogger("kocka.seat")


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
        self._hello: dict[str, dict] = {}  # by language: its titles and descriptions are translated
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

        The answer is written in the request's language (:func:`request_language`): its
        labels, advice texts and error messages. The language is a context variable, set
        here in the thread that computes the answer (a worker thread of :mod:`.workers`
        calls this method), so requests in different languages never mix.

        Safe to call from several threads at once: the games are immutable, the caches
        lock (:class:`_LRU`), and an agent serves one request at a time (:class:`_AgentPool`).
        """
        with use_language(request_language(request)):
            return self._answer(request, refuse)

    def _answer(self, request: Any, refuse: Mapping[str, str] | None) -> dict:
        request_id = None
        started = time.perf_counter()
        method = None
        try:
            if not isinstance(request, dict):
                raise ProtocolError("invalid_request", _("a request must be a JSON object, got {kind} {value}", kind=json_type(request), value=show(request)))
            request_id = request.get("id")
            if not (request_id is None or isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))):
                bad, request_id = request_id, None
                raise ProtocolError("invalid_request", _("'id' must be a string, an integer or null, got {kind} {value}", kind=json_type(bad), value=show(bad)))
            method = request.get("method")
            if method is None:
                raise ProtocolError("invalid_request", _("missing field 'method'"))
            if not isinstance(method, str):
                raise ProtocolError("invalid_request", _("'method' must be a string, got {kind} {value}", kind=json_type(method), value=show(method)))
            if method not in self.handlers:
                raise ProtocolError("unknown_method", _("unknown method {method}; methods: {methods}", method=show(method), methods=", ".join(self.handlers)))
            if refuse and method in refuse:
                raise ProtocolError("forbidden", refuse[method])
            if method in REQUEST_FIELDS:  # a handler added by a test or a benchmark checks its own fields
                request = check_fields(method, request)
            response = {"id": request_id, "result": self.handlers[method](request)}
        except Exception as exc:  # the seat answers every request, whatever went wrong
            code, message = classify(exc)
            if code == "internal_error":
                log.exception("internal error answering %s", show(request, 200))
            else:
                log.info("request %s: %s: %s", show(request_id), code, message)
            response = error_response(request_id, code, message)
        log.debug("%s %s answered in %.3f ms", method, show(request_id), 1000 * (time.perf_counter() - started))
        return response

    # ----- games, states, agents -----
    def game(self, name: str, rules: Mapping[str, Any] | None, players: int | None) -> Game:
        """The game ``name`` under ``rules`` for ``players`` seats (built once, cached)."""
        if name not in game_names():
            raise ProtocolError("unknown_game", _("unknown game {game}; games: {games}", game=show(name), games=", ".join(game_names())))
        if players is None:
            players = spec_for(name).default_players
        key = (name, json.dumps(rules or {}, sort_keys=True), players)

        def build() -> Game:
            try:
                return get_game(name, rules, num_players=players)
            except KockaError:
                raise
            except (TypeError, ValueError, AttributeError, KeyError) as exc:  # odd option values reach dataclass code
                raise RulesError(_("{game}: bad rules {rules}: {reason}", game=name, rules=show(rules), reason=short(exc))) from None

        return self._games.get_or_make(key, build)

    def game_and_state(self, request: Mapping[str, Any]) -> tuple[Game, Any]:
        """The game and state of a request with a ``state`` document; ``game``, ``rules``
        and ``players`` default to the document's own. The engine checks the state in
        full unless the schema has checked the request (:class:`SchemaChecked`)."""
        doc = request["state"]
        name = request.get("game", doc.get("game"))
        if not isinstance(name, str):
            raise InvalidStateError(_("the state document must name its game as a string, got {value}", value=show(doc.get("game"))))
        if "game" in request and "game" in doc and doc["game"] != name:
            raise InvalidStateError(_("the state document is for the game {document}, the request for {game}", document=show(doc["game"]), game=show(name)))
        rules = request.get("rules", doc.get("rules"))
        players = request.get("players", doc.get("players"))
        try:
            game = self.game(name, rules, players)
        except RulesError as exc:
            if "rules" in request or "players" in request:
                raise
            # the document's own rules or player count do not fit its game
            raise InvalidStateError(_("the state document does not fit the game {game}: {reason}", game=show(name), reason=exc)) from None
        if "players" in doc and doc["players"] != game.num_players:
            raise InvalidStateError(_("the state document is for {document} players, the request for {players}", document=show(doc["players"]), players=game.num_players))
        try:
            state = game.state_from_json(doc, types_checked=isinstance(request, SchemaChecked))
        except KockaError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:  # wrong types deep in a document
            raise InvalidStateError(_("this is not a {game} state: {reason}", game=game.NAME, reason=short(exc))) from None
        return game, state

    def agents(self, name: str, game: Game) -> _AgentPool:
        """The agents ``name`` for ``game`` (the first is built on the first request and
        kept: table agents load their table then)."""
        key = (name, id(game))  # a pool holds its game, so the id stays unique

        def make() -> Agent:
            try:
                return make_agent(name, game, seed=0, options=self.agent_options)
            except ModuleNotFoundError as exc:  # an agent whose module has not landed in this install
                raise AgentUnavailable(_("the agent {agent} is not available here: the module {module} is not installed", agent=show(name), module=show(exc.name))) from None

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
            if player == CHANCE:
                text = _("{game}: nobody decides now, a roll is due (apply its outcome first): {state}", game=game.NAME, state=short(game.describe_state(state)))
            else:
                text = _("{game}: nobody decides now, the game is over: {state}", game=game.NAME, state=short(game.describe_state(state)))
            raise ProtocolError("no_decision", text)
        seed = request.get("seed", 0)
        with self.agents(request.get("agent", DEFAULT_AGENT), game).borrow() as agent:
            agent.reset(seed)
            yield game, state, agent, player

    # ----- methods -----
    def hello(self, request: Mapping[str, Any]) -> dict:
        if "client" in request:
            log.info("hello from %s", show(request["client"]))
        lang = current_language()
        if lang not in self._hello:
            self._hello[lang] = describe_server()
        return self._hello[lang]

    def new(self, request: Mapping[str, Any]) -> dict:
        game = self.game(request["game"], request.get("rules"), request.get("players"))
        return position(game, game.new_initial_state())

    def legal(self, request: Mapping[str, Any]) -> dict:
        game, state = self.game_and_state(request)
        result = node_info(game, state)
        if result["node"] == "decision":
            result["actions"] = legal_entries(game, state, request_lang(request))
        elif result["node"] == "chance":
            result["outcomes"] = [{"outcome": jsonable(o), "probability": p} for o, p in game.chance_outcomes(state)]
        if request.get("totals"):
            totals = game.card_totals(state)
            if totals is not None:
                result["totals"] = totals
        return result

    def apply(self, request: Mapping[str, Any]) -> dict:
        game, state = self.game_and_state(request)
        has_action, has_outcome = "action" in request, "outcome" in request
        player = game.current_player(state)
        if player == TERMINAL:
            raise IllegalActionError(_("{game}: the game is over; nothing can be applied", game=game.NAME))
        if player == CHANCE:
            if has_action:
                raise IllegalActionError(_("{game}: a roll is due: send 'outcome' (the dice rolled), not 'action' {action}", game=game.NAME, action=show(request["action"])))
            move = chance_outcome(game, state, request["outcome"])
        else:
            if has_outcome:
                raise IllegalActionError(_("{game}: {seat} must decide: send 'action', not 'outcome' {outcome}", game=game.NAME, seat=seat_label(player), outcome=show(request["outcome"])))
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
            label = d.label
            if not label or label in engine_words_in_english(game, state, d.action):
                # a solver that labels with the engine's (English) words: the engine's
                # words in the request's language instead
                label = action_label(game, state, d.action, lang)
            entry = {
                "action": game.action_to_json(d.action),
                "label": label,
                "value": finite(d.value),
                "loss": finite(best - d.value),
            }
            if d.detail:
                entry["detail"] = plain_json(d.detail)
            actions.append(entry)
        result = {"agent": agent.name, "player": player, "value_name": agent.value_name, "actions": actions}
        if win is not None:
            result["win_probability"] = finite(win)
        note = stand_in_line(game, state, agent.stand_in)  # a stand-in for a table not here (Kocka, 3+ players)
        if note:
            result["note"] = note
        return result

    def score(self, request: Mapping[str, Any]) -> dict:
        game = self.game(request["game"], request.get("rules"), request.get("players"))
        boxes = game.card_boxes()
        if not boxes:
            raise ProtocolError("not_supported", _("score is for the games with boxes ({games}), not {game}", games=", ".join(scored_games()), game=game.NAME))
        dice = request["dice"]
        dice = validate_dice(dice, 5)
        if "box" in request and request["box"] not in boxes:
            raise ProtocolError("unknown_box", _("{game}: no box {box} on this card; boxes: {boxes}", game=game.NAME, box=show(request["box"]), boxes=", ".join(boxes)))
        first_throw = request.get("first_throw", False)
        wanted = [request["box"]] if "box" in request else list(boxes)
        return {"dice": list(dice), "first_throw": first_throw, "points": {b: game.box_points(b, dice, first_throw) for b in wanted}}

    def distribution(self, request: Mapping[str, Any]) -> dict:
        """The distribution of one seat's final score under the optimal agent's play (the
        scorecard games): the player to move from this position, another seat from its
        card at the start of its next turn; and every seat's card total so far."""
        game, state = self.game_and_state(request)
        hook = game.spec().distribution
        if hook is None:
            names = ", ".join(s.name for s in game_specs() if s.distribution is not None)
            raise ProtocolError("not_supported", _("distribution is for the scorecard games ({games}), not {game}", games=names, game=game.NAME))
        seat = request.get("seat", game.seat_on_turn(state))
        if not 0 <= seat < game.num_players:
            raise ProtocolError("invalid_request", _("'seat' must be from 0 to {last} (counted from 0), got {value}", last=game.num_players - 1, value=show(seat)))
        table = self.agent(DEFAULT_AGENT, game).table
        where = game.final_score_position(state, seat)
        tables = distribution_tables(game, self.options.cache_dir)  # the target table: a look-up, not the forward pass
        try:
            dist = self._distributions.get_or_make((id(game), where), lambda: resolve(hook)(game, table, where, **tables))
        except TooExpensiveError as exc:
            raise ProtocolError("too_expensive", f"{exc}: build it with {build_command(game, solver_for(game.NAME, 'target'), self.options.cache_dir)}") from None
        return {"seat": seat, "first": dist.first, "probs": [finite(p) for p in dist.probs], "mean": finite(dist.mean()),
                "totals": list(game.scores_so_far(state))}

    def advice(self, request: Mapping[str, Any]) -> dict:
        """The agent's first ``top`` actions in plain words (what a keep is going for,
        what it gives up), for hint displays."""
        lang = request_lang(request)
        top = request.get("top", 3)
        with self.decision_agent(request) as (game, state, agent, player):
            decisions = agent.rank(state)
            walk = agent.rank if game.card_boxes() else None  # a keep's targets: a walk of the turn
            lines = advice_lines(game, state, decisions, agent.value_name, walk, top, lang)
            strategy = mixed_strategy(game, state, decisions)  # the bluff games' equilibrium: a mixed strategy
            mixed = {} if strategy is None else {"frequencies": frequencies_json(game, strategy),
                                                 "suggestion": suggestion_text(game, state, strategy, None)}
        return {"agent": agent.name, "player": player,
                "advice": [{"action": game.action_to_json(d.action), "text": t} for d, t in zip(decisions, lines)], **mixed}

    def quit(self, request: Mapping[str, Any]) -> dict:
        self.quit_requested = True
        return {"bye": True}


# ----------------------------------------------------------------------------------------
# Helpers of the methods
# ----------------------------------------------------------------------------------------
def request_language(request: Any) -> str:
    """The language a request is answered in: its ``lang`` (when it is one of ours; a bad
    one is refused by the method's field checks, in the language chosen without it), else
    ``KOCKA_LANG``, else the own language of the game it names (its ``game`` or its state
    document's), else English."""
    asked, name = None, None
    if isinstance(request, dict):
        lang = request.get("lang")
        asked = lang if isinstance(lang, str) and lang in LANGUAGES else None
        name, doc = request.get("game"), request.get("state")
        if not isinstance(name, str) and isinstance(doc, dict):
            name = doc.get("game")
    own = spec_for(name).words.language if isinstance(name, str) and name in game_names() else None
    try:
        return choose_language(asked, own)
    except LanguageError:  # a bad KOCKA_LANG: the seat still answers every request, in English
        return DEFAULT_LANGUAGE


def action_label(game: Game, state: Any, action: Any, lang: str | None = None) -> str:
    """What a person would type for ``action`` (the engine's words; box names in the
    game's language, or ``lang``)."""
    return game.describe_action(action, state, lang)


def engine_words_in_english(game: Game, state: Any, action: Any) -> set[str]:
    """The engine's English labels of ``action`` (box names in the game's language or in
    English), the words a solver's ranking labels its actions with."""
    with use_language("en"):
        return {action_label(game, state, action), action_label(game, state, action, "en")}


def legal_entries(game: Game, state: Any, lang: str | None = None) -> list[dict]:
    """The ``actions`` of ``legal`` at a decision: each legal action with its label, except
    that a claim of the bluff games comes once, with its stakes as a range: ``stake``
    ``{"min": ..., "max": ...}`` beside an ``action`` that carries the smallest stake (any
    stake of the range may be sent instead, docs/PROTOCOL.md). The list is as long as
    there are claims and answers, whatever the chips (:meth:`Game.choice_to_json
    <kocka.solver.rules.base.Game.choice_to_json>`)."""
    return [game.choice_to_json(choice, state, lang) for choice in game.legal_choices(state)]


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
        return {"name": name, "available": False, "description": f"unavailable: {short(exc)}"}
    lo, hi = game.player_range()
    rules = []
    for f in dataclasses.fields(cls.RULES):
        default = getattr(game.rules, f.name)
        option = {"name": f.name, "default": plain_json(default)}
        if f.name in cls.RULES.OPTIONS:
            option["values"] = plain_json(list(cls.RULES.OPTIONS[f.name]))
        rules.append(option)
    doc = " ".join((cls.__doc__ or name).strip().split("\n\n")[0].split())  # the first paragraph
    return {
        "name": name,
        "available": True,
        "title": _(spec_for(name).title),  # in the language in force where the rules' catalogue has it
        "description": doc,
        "players": {"min": lo, "max": hi},
        "rules": rules,
        "actions": [a.__name__ for a in cls.ACTIONS],
        "agents": agent_names(name),
        "levels": describe_levels(name),  # level:1 .. level:10, each accepted as an agent name
        "score": bool(game.card_boxes()),
        "language": game.words.language,
        "boxes": [{"id": b, "labels": {lang: game.box_label(b, lang) for lang in dict.fromkeys((game.words.language, *LANGUAGES))}}
                  for b in game.card_boxes()],
    }


# ----------------------------------------------------------------------------------------
# Running the seat
# ----------------------------------------------------------------------------------------
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


__all__ = [
    # the seat and its methods
    "DEFAULT_AGENT", "PROTOCOL_VERSION", "Seat", "SeatOptions", "describe_game", "describe_server", "legal_entries",
    "scored_games",
    # running it
    "make_http_server", "parse_address", "run",
    # the parts beside it, named here for the commands, the tests and the scripts
    "DEFAULT_MAX_INFLIGHT", "DEFAULT_REQUEST_TIMEOUT", "DEFAULT_WORKER_THREADS", "DEFAULT_WRITE_TIMEOUT", "ERROR_CODES", "MAX_LINE_BYTES",
    "ProtocolError", "REQUEST_FIELDS", "Workers", "serve_stdio",
]  # fmt: skip
