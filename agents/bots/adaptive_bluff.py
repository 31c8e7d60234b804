"""``adaptive`` for two-player Abázs (RULES.md BLUFF-3..BLUFF-10, issue 27): learns the
opponent's frequencies per public situation from what the table shows and plays a best
reply to them, losing at most :data:`EPSILON` chips per round to the equilibrium's guarantee.

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

``rank`` gives the equilibrium's values (chips against the equilibrium opponent); ``choose``
plays the mixture. With no memory (a seat request: nothing observed) w = 0 and it plays the
equilibrium.
"""
from __future__ import annotations

from typing import Any

from kocka.agents.bots.base import Agent, AgentUnavailable, Event
from kocka.agents.bots.bluff_bots import EquilibriumBot, RoundMemory
from kocka.agents.bots.catalogue import AgentOptions
from kocka.solver.rules import Game
from kocka.solver.rules.bluff import AbazsGame, actual_result
from kocka.solver.solvers.bluff import adaptive as bluff_adaptive
from kocka.solver.solvers.bluff.two_player import standing_index

EPSILON = 0.1
"""Chips per round the agent may lose to the equilibrium's guarantee, against any opponent."""
REPLAN_GROWTH, REPLAN_MIN = 1.25, 4
"""The reply is recomputed when the opponent's observed decisions reach 1.25 times those of
the last plan plus 4 (each plan walks the game twice: a geometric schedule keeps a match's
plans to a few dozen)."""


class AdaptiveAbazsBot(EquilibriumBot):
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
        self.models = [bluff_adaptive.AbazsOpponentModel.equilibrium_prior(self.table) for _seat in range(2)]
        self._memory = RoundMemory(self.game)
        self._planned: list[tuple[int, Any, float]] = [(0, None, 0.0), (0, None, 0.0)]  # per opponent seat
        self._round: tuple[int, int] | None = None
        self._reply: Any = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._forget()

    def observe(self, event: Event) -> None:
        self._memory.follow(event, on_answer=self._answered, on_reveal=self._revealed)

    def _answered(self, record: Any, responder: int, called: bool) -> None:
        self.models[responder].saw_answer(standing_index(record.previous), record.claim.rank, called)

    def _revealed(self, record: Any, dice: Any) -> None:
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
        me = self.require_decision(state)
        round_key = (state.rounds, me)
        if self._round != round_key:  # a new round: draw who plays it
            self._round = round_key
            reply, weight = self.plan(1 - me)
            self._reply = reply if weight > 0 and self.rng.random() < weight else None
        if self._reply is None:
            return super().choose(state)
        probabilities = self._reply(state, state.previous)
        return next(iter(probabilities))


def adaptive_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    if not isinstance(game, AbazsGame):
        raise AgentUnavailable(f"agent 'adaptive' plays two-player Abázs so far, not {game.NAME!r}")
    return AdaptiveAbazsBot(game, seed, options)


__all__ = ["AdaptiveAbazsBot", "EPSILON", "adaptive_factory"]
