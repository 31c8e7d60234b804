"""The distribution of the final score of a scorecard card under the optimal
expected-score policy (:mod:`kocka.solver.solvers.scorecard.values`), from the empty card
(:func:`distribution_from_start`, stored in the table) or from any card or position of a
turn (:func:`score_distribution`); ties between equally good actions go to the first box /
filling / the largest keep, as in :func:`.ranking.rank`.

Two ways, one answer (to the float32 rounding of the target table, about 1e-6):

* **From the target table** (``kocka-solve build GAME --kind target``), which stores the
  survival function of this play's final total from every turn-start card (its ``ev``
  vectors, :meth:`.target.TargetView.final_distribution`): at a turn start a look-up; in
  a turn under way the rest of this turn alone (:func:`_scorecard.root_turn_entries`, the
  first turn of the forward pass: the same policy, the same ties) mixes the stored vectors
  of the cards it leads to. Milliseconds from any position (:func:`fast_distribution`).
* **The forward pass** (:func:`_scorecard.forward_distribution`), one state at a time to
  the full card: seconds early in a full game. Under a request's
  :class:`~kocka.solver.base.work_limit.WorkLimit` it is priced first
  (:func:`forward_seconds`; refused with
  :class:`~kocka.solver.base.work_limit.TooExpensiveError` when it cannot finish in the
  time left) and polls the limit's cancel flag while it runs, so work given up stops and
  frees its memory (:class:`~kocka.solver.base.work_limit.WorkCancelledError`).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from dataclasses import dataclass

import numpy as np

from typing import TYPE_CHECKING, Any

from kocka.solver.base.work_limit import TooExpensiveError, WorkCancelledError, current_limit
from kocka.solver.kernels import _scorecard
from kocka.solver.models.card_model import N_OUT
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.progress import Progress
from kocka.solver.rules.five_dice import bits_of
from kocka.solver.rules.scorecard import Card, ScorecardGame, ScorecardState
from kocka.solver.base.table_file import Table
from kocka.solver.solvers.scorecard.card_values import _card_key
from kocka.solver.solvers.scorecard.model import ScorecardModel
from kocka.solver.solvers.scorecard.ranking import _ranker

if TYPE_CHECKING:  # target.py imports this module (through values.py): the view is imported where it is used
    from kocka.solver.solvers.scorecard.target import TargetView

FORWARD_PASSES_AT_ONCE = max(1, (os.cpu_count() or 2) // 2)
"""Forward passes running at once in a process (half the cores): each keeps a core busy
for seconds without the interpreter lock, and more of them at once would only slow each
other and starve the threads that answer the cheap requests (a seat's ``hello``)."""
_FORWARD_SLOTS = threading.BoundedSemaphore(FORWARD_PASSES_AT_ONCE)

SPILL_STATES = 50_000
"""A forward pass that may visit this many states or more (:func:`forward_states`: an
early card of a full game, the build's pass from the empty card) keeps its turn entries
and its finished layers of score histograms in four temporary files (deleted on close),
so it holds one group of :data:`SPILL_GROUP_BYTES` of the next layer, per-state bounds and
a few buffers (Yahtzee: about 5 MB, against 63 MB with two layers in memory); a smaller
one keeps its layers in memory. The answer is the same bits either way."""

SPILL_GROUP_BYTES = 256 << 10
"""The histograms of a spilling pass filled at once (see :func:`_scorecard.forward_distribution`)."""

FORWARD_STATES_PER_SECOND = 150_000.0
"""States the forward pass moves per second (the full kockapoker card: 958,464 states in
6.4 s on the 2-core reference machine): the price of :func:`forward_seconds`."""


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
             root: tuple | None = None, cancel: np.ndarray | None = None) -> tuple[int, np.ndarray]:
    """The final score distribution ``(lowest score, probabilities)`` under the optimal
    policy from ``state`` (of ``mask``, ``score`` so far with its tracker offset); ``root``
    ``(stage, dice distribution, group)``: its turn under way (see
    :func:`_scorecard.forward_distribution`); ``cancel``: its one-element int32 flag (set:
    :class:`WorkCancelledError`)."""
    stage, mass, group = root if root is not None else (0, np.zeros(N_OUT), -1)
    try:
        with contextlib.ExitStack() as files:
            spill = None
            if forward_states(model, mask) >= SPILL_STATES:
                spill = tuple(files.enter_context(tempfile.TemporaryFile()).fileno() for _ in range(4))
            first, probs = _scorecard.forward_distribution(
                model.masks, model.layer_ptr, int(state), int(mask), int(score), int(stage),
                np.ascontiguousarray(mass, dtype=np.float64), int(group), W, *model.kernel_args(), cancel=cancel,
                spill=spill, group_doubles=SPILL_GROUP_BYTES // 8)
    except _scorecard.ForwardCancelled as exc:
        raise WorkCancelledError(f"{model.game.NAME}: {exc}") from None
    return int(first), probs


def forward_states(model: ScorecardModel, mask: int) -> int:
    """The states the forward pass from a card with filled ``mask`` may visit: those of
    every reachable mask that contains it (the model's layers)."""
    masks = model.masks.astype(np.int64)
    sup = masks[(masks & mask) == mask]
    return int((model.ncls[sup].astype(np.int64) * model.nflag[sup].astype(np.int64)).sum())


def forward_seconds(model: ScorecardModel, mask: int) -> float:
    """The price of the forward pass from a card with filled ``mask``, in seconds of one
    core (:data:`FORWARD_STATES_PER_SECOND`)."""
    return forward_states(model, mask) / FORWARD_STATES_PER_SECOND


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



def score_distribution(game: ScorecardGame, table: Table | None, state: ScorecardState | Card | None = None,
                       target: "Table | TargetView | None" = None) -> ScoreDistribution:
    """Distribution of the final score of the current player's card under the optimal
    policy, from ``state`` (a card at the start of a turn, or any position of a turn);
    ``None``: the empty card, read from the table. Its mean is the table's value.

    ``target``: the game's target table (or its view): the answer comes from its stored
    vectors (:func:`fast_distribution`, milliseconds; ``table`` is then not read). Without
    it the forward pass runs, under the request's work limit if there is one (priced by
    :func:`forward_seconds` before it starts, stopped when given up)."""
    if target is not None:
        return fast_distribution(game, target, state)
    if table is None:
        raise ValueError("score_distribution needs the expected-score table or the target table")
    if state is None:
        return ScoreDistribution(int(table["dist_first"][0]), table["dist_probs"])
    state = _as_state(game, state)
    card = state.cards[state.player]
    if card.is_full:
        return ScoreDistribution(game.card_total(card), np.ones(1))
    model = _ranker(game, table).model
    key, start, score, root = _root(game, model, state)
    limit = current_limit()
    if limit is None:
        with _FORWARD_SLOTS:
            first, probs = _forward(model, table["values"], start, key.mask, score, root=root)
        return ScoreDistribution(first, probs)
    price = forward_seconds(model, key.mask)
    what = f"{game.NAME}: the score distribution of this card by the forward pass"
    cheaper = "the target table answers it at once"
    limit.admit(price, what, cheaper)
    left = limit.remaining()
    # wait for a free slot only as long as the pass could still finish after it
    if not _FORWARD_SLOTS.acquire(timeout=-1 if left is None else max(0.0, left - price)):
        limit.check()  # given up meanwhile: WorkCancelledError
        raise TooExpensiveError(f"{what} would take about {price:.1f} s and has not started: the other passes running "
                                f"leave too little of this request's budget; {cheaper}")
    try:
        first, probs = _forward(model, table["values"], start, key.mask, score, root=root, cancel=limit.flag)
    finally:
        _FORWARD_SLOTS.release()
    return ScoreDistribution(first, probs)


def _as_state(game: ScorecardGame, state: ScorecardState | Card) -> ScorecardState:
    if isinstance(state, Card):
        state = ScorecardState(cards=(state,) * game.num_players)
    game.check_state(state)
    return state


def _root(game: ScorecardGame, model: ScorecardModel, state: ScorecardState) -> tuple[Any, int, int, tuple | None]:
    """The current player's card in ``state`` as the kernels take it: its key, turn-start
    state, score so far (tracker offset included) and the turn under way ``(stage, dice
    distribution, group)`` (None: the turn has not started)."""
    card = state.cards[state.player]
    key = _card_key(game, card)
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
    return key, start, score, root


def fast_distribution(game: ScorecardGame, target: "Table | TargetView", state: ScorecardState | Card | None = None
                      ) -> ScoreDistribution:
    """:func:`score_distribution` from the target table: a look-up of the stored vector at
    the start of a turn; in a turn under way, the rest of the turn under the same policy
    (:func:`_scorecard.root_turn_entries`) over the stored vectors of the cards it leads
    to. Equal to the forward pass within the table's float32 rounding (about 1e-6)."""
    from kocka.solver.solvers.scorecard.target import TargetView, view_of  # (a cycle at import time: see above)

    view = target if isinstance(target, TargetView) else view_of(game, target)
    if state is None:
        state = Card(entries=(None,) * game.num_boxes)
    state = _as_state(game, state)
    card = state.cards[state.player]
    if card.is_full:
        return ScoreDistribution(game.card_total(card), np.ones(1))
    model = view.model
    key, start, score, root = _root(game, model, state)
    if root is None:
        first, probs = view.final_distribution(card)
        return ScoreDistribution(int(first), probs)
    stage, mass, group = root
    U = key.mask & ((1 << model.n_upper) - 1)
    succ, points, p = _scorecard.root_turn_entries(
        key.mask, int(model.tclass[U, key.tracker]), key.flag, int(stage), np.ascontiguousarray(mass, dtype=np.float64),
        int(group), np.ascontiguousarray(view.W, dtype=np.float64), *model.kernel_args())
    return _mixture(view, succ, score + points.astype(np.int64), p)


def _mixture(view: "TargetView", succ: np.ndarray, totals: np.ndarray, weights: np.ndarray) -> ScoreDistribution:
    """``sum_j weights[j] * (the final total of state succ[j] with totals[j] points so
    far)``, from the successors' stored distributions (one gather, one bincount)."""
    lo, sizes, probs = view.ev.distributions(succ)
    at = np.repeat(totals + lo, sizes) + (np.arange(len(probs)) - np.repeat(np.cumsum(sizes) - sizes, sizes))
    first = int(at.min())
    return ScoreDistribution(first, np.bincount(at - first, weights=probs * np.repeat(weights, sizes)))
