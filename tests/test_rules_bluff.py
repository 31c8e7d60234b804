"""The two-dice bluff games (RULES.md section 3, BLUFF-1..BLUFF-21): claims and their
ranking, the three state machines, every rule option, the worked examples of 3.5 and
reference cases 38-40, and random legal play (hypothesis)."""
from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kocka.solver.base.errors import IllegalActionError, InvalidStateError, RulesError
from kocka.solver.base.i18n import use_language
from kocka.solver.rules import CHANCE, TERMINAL, get_game
from kocka.solver.rules.bluff import (
    AbazsGame,
    AbazsRules,
    Accept,
    Bet,
    BiddingBluffGame,
    BiddingBluffRules,
    Challenge,
    Claim,
    ClaimRange,
    DiceClaim,
    Hand,
    LiarsPokerGame,
    LiarsPokerRules,
    LiarsPokerState,
    MAX_CHIPS,
    MAX_ROUNDS,
    STAKES_LISTED,
    Pass,
    Reroll,
    TwoDiceClaim,
    achievable_claims,
    actual_result,
    all_claims,
    claim_probabilities,
    claim_rank,
    hand_of,
    is_true,
    single_round_game,
    top_claim,
)


def S(total: int) -> TwoDiceClaim:
    return TwoDiceClaim("sum", total)


def NP(total: int) -> TwoDiceClaim:
    return TwoDiceClaim("nonpair", total)


def P(face: int) -> TwoDiceClaim:
    return TwoDiceClaim("pair", face)


def play(game, state, steps):
    """Apply a script: tuples are chance outcomes (rolled dice), dicts are checkpoints
    (state field -> expected value), anything else is an action."""
    for step in steps:
        if isinstance(step, dict):
            for name, want in step.items():
                assert getattr(state, name) == want, (name, getattr(state, name), want)
        else:
            state = game.apply(state, step)
    return state


# ----------------------------------------------------------------------------------------
# BLUFF-7: rankings and chances
# ----------------------------------------------------------------------------------------
# Chances out of 36, copied from RULES.md BLUFF-7
PUBLISHED_36THS = {
    "simple": dict(zip([S(s) for s in range(2, 13)], [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1])),
    "pro": {
        **dict(zip([NP(s) for s in range(3, 12)], [2, 2, 4, 4, 6, 4, 4, 2, 2])),
        **{P(k): 1 for k in range(1, 7)},
    },
}


@pytest.mark.parametrize("ranking", ["simple", "pro"])
def test_bluff_7_chances_by_enumerating_36_rolls(ranking):
    # expected: classify each of the 36 ordered rolls by hand (sum; pair or non-pair sum)
    tally = Counter()
    for a, b in itertools.product(range(1, 7), repeat=2):
        if ranking == "simple":
            tally[S(a + b)] += 1
        else:
            tally[P(a) if a == b else NP(a + b)] += 1
    assert dict(tally) == PUBLISHED_36THS[ranking]
    assert claim_probabilities(ranking) == {c: Fraction(k, 36) for c, k in PUBLISHED_36THS[ranking].items()}
    for a, b in itertools.product(range(1, 7), repeat=2):
        assert tally[actual_result([a, b], ranking)] >= 1


@pytest.mark.parametrize(("ranking", "size"), [("simple", 11), ("pro", 15)])
def test_bluff_7_claim_lists_and_ranks(ranking, size):
    # BLUFF-7: 11 sums 2..12; 9 non-pair sums 3..11 plus 6 pairs
    claims = all_claims(ranking)
    assert len(claims) == size
    assert [claim_rank(c) for c in claims] == list(range(size))
    assert list(claims) == sorted(claims)


def test_bluff_7_pro_order_every_pair_above_every_nonpair():
    # BLUFF-7: non-pairs by sum, pairs by face, all pairs above all non-pairs
    assert all(NP(s) < P(k) for s in range(3, 12) for k in range(1, 7))
    assert [c for c in all_claims("pro")] == [NP(s) for s in range(3, 12)] + [P(k) for k in range(1, 7)]


def test_reference_case_38_pair_of_2s_beats_nonpair_11():
    # RULES.md reference case 38 (BLUFF-7)
    assert actual_result([2, 2], "pro") == P(2)
    assert actual_result([5, 6], "pro") == NP(11)
    assert actual_result([2, 2], "pro") > actual_result([5, 6], "pro")


def test_claims_of_different_rankings_do_not_compare():
    with pytest.raises(TypeError, match="simple and pro"):
        S(5) < P(1)  # noqa: B015


@pytest.mark.parametrize(("kind", "value"), [("sum", 13), ("nonpair", 2), ("pair", 7), ("total", 5)])
def test_malformed_two_dice_claim_names_value(kind, value):
    with pytest.raises(IllegalActionError, match=repr(value)):
        TwoDiceClaim(kind, value)


@pytest.mark.parametrize(
    ("claim", "dice", "truth", "expected"),
    [
        (S(9), [4, 5], "exact", True),
        (S(8), [2, 4], "exact", False),  # worked example 3.5.3: 6 rolled, 8 claimed
        (S(6), [4, 5], "at_least", True),  # 9 ranks above 6
        (S(10), [4, 5], "at_least", False),
        (P(1), [5, 6], "at_least", False),  # non-pair 11 ranks below every pair
        (NP(11), [1, 1], "at_least", True),
    ],
)
def test_bluff_4_truth_exact_or_at_least(claim, dice, truth, expected):
    # BLUFF-4 and option bluff.truth
    assert is_true(claim, dice, AbazsRules(truth=truth)) is expected


# ----------------------------------------------------------------------------------------
# BLUFF-19, BLUFF-20: liar's poker hands
# ----------------------------------------------------------------------------------------
def test_bluff_19_seventy_five_claims_by_enumeration():
    # expected by combinatorics (BLUFF-19 table): nothing 4 (one face missing, not 1 or 6),
    # pair 6, two pairs C(6,2)=15, three 6, straights 1+1, full 6*5=30, four 6, five 6
    hands = {hand_of(roll) for roll in itertools.product(range(1, 7), repeat=5)}
    assert len(hands) == 75 == 4 + 6 + 15 + 6 + 1 + 1 + 30 + 6 + 6
    per_category = Counter(h.category for h in hands)
    assert [per_category[c] for c in range(9)] == [4, 6, 15, 6, 1, 1, 30, 6, 6]
    assert set(all_claims("liar")) == hands
    assert [claim_rank(h) for h in all_claims("liar")] == list(range(75))


def test_liar_kickers_counted_make_every_multiset_a_claim():
    # option liar.kickers = counted: all five dice are compared, so every one of the
    # C(10,5) = 252 sorted rolls is its own claim
    rules = LiarsPokerRules(kickers="counted")
    assert len(all_claims("liar", rules)) == 252
    assert hand_of([2, 2, 5, 6, 3], rules) == Hand(1, (2, 6, 5, 3))
    assert hand_of([2, 2, 5, 6, 3], rules) > hand_of([2, 2, 5, 6, 1], rules)
    assert hand_of([2, 2, 5, 6, 3]) == hand_of([2, 2, 5, 6, 1])  # default: kickers ignored


@pytest.mark.parametrize(
    ("dice", "hand"),
    [
        ([2, 5, 5, 5, 2], Hand(6, (5, 2))),  # reference case 39: full house, 5s over 2s
        ([3, 3, 3, 5, 5], Hand(6, (3, 5))),  # BLUFF-19: a full house, not three of a kind
        ([2, 2, 5, 5, 6], Hand(2, (5, 2))),  # worked example 3.5.4
        ([1, 2, 3, 4, 5], Hand(4)),
        ([2, 3, 4, 5, 6], Hand(5)),
        ([1, 2, 3, 4, 6], Hand(0, (6, 4, 3, 2, 1))),
        ([4, 4, 4, 4, 1], Hand(7, (4,))),
        ([6, 6, 6, 6, 6], Hand(8, (6,))),
        ([1, 1, 3, 4, 6], Hand(1, (1,))),
        ([2, 2, 2, 1, 6], Hand(3, (2,))),
    ],
)
def test_bluff_19_hand_of(dice, hand):
    assert hand_of(dice) == hand


def test_reference_case_39_public_and_private_dice():
    # RULES.md reference case 39: public [2,5,5], private [5,2] -> full house 5s over 2s
    hand = hand_of([2, 5, 5] + [5, 2])
    assert (hand.category, hand.faces) == (6, (5, 2))


def test_reference_case_40_nothing_hands_order():
    # RULES.md reference case 40 and BLUFF-19: missing 5 < missing 4 < missing 3 < missing 2
    missing = {m: hand_of([f for f in range(1, 7) if f != m]) for m in (2, 3, 4, 5)}
    assert hand_of([1, 2, 3, 4, 6]) < hand_of([1, 2, 3, 5, 6])
    assert missing[5] < missing[4] < missing[3] < missing[2]
    assert all(h.category == 0 for h in missing.values())


def test_bluff_20_achievable_claims_worked_example_4():
    # worked example 3.5.4: public [2,5,5], 6 shown, one hidden die 1..6
    got = achievable_claims([2, 5, 5], [6], 1)
    assert set(got) == {Hand(1, (5,)), Hand(2, (5, 2)), Hand(3, (5,)), Hand(2, (6, 5))}
    # above a standing "two pairs, 5s and 2s" only the last two remain
    assert achievable_claims([2, 5, 5], [6], 1, Hand(2, (5, 2))) == [Hand(2, (6, 5)), Hand(3, (5,))]


def test_bluff_20_achievable_matches_brute_force_and_top_claim():
    # expected: enumerate the 36 ordered hidden pairs directly
    for public in [(1, 2, 3), (2, 5, 5), (6, 6, 6), (1, 4, 6)]:
        brute = {hand_of(public + pair) for pair in itertools.product(range(1, 7), repeat=2)}
        assert set(achievable_claims(public)) == brute
        assert top_claim(public) == max(brute)
    # hand-checked: [1,2,3] can reach a small straight but no four of a kind or full house
    assert top_claim([1, 2, 3]) == Hand(4)
    assert top_claim([2, 5, 5]) == Hand(7, (5,))  # the public 2 rules out five 5s
    assert top_claim([6, 6, 6]) == Hand(8, (6,))


# ----------------------------------------------------------------------------------------
# Worked examples (RULES.md 3.5) as data
# ----------------------------------------------------------------------------------------
A, B, C, D = 0, 1, 2, 3

WORKED_EXAMPLES = [
    pytest.param(
        "abazs", {"ranking": "simple"}, 3,
        [
            (1, 3), Claim(S(6)), {"standing": S(6), "history": (S(6),)},
            Accept(), (4, 5), {"active": B, "dice": (4, 5), "history": (S(6),)},
            # BLUFF-3: the round's claims so far, oldest first: 9 beat 6
            Claim(S(9)), {"standing": S(9), "history": (S(6), S(9))}, Challenge(),
            # B's 9 is true: C pays B; C starts the next round with nothing standing
            {"chips": (10, 11, 9), "active": C, "standing": None, "history": (), "phase": "roll",
             "revealed": (B, (4, 5)), "rounds": 1},
        ],
        id="3.5.1-abazs-simple",
    ),
    pytest.param(
        "bidding-bluff", {"ranking": "simple"}, 3,
        [
            (2, 4), Claim(S(8), 2), Pass(), {"chips": (10, 9, 10), "bank": 1},
            Bet(),
            # the claim is false: A pays C 2
            {"chips": (8, 9, 12), "bank": 1, "active": B, "standing": None, "revealed": (A, (2, 4))},
            (4, 5), Claim(S(9), 3), Pass(), {"chips": (8, 9, 11), "bank": 2},
            Pass(),
            # everybody passed: B takes the bank of 3; the 9 stays standing and C is active;
            # the 8 was revealed, so the round that the 9 opened holds the 9 alone
            {"chips": (7, 12, 11), "bank": 0, "active": C, "standing": S(9), "history": (S(9),), "phase": "roll"},
            (1, 1), Claim(S(10), 1), {"standing": S(10), "history": (S(9), S(10))},
        ],
        id="3.5.3-bidding-bluff",
    ),
    pytest.param(
        "liars-poker", {}, 3,
        [
            (2, 5, 5), {"public": (2, 5, 5), "active": A},
            (3, 6), Reroll(6), {"shown": 6},
            (2,), {"dice": (2, 6)},
            Claim(Hand(3, (5,)), 1), Pass(), Bet(),
            # two pairs revealed, the claim was false: A pays C 1; B starts a new round
            {"chips": (9, 9, 11), "bank": 1, "active": B, "phase": "public", "revealed": (A, (2, 6))},
        ],
        id="3.5.4-liars-poker",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "options", "players", "steps"), WORKED_EXAMPLES)
def test_worked_examples(name, options, players, steps):
    game = get_game(name, {"seating": "given", **options}, players)
    state = play(game, game.new_initial_state(), steps)
    assert sum(state.chips) + state.bank == 10 * players  # BLUFF-2: 10 chips each, conserved


def test_worked_example_3_5_3_c_must_claim_10_or_more():
    # worked example 3.5.3 ends with C active over a standing 9 (BLUFF-14, BLUFF-3)
    game = get_game("bidding-bluff", {"seating": "given"}, 3)
    steps = [(2, 4), Claim(S(8), 2), Pass(), Bet(), (4, 5), Claim(S(9), 3), Pass(), Pass(), (1, 1)]
    state = play(game, game.new_initial_state(), steps)
    assert {a.claim for a in game.legal_actions(state)} == {S(10), S(11), S(12)}
    assert {a.stake for a in game.legal_actions(state)} == set(range(1, 12))  # C holds 11


def test_worked_example_3_5_4_legal_claims_after_the_reroll():
    game = get_game("liars-poker", {"seating": "given"}, 3)
    state = play(game, game.new_initial_state(), [(2, 5, 5), (3, 6), Reroll(6), (2,)])
    assert hand_of(state.public + state.dice) == Hand(2, (5, 2))
    claimed = {a.claim for a in game.legal_actions(state) if isinstance(a, Claim)}
    assert claimed == {Hand(1, (5,)), Hand(2, (5, 2)), Hand(3, (5,)), Hand(2, (6, 5))}
    assert not any(isinstance(a, Reroll) for a in game.legal_actions(state))  # BLUFF-18: once


@pytest.mark.parametrize(("roll", "truthful"), [((2, 2), True), ((3, 5), False)])
def test_worked_example_3_5_2_abazs_pro(roll, truthful):
    # worked example 3.5.2: "non-pair 11" stands, D accepts; every legal claim is a pair
    game = AbazsGame(AbazsRules(seating="given", ranking="pro"), num_players=4)
    state = play(game, game.new_round_state((10,) * 4, starter=C), [(5, 6), Claim(NP(11)), Accept(), roll])
    assert state.active == D
    claims = [a.claim for a in game.legal_actions(state)]
    assert claims == [P(k) for k in range(1, 7)]
    assert any(is_true(c, roll) for c in claims) is truthful


# ----------------------------------------------------------------------------------------
# Common rules and options
# ----------------------------------------------------------------------------------------
def test_bluff_1_seating_by_roll_with_a_tie():
    # BLUFF-1: sums 7, 9, 7 seat player 1 first; players 0 and 2 roll again: 4 and 8
    game = AbazsGame(num_players=3)
    state = game.new_initial_state()
    assert game.current_player(state) == CHANCE and state.phase == "seating"
    state = play(game, state, [(3, 4), (4, 5), (1, 6), {"seating": ((1,), (0, 2)), "seat_rolls": ()}, (2, 2), (2, 6)])
    assert state.order == (1, 2, 0)
    assert state.phase == "roll" and state.active == 1  # the first seat starts


def test_bluff_1_seating_given():
    game = AbazsGame(AbazsRules(seating="given"), num_players=3)
    state = game.new_initial_state()
    assert state.order == (0, 1, 2) and state.active == 0 and state.phase == "roll"


def test_bluff_2_start_chips_parameter():
    game = get_game("bidding-bluff", {"bluff.start_chips": "7"}, 4)
    assert game.new_initial_state().chips == (7, 7, 7, 7)
    with pytest.raises(RulesError, match=r"the starting chips must be a whole number from 1 to 1000000, not 0"):
        BiddingBluffRules(start_chips=0)


def test_bluff_3_strict_escalation_and_off():
    # BLUFF-3: a claim must beat the standing one; escalation = off allows any claim
    strict = AbazsGame(AbazsRules(seating="given"), num_players=2)
    state = play(strict, strict.new_initial_state(), [(1, 3), Claim(S(6)), Accept(), (1, 1)])
    assert [a.claim for a in strict.legal_actions(state)] == [S(v) for v in range(7, 13)]
    with pytest.raises(IllegalActionError, match=r"claim 5 is not allowed: sum 5 does not rank above the standing claim sum 6"):
        strict.apply(state, Claim(S(5)))
    loose = AbazsGame(AbazsRules(seating="given", escalation="off"), num_players=2)
    state = play(loose, loose.new_initial_state(), [(1, 3), Claim(S(6)), Accept(), (1, 1)])
    assert len(loose.legal_actions(state)) == 11
    assert loose.apply(state, Claim(S(2))).standing == S(2)


def test_bluff_5_abazs_top_claim_must_be_challenged():
    game = AbazsGame(AbazsRules(seating="given"), num_players=2)
    state = play(game, game.new_initial_state(), [(6, 6), Claim(S(12))])
    assert game.legal_actions(state) == [Challenge()]
    with pytest.raises(IllegalActionError, match=r"the top claim sum 12 cannot be accepted: it must be challenged"):
        game.apply(state, Accept())


def test_bluff_5_first_must_bet_even_short_of_chips():
    # BLUFF-5 (bid.top_claim = first_must_bet) and BLUFF-13: obliged with 2 chips < k = 5,
    # B bets all he has; the claim is true, so he loses those 2 and is out (BLUFF-6)
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=3)
    state = game.new_round_state((6, 2, 6), starter=A)
    state = play(game, state, [(6, 6), Claim(S(12), 5)])
    assert game.legal_actions(state) == [Bet()]
    state = play(game, state, [Bet(), {"bets": ((B, 2),)}])
    assert game.legal_actions(state) == [Pass(), Bet()]  # only the first answerer is obliged
    state = game.apply(state, Pass())
    assert state.chips == (8, 0, 5) and state.bank == 1
    assert game.is_terminal(state)


def test_bluff_5_all_pass_resets():
    # option bid.top_claim = all_pass_resets: nobody is obliged; if all pass on the top
    # claim, A takes the bank and the round ends with no claim standing
    game = BiddingBluffGame(BiddingBluffRules(seating="given", top_claim="all_pass_resets"), num_players=3)
    state = play(game, game.new_round_state((5, 5, 5), starter=A, bank=4), [(1, 2), Claim(S(12), 1)])
    assert game.legal_actions(state) == [Pass(), Bet()]
    state = play(game, state, [Pass(), Pass()])
    assert state.chips == (5 + 4 + 2, 4, 4) and state.bank == 0
    assert state.standing is None and state.rounds == 1 and state.active == B and state.revealed is None


@pytest.mark.parametrize(
    ("chips", "winners"),
    [((0, 11, 11, 8), (0, 0.5, 0.5, 0)), ((5, 0, 9, 16), (0, 0, 0, 1.0)), ((7, 7, 7, 0), (1 / 3, 1 / 3, 1 / 3, 0))],
)
def test_bluff_6_win_shares(chips, winners):
    # BLUFF-6: the most chips wins; m players tied share 1/m each
    game = AbazsGame(AbazsRules(seating="given"), num_players=4)
    total = sum(chips)  # a start from which these chips add up (BLUFF-2)
    start = tuple(total // 4 + (p < total % 4) for p in range(4))
    over = dataclasses.replace(game.new_round_state(start), phase="over", active=-1, chips=chips, rounds=1)
    assert game.returns(over) == pytest.approx(winners)


def test_bluff_6_game_ends_when_a_player_has_no_chips():
    game = AbazsGame(AbazsRules(seating="given", start_chips=1), num_players=3)
    state = play(game, game.new_initial_state(), [(1, 2), Claim(S(7)), Challenge()])
    assert state.chips == (0, 2, 1)  # A lied (3, not 7) and paid B
    assert game.current_player(state) == TERMINAL
    assert game.returns(state) == (0.0, 1.0, 0.0)
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(state, (1, 1))


def test_max_rounds_bounds_the_game():
    game = AbazsGame(AbazsRules(seating="given", max_rounds=2), num_players=2)
    state = play(game, game.new_initial_state(), [(1, 2), Claim(S(3)), Challenge(), {"rounds": 1, "active": B}])
    # round 1: A's 3 was true, B paid; round 2: B's 9 on a roll of 4 was false, B pays again
    state = play(game, state, [(2, 2), Claim(S(9)), Challenge()])
    assert game.is_terminal(state) and state.rounds == 2 and state.chips == (12, 8)
    assert game.returns(state) == (1.0, 0.0)


def test_bluff_8_claimants_dice_hidden_from_others():
    # BLUFF-8: rolled under cover; the claimant sees them, the next player does not
    game = AbazsGame(AbazsRules(seating="given"), num_players=2)
    state = play(game, game.new_initial_state(), [(1, 3), Claim(S(6))])
    assert game.observation(state, A)["state"]["dice"] == [1, 3]
    assert game.observation(state, B)["state"]["dice"] == [None, None]
    state = play(game, state, [Challenge()])
    assert game.observation(state, B)["state"]["revealed"] == [A, [1, 3]]


def test_bluff_9_accept_means_a_fresh_roll_and_a_higher_claim():
    # BLUFF-9: after accepting, B rolls afresh under cover; the 5 stays standing
    game = AbazsGame(AbazsRules(seating="given"), num_players=3)
    state = play(game, game.new_initial_state(), [(2, 3), Claim(S(5)), Accept()])
    assert state.phase == "roll" and state.active == B and state.dice == () and state.standing == S(5)


@pytest.mark.parametrize(
    ("next_starter", "roll", "chips", "starter"),
    [
        ("challenger", (3, 4), (11, 9), B),  # true 7: B pays; B, the challenger, starts
        ("challenger", (1, 2), (9, 11), B),  # false: A pays
        ("loser", (3, 4), (11, 9), B),  # B paid, so B starts
        ("loser", (1, 2), (9, 11), A),  # A paid, so A starts
    ],
)
def test_bluff_10_challenge_and_next_starter(next_starter, roll, chips, starter):
    # BLUFF-10 and option abazs.next_starter
    game = AbazsGame(AbazsRules(seating="given", next_starter=next_starter), num_players=2)
    state = play(game, game.new_initial_state(), [roll, Claim(S(7)), Challenge()])
    assert state.chips == chips and state.active == starter and state.standing is None


def test_bluff_11_bank_starts_empty_and_ranking_pro():
    # BLUFF-11: BLUFF-1..BLUFF-7 with either ranking, and a bank that starts empty
    game = get_game("bidding-bluff", {"seating": "given", "ranking": "pro"}, 2)
    state = play(game, game.new_initial_state(), [(3, 3)])
    assert state.bank == 0
    assert len({a.claim for a in game.legal_actions(state)}) == 15  # BLUFF-7 pro ranking


@pytest.mark.parametrize(("cap", "chips", "players", "largest"), [
    ("own_chips", 5, 3, 5), ("coverable", 5, 3, 2), ("coverable", 7, 2, 7), ("coverable", 1, 4, 1),
])  # fmt: skip
def test_bluff_12_stake_cap(cap, chips, players, largest):
    # BLUFF-12, option bid.stake_cap: coverable = chips // opponents, at least 1
    game = BiddingBluffGame(BiddingBluffRules(seating="given", stake_cap=cap), num_players=players)
    state = game.apply(game.new_round_state((chips,) + (3,) * (players - 1)), (1, 1))
    assert game.max_stake(state) == largest
    assert max(a.stake for a in game.legal_actions(state)) == largest
    with pytest.raises(IllegalActionError, match=rf"the stake must be from 1 to {largest} chips here, not {largest + 1}$") as caught:
        game.apply(state, Claim(S(5), largest + 1))
    assert caught.value.rule == "BLUFF-12"


def test_bluff_13_cannot_bet_with_fewer_chips_than_the_stake():
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=2)
    state = play(game, game.new_round_state((6, 3)), [(1, 1), Claim(S(4), 4)])
    assert game.legal_actions(state) == [Pass()]
    with pytest.raises(IllegalActionError, match="3 chips, fewer than the stake 4"):
        game.apply(state, Bet())


def test_bluff_14_everybody_passed_keeps_the_claim_standing():
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=3)
    state = play(game, game.new_round_state((5, 5, 5), starter=B, bank=2), [(3, 4), Claim(S(7), 3), Pass(), Pass()])
    assert state.chips == (4, 5 + 2 + 2, 4) and state.bank == 0
    assert state.standing == S(7) and state.active == C and state.rounds == 0 and state.revealed is None


@pytest.mark.parametrize(
    ("roll", "chips", "bank"),
    [
        # true 11: the two bettors' 3 chips each go to A; B's passing chip stays in the bank
        ((5, 6), (10 + 6, 9, 7, 7), 1),
        # false: A pays 3 to each bettor
        ((1, 2), (10 - 6, 9, 13, 13), 1),
    ],
)
def test_bluff_15_reveal(roll, chips, bank):
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=4)
    state = play(game, game.new_initial_state(), [roll, Claim(S(11), 3), Pass(), Bet(), Bet()])
    assert (state.chips, state.bank, state.standing, state.rounds) == (chips, bank, None, 1)


def test_bluff_15_short_liar_pays_in_betting_order():
    # A stakes all 4 chips, C and D bet 4 each; A lied, so C gets 4 and D nothing
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=4)
    state = play(game, game.new_round_state((4, 5, 5, 5)), [(1, 2), Claim(S(10), 4), Pass(), Bet(), Bet()])
    assert state.chips == (0, 4, 9, 5) and state.bank == 1
    assert game.is_terminal(state)  # BLUFF-6
    assert game.returns(state) == (0.0, 0.0, 1.0, 0.0)


@pytest.mark.parametrize(("rule", "next_active"), [("next_seat", B), ("first_bettor", C)])
def test_bluff_16_next_active(rule, next_active):
    # BLUFF-16, option bid.next_active: after a reveal, B (next seat) or C (first bettor)
    game = BiddingBluffGame(BiddingBluffRules(seating="given", next_active=rule), num_players=4)
    state = play(game, game.new_initial_state(), [(3, 4), Claim(S(7), 1), Pass(), Bet(), Bet()])
    assert state.active == next_active and state.phase == "roll"


@pytest.mark.parametrize(("rule", "first"), [("starter", A), ("next_seat", B)])
def test_bluff_17_public_roll_and_first_turn(rule, first):
    # BLUFF-17, option liar.first_turn: the starter rolls three public dice openly
    game = LiarsPokerGame(LiarsPokerRules(seating="given", first_turn=rule), num_players=3)
    state = game.new_initial_state()
    assert state.phase == "public" and state.active == A and game.is_chance_node(state)
    assert len(game.chance_outcomes(state)) == 56  # C(8,3) sorted rolls of three dice
    state = game.apply(state, (1, 3, 3))
    assert state.public == (1, 3, 3) and state.active == first
    assert game.observation(state, C)["state"]["public"] == [1, 3, 3]


def test_bluff_17_21_public_dice_stay_after_everybody_passed():
    game = LiarsPokerGame(LiarsPokerRules(seating="given"), num_players=2)
    state = play(game, game.new_initial_state(), [(1, 3, 3), (2, 4), Claim(Hand(1, (3,)), 1), Pass()])
    # BLUFF-21: B is active with the same public dice and the pair of 3s standing
    assert state.public == (1, 3, 3) and state.active == B and state.standing == Hand(1, (3,))
    assert state.chips == (11, 9) and state.phase == "roll"


def test_bluff_18_reroll_shows_the_kept_die_only():
    game = LiarsPokerGame(LiarsPokerRules(seating="given"), num_players=2)
    state = play(game, game.new_initial_state(), [(2, 5, 5), (3, 6), Reroll(6), (2,)])
    assert game.observation(state, A)["state"]["dice"] == [2, 6]
    assert game.observation(state, B)["state"]["dice"] == [6, None]
    with pytest.raises(IllegalActionError, match="one re-throw per turn"):
        game.apply(state, Reroll(2))


def test_bluff_18_no_reroll_showing_a_die_that_leaves_no_claim():
    # public [6,6,6] with four 6s standing: showing the 1 leaves at best four 6s (hidden 6),
    # not above the standing claim; showing the 6 leaves five 6s
    game = LiarsPokerGame(LiarsPokerRules(seating="given"), num_players=2)
    state = LiarsPokerState(
        phase="claim", chips=(5, 5), initial=(5, 5), order=(0, 1), active=B,
        dice=(1, 6), public=(6, 6, 6), standing=Hand(7, (6,)), history=(Hand(7, (6,)),),
    )  # fmt: skip
    rerolls = [a for a in game.legal_actions(state) if isinstance(a, Reroll)]
    assert rerolls == [Reroll(6)]
    with pytest.raises(IllegalActionError, match=r"showing 1 would leave no claim above four of a kind 6"):
        game.apply(state, Reroll(1))


def test_liar_reroll_one_or_both():
    # option liar.reroll = one_or_both: both dice again, both hidden
    game = LiarsPokerGame(LiarsPokerRules(seating="given", reroll="one_or_both"), num_players=2)
    state = play(game, game.new_initial_state(), [(1, 2, 3), (4, 4)])
    assert Reroll(None) in game.legal_actions(state)
    state = game.apply(state, Reroll(None))
    assert len(game.chance_outcomes(state)) == 21 and state.shown == 0
    state = game.apply(state, (5, 6))
    assert game.observation(state, B)["state"]["dice"] == [None, None]
    default = LiarsPokerGame(LiarsPokerRules(seating="given"), num_players=2)
    with pytest.raises(IllegalActionError, match=r"reroll both is not allowed: under these rules only one die may be thrown again"):
        default.apply(play(default, default.new_initial_state(), [(1, 2, 3), (4, 4)]), Reroll(None))


@pytest.mark.parametrize(("private", "true"), [((4, 6), True), ((4, 5), False)])
def test_liar_claim_dice(private, true):
    # option liar.claim = dice: the claim names the hidden dice; escalation compares the
    # hands they make; the claim is true only if the dice match
    game = LiarsPokerGame(LiarsPokerRules(seating="given", claim="dice"), num_players=2)
    state = play(game, game.new_initial_state(), [(1, 2, 3), private])
    claims = [a.claim for a in game.legal_actions(state) if isinstance(a, Claim)]
    assert len({c for c in claims}) == 21  # every sorted pair of hidden dice
    state = game.apply(state, Claim(DiceClaim((6, 4)), 2))
    assert state.standing == Hand(0, (6, 4, 3, 2, 1)) and state.claimed_dice == (4, 6)
    state = game.apply(state, Bet())
    assert state.chips == ((12, 8) if true else (8, 12))


@pytest.mark.parametrize(("truth", "chips"), [("exact", (9, 11)), ("at_least", (11, 9))])
def test_liar_truth_at_least(truth, chips):
    # bluff.truth = at_least: the actual full house ranks above the claimed three 5s
    game = LiarsPokerGame(LiarsPokerRules(seating="given", truth=truth), num_players=2)
    state = play(game, game.new_initial_state(), [(2, 5, 5), (2, 5), Claim(Hand(3, (5,)), 1), Bet()])
    assert state.chips == chips


# ----------------------------------------------------------------------------------------
# Stakes are a range (BLUFF-12): bounded listings, exact legality
# ----------------------------------------------------------------------------------------
def _claiming(players: int, chips: tuple, dice=(1, 2), **options):
    game = BiddingBluffGame(BiddingBluffRules(seating="given", **options), num_players=players)
    return game, game.apply(game.new_round_state(chips), dice)


def test_bluff_12_candidate_stakes_by_hand():
    # A holds 100 chips, B 25 and C 40: the stakes 1..20 one by one, then where a player
    # stops being able to bet (BLUFF-13: above his chips) and the largest, 100
    game, state = _claiming(3, (100, 25, 40))
    assert STAKES_LISTED == 20
    assert game.candidate_stakes(state) == (*range(1, 21), 25, 26, 40, 41, 100)
    assert game.stake_range(state) == range(1, 101)
    # coverable: 100 // 2 = 50 caps the stake, and 41 is still below it
    game, state = _claiming(3, (100, 25, 40), stake_cap="coverable")
    assert game.candidate_stakes(state) == (*range(1, 21), 25, 26, 40, 41, 50)
    # a cap of 20 or less lists every stake (every two-player game from 10 chips)
    game, state = _claiming(2, (19, 1))
    assert game.candidate_stakes(state) == tuple(range(1, 20))


def test_bluff_12_a_million_chips_list_a_bounded_number_of_actions_and_apply_takes_any_stake():
    game, state = _claiming(4, (MAX_CHIPS, 7, MAX_CHIPS, 3))
    legal = game.legal_actions(state)
    claims = game.claimable(state)
    assert claims == list(game.claims())  # nothing stands: all 11 sums
    stakes = {a.stake for a in legal}
    assert stakes == set(range(1, 21)) | {MAX_CHIPS}  # 7, 8, 3, 4 are small; the other holds as much as A
    assert len(legal) == len(claims) * len(stakes) == 11 * 21
    # the stakes between the candidates are legal too: apply checks the range, not the list
    assert game.apply(state, Claim(S(5), 123_457)).stake == 123_457
    with pytest.raises(IllegalActionError, match=rf"the stake must be from 1 to {MAX_CHIPS} chips here, not {MAX_CHIPS + 1}$"):
        game.apply(state, Claim(S(5), MAX_CHIPS + 1))
    with pytest.raises(IllegalActionError, match=r"the stake must be from 1 to 1000000 chips here, not 2\.5"):
        game.apply(state, Claim(S(5), 2.5))
    # one choice per claim: its stakes as a range
    ranges = game.claim_ranges(state)
    assert ranges == [ClaimRange(c, 1, MAX_CHIPS) for c in claims]
    assert game.legal_choices(state) == ranges
    assert ranges[3].with_stake(999) == Claim(S(5), 999) and len(ranges[3].stakes) == MAX_CHIPS


def test_legal_choices_give_answers_and_rerolls_as_they_are():
    game = LiarsPokerGame(LiarsPokerRules(seating="given"), num_players=2)
    state = play(game, game.new_initial_state(), [(2, 5, 5), (3, 6)])
    choices = game.legal_choices(state)
    assert [c for c in choices if not isinstance(c, ClaimRange)] == [Reroll(3), Reroll(6)]
    assert [c.claim for c in choices if isinstance(c, ClaimRange)] == achievable_claims((2, 5, 5))
    answering = game.apply(state, Claim(Hand(1, (5,)), 4))
    assert game.legal_choices(answering) == game.legal_actions(answering) == [Pass(), Bet()]
    abazs = AbazsGame(AbazsRules(seating="given"), num_players=2)
    claiming = abazs.apply(abazs.new_initial_state(), (1, 3))
    assert abazs.legal_choices(claiming) == [ClaimRange(c, 0, 0) for c in abazs.claims()]  # no stakes in Abázs
    assert abazs.stake_range(claiming) == range(0, 1)


def test_liar_claim_dice_lists_claims_lowest_first():
    # the hidden dice named, ordered by the hand they make with the public dice (BLUFF-20)
    game = LiarsPokerGame(LiarsPokerRules(seating="given", claim="dice"), num_players=2)
    state = play(game, game.new_initial_state(), [(1, 2, 3), (4, 6)])
    claims = game.claimable(state)
    hands = [game.dice_claim_hand(c, state.public) for c in claims]
    assert hands == sorted(hands) and len(claims) == 21
    assert [game.claim_strength(c, state.public) for c in claims] == sorted(claim_rank(h) for h in hands)


# ----------------------------------------------------------------------------------------
# Every option and state field is bounded; a state's chips add up
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("option", "value", "message"), [
    ("start_chips", MAX_CHIPS + 1, r"the starting chips must be a whole number from 1 to 1000000, not 1000001"),
    ("start_chips", 10**9, r"the starting chips must be a whole number from 1 to 1000000, not 1000000000"),
    ("max_rounds", MAX_ROUNDS + 1, r"the rule option max_rounds must be none, for no limit, or a whole number from 1 to"),
    ("max_rounds", "12345678901234567890", r"the rule option max_rounds must be none, for no limit, or a whole number from 1 to"),
])  # fmt: skip
def test_rule_options_are_bounded(option, value, message):
    for name in ("abazs", "bidding-bluff", "liars-poker"):
        with pytest.raises(RulesError, match=message):
            get_game(name, {option: value}, 2)
    assert get_game("bidding-bluff", {"start_chips": MAX_CHIPS}, 2).new_initial_state().chips == (MAX_CHIPS, MAX_CHIPS)


def test_a_game_without_a_round_limit_ends_after_max_rounds():
    game = AbazsGame(AbazsRules(seating="given"), num_players=2)
    state = dataclasses.replace(game.new_round_state((10, 10)), rounds=MAX_ROUNDS - 1)
    state = play(game, state, [(3, 4), Claim(S(7)), Challenge()])
    assert game.is_terminal(state) and state.rounds == MAX_ROUNDS and state.chips == (11, 9)


def _answering(**change):
    """Bidding bluff, three players: A claims 9 with stake 4 and B passed (bank 1)."""
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=3)
    state = play(game, game.new_round_state((10, 10, 10)), [(4, 5), Claim(S(9), 4), Pass()])
    return game, dataclasses.replace(state, **change)


@pytest.mark.parametrize(("change", "message"), [
    # the seat's defect of issue 12: a million chips from a game of 10 + 10
    ({"chips": (10, 1_000_000, 9)}, r"the chips do not add up: the players and the bank hold 1000020 in all, but the game began "
                                    r"with 30$"),
    ({"chips": (20000, 10, 9)}, r"the chips do not add up: the players and the bank hold 20020 in all, but the game began"),
    ({"initial": (10**7, 10, 10)}, r"every player starts with 1 to 1000000 chips, not 10000000 10 10"),
    ({"initial_bank": -1}, r"a bank starts with 0 to 1000000 chips, not \-1"),
    ({"bank": 0, "chips": (10, 10, 10)}, r"the bank holds 0 chips, fewer than the 1 passes of this betting round"),
    ({"stake": 11}, r"the stake must be from 1 to 10, not 11"),
    ({"bets": ((2, 4),)}, r"the bets must come from the players who answered, in seat order"),
    ({"rounds": MAX_ROUNDS + 1}, r"the number of rounds played must be from 0 to 1000000, not 1000001"),
    ({"phase": "over", "active": -1, "dice": (), "standing": None, "history": (), "stake": 0, "answered": 0},
     r"the game ends when a player has no chips left or after 1000000 rounds, but the chips are"),
])  # fmt: skip
def test_inconsistent_states_are_named(change, message):
    game, state = _answering(**change)
    with pytest.raises(InvalidStateError, match=message):
        game.check_state(state)


def test_bets_fit_the_chips():
    # C holds 3 chips when B has passed: he cannot have bet the stake 4 (BLUFF-13)
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=4)
    state = play(game, game.new_round_state((10, 10, 3, 10)), [(4, 5), Claim(S(9), 4), Pass()])
    assert game.legal_actions(state) == [Pass()]
    with pytest.raises(InvalidStateError, match=r"player 3 holds 3 chips, fewer than the stake 4, so cannot have bet"):
        game.check_state(dataclasses.replace(state, bets=((2, 4),), answered=2))
    # obliged by BLUFF-5 with 2 chips, B bets exactly his 2 (test_bluff_5_first_must_bet_even_short_of_chips)
    game = BiddingBluffGame(BiddingBluffRules(seating="given"), num_players=3)
    state = play(game, game.new_round_state((6, 2, 6)), [(6, 6), Claim(S(12), 5), Bet()])
    assert state.bets == ((1, 2),)
    with pytest.raises(InvalidStateError, match=r"player 2 bet 1 chips, but must bet all of his chips up to the stake: 2"):
        game.check_state(dataclasses.replace(state, bets=((1, 1),)))


def test_a_starting_bank_is_part_of_the_chips_in_play():
    game = single_round_game("bidding-bluff", 3)
    state = game.new_round_state((4, 4, 4), starter=1, bank=3)
    assert state.initial_bank == 3 and state.bank == 3
    doc = game.state_to_json(state)
    assert doc["state"]["initial_bank"] == 3 and game.state_from_json(doc) == state
    # a game that starts without one writes the documents it always wrote (no such field)
    assert "initial_bank" not in game.state_to_json(game.new_round_state((4, 4, 4)))["state"]
    with pytest.raises(InvalidStateError, match="the chips do not add up"):
        game.check_state(dataclasses.replace(state, initial_bank=0))
    with pytest.raises(InvalidStateError, match=r"the bank must hold 0 to 1000000 chips, not 1000001"):
        game.new_round_state((4, 4, 4), bank=MAX_CHIPS + 1)
    with pytest.raises(InvalidStateError, match=r"a round starts with 3 players holding 1 to 1000000 chips each, not 4 4 1000001"):
        game.new_round_state((4, 4, MAX_CHIPS + 1))


def test_describe_state_is_a_sentence():
    # seats 1-based as players count them (seat 2 answers seat 0's claim of a sum of 9)
    game, state = _answering()
    with use_language("en"):
        assert game.describe_state(state) == (
            "player 3 answers the claim of player 1; the standing claim is 9, stake 4; chips 10, 9, 10, bank 1"
        )
    with use_language("hu"):
        assert game.describe_state(state) == (
            "3. játékos felel a bemondásra, a bemondó: 1. játékos; az érvényes bemondás: 9, tét: 4; zsetonok: 10, 9, 10, kassza: 1"
        )
    fresh = AbazsGame(AbazsRules(seating="given"), num_players=2)
    with use_language("en"):
        assert fresh.describe_state(fresh.new_initial_state()) == "player 1 rolls; no claim stands; chips 10, 10"
    liar = LiarsPokerGame(LiarsPokerRules(seating="given", claim="dice"), num_players=2)
    claimed = play(liar, liar.new_initial_state(), [(1, 2, 3), (4, 6), Claim(DiceClaim((6, 4)), 2)])
    with use_language("en"):
        assert liar.describe_state(claimed) == (
            "player 2 answers the claim of player 1; the standing claim is nothing 6 4 3 2 1, "
            "naming the hidden dice 4 6, stake 2; chips 10, 10"
        )


@pytest.mark.parametrize(("name", "steps", "action", "message", "rule"), [
    ("abazs", [(1, 3), Claim(S(6)), Accept(), (1, 1)], Claim(S(5)),
     r"^claim 5 is not allowed: sum 5 does not rank above the standing claim sum 6$", "BLUFF-3"),
    ("abazs", [(1, 3)], Claim(TwoDiceClaim("pair", 3)),
     r"^claim pair 3 is not allowed: pair of 3s is not a claim of this ranking$", "BLUFF-7"),
    ("abazs", [(1, 3)], Claim(S(5), 2), r"^claims in this game carry no stake, not 2$", "BLUFF-9"),
    ("abazs", [(1, 3)], Pass(), r"^that is not a move of this game; its moves are claim, accept, challenge$", None),
    ("abazs", [(1, 3), Claim(S(4))], Claim(S(5)),
     r"^claim 5 is not a move now$", None),
    ("liars-poker", [(2, 5, 5), (3, 6)], Claim(Hand(8, (6,)), 1),
     r"^claim five of a kind 6 stake 1 is not allowed: no hidden dice make five of a kind 6 "
     r"with the public dice 2 5 5$", "BLUFF-20"),
])  # fmt: skip
def test_illegal_actions_are_named_in_words(name, steps, action, message, rule):
    game = get_game(name, {"seating": "given"}, 2)
    state = play(game, game.new_initial_state(), steps)
    with pytest.raises(IllegalActionError, match=message) as caught:
        game.apply(state, action)
    assert caught.value.rule == rule


# ----------------------------------------------------------------------------------------
# Single rounds, JSON, errors
# ----------------------------------------------------------------------------------------
def test_single_round_game_returns_chip_changes():
    game = single_round_game("bidding-bluff", 3)
    state = play(game, game.new_round_state((4, 4, 4), starter=B, bank=3), [(6, 6), Claim(S(12), 2), Bet(), Pass()])
    # true 12: C's 2 go to B; A's passing chip joins the bank of 3 (BLUFF-15)
    assert game.is_terminal(state)
    assert game.returns(state) == (-1.0, 2.0, -2.0)
    assert state.bank == 4


def test_state_and_action_json_round_trip():
    game = LiarsPokerGame(LiarsPokerRules(seating="given", claim="dice"), num_players=3)
    state = play(game, game.new_initial_state(), [(2, 5, 5), (3, 6), Claim(DiceClaim((5, 5)), 1)])
    assert game.state_from_json(json.dumps(game.state_to_json(state))) == state
    action = Claim(DiceClaim((2, 6)), 3)
    assert game.action_from_json(json.loads(json.dumps(game.action_to_json(action)))) == action
    doc = game.action_to_json(Claim(Hand(2, (6, 5)), 1))
    assert doc == {"type": "Claim", "claim": {"category": 2, "faces": [6, 5]}, "stake": 1}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"phase": "bidding"}, r"the phase must be seating, public, roll, reroll, claim, answer or over, not bidding"),
        ({"chips": (5, -1)}, r"the state field chips must be 2 chip counts, not 5 \-1"),
        ({"dice": (3, 9)}, r"the active player holds two dice listed from low to high, not 3 9"),
        ({"standing": Hand(1, (7 - 1, 2))}, "not a claim of these rules"),
        ({"stake": 9}, r"the stake must be from 1 to 5, not 9"),
        ({"public": (1, 2)}, r"three public dice, listed from low to high, are on the table in the phase answer, not 1 2"),
        # BLUFF-3: the round's claim history ends with the standing claim and escalates
        ({"history": ()}, r"the claim history nothing must end with the standing claim pair 5"),
        ({"history": (Hand(1, (6,)), Hand(1, (5,)))}, r"each claim of the history must beat the one before, not pair 6 then pair 5"),
        # BLUFF-20: the public pair of 5s rules out "nothing" (five different faces)
        ({"history": (Hand(0, (6, 4, 3, 2, 1)), Hand(1, (5,)))}, r"no two dice make nothing 6 4 3 2 1 with the public dice 2 5 5"),
    ],
)
def test_impossible_states_are_named(change, message):
    game = LiarsPokerGame(LiarsPokerRules(seating="given"), num_players=2)
    state = play(game, game.new_round_state((5, 5)), [(2, 5, 5), (3, 6), Claim(Hand(1, (5,)), 1)])
    with pytest.raises(InvalidStateError, match=message):
        game.check_state(dataclasses.replace(state, **change))


def test_history_is_public_and_documents_without_it_read_as_the_opening_claim():
    game = AbazsGame(AbazsRules(seating="given"), num_players=2)
    state = play(game, game.new_initial_state(), [(1, 3), Claim(S(6)), Accept(), (4, 5), Claim(S(9))])
    # the claim history is public: B's hidden dice are not, the claims 6 and 9 are
    seen = game.observation(state, A)["state"]
    assert seen["dice"] == [None, None]
    assert seen["history"] == [{"kind": "sum", "value": 6}, {"kind": "sum", "value": 9}]
    # a kocka.state/1 document written before the field existed: 9 opened the round
    doc = game.state_to_json(state)
    del doc["state"]["history"]
    assert game.state_from_json(doc).history == (S(9),)


def test_bad_options_and_observers():
    with pytest.raises(RulesError, match=r"there is no rule option liar\.reroll in this game; the options are escalation, max_rounds,"):
        get_game("abazs", {"liar.reroll": "one_shown"}, 2)
    with pytest.raises(RulesError, match=r"the rule option ranking must be simple or pro, not fancy"):
        AbazsRules(ranking="fancy")
    with pytest.raises(RulesError, match="max_rounds.* 0"):
        AbazsRules(max_rounds=0)
    game = AbazsGame(num_players=2)
    with pytest.raises(ValueError, match=r"the observer must be one of the 2 players, not 2"):
        game.observation(game.new_initial_state(), 2)


# ----------------------------------------------------------------------------------------
# Random legal play (hypothesis)
# ----------------------------------------------------------------------------------------
def _options(rules_cls):
    # every rule option with each of its values (the engine parameter payoff excluded)
    choices = {k: st.sampled_from(v) for k, v in rules_cls.OPTIONS.items() if k != "payoff"}
    return st.fixed_dictionaries(choices)


def _with_other_hidden_dice(game, state):
    """The same state with the active player's hidden dice changed (shown die kept)."""
    hidden_count = len(state.dice) - (1 if state.shown else 0)
    known = (state.shown,) if state.shown else ()
    for other in itertools.product(range(1, 7), repeat=hidden_count):
        dice = tuple(sorted(known + other))
        if dice != state.dice:
            return dataclasses.replace(state, dice=dice)
    raise AssertionError("no other dice")


def _check_random_play(game, seed):
    rng = random.Random(seed)
    state = game.new_initial_state()
    total = sum(state.chips) + state.bank
    for _ in range(400):
        assert sum(state.chips) + state.bank == total  # chips are conserved
        assert game.state_from_json(json.loads(json.dumps(game.state_to_json(state)))) == state
        if game.is_terminal(state):
            returns = game.returns(state)
            assert sum(returns) == pytest.approx(1.0)  # BLUFF-6 win shares
            return
        with pytest.raises(IllegalActionError):
            game.returns(state)
        if game.is_chance_node(state):
            outcomes = game.chance_outcomes(state)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            state = game.apply(state, outcomes[rng.randrange(len(outcomes))][0])
            continue
        if state.dice and state.phase in ("claim", "answer"):
            # no observation of another seat depends on the active player's hidden dice
            twin = _with_other_hidden_dice(game, state)
            for p in range(game.num_players):
                if p != state.active:
                    assert game.observation(state, p) == game.observation(twin, p)
        actions = game.legal_actions(state)
        assert actions and len(set(actions)) == len(actions)
        action = actions[rng.randrange(len(actions))]
        assert game.action_from_json(json.loads(json.dumps(game.action_to_json(action)))) == action
        # as JSON text too (the seat's wire form): a claim's nested claim is a claim, not a dict
        assert game.action_from_json(json.dumps(game.action_to_json(action))) == action
        state = game.apply(state, action)
        game.check_state(state)
    raise AssertionError("no end within 400 steps")


@settings(max_examples=25, deadline=None)
@given(options=_options(AbazsRules), players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_random_play_abazs(options, players, seed):
    _check_random_play(AbazsGame(AbazsRules(start_chips=2, max_rounds=6, **options), players), seed)


@settings(max_examples=40, deadline=None)
@given(options=_options(BiddingBluffRules), players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_random_play_bidding_bluff(options, players, seed):
    _check_random_play(BiddingBluffGame(BiddingBluffRules(start_chips=5, max_rounds=5, **options), players), seed)


@settings(max_examples=40, deadline=None)
@given(options=_options(LiarsPokerRules), players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_random_play_liars_poker(options, players, seed):
    _check_random_play(LiarsPokerGame(LiarsPokerRules(start_chips=5, max_rounds=4, **options), players), seed)


def test_registry_names():
    assert isinstance(get_game("abazs", None, 2), AbazsGame)
    assert isinstance(get_game("bidding-bluff", None, 2), BiddingBluffGame)
    assert isinstance(get_game("liars-poker", None, 2), LiarsPokerGame)
