"""The shared five-dice patterns (solver/rules/five_dice.py) against a brute force.

Every pattern is recomputed here from its definition in RULES.md (HU-5, HU-6, PL-3, PL-9,
SK-4, SK-6; Yahtzee/Yatzy conventions) by trying every subset or ordering of the dice, for
all 252 outcomes of five dice; the reference cases are RULES.md section 7.
"""
from __future__ import annotations

from itertools import combinations, permutations

import pytest

from kocka.solver.base.dice import all_outcomes, counts
from kocka.solver.base.errors import DiceError
from kocka.solver.rules import five_dice, polish, polish_scoring, scorecard
from kocka.solver.rules.five_dice import (
    Keep,
    combination_scorers,
    dice_sum,
    exact_straight,
    face_sum,
    full_house,
    highest_group,
    is_five_of_a_kind,
    is_full_house,
    longest_run,
    net_face_entry,
    of_a_kind,
    two_pairs,
)

OUTCOMES = all_outcomes(5)


# ----- brute force over subsets / orderings of the actual dice ---------------------------
def brute_group_faces(dice, size):
    """Faces of every ``size``-subset of equal dice."""
    return [sub[0] for sub in combinations(dice, size) if len(set(sub)) == 1]


def brute_of_a_kind(dice, size):
    """Best sum of ``size`` equal dice (HU-6, PL-3, SK-6: the dice forming the group)."""
    return max((sum(sub) for sub in combinations(dice, size) if len(set(sub)) == 1), default=0)


def brute_two_pairs(dice, same_face):
    """Best sum of four dice splitting into two pairs, of different faces unless ``same_face``."""
    return max(
        (sum(s) for s in combinations(dice, 4) if s[0] == s[1] and s[2] == s[3] and (same_face or s[0] != s[2])),
        default=0,
    )


def brute_is_full(dice, same_face):
    """Some ordering is three equal dice then two equal dice (different faces unless ``same_face``)."""
    return any(p[0] == p[1] == p[2] and p[3] == p[4] and (same_face or p[0] != p[3]) for p in permutations(dice))


def brute_longest_run(dice):
    return max(k for k in range(0, 7) for low in range(1, 8 - k) if set(range(low, low + k)) <= set(dice))


def brute_straight(dice, low):
    return sum(dice) if list(dice) == list(range(low, low + 5)) else 0


@pytest.mark.parametrize("dice", OUTCOMES)
def test_patterns_match_brute_force(dice):
    c = counts(dice)
    for size in range(1, 6):
        assert highest_group(c, size) == max(brute_group_faces(dice, size), default=0)
        assert of_a_kind(c, size) == brute_of_a_kind(dice, size)
    for same_face in (False, True):
        assert two_pairs(c, same_face) == brute_two_pairs(dice, same_face)
        assert is_full_house(c, same_face) == brute_is_full(dice, same_face)
        assert full_house(c, same_face) == (sum(dice) if brute_is_full(dice, same_face) else 0)
    assert dice_sum(c) == sum(dice)
    assert is_five_of_a_kind(c) == (len(set(dice)) == 1)
    assert exact_straight(c, 1) == brute_straight(dice, 1)
    assert exact_straight(c, 2) == brute_straight(dice, 2)
    assert longest_run(c) == brute_longest_run(dice)
    for face in range(1, 7):
        assert net_face_entry(c, face) == (dice.count(face) - 3) * face  # HU-5, PL-9, SK-4
        assert face_sum(c, face) == dice.count(face) * face


# box id -> brute force; the shared combinations of HU-6, PL-3 and SK-6 (poker = 5f)
BRUTE_COMBINATIONS = {
    "pair": lambda d, same: brute_of_a_kind(d, 2),
    "two_pairs": brute_two_pairs,
    "three_kind": lambda d, same: brute_of_a_kind(d, 3),
    "four_kind": lambda d, same: brute_of_a_kind(d, 4),
    "poker": lambda d, same: brute_of_a_kind(d, 5),
    "full_house": lambda d, same: sum(d) if brute_is_full(d, same) else 0,
    "small_straight": lambda d, same: brute_straight(d, 1),
    "large_straight": lambda d, same: brute_straight(d, 2),
    "chance": lambda d, same: sum(d),
}


@pytest.mark.parametrize("same_face", [False, True])
def test_combination_scorers_match_brute_force(same_face):
    scorers = combination_scorers(same_face)
    assert set(scorers) == set(BRUTE_COMBINATIONS) == set(polish_scoring.LOWER_BOXES)  # PL-3 lists exactly these
    for dice in OUTCOMES:
        c = counts(dice)
        for box, brute in BRUTE_COMBINATIONS.items():
            assert scorers[box](c) == brute(dice, same_face), (box, dice)


# RULES.md section 7 reference cases: (case, dice, function, same_face, expected)
REFERENCE_CASES = [
    (14, (3, 3, 3, 5, 5), "full_house", False, 19),
    (14, (3, 3, 3, 5, 5), "two_pairs", False, 16),
    (14, (3, 3, 3, 5, 5), "pair", False, 10),
    (14, (3, 3, 3, 5, 5), "three_kind", False, 9),
    (14, (3, 3, 3, 5, 5), "chance", False, 19),
    (16, (6, 6, 6, 6, 6), "four_kind", False, 24),
    (17, (6, 6, 6, 6, 6), "two_pairs", False, 0),
    (17, (6, 6, 6, 6, 6), "full_house", False, 0),
    (17, (6, 6, 6, 6, 6), "two_pairs", True, 24),
    (17, (6, 6, 6, 6, 6), "full_house", True, 30),
    (19, (1, 1, 1, 1, 4), "pair", False, 2),
    (19, (1, 1, 1, 1, 4), "three_kind", False, 3),
    (19, (1, 1, 1, 1, 4), "four_kind", False, 4),
    (22, (3, 3, 6, 6, 6), "full_house", False, 24),
    (22, (3, 3, 6, 6, 6), "two_pairs", False, 18),
]


@pytest.mark.parametrize("case, dice, box, same_face, expected", REFERENCE_CASES)
def test_reference_cases(case, dice, box, same_face, expected):
    assert combination_scorers(same_face)[box](counts(dice)) == expected


@pytest.mark.parametrize(
    "case, dice, face, expected",
    [(15, (3, 3, 3, 5, 5), 5, -5), (15, (3, 3, 3, 5, 5), 1, -3), (16, (6,) * 5, 6, 12), (19, (1, 1, 1, 1, 4), 4, -8),
     (27, (1, 2, 3, 4, 6), 1, -2), (27, (1, 2, 3, 4, 6), 6, -12)],
)  # fmt: skip
def test_net_face_entry_reference_cases(case, dice, face, expected):
    assert net_face_entry(counts(dice), face) == expected  # RULES.md section 7, HU-5, PL-9, SK-4


def test_one_keep_action_and_one_set_of_face_boxes():
    assert scorecard.Keep is polish.Keep is Keep
    assert scorecard.FACE_BOXES is polish_scoring.FACE_BOXES is five_dice.FACE_BOXES
    assert scorecard.FACE_OF_BOX is polish_scoring.FACE_OF_BOX is five_dice.FACE_OF_BOX
    assert five_dice.FACE_OF_BOX == {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    assert Keep((6, 1, 3)).dice == (1, 3, 6) and Keep().dice == ()
    # the JSON type name stays "Keep" in both families
    assert scorecard.HungarianGame().action_to_json(Keep((2, 1))) == {"type": "Keep", "dice": [1, 2]}
    assert polish.PolishGame().action_to_json(Keep((2, 1))) == {"type": "Keep", "dice": [1, 2]}


def test_keep_rejects_bad_dice():
    with pytest.raises(DiceError, match=r"the kept dice must be values from 1 to 6, not 7 1$"):
        Keep((7, 1))
