"""The throws of one turn of the Polish basic game as the rules engine makes them, for the
tests' exact references: the race enumeration (tests/test_polish_basic_race.py) and the
solitaire expectimax (tests/test_polish_basic_solitaire.py). Both value a turn the same
way, three throws with a keep between them; they differ only in what the end of a turn
is worth. So that part is written once, here.

Everything comes from the engine (``PolishBasicGame`` hooks): the outcomes of a throw of
five and their chances, the keeps the engine allows after throws 1 and 2, and where the
roll of each keep lands. Nothing of the solvers is used.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from kocka.solver.rules.polish import Keep, PolishBasicGame, PolishBasicState


class EngineThrows:
    """The keep transitions of one turn, in numpy, so that a sweep is quick.

    ``outcomes``: the dice after a throw of five, in the engine's order (``index``: dice
    to position), ``p_first`` their chances; ``keep_of``: kept dice to a row of ``T``,
    ``T[k, o]``: P(outcome o after keeping k and rolling the rest); ``keep_rows[t][o]``:
    the keeps the engine allows after throw t = 1, 2 on outcome o (padded with the
    impossible keep ``len(keep_of)``)."""

    def __init__(self, game: PolishBasicGame) -> None:
        start = game.new_initial_state()
        thrown = game._apply(start, Keep(()))
        first = [(game._apply(thrown, roll).dice, p) for roll, p in game._chance_outcomes(thrown)]
        self.outcomes = [dice for dice, _ in first]
        self.index = {dice: i for i, dice in enumerate(self.outcomes)}
        self.p_first = np.array([p for _, p in first])
        n_out = len(self.outcomes)
        keeps: dict = {}
        legal_keeps = {}
        for t in (1, 2):
            for o, dice in enumerate(self.outcomes):
                s = PolishBasicState(player=0, records=start.records, throws=t, dice=dice)
                legal_keeps[t, o] = [keeps.setdefault(a.dice, len(keeps)) for a in game._legal_actions(s)
                                     if isinstance(a, Keep)]
        self.keep_of = keeps
        self.T = np.zeros((len(keeps), n_out))
        for kept, k in keeps.items():
            s = PolishBasicState(player=0, records=start.records, throws=1, kept=kept)
            for roll, p in game._chance_outcomes(s):
                self.T[k, self.index[game._apply(s, roll).dice]] += p
        width = max(len(v) for v in legal_keeps.values())
        self.keep_rows = {t: np.full((n_out, width), len(keeps)) for t in (1, 2)}
        for (t, o), ks in legal_keeps.items():
            self.keep_rows[t][o, :len(ks)] = ks

    def keep_value(self, after_next: np.ndarray, kept: tuple[int, ...]) -> float:
        """What keeping ``kept`` is worth, given the values ``after_next`` after the next throw."""
        return float(self.T[self.keep_of[kept]] @ after_next)

    def throw_values(self, end_row: Callable[[int], np.ndarray]) -> list[np.ndarray]:
        """Value per outcome after throws 1, 2, 3: the better of ending the turn
        (``end_row(t)``: the best end the engine allows after throw t on each outcome,
        -inf where there is none) and the best keep the engine allows, then throwing again."""
        after: list = [None, None, None, None]
        for t in (3, 2, 1):
            row = end_row(t)
            if t < 3:
                K = np.append(self.T @ after[t], -np.inf)
                row = np.maximum(row, K[self.keep_rows[t]].max(axis=1))
            after[t - 1] = row
        return after[:3]
