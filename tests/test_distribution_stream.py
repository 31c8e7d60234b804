"""The forward pass of the score distribution written to spill files (each layer filled a
group of histograms at a time, :func:`_scorecard.forward_distribution` with ``spill``)
against the same pass kept in memory and against a plain Python forward pass: the same
bits, however the layers are cut.

Rule ids: HU-1..HU-9 (kockapóker boxes), SK-3 (Slovak declaration), Yahtzee bonus and joker
(RULES.md, Yahtzee), Yatzy upper bonus.
"""
from __future__ import annotations

import contextlib
import tempfile

import numpy as np
import pytest

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.kernels import _scorecard
from kocka.solver.rules import get_game
from kocka.solver.rules.scorecard import Card, ScorecardState
from kocka.solver.solvers.scorecard import distribution
from kocka.solver.solvers.scorecard.distribution import distribution_from_start, score_distribution
from kocka.solver.solvers.scorecard.model import build_model
from kocka.solver.solvers.scorecard.values import solve_values
from kocka.solver.store.table_store import build_table, solver_for

SMALL_VARIANTS = [
    ("kockapoker", {"boxes": ("twos", "sixes", "chance", "two_pairs", "full_house")}),
    ("slovak", {"boxes": ("ones", "fours", "full_house"), "part1_choice": "declare_after_first_throw"}),
    ("yahtzee", {"boxes": ("twos", "sixes", "full_house", "yahtzee", "chance")}),
    ("yahtzee", {"boxes": ("twos", "small_straight", "yahtzee", "chance"), "joker": "forced"}),
    ("yatzy", {"boxes": ("ones", "threes", "two_pairs", "yatzy")}),
]
IDS = ["hu-5", "sk-declare", "yahtzee-5", "yahtzee-forced-joker", "yatzy-4"]


def _solved(name, options):
    model = build_model(get_game(name, options))
    return model, solve_values(model)


def _start(model):
    t0 = model.game.initial_tracker
    return int(model.base[0] + model.tclass[0, t0]), int(model.toffset[0, t0])


def _python_forward(model, W) -> tuple[int, np.ndarray]:
    """The final score distribution by a plain forward pass: a dict of score -> probability
    per state, each state's turn entries (``root_turn_entries``: successor, points,
    probability) moving its mass into the next layer, sources in the kernel's order (masks
    decreasing, then class, then flag) so every sum is formed in the same order; the full
    card's states added up last in state order."""
    start, score = _start(model)
    args = model.kernel_args()
    held = {start: {score: 1.0}}
    masks, ptr = model.masks, model.layer_ptr
    for layer in range(model.n_boxes):
        nxt: dict[int, dict[int, float]] = {}
        for m in reversed(masks[ptr[layer]:ptr[layer + 1]].tolist()):
            for c in range(int(model.ncls[m])):
                for f in range(int(model.nflag[m])):
                    s = int(model.base[m]) + c * int(model.nflag[m]) + f
                    if s not in held:
                        continue
                    succ, points, mass = _scorecard.root_turn_entries(m, c, f, 0, np.zeros(252), -1, W, *args)
                    for t, r, p in zip(succ.tolist(), points.tolist(), mass.tolist()):
                        target = nxt.setdefault(t, {})
                        for x, q in held[s].items():
                            target[x + r] = target.get(x + r, 0.0) + p * q
        held = nxt
    lo = min(min(d) for d in held.values())
    hi = max(max(d) for d in held.values())
    total = [0.0] * (hi - lo + 1)
    for t in sorted(held):
        for x, q in held[t].items():
            total[x - lo] += q
    return lo, np.array(total)


def _kernel(model, W, group_doubles: int | None) -> tuple[int, np.ndarray]:
    """The kernel's pass from the empty card: in memory (None), or spilled to four temporary
    files in groups of ``group_doubles``."""
    start, score = _start(model)
    with contextlib.ExitStack() as files:
        spill = None
        if group_doubles is not None:
            spill = tuple(files.enter_context(tempfile.TemporaryFile()).fileno() for _ in range(4))
        return _scorecard.forward_distribution(
            model.masks, model.layer_ptr, start, 0, score, 0, np.zeros(252), -1, W, *model.kernel_args(),
            spill=spill, group_doubles=group_doubles or 1)


@pytest.mark.parametrize("name, options", SMALL_VARIANTS, ids=IDS)
def test_spilled_pass_equals_the_pass_in_memory_and_a_python_pass(name, options):
    # expected: the plain Python forward pass above (its own histograms and sums, the same
    # order of additions), bit for bit; the kernel in memory and spilled with groups of one
    # histogram (1 double: every histogram alone), of a few and of the whole layer
    model, W = _solved(name, options)
    want_first, want = _python_forward(model, W)
    assert want.sum() == pytest.approx(1.0, abs=1e-12)
    for groups in (None, 1, 40, 10 ** 9):
        first, probs = _kernel(model, W, groups)
        assert first == want_first, groups
        assert np.array_equal(probs, want), groups


def test_distribution_from_start_spills_large_passes(monkeypatch):
    # expected: the same distribution whether the pass spills (every pass spills with a
    # threshold of 0 states; groups of 64 bytes) or not (no pass spills), bit for bit
    model, W = _solved(*SMALL_VARIANTS[0])
    monkeypatch.setattr(distribution, "SPILL_STATES", 10 ** 12)
    kept = distribution_from_start(model, W)
    monkeypatch.setattr(distribution, "SPILL_STATES", 0)
    monkeypatch.setattr(distribution, "SPILL_GROUP_BYTES", 64)
    spilled = distribution_from_start(model, W)
    assert spilled.first == kept.first
    assert np.array_equal(spilled.probs, kept.probs)


def test_spill_needs_four_files():
    # expected: a spill argument that is not four descriptors is refused before the pass
    model, W = _solved(*SMALL_VARIANTS[2])
    start, score = _start(model)
    with pytest.raises(ValueError):
        _scorecard.forward_distribution(model.masks, model.layer_ptr, start, 0, score, 0, np.zeros(252), -1, W,
                                        *model.kernel_args(), spill=(3, 4))


TURNS_UNDER_WAY = [
    # kockapóker's five-box card (HU-1..HU-9): dice shown after throw 1 and 2, dice kept before throw 3
    ((None,) * 5, dict(dice=(2, 2, 6, 6, 6), throw=1)),
    ((2, None, 20, None, None), dict(dice=(1, 2, 3, 6, 6), throw=2)),
    ((None, 6, None, None, None), dict(kept=(6,), throw=2)),
]


@pytest.mark.parametrize("entries, turn", TURNS_UNDER_WAY, ids=["throw-1", "throw-2", "kept-before-3"])
def test_spilled_pass_from_a_turn_under_way(monkeypatch, entries, turn):
    # expected: score_distribution of a position in a turn (its first layer starts from the
    # dice on the table) the same bits spilled (every pass, groups of 64 bytes) as in memory
    name, options = SMALL_VARIANTS[0]
    game = get_game(name, options)
    table = build_table(game, solver_for(game.NAME), BuildOptions(progress=False), save=False)
    state = ScorecardState(cards=(Card(entries=entries),), **turn)
    monkeypatch.setattr(distribution, "SPILL_STATES", 10 ** 12)
    kept = score_distribution(game, table, state)
    monkeypatch.setattr(distribution, "SPILL_STATES", 0)
    monkeypatch.setattr(distribution, "SPILL_GROUP_BYTES", 64)
    spilled = score_distribution(game, table, state)
    assert kept.probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert spilled.first == kept.first
    assert np.array_equal(spilled.probs, kept.probs)
