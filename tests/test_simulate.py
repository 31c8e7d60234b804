"""The simulation kernel (solver/kernels/_simulate.pyx, solver/solvers/scorecard/simulate.py)
plays the arena's own games: the same dice (ChanceSampler: derive_seed's BLAKE2b text,
Python's random.Random) and the same decisions (ranking.rank's first action, HU-2: up to
three throws, the best box or keep), so the final scores equal the engine loop's game by
game, and the arena's figures are the same with or without it.

Every expected value here comes from the Python side: hashlib and random.Random for the
dice, and the engine loop (arena.play_match with the `optimal` agent, which ranks each
position with ranking.rank) for the games. The levels (kocka.agents.bots.levels) likewise:
the engine loop with `level:N` (LevelAgent.choose: a softmax over ranking.rank's values, one
random.Random draw per decision) gives the expected games."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from kocka.agents.bots import levels
from kocka.agents.bots.base import ChanceSampler, derive_seed
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.frontends.games import arena
from kocka.agents.frontends.games.arena import final_scores, play_match, run_arena
from kocka.solver.base.decision import Decision
from kocka.solver.kernels import _simulate
from kocka.solver.rules import get_game
from kocka.solver.rules.scorecard import Card, ScorecardState
from kocka.solver.solvers.scorecard import simulate
from kocka.solver.store.table_store import solver_for

BUILD = AgentOptions(build_missing=True)  # into the session's own table cache (conftest)

# small cards of every scorecard game, with the rules that touch the policy: Yahtzee's
# bonus Yahtzees and joker (flag box, special outcomes), the forced joker, HU's house and
# first-throw-free scoring, SK's part order (SK-3) and first-throw doubling (SK-7), Yatzy's
# forced order
SMALL_VARIANTS = [
    ("yahtzee-bonus", "yahtzee", {"boxes": ("ones", "twos", "three_kind", "full_house", "yahtzee", "chance")}),
    ("yahtzee-forced-joker", "yahtzee", {"boxes": ("ones", "sixes", "small_straight", "yahtzee"), "joker": "forced"}),
    ("kockapoker", "kockapoker", {"boxes": ("ones", "twos", "chance", "pair", "full_house")}),
    ("slovak", "slovak", {"boxes": ("ones", "twos", "threes", "pair", "poker", "chance")}),
    ("yatzy-forced", "yatzy", {"boxes": ("ones", "fives", "pair", "yatzy", "chance"), "order": "forced"}),
]


def engine_scores(game, seeds, seat=0):
    """Seat ``seat``'s final score of each game played by the Python engine loop."""
    agents = [make_agent("optimal", game, 0, BUILD) for _ in range(game.num_players)]
    return np.array([final_scores(game, play_match(game, agents, ChanceSampler(int(s))))[seat] for s in seeds])


def game_seeds(count, seed=11):
    return np.array([derive_seed("game", seed, i) for i in range(count)], dtype=np.int64)


def kernel_of(game):
    return make_agent("optimal", game, 0, BUILD).simulator()


def level_agent(game, level, temperature=None):
    """``level:N`` of ``game``: the file's or the relative ladder's temperatures, or every
    level at the absolute ``temperature``."""
    if temperature is None:
        return make_agent(f"level:{level}", game, 0, BUILD)
    return levels.make_level_agent(f"level:{level}", game, 0, BUILD, levels.LevelTemperatures(
        game.NAME, {k: temperature for k in levels.LEVELS}, "absolute", calibrated=True))


def engine_level_scores(game, agent, seeds, agent_seeds):
    """The level's final score of each game played by the Python engine loop, reset with
    its agent seed as the arena resets it."""
    out = []
    for s, a in zip(seeds, agent_seeds):
        agent.reset(int(a))
        out.append(final_scores(game, play_match(game, [agent], ChanceSampler(int(s))))[0])
    return np.array(out)


# ----------------------------------------------------------------------------------------
# The dice
# ----------------------------------------------------------------------------------------
def test_roll_seeds_are_the_samplers():
    # expected: derive_seed (hashlib's BLAKE2b) of the key ChanceSampler gives the engine's
    # chance nodes (seat, boxes filled, throws made)
    game = get_game("yahtzee", num_players=4)
    empty = Card(entries=(None,) * game.num_boxes)
    card = Card(entries=(1,) * 7 + (None,) * (game.num_boxes - 7))
    nodes = [ScorecardState(cards=(empty,) * 4),
             ScorecardState(cards=(card,) * 3 + (empty,), player=3, throw=1, kept=(6,)),
             ScorecardState(cards=(card,) * 4, player=2, throw=2, kept=(2, 2))]
    for game_seed in (0, 1, 2**32 - 1, 2**32, 987654321987654321, 2**63 - 1):
        sampler = ChanceSampler(game_seed)
        for state in nodes:
            want = derive_seed("chance", game_seed, sampler.key(game, state, 0))
            filled = state.cards[state.player].filled_count
            assert _simulate.roll_seed(game_seed, state.player, filled, state.throw) == want


def test_lanes_draw_pythons_randint():
    # expected: random.Random(seed).randint(1, 6) for each of many generators seeded side
    # by side as a game's rolls are (one seed of one 32-bit word among them)
    rng = random.Random(8)
    seeds = [rng.getrandbits(63) for _ in range(40)] + [12345]
    want = [[python.randint(1, 6) for _ in range(650)] for python in map(random.Random, seeds)]
    assert _simulate.roll_dice_lanes(np.array(seeds, dtype=np.uint64), 650) == want


def test_dice_are_pythons_randint():
    # expected: random.Random(seed).randint(1, 6), 700 draws (past the generator's first
    # block of 624 words), for one- and two-word seeds
    rng = random.Random(5)
    for seed in [0, 1, 6, 2**32 - 1, 2**32, 2**63 - 1] + [rng.getrandbits(63) for _ in range(20)]:
        python = random.Random(seed)
        assert _simulate.roll_dice(seed, 700) == [python.randint(1, 6) for _ in range(700)]


# ----------------------------------------------------------------------------------------
# The games
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, options", [v[1:] for v in SMALL_VARIANTS], ids=[v[0] for v in SMALL_VARIANTS])
def test_small_cards_play_the_engines_games(name, options):
    # expected: the engine loop's final score, game by game
    game = get_game(name, options)
    seeds = game_seeds(60)
    got = kernel_of(game).scores(seeds, jobs=2)
    assert got.tolist() == engine_scores(game, seeds).tolist()


@pytest.fixture(scope="module")
def full_yahtzee(shared_tables):
    """The full Yahtzee card with its table in the session's cache, where the agents look:
    the run's shared table (tests/test_scorecard_solver.py's too, tests/conftest.py)."""
    game = get_game("yahtzee")
    shared_tables.install(game, solver_for("yahtzee"))
    return game


def test_full_yahtzee_plays_the_engines_games(full_yahtzee):
    # expected: the engine loop's final score, game by game, on the full card (13 turns)
    game = full_yahtzee
    seeds = game_seeds(12, seed=3)
    assert kernel_of(game).scores(seeds).tolist() == engine_scores(game, seeds).tolist()


def test_each_seat_plays_its_own_dice_at_a_table():
    # expected: the engine loop's score of every seat of a three-player game (the roll keys
    # name the seat, and `optimal` looks at its own card only)
    game = get_game("kockapoker", {"boxes": ("ones", "twos", "chance", "pair", "full_house")}, num_players=3)
    seeds = game_seeds(15)
    player = kernel_of(game)
    for seat in range(3):
        assert player.scores(seeds, seat).tolist() == engine_scores(game, seeds, seat).tolist()


def test_declaring_variant_has_no_kernel():
    # expected: None (SK-3's declaration splits a turn into box groups; the engine plays it)
    game = get_game("slovak", {"boxes": ("ones", "twos", "pair"), "part1_choice": "declare_after_first_throw"})
    assert kernel_of(game) is None


def test_bad_arguments_are_one_line_errors():
    game = get_game("yatzy", {"boxes": ("ones", "pair")})
    player = kernel_of(game)
    with pytest.raises(ValueError, match="non-negative"):
        player.scores(np.array([-1]))
    with pytest.raises(ValueError, match="seat must be 0..0"):
        player.scores(game_seeds(2), seat=1)
    with pytest.raises(ValueError, match="jobs"):
        player.scores(game_seeds(2), jobs=0)


# ----------------------------------------------------------------------------------------
# The levels
# ----------------------------------------------------------------------------------------
def test_a_levels_draws_are_pythons_random():
    # expected: random.Random(seed).random() (two words per draw, 53 bits), 400 draws (past
    # the first block of 624 words), from generators seeded side by side (a level's is
    # the last lane of its game)
    rng = random.Random(9)
    for own in [7, 2**32 - 1, 2**32, rng.getrandbits(63)]:
        seeds = np.array([rng.getrandbits(63) for _ in range(6)] + [own], dtype=np.uint64)
        python = random.Random(own)
        assert _simulate.roll_dice_lanes(seeds, 400, randoms=True)[-1] == [python.random() for _ in range(400)]


def _python_choice(values, temperature, relative, u):
    """The index LevelAgent.choose plays for the draw ``u`` (its probabilities, its loop)."""
    agent = levels.LevelAgent.__new__(levels.LevelAgent)
    agent.temperature = temperature
    agent.temperatures = levels.LevelTemperatures("x", {}, "relative" if relative else "absolute", False)
    agent.mixes_equilibrium = False
    probabilities = agent.probabilities([Decision(i, v, "") for i, v in enumerate(values)])
    cumulative = 0.0
    for i, p in enumerate(probabilities):
        cumulative += p
        if u < cumulative:
            return i
    return max(i for i, p in enumerate(probabilities) if p > 0)


def test_the_kernels_softmax_picks_the_levels_action():
    # expected: LevelAgent's own choice for the same values and draw, at absolute and
    # relative temperatures, uniform play (T None), ties and one action, and draws just
    # below 1 (where the sums' rounding decides)
    rng = random.Random(4)
    cases = [([5.0], 1.0, False), ([3.0, 3.0, 3.0], 0.5, True), ([10.0, 9.0, 9.0, 2.0], None, False)]
    for _case in range(300):
        n = rng.randint(1, 40)
        values = sorted((rng.choice([rng.uniform(150, 250), 200.0]) for _v in range(n)), reverse=True)
        cases.append((values, rng.choice([None, 0.01, 0.7, 3.0, 40.0]), rng.random() < 0.3))
    for values, temperature, relative in cases:
        for u in [rng.random() for _u in range(20)] + [0.0, 1 - 2**-53]:
            t = math.inf if temperature is None else temperature
            assert _simulate.level_choice(values, t, relative, u) == _python_choice(values, temperature, relative, u)


@pytest.mark.parametrize("name, options", [v[1:] for v in SMALL_VARIANTS], ids=[v[0] for v in SMALL_VARIANTS])
def test_small_cards_levels_play_the_engines_games(name, options):
    # expected: the engine loop's final score of the level, game by game: the relative
    # ladder (these variants have no calibrated entry), level 1 (uniform) and absolute
    # temperatures
    game = get_game(name, options)
    seeds = game_seeds(25)
    agent_seeds = game_seeds(25, seed=12)
    for agent in [level_agent(game, 1), level_agent(game, 3), level_agent(game, 7), level_agent(game, 5, 0.8)]:
        got = agent.simulator().scores(seeds, 0, 2, agent_seeds=agent_seeds)
        assert got.tolist() == engine_level_scores(game, agent, seeds, agent_seeds).tolist(), agent.description


def test_full_yahtzee_levels_play_the_engines_games(full_yahtzee):
    # expected: the engine loop's game by game on the full card, with the calibrated
    # temperatures of levels 2 and 6 (agents/bots/level_temperatures.json)
    game = full_yahtzee
    seeds, agent_seeds = game_seeds(6, seed=3), game_seeds(6, seed=30)
    for level in (2, 6):
        agent = level_agent(game, level)
        assert agent.calibrated
        got = agent.simulator().scores(seeds, 0, 1, agent_seeds=agent_seeds)
        assert got.tolist() == engine_level_scores(game, agent, seeds, agent_seeds).tolist()


def test_a_level_needs_its_seeds_and_the_top_level_is_the_table_agent():
    # expected: level 10 (temperature 0) plays optimal's games without any draw; a lower
    # level refuses to play without the agent seeds of its games
    game = get_game("yatzy", {"boxes": ("ones", "pair", "chance")})
    seeds = game_seeds(20)
    assert level_agent(game, 10).simulator().scores(seeds).tolist() == kernel_of(game).scores(seeds).tolist()
    with pytest.raises(levels.LevelError, match="agent seed"):
        level_agent(game, 4).simulator().scores(seeds)
    with pytest.raises(ValueError, match="agent seeds"):
        level_agent(game, 4).simulator().scores(seeds, agent_seeds=game_seeds(3))


# ----------------------------------------------------------------------------------------
# The arena
# ----------------------------------------------------------------------------------------
def _same_result(a, b):
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.wins, b.wins) and np.array_equal(a.seats, b.seats)
    assert [(s.mean, s.mean_ci, s.win_rate, s.win_ci) for s in a.summaries()] == \
           [(s.mean, s.mean_ci, s.win_rate, s.win_ci) for s in b.summaries()]


def test_arena_figures_equal_the_engine_loops(monkeypatch):
    # expected: run_arena through the engine loop (kernels=False): the same scores, wins,
    # means and intervals; and the kernel was used (the engine's chunks were not played)
    game = get_game("yahtzee", {"boxes": ("ones", "twos", "three_kind", "full_house", "yahtzee", "chance")})
    engine = run_arena(game, ["optimal", "optimal"], 40, seed=9, options=BUILD, kernels=False)
    monkeypatch.setattr(arena, "_play_chunk", lambda *a, **k: pytest.fail("the engine loop ran"))
    _same_result(run_arena(game, ["optimal", "optimal"], 40, seed=9, jobs=2, options=BUILD), engine)


def test_table_arena_figures_equal_the_engine_loops():
    # expected: the engine loop's results at one table, seats rotating (every seat optimal)
    game = get_game("kockapoker", {"boxes": ("ones", "twos", "chance", "pair", "full_house")})
    engine = run_arena(game, ["optimal", "optimal"], 21, seed=4, table=True, options=BUILD, kernels=False)
    _same_result(run_arena(game, ["optimal", "optimal"], 21, seed=4, table=True, options=BUILD), engine)


def test_arena_levels_equal_the_engine_loops(monkeypatch):
    # expected: run_arena through the engine loop (kernels=False), solitaire and at one
    # table, with two seats of the same level (each its own draws); the kernel was used
    game = get_game("kockapoker", {"boxes": ("ones", "twos", "chance", "pair", "full_house")})
    names = ["level:5", "optimal", "level:2", "level:5"]
    engine = run_arena(game, names, 30, seed=6, options=BUILD, kernels=False)
    table = run_arena(game, names[:3], 21, seed=6, table=True, options=BUILD, kernels=False)
    monkeypatch.setattr(arena, "_play_chunk", lambda *a, **k: pytest.fail("the engine loop ran"))
    _same_result(run_arena(game, names, 30, seed=6, jobs=2, options=BUILD), engine)
    _same_result(run_arena(game, names[:3], 21, seed=6, table=True, options=BUILD), table)
    assert not np.array_equal(engine.scores[:, 0], engine.scores[:, 3])  # two seats, two streams


def test_arena_uses_the_engine_when_a_seat_has_no_kernel(monkeypatch):
    # expected: random has no compiled player, so the engine loop plays every game
    game = get_game("yatzy", {"boxes": ("ones", "pair", "chance")})
    played = []
    original = arena._play_chunk
    monkeypatch.setattr(arena, "_play_chunk", lambda *a, **k: played.append(a[4:6]) or original(*a, **k))
    result = run_arena(game, ["optimal", "random"], 8, seed=1, options=BUILD)
    assert played and sum(hi - lo for lo, hi in played) == 8 and result.games == 8
    assert simulate.supports(game, make_agent("optimal", game, 0, BUILD).table)
