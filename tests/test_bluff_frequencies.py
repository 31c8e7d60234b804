"""The bluff hints as a player follows them (issue 26, agents/advice/bluff.py): the
equilibrium’s mixed strategy as frequencies, a die-roll recipe or a seeded pick drawn from
it, for the answerer the chance the claim is true, and without tables the Bayesian bot's
reasons (RULES.md BLUFF-3..BLUFF-21).

Every expected value comes from somewhere else than the hint: the frequencies from the
table read back through the plans (``claim_distribution``, ``distribution``, the Abázs
policy arrays), the chance that a claim is true by enumerating the 36 rolls of the
claimant's two dice (BLUFF-7: his result is their sum, or the pair) against the stored
claims, the recipes' bounds from the rounding itself (a share within half an outcome) and
from whether any whole shares could do better."""
from __future__ import annotations

import json
import math
import os
import re
from fractions import Fraction
from itertools import product

import pytest
from click.testing import CliRunner

from kocka.agents.advice.bluff import (
    BettingHintParams, LiarsPokerHintParams, BluffHintParams, apportion, die_recipe, mixed_strategy, recipe_text,
    seeded_pick, typed_position,
)
from kocka.agents.advice.hint import hint
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.i18n import use_language
from kocka.solver.rules import get_game
from kocka.solver.rules.bluff import (
    AbazsGame, AbazsRules, Bet, BiddingBluffGame, BiddingBluffRules, Claim, Pass, TwoDiceClaim, actual_result,
)
from kocka.solver.solvers.bluff import abazs as bluff_abazs
from kocka.solver.solvers.bluff.bidding import BiddingEquilibriumSolver
from kocka.solver.solvers.bluff.two_player import standing_index
from kocka.solver.store.table_store import build_table, solver_for

from player_text import LANGS, problems  # noqa: E402  (tests/ is on the path)

CHIPS = 3
"""The bidding bluff from 3 chips each: its table (chips adding up to 6) builds in seconds."""


TABLES: list[str] = []
"""This module's own table folder (:func:`table_dir`): the session's cache stays free of
them, so other modules' hints still answer without tables."""


def run(*args: str, lang: str = "en", tables: bool = True):
    where = ["--cache-dir", TABLES[0]] if tables and TABLES else []
    return CliRunner().invoke(main, ["hint", *args, *where, "--lang", lang])


@pytest.fixture(scope="module", autouse=True)
def table_dir(tmp_path_factory):
    TABLES[:] = [str(tmp_path_factory.mktemp("frequency-tables"))]
    yield TABLES[0]
    TABLES.clear()


@pytest.fixture(scope="module")
def bidding_table(table_dir):
    """The round table of the canonical bidding bluff, chips adding up to 6."""
    return build_table(BiddingBluffGame(BiddingBluffRules(), 2), BiddingEquilibriumSolver(max_total=2 * CHIPS, measured=()),
                       BuildOptions(progress=False), table_dir)


@pytest.fixture(scope="module")
def abazs_table(table_dir, shared_tables):
    """The default rules' equilibrium table (built once per run, conftest), copied into
    this module's folder where :func:`equilibrium` finds it."""
    return shared_tables.install(AbazsGame(AbazsRules(), 2), solver_for("abazs", "equilibrium"), table_dir)


def bidding_game():
    return get_game("bidding-bluff", {"start_chips": CHIPS})


def equilibrium(game, cache_dir=None):
    """The equilibrium agent with this module's tables (``cache_dir``: another folder, such
    as the session's cache of the liar's poker match table)."""
    return make_agent("equilibrium", game, 0, AgentOptions(cache_dir=cache_dir or TABLES[0]))


def strategy_of(game, state, cache_dir=None):
    return mixed_strategy(game, state, equilibrium(game, cache_dir).rank(state))


def s(value: int) -> TwoDiceClaim:
    return TwoDiceClaim("sum", value)


# ----------------------------------------------------------------------------------------
# The frequencies are the stored strategy
# ----------------------------------------------------------------------------------------
POSITIONS = [((2, 4), "7", (3, 3)), ((1, 1), None, (3, 3)), ((5, 6), "9", (2, 4)), ((1, 3), "10", (4, 2)),
             ((3, 3), "11", (1, 5))]


@pytest.mark.parametrize("dice, standing, chips", POSITIONS)
def test_claim_frequencies_are_the_tables_claims(bidding_table, dice, standing, chips):
    game = bidding_game()
    state = typed_position(game, BettingHintParams(dice=dice, standing=standing, chips=chips))
    strategy = strategy_of(game, state)
    plan = equilibrium(game).plan
    stored = {Claim(c, k): p for c, k, p in plan.claim_distribution(
        state.standing, chips[0], chips[1], actual_result(dice, game.rules.ranking)) if p > 0}
    assert dict(strategy) == pytest.approx(stored, abs=1e-12)
    assert sum(p for a, p in strategy) == pytest.approx(1.0, abs=1e-9)
    assert all(p > 0 for a, p in strategy)


@pytest.mark.parametrize("dice, standing", [((3, 5), None), ((2, 4), "7"), ((6, 6), "9"), ((1, 2), "11")])
def test_abazs_frequencies_are_the_match_plans_policy(abazs_table, dice, standing):
    game = get_game("abazs")
    state = typed_position(game, BluffHintParams(dice=dice, standing=standing))
    strategy = strategy_of(game, state)
    row = abazs_table["match_claim_policy"][standing_index(state.standing), actual_result(dice, "simple").rank]
    claims = bluff_abazs.all_claims("simple")
    stored = {Claim(claims[c]): float(row[c]) for c in range(len(claims)) if row[c] > 0}
    assert dict(strategy) == pytest.approx(stored, abs=1e-12)
    assert sum(p for a, p in strategy) == pytest.approx(1.0, abs=1e-9)


def test_liars_poker_frequencies_are_the_match_plans(liars_match_table):
    # 1 chip each, a whole match: the agent plays the match plan (tests/conftest.py)
    game = get_game("liars-poker", {"start_chips": 1})
    for public, dice in [((2, 5, 5), (3, 6)), ((1, 2, 3), (4, 5)), ((6, 6, 6), (1, 2))]:
        state = typed_position(game, LiarsPokerHintParams(public=public, dice=dice, chips=(1, 1)))
        session_cache = os.environ["KOCKA_CACHE"]  # where tests/conftest.py builds it
        strategy = strategy_of(game, state, session_cache)
        plan = equilibrium(game, session_cache).plan
        index = plan.pairs.index(tuple(sorted(dice)))
        stored = {a: p for a, p in plan.distribution(public, None, 1, 1, 0, index) if p > 0}
        assert dict(strategy) == pytest.approx(stored, abs=1e-12)
        assert sum(p for a, p in strategy) == pytest.approx(1.0, abs=1e-9)


def test_the_ranking_puts_the_move_played_most_often_first_among_equal_values(bidding_table):
    # moves worth the same but for float noise tie; before the fix the noise decided and
    # the hint's first line could be a move the equilibrium never plays
    game = bidding_game()
    for (d1, d2), standing in product(product(range(1, 7), repeat=2), (None, s(6), s(8), s(10))):
        if d1 > d2:
            continue
        typed = None if standing is None else str(standing.value)
        state = typed_position(game, BettingHintParams(dice=(d1, d2), standing=typed, chips=(CHIPS, CHIPS)))
        ranked = equilibrium(game).rank(state)
        best = ranked[0].value
        tied = [d for d in ranked if abs(d.value - best) < 1e-9]
        assert ranked[0].detail["P(chosen)"] == max(d.detail["P(chosen)"] for d in tied)
        assert ranked[0].detail["P(chosen)"] > 0  # an equilibrium move is a best reply


# ----------------------------------------------------------------------------------------
# The answerer: the chance the claim is true, and how often to bet
# ----------------------------------------------------------------------------------------
def enumerated_truth_chance(game, plan, previous, chips, claim, stake):
    """P(claim true | he made it) by Bayes over the 36 rolls of his two dice, each asked
    of the stored claimant strategy (his chips first); for a claim the equilibrium never
    makes there, the chance that a roll makes it true."""
    made = true = prior = Fraction(0)
    for dice in product(range(1, 7), repeat=2):
        hidden = tuple(sorted(dice))
        result = actual_result(hidden, game.rules.ranking)
        p = Fraction(sum(q for c, k, q in plan.claim_distribution(previous, chips[0], chips[1], result)
                         if c == claim and k == stake))
        is_true = game.claim_true(claim, hidden)
        made += Fraction(1, 36) * p
        true += Fraction(1, 36) * p * is_true
        prior += Fraction(1, 36) * is_true
    return float(true / made) if made > 0 else float(prior)


@pytest.mark.parametrize("claim, stake, previous", [
    (8, 1, 7), (9, 3, 7), (8, 3, None), (7, 1, 6), (10, 3, 6),  # claims the equilibrium makes at 3/3 chips
    (9, 2, 7),  # one it never makes there (stake 2): the chance a roll makes it true
])
def test_answer_chance_is_bayes_over_the_claimants_rolls(bidding_table, claim, stake, previous):
    game = bidding_game()
    plan = equilibrium(game).plan
    previous_claim = None if previous is None else s(previous)
    params = BettingHintParams(claim=str(claim), stake=stake, previous=None if previous is None else str(previous),
                               chips=(CHIPS, CHIPS), cache_dir=TABLES[0])
    state = typed_position(game, params)
    report = hint(game, params)
    q = report.decisions[0].detail["P(claim true)"]
    assert q == pytest.approx(enumerated_truth_chance(game, plan, previous_claim, (CHIPS, CHIPS), s(claim), stake),
                              abs=1e-12)
    strategy = dict(strategy_of(game, state))
    beta = plan.bet_probability(previous_claim, CHIPS, CHIPS, s(claim), stake)
    assert strategy == pytest.approx({a: p for a, p in ((Pass(), 1 - beta), (Bet(), beta)) if p > 1e-9}, abs=1e-12)
    assert sum(strategy.values()) == pytest.approx(1.0)


def test_answer_hint_says_the_chance_and_how_often_to_bet(bidding_table):
    result = run("bidding-bluff", "-r", f"start_chips={CHIPS}", "--claim", "8", "--previous", "7")
    assert result.exit_code == 0, result.output
    game = bidding_game()
    plan = equilibrium(game).plan
    q = enumerated_truth_chance(game, plan, s(7), (CHIPS, CHIPS), s(8), 1)
    beta = plan.bet_probability(s(7), CHIPS, CHIPS, s(8), 1)
    assert f"the chance that the claim 8 is true: {100 * q:.1f}%" in result.output
    line = next(x for x in result.output.splitlines() if x.startswith("the equilibrium’s mixed strategy here"))
    shown = {m.group(1): float(m.group(2)) / 100 for m in re.finditer(r"(pass|bet): ([\d.]+)%", line)}
    assert shown == pytest.approx({k: v for k, v in (("pass", 1 - beta), ("bet", beta)) if v > 1e-9}, abs=0.006)


# ----------------------------------------------------------------------------------------
# The die recipe and the seeded pick
# ----------------------------------------------------------------------------------------
def any_shares_within(probabilities, outcomes, bound):
    """Whether whole shares of ``outcomes`` adding up to it can put every probability
    within ``bound``: each share n_i must lie in [ceil(o (p_i - b)), floor(o (p_i + b))]."""
    low = [max(0, math.ceil(outcomes * (p - bound) - 1e-9)) for p in probabilities]
    high = [math.floor(outcomes * (p + bound) + 1e-9) for p in probabilities]
    return all(lo <= hi for lo, hi in zip(low, high)) and sum(low) <= outcomes <= sum(high)


SYNTHETIC = [(0.62, 0.38), (0.5, 0.5), (0.977, 0.023), (1 / 7,) * 7, (0.4678, 0.2066, 0.1521, 0.1062, 0.0673),
             (0.999, 0.0005, 0.0005), (1 / 3, 1 / 3, 1 / 3), (0.05,) * 20]


def check_recipe(probabilities):
    recipe = die_recipe(probabilities)
    outcomes = 6 ** recipe.dice
    assert sum(recipe.counts) == outcomes and all(c >= 0 for c in recipe.counts)
    error = max(abs(c / outcomes - p) for c, p in zip(recipe.counts, probabilities))
    assert recipe.error == pytest.approx(error, abs=1e-12)
    if recipe.dice == 1:
        assert error <= 1 / 12 + 1e-12
    else:  # two dice: within 1/72 wherever whole 36ths allow it, and never worse than any 36ths
        if any_shares_within(probabilities, 36, 1 / 72):
            assert error <= 1 / 72 + 1e-12
        assert any_shares_within(probabilities, 36, error + 1e-9)
        assert not any_shares_within(probabilities, 36, error - 1e-6) or error < 1e-6
        assert not (any_shares_within(probabilities, 6, 1 / 12) and sum(
            c > 0 for c in apportion(probabilities, 6)) >= min(2, len(probabilities)))  # one die would have done
    return recipe


@pytest.mark.parametrize("probabilities", SYNTHETIC)
def test_recipe_is_within_half_an_outcome(probabilities):
    check_recipe(probabilities)


def test_recipes_of_the_tables_strategies(bidding_table):
    game = bidding_game()
    checked = 0
    for (d1, d2), standing in product(product(range(1, 7), repeat=2), (None, "6", "8", "10")):
        if d1 <= d2:
            state = typed_position(game, BettingHintParams(dice=(d1, d2), standing=standing, chips=(CHIPS, CHIPS)))
            strategy = strategy_of(game, state)
            if len(strategy) > 1:
                check_recipe([p for a, p in strategy])
                checked += 1
    assert checked > 10


def test_recipe_text_gives_each_move_its_faces():
    # the claimant's strategy of the issue: claim 8 with 62 %, claim 9 with 38 %
    game = get_game("abazs")
    state = typed_position(game, BluffHintParams(dice=(2, 4), standing="7"))
    strategy = ((Claim(s(8)), 0.62), (Claim(s(9)), 0.38))
    recipe = die_recipe([0.62, 0.38])
    assert recipe.dice == 1 and recipe.counts == (4, 2)  # 3.72 and 2.28 sixths: 4 and 2
    with use_language("en"):
        text = recipe_text(game, state, strategy, recipe)
    assert text.startswith("roll a die: 1-4 claim 8; 5-6 claim 9 (each move within 4.7 percentage points")
    two = die_recipe([0.977, 0.023])  # one die gives every face to the first: no choice left
    assert two.dice == 2 and two.counts == (35, 1)
    with use_language("en"):
        assert "11-65 claim 8; 66 claim 9" in recipe_text(game, state, strategy, two)


def test_seeded_pick_is_repeatable_and_played(bidding_table):
    game = bidding_game()
    state = typed_position(game, BettingHintParams(dice=(2, 4), standing="7", chips=(CHIPS, CHIPS)))
    strategy = strategy_of(game, state)
    picks = {seeded_pick(strategy, seed) for seed in range(40)}
    assert picks <= {a for a, p in strategy} and len(picks) > 1
    assert seeded_pick(strategy, 5) == seeded_pick(strategy, 5)
    result = run("bidding-bluff", "-r", f"start_chips={CHIPS}", "--dice", "2", "4", "--standing", "7", "--seed", "5")
    with use_language("en"):
        move = game.describe_action(seeded_pick(strategy, 5), state)
    assert f"suggestion drawn with seed 5 from the equilibrium’s frequencies: {move}" in result.output


def test_frequency_line_groups_the_stakes_of_a_claim(bidding_table):
    game = bidding_game()
    state = typed_position(game, BettingHintParams(dice=(2, 4), standing="7", chips=(CHIPS, CHIPS)))
    strategy = strategy_of(game, state)
    result = run("bidding-bluff", "-r", f"start_chips={CHIPS}", "--dice", "2", "4", "--standing", "7")
    line = next(x for x in result.output.splitlines() if x.startswith("the equilibrium’s mixed strategy here"))
    for claim in {a.claim for a, p in strategy}:
        total = sum(p for a, p in strategy if a.claim == claim)
        digits = 0 if total >= 0.095 else 1
        assert f"claim {claim.value}" in line and f"{100 * total:.{digits}f}%" in line
    if len(strategy) < len(game.legal_actions(state)):
        assert line.endswith("every other move: never in the equilibrium")


# ----------------------------------------------------------------------------------------
# Without tables, and what a player reads
# ----------------------------------------------------------------------------------------
def test_without_tables_the_bayes_bots_reasons(tmp_path):
    result = run("bidding-bluff", "--claim", "9", "--stake", "2", "--cache-dir", str(tmp_path), tables=False)
    assert result.exit_code == 0, result.output
    bot = make_agent("bayes", get_game("bidding-bluff"), 0, AgentOptions())
    state = typed_position(get_game("bidding-bluff"), BettingHintParams(claim="9", stake=2))
    q = bot.rank(state)[0].detail["P(claim true)"]
    line = next(x for x in result.output.splitlines() if x.startswith("the bayes bot’s reasons"))
    assert "a bot’s heuristic, not an equilibrium" in line and f"{100 * q:.1f}%" in line
    assert "comes with the equilibrium table: kocka-solve build bidding-bluff" in result.output
    assert "the equilibrium’s mixed strategy" not in result.output


POSITIONS_TO_READ = [
    ("bidding-bluff", "--dice", "2", "4", "--standing", "7"),
    ("bidding-bluff", "--claim", "8", "--previous", "7"),
    ("bidding-bluff", "--dice", "2", "4", "--standing", "7", "--seed", "3"),
    ("abazs", "--claim", "9", "--previous", "6"),
    ("abazs", "--dice", "2", "4", "--standing", "7"),
]


@pytest.mark.parametrize("lang", LANGS)
def test_what_a_player_reads_in_every_language(bidding_table, abazs_table, lang, tmp_path):
    for args in POSITIONS_TO_READ:
        rules = ("-r", f"start_chips={CHIPS}") if args[0] == "bidding-bluff" else ()
        result = run(*args, *rules, lang=lang)
        assert result.exit_code == 0, result.output
        assert problems(result.output) == [], (args, problems(result.output))
        without = run(*args, *rules, "--cache-dir", str(tmp_path), lang=lang, tables=False)  # the bayes bot’s reasons
        assert without.exit_code == 0 and problems(without.output) == [], (args, problems(without.output))


def test_the_seat_sends_the_frequencies(bidding_table):
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions

    game = bidding_game()
    state = typed_position(game, BettingHintParams(dice=(2, 4), standing="7", chips=(CHIPS, CHIPS)))
    seat = Seat(SeatOptions(cache_dir=TABLES[0]))
    response = seat.handle({"id": 1, "method": "advice", "state": game.state_to_json(state), "agent": "equilibrium",
                              "lang": "en"})
    assert "result" in response, response
    sent = {game.action_from_json(f["action"]): f["probability"] for f in response["result"]["frequencies"]}
    assert sent == pytest.approx(dict(strategy_of(game, state)), abs=1e-12)
    assert sum(sent.values()) == pytest.approx(1.0)
    assert response["result"]["suggestion"].startswith("suggestion: roll a die: ")
    from test_seat import check_response  # the published schema (agents/frontends/seat/seat_schema.json)

    check_response(json.loads(json.dumps(response)), "advice")
    bayes = seat.handle({"id": 2, "method": "advice", "state": game.state_to_json(state), "agent": "bayes"})
    assert "frequencies" not in bayes["result"]
