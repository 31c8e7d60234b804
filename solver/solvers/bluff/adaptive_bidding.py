"""Opponent modelling, the best reply to a model and its safety bound in the two-player
bidding bluff (RULES.md BLUFF-11..BLUFF-16) and, on its stages
(:mod:`~kocka.solver.solvers.bluff.adaptive_liars`), liar's kockapóker: the solver side of
the betting games' ``adaptive`` agent (:mod:`kocka.agents.bots.adaptive_bluff`).

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
(standing claim, claim, stake class) his chance of a bet and of a true claim are a prior
scaled by the cell's observed over expected count, shrunk towards the same cell over every
standing claim (:meth:`BiddingOpponentModel._estimate`): for bets the equilibrium's chance,
for truth the equilibrium's shifted in log-odds by his **honesty**, one number fitted to
every reveal (:func:`shifted_truth`; a claim the equilibrium never makes has only the chance
that a roll makes it true, far from what a truthful player's claim is); the chance of each
claim is the equilibrium's plus what he was seen to claim. Unseen, he is the equilibrium.
With ``per_stake_class`` (liar's poker) honesty is fitted per stake class and the bet prior
is the equilibrium's shifted by his **aggression** per stake class, fitted alike
(:func:`map_shift`).

**The reply** (:class:`ModelReply`): the best reply to the model over the rest of the round,
or over the stages a given number of passes ahead with the plan's values beyond (one stage:
:func:`stage_claim_values`, :func:`stage_answer_values`, what the agent uses with the match
plan, whose values are chances to win). The stages come from a stage space
(:class:`BiddingStages`; liar's poker's in :mod:`~kocka.solver.solvers.bluff.adaptive_liars`,
whose re-throws are outside options of the roller: columns nobody bets on, allowed to the
types that hold the die kept, ``StageView.allowed``).

**The safety bound.** The agent moves the equilibrium's stage strategy towards the reply
(:func:`safe_claims`: per result, :func:`safe_bets`: per message) as far as a budget
allows. Whatever the opponent does, the stage then gives at least the strategy's guarantee
against a best responder with later stages at V* (:func:`roller_guarantee`,
:func:`answerer_exposure`); its shortfall to V* is the stage's loss. The deviations are
chosen on a bound of that loss, separable over results or messages, and the exact loss is
what the agent spends. A stage's expected result is its worst case plus what the opponent's
move gives beyond his best move (:func:`claim_gift`, :func:`bet_gift`), so a budget of
EPSILON per round plus those gifts (safe exploitation, "risk what you won in expectation")
keeps, telescoping over the stages of a round (each stage's payoff plus the next stage's
V*, minus its own V*), the expected total against any opponent at most EPSILON per round
below the sum of the V* of the rounds played.
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


HONESTY_SCALE = 2.0
"""The prior spread of a player's honesty: the shift of his claims' log-odds of being true
from the equilibrium's (2: a player true 88 % where the equilibrium is true half the time is
one spread away)."""
AGGRESSION_SCALE = 2.0
"""The prior spread of a player's aggression: the shift of his bets' log-odds from the
equilibrium's, one per stake class (a player who calls a stake-2 claim 27 % of the time
where the equilibrium calls it 5 % is one spread away)."""
TRUTH_CLIP = 0.02
"""The equilibrium truth chances are clipped to [0.02, 0.98] before the shift (a message
it never sends has only the chance that a roll makes it true)."""


def _logit(p: Any) -> Any:
    p = np.clip(p, TRUTH_CLIP, 1.0 - TRUTH_CLIP)
    return np.log(p / (1.0 - p))


def shifted_truth(q: Any, theta: float) -> Any:
    """Truth chances ``q`` shifted by ``theta`` in log-odds (clipped to TRUTH_CLIP first,
    the shift then added to q itself, so that theta = 0 leaves q exactly as it is)."""
    clipped = np.clip(q, TRUTH_CLIP, 1.0 - TRUTH_CLIP)
    return np.clip(q + 1.0 / (1.0 + np.exp(-(_logit(q) + theta))) - clipped, 0.0, 1.0)


def map_shift(prior: np.ndarray, seen: np.ndarray, group: np.ndarray, start: np.ndarray, scale: float) -> np.ndarray:
    """The maximum a posteriori log-odds shift per group (prior N(0, scale^2)) of events
    ``seen`` (1 or 0) whose chances are ``prior`` shifted by their group's shift: a few
    Newton steps from ``start`` (the last fit, so that one more event moves it little)."""
    a, shift = _logit(prior), np.array(start, dtype=float)
    for _ in range(8):
        p = 1.0 / (1.0 + np.exp(-(a + shift[group])))
        gradient = np.bincount(group, seen - p, len(shift)) - shift / scale**2
        curvature = np.bincount(group, p * (1.0 - p), len(shift)) + 1.0 / scale**2
        shift += gradient / curvature
    return shift


def stake_class(stake: int) -> int:
    return sum(stake >= low for low in STAKE_CLASSES) - 1


@dataclass(frozen=True)
class StageView:
    """One stage (``standing``, x, y) against a plan, as arrays. ``messages`` are the
    canonical (claim, stake) pairs (a stake above y, which the answerer cannot bet, stands
    as y + 1; on a forced top claim a stake above y stands as y); ``chance[r]`` the chance
    of result r, ``truth[r, m]`` whether message m is true for r; the roller's payoffs
    ``win[m]``, ``lose[m]`` (bet on, true / false) and ``passed[m]``; ``can_bet[m]``,
    ``must_bet[m]``; ``sigma[r, m]`` and ``beta[m]`` the equilibrium's; ``value`` V*;
    ``ranks[m]`` each message's claim rank and ``standing_rank`` the standing claim's (+ 1;
    0 for none), the model's cells."""

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
    ranks: tuple[int, ...] = field(default=())
    standing_rank: int = 0
    allowed: Any = None

    @cached_property
    def options(self) -> np.ndarray:
        """Which columns each type may choose [r, m]: every message, and a roller's outside
        options (a re-throw in liar's poker: columns that cannot be bet on, worth ``passed``)
        where his dice allow them."""
        return np.ones(self.truth.shape, dtype=bool) if self.allowed is None else self.allowed

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
            plan.value(standing, x, y), results, tuple(c.rank for c, _k in messages),
            0 if standing is None else standing.rank + 1,
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
    def stake_classes(self) -> np.ndarray:
        """Each message's stake class (the model's cells; read at every estimate: kept)."""
        return np.array([stake_class(k) for _c, k in self.messages], dtype=int)

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


def answered_bets(view: StageView, beta: np.ndarray) -> np.ndarray:
    """The chance of a bet on each message with the forced answers fixed: 1 where the
    answerer must bet (BLUFF-5), 0 where he cannot (the stake above his chips), ``beta``
    elsewhere."""
    return np.where(view.must_bet, 1.0, np.where(view.can_bet, beta, 0.0))


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
    b = answered_bets(view, beta)
    pays = b * view.bet_pay() + (1.0 - b) * view.passed  # [r, m]
    return float(view.chance @ np.where(view.options, pays, -np.inf).max(axis=1))


def stage_claim_values(view: StageView, bet_chance: np.ndarray, passed: np.ndarray | None = None) -> np.ndarray:
    """The roller's value [r, m] of each column with each type against an answerer betting
    with ``bet_chance[m]``, a pass (or an outside option) worth ``passed[m]`` to him (by
    default the plan's: later stages at their V*, the reply one stage deep)."""
    b = answered_bets(view, bet_chance)
    return b * view.bet_pay() + (1.0 - b) * (view.passed if passed is None else passed)


def stage_answer_values(view: StageView, true_chance: np.ndarray,
                        on_pass: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The answerer's value of a bet and of a pass on each message, the claim true with
    ``true_chance[m]``, a pass worth ``on_pass[m]`` to him (by default the plan's: later
    stages at their V*, the reply one stage deep)."""
    return -(true_chance * view.win + (1.0 - true_chance) * view.lose), (-view.passed if on_pass is None else on_pass)


def _answer_bounds(view: StageView) -> tuple[np.ndarray, np.ndarray]:
    """The roller's better and worse payoff [r, m] of the two answers (a bet, a pass), the
    answer fixed where the answerer has no choice."""
    pay = view.bet_pay()
    passed = np.broadcast_to(view.passed, pay.shape)
    both = view.can_bet & ~view.must_bet
    high = np.where(both, np.maximum(pay, passed), np.where(view.must_bet, pay, passed))
    low = np.where(both, np.minimum(pay, passed), np.where(view.must_bet, pay, passed))
    return high, low


def safe_claims(view: StageView, values: np.ndarray, budget: float, cap: Any = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The roller's safe deviation: for each result r the message ``best[r]`` worth most to
    me (``values[r, m]``, my value of message m with r against the model) and the weight
    ``t[r]`` <= ``cap`` (a number, or one per column: that of best[r]) with which it
    replaces the equilibrium's claims sigma*(. | r).

    The weights maximise the model's gain within ``budget`` of worst-case loss, the loss
    bounded per result: moving r's claims to best[r] changes each message's two answer
    values by linear amounts, and a best responder's worse answer of a sum is at least the
    sum of the worse answers (min is superadditive), so the stage's loss is at most the sum
    over results of t[r] P(r) (sigma*(. | r) . high(r, .) - low(r, best[r])) (the best
    and worst answer for the roller, :func:`_answer_bounds`): a fractional knapsack,
    filled by gain per unit of that bound. Free moves (bound <= 0) are always taken."""
    best = np.where(view.options, values, -np.inf).argmax(axis=1)
    rows = np.arange(len(best))
    high, low = _answer_bounds(view)
    gain = view.chance * (values[rows, best] - (view.sigma * values).sum(axis=1))
    cost = view.chance * ((view.sigma * high).sum(axis=1) - low[rows, best])
    caps = np.broadcast_to(np.asarray(cap, dtype=float), (len(view.messages),))[best]
    weights = np.where((gain > 1e-12) & (cost <= 0.0), caps, 0.0)
    left = budget
    paying = [r for r in np.argsort(-gain / np.maximum(cost, 1e-300)) if gain[r] > 1e-12 and cost[r] > 0.0]
    for r in paying:
        if left <= 0.0:
            break
        weights[r] = min(caps[r], left / cost[r])
        left -= weights[r] * cost[r]
    return weights, best


def deviated_claims(view: StageView, weights: np.ndarray, best: np.ndarray) -> np.ndarray:
    """sigma*[r, m] with weight ``weights[r]`` moved to ``best[r]``."""
    sigma = (1.0 - weights)[:, None] * view.sigma
    sigma[np.arange(len(best)), best] += weights
    return sigma


def safe_bets(view: StageView, on_bet: np.ndarray, on_pass: np.ndarray, sent: np.ndarray, budget: float,
              cap: Any = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The answerer's safe deviation: for each message my better answer ``reply[m]`` (1: a
    bet) and the weight ``t[m]`` <= ``cap`` (a number, or one per message) with which it replaces beta*(m) (``on_bet``, ``on_pass``: my values
    against the model; ``sent``: the chance he sends each message), the weights maximising
    the model's gain within ``budget`` of worst-case loss.

    The roller's best message for each result r is at most his equilibrium best M(r) plus
    the sum over messages of how far each deviated message rises above it, so the loss is
    at most sum_m sum_r P(r) max(0, pays*(r, m) + t(m) d(r, m) - M(r)), separable and
    convex piecewise linear in each t(m) (kinks where a message overtakes M(r)): each
    weight is the best of its kinks for a price on that bound, the price found by
    bisection so that the bound fits the budget."""
    free = view.can_bet & ~view.must_bet
    reply = np.where(on_bet > on_pass, 1.0, 0.0)
    direction = np.where(free, reply - view.beta, 0.0)
    gain = sent * direction * (on_bet - on_pass)
    b = answered_bets(view, view.beta)
    pay = view.bet_pay()
    pays = b * pay + (1.0 - b) * view.passed  # [r, m]
    best = np.where(view.options, pays, -np.inf).max(axis=1)  # M(r)
    gap = np.maximum(best[:, None] - pays, 0.0)
    slope = direction * (pay - view.passed)
    with np.errstate(divide="ignore", invalid="ignore"):
        kinks = np.where(slope > 1e-15, gap / slope, np.inf).T  # [m, r]
    caps = np.broadcast_to(np.asarray(cap, dtype=float), gain.shape)[:, None]
    candidates = np.concatenate([np.zeros((len(gain), 1)), np.minimum(kinks, caps), caps], axis=1)
    over = pays.T[:, None, :] + candidates[:, :, None] * slope.T[:, None, :] - best[None, None, :]
    over = np.where(view.options.T[:, None, :], over, 0.0)  # an option a type lacks never rises
    bound = (np.maximum(over, 0.0) * view.chance[None, None, :]).sum(axis=2)  # [m, candidate]
    worth = gain[:, None] * candidates

    def pick(price: float) -> tuple[np.ndarray, float]:
        chosen = (worth - price * bound).argmax(axis=1)
        rows = np.arange(len(gain))
        return candidates[rows, chosen], float(bound[rows, chosen].sum())

    weights, spent = pick(0.0)
    if spent > budget:
        low, high = 0.0, 1.0
        while pick(high)[1] > budget and high < 1e12:
            low, high = high, high * 4.0
        for _ in range(40):
            mid = (low + high) / 2
            low, high = (mid, high) if pick(mid)[1] > budget else (low, mid)
        weights, _spent = pick(high)
    return weights, reply


def deviated_bets(view: StageView, weights: np.ndarray, reply: np.ndarray) -> np.ndarray:
    """The chance of a bet on each message (forced answers included): beta*(m) with weight
    ``weights[m]`` moved to ``reply[m]``."""
    return answered_bets(view, (1.0 - weights) * view.beta + weights * reply)


def claim_gift(view: StageView, sigma: np.ndarray, m: int, bet: bool) -> float:
    """What the answerer's answer to my message ``m`` gave me beyond his best answer, my
    claims being ``sigma`` (in expectation over my dice given the message): >= 0."""
    if view.must_bet[m] or not view.can_bet[m]:
        return 0.0
    q = view.truth_chance(sigma)[m]
    on_bet = q * view.win[m] + (1.0 - q) * view.lose[m]
    return float((on_bet if bet else view.passed[m]) - min(on_bet, view.passed[m]))


def bet_gift(view: StageView, beta: np.ndarray, r: int, m: int) -> float:
    """What the roller's message ``m`` with result ``r`` (shown at the reveal) gave up
    against my answers ``beta`` (bet chances, forced answers included), compared with his
    best message for r: >= 0."""
    pays = beta * view.bet_pay()[r] + (1.0 - beta) * view.passed
    return float(pays[view.options[r]].max() - pays[m])


@dataclass
class BiddingOpponentModel:
    """One opponent's counts per cell (standing index, claim rank, stake class):
    ``bets[cell] = (observations, bets, sum of beta*)``, ``truths[cell] = (observations,
    true claims, sum of q*)`` and ``sent[cell]`` his claims (module docstring). Mutable.

    With ``per_stake_class`` (the liar's poker agent's model) both priors are fitted per
    stake class: the bet prior is the equilibrium's shifted in log-odds by his
    **aggression** in the class (:meth:`_fit_aggression`), the truth prior by his honesty in
    the class (:meth:`_fit_honesty`), where without it the bet prior is the equilibrium's
    itself and one honesty number covers every claim (docs/AGENTS.md, "Why the liar's poker
    model fits per stake class")."""

    n_claims: int
    per_stake_class: bool = False
    bets: np.ndarray = field(init=False)
    truths: np.ndarray = field(init=False)
    observed: int = 0

    def __post_init__(self) -> None:
        self.bets = np.zeros((self.n_claims + 1, self.n_claims, len(STAKE_CLASSES), 3))
        self.truths = np.zeros((self.n_claims + 1, self.n_claims, len(STAKE_CLASSES), 3))
        self._revealed: list[tuple[tuple[int, int, int], float, float]] = []
        self._answers: list[tuple[tuple[int, int, int], float, float]] = []
        self.honesty = np.zeros(len(STAKE_CLASSES) if self.per_stake_class else 1)
        self.aggression = np.zeros(len(STAKE_CLASSES))
        self.sent = np.zeros((self.n_claims + 1, self.n_claims, len(STAKE_CLASSES)))

    def saw_message(self, standing: int, claim: int, stake: int) -> None:
        """A claim (its rank) he made (public, whether or not it is revealed)."""
        self.sent[standing, claim, stake_class(stake)] += 1.0

    def saw_answer(self, standing: int, claim: int, stake: int, bet: bool, equilibrium_bet: float) -> None:
        """An unforced answer to the claim of rank ``claim`` with ``stake`` made over
        standing index ``standing``; ``equilibrium_bet`` beta* there."""
        cell = (standing, claim, stake_class(stake))
        self._answers.append((cell, equilibrium_bet, float(bet)))
        self.bets[cell][:2] += (1.0, float(bet))
        self.observed += 1
        if self.per_stake_class:
            self._fit_aggression()
        else:
            self.bets[cell][2] += equilibrium_bet

    def saw_claim(self, standing: int, claim: int, stake: int, true: bool, equilibrium_true: float) -> None:
        """A revealed claim; ``equilibrium_true`` q* there. His honesty (:attr:`honesty`) is
        refitted and every cell's expected count taken again under it."""
        cell = (standing, claim, stake_class(stake))
        self._revealed.append((cell, equilibrium_true, float(true)))
        self.truths[cell][:2] += (1.0, float(true))
        self.observed += 1
        self._fit_honesty()

    def _fit_honesty(self) -> None:
        """The maximum a posteriori honesty theta (prior N(0, HONESTY_SCALE^2)), one number
        or one per stake class: his claims true with logit q = logit q* + theta over every
        reveal (in the class); then each cell's expected true claims under it."""
        self.honesty = self._refit(self._revealed, self.truths, self.honesty, HONESTY_SCALE)

    def _fit_aggression(self) -> None:
        """The maximum a posteriori aggression per stake class (prior N(0,
        AGGRESSION_SCALE^2)): his bets with logit beta = logit beta* + alpha_k over every
        answer in class k; then each cell's expected bets under it."""
        self.aggression = self._refit(self._answers, self.bets, self.aggression, AGGRESSION_SCALE)

    def _refit(self, events: list, counts: np.ndarray, start: np.ndarray, scale: float) -> np.ndarray:
        """The shifts (:func:`map_shift`, from ``start``) of ``events`` (cell, equilibrium
        chance, seen), grouped by :meth:`_group`; the expected column of ``counts`` is taken
        again under them."""
        cells, prior, seen = (np.array(column) for column in zip(*events))
        group = self._group(cells[:, 2])
        shift = map_shift(prior, seen, group, start, scale)
        counts[..., 2] = 0.0
        np.add.at(counts[..., 2], tuple(cells.T), shifted_truth(prior, shift[group]))
        return shift

    def _group(self, classes: np.ndarray) -> np.ndarray:
        """The shift each stake class is fitted with: its own, or the one for all."""
        return classes if self.per_stake_class else np.zeros(len(classes), int)

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
        s = view.standing_rank
        claims, classes = [max(rank, 0) for rank in view.ranks], view.stake_classes
        fine = counts[s, claims, classes]
        pooled = BiddingOpponentModel._scaled(counts.sum(axis=0)[claims, classes], prior)
        n = fine[:, 0]
        return (n * BiddingOpponentModel._scaled(fine, prior) + PRIOR_WEIGHT * pooled) / (n + PRIOR_WEIGHT)

    def truths_seen(self, view: StageView) -> np.ndarray:
        """How many reveals of his claims each message's truth estimate rests on (its cell
        over every standing claim)."""
        claims, classes = [max(rank, 0) for rank in view.ranks], view.stake_classes
        seen = self.truths.sum(axis=0)[claims, classes, 0]
        return np.where(np.array(view.ranks) >= 0, seen, 0.0)

    def bet_chance(self, view: StageView) -> np.ndarray:
        """P(he bets on each message of ``view``)."""
        if not self.per_stake_class:
            return self._estimate(self.bets, view, view.beta)
        return self._estimate(self.bets, view, shifted_truth(view.beta, self.aggression[view.stake_classes]))

    def true_chance(self, view: StageView) -> np.ndarray:
        """P(each message of ``view`` is true, were he to send it)."""
        return self._estimate(self.truths, view, self.honest_truth(view))

    def honest_truth(self, view: StageView) -> np.ndarray:
        """The equilibrium's truth chances of ``view`` shifted by his honesty (the prior of
        each cell's estimate)."""
        return shifted_truth(view.equilibrium_truth, self.honesty[self._group(view.stake_classes)])

    def message_chance(self, view: StageView) -> np.ndarray:
        """P(he sends each message of ``view``): the equilibrium's with :data:`PRIOR_WEIGHT`
        pseudo-observations plus his claims seen in each cell, spread evenly over the
        cell's messages."""
        s = view.standing_rank
        cells = list(zip(view.ranks, view.stake_classes.tolist()))
        size: dict[tuple[int, int], int] = {}
        for cell in cells:
            size[cell] = size.get(cell, 0) + 1
        seen = np.array([self.sent[s, c, k] / size[(c, k)] if c >= 0 else 0.0 for c, k in cells])
        mass = PRIOR_WEIGHT * (view.chance @ view.sigma) + seen
        return mass / mass.sum()


class BiddingStages:
    """The bidding bluff's stages for :class:`ModelReply`: keyed (standing claim, the
    roller's chips, the answerer's); ``view_of(key)`` lays one out (the agent's cache)."""

    def __init__(self, view_of: Callable[[tuple], StageView], top: Any) -> None:
        self.view_of, self.top = view_of, top

    def view(self, key: tuple) -> StageView:
        return self.view_of(key)

    def passed(self, key: tuple, claim: Any) -> tuple | None:
        """The stage after a pass of ``claim``: the answerer rolls, 1 chip richer (BLUFF-14);
        None where the pass ends the round (the top claim, or the answerer's last chip)."""
        _standing, x, y = key
        return None if claim == self.top or y == 1 else (claim, y - 1, x + 1)

    def outside(self, key: tuple, message: tuple) -> tuple:
        raise KeyError("the bidding bluff has no outside options")


class ModelReply:
    """The best reply to a :class:`BiddingOpponentModel`: his answers, claims and their
    truth as the model has them, the stages ``depth`` passes ahead played by the reply too
    (None: the rest of the round), those beyond at the plan's values V*. For a stage key
    (of ``stages``: :class:`BiddingStages`, or liar's poker's), R(key) is my value as its
    roller and O(key) my value as its answerer:

    * R = sum_r P(r) max over the columns r may choose: a message m is worth
      bet(m) pay(r, m) + (1 - bet(m)) (1 + O(after the pass)), an outside option (a
      re-throw) R of the stage it leads to;
    * O = sum_m P(he sends m) (max(bet: -(q(m) win + (1 - q(m)) lose), pass: -1 + R(after
      the pass)), or the answer forced; an outside option: O of its stage),

    a pass that ends the round worth 1 chip (as
    :meth:`~kocka.solver.solvers.bluff.bidding.BiddingPlan.pass_value` prices it)."""

    def __init__(self, model: BiddingOpponentModel, stages: Any, depth: int | None = None) -> None:
        self.model, self.stages, self.depth = model, stages, depth
        self._mine: dict[tuple, tuple[float, np.ndarray]] = {}
        self._theirs: dict[tuple, float] = {}

    def _deeper(self, depth: int | None) -> int | None:
        return None if depth is None else depth - 1

    def claim_values(self, key: tuple, depth: int | None = -1) -> np.ndarray:
        """My value [r, m] of each column with each type in my stage ``key``."""
        depth = self.depth if depth == -1 else depth
        view = self.stages.view(key)
        if depth == 0:
            return stage_claim_values(view, self.model.bet_chance(view))
        after = np.empty(len(view.messages))  # an outside option nobody bets on: its "pass" is its stage
        for m, message in enumerate(view.messages):
            if view.ranks and view.ranks[m] < 0:
                after[m] = self.mine(self.stages.outside(key, message), depth)
            else:
                passed = self.stages.passed(key, message[0])
                after[m] = 1.0 if passed is None else 1.0 + self.theirs(passed, self._deeper(depth))
        return stage_claim_values(view, self.model.bet_chance(view), after)

    def mine(self, key: tuple, depth: int | None = -1) -> float:
        """R(key)."""
        depth = self.depth if depth == -1 else depth
        if (key, depth) not in self._mine:
            view = self.stages.view(key)
            values = np.where(view.options, self.claim_values(key, depth), -np.inf)
            self._mine[(key, depth)] = float(view.chance @ values.max(axis=1))
        return self._mine[(key, depth)]

    def answer_values(self, key: tuple, depth: int | None = -1) -> tuple[np.ndarray, np.ndarray]:
        """My value of a bet and of a pass on each message of his stage ``key`` (an outside
        option, which nobody bets on: O of its stage as its pass)."""
        depth = self.depth if depth == -1 else depth
        view = self.stages.view(key)
        q = self.model.true_chance(view)
        if depth == 0:
            return stage_answer_values(view, q)
        on_pass = np.empty(len(view.messages))
        for m, message in enumerate(view.messages):
            if view.ranks and view.ranks[m] < 0:
                on_pass[m] = self.theirs(self.stages.outside(key, message), depth)
            else:
                passed = self.stages.passed(key, message[0])
                on_pass[m] = -1.0 if passed is None else -1.0 + self.mine(passed, self._deeper(depth))
        return stage_answer_values(view, q, on_pass)

    def theirs(self, key: tuple, depth: int | None = -1) -> float:
        """O(key)."""
        depth = self.depth if depth == -1 else depth
        if (key, depth) not in self._theirs:
            view = self.stages.view(key)
            on_bet, on_pass = self.answer_values(key, depth)
            best = np.where(view.must_bet, on_bet, np.where(view.can_bet, np.maximum(on_bet, on_pass), on_pass))
            self._theirs[(key, depth)] = float(self.model.message_chance(view) @ best)
        return self._theirs[(key, depth)]


__all__ = [
    "AGGRESSION_SCALE", "BiddingOpponentModel", "BiddingStages", "ModelReply", "PRIOR_WEIGHT", "map_shift", "answered_bets", "STAKE_CLASSES", "StageView", "answerer_exposure", "bet_gift", "claim_gift",
    "deviated_bets", "deviated_claims", "roller_guarantee", "safe_bets", "safe_claims", "stage_answer_values",
    "shifted_truth", "stage_claim_values", "stake_class",
]  # fmt: skip
