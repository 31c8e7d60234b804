"""The Kocka value tables, each a table solver the game's spec names (``solver/rules/kocka.py``):
``winprob`` (:data:`KOCKA_WINPROB`, two-player P(win) under every end rule), ``winprob3``
(:data:`KOCKA_WINPROB3`, three-player P(win)), ``turn_ev`` (:data:`KOCKA_TURN_EV`, expected
points banked this turn) and ``turn_reach`` (:data:`KOCKA_TURN_REACH`, P(bank >= T this
turn), T = 50 .. target). Each builds, lays out, summarises and checks its table; the
checks re-derive stored values independently, the turn tables one roll deep through the
engine (:func:`bellman_residuals`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import RulesError, TableError
from kocka.solver.base.progress import Progress
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.models.table_solver import TableSolver
from kocka.solver.rules.kocka import STAGE_SET_ASIDE, KockaGame, KockaState
from kocka.solver.rules.kocka_scoring import NUM_DICE, PHASE_BELOW, PHASE_HIGH
from kocka.solver.solvers.kocka.dask_runner import dask_class_runner
from kocka.solver.solvers.kocka.end_race import LEAD_UNITS, end_race_turn_values, final_turn_values, solve_race_ends
from kocka.solver.solvers.kocka.kocka_turn import UNIT, KockaModel, kocka_model, kocka_rules_of
from kocka.solver.solvers.kocka.prospects import action_prospects, prospect_value
from kocka.solver.solvers.kocka.race import race_turn_values, solve_race
from kocka.solver.solvers.kocka.single_turn import EV_CAP_UNITS, ev_table_values, turn_ev_values, turn_reach_values
from kocka.solver.solvers.kocka.three_players import (
    MIX_GAIN_TOL, class_count, class_gain, players_kernel, rotate, solve_players,
)
from kocka.solver.solvers.kocka.turn_model import TurnValues


def _phase_names() -> list[str]:
    return [PHASE_BELOW, PHASE_HIGH]


@dataclass(frozen=True)
class KockaTurnEVSolver(TableSolver):
    """Table ``turn_ev``: expected points banked this turn, per phase."""

    game: str = "kocka"
    kind: str = "turn_ev"
    description: str = "expected points banked this turn, every turn state (single-turn EV)"
    game_type = KockaGame

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = kocka_rules_of(game)
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

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """``ev[phase, turn total, slot]``, turn totals below :data:`EV_CAP_UNITS`."""
        return {"ev": ((2, EV_CAP_UNITS, kocka_model(kocka_rules_of(game)).turn.n_cols), np.float64)}

    def check(self, game: Any, table: Table) -> list[str]:
        model = kocka_model(kocka_rules_of(game))
        problems = []
        for p in (0, 1):
            tv = ev_table_values(model, table, p)
            problems += bellman_residuals(game, model, tv, p, objective="ev")
        return problems

    def spot_check(self, game: Any, table: Table, seed: int) -> list[str]:
        """Two seeded turn totals of each phase re-solved one roll deep from the stored
        rows they lead to (:func:`turn_row_problems`: every slot of the row, to 1e-9)."""
        model = kocka_model(kocka_rules_of(game))
        rng = np.random.default_rng(seed)
        problems = []
        for p in (0, 1):
            tv = ev_table_values(model, table, p)
            for t in rng.integers(0, tv.cap, size=2):
                problems += turn_row_problems(tv, int(t), float(t) * UNIT, 1e-9)
        return problems


@dataclass(frozen=True)
class KockaTurnReachSolver(TableSolver):
    """Table ``turn_reach``: P(bank at least T this turn), T = 50 .. target, per phase."""

    game: str = "kocka"
    kind: str = "turn_reach"
    description: str = "P(banking at least T this turn), T = 50..target in steps of 50"
    game_type = KockaGame

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = kocka_rules_of(game)
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
        return {f"P(bank >= {t * UNIT}) from a fresh turn, {name}": float(op[p, t - 1])
                for p, name in enumerate(_phase_names()) for t in (7, 20, 40, op.shape[1]) if t <= op.shape[1]}

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """``reach[phase, target - 1, turn total, slot]`` (float32) and ``opening[phase, target - 1]``."""
        model = kocka_model(kocka_rules_of(game))
        rows = max(model.goal, *(ph.min_bank for ph in model.turn.phases))
        return {"reach": ((2, model.goal, rows, model.turn.n_cols), np.float32),
                "opening": ((2, model.goal), np.float64)}

    def check(self, game: Any, table: Table) -> list[str]:
        model = kocka_model(kocka_rules_of(game))
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

    def spot_check(self, game: Any, table: Table, seed: int) -> list[str]:
        """Two seeded (phase, target) pairs, each at a turn total just below its target
        (where a roll reaches it) and at a random one, re-solved one roll deep from the
        stored rows they lead to (:func:`turn_row_problems`, to 1e-6: the rows are
        float32), and the stored opening chance equal to its row's opening value."""
        model = kocka_model(kocka_rules_of(game))
        rng = np.random.default_rng(seed)
        reach, opening = table["reach"], table["opening"]
        problems = []
        for _ in range(2):
            p, target = int(rng.integers(0, 2)), int(rng.integers(1, model.goal + 1))
            phase = model.turn.phases[p]
            cap = max(target, phase.min_bank, 1)
            tv = TurnValues(model.turn, phase, reach[p, target - 1, :cap].astype(np.float64), np.zeros((cap, 1)),
                            cap, "goal", 0.0)
            if abs(tv.opening - opening[p, target - 1]) > 1e-6:
                problems.append(f"phase {p} T={target * UNIT}: opening {opening[p, target - 1]!r} != its row's "
                                f"{tv.opening!r}")
            for t in {cap - 1 - int(rng.integers(0, min(cap, model.turn.max_points))), int(rng.integers(0, cap))}:
                problems += turn_row_problems(tv, t, float(t >= target), 1e-6)
        return problems


def _players_recorded(meta: TableMeta, players: int, kind: str) -> None:
    recorded = meta.extra.get("players", 2)
    if recorded != players:
        raise TableError(f"the {kind} table is for {recorded!r} players, this one is for {players}")


@dataclass(frozen=True)
class KockaWinProbSolver(TableSolver):
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
    game_type = KockaGame

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = kocka_rules_of(game)
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
        return {"P(first player wins)": float(table["win"][0, 0]),
                "end rule": table.meta.rules.get("end", "immediate"),
                "score pairs": extra.get("score_pairs"),
                "solve seconds": extra.get("solve_seconds")}

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """``win[my score, opponent's score]`` in units below the target, plus ``final`` and
        ``win_second`` by end rule (no turn model needed: this runs on every load)."""
        rules = kocka_rules_of(game)
        _players_recorded(meta, 2, self.kind)
        goal = rules.target // UNIT
        out: dict[str, tuple[tuple[int, ...], Any]] = {"win": ((goal, goal), np.float64)}
        if rules.end != "immediate":
            out["final"] = ((2, goal + int(meta.extra.get("lead_units", LEAD_UNITS)) + 1), np.float64)
        if rules.end == "finish_round":
            out["win_second"] = ((goal, goal), np.float64)
        return out

    def check(self, game: Any, table: Table) -> list[str]:
        rules = kocka_rules_of(game)
        model = kocka_model(rules)
        win = table["win"]
        problems = []
        if not (np.all(win >= 0) and np.all(win <= 1)):
            problems.append("win probabilities outside [0, 1]")
        goal = model.goal
        rng = np.random.default_rng(0)
        pairs = [(0, 0), (goal - 1, goal - 1), *rng.integers(0, goal, size=(6, 2))]
        if rules.end != "immediate":
            final = table["final"]
            for d in (0, 1, 7, final.shape[1] - 1):
                for p in (0, 1):
                    fresh = final_turn_values(model, p, d).opening
                    if abs(fresh - final[p, d]) > 1e-12:
                        problems.append(f"last turn, phase {p}, lead {d * UNIT}: stored {final[p, d]!r} != {fresh!r}")
        return problems + self._pair_problems(game, table, pairs)

    def spot_check(self, game: Any, table: Table, seed: int) -> list[str]:
        """:meth:`check`'s own-turn-value test at two seeded score pairs."""
        goal = kocka_model(kocka_rules_of(game)).goal
        return self._pair_problems(game, table, np.random.default_rng(seed).integers(0, goal, size=(2, 2)))

    def _pair_problems(self, game: Any, table: Table, pairs: Sequence[tuple[int, int]]) -> list[str]:
        """Score pairs whose stored P(win) is not the value of their own turn (to 1e-9)."""
        rules = kocka_rules_of(game)
        model = kocka_model(rules)
        win = table["win"]
        problems = []
        if rules.end == "immediate":
            for a, b in pairs:
                tv = race_turn_values(model.turn, win, int(a), int(b))
                if abs(tv.opening - win[a, b]) > 1e-9:
                    problems.append(f"W({a * UNIT}, {b * UNIT}) = {win[a, b]!r} is not its own turn value {tv.opening!r}")
            return problems
        final = table["final"]
        second = table["win_second"] if rules.end == "finish_round" else win
        for a, b in pairs:
            for seat, table_ in ((0, win), (1, second)):
                tv = end_race_turn_values(model, win, second, final, seat, int(a), int(b))
                if abs(tv.opening - table_[a, b]) > 1e-9:
                    problems.append(f"seat {seat + 1} at ({a * UNIT}, {b * UNIT}): {table_[a, b]!r} is not its own "
                                    f"turn value {tv.opening!r}")
        return problems


PLAYER_WORDS = {3: "three", 4: "four"}


@dataclass(frozen=True)
class KockaWinProbManySolver(TableSolver):
    """Table ``winprob3`` / ``winprob4``: P(win) of each of three or four players at the
    start of a turn, for every tuple of banked scores (``kocka.end = immediate``)."""

    game: str = "kocka"
    kind: str = "winprob3"
    description: str = "three-player P(win) of each player | the three scores in turn order, all optimal"
    players: tuple[int, ...] = (3,)
    game_type = KockaGame

    @property
    def seats(self) -> int:
        return self.players[0]

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = kocka_rules_of(game)
        n, word = self.seats, PLAYER_WORDS[self.seats]
        if rules.end != "immediate":
            raise RulesError(f"the {word}-player table covers kocka.end='immediate' only, got {rules.end!r} "
                             f"(with {word} players the other end rules use the two-player table, racing the leader)")
        model = kocka_model(rules)
        goal = model.goal
        bar = Progress(class_count(goal, n), f"kocka {word}-player classes", "classes", enabled=options.progress)
        runner = dask_class_runner(options.jobs) if options.backend == "dask" else None
        sol = solve_players(model, n, threads=options.jobs, runner=runner, progress=bar.advance)
        bar.close()
        if sol.unresolved:
            raise TableError(f"{sol.unresolved} {word}-player classes have no equilibrium the solver can verify")
        return {"win": sol.win}, {
            "players": n, "start": list(sol.start), "classes": sol.classes, f"score_{_TUPLES[n]}": goal ** n,
            "turn_evaluations": sol.turn_evaluations, "turn_rows_evaluated": sol.turn_rows,
            "evaluations_with_every_set_aside": sol.full_evaluations, "mixed_classes": [m.to_json() for m in sol.mixed], "solve_seconds": round(sol.seconds, 3),
            "threads": options.jobs, "backend": options.backend,
        }

    def summary(self, table: Table) -> dict[str, Any]:
        extra = table.meta.extra
        n = self.seats
        start = table["win"][(0,) * n]
        return {**{f"P(seat {i + 1} wins)": float(start[i]) for i in range(n)},
                f"score {_TUPLES[n]}": extra.get(f"score_{_TUPLES[n]}"),
                "classes with mixed play": sum(1 for m in extra.get("mixed_classes", ())
                                               if any(p is not None for p in m["probabilities"])),
                "solve seconds": extra.get("solve_seconds")}

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """``win[s_0, .., s_{n-1}, i]``: s_0 to move, s_1 next and so on (units); i the
        player of that order."""
        _players_recorded(meta, self.seats, self.kind)
        goal = kocka_rules_of(game).target // UNIT
        return {"win": ((goal,) * self.seats + (self.seats,), np.float64)}

    def check(self, game: Any, table: Table) -> list[str]:
        model = kocka_model(kocka_rules_of(game))
        win = table["win"]
        goal, n = model.goal, self.seats
        problems = []
        if not (np.all(win >= 0) and np.all(win <= 1)):
            problems.append("win probabilities outside [0, 1]")
        if np.max(np.abs(win.sum(axis=-1) - 1.0)) > 1e-12:
            problems.append(f"the {PLAYER_WORDS[n]} win probabilities do not sum to 1 "
                            f"(off by {np.max(np.abs(win.sum(axis=-1) - 1)):.3g})")
        kernel = players_kernel(model, win)
        rng = np.random.default_rng(0)
        problems += self._tuple_problems(kernel, table, [(0,) * n, (goal - 1,) * n,
                                                         *rng.integers(0, goal, size=(8, n))])
        for m in table.meta.extra.get("mixed_classes", ()):
            gain = class_gain(kernel, win, [tuple(s) for s in m["states"]])
            if gain > MIX_GAIN_TOL:
                problems.append(f"mixed class {m['states'][0]!r}: a pure deviation gains {gain:.3g}")
        return problems

    def spot_check(self, game: Any, table: Table, seed: int) -> list[str]:
        """:meth:`check`'s own-turn-value test at two seeded score tuples."""
        model = kocka_model(kocka_rules_of(game))
        tuples = np.random.default_rng(seed).integers(0, model.goal, size=(2, self.seats))
        return self._tuple_problems(players_kernel(model, table["win"]), table, tuples)

    def _tuple_problems(self, kernel: Any, table: Table, tuples: Sequence[Sequence[int]]) -> list[str]:
        """Score tuples whose stored P(win) is not the value of their own turn (to 1e-12;
        only the mover's for a state of a mixed class)."""
        win = table["win"]
        n = self.seats
        mixed = {tuple(s) for m in table.meta.extra.get("mixed_classes", ()) for s in m["states"]}
        problems = []
        for s in tuples:
            s = tuple(int(v) for v in s)
            X = rotate(win[s[1:] + s[:1]])
            got = np.array(kernel.evaluate(*s, *X)[:n])
            off = np.abs(got - win[s])
            if off[0] > 1e-12 or (s not in mixed and off.max() > 1e-12):
                shown = ", ".join(str(v * UNIT) for v in s)
                problems.append(f"W({shown}) = {list(win[s])!r} is not its own turn value {list(got)!r}")
        return problems


_TUPLES = {3: "triples", 4: "quadruples"}

KOCKA_WINPROB = KockaWinProbSolver()
KOCKA_WINPROB3 = KockaWinProbManySolver()
KOCKA_WINPROB4 = KockaWinProbManySolver(
    kind="winprob4", players=(4,),
    description="four-player P(win) of each player | the four scores in turn order, all optimal")
KOCKA_TURN_EV = KockaTurnEVSolver()
KOCKA_TURN_REACH = KockaTurnReachSolver()



def _boundary_values(tv: TurnValues, rows: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """:meth:`TurnValues.value` beyond the cap, for many (row, slot) at once."""
    m = tv.model
    kind = slots - m.n_kinds
    rolled = (kind >= 0) & (slots != m.bank_slot)
    if tv.boundary == "ev":
        return np.where(rolled, 0.0, rows * float(m.unit))
    success = m.tail_success[np.clip(kind, 0, m.n_kinds - 1)]
    roll = success * tv.top + (1.0 - success) * tv.bust
    if tv.win_kind >= 0:
        u = 1.0 - float(m.bust_prob[tv.win_kind])
        roll = np.where(kind == tv.win_kind, u + (1.0 - u) * tv.bust, roll)
    return np.where(rolled, roll, tv.top)


def turn_row_problems(tv: TurnValues, t: int, bank: float, tol: float) -> list[str]:
    """The stored row of turn total ``t`` re-solved one roll deep from the rows it leads to
    (the kernel's recurrence of :func:`~.turn_model.solve_turn`, in numpy): a roll of kind k
    is worth the sum over its outcome groups of P(group) x the best choice (q x the value
    of the state reached, else the bust value) plus P(bust) x the bust value; a free state
    the better of banking (``bank``, where allowed) and rolling on; the bank slot
    ``bank``. Rows at and beyond the cap are the table's boundary (:meth:`TurnValues.value`).
    Returns the slots where the stored row is off by more than ``tol`` (relative to values
    above 1)."""
    m, ph = tv.model, tv.phase
    K = m.n_kinds
    reached, slots = t + m.entry_points, m.entry_slot
    below = reached < tv.cap
    values = _boundary_values(tv, reached, slots)
    values[below] = tv.val[reached[below], slots[below]]
    choice = m.entry_q * values + (1.0 - m.entry_q) * tv.bust
    best = np.maximum.reduceat(choice, m.entry_ptr[:-1])
    weighted = np.concatenate([[0.0], np.cumsum(m.group_prob * best)])
    want = {m.bank_slot: bank}
    for k in ph.kinds:
        if m.opening_only[k] and t != 0:
            continue
        if k == tv.win_kind:
            roll = 1.0 - float(m.bust_prob[k]) + float(m.bust_prob[k]) * tv.bust
        else:
            g0, g1 = m.group_ptr[k], m.group_ptr[k + 1]
            roll = float(weighted[g1] - weighted[g0]) + float(m.bust_prob[k]) * tv.bust
        want[m.roll_slot(k)] = roll
        want[m.free_slot(k)] = max(bank, roll) if 0 < t and t >= ph.min_bank else roll
    problems = []
    for slot, value in want.items():
        stored = float(tv.val[t, slot])
        if not np.isfinite([stored, value]).all() or abs(stored - value) > tol * max(1.0, abs(value)):
            problems.append(f"{ph.name}, turn total {t * m.unit}, slot {slot}: table {stored!r}, "
                            f"its own roll {value!r}")
    return problems


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
                expect += p * max(prospect_value(tv, pr) for _, pr, _ in action_prospects(one, after))
            kind = model.keys[("six", s, s) if n == NUM_DICE else ("roll", n, s)]
            table_value = tv.value(t, model.turn.roll_slot(kind))
            if abs(expect - table_value) > tol * max(1.0, abs(table_value)):
                problems.append(f"{objective} phase {phase}, total {t * UNIT}, {n} dice: engine one-step "
                                f"{expect!r} != table {table_value!r}")
    return problems


__all__ = [
    "KOCKA_TURN_EV", "KOCKA_TURN_REACH", "KOCKA_WINPROB", "KOCKA_WINPROB3", "KOCKA_WINPROB4", "KockaTurnEVSolver",
    "KockaTurnReachSolver", "KockaWinProbManySolver", "KockaWinProbSolver", "bellman_residuals", "turn_row_problems",
]
