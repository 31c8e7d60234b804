"""Exact equilibrium of two-player Abázs (RULES.md BLUFF-3, BLUFF-5, BLUFF-7..BLUFF-10), and
an independent best response that measures the exploitability of any round policy.

**One round.** The starter rolls two dice under cover and claims; the responder challenges
(1 chip changes hands, BLUFF-10) or accepts, rolls afresh and must claim higher (BLUFF-3
escalation), and so on; a top claim must be challenged (BLUFF-5). With escalation every
round ends, so a round is a finite two-player zero-sum game of imperfect information
(``bluff.escalation = off`` is refused: a round need not end).

**No abstraction: an exact decomposition.** Once a claim is accepted the claimant's dice
are never looked at again (the engine drops them), so "player X is about to roll and must
beat claim s" is a public state with no private information that matters: a proper
subgame whose value V(s) to the roller depends only on s. Each such *stage* is a one-shot
Bayesian game: the roller's private type is his result; he picks a claim c > s; the
responder, who sees only c, challenges (the claimant gets ``win`` if the claim is true,
BLUFF-4, else ``lose``) or accepts (the claimant gets -V(c)). Stages are solved from the
highest standing claim down, and V(no claim) is the starter's value.

**The match: who starts next is worth chips.** BLUFF-10 (``abazs.next_starter``) gives the
next round's start to the challenger (or the loser), and the starter's value is about a
third of a chip, so the +-1 round game (``win, lose = 1, -1``: the *round* equilibrium)
is not an equilibrium of the match. The *match* equilibrium is the stationary equilibrium
of the repeated round with the average chips per round as payoff (chip counts and the
end, BLUFF-6, are ignored): with x the relative value of starting the next round, each
challenge pays the claimant +-1 plus x/2 if he starts next, else -x/2; by symmetry the
average gain is 0 and the bias of starting is x/2, so x = 2 V_x(no claim). That fixed
point is found by secant steps over exact stage solutions, to ``|x - 2 V_x| < 1e-12``.

**Exact LP.** Each stage is solved twice by an exact rational simplex (Bland's rule, in
:class:`~fractions.Fraction`): the roller's sequence-form LP (max over claim probabilities
per type of the sum over claims of min(challenge, accept) payoff) and the responder's LP
(min over challenge probabilities of the roller's best-response value); equal optimal
values certify both strategies exactly (LP duality). Types whose truth pattern over the
allowed claims is the same (e.g. every result at or below s) are merged first. Truth,
claim order and chances come from :mod:`kocka.solver.rules.bluff` (``is_true``,
``all_claims``, ``claim_probabilities``, the engine's ``claims_above`` and ``claim_true``);
nothing is re-implemented.

**Exploitability** is measured on the engine's own game (:func:`walk_game`: two rounds of
:func:`~kocka.solver.rules.bluff.single_round_game`, so that the engine says who starts
next), by a best response that shares no code with the LP:

* *round*: ``(BR_0 + BR_1) / 2``, what a best responder gains per round in the +-1 round
  game over its value, averaged over the two seats (half the NashConv);
* *match*: the best responder's average chips per round in the match, the gain of the
  two-state (who starts) average-reward problem, found by a root search on the bias of
  starting (:func:`match_exploitability`).

A policy sees the state and the *previous* standing claim (the one the standing claim
beat, ``state.previous``, from the round's claim history): the responder needs it (the
same claim means something else when it beat a high claim than when it opened the round).
The walks drop the claims older than the one to beat at each roll: nothing a round policy
decides depends on them (the claimants' dice are gone), and keeping them would multiply
the memoised roll states by the number of claim sequences leading to each.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kocka.solver.base.dice import all_outcomes, outcome_distribution
from kocka.solver.base.errors import IllegalActionError, RulesError
from kocka.solver.base.decision import BuildOptions, Decision
from kocka.solver.rules.base import CHANCE, Game
from kocka.solver.rules.bluff import (
    ANSWER, CLAIM, ROLL, STAKES_LISTED, AbazsGame, AbazsRules, Accept, Bet, BiddingBluffGame, BluffState, Challenge,
    Claim, LiarsPokerGame, Pass, TwoDiceClaim, actual_result, all_claims, claim_probabilities, is_true, single_round_game,
)
from kocka.solver.base.table_file import Table, TableMeta

KIND = "equilibrium"
EXPLOITABILITY_TARGET = 1e-3
"""Chips per round (issue 6); the solutions are at 0 up to rounding."""
FIXED_POINT_TOLERANCE = Fraction(1, 10**12)
"""How close the match's start value x comes to 2 V_x(no claim)."""
PLANS = ("round", "match")
"""The two equilibria a table holds: of one +-1 round, and of the match (module docstring)."""

RoundPolicy = Callable[[BluffState, "TwoDiceClaim | None"], Mapping[Any, Any]]
"""``policy(state, previous) -> {action: probability}`` at a decision state of an Abázs
round; ``previous`` is the claim the standing claim beat (None if it opened the round),
``state.previous`` when the state holds the round's history."""


# ----------------------------------------------------------------------------------------
# Exact linear programming
# ----------------------------------------------------------------------------------------
class LPError(ArithmeticError):
    """An infeasible or unbounded linear program (a bug in a stage model, never input)."""


@dataclass(frozen=True)
class LPSolution:
    """An optimal solution: ``value``, the point ``x`` and the dual prices ``duals`` of the
    ``<=`` constraints (nonnegative; the value's rate of change with each bound)."""

    value: Fraction
    x: list[Fraction]
    duals: list[Fraction]


def solve_lp(
    objective: Sequence[Any],
    a_ub: Sequence[Sequence[Any]] = (),
    b_ub: Sequence[Any] = (),
    a_eq: Sequence[Sequence[Any]] = (),
    b_eq: Sequence[Any] = (),
) -> LPSolution:
    """Maximise ``objective . x`` subject to ``a_ub x <= b_ub``, ``a_eq x = b_eq``,
    ``x >= 0``, exactly (two-phase tableau simplex over Fractions, Bland's rule, so it
    cannot cycle). The duals are read off the final reduced costs of the slack columns
    (a slack's reduced cost is minus its row's price, whatever the row's sign).

    >>> sol = solve_lp([1, 1], [[1, 2], [3, 1]], [4, 6])
    >>> sol.value, sol.x, sol.duals
    (Fraction(14, 5), [Fraction(8, 5), Fraction(6, 5)], [Fraction(2, 5), Fraction(1, 5)])
    """
    n = len(objective)
    rows = [(a, Fraction(b), True) for a, b in zip(a_ub, b_ub)] + [(a, Fraction(b), False) for a, b in zip(a_eq, b_eq)]
    if any(len(a) != n for a, _, _ in rows):
        raise LPError(f"every constraint row needs {n} coefficients")
    n_slack = len(a_ub)
    needs_artificial = [not upper or b < 0 for _, b, upper in rows]
    first_art = n + n_slack
    width = first_art + sum(needs_artificial)
    tableau: list[list[Fraction]] = []
    basis: list[int] = []
    slack_col, art_col = n, first_art
    for (a, b, upper), artificial in zip(rows, needs_artificial):
        row = [Fraction(v) for v in a] + [Fraction(0)] * (width - n) + [b]
        if upper:
            row[slack_col] = Fraction(1)
        if b < 0:
            row = [-v for v in row]
        if artificial:
            row[art_col] = Fraction(1)
            basis.append(art_col)
            art_col += 1
        else:
            basis.append(slack_col)
        slack_col += upper
        tableau.append(row)
    cost: list[Fraction] = []

    def pivot(r: int, c: int) -> None:
        prow = tableau[r]
        if prow[c] != 1:
            inv = 1 / prow[c]
            tableau[r] = prow = [v * inv for v in prow]
        nonzero = [j for j, v in enumerate(prow) if v]
        for i, row in enumerate(tableau):
            f = row[c]
            if i != r and f:
                for j in nonzero:
                    row[j] -= f * prow[j]
        f = cost[c]
        if f:
            for j in nonzero:
                cost[j] -= f * prow[j]
        basis[r] = c

    def optimise() -> None:
        while True:
            enter = next((j for j in range(first_art) if cost[j] > 0), None)
            if enter is None:
                return
            best: tuple[Fraction, int] | None = None
            for i, row in enumerate(tableau):
                if row[enter] > 0:
                    ratio = row[-1] / row[enter]
                    if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                        best = (ratio, i)
            if best is None:
                raise LPError("the linear program is unbounded")
            pivot(best[1], enter)

    # phase 1: drive the artificial variables to 0 (maximise minus their sum)
    cost = [Fraction(0)] * (width + 1)
    for i, b in enumerate(basis):
        if b >= first_art:
            cost = [c + v for c, v in zip(cost, tableau[i])]
    for j in range(first_art, width):
        cost[j] = Fraction(0)
    optimise()
    if cost[-1] != 0:
        raise LPError("the linear program is infeasible")
    for i, b in enumerate(basis):
        if b >= first_art:  # a degenerate artificial left in the basis: swap it out
            j = next((j for j in range(first_art) if tableau[i][j]), None)
            if j is not None:
                pivot(i, j)
    # phase 2: the objective, in reduced-cost form over the current basis
    cost = [Fraction(v) for v in objective] + [Fraction(0)] * (width + 1 - n)
    for i, b in enumerate(basis):
        f = cost[b]
        if f:
            cost = [c - f * v for c, v in zip(cost, tableau[i])]
    optimise()
    x = [Fraction(0)] * n
    for i, b in enumerate(basis):
        if b < n:
            x[b] = tableau[i][-1]
    return LPSolution(-cost[-1], x, [-cost[n + i] for i in range(n_slack)])


@dataclass(frozen=True)
class SignallingSolution:
    """An exact equilibrium of a one-shot signalling game (:func:`solve_signalling`):
    ``value`` to the sender, ``sender[t][m]`` = P(message m | type t), ``receiver[m][a]``
    = P(answer a | message m)."""

    value: Fraction
    sender: tuple[tuple[Fraction, ...], ...]
    receiver: tuple[tuple[Fraction, ...], ...]


def solve_signalling(weights: Sequence[Any], payoffs: Sequence[Sequence[Sequence[Any]]]) -> SignallingSolution:
    """The exact equilibrium of a zero-sum one-shot signalling game: chance draws the
    sender's private type t with probability ``weights[t]``; he sends a message m; the
    receiver sees m only and answers a; the sender gets ``payoffs[t][m][a]`` (every type
    may send every message; message m has the same answers for every type).

    The sender's sequence-form LP: maximise sum_m z_m subject to z_m <= sum_t w_t x_tm
    u(t, m, a) for each answer a of m (z free: z = z+ - z-), sum_m x_tm = 1. The dual
    prices of the rows of a message are the receiver's answer probabilities (dual
    feasibility for the free z_m: they sum to 1). The sender's best reply to them is then
    checked to earn exactly the LP value (LP duality: both strategies are optimal).

    >>> # a good or bad hand; "bet" (answers fold, call: +1, +-2) or "check" (showdown +-1)
    >>> sol = solve_signalling([Fraction(1, 2)] * 2, [[[1, 2], [1]], [[1, -2], [-1]]])
    >>> sol.value, sol.receiver[0]
    (Fraction(1, 3), (Fraction(1, 3), Fraction(2, 3)))
    """
    g, k = len(weights), len(payoffs[0])
    w = [Fraction(v) for v in weights]
    nx = g * k
    n = nx + 2 * k
    a_ub: list[list[Fraction]] = []
    rows_of: list[list[int]] = []
    for m in range(k):
        rows_of.append([])
        for a in range(len(payoffs[0][m])):
            row = [Fraction(0)] * n
            for t in range(g):
                row[t * k + m] = -w[t] * Fraction(payoffs[t][m][a])
            row[nx + m], row[nx + k + m] = Fraction(1), Fraction(-1)
            rows_of[m].append(len(a_ub))
            a_ub.append(row)
    a_eq = [[Fraction(int(t * k <= j < (t + 1) * k)) for j in range(n)] for t in range(g)]
    solution = solve_lp([0] * nx + [1] * k + [-1] * k, a_ub, [0] * len(a_ub), a_eq, [1] * g)
    receiver = tuple(tuple(solution.duals[r] for r in rows) for rows in rows_of)
    best_reply = sum(
        w[t] * max(sum(p * Fraction(u) for p, u in zip(receiver[m], payoffs[t][m])) for m in range(k)) for t in range(g)
    )
    if best_reply != solution.value or not all(p >= 0 for answers in receiver for p in answers):
        raise LPError(f"sender value {solution.value} != best reply {best_reply} to {receiver}")
    sender = tuple(tuple(solution.x[t * k : (t + 1) * k]) for t in range(g))
    return SignallingSolution(solution.value, sender, receiver)


# ----------------------------------------------------------------------------------------
# Stages and the equilibrium
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stage:
    """The equilibrium of one stage: the roller must beat ``standing`` (None: the round's
    first claim).

    ``claims`` are the allowed claims, lowest first. ``claim_policy[r][i]`` is the chance
    that a roller whose result is ``results[r]`` (all results of the ranking, lowest first)
    claims ``claims[i]``; ``challenge[i]`` the chance the responder challenges
    ``claims[i]`` (1 for the top claim, BLUFF-5); ``value`` the roller's value V(standing).
    """

    standing: TwoDiceClaim | None
    claims: tuple[TwoDiceClaim, ...]
    claim_policy: tuple[tuple[Fraction, ...], ...]
    challenge: tuple[Fraction, ...]
    value: Fraction


@dataclass(frozen=True)
class AbazsEquilibrium:
    """An exact equilibrium of the two-player Abázs round game whose challenges pay the
    claimant ``challenged = (win, lose)`` (true, false claim): one :class:`Stage` per
    standing claim that can still be beaten, indexed by :func:`standing_index`.
    ``start_value`` is the x it was solved for (0: the +-1 round)."""

    ranking: str
    truth: str
    start_value: Fraction
    challenged: tuple[Fraction, Fraction]
    stages: tuple[Stage, ...]

    @property
    def results(self) -> tuple[TwoDiceClaim, ...]:
        return all_claims(self.ranking)

    @property
    def value(self) -> Fraction:
        """The starter's value V(no claim) (the responder's is its negative)."""
        return self.stages[0].value

    def stage(self, standing: TwoDiceClaim | None) -> Stage:
        index = standing_index(standing)
        if index >= len(self.stages):
            raise IllegalActionError(f"nothing beats the top claim {standing!s} (BLUFF-5)")
        return self.stages[index]

    def arrays(self, plan: str) -> dict[str, np.ndarray]:
        """The table arrays of this equilibrium (float64), named ``{plan}_...`` and indexed
        by standing index s (0: no claim, rank + 1: that claim), result rank r and claim
        rank c:

        * ``claim_policy[s, r, c]``: P(claim c | result r) for the roller who must beat s;
        * ``challenge_policy[s, c]``: P(challenge | claim c made over s), 1 for the top claim;
        * ``stage_value[s]``: V(s) to the roller; NaN for the top claim (no stage);
        * ``challenged``: the claimant's (win, lose) payoffs of a challenge.
        """
        n = len(self.results)
        claim_policy = np.zeros((n + 1, n, n))
        challenge = np.zeros((n + 1, n))
        value = np.full(n + 1, np.nan)
        for s, stage in enumerate(self.stages):
            cols = [c.rank for c in stage.claims]
            for r, row in enumerate(stage.claim_policy):
                claim_policy[s, r, cols] = [float(p) for p in row]
            challenge[s, cols] = [float(p) for p in stage.challenge]
            value[s] = float(stage.value)
        return {
            f"{plan}_claim_policy": claim_policy,
            f"{plan}_challenge_policy": challenge,
            f"{plan}_stage_value": value,
            f"{plan}_challenged": np.array([float(v) for v in self.challenged]),
        }


def standing_index(standing: TwoDiceClaim | None) -> int:
    """0 for no standing claim, else the claim's rank + 1 (the table row)."""
    return 0 if standing is None else standing.rank + 1


def check_two_player_round(game: Game, name: str, more_players: str = "") -> None:
    """A round equilibrium (Abázs here, the bidding bluff and liar's poker in
    :mod:`kocka.solver.solvers.bluff.rounds`) is solved for two players, and only where the round must
    end: BLUFF-3 escalation ``strict``. Both solvers refuse other games with this one check,
    so they say the same thing. ``name`` names the equilibrium in the message;
    ``more_players`` is added to the message about the number of players."""
    if game.num_players != 2:
        raise RulesError(f"the {name} equilibrium is for 2 players, got {game.num_players!r}{more_players}")
    if game.rules.escalation != "strict":
        raise RulesError(
            f"the {name} equilibrium needs bluff.escalation 'strict' (BLUFF-3): without it a round need not end, "
            f"got {game.rules.escalation!r}"
        )


def check_rules(game: Game) -> AbazsRules:
    """The equilibrium is for two-player Abázs with BLUFF-3 escalation."""
    if not isinstance(game, AbazsGame):
        raise RulesError(f"the bluff equilibrium solves Abázs, got {game.NAME!r}")
    check_two_player_round(game, "Abázs")
    return game.rules


def canonical_game(game: Game) -> AbazsGame:
    """The game whose table serves ``game``: only ``bluff.ranking``, ``bluff.truth`` and
    ``abazs.next_starter`` change the equilibria (chips, seating and the end do not), so
    one table per such triple serves every chip count."""
    rules = check_rules(game)
    return AbazsGame(AbazsRules(ranking=rules.ranking, truth=rules.truth, next_starter=rules.next_starter), num_players=2)


def _representatives(ranking: str) -> dict[TwoDiceClaim, tuple[int, int]]:
    """One pair of dice per result: truth depends on the result only (BLUFF-4, BLUFF-7)."""
    reps: dict[TwoDiceClaim, tuple[int, int]] = {}
    for dice in all_outcomes(2):
        reps.setdefault(actual_result(dice, ranking), dice)  # type: ignore[arg-type]
    return reps


def _solve_stage(
    rules: AbazsRules, standing: TwoDiceClaim | None, later: Mapping[TwoDiceClaim, Fraction],
    challenged: tuple[Fraction, Fraction],
) -> Stage:
    """One stage's equilibrium by the roller's and the responder's LPs (module docstring).
    ``later`` holds V(c) for every claim c above ``standing`` except the top one;
    ``challenged`` is what the claimant gets when a challenged claim is (true, false)."""
    results = all_claims(rules.ranking)
    chance = claim_probabilities(rules.ranking)
    reps = _representatives(rules.ranking)
    claims = tuple(AbazsGame(rules, num_players=2).claims_above(standing))  # BLUFF-3
    top = results[-1]
    # types with equal truth patterns over the allowed claims are one type
    groups: dict[tuple[bool, ...], list[TwoDiceClaim]] = {}
    for r in results:
        groups.setdefault(tuple(is_true(c, reps[r], rules) for c in claims), []).append(r)
    patterns = list(groups)
    weight = [sum(chance[r] for r in groups[p]) for p in patterns]
    g = len(patterns)

    def on_challenge(t: int, i: int) -> Fraction:
        return challenged[0] if patterns[t][i] else challenged[1]

    def on_accept(i: int) -> Fraction:
        return -later[claims[i]]

    payoffs = [
        [[on_challenge(t, i)] + ([on_accept(i)] if claim != top else []) for i, claim in enumerate(claims)]
        for t in range(g)
    ]
    try:
        solved = solve_signalling(weight, payoffs)
    except LPError as exc:
        raise LPError(f"stage {standing!s}: {exc}") from None
    challenge = tuple(answers[0] for answers in solved.receiver)  # answer 0: challenge
    per_type = dict(zip(patterns, solved.sender))
    policy = tuple(per_type[next(p for p in patterns if r in groups[p])] for r in results)
    return Stage(standing, claims, policy, challenge, solved.value)


def challenge_payoffs(rules: AbazsRules, start_value: Fraction) -> tuple[Fraction, Fraction]:
    """The claimant's payoff when his challenged claim is (true, false): +-1 chip
    (BLUFF-10) plus x/2 if he starts the next round, else -x/2 (``abazs.next_starter``:
    the challenger always starts; or the loser, who is the claimant when his claim is
    false)."""
    half = start_value / 2
    if rules.next_starter == "challenger":
        return (1 - half, -1 - half)
    return (1 - half, -1 + half)


def solve_abazs(rules: AbazsRules, start_value: Fraction | int = 0) -> AbazsEquilibrium:
    """The exact equilibrium of the two-player Abázs round whose challenges also carry the
    start value x (:func:`challenge_payoffs`; 0: the +-1 round), stage by stage from the
    highest standing claim down."""
    if rules.escalation != "strict":
        raise RulesError(f"the Abázs equilibrium needs bluff.escalation 'strict' (BLUFF-3), got {rules.escalation!r}")
    x = Fraction(start_value)
    challenged = challenge_payoffs(rules, x)
    results = all_claims(rules.ranking)
    values: dict[TwoDiceClaim, Fraction] = {}
    stages: list[Stage] = []
    for standing in [*reversed(results[:-1]), None]:
        stage = _solve_stage(rules, standing, values, challenged)
        stages.append(stage)
        if standing is not None:
            values[standing] = stage.value
    return AbazsEquilibrium(rules.ranking, rules.truth, x, challenged, tuple(reversed(stages)))


def solve_match(rules: AbazsRules, tolerance: Fraction = FIXED_POINT_TOLERANCE) -> AbazsEquilibrium:
    """The match equilibrium: :func:`solve_abazs` at the start value x with
    ``x = 2 V_x(no claim)``, by secant steps from x = 0 (each iterate rounded to a
    fraction with denominator at most 10^15 to keep the exact LPs small)."""
    lo = solve_abazs(rules, 0)
    points = [(Fraction(0), 2 * lo.value)]  # (x, 2 V_x)
    eq = lo
    for _ in range(60):
        if len(points) == 1:
            x = points[0][1]
        else:
            (x0, f0), (x1, f1) = points[-2], points[-1]
            g0, g1 = f0 - x0, f1 - x1
            x = x1 - g1 * (x1 - x0) / (g1 - g0) if g1 != g0 else f1
        x = x.limit_denominator(10**15)
        eq = solve_abazs(rules, x)
        points.append((x, 2 * eq.value))
        if abs(2 * eq.value - x) < tolerance:
            return eq
    raise ArithmeticError(f"the start value did not converge: last x {float(x)!r}, 2V {float(2 * eq.value)!r}")


# ----------------------------------------------------------------------------------------
# Policies
# ----------------------------------------------------------------------------------------
def exact_policy(eq: AbazsEquilibrium) -> RoundPolicy:
    """The equilibrium as a :data:`RoundPolicy` with exact (Fraction) probabilities."""

    def policy(state: BluffState, previous: TwoDiceClaim | None) -> dict[Any, Fraction]:
        if state.phase == CLAIM:
            stage = eq.stage(state.standing)
            row = stage.claim_policy[actual_result(state.dice, eq.ranking).rank]
            return {Claim(c): p for c, p in zip(stage.claims, row) if p}
        stage = eq.stage(previous)
        p = stage.challenge[stage.claims.index(state.standing)]
        return {Challenge(): p, Accept(): 1 - p} if p != 1 else {Challenge(): Fraction(1)}

    return policy


def table_policy(table: Table, ranking: str, plan: str = "match") -> RoundPolicy:
    """A stored equilibrium (``plan``: ``round`` or ``match``) as a :data:`RoundPolicy`."""
    if plan not in PLANS:
        raise RulesError(f"an Abázs table holds the plans {list(PLANS)!r}, got {plan!r}")
    claim_policy, challenge = table[f"{plan}_claim_policy"], table[f"{plan}_challenge_policy"]
    claims = all_claims(ranking)

    def policy(state: BluffState, previous: TwoDiceClaim | None) -> dict[Any, float]:
        if state.phase == CLAIM:
            row = claim_policy[standing_index(state.standing), actual_result(state.dice, ranking).rank]
            return {Claim(claims[c]): float(row[c]) for c in np.flatnonzero(row > 0)}
        p = float(challenge[standing_index(previous), state.standing.rank])
        return {Challenge(): p, Accept(): 1.0 - p} if p < 1.0 else {Challenge(): 1.0}

    return policy


# ----------------------------------------------------------------------------------------
# Independent best response and policy evaluation over the engine's game
# ----------------------------------------------------------------------------------------
def walk_game(rules: AbazsRules) -> AbazsGame:
    """Two rounds of Abázs with chip payoffs from 10 chips each: the walks stop where the
    second round starts, where the engine's state names its starter (BLUFF-10)."""
    return single_round_game(  # type: ignore[return-value]
        AbazsGame, 2, ranking=rules.ranking, truth=rules.truth, next_starter=rules.next_starter, max_rounds=2,
    )


def _chance(game: Game, state: Any) -> list[tuple[Any, Fraction]]:
    # dice chances are k/36: exact as fractions, so exact policies give exact values
    return [(o, Fraction(p).limit_denominator(1296)) for o, p in game.chance_outcomes(state)]


def _walk(game: AbazsGame, seat_policies: Sequence[RoundPolicy | None], player: int, start_bonus: Any = 0) -> Any:
    """Expected result of the first round for ``player`` (his chip change, plus
    ``start_bonus`` if he starts the next round) when seat s plays ``seat_policies[s]``;
    a ``None`` seat (at most one, ``player``) best-responds. Seat 0 starts. Memoised on the
    roll states, which hold all the public history a :data:`RoundPolicy` may use."""
    memo: dict[BluffState, Any] = {}

    def after(state: BluffState) -> Any:
        if game.is_terminal(state) or state.rounds >= 1:
            chips = Fraction(state.chips[player] - state.initial[player])  # whole chips: exact
            return chips + start_bonus if state.active == player else chips
        return roll(state)

    def roll(state: BluffState) -> Any:
        state = replace(state, history=state.history[-1:])  # older claims cannot matter (module docstring)
        if state in memo:
            return memo[state]
        assert state.phase == ROLL and game.current_player(state) == CHANCE
        roller = state.active
        total: Any = 0
        if seat_policies[roller] is None:  # the best responder claims, knowing his dice
            for dice, p in _chance(game, state):
                claiming = game.apply(state, dice)
                best = None
                for claim in game.legal_actions(claiming):
                    answering = game.apply(claiming, claim)
                    answers = seat_policies[game.current_player(answering)](answering, state.standing)  # type: ignore[misc]
                    v = sum(q * after(game.apply(answering, a)) for a, q in answers.items())
                    best = v if best is None or v > best else best
                total += p * best
        else:
            # per claim, what each answer earns summed over the roller's dice: a best
            # responder cannot see the dice, so he picks one answer per claim
            by_claim: dict[Any, dict[Any, Any]] = {}
            for dice, p in _chance(game, state):
                claiming = game.apply(state, dice)
                for claim, q in seat_policies[roller](claiming, None).items():
                    if not q:
                        continue
                    answering = game.apply(claiming, claim)
                    answer_policy = seat_policies[game.current_player(answering)]
                    if answer_policy is None:
                        earned = by_claim.setdefault(claim, {})
                        for a in game.legal_actions(answering):
                            earned[a] = earned.get(a, 0) + p * q * after(game.apply(answering, a))
                    else:
                        for a, r in answer_policy(answering, state.standing).items():
                            total += p * q * r * after(game.apply(answering, a))
            total += sum(max(earned.values()) for earned in by_claim.values())
        memo[state] = total
        return total

    return roll(game.new_round_state((game.rules.start_chips,) * 2, starter=0))


def best_response_value(game: AbazsGame, policy: RoundPolicy, responder: int, start_bonus: Any = 0) -> Any:
    """What seat ``responder`` earns in one round with a best response when the other seat
    plays ``policy`` (seat 0 starts), counting ``start_bonus`` if he starts the next."""
    seats: list[RoundPolicy | None] = [policy, policy]
    seats[responder] = None
    return _walk(game, seats, responder, start_bonus)


def policy_value(game: AbazsGame, policies: Sequence[RoundPolicy], player: int = 0, start_bonus: Any = 0) -> Any:
    """Expected chips of seat ``player`` in one round when seat s plays ``policies[s]``."""
    return _walk(game, list(policies), player, start_bonus)


@dataclass(frozen=True)
class Exploitability:
    """Best-response values against a policy played by both seats in one +-1 round:
    ``best_response[s]`` is what seat s earns by best-responding, ``nash_conv`` their sum,
    ``exploitability`` half of it, in chips per round."""

    best_response: tuple[Any, Any]
    nash_conv: Any
    exploitability: Any


def exploitability(game: AbazsGame, policy: RoundPolicy) -> Exploitability:
    """How much a best responder wins per round against ``policy`` in the +-1 round game,
    averaged over the seats."""
    br = (best_response_value(game, policy, 0), best_response_value(game, policy, 1))
    conv = br[0] + br[1]
    return Exploitability(br, conv, conv / 2)


@dataclass(frozen=True)
class MatchGain:
    """Average chips per round of a player in the match (BLUFF-10 decides who starts
    each round), and the relative value of his starting a round (the bias)."""

    gain: float
    start_value: float


def _root(f: Callable[[float], float], tolerance: float) -> float:
    """A root of a decreasing function (Illinois regula falsi after bracketing)."""
    lo, hi = -1.0, 1.0
    f_lo, f_hi = f(lo), f(hi)
    while f_lo < 0:
        lo, f_lo = lo - 2 * (hi - lo), f(lo - 2 * (hi - lo))
    while f_hi > 0:
        hi, f_hi = hi + 2 * (hi - lo), f(hi + 2 * (hi - lo))
    side = 0
    x = lo
    for _ in range(200):
        x = hi - f_hi * (hi - lo) / (f_hi - f_lo) if f_hi != f_lo else (lo + hi) / 2
        fx = f(x)
        if abs(fx) <= tolerance or hi - lo <= tolerance:
            return x
        if fx > 0:
            lo, f_lo = x, fx
            if side == -1:
                f_hi /= 2
            side = -1
        else:
            hi, f_hi = x, fx
            if side == 1:
                f_lo /= 2
            side = 1
    return x


def match_exploitability(game: AbazsGame, policy: RoundPolicy, tolerance: float = 1e-13) -> MatchGain:
    """A best responder's average chips per round in the match against ``policy``.

    The match is an average-reward problem with two states (the best responder starts the
    round, S, or not, R). With y the relative value of S over R, ``f_S(y)`` and ``f_R(y)``
    are his best one-round results counting y when he starts the next round; the gain g
    and bias solve ``g + y = f_S(y)``, ``g = f_R(y)``. ``f_S - f_R - y`` decreases in y,
    so its root is found by bracketing and regula falsi."""

    def f(seat: int, y: float) -> float:
        return float(best_response_value(game, policy, seat, y))

    y = _root(lambda y: f(0, y) - f(1, y) - y, tolerance)
    return MatchGain(f(1, y), y)


def match_value(game: AbazsGame, first: RoundPolicy, second: RoundPolicy) -> MatchGain:
    """Average chips per round of the player using ``first`` in a match against
    ``second`` (seats alternate by BLUFF-10). One-round results are linear in the bonus
    y, ``e(y) = a + b y``; the gain solves the same two equations as
    :func:`match_exploitability`."""

    def e(starts: bool, y: Any) -> Any:
        seats, me = ([first, second], 0) if starts else ([second, first], 1)
        return policy_value(game, seats, me, y)

    a_s, a_r = e(True, 0), e(False, 0)
    b_s, b_r = e(True, 1) - a_s, e(False, 1) - a_r
    y = (a_s - a_r) / (1 - b_s + b_r)
    return MatchGain(float(a_r + b_r * y), float(y))


# ----------------------------------------------------------------------------------------
# The betting games: one betting round (an abstraction; the whole round is solved exactly
# in kocka.solver.solvers.bluff.rounds)
# ----------------------------------------------------------------------------------------
BettingPolicy = Callable[[BluffState], Mapping[Any, Any]]
"""``policy(state) -> {action: probability}`` at the claim or the answer of a
:func:`betting_round_game` (re-throws are not part of the abstraction)."""

BETTING_GAMES = (BiddingBluffGame.NAME, LiarsPokerGame.NAME)


def betting_round_game(name: str, stake_cap: int = 3, **options: Any) -> Game:
    """The abstraction of the bidding bluff or liar's poker (BLUFF-11..BLUFF-21) whose
    exploitability is measured: two players with ``stake_cap`` chips each, one betting
    round. Seat 0 rolls (after the public roll in liar's poker) and claims with no claim
    standing and a stake of 1..``stake_cap`` (BLUFF-12); seat 1 passes (his chip goes to
    the bank, which the claimant takes: +1, BLUFF-14) or bets (+-k at the reveal,
    BLUFF-15); a top claim must be bet on (BLUFF-5). What follows a pass (the claim stays
    standing and seat 1 must beat it) is cut off: the payoff is the chips moved by this
    betting round. No re-throws (BLUFF-18) and no dice claims (``liar.claim = dice``).
    The engine game itself is :func:`single_round_game`; the walks stop after the first
    answer."""
    if name not in BETTING_GAMES:
        raise RulesError(f"the betting-round abstraction is for {list(BETTING_GAMES)!r}, got {name!r}")
    if isinstance(stake_cap, bool) or not isinstance(stake_cap, int) or not 1 <= stake_cap <= STAKES_LISTED:
        # the walks take the engine's legal_actions, which list every stake up to STAKES_LISTED
        raise RulesError(f"the betting-round abstraction takes a stake_cap of 1 to {STAKES_LISTED}, got {stake_cap!r}")
    game = single_round_game(name, 2, start_chips=stake_cap, **options)
    if getattr(game.rules, "claim", "hand") != "hand":
        raise RulesError(f"the betting-round abstraction needs liar.claim 'hand', got {game.rules.claim!r}")
    return game


def _deals(game: Game, state: BluffState, p: Fraction = Fraction(1)) -> list[tuple[BluffState, Fraction]]:
    """Every claim position reached from ``state`` through chance (public and private
    rolls), with its probability."""
    if game.current_player(state) != CHANCE:
        return [(state, p)]
    return [deal for o, q in _chance(game, state) for deal in _deals(game, game.apply(state, o), p * q)]


def _betting_walk(game: Game, claimant: BettingPolicy | None, answerer: BettingPolicy | None, player: int) -> Fraction:
    """Expected chips of ``player`` in one :func:`betting_round_game` round when seat 0
    claims by ``claimant`` and seat 1 answers by ``answerer``; a ``None`` policy
    best-responds, seeing what his seat sees (his own dice as claimant; as answerer, the
    observation of the answering position, :meth:`~_BluffGame.observation`)."""

    def moved(state: BluffState) -> Fraction:  # the chips this betting round moved
        return Fraction(state.chips[player] - state.initial[player])

    def claims(state: BluffState) -> list:
        return [a for a in game.legal_actions(state) if isinstance(a, Claim)]

    total = Fraction(0)
    by_view: dict[str, dict[Any, Fraction]] = {}  # best-responding answerer: what each answer earns per view
    start = game.new_round_state((game.rules.start_chips,) * 2, starter=0)
    for claiming, p in _deals(game, start):
        if claimant is None:
            best = None
            for claim in claims(claiming):
                answering = game.apply(claiming, claim)
                v = sum(Fraction(q) * moved(game.apply(answering, a)) for a, q in answerer(answering).items())  # type: ignore[misc]
                best = v if best is None or v > best else best
            total += p * best
            continue
        for claim, q in claimant(claiming).items():
            if not q:
                continue
            answering = game.apply(claiming, claim)
            if answerer is None:
                earned = by_view.setdefault(json.dumps(game.observation(answering, 1), sort_keys=True), {})
                for a in game.legal_actions(answering):
                    earned[a] = earned.get(a, Fraction(0)) + p * Fraction(q) * moved(game.apply(answering, a))
            else:
                for a, r in answerer(answering).items():
                    total += p * Fraction(q) * Fraction(r) * moved(game.apply(answering, a))
    return total + sum((max(earned.values()) for earned in by_view.values()), Fraction(0))


def betting_exploitability(game: Game, policy: BettingPolicy) -> Exploitability:
    """Best responses to ``policy`` played in both seats of a :func:`betting_round_game`:
    ``best_response = (as claimant, as answerer)``; the exploitability is half their sum,
    what a best responder gains over the game's value per round, averaged over the seats
    (it needs no value: the seats' values cancel)."""
    br = (_betting_walk(game, None, policy, 0), _betting_walk(game, policy, None, 1))
    return Exploitability(br, br[0] + br[1], (br[0] + br[1]) / 2)


def betting_policy_value(game: Game, claimant: BettingPolicy, answerer: BettingPolicy) -> Fraction:
    """The claimant's expected chips in a :func:`betting_round_game` round."""
    return _betting_walk(game, claimant, answerer, 0)


@dataclass(frozen=True)
class BettingRoundEquilibrium:
    """The exact equilibrium of a :func:`betting_round_game`: ``value`` is the claimant's
    expected chips, ``by_public[public dice]`` the :class:`SignallingSolution` of the
    round after that public roll (``()`` in the bidding bluff) with its ``messages``
    (claim, stake), the hidden-dice types (``type_of[hidden dice]``) and ``answers``."""

    value: Fraction
    by_public: Mapping[tuple, tuple[SignallingSolution, tuple, Mapping[tuple, int], tuple]]

    def policy(self) -> BettingPolicy:
        """The equilibrium as a :data:`BettingPolicy` (exact probabilities)."""

        def policy(state: BluffState) -> dict[Any, Fraction]:
            solved, messages, type_of, answers = self.by_public[tuple(state.public)]
            if state.phase == CLAIM:
                row = solved.sender[type_of[tuple(state.dice)]]
                return {Claim(c, k): p for (c, k), p in zip(messages, row) if p}
            m = messages.index((state.standing, state.stake))
            return {a: p for a, p in zip(answers[m], solved.receiver[m]) if p}

        return policy


def solve_betting_round(game: Game) -> BettingRoundEquilibrium:
    """The exact equilibrium of a :func:`betting_round_game` by :func:`solve_signalling`,
    one signalling game per public roll (the public dice are common knowledge): the
    claimant's types are his hidden dice, merged when their truth over every claim is the
    same (BLUFF-4, BLUFF-20: ``claim_true``); the messages are (claim, stake) for every claim
    allowed with nothing standing (BLUFF-3, achievable ones in liar's poker) and stake
    1..cap; the answers pass (+1 to the claimant, BLUFF-14) and bet (+k true, -k false,
    BLUFF-15), the top claim only bet under ``first_must_bet`` (BLUFF-5)."""
    rules = game.rules
    cap = rules.start_chips
    liar = isinstance(game, LiarsPokerGame)
    publics = [(tuple(d), Fraction(p).limit_denominator(216)) for d, p in outcome_distribution(3)] if liar else [((), Fraction(1))]
    by_public: dict[tuple, Any] = {}
    value = Fraction(0)
    for public, chance in publics:
        claims = game.claims_above(None, public)  # BLUFF-3 with nothing standing; BLUFF-20 in liar's poker
        top_only_bet = rules.top_claim == "first_must_bet"
        messages = tuple((c, k) for c in claims for k in range(1, cap + 1))
        answers = tuple((Bet(),) if c == claims[-1] and top_only_bet else (Pass(), Bet()) for c, _ in messages)
        patterns: dict[tuple[bool, ...], list] = {}
        type_of: dict[tuple, int] = {}
        for hidden, p in outcome_distribution(2):
            truth = tuple(game.claim_true(c, hidden, public) for c in claims)
            entry = patterns.setdefault(truth, [len(patterns), Fraction(0)])
            entry[1] += Fraction(p).limit_denominator(36)
            type_of[tuple(hidden)] = entry[0]
        weights = [w for _, w in patterns.values()]
        payoffs = [
            [[Fraction(1) if isinstance(a, Pass) else Fraction(k if truth[claims.index(c)] else -k) for a in ans]
             for (c, k), ans in zip(messages, answers)]
            for truth in patterns
        ]  # fmt: skip
        solved = solve_signalling(weights, payoffs)
        by_public[public] = (solved, messages, type_of, answers)
        value += chance * solved.value
    return BettingRoundEquilibrium(value, by_public)


# ----------------------------------------------------------------------------------------
# Ranking the actions of a state (for agents and hints)
# ----------------------------------------------------------------------------------------
_FROM_STATE: Any = object()


def rank(
    game: AbazsGame, table: Table, state: BluffState, previous: Any = _FROM_STATE, plan: str = "match"
) -> list[Decision]:
    """Every legal action of the player to act, with its value against the equilibrium
    opponent (chips, plus the start value of the ``match`` plan), best first; ``detail``
    gives the action's equilibrium probability and, for an answer, P(claim is true) given
    the claim (Bayes over the claimant's equilibrium policy). ``previous`` is the claim
    the standing claim beat; by default the state's own (``state.previous``)."""
    if previous is _FROM_STATE:
        previous = state.previous
    ranking = game.rules.ranking
    claims = all_claims(ranking)
    values = table[f"{plan}_stage_value"]
    win, lose = (float(v) for v in table[f"{plan}_challenged"])
    policy = table_policy(table, ranking, plan)
    actions = game.legal_actions(state)
    if not actions:
        raise IllegalActionError(f"{game.NAME}: no decision in {game.describe_state(state)}")
    chosen = policy(state, previous)
    decisions = []
    if state.phase == CLAIM:
        challenge = table[f"{plan}_challenge_policy"][standing_index(state.standing)]
        for action in actions:
            c = action.claim
            true = game.claim_true(c, state.dice)
            accepted = 0.0 if c == claims[-1] else -float(values[standing_index(c)])
            p = float(challenge[c.rank])
            value = p * (win if true else lose) + (1 - p) * accepted
            decisions.append(Decision(action, value, game.describe_action(action, state), {
                "P(chosen)": float(chosen.get(action, 0.0)), "true": true, "P(challenged)": p,
            }))
    elif state.phase == ANSWER:
        row = table[f"{plan}_claim_policy"][standing_index(previous)]
        chance = claim_probabilities(ranking)
        reps = _representatives(ranking)
        claim = state.standing
        true_of = {r: game.claim_true(claim, reps[r]) for r in claims}
        made = sum(float(chance[r]) * row[r.rank, claim.rank] for r in claims)
        if made > 0:  # Bayes over the claimant's equilibrium policy
            p_true = sum(float(chance[r]) * row[r.rank, claim.rank] for r in claims if true_of[r]) / made
        else:  # a claim the equilibrium never makes here: the chance a roll makes it true
            p_true = sum(float(chance[r]) for r in claims if true_of[r])
        for action in actions:
            if isinstance(action, Challenge):
                value = -(p_true * win + (1 - p_true) * lose)
            else:
                value = float(values[standing_index(claim)])
            decisions.append(Decision(action, value, game.describe_action(action, state), {
                "P(chosen)": float(chosen.get(action, 0.0)), "P(claim true)": float(p_true), "on equilibrium path": bool(made > 0),
            }))
    else:
        raise IllegalActionError(f"{game.NAME}: no decision in phase {state.phase!r}")
    return sorted(decisions, key=lambda d: (-d.value, -d.detail["P(chosen)"]))


# ----------------------------------------------------------------------------------------
# The table solver (kocka-solve build abazs)
# ----------------------------------------------------------------------------------------
class AbazsEquilibriumSolver:
    """``kocka-solve build abazs [-r ranking=pro] [-r truth=at_least] [-r next_starter=loser]``:
    the exact round and match equilibria of two-player Abázs, with their exploitability
    measured by the independent best response."""

    kind = KIND
    description = "two-player round and match equilibria (exact LPs), exploitability by best response"

    def build(self, game: Game, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = check_rules(game)
        start = time.perf_counter()
        solved = {"round": solve_abazs(rules), "match": solve_match(rules)}
        lp_seconds = time.perf_counter() - start
        arrays: dict[str, np.ndarray] = {}
        for plan, eq in solved.items():
            arrays.update(eq.arrays(plan))
        table = Table(arrays, None)  # type: ignore[arg-type]
        return arrays, {
            "lp_seconds": round(lp_seconds, 3),
            **_measure(rules, table, solved),
        }

    def summary(self, table: Table) -> dict[str, Any]:
        extra = table.meta.extra
        return {
            "round: starter value (chips)": extra.get("round", {}).get("starter_value"),
            "round: exploitability (chips per round)": extra.get("round", {}).get("round_exploitability"),
            "match: start value x": extra.get("match", {}).get("start_value_float"),
            "match: exploitability (chips per round)": extra.get("match", {}).get("match_exploitability"),
            "round plan in the match: exploitability": extra.get("round", {}).get("match_exploitability"),
        }

    def layout(self, game: Game, meta: TableMeta) -> dict[str, tuple[tuple[int, ...], Any]]:
        """The arrays of :meth:`AbazsEquilibrium.arrays` for both plans: standing index s
        (no claim, then each claim), result rank r and claim rank c over the ranking."""
        n = len(all_claims(check_rules(game).ranking))
        arrays: dict[str, tuple[tuple[int, ...], Any]] = {}
        for plan in PLANS:
            arrays.update({f"{plan}_claim_policy": ((n + 1, n, n), np.float64),
                           f"{plan}_challenge_policy": ((n + 1, n), np.float64),
                           f"{plan}_stage_value": ((n + 1,), np.float64),
                           f"{plan}_challenged": ((2,), np.float64)})
        return arrays

    def check(self, game: Game, table: Table) -> list[str]:
        rules = check_rules(game)
        problems = []
        for plan in PLANS:
            policy = table[f"{plan}_claim_policy"]
            live = ~np.isnan(table[f"{plan}_stage_value"])
            sums = policy[live].sum(axis=2)
            if not np.allclose(sums, 1.0, atol=1e-9):
                problems.append(f"{plan}: claim probabilities do not sum to 1, worst {sums.flat[np.abs(sums - 1).argmax()]!r}")
        wgame = walk_game(rules)
        round_policy = table_policy(table, rules.ranking, "round")
        measured = float(exploitability(wgame, round_policy).exploitability)
        if not measured < EXPLOITABILITY_TARGET:
            problems.append(f"round: exploitability {measured!r} is not below {EXPLOITABILITY_TARGET!r}")
        played = float(policy_value(wgame, [round_policy, round_policy], 0))
        stored = float(table["round_stage_value"][0])
        if abs(played - stored) > 1e-9:
            problems.append(f"round: the policy earns the starter {played!r} per round, the table says {stored!r}")
        gain = match_exploitability(wgame, table_policy(table, rules.ranking, "match")).gain
        if not gain < EXPLOITABILITY_TARGET:
            problems.append(f"match: exploitability {gain!r} is not below {EXPLOITABILITY_TARGET!r}")
        return problems


def _measure(rules: AbazsRules, table: Table, solved: Mapping[str, AbazsEquilibrium]) -> dict[str, Any]:
    """Exploitability of both plans in both games, for the table's metadata."""
    wgame = walk_game(rules)
    facts: dict[str, Any] = {}
    for plan, eq in solved.items():
        policy = table_policy(table, rules.ranking, plan)
        one_round = exploitability(wgame, policy)
        facts[plan] = {
            "starter_value": str(eq.value),
            "starter_value_float": float(eq.value),
            "start_value_float": float(eq.start_value),
            "stage_values": {str(s.standing) if s.standing else "none": str(s.value) for s in eq.stages},
            "round_exploitability": float(one_round.exploitability),
            "round_best_response": [float(v) for v in one_round.best_response],
            "match_exploitability": match_exploitability(wgame, policy).gain,
        }
    return facts


ABAZS_EQUILIBRIUM = AbazsEquilibriumSolver()


__all__ = [
    "ABAZS_EQUILIBRIUM", "AbazsEquilibrium", "BETTING_GAMES", "BettingPolicy", "BettingRoundEquilibrium",
    "EXPLOITABILITY_TARGET", "Exploitability", "LPError", "LPSolution", "MatchGain", "PLANS", "RoundPolicy",
    "SignallingSolution", "Stage", "best_response_value", "betting_exploitability", "betting_policy_value",
    "betting_round_game", "canonical_game", "challenge_payoffs", "exact_policy", "exploitability",
    "match_exploitability", "match_value", "policy_value", "rank", "solve_abazs", "solve_betting_round", "solve_lp",
    "solve_match", "solve_signalling", "standing_index", "table_policy", "walk_game",
]  # fmt: skip
