"""Bluff bots (agents/bots/bluff_bots.py): the Bayesian posterior in a case small enough to
compute by hand, what it learns from reveals, its betting values, the baselines' rules,
and the equilibrium bot (RULES.md BLUFF-3..BLUFF-21)."""
from __future__ import annotations

import itertools
import json
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from kocka.agents.frontends.games.arena import run_arena, wilson_interval
from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
from kocka.agents.bots.base import AgentUnavailable, Event
from kocka.agents.bots.bluff_bots import BayesBot, ThresholdBot, TruthfulBot, round_policy
from kocka.agents.bots.catalogue import AgentOptions, agent_names, make_agent
import betting_round_abstraction as abstraction
from kocka.solver.solvers.bluff import abazs as bluff_abazs
from kocka.solver.rules import CHANCE, get_game
from kocka.solver.rules.bluff import (
    AbazsGame, AbazsRules, Accept, Bet, Challenge, Claim, Hand, Pass, TwoDiceClaim, single_round_game,
)

BLUFF_GAMES = ["abazs", "bidding-bluff", "liars-poker"]


def s(value: int) -> TwoDiceClaim:
    return TwoDiceClaim("sum", value)


def feed(game, bot, state, steps):
    """Apply ``steps`` (rolls and actions) and deliver every event, as the match loops do."""
    for step in steps:
        player = game.current_player(state)
        state = game.apply(state, step)
        bot.observe(Event(player, None if player == CHANCE else step, state))
    return state


# ----------------------------------------------------------------------------------------
# The posterior, by hand
# ----------------------------------------------------------------------------------------
def hand_posterior(lie: float, smallest: float) -> float:
    """P(claim 11 is true | it beat 10), simple ranking, by the claimant model: results 11
    (2/36) and 12 (1/36) may tell the truth, the other 33/36 must lie. An 11 claims 11 with
    1 - lie (his only lie is 12); a 12 lies with 11 (his only lie) with ``lie``; the others'
    lie is the smallest (11) with ``smallest``, else 11 or 12 in proportion 2 : 1."""
    true = 2 * (1 - lie)
    false = 1 * lie + 33 * (smallest + (1 - smallest) * 2 / 3)
    return true / (true + false)


def test_posterior_in_a_small_case_matches_hand_computation():
    game = single_round_game("abazs", 2)
    bot = BayesBot(game, 0)
    state = game.apply(game.apply(game.new_round_state((10, 10)), (5, 6)), Claim(s(11)))
    # prior lie rate 0.3 and smallest-lie rate 0.5: 1.4 / 29.2
    assert bot.p_true(state, previous=s(10)) == pytest.approx(hand_posterior(0.3, 0.5))
    assert hand_posterior(0.3, 0.5) == pytest.approx(1.4 / 29.2)
    answers = {type(d.action): d for d in bot.rank_with(state, s(10))}
    assert answers[Challenge].detail["P(claim true)"] == pytest.approx(1.4 / 29.2)


def test_reveals_teach_lie_rates_and_answers_teach_call_rates():
    game = single_round_game("abazs", 2, max_rounds=3)
    bot = BayesBot(game, 0)  # plays seat 1
    state = game.new_round_state((10, 10))
    # round 1: seat 0 rolls 5, claims 9 though 5 was allowed (a voluntary lie, and not the
    # smallest one, which is 2); seat 1 challenges and the dice are shown
    state = feed(game, bot, state, [(2, 3), Claim(s(9)), Challenge()])
    model = bot.model(0)
    assert model.lie_rate(0) == pytest.approx((1.2 + 1) / (4 + 1))  # Beta(1.2, 2.8) + one lie
    assert model.smallest_rate() == pytest.approx(1 / 3)  # Beta(1, 1) + one "not smallest"
    # round 2 (seat 1 starts, BLUFF-10): seat 1 claims 4 (reach 33/36: bucket 4), seat 0
    # accepts: one trust in that bucket (prior 2 x (0.125, 0.875))
    state = feed(game, bot, state, [(1, 3), Claim(s(4)), Accept()])
    assert model.call_rate(33 / 36, 0) == pytest.approx(0.25 / 3)
    # then seat 0 rolls 12 and claims it truthfully; seat 1 challenges: a truth
    state = feed(game, bot, state, [(6, 6), Claim(s(12)), Challenge()])
    assert model.lie_rate(0) == pytest.approx(2.2 / 6)


def test_learning_is_per_match():
    game = single_round_game("abazs", 2, max_rounds=3)
    bot = BayesBot(game, 0)
    feed(game, bot, game.new_round_state((10, 10)), [(2, 3), Claim(s(9)), Challenge()])
    bot.reset(1)
    assert bot.model(0).lie_rate(0) == pytest.approx(0.3)


def test_forced_top_claim_is_challenged_and_true_claims_value_above_lies():
    game = single_round_game("abazs", 2)
    bot = BayesBot(game, 0)
    top = game.apply(game.apply(game.new_round_state((10, 10)), (6, 6)), Claim(s(12)))
    assert [d.action for d in bot.rank(top)] == [Challenge()]  # BLUFF-5
    claiming = game.apply(game.new_round_state((10, 10)), (6, 6))
    ranked = bot.rank(claiming)
    assert ranked[0].action == Claim(s(12)) and ranked[0].detail["true"]  # a sure +1 (minus the start value)


def test_betting_claim_value_by_hand():
    # bidding bluff, 2 players, 10 chips each, empty bank; the bot rolls 1-1 and claims 2
    # (true) with stake 3. The answerer's call rate for a claim of reach 1 (bucket 4) is the
    # prior 0.125: EV = P(pass) x (bank 0 + his pass 1) + P(bet) x 3 = 0.875 + 0.375
    game = single_round_game("bidding-bluff", 2)
    bot = BayesBot(game, 0)
    state = game.apply(game.new_round_state((10, 10)), (1, 1))
    values = {d.action: d.value for d in bot.rank(state)}
    assert values[Claim(s(2), 3)] == pytest.approx(0.875 + 0.375)
    # the same claim false (rolled 1-2): EV = 0.875 - 0.125 x 3
    lying = game.apply(game.new_round_state((10, 10)), (1, 2))
    assert {d.action: d.value for d in bot.rank(lying)}[Claim(s(2), 3)] == pytest.approx(0.875 - 0.375)


def test_betting_answer_weighs_the_pass_cost():
    # bidding bluff: claim 12 opening the round with stake 1 (top claim: the first answerer
    # must bet, BLUFF-5); with a 3-player table the second answerer may pass (-1) or bet 1
    game = single_round_game("bidding-bluff", 3)
    bot = BayesBot(game, 0)
    state = game.apply(game.apply(game.new_round_state((10, 10, 10)), (6, 6)), Claim(s(12), 1))
    state = game.apply(state, Bet())
    q = bot.p_true(state, None)
    values = {type(d.action): d.value for d in bot.rank(state)}
    assert values[Pass] == -1 and values[Bet] == pytest.approx((1 - q) * 1 - q * 1)


# ----------------------------------------------------------------------------------------
# A state document alone gets the answer a match gets (the round's claim history)
# ----------------------------------------------------------------------------------------
def seat_rank(game, state, agent, seat=None):
    """The seat's ranking for a state document (the seat resets the agent first)."""
    seat = seat or Seat()
    doc = json.loads(json.dumps(game.state_to_json(state)))
    response = seat.handle({"id": 1, "method": "rank", "state": doc, "agent": agent})
    assert "result" in response, response
    return [(game.action_from_json(a["action"]), a["value"]) for a in response["result"]["actions"]]


# two passed betting rounds, then the bot (seat 1) answers a claim that beat its own: the
# answer's value depends only on P(claim true), i.e. on the lie rates (learnt from reveals
# only: none here) and on the claim the standing one beat (BLUFF-3)
BETTING_ROUNDS = [
    pytest.param("bidding-bluff", [(1, 2), Claim(s(5), 1), Pass(), (3, 4), Claim(s(7), 1), Pass(),
                                   (2, 6), Claim(s(9), 1)], s(7), id="bidding-bluff"),
    pytest.param("liars-poker", [(1, 3, 3), (2, 5), Claim(Hand(1, (3,)), 1), Pass(), (4, 6), Claim(Hand(2, (6, 3)), 1),
                                 Pass(), (1, 1), Claim(Hand(6, (3, 1)), 1)], Hand(2, (6, 3)), id="liars-poker"),
]  # fmt: skip


@pytest.mark.parametrize("name, steps, previous", BETTING_ROUNDS)
def test_bayes_answers_a_state_document_as_it_answers_in_a_match(name, steps, previous):
    game = single_round_game(name, 2)
    bot = BayesBot(game, 0)  # seat 1, following the match's events
    state = feed(game, bot, game.new_round_state((10, 10)), steps)
    assert state.phase == "answer" and game.current_player(state) == 1 and state.previous == previous
    in_match = [(d.action, d.value) for d in bot.rank(state)]
    assert seat_rank(game, state, "bayes") == [(a, pytest.approx(v)) for a, v in in_match]
    # the history matters: read as opening the round, the same claim is believed more
    # (over a higher claim, more of the claimant's results must lie to make it)
    opening = dict(in_match)
    fresh = {d.action: d.value for d in BayesBot(game, 0).rank_with(state, None)}
    assert fresh[Bet()] < opening[Bet()]


def test_bayes_seat_answer_in_abazs_uses_the_claim_beaten():
    # seat 0 claims 10, seat 1 accepts and claims 11: seat 0 answers 11 over 10. The seat
    # (a fresh bot, prior model) gets the hand-computed posterior 1.4 / 29.2 (see above),
    # not the posterior of an opening 11
    game = single_round_game("abazs", 2)
    state = game.apply(game.new_round_state((10, 10)), (4, 6))
    state = game.apply(game.apply(game.apply(state, Claim(s(10))), Accept()), (5, 6))
    state = game.apply(state, Claim(s(11)))
    assert state.history == (s(10), s(11)) and state.previous == s(10)
    by_hand = {d.action: d.value for d in BayesBot(game, 0).rank_with(state, s(10))}
    assert seat_rank(game, state, "bayes") == [(a, pytest.approx(v)) for a, v in sorted(by_hand.items(), key=lambda av: -av[1])]
    detail = {type(d.action): d.detail for d in BayesBot(game, 0).rank(state)}
    assert detail[Challenge]["P(claim true)"] == pytest.approx(1.4 / 29.2)


# ----------------------------------------------------------------------------------------
# Baselines
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("dice, standing, expected", [
    ((3, 4), None, s(7)),     # the truth
    ((3, 4), s(8), s(9)),     # 7 is not allowed over 8: the smallest lie
    ((6, 6), s(11), s(12)),   # the truth is the only claim
])
def test_truthful_claims(dice, standing, expected):
    game = AbazsGame(AbazsRules(seating="given"), 2)
    state = game.new_round_state((10, 10))
    if standing is not None:
        state = game.apply(game.apply(state, (1, 1)), Claim(standing))
        state = game.apply(state, Accept())
    state = game.apply(state, dice)
    assert TruthfulBot(game, 0).choose(state) == Claim(expected)


@pytest.mark.parametrize("ranking, below, at", [
    # simple: P(sum >= 8) = 15/36 < 1/2, P(sum >= 7) = 21/36: the threshold is 8
    ("simple", s(7), s(8)),
    # pro: pairs 6/36, then non-pair 11, 10, 9 (2 + 2 + 4): 14/36 < 1/2; with 8 (4) 18/36
    ("pro", TwoDiceClaim("nonpair", 8), TwoDiceClaim("nonpair", 9)),
])
def test_threshold_challenges_at_and_above_its_claim(ranking, below, at):
    game = single_round_game("abazs", 2, ranking=ranking)
    bot = ThresholdBot(game, 0)
    for claim, expected in ((below, Accept()), (at, Challenge())):
        state = game.apply(game.apply(game.new_round_state((10, 10)), (1, 2)), Claim(claim))
        assert bot.choose(state) == expected
        assert TruthfulBot(game, 0).choose(state) == Accept()


def test_threshold_in_liars_poker_ignores_the_public_dice():
    game = single_round_game("liars-poker", 2)
    bot = ThresholdBot(game, 0)
    # five fair dice (of 7776): two pairs 1800, three of a kind 1200, straights 240, full
    # house 300, four 150, five 6: P(at least the lowest two pairs) = 3696/7776 < 1/2,
    # while adding the pair of 6s (3600/6 = 600) gives 4296/7776 > 1/2. Hands ranked
    # (BLUFF-19): 4 "nothing", 6 pairs, then two pairs from (2, 1) up: index 10
    assert bot.threshold == 10 and game.claims()[10] == Hand(2, (2, 1))


# ----------------------------------------------------------------------------------------
# Every bot plays every bluff game legally, to the end the rules give
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BLUFF_GAMES)
def test_bots_play_full_matches(name):
    # three players with 3 chips each and no round limit: a match ends only when somebody
    # holds no chips (BLUFF-6), chips are only moved (BLUFF-2: 9 in all, less what a
    # revealed betting round leaves in the bank), and the most chips win (shared on a tie)
    game = get_game(name, {"start_chips": 3}, 3)
    result = run_arena(game, ["bayes", "truthful", "threshold"], 12, seed=7)
    scores = result.scores
    assert scores.shape == (12, 3) and (scores.min(axis=1) == 0).all()
    assert (scores.sum(axis=1) == 9).all() if name == "abazs" else (scores.sum(axis=1) <= 9).all()
    top = scores == scores.max(axis=1, keepdims=True)
    assert (result.wins == top / top.sum(axis=1, keepdims=True)).all()
    assert (result.seats == (np.arange(3)[None, :] - np.arange(12)[:, None]) % 3).all()  # game i: agent a in seat a - i


def _exact_truthful_against_threshold(threshold_seat: int) -> Fraction:
    """P(seat 0 wins) in two-player Abázs with one chip each (the first challenge ends the
    match), worked out from the two bots' documented rules alone: both claim the truth if
    it beats the standing claim, else the smallest lie; ``truthful`` accepts everything
    but the top claim 12 (BLUFF-5), ``threshold`` challenges every claim of 8 or more
    (test_threshold_challenges_at_and_above_its_claim). A challenged claim is true exactly
    when it is the claimant's sum (BLUFF-4)."""
    chance = {s: Fraction(sum(a + b == s for a, b in itertools.product(range(1, 7), repeat=2)), 36) for s in range(2, 13)}

    @lru_cache(maxsize=None)
    def roller_wins(beat, roller):
        total = Fraction(0)
        for rolled, p in chance.items():
            claim = rolled if beat is None or rolled > beat else beat + 1
            answerer = 1 - roller
            if claim == 12 or (answerer == threshold_seat and claim >= 8):
                total += p * (claim == rolled)
            else:
                total += p * (1 - roller_wins(claim, answerer))
        return total

    return roller_wins(None, 0)


def test_arena_win_rates_match_the_exact_values_of_one_chip_abazs():
    exact = {0: _exact_truthful_against_threshold(1), 1: 1 - _exact_truthful_against_threshold(0)}
    assert exact == {0: Fraction(12100345, 20155392), 1: Fraction(3274244425, 8707129344)}  # 0.6004, 0.3760
    game = get_game("abazs", {"start_chips": 1, "seating": "given"}, 2)
    result = run_arena(game, ["truthful", "threshold"], 2000, seed=3)
    for seat in (0, 1):  # truthful's win rate in each seat, within its 99.9 % interval
        games = result.seats[:, 0] == seat
        lo, hi = wilson_interval(float(result.wins[games, 0].sum()), int(games.sum()), z=3.2905)
        assert lo <= float(exact[seat]) <= hi, (seat, result.wins[games, 0].mean(), float(exact[seat]))


@pytest.mark.parametrize("name", ["bidding-bluff", "liars-poker"])
def test_with_one_chip_each_the_first_claim_wins_the_betting_games(name):
    # by hand: with stake 1 (BLUFF-12) a true claim wins whatever the answers (a pass pays
    # the passer's last chip into the bank, a bet loses it at the reveal), and every bot
    # here tells the truth with nothing standing, so the first claimant ends with the
    # chips, less what a revealed round leaves in the bank, and the others with none
    game = get_game(name, {"start_chips": 1, "seating": "given"}, 3)
    result = run_arena(game, ["bayes", "truthful", "threshold"], 9, seed=5)
    first = result.seats == 0
    assert (result.wins == first).all()
    assert (result.scores[first] >= 2).all() and (result.scores[~first] == 0).all()


def test_bayes_best_stake_among_the_candidates_is_its_best_over_every_stake():
    # the engine lists 1..20, each opponent's chips and one more, and the cap; between them
    # bayes's value of a claim is monotone in the stake, so nothing is lost by not
    # enumerating: brute force over all 90 stakes, with call rates that differ by stake class
    game = get_game("bidding-bluff", {"seating": "given"}, 3)
    state = game.apply(game.new_round_state((90, 35, 60)), (3, 4))
    assert game.candidate_stakes(state) == (*range(1, 21), 35, 36, 60, 61, 90)
    bot = BayesBot(game, 0)
    bot.model(1).calls[1] = np.array([[1.0, 9.0]] * 5)  # player 1 rarely calls a stake of 2 or more
    bot.model(2).calls[1] = np.array([[6.0, 4.0]] * 5)
    view = bot.view(state, None)
    ranked_values = {d.action: d.value for d in bot.rank(state)}
    for k, claim in enumerate(view.claims):
        true = game.claim_true(claim, state.dice)
        every = [bot._claim_value(state, view, k, stake, true)[0] for stake in game.stake_range(state)]
        best = int(np.argmax(every)) + 1  # the first best stake, as the ranking breaks ties
        assert best in game.candidate_stakes(state) and ranked_values[Claim(claim, best)] == every[best - 1]
    # the truth, staking what player 2 (who calls 6 times in 10) can still bet; player 1 then cannot
    assert bot.choose(state) == Claim(TwoDiceClaim("sum", 7), 60)


# ----------------------------------------------------------------------------------------
# Exploitability of the bots as round policies (independent best response)
# ----------------------------------------------------------------------------------------
def test_truthful_is_heavily_exploitable_threshold_less():
    rules = AbazsRules()
    game = bluff_abazs.walk_game(rules)
    truthful = bluff_abazs.abazs_exploitability(game, round_policy(TruthfulBot(game, 0))).exploitability
    threshold = bluff_abazs.abazs_exploitability(game, round_policy(ThresholdBot(game, 0))).exploitability
    # a best responder facing a player who never challenges claims 12 as starter and is
    # never challenged: the never-challenger loses most rounds (0.87 chips measured)
    assert truthful > 0.8 and 0 < threshold < truthful


def test_bots_as_betting_round_policies_reproduce_the_documented_exploitability():
    # docs/BLUFF.md section 7 (the abstraction's figures the exact round replaced), bidding
    # bluff (simple), stake cap 3: bayes 1/18 (its best responses 7/6 as claimant, -19/18
    # as answerer), truthful 1/36 (tests/betting_round_abstraction.py)
    game = abstraction.betting_round_game(3)
    bayes = abstraction.betting_exploitability(game, round_policy(BayesBot(game, 0)))
    assert (bayes.exploitability, bayes.best_response) == (Fraction(1, 18), (Fraction(7, 6), Fraction(-19, 18)))
    assert abstraction.betting_exploitability(game, round_policy(TruthfulBot(game, 0))).exploitability == Fraction(1, 36)


# ----------------------------------------------------------------------------------------
# The equilibrium bot
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def table_dir(abazs_equilibrium_table):
    """A folder with the default rules' equilibrium table (built once per run, conftest)."""
    return abazs_equilibrium_table.path.parent


def test_equilibrium_bot_samples_its_mixed_strategy(table_dir):
    game = AbazsGame(AbazsRules(), 2)
    bot = make_agent("equilibrium", game, 5, AgentOptions(cache_dir=table_dir))
    state = game.apply(game.new_round_state((10, 10)), (1, 2))  # a 3: the stage with no claim
    ranked = bot.rank(state)
    mixed = {d.action: d.detail["P(chosen)"] for d in ranked if d.detail["P(chosen)"] > 0}
    assert sum(mixed.values()) == pytest.approx(1.0)
    picks = {bot.choose(state) for _ in range(200)}
    assert picks <= set(mixed) and (len(picks) > 1 or len(mixed) == 1)


def test_equilibrium_bot_answers_a_state_document_as_in_a_match(table_dir):
    game = AbazsGame(AbazsRules(seating="given"), 2)
    bot = make_agent("equilibrium", game, 5, AgentOptions(cache_dir=table_dir))
    # 11 over 10: every roller who beats 10 claims 11 or 12, so P(11 true) comes from the
    # stage "beat 10" of the table, not from the opening stage
    state = feed(game, bot, game.new_round_state((10, 10)), [(4, 6), Claim(s(10)), Accept(), (1, 2), Claim(s(11))])
    in_match = [(d.action, d.value, d.detail["P(claim true)"]) for d in bot.rank(state)]
    table = bot.table
    expected = bluff_abazs.rank_abazs(game, table, state, previous=s(10))
    assert [(d.action, d.value, d.detail["P(claim true)"]) for d in expected] == in_match
    seat = Seat(SeatOptions(cache_dir=table_dir))
    assert seat_rank(game, state, "equilibrium", seat) == [(a, pytest.approx(v)) for a, v, _ in in_match]
    opening = bluff_abazs.rank_abazs(game, table, state, previous=None)
    assert [d.detail["P(claim true)"] for d in opening] != [p for _, _, p in in_match]


@pytest.mark.parametrize("players, options, message", [
    (2, {}, "needs its table"),  # an empty cache, no build
    (3, {}, "2 players"),
    (2, {"escalation": "off"}, "escalation"),
])
def test_equilibrium_bot_unavailable(tmp_path, players, options, message):
    game = AbazsGame(AbazsRules(**options), players)
    with pytest.raises(AgentUnavailable, match=message):
        make_agent("equilibrium", game, 0, AgentOptions(cache_dir=tmp_path))


def test_bots_are_registered_for_the_bluff_games():
    for name in BLUFF_GAMES:
        assert {"bayes", "truthful", "threshold", "random"} <= set(agent_names(name))
    # two-player equilibria exist for all three (solver/solvers/bluff/abazs.py, bidding.py, liars.py)
    assert all("equilibrium" in agent_names(name) for name in BLUFF_GAMES)
