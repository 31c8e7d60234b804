"""Difficulty levels (kocka.agents.bots.levels): the error model, its limits, seeding,
and the names through the catalogue, the seat and the arena.

The table game is a tiny Yahtzee variant with the chance box alone (SC-* scoring, chance
= the sum of the dice), whose action values are known by hand (tests/test_seat.py):
with k throws left a die is worth E1 = 3.5, E2 = (4 + 5 + 6)/6 + 3/6 x 3.5 = 4.25 (a die
is kept at the last throw when it beats 3.5). After the first throw, keeping the dice S
is worth the sum over S of max(die, 3.5) (a kept die below 4 is thrown again at the last
throw: the player may throw any dice, SC rules) + (5 - |S|) x 4.25; writing chance now is
worth the sum of the dice.
"""
from __future__ import annotations

import collections
import itertools
import json
import math
import random

import pytest

from kocka.agents.bots import levels
from kocka.agents.bots.base import UnknownAgentError, positions_with_rng
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games.arena import run_arena
from kocka.solver.base.decision import Decision
from kocka.solver.rules import get_game

TINY_RULES = {"boxes": ["chance"]}
FIRST_THROW = (1, 2, 3, 4, 6)
E2 = 4.25


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny game, its table built once into a module folder, and its options."""
    options = AgentOptions(cache_dir=tmp_path_factory.mktemp("levels-tables"), build_missing=True)
    game = get_game("yahtzee", TINY_RULES)
    make_agent("optimal", game, 0, options)  # builds the table
    return game, AgentOptions(cache_dir=options.cache_dir)


def with_temperature(game, options, temperature, seed=0):
    return levels.make_level_agent("level:5", game, seed, options,
                                   levels.LevelTemperatures(game.NAME, {k: temperature for k in levels.LEVELS},
                                                            "absolute", calibrated=True))


def hand_value(action) -> float:
    """The value of an action after FIRST_THROW, from the formula in the module docstring."""
    kept = getattr(action, "dice", None)
    if kept is None:  # writing chance
        return float(sum(FIRST_THROW))
    return sum(max(die, 3.5) for die in kept) + (5 - len(kept)) * E2


def test_the_tiny_tables_values_are_the_hand_computed_ones(tiny):
    game, options = tiny
    state = game.apply(game.new_initial_state(), FIRST_THROW)
    for decision in make_agent("optimal", game, 0, options).rank(state):
        assert math.isclose(decision.value, hand_value(decision.action), abs_tol=1e-9), decision


def test_zero_temperature_plays_the_optimal_action_on_seeded_states(tiny):
    game, options = tiny
    optimal = make_agent("optimal", game, 0, options)
    top = make_agent("level:10", game, 7, options)
    cold = with_temperature(game, options, 1e-9, seed=7)  # the softmax path, not the T = 0 shortcut
    states = positions_with_rng(game, make_agent("random", game, 3).choose, random.Random(3), 60)
    for state in states:
        assert top.choose(state) == optimal.choose(state)
        best = optimal.rank(state)[0].value
        chosen = cold.choose(state)
        # equal best values may tie; the softmax then picks among them only
        assert next(d.value for d in optimal.rank(state) if d.action == chosen) == pytest.approx(best, abs=1e-12)


def test_a_very_high_temperature_plays_every_legal_action(tiny):
    game, options = tiny
    state = game.apply(game.new_initial_state(), FIRST_THROW)
    legal = game.legal_actions(state)
    hot = with_temperature(game, options, 1e9, seed=11)
    seen = collections.Counter(hot.choose(state) for _ in range(60 * len(legal)))
    assert set(seen) == set(legal)
    # uniform probabilities: 1/n each (the random agent's)
    assert all(math.isclose(p, 1 / len(legal), rel_tol=1e-6) for p in hot.probabilities(hot.base.rank(state)))


def test_errors_are_more_often_small_than_large(tiny):
    game, options = tiny
    state = game.apply(game.new_initial_state(), FIRST_THROW)
    temperature = 1.5
    agent = with_temperature(game, options, temperature, seed=5)
    draws = 6000
    counts = collections.Counter(agent.choose(state) for _ in range(draws))
    # group actions by hand value: P(value v) = (actions worth v) x exp((v - 23) / T) / Z
    by_value = collections.defaultdict(list)
    for action in game.legal_actions(state):
        by_value[hand_value(action)].append(action)
    best = max(by_value)  # keep the 6: 6 + 4 x 4.25 = 23
    assert best == 23.0
    z = sum(len(a) * math.exp((v - best) / temperature) for v, a in by_value.items())
    frequencies = {v: sum(counts[a] for a in acts) / draws / len(acts) for v, acts in by_value.items()}
    for v, acts in by_value.items():
        expected = math.exp((v - best) / temperature) / z
        assert frequencies[v] == pytest.approx(expected, abs=4 * math.sqrt(expected / draws / len(acts)) + 1e-4)
    # the per-action frequencies fall with the loss, among values 1.5 apart or more
    values = sorted(by_value, reverse=True)
    for better, worse in itertools.combinations(values, 2):
        if better - worse >= 1.5 and frequencies[better] > 0.002:
            assert frequencies[better] > frequencies[worse], (better, worse)


def test_softmax_probabilities_by_hand():
    # values 3, 2, 0 at T = 1: weights 1, e^-1, e^-3
    z = 1 + math.exp(-1) + math.exp(-3)
    assert levels.softmax_probabilities([3.0, 2.0, 0.0], 1.0) == pytest.approx([1 / z, math.exp(-1) / z, math.exp(-3) / z])
    assert levels.softmax_probabilities([1.0, 1.0, 0.0], 0.0) == [1.0, 0.0, 0.0]  # the first best: the ranking's tie-break
    assert levels.softmax_probabilities([5.0, 0.0], None) == [0.5, 0.5]


def test_the_bluff_mix_is_the_equilibrium_at_zero_and_uniform_at_infinity():
    decisions = [Decision("a", 1.0, detail={"P(chosen)": 0.25}), Decision("b", 1.0, detail={"P(chosen)": 0.75}),
                 Decision("c", -1.0, detail={"P(chosen)": 0.0})]
    assert levels.equilibrium_mix_probabilities(decisions, 0.0) == pytest.approx([0.25, 0.75, 0.0])
    assert levels.equilibrium_mix_probabilities(decisions, None) == pytest.approx([1 / 3] * 3)
    # T = 1: w = 1/2; softmax over 1, 1, -1 at T = 1: 1, 1, e^-2 over 2 + e^-2
    z = 2 + math.exp(-2)
    expected = [0.5 * 0.25 + 0.5 / z, 0.5 * 0.75 + 0.5 / z, 0.5 * math.exp(-2) / z]
    assert levels.equilibrium_mix_probabilities(decisions, 1.0) == pytest.approx(expected)


def test_the_relative_ladder_scales_with_the_values_spread(tiny):
    game, options = tiny
    agent = levels.make_level_agent("level:4", game, 0, options,
                                    levels.LevelTemperatures(game.NAME, levels.RELATIVE_LADDER, "relative", False))
    # level 4's multiple is 1: T = max - min = 23 - 16 (keep the 6 vs write chance)
    state = game.apply(game.new_initial_state(), FIRST_THROW)
    values = [d.value for d in agent.base.rank(state)]
    assert agent.effective_temperature(values) == pytest.approx(max(values) - min(values))
    assert max(values) - min(values) == pytest.approx(23.0 - 16.0)


def test_levels_are_reproducible_from_their_seed(tiny):
    game, options = tiny
    state = game.apply(game.new_initial_state(), FIRST_THROW)

    def choices(seed):
        agent = make_agent("level:3", game, 0, options)
        agent.reset(seed)
        return [agent.choose(state) for _ in range(40)]

    assert choices(4) == choices(4)
    assert choices(4) != choices(5)
    first = run_arena(game, ["level:2", "level:6"], 12, seed=9, options=options)
    again = run_arena(game, ["level:2", "level:6"], 12, seed=9, options=options, jobs=2)
    assert (first.scores == again.scores).all()


def test_level_names_resolve_through_the_catalogue(tiny):
    game, options = tiny
    agent = make_agent("level:7", game, 0, options)
    assert isinstance(agent, levels.LevelAgent) and agent.name == "level:7" and agent.label == "advanced"
    assert agent.value_name == make_agent("optimal", game, 0, options).value_name
    for bad in ("level:0", "level:11", "level:x", "level:", "level:03", "level:3.0"):
        with pytest.raises(UnknownAgentError, match="levels are level:1 ... level:10"):
            make_agent(bad, game, 0, options)


def test_a_game_without_a_table_agent_errs_around_its_heuristic():
    # the chip-bidding game (HU-10..HU-19) has no value table: its levels err around the
    # heuristic, calibrated (the stored entry) as multiples of each decision's spread
    game = get_game("kockapoker-bid")
    agent = make_agent("level:5", game, 0)
    assert agent.base.name == "heuristic" and agent.fallback_reason
    assert agent.calibrated and agent.temperatures.scale == "relative"
    assert agent.temperature == levels.calibration_entry(game)["temperatures"]["5"]
    assert all(level["calibrated"] for level in levels.describe_levels("kockapoker-bid"))
    # another variant (a stack of 5 chips, HU-10) has no entry: the uncalibrated relative ladder
    other = make_agent("level:5", get_game("kockapoker-bid", {"chips": "stack:5"}), 0)
    assert not other.calibrated and other.temperature == levels.RELATIVE_LADDER[5]


def _entry_file(tmp_path, monkeypatch, game, **fields):
    entry = {"game": game.NAME, "rules": levels.rules_key(game), "players": game.num_players,
             "temperatures": {str(k): (None if k == 1 else (0.0 if k == 10 else 3.0 / k)) for k in levels.LEVELS},
             **fields}
    path = tmp_path / f"temperatures-{len(fields)}-{fields.get('scale')}.json"
    path.write_text(json.dumps({"format": levels.TEMPERATURES_FORMAT, "games": [entry]}), encoding="utf-8")
    monkeypatch.setenv(levels.TEMPERATURES_ENV, str(path))
    return entry


def test_relative_temperatures_serve_the_heuristic_and_absolute_ones_do_not(tmp_path, monkeypatch):
    """A level around the heuristic reads a calibrated entry only where it says its
    temperatures are multiples of the spread ("scale": "relative"): the heuristic's
    priorities have no common unit, so absolute temperatures would mean nothing. The
    effective temperature is T x (max - min) of the values at the decision."""
    from kocka.agents.bots.levels import LevelError

    game = get_game("kockapoker-bid")
    _entry_file(tmp_path, monkeypatch, game, scale="relative")
    agent = make_agent("level:5", game, 0)
    assert agent.calibrated and agent.temperature == pytest.approx(0.6)
    assert agent.effective_temperature([3.0, 1.0, -2.0]) == pytest.approx(0.6 * 5.0)
    _entry_file(tmp_path, monkeypatch, game)  # no scale: absolute, not for the heuristic
    agent = make_agent("level:5", game, 0)
    assert not agent.calibrated and agent.temperature == levels.RELATIVE_LADDER[5]
    _entry_file(tmp_path, monkeypatch, game, scale="logarithmic")
    with pytest.raises(LevelError, match="scale must be one of absolute, relative, not 'logarithmic'"):
        make_agent("level:5", game, 0)


def test_a_missing_table_is_reported_not_replaced(tmp_path):
    from kocka.agents.bots.base import AgentUnavailable

    with pytest.raises(AgentUnavailable, match="errs around 'optimal'.*kocka-solve build"):
        make_agent("level:5", get_game("yahtzee", TINY_RULES), 0, AgentOptions(cache_dir=tmp_path))


def test_the_calibration_file_names_every_level_and_cools_with_the_level():
    doc = json.loads(levels.TEMPERATURES_FILE.read_text(encoding="utf-8"))
    assert doc["format"] == levels.TEMPERATURES_FORMAT
    for entry in doc["games"]:
        temperatures = [entry["temperatures"][str(k)] for k in levels.LEVELS]
        assert temperatures[0] is None and temperatures[-1] == 0.0  # uniform ... the table agent
        assert all(a >= b for a, b in zip(temperatures[1:], temperatures[2:])), entry["game"]
        game = get_game(entry["game"], entry["rules"], num_players=entry["players"] or 1)
        assert levels.level_temperatures(game).calibrated


def test_the_stored_ladders_are_monotone_with_disjoint_neighbours():
    # expected: issue 27's "done when", recomputed from each entry's stored 95% intervals:
    # the mean loss falls from level to level, and level k's interval lies wholly above
    # level k + 1's; the bluff games' losses are exact (no interval): they fall from level
    # to level, level 1 is the ladder's random loss and level 10 loses nothing
    doc = json.loads(levels.TEMPERATURES_FILE.read_text(encoding="utf-8"))
    for entry in doc["games"]:
        if "exact" in entry:
            for ladder in [entry["exact"]] + ([entry["exact_whole_round"]] if "exact_whole_round" in entry else []):
                loss = [ladder["loss"][str(k)] for k in levels.LEVELS]
                assert all(a > b for a, b in zip(loss, loss[1:])), entry["game"]
            exact = entry["exact"]["loss"]
            assert exact["1"] == entry["ladder"]["random_loss"] and abs(exact["10"]) < 1e-12, entry["game"]
            continue
        loss = [entry["measured"]["loss"][str(k)] for k in levels.LEVELS]
        assert all(a[0] > b[0] for a, b in zip(loss, loss[1:])), entry["game"]
        assert all(a[1] > b[2] for a, b in zip(loss, loss[1:])), entry["game"]


def test_the_seat_accepts_levels_and_hello_lists_them(tiny):
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions, describe_game

    game, options = tiny
    seat = Seat(SeatOptions(cache_dir=options.cache_dir))
    doc = game.state_to_json(game.apply(game.new_initial_state(), FIRST_THROW))
    picks = []
    for seed in (1, 1, 2):
        reply = json.loads(seat.handle_line(json.dumps(
            {"id": seed, "method": "choose", "state": doc, "agent": "level:2", "seed": seed})))
        assert reply["result"]["agent"] == "level:2", reply
        picks.append(json.dumps(reply["result"]["action"], sort_keys=True))
    assert picks[0] == picks[1]  # the same seed, the same choice
    ranked = json.loads(seat.handle_line(json.dumps({"id": 9, "method": "rank", "state": doc, "agent": "level:2"})))
    assert ranked["result"]["actions"], ranked
    listed = describe_game("yahtzee")["levels"]
    assert [level["name"] for level in listed] == [f"level:{k}" for k in range(1, 11)]
    assert listed[0]["label"] == "beginner" and listed[-1]["label"] == "expert"
    assert all(level["base"] == "optimal" for level in listed)


def test_a_bluff_level_mixes_the_equilibrium(liars_match_table):
    # liar's poker from 1 chip each with its match table (tests/conftest.py): level 10 plays
    # the equilibrium's own mix, level 1 uniform play, and a middle level the mix of both
    # with w = T / (1 + T) (the module docstring's rule, checked against its parts)
    game = get_game("liars-poker", {"start_chips": 1})
    state = game.apply(game.apply(game.new_round_state((1, 1)), (2, 5, 5)), (3, 6))
    top = make_agent("level:10", game, 0, AgentOptions())
    assert top.mixes_equilibrium and top.base.name == "equilibrium"
    ranked = top.base.rank(state)
    equilibrium = [d.detail["P(chosen)"] for d in ranked]
    assert top.probabilities(ranked) == pytest.approx([p / sum(equilibrium) for p in equilibrium])
    bottom = make_agent("level:1", game, 0, AgentOptions())
    assert bottom.probabilities(ranked) == pytest.approx([1 / len(ranked)] * len(ranked))
    middle = levels.make_level_agent("level:5", game, 0, AgentOptions(),
                                     levels.LevelTemperatures(game.NAME, {k: 0.25 for k in levels.LEVELS}, "absolute", True))
    w = 0.25 / 1.25
    softmax = levels.softmax_probabilities([d.value for d in ranked], 0.25)
    assert middle.probabilities(ranked) == pytest.approx(
        [(1 - w) * e / sum(equilibrium) + w * s for e, s in zip(equilibrium, softmax)])
    middle.reset(3)
    assert {middle.choose(state) for _ in range(200)} <= set(game.legal_actions(state))


def test_the_regret_estimator_is_unbiased_for_two_player_kocka(tmp_path):
    """LevelAgent.regret (the calibration's loss estimator for two-player Kocka,
    scripts/calibrate_levels.py REGRET_GAMES): `optimal`'s values are the mover's exact
    P(win) against `optimal`, a martingale under optimal play and the dice (KOCKA-1..12
    played to 1000, series from 500), which drops by exactly what the level gives up at
    each of its moves. So per game, regret − (V_seat − win share) has mean 0, where V_seat
    is the table's P(win) of the level's seat at the start (V_1 = 1 − V_0: a two-player race
    ends with one winner). Checked over 400 seeded games at a temperature that gives up
    about a quarter of a win: |mean| within 4.5 standard errors (about 0.13 here),
    while the loss itself is above 0.2, so a regret off by a factor of two, of the wrong
    sign, not summed or not reset per game fails."""
    import numpy as np

    from kocka.agents.bots.base import ChanceSampler, derive_seed
    from kocka.agents.frontends.games.arena import play_match, win_shares
    from kocka.solver.store.table_store import get_table

    game = get_game("kocka", {"target": 1000, "series_threshold": 500}, num_players=2)
    get_table(game, "winprob", tmp_path, build_missing=True, announce=lambda m: None)
    options = AgentOptions(cache_dir=tmp_path)
    first_seat_value = float(get_table(game, "winprob", tmp_path)["win"][0, 0])
    reference = make_agent("optimal", game, 0, options)
    level = with_temperature(game, options, 0.5)
    differences, losses = [], []
    for i in range(400):
        level.reset(derive_seed("agent", 5, i, 1))
        seat = i % 2
        state = play_match(game, [level, reference] if seat == 0 else [reference, level],
                           ChanceSampler(derive_seed("game", 5, i)))
        share = float(win_shares(np.asarray(game.returns(state), dtype=float))[seat])
        seat_value = first_seat_value if seat == 0 else 1.0 - first_seat_value
        differences.append(level.regret - (seat_value - share))
        losses.append(level.regret)
    differences = np.asarray(differences)
    standard_error = differences.std(ddof=1) / math.sqrt(len(differences))
    assert abs(differences.mean()) <= 4.5 * standard_error, (differences.mean(), standard_error)
    assert np.mean(losses) > 0.2, np.mean(losses)


def test_the_regret_estimator_is_unbiased_for_three_player_kocka(tmp_path):
    """The same for three players (REGRET_GAMES has ("kocka", 3)): `optimal` plays the
    three-player equilibrium table, whose values are the mover's P(win) with `optimal` in
    the other two seats (its mixed play included), a martingale under the table's play and
    the dice. Per game, regret − (V_seat − win share) has mean 0, V_seat the table's start
    value of the level's seat (the three add up to 1, `start` of the table; a level in seat
    s takes the table agents' turns around it). KOCKA-1..12 to 600, series from 300, bank
    from 150 (the three-player tests' SMALL rules; the table builds in a second or two);
    360 seeded games, the level's seat rotating over the three, at a temperature that gives
    up about a sixth of a win (0.17): |mean| within 4.5 standard errors (about 0.12), the
    loss above 0.1, so a regret off by a factor of two or of the wrong sign fails."""
    import numpy as np

    from kocka.agents.bots.base import ChanceSampler, derive_seed
    from kocka.agents.frontends.games.arena import play_match, win_shares
    from kocka.solver.store.table_store import get_table

    game = get_game("kocka", {"target": 600, "series_threshold": 300, "min_bank_points": 150}, num_players=3)
    table = get_table(game, "winprob3", tmp_path, build_missing=True, announce=lambda m: None)
    start = [float(v) for v in table.meta.extra["start"]]
    assert sum(start) == pytest.approx(1.0)
    options = AgentOptions(cache_dir=tmp_path)
    references = [make_agent("optimal", game, s, options) for s in range(2)]
    level = with_temperature(game, options, 0.5)
    differences, losses = [], []
    for i in range(360):
        level.reset(derive_seed("agent", 9, i, 0))
        for k, reference in enumerate(references, start=1):
            reference.reset(derive_seed("agent", 9, i, k))
        seat = i % 3
        others = iter(references)
        seats = [level if s == seat else next(others) for s in range(3)]
        state = play_match(game, seats, ChanceSampler(derive_seed("game", 9, i)))
        share = float(win_shares(np.asarray(game.returns(state), dtype=float))[seat])
        differences.append(level.regret - (start[seat] - share))
        losses.append(level.regret)
    differences = np.asarray(differences)
    standard_error = differences.std(ddof=1) / math.sqrt(len(differences))
    assert abs(differences.mean()) <= 4.5 * standard_error, (differences.mean(), standard_error)
    assert np.mean(losses) > 0.1, np.mean(losses)


def test_two_player_polish_basic_levels_err_around_the_race_table_and_its_regret_is_unbiased(tmp_path):
    """The basic Polish game with two players is a race (PL-7): its levels err around
    `winner` (the spec's ``level_base``), whose values are the mover's exact win share
    (P(win) + P(tie)/2) against `winner`; alone, around `optimal`. The race table's value
    is a martingale under `winner`'s play and the dice, so, as for Kocka above, per game
    regret − (V_seat − win share) has mean 0, V_0 the table's P(the first player wins) and
    V_1 = 1 − V_0 (the two shares add up to 1). A three-combination card (pair, small and
    large straight: its race table builds in well under a second); 300 seeded games at a
    temperature that gives up about a third of a win (0.37), |mean| within 4.5 standard
    errors (about 0.12), so a regret off by a factor of two or of the wrong sign fails."""
    import numpy as np

    from kocka.agents.bots.base import ChanceSampler, derive_seed
    from kocka.agents.frontends.games.arena import play_match, win_shares
    from kocka.solver.store.table_store import get_table

    rules = {"boxes": ("pair", "small_straight", "large_straight")}
    assert levels.base_agent_name(get_game("polish-basic", rules, num_players=1)) == "optimal"
    game = get_game("polish-basic", rules, num_players=2)
    assert levels.base_agent_name(game) == "winner"
    table = get_table(game, "race", tmp_path, build_missing=True, announce=lambda m: None)
    first_seat_value = float(table.meta.extra["p_first_player_wins"])
    options = AgentOptions(cache_dir=tmp_path)
    reference = make_agent("winner", game, 0, options)
    level = levels.make_level_agent("level:5", game, 0, options,
                                    levels.LevelTemperatures(game.NAME, {k: 0.05 for k in levels.LEVELS}, "absolute", True))
    assert level.fallback_reason == ""
    differences, losses = [], []
    for i in range(300):
        reference.reset(derive_seed("agent", 7, i, 0))
        level.reset(derive_seed("agent", 7, i, 1))
        seat = i % 2
        state = play_match(game, [level, reference] if seat == 0 else [reference, level],
                           ChanceSampler(derive_seed("game", 7, i)))
        share = float(win_shares(np.asarray(game.returns(state), dtype=float))[seat])
        seat_value = first_seat_value if seat == 0 else 1.0 - first_seat_value
        differences.append(level.regret - (seat_value - share))
        losses.append(level.regret)
    differences = np.asarray(differences)
    standard_error = differences.std(ddof=1) / math.sqrt(len(differences))
    assert abs(differences.mean()) <= 4.5 * standard_error, (differences.mean(), standard_error)
    assert np.mean(losses) > 0.25, np.mean(losses)


def test_the_regret_estimator_is_unbiased_for_the_full_polish_game(tmp_path):
    """The full Polish game alone (PL-1..PL-16; REGRET_GAMES has ("polish", 1), measured in
    points): `optimal`'s values are the exact expected game totals of the ``ev`` table, a
    martingale under optimal play and the dice, so per game regret − (V_start − final
    total) has mean 0, V_start the table's expected score of the empty card
    (``expected_score``). A two-stage card of chance, pair and small straight (its table
    builds in well under a second); 120 seeded games at T = 2 points, which gives up
    about 23 points a game: |mean| within 4.5 standard errors (about 3.5 points), so a
    regret off by a factor of two, of the wrong sign or not reset per game fails."""
    import numpy as np

    from kocka.agents.bots.base import ChanceSampler, derive_seed
    from kocka.agents.frontends.games.arena import final_scores, play_match
    from kocka.solver.store.table_store import get_table

    game = get_game("polish", {"boxes": "chance,pair,small_straight", "stages": "2"}, num_players=1)
    table = get_table(game, "ev", tmp_path, build_missing=True, announce=lambda m: None)
    start_value = float(table.meta.extra["expected_score"])
    level = levels.make_level_agent("level:5", game, 0, AgentOptions(cache_dir=tmp_path),
                                    levels.LevelTemperatures(game.NAME, {k: 2.0 for k in levels.LEVELS}, "absolute", True))
    differences, losses = [], []
    for i in range(120):
        level.reset(derive_seed("agent", 3, i, 1))
        state = play_match(game, [level], ChanceSampler(derive_seed("game", 3, i)))
        differences.append(level.regret - (start_value - final_scores(game, state)[0]))
        losses.append(level.regret)
    differences = np.asarray(differences)
    standard_error = differences.std(ddof=1) / math.sqrt(len(differences))
    assert abs(differences.mean()) <= 4.5 * standard_error, (differences.mean(), standard_error)
    assert np.mean(losses) > 15, np.mean(losses)


def test_an_entry_fitted_to_one_table_kind_serves_only_a_base_playing_from_it(tmp_path):
    """Three-player Kocka's temperatures were fitted to the exact three-player table's values
    (the entry's "table": "winprob3"); without that table `optimal` races the leader from the
    two-player table, and its levels must then say they are uncalibrated. Checked on the
    600-point rules (their tables build in a second or two): with only the two-player table
    the level falls back to the relative ladder, with the three-player table it uses the
    entry's temperatures; an entry that names no table serves either."""
    import json

    from kocka.solver.store.table_store import get_table

    rules = {"target": 600, "series_threshold": 300, "min_bank_points": 150}
    game = get_game("kocka", rules, num_players=3)
    get_table(get_game("kocka", rules, num_players=2), "winprob", tmp_path, build_missing=True, announce=lambda m: None)
    entry = {"game": "kocka", "rules": levels.rules_key(game), "players": 3, "base": "optimal", "table": "winprob3",
             "temperatures": {str(k): (None if k == 1 else 0.0 if k == 10 else 0.001 * k) for k in levels.LEVELS}}
    path = tmp_path / "temperatures.json"
    path.write_text(json.dumps({"format": levels.TEMPERATURES_FORMAT, "games": [entry]}), encoding="utf-8")
    options = AgentOptions(cache_dir=tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(levels.TEMPERATURES_ENV, str(path))
        levels._load_entries.cache_clear()
        racing = make_agent("level:5", game, 0, options)
        assert racing.base.table.meta.kind == "winprob" and not racing.calibrated
        get_table(game, "winprob3", tmp_path, build_missing=True, announce=lambda m: None)
        exact = make_agent("level:5", game, 0, options)
        assert exact.base.table.meta.kind == "winprob3" and exact.calibrated and exact.temperature == 0.005
        assert levels.calibrated_for(levels.LevelTemperatures("kocka", {}, "absolute", True, {"values": None}), racing.base)
    levels._load_entries.cache_clear()


def test_the_paired_loss_of_the_chip_game_is_zero_game_by_game_for_the_heuristic_itself():
    """The calibration's ``paired`` estimator (scripts/calibrate_levels.py, games without
    a regret: the chip-bidding game): a level's loss in game i is the heuristic's own
    result in the level's seat of the same game (same seeds) minus the level's. At T = 0
    the level is the heuristic, so every game's loss is exactly 0 (a difference of two
    separately seeded games would not be); uniform play (T = infinity) gives chips away
    (the heuristic never raises without a 20-point lead, HU-12, so a random raiser pays)."""
    import numpy as np

    from script_modules import script_module

    script = script_module("calibrate_levels")
    game = get_game("kockapoker-bid", num_players=2)
    assert script.loss_estimator(game, "chips") == "paired"
    assert script.temperature_scale(levels.base_agent_name(game)) == "relative"
    args = (game.NAME, game.rules.options(), 2, "chips", "heuristic")
    reference = script._losses_chunk(*args, "reference", 11, 0, 12, None, None, "paired", "relative")
    at_zero = script._losses_chunk(*args, 0.0, 11, 0, 12, None, reference, "paired", "relative")
    assert at_zero == [0.0] * 12
    uniform = script._losses_chunk(*args, None, 11, 0, 12, None, reference, "paired", "relative")
    assert np.mean(uniform) > 0 and any(x != 0 for x in uniform)


def test_four_player_kocka_levels_say_their_loss_is_the_stand_ins():
    """Kocka with four players has no exact table here: its levels are calibrated on the
    regret by the three-player stand-in's values (scripts/calibrate_levels.py,
    STAND_IN_REGRET_GAMES), and the stored entry must say that its loss is not the exact
    four-player P(win); two and three players keep the exact regret."""
    from script_modules import script_module

    calibrate = script_module("calibrate_levels")
    kinds = {n: calibrate.regret_kind(get_game("kocka", None, num_players=n)) for n in (2, 3, 4, 6)}
    assert kinds == {2: "exact", 3: "exact", 4: "stand-in", 6: "stand-in"}
    four = get_game("kocka", None, num_players=4)
    assert calibrate.loss_estimator(four, "win") == "regret"
    entry = levels.calibration_entry(four)
    assert entry is not None and entry["table"] == "winprob3"
    assert "not the exact 4-player P(win)" in entry["loss"] == calibrate.loss_text(four, "win", "optimal", 4)
