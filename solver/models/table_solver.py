"""What every table solver is: the base class the table store drives.

A *table solver* computes one kind of value table for one game family; a game's spec
names its solvers (``GameSpec.tables``) and :mod:`kocka.solver.store.table_store` builds,
loads and checks their tables through this interface alone. The store, not the solver,
checks that a game is of :attr:`TableSolver.game_type` (:func:`require_game`), so every
solver refuses a game of another family with the same error and the same words.

Two checks guard a table against the rules: :meth:`TableSolver.check` is the thorough one
of ``kocka-solve verify`` (seconds or more), :meth:`TableSolver.spot_check` the one every
load runs (milliseconds: a few states, drawn from a seed the store derives from the file,
re-solved from the rules and compared to the stored values to 1e-9), so a table whose
values were changed and its checksum recomputed is refused before it answers a request.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import TableError
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.rules import Game


class TableSolver:
    """The base of every table solver (a frozen dataclass or a plain class alike).

    Subclasses set :attr:`kind`, :attr:`description` and :attr:`game_type`, and
    implement :meth:`build` and :meth:`layout`; :meth:`summary`, :meth:`check`,
    :meth:`spot_check` and :meth:`estimated_bytes` have defaults.
    """

    kind: str
    """The table kind (``kocka-solve build GAME --kind KIND``); part of the file name and
    recorded in every table."""
    description: str
    """One line for ``kocka-solve list``."""
    game_type: type | tuple[type, ...] = Game
    """The game class(es) the solver builds tables for (:func:`require_game`)."""
    players: tuple[int, ...] | None = None
    """The seat counts a table serves when the kind depends on them (Kocka: ``(2,)`` or
    ``(3,)``); None: any seat count the game allows."""

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Compute the arrays and the summary facts to record (``extra`` metadata)."""
        raise NotImplementedError

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """The arrays ``build`` writes for ``game`` (``meta``: the table's metadata, for
        lengths it records): name -> (shape, dtype), None for a length only the data
        decides. Checked on every load, from the array headers before any data is read."""
        raise NotImplementedError

    def summary(self, table: Table) -> dict[str, Any]:
        """Facts for ``kocka-solve info`` (expected score, state count, ...), numbers at
        full precision: ``info --json`` gives them as they are, its text rounds them."""
        return {}

    def check(self, game: Any, table: Table) -> list[str]:
        """The thorough independent checks of ``kocka-solve verify``; problems found
        (empty: fine)."""
        return []

    def spot_check(self, game: Any, table: Table, seed: int) -> list[str]:
        """The few-millisecond checks of every load: a small sample of states (drawn with
        ``seed``) re-solved from the rules and compared to the table to 1e-9; problems
        found (empty: fine; the default checks nothing)."""
        return []

    def estimated_bytes(self, game: Any) -> int | None:
        """About how big the table of ``game`` will be, for the free-space check before a
        build (None: unknown; the store then asks for the size of the table it replaces,
        or :data:`MIN_FREE_BYTES`)."""
        return None


MIN_FREE_BYTES = 1 << 20
"""The free space a build asks for when neither the solver nor an earlier table says more."""


def require_game(solver: TableSolver, game: Game) -> None:
    """Refuse a game the solver does not build tables for: the one game-type check of
    every solver, made by the store before it builds or opens a table."""
    if not isinstance(game, solver.game_type):
        types = solver.game_type if isinstance(solver.game_type, tuple) else (solver.game_type,)
        names = " or ".join(getattr(t, "NAME", t.__name__) for t in types)
        raise TableError(f"the {solver.kind} table solver builds {names} tables, not {game.NAME!r}")


def spot_seed(table: Table) -> int:
    """The seed of a table's load-time spot checks: from its checksum, so every file gets
    its own sample and the same file always the same one."""
    return int(table.meta.checksum[:16] or "0", 16)
