"""The solitaire table of the Polish basic game (kocka.solver.solvers.polish.values, ``ev``) against
an expectimax over the rules engine's own turns, written here.

The expectimax shares no code with the solver: every legal action, every record's points
and every successor come from the engine (``PolishBasicGame`` hooks), the keep transitions
from the engine's chance outcomes (tests/polish_reference.py, shared with the race's
enumeration), and it counts the turns itself (the horizon is a solver
reading, ``solo_turns``: RULES.md has no turn limit). Under the rules (PL-5, the default) a
turn may end without a record; in the zero-entry reading (``solo_zero_entries = yes``)
ending a turn writes 0 into an open combination instead.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from polish_reference import EngineThrows
from kocka.agents.advice.cards import PolishBasicHintParams, polish_hint
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import InvalidStateError, RulesError
from kocka.solver.solvers.polish.values import POLISH_BASIC_EV, rank, rank_basic
from kocka.solver.store.table_store import build_table, get_game
from kocka.solver.rules.polish import EndTurn, Keep, PolishBasicGame, PolishBasicState, Record
from kocka.solver.rules.polish_scoring import PolishBasicRules

QUIET = BuildOptions(progress=False)


class Expectimax(EngineThrows):
    """V(records, h): the best expected points still to come with ``h`` turns left, over
    the engine's turns (numpy over the engine's keep transitions,
    :class:`~polish_reference.EngineThrows`, for speed)."""

    def __init__(self, game: PolishBasicGame, zero_entries: bool = False) -> None:
        super().__init__(game)
        self.game, self.zero = game, zero_entries
        self.value = lru_cache(maxsize=None)(self._value)

    def ends(self, records, h, t, dice):
        """What each end of the turn the engine allows is worth (points now + the rest)."""
        s = PolishBasicState(player=0, records=(records,), throws=t, dice=dice)
        worth = []
        for a in self.game._legal_actions(s):
            if isinstance(a, Record):
                after = self.game._apply(s, a).records[0]
                b = self.game.rules.boxes.index(a.combo)
                worth.append(after[b] + self.value(after, h - 1))
            elif isinstance(a, EndTurn):
                if self.zero:  # a 0 entry in any open combination
                    worth.append(max(self.value(records[:b] + (0,) + records[b + 1:], h - 1)
                                     for b, v in enumerate(records) if v is None))
                else:
                    worth.append(self.value(records, h - 1))
        return worth

    def turn(self, records, h):
        """Value per outcome after throws 1, 2, 3 of a turn with ``h`` turns left."""
        return self.throw_values(
            lambda t: np.array([max(self.ends(records, h, t, d), default=-np.inf) for d in self.outcomes]))

    def _value(self, records, h) -> float:
        if h == 0 or None not in records:
            return 0.0
        return float(self.p_first @ self.turn(records, h)[0])


# (card, options): two combinations with few values each, so the walk stays small
CASES = [
    (("small_straight", "large_straight"), {}),
    (("small_straight", "large_straight"), {"basic_record": "mandatory"}),
    (("small_straight", "large_straight"), {"solo_zero_entries": "yes"}),
    (("pair", "large_straight"), {"solo_turns": 3}),
]


@pytest.fixture(scope="module", params=CASES, ids=["default", "mandatory", "zero-entries", "pair-3-turns"])
def solved(request):
    boxes, options = request.param
    rules = PolishBasicRules(boxes=boxes, **options)
    game = PolishBasicGame(rules)
    walk = Expectimax(game, zero_entries=rules.solo_zero_entries == "yes")
    return game, walk, build_table(game, POLISH_BASIC_EV, QUIET, save=False)


def test_start_value_equals_expectimax(solved):
    # expected: the engine-driven expectimax over solo_turns turns (PL-5, PL-6), to 1e-12
    game, walk, table = solved
    empty = game.new_initial_state().records[0]
    want = walk.value(empty, game.rules.solo_turns)
    assert table.meta.extra["expected_score"] == pytest.approx(want, abs=1e-12)
    assert table.meta.extra["horizon_turns"] == game.rules.solo_turns
    assert POLISH_BASIC_EV.check(game, table) == []


def test_rank_equals_expectimax_at_every_decision(solved):
    # expected: each action's value is the expectimax value of what follows it (points so
    # far included), at outcomes of throws 1..3 with every number of turns left
    game, walk, table = solved
    empty = game.new_initial_state().records[0]
    positions = [(empty, h) for h in range(1, game.rules.solo_turns + 1)]
    first = walk.outcomes[walk.index[(1, 2, 3, 4, 5)]]
    s = PolishBasicState(player=0, records=(empty,), throws=1, dice=first)
    recorded = game._apply(s, Record(game.rules.boxes[0])).records[0] if Record(game.rules.boxes[0]) in \
        game._legal_actions(s) else None
    if recorded is not None and game.rules.solo_turns > 1:
        positions.append((recorded, game.rules.solo_turns - 1))
    for records, h in positions:
        after = walk.turn(records, h)
        so_far = sum(v for v in records if v is not None)
        for t in (1, 2, 3):
            for o in range(0, len(walk.outcomes), 13):
                st = PolishBasicState(player=0, records=(records,), throws=t, dice=walk.outcomes[o])
                decisions = rank_basic(game, table, st, turns_left=h)
                assert decisions[0].value == pytest.approx(so_far + after[t - 1][o], abs=1e-12)
                for d in decisions:
                    if isinstance(d.action, Keep):
                        want = so_far + walk.keep_value(after[t], d.action.dice)
                        assert d.value == pytest.approx(want, abs=1e-12)
        start = PolishBasicState(player=0, records=(records,))
        assert rank_basic(game, table, start, turns_left=h)[0].value == pytest.approx(
            so_far + walk.value(records, h), abs=1e-12)


def test_full_card_readings():
    # expected: the zero-entry reading reproduces 112.097358, the figure the scorecard
    # kernel gave for it (the polish-basic table before issue 16); the rules' default
    # (no zero entries, PL-5) lies about 2.7 points above it (the independent
    # solver)
    zero = build_table(get_game("polish-basic", {"solo_zero_entries": "yes"}), POLISH_BASIC_EV, QUIET, save=False)
    default = build_table(get_game("polish-basic"), POLISH_BASIC_EV, QUIET, save=False)
    z, d = (t.meta.extra["expected_score"] for t in (zero, default))
    assert z == pytest.approx(112.097358, abs=5e-7)
    assert 2.5 < d - z < 3.0


def test_horizon_is_a_rule_option_the_engine_ignores():
    # expected: solo_turns and solo_zero_entries are readings of the table (not in
    # RULES.md); they change the variant id and are checked, and the engine plays alike
    g = get_game("polish-basic", {"solo_turns": "10"})
    assert g.rules.solo_turns == 10
    assert g.rules.variant_id() != PolishBasicRules().variant_id()
    with pytest.raises(RulesError, match=r"solo_turns must be a whole number from 1 to 64, not 0"):
        PolishBasicRules(solo_turns=0)
    with pytest.raises(RulesError, match=r"solo_zero_entries must be no or yes, not maybe"):
        PolishBasicRules(solo_zero_entries="maybe")
    plain = PolishBasicGame()
    assert g.legal_actions(g.new_initial_state()) == plain.legal_actions(plain.new_initial_state())


def test_rank_refuses_a_position_beyond_the_horizon():
    # expected: with 2 turns and 2 combinations recorded the table has no turn left for
    # the third (solo_turns counts one turn per recorded combination)
    game = PolishBasicGame(PolishBasicRules(boxes=("pair", "three_kind", "poker"), solo_turns=2))
    table = build_table(game, POLISH_BASIC_EV, QUIET, save=False)
    state = PolishBasicState(player=0, records=((8, 9, None),))
    with pytest.raises(InvalidStateError, match=r"2 combinations are recorded, so the solitaire table's 2 turns"):
        rank(game, table, state)


def test_solitaire_hint_names_its_reading(tmp_path):
    # expected: the hint says which reading and how many turns its values assume
    game = PolishBasicGame(PolishBasicRules(boxes=("small_straight", "large_straight")))
    build_table(game, POLISH_BASIC_EV, QUIET, cache_dir=tmp_path)
    report = polish_hint(game, PolishBasicHintParams(dice=(1, 2, 3, 4, 5), roll=1, cache_dir=str(tmp_path)))
    # the small straight from hand counts double (PL-6): 2 x 15
    assert report.decisions[0].action == Record("small_straight") and report.decisions[0].detail["points"] == 30
    text = " ".join(report.notes)
    assert "8 turns available" in text and "no zero entries" in text and "here 8 turns are left" in text
