"""Ranking the actions of a position from a loaded expected-score table
(:mod:`kocka.solver.solvers.scorecard.values`): the table stores the kernel's tables beside
the values, so one kernel call (:class:`_scorecard.TurnTables`) values every fill and keep
and sorts them; :func:`rank` returns them as a :class:`Ranking`, whose
:class:`~kocka.solver.base.decision.Decision` objects are made when they are read.
:func:`turn_shares` says where the turn ends after an action, :func:`rank_positions`
values many positions at once (numpy arrays, :data:`POSITION_DTYPE`), and
:func:`export_positions` writes labelled positions. The independent, slow ranking the
checks compare with is :func:`.reference.rank_reference`.
"""
from __future__ import annotations

import random
from collections.abc import Sequence as SequenceABC
from functools import cached_property
from typing import Any, Iterator, Sequence

import numpy as np

from kocka.solver.kernels import _scorecard
from kocka.solver.models.card_model import N_OUT, N_SMALL, five_dice
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import IllegalActionError, InvalidStateError, TableError
from kocka.solver.base.i18n import current_language, use_language
from kocka.solver.rules.five_dice import bits_of
from kocka.solver.rules.scorecard import (
    MAX_THROWS, Card, Declare, Fill, Keep, ScorecardGame, ScorecardState,
)
from kocka.solver.base.table_file import Table
from kocka.solver.solvers.scorecard.model import (
    KERNEL_ARRAYS, ScorecardModel, _check_table, _flag_box, _has_kernel_arrays, model_for,
)

_CARD_CACHE_ENTRIES = 4096
"""Cards remembered per table (what the table needs of one is a few numbers): a game
visits one card per turn, so this covers many concurrent games of a long-running seat."""


class _Ranker:
    """What :func:`rank` needs of one loaded table, made once per table: the kernel's
    :class:`_scorecard.TurnTables` over the table's arrays, the actions and their words."""

    def __init__(self, game: ScorecardGame, table: Table) -> None:
        _check_table(game, table)
        a = table.arrays
        if not _has_kernel_arrays(table):
            # a table of values only (the target tables): the kernel's tables from the rules
            model = model_for(game)
            if model.n_states != len(a["values"]):
                raise TableError(f"{game.NAME} table has {len(a['values'])} states, the rules give {model.n_states}")
            a = {**{name: getattr(model, name) for name in KERNEL_ARRAYS}, **a}
        dice = five_dice()
        self.game, self.table, self.dice = game, table, dice
        self.n = game.num_boxes
        self.nu = len(game.upper_boxes)
        self.flag_box = _flag_box(game)
        self.turns = _scorecard.TurnTables(
            a["values"], a["base"], a["ncls"], a["nflag"], a["grp_ptr"], a["grp_bits"], a["ctx_of"],
            a["fill_rewards"], a["special_outcomes"], a["special_rewards"], a["row_start"], a["uprank"],
            a["row_next"], a["row_off"], a["entry_group"], a["fnext"], self.nu, dice.probs, dice.child,
            dice.keep_counts)
        self.arrays = a
        # what card() reads of a card it has not met, as memoryviews over the same (mapped)
        # memory: a Python int per read, without numpy's indexing and scalar objects
        self._base, self._tclass, self._grp_ptr, self._toffset, self._grp_bits = (
            _lookup(a[name]) for name in ("base", "tclass", "grp_ptr", "toffset", "grp_bits"))
        self.fills = [Fill(b) for b in game.boxes]
        self._keeps: dict[int, Keep] = {}
        self._labels: dict[Any, str] = {}
        self._templates: dict[tuple, tuple] = {}  # (language, action id) -> (action, label, kind)
        self._cards: dict[Card, tuple] = {}
        self.declares = bool(getattr(game, "declares", False))  # SK-3: a face box declared after throw 1
        self._prepare_templates(current_language())

    @cached_property
    def model(self) -> ScorecardModel:
        if _has_kernel_arrays(self.table):
            return ScorecardModel.from_table(self.game, self.table)
        return model_for(self.game)

    def card(self, card: Card) -> tuple:
        """``(mask, class, flag, shift, groups)`` of a card at a turn start: ``shift`` its
        points so far plus its tracker offset, ``groups`` the mask's box groups."""
        got = self._cards.get(card)
        if got is not None:
            return got
        game = self.game
        mask = card.filled_mask
        tracker = game.tracker_of(card)
        U = mask & ((1 << self.nu) - 1)
        base = self._base[mask]
        cls = self._tclass[U, tracker]
        if base < 0 or cls < 0:
            raise InvalidStateError(f"{game.NAME}: card with filled mask {mask:#x} and tracker {tracker!r} cannot occur under these rules")
        flag = 0
        if self.flag_box is not None and card.entries[self.flag_box] is not None:
            flag = int(game.yahtzee_bonus((6,) * 5, 1 << self.flag_box, card.entries[self.flag_box]) > 0)
        g0, g1 = self._grp_ptr[mask], self._grp_ptr[mask + 1]
        got = (mask, cls, flag, game.entries_total(card) + self._toffset[U, tracker], tuple(self._grp_bits[g0:g1].tolist()))
        if len(self._cards) >= _CARD_CACHE_ENTRIES:
            self._cards.clear()
        self._cards[card] = got
        return got

    def action(self, aid: int) -> Any:
        """The action of an action id (:func:`action_space`)."""
        if aid < self.n:
            return self.fills[aid]
        if aid < self.n + N_SMALL:
            keep = self._keeps.get(aid)
            if keep is None:
                keep = self._keeps[aid] = Keep(self.dice.keeps[aid - self.n])
            return keep
        return Declare(self.game.boxes[aid - self.n - N_SMALL])

    def label(self, action: Any, state: ScorecardState) -> str:
        """The engine's words for ``action`` (the same at every position showing dice;
        remembered per action)."""
        key = (current_language(), action)  # the words of the language in force
        text = self._labels.get(key)
        if text is None:
            text = self._labels[key] = self.game.describe_action(action, state)
        return text

    def template(self, aid: int, state: ScorecardState) -> tuple:
        """``(action, label, kind)`` of action id ``aid`` in the language in force (kind 0 a
        fill, 1 a keep, 2 a declaration; ``state``: one showing dice)."""
        key = (current_language(), aid)
        template = self._templates.get(key)
        if template is None:
            action = self.action(aid)
            kind = 0 if aid < self.n else 1 if aid < self.n + N_SMALL else 2
            template = self._templates[key] = (action, self.label(action, state), kind)
        return template

    def _prepare_templates(self, lang: str) -> None:
        """Every action's template in ``lang``, made with the table (a few milliseconds):
        the first hint after loading then finds its words made."""
        showing = ScorecardState(cards=(Card((None,) * self.n),) * self.game.num_players, throw=1, dice=(1, 2, 3, 4, 5))
        count = self.n + N_SMALL + (self.n if self.declares else 0)
        with use_language(lang):
            for aid in range(count):
                self.template(aid, showing)

    def decision(self, aid: int, value: float, state: ScorecardState, pos: tuple) -> Decision:
        """The :class:`Decision` of action id ``aid`` with ``value`` at ``state`` (``pos``: its
        ``(mask, class, flag, throw, outcome)``)."""
        action, label, kind = self._templates.get((current_language(), aid)) or self.template(aid, state)
        if kind == 0:
            points = int(self.turns.fill_points(pos[0], pos[2], aid, pos[3] == 1, pos[4]))
            detail = {"type": "fill", "box": action.box, "points": points}
        elif kind == 1:
            detail = {"type": "keep", "dice": list(action.dice)}
        else:
            detail = {"type": "declare", "box": action.box}
        return Decision(action, value, label, detail)


def _lookup(array: np.ndarray) -> memoryview:
    """``array`` as a memoryview indexed like it (the array's own memory where it is
    contiguous and in this machine's byte order, a copy otherwise)."""
    native = array.dtype.newbyteorder("=")
    return memoryview(np.ascontiguousarray(array, dtype=native))


_RANKERS: dict[int, _Ranker] = {}


def _ranker(game: ScorecardGame, table: Table) -> _Ranker:
    """The ranker of a loaded table (one per table object and rules variant)."""
    got = _RANKERS.get(id(table))
    if got is not None and got.game is game and got.table is table:
        return got
    if (got is None or got.table is not table or got.game.rules != game.rules or type(got.game) is not type(game)
            or got.game.num_players != game.num_players):  # one seat serves solitaire and table games alike
        if len(_RANKERS) >= 16:
            _RANKERS.pop(next(iter(_RANKERS)))
        got = _RANKERS[id(table)] = _Ranker(game, table)
    return got


class Ranking(SequenceABC):
    """The legal actions of one position, best first (what :func:`rank` returns): a
    sequence of :class:`~kocka.solver.base.decision.Decision`, each made when it is first read.

    ``values`` and ``ids`` give all of them at once without making the decisions (ids as in
    :func:`action_space`). Compares equal to any sequence of the same decisions.
    """

    __slots__ = ("_ranker", "_state", "_pos", "ids", "_values", "_items")

    def __init__(self, ranker: _Ranker, state: ScorecardState, pos: tuple, ids: list[int], values: list[float]) -> None:
        self._ranker, self._state, self._pos = ranker, state, pos
        self.ids, self._values = ids, values
        self._items: list[Decision | None] = [None] * len(ids)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self.ids)))]
        d = self._items[i]
        if d is None:
            d = self._items[i] = self._ranker.decision(self.ids[i], self._values[i], self._state, self._pos)
        return d

    def __iter__(self) -> Iterator[Decision]:
        items, ids, values = self._items, self.ids, self._values
        decision, state, pos = self._ranker.decision, self._state, self._pos
        for i in range(len(ids)):
            d = items[i]
            if d is None:
                d = items[i] = decision(ids[i], values[i], state, pos)
            yield d

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SequenceABC) and not isinstance(other, (str, bytes)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Ranking({list(self)!r})"

    @property
    def values(self) -> np.ndarray:
        """The values, best first (float64, one per action)."""
        return np.array(self._values)


def rank(game: ScorecardGame, table: Table, state: ScorecardState) -> Sequence[Decision]:
    """Every legal action of the player to move, best first, valued as his expected final
    score under optimal solitaire play from there on (empty at chance and terminal nodes).

    One kernel call values every fill and keep (:class:`_scorecard.TurnTables`); the result
    is a :class:`Ranking`. Ties keep the order fills (by box), declarations, keeps (larger
    first, then in keep order), as the forward distribution does.
    """
    game.check_state(state)  # (the engine remembers the states it found valid)
    ranker = _ranker(game, table)
    if state.dice is None:  # a chance node, or the end (a finished game shows no dice)
        return []
    mask, cls, flag, shift, groups = ranker.card(state.cards[state.player])
    o = ranker.dice.outcome_index(state.dice)
    throw = state.throw
    pos = (mask, cls, flag, throw, o)
    if len(groups) == 1 and not (ranker.declares and throw == 1 and state.declared is None):
        ids, values = ranker.turns.rank(mask, cls, flag, throw, o, groups[0], shift)
        return Ranking(ranker, state, pos, ids, values)
    return _rank_declaring(ranker, state, pos, shift)


def _rank_declaring(ranker: _Ranker, state: ScorecardState, pos: tuple, shift: float) -> Ranking:
    """:func:`rank` where a face box may be declared (SK-3): the declarations from the
    engine's legal actions, the turn group's fills and keeps."""
    game, n = ranker.game, ranker.n
    mask, cls, flag, throw, o = pos
    bits = bits_of(game.turn_boxes(state))
    ids, values = ranker.turns.rank(mask, cls, flag, throw, o, bits, shift) if bits else ([], [])
    items = [(-v, 0 if a < n else 2, i, a, v) for i, (a, v) in enumerate(zip(ids, values))]
    if throw == 1 and state.declared is None:
        for action in game.legal_actions(state):
            if isinstance(action, Declare):
                b = game.box_index(action.box)
                v = ranker.turns.group_value(mask, cls, flag, 1 << b, o) + shift
                items.append((-v, 1, b, n + N_SMALL + b, v))
    items.sort(key=lambda t: t[:3])
    return Ranking(ranker, state, pos, [t[3] for t in items], [t[4] for t in items])


def turn_shares(game: ScorecardGame, table: Table, state: ScorecardState, action: Any) -> dict[str, float]:
    """Where the turn ends after ``action`` when the rest of it follows :func:`rank`'s best
    actions: box id -> probability (exact; the kernel's forward turn, the tie rules of
    :func:`rank`). A fill ends the turn in its box."""
    game.check_state(state)  # (the engine remembers the states it found valid)
    ranker = _ranker(game, table)
    if state.dice is None:
        raise IllegalActionError(f"{game.NAME}: no decision here: {game.describe_state(state)}")
    if isinstance(action, Fill):
        return {action.box: 1.0}
    mask, cls, flag, _, groups = ranker.card(state.cards[state.player])
    o = ranker.dice.outcome_index(state.dice)
    if isinstance(action, Declare):
        shares = ranker.turns.turn_shares(mask, cls, flag, 1, o, -1, groups.index(1 << game.box_index(action.box)))
    elif isinstance(action, Keep):
        if state.throw >= MAX_THROWS:
            raise IllegalActionError(f"{game.NAME}: no throw left after throw {state.throw}")
        group = groups.index(bits_of(game.turn_boxes(state))) if len(groups) > 1 else 0
        keep = ranker.dice.keeps.index(tuple(action.dice)) if len(action.dice) < 5 else -1
        if keep < 0 or keep >= N_SMALL:
            raise IllegalActionError(f"{game.NAME}: {game.describe_action(action, state)} is not a keep here")
        shares = ranker.turns.turn_shares(mask, cls, flag, state.throw, o, keep, group)
    else:
        raise IllegalActionError(f"{game.NAME}: {action!r} is not a move of this game")
    return {game.boxes[b]: s for b, s in enumerate(shares) if s > 0}


# ----------------------------------------------------------------------------------------
# Batch queries
# ----------------------------------------------------------------------------------------
POSITION_DTYPE = np.dtype([("mask", np.int32), ("tracker", np.int32), ("flag", np.int8), ("throw", np.int8),
                           ("outcome", np.int16), ("points", np.float64)])
"""One position of :func:`rank_positions`: the filled-box ``mask`` (bit i: box i), the
``tracker`` (:meth:`.ScorecardGame.tracker_of`), ``flag`` (Yahtzee: the Yahtzee box holds
50), the ``throw`` made (1..3), the ``outcome`` showing (index into
:func:`.card_model.five_dice` outcomes) and the ``points`` written so far
(:meth:`.ScorecardGame.entries_total`)."""


def action_space(game: ScorecardGame) -> list[Any]:
    """The actions of :func:`rank_positions`' columns: ``Fill`` of every box, then ``Keep``
    of every keep of 0..4 dice (:func:`.card_model.five_dice` order)."""
    return [Fill(b) for b in game.boxes] + [Keep(k) for k in five_dice().keeps[:N_SMALL]]


def positions_from_states(game: ScorecardGame, states: Sequence[ScorecardState]) -> np.ndarray:
    """The positions (:data:`POSITION_DTYPE`) of decision states (the player to move's card)."""
    out = np.zeros(len(states), dtype=POSITION_DTYPE)
    flag_box = _flag_box(game)
    fd = five_dice()
    for i, state in enumerate(states):
        game.check_state(state)
        if state.dice is None or game.current_player(state) < 0:
            raise InvalidStateError(f"{game.NAME}: position {i} is not a decision: {game.describe_state(state)}")
        card = state.cards[state.player]
        flag = 0
        if flag_box is not None and card.entries[flag_box] is not None:
            flag = int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, card.entries[flag_box]) > 0)
        out[i] = (card.filled_mask, game.tracker_of(card), flag, state.throw, fd.outcome_index(state.dice),
                  game.entries_total(card))
    return out


def rank_positions(game: ScorecardGame, table: Table, positions: np.ndarray) -> np.ndarray:
    """The value of every action at many positions at once: ``values[i, a]`` is the
    expected final score of action ``action_space(game)[a]`` at ``positions[i]`` (NaN where
    it is not legal), shape (N, boxes + 210). One kernel pass, no Python per position.

    ``positions``: a structured array of :data:`POSITION_DTYPE` (see
    :func:`positions_from_states`). Games whose cards have several box groups (the SK
    declaration) are not supported here; use :func:`rank`.
    """
    ranker = _ranker(game, table)
    a = ranker.arrays
    p = np.asarray(positions)
    if p.dtype != POSITION_DTYPE or p.ndim != 1:
        raise InvalidStateError(f"positions must be a 1-D array of POSITION_DTYPE, got {p.dtype!r} with shape {p.shape!r}")
    mask = p["mask"].astype(np.int64)
    n_masks = 1 << ranker.n
    if ((mask < 0) | (mask >= n_masks - 1)).any():
        raise InvalidStateError(f"{game.NAME}: a position's mask is outside 0..{n_masks - 2} (an open card)")
    tracker = p["tracker"].astype(np.int64)
    if ((tracker < 0) | (tracker >= game.tracker_size)).any():
        raise InvalidStateError(f"{game.NAME}: a position's tracker is outside 0..{game.tracker_size - 1}")
    U = mask & ((1 << ranker.nu) - 1)
    cls = a["tclass"][U, tracker]
    flag = p["flag"].astype(np.int64)
    if ((a["base"][mask] < 0) | (cls < 0) | (flag < 0) | (flag >= a["nflag"][mask])).any():
        raise InvalidStateError(f"{game.NAME}: a position's card cannot occur under these rules")
    if ((p["throw"] < 1) | (p["throw"] > MAX_THROWS) | (p["outcome"] < 0) | (p["outcome"] >= N_OUT)).any():
        raise InvalidStateError(f"{game.NAME}: a position's throw is outside 1..3 or its outcome outside 0..251")
    ptr = a["grp_ptr"]
    if ranker.declares or (ptr[mask + 1] - ptr[mask] != 1).any():
        raise InvalidStateError(f"{game.NAME}: batch ranking takes games without a declaration (SK-3); rank() handles it")
    out = np.empty((len(p), ranker.n + N_SMALL))
    ranker.turns.rank_positions(
        mask.astype(np.int32), cls.astype(np.int32), flag.astype(np.int8), np.ascontiguousarray(p["throw"]),
        np.ascontiguousarray(p["outcome"]), a["grp_bits"][ptr[mask]].astype(np.int32),
        (p["points"] + a["toffset"][U, tracker]).astype(np.float64), out)
    return out


def export_positions(game: ScorecardGame, table: Table, limit: int, seed: int = 0) -> Iterator[dict]:
    """Labelled positions for training programs: ``limit`` decision positions met in
    seeded solitaire games played with the table's best actions (random dice), each as
    ``{"state": state document, "actions": [{"action", "label", "value"}, ...]}`` with every
    legal action and its value (expected final score), best first."""
    rng = random.Random(seed)
    solo = game if game.num_players == 1 else type(game)(game.rules, 1)
    produced = 0
    while produced < limit:
        state = solo.new_initial_state()
        while produced < limit and not solo.is_terminal(state):
            if solo.is_chance_node(state):
                outcomes = solo.chance_outcomes(state)
                state = solo.apply(state, rng.choices([o for o, _ in outcomes], weights=[p for _, p in outcomes])[0])
                continue
            ranked = rank(solo, table, state)
            yield {"state": solo.state_to_json(state),
                   "actions": [{"action": solo.action_to_json(d.action), "label": d.label, "value": d.value}
                               for d in ranked]}
            produced += 1
            state = solo.apply(state, ranked[0].action)

