"""What the two betting games' rounds share (RULES.md BLUFF-11..BLUFF-21, two players): the
rules they are solved for, the chip counts their stages are solved at, what a stage's
claims are worth (chips in the round plan, the chance to win the match in the match plan),
and what the tables of both games' plans hold alike (layout, checks, the answerer's values).

**The round decomposes.** With two players the bank never carries over (the one answerer
either passes, and the active player takes the bank at once, BLUFF-14, or bets, and the
round ends, BLUFF-15), so a position where "X is about to roll and must beat claim s,
holding x chips against y" is public: nothing hidden from earlier turns matters any more
(a passed claim is never revealed, and the next active player rolls afresh). Such a
position is a *stage* (:mod:`kocka.solver.solvers.bluff.stage`), and its value V(s, x, y)
to the roller is the value of a one-shot signalling game. Stages are solved from the top
claim down, the stakes of each chip count in turn, exactly in :class:`~fractions.Fraction`:
the bidding bluff in :mod:`~kocka.solver.solvers.bluff.bidding`, liar's poker with its
public roll and re-throws in :mod:`~kocka.solver.solvers.bluff.liars`, whole matches in
:mod:`~kocka.solver.solvers.bluff.match`.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kocka.solver.base.errors import RulesError
from kocka.solver.base.table_file import Table, TableMeta
from kocka.solver.rules.bluff import Bet, BiddingBluffGame, BluffState, LiarsPokerGame, Pass
from kocka.solver.solvers.bluff.stage import StageClaim
from kocka.solver.solvers.bluff.two_player import EQUILIBRIUM_KIND, check_two_player_round

BETTING_EXPLOITABILITY_TARGET = 1e-9
"""Chips per round that a best responder may gain over the value against a betting game's
round plan (its stages are exact; only the table's doubles round)."""


def check_betting_rules(game: Any) -> None:
    """The exact round is for two players with BLUFF-3 escalation and claims of hands."""
    if not isinstance(game, (BiddingBluffGame, LiarsPokerGame)):
        raise RulesError(f"the betting-round equilibrium solves the bidding bluff and liar's poker, got {game.NAME!r}")
    check_two_player_round(game, game.NAME, " (the 'bayes' bot plays more)")
    if getattr(game.rules, "claim", "hand") != "hand":
        raise RulesError(f"the {game.NAME} equilibrium needs liar.claim 'hand', got {game.rules.claim!r}")


def chip_pairs(max_total: int) -> list[tuple[int, int]]:
    """Every (roller's chips, answerer's chips) with both at least 1 and at most
    ``max_total`` together."""
    return [(x, total - x) for total in range(2, max_total + 1) for x in range(1, total)]


def orbits(max_total: int) -> list[tuple[tuple[int, int], ...]]:
    """The chip pairs grouped as the stages of a round visit them: a pass moves one chip to
    the roller and makes the answerer the roller, (x, y) -> (y - 1, x + 1), and back."""
    seen: set = set()
    groups = []
    for x, y in chip_pairs(max_total):
        if (x, y) in seen:
            continue
        group = ((x, y),) + (((y - 1, x + 1),) if y > 1 and (y - 1, x + 1) != (x, y) else ())
        seen.update(group)
        groups.append(group)
    return groups


def rounded_value(value: Fraction, exact: bool) -> Fraction:
    """A later stage's value as the earlier stages use it: exact, or rounded to the
    nearest double (exactly representable as a Fraction), which keeps the numbers small;
    each stage is still solved and certified exactly for the values it is given."""
    return value if exact else Fraction(float(value))


# ----- what a claim of a stage is worth -----
def round_stage_claims(game: Any, claims: Sequence[Any], top: Any, x: int, y: int,
                       value_of: Any) -> tuple[StageClaim, ...]:
    """The claims of a stage as the stage sees them: the pass value 1 - V(c, y - 1, x + 1)
    (1 where a pass ends the round: the answerer's last chip, BLUFF-6, or a passed top
    claim under ``all_pass_resets``); the top claim forced under ``first_must_bet``."""
    forced_top = game.rules.top_claim == "first_must_bet"
    out = []
    for c in claims:
        if c == top and forced_top:
            out.append(StageClaim(Fraction(0), True))
        elif c == top or y == 1:
            out.append(StageClaim(Fraction(1)))
        else:
            out.append(StageClaim(1 - value_of(c, y - 1, x + 1)))
    return tuple(out)


@dataclass(frozen=True)
class MatchPricing:
    """What follows a claim in a match, in some arithmetic: ``one`` is 1, ``win[a]`` the
    chance W(a) that a round's starter holding a chips wins the match, ``later(c, a, b)``
    the value U(c, a, b) of the stage where the roller, holding a against b, must beat c.
    The solver prices in exact Fractions; policy evaluation in vectors of affine functions
    of W (``one`` = (1, 0, ..., 0), ``win[a]`` the a-th unit vector, in
    :mod:`~kocka.solver.solvers.bluff.match`); the stored match plans in floats. All three read the payoffs from
    :func:`match_claim_payoffs`."""

    one: Any
    win: Any
    later: Callable[[Any, int, int], Any]


def match_claim_payoffs(pricing: MatchPricing, x: int, y: int, claim: Any, top: Any,
                        forced: bool) -> tuple[Any, list, list]:
    """(pass value, what a bet on stake k = 1..x pays the claimant if the claim is true,
    if it is false) of a match stage where the claimant holds x against y. A reveal moves
    the chips and the answerer starts the next round (BLUFF-15, BLUFF-16; in liar's poker
    with new public dice, BLUFF-21), so a bet of m chips is worth 1 - W(y - m) if the
    claim is true (1 if that takes his last chip) and 1 - W(y + m) if false (0 if it takes
    the claimant's); m is the stake, or all the answerer holds on a ``forced`` top claim
    (BLUFF-5, BLUFF-13). A pass is worth 1 (the answerer's last chip, BLUFF-6),
    1 - W(y - 1) (a passed top claim under ``all_pass_resets`` ends the round) or
    1 - U(claim, y - 1, x + 1); a forced claim is never passed (0)."""
    one = pricing.one
    wins, loses = [], []
    for k in range(1, x + 1):
        m = min(k, y) if forced else k
        wins.append(one if y - m <= 0 else one - pricing.win[y - m])
        loses.append(one * 0 if x - m <= 0 else one - pricing.win[y + m])
    if forced:
        passed = one * 0
    elif y == 1:
        passed = one
    elif claim == top:
        passed = one - pricing.win[y - 1]
    else:
        passed = one - pricing.later(claim, y - 1, x + 1)
    return passed, wins, loses


def match_payoff_rows(rules: Any, claims: Sequence[Any], top: Any, x: int, y: int,
                      pricing: MatchPricing) -> list[tuple[bool, Any, list, list]]:
    """(forced, pass value, bet payoffs if true, if false) of each claim of a match stage
    (:func:`match_claim_payoffs`; the top claim is forced under ``first_must_bet``)."""
    forced_top = rules.top_claim == "first_must_bet"
    return [(forced_top and c == top, *match_claim_payoffs(pricing, x, y, c, top, forced_top and c == top))
            for c in claims]


def match_stage_claims(rules: Any, claims: Sequence[Any], top: Any, x: int, y: int,
                       pricing: MatchPricing) -> tuple[StageClaim, ...]:
    """The claims of a match stage, priced exactly (:func:`match_claim_payoffs`)."""
    return tuple(StageClaim(passed, forced, tuple(wins), tuple(loses))
                 for forced, passed, wins, loses in match_payoff_rows(rules, claims, top, x, y, pricing))


ClaimsOf = Callable[[Sequence[Any], Any, int, int], tuple[StageClaim, ...]]
"""``claims_of(claims, top, x, y)``: the stage's view of ``claims`` (the top claim
``top``) when the roller holds x against y: the round's payoffs (:func:`round_stage_claims`)
or the match's (:func:`match_stage_claims`)."""


# ----- the plan tables of both games -----
def unstored_table(arrays: Mapping[str, np.ndarray], extra: Mapping[str, Any], kind: str = EQUILIBRIUM_KIND) -> Table:
    """A table not yet stored, for measuring during a build."""
    return Table(dict(arrays), TableMeta(game="", kind=kind, variant_id="", rules={}, extra=dict(extra)))


def plan_layout(cells: tuple[int, ...]) -> dict[str, tuple[tuple[int | None, ...], Any]]:
    """The arrays of a round-plan table: ``value`` and ``lie_value`` over ``cells``, and
    the roller's claims as sorted rows (``claim_key``, ``claim_choice``, ``claim_prob``).
    The bidding bluff's and liar's poker's tables differ only in their cells; one layout
    serves both, since :func:`check_claim_rows` and the plans read the rows the same way."""
    return {
        "value": (cells, np.float64),
        "lie_value": (cells, np.float64),
        "claim_key": ((None,), np.int64),
        "claim_choice": ((None, 2), np.int16),
        "claim_prob": ((None,), np.float64),
    }


def measured_problems(where: str, entry: Mapping[str, Any]) -> list[str]:
    """What a table check reports for one measured position (a bidding-bluff chip count or
    a liar's poker public roll): exploitability not below
    :data:`BETTING_EXPLOITABILITY_TARGET`, or a plan that earns as played what the table
    does not say. Both round tables are held
    to the same standard, so they share this check."""
    problems = []
    if not entry["exploitability"] < BETTING_EXPLOITABILITY_TARGET:
        problems.append(f"{where}: exploitability {entry['exploitability']!r} is not below {BETTING_EXPLOITABILITY_TARGET!r}")
    if abs(entry["played"] - entry["value"]) > 1e-9:
        problems.append(f"{where}: the plan earns {entry['played']!r} as played, the table says {entry['value']!r}")
    return problems


def check_claim_rows(table: Any) -> list[str]:
    """The roller's claim probabilities sum to 1 for every (stage, result)."""
    keys, probs = table["claim_key"], table["claim_prob"]
    if len(keys) == 0:
        return ["the table holds no claims"]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    sums = np.add.reduceat(probs, starts)
    worst = float(np.abs(sums - 1).max())
    return [] if worst < 1e-9 else [f"claim probabilities do not sum to 1 (worst off by {worst!r})"]


StageType = tuple[float, Callable[[Any], bool], Sequence[tuple[float, Any, Any]]]
"""A roller's type at a stored stage, as :func:`stage_problems` reads it: (its chance, the
truth of a claim for it, what it does: (probability, claim, stake) rows, claim None for
an outside option (a re-throw) whose value stands in the stake's place)."""


def stage_problems(where: str, value: float, claims: Sequence[Any], chips: tuple[int, int],
                   pay: Callable[[Any, int], tuple[float, float]], types: Sequence[StageType],
                   tol: float = 1e-9) -> list[str]:
    """One stored stage against its rules (:mod:`~kocka.solver.solvers.bluff.stage`), from
    the stored values of the stages it leads to (the load-time spot check of both betting
    games' tables, round and match): each type's probabilities sum to 1; the stored value
    ``value`` is what the stored strategies earn the roller; and every action a type takes
    earns it the most any claim it could make instead would (the claimant's best reply to
    the answerer's stored strategy, over every allowed claim and every stake that differs:
    1..min(x, y + 1)). ``pay(claim, stake)``: what the claim earns if true and if a lie,
    from the stored bet chances (the plan's). Problems found."""
    x, y = chips
    cache: dict[tuple[Any, int], tuple[float, float]] = {}

    def earned(claim: Any, stake: int) -> tuple[float, float]:
        key = (claim, min(stake, y + 1))
        if key not in cache:
            cache[key] = pay(claim, key[1])
        return cache[key]

    stakes = range(1, min(x, y + 1) + 1)
    best = [(max(earned(c, k)[0] for k in stakes), max(earned(c, k)[1] for k in stakes)) for c in claims]
    total = 0.0
    for weight, truth, rows in types:
        if abs(sum(p for p, _, _ in rows) - 1.0) > tol:
            return [f"{where}: a type's probabilities do not sum to 1"]
        values = [(p, stake if claim is None else earned(claim, stake)[0 if truth(claim) else 1]) for p, claim, stake in rows]
        total += weight * sum(p * v for p, v in values)
        could = max(b[0] if truth(c) else b[1] for c, b in zip(claims, best))
        short = could - min(v for p, v in values if p > tol)
        if not np.isfinite(short) or short > tol * max(1.0, abs(could)):
            return [f"{where}: a type takes an action that earns {short!r} less than a claim it could make"]
    if not np.isfinite(total) or abs(total - value) > tol * max(1.0, abs(value)):
        return [f"{where}: value {value!r}, its strategies earn {total!r}"]
    return []


def sampled_stage_problems(value: np.ndarray, rng: np.random.Generator, problems_at: Callable[..., list[str]],
                           informative: int = 2, anywhere: int = 1) -> list[str]:
    """The problems ``problems_at(*cell)`` finds at stored stages drawn with ``rng``:
    ``informative`` among the cells of ``value`` worth more than 1e-9 either way (a table
    scaled by a forger differs from the rules there), ``anywhere`` among every stored one."""
    stored = np.isfinite(value)
    cells = np.flatnonzero(stored)
    if len(cells) == 0:
        return ["the table holds no stage"]
    worth = np.flatnonzero(stored & (np.abs(np.where(stored, value, 0.0)) > 1e-9))
    pool = worth if len(worth) else cells
    drawn = [*rng.choice(pool, size=min(informative, len(pool)), replace=False), *rng.choice(cells, size=anywhere)]
    problems = []
    for cell in dict.fromkeys(int(c) for c in drawn):
        problems += problems_at(*(int(i) for i in np.unravel_index(cell, value.shape)))
    return problems


class PlanAnswers:
    """What both betting games' plans answer alike (a mixin): the answerer's values of a
    bet and of a pass, from the plan's ``bet_values`` and ``pass_value`` (chips, or the
    chance to win the match, :class:`~kocka.solver.solvers.bluff.match.MatchPayoffs`).
    ``where(state)`` is what the plan's queries take before the claim (liar's poker: the
    public roll); the two players' values add up to ``constant_sum`` (0 chips in a round,
    1 in a match)."""

    constant_sum = 0.0

    def answer_values(self, state: BluffState, x: int, y: int, q: float) -> dict[type, float]:
        """The answerer's values of a bet and of a pass when the claim is true with ``q``."""
        where = self.where(state)
        forced = self.forced(*where, state.standing)
        win, lose = self.bet_values(*where, state.standing, state.stake, x, y)
        passed = 0.0 if forced else self.pass_value(*where, state.standing, x, y)
        return {Bet: self.constant_sum - (q * win + (1.0 - q) * lose), Pass: self.constant_sum - passed}


__all__ = [
    "BETTING_EXPLOITABILITY_TARGET", "ClaimsOf", "MatchPricing", "PlanAnswers", "check_betting_rules",
    "check_claim_rows", "chip_pairs", "match_claim_payoffs", "match_payoff_rows", "match_stage_claims", "measured_problems", "orbits",
    "plan_layout", "round_stage_claims", "rounded_value", "sampled_stage_problems", "stage_problems", "unstored_table",
]  # fmt: skip
