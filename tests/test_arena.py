"""Arena: interval formulas against hand computations and a published table, seeded
reproducibility independent of --jobs, common random numbers, seat rotation, and a
simulated mean against an exactly known expectation.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from kocka.agents.frontends.games.arena import (
    ArenaError, ArenaResult, histogram, mean_interval, paired_gain, run_arena, wilson_interval, win_shares,
)
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.solver.rules import get_game

CHANCE_ONLY = {"boxes": ("chance",)}
SMALL_YAHTZEE = {"boxes": ("ones", "sixes", "chance", "yahtzee")}


# ----------------------------------------------------------------------------------------
# Intervals
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("successes, n, low, high", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion",
    # Statistics in Medicine 17, Table I, method 3 (Wilson score, no continuity correction)
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0000, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_interval_matches_newcombe_table(successes, n, low, high):
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_by_hand():
    """7 of 20, z = 1.96: z^2/n = 0.19208; centre (0.35 + 0.09604) / 1.19208 = 0.37418;
    half-width 1.96 sqrt(0.011375 + 0.0024010) / 1.19208 = 0.19298 -> [0.1812, 0.5672]."""
    lo, hi = wilson_interval(7, 20, z=1.96)
    assert lo == pytest.approx(0.1812, abs=1e-4)
    assert hi == pytest.approx(0.5672, abs=1e-4)


def test_mean_interval_by_hand():
    """[1, 2, 3, 4]: mean 2.5, sample sd sqrt(5/3) = 1.29099, half-width 1.959964 x
    1.29099 / 2 = 1.26515."""
    mean, lo, hi = mean_interval([1, 2, 3, 4])
    assert mean == 2.5
    assert hi - mean == pytest.approx(1.959964 * math.sqrt(5 / 3) / 2, abs=1e-6)
    assert mean - lo == pytest.approx(1.26515, abs=1e-5)


def test_win_shares_split_ties():
    assert list(win_shares([3, 7, 7])) == [0.0, 0.5, 0.5]
    assert list(win_shares([5])) == [1.0]


def test_histogram_bins_cover_every_value():
    edges, counts = histogram([0, 9, 10, 19, 20, 100], bins=10)
    # range 100 over 10 bins: width 10, bins [0,10) ... [100,110)
    assert edges[:3] == [0, 10, 20] and edges[-1] == 110
    assert counts[:3] == [2, 2, 1] and counts[-1] == 1 and sum(counts) == 6


# ----------------------------------------------------------------------------------------
# Matches
# ----------------------------------------------------------------------------------------
def test_results_do_not_depend_on_jobs():
    game = get_game("yahtzee", SMALL_YAHTZEE)
    one = run_arena(game, ["heuristic", "random"], games=24, seed=5, jobs=1)
    two = run_arena(game, ["heuristic", "random"], games=24, seed=5, jobs=2)
    np.testing.assert_array_equal(one.scores, two.scores)
    np.testing.assert_array_equal(one.wins, two.wins)
    other = run_arena(game, ["heuristic", "random"], games=24, seed=6, jobs=1)
    assert not np.array_equal(one.scores, other.scores)


def test_table_games_rotate_seats_and_reproduce():
    game = get_game("kocka", {"target": 1000}, num_players=2)
    one = run_arena(game, ["cautious", "bold"], games=6, seed=3, jobs=1)
    two = run_arena(game, ["cautious", "bold"], games=6, seed=3, jobs=2)
    np.testing.assert_array_equal(one.scores, two.scores)
    # game i puts agent (s + i) mod 2 in seat s: cautious sits first in even games
    assert list(one.seats[:, 0]) == [0, 1, 0, 1, 0, 1]
    assert list(one.seats[:, 1]) == [1, 0, 1, 0, 1, 0]
    # Kocka returns win shares: exactly one unit of win per game
    assert np.allclose(one.wins.sum(axis=1), 1.0)
    assert one.mode == "table"


def test_common_random_numbers_make_equal_agents_tie():
    """Two copies of the deterministic heuristic on their own cards with the same dice
    score exactly the same in every game: every game is a tie (win rate 1/2 each)."""
    game = get_game("yahtzee", SMALL_YAHTZEE)
    result = run_arena(game, ["heuristic", "heuristic"], games=30, seed=11)
    assert result.labels == ("heuristic#1", "heuristic#2")
    np.testing.assert_array_equal(result.scores[:, 0], result.scores[:, 1])
    assert result.head_to_head()[0, 1] == 0.5
    assert [s.win_rate for s in result.summaries()] == [0.5, 0.5]


def test_simulated_mean_matches_exact_expectation():
    """A card with only the chance box: the heuristic plays the optimal one-box rule, whose
    expectation is 5 x 14/3 = 70/3 (see test_agents.test_scorecard_par_values). The arena
    mean over 1500 games must cover it within 4 standard errors."""
    game = get_game("yahtzee", CHANCE_ONLY)
    result = run_arena(game, ["heuristic"], games=1500, seed=2)
    (summary,) = result.summaries()
    se = summary.sd / math.sqrt(result.games)
    assert abs(summary.mean - 70 / 3) < 4 * se
    assert summary.mean_ci[0] < summary.mean < summary.mean_ci[1]


def test_arena_rejects_bad_setups():
    with pytest.raises(ArenaError, match=r"kocka seats 1\.\.6 players, got 7 agents"):
        run_arena(get_game("kocka"), ["random"] * 7, games=1, seed=1)
    with pytest.raises(ArenaError, match=r"number of games must be a positive integer, got 0"):
        run_arena(get_game("yahtzee"), ["random"], games=0, seed=1)


# ----------------------------------------------------------------------------------------
# The command
# ----------------------------------------------------------------------------------------
def test_arena_command_json():
    runner = CliRunner()
    out = runner.invoke(main, ["arena", "yahtzee", "-r", "boxes=chance,yahtzee", "--agents", "heuristic,random",
                               "--games", "40", "--seed", "4", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["mode"] == "solitaire" and doc["games"] == 40
    assert [a["label"] for a in doc["agents"]] == ["heuristic", "random"]
    for agent in doc["agents"]:
        assert agent["win_ci"][0] <= agent["win_rate"] <= agent["win_ci"][1]
        assert sum(agent["histogram"]) == 40
    h2h = doc["head_to_head"]
    assert h2h["heuristic"]["random"] + h2h["random"]["heuristic"] == pytest.approx(1.0)
    assert "Wilson" in doc["intervals"]["win_rate"]


def test_arena_command_text_and_reproducible():
    runner = CliRunner()
    args = ["arena", "kocka", "-r", "target=1000", "--agents", "heuristic,cautious,bold", "--games", "12", "--seed", "9", "--lang", "en"]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert "95% CI (Wilson)" in first.output and "win rate by seat" in first.output
    assert "score distribution" in first.output
    again = runner.invoke(main, args + ["--jobs", "2"])
    assert again.output == first.output


def test_arena_command_errors_name_the_problem():
    runner = CliRunner()
    out = runner.invoke(main, ["arena", "yahtzee", "--agents", "heuristic,nobody", "--games", "2"])
    assert out.exit_code == 2 and "unknown agent 'nobody'" in out.output


def test_arena_plot(tmp_path):
    runner = CliRunner()
    target = tmp_path / "dist.png"
    out = runner.invoke(main, ["arena", "yahtzee", "-r", "boxes=chance", "--agents", "heuristic", "--games", "5",
                               "--plot", str(target)])
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        assert out.exit_code == 2 and "--plot needs matplotlib" in out.output
    else:
        assert out.exit_code == 0, out.output
        assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_memory_agents_observe_every_event():
    """An agent that declares memory sees one event per applied action or roll, in order;
    rolls carry no action (they may be private) and every event holds the state after it."""
    from kocka.agents.frontends.games.arena import play_match
    from kocka.agents.bots.base import ChanceSampler, Event
    from kocka.agents.bots.catalogue import RandomAgent
    from kocka.solver.rules import CHANCE

    class Recorder(RandomAgent):
        has_memory = True

        def __init__(self, game, seed=0):
            super().__init__(game, seed)
            self.events: list[Event] = []

        def observe(self, event):
            self.events.append(event)

    game = get_game("abazs", {"max_rounds": 3}, num_players=2)
    recorder = Recorder(game, seed=1)
    final = play_match(game, [recorder, RandomAgent(game, seed=2)], ChanceSampler(4))
    # each decision event is the previous state plus its action
    state = game.new_initial_state()
    for event in recorder.events:
        if event.player == CHANCE:
            assert event.action is None
        else:
            assert event.player == game.current_player(state)
            assert game.apply(state, event.action) == event.state
        state = event.state
    assert state == final and game.is_terminal(final)


# ----------------------------------------------------------------------------------------
# Paired comparisons (--baseline)
# ----------------------------------------------------------------------------------------
def _result(scores, wins, names=("a", "opponent"), seed=1):
    scores = np.asarray(scores, dtype=float)
    return ArenaResult(game="kocka", rules={}, mode="table", seed=seed, labels=names, names=names, scores=scores,
                       wins=np.asarray(wins, dtype=float), seats=np.zeros(scores.shape, dtype=int))


def test_paired_gain_by_hand():
    """First agent's scores 3 5 7 9 against the baseline's 1 4 5 9 in the same games: the
    differences 2 1 2 0 have mean 1.25 and sample sd sqrt(2.75 / 3) = 0.95743, so the
    95 % interval is 1.25 +- 1.95996 x 0.95743 / 2 = 1.25 +- 0.93826 (by hand)."""
    agent = _result([[3, 0], [5, 0], [7, 0], [9, 0]], [[1, 0], [1, 0], [0, 1], [1, 0]])
    baseline = _result([[1, 0], [4, 0], [5, 0], [9, 0]], [[0, 1], [1, 0], [0, 1], [1, 0]], names=("b", "opponent"))
    gain = paired_gain(agent, baseline)
    assert (gain.agent, gain.baseline, gain.games) == ("a", "b", 4)
    assert gain.score_gain == pytest.approx(1.25)
    assert gain.score_ci == pytest.approx((1.25 - 0.93826, 1.25 + 0.93826), abs=1e-5)
    assert gain.win_gain == pytest.approx(0.25) and gain.baseline_win_rate == pytest.approx(0.5)
    with pytest.raises(ArenaError, match="differ only in the first agent"):
        paired_gain(agent, _result(baseline.scores, baseline.wins, names=("b", "someone else")))
    with pytest.raises(ArenaError, match="differ only in the first agent"):
        paired_gain(agent, _result(baseline.scores, baseline.wins, names=("b", "opponent"), seed=2))


def test_baseline_plays_the_same_games():
    """Kocka to 1000, seat order rotating: the baseline run replays the same games (the
    same dice, the opponent's same draws), so an agent paired with itself gains exactly 0
    in every game, and against another agent the paired gain equals the difference of the
    two runs' own means (linearity of the mean)."""
    game = get_game("kocka", {"target": 1000}, num_players=2)
    cautious = run_arena(game, ["cautious", "bold"], games=20, seed=7)
    same = paired_gain(cautious, run_arena(game, ["cautious", "bold"], games=20, seed=7))
    assert (same.score_gain, same.score_ci, same.win_gain, same.win_ci) == (0.0, (0.0, 0.0), 0.0, (0.0, 0.0))
    heuristic = run_arena(game, ["heuristic", "bold"], games=20, seed=7)
    gain = paired_gain(cautious, heuristic)
    means = [s.mean for s in cautious.summaries()][0] - [s.mean for s in heuristic.summaries()][0]
    rates = cautious.summaries()[0].win_rate - heuristic.summaries()[0].win_rate
    assert gain.score_gain == pytest.approx(means) and gain.win_gain == pytest.approx(rates)
    assert gain.score_ci[0] <= gain.score_gain <= gain.score_ci[1]


def test_arena_command_baseline():
    runner = CliRunner()
    args = ["arena", "kocka", "-r", "target=1000", "--agents", "cautious,bold", "--games", "10", "--seed", "3"]
    out = runner.invoke(main, args + ["--baseline", "heuristic", "--json"])
    assert out.exit_code == 0, out.output
    paired = json.loads(out.output)["paired"]
    alone = json.loads(runner.invoke(main, args + ["--json"]).output)["agents"][0]
    baseline = json.loads(runner.invoke(main, [*args[:4], "--agents", "heuristic,bold", *args[6:], "--json"]).output)
    assert (paired["agent"], paired["baseline"], paired["games"]) == ("cautious", "heuristic", 10)
    assert paired["baseline_mean_score"] == pytest.approx(baseline["agents"][0]["mean_score"])
    assert paired["score_gain"] == pytest.approx(alone["mean_score"] - baseline["agents"][0]["mean_score"])
    text = runner.invoke(main, args + ["--baseline", "heuristic", "--lang", "en"])
    assert "paired with heuristic in the first seat" in text.output and "gain of cautious per game" in text.output
    bad = runner.invoke(main, args + ["--baseline", "nobody"])
    assert bad.exit_code == 2 and "unknown agent 'nobody'" in bad.output
