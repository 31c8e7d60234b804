"""The kernel ranking of a loaded scorecard table (kocka.solver.solvers.scorecard.values.rank), its
batch form (rank_positions), the export of labelled positions, where a turn ends
(turn_shares), the dice facts behind them (card_model.five_dice), and the Yatzy house rules
(YatzyRules: +fh5, +tp4, +tp1, +forced).

Every expected value is computed independently: the ranking against ``rank_reference``
(the engine's legal actions and fill scores, the dense keep transitions in numpy) and the
engine's own legal actions; the shares against the plain walk of the turn in the hint
front end; the dice facts against ``dice_tables(5)``; house-rule scores by hand from the
rules as precisit/yatzy-solver's docs/rules.md states them; tiny cards by the naive
expectimax of test_scorecard_solver.
"""
from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest
from click.testing import CliRunner

from test_scorecard_solver import NaiveExpectimax, _options_key, _tiny_table
from kocka.agents.bots.base import positions_with_rng
from kocka.agents.advice.cards import turn_targets
from kocka.solver.solvers.scorecard import values as scorecard_values
from kocka.solver.models.card_model import five_dice
from kocka.agents.frontends.commands.solve_cli import main as solve_main
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.decision import Decision
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import IllegalActionError, InvalidStateError, TableError
from kocka.solver.store.table_store import build_table, get_table, solver_for
from kocka.solver.rules import get_game
from kocka.solver.rules.scorecard import Card, Declare, Fill, Keep, ScorecardState
from kocka.solver.base.table_file import save_table

VARIANTS = [
    # (id, game, options): every kind of card the kernel ranks
    ("hu", "kockapoker", {"boxes": ("twos", "sixes", "chance", "full_house")}),
    ("hu-count", "kockapoker", {"boxes": ("ones", "twos", "pair"), "house_negative": "count"}),
    ("sk-part1", "slovak", {"boxes": ("twos", "pair", "poker")}),
    ("sk-declare", "slovak", {"boxes": ("ones", "fours", "full_house"), "part1_choice": "declare_after_first_throw"}),
    ("sk-free-declare", "slovak", {"boxes": ("threes", "poker"), "part_order": "free",
                                   "part1_choice": "declare_after_first_throw"}),
    ("yahtzee-free", "yahtzee", {"boxes": ("sixes", "full_house", "yahtzee")}),
    ("yahtzee-forced", "yahtzee", {"boxes": ("twos", "small_straight", "yahtzee", "chance"), "joker": "forced"}),
    ("yatzy-house", "yatzy", {"boxes": ("twos", "two_pairs", "full_house"), "five_kind_full_house": "yes",
                              "four_kind_two_pairs": "yes"}),
    ("yatzy-forced", "yatzy", {"boxes": ("ones", "pair", "yatzy"), "order": "forced"}),
]


def _positions(game, table, count, seed=5, explore=0.4):
    """Decision positions of seeded games: the best action, or (with ``explore``) a random
    legal one, so that poor cards are met too."""
    rng = random.Random(seed)

    def choose(state):
        legal = game.legal_actions(state)
        return rng.choice(legal) if rng.random() < explore else scorecard_values.rank(game, table, state)[0].action

    return positions_with_rng(game, choose, rng, count)


@pytest.mark.parametrize("name, options", [v[1:] for v in VARIANTS], ids=[v[0] for v in VARIANTS])
def test_rank_equals_the_reference_ranking(name, options):
    # expected: rank_reference (engine fill scores, dense keep transitions; no kernel turn)
    # and the engine's legal actions: the same actions, labels, details and values
    game, table = _tiny_table(name, _options_key(options))
    for state in _positions(game, table, 60):
        fast = list(scorecard_values.rank(game, table, state))
        slow = scorecard_values.rank_reference(game, table, state)
        assert {d.action for d in fast} == set(game.legal_actions(state))
        ref = {d.action: d for d in slow}
        for d in fast:
            assert d.label == ref[d.action].label and d.detail == ref[d.action].detail
            assert d.value == pytest.approx(ref[d.action].value, abs=1e-9)
        assert [d.value for d in fast] == sorted((d.value for d in fast), reverse=True)


def test_rank_order_and_ties_by_hand():
    # expected (by hand): only sixes open, 1 2 3 4 5 after the second throw: keeping k dice
    # (none a six) leaves 5 - k dice for the last throw, worth 6 x 1/6 each, so 5 - k points;
    # writing sixes now scores 0. Keeps of one size tie exactly and stay in keep order.
    game, table = _tiny_table("yatzy", _options_key({"boxes": ("sixes",)}))
    state = ScorecardState(cards=(Card(entries=(None,)),), throw=2, dice=(1, 2, 3, 4, 5))
    ranked = list(scorecard_values.rank(game, table, state))
    keeps = [tuple(k) for size in range(5) for k in itertools.combinations((1, 2, 3, 4, 5), size)]
    assert [d.action for d in ranked] == [Keep(k) for k in keeps] + [Fill("sixes")]
    assert [d.value for d in ranked] == pytest.approx([5.0 - len(k) for k in keeps] + [0.0], abs=1e-12)
    assert [d.action for d in ranked] == [d.action for d in scorecard_values.rank_reference(game, table, state)]


def test_ranking_is_a_sequence_of_decisions():
    # expected: a Ranking reads like the list of its decisions (len, index, slice, iter, ==)
    game, table = _tiny_table("yahtzee", _options_key({"boxes": ("sixes", "full_house", "yahtzee")}))
    state = ScorecardState(cards=(Card(entries=(None, None, None)),), throw=1, dice=(2, 2, 6, 6, 6))
    ranked = scorecard_values.rank(game, table, state)
    as_list = list(ranked)
    assert len(ranked) == len(as_list) == len(game.legal_actions(state))
    assert ranked[0] is as_list[0] and ranked[-1] == as_list[-1] and ranked[1:3] == as_list[1:3]
    assert ranked == as_list and all(isinstance(d, Decision) for d in ranked)
    assert np.array_equal(ranked.values, [d.value for d in as_list])
    assert scorecard_values.rank(game, table, ScorecardState(cards=(Card(entries=(None, None, None)),))) == []


def test_rank_refuses_a_bad_state_with_the_engines_words():
    game, table = _tiny_table("yahtzee", _options_key({"boxes": ("sixes", "chance")}))
    with pytest.raises(InvalidStateError, match="7 cannot be written in Sixes"):
        scorecard_values.rank(game, table, ScorecardState(cards=(Card(entries=(7, None)),), throw=1, dice=(1, 2, 3, 4, 5)))


@pytest.mark.parametrize("name, options", [v[1:] for v in VARIANTS], ids=[v[0] for v in VARIANTS])
def test_turn_shares_equal_the_walk_of_the_turn(name, options):
    # expected: hint_cards.turn_targets, which follows rank's best action through every
    # roll with the engine (exact), for every keep and declaration of sampled positions
    game, table = _tiny_table(name, _options_key(options))
    for state in _positions(game, table, 4, seed=9):
        memo: dict = {}
        moves = [d.action for d in scorecard_values.rank(game, table, state) if not isinstance(d.action, Fill)]
        for action in moves[:1] + moves[-1:]:  # the best and the worst keep or declaration
            walk = turn_targets(game, state, action, lambda s: scorecard_values.rank(game, table, s), memo)
            shares = scorecard_values.turn_shares(game, table, state, action)
            assert shares.keys() == {b for b, p in walk.items() if p > 0}
            for box, p in walk.items():
                assert shares.get(box, 0.0) == pytest.approx(p, abs=1e-12)
            assert sum(shares.values()) == pytest.approx(1.0, abs=1e-12)


def test_turn_shares_refuse_what_is_not_a_move():
    game, table = _tiny_table("yahtzee", _options_key({"boxes": ("sixes", "chance")}))
    state = ScorecardState(cards=(Card(entries=(None, None)),), throw=3, dice=(1, 2, 3, 4, 6))
    with pytest.raises(IllegalActionError, match="no throw left"):
        scorecard_values.turn_shares(game, table, state, Keep((6,)))
    assert scorecard_values.turn_shares(game, table, state, Fill("chance")) == {"chance": 1.0}


@pytest.mark.parametrize("name, options", [v[1:] for v in VARIANTS if "declare" not in v[0]],
                         ids=[v[0] for v in VARIANTS if "declare" not in v[0]])
def test_rank_positions_equals_rank(name, options):
    # expected: rank's value of each legal action in its column, NaN elsewhere
    game, table = _tiny_table(name, _options_key(options))
    states = _positions(game, table, 40, seed=2)
    values = scorecard_values.rank_positions(game, table, scorecard_values.positions_from_states(game, states))
    space = scorecard_values.action_space(game)
    assert values.shape == (len(states), game.num_boxes + 210)
    for row, state in zip(values, states):
        want = {d.action: d.value for d in scorecard_values.rank(game, table, state)}
        for a, v in zip(space, row):
            if a in want:
                assert v == pytest.approx(want[a], abs=1e-12)
            else:
                assert math.isnan(v)


def test_rank_positions_refuses_bad_positions():
    game, table = _tiny_table("yahtzee", _options_key({"boxes": ("sixes", "chance")}))
    good = scorecard_values.positions_from_states(game, [ScorecardState(cards=(Card(entries=(None, None)),), throw=1,
                                                              dice=(1, 2, 3, 4, 6))])
    bad = good.copy()
    bad["throw"] = 4
    with pytest.raises(InvalidStateError, match="throw is outside 1..3"):
        scorecard_values.rank_positions(game, table, bad)
    bad = good.copy()
    bad["tracker"] = 999
    with pytest.raises(InvalidStateError, match="tracker is outside"):
        scorecard_values.rank_positions(game, table, bad)
    with pytest.raises(InvalidStateError, match="POSITION_DTYPE"):
        scorecard_values.rank_positions(game, table, np.zeros(3))
    sk, sk_table = _tiny_table("slovak", _options_key(dict(VARIANTS[3][2])))
    state = ScorecardState(cards=(Card(entries=(None, None, None)),), throw=1, dice=(1, 1, 4, 4, 6))
    with pytest.raises(InvalidStateError, match="declaration"):
        scorecard_values.rank_positions(sk, sk_table, scorecard_values.positions_from_states(sk, [state]))


def test_export_writes_labelled_positions(tmp_path):
    # expected: --limit lines of JSON, each a valid state document whose actions are its
    # legal actions with rank's values, best first
    game = get_game("yahtzee", {"boxes": ["sixes", "chance"]})
    build_table(game, solver_for("yahtzee"), BuildOptions(progress=False), tmp_path)
    out = tmp_path / "positions.jsonl"
    result = CliRunner().invoke(solve_main, ["export", "yahtzee", "-r", "boxes=sixes,chance", "--cache-dir",
                                             str(tmp_path), "--limit", "7", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 7
    table = get_table(game, cache_dir=tmp_path)
    for line in lines:
        state = game.state_from_json(line["state"])
        ranked = scorecard_values.rank(game, table, state)
        assert [game.action_from_json(a["action"]) for a in line["actions"]] == [d.action for d in ranked]
        assert [a["value"] for a in line["actions"]] == pytest.approx([d.value for d in ranked], abs=1e-12)


def test_a_table_without_the_kernel_arrays_is_refused(tmp_path):
    # expected: a table written before the kernel's tables were stored (same format
    # version) fails the layout check, and the message says how to rebuild it
    game = get_game("yahtzee", {"boxes": ["sixes", "chance"]})
    table = build_table(game, solver_for("yahtzee"), BuildOptions(progress=False), tmp_path)
    old = {k: v for k, v in table.arrays.items() if k not in scorecard_values.KERNEL_ARRAYS}
    save_table(table.path, old, table.meta)
    with pytest.raises(TableError, match=r"lacks the array.*rebuild it with: kocka-solve build yahtzee"):
        get_table(game, cache_dir=tmp_path)


def test_five_dice_agrees_with_dice_tables():
    # expected: dice_tables(5) (built independently by its own kernel and loops)
    fd, dt = five_dice(), dice_tables(5)
    assert [tuple(fd.keeps[210 + o]) for o in range(252)] == [tuple(int(v) for v in row) for row in dt.outcomes]
    assert all(fd.keeps[k] == dt.keep_dice(k) for k in range(462))
    assert np.allclose(fd.probs, dt.probs, rtol=0, atol=1e-15)
    for k in range(210):
        for f in range(6):
            assert fd.child[k, f] == dt.keep_index(fd.keeps[k] + (f + 1,))
    assert all(fd.outcome_index(tuple(int(v) for v in row)) == o for o, row in enumerate(dt.outcomes))


# ----------------------------------------------------------------------------------------
# The Yatzy house rules (precisit/yatzy-solver docs/rules.md, "House-rule switches")
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("options, dice, box, points", [
    ({}, (3, 3, 3, 3, 3), "full_house", 0),                                # five of a kind is no full house
    ({"five_kind_full_house": "yes"}, (3, 3, 3, 3, 3), "full_house", 15),  # +fh5: the sum
    ({"five_kind_full_house": "yes"}, (2, 2, 5, 5, 5), "full_house", 19),  # a real full house as before
    ({}, (2, 2, 2, 2, 5), "two_pairs", 0),                                 # two different faces only
    ({"four_kind_two_pairs": "yes"}, (2, 2, 2, 2, 5), "two_pairs", 8),     # +tp4: 4 x 2
    ({"four_kind_two_pairs": "yes"}, (6, 6, 6, 6, 6), "two_pairs", 24),    # five of a kind holds four
    ({"four_kind_two_pairs": "yes"}, (1, 5, 5, 6, 6), "two_pairs", 22),    # two pairs as before
    ({"single_pair_two_pairs": "yes"}, (1, 2, 2, 4, 5), "two_pairs", 4),   # +tp1: "1 2 2 4 5 scores 4"
    ({"single_pair_two_pairs": "yes"}, (6, 6, 6, 6, 6), "two_pairs", 12),  # "and 6 6 6 6 6 scores 12"
    ({"single_pair_two_pairs": "yes"}, (1, 2, 3, 4, 6), "two_pairs", 0),   # no pair at all
])
def test_yatzy_house_rule_scores(options, dice, box, points):
    assert get_game("yatzy", options).box_points(box, dice) == points


def test_yatzy_forced_order_fills_top_to_bottom():
    # expected: under order = forced only the first open box (card order) may be written
    game = get_game("yatzy", {"order": "forced"})
    card = Card(entries=(1, 2) + (None,) * 13)
    state = ScorecardState(cards=(card,), throw=3, dice=(3, 3, 3, 5, 6))
    assert [a for a in game.legal_actions(state) if isinstance(a, Fill)] == [Fill("threes")]
    with pytest.raises(IllegalActionError, match="may not be written now"):
        game.apply(state, Fill("chance"))
    assert [a for a in get_game("yatzy").legal_actions(state) if isinstance(a, Fill)][:2] == [Fill("threes"), Fill("fours")]


@pytest.mark.parametrize("options", [
    {"boxes": ("ones", "two_pairs", "full_house"), "five_kind_full_house": "yes", "four_kind_two_pairs": "yes"},
    {"boxes": ("twos", "pair", "two_pairs"), "single_pair_two_pairs": "yes"},
    {"boxes": ("ones", "sixes", "yatzy"), "order": "forced"},
], ids=["fh5-tp4", "tp1", "forced"])
def test_yatzy_house_rules_tiny_cards_equal_naive_expectimax(options):
    # expected: the naive expectimax over the engine (test_scorecard_solver.NaiveExpectimax)
    game, table = _tiny_table("yatzy", _options_key(options))
    empty = Card(entries=(None,) * game.num_boxes)
    assert scorecard_values.value_of_card(game, table, empty) == pytest.approx(
        NaiveExpectimax(game).value(0, game.initial_tracker, None), abs=1e-9)


def test_yatzy_forced_order_by_hand():
    # expected (by hand): ones then yatzy, in that order, are two independent turns:
    # ones keeps every 1, 5 x (1 - (5/6)^3) = 455/216; then the yatzy turn, whose value
    # NaiveExpectimax gives on its own card (50 x P(five of a kind in three throws))
    game, table = _tiny_table("yatzy", _options_key({"boxes": ("ones", "yatzy"), "order": "forced"}))
    alone, _ = _tiny_table("yatzy", _options_key({"boxes": ("yatzy",)}))
    yatzy_turn = NaiveExpectimax(alone).value(0, alone.initial_tracker, None)
    assert yatzy_turn == pytest.approx(50 * 0.0460286, abs=1e-5)  # the well-known 4.60 %
    empty = Card(entries=(None, None))
    assert scorecard_values.value_of_card(game, table, empty) == pytest.approx(455 / 216 + yatzy_turn, abs=1e-9)
