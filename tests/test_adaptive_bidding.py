"""The adaptive agent of the two-player bidding bluff (issue 27; RULES.md BLUFF-11..BLUFF-16)
and of liar's kockapóker (BLUFF-17..BLUFF-21, the same machinery on its stages, at the end):
the stage worst cases it bounds its risk with, its best reply over the rest of the round,
its model, and the agent (legal moves, the equilibrium's moves with nothing learnt, the
budget it spends). A table of chips adding up to 6 (the tests' cache): 66 stages a second."""
from __future__ import annotations

import numpy as np
import pytest

from kocka.agents.bots.adaptive_bluff import EPSILON, AdaptiveBiddingBot, AdaptiveLiarsBot
from kocka.agents.bots.base import AgentUnavailable, ChanceSampler
from kocka.agents.bots.bluff_bots import BettingEquilibriumBot, ThresholdBot, TruthfulBot
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import play_match, run_arena
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.rules.bluff import (
    BiddingBluffGame, BiddingBluffRules, Claim, LiarsPokerGame, LiarsPokerRules, Reroll, claim_probabilities,
)
from kocka.solver.solvers.bluff import adaptive_bidding as ab
from kocka.solver.solvers.bluff import adaptive_liars
from kocka.solver.solvers.bluff.bidding import BiddingEquilibriumSolver, BiddingPlan
from kocka.solver.solvers.bluff.liars import LiarsPlan
from kocka.solver.store.table_store import build_table
from test_bluff_round import liars_table

RULES = BiddingBluffRules(start_chips=3, max_rounds=1, payoff="chips")


@pytest.fixture(scope="module")
def table_folder(tmp_path_factory):
    """Its own folder: the session's cache stays without a bidding-bluff table for the
    tests of hints without tables (tests/test_bluff_hint.py)."""
    return tmp_path_factory.mktemp("bidding-tables")


@pytest.fixture(scope="module")
def plan(table_folder):
    game = BiddingBluffGame(BiddingBluffRules(), 2)
    table = build_table(game, BiddingEquilibriumSolver(max_total=6, measured=()), BuildOptions(progress=False),
                        table_folder)
    return BiddingPlan(game, table)


def stages(plan):
    for standing in (None, *plan.claims[:-1]):
        for x in range(1, 6):
            for y in range(1, 7 - x):
                yield ab.StageView.build(plan, standing, x, y)


def test_the_equilibrium_stage_strategies_guarantee_the_stored_values(plan):
    # the stored equilibrium's claims hold every answerer to V*, and its bets hold every
    # roller to V* (the stage solver's values, solved separately): the worst cases the
    # safety bound is computed with must give exactly those
    for view in stages(plan):
        assert ab.roller_guarantee(view, view.sigma) == pytest.approx(view.value, abs=1e-12)
        assert ab.answerer_exposure(view, view.beta) == pytest.approx(view.value, abs=1e-12)


def test_worst_cases_by_hand(plan):
    # 1 chip each, no claim standing. Always claiming 12 (the top claim: the answerer must
    # bet, BLUFF-5) wins 1 with a pair of sixes and loses 1 otherwise: 1/36 - 35/36
    view = ab.StageView.build(plan, None, 1, 1)
    always_top = np.zeros_like(view.sigma)
    always_top[:, view.messages.index((plan.claims[-1], 1))] = 1.0
    chance = claim_probabilities("simple")
    six_six = float(chance[plan.claims[-1]])
    assert six_six == pytest.approx(1 / 36)
    assert ab.roller_guarantee(view, always_top) == pytest.approx(six_six - (1 - six_six))
    # an answerer who never bets: a pass costs him his last chip and the game (BLUFF-13),
    # so any claim below the top earns the roller 1
    assert ab.answerer_exposure(view, np.zeros(len(view.messages))) == pytest.approx(1.0)


def test_the_reply_to_an_unseen_opponent_is_worth_the_equilibrium_value(plan):
    # with nothing observed the model is the equilibrium, and a best reply to an
    # equilibrium over the whole rest of the round (or any number of passes ahead, then
    # the plan's values) earns exactly the round's value, as roller and as answerer
    model = ab.BiddingOpponentModel(len(plan.claims))
    stages = ab.BiddingStages(lambda key: ab.StageView.build(plan, *key), plan.top())
    for depth in (None, 0, 1, 2):
        reply = ab.ModelReply(model, stages, depth)
        for standing in (None, plan.claims[4], plan.claims[8]):
            for x, y in ((1, 1), (2, 2), (3, 2), (2, 4)):
                assert reply.mine((standing, x, y)) == pytest.approx(plan.value(standing, x, y), abs=1e-9)
                assert reply.theirs((standing, x, y)) == pytest.approx(-plan.value(standing, x, y), abs=1e-9)


def test_the_model_keeps_the_equilibrium_until_he_deviates(plan):
    model = ab.BiddingOpponentModel(len(plan.claims))
    view = ab.StageView.build(plan, None, 3, 3)
    start = model.bet_chance(view)
    assert np.allclose(start, view.beta)
    claim, stake = view.messages[int(np.argmax((view.beta > 0.2) & (view.beta < 0.8)))]
    beta = float(view.beta[view.messages.index((claim, stake))])
    assert 0.2 < beta < 0.8
    # as often as the equilibrium (hits = expected): the prior stays
    model.saw_answer(0, claim.rank, stake, True, beta)
    model.saw_answer(0, claim.rank, stake, False, 1 - beta)  # the second observation's beta* is 1 - beta
    m = view.messages.index((claim, stake))
    assert model.bet_chance(view)[m] == pytest.approx(beta)
    # never: (0 + W) / (expected + W) of the prior, in the cell and, shrunk, in every cell of its claim
    # never: (0 + W) / (expected + W) of the prior, in the cell and, shrunk, in every cell of its claim
    never = ab.BiddingOpponentModel(len(plan.claims))
    for _ in range(50):
        never.saw_answer(0, claim.rank, stake, False, beta)
    w = ab.PRIOR_WEIGHT
    scaled = beta * w / (50 * beta + w)
    assert never.bet_chance(view)[m] == pytest.approx((50 * scaled + w * scaled) / (50 + w))
    assert model.observed == 2 and never.observed == 50
    # fitted per stake class (liar's poker's model), the class's aggression falls to its MAP
    # and the same scaling applies to the shifted prior
    fitted = ab.BiddingOpponentModel(len(plan.claims), per_stake_class=True)
    for _ in range(50):
        fitted.saw_answer(0, claim.rank, stake, False, beta)
    alpha = _map_shift([beta] * 50, [0.0] * 50, ab.AGGRESSION_SCALE)
    assert alpha < -1.0 and fitted.aggression[ab.stake_class(stake)] == pytest.approx(alpha, abs=1e-9)
    shifted = float(ab.shifted_truth(beta, alpha))
    scaled = shifted * w / (50 * shifted + w)
    assert fitted.bet_chance(view)[m] == pytest.approx((50 * scaled + w * scaled) / (50 + w))


def _map_shift(prior, seen, scale):
    """The maximum a posteriori log-odds shift theta of events seen (1/0) whose chances are
    ``prior`` shifted by theta, theta ~ N(0, scale^2): the root of the posterior's slope,
    found by bisection (the model fits it with Newton steps)."""
    a = np.log(np.clip(prior, 0.02, 0.98) / (1 - np.clip(prior, 0.02, 0.98)))

    def slope(theta):
        return float((np.array(seen) - 1 / (1 + np.exp(-(a + theta)))).sum()) - theta / scale**2

    low, high = -50.0, 50.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if slope(middle) > 0 else (low, middle)
    return (low + high) / 2


def test_aggression_and_honesty_are_fitted_per_stake_class_and_over_every_reveal(plan):
    """A player who bets at stake 2-3 far more often than the equilibrium: that class's
    aggression is the MAP shift of its answers alone (found here by bisection), the other
    classes stay at 0, and a cell never answered in that class now gets more bets than the
    equilibrium gives it. His revealed claims move the honesty of their stake class alone
    (per stake class) or his one honesty number (the bidding bluff's model)."""
    model = ab.BiddingOpponentModel(len(plan.claims), per_stake_class=True)
    view = ab.StageView.build(plan, None, 3, 3)
    middle = [m for m, (_c, k) in enumerate(view.messages) if ab.stake_class(k) == 1 and 0.02 < view.beta[m] < 0.5]
    seen_at, unseen = middle[:-1], middle[-1]
    priors, bets = [], []
    for i in range(30):
        m = seen_at[i % len(seen_at)]
        claim, stake = view.messages[m]
        model.saw_answer(0, claim.rank, stake, i % 5 != 0, float(view.beta[m]))
        priors.append(float(view.beta[m]))
        bets.append(float(i % 5 != 0))
    alpha = _map_shift(priors, bets, ab.AGGRESSION_SCALE)
    assert alpha > 1.0 and model.aggression[1] == pytest.approx(alpha, abs=1e-9)
    assert model.aggression[0] == 0.0 and model.aggression[2] == 0.0
    assert model.bet_chance(view)[unseen] > view.beta[unseen]
    one = ab.BiddingOpponentModel(len(plan.claims))
    rank = view.messages[middle[0]][0].rank
    # stake 2 (class 1): three true of four; stake 5 (class 2): two lies
    reveals = [(2, True, 0.3), (2, True, 0.6), (2, True, 0.1), (2, False, 0.5), (5, False, 0.4), (5, False, 0.7)]
    for stake, true, q in reveals:
        model.saw_claim(0, rank, stake, true, q)
        one.saw_claim(0, rank, stake, true, q)
    by_class = {k: [(t, q) for stake, t, q in reveals if ab.stake_class(stake) == k] for k in (1, 2)}
    for k, seen in by_class.items():
        truths, priors = [float(t) for t, _q in seen], [q for _t, q in seen]
        assert model.honesty[k] == pytest.approx(_map_shift(priors, truths, ab.HONESTY_SCALE), abs=1e-9)
    assert model.honesty[0] == 0.0 and model.honesty[1] > 0.0 > model.honesty[2]
    everything = _map_shift([q for *_, q in reveals], [float(t) for _s, t, _q in reveals], ab.HONESTY_SCALE)
    assert one.honesty.shape == (1,) and one.honesty[0] == pytest.approx(everything, abs=1e-9)
    # the truth prior of a message is the equilibrium's shifted by its class's honesty
    m = middle[0]
    assert model.honest_truth(view)[m] == pytest.approx(float(ab.shifted_truth(view.equilibrium_truth[m], model.honesty[1])))
    assert one.honest_truth(view)[m] == pytest.approx(float(ab.shifted_truth(view.equilibrium_truth[m], everything)))


def _model_values(view, rng):
    """A made-up model's values: my value [r, m] of each message as the roller (around the
    equilibrium's payoffs), and of a bet and a pass as the answerer, and his message chances."""
    claims = ab.stage_claim_values(view, np.clip(view.beta + rng.normal(0, 0.3, len(view.beta)), 0, 1))
    truth = np.clip(view.equilibrium_truth + rng.normal(0, 0.3, len(view.beta)), 0, 1)
    on_bet, on_pass = ab.stage_answer_values(view, truth)
    sent = rng.random(len(view.beta))
    return claims, on_bet, on_pass, sent / sent.sum()


def check_safe_deviations(view, rng) -> int:
    """The exact worst-case loss of the deviated strategies (roller_guarantee,
    answerer_exposure, which give V* for the equilibrium's own, tests above and below) is
    within the budget, the weights within the cap; with an unbounded budget the deviation
    is the whole best reply. Returns how many deviations were made."""
    deviated = 0
    claims, on_bet, on_pass, sent = _model_values(view, rng)
    for budget, cap in ((0.0, 1.0), (0.01, 1.0), (0.2, 0.5), (1e9, 1.0)):
        weights, best = ab.safe_claims(view, claims, budget, cap)
        sigma = ab.deviated_claims(view, weights, best)
        assert np.allclose(sigma.sum(axis=1), 1.0) and (weights <= cap + 1e-12).all()
        assert not (sigma[~view.options] > 0).any()  # never an option the dice do not allow
        assert view.value - ab.roller_guarantee(view, sigma) <= budget + 1e-9
        bet_weights, reply = ab.safe_bets(view, on_bet, on_pass, sent, budget, cap)
        bets = ab.deviated_bets(view, bet_weights, reply)
        assert ((bet_weights >= -1e-12) & (bet_weights <= cap + 1e-12)).all()
        assert ab.answerer_exposure(view, bets) - view.value <= budget + 1e-9
        deviated += bool(weights.any()) + bool(bet_weights.any())
        if budget > 1e6:
            # the best reply: each type's best allowed column, each message's better answer
            mine = (view.chance[:, None] * sigma * claims).sum()
            assert mine == pytest.approx(view.chance @ np.where(view.options, claims, -np.inf).max(axis=1), abs=1e-9)
            free = view.can_bet & ~view.must_bet
            better = np.where(on_bet > on_pass, 1.0, 0.0)
            matters = free & (sent > 0) & (np.abs(on_bet - on_pass) > 1e-12)  # not a tie
            assert np.allclose(bets[matters], better[matters])
    return deviated


def test_the_safe_deviations_never_risk_more_than_the_budget(plan):
    # on every stage of the 6-chip table, for made-up models and budgets
    rng = np.random.default_rng(7)
    assert sum(check_safe_deviations(view, rng) for view in stages(plan)) > 100


def check_gifts(view, rng) -> None:
    """My stage value against an opponent's fixed strategy, computed directly from the
    payoffs, is the worst case plus his expected gift (the budget's income): as the
    roller against bets beta_o, and as the answerer against claims sigma_o (over the
    columns his dice allow)."""
    claims, on_bet, on_pass, sent = _model_values(view, rng)
    weights, best = ab.safe_claims(view, claims, 0.3)
    sigma = ab.deviated_claims(view, weights, best)
    his_bets = np.where(view.must_bet, 1.0, np.where(view.can_bet, rng.random(len(view.beta)), 0.0))
    weighted = view.chance[:, None] * sigma
    direct = (weighted * (his_bets * view.bet_pay() + (1 - his_bets) * view.passed)).sum()
    gifts = sum(weighted[:, m].sum() * (his_bets[m] * ab.claim_gift(view, sigma, m, True)
                                       + (1 - his_bets[m]) * ab.claim_gift(view, sigma, m, False))
                for m in range(len(view.messages)))
    assert direct == pytest.approx(ab.roller_guarantee(view, sigma) + gifts, abs=1e-9)
    bet_weights, reply = ab.safe_bets(view, on_bet, on_pass, sent, 0.3)
    bets = ab.deviated_bets(view, bet_weights, reply)
    his_claims = rng.random(view.sigma.shape) ** 4 * view.options
    his_claims /= his_claims.sum(axis=1, keepdims=True)
    his = (view.chance[:, None] * his_claims * (bets * view.bet_pay() + (1 - bets) * view.passed)).sum()
    given = [[ab.bet_gift(view, bets, r, m) if view.options[r, m] else 0.0 for m in range(len(view.messages))]
             for r in range(len(view.chance))]
    assert his == pytest.approx(ab.answerer_exposure(view, bets) - (view.chance[:, None] * his_claims * given).sum(),
                                abs=1e-9)
    assert min(min(row) for row in given) >= 0


def test_the_gifts_are_what_the_opponent_gives_beyond_the_worst_case(plan):
    rng = np.random.default_rng(11)
    for view in list(stages(plan))[::7]:
        check_gifts(view, rng)


@pytest.fixture(scope="module")
def options(plan, table_folder):
    return AgentOptions(cache_dir=table_folder)


def plays_the_equilibriums_moves(game, options, agent_class) -> None:
    """With nothing learnt (cap n / (n + 40) = 0 before any observation) the agent makes
    the same draws as the equilibrium's, move for move, on 6 seeds."""
    for seed in range(6):
        mine, theirs = agent_class(game, seed, options), BettingEquilibriumBot(game, seed, options)
        state = game.new_initial_state()
        sampler = ChanceSampler(seed)
        rolls = 0
        while not game.is_terminal(state):
            player = game.current_player(state)
            if player < 0:
                action = sampler.sample(game, state, rolls)
                rolls += 1
            else:
                action = mine.choose(state)
                assert action == theirs.choose(state)
            state = game.apply(state, action)


def test_with_nothing_learnt_it_plays_the_equilibriums_moves(options):
    plays_the_equilibriums_moves(BiddingBluffGame(RULES, 2), options, AdaptiveBiddingBot)


def learns_and_risks_only_its_budget(game, agent, other, games, sampler, observed) -> None:
    """``games`` games of ``agent`` against ``other``, seats swapped (a series): every move
    legal (play_match applies each through the engine), the model learns, the agent
    deviates, and what a stage risks is never more than the budget left."""
    spent = []
    spend = agent._spend

    def recorded(loss, deviates):
        spent.append((agent.budget, loss, deviates))
        spend(loss, deviates)

    agent._spend = recorded
    for i in range(games):
        (agent.reseed if i else agent.reset)(i)
        other.reset(i)
        state = play_match(game, [agent, other] if i % 2 else [other, agent], sampler(i))
        assert game.is_terminal(state) and sum(state.chips) == 2 * game.rules.start_chips
    assert agent.model.observed > observed and any(deviates for _b, _l, deviates in spent)
    for before, loss, deviates in spent:
        assert not deviates or loss <= max(before, 0.0) + 1e-9
    assert agent.budget >= -1e-9


@pytest.mark.parametrize("opponent", [TruthfulBot, ThresholdBot])
def test_it_learns_plays_legal_moves_and_risks_only_its_budget(options, opponent):
    game = BiddingBluffGame(RULES, 2)
    learns_and_risks_only_its_budget(game, AdaptiveBiddingBot(game, 2, options), opponent(game), 40,
                                     lambda i: ChanceSampler(100 + i), 40)


def test_too_many_chips_for_the_table_are_refused_by_name(options):
    # the tests' round table holds chips adding up to 6: from 4 each no match fits, and the
    # message names the agent asked for and what would fit (the round table holds every
    # count up to its limit, whatever the start: building for 4 would not help)
    game = BiddingBluffGame(BiddingBluffRules(start_chips=4, max_rounds=1, payoff="chips"), 2)
    for name in ("adaptive", "equilibrium"):
        with pytest.raises(AgentUnavailable, match=f"agent '{name}'.*play from at most 3 chips each"):
            make_agent(name, game, 0, options)


def test_it_learns_the_opponent_only(options):
    # two adaptive agents in one match: each model counts exactly the other agent's claims
    # (claims are public, BLUFF-12), never its own
    game = BiddingBluffGame(RULES, 2)
    first, second = AdaptiveBiddingBot(game, 1, options), AdaptiveBiddingBot(game, 2, options)
    events = []

    class Recorder:
        has_memory = True

        def observe(self, event):
            events.append(event)

    recorder = Recorder()
    first_observe = first.observe

    def observe(event):
        recorder.observe(event)
        first_observe(event)

    first.observe = observe
    play_match(game, [first, second], ChanceSampler(9))
    decisions = [e for e in events if e.player >= 0]
    claims = [e for e in decisions if isinstance(e.action, Claim)]
    by_second = [e for e in claims if e.player == 1]
    assert first.model.sent.sum() == len(by_second) and second.model.sent.sum() == len(claims) - len(by_second)


def test_a_series_keeps_memory_and_changes_nothing_for_agents_without(options, monkeypatch):
    game = BiddingBluffGame(RULES, 2)
    # a level keeps per-game state (its regret, its base agent): in a series an agent
    # without memory is still reset before each of the 12 games, as in a plain run
    from kocka.agents.bots.levels import LevelAgent

    resets = []
    original = LevelAgent.reset
    monkeypatch.setattr(LevelAgent, "reset", lambda self, seed=None: (resets.append(seed), original(self, seed)))
    run_arena(game, ["level:3", "threshold"], 12, 4, options=options, series=True)
    assert len(resets) == 12
    monkeypatch.undo()
    plain = run_arena(game, ["level:3", "threshold"], 12, 4, options=options)
    series = run_arena(game, ["level:3", "threshold"], 12, 4, options=options, series=True)
    assert np.array_equal(plain.scores, series.scores) and series.series and not plain.series
    assert series.to_json()["series"] is True
    agent = make_agent("adaptive", game, 0, options)
    assert isinstance(agent, AdaptiveBiddingBot) and EPSILON == 0.1
    play_match(game, [agent, TruthfulBot(game)], ChanceSampler(1))
    seen = agent.model.observed
    agent.reseed(5)
    play_match(game, [TruthfulBot(game), agent], ChanceSampler(2))  # seats swapped: the same opponent
    assert agent.model.observed > seen > 0
    agent.reset(5)
    assert agent.model.observed == 0


def test_in_a_whole_match_it_plays_by_the_match_plan(tmp_path):
    # a match from 2 chips each (its match table, 1-2 s): values are chances to win, the
    # equilibrium's stage strategies guarantee them too, and the agent risks 0.005 of the
    # chance to win per round, one stage deep
    from kocka.agents.bots.adaptive_bluff import MATCH_EPSILON
    from kocka.solver.solvers.bluff.match import BIDDING_MATCH, MatchPlan

    game = BiddingBluffGame(BiddingBluffRules(start_chips=2), 2)
    build_table(game, BIDDING_MATCH, BuildOptions(progress=False), tmp_path)
    agent = AdaptiveBiddingBot(game, 1, AgentOptions(cache_dir=tmp_path))
    assert isinstance(agent.plan, MatchPlan) and agent.epsilon == MATCH_EPSILON
    for standing in (None, agent.plan.claims[5]):
        for x, y in ((1, 3), (2, 2), (3, 1)):
            view = ab.StageView.build(agent.plan, standing, x, y)
            assert ab.roller_guarantee(view, view.sigma) == pytest.approx(view.value, abs=1e-12)
            assert ab.answerer_exposure(view, view.beta) == pytest.approx(view.value, abs=1e-12)
    for i in range(12):
        (agent.reseed if i else agent.reset)(i)
        state = play_match(game, [agent, ThresholdBot(game)] if i % 2 else [ThresholdBot(game), agent], ChanceSampler(i))
        assert game.is_terminal(state) and sum(state.chips) == 4
        assert agent.budget >= -1e-9


# ----- liar's kockapóker (BLUFF-17..BLUFF-21): the same machinery on its stages -----
LIARS_PUBLICS = ((6, 6, 6), (2, 3, 5), (1, 1, 4))


@pytest.fixture(scope="module")
def liars_plans():
    """Round plans from 2 chips each (4 in play), one per public roll, each from its own
    one-roll table (tests/test_bluff_round.py's: a second each)."""
    game = LiarsPokerGame(LiarsPokerRules(start_chips=2), 2)
    return {public: LiarsPlan(game, liars_table(2, [public])) for public in LIARS_PUBLICS}


def liars_stages(plans, publics=LIARS_PUBLICS):
    for public in publics:
        plan = plans[public]
        game = plan.game
        for standing in [None, *game.claims_above(None, public, ())[::6]]:
            if standing == plan.top(public):
                continue
            for x in (1, 2, 3):
                for slot in range(7):
                    if slot == 0 or game.claims_above(standing, public, (slot,)):
                        yield adaptive_liars.liars_stage(plan, public, standing, x, 4 - x, slot)


def test_liars_stages_give_the_stored_values(liars_plans):
    # laid out as arrays, the stored equilibrium's claims and re-throws (BLUFF-18: the
    # roller's outside options, open to the dice that hold the kept die) hold every
    # answerer to the stored V*, and its bets hold every roller to V*, re-throws included:
    # an independent check of the layout against the stage solver's values
    rethrows = 0
    for view in liars_stages(liars_plans):
        assert ab.roller_guarantee(view, view.sigma) == pytest.approx(view.value, abs=1e-12)
        assert ab.answerer_exposure(view, view.beta) == pytest.approx(view.value, abs=1e-12)
        outside = np.array([c == adaptive_liars.RETHROW for c, _k in view.messages])
        assert not (view.sigma[~view.options] > 0).any()
        rethrows += int((view.sigma[:, outside] > 0).any())
    assert rethrows > 0


def test_liars_safe_deviations_never_risk_more_than_the_budget(liars_plans):
    rng = np.random.default_rng(3)
    assert sum(check_safe_deviations(view, rng) for view in liars_stages(liars_plans, ((6, 6, 6), (2, 3, 5)))) > 50


def test_liars_gifts_are_what_the_opponent_gives_beyond_the_worst_case(liars_plans):
    rng = np.random.default_rng(5)
    for view in list(liars_stages(liars_plans, ((6, 6, 6), (1, 1, 4))))[::3]:
        check_gifts(view, rng)


def test_liars_reply_to_an_unseen_opponent_is_worth_the_equilibrium_value(liars_plans):
    # as for the bidding bluff: a best reply to the equilibrium itself, any number of
    # passes ahead (re-throws included: outside options worth their stages' R and O),
    # earns exactly the stored values
    for public in ((6, 6, 6), (2, 3, 5)):
        plan = liars_plans[public]
        model = ab.BiddingOpponentModel(len(plan.claims))
        stages = adaptive_liars.LiarsStages(lambda key, plan=plan: adaptive_liars.liars_stage(plan, *key), plan)
        for depth in (0, 2):
            reply = ab.ModelReply(model, stages, depth)
            for x in (1, 2, 3):
                key = (public, None, x, 4 - x, 0)
                assert reply.mine(key) == pytest.approx(plan.value(public, None, x, 4 - x), abs=1e-9)
                assert reply.theirs(key) == pytest.approx(-plan.value(public, None, x, 4 - x), abs=1e-9)


def test_liars_types_by_hand():
    # slot 0: both hidden dice (sorted, as the plan's rows); slot d: the die thrown again
    assert adaptive_liars.type_index(0, (5, 2), ()) == [d for d, _p in adaptive_liars.types_of(0)].index((2, 5))
    assert adaptive_liars.type_index(4, (4, 6), (4,)) == 5 and adaptive_liars.type_index(4, (4, 4), (4,)) == 3
    assert sum(p for _d, p in adaptive_liars.types_of(0)) == pytest.approx(1.0)
    assert adaptive_liars.rethrow_action((adaptive_liars.RETHROW, 3)) == Reroll(3)


LIARS_MATCH_RULES = LiarsPokerRules(start_chips=1)
"""A match from 1 chip each: the session's match table (tests/conftest.py), so the agent
plays the match plan, one stage deep."""
SIX_SIX_SIX_RULES = LiarsPokerRules(start_chips=2, max_rounds=1, payoff="chips")


class PublicRoll:
    """A chance sampler whose public rolls are all [6, 6, 6] (the one-class table's)."""

    def __init__(self, seed):
        self.sampler = ChanceSampler(seed)

    def sample(self, game, state, rolls):
        action = self.sampler.sample(game, state, rolls)
        return (6, 6, 6) if not state.public and isinstance(action, tuple) and len(action) == 3 else action


@pytest.fixture(scope="module")
def six_six_six_folder(tmp_path_factory):
    """The round table from 2 chips each of the public roll [6, 6, 6]'s class only, stored
    in its own folder (tests/test_table_integrity.py's one-class solver: a second)."""
    from test_table_integrity import OneClassLiars

    folder = tmp_path_factory.mktemp("liars-six")
    build_table(LiarsPokerGame(LiarsPokerRules(start_chips=2), 2), OneClassLiars(measured=()),
                BuildOptions(progress=False), folder)
    return folder


@pytest.mark.parametrize("opponent", ["truthful", "threshold"])
def test_liars_agent_learns_plays_legal_moves_and_risks_only_its_budget(six_six_six_folder, opponent):
    # one-round games from 2 chips each after the public roll [6, 6, 6], by the round plan
    # (the reply two passes ahead): it deviates, never risks more than its budget, and every
    # move is legal (play_match applies each through the engine)
    game = LiarsPokerGame(SIX_SIX_SIX_RULES, 2)
    options = AgentOptions(cache_dir=six_six_six_folder)
    agent = make_agent("adaptive", game, 3, options)
    assert isinstance(agent, AdaptiveLiarsBot) and not agent._match
    learns_and_risks_only_its_budget(game, agent, make_agent(opponent, game, 4, options), 60,
                                     lambda i: PublicRoll(500 + i), 30)


def test_liars_agent_plays_the_match_plan_legally(liars_match_table):
    # a match from 1 chip each (the session's match table): one stage deep, legal moves
    game = LiarsPokerGame(LIARS_MATCH_RULES, 2)
    agent = make_agent("adaptive", game, 3, AgentOptions())
    assert isinstance(agent, AdaptiveLiarsBot) and agent._match
    other = make_agent("threshold", game, 4, AgentOptions())
    for i in range(30):
        (agent.reseed if i else agent.reset)(i)
        state = play_match(game, [agent, other] if i % 2 else [other, agent], ChanceSampler(700 + i))
        assert game.is_terminal(state) and sum(state.chips) == 2
    assert agent.model.observed > 10 and agent.budget >= -1e-9


def test_liars_agent_with_nothing_learnt_plays_the_equilibriums_moves(liars_match_table):
    plays_the_equilibriums_moves(LiarsPokerGame(LIARS_MATCH_RULES, 2), AgentOptions(), AdaptiveLiarsBot)
