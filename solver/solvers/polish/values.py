"""Exact solitaire solver of Polish poker dice (RULES.md section 4): the full three-stage
game with fences, declarations and from-hand bonuses, and the basic game.

**Objective.** Maximise the expected game total of one player (PL-17). Every score comes
from the rules engine (:func:`.polish.box_value`, :func:`.polish.basic_value`, and the
:class:`.polish.PolishGame` card: ``net_upper_range``, ``stage_bonus``, ``scratch_entry``,
``box_groups``, ``turn_boxes``); nothing about scoring is re-implemented here.

**State.** Between turns of stage k a player is ``(filled mask, tracker class, F)``: the
tracker is the stage's net upper score, merged into classes by
:func:`.card_model.tracker_classes` (the same exact merging as the scorecard games;
the PL-9 bonus is the offset of a full card), and F the fences held (PL-12), capped at
``fence_cap`` (the rules' cap; when the rules leave fences unbounded, 3 per turn played,
which never binds, so the solution is exact). A layer only holds the counts it can reach
(at most 3 per box filled before, PL-12, plus 3 of headroom so that the value of one more
fence is defined at every stage start); the table stores each layer's reachable counts
only. Stage 3 only reaches the masks that fill the card in order (PL-16).

**Turn.** The generic kernel :func:`kocka.solver.kernels._scorecard.solve_budget_masks` adds the
throw budget to the scorecard turn: after a throw with r throws of budget left, writing a
box leaves F' = r fences (F + 3 - t = budget - t), so one widget per remaining budget r,
``X[r] = max(write with F' = r, best keep of X[r - 1])``, serves every F; the first throw
uses the from-hand rewards (PL-13). Stage 2 declares after the first throw (one box group
per open box, PL-15); scratching before the first throw earns 3 fences (PL-11, PL-12). The
keep lattice, tracker classes, mask layout and layer loop are shared with the scorecard
solver (:mod:`kocka.solver.models.card_model`).

**Stages.** Stage k's values at an empty card depend on the fences carried in, so stage 3
is solved first; its empty-card values per F become the full-card values of stage 2, and so
on (:func:`build_arrays`).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from kocka.solver.kernels import _scorecard
from kocka.solver.models.card_model import (
    N_KEEP, N_OUT, TrackerRows, best_proper_keep, five_dice, keep_values, layer_chunks, layer_order,
    reachable_groups, state_bases, three_throw_turn, tracker_classes, tracker_rows,
)
from kocka.solver.base.parallel import parallel_pool, run_calls
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import InvalidStateError
from kocka.solver.base.progress import Progress
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.decision import Decision
from kocka.solver.rules.base import Game
from kocka.solver.rules.five_dice import FACE_OF_BOX, bits_of
from kocka.solver.rules.polish import (
    Declare, EndTurn, PolishBasicGame, PolishBasicState, PolishGame, PolishState, Record, Scratch, Write,
)
from kocka.solver.rules.polish_scoring import (
    BASE_THROWS, PolishBasicRules, PolishRules, basic_value, box_value, stage_total,
)
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.models.table_solver import TableSolver

HEADROOM = 3
"""Fence counts solved beyond the reachable ones (PL-12: at most 3 per turn played)."""
VALUE_NAME = "expected final total"
MIN_PARALLEL_STATES = 20_000


# ----------------------------------------------------------------------------------------
# The stage model
# ----------------------------------------------------------------------------------------
@lru_cache(maxsize=16)
def _engine(rules: PolishRules) -> PolishGame:
    return PolishGame(rules)


@dataclass(frozen=True)
class _NetUpperTracker:
    """The net upper score of one stage card (PL-9) in the tracker interface of
    :func:`.card_model.tracker_classes`: tracker ``net - lowest net``, the range and the
    bonus from the engine (:meth:`.PolishGame.net_upper_range`, :meth:`.PolishGame.stage_bonus`)."""

    rules: PolishRules

    NAME = PolishGame.NAME

    @property
    def upper_boxes(self) -> list[int]:
        return list(_engine(self.rules).upper_boxes)

    @property
    def lowest(self) -> int:
        return _engine(self.rules).net_upper_range()[0]

    @property
    def tracker_size(self) -> int:
        lowest, highest = _engine(self.rules).net_upper_range()
        return highest - lowest + 1

    @property
    def initial_tracker(self) -> int:
        return -self.lowest

    def tracker_after(self, tracker: int, box: int, dice) -> int:
        return tracker + box_value(self.rules.boxes[box], dice, False, self.rules)

    def final_bonus(self, tracker: int) -> int:
        return _engine(self.rules).stage_bonus(tracker + self.lowest)

    def score_table(self) -> np.ndarray:
        return _reward_table(self.rules).transpose(0, 2, 1)  # (box, outcome, from hand)


@lru_cache(maxsize=16)
def _reward_table(rules: PolishRules) -> np.ndarray:
    """``rew[b, ft, o]``: entry of writing outcome ``o`` into box ``b`` (``ft``: from hand),
    from :func:`.polish.box_value` (PL-9, PL-10, PL-13). Writing is never worse than a
    scratch after a throw (a lower box scores 0 when it misses), so this is the best fill."""
    outcomes = dice_tables(5).outcomes
    rew = np.empty((len(rules.boxes), 2, N_OUT))
    for b, box in enumerate(rules.boxes):
        for o in range(N_OUT):
            dice = tuple(int(v) for v in outcomes[o])
            rew[b, 0, o] = box_value(box, dice, False, rules)
            rew[b, 1, o] = box_value(box, dice, True, rules)
    return rew


def _scratch_tables(rules: PolishRules) -> tuple[np.ndarray, np.ndarray]:
    """Scratching box ``b`` before the first throw (PL-11, :meth:`.PolishGame.scratch_entry`):
    its entry (-inf: forbidden) and, for a face box, an outcome with no die of its face,
    whose entry (-3f) moves the tracker alike."""
    dt = dice_tables(5)
    game = _engine(rules)
    rew = np.zeros(len(rules.boxes))
    out = np.zeros(len(rules.boxes), dtype=np.int32)
    for b, box in enumerate(rules.boxes):
        entry = game.scratch_entry(box)
        rew[b] = -math.inf if entry is None else entry
        if box in FACE_OF_BOX:
            face = FACE_OF_BOX[box]
            out[b] = dt.outcome_index((face % 6 + 1,) * 5)
    return rew, out


@dataclass
class StageModel:
    """States of one stage kind (1 free order, 2 declared box, 3 fixed order) of a rules
    variant. State ``base[m] + c`` is tracker class ``c`` of filled mask ``m``; values are
    ``(states, NF)`` arrays over the fences F = 0..cap. The tracker rows are packed as
    :class:`.card_model.TrackerRows`."""

    rules: PolishRules
    kind: int
    cap: int
    masks: np.ndarray
    layer_ptr: np.ndarray
    base: np.ndarray
    ncls: np.ndarray
    nflag: np.ndarray
    grp_ptr: np.ndarray
    grp_bits: np.ndarray
    tclass: np.ndarray
    toffset: np.ndarray
    rows: TrackerRows
    n_states: int
    reachable_states: int

    @property
    def n_boxes(self) -> int:
        return len(self.rules.boxes)

    @property
    def start_state(self) -> int:
        t0 = _tracker(self.rules).initial_tracker
        return int(self.base[0] + self.tclass[0, t0])


@lru_cache(maxsize=16)
def _tracker(rules: PolishRules) -> _NetUpperTracker:
    return _NetUpperTracker(rules)


@lru_cache(maxsize=16)
def _classes(rules: PolishRules):
    return tracker_classes(_tracker(rules))


def solver_cap(rules: PolishRules) -> int:
    """The rules' cap, or (unbounded fences) one that never binds: at most 3 fences are
    earned per turn (PL-12), so 3 per box of every stage plus the headroom."""
    if rules.fence_cap is not None:
        return rules.fence_cap
    return 3 * len(rules.boxes) * rules.stages + HEADROOM


def layer_fences(rules: PolishRules, kind: int, layer: int) -> int:
    """How many fence counts F = 0.. are solved at ``layer`` (boxes filled) of stage
    ``kind``: those reachable after the turns played so far, plus :data:`HEADROOM`; each
    layer holds 3 more than the one before, which covers every successor it reads."""
    turns = len(rules.boxes) * (kind - 1) + layer
    return min(solver_cap(rules) + 1, 3 * turns + HEADROOM + 1)


def build_stage_model(rules: PolishRules, kind: int) -> StageModel:
    tr = _tracker(rules)
    n, nu = len(rules.boxes), len(tr.upper_boxes)
    tclass, toffset, rows, n_trackers = _classes(rules)
    ncls_u = tclass.max(axis=1) + 1
    all_masks = np.arange(1 << n, dtype=np.int64)
    # the engine's box groups of stage ``kind`` (PL-14..PL-16): in stage 3 the card fills
    # in order, so only prefix masks are reached
    game = _engine(rules)
    reach, grp_ptr, grp_bits = reachable_groups(n, lambda mask: game.box_groups(kind, mask))
    masks, layer_ptr = layer_order(reach, n)
    U_of = all_masks & ((1 << nu) - 1)
    ncls = ncls_u[U_of].astype(np.int32)
    sizes = np.where(reach, ncls.astype(np.int64), 0)
    base = state_bases(masks, sizes)
    return StageModel(
        rules=rules, kind=kind, cap=solver_cap(rules), masks=masks, layer_ptr=layer_ptr, base=base,
        ncls=ncls, nflag=np.ones(1 << n, dtype=np.int8), grp_ptr=grp_ptr, grp_bits=grp_bits,
        tclass=tclass, toffset=toffset, rows=_packed_rows(rules),
        n_states=int(sizes.sum()), reachable_states=int(np.where(reach, n_trackers[U_of], 0).sum()),
    )


@lru_cache(maxsize=16)
def _packed_rows(rules: PolishRules) -> TrackerRows:
    return tracker_rows(_tracker(rules), _classes(rules)[2])


def _kernel_args(model: StageModel) -> tuple:
    """The tables of :func:`_scorecard.solve_budget_masks` after its ``Wn`` argument, but
    ``cap``."""
    scratch_rew, scratch_out = _scratch_tables(model.rules)
    r = model.rows
    return (
        model.base, model.ncls, model.grp_ptr, model.grp_bits, _reward_table(model.rules),
        scratch_rew, scratch_out, r.start, r.uprank, r.next, r.off, r.group,
        len(_tracker(model.rules).upper_boxes), BASE_THROWS, five_dice().probs, five_dice().child,
    )


def _stage_layout(model: StageModel) -> dict[str, np.ndarray]:
    """Where each layer's values lie in a stage's flat value array: ``lstart`` (first state
    of each layer), ``lnf`` (the fence counts it holds, :func:`layer_fences`) and ``lptr``
    (offset of its ``(states, lnf)`` block)."""
    n = model.n_boxes
    lstart = np.array([int(model.base[model.masks[p]]) if p < len(model.masks) else model.n_states
                       for p in model.layer_ptr], dtype=np.int64)
    lnf = np.array([layer_fences(model.rules, model.kind, L) for L in range(n + 1)], dtype=np.int64)
    lptr = np.concatenate([[0], np.cumsum(np.diff(lstart)[:n + 1] * lnf)]).astype(np.int64)
    return {"lptr": lptr, "lnf": lnf, "lstart": lstart}


def _solve_chunk(masks: np.ndarray, first: int, out: np.ndarray, next_first: int, Wn: np.ndarray, args: tuple,
                 cap: int) -> None:
    _scorecard.solve_budget_masks(masks, first, out, next_first, Wn, *args, cap)


def solve_stage(model: StageModel, next_start: np.ndarray, options: BuildOptions = BuildOptions(progress=False),
                label: str = "") -> dict[str, np.ndarray]:
    """Values of one stage: expected points of this stage and the later ones (less the
    tracker offset), the full card worth ``next_start[F]``, stored compactly: layer L holds
    its states' first :func:`layer_fences` counts, one block of a flat array (``values``,
    with ``lptr``/``lnf``/``lstart`` of :func:`_stage_layout`). The kernel writes each
    layer straight into its block (a layer reads only the next one)."""
    n = model.n_boxes
    layout = _stage_layout(model)
    lstart, lnf, lptr = layout["lstart"], layout["lnf"], layout["lptr"]
    values = np.empty(int(lptr[-1]))
    blocks = [values[lptr[L]:lptr[L + 1]].reshape(int(lstart[L + 1] - lstart[L]), int(lnf[L])) for L in range(n + 1)]
    blocks[n][:] = next_start[:lnf[n]]
    args = _kernel_args(model)
    jobs = max(int(options.jobs), 1)
    progress = Progress(int(model.n_states - 1), label or f"polish stage {model.kind}", enabled=options.progress)
    pool = BuildOptions(jobs=jobs, backend="threading") if model.n_states >= MIN_PARALLEL_STATES else BuildOptions()
    with parallel_pool(pool) as parallel:
        for L in range(n - 1, -1, -1):
            chunks = layer_chunks(model, L, 8 * jobs if parallel is not None else 1)
            run_calls(parallel, _solve_chunk, [
                (masks, s0, blocks[L][s0 - lstart[L]:s0 - lstart[L] + cnt], int(lstart[L + 1]), blocks[L + 1], args,
                 model.cap) for masks, s0, cnt in chunks])
            progress.advance(int(lstart[L + 1] - lstart[L]))
    progress.close()
    return {"values": values, **layout}


def start_values(model: StageModel, solved: dict[str, np.ndarray]) -> np.ndarray:
    """Value of the empty card per F = 0..lnf(0) - 1 (tracker offset included)."""
    t0 = _tracker(model.rules).initial_tracker
    nf = int(solved["lnf"][0])
    return solved["values"][(model.start_state - solved["lstart"][0]) * nf:][:nf] + model.toffset[0, t0]


# ----------------------------------------------------------------------------------------
# Building the full game
# ----------------------------------------------------------------------------------------
def build_arrays(game: PolishGame, options: BuildOptions = BuildOptions(progress=False)
                 ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Solve the stages last to first. Arrays: ``values{k}`` (states, F) and ``base{k}`` per
    stage k, ``tclass``/``toffset`` of the tracker."""
    rules = game.rules
    cap = solver_cap(rules)
    arrays: dict[str, np.ndarray] = {}
    next_start = np.zeros(cap + 1)
    per_stage: dict[str, Any] = {}
    for k in range(rules.stages, 0, -1):
        t0 = time.perf_counter()
        model = build_stage_model(rules, k)
        t1 = time.perf_counter()
        solved = solve_stage(model, next_start, options, label=f"polish stage {k}/{rules.stages}")
        t2 = time.perf_counter()
        for name, arr in solved.items():
            arrays[f"{name}{k}"] = arr
        arrays[f"base{k}"] = model.base
        start = start_values(model, solved)
        del solved
        per_stage[str(k)] = {
            "states": model.n_states, "reachable_states": model.reachable_states,
            "card_states_x_fences": model.n_states * (cap + 1),
            "seconds_model": round(t1 - t0, 3), "seconds_values": round(t2 - t1, 3),
            "start_value_by_fences": [float(v) for v in start if not np.isnan(v)],
            "fence_value_at_start": float(start[1] - start[0]) if cap >= 1 else 0.0,
            "states_per_s": round(model.n_states / max(t2 - t1, 1e-9)),
        }
        next_start = start
        arrays["tclass"], arrays["toffset"] = model.tclass, model.toffset
    extra = {
        "expected_score": float(next_start[0]),
        "fence_cap": cap,
        "states": sum(s["states"] for s in per_stage.values()),
        "reachable_states": sum(s["reachable_states"] for s in per_stage.values()),
        "stages": per_stage,
        "value_dtype": "float64",
    }
    return arrays, extra


# ----------------------------------------------------------------------------------------
# Values of positions: the turn widget in numpy (independent of the kernel's lattice)
# ----------------------------------------------------------------------------------------
@dataclass
class _Position:
    """What the table needs of the player to move: stage, current card, fences, points."""

    stage: int
    mask: int
    tracker: int
    fences: int
    so_far: float  # completed stages' totals plus the current card's entries


def _position(game: PolishGame, state: PolishState) -> _Position:
    rules, p = game.rules, state.player
    done = sum(stage_total(game.card(state, p, k), rules) for k in range(1, state.stage))
    card = state.cards[state.stage - 1][p]
    mask = sum(1 << i for i, v in enumerate(card) if v is not None)
    tr = _tracker(rules)
    net = sum(card[u] for u in tr.upper_boxes if card[u] is not None)
    return _Position(state.stage, mask, net - tr.lowest, state.fences[p],
                     done + sum(v for v in card if v is not None))


def _future(game: PolishGame, table: Table, stage: int, mask: int, tracker, fences: int) -> np.ndarray | float:
    """Expected points from a turn start of ``stage`` on (tracker offset included)."""
    cap = int(table.meta.extra["fence_cap"])
    nu = len(_tracker(game.rules).upper_boxes)
    U = mask & ((1 << nu) - 1)
    base = int(table[f"base{stage}"][mask])
    cls = table["tclass"][U, tracker]
    if base < 0 or np.any(cls < 0):
        raise InvalidStateError(f"polish: stage {stage} card with mask {mask:#x} cannot occur under these rules")
    layer = bin(mask).count("1")
    nf = int(table[f"lnf{stage}"][layer])
    fences = min(fences, cap)
    if fences >= nf:
        raise InvalidStateError(f"polish: {fences!r} fences cannot be held with {layer} boxes of stage {stage} filled (PL-12)")
    at = table[f"lptr{stage}"][layer] + (base + cls - table[f"lstart{stage}"][layer]) * nf + fences
    return table[f"values{stage}"][at] + table["toffset"][U, tracker]


class _Turn:
    """The widget of one turn of the player to move, from the table's successor values."""

    def __init__(self, game: PolishGame, table: Table, pos: _Position) -> None:
        self.game, self.table, self.pos = game, table, pos
        self.rew = _reward_table(game.rules)
        self.upper = set(_tracker(game.rules).upper_boxes)
        self._succ: dict[tuple[int, int], np.ndarray] = {}
        self._widgets: dict[int, list] = {}

    def after_fill(self, b: int, fences: int, scratch: bool = False) -> np.ndarray:
        """Value (per outcome) of the rest of the game after filling box ``b`` leaving
        ``fences``; with ``scratch`` the pre-throw scratch (the tracker as if no die of the face)."""
        key = (b, fences, scratch)
        if key not in self._succ:
            pos = self.pos
            tracker = pos.tracker
            if b in self.upper:
                scratched = self.game.scratch_entry(self.game.rules.boxes[b]) if scratch else None
                entries = self.rew[b, 0] if scratched is None else np.full(N_OUT, float(scratched))
                tracker = pos.tracker + entries.astype(np.int64)
            self._succ[key] = np.broadcast_to(
                _future(self.game, self.table, pos.stage, pos.mask | 1 << b, tracker, fences), (N_OUT,)).astype(float)
        return self._succ[key]

    def fills(self, bits: int, r: int) -> tuple[np.ndarray, np.ndarray]:
        """(later throw, from hand) value of the best fill in ``bits`` with r throws left."""
        G0 = np.full(N_OUT, -math.inf)
        G1 = np.full(N_OUT, -math.inf)
        for b in range(len(self.game.rules.boxes)):
            if bits >> b & 1:
                future = self.after_fill(b, r)
                G0 = np.maximum(G0, self.rew[b, 0] + future)
                G1 = np.maximum(G1, self.rew[b, 1] + future)
        return G0, G1

    def widget(self, bits: int, r_max: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per remaining budget r = 0..r_max: (X after a later throw, Y after the first
        throw, keep values K of X[r - 1] for the throw that leaves r)."""
        rows = self._widgets.setdefault(bits, [])
        while len(rows) <= r_max:
            r = len(rows)
            G0, G1 = self.fills(bits, r)
            if r == 0:
                K = np.full(N_KEEP, -math.inf)
                proper = np.full(N_OUT, -math.inf)
            else:
                K = keep_values(rows[r - 1][0])
                proper = best_proper_keep(K)
            rows.append((np.maximum(G0, proper), np.maximum(G1, proper), K))
        return rows


_TURNS = threading.local()
TURNS_KEPT = 8
"""Turn widgets kept per thread (:func:`_turn_of`)."""


def _turn_of(game: PolishGame, table: Table, pos: _Position) -> _Turn:
    """The widget of the turn ``pos`` starts, kept for the other positions of the same turn
    (stage, card, upper net and fences: all the widget reads of ``pos``): a hint's walk of
    a turn ranks hundreds of its positions, each of which built the same widget again. Kept
    per thread, since a widget fills itself in as it is asked; it holds its game and table,
    so their ids in the key stay theirs."""
    if not hasattr(_TURNS, "turns"):
        _TURNS.turns = {}
    kept = _TURNS.turns
    key = (id(game), id(table), pos.stage, pos.mask, pos.tracker, pos.fences)
    turn = kept.get(key)
    if turn is None:
        if len(kept) >= TURNS_KEPT:
            del kept[next(iter(kept))]  # the oldest
        turn = kept[key] = _Turn(game, table, pos)
    return turn


def rank(game: PolishGame | PolishBasicGame, table: Table, state: Any) -> list[Decision]:
    """Every legal action of the player to move, best first, valued as his expected final
    total under optimal solitaire play (empty at chance and terminal nodes)."""
    if isinstance(game, PolishBasicGame):
        return _rank_basic(game, table, state)
    actions = game.legal_actions(state)
    if not actions or game.current_player(state) < 0:
        return []
    pos = _position(game, state)
    turn = _turn_of(game, table, pos)
    rules = game.rules
    boxes = rules.boxes
    budget = BASE_THROWS + pos.fences
    r = budget - state.throws
    # the boxes this turn may end in (PL-14..PL-16), and the groups before the first throw
    group_of_turn = bits_of(boxes.index(b) for b in game.turn_boxes(state))
    groups = game.box_groups(pos.stage, pos.mask)
    dt = dice_tables(5)
    o = dt.outcome_index(state.dice) if state.dice is not None else None
    cap = int(table.meta.extra["fence_cap"])
    after_this_throw = None  # the values of every keep of the dice shown: one array for all the keeps
    decisions = []
    for action in actions:
        detail: dict[str, Any] = {"type": type(action).__name__.lower()}
        if isinstance(action, Write):
            b = boxes.index(action.box)
            ft = int(state.throws == 1)
            entry = turn.rew[b, ft, o]
            value = entry + turn.after_fill(b, min(r, cap))[o]
            detail.update(box=action.box, points=int(entry), fences_after=min(r, cap) if rules.fence_cap is not None else r)
        elif isinstance(action, Scratch):
            b = boxes.index(action.box)
            if state.throws == 0:
                entry = game.scratch_entry(action.box)
                value = entry + turn.after_fill(b, min(r, cap), scratch=True)[0]
            else:  # after a throw only a lower box is scratched, for 0 (PL-11)
                entry = 0
                value = float(turn.after_fill(b, min(r, cap))[0])
            detail.update(box=action.box, points=entry, fences_after=r)
        elif isinstance(action, Declare):
            rows = turn.widget(1 << boxes.index(action.box), r)
            value = rows[r][1][o]
            detail.update(box=action.box)
        else:  # Keep: the throw that leaves r - 1
            if state.dice is None:  # the first throw: declare (stage 2) or play the group
                best = np.full(N_OUT, -math.inf)
                for g in groups:
                    best = np.maximum(best, turn.widget(g, r - 1)[r - 1][1])
                value = float(dt.probs @ best)
            else:
                if after_this_throw is None:
                    after_this_throw = keep_values(turn.widget(group_of_turn, r - 1)[r - 1][0])
                value = after_this_throw[dt.keep_index(action.dice)]
            detail.update(dice=list(action.dice), spends_fence=state.throws >= BASE_THROWS, throw=state.throws + 1)
        decisions.append(Decision(action, float(pos.so_far + value), game.describe_action(action, state), detail))
    return sorted(decisions, key=lambda d: -d.value)


# ----------------------------------------------------------------------------------------
# The basic game (solitaire, over a horizon of turns: PolishBasicRules.solo_turns)
# ----------------------------------------------------------------------------------------
BASIC_VALUE_NAME = "expected total"


@lru_cache(maxsize=16)
def basic_rewards(rules: PolishBasicRules) -> np.ndarray:
    """``rew[b, ft, o]``: the points of recording combination ``rules.boxes[b]`` with outcome
    ``o`` (``ft``: from hand, the first throw), from :func:`.polish.basic_value` (PL-3,
    PL-6); 0 where the dice do not show it (every shown combination scores at least 2)."""
    outcomes = dice_tables(5).outcomes
    rew = np.empty((len(rules.boxes), 2, N_OUT), dtype=np.int64)
    for b, combo in enumerate(rules.boxes):
        for o in range(N_OUT):
            dice = tuple(int(v) for v in outcomes[o])
            rew[b, 0, o] = basic_value(combo, dice, False, rules)
            rew[b, 1, o] = basic_value(combo, dice, True, rules)
    rew.setflags(write=False)
    return rew


def basic_reading(rules: PolishBasicRules) -> str:
    """The reading of the solitaire table in words (for ``kocka-solve info`` and hints)."""
    record = ("every turn fills a combination, 0 if the dice do not show it (zero-entry reading)"
              if rules.solo_zero_entries == "yes" else
              "a turn may end without a record, no zero entries (PL-5)" if rules.basic_record == "optional" else
              "a shown new combination must be recorded, no zero entries (PL-5, pl.basic_record = mandatory)")
    if rules.solo_zero_entries == "yes" and rules.basic_record == "mandatory":
        record += "; a 0 only when the dice show no new combination (pl.basic_record = mandatory)"
    return f"solitaire, {rules.solo_turns} turns available; {record}"


def _basic_stops(rules: PolishBasicRules, after: np.ndarray, mask: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The best way to end a turn of card ``mask`` after a later throw / the first throw
    (``F0``, ``F1``, per outcome), when ending with combination b recorded is worth
    ``after[mask | 1 << b]`` more and ending without a record ``after[mask]``; and the value
    of :class:`~.polish.EndTurn` (the rules' pass, or a 0 entry in the zero-entry reading).

    Under ``pl.basic_record = mandatory`` a turn can end without a record (or with a 0) only
    when the dice show no new combination (PL-5)."""
    rew = basic_rewards(rules)
    n = len(rules.boxes)
    open_boxes = [b for b in range(n) if not mask >> b & 1]
    if rules.solo_zero_entries == "yes":
        end_turn = max(float(after[mask | 1 << b]) for b in open_boxes)
    else:
        end_turn = float(after[mask])
    F0, F1 = basic_turn_stops(rules, mask, lambda b, ft: rew[b, ft] + after[mask | 1 << b], end_turn)
    return F0, F1, end_turn


def basic_turn_stops(rules: PolishBasicRules, mask: int, record_values: Callable[[int, int], np.ndarray],
                     end_turn: float) -> tuple[np.ndarray, np.ndarray]:
    """Per outcome, the best way to end a turn of card ``mask`` after a later throw / the
    first throw (``F0``, ``F1``): recording an open combination b the dice show, worth
    ``record_values(b, ft)[o]`` (``ft``: from hand; read only where b is shown), or ending
    without a record, worth ``end_turn``, which ``pl.basic_record = mandatory`` allows only
    when the dice show no open combination (PL-5).

    Why one function: the solitaire table (:func:`_basic_stops`, points plus the expected
    rest) and the two-player race (:func:`.polish_race._stops`, the win share after the
    record) end a turn by the same rules and differ only in what a record is worth."""
    rew = basic_rewards(rules)
    stops = []
    for ft in (0, 1):
        best = np.full(N_OUT, -math.inf)
        shown = np.zeros(N_OUT, dtype=bool)
        for b in range(len(rules.boxes)):
            if mask >> b & 1:
                continue
            points = rew[b, ft]
            best = np.where(points > 0, np.maximum(best, record_values(b, ft)), best)
            shown |= points > 0
        free = ~shown if rules.basic_record == "mandatory" else np.ones(N_OUT, dtype=bool)
        stops.append(np.where(free, np.maximum(best, end_turn), best))
    return stops[0], stops[1]


def build_basic_arrays(game: PolishBasicGame, options: BuildOptions = BuildOptions(progress=False)
                       ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Solve the solitaire basic game over ``rules.solo_turns`` turns (PL-4..PL-6).

    ``values[h, m]``: the expected points still to come with the combinations of mask ``m``
    recorded and ``h`` turns left (0 with no turns left or a full card), by backward
    induction over h: each turn is three throws over the 252 outcomes and 462 keeps
    (:func:`.card_model.three_throw_turn`) ending in a record, or without one."""
    rules = game.rules
    n, horizon = len(rules.boxes), rules.solo_turns
    full = (1 << n) - 1
    probs = dice_tables(5).probs
    values = np.zeros((horizon + 1, 1 << n))
    start = time.perf_counter()
    progress = Progress(horizon, "polish-basic solitaire", unit="turns", enabled=options.progress)
    for h in range(1, horizon + 1):
        for mask in range(full):
            F0, F1, _ = _basic_stops(rules, values[h - 1], mask)
            values[h, mask] = float(probs @ three_throw_turn(F0, F1)["V1"])
        progress.advance(1)
    progress.close()
    return {"values": values}, {
        "expected_score": float(values[horizon, 0]), "horizon_turns": horizon, "reading": basic_reading(rules),
        "states": int(horizon * full), "seconds_values": round(time.perf_counter() - start, 3),
    }


@lru_cache(maxsize=1024)
def keep_row(kept: tuple[int, ...]) -> int:
    """The keep's row in :func:`dice_tables` (5 dice), for the engine's sorted keeps."""
    return dice_tables(5).keep_index(kept)


def basic_turns_left(game: PolishBasicGame, state: PolishBasicState) -> int:
    """The turns the solitaire table gives the player to move: ``solo_turns`` less one per
    combination recorded (an engine state does not count the turns that ended without a
    record, so the table values the position as if every earlier turn recorded one)."""
    recorded = sum(v is not None for v in state.records[state.player])
    left = game.rules.solo_turns - recorded
    if left < 1:
        raise InvalidStateError(
            f"polish-basic: {recorded} combinations are recorded, so the solitaire table's "
            f"{game.rules.solo_turns} turns (solo_turns) are over; no solitaire value exists here")
    return left


_BASIC_TURNS: dict[tuple[str, int, int], tuple] = {}


def _basic_turn(game: PolishBasicGame, table: Table, mask: int, h: int) -> tuple:
    """(stops, turn, end-turn value) of a turn of card ``mask`` with ``h`` turns left, from
    the table's values after it (cached per table: one turn serves all its decisions)."""
    key = (table.meta.checksum, mask, h)
    got = _BASIC_TURNS.get(key)
    if got is None:
        F0, F1, end_turn = _basic_stops(game.rules, table["values"][h - 1], mask)
        got = (F0, F1, three_throw_turn(F0, F1), end_turn)
        if len(_BASIC_TURNS) > 4096:
            _BASIC_TURNS.clear()
        _BASIC_TURNS[key] = got
    return got


def rank_basic(game: PolishBasicGame, table: Table, state: PolishBasicState,
               turns_left: int | None = None) -> list[Decision]:
    """Every action of the player to move, valued as his expected total with ``turns_left``
    turns (default :func:`basic_turns_left`) under optimal solitaire play."""
    actions = game.legal_actions(state)
    if not actions or game.current_player(state) < 0:
        return []
    horizon = int(table["values"].shape[0]) - 1
    h = basic_turns_left(game, state) if turns_left is None else turns_left
    if isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= horizon:
        raise InvalidStateError(f"polish-basic: turns left must be in 1..{horizon} (the table's horizon), got {h!r}")
    row = state.records[state.player]
    mask = sum(1 << i for i, v in enumerate(row) if v is not None)
    so_far = sum(v for v in row if v is not None)
    _, _, turn, end_turn = _basic_turn(game, table, mask, h)
    after = table["values"][h - 1]
    return basic_turn_decisions(game, state, actions, turn, end_turn,
                                lambda b, points: points + float(after[mask | 1 << b]), {"turns_left": h}, so_far)


def basic_turn_decisions(game: PolishBasicGame, state: PolishBasicState, actions: Sequence[Any], turn: dict,
                         end_turn: float, after_record: Callable[[int, int], float], extra: dict[str, Any],
                         so_far: float = 0) -> list[Decision]:
    """``actions`` of the player to move in a turn of the basic game, valued and sorted
    best first: a :class:`~.polish.Record` of combination ``b`` for ``points`` is worth
    ``after_record(b, points)``, an :class:`~.polish.EndTurn` ``end_turn``, a keep what
    the numpy turn ``turn`` (:func:`.card_model.three_throw_turn`: ``V1``, ``K2``, ``K3``)
    gives it; ``so_far`` is added to every value and ``extra`` to every detail.

    Why one function: the solitaire ranking (:func:`rank_basic`, expected total) and the
    two-player race's (:func:`.polish_race.rank`, win share) read the dice, the points of
    a record and the keeps of a turn the same way and differ only in what a record and the
    end of the turn lead to, so both rank through this one loop."""
    rew = basic_rewards(game.rules)
    boxes = game.rules.boxes
    dt = dice_tables(5)
    o = dt.outcome_index(state.dice) if state.dice is not None else None
    decisions = []
    for action in actions:
        if isinstance(action, Record):
            b = boxes.index(action.combo)
            points = int(rew[b, int(state.throws == 1), o])
            value, detail = after_record(b, points), {"type": "record", "combo": action.combo, "points": points}
        elif isinstance(action, EndTurn):
            value, detail = end_turn, {"type": "end_turn"}
        elif state.dice is None:
            value, detail = float(dt.probs @ turn["V1"]), {"type": "keep", "dice": []}
        else:
            K = turn["K2"] if state.throws == 1 else turn["K3"]
            value, detail = float(K[keep_row(action.dice)]), {"type": "keep", "dice": list(action.dice)}
        detail.update(extra)
        decisions.append(Decision(action, float(so_far + value), game.describe_action(action, state), detail))
    return sorted(decisions, key=lambda d: -d.value)


_rank_basic = rank_basic  # what :func:`rank` calls for the basic game


# ----------------------------------------------------------------------------------------
# Table solver objects (named by the game specs, built and loaded by the value-table store)
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PolishEV(TableSolver):
    """Table solver of the full Polish game: exact expected total of every stage card and
    fence count (fences capped, see :data:`DEFAULT_FENCE_CAP`)."""

    kind: str = "ev"
    description: str = "exact optimal expected game total (solitaire) of every stage, card and fence count"
    game_type = PolishGame

    def build(self, game: Game, options: BuildOptions):
        return build_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {"expected_score": x["expected_score"], "states": x["states"], "fence_cap": x["fence_cap"],
                "fence_value_at_stage_start": {k: v["fence_value_at_start"] for k, v in x["stages"].items()}}

    def layout(self, game: Game, meta: TableMeta) -> Layout:
        """The arrays of :func:`build_arrays`: per stage k the flattened values (their
        count depends on the reachable tracker classes), the layer offsets and counts
        (:func:`compact_values`) and the per-mask ``base``; the tracker's classes and
        offsets per set of face boxes."""
        rules = game.rules
        n, tr = len(rules.boxes), _tracker(rules)
        arrays: dict[str, tuple[tuple[int | None, ...], Any]] = {
            "tclass": ((1 << len(tr.upper_boxes), tr.tracker_size), np.int32),
            "toffset": ((1 << len(tr.upper_boxes), tr.tracker_size), np.int64),
        }
        for k in range(1, rules.stages + 1):
            arrays.update({f"values{k}": ((None,), np.float64), f"lptr{k}": ((n + 2,), np.int64),
                           f"lnf{k}": ((n + 1,), np.int64), f"lstart{k}": ((n + 2,), np.int64),
                           f"base{k}": ((1 << n,), np.int64)})
        return arrays

    def check(self, game: Game, table: Table) -> list[str]:
        """The start value recomputed through :func:`rank` (engine scores, dense keep
        transitions) must equal the table's."""
        return _start_value_problems(game, table)

    def spot_check(self, game: Game, table: Table, seed: int) -> list[str]:
        return _start_value_problems(game, table)


@dataclass(frozen=True)
class PolishBasicEV(TableSolver):
    """Table solver of the solitaire basic game (PL-4..PL-6) over ``rules.solo_turns``
    turns (default 8).

    Solitaire play without a turn limit is degenerate (recording is optional, so waiting
    for the best throw of every combination costs nothing), so the table gives the player a
    horizon of turns, a solver reading named by the rule option ``solo_turns``. By default
    the rules are read as written (PL-5: a turn may end without a record, no zero entries;
    ``pl.basic_record`` decides whether a shown combination must be recorded);
    ``solo_zero_entries = yes`` is the reading in which every turn fills a combination,
    with 0 when the dice do not show it. The two-player game is a race (PL-7), solved for
    winning by :mod:`kocka.solver.solvers.polish.race`."""

    kind: str = "ev"
    description: str = "exact optimal expected total of the solitaire basic game within solo_turns turns (default 8)"

    game_type = PolishBasicGame

    def build(self, game: Game, options: BuildOptions):
        return build_basic_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {"expected_score": x["expected_score"], "horizon_turns": x["horizon_turns"],
                "reading": x["reading"], "states": x["states"]}

    def layout(self, game: Game, meta: TableMeta) -> Layout:
        """The array of :func:`build_basic_arrays`: ``values[h, m]`` for h = 0..solo_turns
        turns left and every mask m of the card's combinations."""
        rules = game.rules
        return {"values": ((rules.solo_turns + 1, 1 << len(rules.boxes)), np.float64)}

    def check(self, game: Game, table: Table) -> list[str]:
        return _start_value_problems(game, table)

    def spot_check(self, game: Game, table: Table, seed: int) -> list[str]:
        return _start_value_problems(game, table)


def _start_value_problems(game: Game, table: Table) -> list[str]:
    """The start value recomputed through :func:`rank` against the table's expected score
    (``kocka-solve verify``; empty: they agree)."""
    got = max(d.value for d in rank(game, table, game.new_initial_state()))
    want = table.meta.extra["expected_score"]
    return [] if abs(got - want) <= 1e-9 * max(1.0, abs(want)) else [f"start value {got!r} != table {want!r}"]


POLISH_EV = PolishEV()
POLISH_BASIC_EV = PolishBasicEV()
