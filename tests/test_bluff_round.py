"""The exact two-player round of the betting bluff games (solver/solvers/bluff/: stage.py,
betting.py, bidding.py, liars.py, match.py, plans.py; the walk of best_response.py):
stages solved by hand, the decomposition against a whole-tree LP of the engine's game,
exact best responses at every stage, the independent best response through the engine,
a Monte-Carlo check, liar's poker's public-roll symmetry and re-throws, and the tables
(RULES.md BLUFF-3..BLUFF-6, BLUFF-11..BLUFF-21)."""
from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.dice import all_outcomes
from kocka.solver.base.errors import RulesError
from kocka.solver.base.table_file import Table, check_layout
from kocka.solver.rules.base import CHANCE
from kocka.solver.rules.bluff import (
    Bet, BiddingBluffGame, BiddingBluffRules, Claim, LiarsPokerGame, LiarsPokerRules, Pass, Reroll, TwoDiceClaim,
    actual_result, claim_rank, hand_of, single_round_game, top_claim,
)
from kocka.solver.solvers.bluff import best_response, betting, bidding, liars, match, plans, two_player
from kocka.solver.solvers.bluff.lp import solve_lp
from kocka.solver.solvers.bluff.stage import (
    Message, StageClaim, StageGame, _lp_sender, answerer_best_reply, bet_probability, sender_best_reply, solve_stage,
)
from kocka.solver.store.table_store import build_table

F = Fraction


def s(value: int) -> TwoDiceClaim:
    return TwoDiceClaim("sum", value)


# ----------------------------------------------------------------------------------------
# Stages solved by hand
# ----------------------------------------------------------------------------------------
def toy_stage(x: int, y: int) -> StageGame:
    """A ranking with three results r1 < r2 < r3 (chances 1/2, 1/3, 1/6) and no claim
    standing but r1: the claims are r2 and r3 (the top claim, which must be bet on,
    BLUFF-5); r1 is false for both, r2 and r3 each true of itself (BLUFF-4)."""
    return StageGame(
        weights=(F(1, 2), F(1, 3), F(1, 6)),
        truth=((False, False), (True, False), (False, True)),
        claims=(StageClaim(toy_pass_value(x, y)), StageClaim(F(0), forced=True)),
        active_chips=x, responder_chips=y,
    )


def toy_pass_value(x: int, y: int) -> Fraction:
    """After a pass of r2 the answerer rolls with y - 1 chips against x + 1 and must claim
    r3, which is bet on with all he can stake, min(y - 1, x + 1) (BLUFF-5, BLUFF-13):
    true 1/6, else a liar loses 1 (stake 1). A pass of the last chip ends the game: 1."""
    if y == 1:
        return F(1)
    stake = min(y - 1, x + 1)
    return 1 - (F(1, 6) * stake - F(5, 6))


def test_one_chip_each_the_truth_always_earns_one():
    # (1, 1): a pass costs the answerer his last chip (BLUFF-6), so every claim earns its
    # claimant 1 if passed; r2 is true for itself (+1 if bet on), r3 must be bet on (+1
    # true); r1 lies: the answerer bets on r2 (the lie loses 1). V = 1/3 + 1/6 - 1/2 = 0.
    solved = solve_stage(toy_stage(1, 1))
    assert solved.value == 0 and solved.lie_value == -1


def test_three_chips_each_by_hand():
    # (3, 3): P = pass value of r2 = 1 + 1/2 = 3/2 (the answerer, at 2 against 4, claims
    # r3 with stake 2: 2/6 - 5/6). With stake k the answerer bets with beta: a true r2
    # earns 3/2 + beta (k - 3/2), a lie 3/2 - beta (k + 3/2). Making every lie earn at
    # most lambda costs the truth least at k = 3: T(lambda) = 3/2 + (1/3)(3/2 - lambda).
    # F(lambda) = lambda/2 + (1/3) T(lambda) + (1/6) 3 grows with lambda, so lambda = -1
    # (the least a lie can be made to earn: stake 1, bet on), T = 7/3, V = 7/9.
    solved = solve_stage(toy_stage(3, 3))
    assert solved.value == F(7, 9) and solved.lie_value == -1
    # beta at (r2, 3) = (3/2 + 1)/(3 + 3/2) = 5/9; the truth claims r2 with stake 3
    assert bet_probability(F(3, 2), F(-1), 3, 3, False) == F(5, 9)
    assert solved.sender[1] == {Message(0, 3): 1}
    # indifference at (r2, 3): lie mass = (3 - 3/2)/(3 + 3/2) x truth mass = 1/9, i.e.
    # r1 lies there with 2/9: P(r2 with stake 3 is true) = (1/3)/(1/3 + 1/9) = 3/4
    assert solved.sender[0][Message(0, 3)] == F(2, 9)


def test_stake_above_the_answerers_chips_cannot_be_bet_on():
    # (2, 1): stake 2 cannot be bet on (BLUFF-13), so any claim with it earns the pass
    # value, 1 (the answerer's last chip, BLUFF-6); r3 forced: +1 true, -1 lie. V = 1.
    solved = solve_stage(toy_stage(2, 1))
    assert solved.value == 1
    assert bet_probability(F(1), solved.lie_value, 2, 1, False) == 0


@pytest.mark.parametrize("chips", [(1, 1), (2, 2), (3, 3), (4, 2), (2, 5)])
def test_lp_agrees_with_the_closed_form(chips):
    stage = toy_stage(*chips)
    solved = solve_stage(stage)
    sender = _lp_sender(stage, solved.value)
    assert answerer_best_reply(stage, sender) == solved.value == sender_best_reply(stage, solved.lie_value)


def test_bidding_bluff_stages_by_hand():
    # simple ranking, standing 10: 11 (2/36) and 12 (1/36) may be true, 33/36 lie.
    # (1, 1): every pass ends the game (+1); 11 true earns 1 whatever the answer, a liar
    # is bet on (-1): V = 3/36 - 33/36 = -5/6. (1, 3): only 12 is left (BLUFF-3), and it
    # must be bet on (BLUFF-5): 1/36 - 35/36 = -17/18.
    game = BiddingBluffGame(BiddingBluffRules(), 2)
    solved = {(st.standing, st.chips): st.solution.value
              for st in bidding.solve_two_dice_orbit(game.rules, [(2, 2), (1, 3)], exact=True)}
    assert solved[(s(11), (1, 3))] == F(-17, 18)
    stage, claims, _ = bidding.two_dice_stage(game, s(10), 1, 1, lambda c, x, y: None)
    assert claims == (s(11), s(12)) and solve_stage(stage).value == F(-5, 6)


# ----------------------------------------------------------------------------------------
# The decomposition against the whole game tree
# ----------------------------------------------------------------------------------------
def whole_tree_value(game, start) -> Fraction:
    """The value to the roller of the round from ``start``, by one sequence-form LP over
    the engine's whole game tree (von Stengel 1996: max f'q s.t. F'q <= A'x, Ex = e,
    x >= 0), information sets being a player's observation and his own last sequence
    (perfect recall). Nothing of the stage decomposition is used."""
    seqs = [{(): 0}, {(): 0}]
    parent: list[dict] = [{}, {}]
    actions: list[dict] = [{}, {}]
    payoff: dict = {}

    def walk(state, reach, last):
        if game.is_terminal(state):
            payoff[last] = payoff.get(last, 0) + reach * F(game.returns(state)[0]).limit_denominator(100)
            return
        p = game.current_player(state)
        if p == CHANCE:
            for o, q in game.chance_outcomes(state):
                walk(game.apply(state, o), reach * F(q).limit_denominator(1296), last)
            return
        info = (json.dumps(game.observation(state, p), sort_keys=True), last[p])
        legal = game.legal_actions(state)
        parent[p].setdefault(info, last[p])
        actions[p].setdefault(info, legal)
        for a in legal:
            seq = (info, repr(a))
            seqs[p].setdefault(seq, len(seqs[p]))
            walk(game.apply(state, a), reach, (seq, last[1]) if p == 0 else (last[0], seq))

    walk(start, F(1), ((), ()))
    n0, n1 = len(seqs[0]), len(seqs[1])
    infos = list(actions[1])
    nq = 1 + len(infos)
    width = n0 + 2 * nq  # x, then q = q+ - q-
    a_eq, b_eq = [[F(1)] + [F(0)] * (width - 1)], [1]
    for info, legal in actions[0].items():
        row = [F(0)] * width
        row[seqs[0][parent[0][info]]] -= 1
        for a in legal:
            row[seqs[0][(info, repr(a))]] += 1
        a_eq.append(row)
        b_eq.append(0)
    f_matrix = [[F(0)] * n1 for _ in range(nq)]
    f_matrix[0][0] = F(1)
    for i, info in enumerate(infos, start=1):
        f_matrix[i][seqs[1][parent[1][info]]] -= 1
        for a in actions[1][info]:
            f_matrix[i][seqs[1][(info, repr(a))]] += 1
    a_ub = []
    for tau in range(n1):
        row = [F(0)] * width
        for (s0, s1), v in payoff.items():
            if seqs[1][s1] == tau:
                row[seqs[0][s0]] -= v
        for q in range(nq):
            row[n0 + q] += f_matrix[q][tau]
            row[n0 + nq + q] -= f_matrix[q][tau]
        a_ub.append(row)
    objective = [0] * n0 + [1] + [0] * (nq - 1) + [-1] + [0] * (nq - 1)
    return solve_lp(objective, a_ub, [0] * n1, a_eq, b_eq).value


@pytest.mark.parametrize("standing, chips", [(9, (1, 1)), (10, (1, 2)), (10, (2, 1))])
def test_stages_equal_the_whole_tree_lp(standing, chips):
    """Toy variants: the round from a late standing claim with few chips, the value of the
    solver's stage chain (exact, no rounding) against one LP of the whole tree."""
    game = single_round_game("bidding-bluff", 2)
    claim = s(standing)
    start = replace(game.new_round_state(chips), standing=claim, history=(claim,))
    group = next(g for g in betting.orbits(sum(chips)) if chips in g)
    stages = bidding.solve_two_dice_orbit(game.rules, group, exact=True)
    chain = next(st.solution.value for st in stages if st.standing == claim and st.chips == chips)
    assert chain == whole_tree_value(game, start)


# ----------------------------------------------------------------------------------------
# Exact best responses at every stage, and through the engine
# ----------------------------------------------------------------------------------------
def test_every_stage_is_certified_by_exact_best_replies():
    rules = BiddingBluffRules(ranking="pro")
    for stage in bidding.solve_two_dice_orbit(rules, next(g for g in betting.orbits(5) if (3, 2) in g)):
        solved = stage.solution
        assert sender_best_reply(stage.game, solved.lie_value) == solved.value
        assert answerer_best_reply(stage.game, solved.sender) == solved.value
        for probs in solved.sender:
            assert sum(probs.values()) == 1 and min(probs.values()) > 0


def stage_policy(game, stages):
    """An in-memory solution as a :data:`~kocka.solver.solvers.bluff.best_response.TurnPolicy`."""
    index = {(st.standing, st.chips): st for st in stages}

    def policy(state):
        a, o = state.active, 1 - state.active
        if state.phase == "claim":
            st = index[(state.standing, (state.chips[a], state.chips[o]))]
            result = actual_result(state.dice, game.rules.ranking)
            t = next(i for i, results in enumerate(st.types) if result in results)
            return {Claim(st.claims[m.claim], m.stake): float(p) for m, p in st.solution.sender[t].items()}
        st = index[(state.previous, (state.chips[a], state.chips[o]))]
        claim = st.game.claims[st.claims.index(state.standing)]
        beta = float(bet_probability(claim.pass_value, st.solution.lie_value, state.stake, st.chips[1], claim.forced))
        return {k: v for k, v in ((Bet(), beta), (Pass(), 1 - beta)) if v}

    return policy


@pytest.mark.parametrize("ranking, top_claim, chips", [
    ("simple", "first_must_bet", (2, 2)), ("pro", "first_must_bet", (3, 2)), ("simple", "all_pass_resets", (2, 3)),
])
def test_round_is_unexploitable_by_the_independent_best_response(ranking, top_claim, chips):
    rules = BiddingBluffRules(ranking=ranking, top_claim=top_claim)
    game = BiddingBluffGame(rules, 2)
    x, y = chips
    stages = bidding.solve_two_dice_orbit(rules, next(g for g in betting.orbits(x + y) if chips in g))
    policy = stage_policy(game, stages)
    value = float(next(st.solution.value for st in stages if st.standing is None and st.chips == chips))
    measured = best_response.round_exploitability(game, chips, policy)
    assert abs(measured.exploitability) < 1e-12
    assert abs(measured.best_response[0] - value) < 1e-12 and abs(best_response.round_value(game, chips, [policy] * 2) - value) < 1e-12


def test_best_response_against_a_passer_by_hand():
    # simple ranking, standing 10, 2 chips each; the opponent passes whenever he may and
    # claims the top claim 12. A best responder with 12 claims it with stake 2: it must be
    # bet on (BLUFF-5) and wins 2. Otherwise he claims 11: the pass pays him 1 (BLUFF-14),
    # the opponent (1 chip left) must claim 12 with stake 1 and he must bet: +1 unless the
    # opponent holds 12 (1/36): 1 + 34/36 = 35/18. In all: 2/36 + (35/36)(35/18) = 1261/648.
    game = single_round_game("bidding-bluff", 2)

    def passer(state):
        legal = game.legal_actions(state)
        if state.phase == "claim":
            return {max((a for a in legal if a.claim == s(12)), key=lambda a: a.stake): 1.0}
        return {Pass() if Pass() in legal else Bet(): 1.0}

    start = replace(game.new_round_state((2, 2)), standing=s(10), history=(s(10),))
    assert best_response.BestResponseWalk(game, [None, passer], 0).after(start) == pytest.approx(1261 / 648, abs=1e-14)


def test_monte_carlo_of_equilibrium_play_lands_in_the_interval():
    """Equilibrium against equilibrium through the engine (seeded): the starter's mean
    chips over 3000 rounds from (2, 2) lies within 3.29 standard errors (99.9 %) of V."""
    rules = BiddingBluffRules()
    game = single_round_game("bidding-bluff", 2)
    stages = bidding.solve_two_dice_orbit(rules, [(2, 2), (1, 3)])
    policy = stage_policy(BiddingBluffGame(rules, 2), stages)
    value = float(next(st.solution.value for st in stages if st.standing is None and st.chips == (2, 2)))
    rng = random.Random(7)
    results = []
    for _ in range(3000):
        state = game.new_round_state((2, 2))
        while not game.is_terminal(state):
            if game.current_player(state) == CHANCE:
                outcomes, weights = zip(*game.chance_outcomes(state))
            else:
                outcomes, weights = zip(*policy(state).items())
            state = game.apply(state, rng.choices(outcomes, weights=weights)[0])
        results.append(game.returns(state)[0])
    mean = sum(results) / len(results)
    sd = math.sqrt(sum((r - mean) ** 2 for r in results) / (len(results) - 1))
    assert abs(mean - value) < 3.29 * sd / math.sqrt(len(results))


# ----------------------------------------------------------------------------------------
# Liar's poker: re-throws and the public roll's symmetry
# ----------------------------------------------------------------------------------------
def test_public_rolls_fall_into_31_classes_of_equal_games():
    # e.g. [1,1,3] and [2,2,3]: in order, the same hands are achievable with the same
    # chances and truth patterns, and the re-throws lead to the same positions
    classes = liars.public_classes(LiarsPokerGame(LiarsPokerRules(), 2))
    assert len(classes) == 31 and sum(len(c) for c in classes) == 56
    assert [(1, 1, 3), (2, 2, 3)] in classes and [(6, 6, 6)] not in classes


def test_a_member_of_a_class_gets_the_values_of_its_own_solve():
    rules = LiarsPokerRules()
    together = liars.solve_liars_class(rules, [(1, 1, 3), (2, 2, 3)], 4)
    alone = liars.solve_liars_class(rules, [(2, 2, 3)], 4)
    member = all_outcomes(3).index((2, 2, 3))
    mine = {cell: v for cell, v in zip(together["cell"], together["value"]) if cell[0] == member}
    assert mine == dict(zip(alone["cell"], alone["value"]))


def liars_table(start: int, members) -> Table:
    rules = LiarsPokerRules(start_chips=start)
    rows = liars.solve_liars_class(rules, members, 2 * start)
    game = LiarsPokerGame(rules, 2)
    return betting.unstored_table(liars.liars_arrays(rows, len(game.claims()), 2 * start), {"total": 2 * start})


def test_liars_round_with_rethrows_is_unexploitable():
    # public roll [6,6,6], 2 chips each, from the standing claim "full house 6 over 4":
    # the roller may keep and show a die and throw the other again (BLUFF-18); the
    # independent best response walks the engine's re-throws and the turns that follow
    rules = LiarsPokerRules(start_chips=2)
    game = LiarsPokerGame(rules, 2)
    plan = liars.LiarsPlan(game, liars_table(2, [(6, 6, 6)]))
    walk_game = best_response.round_game(game)
    standing = hand_of((6, 6, 6, 4, 4))
    start = walk_game.apply(walk_game.new_round_state((2, 2)), (6, 6, 6))
    start = replace(start, standing=standing, history=(standing,))
    policy = plan.policy()
    value = plan.value((6, 6, 6), standing, 2, 2)
    best = (best_response.BestResponseWalk(walk_game, [None, policy], 0).after(start), best_response.BestResponseWalk(walk_game, [policy, None], 1).after(start))
    assert best[0] == pytest.approx(value, abs=1e-12) and best[1] == pytest.approx(-value, abs=1e-12)
    assert any(plan.distribution((6, 6, 6), standing, 2, 2, 0, i) for i in range(21))


def test_rethrow_is_an_outside_option_worth_its_stage():
    # one chip each: every pass ends the game, so a claim that is true earns +1 whatever
    # the answer; with [6,6,6] public every private roll makes a true claim: V = 1, and a
    # re-throw (whose stage is worth 1 too) is never better
    game = LiarsPokerGame(LiarsPokerRules(start_chips=1), 2)
    plan = liars.LiarsPlan(game, liars_table(1, [(6, 6, 6)]))
    assert plan.value((6, 6, 6), None, 1, 1) == 1
    assert all(plan.value((6, 6, 6), None, 1, 1, d) == 1 for d in range(1, 7))


# ----------------------------------------------------------------------------------------
# Tables and rules
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_table(tmp_path_factory):
    game = BiddingBluffGame(BiddingBluffRules(), 2)
    solver = bidding.BiddingEquilibriumSolver(max_total=6, measured=((2, 2),))
    return build_table(game, solver, BuildOptions(progress=False), tmp_path_factory.mktemp("tables"))


def test_table_records_values_and_exploitability(small_table):
    extra = small_table.meta.extra
    assert extra["max_total"] == 6 and extra["stages"] == len(betting.chip_pairs(6)) * 11
    (entry,) = extra["exploitability"]
    assert entry["chips"] == [2, 2] and abs(entry["exploitability"]) < 1e-12
    assert bidding.BIDDING_EQUILIBRIUM.check(BiddingBluffGame(BiddingBluffRules(), 2), small_table) == []


def test_plan_reads_the_hand_values_back(small_table):
    plan = bidding.BiddingPlan(BiddingBluffGame(BiddingBluffRules(), 2), small_table)
    assert plan.value(s(10), 1, 1) == pytest.approx(-5 / 6, abs=1e-15)
    assert plan.value(s(11), 1, 3) == pytest.approx(-17 / 18, abs=1e-15)
    assert plan.value(s(10), 2, 2) == pytest.approx(-1919 / 2556, abs=1e-15)  # the whole-tree LP's value
    with pytest.raises(RulesError, match="at most 6"):
        plan.value(None, 4, 3)


def test_answer_posterior_meets_the_indifference_condition(small_table):
    # where the answerer mixes, the roller's lies make him indifferent: a bet earns
    # (1 - q) k - q k, a pass -P, so q = (k + P) / (2k) (BLUFF-13, BLUFF-15)
    game = BiddingBluffGame(BiddingBluffRules(), 2)
    plan = bidding.BiddingPlan(game, small_table)
    checked = 0
    for claim in game.claims()[:-1]:
        for stake in (1, 2, 3):
            beta = plan.bet_probability(None, 3, 3, claim, stake)
            q, made = plan.truth_chance(None, 3, 3, claim, stake)
            if made and 0 < beta < 1:
                p = plan.pass_value(claim, 3, 3)
                assert q == pytest.approx((stake + p) / (2 * stake), abs=1e-12)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("game, message", [
    (BiddingBluffGame(BiddingBluffRules(), 3), "2 players"),
    (BiddingBluffGame(BiddingBluffRules(escalation="off"), 2), "escalation"),
    (LiarsPokerGame(LiarsPokerRules(claim="dice"), 2), "liar.claim"),
])
def test_unsupported_rules_are_refused(game, message):
    with pytest.raises(RulesError, match=message):
        betting.check_betting_rules(game)


def test_canonical_games_keep_only_what_changes_the_round():
    game = BiddingBluffGame(BiddingBluffRules(ranking="pro", start_chips=7, seating="given", stake_cap="coverable"), 2)
    assert plans.canonical_betting_game(game).rules == BiddingBluffRules(ranking="pro")
    liar = LiarsPokerGame(LiarsPokerRules(start_chips=4, first_turn="next_seat"), 2)
    assert plans.canonical_betting_game(liar).rules == LiarsPokerRules(start_chips=4)


def test_liars_table_layout_matches_its_arrays():
    game = LiarsPokerGame(LiarsPokerRules(start_chips=1), 2)
    table = liars_table(1, [(6, 6, 6)])
    layout = liars.LIARS_EQUILIBRIUM.layout(game, table.meta)
    for name, (shape, dtype) in layout.items():
        array = table[name]
        assert array.dtype == dtype and len(array.shape) == len(shape)
        assert all(want is None or want == got for want, got in zip(shape, array.shape))
    assert np.isfinite(table["value"][all_outcomes(3).index((6, 6, 6)), 0, 1, 0])


def _explicit(stage: StageGame) -> StageGame:
    """The same stage with every bet's payoff written out (+-the chips bet, BLUFF-15),
    so that it goes through the general-payoff path of the match plan."""
    claims = []
    for claim in stage.claims:
        amounts = [min(k, stage.responder_chips) if claim.forced else k for k in range(1, stage.active_chips + 1)]
        claims.append(replace(claim, win=tuple(F(m) for m in amounts), lose=tuple(F(-m) for m in amounts)))
    return replace(stage, claims=tuple(claims))


def test_general_payoffs_give_the_round_plan_back():
    rules = BiddingBluffRules(ranking="pro")
    stages = bidding.solve_two_dice_orbit(rules, next(g for g in betting.orbits(7) if (4, 3) in g))
    for toy in [toy_stage(*c) for c in ((1, 1), (2, 2), (3, 3), (4, 2), (2, 5))] + [st.game for st in stages]:
        linear, general = solve_stage(toy), solve_stage(_explicit(toy))
        assert (general.value, general.lie_value) == (linear.value, linear.lie_value)


# ----------------------------------------------------------------------------------------
# Whole matches (BLUFF-6, BLUFF-16)
# ----------------------------------------------------------------------------------------
def test_match_values_for_two_chips_each_by_hand():
    # 4 chips in play. W(3) = 1: with 3 against 1 the starter stakes 2, which cannot be bet
    # on (BLUFF-13), and the pass costs the answerer his last chip. W(2) = 1: the starter
    # claims his true result with stake 2; a bet on it takes both the answerer's chips, a
    # pass leaves him 1 chip to claim higher with, and a bet on that claim either takes it
    # (false) or gives back 2 against 2 with the bettor starting (true, BLUFF-16): he never
    # loses, and the match ends with probability 1. W(1) = 0: the answerer bets on the
    # starter's first claim, and either the starter is out or it is 2 against 2 for him.
    solved = match.solve_bidding_match(BiddingBluffRules(), 4)
    assert solved.win == pytest.approx({1: 0.0, 2: 1.0, 3: 1.0}, abs=1e-12)
    assert solved.residual < match.MATCH_TOLERANCE


def test_match_plan_is_unexploitable_in_the_match():
    rules = BiddingBluffRules()
    game = BiddingBluffGame(rules, 2)
    solved = match.solve_bidding_match(rules, 6)
    assert all(a <= b for a, b in zip(list(solved.win.values()), list(solved.win.values())[1:]))  # more chips, more wins
    measured = match.match_exploitability(game, bidding.stages_policy(game, solved.stages), solved.win, 3, steps=2)
    assert abs(measured.gain) < 1e-12 and measured.change < 1e-12


def test_match_table_round_trip(tmp_path):
    game = BiddingBluffGame(BiddingBluffRules(start_chips=2), 2)
    table = build_table(game, match.BiddingMatchSolver(measure_steps=0), BuildOptions(progress=False), tmp_path)
    plan = plans.plan_for(game, table)
    assert isinstance(plan, match.MatchPlan) and match.BIDDING_MATCH.check(game, table) == []
    assert plan.value(None, 2, 2) == pytest.approx(1.0) and plan.value(None, 1, 3) == pytest.approx(0.0)


# ----------------------------------------------------------------------------------------
# Whole matches of liar's poker (BLUFF-6, BLUFF-16, BLUFF-21)
# ----------------------------------------------------------------------------------------
LIARS_TWO_EACH = {1: F(0), 2: F(1), 3: F(1)}
"""W, the round starter's chance to win a liar's poker match with 2 chips each (4 in
play), by hand, as for the bidding bluff (test_match_values_for_two_chips_each_by_hand),
for every public roll, re-throws included. W(3) = 1: holding 3 against 1 the starter
claims any hand but the top claim (every public roll allows a lower one) with stake 2,
which cannot be bet on (BLUFF-13), and the pass costs the answerer his last chip
(BLUFF-6). W(2) = 1: the starter claims his actual hand with stake 2 and then always bets.
A bet on his claim costs the answerer both chips (a top claim must be bet on, BLUFF-5,
with both); a pass leaves the answerer 1 chip against 3 to claim higher with stake 1, and
a bet on that takes it if it is false and gives back 2 against 2 with the bettor, the
starter, starting (BLUFF-16) if it is true. So the starter never loses, and the answerer's
claim is false with a positive chance each time round: the starter wins. W(1) = 0: the
same from the other side (the answerer bets on the starter's first claim)."""


def _above(rules: LiarsPokerRules, public: tuple, dice: tuple, standing) -> bool:
    return claim_rank(hand_of(public + tuple(dice), rules), rules) > claim_rank(standing, rules)


def reach_above(game: LiarsPokerGame, public: tuple, standing) -> tuple[float, dict]:
    """Brute force over the engine: the chance that the roller, with his private roll and at
    most one re-throw (the engine's legal ``Reroll`` actions, BLUFF-18), ends his turn with
    a hand (``hand_of``, ranked by ``claim_rank``) above ``standing``, re-throwing only
    when that helps; and, per die kept and shown, the chance after that re-throw."""
    walk = best_response.round_game(game, rounds=2)
    start = replace(walk.apply(walk.new_round_state((2, 2)), public), standing=standing, history=(standing,))
    total, after = 0.0, {}
    for hidden, p in walk.chance_outcomes(start):
        rolled = walk.apply(start, hidden)
        best = 1.0 if _above(game.rules, public, rolled.dice, standing) else 0.0
        for action in walk.legal_actions(rolled):
            if isinstance(action, Reroll):
                thrown = walk.apply(rolled, action)
                chance = sum(q * _above(game.rules, public, walk.apply(thrown, o).dice, standing)
                             for o, q in walk.chance_outcomes(thrown))
                after[action.keep_shown] = chance
                best = max(best, chance)
        total += p * best
    return total, after


@lru_cache(maxsize=None)
def liars_two_each(public: tuple) -> tuple:
    """:func:`~kocka.solver.solvers.bluff.match.solve_liars_match_class` of the class of
    ``public`` with 2 chips each for the hand values :data:`LIARS_TWO_EACH` (rows, the
    values solved, the values affine in W), solved once for the tests below."""
    return match.solve_liars_match_class(LiarsPokerRules(start_chips=2), [public], 4, LIARS_TWO_EACH)


def liars_match_plan(public: tuple) -> match.LiarsMatchPlan:
    """The match plan of the class of ``public`` with 2 chips each, solved for the hand
    values :data:`LIARS_TWO_EACH` (a stored match table holds every public roll)."""
    game = LiarsPokerGame(LiarsPokerRules(start_chips=2), 2)
    rows, _, _ = liars_two_each(public)
    arrays = liars.liars_arrays(rows, len(game.claims()), 4)
    arrays["win"] = np.array([np.nan] + [float(LIARS_TWO_EACH[x]) for x in (1, 2, 3)])
    return match.LiarsMatchPlan(game, betting.unstored_table(arrays, {"total": 4}, two_player.MATCH_KIND))


@pytest.mark.parametrize("public", [(6, 6, 6), (2, 5, 5), (1, 2, 4)])
def test_liars_match_values_for_two_chips_each_by_hand(public):
    # every stage solved for the hand values W = LIARS_TWO_EACH gives them back (the
    # round's first roller, the starter, wins with W(x)), and so does the policy
    # evaluation of the strategies found (affine in W, re-throws as outside options)
    _, priced, affine = liars_two_each(public)
    w = np.array([1.0] + [float(LIARS_TWO_EACH[x]) for x in (1, 2, 3)])
    for x in (1, 2, 3):
        assert priced[x] == pytest.approx(float(LIARS_TWO_EACH[x]), abs=1e-12)
        assert float(affine[x] @ w) == pytest.approx(priced[x], abs=1e-12)


def test_liars_match_stages_by_brute_force():
    # public roll [2,5,5], 2 chips each (RULES.md example 4). With W = LIARS_TWO_EACH:
    # * roller 2 against 2, standing c: a true claim above c wins the match (bet on with
    #   stake 2 it takes both chips; passed, the answerer is left 1 against 3, worth 0 to
    #   him), a lie loses it when bet on, and a bet never costs the answerer (a pass
    #   leaves him 1 against 3: 0). So U(c, 2, 2) is the chance that the roller reaches a
    #   hand above c, re-throwing when that helps, and after keeping and showing die d
    #   the chance that the new die does: brute force over the engine (reach_above);
    # * roller 1 against 3: 0 (the answerer bets: a lie loses the last chip, the truth
    #   gives 2 against 2 with the answerer starting, W(2) = 1 for him);
    # * roller 3 against 1: 1 (a claim below the top with stake 2 cannot be bet on),
    #   except over the claim just below the top: only the top claim is left, which must be
    #   bet on with the answerer's chip, and a lie gives 2 against 2 to the answerer.
    public = (2, 5, 5)
    plan = liars_match_plan(public)
    game = plan.game
    claims = game.claims_above(None, public, ())
    assert claims[-1] == top_claim(public, game.rules)
    for standing in claims[:-1]:
        reach, after = reach_above(game, public, standing)
        assert plan.value(public, standing, 2, 2) == pytest.approx(reach, abs=1e-12)
        for die, chance in after.items():
            assert plan.value(public, standing, 2, 2, die) == pytest.approx(chance, abs=1e-12)
        assert plan.value(public, standing, 1, 3) == pytest.approx(0.0, abs=1e-12)
        assert plan.value(public, standing, 3, 1) == pytest.approx(1.0 if standing != claims[-2] else reach, abs=1e-12)
    assert plan.value(public, claims[3], 2, 2) == pytest.approx(0.5740740740740741, abs=1e-12)  # over two pairs 5, 3


@pytest.mark.parametrize("standing", [None, hand_of((2, 5, 5, 3, 3)), hand_of((2, 5, 5, 5, 6))])
def test_liars_match_plan_is_unexploitable_through_the_engine(standing):
    # the independent best response walks the engine's match (two rounds: the reveal's
    # next round is priced by W = LIARS_TWO_EACH, or the match is over) from 2 chips each
    # after the public roll [2,5,5], from no claim or a standing one: against the plan a
    # best-responding roller earns the plan's value U and a best-responding answerer 1 - U
    public = (2, 5, 5)
    plan = liars_match_plan(public)
    game = plan.game
    walk = best_response.round_game(game, rounds=2)
    start = walk.apply(walk.new_round_state((2, 2)), public)
    if standing is not None:
        start = replace(start, standing=standing, history=(standing,))

    def priced(me):
        def terminal(state):
            if 0 in state.chips:
                return 1.0 if state.chips[me] > 0 else 0.0
            w = float(LIARS_TWO_EACH[state.chips[state.active]])
            return w if state.active == me else 1.0 - w
        return terminal

    policy = plan.policy()
    value = plan.value(public, standing, 2, 2)
    assert best_response.BestResponseWalk(walk, [None, policy], 0, priced(0)).after(start) == pytest.approx(value, abs=1e-12)
    assert best_response.BestResponseWalk(walk, [policy, None], 1, priced(1)).after(start) == pytest.approx(1 - value, abs=1e-12)
    assert best_response.BestResponseWalk(walk, [policy, policy], 0, priced(0)).after(start) == pytest.approx(value, abs=1e-12)


def test_liars_match_starter_rolls_second_under_next_seat():
    # liar.first_turn = next_seat (BLUFF-17): with 1 chip each the first roller wins (he
    # claims his actual hand: a pass costs the answerer his last chip, a bet loses to the
    # truth), and he is the starter's opponent, so W(1) = 0 for the starter; one step
    # of the solve at that W gives it back
    step = match.liars_match_step(LiarsPokerRules(start_chips=1, first_turn="next_seat"), 2)
    priced, affine, kept = step({1: F(0)}, False)
    assert priced[1] == pytest.approx(0.0, abs=1e-12) and kept is None


def test_liars_match_table_round_trip(liars_match_table):  # the table: tests/conftest.py
    # with 1 chip each every round ends the match, and the starter wins it (as the first
    # roller above): W(1) = 1, found by policy iteration from W(1) = 1/2; the build's
    # independent best response in the match (the first round after [6,6,6]) gains nothing
    game = LiarsPokerGame(LiarsPokerRules(start_chips=1), 2)
    table = liars_match_table
    extra = table.meta.extra
    assert table.meta.kind == two_player.MATCH_KIND and extra["headline_value"] == pytest.approx(1.0)
    (measured,) = extra["match_exploitability"]
    assert measured["public"] == [6, 6, 6] and abs(measured["gain"]) < 1e-12
    plan = plans.plan_for(game, table)
    assert isinstance(plan, match.LiarsMatchPlan) and match.LIARS_MATCH.check(game, table) == []
    assert plan.value((1, 2, 4), None, 1, 1) == pytest.approx(1.0)
    check_layout(table, match.LIARS_MATCH.layout(game, table.meta))
    assert table["win"].shape == (2,)
    assert "P(the starter wins the match), 1 chips each" in match.LIARS_MATCH.summary(table)
