"""The distribution of the final score of a scorecard card under the optimal
expected-score policy (:mod:`kocka.solver.solvers.scorecard.values`): forward propagation
from the empty card (:func:`distribution_from_start`, stored in the table) or from any
card or position of a turn (:func:`score_distribution`), one state at a time in the kernel
(:func:`_scorecard.forward_distribution`); ties between equally good actions go to the
first box / filling / the largest keep, as in :func:`.ranking.rank`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kocka.solver.kernels import _scorecard
from kocka.solver.models.card_model import N_OUT
from kocka.solver.base.decision import BuildOptions
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.progress import Progress
from kocka.solver.rules.five_dice import bits_of
from kocka.solver.rules.scorecard import Card, ScorecardGame, ScorecardState
from kocka.solver.base.table_file import Table
from kocka.solver.solvers.scorecard.card_values import _card_key
from kocka.solver.solvers.scorecard.model import ScorecardModel
from kocka.solver.solvers.scorecard.ranking import _ranker


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
