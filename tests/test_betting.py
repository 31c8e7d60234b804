"""Chip-bidding kockapóker agents (agents/bots/betting.py, RULES.md HU-10..HU-19): who finishes
top, the expected settlement, and decisions in positions whose right answer the rules
make clear."""
from __future__ import annotations

import numpy as np
import pytest

from kocka.agents.frontends.games.arena import run_arena
from kocka.agents.bots.base import AgentUnavailable
from kocka.agents.bots.betting import BettingAgent, FinalTotals, expected_net, top_set_probabilities
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.rules import get_game
from kocka.solver.rules.chip_bidding import (
    RAISE, RESPOND, ChipBiddingGame, ChipBiddingRules, ChipBiddingState, Decline, Hold, Pass, Raise,
)
from kocka.solver.rules.scorecard import Card, ScorecardState
from kocka.solver.solvers.scorecard.values import value_of_card

A, B, C = 0, 1, 2


@pytest.fixture(scope="module")
def options(tmp_path_factory) -> AgentOptions:
    return AgentOptions(cache_dir=tmp_path_factory.mktemp("tables"), build_missing=True)


def one_box_game(players: int = 2) -> ChipBiddingGame:
    """Cards of one box (chance: the sum of the dice); a card without face boxes adds 63."""
    return ChipBiddingGame(ChipBiddingRules(boxes=("chance",)), num_players=players)


def finished(game: ChipBiddingGame, chances: tuple[int, ...], **betting) -> ChipBiddingState:
    """Every card full (the last player has just filled): totals are final."""
    cards = tuple(Card((c,)) for c in chances)
    state = ChipBiddingState(card=ScorecardState(cards=cards), **betting)
    game.check_state(state)
    return state


# ----------------------------------------------------------------------------------------
# Who finishes top, and the expected settlement
# ----------------------------------------------------------------------------------------
def test_top_sets_by_hand():
    # A: 10 or 12 (1/2 each); B: 11; C: 10 or 11 (1/2 each).
    # A = 12 (1/2): A alone. A = 10: B is 11; C = 11 ties with B (1/4) or not (1/4).
    dists = [(10, np.array([0.5, 0, 0.5])), (11, np.array([1.0])), (10, np.array([0.5, 0.5]))]
    tops = top_set_probabilities(dists)
    assert tops == pytest.approx({frozenset({A}): 0.5, frozenset({B}): 0.25, frozenset({B, C}): 0.25})


def test_expected_net_by_hand():
    rules = ChipBiddingRules()
    tops = {frozenset({A}): 0.8, frozenset({B}): 0.15, frozenset({A, B}): 0.05}
    # bank 6 from 3 + 3: A wins 3 net with 0.8, loses 3 with 0.15, shares (0) with 0.05
    assert expected_net(tops, (3, 3), (False, False), A, rules) == pytest.approx(0.8 * 3 - 0.15 * 3)
    # A passed: HU-15, B takes the bank of 6 whatever the totals
    assert expected_net(tops, (3, 3), (True, False), B, rules) == 3
    # three players, C passed but tops with 0.5: small prize 2 x 1 (HU-17) out of the bank
    # of 7; the other 5 go to A and B (3 and 2, the odd chip to the higher total, HU-18:
    # both count as non-top here, seat order gives it to A)
    three = {frozenset({C}): 0.5, frozenset({A}): 0.5}
    assert expected_net(three, (3, 3, 1), (False, False, True), C, rules) == pytest.approx(0.5 * 1 + 0.5 * -1)
    assert expected_net(three, (3, 3, 1), (False, False, True), A, rules) == pytest.approx(0.5 * 0 + 0.5 * 4)


def test_final_totals_mean_is_the_card_value(options):
    game = ChipBiddingGame(ChipBiddingRules(boxes=("chance", "pair")), num_players=2)
    agent = make_agent("bettor", game, 0, options)
    card = Card((None, 12))  # pair written (HU-6: two 6s), chance open
    first, probs = agent.totals.of_card(card)
    mean = float((np.arange(first, first + len(probs)) * probs).sum())
    assert probs.sum() == pytest.approx(1.0)
    assert mean == pytest.approx(value_of_card(agent.totals.solo, agent.table, card))
    # the normal stand-in keeps the exact mean
    approx = FinalTotals(game, agent.table, exact_max_open=0)
    first, probs = approx.of_card(card)
    assert float((np.arange(first, first + len(probs)) * probs).sum()) == pytest.approx(mean, abs=1e-6)


# ----------------------------------------------------------------------------------------
# Decisions the rules make clear
# ----------------------------------------------------------------------------------------
def test_certain_loser_declines_to_raise(options):
    game = one_box_game()
    # B has just filled the last box: 10 + 63 against A's 25 + 63, so B cannot finish top
    state = finished(game, (25, 10), paid=(1, 1), passed=(False, False), phase=RAISE, actor=B)
    ranked = make_agent("bettor", game, 0, options).rank(state)
    assert ranked[0].action == Decline()
    # declining loses the ante (-1); a raise of 2 that A holds loses 3
    assert [d.value for d in ranked] == pytest.approx([-1, -3])


def test_certain_winner_never_passes_a_raise(options):
    game = one_box_game()
    # B (certain loser) raised to 2 (paid 1 + 2); A, certain to top, answers
    state = finished(game, (25, 10), paid=(1, 3), passed=(False, False), stake=2,
                     phase=RESPOND, actor=B, pending=(A,))
    ranked = make_agent("bettor", game, 0, options).rank(state)
    values = {type(d.action): d.value for d in ranked}
    # hold: A pays 2, bank 6, A takes it: +3; pass: B takes the bank (HU-15): A -1
    assert values[Hold] == pytest.approx(3) and values[Pass] == pytest.approx(-1)
    assert ranked[-1].action == Pass()


def test_certain_loser_passes_a_raise_and_keeps_the_small_prize_in_view(options):
    game = one_box_game(3)
    # A raised to 2 (paid 3); B, whose 30 + 63 tops, answers; C has 5 + 63
    state = finished(game, (20, 30, 5), paid=(3, 1, 1), passed=(False, False, False), stake=2,
                     phase=RESPOND, actor=A, pending=(B, C))
    ranked = make_agent("bettor", game, 0, options).rank(state)
    values = {type(d.action): d.value for d in ranked}
    # hold: B pays 2 (C, a certain loser, is predicted to pass): bank 3 + 3 + 1 = 7, B takes
    # it: +4. Pass: B tops but passed: small prize 1 + 1 (HU-17): +1
    assert values[Hold] == pytest.approx(4) and values[Pass] == pytest.approx(1)
    assert ranked[-1].action == Pass()


def test_baselines_follow_their_rules(options):
    game = one_box_game()
    raise_chance = finished(game, (25, 10), paid=(1, 1), passed=(False, False), phase=RAISE, actor=B)
    answer = finished(game, (25, 10), paid=(3, 1), passed=(False, False), stake=2, phase=RESPOND, actor=A, pending=(B,))
    assert make_agent("score-only", game, 0, options).choose(raise_chance) == Decline()
    assert make_agent("score-only", game, 0, options).choose(answer) == Hold()  # even a certain loser
    assert make_agent("reckless", game, 0, options).choose(raise_chance) == Raise()
    assert make_agent("reckless", game, 0, options).choose(answer) == Raise()  # stake 2 < cap 10
    capped = finished(game, (25, 10), paid=(30, 20), passed=(False, False), stake=10, phase=RESPOND, actor=A, pending=(B,))
    assert make_agent("reckless", game, 0, options).choose(capped) == Hold()


def test_card_play_is_the_scorecard_solvers(options):
    game = one_box_game()
    state = game.apply(game.new_initial_state(), (5, 6, 6, 6, 6))
    decision = make_agent("bettor", game, 0, options).rank(state)[0]
    # one throw in hand on a chance card: writing 29 (+63) beats rolling again
    assert decision.action.__class__.__name__ == "Fill" and decision.value == pytest.approx(29 + 63)


def test_agents_need_the_scorecard_table(tmp_path):
    game = one_box_game()
    with pytest.raises(AgentUnavailable, match="kocka-solve build kockapoker"):
        BettingAgent(game, 0, AgentOptions(cache_dir=tmp_path))
    with pytest.raises(AgentUnavailable, match="kockapoker-bid"):
        make_agent("bettor", get_game("abazs", {}, 2), 0)


def test_arena_plays_three_betting_agents(options):
    game = ChipBiddingGame(ChipBiddingRules(boxes=("chance", "five_kind")), num_players=3)
    result = run_arena(game, ["bettor", "score-only", "reckless"], 6, seed=4, options=options)
    assert result.scores.shape == (6, 3)
    assert np.allclose(result.scores.sum(axis=1), 0)  # HU-19: net results sum to 0
