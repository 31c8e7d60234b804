"""The exact loss of a bluff game's difficulty level (agents/bots/level_loss.py), the measure
scripts/calibrate_levels.py calibrates the bluff games' ladders on, checked on two-player
Abázs (BLUFF-3, BLUFF-5, BLUFF-7..BLUFF-10; the default rules, whose equilibrium table the
run builds once, tests/conftest.py) against a reference written here.

The reference shares no code with the module's walks (best_response.py's
``BestResponseWalk``, abazs.py's ``match_value``): a plain recursion over the engine's
round, one *stage* ("seat X rolls and must beat claim s") at a time, remembered on (X, s)
only, which is enough because an accepted claimant's dice are never looked at again
(abazs.py's module docstring) and every policy here reads the state's standing claim, the
claim it beat and the roller's own dice. It gives, per seat the player sits in, his chips
from the round and his chance to start the next one (BLUFF-10); his average chips per
round in the match are then the two-state chain's stationary mix of the two starts'
chips (P(he starts) = b_R / (1 - b_S + b_R) with b_S, b_R his chance to start the next
round after a round he started, after one he did not) -- the textbook average reward, not
the bias equations ``match_value`` solves.
"""
from __future__ import annotations

import json

import pytest

from kocka.agents.bots import levels
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.bots.level_loss import BluffLevelLoss
from kocka.solver.rules import CHANCE, get_game
from kocka.solver.solvers.bluff import abazs as bluff_abazs


@pytest.fixture(scope="module")
def abazs(abazs_equilibrium_table):
    game = get_game("abazs", None, num_players=2)
    options = AgentOptions(cache_dir=abazs_equilibrium_table.path.parent)
    return game, options, abazs_equilibrium_table, BluffLevelLoss(game, options)


def stage_values(walk, policies, player):
    """(player's chips, P(player starts the next round)) of one round from 10 chips each,
    seat 0 starting, seat s playing ``policies[s](state) -> {action: probability}``."""
    remembered = {}

    def outcome(state):  # the round is over: chips moved, and who starts next
        moved = state.chips[player] - state.initial[player]
        return moved, 1.0 if state.active == player else 0.0

    def stage(state):  # the roller's dice are about to be rolled over the standing claim
        key = (state.active, state.standing)
        if key not in remembered:
            chips = starts = 0.0
            for dice, p in walk.chance_outcomes(state):
                rolled = walk.apply(state, dice)
                for claim, q in policies[rolled.active](rolled).items():
                    claimed = walk.apply(rolled, claim)
                    for answer, r in policies[walk.current_player(claimed)](claimed).items():
                        after = walk.apply(claimed, answer)
                        c, s = outcome(after) if after.rounds >= 1 else stage(after)
                        chips, starts = chips + p * q * r * c, starts + p * q * r * s
            remembered[key] = (chips, starts)
        return remembered[key]

    start = walk.new_round_state((10, 10), starter=0)
    assert walk.current_player(start) == CHANCE
    return stage(start)


def match_gain(walk, mine, theirs):
    """The average chips per round of the seat playing ``mine`` in the match against
    ``theirs`` (module docstring: the stationary mix of his two starts)."""
    a_s, b_s = stage_values(walk, [mine, theirs], 0)
    a_r, b_r = stage_values(walk, [theirs, mine], 1)
    starts = b_r / (1 - b_s + b_r)
    return starts * a_s + (1 - starts) * a_r


def equilibrium_policy(game, table):
    # the match plan straight from the table, as the equilibrium agent draws it
    plan = bluff_abazs.table_policy(table, game.rules.ranking)
    return lambda state: {a: p for a, p in plan(state, state.previous).items() if p > 0}


def test_a_middle_level_loses_what_the_stage_recursion_says(abazs):
    game, options, table, measure = abazs
    level = levels.make_level_agent("level:5", game, 0, options,
                                    levels.LevelTemperatures(game.NAME, {k: 0.5 for k in levels.LEVELS}, "absolute", True))
    chosen = {}

    def plays(state):  # asked once per what the level reads: its dice and the claim to beat, or the claims
        seen = (state.standing, tuple(sorted(state.dice))) if state.phase == "claim" else (state.standing, state.previous)
        if seen not in chosen:
            chosen[seen] = {d.action: d.detail["P(level)"] for d in level.rank(state) if d.detail["P(level)"] > 0}
        return chosen[seen]

    expected = -match_gain(bluff_abazs.walk_game(game.rules), plays, equilibrium_policy(game, table))
    assert measure.loss(level) == pytest.approx(expected, abs=1e-12)
    assert 0.05 < expected < 0.5  # a real loss, not a level that plays the equilibrium


def test_level_1_loses_what_uniform_play_loses_and_level_10_nothing(abazs):
    game, options, table, measure = abazs
    walk = bluff_abazs.walk_game(game.rules)
    uniform = lambda state: {a: 1 / len(walk.legal_actions(state)) for a in walk.legal_actions(state)}
    expected = -match_gain(walk, uniform, equilibrium_policy(game, table))
    bottom, top = make_agent("level:1", game, 0, options), make_agent("level:10", game, 0, options)
    assert measure.losses([bottom, top]) == pytest.approx([expected, 0.0], abs=1e-12)
    assert expected > 0.5  # uniform claims and answers give away most of a chip per round


def test_temperatures_fitted_to_chips_do_not_serve_the_match_plan(liars_match_table, tmp_path, monkeypatch):
    # liar's poker from 1 chip each with its match table (tests/conftest.py): the equilibrium
    # agent plays the match plan, valued in P(win), so an entry fitted to the round plan's
    # chips (as scripts/calibrate_levels.py writes the bluff games' entries) is not its
    # calibration: the level falls back to the relative ladder and says so
    from kocka.solver.solvers.bluff.liars import LiarsPlan

    game = get_game("liars-poker", {"start_chips": 1})
    match_values = make_agent("equilibrium", game, 0, AgentOptions()).value_name
    assert match_values != LiarsPlan.value_name
    for values, calibrated in ((LiarsPlan.value_name, False), (match_values, True)):
        file = tmp_path / f"{calibrated}.json"
        file.write_text(json.dumps({"format": levels.TEMPERATURES_FORMAT, "games": [{
            "game": game.NAME, "rules": levels.rules_key(game), "players": 2, "values": values,
            "temperatures": {str(k): t for k, t in zip(levels.LEVELS, [None, 8, 4, 2, 1, 0.8, 0.6, 0.4, 0.2, 0])}}]}))
        monkeypatch.setenv(levels.TEMPERATURES_ENV, str(file))
        level = make_agent("level:5", game, 0, AgentOptions())
        assert level.calibrated is calibrated
        assert level.temperature == (1 if calibrated else levels.RELATIVE_LADDER[5])
