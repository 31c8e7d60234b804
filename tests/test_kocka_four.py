"""Four-player Kocka, exact (issue 28): ``W_i(a, b, c, d)`` for the player to move and the
three after him, each maximising his own P(win) (KOCKA-1, KOCKA-3, ``kocka.end = immediate``).

Where the expected numbers come from:

* :func:`kocka_reference.reference_players`: plain value iteration over every score
  quadruple, each turn evaluated by a recursion written from RULES.md on the engine's
  scoring functions, every set-aside its own option; to 1e-10 at target 400;
* RULES.md facts: the four win probabilities of a position sum to 1 (somebody wins, no ties
  under ``immediate``); a bust passes the turn with the scores unchanged (KOCKA-9);
* the equilibrium definition: no mover gains by another pure turn policy (full turn
  evaluations, 1e-12);
* counting: the rotation classes of g^4 quadruples number (g^4 + g^2 + 2 g) / 4 (Burnside);
* the dask backend on a ``distributed.LocalCluster``: bitwise the same table (checked in
  tests/test_kocka_three.py, on the cluster that solves the three-player table).
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from kocka_cli import build_and_verify
from kocka_reference import reference_players
from kocka.agents.advice.kocka import KockaHintParams, banked_scores
from kocka.agents.advice.kocka import hint as kocka_hint
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.bots.fallback import TWO_LEADERS
from kocka.solver.base.table_file import Table, TableMeta
from kocka.solver.solvers.kocka.ranking import rank
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import RulesError
from kocka.solver.rules.kocka import Bank, KockaGame, KockaState
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.kocka_turn import UNIT, kocka_model
from kocka.solver.solvers.kocka.tables import KOCKA_WINPROB4
from kocka.solver.solvers.kocka.three_players import (
    class_count, class_gain, classes_with_total, players_kernel, solve_four,
)

SMALL = KockaRules(target=600, series_threshold=300, min_bank_points=150)
TINY = KockaRules(target=400, series_threshold=250, min_bank_points=150)


def rot(u: np.ndarray) -> np.ndarray:
    """Values in the order (b, c, d, a) -> the order (a, b, c, d)."""
    return u[[3, 0, 1, 2]]


@pytest.fixture(scope="module")
def small():
    return solve_four(kocka_model(SMALL), threads=1)  # one thread inside an xdist worker


def test_equals_plain_value_iteration():
    # target 400 (8 units, 4,096 quadruples; both phases, series from 250 to 350, the
    # 150 minimum bank): about 3 s CPU for the reference, where 600 takes about a minute
    sol = solve_four(kocka_model(TINY), threads=1)
    assert not sol.mixed  # value iteration settles only where no best responses cycle
    np.testing.assert_allclose(sol.win, reference_players(TINY, 4), atol=1e-10)


def test_probabilities_sum_to_one_and_seat_order_matters(small):
    win = small.win
    assert np.all((win >= 0) & (win <= 1))
    np.testing.assert_allclose(win.sum(axis=-1), 1.0, atol=1e-13)
    # the first to move is ahead, each later seat behind the one before
    first, second, third, fourth = small.start
    assert first > second > third > fourth > 0


def test_every_state_is_its_own_turn_value_and_no_mover_gains(small):
    # the Bellman residual at the stored bust values (the next position of the cycle), and
    # the equilibrium check: no pure turn policy gains for any mover of a class
    model = kocka_model(SMALL)
    win = small.win
    kernel = players_kernel(model, win)
    rng = np.random.default_rng(7)
    for s in rng.integers(0, model.goal, size=(300, 4)):
        s = tuple(int(v) for v in s)
        got = np.array(kernel.evaluate(*s, *rot(win[s[1:] + s[:1]]))[:4])
        assert np.abs(got - win[s]).max() < 1e-12, s
        rotations = [s[r:] + s[:r] for r in range(4)]
        if len(set(rotations)) == 4:  # the class in turn order (a bust hands the turn on)
            assert class_gain(kernel, win, rotations) <= 1e-12


def test_classes_cover_every_position_once():
    goal = 6
    seen = set()
    classes = 0
    for total in range(4 * (goal - 1), -1, -1):
        for cls in classes_with_total(goal, total, 4):
            classes += 1
            cls = tuple(int(v) for v in cls)
            assert sum(cls) == total
            for s in {cls[r:] + cls[:r] for r in range(4)}:
                assert s not in seen
                seen.add(s)
    assert len(seen) == goal ** 4
    assert classes == class_count(goal, 4) == (goal ** 4 + goal ** 2 + 2 * goal) // 4


@pytest.mark.skipif(not os.environ.get("KOCKA_SLOW"), reason="about 20 s CPU; KOCKA_SLOW=1 runs it")
def test_cycling_classes_are_resolved_by_mixed_play():
    # at 1500 (default rules) best responses cycle in a few classes: each is settled with
    # mixed play that no mover can beat by a pure turn policy (full evaluations, 1e-12)
    rules = KockaRules(target=1500)
    sol = solve_four(kocka_model(rules), threads=2)
    mixing = [m for m in sol.mixed if any(p is not None for p in m.probabilities)]
    assert mixing and all(m.resolved for m in sol.mixed)
    kernel = players_kernel(kocka_model(rules), sol.win)
    for m in mixing:
        assert all(p is None or 0 < p < 1 for p in m.probabilities)
        assert class_gain(kernel, sol.win, m.states) <= 1e-12


def test_table_build_cli_and_its_checks(tmp_path, small):
    output = build_and_verify(4, tmp_path)
    assert "kocka/winprob4" in output and "P(seat 4 wins)" in output
    # the hint with three opponents and the optimal agent of a four-player game read it
    params = KockaHintParams(dice=(1, 1, 1, 2, 5, 5), score=100, opponents=banked_scores("250,450,50"),
                             cache_dir=str(tmp_path))
    report = kocka_hint(KockaGame(SMALL, num_players=1), params)
    assert report.value_name == "P(win)" and "exact four-player table" in report.notes[0]
    agent = make_agent("optimal", KockaGame(SMALL, num_players=4), options=AgentOptions(cache_dir=str(tmp_path)))
    assert agent.table.meta.kind == "winprob4" and agent.stand_in is None
    # the stored table is the solver's, and a corrupted value is caught by the load checks
    game = KockaGame(SMALL, num_players=4)
    bad = small.win.copy()
    bad[1, 2, 3, 4] = rot(bad[1, 2, 3, 4])
    meta = TableMeta(game="kocka", kind="winprob4", variant_id=SMALL.variant_id(), rules=SMALL.options(),
                     extra={"players": 4})
    assert KOCKA_WINPROB4.check(game, Table(arrays={"win": small.win}, meta=meta)) == []
    problems = KOCKA_WINPROB4._tuple_problems(players_kernel(kocka_model(SMALL), bad), Table(arrays={"win": bad}, meta=meta),
                                              [(1, 2, 3, 4)])
    assert problems and "is not its own turn value" in problems[0]


def test_rank_values_are_the_tables(small):
    # a bank of t hands the turn to the next player at (b, c, d, a + t): the mover's value
    # is W[b, c, d, a + t, 3], or 1 at the target (KOCKA-3)
    game = KockaGame(SMALL, num_players=4)
    meta = TableMeta(game="kocka", kind="winprob4", variant_id=SMALL.variant_id(), rules=SMALL.options(),
                     extra={"players": 4})
    table = Table(arrays={"win": small.win}, meta=meta)
    state = KockaState(scores=(200, 350, 100, 50), stage="bank_or_roll", turn_total=250, dice_in_play=3,
                       last_event="set_aside")
    values = {type(d.action): d.value for d in rank(game, table, state)}
    assert values[Bank] == pytest.approx(small.win[350 // UNIT, 100 // UNIT, 50 // UNIT, 450 // UNIT, 3])
    # the player to move is seat 3: his opponents in turn order are seats 4, 1, 2
    state = KockaState(scores=(200, 350, 100, 50), player=2, stage="bank_or_roll", turn_total=200, dice_in_play=3,
                       last_event="set_aside")
    values = {type(d.action): d.value for d in rank(game, table, state)}
    assert values[Bank] == pytest.approx(small.win[50 // UNIT, 200 // UNIT, 350 // UNIT, 300 // UNIT, 3])


def test_without_the_table_four_players_keep_the_stand_in(tmp_path):
    # no winprob4 built: the optimal agent plays the three-player table with the two
    # leading opponents, as before (agents/bots/fallback.py), and builds no winprob4
    agent = make_agent("optimal", KockaGame(SMALL, num_players=4),
                       options=AgentOptions(cache_dir=str(tmp_path), build_missing=True))
    assert agent.table.meta.kind == "winprob3" and agent.stand_in.method == TWO_LEADERS
    assert not list(tmp_path.glob("kocka-winprob4-*"))


def test_winprob4_refuses_other_end_rules():
    game = KockaGame(KockaRules(target=600, end="finish_round"), num_players=4)
    with pytest.raises(RulesError, match="four-player table covers kocka.end='immediate' only, got 'finish_round'"):
        KOCKA_WINPROB4.build(game, BuildOptions(progress=False))
