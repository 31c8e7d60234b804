"""Exact scorecard solver (kocka.solver.solvers.scorecard.values): published optima, a naive
expectimax on tiny cards, the score distribution, Monte-Carlo play through the rules
engine, tables on disk and hints.

Where each expected number comes from is said at each test: published figures are read
from tests/data/published.json (shared/PUBLISHED.md); everything else is recomputed here
independently (brute force over the engine's scoring functions, or simulation).
"""
from __future__ import annotations

import json
import math
import random
from functools import lru_cache

import numpy as np
import pytest
from click.testing import CliRunner

from kocka.solver.solvers.scorecard import values as scorecard_values
from conftest import published
from scorecard_reference import one_box_cards, turn_value
from kocka.agents.bots.base import play_with_rng
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.advice.cards import ScorecardHintParams
from kocka.agents.advice.hint import hint
from kocka.solver.base.errors import DiceError, InvalidStateError, TableError
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.store.table_store import build_table, get_table, path_for, solver_for
from kocka.solver.rules import get_game
from kocka.solver.rules.scorecard import Card, ScorecardState
from kocka.solver.solvers.scorecard.values import (
    SCORECARD_EV, build_model, rank, score_distribution, solve_values, value_of_card,
)
from kocka.solver.base.table_file import Table

# ----------------------------------------------------------------------------------------
# Published optimal expected scores (PUBLISHED.md via tests/data/published.json)
# ----------------------------------------------------------------------------------------
PUBLISHED_VARIANTS = [
    # (figure name, game, rule options)
    ("yahtzee_free_joker_expected_score", "yahtzee", {}),
    ("yahtzee_forced_joker_expected_score", "yahtzee", {"joker": "forced"}),
    ("yahtzee_no_bonus_expected_score", "yahtzee", {"yahtzee_bonus": False}),
    ("yatzy_expected_score", "yatzy", {}),
]


def _start_value(game, model, W) -> float:
    t = game.initial_tracker
    return float(W[model.base[0] + model.tclass[0, t]] + model.toffset[0, t])


def _assert_published(figure, value):
    fig = published(figure)
    assert round(value, fig["decimals"]) == pytest.approx(fig["value"], abs=10 ** -fig["decimals"] / 2)


@pytest.mark.parametrize("figure, name, options", PUBLISHED_VARIANTS[1:], ids=[v[0] for v in PUBLISHED_VARIANTS[1:]])
def test_published_optimal_expected_score(figure, name, options):
    # expected: the published optimum (Verhoeff 1999, Glenn 2006, precisit/yatzy-solver)
    game = get_game(name, options)
    model = build_model(game)
    _assert_published(figure, _start_value(game, model, solve_values(model)))


def test_published_optimal_yahtzee_score_from_the_stored_table(yahtzee_table):
    # expected: the published optimum of Yahtzee with the free joker (Verhoeff 1999, Glenn
    # 2006), read back from the table on disk: the value of the empty card through the
    # stored arrays, and the build's own record of it
    game, table = yahtzee_table
    figure = PUBLISHED_VARIANTS[0][0]
    _assert_published(figure, value_of_card(game, table, Card(entries=(None,) * game.num_boxes)))
    _assert_published(figure, table.meta.extra["expected_score"])


def test_yahtzee_reachable_state_count():
    # expected: 536,448 states (filled boxes, upper total capped at 63, Yahtzee-holds-50
    # flag), precisit/yatzy-solver docs via PUBLISHED.md
    model = build_model(get_game("yahtzee"))
    assert model.reachable_states == published("yahtzee_reachable_states")["value"]
    assert model.n_states < model.reachable_states  # merged tracker classes solve fewer


# ----------------------------------------------------------------------------------------
# Tiny cards: the kernel against a naive expectimax over the engine's scoring layer
# ----------------------------------------------------------------------------------------
TINY_VARIANTS = [
    # (id, game, options, rules exercised)
    ("hu-house-zero", "kockapoker", {"boxes": ("threes", "chance", "full_house")}, "HU-5, HU-6, HU-7 zero"),
    ("hu-house-count", "kockapoker", {"boxes": ("ones", "twos", "pair"), "house_negative": "count"}, "HU-7 count"),
    ("hu-same-face", "kockapoker", {"boxes": ("fives", "two_pairs", "five_kind"), "same_face_groups": "yes"}, "HU-6 same_face_groups"),
    ("sk-part1-first", "slovak", {"boxes": ("twos", "pair", "poker")}, "SK-3, SK-5, SK-7, SK-8"),
    ("sk-declare", "slovak", {"boxes": ("ones", "fours", "full_house"), "part1_choice": "declare_after_first_throw"}, "SK-3 declare"),
    ("sk-free-declare", "slovak", {"boxes": ("threes", "poker"), "part_order": "free",
                                   "part1_choice": "declare_after_first_throw", "poker_bonus": "doubled"}, "SK-3 free, SK-8 doubled"),
    ("yahtzee-free-joker", "yahtzee", {"boxes": ("sixes", "full_house", "yahtzee")}, "bonus Yahtzee, free joker"),
    ("yahtzee-forced-joker", "yahtzee", {"boxes": ("twos", "small_straight", "yahtzee", "chance"), "joker": "forced"}, "forced joker"),
    ("yatzy", "yatzy", {"boxes": ("ones", "two_pairs", "yatzy")}, "Yatzy upper bonus"),
]


class NaiveExpectimax:
    """Expected future points of a card by plain recursion: every keep enumerated with
    ``sub_multisets``, every roll with ``outcome_distribution``, every fill scored by the
    engine (``allowed_boxes``, ``fill_score``, ``tracker_after``, ``final_bonus``). The SK
    declaration is read from the engine's legal actions. No shared code with the kernel."""

    def __init__(self, game):
        self.game = game
        self.full = (1 << game.num_boxes) - 1
        self.ybox = getattr(game, "yahtzee_box", None)
        self.memo: dict = {}

    def value(self, mask: int, tracker: int, y_entry) -> float:
        g = self.game
        if mask == self.full:
            return g.final_bonus(tracker)
        key = (mask, tracker, y_entry)
        if key not in self.memo:
            self.memo[key] = self._turn(mask, tracker, y_entry)
        return self.memo[key]

    def _fill(self, mask, tracker, y_entry, dice, first, boxes) -> float:
        g = self.game
        best = -math.inf
        for b in g.allowed_boxes(mask, dice):
            if b not in boxes:
                continue
            s = g.fill_score(b, dice, first, mask, y_entry)
            after = self.value(mask | 1 << b, g.tracker_after(tracker, b, dice), s.entry if b == self.ybox else y_entry)
            best = max(best, s.entry + s.bonus + after)
        return best

    def _turn(self, mask, tracker, y_entry) -> float:
        """The turn's three throws and keeps (tests/scorecard_reference.py) around the fill."""
        return turn_value(self.game, mask, lambda dice, first, boxes: self._fill(mask, tracker, y_entry, dice, first, boxes))


@lru_cache(maxsize=None)
def _tiny_table(name, options_items):
    game = get_game(name, dict(options_items))
    return game, build_table(game, solver_for(name), BuildOptions(progress=False), save=False)


def _options_key(options):
    return tuple(sorted(options.items()))


@pytest.mark.parametrize("name, options", [v[1:3] for v in TINY_VARIANTS], ids=[v[0] for v in TINY_VARIANTS])
def test_tiny_cards_equal_naive_expectimax(name, options):
    # expected: NaiveExpectimax above (brute force over the engine's scoring layer)
    game, table = _tiny_table(name, _options_key(options))
    naive = NaiveExpectimax(game)
    empty = Card(entries=(None,) * game.num_boxes)
    assert value_of_card(game, table, empty) == pytest.approx(naive.value(0, game.initial_tracker, None), abs=1e-9)
    # every card one turn later, too (all fills of all outcomes)
    for b, entry, card in one_box_cards(game):
        y_entry = entry if b == naive.ybox else None
        want = entry + naive.value(1 << b, game.tracker_of(card), y_entry)
        assert value_of_card(game, table, card) == pytest.approx(want, abs=1e-9), (b, entry)


# ----------------------------------------------------------------------------------------
# Score distribution
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, options", [v[1:3] for v in TINY_VARIANTS], ids=[v[0] for v in TINY_VARIANTS])
def test_distribution_sums_to_one_with_the_table_mean(name, options):
    # expected: total probability 1; mean = the table's expected score (same policy)
    game, table = _tiny_table(name, _options_key(options))
    dist = score_distribution(game, table)
    assert dist.probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert (dist.probs >= 0).all()
    assert dist.mean() == pytest.approx(table.meta.extra["expected_score"], abs=1e-9)


def test_distribution_from_a_position_has_the_rank_value_as_mean(kockapoker_card_table):
    # expected: the mean of the distribution from a mid-turn position equals the best
    # action's value from rank (both are E[final score] under the optimal policy)
    game, table = kockapoker_card_table
    card = game.card_from_entries({"twos": -2, "pair": 12})
    for state in (
        ScorecardState(cards=(card,), throw=1, dice=(2, 2, 3, 5, 6)),
        ScorecardState(cards=(card,), throw=2, dice=(1, 1, 1, 4, 6)),
        ScorecardState(cards=(card,), throw=1, kept=(5, 5)),
    ):
        dist = score_distribution(game, table, state)
        assert dist.probs.sum() == pytest.approx(1.0, abs=1e-12)
        if state.dice is not None:
            assert dist.mean() == pytest.approx(rank(game, table, state)[0].value, abs=1e-9)
        else:  # a pending roll: the mean over its outcomes of the best action
            keep_value = [d.value for d in rank(game, table, ScorecardState(cards=(card,), throw=1, dice=(1, 2, 3, 5, 5)))
                          if d.label == "keep 5 5"][0]
            assert dist.mean() == pytest.approx(keep_value, abs=1e-9)


def test_full_yahtzee_distribution(yahtzee_table):
    # expected: sums to 1; mean = the table's expected score (the values' kernel, checked
    # against the published figure above); support inside the card's score range: at least
    # 5 (chance), at most 105 (five of each face) + 35 + the lower boxes' maxima + 100 for a
    # bonus Yahtzee on each of the other 12 turns
    game, table = yahtzee_table
    dist = score_distribution(game, table)
    assert dist.probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert dist.mean() == pytest.approx(table.meta.extra["expected_score"], abs=1e-9)
    lower_max = sum(int(game.score_table()[b].max()) for b in game.lower_boxes)
    assert dist.first >= 5 and dist.first + len(dist.probs) - 1 <= 105 + 35 + lower_max + 12 * 100


# ----------------------------------------------------------------------------------------
# Monte-Carlo play of the optimal policy through the rules engine
# ----------------------------------------------------------------------------------------
def _best_action(game, table):
    """rank's best action, remembered per position: rank is a function of the position, and
    on a small card most positions of a game come again in later games."""
    best: dict = {}

    def choose(state):
        if state not in best:
            best[state] = rank(game, table, state)[0].action
        return best[state]

    return choose


def _play(game, choose, state, rng) -> float:
    """Play the current card to its end with ``choose`` (:func:`_best_action`) and true chance."""
    return game.returns(play_with_rng(game, choose, rng, state))[0]


Z_999 = 3.2905  # two-sided 99.9 % normal quantile


@pytest.mark.parametrize("name, options, games", [
    ("kockapoker", {"boxes": ("twos", "chance", "two_pairs", "full_house")}, 800),
    ("yahtzee", {"boxes": ("fives", "full_house", "yahtzee")}, 800),
    ("slovak", {"boxes": ("ones", "sixes", "pair", "poker"), "part1_choice": "declare_after_first_throw"}, 500),
])
def test_monte_carlo_play_agrees_with_the_table(name, options, games):
    # expected: the table's expected score, within the 99.9 % interval of the sample mean
    # (standard deviation from the exact distribution)
    game, table = _tiny_table(name, _options_key(options))
    rng = random.Random(2024)
    choose = _best_action(game, table)
    scores = [_play(game, choose, game.new_initial_state(), rng) for _ in range(games)]
    dist = score_distribution(game, table)
    assert abs(np.mean(scores) - dist.mean()) < Z_999 * dist.std() / math.sqrt(games)


def test_monte_carlo_full_yahtzee_endgames(yahtzee_table):
    # expected: value_of_card of a late position of the full card, within the 99.9 %
    # interval (exact standard deviation from score_distribution of that card): the upper
    # bonus hangs on the fours (51 of 63 so far) and the Yahtzee box holds 50, so bonus
    # Yahtzees and the joker count
    game, table = yahtzee_table
    rng = random.Random(7)
    card = game.card_from_entries({"ones": 3, "twos": 6, "threes": 9, "fives": 15, "sixes": 18, "three_kind": 22,
                                   "four_kind": 0, "full_house": 25, "large_straight": 40, "yahtzee": 50})
    start = ScorecardState(cards=(card,))
    games = 1000
    choose = _best_action(game, table)
    scores = [_play(game, choose, start, rng) for _ in range(games)]
    dist = score_distribution(game, table, card)
    assert dist.mean() == pytest.approx(value_of_card(game, table, card), abs=1e-9)
    assert abs(np.mean(scores) - dist.mean()) < Z_999 * dist.std() / math.sqrt(games)


# ----------------------------------------------------------------------------------------
# Tables on disk, verify, hints
# ----------------------------------------------------------------------------------------
KOCKAPOKER_CARD = {"boxes": ("ones", "twos", "chance", "pair", "full_house")}
"""A five-box kockapóker card (house, HU-7; szemét, pár, full) for the tables on disk and the
hints: the whole card's table costs some 17 s to build (most of it the forward pass of its
distribution), the full Yahtzee card's below a third of that."""


@pytest.fixture(scope="module")
def yahtzee_table(shared_tables):
    # the whole Yahtzee card's table, built once per run for this module and
    # tests/test_simulate.py (tests/conftest.py)
    game = get_game("yahtzee")
    return game, shared_tables.table(game, solver_for("yahtzee"))


@pytest.fixture(scope="module")
def kockapoker_card_table(shared_tables):
    # KOCKAPOKER_CARD's table on disk, built once per run (tests/test_simulate.py plays it)
    game = get_game("kockapoker", KOCKAPOKER_CARD)
    return game, shared_tables.table(game, solver_for("kockapoker"))


def test_full_yahtzee_spot_checks(yahtzee_table):
    # expected: no problem from SCORECARD_EV.check (values recomputed through rank with the
    # engine's scores and the dense keep transitions, for sampled late cards)
    game, table = yahtzee_table
    assert SCORECARD_EV.check(game, table, samples=4) == []


def test_spot_checks_catch_wrong_values(kockapoker_card_table):
    # expected: SCORECARD_EV.check finds nothing on a correct table and reports values
    # changed by 0.01 % (recomputed through rank, independent of the kernel)
    game, table = kockapoker_card_table
    assert SCORECARD_EV.check(game, table, samples=3) == []
    damaged = Table(arrays={**table.arrays, "values": table["values"] * 1.0001}, meta=table.meta)
    assert any("recomputed" in p or "expected score" in p for p in SCORECARD_EV.check(game, damaged, samples=3))


def test_parallel_backends_give_the_same_table(monkeypatch):
    # expected: the serial values and distribution, bit for bit (same arithmetic per state)
    monkeypatch.setattr(scorecard_values, "MIN_PARALLEL_STATES", 0)  # a small card, split anyway
    game = get_game("kockapoker", {"boxes": ("ones", "twos", "chance", "pair", "full_house", "five_kind")})
    model = build_model(game)
    serial = solve_values(model)
    serial_dist = scorecard_values.distribution_from_start(model, serial)
    for backend in ("threading", "loky"):
        options = BuildOptions(jobs=2, backend=backend, progress=False)
        values = solve_values(model, options)
        assert np.array_equal(values, serial)
        assert np.array_equal(scorecard_values.distribution_from_start(model, values, options).probs, serial_dist.probs)


def _tiny_on_disk(tmp_path, **options):
    game = get_game("yahtzee", {"boxes": ("sixes", "chance"), **options})
    build_table(game, solver_for("yahtzee"), BuildOptions(progress=False), tmp_path)
    return game


def test_missing_table_names_the_build_command(tmp_path):
    game = get_game("yahtzee", {"boxes": ("sixes", "chance")})
    with pytest.raises(TableError, match="kocka-solve build yahtzee"):
        get_table(game, cache_dir=tmp_path / "empty")


def test_table_of_other_rules_is_refused(tmp_path):
    built = _tiny_on_disk(tmp_path)
    other = get_game("yahtzee", {"boxes": ("sixes", "chance"), "joker": "forced"})
    path = path_for(built, solver_for("yahtzee"), tmp_path)
    path.rename(path_for(other, solver_for("yahtzee"), tmp_path))  # a stale file where the other rules look
    with pytest.raises(TableError, match="built for rules variant"):
        get_table(other, cache_dir=tmp_path)


def test_corrupt_table_file_gives_table_error(tmp_path):
    game = _tiny_on_disk(tmp_path)
    path = path_for(game, solver_for("yahtzee"), tmp_path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(TableError, match="corrupt"):
        get_table(game, cache_dir=tmp_path / ".." / tmp_path.name)


def test_hint_cli_ranks_keeps_with_losses(kockapoker_card_table):
    # expected: the listed values are rank's values, best first, loss = best - value
    game, table = kockapoker_card_table
    args = ["hint", "kockapoker", "-r", "boxes=" + ",".join(KOCKAPOKER_CARD["boxes"]), "--dice", "1", "1", "3", "4", "6",
            "--roll", "1", "--cache-dir", str(table.path.parent), "--top", "0", "--lang", "en"]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0, text.output
    assert "reroll all" in text.output and "write szemét" in text.output
    out = CliRunner().invoke(main, args + ["--json"])
    doc = json.loads(out.output)
    state = ScorecardState(cards=(Card((None,) * game.num_boxes),), throw=1, dice=(1, 1, 3, 4, 6))
    ranked = rank(game, table, state)
    assert [a["action"] for a in doc["actions"]] == [d.label for d in ranked]
    assert [a["value"] for a in doc["actions"]] == pytest.approx([d.value for d in ranked], abs=1e-12)
    assert doc["actions"][0]["loss"] == 0
    assert all(a["loss"] >= 0 for a in doc["actions"])


def test_hint_with_a_card_on_the_last_roll_lists_boxes(kockapoker_card_table):
    # expected: on the third throw only fills are legal; each value = points so far +
    # entry + value of the card after it (value_of_card of the next card)
    game, table = kockapoker_card_table
    card_doc = {"pair": 10, "twos": 2, "full": 19}  # ids and labels both accepted
    report = hint(game, ScorecardHintParams(dice=(3, 3, 3, 5, 5), roll=3, card=card_doc, cache_dir=str(table.path.parent)))
    assert {d.action.box for d in report.decisions} == {"ones", "chance"}
    assert all(d.label.startswith("write ") for d in report.decisions)
    entries = [None] * game.num_boxes
    entries[game.box_index("pair")], entries[game.box_index("twos")], entries[game.box_index("full_house")] = 10, 2, 19
    for d in report.decisions:
        b = game.box_index(d.action.box)
        after = list(entries)
        after[b] = int(game.box_score(b, (3, 3, 3, 5, 5)))
        assert d.value == pytest.approx(value_of_card(game, table, Card(tuple(after))), abs=1e-9)


def test_hint_rejects_bad_input(kockapoker_card_table):
    game, table = kockapoker_card_table
    with pytest.raises(DiceError, match=r"not 1 1 7 4 6"):
        hint(game, ScorecardHintParams(dice=(1, 1, 7, 4, 6), roll=1, cache_dir=str(table.path.parent)))
    with pytest.raises(InvalidStateError, match="--roll must be 1, 2 or 3"):
        hint(game, ScorecardHintParams(dice=(1, 1, 3, 4, 6), roll=4, cache_dir=str(table.path.parent)))
    with pytest.raises(InvalidStateError, match="there is no box bogus"):
        hint(game, ScorecardHintParams(dice=(1, 1, 3, 4, 6), roll=1, card={"bogus": 3}, cache_dir=str(table.path.parent)))
