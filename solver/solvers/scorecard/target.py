"""Target tables of the five-dice scorecard games: the best chance of reaching a score, and
the score distribution of the expected-score-optimal player, from every card.

**What is stored.** For every turn-start state s of :func:`~.values.build_model`
(filled mask, tracker class, flag) and every integer target t:

* ``R(s, t)``: the largest probability, over all strategies, that the points still to come
  from s (the tracker offset included, as in the expected-score table) are at least t.
  A player with ``so_far`` points written and tracker offset ``off`` reaches a final total
  of T with probability at most ``R(s, T - so_far - off)``, and the strategy that attains
  it is the ``target`` agent's.
* ``D(s, t)``: the same probability under the expected-score-optimal policy of
  :mod:`~.values` (its tie rules: first box, filling before keeping, the larger
  keep, the first group), the survival function of the opponents' final totals that the
  ``winner`` agent and the chip-bidding ``bettor`` use.

Tracker classes carry over unchanged: two trackers of one class differ by a constant under
every policy, so their probability vectors are the same vector shifted by that constant.

**Kernel.** :mod:`kocka.solver.kernels._target` runs the widget of a turn (max over fills and keeps,
means over throws, the keep lattice) on tiles of 64 consecutive targets, layer by layer
from the full card back to the empty one (:func:`solve_vectors`). Each state's vector spans
only the targets where it can vary (below them every fill reaches the target, above them
none can), chunks of a layer run side by side (joblib; the kernel releases the GIL, so the
``threading`` backend works, and ``dask`` runs the same chunks on a cluster).

**Compact storage.** A vector is stored as ``lo`` (R = 1 for t <= lo), a run of float32
values for ``lo < t <= lo + len``, and 0 beyond. Leading exact ones and trailing values
below :data:`CAP` are cut from every state. The cut is the only approximation besides
rounding, and it is provably harmless above 1e-9: a cut changes a value by less than CAP,
max and mean are 1-Lipschitz, so after k turns every value is within k * CAP of the exact
one and every value left out (t above the run) is below (k + 1) * CAP <= 16 * CAP < 1e-9
(15 boxes at most). Rounding: the tables compute in float32 (``solve_vectors`` takes
float64 too, as the tests do) and store float32; the measured difference to float64 is
about 1e-6 (``docs/SOLVER.md``).

**Playing to win.** :func:`rank_target` ranks a position for P(final >= T);
:func:`rank_winner` for the win share against other cards (:func:`win_curve`), solving the
turn in progress exactly and valuing what follows as played for points (exact once every
opponent has finished: :func:`utility_vectors`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np

from kocka.solver.kernels import _scorecard, _target
from kocka.solver.models.card_model import (
    N_OUT, keep_lattice, layer_chunks, three_throw_turn, tracker_after_table,
)
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.decision import Decision
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import InvalidStateError, TableError
from kocka.solver.base.parallel import parallel_pool, run_calls
from kocka.solver.base.progress import Progress
from kocka.solver.models.finishing import Distribution, WinCurve, lowered, win_curve
from kocka.solver.rules.base import Game
from kocka.solver.rules.five_dice import bits_of
from kocka.solver.rules.scorecard import Card, Declare, Fill, Keep, ScorecardGame, ScorecardState, YahtzeeGame
from kocka.solver.solvers.scorecard.values import (
    ScoreDistribution, ScorecardModel, distribution_from_start, model_for, solve_values, turn_start_average,
)
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.models.table_solver import TableSolver

CAP = 6e-11
"""Stored values below this are cut (R = 0 above the run): see the module docstring for
why every value left out is below 1e-9."""
LEFT_OUT_BOUND = 1e-9
"""What the cap guarantees: every probability not stored is below this."""
MIN_PARALLEL_STATES = 4_000
"""Smaller layers are solved in-process (a pool round trip costs more)."""
CHUNK_STATES = 16_384
"""At most this many states per chunk: bounds the scratch buffer of one kernel call."""
REACH, POLICY = 0, 1
"""Kernel modes: the maximum over strategies, the expected-score policy."""
VALUE_NAME = "P(final >= target)"
TARGET_STEPS = (-1, 0, 1, 2, 4)
"""A table records P(final >= T) from the empty card (``kocka-solve info``) for T = the
expected score rounded to 50, plus these multiples of 50; a reduced card (rule option
``boxes``) records the quartiles of its expected-score distribution instead."""


# ----------------------------------------------------------------------------------------
# Vectors of a set of states
# ----------------------------------------------------------------------------------------
@dataclass
class Vectors:
    """Probability vectors of states 0..n-1: ``P(s, t) = 1`` for ``t <= lo[s]``,
    ``vals[off[s] + t - lo[s] - 1]`` for ``lo[s] < t <= lo[s] + len[s]`` (``len`` from
    ``off``), 0 beyond."""

    lo: np.ndarray    # (n,) int32
    off: np.ndarray   # (n + 1,) int64
    vals: np.ndarray  # (off[-1],) float32 or float64

    def at(self, states: np.ndarray | int, t: np.ndarray | int) -> np.ndarray:
        """``P(states, t)``, broadcast (float64)."""
        states = np.asarray(states, dtype=np.int64)
        t = np.asarray(t, dtype=np.int64)
        lo = self.lo[states].astype(np.int64)
        start = self.off[states]
        length = self.off[states + 1] - start
        i = t - lo - 1
        inside = (i >= 0) & (i < length)
        vals = self.vals[np.where(inside, start + i, 0)] if len(self.vals) else np.zeros(np.broadcast(i, t).shape)
        return np.where(t <= lo, 1.0, np.where(inside, vals, 0.0)).astype(np.float64)

    def run(self, state: int) -> tuple[int, np.ndarray]:
        """``(lo, values)`` of one state."""
        a, b = int(self.off[state]), int(self.off[state + 1])
        return int(self.lo[state]), self.vals[a:b]

    def distribution(self, state: int) -> tuple[int, np.ndarray]:
        """``(lo, probs)``: P(points to come = lo + i) = probs[i] (:meth:`distributions`)."""
        lo, _sizes, probs = self.distributions(np.array([state]))
        return int(lo[0]), probs

    def distributions(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The points to come of several states: ``(lo, sizes, probs)``, state i's
        P(points to come = lo[i] + k) the k-th of its ``sizes[i]`` values in ``probs``
        (one after another): the stored survival function differenced, float64, rounding's
        tiny increases clipped to 0. One gather for all, so a turn's successors cost one
        numpy call, not one per state."""
        states = np.asarray(states, dtype=np.int64)
        lo = self.lo[states].astype(np.int64)
        start = self.off[states]
        length = self.off[states + 1] - start
        sizes = length + 1
        owner = np.repeat(np.arange(len(states)), sizes)
        k = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        run_start, run_length = start[owner], length[owner]

        def survival(i: np.ndarray) -> np.ndarray:  # position 0: 1, 1..length: the run, beyond: 0
            inside = (i >= 1) & (i <= run_length)
            vals = self.vals[np.where(inside, run_start + i - 1, 0)] if len(self.vals) else np.zeros(len(i))
            return np.where(i == 0, 1.0, np.where(inside, vals, 0.0))

        return lo, sizes, np.maximum(survival(k) - survival(k + 1), 0.0)

    def dense(self, state: int, first: int, last: int) -> np.ndarray:
        """``P(state, t)`` for ``t = first .. last`` (float64)."""
        return self.at(state, np.arange(first, last + 1))


def tracker_rows(game: ScorecardGame, model: ScorecardModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The face-box transitions of the kernel, one column per outcome, from the model's
    tracker classes (``tclass``, ``toffset``) and the engine's tracker (through
    :func:`~.card_model.tracker_after_table`): row ``tbase[m] + c * (open face boxes) +
    uprank[U * nu + u]`` is class c of mask m writing face box u; ``tnext`` the class
    reached, ``toff`` the change of tracker offset. Any tracker of a class gives the same
    row (that is what a class is), so the first one is used.

    Returns ``tbase`` (2^n,), ``uprank``, ``tnext`` (rows, 252) int32, ``toff`` (rows,
    252) float64."""
    nu = model.n_upper
    tclass, toffset = model.tclass, model.toffset
    after = tracker_after_table(game) if nu else None
    start = np.zeros(1 << nu, dtype=np.int64)
    uprank = np.zeros(max((1 << nu) * nu, 1), dtype=np.int32)
    nxt: list[np.ndarray] = []
    off: list[np.ndarray] = []
    count = 0
    for U in range(1 << nu):
        start[U] = count
        open_u = [u for u in range(nu) if not U >> u & 1]
        for r, u in enumerate(open_u):
            uprank[U * nu + u] = r
        n_cls = int(tclass[U].max()) + 1
        if n_cls <= 0 or not open_u:
            continue
        classes, reps = np.unique(tclass[U], return_index=True)
        reps = reps[classes >= 0]
        for t in reps:
            for u in open_u:
                U2 = U | 1 << u
                t2 = after[u, t]
                if (tclass[U2, t2] < 0).any():
                    raise TableError(f"{game.NAME}: a tracker transition leaves the reachable trackers at face set {U:#x}")
                nxt.append(tclass[U2, t2])
                off.append((toffset[U2, t2] - toffset[U, t]).astype(np.float64))
        count += n_cls * len(open_u)
    tnext = np.ascontiguousarray(np.stack(nxt).astype(np.int32) if nxt else np.zeros((1, N_OUT), np.int32))
    toff = np.ascontiguousarray(np.stack(off) if off else np.zeros((1, N_OUT)))
    tbase = start[np.arange(1 << model.n_boxes) & ((1 << nu) - 1)]
    return tbase, uprank, tnext, toff


@lru_cache(maxsize=8)
def _kernel_tables_of(game: ScorecardGame) -> tuple:
    model = model_for(game)
    counts = np.rint(dice_tables(5).probs * 7776).astype(np.int32)
    if int(counts.sum()) != 7776:
        raise TableError("dice_tables(5) outcome probabilities are not multiples of 1/7776")
    tbase, uprank, tnext, toff = tracker_rows(game, model)
    return (np.ascontiguousarray(model.base, dtype=np.int64), np.ascontiguousarray(model.ncls, dtype=np.int32),
            np.ascontiguousarray(model.nflag, dtype=np.int8), np.ascontiguousarray(model.grp_ptr, dtype=np.int32),
            np.ascontiguousarray(model.grp_bits, dtype=np.int32), np.ascontiguousarray(model.ctx_of, dtype=np.int32),
            np.ascontiguousarray(model.rewards, dtype=np.float64), tbase, uprank, tnext, toff,
            np.ascontiguousarray(model.fnext, dtype=np.int8), model.n_upper, keep_lattice().child, counts)


def _kernel_tables(model: ScorecardModel) -> tuple:
    """The model tables of :func:`_target.target_bounds` / ``solve_target_masks`` after
    their per-call arguments (built once per rules variant)."""
    return _kernel_tables_of(model.game)


def _solve_chunk(masks: np.ndarray, first: int, count: int, mode: int, next_first: int, nlo: np.ndarray,
                 noff: np.ndarray, nvals: np.ndarray, W_next: np.ndarray, tables: tuple, cap: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectors of ``count`` states from ``first`` (the states of ``masks``), given the next
    layer: ``(lo, len, values)``, the values of all states one after another."""
    t0 = np.empty(count, np.int32)
    t1 = np.empty(count, np.int32)
    _target.target_bounds(masks, first, t0, t1, next_first, nlo, noff, *tables)
    slot = np.zeros(count + 1, np.int64)
    np.cumsum(t1.astype(np.int64) - t0, out=slot[1:])
    out = np.empty(max(int(slot[-1]), 1), dtype=nvals.dtype)
    lo = np.empty(count, np.int32)
    start = np.empty(count, np.int32)
    length = np.empty(count, np.int32)
    _target.solve_target_masks(masks, first, mode, slot, t0, out, lo, start, length, cap, next_first, nlo, noff,
                               nvals, W_next, *tables)
    off = np.zeros(count + 1, np.int64)
    np.cumsum(length, out=off[1:])
    vals = np.empty(int(off[-1]), dtype=nvals.dtype)
    _target.gather_runs(out, slot, start, length, vals, off)
    return lo, length, vals


def solve_vectors(model: ScorecardModel, mode: int = REACH, dtype: Any = np.float64, W: np.ndarray | None = None,
                  options: BuildOptions = BuildOptions(progress=False), cap: float = CAP,
                  store_dtype: Any = None) -> Vectors:
    """Probability vectors of every state of ``model``: ``mode`` :data:`REACH` (the best
    chance, ``R``) or :data:`POLICY` (the expected-score policy, ``D``; ``W`` its values,
    :func:`~.values.solve_values`). ``dtype``: float32 or float64 arithmetic;
    ``store_dtype`` (default ``dtype``): the values kept once a layer is no longer read.
    """
    dtype = np.dtype(dtype)
    store = np.dtype(store_dtype or dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    if mode == POLICY and (W is None or len(W) != model.n_states):
        raise ValueError("the policy vectors need the expected-score values of every state (solve_values)")
    if mode not in (REACH, POLICY):
        raise ValueError(f"mode must be REACH or POLICY, got {mode!r}")
    tables = _kernel_tables(model)
    ss = model.state_start
    n = model.n_boxes
    W_all = np.zeros(1) if W is None else np.ascontiguousarray(W, dtype=np.float64)
    full = int(ss[n + 1] - ss[n])
    layers: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {
        n: (np.zeros(full, np.int32), np.zeros(full + 1, np.int64), np.zeros(0, dtype))}
    jobs = max(int(options.jobs), 1)
    todo = int(ss[n])
    label = f"{model.game.NAME} {'targets' if mode == REACH else 'policy distributions'}"
    progress = Progress(todo, label, enabled=options.progress)
    # local builds run on threads: the kernel releases the GIL and a layer reads the whole
    # next layer, which processes would each copy; a cluster gets the next layer once per
    # layer (joblib scatters arguments of more than a kilobyte)
    pool_options = options if todo >= MIN_PARALLEL_STATES else BuildOptions()
    with parallel_pool(pool_options, local_backend="threading") as parallel:
        for layer in range(n - 1, -1, -1):
            first, count = int(ss[layer]), int(ss[layer + 1] - ss[layer])
            if count == 0:
                layers[layer] = (np.zeros(0, np.int32), np.zeros(1, np.int64), np.zeros(0, dtype))
                continue
            nlo, noff, nvals = layers[layer + 1]
            nvals_arg = nvals if len(nvals) else np.zeros(1, dtype)
            W_next = W_all[ss[layer + 1]:ss[layer + 2]] if mode == POLICY else np.zeros(1)
            n_chunks = max(4 * jobs if parallel is not None else 1, -(-count // CHUNK_STATES))
            chunks = layer_chunks(model, layer, n_chunks)
            args = (mode, int(ss[layer + 1]), nlo, noff, nvals_arg, W_next, tables, cap)
            if parallel is None or count < MIN_PARALLEL_STATES:
                parts = []
                for masks, s0, cnt in chunks:
                    parts.append(_solve_chunk(masks, s0, cnt, *args))
                    progress.advance(cnt)
            else:
                parts = run_calls(parallel, _solve_chunk, [(masks, s0, cnt, *args) for masks, s0, cnt in chunks])
                progress.advance(count)
            lo = np.concatenate([p[0] for p in parts])
            off = np.zeros(count + 1, np.int64)
            np.cumsum(np.concatenate([p[1] for p in parts]).astype(np.int64), out=off[1:])
            layers[layer] = (lo, off, np.concatenate([p[2] for p in parts]))
            if store != dtype and layer + 2 in layers:  # read no more: keep it as stored
                a, b, v = layers[layer + 2]
                layers[layer + 2] = (a, b, v.astype(store))
    progress.close()
    lo = np.concatenate([layers[k][0] for k in range(n + 1)]).astype(np.int32)
    sizes = np.concatenate([np.diff(layers[k][1]) for k in range(n + 1)])
    off = np.zeros(model.n_states + 1, np.int64)
    np.cumsum(sizes, out=off[1:])
    vals = np.empty(int(off[-1]), dtype=store)
    for k in range(n + 1):  # layer by layer, each freed once copied: at most one layer twice
        part = layers.pop(k)[2]
        a = int(off[ss[k]])
        vals[a:a + len(part)] = part
        del part
    return Vectors(lo, off, vals)


# ----------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------
def start_state(model: ScorecardModel) -> tuple[int, int]:
    """``(state, tracker offset)`` of the empty card."""
    t0 = model.game.initial_tracker
    return int(model.base[0] + model.tclass[0, t0]), int(model.toffset[0, t0])


def build_arrays(game: ScorecardGame, options: BuildOptions = BuildOptions(progress=False), dtype: Any = np.float32
                 ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Solve ``game``'s target table: arrays and the facts recorded with them.

    Arrays: ``values``/``base``/``nflag``/``tclass``/``toffset`` as in the expected-score
    table (so the expected score of every action comes from the same file), and per kind
    (``reach``: the best chance, ``ev``: the expected-score policy) ``<kind>_lo``,
    ``<kind>_off`` and ``<kind>_vals`` (float32), the :class:`Vectors` of every state.
    """
    clock = [time.perf_counter()]
    model = model_for(game)
    # the expected-score values take seconds: local threads, whatever the backend
    W = solve_values(model, BuildOptions(jobs=options.jobs, backend="threading", progress=options.progress))
    clock.append(time.perf_counter())
    reach = solve_vectors(model, REACH, dtype, options=options, store_dtype=np.float32)
    clock.append(time.perf_counter())
    policy = solve_vectors(model, POLICY, dtype, W=W, options=options, store_dtype=np.float32)
    clock.append(time.perf_counter())
    arrays = {
        "values": W, "base": model.base, "nflag": model.nflag, "tclass": model.tclass, "toffset": model.toffset,
        "reach_lo": reach.lo, "reach_off": reach.off, "reach_vals": reach.vals,
        "ev_lo": policy.lo, "ev_off": policy.off, "ev_vals": policy.vals,
    }
    s0, off0 = start_state(model)
    expected = float(W[s0] + off0)
    lo, run = policy.run(s0)
    policy_mean = off0 + lo + float(np.sum(run, dtype=np.float64))  # E[X] = lo + sum over t > lo of P(X >= t)
    if abs(policy_mean - expected) > 1e-3 * max(1.0, abs(expected)):
        raise TableError(f"{game.NAME}: the expected-score policy's distribution has mean {policy_mean:.6f}, its values "
                         f"say {expected:.6f}; the expected-score solver and the target kernel disagree")
    full_card = tuple(game.rules.boxes) == tuple(type(game.rules).ALL_BOXES)
    targets = tuple(50 * round(expected / 50) + 50 * k for k in TARGET_STEPS) if full_card else None
    if not targets:  # a reduced card: where expected-score play reaches T with 3/4, 1/2, 1/4
        t = np.arange(int(policy.lo[s0]) + 1, int(policy.lo[s0] + policy.off[s0 + 1] - policy.off[s0]) + 1)
        surv = policy.at(s0, t)
        targets = tuple(sorted({int(t[np.searchsorted(-surv, -q)]) + off0 for q in (0.75, 0.5, 0.25)}))
    figures = {str(T): {"best": float(reach.at(s0, T - off0)), "expected_score_policy": float(policy.at(s0, T - off0))}
               for T in targets}
    extra = {
        "states": model.n_states,
        "reach_values": int(len(reach.vals)),
        "ev_values": int(len(policy.vals)),
        "expected_score": expected,
        "value_dtype": "float32",
        "compute_dtype": np.dtype(dtype).name,
        "cap": CAP,
        "left_out_below": LEFT_OUT_BOUND,
        "start_reach": figures,
        "start_lo": int(reach.lo[s0]) + off0,
        "start_hi": int(reach.lo[s0] + reach.off[s0 + 1] - reach.off[s0]) + off0,
        "seconds_values": round(clock[1] - clock[0], 3),
        "seconds_reach": round(clock[2] - clock[1], 3),
        "seconds_policy": round(clock[3] - clock[2], 3),
    }
    return arrays, extra


@dataclass(frozen=True)
class ScorecardTarget(TableSolver):
    """Table solver of the scorecard games' target tables (kind ``target``)."""

    kind: str = "target"
    description: str = ("best chance of reaching every final score from every card, and the score "
                        "distribution of the expected-score-optimal player (play to win)")
    game_type = ScorecardGame

    def build(self, game: Game, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return build_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {
            "expected_score": x["expected_score"],
            "states": x["states"],
            "stored_values": x["reach_values"] + x["ev_values"],
            "P(final >= T), best / expected-score play": {
                T: [v["best"], v["expected_score_policy"]] for T, v in x["start_reach"].items()},
            "left out": f"probabilities below {x['left_out_below']:g}",
            "values": f"{x['value_dtype']} (computed in {x['compute_dtype']})",
        }

    def layout(self, game: Game, meta: TableMeta) -> Layout:
        """Per-mask and per-(face-box set, tracker) arrays as in the expected-score table,
        one value and one ``lo`` per state, ``off`` per state plus one, and the stored
        probabilities (their counts recorded in the metadata)."""
        n, nu, trackers = game.num_boxes, len(game.upper_boxes), game.tracker_size
        states = meta.extra["states"]
        layout: dict[str, tuple[tuple[int, ...], Any]] = {
            "values": ((states,), np.float64),
            "base": ((1 << n,), np.int64),
            "nflag": ((1 << n,), np.int8),
            "tclass": ((1 << nu, trackers), np.int32),
            "toffset": ((1 << nu, trackers), np.int64),
        }
        for kind in ("reach", "ev"):
            layout[f"{kind}_lo"] = ((states,), np.int32)
            layout[f"{kind}_off"] = ((states + 1,), np.int64)
            layout[f"{kind}_vals"] = ((meta.extra[f"{kind}_values"],), np.float32)
        return layout

    def check(self, game: Game, table: Table, samples: int = 6, seed: int = 0) -> list[str]:
        """Spot checks independent of the kernel: vectors within [0, 1], non-increasing,
        offsets consistent; the empty card's P(final >= T) recomputed from :func:`rank`
        over the 252 first throws for a few T; and the expected-score policy's
        distribution from the empty card equal to the forward distribution of
        :mod:`~.values` (an independent kernel)."""
        problems: list[str] = []
        view = TargetView.of_table(game, table)
        for kind, vec in (("reach", view.reach), ("ev", view.ev)):
            if vec.off[0] != 0 or vec.off[-1] != len(vec.vals) or (np.diff(vec.off) < 0).any():
                problems.append(f"{kind}: run offsets are not a partition of the values")
                continue
            v = vec.vals
            if len(v) and (v.min() < 0 or v.max() > 1):
                problems.append(f"{kind}: a probability outside [0, 1]")
            inner = np.ones(len(v), dtype=bool)
            inner[vec.off[:-1][np.diff(vec.off) > 0]] = False  # the first value of each run
            if len(v) > 1 and (np.diff(v.astype(np.float64))[inner[1:]] > 1e-6).any():
                problems.append(f"{kind}: a vector increases with the target")
        empty = Card(entries=(None,) * game.num_boxes)
        for T in list(table.meta.extra["start_reach"])[:3]:
            want = view.reach_card(empty, int(T))
            got = turn_reach_value(game, table, empty, int(T))
            if abs(want - got) > 1e-5:
                problems.append(f"P(final >= {T}) from the empty card: table {want!r}, recomputed {got!r}")
        if game.num_boxes <= 13 or samples > 6:
            model = model_for(game)
            s0, off0 = start_state(model)
            dist = _forward_distribution(game, table)
            survival = np.cumsum(dist.probs[::-1])[::-1]
            mine = view.ev.at(s0, dist.scores - off0)
            worst = float(np.abs(mine - survival).max())
            if worst > 1e-5:
                problems.append(f"expected-score distribution from the empty card differs from the forward one by {worst:.3g}")
        return problems

    def spot_check(self, game: Game, table: Table, seed: int) -> list[str]:
        """The load-time check: :data:`SPOT_MASKS` seeded cards (filled masks, each with
        every tracker class and flag it has) re-solved from the stored vectors and values
        of the cards one box later, by the build's own one-turn kernels: the expected-score
        values (``_scorecard.solve_masks``, to 1e-9) and both probability vectors
        (``_target.solve_target_masks``, in the table's float32: to
        :data:`SPOT_TOLERANCE`). Masks are drawn among those with at most
        :data:`SPOT_MAX_STATES` states, from every layer, so the check costs a few
        milliseconds on any card."""
        model = model_for(game)
        view = TargetView.of_table(game, table)
        W = np.asarray(table["values"], dtype=np.float64)
        problems: list[str] = []
        for mask in _spot_masks(model, np.random.default_rng(seed)):
            layer = bin(mask).count("1")
            s0, count = int(model.base[mask]), int(model.ncls[mask]) * int(model.nflag[mask])
            masks = np.array([mask], np.int32)
            values = np.empty(count)
            _scorecard.solve_masks(masks, s0, values, W, *model.kernel_args())
            off = np.abs(values - W[s0:s0 + count])
            if not np.isfinite(off).all() or off.max() > 1e-9 * max(1.0, float(np.abs(values).max())):
                i = int(off.argmax())
                problems.append(f"expected score of state {s0 + i} (filled {mask:#x}): table {float(W[s0 + i])!r}, "
                                f"its own turn {float(values[i])!r}")
            first, last = int(model.state_start[layer + 1]), int(model.state_start[layer + 2])
            for name, vec, mode in (("reach", view.reach, REACH), ("ev", view.ev, POLICY)):
                unsound = _unsound_runs(vec, first, last) or _unsound_runs(vec, s0, s0 + count)
                if unsound:  # the kernel reads runs by these offsets: never hand it a forged one
                    return [f"{name} vectors of the cards with {layer} or {layer + 1} boxes filled: {unsound}"]
                # the next layer as the build hands it over, its runs by absolute offsets into
                # every stored value (views of the file: a mapped table reads only what it uses)
                lo, length, vals = _solve_chunk(
                    masks, s0, count, mode, first, np.ascontiguousarray(vec.lo[first:last]),
                    np.ascontiguousarray(vec.off[first:last + 1]),
                    np.ascontiguousarray(vec.vals) if len(vec.vals) else np.zeros(1, vec.vals.dtype),
                    np.ascontiguousarray(W[first:last]) if mode == POLICY else np.zeros(1), _kernel_tables(model), CAP)
                fresh = Vectors(lo, np.concatenate([[0], np.cumsum(length, dtype=np.int64)]), vals)
                for i in range(count):
                    lo_t = min(int(fresh.lo[i]), int(vec.lo[s0 + i]))
                    hi_t = max(int(fresh.lo[i]) + int(length[i]), int(vec.lo[s0 + i] + vec.off[s0 + i + 1] - vec.off[s0 + i]))
                    t = np.arange(lo_t, hi_t + 2)
                    gap = np.abs(fresh.at(i, t) - vec.at(s0 + i, t))
                    if not np.isfinite(gap).all() or gap.max() > SPOT_TOLERANCE:
                        j = int(gap.argmax())
                        problems.append(f"{name} vector of state {s0 + i} (filled {mask:#x}) at target {int(t[j])}: "
                                        f"table {float(vec.at(s0 + i, t[j]))!r}, its own turn "
                                        f"{float(fresh.at(i, t[j]))!r}")
                        break
        return problems


SPOT_MASKS = 2
"""Filled masks re-solved by :meth:`ScorecardTarget.spot_check` on every load."""
SPOT_MAX_STATES = 8
"""The most states (tracker classes x flags) of a mask the load-time check draws."""
SPOT_TOLERANCE = 1e-6
"""How far a stored float32 probability may be from its own turn re-solved from the stored
(float32) vectors: the build computes in float32 too (module docstring: about 1e-6)."""


RUN_BOUND = 1 << 16
"""Far beyond any score of a scorecard (points to come below a few thousand): a stored
``lo`` or run length beyond it is not a table's."""


def _unsound_runs(vec: Vectors, first: int, last: int) -> str:
    """What is wrong with the runs of states ``first .. last - 1`` ('' if nothing): offsets
    that do not increase within the stored values, or bounds beyond :data:`RUN_BOUND`."""
    off = np.asarray(vec.off[first:last + 1])
    lo = np.asarray(vec.lo[first:last])
    if off[0] < 0 or off[-1] > len(vec.vals) or (np.diff(off) < 0).any():
        return "run offsets are not a partition of the stored values"
    if len(lo) and (np.abs(lo).max() > RUN_BOUND or (np.diff(off) > RUN_BOUND).any()):
        return f"a run starts or ends beyond {RUN_BOUND} points"
    return ""


def _spot_masks(model: ScorecardModel, rng: np.random.Generator) -> list[int]:
    """:data:`SPOT_MASKS` masks with open boxes, each from a random layer (of those with a
    mask of at most :data:`SPOT_MAX_STATES` states), a random such mask in it."""
    masks = model.masks[model.layer_ptr[0]:model.layer_ptr[model.n_boxes]]
    small = masks[model.ncls[masks].astype(np.int64) * model.nflag[masks] <= SPOT_MAX_STATES]
    if len(small) == 0:
        small = masks
    layers = np.array([bin(int(m)).count("1") for m in small])
    present = np.unique(layers)
    out = []
    for _ in range(SPOT_MASKS):
        pool = small[layers == present[rng.integers(len(present))]]
        out.append(int(pool[rng.integers(len(pool))]))
    return out


def _forward_distribution(game: ScorecardGame, table: Table) -> ScoreDistribution:
    """The forward distribution of the expected-score policy from the empty card (the
    scorecard solver's own kernel, through the values stored here)."""
    return distribution_from_start(model_for(game), np.asarray(table["values"]))


SCORECARD_TARGET = ScorecardTarget()


# ----------------------------------------------------------------------------------------
# Reading a table
# ----------------------------------------------------------------------------------------
def _flag_box(game: ScorecardGame) -> int | None:
    if isinstance(game, YahtzeeGame) and game.rules.yahtzee_bonus:
        return game.yahtzee_box
    return None


@dataclass(frozen=True)
class CardKey:
    """What the table needs of a card: its state, the points written so far and the
    tracker offset (a final total T is reached when the points to come reach
    ``T - so_far - offset``)."""

    mask: int
    tracker: int
    flag: int
    cls: int
    state: int
    so_far: int
    offset: int
    yahtzee_entry: int | None


class TargetView:
    """A loaded target table with its model: state look-ups and probability vectors."""

    def __init__(self, game: ScorecardGame, W: np.ndarray, reach: Vectors, ev: Vectors) -> None:
        self.game = game
        self.model = model_for(game)
        for name, n in (("values", len(W)), ("reach vectors", len(reach.lo)), ("policy vectors", len(ev.lo))):
            if n != self.model.n_states:
                raise TableError(f"{game.NAME} target table has {n} {name}, the rules give {self.model.n_states} states")
        self.W = np.asarray(W)
        self.reach = reach
        self.ev = ev
        self.flag_box = _flag_box(game)
        self.after = tracker_after_table(game) if game.upper_boxes else None

    @classmethod
    def of_table(cls, game: ScorecardGame, table: Table) -> "TargetView":
        return cls(game, table["values"], Vectors(table["reach_lo"], table["reach_off"], table["reach_vals"]),
                   Vectors(table["ev_lo"], table["ev_off"], table["ev_vals"]))

    def key(self, card: Card) -> CardKey:
        g, m = self.game, self.model
        mask = card.filled_mask
        tracker = g.tracker_of(card)
        y_entry = None if self.flag_box is None else card.entries[self.flag_box]
        flag = 0
        if y_entry is not None:
            flag = int(g.yahtzee_bonus((6,) * 5, 1 << self.flag_box, y_entry) > 0)
        U = mask & ((1 << m.n_upper) - 1)
        base = int(m.base[mask])
        cls = int(m.tclass[U, tracker])
        if base < 0 or cls < 0:
            raise InvalidStateError(f"{g.NAME}: card with filled mask {mask:#x} and tracker {tracker} cannot occur under these rules")
        return CardKey(mask, tracker, flag, cls, base + cls * int(m.nflag[mask]) + flag, g.entries_total(card),
                       int(m.toffset[U, tracker]), y_entry)

    def reach_card(self, card: Card, target: int) -> float:
        """P(final >= target) at the start of the card's next turn, best play."""
        if card.is_full:
            return float(self.game.card_total(card) >= target)
        k = self.key(card)
        return float(self.reach.at(k.state, target - k.so_far - k.offset))

    def final_distribution(self, card: Card) -> tuple[int, np.ndarray]:
        """``(first, probs)``: the final total of ``card`` (at a turn start) under
        expected-score play, P(total = first + i) = probs[i] (stored survival function,
        differenced)."""
        if card.is_full:
            return self.game.card_total(card), np.ones(1)
        k = self.key(card)
        lo, probs = self.ev.distribution(k.state)
        return lo + k.so_far + k.offset, probs

    def successors(self, key: CardKey) -> tuple[np.ndarray, np.ndarray]:
        """Every fill of a turn from ``key``: ``state[b, o]`` (-1: box filled) and
        ``points[b, ft, o]``, the points the fill adds to ``so_far + offset`` (the fill's
        entry and bonus plus the change of tracker offset; -inf where the box may not take
        the dice)."""
        g, m = self.game, self.model
        n = g.num_boxes
        ctx = int(m.ctx_of[2 * key.mask + key.flag])
        rew = m.rewards[ctx]                        # (n, n_ft, 252)
        states = np.full((n, N_OUT), -1, dtype=np.int64)
        points = np.full((n, 2, N_OUT), -math.inf)
        for b in range(n):
            if key.mask >> b & 1:
                continue
            m2 = key.mask | 1 << b
            U2 = m2 & ((1 << m.n_upper) - 1)
            if b < m.n_upper:
                tr2 = self.after[b, key.tracker]
            else:
                tr2 = np.full(N_OUT, key.tracker)
            flag2 = m.fnext[b, key.flag].astype(np.int64)
            states[b] = m.base[m2] + m.tclass[U2, tr2].astype(np.int64) * int(m.nflag[m2]) + flag2
            shift = m.toffset[U2, tr2] - key.offset
            points[b] = rew[b, [0, -1]] + shift
        return states, points


    def expected_fill_values(self, key: CardKey) -> np.ndarray:
        """``Q[b, ft, o]``: the expected final score after writing outcome o into box b,
        expected-score play from there on (-inf where not allowed)."""
        states, points = self.successors(key)
        Q = np.full(points.shape, -math.inf)
        ok = np.isfinite(points)
        b_idx, _, o_idx = np.nonzero(ok)
        Q[ok] = key.so_far + key.offset + points[ok] + self.W[states[b_idx, o_idx]]
        return Q

    def expected_card(self, card: Card) -> float:
        """Expected final score of ``card`` at a turn start (expected-score play)."""
        if card.is_full:
            return float(self.game.card_total(card))
        k = self.key(card)
        return float(k.so_far + k.offset + self.W[k.state])


_VIEWS: dict[tuple[int, type, Any], tuple[Table, TargetView]] = {}


def view_of(game: ScorecardGame, table: Table) -> TargetView:
    """The :class:`TargetView` of a loaded table (cached per table and rules variant; the
    cache holds the table, so its id is not reused while cached)."""
    key = (id(table), type(game), game.rules)
    hit = _VIEWS.get(key)
    if hit is None or hit[0] is not table:
        if len(_VIEWS) >= 8:
            _VIEWS.pop(next(iter(_VIEWS)))
        hit = _VIEWS[key] = (table, TargetView.of_table(game, table))
    return hit[1]


# ----------------------------------------------------------------------------------------
# Ranking the actions of a turn with values of its fills
# ----------------------------------------------------------------------------------------
@dataclass
class TurnValues:
    """The widget of one turn solved for given fill values ``Q[b, ft, o]``: the fill
    values, and per box group the keep and throw values of
    :func:`~.card_model.three_throw_turn`."""

    Q: np.ndarray
    turns: dict[int, dict[str, np.ndarray]]


def solve_turn(game: ScorecardGame, mask: int, Q: np.ndarray) -> TurnValues:
    """Keep and throw values of every box group of a card with ``mask`` when writing
    outcome o into box b (after the first throw when ft) is worth ``Q[b, ft, o]``."""
    turns = {}
    for grp in game.box_groups(mask):
        boxes = [b for b in range(game.num_boxes) if grp >> b & 1]
        turns[grp] = three_throw_turn(Q[boxes, 0].max(axis=0), Q[boxes, 1].max(axis=0))
    return TurnValues(Q, turns)


def rank_turn(game: ScorecardGame, state: ScorecardState, tv: TurnValues,
              detail: Mapping[Any, Mapping[str, Any]] | None = None) -> list[Decision]:
    """Every legal action of ``state`` valued from the solved turn ``tv`` (the order rules
    of :func:`~.values.rank`: fills, declarations, keeps largest first)."""
    actions = game.legal_actions(state)
    if not actions:
        return []
    dt = dice_tables(5)
    o = dt.outcome_index(state.dice)
    current = bits_of(game.turn_boxes(state))
    first_throw = int(state.throw == 1)
    fills, declares, keeps = [], [], []
    for action in actions:
        extra = dict((detail or {}).get(action, {}))
        if isinstance(action, Fill):
            b = game.box_index(action.box)
            value = float(tv.Q[b, first_throw, o])
            fills.append(Decision(action, value, game.describe_action(action, state), {"type": "fill", "box": action.box, **extra}))
        elif isinstance(action, Declare):
            value = float(tv.turns[1 << game.box_index(action.box)]["V1"][o])
            declares.append(Decision(action, value, game.describe_action(action, state), {"type": "declare", "box": action.box, **extra}))
        elif isinstance(action, Keep):
            stage = "K2" if state.throw == 1 else "K3"
            value = float(tv.turns[current][stage][dt.keep_index(action.dice)])
            keeps.append(Decision(action, value, game.describe_action(action, state), {"type": "keep", "dice": list(action.dice), **extra}))
    keeps.sort(key=lambda d: -len(d.action.dice))
    return sorted(fills + declares + keeps, key=lambda d: -d.value)


def _decision_state(game: ScorecardGame, state: ScorecardState) -> None:
    game.check_state(state)
    if state.dice is None:
        raise InvalidStateError(f"{game.NAME}: no decision at a roll; the dice are not thrown yet")


def target_fill_values(view: TargetView, key: CardKey, target: int) -> np.ndarray:
    """``Q[b, ft, o]``: P(final >= target) after writing outcome o into box b, best play
    from there on (-inf where not allowed)."""
    states, points = view.successors(key)
    need = target - key.so_far - key.offset
    Q = np.full(points.shape, -math.inf)
    ok = np.isfinite(points)
    b_idx, ft_idx, o_idx = np.nonzero(ok)
    S = states[b_idx, o_idx]
    Q[ok] = view.reach.at(S, need - points[ok].astype(np.int64))
    return Q


def rank_target(game: ScorecardGame, table: Table, state: ScorecardState, target: int) -> list[Decision]:
    """Every legal action of the player to move, best first, valued as P(his final total
    >= ``target``) under the strategy that maximises it from there on; ``detail`` has each
    action's expected final score under expected-score play (from the same table)."""
    _decision_state(game, state)
    card = state.cards[state.player]
    view = view_of(game, table)
    key = view.key(card)
    tv = solve_turn(game, key.mask, target_fill_values(view, key, int(target)))
    return rank_turn(game, state, tv, _expected_detail(game, view, key, state))


def _expected_detail(game: ScorecardGame, view: TargetView, key: CardKey, state: ScorecardState) -> dict:
    """Each legal action's expected final score under expected-score play (the detail the
    hints show beside the probability)."""
    ev = rank_turn(game, state, solve_turn(game, key.mask, view.expected_fill_values(key)))
    return {d.action: {"expected final score": d.value} for d in ev}


def turn_reach_value(game: ScorecardGame, table: Table, card: Card, target: int) -> float:
    """P(final >= target) of ``card`` at a turn start recomputed from :func:`rank_target`
    over the 252 first throws (a check of the table through the widget)."""
    return turn_start_average(game, card, lambda state: rank_target(game, table, state, target)[0].value)


# ----------------------------------------------------------------------------------------
# Finishing first (the win curve: kocka.solver.models.finishing)
# ----------------------------------------------------------------------------------------
def expected_share(view: TargetView, curve: WinCurve, states: np.ndarray, y: np.ndarray, vectors: Vectors | None = None
                   ) -> np.ndarray:
    """For turn-start states ``states`` with ``y`` points so far (offsets included):
    ``sum_t dG(t) P(y + points to come >= t)``. With ``vectors`` the expected-score
    policy's (``view.ev``) that is that play's exact win share; with the reach vectors
    (the default) the best win share if the opponents' totals were known in advance."""
    vec = vectors or view.reach
    states = np.asarray(states, dtype=np.int64)
    y = np.asarray(y, dtype=np.int64)
    steps = curve.steps
    lo = vec.lo[states].astype(np.int64)
    start = vec.off[states]
    length = vec.off[states + 1] - start
    out = curve(y + lo)                    # every target up to y + lo is surely reached
    L = int(length.max()) if len(length) else 0
    if L == 0:
        return out
    i = np.arange(1, L + 1)
    t = (y + lo)[:, None] + i[None, :]     # the stored targets, as final totals
    valid = i[None, :] <= length[:, None]
    vals = vec.vals[np.where(valid, start[:, None] + i[None, :] - 1, 0)]
    k = t - curve.first
    dG = np.where((k >= 0) & (k <= len(steps) - 1), steps[np.clip(k, 0, len(steps) - 1)], 0.0)
    return out + (np.where(valid, vals, 0.0) * dG).sum(axis=1)


def winner_fill_values(view: TargetView, key: CardKey, curve: WinCurve, continuation: str = "policy") -> np.ndarray:
    """``Q[b, ft, o]``: the ``winner``'s value of writing outcome o into box b: on a full
    card the exact win share ``G(final)``, else :func:`expected_share` of the next state
    with the vectors of ``continuation``: ``"policy"``, expected-score play from the next
    turn on (a strategy one can play, so a lower bound), or ``"reach"``, the best chance of
    each threshold (the full-information upper bound)."""
    vectors = view.ev if continuation == "policy" else view.reach
    states, points = view.successors(key)
    Q = np.full(points.shape, -math.inf)
    ok = np.isfinite(points)
    b_idx, ft_idx, o_idx = np.nonzero(ok)
    S = states[b_idx, o_idx]
    y = key.so_far + key.offset + points[ok].astype(np.int64)
    pairs, inv = np.unique(np.stack([S, y]), axis=1, return_inverse=True)
    Q[ok] = expected_share(view, curve, pairs[0], pairs[1], vectors)[inv.ravel()]
    return Q


EXACT_OPEN_BOXES = 6
"""Against opponents who have all finished, a card with at most this many open boxes is
solved exactly for the win share (the kernel over the cards it can reach, about
2^open masks); beyond, the full-information value is used."""


def utility_vectors(view: TargetView, mask: int, curve: WinCurve) -> Vectors:
    """``V(s, t)``, the best ``E[G(points to come - t)]`` (G: ``curve``, a known utility of
    the final total), for every state whose mask contains ``mask`` and has one more box
    filled than it or more (zero-length runs elsewhere); indexed by state id. The kernel of
    the target table with the utility in place of the target on the full card:
    ``V(full, t) = G(-t)``, so a card with ``y`` points (offsets included) is worth
    ``V(s, -y)``."""
    model = view.model
    tables = _kernel_tables(model)
    ss = model.state_start
    n = model.n_boxes
    layer0 = bin(mask).count("1") + 1
    L = len(curve.values)
    first_full, count_full = int(ss[n]), int(ss[n + 1] - ss[n])
    lo_all = np.zeros(model.n_states, np.int32)
    len_all = np.zeros(model.n_states, np.int64)
    runs: dict[int, np.ndarray] = {}
    full_run = curve.values[::-1].astype(np.float64)            # G(last), G(last - 1), ..., G(first)
    for s in range(first_full, first_full + count_full):
        lo_all[s] = -(curve.first + L - 1) - 1
        len_all[s] = L
        runs[s] = full_run
    for layer in range(n - 1, layer0 - 1, -1):
        nxt = slice(int(ss[layer + 1]), int(ss[layer + 2]))
        nlo = np.ascontiguousarray(lo_all[nxt])
        nlen = len_all[nxt]
        noff = np.zeros(len(nlen) + 1, np.int64)
        np.cumsum(nlen, out=noff[1:])
        nvals = np.concatenate([runs.get(s, np.zeros(0)) for s in range(nxt.start, nxt.stop) if len_all[s]] or [np.zeros(1)])
        lo_m, hi_m = model.layer_ptr[layer], model.layer_ptr[layer + 1]
        for m in model.masks[lo_m:hi_m]:
            m = int(m)
            if m & mask != mask:
                continue
            s0 = int(model.base[m])
            cnt = int(model.ncls[m]) * int(model.nflag[m])
            lo, length, vals = _solve_chunk(np.array([m], np.int32), s0, cnt, REACH, int(ss[layer + 1]), nlo, noff,
                                            nvals, np.zeros(1), tables, CAP)
            at = 0
            for i in range(cnt):
                lo_all[s0 + i] = lo[i]
                len_all[s0 + i] = length[i]
                runs[s0 + i] = vals[at:at + length[i]]
                at += length[i]
    off = np.zeros(model.n_states + 1, np.int64)
    np.cumsum(len_all, out=off[1:])
    vals = np.zeros(int(off[-1]))
    for s, run in runs.items():
        vals[off[s]:off[s] + len(run)] = run
    return Vectors(lo_all, off, vals)


def exact_winner_fill_values(view: TargetView, key: CardKey, curve: WinCurve) -> np.ndarray:
    """``Q[b, ft, o]``: the exact best win share after writing outcome o into box b, when
    the opponents' totals are known (``curve`` a step function of finished cards)."""
    vec = utility_vectors(view, key.mask, curve)
    states, points = view.successors(key)
    Q = np.full(points.shape, -math.inf)
    ok = np.isfinite(points)
    b_idx, _, o_idx = np.nonzero(ok)
    y = key.so_far + key.offset + points[ok].astype(np.int64)
    Q[ok] = vec.at(states[b_idx, o_idx], -y)
    return Q


def opponents_curve(view: TargetView, cards: Sequence[Card], shortfalls: Sequence[Distribution] | None = None) -> WinCurve:
    """The :class:`WinCurve` against ``cards`` (at the start of a turn each), their final
    totals from the stored expected-score distributions (opponents play for points), each
    lowered by its ``shortfalls`` entry (the distribution of the points below expected-score
    play still to come, independent of the dice: :func:`~kocka.solver.models.finishing.lowered`;
    none: they play it)."""
    distributions = [view.final_distribution(c) for c in cards]
    if shortfalls is not None:
        distributions = [lowered(d, s) for d, s in zip(distributions, shortfalls, strict=True)]
    return win_curve(distributions)


def winner_turn(view: TargetView, card: Card, curve: WinCurve, exact: bool = False,
                continuation: str = "policy") -> TurnValues:
    """The turn of ``card`` solved for the win share against ``curve`` (``exact``: the
    opponents have finished and the rest of the card is solved exactly)."""
    key = view.key(card)
    Q = (exact_winner_fill_values(view, key, curve) if exact
         else winner_fill_values(view, key, curve, continuation))
    return solve_turn(view.game, key.mask, Q)


def expected_turn(view: TargetView, card: Card) -> TurnValues:
    """The turn of ``card`` solved for the expected final score (expected-score play)."""
    key = view.key(card)
    return solve_turn(view.game, key.mask, view.expected_fill_values(key))


def is_exact(card: Card, opponents: Sequence[Card]) -> bool:
    """Whether :func:`rank_winner` is exact here: every opponent has finished, and the card
    has at most :data:`EXACT_OPEN_BOXES` open boxes."""
    return all(c.is_full for c in opponents) and sum(e is None for e in card.entries) <= EXACT_OPEN_BOXES


def rank_winner(game: ScorecardGame, table: Table, state: ScorecardState, opponents: Sequence[Card] | None = None,
                curve: WinCurve | None = None) -> list[Decision]:
    """Every legal action of the player to move, best first, valued as his win share
    (P(finishing strictly first), ties shared) against ``opponents`` (default: the other
    cards of ``state``, each at the start of a turn), who play for expected points.

    The turn in progress is solved exactly for the win share; a fill that leaves boxes open
    is valued by the win share of expected-score play from the next turn on
    (:func:`winner_fill_values` with ``continuation="policy"``: a strategy the player can
    follow, so playing this way every turn improves on expected-score play, a rollout of
    it). When every opponent has finished the rest of the card is solved exactly
    (:func:`utility_vectors`, up to :data:`EXACT_OPEN_BOXES` open boxes; the last box
    always). ``detail``: the expected final score under expected-score play."""
    _decision_state(game, state)
    view = view_of(game, table)
    card = state.cards[state.player]
    if opponents is None:
        opponents = [c for i, c in enumerate(state.cards) if i != state.player]
    if curve is None:
        curve = opponents_curve(view, opponents)
    tv = winner_turn(view, card, curve, exact=is_exact(card, opponents))
    return rank_turn(game, state, tv, _expected_detail(game, view, view.key(card), state))


def win_probability(game: ScorecardGame, table: Table, card: Card, opponents: Sequence[Card]) -> float:
    """The win share of ``card`` at the start of its turn against ``opponents`` if it is
    played for points from here (exact for that play; on a full card, exact)."""
    view = view_of(game, table)
    curve = opponents_curve(view, opponents)
    if card.is_full:
        return float(curve(game.card_total(card)))
    key = view.key(card)
    return float(expected_share(view, curve, np.array([key.state]), np.array([key.so_far + key.offset]), view.ev)[0])


__all__ = [
    "CAP", "EXACT_OPEN_BOXES", "POLICY", "REACH", "TurnValues", "exact_winner_fill_values", "expected_turn",
    "is_exact", "utility_vectors", "winner_turn", "SCORECARD_TARGET", "ScorecardTarget", "TargetView", "Vectors", "WinCurve",
    "build_arrays", "expected_share", "opponents_curve", "rank_target", "rank_winner", "solve_turn",
    "solve_vectors", "view_of", "win_curve", "win_probability",
]
