"""Dice multisets and the Cython dice tables, checked by brute force over 6^n rolls."""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from kocka.solver.base.dice import all_outcomes, outcome_probability, sub_multisets, validate_dice
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import DiceError


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_outcome_probabilities_match_enumeration(n):
    # expected: count every one of the 6^n ordered rolls
    tally = Counter(tuple(sorted(r)) for r in itertools.product(range(1, 7), repeat=n))
    t = dice_tables(n)
    assert len(t.outcomes) == len(tally) == len(all_outcomes(n))
    for row, p in zip(t.outcomes, t.probs):
        key = tuple(int(v) for v in row)
        assert p == pytest.approx(tally[key] / 6**n, abs=1e-15)
        assert outcome_probability(key) == pytest.approx(p, abs=1e-15)


def test_five_dice_sizes():
    # 252 = C(10, 5) outcomes; 462 = C(11, 5) keeps of 0..5 dice (Yahtzee literature)
    t = dice_tables(5)
    assert t.outcomes.shape == (252, 5)
    assert t.keeps.shape[0] == 462


def test_keep_transitions_by_brute_force():
    t = dice_tables(5)
    for kept in [(), (1,), (2, 2), (1, 3, 5), (6, 6, 6, 6), (1, 2, 3, 4, 5)]:
        r = t.keep_index(kept)
        got = {int(i): p for i, p in zip(
            t.trans_indices[t.trans_indptr[r]:t.trans_indptr[r + 1]],
            t.trans_probs[t.trans_indptr[r]:t.trans_indptr[r + 1]])}
        want = Counter()
        for roll in itertools.product(range(1, 7), repeat=5 - len(kept)):
            want[t.outcome_index(kept + roll)] += 1 / 6 ** (5 - len(kept))
        assert set(got) == set(want)
        for i in want:
            assert got[i] == pytest.approx(want[i], abs=1e-15)


def test_outcome_keeps_are_sub_multisets():
    t = dice_tables(5)
    for k, row in enumerate(t.outcomes):
        dice = tuple(int(v) for v in row)
        rows = t.outcome_keeps[t.outcome_keeps_indptr[k]:t.outcome_keeps_indptr[k + 1]]
        assert sorted(t.keep_dice(r) for r in rows) == sorted(sub_multisets(dice))


def test_validate_dice_errors_name_the_value():
    with pytest.raises(DiceError, match=r"the dice must be values from 1 to 6, not 7 1 1 2 3$"):
        validate_dice([7, 1, 1, 2, 3], 5)
    with pytest.raises(DiceError, match="the dice must be 5 dice, not 1 2$"):
        validate_dice([1, 2], 5)
    assert validate_dice([6, 1, 3]) == (1, 3, 6)
    assert np.all(np.diff(dice_tables(3).outcomes, axis=1) >= 0)
