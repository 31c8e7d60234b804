"""Exact two-player equilibria of the betting bluff games, the whole round (RULES.md
BLUFF-11..BLUFF-21): the bidding bluff and liar's kockapóker.

**The round decomposes.** With two players the bank never carries over (the one answerer
either passes, and the active player takes the bank at once, BLUFF-14, or bets, and the
round ends, BLUFF-15), so a position where "X is about to roll and must beat claim s,
holding x chips against y" is public: nothing hidden from earlier turns matters any more
(a passed claim is never revealed, and the next active player rolls afresh). Such a
position is a *stage*; its value V(s, x, y) to the roller is the value of a one-shot
signalling game:

* the roller's private *type* is what his dice make (two-dice games: the result; liar's
  poker: the hand with the three public dice); types whose truth over every allowed claim
  is the same are merged (BLUFF-4);
* his *message* is a claim c above s (BLUFF-3; achievable with the public dice in liar's
  poker, BLUFF-20) and a stake k of 1..x (BLUFF-12); in liar's poker he may instead throw
  one die again (BLUFF-18), which leads to a *re-throw stage* of its own: the kept die is
  shown and the new die is fresh, so nothing he knew before is hidden any more, and the
  re-throw is worth a fixed R(s, x, y, shown die) to him, an *outside option*;
* the answerer sees the message and passes (the claimant gets +1 and the claim stands:
  the answerer rolls next, holding y - 1 against x + 1, worth 1 - V(c, y - 1, x + 1) to
  the claimant; a pass of one's last chip ends the game, BLUFF-6) or bets (the reveal pays
  +-k, BLUFF-15); he cannot bet more chips than he has (BLUFF-13), and the top claim must
  be bet on (BLUFF-5, ``first_must_bet``), then with all his chips if he has fewer than k.

Stages are solved from the top claim down, the stakes of each chip count in turn, exactly
in :class:`~fractions.Fraction`.

**Each stage in closed form (the answerer's side).** A lie pays the same to every type
(only true or false matters), and a true claim pays its claimant at least what a lie of
the same claim and stake pays. So the answerer's strategy is summed up by the *lie value*
lambda, the most any lie earns: type t earns max(lambda, its outside options, max over its
true claims c of T_c), where T_c, the most a true claim c earns, is smallest when the
answerer bets on each stake k just enough that a liar there earns at most lambda:

    P(bet | c, k) = clip((P_c - lambda) / (k + P_c), 0, 1)   (P_c the pass value; 1 if
    k < P_c; 0 if k + P_c <= 0 or the answerer holds fewer than k chips)

Then T_c(lambda) = max(min(K, P_c), P_c + rho (P_c - lambda)) with rho = (k* - P_c) /
(k* + P_c) at the best stake k* of the K = min(x, y) the answerer can bet on (the largest
when P_c > 0, the smallest above -P_c when P_c < 0), and T_c = P_c when the claimant can
stake more than the answerer holds (no bet possible). The answerer's problem is the
one-dimensional convex piecewise-linear minimisation over lambda of

    F(lambda) = sum_t w_t max(lambda, O_t, max_{c true for t} T_c(lambda)),

minimised exactly at one of its breakpoints (:func:`solve_stage`). ``lambda`` is at
least the worst a lie can be made to earn: -1 (stake 1, bet on), or P_c for a claim
that cannot be bet on.

**The claimant's side.** Given lambda*, each type uses only messages that earn it its
value; a true claim at a stake with a mixed answer needs lie mass rho x its truthful mass
beside it (that makes the answerer indifferent), and the optimality of lambda* (zero in
the subgradient of F) is exactly the balance of the lie mass the liars supply and the
true claims need. The split is found in closed form and the lies are placed by an exact
max-flow (a type cannot lie with a claim that is true for it); a degenerate stage where
that fails is solved by the exact sequence-form LP of
:func:`~kocka.solver.solvers.bluff.equilibrium.solve_signalling` instead.

**Certified.** Every stage is checked exactly: the claimant's best reply to the answerer's
strategy over *every* message (every claim and stake) earns V, and the answerer's best
reply to the claimant's strategy concedes V; so both strategies are optimal (LP duality)
and V is the stage's value.

**Liar's poker** (BLUFF-17..BLUFF-21): the public roll is a chance node before the round,
and the public rolls fall into 31 classes that play the same round position for position
(:func:`public_classes`), each solved once and written out for its members
(:func:`solve_liars_class`); the re-throw is an outside option whose value is its own stage.

**Whole matches** of both games (BLUFF-6): the same stages with a reveal priced by the
next round's chance to win, W (:func:`match_claim_payoffs`), solved by policy iteration
(:func:`_policy_iteration`; :func:`solve_bidding_match`, :func:`solve_liars_match`).

**Exploitability** is measured by an independent best response (:func:`round_exploitability`,
:func:`match_exploitability`, the walk :class:`_RoundWalk`) that walks the engine's own game
(:func:`~kocka.solver.rules.bluff.single_round_game`, ``legal_actions``, ``apply``,
``chance_outcomes``, ``observation``) and shares no code with the solver above.
"""
from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from joblib import Parallel, delayed

from kocka.solver.solvers.bluff.equilibrium import LPError, check_two_player_round, solve_signalling
from kocka.solver.base.decision import BuildOptions, Decision
from kocka.solver.base.dice import all_outcomes, outcome_distribution
from kocka.solver.base.errors import RulesError
from kocka.solver.base.progress import Progress
from kocka.solver.rules.base import CHANCE
from kocka.solver.rules.bluff import (
    Bet, BiddingBluffGame, BiddingBluffRules, BluffState, Claim, LiarsPokerGame, LiarsPokerRules, Pass, Reroll,
    actual_result, claim_probabilities, single_round_game, top_claim,
)
from kocka.solver.base.table_file import Table, TableMeta

# ----------------------------------------------------------------------------------------
# One stage: a signalling game with stakes
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StageClaim:
    """A claim of a stage as the stage sees it: ``pass_value`` is what the claimant gets
    when the answerer passes (1 - V of the next stage, or 1 where a pass ends the round);
    ``forced``: the answerer must bet (the top claim under ``first_must_bet``, BLUFF-5).
    A bet pays the claimant the chips bet, +k if the claim is true and -k if not (the
    round plan); ``win[k - 1]`` and ``lose[k - 1]``, when given, are what a bet on stake k
    is worth to him instead (the match plan: his chance to win the match after the
    reveal; a forced bet already counts an answerer who bets all he has)."""

    pass_value: Fraction
    forced: bool = False
    win: tuple[Fraction, ...] | None = None
    lose: tuple[Fraction, ...] | None = None


@dataclass(frozen=True)
class StageGame:
    """A stage (module docstring): the claimant holds ``active_chips``, the answerer
    ``responder_chips``. Type t has chance ``weights[t]``; ``truth[t][c]`` says whether
    claim c is true for it; ``outside[j]`` is the value of outside option j (a re-throw)
    and ``available[t][j]`` whether type t has it. Stakes run 1..active_chips."""

    weights: tuple[Fraction, ...]
    truth: tuple[tuple[bool, ...], ...]
    claims: tuple[StageClaim, ...]
    active_chips: int
    responder_chips: int
    outside: tuple[Fraction, ...] = ()
    available: tuple[tuple[bool, ...], ...] = ()

    @property
    def bettable(self) -> int:
        """K: the stakes the answerer can bet on are 1..K (BLUFF-13)."""
        return min(self.active_chips, self.responder_chips)

    def outside_value(self, t: int) -> Fraction | None:
        values = [v for v, ok in zip(self.outside, self.available[t] if self.available else ()) if ok]
        return max(values) if values else None


OUTSIDE = -1
"""``Message(OUTSIDE, j)``: take outside option j (a re-throw) instead of claiming."""


@dataclass(frozen=True, order=True)
class Message:
    """What a claimant does at a stage: claim ``claim`` (an index into the stage's claims)
    with ``stake``, or (``claim == OUTSIDE``) take outside option ``stake``."""

    claim: int
    stake: int


def bet_probability(pass_value: Any, lie_value: Any, stake: int, responder_chips: int, forced: bool,
                    win: Any = None, lose: Any = None) -> Any:
    """The answerer's equilibrium chance of betting on a claim with pass value P =
    ``pass_value`` and ``stake`` when the lie value is ``lie_value`` (module docstring):
    just enough that a liar earns at most the lie value, (P - lie value) / (P - lose),
    clipped to 0..1; 1 where a bet hurts a true claim too (win < P) and on a forced claim
    (BLUFF-5), 0 where a bet would help a lie (lose >= P) and on a stake above his chips
    (BLUFF-13). ``win`` and ``lose`` (default +-stake) are what the bet pays the claimant."""
    if forced:
        return 1
    if stake > responder_chips:
        return 0
    p = pass_value
    win = stake if win is None else win
    lose = -stake if lose is None else lose
    if p - lose <= 0:
        return 0  # betting would help the liar and the truth alike
    if win < p:
        return 1  # betting hurts the truth and the liar alike
    beta = (p - lie_value) / (p - lose)
    return 0 if beta <= 0 else 1 if beta >= 1 else beta


def _amount(stage: StageGame, claim: StageClaim, stake: int) -> int:
    """Chips moved by a bet at the reveal: the stake, or all the answerer holds when
    BLUFF-5 obliges him with fewer (BLUFF-13)."""
    return min(stake, stage.responder_chips) if claim.forced else stake


def bet_values(stage: StageGame, claim: StageClaim, stake: int) -> tuple[Any, Any]:
    """What a bet on ``claim`` with ``stake`` pays the claimant: (if true, if false)."""
    if claim.win is not None:
        return claim.win[stake - 1], claim.lose[stake - 1]
    amount = _amount(stage, claim, stake)
    return amount, -amount


def message_payoffs(stage: StageGame, lie_value: Fraction, c: int, stake: int) -> tuple[Fraction, Fraction, Fraction]:
    """(P(bet), what a true claim earns, what a lie earns) for claim ``c`` with ``stake``."""
    claim = stage.claims[c]
    win, lose = bet_values(stage, claim, stake)
    beta = bet_probability(claim.pass_value, lie_value, stake, stage.responder_chips, claim.forced, win, lose)
    passed = (1 - beta) * claim.pass_value
    return beta, beta * win + passed, passed + beta * lose


def canonical_stakes(stage: StageGame, c: int) -> tuple[int, ...]:
    """The stakes of claim ``c`` that differ for the answerer: 1..K that he can bet on, and
    K + 1 (the smallest he cannot) when the claimant holds more; on a forced claim 1..K
    (a bet of all his chips is the same from K up)."""
    a, k = stage.active_chips, stage.bettable
    if stage.claims[c].forced:
        return tuple(range(1, k + 1))
    return tuple(range(1, k + 1)) + ((k + 1,) if a > k else ())


# ----- the answerer's side: F(lambda) -----
Line = tuple[Fraction, Fraction]
"""(slope, intercept): the value slope * lambda + intercept."""


def _claim_lines(stage: StageGame, c: int) -> tuple[Fraction, list[Line]]:
    """(lowest lie value the answerer can enforce, lines whose maximum is T_c(lambda))."""
    claim = stage.claims[c]
    if claim.win is not None:
        return _general_claim_lines(stage, claim)
    if claim.forced:
        return Fraction(-1), [(Fraction(0), Fraction(stage.bettable))]
    p = claim.pass_value
    k_max = stage.bettable
    if stage.active_chips > k_max:  # a stake he cannot bet on: truth and lie both earn P
        return p, [(Fraction(0), p)]
    lines: list[Line] = [(Fraction(0), min(Fraction(k_max), p))]
    if p > 0:
        best = k_max if k_max > p else None
    elif p < 0:
        best = int(-p) + 1  # the smallest stake above -P
        best = best if best <= k_max else None
    else:
        best = k_max
    if best is not None:
        rho = (best - p) / (best + p)
        lines.append((-rho, p + rho * p))
    return min(p, Fraction(-1)), lines


def _general_claim_lines(stage: StageGame, claim: StageClaim) -> tuple[Fraction, list[Line]]:
    """:func:`_claim_lines` for any bet payoffs: for each stake the least truth payoff
    once every lie there earns at most lambda, max(P, P + rho (P - lambda)) with rho =
    (win - P) / (P - lose), or win where a bet hurts the truth too, or P where it would
    help the lie; the lowest lie value is the largest of the stakes' lowest."""
    stakes = range(1, stage.bettable + 1)
    if claim.forced:
        return max(claim.lose[k - 1] for k in stakes), [(Fraction(0), max(claim.win[k - 1] for k in stakes))]
    p = claim.pass_value
    low = p if stage.active_chips > stage.bettable else None
    constant, slopes = (p if low is not None else None), {}
    for k in stakes:
        win, lose = claim.win[k - 1], claim.lose[k - 1]
        a, b = win - p, p - lose
        if b <= 0:
            floor, value = p, p
        elif a < 0:
            floor, value = lose, win
        else:
            floor, value = lose, p
            rho = a / b
            slopes[-rho] = max(slopes.get(-rho, p + rho * p), p + rho * p)
        low = floor if low is None or floor > low else low
        constant = value if constant is None or value > constant else constant
    lines = [(Fraction(0), constant)] + [(m, q) for m, q in slopes.items() if m != 0]
    return low, _upper_envelope(lines, low)


def _upper_envelope(lines: Sequence[Line], low: Fraction) -> list[Line]:
    """The lines that are the maximum somewhere on [low, oo) (convex hull trick)."""
    by_slope: dict[Fraction, Fraction] = {}
    for m, q in lines:
        by_slope[m] = max(by_slope.get(m, q), q)
    ordered = sorted(by_slope.items())  # slope ascending: the steepest descent first
    hull: list[Line] = []
    for m, q in ordered:
        while hull:
            m1, q1 = hull[-1]
            # at the left end the line of smaller slope is higher; it stays in the hull only if it is
            # the maximum somewhere right of low
            if m1 * low + q1 <= m * low + q:
                hull.pop()
                continue
            if len(hull) >= 2:
                m0, q0 = hull[-2]
                # the new line overtakes hull[-2] before hull[-1] does: hull[-1] is never on top
                if (q - q0) * (m0 - m1) <= (q1 - q0) * (m0 - m):
                    hull.pop()
                    continue
            break
        hull.append((m, q))
    return hull


def _type_lines(stage: StageGame, claim_lines: Sequence[list[Line]]) -> list[list[Line]]:
    lines = []
    for t, truth in enumerate(stage.truth):
        own: list[Line] = [(Fraction(1), Fraction(0))]
        outside = stage.outside_value(t)
        if outside is not None:
            own.append((Fraction(0), outside))
        for c, true in enumerate(truth):
            if true:
                own.extend(claim_lines[c])
        lines.append(sorted(set(own)))
    return lines


def _objective(weights: Sequence[Fraction], lines: Sequence[list[Line]], lam: Fraction) -> Fraction:
    return sum((w * max(m * lam + q for m, q in own) for w, own in zip(weights, lines)), Fraction(0))


def minimise_lie_value(stage: StageGame) -> tuple[Fraction, Fraction]:
    """(lambda*, F(lambda*)): the answerer's optimal lie value and the stage's value,
    by exact evaluation of the convex piecewise-linear F at its breakpoints (the
    leftmost minimiser)."""
    per_claim = [_claim_lines(stage, c) for c in range(len(stage.claims))]
    low = max(lo for lo, _ in per_claim)
    lines = _type_lines(stage, [ls for _, ls in per_claim])
    candidates = {low}
    for own in lines:
        for i, (m1, q1) in enumerate(own):
            for m2, q2 in own[i + 1 :]:
                if m1 != m2:
                    x = (q2 - q1) / (m1 - m2)
                    if x > low:
                        candidates.add(x)
    ordered = sorted(candidates)
    # F is convex on the sorted breakpoints: the leftmost i with F(i) <= F(i + 1)
    lo, hi = 0, len(ordered) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _objective(stage.weights, lines, ordered[mid]) <= _objective(stage.weights, lines, ordered[mid + 1]):
            hi = mid
        else:
            lo = mid + 1
    return ordered[lo], _objective(stage.weights, lines, ordered[lo])


# ----- the claimant's side -----
INFINITE = None
"""An upper bound on lie mass that does not exist (a message a liar may use freely)."""


@dataclass(frozen=True)
class _Option:
    """A best message of one type at lambda*: ``kind`` is ``truth``, ``lie`` or
    ``outside``; a truthful message needs lie mass beside it in ``[low, high]`` x its own
    (``high`` None: any amount)."""

    kind: str
    message: Message | None
    low: Fraction = Fraction(0)
    high: Fraction | None = Fraction(0)


def _ratio_bounds(stage: StageGame, c: int, stake: int, beta: Fraction) -> tuple[Fraction, Fraction | None]:
    """Lie mass per unit of truthful mass that keeps the answer ``beta`` a best reply at
    (c, stake): the sender's bet-minus-pass gain tau (win - P) - Lambda (P - lose) must be
    0 (mixed), >= 0 (the answerer passes) or <= 0 (he bets)."""
    claim = stage.claims[c]
    if claim.forced or stake > stage.responder_chips:
        return Fraction(0), INFINITE
    win, lose = bet_values(stage, claim, stake)
    p = claim.pass_value
    if p - lose <= 0:
        return Fraction(0), INFINITE  # a pass is best whatever the mix (beta is 0)
    rho = (win - p) / (p - lose)
    if 0 < beta < 1:
        return rho, rho
    if beta == 0:
        return Fraction(0), rho
    return max(Fraction(0), rho), INFINITE


@dataclass(frozen=True)
class StageSolution:
    """An exact equilibrium of a :class:`StageGame`: ``value`` to the claimant, the lie
    value ``lie_value`` (the answerer's strategy, :func:`bet_probability`) and
    ``sender[t]``, type t's probability of each message; ``method`` says how the claimant's
    side was found (``closed form`` or ``LP``)."""

    value: Fraction
    lie_value: Fraction
    sender: tuple[Mapping[Message, Fraction], ...]
    method: str = "closed form"


def _max_flow(capacity: dict[Any, dict[Any, Any]], source: Any, sink: Any, flow: dict) -> Fraction:
    """Augment ``flow`` (edge -> amount, updated in place) from ``source`` to ``sink`` along
    shortest paths (Edmonds-Karp, exact); capacities None are unbounded. Returns the flow
    added."""
    added = Fraction(0)
    while True:
        parent: dict[Any, tuple[Any, bool]] = {source: (None, True)}
        queue = [source]
        for node in queue:
            for nxt, cap in capacity.get(node, {}).items():
                if nxt not in parent and (cap is None or cap - flow.get((node, nxt), 0) > 0):
                    parent[nxt] = (node, True)
                    queue.append(nxt)
            for prev in capacity:
                if node in capacity[prev] and prev not in parent and flow.get((prev, node), 0) > 0:
                    parent[prev] = (node, False)
                    queue.append(prev)
            if sink in parent:
                break
        if sink not in parent:
            return added
        path, node = [], sink
        while node != source:
            prev, forward = parent[node]
            path.append((prev, node, forward))
            node = prev
        push: Fraction | None = None
        for prev, node, forward in path:
            if forward:
                cap = capacity[prev][node]
                room = None if cap is None else cap - flow.get((prev, node), 0)
            else:
                room = flow[(node, prev)]
            if room is not None and (push is None or room < push):
                push = room
        assert push is not None and push > 0, "a path of unbounded capacity only: the supply edges bound every path"
        for prev, node, forward in path:
            if forward:
                flow[(prev, node)] = flow.get((prev, node), 0) + push
            else:
                flow[(node, prev)] -= push
        added += push


def _closed_form_sender(
    stage: StageGame, lam: Fraction, values: Sequence[Fraction], table: Mapping[tuple[int, int], tuple]
) -> tuple[dict, ...] | None:
    """The claimant's equilibrium strategy at lambda* (module docstring), or None where the
    closed form does not apply (a degenerate stage: the caller solves the LP)."""
    options: list[list[_Option]] = []
    for t, truth in enumerate(stage.truth):
        v = values[t]
        own: list[_Option] = []
        for (c, k), (beta, true_pay, lie_pay) in table.items():
            if truth[c] and true_pay == v:
                low, high = _ratio_bounds(stage, c, k, beta)
                own.append(_Option("truth", Message(c, k), low, high))
        if any(not truth[c] and lie_pay == v for (c, _), (_, _, lie_pay) in table.items()):
            own.append(_Option("lie", None))
        for j, (value, ok) in enumerate(zip(stage.outside, stage.available[t] if stage.available else ())):
            if ok and value == v:
                own.append(_Option("outside", Message(OUTSIDE, j)))
        if not own:
            return None
        options.append(own)

    def supply_first(o: _Option) -> tuple:
        return (0 if o.kind == "lie" else 1 if o.kind == "outside" else 2, o.low)

    def demand_first(o: _Option) -> tuple:
        if o.kind != "truth":
            return (1, 0 if o.kind == "outside" else 1)
        return (0, 0 if o.high is None else 1, -(o.high or 0))

    ends = [(min(own, key=demand_first), min(own, key=supply_first)) for own in options]  # (theta = 0, theta = 1)
    # lie messages a liar may use with no truth beside them (they absorb surplus lies)
    sinks = [
        (c, k) for (c, k), (beta, _, lie_pay) in table.items()
        if lie_pay == lam and _ratio_bounds(stage, c, k, beta)[1] is INFINITE
    ]

    def totals(end: int) -> tuple[Fraction, Fraction, Fraction | None]:
        supply, low, high = Fraction(0), Fraction(0), Fraction(0)
        for w, pair in zip(stage.weights, ends):
            o = pair[end]
            if o.kind == "lie":
                supply += w
            elif o.kind == "truth":
                low += w * o.low
                high = None if high is None or o.high is None else high + w * o.high
        return supply, low, (None if sinks else high)

    s0, lo0, hi0 = totals(0)
    s1, lo1, hi1 = totals(1)
    # theta: supply s(theta) >= demanded low(theta), and <= high(theta)
    gap0, gap1 = s0 - lo0, s1 - lo1
    if gap1 < 0:
        return None
    theta = Fraction(0) if gap0 >= 0 else -gap0 / (gap1 - gap0)
    supply = s0 + theta * (s1 - s0)
    if hi0 is not None and hi1 is not None and supply > hi0 + theta * (hi1 - hi0):
        return None
    mass: list[dict[Any, Fraction]] = []
    demand: dict[Message, list[Fraction | None]] = {}
    liars: dict[int, Fraction] = {}
    for t, (w, pair) in enumerate(zip(stage.weights, ends)):
        share: dict[Any, Fraction] = {}
        for o, part in ((pair[0], 1 - theta), (pair[1], theta)):
            if part == 0:
                continue
            key = "lie" if o.kind == "lie" else o.message
            share[key] = share.get(key, Fraction(0)) + w * part
            if o.kind == "truth":
                bounds = demand.setdefault(o.message, [Fraction(0), Fraction(0)])
                bounds[0] += w * part * o.low
                bounds[1] = None if bounds[1] is None or o.high is None else bounds[1] + w * part * o.high
        if "lie" in share:
            liars[t] = share["lie"]
        mass.append(share)
    # place the lies: liars -> lie messages of claims false for them
    source, sink = "source", "sink"
    capacity: dict[Any, dict[Any, Any]] = {source: {("type", t): m for t, m in liars.items()}}
    targets = {m: b for m, b in demand.items() if table[(m.claim, m.stake)][2] == lam and (b[1] is None or b[1] > 0)}
    for m in sinks:
        targets.setdefault(Message(*m), [Fraction(0), None])
    for t in liars:
        capacity[("type", t)] = {("msg", m): None for m in targets if not stage.truth[t][m.claim]}
    flow: dict = {}
    capacity.update({("msg", m): {sink: b[0]} for m, b in targets.items()})
    needed = sum((b[0] for b in targets.values()), Fraction(0))
    if sum((b[0] for m, b in demand.items() if m not in targets), Fraction(0)) > 0:
        return None  # lie mass demanded where no liar earns lambda
    if _max_flow(capacity, source, sink, flow) != needed:
        return None
    for m, b in targets.items():
        capacity[("msg", m)][sink] = b[1]
    _max_flow(capacity, source, sink, flow)
    if sum(flow.get((source, ("type", t)), 0) for t in liars) != sum(liars.values()):
        return None
    sender = []
    for t, (w, share) in enumerate(zip(stage.weights, mass)):
        probs: dict[Message, Fraction] = {}
        for key, amount in share.items():
            if key != "lie":
                probs[key] = probs.get(key, Fraction(0)) + amount / w
        for m in targets:
            placed = flow.get((("type", t), ("msg", m)), 0)
            if placed:
                probs[m] = probs.get(m, Fraction(0)) + placed / w
        sender.append({m: p for m, p in probs.items() if p})
    return tuple(sender)


# ----- certification -----
def sender_best_reply(stage: StageGame, lam: Fraction) -> Fraction:
    """What the claimant earns by a best reply to the answerer's strategy of lie value
    ``lam``, over every message (every claim and every stake 1..x) and outside option."""
    best = [stage.outside_value(t) for t in range(len(stage.weights))]
    for c in range(len(stage.claims)):
        for k in range(1, stage.active_chips + 1):
            _, true_pay, lie_pay = message_payoffs(stage, lam, c, k)
            for t, truth in enumerate(stage.truth):
                pay = true_pay if truth[c] else lie_pay
                if best[t] is None or pay > best[t]:
                    best[t] = pay
    return sum((w * b for w, b in zip(stage.weights, best)), Fraction(0))


def answerer_best_reply(stage: StageGame, sender: Sequence[Mapping[Message, Fraction]]) -> Fraction:
    """What the claimant's strategy ``sender`` earns when the answerer best-replies to it
    (at each message the answer that gives the claimant least; a forced bet or a stake
    above the answerer's chips has one answer)."""
    total = Fraction(0)
    at: dict[Message, list[Fraction]] = {}
    for t, (w, probs) in enumerate(zip(stage.weights, sender)):
        for m, p in probs.items():
            if m.claim == OUTSIDE:
                total += w * p * stage.outside[m.stake]
                continue
            claim = stage.claims[m.claim]
            win, lose = bet_values(stage, claim, m.stake) if claim.forced or m.stake <= stage.responder_chips else (0, 0)
            pay = at.setdefault(m, [Fraction(0), Fraction(0)])
            pay[0] += w * p * (win if stage.truth[t][m.claim] else lose)  # bet
            pay[1] += w * p * claim.pass_value  # pass
    for m, (bet, passed) in at.items():
        claim = stage.claims[m.claim]
        if claim.forced:
            total += bet
        elif m.stake > stage.responder_chips:
            total += passed
        else:
            total += min(bet, passed)
    return total


def _lp_sender(stage: StageGame, value: Fraction) -> tuple[dict, ...]:
    """The claimant's strategy by the exact sequence-form LP over the canonical stakes and
    the outside options (types without an option get a payoff below every other)."""
    messages = [Message(c, k) for c in range(len(stage.claims)) for k in canonical_stakes(stage, c)]
    messages += [Message(OUTSIDE, j) for j in range(len(stage.outside))]
    floor = -Fraction(4 * (stage.active_chips + stage.responder_chips + 4))
    payoffs = []
    for t, truth in enumerate(stage.truth):
        row = []
        for m in messages:
            if m.claim == OUTSIDE:
                row.append([stage.outside[m.stake] if stage.available[t][m.stake] else floor])
                continue
            claim = stage.claims[m.claim]
            if claim.forced or m.stake <= stage.responder_chips:
                win, lose = bet_values(stage, claim, m.stake)
                bet = win if truth[m.claim] else lose
            if claim.forced:
                row.append([bet])
            elif m.stake > stage.responder_chips:
                row.append([claim.pass_value])
            else:
                row.append([bet, claim.pass_value])
        payoffs.append(row)
    solved = solve_signalling(stage.weights, payoffs)
    if solved.value != value:
        raise LPError(f"the stage LP gives {solved.value}, the lie-value minimisation {value}")
    return tuple({m: p for m, p in zip(messages, probs) if p} for probs in solved.sender)


def solve_stage(stage: StageGame) -> StageSolution:
    """The exact equilibrium of one stage (module docstring), certified: the claimant's
    best reply to the answerer earns the value, and the answerer's best reply to the
    claimant concedes it."""
    lam, value = minimise_lie_value(stage)
    table = {
        (c, k): message_payoffs(stage, lam, c, k) for c in range(len(stage.claims)) for k in canonical_stakes(stage, c)
    }
    values = []
    for t, truth in enumerate(stage.truth):
        v = stage.outside_value(t)
        for (c, _), (_, true_pay, lie_pay) in table.items():
            pay = true_pay if truth[c] else lie_pay
            if v is None or pay > v:
                v = pay
        values.append(v)
    sender = _closed_form_sender(stage, lam, values, table)
    method = "closed form"
    if sender is None or answerer_best_reply(stage, sender) != value:
        sender, method = _lp_sender(stage, value), "LP"
    reply = sender_best_reply(stage, lam)
    conceded = answerer_best_reply(stage, sender)
    if not reply == value == conceded:
        raise LPError(f"stage not certified: value {value}, claimant's best reply {reply}, answerer's {conceded}")
    return StageSolution(value, lam, sender, method)


# ----------------------------------------------------------------------------------------
# The round of the two-dice bidding bluff
# ----------------------------------------------------------------------------------------
MAX_TOTAL = 40
"""The bidding-bluff table holds every stage whose two players hold at most this many
chips together: every position of a match from up to 20 chips each (the chips of two
players only move between them, BLUFF-2, and with two players the bank is always empty)."""


@dataclass(frozen=True)
class SolvedStage:
    """One stage of a round, solved: the roller must beat ``standing`` holding ``chips[0]``
    against ``chips[1]``; ``claims`` are the allowed claims (engine objects), ``types[t]``
    the private results (or dice) merged into stage type t; ``game`` the stage itself."""

    standing: Any
    chips: tuple[int, int]
    claims: tuple[Any, ...]
    types: tuple[tuple[Any, ...], ...]
    game: StageGame
    solution: StageSolution


def check_betting_rules(game: Any) -> None:
    """The exact round is for two players with BLUFF-3 escalation and claims of hands."""
    if not isinstance(game, (BiddingBluffGame, LiarsPokerGame)):
        raise RulesError(f"the betting-round equilibrium solves the bidding bluff and liar's poker, got {game.NAME!r}")
    check_two_player_round(game, game.NAME, " (the 'bayes' bot plays more)")
    if getattr(game.rules, "claim", "hand") != "hand":
        raise RulesError(f"the {game.NAME} equilibrium needs liar.claim 'hand', got {game.rules.claim!r}")


def _stage_claims(game: Any, claims: Sequence[Any], top: Any, x: int, y: int,
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


def two_dice_stage(game: BiddingBluffGame, standing: Any, x: int, y: int, value_of: Any) -> tuple[StageGame, tuple, tuple]:
    """The stage "roll and beat ``standing`` holding x against y" of the bidding bluff:
    types are the results (BLUFF-7) merged by their truth over the allowed claims (BLUFF-3,
    BLUFF-4, the engine's ``claims_above`` and ``claim_true``); ``value_of(c, x, y)`` gives
    the values of later stages. Returns (stage, claims, results of each type)."""
    claims, patterns, weights, types = _two_dice_types(game, standing)
    stage = StageGame(weights, patterns, _stage_claims(game, claims, game.claims()[-1], x, y, value_of), x, y)
    return stage, claims, types


def _two_dice_types(game: BiddingBluffGame, standing: Any) -> tuple[tuple, tuple, tuple, tuple]:
    """The claims allowed over ``standing`` and the stage types of the bidding bluff: the
    results (BLUFF-7) merged by their truth over those claims. Returns (claims, truth
    patterns, the weight of each type, the results of each type). The round's stages and
    the match's stages have the same types (only their payoffs differ), so both read them
    from here."""
    ranking = game.rules.ranking
    chance = claim_probabilities(ranking)
    claims = tuple(game.claims_above(standing))
    groups: dict[tuple[bool, ...], list] = {}
    for result, dice in _result_dice(ranking).items():
        groups.setdefault(tuple(game.claim_true(c, dice) for c in claims), []).append(result)
    patterns = tuple(groups)
    weights = tuple(sum((chance[r] for r in groups[p]), Fraction(0)) for p in patterns)
    return claims, patterns, weights, tuple(tuple(groups[p]) for p in patterns)


def _result_dice(ranking: str) -> dict[Any, tuple[int, int]]:
    """One pair of dice per result (truth depends on the result only, BLUFF-4, BLUFF-7)."""
    reps: dict[Any, tuple[int, int]] = {}
    for dice in all_outcomes(2):
        reps.setdefault(actual_result(dice, ranking), tuple(dice))
    return reps


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


def _rounded(value: Fraction, exact: bool) -> Fraction:
    """A later stage's value as the earlier stages use it: exact, or rounded to the
    nearest double (exactly representable as a Fraction), which keeps the numbers small;
    each stage is still solved and certified exactly for the values it is given."""
    return value if exact else Fraction(float(value))


def solve_two_dice_orbit(rules: BiddingBluffRules, group: Sequence[tuple[int, int]], exact: bool = False) -> list[SolvedStage]:
    """Every stage of one orbit of chip pairs (:func:`orbits`), from the top claim down."""
    game = BiddingBluffGame(rules, num_players=2)
    values: dict[tuple, Fraction] = {}

    def value_of(c: Any, x: int, y: int) -> Fraction:
        return values[(c, x, y)]

    solved = []
    for standing in [*reversed(game.claims()[:-1]), None]:
        for x, y in group:
            stage, claims, types = two_dice_stage(game, standing, x, y, value_of)
            solution = solve_stage(stage)
            values[(standing, x, y)] = _rounded(solution.value, exact)
            solved.append(SolvedStage(standing, (x, y), claims, types, stage, solution))
    return solved


# ----------------------------------------------------------------------------------------
# Independent best response over the engine's game (shares no code with the solver above)
# ----------------------------------------------------------------------------------------
TurnPolicy = Callable[[BluffState], Mapping[Any, float]]
"""``policy(state) -> {action: probability}`` at any decision of a betting round: a claim
(with stake), a re-throw, a pass or a bet."""


def round_game(game: Any, rounds: int = 1) -> Any:
    """The engine game of one round with ``game``'s rules (:func:`single_round_game`:
    seat order 0, 1; chip payoffs; the game ends with the round, or with ``rounds = 2``
    where the engine's state names the next round's starter, BLUFF-16)."""
    options = {k: v for k, v in game.rules.options().items() if k not in ("seating", "max_rounds", "payoff")}
    return single_round_game(type(game), 2, max_rounds=rounds, **options)


class _RoundWalk:
    """Expected chips of ``player`` in one round when seat s plays ``policies[s]``; a None
    seat best-responds, knowing what his seat sees: as roller his own dice (and his whole
    turn), as answerer the observation of the answering position. A turn is the roller's
    chance nodes and decisions and the answer; what follows a pass is a new turn whose
    value is memoised on its starting state (which holds all a policy may read)."""

    def __init__(self, game: Any, policies: Sequence[TurnPolicy | None], player: int,
                 terminal: Callable[[BluffState], float] | None = None) -> None:
        self.game, self.policies, self.player = game, list(policies), player
        self.terminal = terminal
        self.memo: dict[BluffState, float] = {}

    def after(self, state: BluffState) -> float:
        """The player's chips from ``state`` on (or ``terminal(state)`` once the round is
        over, when given): the round is over, or a turn starts."""
        game = self.game
        if game.is_terminal(state) or state.rounds >= 1:
            if self.terminal is not None:
                return self.terminal(state)
            return float(state.chips[self.player] - state.initial[self.player])
        if state.phase == "public":  # liar's poker: the round's public roll
            return sum(p * self.after(game.apply(state, o)) for o, p in game.chance_outcomes(state))
        key = replace(state, history=state.history[-1:])  # older claims cannot matter
        if key not in self.memo:
            self.memo[key] = self.turn(key)
        return self.memo[key]

    def turn(self, state: BluffState) -> float:
        roller = state.active
        if self.policies[roller] is None:
            return self.best(state)
        buckets: dict[str, dict[Any, float]] = {}
        total = self.follow(state, 1.0, buckets)
        return total + sum(max(earned.values()) for earned in buckets.values())

    def best(self, state: BluffState) -> float:
        """The best-responding roller's value of his turn from ``state``."""
        game = self.game
        if game.current_player(state) == CHANCE:
            return sum(p * self.best(game.apply(state, o)) for o, p in game.chance_outcomes(state))
        if state.phase == "answer":
            answers = self.policies[game.current_player(state)](state)
            return sum(q * self.after(game.apply(state, a)) for a, q in answers.items() if q)
        return max(self.best(game.apply(state, a)) for a in game.legal_actions(state))

    def follow(self, state: BluffState, reach: float, buckets: dict) -> float:
        """The roller follows his policy; a best-responding answerer's answers are summed
        per observation in ``buckets`` (he picks one answer per observation)."""
        game = self.game
        if game.current_player(state) == CHANCE:
            return sum(self.follow(game.apply(state, o), reach * p, buckets) for o, p in game.chance_outcomes(state))
        mover = game.current_player(state)
        if state.phase != "answer":
            return sum(self.follow(game.apply(state, a), reach * q, buckets) for a, q in self.policies[mover](state).items() if q)
        if self.policies[mover] is None:
            earned = buckets.setdefault(json.dumps(game.observation(state, mover), sort_keys=True), {})
            for a in game.legal_actions(state):
                earned[a] = earned.get(a, 0.0) + reach * self.after(game.apply(state, a))
            return 0.0
        return sum(reach * q * self.after(game.apply(state, a)) for a, q in self.policies[mover](state).items() if q)


def round_value(game: Any, chips: Sequence[int], policies: Sequence[TurnPolicy | None], player: int = 0) -> float:
    """Expected chips of seat ``player`` in one round from ``chips`` (seat 0 starts) when
    seat s plays ``policies[s]`` (None: a best response)."""
    walk_game = round_game(game)
    return _RoundWalk(walk_game, policies, player).after(walk_game.new_round_state(tuple(chips), starter=0))


@dataclass(frozen=True)
class RoundExploitability:
    """Best responses to a policy played by both seats in one round from ``chips``:
    ``best_response[s]`` is what seat s earns by best-responding (seat 0 starts),
    ``exploitability`` their mean, what a best responder gains per round over the value."""

    chips: tuple[int, int]
    best_response: tuple[float, float]
    exploitability: float


def round_exploitability(game: Any, chips: Sequence[int], policy: TurnPolicy) -> RoundExploitability:
    """Exploitability of ``policy`` in one round from ``chips`` (both seats)."""
    br = (round_value(game, chips, [None, policy], 0), round_value(game, chips, [policy, None], 1))
    return RoundExploitability(tuple(chips), br, (br[0] + br[1]) / 2)


# ----------------------------------------------------------------------------------------
# The bidding-bluff table and its plan
# ----------------------------------------------------------------------------------------
KIND = "equilibrium"
EXPLOITABILITY_TARGET = 1e-9
"""Chips per round that a best responder may gain over the value against a round plan."""
MEASURED_CHIPS = ((1, 1), (3, 2), (10, 10))
"""Where a build measures the round plan's exploitability (the value's chips too)."""
HEADLINE_CHIPS = (10, 10)


def standing_index(claims: Sequence[Any], standing: Any) -> int:
    """0 for no standing claim, else the claim's position in ``claims`` + 1 (a table row)."""
    return 0 if standing is None else claims.index(standing) + 1


def canonical_bidding_game(game: Any) -> BiddingBluffGame:
    """The game whose table serves ``game``: with two players only ``bluff.ranking``,
    ``bluff.truth`` and ``bid.top_claim`` change the round (the stake caps agree, both
    next-active rules name the bettor, and the table holds every chip count of a match
    from up to 20 chips each), so one table per such triple serves all."""
    check_betting_rules(game)
    rules = game.rules
    return BiddingBluffGame(BiddingBluffRules(ranking=rules.ranking, truth=rules.truth, top_claim=rules.top_claim), 2)


def _two_dice_rows(stages: Sequence[SolvedStage], claims: Sequence[Any], max_total: int) -> dict[str, list]:
    """The table rows of solved stages (see :meth:`BiddingEquilibriumSolver.layout`)."""
    rows: dict[str, list] = {"cell": [], "value": [], "lie": [], "key": [], "choice": [], "prob": [], "method": []}
    n = len(claims)
    for st in stages:
        s = standing_index(claims, st.standing)
        x, y = st.chips
        rows["cell"].append((s, x, y))
        rows["value"].append(float(st.solution.value))
        rows["lie"].append(float(st.solution.lie_value))
        rows["method"].append(st.solution.method)
        for results, probs in zip(st.types, st.solution.sender):
            for result in results:
                key = ((s * max_total + x) * max_total + y) * n + claims.index(result)
                for m, p in sorted(probs.items()):
                    rows["key"].append(key)
                    rows["choice"].append((claims.index(st.claims[m.claim]), m.stake))
                    rows["prob"].append(float(p))
    return rows


def _arrays_from_rows(rows: Mapping[str, list], n_stand: int, max_total: int) -> dict[str, np.ndarray]:
    value = np.full((n_stand, max_total, max_total), np.nan)
    lie = np.full((n_stand, max_total, max_total), np.nan)
    for (s, x, y), v, lam in zip(rows["cell"], rows["value"], rows["lie"]):
        value[s, x, y], lie[s, x, y] = v, lam
    order = np.argsort(np.asarray(rows["key"], dtype=np.int64), kind="stable")
    return {
        "value": value,
        "lie_value": lie,
        "claim_key": np.asarray(rows["key"], dtype=np.int64)[order],
        "claim_choice": np.asarray(rows["choice"], dtype=np.int16).reshape(-1, 2)[order],
        "claim_prob": np.asarray(rows["prob"], dtype=np.float64)[order],
    }


class _Answers:
    """What both betting games' plans answer alike (a mixin): the answerer's values of a
    bet and of a pass, from the plan's ``bet_values`` and ``pass_value`` (chips, or the
    chance to win the match, :class:`MatchPayoffs`). ``where(state)`` is what the plan's
    queries take before the claim (liar's poker: the public roll); the two players'
    values add up to ``constant_sum`` (0 chips in a round, 1 in a match)."""

    constant_sum = 0.0

    def answer_values(self, state: BluffState, x: int, y: int, q: float) -> dict[type, float]:
        """The answerer's values of a bet and of a pass when the claim is true with ``q``."""
        where = self.where(state)
        forced = self.forced(*where, state.standing)
        win, lose = self.bet_values(*where, state.standing, state.stake, x, y)
        passed = 0.0 if forced else self.pass_value(*where, state.standing, x, y)
        return {Bet: self.constant_sum - (q * win + (1.0 - q) * lose), Pass: self.constant_sum - passed}


class BiddingPlan(_Answers):
    """The stored round equilibrium of the two-player bidding bluff, read from its table:
    stage values, the answerer's bets (:func:`bet_probability` from the stored lie value)
    and the roller's claims; :meth:`policy` is it as a :data:`TurnPolicy`."""

    value_name = "expected chips this round vs equilibrium"

    def __init__(self, game: BiddingBluffGame, table: Any) -> None:
        self.game = game
        self.claims = game.claims()
        self.max_total = int(table.meta.extra["max_total"])
        self.value_table, self.lie_table = table["value"], table["lie_value"]
        self.keys, self.choices, self.probs = table["claim_key"], table["claim_choice"], table["claim_prob"]
        self.results = _result_dice(game.rules.ranking)
        self.chance = {r: float(p) for r, p in claim_probabilities(game.rules.ranking).items()}

    def covers(self, x: int, y: int) -> bool:
        return x >= 1 and y >= 1 and x + y <= self.max_total

    def _cell(self, standing: Any, x: int, y: int) -> tuple[int, int, int]:
        if not self.covers(x, y):
            raise RulesError(
                f"the {self.game.NAME} equilibrium table holds chips adding up to at most {self.max_total}, "
                f"got {x} and {y}"
            )
        return standing_index(self.claims, standing), x, y

    def value(self, standing: Any, x: int, y: int) -> float:
        """V(standing, x, y): the roller's chips from here to the end of the round."""
        return float(self.value_table[self._cell(standing, x, y)])

    def lie_value(self, standing: Any, x: int, y: int) -> float:
        return float(self.lie_table[self._cell(standing, x, y)])

    @staticmethod
    def where(state: BluffState) -> tuple:
        return ()

    def top(self) -> Any:
        return self.claims[-1]

    def forced(self, claim: Any) -> bool:
        return claim == self.claims[-1] and self.game.rules.top_claim == "first_must_bet"

    def pass_value(self, claim: Any, x: int, y: int) -> float:
        """What a pass of ``claim`` is worth to its claimant (module docstring)."""
        if claim == self.claims[-1] or y == 1:
            return 1.0
        return 1.0 - self.value(claim, y - 1, x + 1)

    def bet_probability(self, standing: Any, x: int, y: int, claim: Any, stake: int) -> float:
        """The answerer's chance of betting on ``claim`` with ``stake`` made over
        ``standing`` by a roller holding x against his y."""
        forced = self.forced(claim)
        passed = 0.0 if forced else self.pass_value(claim, x, y)
        win, lose = self.bet_values(claim, stake, x, y) if forced or stake <= y else (0.0, 0.0)
        return float(bet_probability(passed, self.lie_value(standing, x, y), stake, y, forced, win, lose))

    def claim_distribution(self, standing: Any, x: int, y: int, result: Any) -> list[tuple[Any, int, float]]:
        """The roller's equilibrium (claim, stake, probability) with ``result``."""
        s, x, y = self._cell(standing, x, y)
        key = ((s * self.max_total + x) * self.max_total + y) * len(self.claims) + self.claims.index(result)
        lo, hi = np.searchsorted(self.keys, [key, key + 1])
        return [(self.claims[int(c)], int(k), float(p)) for (c, k), p in zip(self.choices[lo:hi], self.probs[lo:hi])]

    def truth_chance(self, standing: Any, x: int, y: int, claim: Any, stake: int) -> tuple[float, bool]:
        """P(``claim`` with ``stake`` is true | the roller made it), by Bayes over his
        equilibrium claims, and whether the equilibrium makes it at all (else the chance
        that a roll makes it true)."""
        canonical = min(stake, y + 1) if not self.forced(claim) else min(stake, x, y)
        made = true = prior = 0.0
        for result, dice in self.results.items():
            w = self.chance[result]
            is_true = self.game.claim_true(claim, dice)
            prior += w * is_true
            for c, k, p in self.claim_distribution(standing, x, y, result):
                if c == claim and k == canonical:
                    made += w * p
                    true += w * p * is_true
        return (true / made, True) if made > 1e-15 else (prior, False)

    # ----- what rank() asks (kocka.solver.solvers.bluff.rounds.rank) -----
    def p_true(self, state: BluffState, x: int, y: int) -> tuple[float, bool]:
        """P(the standing claim is true) at an answer (:meth:`truth_chance`)."""
        return self.truth_chance(state.previous, x, y, state.standing, state.stake)

    def pass_value_at(self, state: BluffState, x: int, y: int) -> float:
        return self.pass_value(state.standing, x, y)

    def bet_values(self, claim: Any, stake: int, x: int, y: int) -> tuple[float, float]:
        """What a bet pays the roller: the chips bet, + if the claim is true, - if not."""
        amount = min(stake, y) if self.forced(claim) else stake
        return float(amount), float(-amount)

    def claim_values(self, state: BluffState, actions: Sequence[Any]) -> list[tuple[Any, float, dict]]:
        """(action, the roller's value, detail) of each claim in ``actions``."""
        x, y = state.chips[state.active], state.chips[1 - state.active]
        out = []
        for action in actions:
            claim, stake = action.claim, action.stake
            true = self.game.claim_true(claim, state.dice)
            beta = self.bet_probability(state.standing, x, y, claim, stake)
            win, lose = self.bet_values(claim, stake, x, y)
            passed = 0.0 if self.forced(claim) else self.pass_value(claim, x, y)
            value = beta * (win if true else lose) + (1.0 - beta) * passed
            out.append((action, value, {"true": bool(true), "P(bet)": beta}))
        return out

    def policy(self) -> TurnPolicy:
        def policy(state: BluffState) -> dict[Any, float]:
            a, o = state.active, 1 - state.active
            x, y = state.chips[a], state.chips[o]
            if state.phase == "claim":
                result = actual_result(state.dice, self.game.rules.ranking)
                return {Claim(c, k): p for c, k, p in self.claim_distribution(state.standing, x, y, result)}
            if self.forced(state.standing):
                return {Bet(): 1.0}
            beta = self.bet_probability(state.previous, x, y, state.standing, state.stake)
            return {act: p for act, p in ((Bet(), beta), (Pass(), 1.0 - beta)) if p > 0}

        return policy


class BiddingEquilibriumSolver:
    """``kocka-solve build bidding-bluff [-r ranking=pro] [-r truth=at_least] [-r
    top_claim=all_pass_resets]``: the exact two-player round equilibrium of every stage
    with up to :data:`MAX_TOTAL` chips in play, its exploitability measured by the
    independent best response."""

    kind = KIND
    description = "two-player round equilibrium, every chip count (exact stages), exploitability by best response"

    def __init__(self, max_total: int = MAX_TOTAL, measured: Sequence[tuple[int, int]] = MEASURED_CHIPS) -> None:
        self.max_total = max_total
        self.measured = tuple(c for c in measured if sum(c) <= max_total)

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        check_betting_rules(game)
        if not isinstance(game, BiddingBluffGame):
            raise RulesError(f"this table solver builds the bidding bluff, got {game.NAME!r}")
        rules = game.rules
        claims = game.claims()
        start = time.perf_counter()
        groups = orbits(self.max_total)
        progress = Progress(len(groups), f"{game.NAME} equilibrium", "chip orbits", enabled=options.progress)
        rows: dict[str, list] = {}
        with _pool(options) as run:
            for part in run(solve_two_dice_orbit, [(rules, g) for g in groups]):
                for name, values in _two_dice_rows(part, claims, self.max_total).items():
                    rows.setdefault(name, []).extend(values)
                progress.advance()
        progress.close()
        seconds = time.perf_counter() - start
        arrays = _arrays_from_rows(rows, len(claims), self.max_total)
        exact = _exact_headline(rules)
        facts: dict[str, Any] = {
            "max_total": self.max_total,
            "stages": len(rows["cell"]),
            "stages_by_method": {m: rows["method"].count(m) for m in sorted(set(rows["method"]))},
            "solve_seconds": round(seconds, 2),
            **exact,
        }
        table = _loose_table(arrays, facts)
        facts["exploitability"] = _measure(game, BiddingPlan(game, table).policy(), self.measured, table, claims)
        return arrays, facts

    def summary(self, table: Any) -> dict[str, Any]:
        return _summary(table)

    def layout(self, game: Any, meta: Any) -> dict[str, tuple[tuple[int | None, ...], Any]]:
        """``value[s, x, y]`` and ``lie_value[s, x, y]`` (standing index s: 0 none, claim
        rank + 1; the roller's chips x and the answerer's y, x + y <= max_total; NaN
        elsewhere); the roller's claims as sorted rows: ``claim_key`` ((s * T + x) * T + y)
        * n + result rank (T = max_total, n claims), ``claim_choice`` (claim rank, stake),
        ``claim_prob``."""
        n = len(game.claims())
        total = int(meta.extra["max_total"])
        return _plan_layout((n, total, total))

    def check(self, game: Any, table: Any) -> list[str]:
        problems = _check_rows(table)
        plan = BiddingPlan(game, table)
        chips = [c for c in self.measured if plan.covers(*c)]
        for entry in _measure(game, plan.policy(), chips, table, game.claims()):
            problems += _measured_problems(f"chips {entry['chips']}", entry)
        return problems


def _loose_table(arrays: Mapping[str, np.ndarray], extra: Mapping[str, Any], kind: str = KIND) -> Table:
    """A table not yet stored, for measuring during a build."""
    return Table(dict(arrays), TableMeta(game="", kind=kind, variant_id="", rules={}, extra=dict(extra)))


def _measure(game: Any, policy: TurnPolicy, chips_list: Sequence[tuple[int, int]], table: Any,
             claims: Sequence[Any]) -> list[dict[str, Any]]:
    """The round plan's exploitability (independent best response) and its value as
    played, at each of ``chips_list``."""
    out = []
    for chips in chips_list:
        result = round_exploitability(game, chips, policy)
        out.append({
            "chips": list(chips),
            "value": float(table["value"][(0, *chips)]),
            "played": round_value(game, chips, [policy, policy], 0),
            "best_response": list(result.best_response),
            "exploitability": result.exploitability,
        })
    return out


def _plan_layout(cells: tuple[int, ...]) -> dict[str, tuple[tuple[int | None, ...], Any]]:
    """The arrays of a round-plan table: ``value`` and ``lie_value`` over ``cells``, and
    the roller's claims as sorted rows (``claim_key``, ``claim_choice``, ``claim_prob``).
    The bidding bluff's and liar's poker's tables differ only in their cells; one layout
    serves both, since :func:`_check_rows` and the plans read the rows the same way."""
    return {
        "value": (cells, np.float64),
        "lie_value": (cells, np.float64),
        "claim_key": ((None,), np.int64),
        "claim_choice": ((None, 2), np.int16),
        "claim_prob": ((None,), np.float64),
    }


def _measured_problems(where: str, entry: Mapping[str, Any]) -> list[str]:
    """What a table check reports for one measured position (from :func:`_measure` or
    :func:`_measure_public`): exploitability not below :data:`EXPLOITABILITY_TARGET`, or
    a plan that earns as played what the table does not say. Both round tables are held
    to the same standard, so they share this check."""
    problems = []
    if not entry["exploitability"] < EXPLOITABILITY_TARGET:
        problems.append(f"{where}: exploitability {entry['exploitability']!r} is not below {EXPLOITABILITY_TARGET!r}")
    if abs(entry["played"] - entry["value"]) > 1e-9:
        problems.append(f"{where}: the plan earns {entry['played']!r} as played, the table says {entry['value']!r}")
    return problems


def _check_rows(table: Any) -> list[str]:
    """The roller's claim probabilities sum to 1 for every (stage, result)."""
    keys, probs = table["claim_key"], table["claim_prob"]
    if len(keys) == 0:
        return ["the table holds no claims"]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    sums = np.add.reduceat(probs, starts)
    worst = float(np.abs(sums - 1).max())
    return [] if worst < 1e-9 else [f"claim probabilities do not sum to 1 (worst off by {worst!r})"]


def _exact_headline(rules: Any) -> dict[str, Any]:
    """The round's value with :data:`HEADLINE_CHIPS` solved with exact later values (no
    rounding anywhere), and how far the table's rounded chain is from it."""
    x, y = HEADLINE_CHIPS
    stages = solve_two_dice_orbit(rules, next(g for g in orbits(x + y) if (x, y) in g), exact=True)
    value = next(s.solution.value for s in stages if s.standing is None and s.chips == (x, y))
    return {"headline_chips": [x, y], "headline_value": float(value), "headline_exact": _fraction_text(value)}


def _fraction_text(value: Fraction, limit: int = 400) -> str:
    text = str(value)
    if len(text) <= limit:
        return text
    return (f"a fraction of {len(str(value.numerator))} / {len(str(value.denominator))} digits, "
            f"{str(value.numerator)[:12]}.../{str(value.denominator)[:12]}...")


def _summary(table: Any) -> dict[str, Any]:
    extra = table.meta.extra
    x, y = extra.get("headline_chips", HEADLINE_CHIPS)
    facts: dict[str, Any] = {
        f"round value for the roller, {x} chips each (chips)": extra.get("headline_value"),
        "exact value": extra.get("headline_exact"),
        "stages solved": extra.get("stages"),
        "chips in play": f"up to {extra.get('max_total')} together",
    }
    for entry in extra.get("exploitability", ()):
        a, b = entry["chips"]
        facts[f"exploitability at {a}/{b} chips (chips per round)"] = entry["exploitability"]
    return facts


class _pool:
    """``with _pool(options) as run``: ``run(fn, argument tuples)`` yields results in order,
    in joblib workers when ``options.jobs > 1``."""

    def __init__(self, options: BuildOptions) -> None:
        self.options = options

    def __enter__(self) -> Callable:
        jobs = int(self.options.jobs)
        if jobs <= 1:
            return lambda fn, calls: (fn(*args) for args in calls)
        self.parallel = Parallel(n_jobs=jobs, backend=self.options.backend, return_as="generator")
        return lambda fn, calls: self.parallel(delayed(fn)(*args) for args in calls)

    def __exit__(self, *exc: Any) -> None:
        return None


BIDDING_EQUILIBRIUM = BiddingEquilibriumSolver()


# ----------------------------------------------------------------------------------------
# Ranking the actions of a state (agents and hints)
# ----------------------------------------------------------------------------------------
def canonical_game(game: Any) -> Any:
    """The game whose equilibrium table serves ``game`` (:func:`canonical_bidding_game`,
    :func:`canonical_liars_game`)."""
    check_betting_rules(game)
    if isinstance(game, LiarsPokerGame):
        return canonical_liars_game(game)
    return canonical_bidding_game(game)


def plan_for(game: Any, table: Any) -> Any:
    """The stored plan of ``game``'s canonical game (:func:`canonical_game`; a match table
    gives the :class:`MatchPlan` or :class:`LiarsMatchPlan`)."""
    match = table.meta.kind == MATCH_KIND
    if isinstance(game, LiarsPokerGame):
        return LiarsMatchPlan(game, table) if match else LiarsPlan(game, table)
    return MatchPlan(game, table) if match else BiddingPlan(game, table)


def _check_position(game: Any, state: BluffState) -> None:
    if game.num_players != 2 or len(state.chips) != 2:
        raise RulesError(f"the {game.NAME} equilibrium is for two players")
    if state.bank:
        raise RulesError(f"the {game.NAME} equilibrium knows no bank (with two players it is always empty), got a bank of {state.bank}")


def rank(game: Any, plan: Any, state: BluffState) -> list[Decision]:
    """Every legal action of the player to act with its value against the equilibrium
    opponent (his chips from here to the end of the round), best first. ``detail``: the
    action's equilibrium probability; for a claim whether it is true and P(it is bet on);
    for an answer P(the claim is true) given the claims so far (Bayes over the claimant's
    equilibrium claims) and whether the equilibrium makes that claim at all."""
    _check_position(game, state)
    actions = game.legal_actions(state)
    if not actions:
        raise RulesError(f"{game.NAME}: no decision in {game.describe_state(state)}")
    chosen = plan.policy()(state)
    me = game.current_player(state)
    decisions = []
    if state.phase == "claim":
        for action, value, detail in plan.claim_values(state, actions):
            decisions.append(Decision(action, value, game.describe_action(action, state),
                                      {"P(chosen)": float(chosen.get(action, 0.0)), **detail}))
    elif state.phase == "answer":
        x, y = state.chips[state.active], state.chips[me]
        q, made = plan.p_true(state, x, y)
        values = plan.answer_values(state, x, y, q)
        for action in actions:
            value = values[type(action)]
            decisions.append(Decision(action, value, game.describe_action(action, state), {
                "P(chosen)": float(chosen.get(action, 0.0)), "P(claim true)": q, "on equilibrium path": made,
            }))
    else:
        raise RulesError(f"{game.NAME}: no decision in phase {state.phase!r}")
    return sorted(decisions, key=lambda d: (-d.value, -d.detail["P(chosen)"]))


# ----------------------------------------------------------------------------------------
# Liar's kockapóker: the public roll, re-throws, and the table
# ----------------------------------------------------------------------------------------
BOTH = 0
"""The shown-die slot of a re-throw of both dice (``liar.reroll = one_or_both``)."""
SLOTS = 8
"""Stage slots of a liar's poker position: 0 the turn's first claim, 1..6 after keeping
and showing that die, 7 after throwing both again."""


def _slot(shown: int | None) -> int:
    return 0 if shown is None else (7 if shown == BOTH else shown)


def canonical_liars_game(game: Any) -> LiarsPokerGame:
    """The game whose table serves ``game``: the options that change the two-player round
    (``bluff.truth``, ``bid.top_claim``, ``liar.reroll``, ``liar.kickers``) and
    ``bluff.start_chips``, since the table holds the chip counts of a match from that many
    chips each (the chips add up to twice that)."""
    check_betting_rules(game)
    r = game.rules
    return LiarsPokerGame(LiarsPokerRules(truth=r.truth, top_claim=r.top_claim, reroll=r.reroll, kickers=r.kickers,
                                          start_chips=r.start_chips), 2)


def _keep_signature(game: LiarsPokerGame, public: tuple, standing: Any, claims: Sequence[Any], d: int) -> tuple | None:
    """What keeping and showing die ``d`` leads to, with no face named (None: not allowed,
    BLUFF-18): the positions, among ``claims`` (the claims achievable above ``standing``
    with no die shown), of the claims still achievable, and each new die's truth pattern
    over them. Re-throws with equal signatures lead to the same re-throw stage."""
    allowed = game.claims_above(standing, public, (d,))
    if not allowed:
        return None
    position = tuple(claims.index(c) for c in allowed)
    return position, tuple(sorted(tuple(game.claim_true(c, (n,), public, (d,)) for c in allowed) for n in range(1, 7)))


@dataclass(frozen=True)
class _LiarsTurn:
    """The stages of one turn: the first claim and each re-throw, keyed by signature."""

    claims: tuple
    top: Any  # the top claim of the public roll (BLUFF-5, BLUFF-20)
    signatures: Mapping[int, tuple]  # die -> keep signature (allowed re-throws only)
    rethrows: tuple  # distinct signatures, then BOTH if allowed
    stage: StageGame
    types: tuple  # main-stage type -> its key (truth pattern, re-throws available)
    sub: Mapping[Any, tuple[StageGame, tuple, tuple]]  # signature or BOTH -> (stage, claims, type patterns)


ClaimsOf = Callable[[Sequence[Any], Any, int, int], tuple[StageClaim, ...]]
"""``claims_of(claims, top, x, y)``: the stage's view of ``claims`` (the top claim
``top``) when the roller holds x against y: the round's payoffs (:func:`_stage_claims`)
or the match's (:func:`_match_claims`)."""


def _liars_turn(game: LiarsPokerGame, public: tuple, standing: Any, x: int, y: int, claims_of: ClaimsOf,
                solve: Callable[[StageGame], StageSolution]) -> tuple[_LiarsTurn, dict]:
    """Solve one turn of liar's poker (module docstring): each re-throw stage, then the
    first claim with the re-throws as outside options. Types are keyed by what they are,
    not by faces: (truth pattern over the claims, the re-throw signatures available)."""
    top = top_claim(public, game.rules)
    claims = tuple(game.claims_above(standing, public, ()))
    stage_claims = claims_of(claims, top, x, y)
    signatures = {d: sig for d in range(1, 7) if (sig := _keep_signature(game, public, standing, claims, d)) is not None}
    rethrows = tuple(sorted(set(signatures.values()))) + ((BOTH,) if game.rules.reroll == "one_or_both" else ())
    sub: dict[Any, tuple] = {}
    solutions: dict[Any, StageSolution] = {}
    for option in rethrows:
        if option == BOTH:
            sub_claims, kept = claims, ()
            hidden_list = outcome_distribution(2)
        else:
            d = next(d for d, sig in signatures.items() if sig == option)
            sub_claims, kept = tuple(game.claims_above(standing, public, (d,))), (d,)
            hidden_list = outcome_distribution(1)
        patterns: dict[tuple, Fraction] = {}
        for hidden, p in hidden_list:
            pattern = tuple(game.claim_true(c, tuple(hidden), public, kept) for c in sub_claims)
            patterns[pattern] = patterns.get(pattern, Fraction(0)) + Fraction(p).limit_denominator(36)
        keys = tuple(patterns)
        stage = StageGame(tuple(patterns[k] for k in keys), keys, claims_of(sub_claims, top, x, y), x, y)
        sub[option] = (stage, sub_claims, keys)
        solutions[option] = solve(stage)
    weights: dict[tuple, Fraction] = {}
    for hidden, p in outcome_distribution(2):
        hidden = tuple(hidden)
        truth = tuple(game.claim_true(c, hidden, public) for c in claims)
        held = {signatures[d] for d in hidden if d in signatures}
        available = tuple(o == BOTH or o in held for o in rethrows)
        weights[(truth, available)] = weights.get((truth, available), Fraction(0)) + Fraction(p).limit_denominator(36)
    keys = tuple(weights)
    stage = StageGame(
        tuple(weights[k] for k in keys), tuple(k[0] for k in keys), stage_claims, x, y,
        tuple(solutions[o].value for o in rethrows), tuple(k[1] for k in keys) if rethrows else (),
    )
    solutions[None] = solve(stage)
    return _LiarsTurn(claims, top, signatures, rethrows, stage, keys, sub), solutions


def solve_liars_class(rules: LiarsPokerRules, members: Sequence[tuple], total: int, exact: bool = False) -> dict[str, list]:
    """Every stage of the public-roll class ``members`` (:func:`public_classes`) for the
    chip pairs adding up to ``total``: solved on the first roll, written out as table rows
    for every member (:meth:`LiarsEquilibriumSolver.layout`), claims matched by their
    position in order and types by what they are (:func:`_liars_turn`)."""
    game = LiarsPokerGame(rules, num_players=2)
    return _liars_rows(game, members, _liars_turns(game, members[0], total, None, exact), total)


def _liars_turns(game: LiarsPokerGame, public: tuple, total: int, win: Mapping[int, Fraction] | None,
                 exact: bool = False) -> list[tuple]:
    """Every turn of the round after the public roll ``public`` for the chip pairs adding
    up to ``total``, from the top claim down, as (standing, x, y, turn, solutions)
    (:func:`_liars_turn`): priced in chips (``win`` None: the round plan) or by the match
    values ``win`` (the match plan, :func:`_match_claims`)."""
    values: dict[tuple, Fraction] = {}

    def later(c: Any, a: int, b: int) -> Fraction:
        return values[(c, a, b)]

    if win is None:
        def claims_of(claims: Sequence[Any], top: Any, x: int, y: int) -> tuple[StageClaim, ...]:
            return _stage_claims(game, claims, top, x, y, later)
    else:
        pricing = MatchPricing(Fraction(1), win, later)

        def claims_of(claims: Sequence[Any], top: Any, x: int, y: int) -> tuple[StageClaim, ...]:
            return _match_claims(game.rules, claims, top, x, y, pricing)

    turns: list[tuple] = []
    claims = game.claims_above(None, public, ())
    standings = [*reversed(claims[: claims.index(top_claim(public, game.rules))]), None]
    pairs = [pair for group in orbits(total) for pair in group if sum(pair) == total]
    for standing in standings:
        for x, y in pairs:
            turn, solutions = _liars_turn(game, public, standing, x, y, claims_of, solve_stage)
            values[(standing, x, y)] = _rounded(solutions[None].value, exact)
            turns.append((standing, x, y, turn, solutions))
    return turns


def _liars_rows(game: LiarsPokerGame, members: Sequence[tuple], turns: Sequence[tuple], total: int) -> dict[str, list]:
    """The table rows of the solved ``turns`` of a class's first roll, written out for
    every member of the class (:func:`solve_liars_class`)."""
    rep = members[0]
    rep_claims = game.claims_above(None, rep, ())
    rows: dict[str, list] = {"cell": [], "value": [], "lie": [], "key": [], "choice": [], "prob": [], "method": [],
                             "solved": [sum(1 + len(turn.rethrows) for *_, turn, _ in turns)]}
    n_claims = len(game.claims())
    for public in members:
        p_index = all_outcomes(3).index(public)
        own_claims = game.claims_above(None, public, ())
        to_own = dict(zip(rep_claims, own_claims))
        for standing, x, y, turn, solutions in turns:
            own_standing = None if standing is None else to_own[standing]
            s = 0 if own_standing is None else game.claim_strength(own_standing, public) + 1
            claims_here = tuple(game.claims_above(own_standing, public, ()))
            signatures = {d: sig for d in range(1, 7)
                          if (sig := _keep_signature(game, public, own_standing, claims_here, d)) is not None}

            def emit(slot: int, index: int, probs: Mapping[Message, Fraction], claims: Sequence[Any], dice: tuple = ()) -> None:
                key = (((p_index * (n_claims + 1) + s) * total + x) * SLOTS + slot) * 21 + index
                for m, prob in sorted(probs.items()):
                    if m.claim == OUTSIDE:
                        option = turn.rethrows[m.stake]
                        code = -7 if option == BOTH else -min(d for d in dice if signatures.get(d) == option)
                        choice = (code, 0)
                    else:
                        choice = (game.claim_strength(to_own[claims[m.claim]], public), m.stake)
                    rows["key"].append(key)
                    rows["choice"].append(choice)
                    rows["prob"].append(float(prob))

            def cell(slot: int, sol: StageSolution) -> None:
                rows["cell"].append((p_index, s, x, slot))
                rows["value"].append(float(sol.value))
                rows["lie"].append(float(sol.lie_value))
                rows["method"].append(sol.method)

            cell(0, solutions[None])
            type_of = {key: t for t, key in enumerate(turn.types)}
            for i, hidden in enumerate(all_outcomes(2)):
                hidden = tuple(hidden)
                truth = tuple(game.claim_true(c, hidden, public) for c in claims_here)
                held = {signatures[d] for d in hidden if d in signatures}
                available = tuple(o == BOTH or o in held for o in turn.rethrows)
                emit(0, i, solutions[None].sender[type_of[(truth, available)]], turn.claims, hidden)
            for option in turn.rethrows:
                stage, sub_claims, keys = turn.sub[option]
                pattern_of = {k: t for t, k in enumerate(keys)}
                dice_here = [BOTH] if option == BOTH else [d for d, sig in signatures.items() if sig == option]
                for d in dice_here:
                    kept = () if d == BOTH else (d,)
                    own_sub = tuple(game.claims_above(own_standing, public, kept))
                    slot = _slot(d)
                    cell(slot, solutions[option])
                    hidden_list = all_outcomes(2) if d == BOTH else [(n,) for n in range(1, 7)]
                    for i, hidden in enumerate(hidden_list):
                        pattern = tuple(game.claim_true(c, tuple(hidden), public, kept) for c in own_sub)
                        emit(slot, i, solutions[option].sender[pattern_of[pattern]], sub_claims)
    return rows


def public_classes(game: LiarsPokerGame) -> list[list[tuple]]:
    """The public rolls grouped by the game they make (the symmetry of the public roll):
    rolls whose achievable claims, taken in order, have the same truth patterns over the
    private rolls, with the same chances and the same re-throws (:func:`_keep_signature`),
    play the same round position for position (claims matched by position, types by
    what they are); the first roll of each class is solved for all."""
    classes: dict[Any, list[tuple]] = {}
    for public in all_outcomes(3):
        public = tuple(public)
        claims = tuple(game.claims_above(None, public, ()))
        signatures = {d: _keep_signature(game, public, None, claims, d) for d in range(1, 7)}
        rolls = tuple(sorted(
            (Fraction(p).limit_denominator(36), tuple(game.claim_true(c, tuple(h), public) for c in claims),
             tuple(sorted(signatures[d] for d in set(h) if signatures[d] is not None)))
            for h, p in outcome_distribution(2)
        ))  # fmt: skip
        key = (len(claims), claims.index(top_claim(public, game.rules)), rolls)
        classes.setdefault(key, []).append(public)
    return list(classes.values())


class LiarsPlan(_Answers):
    """The stored round equilibrium of two-player liar's poker, read from its table (the
    same queries as :class:`BiddingPlan`, with the public roll and the re-throw slot)."""

    value_name = "expected chips this round vs equilibrium"

    def __init__(self, game: LiarsPokerGame, table: Any) -> None:
        self.game = game
        self.claims = game.claims()
        self.total = int(table.meta.extra["total"])
        self.max_total = self.total
        self.value_table, self.lie_table = table["value"], table["lie_value"]
        self.keys, self.choices, self.probs = table["claim_key"], table["claim_choice"], table["claim_prob"]
        self.publics = [tuple(p) for p in all_outcomes(3)]
        self.pairs = [tuple(d) for d in all_outcomes(2)]
        self.pair_chance = {tuple(d): Fraction(p).limit_denominator(36) for d, p in outcome_distribution(2)}

    def covers(self, x: int, y: int) -> bool:
        return x >= 1 and y >= 1 and x + y == self.total

    def _cell(self, public: tuple, standing: Any, x: int, y: int, slot: int) -> tuple[int, int, int, int]:
        if not self.covers(x, y):
            raise RulesError(
                f"the {self.game.NAME} equilibrium table holds the chips of a match from {self.total // 2} chips each "
                f"({self.total} together), got {x} and {y}; build it for other chips with -r start_chips=N"
            )
        s = 0 if standing is None else self.game.claim_strength(standing, public) + 1
        return self.publics.index(tuple(public)), s, x, slot

    @staticmethod
    def slot_of(state: BluffState) -> int:
        """The stage slot of the roller's claim: 0 (no re-throw), the shown die, or 7."""
        if not state.rerolled:
            return 0
        return state.shown if state.shown else 7

    def value(self, public: tuple, standing: Any, x: int, y: int, slot: int = 0) -> float:
        return float(self.value_table[self._cell(public, standing, x, y, slot)])

    def lie_value(self, public: tuple, standing: Any, x: int, y: int, slot: int = 0) -> float:
        return float(self.lie_table[self._cell(public, standing, x, y, slot)])

    @staticmethod
    def where(state: BluffState) -> tuple:
        return (tuple(state.public),)

    def top(self, public: tuple) -> Any:
        return top_claim(public, self.game.rules)

    def forced(self, public: tuple, claim: Any) -> bool:
        return claim == top_claim(public, self.game.rules) and self.game.rules.top_claim == "first_must_bet"

    def pass_value(self, public: tuple, claim: Any, x: int, y: int) -> float:
        if claim == top_claim(public, self.game.rules) or y == 1:
            return 1.0
        return 1.0 - self.value(public, claim, y - 1, x + 1)

    def bet_values(self, public: tuple, claim: Any, stake: int, x: int, y: int) -> tuple[float, float]:
        """What a bet pays the roller: the chips bet, + if the claim is true, - if not."""
        amount = min(stake, y) if self.forced(public, claim) else stake
        return float(amount), float(-amount)

    def bet_probability(self, public: tuple, standing: Any, x: int, y: int, slot: int, claim: Any, stake: int) -> float:
        forced = self.forced(public, claim)
        passed = 0.0 if forced else self.pass_value(public, claim, x, y)
        win, lose = self.bet_values(public, claim, stake, x, y)
        return float(bet_probability(passed, self.lie_value(public, standing, x, y, slot), stake, y, forced, win, lose))

    def distribution(self, public: tuple, standing: Any, x: int, y: int, slot: int, index: int) -> list[tuple[Any, float]]:
        """The roller's equilibrium actions with private roll ``index`` (his two dice in
        :func:`all_outcomes` order, or the new die - 1 after keeping one)."""
        p, s, x, slot = self._cell(public, standing, x, y, slot)
        key = ((((p * (len(self.claims) + 1) + s) * self.total + x) * SLOTS + slot) * 21) + index
        lo, hi = np.searchsorted(self.keys, [key, key + 1])
        out = []
        for (code, stake), prob in zip(self.choices[lo:hi], self.probs[lo:hi]):
            code, stake = int(code), int(stake)
            if code >= 0:
                out.append((Claim(self.claims[code], stake), float(prob)))
            else:
                out.append((Reroll(None if code == -7 else -code), float(prob)))
        return out

    def _index(self, state: BluffState, slot: int) -> int:
        if slot in (0, 7):
            return self.pairs.index(tuple(state.dice))
        return self.game.hidden_dice(state)[0] - 1

    def _stage_types(self, public: tuple, slot: int) -> list[tuple[int, tuple, Fraction]]:
        """(index, hidden dice, chance) of the roller's private rolls at a slot."""
        if slot in (0, 7):
            return [(i, d, self.pair_chance[d]) for i, d in enumerate(self.pairs)]
        return [(n - 1, (n,), Fraction(1, 6)) for n in range(1, 7)]

    # ----- what rank() asks -----
    def p_true(self, state: BluffState, x: int, y: int) -> tuple[float, bool]:
        public, slot = tuple(state.public), self.slot_of(state)
        shown = self.game.shown_dice(state)
        claim, stake = state.standing, state.stake
        canonical = min(stake, y + 1) if not self.forced(public, claim) else min(stake, x, y)
        made = true = prior = 0.0
        for index, hidden, w in self._stage_types(public, slot):
            is_true = self.game.claim_true(claim, hidden, public, shown)
            prior += float(w) * is_true
            for action, p in self.distribution(public, state.previous, x, y, slot, index):
                if isinstance(action, Claim) and action.claim == claim and action.stake == canonical:
                    made += float(w) * p
                    true += float(w) * p * is_true
        return (true / made, True) if made > 1e-15 else (prior, False)

    def pass_value_at(self, state: BluffState, x: int, y: int) -> float:
        return self.pass_value(tuple(state.public), state.standing, x, y)

    def claim_values(self, state: BluffState, actions: Sequence[Any]) -> list[tuple[Any, float, dict]]:
        public, slot = tuple(state.public), self.slot_of(state)
        x, y = state.chips[state.active], state.chips[1 - state.active]
        shown, hidden = self.game.shown_dice(state), self.game.hidden_dice(state)
        out = []
        for action in actions:
            if isinstance(action, Reroll):
                rethrow = 7 if action.keep_shown is None else action.keep_shown
                out.append((action, self.value(public, state.standing, x, y, rethrow), {"re-throw": True}))
                continue
            claim, stake = action.claim, action.stake
            true = self.game.claim_true(claim, hidden, public, shown)
            forced = self.forced(public, claim)
            beta = self.bet_probability(public, state.standing, x, y, slot, claim, stake)
            win, lose = self.bet_values(public, claim, stake, x, y)
            passed = 0.0 if forced else self.pass_value(public, claim, x, y)
            out.append((action, beta * (win if true else lose) + (1.0 - beta) * passed,
                        {"true": bool(true), "P(bet)": beta}))
        return out

    def policy(self) -> TurnPolicy:
        def policy(state: BluffState) -> dict[Any, float]:
            a, o = state.active, 1 - state.active
            x, y = state.chips[a], state.chips[o]
            public, slot = tuple(state.public), self.slot_of(state)
            if state.phase == "claim":
                return dict(self.distribution(public, state.standing, x, y, slot, self._index(state, slot)))
            if self.forced(public, state.standing):
                return {Bet(): 1.0}
            beta = self.bet_probability(public, state.previous, x, y, slot, state.standing, state.stake)
            return {act: p for act, p in ((Bet(), beta), (Pass(), 1.0 - beta)) if p > 0}

        return policy


class LiarsEquilibriumSolver:
    """``kocka-solve build liars-poker [-r start_chips=N] [-r top_claim=...] [-r
    reroll=one_or_both] [-r kickers=counted] [-r truth=at_least]``: the exact two-player
    round equilibrium of every position of a match from ``start_chips`` each (the public
    roll's 31 classes solved in parallel with ``-j``), its exploitability measured by the
    independent best response on :data:`LIARS_MEASURED` public rolls."""

    kind = KIND
    description = "two-player round equilibrium with re-throws, a match's chip counts (exact stages)"

    def __init__(self, measured: Sequence[tuple] | None = None) -> None:
        self.measured = LIARS_MEASURED if measured is None else tuple(measured)

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        check_betting_rules(game)
        if not isinstance(game, LiarsPokerGame):
            raise RulesError(f"this table solver builds liar's poker, got {game.NAME!r}")
        rules = game.rules
        total = 2 * rules.start_chips
        if total > 2 * LIARS_MAX_START:
            raise RulesError(f"the {game.NAME} table is built for at most {LIARS_MAX_START} chips each, "
                             f"got start_chips {rules.start_chips}")
        classes = sorted(public_classes(game), key=len, reverse=True)
        start = time.perf_counter()
        progress = Progress(len(classes), f"{game.NAME} equilibrium", "public-roll classes", enabled=options.progress)
        rows: dict[str, list] = {}
        with _pool(options) as run:
            for part in run(solve_liars_class, [(rules, members, total) for members in classes]):
                for name, values in part.items():
                    rows.setdefault(name, []).extend(values)
                progress.advance()
        progress.close()
        seconds = time.perf_counter() - start
        arrays = liars_arrays(rows, len(game.claims()), total)
        value = arrays["value"]
        chance = {tuple(d): p for d, p in outcome_distribution(3)}
        x = rules.start_chips
        round_value_at = sum(chance[pub] * value[i, 0, x, 0] for i, pub in enumerate(all_outcomes(3)))
        facts: dict[str, Any] = {
            "total": total,
            "public_classes": len(classes),
            "stages": len(rows["cell"]),
            "stages_solved": sum(rows["solved"]),
            "stages_by_method": {m: rows["method"].count(m) for m in sorted(set(rows["method"]))},
            "solve_seconds": round(seconds, 2),
            "headline_chips": [x, x],
            "headline_value": float(round_value_at),
        }
        table = _loose_table(arrays, facts)
        plan = LiarsPlan(game, table)
        facts["exploitability"] = [
            _measure_public(game, plan, (x, x), public) for public in self.measured if x <= LIARS_MEASURE_CHIPS
        ]
        return arrays, facts

    def summary(self, table: Any) -> dict[str, Any]:
        extra = table.meta.extra
        x, y = extra.get("headline_chips", (0, 0))
        facts: dict[str, Any] = {
            f"round value for the starter, {x} chips each (chips, over the public roll)": extra.get("headline_value"),
            "public-roll classes": extra.get("public_classes"),
            "stages (stored / solved)": f"{extra.get('stages')} / {extra.get('stages_solved')}",
            "chips in play": f"{extra.get('total')} together (a match from {extra.get('total', 0) // 2} each)",
            "solve seconds": extra.get("solve_seconds"),
        }
        for entry in extra.get("exploitability", ()):
            a, b = entry["chips"]
            facts[f"exploitability at {a}/{b} chips, public roll {entry['public']} (chips per round)"] = entry["exploitability"]
        return facts

    def layout(self, game: Any, meta: Any) -> dict[str, tuple[tuple[int | None, ...], Any]]:
        """``value[p, s, x, slot]`` and ``lie_value[...]``: public roll p (in
        :func:`all_outcomes` order), standing s (0 none, hand rank + 1), the roller's chips
        x (the answerer holds total - x), slot (0 the first claim of a turn, 1..6 after
        showing that die, 7 after re-throwing both); the roller's actions as sorted rows:
        ``claim_key`` ((((p (n + 1) + s) total + x) 8 + slot) 21 + private roll index,
        ``claim_choice`` (hand rank and stake, or -die / -7 for a re-throw and 0),
        ``claim_prob``."""
        n = len(game.claims())
        total = int(meta.extra["total"])
        return _plan_layout((56, n + 1, total, SLOTS))

    def check(self, game: Any, table: Any) -> list[str]:
        problems = _check_rows(table)
        plan = LiarsPlan(game, table)
        x = table.meta.extra["total"] // 2
        for public in self.measured:
            if x > LIARS_MEASURE_CHIPS:
                break
            problems += _measured_problems(f"public roll {public}", _measure_public(game, plan, (x, x), public))
        return problems


def liars_arrays(rows: Mapping[str, list], n_claims: int, total: int) -> dict[str, np.ndarray]:
    """The arrays of :meth:`LiarsEquilibriumSolver.layout` from the rows of
    :func:`solve_liars_class` (any public rolls; the others stay NaN)."""
    value = np.full((56, n_claims + 1, total, SLOTS), np.nan)
    lie = np.full((56, n_claims + 1, total, SLOTS), np.nan)
    for cell, v, lam in zip(rows["cell"], rows["value"], rows["lie"]):
        value[cell], lie[cell] = v, lam
    order = np.argsort(np.asarray(rows["key"], dtype=np.int64), kind="stable")
    return {
        "value": value, "lie_value": lie,
        "claim_key": np.asarray(rows["key"], dtype=np.int64)[order],
        "claim_choice": np.asarray(rows["choice"], dtype=np.int16).reshape(-1, 2)[order],
        "claim_prob": np.asarray(rows["prob"], dtype=np.float64)[order],
    }


LIARS_MAX_START = 20
LIARS_MEASURE_CHIPS = 10
LIARS_MEASURED = ((6, 6, 6),)
"""The public rolls on which a build and ``kocka-solve verify`` measure the exploitability
(an exact walk of every public roll is an hour of engine calls; docs/BLUFF.md has more)."""


def public_round_value(game: Any, chips: Sequence[int], public: Sequence[int],
                       policies: Sequence[TurnPolicy | None], player: int = 0) -> float:
    """As :func:`round_value`, after the public roll ``public`` (liar's poker)."""
    walk_game = round_game(game)
    start = walk_game.apply(walk_game.new_round_state(tuple(chips), starter=0), tuple(public))
    return _RoundWalk(walk_game, policies, player).after(start)


def _measure_public(game: Any, plan: LiarsPlan, chips: tuple[int, int], public: tuple) -> dict[str, Any]:
    policy = plan.policy()
    br = (public_round_value(game, chips, public, [None, policy], 0),
          public_round_value(game, chips, public, [policy, None], 1))
    first = 0 if game.rules.first_turn == "starter" else 1
    value = plan.value(public, None, *chips)
    return {
        "chips": list(chips), "public": list(public),
        "value": value if first == 0 else -value,
        "played": public_round_value(game, chips, public, [policy, policy], 0),
        "best_response": list(br), "exploitability": (br[0] + br[1]) / 2,
    }


LIARS_EQUILIBRIUM = LiarsEquilibriumSolver()


# ----------------------------------------------------------------------------------------
# Whole matches: the chance to win (BLUFF-6, BLUFF-9), both betting games
# ----------------------------------------------------------------------------------------
MATCH_KIND = "match"
"""The table kind of the match plans (``kocka-solve build GAME --kind match``)."""
MATCH_TOLERANCE = 1e-12
"""How close the match values W come to the values of the rounds they price."""


@dataclass(frozen=True)
class MatchSolution:
    """The stationary match equilibrium of a two-player betting game with ``total`` chips
    in play: ``win[x]`` is the chance that the round's starter, holding x chips (his
    opponent total - x), wins the match; the round's stages solved with those values as
    payoffs are ``stages`` (the bidding bluff) or the table ``rows`` of
    :func:`solve_liars_class` (liar's poker); ``residual`` max |W - the value of a round
    priced by W|; ``iterations`` the policy-iteration steps."""

    total: int
    win: Mapping[int, float]
    stages: tuple[SolvedStage, ...]
    residual: float
    iterations: int
    rows: Mapping[str, list] | None = None


@dataclass(frozen=True)
class MatchPricing:
    """What follows a claim in a match, in some arithmetic: ``one`` is 1, ``win[a]`` the
    chance W(a) that a round's starter holding a chips wins the match, ``later(c, a, b)``
    the value U(c, a, b) of the stage where the roller, holding a against b, must beat c.
    The solver prices in exact Fractions; policy evaluation in vectors of affine functions
    of W (``one`` = (1, 0, ..., 0), ``win[a]`` the a-th unit vector, :func:`_affine_pricing`);
    the stored match plans in floats. All three read the payoffs from
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


def _claim_payoffs(rules: Any, claims: Sequence[Any], top: Any, x: int, y: int,
                   pricing: MatchPricing) -> list[tuple[bool, Any, list, list]]:
    """(forced, pass value, bet payoffs if true, if false) of each claim of a match stage
    (:func:`match_claim_payoffs`; the top claim is forced under ``first_must_bet``)."""
    forced_top = rules.top_claim == "first_must_bet"
    return [(forced_top and c == top, *match_claim_payoffs(pricing, x, y, c, top, forced_top and c == top))
            for c in claims]


def _match_claims(rules: Any, claims: Sequence[Any], top: Any, x: int, y: int,
                  pricing: MatchPricing) -> tuple[StageClaim, ...]:
    """The claims of a match stage, priced exactly (:func:`match_claim_payoffs`)."""
    return tuple(StageClaim(passed, forced, tuple(wins), tuple(loses))
                 for forced, passed, wins, loses in _claim_payoffs(rules, claims, top, x, y, pricing))


def _affine_pricing(total: int, later: Callable[[Any, int, int], np.ndarray]) -> MatchPricing:
    """:class:`MatchPricing` in affine functions of W: vectors (constant, W(1), ...,
    W(total - 1)); ``later`` gives the stages already evaluated."""
    basis = np.eye(total)
    return MatchPricing(basis[0], basis, later)


def _stage_affine(stage: StageGame, solution: StageSolution, payoffs: Sequence[tuple],
                  outside: Sequence[np.ndarray], total: int) -> np.ndarray:
    """The value to the roller of a solved stage's strategies as an affine function of W
    (policy evaluation): the answerer bets as the solution says (from the stage's own
    payoffs), and every outcome is priced by ``payoffs`` (:func:`_claim_payoffs` in affine
    arithmetic) or, for a re-throw, by the value ``outside[j]`` of its stage."""
    value = np.zeros(total)
    for t, (w, probs) in enumerate(zip(stage.weights, solution.sender)):
        for m, p in probs.items():
            if m.claim == OUTSIDE:
                earned = outside[m.stake]
            else:
                _, passed, wins, loses = payoffs[m.claim]
                beta = float(message_payoffs(stage, solution.lie_value, m.claim, m.stake)[0])
                bet = wins[m.stake - 1] if stage.truth[t][m.claim] else loses[m.stake - 1]
                earned = beta * bet + (1.0 - beta) * passed
            value = value + float(w) * float(p) * earned
    return value


def _fixed_point(starter: Mapping[int, np.ndarray], total: int) -> dict[int, float]:
    """W solving W(x) = starter[x] . (1, W(1), ..., W(total - 1)) for x = 1..total - 1:
    the match values of stationary strategies whose round is worth ``starter[x]`` to its
    starter (a linear system over the total - 1 match states)."""
    system = np.eye(total - 1)
    rhs = np.zeros(total - 1)
    for x in range(1, total):
        rhs[x - 1] = starter[x][0]
        system[x - 1] -= starter[x][1:]
    values = np.linalg.solve(system, rhs)
    return {x: float(values[x - 1]) for x in range(1, total)}


MatchStep = Callable[[Mapping[int, Fraction], bool], tuple[Mapping[int, float], Mapping[int, np.ndarray], Any]]
"""``step(W, keep) -> (priced, affine, kept)``: every stage of a match solved for the
match values W; ``priced[x]`` the round's value to its starter holding x so solved,
``affine[x]`` the same under the strategies found as an affine function of W
(:func:`_stage_affine`), ``kept`` what the solver keeps of the step (stages, or table
rows), which it may leave out (None) unless ``keep``."""
KEEP_BELOW = 1e-6
"""When the last policy-iteration step moved W by less than this (or the new W is within
this of the values that step solved), the next step is likely the last, and it keeps
what the table needs."""


def _policy_iteration(step: MatchStep, total: int, tolerance: float,
                      max_iterations: int) -> tuple[dict[int, float], Any, float, int]:
    """The stationary match equilibrium by policy iteration from W(x) = x / total: solve
    every stage for the current W (``step``), then take as W the values of the strategies
    found (:func:`_fixed_point`), until W reproduces itself within ``tolerance``. Where the
    strategies found may never end the match (under ``all_pass_resets`` both players can
    pass the top claim for ever), their values are not determined and the step is one of
    value iteration instead: W becomes the values just solved. Returns (W, the last
    step's ``kept``, the residual, the steps)."""
    win = {x: Fraction(x, total) for x in range(1, total)}
    residual, keep = float("inf"), False
    for iteration in range(1, max_iterations + 1):
        priced, affine, kept = step(win, keep)
        residual = max(abs(priced[x] - float(win[x])) for x in win)
        if residual < tolerance:
            if kept is None:  # settled sooner than foreseen: solve the step again, keeping it
                kept = step(win, True)[2]
            return {x: float(v) for x, v in win.items()}, kept, residual, iteration
        try:
            evaluated = _fixed_point(affine, total)
        except np.linalg.LinAlgError:
            evaluated = dict(priced)
        moved = {x: Fraction(min(1.0, max(0.0, evaluated[x]))) for x in win}
        keep = min(max(abs(float(moved[x] - win[x])) for x in win),
                   max(abs(float(moved[x]) - priced[x]) for x in win)) < KEEP_BELOW
        win = moved
    raise ArithmeticError(
        f"the match values did not settle in {max_iterations} steps (last residual {residual!r}); under "
        "bid.top_claim = all_pass_resets the players can pass the top claim back and forth for ever, and "
        "policy iteration need not settle"
    )


# ----- the bidding bluff -----
def _solve_match_round(game: BiddingBluffGame, total: int, win: Mapping[int, Fraction]) -> list[SolvedStage]:
    """Every stage of a match with ``total`` chips, priced by the match values ``win``."""
    values: dict[tuple, Fraction] = {}
    pricing = MatchPricing(Fraction(1), win, lambda c, a, b: values[(c, a, b)])
    top = game.claims()[-1]
    pairs = [(x, total - x) for x in range(1, total)]
    solved = []
    for standing in [*reversed(game.claims()[:-1]), None]:
        claims, patterns, weights, types = _two_dice_types(game, standing)
        for x, y in pairs:
            stage = StageGame(weights, patterns, _match_claims(game.rules, claims, top, x, y, pricing), x, y)
            solution = solve_stage(stage)
            values[(standing, x, y)] = _rounded(solution.value, False)
            solved.append(SolvedStage(standing, (x, y), claims, types, stage, solution))
    return solved


def _stages_starter_affine(stages: Sequence[SolvedStage], game: BiddingBluffGame, total: int) -> dict[int, np.ndarray]:
    """The round's value to its starter holding x under the strategies of solved two-dice
    stages (a match plan's, or a round plan's played in the match), affine in W."""
    affine: dict[tuple, np.ndarray] = {}
    pricing = _affine_pricing(total, lambda c, a, b: affine[(c, a, b)])
    top = game.claims()[-1]
    for st in stages:
        x, y = st.chips
        payoffs = _claim_payoffs(game.rules, st.claims, top, x, y, pricing)
        affine[(st.standing, x, y)] = _stage_affine(st.game, st.solution, payoffs, (), total)
    return {x: affine[(None, x, total - x)] for x in range(1, total)}


def _evaluate_match(stages: Sequence[SolvedStage], game: BiddingBluffGame, total: int) -> dict[int, float]:
    """The match values W of the stationary strategies of two-dice ``stages``."""
    return _fixed_point(_stages_starter_affine(stages, game, total), total)


def solve_bidding_match(rules: BiddingBluffRules, total: int, tolerance: float = MATCH_TOLERANCE,
                        max_iterations: int = 40) -> MatchSolution:
    """The stationary match equilibrium (P(win), BLUFF-6) of the two-player bidding bluff
    with ``total`` chips in play (:func:`_policy_iteration`; each step solves every stage
    exactly for the current W, :func:`solve_stage` with general payoffs)."""
    game = BiddingBluffGame(rules, num_players=2)

    def step(win: Mapping[int, Fraction], keep: bool) -> tuple:
        stages = _solve_match_round(game, total, win)
        priced = {st.chips[0]: float(st.solution.value) for st in stages if st.standing is None}
        return priced, _stages_starter_affine(stages, game, total), stages

    win, stages, residual, iterations = _policy_iteration(step, total, tolerance, max_iterations)
    return MatchSolution(total, win, tuple(stages), residual, iterations)


# ----- liar's poker -----
def _liars_roller_affine(game: LiarsPokerGame, turns: Sequence[tuple], total: int) -> dict[int, np.ndarray]:
    """The value to the first roller, holding x, of the round after a public roll under
    the strategies of its solved ``turns`` (:func:`_liars_turns`), affine in W: each
    re-throw stage, then the first claim with the re-throws' values as outside options."""
    affine: dict[tuple, np.ndarray] = {}
    pricing = _affine_pricing(total, lambda c, a, b: affine[(c, a, b)])
    for standing, x, y, turn, solutions in turns:
        outside = []
        for option in turn.rethrows:
            stage, sub_claims, _ = turn.sub[option]
            payoffs = _claim_payoffs(game.rules, sub_claims, turn.top, x, y, pricing)
            outside.append(_stage_affine(stage, solutions[option], payoffs, (), total))
        payoffs = _claim_payoffs(game.rules, turn.claims, turn.top, x, y, pricing)
        affine[(standing, x, y)] = _stage_affine(turn.stage, solutions[None], payoffs, outside, total)
    return {x: affine[(None, x, total - x)] for x in range(1, total)}


def solve_liars_match_class(rules: LiarsPokerRules, members: Sequence[tuple], total: int,
                            win: Mapping[int, Fraction] | None, rows: bool = True) -> tuple[dict | None, dict, dict]:
    """One public-roll class of a liar's poker match (:func:`solve_liars_class` with its
    stages priced by the match values ``win``; None: the round plan's stages, priced in
    chips, to play the round plan in the match): the table rows (None unless ``rows``),
    and the round's value to its first roller holding x, as solved (``win`` given) and as
    an affine function of W under the strategies found."""
    game = LiarsPokerGame(rules, num_players=2)
    turns = _liars_turns(game, members[0], total, win)
    priced = {x: float(solutions[None].value) for standing, x, _, _, solutions in turns if standing is None}
    table_rows = _liars_rows(game, members, turns, total) if rows else None
    return table_rows, priced, _liars_roller_affine(game, turns, total)


def liars_match_step(rules: LiarsPokerRules, total: int, options: BuildOptions = BuildOptions(progress=False)) -> MatchStep:
    """The :data:`MatchStep` of liar's poker: every public-roll class solved for W (in
    parallel with ``options.jobs``), the classes weighted by their chance; the round's
    starter rolls first, or second under ``liar.first_turn = next_seat`` (BLUFF-17), and
    W counts the starter's chance. Called with ``win`` None it solves the round plan
    instead, whose match values the affine part gives."""
    game = LiarsPokerGame(rules, num_players=2)
    classes = sorted(public_classes(game), key=len, reverse=True)
    chance = {tuple(d): p for d, p in outcome_distribution(3)}
    weights = [sum(chance[p] for p in members) for members in classes]
    starter_rolls = rules.first_turn == "starter"
    counter = itertools.count(1)

    def step(win: Mapping[int, Fraction] | None, keep: bool = True) -> tuple:
        rows: dict[str, list] | None = {} if keep else None
        roller = {x: 0.0 for x in range(1, total)}
        affine = {x: np.zeros(total) for x in range(1, total)}
        progress = Progress(len(classes), f"{game.NAME} match, step {next(counter)}", "public-roll classes",
                            enabled=options.progress)
        with _pool(options) as run:
            calls = [(rules, members, total, win, keep) for members in classes]
            for w, (part, priced, vector) in zip(weights, run(solve_liars_match_class, calls)):
                for name, values in (part or {}).items():
                    rows.setdefault(name, []).extend(values)
                for x in roller:
                    roller[x] += w * priced[x]
                    affine[x] = affine[x] + w * vector[x]
                progress.advance()
        progress.close()
        if starter_rolls:
            return roller, affine, rows
        one = np.eye(total)[0]
        return ({x: 1.0 - roller[total - x] for x in roller}, {x: one - affine[total - x] for x in roller}, rows)

    return step


def solve_liars_match(rules: LiarsPokerRules, total: int, options: BuildOptions = BuildOptions(progress=False),
                      tolerance: float = MATCH_TOLERANCE, max_iterations: int = 40) -> MatchSolution:
    """The stationary match equilibrium (P(win), BLUFF-6) of two-player liar's poker with
    ``total`` chips in play (:func:`_policy_iteration` over :func:`liars_match_step`)."""
    step = liars_match_step(rules, total, options)
    win, rows, residual, iterations = _policy_iteration(step, total, tolerance, max_iterations)
    return MatchSolution(total, win, (), residual, iterations, rows)


def stages_policy(game: Any, stages: Sequence[SolvedStage]) -> TurnPolicy:
    """Solved two-dice stages (a round or a match plan, in memory) as a turn policy."""
    index = {(st.standing, st.chips): st for st in stages}
    ranking = game.rules.ranking

    def policy(state: BluffState) -> dict[Any, float]:
        a, o = state.active, 1 - state.active
        if state.phase == "claim":
            st = index[(state.standing, (state.chips[a], state.chips[o]))]
            result = actual_result(state.dice, ranking)
            t = next(i for i, results in enumerate(st.types) if result in results)
            return {Claim(st.claims[m.claim], m.stake): float(p) for m, p in st.solution.sender[t].items()}
        st = index[(state.previous, (state.chips[a], state.chips[o]))]
        c = st.claims.index(state.standing)
        beta = float(message_payoffs(st.game, st.solution.lie_value, c, state.stake)[0])
        return {act: p for act, p in ((Bet(), beta), (Pass(), 1.0 - beta)) if p > 0}

    return policy


# ----- exploitability in the match -----
@dataclass(frozen=True)
class MatchExploitability:
    """A best responder's chance to win the match against a stationary plan, by value
    iteration over the match states (who starts the round, his chips) from the plan's own
    values: ``gain`` is his mean gain over the match value from ``chips`` each (over who
    starts), ``steps`` the value-iteration steps and ``change`` the last step's change."""

    gain: float
    best_response: tuple[float, float]
    steps: int
    change: float


def match_exploitability(game: Any, policy: TurnPolicy, win: Mapping[int, float], start: int,
                         steps: int = 3, tolerance: float = 1e-13, public: Sequence[int] | None = None,
                         jobs: int = 1) -> MatchExploitability:
    """:class:`MatchExploitability` of ``policy`` (whose match values are ``win[x]``: the
    starter with x chips wins), measured by the independent walk of the engine's rounds
    (:class:`_RoundWalk`; liar's poker from the public roll on), each round priced by the
    best responder's current values; a step's walks in ``jobs`` processes. With ``public``
    (liar's poker) one step only, the round walked after that public roll: what a best
    responder gains by deviating in one round that shows it, the later rounds priced by
    the plan's own W (a build's check; every public roll is many times slower)."""
    if public is not None and steps != 1:
        raise ValueError("a match measured after one public roll takes one step (the later rounds show any roll)")
    total = 2 * start
    walk_game = round_game(game, rounds=2)
    # (the starter's chips, whether the best responder starts) -> his chance to win
    values = {(x, starts): (win[x] if starts else 1.0 - win[x]) for x in range(1, total) for starts in (True, False)}
    change = float("inf")
    step = 0
    for step in range(1, steps + 1):
        with _pool(BuildOptions(jobs=jobs, progress=False)) as run:
            calls = [(walk_game, policy, values, total, x, starts, public) for x, starts in values]
            new = dict(zip(values, run(_match_walk, calls)))
        change = max(abs(new[k] - values[k]) for k in values)
        values = new
        if change < tolerance:
            break
    best = (values[(start, True)], values[(start, False)])
    gain = ((best[0] - win[start]) + (best[1] - (1.0 - win[start]))) / 2
    return MatchExploitability(gain, best, step, change)


def _match_walk(walk_game: Any, policy: TurnPolicy, values: Mapping[tuple[int, bool], float], total: int, x: int,
                starts: bool, public: Sequence[int] | None) -> float:
    """One step of :func:`match_exploitability` at one match state: the round's starter
    (seat 0) holds x of the ``total`` chips, the best responder is seat 0 if ``starts``
    (else seat 1), and the next round is priced by ``values`` (or the match is over)."""
    me = 0 if starts else 1

    def terminal(state: BluffState) -> float:
        if 0 in state.chips:
            return 1.0 if state.chips[me] > 0 else 0.0
        return values[(state.chips[state.active], state.active == me)]

    seats = [None, policy] if starts else [policy, None]
    begin = walk_game.new_round_state((x, total - x), starter=0)
    if public is not None:
        begin = walk_game.apply(begin, tuple(public))
    return _RoundWalk(walk_game, seats, me, terminal).after(begin)


# ----- the tables -----
def canonical_match_game(game: Any) -> Any:
    """The game whose match table serves ``game``: the round's options
    (:func:`canonical_game`) and ``bluff.start_chips`` (a match's chips add up to twice
    that); in liar's poker also ``liar.first_turn``, since who rolls first in the next
    round changes the match (it does not change a round, whose values are the roller's)."""
    rules = canonical_game(game).rules
    if isinstance(game, LiarsPokerGame):
        return LiarsPokerGame(replace(rules, first_turn=game.rules.first_turn), 2)
    return BiddingBluffGame(replace(rules, start_chips=game.rules.start_chips), 2)


class MatchPayoffs:
    """What the stored match plans read instead of chips (a mixin before
    :class:`BiddingPlan` or :class:`LiarsPlan`): values are the chance to win the match
    (BLUFF-6), and a claim's pass value and bet payoffs come from
    :func:`match_claim_payoffs`, priced by the table's W and stage values, as the solver
    priced them. ``where`` is what the plan's queries take before the claim (liar's
    poker: the public roll)."""

    value_name = "P(win the match) vs equilibrium"
    constant_sum = 1.0

    def _payoffs(self, where: tuple, claim: Any, x: int, y: int) -> tuple[Any, list, list]:
        pricing = MatchPricing(1.0, self.win, lambda c, a, b: self.value(*where, c, a, b))
        return match_claim_payoffs(pricing, x, y, claim, self.top(*where), self.forced(*where, claim))

    def pass_value(self, *query: Any) -> float:
        """``pass_value(*where, claim, x, y)``."""
        *where, claim, x, y = query
        return float(self._payoffs(tuple(where), claim, x, y)[0])

    def bet_values(self, *query: Any) -> tuple[float, float]:
        """``bet_values(*where, claim, stake, x, y)``: (if true, if false)."""
        *where, claim, stake, x, y = query
        _, wins, loses = self._payoffs(tuple(where), claim, x, y)
        return float(wins[stake - 1]), float(loses[stake - 1])


class MatchPlan(MatchPayoffs, BiddingPlan):
    """The stored match equilibrium of the two-player bidding bluff (its table: ``--kind
    match``): stage values are the roller's chance to win the match."""

    def __init__(self, game: BiddingBluffGame, table: Any) -> None:
        super().__init__(game, table)
        self.win = table["win"]

    def covers(self, x: int, y: int) -> bool:
        return x >= 1 and y >= 1 and x + y == self.max_total

    def _cell(self, standing: Any, x: int, y: int) -> tuple[int, int, int]:
        if not self.covers(x, y):
            raise RulesError(f"the {self.game.NAME} match table holds a match with {self.max_total} chips in play, "
                             f"got {x} and {y}")
        return standing_index(self.claims, standing), x, y


class LiarsMatchPlan(MatchPayoffs, LiarsPlan):
    """The stored match equilibrium of two-player liar's poker (its table: ``--kind
    match``): stage values are the roller's chance to win the match."""

    def __init__(self, game: LiarsPokerGame, table: Any) -> None:
        super().__init__(game, table)
        self.win = table["win"]


class _MatchSolver:
    """A match table (``--kind match``): the stationary match equilibrium of a two-player
    betting game (the chance to win the match, BLUFF-6; with ``payoff = chips`` and no
    round limit the winner ends with every chip, so the same plan maximises expected
    chips), its exploitability measured in the match by the independent best response
    (:func:`match_exploitability`) through the stored plan, ``measure_steps`` steps from
    the plan's own values (0: not measured). Subclasses name the game, the plan, the solve,
    the round table whose layout the match table extends, and the public rolls after
    which a build measures (``(None,)``: a game without them)."""

    kind = MATCH_KIND
    game_type: type
    plan_type: type
    round_solver: Any
    measured_publics: tuple = (None,)

    def __init__(self, measure_steps: int = 1) -> None:
        self.measure_steps = measure_steps

    def solve(self, game: Any, total: int, options: BuildOptions) -> tuple[MatchSolution, dict[str, np.ndarray], dict]:
        raise NotImplementedError

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        check_betting_rules(game)
        if not isinstance(game, self.game_type):
            raise RulesError(f"this table solver builds the {self.game_type.NAME} match, got {game.NAME!r}")
        start = game.rules.start_chips
        total = 2 * start
        if start > LIARS_MAX_START:
            raise RulesError(f"the {game.NAME} match table is built for at most {LIARS_MAX_START} chips each, got {start}")
        began = time.perf_counter()
        solved, arrays, facts = self.solve(game, total, options)
        arrays["win"] = np.array([np.nan] + [solved.win[x] for x in range(1, total)])
        facts.update({
            "max_total": total, "total": total, "iterations": solved.iterations, "residual": solved.residual,
            "solve_seconds": round(time.perf_counter() - began, 2), "headline_chips": [start, start],
            "headline_value": solved.win[start],
        })
        if self.measure_steps:
            policy = self.plan_type(game, _loose_table(arrays, facts, self.kind)).policy()
            facts["match_exploitability"] = [self._measure(game, policy, solved.win, start, p) for p in self.measured_publics]
        return arrays, facts

    def _measure(self, game: Any, policy: TurnPolicy, win: Mapping[int, float], start: int,
                 public: tuple | None) -> dict[str, Any]:
        result = match_exploitability(game, policy, win, start, self.measure_steps, public=public)
        entry = {"gain": result.gain, "best_response": list(result.best_response), "steps": result.steps,
                 "change": result.change}
        return entry if public is None else {"public": list(public), **entry}

    def summary(self, table: Any) -> dict[str, Any]:
        extra = table.meta.extra
        x, _ = extra.get("headline_chips", (0, 0))
        facts: dict[str, Any] = {
            f"P(the starter wins the match), {x} chips each": extra.get("headline_value"),
            "policy-iteration steps / residual": f"{extra.get('iterations')} / {extra.get('residual')}",
            "stages": extra.get("stages"),
        }
        measured = extra.get("match_exploitability") or []
        for entry in [measured] if isinstance(measured, dict) else measured:  # a dict in older bidding tables
            where = f", first round after public roll {entry['public']}" if "public" in entry else ""
            facts[f"match exploitability (P(win) a best responder gains{where})"] = entry["gain"]
        return facts

    def layout(self, game: Any, meta: Any) -> dict[str, tuple[tuple[int | None, ...], Any]]:
        """As the round table (the round solver's layout, every x + y = total) and
        ``win[x]``, the starter's chance to win the match with x chips."""
        layout = dict(self.round_solver.layout(game, meta))
        layout["win"] = ((int(meta.extra["total"]),), np.float64)
        return layout

    def check(self, game: Any, table: Any) -> list[str]:
        problems = _check_rows(table)
        win = table["win"]
        if not (np.all(np.diff(win[1:]) >= -1e-12) and win[1:].min() >= -1e-12 and win[1:].max() <= 1 + 1e-12):
            problems.append("the match values are not chances that grow with the chips")
        return problems


class BiddingMatchSolver(_MatchSolver):
    """``kocka-solve build bidding-bluff --kind match [-r start_chips=N] [-r ranking=pro]``
    (:func:`solve_bidding_match`)."""

    description = "two-player match equilibrium (P(win), every chip count of a match), exploitability in the match"
    game_type, plan_type, round_solver = BiddingBluffGame, MatchPlan, BIDDING_EQUILIBRIUM

    def solve(self, game: Any, total: int, options: BuildOptions) -> tuple[MatchSolution, dict[str, np.ndarray], dict]:
        solved = solve_bidding_match(game.rules, total)
        claims = game.claims()
        arrays = _arrays_from_rows(_two_dice_rows(solved.stages, claims, total), len(claims), total)
        return solved, arrays, {"stages": len(solved.stages)}


class LiarsMatchSolver(_MatchSolver):
    """``kocka-solve build liars-poker --kind match [-r start_chips=N] [-r first_turn=...]
    [-j 2]`` (:func:`solve_liars_match`; the public-roll classes of each step in
    parallel). A build measures the exploitability in the match with the first round
    after the public rolls :data:`LIARS_MEASURED` ([6,6,6]), one step; every public roll
    from every chip count is hours from 10 chips each (``python
    scripts/bluff_round_figures.py match game=liars-poker``)."""

    description = "two-player match equilibrium with re-throws (P(win), a match's chip counts), exploitability in the match"
    game_type, plan_type, round_solver = LiarsPokerGame, LiarsMatchPlan, LIARS_EQUILIBRIUM
    measured_publics = LIARS_MEASURED

    def solve(self, game: Any, total: int, options: BuildOptions) -> tuple[MatchSolution, dict[str, np.ndarray], dict]:
        solved = solve_liars_match(game.rules, total, options)
        rows = solved.rows
        arrays = liars_arrays(rows, len(game.claims()), total)
        return solved, arrays, {"stages": len(rows["cell"]), "stages_solved_per_step": sum(rows["solved"])}


BIDDING_MATCH = BiddingMatchSolver()
LIARS_MATCH = LiarsMatchSolver()
