"""Kocka (10000): exact single-turn tables, two-player win probabilities, ranking.

Three layers:

* **A generic push-your-luck turn model** (:class:`TurnModel`, built with
  :class:`TurnModelBuilder`): roll *kinds* (n dice thrown in some situation), each a list
  of outcome *groups* sharing one choice set; a choice sets points aside and moves to a
  *slot* (free: bank or roll on; compulsory roll; bank now), possibly as a lottery (a
  series completes with probability q, else the turn busts). The Cython kernel
  :mod:`kocka.solver._kocka` evaluates one turn for any bank / bust values, and solves a
  two-player race to a goal (score pairs in decreasing a + b, the bust fixed point
  between (a, b) and (b, a) by Newton steps). Pig (:mod:`kocka.solver.pig`) uses the same
  machinery.
* **The Kocka model** (:func:`kocka_model`): compiled from the rules engine's scoring
  functions (``valid_set_asides``, ``is_full``, ``series_starts``, ``series_matches``,
  ``series_value``, ``series_allowed_from``) and rule queries (``KockaRules.bank_minimum``,
  ``series_on_reroll``, ``six_ones_win``); nothing here re-implements a rule.
* **Tables and ranking**: ``turn_ev`` (expected points banked this turn),
  ``turn_reach`` (P(bank >= T this turn), T = 50 .. target), ``winprob`` (two-player
  P(win)); :func:`rank` values every legal action of an engine state, and
  :func:`rank_by_turn_ev` / :func:`rank_with_details` give ``kocka hint kocka``
  (:mod:`kocka.agents.frontends.hint_kocka`) its values.

Units: turn totals and scores are counted in units of 50 points (every Kocka score is a
multiple of 50, KOCKA-5). A turn total in the tables is the number of units.

The turn total is unbounded (a full roll brings all six dice back, KOCKA-11). The
``winprob`` and ``turn_reach`` tables need no cap: once a bank would reach the goal, the
only question left is whether the turn ends in a bank at all, a constant per roll kind
(:attr:`TurnModel.tail_success`). The ``turn_ev`` table is cut at ``EV_CAP_UNITS``
(100000 points) by a policy that banks there and counts a compulsory roll there as a bust:
a lower bound, and ``tests/test_kocka_solver.py`` shows the values do not move when the
cap is doubled (reaching 100000 points in one turn needs well over a hundred full rolls).
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

from kocka.solver import _kocka
from kocka.solver.dice_tables import dice_tables
from kocka.solver.errors import InvalidStateError, RulesError, TableError
from kocka.solver.decision import BuildOptions, Decision
from kocka.solver.rules.kocka import (
    NUM_DICE, PHASE_BELOW, PHASE_HIGH, STAGE_BANK_OR_ROLL, STAGE_JOKER, STAGE_SET_ASIDE, Bank, KockaGame,
    KockaRules, KockaState, NameJoker, Roll, SetAside, StartSeries, TakeSeries, is_full, scores,
    series_allowed_from, series_matches, series_starts, series_value, set_aside_value, valid_set_asides,
)
from kocka.solver.tables import Table, TableMeta

UNIT = 50
"""Points per table unit: every Kocka score is a multiple of 50 (KOCKA-5)."""
EV_CAP_UNITS = 2000
"""Turn totals (units) beyond which the EV table banks at once (see the module docstring)."""


# ========================================================================================
# The generic turn model
# ========================================================================================
@dataclass(frozen=True)
class TurnPhase:
    """The rules a player's turn is played under (Kocka: below 2500, or 2500+)."""

    name: str
    kinds: tuple[int, ...]      # roll kinds a turn in this phase can reach
    opening_kind: int           # the kind of the turn's first roll
    min_bank: int               # smallest turn total (units) that may be banked


@dataclass(frozen=True, eq=False)
class TurnModel:
    """A compiled push-your-luck turn (see the module docstring and :mod:`_kocka`).

    Slots: ``k`` = free after a set-aside, kind ``k`` next (bank or roll on);
    ``n_kinds + k`` = kind ``k`` must be rolled; ``2 * n_kinds`` = bank now.

    Attributes
    ----------
    unit : int
        Points per unit.
    kind_names : tuple of str, length K
    group_ptr : ndarray (K+1,), int32
    group_prob : ndarray (G,)
    entry_ptr : ndarray (G+1,), int32
    entry_points, entry_slot : ndarray (E,), int32
    entry_q : ndarray (E,)
        Probability that the choice pays out (1 except for a series: its completion odds).
    bust_prob : ndarray (K,)
    opening_only : ndarray (K,), uint8
    phases : (TurnPhase, TurnPhase)
        Below and from ``threshold``; the same phase twice for one-phase games.
    threshold : int
        Banked score (units) from which ``phases[1]`` applies.
    tail_success : ndarray (K,)
        P(the turn ends in a bank | kind k is rolled, any bank allowed and good enough):
        the value of a roll once every bank would reach the goal.
    max_points : int
        The most units one choice adds.
    entry_offset : ndarray (E,), int32
        ``points * n_cols + slot``: where an entry reads, relative to its row.
    plain : ndarray (K,), uint8
        Kinds without lotteries whose entries add at most ``plain_reach`` units (all but
        the series kinds): the kernel's fast path, which needs the rows up to
        ``cap + plain_reach`` filled instead of clamping.
    """

    unit: int
    kind_names: tuple[str, ...]
    group_ptr: np.ndarray
    group_prob: np.ndarray
    entry_ptr: np.ndarray
    entry_points: np.ndarray
    entry_slot: np.ndarray
    entry_q: np.ndarray
    bust_prob: np.ndarray
    opening_only: np.ndarray
    phases: tuple[TurnPhase, TurnPhase]
    threshold: int
    tail_success: np.ndarray
    max_points: int
    entry_offset: np.ndarray
    plain: np.ndarray
    plain_reach: int

    @property
    def n_kinds(self) -> int:
        return len(self.kind_names)

    @property
    def n_cols(self) -> int:
        return 2 * self.n_kinds + 1

    @property
    def bank_slot(self) -> int:
        return 2 * self.n_kinds

    def free_slot(self, kind: int) -> int:
        return kind

    def roll_slot(self, kind: int) -> int:
        return self.n_kinds + kind

    def phase_index(self, banked_units: int) -> int:
        return 1 if banked_units >= self.threshold else 0

    def kernel_args(self) -> tuple:
        return (self.group_ptr, self.group_prob, self.entry_ptr, self.entry_points, self.entry_slot,
                self.entry_q, self.bust_prob, self.opening_only, self.entry_offset, self.plain, self.plain_reach)

    @property
    def entries_per_row(self) -> dict[str, int]:
        """Choice entries the kernel visits per turn total, by phase (a cost measure)."""
        out = {}
        for ph in self.phases:
            n = 0
            for k in ph.kinds:
                if not self.opening_only[k]:
                    g0, g1 = self.group_ptr[k], self.group_ptr[k + 1]
                    n += int(self.entry_ptr[g1] - self.entry_ptr[g0])
            out[ph.name] = n
        return out


Slot = tuple  # ("free", key) | ("roll", key) | ("bank",)
Entry = tuple[int, Slot, float]  # (points in units, target slot, payout probability)


class TurnModelBuilder:
    """Compile roll kinds, named by hashable keys, into a :class:`TurnModel`.

    ``expand(key)`` returns ``(name, outcomes, opening_only)`` where ``outcomes`` is an
    iterable of ``(probability, entries)``; an outcome with no entries busts. Kinds named
    in entries are expanded on demand. Outcomes with the same entry set are merged into
    one group (exact: the choice depends only on the entries).
    """

    def __init__(self, unit: int, expand: Callable[[Hashable], tuple[str, Iterable, bool]]) -> None:
        self.unit = unit
        self.expand = expand
        self.keys: dict[Hashable, int] = {}
        # kind index -> (name, [(group probability, entries)], bust probability, opening only)
        self._specs: dict[int, tuple[str, list[tuple[float, tuple[Entry, ...]]], float, bool]] = {}

    def kind(self, key: Hashable) -> int:
        """Index of the kind ``key``, expanding it (and the kinds it leads to) if new."""
        if key in self.keys:
            return self.keys[key]
        pending = deque([key])
        self.keys[key] = len(self.keys)
        while pending:
            k = pending.popleft()
            name, outcomes, opening_only = self.expand(k)
            groups: dict[tuple[Entry, ...], float] = {}
            bust = 0.0
            for prob, entries in outcomes:
                entries = tuple(sorted(set(entries), key=repr))
                if not entries:
                    bust += prob
                    continue
                groups[entries] = groups.get(entries, 0.0) + prob
                for _, slot, _ in entries:
                    if slot[0] != "bank" and slot[1] not in self.keys:
                        self.keys[slot[1]] = len(self.keys)
                        pending.append(slot[1])
            self._specs[self.keys[k]] = (name, [(p, e) for e, p in groups.items()], bust, opening_only)
        return self.keys[key]

    def build(self, phases: Sequence[tuple[str, Hashable, int]], threshold: int) -> TurnModel:
        """``phases``: ``(name, opening kind key, min_bank units)``, one or two."""
        openings = [self.kind(key) for _, key, _ in phases]
        specs = [self._specs[k] for k in range(len(self._specs))]
        n = len(specs)
        group_ptr, group_prob, entry_ptr = [0], [], [0]
        points, slots, qs = [], [], []
        successors: list[set[int]] = []
        for name, groups, bust, _ in specs:
            succ = set()
            for prob, entries in groups:
                group_prob.append(prob)
                for pts, slot, q in entries:
                    if slot[0] == "bank":
                        code = 2 * n
                    else:
                        target = self.keys[slot[1]]
                        succ.add(target)
                        code = target if slot[0] == "free" else n + target
                    points.append(pts)
                    slots.append(code)
                    qs.append(q)
                entry_ptr.append(len(points))
            group_ptr.append(len(group_prob))
            successors.append(succ)
        built = []
        for (name, _, min_bank), root in zip(phases, openings):
            seen, todo = {root}, [root]
            while todo:
                for s in successors[todo.pop()]:
                    if s not in seen:
                        seen.add(s)
                        todo.append(s)
            built.append(TurnPhase(name, tuple(sorted(seen)), root, min_bank))
        if len(built) == 1:
            built.append(built[0])
        n_cols = 2 * n + 1
        qs_arr, pts_arr = np.asarray(qs, dtype=np.float64), np.asarray(points, dtype=np.int32)
        kind_of_entry = np.repeat(np.arange(n), np.diff(np.asarray(entry_ptr)[np.asarray(group_ptr)]))
        lottery = np.zeros(n, dtype=bool)
        np.logical_or.at(lottery, kind_of_entry, qs_arr < 1.0)
        plain_points = pts_arr[~lottery[kind_of_entry]]
        model = TurnModel(
            unit=self.unit,
            kind_names=tuple(spec[0] for spec in specs),
            group_ptr=np.asarray(group_ptr, dtype=np.int32),
            group_prob=np.asarray(group_prob, dtype=np.float64),
            entry_ptr=np.asarray(entry_ptr, dtype=np.int32),
            entry_points=np.asarray(points, dtype=np.int32),
            entry_slot=np.asarray(slots, dtype=np.int32),
            entry_q=np.asarray(qs, dtype=np.float64),
            bust_prob=np.asarray([spec[2] for spec in specs], dtype=np.float64),
            opening_only=np.asarray([spec[3] for spec in specs], dtype=np.uint8),
            phases=(built[0], built[1]),
            threshold=threshold,
            tail_success=np.zeros(n),
            max_points=int(max(points)),
            entry_offset=(pts_arr * n_cols + np.asarray(slots, dtype=np.int32)).astype(np.int32),
            plain=(~lottery).astype(np.uint8),
            plain_reach=int(plain_points.max()) if len(plain_points) else 0,
        )
        if min(points) < 0 or any(p == 0 and s != 2 * n for p, s in zip(points, slots)):
            raise RulesError("every choice must add points, except an immediate bank")
        object.__setattr__(model, "tail_success", _tail_success(model))
        return model


def _tail_success(model: TurnModel) -> np.ndarray:
    """P(some bank | kind k rolled) when every bank is allowed and wins: value iteration
    on the kinds (compulsory re-rolls make it a fixed point; it contracts by the chance of
    another full roll)."""
    n = model.n_kinds
    u = np.zeros(n)
    for _ in range(10_000):
        succ = np.concatenate([np.ones(n), u, [1.0]])
        new = np.empty(n)
        for k in range(n):
            total = 0.0
            for g in range(model.group_ptr[k], model.group_ptr[k + 1]):
                e0, e1 = model.entry_ptr[g], model.entry_ptr[g + 1]
                q = model.entry_q[e0:e1]
                total += model.group_prob[g] * float(np.max(q * succ[model.entry_slot[e0:e1]]))
            new[k] = total
        if np.max(np.abs(new - u)) < 1e-16:
            return new
        u = new
    raise RulesError("the turn model never settles: some roll kind repeats with probability 1")


# ----- evaluating one turn --------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class TurnValues:
    """Values of every turn state of one player's turn in one situation.

    ``val[t, slot]`` for turn totals ``t < cap`` (units); beyond, :meth:`value` uses the
    boundary: ``"goal"`` (any bank wins: free and bank slots 1, a roll of kind k
    ``tail_success[k] + (1 - tail_success[k]) * bust``), or ``"ev"`` (bank: t * unit
    points; a roll: 0, the cap's lower bound).
    """

    model: TurnModel
    phase: TurnPhase
    val: np.ndarray
    slope: np.ndarray
    cap: int
    boundary: str
    bust: float

    def value(self, t: int, slot: int) -> float:
        if t < self.cap:
            return float(self.val[t, slot])
        m = self.model
        if self.boundary == "goal":
            if slot < m.n_kinds or slot == m.bank_slot:
                return 1.0
            u = float(m.tail_success[slot - m.n_kinds])
            return u + (1.0 - u) * self.bust
        return float(t * m.unit) if (slot < m.n_kinds or slot == m.bank_slot) else 0.0

    def lottery(self, t: int, slot: int, q: float) -> float:
        """Value of reaching (t, slot) with probability q, else busting."""
        return q * self.value(t, slot) + (1.0 - q) * self.bust

    @property
    def opening(self) -> float:
        return float(self.val[0, self.model.roll_slot(self.phase.opening_kind)])


def solve_turn(model: TurnModel, phase: int, bank: np.ndarray, cap: int, *, bust: float = 0.0,
               boundary: str = "goal") -> TurnValues:
    """Evaluate one turn: ``bank[t]`` is the value of banking t units, ``bust`` the value
    of busting; ``boundary`` as in :class:`TurnValues`.

    ``"goal"``: a bank of ``len(bank)`` units or more reaches the goal (worth 1), and the
    table ends at ``cap`` (raised to the phase's minimum bank, so that every state beyond
    may bank). ``"ev"``: ``t >= cap`` follows the cap policy.
    """
    ph = model.phases[phase]
    if boundary == "goal":
        cap = max(cap, ph.min_bank, 1)
        rows, clamp = cap + model.plain_reach + 1, cap
    elif boundary == "ev":
        rows = cap + model.max_points + 1
        clamp = rows - 1
    else:
        raise ValueError(f"boundary must be 'goal' or 'ev', got {boundary!r}")
    bank_full = np.ones(rows)
    n = min(len(bank), cap)
    bank_full[:n] = bank[:n]
    val = np.zeros((rows, model.n_cols))
    slope = np.zeros((rows, model.n_cols))
    if boundary == "goal":
        val[cap:, : model.n_kinds] = 1.0
        val[cap:, model.n_kinds: 2 * model.n_kinds] = model.tail_success + (1 - model.tail_success) * bust
        slope[cap:, model.n_kinds: 2 * model.n_kinds] = 1 - model.tail_success
        val[cap:, model.bank_slot] = 1.0
    else:
        points = np.arange(rows, dtype=np.float64) * model.unit
        bank_full[cap:] = points[cap:]
        val[cap:, : model.n_kinds] = points[cap:, None]
        val[cap:, model.bank_slot] = points[cap:]
    _kocka.turn_values(*model.kernel_args(), np.asarray(ph.kinds, dtype=np.int32), ph.opening_kind,
                       ph.min_bank, cap, clamp, float(bust), bank_full, val, slope)
    return TurnValues(model, ph, val, slope, cap, boundary, float(bust))


# ----- the two-player race ----------------------------------------------------------------
@dataclass(frozen=True)
class RaceSolution:
    """``win[a, b]``: P(the player to move wins | his banked units a, the other's b)."""

    win: np.ndarray
    seconds: float
    turn_evaluations: int
    turn_rows: int
    unconverged: int

    @property
    def first_player(self) -> float:
        return float(self.win[0, 0])

    @property
    def positions(self) -> int:
        """Distinct (banked scores, turn total) positions of the race; each holds one state
        per roll kind of its phase (seven or eight in Kocka)."""
        g = self.win.shape[0]
        return int(g * g * (g + 1) // 2)


def solve_race(model: TurnModel, goal: int, threads: int = 1, tol: float = 1e-13) -> RaceSolution:
    """Solve the two-player race to ``goal`` units exactly (see :mod:`_kocka`)."""
    if goal < 1:
        raise RulesError(f"goal must be at least one unit, got {goal!r}")
    kinds = np.full((2, model.n_kinds), -1, dtype=np.int32)
    for p, ph in enumerate(model.phases):
        kinds[p, : len(ph.kinds)] = ph.kinds
    win = np.zeros((goal, goal))
    start = time.perf_counter()
    evals, rows, failed = _kocka.solve_race(
        *model.kernel_args(), kinds,
        np.asarray([len(ph.kinds) for ph in model.phases], dtype=np.int32),
        np.asarray([ph.opening_kind for ph in model.phases], dtype=np.int32),
        np.asarray([ph.min_bank for ph in model.phases], dtype=np.int32),
        model.threshold, model.tail_success, win, tol, max(1, threads),
    )
    return RaceSolution(win, time.perf_counter() - start, int(evals), int(rows), int(failed))


def race_turn_values(model: TurnModel, win: np.ndarray, a: int, b: int) -> TurnValues:
    """The turn of the player to move at banked units (a, b), valued by P(win) from the
    race table ``win``: bank t -> 1 - win[b, a + t] (1 at the goal), bust -> 1 - win[b, a]."""
    goal = win.shape[0]
    if not (0 <= a < goal and 0 <= b < goal):
        raise InvalidStateError(f"scores must be below the goal of {goal} units, got ({a!r}, {b!r})")
    t = np.arange(goal - a)
    bank = 1.0 - win[b, a + t]
    return solve_turn(model, model.phase_index(a), bank, goal - a, bust=1.0 - float(win[b, a]), boundary="goal")


# ========================================================================================
# The Kocka model
# ========================================================================================
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
                  series_on_reroll: bool, six_ones_key: Hashable | None) -> list[Entry]:
    """The choices after ``roll``: normal set-asides (KOCKA-6, 10, 11), keeping for each
    number of dice left only the most points (more points never hurt: a bank allowed at
    t is allowed at t + v, and every objective here grows with the banked total), and
    series starts (KOCKA-14)."""
    n = len(roll)
    entries: list[Entry] = []
    full = is_full(roll, rules, opening)
    if full:
        value = set_aside_value(roll, n, rules, opening)
        entries.append((value // UNIT, ("roll", ("six", series_on_reroll, series_on_reroll)), 1.0))
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
                                             six_ones_key=six_ones_key)) for o, p in outcomes(NUM_DICE)], True)
        if key[0] == "six":
            _, s, here = key
            name = "compulsory six-dice roll" + (", series may start" if here else "")
            return (name, [(p, _roll_entries(rules, o, opening=False, series_here=here, series_on_reroll=s,
                                             six_ones_key=six_ones_key)) for o, p in outcomes(NUM_DICE)], False)
        _, n, s = key
        return (f"roll {n} {'die' if n == 1 else 'dice'}", [(p, _roll_entries(rules, o, opening=False, series_here=False, series_on_reroll=s,
                                                     six_ones_key=six_ones_key)) for o, p in outcomes(n)], False)

    builder = TurnModelBuilder(UNIT, expand)
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
    return KockaModel(rules, turn, dict(builder.keys), series_odds())


# ========================================================================================
# Tables
# ========================================================================================
def turn_ev_values(model: KockaModel, phase: int, cap: int = EV_CAP_UNITS) -> TurnValues:
    """Expected points banked this turn (bust = 0) for every turn state, in points."""
    bank = np.arange(cap, dtype=np.float64) * UNIT
    return solve_turn(model.turn, phase, bank, cap, bust=0.0, boundary="ev")


def turn_reach_values(model: KockaModel, phase: int, target_units: int) -> TurnValues:
    """P(this turn banks at least ``target_units``) for every turn state."""
    if target_units < 1:
        raise RulesError(f"the points to reach must be at least {UNIT}, got {target_units * UNIT!r}")
    bank = np.zeros(target_units)  # banks of target_units or more succeed
    return solve_turn(model.turn, phase, bank, target_units, bust=0.0, boundary="goal")


@lru_cache(maxsize=8)
def _cached_ev(rules: KockaRules, phase: int) -> TurnValues:
    return turn_ev_values(kocka_model(rules), phase)


@lru_cache(maxsize=512)
def _cached_reach(rules: KockaRules, phase: int, target_units: int) -> TurnValues:
    return turn_reach_values(kocka_model(rules), phase, target_units)


def _phase_names() -> list[str]:
    return [PHASE_BELOW, PHASE_HIGH]


def _check_kocka(game: Any) -> KockaRules:
    if not isinstance(game, KockaGame):
        raise RulesError(f"the Kocka solver needs a KockaGame, got {type(game).__name__}")
    return game.rules


@dataclass(frozen=True)
class KockaTurnEVSolver:
    """Table ``turn_ev``: expected points banked this turn, per phase."""

    game: str = "kocka"
    kind: str = "turn_ev"
    description: str = "expected points banked this turn, every turn state (single-turn EV)"

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = _check_kocka(game)
        model = kocka_model(rules)
        start = time.perf_counter()
        vals = [turn_ev_values(model, p) for p in (0, 1)]
        ev = np.stack([v.val[:EV_CAP_UNITS] for v in vals])
        return {"ev": ev}, {
            "cap_units": EV_CAP_UNITS, "kinds": list(model.turn.kind_names),
            "expected_turn_points": {name: v.opening for name, v in zip(_phase_names(), vals)},
            "solve_seconds": round(time.perf_counter() - start, 4),
        }

    def summary(self, table: Table) -> dict[str, Any]:
        extra = table.meta.extra
        return {"expected_turn_points": extra.get("expected_turn_points"),
                "cap": f"{extra.get('cap_units', 0) * UNIT} points"}

    def layout(self, game: Any, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """``ev[phase, turn total, slot]``, turn totals below :data:`EV_CAP_UNITS`."""
        return {"ev": ((2, EV_CAP_UNITS, kocka_model(_check_kocka(game)).turn.n_cols), np.float64)}

    def check(self, game: Any, table: Table) -> list[str]:
        model = kocka_model(_check_kocka(game))
        problems = []
        for p in (0, 1):
            tv = ev_table_values(model, table, p)
            problems += bellman_residuals(game, model, tv, p, objective="ev")
        return problems


@dataclass(frozen=True)
class KockaTurnReachSolver:
    """Table ``turn_reach``: P(bank at least T this turn), T = 50 .. target, per phase."""

    game: str = "kocka"
    kind: str = "turn_reach"
    description: str = "P(banking at least T this turn), T = 50..target in steps of 50"

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = _check_kocka(game)
        model = kocka_model(rules)
        goal = model.goal
        rows = max(goal, *(ph.min_bank for ph in model.turn.phases))
        reach = np.zeros((2, goal, rows, model.turn.n_cols), dtype=np.float32)
        start = time.perf_counter()
        openings = np.zeros((2, goal))
        for p in (0, 1):
            for target in range(1, goal + 1):
                tv = turn_reach_values(model, p, target)
                reach[p, target - 1, : tv.cap] = tv.val[: tv.cap]
                openings[p, target - 1] = tv.opening
        return {"reach": reach, "opening": openings}, {
            "kinds": list(model.turn.kind_names), "solve_seconds": round(time.perf_counter() - start, 4),
        }

    def summary(self, table: Table) -> dict[str, Any]:
        op = table["opening"]
        return {f"P(bank >= {t * UNIT}) from a fresh turn, {name}": round(float(op[p, t - 1]), 6)
                for p, name in enumerate(_phase_names()) for t in (7, 20, 40, op.shape[1]) if t <= op.shape[1]}

    def layout(self, game: Any, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """``reach[phase, target - 1, turn total, slot]`` (float32) and ``opening[phase, target - 1]``."""
        model = kocka_model(_check_kocka(game))
        rows = max(model.goal, *(ph.min_bank for ph in model.turn.phases))
        return {"reach": ((2, model.goal, rows, model.turn.n_cols), np.float32),
                "opening": ((2, model.goal), np.float64)}

    def check(self, game: Any, table: Table) -> list[str]:
        model = kocka_model(_check_kocka(game))
        problems = []
        for p in (0, 1):
            for target in (1, 7, 29, model.goal):
                if target > model.goal:
                    continue
                fresh = turn_reach_values(model, p, target)
                stored = float(table["reach"][p, target - 1, 0, model.turn.roll_slot(fresh.phase.opening_kind)])
                if abs(stored - fresh.opening) > 1e-6:
                    problems.append(f"phase {p} T={target * UNIT}: stored {stored!r} != recomputed {fresh.opening!r}")
                problems += bellman_residuals(game, model, fresh, p, objective="reach", target_units=target)
        return problems


@dataclass(frozen=True)
class KockaWinProbSolver:
    """Table ``winprob``: two-player P(win) at the start of a turn, for every score pair."""

    game: str = "kocka"
    kind: str = "winprob"
    description: str = "two-player P(win | my score, opponent's score), both optimal"

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = _check_kocka(game)
        if rules.end != "immediate":
            raise RulesError(f"the winprob table covers kocka.end='immediate' only, got {rules.end!r}")
        model = kocka_model(rules)
        sol = solve_race(model.turn, model.goal, threads=options.jobs)
        if sol.unconverged:
            raise TableError(f"{sol.unconverged} score pairs did not converge")
        return {"win": sol.win}, {
            "first_player_win": sol.first_player, "score_pairs": model.goal ** 2,
            "positions": sol.positions, "turn_evaluations": sol.turn_evaluations,
            "turn_rows_evaluated": sol.turn_rows, "solve_seconds": round(sol.seconds, 3),
            "threads": options.jobs,
        }

    def summary(self, table: Table) -> dict[str, Any]:
        extra = table.meta.extra
        return {"P(first player wins)": round(float(table["win"][0, 0]), 6),
                "score pairs": extra.get("score_pairs"),
                "(scores, turn total) positions": extra.get("positions"),
                "solve seconds": extra.get("solve_seconds")}

    def layout(self, game: Any, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """``win[my score, opponent's score]`` in units below the target (no turn model
        needed: this runs on every load)."""
        goal = _check_kocka(game).target // UNIT
        return {"win": ((goal, goal), np.float64)}

    def check(self, game: Any, table: Table) -> list[str]:
        model = kocka_model(_check_kocka(game))
        win = table["win"]
        problems = []
        if not (np.all(win >= 0) and np.all(win <= 1)):
            problems.append("win probabilities outside [0, 1]")
        goal = model.goal
        rng = np.random.default_rng(0)
        for a, b in [(0, 0), (goal - 1, goal - 1), *rng.integers(0, goal, size=(6, 2))]:
            tv = race_turn_values(model.turn, win, int(a), int(b))
            if abs(tv.opening - win[a, b]) > 1e-9:
                problems.append(f"W({a * UNIT}, {b * UNIT}) = {win[a, b]!r} is not its own turn value {tv.opening!r}")
        return problems


KOCKA_WINPROB = KockaWinProbSolver()
KOCKA_TURN_EV = KockaTurnEVSolver()
KOCKA_TURN_REACH = KockaTurnReachSolver()


def ev_table_values(model: KockaModel, table: Table, phase: int) -> TurnValues:
    """A stored ``turn_ev`` table as :class:`TurnValues`."""
    ev = table["ev"][phase]
    return TurnValues(model.turn, model.turn.phases[phase], ev, np.zeros_like(ev), ev.shape[0], "ev", 0.0)


# ========================================================================================
# Engine states -> table values
# ========================================================================================
@dataclass(frozen=True)
class Prospect:
    """Where an action leads: turn total (units), a :class:`TurnModel` slot (the bank
    slot for :class:`Bank`), and the chance q that it pays out (a series completing;
    otherwise the turn busts)."""

    total: int
    slot: int
    q: float = 1.0


def _units(points: int) -> int:
    return points // UNIT


def action_prospects(game: KockaGame, state: KockaState) -> list[tuple[Any, Prospect, str]]:
    """Every legal action at a decision state with where it leads in the turn model."""
    if game.is_terminal(state) or game.is_chance_node(state):
        raise InvalidStateError(f"kocka: no decision to rank at stage {state.stage!r}")
    model = kocka_model(game.rules)
    tm = model.turn
    phase = tm.phase_index(_units(state.scores[state.player]))
    t = _units(state.turn_total)
    out = []
    for action in game.legal_actions(state):
        if isinstance(action, Bank):
            out.append((action, Prospect(t, tm.bank_slot), f"bank {state.turn_total}"))
        elif isinstance(action, Roll) and state.stage == STAGE_BANK_OR_ROLL:
            kind = model.keys[("roll", state.dice_in_play, model.series_on_reroll(phase))]
            dice = "1 die" if state.dice_in_play == 1 else f"{state.dice_in_play} dice"
            out.append((action, Prospect(t, tm.roll_slot(kind)), f"roll {dice}"))
        elif state.stage == STAGE_JOKER:
            face, _ = state.series
            joker = action.face if isinstance(action, NameJoker) else None
            label = f"name {joker} as joker and roll" if joker else "roll the last die without a joker"
            out.append((action, Prospect(t + _units(series_value(face)), model.completion_slot(phase, face),
                                         model.series.last_die[(face, joker)]), label))
        elif isinstance(action, SetAside):
            value = game.set_aside_points(state, action.dice)
            left = state.dice_in_play - len(action.dice)
            slot = model.after_set_aside_slot(phase, left)
            what = "all six come back" if left == 0 else f"{left} {'die' if left == 1 else 'dice'} left"
            out.append((action, Prospect(t + _units(value), slot),
                        f"set aside {' '.join(map(str, action.dice))} (+{value}, {what})"))
        elif isinstance(action, StartSeries):
            out.append((action, Prospect(t + _units(series_value(action.face)), model.completion_slot(phase, action.face),
                                         model.series.after[(action.face, action.count)]),
                        f"start a series of {action.face}s with {action.count}"))
        elif isinstance(action, TakeSeries):
            face, collected = state.series
            out.append((action, Prospect(t + _units(series_value(face)), model.completion_slot(phase, face),
                                         model.series.after[(face, collected + action.count)]),
                        f"take {action.count} more {face}s ({collected + action.count} of 6)"))
        else:
            raise InvalidStateError(f"kocka: cannot value {game.describe_action(action, state)!r} at stage {state.stage!r}")
    return out


def _then(tv: TurnValues, p: Prospect) -> str:
    """For a set-aside into a free state: does the table bank or roll on there? (Ties
    bank, as in the kernel.)"""
    tm = tv.model
    if p.slot >= tm.n_kinds:
        return ""
    if p.total < tv.phase.min_bank:
        return "roll on"
    return "bank" if tv.value(p.total, tm.bank_slot) >= tv.value(p.total, tm.roll_slot(p.slot)) else "roll on"


def _value_of(tv: TurnValues, p: Prospect) -> float:
    return tv.lottery(p.total, p.slot, p.q)


def _decisions(game: KockaGame, state: KockaState, primary: TurnValues, others: Mapping[str, TurnValues]) -> list[Decision]:
    decisions = []
    for action, prospect, label in action_prospects(game, state):
        value = _value_of(primary, prospect)
        detail: dict[str, Any] = {name: _value_of(tv, prospect) for name, tv in others.items()}
        then = _then(primary, prospect)
        if then:
            detail["then"] = then
            label = f"{label}, then {then}"
        decisions.append(Decision(action, value, label, detail))
    decisions.sort(key=lambda d: -d.value)
    return decisions


# id(win table) -> (the table, kept alive so the id stays its own; turn values by score pair)
_RACE_VALUES: dict[int, tuple[np.ndarray, dict[tuple[int, int], TurnValues]]] = {}


def win_turn_values(game: KockaGame, table: Table, state: KockaState) -> TurnValues:
    """The win-probability turn values for the player to move in ``state``.

    Two players: exact. Three or more: an approximation, the race against the leading
    opponent (the one whose score is highest), documented in docs/SOLVER.md.
    """
    model = kocka_model(game.rules)
    win = table["win"]
    if win.shape[0] != model.goal:
        raise TableError(f"winprob table has {win.shape[0]} score rows, the rules need {model.goal}")
    me = _units(state.scores[state.player])
    others = [s for i, s in enumerate(state.scores) if i != state.player]
    if not others:
        raise RulesError("win probabilities need at least two players; use the turn_ev table for one")
    pair = (min(me, model.goal - 1), min(_units(max(others)), model.goal - 1))
    if id(win) not in _RACE_VALUES:
        if len(_RACE_VALUES) >= 4:
            _RACE_VALUES.clear()
        _RACE_VALUES[id(win)] = (win, {})
    cache = _RACE_VALUES[id(win)][1]
    if pair not in cache:
        if len(cache) >= 4096:
            cache.clear()
        cache[pair] = race_turn_values(model.turn, win, *pair)
    return cache[pair]


def rank(game: KockaGame, table: Table, state: KockaState) -> list[Decision]:
    """Every legal action at a decision state, best first, valued by ``table``:

    * ``winprob``: P(win) of the player to move (exact for two players; the leading
      opponent stands for all of them with three or more); detail ``ev``: expected points
      banked this turn;
    * ``turn_ev``: expected points banked this turn; detail none.
    """
    rules = _check_kocka(game)
    model = kocka_model(rules)
    phase = model.turn.phase_index(_units(state.scores[state.player]))
    if table.meta.kind == "winprob":
        return _decisions(game, state, win_turn_values(game, table, state), {"ev": _cached_ev(rules, phase)})
    if table.meta.kind == "turn_ev":
        return _decisions(game, state, ev_table_values(model, table, phase), {})
    raise TableError(f"kocka rank needs a winprob or turn_ev table, got {table.meta.kind!r}")


# ========================================================================================
# Independent spot checks (kocka-solve verify): Bellman equations through the engine
# ========================================================================================
def bellman_residuals(game: KockaGame, model: KockaModel, tv: TurnValues, phase: int, *, objective: str,
                      target_units: int = 0, tol: float = 1e-6, totals: Sequence[int] = (6, 7, 12, 30)) -> list[str]:
    """Re-derive the value of "roll n dice at turn total t" one roll deep through the
    engine (chance outcomes, legal actions, applied transitions) with the table's values
    for the states reached; report the states where it disagrees with the table."""
    one = KockaGame(game.rules, num_players=1)
    banked = model.rules.series_threshold if phase == 1 else 0
    problems = []
    s = model.series_on_reroll(phase)
    for t in totals:
        if objective == "reach" and t >= tv.cap:
            continue
        for n in range(1, NUM_DICE + 1):
            stage_state = KockaState(scores=(banked,), stage="roll", turn_total=t * UNIT, dice_in_play=n,
                                     last_event="full" if n == NUM_DICE else "roll_on")
            expect = 0.0
            for roll, p in one.chance_outcomes(stage_state):
                after = one.apply(stage_state, roll)
                if after.stage != STAGE_SET_ASIDE:
                    continue  # a bust: worth 0 under both objectives
                expect += p * max(_value_of(tv, pr) for _, pr, _ in action_prospects(one, after))
            kind = model.keys[("six", s, s) if n == NUM_DICE else ("roll", n, s)]
            table_value = tv.value(t, model.turn.roll_slot(kind))
            if abs(expect - table_value) > tol * max(1.0, abs(table_value)):
                problems.append(f"{objective} phase {phase}, total {t * UNIT}, {n} dice: engine one-step "
                                f"{expect!r} != table {table_value!r}")
    return problems


# ========================================================================================
# Ranking for hints: the turn EV computed on the fly, and P(win) with its details
# ========================================================================================
def rank_by_turn_ev(game: KockaGame, state: KockaState) -> list[Decision]:
    """Every legal action at a decision state, best first, valued by the expected points
    banked this turn (computed for the rules, no stored table needed)."""
    rules = _check_kocka(game)
    phase = kocka_model(rules).turn.phase_index(_units(state.scores[state.player]))
    return _decisions(game, state, _cached_ev(rules, phase), {})


def rank_with_details(game: KockaGame, table: Table, state: KockaState) -> list[Decision]:
    """As :func:`rank` with a ``winprob`` table, with two details per action: ``ev``
    (expected points banked this turn if the rest of it maximises them) and
    ``reach_target`` (P(this turn banks the points still needed to reach the target))."""
    rules = _check_kocka(game)
    if table.meta.kind != "winprob":
        raise TableError(f"kocka rank_with_details needs a winprob table, got {table.meta.kind!r}")
    model = kocka_model(rules)
    phase = model.turn.phase_index(_units(state.scores[state.player]))
    need = _units(game.points_to_target(state))
    reach = _cached_reach(rules, phase, max(1, min(need, model.goal)))
    return _decisions(game, state, win_turn_values(game, table, state),
                      {"ev": _cached_ev(rules, phase), "reach_target": reach})


__all__ = [
    "EV_CAP_UNITS", "KOCKA_TURN_EV", "KOCKA_TURN_REACH", "KOCKA_WINPROB", "KockaModel", "Prospect",
    "RaceSolution", "SeriesOdds", "TurnModel", "TurnModelBuilder", "TurnPhase", "TurnValues", "UNIT",
    "action_prospects", "bellman_residuals", "kocka_model", "race_turn_values", "rank", "rank_by_turn_ev",
    "rank_with_details", "series_odds", "solve_race", "solve_turn", "turn_ev_values", "turn_reach_values",
    "win_turn_values",
]
