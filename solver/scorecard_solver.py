"""Exact solitaire solver of the five-dice scorecard games: kockapóker (HU), Slovak yatzi (SK),
Yahtzee and Yatzy: the value of every action (:func:`rank`, which ``kocka hint`` shows through
:mod:`kocka.agents.frontends.hint_cards`) and the distribution of the final score.

**Objective.** Maximise the expected final score of one card (solitaire). Every number comes
from the rules engine (:mod:`kocka.solver.rules.scorecard`): its score table, tracker and
fill rules; nothing about scoring is re-implemented here.

**State.** Between turns a card is ``(filled mask, tracker, flag)``:

* the *tracker* summarises the face boxes (net upper score, or the Yahtzee/Yatzy upper total
  capped at 63); only trackers reachable for the filled face boxes are kept;
* trackers whose futures differ by a constant are merged into one *tracker class*: the value
  is ``W[mask, class, flag] + offset[tracker]``. The classes are found exactly, backwards,
  by comparing what every face-box fill leads to (:func:`.card_model.tracker_classes`), so the tracker
  is clipped where the upper bonus is already certain or already impossible without being
  told the bonus rule (HU-7 ``zero``: a certain negative house cancels every later face
  entry, which is an offset too);
* the *flag* is Yahtzee's "the Yahtzee box holds 50" (bonus Yahtzees, joker), only while the
  Yahtzee box is filled; Slovak first-throw doubling (SK-7) lives inside the turn, the part
  order (SK-3) in the boxes a mask may fill, the face declaration in *box groups*.

**Turn.** The Cython kernel :mod:`kocka.solver._scorecard` solves a turn exactly over the
252 outcomes and 462 keeps with the keep lattice (about 10k operations per state). States
are solved layer by layer (number of filled boxes, last first); a layer is split into
chunks of masks that joblib runs in parallel (``--jobs``, ``--backend``); the kernel
releases the GIL, so the ``threading`` backend works as well as ``loky``.

**Distribution.** Forward propagation of the score under the optimal policy from the empty
card (stored in the table) or from any card (:func:`score_distribution`); ties between
equally good actions go to the first box / filling / the largest keep, as in :func:`rank`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from operator import or_
from typing import Any, Sequence

import numpy as np
from joblib import delayed

from kocka.solver import _scorecard
from kocka.solver.card_model import (
    N_OUT, keep_lattice, layer_order, parallel_pool, reachable_groups, solve_layers, state_bases,
    three_throw_turn, tracker_after_table, tracker_classes, tracker_rows,
)
from kocka.solver.dice_tables import dice_tables
from kocka.solver.errors import InvalidStateError, TableError
from kocka.solver.progress import Progress
from kocka.solver.decision import BuildOptions, Decision
from kocka.solver.rules.base import Game
from kocka.solver.rules.five_dice import bits_of
from kocka.solver.rules.scorecard import (
    Card, Declare, Fill, Keep, ScorecardGame, ScorecardState, YahtzeeGame,
)
from kocka.solver.tables import Table, TableMeta

VALUE_NAME = "expected final score"


# ----------------------------------------------------------------------------------------
# The state space of one game variant
# ----------------------------------------------------------------------------------------
@dataclass
class ScorecardModel:
    """Everything the kernel needs for one rules variant (built by :func:`build_model`).

    State ``base[m] + c * nflag[m] + f`` is tracker class ``c``, flag ``f`` of filled mask
    ``m``; masks are laid out by layer (number of filled boxes), so a layer is one
    contiguous range of states. Arrays indexed by mask have ``2 ** n_boxes`` rows
    (unreachable masks: ``base = -1``); ``U`` is the face-box part of a mask (face boxes
    are the first ``n_upper`` boxes of every card).
    """

    game: ScorecardGame
    n_boxes: int
    n_upper: int
    masks: np.ndarray          # (M,) int32 reachable masks in layer order
    layer_ptr: np.ndarray      # (n_boxes + 2,) masks[layer_ptr[k]:layer_ptr[k+1]] have k filled
    base: np.ndarray           # (2^n,) int64
    ncls: np.ndarray           # (2^n,) int32
    nflag: np.ndarray          # (2^n,) int8
    grp_ptr: np.ndarray        # (2^n + 1,) int32
    grp_bits: np.ndarray       # int32 box groups (bit masks)
    ctx_of: np.ndarray         # (2^n * 2,) int32
    rewards: np.ndarray        # (n_ctx, n_boxes, n_ft, 252) float64
    tbase: np.ndarray          # (2^n,) int64
    uprank: np.ndarray         # (2^n_upper * n_upper,) int32
    tnext: np.ndarray          # (rows, 252) int32
    toff: np.ndarray           # (rows, 252) float64
    fnext: np.ndarray          # (n_boxes, 2, 252) int8
    tclass: np.ndarray         # (2^n_upper, tracker_size) int32, -1 = unreachable
    toffset: np.ndarray        # (2^n_upper, tracker_size) int64
    n_states: int
    reachable_states: int      # (mask, tracker, flag) before merging tracker classes
    flag_box: int | None
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)

    @property
    def state_start(self) -> np.ndarray:
        """First state of each layer, (n_boxes + 2,)."""
        starts = [int(self.base[self.masks[p]]) if p < len(self.masks) else self.n_states
                  for p in self.layer_ptr]
        return np.asarray(starts, dtype=np.int64)

    def kernel_args(self) -> tuple:
        """The tables of :func:`_scorecard.solve_masks` after its ``W`` argument."""
        lat = keep_lattice()
        return (
            self.base, self.ncls, self.nflag, self.grp_ptr, self.grp_bits, self.ctx_of,
            self.rewards, self.tbase, self.uprank, self.tnext, self.toff, self.fnext,
            self.n_upper, dice_tables(5).probs, lat.child,
        )


def _flag_box(game: ScorecardGame) -> int | None:
    """The Yahtzee box when bonus Yahtzees and the joker depend on its entry."""
    if isinstance(game, YahtzeeGame) and game.rules.yahtzee_bonus:
        return game.yahtzee_box
    return None


def _special_outcomes(game: ScorecardGame, flag_box: int | None) -> list[int]:
    """Outcomes whose fills depend on the card beyond the score table (bonus Yahtzees)."""
    if flag_box is None:
        return []
    outcomes = dice_tables(5).outcomes
    with_box = 1 << flag_box
    return [o for o in range(N_OUT) if game.is_bonus_yahtzee(tuple(int(v) for v in outcomes[o]), with_box)]


def _flag_entry(game: ScorecardGame, flag_box: int) -> dict[int, int]:
    """flag -> an entry of the Yahtzee box with that flag (1: bonus Yahtzees earn +100)."""
    five = (6,) * 5
    entries = sorted({int(v) for v in np.unique(game.score_table()[flag_box])})
    return {int(game.yahtzee_bonus(five, 1 << flag_box, e) > 0): e for e in entries}


def _fill_rewards(game: ScorecardGame, mask: int, yahtzee_entry: int | None, n_ft: int,
                  special: Sequence[int]) -> np.ndarray:
    """Points of every fill, (n_boxes, n_ft, 252), on a card with ``mask``: the score table,
    patched for the special outcomes through the engine's ``allowed_boxes``/``fill_score``
    (-inf where that box may not take the dice)."""
    st = game.score_table()
    rew = np.ascontiguousarray(st.transpose(0, 2, 1)[:, :n_ft, :], dtype=np.float64)
    outcomes = dice_tables(5).outcomes
    for o in special:
        dice = tuple(int(v) for v in outcomes[o])
        allowed = set(game.allowed_boxes(mask, dice))
        for b in range(game.num_boxes):
            for ft in range(n_ft):
                if b in allowed:
                    s = game.fill_score(b, dice, bool(ft), mask, yahtzee_entry)
                    rew[b, ft, o] = s.entry + s.bonus
                else:
                    rew[b, ft, o] = -math.inf
    return rew


def _contexts(game: ScorecardGame, flag_box: int | None, n_ft: int, n_masks: int):
    """Reward context of every (mask, flag) and the reward tables of the contexts.

    Without a Yahtzee box every card uses the score table. With one, a bonus Yahtzee's
    points and allowed boxes depend on the flag, on which face boxes are filled (joker) and
    on whether another lower box is open (forced joker); one representative card per such
    key gives the context (its open boxes contain the real card's, and the engine's rules
    restrict to the real card's open boxes; :meth:`ScorecardEV.check` compares the two).
    """
    ctx_of = np.zeros(n_masks * 2, dtype=np.int32)
    special = _special_outcomes(game, flag_box)
    if not special:
        return ctx_of, _fill_rewards(game, 0, None, n_ft, ())[None]
    n, nu = game.num_boxes, len(game.upper_boxes)
    full = (1 << n) - 1
    upper_bits = (1 << nu) - 1
    other_lower = full & ~upper_bits & ~(1 << flag_box)
    entry_of = _flag_entry(game, flag_box)
    m = np.arange(n_masks, dtype=np.int64)
    y_filled = (m >> flag_box) & 1
    lower_open = ((~m) & other_lower) != 0
    tables = [_fill_rewards(game, 0, None, n_ft, ())]
    key_ctx: dict[int, int] = {}
    for flag in (0, 1):
        keys = ((m & upper_bits) * 2 + lower_open) * 2 + flag
        for key in np.unique(keys[y_filled == 1]).tolist():
            U, rest = divmod(key // 2, 2)
            rep = U | (1 << flag_box) | (0 if rest else other_lower)
            key_ctx[key] = len(tables)
            tables.append(_fill_rewards(game, rep, entry_of[flag], n_ft, special))
        sel = y_filled == 1
        ctx_of[2 * m[sel] + flag] = [key_ctx[k] for k in keys[sel].tolist()]
    return ctx_of, np.stack(tables)



def build_model(game: ScorecardGame) -> ScorecardModel:
    """The state space, layout and kernel tables of ``game``'s rules variant."""
    start = time.perf_counter()
    n, nu = game.num_boxes, len(game.upper_boxes)
    if tuple(game.upper_boxes) != tuple(range(nu)):
        raise TableError(f"{game.NAME}: face boxes must come first on the card, got {game.upper_boxes!r}")
    n_masks = 1 << n
    st = game.score_table()
    n_ft = 2 if (st[:, :, 0] != st[:, :, 1]).any() else 1
    flag_box = _flag_box(game)

    tclass, toffset, rows, n_trackers = tracker_classes(game)
    ncls_u = tclass.max(axis=1) + 1
    # the engine's box groups: the part order (SK-3) in what a mask reaches, the face
    # declaration in one group per face box
    reach, grp_ptr, grp_bits = reachable_groups(n, game.box_groups)
    masks_all = np.arange(n_masks, dtype=np.int64)
    masks, layer_ptr = layer_order(reach, n)

    U_of = masks_all & ((1 << nu) - 1)
    ncls = ncls_u[U_of].astype(np.int32)
    nflag = np.ones(n_masks, dtype=np.int8)
    if flag_box is not None:
        nflag[(masks_all >> flag_box) & 1 == 1] = 2
    sizes = np.where(reach, ncls.astype(np.int64) * nflag, 0)
    base = state_bases(masks, sizes)
    n_states = int(sizes.sum())
    reachable_states = int(np.where(reach, n_trackers[U_of] * nflag, 0).sum())

    tbase, tnext, toff, uprank = tracker_rows(rows, nu, U_of)

    fnext = np.zeros((n, 2, N_OUT), dtype=np.int8)
    fnext[:, 1, :] = 1
    if flag_box is not None:
        y_entries = st[flag_box, :, 0]
        fnext[flag_box, 0, :] = [
            int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, int(e)) > 0) for e in y_entries
        ]
    ctx_of, rewards = _contexts(game, flag_box, n_ft, n_masks)
    model = ScorecardModel(
        game=game, n_boxes=n, n_upper=nu, masks=masks, layer_ptr=layer_ptr, base=base, ncls=ncls,
        nflag=nflag, grp_ptr=grp_ptr, grp_bits=grp_bits, ctx_of=ctx_of, rewards=rewards,
        tbase=tbase, uprank=uprank, tnext=tnext, toff=toff, fnext=fnext, tclass=tclass,
        toffset=toffset, n_states=n_states, reachable_states=reachable_states, flag_box=flag_box,
    )
    model.seconds = time.perf_counter() - start
    model.stats = {
        "reachable_masks": int(len(masks)),
        "reachable_trackers": int(n_trackers.sum()),
        "tracker_classes": int(ncls_u.sum()),
        "reward_contexts": int(len(rewards)),
    }
    return model


# ----------------------------------------------------------------------------------------
# Backward solve
# ----------------------------------------------------------------------------------------
MIN_PARALLEL_STATES = 20_000  # smaller layers are solved in-process: a pool round trip costs more


def solve_values(model: ScorecardModel, options: BuildOptions = BuildOptions(progress=False)) -> np.ndarray:
    """Expected future score ``W`` of every state (see :class:`ScorecardModel`), float64."""
    W = np.zeros(model.n_states, dtype=np.float64)
    args = model.kernel_args()
    jobs = max(int(options.jobs), 1)
    todo = int(model.state_start[model.n_boxes])  # every state but the full cards
    progress = Progress(todo, f"{model.game.NAME} values", enabled=options.progress)
    with parallel_pool(options if model.n_states >= MIN_PARALLEL_STATES else BuildOptions()) as parallel:
        solve_layers(model, W, _scorecard.solve_masks, lambda layer: args, progress, parallel,
                     n_chunks=4 * jobs, min_parallel_layer=MIN_PARALLEL_STATES)
    progress.close()
    return W


# ----------------------------------------------------------------------------------------
# Forward propagation: the distribution of the final score
# ----------------------------------------------------------------------------------------
@dataclass
class _Mass:
    """Score distributions of some states: state ``states[i]`` has probability
    ``buf[off[i] + x]`` of score ``lo[i] + x`` (the score so far plus its tracker offset)."""

    states: np.ndarray
    lo: np.ndarray
    off: np.ndarray
    buf: np.ndarray

    @classmethod
    def point(cls, state: int, score: int) -> "_Mass":
        return cls(np.array([state], np.int64), np.array([score], np.int64),
                   np.array([0, 1], np.int64), np.ones(1))


def _reward_bounds(model: ScorecardModel) -> tuple[int, int]:
    """``(lo, span)`` with every fill's points (offsets included) in ``[lo, lo + span)``."""
    finite = model.rewards[np.isfinite(model.rewards)]
    lo = math.floor(finite.min() + min(0.0, float(model.toff.min())))
    hi = math.ceil(finite.max() + max(0.0, float(model.toff.max())))
    return lo, hi - lo + 1


def _decode(model: ScorecardModel, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask, tracker class, flag) of state ids."""
    starts = model.base[model.masks]
    masks = model.masks[np.searchsorted(starts, states, side="right") - 1]
    nf = model.nflag[masks].astype(np.int64)
    local = states - model.base[masks]
    return masks.astype(np.int32), (local // nf).astype(np.int32), (local % nf).astype(np.int8)


TYPICAL_ENTRIES = 96  # distinct (next state, points) of one turn: about 10..60 in practice


def _transition_chunk(states, masks, cls, flags, root, rew_lo, rew_span, W, args, per_state):
    stage, mass, group = root
    for cap in (TYPICAL_ENTRIES * len(states), per_state * len(states)):  # the second is a bound
        e = [np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap)]
        n = _scorecard.turn_transitions(states, masks, cls, flags, stage, mass, group, rew_lo, rew_span, *e, W, *args)
        if n >= 0:
            return [x[:n].copy() for x in e]
    raise TableError("turn_transitions: entry buffer too small")  # cannot happen


def _transitions(model: ScorecardModel, W: np.ndarray, states: np.ndarray, root: tuple | None,
                 parallel=None, n_jobs: int = 1):
    """Entries (source position, next state, points, probability) of one turn from each
    state under the optimal policy (:func:`_scorecard.turn_transitions`), in chunks that
    ``parallel`` (a joblib Parallel) may run side by side."""
    masks, cls, flags = _decode(model, states)
    rew_lo, rew_span = _reward_bounds(model)
    root = root if root is not None else (0, np.zeros(N_OUT), -1)
    args = model.kernel_args()
    per_state = 2 * N_OUT * max(int(np.diff(model.grp_ptr).max()), 1)
    step = max(1, min(200_000 // TYPICAL_ENTRIES, -(-len(states) // (4 * n_jobs))))
    starts = list(range(0, len(states), step))
    jobs = [(states[a:a + step], masks[a:a + step], cls[a:a + step], flags[a:a + step]) for a in starts]
    if parallel is None or len(states) < MIN_PARALLEL_STATES // 4:
        parts = [_transition_chunk(*j, root, rew_lo, rew_span, W, args, per_state) for j in jobs]
    else:
        parts = parallel(delayed(_transition_chunk)(*j, root, rew_lo, rew_span, W, args, per_state) for j in jobs)
    for a, part in zip(starts, parts):
        part[0] += a
    return [np.concatenate([p[i] for p in parts]) for i in range(4)]


def _forward(model: ScorecardModel, W: np.ndarray, mass: _Mass, root: tuple | None = None,
             progress: Progress | None = None, options: BuildOptions = BuildOptions(progress=False)
             ) -> tuple[int, np.ndarray]:
    """Push ``mass`` (states of one layer) turn by turn to the full card; return the final
    score distribution as ``(lowest score, probabilities)``."""
    with parallel_pool(options if model.n_states >= MIN_PARALLEL_STATES else BuildOptions()) as parallel:
        return _forward_layers(model, W, mass, root, progress, parallel, max(int(options.jobs), 1))


def _forward_layers(model, W, mass, root, progress, parallel, n_jobs) -> tuple[int, np.ndarray]:
    full = (1 << model.n_boxes) - 1
    while True:
        masks, _, _ = _decode(model, mass.states)
        if (masks == full).all():
            break
        src, succ, rew, p = _transitions(model, W, mass.states, root, parallel, n_jobs)
        root = None
        # the next states all lie in the next layer, a contiguous range of state ids
        first, last = int(succ.min()), int(succ.max())
        width = np.diff(mass.off)
        lo = np.full(last - first + 1, np.iinfo(np.int64).max, np.int64)
        hi = np.full(last - first + 1, np.iinfo(np.int64).min, np.int64)
        np.minimum.at(lo, succ - first, mass.lo[src] + rew)
        np.maximum.at(hi, succ - first, mass.lo[src] + width[src] - 1 + rew)
        reached = np.flatnonzero(hi >= lo)
        position = np.full(last - first + 1, -1, np.int64)
        position[reached] = np.arange(len(reached))
        targets, lo, hi = reached + first, lo[reached], hi[reached]
        off = np.concatenate([[0], np.cumsum(hi - lo + 1)]).astype(np.int64)
        buf = np.zeros(int(off[-1]))
        _scorecard.push_mass(src, position[succ - first], rew, p, mass.lo, mass.off, mass.buf, lo, off, buf)
        if progress is not None:
            progress.advance(1)
        mass = _Mass(targets, lo, off, buf)
    first = int(mass.lo.min())
    last = int((mass.lo + np.diff(mass.off) - 1).max())
    probs = np.zeros(last - first + 1)
    for i in range(len(mass.states)):
        probs[mass.lo[i] - first: mass.lo[i] - first + mass.off[i + 1] - mass.off[i]] += mass.buf[mass.off[i]:mass.off[i + 1]]
    return first, probs


@dataclass(frozen=True)
class ScoreDistribution:
    """Distribution of the final score: ``probs[i]`` is P(score = ``first + i``)."""

    first: int
    probs: np.ndarray

    @property
    def scores(self) -> np.ndarray:
        return np.arange(self.first, self.first + len(self.probs))

    def mean(self) -> float:
        return float(self.scores @ self.probs)

    def std(self) -> float:
        return float(np.sqrt(((self.scores - self.mean()) ** 2) @ self.probs))

    def cdf(self, score: int) -> float:
        """P(final score <= ``score``)."""
        return float(self.probs[: max(0, score - self.first + 1)].sum())


def distribution_from_start(model: ScorecardModel, W: np.ndarray, options: BuildOptions = BuildOptions(progress=False)) -> ScoreDistribution:
    """Distribution of the final score from the empty card under the optimal policy."""
    t0 = model.game.initial_tracker
    start = int(model.base[0] + model.tclass[0, t0])
    progress = Progress(model.n_boxes, f"{model.game.NAME} distribution", unit="turns", enabled=options.progress)
    first, probs = _forward(model, W, _Mass.point(start, int(model.toffset[0, t0])), progress=progress, options=options)
    progress.close()
    return ScoreDistribution(first, probs)


# ----------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------
def build_arrays(game: ScorecardGame, options: BuildOptions = BuildOptions(progress=False)
                 ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Solve ``game`` and return the table arrays and the facts recorded with them.

    Arrays: ``values`` (float64, one per state: expected future score less the tracker
    offset), ``base``/``nflag`` (per mask), ``tclass``/``toffset`` (per face-box set and
    tracker), ``dist_first``/``dist_probs`` (final score distribution from the empty card).
    """
    clock = [(time.perf_counter(), time.process_time())]
    model = _model_for(game)
    clock.append((time.perf_counter(), time.process_time()))
    W = solve_values(model, options)
    clock.append((time.perf_counter(), time.process_time()))
    dist = distribution_from_start(model, W, options)
    clock.append((time.perf_counter(), time.process_time()))
    wall = [round(b[0] - a[0], 3) for a, b in zip(clock, clock[1:])]
    cpu = [round(b[1] - a[1], 3) for a, b in zip(clock, clock[1:])]
    tr = game.initial_tracker
    expected = float(W[model.base[0] + model.tclass[0, tr]] + model.toffset[0, tr])
    arrays = {
        "values": W,
        "base": model.base,
        "nflag": model.nflag,
        "tclass": model.tclass,
        "toffset": model.toffset,
        "dist_first": np.array([dist.first], dtype=np.int64),
        "dist_probs": dist.probs,
    }
    extra = {
        "expected_score": expected,
        "states": model.n_states,
        "reachable_states": model.reachable_states,
        **model.stats,
        "value_dtype": "float64",
        "distribution_mean": dist.mean(),
        "distribution_std": dist.std(),
        "score_range": [dist.first, dist.first + len(dist.probs) - 1],
        # wall and CPU seconds of the phases (CPU counts every thread of this process)
        "seconds_model": wall[0], "seconds_values": wall[1], "seconds_distribution": wall[2],
        "cpu_seconds_model": cpu[0], "cpu_seconds_values": cpu[1], "cpu_seconds_distribution": cpu[2],
    }
    return arrays, extra


_MODELS: dict[tuple[type, Any], ScorecardModel] = {}


def _model_for(game: ScorecardGame) -> ScorecardModel:
    """The model of ``game``'s rules variant (cached per process, a few variants)."""
    key = (type(game), game.rules)
    if key not in _MODELS:
        if len(_MODELS) >= 8:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = build_model(game)
    return _MODELS[key]


def _check_table(game: ScorecardGame, table: Table) -> None:
    n, nu = game.num_boxes, len(game.upper_boxes)
    expected = {"base": (1 << n,), "nflag": (1 << n,), "tclass": (1 << nu, game.tracker_size),
                "toffset": (1 << nu, game.tracker_size)}
    for name, shape in expected.items():
        if name not in table.arrays or table[name].shape != shape:
            raise TableError(f"{game.NAME} table lacks array {name!r} of shape {shape!r}")
    if len(table["values"]) != table.meta.extra.get("states"):
        raise TableError(f"{game.NAME} table has {len(table['values'])!r} values, its metadata says {table.meta.extra.get('states')!r}")


# ----------------------------------------------------------------------------------------
# Values of positions, ranking, hints
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _CardKey:
    mask: int
    tracker: int
    flag: int
    so_far: int
    yahtzee_entry: int | None


def _card_key(game: ScorecardGame, card: Card) -> _CardKey:
    """What the table needs of a card; ``so_far`` counts its entries and bonus Yahtzees
    (the upper bonus is part of the values, through the tracker offset)."""
    flag_box = _flag_box(game)
    y_entry = None if flag_box is None else card.entries[flag_box]
    flag = 0
    if y_entry is not None:
        flag = int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, y_entry) > 0)
    return _CardKey(card.filled_mask, game.tracker_of(card), flag, game.entries_total(card), y_entry)


def _state_value(table: Table, game: ScorecardGame, mask: int, tracker: np.ndarray | int, flag) -> np.ndarray:
    """Expected future score (tracker offset included) of turn-start states."""
    U = mask & ((1 << len(game.upper_boxes)) - 1)
    base = int(table["base"][mask])
    cls = table["tclass"][U, tracker]
    if base < 0 or np.any(cls < 0):
        raise InvalidStateError(f"{game.NAME}: card with filled mask {mask:#x} and tracker {tracker!r} cannot occur under these rules")
    return table["values"][base + cls * int(table["nflag"][mask]) + flag] + table["toffset"][U, tracker]


def value_of_card(game: ScorecardGame, table: Table, card: Card) -> float:
    """Expected final score of ``card`` at the start of its next turn (optimal play)."""
    key = _card_key(game, card)
    if card.is_full:
        return float(game.card_total(card))
    return float(key.so_far + _state_value(table, game, key.mask, key.tracker, key.flag))


# Each entry is about n_boxes x 2 x 252 float64 (60 KB for 15 boxes): 256 of them cover
# many concurrent games (a game visits one mask per turn) while keeping a long-running
# seat's memory bounded (~15 MB).
_REWARD_CACHE_ENTRIES = 256


@dataclass(frozen=True)
class _GameFacts:
    """Per-variant constants of :func:`rank` (computed once per game object)."""

    n_ft: int
    flag_box: int | None
    special: tuple[int, ...]
    flag_after_flag_box: np.ndarray | None  # flag after writing each outcome in the flag box
    rewards: dict = field(default_factory=dict)  # (mask, Yahtzee entry) -> fill points


@lru_cache(maxsize=16)
def _facts(game: ScorecardGame) -> _GameFacts:
    st = game.score_table()
    flag_box = _flag_box(game)
    flags = None
    if flag_box is not None:
        flags = np.array([int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, int(e)) > 0) for e in st[flag_box, :, 0]])
    return _GameFacts(2 if (st[:, :, 0] != st[:, :, 1]).any() else 1, flag_box,
                      tuple(_special_outcomes(game, flag_box)), flags)


def _fill_values(game: ScorecardGame, table: Table, key: _CardKey, allowed_bits: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``Q[b, ft, o]``: expected final score of writing outcome ``o`` into box ``b`` (after
    the first throw when ``ft``), -inf where not allowed; and the fill points ``rew``."""
    n = game.num_boxes
    facts = _facts(game)
    n_ft, flag_box = facts.n_ft, facts.flag_box
    rew = facts.rewards.get((key.mask, key.yahtzee_entry))
    if rew is None:
        if len(facts.rewards) >= _REWARD_CACHE_ENTRIES:
            facts.rewards.clear()
        rew = facts.rewards[key.mask, key.yahtzee_entry] = _fill_rewards(game, key.mask, key.yahtzee_entry, n_ft, facts.special)
    Q = np.full((n, 2, N_OUT), -math.inf)
    after = tracker_after_table(game)
    for b in range(n):
        if not allowed_bits >> b & 1:
            continue
        m2 = key.mask | 1 << b
        if b in game.upper_boxes:
            future = _state_value(table, game, m2, after[b, key.tracker], key.flag)
        elif b == flag_box:
            future = _state_value(table, game, m2, key.tracker, facts.flag_after_flag_box)
        else:
            future = np.full(N_OUT, _state_value(table, game, m2, key.tracker, key.flag))
        Q[b] = key.so_far + rew[b, -1 if n_ft == 1 else slice(None)] + future
    return Q, rew


def rank(game: ScorecardGame, table: Table, state: ScorecardState) -> list[Decision]:
    """Every legal action of the player to move, best first, valued as his expected final
    score under optimal solitaire play from there on (empty at chance and terminal nodes).

    Ties keep the order fills, declarations, keeps (largest first), as the forward
    distribution does.
    """
    actions = game.legal_actions(state)
    if not actions:
        return []
    card = state.cards[state.player]
    key = _card_key(game, card)
    dt = dice_tables(5)
    o = dt.outcome_index(state.dice)
    groups = game.box_groups(key.mask)
    Q, rew = _fill_values(game, table, key, reduce(or_, groups, 0))
    turns = {}
    for g in groups:
        boxes = [b for b in range(game.num_boxes) if g >> b & 1]
        turns[g] = three_throw_turn(Q[boxes, 0].max(axis=0), Q[boxes, 1].max(axis=0))
    current = bits_of(game.turn_boxes(state))  # the group of this turn (SK: the declared box)
    first_throw = int(state.throw == 1)
    fills, declares, keeps = [], [], []
    for action in actions:
        if isinstance(action, Fill):
            b = game.box_index(action.box)
            entry = rew[b, -1 if rew.shape[1] == 1 else first_throw, o]
            value = float(Q[b, first_throw, o])
            fills.append(Decision(action, value, game.describe_action(action, state),
                                  {"type": "fill", "box": action.box, "points": int(entry)}))
        elif isinstance(action, Declare):
            value = float(turns[1 << game.box_index(action.box)]["V1"][o])
            declares.append(Decision(action, value, game.describe_action(action, state), {"type": "declare", "box": action.box}))
        elif isinstance(action, Keep):
            stage = "K2" if state.throw == 1 else "K3"
            value = float(turns[current][stage][dt.keep_index(action.dice)])
            keeps.append(Decision(action, value, game.describe_action(action, state), {"type": "keep", "dice": list(action.dice)}))
    keeps.sort(key=lambda d: -len(d.action.dice))
    return sorted(fills + declares + keeps, key=lambda d: -d.value)


def score_distribution(game: ScorecardGame, table: Table, state: ScorecardState | Card | None = None) -> ScoreDistribution:
    """Distribution of the final score of the current player's card under the optimal
    policy, from ``state`` (a card at the start of a turn, or any position of a turn);
    ``None``: the empty card, read from the table. Its mean is the table's value."""
    if state is None:
        return ScoreDistribution(int(table["dist_first"][0]), table["dist_probs"])
    if isinstance(state, Card):
        state = ScorecardState(cards=(state,) * game.num_players)
    game.check_state(state)
    card = state.cards[state.player]
    if card.is_full:
        return ScoreDistribution(game.card_total(card), np.ones(1))
    key = _card_key(game, card)
    model = _model_for(game)
    W = table["values"]
    if len(W) != model.n_states:
        raise TableError(f"{game.NAME} table has {len(W)} states, the rules give {model.n_states}")
    U = key.mask & ((1 << model.n_upper) - 1)
    start = int(model.base[key.mask] + model.tclass[U, key.tracker] * model.nflag[key.mask] + key.flag)
    score = key.so_far + int(model.toffset[U, key.tracker])
    root = None
    groups = [int(g) for g in model.grp_bits[model.grp_ptr[key.mask]:model.grp_ptr[key.mask + 1]]]
    dt = dice_tables(5)
    group = -1
    if state.declared is not None or state.throw >= 2 or (state.dice is None and state.throw >= 1):
        group = groups.index(bits_of(game.turn_boxes(state)))
    if state.dice is not None:
        mass = np.zeros(N_OUT)
        mass[dt.outcome_index(state.dice)] = 1.0
        root = (state.throw, mass, group)
    elif state.throw >= 1:
        k = dt.keep_index(state.kept)
        mass = np.zeros(N_OUT)
        lo, hi = dt.trans_indptr[k], dt.trans_indptr[k + 1]
        mass[dt.trans_indices[lo:hi]] = dt.trans_probs[lo:hi]
        root = (state.throw + 1, mass, group)
    first, probs = _forward(model, W, _Mass.point(start, score), root=root)
    return ScoreDistribution(first, probs)


# ----------------------------------------------------------------------------------------
# The table solver object (registry.SOLVERS)
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScorecardEV:
    """Table solver of the scorecard games: exact expected final score of every card."""

    kind: str = "ev"
    description: str = "exact optimal expected final score of every card (solitaire), with the score distribution"

    def build(self, game: Game, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if not isinstance(game, ScorecardGame):
            raise TableError(f"the scorecard solver cannot solve {game.NAME!r}")
        return build_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {
            "expected_score": round(x["expected_score"], 6),
            "states": x["states"],
            "reachable_states": x["reachable_states"],
            "score_std": round(x["distribution_std"], 4),
            "score_range": x["score_range"],
            "values": x["value_dtype"],
        }

    def layout(self, game: Game, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """The arrays of :func:`build_arrays`: per-mask arrays for the 2^boxes masks,
        per-(face-box set, tracker) arrays, one value per solved state and one probability
        per final score (both counts recorded in the metadata)."""
        n, nu, trackers = game.num_boxes, len(game.upper_boxes), game.tracker_size
        low, high = meta.extra["score_range"]
        return {
            "values": ((meta.extra["states"],), np.float64),
            "base": ((1 << n,), np.int64),
            "nflag": ((1 << n,), np.int8),
            "tclass": ((1 << nu, trackers), np.int32),
            "toffset": ((1 << nu, trackers), np.int64),
            "dist_first": ((1,), np.int64),
            "dist_probs": ((high - low + 1,), np.float64),
        }

    def check(self, game: Game, table: Table, samples: int = 12, seed: int = 0) -> list[str]:
        """Spot checks independent of the kernel: for sampled turn-start cards, the value
        recomputed from :func:`rank` (engine fill scores, dense keep transitions) must
        equal the table; the distribution must sum to 1 with the table's mean."""
        problems: list[str] = []
        try:
            _check_table(game, table)
        except TableError as exc:
            return [str(exc)]
        dist = score_distribution(game, table)
        expected = table.meta.extra["expected_score"]
        if abs(dist.probs.sum() - 1) > 1e-9:
            problems.append(f"score distribution sums to {dist.probs.sum()!r}, not 1")
        if abs(dist.mean() - expected) > 1e-6:
            problems.append(f"score distribution mean {dist.mean()!r} differs from the expected score {expected!r}")
        rng = np.random.default_rng(seed)
        after = tracker_after_table(game)
        outcomes = dice_tables(5).outcomes
        for _ in range(200 if game.upper_boxes else 0):  # the entry-group shortcut of tracker_after_table
            u, t, o = rng.integers(len(game.upper_boxes)), rng.integers(game.tracker_size), rng.integers(N_OUT)
            direct = game.tracker_after(int(t), game.upper_boxes[u], tuple(int(v) for v in outcomes[o]))
            if after[u, t, o] != direct:
                problems.append(f"tracker after box {game.boxes[game.upper_boxes[u]]!r} from {t} with outcome {o}: "
                                f"table {after[u, t, o]}, engine {direct}")
                break
        empty = Card(entries=(None,) * game.num_boxes)
        if abs(value_of_card(game, table, empty) - expected) > 1e-9:
            problems.append("the empty card's value differs from the recorded expected score")
        for card in _sample_cards(game, rng, samples):
            want = value_of_card(game, table, card)
            got = expected_turn_value(game, table, card)
            if abs(want - got) > 1e-9 * max(1.0, abs(want)):
                problems.append(f"card {card.entries!r}: table {want!r}, recomputed {got!r}")
        return problems


def expected_turn_value(game: ScorecardGame, table: Table, card: Card) -> float:
    """Expected final score of ``card`` at a turn start, recomputed from :func:`rank` over
    the 252 first throws (a check of the table against the rules engine)."""
    dt = dice_tables(5)
    total = 0.0
    for o, p in enumerate(dt.probs):
        dice = tuple(int(v) for v in dt.outcomes[o])
        state = ScorecardState(cards=(card,) * game.num_players, throw=1, dice=dice)
        total += p * rank(game, table, state)[0].value
    return total


def _sample_cards(game: ScorecardGame, rng: np.random.Generator, count: int) -> list[Card]:
    """Random reachable cards with 1..3 open boxes, filled by random legal play."""
    cards = []
    outcomes = dice_tables(5).outcomes
    for i in range(count):
        state = game.new_initial_state()
        stop = game.num_boxes - 1 - i % 3
        while state.cards[0].filled_count < stop:
            state = game.apply(state, tuple(int(v) for v in outcomes[rng.integers(N_OUT)]))
            if state.declared is None and any(isinstance(a, Declare) for a in game.legal_actions(state)):
                state = game.apply(state, [a for a in game.legal_actions(state) if isinstance(a, Declare)][0])
            fills = [a for a in game.legal_actions(state) if isinstance(a, Fill)]
            state = game.apply(state, fills[rng.integers(len(fills))])
        cards.append(state.cards[0])
    return cards


SCORECARD_EV = ScorecardEV()
