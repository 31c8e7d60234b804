"""The state space of one scorecard rules variant (:class:`ScorecardModel`): the layout of
the states and every table the Cython kernel (:mod:`kocka.solver.kernels._scorecard`)
needs, built from the rules engine (:func:`build_model`) or read back from a solved table
(:meth:`ScorecardModel.from_table`), and the one per-process cache of them
(:func:`model_for`) that every solver over this model shares. The state and the tracker
classes are described in :mod:`kocka.solver.solvers.scorecard.values`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Sequence

import numpy as np

from kocka.solver.models.card_model import (
    N_OUT, TrackerRows, five_dice, layer_order, popcounts, reachable_groups, sorted_unique, state_bases,
    tracker_classes, tracker_rows,
)
from kocka.solver.kernels.dice_transitions import dice_tables
from kocka.solver.base.errors import TableError
from kocka.solver.rules.scorecard import ScorecardGame, YahtzeeGame
from kocka.solver.base.table_file import Table

KERNEL_ARRAYS = ("ncls", "grp_ptr", "grp_bits", "ctx_of", "fill_rewards", "special_outcomes",
                 "special_rewards", "row_start", "uprank", "row_next", "row_off", "entry_group", "fnext")
"""The model arrays a table stores beside ``base``/``nflag``/``tclass``/``toffset``, so that
ranking from a loaded table needs no engine work."""


@dataclass
class ScorecardModel:
    """Everything the kernel needs for one rules variant (built by :func:`build_model`, or
    read back from a table by :meth:`from_table`).

    State ``base[m] + c * nflag[m] + f`` is tracker class ``c``, flag ``f`` of filled mask
    ``m``; masks are laid out by layer (number of filled boxes), so a layer is one
    contiguous range of states. Arrays indexed by mask have ``2 ** n_boxes`` rows
    (unreachable masks: ``base = -1``); ``U`` is the face-box part of a mask (face boxes
    are the first ``n_upper`` boxes of every card).

    Fills score ``fill_rewards[b, ft, o]`` (ft: first throw, when the game doubles it),
    except the *special* outcomes (bonus Yahtzees), whose points and allowed boxes depend on
    the card: ``special_rewards[ctx_of[2 m + f], b, ft, k]`` for outcome
    ``special_outcomes[k]`` (-inf: not allowed). The tracker rows (``row_*``,
    ``entry_group``, :class:`.card_model.TrackerRows`) give a face-box fill's next class.
    """

    game: ScorecardGame
    n_boxes: int
    n_upper: int
    masks: np.ndarray          # (M,) int32 reachable masks in layer order
    layer_ptr: np.ndarray      # (n_boxes + 2,) masks[layer_ptr[k]:layer_ptr[k+1]] have k filled
    base: np.ndarray           # (2^n,) int64
    ncls: np.ndarray           # (2^n,) int32
    nflag: np.ndarray          # (2^n,) int8
    grp_ptr: np.ndarray        # (2^n + 1,) int32
    grp_bits: np.ndarray       # int32 box groups (bit masks)
    ctx_of: np.ndarray         # (2^n * 2,) int32 reward context, 0: the plain points
    fill_rewards: np.ndarray   # (n_boxes, n_ft, 252) float64
    special_outcomes: np.ndarray  # (n_special,) int32, [-1] when there are none
    special_rewards: np.ndarray   # (n_ctx, n_boxes, n_ft, n_special) float64
    row_start: np.ndarray      # (2^n_upper,) int64
    uprank: np.ndarray         # (2^n_upper * n_upper,) int32
    row_next: np.ndarray       # (rows, G) int32
    row_off: np.ndarray        # (rows, G) float64
    entry_group: np.ndarray    # (n_upper, 252) int8
    fnext: np.ndarray          # (n_boxes, 2, 252) int8
    tclass: np.ndarray         # (2^n_upper, tracker_size) int32, -1 = unreachable
    toffset: np.ndarray        # (2^n_upper, tracker_size) int64
    n_states: int
    reachable_states: int      # (mask, tracker, flag) before merging tracker classes
    flag_box: int | None
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)

    @property
    def state_start(self) -> np.ndarray:
        """First state of each layer, (n_boxes + 2,)."""
        starts = [int(self.base[self.masks[p]]) if p < len(self.masks) else self.n_states
                  for p in self.layer_ptr]
        return np.asarray(starts, dtype=np.int64)

    def kernel_args(self) -> tuple:
        """The tables of :func:`_scorecard.solve_masks` after its ``W`` argument."""
        return (
            self.base, self.ncls, self.nflag, self.grp_ptr, self.grp_bits, self.ctx_of,
            self.fill_rewards, self.special_outcomes, self.special_rewards, self.row_start, self.uprank,
            self.row_next, self.row_off, self.entry_group, self.fnext, self.n_upper,
            five_dice().probs, five_dice().child,
        )

    # ----- the same tables with one column per outcome (the layout of earlier kernels) -----
    @cached_property
    def rewards(self) -> np.ndarray:
        """Points of every fill per reward context, (n_ctx, n_boxes, n_ft, 252)."""
        out = np.repeat(self.fill_rewards[None], len(self.special_rewards), axis=0)
        for k, o in enumerate(self.special_outcomes):
            if o >= 0:
                out[1:, :, :, o] = self.special_rewards[1:, :, :, k]
        return out

    @property
    def tbase(self) -> np.ndarray:
        """First tracker row of each mask's face set, (2^n,)."""
        U_of = np.arange(1 << self.n_boxes) & ((1 << self.n_upper) - 1)
        return self.row_start[U_of]

    @cached_property
    def _expanded_rows(self) -> tuple[np.ndarray, np.ndarray]:
        return self._rows.expanded()

    @property
    def tnext(self) -> np.ndarray:
        """Class after writing outcome o, (rows, 252)."""
        return self._expanded_rows[0]

    @property
    def toff(self) -> np.ndarray:
        """Value offset after writing outcome o, (rows, 252)."""
        return self._expanded_rows[1]

    @property
    def _rows(self) -> TrackerRows:
        return TrackerRows(self.row_start, self.uprank, self.row_next, self.row_off, self.entry_group, self.n_upper)

    @classmethod
    def from_table(cls, game: ScorecardGame, table: Table) -> "ScorecardModel":
        """The model of a solved table, from the arrays it stores (no engine work)."""
        _check_table(game, table)
        a = table.arrays
        n, nu = game.num_boxes, len(game.upper_boxes)
        base = a["base"]
        reach = np.flatnonzero(base >= 0)
        masks = reach[np.argsort(base[reach], kind="stable")].astype(np.int32)
        layer_ptr = np.searchsorted(popcounts(n)[masks], np.arange(n + 2)).astype(np.int64)
        return cls(
            game=game, n_boxes=n, n_upper=nu, masks=masks, layer_ptr=layer_ptr, base=base, ncls=a["ncls"],
            nflag=a["nflag"], grp_ptr=a["grp_ptr"], grp_bits=a["grp_bits"], ctx_of=a["ctx_of"],
            fill_rewards=a["fill_rewards"], special_outcomes=a["special_outcomes"],
            special_rewards=a["special_rewards"], row_start=a["row_start"], uprank=a["uprank"],
            row_next=a["row_next"], row_off=a["row_off"], entry_group=a["entry_group"], fnext=a["fnext"],
            tclass=a["tclass"], toffset=a["toffset"], n_states=len(a["values"]),
            reachable_states=int(table.meta.extra.get("reachable_states", 0)), flag_box=_flag_box(game),
        )


def _flag_box(game: ScorecardGame) -> int | None:
    """The Yahtzee box when bonus Yahtzees and the joker depend on its entry."""
    if isinstance(game, YahtzeeGame) and game.rules.yahtzee_bonus:
        return game.yahtzee_box
    return None


def _special_outcomes(game: ScorecardGame, flag_box: int | None) -> list[int]:
    """Outcomes whose fills depend on the card beyond the score table (bonus Yahtzees)."""
    if flag_box is None:
        return []
    outcomes = dice_tables(5).outcomes
    with_box = 1 << flag_box
    return [o for o in range(N_OUT) if game.is_bonus_yahtzee(tuple(int(v) for v in outcomes[o]), with_box)]


def _flag_entry(game: ScorecardGame, flag_box: int) -> dict[int, int]:
    """flag -> an entry of the Yahtzee box with that flag (1: bonus Yahtzees earn +100)."""
    five = (6,) * 5
    entries = sorted({int(v) for v in game.score_table()[flag_box].ravel()})
    return {int(game.yahtzee_bonus(five, 1 << flag_box, e) > 0): e for e in entries}


def _fill_rewards(game: ScorecardGame, mask: int, yahtzee_entry: int | None, n_ft: int,
                  special: Sequence[int]) -> np.ndarray:
    """Points of every fill, (n_boxes, n_ft, 252), on a card with ``mask``: the score table,
    patched for the special outcomes through the engine's ``allowed_boxes``/``fill_score``
    (-inf where that box may not take the dice)."""
    st = game.score_table()
    rew = np.ascontiguousarray(st.transpose(0, 2, 1)[:, :n_ft, :], dtype=np.float64)
    outcomes = dice_tables(5).outcomes
    for o in special:
        dice = tuple(int(v) for v in outcomes[o])
        allowed = set(game.allowed_boxes(mask, dice))
        for b in range(game.num_boxes):
            for ft in range(n_ft):
                if b in allowed:
                    s = game.fill_score(b, dice, bool(ft), mask, yahtzee_entry)
                    rew[b, ft, o] = s.entry + s.bonus
                else:
                    rew[b, ft, o] = -math.inf
    return rew


def _contexts(game: ScorecardGame, flag_box: int | None, n_ft: int, n_masks: int):
    """Reward context of every (mask, flag), the plain points and the special outcomes'
    points per context: ``(ctx_of, fill_rewards, special_outcomes, special_rewards)``.

    Without a Yahtzee box every card uses the score table. With one, a bonus Yahtzee's
    points and allowed boxes depend on the flag, on which face boxes are filled (joker) and
    on whether another lower box is open (forced joker); one representative card per such
    key gives the context (its open boxes contain the real card's, and the engine's rules
    restrict to the real card's open boxes; :meth:`ScorecardEV.check` compares the two).
    Context 0 is the score table itself.
    """
    ctx_of = np.zeros(n_masks * 2, dtype=np.int32)
    special = _special_outcomes(game, flag_box)
    plain = _fill_rewards(game, 0, None, n_ft, ())
    if not special:
        return ctx_of, plain, np.array([-1], np.int32), np.zeros((1, game.num_boxes, n_ft, 1))
    n, nu = game.num_boxes, len(game.upper_boxes)
    full = (1 << n) - 1
    upper_bits = (1 << nu) - 1
    other_lower = full & ~upper_bits & ~(1 << flag_box)
    entry_of = _flag_entry(game, flag_box)
    m = np.arange(n_masks, dtype=np.int64)
    y_filled = (m >> flag_box) & 1
    lower_open = ((~m) & other_lower) != 0
    tables = [plain[:, :, special]]
    key_ctx: dict[int, int] = {}
    for flag in (0, 1):
        keys = ((m & upper_bits) * 2 + lower_open) * 2 + flag
        for key in sorted_unique(keys[y_filled == 1]).tolist():
            U, rest = divmod(key // 2, 2)
            rep = U | (1 << flag_box) | (0 if rest else other_lower)
            key_ctx[key] = len(tables)
            tables.append(_fill_rewards(game, rep, entry_of[flag], n_ft, special)[:, :, special])
        sel = y_filled == 1
        ctx_of[2 * m[sel] + flag] = [key_ctx[k] for k in keys[sel].tolist()]
    return ctx_of, plain, np.array(special, np.int32), np.ascontiguousarray(np.stack(tables))


def build_model(game: ScorecardGame) -> ScorecardModel:
    """The state space, layout and kernel tables of ``game``'s rules variant."""
    start = time.perf_counter()
    n, nu = game.num_boxes, len(game.upper_boxes)
    if tuple(game.upper_boxes) != tuple(range(nu)):
        raise TableError(f"{game.NAME}: face boxes must come first on the card, got {game.upper_boxes!r}")
    n_masks = 1 << n
    st = game.score_table()
    n_ft = 2 if (st[:, :, 0] != st[:, :, 1]).any() else 1
    flag_box = _flag_box(game)

    tclass, toffset, rows, n_trackers = tracker_classes(game)
    ncls_u = tclass.max(axis=1) + 1
    # the engine's box groups: the part order (SK-3) in what a mask reaches, the face
    # declaration in one group per face box
    reach, grp_ptr, grp_bits = reachable_groups(n, game.box_groups)
    if int(np.diff(grp_ptr).max()) * 2 * N_OUT > 4096:
        raise TableError(f"{game.NAME}: a card has more than {4096 // (2 * N_OUT)} box groups, the kernel takes fewer")
    masks_all = np.arange(n_masks, dtype=np.int64)
    masks, layer_ptr = layer_order(reach, n)

    U_of = masks_all & ((1 << nu) - 1)
    ncls = ncls_u[U_of].astype(np.int32)
    nflag = np.ones(n_masks, dtype=np.int8)
    if flag_box is not None:
        nflag[(masks_all >> flag_box) & 1 == 1] = 2
    sizes = np.where(reach, ncls.astype(np.int64) * nflag, 0)
    base = state_bases(masks, sizes)
    n_states = int(sizes.sum())
    reachable_states = int(np.where(reach, n_trackers[U_of] * nflag, 0).sum())

    packed = tracker_rows(game, rows)

    # the flag after a fill: unchanged, except when the flag box itself is written
    fnext = np.zeros((n, 2, N_OUT), dtype=np.int8)
    fnext[:, 1, :] = 1
    if flag_box is not None:
        y_entries = st[flag_box, :, 0]
        fnext[flag_box, 0, :] = [
            int(game.yahtzee_bonus((6,) * 5, 1 << flag_box, int(e)) > 0) for e in y_entries
        ]
    ctx_of, fill_rewards, special, special_rewards = _contexts(game, flag_box, n_ft, n_masks)
    model = ScorecardModel(
        game=game, n_boxes=n, n_upper=nu, masks=masks, layer_ptr=layer_ptr, base=base, ncls=ncls,
        nflag=nflag, grp_ptr=grp_ptr, grp_bits=grp_bits, ctx_of=ctx_of, fill_rewards=fill_rewards,
        special_outcomes=special, special_rewards=special_rewards, row_start=packed.start,
        uprank=packed.uprank, row_next=packed.next, row_off=packed.off, entry_group=packed.group,
        fnext=fnext, tclass=tclass, toffset=toffset, n_states=n_states, reachable_states=reachable_states,
        flag_box=flag_box,
    )
    model.seconds = time.perf_counter() - start
    model.stats = {
        "reachable_masks": int(len(masks)),
        "reachable_trackers": int(n_trackers.sum()),
        "tracker_classes": int(ncls_u.sum()),
        "reward_contexts": int(len(special_rewards)),
    }
    return model


_MODELS: dict[tuple[type, Any], ScorecardModel] = {}


def model_for(game: ScorecardGame) -> ScorecardModel:
    """The model of ``game``'s rules variant (cached per process, a few variants).

    One cache for every solver over this model: the expected-score table here and the
    target tables (:mod:`kocka.solver.solvers.scorecard.target`) build and read the same
    :class:`ScorecardModel`, so both ask this function and share what it has built."""
    key = (type(game), game.rules)
    if key not in _MODELS:
        if len(_MODELS) >= 8:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = build_model(game)
    return _MODELS[key]


def _has_kernel_arrays(table: Table) -> bool:
    return all(name in table.arrays for name in KERNEL_ARRAYS)


def _check_table(game: ScorecardGame, table: Table) -> None:
    """The arrays a solved table must hold for ``game`` (TableError naming the first that
    does not fit; :meth:`ScorecardEV.layout` checks the same on load)."""
    n, nu = game.num_boxes, len(game.upper_boxes)
    a = table.arrays
    expected = {"base": (1 << n,), "nflag": (1 << n,), "tclass": (1 << nu, game.tracker_size),
                "toffset": (1 << nu, game.tracker_size), "ncls": (1 << n,), "grp_ptr": ((1 << n) + 1,),
                "ctx_of": ((1 << n) * 2,), "row_start": (1 << nu,), "fnext": (n, 2, N_OUT),
                "entry_group": (max(nu, 1), N_OUT)}
    if not _has_kernel_arrays(table):  # a table of values only (the target tables)
        expected = {k: v for k, v in expected.items() if k in ("base", "nflag", "tclass", "toffset")}
    for name, shape in expected.items():
        if name not in a or a[name].shape != shape:
            raise TableError(f"{game.NAME} table lacks array {name!r} of shape {shape!r}; rebuild it with: kocka-solve build {game.NAME}")
    if _has_kernel_arrays(table):
        fr, sr = a["fill_rewards"], a["special_rewards"]
        if (fr.ndim != 3 or fr.shape[0] != n or fr.shape[2] != N_OUT or sr.ndim != 4 or sr.shape[1:3] != fr.shape[:2]
                or sr.shape[3] != len(a["special_outcomes"]) or a["row_next"].shape != a["row_off"].shape):
            raise TableError(f"{game.NAME} table's kernel arrays do not fit one another")
    if len(a["values"]) != table.meta.extra.get("states"):
        raise TableError(f"{game.NAME} table has {len(a['values'])!r} values, its metadata says {table.meta.extra.get('states')!r}")


