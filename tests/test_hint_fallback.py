"""Every game always gets a hint (issue 26): the stand-ins of :mod:`kocka.agents.bots.fallback`.

* Kocka with three or more players without the exact three-player table (``winprob3``):
  the hint, agent ``optimal`` and the companion race the player against the leading
  opponent from the two-player table (``winprob``), and say so in the player's language.
* A scorecard game's play-to-win hint without the target table ranks by points and says
  what playing to win needs.

Where the expected numbers come from:

* the two-player race, computed apart from the three-player position: the same roll in a
  two-player game of the player against the leader alone, ranked from the two-player
  table; and a bank read straight off the table: banking ``t`` at ``a`` hands the turn to
  the leader at ``b``, so P(win) = 1 - W[b, a + t] (KOCKA-3, KOCKA-9; ``W[x, y]`` is the
  chance of the player to move at x against y, in units of 50 points);
* the scorecard fallback: the expected-score table's own ranking of the same position.

Small variants (Kocka to 600 as in tests/test_kocka_three.py; a three-box kockapóker card
as in tests/test_table.py): every table builds in well under a second, into ``tmp_path``.
"""
from __future__ import annotations

import pytest

from kocka.agents.advice.cards import ScorecardHintParams
from kocka.agents.advice.hint import hint
from kocka.agents.advice.kocka import KockaHintParams
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.bots.fallback import LEADER_RACE, TWO_LEADERS
from kocka.agents.frontends.games.companion import TableSession
from kocka.solver.base.i18n import use_language
from kocka.solver.rules.kocka import Bank, KockaGame
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.rules.scorecard import Card, ScorecardState
from kocka.solver.solvers.kocka.kocka_turn import UNIT
from kocka.solver.solvers.kocka.ranking import rank as kocka_rank
from kocka.solver.solvers.scorecard import values as scorecard_values
from kocka.solver.store.table_store import game_from_cli, get_table

SMALL = KockaRules(target=600, series_threshold=300, min_bank_points=150)
RULES_CLI = ("target=600", "series_threshold=300", "min_bank_points=150")


def quiet(_message: str) -> None:
    """Table builds say nothing in the tests."""


def two_player_table(cache, rules=SMALL):
    return get_table(KockaGame(rules, num_players=2), "winprob", cache, build_missing=True, announce=quiet)


def test_three_players_without_the_three_player_table_race_the_leader(tmp_path):
    table = two_player_table(tmp_path)
    # opponents 250 (next) and 450 (after him): the leader is the second, player 3
    params = KockaHintParams(dice=(1, 5, 2, 3, 4, 6), score=100, opponents=(250, 450), cache_dir=str(tmp_path))
    with use_language("en"):
        report = hint(KockaGame(SMALL, num_players=3), params)
    assert report.value_name == "P(win)"
    assert report.notes[0] == ("no exact three-player table here: this hint plays the race against the leader, "
                               "player 3 (450); for the exact hint, build it once: kocka-solve build kocka --kind "
                               "winprob3 -r target=600 -r series_threshold=300 -r min_bank_points=150 --cache-dir "
                               f"{tmp_path}")
    # the same roll in the two-player race of the player against the leader alone
    race = KockaGame(SMALL, num_players=2)
    alone = kocka_rank(race, table, race.position((100, 450), roll=(1, 5, 2, 3, 4, 6)))
    assert [d.action for d in report.decisions] == [d.action for d in alone]
    assert [d.value for d in report.decisions] == pytest.approx([d.value for d in alone], abs=1e-12)
    # and not the race against the next player (250): the leader is the one raced
    next_one = kocka_rank(race, table, race.position((100, 250), roll=(1, 5, 2, 3, 4, 6)))
    assert [d.value for d in next_one] != pytest.approx([d.value for d in alone], abs=1e-6)


def test_a_bank_in_the_leader_race_is_read_off_the_two_player_table(tmp_path):
    table = two_player_table(tmp_path)
    # 100 banked, 200 set aside, 4 dice left; opponents 450 (next) and 250: bank at 300,
    # then the leader moves at 450 against 300: P(win) = 1 - W[450/50, 300/50]
    params = KockaHintParams(score=100, opponents=(450, 250), turn_total=200, dice_left=4, cache_dir=str(tmp_path))
    report = hint(KockaGame(SMALL, num_players=3), params)
    bank = next(d for d in report.decisions if isinstance(d.action, Bank))
    assert bank.value == pytest.approx(1.0 - table["win"][450 // UNIT, 300 // UNIT], abs=1e-12)


def test_the_agent_optimal_stands_in_with_the_leader_race(tmp_path):
    two_player_table(tmp_path)
    game = KockaGame(SMALL, num_players=3)
    options = AgentOptions(cache_dir=str(tmp_path))
    optimal = make_agent("optimal", game, options=options)
    assert optimal.stand_in.method == LEADER_RACE and optimal.stand_in.exact_exists
    leader = make_agent("leader", game, options=options)  # the two-player table against the leading opponent
    state = game.position((100, 250, 450), roll=(1, 1, 5, 2, 3, 4))
    assert [(d.action, d.value) for d in optimal.rank(state)] == [(d.action, d.value) for d in leader.rank(state)]
    assert optimal.choose(state) == leader.choose(state)


def test_with_the_three_player_table_there_is_no_fallback_line(tmp_path):
    get_table(KockaGame(SMALL, num_players=3), "winprob3", tmp_path, build_missing=True, announce=quiet)
    params = KockaHintParams(dice=(1, 5, 2, 3, 4, 6), score=100, opponents=(250, 450), cache_dir=str(tmp_path))
    with use_language("en"):
        report = hint(KockaGame(SMALL, num_players=3), params)
    assert "exact three-player table" in report.notes[0] and not report.notes[0].startswith("no exact")
    assert not any("race against the leader" in note for note in report.notes)
    assert make_agent("optimal", KockaGame(SMALL, num_players=3), options=AgentOptions(cache_dir=str(tmp_path))).stand_in is None
    # four players with the three-player table but not the four-player one (never built on demand):
    # the two leaders stand for all, and the line names the four-player build
    params = KockaHintParams(dice=(1, 5, 2, 3, 4, 6), score=100, opponents=(250, 150, 450), cache_dir=str(tmp_path))
    with use_language("en"):
        report = hint(KockaGame(SMALL, num_players=4), params)
    assert report.notes[0].startswith("the exact four-player table is not built here (at the usual target it is a "
                                      "cluster's work: kocka-solve build kocka --kind winprob4")
    assert report.notes[0].endswith("this hint plays the three-player table against the two leading opponents, "
                                    "player 2 (250) and player 4 (450)")
    # five players: no exact table exists for five at all
    params = KockaHintParams(dice=(1, 5, 2, 3, 4, 6), score=100, opponents=(250, 150, 450, 50), cache_dir=str(tmp_path))
    with use_language("en"):
        report = hint(KockaGame(SMALL, num_players=5), params)
    assert report.notes[0] == ("there is no exact table for 5 players: this hint plays the three-player table "
                               "against the two leading opponents, player 2 (250) and player 4 (450)")


def test_four_players_without_the_three_player_table(tmp_path):
    two_player_table(tmp_path)
    params = KockaHintParams(dice=(1, 5, 2, 3, 4, 6), score=100, opponents=(250, 150, 450), cache_dir=str(tmp_path))
    with use_language("en"):
        report = hint(KockaGame(SMALL, num_players=4), params)
    assert report.notes[0].startswith("the exact four-player table and the three-player table are not built here: "
                                      "this hint plays the race against the "
                                      "leader, player 4 (450); for a closer one (against the two leading opponents), "
                                      "build the three-player table once: kocka-solve build kocka --kind winprob3")
    with use_language("hu"):
        hu = hint(KockaGame(SMALL, num_players=4), params).notes[0]
    assert "4. játékos (450)" in hu and "kocka-solve build kocka --kind winprob3" in hu and "race" not in hu


def test_three_players_under_an_end_rule_no_three_player_table_covers(tmp_path):
    rules = KockaRules(target=600, series_threshold=300, min_bank_points=150, end="last_turn")
    two_player_table(tmp_path, rules)
    params = KockaHintParams(dice=(1, 5, 2, 3, 4, 6), score=100, opponents=(450, 250), cache_dir=str(tmp_path))
    with use_language("en"):
        report = hint(KockaGame(rules, num_players=3), params)
    assert report.notes[0] == ("there is no exact table for 3 players under this end rule: this hint plays the "
                               "race against the leader, player 2 (450)")


def test_the_companion_names_the_leader(tmp_path):
    two_player_table(tmp_path)
    session = TableSession.start("kocka", ["Anna", "Béla", "me"], tmp_path / "game.json", RULES_CLI,
                                 AgentOptions(cache_dir=str(tmp_path)))
    assert session.judge is not None and session.judge.stand_in.method == LEADER_RACE
    # Anna sets aside 1 5 from 1 2 3 4 4 5 and banks 150 (KOCKA-5: 1 = 100, 5 = 50); Béla
    # throws 2 2 3 3 4 6, no scoring die: a bust (KOCKA-9); me to choose from 1 2 3 4 6 6
    for line in ("1 5 2 3 4 4", "take 1 5", "bank", "2 3 4 6 2 3", "1 2 3 4 6 6"):
        session.handle(line)
    with use_language("en"):
        text = session.hint_text()
    assert "this hint plays the race against the leader, Anna (150)" in text
    with use_language("hu"):
        text = session.hint_text()
    assert "Anna (150)" in text and "kocka-solve build kocka --kind winprob3" in text


def test_a_scorecard_play_to_win_hint_without_the_target_table_ranks_by_points(tmp_path):
    game = game_from_cli("kockapoker", ["boxes=sixes,chance,pair"], 2)
    table = get_table(game, cache_dir=tmp_path, build_missing=True, announce=quiet)  # the expected-score table only
    params = ScorecardHintParams(dice=(6, 6, 1, 2, 3), roll=1, target=20, cache_dir=str(tmp_path))
    with use_language("en"):
        report = hint(game, params)
    state = ScorecardState(cards=(Card((None,) * 3),) * 2, throw=1, dice=(1, 2, 3, 6, 6))
    ranked = scorecard_values.rank(game, table, state)
    assert report.value_name == scorecard_values.VALUE_NAME
    assert [(d.action, d.value) for d in report.decisions] == [(d.action, d.value) for d in ranked]
    assert report.notes[0] == ("no target table here, so these moves are ranked by points (the expected final "
                               "score), not by the chance of winning; to play to win, build the target table once: "
                               f"kocka-solve build kockapoker --kind target -r boxes=sixes,chance,pair --cache-dir {tmp_path}")


def test_the_seat_ranks_and_chooses_with_the_stand_in_and_says_so(tmp_path):
    import json  # noqa: PLC0415 (this test alone speaks the seat's JSON)

    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions  # noqa: PLC0415

    table = two_player_table(tmp_path)
    game = KockaGame(SMALL, num_players=3)
    state = game.position((100, 250, 450), roll=(1, 1, 5, 2, 3, 4))
    seat = Seat(SeatOptions(cache_dir=tmp_path))
    request = {"id": 1, "method": "rank", "state": game.state_to_json(state), "agent": "optimal", "lang": "en"}
    answer = json.loads(seat.handle_line(json.dumps(request)))["result"]
    assert answer["note"].startswith("no exact three-player table here: this hint plays the race against the leader, "
                                     "player 3 (450)")
    race = KockaGame(SMALL, num_players=2)  # the same roll against the leader alone
    alone = kocka_rank(race, table, race.position((100, 450), roll=(1, 1, 5, 2, 3, 4)))
    assert [a["value"] for a in answer["actions"]] == pytest.approx([d.value for d in alone], abs=1e-12)
    hu = json.loads(seat.handle_line(json.dumps({**request, "lang": "hu"})))["result"]["note"]
    assert hu.startswith("itt nincs pontos háromszemélyes tábla") and "3. játékos (450)" in hu
    chosen = json.loads(seat.handle_line(json.dumps({**request, "method": "choose"})))["result"]
    assert chosen["action"] == answer["actions"][0]["action"]
