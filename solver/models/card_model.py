"""The pieces both five-dice card solvers share: the scorecard games
(:mod:`kocka.solver.solvers.scorecard.values`) and Polish poker dice (:mod:`kocka.solver.solvers.polish.values`).

Both solve a card as layers of filled-box masks, last layer first, with a turn kernel of
:mod:`kocka.solver.kernels._scorecard` over the 252 outcomes and 462 keeps of five dice. What they
share lives here, once:

* the dice facts of the kernels, built in a millisecond (:func:`five_dice`), the keep
  lattice (:func:`keep_lattice`) and the dense keep values of one throw
  (:func:`keep_values`, :func:`best_proper_keep`), the numpy reference of the kernel;
* the upper-section tracker classes (:func:`tracker_classes`) and their kernel rows
  (:func:`tracker_rows`: one column per entry group of a face box), for any engine that
  offers the tracker interface described at :func:`tracker_classes`;
* the layout of the masks: which masks a card reaches through the engine's box groups,
  their order by layer and the first state of each (:func:`reachable_groups`,
  :func:`layer_order`, :func:`state_bases`);
* the layer-by-layer backward solve, in an optional worker pool (:func:`solve_layers`, the
  pool of :func:`kocka.solver.base.parallel.parallel_pool`).

Nothing here knows a rule: the box groups, entries and bonuses come from the engines.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from kocka.solver.kernels._scorecard import LATTICE_SIZES
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import TableError
from kocka.solver.base.parallel import run_calls
from kocka.solver.base.progress import Progress

# the kernels' own sizes (solver/kernels/keep_lattice.pxd), declared there once
N_OUT: int = LATTICE_SIZES["N_OUT"]
"""Sorted outcomes of five dice (252)."""
N_KEEP: int = LATTICE_SIZES["N_KEEP"]
"""Keeps of 0..5 dice (462; the last 252 are the outcomes, in outcome order)."""
N_SMALL: int = LATTICE_SIZES["N_SMALL"]
"""Keeps of 0..4 dice (210)."""
N_FOUR: int = LATTICE_SIZES["N_FOUR"]
"""Keeps of 0..3 dice (84); keeps 84..209 hold four dice."""


# ----------------------------------------------------------------------------------------
# Keeps
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KeepLattice:
    """The 462 keeps of five dice as a lattice (keep order of :func:`dice_tables`: by size,
    then lexicographic, so the last 252 keeps are the outcomes in outcome order).

    Attributes
    ----------
    child : ndarray, shape (210, 6), int32
        ``child[k, f - 1]``: keep ``k`` (0..4 dice) plus one die showing ``f``.
    """

    child: np.ndarray


@dataclass(frozen=True)
class FiveDice:
    """What the turn kernels need to know of five dice, in :func:`dice_tables`' order
    (outcomes sorted lexicographically; keeps by size, then lexicographic, the last 252
    the outcomes), built with numpy in about a millisecond, so that a hint right after a
    table is loaded does not wait for the full keep-transition tables.

    Attributes
    ----------
    keeps : tuple of tuples, (462,)
        The dice of every keep.
    keep_counts : ndarray, shape (462, 6), int8
        How many dice of each face every keep holds.
    probs : ndarray, shape (252,)
        Probability of each outcome when all five dice are rolled.
    child : ndarray, shape (210, 6), int32
        The keep lattice (:class:`KeepLattice`).
    index : dict
        Sorted dice (a tuple) -> outcome index.
    """

    keeps: tuple
    keep_counts: np.ndarray
    probs: np.ndarray
    child: np.ndarray
    index: dict

    def outcome_index(self, dice: Sequence[int]) -> int:
        """Row of five dice (sorted or not; validated by the caller) among the outcomes."""
        key = dice if type(dice) is tuple else tuple(dice)
        try:
            return self.index[key]
        except KeyError:
            return self.index[tuple(sorted(key))]


@lru_cache(maxsize=None)
def five_dice() -> FiveDice:
    keeps = tuple(k for size in range(6) for k in combinations_with_replacement(range(1, 7), size))
    padded = np.zeros((len(keeps), 5), dtype=np.int8)
    for i, k in enumerate(keeps):
        padded[i, :len(k)] = k
    counts = (padded[:, :, None] == np.arange(1, 7, dtype=np.int8)[None, None, :]).sum(axis=1).astype(np.int8)
    weights = 6 ** np.arange(6, dtype=np.int64)
    key = counts.astype(np.int64) @ weights          # a keep's face counts in base 6
    lookup = np.full(6 ** 6, -1, dtype=np.int64)
    lookup[key] = np.arange(len(keeps))
    child = lookup[key[:N_SMALL, None] + weights[None, :]].astype(np.int32)
    factorial = np.array([math.factorial(j) for j in range(6)], dtype=np.float64)
    outcome_counts = counts[N_SMALL:]
    probs = math.factorial(5) / factorial[outcome_counts].prod(axis=1) / 6 ** 5
    index = {k: i for i, k in enumerate(keeps[N_SMALL:])}
    for a in (counts, child, probs):
        a.setflags(write=False)
    return FiveDice(keeps, counts, probs, child, index)


@lru_cache(maxsize=None)
def keep_lattice() -> KeepLattice:
    dt = dice_tables(5)
    sizes_ok = (dt.keep_sizes[:N_FOUR] <= 3).all() and (dt.keep_sizes[N_FOUR:N_SMALL] == 4).all()
    if not (dt.keeps[N_SMALL:] == dt.outcomes).all() or not sizes_ok:
        raise TableError("dice_tables(5) keep order changed: keeps must be sorted by size, outcomes last")
    fd = five_dice()
    if any(dt.keep_dice(k) != fd.keeps[k] for k in range(N_KEEP)):
        raise TableError("dice_tables(5) keep order differs from the kernels' (by size, then lexicographic)")
    return KeepLattice(fd.child)


def keep_values(after: np.ndarray) -> np.ndarray:
    """Value of each of the 462 keeps, shape (462,), when the outcome of the next throw is
    worth ``after`` (252,): the dense keep -> outcome transitions, independent of the
    kernel's lattice."""
    dt = dice_tables(5)
    rows = np.repeat(np.arange(N_KEEP), np.diff(dt.trans_indptr))
    return np.bincount(rows, weights=dt.trans_probs * after[dt.trans_indices], minlength=N_KEEP)


def best_proper_keep(K: np.ndarray) -> np.ndarray:
    """For each outcome (252,), the best value in ``K`` (462,) of a keep inside it other
    than all five dice (keeping all five is stopping)."""
    dt = dice_tables(5)
    k = np.where(dt.outcome_keeps >= N_SMALL, -np.inf, K[dt.outcome_keeps])
    return np.maximum.reduceat(k, dt.outcome_keeps_indptr[:-1])


def three_throw_turn(F0: np.ndarray, F1: np.ndarray) -> dict[str, np.ndarray]:
    """Values of a turn of three throws through the dense keep values (the numpy
    reference of the kernel's turn): ``F0``/``F1`` (252,) are the best stop after a later
    throw / right after the first one. Returns ``K3``/``K2`` (462,), each keep's value
    before the third / second throw, and ``V2``/``V1`` (252,), the value after the second
    / first throw."""
    K3 = keep_values(F0)
    V2 = np.maximum(F0, best_proper_keep(K3))
    K2 = keep_values(V2)
    V1 = np.maximum(F1, best_proper_keep(K2))
    return {"K3": K3, "V2": V2, "K2": K2, "V1": V1}


# ----------------------------------------------------------------------------------------
# The upper-section tracker
# ----------------------------------------------------------------------------------------
class Tracker(Protocol):
    """What :func:`tracker_classes` needs of an engine (a scorecard game, or the Polish
    stage card of :mod:`kocka.solver.solvers.polish.values`)."""

    NAME: str
    upper_boxes: Sequence[int]
    tracker_size: int
    initial_tracker: int

    def tracker_after(self, tracker: int, box: int, dice: Sequence[int]) -> int: ...
    def final_bonus(self, tracker: int) -> int: ...
    def score_table(self) -> np.ndarray: ...


def entry_groups(card: Tracker, box: int) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Outcomes of ``box`` grouped by the entry they write: (group of each outcome, one
    representative dice per group). ``tracker_after`` depends on the dice only through the
    entry (the tracker sums face entries); the solvers' checks and the tests compare with
    direct calls."""
    entries = card.score_table()[box, :, 0]
    _, first, inv = np.unique(entries, return_index=True, return_inverse=True)
    outcomes = dice_tables(5).outcomes
    return inv.astype(np.int64), [tuple(int(v) for v in outcomes[i]) for i in first]


@lru_cache(maxsize=16)
def tracker_after_table(card: Tracker) -> np.ndarray:
    """``after[u, t, o]``: tracker after writing outcome ``o`` into face box ``u``, shape
    (face boxes, tracker_size, 252)."""
    T = card.tracker_size
    after = np.empty((len(card.upper_boxes), T, N_OUT), dtype=np.int64)
    for u, box in enumerate(card.upper_boxes):
        inv, reps = entry_groups(card, box)
        per_group = np.array([[card.tracker_after(t, box, d) for d in reps] for t in range(T)], dtype=np.int64)
        after[u] = per_group[:, inv]
    return after


def _entry_columns(card: Tracker) -> tuple[np.ndarray, np.ndarray]:
    """Per face box, the entry group of every outcome (``group``, (max(nu, 1), 252) int8)
    and one outcome of each group (``reps``, (max(nu, 1), G), the last columns repeating
    the first where a box has fewer groups than G)."""
    nu = len(card.upper_boxes)
    groups = [np.unique(card.score_table()[box, :, 0], return_index=True, return_inverse=True)
              for box in card.upper_boxes]
    G = max([len(first) for _, first, _ in groups], default=1)
    if G > MAX_ENTRY_GROUPS:
        raise TableError(f"{card.NAME}: a face box has {G} different entries, the kernels take at most {MAX_ENTRY_GROUPS}")
    group = np.zeros((max(nu, 1), N_OUT), dtype=np.int8)
    reps = np.zeros((max(nu, 1), G), dtype=np.int64)
    for u, (_, first, inv) in enumerate(groups):
        group[u] = inv
        reps[u, :len(first)] = first
        reps[u, len(first):] = first[0]
    return group, reps


def tracker_classes(card: Tracker) -> tuple[np.ndarray, np.ndarray, list, np.ndarray]:
    """Reachable trackers per face-box set ``U`` and their classes.

    Two trackers of ``U`` are in one class when, for every open face box and outcome, the
    trackers they lead to are in one class of ``U + box`` with the same offset difference
    (at a full ``U`` every tracker is in one class with offset ``final_bonus``). Their
    values then differ by that constant under every policy, so one class is solved once.
    The tracker moves by a face box's entry, so each box is looked at in one outcome of
    each of its entry groups (:func:`_entry_columns`), which is the same comparison.

    Returns ``tclass``, ``toffset`` (2^nu, T), per ``U`` the transition rows
    ``(next class, normalized offset)`` of each class and open face box, one column per
    entry group (:func:`tracker_rows` packs them), and the number of reachable trackers
    per ``U``.
    """
    nu = len(card.upper_boxes)
    T = card.tracker_size
    after = tracker_after_table(card)
    group, reps = _entry_columns(card)
    G = reps.shape[1]
    n_u = 1 << nu
    full = n_u - 1
    reach = np.zeros((n_u, T), dtype=bool)
    reach[0, card.initial_tracker] = True
    for U in range(1, n_u):
        for u in range(nu):
            if U >> u & 1:
                prev = np.flatnonzero(reach[U & ~(1 << u)])
                reach[U, after[u, prev]] = True  # a repeated index sets the same True
    tclass = np.full((n_u, T), -1, dtype=np.int32)
    toffset = np.zeros((n_u, T), dtype=np.int64)
    rows: list = [None] * n_u
    for U in range(full, -1, -1):
        ts = np.flatnonzero(reach[U])
        if U == full:
            tclass[U, ts] = 0
            toffset[U, ts] = [card.final_bonus(int(t)) for t in ts]
            rows[U] = (np.zeros((0, G), np.int32), np.zeros((0, G), np.float64))
            continue
        open_u = [u for u in range(nu) if not U >> u & 1]
        nxt = [after[u][ts][:, reps[u]] for u in open_u]
        C = np.concatenate([tclass[U | 1 << u][a] for u, a in zip(open_u, nxt)], axis=1)
        O = np.concatenate([toffset[U | 1 << u][a] for u, a in zip(open_u, nxt)], axis=1)
        if (C < 0).any():
            raise TableError(f"{card.NAME}: tracker transition leaves the reachable set at face set {U:#x}")
        off = O[:, group[open_u[0], 0]].copy()  # offsets relative to outcome 0 in the first open box
        normalized = O - off[:, None]
        keys = np.ascontiguousarray(np.concatenate([C, normalized], axis=1))
        first, inv = group_rows(keys)
        tclass[U, ts] = inv
        toffset[U, ts] = off
        k = len(open_u)
        rows[U] = (C[first].reshape(len(first) * k, G).astype(np.int32),
                   normalized[first].reshape(len(first) * k, G).astype(np.float64))
    return tclass, toffset, rows, reach.sum(axis=1)


def group_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


MAX_ENTRY_GROUPS = 8
"""Entry groups of one face box at most (the kernels' ``MAX_G``)."""


@dataclass(frozen=True)
class TrackerRows:
    """The tracker transitions packed for the kernels.

    A face-box fill's successor depends on the outcome only through its *entry group*
    (:func:`entry_groups`), so a row holds one column per group: row
    ``start[U] + c * (open face boxes of U) + uprank[U * nu + u]`` is tracker class ``c``
    of face set ``U`` writing face box ``u``, column ``group[u, o]`` the outcome's group.

    Attributes
    ----------
    start : ndarray, shape (2^nu,), int64
    uprank : ndarray, shape (max(2^nu * nu, 1),), int32
        The rank of face box u among the boxes still open in U.
    next : ndarray, shape (rows, G), int32
        Tracker class after the fill.
    off : ndarray, shape (rows, G), float64
        Value offset of that class member (normalized, see :func:`tracker_classes`).
    group : ndarray, shape (max(nu, 1), 252), int8
        Entry group of each outcome in each face box.
    """

    start: np.ndarray
    uprank: np.ndarray
    next: np.ndarray
    off: np.ndarray
    group: np.ndarray
    nu: int

    def expanded(self) -> tuple[np.ndarray, np.ndarray]:
        """``(next, off)`` with one column per outcome (rows, 252): the rows as
        :func:`tracker_classes` gives them."""
        if self.nu == 0:
            return np.zeros((1, N_OUT), np.int32), np.zeros((1, N_OUT))
        box = np.zeros(len(self.next), dtype=np.int64)
        for U in range(len(self.start)):
            open_u = [u for u in range(self.nu) if not U >> u & 1]
            end = int(self.start[U + 1]) if U + 1 < len(self.start) else len(self.next)
            for j, r in enumerate(range(int(self.start[U]), end)):
                box[r] = open_u[j % len(open_u)]
        cols = self.group[box].astype(np.int64)
        return (np.take_along_axis(self.next, cols, axis=1).astype(np.int32),
                np.take_along_axis(self.off, cols, axis=1))


def tracker_rows(card: Tracker, rows: list) -> TrackerRows:
    """Pack the tracker-transition rows of :func:`tracker_classes` for the kernel:
    ``rows[U]`` is ``(next class, value offset)``, each (rows of face set U, G), one row
    per (tracker class of U, rank of an open face box), one column per entry group."""
    nu = len(card.upper_boxes)
    group, reps = _entry_columns(card)
    G = reps.shape[1]
    start = np.zeros(1 << nu, dtype=np.int64)
    count = 0
    for U in range(1 << nu):
        start[U] = count
        count += len(rows[U][0])
    uprank = np.zeros(max((1 << nu) * nu, 1), dtype=np.int32)
    for U in range(1 << nu):
        r = 0
        for u in range(nu):
            if not U >> u & 1:
                uprank[U * nu + u] = r
                r += 1
    next_ = np.ascontiguousarray(np.concatenate([r[0] for r in rows]).astype(np.int32) if count else np.zeros((1, G), np.int32))
    off_ = np.ascontiguousarray(np.concatenate([r[1] for r in rows]).astype(np.float64) if count else np.zeros((1, G)))
    return TrackerRows(start, uprank, next_, off_, group, nu)


# ----------------------------------------------------------------------------------------
# Masks: reachable cards, layers, state ids
# ----------------------------------------------------------------------------------------
def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values in ascending order: ``np.unique(values)``'s array, without the
    import of ``numpy.ma`` that its hash path makes (1.2 MB of a build's peak, issue 28)."""
    ordered = np.sort(values, axis=None)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]


def popcounts(n: int) -> np.ndarray:
    """Number of set bits of 0 .. 2^n - 1."""
    pc = np.zeros(1 << n, dtype=np.int64)
    for b in range(n):
        pc[1 << b:1 << (b + 1)] = pc[:1 << b] + 1
    return pc


def reachable_groups(n_boxes: int, groups_of: Callable[[int], Sequence[int]]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The masks a card of ``n_boxes`` reaches from the empty card, and their box groups.

    ``groups_of(mask)`` is the engine's list of box groups (bit masks) one turn on a card
    with ``mask`` filled may end in; a turn fills one box of one group. Returns ``reach``
    (2^n,) bool, and the groups packed as ``grp_ptr`` (2^n + 1,) / ``grp_bits``: mask ``m``'s
    groups are ``grp_bits[grp_ptr[m]:grp_ptr[m + 1]]`` (none for unreachable masks).
    """
    n_masks = 1 << n_boxes
    reach = np.zeros(n_masks, dtype=bool)
    reach[0] = True
    count = np.zeros(n_masks, dtype=np.int32)
    groups: dict[int, list[int]] = {}
    for m in range(n_masks):  # every predecessor of m is numerically smaller
        if not reach[m]:
            continue
        gs = [int(g) for g in groups_of(m)]
        groups[m] = gs
        count[m] = len(gs)
        bits = 0
        for g in gs:
            bits |= g
        for b in range(n_boxes):
            if bits >> b & 1:
                reach[m | 1 << b] = True
    grp_ptr = np.zeros(n_masks + 1, dtype=np.int32)
    grp_ptr[1:] = np.cumsum(count)
    grp_bits = np.zeros(max(int(grp_ptr[-1]), 1), dtype=np.int32)
    for m, gs in groups.items():
        grp_bits[grp_ptr[m]:grp_ptr[m] + len(gs)] = gs
    return reach, grp_ptr, grp_bits


def layer_order(reach: np.ndarray, n_boxes: int) -> tuple[np.ndarray, np.ndarray]:
    """The reachable masks by layer (number of filled boxes), then by value: ``masks``
    (int32) and ``layer_ptr`` (n_boxes + 2,), ``masks[layer_ptr[k]:layer_ptr[k + 1]]``
    having k boxes filled."""
    popcount = popcounts(n_boxes)
    order = np.lexsort((np.arange(1 << n_boxes, dtype=np.int64), popcount))
    masks = order[reach[order]].astype(np.int32)
    layer_ptr = np.searchsorted(popcount[masks], np.arange(n_boxes + 2)).astype(np.int64)
    return masks, layer_ptr


def state_bases(masks: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """First state id of each mask when the states of ``masks`` (in layer order) are laid
    out one after another, ``sizes[m]`` of them for mask ``m``; -1 for the others."""
    base = np.full(len(sizes), -1, dtype=np.int64)
    base[masks] = np.concatenate([[0], np.cumsum(sizes[masks])[:-1]])
    return base


# ----------------------------------------------------------------------------------------
# The backward solve, layer by layer
# ----------------------------------------------------------------------------------------
def _solve_chunk(kernel, masks: np.ndarray, first: int, count: int, W: np.ndarray, args: tuple) -> np.ndarray:
    # a plain copy of the current rows: a kernel may leave some columns as they are
    out = np.array(W[first:first + count])
    kernel(masks, first, out, W, *args)
    return out


def layer_chunks(model: Any, layer: int, n_chunks: int) -> list[tuple[np.ndarray, int, int]]:
    """Split one layer into about ``n_chunks`` runs of masks with similar state counts:
    ``(masks, first state, state count)``."""
    lo, hi = model.layer_ptr[layer], model.layer_ptr[layer + 1]
    masks = model.masks[lo:hi]
    if len(masks) == 0:
        return []
    starts = model.base[masks]
    end = starts[-1] + model.ncls[masks[-1]] * model.nflag[masks[-1]]
    total = end - starts[0]
    cuts = np.searchsorted(starts, starts[0] + total * np.arange(1, n_chunks) / n_chunks)
    bounds = sorted_unique(np.concatenate([[0], cuts, [len(masks)]]))
    result = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        s0 = int(starts[a])
        s1 = int(starts[b]) if b < len(masks) else int(end)
        result.append((np.ascontiguousarray(masks[a:b]), s0, s1 - s0))
    return result


def solve_layers(model: Any, W: np.ndarray, kernel, layer_args, progress: Progress | None = None, parallel=None,
                 n_chunks: int = 1, min_parallel_layer: int = 0) -> None:
    """Fill ``W`` layer by layer, from the last open box back to the empty card, with
    ``kernel(masks, first_state, out, W, *layer_args(layer))`` (a :mod:`_scorecard` solver
    writing ``out[state - first_state]`` for the states of ``masks``, reading later layers
    from ``W``). With a joblib ``parallel``, a layer of at least ``min_parallel_layer``
    states is cut into about ``n_chunks`` chunks (:func:`layer_chunks`) solved by the pool;
    smaller layers are solved in-process. ``model`` needs ``n_boxes``, ``layer_ptr``,
    ``masks``, ``base``, ``ncls`` and ``nflag`` (a scorecard model or a Polish stage model)."""
    for layer in range(model.n_boxes - 1, -1, -1):
        args = layer_args(layer)
        chunks = layer_chunks(model, layer, 1)
        if parallel is None or not chunks or chunks[0][2] < min_parallel_layer:
            for masks, s0, cnt in chunks:
                kernel(masks, s0, W[s0:s0 + cnt], W, *args)
                if progress is not None:
                    progress.advance(cnt)
            continue
        chunks = layer_chunks(model, layer, n_chunks)
        results = run_calls(parallel, _solve_chunk, [(kernel, masks, s0, cnt, W, args) for masks, s0, cnt in chunks])
        for (masks, s0, cnt), out in zip(chunks, results):
            W[s0:s0 + cnt] = out
            if progress is not None:
                progress.advance(cnt)
