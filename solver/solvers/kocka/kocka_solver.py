"""Kocka (10000): exact single-turn tables, two-player win probabilities, ranking.

Three layers:

* **A generic push-your-luck turn model** (:class:`TurnModel`, built with
  :class:`TurnModelBuilder`): roll *kinds* (n dice thrown in some situation), each a list
  of outcome *groups* sharing one choice set; a choice sets points aside and moves to a
  *slot* (free: bank or roll on; compulsory roll; bank now), possibly as a lottery (a
  series completes with probability q, else the turn busts). The Cython kernel
  :mod:`kocka.solver.kernels._kocka` evaluates one turn for any bank / bust values, and solves a
  two-player race to a goal (score pairs in decreasing a + b, the bust fixed point
  between (a, b) and (b, a) by Newton steps). Pig (:mod:`kocka.solver.solvers.kocka.pig`) uses the same
  machinery.
* **The Kocka model** (:func:`kocka_model`): compiled from the rules engine's scoring
  functions (``valid_set_asides``, ``is_full``, ``series_starts``, ``series_matches``,
  ``series_value``, ``series_allowed_from``) and rule queries (``KockaRules.bank_minimum``,
  ``series_on_reroll``, ``six_ones_win``); nothing here re-implements a rule.
* **Tables and ranking**: ``turn_ev`` (expected points banked this turn),
  ``turn_reach`` (P(bank >= T this turn), T = 50 .. target), ``winprob`` (two-player
  P(win)); :func:`rank` values every legal action of an engine state, and
  :func:`rank_by_turn_ev` / :func:`rank_with_details` give ``kocka hint kocka``
  (:mod:`kocka.agents.advice.kocka`) its values.

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

import itertools
import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

from kocka.solver.kernels import _kocka
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import InvalidStateError, RulesError, TableError
from kocka.solver.base.decision import BuildOptions, Decision
from kocka.solver.rules.kocka import (
    NUM_DICE, PHASE_BELOW, PHASE_HIGH, STAGE_BANK_OR_ROLL, STAGE_JOKER, STAGE_SET_ASIDE, Bank, KockaGame,
    KockaRules, KockaState, NameJoker, Roll, SetAside, StartSeries, TakeSeries, is_full, scores,
    series_allowed_from, series_matches, series_starts, series_value, set_aside_value, valid_set_asides,
)
from kocka.solver.base.parallel import cluster_client
from kocka.solver.base.progress import Progress
from kocka.solver.base.table_file import Table, TableMeta

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

    def __init__(self, unit: int, expand: Callable[[Hashable], tuple[str, Iterable, bool]],
                 order: Sequence[Hashable] = ()) -> None:
        self.unit = unit
        self.expand = expand
        self.keys: dict[Hashable, int] = {}
        # kind index -> (name, [(group probability, entries)], bust probability, opening only)
        self._specs: dict[int, tuple[str, list[tuple[float, tuple[Entry, ...]]], float, bool]] = {}
        # ``order``: kind keys whose indices are fixed in advance (another model's), so that
        # two models of the same turn share their slots
        self._seeded = deque(order)
        for key in order:
            self.keys[key] = len(self.keys)

    def kind(self, key: Hashable) -> int:
        """Index of the kind ``key``, expanding it (and the kinds it leads to) if new."""
        if key in self.keys and not self._seeded:
            return self.keys[key]
        pending = self._seeded
        self._seeded = deque()
        if key not in self.keys:
            self.keys[key] = len(self.keys)
            pending.append(key)
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
    boundary: ``"goal"`` (every bank is worth ``top``, 1 when it wins: free and bank slots
    ``top``, a roll of kind k ``tail_success[k] * top + (1 - tail_success[k]) * bust``, and
    of ``win_kind`` its scoring chance plus the bust), or ``"ev"`` (bank: t * unit points;
    a roll: 0, the cap's lower bound).
    """

    model: TurnModel
    phase: TurnPhase
    val: np.ndarray
    slope: np.ndarray
    cap: int
    boundary: str
    bust: float
    top: float = 1.0
    win_kind: int = -1

    def value(self, t: int, slot: int) -> float:
        if t < self.cap:
            return float(self.val[t, slot])
        m = self.model
        if self.boundary == "goal":
            if slot < m.n_kinds or slot == m.bank_slot:
                return self.top
            k = slot - m.n_kinds
            if k == self.win_kind:
                u = 1.0 - float(m.bust_prob[k])
                return u + (1.0 - u) * self.bust
            u = float(m.tail_success[k])
            return u * self.top + (1.0 - u) * self.bust
        return float(t * m.unit) if (slot < m.n_kinds or slot == m.bank_slot) else 0.0

    def lottery(self, t: int, slot: int, q: float) -> float:
        """Value of reaching (t, slot) with probability q, else busting."""
        return q * self.value(t, slot) + (1.0 - q) * self.bust

    @property
    def opening(self) -> float:
        return float(self.val[0, self.model.roll_slot(self.phase.opening_kind)])


def solve_turn(model: TurnModel, phase: int, bank: np.ndarray, cap: int, *, bust: float = 0.0,
               boundary: str = "goal", top: float = 1.0, win_kind: int = -1) -> TurnValues:
    """Evaluate one turn: ``bank[t]`` is the value of banking t units, ``bust`` the value
    of busting; ``boundary`` as in :class:`TurnValues`.

    ``"goal"``: a bank of ``len(bank)`` units or more is worth ``top`` (1: it reaches the
    goal), and the table ends at ``cap`` (raised to the phase's minimum bank, so that every
    state beyond may bank). ``"ev"``: ``t >= cap`` follows the cap policy. ``win_kind``: a
    kind whose scoring roll is worth 1 whatever the total (KOCKA-19), or -1.
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
    bank_full = np.full(rows, float(top))
    n = min(len(bank), cap)
    bank_full[:n] = bank[:n]
    val = np.zeros((rows, model.n_cols))
    slope = np.zeros((rows, model.n_cols))
    if boundary == "goal":
        success = model.tail_success * top
        tail = model.tail_success.copy()
        if win_kind >= 0:
            tail[win_kind] = success[win_kind] = 1.0 - model.bust_prob[win_kind]
        val[cap:, : model.n_kinds] = top
        val[cap:, model.n_kinds: 2 * model.n_kinds] = success + (1 - tail) * bust
        slope[cap:, model.n_kinds: 2 * model.n_kinds] = 1 - tail
        val[cap:, model.bank_slot] = top
    else:
        points = np.arange(rows, dtype=np.float64) * model.unit
        bank_full[cap:] = points[cap:]
        val[cap:, : model.n_kinds] = points[cap:, None]
        val[cap:, model.bank_slot] = points[cap:]
    _kocka.turn_values(*model.kernel_args(), np.asarray(ph.kinds, dtype=np.int32), ph.opening_kind,
                       ph.min_bank, cap, clamp, float(bust), bank_full, val, slope, win_kind)
    return TurnValues(model, ph, val, slope, cap, boundary, float(bust), float(top), win_kind)


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
    win = np.zeros((goal, goal))
    start = time.perf_counter()
    evals, rows, failed = _kocka.solve_race(
        *model.kernel_args(), *_phase_args(model), model.threshold, model.tail_success, win, tol, max(1, threads),
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


# ========================================================================================
# The end rules (KOCKA-20) and three players
# ========================================================================================
LEAD_UNITS = 200
"""How far past the target (units: 10000 points) a leader's bank is followed exactly under
``kocka.end = last_turn`` / ``finish_round``; beyond, every bank counts as this one (see
docs/SOLVER.md: doubling it moves no value)."""
THREE_MAX_ITER = 60
"""Newton steps per three-player rotation class before it counts as a cycle (then
:func:`resolve_class` looks for mixed play)."""
MIX_GAIN_TOL = 1e-12
"""What a pure deviation may gain in a resolved class (the equilibrium check)."""


def _phase_args(model: TurnModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The phases of ``model`` as the kernels take them: ``kinds[p]`` (the roll kinds of
    phase p, padded with -1), the number of kinds, the opening kind and the least bank per
    phase. One function because every race kernel (:func:`solve_race`, the end-rule and
    three-player races) reads the phases in this same form."""
    kinds = np.full((2, model.n_kinds), -1, dtype=np.int32)
    for p, ph in enumerate(model.phases):
        kinds[p, : len(ph.kinds)] = ph.kinds
    return (kinds, np.asarray([len(ph.kinds) for ph in model.phases], dtype=np.int32),
            np.asarray([ph.opening_kind for ph in model.phases], dtype=np.int32),
            np.asarray([ph.min_bank for ph in model.phases], dtype=np.int32))


def final_turn_values(model: KockaModel, phase: int, need: int, tie: float = 0.5) -> TurnValues:
    """The last turn of a player who must end ``need`` units above his banked score to win
    (KOCKA-20: the highest score wins; ending level is worth ``tie``, a shared win):
    P(end above) + tie x P(end level), busting (the score stays below) worth 0. A complete
    series of 1s with a scoring re-roll wins at once under ``kocka.ones_series =
    instant_win`` (KOCKA-19). Every bank is at worst level or below, never both better and
    worse, so the pruned turn model is exact here."""
    if need < 0:
        raise InvalidStateError(f"a last turn needs a score to beat, got need {need!r}")
    bank = np.zeros(need + 1)
    bank[need] = tie
    return solve_turn(model.turn, phase, bank, need + 1, bust=0.0, boundary="goal", win_kind=model.win_kind)


def final_turn_table(model: KockaModel, rows: int) -> np.ndarray:
    """``final[p, d]``: :func:`final_turn_values` opening values for d = 0 .. rows - 1, both phases."""
    return np.array([[final_turn_values(model, p, d).opening for d in range(rows)] for p in (0, 1)])


@dataclass(frozen=True)
class EndRaceSolution:
    """The two-player race under ``kocka.end = last_turn`` or ``finish_round``.

    ``win[a, b]``: P(win) of the first seat to move with a against b; ``win_second[b, a]``:
    of the second seat (the same array under ``last_turn``: the seats are alike);
    ``final[p, d]``: P(win) of a last turn in phase p that must gain more than d units
    (a tie worth half); banks are followed exactly up to ``goal + lead`` units.
    """

    win: np.ndarray
    win_second: np.ndarray
    final: np.ndarray
    lead: int
    seconds: float
    turn_evaluations: int
    unconverged: int

    @property
    def first_player(self) -> float:
        return float(self.win[0, 0])


def _leads(rules: KockaRules) -> tuple[int, int]:
    """Does a bank reaching the target by seat 0 / seat 1 give the other a last turn
    (KOCKA-20)? ``last_turn``: both; ``finish_round``: only the first seat's."""
    if rules.end == "last_turn":
        return 1, 1
    if rules.end == "finish_round":
        return 1, 0
    return 0, 0


def solve_race_ends(model: KockaModel, threads: int = 1, lead: int = LEAD_UNITS, tol: float = 1e-13) -> EndRaceSolution:
    """Solve the two-player game under ``model.rules.end`` (``last_turn`` or
    ``finish_round``) exactly, with every set-aside a separate choice (the value of a bank
    is not monotone near the target)."""
    rules = model.rules
    if rules.end == "immediate":
        raise RulesError("under kocka.end='immediate' use solve_race (the pruned model is exact there)")
    tm = model.turn_full
    goal = model.goal
    if lead < max(ph.min_bank for ph in tm.phases) + 1:
        raise RulesError(f"the lead followed past the target must exceed the minimum bank, got {lead!r}")
    top = goal + lead
    start = time.perf_counter()
    final = final_turn_table(model, top + 1)
    lead0, lead1 = _leads(rules)
    win = np.zeros((goal, goal))
    win_second = win if rules.end == "last_turn" else np.zeros((goal, goal))
    beyond = np.ascontiguousarray(np.stack([1.0 - final, 1.0 - final]))
    evals, failed = _kocka.solve_race_ends(
        *tm.kernel_args(), *_phase_args(tm), tm.threshold, tm.tail_success, model.win_kind,
        win, win_second, beyond, lead0, lead1, top, tol, max(1, threads))
    return EndRaceSolution(win, win_second, final, lead, time.perf_counter() - start, int(evals), int(failed))


def end_race_turn_values(model: KockaModel, win: np.ndarray, win_second: np.ndarray, final: np.ndarray,
                         seat: int, a: int, b: int) -> TurnValues:
    """The turn of seat ``seat`` (0: the first seat) to move with banked units a against b,
    valued by the tables of :func:`solve_race_ends` (the same turn the kernel solves)."""
    rules = model.rules
    goal = model.goal
    if not (0 <= a < goal and 0 <= b < goal):
        raise InvalidStateError(f"scores must be below the goal of {goal} units, got ({a!r}, {b!r})")
    top = final.shape[1] - 1
    nxt = win_second if seat == 0 else win
    leads = _leads(rules)[seat]
    po = model.turn.phase_index(b)
    cap = top - a if leads else goal - a
    scores_ = a + np.arange(cap)
    bank = np.ones(cap)
    below = scores_ < goal
    bank[below] = 1.0 - nxt[b, scores_[below]]
    if leads:
        bank[~below] = 1.0 - final[po, scores_[~below] - b]
    top_value = float(1.0 - final[po, top - b]) if leads else 1.0
    return solve_turn(model.turn_full, model.turn.phase_index(a), bank, cap, bust=1.0 - float(nxt[b, a]),
                      boundary="goal", top=top_value, win_kind=model.win_kind)


# ----- three players ----------------------------------------------------------------------
def three_player_kernel(model: KockaModel, win: np.ndarray) -> Any:
    """The kernel of :mod:`_kocka` bound to the three-player table ``win`` (goal, goal, goal, 3)."""
    tm = model.turn_full
    return _kocka.ThreePlayerKernel(model.turn.kernel_args(), tm.kernel_args(), *_phase_args(tm), tm.threshold,
                                    tm.tail_success, model.win_kind, win, bool(win.flags.writeable))


def classes_with_total(goal: int, total: int) -> np.ndarray:
    """The rotation classes {(x, y, z), (y, z, x), (z, x, y)} with x + y + z = ``total``,
    each as its smallest rotation (lexicographic), shape (n, 3) int32."""
    x = np.arange(max(0, total - 2 * (goal - 1)), min(goal - 1, total) + 1)
    xs, ys = np.meshgrid(x, np.arange(goal), indexing="ij")
    zs = total - xs - ys
    keep = (zs >= 0) & (zs < goal)
    xs, ys, zs = xs[keep], ys[keep], zs[keep]
    code = (xs * goal + ys) * goal + zs
    canonical = (code <= (ys * goal + zs) * goal + xs) & (code <= (zs * goal + xs) * goal + ys)
    return np.ascontiguousarray(np.stack([xs[canonical], ys[canonical], zs[canonical]], axis=1).astype(np.int32))


def _rot(u: np.ndarray) -> np.ndarray:
    """Values in the order of (y, z, x) in the order of (x, y, z)."""
    return np.array([u[2], u[0], u[1]])


def _cycle(R: Sequence[np.ndarray], beta: Sequence[float]) -> list[np.ndarray]:
    """W_i = R_i + beta_i P W_{i+1} around a rotation class (1 or 3 states)."""
    n = len(R)
    d = 1.0 - float(np.prod([beta[i % n] for i in range(3)]))
    out = []
    for i in range(n):
        i1, i2 = (i + 1) % n, (i + 2) % n
        out.append((R[i] + beta[i] * _rot(R[i1]) + beta[i] * beta[i1] * _rot(_rot(R[i2]))) / d)
    return out


@dataclass(frozen=True)
class MixedClass:
    """A three-player rotation class whose best responses cycle (no pure equilibrium):
    ``states`` the positions (mover first), ``probabilities[i]`` the chance that the mover
    of state i plays his first turn policy (None: a pure policy), ``gain`` the most a pure
    deviation gains at the stored values, ``policies`` how many distinct turn policies
    each mover took while the Newton steps cycled."""

    states: tuple[tuple[int, int, int], ...]
    probabilities: tuple[float | None, ...]
    gain: float
    policies: tuple[int, ...]
    resolved: bool

    def to_json(self) -> dict[str, Any]:
        return {"states": [list(s) for s in self.states], "probabilities": list(self.probabilities),
                "gain": self.gain, "policies": list(self.policies), "resolved": self.resolved}


def _class_states(cls: Sequence[int]) -> list[tuple[int, int, int]]:
    x, y, z = (int(v) for v in cls)
    return [(x, y, z)] if x == y == z else [(x, y, z), (y, z, x), (z, x, y)]


def class_gain(kernel: Any, win: np.ndarray, states: Sequence[tuple[int, int, int]]) -> float:
    """The most any mover of the class gains by his best pure turn policy over the stored
    values (0 at an equilibrium, up to rounding)."""
    n = len(states)
    gain = 0.0
    for i, s in enumerate(states):
        X = _rot(win[states[(i + 1) % n]])
        best = kernel.evaluate(*s, *X)[0]
        gain = max(gain, best - float(win[s][0]))
    return gain


def resolve_class(kernel: Any, win: np.ndarray, cls: Sequence[int], max_iter: int = 120,
                  rounds: int = 8, mix: bool = True) -> MixedClass:
    """Settle a rotation class whose Newton steps cycled, writing its values into ``win``.

    The movers' best responses chase each other round the three-cycle: a player nearly
    indifferent between two turn policies moves another's bust value enough to flip that
    one's choice, which flips his back. This replays the steps and collects the turn
    policies each mover takes (as the affine values ``R + beta X`` they give). It then
    tries, for every mover, each of his policies pure, or a mix of two of them with the
    probability that makes him exactly indifferent (the cycle stays linear for fixed
    probabilities: Newton on those probabilities), fewest mixes first. Each candidate is
    checked with full turn evaluations: it stands when no mover gains more than
    :data:`MIX_GAIN_TOL` by any pure policy. If none stands, the best responses at the
    closest candidate join the policies and the search repeats (``rounds`` times).
    ``mix=False`` tries pure play only and stores the closest pure candidate (to measure
    what the mixing changes)."""
    states = _class_states(cls)
    n = len(states)
    W = [win[s].copy() for s in states]
    options: list[list[tuple[np.ndarray, float]]] = [[] for _ in range(n)]
    orbit: list[list[int]] = [[] for _ in range(n)]

    def remember(i: int, R: np.ndarray, beta: float) -> int:
        for j, (R2, b2) in enumerate(options[i]):
            if abs(b2 - beta) <= 1e-13 and np.max(np.abs(R2 - R)) <= 1e-13:
                return j
        options[i].append((R, beta))
        return len(options[i]) - 1

    def respond(i: int, W_: Sequence[np.ndarray]) -> tuple[np.ndarray, float, float, float]:
        X = _rot(W_[(i + 1) % n])
        v0, v1, v2, beta, lo, hi = kernel.evaluate(*states[i], *X)
        return np.array([v0, v1, v2]) - beta * X, beta, lo, hi

    for _ in range(max_iter):
        evs = [respond(i, W) for i in range(n)]
        for i, (R, beta, _lo, _hi) in enumerate(evs):
            orbit[i].append(remember(i, R, beta))
        new = _cycle([e[0] for e in evs], [e[1] for e in evs])
        inside = all(-evs[i][2] <= new[(i + 1) % n][2] - W[(i + 1) % n][2] <= evs[i][3] for i in range(n))
        W = new
        if inside:
            for st, w in zip(states, W):
                win[st] = w
            return MixedClass(tuple(states), (None,) * n, class_gain(kernel, win, states), (1,) * n, True)
    # keep the policies of the orbit the steps ended in
    keep = [sorted(set(o[-24:])) for o in orbit]
    options = [[options[i][j] for j in keep[i]] for i in range(n)]

    def store(Ws: Sequence[np.ndarray]) -> float:
        for st, w in zip(states, Ws):
            win[st] = w
        return class_gain(kernel, win, states)

    best: tuple[float, list[np.ndarray], tuple] | None = None
    tried: set[tuple] = set()
    for _ in range(rounds):
        plays = []
        for i in range(n):
            pure = [(j, j) for j in range(len(options[i]))]
            plays.append(pure + (list(itertools.combinations(range(len(options[i])), 2)) if mix else []))
        combos = sorted((c for c in itertools.product(*plays) if c not in tried), key=lambda c: sum(a != b for a, b in c))
        candidates: list[tuple[float, list[np.ndarray], tuple]] = []
        for combo in combos:
            tried.add(combo)
            switching = [i for i in range(n) if combo[i][0] != combo[i][1]]
            found = _mix(options, combo, switching)
            if found is None:
                continue
            probs, Ws = found
            gain = store(Ws)
            if gain <= MIX_GAIN_TOL:
                return MixedClass(tuple(states), probs, gain, tuple(len(o) for o in options), True)
            candidates.append((gain, Ws, probs))
        candidates.sort(key=lambda c: c[0])
        if candidates and (best is None or candidates[0][0] < best[0]):
            best = candidates[0]
        # the best responses where the search came closest become options too (a mover's
        # policy between his two may be the one that is best at a mixed point)
        grew = False
        for _gain, Ws, _probs in candidates[:40]:
            store(Ws)
            for i in range(n):
                R, beta, _lo, _hi = respond(i, Ws)
                size = len(options[i])
                remember(i, R, beta)
                grew |= len(options[i]) > size
        if not grew:
            break
    if best is None:  # no candidate at all: keep the last Newton iterate
        best = (float("inf"), W, (None,) * n)
    gain = store(best[1])
    return MixedClass(tuple(states), best[2], gain, tuple(len(o) for o in options), False)


def _mix(options: Sequence[Sequence[tuple[np.ndarray, float]]], plays: Sequence[tuple[int, int]],
         switching: Sequence[int]) -> tuple[tuple[float | None, ...], list[np.ndarray]] | None:
    """Mover i plays ``options[i][plays[i][0]]`` with probability p_i, else
    ``options[i][plays[i][1]]`` (pure when they are the same). Solve for the p_i of the
    ``switching`` movers that make each of them indifferent; None if Newton finds none in
    [0, 1]. Returns the probabilities (None for a pure mover) and the class's values."""
    n = len(options)

    def values(p: np.ndarray) -> list[np.ndarray]:
        R, beta = [], []
        for i in range(n):
            (Ra, ba), (Rb, bb) = options[i][plays[i][0]], options[i][plays[i][1]]
            q = p[switching.index(i)] if i in switching else 1.0
            R.append(q * Ra + (1 - q) * Rb)
            beta.append(q * ba + (1 - q) * bb)
        return _cycle(R, beta)

    if not switching:
        return (None,) * n, values(np.zeros(0))

    def gaps(p: np.ndarray) -> np.ndarray:
        Ws = values(p)
        out = []
        for i in switching:
            (Ra, ba), (Rb, bb) = options[i][plays[i][0]], options[i][plays[i][1]]
            X0 = Ws[(i + 1) % n][2]
            out.append((Ra[0] + ba * X0) - (Rb[0] + bb * X0))
        return np.array(out)

    k = len(switching)
    starts = [np.full(k, 0.5)] + [np.array(c) for c in itertools.product((0.15, 0.5, 0.85), repeat=k)]
    for p in starts:
        p = _newton(gaps, p)
        if p is not None:
            probs = tuple(float(p[switching.index(i)]) if i in switching else None for i in range(n))
            return probs, values(p)
    return None


def _newton(gaps: Callable[[np.ndarray], np.ndarray], p: np.ndarray) -> np.ndarray | None:
    """A root of ``gaps`` in [0, 1]^k from ``p`` (Newton, central-difference Jacobian),
    or None."""
    for _ in range(40):
        f = gaps(p)
        if np.max(np.abs(f)) < 1e-16:
            break
        jac = np.empty((len(p), len(p)))
        for j in range(len(p)):
            h = np.zeros(len(p))
            h[j] = 1e-6
            jac[:, j] = (gaps(p + h) - gaps(p - h)) / 2e-6
        try:
            p = p - np.linalg.solve(jac, f)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(p)) or np.max(np.abs(p)) > 1e3:
            return None
    if not (np.all(p >= -1e-9) and np.all(p <= 1 + 1e-9)) or np.max(np.abs(gaps(p))) > 1e-14:
        return None
    return np.clip(p, 0.0, 1.0)


@dataclass(frozen=True)
class ThreeSolution:
    """``win[x, y, z, i]``: P(player i of the order wins) at banked units (x, y, z), x to
    move, y next, z last (i = 0, 1, 2), every player maximising his own chance."""

    win: np.ndarray
    seconds: float
    classes: int
    turn_evaluations: int
    turn_rows: int
    full_evaluations: int
    mixed: tuple[MixedClass, ...]

    @property
    def start(self) -> tuple[float, float, float]:
        """P(seat 1 / 2 / 3 wins) from the start (seat 1 moves first)."""
        return tuple(float(v) for v in self.win[0, 0, 0])

    @property
    def unresolved(self) -> int:
        return sum(not m.resolved for m in self.mixed)


class LocalClassRunner:
    """Solves the rotation classes of one total on this machine's OpenMP threads."""

    def __init__(self, model: KockaModel, win: np.ndarray, threads: int) -> None:
        self.kernel = three_player_kernel(model, win)
        self.threads = max(1, threads)

    def solve(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(status, rows, full)`` per class (see ``ThreePlayerKernel.solve_classes``)."""
        status = np.empty(len(classes), dtype=np.int32)
        rows = np.empty(len(classes), dtype=np.int64)
        full = np.empty(len(classes), dtype=np.int64)
        self.kernel.solve_classes(classes, status, rows, full, 1e-13, THREE_MAX_ITER, self.threads)
        return status, rows, full

    def publish(self, states: np.ndarray, values: np.ndarray) -> None:
        """Values settled elsewhere (resolved classes); the local table already holds them."""

    def close(self) -> None:
        pass


def solve_three(model: KockaModel, threads: int = 1, runner: Any = None,
                progress: Callable[[int], None] | None = None, mix: bool = True) -> ThreeSolution:
    """Solve the three-player game under ``kocka.end = immediate`` exactly.

    Rotation classes are solved in decreasing total x + y + z (a bank raises one score;
    only a bust stays in the class), those of one total in parallel by ``runner``
    (default: :class:`LocalClassRunner` on ``threads`` OpenMP threads; the dask backend
    passes one that spreads them over a cluster). Classes whose Newton steps cycle are
    settled by :func:`resolve_class` (``mix=False``: pure play only, for comparison).
    ``progress(n)`` is told each time n more classes are done."""
    rules = model.rules
    if rules.end != "immediate":
        raise RulesError(f"the three-player table covers kocka.end='immediate' only, got {rules.end!r}")
    goal = model.goal
    win = np.zeros((goal, goal, goal, 3))
    own_runner = runner is None
    if own_runner:
        runner = LocalClassRunner(model, win, threads)
    else:
        runner.attach(model, win)
    kernel = three_player_kernel(model, win)
    start = time.perf_counter()
    evals = rows = full = n_classes = 0
    mixed: list[MixedClass] = []
    try:
        for total in range(3 * (goal - 1), -1, -1):
            classes = classes_with_total(goal, total)
            status, done, with_all = runner.solve(classes)
            n_classes += len(classes)
            evals += int(np.abs(status).sum())
            rows += int(done.sum())
            full += int(with_all.sum())
            failed = classes[status < 0]
            if len(failed):
                settled = [resolve_class(kernel, win, c, mix=mix) for c in failed]
                mixed.extend(settled)
                states = np.array([s for m in settled for s in m.states], dtype=np.int32)
                runner.publish(states, win[states[:, 0], states[:, 1], states[:, 2]])
            if progress is not None:
                progress(len(classes))
    finally:
        if not own_runner:
            runner.close()
    return ThreeSolution(win, time.perf_counter() - start, n_classes, evals, rows, full, tuple(mixed))


class ThreePlayerWorker:
    """A dask actor holding its own copy of the three-player table: it solves the classes
    it is sent after taking in the values settled since its last call (every worker's,
    and the resolved mixed classes), so every copy stays bitwise equal to the client's."""

    def __init__(self, rules: Mapping[str, Any], threads: int = 1) -> None:
        self.model = kocka_model(KockaRules.from_options(rules))
        goal = self.model.goal
        self.win = np.zeros((goal, goal, goal, 3))
        self.runner = LocalClassRunner(self.model, self.win, threads)

    def solve(self, classes: np.ndarray, states: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
        if len(states):
            self.win[states[:, 0], states[:, 1], states[:, 2]] = values
        status, rows, full = self.runner.solve(classes)
        rot = _rotations(classes)
        return status, rows, full, self.win[rot[:, 0], rot[:, 1], rot[:, 2]]


def _rotations(classes: np.ndarray) -> np.ndarray:
    """The three states of each class, (3 n, 3): (x, y, z), (y, z, x), (z, x, y)."""
    if not len(classes):
        return np.zeros((0, 3), dtype=np.int32)
    return np.concatenate([classes, np.roll(classes, -1, axis=1), np.roll(classes, -2, axis=1)])


class DaskClassRunner:
    """Spreads the classes of each total over the workers of a dask cluster, one
    :class:`ThreePlayerWorker` actor per worker (each with ``threads`` OpenMP threads)."""

    def __init__(self, client: Any, threads: int = 1) -> None:
        self.client = client
        self.threads = max(1, threads)
        self.actors: list[Any] = []

    def attach(self, model: KockaModel, win: np.ndarray) -> None:
        self.win = win
        workers = sorted(self.client.scheduler_info()["workers"])
        if not workers:
            raise TableError("the dask cluster has no workers")
        futures = [self.client.submit(ThreePlayerWorker, model.rules.options(), self.threads, actor=True,
                                      workers=[w], pure=False) for w in workers]
        self.actors = [f.result() for f in futures]
        self.sent = np.zeros((0, 3), dtype=np.int32)

    def solve(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # the values settled at the previous total (the client's, mixed classes included)
        states = self.sent
        values = self.win[states[:, 0], states[:, 1], states[:, 2]]
        chunks = np.array_split(classes, len(self.actors))
        calls = [actor.solve(chunk, states, values) for actor, chunk in zip(self.actors, chunks)]
        results = [c.result() for c in calls]
        for chunk, result in zip(chunks, results):
            rot = _rotations(chunk)
            self.win[rot[:, 0], rot[:, 1], rot[:, 2]] = result[3]
        self.sent = _rotations(classes)
        return tuple(np.concatenate([r[i] for r in results]) for i in range(3))

    def publish(self, states: np.ndarray, values: np.ndarray) -> None:
        """Resolved classes are among the states sent with the next call."""

    def close(self) -> None:
        self.actors = []


def dask_class_runner(threads: int = 1) -> DaskClassRunner:
    """A :class:`DaskClassRunner` on the cluster of ``--backend dask``
    (``$DASK_SCHEDULER_ADDRESS``, or a local cluster)."""
    return DaskClassRunner(cluster_client("dask"), threads=1 if threads is None else threads)


def three_turn_values(model: KockaModel, win: np.ndarray, x: int, y: int, z: int,
                      kernel: Any = None) -> tuple[TurnValues, np.ndarray]:
    """The turn of the mover at (x, y, z) (units; y moves next, z last), valued by the
    three-player table: his P(win) as :class:`TurnValues`, and ``others[j, t, slot]``,
    the next (j = 0) and last (j = 1) player's P(win) under his choices."""
    goal = model.goal
    if not all(0 <= v < goal for v in (x, y, z)):
        raise InvalidStateError(f"scores must be below the goal of {goal} units, got ({x!r}, {y!r}, {z!r})")
    kernel = kernel if kernel is not None else three_player_kernel(model, win)
    rows = kernel.rows
    arrays = tuple(np.zeros((rows, kernel.n_cols)) for _ in range(4))
    X = _rot(win[y, z, x])
    *_, cap = kernel.evaluate(x, y, z, *X, values=arrays)
    tm = model.turn_full
    phase = tm.phase_index(x)
    tv = TurnValues(tm, tm.phases[phase], arrays[0], arrays[3], cap, "goal", float(X[0]), 1.0, model.win_kind)
    return tv, np.stack([arrays[1], arrays[2]])


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


def _players_recorded(meta: TableMeta, players: int, kind: str) -> None:
    recorded = meta.extra.get("players", 2)
    if recorded != players:
        raise TableError(f"the {kind} table is for {recorded!r} players, this one is for {players}")


@dataclass(frozen=True)
class KockaWinProbSolver:
    """Table ``winprob``: two-player P(win) at the start of a turn, for every score pair,
    under every end rule (KOCKA-20).

    Arrays: ``win[a, b]`` (the first seat to move with a against b; both seats alike except
    under ``finish_round``); with ``last_turn`` / ``finish_round`` also ``final[p, d]``
    (the last turn of a player in phase p who must gain more than d units, a tie worth
    half) and with ``finish_round`` ``win_second[b, a]`` (the second seat to move)."""

    game: str = "kocka"
    kind: str = "winprob"
    description: str = "two-player P(win | my score, opponent's score), both optimal, every end rule"
    players: tuple[int, ...] = (2,)

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = _check_kocka(game)
        model = kocka_model(rules)
        if rules.end == "immediate":
            sol = solve_race(model.turn, model.goal, threads=options.jobs)
            if sol.unconverged:
                raise TableError(f"{sol.unconverged} score pairs did not converge")
            return {"win": sol.win}, {
                "players": 2, "first_player_win": sol.first_player, "score_pairs": model.goal ** 2,
                "positions": sol.positions, "turn_evaluations": sol.turn_evaluations,
                "turn_rows_evaluated": sol.turn_rows, "solve_seconds": round(sol.seconds, 3),
                "threads": options.jobs,
            }
        ends = solve_race_ends(model, threads=options.jobs)
        if ends.unconverged:
            raise TableError(f"{ends.unconverged} score pairs did not converge")
        arrays = {"win": ends.win, "final": ends.final}
        if rules.end == "finish_round":
            arrays["win_second"] = ends.win_second
        return arrays, {
            "players": 2, "first_player_win": ends.first_player, "score_pairs": model.goal ** 2,
            "lead_units": ends.lead, "turn_evaluations": ends.turn_evaluations,
            "solve_seconds": round(ends.seconds, 3), "threads": options.jobs,
        }

    def summary(self, table: Table) -> dict[str, Any]:
        extra = table.meta.extra
        return {"P(first player wins)": round(float(table["win"][0, 0]), 6),
                "end rule": table.meta.rules.get("end", "immediate"),
                "score pairs": extra.get("score_pairs"),
                "solve seconds": extra.get("solve_seconds")}

    def layout(self, game: Any, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """``win[my score, opponent's score]`` in units below the target, plus ``final`` and
        ``win_second`` by end rule (no turn model needed: this runs on every load)."""
        rules = _check_kocka(game)
        _players_recorded(meta, 2, self.kind)
        goal = rules.target // UNIT
        out: dict[str, tuple[tuple[int, ...], Any]] = {"win": ((goal, goal), np.float64)}
        if rules.end != "immediate":
            out["final"] = ((2, goal + int(meta.extra.get("lead_units", LEAD_UNITS)) + 1), np.float64)
        if rules.end == "finish_round":
            out["win_second"] = ((goal, goal), np.float64)
        return out

    def check(self, game: Any, table: Table) -> list[str]:
        rules = _check_kocka(game)
        model = kocka_model(rules)
        win = table["win"]
        problems = []
        if not (np.all(win >= 0) and np.all(win <= 1)):
            problems.append("win probabilities outside [0, 1]")
        goal = model.goal
        rng = np.random.default_rng(0)
        pairs = [(0, 0), (goal - 1, goal - 1), *rng.integers(0, goal, size=(6, 2))]
        if rules.end == "immediate":
            for a, b in pairs:
                tv = race_turn_values(model.turn, win, int(a), int(b))
                if abs(tv.opening - win[a, b]) > 1e-9:
                    problems.append(f"W({a * UNIT}, {b * UNIT}) = {win[a, b]!r} is not its own turn value {tv.opening!r}")
            return problems
        final = table["final"]
        second = table["win_second"] if rules.end == "finish_round" else win
        for d in (0, 1, 7, final.shape[1] - 1):
            for p in (0, 1):
                fresh = final_turn_values(model, p, d).opening
                if abs(fresh - final[p, d]) > 1e-12:
                    problems.append(f"last turn, phase {p}, lead {d * UNIT}: stored {final[p, d]!r} != {fresh!r}")
        for a, b in pairs:
            for seat, table_ in ((0, win), (1, second)):
                tv = end_race_turn_values(model, win, second, final, seat, int(a), int(b))
                if abs(tv.opening - table_[a, b]) > 1e-9:
                    problems.append(f"seat {seat + 1} at ({a * UNIT}, {b * UNIT}): {table_[a, b]!r} is not its own "
                                    f"turn value {tv.opening!r}")
        return problems


@dataclass(frozen=True)
class KockaWinProb3Solver:
    """Table ``winprob3``: three-player P(win) of each player at the start of a turn, for
    every triple of banked scores (``kocka.end = immediate``)."""

    game: str = "kocka"
    kind: str = "winprob3"
    description: str = "three-player P(win) of each player | the three scores in turn order, all optimal"
    players: tuple[int, ...] = (3,)

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = _check_kocka(game)
        if rules.end != "immediate":
            raise RulesError(f"the three-player table covers kocka.end='immediate' only, got {rules.end!r} "
                             "(with three players the other end rules use the two-player table, racing the leader)")
        model = kocka_model(rules)
        goal = model.goal
        bar = Progress((goal ** 3 + 2 * goal) // 3, "kocka three-player classes", "classes", enabled=options.progress)
        runner = dask_class_runner(options.jobs) if options.backend == "dask" else None
        sol = solve_three(model, threads=options.jobs, runner=runner, progress=bar.advance)
        bar.close()
        if sol.unresolved:
            raise TableError(f"{sol.unresolved} three-player classes have no equilibrium the solver can verify")
        return {"win": sol.win}, {
            "players": 3, "start": list(sol.start), "classes": sol.classes, "score_triples": goal ** 3,
            "turn_evaluations": sol.turn_evaluations, "turn_rows_evaluated": sol.turn_rows,
            "evaluations_with_every_set_aside": sol.full_evaluations, "mixed_classes": [m.to_json() for m in sol.mixed], "solve_seconds": round(sol.seconds, 3),
            "threads": options.jobs, "backend": options.backend,
        }

    def summary(self, table: Table) -> dict[str, Any]:
        extra = table.meta.extra
        start = table["win"][0, 0, 0]
        return {"P(seat 1 wins)": round(float(start[0]), 6), "P(seat 2 wins)": round(float(start[1]), 6),
                "P(seat 3 wins)": round(float(start[2]), 6), "score triples": extra.get("score_triples"),
                "classes with mixed play": sum(1 for m in extra.get("mixed_classes", ())
                                               if any(p is not None for p in m["probabilities"])),
                "solve seconds": extra.get("solve_seconds")}

    def layout(self, game: Any, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """``win[x, y, z, i]``: x to move, y next, z last (units); i the player of that order."""
        _players_recorded(meta, 3, self.kind)
        goal = _check_kocka(game).target // UNIT
        return {"win": ((goal, goal, goal, 3), np.float64)}

    def check(self, game: Any, table: Table) -> list[str]:
        model = kocka_model(_check_kocka(game))
        win = table["win"]
        goal = model.goal
        problems = []
        if not (np.all(win >= 0) and np.all(win <= 1)):
            problems.append("win probabilities outside [0, 1]")
        if np.max(np.abs(win.sum(axis=-1) - 1.0)) > 1e-12:
            problems.append(f"the three win probabilities do not sum to 1 (off by {np.max(np.abs(win.sum(axis=-1) - 1)):.3g})")
        kernel = three_player_kernel(model, win)
        mixed = {tuple(s) for m in table.meta.extra.get("mixed_classes", ()) for s in m["states"]}
        rng = np.random.default_rng(0)
        for x, y, z in [(0, 0, 0), (goal - 1, goal - 1, goal - 1), *rng.integers(0, goal, size=(8, 3))]:
            X = _rot(win[y, z, x])
            got = np.array(kernel.evaluate(int(x), int(y), int(z), *X)[:3])
            off = np.abs(got - win[x, y, z])
            if off[0] > 1e-12 or ((int(x), int(y), int(z)) not in mixed and off.max() > 1e-12):
                problems.append(f"W({x * UNIT}, {y * UNIT}, {z * UNIT}) = {list(win[x, y, z])!r} is not its own "
                                f"turn value {list(got)!r}")
        for m in table.meta.extra.get("mixed_classes", ()):
            gain = class_gain(kernel, win, [tuple(s) for s in m["states"]])
            if gain > MIX_GAIN_TOL:
                problems.append(f"mixed class {m['states'][0]!r}: a pure deviation gains {gain:.3g}")
        return problems


KOCKA_WINPROB = KockaWinProbSolver()
KOCKA_WINPROB3 = KockaWinProb3Solver()
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


# id(win table) -> (the table, kept alive so the id stays its own; turn values by position)
_WIN_VALUES: dict[int, tuple[np.ndarray, dict[Hashable, Any]]] = {}


def _win_cache(win: np.ndarray) -> dict[Hashable, Any]:
    if id(win) not in _WIN_VALUES:
        if len(_WIN_VALUES) >= 4:
            _WIN_VALUES.clear()
        _WIN_VALUES[id(win)] = (win, {})
    cache = _WIN_VALUES[id(win)][1]
    if len(cache) >= 4096:
        kernel = cache.get("kernel")
        cache.clear()
        if kernel is not None:
            cache["kernel"] = kernel
    return cache


def win_table_kind(game: KockaGame) -> str:
    """The win table a game of ``game.num_players`` uses: ``winprob3`` for three or more
    players under ``kocka.end = immediate`` (exact for three; for four or more the two
    leading opponents stand for all, see docs/SOLVER.md), otherwise ``winprob`` (exact
    for two; with more, the race against the leading opponent)."""
    return "winprob3" if game.num_players >= 3 and game.rules.end == "immediate" else "winprob"


def leading_opponents(scores: Sequence[int], player: int, count: int) -> list[int]:
    """The ``count`` highest scores among the other players, kept in turn order after
    ``player`` (equal scores: the one moving sooner first).

    >>> leading_opponents((1000, 4000, 7000, 3000), 0, 2)
    [4000, 7000]
    >>> leading_opponents((1000, 4000, 7000, 3000), 2, 1)
    [4000]
    """
    n = len(scores)
    order = [scores[(player + k) % n] for k in range(1, n)]
    chosen = sorted(sorted(range(len(order)), key=lambda i: -order[i])[:count])
    return [order[i] for i in chosen]


def win_turn_values(game: KockaGame, table: Table, state: KockaState) -> TurnValues:
    """The win-probability turn values for the player to move in ``state``.

    * A last turn (someone reached the target under ``last_turn`` / ``finish_round``):
      beat the best score of the others (:func:`final_turn_values`; exact for two players
      and for the last player to move).
    * ``winprob3`` table: three players exactly; four or more with the two leading
      opponents in turn order standing for all.
    * ``winprob`` table: two players exactly, under every end rule; three or more: the
      race against the leading opponent.

    The approximations are measured in docs/SOLVER.md.
    """
    rules = game.rules
    model = kocka_model(rules)
    n = game.num_players
    if n < 2:
        raise RulesError("win probabilities need at least two players; use the turn_ev table for one")
    win = table["win"]
    if win.shape[0] != model.goal:
        raise TableError(f"{table.meta.kind} table has {win.shape[0]} score rows, the rules need {model.goal}")
    me = _units(state.scores[state.player])
    cache = _win_cache(win)
    top = model.goal - 1
    if state.final_turns is not None:
        others = [s for i, s in enumerate(state.scores) if i != state.player]
        best = max(others)
        key: Hashable = ("final", model.turn.phase_index(me), _units(best) - me, others.count(best))
        if key not in cache:
            cache[key] = final_turn_values(model, key[1], key[2], 1.0 / (1 + key[3]))
        return cache[key]
    if table.meta.kind == "winprob3":
        y, z = (min(_units(s), top) for s in leading_opponents(state.scores, state.player, 2))
        key = ("three", min(me, top), y, z)
        if key not in cache:
            if "kernel" not in cache:
                cache["kernel"] = three_player_kernel(model, win)
            cache[key] = three_turn_values(model, win, key[1], y, z, cache["kernel"])[0]
        return cache[key]
    b = min(_units(leading_opponents(state.scores, state.player, 1)[0]), top)
    a = min(me, top)
    if rules.end == "immediate":
        key = ("race", a, b)
        if key not in cache:
            cache[key] = race_turn_values(model.turn, win, a, b)
        return cache[key]
    # finish_round: is a player seated after me in this round (then my reaching the target
    # gives him a last turn, like the first seat of two)?
    seat = 0 if rules.end == "last_turn" or state.player < n - 1 else 1
    key = ("ends", seat, a, b)
    if key not in cache:
        second = table["win_second"] if rules.end == "finish_round" else win
        cache[key] = end_race_turn_values(model, win, second, table["final"], seat, a, b)
    return cache[key]


def rank(game: KockaGame, table: Table, state: KockaState) -> list[Decision]:
    """Every legal action at a decision state, best first, valued by ``table``:

    * ``winprob`` / ``winprob3``: P(win) of the player to move (:func:`win_turn_values`
      says where it is exact); detail ``ev``: expected points banked this turn;
    * ``turn_ev``: expected points banked this turn; detail none.
    """
    rules = _check_kocka(game)
    model = kocka_model(rules)
    phase = model.turn.phase_index(_units(state.scores[state.player]))
    if table.meta.kind in ("winprob", "winprob3"):
        return _decisions(game, state, win_turn_values(game, table, state), {"ev": _cached_ev(rules, phase)})
    if table.meta.kind == "turn_ev":
        return _decisions(game, state, ev_table_values(model, table, phase), {})
    raise TableError(f"kocka rank needs a winprob, winprob3 or turn_ev table, got {table.meta.kind!r}")


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
    if table.meta.kind not in ("winprob", "winprob3"):
        raise TableError(f"kocka rank_with_details needs a winprob table, got {table.meta.kind!r}")
    model = kocka_model(rules)
    phase = model.turn.phase_index(_units(state.scores[state.player]))
    need = _units(game.points_to_target(state))
    reach = _cached_reach(rules, phase, max(1, min(need, model.goal)))
    return _decisions(game, state, win_turn_values(game, table, state),
                      {"ev": _cached_ev(rules, phase), "reach_target": reach})


__all__ = [
    "EV_CAP_UNITS", "KOCKA_TURN_EV", "KOCKA_TURN_REACH", "KOCKA_WINPROB", "KOCKA_WINPROB3", "LEAD_UNITS",
    "DaskClassRunner", "EndRaceSolution", "KockaModel", "LocalClassRunner", "MixedClass", "Prospect",
    "RaceSolution", "SeriesOdds", "ThreePlayerWorker", "ThreeSolution", "TurnModel", "TurnModelBuilder",
    "TurnPhase", "TurnValues", "UNIT", "action_prospects", "bellman_residuals", "class_gain",
    "classes_with_total", "end_race_turn_values", "final_turn_table", "final_turn_values", "kocka_model",
    "leading_opponents", "race_turn_values", "rank", "rank_by_turn_ev", "rank_with_details", "resolve_class",
    "series_odds", "solve_race", "solve_race_ends", "solve_three", "solve_turn", "three_player_kernel",
    "three_turn_values", "turn_ev_values", "turn_reach_values", "win_table_kind", "win_turn_values",
]
