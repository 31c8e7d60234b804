"""Opponent modelling and the best reply to a model in two-player Abázs (RULES.md BLUFF-3,
BLUFF-5, BLUFF-7..BLUFF-10): the solver side of the ``adaptive`` agent
(:mod:`kocka.agents.bots.adaptive_bluff`).

**The model** (:class:`AbazsOpponentModel`). The opponent's information sets are public
situations: as claimant, (the standing claim s he must beat, his result r) -> his claim c;
as answerer, (the claim s that the standing claim c beat, c) -> challenge or accept. Each
has a Dirichlet posterior whose prior is centred on the match equilibrium's mixed strategy
with :data:`PRIOR_WEIGHT` pseudo-observations. An answer is always seen; a claim's result
only when the claim is challenged (BLUFF-10 shows the dice), so claims update the model only
then (a selected sample: challenged claims; the prior keeps the rest at the equilibrium).

**The best reply** (:func:`best_reply`) to the posterior-mean model uses the exact stage
decomposition of :mod:`kocka.solver.solvers.bluff.abazs`: once a claim is accepted nothing
private matters, so with R(s) my value when I must beat s and O(s) my value when he must,

* R(s) = sum_r P(r) max_c [chal(s, c) pay(c true for r) + (1 - chal(s, c)) O(c)],
* O(s) = sum_c P(he claims c | s) max(challenge: -(q pay_true + (1 - q) pay_false), accept: R(c)),

q = P(c true | he claimed c over s) by Bayes over his modelled claims; a challenge pays the
claimant the match plan's (win, lose), the +-1 chip plus the value of who starts next
(:func:`~kocka.solver.solvers.bluff.abazs.challenge_payoffs`). Solved from the top claim down.

**The safety bound** (:func:`mixture_weight`). The agent plays, per round, the best reply
with probability w and the equilibrium otherwise; a round's result is linear in that draw,
so against any opponent it loses at most w L per round to the equilibrium's guarantee,
where L is the best reply's own worst-case loss: the most a best responder wins against it
in the round (counting the start value), over the value the equilibrium guarantees that
seat, computed exactly by the independent walk
(:func:`~kocka.solver.solvers.bluff.abazs.best_response_value`). w is the largest value
with w L <= epsilon, and at most the data's weight n / (n + :data:`CONFIDENCE_COUNT`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kocka.solver.rules.bluff import (
    AbazsGame, Accept, BluffState, Challenge, Claim, actual_result, all_claims, claim_probabilities,
)
from kocka.solver.solvers.bluff import abazs as bluff_abazs
from kocka.solver.solvers.bluff.two_player import result_dice, standing_index

PRIOR_WEIGHT = 4.0
"""Pseudo-observations behind each information set's equilibrium prior."""
CONFIDENCE_COUNT = 40.0
"""Observed opponent decisions at which the data's weight in the mixture reaches one half."""


@dataclass
class AbazsOpponentModel:
    """Dirichlet counts of one opponent (mutable). ``claims[s, r, c]``: claims c made with
    result r over standing index s (0: none, rank + 1); ``challenges[s, c] = (challenges,
    accepts)`` of claim c made over standing index s. ``observed`` counts the updates."""

    claims: np.ndarray
    challenges: np.ndarray
    observed: int = 0

    @staticmethod
    def equilibrium_prior(table: Any, plan: str = "match", weight: float = PRIOR_WEIGHT) -> "AbazsOpponentModel":
        """The prior centred on a stored equilibrium's mixed strategy."""
        claim_policy = np.asarray(table[f"{plan}_claim_policy"], dtype=float)
        challenge = np.asarray(table[f"{plan}_challenge_policy"], dtype=float)
        return AbazsOpponentModel(weight * claim_policy, weight * np.stack([challenge, 1.0 - challenge], axis=-1))

    def saw_claim(self, standing: int, result: int, claim: int) -> None:
        """A claim whose result was revealed (BLUFF-10)."""
        self.claims[standing, result, claim] += 1.0
        self.observed += 1

    def saw_answer(self, standing: int, claim: int, challenged: bool) -> None:
        """An unforced answer to ``claim`` made over standing index ``standing``."""
        self.challenges[standing, claim, 0 if challenged else 1] += 1.0
        self.observed += 1

    def claim_policy(self) -> np.ndarray:
        """Posterior mean P(claim c | standing index s, result r); rows with no mass stay 0."""
        total = self.claims.sum(axis=-1, keepdims=True)
        return np.divide(self.claims, total, out=np.zeros_like(self.claims), where=total > 0)

    def challenge_policy(self) -> np.ndarray:
        """Posterior mean P(challenge | standing index s, claim c)."""
        total = self.challenges.sum(axis=-1)
        return np.divide(self.challenges[..., 0], total, out=np.zeros(total.shape), where=total > 0)


@dataclass(frozen=True)
class BestReply:
    """The best reply to a fixed opponent strategy: ``claim[s, r]`` the rank of the claim
    made with result r over standing index s (-1: no stage), ``challenge[s, c]`` whether
    to challenge claim c made over standing index s; ``mine[s]`` = R(s), ``theirs[s]`` = O(s)
    (module docstring)."""

    ranking: str
    claim: np.ndarray
    challenge: np.ndarray
    mine: np.ndarray
    theirs: np.ndarray

    def policy(self) -> bluff_abazs.RoundPolicy:
        """The reply as a deterministic round policy."""
        claims = all_claims(self.ranking)
        ranking = self.ranking

        def policy(state: BluffState, previous: Any) -> dict[Any, float]:
            if state.phase == "claim":
                rank = self.claim[standing_index(state.standing), actual_result(state.dice, ranking).rank]
                return {Claim(claims[int(rank)]): 1.0}
            if state.standing == claims[-1] or self.challenge[standing_index(previous), state.standing.rank]:
                return {Challenge(): 1.0}
            return {Accept(): 1.0}

        return policy


def best_reply(game: AbazsGame, claim_policy: np.ndarray, challenge_policy: np.ndarray,
               challenged: tuple[float, float]) -> BestReply:
    """The best reply to an opponent who claims by ``claim_policy[s, r, c]`` and challenges
    by ``challenge_policy[s, c]``, a challenge paying the claimant ``challenged`` = (true,
    false claim) (module docstring's recursion)."""
    ranking = game.rules.ranking
    results = all_claims(ranking)
    n = len(results)
    chance = np.array([float(claim_probabilities(ranking)[r]) for r in results])
    reps = result_dice(ranking)
    truth = np.array([[game.claim_true(c, reps[r]) for c in results] for r in results], dtype=bool)  # [r, c]
    win, lose = challenged
    mine, theirs = np.zeros(n + 1), np.zeros(n + 1)
    claim = np.full((n + 1, n), -1, dtype=np.int64)
    challenge = np.zeros((n + 1, n), dtype=bool)
    for s in range(n, -1, -1):  # standing index n is the top claim: no stage
        if s == n:
            continue
        allowed = [c.rank for c in game.claims_above(None if s == 0 else results[s - 1])]
        # my claim: challenged with his rate, else he must beat it (O); the top claim is always challenged
        chal = np.array([1.0 if c == n - 1 else challenge_policy[s, c] for c in allowed])
        later = np.array([0.0 if c == n - 1 else theirs[c + 1] for c in allowed])
        q_values = chal * np.where(truth[:, allowed], win, lose) + (1.0 - chal) * later  # [r, claim]
        best = q_values.argmax(axis=1)
        claim[s] = np.array(allowed)[best]
        mine[s] = float(chance @ q_values[np.arange(n), best])
        # his claim over s: I answer each claim by Bayes over his modelled claims
        weighted = chance[:, None] * claim_policy[s][:, allowed]  # [r, claim]
        made = weighted.sum(axis=0)
        true_mass = (weighted * truth[:, allowed]).sum(axis=0)
        prior_true = (chance[:, None] * truth[:, allowed]).sum(axis=0)
        q = np.where(made > 1e-15, true_mass / np.maximum(made, 1e-300), prior_true)
        on_challenge = -(q * win + (1.0 - q) * lose)
        on_accept = np.array([-np.inf if c == n - 1 else mine[c + 1] for c in allowed])
        challenge[s, allowed] = on_challenge >= on_accept
        theirs[s] = float(made @ np.maximum(on_challenge, on_accept))
    return BestReply(ranking, claim, challenge, mine, theirs)


def equilibrium_guarantee(game: AbazsGame, equilibrium: bluff_abazs.RoundPolicy, start_bonus: float) -> tuple[float, float]:
    """What ``equilibrium`` guarantees each seat in one round (seat 0 starts), counting
    ``start_bonus`` for starting the next (BLUFF-10): its value against itself."""
    walk = bluff_abazs.walk_game(game.rules)
    return (float(bluff_abazs.policy_value(walk, [equilibrium, equilibrium], 0, start_bonus)),
            float(bluff_abazs.policy_value(walk, [equilibrium, equilibrium], 1, start_bonus)))


def worst_case_loss(game: AbazsGame, policy: bluff_abazs.RoundPolicy, guarantee: tuple[float, float],
                    start_bonus: float) -> float:
    """The most ``policy`` loses in one round, over both seats, to ``guarantee`` (the
    equilibrium's, :func:`equilibrium_guarantee`) against a best responder; the seats'
    results add up to ``start_bonus`` (one of them starts the next round). Walked exactly by
    the independent best response (:func:`~kocka.solver.solvers.bluff.abazs.best_response_value`)."""
    walk = bluff_abazs.walk_game(game.rules)
    losses = [guarantee[seat] - (start_bonus - float(bluff_abazs.best_response_value(walk, policy, 1 - seat, start_bonus)))
              for seat in (0, 1)]
    return max(0.0, *losses)


def data_weight(observed: int) -> float:
    """How far ``observed`` decisions of the opponent are trusted: ``observed / (observed +
    CONFIDENCE_COUNT)``, the most weight a best reply to them gets."""
    return observed / (observed + CONFIDENCE_COUNT)


def mixture_weight(loss: float, epsilon: float, observed: int) -> float:
    """The weight w of the best reply (module docstring): ``w loss <= epsilon`` and at most
    the data's weight (:func:`data_weight`)."""
    data = data_weight(observed)
    return data if loss <= 0 else min(data, epsilon / loss)


__all__ = [
    "AbazsOpponentModel", "BestReply", "CONFIDENCE_COUNT", "PRIOR_WEIGHT", "best_reply", "data_weight", "equilibrium_guarantee",
    "mixture_weight", "worst_case_loss",
]  # fmt: skip
