"""Kocka solver (issue 8): single-turn EV / reach tables, two-player win probabilities,
ranking and hints.

Where the expected numbers come from:

* :class:`ReferenceTurn` below: a plain recursion over one turn written from RULES.md
  (KOCKA-8..19) on top of the engine's scoring functions, with every set-aside its own
  option (no grouping beyond equal options and rolls with equal options, no pruning, no
  Cython); the options of a roll,
  the series odds (expectimax through the engine) and P(the turn ends in a bank) come
  from tests/kocka_reference.py (``options_of_roll``, ``series_completion``,
  ``bank_chance``), the references of the win tables, which use no solver code either;
* one-roll Bellman checks through the engine itself (chance outcomes, legal actions and
  transitions of :class:`KockaGame`), with the table's values for the states reached;
* a brute-force Gauss-Seidel value iteration of small two-player variants (target 200 or
  300 via the rules parameters), with :class:`ReferenceTurn` as the turn evaluator;
* Pig (the same race machinery): tests/test_pig.py;
* Monte-Carlo play through the engine with the EV table's choices.
"""
from __future__ import annotations

import math
import random
from functools import lru_cache

import numpy as np
import pytest

from kocka_reference import bank_chance, options_of_roll, series_completion
from kocka.agents.advice.hint import render
from kocka.agents.advice.hint import hint as make_hint
from kocka.agents.advice.kocka import KockaHintParams
from kocka.solver.base.dice import outcome_distribution
from kocka.solver.base.errors import DiceError, InvalidStateError, RulesError, TableError
from kocka.solver.store import table_store
from kocka.solver.solvers.kocka.kocka_turn import UNIT, kocka_model, series_odds
from kocka.solver.solvers.kocka.prospects import action_prospects
from kocka.solver.solvers.kocka.race import race_turn_values, solve_race
from kocka.solver.solvers.kocka.ranking import rank, rank_by_turn_ev, rank_with_details
from kocka.solver.solvers.kocka.single_turn import turn_ev_values, turn_reach_values
from kocka.solver.solvers.kocka.tables import KOCKA_TURN_EV, KOCKA_TURN_REACH, KOCKA_WINPROB
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.store.table_store import build_table
from kocka.solver.rules.kocka import Bank, KockaGame, KockaState, Roll, SetAside, StartSeries
from kocka.solver.rules.kocka_scoring import NUM_DICE, KockaRules, scores, series_value, valid_set_asides


DEFAULT = KockaRules()
# non-default rule options (RULES.md section 6) exercised by the single-turn checks
OPTION_VARIANTS = [
    {},
    {"straight": "opening_roll_only"},
    {"series_start": "any_six_dice_roll"},
    {"series_from_full": "forbidden", "min_bank": "always"},
    {"end": "last_turn", "ones_series": "normal"},
]


def rules_with(**options) -> KockaRules:
    return KockaRules.from_options(options)


# ---------------------------------------------------------------------------------------
# Independent reference: one turn by plain recursion (series odds through the engine:
# kocka_reference.series_completion)
# ---------------------------------------------------------------------------------------
class ReferenceTurn:
    """One turn's values, straight from RULES.md with the engine's scoring functions.

    Turn totals ``t`` are in units of 50. ``bank(t)`` values a bank below ``cap``.
    Beyond the cap: ``"goal"`` (every bank is worth 1; a compulsory roll is worth
    P(the turn ends in a bank), solved here by iteration) or ``"ev"`` (bank: 50 t points;
    a compulsory roll: 0). Situations: ``opening``, ``on`` (rolling on), ``reroll`` (after
    a full roll), ``after_series`` (after a complete series), ``six_ones`` (KOCKA-19).
    """

    def __init__(self, rules: KockaRules, high: bool, bank, bust: float, cap: int, boundary: str) -> None:
        self.rules, self.high, self.bank, self.bust, self.cap, self.boundary = rules, high, bank, bust, cap, boundary
        minimum_applies = not high or rules.min_bank == "always"
        self.min_bank = rules.min_bank_points // UNIT if minimum_applies else 0
        self.series_on_reroll = high and rules.series_start == "any_six_dice_roll"
        self.memo: dict = {}
        self.beyond = beyond_cap_success(rules, high) if boundary == "goal" else None

    def _series_allowed(self, ctx: str) -> bool:
        return (ctx == "opening" and self.high) or (ctx == "reroll" and self.series_on_reroll)

    def _options(self, roll, ctx: str):
        return roll_options(self.rules, self.high, roll, ctx)

    def options_uncached(self, roll, ctx: str):
        """Each option as ("free", points, dice_left) | ("reroll", points) |
        ("series", points, q, ctx) (kocka_reference.options_of_roll) | ("win",) (KOCKA-19:
        a scoring re-roll after a series of 1s, valued as a bank); [] is a bust."""
        if ctx == "six_ones":
            return [("win",)] if scores(roll, self.rules) else []
        return options_of_roll(self.rules, roll, ctx == "opening", self._series_allowed(ctx))

    def beyond_cap_uncached(self) -> dict[str, float]:
        """P(the turn ends in a bank | a compulsory roll), when any bank is good enough
        (kocka_reference.bank_chance)."""
        return bank_chance({ctx: [(p, self._options(roll, ctx)) for roll, p in outcome_distribution(NUM_DICE)]
                            for ctx in ("reroll", "after_series", "six_ones")})

    def free(self, t: int, left: int) -> float:
        """After a non-full set-aside: bank (when allowed) or roll on (KOCKA-12, 13)."""
        if t >= self.cap:
            return 1.0 if self.boundary == "goal" else float(t * UNIT)
        value = self.roll(t, left, "on")
        if t >= self.min_bank:
            value = max(value, self.bank(t))
        return value

    def roll(self, t: int, n: int, ctx: str) -> float:
        if t >= self.cap:
            if self.boundary == "ev":
                return 0.0
            u = self.beyond[ctx]
            return u + (1 - u) * self.bust
        key = (t, n, ctx)
        if key not in self.memo:
            total = 0.0
            for p, options in roll_groups(self.rules, self.high, n, ctx):
                values = []
                for opt in options:
                    if opt[0] == "free":
                        values.append(self.free(t + opt[1], opt[2]))
                    elif opt[0] == "reroll":
                        values.append(self.roll(t + opt[1], NUM_DICE, "reroll"))
                    elif opt[0] == "series":
                        values.append(opt[2] * self.roll(t + opt[1], NUM_DICE, opt[3]) + (1 - opt[2]) * self.bust)
                    else:
                        values.append(self.bank(t) if t < self.cap else 1.0)
                total += p * (max(values) if values else self.bust)
            self.memo[key] = total
        return self.memo[key]

    def opening(self) -> float:
        return self.roll(0, NUM_DICE, "opening")


@lru_cache(maxsize=None)
def roll_options(rules: KockaRules, high: bool, roll, ctx: str):
    return ReferenceTurn(rules, high, None, 0.0, 0, "ev").options_uncached(roll, ctx)


@lru_cache(maxsize=None)
def roll_groups(rules: KockaRules, high: bool, n: int, ctx: str) -> list[tuple[float, tuple]]:
    """The rolls of n dice as (probability, options), rolls with the same options merged
    (which changes no value)."""
    merged: dict[tuple, float] = {}
    for roll, p in outcome_distribution(n):
        options = tuple(roll_options(rules, high, roll, ctx))
        merged[options] = merged.get(options, 0.0) + p
    return [(p, options) for options, p in merged.items()]


@lru_cache(maxsize=None)
def beyond_cap_success(rules: KockaRules, high: bool) -> dict[str, float]:
    return ReferenceTurn(rules, high, None, 0.0, 0, "ev").beyond_cap_uncached()


def model_slot(model, phase: int, n: int, ctx: str) -> int:
    """The kernel's slot for a reference situation (see KockaModel's kind keys)."""
    s = model.series_on_reroll(phase)
    tm = model.turn
    if ctx == "free":
        return tm.free_slot(model.keys[("roll", n, s)])
    if ctx == "on":
        return tm.roll_slot(model.keys[("roll", n, s)])
    if ctx == "reroll":
        return tm.roll_slot(model.keys[("six", s, s)])
    if ctx == "after_series":
        return tm.roll_slot(model.keys[("six", s, False)])
    raise ValueError(ctx)


# ---------------------------------------------------------------------------------------
# Series odds
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("face", [1, 4, 6])
def test_series_odds_match_engine_expectimax(face):
    # KOCKA-15/17/18, valued by expectimax over the engine's own series states
    odds = series_odds()
    for collected in range(1, NUM_DICE + 1):
        assert odds.after[(face, collected)] == pytest.approx(series_completion(DEFAULT, face, collected), abs=1e-12)


def test_joker_odds_by_hand():
    # KOCKA-18: the last die completes on f or the joker j: 2/6; without a joker 1/6
    odds = series_odds()
    assert odds.last_die[(3, 5)] == pytest.approx(2 / 6)
    assert odds.last_die[(3, None)] == pytest.approx(1 / 6)
    assert odds.after[(3, 5)] == pytest.approx(2 / 6)


# ---------------------------------------------------------------------------------------
# Single-turn tables against the reference recursion (exact, same cap)
# ---------------------------------------------------------------------------------------
EV_REFERENCE_CAP = 30  # 1500 points: the kernel and the reference share this cap


@pytest.mark.parametrize("options", OPTION_VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
@pytest.mark.parametrize("phase", [0, 1], ids=["below_2500", "2500+"])
def test_ev_table_equals_reference_recursion(options, phase):
    rules = rules_with(**options)
    model = kocka_model(rules)
    tv = turn_ev_values(model, phase, cap=EV_REFERENCE_CAP)
    ref = ReferenceTurn(rules, phase == 1, lambda t: float(t * UNIT), 0.0, EV_REFERENCE_CAP, "ev")
    assert tv.opening == pytest.approx(ref.opening(), rel=1e-12)
    for t in range(1, EV_REFERENCE_CAP):
        for n in range(1, NUM_DICE):
            assert tv.value(t, model_slot(model, phase, n, "free")) == pytest.approx(ref.free(t, n), rel=1e-12)
            assert tv.value(t, model_slot(model, phase, n, "on")) == pytest.approx(ref.roll(t, n, "on"), rel=1e-12)
        for ctx in ("reroll", "after_series"):
            assert tv.value(t, model_slot(model, phase, NUM_DICE, ctx)) == pytest.approx(ref.roll(t, NUM_DICE, ctx),
                                                                                         rel=1e-12)


@pytest.mark.parametrize("target_points", [50, 350, 1000, 2500])
@pytest.mark.parametrize("phase", [0, 1], ids=["below_2500", "2500+"])
def test_reach_table_equals_reference_recursion(phase, target_points):
    target = target_points // UNIT
    model = kocka_model(DEFAULT)
    tv = turn_reach_values(model, phase, target)
    ref = ReferenceTurn(DEFAULT, phase == 1, lambda t: float(t >= target), 0.0, max(target, tv.phase.min_bank), "goal")
    assert tv.opening == pytest.approx(ref.opening(), abs=1e-12)
    for t in range(1, tv.cap):
        for n in range(1, NUM_DICE):
            assert tv.value(t, model_slot(model, phase, n, "free")) == pytest.approx(ref.free(t, n), abs=1e-12)


def test_ev_cap_does_not_change_the_values():
    # The EV table banks at once from 100000 points on (EV_CAP_UNITS); doubling or
    # quadrupling the cap moves no value of a realistic turn total (below 10000 points).
    model = kocka_model(DEFAULT)
    for phase in (0, 1):
        base = turn_ev_values(model, phase)
        for cap in (2 * base.cap, 4 * base.cap):
            wider = turn_ev_values(model, phase, cap=cap)
            assert np.allclose(wider.val[:200], base.val[:200], rtol=1e-12, atol=0)


def test_ev_policy_banks_every_total_from_some_point_on():
    # The justification of the cap: past a modest total the EV policy banks whenever it
    # may (found in the table, then checked on every row up to the cap)
    model = kocka_model(DEFAULT)
    tm = model.turn
    for phase in (0, 1):
        tv = turn_ev_values(model, phase)
        for n in range(1, NUM_DICE):
            k = model.keys[("roll", n, False)]
            rolls_on = np.nonzero(tv.val[1:, tm.roll_slot(k)] > tv.val[1:, tm.bank_slot])[0] + 1
            assert rolls_on.max() * UNIT < 20000, (phase, n)


# ---------------------------------------------------------------------------------------
# Bellman equations through the engine
# ---------------------------------------------------------------------------------------
def engine_roll_value(game, model, phase, state, lookup, bank, bust) -> float:
    """Value of the roll due in ``state``, one roll deep through the engine; the states
    reached are valued by ``lookup(t_units, slot)`` (series: odds by engine expectimax)."""
    tm = model.turn
    s = model.series_on_reroll(phase)

    def completion_slot(face):
        return (tm.roll_slot(model.keys[("six_ones",)]) if face == 1 and game.rules.six_ones_win
                else tm.roll_slot(model.keys[("six", s, False)]))

    def after(st) -> float:
        t = st.turn_total // UNIT
        if st.stage == "bank_or_roll":
            return lookup(t, tm.free_slot(model.keys[("roll", st.dice_in_play, s)]))
        if st.series is None:  # the compulsory re-roll after a full roll
            return lookup(t, tm.roll_slot(model.keys[("six", s, s)]))
        face, collected = st.series
        if collected == NUM_DICE:
            return lookup(t, completion_slot(face))
        q = series_completion(game.rules, face, collected)
        return q * lookup(t + series_value(face) // UNIT, completion_slot(face)) + (1 - q) * bust

    total = 0.0
    for roll, p in game.chance_outcomes(state):
        nxt = game.apply(state, roll)
        if nxt.last_event == "bust":
            value = bust
        elif nxt.last_event == "six_ones":
            value = bank(state.turn_total // UNIT)
        else:
            value = max(after(game.apply(nxt, a)) for a in game.legal_actions(nxt))
        total += p * value
    return total


def roll_states(rules, phase, totals):
    banked = rules.series_threshold if phase == 1 else 0
    for t in totals:
        for n in range(1, NUM_DICE):
            yield n, KockaState(scores=(banked,), stage="roll", turn_total=t * UNIT, dice_in_play=n, last_event="roll_on")
        yield NUM_DICE, KockaState(scores=(banked,), stage="roll", turn_total=t * UNIT, last_event="full")


# Below 2500 only the straight option changes a turn: series and their options, min_bank =
# always and ones_series are rules of the 2500+ phase (KOCKA-13, 14, 19), and the end rule
# does not change one turn. The other variants' turns below 2500 are the default's, checked
# once (and against the reference recursion for every variant above).
BELLMAN_CASES = [(options, phase) for options in OPTION_VARIANTS for phase in (0, 1)
                 if phase == 1 or set(options) <= {"straight"}]


@pytest.mark.parametrize("options, phase", BELLMAN_CASES,
                         ids=[(",".join(f"{k}={v}" for k, v in o.items()) or "default") + f"-phase{p}"
                              for o, p in BELLMAN_CASES])
def test_ev_table_satisfies_bellman_through_the_engine(options, phase):
    rules = rules_with(**options)
    game = KockaGame(rules, num_players=1)
    model = kocka_model(rules)
    tv = turn_ev_values(model, phase)
    s = model.series_on_reroll(phase)
    for n, state in roll_states(rules, phase, (6, 24)):  # below the 350 minimum bank, and above
        slot = model_slot(model, phase, n, "on" if n < NUM_DICE else "reroll")
        expect = engine_roll_value(game, model, phase, state, tv.value, lambda t: t * UNIT, 0.0)
        assert tv.value(state.turn_total // UNIT, slot) == pytest.approx(expect, rel=1e-12), (phase, n, s)
    # the opening roll, series starts included
    opening = KockaState(scores=(rules.series_threshold if phase else 0,))
    expect = engine_roll_value(game, model, phase, opening, tv.value, lambda t: t * UNIT, 0.0)
    assert tv.opening == pytest.approx(expect, rel=1e-12)


def test_reach_table_satisfies_bellman_through_the_engine():
    game = KockaGame(DEFAULT, num_players=1)
    model = kocka_model(DEFAULT)
    target = 1450 // UNIT  # "I need 1450 to win"
    for phase in (0, 1):
        tv = turn_reach_values(model, phase, target)
        for n, state in roll_states(DEFAULT, phase, (6, 13, 28)):
            slot = model_slot(model, phase, n, "on" if n < NUM_DICE else "reroll")
            expect = engine_roll_value(game, model, phase, state, tv.value, lambda t: float(t >= target), 0.0)
            assert tv.value(state.turn_total // UNIT, slot) == pytest.approx(expect, abs=1e-12)


# ---------------------------------------------------------------------------------------
# Two-player race: small variants by brute-force value iteration (Pig: tests/test_pig.py)
# ---------------------------------------------------------------------------------------
SMALL_VARIANTS = [
    {"target": 200, "series_threshold": 100, "min_bank_points": 100},
    # a minimum bank larger than what some players still need (KOCKA-13 with min_bank=always)
    {"target": 250, "series_threshold": 100, "min_bank_points": 150, "straight": "opening_roll_only",
     "series_from_full": "forbidden", "min_bank": "always"},
]


def brute_force_race(rules: KockaRules) -> np.ndarray:
    """Gauss-Seidel value iteration of the two-player game over all score pairs, each
    turn evaluated by :class:`ReferenceTurn` (KOCKA-3: a bank reaching the target wins)."""
    goal = rules.target // UNIT
    threshold = rules.series_threshold // UNIT
    min_bank = rules.min_bank_points // UNIT
    W = np.full((goal, goal), 0.5)
    for sweep in range(200):
        delta = 0.0
        for a in range(goal - 1, -1, -1):
            for b in range(goal - 1, -1, -1):
                bank = (lambda a_, b_: lambda t: 1.0 if a_ + t >= goal else 1.0 - W[b_, a_ + t])(a, b)
                high = a >= threshold
                # the table of the turn must reach every total that may bank (KOCKA-13)
                cap = max(goal - a, min_bank if not high or rules.min_bank == "always" else 0)
                ref = ReferenceTurn(rules, high, bank, 1.0 - W[b, a], cap, "goal")
                new = ref.opening()
                delta = max(delta, abs(new - W[a, b]))
                W[a, b] = new
        if delta < 1e-13:
            return W
    raise AssertionError("value iteration did not converge")


@pytest.mark.parametrize("options", SMALL_VARIANTS, ids=["target200", "target250-options"])
def test_race_equals_brute_force_value_iteration(options):
    rules = rules_with(**options)
    model = kocka_model(rules)
    solution = solve_race(model.turn, model.goal)
    assert solution.unconverged == 0
    np.testing.assert_allclose(solution.win, brute_force_race(rules), atol=1e-10)


@pytest.fixture(scope="module")
def race_2000():
    """A two-player race to 2000 with series from 500 (the model, and its table solved on
    one thread), for the checks below that solve it another way."""
    model = kocka_model(rules_with(target=2000, series_threshold=500))
    return model, solve_race(model.turn, model.goal, threads=1).win


def test_race_threads_give_the_same_table(race_2000):
    model, one = race_2000
    two = solve_race(model.turn, model.goal, threads=2).win
    np.testing.assert_allclose(one, two, atol=1e-13)


@pytest.fixture(scope="module")
def winprob_table(shared_tables):
    # the default rules, not a small variant: the tests below read positions of the full
    # race (RULES.md 1.6 example 3 at 3000-3000, 8650 points, W[199, 0]); built once per
    # run (about 8 s) however the xdist workers share these tests out
    return shared_tables.table(KockaGame(DEFAULT, num_players=2), KOCKA_WINPROB)


@pytest.fixture(scope="module")
def ev_table():
    return build_table(KockaGame(DEFAULT, num_players=1), KOCKA_TURN_EV, BuildOptions(progress=False), save=False)


def test_winprob_table_satisfies_bellman_through_the_engine(winprob_table):
    # the turn of the player to move at (a, b), one roll deep through the engine, with
    # bank -> 1 - W(b, a + t) and bust -> 1 - W(b, a) from the table
    win = winprob_table["win"]
    model = kocka_model(DEFAULT)
    game = KockaGame(DEFAULT, num_players=1)
    goal = model.goal
    for a, b in [(0, 0), (10, 150), (60, 60), (120, 30), (190, 195)]:
        tv = race_turn_values(model.turn, win, a, b)
        assert tv.opening == pytest.approx(win[a, b], abs=1e-12)
        phase = model.turn.phase_index(a)
        bank = lambda t, a=a, b=b: 1.0 if a + t >= goal else 1.0 - win[b, a + t]  # noqa: E731
        for n, state in roll_states(DEFAULT, phase, (7, 15)):
            state = KockaState(**{**state.__dict__, "scores": (a * UNIT,)})
            slot = model_slot(model, phase, n, "on" if n < NUM_DICE else "reroll")
            expect = engine_roll_value(game, model, phase, state, tv.value, bank, 1.0 - win[b, a])
            assert tv.value(state.turn_total // UNIT, slot) == pytest.approx(expect, abs=1e-12), (a, b, n)


def test_winprob_table_facts(winprob_table):
    win = winprob_table["win"]
    # a player one bank from the target who may bank anything wins more often than not
    assert win[199, 0] > 0.9
    # KOCKA-3: the game is a race; the first player's advantage is small but positive
    assert 0.5 < win[0, 0] < 0.55
    assert KOCKA_WINPROB.check(KockaGame(DEFAULT, num_players=2), winprob_table) == []


def test_keeping_the_most_points_is_exact_for_two_players_under_immediate(race_2000):
    # the pruned model keeps, for each number of dice left, only the set-aside with the
    # most points; for two players under kocka.end = immediate more points never hurt, so
    # the race with every set-aside a choice (kocka_model(...).turn_full) is the same
    model, pruned = race_2000
    full = solve_race(model.turn_full, model.goal).win
    np.testing.assert_allclose(full, pruned, atol=1e-13, rtol=0)
    assert model.turn_full.entries_per_row["below 2500"] > model.turn.entries_per_row["below 2500"]
    assert model.turn_full.kind_names == model.turn.kind_names  # the same slots


# ---------------------------------------------------------------------------------------
# Monte-Carlo play through the engine with the EV table's choices
# ---------------------------------------------------------------------------------------
def play_one_turn(game, best_action, banked, rng) -> int:
    state = KockaState(scores=(banked,))
    while True:
        if game.is_chance_node(state):
            outcomes = game.chance_outcomes(state)
            roll = rng.choices([o for o, _ in outcomes], weights=[p for _, p in outcomes])[0]
            nxt = game.apply(state, roll)
            if nxt.last_event == "bust":
                return 0
            if nxt.last_event == "six_ones":
                return state.turn_total
            state = nxt
        else:
            action = best_action(state)
            if isinstance(action, Bank):
                return state.turn_total
            state = game.apply(state, action)


@pytest.mark.parametrize("phase", [0, 1], ids=["below_2500", "2500+"])
def test_monte_carlo_turns_match_the_ev_table(ev_table, phase):
    game = KockaGame(DEFAULT, num_players=1)
    rng = random.Random(20240 + phase)
    best_action = lru_cache(maxsize=None)(lambda s: rank(game, ev_table, s)[0].action)  # positions recur across turns
    points = [play_one_turn(game, best_action, 2500 * phase, rng) for _ in range(1500)]
    mean = sum(points) / len(points)
    se = math.sqrt(sum((x - mean) ** 2 for x in points) / (len(points) - 1) / len(points))
    expected = ev_table.meta.extra["expected_turn_points"]["2500+" if phase else "below_2500"]
    assert abs(mean - expected) < 4 * se, (mean, expected, se)


# ---------------------------------------------------------------------------------------
# Ranking and hints
# ---------------------------------------------------------------------------------------
def decision_state(scores_, total, roll):
    return KockaState(scores=scores_, stage="set_aside", turn_total=total, dice_in_play=len(roll),
                      roll=tuple(sorted(roll)), last_event="rolled")


def test_rank_lists_every_legal_action_best_first(winprob_table, ev_table):
    game = KockaGame(DEFAULT, num_players=2)
    state = decision_state((3000, 3000), 0, (1, 1, 1, 2, 5, 5))
    for table in (winprob_table, ev_table):
        decisions = rank(game, table, state)
        assert {d.action for d in decisions} == set(game.legal_actions(state))
        values = [d.value for d in decisions]
        assert values == sorted(values, reverse=True)
    # RULES.md 1.6 example 3 lists three choices; at 3000-3000 the cautious bank of 1100 is best
    best = rank(game, winprob_table, state)[0]
    assert best.action == SetAside((1, 1, 1, 5, 5)) and best.detail["then"] == "bank"
    assert StartSeries(1, 3) in {d.action for d in rank(game, winprob_table, state)}


def test_rank_values_match_the_tables(winprob_table, ev_table):
    # a bank's value is 1 - W(opponent, me + total); its EV is the total itself
    game = KockaGame(DEFAULT, num_players=2)
    state = KockaState(scores=(3000, 8650), stage="bank_or_roll", turn_total=1500, dice_in_play=2, last_event="set_aside")
    decisions = {type(d.action): d for d in rank(game, winprob_table, state)}
    win = winprob_table["win"]
    assert decisions[Bank].value == pytest.approx(1 - win[8650 // UNIT, (3000 + 1500) // UNIT])
    assert decisions[Bank].detail["ev"] == 1500
    assert set(decisions) == {Bank, Roll}


def test_rank_with_three_players_races_the_leader(winprob_table):
    # documented approximation: the leading opponent stands for all of them
    three = KockaGame(DEFAULT, num_players=3)
    two = KockaGame(DEFAULT, num_players=2)
    roll = (2, 3, 3, 4, 5, 6)
    r3 = rank(three, winprob_table, decision_state((1000, 4000, 7000), 0, roll))
    r2 = rank(two, winprob_table, decision_state((1000, 7000), 0, roll))
    assert [(d.action, d.value) for d in r3] == [(d.action, d.value) for d in r2]


def test_rank_needs_a_decision():
    game = KockaGame(DEFAULT, num_players=2)
    with pytest.raises(InvalidStateError, match="no decision to rank at stage 'roll'"):
        action_prospects(game, game.new_initial_state())


def test_hint_rankings_agree_with_rank(winprob_table, ev_table):
    # the hint's two rankings are rank's, with the turn EV computed instead of read, and
    # with P(banking the points still needed) as one more detail
    game = KockaGame(DEFAULT, num_players=2)
    state = decision_state((3000, 8650), 0, (1, 1, 1, 2, 5, 5))
    by_ev = rank_by_turn_ev(game, state)
    assert [(d.action, d.label) for d in by_ev] == [(d.action, d.label) for d in rank(game, ev_table, state)]
    assert [d.value for d in by_ev] == pytest.approx([d.value for d in rank(game, ev_table, state)], abs=1e-9)
    detailed = rank_with_details(game, winprob_table, state)
    plain = rank(game, winprob_table, state)
    assert [(d.action, d.value, d.detail["ev"]) for d in detailed] == [(d.action, d.value, d.detail["ev"]) for d in plain]
    # 7000 still needed: only the series of 1s (10000) can bank it this turn
    reach = {d.action: d.detail["reach_target"] for d in detailed}
    assert reach[StartSeries(1, 3)] > 0.05 and reach[SetAside((1, 1, 1, 5, 5))] < 1e-4
    with pytest.raises(TableError, match="needs a winprob table, got 'turn_ev'"):
        rank_with_details(game, ev_table, state)


def test_hint_ranks_the_issue_example(winprob_table, monkeypatch):
    monkeypatch.setattr(table_store, "get_table", lambda game, kind, *a, **k: winprob_table)
    game = KockaGame(DEFAULT, num_players=1)
    params = KockaHintParams(dice=(1, 1, 1, 5, 5, 2), score=3000, opponent=8650, turn_total=400, dice_left=6)
    report = make_hint(game, params)
    assert report.value_name == "P(win)"
    # a compulsory re-roll (turn total 400, six dice): every set-aside, no series
    assert len(report.decisions) == len(valid_set_asides((1, 1, 1, 2, 5, 5)))
    assert all(0 <= d.value <= 1 and "ev" in d.detail and "reach_target" in d.detail for d in report.decisions)
    text = render(report, top=0)
    line = next(line for line in text.splitlines() if "set aside 1 1 1 5 5 (+1100, 1 die left), then bank" in line)
    assert "1500.0000" in line  # the expected points of the turn, its own column (banking 400 + 1100)
    doc = report.to_json()
    assert doc["actions"][0]["loss"] == 0.0


def test_hint_without_scores_ranks_by_ev():
    game = KockaGame(DEFAULT, num_players=1)
    report = make_hint(game, KockaHintParams(dice=(2, 3, 3, 4, 5, 6)))
    # RULES.md 1.6 example 7: only the 5 scores (50); the player must roll five dice on
    assert report.value_name == "expected points this turn"
    assert [d.label for d in report.decisions] == ["set aside 5 (+50, 5 dice left), then roll on"]


@pytest.mark.parametrize("params, error, message", [
    (KockaHintParams(dice=(1, 2, 3), dice_left=4), DiceError, "--dice-left 4 must equal the number of dice rolled, got 1 2 3"),
    (KockaHintParams(), DiceError, "kocka hint needs --dice"),
    (KockaHintParams(dice=(1, 7, 3)), DiceError, r"the dice must be values from 1 to 6, not 1 7 3$"),
    (KockaHintParams(dice=(1, 1, 2, 3, 4, 5, 6)), DiceError, r"a roll is of 1 to 6 dice, not 7: 1 1 2 3 4 5 6$"),
])
def test_hint_input_errors(params, error, message):
    with pytest.raises(error, match=message):
        make_hint(KockaGame(DEFAULT, num_players=1), params)


def test_missing_winprob_table_names_the_build_command(tmp_path):
    game = KockaGame(DEFAULT, num_players=1)
    with pytest.raises(TableError, match="kocka-solve build kocka"):
        make_hint(game, KockaHintParams(dice=(1, 2, 2, 3, 4, 6), score=0, opponent=0, cache_dir=str(tmp_path)))


def test_turn_tables_build_and_check():
    game = KockaGame(DEFAULT, num_players=1)
    reach = build_table(game, KOCKA_TURN_REACH, BuildOptions(progress=False), save=False)
    assert reach["reach"].shape == (2, 200, 200, kocka_model(DEFAULT).turn.n_cols)
    # P(bank >= 50) = P(bank >= 350) below 2500: nothing smaller may be banked (KOCKA-13)
    assert reach["opening"][0, 0] == pytest.approx(reach["opening"][0, 6])
    # from 2500 only a complete series of 1s banks 10000 in one turn... or enough full rolls
    assert 0 < reach["opening"][1, 199] < 0.05
    assert KOCKA_TURN_REACH.check(game, reach) == []
    ev = build_table(game, KOCKA_TURN_EV, BuildOptions(progress=False), save=False)
    assert KOCKA_TURN_EV.check(game, ev) == []
