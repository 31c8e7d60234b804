"""Abázs (*2 kockás blöff*, RULES.md section 3, BLUFF-7..BLUFF-10): claim, then the next
seat accepts (and must claim higher on his own roll) or challenges; 1 chip changes hands.
The engine core is :mod:`kocka.solver.rules.bluff_engine`."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Mapping

from kocka.solver.base.i18n import _
from kocka.solver.rules.bluff_claims import _RANKINGS
from kocka.solver.rules.bluff_engine import (
    _BLUFF, _BLUFF_AGENTS, _HINT, _BluffGame, _BluffRules, _check_private_dice, _check_standing, _TwoDiceClaims,
)
from kocka.solver.rules.bluff_state import ANSWER, CLAIM, ROLL, Accept, BluffState, Challenge, Claim
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game


@dataclass(frozen=True)
class AbazsRules(_BluffRules):
    """Abázs: ``bluff.*`` options, ``bluff.ranking`` (BLUFF-7) and ``abazs.next_starter``
    (BLUFF-10)."""

    GAME: ClassVar[str] = "abazs"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        **_BluffRules.OPTIONS,
        "ranking": _RANKINGS,
        "next_starter": ("challenger", "loser"),
    }
    ranking: str = "simple"
    next_starter: str = "challenger"


@dataclass(frozen=True)
class AbazsState(BluffState):
    """A position of Abázs."""


class AbazsGame(_TwoDiceClaims, _BluffGame):
    """Abázs (*2 kockás blöff*), BLUFF-1..BLUFF-10.

    Phases: ``roll`` (the claimant rolls under cover) -> ``claim`` -> ``answer`` (the next
    seat: :class:`Accept`, which leads to his own ``roll``, or :class:`Challenge`, which
    settles 1 chip and ends the round). Claims carry no stake (``stake = 0``).
    """

    NAME = "abazs"
    RULES = AbazsRules
    STATE = AbazsState
    ACTIONS = (Claim, Accept, Challenge)
    rules: AbazsRules

    def _other_actions(self, state: BluffState) -> list:
        if state.phase == CLAIM:
            return []
        if self._is_top(state):  # BLUFF-5: a top claim must be challenged
            return [Challenge()]
        return [Accept(), Challenge()]

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        if state.phase == CLAIM:
            return replace(state, phase=ANSWER, standing=action.claim, history=state.history + (action.claim,))
        challenger = self._responder(state)
        if isinstance(action, Accept):  # BLUFF-9: he becomes the claimant and rolls afresh
            return replace(state, phase=ROLL, active=challenger, dice=())
        # BLUFF-10: the claimant shows his dice; the loser pays the winner 1 chip
        claimant = state.active
        loser, winner = (challenger, claimant) if self._claim_true(state) else (claimant, challenger)
        settled = replace(state, chips=self._pay(state.chips, loser, winner, 1), revealed=(claimant, state.dice))
        return self._end_round(settled, challenger if self.rules.next_starter == "challenger" else loser)

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.bank or state.initial_bank or state.public or state.shown or state.rerolled or state.claimed_dice \
                or state.stake or state.bets or state.answered:
            raise bad(_("this game has no bank, public dice, re-throws, stakes or bets"), "BLUFF-9")
        _check_private_dice(state, bad)
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")


register_game(GameSpec(
    name="abazs", title="Abázs", engine=AbazsGame,
    tables=(TableKind("equilibrium", "kocka.solver.solvers.bluff.abazs:ABAZS_EQUILIBRIUM"),),
    agents=_BLUFF_AGENTS + (
        AgentEntry("equilibrium", "kocka.agents.bots.bluff_bots:equilibrium_factory",
                   "two-player Abázs: the exact match equilibrium (table), mixed strategies"),
        AgentEntry("adaptive", "kocka.agents.bots.adaptive_bluff:adaptive_factory",
                   "two-player Abázs: best reply to the opponent's learnt frequencies, at most 0.1 chips/round below the equilibrium"),
    ),
    hint=_HINT, hint_parameters="kocka.agents.advice.bluff:BluffHintParams", judges=("equilibrium", "bayes"),
    **_BLUFF,
))
