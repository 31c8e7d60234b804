"""Bluff bots for Abázs, the bidding bluff and liar's dice poker (RULES.md BLUFF-1..BLUFF-21).

* ``bayes`` (:class:`BayesBot`) keeps a posterior over the claimant's hidden dice given the
  dice distribution, the standing claim, the public and shown dice and a model of each
  opponent's lying and calling, which it learns from the current match (:meth:`observe`).
* ``equilibrium`` (:class:`EquilibriumBot`, two-player Abázs) plays the exact match
  equilibrium of :mod:`kocka.solver.solvers.bluff.abazs` from its table (the round
  equilibrium that also prices who starts the next round), mixed strategies sampled with
  the agent's own generator; in the two-player bidding bluff and liar's poker
  (:class:`BettingEquilibriumBot`) the exact round equilibrium (or match plan) read by
  :mod:`kocka.solver.solvers.bluff.plans`.
* Baselines: ``truthful`` (:class:`TruthfulBot`: the truth when it may, else the smallest
  lie; believes every claim) and ``threshold`` (:class:`ThresholdBot`: claims alike,
  doubts every claim at or above a fixed claim). ``random`` is the agent catalogue's
  (:mod:`kocka.agents.bots.catalogue`), for every game.

**Claimant model** (what ``bayes`` believes about an opponent who claims). Given his
hidden dice x, let T(x) be the truthful claim (his result, BLUFF-7; his hand, BLUFF-19;
his hidden dice under ``liar.claim = dice``). If T(x) is allowed (it beats the claim it
had to beat, BLUFF-3) he claims it with probability 1 - lambda, else he lies: with
probability mu the smallest allowed lie, otherwise a lie drawn in proportion to the chance
that an honest roll would claim it (a plausible lie). If T(x) is not allowed he must lie
(the same lie distribution). Bayes' rule over x gives P(claim is true).

**What it learns** (Beta posteriors, per opponent, from this match only):

* lambda, per stake class (stake 1 / stake 2+; Abázs has no stakes): from every reveal
  (BLUFF-10, BLUFF-15) where the truth was allowed: did he lie?
* mu: from every revealed lie: was it the smallest allowed lie?
* call rate, per reach bucket and stake class: how often he challenges or bets on a claim
  whose *reach* (the chance that a fresh roll of the hidden dice makes a claim at least as
  high, from what he can see) falls in the bucket. Every unforced answer teaches it,
  whoever claimed. Priors: lambda 0.3, mu 0.5 (4 and 2 pseudo-observations), call rate
  1 - reach at the bucket's middle (2 pseudo-observations).

Reveals are selected (only challenged claims are shown), so lambda is learnt from a biased
sample; the prior keeps early estimates sane.

**Decisions.** In Abázs it best-responds to the model over the rest of the round
(two players): R(s), the value of rolling to beat s, is the expectation over its own
result of the best claim c > s, worth call(c) x (win if true, lose if false) +
(1 - call(c)) x O(c); O(s), the value when the opponent must beat s, is the expectation
over his modelled claims c of max(challenge: -(q win + (1 - q) lose), accept: R(c)), q =
P(c true). A challenge pays +-1 chip and settles who starts the next round (BLUFF-10),
which is worth D chips: (win, lose) = (1 - D/2, -1 - D/2) when the challenger starts,
(1 - D/2, -1 + D/2) when the loser does
(:func:`~kocka.solver.solvers.bluff.abazs.challenge_payoffs`), with D = R(no claim) -
O(no claim) solved as a fixed point once per round against the current model. With more
players an accepted claim is valued 0 and D = 0 (the round moves on without it).

In the betting games it maximises the chips of the betting round at hand (BLUFF-12..15):
an answer bets when (1 - q) x paid - q x k beats the pass's -1; a claim (with stake)
weighs taking the bank when everybody passes against the bets it draws, exactly over who
bets. It values the claims and stakes of the engine's ``legal_actions``: every stake up to
20 and the candidate stakes above (``candidate_stakes``: the largest, and where an
opponent's chips stop him betting). Its call rates depend on the stake only through the
stake class (1, or 2 and more), so between two candidates a claim's value is monotone in
the stake and its best stake is a candidate: no stake value is enumerated, whatever the
chips. In liar's poker a re-throw is valued by the best claim after it with stake 1, 2 or
the largest, averaged over the new die.

Hidden information: the bots read only what ``game.observation`` shows their seat (the
standing claim and the round's claim history, stakes, bets, chips, the public and shown
dice, reveals) and their own dice when they are the claimant. Every decision reads the
state alone (the claim the standing claim beat is ``state.previous``), so a state
document sent to the seat gets the answer the bot gives in a match; only what ``bayes``
has learnt from the match's events (``observe``) differs.

Rules come from the engine's public queries: ``claims_above`` (which claims may be made
over a claim), ``claim_true``, ``claim_strength``, ``hidden_dice``, ``shown_dice``,
``dice_claim_hand``, ``max_stake`` and ``must_bet``; nothing here re-derives a rule.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import product
from typing import Any, Iterator, Sequence

import numpy as np

from kocka.agents.bots.base import Agent, AgentUnavailable, Event, ranked
from kocka.agents.bots.catalogue import AgentOptions
from kocka.solver.solvers.bluff import abazs as bluff_abazs
from kocka.solver.solvers.bluff import plans as bluff_plans
from kocka.solver.solvers.bluff.two_player import EQUILIBRIUM_KIND, MATCH_KIND
from kocka.solver.base.dice import outcome_distribution, remove
from kocka.solver.base.errors import RulesError, TableError
from kocka.solver.base.decision import Decision
from kocka.solver.store.table_store import get_table
from kocka.solver.rules import CHANCE, Game
from kocka.solver.rules.bluff import (
    ANSWER, CLAIM, AbazsGame, Accept, Bet, BiddingBluffGame, BluffState, Challenge, Claim, DiceClaim,
    LiarsPokerGame, Pass, Reroll, actual_result, claim_rank, hand_of,
)

_FROM_STATE: Any = object()


# ----------------------------------------------------------------------------------------
# What anybody can compute about a claim from the public dice
# ----------------------------------------------------------------------------------------
def truthful_claim(game: Game, state: BluffState, hidden: Sequence[int], shown: Sequence[int] = ()) -> Any:
    """T(x): the claim an honest claimant makes with hidden dice ``hidden`` (BLUFF-7,
    BLUFF-19; ``liar.claim = dice``: the hidden dice themselves)."""
    if isinstance(game, LiarsPokerGame):
        if game.rules.claim == "dice":
            return DiceClaim(tuple(hidden))
        return hand_of(tuple(state.public) + tuple(shown) + tuple(hidden), game.rules)
    return actual_result(hidden, game.rules.ranking)


@dataclass(frozen=True)
class ClaimView:
    """A claimant's situation as the table sees it: the claims he may make over
    ``previous`` and the *types* of his hidden dice (grouped by truthful claim).

    ``claims[k]`` lowest first; ``type_probs[t]``; ``truthful[t]`` the index in ``claims``
    of type t's truthful claim, or -1 if it is not allowed; ``truth[t, k]``;
    ``honest[k]`` = P(T(x) = claims[k]) (the plausible-lie weight); ``reach[k]`` = P(a
    fresh roll's truthful claim ranks at or above claims[k]) and ``buckets[k]`` its call-rate
    bucket; ``smallest_lie[t]`` the lowest allowed claim other than the truth (-1: none).
    """

    claims: tuple
    type_claims: tuple
    type_probs: np.ndarray
    truthful: np.ndarray
    truth: np.ndarray
    honest: np.ndarray
    reach: np.ndarray
    smallest_lie: np.ndarray
    representatives: tuple
    buckets: np.ndarray

    @staticmethod
    def build(game: Game, state: BluffState, previous: Any, shown: Sequence[int] = ()) -> "ClaimView":
        shown, public = tuple(shown), tuple(state.public)
        claims = tuple(game.claims_above(previous, public, shown))
        types: dict[Any, list] = {}
        for hidden, p in outcome_distribution(2 - len(shown)):
            t = truthful_claim(game, state, hidden, shown)
            if t in types:
                types[t][0] += p
            else:
                types[t] = [p, hidden]
        type_claims = tuple(types)
        probs = np.array([types[t][0] for t in type_claims])
        reps = tuple(types[t][1] for t in type_claims)
        index = {c: k for k, c in enumerate(claims)}
        truthful = np.array([index.get(t, -1) for t in type_claims], dtype=np.int64)
        truth = np.array([[game.claim_true(c, rep, public, shown) for c in claims] for rep in reps], dtype=bool)
        truth = truth.reshape(len(reps), len(claims))
        honest = np.zeros(len(claims))
        for t, k in enumerate(truthful):
            if k >= 0:
                honest[k] += probs[t]
        type_strength = np.array([game.claim_strength(t, public, shown) for t in type_claims])
        claim_strengths = np.array([game.claim_strength(c, public, shown) for c in claims])
        reach = np.array([probs[type_strength >= s].sum() for s in claim_strengths])
        smallest = np.array([next((k for k in range(len(claims)) if k != tk), -1) for tk in truthful], dtype=np.int64)
        buckets = np.array([reach_bucket(r) for r in reach], dtype=np.int64)
        return ClaimView(claims, type_claims, probs, truthful, truth, honest, reach, smallest, reps, buckets)

    def claim_matrix(self, lie: float, smallest: float) -> np.ndarray:
        """P(claim k | type t) under the claimant model (module docstring)."""
        n_types, n_claims = self.truth.shape
        m = np.zeros((n_types, n_claims))
        for t in range(n_types):
            tk, lo = self.truthful[t], self.smallest_lie[t]
            if lo < 0:  # only the truth may be claimed
                m[t, tk] = 1.0
                continue
            lam = lie if tk >= 0 else 1.0
            if tk >= 0:
                m[t, tk] += 1.0 - lam
            plausible = self.honest.copy()
            if tk >= 0:
                plausible[tk] = 0.0
            total = plausible.sum()
            m[t, lo] += lam * (smallest if total > 0 else 1.0)
            if total > 0:
                m[t] += lam * (1.0 - smallest) * plausible / total
        return m

    def posterior_true(self, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(P(claim k is true | claim k), P(claim k is made))``; a claim the model never
        makes gets the chance a roll makes it true."""
        weighted = self.type_probs[:, None] * matrix
        made = weighted.sum(axis=0)
        true_mass = (weighted * self.truth).sum(axis=0)
        prior = (self.type_probs[:, None] * self.truth).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            q = np.where(made > 1e-15, true_mass / np.maximum(made, 1e-300), prior)
        return q, made


# ----------------------------------------------------------------------------------------
# Opponent model
# ----------------------------------------------------------------------------------------
REACH_EDGES = (0.1, 0.25, 0.5, 0.75)
"""Buckets of a claim's reach for the call rates."""


def reach_bucket(reach: float) -> int:
    return sum(reach >= e for e in REACH_EDGES)


def stake_class(stake: int) -> int:
    """0: stake 0 or 1 (Abázs, minimal stakes); 1: stake 2 or more."""
    return 1 if stake >= 2 else 0


LIE_PRIOR = (1.2, 2.8)
"""Beta(lies, truths): prior lie rate 0.3 worth 4 observations."""
SMALLEST_PRIOR = (1.0, 1.0)
"""Beta(smallest lies, other lies): prior 0.5 worth 2 observations."""
CALL_PRIOR_WEIGHT = 2.0
"""Pseudo-observations behind each call-rate prior (mean: 1 - reach at the bucket middle)."""


def _call_prior() -> np.ndarray:
    edges = (0.0, *REACH_EDGES, 1.0)
    means = np.array([min(0.95, max(0.05, 1.0 - (lo + hi) / 2)) for lo, hi in zip(edges, edges[1:])])
    one_class = np.stack([means, 1.0 - means], axis=1) * CALL_PRIOR_WEIGHT
    return np.stack([one_class, one_class])


@dataclass
class OpponentModel:
    """Beta counts of one opponent's lying and calling (mutable: the bot's memory of this
    match). ``lies[stake class] = (lies, truths)``; ``smallest = (smallest lies, other
    lies)``; ``calls[stake class, reach bucket] = (calls, trusts)``."""

    lies: np.ndarray = field(default_factory=lambda: np.array([LIE_PRIOR, LIE_PRIOR], dtype=float))
    smallest: np.ndarray = field(default_factory=lambda: np.array(SMALLEST_PRIOR, dtype=float))
    calls: np.ndarray = field(default_factory=_call_prior)

    def lie_rate(self, stake: int) -> float:
        a, b = self.lies[stake_class(stake)]
        return float(a / (a + b))

    def smallest_rate(self) -> float:
        a, b = self.smallest
        return float(a / (a + b))

    def call_rates(self, stake: int) -> np.ndarray:
        """P(he calls) for each reach bucket."""
        counts = self.calls[stake_class(stake)]
        return counts[:, 0] / counts.sum(axis=1)

    def call_rate(self, reach: float, stake: int) -> float:
        return float(self.call_rates(stake)[reach_bucket(reach)])


# ----------------------------------------------------------------------------------------
# Memory of the match: who claimed what, and the reveals (what the bots learn from)
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClaimRecord:
    """A claim as the table saw it: who, what, with which stake, over which claim, with
    which public and shown dice."""

    claimant: int
    claim: Any
    stake: int
    previous: Any
    public: tuple[int, ...]
    shown: tuple[int, ...]


class RoundMemory:
    """Follows match events: the latest claim (with the claim it beat), answers and
    reveals. Calls ``on_answer(record, responder, called)`` for unforced answers and
    ``on_reveal(record, dice)`` when a claimant shows his dice. Decisions never need it:
    the state's ``history`` holds the round's claims (the claim the standing one beat is
    ``state.previous``), so a state alone (the seat) gets the same answer as a match."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.last_state: BluffState | None = None
        self.last_claim: ClaimRecord | None = None

    def follow(self, event: Event, on_answer: Any = None, on_reveal: Any = None) -> None:
        before, after = self.last_state, event.state
        self.last_state = after
        if before is None or event.player == CHANCE or event.player < 0:
            return
        action = event.action
        if isinstance(action, Claim):
            self.last_claim = ClaimRecord(
                before.active, action.claim, action.stake, before.standing, tuple(before.public), self.game.shown_dice(before)
            )
            return
        rec = self.last_claim
        if rec is None or not isinstance(action, (Accept, Challenge, Pass, Bet)):
            return
        forced = len(self.game.legal_actions(before)) == 1
        if on_answer is not None and not forced:
            on_answer(rec, event.player, isinstance(action, (Challenge, Bet)))
        revealed = isinstance(action, Challenge) or (
            isinstance(action, (Bet, Pass)) and (before.bets or isinstance(action, Bet)) and after.phase != ANSWER
        )
        if revealed and after.revealed is not None and on_reveal is not None:
            on_reveal(rec, after.revealed[1])


# ----------------------------------------------------------------------------------------
# Shared plumbing
# ----------------------------------------------------------------------------------------
@contextmanager
def _equilibrium_table_needed(name: str) -> Iterator[None]:
    """Around loading an equilibrium bot's table: rules the solver refuses and a table not
    built become :class:`AgentUnavailable` with the solver's message, naming agent ``name``
    (``equilibrium``, or ``adaptive``, which plays on it). Both equilibrium bots (Abázs;
    the bidding bluff and liar's poker) load a table the same way and must say the same
    thing when they cannot."""
    try:
        yield
    except RulesError as exc:
        raise AgentUnavailable(f"agent '{name}' cannot play these rules: {exc}") from None
    except TableError as exc:
        raise AgentUnavailable(f"agent '{name}' needs its table: {exc}") from None


class _BluffAgent(Agent):
    """Checks the game; decisions read the state alone (its claim history included)."""

    def __init__(self, game: Game, seed: int = 0) -> None:
        if not isinstance(game, (AbazsGame, BiddingBluffGame, LiarsPokerGame)):
            raise AgentUnavailable(f"{type(self).__name__} plays the bluff games, not {game.NAME!r}")
        super().__init__(game, seed)
        self._views: dict[tuple, ClaimView] = {}

    def view(self, state: BluffState, previous: Any, shown: Sequence[int] = ()) -> ClaimView:
        key = (tuple(state.public), tuple(shown), previous)
        if key not in self._views:
            self._views[key] = ClaimView.build(self.game, state, previous, shown)
        return self._views[key]

    def rank(self, state: Any) -> list[Decision]:
        self.require_decision(state)
        return self.rank_with(state, state.previous)

    def rank_with(self, state: BluffState, previous: Any) -> list[Decision]:
        """:meth:`rank` with the claim the standing claim beat given explicitly (``rank``
        reads it from the state's claim history, ``state.previous``)."""
        raise NotImplementedError


# ----------------------------------------------------------------------------------------
# Baselines
# ----------------------------------------------------------------------------------------
class TruthfulBot(_BluffAgent):
    """Claims the truth when it is allowed, else the smallest allowed lie, stake 1; never
    re-throws; believes every claim (challenges or bets only when BLUFF-5 forces it)."""

    name = "truthful"
    description = "bluff games: claims the truth (else the smallest lie), believes every claim"
    value_name = "rule choice (1 = chosen)"

    def rank_with(self, state: BluffState, previous: Any) -> list[Decision]:
        actions = self.decision_actions(state)
        choice = self._claim(state, actions) if state.phase == CLAIM else self._answer(state, actions, previous)
        return ranked([Decision(a, 1.0 if a == choice else 0.0, self.game.describe_action(a, state)) for a in actions])

    def _claim(self, state: BluffState, actions: list) -> Any:
        claims = [a for a in actions if isinstance(a, Claim)]
        low = min(a.stake for a in claims)
        claims = [a for a in claims if a.stake == low]
        shown = self.game.shown_dice(state)
        truth = truthful_claim(self.game, state, self.game.hidden_dice(state), shown)
        for a in claims:
            if a.claim == truth:
                return a
        return min(claims, key=lambda a: self.game.claim_strength(a.claim, state.public, shown))

    def _answer(self, state: BluffState, actions: list, previous: Any) -> Any:
        trust = [a for a in actions if isinstance(a, (Accept, Pass))]
        return trust[0] if trust else actions[0]


class ThresholdBot(TruthfulBot):
    """Claims like ``truthful``; challenges (or bets on) every claim at or above a fixed
    threshold claim: the lowest claim that a fresh roll of all the dice (two dice, or all
    five in liar's poker, public dice ignored) reaches with probability below
    :attr:`REACH_BELOW`."""

    name = "threshold"
    description = "bluff games: claims like 'truthful', challenges every claim at or above a fixed claim"
    REACH_BELOW = 0.5

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.threshold = self._threshold()

    def _threshold(self) -> int:
        if isinstance(self.game, LiarsPokerGame):
            outcomes = [(hand_of(d, self.game.rules), p) for d, p in outcome_distribution(5)]
            strengths = [(claim_rank(h, self.game.rules), p) for h, p in outcomes]
        else:
            strengths = [(actual_result(d, self.game.rules.ranking).rank, p) for d, p in outcome_distribution(2)]
        for s in sorted({s for s, _ in strengths}):
            if sum(p for t, p in strengths if t >= s) < self.REACH_BELOW:
                return s
        return max(s for s, _ in strengths) + 1

    def _answer(self, state: BluffState, actions: list, previous: Any) -> Any:
        doubt = [a for a in actions if isinstance(a, (Challenge, Bet))]
        trust = [a for a in actions if isinstance(a, (Accept, Pass))]
        if not doubt or not trust:
            return actions[0]
        # a dice claim stands as the hand it names, so the standing claim always ranks
        return doubt[0] if self.game.claim_strength(state.standing, state.public) >= self.threshold else trust[0]


# ----------------------------------------------------------------------------------------
# The Bayesian bot
# ----------------------------------------------------------------------------------------
class BayesBot(_BluffAgent):
    """The bluff-probability bot (module docstring). ``rank`` values are expected chips;
    each decision's ``detail`` shows P(claim is true) (answers) or whether the claim is
    true and P(it is called) (claims), and the model rates used."""

    name = "bayes"
    description = "bluff games: Bayesian posterior over the claimant's dice, learns lie and call rates"
    value_name = "expected chips"
    has_memory = True  # what it learns from this match's events (observe)

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.memory = RoundMemory(game)
        self.models: dict[int, OpponentModel] = {}
        self._matrix_cache: dict[tuple, np.ndarray] = {}
        self._start_values: dict[tuple[int, int], float] = {}
        self._last_start: dict[int, float] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.memory = RoundMemory(self.game)
        self.models = {}
        self._matrix_cache = {}
        self._start_values = {}
        self._last_start = {}

    def model(self, player: int) -> OpponentModel:
        if player not in self.models:
            self.models[player] = OpponentModel()
        return self.models[player]

    # ----- learning -----
    def observe(self, event: Event) -> None:
        self.memory.follow(event, self._learn_answer, self._learn_reveal)

    def _learn_answer(self, rec: ClaimRecord, responder: int, called: bool) -> None:
        state = self.memory.last_state
        view = self.view(replace(state, public=rec.public), rec.previous, rec.shown)
        if rec.claim not in view.claims:
            return
        reach = float(view.reach[view.claims.index(rec.claim)])
        self.model(responder).calls[stake_class(rec.stake), reach_bucket(reach), 0 if called else 1] += 1.0

    def _learn_reveal(self, rec: ClaimRecord, dice: Sequence[int]) -> None:
        state = self.memory.last_state
        hidden = remove(tuple(dice), rec.shown) if rec.shown else tuple(dice)
        view = self.view(replace(state, public=rec.public), rec.previous, rec.shown)
        truth = truthful_claim(self.game, replace(state, public=rec.public), hidden, rec.shown)
        true = self.game.claim_true(rec.claim, hidden, rec.public, rec.shown)
        model = self.model(rec.claimant)
        if truth in view.claims:  # he could have told the truth
            model.lies[stake_class(rec.stake), 0 if not true else 1] += 1.0
        if not true and rec.claim in view.claims:
            k = view.claims.index(rec.claim)
            t = view.type_claims.index(truth)
            model.smallest[0 if view.smallest_lie[t] == k else 1] += 1.0
        self._matrix_cache = {}

    # ----- the claimant model -----
    def claim_model(self, player: int, view: ClaimView, stake: int) -> tuple[np.ndarray, np.ndarray]:
        """P(claim | type) for ``player`` claiming with ``stake``, and P(claim is true |
        claim) (cached while his lie rates stay the same)."""
        m = self.model(player)
        lie, smallest = m.lie_rate(stake), m.smallest_rate()
        key = (id(view), lie, smallest)
        if key not in self._matrix_cache:
            matrix = view.claim_matrix(lie, smallest)
            self._matrix_cache[key] = (matrix, view.posterior_true(matrix)[0])
        return self._matrix_cache[key]

    def p_true(self, state: BluffState, previous: Any) -> float:
        """P(the standing claim is true), from this seat's view."""
        shown = self.game.shown_dice(state)
        view = self.view(state, previous, shown)
        claim = self.game.claim_as_made(state)
        if claim not in view.claims:  # not allowed over the assumed previous claim: assume none
            view = self.view(state, None, shown)
        _, q = self.claim_model(state.active, view, state.stake)
        return float(q[view.claims.index(claim)])

    def rank_with(self, state: BluffState, previous: Any) -> list[Decision]:
        actions = self.decision_actions(state)
        if isinstance(self.game, AbazsGame):
            decisions = self._rank_abazs(state, actions, previous)
        elif state.phase == ANSWER:
            decisions = self._rank_betting_answer(state, actions, previous)
        else:
            decisions = self._rank_betting_claim(state, actions)
        return ranked(decisions)

    # ----- Abázs: best response to the model over the round -----
    def _next_seat(self, state: BluffState, player: int) -> int:
        order = state.order
        return order[(order.index(player) + 1) % len(order)]

    def _two_player(self) -> bool:
        return self.game.num_players == 2 and self.game.rules.escalation == "strict"

    def _abazs_values(self, state: BluffState, opponent: int, start_value: float) -> tuple[dict, dict, dict, tuple]:
        """R(s) and O(s) (module docstring) against ``opponent`` when starting the next
        round is worth ``start_value``, the call rates, keyed by standing claim (None: no
        claim), and the claimant's (win, lose) payoffs of a challenge."""
        claims = self.game.claims()
        top = claims[-1]
        two = self._two_player()
        payoffs = bluff_abazs.challenge_payoffs(self.game.rules, Fraction(start_value).limit_denominator(10**9))
        win, lose = (float(v) for v in payoffs)
        rates = self.model(opponent).call_rates(0)
        R: dict[Any, float] = {}
        O: dict[Any, float] = {}
        calls: dict[Any, np.ndarray] = {}
        for standing in [*reversed(claims[:-1]), None]:
            view = self.view(state, standing)
            call = rates[view.buckets]
            if view.claims[-1] == top:
                call[-1] = 1.0  # BLUFF-5
            calls[standing] = call
            if two:  # the opponent must beat ``standing``; I answer each of his claims at best
                matrix, q = self.claim_model(opponent, view, 0)
                challenge = -(q * win + (1 - q) * lose)
                accept = np.array([R[c] if c != top else -np.inf for c in view.claims])
                O[standing] = float((view.type_probs @ matrix) @ np.maximum(challenge, accept))
            else:
                O[standing] = 0.0
            accepted = np.array([0.0 if c == top or not two else O[c] for c in view.claims])
            payoff = call * np.where(view.truth, win, lose) + (1.0 - call) * accepted
            R[standing] = float(view.type_probs @ payoff.max(axis=1))
        return R, O, calls, (win, lose)

    def start_value(self, state: BluffState, opponent: int) -> float:
        """D, what starting the next round is worth against ``opponent`` (two players;
        0 otherwise): the fixed point D = R_D(no claim) - O_D(no claim), by secant steps
        from the last value found (the difference decreases in D)."""
        if not self._two_player():
            return 0.0
        key = (opponent, state.rounds)
        if key in self._start_values:  # once per round: the model moves slowly
            return self._start_values[key]

        def excess(d: float) -> float:
            R, O, _, _ = self._abazs_values(state, opponent, d)
            return R[None] - O[None] - d

        d0 = self._last_start.get(opponent, 0.7)
        d1 = d0 + excess(d0)
        f0, f1 = excess(d0), excess(d1)
        for _ in range(20):
            if abs(f1) < 1e-6 or f1 == f0:
                break
            d0, d1, f0 = d1, d1 - f1 * (d1 - d0) / (f1 - f0), f1
            f1 = excess(d1)
        self._start_values[key] = self._last_start[opponent] = d1
        return d1

    def _rank_abazs(self, state: BluffState, actions: list, previous: Any) -> list[Decision]:
        me = self.game.current_player(state)
        opponent = self._next_seat(state, me)  # he answers my claim, or I claim to him after accepting
        d = self.start_value(state, opponent)
        R, O, calls, (win, lose) = self._abazs_values(state, opponent, d)
        if state.phase == CLAIM:
            view = self.view(state, state.standing)
            t = view.type_claims.index(truthful_claim(self.game, state, state.dice))
            decisions = []
            for a in actions:
                k = view.claims.index(a.claim)
                call = float(calls[state.standing][k])
                accepted = O.get(a.claim, 0.0) if self._two_player() and a.claim != view.claims[-1] else 0.0
                true = bool(view.truth[t, k])
                value = call * (win if true else lose) + (1.0 - call) * accepted
                decisions.append(Decision(a, value, self.game.describe_action(a, state), {
                    "true": true, "P(challenged)": call, "value if accepted": accepted, "start value": d,
                }))
            return decisions
        q = self.p_true(state, previous)
        model = self.model(state.active)
        detail = {
            "P(claim true)": q, "lie rate": model.lie_rate(0), "smallest-lie rate": model.smallest_rate(), "start value": d,
        }
        decisions = []
        for a in actions:
            value = -(q * win + (1 - q) * lose) if isinstance(a, Challenge) else R[state.standing]
            decisions.append(Decision(a, value, self.game.describe_action(a, state), detail))
        return decisions

    # ----- betting games: the chips of this betting round -----
    def _rank_betting_answer(self, state: BluffState, actions: list, previous: Any) -> list[Decision]:
        me = self.game.current_player(state)
        q = self.p_true(state, previous)
        amount = min(state.stake, state.chips[me])
        owed_before = sum(b for _, b in state.bets)
        paid_if_false = min(amount, max(0, state.chips[state.active] - owed_before))
        model = self.model(state.active)
        detail = {"P(claim true)": q, "lie rate": model.lie_rate(state.stake), "smallest-lie rate": model.smallest_rate()}
        decisions = []
        for a in actions:
            value = (1.0 - q) * paid_if_false - q * amount if isinstance(a, Bet) else -1.0
            decisions.append(Decision(a, value, self.game.describe_action(a, state), detail))
        return decisions

    def _claim_value(
        self, state: BluffState, view: ClaimView, k: int, stake: int, true: bool, shown: Sequence[int] = ()
    ) -> tuple[float, dict]:
        """Expected chips of claiming ``view.claims[k]`` with ``stake`` (BLUFF-13..15),
        exactly over which answerers bet (each independently, at his modelled call rate)."""
        me = state.active
        n = self.game.num_players
        answerers = [state.order[(state.order.index(me) + i) % n] for i in range(1, n)]
        claim = view.claims[k]
        standing = self.game.dice_claim_hand(claim, state.public, shown) if isinstance(claim, DiceClaim) else claim
        forced_first = self.game.must_bet(replace(state, phase=ANSWER, standing=standing, stake=stake, bets=(), answered=0))
        bet_p, amounts = [], []
        for i, j in enumerate(answerers):
            if i == 0 and forced_first:
                bet_p.append(1.0)
                amounts.append(min(stake, state.chips[j]))
            elif state.chips[j] < stake or state.chips[j] < 1:
                bet_p.append(0.0)  # BLUFF-13: cannot bet
                amounts.append(0)
            else:
                bet_p.append(self.model(j).call_rate(float(view.reach[k]), stake))
                amounts.append(stake)
        everybody_passes = state.bank + (n - 1)
        value = 0.0
        for pattern in product((False, True), repeat=len(answerers)):
            p = math.prod(b if bet else 1.0 - b for b, bet in zip(bet_p, pattern))
            if p == 0.0:
                continue
            if not any(pattern):
                value += p * everybody_passes
                continue
            if true:
                value += p * sum(a for a, bet in zip(amounts, pattern) if bet)
            else:
                owed = sum(a for a, bet in zip(amounts, pattern) if bet)
                value -= p * min(owed, state.chips[me])
        p_pass = math.prod(1.0 - b for b in bet_p)
        return value, {"true": true, "P(bet)": 1.0 - p_pass, "P(everybody passes)": p_pass,
                       "expected bettors": float(sum(bet_p))}

    def _rank_betting_claim(self, state: BluffState, actions: list) -> list[Decision]:
        shown = self.game.shown_dice(state)
        view = self.view(state, state.standing, shown)
        hidden = self.game.hidden_dice(state)
        index = {c: k for k, c in enumerate(view.claims)}
        truth: dict[Any, bool] = {}
        decisions = []
        for a in actions:  # the engine's candidate stakes: bounded whatever the chips
            if isinstance(a, Reroll):
                value, detail = self._reroll_value(state, a)
            else:
                if a.claim not in truth:
                    truth[a.claim] = self.game.claim_true(a.claim, hidden, state.public, shown)
                value, detail = self._claim_value(state, view, index[a.claim], a.stake, truth[a.claim], shown)
            decisions.append(Decision(a, value, self.game.describe_action(a, state), detail))
        return decisions

    def _reroll_value(self, state: BluffState, action: Reroll) -> tuple[float, dict]:
        """The best claim after the re-throw, averaged over the new dice (BLUFF-18)."""
        shown = () if action.keep_shown is None else (action.keep_shown,)
        view = self.view(state, state.standing, shown)
        stakes = sorted({1, min(2, self.game.max_stake(state)), self.game.max_stake(state)})
        total = 0.0
        for new, p in outcome_distribution(2 - len(shown)):
            best = -math.inf
            for k, claim in enumerate(view.claims):
                true = self.game.claim_true(claim, new, state.public, shown)
                for stake in stakes:
                    best = max(best, self._claim_value(state, view, k, stake, true, shown)[0])
            total += p * best
        return total, {"re-throw": True}


# ----------------------------------------------------------------------------------------
# Equilibrium (two-player Abázs)
# ----------------------------------------------------------------------------------------
class EquilibriumBot(_BluffAgent):
    """Plays the exact round equilibrium of two-player Abázs (its table: ``kocka-solve
    build abazs [-r ranking=pro]``), sampling mixed strategies with its own generator.
    ``rank`` values are expected chips against the equilibrium opponent; ``detail`` gives
    each action's equilibrium probability and, for answers, P(claim is true)."""

    name = "equilibrium"
    description = "two-player Abázs: the exact round equilibrium (table), mixed strategies"
    value_name = "expected chips vs equilibrium"

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> None:
        super().__init__(game, seed)
        with _equilibrium_table_needed(self.name):
            canonical = bluff_abazs.canonical_abazs_game(game)
            self.table = get_table(canonical, EQUILIBRIUM_KIND, options.cache_dir, build_missing=options.build_missing)
        self._policy = bluff_abazs.table_policy(self.table, game.rules.ranking)

    def rank_with(self, state: BluffState, previous: Any) -> list[Decision]:
        self.decision_actions(state)
        return bluff_abazs.rank_abazs(self.game, self.table, state, previous)

    def choose(self, state: Any) -> Any:
        self.require_decision(state)
        probabilities = self._policy(state, state.previous)
        actions, weights = zip(*probabilities.items())
        return self.rng.choices(actions, weights=weights)[0]


class BettingEquilibriumBot(_BluffAgent):
    """Plays the exact two-player round equilibrium of the bidding bluff or liar's poker
    (:mod:`kocka.solver.solvers.bluff.plans`; its table: ``kocka-solve build bidding-bluff`` or
    ``liars-poker``), sampling the mixed strategies with its own generator. In a whole
    match (no round limit) it plays the match plan instead when its table is built
    (``kocka-solve build bidding-bluff --kind match``, ``... liars-poker --kind match``),
    which maximises the chance to win the match. ``rank`` values are the chips from here to the end of the round (or the
    chance to win the match) against the equilibrium opponent; ``detail`` gives each
    action's equilibrium probability, for a claim whether it is true and P(it is bet on),
    for an answer P(the claim is true)."""

    name = "equilibrium"
    description = "two players: the exact round equilibrium (table), mixed strategies"
    value_name = "expected chips this round vs equilibrium"

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions()) -> None:
        super().__init__(game, seed)
        with _equilibrium_table_needed(self.name):
            canonical = bluff_plans.canonical_betting_game(game)
            table = self._match_table(game, options)
            if table is None:
                table = get_table(canonical, EQUILIBRIUM_KIND, options.cache_dir, build_missing=options.build_missing)
        self.plan = bluff_plans.plan_for(canonical, table)
        self.value_name = self.plan.value_name
        start = game.rules.start_chips
        if not self.plan.covers(start, start):
            # a table built for these starting chips (liar's poker) could be built; the
            # bidding bluff's round table holds every count up to its limit, whatever the start
            remedy = (f"build it with -r start_chips={start}" if canonical.rules.start_chips == start
                      else f"play from at most {self.plan.max_total // 2} chips each")
            raise AgentUnavailable(
                f"agent '{self.name}': its table does not hold a match from {start} chips each "
                f"(it holds chips adding up to {self.plan.max_total}); {remedy}"
            )
        self._policy = self.plan.policy()

    @staticmethod
    def _match_table(game: Game, options: AgentOptions) -> Any:
        """The match plan, where the game is a whole match (no round limit) and its table
        is built: it maximises the chance to win the match (BLUFF-6), as the Abázs agent's
        match plan does; None otherwise (the round plan plays)."""
        if game.rules.max_rounds is not None:
            return None
        try:
            return get_table(bluff_plans.canonical_match_game(game), MATCH_KIND, options.cache_dir)
        except TableError:
            return None

    def rank_with(self, state: BluffState, previous: Any) -> list[Decision]:
        self.decision_actions(state)
        try:
            return bluff_plans.rank_betting(self.game, self.plan, state)
        except RulesError as exc:
            raise AgentUnavailable(f"agent '{self.name}': {exc}") from None

    def choose(self, state: Any) -> Any:
        self.require_decision(state)
        try:
            probabilities = self._policy(state)
        except RulesError as exc:
            raise AgentUnavailable(f"agent '{self.name}': {exc}") from None
        actions, weights = zip(*probabilities.items())
        return self.rng.choices(actions, weights=weights)[0]


# ----------------------------------------------------------------------------------------
# Round policies (for the exploitability of any bot) and factories
# ----------------------------------------------------------------------------------------
def round_policy(agent: _BluffAgent) -> Any:
    """The agent's (deterministic) choice as a policy of the solver's walks, its memory
    left untouched (the bot as it plays a match's first round): its best-ranked action
    other than a re-throw. Called as ``policy(state, previous)`` it is a
    :data:`~kocka.solver.solvers.bluff.abazs.RoundPolicy` (Abázs); as ``policy(state)``,
    reading ``previous`` from the state's history, a
    :data:`~kocka.solver.solvers.bluff.best_response.TurnPolicy`."""

    def policy(state: BluffState, previous: Any = _FROM_STATE) -> dict:
        if previous is _FROM_STATE:
            agent.require_decision(state)
            previous = state.previous
        return {next(d.action for d in agent.rank_with(state, previous) if not isinstance(d.action, Reroll)): 1}

    return policy


def bayes_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return BayesBot(game, seed)


def truthful_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return TruthfulBot(game, seed)


def threshold_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    return ThresholdBot(game, seed)


def equilibrium_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    if isinstance(game, AbazsGame):
        return EquilibriumBot(game, seed, options)
    return BettingEquilibriumBot(game, seed, options)


__all__ = [
    "BayesBot", "BettingEquilibriumBot", "ClaimRecord", "ClaimView", "EquilibriumBot", "OpponentModel", "RoundMemory", "ThresholdBot", "TruthfulBot",
    "round_policy", "truthful_claim",
]  # fmt: skip
