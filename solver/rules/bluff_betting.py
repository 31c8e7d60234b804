"""The betting round of the bidding bluff and liar's dice poker (BLUFF-12..BLUFF-16): a
claim with stake k, one answer (pass or bet) from every other player in seat order, then
the settlement; the ``bid.*`` options. :mod:`kocka.solver.rules.bluff` says which stakes
the legal actions list."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from kocka.solver.base.errors import Reason, shown
from kocka.solver.base.i18n import _
from kocka.solver.rules.bluff_claims import _text, _whole
from kocka.solver.rules.words import seat_label
from kocka.solver.rules.bluff_engine import _BluffGame
from kocka.solver.rules.bluff_state import ANSWER, CLAIM, ROLL, Bet, BluffState, Claim, Pass

STAKES_LISTED = 20
""":meth:`~Game.legal_actions` lists the stakes 1..STAKES_LISTED one by one (with the
larger candidates of :meth:`_BluffGame.candidate_stakes`): every stake of a two-player
game from the default 10 chips."""
_BETTING_OPTIONS: Mapping[str, tuple] = {
    "stake_cap": ("own_chips", "coverable"),
    "top_claim": ("first_must_bet", "all_pass_resets"),
    "next_active": ("next_seat", "first_bettor"),
}


class _BettingGame(_BluffGame):
    """The betting round of BLUFF-12..BLUFF-16, shared by the bidding bluff and liar's
    poker: a claim with stake k, one answer (pass or bet) from every other player in seat
    order, then the settlement."""

    def max_stake(self, state: BluffState) -> int:
        """BLUFF-12: k <= the active player's chips (``own_chips``), or k <= chips divided by
        the number of opponents, rounded down, at least 1 (``coverable``)."""
        chips = state.chips[state.active]
        if self.rules.stake_cap == "coverable":
            return max(1, chips // (self.num_players - 1))
        return chips

    def stake_range(self, state: BluffState) -> range:
        """Every stake the active player may put on a claim: 1..:meth:`max_stake` (BLUFF-12)."""
        return range(1, self.max_stake(state) + 1)

    def candidate_stakes(self, state: BluffState) -> tuple[int, ...]:
        """The stakes listed with each claim: 1..:data:`STAKES_LISTED`, the largest stake,
        and each other player's chips and one more (above his chips he cannot bet,
        BLUFF-13), as far as the cap allows; at most STAKES_LISTED + 2 x (players - 1) + 1."""
        top = self.max_stake(state)
        chosen = set(range(1, min(top, STAKES_LISTED) + 1))
        chosen.add(top)
        for player in state.order:
            if player != state.active:
                chosen.update((state.chips[player], state.chips[player] + 1))
        return tuple(sorted(k for k in chosen if 1 <= k <= top))

    def must_bet(self, state: BluffState) -> bool:
        """BLUFF-5 (``first_must_bet``): the first player to answer a top claim must bet."""
        return state.answered == 0 and self.rules.top_claim == "first_must_bet" and self._is_top(state)

    def _other_actions(self, state: BluffState) -> list:
        if state.phase == CLAIM:
            return []
        if self.must_bet(state):
            return [Bet()]
        if state.chips[self._responder(state)] >= state.stake:
            return [Pass(), Bet()]
        return [Pass()]  # BLUFF-13: fewer than k chips cannot bet

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        if isinstance(action, Claim):
            return self._apply_claim(state, action)
        responder = self._responder(state)
        if isinstance(action, Pass):
            chips = list(state.chips)
            chips[responder] -= 1
            state = replace(state, chips=tuple(chips), bank=state.bank + 1, answered=state.answered + 1)
        else:  # Bet: k chips, or all he has when BLUFF-5 obliges him with fewer
            amount = min(state.stake, state.chips[responder])
            state = replace(state, bets=state.bets + ((responder, amount),), answered=state.answered + 1)
        if state.answered < self.num_players - 1:
            return state
        return self._settle(state)

    def _apply_claim(self, state: BluffState, action: Claim) -> BluffState:
        return replace(
            state, phase=ANSWER, standing=action.claim, history=state.history + (action.claim,),
            stake=action.stake, bets=(), answered=0,
        )  # fmt: skip

    def _settle(self, state: BluffState) -> BluffState:
        """The betting round is answered: BLUFF-14 (everybody passed) or BLUFF-15 (reveal)."""
        active, next_seat = state.active, self._next_seat(state, state.active)
        if not state.bets:
            # BLUFF-14: the active player takes the bank (his stake never left him)
            chips = list(state.chips)
            chips[active] += state.bank
            paid = replace(state, chips=tuple(chips), bank=0)
            if self._is_top(state):  # only under all_pass_resets: the round ends unrevealed
                return self._end_round(paid, next_seat)
            if 0 in paid.chips:  # BLUFF-6: a passer paid his last chip
                return self._game_over(paid)
            return self._next_turn(paid, next_seat)
        chips = state.chips
        if self._claim_true(state):  # BLUFF-15 true: every bettor's chips go to the claimant
            for bettor, amount in state.bets:
                chips = self._pay(chips, bettor, active, amount)
        else:  # false: he pays each bettor in betting order while he has chips
            for bettor, amount in state.bets:
                chips = self._pay(chips, active, bettor, min(amount, chips[active]))
        revealed = replace(state, chips=chips, revealed=(active, state.dice))
        first_bettor = state.bets[0][0]
        return self._end_round(revealed, next_seat if self.rules.next_active == "next_seat" else first_bettor)

    def _next_turn(self, state: BluffState, player: int) -> BluffState:
        """BLUFF-14: the claim stays standing and ``player`` becomes active."""
        return replace(state, phase=ROLL, active=player, dice=(), shown=0, rerolled=False, stake=0, bets=(), answered=0)

    def _why_stake_illegal(self, state: BluffState, action: Claim) -> str:
        return Reason(_("the stake must be from 1 to {most} chips here, not {value}", most=self.max_stake(state),
                        value=shown(action.stake)), "BLUFF-12")

    def _check_bets(self, state: BluffState, bad: Any) -> None:
        n = self.num_players
        if state.phase != ANSWER:
            if state.stake or state.bets or state.answered:
                raise bad(_("stakes, bets and answers belong to the answer phase, not to the phase {phase}", phase=state.phase))
            return
        if not _whole(state.stake, 1, self.max_stake(state)):
            raise bad(_("the stake must be from 1 to {most}, not {value}", most=self.max_stake(state), value=shown(state.stake)),
                      "BLUFF-12")
        if not _whole(state.answered, 0, n - 2):
            raise bad(_("the number of players who answered must be from 0 to {most}, not {value}", most=n - 2,
                        value=shown(state.answered)))
        answerers = [self._next_seat(state, state.active, i) for i in range(1, state.answered + 1)]
        if not isinstance(state.bets, tuple) or not all(isinstance(b, tuple) and len(b) == 2 for b in state.bets):
            raise bad(_("each bet is a player and the chips bet, not {value}", value=_text(state.bets)))
        bettors = [b for b, _amount in state.bets]
        if bettors != [p for p in answerers if p in bettors] or len(set(bettors)) != len(bettors):
            raise bad(_("the bets must come from the players who answered, in seat order"), "BLUFF-13")
        passes = state.answered - len(bettors)
        if state.bank < passes:
            raise bad(_("the bank holds {bank} chips, fewer than the {passes} passes of this betting round paid in",
                        bank=state.bank, passes=passes), "BLUFF-13")
        for bettor, amount in state.bets:
            obliged = bettor == answerers[0] and self.rules.top_claim == "first_must_bet" and self._is_top(state)
            if not obliged and state.chips[bettor] < state.stake:
                raise bad(_("{player} holds {chips} chips, fewer than the stake {stake}, so cannot have bet",
                            player=seat_label(bettor), chips=state.chips[bettor], stake=state.stake), "BLUFF-13")
            owed = min(state.stake, state.chips[bettor]) if obliged else state.stake
            if amount != owed or owed < 1:
                if obliged:
                    raise bad(_("{player} bet {amount} chips, but must bet all of his chips up to the stake: {owed}",
                                player=seat_label(bettor), amount=shown(amount), owed=owed), "BLUFF-5")
                raise bad(_("{player} bet {amount} chips, but a bet is the stake: {owed}", player=seat_label(bettor),
                            amount=shown(amount), owed=owed), "BLUFF-13")
