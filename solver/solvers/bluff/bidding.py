"""The exact two-player round of the bidding bluff (RULES.md BLUFF-11..BLUFF-16), its table
(``kocka-solve build bidding-bluff``) and its stored plan.

The round decomposes into stages (:mod:`kocka.solver.solvers.bluff.betting`), each solved
exactly (:mod:`kocka.solver.solvers.bluff.stage`): the roller's types are his results
(BLUFF-7) merged by their truth over the claims allowed above the standing claim (BLUFF-3,
BLUFF-4). A pass moves one chip and makes the answerer the roller, so the chip pairs a
round visits form orbits (:func:`~kocka.solver.solvers.bluff.betting.orbits`), solved in
parallel. The table holds every stage of every chip count of a match from up to 20 chips
each (:data:`MAX_TOTAL`); its plan (:class:`BiddingPlan`) answers the values and the
mixed strategies of any position.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

import numpy as np

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import RulesError
from kocka.solver.base.parallel import iter_calls, parallel_pool
from kocka.solver.base.progress import Progress
from kocka.solver.base.table_file import Layout, TableMeta
from kocka.solver.models.table_solver import TableSolver
from kocka.solver.rules.bluff import (
    Bet, BiddingBluffGame, BiddingBluffRules, BluffState, Claim, Pass, actual_result, claim_probabilities,
)
from kocka.solver.solvers.bluff.best_response import TurnPolicy, round_exploitability, round_value
from kocka.solver.solvers.bluff.betting import (
    PlanAnswers, check_betting_rules, check_claim_rows, measured_problems, orbits, plan_layout, round_stage_claims,
    rounded_value, unstored_table,
)
from kocka.solver.solvers.bluff.betting import sampled_stage_problems, stage_problems as betting_stage_problems
from kocka.solver.solvers.bluff.stage import StageGame, StageSolution, bet_probability, message_payoffs, solve_stage
from kocka.solver.solvers.bluff.two_player import EQUILIBRIUM_KIND, result_dice, standing_index

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


def two_dice_stage(game: BiddingBluffGame, standing: Any, x: int, y: int, value_of: Any) -> tuple[StageGame, tuple, tuple]:
    """The stage "roll and beat ``standing`` holding x against y" of the bidding bluff:
    types are the results (BLUFF-7) merged by their truth over the allowed claims (BLUFF-3,
    BLUFF-4, the engine's ``claims_above`` and ``claim_true``); ``value_of(c, x, y)`` gives
    the values of later stages. Returns (stage, claims, results of each type)."""
    claims, patterns, weights, types = two_dice_types(game, standing)
    stage = StageGame(weights, patterns, round_stage_claims(game, claims, game.claims()[-1], x, y, value_of), x, y)
    return stage, claims, types


def two_dice_types(game: BiddingBluffGame, standing: Any) -> tuple[tuple, tuple, tuple, tuple]:
    """The claims allowed over ``standing`` and the stage types of the bidding bluff: the
    results (BLUFF-7) merged by their truth over those claims. Returns (claims, truth
    patterns, the weight of each type, the results of each type). The round's stages and
    the match's stages have the same types (only their payoffs differ), so both read them
    from here."""
    ranking = game.rules.ranking
    chance = claim_probabilities(ranking)
    claims = tuple(game.claims_above(standing))
    groups: dict[tuple[bool, ...], list] = {}
    for result, dice in result_dice(ranking).items():
        groups.setdefault(tuple(game.claim_true(c, dice) for c in claims), []).append(result)
    patterns = tuple(groups)
    weights = tuple(sum((chance[r] for r in groups[p]), Fraction(0)) for p in patterns)
    return claims, patterns, weights, tuple(tuple(groups[p]) for p in patterns)


def solve_two_dice_orbit(rules: BiddingBluffRules, group: Sequence[tuple[int, int]], exact: bool = False) -> list[SolvedStage]:
    """Every stage of one orbit of chip pairs (:func:`~kocka.solver.solvers.bluff.betting.orbits`),
    from the top claim down."""
    game = BiddingBluffGame(rules, num_players=2)
    values: dict[tuple, Fraction] = {}

    def value_of(c: Any, x: int, y: int) -> Fraction:
        return values[(c, x, y)]

    solved = []
    for standing in [*reversed(game.claims()[:-1]), None]:
        for x, y in group:
            stage, claims, types = two_dice_stage(game, standing, x, y, value_of)
            solution = solve_stage(stage)
            values[(standing, x, y)] = rounded_value(solution.value, exact)
            solved.append(SolvedStage(standing, (x, y), claims, types, stage, solution))
    return solved


def stages_policy(game: Any, stages: Sequence[SolvedStage]) -> TurnPolicy:
    """Solved two-dice stages (a round or a match plan, in memory) as a turn policy."""
    index = {(st.standing, st.chips): st for st in stages}
    ranking = game.rules.ranking
    bets: dict[tuple, float] = {}  # an answer reads no dice: one per claim, stake and chips

    def policy(state: BluffState) -> dict[Any, float]:
        a, o = state.active, 1 - state.active
        if state.phase == "claim":
            st = index[(state.standing, (state.chips[a], state.chips[o]))]
            result = actual_result(state.dice, ranking)
            t = next(i for i, results in enumerate(st.types) if result in results)
            return {Claim(st.claims[m.claim], m.stake): float(p) for m, p in st.solution.sender[t].items()}
        key = (state.previous, state.chips[a], state.chips[o], state.standing, state.stake)
        if key not in bets:
            st = index[(state.previous, (state.chips[a], state.chips[o]))]
            c = st.claims.index(state.standing)
            bets[key] = float(message_payoffs(st.game, st.solution.lie_value, c, state.stake)[0])
        beta = bets[key]
        return {act: p for act, p in ((Bet(), beta), (Pass(), 1.0 - beta)) if p > 0}

    return policy


# ----------------------------------------------------------------------------------------
# The table and its plan
# ----------------------------------------------------------------------------------------
MEASURED_CHIPS = ((1, 1), (3, 2), (10, 10))
"""Where a build measures the round plan's exploitability (the value's chips too)."""
HEADLINE_CHIPS = (10, 10)
"""The chips of the round value a build also solves with no rounding anywhere."""


def canonical_bidding_game(game: Any) -> BiddingBluffGame:
    """The game whose table serves ``game``: with two players only ``bluff.ranking``,
    ``bluff.truth`` and ``bid.top_claim`` change the round (the stake caps agree, both
    next-active rules name the bettor, and the table holds every chip count of a match
    from up to 20 chips each), so one table per such triple serves all."""
    check_betting_rules(game)
    rules = game.rules
    return BiddingBluffGame(BiddingBluffRules(ranking=rules.ranking, truth=rules.truth, top_claim=rules.top_claim), 2)


def two_dice_rows(stages: Sequence[SolvedStage], claims: Sequence[Any], max_total: int) -> dict[str, list]:
    """The table rows of solved stages (see :meth:`BiddingEquilibriumSolver.layout`)."""
    rows: dict[str, list] = {"cell": [], "value": [], "lie": [], "key": [], "choice": [], "prob": [], "method": []}
    n = len(claims)
    for st in stages:
        s = standing_index(st.standing)
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


def two_dice_arrays(rows: Mapping[str, list], n_stand: int, max_total: int) -> dict[str, np.ndarray]:
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


class BiddingPlan(PlanAnswers):
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
        self.results = result_dice(game.rules.ranking)
        self.chance = {r: float(p) for r, p in claim_probabilities(game.rules.ranking).items()}

    def covers(self, x: int, y: int) -> bool:
        return x >= 1 and y >= 1 and x + y <= self.max_total

    def _cell(self, standing: Any, x: int, y: int) -> tuple[int, int, int]:
        if not self.covers(x, y):
            raise RulesError(
                f"the {self.game.NAME} equilibrium table holds chips adding up to at most {self.max_total}, "
                f"got {x} and {y}"
            )
        return standing_index(standing), x, y

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
        """What a pass of ``claim`` is worth to its claimant (a stage's pass value,
        :mod:`kocka.solver.solvers.bluff.stage`)."""
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

    # ----- what rank_betting() asks (kocka.solver.solvers.bluff.plans) -----
    def p_true(self, state: BluffState, x: int, y: int) -> tuple[float, bool]:
        """P(the standing claim is true) at an answer (:meth:`truth_chance`)."""
        return self.truth_chance(state.previous, x, y, state.standing, state.stake)

    def pass_value_at(self, state: BluffState, x: int, y: int) -> float:
        return self.pass_value(state.standing, x, y)

    def bet_values(self, claim: Any, stake: int, x: int, y: int) -> tuple[float, float]:
        """What a bet pays the roller: the chips bet, + if the claim is true, - if not."""
        amount = min(stake, y) if self.forced(claim) else stake
        return float(amount), float(-amount)

    def claim_pays(self, standing: Any, x: int, y: int, claim: Any, stake: int) -> tuple[float, float, float]:
        """(P(bet), what ``claim`` with ``stake`` made over ``standing`` earns the roller if
        it is true, if it is a lie), against the stored answerer."""
        beta = self.bet_probability(standing, x, y, claim, stake)
        win, lose = self.bet_values(claim, stake, x, y)
        passed = 0.0 if self.forced(claim) else self.pass_value(claim, x, y)
        return beta, beta * win + (1.0 - beta) * passed, beta * lose + (1.0 - beta) * passed

    def claim_values(self, state: BluffState, actions: Sequence[Any]) -> list[tuple[Any, float, dict]]:
        """(action, the roller's value, detail) of each claim in ``actions``."""
        x, y = state.chips[state.active], state.chips[1 - state.active]
        out = []
        for action in actions:
            true = self.game.claim_true(action.claim, state.dice)
            beta, if_true, if_lie = self.claim_pays(state.standing, x, y, action.claim, action.stake)
            out.append((action, if_true if true else if_lie, {"true": bool(true), "P(bet)": beta}))
        return out

    def stage_problems(self, standing_index: int, x: int, y: int) -> list[str]:
        """The stored stage (standing index, x, y) against its rules from the stages it
        leads to (:func:`~kocka.solver.solvers.bluff.betting.stage_problems`)."""
        standing = None if standing_index == 0 else self.claims[standing_index - 1]
        where = f"stage over {standing!s} at {x}/{y} chips" if standing else f"stage with no claim at {x}/{y} chips"
        if not self.covers(x, y) or standing == self.claims[-1]:
            return [f"{where}: a value where the rules have no stage"]
        types = [(self.chance[r], lambda c, dice=dice: self.game.claim_true(c, dice),
                  [(p, c, k) for c, k, p in self.claim_distribution(standing, x, y, r)])
                 for r, dice in self.results.items()]
        return betting_stage_problems(where, self.value(standing, x, y), self.game.claims_above(standing), (x, y),
                                      lambda c, k: self.claim_pays(standing, x, y, c, k)[1:], types)

    def spot_check(self, table: Any, seed: int) -> list[str]:
        """Three seeded stored stages re-solved from the stages they lead to
        (:meth:`stage_problems`), the load-time check of the round and match tables: one
        drawn among every stage, two among those worth more than 1e-9 either way (where
        a table scaled by a forger differs from the rules; a stage of 1 chip against
        many in a match is worth about 1e-17)."""
        return sampled_stage_problems(table["value"], np.random.default_rng(seed), self.stage_problems)

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


class BiddingEquilibriumSolver(TableSolver):
    """``kocka-solve build bidding-bluff [-r ranking=pro] [-r truth=at_least] [-r
    top_claim=all_pass_resets]``: the exact two-player round equilibrium of every stage
    with up to :data:`MAX_TOTAL` chips in play, its exploitability measured by the
    independent best response."""

    kind = EQUILIBRIUM_KIND
    description = "two-player round equilibrium, every chip count (exact stages), exploitability by best response"
    game_type = BiddingBluffGame

    def __init__(self, max_total: int = MAX_TOTAL, measured: Sequence[tuple[int, int]] = MEASURED_CHIPS) -> None:
        self.max_total = max_total
        self.measured = tuple(c for c in measured if sum(c) <= max_total)

    def build(self, game: Any, options: BuildOptions) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        check_betting_rules(game)
        rules = game.rules
        claims = game.claims()
        start = time.perf_counter()
        groups = orbits(self.max_total)
        progress = Progress(len(groups), f"{game.NAME} equilibrium", "chip orbits", enabled=options.progress)
        rows: dict[str, list] = {}
        with parallel_pool(options, lazy=True) as parallel:
            for part in iter_calls(parallel, solve_two_dice_orbit, [(rules, g) for g in groups]):
                for name, values in two_dice_rows(part, claims, self.max_total).items():
                    rows.setdefault(name, []).extend(values)
                progress.advance()
        progress.close()
        seconds = time.perf_counter() - start
        arrays = two_dice_arrays(rows, len(claims), self.max_total)
        exact = _exact_headline(rules)
        facts: dict[str, Any] = {
            "max_total": self.max_total,
            "stages": len(rows["cell"]),
            "stages_by_method": {m: rows["method"].count(m) for m in sorted(set(rows["method"]))},
            "solve_seconds": round(seconds, 2),
            **exact,
        }
        table = unstored_table(arrays, facts)
        facts["exploitability"] = _measure_round_plan(game, BiddingPlan(game, table).policy(), self.measured, table)
        return arrays, facts

    def summary(self, table: Any) -> dict[str, Any]:
        return _summary(table)

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """``value[s, x, y]`` and ``lie_value[s, x, y]`` (standing index s: 0 none, claim
        rank + 1; the roller's chips x and the answerer's y, x + y <= max_total; NaN
        elsewhere); the roller's claims as sorted rows: ``claim_key`` ((s * T + x) * T + y)
        * n + result rank (T = max_total, n claims), ``claim_choice`` (claim rank, stake),
        ``claim_prob``."""
        n = len(game.claims())
        total = int(meta.extra["max_total"])
        return plan_layout((n, total, total))

    def check(self, game: Any, table: Any) -> list[str]:
        problems = check_claim_rows(table)
        plan = BiddingPlan(game, table)
        chips = [c for c in self.measured if plan.covers(*c)]
        for entry in _measure_round_plan(game, plan.policy(), chips, table):
            problems += measured_problems(f"chips {entry['chips']}", entry)
        return problems

    def spot_check(self, game: Any, table: Any, seed: int) -> list[str]:
        """Two seeded stages re-solved from the stored stages they lead to
        (:meth:`BiddingPlan.spot_check`, to 1e-9)."""
        return BiddingPlan(game, table).spot_check(table, seed)


def _measure_round_plan(game: Any, policy: TurnPolicy, chips_list: Sequence[tuple[int, int]],
                        table: Any) -> list[dict[str, Any]]:
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


BIDDING_EQUILIBRIUM = BiddingEquilibriumSolver()


__all__ = [
    "BIDDING_EQUILIBRIUM", "BiddingEquilibriumSolver", "BiddingPlan", "HEADLINE_CHIPS", "MAX_TOTAL", "MEASURED_CHIPS",
    "SolvedStage", "canonical_bidding_game", "solve_two_dice_orbit", "stages_policy", "two_dice_arrays",
    "two_dice_rows", "two_dice_stage", "two_dice_types",
]  # fmt: skip
