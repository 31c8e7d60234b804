"""The betting games' stored plans as agents and hints use them: which table serves a game
(its canonical game, for a round or a match table), the plan read from that table, and the
legal actions of a state ranked by their value against the plan (RULES.md BLUFF-11..BLUFF-21).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import RulesError
from kocka.solver.rules.bluff import BiddingBluffGame, BluffState, LiarsPokerGame
from kocka.solver.solvers.bluff.betting import check_betting_rules
from kocka.solver.solvers.bluff.bidding import BiddingPlan, canonical_bidding_game
from kocka.solver.solvers.bluff.liars import LiarsPlan, canonical_liars_game
from kocka.solver.solvers.bluff.match import LiarsMatchPlan, MatchPlan
from kocka.solver.solvers.bluff.two_player import MATCH_KIND, VALUE_TIE_DIGITS


def canonical_betting_game(game: Any) -> Any:
    """The game whose equilibrium table serves ``game`` (:func:`canonical_bidding_game`,
    :func:`canonical_liars_game`)."""
    check_betting_rules(game)
    if isinstance(game, LiarsPokerGame):
        return canonical_liars_game(game)
    return canonical_bidding_game(game)


def canonical_match_game(game: Any) -> Any:
    """The game whose match table serves ``game``: the round's options
    (:func:`canonical_betting_game`) and ``bluff.start_chips`` (a match's chips add up to
    twice that); in liar's poker also ``liar.first_turn``, since who rolls first in the next
    round changes the match (it does not change a round, whose values are the roller's)."""
    rules = canonical_betting_game(game).rules
    if isinstance(game, LiarsPokerGame):
        return LiarsPokerGame(replace(rules, first_turn=game.rules.first_turn), 2)
    return BiddingBluffGame(replace(rules, start_chips=game.rules.start_chips), 2)


def plan_for(game: Any, table: Any) -> Any:
    """The stored plan of ``game``'s canonical game (:func:`canonical_betting_game`; a match
    table gives the :class:`~kocka.solver.solvers.bluff.match.MatchPlan` or
    :class:`~kocka.solver.solvers.bluff.match.LiarsMatchPlan`)."""
    match = table.meta.kind == MATCH_KIND
    if isinstance(game, LiarsPokerGame):
        return LiarsMatchPlan(game, table) if match else LiarsPlan(game, table)
    return MatchPlan(game, table) if match else BiddingPlan(game, table)


def _check_position(game: Any, state: BluffState) -> None:
    if game.num_players != 2 or len(state.chips) != 2:
        raise RulesError(f"the {game.NAME} equilibrium is for two players")
    if state.bank:
        raise RulesError(f"the {game.NAME} equilibrium knows no bank (with two players it is always empty), got a bank of {state.bank}")


def rank_betting(game: Any, plan: Any, state: BluffState) -> list[Decision]:
    """Every legal action of the player to act with its value against the equilibrium
    opponent (his chips from here to the end of the round), best first. ``detail``: the
    action's equilibrium probability; for a claim whether it is true and P(it is bet on);
    for an answer P(the claim is true) given the claims so far (Bayes over the claimant's
    equilibrium claims) and whether the equilibrium makes that claim at all."""
    _check_position(game, state)
    actions = game.legal_actions(state)
    if not actions:
        raise RulesError(f"{game.NAME}: no decision in {game.describe_state(state)}")
    chosen = plan.policy()(state)
    me = game.current_player(state)
    decisions = []
    if state.phase == "claim":
        for action, value, detail in plan.claim_values(state, actions):
            decisions.append(Decision(action, value, game.describe_action(action, state),
                                      {"P(chosen)": float(chosen.get(action, 0.0)), **detail}))
    elif state.phase == "answer":
        x, y = state.chips[state.active], state.chips[me]
        q, made = plan.p_true(state, x, y)
        values = plan.answer_values(state, x, y, q)
        for action in actions:
            value = values[type(action)]
            decisions.append(Decision(action, value, game.describe_action(action, state), {
                "P(chosen)": float(chosen.get(action, 0.0)), "P(claim true)": q, "on equilibrium path": made,
            }))
    else:
        raise RulesError(f"{game.NAME}: no decision in phase {state.phase!r}")
    # values equal but for float noise tie (a mixed strategy is indifferent between the
    # moves it plays): the move the equilibrium plays most often first
    return sorted(decisions, key=lambda d: (-round(d.value, VALUE_TIE_DIGITS), -d.detail["P(chosen)"]))


__all__ = ["canonical_betting_game", "canonical_match_game", "plan_for", "rank_betting"]
