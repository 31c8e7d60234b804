"""The Abázs equilibrium (solver/solvers/bluff/abazs.py) and the exact LP under it
(solver/solvers/bluff/lp.py): hand-solved stages, exploitability from the independent best
response (solver/solvers/bluff/best_response.py, also checked in the one-betting-round
abstraction of tests/betting_round_abstraction.py), the table solver (BLUFF-3, BLUFF-5,
BLUFF-7..BLUFF-10, BLUFF-11..BLUFF-15)."""
from __future__ import annotations

from fractions import Fraction

import pytest

import betting_round_abstraction as abstraction
from kocka.solver.solvers.bluff import abazs as bluff_abazs
from kocka.solver.solvers.bluff import lp
from kocka.solver.base.errors import RulesError
from kocka.solver.store.table_store import solver_for
from kocka.solver.rules.bluff import (
    AbazsGame, AbazsRules, Accept, Bet, BiddingBluffGame, Challenge, Claim, Pass, TwoDiceClaim, actual_result,
    single_round_game,
)

SIMPLE = AbazsRules()


def s(value: int) -> TwoDiceClaim:
    return TwoDiceClaim("sum", value)


@pytest.fixture(scope="module")
def simple_round() -> bluff_abazs.AbazsEquilibrium:
    return bluff_abazs.solve_abazs(SIMPLE)


@pytest.fixture(scope="module")
def simple_table(abazs_equilibrium_table):
    # SIMPLE is the default rules: the run's shared table (tests/conftest.py), built once
    assert AbazsGame(SIMPLE, num_players=2).rules.variant_id() == abazs_equilibrium_table.meta.variant_id
    return abazs_equilibrium_table


# ----------------------------------------------------------------------------------------
# The exact LP
# ----------------------------------------------------------------------------------------
LP_CASES = [
    # max x + y, x + 2y <= 4, 3x + y <= 6: the vertex (8/5, 6/5), value 14/5 (by hand)
    ([1, 1], [[1, 2], [3, 1]], [4, 6], [], [], Fraction(14, 5), [Fraction(8, 5), Fraction(6, 5)]),
    # max x + y, x + 2y <= 4, x >= 1 (as -x <= -1), x = y: x = y = 4/3, value 8/3
    ([1, 1], [[1, 2], [-1, 0]], [4, -1], [[1, -1]], [0], Fraction(8, 3), [Fraction(4, 3), Fraction(4, 3)]),
    # max -x, x >= 2: a phase-1 start, value -2 at x = 2
    ([-1], [[-1]], [-2], [], [], Fraction(-2), [Fraction(2)]),
]


@pytest.mark.parametrize("objective, a_ub, b_ub, a_eq, b_eq, value, x", LP_CASES)
def test_lp_solves_hand_examples_exactly(objective, a_ub, b_ub, a_eq, b_eq, value, x):
    solution = lp.solve_lp(objective, a_ub, b_ub, a_eq, b_eq)
    assert solution.value == value and solution.x == x


def test_lp_duals_price_the_bounds():
    # the first case's duals by hand: y = c B^-1 with B = [[1,2],[3,1]]: (2/5, 1/5)
    assert lp.solve_lp([1, 1], [[1, 2], [3, 1]], [4, 6]).duals == [Fraction(2, 5), Fraction(1, 5)]


@pytest.mark.parametrize("objective, a_ub, b_ub, problem", [
    ([1], [[-1]], [-1], "unbounded"),       # max x with x >= 1
    ([1], [[1], [-1]], [1, -2], "infeasible"),  # x <= 1 and x >= 2
])
def test_lp_reports_bad_programs(objective, a_ub, b_ub, problem):
    with pytest.raises(lp.LPError, match=problem):
        lp.solve_lp(objective, a_ub, b_ub)


def test_signalling_solver_on_a_toy_poker():
    # a good or bad hand (1/2 each); "check" goes to showdown (+-1); "bet" is folded to (+1)
    # or called (+-2). By hand: the bad hand bets b with the caller indifferent,
    # 2(b - 1)/(1 + b) = -1, so b = 1/3; the caller calls c with the bad hand indifferent,
    # 1 - 3c = -1, so c = 2/3; value (1 + c)/2 - 1/2 = 1/3
    bet = [[1, 2], [1, -2]]  # per type: (fold, call)
    sol = lp.solve_signalling([Fraction(1, 2)] * 2, [[bet[0], [1]], [bet[1], [-1]]])
    assert sol.value == Fraction(1, 3)
    assert sol.receiver[0] == (Fraction(1, 3), Fraction(2, 3))
    assert sol.sender == ((1, 0), (Fraction(1, 3), Fraction(2, 3)))


# ----------------------------------------------------------------------------------------
# Stages solved by hand
# ----------------------------------------------------------------------------------------
STAGE_VALUES = [
    # simple, standing 11: only 12 may be claimed and it must be challenged (BLUFF-5); the
    # roller is right with a 12 only: 1/36 - 35/36
    ("simple", s(11), Fraction(-17, 18)),
    # simple, standing 10: a 12 claims 12 (+1); an 11 claims 11 (true: +1 if challenged,
    # +17/18 if accepted); the 33/36 others lie with 11 (12 is a sure -1). At 11 the claim
    # is true with mass 2/36 against 33/36, so the responder challenges (-31/36 for the
    # claimant beats 35/36 x 17/18). V = (1 + 2 - 33) / 36
    ("simple", s(10), Fraction(-5, 6)),
    # pro, standing "pair of 5s": only the pair of 6s (1/36) is left: as the simple 11
    ("pro", TwoDiceClaim("pair", 5), Fraction(-17, 18)),
    # pro, standing "pair of 4s": as the simple 10 with one-in-36 pairs: (1 + 1 - 34) / 36
    ("pro", TwoDiceClaim("pair", 4), Fraction(-8, 9)),
]


@pytest.mark.parametrize("ranking, standing, value", STAGE_VALUES)
def test_stage_values_match_hand_solutions(ranking, standing, value):
    eq = bluff_abazs.solve_abazs(AbazsRules(ranking=ranking))
    assert eq.stage(standing).value == value


def test_top_claim_stage_does_not_exist(simple_round):
    with pytest.raises(Exception, match="BLUFF-5"):
        simple_round.stage(s(12))


def test_stage_policies_are_distributions(simple_round):
    for stage in simple_round.stages:
        for row in stage.claim_policy:
            assert sum(row) == 1 and min(row) >= 0
        assert all(0 <= p <= 1 for p in stage.challenge) and stage.challenge[-1] == 1  # top claim: BLUFF-5


# ----------------------------------------------------------------------------------------
# Independent best response (the engine's game)
# ----------------------------------------------------------------------------------------
def _honest_doubter(ranking: str):
    """Claims the truth when allowed, else the lowest allowed claim; always challenges."""

    def policy(state, previous):
        if state.phase == "claim":
            game = AbazsGame(AbazsRules(ranking=ranking), 2)
            allowed = game.claims_above(state.standing)
            truth = actual_result(state.dice, ranking)
            return {Claim(truth if truth in allowed else allowed[0]): 1}
        return {Challenge(): 1}

    return policy


def test_best_response_against_an_honest_doubter_by_hand():
    # As starter a best responder claims his true result and is always challenged: +1.
    # As responder he faces a true claim c; challenging loses 1, accepting and claiming
    # his own result r when r > c (else a lie) earns P(r > c) - P(r <= c); summed over c
    # this is -P(tie) = -sum p^2 = -146/1296 (chances 1..6..1 out of 36, BLUFF-7).
    game = bluff_abazs.walk_game(SIMPLE)
    policy = _honest_doubter("simple")
    assert bluff_abazs.best_response_value(game, policy, 0) == 1
    assert bluff_abazs.best_response_value(game, policy, 1) == Fraction(-146, 1296)


def test_round_equilibrium_is_exactly_unexploitable(simple_round):
    game = bluff_abazs.walk_game(SIMPLE)
    measured = bluff_abazs.abazs_exploitability(game, bluff_abazs.exact_policy(simple_round))
    assert measured.exploitability == 0  # exact rational arithmetic throughout
    assert measured.best_response == (simple_round.value, -simple_round.value)


def test_seat_values_sum_to_zero_and_match_the_lp(simple_round):
    game = bluff_abazs.walk_game(SIMPLE)
    policy = bluff_abazs.exact_policy(simple_round)
    first = bluff_abazs.policy_value(game, [policy, policy], 0)
    second = bluff_abazs.policy_value(game, [policy, policy], 1)
    assert first + second == 0 and first == simple_round.value == Fraction(74381, 216216)


def test_pro_round_equilibrium_below_target():
    rules = AbazsRules(ranking="pro", truth="at_least")
    eq = bluff_abazs.solve_abazs(rules)
    assert bluff_abazs.abazs_exploitability(bluff_abazs.walk_game(rules), bluff_abazs.exact_policy(eq)).exploitability == 0


# ----------------------------------------------------------------------------------------
# The match: the next round's start is worth chips (BLUFF-10)
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def simple_match(simple_table) -> bluff_abazs.AbazsEquilibrium:
    """The round solved exactly at the start value x that the run's table stores for its
    match plan (found by the build's solve_match, a secant search), exactly as stored: one
    exact solve where a search of its own took eight."""
    return bluff_abazs.solve_abazs(SIMPLE, Fraction(simple_table.meta.extra["match"]["start_value_float"]))


def test_match_start_value_is_a_fixed_point(simple_match):
    # the stored x is the match's: the exact round at x is worth x / 2 to its starter
    assert abs(2 * simple_match.value - simple_match.start_value) < Fraction(1, 10**12)
    # challenger starts (BLUFF-10): a challenged claimant pays x/2 for not starting
    x = simple_match.start_value
    assert simple_match.challenged == (1 - x / 2, -1 - x / 2)


def test_the_round_equilibrium_is_exploitable_in_the_match(simple_round):
    # the +-1 round equilibrium ignores who starts next: a best responder in the match
    # gains chips off it (0.199 per round with these rules, by this measurement); the
    # match plan gives him nothing (test_table_records_exploitability_and_passes_its_checks:
    # the build's measurement of the stored plan, and the table check's own)
    game = bluff_abazs.walk_game(SIMPLE)
    assert bluff_abazs.abazs_match_exploitability(game, bluff_abazs.exact_policy(simple_round)).gain > 0.1


def test_match_value_of_a_policy_against_itself_is_zero(simple_match):
    # the match is symmetric: a policy against itself gains nothing on average
    game = bluff_abazs.walk_game(SIMPLE)
    policy = bluff_abazs.exact_policy(simple_match)
    assert abs(bluff_abazs.match_value(game, policy, policy).gain) < 1e-12


def test_loser_starts_rule_scales_the_challenge_payoffs():
    # next_starter = loser: a false claim makes the claimant start, so his payoffs are
    # (1 - x/2, -1 + x/2), a scaled +-1: the round plan stays an equilibrium of the match
    rules = AbazsRules(next_starter="loser")
    assert bluff_abazs.challenge_payoffs(rules, Fraction(1, 2)) == (Fraction(3, 4), Fraction(-3, 4))
    game = bluff_abazs.walk_game(rules)
    assert abs(bluff_abazs.abazs_match_exploitability(game, bluff_abazs.exact_policy(bluff_abazs.solve_abazs(rules))).gain) < 1e-9


# ----------------------------------------------------------------------------------------
# Rules the solver refuses
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("game, message", [
    (AbazsGame(AbazsRules(escalation="off"), 2), "escalation"),
    (AbazsGame(SIMPLE, 3), "2 players, got 3"),
    (BiddingBluffGame(num_players=2), "solves Abázs, got 'bidding-bluff'"),
])
def test_unsupported_games_are_refused(game, message):
    with pytest.raises(RulesError, match=message):
        bluff_abazs.check_abazs_rules(game)


def test_canonical_game_ignores_chips_and_seating():
    game = AbazsGame(AbazsRules(start_chips=3, seating="roll", ranking="pro"), 2)
    assert bluff_abazs.canonical_abazs_game(game).rules == AbazsRules(ranking="pro")


# ----------------------------------------------------------------------------------------
# The table (kocka-solve build abazs)
# ----------------------------------------------------------------------------------------
def test_table_records_exploitability_and_passes_its_checks(simple_table):
    # the build measures both plans by the independent best response; the check measures
    # the stored plans again (the match plan in the match: below 1e-3 chips per round)
    extra = simple_table.meta.extra
    assert extra["round"]["starter_value"] == "74381/216216"
    assert extra["round"]["round_exploitability"] < 1e-12
    assert abs(extra["match"]["match_exploitability"]) < 1e-9
    assert solver_for("abazs", "equilibrium").check(AbazsGame(SIMPLE, 2), simple_table) == []


def test_table_rank_gives_posterior_and_values(simple_table):
    game = single_round_game("abazs", 2)
    state = game.new_round_state((10, 10))
    state = game.apply(state, (5, 6))
    state = game.apply(state, Claim(s(12)))
    # previous claim 11: every roller must claim 12, so P(true) = P(a 12) = 1/36; the
    # round plan pays the challenger 1 - 2/36
    ranked = bluff_abazs.rank_abazs(game, simple_table, state, previous=s(11), plan="round")
    assert [d.action for d in ranked] == [Challenge()]
    assert ranked[0].detail["P(claim true)"] == pytest.approx(1 / 36)
    assert ranked[0].value == pytest.approx(34 / 36)
    opening = game.apply(game.apply(game.new_round_state((10, 10)), (3, 4)), Claim(s(7)))
    answers = bluff_abazs.rank_abazs(game, simple_table, opening)
    assert {type(d.action) for d in answers} == {Challenge, Accept}
    assert sum(d.detail["P(chosen)"] for d in answers) == pytest.approx(1.0)


# ----------------------------------------------------------------------------------------
# The best response in the one-betting-round abstraction of the bidding bluff
# (tests/betting_round_abstraction.py; BLUFF-11..BLUFF-15)
# ----------------------------------------------------------------------------------------
def _fixed(claim_value: int, stake: int, answer):
    """Claims ``sum claim_value`` with ``stake`` whatever the dice; answers ``answer``
    unless BLUFF-5 forces a bet on the top claim, 12."""

    def policy(state):
        if state.phase == "claim":
            return {Claim(s(claim_value), stake): 1}
        return {Bet() if state.standing == s(12) else answer: 1}

    return policy


def _truthful_stake_one(state):
    if state.phase == "claim":
        return {Claim(actual_result(state.dice, "simple"), 1): 1}
    return {Bet(): 1}


@pytest.mark.parametrize("cap, policy, best_responses", [
    # stake cap 1: a claimant who always claims 2 is believed by nobody: it is true 1 time
    # in 36, so the best answer bets, earning 35/36 - 1/36 = 17/18 (a pass costs 1); against
    # an answerer who always passes, any claim below 12 takes his chip (+1, BLUFF-14), and
    # nothing earns more with stake 1
    (1, _fixed(2, 1, Pass()), (Fraction(1), Fraction(17, 18))),
    # stake cap 2: against an answerer who always bets, the truth with stake 2 wins 2 (BLUFF-15);
    # a claimant who always tells the truth with stake 1 wins 1 whatever the answer
    (2, _truthful_stake_one, (Fraction(2), Fraction(-1))),
])  # fmt: skip
def test_betting_best_response_by_hand(cap, policy, best_responses):
    game = abstraction.betting_round_game(cap)
    result = abstraction.betting_exploitability(game, policy)
    assert result.best_response == best_responses
    assert result.exploitability == sum(best_responses) / 2


def test_betting_round_equilibrium_is_unexploitable():
    # stake cap 1: the truth is always allowed and pays +1 whether passed or bet on, and no
    # claim pays more than 1 chip: the value is exactly 1 (by hand)
    assert abstraction.solve_betting_round(abstraction.betting_round_game(1)).value == 1
    # stake cap 2: the LP's equilibrium, checked by the independent best response (exact)
    game = abstraction.betting_round_game(2)
    eq = abstraction.solve_betting_round(game)
    policy = eq.policy()
    assert abstraction.betting_policy_value(game, policy, policy) == eq.value
    assert abstraction.betting_exploitability(game, policy).best_response == (eq.value, -eq.value)
