"""HU chip bidding (*zseton licites*, RULES.md 2.2, HU-10..HU-19): a betting layer over the
Hungarian kockapóker scorecard game.

The scorecard game itself (HU-1..HU-8) is :class:`~kocka.solver.rules.scorecard.HungarianGame`;
this module never re-implements it. A :class:`ChipBiddingState` holds the scorecard state of
every player (``card``) and the betting: the chips each player has paid into the bank
(``paid``, the ante included; the bank is their sum), the stake ``s``, who has passed, and
the raise in progress.

Flow: the scorecard game is played (``phase = play``; chance and decisions are the card's
own). When a player's turn ends (``hu_bid.raise_timing = end_of_turn``, after his Fill) or
after each of his throws (``after_any_roll``), a player who has not passed may
:class:`Raise` or :class:`Decline` (``phase = raise``). After a raise the others answer in
seat order from the raiser's left (``phase = respond``): :class:`Hold`, :class:`Raise` or
:class:`Pass` (HU-13, option ``hu_bid.response``). The game ends early when all players but
one have passed (HU-15), or when all cards are full (HU-16).

Settlement is the pure function :func:`settle` (HU-15..HU-19); :meth:`ChipBiddingGame.returns`
is its result, each player's net chips.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Hashable, ClassVar, Iterable, Mapping, Sequence

from kocka.solver.base.errors import IllegalActionError, InvalidStateError, RulesError, either, shown
from kocka.solver.base.i18n import _
from kocka.solver.rules.base import TERMINAL, Game, Rules, TurnProgress
from kocka.solver.rules.spec import AgentEntry, GameSpec, register_game
from kocka.solver.rules.words import seat_label
from kocka.solver.rules.scorecard import HUNGARIAN_WORDS, Fill, HungarianGame, HungarianRules, Keep, ScorecardState

# ----------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------
_STACK = re.compile(r"stack:([1-9][0-9]*)")


@dataclass(frozen=True)
class ChipBiddingRules(Rules):
    """HU-10..HU-19 options (``hu_bid.*``) plus the scorecard options of
    :class:`HungarianRules` (``hu.house_negative``, ``same_face_groups``, ``boxes``).

    ``chips`` is ``unlimited`` (results are net balances) or ``stack:N`` (each player has N
    chips; one who cannot pay must pass), HU-10.
    """

    GAME: ClassVar[str] = "kockapoker-bid"
    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "raise_timing": ("end_of_turn", "after_any_roll"),
        "response": ("until_answered", "one_lap"),
        "tie": ("share", "first_seat"),
        "remainder": ("by_total", "fractional"),
        **HungarianRules.OPTIONS,
    }
    chips: str = "unlimited"
    raise_timing: str = "end_of_turn"
    response: str = "until_answered"
    tie: str = "share"
    remainder: str = "by_total"
    house_negative: str = HungarianRules.house_negative
    same_face_groups: str = HungarianRules.same_face_groups
    boxes: tuple[str, ...] = HungarianRules.boxes

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.chips != "unlimited" and not (isinstance(self.chips, str) and _STACK.fullmatch(self.chips)):
            raise RulesError(_("the rule option chips must be unlimited or stack:N with N at least 1, not {value}",
                               value=shown(self.chips)))
        # the scorecard rules check and normalise the card's boxes
        object.__setattr__(self, "boxes", self.scorecard_rules().boxes)

    def scorecard_rules(self) -> HungarianRules:
        """The rules of the underlying scorecard game (HU-1..HU-9)."""
        return HungarianRules(house_negative=self.house_negative, same_face_groups=self.same_face_groups, boxes=self.boxes)

    @property
    def stack(self) -> int | None:
        """Chips each player holds under ``stack:N``; None when unlimited."""
        match = _STACK.fullmatch(self.chips)
        return int(match.group(1)) if match else None


# ----------------------------------------------------------------------------------------
# Settlement (HU-15..HU-19), a pure function
# ----------------------------------------------------------------------------------------
Chips = int | Fraction


def settle(
    totals: Sequence[int], paid: Sequence[int], passed: Sequence[bool], rules: ChipBiddingRules | None = None
) -> tuple[Chips, ...]:
    """Each player's net result (chips received minus chips paid, HU-19); they sum to 0.

    ``totals`` are the final card totals, ``paid`` the chips each player paid into the bank
    (ante included), ``passed`` who passed. The bank is ``sum(paid)``.

    * HU-15: if only one player never passed, he takes the whole bank (totals do not matter).
    * HU-16, HU-18: otherwise the players with the highest total who never passed share the
      bank (``hu_bid.tie = first_seat``: only the first of the tied players in seat order
      counts as top).
    * HU-17, HU-18: if every top player passed, each gets a small prize: his c chips back and
      c more; the rest of the bank is shared by the players who never passed. If the bank
      cannot cover the small prizes, it is divided among the top players in proportion to
      what they paid.
    * HU-18: chips that do not divide evenly go one at a time to the receiving players by
      total (highest first), then seat (``hu_bid.remainder = by_total``); or every share is
      exact (``fractional``, :class:`~fractions.Fraction` results).

    >>> settle([231, 220, 245], [6, 6, 1], [False, False, True])  # worked example 2.3.5
    (0, -1, 1)
    """
    rules = ChipBiddingRules() if rules is None else rules
    n = len(paid)
    if len(totals) != n or len(passed) != n or n < 2:
        raise InvalidStateError(_("the settlement needs a total, a payment and a pass for each of 2 or more players"))
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in paid):
        raise InvalidStateError(_("every player pays at least the ante of 1 chip, not {paid}", paid=shown(paid)), rule="HU-11")
    if any(isinstance(t, bool) or not isinstance(t, int) for t in totals):
        raise InvalidStateError(_("the totals must be whole numbers, not {totals}", totals=shown(totals)))
    in_play = [p for p in range(n) if not passed[p]]
    if not in_play:
        raise InvalidStateError(_("the game ends before the last player passes"), rule="HU-15")

    bank = sum(paid)
    order = sorted(range(n), key=lambda p: (-totals[p], p))  # HU-18: who gets odd chips first
    received: list[Chips] = [0] * n

    def divide(amount: int, weights: Mapping[int, int]) -> None:
        whole = sum(weights.values())
        if rules.remainder == "fractional":
            for p, w in weights.items():
                received[p] += Fraction(amount * w, whole)
            return
        shares = {p: amount * w // whole for p, w in weights.items()}
        odd = amount - sum(shares.values())  # fewer than len(weights): each share lost < 1
        for p in [q for q in order if q in weights][:odd]:
            shares[p] += 1
        for p, share in shares.items():
            received[p] += share

    if len(in_play) == 1:  # HU-15
        received[in_play[0]] = bank
    else:
        best = max(totals)
        top = [p for p in range(n) if totals[p] == best]
        if rules.tie == "first_seat":
            top = top[:1]
        top_in_play = [p for p in top if not passed[p]]
        if top_in_play:  # HU-16, HU-18: the top players who never passed share the bank
            divide(bank, {p: 1 for p in top_in_play})
        else:
            prizes = {p: 2 * paid[p] for p in top}  # HU-17: c back plus c more
            if sum(prizes.values()) <= bank:
                for p, prize in prizes.items():
                    received[p] += prize
                divide(bank - sum(prizes.values()), {p: 1 for p in in_play})
            else:  # HU-18: the bank cannot cover them: in proportion to what each paid
                divide(bank, {p: paid[p] for p in top})
    return tuple(r - c for r, c in zip(received, paid))


# ----------------------------------------------------------------------------------------
# State and actions
# ----------------------------------------------------------------------------------------
PLAY, RAISE, RESPOND, OVER = "play", "raise", "respond", "over"


@dataclass(frozen=True)
class ChipBiddingState:
    """One position: the scorecard game and the betting.

    ``card`` is the scorecard state of all players; ``paid[p]`` the chips p has paid into
    the bank; ``stake`` the stake s; ``passed[p]`` whether p has passed. ``phase``: ``play``
    (the scorecard game moves), ``raise`` (``actor`` may raise), ``respond`` (``pending[0]``
    answers the raise of ``actor``, the last raiser), ``over``.
    """

    card: ScorecardState
    paid: tuple[int, ...]
    passed: tuple[bool, ...]
    stake: int = 1
    phase: str = PLAY
    actor: int = -1
    pending: tuple[int, ...] = ()

    @property
    def bank(self) -> int:
        """Every chip paid in (HU-16)."""
        return sum(self.paid)


@dataclass(frozen=True)
class Raise:
    """Pay s + 1 into the bank; the stake becomes s + 1 (HU-12, HU-13)."""


@dataclass(frozen=True)
class Decline:
    """Let a raise opportunity go (HU-12)."""


@dataclass(frozen=True)
class Hold:
    """Answer a raise by paying the current stake s in full (HU-13)."""


@dataclass(frozen=True)
class Pass:
    """Answer a raise by paying nothing; never raise or answer again (HU-13, HU-14)."""


# ----------------------------------------------------------------------------------------
# Game
# ----------------------------------------------------------------------------------------
class ChipBiddingGame(Game):
    """Hungarian kockapóker with chip bidding, HU-10..HU-19 over HU-1..HU-8 (2..6 players).

    Returns are the net chip results of :func:`settle`.
    """

    NAME = "kockapoker-bid"
    RULES = ChipBiddingRules
    STATE = ChipBiddingState
    ACTIONS = (Keep, Fill, Raise, Decline, Hold, Pass)
    rules: ChipBiddingRules

    def __init__(self, rules: ChipBiddingRules | None = None, num_players: int = 2) -> None:
        super().__init__(rules, num_players)
        self.card_game = HungarianGame(self.rules.scorecard_rules(), num_players=num_players)


    # ----- positions -----
    def new_initial_state(self) -> ChipBiddingState:
        """HU-11: every player has paid the ante of 1 chip; s = 1."""
        n = self.num_players
        return ChipBiddingState(card=self.card_game.new_initial_state(), paid=(1,) * n, passed=(False,) * n)

    def roll_key(self, state: ChipBiddingState) -> Hashable:
        """The card game's key: the same throw of the same turn on any card."""
        return self.card_game.roll_key(state.card)

    def current_player(self, state: ChipBiddingState) -> int:
        if state.phase == OVER:
            return TERMINAL
        if state.phase == RAISE:
            return state.actor
        if state.phase == RESPOND:
            return state.pending[0]
        return self.card_game.current_player(state.card)

    def can_pay(self, state: ChipBiddingState, player: int, amount: int) -> bool:
        """Whether ``player`` has ``amount`` chips left (always, with unlimited chips)."""
        stack = self.rules.stack
        return stack is None or stack - state.paid[player] >= amount

    def totals(self, state: ChipBiddingState) -> tuple[int, ...]:
        """Each player's card total so far (HU-8; final once the cards are full)."""
        return tuple(self.card_game.card_total(card) for card in state.card.cards)

    # ----- moves -----
    def _legal_actions(self, state: ChipBiddingState) -> list:
        if state.phase == PLAY:
            return self.card_game.legal_actions(state.card)
        if state.phase == RAISE:
            return [Raise(), Decline()]
        player = state.pending[0]
        answers: list = []
        if self.can_pay(state, player, state.stake):
            answers.append(Hold())
        if self.can_pay(state, player, state.stake + 1):
            answers.append(Raise())
        return answers + [Pass()]  # hu_bid.chips = stack:N: one who cannot pay must pass

    def _chance_outcomes(self, state: ChipBiddingState) -> Iterable[tuple[Any, float]]:
        return self.card_game.chance_outcomes(state.card)

    def _check_outcome(self, state: ChipBiddingState, outcome: Any) -> None:
        if state.phase != PLAY:
            raise IllegalActionError(_("no roll is due while the betting goes on"))
        # the card game checks the roll when it is applied

    def _check_action(self, state: ChipBiddingState, action: Any) -> None:
        if state.phase == PLAY:
            return  # the card game checks its own actions when they are applied
        if action in self._legal_for_check(state):
            return
        text = self.describe_action(action, state)
        if isinstance(action, (Hold, Raise)) and state.phase == RESPOND:
            player = state.pending[0]
            cost = state.stake + (1 if isinstance(action, Raise) else 0)
            raise IllegalActionError(_("{player} cannot {action}: it costs {cost} chips in all, more than the stack allows, "
                                       "and {paid} are already paid", player=seat_label(player), action=text, cost=cost,
                                       paid=state.paid[player]), rule="HU-10")
        if state.phase == RAISE:
            raise IllegalActionError(_("{action} is not a move now: {player} may raise or decline", action=text,
                                       player=seat_label(self.current_player(state))), rule="HU-12")
        if state.phase == RESPOND:
            raise IllegalActionError(_("{action} is not a move now: {player} may hold, raise or pass", action=text,
                                       player=seat_label(self.current_player(state))), rule="HU-13")
        raise IllegalActionError(_("the game is over, so {action} cannot be played", action=text))

    def _apply(self, state: ChipBiddingState, action: Any) -> ChipBiddingState:
        if state.phase == PLAY:
            return self._apply_card(state, action)
        if state.phase == RAISE:
            if isinstance(action, Decline):
                return self._resume(state)
            return self._raise(state, state.actor)
        player = state.pending[0]
        if isinstance(action, Raise):
            return self._raise(state, player)
        rest = state.pending[1:]
        if isinstance(action, Hold):
            state = replace(state, paid=self._pay(state.paid, player, state.stake), pending=rest)
        else:
            passed = state.passed[:player] + (True,) + state.passed[player + 1 :]
            state = replace(state, passed=passed, pending=rest)
            if passed.count(False) == 1:  # HU-15: the last player standing takes the bank
                return replace(state, phase=OVER, actor=-1, pending=())
        return state if state.pending else self._resume(state)

    def _apply_card(self, state: ChipBiddingState, action: Any) -> ChipBiddingState:
        """A move of the scorecard game, then the raise opportunity it may open (HU-12)."""
        mover = state.card.player
        rolled = self.card_game.is_chance_node(state.card)
        card = self.card_game.apply(state.card, action)
        state = replace(state, card=card)
        timing = self.rules.raise_timing
        opens = (timing == "end_of_turn" and isinstance(action, Fill)) or (timing == "after_any_roll" and rolled)
        if opens and not state.passed[mover] and self.can_pay(state, mover, state.stake + 1):
            return replace(state, phase=RAISE, actor=mover)
        return self._resume(state)

    def _raise(self, state: ChipBiddingState, raiser: int) -> ChipBiddingState:
        """HU-12, HU-13: pay s + 1; the other players answer, from the raiser's left."""
        stake = state.stake + 1
        paid = self._pay(state.paid, raiser, stake)
        if state.phase == RESPOND and self.rules.response == "one_lap":
            pending = state.pending[1:]  # a re-raise does not reopen the lap
        else:
            n = self.num_players
            others = [(raiser + i) % n for i in range(1, n)]
            pending = tuple(p for p in others if not state.passed[p])
        state = replace(state, paid=paid, stake=stake, phase=RESPOND, actor=raiser, pending=pending)
        return state if pending else self._resume(state)

    def _resume(self, state: ChipBiddingState) -> ChipBiddingState:
        """Back to the scorecard game, or the normal end once every card is full (HU-16)."""
        phase = OVER if self.card_game.is_terminal(state.card) else PLAY
        return replace(state, phase=phase, actor=-1, pending=())

    @staticmethod
    def _pay(paid: tuple[int, ...], player: int, amount: int) -> tuple[int, ...]:
        return paid[:player] + (paid[player] + amount,) + paid[player + 1 :]

    def _returns(self, state: ChipBiddingState) -> Sequence[float]:
        return tuple(float(r) for r in self.net_results(state))

    def net_results(self, state: ChipBiddingState) -> tuple[Chips, ...]:
        """HU-19: each player's chips received minus chips paid, exact (:func:`settle`)."""
        if not self.is_terminal(state):
            raise IllegalActionError(_("the results are settled only at the end of the game"))
        return settle(self.totals(state), state.paid, state.passed, self.rules)

    # ----- checks -----
    def _check_state(self, state: ChipBiddingState) -> None:
        n = self.num_players

        def bad(why: str, rule: str | None = None) -> InvalidStateError:
            return InvalidStateError(why, rule=rule)

        if state.phase not in (PLAY, RAISE, RESPOND, OVER):
            raise bad(_("the phase must be {options}, not {value}", options=either((PLAY, RAISE, RESPOND, OVER)),
                        value=shown(state.phase)))
        self.card_game.check_state(state.card)
        if not isinstance(state.paid, tuple) or len(state.paid) != n or any(
            isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in state.paid
        ):
            raise bad(_("the payments must be a chip count of at least the ante of 1 for each of the {count} players, not {value}",
                        count=n, value=shown(state.paid)), "HU-11")
        if not isinstance(state.passed, tuple) or len(state.passed) != n or any(not isinstance(p, bool) for p in state.passed):
            raise bad(_("the passes must be a yes or no for each of the {count} players, not {value}", count=n,
                        value=shown(state.passed)))
        if isinstance(state.stake, bool) or not isinstance(state.stake, int) or state.stake < 1:
            raise bad(_("the stake must be 1 or more, not {value}", value=shown(state.stake)))
        stack = self.rules.stack
        if stack is not None and max(state.paid) > stack:
            raise bad(_("the payments {paid} exceed the stack of {stack} chips", paid=shown(state.paid), stack=stack), "HU-10")
        standing = state.passed.count(False)
        if standing < 1 or (standing == 1 and state.phase != OVER):
            raise bad(_("the game ends as soon as only one player has not passed"), "HU-15")
        if state.phase == OVER:
            if standing > 1 and not self.card_game.is_terminal(state.card):
                raise bad(_("a game with two players still betting ends only when every card is full"), "HU-16")
        elif self.card_game.is_terminal(state.card) and state.phase == PLAY:
            raise bad(_("every card is full, so the game is over"), "HU-16")
        if state.phase in (PLAY, OVER) and (state.actor != -1 or state.pending):
            raise bad(_("no raise is in progress in the phase {phase}", phase=state.phase))
        if state.phase in (RAISE, RESPOND) and (state.actor not in range(n) or state.passed[state.actor]):
            raise bad(_("the raiser must be a player who has not passed, not {value}", value=shown(state.actor)), "HU-14")
        if state.phase == RAISE and (state.pending or not self.can_pay(state, state.actor, state.stake + 1)):
            raise bad(_("a chance to raise needs one chip more than the stake and nobody answering"), "HU-12")
        if state.phase == RESPOND:
            pending = state.pending
            if not pending or len(set(pending)) != len(pending) or any(
                p not in range(n) or p == state.actor or state.passed[p] for p in pending
            ):
                raise bad(_("the players to answer must be different players, other than the raiser, who have not passed, not {value}",
                            value=shown(pending)), "HU-13")

    # ----- JSON -----
    def _state_fields(self, state: ChipBiddingState) -> Mapping[str, Any]:
        return {
            "card": self.card_game.state_to_json(state.card),
            "paid": list(state.paid),
            "passed": list(state.passed),
            "stake": state.stake,
            "phase": state.phase,
            "actor": state.actor,
            "pending": list(state.pending),
        }

    def _state_from_fields(self, fields: Mapping[str, Any]) -> ChipBiddingState:
        unknown = set(fields) - {"card", "paid", "passed", "stake", "phase", "actor", "pending"}
        if unknown:
            raise InvalidStateError(_("the state has no field {fields}", fields=", ".join(sorted(map(str, unknown)))))
        return ChipBiddingState(
            card=self.card_game.state_from_json(fields["card"]),
            paid=tuple(fields["paid"]),
            passed=tuple(fields["passed"]),
            stake=fields["stake"],
            phase=fields["phase"],
            actor=fields["actor"],
            pending=tuple(fields["pending"]),
        )

    def action_box(self, action: Any) -> str | None:
        """The box a :class:`Fill` writes (the card game's)."""
        return self.card_game.action_box(action)

    def roller(self, state: ChipBiddingState) -> int | None:
        """The rolls are the scorecard game's: its player on turn throws them."""
        return state.card.player

    # the turn in play is the card's (HU-2), through the betting around it too
    def turn_progress(self, state: ChipBiddingState) -> TurnProgress:
        return self.card_game.turn_progress(state.card)

    def declared_box(self, state: ChipBiddingState) -> str | None:
        return self.card_game.declared_box(state.card)

    def box_scores_now(self, state: ChipBiddingState) -> dict[str, int]:
        """The card's, while the card is played (no box is written while the betting goes on)."""
        return self.card_game.box_scores_now(state.card) if state.phase == PLAY else {}

    def keep_action(self, state: ChipBiddingState, dice: tuple[int, ...]) -> Keep:
        return self.card_game.keep_action(state.card, dice)

    def describe_state(self, state: ChipBiddingState) -> str:
        """The position in words, in the language in force: the betting (who may raise or
        must answer), the stake, the bank, what each seat paid, who passed, then the card's
        position."""
        if state.phase == RAISE:
            betting = _("{player} may raise", player=seat_label(state.actor))
        elif state.phase == RESPOND:
            betting = _("{player} raised, to answer: {players}", player=seat_label(state.actor),
                        players=", ".join(seat_label(p) for p in state.pending))
        elif state.phase == OVER:
            betting = _("the game is over")
        else:
            betting = _("the card is played")
        passed = [seat_label(p) for p, flag in enumerate(state.passed) if flag]
        money = ", ".join([_("stake {stake}", stake=state.stake), _("bank {bank}", bank=state.bank),
                           _("paid {chips}", chips=", ".join(str(c) for c in state.paid)),
                           _("passed: {players}", players=", ".join(passed)) if passed else _("nobody passed")])
        return "; ".join([betting, money, self.card_game.describe_state(state.card)])


__all__ = ["ChipBiddingGame", "ChipBiddingRules", "ChipBiddingState", "Decline", "Hold", "Pass", "Raise", "settle"]


register_game(GameSpec(
    name="kockapoker-bid", title="chip-bidding kockapóker", engine=ChipBiddingGame, players=(2, 6),
    default_players=2, outcome="chips", words=HUNGARIAN_WORDS,
    view="kocka.agents.frontends.games.views:render_chip_bidding",
    agents=(
        AgentEntry("bettor", "kocka.agents.bots.betting:bettor_factory",
                   "raises, holds or passes by P(finishing top) from the stored score distributions (target table)"),
        AgentEntry("score-only", "kocka.agents.bots.betting:score_only_factory",
                   "optimal card play, never raises, holds every raise"),
        AgentEntry("reckless", "kocka.agents.bots.betting:reckless_factory",
                   "optimal card play, raises at every chance (re-raises up to a stake of 10)"),
        AgentEntry("heuristic", "kocka.agents.bots.heuristic:chip_bidding_heuristic",
                   "a human-like rule set, documented in kocka.agents.bots.heuristic"),
    ),
    judges=("bettor",),
))
