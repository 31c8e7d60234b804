"""BLUFF positions and moves: the actions of the three bluff games and the
:class:`BluffState` they share (docs/STATE.md)."""
from __future__ import annotations

from dataclasses import dataclass

from kocka.solver.base.dice import Dice
from kocka.solver.base.errors import IllegalActionError, shown
from kocka.solver.base.i18n import _
from kocka.solver.rules.bluff_claims import AnyClaim, Hand, TwoDiceClaim, _whole


# ----------------------------------------------------------------------------------------
# Actions
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """Make ``claim`` (BLUFF-8/9, BLUFF-12, BLUFF-20). ``stake`` is the k chips put in front
    of the claimant in the betting games; it is 0 in Abázs (no stakes)."""

    claim: AnyClaim
    stake: int = 0


@dataclass(frozen=True)
class Accept:
    """Abázs: accept the standing claim, roll afresh and claim higher (BLUFF-9)."""


@dataclass(frozen=True)
class Challenge:
    """Abázs: challenge the standing claim; the claimant shows his dice (BLUFF-10)."""


@dataclass(frozen=True)
class Pass:
    """Betting games: accept the claim and pay 1 chip into the bank (BLUFF-13)."""


@dataclass(frozen=True)
class Bet:
    """Betting games: bet the stake k that the claim is false (BLUFF-13); a player obliged
    by BLUFF-5 with fewer than k chips bets all he has."""


@dataclass(frozen=True)
class Reroll:
    """Liar's poker: throw one private die again, keeping and showing the other, which has
    face ``keep_shown`` (BLUFF-18); ``keep_shown = None`` throws both again, both hidden
    (``liar.reroll = one_or_both`` only)."""

    keep_shown: int | None


@dataclass(frozen=True)
class ClaimRange:
    """One allowed claim with every stake that may go with it (BLUFF-12): ``Claim(claim,
    k)`` is legal for each k from ``min_stake`` to ``max_stake`` (both 0 in Abázs, which
    has no stakes). Not an action itself: :meth:`with_stake` makes one."""

    claim: AnyClaim
    min_stake: int
    max_stake: int

    @property
    def stakes(self) -> range:
        return range(self.min_stake, self.max_stake + 1)

    def with_stake(self, stake: int) -> Claim:
        """The claim with ``stake`` (one of :attr:`stakes`)."""
        if not _whole(stake, self.min_stake, self.max_stake):
            raise IllegalActionError(_("the stake must be from {least} to {most} chips, not {value}", least=self.min_stake,
                                      most=self.max_stake, value=shown(stake)), rule="BLUFF-12")
        return Claim(self.claim, stake)


# ----------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------
SEATING, PUBLIC, ROLL, REROLL, CLAIM, ANSWER, OVER = "seating", "public", "roll", "reroll", "claim", "answer", "over"
_CHANCE_PHASES = (SEATING, PUBLIC, ROLL, REROLL)


@dataclass(frozen=True)
class BluffState:
    """One position of a bluff game (fields a game does not use keep their defaults).

    ``phase`` says what happens next: ``seating`` (a seating roll, BLUFF-1), ``public``
    (liar's poker: the starter rolls the public dice), ``roll`` (the active player rolls his
    two private dice), ``reroll`` (his re-throw), ``claim`` (he claims), ``answer`` (the
    next seat accepts or challenges; in the betting games the others pass or bet in turn),
    ``over``.

    ``seating`` is the ordered partition of the players while the seating rolls last: the
    first block with more than one player is rolling, and ``seat_rolls`` are the sums its
    first members threw. ``order`` is the seat order once it is known.

    ``active`` is the claimant (Abázs) or active player, ``dice`` his private dice (hidden),
    ``public`` the public dice and ``shown`` the private die he kept and showed on a
    re-throw (0: none); ``rerolled`` says he has used his re-throw this turn.

    ``standing`` is the standing claim (a hand in liar's poker, also under
    ``liar.claim = dice``, where ``claimed_dice`` are the hidden values named); ``history``
    the public claim history of the round (BLUFF-3): every claim made since the round
    began, oldest first, so it ends with ``standing`` and is empty exactly when no claim
    stands (``history[-2]`` is the claim the standing claim beat); ``stake`` its
    stake k; ``bets`` the ``(player, chips bet)`` pairs in betting order and ``answered`` how
    many players have answered in this betting round.

    ``rounds`` counts finished rounds (BLUFF-3); ``revealed`` is ``(player, private dice)``
    of the latest reveal, None before the first; ``initial`` the chips at the start (the
    ``payoff = chips`` baseline) and ``initial_bank`` the bank then (0 unless one round
    was set up with a bank, :meth:`_BluffGame.new_round_state`; the state document leaves
    it out when it is 0). ``sum(chips) + bank == sum(initial) + initial_bank`` always.
    """

    phase: str
    chips: tuple[int, ...]
    initial: tuple[int, ...]
    bank: int = 0
    initial_bank: int = 0
    order: tuple[int, ...] = ()
    seating: tuple[tuple[int, ...], ...] = ()
    seat_rolls: tuple[int, ...] = ()
    active: int = -1
    dice: Dice = ()
    public: Dice = ()
    shown: int = 0
    rerolled: bool = False
    standing: TwoDiceClaim | Hand | None = None
    history: tuple[TwoDiceClaim | Hand, ...] = ()
    claimed_dice: Dice = ()
    stake: int = 0
    bets: tuple[tuple[int, int], ...] = ()
    answered: int = 0
    rounds: int = 0
    revealed: tuple[int, Dice] | None = None

    @property
    def previous(self) -> TwoDiceClaim | Hand | None:
        """The claim the standing claim beat (None: it opened the round, or none stands)."""
        return self.history[-2] if len(self.history) >= 2 else None
