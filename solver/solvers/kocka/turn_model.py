"""The generic push-your-luck turn: roll kinds, the choices after a roll, one turn's values.

A :class:`TurnModel` (built with :class:`TurnModelBuilder`) is a set of roll *kinds* (n dice
thrown in some situation), each a list of outcome *groups* sharing one choice set; a choice
sets points aside and moves to a *slot* (free: bank or roll on; compulsory roll; bank now),
possibly as a lottery (a series completes with probability q, else the turn busts). The
Cython kernel :mod:`kocka.solver.kernels._kocka` evaluates one turn for any bank and bust
values (:func:`solve_turn`); the races between players are built on it
(:mod:`~kocka.solver.solvers.kocka.race`, :mod:`~kocka.solver.solvers.kocka.end_race`,
:mod:`~kocka.solver.solvers.kocka.three_players`). Nothing here knows a game: Kocka
(:mod:`~kocka.solver.solvers.kocka.kocka_turn`) and Pig (:mod:`~kocka.solver.solvers.kocka.pig`)
compile their turns into this model.
"""
from __future__ import annotations

import weakref
from collections import deque
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable, Sequence

import numpy as np

from kocka.solver.base.errors import RulesError
from kocka.solver.kernels import _kocka


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

    def phase_args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The phases as the race kernels take them: ``kinds[p]`` (the roll kinds of phase
        p, padded with -1), the number of kinds, the opening kind and the least bank per
        phase. One method because every race kernel (the two-player race, the end-rule and
        three-player races) reads the phases in this same form."""
        kinds = np.full((2, self.n_kinds), -1, dtype=np.int32)
        for p, ph in enumerate(self.phases):
            kinds[p, : len(ph.kinds)] = ph.kinds
        return (kinds, np.asarray([len(ph.kinds) for ph in self.phases], dtype=np.int32),
                np.asarray([ph.opening_kind for ph in self.phases], dtype=np.int32),
                np.asarray([ph.min_bank for ph in self.phases], dtype=np.int32))

    def race_turn(self, win_kind: int = -1) -> _kocka.RaceTurn:
        """The turn with its phases as the kernels take it; ``win_kind``: a kind whose
        scoring roll wins the game at once (KOCKA-19), or -1. Built once per win kind (the
        turn never changes; building one costs about a tenth of a turn evaluation)."""
        turns = _RACE_TURNS.setdefault(self, {})
        if win_kind not in turns:
            turns[win_kind] = _kocka.RaceTurn(self.kernel_args(), self.phase_args(), self.threshold, self.tail_success,
                                              win_kind)
        return turns[win_kind]

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


_RACE_TURNS: weakref.WeakKeyDictionary[TurnModel, dict[int, _kocka.RaceTurn]] = weakref.WeakKeyDictionary()
"""Each turn's :meth:`TurnModel.race_turn` per win kind (kept outside the frozen model, which pickles)."""


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
    _kocka.turn_values(model.race_turn(win_kind), phase, cap, clamp, float(bust), bank_full, val, slope)
    return TurnValues(model, ph, val, slope, cap, boundary, float(bust), float(top), win_kind)


__all__ = ["Entry", "Slot", "TurnModel", "TurnModelBuilder", "TurnPhase", "TurnValues", "solve_turn"]
