"""kocka.solver: rules engines (pure Python) and dynamic-programming solvers.

Rules engines live in :mod:`kocka.solver.rules`; they are the single source of truth
for legality and scoring. Solvers turn them into numpy score tables and hand those to
small Cython kernels.
"""
from kocka.solver.base.errors import (
    DiceError,
    IllegalActionError,
    InvalidStateError,
    KockaError,
    RulesError,
    TableError,
)

__all__ = [
    "DiceError",
    "IllegalActionError",
    "InvalidStateError",
    "KockaError",
    "RulesError",
    "TableError",
]
