"""Pig through the Kocka race machinery (TurnModelBuilder + the Cython race solver).

Expected numbers: Neller & Presser's optimal first-player win probability, 0.5306
(tests/data/published.json, shared/PUBLISHED.md), and their value iteration over
(i, j, k), written out here, for a small goal.
"""
from __future__ import annotations

import pytest

from kocka.solver.base.errors import RulesError
from kocka.solver.solvers.kocka.pig import PigRules, pig_model, pig_win_probabilities

from conftest import published


def test_pig_reproduces_neller_presser():
    figure = published("pig_first_player_win_probability")
    solution = pig_win_probabilities()
    assert solution.unconverged == 0
    assert round(solution.first_player, figure["decimals"]) == figure["value"]


def test_pig_equals_neller_presser_value_iteration_small_goal():
    # Neller & Presser's equations: P(i,j,k) = max(roll, hold), roll = (1 - P(j,i,0)
    # + sum_{r=2..6} P(i,j,k+r)) / 6, hold = 1 - P(j,i+k,0), P = 1 once i + k >= goal.
    goal = 15
    P = {(i, j, k): 0.5 for i in range(goal) for j in range(goal) for k in range(goal - i)}

    def p(i, j, k):
        return 1.0 if i + k >= goal else P[(i, j, k)]

    for _ in range(1000):
        delta = 0.0
        for (i, j, k), old in P.items():
            roll = (1 - p(j, i, 0) + sum(p(i, j, k + r) for r in range(2, 7))) / 6
            hold = 1 - p(j, i + k, 0)
            P[(i, j, k)] = max(roll, hold)
            delta = max(delta, abs(P[(i, j, k)] - old))
        if delta < 1e-14:
            break
    win = pig_win_probabilities(PigRules(goal=goal)).win
    for i in range(goal):
        for j in range(goal):
            assert win[i, j] == pytest.approx(P[(i, j, 0)], abs=1e-11), (i, j)


def test_pig_model_is_one_roll_kind():
    # one die: a 1 busts (probability 1/6), faces 2..6 each add their value
    model = pig_model()
    assert model.kind_names == ("roll the die",)
    assert model.bust_prob[0] == pytest.approx(1 / 6)
    assert sorted(model.entry_points.tolist()) == [2, 3, 4, 5, 6]
    assert model.tail_success[0] == pytest.approx(5 / 6)


@pytest.mark.parametrize("options, message", [
    ({"goal": 0}, "pig goal must be a positive integer, got 0"),
    ({"faces": 1}, "pig die must have at least 2 faces, got 1"),
])
def test_bad_pig_rules(options, message):
    with pytest.raises(RulesError, match=message):
        PigRules(**options)
