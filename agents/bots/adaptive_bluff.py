"""``adaptive`` for two-player Abázs (RULES.md BLUFF-3..BLUFF-10, issue 27) and the
two-player bidding bluff (BLUFF-11..BLUFF-16): learns the opponent's frequencies per public
situation from what the table shows and plays a best reply to them, losing at most
:data:`EPSILON` chips per round to the equilibrium's guarantee.

Abázs (:class:`AdaptiveAbazsBot`):

* **Model**: :class:`~kocka.solver.solvers.bluff.adaptive.AbazsOpponentModel`, Dirichlet
  counts per information set of the opponent, the prior centred on the match equilibrium.
  Every unforced answer of his updates it; his claim only when a challenge shows his dice
  (BLUFF-10): nothing hidden is read.
* **Reply**: at the start of each round, when the opponent has been seen 25 % more since the last plan, the best
  reply to the posterior mean (:func:`~kocka.solver.solvers.bluff.adaptive.best_reply`), its
  worst-case loss L (exact walk) and the weight w = min(n / (n + 40), EPSILON / L); the round
  is then played by the best reply with probability w, else by the equilibrium.
* **Safety**: a round's result is linear in that draw, so against any opponent the round
  loses at most w L <= EPSILON to the equilibrium's guarantee (the start value of the next
  round counted, as the match plan counts it).

The bidding bluff (:class:`AdaptiveBiddingBot`, the solver side in
:mod:`kocka.solver.solvers.bluff.adaptive_bidding`):

* **Model**: the opponent's bets (seen at every unforced answer), the truth of his claims
  (seen at every reveal, BLUFF-15) and the claims he makes (public), per (standing claim,
  claim, stake class), over the stored round equilibrium.
* **Reply**: the best reply to the model over the rest of the round (every later stage
  played by the reply too); with the match plan (values: the chance to win), one stage
  deep, later stages at the plan's values.
* **Safety**: in each stage where it acts it moves the equilibrium's stage strategy towards
  the reply only where that gains most per unit of worst-case loss (per result as the
  roller, per message as the answerer: :func:`~kocka.solver.solvers.bluff.adaptive_bidding.safe_claims`,
  :func:`~kocka.solver.solvers.bluff.adaptive_bidding.safe_bets`, the weights at most
  n / (n + 40)), within what it may still risk, and spends the exact loss: the stage's
  shortfall to its equilibrium value against a best responder. It may risk EPSILON per
  round begun plus the opponent's gifts in expectation (what his answers to its claims gave
  beyond his best answers, and, when a bet shows his dice, what his claim gave up against
  its answers): risk what you won in expectation, never its luck. The stage losses bound
  the rounds' shortfalls (a telescoping sum of stage values) and a stage's expected result
  is its worst case plus his expected gift, so against any opponent the expected total
  falls at most EPSILON per round below the sum of the equilibrium's values of the rounds
  played (with the match plan MATCH_EPSILON of the chance to win). Its own draws come from
  a second generator, so with nothing learnt it plays exactly what ``equilibrium`` plays.

``rank`` gives the equilibrium's values (chips against the equilibrium opponent); ``choose``
plays the deviation. With no memory (a seat request: nothing observed) the weights are 0
and it plays the equilibrium.
"""
from __future__ import annotations

import random
from typing import Any

import numpy as np

from kocka.agents.bots.base import Agent, AgentUnavailable, Event, derive_seed
from kocka.agents.bots.bluff_bots import BettingEquilibriumBot, EquilibriumBot, RoundMemory
from kocka.agents.bots.catalogue import AgentOptions
from kocka.solver.rules import Game
from kocka.solver.rules.bluff import OVER, ROLL, AbazsGame, Bet, BiddingBluffGame, Claim, Pass, actual_result
from kocka.solver.solvers.bluff import adaptive as bluff_adaptive
from kocka.solver.solvers.bluff import adaptive_bidding
from kocka.solver.solvers.bluff.match import MatchPlan
from kocka.solver.solvers.bluff.two_player import standing_index

EPSILON = 0.1
"""Chips per round the agent may lose to the equilibrium's guarantee, against any opponent."""
REPLAN_GROWTH, REPLAN_MIN = 1.25, 4
"""The reply is recomputed when the opponent's observed decisions reach 1.25 times those of
the last plan plus 4 (each plan walks the game twice: a geometric schedule keeps a match's
plans to a few dozen)."""


class _OwnSeat:
    """Which seat is mine in the game under way, for a model that learns the other player
    whichever seat he takes (a series swaps seats): unknown until my first move (every
    decision before it is his), forgotten when a game ends."""

    _game_seat: int | None = None

    def _follow_game(self, before: Any) -> None:
        if before is None or before.phase == OVER:
            self._game_seat = None

    def _theirs(self, player: int) -> bool:
        """Whether ``player``'s action is the opponent's, for the model to learn."""
        return player != self._game_seat


def _round_begins(state: Any) -> bool:
    """Whether ``state`` begins a round: a roll with no claim standing (BLUFF-3)."""
    return getattr(state, "phase", None) == ROLL and getattr(state, "standing", None) is None


class AdaptiveAbazsBot(_OwnSeat, EquilibriumBot):
    """The adaptive agent of two-player Abázs (module docstring)."""

    name = "adaptive"
    description = "two-player Abázs: best reply to the opponent's learnt frequencies, at most 0.1 chips/round below the equilibrium"
    has_memory = True

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions(), epsilon: float = EPSILON) -> None:
        super().__init__(game, seed, options)
        if game.num_players != 2:
            raise AgentUnavailable(f"agent 'adaptive' plays two-player Abázs, not {game.num_players} players")
        self.epsilon = epsilon
        self.start_value = float(self.table["match_stage_value"][0]) * 2  # x = 2 V(no claim), the match plan
        self.challenged = tuple(float(v) for v in self.table["match_challenged"])
        self.guarantee = bluff_adaptive.equilibrium_guarantee(game, self._policy, self.start_value)
        self._forget()

    def _forget(self) -> None:
        # one model of the other player, whichever seat he takes (a series swaps seats)
        model = bluff_adaptive.AbazsOpponentModel.equilibrium_prior(self.table)
        self.models = [model, model]
        self._memory = RoundMemory(self.game)
        self._planned: list[tuple[int, Any, float]] = [(0, None, 0.0), (0, None, 0.0)]  # per opponent seat
        self._round: tuple[int, int] | None = None
        self._reply: Any = None
        self._game_seat = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._forget()

    def observe(self, event: Event) -> None:
        self._follow_game(self._memory.last_state)
        if _round_begins(event.state):  # also in a series of one-round games, where state.rounds stays 0
            self._round = None
        self._memory.follow(event, on_answer=self._answered, on_reveal=self._revealed)

    def _answered(self, record: Any, responder: int, called: bool) -> None:
        if self._theirs(responder):
            self.models[responder].saw_answer(standing_index(record.previous), record.claim.rank, called)

    def _revealed(self, record: Any, dice: Any) -> None:
        if self._theirs(record.claimant):
            rank = actual_result(tuple(dice), self.game.rules.ranking).rank  # BLUFF-7
            self.models[record.claimant].saw_claim(standing_index(record.previous), rank, record.claim.rank)

    def plan(self, opponent: int) -> tuple[Any, float]:
        """The best reply to ``opponent``'s model and its weight, recomputed when he has been
        seen since the last plan."""
        model = self.models[opponent]
        seen, reply, weight = self._planned[opponent]
        if reply is None or model.observed >= REPLAN_GROWTH * seen + REPLAN_MIN:
            found = bluff_adaptive.best_reply(self.game, model.claim_policy(), model.challenge_policy(), self.challenged)
            reply = found.policy()
            loss = bluff_adaptive.worst_case_loss(self.game, reply, self.guarantee, self.start_value)
            weight = bluff_adaptive.mixture_weight(loss, self.epsilon, model.observed)
            self._planned[opponent] = (model.observed, reply, weight)
        return reply, weight

    def choose(self, state: Any) -> Any:
        me = self._game_seat = self.require_decision(state)
        round_key = (state.rounds, me)
        if self._round != round_key:  # a new round: draw who plays it
            self._round = round_key
            reply, weight = self.plan(1 - me)
            self._reply = reply if weight > 0 and self.rng.random() < weight else None
        if self._reply is None:
            return super().choose(state)
        probabilities = self._reply(state, state.previous)
        return next(iter(probabilities))


MATCH_EPSILON = 0.005
"""In a whole match played by the match plan (values: the chance to win), the chance to win
the agent may give up per round (beyond it, only the opponent's gifts are risked)."""
MAX_STAGES = 4096
"""Stages whose arrays the bidding agent keeps (each a few kB; a match visits far fewer)."""


class AdaptiveBiddingBot(_OwnSeat, BettingEquilibriumBot):
    """The adaptive agent of the two-player bidding bluff (module docstring)."""

    name = "adaptive"
    description = "two-player bidding bluff: best reply to the opponent's learnt bets and claims, at most 0.1 chips/round below the equilibrium"
    has_memory = True

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions(), epsilon: float | None = None) -> None:
        super().__init__(game, seed, options)
        self.reseed()
        if game.num_players != 2:
            raise AgentUnavailable(f"agent 'adaptive' plays the two-player bidding bluff, not {game.num_players} players")
        self.epsilon = epsilon if epsilon is not None else (MATCH_EPSILON if self._match else EPSILON)
        self._forget()

    def _forget(self) -> None:
        n_claims = len(self.plan.claims)
        self.model = adaptive_bidding.BiddingOpponentModel(n_claims)  # the other player, whichever seat he takes
        self._memory = RoundMemory(self.game)
        self._views: dict[tuple, adaptive_bidding.StageView] = {}
        self._claimed_at: tuple[int, int] | None = None  # the claimant's and the answerer's chips at the last claim
        self.budget = 0.0  # what may be risked: EPSILON per round begun plus the gifts of his moves
        self._my_claims: tuple[adaptive_bidding.StageView, np.ndarray] | None = None  # my last stage's claims, as played
        self._my_answers: tuple[adaptive_bidding.StageView, np.ndarray, np.ndarray] | None = None  # (view, weights, reply)
        self._game_seat = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)  # reseeds through reseed
        self._forget()

    def reseed(self, seed: int | None = None) -> None:
        super().reseed(seed)
        self._mixing = random.Random(derive_seed("adaptive mixture", self.seed))

    def stage(self, standing: Any, x: int, y: int) -> adaptive_bidding.StageView:
        key = (standing, x, y)
        if key not in self._views:
            if len(self._views) >= MAX_STAGES:
                self._views.clear()
            self._views[key] = adaptive_bidding.StageView.build(self.plan, standing, x, y)
        return self._views[key]

    def observe(self, event: Event) -> None:
        before = self._memory.last_state
        if before is not None and isinstance(event.action, Claim) and before.phase == "claim":
            self._claimed_at = (before.chips[before.active], before.chips[1 - before.active])
        self._follow_game(before)
        if _round_begins(event.state):
            self.budget += self.epsilon
        self._memory.follow(event, on_answer=self._answered, on_reveal=self._revealed)
        if isinstance(event.action, Claim) and self._memory.last_claim is not None:
            self._claimed(self._memory.last_claim)

    def _claim_stage(self, record: Any) -> tuple[adaptive_bidding.StageView, int] | None:
        if self._claimed_at is None or not self.plan.covers(*self._claimed_at):
            return None
        view = self.stage(record.previous, *self._claimed_at)
        return view, view.message_index(record.claim, record.stake)

    def _claimed(self, record: Any) -> None:
        """His claim: my answers for his whole stage are fixed first, from what was known
        before it (his stage strategy meets them, whichever message he sends), then the
        claim is learnt."""
        found = self._claim_stage(record)
        if found is None or not self._theirs(record.claimant):
            self._my_answers = None
            return
        view, m = found
        self._my_answers = self._plan_answers(view)
        self.model.saw_message(standing_index(record.previous), *view.messages[m])

    def _answered(self, record: Any, responder: int, bet: bool) -> None:
        found = self._claim_stage(record)
        if found is not None and self._theirs(responder):
            view, m = found
            if self._my_claims is not None and self._my_claims[0] is view:
                self.budget += adaptive_bidding.claim_gift(view, self._my_claims[1], m, bet)
            self.model.saw_answer(standing_index(record.previous), *view.messages[m], bet, float(view.beta[m]))
        self._my_claims = None

    def _revealed(self, record: Any, dice: Any) -> None:
        found = self._claim_stage(record)
        if found is not None and self._theirs(record.claimant):
            view, m = found
            r = view.result_index(actual_result(tuple(dice), self.game.rules.ranking))
            if self._my_answers is not None and self._my_answers[0] is view:
                bets = adaptive_bidding.deviated_bets(*self._my_answers)
                self.budget += adaptive_bidding.bet_gift(view, bets, r, m)
            true = self.game.claim_true(record.claim, tuple(dice))  # BLUFF-4
            self.model.saw_claim(standing_index(record.previous), *view.messages[m], bool(true),
                                                   float(view.equilibrium_truth[m]))

    @property
    def _match(self) -> bool:
        """Whether the match plan plays (values: the chance to win the match): the reply is
        then one stage deep, later stages at the plan's values (the round's recursion
        counts chips)."""
        return isinstance(self.plan, MatchPlan)

    def _reply(self, model: adaptive_bidding.BiddingOpponentModel) -> adaptive_bidding.ModelReply:
        return adaptive_bidding.ModelReply(model, self.stage, self.plan.top())

    def _spend(self, loss: float, deviates: bool) -> None:
        if deviates:
            self.budget -= max(loss, 0.0)

    def _plan_claims(self, view: adaptive_bidding.StageView) -> tuple[np.ndarray, np.ndarray]:
        """My claims in my stage ``view`` (module docstring): the deviation's weights and
        messages per result, its worst-case loss spent."""
        model = self.model
        values = (adaptive_bidding.stage_claim_values(view, model.bet_chance(view)) if self._match
                  else self._reply(model).claim_values(view))
        weights, best = adaptive_bidding.safe_claims(view, values, self.budget, bluff_adaptive.data_weight(model.observed))
        sigma = adaptive_bidding.deviated_claims(view, weights, best)
        self._spend(view.value - adaptive_bidding.roller_guarantee(view, sigma), bool(weights.any()))
        self._my_claims = (view, sigma)
        return weights, best

    def _plan_answers(self, view: adaptive_bidding.StageView) -> tuple[adaptive_bidding.StageView, np.ndarray, np.ndarray]:
        """My answers in his stage ``view`` (module docstring), its worst-case loss spent."""
        model = self.model
        if self._match:
            on_bet, on_pass = adaptive_bidding.stage_answer_values(view, model.true_chance(view))
        else:
            on_bet, on_pass = self._reply(model).answer_values(view)
        weights, reply = adaptive_bidding.safe_bets(view, on_bet, on_pass, model.message_chance(view), self.budget,
                                                    bluff_adaptive.data_weight(model.observed))
        bets = adaptive_bidding.deviated_bets(view, weights, reply)
        self._spend(adaptive_bidding.answerer_exposure(view, bets) - view.value, bool(weights.any()))
        return view, weights, reply

    def choose(self, state: Any) -> Any:
        me = self._game_seat = self.require_decision(state)
        # the equilibrium's draw is always made, so its sampling stays in step with an
        # equilibrium agent's on the same seed, and the deviation draws from its own stream
        equilibrium = super().choose(state)
        if state.phase == "claim":
            view = self.stage(state.standing, state.chips[me], state.chips[1 - me])
            weights, best = self._plan_claims(view)
            r = view.result_index(actual_result(state.dice, self.game.rules.ranking))
            if self._mixing.random() < weights[r]:
                return Claim(*view.messages[int(best[r])])
        elif state.phase == "answer" and self._my_answers is not None and len(self.game.legal_actions(state)) > 1:
            view, weights, reply = self._my_answers
            m = view.message_index(state.standing, state.stake)
            if self._mixing.random() < weights[m]:
                return Bet() if reply[m] else Pass()
        return equilibrium


def adaptive_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    if isinstance(game, AbazsGame):
        return AdaptiveAbazsBot(game, seed, options)
    if isinstance(game, BiddingBluffGame):
        return AdaptiveBiddingBot(game, seed, options)
    raise AgentUnavailable(f"agent 'adaptive' plays two-player Abázs and the bidding bluff so far, not {game.NAME!r}")


__all__ = ["AdaptiveAbazsBot", "AdaptiveBiddingBot", "EPSILON", "MATCH_EPSILON", "adaptive_factory"]
