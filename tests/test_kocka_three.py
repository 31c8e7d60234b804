"""Three-player Kocka, exact (issue 17): ``W_i(a, b, c)`` for the player to move and the
two after him, each maximising his own P(win) (KOCKA-1, KOCKA-3, ``kocka.end = immediate``).

Where the expected numbers come from:

* :mod:`kocka_reference` (tests/kocka_reference.py): plain value iteration over every
  score triple, each turn evaluated by a recursion written from RULES.md on the engine's
  scoring functions with every set-aside its own option; small targets (400, and 1000
  with ``KOCKA_SLOW=1``) to 1e-10;
* RULES.md facts: the three win probabilities of a position sum to 1 (somebody wins, no
  ties under ``immediate``); a bust passes the turn with the scores unchanged (KOCKA-9);
* the equilibrium definition itself: at every stored position no mover gains by another
  pure turn policy (full turn evaluations, 1e-12), and in the classes where best
  responses cycle, pure value iteration does not settle while the mixed values stand;
* Monte-Carlo of the table's play through the rules engine (99.9 % intervals);
* the dask backend on a ``distributed.LocalCluster``: bitwise the same tables (this one
  and the four-player one of tests/test_kocka_four.py, on one cluster).
"""
from __future__ import annotations

import math
import os
import random
from functools import lru_cache

import numpy as np
import pytest
from click.testing import CliRunner

from kocka_cli import SMALL_RULE_ARGS, build_and_verify, solve_on_local_cluster
from kocka_reference import reference_players
from kocka.agents.bots.base import play_with_rng
from kocka.agents.advice.kocka import KockaHintParams, banked_scores
from kocka.agents.advice.kocka import hint as kocka_hint
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.commands.solve_cli import main as solve_cli
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import RulesError, TableError
from kocka.solver.solvers.kocka.kocka_turn import UNIT, kocka_model
from kocka.solver.solvers.kocka.ranking import leading_opponents, rank
from kocka.solver.solvers.kocka.tables import KOCKA_WINPROB3
from kocka.solver.solvers.kocka.three_players import (
    class_gain, classes_with_total, solve_four, solve_three, three_player_kernel, three_turn_values,
)
from kocka.solver.store.table_store import build_table
from kocka.solver.rules.kocka import Bank, KockaGame, KockaState
from kocka.solver.rules.kocka_scoring import KockaRules

SMALL = KockaRules(target=600, series_threshold=300, min_bank_points=150)
TINY = KockaRules(target=400, series_threshold=250, min_bank_points=150)  # as tests/test_kocka_four.py's
MIXED = KockaRules(target=1500)  # default rules, a target where best responses already cycle (in one class)


def rot(u: np.ndarray) -> np.ndarray:
    """Values in the order (y, z, x) -> the order (x, y, z)."""
    return u[[2, 0, 1]]


def reference_three(rules: KockaRules) -> np.ndarray:
    """Plain value iteration of the three-player game (:func:`kocka_reference.reference_players`):
    ``W[x, y, z, i]``, x to move."""
    return reference_players(rules, 3)


@pytest.fixture(scope="module")
def small():
    return solve_three(kocka_model(SMALL), threads=1)  # one thread inside an xdist worker


@pytest.fixture(scope="module")
def mixed():
    return solve_three(kocka_model(MIXED), threads=1)  # one thread inside an xdist worker


def test_equals_plain_value_iteration():
    # target 400 (8 units, 512 triples; both phases, series from 250 to 350, the 150 minimum bank)
    sol = solve_three(kocka_model(TINY), threads=1)
    assert not sol.mixed  # value iteration settles only where no best responses cycle
    np.testing.assert_allclose(sol.win, reference_three(TINY), atol=1e-10)


@pytest.mark.skipif(not os.environ.get("KOCKA_SLOW"), reason="about half a minute; KOCKA_SLOW=1 runs it")
def test_equals_plain_value_iteration_target_1000():
    rules = KockaRules(target=1000, series_threshold=500, min_bank_points=150)
    sol = solve_three(kocka_model(rules), threads=2)
    assert not sol.mixed
    np.testing.assert_allclose(sol.win, reference_three(rules), atol=1e-10)


def test_probabilities_sum_to_one_and_lie_in_the_unit_interval(mixed):
    win = mixed.win
    assert np.all((win >= 0) & (win <= 1))
    np.testing.assert_allclose(win.sum(axis=-1), 1.0, atol=1e-13)


def test_every_state_is_its_own_turn_value(mixed):
    # the Bellman residual of the stored table: each position's turn, evaluated in full at
    # the stored bust values (the next position of the cycle), gives the stored values;
    # in the mixed classes the mover's own value (he is indifferent), elsewhere all three
    model = kocka_model(MIXED)
    kernel = three_player_kernel(model, mixed.win)
    goal = model.goal
    in_mixed = {s for m in mixed.mixed if any(p is not None for p in m.probabilities) for s in m.states}
    rng = np.random.default_rng(5)
    states = [tuple(int(v) for v in s) for s in rng.integers(0, goal, size=(1500, 3))]
    states += [s for m in mixed.mixed for s in m.states]
    worst = 0.0
    for x, y, z in states:
        got = np.array(kernel.evaluate(x, y, z, *rot(mixed.win[y, z, x]))[:3])
        off = np.abs(got - mixed.win[x, y, z])
        assert off[0] < 1e-12, (x, y, z)
        if (x, y, z) not in in_mixed:
            worst = max(worst, off.max())
    assert worst < 1e-12


def test_cycling_classes_are_resolved_by_mixed_play(mixed):
    # Best responses cycle in a class already at 1500: pure value iteration
    # on such a class (everything else fixed at the table) does not settle, and the
    # stored mixed values stand: no pure turn policy gains more than 1e-12 for any mover.
    model = kocka_model(MIXED)
    mixing = [m for m in mixed.mixed if any(p is not None for p in m.probabilities)]
    assert mixing and all(m.resolved for m in mixed.mixed)
    assert len(mixed.mixed) < 1e-3 * mixed.classes
    for m in mixing:
        assert all(p is None or 0 < p < 1 for p in m.probabilities)
        assert class_gain(three_player_kernel(model, mixed.win), mixed.win, m.states) <= 1e-12
    m = mixing[0]
    work = mixed.win.copy()
    kernel = three_player_kernel(model, work)
    n = len(m.states)
    seen = []
    for _ in range(300):
        values = []
        for i, (x, y, z) in enumerate(m.states):
            nx, ny, nz = m.states[(i + 1) % n]
            values.append(kernel.evaluate(x, y, z, *rot(work[nx, ny, nz]))[:3])
        for s, v in zip(m.states, values):
            work[s] = v
        seen.append(np.array(values).ravel())
    tail = np.array(seen[-60:])
    assert np.ptp(tail, axis=0).max() > 1e-9  # still moving: no pure fixed point


def test_start_figures(mixed, small):
    # seat order matters: the first to move is ahead, the third behind
    for sol in (mixed, small):
        first, second, third = sol.start
        assert first > second > third > 0
        assert first + second + third == pytest.approx(1.0, abs=1e-13)


def test_classes_cover_every_position_once():
    goal = 7
    seen = set()
    for total in range(3 * (goal - 1), -1, -1):
        for x, y, z in classes_with_total(goal, total):
            for s in {(x, y, z), (y, z, x), (z, x, y)}:
                assert s not in seen
                seen.add(s)
    assert len(seen) == goal ** 3


def test_rank_values_are_the_tables(small):
    # a bank of t hands the turn to the next player at (y, z, x + t): the mover's value is
    # W[y, z, x + t, 2], or 1 at the target (KOCKA-3)
    game = KockaGame(SMALL, num_players=3)
    table = _table(small)
    state = KockaState(scores=(200, 350, 100), stage="bank_or_roll", turn_total=250, dice_in_play=3,
                       last_event="set_aside")
    values = {type(d.action): d.value for d in rank(game, table, state)}
    assert values[Bank] == pytest.approx(small.win[350 // UNIT, 100 // UNIT, 450 // UNIT, 2])
    state = KockaState(scores=(500, 350, 100), stage="bank_or_roll", turn_total=150, dice_in_play=3,
                       last_event="set_aside")
    assert {type(d.action): d.value for d in rank(game, table, state)}[Bank] == 1.0
    tv, others = three_turn_values(kocka_model(SMALL), small.win, 4, 7, 2)
    assert tv.opening == pytest.approx(small.win[4, 7, 2, 0], abs=1e-12)
    assert others[0, 0, tv.model.roll_slot(tv.phase.opening_kind)] == pytest.approx(small.win[4, 7, 2, 1], abs=1e-12)


def test_four_players_use_the_two_leading_opponents(small):
    # four or more: the two leading opponents, in turn order, stand for all
    four, three = KockaGame(SMALL, num_players=4), KockaGame(SMALL, num_players=3)
    table = _table(small)
    roll = (1, 2, 3, 3, 5, 6)
    state4 = KockaState(scores=(100, 450, 50, 300), player=0, stage="set_aside", roll=roll, last_event="rolled")
    state3 = KockaState(scores=(100, 450, 300), player=0, stage="set_aside", roll=roll, last_event="rolled")
    assert [(d.action, d.value) for d in rank(four, table, state4)] == [(d.action, d.value) for d in rank(three, table, state3)]
    assert leading_opponents((100, 450, 50, 300), 0, 2) == [450, 300]


def test_monte_carlo_of_the_exact_policies_through_the_engine(small):
    # all three seats play the table's choices through the rules engine; each seat's
    # share of wins lies within the 99.9 % interval of W(0, 0, 0): at most +-0.05 over 1000
    # games, against seat values of about 0.54, 0.30 and 0.16 (a seat mix-up fails it)
    game = KockaGame(SMALL, num_players=3)
    table = _table(small)
    rng = random.Random(31)
    games = 1000
    wins = np.zeros(3)
    best_action = lru_cache(maxsize=None)(lambda s: rank(game, table, s)[0].action)  # positions recur across games
    for _ in range(games):
        wins += game.returns(play_with_rng(game, best_action, rng))
    for seat in range(3):
        p = small.start[seat]
        assert abs(wins[seat] / games - p) < 3.29 * math.sqrt(p * (1 - p) / games), (seat, wins / games, small.start)


def test_dask_cluster_gives_the_same_tables_bitwise(mixed):
    # the three-player table with its mixed classes and the four-player one of the
    # reference variant (tests/test_kocka_four.py), on one cluster: starting it costs more
    # than both
    four_players = kocka_model(TINY)
    three, four = solve_on_local_cluster((solve_three, kocka_model(MIXED)), (solve_four, four_players))
    assert np.array_equal(three.win, mixed.win)
    assert [m.states for m in three.mixed] == [m.states for m in mixed.mixed]
    alone = solve_four(four_players, threads=1)
    assert np.array_equal(four.win, alone.win)
    assert four.turn_evaluations == alone.turn_evaluations


def test_table_build_cli_hint_and_agent(tmp_path):
    rules, cache = SMALL_RULE_ARGS, ["--cache-dir", str(tmp_path)]
    runner = CliRunner()
    output = build_and_verify(3, tmp_path)
    assert "kocka/winprob3" in output and "P(seat 3 wins)" in output
    two = runner.invoke(solve_cli, ["build", "kocka", "--players", "2", "-q", *rules, *cache])
    assert two.exit_code == 0 and "kocka/winprob " in two.output
    assert len(list(tmp_path.glob("kocka-winprob3-*.npz"))) == 1 and len(list(tmp_path.glob("kocka-winprob-*.npz"))) == 1
    bad = runner.invoke(solve_cli, ["build", "kocka", "--players", "5", *rules, *cache])
    assert bad.exit_code == 2 and "no table for 5 players" in bad.output
    bad = runner.invoke(solve_cli, ["build", "kocka", "--players", "3", "-r", "end=last_turn", *rules, *cache])
    assert bad.exit_code == 2 and "covers kocka.end='immediate' only" in bad.output
    # the hint with two opponents reads the three-player table
    game = KockaGame(SMALL, num_players=1)
    params = KockaHintParams(dice=(1, 1, 1, 2, 5, 5), score=100, opponents=banked_scores("250,450"), cache_dir=str(tmp_path))
    report = kocka_hint(game, params)
    assert report.value_name == "P(win)" and "exact three-player table" in report.notes[0]
    assert "banked 100, 250, 450" in report.position
    with pytest.raises(RulesError, match="--opponents must be banked scores separated by commas"):
        banked_scores("250;450")
    # the optimal agent of a three-player game plays from it
    agent = make_agent("optimal", KockaGame(SMALL, num_players=3), options=AgentOptions(cache_dir=str(tmp_path)))
    assert agent.table.meta.kind == "winprob3"


def test_winprob3_refuses_other_end_rules():
    game = KockaGame(KockaRules(target=600, end="finish_round"), num_players=3)
    with pytest.raises(RulesError, match="covers kocka.end='immediate' only, got 'finish_round'"):
        KOCKA_WINPROB3.build(game, BuildOptions(progress=False))


def _table(sol):
    from kocka.solver.base.table_file import Table, TableMeta  # noqa: PLC0415 (test helper)
    rules = SMALL if sol.win.shape[0] == SMALL.target // UNIT else MIXED
    return Table(arrays={"win": sol.win}, meta=TableMeta(game="kocka", kind="winprob3", variant_id=rules.variant_id(),
                                                         rules=rules.options(), extra={"players": 3}))
