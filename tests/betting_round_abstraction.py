"""The one-betting-round abstraction of the bidding bluff, for the tests (RULES.md
BLUFF-11..BLUFF-15).

The exact round (kocka.solver.solvers.bluff.bidding) superseded it as a solution; it stays
here as a game small enough to solve by hand and exactly, so that the independent best
response of kocka.solver.solvers.bluff.best_response can be checked against hand values
and against the exact signalling LP (kocka.solver.solvers.bluff.lp), and the bots' policies
measured in it (tests/test_bluff_equilibrium.py, tests/test_bluff_bots.py).

Two players with ``stake_cap`` chips each, one betting round: seat 0 rolls and claims with
no claim standing and a stake of 1..``stake_cap`` (BLUFF-12); seat 1 passes (his chip goes
to the bank, which the claimant takes: +1, BLUFF-14) or bets (+-k at the reveal, BLUFF-15);
a top claim must be bet on (BLUFF-5). What follows a pass (the claim stays standing and seat
1 must beat it) is cut off: the payoff is the chips moved by this betting round.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from kocka.solver.base.dice import outcome_distribution
from kocka.solver.base.errors import RulesError
from kocka.solver.rules.base import Game
from kocka.solver.rules.bluff import CLAIM, ROLL, STAKES_LISTED, Bet, BluffState, Claim, Pass, single_round_game
from kocka.solver.solvers.bluff.best_response import BestResponseWalk, Exploitability, exploitability
from kocka.solver.solvers.bluff.lp import SignallingSolution, solve_signalling

BettingPolicy = Callable[[BluffState], Mapping[Any, Any]]
"""``policy(state) -> {action: probability}`` at the claim or the answer."""


def betting_round_game(stake_cap: int = 3, **options: Any) -> Game:
    """The engine game the abstraction is walked in: :func:`single_round_game` of the bidding
    bluff from ``stake_cap`` chips each (the walks stop after the first answer)."""
    if isinstance(stake_cap, bool) or not isinstance(stake_cap, int) or not 1 <= stake_cap <= STAKES_LISTED:
        # the walks take the engine's legal_actions, which list every stake up to STAKES_LISTED
        raise RulesError(f"the betting-round abstraction takes a stake_cap of 1 to {STAKES_LISTED}, got {stake_cap!r}")
    return single_round_game("bidding-bluff", 2, start_chips=stake_cap, **options)


def _start(game: Game) -> BluffState:
    return game.new_round_state((game.rules.start_chips,) * 2, starter=0)


def _answered(game: Game) -> Callable[[BluffState], bool]:
    """Where the walks stop: the first answer is given (the round is over at a reveal, or a
    pass left the claim standing for the next roller: the cut-off)."""
    return lambda state: game.is_terminal(state) or state.rounds >= 1 or (state.phase == ROLL and bool(state.history))


def betting_exploitability(game: Game, policy: BettingPolicy) -> Exploitability:
    """Best responses to ``policy`` played in both seats: ``best_response = (as claimant, as
    answerer)``, exact; the exploitability is half their sum."""
    return exploitability(game, _start(game), policy, exact=True, stop=_answered(game))


def betting_policy_value(game: Game, claimant: BettingPolicy, answerer: BettingPolicy) -> Fraction:
    """The claimant's expected chips in the betting round."""
    return BestResponseWalk(game, [claimant, answerer], 0, exact=True, stop=_answered(game)).after(_start(game))


@dataclass(frozen=True)
class BettingRoundEquilibrium:
    """The exact equilibrium of the abstraction: ``value`` is the claimant's expected chips,
    ``solved`` the :class:`SignallingSolution` with its ``messages`` (claim, stake), the
    hidden-dice types (``type_of[dice]``) and the ``answers`` of each message."""

    value: Fraction
    solved: SignallingSolution
    messages: tuple
    type_of: Mapping[tuple, int]
    answers: tuple

    def policy(self) -> BettingPolicy:
        """The equilibrium as a :data:`BettingPolicy` (exact probabilities)."""

        def policy(state: BluffState) -> dict[Any, Fraction]:
            if state.phase == CLAIM:
                row = self.solved.sender[self.type_of[tuple(state.dice)]]
                return {Claim(c, k): p for (c, k), p in zip(self.messages, row) if p}
            m = self.messages.index((state.standing, state.stake))
            return {a: p for a, p in zip(self.answers[m], self.solved.receiver[m]) if p}

        return policy


def solve_betting_round(game: Game) -> BettingRoundEquilibrium:
    """The exact equilibrium by :func:`solve_signalling`: the claimant's types are his dice,
    merged when their truth over every claim is the same (BLUFF-4); the messages are
    (claim, stake) for every claim (BLUFF-3, nothing standing) and stake 1..cap; the answers
    pass (+1 to the claimant, BLUFF-14) and bet (+-k, BLUFF-15), the top claim only bet under
    ``first_must_bet`` (BLUFF-5)."""
    cap = game.rules.start_chips
    claims = game.claims_above(None)
    top_only_bet = game.rules.top_claim == "first_must_bet"
    messages = tuple((c, k) for c in claims for k in range(1, cap + 1))
    answers = tuple((Bet(),) if c == claims[-1] and top_only_bet else (Pass(), Bet()) for c, _ in messages)
    patterns: dict[tuple[bool, ...], list] = {}
    type_of: dict[tuple, int] = {}
    for dice, p in outcome_distribution(2):
        truth = tuple(game.claim_true(c, dice) for c in claims)
        entry = patterns.setdefault(truth, [len(patterns), Fraction(0)])
        entry[1] += Fraction(p).limit_denominator(36)
        type_of[tuple(dice)] = entry[0]
    weights = [w for _, w in patterns.values()]
    payoffs = [
        [[Fraction(1) if isinstance(a, Pass) else Fraction(k if truth[claims.index(c)] else -k) for a in ans]
         for (c, k), ans in zip(messages, answers)]
        for truth in patterns
    ]  # fmt: skip
    solved = solve_signalling(weights, payoffs)
    return BettingRoundEquilibrium(solved.value, solved, messages, type_of, answers)
