"""``adaptive`` for two-player Abázs (RULES.md BLUFF-3..BLUFF-10, issue 27), the
two-player bidding bluff (BLUFF-11..BLUFF-16) and liar's kockapóker (BLUFF-17..BLUFF-21):
learns the opponent's frequencies per public
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
  claim, stake class), over the stored round equilibrium, the truth prior shifted by his
  fitted honesty (in liar's poker: per stake class, and the bet prior shifted by his
  aggression per stake class, ``per_stake_class``).
* **Reply**: the best reply to the model over the rest of the round (every later stage
  played by the reply too); with the match plan (values: the chance to win), one stage
  deep, later stages at the plan's values. Its answer to a claim is capped by what that
  claim's truth cell has seen (:meth:`AdaptiveBiddingBot._caps`).
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

Liar's kockapóker (:class:`AdaptiveLiarsBot`): the same model, reply, safety and gifts on
its stages (public roll, standing claim, chips, re-throw slot:
:mod:`kocka.solver.solvers.bluff.adaptive_liars`), a re-throw one of the roller's columns;
the reply LIARS_DEPTH passes ahead, later stages at the plan's values.

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
from kocka.solver.rules.bluff import OVER, ROLL, AbazsGame, Bet, BiddingBluffGame, Claim, LiarsPokerGame, Pass, actual_result
from kocka.solver.solvers.bluff import adaptive as bluff_adaptive
from kocka.solver.solvers.bluff import adaptive_bidding, adaptive_liars
from kocka.solver.solvers.bluff.liars import LiarsPlan
from kocka.solver.solvers.bluff.match import LiarsMatchPlan, MatchPlan
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
LIARS_DEPTH = 2
"""Passes ahead that liar's poker's reply plays against the model (then the plan's values)."""
CELL_WEIGHT = 4.0
"""Reveals in a truth cell of the model that give the reply's answers half their weight there."""
MAX_STAGES = 4096
"""Stages whose arrays the bidding agent keeps (each a few kB; a match visits far fewer)."""


class AdaptiveBiddingBot(_OwnSeat, BettingEquilibriumBot):
    """The adaptive agent of the two-player bidding bluff (module docstring); its stages are
    keyed (standing claim, the roller's chips, the answerer's)."""

    name = "adaptive"
    description = "two-player bidding bluff: best reply to the opponent's learnt bets and claims, at most 0.1 chips/round below the equilibrium"
    has_memory = True
    game_words = "the two-player bidding bluff"
    PER_STAKE_CLASS = False  # one honesty, the bet prior the equilibrium's (the README's bidding rows)

    def __init__(self, game: Game, seed: int = 0, options: AgentOptions = AgentOptions(), epsilon: float | None = None,
                 per_stake_class: bool | None = None) -> None:
        super().__init__(game, seed, options)
        self.reseed()
        self.per_stake_class = self.PER_STAKE_CLASS if per_stake_class is None else per_stake_class
        if game.num_players != 2:
            raise AgentUnavailable(f"agent 'adaptive' plays {self.game_words}, not {game.num_players} players")
        self.epsilon = epsilon if epsilon is not None else (MATCH_EPSILON if self._match else EPSILON)
        self._forget()

    def _forget(self) -> None:
        n_claims = len(self.plan.claims)
        self.model = adaptive_bidding.BiddingOpponentModel(n_claims, self.per_stake_class)  # the other player, whichever seat he takes
        self._memory = RoundMemory(self.game)
        self._views: dict[tuple, adaptive_bidding.StageView] = {}
        self._claim_key: tuple | None = None  # the stage of the last claim (None: not in the table)
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

    # ----- the game's stages (overridden for liar's poker) -----
    def _stage_key(self, state: Any) -> tuple | None:
        """The key of the stage the roller of ``state`` (claim phase) plays; None where the
        table does not hold it."""
        x, y = state.chips[state.active], state.chips[1 - state.active]
        return (state.standing, x, y) if self.plan.covers(x, y) else None

    def _build(self, key: tuple) -> adaptive_bidding.StageView:
        return adaptive_bidding.StageView.build(self.plan, *key)

    def _type(self, key: tuple, view: adaptive_bidding.StageView, dice: Any, shown: tuple) -> int:
        """The roller's type in stage ``view`` with private dice ``dice``, ``shown`` shown."""
        return view.result_index(actual_result(tuple(dice), self.game.rules.ranking))

    def _action(self, view: adaptive_bidding.StageView, column: int) -> Any:
        return Claim(*view.messages[column])

    def _reply(self) -> adaptive_bidding.ModelReply:
        """The reply to the model: over the rest of the round; with the match plan, whose
        values are chances to win (the recursion counts chips), one stage deep."""
        stages = adaptive_bidding.BiddingStages(self._view, self.plan.top())
        return adaptive_bidding.ModelReply(self.model, stages, 0 if self._match else None)

    # -----
    def _view(self, key: tuple) -> adaptive_bidding.StageView:
        if key not in self._views:
            if len(self._views) >= MAX_STAGES:
                self._views.clear()
            self._views[key] = self._build(key)
        return self._views[key]

    def observe(self, event: Event) -> None:
        before = self._memory.last_state
        self._follow_game(before)
        if _round_begins(event.state):
            self.budget += self.epsilon
        if before is not None and before.phase == "claim" and event.player >= 0:
            key = self._stage_key(before)
            if isinstance(event.action, Claim):
                self._claim_key = key
            elif key is not None and self._theirs(event.player):
                # a re-throw: his first stage met my answers for it all the same (their loss is spent)
                self._plan_answers(key, self._view(key))
        self._memory.follow(event, on_answer=self._answered, on_reveal=self._revealed)
        if isinstance(event.action, Claim) and self._memory.last_claim is not None:
            self._claimed(self._memory.last_claim)

    def _claim_stage(self, record: Any) -> tuple[tuple, adaptive_bidding.StageView, int] | None:
        if self._claim_key is None:
            return None
        view = self._view(self._claim_key)
        return self._claim_key, view, view.message_index(record.claim, record.stake)

    def _claimed(self, record: Any) -> None:
        """His claim: my answers for his whole stage are fixed first, from what was known
        before it (his stage strategy meets them, whichever message he sends), then the
        claim is learnt."""
        found = self._claim_stage(record)
        if found is None or not self._theirs(record.claimant):
            self._my_answers = None
            return
        key, view, m = found
        self._my_answers = self._plan_answers(key, view)
        self.model.saw_message(view.standing_rank, view.ranks[m], view.messages[m][1])

    def _answered(self, record: Any, responder: int, bet: bool) -> None:
        found = self._claim_stage(record)
        if found is not None and self._theirs(responder):
            _key, view, m = found
            if self._my_claims is not None and self._my_claims[0] is view:
                self.budget += adaptive_bidding.claim_gift(view, self._my_claims[1], m, bet)
            self.model.saw_answer(view.standing_rank, view.ranks[m], view.messages[m][1], bet, float(view.beta[m]))
        self._my_claims = None

    def _revealed(self, record: Any, dice: Any) -> None:
        found = self._claim_stage(record)
        if found is not None and self._theirs(record.claimant):
            key, view, m = found
            if self._my_answers is not None and self._my_answers[0] is view:
                bets = adaptive_bidding.deviated_bets(*self._my_answers)
                self.budget += adaptive_bidding.bet_gift(view, bets, self._type(key, view, dice, record.shown), m)
            hidden = list(dice)
            for die in record.shown:
                hidden.remove(die)
            true = self.game.claim_true(record.claim, tuple(hidden), record.public, record.shown)  # BLUFF-4, BLUFF-20
            self.model.saw_claim(view.standing_rank, view.ranks[m], view.messages[m][1], bool(true),
                                 float(view.equilibrium_truth[m]))

    @property
    def _match(self) -> bool:
        """Whether the match plan plays (values: the chance to win the match)."""
        return isinstance(self.plan, (MatchPlan, LiarsMatchPlan))

    def _spend(self, loss: float, deviates: bool) -> None:
        if deviates:
            self.budget -= max(loss, 0.0)

    def _caps(self, seen: np.ndarray, view: adaptive_bidding.StageView) -> np.ndarray:
        """The largest weight of the reply's answer to each message: the data's weight
        overall (n / (n + 40)) times that of the message's own truth cell (s / (s +
        CELL_WEIGHT), s the reveals its estimate rests on): no bet against a claim he was
        never seen to make true or false, however much else was seen (a claim the
        equilibrium never makes has no equilibrium truth chance to go by). Claims are not
        capped so: their gain comes from stakes and claims he has not been seen answering,
        priced by his answers elsewhere."""
        overall = bluff_adaptive.data_weight(self.model.observed)
        own = np.where(np.array(view.ranks) >= 0, seen / (seen + CELL_WEIGHT), 1.0)
        return overall * own

    def _plan_claims(self, key: tuple, view: adaptive_bidding.StageView) -> tuple[np.ndarray, np.ndarray]:
        """My claims in my stage ``view`` (module docstring): the deviation's weights and
        columns per type, its worst-case loss spent."""
        cap = bluff_adaptive.data_weight(self.model.observed)
        if cap <= 0.0:  # nothing learnt (a seat request): no weight to give, no reply to compute
            self._my_claims = (view, view.sigma)
            return np.zeros(len(view.chance)), np.zeros(len(view.chance), dtype=int)
        weights, best = adaptive_bidding.safe_claims(view, self._reply().claim_values(key), self.budget, cap)
        sigma = adaptive_bidding.deviated_claims(view, weights, best)
        self._spend(view.value - adaptive_bidding.roller_guarantee(view, sigma), bool(weights.any()))
        self._my_claims = (view, sigma)
        return weights, best

    def _plan_answers(self, key: tuple, view: adaptive_bidding.StageView) -> tuple[adaptive_bidding.StageView, np.ndarray, np.ndarray]:
        """My answers in his stage ``view`` (module docstring), its worst-case loss spent."""
        if bluff_adaptive.data_weight(self.model.observed) <= 0.0:  # nothing learnt: nothing to compute
            none = np.zeros(len(view.messages))
            return view, none, none
        on_bet, on_pass = self._reply().answer_values(key)
        weights, reply = adaptive_bidding.safe_bets(view, on_bet, on_pass, self.model.message_chance(view), self.budget,
                                                    self._caps(self.model.truths_seen(view), view))
        bets = adaptive_bidding.deviated_bets(view, weights, reply)
        self._spend(adaptive_bidding.answerer_exposure(view, bets) - view.value, bool(weights.any()))
        return view, weights, reply

    def choose(self, state: Any) -> Any:
        self._game_seat = self.require_decision(state)
        # the equilibrium's draw is always made, so its sampling stays in step with an
        # equilibrium agent's on the same seed, and the deviation draws from its own stream
        equilibrium = super().choose(state)
        if state.phase == "claim":
            key = self._stage_key(state)
            if key is None:
                return equilibrium
            view = self._view(key)
            weights, best = self._plan_claims(key, view)
            r = self._type(key, view, state.dice, self.game.shown_dice(state))
            if self._mixing.random() < weights[r]:
                return self._action(view, int(best[r]))
        elif state.phase == "answer" and self._my_answers is not None and len(self.game.legal_actions(state)) > 1:
            view, weights, reply = self._my_answers
            m = view.message_index(state.standing, state.stake)
            if self._mixing.random() < weights[m]:
                return Bet() if reply[m] else Pass()
        return equilibrium


class AdaptiveLiarsBot(AdaptiveBiddingBot):
    """The adaptive agent of two-player liar's kockapóker (BLUFF-17..BLUFF-21): the bidding
    agent's model, safe deviations and gifts on liar's poker stages (public roll, standing
    claim, chips, re-throw slot; :mod:`kocka.solver.solvers.bluff.adaptive_liars`), a re-throw
    one of the roller's columns. The reply looks LIARS_DEPTH passes ahead (later stages at
    the plan's values): the whole round's recursion would lay out every stage of the public
    roll."""

    description = "two-player liar's kockapóker: best reply to the opponent's learnt bets and claims, at most 0.1 chips/round below the equilibrium"
    game_words = "two-player liar's kockapóker"
    PER_STAKE_CLASS = True  # bet and truth priors fitted per stake class: bayes's stake tells (docs/AGENTS.md)

    def _stage_key(self, state: Any) -> tuple | None:
        x, y = state.chips[state.active], state.chips[1 - state.active]
        if not self.plan.covers(x, y):
            return None
        return tuple(state.public), state.standing, x, y, LiarsPlan.slot_of(state)

    def _build(self, key: tuple) -> adaptive_bidding.StageView:
        return adaptive_liars.liars_stage(self.plan, *key)

    def _type(self, key: tuple, view: adaptive_bidding.StageView, dice: Any, shown: tuple) -> int:
        return adaptive_liars.type_index(key[-1], tuple(dice), tuple(shown))

    def _action(self, view: adaptive_bidding.StageView, column: int) -> Any:
        claim, stake = view.messages[column]
        if claim == adaptive_liars.RETHROW:
            return adaptive_liars.rethrow_action(view.messages[column])
        return Claim(claim, stake)

    def _reply(self) -> adaptive_bidding.ModelReply:
        """The reply to the model LIARS_DEPTH passes ahead, later stages at the plan's
        values (the round's whole recursion would lay out every stage of the public roll);
        with the match plan one stage deep."""
        stages = adaptive_liars.LiarsStages(self._view, self.plan)
        return adaptive_bidding.ModelReply(self.model, stages, 0 if self._match else LIARS_DEPTH)


def adaptive_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    if isinstance(game, AbazsGame):
        return AdaptiveAbazsBot(game, seed, options)
    if isinstance(game, LiarsPokerGame):
        return AdaptiveLiarsBot(game, seed, options)
    if isinstance(game, BiddingBluffGame):
        return AdaptiveBiddingBot(game, seed, options)
    raise AgentUnavailable(f"agent 'adaptive' plays two-player Abázs and the betting bluff games, not {game.NAME!r}")


__all__ = ["AdaptiveAbazsBot", "AdaptiveBiddingBot", "AdaptiveLiarsBot", "EPSILON", "MATCH_EPSILON", "adaptive_factory"]
