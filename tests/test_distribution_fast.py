"""The final-score distribution from the target table (a look-up at a turn start, the rest of
the turn over the stored vectors in a turn under way) against the forward pass, and the
bounds of the forward pass: a cancel flag that stops it, and a price the seat refuses with
``too_expensive`` when it cannot finish in its budget.

Rule ids: HU-1..HU-9 (kockapóker), SK-3 (Slovak declaration after the first throw).
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
from kocka.agents.frontends.seat.workers import Workers
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.work_limit import TooExpensiveError, WorkCancelledError, WorkLimit, current_limit, limited
from kocka.solver.kernels import _scorecard
from kocka.solver.rules import get_game
from kocka.solver.rules.scorecard import Card, Declare, Keep, ScorecardState
from kocka.solver.solvers.scorecard.distribution import (
    ScoreDistribution, fast_distribution, forward_seconds, forward_states, score_distribution,
)
from kocka.solver.solvers.scorecard.model import model_for
from kocka.solver.store.table_store import build_table, get_table, solver_for

FLOAT32_TOLERANCE = 2e-6
"""The target table stores float32 probabilities (about 1e-6 each, docs/SOLVER.md); the
forward pass computes in float64."""

KOCKAPOKER_SMALL = ("kockapoker", {"boxes": ("twos", "sixes", "chance", "two_pairs", "full_house")})
SLOVAK_DECLARE = ("slovak", {"boxes": ("ones", "fours", "chance"), "part1_choice": "declare_after_first_throw"})


def _tables(tmp_path_factory, name, rules):
    cache = tmp_path_factory.mktemp(f"{name}-tables")
    game = get_game(name, rules)
    build_table(game, solver_for(game.NAME), BuildOptions(progress=False), cache)
    build_table(game, solver_for(game.NAME, "target"), BuildOptions(progress=False), cache)
    return game, get_table(game, cache_dir=cache), get_table(game, "target", cache_dir=cache), cache


@pytest.fixture(scope="module")
def kockapoker_small(tmp_path_factory):
    """The expected-score and target tables of a five-box kockapóker card, on disk."""
    return _tables(tmp_path_factory, *KOCKAPOKER_SMALL)


@pytest.fixture(scope="module")
def slovak_declare(tmp_path_factory):
    """A three-box Slovak card whose turns commit to a declared box after the first throw (SK-3)."""
    return _tables(tmp_path_factory, *SLOVAK_DECLARE)


def _aligned(a: ScoreDistribution, b: ScoreDistribution) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = min(a.first, b.first), max(a.first + len(a.probs), b.first + len(b.probs))
    x, y = np.zeros(hi - lo), np.zeros(hi - lo)
    x[a.first - lo:a.first - lo + len(a.probs)] = a.probs
    y[b.first - lo:b.first - lo + len(b.probs)] = b.probs
    return x, y


def _assert_same(fast: ScoreDistribution, forward: ScoreDistribution) -> None:
    x, y = _aligned(fast, forward)
    assert x.sum() == pytest.approx(1, abs=1e-6)
    np.testing.assert_allclose(x, y, atol=FLOAT32_TOLERANCE)
    # P(final >= t), the page's chart, to the same tolerance
    np.testing.assert_allclose(np.cumsum(x[::-1]), np.cumsum(y[::-1]), atol=FLOAT32_TOLERANCE)
    assert fast.mean() == pytest.approx(forward.mean(), abs=1e-4)


KOCKAPOKER_POSITIONS = [
    # a card at the start of its turn (a look-up of the stored vector)
    ("empty card, turn start", (None,) * 5, dict()),
    ("two boxes written, turn start", (2, None, 20, None, None), dict()),
    # turns under way: dice on the table after throw 1 and 2, and dice kept before throw 2 / 3
    ("after the first throw", (None,) * 5, dict(dice=(2, 2, 6, 6, 6), throw=1)),
    ("after the second throw", (-2, None, None, None, None), dict(dice=(1, 2, 3, 6, 6), throw=2)),
    ("after the third throw", (2, None, 20, None, None), dict(dice=(2, 2, 5, 6, 6), throw=3)),
    ("two sixes kept before the second throw", (2, None, 20, None, None), dict(kept=(6, 6), throw=1)),
    ("nothing kept before the third throw", (None, 6, None, None, None), dict(kept=(), throw=2)),
]


@pytest.mark.parametrize("label, entries, turn", KOCKAPOKER_POSITIONS, ids=[p[0] for p in KOCKAPOKER_POSITIONS])
def test_the_target_tables_distribution_is_the_forward_pass(kockapoker_small, label, entries, turn):
    # expected: the forward pass of the expected-score policy (_scorecard.forward_distribution,
    # from the expected-score table alone), value by value
    game, ev_table, target_table, _ = kockapoker_small
    state = ScorecardState(cards=(Card(entries=entries),), **turn)
    _assert_same(score_distribution(game, ev_table, state, target=target_table), score_distribution(game, ev_table, state))


def test_a_declared_turn_is_the_forward_pass(slovak_declare):
    # expected: the forward pass from the same positions: a turn that must still choose its
    # declaration after the first throw, one committed to a declared box (SK-3), and the
    # dice kept within a declared turn
    game, ev_table, target_table, _ = slovak_declare
    card = Card(entries=(None,) * 3)
    start = ScorecardState(cards=(card,), dice=(1, 2, 4, 4, 6), throw=1)
    declared = game.apply(start, next(a for a in game.legal_actions(start) if isinstance(a, Declare) and a.box == "fours"))
    kept = game.apply(declared, next(a for a in game.legal_actions(declared) if isinstance(a, Keep) and a.dice == (4, 4)))
    assert declared.declared == "fours" and kept.kept == (4, 4)
    for state in (start, declared, kept):
        _assert_same(fast_distribution(game, target_table, state), score_distribution(game, ev_table, state))


# ----------------------------------------------------------------------------------------
# The bounds of the forward pass
# ----------------------------------------------------------------------------------------
def test_a_cancel_flag_set_before_the_pass_stops_it(kockapoker_small):
    # expected: the kernel reads its flag before the first state and raises ForwardCancelled
    # (score_distribution: WorkCancelledError); unset, the same call answers
    game, ev_table, _, _ = kockapoker_small
    card = Card(entries=(None,) * 5)
    limit = WorkLimit()
    limit.cancel()
    with limited(limit), pytest.raises(WorkCancelledError, match="cancelled"):
        score_distribution(game, ev_table, card)
    model = model_for(game)
    flag = np.ones(1, dtype=np.int32)
    with pytest.raises(_scorecard.ForwardCancelled):
        _scorecard.forward_distribution(model.masks, model.layer_ptr, 0, 0, 0, 0, np.zeros(252), -1,
                                        np.asarray(ev_table["values"]), *model.kernel_args(), cancel=flag)
    with limited(WorkLimit()):
        assert score_distribution(game, ev_table, card).probs.sum() == pytest.approx(1)


def test_the_price_counts_the_states_of_every_card_above(kockapoker_small):
    # expected: from the empty card every state of the model may be reached; from a card
    # with every box but one filled, the states of that mask and of the full card (the
    # model's own counts: ncls * nflag per mask)
    game, _, _, _ = kockapoker_small
    model = model_for(game)
    assert forward_states(model, 0) == model.n_states
    mask = 0b01111
    full = (1 << 5) - 1
    per_mask = lambda m: int(model.ncls[m]) * int(model.nflag[m])  # noqa: E731
    assert forward_states(model, mask) == per_mask(mask) + per_mask(full)
    assert forward_seconds(model, 0) > forward_seconds(model, mask) > 0


def test_the_seat_refuses_a_forward_pass_past_its_budget(kockapoker_small, tmp_path):
    # expected: no target table in the seat's cache, a budget already spent: the price of
    # the forward pass (forward_seconds > 0) exceeds the time left, so the seat answers
    # too_expensive naming the command that builds the target table, before any work
    game, ev_table, _, cache = kockapoker_small
    own = tmp_path / "cache"
    own.mkdir()
    for path in cache.iterdir():
        if "-ev-" in path.name:
            (own / path.name).write_bytes(path.read_bytes())
    doc = game.state_to_json(ScorecardState(cards=(Card(entries=(None,) * 5),), dice=(2, 2, 6, 6, 6), throw=1))
    request = {"method": "distribution", "state": doc, "rules": KOCKAPOKER_SMALL[1]}
    seat = Seat(SeatOptions(cache_dir=own))
    with limited(WorkLimit(budget=1e-9)):
        refused = seat.handle(request)
    assert refused["error"]["code"] == "too_expensive"
    message = refused["error"]["message"]
    assert "\n" not in message and "kocka-solve build kockapoker" in message and "--kind target" in message
    # unbounded, the same request answers; with the target table built it answers within
    # the same spent budget (a look-up needs none)
    assert seat.handle(request)["result"]["probs"]
    with_target = Seat(SeatOptions(cache_dir=cache))
    with limited(WorkLimit(budget=1e-9)):
        fast = with_target.handle(request)["result"]
    slow = score_distribution(game, ev_table, game.state_from_json(doc))
    assert fast["first"] <= slow.first + len(slow.probs) and fast["mean"] == pytest.approx(slow.mean(), abs=1e-4)


def test_a_worker_runs_its_request_under_its_limit_and_abandon_cancels_it():
    # expected: the limit current in the worker thread is the job's, with the budget handed
    # to submit; abandoning the job sets its flag, which the running work sees
    workers = Workers(limit=4, threads=1, budget=30.0)
    started, seen = threading.Event(), {}

    def work(job):
        limit = current_limit()
        seen["limit"] = limit
        seen["left"] = limit.remaining()
        started.set()
        while not limit.cancelled:
            threading.Event().wait(0.001)
        return "stopped"

    job = workers.submit(work)
    assert started.wait(10)
    assert seen["limit"] is job.limit and 0 < seen["left"] <= 30.0
    workers.abandon(job)
    assert job.done.wait(10) and job.value == "stopped" and job.limit.cancelled
    assert current_limit() is None  # the caller's thread runs unbounded


def test_an_admitted_price_passes_and_a_cheaper_message_is_one_line():
    # expected: WorkLimit.admit refuses only work priced above the time left
    WorkLimit(budget=60.0).admit(0.5, "a pass", "build the table")
    WorkLimit().admit(1e9, "a pass", "build the table")  # no deadline: no price
    with pytest.raises(TooExpensiveError) as refused:
        WorkLimit(budget=1.0).admit(5.0, "a pass", "build the table")
    assert "\n" not in str(refused.value) and "build the table" in str(refused.value)
