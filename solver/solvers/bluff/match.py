"""Whole matches of the two betting games (RULES.md BLUFF-6, BLUFF-9, BLUFF-16, BLUFF-21):
the stationary match equilibrium of two players, its exploitability in the match, and its
tables (``kocka-solve build GAME --kind match``).

**The match plan** prices the round's stages by what follows them, the chance W(x) that a
round's starter holding x chips wins the match
(:func:`~kocka.solver.solvers.bluff.betting.match_claim_payoffs`), and is found by policy
iteration (:func:`_policy_iteration`): solve every stage exactly for the current W
(:func:`solve_bidding_match`, :func:`solve_liars_match`), evaluate the strategies found as
affine functions of W, and take the values of those strategies as the next W.

**Exploitability in the match** (:func:`match_exploitability`) is value iteration over the
match states from the plan's own values, each round walked by the independent best
response of :mod:`kocka.solver.solvers.bluff.best_response`.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.dice import outcome_distribution
from kocka.solver.base.errors import RulesError
from kocka.solver.base.parallel import iter_calls, parallel_pool
from kocka.solver.base.progress import Progress
from kocka.solver.base.table_file import Layout, TableMeta
from kocka.solver.models.table_solver import TableSolver
from kocka.solver.rules.bluff import BiddingBluffGame, BiddingBluffRules, BluffState, LiarsPokerGame, LiarsPokerRules
from kocka.solver.solvers.bluff.best_response import BestResponseWalk, TurnPolicy, round_game, round_start
from kocka.solver.solvers.bluff.betting import (
    MatchPricing, check_betting_rules, check_claim_rows, match_claim_payoffs, match_payoff_rows, match_stage_claims,
    rounded_value, unstored_table,
)
from kocka.solver.solvers.bluff.bidding import (
    BIDDING_EQUILIBRIUM, BiddingPlan, SolvedStage, two_dice_arrays, two_dice_rows, two_dice_types,
)
from kocka.solver.solvers.bluff.liars import (
    LIARS_EQUILIBRIUM, LIARS_MAX_START, LIARS_MEASURED, LiarsPlan, liars_arrays, liars_rows, liars_turns,
    public_classes,
)
from kocka.solver.solvers.bluff.stage import OUTSIDE, StageGame, StageSolution, message_payoffs, solve_stage
from kocka.solver.solvers.bluff.two_player import MATCH_KIND, standing_index

MATCH_TOLERANCE = 1e-12
"""How close the match values W come to the values of the rounds they price."""


@dataclass(frozen=True)
class MatchSolution:
    """The stationary match equilibrium of a two-player betting game with ``total`` chips
    in play: ``win[x]`` is the chance that the round's starter, holding x chips (his
    opponent total - x), wins the match; the round's stages solved with those values as
    payoffs are ``stages`` (the bidding bluff) or the table ``rows`` of
    :func:`~kocka.solver.solvers.bluff.liars.solve_liars_class` (liar's poker);
    ``residual`` max |W - the value of a round priced by W|; ``iterations`` the
    policy-iteration steps."""

    total: int
    win: Mapping[int, float]
    stages: tuple[SolvedStage, ...]
    residual: float
    iterations: int
    rows: Mapping[str, list] | None = None


def _affine_pricing(total: int, later: Callable[[Any, int, int], np.ndarray]) -> MatchPricing:
    """:class:`MatchPricing` in affine functions of W: vectors (constant, W(1), ...,
    W(total - 1)); ``later`` gives the stages already evaluated."""
    basis = np.eye(total)
    return MatchPricing(basis[0], basis, later)


def _stage_affine(stage: StageGame, solution: StageSolution, payoffs: Sequence[tuple],
                  outside: Sequence[np.ndarray], total: int) -> np.ndarray:
    """The value to the roller of a solved stage's strategies as an affine function of W
    (policy evaluation): the answerer bets as the solution says (from the stage's own
    payoffs), and every outcome is priced by ``payoffs``
    (:func:`~kocka.solver.solvers.bluff.betting.match_payoff_rows` in affine arithmetic)
    or, for a re-throw, by the value ``outside[j]`` of its stage."""
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


def stationary_match_values(starter: Mapping[int, np.ndarray], total: int) -> dict[int, float]:
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
    found (:func:`stationary_match_values`), until W reproduces itself within
    ``tolerance``. Where the strategies found may never end the match (under ``all_pass_resets`` both players can
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
            evaluated = stationary_match_values(affine, total)
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
        claims, patterns, weights, types = two_dice_types(game, standing)
        for x, y in pairs:
            stage = StageGame(weights, patterns, match_stage_claims(game.rules, claims, top, x, y, pricing), x, y)
            solution = solve_stage(stage)
            values[(standing, x, y)] = rounded_value(solution.value, False)
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
        payoffs = match_payoff_rows(game.rules, st.claims, top, x, y, pricing)
        affine[(st.standing, x, y)] = _stage_affine(st.game, st.solution, payoffs, (), total)
    return {x: affine[(None, x, total - x)] for x in range(1, total)}


def two_dice_match_values(stages: Sequence[SolvedStage], game: BiddingBluffGame, total: int) -> dict[int, float]:
    """The match values W of the stationary strategies of two-dice ``stages``."""
    return stationary_match_values(_stages_starter_affine(stages, game, total), total)


def solve_bidding_match(rules: BiddingBluffRules, total: int, tolerance: float = MATCH_TOLERANCE,
                        max_iterations: int = 40) -> MatchSolution:
    """The stationary match equilibrium (P(win), BLUFF-6) of the two-player bidding bluff
    with ``total`` chips in play (:func:`_policy_iteration`; each step solves every stage
    exactly for the current W, :func:`~kocka.solver.solvers.bluff.stage.solve_stage` with
    general payoffs)."""
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
    the strategies of its solved ``turns``
    (:func:`~kocka.solver.solvers.bluff.liars.liars_turns`), affine in W: each re-throw
    stage, then the first claim with the re-throws' values as outside options."""
    affine: dict[tuple, np.ndarray] = {}
    pricing = _affine_pricing(total, lambda c, a, b: affine[(c, a, b)])
    for standing, x, y, turn, solutions in turns:
        outside = []
        for option in turn.rethrows:
            stage, sub_claims, _ = turn.sub[option]
            payoffs = match_payoff_rows(game.rules, sub_claims, turn.top, x, y, pricing)
            outside.append(_stage_affine(stage, solutions[option], payoffs, (), total))
        payoffs = match_payoff_rows(game.rules, turn.claims, turn.top, x, y, pricing)
        affine[(standing, x, y)] = _stage_affine(turn.stage, solutions[None], payoffs, outside, total)
    return {x: affine[(None, x, total - x)] for x in range(1, total)}


def solve_liars_match_class(rules: LiarsPokerRules, members: Sequence[tuple], total: int,
                            win: Mapping[int, Fraction] | None, rows: bool = True) -> tuple[dict | None, dict, dict]:
    """One public-roll class of a liar's poker match
    (:func:`~kocka.solver.solvers.bluff.liars.solve_liars_class` with its stages priced by
    the match values ``win``; None: the round plan's stages, priced in
    chips, to play the round plan in the match): the table rows (None unless ``rows``),
    and the round's value to its first roller holding x, as solved (``win`` given) and as
    an affine function of W under the strategies found."""
    game = LiarsPokerGame(rules, num_players=2)
    turns = liars_turns(game, members[0], total, win)
    priced = {x: float(solutions[None].value) for standing, x, _, _, solutions in turns if standing is None}
    table_rows = liars_rows(game, members, turns, total) if rows else None
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
        with parallel_pool(options, lazy=True) as parallel:
            calls = [(rules, members, total, win, keep) for members in classes]
            for w, (part, priced, vector) in zip(weights, iter_calls(parallel, solve_liars_match_class, calls)):
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
    (:class:`~kocka.solver.solvers.bluff.best_response.BestResponseWalk`; liar's poker
    from the public roll on), each round priced by the best responder's current values; a
    step's walks in ``jobs`` processes. With ``public`` (liar's poker) one step only, the
    round walked after that public roll: what a best responder gains by deviating in one
    round that shows it, the later rounds priced by the plan's own W (a build's check;
    every public roll is many times slower)."""
    if public is not None and steps != 1:
        raise ValueError("a match measured after one public roll takes one step (the later rounds show any roll)")
    total = 2 * start
    walk_game = round_game(game, rounds=2)
    # (the starter's chips, whether the best responder starts) -> his chance to win
    values = {(x, starts): (win[x] if starts else 1.0 - win[x]) for x in range(1, total) for starts in (True, False)}
    change = float("inf")
    step = 0
    for step in range(1, steps + 1):
        with parallel_pool(BuildOptions(jobs=jobs, progress=False), lazy=True) as parallel:
            calls = [(walk_game, policy, values, total, x, starts, public) for x, starts in values]
            new = dict(zip(values, iter_calls(parallel, _match_walk, calls)))
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
    return BestResponseWalk(walk_game, seats, me, terminal).after(round_start(walk_game, (x, total - x), public))


class MatchPayoffs:
    """What the stored match plans read instead of chips (a mixin before
    :class:`~kocka.solver.solvers.bluff.bidding.BiddingPlan` or
    :class:`~kocka.solver.solvers.bluff.liars.LiarsPlan`): values are the chance to win
    the match (BLUFF-6), and a claim's pass value and bet payoffs come from
    :func:`~kocka.solver.solvers.bluff.betting.match_claim_payoffs`, priced by the table's
    W and stage values, as the solver priced them. ``where`` is what the plan's queries take before the claim (liar's
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
        return standing_index(standing), x, y


class LiarsMatchPlan(MatchPayoffs, LiarsPlan):
    """The stored match equilibrium of two-player liar's poker (its table: ``--kind
    match``): stage values are the roller's chance to win the match."""

    def __init__(self, game: LiarsPokerGame, table: Any) -> None:
        super().__init__(game, table)
        self.win = table["win"]


class _MatchSolver(TableSolver):
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
            policy = self.plan_type(game, unstored_table(arrays, facts, self.kind)).policy()
            facts["match_exploitability"] = [self._measure_in_match(game, policy, solved.win, start, p)
                                             for p in self.measured_publics]
        return arrays, facts

    def _measure_in_match(self, game: Any, policy: TurnPolicy, win: Mapping[int, float], start: int,
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

    def layout(self, game: Any, meta: TableMeta) -> Layout:
        """As the round table (the round solver's layout, every x + y = total) and
        ``win[x]``, the starter's chance to win the match with x chips."""
        layout = dict(self.round_solver.layout(game, meta))
        layout["win"] = ((int(meta.extra["total"]),), np.float64)
        return layout

    def check(self, game: Any, table: Any) -> list[str]:
        problems = check_claim_rows(table)
        win = table["win"]
        if not (np.all(np.diff(win[1:]) >= -1e-12) and win[1:].min() >= -1e-12 and win[1:].max() <= 1 + 1e-12):
            problems.append("the match values are not chances that grow with the chips")
        return problems

    def spot_check(self, game: Any, table: Any, seed: int) -> list[str]:
        """Two seeded stages re-solved from the stored stages and match values they lead to
        (the plan's ``spot_check``, to 1e-9)."""
        return self.plan_type(game, table).spot_check(table, seed)


class BiddingMatchSolver(_MatchSolver):
    """``kocka-solve build bidding-bluff --kind match [-r start_chips=N] [-r ranking=pro]``
    (:func:`solve_bidding_match`)."""

    description = "two-player match equilibrium (P(win), every chip count of a match), exploitability in the match"
    game_type, plan_type, round_solver = BiddingBluffGame, MatchPlan, BIDDING_EQUILIBRIUM

    def solve(self, game: Any, total: int, options: BuildOptions) -> tuple[MatchSolution, dict[str, np.ndarray], dict]:
        solved = solve_bidding_match(game.rules, total)
        claims = game.claims()
        arrays = two_dice_arrays(two_dice_rows(solved.stages, claims, total), len(claims), total)
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


__all__ = [
    "BIDDING_MATCH", "BiddingMatchSolver", "LIARS_MATCH", "LiarsMatchPlan", "LiarsMatchSolver", "MATCH_TOLERANCE",
    "MatchExploitability", "MatchPayoffs", "MatchPlan", "MatchSolution", "MatchStep", "liars_match_step",
    "match_exploitability", "solve_bidding_match", "solve_liars_match", "solve_liars_match_class",
    "stationary_match_values", "two_dice_match_values",
]  # fmt: skip
