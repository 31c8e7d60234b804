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

**Turn.** The generic kernel :func:`kocka.solver._scorecard.solve_budget_masks` adds the
throw budget to the scorecard turn: after a throw with r throws of budget left, writing a
box leaves F' = r fences (F + 3 - t = budget - t), so one widget per remaining budget r,
``X[r] = max(write with F' = r, best keep of X[r - 1])``, serves every F; the first throw
uses the from-hand rewards (PL-13). Stage 2 declares after the first throw (one box group
per open box, PL-15); scratching before the first throw earns 3 fences (PL-11, PL-12). The
keep lattice, tracker classes, mask layout and layer loop are shared with the scorecard
solver (:mod:`kocka.solver.card_model`).

**Stages.** Stage k's values at an empty card depend on the fences carried in, so stage 3
is solved first; its empty-card values per F become the full-card values of stage 2, and so
on (:func:`build_arrays`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from kocka.solver import _scorecard
from kocka.solver.card_model import (
    N_KEEP, N_OUT, best_proper_keep, keep_lattice, keep_values, layer_order, parallel_pool,
    reachable_groups, solve_layers, state_bases, three_throw_turn, tracker_classes, tracker_rows,
)
from kocka.solver.dice_tables import dice_tables
from kocka.solver.errors import InvalidStateError, TableError
from kocka.solver.progress import Progress
from kocka.solver.decision import BuildOptions, Decision
from kocka.solver.rules.base import Game
from kocka.solver.rules.five_dice import FACE_OF_BOX, bits_of
from kocka.solver.rules.polish import (
    BASE_THROWS, COMBINATIONS, Declare, EndTurn, PolishBasicGame, PolishBasicRules, PolishBasicState,
    PolishGame, PolishRules, PolishState, Record, Scratch, Write, basic_value, box_value, stage_total,
)
from kocka.solver.tables import Table, TableMeta

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
    ``(states, NF)`` arrays over the fences F = 0..cap."""

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
    tbase: np.ndarray
    uprank: np.ndarray
    tnext: np.ndarray
    toff: np.ndarray
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
    tbase, tnext, toff, uprank = tracker_rows(rows, nu, U_of)
    return StageModel(
        rules=rules, kind=kind, cap=solver_cap(rules), masks=masks, layer_ptr=layer_ptr, base=base,
        ncls=ncls, nflag=np.ones(1 << n, dtype=np.int8), grp_ptr=grp_ptr, grp_bits=grp_bits,
        tclass=tclass, toffset=toffset, tbase=tbase, uprank=uprank, tnext=tnext, toff=toff,
        n_states=int(sizes.sum()), reachable_states=int(np.where(reach, n_trackers[U_of], 0).sum()),
    )


def _kernel_args(model: StageModel) -> tuple:
    scratch_rew, scratch_out = _scratch_tables(model.rules)
    return (
        model.base, model.ncls, model.grp_ptr, model.grp_bits, _reward_table(model.rules),
        scratch_rew, scratch_out, model.tbase, model.uprank, model.tnext, model.toff,
        len(_tracker(model.rules).upper_boxes), BASE_THROWS, dice_tables(5).probs, keep_lattice().child,
    )


def solve_stage(model: StageModel, next_start: np.ndarray, options: BuildOptions = BuildOptions(progress=False),
                label: str = "") -> np.ndarray:
    """Values ``W[state, F]`` of one stage: expected points of this stage and the later ones
    (less the tracker offset), the full card worth ``next_start[F]``; NaN where a layer
    cannot hold F fences (:func:`layer_fences`)."""
    NF = model.cap + 1
    W = np.full((model.n_states, NF), np.nan)
    W[model.base[(1 << model.n_boxes) - 1]] = next_start
    args = _kernel_args(model)
    jobs = max(int(options.jobs), 1)
    todo = int(model.n_states - 1)
    progress = Progress(todo, label or f"polish stage {model.kind}", enabled=options.progress)
    backend = BuildOptions(jobs=jobs, backend="threading") if model.n_states >= MIN_PARALLEL_STATES else BuildOptions()
    with parallel_pool(backend) as parallel:
        solve_layers(model, W, _scorecard.solve_budget_masks,
                     lambda layer: (*args, layer_fences(model.rules, model.kind, layer)), progress, parallel,
                     n_chunks=8 * jobs)
    progress.close()
    return W


def start_values(model: StageModel, W: np.ndarray) -> np.ndarray:
    """Value of the empty card per F (tracker offset included; NaN: F unreachable)."""
    t0 = _tracker(model.rules).initial_tracker
    return W[model.start_state] + model.toffset[0, t0]


def compact_values(model: StageModel, W: np.ndarray) -> dict[str, np.ndarray]:
    """The solved part of ``W``: layer by layer, each state's first :func:`layer_fences`
    counts, flattened (``lptr`` offsets, ``lnf`` counts, ``lstart`` first state)."""
    n = model.n_boxes
    lstart = np.array([int(model.base[model.masks[p]]) if p < len(model.masks) else model.n_states
                       for p in model.layer_ptr], dtype=np.int64)
    lnf = np.array([layer_fences(model.rules, model.kind, L) for L in range(n + 1)], dtype=np.int64)
    parts = [W[lstart[L]:lstart[L + 1], :lnf[L]].ravel() for L in range(n + 1)]
    lptr = np.concatenate([[0], np.cumsum([len(p) for p in parts])]).astype(np.int64)
    return {"values": np.concatenate(parts), "lptr": lptr, "lnf": lnf, "lstart": lstart}


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
        W = solve_stage(model, next_start, options, label=f"polish stage {k}/{rules.stages}")
        t2 = time.perf_counter()
        for name, arr in compact_values(model, W).items():
            arrays[f"{name}{k}"] = arr
        arrays[f"base{k}"] = model.base
        start = start_values(model, W)
        del W
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


def rank(game: PolishGame | PolishBasicGame, table: Table, state: Any) -> list[Decision]:
    """Every legal action of the player to move, best first, valued as his expected final
    total under optimal solitaire play (empty at chance and terminal nodes)."""
    if isinstance(game, PolishBasicGame):
        return _rank_basic(game, table, state)
    actions = game.legal_actions(state)
    if not actions or game.current_player(state) < 0:
        return []
    pos = _position(game, state)
    turn = _Turn(game, table, pos)
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
                rows = turn.widget(group_of_turn, r - 1)
                K = keep_values(rows[r - 1][0])
                value = K[dt.keep_index(action.dice)]
            detail.update(dice=list(action.dice), spends_fence=state.throws >= BASE_THROWS, throw=state.throws + 1)
        decisions.append(Decision(action, float(pos.so_far + value), game.describe_action(action, state), detail))
    return sorted(decisions, key=lambda d: -d.value)


# ----------------------------------------------------------------------------------------
# The basic game
# ----------------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _basic_as_stage(rules: PolishBasicRules) -> tuple[PolishRules, np.ndarray]:
    """The basic game as a one-stage card of the eight combinations in free order without
    fences (PL-4, PL-5), with the basic game's values (PL-6). Recording nothing is the
    same as a 0 entry here (see :class:`PolishBasicEV`)."""
    card = PolishRules(boxes=COMBINATIONS, stages=1, fence_cap=0, same_face_groups=rules.same_face_groups)
    outcomes = dice_tables(5).outcomes
    rew = np.empty((len(COMBINATIONS), 2, N_OUT))
    for b, combo in enumerate(COMBINATIONS):
        for o in range(N_OUT):
            dice = tuple(int(v) for v in outcomes[o])
            rew[b, 0, o] = basic_value(combo, dice, False, rules)
            rew[b, 1, o] = basic_value(combo, dice, True, rules)
    return card, rew


def build_basic_arrays(game: PolishBasicGame, options: BuildOptions = BuildOptions(progress=False)
                       ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    card, rew = _basic_as_stage(game.rules)
    model = build_stage_model(card, 1)
    args = list(_kernel_args(model)) + [1]
    args[4] = rew
    args[5] = np.full(len(COMBINATIONS), -math.inf)  # the first throw is always made (PL-5)
    W = np.zeros((model.n_states, 1))
    start = time.perf_counter()
    solve_layers(model, W, _scorecard.solve_budget_masks, lambda layer: args)
    return {"values": W[:, 0], "base": model.base}, {
        "expected_score": float(W[model.start_state, 0]), "states": model.n_states,
        "seconds_values": round(time.perf_counter() - start, 3), "horizon_turns": len(COMBINATIONS),
    }


def _rank_basic(game: PolishBasicGame, table: Table, state: PolishBasicState) -> list[Decision]:
    actions = game.legal_actions(state)
    if not actions or game.current_player(state) < 0:
        return []
    row = state.records[state.player]
    mask = sum(1 << i for i, v in enumerate(row) if v is not None)
    so_far = sum(v for v in row if v is not None)
    _, rew = _basic_as_stage(game.rules)
    values, base = table["values"], table["base"]
    open_boxes = [b for b in range(len(COMBINATIONS)) if not mask >> b & 1]

    def after(b: int | None) -> float:
        """Value after this turn: box ``b`` recorded, or (None) nothing, which the 8-turn
        horizon values as the best box written with 0."""
        if b is None:
            return max((values[base[mask | 1 << c]] for c in open_boxes), default=0.0)
        return float(values[base[mask | 1 << b]])

    dt = dice_tables(5)
    stop = np.full(N_OUT, -math.inf)
    for b in open_boxes:
        stop = np.maximum(stop, np.maximum(rew[b, 0], 0) + after(b))
    stop_hand = np.full(N_OUT, -math.inf)
    for b in open_boxes:
        stop_hand = np.maximum(stop_hand, np.maximum(rew[b, 1], 0) + after(b))
    turn = three_throw_turn(stop, stop_hand)
    K3, K2, Y = turn["K3"], turn["K2"], turn["V1"]  # V1: the value after the first throw
    o = dt.outcome_index(state.dice) if state.dice is not None else None
    decisions = []
    for action in actions:
        if isinstance(action, Record):
            b = COMBINATIONS.index(action.combo)
            points = rew[b, int(state.throws == 1), o]
            value, detail = points + after(b), {"type": "record", "combo": action.combo, "points": int(points)}
        elif isinstance(action, EndTurn):
            value, detail = after(None), {"type": "end_turn"}
        elif state.dice is None:
            value, detail = float(dt.probs @ Y), {"type": "keep", "dice": []}
        else:
            K = K2 if state.throws == 1 else K3
            value, detail = K[dt.keep_index(action.dice)], {"type": "keep", "dice": list(action.dice)}
        decisions.append(Decision(action, float(so_far + value), game.describe_action(action, state), detail))
    return sorted(decisions, key=lambda d: -d.value)


# ----------------------------------------------------------------------------------------
# Table solver objects (registry.SOLVERS)
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PolishEV:
    """Table solver of the full Polish game: exact expected total of every stage card and
    fence count (fences capped, see :data:`DEFAULT_FENCE_CAP`)."""

    kind: str = "ev"
    description: str = "exact optimal expected game total (solitaire) of every stage, card and fence count"

    def build(self, game: Game, options: BuildOptions):
        if not isinstance(game, PolishGame):
            raise TableError(f"the Polish solver cannot solve {game.NAME!r}")
        return build_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {"expected_score": round(x["expected_score"], 6), "states": x["states"], "fence_cap": x["fence_cap"],
                "fence_value_at_stage_start": {k: round(v["fence_value_at_start"], 6) for k, v in x["stages"].items()}}

    def layout(self, game: Game, meta: TableMeta) -> dict[str, tuple[tuple[int | None, ...], Any]]:
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

    def check(self, game: Game, table: Table, samples: int = 4, seed: int = 0) -> list[str]:
        """The start value recomputed through :func:`rank` (engine scores, dense keep
        transitions) must equal the table's."""
        return _start_value_problems(game, table)


@dataclass(frozen=True)
class PolishBasicEV:
    """Table solver of the basic game over the eight turns a card needs (PL-4..PL-6).

    Solitaire play without a turn limit is degenerate (recording is optional, so waiting
    for the best throw of every combination costs nothing); the table assumes the player
    finishes in eight turns, the fewest possible, ending a turn without a record being
    worth a 0 entry."""

    kind: str = "ev"
    description: str = "exact optimal expected total of the basic game within eight turns (solitaire)"

    def build(self, game: Game, options: BuildOptions):
        if not isinstance(game, PolishBasicGame):
            raise TableError(f"the Polish basic solver cannot solve {game.NAME!r}")
        return build_basic_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {"expected_score": round(x["expected_score"], 6), "states": x["states"]}

    def layout(self, game: Game, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """The arrays of :func:`build_basic_arrays`: one value per state (the count is
        recorded), ``base`` per mask of the eight combinations."""
        return {"values": ((meta.extra["states"],), np.float64), "base": ((1 << len(COMBINATIONS),), np.int64)}

    def check(self, game: Game, table: Table) -> list[str]:
        return _start_value_problems(game, table)


def _start_value_problems(game: Game, table: Table) -> list[str]:
    """The start value recomputed through :func:`rank` against the table's expected score
    (``kocka-solve verify``; empty: they agree)."""
    got = max(d.value for d in rank(game, table, game.new_initial_state()))
    want = table.meta.extra["expected_score"]
    return [] if abs(got - want) <= 1e-9 * max(1.0, abs(want)) else [f"start value {got!r} != table {want!r}"]


POLISH_EV = PolishEV()
POLISH_BASIC_EV = PolishBasicEV()
