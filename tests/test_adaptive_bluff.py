"""The adaptive agent of two-player Abázs (issue 27; RULES.md BLUFF-3..BLUFF-10): its model
learns a fixed bot's frequencies, its best reply is a best response (checked by the
independent best-response walk), its loss against the equilibrium stays within epsilon, and
it plays legal moves. Default rules (simple ranking, 11 results): the smallest Abázs."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kocka.agents.bots.adaptive_bluff import EPSILON, AdaptiveAbazsBot
from kocka.agents.bots.base import ChanceSampler, Event
from kocka.agents.bots.bluff_bots import ThresholdBot, TruthfulBot, round_policy
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import play_match
from kocka.solver.rules import CHANCE
from kocka.solver.rules.bluff import AbazsGame, AbazsRules, Challenge, all_claims
from kocka.solver.solvers.bluff import abazs as bluff_abazs
from kocka.solver.solvers.bluff import adaptive as bluff_adaptive
from kocka.solver.solvers.bluff.two_player import result_dice

MATCH = AbazsRules(start_chips=1000, max_rounds=60, payoff="chips")


@pytest.fixture(scope="module")
def options(abazs_equilibrium_table):
    return AgentOptions(cache_dir=abazs_equilibrium_table.path.parent)


def fixed_strategy(game: AbazsGame, policy) -> tuple:
    """A deterministic round policy as the model's arrays (claim[s, r, c], challenge[s, c]),
    by asking it at one state per information set (BLUFF-3: claims above s; BLUFF-5: the top
    claim is challenged)."""
    results = all_claims(game.rules.ranking)
    n = len(results)
    reps = result_dice(game.rules.ranking)
    claim, challenge = np.zeros((n + 1, n, n)), np.zeros((n + 1, n))
    start = game.new_round_state((10, 10), starter=0)
    for s in range(n):
        standing = None if s == 0 else results[s - 1]
        history = () if standing is None else (standing,)
        for r in results:
            state = replace(start, phase="claim", standing=standing, history=history, dice=reps[r])
            (action,) = policy(state, None)
            claim[s, r.rank, action.claim.rank] = 1.0
        for c in game.claims_above(standing):
            state = replace(start, phase="answer", standing=c, history=history + (c,), dice=reps[c])
            (action,) = policy(state, standing)
            challenge[s, c.rank] = 1.0 if isinstance(action, Challenge) else 0.0
    return claim, challenge


def test_the_posterior_converges_to_a_fixed_bots_frequencies(options):
    # truthful never challenges unless BLUFF-5 forces it, and claims its result when the
    # result beats the claim to beat (else the smallest lie): the posterior mean of every
    # cell is (W p_eq + n p_bot) / (W + n), by Dirichlet conjugacy, with p_bot from those rules
    game = AbazsGame(MATCH, 2)
    agent = AdaptiveAbazsBot(game, seed=3, options=options)
    play_match(game, [agent, TruthfulBot(game)], ChanceSampler(5))
    model, prior = agent.models[1], bluff_adaptive.AbazsOpponentModel.equilibrium_prior(agent.table)
    weight = bluff_adaptive.PRIOR_WEIGHT
    answers = model.challenges.sum(axis=-1) - prior.challenges.sum(axis=-1)
    assert answers.sum() >= 20
    for s, c in zip(*answers.nonzero()):
        n = answers[s, c]
        p_eq = prior.challenges[s, c, 0] / weight
        assert model.challenge_policy()[s, c] == pytest.approx(weight * p_eq / (weight + n))
    claims = model.claims.sum(axis=-1) - prior.claims.sum(axis=-1)
    assert claims.sum() >= 10
    results = all_claims("simple")
    best = 0.0
    for s, r in zip(*claims.nonzero()):
        n = claims[s, r]
        beaten = None if s == 0 else results[s - 1]
        truth = results[r]
        made = truth if beaten is None or truth.rank > beaten.rank else results[beaten.rank + 1]
        p_eq = prior.claims[s, r, made.rank] / weight
        posterior = model.claim_policy()[s, r, made.rank]
        assert posterior == pytest.approx((weight * p_eq + n) / (weight + n))
        best = max(best, posterior)
    assert best > 0.8  # the most seen cell has moved most of the way to the bot's choice


@pytest.mark.parametrize("bot", [TruthfulBot, ThresholdBot])
def test_the_best_reply_to_a_fixed_bot_is_a_best_response(options, bot):
    # the independent best-response walk (best_response.py) through the engine is the brute
    # force: the reply's value against the bot equals the best responder's in each seat, and
    # the recursion's R(no claim), O(no claim) equal those values less x/2 (every round ends
    # with one challenge, which pays the claimant +-x/2 in the stage form and x to whoever
    # starts next in the walk's)
    game = AbazsGame(AbazsRules(), 2)
    table = AdaptiveAbazsBot(game, options=options).table
    x = 2 * float(table["match_stage_value"][0])
    challenged = tuple(float(v) for v in table["match_challenged"])
    fixed = round_policy(bot(game))
    reply = bluff_adaptive.best_reply(game, *fixed_strategy(game, fixed), challenged)
    walk = bluff_abazs.walk_game(game.rules)
    for seat in (0, 1):
        seats = [fixed, fixed]
        seats[seat] = reply.policy()
        brute = float(bluff_abazs.best_response_value(walk, fixed, seat, x))
        assert float(bluff_abazs.policy_value(walk, seats, seat, x)) == pytest.approx(brute, abs=1e-12)
    assert reply.mine[0] == pytest.approx(float(bluff_abazs.best_response_value(walk, fixed, 0, x)) - x / 2, abs=1e-12)
    assert reply.theirs[0] == pytest.approx(float(bluff_abazs.best_response_value(walk, fixed, 1, x)) - x / 2, abs=1e-12)


def test_against_the_equilibrium_the_loss_is_within_epsilon(options):
    # after learning truthful: the round played by the reply with probability w, else by the
    # equilibrium, loses w (g_seat - v_seat(reply vs equilibrium)) per round against the
    # equilibrium (linear in the draw), walked exactly; it must be <= EPSILON, and so must
    # w L, the bound against any opponent
    game = AbazsGame(MATCH, 2)
    agent = AdaptiveAbazsBot(game, seed=1, options=options)
    play_match(game, [agent, TruthfulBot(game)], ChanceSampler(2))
    reply, weight = agent.plan(1)
    assert weight > 0
    walk = bluff_abazs.walk_game(game.rules)
    x = agent.start_value
    for seat in (0, 1):
        seats = [agent._policy, agent._policy]
        seats[seat] = reply
        value = float(bluff_abazs.policy_value(walk, seats, seat, x))
        assert weight * (agent.guarantee[seat] - value) <= EPSILON + 1e-12
    loss = bluff_adaptive.worst_case_loss(game, reply, agent.guarantee, x)
    assert weight * loss <= EPSILON + 1e-12


def test_without_memory_it_plays_the_equilibrium(options):
    # nothing observed (a seat request): w = 0, so the mixture is the equilibrium alone
    game = AbazsGame(AbazsRules(), 2)
    agent = AdaptiveAbazsBot(game, options=options)
    assert agent.plan(1)[1] == 0.0


@pytest.mark.parametrize("opponent", ["truthful", "threshold", "bayes", "random", "equilibrium"])
def test_choices_are_legal(options, opponent):
    game = AbazsGame(AbazsRules(start_chips=1000, max_rounds=25, payoff="chips"), 2)
    agent = make_agent("adaptive", game, 7, options)
    other = make_agent(opponent, game, 8, options)
    state, sampler, rolls = game.new_initial_state(), ChanceSampler(9), 0
    while not game.is_terminal(state):
        player = game.current_player(state)
        if player == CHANCE:
            action, rolls = sampler.sample(game, state, rolls), rolls + 1
        else:
            action = (agent, other)[player].choose(state)
            if player == 0:
                assert action in game.legal_actions(state)
        state = game.apply(state, action)
        agent.observe(Event(player, None if player == CHANCE else action, state))
    assert state.rounds == 25


def test_the_seat_forgets_between_requests_and_plays_the_equilibrium(abazs_equilibrium_table):
    # the seat resets (reseeds) its agent for every request, so nothing is observed and w = 0:
    # adaptive draws exactly as equilibrium does from the same seed
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions

    seat = Seat(SeatOptions(cache_dir=abazs_equilibrium_table.path.parent))
    game = AbazsGame(AbazsRules(), 2)
    state = game.new_round_state((10, 10), starter=0)
    while game.current_player(state) == CHANCE:
        state = game.apply(state, game.chance_outcomes(state)[5][0])
    doc = game.state_to_json(state)
    for s in range(12):
        answers = [seat.choose({"id": s, "method": "choose", "state": doc, "agent": name, "seed": s})
                   for name in ("adaptive", "equilibrium")]
        assert answers[0]["action"] == answers[1]["action"]
        assert answers[0]["agent"] == "adaptive"
