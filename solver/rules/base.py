"""The one shape every game has (after OpenSpiel's Game/State, made Pythonic).

A :class:`Game` holds fixed facts (rule options, players, dice); a state is an immutable,
hashable value (a frozen dataclass) holding one position. Chance is explicit: at a
chance node :meth:`Game.chance_outcomes` lists ``(outcome, probability)`` pairs and a
roll is applied with :meth:`Game.apply` like any action.

Public methods check legality in one place and then call the per-game hooks
(``_legal_actions``, ``_apply``, ``_chance_outcomes``, ...). Every illegal action or
impossible state raises :class:`~kocka.solver.base.errors.IllegalActionError` or
:class:`~kocka.solver.base.errors.InvalidStateError` with a message naming the problem.

JSON: ``game.state_to_json(state)`` / ``game.state_from_json(doc)`` and
``game.action_to_json(a)`` / ``game.action_from_json(doc)``; documents carry
``"schema": "kocka.state/1"`` and the game name (docs/STATE.md).
"""
from __future__ import annotations

import dataclasses
import json
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Hashable, Iterable, Mapping, Sequence

from kocka.solver.base.errors import IllegalActionError, InvalidStateError, Reason, RulesError, either, shown
from kocka.solver.base.i18n import N_, _
from kocka.solver.base.short_digest import sha256
from kocka.solver.rules import words as _words
from kocka.solver.rules.spec import GameSpec, spec_for

STATE_SCHEMA = "kocka.state/1"
ACTION_SCHEMA = "kocka.action/1"

CHANCE = -1
"""``current_player`` of a chance node (a roll is due)."""
TERMINAL = -2
"""``current_player`` of a finished game."""


@dataclasses.dataclass(frozen=True)
class TurnProgress:
    """Where the player on turn stands in a turn of counted throws (:meth:`Game.turn_progress`):
    ``throw`` throws made of ``throws_allowed``; ``stage`` the card being played where a game
    plays several in turn (Polish, PL-8), ``fences`` his fences left (Polish, PL-12); None where
    a game has no such thing."""

    throw: int
    throws_allowed: int
    stage: int | None = None
    fences: int | None = None

    def throw_text(self) -> str:
        """Which throw of the turn this is, in the language in force ("throw 1 of 3"): the
        one wording of every front end, hint and state description."""
        return _("throw {throw} of {throws}", throw=self.throw, throws=self.throws_allowed)


@dataclasses.dataclass(frozen=True)
class Rules:
    """Base of every game's rule options: a frozen dataclass of option values.

    Subclasses declare their options as fields whose defaults are the RULES.md defaults,
    and list the allowed values in ``OPTIONS`` (field name -> tuple of values; numeric
    parameters may be omitted there). Option names in RULES.md use dots
    (``kocka.min_bank``); fields use the part after the game prefix (``min_bank``), and
    :meth:`from_options` accepts either spelling.
    """

    GAME: ClassVar[str] = ""
    OPTIONS: ClassVar[Mapping[str, tuple]] = {}

    def __post_init__(self) -> None:
        for name, allowed in self.OPTIONS.items():
            value = getattr(self, name)
            if value not in allowed:
                raise RulesError(_("the rule option {name} must be {options}, not {value}",
                                   name=name, options=either(allowed), value=shown(value)))

    def options(self) -> dict[str, Any]:
        """All option values, by field name."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None = None) -> "Rules":
        """Build from a mapping of option names (``min_bank`` or ``kocka.min_bank``)."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in (options or {}).items():
            name = key.rsplit(".", 1)[-1] if key not in fields else key
            if name not in fields:
                raise RulesError(_("there is no rule option {name} in this game; the options are {known}",
                                   name=shown(key), known=", ".join(sorted(fields))))
            default = fields[name].default
            if isinstance(default, bool) and isinstance(value, str):
                value = {"true": True, "yes": True, "false": False, "no": False}.get(value.lower(), value)
            elif isinstance(default, int) and not isinstance(default, bool) and isinstance(value, str):
                try:
                    value = int(value)
                except ValueError:
                    raise RulesError(_("the rule option {name} must be a whole number, not {value}",
                                       name=shown(key), value=shown(value))) from None
            values[name] = value
        return cls(**values)

    def variant_id(self) -> str:
        """Stable id of this rules variant, recorded in every table built for it.

        ``"<game>:<sha256 of the canonical option JSON, 12 hex digits>"``; equal for equal
        option values, independent of field order.
        """
        known = self.__dict__.get("_variant_id")  # computed once per (immutable) rules object
        if known is None:
            canonical = json.dumps({"game": self.GAME, **self.options()}, sort_keys=True)
            known = f"{self.GAME}:{sha256(canonical.encode()).hexdigest()[:12]}"
            object.__setattr__(self, "_variant_id", known)
        return known

    def describe(self) -> str:
        """``option=value`` list, for humans."""
        return ", ".join(f"{k}={v}" for k, v in self.options().items())


_JSON_SCALARS = frozenset({int, float, str, bool, type(None)})


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: dataclasses as objects of their fields, tuples and
    lists as lists, frozensets as sorted lists, mapping keys as strings (the state and
    action documents, docs/STATE.md)."""
    if type(value) in _JSON_SCALARS:  # most leaves: no dataclass or Mapping (an ABC, slow to test) to look for
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(jsonable(v) for v in value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    return value


CHECKED_STATES = 4096  # valid states a game remembers (Game.check_state)


class Game(ABC):
    """Fixed facts of one game under one :class:`Rules`; the API every engine offers.

    Subclasses set ``NAME``, ``RULES`` (their Rules class), ``STATE`` and ``ACTIONS``
    (the action dataclasses, for JSON), and implement the underscored hooks.
    """

    NAME: ClassVar[str] = ""
    RULES: ClassVar[type[Rules]] = Rules
    STATE: ClassVar[type] = object
    ACTIONS: ClassVar[tuple[type, ...]] = ()

    def __init__(self, rules: Rules | None = None, num_players: int = 1) -> None:
        self.rules = rules if rules is not None else self.RULES()
        if not isinstance(self.rules, self.RULES):
            raise RulesError(f"{self.NAME} needs {self.RULES.__name__}, got {type(rules).__name__}")
        lo, hi = self.player_range()
        if not lo <= num_players <= hi:
            raise RulesError(_("this game takes {low} to {high} players, not {count}",
                               low=lo, high=hi, count=shown(num_players)))
        self.num_players = num_players

    def __repr__(self) -> str:
        return f"{type(self).__name__}(players={self.num_players}, {self.rules.describe()})"

    # ----- facts -----
    @classmethod
    def spec(cls) -> GameSpec:
        """This game's registered description (:mod:`kocka.solver.rules.spec`)."""
        return spec_for(cls.NAME)

    def player_range(self) -> tuple[int, int]:
        """Smallest and largest number of players (from the spec)."""
        return self.spec().players

    # ----- words (kocka.solver.rules.words: one place for what a player reads) -----
    @property
    def words(self) -> _words.Words:
        return self.spec().words

    def describe_action(self, action: Any, state: Any = None, lang: str | None = None) -> str:
        """``action`` as a player types it ("keep 6", "write kis sor", "bank")."""
        return _words.action_text(action, self, state, lang)

    def action_phrases(self, action: Any, state: Any) -> list[str]:
        """Every normalized phrase a player may type for ``action`` in ``state``."""
        return _words.action_phrases(action, self, state)

    def box_label(self, box: str, lang: str | None = None) -> str:
        """The name of box ``box`` on the card (the game's language, or ``lang``)."""
        return self.words.box(box, lang)

    def card_boxes(self) -> tuple[str, ...]:
        """The box ids of a player's card, in card order (empty for games without boxes)."""
        return ()

    def action_box(self, action: Any) -> str | None:
        """The box of the card that ``action`` writes, scratches, declares or records; None
        for the other actions and in games without boxes."""
        return None

    def box_points(self, box: str, dice: Sequence[int], first_throw: bool = False) -> int:
        """What ``dice`` would score in ``box`` (the engine's own scoring); games with
        boxes override it."""
        raise RulesError(_("this game has no boxes to score"))

    def roll_key(self, state: Any) -> Hashable | None:
        """Which (seat, turn, throw) the roll due in ``state`` belongs to, for games whose
        states say so (the scorecard games); ``None`` elsewhere. Seeded play keys its rolls
        by it, so two agents on their own cards see the same dice on the same throw."""
        return None

    # ----- public API (checks here, hooks below) -----
    @abstractmethod
    def new_initial_state(self) -> Any:
        """The state before anything has happened (often a chance node)."""

    @abstractmethod
    def current_player(self, state: Any) -> int:
        """Seat to act (0-based), :data:`CHANCE` or :data:`TERMINAL`."""

    def is_chance_node(self, state: Any) -> bool:
        return self.current_player(state) == CHANCE

    def is_terminal(self, state: Any) -> bool:
        return self.current_player(state) == TERMINAL

    def legal_actions(self, state: Any) -> list:
        """Legal decisions at a decision node (empty at chance and terminal nodes)."""
        self.check_state(state)
        if self.current_player(state) < 0:
            return []
        actions = list(self._legal_actions(state))
        # the caller applies one of them next, to this very state: apply's legality check
        # reads them back instead of working them out again (by identity, so no hashing)
        self._last_legal = (state, tuple(actions))
        return actions

    def chance_outcomes(self, state: Any) -> list[tuple[Any, float]]:
        """``(outcome, probability)`` pairs at a chance node; probabilities sum to 1."""
        self.check_state(state)
        if not self.is_chance_node(state):
            raise IllegalActionError(_("no dice are to be rolled now"))
        return list(self._chance_outcomes(state))

    def apply(self, state: Any, action: Any) -> Any:
        """The state after ``action`` (a decision, or an outcome at a chance node)."""
        self.check_state(state)
        player = self.current_player(state)
        if player == TERMINAL:
            raise IllegalActionError(_("the game is over, so {action} cannot be played",
                                       action=shown(self.describe_action(action))))
        if player == CHANCE:
            self._check_outcome(state, action)
        else:
            self._check_action(state, action)
        return self._apply(state, action)

    def returns(self, state: Any) -> tuple[float, ...]:
        """Each seat's result at a terminal state (points, chips or win share per game)."""
        self.check_state(state)
        if not self.is_terminal(state):
            raise IllegalActionError(_("the results are known only at the end of the game"))
        return tuple(self._returns(state))

    def final_scores(self, state: Any) -> tuple[float, ...]:
        """Each seat's score at the end as players count it: card totals and net chips
        here (the returns); Kocka's banked points and the bluff games' chips, whose
        returns are win shares, override it."""
        return tuple(float(r) for r in self.returns(state))

    def check_state(self, state: Any, recheck: bool = False) -> None:
        """Raise :class:`InvalidStateError` if ``state`` cannot occur under these rules.

        A state found valid is remembered (a few thousand, the newest): states are frozen
        and the rules fixed, so it stays valid, and the seat and the solvers check the same
        state several times per request (read from JSON, then ranked). ``recheck`` checks
        it in full even when an equal state was found valid: a state read from JSON may
        equal a valid one and still hold the wrong types (``0.0 == 0 == False`` in
        Python, and they hash alike), which only the full check refuses."""
        if not isinstance(state, self.STATE):
            raise InvalidStateError(f"{self.NAME}: expected a {self.STATE.__name__}, got {type(state).__name__}")
        rules = getattr(state, "rules", self.rules)
        if rules is not self.rules and rules != self.rules:  # "is" first: comparing rules compares every option
            raise InvalidStateError(f"{self.NAME}: state was made under other rules ({state.rules.describe()})")
        checked = self.__dict__.setdefault("_checked_states", {})
        try:
            if state in checked and not recheck:
                return
        except TypeError:  # an unhashable state (a mutable field): checked every time
            self._check_state(state)
            return
        self._check_state(state)
        if len(checked) >= CHECKED_STATES:
            checked.clear()
        checked[state] = None

    def describe_state(self, state: Any) -> str:
        return repr(state)

    # ----- what generic front ends ask of a position (defaults; families override) -----
    def legal_choices(self, state: Any) -> list:
        """The legal decisions as a player chooses among them: :meth:`legal_actions` here;
        the bluff games give each claim once, with the range of its stakes."""
        return self.legal_actions(state)

    def choice_to_json(self, choice: Any, state: Any, lang: str | None = None) -> dict:
        """One of :meth:`legal_choices` as a front end lists it: the action document and
        its words (box names in the game's language, or ``lang``)."""
        return {"action": self.action_to_json(choice), "label": self.describe_action(choice, state, lang)}

    def seat_on_turn(self, state: Any) -> int:
        """The seat whose turn it is, also at its rolls and, at the end, the last to play:
        the state's ``player`` where it records one, else the player to act (0 when none)."""
        return getattr(state, "player", max(self.current_player(state), 0))

    def scores_so_far(self, state: Any) -> tuple[int, ...]:
        """Each seat's points as the players count them during the game (card totals,
        Kocka's banked points); empty where a game keeps none."""
        return ()

    def card_totals(self, state: Any) -> list[dict] | None:
        """Per seat, the card's upper section so far (the face entries written, summed),
        what the upper-section rule adds to it as it stands and the total with it
        (``{"upper", "bonus", "total"}``), for the page's card; None for a game without a
        card (Kocka, the bluff games)."""
        return None

    def turn_progress(self, state: Any) -> TurnProgress | None:
        """How far the turn in play is, for games whose turn is a count of throws (the
        scorecard and Polish games); None for the others (Kocka's turn is a running total)."""
        return None

    def dice_in_view(self, state: Any) -> tuple[int, ...] | None:
        """The dice the player on turn decides on, as a front end shows them: the five
        dice thrown (the kept ones among them), Kocka's roll to set dice aside from; None
        when none are on the table (a roll is due, or the game throws no open dice)."""
        return None

    def dice_kept(self, state: Any) -> tuple[int, ...]:
        """The dice kept aside for the roll due (the five-dice games' keeps); () where none are."""
        return ()

    def rethrow_size(self, state: Any) -> int | None:
        """At a choice between throwing again and stopping with the turn's points (Kocka's
        bank or roll, KOCKA-12): how many dice a further throw rolls; None elsewhere."""
        return None

    def turn_total(self, state: Any) -> int | None:
        """The points collected in the turn in play and not yet banked (Kocka's turn total,
        KOCKA-10); None where a turn keeps no running total."""
        return None

    def turn_event(self, state: Any) -> str | None:
        """How the last transition ended a turn where a front end tells it apart: Kocka's
        ``"bust"``, ``"bank"``, ``"six_ones"`` (its ``last_event``); None elsewhere."""
        return None

    def dice_in_play(self, state: Any) -> int | None:
        """In a turn that keeps a running total (:meth:`turn_total`), how many dice it has:
        those to throw at a roll, those thrown while the roll is decided on, those left
        after a set-aside (Kocka's ``dice_in_play``, KOCKA-10); None elsewhere."""
        return None

    def declared_box(self, state: Any) -> str | None:
        """The box the player on turn has declared for this turn (Slovak SK-3, Polish stage 2
        PL-15); None while none is declared and in games that declare none."""
        return None

    def box_scores_now(self, state: Any) -> dict[str, int]:
        """What the dice in view would score in each box a legal move writes now, by box
        id, with what the move earns beside the entry (Yahtzee's bonus +100): the card's
        "now" column. Empty where no box may be written (and in games without boxes)."""
        return {}

    def keep_action(self, state: Any, dice: tuple[int, ...]) -> Any | None:
        """The move that keeps (sets aside) ``dice`` in ``state``, legal or not, for a front
        end that reads the dice a player typed (:meth:`apply` says why an illegal one is
        not allowed); None in games that keep no dice."""
        return None

    def claim_history(self, state: Any) -> tuple:
        """The claims made in the round in play, oldest first, so that the standing claim is
        the last (the bluff games, BLUFF-3); () when none stands and in games without claims."""
        return ()

    def roller(self, state: Any) -> int | None:
        """The seat that throws the roll due in ``state`` (a chance node): the state's
        ``player`` where it records one; None where the roll is nobody's own."""
        return getattr(state, "player", None)

    def with_stake(self, action: Any, stake: int) -> Any | None:
        """``action`` with ``stake`` chips put on it where actions carry a stake (the
        bluff games' claims), unchecked (:meth:`apply` checks it); None otherwise."""
        return None

    def final_score_position(self, state: Any, seat: int) -> Hashable | None:
        """What ``seat``'s final score still depends on in ``state``, where every seat plays
        a card of its own (the scorecard games, whose spec names a ``distribution``): the
        position for the seat in mid-turn, its card for the others. None where the seats'
        scores depend on each other."""
        return None

    # ----- hidden information -----
    def observation(self, state: Any, player: int) -> dict:
        """The part of ``state`` that ``player`` may see, as JSON (games with hidden
        information override this; in perfect-information games it is the whole state)."""
        return self.state_to_json(state)

    # ----- JSON -----
    def state_to_json(self, state: Any) -> dict:
        """A versioned JSON document of ``state`` (see docs/STATE.md)."""
        return {
            "schema": STATE_SCHEMA,
            "game": self.NAME,
            "rules": self.rules.options(),
            "players": self.num_players,
            "state": jsonable(self._state_fields(state)),
        }

    def state_from_json(self, doc: Mapping[str, Any] | str, types_checked: bool = False) -> Any:
        """Inverse of :meth:`state_to_json`; validates the document and the state.

        ``types_checked``: the caller has held the document to the published schema with
        JSON types taken strictly (the seat, :mod:`kocka.agents.frontends.seat.schema`:
        an integer field holds an int, never ``0.0`` or ``false``). Then a state equal to
        one found valid is that state, type for type, and the memo of
        :meth:`check_state` may answer for it; otherwise the state is checked in full."""
        doc = _parse_json(doc, N_("the state document is not valid JSON: {problem}"), InvalidStateError)
        if not isinstance(doc, Mapping):
            raise InvalidStateError(_("a state document must be a JSON object"))
        if doc.get("schema") != STATE_SCHEMA:
            raise InvalidStateError(_("the state document must have the schema {schema}, not {value}",
                                      schema=STATE_SCHEMA, value=shown(doc.get("schema"))))
        if doc.get("game") != self.NAME:
            raise InvalidStateError(_("the state is for the game {other}, not {game}",
                                      other=shown(doc.get("game")), game=self.NAME))
        # the document's own rules, as state_to_json writes them, are these rules: known
        # without building a Rules object (a seat reads one state per request)
        if "rules" in doc and doc["rules"] != self._rules_options() and self.RULES.from_options(doc["rules"]) != self.rules:
            raise InvalidStateError(_("the state was made under other rules of this game"))
        body = doc.get("state")
        if not isinstance(body, Mapping):
            raise InvalidStateError(_("the state document has no state object"))
        try:
            state = self._state_from_fields(body)
        except InvalidStateError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(_("the state document is malformed: {problem}", problem=shown(str(exc)))) from None
        self.check_state(state, recheck=not types_checked)  # the memo cannot tell 0 from 0.0 or False
        return state

    def _rules_options(self) -> dict[str, Any]:
        """``self.rules.options()`` as a state document holds it after JSON (tuples are
        lists there), made once: the rules of a game are fixed."""
        known = self.__dict__.get("_rules_options_json")
        if known is None:
            known = self.__dict__["_rules_options_json"] = json.loads(json.dumps(self.rules.options()))
        return known

    def action_to_json(self, action: Any) -> dict:
        return {"type": type(action).__name__, **jsonable(action)}

    def action_from_json(self, doc: Mapping[str, Any] | str) -> Any:
        doc = _parse_json(doc, N_("the action is not valid JSON: {problem}"), IllegalActionError)
        if not isinstance(doc, Mapping):
            raise IllegalActionError(_("an action must be a JSON object, not {value}", value=shown(doc)))
        return self._action_from_mapping(doc)

    def _action_from_mapping(self, doc: Mapping[str, Any]) -> Any:
        """The action of a parsed action document (a game with nested fields adds them)."""
        kinds = {cls.__name__: cls for cls in self.ACTIONS}
        kind = doc.get("type")
        if kind not in kinds:
            raise IllegalActionError(_("there is no action type {kind} in this game; the types are {known}",
                                       kind=shown(kind), known=", ".join(sorted(kinds))))
        cls = kinds[kind]
        fields = {f.name: f for f in dataclasses.fields(cls)}
        args = {k: v for k, v in doc.items() if k != "type"}
        unknown = set(args) - set(fields)
        if unknown:
            raise IllegalActionError(_("the action {kind} has no field {fields}", kind=kind, fields=", ".join(sorted(map(str, unknown)))))
        for name, value in args.items():
            expected = _SCALAR_FIELDS.get(str(fields[name].type))
            if expected is not None and not _is_scalar(value, expected):
                raise IllegalActionError(_("the action {kind} needs {name} as {expected}, not {value}",
                                           kind=kind, name=name, expected=_(expected[1]), value=shown(value)))
        try:
            return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in args.items()})
        except (TypeError, ValueError) as exc:
            raise IllegalActionError(_("the action {kind} is malformed: {problem}", kind=kind, problem=shown(str(exc)))) from None

    # ----- hooks -----
    @abstractmethod
    def _legal_actions(self, state: Any) -> Iterable: ...

    @abstractmethod
    def _chance_outcomes(self, state: Any) -> Iterable[tuple[Any, float]]: ...

    @abstractmethod
    def _apply(self, state: Any, action: Any) -> Any: ...

    @abstractmethod
    def _returns(self, state: Any) -> Sequence[float]: ...

    def _check_state(self, state: Any) -> None:
        """Per-game consistency checks of a state; raise InvalidStateError."""

    def _legal_for_check(self, state: Any) -> Sequence[Any]:
        """The legal actions at ``state``, read back when :meth:`legal_actions` has just
        listed them for this very state object (a frozen state: the same list), else worked
        out."""
        last = self.__dict__.get("_last_legal")
        if last is not None and last[0] is state:
            return last[1]
        return self._legal_actions(state)

    def _check_action(self, state: Any, action: Any) -> None:
        if action not in self._legal_for_check(state):
            raise IllegalActionError(self._why_illegal(state, action))

    def _why_illegal(self, state: Any, action: Any) -> str:
        """One line naming what is wrong with ``action`` (only called for illegal actions);
        games override it with their own reasons."""
        return Reason(_("{action} is not allowed now", action=shown(self.describe_action(action, state))))

    def _check_outcome(self, state: Any, outcome: Any) -> None:
        if not any(outcome == o for o, _probability in self._chance_outcomes(state)):
            raise IllegalActionError(_("the roll {dice} is not possible here", dice=shown(outcome)))

    def _state_fields(self, state: Any) -> Mapping[str, Any]:
        """State fields for JSON (default: the dataclass fields minus ``rules``)."""
        return {f.name: getattr(state, f.name) for f in dataclasses.fields(state) if f.name != "rules"}

    def _state_from_fields(self, fields: Mapping[str, Any]) -> Any:
        """Inverse of :meth:`_state_fields`; lists become tuples."""
        declared = {f.name: f for f in dataclasses.fields(self.STATE) if f.name != "rules"}
        unknown = set(fields) - set(declared)
        if unknown:
            raise InvalidStateError(_("the state has no field {fields}", fields=", ".join(sorted(map(str, unknown)))))
        missing = [name for name, f in declared.items() if name not in fields
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        if missing:
            raise InvalidStateError(_("the state lacks the field {fields}", fields=", ".join(missing)))
        return self.STATE(**tuplify(fields))


_SCALAR_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "str": ((str,), N_("a name, a string")),
    "int": ((int,), N_("a whole number")),
    "int | None": ((int, type(None)), N_("a whole number or null")),
}
"""Action fields of one plain JSON type, by their annotation: an action document with
another type there (a box given as a number, say) is an illegal action, not a crash."""


def _is_scalar(value: Any, expected: tuple[tuple[type, ...], str]) -> bool:
    return isinstance(value, expected[0]) and not isinstance(value, bool)


def _parse_json(doc: Any, what: str, error: type[Exception]) -> Any:
    """``doc`` parsed when it is JSON text, else as it is; bad JSON raises ``error`` with
    the message ``what`` (marked with ``N_``, its ``{problem}`` the parser's)."""
    if not isinstance(doc, str):
        return doc
    try:
        return json.loads(doc)
    except json.JSONDecodeError as exc:
        raise error(_(what, problem=shown(str(exc)))) from None


def tuplify(value: Any) -> Any:
    """The inverse of :func:`jsonable` on the way in: every JSON list a tuple (states and
    actions are frozen, hashable values)."""
    if isinstance(value, list):
        return tuple(tuplify(v) for v in value)
    if isinstance(value, Mapping):
        return {k: tuplify(v) for k, v in value.items()}
    return value


def pick_outcome(outcomes: Sequence[tuple[Any, float]], u: float) -> Any:
    """The outcome that the uniform number ``u`` in [0, 1) picks from ``(outcome,
    probability)`` pairs by inverse CDF; the last one when rounding leaves the cumulative
    probability at or below ``u``."""
    acc = 0.0
    for outcome, p in outcomes:
        acc += p
        if u < acc:
            return outcome
    return outcomes[-1][0]


def play_random_game(game: Game, rng, max_steps: int = 100_000) -> tuple[Any, list]:
    """Play to the end with uniform random decisions and true chance; return (final
    state, history). The generic invariant driver used by tests and docs."""
    state = game.new_initial_state()
    history = []
    for _step in range(max_steps):
        if game.is_terminal(state):
            return state, history
        if game.is_chance_node(state):
            choice = pick_outcome(game.chance_outcomes(state), rng.random())
        else:
            actions = game.legal_actions(state)
            choice = actions[rng.randrange(len(actions))]
        history.append(choice)
        state = game.apply(state, choice)
    raise RuntimeError(f"{game.NAME}: no end after {max_steps} steps")
