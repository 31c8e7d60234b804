"""Two-player Kocka under every end rule (issue 17): ``kocka.end = last_turn`` and
``finish_round`` (KOCKA-20), with ``kocka.ones_series`` (KOCKA-19).

Where the expected numbers come from:

* :mod:`kocka_reference` (tests/kocka_reference.py): the last turn and the whole game by
  plain value iteration, written from RULES.md on the engine's scoring functions, every
  set-aside its own option; small variants (targets 600 and 1000) to 1e-10;
* the ``turn_reach`` tables: the last turn must end above the leader, so its P(win) lies
  between P(bank > d) and the mean of P(bank >= d) and P(bank > d) (a tie is half a win);
* hand facts from RULES.md (who moves when, ties shared, six 1s);
* Monte-Carlo of the table's play through the rules engine (a 99.9 % interval).
"""
from __future__ import annotations

import math
import os
import random
from functools import lru_cache

import numpy as np
import pytest

from kocka_reference import batch_turn, value_iteration
from kocka.agents.bots.base import play_with_rng
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import TableError
from kocka.solver.solvers.kocka.end_race import (
    LEAD_UNITS, end_race_turn_values, final_turn_table, final_turn_values, solve_race_ends,
)
from kocka.solver.solvers.kocka.kocka_turn import UNIT, kocka_model
from kocka.solver.solvers.kocka.ranking import rank, win_turn_values
from kocka.solver.solvers.kocka.single_turn import turn_reach_values
from kocka.solver.solvers.kocka.tables import KOCKA_WINPROB
from kocka.solver.store.table_store import build_table
from kocka.solver.rules.kocka import Bank, KockaGame, KockaState, SetAside
from kocka.solver.rules.kocka_scoring import KockaRules

SMALL = {"target": 600, "series_threshold": 300, "min_bank_points": 150}
END_VARIANTS = [
    {"end": "last_turn"},
    {"end": "last_turn", "ones_series": "normal"},
    {"end": "finish_round"},
    {"end": "finish_round", "ones_series": "normal", "min_bank": "always"},
]
IDS = ["last_turn", "last_turn-ones_normal", "finish_round", "finish_round-ones_normal-min_bank_always"]


def reference_final(rules: KockaRules, rows: int) -> np.ndarray:
    """F[p, d]: the last turn of a player in phase p who must end more than d units above
    his score (a tie is half a win, KOCKA-20; six 1s win at once under instant_win)."""
    out = np.zeros((2, rows))
    d = np.arange(rows)
    for p in (0, 1):
        turn = batch_turn(rules, p == 1)
        bank = lambda t: ((t > d) + 0.5 * (t == d))[None, :]  # noqa: E731
        cap = np.maximum(d + 1, max(turn.min_bank, 1))
        out[p] = turn.evaluate(bank, np.zeros((1, rows)), cap, np.ones((1, rows)), np.ones((1, rows)))[0]
    return out


def reference_race(rules: KockaRules, lead: int) -> tuple[np.ndarray, np.ndarray]:
    """Value iteration of the whole two-player game under ``rules.end``: ``(W0, W1)``,
    ``W_s[a, b]`` = P(seat s, to move with a against b, wins). A bank reaching the target
    gives the other a last turn (both seats under last_turn, only the first seat under
    finish_round: the second seat's bank completes the round and wins), worth
    1 - F[phase of the other, lead]; banks are followed up to target + ``lead`` units."""
    goal = rules.target // UNIT
    thr = rules.series_threshold // UNIT
    top = goal + lead
    F = reference_final(rules, top + 1)
    turns = [batch_turn(rules, False), batch_turn(rules, True)]
    a, b = (v.ravel() for v in np.meshgrid(np.arange(goal), np.arange(goal), indexing="ij"))
    leads = (True, rules.end == "last_turn")

    seats = (0,) if rules.end == "last_turn" else (0, 1)  # under last_turn the seats are alike

    def step(W: np.ndarray) -> np.ndarray:
        new = np.empty_like(W)
        for seat in seats:
            nxt = W[1 - seat] if len(seats) == 2 else W[0]
            for p in (0, 1):
                sel = (a >= thr) == (p == 1)
                aa, bb = a[sel], b[sel]
                pb = (bb >= thr).astype(int)
                cap = np.maximum(top - aa if leads[seat] else goal - aa, turns[p].min_bank)

                def bank(t, aa=aa, bb=bb, pb=pb, nxt=nxt, seat=seat):
                    score = aa + t
                    beyond = 1 - F[pb, np.clip(score - bb, 0, top)] if leads[seat] else np.ones(len(aa))
                    return np.where(score < goal, 1 - nxt[bb, np.minimum(score, goal - 1)], beyond)[None, :]

                top_value = (1 - F[pb, top - bb]) if leads[seat] else np.ones(len(aa))
                ones = np.ones((1, len(aa)))
                new[seat][aa, bb] = turns[p].evaluate(bank, (1 - nxt[bb, aa])[None, :], cap, top_value[None, :], ones)[0]
        return new

    W, _ = value_iteration(step, np.full((len(seats), goal, goal), 0.5), tol=1e-14)
    return W[0], W[-1]


@pytest.mark.parametrize("options", END_VARIANTS, ids=IDS)
def test_last_turn_equals_reference(options):
    # the last turn alone (KOCKA-20), every lead up to past the target
    rules = KockaRules.from_options({**SMALL, **options})
    model = kocka_model(rules)
    rows = model.goal + 20
    np.testing.assert_allclose(final_turn_table(model, rows), reference_final(rules, rows), atol=1e-12)


@pytest.mark.parametrize("options", END_VARIANTS, ids=IDS)
def test_race_equals_plain_value_iteration(options):
    rules = KockaRules.from_options({**SMALL, **options})
    # a short lead keeps the reference small; it must let a leader build enough of a lead:
    # with 8 units (400 points) both players near the target prefer busting to crossing,
    # and value iteration crawls (the solver's Newton steps do not care)
    lead = 12
    sol = solve_race_ends(kocka_model(rules), lead=lead)
    assert sol.unconverged == 0
    W0, W1 = reference_race(rules, lead)
    np.testing.assert_allclose(sol.win, W0, atol=1e-10)
    np.testing.assert_allclose(sol.win_second, W1, atol=1e-10)
    if rules.end == "last_turn":
        assert sol.win_second is sol.win  # the seats are alike


@pytest.mark.skipif(not os.environ.get("KOCKA_SLOW"), reason="about a minute; KOCKA_SLOW=1 runs it")
@pytest.mark.parametrize("options", END_VARIANTS[::2], ids=IDS[::2])
def test_race_equals_plain_value_iteration_target_1000(options):
    rules = KockaRules.from_options({"target": 1000, "series_threshold": 500, "min_bank_points": 150, **options})
    sol = solve_race_ends(kocka_model(rules), lead=12)
    W0, W1 = reference_race(rules, 12)
    np.testing.assert_allclose(sol.win, W0, atol=1e-10)
    np.testing.assert_allclose(sol.win_second, W1, atol=1e-10)


def test_last_turn_lies_between_the_reach_probabilities():
    # The last turn must end above the leader: P(win) = P(> d) + P(= d) / 2 (KOCKA-20)
    # under its own best play, so P(bank > d) <= P(win) <= (P(bank >= d) + P(bank > d)) / 2,
    # both from the turn_reach tables (d below 10000 points: six 1s reach that anyway).
    model = kocka_model(KockaRules(end="last_turn"))
    for p in (0, 1):
        for d in (1, 6, 7, 19, 40, 120, 199):
            F = final_turn_values(model, p, d).opening
            above = turn_reach_values(model, p, d + 1).opening
            level_or_above = turn_reach_values(model, p, d).opening
            assert above - 1e-12 <= F <= (above + level_or_above) / 2 + 1e-12, (p, d)
    # below 2500 a bank needs 350 (KOCKA-13): needing 50 or 300 more is the same turn
    assert final_turn_values(model, 0, 1).opening == pytest.approx(final_turn_values(model, 0, 6).opening)


NEAR_TOP = KockaRules(end="last_turn", target=3000)  # the top of the default game: both players 2500+


@pytest.fixture(scope="module")
def near_top():
    return solve_race_ends(kocka_model(NEAR_TOP), threads=1)  # one thread inside an xdist worker


def test_crossing_with_a_tiny_lead_is_worse_than_staying_below(near_top):
    # The example (at 9900 against 9950; here 100 and 50 below a 3000 target, both
    # 2500+ as there): banking 50 (to 50 below, the game goes on) beats banking 100 (to the
    # target: the opponent's last turn needs only 100 to win and 50 to tie) by a wide margin.
    model, sol = kocka_model(NEAR_TOP), near_top
    goal = model.goal
    tv = end_race_turn_values(model, sol.win, sol.win_second, sol.final, 0, goal - 2, goal - 1)
    staying, crossing = tv.value(1, model.turn.bank_slot), tv.value(2, model.turn.bank_slot)
    assert staying == pytest.approx(1 - sol.win[goal - 1, goal - 1]) and crossing == pytest.approx(1 - sol.final[1, 1])
    assert staying > crossing + 0.3
    # So the smaller set-aside must stay a choice: 250 below with 150 aside, rolling 1 2 5,
    # the 5 alone (then bank, 50 below) beats the 1 (then roll on, as banking at the target
    # is poor), which keeping only the most points for two dice left would have chosen.
    game = KockaGame(NEAR_TOP, num_players=2)
    at = NEAR_TOP.target
    ranked = rank(game, _table(NEAR_TOP, sol), game.position((at - 250, at - 50), turn_total=150, roll=(1, 2, 5)))
    assert ranked[0].action == SetAside((5,)) and ranked[0].detail["then"] == "bank"
    assert ranked[0].value == pytest.approx(staying)
    assert {d.action: d.value for d in ranked}[SetAside((1,))] < ranked[0].value - 0.01


def _table(rules, sol):
    arrays = {"win": sol.win, "final": sol.final}
    if rules.end == "finish_round":
        arrays["win_second"] = sol.win_second
    from kocka.solver.base.table_file import Table, TableMeta  # noqa: PLC0415 (test helper)
    return Table(arrays=arrays, meta=TableMeta(game="kocka", kind="winprob", variant_id=rules.variant_id(),
                                               rules=rules.options(), extra={"players": 2, "lead_units": sol.lead}))


def test_doubling_the_lead_followed_moves_no_value():
    # banks are followed exactly up to target + LEAD_UNITS; beyond, every bank counts as
    # the last one followed. Doubling that lead must not move any value.
    rules = KockaRules.from_options({**SMALL, "end": "last_turn"})
    model = kocka_model(rules)
    base = solve_race_ends(model, lead=LEAD_UNITS)
    wide = solve_race_ends(model, lead=2 * LEAD_UNITS)
    np.testing.assert_allclose(wide.win, base.win, atol=1e-13, rtol=0)


@pytest.mark.parametrize("options", END_VARIANTS, ids=IDS)
def test_winprob_table_builds_and_checks_under_every_end_rule(options):
    rules = KockaRules.from_options({**SMALL, **options})
    game = KockaGame(rules, num_players=2)
    table = build_table(game, KOCKA_WINPROB, BuildOptions(progress=False), save=False)
    assert set(table.arrays) == ({"win", "final", "win_second"} if rules.end == "finish_round" else {"win", "final"})
    assert KOCKA_WINPROB.check(game, table) == []
    layout = KOCKA_WINPROB.layout(game, table.meta)
    assert {k: v[0] for k, v in layout.items()} == {k: a.shape for k, a in table.arrays.items()}
    win = table["win"]
    assert np.all((win >= 0) & (win <= 1))


def test_finish_round_favours_the_second_seat():
    # KOCKA-20 finish_round: the first seat's bank at the target gives the second seat a
    # last turn; the second seat's bank there ends the game at once. So the second seat
    # to move at equal scores wins more often than the first, and his bank reaching the
    # target is worth 1 (a win) while the first seat's is worth 1 - F.
    rules = KockaRules.from_options({**SMALL, "end": "finish_round"})
    model = kocka_model(rules)
    sol = solve_race_ends(model)
    goal = model.goal
    assert np.all(sol.win_second.diagonal() > sol.win.diagonal())
    first = end_race_turn_values(model, sol.win, sol.win_second, sol.final, 0, goal - 2, goal - 3)
    second = end_race_turn_values(model, sol.win, sol.win_second, sol.final, 1, goal - 2, goal - 3)
    bank = model.turn.bank_slot
    assert second.value(4, bank) == 1.0
    assert first.value(4, bank) == pytest.approx(1 - sol.final[1, goal + 2 - (goal - 3)])
    # under last_turn both seats are the first seat
    last = solve_race_ends(kocka_model(KockaRules.from_options({**SMALL, "end": "last_turn"})))
    assert last.win_second is last.win


def test_rank_plays_the_last_turn_to_beat_the_leader(near_top):
    # a last turn (reached_by set): a bank ending above the leader wins (1), level is half
    # a win (KOCKA-20); the turn's value is the last-turn table's
    game = KockaGame(NEAR_TOP, num_players=2)
    table = _table(NEAR_TOP, near_top)
    for total, expect in ((1050, 1.0), (1000, 0.5)):
        state = KockaState(scores=(3400, 2400), player=1, stage="bank_or_roll", turn_total=total, dice_in_play=2,
                           reached_by=0, final_turns=1, last_event="set_aside")
        values = {type(d.action): d.value for d in rank(game, table, state)}
        assert values[Bank] == pytest.approx(expect)
    state = KockaState(scores=(3400, 2400), player=1, reached_by=0, final_turns=1, last_event="bank")
    tv = win_turn_values(game, table, state)
    assert tv.opening == pytest.approx(table["final"][0, (3400 - 2400) // UNIT])


def test_monte_carlo_of_the_exact_policies_through_the_engine():
    # both seats play the table's choices through the rules engine (every roll, bust, last
    # turn and tie as KockaGame applies it); seat 1's share of wins (ties count half) must
    # lie within the 99.9 % interval of W(0, 0): +-0.05 over 1000 games at W = 0.58, so
    # seats swapped (0.42) or a policy a tenth of a win off fail it
    rules = KockaRules.from_options({**SMALL, "end": "last_turn"})
    game = KockaGame(rules, num_players=2)
    table = _table(rules, solve_race_ends(kocka_model(rules)))
    rng = random.Random(17)
    games = 1000
    share = 0.0
    best_action = lru_cache(maxsize=None)(lambda s: rank(game, table, s)[0].action)  # positions recur across games
    for _ in range(games):
        share += game.returns(play_with_rng(game, best_action, rng))[0]
    p = float(table["win"][0, 0])
    half_width = 3.29 * math.sqrt(p * (1 - p) / games)
    assert abs(share / games - p) < half_width, (share / games, p, half_width)


def test_a_table_for_other_players_is_refused():
    from kocka.solver.solvers.kocka.tables import KOCKA_WINPROB3  # noqa: PLC0415 (the test's second solver)
    rules = KockaRules.from_options(SMALL)
    table = build_table(KockaGame(rules, num_players=2), KOCKA_WINPROB, BuildOptions(progress=False), save=False)
    with pytest.raises(TableError, match="the winprob3 table is for 2 players, this one is for 3"):
        KOCKA_WINPROB3.layout(KockaGame(rules, num_players=3), table.meta)
