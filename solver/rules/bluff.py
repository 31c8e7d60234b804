"""BLUFF: the Hungarian two-dice bluff games (RULES.md section 3, BLUFF-1..BLUFF-21).

Three games share one state shape and one engine core:

* :class:`AbazsGame` (*2 kockás blöff*, BLUFF-7..BLUFF-10): claim, then the next seat
  accepts (and must claim higher on his own roll) or challenges; 1 chip changes hands.
* :class:`BiddingBluffGame` (*Licitálós 2 kockás blöff*, BLUFF-11..BLUFF-16): the active
  player claims with a stake of k chips, every other player passes (1 chip into the bank)
  or bets k that the claim is false.
* :class:`LiarsPokerGame` (*Hazudós kockapóker*, BLUFF-17..BLUFF-21): three public dice,
  two private ones, one optional re-throw, five-dice hands (75 claims), betting as above.

Hidden information is explicit: a :class:`BluffState` holds every die, the active player's
private dice included; :meth:`_BluffGame.observation` gives one seat's view, with the dice
it may not see replaced by ``null`` (docs/STATE.md). Chance is explicit too: the seating
rolls (BLUFF-1, ``seating = roll``), every private roll, the public roll and the re-throw
are chance nodes whose outcomes are sorted tuples of the rolled dice.

Players are the indices ``0..n-1`` given by the caller; ``state.order`` lists them in seat
order (decided by the seating rolls, or ``0..n-1`` under ``seating = given``). "The next
seat" is the next player in that order.

Chips: ``state.chips[p]`` is what player p holds. A stake is only *put in front* of a
player (BLUFF-12/13) and changes hands at the reveal, so it stays in ``chips`` until then;
a pass pays 1 chip into ``state.bank`` at once. Hence ``sum(chips) + bank`` never changes:
it is ``sum(initial) + initial_bank``, the chips the game began with.

Stakes are a range, not a list (BLUFF-12): :meth:`_BluffGame.stake_range` is every stake
the active player may put on a claim (1 up to his cap; 0 alone in Abázs, which has no
stakes), and :meth:`~Game.apply` accepts every one of them. So that no query grows with
the chips, :meth:`~Game.legal_actions` lists each allowed claim with the stakes of
:meth:`_BluffGame.candidate_stakes` only: every stake up to :data:`STAKES_LISTED`, the
largest, and the stakes where who can bet changes (each other player's chips and one
more, BLUFF-13). Between two candidates nobody's ability to bet changes and what each
betting pattern moves at the reveal only grows with the stake, so a player who maximises
expected chips against answers that depend on the stake only through who can bet finds
his best stake among the candidates. With a cap of at most :data:`STAKES_LISTED` (every
two-player game from the default 10 chips) the candidates are all the stakes.
:meth:`_BluffGame.legal_choices` gives each claim once, as a :class:`ClaimRange` with its
smallest and largest stake.

Bounds, checked by the rules (``start_chips``, ``max_rounds``) and by
:meth:`~Game.check_state` (every state field): a player starts with 1 to
:data:`MAX_CHIPS` chips, a bank starts with 0 to :data:`MAX_CHIPS` chips, a game lasts at
most :data:`MAX_ROUNDS` rounds (also with ``max_rounds = None``), and a state's chips add
up to what the game began with, stakes and bets fit the chips, and the claims fit the
round's history.

Engine parameters beside the RULES.md options: ``max_rounds`` (stop after that many
rounds; ``None`` plays until someone has 0 chips, BLUFF-6) and ``payoff`` (``win_share``:
1/m to each of the m players with the most chips, BLUFF-6; ``chips``: each player's chip
change, for one-round equilibrium solvers). :func:`single_round_game` and
:meth:`_BluffGame.new_round_state` make one round from given chips a game of its own.

The family's modules: :mod:`~kocka.solver.rules.bluff_claims` (claims, their order and
truth), :mod:`~kocka.solver.rules.bluff_state` (actions and positions),
:mod:`~kocka.solver.rules.bluff_engine` (the shared engine core and options),
:mod:`~kocka.solver.rules.bluff_betting` (the betting round), and one module per game:
:mod:`~kocka.solver.rules.abazs`, :mod:`~kocka.solver.rules.bidding_bluff`,
:mod:`~kocka.solver.rules.liars_poker`. This module imports them (registering the games)
and re-exports their public names.
"""
from __future__ import annotations

from typing import Any

from kocka.solver.base.errors import RulesError, shown
from kocka.solver.base.i18n import _

# Importing the game modules registers their specs, in this order; the names imported here
# are the family's public names, so that its users need not know which module holds which.
from kocka.solver.rules.abazs import AbazsGame, AbazsRules, AbazsState
from kocka.solver.rules.bidding_bluff import BiddingBluffGame, BiddingBluffRules, BiddingBluffState
from kocka.solver.rules.liars_poker import LiarsPokerGame, LiarsPokerRules, LiarsPokerState
from kocka.solver.rules.bluff_betting import STAKES_LISTED
from kocka.solver.rules.bluff_claims import (
    CATEGORY_NAMES, DiceClaim, Hand, TwoDiceClaim, achievable_claims, actual_result, all_claims, claim_probabilities,
    claim_rank, hand_of, is_true, top_claim,
)
from kocka.solver.rules.bluff_engine import MAX_CHIPS, MAX_ROUNDS, _BluffGame
from kocka.solver.rules.bluff_state import (  # noqa: F401  (re-exported)
    ANSWER, CLAIM, OVER, PUBLIC, REROLL, ROLL, SEATING, Accept, Bet, BluffState, Challenge, Claim, ClaimRange, Pass,
    Reroll,
)


# ----------------------------------------------------------------------------------------
# One round for equilibrium solvers
# ----------------------------------------------------------------------------------------


def single_round_game(game: type[_BluffGame] | str, num_players: int = 2, **options: Any) -> _BluffGame:
    """One bluff round as a game of its own: seat order ``0..n-1`` (``seating = given``),
    ``max_rounds = 1`` and ``payoff = chips`` (returns are chip changes; the bank is nobody's),
    so a round is a finite game. Start it with :meth:`_BluffGame.new_round_state` for
    chosen chips, starter and bank, or :meth:`~Game.new_initial_state` for the default.

    >>> g = single_round_game(AbazsGame, 2, ranking="pro")
    >>> g.rules.max_rounds, g.rules.payoff
    (1, 'chips')
    """
    by_name = {cls.NAME: cls for cls in (AbazsGame, BiddingBluffGame, LiarsPokerGame)}
    cls = by_name.get(game) if isinstance(game, str) else game
    if not (isinstance(cls, type) and issubclass(cls, _BluffGame)):
        raise RulesError(_("{game} is not a bluff game; they are {games}", game=shown(game), games=", ".join(sorted(by_name))))
    rules = cls.RULES.from_options({"seating": "given", "max_rounds": 1, "payoff": "chips", **options})
    return cls(rules, num_players=num_players)


__all__ = [
    "Accept", "AbazsGame", "AbazsRules", "AbazsState", "Bet", "BiddingBluffGame", "BiddingBluffRules",
    "BiddingBluffState", "BluffState", "CATEGORY_NAMES", "Challenge", "Claim", "ClaimRange", "DiceClaim", "Hand",
    "LiarsPokerGame", "LiarsPokerRules", "LiarsPokerState", "MAX_CHIPS", "MAX_ROUNDS", "Pass", "Reroll",
    "STAKES_LISTED", "TwoDiceClaim",
    "achievable_claims", "actual_result", "all_claims", "claim_probabilities", "claim_rank", "hand_of",
    "is_true", "single_round_game", "top_claim",
]  # fmt: skip
