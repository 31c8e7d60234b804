"""Target tables (kocka.solver.solvers.scorecard.target, kernel kocka.solver.kernels._target): the best chance of
reaching every score from every card, and the expected-score player's distribution.

Where each expected number comes from is said at each test: a naive threshold expectimax
written here (plain recursion over the engine's scoring, vectorised over the targets only),
the scorecard solver's forward distribution (an independent kernel), the stored
distribution of the expected-score table, hand computation from RULES.md, or simulation
through the rules engine.
"""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
from click.testing import CliRunner

from dask_cluster import loopback_cluster
from scorecard_reference import FIVE, one_box_cards, turn_value
from kocka.agents.bots.base import AgentUnavailable, play_with_rng
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.bots.target_agents import TargetAgent
from kocka.solver.base import parallel
from kocka.solver.solvers.scorecard import target as scorecard_target
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.store.table_store import build_table, get_table, solver_for
from kocka.solver.rules import get_game
from kocka.solver.rules.scorecard import Card, ScorecardState
from kocka.solver.solvers.scorecard.values import distribution_from_start, score_distribution, solve_values
from kocka.solver.base.table_file import Table

Z_999 = 3.2905  # two-sided 99.9 % normal quantile


# ----------------------------------------------------------------------------------------
# A naive threshold expectimax, vectorised over the targets
# ----------------------------------------------------------------------------------------
class NaiveThreshold:
    """max over strategies of P(points to come >= t) for every t in ``range(lo, hi)`` at
    once (numpy arrays over t; each t is its own plain expectimax): every keep from
    ``sub_multisets``, every roll from ``outcome_distribution``, every fill scored by the
    engine (``allowed_boxes``, ``fill_score``, ``tracker_after``, ``final_bonus``), the SK
    declaration read from the engine's legal actions. ``utility``: an array over final
    totals ``range(lo, hi)`` to maximise in expectation instead (the exact winner). The
    range must hold every total: below it a target is surely reached, above it never."""

    def __init__(self, game, lo: int = -200, hi: int = 500, utility: np.ndarray | None = None):
        self.g = game
        self.lo, self.hi = lo, hi
        self.ts = np.arange(lo, hi)
        self.full = (1 << game.num_boxes) - 1
        self.ybox = getattr(game, "yahtzee_box", None)
        self.utility = utility
        self.memo: dict = {}

    def value(self, mask: int, tracker: int, y_entry, so_far: int = 0) -> np.ndarray:
        """Array over t: P(points to come >= t); with ``utility``, the best expected
        utility of the final total ``so_far + points to come``."""
        key = (mask, tracker, y_entry, so_far if self.utility is not None else 0)
        if key not in self.memo:
            self.memo[key] = self._value(mask, tracker, y_entry, so_far)
        return self.memo[key]

    def _value(self, mask, tracker, y_entry, so_far):
        g = self.g
        if mask == self.full:
            bonus = g.final_bonus(tracker)
            if self.utility is not None:
                return np.full(1, self.utility[so_far + bonus - self.lo])
            return (bonus >= self.ts).astype(float)
        # the turn's three throws and keeps: tests/scorecard_reference.py
        return turn_value(g, mask, lambda dice, first, boxes: self._fill(mask, tracker, y_entry, so_far, dice, first, boxes))

    def _shift(self, arr: np.ndarray, points: int) -> np.ndarray:
        """P(points + X >= t) from P(X >= t) on the range (1 below it, 0 above)."""
        n = len(arr)
        if points >= 0:
            return np.concatenate([np.ones(min(points, n)), arr[:max(n - points, 0)]])
        return np.concatenate([arr[-points:], np.zeros(min(-points, n))])

    def _fill(self, mask, tracker, y_entry, so_far, dice, first, boxes):
        g = self.g
        best = None
        for b in g.allowed_boxes(mask, dice):
            if b not in boxes:
                continue
            s = g.fill_score(b, dice, first, mask, y_entry)
            nxt_y = s.entry if b == self.ybox else y_entry
            points = s.entry + s.bonus
            nxt = self.value(mask | 1 << b, g.tracker_after(tracker, b, dice), nxt_y, so_far + points)
            v = nxt if self.utility is not None else self._shift(nxt, points)
            best = v if best is None else np.maximum(best, v)
        return best


TINY = [
    # (id, game, options, rules exercised)
    ("hu-zero", "kockapoker", {"boxes": ("threes", "full_house")}, "HU-5, HU-6, HU-7 zero (negative house)"),
    ("hu-count", "kockapoker", {"boxes": ("ones", "pair"), "house_negative": "count"}, "HU-7 count"),
    ("sk-first", "slovak", {"boxes": ("twos", "poker")}, "SK-3, SK-5, SK-7 doubling, SK-8"),
    ("sk-declare", "slovak", {"boxes": ("ones", "fours", "chance"), "part1_choice": "declare_after_first_throw"},
     "SK-3 declaration groups"),
    ("yahtzee-joker", "yahtzee", {"boxes": ("sixes", "full_house", "yahtzee")}, "bonus Yahtzee, free joker"),
    ("yahtzee-forced", "yahtzee", {"boxes": ("twos", "yahtzee", "chance"), "joker": "forced"}, "forced joker"),
    ("yahtzee-no-bonus", "yahtzee", {"boxes": ("fives", "yahtzee"), "yahtzee_bonus": False}, "no bonus Yahtzee, no joker"),
    ("yatzy", "yatzy", {"boxes": ("ones", "yatzy")}, "Yatzy upper bonus, yatzy"),
]
_SOLVED: dict = {}


def _solved(name, options):
    """Game, model, float64 reach and policy vectors, expected-score values (cached)."""
    key = (name, tuple(sorted(options.items())))
    if key not in _SOLVED:
        game = get_game(name, options)
        model = scorecard_target.model_for(game)
        W = solve_values(model)
        R = scorecard_target.solve_vectors(model, scorecard_target.REACH, np.float64)
        D = scorecard_target.solve_vectors(model, scorecard_target.POLICY, np.float64, W=W)
        _SOLVED[key] = (game, model, R, D, W)
    return _SOLVED[key]


@pytest.mark.parametrize("name, options", [v[1:3] for v in TINY], ids=[v[0] for v in TINY])
def test_tiny_cards_equal_naive_threshold_expectimax(name, options):
    # expected: NaiveThreshold above (brute force over the engine's scoring), for every
    # target in its range, from the empty card and from every card one turn later
    game, model, R, _, _ = _solved(name, options)
    naive = NaiveThreshold(game)
    view = scorecard_target.TargetView(game, np.zeros(model.n_states), R, R)
    empty = Card(entries=(None,) * game.num_boxes)
    k = view.key(empty)
    np.testing.assert_allclose(R.at(k.state, naive.ts - k.offset), naive.value(0, game.initial_tracker, None),
                               rtol=0, atol=1e-12)
    for b, entry, card in one_box_cards(game):
        k = view.key(card)
        y_entry = entry if b == naive.ybox else None
        want = naive.value(1 << b, game.tracker_of(card), y_entry)
        np.testing.assert_allclose(R.at(k.state, naive.ts - k.offset), want, rtol=0, atol=1e-12, err_msg=f"{b} {entry}")




@pytest.mark.parametrize("name, options", [v[1:3] for v in TINY], ids=[v[0] for v in TINY])
def test_policy_vectors_equal_the_forward_distribution(name, options):
    # expected: the survival function of the scorecard solver's forward distribution of
    # expected-score play (scorecard.distribution.distribution_from_start, its own kernel), to
    # the cap's bound (every value left out or cut is below 1e-9)
    game, model, R, D, W = _solved(name, options)
    dist = distribution_from_start(model, W)
    survival = np.cumsum(dist.probs[::-1])[::-1]
    s0, off0 = scorecard_target.start_state(model)
    np.testing.assert_allclose(D.at(s0, dist.scores - off0), survival, rtol=0, atol=1e-9)
    assert D.at(s0, dist.scores[-1] + 1 - off0) == 0 and D.at(s0, dist.scores[0] - off0) == 1


@pytest.mark.parametrize("name, options", [v[1:3] for v in TINY], ids=[v[0] for v in TINY])
def test_reach_is_a_nonincreasing_probability_above_the_policy(name, options):
    # expected: from the definitions: R(s, t) is a probability, non-increasing in t, and no
    # policy beats it: R >= D (the expected-score policy's survival), for every state and t
    game, model, R, D, _ = _solved(name, options)
    for vec in (R, D):
        assert vec.vals.min() >= 0 and vec.vals.max() <= 1
        lengths = np.diff(vec.off)
        for s in range(model.n_states):
            run = vec.vals[vec.off[s]:vec.off[s + 1]]
            if lengths[s]:
                assert run[0] < 1 and run[-1] >= scorecard_target.CAP and (np.diff(run) <= 0).all(), s
    lo = min(int(R.lo.min()), int(D.lo.min())) - 2
    hi = int((R.lo + np.diff(R.off)).max()) + 2
    t = np.arange(lo, hi)
    for s in range(model.n_states):
        assert (R.at(s, t) >= D.at(s, t)).all(), s


@pytest.mark.parametrize("name, options", [("yahtzee", {"boxes": ("sixes", "full_house", "yahtzee")}),
                                           ("yatzy", {"boxes": ("ones", "yatzy")})])
def test_reach_is_one_for_every_target_up_to_zero(name, options):
    # expected: Yahtzee and Yatzy entries and bonuses are never negative (PUBLISHED.md
    # rules), so the points to come reach any t <= 0 surely: R(s, t) = 1, i.e. lo >= 0
    _, model, R, D, _ = _solved(name, options)
    assert (R.lo >= 0).all() and (D.lo >= 0).all()
    assert (R.at(np.arange(model.n_states), 0) == 1).all()


def test_reach_is_one_up_to_the_guaranteed_points_on_a_negative_card():
    # expected, by hand (SK-4, SK-5, RULES.md): on a Slovak card of only the twos box the
    # entry is (c - 3) * 2 >= -6 and the bonus +50 comes at an entry >= 0; the points to
    # come are -6 at least (no 2 at all), so R(t) = 1 for t <= -6 and < 1 above; the most
    # is 2 * 2 + 50 = 54 (five 2s), so R(54) > 0 = R(55)
    game = get_game("slovak", {"boxes": ("twos",)})
    model = scorecard_target.model_for(game)
    R = scorecard_target.solve_vectors(model, scorecard_target.REACH, np.float64)
    s0, off0 = scorecard_target.start_state(model)
    p = R.at(s0, np.arange(-10, 60) - off0)
    t = np.arange(-10, 60)
    assert (p[t <= -6] == 1).all() and (p[t > -6] < 1).all()
    assert p[t == 54][0] > 0 and p[t == 55][0] == 0


def test_float32_arithmetic_stays_within_its_documented_error():
    # expected: the float32 kernel (the tables' default) within 1e-5 of the float64 kernel
    # on every stored value of a card with face boxes, joker and bonus (the README and
    # docs/SOLVER.md state the measured difference of the full games)
    game = get_game("yahtzee", {"boxes": ("ones", "fives", "sixes", "full_house", "yahtzee", "chance")})
    model = scorecard_target.model_for(game)
    R64 = scorecard_target.solve_vectors(model, scorecard_target.REACH, np.float64)
    R32 = scorecard_target.solve_vectors(model, scorecard_target.REACH, np.float32)
    lo = int(min(R64.lo.min(), R32.lo.min()))
    hi = int(max((R64.lo + np.diff(R64.off)).max(), (R32.lo + np.diff(R32.off)).max())) + 1
    t = np.arange(lo, hi + 1)
    worst = max(float(np.abs(R64.at(s, t) - R32.at(s, t)).max()) for s in range(model.n_states))
    assert worst < 1e-5


# ----------------------------------------------------------------------------------------
# Tables: build, layout, checks, the stored distribution
# ----------------------------------------------------------------------------------------
SMALL = ("kockapoker", {"boxes": ("twos", "sixes", "chance", "two_pairs", "full_house")})


@pytest.fixture(scope="module")
def small_tables(tmp_path_factory):
    """The target and expected-score tables of a five-box kockapoker card, on disk."""
    cache = tmp_path_factory.mktemp("target-tables")
    game = get_game(*SMALL)
    build_table(game, solver_for(game.NAME, "target"), BuildOptions(progress=False), cache)
    build_table(game, solver_for(game.NAME), BuildOptions(progress=False), cache)
    return game, get_table(game, "target", cache_dir=cache), get_table(game, cache_dir=cache), cache


def test_table_loads_with_its_layout_and_passes_its_checks(small_tables):
    # expected: SCORECARD_TARGET.check finds nothing (vectors are probabilities,
    # non-increasing, the empty card's P(final >= T) recomputed through rank_target equals
    # the table, the stored policy distribution equals the forward one)
    game, table, _, _ = small_tables
    assert table.meta.extra["states"] == scorecard_target.model_for(game).n_states
    assert scorecard_target.SCORECARD_TARGET.check(game, table) == []


def test_checks_catch_damaged_vectors(small_tables):
    # expected: squared values (a change no max or mean carries through unchanged) are no
    # longer what the widget recomputes from the successors
    game, table, _, _ = small_tables
    damaged = Table(arrays={**table.arrays, "reach_vals": table["reach_vals"] ** 2}, meta=table.meta)
    assert any("recomputed" in p for p in scorecard_target.SCORECARD_TARGET.check(game, damaged))


def test_reach_dominates_the_stored_distribution_of_expected_score_play(small_tables):
    # expected: the expected-score table's stored distribution (score_distribution of the
    # empty card, read from dist_probs) is one strategy's, so P(final >= T) <= R for all T
    game, table, ev_table, _ = small_tables
    dist = score_distribution(game, ev_table)
    survival = np.cumsum(dist.probs[::-1])[::-1]
    view = scorecard_target.view_of(game, table)
    empty = Card(entries=(None,) * game.num_boxes)
    reach = np.array([view.reach_card(empty, int(T)) for T in dist.scores])
    assert (reach >= survival - 1e-6).all()          # float32 storage
    assert (reach - survival).max() > 0.01           # and playing for T does better somewhere


def test_expected_score_column_is_the_expected_score_tables_value(small_tables):
    # expected: scorecard.ranking.rank's values (the expected-score table), action by action
    from kocka.solver.solvers.scorecard.values import rank
    game, table, ev_table, _ = small_tables
    card = game.card_from_entries({"twos": -2})
    state = ScorecardState(cards=(card,), throw=2, dice=(2, 2, 3, 6, 6))
    want = {d.action: d.value for d in rank(game, ev_table, state)}
    for d in scorecard_target.rank_target(game, table, state, 120):
        assert d.detail["expected final score"] == pytest.approx(want[d.action], abs=1e-9)


def test_monte_carlo_target_policy_reaches_its_target_as_often_as_the_table_says(small_tables):
    # expected: R(empty card, T), within the 99.9 % binomial interval of the share of games
    # in which the target agent, played through the rules engine with true chance, reaches T.
    # At T = 50 (R about 0.89, so some 45 misses expected: the normal interval holds) playing
    # for T gains about 0.1 over the expected-score player's share, some 7 standard errors
    # of 400 games, so the sample also tells the target player from that one
    game, table, _, cache = small_tables
    T = 50
    p = scorecard_target.view_of(game, table).reach_card(Card(entries=(None,) * game.num_boxes), T)
    agent = TargetAgent(game, 0, AgentOptions(cache_dir=cache), target=T)
    rng = random.Random(2025)
    games = 400
    hits = sum(game.returns(play_with_rng(game, agent.choose, rng))[0] >= T for _ in range(games))
    assert abs(hits / games - p) < Z_999 * math.sqrt(p * (1 - p) / games)


# ----------------------------------------------------------------------------------------
# Finishing first
# ----------------------------------------------------------------------------------------
def test_win_curve_shares_ties_by_hand():
    # expected, by hand (RULES.md section 0: m tied players share the win, 1/m each):
    # opponent A totals 10 or 12 (1/2 each), B 11 surely. At x = 11: beat A with 1/2 (A =
    # 10) and tie B: 1/2 * 1/2 = 1/4; at x = 12: above B, tie A with 1/2: 1/2 + 1/2 * 1/2
    curve = scorecard_target.win_curve([(10, np.array([0.5, 0.0, 0.5])), (11, np.array([1.0]))])
    assert curve.first == 11
    assert curve(np.array([9, 10, 11, 12, 13])).tolist() == pytest.approx([0, 0, 0.25, 0.75, 1])


def test_exact_winner_against_finished_opponents_equals_naive_expected_utility(small_tables):
    # expected: NaiveThreshold with the utility G written out by hand: opponents finished
    # with 40 and 60, so G(x) = 0 below 60, 1/2 at 60 (a tie with one player), 1 above;
    # the mean over first throws of the exact turn's values equals the brute-force best
    # expected utility of a card with two boxes open (at most 30 + 22 + 20 = 72 points)
    game, table, _, _ = small_tables
    view = scorecard_target.view_of(game, table)
    # net -2 < 0 gives house 0 under house_negative = zero (HU-7), so each total is its lower
    # entries: 15 + 10 + 15 = 40 and 20 + 14 + 26 = 60 (full 6 6 6 4 4)
    opponents = [Card(entries=(-2, 0, 15, 10, 15)), Card(entries=(-2, 0, 20, 14, 26))]
    assert sorted(game.card_total(c) for c in opponents) == [40, 60]
    card = Card(entries=(-2, -6, None, None, 20))
    lo, hi = -200, 500
    x = np.arange(lo, hi)
    utility = np.where(x > 60, 1.0, np.where(x == 60, 0.5, 0.0))
    naive = NaiveThreshold(game, lo, hi, utility=utility)
    want = float(naive.value(card.filled_mask, game.tracker_of(card), None, game.entries_total(card))[0])
    curve = scorecard_target.opponents_curve(view, opponents)
    assert scorecard_target.is_exact(card, opponents)
    tv = scorecard_target.winner_turn(view, card, curve, exact=True)
    got = float(sum(p * v for (d, p), v in zip(FIVE, next(iter(tv.turns.values()))["V1"])))
    assert 0 < want < 1
    assert got == pytest.approx(want, abs=1e-9)
    # the full-information value of later turns can only be higher (it is a bound)
    bound = scorecard_target.winner_turn(view, card, curve, exact=False, continuation="reach")
    assert float(sum(p * v for (d, p), v in zip(FIVE, next(iter(bound.turns.values()))["V1"]))) >= got - 1e-9


def test_final_distributions_are_the_forward_ones(small_tables):
    # expected: scorecard.distribution.score_distribution (forward propagation of expected-score
    # play, its own kernel) of the same card, value by value (float32 storage)
    game, table, ev_table, _ = small_tables
    view = scorecard_target.view_of(game, table)
    for card in (Card(entries=(None,) * 5), Card(entries=(-2, None, 20, None, None)), Card(entries=(None, 6, None, 0, 22))):
        first, probs = view.final_distribution(card)
        dist = score_distribution(game, ev_table, card)
        assert probs.sum() == pytest.approx(1, abs=1e-6)
        lo, hi = min(first, dist.first), max(first + len(probs), dist.first + len(dist.probs))
        a, b = np.zeros(hi - lo), np.zeros(hi - lo)
        a[first - lo:first - lo + len(probs)] = probs
        b[dist.first - lo:dist.first - lo + len(dist.probs)] = dist.probs
        np.testing.assert_allclose(a, b, atol=2e-6)


def test_winner_needs_opponents_and_target_needs_its_table(small_tables, tmp_path):
    game, _, _, cache = small_tables
    with pytest.raises(AgentUnavailable, match="plays against opponents"):
        make_agent("winner", game, 0, AgentOptions(cache_dir=cache))
    with pytest.raises(AgentUnavailable, match="kocka-solve build kockapoker --kind target"):
        make_agent("target", game, 0, AgentOptions(cache_dir=tmp_path))


def test_winner_agent_ranks_with_the_win_share_and_says_it(small_tables):
    # expected: in a two-player game the agent's values are rank_winner's against the other
    # card, and win_probability is the best one
    game1, table, _, cache = small_tables
    game = type(game1)(game1.rules, num_players=2)
    me, other = Card(entries=(None, -6, 20, None, None)), Card(entries=(0, 6, 25, None, None))
    state = ScorecardState(cards=(other, me), player=1, throw=1, dice=(2, 2, 2, 5, 6))
    game.check_state(state)
    agent = make_agent("winner", game, 0, AgentOptions(cache_dir=cache))
    ranked = agent.rank(state)
    want = scorecard_target.rank_winner(game, table, state, [other])
    assert [d.action for d in ranked] == [d.action for d in want]
    assert [d.value for d in ranked] == pytest.approx([d.value for d in want], abs=1e-12)
    assert agent.win_probability(state) == pytest.approx(ranked[0].value)
    assert all("expected final score" in d.detail for d in ranked)


def test_arena_table_mode_shares_each_seats_dice_across_rotations(small_tables):
    # expected: two copies of the same deterministic agent at one table: each seat's dice
    # are the same in both rotations of a group, so agent #1 scores in game 2k what agent
    # #2 scores in game 2k + 1 (the design of common random numbers, arena docstring)
    from kocka.agents.frontends.games.arena import run_arena
    game, _, _, cache = small_tables
    result = run_arena(game, ["target", "target"], 8, seed=3, options=AgentOptions(cache_dir=cache), table=True)
    assert result.mode == "table"
    s = result.scores
    assert (s[0::2, 0] == s[1::2, 1]).all() and (s[0::2, 1] == s[1::2, 0]).all()
    assert result.wins.sum(axis=1) == pytest.approx(np.ones(8))


# ----------------------------------------------------------------------------------------
# Hints
# ----------------------------------------------------------------------------------------
def _cli(cache, *args):
    base = ["-r", "boxes=" + ",".join(SMALL[1]["boxes"]), "--cache-dir", str(cache), "--top", "0", "--lang", "en"]
    return CliRunner().invoke(main, ["hint", "kockapoker", *args, *base])


def test_hint_target_prints_the_chance_of_every_keep(small_tables):
    # expected: one line per legal action, the value rank_target's P(final >= 80), the
    # expected final score beside it
    game, table, _, cache = small_tables
    out = _cli(cache, "--dice", "1", "1", "3", "4", "6", "--roll", "1", "--target", "80")
    assert out.exit_code == 0, out.output
    assert "chance of reaching 80" in out.output and "expected final score" in out.output
    state = ScorecardState(cards=(Card(entries=(None,) * 5),), throw=1, dice=(1, 1, 3, 4, 6))
    want = scorecard_target.rank_target(game, table, state, 80)
    lines = [line for line in out.output.splitlines() if line[2:].startswith(("keep", "reroll", "write"))]
    assert len(lines) == len(want) == len(game.legal_actions(state))
    for line, d in zip(lines, want):
        assert d.label in line and f"{d.value:.4f}" in line and f"{d.detail['expected final score']:.4f}" in line


def test_hint_opponents_ranks_by_the_win_share(small_tables):
    # expected: rank_winner against the card given (box=points pairs, HU-1 names)
    game, table, _, cache = small_tables
    out = _cli(cache, "--dice", "2", "2", "2", "5", "6", "--roll", "2", "--card", "sixes=-6",
               "--opponents", "twos=0,chance=25")
    assert out.exit_code == 0, out.output
    state = ScorecardState(cards=(Card(entries=(None, -6, None, None, None)),), throw=2, dice=(2, 2, 2, 5, 6))
    want = scorecard_target.rank_winner(game, table, state, [Card(entries=(0, None, 25, None, None))])
    assert "chance of winning" in out.output and f"{want[0].value:.4f}" in out.output
    bad = _cli(cache, "--dice", "2", "2", "2", "5", "6", "--opponents", "twos=banana")
    assert bad.exit_code == 2 and "box=points" in bad.output


# ----------------------------------------------------------------------------------------
# Parallel and distributed builds
# ----------------------------------------------------------------------------------------
def test_threads_and_a_dask_cluster_give_the_serial_vectors(monkeypatch):
    # expected: the serial vectors bit for bit (the same arithmetic per state, whoever
    # runs the chunk): threads, and a distributed.LocalCluster of two worker processes
    monkeypatch.setattr(scorecard_target, "MIN_PARALLEL_STATES", 0)  # a small card, split anyway
    monkeypatch.setattr(scorecard_target, "CHUNK_STATES", 16)
    game = get_game("kockapoker", {"boxes": ("ones", "twos", "chance", "pair", "full_house")})
    model = scorecard_target.model_for(game)
    serial = scorecard_target.solve_vectors(model, scorecard_target.REACH, np.float32)

    def same(other):
        assert np.array_equal(other.lo, serial.lo) and np.array_equal(other.off, serial.off)
        assert np.array_equal(other.vals, serial.vals)

    same(scorecard_target.solve_vectors(model, scorecard_target.REACH, np.float32, options=BuildOptions(jobs=2, backend="threading", progress=False)))
    with loopback_cluster() as cluster:
        monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)
        monkeypatch.setattr(parallel, "_clients", {})  # connect to this cluster, as kocka-solve --backend dask does
        parallel.prepare_backend("dask")
        try:
            same(scorecard_target.solve_vectors(model, scorecard_target.REACH, np.float32, options=BuildOptions(jobs=2, backend="dask", progress=False)))
        finally:
            parallel._clients["dask"].close()


def test_seat_rank_offers_the_winner_and_its_win_probability(small_tables):
    # expected: the seat's answer (valid against seat_schema.json) carries the winner
    # agent's ranking and win_probability = its best action's win share
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
    from test_seat import check_response

    game1, table, _, cache = small_tables
    game = type(game1)(game1.rules, num_players=2)
    state = ScorecardState(cards=(Card(entries=(0, 6, 25, None, None)), Card(entries=(None, -6, 20, None, None))),
                           player=1, throw=1, dice=(2, 2, 2, 5, 6))
    seat = Seat(SeatOptions(cache_dir=cache))
    response = seat.handle({"id": 1, "method": "rank", "state": game.state_to_json(state), "agent": "winner"})
    check_response(response, "rank")
    result = response["result"]
    want = scorecard_target.rank_winner(game, table, state)
    assert result["value_name"] == "P(win)"
    assert result["win_probability"] == pytest.approx(want[0].value, abs=1e-12)
    assert [a["value"] for a in result["actions"]] == pytest.approx([d.value for d in want], abs=1e-12)
    plain = seat.handle({"id": 2, "method": "rank", "state": game.state_to_json(state), "agent": "target"})
    check_response(plain, "rank")
    assert "win_probability" not in plain["result"]
