"""Stand-ins: what a hint plays when the table of the exact method is not here, so that
every game always gets a hint (issue 26), and says so.

* **Kocka with three or more players** (KOCKA-1, KOCKA-3). The exact three-player table
  (``winprob3``, ``kocka-solve build kocka --players 3``, 192 MB at the default target)
  covers three players under ``kocka.end = immediate``. When it is not here, the hint
  plays the race of the player against the leading opponent (the opponent with the highest
  banked score) from the two-player table (``winprob``), as agent ``leader`` does. With four
  or more players no exact table exists at all: the three-player table with the two leading
  opponents standing for all is the closer approximation (measured in docs/SOLVER.md), the
  two-player race the stand-in for it. With four players the exact four-player table
  (``winprob4``, ``kocka-solve build kocka --players 4``, a cluster's work at the default
  target) is used when it has been built; it is never built on demand. Under the other
  end rules the two-player race is the only method there is.
* **Scorecard games without the target table**: the moves are ranked by points (the
  expected-score table) instead of by the chance of winning.

:class:`StandIn` records which of these an agent or a hint plays; the front ends word it
in the player's language (:func:`kocka.agents.advice.kocka.stand_in_line`,
:func:`kocka.agents.advice.hint.points_instead_line`). This module only decides; it never
builds a table the caller did not ask for.
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass

from kocka.solver.base.errors import TableError
from kocka.solver.base.table_file import Table
from kocka.solver.rules import Game
from kocka.solver.solvers.kocka import ranking as kocka_ranking
from kocka.solver.store import table_store
from kocka.solver.store.table_store import build_command, solver_for

LEADER_RACE = "leader race"
"""The two-player race of the player against the leading opponent (``winprob``)."""
TWO_LEADERS = "two leaders"
"""The three-player table with the two leading opponents standing for all (``winprob3``, four or more players)."""
POINTS = "points"
"""The expected-score ranking instead of the chance of winning (scorecard games)."""


@dataclass(frozen=True)
class StandIn:
    """What is played instead of the exact method, and what would give it.

    ``method``: :data:`LEADER_RACE`, :data:`TWO_LEADERS` or :data:`POINTS`; ``players``:
    the seats at the table; ``exact_exists``: whether an exact table for this game exists
    to be built (three-player Kocka under ``immediate``; the target table); ``build``: the
    ``kocka-solve`` command that builds the missing table (``None``: nothing to build that
    would do better)."""

    method: str
    players: int
    exact_exists: bool
    build: str | None = None


def kocka_win_table(game: Game, cache_dir: str | pathlib.Path | None = None,
                    build_missing: bool = False) -> tuple[Table, StandIn | None]:
    """The win table a Kocka hint of ``game`` ranks with, and the stand-in it plays
    (``None``: the exact method).

    The table is the one :func:`~kocka.solver.solvers.kocka.ranking.win_table_kind` names;
    when that is the three-player table and it cannot be had here (not built, or not
    usable), the two-player table, racing the leader. A missing two-player table raises
    :class:`~kocka.solver.base.errors.TableError` naming its build (nothing smaller stands
    in for it)."""
    n = game.num_players
    kind = kocka_ranking.win_table_kind(game)
    if n == 4 and kind == "winprob3":
        # the exact four-player table when it is built (never built here: at the default
        # target it takes a cluster, see docs/SOLVER.md); else the stand-ins below
        try:
            return table_store.get_table(game, "winprob4", cache_dir, build_missing=False), None
        except TableError:
            pass
    try:
        table = table_store.get_table(game, kind, cache_dir, build_missing=build_missing)
    except TableError:
        if kind != "winprob3":
            raise
        table = table_store.get_table(game, "winprob", cache_dir, build_missing=build_missing)
        return table, StandIn(LEADER_RACE, n, exact_exists=n == 3,
                              build=build_command(game, solver_for(game.NAME, "winprob3"), cache_dir))
    if n <= 2 or (kind == "winprob3" and n == 3):
        return table, None
    if kind == "winprob3":
        if n == 4:  # the exact table exists to be built, though at the default target on a cluster
            return table, StandIn(TWO_LEADERS, n, exact_exists=True,
                                  build=build_command(game, solver_for(game.NAME, "winprob4"), cache_dir))
        return table, StandIn(TWO_LEADERS, n, exact_exists=False)
    return table, StandIn(LEADER_RACE, n, exact_exists=False)  # the end rules no three-player table covers


def points_instead(game: Game, cache_dir: str | pathlib.Path | None = None) -> StandIn:
    """The stand-in of a scorecard game's play-to-win hint without its target table: the
    ranking by points, and the build of the target table."""
    return StandIn(POINTS, game.num_players, exact_exists=True,
                   build=build_command(game, solver_for(game.NAME, "target"), cache_dir))


__all__ = ["LEADER_RACE", "POINTS", "StandIn", "TWO_LEADERS", "kocka_win_table", "points_instead"]
