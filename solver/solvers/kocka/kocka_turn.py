"""The Kocka (10000) turn compiled into a :class:`~kocka.solver.solvers.kocka.turn_model.TurnModel`,
and how engine states map onto it.

:func:`kocka_model` compiles the turn from the rules engine's scoring functions
(``valid_set_asides``, ``is_full``, ``series_starts``, ``series_matches``, ``series_value``,
``series_allowed_from``) and rule queries (``KockaRules.bank_minimum``, ``series_on_reroll``,
``six_ones_win``); nothing here re-implements a rule.

Units: turn totals and scores are counted in units of 50 points (every Kocka score is a
multiple of 50, KOCKA-5); a turn total in the tables is the number of units. The turn total
is unbounded (a full roll brings all six dice back, KOCKA-11).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Hashable, Mapping, Sequence

from kocka.solver.base.errors import RulesError
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.rules.kocka import KockaGame
from kocka.solver.rules.kocka_scoring import (
    NUM_DICE, PHASE_BELOW, PHASE_HIGH, KockaRules, is_full, scores, series_allowed_from, series_matches,
    series_starts, series_value, set_aside_value, valid_set_asides,
)
from kocka.solver.solvers.kocka.turn_model import Entry, TurnModel, TurnModelBuilder

UNIT = 50
"""Points per table unit: every Kocka score is a multiple of 50 (KOCKA-5)."""


def to_units(points: int) -> int:
    """``points`` in table units (:data:`UNIT`)."""
    return points // UNIT


def kocka_rules_of(game: Any) -> KockaRules:
    """The rules of ``game``, which must be a :class:`KockaGame` (the only game the Kocka
    tables and rankings serve)."""
    if not isinstance(game, KockaGame):
        raise RulesError(f"the Kocka solver needs a KockaGame, got {type(game).__name__}")
    return game.rules


@dataclass(frozen=True)
class SeriesOdds:
    """Completion odds of a series (KOCKA-15, KOCKA-17, KOCKA-18), from the engine's
    :func:`series_matches`; taking more dice and naming a joker are chosen optimally.

    ``after[(face, c)]``: P(complete) once c dice of ``face`` are aside, next roll due
    (c = 6: complete, 1.0). ``last_die[(face, joker)]``: P(complete) from five aside,
    rolling the last die with ``joker`` named (None: no joker).
    """

    after: Mapping[tuple[int, int], float]
    last_die: Mapping[tuple[int, int | None], float]


@lru_cache(maxsize=None)
def series_odds() -> SeriesOdds:
    last_die: dict[tuple[int, int | None], float] = {}
    after: dict[tuple[int, int], float] = {}
    one = dice_tables(1)
    for face in range(1, 7):
        for joker in [None, *[j for j in range(1, 7) if j != face]]:
            last_die[(face, joker)] = float(sum(
                p for o, p in zip(one.outcomes, one.probs) if series_matches(tuple(int(v) for v in o), face, joker)
            ))
        after[(face, NUM_DICE)] = 1.0
        after[(face, NUM_DICE - 1)] = max(v for (f, _), v in last_die.items() if f == face)
        for c in range(NUM_DICE - 2, 0, -1):
            dt = dice_tables(NUM_DICE - c)
            total = 0.0
            for o, p in zip(dt.outcomes, dt.probs):
                m = series_matches(tuple(int(v) for v in o), face)
                if m:
                    total += p * max(after[(face, c + k)] for k in range(1, m + 1))
            after[(face, c)] = float(total)
    return SeriesOdds(after, last_die)


@dataclass(frozen=True, eq=False)
class KockaModel:
    """The compiled Kocka turn under one set of rules, and how engine states map onto it.

    Kind keys: ``("opening", phase)``, ``("roll", n, series_on_reroll)`` (n = 1..5 dice,
    rolling on), ``("six", series_on_reroll, series_here)`` (a compulsory six-dice roll),
    ``("six_ones",)`` (the re-roll after a complete series of 1s that wins when it
    scores, KOCKA-19). ``series_on_reroll`` is true for a 2500+ player under
    ``kocka.series_start = any_six_dice_roll``.
    """

    rules: KockaRules
    turn: TurnModel
    keys: Mapping[Hashable, int]
    series: SeriesOdds

    @property
    def goal(self) -> int:
        return self.rules.target // UNIT

    def series_on_reroll(self, phase: int) -> bool:
        return phase == 1 and self.rules.series_on_reroll

    @property
    def turn_full(self) -> TurnModel:
        """The same turn with every set-aside a separate choice (same kinds and slots as
        :attr:`turn`): for objectives that may fall as the banked total grows."""
        return _full_turn(self.rules)

    @property
    def win_kind(self) -> int:
        """The kind whose scoring roll wins the game at once (the re-roll after a complete
        series of 1s, KOCKA-19), or -1 when there is none (``kocka.ones_series = normal``
        under the end rules that follow the target with more turns)."""
        return self.keys.get(("six_ones",), -1)

    def completion_slot(self, phase: int, face: int) -> int:
        """Slot reached when a series of ``face`` completes: its compulsory re-roll."""
        if face == 1 and self.rules.six_ones_win:
            return self.turn.roll_slot(self.keys[("six_ones",)])
        s = self.series_on_reroll(phase)
        return self.turn.roll_slot(self.keys[("six", s, False)])

    def after_set_aside_slot(self, phase: int, dice_left: int) -> int:
        """Slot after a normal set-aside leaving ``dice_left`` dice (0: full, KOCKA-11)."""
        s = self.series_on_reroll(phase)
        if dice_left == 0:
            return self.turn.roll_slot(self.keys[("six", s, s)])
        return self.turn.free_slot(self.keys[("roll", dice_left, s)])


def _roll_entries(rules: KockaRules, roll: tuple[int, ...], *, opening: bool, series_here: bool,
                  series_on_reroll: bool, six_ones_key: Hashable | None, every_set_aside: bool = False) -> list[Entry]:
    """The choices after ``roll``: normal set-asides (KOCKA-6, 10, 11) and series starts
    (KOCKA-14). Without ``every_set_aside`` only the most points for each number of dice
    left are kept: exact when more points never hurt (a bank allowed at t is allowed at
    t + v, and the objective grows with the banked total: the turn tables, and the
    two-player race under ``kocka.end = immediate``). With it every distinct (dice left,
    points) choice stays: under ``last_turn`` a bank crossing 10000 with a small lead can
    be worth less than one staying below, and with three players more points can be worse."""
    n = len(roll)
    entries: list[Entry] = []
    full = is_full(roll, rules, opening)
    if full:
        value = set_aside_value(roll, n, rules, opening)
        entries.append((value // UNIT, ("roll", ("six", series_on_reroll, series_on_reroll)), 1.0))
    elif every_set_aside:
        choices = {(n - len(dice), value) for dice, value in valid_set_asides(roll, rules, opening)}
        entries.extend((v // UNIT, ("free", ("roll", left, series_on_reroll)), 1.0) for left, v in sorted(choices))
    else:
        best: dict[int, int] = {}
        for dice, value in valid_set_asides(roll, rules, opening):
            left = n - len(dice)
            best[left] = max(best.get(left, 0), value)
        entries.extend((v // UNIT, ("free", ("roll", left, series_on_reroll)), 1.0) for left, v in best.items())
    if series_here and series_allowed_from(roll, rules, opening):
        odds = series_odds()
        for face, count in series_starts(roll):
            if face == 1 and six_ones_key is not None:
                target = ("roll", six_ones_key)
            else:
                target = ("roll", ("six", series_on_reroll, False))
            entries.append((series_value(face) // UNIT, target, odds.after[(face, count)]))
    return entries


@lru_cache(maxsize=None)
def kocka_model(rules: KockaRules = KockaRules()) -> KockaModel:
    """Compile the Kocka turn for ``rules`` (about 0.1 s; cached per rules)."""
    for name in ("target", "series_threshold", "min_bank_points"):
        if getattr(rules, name) % UNIT:
            raise RulesError(f"kocka parameter {name!r} must be a multiple of {UNIT}, got {getattr(rules, name)!r}")
    turn, keys = _compile_turn(rules, every_set_aside=False)
    return KockaModel(rules, turn, keys, series_odds())


@lru_cache(maxsize=None)
def _full_turn(rules: KockaRules) -> TurnModel:
    """The turn with every set-aside a separate choice, in the slots of :func:`kocka_model`."""
    keys = kocka_model(rules).keys
    turn, full_keys = _compile_turn(rules, every_set_aside=True, order=sorted(keys, key=keys.__getitem__))
    if full_keys != dict(keys):
        raise RulesError("the full kocka turn model reaches roll kinds the pruned one does not")
    return turn


def _compile_turn(rules: KockaRules, *, every_set_aside: bool,
                  order: Sequence[Hashable] = ()) -> tuple[TurnModel, dict[Hashable, int]]:
    six_ones_key = ("six_ones",) if rules.six_ones_win else None

    def outcomes(n: int):
        dt = dice_tables(n)
        return [(tuple(int(v) for v in o), float(p)) for o, p in zip(dt.outcomes, dt.probs)]

    def expand(key: Hashable):
        if key[0] == "six_ones":
            # KOCKA-19: a scoring re-roll banks the total before it at once (the engine's reading)
            return ("six ones re-roll", [(p, [(0, ("bank",), 1.0)] if scores(o, rules) else [])
                                         for o, p in outcomes(NUM_DICE)], False)
        if key[0] == "opening":
            high = key[1] == 1
            s = high and rules.series_on_reroll
            name = "opening roll, " + ("2500+" if high else "below 2500")
            return (name, [(p, _roll_entries(rules, o, opening=True, series_here=high, series_on_reroll=s,
                                             six_ones_key=six_ones_key, every_set_aside=every_set_aside))
                           for o, p in outcomes(NUM_DICE)], True)
        if key[0] == "six":
            _, s, here = key
            name = "compulsory six-dice roll" + (", series may start" if here else "")
            return (name, [(p, _roll_entries(rules, o, opening=False, series_here=here, series_on_reroll=s,
                                             six_ones_key=six_ones_key, every_set_aside=every_set_aside))
                           for o, p in outcomes(NUM_DICE)], False)
        _, n, s = key
        return (f"roll {n} {'die' if n == 1 else 'dice'}",
                [(p, _roll_entries(rules, o, opening=False, series_here=False, series_on_reroll=s,
                                   six_ones_key=six_ones_key, every_set_aside=every_set_aside)) for o, p in outcomes(n)],
                False)

    builder = TurnModelBuilder(UNIT, expand, order)
    turn = builder.build(
        [("below 2500", ("opening", 0), rules.bank_minimum(PHASE_BELOW) // UNIT),
         ("2500+", ("opening", 1), rules.bank_minimum(PHASE_HIGH) // UNIT)],
        threshold=rules.series_threshold // UNIT,
    )
    # every slot the engine can reach must exist, even if no roll leads there from an opening
    for phase in (0, 1):
        s = phase == 1 and rules.series_on_reroll
        for key in [("six", s, s), ("six", s, False), *[("roll", n, s) for n in range(1, NUM_DICE)]]:
            if key not in builder.keys:
                raise RulesError(f"kocka model lacks the roll kind {key!r}")
    return turn, dict(builder.keys)


__all__ = ["UNIT", "KockaModel", "SeriesOdds", "kocka_model", "kocka_rules_of", "series_odds", "to_units"]
