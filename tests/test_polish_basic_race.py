"""The two-player race of the Polish basic game (kocka.solver.solvers.polish.race) against an exact
enumeration written here, over the rules engine's own states.

The enumeration shares no code with the solver: it lists every turn-start position of a
two-combination card (both players' records, who moves), reads every legal action, every
record's points and every successor from the engine (``PolishBasicGame`` hooks), the
keep transitions from the engine's chance outcomes (tests/polish_reference.py, shared with
the solitaire expectimax), and the end of the game and its returns from the engine (PL-5, PL-7). It then iterates the turn values (value iteration:
a turn without a record hands the same position to the other player, PL-5) until nothing
moves, each player maximising his win share (P(win) + P(tie) / 2), one pair of positions
with the same records at a time, the fullest cards first.
"""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner

from polish_reference import EngineThrows
from kocka.agents.frontends.games.arena import run_arena
from kocka.agents.frontends.commands.kocka_cli import main as kocka_main
from kocka.agents.advice.cards import PolishBasicHintParams, polish_hint
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.bots.base import AgentUnavailable
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import InvalidStateError
from kocka.solver.kernels import _polish_race
from kocka.solver.solvers.polish.race import (
    POLISH_BASIC_RACE, build_race_arrays, last_turn_value, mover_value, race_model, rank,
)
from kocka.solver.solvers.polish.values import POLISH_BASIC_EV
from kocka.agents.frontends.commands.solve_cli import main as solve_main
from kocka.solver.store.table_store import build_table
from kocka.solver.rules.base import TERMINAL
from kocka.solver.rules.polish import EndTurn, Keep, PolishBasicGame, PolishBasicState, Record
from kocka.solver.rules.polish_scoring import PolishBasicRules

QUIET = BuildOptions(progress=False)
CARD = ("small_straight", "large_straight")
"""Two combinations with two values each (15/30 and 20/40 from hand, PL-3, PL-6): few
positions, so the enumeration below stays small."""


class Enumeration(EngineThrows):
    """Every turn-start position of the two-player game and its exact win share for the
    player to move, by value iteration over the engine's turns (numpy over the engine's
    keep transitions, :class:`~polish_reference.EngineThrows`, so that a sweep is quick)."""

    def __init__(self, game: PolishBasicGame) -> None:
        super().__init__(game)
        self.game = game
        start = game.new_initial_state()
        # every entry a combination can hold, from the engine's records of every outcome
        values = [set() for _ in game.rules.boxes]
        for dice in self.outcomes:
            for throws in (1, 2):
                s = PolishBasicState(player=0, records=start.records, throws=throws, dice=dice)
                for a in game._legal_actions(s):
                    if isinstance(a, Record):
                        b = game.rules.boxes.index(a.combo)
                        values[b].add(game._apply(s, a).records[0][b])
        rows = list(itertools.product(*[[None, *sorted(v)] for v in values]))
        positions = [PolishBasicState(player=p, records=(r0, r1)) for r0 in rows for r1 in rows for p in (0, 1)]
        self.positions = [s for s in positions if self._legal(s) and game.current_player(s) != TERMINAL]
        self.slot = {s: i for i, s in enumerate(self.positions)}
        self.value = np.full(len(self.positions), 0.5)
        self.turns = [self._turn_ends(s) for s in self.positions]

    def _legal(self, state) -> bool:
        try:
            self.game.check_state(state)
        except InvalidStateError:
            return False
        return True

    def end_of(self, seat, after):
        """("final", win share) for a finished game, else ("state", successor)."""
        if self.game.current_player(after) == TERMINAL:
            returns = self.game.returns(after)
            mine, other = returns[seat], returns[1 - seat]
            return ("final", 1.0 if mine > other else 0.5 if mine == other else 0.0)
        return ("state", after)

    def _turn_ends(self, state):
        """Per throw t = 1, 2, 3: the ends of the turn the engine allows on each outcome
        (records and ending without one), flattened: outcome segments, final shares,
        successor slots (-1: final) and whether the successor is the other player's."""
        seat, per_throw = state.player, []
        for t in (1, 2, 3):
            starts, finals, slots, flips = [], [], [], []
            for dice in self.outcomes:
                starts.append(len(finals))
                s = PolishBasicState(player=seat, records=state.records, throws=t, dice=dice)
                for a in self.game._legal_actions(s):
                    if isinstance(a, Keep):
                        continue
                    kind, what = self.end_of(seat, self.game._apply(s, a))
                    finals.append(what if kind == "final" else 0.0)
                    slots.append(-1 if kind == "final" else self.slot[what])
                    flips.append(kind == "state" and what.player != seat)
            per_throw.append((np.array(starts), np.array(finals), np.array(slots), np.array(flips)))
        return per_throw

    def turn_values(self, i):
        """Value per outcome after throws 1, 2, 3 of position ``i``'s turn (from the current
        values of the other positions)."""
        def end_row(t):
            starts, finals, slots, flips = self.turns[i][t - 1]
            ends = np.where(slots < 0, finals, self.value[np.maximum(slots, 0)])
            ends = np.where(flips, 1.0 - ends, ends)
            return np.maximum.reduceat(ends, starts) if len(ends) else np.full(len(self.outcomes), -np.inf)

        return self.throw_values(end_row)

    def solve(self, tol: float = 1e-15, max_sweeps: int = 500) -> int:
        """Value iteration, one pair of positions at a time: a turn leads to the same records
        with the other player to move (no record) or to more records, so the pairs of the
        same records, from the fullest cards down, each settle on their own once the pairs
        after them have (some pairs need a few hundred sweeps, most a few). Returns the
        most sweeps a pair needed."""
        pairs: dict = {}
        for i, s in enumerate(self.positions):
            pairs.setdefault(s.records, []).append(i)
        most = 0
        for records in sorted(pairs, key=lambda r: -sum(v is not None for card in r for v in card)):
            for sweep in range(max_sweeps):
                moved = 0.0
                for i in pairs[records]:
                    new = float(self.p_first @ self.turn_values(i)[0])
                    moved = max(moved, abs(new - self.value[i]))
                    self.value[i] = new
                if moved <= tol:
                    break
            else:
                raise AssertionError(f"value iteration did not settle in {max_sweeps} sweeps at {records}")
            most = max(most, sweep)
        return most

    def share(self, seat, end) -> float:
        kind, what = end
        if kind == "final":
            return what
        v = float(self.value[self.slot[what]])
        return v if what.player == seat else 1.0 - v


def _masks_and_lead(state):
    masks = [sum(1 << i for i, v in enumerate(r) if v is not None) for r in state.records]
    totals = [sum(v for v in r if v is not None) for r in state.records]
    p = state.player
    return masks[p], masks[1 - p], totals[p] - totals[1 - p]


RULES = [
    {},
    {"basic_record": "mandatory"},
    {"basic_end": "immediate", "basic_record": "mandatory"},
]


_SOLVED: dict = {}


def _solve(options: dict):
    """The game, the enumeration and the race table of ``options`` (once per module)."""
    key = tuple(sorted(options.items()))
    if key not in _SOLVED:
        game = PolishBasicGame(PolishBasicRules(boxes=CARD, **options), num_players=2)
        enum = Enumeration(game)
        enum.solve()
        _SOLVED[key] = game, enum, build_table(game, POLISH_BASIC_RACE, QUIET, save=False)
    return _SOLVED[key]


@pytest.fixture(scope="module", params=RULES, ids=["default", "mandatory", "immediate-mandatory"])
def solved(request):
    return _solve(request.param)


def test_race_table_equals_the_enumeration(solved):
    # expected: the independent value iteration over the engine's positions (PL-5, PL-7);
    # every stored value (both seats, seat 1's last turn) equals it to 1e-12
    game, enum, table = solved
    full = (1 << len(CARD)) - 1
    checked = 0
    for i, s in enumerate(enum.positions):
        mine, other, lead = _masks_and_lead(s)
        if s.player == 1 and other == full:
            got = last_turn_value(table, mine, lead)
        else:
            got = mover_value(table, s.player, mine, other, lead)
        assert got == pytest.approx(enum.value[i], abs=1e-12), s
        checked += 1
    assert checked == len(enum.positions) >= 50
    assert table.meta.extra["never_ending_states"] == 0


def test_race_rank_equals_the_enumeration_at_every_decision(solved):
    # expected: each action's value is the enumeration's value of what follows it, after
    # throws 1..3 of every position (keeps, records, ending the turn)
    game, enum, table = solved
    # the two straights (every record, every tie at the end) and a spread of other throws
    shown = [enum.index[(1, 2, 3, 4, 5)], enum.index[(2, 3, 4, 5, 6)]]
    for i, s in enumerate(enum.positions):
        after = enum.turn_values(i)
        for t in (1, 2, 3):
            for o in shown + list(range(0, len(enum.outcomes), 61)):
                st = PolishBasicState(player=s.player, records=s.records, throws=t, dice=enum.outcomes[o])
                decisions = rank(game, table, st)
                assert decisions[0].value == pytest.approx(after[t - 1][o], abs=1e-12)
                for d in decisions:
                    if isinstance(d.action, Keep):
                        want = enum.keep_value(after[t], d.action.dice)
                    else:
                        want = enum.share(s.player, enum.end_of(s.player, game._apply(st, d.action)))
                    assert d.value == pytest.approx(want, abs=1e-12), (st, d.action)


def test_race_start_value_and_check(solved):
    # expected: the first player's recorded P(win) is the enumeration's start value; the
    # table's own spot check (numpy turns over its values) finds nothing
    game, enum, table = solved
    start = game.new_initial_state()
    want = enum.value[enum.slot[start]]
    assert table.meta.extra["p_first_player_wins"] == pytest.approx(want, abs=1e-12)
    assert rank(game, table, start)[0].value == pytest.approx(want, abs=1e-12)
    assert POLISH_BASIC_RACE.check(game, table) == []


def test_bracketed_search_alone_finds_the_same_values(solved):
    # expected: the enumeration again, with no Newton step at all (every state solved by the
    # kernel's bracketed fallback, the path Newton hands over to when it cycles)
    game, enum, table = solved
    arrays, extra = build_race_arrays(game, newton_steps=0)
    assert extra["bracketed_states"] > 0
    full = (1 << len(CARD)) - 1
    for i, s in enumerate(enum.positions):
        mine, other, lead = _masks_and_lead(s)
        if s.player == 1 and other == full:
            continue
        values = arrays["values1"] if s.player == 1 and "values1" in arrays else arrays["values0"]
        gain, off = arrays["gain"], arrays["offsets"]
        if -gain[mine] <= lead <= gain[other]:
            got = values[off[mine * len(gain) + other] + lead + gain[mine]]
            assert got == pytest.approx(enum.value[i], abs=1e-12), s


def test_threads_change_nothing():
    # expected: each pair of cards is solved by one thread in a fixed order, so two threads
    # give bit-identical values to one (the last turns and both seats' tables)
    game = PolishBasicGame(PolishBasicRules(boxes=("pair", "small_straight", "large_straight")), num_players=2)
    one, _ = build_race_arrays(game, BuildOptions(jobs=1, progress=False))
    two, _ = build_race_arrays(game, BuildOptions(jobs=2, progress=False))
    for name in ("values0", "values1", "last"):
        assert np.array_equal(one[name], two[name]), name


def test_lanes_change_nothing():
    # expected: the kernel solves eight states side by side, each lane with its own pair of
    # cards, leads and Newton steps; how the pairs are dealt to the lanes (one pair per
    # chunk: seven lanes idle; seven: some lanes take the next pair as they finish) must give
    # bit-identical values, and the same count of turn evaluations (each lane's own steps)
    game = PolishBasicGame(PolishBasicRules(boxes=("pair", "small_straight", "large_straight")), num_players=2)
    one, one_extra = build_race_arrays(game, chunk=1)
    seven, seven_extra = build_race_arrays(game, chunk=7)
    for name in ("values0", "values1", "last"):
        assert np.array_equal(one[name], seven[name]), name
    assert one_extra["turn_evaluations"] == seven_extra["turn_evaluations"]


@pytest.mark.parametrize("record", ["optional", "mandatory"])
def test_portable_turn_gives_the_avx512_bits(record):
    # expected: the kernel's two versions of a turn (AVX-512, eight lanes at once, where the
    # CPU has it; the portable vector one, four lanes at a time, twice) do each lane's
    # arithmetic in the same order, so the tables are bit-identical (a forced record,
    # pl.basic_record = mandatory, takes the masked path of both)
    if not _polish_race.wide_turns():
        pytest.skip("this CPU has no AVX-512: only the portable turn runs")
    game = PolishBasicGame(PolishBasicRules(boxes=("pair", "small_straight", "large_straight"), basic_record=record),
                           num_players=2)
    wide, wide_extra = build_race_arrays(game)
    try:
        assert not _polish_race.wide_turns(False)
        portable, portable_extra = build_race_arrays(game)
    finally:
        _polish_race.wide_turns(True)
    for name in ("values0", "values1", "last"):
        assert np.array_equal(wide[name], portable[name]), name
    assert wide_extra["turn_evaluations"] == portable_extra["turn_evaluations"]


def test_decided_leads_are_not_stored():
    # expected by hand (PL-7): a lead larger than everything the other's open combinations
    # can add wins; one the mover's own cannot make up loses. Small straight from hand is
    # 30, large straight from hand 40 (PL-6), so with both open the reach is 70.
    rules = PolishBasicRules(boxes=CARD)
    model = race_model(rules)
    assert list(model.gain) == [70, 40, 30, 0]
    game = PolishBasicGame(rules, num_players=2)
    table = build_table(game, POLISH_BASIC_RACE, QUIET, save=False)
    assert mover_value(table, 0, 0, 0, 71) == 1.0 and mover_value(table, 0, 0, 0, -71) == 0.0
    assert 0.0 < mover_value(table, 0, 0, 0, 70) < 1.0
    # stored leads: -gain(mover)..gain(other) for each of the 3 x 3 pairs of open cards
    assert len(table["values0"]) == 3 * (70 + 40 + 30) * 2 + 9
    assert len(table["last"]) == 71 + 41 + 31  # seat 1's last turn: leads -gain..0


# ----------------------------------------------------------------------------------------
# Front ends: the hint, `kocka hint --opponent`, `kocka-solve`, the winner agent, the arena
# ----------------------------------------------------------------------------------------
CARD_RULE = ["-r", "boxes=small_straight,large_straight"]


@pytest.fixture(scope="module")
def default_race(tmp_path_factory):
    """The default rules on the two-combination card: the enumeration and a stored table."""
    cache = tmp_path_factory.mktemp("race")
    game, enum, _ = _solve({})
    build_table(game, POLISH_BASIC_RACE, QUIET, cache_dir=cache)
    return game, enum, cache


def test_hint_with_opponent_gives_p_win_per_action(default_race):
    # expected: the enumeration's value of each action's successor, for seat 0 with a
    # small straight from hand after his first throw, against an opponent who has 15
    game, enum, cache = default_race
    one = PolishBasicGame(game.rules)  # what `kocka hint` builds: the race needs no seat count
    report = polish_hint(one, PolishBasicHintParams(dice=(1, 2, 3, 4, 5), roll=1, card={}, cache_dir=str(cache),
                                                    opponent={"small_straight": 15}))
    assert report.value_name == "P(win)"
    state = PolishBasicState(player=0, records=((None, None), (15, None)), throws=1, dice=(1, 2, 3, 4, 5))
    for d in report.decisions:
        if isinstance(d.action, Keep):
            continue
        want = enum.share(0, enum.end_of(0, game._apply(state, d.action)))
        assert d.value == pytest.approx(want, abs=1e-12), d.action
    assert {type(d.action) for d in report.decisions} == {Keep, Record, EndTurn}
    assert report.position.startswith("polish-basic race: you are player 1 of 2, throw 1 of 3, dice 1 2 3 4 5; your total 0")


def test_hint_when_the_opponent_has_completed_is_the_last_turn(default_race):
    # expected: against a complete card seat 2 plays his last turn (finish_round, PL-7):
    # ending without a record at 0 against 35 loses (0), recording the large straight from
    # hand (40) wins (1)
    game, enum, cache = default_race
    report = polish_hint(PolishBasicGame(game.rules), PolishBasicHintParams(
        dice=(2, 3, 4, 5, 6), roll=1, card={}, cache_dir=str(cache),
        opponent={"small_straight": 15, "large_straight": 20}))
    values = {type(d.action).__name__ + getattr(d.action, "combo", ""): d.value for d in report.decisions}
    assert values["Recordlarge_straight"] == 1.0 and values["EndTurn"] == 0.0
    assert "this is your last turn" in " ".join(report.notes)


def test_cli_hint_opponent_card(default_race):
    # expected: `kocka hint polish-basic ... --opponent CARD` prints the same P(win) as the
    # race ranking, for every action; a number for --opponent is refused in one line
    game, enum, cache = default_race
    args = ["hint", "polish-basic", *CARD_RULE, "--dice", "1", "2", "3", "4", "5", "--roll", "2",
            "--opponent", "large_straight=20", "--cache-dir", str(cache), "--json", "--top", "0"]
    result = CliRunner().invoke(kocka_main, args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    state = PolishBasicState(player=0, records=((None, None), (None, 20)), throws=2, dice=(1, 2, 3, 4, 5))
    after = enum.turn_values(enum.slot[PolishBasicState(player=0, records=state.records)])
    assert doc["value"] == "P(win)"
    assert doc["actions"][0]["value"] == pytest.approx(after[1][enum.index[(1, 2, 3, 4, 5)]], abs=1e-12)
    bad = CliRunner().invoke(kocka_main, args[:-7] + ["--opponent", "35", "--cache-dir", str(cache), "--lang", "en"])
    assert bad.exit_code == 2 and "--opponent takes the card of the other player" in bad.output


def test_solve_cli_builds_and_reports_the_race(tmp_path):
    # expected: the race is a declared table kind of polish-basic (kocka-solve build
    # --kind race); info prints P(first player wins) and verify re-checks the fixed point
    built = CliRunner().invoke(solve_main, ["build", "polish-basic", *CARD_RULE, "--kind", "race", "--cache-dir",
                                      str(tmp_path), "-q"])
    assert built.exit_code == 0, built.output
    info = CliRunner().invoke(solve_main, ["info", "polish-basic", *CARD_RULE, "--kind", "race", "--cache-dir", str(tmp_path)])
    assert "p_first_player_wins: 0.49" in info.output and "kind: race" in info.output
    verified = CliRunner().invoke(solve_main, ["verify", "polish-basic", *CARD_RULE, "--kind", "race", "--cache-dir",
                                         str(tmp_path)])
    assert verified.exit_code == 0 and verified.output.startswith("ok:"), verified.output


def test_winner_agent_plays_the_race_and_needs_two_players(default_race):
    # expected: the agent's choice is the race ranking's best action; alone it is refused
    game, enum, cache = default_race
    agent = make_agent("winner", game, 0, AgentOptions(cache_dir=cache))
    state = PolishBasicState(player=1, records=((30, None), (None, None)), throws=1, dice=(1, 2, 3, 4, 5))
    assert agent.choose(state) == agent.rank(state)[0].action
    assert agent.value_name == "P(win)"
    with pytest.raises(AgentUnavailable, match="exactly 2 players"):
        make_agent("winner", PolishBasicGame(game.rules), 0, AgentOptions(cache_dir=cache))


def test_arena_seats_the_race_at_one_table(default_race, tmp_path):
    # expected: polish-basic is a race (spec outcome "race"): the arena seats both agents
    # at one two-player table with rotating seats, and each game's win shares add up to 1
    game, enum, cache = default_race
    build_table(PolishBasicGame(game.rules), POLISH_BASIC_EV, QUIET, cache_dir=cache)
    result = run_arena(PolishBasicGame(game.rules), ["winner", "optimal"], 40, 1, 1, AgentOptions(cache_dir=cache))
    assert result.mode == "table" and result.scores.shape == (40, 2)
    assert np.allclose(result.wins.sum(axis=1), 1.0)
    assert set(result.seats[:, 0]) == {0, 1}
