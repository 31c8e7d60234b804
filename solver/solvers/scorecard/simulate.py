"""Whole games of the expected-score policy in compiled code: the arena's fast path for the
``optimal`` agent of the scorecard games (issue 28).

:class:`ScorecardSimulator` plays one card per game to the end with the kernel
:mod:`kocka.solver.kernels._simulate`, from a loaded expected-score table
(:mod:`.values`), and gives the final scores. The games are the arena's own, not merely
games like them: every roll is drawn as :class:`kocka.agents.bots.base.ChanceSampler` draws
it for that seat's throw (the same seed text, BLAKE2b, CPython's Mersenne Twister and
``randint``), and every decision is the first of :func:`.ranking.rank`'s order (fills by
box, then keeps larger first, then in keep order), valued by the same floating-point
operations. ``tests/test_simulate.py`` plays seeded games through the engine and through
this module and compares them game by game.

A seat's card is played alone, so this is the policy of a player who looks at his own
card only (``optimal`` at any table). :meth:`ScorecardSimulator.level_scores` plays a
difficulty level instead (``kocka.agents.bots.levels``: a softmax over the same ranked
values), each decision drawing one ``random()`` from the level's own ``random.Random``
stream, seeded per game as the arena seeds the agent. Variants whose turn may be played in several box
groups (the SK declaration, SK-3) are not played here: :func:`simulator` gives ``None``
and the arena plays them through the engine.
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kocka.solver.base.errors import TableError
from kocka.solver.base.table_file import Table
from kocka.solver.kernels import _simulate
from kocka.solver.models.card_model import N_OUT, N_SMALL, five_dice
from kocka.solver.rules.scorecard import Card, ScorecardGame
from kocka.solver.solvers.scorecard.ranking import _ranker

MIN_GAMES_PER_THREAD = 64
"""Fewer games than this per thread are played on one: a thread costs more than they take."""


def keeps_inside_outcomes() -> tuple[np.ndarray, np.ndarray]:
    """``(okeep_ptr, okeep)``: for every outcome o, the keeps of 0..4 dice inside it,
    ``okeep[okeep_ptr[o]:okeep_ptr[o + 1]]``, larger first, then in keep order: the order
    in which :func:`.ranking.rank` lists a position's keeps (its tie order)."""
    counts = five_dice().keep_counts.astype(np.int64)
    sizes = counts[:N_SMALL].sum(axis=1)
    order = np.lexsort((np.arange(N_SMALL), -sizes))
    inside = (counts[order, None, :] <= counts[None, N_SMALL:, :]).all(axis=2)  # (keep in order, outcome)
    ptr = np.zeros(N_OUT + 1, dtype=np.int32)
    ptr[1:] = np.cumsum(inside.sum(axis=0))
    okeep = np.concatenate([order[inside[:, o]] for o in range(N_OUT)]).astype(np.int32)
    return ptr, okeep


class ScorecardSimulator:
    """Plays the expected-score policy of ``game`` from ``table`` (see the module
    docstring); :meth:`scores` gives the final score of many games at once."""

    def __init__(self, game: ScorecardGame, table: Table) -> None:
        if not supports(game, table):
            raise TableError(f"{game.NAME}: the simulation kernel plays only cards with one box group per turn "
                             "(no declaration, SK-3)")
        ranker = _ranker(game, table)
        a = ranker.arrays
        self.game = game
        mask, cls, flag, shift, _groups = ranker.card(Card(entries=(None,) * game.num_boxes))
        self.start = (mask, cls, flag, float(shift))
        fd = five_dice()
        okeep_ptr, okeep = keeps_inside_outcomes()
        self._tables = (
            a["values"], a["base"], a["nflag"], a["grp_ptr"], a["grp_bits"], a["ctx_of"], a["fill_rewards"],
            a["special_outcomes"], a["special_rewards"], a["row_start"], a["uprank"], a["row_next"], a["row_off"],
            a["entry_group"], a["fnext"], len(game.upper_boxes), fd.child,
            fd.keep_counts.sum(axis=1).astype(np.int8), okeep_ptr, okeep,
        )

    def scores(self, game_seeds: np.ndarray, seat: int = 0, jobs: int = 1) -> np.ndarray:
        """Final score (float64) of seat ``seat``'s card in each game, game i's dice rolled
        as ``ChanceSampler(game_seeds[i])`` rolls them for that seat (``game_seeds``: int64,
        each in 0..2**63-1), the games split between ``jobs`` threads (the kernel runs
        without the GIL)."""
        return self._play(_seed_array(game_seeds, "game"), seat, jobs, ())

    def level_scores(self, game_seeds: np.ndarray, agent_seeds: np.ndarray, temperature: float | None,
                     relative: bool = False, seat: int = 0, jobs: int = 1) -> np.ndarray:
        """:meth:`scores` of a level (``LevelAgent.choose``): at each decision the softmax
        over the ranked values at ``temperature`` (> 0; ``None``: uniform; ``relative``:
        times the spread of the values there), one ``random.Random(agent_seeds[i]).random()``
        per decision of game i. Temperature 0 is the expected-score policy: :meth:`scores`."""
        seeds = _seed_array(game_seeds, "game")
        agents = _seed_array(agent_seeds, "agent")
        if agents.shape != seeds.shape:
            raise ValueError(f"{len(agents)} agent seeds for {len(seeds)} games")
        t = math.inf if temperature is None else float(temperature)
        if not t > 0:
            raise ValueError(f"a level's temperature must be > 0 or None (uniform), got {temperature!r}")
        return self._play(seeds, seat, jobs, (agents, t, bool(relative)))

    def _play(self, seeds: np.ndarray, seat: int, jobs: int, level: tuple) -> np.ndarray:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.game.num_players:
            raise ValueError(f"seat must be 0..{self.game.num_players - 1}, got {seat!r}")
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"jobs must be a positive integer, got {jobs!r}")
        out = np.empty(len(seeds))
        threads = max(1, min(jobs, len(seeds) // MIN_GAMES_PER_THREAD))
        step = math.ceil(len(seeds) / threads) if len(seeds) else 1
        spans = [(lo, min(lo + step, len(seeds))) for lo in range(0, len(seeds), step)]

        def play(span: tuple[int, int]) -> None:
            lo, hi = span
            _simulate.play_games(seeds[lo:hi], int(seat), *self.start, out[lo:hi], *self._tables,
                                 *((level[0][lo:hi],) + level[1:] if level else ()))

        if threads == 1:
            for span in spans:
                play(span)
        else:
            with ThreadPoolExecutor(max_workers=threads) as pool:
                list(pool.map(play, spans))
        if np.isneginf(out).any():
            raise TableError(f"{self.game.NAME}: a game met dice that no open box could take (a damaged table?)")
        return out


def _seed_array(seeds: np.ndarray, what: str) -> np.ndarray:
    out = np.ascontiguousarray(seeds, dtype=np.int64)
    if out.ndim != 1 or (out < 0).any():
        raise ValueError(f"{what} seeds must be a 1-D array of non-negative 63-bit integers")
    return out


def supports(game: ScorecardGame, table: Table) -> bool:
    """Whether the kernel plays ``game``: every card that can occur has one box group per
    turn (no declaration)."""
    if getattr(game, "declares", False):
        return False
    a = table.arrays
    if "grp_ptr" not in a:  # a table of values only: the groups come from the rules
        a = _ranker(game, table).arrays
    open_cards = np.asarray(a["base"])[:-1] >= 0
    return bool((np.diff(np.asarray(a["grp_ptr"]))[:-1][open_cards] == 1).all())


def simulator(game: ScorecardGame, table: Table) -> ScorecardSimulator | None:
    """The simulator of ``game`` over ``table``, or ``None`` where the kernel does not play
    this variant (:func:`supports`)."""
    return ScorecardSimulator(game, table) if supports(game, table) else None
