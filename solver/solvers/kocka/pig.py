"""Pig, the validation game for the two-player race machinery of the Kocka solver.

Rules (T. Neller, C. Presser, "Optimal Play of the Dice Game Pig", UMAP Journal 25(1),
2004): on his turn a player rolls one die as often as he likes; a 1 loses the turn total
and ends the turn, any other face adds to it; holding banks the turn total. The first to
reach ``goal`` (100) wins. Pig is exactly a push-your-luck turn with one roll kind, so it
runs through :class:`~kocka.solver.solvers.kocka.turn_model.TurnModelBuilder` and the same
Cython race solver as Kocka (:mod:`~kocka.solver.solvers.kocka.race`); Neller and Presser's
optimal first-player win probability (0.5306) checks the machinery.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from kocka.solver.base.errors import RulesError
from kocka.solver.solvers.kocka.race import RaceSolution, solve_race
from kocka.solver.solvers.kocka.turn_model import TurnModel, TurnModelBuilder

BUST_FACE = 1


@dataclass(frozen=True)
class PigRules:
    """``goal``: the score that wins; ``faces``: sides of the die (a 1 busts)."""

    goal: int = 100
    faces: int = 6

    def __post_init__(self) -> None:
        if isinstance(self.goal, bool) or not isinstance(self.goal, int) or self.goal < 1:
            raise RulesError(f"pig goal must be a positive integer, got {self.goal!r}")
        if isinstance(self.faces, bool) or not isinstance(self.faces, int) or self.faces < 2:
            raise RulesError(f"pig die must have at least 2 faces, got {self.faces!r}")


@lru_cache(maxsize=None)
def pig_model(rules: PigRules = PigRules()) -> TurnModel:
    """One roll kind, "roll the die": a 1 busts, face f adds f and leaves the player free
    to hold or roll again. Points are counted in units of 1."""
    die = ("die",)
    p = 1.0 / rules.faces

    def expand(key):
        outcomes = [(p, [] if face == BUST_FACE else [(face, ("free", die), 1.0)])
                    for face in range(1, rules.faces + 1)]
        return ("roll the die", outcomes, False)

    return TurnModelBuilder(1, expand).build([("pig", die, 0)], threshold=0)


def pig_win_probabilities(rules: PigRules = PigRules(), threads: int = 1) -> RaceSolution:
    """``win[i, j]``: P(the player to move wins | his score i, the other's j), both optimal."""
    return solve_race(pig_model(rules), rules.goal, threads=threads)


__all__ = ["PigRules", "pig_model", "pig_win_probabilities"]
