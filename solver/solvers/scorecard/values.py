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

The solver is split by idea, and this module re-exports what its users import:

* :mod:`.model` -- the state space and the kernel's tables (:class:`ScorecardModel`,
  :func:`build_model`, :func:`model_for`);
* :mod:`.card_values` -- the value of a card at a turn start (:func:`value_of_card`);
* :mod:`.distribution` -- the final score distribution: forward propagation under the
  optimal policy from the empty card (stored in the table) or from any card
  (:func:`score_distribution`);
* :mod:`.ranking` -- the table stores the kernel's tables beside the values (the layout of
  :meth:`ScorecardEV.layout`), so a loaded table ranks a position at once (:func:`rank`,
  a :class:`Ranking`), and many positions at once (:func:`rank_positions`);
* :mod:`.reference` -- :func:`rank_reference`, the slow, independent ranking from the
  engine's fill scores and the dense keep transitions, which the table's spot checks and
  the tests compare with;
* here -- the backward solve (:func:`solve_values`), the table's arrays
  (:func:`build_arrays`) and the table solver the game specs name (:data:`SCORECARD_EV`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from kocka.solver.kernels import _scorecard
from kocka.solver.models.card_model import N_OUT, solve_layers, tracker_after_table
from kocka.solver.base.parallel import parallel_pool
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import InvalidStateError, TableError
from kocka.solver.base.progress import Progress
from kocka.solver.rules.base import Game
from kocka.solver.rules.scorecard import MAX_THROWS, Card, Declare, Fill, ScorecardGame, ScorecardState
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.models.table_solver import TableSolver
from kocka.solver.solvers.scorecard.card_values import value_of_card
from kocka.solver.solvers.scorecard.distribution import ScoreDistribution, distribution_from_start, score_distribution
from kocka.solver.solvers.scorecard.model import KERNEL_ARRAYS, ScorecardModel, _check_table, build_model, model_for
from kocka.solver.solvers.scorecard.ranking import (
    POSITION_DTYPE, Ranking, action_space, export_positions, positions_from_states, rank, rank_positions,
    turn_shares,
)
from kocka.solver.solvers.scorecard.reference import expected_turn_value, rank_reference, turn_start_average

VALUE_NAME = "expected final score"


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
# Tables
# ----------------------------------------------------------------------------------------
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
        stored = table["fill_rewards"]
        plain = game.score_table().transpose(0, 2, 1)
        special = {int(o) for o in table["special_outcomes"] if o >= 0}
        ordinary = [o for o in range(stored.shape[2]) if o not in special]
        # the values are checked through the stored points of the fills: those must be the
        # rules' own, or values and points scaled together would pass (HU-5, HU-6, SK-4, ...)
        if stored.shape[0] != plain.shape[0] or stored.shape[1] > plain.shape[1] or \
                not np.array_equal(stored[:, :, ordinary], plain[:, : stored.shape[1], ordinary]):
            return ["the points the table stores for filling a box differ from the rules' scoring"]
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


__all__ = [  # with what the modules above hold, for the importers of this one
    "KERNEL_ARRAYS", "MIN_PARALLEL_STATES", "POSITION_DTYPE", "SCORECARD_EV", "VALUE_NAME", "Ranking",
    "ScoreDistribution", "ScorecardEV", "ScorecardModel", "action_space", "build_arrays", "build_model",
    "distribution_from_start", "expected_turn_value", "export_positions", "model_for", "positions_from_states",
    "rank", "rank_positions", "rank_reference", "score_distribution", "solve_values", "turn_shares",
    "turn_start_average", "value_of_card",
]  # fmt: skip
