"""The two-player race of the Polish basic game (RULES.md PL-4..PL-7), solved for winning.

**Why a race.** The game ends when a player has recorded all his combinations (PL-7;
with ``pl.basic_end = finish_round`` the round is completed first, so seat 1 gets one
last turn after seat 0 completes), and the higher total wins. Recording is optional
(PL-5), so a player may let a turn go by without a record, waiting for better dice,
while the other may hurry to end the game: finishing fast and scoring high pull against
each other, and the solitaire table (:class:`.values.PolishBasicEV`, a fixed horizon
of turns) cannot weigh them.

**Objective.** The value of a position to the player to move is his *win share*: the
probability that he wins, plus half the probability of a tie (a tie shares the win, as the
arena counts it). The two players' shares add up to 1, so the race is a zero-sum game and
both play to maximise their own share.

**State, and the reductions.** Between turns: the mover's recorded combinations (a mask),
the other's, the mover's lead ``d`` (his total less the other's), and which seat moves.
Only the lead matters, not the two totals: what a record adds depends on the dice alone
(PL-3, PL-6). A lead the other's open combinations cannot make up (``d > gain(other)``,
:func:`race_model`) wins whatever happens, one the mover's own cannot make up loses, so
only ``-gain(mover) <= d <= gain(other)`` is stored. Values are from the mover's side, so
seat 1 to move at (his mask, seat 0's mask, his lead) is the same kind of state as seat 0
to move; the two tables differ only because seat 0 completing hands seat 1 a last turn
(``finish_round``). With ``pl.basic_end = immediate`` the seats are alike and one table
serves both (each unordered pair of cards is solved once). The flag "the round must be
completed" is the last-turn table: seat 1 to move after seat 0 completed.

**Solving.** A record moves to a pair of cards with one more combination, so pairs are
solved from the fullest down. A turn without a record hands the same cards and scores to
the other player, so each (seat 0 to move at (s0, s1, d), seat 1 to move at (s1, s0, -d))
is solved together: the kernel :mod:`kocka.solver.kernels._polish_race` carries every value of a
turn as a linear function of the pass value, with the margins within which no decision
changes, and Newton on the two linear turn values lands on the exact fixed point
(:func:`build_race_arrays`). It evaluates eight states' turns side by side (SIMD lanes:
AVX-512 where the CPU has it, else a portable version four lanes at a time), each lane
walking the leads of its own pair of cards with its own Newton steps, so the values are
those of one state at a time, bit for bit. The state count of the full card
is in ``docs/SOLVER.md``.

:func:`rank` values every action of a two-player position through the table and a numpy
turn (:func:`.card_model.three_throw_turn`, independent of the kernel's lattice); it serves
the ``winner`` agent and ``kocka hint polish-basic --opponent``.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from kocka.solver.kernels import _polish_race
from kocka.solver.models.card_model import N_OUT, keep_lattice, three_throw_turn
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.decision import Decision
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import InvalidStateError, TableError
from kocka.solver.base.progress import Progress
from kocka.solver.solvers.polish.values import basic_rewards, basic_turn_decisions, basic_turn_stops
from kocka.solver.rules.base import Game
from kocka.solver.rules.polish import PolishBasicGame, PolishBasicState
from kocka.solver.rules.polish_scoring import PolishBasicRules
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.models.table_solver import TableSolver

VALUE_NAME = "P(win)"
"""What the race values are: the mover's win share (a tie counts one half)."""
TOLERANCE = 1e-13
"""Newton stops when a step is below this (it usually stops earlier: exactly, within the margins)."""
MAX_ITERATIONS = 20
"""Newton steps before the bracketed search takes over (it cycles between policies only rarely)."""
LANE_CHUNK = 64
"""Pairs of cards a thread takes at a time, for its lanes to share (a lane done with its
pair takes the next one; at the end of a chunk some lanes idle: with eight lanes, 7 % of
the lane turns of the five-combination card at 64 pairs, 11 % at 16)."""


# ----------------------------------------------------------------------------------------
# The model: gains, offsets and the order of the pairs
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RaceModel:
    """Where each value lives.

    ``gain[m]``: the most points the combinations open on mask ``m`` can still add (every
    record at its best, from hand where that counts more). ``off[m * nmask + o]``: the
    first value of the mover with mask ``m`` against ``o``, for leads ``-gain[m]..gain[o]``
    (-1 for a complete mask). ``loff[m]``: seat 1's last turn with mask ``m``, leads
    ``-gain[m]..0``. ``pairs`` (rows (s0, s1)) in the kernel's order, ``level_ptr`` the
    start of each level (combinations recorded by both, most first)."""

    n_boxes: int
    symmetric: bool
    finish_round: bool
    gain: np.ndarray
    off: np.ndarray
    loff: np.ndarray
    n_values: int
    n_last: int
    pairs: np.ndarray
    level_ptr: np.ndarray

    @property
    def nmask(self) -> int:
        return 1 << self.n_boxes


@lru_cache(maxsize=8)
def race_model(rules: PolishBasicRules) -> RaceModel:
    """The layout of the race table of ``rules`` (see :class:`RaceModel`)."""
    rew = basic_rewards(rules)
    n = len(rules.boxes)
    nmask, full = 1 << n, (1 << n) - 1
    best = rew.max(axis=(1, 2))
    masks = np.arange(nmask)
    open_bits = (~masks[:, None] >> np.arange(n)) & 1
    gain = (open_bits * best).sum(axis=1).astype(np.int64)
    incomplete = masks < full
    both = incomplete[:, None] & incomplete[None, :]
    sizes = np.where(both, gain[:, None] + gain[None, :] + 1, 0).ravel().astype(np.int64)
    off = np.where(sizes > 0, np.cumsum(sizes) - sizes, -1).astype(np.int64)
    finish_round = rules.basic_end == "finish_round"
    last_sizes = np.where(incomplete & finish_round, gain + 1, 0).astype(np.int64)
    loff = np.where(last_sizes > 0, np.cumsum(last_sizes) - last_sizes, -1).astype(np.int64)
    symmetric = not finish_round
    popcount = open_bits.shape[1] - open_bits.sum(axis=1)
    s0, s1 = (g.ravel() for g in np.meshgrid(np.arange(full), np.arange(full), indexing="ij"))
    if symmetric:  # each unordered pair once
        s0, s1 = s0[s0 <= s1], s1[s0 <= s1]
    level = popcount[s0] + popcount[s1]
    order = np.lexsort((s1, s0, -level))  # fullest cards first
    level_ptr = np.searchsorted(-level[order], np.arange(-2 * (n - 1), 1), side="left")
    return RaceModel(
        n_boxes=n, symmetric=symmetric, finish_round=finish_round, gain=gain, off=off, loff=loff,
        n_values=int(sizes.sum()), n_last=int(last_sizes.sum()),
        pairs=np.stack([s0[order], s1[order]], axis=1).astype(np.int32),
        level_ptr=np.append(level_ptr, len(order)).astype(np.int64),
    )


# ----------------------------------------------------------------------------------------
# Building
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordPoints:
    """The kernel's view of the records (:func:`.values.basic_rewards`): each box's
    distinct point values ``rec_points[b, :n_points[b]]`` and, per box, throw kind and
    outcome, which of them a record scores (``rec_index``, -1: the dice do not show it), so
    that a turn looks each successor up once per point value, not once per outcome; the
    rows (throw kind * N_OUT + outcome) where box ``b`` is shown are
    ``shown_rows[shown_ptr[b]:shown_ptr[b + 1]]`` (most boxes are shown on few outcomes)."""

    rec_index: np.ndarray
    shown_rows: np.ndarray
    shown_ptr: np.ndarray
    rec_points: np.ndarray
    n_points: np.ndarray

    def kernel_args(self) -> tuple[np.ndarray, ...]:
        """The arguments of the kernel's functions, in their order."""
        return self.rec_index, self.shown_rows, self.shown_ptr, self.rec_points, self.n_points


def _record_points(rules: PolishBasicRules) -> RecordPoints:
    """The records of ``rules`` as the kernel reads them (:class:`RecordPoints`)."""
    rew = basic_rewards(rules)
    n = rew.shape[0]
    values = [np.unique(rew[b][rew[b] > 0]) for b in range(n)]
    width = max(1, max(len(v) for v in values))
    rec_points = np.zeros((n, width), dtype=np.int64)
    rec_index = np.full(rew.shape, -1, dtype=np.int32)
    for b, v in enumerate(values):
        rec_points[b, :len(v)] = v
        shown = rew[b] > 0
        rec_index[b][shown] = np.searchsorted(v, rew[b][shown])
    rows = [np.flatnonzero(rec_index[b].ravel() >= 0).astype(np.int32) for b in range(n)]
    shown_ptr = np.cumsum([0] + [len(r) for r in rows]).astype(np.int64)
    return RecordPoints(rec_index, np.concatenate(rows).astype(np.int32), shown_ptr, rec_points,
                        np.array([len(v) for v in values], dtype=np.int32))


def build_race_arrays(game: PolishBasicGame, options: BuildOptions = BuildOptions(progress=False),
                      newton_steps: int = MAX_ITERATIONS,
                      chunk: int = LANE_CHUNK) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Solve the two-player race of ``game.rules`` (the table is the same for any seat
    count the game object has: it is the two-player game).

    Arrays: ``values0`` (seat 0 to move) and, with ``finish_round``, ``values1`` (seat 1 to
    move) and ``last`` (seat 1's last turn), laid out by :func:`race_model`; ``offsets``,
    ``last_offsets`` and ``gain`` repeat the layout for readers. ``newton_steps`` (tests: 0)
    is how many Newton steps a state gets before the bracketed search takes over;
    ``chunk`` how many pairs of cards a thread's lanes share (tests: any gives the same
    bits)."""
    rules = game.rules
    model = race_model(rules)
    records = _record_points(rules).kernel_args()
    dt = dice_tables(5)
    child = keep_lattice().child
    mandatory = int(rules.basic_record == "mandatory")
    threads = max(int(options.jobs), 1)
    start = time.perf_counter()
    last = np.full(max(model.n_last, 1), np.nan)
    if model.finish_round:
        _polish_race.solve_last_turns(model.gain, model.loff, *records, dt.probs, child, mandatory, last, threads)
    t_last = time.perf_counter()
    v0 = np.full(model.n_values, np.nan)
    v1 = v0 if model.symmetric else np.full(model.n_values, np.nan)
    evals = failed = never_ending = fallbacks = 0
    work = np.cumsum(np.concatenate([[0], model.gain[model.pairs[:, 0]] + model.gain[model.pairs[:, 1]] + 1]))
    progress = Progress(int(work[-1]), "polish-basic race", unit="leads", enabled=options.progress)
    for lo, hi in zip(model.level_ptr[:-1], model.level_ptr[1:]):  # fullest cards first
        # the longest pairs first: the lanes of a chunk then have pairs of about one length
        # and idle little at its end (each pair is solved on its own: the order changes no bit)
        pairs = model.pairs[lo:hi]
        pairs = np.ascontiguousarray(pairs[np.argsort(-(work[lo + 1:hi + 1] - work[lo:hi]), kind="stable")])
        e, f, n, k = _polish_race.solve_pairs(
            model.gain, model.off, model.loff, *records, dt.probs, child, pairs, int(model.finish_round), mandatory,
            v0, v1, last, int(model.symmetric), TOLERANCE, newton_steps, threads, chunk)
        evals, failed, never_ending, fallbacks = evals + e, failed + f, never_ending + n, fallbacks + k
        progress.advance(int(work[hi] - work[lo]))
    progress.close()
    seconds = time.perf_counter() - start
    if failed:
        raise TableError(f"polish-basic race: {failed} states did not converge (Newton, then the bracketed search)")
    arrays = {"values0": v0, "offsets": model.off, "last_offsets": model.loff, "gain": model.gain}
    if model.finish_round:
        arrays.update(values1=v1, last=last[:model.n_last])
    states = model.n_values * (1 if model.symmetric else 2) + model.n_last
    p_first = float(v0[model.off[0] + model.gain[0]])
    return arrays, {
        "p_first_player_wins": p_first, "states": int(states), "pairs_of_cards": int(len(model.pairs)),
        "turn_evaluations": int(evals), "never_ending_states": int(never_ending), "bracketed_states": int(fallbacks),
        "seconds_last_turns": round(t_last - start, 3), "seconds_values": round(seconds, 3), "threads": threads,
        "value": "win share of the player to move: P(win) + P(tie) / 2", "value_dtype": "float64",
    }


# ----------------------------------------------------------------------------------------
# Reading values
# ----------------------------------------------------------------------------------------
def terminal_share(lead: int) -> float:
    """PL-7: the higher total wins; a tie counts one half."""
    return 1.0 if lead > 0 else 0.5 if lead == 0 else 0.0


def mover_value(table: Table, seat: int, mine: int, other: int, lead: int) -> float:
    """Win share of ``seat`` to move at the start of a turn, with mask ``mine`` against
    ``other`` and ``lead`` points ahead (neither card complete)."""
    gain, off = table["gain"], table["offsets"]
    nmask = len(gain)
    if lead > gain[other]:
        return 1.0
    if lead < -gain[mine]:
        return 0.0
    values = table["values1"] if seat == 1 and "values1" in table.arrays else table["values0"]
    return float(values[off[mine * nmask + other] + lead + gain[mine]])


def last_turn_value(table: Table, mine: int, lead: int) -> float:
    """Seat 1's win share at the start of his last turn (seat 0 has completed)."""
    gain = table["gain"]
    if lead > 0:
        return 1.0
    if lead < -gain[mine]:
        return 0.0
    return float(table["last"][table["last_offsets"][mine] + lead + gain[mine]])


@dataclass(frozen=True)
class _RacePosition:
    seat: int
    mine: int
    other: int
    lead: int
    last_turn: bool


def _position(game: PolishBasicGame, state: PolishBasicState) -> _RacePosition:
    if game.num_players != 2:
        raise InvalidStateError(f"the polish-basic race table is for two players, not {game.num_players}")
    seat = state.player
    masks = [sum(1 << i for i, v in enumerate(row) if v is not None) for row in state.records]
    totals = game.totals(state)
    full = (1 << len(game.rules.boxes)) - 1
    return _RacePosition(seat, masks[seat], masks[1 - seat], totals[seat] - totals[1 - seat],
                         last_turn=seat == 1 and masks[0] == full)


def _stops(game: PolishBasicGame, table: Table, pos: _RacePosition) -> tuple[np.ndarray, np.ndarray, float, dict]:
    """Per outcome, the best end of the turn after a later / the first throw, the value of
    ending it without a record, and each record's value as a function of its points."""
    rules = game.rules
    rew = basic_rewards(rules)
    n = len(rules.boxes)
    full = (1 << n) - 1
    seat, other = pos.seat, 1 - pos.seat
    if pos.last_turn:
        end_turn = terminal_share(pos.lead)
    else:
        end_turn = 1.0 - mover_value(table, other, pos.other, pos.mine, -pos.lead)

    def after_record(b: int, points: int) -> float:
        mine = pos.mine | 1 << b
        lead = pos.lead + points
        if pos.last_turn or (mine == full and (seat == 1 or rules.basic_end == "immediate")):
            return terminal_share(lead)
        if mine == full:  # seat 0 completes: seat 1 plays his last turn (finish_round, PL-7)
            return 1.0 - last_turn_value(table, pos.other, -lead)
        return 1.0 - mover_value(table, other, pos.other, mine, -lead)

    record_values: dict[tuple[int, int], float] = {}

    def values_of(b: int, ft: int) -> np.ndarray:  # per outcome showing b: the value after recording it
        got = np.full(N_OUT, -math.inf)
        for o in np.flatnonzero(rew[b, ft] > 0):
            key = (b, int(rew[b, ft, o]))
            if key not in record_values:
                record_values[key] = after_record(*key)
            got[o] = record_values[key]
        return got

    F0, F1 = basic_turn_stops(rules, pos.mine, values_of, end_turn)
    return F0, F1, end_turn, record_values


_TURNS: dict[tuple, tuple] = {}


def _turn(game: PolishBasicGame, table: Table, pos: _RacePosition) -> tuple:
    """The turn of ``pos`` (cached per table: one turn serves all its decisions)."""
    key = (table.meta.checksum, table.meta.variant_id, pos)
    got = _TURNS.get(key)
    if got is None:
        F0, F1, end_turn, records = _stops(game, table, pos)
        got = (three_throw_turn(F0, F1), end_turn, records)
        if len(_TURNS) > 4096:
            _TURNS.clear()
        _TURNS[key] = got
    return got


def rank(game: PolishBasicGame, table: Table, state: PolishBasicState) -> list[Decision]:
    """Every legal action of the player to move in a two-player position, best first,
    valued as his win share (P(win), a tie counting one half) when both play the race
    optimally from there (empty at chance and terminal nodes)."""
    if not isinstance(game, PolishBasicGame):
        raise TableError(f"the polish-basic race table cannot rank {game.NAME!r}")
    pos = _position(game, state)
    actions = game.legal_actions(state)
    if not actions or game.current_player(state) < 0:
        return []
    turn, end_turn, records = _turn(game, table, pos)
    return basic_turn_decisions(game, state, actions, turn, end_turn, lambda b, points: records[(b, points)],
                                {"lead": pos.lead, "last_turn": pos.last_turn})


# ----------------------------------------------------------------------------------------
# The table solver object
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PolishBasicRace(TableSolver):
    """Table solver of the two-player race of the basic game (PL-4..PL-7): the exact win
    share of the player to move at every pair of cards and undecided lead."""

    kind: str = "race"
    description: str = "exact P(win) of the two-player race of the basic game (both playing to win)"
    game_type = PolishBasicGame

    def build(self, game: Game, options: BuildOptions):
        return build_race_arrays(game, options)

    def summary(self, table: Table) -> dict[str, Any]:
        x = table.meta.extra
        return {"p_first_player_wins": x["p_first_player_wins"], "states": x["states"],
                "never_ending_states": x["never_ending_states"], "value": x["value"]}

    def layout(self, game: Game, meta: TableMeta) -> Layout:
        """The arrays of :func:`build_race_arrays` (lengths from :func:`race_model`)."""
        model = race_model(game.rules)
        nmask = model.nmask
        arrays: dict[str, tuple[tuple[int, ...], Any]] = {
            "values0": ((model.n_values,), np.float64), "offsets": ((nmask * nmask,), np.int64),
            "last_offsets": ((nmask,), np.int64), "gain": ((nmask,), np.int64),
        }
        if model.finish_round:
            arrays.update(values1=((model.n_values,), np.float64), last=((model.n_last,), np.float64))
        return arrays

    def check(self, game: Game, table: Table, samples: int = 64, seed: int = 0) -> list[str]:
        """At sampled positions (and the start), the table's value must equal the best
        action of :func:`rank` (a numpy turn over the table's successor values and the
        other player's stored value for a turn without a record): the fixed point."""
        return race_check(game, table, samples, seed)

    def spot_check(self, game: Game, table: Table, seed: int) -> list[str]:
        """:meth:`check` at the start and two sampled positions."""
        return race_check(game, table, 2, seed)


def race_check(game: PolishBasicGame, table: Table, samples: int = 64, seed: int = 0) -> list[str]:
    """Problems found at the start and at ``samples`` random positions (empty: none)."""
    two = PolishBasicGame(game.rules, num_players=2)
    full = (1 << len(game.rules.boxes)) - 1
    gain = table["gain"]
    rng = np.random.default_rng(seed)
    probs = dice_tables(5).probs
    positions = [_RacePosition(0, 0, 0, 0, False)]
    while len(positions) < samples + 1:
        seat = int(rng.integers(0, 2))
        mine, other = (int(v) for v in rng.integers(0, full, size=2))
        last_turn = seat == 1 and bool(rng.integers(0, 4) == 0) and "last" in table.arrays
        if last_turn:
            other = full
            lead = int(rng.integers(-gain[mine] - 1, 2))
        else:
            lead = int(rng.integers(-gain[mine] - 1, gain[other] + 2))
        positions.append(_RacePosition(seat, mine, other, lead, last_turn))
    problems = []
    for pos in positions:
        if pos.last_turn:
            stored = last_turn_value(table, pos.mine, pos.lead)
        else:
            stored = mover_value(table, pos.seat, pos.mine, pos.other, pos.lead)
        got = float(probs @ _turn(two, table, pos)[0]["V1"])
        if abs(got - stored) > 1e-9:
            problems.append(f"seat {pos.seat} to move, cards {pos.mine:#x} against {pos.other:#x}, lead {pos.lead}: "
                            f"table {stored!r} but its turn gives {got!r}")
    return problems


POLISH_BASIC_RACE = PolishBasicRace()
