"""Scorecard games: HU-1..HU-9 (kockapóker), SK-1..SK-11 (Slovak yatzi), and the Yahtzee /
Yatzy validation variants. Expected values come from RULES.md (reference cases, worked
examples), from published rules, or from brute force over subsets of the dice."""
from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kocka.solver.base.dice import all_outcomes
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import IllegalActionError, InvalidStateError, RulesError
from kocka.solver.base.i18n import use_language
from kocka.solver.rules import CHANCE, TERMINAL, get_game, play_random_game
from kocka.solver.rules.scorecard import (
    Card,
    Declare,
    Fill,
    HungarianGame,
    HungarianRules,
    Keep,
    ScorecardState,
    SlovakGame,
    SlovakRules,
    YahtzeeGame,
    YahtzeeRules,
    YatzyGame,
    YatzyRules,
    slovak_settlement,
)

GAMES = ["kockapoker", "slovak", "yahtzee", "yatzy"]


def score(name, dice, box, first_throw=False, **options):
    game = get_game(name, options)
    return game.box_score(game.box_index(box), dice, first_throw)


def card_from(game, entries, bonuses=0):
    """A Card with ``entries`` (box name -> entry), the other boxes open."""
    return Card(tuple(entries.get(b) for b in game.boxes), bonuses)


# ----------------------------------------------------------------------------------------
# Reference cases (RULES.md section 7) and worked examples
# ----------------------------------------------------------------------------------------
# (case, game, options, dice, box, first_throw, expected); expected copied from section 7
REFERENCE_CASES = [
    ("14", "kockapoker", {}, [3, 3, 3, 5, 5], "full_house", False, 19),
    ("14", "kockapoker", {}, [3, 3, 3, 5, 5], "two_pairs", False, 16),
    ("14", "kockapoker", {}, [3, 3, 3, 5, 5], "pair", False, 10),
    ("14", "kockapoker", {}, [3, 3, 3, 5, 5], "three_kind", False, 9),
    ("14", "kockapoker", {}, [3, 3, 3, 5, 5], "chance", False, 19),
    ("15", "kockapoker", {}, [3, 3, 3, 5, 5], "fives", False, -5),
    ("15", "kockapoker", {}, [3, 3, 3, 5, 5], "ones", False, -3),
    ("16", "kockapoker", {}, [6, 6, 6, 6, 6], "five_kind", False, 50),
    ("16", "kockapoker", {}, [6, 6, 6, 6, 6], "four_kind", False, 24),
    ("16", "kockapoker", {}, [6, 6, 6, 6, 6], "sixes", False, 12),
    ("17", "kockapoker", {}, [6, 6, 6, 6, 6], "two_pairs", False, 0),
    ("17", "kockapoker", {}, [6, 6, 6, 6, 6], "full_house", False, 0),
    ("17", "kockapoker", {"same_face_groups": "yes"}, [6, 6, 6, 6, 6], "two_pairs", False, 24),
    ("17", "kockapoker", {"same_face_groups": "yes"}, [6, 6, 6, 6, 6], "full_house", False, 30),
    ("18", "kockapoker", {}, [2, 3, 4, 5, 6], "large_straight", False, 20),
    ("18", "kockapoker", {}, [2, 3, 4, 5, 6], "small_straight", False, 0),
    ("18", "kockapoker", {}, [2, 3, 4, 5, 6], "chance", False, 20),
    ("19", "kockapoker", {}, [1, 1, 1, 1, 4], "pair", False, 2),
    ("19", "kockapoker", {}, [1, 1, 1, 1, 4], "three_kind", False, 3),
    ("19", "kockapoker", {}, [1, 1, 1, 1, 4], "four_kind", False, 4),
    ("19", "kockapoker", {}, [1, 1, 1, 1, 4], "fours", False, -8),
    ("32", "slovak", {}, [6, 6, 6, 6, 6], "sixes", False, 12),
    ("33", "slovak", {}, [1, 3, 4, 5, 6], "chance", True, 19),
    ("34", "slovak", {}, [1, 2, 3, 3, 5], "pair", False, 6),
    ("34", "slovak", {}, [1, 2, 3, 3, 5], "pair", True, 12),
    ("35", "slovak", {}, [4, 4, 4, 4, 4], "poker", False, 70),
    ("35", "slovak", {}, [4, 4, 4, 4, 4], "poker", True, 90),
    ("36", "slovak", {}, [2, 3, 4, 5, 6], "large_straight", True, 40),
]


@pytest.mark.parametrize("case, name, options, dice, box, first, expected", REFERENCE_CASES)
def test_reference_cases(case, name, options, dice, box, first, expected):
    # HU-5, HU-6, SK-4, SK-6, SK-7, SK-8: section 7 rows 14-19 and 32-36
    assert score(name, dice, box, first, **options) == expected


# HU-7, reference case 20: net -5 gives a house of 0 (default) or -5 (count)
@pytest.mark.parametrize("house_negative, expected_house", [("zero", 0), ("count", -5)])
def test_reference_case_20_negative_house(house_negative, expected_house):
    game = HungarianGame(HungarianRules(house_negative=house_negative))
    # worked example 2.3-4: 1s 0, 2s -4, 3s 0, 4s 0, 5s +5, 6s -6 -> net -5
    card = card_from(game, {"ones": 0, "twos": -4, "threes": 0, "fours": 0, "fives": 5, "sixes": -6})
    assert game.house(card) == expected_house
    assert game.card_total(card) == expected_house  # no lower box filled yet


def test_reference_case_37_settlement():
    # SK-11, case 37 / section 5 example 5: mean 200 -> +50, -10, -40
    assert slovak_settlement([250, 190, 160]) == (50, -10, -40)


WORKED_EXAMPLES_HU = [
    # 2.3-1: [3,3,3,5,5]: full 19, 2 pár 16, pár 10, drill 9, szemét 19, 3s 0, 5s -5
    ("2.3-1", {}, [3, 3, 3, 5, 5], {"full_house": 19, "two_pairs": 16, "pair": 10, "three_kind": 9,
                                    "chance": 19, "threes": 0, "fives": -5}),
    # 2.3-2: [1,1,1,1,4]: pár 2, drill 3, kis póker 4, 1s +1; four 6s score 24 as kis póker
    ("2.3-2", {}, [1, 1, 1, 1, 4], {"pair": 2, "three_kind": 3, "four_kind": 4, "ones": 1}),
    ("2.3-2", {}, [2, 6, 6, 6, 6], {"four_kind": 24}),
    # 2.3-3: [6,6,6,6,6]: nagy póker 50, kis póker 24, drill 18, pár 12, szemét 30, 6s +12;
    # 2 pár and full 0, or 24 and 30 with same_face_groups = yes
    ("2.3-3", {}, [6, 6, 6, 6, 6], {"five_kind": 50, "four_kind": 24, "three_kind": 18, "pair": 12,
                                    "chance": 30, "sixes": 12, "two_pairs": 0, "full_house": 0}),
    ("2.3-3", {"same_face_groups": "yes"}, [6, 6, 6, 6, 6], {"two_pairs": 24, "full_house": 30}),
]  # fmt: skip


@pytest.mark.parametrize("example, options, dice, expected", WORKED_EXAMPLES_HU)
def test_worked_examples_hu(example, options, dice, expected):
    assert {box: score("kockapoker", dice, box, **options) for box in expected} == expected


def test_worked_example_hu_4_house_69():
    # 2.3-4: -1, 0, -3, +4, 0, +6 -> net +6, house 63 + 6 = 69 (HU-7)
    game = HungarianGame()
    card = card_from(game, {"ones": -1, "twos": 0, "threes": -3, "fours": 4, "fives": 0, "sixes": 6})
    assert game.house(card) == 69
    assert game.card_total(card) == 69


def test_sk_example_1_keep_two_twos():
    # section 5 example 1: keep 2,2 of [1,2,2,3,6]; the other three dice are thrown (SK-2)
    game = SlovakGame()
    state = game.apply(game.new_initial_state(), (1, 2, 2, 3, 6))
    state = game.apply(state, Keep((2, 2)))
    outcomes = game.chance_outcomes(state)
    assert len(outcomes) == 56  # C(8, 3) multisets of three dice
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    after = game.apply(state, (1, 2, 2))
    assert after.dice == (1, 2, 2, 2, 2) and after.throw == 2


def test_sk_example_2_part1_worth_60():
    # section 5 example 2: 1s two -1, 2s three 0, 3s four +3, 4s two -4, 5s three 0, 6s five +12
    game = SlovakGame()
    throws = {"ones": [1, 1, 2, 3, 4], "twos": [2, 2, 2, 1, 1], "threes": [3, 3, 3, 3, 1],
              "fours": [4, 4, 1, 1, 1], "fives": [5, 5, 5, 1, 1], "sixes": [6, 6, 6, 6, 6]}  # fmt: skip
    entries = {box: game.box_score(game.box_index(box), dice) for box, dice in throws.items()}
    assert entries == {"ones": -1, "twos": 0, "threes": 3, "fours": -4, "fives": 0, "sixes": 12}
    assert game.card_total(card_from(game, entries)) == 60  # sum 10 >= 0, +50 (SK-5)


@pytest.mark.parametrize(
    "dice, box, first, options, expected",
    [
        ([1, 3, 4, 5, 6], "chance", False, {}, 19),  # example 3: chance 19
        ([1, 3, 4, 5, 6], "chance", True, {}, 19),  # ... also on the first throw (SK-7)
        ([1, 2, 3, 3, 5], "pair", False, {}, 6),  # example 3: a pair of 3s is 6
        ([1, 2, 3, 3, 5], "pair", True, {}, 12),  # ... or 12 from the first throw
        ([4, 4, 4, 4, 4], "poker", False, {}, 70),  # example 4: 20 + 50
        ([4, 4, 4, 4, 4], "poker", True, {}, 90),  # 40 + 50
        ([4, 4, 4, 4, 4], "poker", True, {"poker_bonus": "doubled"}, 140),  # (20 + 50) x 2
        ([4, 4, 4, 4, 4], "poker", False, {"poker_bonus": "doubled"}, 70),  # not first: 20 + 50
        ([2, 2, 5, 5, 5], "full_house", True, {}, 38),  # 19 x 2
    ],
)
def test_sk_examples_3_4(dice, box, first, options, expected):
    assert score("slovak", dice, box, first, **options) == expected


def test_sk_example_5_settlement_sums_to_zero():
    # SK-11: exact fractions; 1, 0, 0 has mean 1/3
    assert slovak_settlement([1, 0, 0]) == (Fraction(2, 3), Fraction(-1, 3), Fraction(-1, 3))
    assert sum(slovak_settlement([250, 190, 160, 7])) == 0
    with pytest.raises(InvalidStateError, match=r"one whole-number total per player, not 250 x$"):
        slovak_settlement([250, "x"])


# ----------------------------------------------------------------------------------------
# Scoring by brute force over the dice subsets (HU-6, SK-6, Yatzy, Yahtzee)
# ----------------------------------------------------------------------------------------
def _subsets(dice):
    for size in range(1, 6):
        yield from itertools.combinations(dice, size)


def brute_lower(dice, box, same_face):
    """Best fit of a HU/SK/Yatzy lower pattern, found by trying every subset of the dice."""
    best = 0
    for sub in _subsets(sorted(dice)):
        c = sorted(Counter(sub).values())
        faces = set(sub)
        fits = {
            "pair": len(sub) == 2 and len(faces) == 1,
            "three_kind": len(sub) == 3 and len(faces) == 1,
            "four_kind": len(sub) == 4 and len(faces) == 1,
            "two_pairs": len(sub) == 4 and (c == [2, 2] or (same_face and c == [4])),
            "full_house": len(sub) == 5 and (c == [2, 3] or (same_face and c == [5])),
            "five_kind": len(sub) == 5 and len(faces) == 1,
            "poker": len(sub) == 5 and len(faces) == 1,
            "yatzy": len(sub) == 5 and len(faces) == 1,
            "small_straight": sorted(sub) == [1, 2, 3, 4, 5],
            "large_straight": sorted(sub) == [2, 3, 4, 5, 6],
            "chance": len(sub) == 5,
        }[box]
        if fits:
            value = {"small_straight": 15, "large_straight": 20, "five_kind": 50, "yatzy": 50}.get(box, sum(sub))
            best = max(best, value)
    return best


@pytest.mark.parametrize("same_face", ["no", "yes"])
def test_hu6_lower_boxes_by_brute_force(same_face):
    # HU-4, HU-6: best fit over every subset, 0 when nothing fits, for all 252 outcomes
    game = HungarianGame(HungarianRules(same_face_groups=same_face))
    for dice in all_outcomes(5):
        for box in game.lower_boxes:
            name = game.boxes[box]
            assert game.box_score(box, dice) == brute_lower(dice, name, same_face == "yes"), (dice, name)


@pytest.mark.parametrize("same_face", ["no", "yes"])
@pytest.mark.parametrize("poker_bonus", ["flat", "doubled"])
def test_sk6_to_sk9_part2_by_brute_force(same_face, poker_bonus):
    # SK-6 values, SK-7 doubling (not chance), SK-8 poker bonus, SK-9 dash = 0
    game = SlovakGame(SlovakRules(same_face_groups=same_face, poker_bonus=poker_bonus))
    for dice in all_outcomes(5):
        for box in game.lower_boxes:
            name = game.boxes[box]
            value = brute_lower(dice, name, same_face == "yes")
            bonus = 50 if name == "poker" and value else 0
            assert game.box_score(box, dice, False) == value + bonus
            if name == "chance":
                assert game.box_score(box, dice, True) == value
            else:
                doubled_bonus = 2 * bonus if poker_bonus == "doubled" else bonus
                assert game.box_score(box, dice, True) == 2 * value + doubled_bonus


def test_yatzy_lower_boxes_by_brute_force():
    game = YatzyGame()
    for dice in all_outcomes(5):
        for box in game.lower_boxes:
            assert game.box_score(box, dice) == brute_lower(dice, game.boxes[box], False)


def test_yahtzee_boxes_by_published_rules():
    # Glenn (2006) Table I: 3K/4K sum of all dice, FH 25 (three of one, two of another),
    # SS 30 (four consecutive), LS 40 (five consecutive), Yahtzee 50, chance sum; faces sum
    game = YahtzeeGame()
    for dice in all_outcomes(5):
        c = Counter(dice)
        values = set(dice)
        runs = [set(range(lo, lo + n)) for n in (4, 5) for lo in range(1, 8 - n)]
        expected = {
            **{name: f * c[f] for f, name in enumerate(game.boxes[:6], start=1)},
            "three_kind": sum(dice) if max(c.values()) >= 3 else 0,
            "four_kind": sum(dice) if max(c.values()) >= 4 else 0,
            "full_house": 25 if sorted(c.values()) == [2, 3] else 0,
            "small_straight": 30 if any(r <= values for r in runs[:3]) else 0,
            "large_straight": 40 if any(r <= values for r in runs[3:]) else 0,
            "yahtzee": 50 if len(values) == 1 else 0,
            "chance": sum(dice),
        }
        assert {b: game.box_score(game.box_index(b), dice) for b in game.boxes} == expected


@pytest.mark.parametrize(
    "name, dice, box, expected",
    [
        # Yatzy (Wikipedia, Scandinavian rules): 15566 is 22 as two pairs, 15555 nothing
        ("yatzy", [1, 5, 5, 6, 6], "two_pairs", 22),
        ("yatzy", [1, 5, 5, 5, 5], "two_pairs", 0),
        ("yatzy", [3, 3, 3, 4, 4], "pair", 8),
        ("yatzy", [2, 2, 5, 5, 5], "full_house", 19),
        ("yatzy", [5, 5, 5, 5, 5], "full_house", 0),
        ("yatzy", [1, 2, 3, 4, 5], "small_straight", 15),
        ("yatzy", [2, 3, 4, 5, 6], "large_straight", 20),
        ("yatzy", [5, 6, 5, 5, 2], "fives", 15),
        # Yahtzee (Hasbro rules): a small straight is any four in a row
        ("yahtzee", [1, 2, 3, 4, 6], "small_straight", 30),
        ("yahtzee", [1, 2, 3, 4, 6], "large_straight", 0),
        ("yahtzee", [3, 3, 3, 5, 5], "full_house", 25),
        ("yahtzee", [2, 2, 2, 2, 5], "four_kind", 13),
        ("yahtzee", [6, 6, 6, 6, 6], "full_house", 0),  # not a full house without the joker
        ("yahtzee", [6, 6, 6, 6, 6], "yahtzee", 50),
    ],
)
def test_published_spot_checks(name, dice, box, expected):
    assert score(name, dice, box) == expected


@pytest.mark.parametrize("name, options", [(g, {}) for g in GAMES] + [
    ("kockapoker", {"same_face_groups": "yes"}),
    ("slovak", {"poker_bonus": "doubled", "same_face_groups": "yes"}),
    ("yahtzee", {"boxes": ["twos", "full_house", "chance"]}),
])  # fmt: skip
def test_score_table_agrees_with_box_score(name, options):
    game = get_game(name, options)
    table = game.score_table()
    tables = dice_tables(5)
    assert table.shape == (len(game.boxes), 252, 2) and table.dtype.name == "int32"
    assert not table.flags.writeable
    for dice in all_outcomes(5):
        k = tables.outcome_index(dice)
        for box in range(len(game.boxes)):
            for first in (0, 1):
                assert table[box, k, first] == game.box_score(box, dice, bool(first))


# ----------------------------------------------------------------------------------------
# HU rules, one by one
# ----------------------------------------------------------------------------------------
def test_hu1_card_and_players():
    # HU-1: 15 boxes, six face boxes (the house) and nine lower; one or more players
    game = HungarianGame()
    assert len(game.boxes) == 15 and len(game.upper_boxes) == 6 and len(game.lower_boxes) == 9
    assert [game.upper_face(b) for b in game.upper_boxes] == [1, 2, 3, 4, 5, 6]
    assert game.box_labels["five_kind"] == "nagy póker" and game.box_labels["chance"] == "szemét"
    assert HungarianGame(num_players=6).num_players == 6
    with pytest.raises(RulesError, match="0"):
        HungarianGame(num_players=0)


def test_hu2_three_throws_and_stopping():
    # HU-2: at most three throws; the player may stop after the first or second
    game = HungarianGame()
    state = game.apply(game.new_initial_state(), (1, 2, 3, 4, 6))
    assert state.throw == 1 and Keep((1, 2, 3, 4)) in game.legal_actions(state)
    assert Fill("chance") in game.legal_actions(state)  # stop after the first throw
    state = game.apply(game.apply(state, Keep((1, 2, 3, 4))), (5,))
    assert state.throw == 2 and state.dice == (1, 2, 3, 4, 5)
    state = game.apply(game.apply(state, Keep(())), (1, 1, 1, 1, 1))
    assert state.throw == 3
    assert all(isinstance(a, Fill) for a in game.legal_actions(state))
    with pytest.raises(IllegalActionError, match=r"no throw is left after throw 3"):
        game.apply(state, Keep((1,)))


def test_hu3_one_box_per_turn_entries_final():
    # HU-3: exactly one open box, any order; an entry is final
    game = HungarianGame(num_players=2)
    state = game.apply(game.new_initial_state(), (6, 6, 6, 6, 6))
    state = game.apply(state, Fill("five_kind"))
    assert state.player == 1 and game.is_chance_node(state)
    assert state.cards[0].entries[game.box_index("five_kind")] == 50
    state = game.apply(game.apply(state, (1, 1, 2, 2, 3)), Fill("sixes"))  # seat 1, any order
    state = game.apply(state, (6, 6, 6, 6, 6))
    with pytest.raises(IllegalActionError, match=r"nagy póker is already written, with 50; open boxes: 1-esek, "):
        game.apply(state, Fill("five_kind"))


def test_hu4_unfitting_lower_box_scores_zero():
    # HU-4: a lower box may be chosen although the dice do not fit; it scores 0
    game = HungarianGame()
    state = game.apply(game.new_initial_state(), (1, 2, 3, 4, 6))
    state = game.apply(state, Fill("five_kind"))
    assert state.cards[0].entries[game.box_index("five_kind")] == 0


@pytest.mark.parametrize("count", range(6))
@pytest.mark.parametrize("face", range(1, 7))
def test_hu5_face_entries(face, count):
    # HU-5: (c - 3) x f, never a plain 0 instead; e.g. two 3s -3, five 6s +12, no 6 -18
    other = 1 if face != 1 else 2
    dice = [face] * count + [other] * (5 - count)
    assert score("kockapoker", dice, ["ones", "twos", "threes", "fours", "fives", "sixes"][face - 1]) == (count - 3) * face


def test_hu7_house_formula_for_every_net():
    # HU-7: house = 63 + net if net >= 0, else 0 (zero) / net (count); final_bonus is the
    # house minus the entries (which sum to net)
    for option in ("zero", "count"):
        game = HungarianGame(HungarianRules(house_negative=option))
        for tracker in range(game.tracker_size):
            net = tracker - 63
            house = 63 + net if net >= 0 else (0 if option == "zero" else net)
            assert net + game.final_bonus(tracker) == house


def test_hu8_total_and_end_after_15_rounds(rng):
    # HU-8: total = house + nine lower entries; the game ends when all cards are full
    game = HungarianGame(num_players=3)
    final, history = play_random_game(game, rng)
    assert game.is_terminal(final)
    assert sum(isinstance(a, Fill) for a in history) == 15 * 3
    for card, total in zip(final.cards, game.returns(final)):
        lower = sum(card.entries[b] for b in game.lower_boxes)
        assert total == game.house(card) + lower


def test_hu9_source_corrections():
    # HU-9: two 3s as pár give 6 (not the source's 4); nagy sor is 2-3-4-5-6
    assert score("kockapoker", [3, 3, 1, 2, 5], "pair") == 6
    assert score("kockapoker", [2, 3, 4, 5, 6], "large_straight") == 20
    assert score("kockapoker", [2, 3, 4, 6, 6], "large_straight") == 0


# ----------------------------------------------------------------------------------------
# SK rules, one by one
# ----------------------------------------------------------------------------------------
def test_sk1_card_and_players():
    # SK-1: 15 boxes in two parts; 2..4 players, and one for analysis
    game = SlovakGame()
    assert game.boxes[6:] == ("pair", "two_pairs", "three_kind", "small_straight", "large_straight",
                              "full_house", "four_kind", "poker", "chance")  # fmt: skip
    assert game.player_range() == (1, 4)
    with pytest.raises(RulesError, match="5"):
        SlovakGame(num_players=5)


def test_sk2_turn_ends_by_filling_one_box():
    # SK-2: up to three throws, keeping any dice, then one open box
    game = SlovakGame()
    state = game.apply(game.new_initial_state(), (1, 2, 2, 3, 6))
    state = game.apply(game.apply(state, Keep((2, 2))), (2, 5, 6))
    state = game.apply(game.apply(state, Keep((2, 2, 2))), (2, 4))
    assert state.throw == 3 and state.dice == (2, 2, 2, 2, 4)
    state = game.apply(state, Fill("twos"))
    assert state.cards[0].entries[1] == 2 and state.throw == 0 and game.is_chance_node(state)


def test_sk3_part1_first():
    # SK-3 (default part1_first): the six face boxes first, in any order
    game = SlovakGame()
    state = game.apply(game.new_initial_state(), (4, 4, 4, 4, 4))
    fills = {a.box for a in game.legal_actions(state) if isinstance(a, Fill)}
    assert fills == {"ones", "twos", "threes", "fours", "fives", "sixes"}
    with pytest.raises(IllegalActionError, match=r"poker may not be written before part 1 is complete") as caught:
        game.apply(state, Fill("poker"))
    assert caught.value.rule == "SK-3"
    # option free: any box at any time
    free = SlovakGame(SlovakRules(part_order="free"))
    state = free.apply(free.new_initial_state(), (4, 4, 4, 4, 4))
    assert free.apply(state, Fill("poker")).cards[0].entries[free.box_index("poker")] == 90
    # a part 2 entry before part 1 is complete cannot occur under part1_first
    card = card_from(game, {"poker": 70})
    with pytest.raises(InvalidStateError, match="before part 1 is complete"):
        game.check_state(ScorecardState(cards=(card,), player=0))


def test_sk3_declare_after_first_throw():
    # SK-3 option part1_choice = declare_after_first_throw: the face box is declared after
    # the first throw and filled at the end of the turn
    game = SlovakGame(SlovakRules(part1_choice="declare_after_first_throw"))
    state = game.apply(game.new_initial_state(), (2, 2, 3, 5, 6))
    assert set(game.legal_actions(state)) == {Declare(b) for b in game.boxes[:6]}
    with pytest.raises(IllegalActionError, match="declare a face box first"):
        game.apply(state, Keep((2, 2)))
    state = game.apply(state, Declare("twos"))
    state = game.apply(game.apply(state, Keep((2, 2))), (1, 1, 4))
    assert [a for a in game.legal_actions(state) if isinstance(a, Fill)] == [Fill("twos")]
    with pytest.raises(IllegalActionError, match=r"jednotky was not declared"):
        game.apply(state, Fill("ones"))
    with pytest.raises(IllegalActionError, match="declared once"):
        game.apply(state, Declare("ones"))
    state = game.apply(state, Fill("twos"))
    assert state.cards[0].entries[1] == -2 and state.declared is None


def test_sk3_declare_optional_under_free_order():
    # decided (options combined): under part_order = free, declaring is optional, but a
    # face box can then only be filled if declared after the first throw
    game = SlovakGame(SlovakRules(part_order="free", part1_choice="declare_after_first_throw"))
    state = game.apply(game.new_initial_state(), (6, 6, 6, 6, 6))
    actions = game.legal_actions(state)
    assert Declare("sixes") in actions and Fill("poker") in actions and Fill("sixes") not in actions
    assert game.apply(state, Fill("poker")).cards[0].entries[game.box_index("poker")] == 110


@pytest.mark.parametrize("count, expected", [(0, -18), (1, -12), (2, -6), (3, 0), (4, 6), (5, 12)])
def test_sk4_part1_entries(count, expected):
    # SK-4: none -3f, one -2f, two -f, three 0, four +f, five +2f (five 6s: +12, not 10)
    assert score("slovak", [6] * count + [1] * (5 - count), "sixes") == expected


@pytest.mark.parametrize("net, bonus", [(0, 50), (10, 50), (-1, 0), (-63, 0)])
def test_sk5_part1_bonus(net, bonus):
    # SK-5: +50 if the part 1 sum is >= 0; no penalty
    game = SlovakGame()
    assert game.final_bonus(game.initial_tracker + net) == bonus


def test_sk7_doubling_only_from_the_first_throw():
    # SK-7: written immediately after the first throw: double; after a keep: single
    game = SlovakGame(SlovakRules(part_order="free"))
    first = game.apply(game.new_initial_state(), (1, 2, 3, 3, 5))
    assert game.apply(first, Fill("pair")).cards[0].entries[game.box_index("pair")] == 12
    second = game.apply(game.apply(first, Keep((1, 2, 3, 3))), (5,))
    assert game.apply(second, Fill("pair")).cards[0].entries[game.box_index("pair")] == 6
    # part 1 entries and chance are never doubled
    assert game.apply(first, Fill("threes")).cards[0].entries[2] == -3
    assert game.apply(first, Fill("chance")).cards[0].entries[game.box_index("chance")] == 14


def test_sk8_poker_bonus_only_for_a_poker():
    # SK-8: the extra 50 comes with a poker; a dash in the poker box is 0
    assert score("slovak", [4, 4, 4, 4, 5], "poker", True) == 0
    assert score("slovak", [1, 1, 1, 1, 1], "poker") == 55


def test_sk9_dash():
    # SK-9: any open part-2 box can take a dash, worth 0
    game = SlovakGame(SlovakRules(part_order="free"))
    state = game.apply(game.new_initial_state(), (1, 2, 4, 5, 6))
    for box in game.lower_boxes[:-1]:  # chance always scores the sum
        assert game.apply(state, Fill(game.boxes[box])).cards[0].entries[box] == 0


def test_sk10_total():
    # SK-10: part 1 entries + bonus + part 2 entries
    game = SlovakGame()
    entries = {"ones": -1, "twos": 0, "threes": 3, "fours": -4, "fives": 0, "sixes": 12,
               "pair": 12, "two_pairs": 0, "three_kind": 18, "small_straight": 30, "large_straight": 20,
               "full_house": 38, "four_kind": 24, "poker": 70, "chance": 19}  # fmt: skip
    assert game.card_total(card_from(game, entries)) == 10 + 50 + 231


def test_sk3_box_groups_and_turn_boxes():
    # SK-3 as the solvers see it: while part 1 lasts, one group of the open face boxes;
    # with the declaration every face box is a group of its own (declared after the first
    # throw), and a turn played without declaring cannot end in a face box
    faces = 0b111111
    assert SlovakGame().box_groups(0) == [faces]
    assert SlovakGame().box_groups(faces) == [((1 << 15) - 1) & ~faces]
    declaring = SlovakGame(SlovakRules(part1_choice="declare_after_first_throw", part_order="free"))
    assert declaring.box_groups(0) == [1 << b for b in range(6)] + [((1 << 15) - 1) & ~faces]
    state = declaring.apply(declaring.new_initial_state(), (2, 2, 3, 5, 6))
    assert declaring.turn_boxes(state) == list(range(6, 15))
    assert declaring.turn_boxes(declaring.apply(state, Declare("twos"))) == [1]
    assert HungarianGame().box_groups((1 << 15) - 1) == []  # a full card: no turn left


def test_card_from_entries_takes_box_names_in_any_language():
    # a card typed by a person: box ids, the card's Hungarian names or English ones
    game = HungarianGame()
    card = game.card_from_entries({"pair": 10, "full": 19, "Sixes": 6, "nagy poker": 50})
    named = {b: e for b, e in zip(game.boxes, card.entries) if e is not None}
    assert named == {"pair": 10, "full_house": 19, "sixes": 6, "five_kind": 50}
    assert game.card_from_entries(None) == game.new_initial_state().cards[0]
    yahtzee = YahtzeeGame().card_from_entries({"entries": {"YAHTZEE": 50}, "yahtzee_bonuses": 1})
    assert yahtzee.yahtzee_bonuses == 1 and 50 in yahtzee.entries
    with pytest.raises(InvalidStateError, match="there is no box bogus on this card; the boxes are 1-esek, 2-esek"):
        game.card_from_entries({"bogus": 3})


def test_sk11_returns_and_settlement(rng):
    # SK-10, SK-11: returns are totals; the settlement sums to zero
    game = SlovakGame(num_players=3)
    final, _ = play_random_game(game, rng)
    totals = game.returns(final)
    assert totals == tuple(game.card_total(c) for c in final.cards)
    results = slovak_settlement(totals)
    assert sum(results) == 0 and results[0] == totals[0] - Fraction(sum(totals), 3)
    assert game.settlement(final) == results  # the engine settles with SK-11
    with pytest.raises(IllegalActionError, match=r"only at the end of the game$") as caught:
        game.settlement(game.new_initial_state())
    assert caught.value.rule == "SK-11"


# ----------------------------------------------------------------------------------------
# Yahtzee bonus and joker
# ----------------------------------------------------------------------------------------
def _yahtzee_state(game, filled, dice):
    card = card_from(game, filled)
    return ScorecardState(cards=(card,), player=0, throw=3, dice=tuple(dice))


def test_yahtzee_bonus_and_free_joker():
    # Verhoeff's free choice: any open box; +100 when the Yahtzee box holds 50; the joker
    # values 25/30/40 need the face box of the roll to be filled
    game = YahtzeeGame()
    state = _yahtzee_state(game, {"yahtzee": 50, "threes": 9}, [3, 3, 3, 3, 3])
    fills = {a.box for a in game.legal_actions(state) if isinstance(a, Fill)}
    assert fills == set(game.boxes) - {"yahtzee", "threes"}
    after = game.apply(state, Fill("large_straight"))
    assert after.cards[0].entries[game.box_index("large_straight")] == 40
    assert after.cards[0].yahtzee_bonuses == 1
    # face box open: no joker value, but the bonus still counts
    state = _yahtzee_state(game, {"yahtzee": 50}, [3, 3, 3, 3, 3])
    after = game.apply(state, Fill("full_house"))
    assert after.cards[0].entries[game.box_index("full_house")] == 0 and after.cards[0].yahtzee_bonuses == 1
    # Yahtzee box scratched: joker without bonus
    state = _yahtzee_state(game, {"yahtzee": 0, "threes": 6}, [3, 3, 3, 3, 3])
    after = game.apply(state, Fill("small_straight"))
    assert after.cards[0].entries[game.box_index("small_straight")] == 30 and after.cards[0].yahtzee_bonuses == 0


def test_yahtzee_forced_joker():
    # Hasbro: own face box if open; else an open lower box; else any open face box
    game = YahtzeeGame(YahtzeeRules(joker="forced"))
    state = _yahtzee_state(game, {"yahtzee": 50}, [5, 5, 5, 5, 5])
    assert [a for a in game.legal_actions(state) if isinstance(a, Fill)] == [Fill("fives")]
    with pytest.raises(IllegalActionError, match=r"Chance may not be written now; open boxes: Fives$"):
        game.apply(state, Fill("chance"))
    lower = set(YAHTZEE_LOWER) - {"yahtzee"}
    state = _yahtzee_state(game, {"yahtzee": 50, "fives": 15}, [5, 5, 5, 5, 5])
    assert {a.box for a in game.legal_actions(state) if isinstance(a, Fill)} == lower
    all_lower = {b: 0 for b in YAHTZEE_LOWER} | {"chance": 5, "fives": 15}  # chance is at least 5
    state = _yahtzee_state(game, all_lower, [5, 5, 5, 5, 5])
    assert {a.box for a in game.legal_actions(state) if isinstance(a, Fill)} == {"ones", "twos", "threes", "fours", "sixes"}


YAHTZEE_LOWER = ("three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yahtzee", "chance")


def test_yahtzee_without_bonus_has_no_joker():
    # yahtzee_bonus = False: no +100, five of a kind scores 0 as full house or straight
    game = YahtzeeGame(YahtzeeRules(yahtzee_bonus=False, joker="forced"))
    state = _yahtzee_state(game, {"yahtzee": 50, "twos": 4}, [2, 2, 2, 2, 2])
    assert len([a for a in game.legal_actions(state) if isinstance(a, Fill)]) == 11
    after = game.apply(state, Fill("full_house"))
    assert after.cards[0].entries[game.box_index("full_house")] == 0 and after.cards[0].yahtzee_bonuses == 0


def test_yahtzee_fill_score_api():
    # the solver-facing functions agree with the state machine
    game = YahtzeeGame()
    y, ls = game.box_index("yahtzee"), game.box_index("large_straight")
    mask = 1 << y | 1 << game.box_index("sixes")
    assert game.is_joker((6,) * 5, mask) and not game.is_joker((6,) * 5, 1 << y)
    assert game.fill_score(ls, (6,) * 5, False, mask, 50) == (40, 100)
    assert game.fill_score(ls, (6,) * 5, False, mask, 0) == (40, 0)
    assert game.fill_score(ls, (6,) * 5, False, 0, None) == (0, 0)  # first Yahtzee: no joker


# ----------------------------------------------------------------------------------------
# Trackers and totals
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, size, initial", [("kockapoker", 106, 63), ("slovak", 106, 63),
                                                 ("yahtzee", 64, 0), ("yatzy", 64, 0)])  # fmt: skip
def test_tracker_geometry(name, size, initial):
    # HU/SK: net upper score + 63 in 0..105 (net from -63 to +42); Yahtzee/Yatzy: total capped at 63
    game = get_game(name)
    assert (game.tracker_size, game.initial_tracker) == (size, initial)


def test_yahtzee_yatzy_upper_bonus():
    # Yahtzee 35 / Yatzy 50 once the upper total reaches 63; the tracker caps at 63
    for game, bonus in ((YahtzeeGame(), 35), (YatzyGame(), 50)):
        sixes = game.box_index("sixes")
        assert game.tracker_after(60, sixes, (6, 6, 6, 6, 1)) == 63
        assert game.tracker_after(62, game.box_index("chance"), (6, 6, 6, 6, 6)) == 62
        assert (game.final_bonus(62), game.final_bonus(63)) == (0, bonus)


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(GAMES),
    options=st.sampled_from([{}, {"same_face_groups": "yes"}, {"house_negative": "count"}, {"poker_bonus": "doubled"}]),
    rolls=st.lists(st.sampled_from(all_outcomes(5)), min_size=15, max_size=15),
    order=st.permutations(list(range(15))),
)
def test_total_decomposition(name, options, rolls, order):
    # total = entries + final_bonus(tracker) (+ 100 per bonus Yahtzee), tracker folded with
    # tracker_after; for HU also = house (HU-7 formula) + lower entries (HU-8)
    try:
        game = get_game(name, options)
    except RulesError:
        return
    order = [b for b in order if b < len(game.boxes)]
    tracker, entries = game.initial_tracker, {}
    for box, dice in zip(order, rolls):
        entries[game.boxes[box]] = game.box_score(box, dice)
        tracker = game.tracker_after(tracker, box, dice)
    card = card_from(game, entries)
    assert game.tracker_of(card) == tracker
    assert game.card_total(card) == sum(entries.values()) + game.final_bonus(tracker)
    if name == "kockapoker":
        net = sum(entries[b] for b in game.boxes[:6])
        house = 63 + net if net >= 0 else (net if options.get("house_negative") == "count" else 0)
        assert game.card_total(card) == house + sum(entries[game.boxes[b]] for b in game.lower_boxes)


# Bounds computed by hand from the rules (max entries per box):
# HU lower: szemét 30, pár 12, drill 18, 2 pár 22 (6,6,5,5; 24 with same_face_groups), kis póker
# 24, full 28 (6,6,6,5,5; 30), kis sor 15, nagy sor 20, nagy póker 50; house 0..63+42
# (count: -63..105); every card has chance >= 5.
# SK part 2 from the first throw: pair 24, two pairs 44 (48), three 36, small 30, large 40,
# full 56 (60), four 48, poker 60+50 (doubled 160), chance 30; part 1 -63..42, bonus 50.
# Yahtzee: upper 105 + 35, lower 30+30+25+30+40+50+30 = 235, 12 bonus Yahtzees: max 1575.
# Yatzy: upper 105 + 50, lower 12+22+18+24+15+20+28+30+50 = 219: max 374.
BOUNDS = {
    ("kockapoker", ()): (5, 219 + 105),
    ("kockapoker", (("same_face_groups", "yes"),)): (5, 223 + 105),
    ("kockapoker", (("house_negative", "count"),)): (5 - 63, 219 + 105),
    ("slovak", ()): (5 - 63, 418 + 42 + 50),
    ("slovak", (("poker_bonus", "doubled"), ("same_face_groups", "yes"))): (5 - 63, 476 + 42 + 50),
    ("yahtzee", ()): (5, 1575),
    ("yahtzee", (("joker", "forced"),)): (5, 1575),
    ("yatzy", ()): (5, 374),
}


@pytest.mark.parametrize("key", list(BOUNDS))
def test_max_lower_total_matches_hand_bound(key):
    name, options = key
    game = get_game(name, dict(options))
    lo, hi = BOUNDS[key]
    upper_max = {"kockapoker": 105, "slovak": 92, "yahtzee": 1340, "yatzy": 155}[name]
    assert game.max_lower_total() == hi - upper_max


# ----------------------------------------------------------------------------------------
# Random play: legality, JSON, bounds (hypothesis)
# ----------------------------------------------------------------------------------------
VARIANTS = [(name, dict(options)) for name, options in BOUNDS] + [
    ("slovak", {"part1_choice": "declare_after_first_throw"}),
    ("slovak", {"part1_choice": "declare_after_first_throw", "part_order": "free"}),
    ("yahtzee", {"yahtzee_bonus": False}),
    ("kockapoker", {"boxes": ("ones", "sixes", "five_kind")}),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), players=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_random_play_stays_legal(variant, players, seed):
    name, options = variant
    game = get_game(name, options, num_players=players)
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not game.is_terminal(state):
        game.check_state(state)
        assert game.state_from_json(json.loads(json.dumps(game.state_to_json(state)))) == state
        if game.is_chance_node(state):
            outcomes = game.chance_outcomes(state)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            state = game.apply(state, outcomes[rng.randrange(len(outcomes))][0])
        else:
            actions = game.legal_actions(state)
            assert actions, game.describe_state(state)
            action = actions[rng.randrange(len(actions))]
            assert game.action_from_json(json.dumps(game.action_to_json(action))) == action
            state = game.apply(state, action)
    lo, hi = BOUNDS.get((name, tuple(sorted(options.items()))), (-10**6, 10**6))
    assert all(lo <= total <= hi for total in game.returns(state))
    assert game.state_from_json(game.state_to_json(state)) == state


@pytest.mark.parametrize("name", GAMES)
def test_returns_only_at_the_end(name, rng):
    game = get_game(name, num_players=2)
    with pytest.raises(IllegalActionError, match="only at the end"):
        game.returns(game.new_initial_state())
    final, _ = play_random_game(game, rng)
    assert game.current_player(final) == TERMINAL and game.legal_actions(final) == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.apply(final, (1, 2, 3, 4, 5))


def test_full_game_in_a_dozen_lines():
    # One-player kockapóker: every turn rolls [1,2,3,4,5], throws all five again for
    # [6,6,6,6,6] and fills the next box in card order. By hand (HU-5..HU-8): faces -3 -6 -9 -12 -15 +12 = net -33, house 0;
    # szemét 30, pár 12, drill 18, 2 pár 0, kis póker 24, full 0, kis sor 0, nagy sor 0,
    # nagy póker 50: total 134.
    game = get_game("kockapoker")
    state = game.new_initial_state()
    for box in game.boxes:
        assert game.current_player(state) == CHANCE
        state = game.apply(state, (1, 2, 3, 4, 5))
        state = game.apply(state, Keep(()))
        state = game.apply(state, (6, 6, 6, 6, 6))
        assert Fill(box) in game.legal_actions(state)
        state = game.apply(state, Fill(box))
    assert game.returns(state) == (134,)


# ----------------------------------------------------------------------------------------
# Errors, options, JSON documents
# ----------------------------------------------------------------------------------------
def test_illegal_actions_name_the_problem():
    game = HungarianGame()
    state = game.apply(game.new_initial_state(), (1, 2, 2, 3, 6))
    with pytest.raises(IllegalActionError, match=r"the kept dice 6 6 are not among the dice 1 2 2 3 6$"):
        game.apply(state, Keep((6, 6)))
    with pytest.raises(IllegalActionError, match="keeping all five dice"):
        game.apply(state, Keep((1, 2, 2, 3, 6)))
    with pytest.raises(IllegalActionError, match=r"there is no box yahtzee"):
        game.apply(state, Fill("yahtzee"))
    with pytest.raises(IllegalActionError, match=r"a roll of 5 dice is due, not 1 2$"):
        game.apply(game.new_initial_state(), (1, 2))
    with pytest.raises(IllegalActionError, match=r"declare 1-esek is not a move of this game"):
        game.apply(state, Declare("ones"))
    with pytest.raises(IllegalActionError, match="the action Keep is malformed: the kept dice must be values from 1 to 6, not 7"):
        game.action_from_json({"type": "Keep", "dice": [7]})


@pytest.mark.parametrize(
    "state, message",
    [
        (ScorecardState(cards=(Card((99,) + (None,) * 14),)), r"99 cannot be written in 1-esek on the card of player 1"),
        (ScorecardState(cards=(Card((None,) * 15),), throw=1, dice=(1, 2, 3, 4, 7)), r"not 1 2 3 4 7$"),
        (ScorecardState(cards=(Card((None,) * 15),), throw=0, dice=(1, 2, 3, 4, 5)), r"dice on the table come from a throw, with no dice kept aside"),
        (ScorecardState(cards=(Card((None,) * 15),), throw=3), r"no roll can follow throw 3"),
        (ScorecardState(cards=(Card((None,) * 15),), declared="ones"), r"boxes are not declared in this game"),
        (ScorecardState(cards=(Card((None,) * 15, 1),)), r"1 bonus Yahtzees are impossible"),
    ],
)
def test_impossible_states(state, message):
    with pytest.raises(InvalidStateError, match=message):
        HungarianGame().check_state(state)


def test_turn_order_is_checked():
    game = HungarianGame(num_players=2)
    card = card_from(game, {"ones": -3})
    with pytest.raises(InvalidStateError, match=r"the cards hold 0 1 entries, which is impossible with player 1 to play") as caught:
        game.check_state(ScorecardState(cards=(game.new_initial_state().cards[0], card), player=0))
    assert caught.value.rule == "HU-3, SK-2"


@pytest.mark.parametrize(
    "cls, options, message",
    [
        (HungarianRules, {"hu.house_negative": "minus"}, r"the rule option house_negative must be zero or count, not minus$"),
        (SlovakRules, {"sk.part_order": "random"}, r"must be part1_first or free, not random$"),
        (YahtzeeRules, {"joker": "wild"}, r"must be free or forced, not wild$"),
        (YatzyRules, {"boxes": ["ones", "yahtzee"]}, r"must name one or more different boxes out of ones, .*, not ones yahtzee$"),
        (YatzyRules, {"boxes": []}, r"must name one or more different boxes out of ones, .*, not nothing$"),
    ],
)
def test_rule_option_errors(cls, options, message):
    with pytest.raises(RulesError, match=message):
        cls.from_options(options)


def test_reduced_cards():
    # boxes: a subset of the card in card order; the formulas stay as they are
    rules = HungarianRules.from_options({"boxes": "five_kind, sixes"})
    assert rules.boxes == ("sixes", "five_kind") and rules == HungarianRules(boxes=["five_kind", "sixes"])
    assert rules.variant_id() != HungarianRules().variant_id()
    game = HungarianGame(rules)
    # net of the 6s box alone: -18..+12, tracker 0..30 from 18
    assert (game.tracker_size, game.initial_tracker) == (31, 18)
    card = card_from(game, {"sixes": 0, "five_kind": 50})
    assert game.card_total(card) == 0 + 63 + 50  # house 63 + net 0
    yahtzee = YahtzeeGame(YahtzeeRules(boxes=("ones", "twos", "yahtzee")))
    assert yahtzee.tracker_size == 16 and yahtzee.final_bonus(15) == 0  # 63 is out of reach
    yatzy = YatzyGame(YatzyRules(boxes=("chance",)))
    assert (yatzy.tracker_size, yatzy.upper_boxes) == (1, ())


def test_state_json_document():
    game = SlovakGame(SlovakRules(part1_choice="declare_after_first_throw"), num_players=2)
    state = game.apply(game.apply(game.new_initial_state(), (2, 2, 3, 5, 6)), Declare("twos"))
    doc = game.state_to_json(state)
    assert doc["state"]["declared"] == "twos" and doc["state"]["cards"][0]["entries"]["poker"] is None
    assert game.state_from_json(json.dumps(doc)) == state
    doc["state"]["cards"][0]["entries"]["yatzy"] = 50
    with pytest.raises(InvalidStateError, match="a card must give the boxes ones, twos"):
        game.state_from_json(doc)
    with pytest.raises(InvalidStateError, match="the state was made under other rules of this game"):
        SlovakGame(num_players=2).state_from_json(game.state_to_json(state))


def test_describe_state_is_a_sentence_in_the_language_in_force():
    # seat 1 of two (0-based inside the engine) after his second throw, 6 6 kept: the
    # position as a player of each language says it, seats 1-based, dice as dice
    game = HungarianGame(HungarianRules(), num_players=2)
    empty = Card((None,) * game.num_boxes)
    state = ScorecardState(cards=(empty, empty), player=1, throw=2, dice=(6, 6, 1, 2, 3), kept=(6, 6))
    said = {}
    for lang in ("en", "hu", "pl", "sk"):
        with use_language(lang):
            said[lang] = game.describe_state(state)
    assert said == {
        "en": "player 2, throw 2 of 3, dice 1 2 3 6 6, kept 6 6",
        "hu": "2. játékos, 2. dobás (összesen 3), kockák: 1 2 3 6 6, megtartva: 6 6",
        "pl": "gracz 2, rzut 2 z 3, kości 1 2 3 6 6, zostawione 6 6",
        "sk": "hráč 2, hod 2 z 3, kocky 1 2 3 6 6, nechané 6 6",
    }
