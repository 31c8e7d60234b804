"""Polish poker dice: the basic game and the full three-stage game (RULES.md section 4).

Expected numbers come from RULES.md: the reference cases 21-31 (section 7), the worked
examples of section 4.4, or hand arithmetic on the PL-n rule quoted beside the case.
"""
from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kocka.solver.base.dice import sub_multisets
from kocka.solver.base.errors import DiceError, IllegalActionError, InvalidStateError, RulesError
from kocka.solver.rules import CHANCE, get_game, polish_scoring
from kocka.solver.rules.five_dice import FACE_BOXES
from kocka.solver.rules.polish import (
    Declare, EndTurn, Keep, PolishBasicGame, PolishBasicState, PolishGame, PolishState, Record,
    Scratch, Write,
)
from kocka.solver.rules.polish_scoring import (
    BOXES, COMBINATIONS, PolishBasicRules, PolishRules, base_value, basic_value, box_value, face_entry,
    shows, stage_total, upper_bonus,
)

from conftest import RULES_MD

FIVE_5S, FIVE_6S = (5, 5, 5, 5, 5), (6, 6, 6, 6, 6)


def run(game, steps, state=None):
    """Apply ``steps`` in order: dice tuples at chance nodes (the rolled dice), actions
    elsewhere. Returns the final state."""
    state = game.new_initial_state() if state is None else state
    for step in steps:
        assert game.is_chance_node(state) == isinstance(step, tuple), (step, state)
        state = game.apply(state, step)
    return state


def throw(*rolls, keeps=()):
    """Steps of a turn's throws: the first throw, then ``Keep(k), roll`` per later throw."""
    steps = [Keep(()), rolls[0]]
    for kept, roll in zip(keeps, rolls[1:]):
        steps += [Keep(kept), roll]
    return steps


def at_stage(game, stage):
    """Start of ``stage``: earlier stage cards filled with 0 (a possible entry of every box:
    three dice of a face, or a scratched lower box)."""
    state = game.new_initial_state()
    done = tuple(0 for _ in game.rules.boxes)
    cards = tuple(
        tuple(done if index < stage - 1 else card for card in stage_cards)
        for index, stage_cards in enumerate(state.cards)
    )
    return dataclasses.replace(state, stage=stage, cards=cards)


# ----------------------------------------------------------------------------------------
# Reference cases 21-29 and worked example 3 (full game scoring)
# ----------------------------------------------------------------------------------------
FULL_GAME_SCORES = [
    # (source, box, dice, from_hand, expected)
    ("case 21, PL-13", "full_house", (3, 3, 6, 6, 6), True, 72),
    ("case 22, PL-3", "full_house", (3, 3, 6, 6, 6), False, 24),
    ("case 22, PL-3", "two_pairs", (3, 3, 6, 6, 6), False, 18),
    ("case 23, PL-13", "poker", FIVE_5S, False, 75),
    ("case 23, PL-13", "poker", FIVE_5S, True, 150),
    ("case 24, PL-13", "poker", FIVE_6S, False, 90),
    ("case 24, PL-13", "poker", FIVE_6S, True, 180),
    ("case 25, PL-13", "four_kind", (1, 4, 4, 4, 4), True, 48),
    ("case 26, PL-13", "small_straight", (1, 2, 3, 4, 5), True, 15),
    ("case 27, PL-9", "ones", (1, 2, 3, 4, 6), False, -2),
    ("case 27, PL-9", "ones", (1, 2, 3, 4, 6), True, -2),
    ("case 27, PL-9", "sixes", (1, 2, 3, 4, 6), False, -12),
    ("4.4 ex. 3, PL-13", "full_house", (3, 3, 6, 6, 6), False, 24),
    ("4.4 ex. 3, PL-13", "four_kind", (1, 4, 4, 4, 4), False, 16),
    # PL-13 table: the other boxes get no from-hand bonus; 3 + 3 + 6 + 6 = 18, 3 x 6 = 18
    ("PL-13 no bonus", "two_pairs", (3, 3, 6, 6, 6), True, 18),
    ("PL-13 no bonus", "three_kind", (3, 3, 6, 6, 6), True, 18),
    ("PL-13 no bonus", "chance", (3, 3, 6, 6, 6), True, 24),
    ("PL-13 no bonus", "large_straight", (2, 3, 4, 5, 6), True, 20),
    # PL-9: (c - 3) x f, one 1 gives -2, four 1s give +1; five 6s give +12
    ("PL-9", "ones", (1, 1, 1, 1, 6), False, 1),
    ("PL-9", "sixes", FIVE_6S, True, 12),
    # PL-3 best fit: five 6s as pair 12, three of a kind 18, four of a kind 24
    ("PL-3 best fit", "pair", FIVE_6S, False, 12),
    ("PL-3 best fit", "three_kind", FIVE_6S, False, 18),
    ("PL-3 best fit", "four_kind", FIVE_6S, False, 24),
    ("PL-3 best fit", "pair", (2, 2, 5, 5, 6), False, 10),
    # PL-10: a lower box whose pattern the dice do not show gets 0
    ("PL-10", "full_house", (1, 2, 3, 5, 5), True, 0),
    ("PL-10", "small_straight", (2, 3, 4, 5, 6), False, 0),
    ("PL-10", "poker", (5, 5, 5, 5, 6), True, 0),
    ("PL-10", "two_pairs", FIVE_6S, False, 0),
]


@pytest.mark.parametrize("source, box, dice, from_hand, expected", FULL_GAME_SCORES)
def test_full_game_box_values(source, box, dice, from_hand, expected):
    assert box_value(box, dice, from_hand, PolishRules()) == expected


@pytest.mark.parametrize("source, box, dice, from_hand, expected", FULL_GAME_SCORES)
def test_full_game_box_values_through_play(source, box, dice, from_hand, expected):
    # the same entries written in a real turn: from hand = right after the first throw;
    # otherwise after a second throw that keeps all but one die (PL-13)
    game = PolishGame()
    steps = throw(dice) if from_hand else throw(dice, dice[4:], keeps=[dice[:4]])
    state = run(game, steps + [Write(box)])
    assert game.card(state, 0)[box] == expected
    assert state.fences == ((2,) if from_hand else (1,))  # PL-12: F + 3 - t


def test_scratching_a_face_box_before_throwing_case_28():
    # case 28 (PL-11): the 4s box scratched before throwing counts no 4: -3 x 4 = -12;
    # scratching before throwing earns 3 fences (PL-12)
    game = PolishGame()
    state = game.apply(game.new_initial_state(), Scratch("fours"))
    assert game.card(state, 0)["fours"] == -12
    assert state.fences == (3,)


@pytest.mark.parametrize(
    "net, bonus_zero, expected",
    [
        (1, "none", 50),  # case 29
        (0, "none", 0),  # case 29
        (-4, "none", -20),  # case 29
        (0, "plus50", 50),  # section 6 pl.bonus_zero = plus50: net >= 0 gives +50
        (-1, "plus50", -20),
        (12, "plus50", 50),
    ],
)
def test_upper_bonus_case_29(net, bonus_zero, expected):
    # PL-9: above 0 +50, below 0 -20, at 0 per pl.bonus_zero; bonus and penalty differ by 70
    assert upper_bonus(net, PolishRules(bonus_zero=bonus_zero)) == expected
    assert polish_scoring.UPPER_BONUS - polish_scoring.UPPER_PENALTY == 70


@pytest.mark.parametrize(
    "fives, expected_faces",
    [
        (5, 51),  # 4.4 ex. 2: net 0 - 4 + 5 = +1, bonus +50, face section 51
        (0, -24),  # 4.4 ex. 2: with three 5s the net is -4, penalty -20, face section -24
    ],
)
def test_upper_bonus_worked_example_2(fives, expected_faces):
    # PL-17: stage total = face entries + bonus + lower entries; the lower boxes add 7 here
    card = dict.fromkeys(BOXES, 0)
    card.update(ones=0, twos=-4, threes=0, fours=0, fives=fives, sixes=0, pair=2, chance=5)
    assert stage_total(card, PolishRules()) == expected_faces + 7


def test_stage_total_counts_the_bonus_only_once_the_face_boxes_are_filled():
    # PL-9 concerns the stage's net upper score, known when its six face boxes are filled
    rules = PolishRules()
    assert stage_total({"twos": -4, "pair": 8}, rules) == 4
    assert stage_total({"pair": 8}, PolishRules(boxes=("pair", "chance"))) == 8
    with pytest.raises(InvalidStateError, match=r"there is no box ones on this card; the boxes are pair"):
        stage_total({"ones": 0}, PolishRules(boxes=("pair",)))


# ----------------------------------------------------------------------------------------
# Reference cases 30-31 and PL-6 (basic game scoring)
# ----------------------------------------------------------------------------------------
BASIC_SCORES = [
    # (source, combo, dice, from_hand, basic_hand_mult, expected)
    ("case 30, PL-6", "two_pairs", (2, 2, 4, 4, 6), True, 2, 24),
    ("case 30, PL-6", "two_pairs", (2, 2, 4, 4, 6), False, 2, 12),
    ("case 31, PL-6", "pair", (1, 2, 3, 4, 4), True, 2, 8),
    # PL-6: pair never boosted and two pairs doubled whatever basic_hand_mult says
    ("PL-6", "pair", (1, 2, 3, 4, 4), True, 3, 8),
    ("PL-6", "two_pairs", (2, 2, 4, 4, 6), True, 1, 24),
    ("PL-6", "two_pairs", (2, 2, 4, 4, 6), True, 3, 24),
    # PL-6 with pl.basic_hand_mult 2 / 1 / 3: three 5s are 15 (PL-3)
    ("PL-6 mult 2", "three_kind", (1, 2, 5, 5, 5), True, 2, 30),
    ("PL-6 mult 1", "three_kind", (1, 2, 5, 5, 5), True, 1, 15),
    ("PL-6 mult 3", "three_kind", (1, 2, 5, 5, 5), True, 3, 45),
    ("PL-6 mult 3", "three_kind", (1, 2, 5, 5, 5), False, 3, 15),
    # PL-3 / PL-4: basic poker is the plain sum (the x3 / x6 of PL-13 is the full game's)
    ("PL-3 basic poker", "poker", FIVE_6S, False, 2, 30),
    ("PL-6 basic poker", "poker", FIVE_6S, True, 2, 60),
    ("PL-6 full", "full_house", (3, 3, 6, 6, 6), True, 3, 72),
    ("PL-6 straight", "large_straight", (2, 3, 4, 5, 6), True, 2, 40),
    ("PL-3 not shown", "four_kind", (1, 2, 5, 5, 5), True, 2, 0),
]


@pytest.mark.parametrize("source, combo, dice, from_hand, mult, expected", BASIC_SCORES)
def test_basic_values(source, combo, dice, from_hand, mult, expected):
    assert basic_value(combo, dice, from_hand, PolishBasicRules(basic_hand_mult=mult)) == expected


@pytest.mark.parametrize(
    "rolls, keeps, combo, expected",
    [
        ([(2, 2, 4, 4, 6)], [], "two_pairs", 24),  # case 30, from hand
        ([(2, 2, 3, 4, 6), (4,)], [(2, 2, 4, 6)], "two_pairs", 12),  # case 30, t2: [2,2,4,4,6]
        ([(1, 2, 3, 4, 4)], [], "pair", 8),  # case 31
        ([(1, 2, 2, 4, 6), (4,)], [(1, 2, 2, 4)], "pair", 8),  # t2 [1,2,2,4,4]: best pair 4s (PL-3)
    ],
)
def test_basic_records_through_play(rolls, keeps, combo, expected):
    game = PolishBasicGame()
    state = run(game, throw(*rolls, keeps=keeps) + [Record(combo)])
    assert game.record_sheet(state, 0)[combo] == expected


# ----------------------------------------------------------------------------------------
# PL-3 patterns and same_face_groups
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "combo, dice, same_face_groups, expected",
    [
        ("two_pairs", FIVE_6S, "no", 0),  # PL-3: different faces needed (case 17 analogue)
        ("two_pairs", FIVE_6S, "yes", 24),  # same_face_groups = yes: two pairs = 4f
        ("two_pairs", (2, 5, 5, 5, 5), "yes", 20),
        ("two_pairs", (2, 2, 5, 5, 5), "yes", 14),  # 2+2+5+5 beats nothing better
        ("full_house", FIVE_6S, "no", 0),
        ("full_house", FIVE_6S, "yes", 30),  # full = 5f
        ("full_house", (1, 1, 1, 2, 2), "no", 7),  # PL-3: the smallest possible full
        ("full_house", (1, 1, 1, 1, 2), "yes", 0),
        ("small_straight", (1, 2, 3, 4, 5), "no", 15),
        ("large_straight", (2, 3, 4, 5, 6), "no", 20),
        ("large_straight", (1, 2, 3, 4, 5), "no", 0),
        ("chance", (1, 1, 2, 3, 6), "no", 13),
    ],
)
def test_base_values_and_same_face_groups(combo, dice, same_face_groups, expected):
    assert base_value(combo, dice, same_face_groups) == expected
    assert shows(combo, dice, same_face_groups) == (expected > 0)


def test_same_face_groups_in_both_games():
    # same_face_groups = yes, PL-13: five 6s as full from hand = 3 x 30; basic two pairs from
    # hand = 2 x 24 (PL-6)
    full_game = get_game("polish", {"same_face_groups": "yes"})
    state = run(full_game, throw(FIVE_6S) + [Write("full_house")])
    assert full_game.card(state, 0)["full_house"] == 90
    basic = get_game("polish-basic", {"same_face_groups": "yes"})
    state = run(basic, throw(FIVE_6S))
    assert Record("two_pairs") in basic.legal_actions(state)
    assert basic.record_sheet(basic.apply(state, Record("two_pairs")), 0)["two_pairs"] == 48
    plain = PolishBasicGame()
    assert Record("two_pairs") not in plain.legal_actions(run(plain, throw(FIVE_6S)))


def test_face_entries():
    # PL-9 formula for every count 0..5 of 3s: -9, -6, -3, 0, 3, 6
    for c, want in enumerate([-9, -6, -3, 0, 3, 6]):
        assert face_entry(3, (3,) * c + (1,) * (5 - c)) == want


# ----------------------------------------------------------------------------------------
# Fences (PL-12) and throws (PL-2)
# ----------------------------------------------------------------------------------------
def test_fences_worked_example_1():
    game = PolishGame()
    # turn 1: [1,2,5,5,5] written as three of a kind from hand, 15; F 0 -> 2
    state = run(game, throw((1, 2, 5, 5, 5)) + [Write("three_kind")])
    assert game.card(state, 0)["three_kind"] == 15 and state.fences == (2,)
    # turn 2: [1,3,4,6,6] written as pair, 12; F = 4
    state = run(game, throw((1, 3, 4, 6, 6)) + [Write("pair")], state)
    assert game.card(state, 0)["pair"] == 12 and state.fences == (4,)
    # turn 3: budget 3 + 4 = 7 throws
    assert game.budget(state) == 7
    # scratching a box without throwing instead gives F = 4 + 3 = 7
    assert game.apply(state, Scratch("chance")).fences == (7,)
    # writing after 5 throws gives F = 4 + 3 - 5 = 2
    roll, keep = (1, 1, 2, 3, 4), (1, 1, 2, 3)
    five = run(game, throw(roll, *[(4,)] * 4, keeps=[keep] * 4), state)
    assert five.throws == 5
    assert game.apply(five, Write("chance")).fences == (2,)
    # all 7 throws may be used, not an 8th (PL-12: t may not exceed 3 + F)
    seven = run(game, [Keep(keep), (4,), Keep(keep), (4,)], five)
    assert seven.throws == 7 and not any(isinstance(a, Keep) for a in game.legal_actions(seven))
    with pytest.raises(IllegalActionError, match=r"no throws are left, 7 of 7 are used, so keep 1 1 2 3 is not possible"):
        game.apply(seven, Keep(keep))
    assert game.apply(seven, Write("chance")).fences == (0,)


@pytest.mark.parametrize(
    "throws, expected_fences",
    [(0, 4), (1, 3), (2, 2), (3, 1), (4, 0)],  # PL-12: F = 1 + 3 - t
)
def test_fence_update_for_each_throw_count(throws, expected_fences):
    game = PolishGame()
    start = dataclasses.replace(run(game, [Scratch("chance")]), fences=(1,))  # F = 1: budget 4
    steps = [] if throws == 0 else throw(*[(1, 2, 3, 4, 6)] + [(6,)] * (throws - 1), keeps=[(1, 2, 3, 4)] * (throws - 1))
    state = run(game, steps + [Scratch("poker")], start)
    assert state.fences == (expected_fences,)


def test_fence_cap_saturates():
    # small-variant parameter: fences saturate at fence_cap (solvers' bound); 0 + 3 > 2
    game = PolishGame(PolishRules(fence_cap=2))
    state = game.apply(game.new_initial_state(), Scratch("chance"))
    assert state.fences == (2,) and game.budget(state) == 5


def test_first_throw_uses_five_dice_and_keeps_are_sub_multisets():
    # PL-1, PL-2: the first throw rolls all five dice (252 sorted outcomes); later, any
    # subset may be kept except all five (keeping all five is stopping)
    game = PolishGame()
    start = game.apply(game.new_initial_state(), Keep(()))
    outcomes = game.chance_outcomes(start)
    assert len(outcomes) == 252 and sum(p for _, p in outcomes) == pytest.approx(1.0)
    with pytest.raises(IllegalActionError, match=r"the first throw is with all five dice, so keep 5 is not possible"):
        game.apply(game.new_initial_state(), Keep((5,)))
    state = game.apply(start, (1, 2, 2, 3, 3))
    keeps = [a.dice for a in game.legal_actions(state) if isinstance(a, Keep)]
    # faces 1 x1, 2 x2, 3 x2: 2 * 3 * 3 = 18 sub-multisets, minus all five
    assert sorted(keeps) == sorted(k for k in sub_multisets((1, 2, 2, 3, 3)) if len(k) < 5) and len(keeps) == 17
    after_keep = game.apply(state, Keep((2, 2)))
    assert game.current_player(after_keep) == CHANCE
    assert len(game.chance_outcomes(after_keep)) == 56  # C(8, 3) outcomes of three dice
    # the rolled dice may come unsorted; they join the kept ones as a sorted tuple
    assert game.apply(after_keep, (6, 1, 4)).dice == (1, 2, 2, 4, 6)


# ----------------------------------------------------------------------------------------
# Stages (PL-8, PL-11, PL-14..PL-16)
# ----------------------------------------------------------------------------------------
def test_stage_1_any_box_any_order():
    # PL-14: after a throw every open box may be written; PL-11: lower boxes may be
    # scratched, a face box after a throw simply takes its formula value (Write)
    game = PolishGame()
    state = run(game, throw((1, 2, 3, 5, 5)))
    writes = [a.box for a in game.legal_actions(state) if isinstance(a, Write)]
    scratches = [a.box for a in game.legal_actions(state) if isinstance(a, Scratch)]
    assert writes == list(BOXES) and scratches == list(BOXES[6:])
    with pytest.raises(IllegalActionError, match=r"face box piątki takes its formula value: write piątki"):
        game.apply(state, Scratch("fives"))
    state = run(game, [Write("poker")], state)  # PL-10: no five of a kind, 0
    assert game.card(state, 0)["poker"] == 0
    with pytest.raises(IllegalActionError, match=r"poker is already written, with 0"):
        run(game, throw(FIVE_6S) + [Write("poker")], state)


def test_upper_scratch_forbidden():
    # pl.upper_scratch = forbidden: a face box needs at least one throw (PL-11)
    game = get_game("polish", {"pl.upper_scratch": "forbidden"})
    start = game.new_initial_state()
    assert Scratch("fours") not in game.legal_actions(start)
    assert Scratch("pair") in game.legal_actions(start)
    with pytest.raises(IllegalActionError, match=r"czwórki cannot be scratched before a throw under these rules"):
        game.apply(start, Scratch("fours"))
    # stage 3 starting with the 1s box: the only move is to throw
    assert game.legal_actions(at_stage(game, 3)) == [Keep(())]


def test_write_needs_a_throw():
    # PL-10: writing uses the current dice, so it needs a throw first
    game = PolishGame()
    with pytest.raises(IllegalActionError, match=r"write para is not possible before the first throw; scratch the box instead"):
        game.apply(game.new_initial_state(), Write("pair"))


STAGE_2_EXAMPLES = [
    # 4.4 ex. 4, first throw [1,2,3,5,5]: (declared box, kept, second roll, entry, fences)
    ("four_kind", (5, 5), (1, 2, 5), 0, 1),  # (a) no four equal dice: 0; t = 2 earns 1 fence
    ("small_straight", (1, 2, 3, 5), (4,), 15, 1),  # (b) a 4: 15 after the second throw, 1 fence
    ("fives", (5, 5), (1, 2, 5), 0, 1),  # (c) three 5s: 0
    ("fives", (5, 5), (1, 2, 3), -5, 1),  # (c) two 5s: -5
]


@pytest.mark.parametrize("box, kept, roll, entry, fences", STAGE_2_EXAMPLES)
def test_stage_2_worked_example_4(box, kept, roll, entry, fences):
    game = PolishGame()
    state = run(game, [Keep(()), (1, 2, 3, 5, 5)], at_stage(game, 2))
    # PL-15: right after the first throw he must declare one open box, and nothing else
    assert game.legal_actions(state) == [Declare(b) for b in BOXES]
    state = game.apply(state, Declare(box))
    assert {getattr(a, "box", None) for a in game.legal_actions(state)} == {None, box}
    for other in (Write("chance"), Scratch("chance"), Write("sixes")):
        declared, wrong = game.box_label(box), game.box_label(other.box)
        with pytest.raises(IllegalActionError, match=rf"in stage 2 only the declared box {declared} may be written, not {wrong}"):
            game.apply(state, other)
    state = run(game, [Keep(kept), roll, Write(box)], state)
    assert game.card(state, 0)[box] == entry and state.fences == (fences,)
    assert state.stage == 2 and state.declared is None


def test_stage_2_declared_box_written_from_hand_keeps_the_bonus():
    # PL-13 + PL-15: declaring does not spend a throw; writing right after the first throw
    # is from hand: [3,3,6,6,6] full = 72 (case 21)
    game = PolishGame()
    state = run(game, throw((3, 3, 6, 6, 6)) + [Declare("full_house"), Write("full_house")], at_stage(game, 2))
    assert game.card(state, 0)["full_house"] == 72 and state.fences == (2,)


def test_stage_2_scratch_before_throwing_and_declare_errors():
    # PL-15: before the first throw any open box may be scratched (+3 fences)
    game = PolishGame()
    start = at_stage(game, 2)
    assert {a.box for a in game.legal_actions(start) if isinstance(a, Scratch)} == set(BOXES)
    assert game.apply(start, Scratch("poker")).fences == (3,)
    with pytest.raises(IllegalActionError, match=r"declare para comes right after the first throw, not before it"):
        game.apply(start, Declare("pair"))
    with pytest.raises(IllegalActionError, match=r"declared only in stage 2.*stage 1"):
        run(game, throw(FIVE_6S) + [Declare("poker")])
    thrown = run(game, throw(FIVE_6S), start)
    with pytest.raises(IllegalActionError, match=r"declare a box right after the first throw, before write poker"):
        game.apply(thrown, Write("poker"))
    declared = game.apply(thrown, Declare("poker"))
    with pytest.raises(IllegalActionError, match=r"poker is already declared this turn, so declare para is not possible"):
        game.apply(declared, Declare("pair"))


def test_stage_3_fixed_order():
    # PL-16: the first open box in the order 1s, 2s, ..., chance
    game = PolishGame()
    start = at_stage(game, 3)
    assert game.legal_actions(start) == [Keep(()), Scratch("ones")]
    state = run(game, throw((1, 1, 1, 1, 6)) + [Write("ones")], start)
    assert game.card(state, 0)["ones"] == 1  # four 1s: +1 (PL-9)
    with pytest.raises(IllegalActionError, match=r"in stage 3 the next box in order is dwójki, not poker"):
        run(game, throw(FIVE_6S) + [Write("poker")], state)
    with pytest.raises(IllegalActionError, match=r"the next box in order is dwójki, not szóstki"):
        game.apply(state, Scratch("sixes"))


def test_card_and_stages_45_turns_each():
    # PL-8: 15 boxes per stage, one per turn, so 45 turns per player; stages follow when all
    # players have filled their card, and seat order continues
    game = PolishGame(num_players=2)
    state, history = random_walk(game, 7, 10_000, ALL_FULL_ACTIONS)
    assert game.is_terminal(state)
    fills = [(s.stage, s.player) for s, step in history if isinstance(step, (Write, Scratch))]
    assert len(BOXES) == 15
    assert [fills.count((s, p)) for s in (1, 2, 3) for p in (0, 1)] == [15] * 6
    assert [p for _, p in fills] == [0, 1] * 45


def test_totals_pl_17():
    # PL-17: stage total = faces + bonus + lower; the game total sums the three stages.
    # Stage cards built by hand for one player:
    # stage 1: faces all 0 (net 0, no bonus), pair 10 -> 10
    # stage 2: fours +4 (four 4s), lower 0 -> 4 + 50 = 54
    # stage 3: ones -3 (no 1), poker 90 (five 6s, PL-13) -> -3 - 20 + 90 = 67
    game = PolishGame()
    def card(**entries):
        return tuple(entries.get(b, 0) for b in BOXES)
    cards = ((card(pair=10),), (card(fours=4),), (card(ones=-3, poker=90),))
    final = PolishState(stage=3, player=0, cards=cards, fences=(0,))
    assert game.is_terminal(final)
    assert game.stage_totals(final) == ((10, 54, 67),)
    assert game.returns(final) == (131,)
    assert get_game("polish", {"pl.bonus_zero": "plus50"}).returns(final) == (181,)  # + 50 at net 0


def test_tiny_variant_full_game_in_a_dozen_lines():
    # small-variant parameters: a card of only "chance", three stages, one player: 3 turns
    game = get_game("polish", {"boxes": ["chance"]})
    state = game.new_initial_state()
    for step in [Keep(()), (1, 2, 3, 4, 6), Write("chance"),  # stage 1: 16, F = 2
                 Keep(()), (6, 6, 6, 6, 6), Declare("chance"), Keep((6, 6, 6, 6)), (5,),
                 Write("chance"),  # stage 2: 29 after two throws, F = 3
                 Scratch("chance")]:  # stage 3: 0 before throwing, F = 6
        assert step in game.legal_actions(state) or game.is_chance_node(state)
        state = game.apply(state, step)
    assert game.is_terminal(state) and game.legal_actions(state) == []
    assert game.stage_totals(state) == ((16, 29, 0),) and game.returns(state) == (45,)
    assert state.fences == (6,)


def test_stages_parameter():
    # stages = 1: the game ends after the stage-1 card (the free-order stage, PL-14)
    game = PolishGame(PolishRules(boxes=("pair", "poker"), stages=1), num_players=2)
    state = game.new_initial_state()
    for _ in range(4):
        state = game.apply(state, Scratch("pair" if game.card(state, state.player)["pair"] is None else "poker"))
    assert game.is_terminal(state) and game.returns(state) == (0, 0)


# ----------------------------------------------------------------------------------------
# The basic game (PL-4..PL-7)
# ----------------------------------------------------------------------------------------
def test_basic_full_game_in_a_dozen_lines():
    # PL-4: eight combinations, each recorded from hand here (PL-6, default multiplier 2):
    # pair 2, two pairs 2 x 12, three 2 x 9, small 2 x 15, large 2 x 20, full 2 x 24,
    # four 2 x 16, poker 2 x 25: total 2 + 24 + 18 + 30 + 40 + 48 + 32 + 50 = 244
    game = get_game("polish-basic")
    state = game.new_initial_state()
    script = [((1, 1, 2, 3, 4), "pair"), ((2, 2, 4, 4, 6), "two_pairs"), ((1, 2, 3, 3, 3), "three_kind"),
              ((1, 2, 3, 4, 5), "small_straight"), ((2, 3, 4, 5, 6), "large_straight"),
              ((3, 3, 6, 6, 6), "full_house"), ((1, 4, 4, 4, 4), "four_kind"), (FIVE_5S, "poker")]
    for dice, combo in script:
        state = game.apply(game.apply(game.apply(state, Keep(())), dice), Record(combo))
    assert game.is_terminal(state) and game.returns(state) == (244,)


def test_basic_recording_is_optional_and_one_per_turn():
    # PL-5: after any throw he may stop and record one new combination his dice show, or
    # end the turn without recording (no zero entries); recording ends the turn
    game = PolishBasicGame(num_players=2)
    state = run(game, throw((3, 3, 6, 6, 6)))
    records = [a.combo for a in game.legal_actions(state) if isinstance(a, Record)]
    assert records == ["pair", "two_pairs", "three_kind", "full_house"]
    assert EndTurn() in game.legal_actions(state)
    passed = game.apply(state, EndTurn())
    assert passed.player == 1 and passed.records == state.records and passed.dice is None
    recorded = game.apply(state, Record("full_house"))
    assert recorded.player == 1 and game.record_sheet(recorded, 0)["full_house"] == 48
    with pytest.raises(IllegalActionError, match=r"the dice 3 3 6 6 6 do not show poker"):
        game.apply(state, Record("poker"))
    with pytest.raises(IllegalActionError, match=r"there is no combination chance; the combinations are para, dwie pary, trójka, mały strit,"):  # PL-4: no chance
        game.apply(state, Record("chance"))
    with pytest.raises(IllegalActionError, match=r"the turn starts with a throw, so end turn is not possible before it"):
        game.apply(game.new_initial_state(), EndTurn())
    # his next turn: full is recorded, so it is no longer offered
    again = run(game, [Keep(()), (1, 2, 3, 4, 6), EndTurn()] + throw((3, 3, 6, 6, 6)), recorded)
    assert Record("full_house") not in game.legal_actions(again)
    with pytest.raises(IllegalActionError, match=r"ful is already recorded, with 48"):
        game.apply(again, Record("full_house"))


def test_basic_three_throws():
    # PL-5: up to three throws; no fences in the basic game (PL-4)
    game = PolishBasicGame()
    state = run(game, throw((1, 2, 3, 4, 6), (6,), (6,), keeps=[(1, 2, 3, 4)] * 2))
    assert state.throws == 3 and not any(isinstance(a, Keep) for a in game.legal_actions(state))
    with pytest.raises(IllegalActionError, match=r"no throws are left, 3 of 3 are used, so keep 1 is not possible"):
        game.apply(state, Keep((1,)))
    # [1,2,3,4,6] shows none of PL-3's eight combinations: only EndTurn (or throw again)
    assert [a for a in game.legal_actions(run(game, throw((1, 2, 3, 4, 6)))) if not isinstance(a, Keep)] == [EndTurn()]


def test_basic_record_mandatory():
    # pl.basic_record = mandatory: a turn cannot end without a record while the dice show a
    # new combination; throwing again is still allowed
    game = get_game("polish-basic", {"pl.basic_record": "mandatory"})
    state = run(game, throw((1, 1, 2, 3, 4)))
    assert EndTurn() not in game.legal_actions(state)
    assert Keep((1, 1)) in game.legal_actions(state)
    with pytest.raises(IllegalActionError, match=r"the dice 1 1 2 3 4 show new combinations, para: under these rules one must be recorded"):
        game.apply(state, EndTurn())
    nothing = run(game, throw((1, 2, 3, 4, 6)))
    assert EndTurn() in game.legal_actions(nothing)


def near_the_end(game, seat):
    """Seat ``seat`` lacks only poker; the others lack everything; his turn, dice five 6s."""
    rows = [(None,) * 8] * game.num_players
    rows[seat] = (2, 6, 3, 15, 20, 7, 4, None)
    state = PolishBasicState(player=seat, records=tuple(rows))
    return run(game, throw(FIVE_6S), state)


@pytest.mark.parametrize(
    "basic_end, players, seat, expected_turns_after",
    [
        ("finish_round", 3, 0, 2),  # PL-7: seats 1 and 2 complete the round
        ("finish_round", 3, 1, 1),
        ("finish_round", 3, 2, 0),  # the last seat: the round is over
        ("finish_round", 1, 0, 0),
        ("immediate", 3, 0, 0),  # pl.basic_end = immediate
    ],
)
def test_basic_game_end(basic_end, players, seat, expected_turns_after):
    game = PolishBasicGame(PolishBasicRules(basic_end=basic_end), num_players=players)
    state = game.apply(near_the_end(game, seat), Record("poker"))
    turns = 0
    while not game.is_terminal(state):
        state = run(game, [Keep(()), (1, 2, 3, 4, 6), EndTurn()], state)
        turns += 1
    assert turns == expected_turns_after
    # PL-7: totals of recorded values; 2+6+3+15+20+7+4 + poker 2 x 30 from hand (PL-6)
    assert game.returns(state)[seat] == 117


# ----------------------------------------------------------------------------------------
# Options, registry and errors
# ----------------------------------------------------------------------------------------
def test_registry_and_options():
    assert isinstance(get_game("polish", num_players=3), PolishGame)
    assert isinstance(get_game("polish-basic"), PolishBasicGame)
    rules = get_game("polish-basic", {"pl.basic_hand_mult": "3", "pl.basic_end": "immediate"}).rules
    assert (rules.basic_hand_mult, rules.basic_end) == (3, "immediate")
    rules = get_game("polish", {"boxes": "chance,pair", "stages": "2", "fence_cap": "4"}).rules
    assert (rules.boxes, rules.stages, rules.fence_cap) == (("pair", "chance"), 2, 4)  # card order
    assert PolishRules(boxes=["chance", "pair"]) == PolishRules(boxes=("pair", "chance"))
    assert PolishRules().variant_id() != PolishRules(bonus_zero="plus50").variant_id()


@pytest.mark.parametrize(
    "make, pattern",
    [
        (lambda: PolishRules(bonus_zero="maybe"), r"the rule option bonus_zero must be none or plus50, not maybe"),
        (lambda: PolishRules(upper_scratch="never"), r"the rule option upper_scratch must be minus_3f or forbidden, not never"),
        (lambda: PolishRules(boxes=("pair", "sevens")), r"the rule option boxes must name one or more different boxes out of ones, twos, threes,"),
        (lambda: PolishRules(boxes=()), r"the rule option boxes must name one or more different boxes out of ones, twos, threes,"),
        (lambda: PolishRules(stages=4), r"the rule option stages must be 1, 2 or 3, not 4"),
        (lambda: PolishRules(fence_cap=-1), r"the rule option fence_cap must be none or a whole number of at least 0, not \-1"),
        (lambda: PolishBasicRules(basic_hand_mult=4), r"the rule option basic_hand_mult must be 2, 1 or 3, not 4"),
        (lambda: PolishBasicRules(same_face_groups="maybe"), r"the rule option same_face_groups must be no or yes, not maybe"),
        (lambda: get_game("polish", {"pl.basic_end": "immediate"}), r"there is no rule option pl\.basic_end in this game; the options are bonus_zero, boxes,"),
        (lambda: base_value("straight", (1, 2, 3, 4, 5)), r"there is no combination straight; the combinations are pair, two_pairs, three_kind,"),
        (lambda: basic_value("chance", (1, 2, 3, 4, 5), True, PolishBasicRules()), r"there is no combination chance; the combinations are pair, two_pairs, three_kind,"),
        (lambda: face_entry(7, (1, 2, 3, 4, 5)), r"a face is from 1 to 6, not 7"),
    ],
)
def test_rules_errors_name_the_value(make, pattern):
    with pytest.raises(RulesError, match=pattern):
        make()


def test_dice_errors_name_the_value():
    with pytest.raises(DiceError, match=r"the dice must be values from 1 to 6, not 1 2 3 4 7"):
        box_value("chance", (1, 2, 3, 4, 7), False, PolishRules())
    game = PolishGame()
    pending = game.apply(game.new_initial_state(), Keep(()))
    with pytest.raises(DiceError, match=r"the roll must be 5 dice, not 1 2 3"):
        game.apply(pending, (1, 2, 3))
    with pytest.raises(DiceError, match=r"the kept dice must be values from 1 to 6, not 0"):
        Keep((0,))


def test_illegal_actions_name_the_value():
    game = PolishGame(PolishRules(boxes=("pair", "chance")))
    start = game.new_initial_state()
    with pytest.raises(IllegalActionError, match=r"there is no box sevens; the boxes are jedynki, dwójki, trójki, czwórki, piątki, szóstki,"):
        game.apply(start, Scratch("sevens"))
    with pytest.raises(IllegalActionError, match=r"poker is not on this card; the boxes are para, szansa"):
        game.apply(start, Scratch("poker"))
    with pytest.raises(IllegalActionError, match=r"that is not a move of this game; its moves are keep, write, scratch, declare"):
        game.apply(start, Record("pair"))
    thrown = run(game, throw((1, 2, 3, 5, 5)))
    with pytest.raises(IllegalActionError, match=r"the kept dice 6 are not among the dice 1 2 3 5 5"):
        game.apply(thrown, Keep((6,)))
    with pytest.raises(IllegalActionError, match=r"keeping all five dice 1 2 3 5 5 means stopping, not throwing"):
        game.apply(thrown, Keep((1, 2, 3, 5, 5)))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply(run(game, [Scratch("pair"), Scratch("chance")] * 3), Keep(()))
    with pytest.raises(IllegalActionError, match=r"there is no action type Fill in this game; the types are Declare, Keep, Scratch, Write"):
        game.action_from_json({"type": "Fill", "box": "pair"})


@pytest.mark.parametrize(
    "change, pattern",
    [
        (dict(fences=(-1,)), r"the fences must be 1 whole number of at least 0, not \-1"),
        (dict(fences=(4,)), r"player 1 holds 4 fences after only 1 turn; a turn earns 3 at most"),
        (dict(stage=4), r"the stage must be from 1 to 3, not 4"),
        (dict(player=1), r"the player to move must be one of the 1 players, not 1"),
        (dict(throws=7), r"the throws made must be from 0 to 6, not 7"),  # 3 + 3 fences
        (dict(throws=1), r"after 1 throw the dice must be on the table"),
        (dict(dice=(1, 2, 3, 4, 7), throws=1), r"the state field dice must be 5 dice listed from low to high, not 1 2 3 4 7"),
        (dict(dice=(5, 4, 3, 2, 1), throws=1), r"the state field dice must be 5 dice listed from low to high, not 5 4 3 2 1"),
        (dict(kept=(1, 2), dice=(1, 2, 3, 4, 5), throws=1), r"a roll is due, so no dice can be on the table"),
        (dict(declared="pair", dice=(1, 2, 3, 4, 5), throws=1), r"the declared box pair is impossible here: a box is declared in stage 2, after the first"),
    ],
)
def test_invalid_states_name_the_value(change, pattern):
    game = PolishGame()
    state = dataclasses.replace(game.apply(game.new_initial_state(), Scratch("chance")), **change)
    with pytest.raises(InvalidStateError, match=pattern):
        game.check_state(state)


def test_invalid_cards_name_the_value():
    game = PolishGame()
    start = game.new_initial_state()
    def with_card(stage, entries):
        cards = list(start.cards)
        cards[stage - 1] = (tuple(entries),)
        return dataclasses.replace(start, cards=tuple(cards))
    seven = with_card(1, [7] + [None] * 14)  # the 1s box holds (c - 3) x 1 in -3..2
    with pytest.raises(InvalidStateError, match=r"7 cannot be written in jedynki on the stage 1 card of player 1"):
        game.check_state(seven)
    with pytest.raises(InvalidStateError, match=r"70 cannot be written in poker on the stage 1 card of player 1"):  # 3 x sum: 15..90 by 15
        game.check_state(with_card(1, [None] * 13 + [70, None]))
    state3 = at_stage(game, 3)
    cards = state3.cards[:2] + (((None, 0) + (None,) * 13,),)
    with pytest.raises(InvalidStateError, match=r"the stage 3 card of player 1 is not written in order"):
        game.check_state(dataclasses.replace(state3, cards=cards))
    with pytest.raises(InvalidStateError, match=r"the stage 1 card of player 1 is unfinished in stage 2"):
        game.check_state(dataclasses.replace(start, stage=2))
    two = PolishGame(num_players=2)
    s = two.apply(two.new_initial_state(), Scratch("pair"))
    with pytest.raises(InvalidStateError, match=r"the boxes written in stage 1, 1 0, do not fit player 1 to play: each player writes one"):
        two.check_state(dataclasses.replace(s, player=0))
    with pytest.raises(InvalidStateError, match=r"the state was made under other rules of this game"):
        game.state_from_json({**game.state_to_json(start), "rules": PolishRules(stages=2).options()})


@pytest.mark.parametrize(
    "records, player, pattern",
    [
        (((0,) + (None,) * 7,), 0, r"0 cannot be recorded in para on the card of player 1"),  # PL-5: no zero entries
        (((5,) + (None,) * 7,), 0, r"5 cannot be recorded in para on the card of player 1"),  # pairs are 2f: even
        (((2, 6, 3, 15, 20, 7, 4, 5), (None,) * 8), 0, r"player 1 recorded every combination, yet player 1 still plays"),
    ],
)
def test_invalid_basic_states_name_the_value(records, player, pattern):
    game = PolishBasicGame(num_players=len(records))
    with pytest.raises(InvalidStateError, match=pattern):
        game.check_state(PolishBasicState(player=player, records=records, throws=1, dice=(1, 1, 2, 3, 4)))


def test_card_rules_the_solver_reads():
    # PL-9: net upper score from -3 x 21 to +2 x 21, the stage bonus (none on a card
    # without face boxes); PL-11: scratch entries; PL-14..PL-16: the box groups of a turn
    game = PolishGame()
    assert game.net_upper_range() == (-63, 42)
    assert (game.stage_bonus(1), game.stage_bonus(0), game.stage_bonus(-1)) == (50, 0, -20)
    assert PolishGame(PolishRules(boxes=("pair", "chance"))).stage_bonus(-5) == 0
    assert PolishGame(PolishRules(boxes=("fives", "pair"))).net_upper_range() == (-15, 10)
    assert (game.scratch_entry("fours"), game.scratch_entry("pair")) == (-12, 0)
    assert get_game("polish", {"pl.upper_scratch": "forbidden"}).scratch_entry("fours") is None
    full = (1 << 15) - 1
    assert game.box_groups(1, 0b101) == [full & ~0b101]
    assert game.box_groups(2, 0) == [1 << b for b in range(15)]
    assert game.box_groups(3, 0b11) == [0b100] and game.box_groups(3, full) == []
    stage2 = run(game, throw((1, 2, 3, 5, 5)), at_stage(game, 2))
    assert game.turn_boxes(stage2) == []  # the declaration is due
    assert game.turn_boxes(game.apply(stage2, Declare("fives"))) == ["fives"]
    assert game.turn_boxes(at_stage(game, 3)) == ["ones"]


def test_card_from_entries_takes_box_names_in_any_language():
    game = PolishGame()
    card = game.card_from_entries({"para": 10, "piątki": 5, "full_house": 24, "Chance": 20})
    named = {b: v for b, v in zip(game.card_boxes(), card) if v is not None}
    assert named == {"pair": 10, "fives": 5, "full_house": 24, "chance": 20}
    assert PolishBasicGame().card_from_entries({"ful": 48}) == (None,) * 5 + (48, None, None)
    with pytest.raises(InvalidStateError, match=r"there is no box chance on this card; the boxes are para, dwie pary, trójka, mały strit,"):
        PolishBasicGame().card_from_entries({"chance": 20})


# ----------------------------------------------------------------------------------------
# Properties of random legal play (hypothesis)
# ----------------------------------------------------------------------------------------
ALL_FULL_ACTIONS = (
    [Write(b) for b in BOXES] + [Scratch(b) for b in BOXES] + [Declare(b) for b in BOXES]
    + [Keep(()), Keep((6, 6)), Keep((1, 2, 3, 4, 5))]
)
ALL_BASIC_ACTIONS = [Record(c) for c in COMBINATIONS] + [EndTurn(), Keep(()), Keep((6, 6)), Keep((1, 2, 3, 4, 5))]

full_rules = st.builds(
    PolishRules,
    bonus_zero=st.sampled_from(["none", "plus50"]),
    upper_scratch=st.sampled_from(["minus_3f", "forbidden"]),
    same_face_groups=st.sampled_from(["no", "yes"]),
    boxes=st.lists(st.sampled_from(BOXES), min_size=1, max_size=4, unique=True),
    stages=st.integers(1, 3),
    fence_cap=st.sampled_from([None, 0, 2]),
)
basic_rules = st.builds(
    PolishBasicRules,
    basic_hand_mult=st.sampled_from([2, 1, 3]),
    basic_record=st.sampled_from(["optional", "mandatory"]),
    basic_end=st.sampled_from(["finish_round", "immediate"]),
    same_face_groups=st.sampled_from(["no", "yes"]),
)


def random_walk(game, seed, max_steps, candidates):
    """Random legal play, checking at every state: JSON round trip, the legal list is
    exactly the candidates that apply without error, the throw budget, fences >= 0."""
    rng = random.Random(seed)
    state, history = game.new_initial_state(), []
    for _ in range(max_steps):
        text = json.dumps(game.state_to_json(state))
        assert game.state_from_json(text) == state
        if game.is_terminal(state):
            break
        if game.is_chance_node(state):
            outcomes = game.chance_outcomes(state)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            step = rng.choices([o for o, _ in outcomes], weights=[p for _, p in outcomes])[0]
        else:
            legal = game.legal_actions(state)
            assert legal and len(set(legal)) == len(legal)
            for action in candidates if rng.random() < 0.2 else ():
                if action not in legal:
                    with pytest.raises(IllegalActionError):
                        game.apply(state, action)
            step = rng.choice(legal)
            assert game.action_from_json(json.dumps(game.action_to_json(step))) == step
        history.append((state, step))
        state = game.apply(state, step)
    return state, history


@settings(max_examples=40, deadline=None)
@given(rules=full_rules, players=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_random_full_games(rules, players, seed):
    game = PolishGame(rules, num_players=players)
    state, history = random_walk(game, seed, 3000, ALL_FULL_ACTIONS)
    assert game.is_terminal(state)
    for before, step in history:
        if game.is_chance_node(before):
            continue
        budget = 3 + before.fences[before.player]
        assert 0 <= before.throws <= budget  # PL-12: t may not exceed 3 + F
        after = game.apply(before, step)
        assert min(after.fences) >= 0
        if isinstance(step, (Write, Scratch)):  # PL-12: F <- F + 3 - t (capped for solvers)
            want = before.fences[before.player] + 3 - before.throws
            if rules.fence_cap is not None:
                want = min(want, rules.fence_cap)
            assert after.fences[before.player] == want
    # PL-17 recomputed from the final cards: faces, the PL-9 bonus if the card has faces, lower
    for seat in range(players):
        total = 0
        for stage_cards in state.cards:
            entries = dict(zip(rules.boxes, stage_cards[seat]))
            net = sum(v for b, v in entries.items() if b in FACE_BOXES)
            has_faces = any(b in FACE_BOXES for b in entries)
            bonus = 0
            if has_faces:
                bonus = 50 if net > 0 or (net == 0 and rules.bonus_zero == "plus50") else (-20 if net < 0 else 0)
            total += sum(entries.values()) + bonus
        assert game.returns(state)[seat] == total


@settings(max_examples=20, deadline=None)  # 300 steps each, every step checked
@given(rules=basic_rules, players=st.integers(1, 3), seed=st.integers(0, 2**32))
def test_random_basic_games(rules, players, seed):
    game = PolishBasicGame(rules, num_players=players)
    state, history = random_walk(game, seed, 300, ALL_BASIC_ACTIONS)
    for before, step in history:
        if not game.is_chance_node(before):
            assert before.throws <= 3  # PL-5
        if isinstance(step, Record):  # PL-5: one record, then the turn passes
            after = game.apply(before, step)
            changed = [(s, c) for s in range(players) for c in range(8) if before.records[s][c] != after.records[s][c]]
            assert changed == [(before.player, COMBINATIONS.index(step.combo))]
            assert after.player == (before.player + 1) % players and after.throws == 0


# ----------------------------------------------------------------------------------------
# One behaviour check per PL rule: each fails when the engine breaks the rule it names
# ----------------------------------------------------------------------------------------
def _first_open(game, state):
    return next(b for b, v in game.card(state, state.player).items() if v is None)


def _pl_1():
    # five dice (252 sorted outcomes of the first throw); any number of players, in seat order
    for players in (1, 6):
        game = PolishGame(num_players=players)
        assert len(game.chance_outcomes(game.apply(game.new_initial_state(), Keep(())))) == 252
    basic = PolishBasicGame(num_players=3)
    assert run(basic, throw((1, 2, 3, 4, 6)) + [EndTurn()]).player == 1


def _pl_2():
    # the first throw is with all five; then keep any subset and throw the rest; the basic
    # game allows 3 throws, the full game 3 + F
    game = PolishGame()
    with pytest.raises(IllegalActionError):
        game.apply(game.new_initial_state(), Keep((5,)))
    kept = game.apply(run(game, throw((1, 2, 2, 3, 3))), Keep((2, 2)))
    assert len(game.chance_outcomes(kept)) == 56  # three dice thrown again: C(8, 3)
    assert game.apply(kept, (6, 1, 4)).dice == (1, 2, 2, 4, 6)
    basic = PolishBasicGame()
    third = run(basic, throw((1, 2, 3, 4, 6), (6,), (6,), keeps=[(1, 2, 3, 4)] * 2))
    assert not any(isinstance(a, Keep) for a in basic.legal_actions(third))
    two_fences = dataclasses.replace(run(game, [Scratch("chance")]), fences=(2,))
    fifth = run(game, throw((1, 2, 3, 4, 6), *[(6,)] * 4, keeps=[(1, 2, 3, 4)] * 4), two_fences)
    assert fifth.throws == 5 and not any(isinstance(a, Keep) for a in game.legal_actions(fifth))


def _pl_3():
    # base values, best fit; two pairs and full need different faces (same_face_groups = no)
    assert base_value("two_pairs", (3, 3, 6, 6, 6)) == 18 and base_value("full_house", (3, 3, 6, 6, 6)) == 24
    assert base_value("full_house", (1, 1, 1, 2, 2)) == 7  # the smallest possible full
    assert base_value("four_kind", (1, 4, 4, 4, 4)) == 16 and base_value("poker", FIVE_5S) == 25
    assert base_value("small_straight", (1, 2, 3, 4, 5)) == 15 and base_value("large_straight", (2, 3, 4, 5, 6)) == 20
    assert base_value("full_house", FIVE_6S) == 0 and base_value("two_pairs", FIVE_6S) == 0
    assert base_value("pair", FIVE_6S) == 12 and base_value("chance", (1, 1, 2, 3, 6)) == 13


def _pl_4():
    # the basic game collects the eight combinations: no face boxes, no chance, no fences
    game = PolishBasicGame()
    assert game.card_boxes() == ("pair", "two_pairs", "three_kind", "small_straight", "large_straight",
                                 "full_house", "four_kind", "poker")
    state = run(game, throw((1, 2, 3, 4, 5)))
    assert Record("small_straight") in game.legal_actions(state)
    with pytest.raises(IllegalActionError):
        game.apply(state, Record("chance"))
    assert not hasattr(game.new_initial_state(), "fences")


def _pl_5():
    # after any throw he may record one new combination his dice show, or end the turn
    # without a record (no zero entries); a record ends the turn
    game = PolishBasicGame(num_players=2)
    state = run(game, throw((3, 3, 6, 6, 6)))
    assert EndTurn() in game.legal_actions(state) and Record("poker") not in game.legal_actions(state)
    passed = game.apply(state, EndTurn())
    assert passed.records == state.records and passed.player == 1
    recorded = game.apply(state, Record("full_house"))
    assert recorded.player == 1 and [v is not None for v in recorded.records[0]].count(True) == 1


def _pl_6():
    # from hand (basic): a pair is never boosted, two pairs double, the others x basic_hand_mult (2)
    game = PolishBasicGame()
    for dice, combo, entry in [((1, 2, 3, 4, 4), "pair", 8), ((2, 2, 4, 4, 6), "two_pairs", 24),
                               ((1, 2, 5, 5, 5), "three_kind", 30)]:
        assert game.record_sheet(run(game, throw(dice) + [Record(combo)]), 0)[combo] == entry
    later = run(game, throw((1, 2, 5, 5, 6), (5,), keeps=[(1, 2, 5, 5)]) + [Record("three_kind")])
    assert game.record_sheet(later, 0)["three_kind"] == 15


def _pl_7():
    # the game ends when a player has all eight, once the round is completed (finish_round)
    game = PolishBasicGame(num_players=3)
    state = game.apply(near_the_end(game, 0), Record("poker"))
    for _ in range(2):
        assert not game.is_terminal(state)
        state = run(game, [Keep(()), (1, 2, 3, 4, 6), EndTurn()], state)
    assert game.is_terminal(state) and game.returns(state) == (117, 0, 0)


def _pl_8():
    # each stage is a fresh card of 15 boxes, one box per turn; the stage ends when every
    # player has filled his card
    game = PolishGame(num_players=2)
    assert len(game.card_boxes()) == 15
    state = game.new_initial_state()
    for turn in range(30):
        assert state.stage == 1 and state.player == turn % 2
        state = game.apply(state, Scratch(_first_open(game, state)))
    assert state.stage == 2 and all(v is None for v in game.card(state, 0).values())


def _pl_9():
    # face entry (c - 3) x f; stage bonus +50 above 0, -20 below, none at exactly 0
    game = PolishGame()
    assert game.card(run(game, throw((1, 2, 3, 4, 6)) + [Write("ones")]), 0)["ones"] == -2
    assert game.card(run(game, throw((1, 1, 1, 1, 6)) + [Write("ones")]), 0)["ones"] == 1
    faces = dict(ones=0, twos=0, threes=0, fours=0, fives=0, sixes=0)
    assert [stage_total({**faces, "fives": net}, PolishRules()) for net in (5, 0, -5)] == [55, 0, -25]


def _pl_10():
    # writing: a face box gets its formula value, a lower box its value or 0 if not shown
    game = PolishGame()
    state = run(game, throw((1, 2, 3, 5, 5)))
    assert game.card(game.apply(state, Write("fives")), 0)["fives"] == -5
    assert game.card(game.apply(state, Write("poker")), 0)["poker"] == 0
    assert game.card(game.apply(state, Write("pair")), 0)["pair"] == 10


def _pl_11():
    # scratching: a lower box 0; a face box before any throw -3f; after a throw a face box
    # only takes its formula value
    game = PolishGame()
    start = game.new_initial_state()
    assert game.card(game.apply(start, Scratch("fours")), 0)["fours"] == -12
    assert game.card(game.apply(start, Scratch("poker")), 0)["poker"] == 0
    thrown = run(game, throw((1, 2, 3, 5, 5)))
    assert game.card(game.apply(thrown, Scratch("chance")), 0)["chance"] == 0
    assert Scratch("fives") not in game.legal_actions(thrown)


def _pl_12():
    # fences: F becomes F + 3 - t; the budget is 3 + F
    game = PolishGame()
    state = game.apply(game.new_initial_state(), Scratch("chance"))
    assert state.fences == (3,) and game.budget(state) == 6
    state = run(game, throw((1, 2, 3, 4, 6), (6,), keeps=[(1, 2, 3, 4)]) + [Write("pair")], state)
    assert state.fences == (4,)  # 3 + 3 - 2
    state = run(game, throw((1, 2, 3, 4, 6), *[(6,)] * 4, keeps=[(1, 2, 3, 4)] * 4) + [Write("sixes")], state)
    assert state.fences == (2,)  # 4 + 3 - 5: two fences spent


def _pl_13():
    # from hand (full game): full and four of a kind x3, poker 3 x the sum (6 x from hand)
    game = PolishGame()
    for dice, box, hand, later in [((3, 3, 6, 6, 6), "full_house", 72, 24), ((1, 4, 4, 4, 4), "four_kind", 48, 16),
                                   (FIVE_5S, "poker", 150, 75), ((1, 2, 3, 4, 5), "small_straight", 15, 15)]:
        assert game.card(run(game, throw(dice) + [Write(box)]), 0)[box] == hand
        second = run(game, throw(dice, dice[4:], keeps=[dice[:4]]) + [Write(box)])
        assert game.card(second, 0)[box] == later


def _pl_14():
    # stage 1: the boxes in any order
    game = PolishGame()
    state = run(game, throw(FIVE_6S))
    assert [a.box for a in game.legal_actions(state) if isinstance(a, Write)] == list(BOXES)
    state = run(game, [Write("poker")] + throw((1, 1, 1, 2, 2)) + [Write("ones")], state)
    assert game.card(state, 0)["poker"] == 180 and game.card(state, 0)["ones"] == 0  # poker from hand, PL-13


def _pl_15():
    # stage 2: scratch any open box before the first throw, or declare one right after it
    # and fill only that box
    game = PolishGame()
    start = at_stage(game, 2)
    assert {a.box for a in game.legal_actions(start) if isinstance(a, Scratch)} == set(BOXES)
    thrown = run(game, [Keep(()), (1, 2, 3, 5, 5)], start)
    assert game.legal_actions(thrown) == [Declare(b) for b in BOXES]
    declared = game.apply(thrown, Declare("four_kind"))
    assert {getattr(a, "box", None) for a in game.legal_actions(declared)} == {None, "four_kind"}


def _pl_16():
    # stage 3: the first open box in card order
    game = PolishGame()
    start = at_stage(game, 3)
    assert game.legal_actions(start) == [Keep(()), Scratch("ones")]
    state = run(game, throw(FIVE_6S), start)
    assert [a for a in game.legal_actions(state) if not isinstance(a, Keep)] == [Write("ones")]


def _pl_17():
    # stage total = face entries + bonus + lower entries; the game total sums the stages
    game = PolishGame()
    cards = tuple((tuple(entries.get(b, 0) for b in BOXES),)
                  for entries in ({"pair": 10}, {"fours": 4}, {"ones": -3, "poker": 90}))
    final = PolishState(stage=3, player=0, cards=cards, fences=(0,))
    assert game.stage_totals(final) == ((10, 54, 67),) and game.returns(final) == (131,)


PL_RULE_CHECKS = {f"PL-{n}": check for n, check in enumerate(
    [_pl_1, _pl_2, _pl_3, _pl_4, _pl_5, _pl_6, _pl_7, _pl_8, _pl_9, _pl_10, _pl_11, _pl_12, _pl_13, _pl_14,
     _pl_15, _pl_16, _pl_17], start=1)}


def _pl_rule_ids() -> list[str]:
    if RULES_MD.exists():
        return sorted(set(re.findall(r"\*\*(PL-\d+)\*\*", RULES_MD.read_text(encoding="utf-8"))),
                      key=lambda i: int(i[3:]))
    return [f"PL-{n}" for n in range(1, 18)]  # pragma: no cover - the rules file lives outside the repository


def test_every_pl_rule_has_a_behaviour_check():
    assert list(PL_RULE_CHECKS) == _pl_rule_ids()


@pytest.mark.parametrize("rule", _pl_rule_ids())
def test_pl_rule(rule):
    PL_RULE_CHECKS[rule]()
