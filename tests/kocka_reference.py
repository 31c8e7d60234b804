"""Independent references for the Kocka tables: the win tables (tests/test_kocka_end_rules.py,
tests/test_kocka_three.py, tests/test_kocka_four.py) and, through :func:`series_completion`, :func:`options_of_roll`
and :func:`bank_chance`, the one-turn recursion of tests/test_kocka_solver.py.

Written from RULES.md section 1 on top of the engine's scoring functions only
(``valid_set_asides``, ``is_full``, ``scores``, ``series_starts``, ``series_value``) and a
series expectimax through the engine's own series states; nothing of
the solver (``kocka.solver.solvers.kocka``) is used. Every set-aside is its own option (no pruning:
under ``last_turn`` and with three players more points can be worse). Outcomes with the
same list of options are merged, which changes no value.

:class:`BatchTurn` evaluates one turn for a batch of positions at once (numpy over the
batch), each with its own bank values, bust value and cap; values are vectors of C
components (the mover's P(win) first; the mover maximises component 0, ties to the first
option and to banking). The games are then solved by **plain value iteration** over all
positions (Jacobi sweeps: every position's turn re-evaluated from the previous sweep's
values until nothing moves), with no ordering, no Newton steps and no cycle handling.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np

from kocka.solver.base.dice import outcome_distribution
from kocka.solver.rules.kocka import KockaGame, KockaState
from kocka.solver.rules.kocka_scoring import (
    NUM_DICE, KockaRules, is_full, scores, series_starts, series_value, valid_set_asides,
)

UNIT = 50


@lru_cache(maxsize=None)
def series_completion(rules: KockaRules, face: int, collected: int) -> float:
    """P(a series of ``face`` with ``collected`` dice aside completes), by expectimax over
    the engine's series states (KOCKA-15, 17, 18)."""
    if collected == NUM_DICE:
        return 1.0
    game = KockaGame(rules, num_players=1)
    memo: dict[KockaState, float] = {}

    def value(state: KockaState) -> float:
        if state not in memo:
            if state.last_event == "bust":
                memo[state] = 0.0
            elif state.last_event == "series_complete":
                memo[state] = 1.0
            elif game.is_chance_node(state):
                memo[state] = sum(p * value(game.apply(state, o)) for o, p in game.chance_outcomes(state))
            else:
                memo[state] = max(value(game.apply(state, a)) for a in game.legal_actions(state))
        return memo[state]

    stage = "joker" if collected == NUM_DICE - 1 else "roll"
    return value(KockaState(scores=(rules.series_threshold,), stage=stage, dice_in_play=NUM_DICE - collected,
                            series=(face, collected), last_event="series"))


def options_of_roll(rules: KockaRules, roll: tuple[int, ...], opening: bool, series: bool) -> list[tuple]:
    """The options of one roll, each once ([] is a bust): ``("free", points, dice left)``,
    ``("reroll", points)`` (every die set aside), ``("series", points, q, context)`` (a
    series started, completed with chance q, then ``"after_series"`` or ``"six_ones"``)
    where ``series`` allows one. Points are in units of 50; ``opening``: the first roll of
    the turn (KOCKA-8, KOCKA-14). :class:`BatchTurn` and test_kocka_solver's
    ``ReferenceTurn`` both read a roll this way, so the two references agree on the rules."""
    full = is_full(roll, rules, opening)
    options: list[tuple] = []
    for dice, value in valid_set_asides(roll, rules, opening):
        if full and dice != roll:
            continue  # KOCKA-10: a full roll is set aside whole
        option = ("reroll", value // UNIT) if len(dice) == len(roll) else ("free", value // UNIT, len(roll) - len(dice))
        if option not in options:
            options.append(option)
    if series and not (full and rules.series_from_full == "forbidden"):
        for face, count in series_starts(roll):
            done = "six_ones" if face == 1 and rules.six_ones_win else "after_series"
            options.append(("series", series_value(face) // UNIT, series_completion(rules, face, count), done))
    return options


def bank_chance(groups: dict, tol: float = 1e-17, max_sweeps: int = 500) -> dict:
    """P(the turn ends in a bank or a win | a compulsory roll) in each context of ``groups``
    when every bank is allowed (the value of a roll beyond every cap), by iteration from 0.
    ``groups[ctx]``: (probability, options) per outcome, options as :func:`options_of_roll`
    gives them or ``("win",)``; every context a series or re-roll leads to is among them.
    Shared by :class:`BatchTurn` and test_kocka_solver's ``ReferenceTurn``."""
    u = {c: 0.0 for c in groups}
    for _ in range(max_sweeps):
        new = {}
        for c in groups:
            total = 0.0
            for p, opts in groups[c]:
                best = 0.0
                for o in opts:
                    if o[0] in ("free", "win"):
                        best = 1.0
                    elif o[0] == "reroll":
                        best = max(best, u["reroll"])
                    elif o[0] == "series":
                        best = max(best, o[2] * u[o[3]])
                total += p * best
            new[c] = total
        if max(abs(new[c] - u[c]) for c in groups) < tol:
            return new
        u = new
    raise AssertionError("P(the turn ends in a bank) did not converge")


class BatchTurn:
    """One turn of a player in one phase (``high``: 2500+), for a batch of positions.

    Contexts: ``("on", n)`` rolling n = 1..5 dice on, ``"reroll"`` the compulsory roll
    after a full roll (KOCKA-11), ``"after_series"`` after a complete series (KOCKA-17),
    ``"six_ones"`` after a complete series of 1s when a scoring re-roll wins at once
    (KOCKA-19, ``six_ones_win``), ``"opening"`` the first roll (KOCKA-8, KOCKA-14).
    Options: ``("free", points, dice left)``, ``("reroll", points)``, ``("series", points,
    q, context)``, ``("win",)``.

    :meth:`evaluate` keeps the values it has computed in one array, ``values[slot, t]``
    (slots: after a set-aside with n dice left, a roll in each context, the win), reads
    each distinct option once per turn total, and with a single component (two players)
    takes the best option of every outcome at once (a maximum, where ties cannot matter).
    """

    def __init__(self, rules: KockaRules, high: bool) -> None:
        if rules.series_start != "opening_roll":
            raise ValueError("the reference covers kocka.series_start = opening_roll")
        self.rules, self.high = rules, high
        applies = not high or rules.min_bank == "always"
        self.min_bank = rules.min_bank_points // UNIT if applies else 0
        self.six_ones = rules.six_ones_win
        contexts = [("on", n) for n in range(1, NUM_DICE)] + ["reroll", "after_series", "opening"]
        if self.six_ones:
            contexts.append("six_ones")
        self.groups: dict = {}
        for ctx in contexts:
            n = ctx[1] if isinstance(ctx, tuple) else NUM_DICE
            merged: dict[tuple, float] = {}
            for roll, p in outcome_distribution(n):
                key = tuple(self._options(tuple(roll), ctx))
                merged[key] = merged.get(key, 0.0) + p
            self.groups[ctx] = [(p, list(opts)) for opts, p in merged.items()]
        self.bank_chance = self._bank_chance()
        self._index_options()

    def _options(self, roll: tuple[int, ...], ctx) -> list[tuple]:
        if ctx == "six_ones":
            return [("win",)] if scores(roll, self.rules) else []
        opening = ctx == "opening"
        return options_of_roll(self.rules, roll, opening, series=opening and self.high)

    def _bank_chance(self) -> dict:
        """P(the turn ends in a bank or a win | a compulsory roll) when every bank is allowed:
        the value of a roll beyond every cap (:func:`bank_chance`)."""
        return bank_chance({c: g for c, g in self.groups.items() if c != "opening"})

    def _index_options(self) -> None:
        """Each distinct option as a row (slot read, points added, chance q of getting
        there: the rest is a bust), and the outcomes of the contexts rolled at every turn
        total (a context whose outcomes are another's, as after a series and after a full
        roll, is read from that one) and of the opening roll as :class:`_Outcomes`."""
        self.rolls = [c for c in self.groups if c != "opening"]
        same = {c: next(d for d in self.rolls if self.groups[d] == self.groups[c]) for c in self.rolls}
        self.computed = [c for c in self.rolls if same[c] == c]
        self.free_slot = {n: n - 1 for n in range(1, NUM_DICE)}
        self.roll_slot = {c: NUM_DICE - 1 + self.computed.index(same[c]) for c in self.rolls}
        self.win_slot = NUM_DICE - 1 + len(self.computed)
        row_of: dict[tuple, int] = {}
        for ctx in self.groups:
            for _, opts in self.groups[ctx]:
                for o in opts:
                    row_of.setdefault(o, len(row_of))

        def read(o: tuple) -> tuple[int, int, float]:
            if o[0] == "free":
                return self.free_slot[o[2]], o[1], 1.0
            if o[0] == "reroll":
                return self.roll_slot["reroll"], o[1], 1.0
            if o[0] == "series":
                return self.roll_slot[o[3]], o[1], o[2]
            return self.win_slot, 0, 1.0

        self.rows = [read(o) for o in row_of]  # (slot, points, q)
        self.every_turn = _Outcomes([self.groups[c] for c in self.computed], row_of)
        self.opening = _Outcomes([self.groups["opening"]], row_of)

    def evaluate(self, bank: Callable[[int], np.ndarray], bust: np.ndarray, cap: np.ndarray,
                 top: np.ndarray, win: np.ndarray) -> np.ndarray:
        """Opening values (C, N) of N positions: ``bank(t)`` (C, N) the value of banking t
        units; ``bust`` (C, N); ``cap`` (N,): from this turn total on, every bank is worth
        ``top`` (C, N) and a roll its bank chance of ``top``, else the bust; ``win`` (C, N)
        the value of winning at once (KOCKA-19)."""
        T = int(cap.max())
        values = np.empty((self.win_slot + 1, T + 1) + bust.shape)  # [slot, turn total]; T: beyond the cap
        values[:NUM_DICE - 1, T] = top
        beyond_roll = np.array([self.bank_chance[c] * (win if c == "six_ones" else top)
                                + (1 - self.bank_chance[c]) * bust for c in self.computed])
        values[NUM_DICE - 1:self.win_slot, T] = beyond_roll
        values[self.win_slot] = win

        def options_at(t: int) -> list[np.ndarray]:
            """Each option row's value (C, N) at turn total t."""
            read = [(values[slot, min(t + points, T)], q) for slot, points, q in self.rows]
            return [value if q == 1.0 else q * value + (1 - q) * bust for value, q in read]

        opening = None
        dice_left = [self.roll_slot[("on", n)] for n in range(1, NUM_DICE)]
        for t in range(T - 1, -1, -1):
            options = options_at(t)
            beyond = t >= cap  # (N,)
            values[NUM_DICE - 1:self.win_slot, t] = np.where(beyond, beyond_roll, self.every_turn.values(options, bust))
            on = values[dice_left, t]
            if t > 0 and t >= self.min_bank:
                b = bank(t)
                on = np.where((b[0] >= on[:, 0])[:, None, :], b, on)
            values[:NUM_DICE - 1, t] = np.where(beyond, top, on)
            if t == 0:
                opening = self.opening.values(options, bust)[0]
        return opening


class _Outcomes:
    """The scoring outcomes of some contexts' rolls, each as the rows of its options (in
    the options' order), and P(a bust) in each context."""

    def __init__(self, contexts: list[list], row_of: dict[tuple, int]) -> None:
        self.scoring = [(i, p, [row_of[o] for o in opts])
                        for i, groups in enumerate(contexts) for p, opts in groups if opts]
        # P(a bust): the outcomes without an option, and what the probabilities leave out
        self.missing = np.array([1.0 - sum(p for p, opts in groups if opts) for groups in contexts])[:, None, None]
        self.chance = np.zeros((len(contexts), len(self.scoring)))
        for g, (i, p, _) in enumerate(self.scoring):
            self.chance[i, g] = p
        self.flat = np.array([r for _, _, opts in self.scoring for r in opts])
        self.starts = np.cumsum([0] + [len(opts) for _, _, opts in self.scoring[:-1]])

    def values(self, options: list[np.ndarray], bust: np.ndarray) -> np.ndarray:
        """(contexts, C, N): each outcome played by its first best option for the mover
        (component 0; ties to the first option), the rest a bust."""
        if len(bust) == 1:  # one component: the best option is worth the maximum, ties cannot matter
            best = np.maximum.reduceat(np.stack(options)[self.flat, 0], self.starts, axis=0)
            return (self.chance @ best)[:, None, :] + self.missing * bust
        total = self.missing * bust
        for i, p, opts in self.scoring:  # outcome by outcome: small arrays, in cache
            best = options[opts[0]]
            for r in opts[1:]:
                best = np.where(options[r][0] > best[0], options[r], best)
            total[i] += p * best
        return total


@lru_cache(maxsize=None)
def batch_turn(rules: KockaRules, high: bool) -> BatchTurn:
    """The :class:`BatchTurn` of ``rules`` in one phase, built once per run (nothing of it
    changes after it is built; reading every roll of every context is most of a small
    variant's cost)."""
    return BatchTurn(rules, high)


def value_iteration(step: Callable[[np.ndarray], np.ndarray], start: np.ndarray, tol: float = 1e-14,
                    max_sweeps: int = 2000) -> tuple[np.ndarray, int]:
    """Iterate ``values = step(values)`` until no value moves by more than ``tol``."""
    values = start
    for sweep in range(1, max_sweeps + 1):
        new = step(values)
        if np.max(np.abs(new - values)) < tol:
            return new, sweep
        values = new
    raise AssertionError(f"value iteration did not settle in {max_sweeps} sweeps "
                         f"(last change {np.max(np.abs(new - values)):.3g})")


def reference_players(rules: KockaRules, players: int) -> np.ndarray:
    """Plain value iteration of the game of ``players`` (3 or 4) under ``kocka.end =
    immediate``: ``W[s_0, .., s_{n-1}, i]``, s_0 to move. A bank of t hands the turn to s_1
    at (s_1, .., s_{n-1}, s_0 + t), or wins at the target (KOCKA-3); a bust hands it over
    at (s_1, .., s_{n-1}, s_0) (KOCKA-9). Values at the next position are rotated into this
    one's order: (P u)_c = u_{c-1}."""
    goal, thr = rules.target // UNIT, rules.series_threshold // UNIT
    turns = [batch_turn(rules, False), batch_turn(rules, True)]
    seats = [v.ravel() for v in np.meshgrid(*[np.arange(goal)] * players, indexing="ij")]
    back = [players - 1, *range(players - 1)]  # P: the next position's order -> this one's

    def step(W: np.ndarray) -> np.ndarray:
        new = np.empty_like(W)
        for p in (0, 1):
            sel = (seats[0] >= thr) == (p == 1)
            s = [v[sel] for v in seats]
            if not len(s[0]):
                continue
            win = np.zeros((players, len(s[0])))
            win[0] = 1.0

            def bank(t, s=s, win=win):
                score = s[0] + t
                return np.where(score < goal, W[(*s[1:], np.minimum(score, goal - 1))].T[back], win)

            cap = np.maximum(goal - s[0], turns[p].min_bank)
            new[tuple(s)] = turns[p].evaluate(bank, W[(*s[1:], s[0])].T[back], cap, win, win).T
        return new

    W, _ = value_iteration(step, np.full((goal,) * players + (players,), 1 / players), tol=1e-14)
    return W
