"""Exact solitaire solver of the five-dice scorecard games: kockapóker (HU), Slovak yatzi (SK),
Yahtzee and Yatzy, with hints and the distribution of the final score.

**Objective.** Maximise the expected final score of one card (solitaire). Every number comes
from the rules engine (:mod:`kocka.solver.rules.scorecard`): its score table, tracker and
fill rules; nothing about scoring is re-implemented here.

**State.** Between turns a card is ``(filled mask, tracker, flag)``:

* the *tracker* summarises the face boxes (net upper score, or the Yahtzee/Yatzy upper total
  capped at 63); only trackers reachable for the filled face boxes are kept;
* trackers whose futures differ by a constant are merged into one *tracker class*: the value
  is ``W[mask, class, flag] + offset[tracker]``. The classes are found exactly, backwards,
  by comparing what every face-box fill leads to (:func:`_tracker_classes`), so the tracker
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
from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np

from kocka.solver import _scorecard
from kocka.solver.dice import validate_dice
from kocka.solver.dice_tables import dice_tables
from kocka.solver.errors import DiceError, InvalidStateError, TableError
from kocka.solver.progress import Progress
from kocka.solver.registry import BuildOptions, Decision, get_table
from kocka.solver.rules.base import Game
from kocka.solver.rules.scorecard import (
    Card, Declare, Fill, Keep, ScorecardGame, ScorecardState, YahtzeeGame,
)
from kocka.solver.tables import Table

N_OUT = 252
N_KEEP = 462
N_SMALL = 210
VALUE_NAME = "expected final score"


# ----------------------------------------------------------------------------------------
# Keep lattice
# ----------------------------------------------------------------------------------------
N_PARENTS = 5  # distinct faces of at most five dice


@dataclass(frozen=True)
class KeepLattice:
    """The 462 keeps of five dice as a lattice (keep order of :func:`dice_tables`).

    Attributes
    ----------
    child : ndarray, shape (210, 6), int32
        ``child[k, f - 1]``: keep ``k`` (0..4 dice) plus one die showing ``f``.
    parent : ndarray, shape (462, 5), int32
        The distinct keeps with one die fewer, padded with 462 (a slot holding -inf).
    """

    child: np.ndarray
    parent: np.ndarray


@lru_cache(maxsize=None)
def keep_lattice() -> KeepLattice:
    dt = dice_tables(5)
    if not (dt.keeps[N_SMALL:] == dt.outcomes).all() or (dt.keep_sizes[:N_SMALL] >= 5).any():
        raise TableError("dice_tables(5) keep order changed: the last 252 keeps must be the outcomes")
    child = np.empty((N_SMALL, 6), dtype=np.int32)
    parent = np.full((N_KEEP, N_PARENTS), N_KEEP, dtype=np.int32)
    for k in range(N_KEEP):
        kept = dt.keep_dice(k)
        if k < N_SMALL:
            for f in range(1, 7):
                child[k, f - 1] = dt.keep_index(kept + (f,))
        parents = sorted({dt.keep_index(kept[:i] + kept[i + 1:]) for i in range(len(kept))})
        parent[k, :len(parents)] = parents
    return KeepLattice(child, parent)


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
            self.n_upper, dice_tables(5).probs, lat.child, lat.parent,
        )


def _flag_box(game: ScorecardGame) -> int | None:
    """The Yahtzee box when bonus Yahtzees and the joker depend on its entry."""
    if isinstance(game, YahtzeeGame) and game.rules.yahtzee_bonus:
        return game.yahtzee_box
    return None


def _entry_groups(game: ScorecardGame, box: int) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Outcomes of ``box`` grouped by the entry they write: (group of each outcome,
    one representative dice per group). ``tracker_after`` depends on the dice only through
    the entry (the tracker sums face entries), which :meth:`ScorecardEV.check` verifies."""
    entries = game.score_table()[box, :, 0]
    _, first, inv = np.unique(entries, return_index=True, return_inverse=True)
    outcomes = dice_tables(5).outcomes
    return inv.astype(np.int64), [tuple(int(v) for v in outcomes[i]) for i in first]


@lru_cache(maxsize=16)
def _tracker_after_table(game: ScorecardGame) -> np.ndarray:
    """``after[u, t, o]``: tracker after writing outcome ``o`` into face box ``u``."""
    T = game.tracker_size
    after = np.empty((len(game.upper_boxes), T, N_OUT), dtype=np.int64)
    for u, box in enumerate(game.upper_boxes):
        inv, reps = _entry_groups(game, box)
        per_group = np.array([[game.tracker_after(t, box, d) for d in reps] for t in range(T)], dtype=np.int64)
        after[u] = per_group[:, inv]
    return after


def _tracker_classes(game: ScorecardGame) -> tuple[np.ndarray, np.ndarray, list, np.ndarray]:
    """Reachable trackers per face-box set ``U`` and their classes.

    Two trackers of ``U`` are in one class when, for every open face box and outcome, the
    trackers they lead to are in one class of ``U + box`` with the same offset difference
    (at a full ``U`` every tracker is in one class with offset ``final_bonus``). Their
    values then differ by that constant under every policy, so one class is solved once.

    Returns ``tclass``, ``toffset`` (2^nu, T), per ``U`` the transition rows
    ``(next class, normalized offset)`` of each class and open face box, and the number
    of reachable trackers per ``U``.
    """
    nu, T = len(game.upper_boxes), game.tracker_size
    after = _tracker_after_table(game)
    n_u = 1 << nu
    full = n_u - 1
    reach = np.zeros((n_u, T), dtype=bool)
    reach[0, game.initial_tracker] = True
    for U in range(1, n_u):
        for u in range(nu):
            if U >> u & 1:
                prev = np.flatnonzero(reach[U & ~(1 << u)])
                reach[U, np.unique(after[u, prev])] = True
    tclass = np.full((n_u, T), -1, dtype=np.int32)
    toffset = np.zeros((n_u, T), dtype=np.int64)
    rows: list = [None] * n_u
    for U in range(full, -1, -1):
        ts = np.flatnonzero(reach[U])
        if U == full:
            tclass[U, ts] = 0
            toffset[U, ts] = [game.final_bonus(int(t)) for t in ts]
            rows[U] = (np.zeros((0, N_OUT), np.int32), np.zeros((0, N_OUT), np.float64))
            continue
        open_u = [u for u in range(nu) if not U >> u & 1]
        nxt = [after[u][ts] for u in open_u]
        C = np.concatenate([tclass[U | 1 << u][a] for u, a in zip(open_u, nxt)], axis=1)
        O = np.concatenate([toffset[U | 1 << u][a] for u, a in zip(open_u, nxt)], axis=1)
        if (C < 0).any():
            raise TableError(f"{game.NAME}: tracker transition leaves the reachable set at face set {U:#x}")
        off = O[:, 0].copy()
        normalized = O - off[:, None]
        keys = np.ascontiguousarray(np.concatenate([C, normalized], axis=1))
        first, inv = _group_rows(keys)
        tclass[U, ts] = inv
        toffset[U, ts] = off
        k = len(open_u)
        rows[U] = (C[first].reshape(len(first) * k, N_OUT).astype(np.int32),
                   normalized[first].reshape(len(first) * k, N_OUT).astype(np.float64))
    return tclass, toffset, rows, reach.sum(axis=1)


def _group_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Equal rows of a 2-D array: (first row of each group, group of each row), groups
    numbered in order of first appearance."""
    seen: dict[bytes, int] = {}
    inv = np.empty(len(rows), dtype=np.int32)
    first: list[int] = []
    for i, row in enumerate(rows):
        key = row.tobytes()
        g = seen.setdefault(key, len(first))
        if g == len(first):
            first.append(i)
        inv[i] = g
    return np.asarray(first, dtype=np.int64), inv


def _popcounts(n: int) -> np.ndarray:
    """Number of set bits of 0 .. 2^n - 1."""
    pc = np.zeros(1 << n, dtype=np.int64)
    for b in range(n):
        pc[1 << b:1 << (b + 1)] = pc[:1 << b] + 1
    return pc


def _reachable_masks(game: ScorecardGame) -> tuple[np.ndarray, np.ndarray]:
    """Masks reachable from the empty card through ``allowed_boxes`` (SK part order), and
    the allowed boxes of each as a bit mask."""
    n = game.num_boxes
    full = (1 << n) - 1
    reach = np.zeros(1 << n, dtype=bool)
    allowed = np.zeros(1 << n, dtype=np.int32)
    reach[0] = True
    if type(game).allowed_boxes is ScorecardGame.allowed_boxes:  # every open box, always
        allowed[:] = ~np.arange(1 << n, dtype=np.int32) & full
        reach[:] = True
        return reach, allowed
    for m in range(full):  # every predecessor of m is numerically smaller
        if reach[m]:
            bits = 0
            for b in game.allowed_boxes(m):
                bits |= 1 << b
            allowed[m] = bits
            for b in range(n):
                if bits >> b & 1:
                    reach[m | 1 << b] = True
    return reach, allowed


def _box_groups(game: ScorecardGame, masks: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per mask, the groups of boxes one turn may end in. Normally one group (the allowed
    boxes). Under SK ``declare_after_first_throw`` a face box is declared after the first
    throw: each open face box is a group of its own, plus the other boxes if any (SK-3)."""
    n = game.num_boxes
    declares = getattr(game, "declares", False)
    upper_bits = sum(1 << b for b in game.upper_boxes)
    ptr = np.zeros((1 << n) + 1, dtype=np.int32)
    if not declares:
        has = np.zeros(1 << n, dtype=np.int32)
        has[masks] = allowed[masks] != 0
        ptr[1:] = np.cumsum(has)
        return ptr, np.ascontiguousarray(allowed[np.flatnonzero(has)], dtype=np.int32)
    counts = np.zeros(1 << n, dtype=np.int32)
    bits_of: dict[int, list[int]] = {}
    for m in masks.tolist():
        a = int(allowed[m])
        if a == 0:
            groups = []
        elif declares and a & upper_bits:
            groups = [1 << b for b in game.upper_boxes if a >> b & 1]
            if a & ~upper_bits:
                groups.append(a & ~upper_bits)
        else:
            groups = [a]
        bits_of[m] = groups
        counts[m] = len(groups)
    ptr[1:] = np.cumsum(counts)
    flat = np.zeros(int(ptr[-1]), dtype=np.int32)
    for m, groups in bits_of.items():
        flat[ptr[m]:ptr[m] + len(groups)] = groups
    return ptr, flat


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
    key_ctx: dict[tuple[int, int, bool], int] = {}
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

    tclass, toffset, rows, n_trackers = _tracker_classes(game)
    ncls_u = tclass.max(axis=1) + 1
    reach, allowed = _reachable_masks(game)
    masks_all = np.arange(n_masks, dtype=np.int64)
    popcount = _popcounts(n)
    order = np.lexsort((masks_all, popcount))
    masks = order[reach[order]].astype(np.int32)
    layer_ptr = np.searchsorted(popcount[masks], np.arange(n + 2)).astype(np.int64)

    U_of = masks_all & ((1 << nu) - 1)
    ncls = ncls_u[U_of].astype(np.int32)
    nflag = np.ones(n_masks, dtype=np.int8)
    if flag_box is not None:
        nflag[(masks_all >> flag_box) & 1 == 1] = 2
    sizes = np.where(reach, ncls.astype(np.int64) * nflag, 0)
    base = np.full(n_masks, -1, dtype=np.int64)
    base[masks] = np.concatenate([[0], np.cumsum(sizes[masks])[:-1]])
    n_states = int(sizes.sum())
    reachable_states = int(np.where(reach, n_trackers[U_of] * nflag, 0).sum())

    # tracker-transition rows: class c of face set U, open face box of rank r
    row_start = np.zeros(1 << nu, dtype=np.int64)
    row_blocks_next, row_blocks_off = [], []
    count = 0
    for U in range(1 << nu):
        row_start[U] = count
        row_blocks_next.append(rows[U][0])
        row_blocks_off.append(rows[U][1])
        count += len(rows[U][0])
    tnext = np.ascontiguousarray(np.concatenate(row_blocks_next) if count else np.zeros((1, N_OUT), np.int32))
    toff = np.ascontiguousarray(np.concatenate(row_blocks_off) if count else np.zeros((1, N_OUT)))
    tbase = row_start[U_of]
    uprank = np.zeros(max((1 << nu) * nu, 1), dtype=np.int32)
    for U in range(1 << nu):
        r = 0
        for u in range(nu):
            if not U >> u & 1:
                uprank[U * nu + u] = r
                r += 1

    fnext = np.zeros((n, 2, N_OUT), dtype=np.int8)
    fnext[:, 1, :] = 1
    if flag_box is not None:
        y_entries = st[flag_box, :, 0]
        fnext[flag_box, 0, :] = [
            int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, int(e)) > 0) for e in y_entries
        ]
    ctx_of, rewards = _contexts(game, flag_box, n_ft, n_masks)
    grp_ptr, grp_bits = _box_groups(game, masks, allowed)
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
def _solve_chunk(masks: np.ndarray, first: int, count: int, W: np.ndarray, args: tuple) -> np.ndarray:
    out = np.empty(count, dtype=np.float64)
    _scorecard.solve_masks(masks, first, out, W, *args)
    return out


def _chunks(model: ScorecardModel, layer: int, n_chunks: int) -> list[tuple[np.ndarray, int, int]]:
    """Split one layer into about ``n_chunks`` runs of masks with similar state counts."""
    lo, hi = model.layer_ptr[layer], model.layer_ptr[layer + 1]
    masks = model.masks[lo:hi]
    if len(masks) == 0:
        return []
    starts = model.base[masks]
    end = starts[-1] + model.ncls[masks[-1]] * model.nflag[masks[-1]]
    total = end - starts[0]
    cuts = np.searchsorted(starts, starts[0] + total * np.arange(1, n_chunks) / n_chunks)
    bounds = np.unique(np.concatenate([[0], cuts, [len(masks)]]))
    result = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        s0 = int(starts[a])
        s1 = int(starts[b]) if b < len(masks) else int(end)
        result.append((np.ascontiguousarray(masks[a:b]), s0, s1 - s0))
    return result


def solve_values(model: ScorecardModel, options: BuildOptions = BuildOptions(progress=False)) -> np.ndarray:
    """Expected future score ``W`` of every state (see :class:`ScorecardModel`), float64."""
    W = np.zeros(model.n_states, dtype=np.float64)
    args = model.kernel_args()
    jobs = max(int(options.jobs), 1)
    todo = model.n_states - int(model.state_start[model.n_boxes])
    progress = Progress(todo, f"{model.game.NAME} values", enabled=options.progress)
    parallel = None
    if jobs > 1:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=jobs, backend=options.backend)
        parallel.__enter__()
    try:
        for layer in range(model.n_boxes - 1, -1, -1):
            chunks = _chunks(model, layer, 1 if parallel is None else 4 * jobs)
            if parallel is None:
                for masks, s0, cnt in chunks:
                    _scorecard.solve_masks(masks, s0, W[s0:s0 + cnt], W, *args)
                    progress.advance(cnt)
                continue
            results = parallel(delayed(_solve_chunk)(masks, s0, cnt, W, args) for masks, s0, cnt in chunks)
            for (masks, s0, cnt), out in zip(chunks, results):
                W[s0:s0 + cnt] = out
                progress.advance(cnt)
    finally:
        if parallel is not None:
            parallel.__exit__(None, None, None)
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


def _transitions(model: ScorecardModel, W: np.ndarray, states: np.ndarray, root: tuple | None):
    """Entries (source position, next state, points, probability) of one turn from each
    state under the optimal policy (:func:`_scorecard.turn_transitions`)."""
    masks, cls, flags = _decode(model, states)
    rew_lo, rew_span = _reward_bounds(model)
    stage, mass, group = root if root is not None else (0, np.zeros(N_OUT), -1)
    args = model.kernel_args()
    per_state = 2 * N_OUT * max(int(np.diff(model.grp_ptr).max()), 1)
    step = max(1, 400_000 // per_state)
    parts = []
    for a in range(0, len(states), step):
        b = min(a + step, len(states))
        cap = per_state * (b - a)
        e = [np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap)]
        n = _scorecard.turn_transitions(
            states[a:b], masks[a:b], cls[a:b], flags[a:b], stage, mass, group, rew_lo, rew_span,
            *e, W, *args,
        )
        if n < 0:
            raise TableError("turn_transitions: entry buffer too small")  # cannot happen: cap is the bound
        e[0][:n] += a
        parts.append([x[:n] for x in e])
    return [np.concatenate([p[i] for p in parts]) for i in range(4)]


def _forward(model: ScorecardModel, W: np.ndarray, mass: _Mass, root: tuple | None = None,
             progress: Progress | None = None) -> tuple[int, np.ndarray]:
    """Push ``mass`` (states of one layer) turn by turn to the full card; return the final
    score distribution as ``(lowest score, probabilities)``."""
    full = (1 << model.n_boxes) - 1
    while True:
        masks, _, _ = _decode(model, mass.states)
        if (masks == full).all():
            break
        src, succ, rew, p = _transitions(model, W, mass.states, root)
        root = None
        targets, tgt = np.unique(succ, return_inverse=True)
        width = np.diff(mass.off)
        lo = np.full(len(targets), np.iinfo(np.int64).max, np.int64)
        hi = np.full(len(targets), np.iinfo(np.int64).min, np.int64)
        np.minimum.at(lo, tgt, mass.lo[src] + rew)
        np.maximum.at(hi, tgt, mass.lo[src] + width[src] - 1 + rew)
        off = np.concatenate([[0], np.cumsum(hi - lo + 1)]).astype(np.int64)
        buf = np.zeros(int(off[-1]))
        _scorecard.push_mass(src, tgt.astype(np.int64), rew, p, mass.lo, mass.off, mass.buf, lo, off, buf)
        if progress is not None:
            progress.advance(len(mass.states))
        mass = _Mass(targets, lo, off, buf)
    first = int(mass.lo.min())
    last = int((mass.lo + np.diff(mass.off) - 1).max())
    probs = np.zeros(last - first + 1)
    for i in range(len(mass.states)):
        probs[mass.lo[i] - first: mass.lo[i] - first + mass.off[i + 1] - mass.off[i]] += mass.buf[mass.off[i]:mass.off[i + 1]]
    return first, probs
