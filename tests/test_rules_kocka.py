"""KOCKA rules engine (RULES.md section 1): scoring, turns, series, game end, options.

Expected values come from RULES.md (tables, reference cases 1-13 of section 7, worked
examples 1-7 of section 1.6), from hand arithmetic on those rules, or from brute-force
enumeration of all 6^n ordered rolls with an independent scoring check written here.
Every rule id of section 1 also has an example played through the engine in
tests/data/rule_examples/kocka.json (tests/test_games_api.py).
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kocka.solver.base.dice import all_outcomes, outcome_distribution, sub_multisets
from kocka.solver.base.i18n import use_language
from kocka.solver.base.errors import DiceError, IllegalActionError, InvalidStateError, RulesError
from kocka.solver.rules import get_game
from kocka.solver.rules.kocka import (
    Bank, KockaGame, KockaState, NameJoker, Roll, SetAside, StartSeries, TakeSeries,
)
from kocka.solver.rules.kocka_scoring import (
    STRAIGHT, KockaRules, best_score, is_full, scores, series_allowed_from, series_matches, series_starts,
    series_value, set_aside_value, unscored_reason, valid_set_asides,
)

J = NameJoker  # short names for the scripted games below
S = SetAside
SS = StartSeries
T = TakeSeries


def game_with(players: int = 2, **options) -> KockaGame:
    return get_game("kocka", options, num_players=players)


def run(game: KockaGame, state: KockaState, steps) -> KockaState:
    """Apply ``steps``: a tuple of ints is a roll outcome, an action is a decision, a dict
    holds expectations about the state reached so far (fields, ``legal``,
    ``legal_includes``, ``legal_excludes``, ``returns``)."""
    for step in steps:
        if isinstance(step, dict):
            for key, want in step.items():
                if key == "legal":
                    assert game.legal_actions(state) == list(want), state
                elif key == "legal_includes":
                    assert set(want) <= set(game.legal_actions(state)), state
                elif key == "legal_excludes":
                    assert not set(want) & set(game.legal_actions(state)), state
                elif key == "returns":
                    assert game.returns(state) == pytest.approx(want)
                else:
                    assert getattr(state, key) == want, (key, state)
        else:
            state = game.apply(state, step)
    return state


# ---------------------------------------------------------------------------------------
# Scoring: the KOCKA-5 table, reference cases 1-8, brute force against an independent check
# ---------------------------------------------------------------------------------------
# KOCKA-5 "value of k dice of one face in one roll", k = 1..6, transcribed from RULES.md;
# 0 stands for "–", and a "3 used" cell is the value of its three dice.
PRINTED_FACE_TABLE = {
    1: (100, 200, 1000, 1100, 1200, 2000),
    5: (50, 100, 500, 550, 600, 1000),
    2: (0, 0, 200, 200, 200, 400),
    3: (0, 0, 300, 300, 300, 600),
    4: (0, 0, 400, 400, 400, 800),
    6: (0, 0, 600, 600, 600, 1200),
}
THREE_USED_OR_WORTHLESS = {(f, k) for f in (2, 3, 4, 6) for k in (1, 2, 4, 5)}


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_face_table_of_kocka_5(face):
    # KOCKA-5: k dice of one face rolled together (the roll is just those k dice)
    for k, printed in enumerate(PRINTED_FACE_TABLE[face], start=1):
        roll = (face,) * k
        assert best_score(roll) == printed, roll
        if (face, k) in THREE_USED_OR_WORTHLESS:
            # KOCKA-6: only 0, 3 or 6 dice of a 2/3/4/6 can be set aside
            assert set_aside_value(roll, 6) is None, roll
        else:
            assert set_aside_value(roll, 6) == printed, roll


# RULES.md section 7, reference cases 1-8: (case, roll, the set-aside named, points, full)
REFERENCE_SCORING = [
    (1, (1, 1, 1, 1, 3, 6), (1, 1, 1, 1), 1100, False, "KOCKA-5, KOCKA-7"),
    (2, (5, 5, 5, 5, 5, 5), (5, 5, 5, 5, 5, 5), 1000, True, "KOCKA-5, KOCKA-11"),
    (3, (1, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 1), 2000, True, "KOCKA-5, KOCKA-19"),
    (4, (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6), 1500, True, "KOCKA-5"),
    (5, (2, 2, 2, 2, 3, 4), (2, 2, 2), 200, False, "KOCKA-6"),
    (6, (2, 2, 2, 3, 3, 3), (2, 2, 2, 3, 3, 3), 500, True, "KOCKA-6, KOCKA-7"),
    (7, (1, 1, 2, 2, 3, 3), (1, 1), 200, False, "KOCKA-5"),
    (8, (1, 1, 5, 5, 5, 5), (1, 1, 5, 5, 5, 5), 750, True, "KOCKA-5, KOCKA-7"),
]


@pytest.mark.parametrize("case, roll, taken, points, full, rule_ids", REFERENCE_SCORING,
                         ids=[f"ref-{c[0]}" for c in REFERENCE_SCORING])
def test_reference_cases_1_to_8(case, roll, taken, points, full, rule_ids):
    assert set_aside_value(taken, len(roll)) == points
    assert best_score(roll) == points  # the named use is the best one
    assert is_full(roll) is full
    assert (taken, points) in valid_set_asides(roll)
    # in the engine (a below-2500 opening roll), a full roll must be set aside whole (KOCKA-10)
    game = game_with()
    state = game.apply(game.new_initial_state(), roll)
    legal = game.legal_actions(state)
    if full:
        assert legal == [SetAside(roll)]
    else:
        assert SetAside(taken) in legal and SetAside(roll) not in legal


def test_reference_case_5_fourth_two_cannot_be_taken():
    # KOCKA-6: "the fourth 2 stays"
    assert set_aside_value((2, 2, 2, 2), 6) is None
    assert [d for d, _ in valid_set_asides((2, 2, 2, 2, 3, 4))] == [(2, 2, 2)]


# Independent scoring check for brute force: per-face values from the printed table above,
# with the KOCKA-6 validity rule (a 2/3/4/6 only 0, 3 or 6 times).
def reference_value(subset, roll_size, straight_ok=True):
    if not subset:
        return None
    if straight_ok and roll_size == 6 and sorted(subset) == [1, 2, 3, 4, 5, 6]:
        return 1500
    total = 0
    for face in range(1, 7):
        k = list(subset).count(face)
        if k == 0:
            continue
        if (face, k) in THREE_USED_OR_WORTHLESS:
            return None
        total += PRINTED_FACE_TABLE[face][k - 1]
    return total


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_every_set_aside_of_every_roll_by_brute_force(n):
    # KOCKA-6, KOCKA-7: all sub-multisets of all sorted rolls, against reference_value
    for roll in all_outcomes(n):
        want = {}
        for subset in sub_multisets(roll):
            v = reference_value(subset, n)
            if v is not None:
                want[subset] = v
        got = dict(valid_set_asides(roll))
        assert got == want, roll
        assert is_full(roll) == (roll in want), roll
        assert best_score(roll) == max(want.values(), default=0), roll
        assert scores(roll) == bool(want), roll


def independent_bust(roll) -> bool:
    # KOCKA-9 for a below-2500 player: no 1, no 5, no three of a kind, not a straight
    c = [roll.count(f) for f in range(1, 7)]
    straight = sorted(roll) == [1, 2, 3, 4, 5, 6]
    return c[0] == 0 and c[4] == 0 and max(c) < 3 and not straight


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_bust_probability_equals_enumeration_of_ordered_rolls(n):
    # KOCKA-9: count the 6^n ordered rolls that bust, against chance_outcomes + apply
    busts = sum(independent_bust(r) for r in itertools.product(range(1, 7), repeat=n))
    expected = busts / 6**n
    game = game_with()
    state = game.new_initial_state() if n == 6 else KockaState(
        scores=(0, 0), turn_total=50 * (6 - n), dice_in_play=n, last_event="roll_on")
    outcomes = game.chance_outcomes(state)
    assert outcomes == list(outcome_distribution(n))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
    got = sum(p for roll, p in outcomes if game.apply(state, roll).last_event == "bust")
    assert got == pytest.approx(expected, abs=1e-12)
    if n == 6:
        # by hand: faces {2,3,4,6} at most twice each: 4*6!/2!^3 + 6*6!/(2!2!) = 1440 rolls
        assert busts == 1440


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_series_bust_probability_by_enumeration(n):
    # KOCKA-15: with n dice left in a series of 4s, a roll busts iff it shows no 4;
    # KOCKA-18: the last die with a joker busts iff it is neither 4 nor the joker
    game = game_with()
    # (one die left without a joker: the player declined to name one, KOCKA-18)
    state = KockaState(scores=(3000, 0), dice_in_play=n, series=(4, 6 - n),
                       last_event="series" if n > 1 else "roll_on")
    busts = sum(4 not in r for r in itertools.product(range(1, 7), repeat=n))
    got = sum(p for roll, p in game.chance_outcomes(state) if game.apply(state, roll).last_event == "bust")
    assert got == pytest.approx(busts / 6**n, abs=1e-12)
    if n == 1:
        joker = KockaState(scores=(3000, 0), dice_in_play=1, series=(4, 5), joker=2, last_event="joker")
        got = sum(p for roll, p in game.chance_outcomes(joker) if game.apply(joker, roll).last_event == "bust")
        assert got == pytest.approx(4 / 6, abs=1e-12)  # faces 1, 3, 5, 6


def test_opening_roll_of_a_2500_player_never_busts():
    # KOCKA-9, KOCKA-14: every roll shows some face, so a series can always start
    game = game_with()
    state = KockaState(scores=(2500, 0))
    for roll, _ in game.chance_outcomes(state):
        after = game.apply(state, roll)
        assert after.last_event == "rolled"
        assert StartSeries(roll[0], 1) in game.legal_actions(after)


def test_combinations_never_span_rolls():
    # KOCKA-4: three 5s taken one per roll are 3 x 50, not 500
    game = game_with()
    end = run(game, game.new_initial_state(), [
        (2, 3, 4, 4, 5, 6), S((5,)), Roll(), (2, 3, 4, 5, 6), S((5,)), Roll(), (2, 3, 5, 6), S((5,)),
    ])
    assert end.turn_total == 150
    assert best_score((5, 5, 5)) == 500


def test_series_helpers():
    # KOCKA-17 values; KOCKA-14/15/18 dice counts
    assert [series_value(f) for f in range(1, 7)] == [10000, 2000, 3000, 4000, 5000, 6000]
    assert series_matches((1, 6), 6) == 1
    assert series_matches((3,), 6, joker=3) == 1
    assert series_matches((3, 3), 6, joker=3) == 0  # the joker is for the last die only
    assert series_starts((1, 4, 4, 4, 5, 6)) == [(1, 1), (4, 1), (4, 2), (4, 3), (5, 1), (6, 1)]


# ---------------------------------------------------------------------------------------
# Scripted games: worked examples 1-7 (section 1.6) and reference cases 9-13 (section 7)
# ---------------------------------------------------------------------------------------
BELOW = dict(scores=(0, 0))
HIGH = dict(scores=(3000, 0))

SCRIPTED = [
    pytest.param(BELOW, [
        (1, 2, 3, 4, 5, 6), {"legal": [S(STRAIGHT)]},
        S(STRAIGHT), {"turn_total": 1500, "stage": "roll", "dice_in_play": 6, "last_event": "full",
                      "is_compulsory": True},
        (2, 3, 4, 5, 5, 6), S((5, 5)), {"turn_total": 1600, "legal": [Bank(), Roll()]},
        Bank(), {"scores": (1600, 0), "player": 1, "last_event": "bank"},
    ], id="1.6-1 straight, then the compulsory re-roll: 1600 (KOCKA-5, KOCKA-11, KOCKA-12)"),
    pytest.param(BELOW, [
        (2, 3, 4, 6, 6, 6), S((6, 6, 6)), {"turn_total": 600, "dice_in_play": 3},
        Roll(), (3, 3, 3), {"legal": [S((3, 3, 3))]},
        S((3, 3, 3)), {"turn_total": 900, "stage": "roll", "dice_in_play": 6, "last_event": "full"},
    ], id="1.6-2 full over two rolls: 900 (KOCKA-7, KOCKA-11)"),
    pytest.param(BELOW, [
        (1, 1, 1, 2, 5, 5), {"legal_excludes": [S((1, 1, 1, 2, 5, 5))]},
        S((1, 1, 1, 5, 5)), {"turn_total": 1100, "legal": [Bank(), Roll()]},
        Bank(), {"scores": (1100, 0)},
    ], id="1.6-3 the cautious bank: 1100 (KOCKA-12)"),
    pytest.param(HIGH, [
        (1, 1, 1, 2, 5, 5), {"legal_includes": [SS(1, 3), S((1, 1, 1)), S((1, 1, 1, 5, 5))]},
        S((1, 1, 1)), {"turn_total": 1000, "dice_in_play": 3, "stage": "bank_or_roll"},
    ], id="1.6-3 third choice: 1,1,1 normally and roll three (KOCKA-10)"),
    pytest.param(HIGH, [
        (1, 1, 1, 2, 5, 5), SS(1, 3), {"turn_total": 0, "dice_in_play": 3, "series": (1, 3)},
        (1, 1, 4), T(2), {"stage": "joker", "legal_excludes": [Bank()]},
        J(2), (2,), T(1), {"turn_total": 10000, "last_event": "series_complete", "dice_in_play": 6},
        (1, 2, 2, 3, 4, 6), {"stage": "over", "winners": (0,), "scores": (13000, 0),
                             "last_event": "six_ones", "returns": (1.0, 0.0)},
    ], id="1.6-3 bold: series of 1s worth 10000 and the game (KOCKA-17, KOCKA-18, KOCKA-19)"),
    pytest.param(HIGH, [
        (1, 1, 1, 2, 5, 5), SS(1, 3), (2, 3, 4),
        {"last_event": "bust", "scores": (3000, 0), "player": 1, "turn_total": 0},
    ], id="1.6-3 bold: a roll with no 1 loses everything (KOCKA-15)"),
    pytest.param(HIGH, [
        (1, 4, 4, 4, 5, 6), SS(4, 3), {"series": (4, 3), "dice_in_play": 3},
        (1, 4, 4), {"legal": [T(1), T(2)]}, T(2), {"series": (4, 5), "stage": "joker"},
        J(2), (2,), {"legal": [T(1)]}, T(1), {"turn_total": 4000, "is_compulsory": True},
        (1, 2, 3, 3, 4, 6), {"legal_excludes": [SS(3, 2)]},
        S((1,)), {"turn_total": 4100, "legal": [Bank(), Roll()], "series": None},
    ], id="1.6-4 joker completes a series of 4s: 4000, re-roll +100 (KOCKA-17, KOCKA-18)"),
    pytest.param(HIGH, [
        (1, 4, 4, 4, 5, 6), SS(4, 3), (1, 4, 4), T(2), J(2), (2,), T(1), (2, 3, 3, 4, 6, 6),
        {"last_event": "bust", "scores": (3000, 0), "player": 1},
    ], id="1.6-4 the re-roll busts and the 4000 is lost (KOCKA-17)"),
    pytest.param(dict(scores=(4000, 0)), [
        (2, 3, 3, 4, 6, 6), SS(6, 2), (1, 2, 3, 5),
        {"last_event": "bust", "scores": (4000, 0), "player": 1},
    ], id="1.6-5 csocs: no 6 busts despite the 1 and the 5 (KOCKA-15)"),
    pytest.param(HIGH, [
        (2, 3, 3, 4, 6, 6), SS(6, 2), (2, 3, 6, 6), T(2), (1, 6), {"legal": [T(1)]},
        T(1), {"stage": "joker", "series": (6, 5), "turn_total": 0,
               "legal": [J(1), J(2), J(3), J(4), J(5), Roll()]},
    ], id="1.6-6 an unfinished series cannot be banked (KOCKA-16, KOCKA-18)"),
    pytest.param(BELOW, [
        (2, 3, 3, 4, 5, 6), {"legal": [S((5,))]},
        S((5,)), {"turn_total": 50, "legal": [Roll()]},
        Roll(), {"stage": "roll", "dice_in_play": 5},
    ], id="1.6-7 minimum bank: 50 < 350, roll five again (KOCKA-13)"),
    # reference cases 9-13 (section 7)
    pytest.param(BELOW, [
        (2, 3, 3, 4, 6, 6), {"last_event": "bust", "scores": (0, 0), "player": 1, "turn_total": 0},
    ], id="ref-9 below 2500 opening roll busts (KOCKA-9)"),
    pytest.param(dict(scores=(2500, 0)), [
        (2, 3, 3, 4, 6, 6), {"stage": "set_aside", "legal_includes": [SS(6, 2)]},
        SS(6, 2), {"turn_total": 0, "dice_in_play": 4, "series": (6, 2), "stage": "roll"},
    ], id="ref-10 2500+ starts a series of 6s instead (KOCKA-14, KOCKA-16)"),
    pytest.param(dict(scores=(0, 0), dice_in_play=2, turn_total=400, last_event="roll_on"), [
        (1, 5), {"legal": [S((1, 5))]},
        S((1, 5)), {"turn_total": 550, "dice_in_play": 6, "last_event": "full", "stage": "roll"},
    ], id="ref-11 two dice [1,5]: both, full, roll six (KOCKA-7, KOCKA-11)"),
    pytest.param(dict(scores=(3000, 0), dice_in_play=1, series=(3, 5), joker=2, last_event="joker"), [
        (2,), T(1), {"turn_total": 3000, "series": (3, 6), "last_event": "series_complete"},
    ], id="ref-12 series of 3s completed with a joker: 3000 (KOCKA-17, KOCKA-18)"),
    pytest.param(dict(scores=(3000, 0), dice_in_play=1, series=(3, 5), last_event="roll_on"), [
        (3,), T(1), {"turn_total": 3000, "series": (3, 6)},
    ], id="ref-12 series of 3s completed without a joker: 3000 (KOCKA-17)"),
    pytest.param(dict(scores=(2500, 0), dice_in_play=1, series=(1, 5), joker=6, last_event="joker"), [
        (1,), T(1), {"turn_total": 10000},
        (2, 3, 4, 5, 6, 6), {"stage": "over", "scores": (12500, 0), "winners": (0,)},
    ], id="ref-13 six 1s: 10000, and the win when the re-roll scores (KOCKA-19)"),
]


@pytest.mark.parametrize("start, steps", SCRIPTED)
def test_scripted_examples(start, steps):
    game = game_with()
    run(game, KockaState(**start), steps)


# ---------------------------------------------------------------------------------------
# Turn structure, phase, game end
# ---------------------------------------------------------------------------------------
def test_initial_state_and_single_player_mode():
    # KOCKA-1 (scores start at 0; one seat for analysis), KOCKA-8 (six dice, total 0)
    game = game_with(players=1)
    state = game.new_initial_state()
    assert state.scores == (0,) and state.turn_total == 0 and state.dice_in_play == 6
    assert game.is_chance_node(state) and state.is_opening
    # one seat: the game ends as soon as the target is reached (KOCKA-1, KOCKA-3)
    near = KockaState(scores=(9800,), stage="bank_or_roll", turn_total=200, dice_in_play=5,
                      last_event="set_aside")
    over = game.apply(near, Bank())
    assert game.is_terminal(over) and over.scores == (10000,) and game.returns(over) == (1.0,)
    # below the target the lone player just starts a new turn
    again = game.apply(KockaState(scores=(100,), stage="bank_or_roll", turn_total=400, dice_in_play=2,
                                  last_event="set_aside"), Bank())
    assert again.scores == (500,) and again.player == 0 and again.is_opening


def test_phase_is_fixed_at_turn_start():
    # KOCKA-2: 2450 is below 2500 for the whole turn, even with 1000 in the turn total
    game = game_with()
    state = run(game, KockaState(scores=(2450, 0)), [(1, 1, 1, 2, 3, 4)])
    assert game.phase(state) == "below_2500"
    assert not any(isinstance(a, StartSeries) for a in game.legal_actions(state))
    state = game.apply(state, S((1, 1, 1)))
    assert game.phase(state) == "below_2500"
    # after banking, seat 0 is 2500+ from his next turn: 2450 + 1000 = 3450
    state = run(game, state, [Bank(), (2, 3, 3, 4, 6, 6)])  # seat 1 busts
    state = game.apply(state, (2, 3, 3, 4, 6, 6))
    assert state.scores == (3450, 0) and game.phase(state) == "2500+"
    assert StartSeries(6, 2) in game.legal_actions(state)


def test_bank_passes_the_turn_and_reaching_the_target_wins():
    # KOCKA-3, KOCKA-12, KOCKA-20 (immediate): 9700 + 300 = 10000 ends the game
    game = game_with()
    state = KockaState(scores=(0, 9700), player=1, stage="bank_or_roll", turn_total=300, dice_in_play=3,
                       last_event="set_aside")
    over = game.apply(state, Bank())
    assert over.stage == "over" and over.winners == (1,) and over.scores == (0, 10000)
    assert game.returns(over) == (0.0, 1.0)
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.apply(over, Roll())


def test_full_two_player_game_with_the_public_api():
    # KOCKA-1..20 through legal_actions / apply / chance_outcomes only: this is the whole loop.
    game, rng = get_game("kocka", num_players=2), random.Random(2024)
    state = game.new_initial_state()
    while not game.is_terminal(state):
        if game.is_chance_node(state):
            outcomes, probs = zip(*game.chance_outcomes(state))
            state = game.apply(state, rng.choices(outcomes, probs)[0])
        else:
            actions = game.legal_actions(state)
            state = game.apply(state, Bank() if Bank() in actions else rng.choice(actions))
    winner = state.winners[0]
    # the win goes to the seat that reached 10000 (or made six 1s, KOCKA-19)
    assert state.scores[winner] >= 10000 or state.last_event == "six_ones"
    assert game.returns(state)[winner] == 1.0 and sum(game.returns(state)) == 1.0


# ---------------------------------------------------------------------------------------
# Rule options (section 6), each value
# ---------------------------------------------------------------------------------------
def reach(player: int, scores, turn_total: int = 1000) -> KockaState:
    """Seat ``player`` about to bank ``turn_total`` (three dice set aside)."""
    return KockaState(scores=tuple(scores), player=player, stage="bank_or_roll", turn_total=turn_total,
                      dice_in_play=3, last_event="set_aside")


BUST = (2, 3, 3, 4, 6, 6)  # busts a below-2500 opening roll (reference case 9)

END_CASES = [
    # (kocka.end, seat reaching, scores before, steps for the following turns, final scores, winners)
    ("immediate", 1, (0, 9000, 0), [], (0, 10000, 0), (1,)),
    ("last_turn", 1, (0, 9000, 0), [{"player": 2, "final_turns": 2, "reached_by": 1}, BUST,
                                    {"player": 0, "final_turns": 1}, BUST], (0, 10000, 0), (1,)),
    ("last_turn", 2, (0, 2000, 9000), [{"player": 0}, BUST, {"player": 1}, BUST], (0, 2000, 10000), (2,)),
    # a tie: seat 2 (9500, 2500+ so no minimum) banks 500 for 10000 too; 1/2 each
    ("last_turn", 1, (0, 9000, 9500), [(2, 3, 4, 5, 5, 5), S((5, 5, 5)), Bank(), {"player": 0}, BUST],
     (0, 10000, 10000), (1, 2)),
    ("finish_round", 1, (0, 9000, 0), [{"player": 2, "final_turns": 1}, BUST], (0, 10000, 0), (1,)),
    ("finish_round", 2, (0, 9000, 9000), [], (0, 9000, 10000), (2,)),
    # a later seat overtakes: the highest score wins (KOCKA-20)
    ("finish_round", 0, (9000, 9500, 0), [(2, 3, 4, 5, 5, 5), S((5, 5, 5)), Bank(), BUST],
     (10000, 10000, 0), (0, 1)),
]


@pytest.mark.parametrize("end, seat, before, steps, final, winners", END_CASES)
def test_end_option(end, seat, before, steps, final, winners):
    # KOCKA-20, kocka.end; finish_round with seat 0 reaching: seats 1 and 2 still play
    game = game_with(players=3, end=end)
    state = game.apply(reach(seat, before), Bank())
    state = run(game, state, steps)
    assert state.stage == "over" and state.scores == final and state.winners == winners
    assert game.returns(state) == tuple(1 / len(winners) if s in winners else 0.0 for s in range(3))


@pytest.mark.parametrize("min_bank, bankable", [("below_2500", True), ("always", False)])
def test_min_bank_option(min_bank, bankable):
    # KOCKA-13: a 2500+ player with 50 in the turn total
    game = game_with(min_bank=min_bank)
    state = KockaState(scores=(3000, 0), stage="bank_or_roll", turn_total=50, dice_in_play=5,
                       last_event="set_aside")
    assert (Bank() in game.legal_actions(state)) is bankable
    # at 350 both allow it, below 2500 too
    assert Bank() in game.legal_actions(dataclasses.replace(state, turn_total=350))
    assert Bank() not in game.legal_actions(dataclasses.replace(state, scores=(0, 0)))


COMPULSORY = dict(scores=(0, 0), turn_total=500, last_event="full")  # six dice back after a full roll


@pytest.mark.parametrize("straight, legal, value", [
    ("any_six_dice_roll", [S(STRAIGHT)], 1500),
    ("opening_roll_only", [S((1,)), S((1, 5)), S((5,))], 150),
])
def test_straight_option_on_a_compulsory_reroll(straight, legal, value):
    # KOCKA-5, kocka.straight: the straight on a six-dice re-roll
    game = game_with(straight=straight)
    state = game.apply(KockaState(**COMPULSORY), STRAIGHT)
    assert game.legal_actions(state) == legal
    assert best_score(STRAIGHT, game.rules, opening=False) == value
    # on the opening roll it counts under both values
    assert game.legal_actions(game.apply(game.new_initial_state(), STRAIGHT)) == [S(STRAIGHT)]


@pytest.mark.parametrize("series_start, can_start", [("opening_roll", False), ("any_six_dice_roll", True)])
def test_series_start_option(series_start, can_start):
    # KOCKA-14, kocka.series_start: a 2500+ player's compulsory re-roll
    game = game_with(series_start=series_start)
    state = KockaState(**{**COMPULSORY, "scores": (3000, 0)})
    after = game.apply(state, BUST)
    if can_start:  # cannot bust, and 6,6 may start a series
        assert after.stage == "set_aside" and SS(6, 2) in game.legal_actions(after)
        after = run(game, after, [SS(6, 2), {"turn_total": 500, "series": (6, 2)}])
    else:  # busts, and the 500 is lost
        assert after.last_event == "bust" and after.scores == (3000, 0)
    # never on the re-roll that follows a complete series (KOCKA-17)
    done = KockaState(scores=(3000, 0), turn_total=2000, series=(2, 6), last_event="series_complete")
    assert game.apply(done, BUST).last_event == "bust"
    rolled = game.apply(done, (2, 3, 3, 4, 5, 6))
    assert game.legal_actions(rolled) == [S((5,))]


@pytest.mark.parametrize("series_from_full, series_allowed", [("allowed", True), ("forbidden", False)])
def test_series_from_full_option(series_from_full, series_allowed):
    # KOCKA-14, kocka.series_from_full: a full opening roll of a 2500+ player
    game = game_with(series_from_full=series_from_full)
    state = game.apply(KockaState(scores=(3000, 0)), (1, 1, 1, 5, 5, 5))
    legal = game.legal_actions(state)
    assert legal[0] == S((1, 1, 1, 5, 5, 5))  # 1000 + 500, full (KOCKA-7)
    # by hand: series starts (1, 1..3) and (5, 1..3)
    assert legal[1:] == ([SS(1, 1), SS(1, 2), SS(1, 3), SS(5, 1), SS(5, 2), SS(5, 3)] if series_allowed else [])
    if not series_allowed:
        with pytest.raises(IllegalActionError, match=r"the full roll 1 1 1 5 5 5 must be scored normally"):
            game.apply(state, SS(1, 3))


def test_series_of_six_dice_from_one_roll_completes_at_once():
    # KOCKA-14, KOCKA-17: six 6s taken as a series: 6000 at once instead of 1200
    game = game_with()
    state = game.apply(KockaState(scores=(3000, 0)), (6, 6, 6, 6, 6, 6))
    assert game.legal_actions(state)[0] == S((6,) * 6)
    done = game.apply(state, SS(6, 6))
    assert done.turn_total == 6000 and done.series == (6, 6) and done.is_compulsory


ONES_DONE = dict(scores=(0, 10000, 3000), player=2, turn_total=10000, series=(1, 6), reached_by=1,
                 last_event="series_complete")


@pytest.mark.parametrize("end, ones_series, instant", [
    ("last_turn", "instant_win", True),
    ("last_turn", "normal", False),
    ("finish_round", "instant_win", True),
    ("finish_round", "normal", False),
    ("immediate", "normal", True),  # KOCKA-19 always holds under immediate
])
def test_ones_series_option(end, ones_series, instant):
    # KOCKA-19, kocka.ones_series: seat 2's last turn after seat 1 reached 10000
    # seat 1 reached 10000; last_turn: seats 2 and 0 still play, finish_round: seat 2 only
    game = game_with(players=3, end=end, ones_series=ones_series)
    start = {"immediate": dict(scores=(0, 0, 3000), reached_by=None, final_turns=None),
             "last_turn": dict(final_turns=2), "finish_round": dict(final_turns=1)}[end]
    state = game.apply(KockaState(**{**ONES_DONE, **start}), (2, 3, 4, 4, 5, 6))
    if instant:  # 3000 + 10000 banked, seat 2 alone wins (seat 1 has 10000, or 0 under immediate)
        assert state.stage == "over" and state.winners == (2,) and state.scores[2] == 13000
        return
    # normal: the re-roll is scored normally and the turn goes on; 10050 banked
    state = run(game, state, [{"legal": [S((5,))]}, S((5,)), Bank()])
    if end == "last_turn":
        state = run(game, state, [{"player": 0, "final_turns": 1}, BUST])
    assert state.stage == "over" and state.scores == (0, 10000, 13050) and state.winners == (2,)


def test_numeric_parameters_make_small_variants():
    rules = KockaRules(target=1000, series_threshold=500, min_bank_points=100)
    game = KockaGame(rules, num_players=2)
    state = KockaState(scores=(600, 0), stage="bank_or_roll", turn_total=400, dice_in_play=3,
                       last_event="set_aside")
    over = game.apply(state, Bank())
    assert over.winners == (0,) and over.scores == (1000, 0)  # 600 + 400 reaches 1000 (KOCKA-3)
    opening = game.apply(KockaState(scores=(600, 0)), BUST)
    assert SS(6, 2) in game.legal_actions(opening)  # 600 >= 500: series allowed (KOCKA-14)
    assert rules.variant_id() != KockaRules().variant_id()


# ---------------------------------------------------------------------------------------
# Errors: impossible states, illegal actions, bad input
# ---------------------------------------------------------------------------------------
BAD_STATES = [
    (dict(scores=(0, 0), series=(6, 2), dice_in_play=4, last_event="series"),
     r"a series needs a banked score of 2500 or more, but player 1 has 0", "KOCKA-14"),
    (dict(scores=(0, 0), turn_total=-50), r"the turn total must be a whole number of at least 0, not -50", None),
    (dict(scores=(0, 0), turn_total=120, dice_in_play=5, last_event="roll_on"),
     r"the turn total is a multiple of 50, not 120", "KOCKA-5"),
    (dict(scores=(0, 0), dice_in_play=0), r"the number of dice in play must be a whole number from 1 to 6, not 0", None),
    (dict(scores=(0, 0), dice_in_play=7), r"the number of dice in play must be a whole number from 1 to 6, not 7", None),
    (dict(scores=(0,)), r"there must be 2 banked scores, one per player, not 0$", None),
    (dict(scores=(0, 30)), r"banked scores are multiples of 50, not 30", "KOCKA-5"),
    (dict(scores=(0, 0), player=2), r"the player to move must be a whole number from 0 to 1, not 2", None),
    (dict(scores=(0, 0), stage="thinking"), r"the stage must be roll, .* or over, not thinking", None),
    (dict(scores=(0, 0), last_event="nap"), r"the last event must be start, .* or six_ones, not nap", None),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 5), last_event="rolled"),
     r"the roll must be 6 dice, not 1 5", None),
    (dict(scores=(0, 0), stage="set_aside", roll=(2, 3, 4), dice_in_play=3, turn_total=150,
          last_event="rolled"), r"the roll 2 3 4 scores nothing, so the turn is lost", "KOCKA-9"),
    (dict(scores=(3000, 0), stage="bank_or_roll", series=(6, 2), dice_in_play=4, last_event="set_aside"),
     r"a series cannot be banked", "KOCKA-16"),
    (dict(scores=(0, 0), joker=2), r"a joker is named only for the last die of a series", "KOCKA-18"),
    (dict(scores=(3000, 0), dice_in_play=1, series=(6, 5), joker=9, last_event="joker"),
     r"the joker must be a face from 1 to 6, not 9", "KOCKA-18"),
    (dict(scores=(3000, 0), dice_in_play=1, series=(6, 5), joker=6, last_event="joker"),
     r"the joker must differ from the series face 6", "KOCKA-18"),
    (dict(scores=(3000, 0), series=(6, 2), dice_in_play=3, last_event="series"),
     r"a series with 2 dice collected leaves 4 dice in play, not 3", None),
    (dict(scores=(3000, 0), series=(4, 6), turn_total=2000, last_event="series_complete"),
     r"a complete series of 4s is worth 4000, but the turn total is 2000", "KOCKA-17"),
    (dict(scores=(0, 0), turn_total=100, dice_in_play=3, last_event="roll_on"),
     r"with 3 dice in play, 3 dice are already set aside this turn, worth at least 150 points, but the turn total "
     r"is 100", "KOCKA-5"),
    (dict(scores=(10000, 0), player=1, last_event="bust"), r"reached the target 10000, but nobody is marked", "KOCKA-20"),
    (dict(scores=(0, 0), stage="over", winners=(1,), last_event="bank"),
     r"the game ends when a player reaches the target and the final turns are played", "KOCKA-20"),
]


@pytest.mark.parametrize("fields, message, rule", BAD_STATES)
def test_impossible_states_are_rejected(fields, message, rule):
    game = game_with()
    with pytest.raises(InvalidStateError, match=message) as caught:
        game.check_state(KockaState(**fields))
    assert caught.value.rule == rule


def test_bad_state_documents():
    game = game_with()
    doc = game.state_to_json(game.new_initial_state())
    doc["state"]["turn_total"] = "lots"
    with pytest.raises(InvalidStateError, match=r"the turn total must be a whole number of at least 0, not lots"):
        game.state_from_json(doc)
    doc["state"] = {**game.state_to_json(game.new_initial_state())["state"], "mood": 1}
    with pytest.raises(InvalidStateError, match=r"the state has no field mood$"):
        game.state_from_json(doc)


SERIES_6 = dict(scores=(3000, 0), stage="set_aside", roll=(1, 6), dice_in_play=2, series=(6, 4),
                last_event="rolled")
BAD_ACTIONS = [
    (dict(scores=(0, 0), stage="bank_or_roll", turn_total=50, dice_in_play=5, last_event="set_aside"),
     Bank(), r"the turn total 50 is below the minimum bank of 350", "KOCKA-13"),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), last_event="rolled"),
     S((2, 2)), r"^a pair of 2s does not score: set aside 1s, 5s or three of a kind$", "KOCKA-5"),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), last_event="rolled"),
     S((2,)), r"^a lone 2 does not score: set aside 1s, 5s or three of a kind$", "KOCKA-5"),
    (dict(scores=(0, 0), stage="set_aside", roll=(2, 2, 2, 2, 3, 4), last_event="rolled"),
     S((2, 2, 2, 2)), r"only three of the 4 dice showing 2 score: set aside three of them$", "KOCKA-5"),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), last_event="rolled"),
     S(()), r"at least one die must be set aside$", "KOCKA-10"),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), last_event="rolled"),
     S((5,)), r"take 5 is not possible: 5 is not part of the roll 1 2 2 3 4 6", None),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 1, 5, 5, 5, 5), last_event="rolled"),
     S((1, 1)), r"the roll 1 1 5 5 5 5 is full and must be set aside whole", "KOCKA-10"),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), last_event="rolled"),
     SS(2, 2), r"a series needs a banked score of 2500 or more", "KOCKA-14"),
    (dict(scores=(3000, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), turn_total=500, last_event="rolled"),
     SS(2, 2), r"a series can start only on the opening roll of a turn", "KOCKA-14"),
    (dict(scores=(3000, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), last_event="rolled"),
     SS(2, 3), r"does not show 3 dice of face 2", "KOCKA-14"),
    (SERIES_6, T(2), r"take 6 6 is not possible: the roll 1 6 has only 1 die for the series of 6s", "KOCKA-15"),
    (SERIES_6, S((1,)), r"take 1 is not possible: in a series of 6s only dice showing 6 may be taken", "KOCKA-15"),
    (SERIES_6, Roll(), r"use the roll 1 6 first", "KOCKA-10"),
    (dict(scores=(3000, 0), stage="joker", dice_in_play=1, series=(6, 5), last_event="series"),
     J(6), r"the joker must be a face from 1 to 6 other than the series face 6", "KOCKA-18"),
    (dict(scores=(3000, 0), stage="joker", dice_in_play=1, series=(6, 5), last_event="series"),
     Bank(), r"name a joker or roll the last die", "KOCKA-18"),
    (dict(scores=(0, 0), stage="bank_or_roll", turn_total=400, dice_in_play=5, last_event="set_aside"),
     J(2), r"joker 2 is not possible now: the dice are set aside, so bank your 400 points or roll the 5 dice left$", "KOCKA-12"),
    (dict(scores=(0, 0), stage="set_aside", roll=(1, 2, 2, 3, 4, 6), last_event="rolled"),
     T(1), r"no series is under way", "KOCKA-15"),
    (dict(scores=(3000, 0), stage="set_aside", roll=(2, 3, 3, 4, 5, 6), turn_total=2000, series=(2, 6),
          last_event="rolled"), SS(3, 2), r"the re-roll after a complete series is scored normally", "KOCKA-17"),
]


@pytest.mark.parametrize("fields, action, message, rule", BAD_ACTIONS)
def test_illegal_actions_are_rejected(fields, action, message, rule):
    game = game_with()
    with pytest.raises(IllegalActionError, match=message) as caught:
        game.apply(KockaState(**fields), action)
    assert caught.value.rule == rule


def test_bad_input_errors():
    game = game_with()
    with pytest.raises(DiceError, match=r"the roll must be values from 1 to 6, not 7 1 1 1 1 1"):
        game.apply(game.new_initial_state(), (7, 1, 1, 1, 1, 1))
    with pytest.raises(DiceError, match=r"the dice set aside must be values from 1 to 6, not 0"):
        SetAside((0,))
    with pytest.raises(IllegalActionError, match=r"no dice are to be rolled now"):
        game.chance_outcomes(KockaState(**SERIES_6))
    with pytest.raises(RulesError, match=r"min_bank must be below_2500 or always, not never"):
        get_game("kocka", {"kocka.min_bank": "never"})
    with pytest.raises(RulesError, match=r"target must be 0 or a multiple of 50, not 120"):
        KockaRules(target=120)
    with pytest.raises(IllegalActionError, match=r"there is no action type Pass"):
        game.action_from_json({"type": "Pass"})


# ---------------------------------------------------------------------------------------
# Rule queries for solvers, bots and front ends
# ---------------------------------------------------------------------------------------
def test_position_from_the_numbers_a_player_types():
    game = game_with()
    # a roll to use (KOCKA-10): the opening roll, or with points aside a later one
    opening = game.position((3000, 8650), roll=(5, 1, 1, 2, 1, 5))
    assert opening == KockaState(scores=(3000, 8650), stage="set_aside", roll=(1, 1, 1, 2, 5, 5), last_event="rolled")
    assert opening.is_opening and StartSeries(1, 3) in game.legal_actions(opening)  # KOCKA-14
    later = game.position((0, 0), turn_total=400, roll=(1, 2, 3))
    assert later.dice_in_play == 3 and game.legal_actions(later) == [S((1,))]
    # no roll: bank or roll on with the dice left (KOCKA-12)
    choice = game.position((0, 0), turn_total=400, dice_left=3)
    assert choice.stage == "bank_or_roll" and game.legal_actions(choice) == [Bank(), Roll()]
    with pytest.raises(DiceError, match=r"a roll is of 1 to 6 dice, not 7: 1 1 2 3 4 5 6"):
        game.position((0, 0), roll=(1, 1, 2, 3, 4, 5, 6))
    with pytest.raises(DiceError, match=r"the dice must be values from 1 to 6, not 1 7"):
        game.position((0, 0), roll=(1, 7))
    with pytest.raises(DiceError, match="needs the roll to use, or the number of dice left"):
        game.position((0, 0))
    with pytest.raises(DiceError, match=r"the 3 dice rolled do not match the 4 dice left"):
        game.position((0, 0), roll=(1, 2, 3), dice_left=4)
    # positions the rules cannot produce are refused with the engine's reason
    with pytest.raises(InvalidStateError, match=r"the roll 2 3 4 scores nothing"):
        game.position((0, 0), turn_total=300, roll=(2, 3, 4))
    with pytest.raises(InvalidStateError, match=r"3 dice are already set aside this turn, worth at least 150 points, but the turn total is 100"):
        game.position((0, 0), turn_total=100, dice_left=3)


@pytest.mark.parametrize("options, below, high, on_reroll", [
    ({}, 350, 0, False),
    ({"min_bank": "always"}, 350, 350, False),
    ({"series_start": "any_six_dice_roll"}, 350, 0, True),
])
def test_rule_queries_follow_the_options(options, below, high, on_reroll):
    rules = KockaRules.from_options(options)
    assert (rules.bank_minimum("below_2500"), rules.bank_minimum("2500+")) == (below, high)  # KOCKA-13
    assert rules.series_on_reroll is on_reroll  # KOCKA-14, kocka.series_start
    game = KockaGame(rules, num_players=2)
    low_total = KockaState(scores=(3000, 0), stage="bank_or_roll", turn_total=50, dice_in_play=5, last_event="set_aside")
    assert game.may_bank(low_total) is (high == 0)
    reroll = KockaState(scores=(3000, 0), turn_total=500, last_event="full")
    assert game.may_start_series(reroll) is on_reroll


def test_set_aside_points_and_points_to_target():
    game = game_with(straight="opening_roll_only")
    opening = game.position((9000, 0), roll=(1, 2, 3, 4, 5, 6))
    reroll = game.position((9000, 0), turn_total=500, roll=(1, 2, 3, 4, 5, 6))
    assert game.set_aside_points(opening, STRAIGHT) == 1500  # KOCKA-5, kocka.straight
    assert game.set_aside_points(reroll, STRAIGHT) is None
    assert game.set_aside_points(reroll, (1, 5)) == 150
    assert game.points_to_target(reroll) == 1000  # KOCKA-3


def test_series_from_full_and_unscored_reasons():
    forbidden = KockaRules(series_from_full="forbidden")
    assert series_allowed_from((1, 1, 1, 5, 5, 5)) and not series_allowed_from((1, 1, 1, 5, 5, 5), forbidden)
    assert series_allowed_from((1, 1, 1, 5, 5, 6), forbidden)
    assert unscored_reason((1, 1, 5), 6) is None
    assert unscored_reason((3,), 6) == "a lone 3 does not score: set aside 1s, 5s or three of a kind"
    assert unscored_reason((3,), 6).rule == "KOCKA-5"
    assert unscored_reason((6, 6), 6).startswith("a pair of 6s does not score")
    assert unscored_reason((4,) * 5, 6) == "only three of the 5 dice showing 4 score: set aside three of them"
    assert unscored_reason((), 6) == "at least one die must be set aside" and unscored_reason((), 6).rule == "KOCKA-10"
    assert "opening roll" in unscored_reason(STRAIGHT, 6, KockaRules(straight="opening_roll_only"), opening=False)
    assert unscored_reason((1, 1, 1), 2) == "3 dice cannot be set aside from a roll of 2"
    assert unscored_reason((1, 1, 1), 2).rule == "KOCKA-6"


def test_messages_name_actions_as_players_type_them():
    game = game_with()
    in_series = KockaState(scores=(3000, 0), stage="set_aside", roll=(2,), dice_in_play=1, series=(6, 5), joker=2,
                           last_event="rolled")
    # the state as built above, said by hand: seat 0 is the first player, 5 of the 6s are aside (KOCKA-16)
    with use_language("en"):
        assert game.describe_state(in_series) == ("player 1 to set dice aside; banked 3000, 0; turn total 0; "
                                                  "1 die in play; thrown 2; series of 6s with 5 dice aside; joker 2")
    with use_language("hu"):
        assert game.describe_state(in_series) == ("1. játékos tesz félre kockát; felírva: 3000, 0; a kör pontja 0; "
                                                  "1 kocka van játékban; dobva: 2; 6-sorozat, 5 kocka félretéve; dzsóker: 2")
    with pytest.raises(IllegalActionError, match=r"^take 2 is not possible: in a series of 6s only dice "
                                                 r"showing 6 or the joker 2 may be taken$"):
        game.apply(in_series, S((2,)))
    with pytest.raises(IllegalActionError, match=r"^bank is not possible yet: use the roll 2 first"):
        game.apply(in_series, Bank())
    with pytest.raises(IllegalActionError, match=r"^that is not a move of this game; the moves are take, series"):
        game.apply(in_series, "take 2")
    complete = KockaState(scores=(3000, 0), turn_total=6000, series=(6, 6), last_event="series_complete")
    with use_language("en"):
        assert "the series of 6s is complete" in game.describe_state(complete)


# ---------------------------------------------------------------------------------------
# Properties under random legal play (hypothesis)
# ---------------------------------------------------------------------------------------
OPTION_VALUES = {name: st.sampled_from(values) for name, values in KockaRules.OPTIONS.items()}


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), options=st.fixed_dictionaries(OPTION_VALUES),
       players=st.integers(1, 4))
def test_random_legal_play_keeps_every_invariant(seed, options, players):
    # small target and threshold so that series and game ends occur within a few hundred steps
    game = game_with(players=players, **options, target=3000, series_threshold=1000)
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(300):
        doc = json.dumps(game.state_to_json(state))
        assert game.state_from_json(doc) == state
        if game.is_terminal(state):
            assert sum(game.returns(state)) == pytest.approx(1.0)
            break
        if game.is_chance_node(state):
            outcomes = game.chance_outcomes(state)
            assert math.fsum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
            action = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            actions = game.legal_actions(state)
            assert actions and len(set(actions)) == len(actions)
            action = rng.choice(actions)
            assert game.action_from_json(json.dumps(game.action_to_json(action))) == action
        after = game.apply(state, action)  # apply re-checks the state: never an illegal one
        game.check_state(after)
        assert all(s % 50 == 0 for s in after.scores) and after.turn_total % 50 == 0
        assert all(b >= a for a, b in zip(state.scores, after.scores))
        if after.last_event == "bust":
            assert after.scores == state.scores  # KOCKA-9: the turn total is lost
        elif after.last_event in ("bank", "six_ones"):
            assert sum(after.scores) == sum(state.scores) + state.turn_total
        else:  # the same turn goes on: the turn total never decreases
            assert after.player == state.player and after.turn_total >= state.turn_total
        state = after


def test_chance_outcomes_cover_each_dice_count():
    game = game_with()
    for n in range(1, 7):
        state = KockaState(scores=(3000, 0), dice_in_play=n, series=(2, 6 - n),
                           last_event="series" if n > 1 else "roll_on") if n < 6 else game.new_initial_state()
        outcomes = game.chance_outcomes(state)
        assert len(outcomes) == math.comb(n + 5, 5)  # multisets of n faces
        assert math.fsum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
