"""The exact two-player round of liar's kockapóker (RULES.md BLUFF-17..BLUFF-21), its
table (``kocka-solve build liars-poker``) and its stored plan.

**The public roll** is a chance node before the round, and the public rolls fall into 31
classes that play the same round position for position (:func:`public_classes`), each
solved once and written out for its members (:func:`solve_liars_class`), the classes in
parallel. **A re-throw** (BLUFF-18: keep and show one die, throw the other again; or both
under ``liar.reroll = one_or_both``) is an outside option of the turn's first claim, worth
the value of its own stage: the kept die is shown and the new die is fresh, so nothing the
roller knew before is hidden any more (:func:`liars_turns`). The stages themselves are the
betting games' (:mod:`kocka.solver.solvers.bluff.stage`), their types the roller's hands
with the public dice, merged by their truth over the achievable claims (BLUFF-20).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.dice import all_outcomes, outcome_distribution
from kocka.solver.base.errors import RulesError
from kocka.solver.base.parallel import iter_calls, parallel_pool
from kocka.solver.base.progress import Progress
from kocka.solver.base.table_file import Layout, TableMeta
from kocka.solver.models.table_solver import TableSolver
from kocka.solver.rules.bluff import (
    Bet, BluffState, Claim, LiarsPokerGame, LiarsPokerRules, Pass, Reroll, top_claim,
)
from kocka.solver.solvers.bluff.best_response import TurnPolicy, round_exploitability, round_value
from kocka.solver.solvers.bluff.betting import (
    ClaimsOf, MatchPricing, PlanAnswers, check_betting_rules, check_claim_rows, match_stage_claims, measured_problems,
    orbits, plan_layout, round_stage_claims, rounded_value, sampled_stage_problems, unstored_table,
)
from kocka.solver.solvers.bluff.betting import stage_problems as betting_stage_problems
from kocka.solver.solvers.bluff.stage import (
    OUTSIDE, Message, StageClaim, StageGame, StageSolution, bet_probability, solve_stage,
)
from kocka.solver.solvers.bluff.two_player import EQUILIBRIUM_KIND

BOTH = 0
"""The shown-die slot of a re-throw of both dice (``liar.reroll = one_or_both``)."""
SLOTS = 8
"""Stage slots of a liar's poker position: 0 the turn's first claim, 1..6 after keeping
and showing that die, 7 after throwing both again."""
LIARS_MAX_START = 20
"""The most chips each a liar's poker table (round or match) is built for."""
LIARS_MEASURE_CHIPS = 10
"""A build measures the exploitability only from up to this many chips each (the walk grows
with the chips)."""
LIARS_MEASURED = ((6, 6, 6),)
"""The public rolls on which a build and ``kocka-solve verify`` measure the exploitability
(an exact walk of every public roll is an hour of engine calls; docs/BLUFF.md has more)."""


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


_remembered_stage = lru_cache(maxsize=4096)(solve_stage)
""":func:`~kocka.solver.solvers.bluff.stage.solve_stage`, remembered: public-roll classes
meet the same stages (equal chances, truth patterns and payoffs), and a match's
policy-iteration steps meet them again (the match table from 1 chip each solves 4472
stages, 432 of them different). A stage is frozen and its solution exact, so a
remembered solution is the one a new solve would give."""


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
    return liars_rows(game, members, liars_turns(game, members[0], total, None, exact), total)


def liars_turns(game: LiarsPokerGame, public: tuple, total: int, win: Mapping[int, Fraction] | None,
                 exact: bool = False) -> list[tuple]:
    """Every turn of the round after the public roll ``public`` for the chip pairs adding
    up to ``total``, from the top claim down, as (standing, x, y, turn, solutions)
    (:func:`_liars_turn`): priced in chips (``win`` None: the round plan) or by the match
    values ``win`` (the match plan,
    :func:`~kocka.solver.solvers.bluff.betting.match_stage_claims`)."""
    values: dict[tuple, Fraction] = {}

    def later(c: Any, a: int, b: int) -> Fraction:
        return values[(c, a, b)]

    if win is None:
        def claims_of(claims: Sequence[Any], top: Any, x: int, y: int) -> tuple[StageClaim, ...]:
            return round_stage_claims(game, claims, top, x, y, later)
    else:
        pricing = MatchPricing(Fraction(1), win, later)

        def claims_of(claims: Sequence[Any], top: Any, x: int, y: int) -> tuple[StageClaim, ...]:
            return match_stage_claims(game.rules, claims, top, x, y, pricing)

    turns: list[tuple] = []
    claims = game.claims_above(None, public, ())
    standings = [*reversed(claims[: claims.index(top_claim(public, game.rules))]), None]
    pairs = [pair for group in orbits(total) for pair in group if sum(pair) == total]
    for standing in standings:
        for x, y in pairs:
            turn, solutions = _liars_turn(game, public, standing, x, y, claims_of, _remembered_stage)
            values[(standing, x, y)] = rounded_value(solutions[None].value, exact)
            turns.append((standing, x, y, turn, solutions))
    return turns


def liars_rows(game: LiarsPokerGame, members: Sequence[tuple], turns: Sequence[tuple], total: int) -> dict[str, list]:
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


class LiarsPlan(PlanAnswers):
    """The stored round equilibrium of two-player liar's poker, read from its table (the
    same queries as :class:`~kocka.solver.solvers.bluff.bidding.BiddingPlan`, with the
    public roll and the re-throw slot)."""

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
        self._tops: dict[tuple, Any] = {}  # the top claim of each public roll, asked for at every claim

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
        public = tuple(public)
        if public not in self._tops:
            self._tops[public] = top_claim(public, self.game.rules)
        return self._tops[public]

    def forced(self, public: tuple, claim: Any) -> bool:
        return claim == self.top(public) and self.game.rules.top_claim == "first_must_bet"

    def pass_value(self, public: tuple, claim: Any, x: int, y: int) -> float:
        if claim == self.top(public) or y == 1:
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

    # ----- what rank_betting() asks (kocka.solver.solvers.bluff.plans) -----
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
            true = self.game.claim_true(action.claim, hidden, public, shown)
            beta, if_true, if_lie = self.claim_pays(public, state.standing, x, y, slot, action.claim, action.stake)
            out.append((action, if_true if true else if_lie, {"true": bool(true), "P(bet)": beta}))
        return out

    def claim_pays(self, public: tuple, standing: Any, x: int, y: int, slot: int, claim: Any,
                   stake: int) -> tuple[float, float, float]:
        """(P(bet), what ``claim`` with ``stake`` made over ``standing`` earns the roller if
        it is true, if it is a lie), against the stored answerer."""
        beta = self.bet_probability(public, standing, x, y, slot, claim, stake)
        win, lose = self.bet_values(public, claim, stake, x, y)
        passed = 0.0 if self.forced(public, claim) else self.pass_value(public, claim, x, y)
        return beta, beta * win + (1.0 - beta) * passed, beta * lose + (1.0 - beta) * passed

    def stage_problems(self, public: tuple, s: int, x: int, slot: int) -> list[str]:
        """The stored stage (public roll, standing index, the roller's chips, slot) against
        its rules from the stages it leads to (re-throws included,
        :func:`~kocka.solver.solvers.bluff.betting.stage_problems`)."""
        y = self.total - x
        standing = None if s == 0 else self.claims[s - 1]
        over = f"over {standing!s}" if standing else "with no claim"
        where = f"stage after public roll {list(public)} {over} at {x}/{y} chips, slot {slot}"
        if not self.covers(x, y) or standing == self.top(public):
            return [f"{where}: a value where the rules have no stage"]
        shown = (slot,) if 1 <= slot <= 6 else ()
        rows = [(1 / 6, (n,), n - 1) for n in range(1, 7)] if shown else [
            (float(self.pair_chance[d]), d, i) for i, d in enumerate(self.pairs)]

        def done(action: Any, p: float) -> tuple[float, Any, Any]:
            if isinstance(action, Reroll):
                return p, None, self.value(public, standing, x, y, 7 if action.keep_shown is None else action.keep_shown)
            return p, action.claim, action.stake

        types = [(w, lambda c, hidden=hidden: self.game.claim_true(c, hidden, public, shown),
                  [done(a, p) for a, p in self.distribution(public, standing, x, y, slot, index)])
                 for w, hidden, index in rows]
        return betting_stage_problems(where, self.value(public, standing, x, y, slot),
                                      self.game.claims_above(standing, public, shown), (x, y),
                                      lambda c, k: self.claim_pays(public, standing, x, y, slot, c, k)[1:], types)

    def spot_check(self, table: Any, seed: int) -> list[str]:
        """Stored stages of one seeded public roll (of those the table holds) re-solved
        from the stages they lead to (:func:`~kocka.solver.solvers.bluff.betting.sampled_stage_problems`):
        the load-time check of the round and match tables."""
        value = table["value"]
        rng = np.random.default_rng(seed)
        held = np.flatnonzero(np.isfinite(value[:, 0, :, 0]).any(axis=1))
        if len(held) == 0:
            return ["the table holds no stage"]
        p = int(rng.choice(held))
        return sampled_stage_problems(value[p], rng, lambda s, x, slot: self.stage_problems(self.publics[p], s, x, slot))

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


class LiarsEquilibriumSolver(TableSolver):
    """``kocka-solve build liars-poker [-r start_chips=N] [-r top_claim=...] [-r
    reroll=one_or_both] [-r kickers=counted] [-r truth=at_least]``: the exact two-player
    round equilibrium of every position of a match from ``start_chips`` each (the public
    roll's 31 classes solved in parallel with ``-j``), its exploitability measured by the
    independent best response on :data:`LIARS_MEASURED` public rolls."""

    kind = EQUILIBRIUM_KIND
    description = "two-player round equilibrium with re-throws, a match's chip counts (exact stages)"
    game_type = LiarsPokerGame

    def __init__(self, measured: Sequence[tuple] | None = None) -> None:
        self.measured = LIARS_MEASURED if measured is None else tuple(measured)

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        check_betting_rules(game)
        rules = game.rules
        total = 2 * rules.start_chips
        if total > 2 * LIARS_MAX_START:
            raise RulesError(f"the {game.NAME} table is built for at most {LIARS_MAX_START} chips each, "
                             f"got start_chips {rules.start_chips}")
        classes = sorted(public_classes(game), key=len, reverse=True)
        start = time.perf_counter()
        progress = Progress(len(classes), f"{game.NAME} equilibrium", "public-roll classes", enabled=options.progress)
        rows: dict[str, list] = {}
        with parallel_pool(options, lazy=True) as parallel:
            for part in iter_calls(parallel, solve_liars_class, [(rules, members, total) for members in classes]):
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
        table = unstored_table(arrays, facts)
        plan = LiarsPlan(game, table)
        facts["exploitability"] = [
            _measure_after_public(game, plan, (x, x), public) for public in self.measured if x <= LIARS_MEASURE_CHIPS
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

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """``value[p, s, x, slot]`` and ``lie_value[...]``: public roll p (in
        :func:`all_outcomes` order), standing s (0 none, hand rank + 1), the roller's chips
        x (the answerer holds total - x), slot (0 the first claim of a turn, 1..6 after
        showing that die, 7 after re-throwing both); the roller's actions as sorted rows:
        ``claim_key`` ((((p (n + 1) + s) total + x) 8 + slot) 21 + private roll index,
        ``claim_choice`` (hand rank and stake, or -die / -7 for a re-throw and 0),
        ``claim_prob``."""
        n = len(game.claims())
        total = int(meta.extra["total"])
        return plan_layout((56, n + 1, total, SLOTS))

    def check(self, game: Any, table: Any) -> list[str]:
        problems = check_claim_rows(table)
        plan = LiarsPlan(game, table)
        x = table.meta.extra["total"] // 2
        for public in self.measured:
            if x > LIARS_MEASURE_CHIPS:
                break
            problems += measured_problems(f"public roll {public}", _measure_after_public(game, plan, (x, x), public))
        return problems

    def spot_check(self, game: Any, table: Any, seed: int) -> list[str]:
        """Three seeded stages of one public roll re-solved from the stored stages they
        lead to (:meth:`LiarsPlan.spot_check`, to 1e-9)."""
        return LiarsPlan(game, table).spot_check(table, seed)


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


def _measure_after_public(game: Any, plan: LiarsPlan, chips: tuple[int, int], public: tuple) -> dict[str, Any]:
    """The round plan's exploitability (independent best response) and its value as
    played, at ``chips`` after the public roll ``public``."""
    policy = plan.policy()
    result = round_exploitability(game, chips, policy, public)
    first = 0 if game.rules.first_turn == "starter" else 1
    value = plan.value(public, None, *chips)
    return {
        "chips": list(chips), "public": list(public),
        "value": value if first == 0 else -value,
        "played": round_value(game, chips, [policy, policy], 0, public),
        "best_response": list(result.best_response), "exploitability": result.exploitability,
    }


LIARS_EQUILIBRIUM = LiarsEquilibriumSolver()


__all__ = [
    "BOTH", "LIARS_EQUILIBRIUM", "LIARS_MAX_START", "LIARS_MEASURED", "LIARS_MEASURE_CHIPS", "LiarsEquilibriumSolver",
    "LiarsPlan", "SLOTS", "canonical_liars_game", "liars_arrays", "liars_rows", "liars_turns", "public_classes",
    "solve_liars_class",
]  # fmt: skip
