"""Liar's dice poker (*Hazudós kockapóker*, RULES.md section 3, BLUFF-17..BLUFF-21): three
public dice, two private ones, one optional re-throw, five-dice hands (75 claims), and the
betting round of :mod:`kocka.solver.rules.bluff_betting`."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar, Mapping, Sequence

from kocka.solver.base.dice import Dice, all_outcomes
from kocka.solver.base.errors import Reason, shown as shown_value
from kocka.solver.base.i18n import _, ngettext
from kocka.solver.rules.bluff_betting import _BETTING_OPTIONS, _BettingGame
from kocka.solver.rules.bluff_claims import (
    DiceClaim, Hand, _achievable_hands, _text, achievable_claims, all_claims, claim_rank, hand_of, is_true, top_claim,
)
from kocka.solver.rules.bluff_engine import (
    _BLUFF, _BLUFF_AGENTS, _EQUILIBRIUM_AGENT, _HINT, _BluffRules, _check_private_dice, _check_standing, _safe_dice,
)
from kocka.solver.rules.bluff_state import (
    ANSWER, CLAIM, OVER, PUBLIC, REROLL, ROLL, SEATING, Bet, BluffState, Claim, Pass, Reroll,
)
from kocka.solver.rules.spec import AgentEntry, GameSpec, TableKind, register_game
from kocka.solver.rules.words import seat_label


@dataclass(frozen=True)
class LiarsPokerRules(_BluffRules):
    """Liar's dice poker: ``bluff.*``, ``bid.*`` and ``liar.*`` options (BLUFF-17..BLUFF-21)."""

    GAME: ClassVar[str] = "liars-poker"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        **_BluffRules.OPTIONS,
        **_BETTING_OPTIONS,
        "first_turn": ("starter", "next_seat"),
        "reroll": ("one_shown", "one_or_both"),
        "kickers": ("ignored", "counted"),
        "claim": ("hand", "dice"),
    }
    stake_cap: str = "own_chips"
    top_claim: str = "first_must_bet"
    next_active: str = "next_seat"
    first_turn: str = "starter"
    reroll: str = "one_shown"
    kickers: str = "ignored"
    claim: str = "hand"


@dataclass(frozen=True)
class LiarsPokerState(BluffState):
    """A position of liar's dice poker."""


class LiarsPokerGame(_BettingGame):
    """Liar's dice poker (*Hazudós kockapóker*), BLUFF-1..BLUFF-6, BLUFF-17..BLUFF-21.

    Phases: ``public`` (the round's starter rolls three public dice) -> ``roll`` (the
    active player rolls two private dice) -> ``claim`` (a :class:`Claim` with stake, or
    once per turn a :class:`Reroll`, followed by ``reroll`` and ``claim`` again) ->
    ``answer`` -> settlement. After everybody passed the next seat plays a new turn with
    the same public dice; after a reveal the next round rolls new public dice.
    """

    NAME = "liars-poker"
    RULES = LiarsPokerRules
    STATE = LiarsPokerState
    ACTIONS = (Claim, Reroll, Pass, Bet)
    rules: LiarsPokerRules

    def claims(self) -> tuple[Hand, ...]:
        """Every hand, lowest first (75 with kickers ignored, BLUFF-19)."""
        return all_claims("liar", self.rules)

    def _phases(self) -> tuple[str, ...]:
        return (SEATING, PUBLIC, ROLL, REROLL, CLAIM, ANSWER, OVER)

    def _start_round(self, state: BluffState, starter: int) -> BluffState:
        """BLUFF-17, BLUFF-21: a round begins with the starter's public roll."""
        return replace(super()._start_round(state, starter), phase=PUBLIC)

    def _apply(self, state: BluffState, action: Any) -> BluffState:
        if state.phase == PUBLIC:  # liar.first_turn: the starter, or the seat after him
            first = state.active if self.rules.first_turn == "starter" else self._next_seat(state, state.active)
            return replace(state, phase=ROLL, public=tuple(action), active=first)
        if state.phase == REROLL:
            return replace(state, phase=CLAIM, dice=tuple(sorted(state.dice + tuple(action))))
        return super()._apply(state, action)

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        if isinstance(action, Reroll):
            if action.keep_shown is None:
                return replace(state, phase=REROLL, dice=(), rerolled=True)
            return replace(state, phase=REROLL, dice=(action.keep_shown,), shown=action.keep_shown, rerolled=True)
        return super()._apply_game(state, action)

    def _apply_claim(self, state: BluffState, action: Claim) -> BluffState:
        if isinstance(action.claim, DiceClaim):
            hand = self.dice_claim_hand(action.claim, state.public, self.shown_dice(state))
            claimed = super()._apply_claim(state, action)
            return replace(claimed, standing=hand, history=state.history + (hand,), claimed_dice=action.claim.dice)
        return super()._apply_claim(state, action)

    # ----- claims -----
    def _top_claim(self, state: BluffState) -> Hand:
        return top_claim(state.public, self.rules)

    def dice_claim_hand(self, claim: DiceClaim, public: Sequence[int], shown: Sequence[int] = ()) -> Hand:
        """``liar.claim = dice``: the hand the named hidden dice make with the ``public``
        dice and the ``shown`` die; escalation compares these hands."""
        return hand_of(tuple(public) + tuple(shown) + tuple(claim.dice), self.rules)

    def claims_above(self, beaten: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> list:
        """The claims allowed over ``beaten`` (BLUFF-3; None: any) with the three
        ``public`` dice and the ``shown`` die, lowest first: hands that some values of the
        hidden dice make (BLUFF-20), or under ``liar.claim = dice`` the hidden dice
        themselves, ordered by the hand they name (ties in the order of the dice)."""
        public, shown = tuple(public), tuple(shown)
        beat = None if self.rules.escalation == "off" else beaten
        hidden = 2 - len(shown)
        if self.rules.claim == "hand":
            return achievable_claims(public, shown, hidden, beat, self.rules)
        named = [
            (self.dice_claim_hand(DiceClaim(h), public, shown), i, DiceClaim(h)) for i, h in enumerate(all_outcomes(hidden))
        ]
        return [claim for hand, _order, claim in sorted(named) if beat is None or hand > beat]

    def claim_true(self, claim: Any, hidden: Sequence[int], public: Sequence[int] = (), shown: Sequence[int] = ()) -> bool:
        """BLUFF-4, BLUFF-20: a claimed hand against the best hand of the public and private
        dice. A dice claim (``liar.claim = dice``) is true under ``exact`` if it names the
        hidden dice; under ``at_least`` if the actual hand ranks at or above the hand the
        named dice would make (**decided** here: the option pair is otherwise undefined)."""
        dice = tuple(public) + tuple(shown) + tuple(hidden)
        if not isinstance(claim, DiceClaim):
            return is_true(claim, dice, self.rules)
        if self.rules.truth == "exact":
            return tuple(sorted(hidden)) == claim.dice
        return hand_of(dice, self.rules) >= self.dice_claim_hand(claim, public, shown)

    def claim_strength(self, claim: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> int:
        if isinstance(claim, DiceClaim):
            claim = self.dice_claim_hand(claim, public, shown)
        return claim_rank(claim, self.rules)

    def claim_as_made(self, state: BluffState) -> Any:
        return DiceClaim(state.claimed_dice) if self.rules.claim == "dice" else state.standing

    def _other_actions(self, state: BluffState) -> list:
        actions = super()._other_actions(state)
        if state.phase != CLAIM or state.rerolled:
            return actions
        # BLUFF-18: no re-throw that would show a die leaving no claim above the standing one
        rerolls: list = [
            Reroll(face) for face in sorted(set(state.dice)) if self._hands_above(state, (face,))
        ]
        if self.rules.reroll == "one_or_both":
            rerolls.append(Reroll(None))
        return actions + rerolls

    def _hands_above(self, state: BluffState, shown: Dice) -> list[Hand]:
        """The hands some hidden dice make over the standing claim with ``shown`` shown."""
        beat = None if self.rules.escalation == "off" else state.standing
        return achievable_claims(state.public, shown, 2 - len(shown), beat, self.rules)

    def _why_claim_illegal(self, state: BluffState, claim: Any) -> str:
        shown = self.shown_dice(state)
        if self.rules.claim == "dice":
            if not isinstance(claim, DiceClaim):
                return Reason(_("under these rules a claim names the hidden dice, not {claim}", claim=_text(claim)),
                              "BLUFF-20")
            if len(claim.dice) != 2 - len(shown):
                return Reason(ngettext("a dice claim names the {n} hidden die, not {dice}",
                                       "a dice claim names the {n} hidden dice, not {dice}", 2 - len(shown),
                                       dice=_text(claim.dice)), "BLUFF-20")
            hand = self.dice_claim_hand(claim, state.public, shown)
            return Reason(_("those dice make {hand}, which does not rank above the standing claim {standing}", hand=hand,
                            standing=_text(state.standing)), "BLUFF-3")
        if not isinstance(claim, Hand) or claim not in self.claims():
            return Reason(_("a claim names a hand of five dice, not {claim}", claim=_text(claim)), "BLUFF-19, BLUFF-20")
        if claim not in _achievable_hands(state.public, shown, 2 - len(shown), self.rules.kickers):
            if shown:
                return Reason(_("no hidden dice make {hand} with the public dice {public} and the shown {die}", hand=claim,
                                public=_text(state.public), die=shown[0]), "BLUFF-20")
            return Reason(_("no hidden dice make {hand} with the public dice {public}", hand=claim,
                            public=_text(state.public)), "BLUFF-20")
        return Reason(_("{claim} does not rank above the standing claim {standing}", claim=_text(claim),
                        standing=_text(state.standing)), "BLUFF-3")

    def _why_illegal(self, state: BluffState, action: Any) -> str:
        if isinstance(action, Reroll) and state.phase == CLAIM:
            said = self.describe_action(action, state)
            if state.rerolled:
                return Reason(_("{action} is not allowed: one re-throw per turn, and {player} has had it", action=said,
                                player=seat_label(state.active)), "BLUFF-18")
            if action.keep_shown is None:
                return Reason(_("{action} is not allowed: under these rules only one die may be thrown again", action=said),
                              "BLUFF-18")
            if action.keep_shown not in state.dice:
                return Reason(_("the kept die must be one of the dice {dice}, not {value}", dice=_text(state.dice),
                                value=shown_value(action.keep_shown)), "BLUFF-18")
            return Reason(_("showing {die} would leave no claim above {standing}", die=action.keep_shown,
                            standing=_text(state.standing)), "BLUFF-18")
        return super()._why_illegal(state, action)

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        if state.phase in (SEATING, PUBLIC, OVER):
            if state.public or state.dice or state.shown or state.rerolled or state.claimed_dice:
                raise bad(_("no dice are on the table in the phase {phase}", phase=state.phase))
        elif _safe_dice(state.public, 3) is None:
            raise bad(_("three public dice, listed from low to high, are on the table in the phase {phase}, not {dice}",
                        phase=state.phase, dice=_text(state.public)), "BLUFF-17")
        if state.phase == REROLL:
            if not state.rerolled or state.dice != self.shown_dice(state):
                raise bad(_("during a re-throw only the kept, shown die stays"), "BLUFF-18")
        else:
            _check_private_dice(state, bad)
        if state.shown and (not state.rerolled or state.shown not in state.dice):
            raise bad(_("the shown die {die} must be the die kept at a re-throw", die=shown_value(state.shown)), "BLUFF-18")
        if state.rerolled and state.phase not in (REROLL, CLAIM, ANSWER):
            raise bad(_("a re-throw happens within a turn, not in the phase {phase}", phase=state.phase), "BLUFF-18")
        if state.rerolled and not state.shown and self.rules.reroll != "one_or_both":
            raise bad(_("under these rules only one die may be thrown again"), "BLUFF-18")
        _check_standing(state, self.claims(), bad, self.rules.escalation == "strict")
        if state.history:  # BLUFF-20: every claim of the round was achievable with these public dice
            possible = _achievable_hands(state.public, (), 2, self.rules.kickers)
            impossible = [h for h in state.history if h not in possible]
            if impossible:
                raise bad(_("no two dice make {hand} with the public dice {public}", hand=impossible[0],
                            public=_text(state.public)), "BLUFF-20")
        if self.rules.claim == "hand" and state.claimed_dice:
            raise bad(_("under these rules a claim names a hand, not dice"), "BLUFF-20")
        if self.rules.claim == "dice":
            if (state.standing is None) != (state.claimed_dice == ()):
                raise bad(_("a dice claim names hidden dice along with its hand"), "BLUFF-20")
            if state.claimed_dice and (_safe_dice(state.claimed_dice) is None or not 1 <= len(state.claimed_dice) <= 2):
                raise bad(_("a dice claim names 1 or 2 hidden dice, not {dice}", dice=_text(state.claimed_dice)), "BLUFF-20")
        self._check_bets(state, bad)


register_game(GameSpec(
    name="liars-poker", title="liar’s kockapóker", engine=LiarsPokerGame,
    tables=(TableKind("equilibrium", "kocka.solver.solvers.bluff.liars:LIARS_EQUILIBRIUM"),
            TableKind("match", "kocka.solver.solvers.bluff.match:LIARS_MATCH")),
    agents=_BLUFF_AGENTS + (_EQUILIBRIUM_AGENT, AgentEntry(
        "adaptive", "kocka.agents.bots.adaptive_bluff:adaptive_factory",
        "two players: best reply to the opponent's learnt bets and claims, at most 0.1 chips/round below the equilibrium")),
    hint=_HINT,
    hint_parameters="kocka.agents.advice.bluff:LiarsPokerHintParams", judges=("equilibrium", "bayes"), **_BLUFF,
))
