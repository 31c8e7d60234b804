"""The bidding bluff (*Licitálós 2 kockás blöff*, RULES.md section 3, BLUFF-11..BLUFF-16):
the active player claims with a stake of k chips, every other player passes (1 chip into
the bank) or bets k that the claim is false."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from kocka.solver.rules.bluff_betting import _BETTING_OPTIONS, _BettingGame
from kocka.solver.base.i18n import _
from kocka.solver.rules.bluff_claims import _RANKINGS
from kocka.solver.rules.bluff_engine import (
    _BLUFF, _BLUFF_AGENTS, _EQUILIBRIUM_AGENT, _HINT, _BluffRules, _check_private_dice, _check_standing, _TwoDiceClaims,
)
from kocka.solver.rules.bluff_state import BluffState, Bet, Claim, Pass
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game


@dataclass(frozen=True)
class BiddingBluffRules(_BluffRules):
    """Bidding bluff: ``bluff.*`` options, ``bluff.ranking`` and the ``bid.*`` options
    (BLUFF-5, BLUFF-12, BLUFF-15, BLUFF-16)."""

    GAME: ClassVar[str] = "bidding-bluff"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {**_BluffRules.OPTIONS, "ranking": _RANKINGS, **_BETTING_OPTIONS}
    ranking: str = "simple"
    stake_cap: str = "own_chips"
    top_claim: str = "first_must_bet"
    next_active: str = "next_seat"


@dataclass(frozen=True)
class BiddingBluffState(BluffState):
    """A position of the bidding bluff."""


class BiddingBluffGame(_TwoDiceClaims, _BettingGame):
    """The bidding bluff (*Licitálós 2 kockás blöff*), BLUFF-1..BLUFF-7, BLUFF-11..BLUFF-16.

    Phases: ``roll`` (the active player rolls under cover) -> ``claim`` (a :class:`Claim`
    with stake) -> ``answer`` (each other player, from the active player's left, plays
    :class:`Pass` or :class:`Bet`) -> settlement.
    """

    NAME = "bidding-bluff"
    RULES = BiddingBluffRules
    STATE = BiddingBluffState
    ACTIONS = (Claim, Pass, Bet)
    rules: BiddingBluffRules

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.public or state.shown or state.rerolled or state.claimed_dice:
            raise bad(_("this game has no public dice or re-throws"))
        _check_private_dice(state, bad)
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")
        self._check_bets(state, bad)


register_game(GameSpec(
    name="bidding-bluff", title="bidding bluff", engine=BiddingBluffGame,
    tables=(TableKind("equilibrium", "kocka.solver.solvers.bluff.bidding:BIDDING_EQUILIBRIUM"),
            TableKind("match", "kocka.solver.solvers.bluff.match:BIDDING_MATCH")),
    agents=_BLUFF_AGENTS + (_EQUILIBRIUM_AGENT, AgentEntry(
        "adaptive", "kocka.agents.bots.adaptive_bluff:adaptive_factory",
        "two players: best reply to the opponent's learnt bets and claims, at most 0.1 chips/round below the equilibrium")),
    hint=_HINT,
    hint_parameters="kocka.agents.advice.bluff:BettingHintParams", judges=("equilibrium", "bayes"), **_BLUFF,
))
