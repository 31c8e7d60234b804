"""The engine core of the BLUFF games (BLUFF-1..BLUFF-6): the options every bluff game
has, seating, chips, rounds, the end, claims and stakes, observations, JSON and the state
checks; and what the three games' specs share. :mod:`kocka.solver.rules.bluff` describes
the family (hidden information, chips, how stakes are listed, the bounds).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Iterable, Mapping, Sequence

from kocka.solver.base.dice import Dice, outcome_distribution, remove, validate_dice
from kocka.solver.base.errors import (DiceError, IllegalActionError, InvalidStateError, KockaError, Reason, RulesError,
                                      either, shown)
from kocka.solver.base.i18n import N_, _, ngettext
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, Rules, jsonable, tuplify
from kocka.solver.rules.bluff_claims import (
    TwoDiceClaim, _claim_from_json, _text, _whole, all_claims, claim_rank, is_true,
)
from kocka.solver.rules.bluff_state import (
    ANSWER, CLAIM, OVER, PUBLIC, REROLL, ROLL, SEATING, _CHANCE_PHASES, Accept, Bet, BluffState, Claim, ClaimRange,
    Pass,
)
from kocka.solver.rules.spec import AgentEntry
from kocka.solver.rules.words import Words, claim_range_text, claim_text, seat_label, snake

MAX_CHIPS = 10**6
"""The most chips a player may start with (``start_chips``, each entry of a state's
``initial``), and the most a bank may start with (``initial_bank``)."""
MAX_ROUNDS = 10**6
"""The most rounds a game lasts: the largest ``max_rounds``; with ``max_rounds = None`` a
game that nobody has lost by then ends after this many rounds."""


# ----------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _BluffRules(Rules):
    """Options every bluff game has (BLUFF-1..BLUFF-6) plus the engine parameters."""

    OPTIONS: ClassVar[Mapping[str, tuple]] = {
        "seating": ("roll", "given"),
        "escalation": ("strict", "off"),
        "truth": ("exact", "at_least"),
        "payoff": ("win_share", "chips"),
    }
    seating: str = "roll"
    escalation: str = "strict"
    truth: str = "exact"
    start_chips: int = 10
    max_rounds: int | None = None
    payoff: str = "win_share"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not _whole(self.start_chips, 1, MAX_CHIPS):
            raise RulesError(_("the starting chips must be a whole number from 1 to {most}, not {value}",
                               most=MAX_CHIPS, value=shown(self.start_chips)))
        rounds = self.max_rounds
        if isinstance(rounds, str):  # from the command line: "none" or a number
            rounds = None if rounds.lower() in ("none", "") else int(rounds) if rounds.isdigit() else rounds
            object.__setattr__(self, "max_rounds", rounds)
        if rounds is not None and not _whole(rounds, 1, MAX_ROUNDS):
            raise RulesError(_("the rule option max_rounds must be none, for no limit, or a whole number from 1 to {most}, "
                               "not {value}", most=MAX_ROUNDS, value=shown(self.max_rounds)))

    @property
    def round_limit(self) -> int:
        """The number of rounds after which the game ends at the latest."""
        return MAX_ROUNDS if self.max_rounds is None else self.max_rounds


# ----------------------------------------------------------------------------------------
# Engine core
# ----------------------------------------------------------------------------------------


class _BluffGame(Game):
    """What the three bluff games share: seating (BLUFF-1), chips (BLUFF-2), the round
    structure (BLUFF-3), the end (BLUFF-6), claims and stakes, observations and JSON.

    The rules queries that bots and solvers ask are public methods: :meth:`claims_above`
    and :meth:`claimable` (which claims may be made), :meth:`claim_true` (whether a claim
    is true of dice), :meth:`claim_strength`, :meth:`hidden_dice` and :meth:`shown_dice`,
    :meth:`stake_range`, :meth:`candidate_stakes`, :meth:`claim_ranges` and
    :meth:`legal_choices` (:mod:`kocka.solver.rules.bluff` says how stakes are listed)."""

    RULES: ClassVar[type[Rules]] = _BluffRules
    STATE: ClassVar[type] = BluffState
    rules: Any

    # ----- starting positions -----
    def new_initial_state(self) -> BluffState:
        """BLUFF-1, BLUFF-2: everyone holds ``start_chips``; the seating rolls come first
        (``seating = roll``), or seat order is player order (``given``) and seat 0 starts."""
        chips = (self.rules.start_chips,) * self.num_players
        if self.rules.seating == "roll":
            return self.STATE(phase=SEATING, chips=chips, initial=chips, seating=(tuple(range(self.num_players)),))
        return self.new_round_state(chips, starter=0)

    def new_round_state(
        self, chips: Sequence[int], starter: int = 0, bank: int = 0, order: Sequence[int] | None = None
    ) -> BluffState:
        """The start of a round, with no claim standing: ``starter`` is about to roll (the
        public dice in liar's poker). ``chips`` (1..:data:`MAX_CHIPS` each) become the
        ``payoff = chips`` baseline and ``bank`` (0..:data:`MAX_CHIPS`) the starting bank;
        ``order`` is the seat order (default ``0..n-1``). With ``max_rounds = 1`` this is
        one round as a game of its own (see :func:`single_round_game`)."""
        n = self.num_players
        chips = tuple(chips)
        seat_order = tuple(range(n)) if order is None else tuple(order)
        if len(chips) != n or not all(_whole(c, 1, MAX_CHIPS) for c in chips):
            raise InvalidStateError(ngettext("a round starts with {n} player holding 1 to {most} chips, not {chips}",
                                             "a round starts with {n} players holding 1 to {most} chips each, not {chips}",
                                             n, most=MAX_CHIPS, chips=_text(chips)))
        if sorted(seat_order) != list(range(n)):
            raise InvalidStateError(_("the seat order must name each of the {count} players once, not {order}", count=n,
                                     order=_text(seat_order)))
        if starter not in seat_order:
            raise InvalidStateError(_("the starting player must be one of the {count} players, not {value}", count=n,
                                     value=shown(starter)))
        if not _whole(bank, 0, MAX_CHIPS):
            raise InvalidStateError(_("the bank must hold 0 to {most} chips, not {value}", most=MAX_CHIPS, value=shown(bank)))
        base = self.STATE(phase=ROLL, chips=chips, initial=chips, bank=bank, initial_bank=bank, order=seat_order)
        state = self._start_round(base, starter)
        self.check_state(state)
        return state

    # ----- turn order -----
    def current_player(self, state: BluffState) -> int:
        if state.phase in _CHANCE_PHASES:
            return CHANCE
        if state.phase == OVER:
            return TERMINAL
        if state.phase == CLAIM:
            return state.active
        return self._responder(state)

    def _responder(self, state: BluffState) -> int:
        """Who answers now: the next seat after the claimant, then the following ones."""
        return self._next_seat(state, state.active, 1 + state.answered)

    def _next_seat(self, state: BluffState, player: int, steps: int = 1) -> int:
        order = state.order
        return order[(order.index(player) + steps) % len(order)]

    def _is_top(self, state: BluffState) -> bool:
        """BLUFF-5: the standing claim is the highest claim the next claimant could make."""
        return state.standing == self._top_claim(state)

    # ----- chance -----
    def _chance_outcomes(self, state: BluffState) -> Iterable[tuple[Dice, float]]:
        if state.phase == PUBLIC:
            return outcome_distribution(3)
        if state.phase == REROLL and state.shown:
            return outcome_distribution(1)
        return outcome_distribution(2)

    def _check_outcome(self, state: BluffState, outcome: Any) -> None:
        wanted = len(self._chance_outcomes(state)[0][0])  # type: ignore[index]
        try:
            dice = validate_dice(outcome, wanted)
        except DiceError:
            raise IllegalActionError(ngettext("a roll of {n} die is due here, not {dice}", "a roll of {n} dice is due here, not {dice}",
                                              wanted, dice=shown(outcome))) from None
        if dice != tuple(outcome):
            raise IllegalActionError(_("a roll must list its dice from low to high, not {dice}", dice=shown(outcome)))

    def _apply(self, state: BluffState, action: Any) -> BluffState:
        if state.phase == SEATING:
            return self._apply_seating_roll(state, sum(action))
        if state.phase == ROLL:
            return replace(state, phase=CLAIM, dice=tuple(action))
        return self._apply_game(state, action)

    def _apply_game(self, state: BluffState, action: Any) -> BluffState:
        raise NotImplementedError

    def _apply_seating_roll(self, state: BluffState, total: int) -> BluffState:
        """BLUFF-1: the players of the first undecided block roll one by one; then they sit
        by decreasing sum, and those with equal sums form a new block that rolls again."""
        at = next(i for i, block in enumerate(state.seating) if len(block) > 1)
        block, rolls = state.seating[at], state.seat_rolls + (total,)
        if len(rolls) < len(block):
            return replace(state, seat_rolls=rolls)
        sums = sorted(set(rolls), reverse=True)
        split = tuple(tuple(p for p, r in zip(block, rolls) if r == s) for s in sums)
        seating = state.seating[:at] + split + state.seating[at + 1 :]
        if any(len(b) > 1 for b in seating):
            return replace(state, seating=seating, seat_rolls=())
        order = tuple(b[0] for b in seating)
        return self._start_round(replace(state, seating=(), seat_rolls=(), order=order), order[0])

    # ----- rounds and the end -----
    def _start_round(self, state: BluffState, starter: int) -> BluffState:
        """A new round with no standing claim (BLUFF-3); ``starter`` rolls first."""
        return replace(
            state, phase=ROLL, active=starter, dice=(), public=(), shown=0, rerolled=False,
            standing=None, history=(), claimed_dice=(), stake=0, bets=(), answered=0,
        )  # fmt: skip

    def _end_round(self, state: BluffState, next_starter: int) -> BluffState:
        """The round is over: end the game (BLUFF-6, ``max_rounds``, :data:`MAX_ROUNDS`) or
        start the next."""
        state = replace(state, rounds=state.rounds + 1)
        if 0 in state.chips or state.rounds >= self.rules.round_limit:
            return self._game_over(state)
        return self._start_round(state, next_starter)

    def _game_over(self, state: BluffState) -> BluffState:
        return replace(self._start_round(state, -1), phase=OVER)

    def final_scores(self, state: BluffState) -> tuple[float, ...]:
        """The chips each seat holds (the returns are win shares)."""
        self.returns(state)  # checks that the game is over
        return tuple(float(c) for c in state.chips)

    def _returns(self, state: BluffState) -> Sequence[float]:
        """BLUFF-6: the m players with the most chips get 1/m each (``payoff = win_share``);
        or each player's chip change since :attr:`BluffState.initial` (``payoff = chips``)."""
        if self.rules.payoff == "chips":
            return tuple(float(c - i) for c, i in zip(state.chips, state.initial))
        best = max(state.chips)
        winners = state.chips.count(best)
        return tuple(1.0 / winners if c == best else 0.0 for c in state.chips)

    @staticmethod
    def _pay(chips: tuple[int, ...], payer: int, payee: int, amount: int) -> tuple[int, ...]:
        moved = list(chips)
        moved[payer] -= amount
        moved[payee] += amount
        return tuple(moved)

    # ----- claims (public rules queries for bots and solvers) -----
    def claims(self) -> tuple[Any, ...]:
        """Every claim of these rules, lowest first (the top claim last)."""
        raise NotImplementedError

    def claims_above(self, beaten: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> list:
        """The claims a claimant may make when ``beaten`` is the claim to beat (None: no
        claim stands), lowest first: strictly higher under ``bluff.escalation = strict``,
        any with ``off`` (BLUFF-3). Liar's poker also needs the ``public`` dice and the
        ``shown`` die (BLUFF-18, BLUFF-20); the two-dice games ignore them."""
        raise NotImplementedError

    def claimable(self, state: BluffState) -> list:
        """The claims the active player may make in ``state``, lowest first (the claims
        of :meth:`legal_actions`)."""
        return self.claims_above(state.standing, state.public, self.shown_dice(state))

    def shown_dice(self, state: BluffState) -> Dice:
        """The private die the active player showed on a re-throw (liar's poker), or ()."""
        return (state.shown,) if state.shown else ()

    def hidden_dice(self, state: BluffState) -> Dice:
        """The active player's private dice that the others cannot see."""
        return remove(state.dice, (state.shown,)) if state.shown else state.dice

    def claim_true(self, claim: Any, hidden: Sequence[int], public: Sequence[int] = (), shown: Sequence[int] = ()) -> bool:
        """Whether ``claim`` is true (BLUFF-4, ``bluff.truth``) for a claimant whose private
        dice are ``hidden`` (those the others cannot see) and ``shown``, with the
        ``public`` dice of liar's poker (BLUFF-20)."""
        return is_true(claim, hidden, self.rules)

    def claim_strength(self, claim: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> int:
        """The position of ``claim`` in :meth:`claims` (0 = lowest); a dice claim
        (``liar.claim = dice``) ranks as the hand it names."""
        return claim_rank(claim)

    def claim_as_made(self, state: BluffState) -> Any:
        """The standing claim as its claimant made it: under ``liar.claim = dice`` the
        hidden dice he named (``state.standing`` is the hand they make)."""
        return state.standing

    def _claim_true(self, state: BluffState) -> bool:
        """BLUFF-4: is the standing claim true of the active player's dice?"""
        return self.claim_true(self.claim_as_made(state), self.hidden_dice(state), state.public, self.shown_dice(state))

    # ----- stakes and the legal actions -----
    def stake_range(self, state: BluffState) -> range:
        """Every stake the active player may put on a claim in ``state`` (BLUFF-12); Abázs
        has no stakes: 0 alone."""
        return range(0, 1)

    def candidate_stakes(self, state: BluffState) -> tuple[int, ...]:
        """The stakes :meth:`legal_actions` lists with each claim, smallest first
        (:mod:`kocka.solver.rules.bluff` says which, and why they suffice); every stake of
        :meth:`stake_range` is legal."""
        return (0,)

    def claim_ranges(self, state: BluffState) -> list[ClaimRange]:
        """Each claim the active player may make in ``state``, with its stakes, lowest
        claim first; empty where nobody claims."""
        self.check_state(state)
        return self._claim_ranges(state)

    def legal_choices(self, state: BluffState) -> list:
        """The legal decisions with each claim given once, as a :class:`ClaimRange`, and
        every other action as :meth:`legal_actions` gives it: as many entries as there are
        claims and answers, whatever the chips."""
        self.check_state(state)
        if self.current_player(state) < 0:
            return []
        return self._claim_ranges(state) + self._other_actions(state)

    def choice_to_json(self, choice: Any, state: BluffState, lang: str | None = None) -> dict:
        """A claim range comes once, with its stakes as a range: ``stake`` ``{"min": ...,
        "max": ...}`` beside an ``action`` that carries the smallest stake (any stake of the
        range may be sent instead, docs/PROTOCOL.md); other choices as the base says."""
        if not isinstance(choice, ClaimRange):
            return super().choice_to_json(choice, state, lang)
        lo, hi = choice.min_stake, choice.max_stake
        action = choice.with_stake(lo)
        label = self.describe_action(action, state) if lo == hi else claim_range_text(choice.claim, lo, hi)
        return {"action": self.action_to_json(action), "label": label, "stake": {"min": lo, "max": hi}}

    def _claim_ranges(self, state: BluffState) -> list[ClaimRange]:
        if state.phase != CLAIM:
            return []
        stakes = self.stake_range(state)
        return [ClaimRange(c, stakes[0], stakes[-1]) for c in self.claimable(state)]

    def _legal_actions(self, state: BluffState) -> list:
        claims: list = []
        if state.phase == CLAIM:
            stakes = self.candidate_stakes(state)
            claims = [Claim(c, k) for c in self.claimable(state) for k in stakes]
        return claims + self._other_actions(state)

    def _other_actions(self, state: BluffState) -> list:
        """The legal actions other than claims (answers; re-throws in liar's poker)."""
        raise NotImplementedError

    def _check_action(self, state: BluffState, action: Any) -> None:
        """Exact legality: a claim with any stake of :meth:`stake_range` (not only the
        listed candidates), or one of the other legal actions."""
        if isinstance(action, Claim) and state.phase == CLAIM:
            stakes = self.stake_range(state)
            legal = _whole(action.stake, stakes[0], stakes[-1]) and action.claim in self.claimable(state)
        else:
            legal = action in self._other_actions(state)
        if not legal:
            raise IllegalActionError(self._why_illegal(state, action))

    def claim_history(self, state: BluffState) -> tuple:
        """The state's ``history`` (BLUFF-3)."""
        return state.history

    # ----- hidden information -----
    def observation(self, state: BluffState, player: int) -> dict:
        """What ``player`` may see (docs/STATE.md): the state document with every die he
        may not see replaced by ``null``. The active player sees his private dice; the
        others see only the die shown on a re-throw. Public dice, claims, stakes, bets,
        chips, seating rolls and the dice of the latest reveal are public."""
        if not _whole(player, 0, self.num_players - 1):
            raise KockaError(_("the observer must be one of the {count} players, not {value}", count=self.num_players,
                                value=shown(player)))
        doc = self.state_to_json(state)
        if player != state.active:
            doc["state"]["dice"] = list(self.shown_dice(state)) + [None] * len(self.hidden_dice(state))
        doc["observer"] = player
        return doc

    # ----- JSON -----
    def _state_fields(self, state: BluffState) -> Mapping[str, Any]:
        # converted here: the base converts dataclasses and tuples, not the values of a dict;
        # a bank at the start is rare (one round set up with one), so documents without it stay as they were
        return {
            f.name: jsonable(getattr(state, f.name))
            for f in dataclasses.fields(state)
            if f.name != "initial_bank" or state.initial_bank != 0
        }

    def _state_from_fields(self, fields: Mapping[str, Any]) -> BluffState:
        known = {f.name for f in dataclasses.fields(self.STATE)}
        unknown = set(fields) - known
        if unknown:
            raise InvalidStateError(_("the state has no field {fields}", fields=", ".join(sorted(map(str, unknown)))))
        _check_json_types(self.NAME, fields)
        values = tuplify(dict(fields))
        try:
            values["standing"] = _claim_from_json(fields.get("standing"))
            if "history" in fields:
                history = fields["history"]
                if not isinstance(history, (list, tuple)):
                    raise IllegalActionError(_("the history is a list of claims, not {value}", value=shown(history)))
                values["history"] = tuple(_claim_from_json(c) for c in history)
            elif values["standing"] is not None:
                # documents written before the field existed: the standing claim opened the round
                values["history"] = (values["standing"],)
        except IllegalActionError as exc:
            raise InvalidStateError(_("the standing claim or the history is malformed: {problem}", problem=exc)) from None
        return self.STATE(**values)

    def _action_from_mapping(self, doc: Mapping[str, Any]) -> Any:
        """As :meth:`Game._action_from_mapping`, with the nested claim of a :class:`Claim`."""
        if doc.get("type") == "Claim":
            unknown = set(doc) - {"type", "claim", "stake"}
            if unknown or "claim" not in doc:
                raise IllegalActionError(_("a claim action has the fields claim and stake, not {fields}",
                                           fields=", ".join(sorted(map(str, doc)))))
            return Claim(_claim_from_json(doc["claim"]), doc.get("stake", 0))  # type: ignore[arg-type]
        return super()._action_from_mapping(doc)

    def with_stake(self, action: Any, stake: int) -> Claim | None:
        """A claim with ``stake`` chips on it (BLUFF-12); None for the other actions."""
        return replace(action, stake=stake) if isinstance(action, Claim) else None

    def describe_state(self, state: BluffState) -> str:
        """The position in words, for messages: who acts, the standing claim, the chips."""
        player = seat_label(state.active)
        if state.phase == SEATING:
            doing = _("the players roll for their seats")
        elif state.phase == OVER:
            doing = ngettext("the game is over after {n} round", "the game is over after {n} rounds", state.rounds)
        elif state.phase == ANSWER:
            doing = _("{player} answers the claim of {claimant}", player=seat_label(self._responder(state)),
                      claimant=player)
        elif state.phase in _DOING:
            doing = _(_DOING[state.phase], player=player)
        else:
            doing = _("{player} is in phase {phase}", player=player, phase=shown(state.phase))
        if state.standing is None:
            standing = [_("no claim stands")]
        elif state.claimed_dice:
            standing = [_("the standing claim is {claim}, naming the hidden dice {dice}",
                          claim=claim_text(state.standing), dice=_text(state.claimed_dice))]
        else:
            standing = [_("the standing claim is {claim}", claim=claim_text(state.standing))]
        if state.standing is not None and state.stake:
            standing.append(_("stake {stake}", stake=state.stake))
        chips = [_("chips {chips}", chips=", ".join(str(c) for c in state.chips))]
        if state.bank:
            chips.append(_("bank {bank}", bank=state.bank))
        return "; ".join([doing, ", ".join(standing), ", ".join(chips)])

    # ----- checks -----
    def _why_illegal(self, state: BluffState, action: Any) -> str:
        if type(action) not in self.ACTIONS:
            kinds = ", ".join(snake(a.__name__).replace("_", " ") for a in self.ACTIONS)
            return Reason(_("that is not a move of this game; its moves are {moves}", moves=kinds))
        said = self.describe_action(action, state)
        if state.phase == CLAIM and isinstance(action, Claim):
            stakes = self.stake_range(state)
            if not _whole(action.stake, stakes[0], stakes[-1]):
                return self._why_stake_illegal(state, action)
            why = self._why_claim_illegal(state, action.claim)
            return Reason(_("{action} is not allowed: {reason}", action=said, reason=why), getattr(why, "rule", None))
        if state.phase == ANSWER:
            responder = self._responder(state)
            if isinstance(action, Accept) and self._is_top(state):
                return Reason(_("the top claim {claim} cannot be accepted: it must be challenged",
                                claim=_text(state.standing)), "BLUFF-5")
            if isinstance(action, Pass) and self.must_bet(state):
                return Reason(_("{player} must bet on the top claim {claim}", player=seat_label(responder),
                                claim=_text(state.standing)), "BLUFF-5")
            if isinstance(action, Bet):
                return Reason(_("{player} holds {chips} chips, fewer than the stake {stake}, so cannot bet",
                                player=seat_label(responder), chips=state.chips[responder], stake=state.stake), "BLUFF-13")
        return Reason(_("{action} is not a move now", action=said))

    def _why_stake_illegal(self, state: BluffState, action: Claim) -> str:
        return Reason(_("claims in this game carry no stake, not {stake}", stake=shown(action.stake)), "BLUFF-9")

    def _why_claim_illegal(self, state: BluffState, claim: Any) -> str:
        """Why ``claim`` is not among :meth:`claimable` (two-dice games)."""
        if claim not in self.claims():
            return Reason(_("{claim} is not a claim of this ranking", claim=_text(claim)), "BLUFF-7")
        return Reason(_("{claim} does not rank above the standing claim {standing}", claim=_text(claim),
                        standing=_text(state.standing)), "BLUFF-3")

    def must_bet(self, state: BluffState) -> bool:
        """Whether the player to answer must bet (BLUFF-5); never in Abázs."""
        return False

    def _check_state(self, state: BluffState) -> None:
        n = self.num_players

        def bad(why: str, rule: str | None = None) -> InvalidStateError:
            return InvalidStateError(why, rule=rule)

        def count(value: Any) -> bool:
            return not isinstance(value, bool) and isinstance(value, int) and value >= 0

        if state.phase not in self._phases():
            raise bad(_("the phase must be {options}, not {value}", options=either(self._phases()), value=shown(state.phase)))
        for name in ("chips", "initial"):
            value = getattr(state, name)
            if not isinstance(value, tuple) or len(value) != n or not all(count(c) for c in value):
                raise bad(ngettext("the state field {name} must be {n} chip count, not {value}",
                                    "the state field {name} must be {n} chip counts, not {value}", n, name=name,
                                    value=_text(value)))
        if not all(1 <= c <= MAX_CHIPS for c in state.initial):
            raise bad(_("every player starts with 1 to {most} chips, not {chips}", most=MAX_CHIPS, chips=_text(state.initial)))
        if not _whole(state.initial_bank, 0, MAX_CHIPS):
            raise bad(_("a bank starts with 0 to {most} chips, not {value}", most=MAX_CHIPS, value=shown(state.initial_bank)))
        if not count(state.bank):
            raise bad(_("the bank must be a chip count, not {value}", value=shown(state.bank)))
        began = sum(state.initial) + state.initial_bank
        if sum(state.chips) + state.bank != began:
            raise bad(_("the chips do not add up: the players and the bank hold {now} in all, but the game began with {began}",
                        now=sum(state.chips) + state.bank, began=began), "BLUFF-2")
        limit = self.rules.round_limit
        if not _whole(state.rounds, 0, limit):
            raise bad(_("the number of rounds played must be from 0 to {most}, not {value}", most=limit, value=shown(state.rounds)))
        if state.phase != OVER and state.rounds >= limit:
            raise bad(_("{rounds} rounds are played and the game ends after {most}, yet it goes on", rounds=state.rounds, most=limit))
        if state.phase == OVER and 0 not in state.chips and state.rounds < limit:
            raise bad(_("the game ends when a player has no chips left or after {most} rounds, but the chips are {chips} "
                        "after {rounds} rounds", most=limit, chips=_text(state.chips), rounds=state.rounds), "BLUFF-6")
        if state.phase not in (ANSWER, OVER) and 0 in state.chips:
            raise bad(_("the game ends when a player has no chips left, but the chips are {chips}", chips=_text(state.chips)),
                      "BLUFF-6")
        if state.phase == SEATING:
            self._check_seating(state, bad)
        else:
            if state.seating or state.seat_rolls or not isinstance(state.order, tuple) or sorted(state.order) != list(range(n)):
                raise bad(_("once seated, the seat order names each of the {count} players once, not {order}", count=n,
                            order=_text(state.order)), "BLUFF-1")
            if (state.active == -1) != (state.phase == OVER) or (state.active != -1 and state.active not in state.order):
                raise bad(_("the active player cannot be {value} in the phase {phase}", value=shown(state.active), phase=state.phase))
        if state.revealed is not None:
            revealed = state.revealed
            if not (isinstance(revealed, tuple) and len(revealed) == 2 and _whole(revealed[0], 0, n - 1)
                    and _safe_dice(revealed[1], 2) is not None):
                raise bad(_("the revealed dice are a player and two dice listed from low to high, not {value}", value=_text(revealed)))
            if state.rounds == 0:
                raise bad(_("dice are revealed when a round ends, yet no round has ended"), "BLUFF-3")
        self._check_turn(state, bad)

    def _check_seating(self, state: BluffState, bad: Any) -> None:
        n = self.num_players
        blocks = state.seating if isinstance(state.seating, tuple) else ()
        players = [p for block in blocks if isinstance(block, tuple) for p in block]
        if not blocks or sorted(players) != list(range(n)) or not all(isinstance(b, tuple) and b for b in blocks):
            raise bad(_("the seating must put each of the {count} players in one group, not {value}", count=n,
                        value=_text(state.seating)), "BLUFF-1")
        rolling = next((b for b in blocks if len(b) > 1), None)
        if rolling is None or len(state.seat_rolls) >= len(rolling):
            raise bad(_("nobody is left to roll for a seat"), "BLUFF-1")
        if any(r not in range(2, 13) for r in state.seat_rolls):
            raise bad(_("seating rolls are sums from 2 to 12, not {value}", value=_text(state.seat_rolls)), "BLUFF-1")
        if state.order or state.active != -1 or state != replace(
            self.STATE(phase=SEATING, chips=state.chips, initial=state.initial, bank=state.bank),
            seating=state.seating, seat_rolls=state.seat_rolls,
        ):
            raise bad(_("nothing but the seating rolls can happen before the seating is decided"), "BLUFF-1")
        if state.chips != state.initial or state.bank != 0 or state.rounds != 0 or state.revealed is not None:
            raise bad(_("no chips move before the seating is decided"), "BLUFF-1")

    def _check_turn(self, state: BluffState, bad: Any) -> None:
        """Game-specific field checks (dice, claims, stakes, bets)."""

    def _phases(self) -> tuple[str, ...]:
        return (SEATING, ROLL, CLAIM, ANSWER, OVER)


def _check_json_types(game: str, fields: Mapping[str, Any]) -> None:
    """Refuse the fields of a state document that have the wrong JSON type, before any
    check compares them: Python takes ``0.0 == 0 == False``, so a float or a boolean where
    a whole number belongs passes ``in range(...)`` and then fails as an index, and an
    object where an array belongs fails in a sum. The types come from the annotations of
    :class:`BluffState`: a ``tuple`` or ``Dice`` field is an array (null too where the
    annotation allows None), a ``bool`` one a boolean, an ``int`` one an integer; no
    number anywhere in a state is a float, and a boolean sits only in a ``bool`` field."""
    kinds = {f.name: str(f.type) for f in dataclasses.fields(BluffState)}
    for name, value in fields.items():
        kind = kinds.get(name, "")
        if value is None and kind.endswith("| None"):
            continue
        if kind.startswith("tuple") or kind == "Dice":
            want, fits = _("a list"), isinstance(value, (list, tuple))
        elif kind == "bool":
            want, fits = _("true or false"), isinstance(value, bool)
        elif kind == "int":
            want, fits = _("a whole number"), isinstance(value, int) and not isinstance(value, bool)
        else:
            want, fits = "", True
        if not fits:
            raise InvalidStateError(_("the state field {name} must be {kind}, not {value}", name=name, kind=want, value=_text(value)))
        stray = _stray_number(value, booleans=kind == "bool")
        if stray is not None:
            raise InvalidStateError(_("the state field {name} holds {value}, where only whole numbers belong", name=name,
                                  value=shown(stray)))


def _stray_number(value: Any, booleans: bool) -> float | bool | None:
    """The first float inside a JSON value (or boolean, unless ``booleans``), else None."""
    if isinstance(value, bool):
        return None if booleans else value
    if isinstance(value, float):
        return value
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, (list, tuple)) else ()
    for item in items:
        stray = _stray_number(item, booleans)
        if stray is not None:
            return stray
    return None


def _safe_dice(dice: Any, count: int | None = None) -> Dice | None:
    """``dice`` if it is a sorted tuple of valid dice (of ``count`` dice), else None."""
    try:
        valid = validate_dice(dice, count)
    except DiceError:
        return None
    return valid if valid == dice else None


class _TwoDiceClaims:
    """Claims of the two-dice games (Abázs and the bidding bluff): the ``ranking`` option's
    list (BLUFF-7), whose last is the top claim."""

    def claims(self) -> tuple[TwoDiceClaim, ...]:
        """Every claim of the ranking, lowest first."""
        return all_claims(self.rules.ranking)

    def claims_above(self, beaten: Any, public: Sequence[int] = (), shown: Sequence[int] = ()) -> list[TwoDiceClaim]:
        """The claims allowed when ``beaten`` is the claim to beat (BLUFF-3: strictly
        higher, any under ``escalation = off``; None: any), lowest first."""
        claims = self.claims()
        if beaten is None or self.rules.escalation == "off":
            return list(claims)
        return list(claims[claim_rank(beaten) + 1 :])

    def _top_claim(self, state: BluffState) -> TwoDiceClaim:
        return self.claims()[-1]


def _check_private_dice(state: BluffState, bad: Any) -> None:
    """The active player's two dice exist exactly from his roll until the round moves on."""
    if state.phase in (CLAIM, ANSWER):
        if _safe_dice(state.dice, 2) is None:
            raise bad(_("the active player holds two dice listed from low to high, not {dice}", dice=_text(state.dice)))
    elif state.dice != () and state.phase != REROLL:
        raise bad(_("nobody holds private dice in the phase {phase}, not {dice}", phase=state.phase, dice=_text(state.dice)))


def _check_standing(state: BluffState, claims: Sequence[Any], bad: Any, strict: bool) -> None:
    """The standing claim and the round's claim history (BLUFF-3): claims of these rules,
    ending with the standing claim, each above the one before under ``strict`` escalation."""
    if state.standing is not None and state.standing not in claims:
        raise bad(_("the standing claim {claim} is not a claim of these rules", claim=_text(state.standing)))
    history = state.history
    if not isinstance(history, tuple) or (history[-1:] != ((state.standing,) if state.standing is not None else ())):
        if state.standing is None:
            raise bad(_("no claim stands, so the claim history must be empty, not {history}", history=_text(history)))
        raise bad(_("the claim history {history} must end with the standing claim {claim}", history=_text(history),
                    claim=_text(state.standing)))
    for claim in history:
        if claim not in claims:
            raise bad(_("the claim {claim} in the history is not a claim of these rules", claim=_text(claim)))
    for earlier, later in zip(history, history[1:]):
        if strict and not earlier < later:
            raise bad(_("each claim of the history must beat the one before, not {earlier} then {later}", earlier=_text(earlier),
                        later=_text(later)), "BLUFF-3")
    if state.phase == ANSWER and state.standing is None:
        raise bad(_("an answer needs a standing claim"))
    if state.phase in (SEATING, PUBLIC, OVER) and state.standing is not None:
        raise bad(_("no claim stands in the phase {phase}, not {claim}", phase=state.phase, claim=_text(state.standing)))


# ----------------------------------------------------------------------------------------
# What the three specs share (kocka.solver.rules.spec)
# ----------------------------------------------------------------------------------------
_BLUFF_AGENTS = (
    AgentEntry("bayes", "kocka.agents.bots.bluff_bots:bayes_factory",
               "Bayesian posterior over the claimant's dice, learns lie and call rates"),
    AgentEntry("truthful", "kocka.agents.bots.bluff_bots:truthful_factory",
               "claims the truth (else the smallest lie), believes every claim"),
    AgentEntry("threshold", "kocka.agents.bots.bluff_bots:threshold_factory",
               "claims like 'truthful', challenges every claim at or above a fixed claim"),
    AgentEntry("heuristic", "kocka.agents.bots.heuristic:bluff_heuristic",
               "a human-like rule set, documented in kocka.agents.bots.heuristic"),
)
_DOING = {PUBLIC: N_("{player} rolls the public dice"), ROLL: N_("{player} rolls"), REROLL: N_("{player} throws again"),
          CLAIM: N_("{player} claims")}
"""What the active player does in each phase of his own, as :meth:`BluffGame.describe_state` says it."""
_BLUFF = dict(outcome="win", players=(2, 6), default_players=2, hides_information=True, words=Words("hu"))

_HINT = "kocka.agents.advice.bluff:hint"
_EQUILIBRIUM_AGENT = AgentEntry("equilibrium", "kocka.agents.bots.bluff_bots:equilibrium_factory",
                                "two players: the exact round equilibrium (table), mixed strategies")
