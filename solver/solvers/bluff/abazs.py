"""Exact equilibria of two-player Abázs (RULES.md BLUFF-3, BLUFF-5, BLUFF-7..BLUFF-10): the
round and the match, their table (``kocka-solve build abazs``), and their exploitability.

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

**Exact LP.** Each stage is solved by the exact rational simplex of
:mod:`kocka.solver.solvers.bluff.lp` (Bland's rule, in :class:`~fractions.Fraction`): the
roller's sequence-form LP (max over claim probabilities per type of the sum over claims of
min(challenge, accept) payoff) and the responder's LP
(min over challenge probabilities of the roller's best-response value); equal optimal
values certify both strategies exactly (LP duality). Types whose truth pattern over the
allowed claims is the same (e.g. every result at or below s) are merged first. Truth,
claim order and chances come from :mod:`kocka.solver.rules.bluff` (``is_true``,
``all_claims``, ``claim_probabilities``, the engine's ``claims_above`` and ``claim_true``);
nothing is re-implemented.

**Exploitability** is measured on the engine's own game (:func:`walk_game`: two rounds of
:func:`~kocka.solver.rules.bluff.single_round_game`, so that the engine says who starts
next), by the independent best response of :mod:`kocka.solver.solvers.bluff.best_response`,
which shares no code with the LP:

* *round*: ``(BR_0 + BR_1) / 2``, what a best responder gains per round in the +-1 round
  game over its value, averaged over the two seats (half the NashConv);
* *match*: the best responder's average chips per round in the match, the gain of the
  two-state (who starts) average-reward problem, found by a root search on the bias of
  starting (:func:`abazs_match_exploitability`).

A policy sees the state and the *previous* standing claim (the one the standing claim
beat, ``state.previous``, from the round's claim history): the responder needs it (the
same claim means something else when it beat a high claim than when it opened the round).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import IllegalActionError, RulesError
from kocka.solver.base.table_file import Layout, Table, TableMeta
from kocka.solver.models.table_solver import TableSolver
from kocka.solver.rules.base import Game
from kocka.solver.rules.bluff import (
    ANSWER, CLAIM, AbazsGame, AbazsRules, Accept, BluffState, Challenge, Claim, TwoDiceClaim, actual_result, all_claims,
    claim_probabilities, is_true, single_round_game,
)
from kocka.solver.solvers.bluff.best_response import (
    BestResponseWalk, Exploitability, RememberingGame, TurnPolicy, exploitability,
)
from kocka.solver.solvers.bluff.lp import LPError, solve_signalling
from kocka.solver.solvers.bluff.two_player import (
    EQUILIBRIUM_KIND, VALUE_TIE_DIGITS, check_two_player_round, result_dice, standing_index,
)

ABAZS_EXPLOITABILITY_TARGET = 1e-3
"""Chips per round (issue 6) that a best responder may gain against an Abázs plan; the
solutions are at 0 up to rounding."""
FIXED_POINT_TOLERANCE = Fraction(1, 10**12)
"""How close the match's start value x comes to 2 V_x(no claim)."""
PLANS = ("round", "match")
"""The two equilibria a table holds: of one +-1 round, and of the match (module docstring)."""

RoundPolicy = Callable[[BluffState, "TwoDiceClaim | None"], Mapping[Any, Any]]
"""``policy(state, previous) -> {action: probability}`` at a decision state of an Abázs
round; ``previous`` is the claim the standing claim beat (None if it opened the round),
``state.previous`` when the state holds the round's history."""


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
    standing claim that can still be beaten, indexed by
    :func:`~kocka.solver.solvers.bluff.two_player.standing_index`.
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


def check_abazs_rules(game: Game) -> AbazsRules:
    """The equilibrium is for two-player Abázs with BLUFF-3 escalation."""
    if not isinstance(game, AbazsGame):
        raise RulesError(f"the bluff equilibrium solves Abázs, got {game.NAME!r}")
    check_two_player_round(game, "Abázs")
    return game.rules


def canonical_abazs_game(game: Game) -> AbazsGame:
    """The game whose table serves ``game``: only ``bluff.ranking``, ``bluff.truth`` and
    ``abazs.next_starter`` change the equilibria (chips, seating and the end do not), so
    one table per such triple serves every chip count."""
    rules = check_abazs_rules(game)
    return AbazsGame(AbazsRules(ranking=rules.ranking, truth=rules.truth, next_starter=rules.next_starter), num_players=2)


def _solve_stage(
    rules: AbazsRules, standing: TwoDiceClaim | None, later: Mapping[TwoDiceClaim, Fraction],
    challenged: tuple[Fraction, Fraction],
) -> Stage:
    """One stage's equilibrium by the roller's and the responder's LPs (module docstring).
    ``later`` holds V(c) for every claim c above ``standing`` except the top one;
    ``challenged`` is what the claimant gets when a challenged claim is (true, false)."""
    results = all_claims(rules.ranking)
    chance = claim_probabilities(rules.ranking)
    reps = result_dice(rules.ranking)
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


@lru_cache(maxsize=32)
def solve_abazs(rules: AbazsRules, start_value: Fraction | int = 0) -> AbazsEquilibrium:
    """The exact equilibrium of the two-player Abázs round whose challenges also carry the
    start value x (:func:`challenge_payoffs`; 0: the +-1 round), stage by stage from the
    highest standing claim down. Remembered (frozen, exact): a build solves the round and
    then the match from the same x = 0."""
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
# Exploitability and policy values (the independent best response of best_response.py)
# ----------------------------------------------------------------------------------------
class _AbazsWalkGame(RememberingGame, AbazsGame):
    """The Abázs engine remembering its answers: every measurement walks the same round."""


def walk_game(rules: AbazsRules) -> AbazsGame:
    """Two rounds of Abázs with chip payoffs from 10 chips each: the walks stop where the
    second round starts, where the engine's state names its starter (BLUFF-10). One game
    per ranking, truth and next starter, shared by every walk (a build's, an adaptive
    agent's at each move), which remembers its answers
    (:class:`~kocka.solver.solvers.bluff.best_response.RememberingGame`: a round's few
    thousand positions)."""
    return _walk_game(rules.ranking, rules.truth, rules.next_starter)


@lru_cache(maxsize=16)
def _walk_game(ranking: str, truth: str, next_starter: str) -> AbazsGame:
    return single_round_game(  # type: ignore[return-value]
        _AbazsWalkGame, 2, ranking=ranking, truth=truth, next_starter=next_starter, max_rounds=2,
    )


def _turn_policy(policy: RoundPolicy) -> TurnPolicy:
    """A :data:`RoundPolicy` as the walk calls it: the previous claim from the state's history
    (the walk keeps the claim to beat, so at an answer ``state.previous`` is the claim the
    standing claim beat, and None at a claim, where no Abázs policy reads it)."""
    return lambda state: policy(state, state.previous)


def _walk(game: AbazsGame, seat_policies: Sequence[RoundPolicy | None], player: int, start_bonus: Any = 0) -> Any:
    """Expected result of the first round for ``player`` (his chip change, plus
    ``start_bonus`` if he starts the next round) when seat s plays ``seat_policies[s]``;
    a ``None`` seat (at most one, ``player``) best-responds. Seat 0 starts. Exact for exact
    policies (:class:`~kocka.solver.solvers.bluff.best_response.BestResponseWalk`)."""

    def terminal(state: BluffState) -> Any:
        chips = Fraction(state.chips[player] - state.initial[player])  # whole chips: exact
        return chips + start_bonus if state.active == player else chips

    seats = [None if p is None else _turn_policy(p) for p in seat_policies]
    return BestResponseWalk(game, seats, player, terminal, exact=True).after(_round_start(game))


def _round_start(game: AbazsGame) -> BluffState:
    return game.new_round_state((game.rules.start_chips,) * 2, starter=0)


def best_response_value(game: AbazsGame, policy: RoundPolicy, responder: int, start_bonus: Any = 0) -> Any:
    """What seat ``responder`` earns in one round with a best response when the other seat
    plays ``policy`` (seat 0 starts), counting ``start_bonus`` if he starts the next."""
    seats: list[RoundPolicy | None] = [policy, policy]
    seats[responder] = None
    return _walk(game, seats, responder, start_bonus)


def policy_value(game: AbazsGame, policies: Sequence[RoundPolicy], player: int = 0, start_bonus: Any = 0) -> Any:
    """Expected chips of seat ``player`` in one round when seat s plays ``policies[s]``."""
    return _walk(game, list(policies), player, start_bonus)


def abazs_exploitability(game: AbazsGame, policy: RoundPolicy) -> Exploitability:
    """How much a best responder wins per round against ``policy`` in the +-1 round game,
    averaged over the seats (exact for exact policies)."""
    return exploitability(game, _round_start(game), _turn_policy(policy), exact=True)


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


def abazs_match_exploitability(game: AbazsGame, policy: RoundPolicy, tolerance: float = 1e-13) -> MatchGain:
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
    :func:`abazs_match_exploitability`."""

    def e(starts: bool, y: Any) -> Any:
        seats, me = ([first, second], 0) if starts else ([second, first], 1)
        return policy_value(game, seats, me, y)

    a_s, a_r = e(True, 0), e(False, 0)
    b_s, b_r = e(True, 1) - a_s, e(False, 1) - a_r
    y = (a_s - a_r) / (1 - b_s + b_r)
    return MatchGain(float(a_r + b_r * y), float(y))


# ----------------------------------------------------------------------------------------
# Ranking the actions of a state (for agents and hints)
# ----------------------------------------------------------------------------------------
_FROM_STATE: Any = object()


def rank_abazs(
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
        reps = result_dice(ranking)
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
    # values equal but for float noise tie (a mixed strategy is indifferent between the
    # moves it plays): the move the equilibrium plays most often first
    return sorted(decisions, key=lambda d: (-round(d.value, VALUE_TIE_DIGITS), -d.detail["P(chosen)"]))


# ----------------------------------------------------------------------------------------
# The table solver (kocka-solve build abazs)
# ----------------------------------------------------------------------------------------
class AbazsEquilibriumSolver(TableSolver):
    """``kocka-solve build abazs [-r ranking=pro] [-r truth=at_least] [-r next_starter=loser]``:
    the exact round and match equilibria of two-player Abázs, with their exploitability
    measured by the independent best response."""

    kind = EQUILIBRIUM_KIND
    description = "two-player round and match equilibria (exact LPs), exploitability by best response"
    game_type = AbazsGame

    def build(self, game: Game, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        rules = check_abazs_rules(game)
        start = time.perf_counter()
        solved = {"round": solve_abazs(rules), "match": solve_match(rules)}
        lp_seconds = time.perf_counter() - start
        arrays: dict[str, np.ndarray] = {}
        for plan, eq in solved.items():
            arrays.update(eq.arrays(plan))
        table = Table(arrays, None)  # type: ignore[arg-type]
        return arrays, {
            "lp_seconds": round(lp_seconds, 3),
            **_measure_plans(rules, table, solved),
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

    def layout(self, game: Game, meta: TableMeta) -> Layout:
        """The arrays of :meth:`AbazsEquilibrium.arrays` for both plans: standing index s
        (no claim, then each claim), result rank r and claim rank c over the ranking."""
        n = len(all_claims(check_abazs_rules(game).ranking))
        arrays: dict[str, tuple[tuple[int, ...], Any]] = {}
        for plan in PLANS:
            arrays.update({f"{plan}_claim_policy": ((n + 1, n, n), np.float64),
                           f"{plan}_challenge_policy": ((n + 1, n), np.float64),
                           f"{plan}_stage_value": ((n + 1,), np.float64),
                           f"{plan}_challenged": ((2,), np.float64)})
        return arrays

    def check(self, game: Game, table: Table) -> list[str]:
        rules = check_abazs_rules(game)
        problems = []
        for plan in PLANS:
            policy = table[f"{plan}_claim_policy"]
            live = ~np.isnan(table[f"{plan}_stage_value"])
            sums = policy[live].sum(axis=2)
            if not np.allclose(sums, 1.0, atol=1e-9):
                problems.append(f"{plan}: claim probabilities do not sum to 1, worst {sums.flat[np.abs(sums - 1).argmax()]!r}")
        wgame = walk_game(rules)
        round_policy = table_policy(table, rules.ranking, "round")
        measured = float(abazs_exploitability(wgame, round_policy).exploitability)
        if not measured < ABAZS_EXPLOITABILITY_TARGET:
            problems.append(f"round: exploitability {measured!r} is not below {ABAZS_EXPLOITABILITY_TARGET!r}")
        played = float(policy_value(wgame, [round_policy, round_policy], 0))
        stored = float(table["round_stage_value"][0])
        if abs(played - stored) > 1e-9:
            problems.append(f"round: the policy earns the starter {played!r} per round, the table says {stored!r}")
        gain = abazs_match_exploitability(wgame, table_policy(table, rules.ranking, "match")).gain
        if not gain < ABAZS_EXPLOITABILITY_TARGET:
            problems.append(f"match: exploitability {gain!r} is not below {ABAZS_EXPLOITABILITY_TARGET!r}")
        return problems

    def spot_check(self, game: Game, table: Table, seed: int) -> list[str]:
        """Two seeded stages of each plan re-solved from the stored stages they lead to
        (:func:`stage_problems`: the value identity and both sides' equilibrium
        conditions, to 1e-9)."""
        rules = check_abazs_rules(game)
        rng = np.random.default_rng(seed)
        problems = []
        for plan in PLANS:
            live = np.flatnonzero(~np.isnan(table[f"{plan}_stage_value"]))
            for s in rng.choice(live, size=min(2, len(live)), replace=False):
                problems += stage_problems(rules, table, plan, int(s))
        return problems


def stage_problems(rules: AbazsRules, table: Table, plan: str, s: int, tol: float = 1e-9) -> list[str]:
    """Stage ``s`` (a standing index) of the stored ``plan`` against the stage's rules
    (module docstring), from the stored values of the stages it leads to: each result's
    claim probabilities sum to 1 over the allowed claims (BLUFF-3); the stored value is
    what the stored strategies earn the roller; every claim a result makes earns it the
    most any allowed claim would (the roller's best reply); and at every claim made, the
    responder's challenge chance is a best reply to the claims' truth (indifferent where
    mixed). Problems found."""
    claims = all_claims(rules.ranking)
    standing = None if s == 0 else claims[s - 1]
    allowed = [c.rank for c in AbazsGame(rules, num_players=2).claims_above(standing)]
    chance = claim_probabilities(rules.ranking)
    reps = result_dice(rules.ranking)
    weight = np.array([float(chance[r]) for r in claims])
    truth = np.array([[is_true(claims[c], reps[r], rules) for c in allowed] for r in claims])
    policy = table[f"{plan}_claim_policy"][s][:, allowed]
    q = table[f"{plan}_challenge_policy"][s][allowed]
    value = table[f"{plan}_stage_value"]
    win, lose = (float(v) for v in table[f"{plan}_challenged"])
    accepted = np.array([0.0 if c == claims[-1].rank else -float(value[c + 1]) for c in allowed])
    where = f"{plan} stage over {standing!s}" if standing else f"{plan} stage with no claim"
    # what a challenge pays is the rules' (BLUFF-10), with the start value x of the plan:
    # 0 for the round, twice the starter's value for the match (module docstring)
    start = 0.0 if plan == "round" else 2 * float(value[0])
    rules_pay = [float(v) for v in challenge_payoffs(rules, Fraction(start))]
    if max(abs(win - rules_pay[0]), abs(lose - rules_pay[1])) > 1e-9:
        return [f"{plan}: a challenge pays {[win, lose]!r}, the rules {rules_pay!r}"]
    problems = []
    sums = table[f"{plan}_claim_policy"][s].sum(axis=1)
    if np.abs(sums - 1).max() > tol or policy.min() < -tol or not 0 - tol <= q.min() <= q.max() <= 1 + tol:
        return [f"{where}: the stored strategies are not probabilities over the allowed claims"]
    challenged = np.where(truth, win, lose)
    pay = q * challenged + (1 - q) * accepted            # [result, claim]: what the roller gets
    earned = float(weight @ (policy * pay).sum(axis=1))
    if not np.isfinite(pay).all() or abs(earned - float(value[s])) > tol:
        problems.append(f"{where}: value {float(value[s])!r}, its strategies earn {earned!r}")
    used = policy > tol
    short = np.where(used, pay.max(axis=1, keepdims=True) - pay, 0.0).max()
    if short > tol:
        problems.append(f"{where}: a result makes a claim that earns {short!r} less than its best")
    mass = weight[:, None] * policy                      # P(result and claim)
    gain = (mass * (challenged - accepted)).sum(axis=0)  # the claimant's gain from a challenge
    top = np.array([c == claims[-1].rank for c in allowed])
    wrong = ~top & (((q > tol) & (gain > tol)) | ((q < 1 - tol) & (gain < -tol)))
    if wrong.any():
        problems.append(f"{where}: the responder's challenge of {claims[allowed[int(np.argmax(wrong))]]!s} is not "
                        "a best reply to the claims made")
    return problems


def _measure_plans(rules: AbazsRules, table: Table, solved: Mapping[str, AbazsEquilibrium]) -> dict[str, Any]:
    """Exploitability of both plans in both games, for the table's metadata."""
    wgame = walk_game(rules)
    facts: dict[str, Any] = {}
    for plan, eq in solved.items():
        policy = table_policy(table, rules.ranking, plan)
        one_round = abazs_exploitability(wgame, policy)
        facts[plan] = {
            "starter_value": str(eq.value),
            "starter_value_float": float(eq.value),
            "start_value_float": float(eq.start_value),
            "stage_values": {str(s.standing) if s.standing else "none": str(s.value) for s in eq.stages},
            "round_exploitability": float(one_round.exploitability),
            "round_best_response": [float(v) for v in one_round.best_response],
            "match_exploitability": abazs_match_exploitability(wgame, policy).gain,
        }
    return facts


ABAZS_EQUILIBRIUM = AbazsEquilibriumSolver()


__all__ = [
    "ABAZS_EQUILIBRIUM", "ABAZS_EXPLOITABILITY_TARGET", "AbazsEquilibrium", "MatchGain", "PLANS", "RoundPolicy",
    "Stage",
    "abazs_exploitability", "abazs_match_exploitability", "best_response_value", "canonical_abazs_game",
    "challenge_payoffs", "check_abazs_rules", "exact_policy", "match_value", "policy_value", "rank_abazs",
    "solve_abazs", "solve_match", "stage_problems", "table_policy", "walk_game",
]  # fmt: skip
