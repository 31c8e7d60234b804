"""A stage of two-player liar's kockapóker (RULES.md BLUFF-17..BLUFF-21) laid out for the
``adaptive`` agent: the same :class:`~kocka.solver.solvers.bluff.adaptive_bidding.StageView`
as the bidding bluff's, so the model, the safe deviations and the gifts of
:mod:`~kocka.solver.solvers.bluff.adaptive_bidding` serve both games.

A stage is (public roll, standing claim, the roller's chips x, the answerer's y, slot): slot
0 is the turn's first claim, 1..6 a claim after keeping and showing that die, 7 after
throwing both again (BLUFF-18; :class:`~kocka.solver.solvers.bluff.liars.LiarsPlan`). Its
types are the roller's hidden dice (both at slots 0 and 7, the new die at 1..6), the truth
of a claim BLUFF-20's with the public and shown dice. At slot 0 the re-throws are the
roller's outside options: columns no answerer bets on, worth the equilibrium value of the
stage they lead to (later stages at V*, as for a pass), open to the types that hold the die
kept (``StageView.allowed``).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from kocka.solver.base.dice import all_outcomes, outcome_distribution
from kocka.solver.rules.bluff import Claim, Reroll
from kocka.solver.solvers.bluff.adaptive_bidding import StageView
from kocka.solver.solvers.bluff.liars import BOTH

RETHROW = "re-throw"
"""The claim slot of a re-throw column: messages (RETHROW, kept die), the kept die
:data:`~kocka.solver.solvers.bluff.liars.BOTH` (0) for throwing both again."""


def rethrow_action(message: tuple[Any, int]) -> Reroll:
    """The engine's action of a re-throw column."""
    return Reroll(None if message[1] == BOTH else message[1])


def types_of(slot: int) -> list[tuple[tuple[int, ...], float]]:
    """The roller's hidden dice at ``slot`` with their chances: two dice at slots 0 and 7
    (in :func:`all_outcomes` order, the plan's), the new die at 1..6."""
    if slot in (0, 7):
        chance = {tuple(d): float(p) for d, p in outcome_distribution(2)}
        return [(tuple(d), chance[tuple(d)]) for d in all_outcomes(2)]
    return [((n,), 1.0 / 6.0) for n in range(1, 7)]


def type_index(slot: int, dice: tuple[int, ...], shown: tuple[int, ...]) -> int:
    """The type of a roller whose private dice are ``dice``, ``shown`` of them shown."""
    if slot in (0, 7):
        return [d for d, _p in types_of(slot)].index(tuple(sorted(dice)))
    hidden = list(dice)
    hidden.remove(shown[0])
    return hidden[0] - 1


class LiarsStages:
    """Liar's poker's stages for :class:`~kocka.solver.solvers.bluff.adaptive_bidding.ModelReply`:
    keyed (public roll, standing claim, the roller's chips, the answerer's, slot);
    ``view_of(key)`` lays one out (the agent's cache)."""

    def __init__(self, view_of: Callable[[tuple], StageView], plan: Any) -> None:
        self.view_of, self.plan = view_of, plan

    def view(self, key: tuple) -> StageView:
        return self.view_of(key)

    def passed(self, key: tuple, claim: Any) -> tuple | None:
        """After a pass of ``claim`` the answerer rolls with the same public dice, 1 chip
        richer (BLUFF-21); None where the pass ends the round."""
        public, _standing, x, y, _slot = key
        return None if claim == self.plan.top(public) or y == 1 else (public, claim, y - 1, x + 1, 0)

    def outside(self, key: tuple, message: tuple) -> tuple:
        """The stage a re-throw leads to (its slot: the die kept, or 7)."""
        public, standing, x, y, _slot = key
        return public, standing, x, y, 7 if message[1] == BOTH else message[1]


def liars_stage(plan: Any, public: tuple, standing: Any, x: int, y: int, slot: int) -> StageView:
    """The stage of ``plan`` (a :class:`~kocka.solver.solvers.bluff.liars.LiarsPlan` or
    the match plan) as arrays (module docstring)."""
    game = plan.game
    shown = (slot,) if 1 <= slot <= 6 else ()
    types = types_of(slot)
    messages: list[tuple[Any, int]] = []
    for claim in game.claims_above(standing, public, shown):
        top = min(x, y) if plan.forced(public, claim) else min(x, y + 1)
        messages.extend((claim, k) for k in range(1, top + 1))
    claims = len(messages)
    rethrows: list[int] = []
    if slot == 0:
        rethrows = [d for d in range(1, 7) if game.claims_above(standing, public, (d,))]
        if game.rules.reroll == "one_or_both":
            rethrows.append(BOTH)
    messages.extend((RETHROW, d) for d in rethrows)
    index = {m: i for i, m in enumerate(messages)}
    sigma = np.zeros((len(types), len(messages)))
    for r in range(len(types)):
        for action, p in plan.distribution(public, standing, x, y, slot, r):
            if isinstance(action, Claim):
                sigma[r, index[(action.claim, action.stake)]] += p
            else:
                sigma[r, index[(RETHROW, BOTH if action.keep_shown is None else action.keep_shown)]] += p
    allowed = np.ones((len(types), len(messages)), dtype=bool)
    for j, d in enumerate(rethrows):
        allowed[:, claims + j] = [d == BOTH or d in dice for dice, _p in types]
    truth = np.zeros((len(types), len(messages)), dtype=bool)
    truth[:, :claims] = [[game.claim_true(c, dice, public, shown) for c, _k in messages[:claims]] for dice, _p in types]
    forced = np.array([plan.forced(public, c) for c, _k in messages[:claims]] + [False] * len(rethrows), dtype=bool)
    pays = [plan.bet_values(public, c, k, x, y) for c, k in messages[:claims]] + [(0.0, 0.0)] * len(rethrows)
    passed = [0.0 if f else plan.pass_value(public, c, x, y) for (c, _k), f in zip(messages[:claims], forced)]
    passed += [plan.value(public, standing, x, y, 7 if d == BOTH else d) for d in rethrows]
    can_bet = np.array([f or k <= y for (_c, k), f in zip(messages[:claims], forced)] + [False] * len(rethrows), dtype=bool)
    beta = [plan.bet_probability(public, standing, x, y, slot, c, k) for c, k in messages[:claims]] + [0.0] * len(rethrows)
    rank = lambda claim: game.claim_strength(claim, public)  # noqa: E731 - the model's cells: a claim's global rank
    return StageView(
        standing, x, y, tuple(messages), np.array([p for _d, p in types]), truth,
        np.array([p[0] for p in pays]), np.array([p[1] for p in pays]), np.array(passed), can_bet, forced, sigma,
        np.array(beta), plan.value(public, standing, x, y, slot), tuple(d for d, _p in types),
        tuple(rank(c) for c, _k in messages[:claims]) + (-1,) * len(rethrows),
        0 if standing is None else rank(standing) + 1, allowed,
    )


__all__ = ["LiarsStages", "RETHROW", "liars_stage", "rethrow_action", "type_index", "types_of"]
