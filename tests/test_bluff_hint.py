"""Hints in the bluff games (agents/advice/bluff.py) and the two-player
equilibrium agent of the betting games (agents/bots/bluff_bots.py), RULES.md BLUFF-3..BLUFF-21.

Expected values come from the rules (what a claim pays, BLUFF-13..BLUFF-15), from the
hand-solved stages of tests/test_bluff_round.py, and from the solver's own table read
back: a hint must show the table's numbers, with the words a player reads."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kocka.agents.bots.base import AgentUnavailable
from kocka.agents.frontends.games.arena import run_arena
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.advice.hint import HintParams, hint
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.solvers.bluff.bidding import BiddingEquilibriumSolver, BiddingPlan
from kocka.solver.solvers.bluff.match import LiarsMatchPlan
from kocka.solver.solvers.bluff.plans import canonical_match_game
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.store.table_store import build_table
from kocka.solver.rules import get_game
from kocka.solver.rules.bluff import BiddingBluffGame, BiddingBluffRules, TwoDiceClaim


def run(*args: str):
    return CliRunner().invoke(main, ["hint", *args, "--lang", "en"])  # the English words (default: Hungarian)


# ----------------------------------------------------------------------------------------
# From a fresh clone: no table, the Bayesian bot's values
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("abazs", "--dice", "3", "5"),
    ("abazs", "--claim", "9", "--previous", "6"),
    ("bidding-bluff", "--dice", "2", "4", "--standing", "7"),
    ("bidding-bluff", "--claim", "9", "--stake", "2"),
    ("liars-poker", "--public", "2", "5", "5", "--dice", "3", "6"),
    ("liars-poker", "--public", "2", "5", "5", "--claim", "two pairs 5 2", "--shown", "6"),
])
def test_every_bluff_game_answers_without_tables(args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "the bayes bot has" in result.output and "kocka-solve build" in result.output
    if "--claim" in args:
        assert "the chance that the claim" in result.output and "is true: " in result.output


def test_claim_hint_says_whether_each_claim_is_true_and_its_chance_of_a_challenge():
    result = run("abazs", "--dice", "3", "5", "--top", "0")
    lines = [line for line in result.output.splitlines() if line.lstrip("* ").startswith("claim ")]
    assert len(lines) == 11  # every claim of the simple ranking (BLUFF-7)
    assert sum("(true;" in line for line in lines) == 1 and "claim 8 (true;" in result.output  # 3 + 5


@pytest.mark.parametrize("args, message", [
    (("abazs", "--claim", "13"), "is not a claim"),
    (("abazs", "--dice", "3", "5", "--claim", "9"), "not both"),
    (("liars-poker", "--dice", "3", "5"), "public dice"),
    (("liars-poker", "--public", "2", "5", "5", "--dice", "3", "5", "--shown", "4"), "must be one of your dice"),
    (("bidding-bluff",), "--dice"),
])
def test_bad_positions_get_one_line(args, message):
    result = run(*args)
    assert result.exit_code == 2 and message in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("args, option", [
    (("bidding-bluff", "--dice", "3", "5", "--shown", "3"), "--shown"),  # no re-throws
    (("abazs", "--claim", "9", "--stake", "2"), "--stake"),  # Abázs claims carry no stake
])
def test_each_bluff_game_takes_only_its_own_options(args, option):
    result = run(*args)
    assert result.exit_code == 2 and "No such option" in result.output and option in result.output
    assert option in run(args[0].replace("bidding-bluff", "liars-poker").replace("abazs", "bidding-bluff"),
                         "--help").output


# ----------------------------------------------------------------------------------------
# With the equilibrium table
# ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bidding_table():
    """A small table of the canonical game in the tests' cache (chips adding up to 6)."""
    game = BiddingBluffGame(BiddingBluffRules(), 2)
    return build_table(game, BiddingEquilibriumSolver(max_total=6, measured=()), BuildOptions(progress=False))


def test_answer_hint_shows_the_tables_values(bidding_table):
    # 2 chips each, claim 11 with stake 2 over 10: a pass gives the claimant his pass value
    # P = 1 - V(11, 1, 3) = 35/18 (tests/test_bluff_round.py), so passing is worth -35/18;
    # a bet wins 2 if the claim is false and loses 2 if it is true (BLUFF-15)
    result = run("bidding-bluff", "-r", "start_chips=2", "--claim", "11", "--stake", "2", "--previous", "10", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    values = {a["action"]: a["value"] for a in report["actions"]}
    assert values["pass"] == pytest.approx(-35 / 18, abs=1e-12)
    q = report["actions"][0]["detail"]["P(claim true)"]
    assert values["bet"] == pytest.approx(2 * (1 - q) - 2 * q, abs=1e-12)
    plan = BiddingPlan(BiddingBluffGame(BiddingBluffRules(), 2), bidding_table)
    assert q == pytest.approx(plan.truth_chance(TwoDiceClaim("sum", 10), 2, 2, TwoDiceClaim("sum", 11), 2)[0])
    assert "exact two-player round equilibrium" in " ".join(report["notes"])


def test_claim_hint_values_are_what_the_answer_earns(bidding_table):
    # one chip each over 10: a pass ends the game (+1, BLUFF-6), the answerer bets on a
    # lie of 11 (the hand stage: V = -5/6), so the lie is worth -1 and the truth +1
    result = run("bidding-bluff", "-r", "start_chips=1", "--chips", "1", "1", "--dice", "2", "3", "--standing", "10",
                 "--json")
    report = json.loads(result.output)
    values = {a["action"]: a["value"] for a in report["actions"]}
    assert values["claim 11 stake 1 (a lie; bet on 100%)"] == pytest.approx(-1)
    assert values["claim 12 stake 1 (a lie; bet on 100%)"] == pytest.approx(-1)


def test_answer_hint_never_reads_the_claimants_hidden_dice(bidding_table):
    game = get_game("bidding-bluff", {"start_chips": 2})
    state = game.new_round_state((2, 2))
    reports = []
    for dice in ([1, 1], [5, 6]):
        doc = game.state_to_json(state)
        doc["state"].update(phase="answer", active=1, dice=dice, standing={"kind": "sum", "value": 11},
                            history=[{"kind": "sum", "value": 11}], stake=2)
        observation = game.observation(game.state_from_json(doc), 0)
        reports.append(hint(game, HintParams(state=doc)).to_json())
        assert hint(game, HintParams(state=observation)).to_json() == reports[-1]
    assert reports[0] == reports[1]


def test_equilibrium_agent_plays_a_match(bidding_table):
    game = get_game("bidding-bluff", {"start_chips": 2, "max_rounds": 20})
    result = run_arena(game, ["equilibrium", "bayes"], games=4, seed=3)
    assert result.games == 4


def test_equilibrium_agent_plays_the_liars_match_plan(liars_match_table):
    # a whole liar's poker match (no round limit) with its match table built (in the
    # session's cache, tests/conftest.py): the agent plays the match plan (kocka-solve
    # build liars-poker --kind match), its values the chance to win the match
    game = get_game("liars-poker", {"start_chips": 1})
    assert liars_match_table.meta.variant_id == canonical_match_game(game).rules.variant_id()
    agent = make_agent("equilibrium", game, 0, AgentOptions())
    assert isinstance(agent.plan, LiarsMatchPlan) and agent.value_name == "P(win the match) vs equilibrium"
    state = game.apply(game.apply(game.new_round_state((1, 1)), (2, 5, 5)), (3, 6))
    ranked = agent.rank(state)
    assert ranked[0].value == pytest.approx(1.0)  # [2,5,5] with [3,6]: claiming the pair of 5s wins the match
    assert run_arena(game, ["equilibrium", "bayes"], games=2, seed=3).games == 2


def test_equilibrium_agent_refuses_what_its_table_does_not_hold(bidding_table):
    with pytest.raises(AgentUnavailable, match="2 players"):
        make_agent("equilibrium", get_game("bidding-bluff", num_players=3), 0, AgentOptions())
    with pytest.raises(AgentUnavailable, match="start_chips=10"):
        make_agent("equilibrium", get_game("bidding-bluff"), 0, AgentOptions())


def test_the_seat_answers_with_the_equilibrium(bidding_table):
    # the seat (docs/PROTOCOL.md) plays the agent by name: same ranking as the agent itself
    from kocka.agents.frontends.seat.protocol import Seat

    game = get_game("bidding-bluff", {"start_chips": 2})
    state = game.apply(game.apply(game.new_round_state((2, 2)), (3, 4)), game.legal_actions(
        game.apply(game.new_round_state((2, 2)), (3, 4)))[0])
    response = Seat().handle({"id": 1, "method": "rank", "state": game.state_to_json(state), "agent": "equilibrium"})
    assert "result" in response, response
    seat = [(game.action_from_json(a["action"]), a["value"]) for a in response["result"]["actions"]]
    agent = make_agent("equilibrium", game, 0, AgentOptions())
    assert seat == [(d.action, pytest.approx(d.value)) for d in agent.rank(state)]
