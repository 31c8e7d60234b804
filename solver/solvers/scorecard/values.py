"""Exact solitaire solver of the five-dice scorecard games: kockapóker (HU), Slovak yatzi (SK),
Yahtzee and Yatzy: the value of every action (:func:`rank`, which ``kocka hint`` shows through
:mod:`kocka.agents.advice.cards`) and the distribution of the final score.

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

**Turn.** The Cython kernel :mod:`kocka.solver.kernels._scorecard` solves a turn exactly over the
252 outcomes and 462 keeps with the keep lattice (about 10k operations per state). States
are solved layer by layer (number of filled boxes, last first); a layer is split into
chunks of masks that joblib runs in parallel (``--jobs``, ``--backend``); the kernel
releases the GIL, so the ``threading`` backend works as well as ``loky``.

**Distribution.** Forward propagation of the score under the optimal policy from the empty
card (stored in the table) or from any card (:func:`score_distribution`), one state at a
time in the kernel (:func:`_scorecard.forward_distribution`); ties between equally good
actions go to the first box / filling / the largest keep, as in :func:`rank`.

**Ranking.** The table stores the kernel's tables beside the values (the layout of
:meth:`ScorecardEV.layout`), so a loaded table ranks a position at once: one kernel call
(:class:`_scorecard.TurnTables`) values every fill and keep and sorts them; :func:`rank`
returns them as a :class:`Ranking`, whose :class:`~kocka.solver.base.decision.Decision` objects
are made when they are read. :func:`rank_reference` is the slow, independent ranking from
the engine's fill scores and the dense keep transitions, which the table's spot checks and
the tests compare with. :func:`rank_positions` values many positions at once (numpy
arrays, :data:`POSITION_DTYPE`), :func:`export_positions` writes labelled positions.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, reduce
from operator import or_
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from kocka.solver.kernels import _scorecard
from kocka.solver.models.card_model import (
    N_OUT, N_SMALL, TrackerRows, five_dice, layer_order, popcounts, reachable_groups,
    solve_layers, state_bases, three_throw_turn, tracker_after_table, tracker_classes, tracker_rows,
)
from kocka.solver.base.parallel import parallel_pool
from kocka.solver.base.decision import BuildOptions, Decision
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import IllegalActionError, InvalidStateError, TableError
from kocka.solver.base.progress import Progress
from kocka.solver.rules.base import Game
from kocka.solver.rules.five_dice import bits_of
from kocka.solver.rules.scorecard import (
    MAX_THROWS, Card, Declare, Fill, Keep, ScorecardGame, ScorecardState, YahtzeeGame,
)
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.models.table_solver import TableSolver

VALUE_NAME = "expected final score"


# ----------------------------------------------------------------------------------------
# The state space of one game variant
# ----------------------------------------------------------------------------------------
@dataclass
class ScorecardModel:
    """Everything the kernel needs for one rules variant (built by :func:`build_model`, or
    read back from a table by :meth:`from_table`).

    State ``base[m] + c * nflag[m] + f`` is tracker class ``c``, flag ``f`` of filled mask
    ``m``; masks are laid out by layer (number of filled boxes), so a layer is one
    contiguous range of states. Arrays indexed by mask have ``2 ** n_boxes`` rows
    (unreachable masks: ``base = -1``); ``U`` is the face-box part of a mask (face boxes
    are the first ``n_upper`` boxes of every card).

    Fills score ``fill_rewards[b, ft, o]`` (ft: first throw, when the game doubles it),
    except the *special* outcomes (bonus Yahtzees), whose points and allowed boxes depend on
    the card: ``special_rewards[ctx_of[2 m + f], b, ft, k]`` for outcome
    ``special_outcomes[k]`` (-inf: not allowed). The tracker rows (``row_*``,
    ``entry_group``, :class:`.card_model.TrackerRows`) give a face-box fill's next class.
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
    ctx_of: np.ndarray         # (2^n * 2,) int32 reward context, 0: the plain points
    fill_rewards: np.ndarray   # (n_boxes, n_ft, 252) float64
    special_outcomes: np.ndarray  # (n_special,) int32, [-1] when there are none
    special_rewards: np.ndarray   # (n_ctx, n_boxes, n_ft, n_special) float64
    row_start: np.ndarray      # (2^n_upper,) int64
    uprank: np.ndarray         # (2^n_upper * n_upper,) int32
    row_next: np.ndarray       # (rows, G) int32
    row_off: np.ndarray        # (rows, G) float64
    entry_group: np.ndarray    # (n_upper, 252) int8
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
        return (
            self.base, self.ncls, self.nflag, self.grp_ptr, self.grp_bits, self.ctx_of,
            self.fill_rewards, self.special_outcomes, self.special_rewards, self.row_start, self.uprank,
            self.row_next, self.row_off, self.entry_group, self.fnext, self.n_upper,
            five_dice().probs, five_dice().child,
        )

    # ----- the same tables with one column per outcome (the layout of earlier kernels) -----
    @cached_property
    def rewards(self) -> np.ndarray:
        """Points of every fill per reward context, (n_ctx, n_boxes, n_ft, 252)."""
        out = np.repeat(self.fill_rewards[None], len(self.special_rewards), axis=0)
        for k, o in enumerate(self.special_outcomes):
            if o >= 0:
                out[1:, :, :, o] = self.special_rewards[1:, :, :, k]
        return out

    @property
    def tbase(self) -> np.ndarray:
        """First tracker row of each mask's face set, (2^n,)."""
        U_of = np.arange(1 << self.n_boxes) & ((1 << self.n_upper) - 1)
        return self.row_start[U_of]

    @cached_property
    def _expanded_rows(self) -> tuple[np.ndarray, np.ndarray]:
        return self._rows.expanded()

    @property
    def tnext(self) -> np.ndarray:
        """Class after writing outcome o, (rows, 252)."""
        return self._expanded_rows[0]

    @property
    def toff(self) -> np.ndarray:
        """Value offset after writing outcome o, (rows, 252)."""
        return self._expanded_rows[1]

    @property
    def _rows(self) -> TrackerRows:
        return TrackerRows(self.row_start, self.uprank, self.row_next, self.row_off, self.entry_group, self.n_upper)

    @classmethod
    def from_table(cls, game: ScorecardGame, table: Table) -> "ScorecardModel":
        """The model of a solved table, from the arrays it stores (no engine work)."""
        _check_table(game, table)
        a = table.arrays
        n, nu = game.num_boxes, len(game.upper_boxes)
        base = a["base"]
        reach = np.flatnonzero(base >= 0)
        masks = reach[np.argsort(base[reach], kind="stable")].astype(np.int32)
        layer_ptr = np.searchsorted(popcounts(n)[masks], np.arange(n + 2)).astype(np.int64)
        return cls(
            game=game, n_boxes=n, n_upper=nu, masks=masks, layer_ptr=layer_ptr, base=base, ncls=a["ncls"],
            nflag=a["nflag"], grp_ptr=a["grp_ptr"], grp_bits=a["grp_bits"], ctx_of=a["ctx_of"],
            fill_rewards=a["fill_rewards"], special_outcomes=a["special_outcomes"],
            special_rewards=a["special_rewards"], row_start=a["row_start"], uprank=a["uprank"],
            row_next=a["row_next"], row_off=a["row_off"], entry_group=a["entry_group"], fnext=a["fnext"],
            tclass=a["tclass"], toffset=a["toffset"], n_states=len(a["values"]),
            reachable_states=int(table.meta.extra.get("reachable_states", 0)), flag_box=_flag_box(game),
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
    """Reward context of every (mask, flag), the plain points and the special outcomes'
    points per context: ``(ctx_of, fill_rewards, special_outcomes, special_rewards)``.

    Without a Yahtzee box every card uses the score table. With one, a bonus Yahtzee's
    points and allowed boxes depend on the flag, on which face boxes are filled (joker) and
    on whether another lower box is open (forced joker); one representative card per such
    key gives the context (its open boxes contain the real card's, and the engine's rules
    restrict to the real card's open boxes; :meth:`ScorecardEV.check` compares the two).
    Context 0 is the score table itself.
    """
    ctx_of = np.zeros(n_masks * 2, dtype=np.int32)
    special = _special_outcomes(game, flag_box)
    plain = _fill_rewards(game, 0, None, n_ft, ())
    if not special:
        return ctx_of, plain, np.array([-1], np.int32), np.zeros((1, game.num_boxes, n_ft, 1))
    n, nu = game.num_boxes, len(game.upper_boxes)
    full = (1 << n) - 1
    upper_bits = (1 << nu) - 1
    other_lower = full & ~upper_bits & ~(1 << flag_box)
    entry_of = _flag_entry(game, flag_box)
    m = np.arange(n_masks, dtype=np.int64)
    y_filled = (m >> flag_box) & 1
    lower_open = ((~m) & other_lower) != 0
    tables = [plain[:, :, special]]
    key_ctx: dict[int, int] = {}
    for flag in (0, 1):
        keys = ((m & upper_bits) * 2 + lower_open) * 2 + flag
        for key in np.unique(keys[y_filled == 1]).tolist():
            U, rest = divmod(key // 2, 2)
            rep = U | (1 << flag_box) | (0 if rest else other_lower)
            key_ctx[key] = len(tables)
            tables.append(_fill_rewards(game, rep, entry_of[flag], n_ft, special)[:, :, special])
        sel = y_filled == 1
        ctx_of[2 * m[sel] + flag] = [key_ctx[k] for k in keys[sel].tolist()]
    return ctx_of, plain, np.array(special, np.int32), np.ascontiguousarray(np.stack(tables))


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
    if int(np.diff(grp_ptr).max()) * 2 * N_OUT > 4096:
        raise TableError(f"{game.NAME}: a card has more than {4096 // (2 * N_OUT)} box groups, the kernel takes fewer")
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

    packed = tracker_rows(game, rows)

    # the flag after a fill: unchanged, except when the flag box itself is written
    fnext = np.zeros((n, 2, N_OUT), dtype=np.int8)
    fnext[:, 1, :] = 1
    if flag_box is not None:
        y_entries = st[flag_box, :, 0]
        fnext[flag_box, 0, :] = [
            int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, int(e)) > 0) for e in y_entries
        ]
    ctx_of, fill_rewards, special, special_rewards = _contexts(game, flag_box, n_ft, n_masks)
    model = ScorecardModel(
        game=game, n_boxes=n, n_upper=nu, masks=masks, layer_ptr=layer_ptr, base=base, ncls=ncls,
        nflag=nflag, grp_ptr=grp_ptr, grp_bits=grp_bits, ctx_of=ctx_of, fill_rewards=fill_rewards,
        special_outcomes=special, special_rewards=special_rewards, row_start=packed.start,
        uprank=packed.uprank, row_next=packed.next, row_off=packed.off, entry_group=packed.group,
        fnext=fnext, tclass=tclass, toffset=toffset, n_states=n_states, reachable_states=reachable_states,
        flag_box=flag_box,
    )
    model.seconds = time.perf_counter() - start
    model.stats = {
        "reachable_masks": int(len(masks)),
        "reachable_trackers": int(n_trackers.sum()),
        "tracker_classes": int(ncls_u.sum()),
        "reward_contexts": int(len(special_rewards)),
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
def _reward_bounds(model: ScorecardModel) -> tuple[int, int]:
    """``(lo, span)`` with every fill's points (offsets included) in ``[lo, lo + span)``."""
    finite = np.concatenate([model.fill_rewards.ravel(), model.special_rewards.ravel()])
    finite = finite[np.isfinite(finite)]
    lo = math.floor(finite.min() + min(0.0, float(model.row_off.min())))
    hi = math.ceil(finite.max() + max(0.0, float(model.row_off.max())))
    return lo, hi - lo + 1


def _decode(model: ScorecardModel, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask, tracker class, flag) of state ids."""
    starts = model.base[model.masks]
    masks = model.masks[np.searchsorted(starts, states, side="right") - 1]
    nf = model.nflag[masks].astype(np.int64)
    local = states - model.base[masks]
    return masks.astype(np.int32), (local // nf).astype(np.int32), (local % nf).astype(np.int8)


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


def _forward(model: ScorecardModel, W: np.ndarray, state: int, mask: int, score: int,
             root: tuple | None = None) -> tuple[int, np.ndarray]:
    """The final score distribution ``(lowest score, probabilities)`` under the optimal
    policy from ``state`` (of ``mask``, ``score`` so far with its tracker offset); ``root``
    ``(stage, dice distribution, group)``: its turn under way (see
    :func:`_scorecard.forward_distribution`)."""
    stage, mass, group = root if root is not None else (0, np.zeros(N_OUT), -1)
    first, probs = _scorecard.forward_distribution(
        model.masks, model.layer_ptr, int(state), int(mask), int(score), int(stage),
        np.ascontiguousarray(mass, dtype=np.float64), int(group), W, *model.kernel_args())
    return int(first), probs


def distribution_from_start(model: ScorecardModel, W: np.ndarray, options: BuildOptions = BuildOptions(progress=False)) -> ScoreDistribution:
    """Distribution of the final score from the empty card under the optimal policy (one
    thread: ``options`` only decides the progress line)."""
    t0 = model.game.initial_tracker
    start = int(model.base[0] + model.tclass[0, t0])
    progress = Progress(1, f"{model.game.NAME} distribution", unit="passes", enabled=options.progress)
    first, probs = _forward(model, W, start, 0, int(model.toffset[0, t0]))
    progress.advance(1)
    progress.close()
    return ScoreDistribution(first, probs)


# ----------------------------------------------------------------------------------------
# Tables
# ----------------------------------------------------------------------------------------
KERNEL_ARRAYS = ("ncls", "grp_ptr", "grp_bits", "ctx_of", "fill_rewards", "special_outcomes",
                 "special_rewards", "row_start", "uprank", "row_next", "row_off", "entry_group", "fnext")
"""The model arrays a table stores beside ``base``/``nflag``/``tclass``/``toffset``, so that
ranking from a loaded table needs no engine work."""


def build_arrays(game: ScorecardGame, options: BuildOptions = BuildOptions(progress=False)
                 ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Solve ``game`` and return the table arrays and the facts recorded with them.

    Arrays: ``values`` (float64, one per state: expected future score less the tracker
    offset), ``base``/``nflag`` (per mask), ``tclass``/``toffset`` (per face-box set and
    tracker), ``dist_first``/``dist_probs`` (final score distribution from the empty card),
    and the kernel's tables (:data:`KERNEL_ARRAYS`, see :class:`ScorecardModel`).
    """
    clock = [(time.perf_counter(), time.process_time())]
    model = model_for(game)
    clock.append((time.perf_counter(), time.process_time()))
    W = solve_values(model, options)
    clock.append((time.perf_counter(), time.process_time()))
    peak_before_distribution = _peak_rss_mb()
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
        **{name: getattr(model, name) for name in KERNEL_ARRAYS},
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
        # the process's peak memory before the distribution step (None where unknown): the
        # floor of a build's memory under this step's histograms
        "peak_rss_mb_before_distribution": peak_before_distribution,
    }
    return arrays, extra


def _peak_rss_mb() -> float | None:
    """This process's peak resident memory so far, MB (None where the OS does not say)."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


_MODELS: dict[tuple[type, Any], ScorecardModel] = {}


def model_for(game: ScorecardGame) -> ScorecardModel:
    """The model of ``game``'s rules variant (cached per process, a few variants).

    One cache for every solver over this model: the expected-score table here and the
    target tables (:mod:`kocka.solver.solvers.scorecard.target`) build and read the same
    :class:`ScorecardModel`, so both ask this function and share what it has built."""
    key = (type(game), game.rules)
    if key not in _MODELS:
        if len(_MODELS) >= 8:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = build_model(game)
    return _MODELS[key]


def _has_kernel_arrays(table: Table) -> bool:
    return all(name in table.arrays for name in KERNEL_ARRAYS)


def _check_table(game: ScorecardGame, table: Table) -> None:
    """The arrays a solved table must hold for ``game`` (TableError naming the first that
    does not fit; :meth:`ScorecardEV.layout` checks the same on load)."""
    n, nu = game.num_boxes, len(game.upper_boxes)
    a = table.arrays
    expected = {"base": (1 << n,), "nflag": (1 << n,), "tclass": (1 << nu, game.tracker_size),
                "toffset": (1 << nu, game.tracker_size), "ncls": (1 << n,), "grp_ptr": ((1 << n) + 1,),
                "ctx_of": ((1 << n) * 2,), "row_start": (1 << nu,), "fnext": (n, 2, N_OUT),
                "entry_group": (max(nu, 1), N_OUT)}
    if not _has_kernel_arrays(table):  # a table of values only (the target tables)
        expected = {k: v for k, v in expected.items() if k in ("base", "nflag", "tclass", "toffset")}
    for name, shape in expected.items():
        if name not in a or a[name].shape != shape:
            raise TableError(f"{game.NAME} table lacks array {name!r} of shape {shape!r}; rebuild it with: kocka-solve build {game.NAME}")
    if _has_kernel_arrays(table):
        fr, sr = a["fill_rewards"], a["special_rewards"]
        if (fr.ndim != 3 or fr.shape[0] != n or fr.shape[2] != N_OUT or sr.ndim != 4 or sr.shape[1:3] != fr.shape[:2]
                or sr.shape[3] != len(a["special_outcomes"]) or a["row_next"].shape != a["row_off"].shape):
            raise TableError(f"{game.NAME} table's kernel arrays do not fit one another")
    if len(a["values"]) != table.meta.extra.get("states"):
        raise TableError(f"{game.NAME} table has {len(a['values'])!r} values, its metadata says {table.meta.extra.get('states')!r}")


# ----------------------------------------------------------------------------------------
# Values of positions
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


# ----------------------------------------------------------------------------------------
# Ranking: the kernel over a loaded table
# ----------------------------------------------------------------------------------------
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
        self.fills = [Fill(b) for b in game.boxes]
        self._keeps: dict[int, Keep] = {}
        self._labels: dict[Any, str] = {}
        self._templates: dict[int, tuple] = {}  # action id -> (action, label, kind)
        self._cards: dict[Card, tuple] = {}
        self.declares = bool(getattr(game, "declares", False))  # SK-3: a face box declared after throw 1

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
        game, a = self.game, self.arrays
        mask = card.filled_mask
        tracker = game.tracker_of(card)
        U = mask & ((1 << self.nu) - 1)
        base = int(a["base"][mask])
        cls = int(a["tclass"][U, tracker])
        if base < 0 or cls < 0:
            raise InvalidStateError(f"{game.NAME}: card with filled mask {mask:#x} and tracker {tracker!r} cannot occur under these rules")
        flag = 0
        if self.flag_box is not None and card.entries[self.flag_box] is not None:
            flag = int(game.yahtzee_bonus((6,) * 5, 1 << self.flag_box, card.entries[self.flag_box]) > 0)
        g0, g1 = int(a["grp_ptr"][mask]), int(a["grp_ptr"][mask + 1])
        got = (mask, cls, flag, game.entries_total(card) + int(a["toffset"][U, tracker]),
               tuple(int(g) for g in a["grp_bits"][g0:g1]))
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
        text = self._labels.get(action)
        if text is None:
            text = self._labels[action] = self.game.describe_action(action, state)
        return text

    def decision(self, aid: int, value: float, state: ScorecardState, pos: tuple) -> Decision:
        """The :class:`Decision` of action id ``aid`` with ``value`` at ``state`` (``pos``: its
        ``(mask, class, flag, throw, outcome)``)."""
        template = self._templates.get(aid)
        if template is None:
            action = self.action(aid)
            kind = 0 if aid < self.n else 1 if aid < self.n + N_SMALL else 2
            template = self._templates[aid] = (action, self.label(action, state), kind)
        action, label, kind = template
        if kind == 0:
            points = int(self.turns.fill_points(pos[0], pos[2], aid, pos[3] == 1, pos[4]))
            detail = {"type": "fill", "box": action.box, "points": points}
        elif kind == 1:
            detail = {"type": "keep", "dice": list(action.dice)}
        else:
            detail = {"type": "declare", "box": action.box}
        return Decision(action, value, label, detail)


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


# ----------------------------------------------------------------------------------------
# Ranking: the independent reference (engine scores, dense keep transitions)
# ----------------------------------------------------------------------------------------
# Each entry is about n_boxes x 2 x 252 float64 (60 KB for 15 boxes): 256 of them cover
# many concurrent games (a game visits one mask per turn) while keeping a long-running
# process's memory bounded (~15 MB).
_REWARD_CACHE_ENTRIES = 256


@dataclass(frozen=True)
class _GameFacts:
    """Per-variant constants of :func:`rank_reference` (computed once per game object)."""

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


def rank_reference(game: ScorecardGame, table: Table, state: ScorecardState) -> list[Decision]:
    """:func:`rank` recomputed without the kernel's turn: the engine's legal actions and
    fill scores (``allowed_boxes``/``fill_score``), the table's turn-start values and the
    dense keep -> outcome transitions (:func:`.card_model.three_throw_turn`). Slow (about a
    millisecond); the spot checks and the tests compare :func:`rank` with it."""
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
    model = _ranker(game, table).model
    W = table["values"]
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
    first, probs = _forward(model, W, start, key.mask, score, root=root)
    return ScoreDistribution(first, probs)


# ----------------------------------------------------------------------------------------
# The table solver object (named by the game specs, built and loaded by the value-table store)
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScorecardEV(TableSolver):
    """Table solver of the scorecard games: exact expected final score of every card."""

    kind: str = "ev"
    description: str = "exact optimal expected final score of every card (solitaire), with the score distribution"
    game_type = ScorecardGame

    def build(self, game: Game, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return build_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {
            "expected_score": x["expected_score"],
            "states": x["states"],
            "reachable_states": x["reachable_states"],
            "score_std": x["distribution_std"],
            "score_range": x["score_range"],
            "values": x["value_dtype"],
        }

    def layout(self, game: Game, meta: TableMeta) -> Layout:
        """The arrays of :func:`build_arrays`: per-mask arrays for the 2^boxes masks,
        per-(face-box set, tracker) arrays, one value per solved state and one probability
        per final score (both counts recorded in the metadata), and the kernel's tables
        (:class:`ScorecardModel`; their lengths follow from the rules, the number of
        reward contexts and special outcomes, tracker rows and entry groups)."""
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
            "ncls": ((1 << n,), np.int32),
            "grp_ptr": (((1 << n) + 1,), np.int32),
            "grp_bits": ((None,), np.int32),
            "ctx_of": (((1 << n) * 2,), np.int32),
            "fill_rewards": ((n, None, N_OUT), np.float64),
            "special_outcomes": ((None,), np.int32),
            "special_rewards": ((None, n, None, None), np.float64),
            "row_start": ((1 << nu,), np.int64),
            "uprank": ((max((1 << nu) * nu, 1),), np.int32),
            "row_next": ((None, None), np.int32),
            "row_off": ((None, None), np.float64),
            "entry_group": ((max(nu, 1), N_OUT), np.int8),
            "fnext": ((n, 2, N_OUT), np.int8),
        }

    def export(self, game: Game, table: Table, limit: int, seed: int = 0) -> Iterator[dict]:
        """Labelled positions (``kocka-solve export``): :func:`export_positions`."""
        return export_positions(game, table, limit, seed)

    def spot_check(self, game: Game, table: Table, seed: int) -> list[str]:
        """One sampled card with a single open box (drawn as :meth:`check` draws them): its
        stored value must be the value of its own turn, averaged over the 252 first throws
        of :func:`rank` (the kernel's turn over the table's successor values: 15 ms, where
        :meth:`check`'s engine-only :func:`rank_reference` takes 300)."""
        card = _sample_cards(game, np.random.default_rng(seed), 1)[0]
        want = value_of_card(game, table, card)
        got = float(turn_start_average(game, card, lambda state: rank(game, table, state)[0].value))
        if abs(want - got) > 1e-9 * max(1.0, abs(want)):
            return [f"card {card.entries!r}: table {want!r}, its own turn {got!r}"]
        return []

    def check(self, game: Game, table: Table, samples: int = 12, seed: int = 0) -> list[str]:
        """Spot checks independent of the kernel: for sampled turn-start cards, the value
        recomputed from :func:`rank_reference` (engine fill scores, dense keep
        transitions) must equal the table, and :func:`rank` must agree with it at sampled
        positions; the distribution must sum to 1 with the table's mean."""
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
            state = ScorecardState(cards=(card,) * game.num_players, throw=1 + int(rng.integers(MAX_THROWS)),
                                   dice=tuple(int(v) for v in outcomes[rng.integers(N_OUT)]))
            if state.throw > 1 and getattr(game, "declares", False) and state.declared is None:
                continue  # a declaration would be due first
            problems.extend(_rank_problems(game, table, state))
        return problems


def _rank_problems(game: ScorecardGame, table: Table, state: ScorecardState) -> list[str]:
    """Differences between :func:`rank` and :func:`rank_reference` at one position."""
    try:
        fast, slow = list(rank(game, table, state)), rank_reference(game, table, state)
    except InvalidStateError:
        return []
    a = {d.action: d.value for d in fast}
    b = {d.action: d.value for d in slow}
    if a.keys() != b.keys():
        return [f"{game.describe_state(state)}: rank lists {len(a)} actions, the engine {len(b)}"]
    bad = [x for x in a if abs(a[x] - b[x]) > 1e-9 * max(1.0, abs(b[x]))]
    return [f"{game.describe_state(state)}: rank values {game.describe_action(bad[0], state)} at {a[bad[0]]!r}, "
            f"recomputed {b[bad[0]]!r}"] if bad else []


def expected_turn_value(game: ScorecardGame, table: Table, card: Card) -> float:
    """Expected final score of ``card`` at a turn start, recomputed from
    :func:`rank_reference` over the 252 first throws (a check of the table against the
    rules engine, independent of the kernel's turn)."""
    return turn_start_average(game, card, lambda state: rank_reference(game, table, state)[0].value)


def turn_start_average(game: ScorecardGame, card: Card, value: Callable[[ScorecardState], float]) -> float:
    """The average of ``value(state)`` over the 252 first throws of a turn of ``card``
    (every player holding it), each state after the first throw.

    Why one function: the checks that recompute a turn-start value through a ranking,
    :func:`expected_turn_value` (expected score) and :func:`.target.turn_reach_value`
    (chance of a target), average over the same first throws in the same order."""
    dt = dice_tables(5)
    total = 0.0
    for o, p in enumerate(dt.probs):
        dice = tuple(int(v) for v in dt.outcomes[o])
        state = ScorecardState(cards=(card,) * game.num_players, throw=1, dice=dice)
        total += p * value(state)
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
