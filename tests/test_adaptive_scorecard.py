"""The scorecard games' ``adaptive`` agent (kocka.agents.bots.adaptive_scorecard): ``winner``
against the other cards lowered by the points their owners' moves give up.

Where each expected value comes from is said at each test: hand computation, the slow
reference ranker (kocka.solver.solvers.scorecard.reference, no kernel), the ``winner``
agent itself where the model must reduce to it, and the rule that a weaker opponent can
only raise one's win share (RULES.md section 0: the top total wins, ties shared).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from test_target_solver import SMALL, small_tables  # noqa: F401 (the module's tables, a fixture)
from kocka.agents.bots.base import AgentUnavailable, ChanceSampler, Event
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import play_match, run_arena
from kocka.solver.models.finishing import lowered, sum_of_draws
from kocka.solver.rules import CHANCE
from kocka.solver.rules.scorecard import Card, Fill, ScorecardState
from kocka.solver.solvers.scorecard.reference import rank_reference


def _two_player(game):
    return type(game)(game.rules, num_players=2)


def test_lowered_and_sum_of_draws_by_hand():
    # expected, by hand: totals 10 and 11 (1/2 each) minus a loss of 1 (3/4) or 2 (1/4):
    # P(8) = 1/2 * 1/4, P(9) = 1/2 * 3/4 + 1/2 * 1/4, P(10) = 1/2 * 3/4. A draw of 1.25
    # points is 1 with chance 3/4 and 2 with 1/4 (mean 1.25); two draws of 0 or 3 (1/2
    # each) sum to 0, 3, 6 with 1/4, 1/2, 1/4
    first, probs = lowered((10, np.array([0.5, 0.5])), (1, np.array([0.75, 0.25])))
    assert (first, probs.tolist()) == (8, [0.125, 0.5, 0.375])
    first, probs = sum_of_draws([1.25], [1.0], 1)
    assert (first, probs.tolist()) == (1, [0.75, 0.25])
    first, probs = sum_of_draws([0.0, 3.0], [2.0, 2.0], 2)
    assert (first, probs.tolist()) == (0, [0.25, 0, 0, 0.5, 0, 0, 0.25])
    assert sum_of_draws([4.0], [1.0], 0) == (0, pytest.approx([1.0]))
    with pytest.raises(ValueError, match=">= 0"):
        lowered((10, np.array([1.0])), (-1, np.array([1.0])))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=8), st.integers(-50, 50),
       st.lists(st.floats(0, 30), min_size=1, max_size=4), st.integers(0, 5))
def test_lowered_keeps_the_mass_and_drops_the_mean_by_the_draws(weights, first, points, draws):
    # expected: the mean of a sum of draws is draws times the mean draw (computed directly
    # from the points); the difference keeps mass one, its mean drops by that much, and no
    # total rises (P(total <= x) only grows)
    probs = np.array(weights) / sum(weights)
    loss = sum_of_draws(points, [1.0] * len(points), draws)
    assert float(np.arange(loss[0], loss[0] + len(loss[1])) @ loss[1]) == pytest.approx(
        draws * sum(points) / len(points), abs=1e-9)
    low_first, low = lowered((first, probs), loss)
    assert low.sum() == pytest.approx(1.0, abs=1e-12)
    mean = float(np.arange(first, first + len(probs)) @ probs)
    assert float(np.arange(low_first, low_first + len(low)) @ low) == pytest.approx(
        mean - draws * sum(points) / len(points), abs=1e-9)
    xs = np.arange(low_first, first + len(probs))
    cdf = lambda f, p: np.array([p[: max(0, x - f + 1)].sum() for x in xs])  # noqa: E731
    assert (cdf(low_first, low) >= cdf(first, probs) - 1e-12).all()


def test_one_player_has_no_opponents_to_model(small_tables):
    game, _, _, cache = small_tables
    with pytest.raises(AgentUnavailable, match="'adaptive' plays against opponents"):
        make_agent("adaptive", game, 0, AgentOptions(cache_dir=cache))


def test_a_move_gives_up_what_the_reference_ranker_says(small_tables):
    # expected: the slow reference ranker's values (no kernel) of the opponent's position:
    # his fill of the chance box with 2 2 2 5 6 (17 points) when keeping 2 2 2 is best
    # gives up best - chosen, kept as that turn's loss (to tenths); a best move adds nothing
    game1, table, ev_table, cache = small_tables
    game = _two_player(game1)
    agent = make_agent("adaptive", game, 0, AgentOptions(cache_dir=cache))
    other = Card(entries=(None, 6, None, None, 20))
    me = Card(entries=(None, -6, 20, None, None))
    before = ScorecardState(cards=(other, me), player=0, throw=1, dice=(2, 2, 2, 5, 6))
    reference = rank_reference(game, ev_table, before)
    chosen = next(d for d in reference if d.action == Fill("chance"))
    assert reference[0].value - chosen.value > 1.0  # the test needs a real mistake
    agent.observe(Event(CHANCE, None, before))
    agent.observe(Event(0, Fill("chance"), game.apply(before, Fill("chance"))))
    assert agent.turn_losses[0] == [pytest.approx(reference[0].value - chosen.value, abs=0.05)]
    assert agent.rate(0) == pytest.approx(agent.turn_losses[0][0] / (1 + agent.PRIOR_TURNS))
    best = reference[0].action
    agent.reset()
    agent.observe(Event(CHANCE, None, before))
    agent.observe(Event(0, best, game.apply(before, best)))
    assert agent._this_turn[0] == 0.0 and agent.turn_losses[0] == []   # a keep: the turn goes on


def test_a_weaker_opponent_only_raises_the_win_share(small_tables):
    # expected (RULES.md section 0): lowering the other card's totals can only raise my
    # chance of finishing first, so the fitted model's best win share is at least
    # winner's; with nothing given up it is winner's value exactly
    game1, _, _, cache = small_tables
    game = _two_player(game1)
    other, me = Card(entries=(None, 0, 18, 10, None)), Card(entries=(None, -6, 20, None, None))
    state = ScorecardState(cards=(other, me), player=1, throw=1, dice=(2, 2, 2, 5, 6))
    winner = make_agent("winner", game, 0, AgentOptions(cache_dir=cache))
    adaptive = make_agent("adaptive", game, 0, AgentOptions(cache_dir=cache))
    assert adaptive.shortfalls(state) == ((0, (1.0,)),)
    assert adaptive.win_probability(state) == pytest.approx(winner.win_probability(state), abs=1e-12)
    assert 0.1 < winner.win_probability(state) < 0.9   # a position where the model can matter
    adaptive.turn_losses[0] = [9.0]   # one turn seen: each of his two open boxes gives up
    # 9 points with chance 1/3, else 0 (PRIOR_TURNS = 2): 0, 9, 18 with 4/9, 4/9, 1/9
    first, probs = adaptive.shortfalls(state)[0]
    assert first == 0 and [probs[0], probs[9], probs[18]] == pytest.approx([4 / 9, 4 / 9, 1 / 9])
    assert adaptive.win_probability(state) > winner.win_probability(state) + 1e-6


def test_against_optimal_it_plays_winners_games(small_tables):
    # expected: ``optimal`` gives up nothing at any move, so the model is winner's and the
    # same seeded games end with the same scores (the safety bound's epsilon = 0 there)
    game1, _, _, cache = small_tables
    game = _two_player(game1)
    options = AgentOptions(cache_dir=cache)
    adaptive = run_arena(game, ["adaptive", "optimal"], 12, seed=5, options=options, table=True)
    winner = run_arena(game, ["winner", "optimal"], 12, seed=5, options=options, table=True)
    assert (adaptive.scores == winner.scores).all()


def test_random_opponents_are_fitted_below_expected_score_play(small_tables):
    # expected: ``random`` fills boxes at random, which gives up points at almost every
    # move (the reference ranker above measures the loss); after a game the rate is
    # positive, and a new game (reset) forgets it
    game1, _, _, cache = small_tables
    game = _two_player(game1)
    agent = make_agent("adaptive", game, 0, AgentOptions(cache_dir=cache))
    opponent = make_agent("random", game, 3, AgentOptions(cache_dir=cache))
    play_match(game, [opponent, agent], ChanceSampler(11))
    assert len(agent.turn_losses[0]) == len(SMALL[1]["boxes"])
    assert agent.rate(0) > 0.5
    agent.reset()
    assert agent.turn_losses == [[], []]
