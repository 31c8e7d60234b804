"""Opponent modelling, the best reply to a model and its safety bound in the two-player
bidding bluff (RULES.md BLUFF-11..BLUFF-16): the solver side of the betting game's
``adaptive`` agent (:mod:`kocka.agents.bots.adaptive_bluff`).

**Stages.** A round is a chain of stages (s, x, y): the roller, holding x chips against y,
rolls fresh dice and must beat the standing claim s; he claims c with stake k, and the
answerer bets (the round ends with +-k) or passes (1 chip to the roller, who keeps his
claim standing; the answerer becomes the roller of (c, y - 1, x + 1)). The stored round plan
(:class:`~kocka.solver.solvers.bluff.bidding.BiddingPlan`) gives each stage's equilibrium:
the roller's claims sigma*(m | r) per result r, the answerer's bets beta*(m) per message
m = (c, k), and the stage value V*(s, x, y), later stages priced at their equilibrium value.
:class:`StageView` lays one stage out as arrays (results x canonical messages).

**The model** (:class:`BiddingOpponentModel`): the opponent's answers are always seen, his
claims always (they are public), their truth only at a reveal (BLUFF-15). Per cell
(standing claim, claim, stake class) his chance of a bet and of a true claim are the
equilibrium's scaled by the cell's observed over expected count, shrunk towards the same
cell over every standing claim (:meth:`BiddingOpponentModel._estimate`); the chance of each
claim is the equilibrium's plus what he was seen to claim. Unseen, he is the equilibrium.

**The reply** (:class:`ModelReply`): the best reply to the model over the rest of the round,
every later stage played by the reply too. One stage deep instead (later stages at the
plan's values): :func:`reply_claims` and :func:`reply_bets`, what the agent plays with the
match plan, whose values are chances to win.

**The safety bound.** The agent plays, in a stage of its own, the equilibrium's stage
strategy mixed with weight w with the reply. Whatever the opponent does, the stage then
gives at least the mixture's guarantee against a best responder with later stages at V*
(:func:`roller_guarantee`, :func:`answerer_exposure`); its shortfall to V* is the stage's
loss, convex in w and 0 at w = 0. Telescoping over a round's stages (each stage's payoff
plus the next stage's V*, minus its own V*), the round's result falls short of the
equilibrium's V* of the round by at most the sum of the losses of the stages it visits in
expectation, so an agent that never spends more than EPSILON per round begun plus what its
rounds gave beyond their V* (safe exploitation, "risk what you won") falls, against any
opponent, at most EPSILON per round below the sum of the V* of the rounds it plays
(:func:`largest_safe_weight` finds each stage's weight).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np

from kocka.solver.rules.bluff import claim_probabilities
from kocka.solver.solvers.bluff.two_player import result_dice

PRIOR_WEIGHT = 4.0
"""Pseudo-observations behind each cell's equilibrium prior."""
STAKE_CLASSES = (1, 2, 4)
"""Stake classes of the model's cells: stake 1, 2-3, 4 and more."""


def stake_class(stake: int) -> int:
    return sum(stake >= low for low in STAKE_CLASSES) - 1


@dataclass(frozen=True)
class StageView:
    """One stage (``standing``, x, y) against a plan, as arrays. ``messages`` are the
    canonical (claim, stake) pairs (a stake above y, which the answerer cannot bet, stands
    as y + 1; on a forced top claim a stake above y stands as y); ``chance[r]`` the chance
    of result r, ``truth[r, m]`` whether message m is true for r; the roller's payoffs
    ``win[m]``, ``lose[m]`` (bet on, true / false) and ``passed[m]``; ``can_bet[m]``,
    ``must_bet[m]``; ``sigma[r, m]`` and ``beta[m]`` the equilibrium's; ``value`` V*."""

    standing: Any
    x: int
    y: int
    messages: tuple[tuple[Any, int], ...]
    chance: np.ndarray
    truth: np.ndarray
    win: np.ndarray
    lose: np.ndarray
    passed: np.ndarray
    can_bet: np.ndarray
    must_bet: np.ndarray
    sigma: np.ndarray
    beta: np.ndarray
    value: float
    results: tuple[Any, ...] = field(default=())

    @staticmethod
    def build(plan: Any, standing: Any, x: int, y: int) -> "StageView":
        game = plan.game
        dice = result_dice(game.rules.ranking)
        results = tuple(dice)
        chance = claim_probabilities(game.rules.ranking)
        messages: list[tuple[Any, int]] = []
        for claim in game.claims_above(standing):
            top = min(x, y) if plan.forced(claim) else min(x, y + 1)
            messages.extend((claim, k) for k in range(1, top + 1))
        index = {m: i for i, m in enumerate(messages)}
        sigma = np.zeros((len(results), len(messages)))
        for r, result in enumerate(results):
            for claim, k, p in plan.claim_distribution(standing, x, y, result):
                sigma[r, index[(claim, k)]] += p
        bets = [plan.bet_values(c, k, x, y) for c, k in messages]
        must = np.array([plan.forced(c) for c, _k in messages], dtype=bool)
        return StageView(
            standing, x, y, tuple(messages),
            np.array([float(chance[r]) for r in results]),
            np.array([[game.claim_true(c, dice[r]) for c, _k in messages] for r in results], dtype=bool),
            np.array([b[0] for b in bets]), np.array([b[1] for b in bets]),
            np.array([0.0 if f else plan.pass_value(c, x, y) for (c, _k), f in zip(messages, must)]),
            np.array([f or k <= y for (_c, k), f in zip(messages, must)], dtype=bool), must, sigma,
            np.array([plan.bet_probability(standing, x, y, c, k) for c, k in messages]),
            plan.value(standing, x, y), results,
        )

    def message_index(self, claim: Any, stake: int) -> int:
        """The canonical message of a claim made with ``stake``."""
        forced = any(must for (c, _k), must in zip(self.messages, self.must_bet) if c == claim)
        canonical = min(stake, self.x, self.y) if forced else min(stake, self.y + 1)
        return self.messages.index((claim, canonical))

    def result_index(self, result: Any) -> int:
        return self.results.index(result)

    def bet_pay(self) -> np.ndarray:
        """The roller's payoff [r, m] when bet on."""
        return np.where(self.truth, self.win, self.lose)

    @cached_property
    def equilibrium_truth(self) -> np.ndarray:
        """:meth:`truth_chance` of the equilibrium's claims (read per stage visit: kept)."""
        return self.truth_chance(self.sigma)

    def truth_chance(self, sigma: np.ndarray) -> np.ndarray:
        """P(message m is true | the roller sent it) under ``sigma``; where sigma never
        sends it, the chance that a roll makes it true."""
        weighted = self.chance[:, None] * sigma
        made = weighted.sum(axis=0)
        prior = (self.chance[:, None] * self.truth).sum(axis=0)
        return np.where(made > 1e-15, (weighted * self.truth).sum(axis=0) / np.maximum(made, 1e-300), prior)


def roller_guarantee(view: StageView, sigma: np.ndarray) -> float:
    """The roller's stage value with claims ``sigma[r, m]`` against an answerer who knows
    them and answers each message at its worst for him (later stages at V*)."""
    weighted = view.chance[:, None] * sigma
    on_bet = (weighted * view.bet_pay()).sum(axis=0)
    on_pass = weighted.sum(axis=0) * view.passed
    worst = np.where(view.must_bet, on_bet, np.where(view.can_bet, np.minimum(on_bet, on_pass), on_pass))
    return float(worst.sum())


def answerer_exposure(view: StageView, beta: np.ndarray) -> float:
    """The roller's stage value against answers ``beta[m]`` (the chance of a bet) when he
    knows them and claims with each result the message best for him (later stages at V*):
    the answerer's stage value is minus this."""
    b = np.where(view.must_bet, 1.0, np.where(view.can_bet, beta, 0.0))
    pays = b * view.bet_pay() + (1.0 - b) * view.passed  # [r, m]
    return float(view.chance @ pays.max(axis=1))


def reply_claims(view: StageView, bet_chance: np.ndarray) -> np.ndarray:
    """The best message for each result against an answerer betting with ``bet_chance[m]``."""
    b = np.where(view.must_bet, 1.0, np.where(view.can_bet, bet_chance, 0.0))
    return (b * view.bet_pay() + (1.0 - b) * view.passed).argmax(axis=1)


def reply_bets(view: StageView, true_chance: np.ndarray) -> np.ndarray:
    """Bet (1) or pass (0) on each message, the claim true with ``true_chance[m]``: a bet
    costs the roller's q win + (1 - q) lose, a pass his pass value."""
    on_bet = true_chance * view.win + (1.0 - true_chance) * view.lose
    return np.where(view.must_bet | (view.can_bet & (on_bet < view.passed)), 1.0, 0.0)


def largest_safe_weight(loss: Callable[[float], float], budget: float, cap: float = 1.0, steps: int = 30) -> float:
    """The largest w in [0, ``cap``] with ``loss(w) <= budget``, for a loss convex in w and
    0 at w = 0 (bisection)."""
    if budget <= 0 or cap <= 0:
        return 0.0
    if loss(cap) <= budget:
        return cap
    low, high = 0.0, cap
    for _ in range(steps):
        mid = (low + high) / 2
        low, high = (mid, high) if loss(mid) <= budget else (low, mid)
    return low


@dataclass
class BiddingOpponentModel:
    """One opponent's counts per cell (standing index, claim rank, stake class):
    ``bets[cell] = (observations, bets, sum of beta*)``, ``truths[cell] = (observations,
    true claims, sum of q*)`` and ``sent[cell]`` his claims (module docstring). Mutable."""

    n_claims: int
    bets: np.ndarray = field(init=False)
    truths: np.ndarray = field(init=False)
    observed: int = 0

    def __post_init__(self) -> None:
        self.bets = np.zeros((self.n_claims + 1, self.n_claims, len(STAKE_CLASSES), 3))
        self.truths = np.zeros((self.n_claims + 1, self.n_claims, len(STAKE_CLASSES), 3))
        self.sent = np.zeros((self.n_claims + 1, self.n_claims, len(STAKE_CLASSES)))

    def saw_message(self, standing: int, claim: Any, stake: int) -> None:
        """A claim he made (public, whether or not it is revealed)."""
        self.sent[standing, claim.rank, stake_class(stake)] += 1.0

    def saw_answer(self, standing: int, claim: Any, stake: int, bet: bool, equilibrium_bet: float) -> None:
        """An unforced answer to ``claim`` with ``stake`` made over standing index
        ``standing``; ``equilibrium_bet`` beta* there."""
        self.bets[standing, claim.rank, stake_class(stake)] += (1.0, float(bet), equilibrium_bet)
        self.observed += 1

    def saw_claim(self, standing: int, claim: Any, stake: int, true: bool, equilibrium_true: float) -> None:
        """A revealed claim; ``equilibrium_true`` q* there."""
        self.truths[standing, claim.rank, stake_class(stake)] += (1.0, float(true), equilibrium_true)
        self.observed += 1

    @staticmethod
    def _scaled(cells: np.ndarray, prior: np.ndarray) -> np.ndarray:
        """The equilibrium's chance ``prior`` scaled by the cells' observed over expected
        count: the chance itself when he does it less often than the equilibrium, its
        complement when more (so "never" gives 0 and "always" 1)."""
        n, hits, expected = cells[:, 0], cells[:, 1], cells[:, 2]
        w = PRIOR_WEIGHT
        less = prior * (hits + w) / (expected + w)
        more = 1.0 - (1.0 - prior) * (n - hits + w) / (n - expected + w)
        return np.clip(np.where(hits < expected, less, more), 0.0, 1.0)

    @staticmethod
    def _estimate(counts: np.ndarray, view: StageView, prior: np.ndarray) -> np.ndarray:
        """Each message's chance from its cell over this standing claim, shrunk with
        :data:`PRIOR_WEIGHT` towards its cell over every standing claim (:meth:`_scaled`)."""
        s = 0 if view.standing is None else view.standing.rank + 1
        claims, classes = [c.rank for c, _k in view.messages], [stake_class(k) for _c, k in view.messages]
        fine = counts[s, claims, classes]
        pooled = BiddingOpponentModel._scaled(counts.sum(axis=0)[claims, classes], prior)
        n = fine[:, 0]
        return (n * BiddingOpponentModel._scaled(fine, prior) + PRIOR_WEIGHT * pooled) / (n + PRIOR_WEIGHT)

    def bet_chance(self, view: StageView) -> np.ndarray:
        """P(he bets on each message of ``view``)."""
        return self._estimate(self.bets, view, view.beta)

    def true_chance(self, view: StageView) -> np.ndarray:
        """P(each message of ``view`` is true, were he to send it)."""
        return self._estimate(self.truths, view, view.equilibrium_truth)

    def message_chance(self, view: StageView) -> np.ndarray:
        """P(he sends each message of ``view``): the equilibrium's with :data:`PRIOR_WEIGHT`
        pseudo-observations plus his claims seen in each cell, spread evenly over the
        cell's messages."""
        s = 0 if view.standing is None else view.standing.rank + 1
        cells = [(c.rank, stake_class(k)) for c, k in view.messages]
        size: dict[tuple[int, int], int] = {}
        for cell in cells:
            size[cell] = size.get(cell, 0) + 1
        seen = np.array([self.sent[s, c, k] / size[(c, k)] for c, k in cells])
        mass = PRIOR_WEIGHT * (view.chance @ view.sigma) + seen
        return mass / mass.sum()


class ModelReply:
    """The best reply to a :class:`BiddingOpponentModel` over the rest of the round: his
    answers, claims and their truth as the model has them, every stage after this one
    played by the reply too (not priced at its equilibrium value). With my chips a and his
    b, R(s, a, b) is my value as the roller who must beat s and O(s, a, b) my value when
    he must:

    * R(s, a, b) = sum_r P(r) max_m [bet(m) pay(r, m) + (1 - bet(m)) (1 + O(c, a + 1, b - 1))],
    * O(s, a, b) = sum_m P(he sends m) max(bet: -(q(m) win + (1 - q(m)) lose), pass: -1 + R(c, a - 1, b + 1)),

    a pass of the top claim, or of the passer's last chip, ending the round at 1 chip
    (as :meth:`~kocka.solver.solvers.bluff.bidding.BiddingPlan.pass_value` prices it).
    ``view_of(standing, roller's chips, answerer's chips)`` gives the stages."""

    def __init__(self, model: BiddingOpponentModel, view_of: Callable[[Any, int, int], StageView], top: Any) -> None:
        self.model, self.view_of, self.top = model, view_of, top
        self._mine: dict[tuple, tuple[float, np.ndarray]] = {}
        self._theirs: dict[tuple, float] = {}

    def _after_my_claim(self, view: StageView) -> np.ndarray:
        """My value when he passes each message of my stage ``view`` (me: view.x)."""
        return np.array([1.0 if c == self.top or view.y == 1 else 1.0 + self.theirs(c, view.x + 1, view.y - 1)
                         for c, _k in view.messages])

    def mine(self, standing: Any, a: int, b: int) -> tuple[float, np.ndarray]:
        """R(standing, a, b) and my best message for each result."""
        key = (standing, a, b)
        if key not in self._mine:
            view = self.view_of(standing, a, b)
            bet = np.where(view.must_bet, 1.0, np.where(view.can_bet, self.model.bet_chance(view), 0.0))
            values = bet * view.bet_pay() + (1.0 - bet) * self._after_my_claim(view)
            best = values.argmax(axis=1)
            self._mine[key] = (float(view.chance @ values[np.arange(len(best)), best]), best)
        return self._mine[key]

    def answer_values(self, view: StageView) -> tuple[np.ndarray, np.ndarray]:
        """My value of a bet and of a pass on each message of his stage ``view`` (me: view.y)."""
        q = self.model.true_chance(view)
        on_bet = -(q * view.win + (1.0 - q) * view.lose)
        on_pass = np.array([-1.0 if c == self.top or view.y == 1 else -1.0 + self.mine(c, view.y - 1, view.x + 1)[0]
                            for c, _k in view.messages])
        return on_bet, on_pass

    def bets(self, view: StageView) -> np.ndarray:
        """Bet (1) or pass (0) on each message of his stage ``view``."""
        on_bet, on_pass = self.answer_values(view)
        return np.where(view.must_bet | (view.can_bet & (on_bet > on_pass)), 1.0, 0.0)

    def theirs(self, standing: Any, a: int, b: int) -> float:
        """O(standing, a, b)."""
        key = (standing, a, b)
        if key not in self._theirs:
            view = self.view_of(standing, b, a)
            on_bet, on_pass = self.answer_values(view)
            best = np.where(view.must_bet, on_bet, np.where(view.can_bet, np.maximum(on_bet, on_pass), on_pass))
            self._theirs[key] = float(self.model.message_chance(view) @ best)
        return self._theirs[key]


__all__ = [
    "BiddingOpponentModel", "PRIOR_WEIGHT", "STAKE_CLASSES", "StageView", "answerer_exposure", "largest_safe_weight",
    "reply_bets", "reply_claims", "roller_guarantee", "stake_class",
]  # fmt: skip
