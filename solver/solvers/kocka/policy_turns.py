"""What one turn of a player with a *fixed* policy banks: the distribution a best reply
needs of an opponent it has fitted (:mod:`~kocka.solver.solvers.kocka.best_reply`).

A policy is any ``choose(state) -> action`` over the Kocka engine (a bot, a threshold
rule); :func:`policy_turn_outcomes` follows every roll of one turn exactly (the engine's
dice outcomes and probabilities, KOCKA-4..19), with the policy's choice at each decision,
memoised on the turn state. The turn is played far from the target, so the policy never
banks *because* the bank would win; :meth:`PolicyTurnOutcomes.transition` adds that rule
back exactly: the turn total only grows within a turn, so a player who also banks as soon
as his total reaches what he still needs plays the same turn up to the first decision at
which it has, and reaches the target exactly when the last total at which he could bank
(the bank itself, or the last bankable total before the bust) is at least that need.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from kocka.solver.base.errors import RulesError
from kocka.solver.rules import CHANCE
from kocka.solver.rules.kocka import Bank, KockaGame
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.kocka_turn import UNIT

FAR_TARGET = 10**9
"""The target of the game a turn is followed in: no bank ever reaches it."""

CAP_ABOVE_TARGET = 1000
"""A turn total this far past the rules' target counts as a bank of it: it reaches the
target from any score, and not following the rolls beyond keeps the memo finite (full
rolls re-roll all six dice without a choice, KOCKA-11, so a turn has no longest path).
What this changes: only a bust after such a total, which a real player would have
banked at his next chance, below 1e-6 of the turns at the default target."""

_NO_BANK_SEEN = -1


@dataclass(frozen=True)
class PolicyTurnOutcomes:
    """One turn of a fixed policy in one phase (units of ``unit`` points).

    ``bank[t]``: P(the turn banks t units); ``bust_after[h]``: P(it busts, the last total
    at which it could have banked being h units); ``bust_unbankable``: P(it busts before
    any bankable total); ``instant_win``: P(a completed series of 1s wins at once, KOCKA-19).
    The four add up to 1.
    """

    unit: int
    bank: np.ndarray
    bust_after: np.ndarray
    bust_unbankable: float
    instant_win: float

    def transition(self, score: int, goal: int) -> tuple[np.ndarray, float, float]:
        """From ``score`` units, with the target at ``goal`` units: ``(move, stay, reach)``,
        ``move[t]`` P(banking t units without reaching the goal; index 0 unused), ``stay``
        P(the score stays: a bust that never saw the need), ``reach`` P(reaching the goal,
        banking as soon as a bank reaches it: see the module docstring)."""
        need = goal - score
        if need < 1:
            raise RulesError(f"a score of {score} units has reached the goal of {goal}")
        move = np.zeros(need)
        below = min(need, len(self.bank))
        move[:below] = self.bank[:below]
        move[0] = 0.0
        stay = self.bust_unbankable + float(self.bust_after[:need].sum())
        reach = max(0.0, 1.0 - stay - float(move.sum()))
        return move, stay, reach

    @property
    def mean_banked(self) -> float:
        """Expected points banked per turn (far from the target)."""
        return float(np.dot(np.arange(len(self.bank)), self.bank)) * self.unit


def policy_turn_outcomes(rules: KockaRules, choose_for: Callable[[KockaGame], Callable[[Any], Any]],
                         high_phase: bool) -> PolicyTurnOutcomes:
    """The outcomes of one turn of the policy ``choose_for(game)`` (given the game it plays,
    a two-seat game with the target out of reach) for a player below ``series_threshold``
    or, with ``high_phase``, at it (KOCKA-2)."""
    far = dataclasses.replace(rules, target=FAR_TARGET)
    game = KockaGame(far, num_players=2)
    choose = choose_for(game)
    start_score = rules.series_threshold if high_phase else 0
    state = dataclasses.replace(game.new_initial_state(), scores=(start_score, 0))
    unit = UNIT
    cap = rules.target + CAP_ABOVE_TARGET
    memo: dict[Any, dict[tuple[str, int], float]] = {}

    def outcomes(s: Any) -> dict[tuple[str, int], float]:
        """Distribution of ("bank", t) / ("bust", h) / ("win", 0) from ``s`` (h =
        _NO_BANK_SEEN: no bankable total seen since ``s``)."""
        found = memo.get(s)
        if found is not None:
            return found
        result: dict[tuple[str, int], float] = {}
        player = game.current_player(s)
        if s.turn_total >= cap:  # as good as reaching any target (see CAP_ABOVE_TARGET)
            result[("bank", cap // unit)] = 1.0
        elif player == CHANCE:
            for roll, p in game.chance_outcomes(s):
                nxt = game.apply(s, roll)
                if nxt.player != 0 or game.is_terminal(nxt):
                    key = ("win", 0) if game.is_terminal(nxt) else ("bust", _NO_BANK_SEEN)
                    result[key] = result.get(key, 0.0) + p
                    continue
                for key, q in outcomes(nxt).items():
                    result[key] = result.get(key, 0.0) + p * q
        else:
            action = choose(s)
            if isinstance(action, Bank):
                result[("bank", s.turn_total // unit)] = 1.0
            else:
                bankable = game.may_bank(s)
                for key, q in outcomes(game.apply(s, action)).items():
                    if bankable and key == ("bust", _NO_BANK_SEEN):
                        key = ("bust", s.turn_total // unit)
                    result[key] = result.get(key, 0.0) + q
        memo[s] = result
        return result

    dist = outcomes(state)
    top = max(v for _, v in dist) + 1
    bank = np.zeros(max(top, 1))
    bust_after = np.zeros(max(top, 1))
    bust_unbankable = instant_win = 0.0
    for (kind, v), p in dist.items():
        if kind == "bank":
            bank[v] += p
        elif kind == "win":
            instant_win += p
        elif v == _NO_BANK_SEEN:
            bust_unbankable += p
        else:
            bust_after[v] += p
    return PolicyTurnOutcomes(unit, bank, bust_after, bust_unbankable, instant_win)


__all__ = ["FAR_TARGET", "PolicyTurnOutcomes", "policy_turn_outcomes"]
