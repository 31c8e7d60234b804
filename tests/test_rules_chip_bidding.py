"""HU chip bidding (RULES.md 2.2, HU-10..HU-19): the pure settlement, the betting state
machine over the scorecard game, every ``hu_bid`` option, worked example 2.3.5, and random
legal play (hypothesis)."""
from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kocka.solver.base.errors import IllegalActionError, InvalidStateError, RulesError
from kocka.solver.rules import CHANCE, get_game
from kocka.solver.rules.chip_bidding import (
    ChipBiddingGame,
    ChipBiddingRules,
    Decline,
    Hold,
    Pass,
    Raise,
    settle,
)
from kocka.solver.rules.scorecard import Fill, Keep

A, B, C, D = 0, 1, 2, 3
NO, YES = False, True

# ----------------------------------------------------------------------------------------
# settle (HU-15..HU-19), by hand from RULES.md
# ----------------------------------------------------------------------------------------
SETTLEMENTS = [
    # worked example 2.3.5: bank 13; C tops but passed: 1 + 1 back; 11 left for A and B,
    # 5 each and the odd chip to A (higher total). Net A 6-6, B 5-6, C 2-1
    pytest.param([231, 220, 245], [6, 6, 1], [NO, NO, YES], {}, (0, -1, 1), id="2.3.5 HU-17"),
    # worked example 2.3.5, variant: A tops and takes all 13 (HU-16)
    pytest.param([250, 220, 245], [6, 6, 1], [NO, NO, YES], {}, (7, -6, -1), id="2.3.5-variant HU-16"),
    # HU-18 tie: A and B share 13 -> 7 and 6 (odd chip to the first seat among equal totals)
    pytest.param([240, 240, 200], [6, 6, 1], [NO, NO, YES], {}, (1, 0, -1), id="HU-18 tie share"),
    # hu_bid.tie = first_seat: A counts as top alone and takes 13
    pytest.param([240, 240, 200], [6, 6, 1], [NO, NO, YES], {"tie": "first_seat"}, (7, -6, -1), id="HU-18 first_seat"),
    # tie between A (never passed) and C (passed): only A shares, i.e. takes 13
    pytest.param([245, 220, 245], [6, 6, 1], [NO, NO, YES], {}, (7, -6, -1), id="HU-18 tie passed+standing"),
    # first_seat, A and D tied on top: A, the first seat, counts as top but passed: he gets
    # 1 + 1; 8 left for B, C, D (never passed): 2 each, the 2 odd chips to D (240), C (230)
    pytest.param([240, 200, 230, 240], [1, 3, 3, 3], [YES, NO, NO, NO], {"tie": "first_seat"},
                 (2 - 1, 2 - 3, 3 - 3, 3 - 3), id="HU-18 first_seat passed"),  # fmt: skip
    # the same under the default tie = share: D never passed and takes the bank of 10
    pytest.param([240, 200, 230, 240], [1, 3, 3, 3], [YES, NO, NO, NO], {},
                 (-1, -3, -3, 10 - 3), id="HU-18 share passed+standing"),  # fmt: skip
    # all tied top players passed: small prizes 2 and 4 (c + c); bank 1+2+3+3 = 9, 3 left
    # for C and D: 1 each and the odd chip to C (total 100 > 90)
    pytest.param([300, 300, 100, 90], [1, 2, 3, 3], [YES, YES, NO, NO], {}, (1, 2, -1, -2), id="HU-18 small prizes"),
    # the bank (1+5+1+1 = 8) cannot cover the small prizes 2 + 10 = 12: split 1:5 -> 8/6 and
    # 40/6, whole chips 1 and 6, the odd chip to A (seat order among equal totals); C and D
    # get nothing
    pytest.param([300, 300, 100, 90], [1, 5, 1, 1], [YES, YES, NO, NO], {}, (1, 1, -1, -1), id="HU-18 proportional"),
    pytest.param([300, 300, 100, 90], [1, 5, 1, 1], [YES, YES, NO, NO], {"remainder": "fractional"},
                 (Fraction(8, 6) - 1, Fraction(40, 6) - 5, -1, -1), id="HU-18 proportional fractional"),  # fmt: skip
    # HU-15 takes precedence: with A and B passed, C alone is left and takes the bank of 7
    pytest.param([300, 300, 100], [1, 5, 1], [YES, YES, NO], {}, (-1, -5, 6), id="HU-15 over HU-17"),
    # fractional remainder: 11 shared by A and B as 11/2 each
    pytest.param([231, 220, 245], [6, 6, 1], [NO, NO, YES], {"remainder": "fractional"},
                 (Fraction(-1, 2), Fraction(-1, 2), 1), id="HU-18 fractional"),  # fmt: skip
    # HU-15: one player never passed and takes the bank whatever the totals
    pytest.param([10, 99, 50], [4, 1, 3], [NO, YES, YES], {}, (4, -1, -3), id="HU-15 early end"),
]


@pytest.mark.parametrize(("totals", "paid", "passed", "options", "expected"), SETTLEMENTS)
def test_settle(totals, paid, passed, options, expected):
    result = settle(totals, paid, passed, ChipBiddingRules(**options))
    assert result == expected
    assert sum(result) == 0  # HU-19


def test_settle_fractional_results_are_exact_fractions():
    result = settle([1, 1, 0], [1, 1, 1], [NO, NO, NO], ChipBiddingRules(remainder="fractional"))
    assert result == (Fraction(1, 2), Fraction(1, 2), -1)
    assert all(isinstance(r, Fraction) for r in result[:2])


@pytest.mark.parametrize(
    ("totals", "paid", "passed", "message"),
    [
        ([1, 2], [1, 1], [YES, YES], "before the last player passes"),
        ([1, 2], [0, 1], [NO, NO], r"ante of 1 chip, not 0 1$"),
        ([1, 2, 3], [1, 1], [NO, NO], "a total, a payment and a pass for each of 2 or more players"),
    ],
)
def test_settle_rejects_impossible_input(totals, paid, passed, message):
    with pytest.raises(InvalidStateError, match=message):
        settle(totals, paid, passed)


# ----------------------------------------------------------------------------------------
# The betting state machine
# ----------------------------------------------------------------------------------------
def one_box_game(players: int = 3, **options) -> ChipBiddingGame:
    """A card of one box (chance, the sum of the dice): one turn each, a short full game.
    A card without face boxes has net 0, so the house adds 63 to every total (HU-7)."""
    return ChipBiddingGame(ChipBiddingRules(boxes=("chance",), **options), num_players=players)


def play(game, state, steps):
    for step in steps:
        if isinstance(step, dict):
            for name, want in step.items():
                got = state.bank if name == "bank" else getattr(state, name)
                assert got == want, (name, got, want)
        else:
            state = game.apply(state, step)
    return state


ROLL_15, ROLL_20, ROLL_24, ROLL_30 = (1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (3, 4, 5, 6, 6), (6, 6, 6, 6, 6)
CHANCE_BOX = Fill("chance")


@pytest.mark.parametrize(
    ("a_roll", "expected"),
    [(ROLL_20, (0, -1, 1)), (ROLL_30, (7, -6, -1))],
    ids=["2.3.5 C tops", "2.3.5 A tops"],
)
def test_worked_example_2_3_5(a_roll, expected):
    # worked example 2.3.5 played on one-box cards: A 20 + 63, B 15 + 63, C 24 + 63 keep the
    # order C > A > B of the example (or A 30 + 63 on top in the variant)
    game = one_box_game(3)
    state = game.new_initial_state()
    assert (state.bank, state.stake) == (3, 1)  # HU-11 ante
    steps = [
        a_roll, CHANCE_BOX, {"phase": "raise", "actor": A},
        Raise(), {"bank": 5, "stake": 2, "pending": (B, C)},
        Hold(), {"bank": 7},
        Pass(), {"phase": "play", "passed": (NO, NO, YES)},
        ROLL_15, CHANCE_BOX, Raise(), {"bank": 10, "stake": 3, "pending": (A,)},  # C has passed
        Hold(), {"bank": 13, "paid": (6, 6, 1)},
        ROLL_24, CHANCE_BOX,  # C passed: no raise opportunity (HU-14); every card is full
    ]
    state = play(game, state, steps)
    assert game.is_terminal(state)
    assert game.returns(state) == expected  # HU-16, HU-17, HU-19


def test_hu_12_raise_only_at_the_end_of_the_turn():
    # HU-12 (hu_bid.raise_timing = end_of_turn): after filling his box, not after a throw
    game = ChipBiddingGame(ChipBiddingRules(boxes=("pair", "chance")), 2)
    state = game.apply(game.new_initial_state(), ROLL_20)
    assert Raise() not in game.legal_actions(state)  # after a throw: keep or fill only
    state = game.apply(state, Keep((2, 3)))
    state = game.apply(state, (2, 2, 2))
    state = game.apply(state, Fill("pair"))
    assert game.legal_actions(state) == [Raise(), Decline()] and game.current_player(state) == A
    state = game.apply(state, Decline())
    assert state.phase == "play" and game.current_player(state) == CHANCE and state.card.player == B


def test_hu_12_raise_timing_after_any_roll():
    game = ChipBiddingGame(ChipBiddingRules(boxes=("pair", "chance"), raise_timing="after_any_roll"), 2)
    state = game.apply(game.new_initial_state(), ROLL_20)
    assert state.phase == "raise" and state.actor == A
    state = play(game, state, [Raise(), {"stake": 2, "paid": (3, 1)}, Hold(), {"paid": (3, 3)}])
    assert game.legal_actions(state)[0] == Keep(())  # back to A's keep-or-fill decision
    state = play(game, state, [Keep((2, 3)), (2, 2, 2), {"phase": "raise"}, Decline(), Fill("pair")])
    assert state.phase == "play" and state.card.player == B  # no raise after the Fill


def test_hu_12_13_raise_costs_grow_and_reraise_reopens():
    # HU-12, HU-13: raises cost 2, then 3; under hu_bid.response = until_answered: B's re-raise (3) must be answered by C and by A, the earlier raiser
    game = one_box_game(3)
    state = play(game, game.new_initial_state(), [ROLL_20, CHANCE_BOX, Raise(), {"pending": (B, C)}, Raise()])
    assert (state.stake, state.paid, state.pending, state.actor) == (3, (3, 4, 1), (C, A), B)
    state = play(game, state, [Hold(), Hold()])
    assert state.paid == (6, 4, 4) and state.phase == "play"  # never top-ups: full stake each


def test_hu_13_one_lap():
    # HU-13, option hu_bid.response = one_lap: each other player answers once
    game = one_box_game(3, response="one_lap")
    state = play(game, game.new_initial_state(), [ROLL_20, CHANCE_BOX, Raise(), Raise()])
    assert state.pending == (C,)  # the re-raise does not reopen the lap
    state = game.apply(state, Hold())
    assert state.paid == (3, 4, 4) and state.phase == "play"


def test_hu_14_passed_player_keeps_playing_but_never_bets():
    game = one_box_game(3)
    state = play(game, game.new_initial_state(), [ROLL_20, CHANCE_BOX, Raise(), Pass(), Hold()])
    assert state.passed == (NO, YES, NO)
    # B plays his turn (HU-14) but gets no raise opportunity after it
    state = play(game, state, [ROLL_15, CHANCE_BOX, {"phase": "play", "paid": (3, 1, 3)}])
    state = play(game, state, [ROLL_24, CHANCE_BOX, {"phase": "raise", "actor": C}, Raise()])
    assert state.pending == (A,)  # B is skipped


def test_hu_15_early_end():
    game = ChipBiddingGame(ChipBiddingRules(boxes=("pair", "chance")), 3)
    state = play(game, game.new_initial_state(), [ROLL_20, Fill("pair"), Raise(), Pass(), Pass()])
    assert game.is_terminal(state)  # open boxes no longer matter
    assert game.returns(state) == (2, -1, -1)  # A takes the bank of 5, 3 of them his own


def test_hu_16_normal_end_bank_to_the_top_total():
    game = one_box_game(2)
    state = play(game, game.new_initial_state(), [ROLL_15, CHANCE_BOX, Raise(), Hold(), ROLL_30, CHANCE_BOX, Decline()])
    assert game.totals(state) == (63 + 15, 63 + 30)
    assert game.returns(state) == (-3, 3)  # B wins the bank of 6, 3 of them his own


def test_hu_10_stack_chips_must_pass_when_short():
    # stack:3: after A's raise to 2 (A paid 1 + 2), B can hold (1 + 2 = 3) but not raise
    # (1 + 3 = 4 > 3)
    game = one_box_game(2, chips="stack:3")
    state = play(game, game.new_initial_state(), [ROLL_20, CHANCE_BOX, Raise()])
    assert game.legal_actions(state) == [Hold(), Pass()]  # 2 chips left: hold 2, not raise 3
    with pytest.raises(IllegalActionError, match=r"player 2 cannot raise: it costs 3 chips in all, more than the stack allows, and 1 are already paid") as caught:
        game.apply(state, Raise())
    assert caught.value.rule == "HU-10"
    state = play(game, state, [Hold(), ROLL_15, CHANCE_BOX])
    assert state.phase == "over"  # B has nothing left for a raise of 3: no opportunity
    assert game.returns(state) == (3, -3)


def test_hu_10_chips_option_values():
    assert ChipBiddingRules(chips="stack:12").stack == 12
    assert ChipBiddingRules().stack is None
    with pytest.raises(RulesError, match="chips must be unlimited or stack:N with N at least 1, not stack:0"):
        ChipBiddingRules(chips="stack:0")
    game = get_game("kockapoker-bid", {"hu_bid.tie": "first_seat", "hu.house_negative": "count"}, 2)
    assert game.rules.tie == "first_seat" and game.card_game.rules.house_negative == "count"


def test_illegal_answers_and_states_are_named():
    game = one_box_game(2)
    state = play(game, game.new_initial_state(), [ROLL_20, CHANCE_BOX])
    with pytest.raises(IllegalActionError, match=r"hold is not a move now: player 1 may raise or decline") as caught:
        game.apply(state, Hold())
    assert caught.value.rule == "HU-12"
    with pytest.raises(IllegalActionError, match="a roll of 5 dice is due"):
        game.apply(game.new_initial_state(), (1, 2, 3))  # a roll of 3 dice when 5 are due
    with pytest.raises(InvalidStateError, match=r"the payments must be a chip count of at least the ante of 1 for each of the 2 players, not 0 1"):
        game.check_state(state.__class__(card=state.card, paid=(0, 1), passed=(NO, NO)))
    with pytest.raises(RulesError, match="this game takes 2 to 6 players, not 1"):
        ChipBiddingGame(num_players=1)


def test_json_round_trip_with_the_nested_card():
    game = ChipBiddingGame(ChipBiddingRules(boxes=("pair", "chance", "sixes")), 2)
    state = play(game, game.new_initial_state(), [ROLL_20, Keep((6,)), (1, 1, 6, 6), Fill("sixes"), Raise()])
    doc = json.loads(json.dumps(game.state_to_json(state)))
    assert doc["state"]["card"]["game"] == "kockapoker"
    assert game.state_from_json(doc) == state
    assert game.action_from_json(game.action_to_json(Keep((1, 6)))) == Keep((1, 6))


# ----------------------------------------------------------------------------------------
# Random legal play (hypothesis)
# ----------------------------------------------------------------------------------------
OPTION_CHOICES = {
    **{k: st.sampled_from(v) for k, v in ChipBiddingRules.OPTIONS.items()},
    "chips": st.sampled_from(["unlimited", "stack:2", "stack:4", "stack:9"]),
    "boxes": st.sampled_from([("chance",), ("pair", "chance"), ("sixes", "full_house", "chance")]),
}


@settings(max_examples=40, deadline=None)
@given(options=st.fixed_dictionaries(OPTION_CHOICES), players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_random_play(options, players, seed):
    game = ChipBiddingGame(ChipBiddingRules(**options), players)
    rng = random.Random(seed)
    state = game.new_initial_state()
    stack = game.rules.stack
    for _ in range(500):
        assert game.state_from_json(json.loads(json.dumps(game.state_to_json(state)))) == state
        assert stack is None or max(state.paid) <= stack  # HU-10 stack:N
        if game.is_terminal(state):
            net = settle(game.totals(state), state.paid, state.passed, game.rules)
            assert sum(net) == 0  # HU-19
            assert game.returns(state) == tuple(float(r) for r in net)
            assert sum(game.returns(state)) == pytest.approx(0.0)
            return
        if game.is_chance_node(state):
            outcomes = game.chance_outcomes(state)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            state = game.apply(state, rng.choice(outcomes)[0])
            continue
        if state.phase in ("raise", "respond"):
            assert not state.passed[game.current_player(state)]  # HU-14
        action = rng.choice(game.legal_actions(state))
        assert game.action_from_json(json.loads(json.dumps(game.action_to_json(action)))) == action
        state = game.apply(state, action)
    raise AssertionError("no end within 500 steps")


def test_registry_name():
    assert isinstance(get_game("kockapoker-bid", None, 3), ChipBiddingGame)
