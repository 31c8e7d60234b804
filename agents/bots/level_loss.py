"""The exact loss of a bluff game's difficulty level (:mod:`kocka.agents.bots.levels`): the
chips per round it gives up against the ``equilibrium`` agent it errs around, walked
exactly on the engine's game by :mod:`kocka.solver.solvers.bluff.best_response` (every
chance and every action weighted by its probability; no simulation, no noise).

* **Abázs** (two players): the level's average chips per round in the match against the
  equilibrium, who starts each round decided by BLUFF-10
  (:func:`~kocka.solver.solvers.bluff.abazs.match_value`: the two-state average-reward
  problem, chip counts and the match's end ignored, as the equilibrium's match plan ignores
  them). The equilibrium against itself gains 0, so the loss is minus the level's gain.
  Who starts is worth about a third of a chip, so a level that gives starts away pays for
  it here, as it does at the table.
* **The bidding bluff and liar's poker** (two players): one round from the match's starting
  chips (``start_chips`` each), the level once as the starter (seat 0) and once as the
  other seat, averaged:
  ``loss = ((V0(eq, eq) - V0(level, eq)) + (V1(eq, eq) - V1(eq, level))) / 2``, V_s the
  expected chips of seat s in the round
  (:class:`~kocka.solver.solvers.bluff.best_response.BestResponseWalk`). Liar's poker's
  round starts with the public roll: the loss is the chance-weighted mean over every
  public roll, or over the rolls given (``publics``), each walked alone so that one roll's
  positions are in memory at a time.

The policies the walks follow are the agents' own: at each decision the equilibrium agent's
ranking (``rank``, values against the equilibrium, ``detail["P(chosen)"]`` its mix) is
computed once and kept, since it does not depend on the level; the equilibrium plays
``P(chosen)``, a level plays :meth:`~kocka.agents.bots.levels.LevelAgent.probabilities` of
that ranking, which is what its ``choose`` draws from. So a loss measures the level as it
plays, and several levels (a calibration's temperatures) share the rankings and the
engine's remembered answers (:class:`~kocka.solver.solvers.bluff.best_response.RememberingGame`).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.agents.bots.levels import LevelAgent, LevelError
from kocka.solver.base.decision import Decision
from kocka.solver.rules.bluff import AbazsGame, BluffState, LiarsPokerGame
from kocka.solver.solvers.bluff.abazs import match_value, walk_game
from kocka.solver.solvers.bluff.best_response import (
    BestResponseWalk, RememberingGame, TurnPolicy, round_game, round_start,
)

EQUILIBRIUM = "equilibrium"


def remembering_round_game(game: Any) -> Any:
    """The betting games' round walk game (:func:`round_game`) built on the engine class with
    :class:`RememberingGame` before it: walked once per level and seat, a round's
    positions are applied by the engine once."""
    engine = type(game)
    remembering = type(f"Remembering{engine.__name__}", (RememberingGame, engine), {})
    return round_game(remembering(game.rules, game.num_players))


class _Rankings:
    """The equilibrium agent's ranking of each decision state, computed once."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.ranked: dict[BluffState, list[Decision]] = {}

    def __call__(self, state: BluffState) -> list[Decision]:
        ranked = self.ranked.get(state)
        if ranked is None:
            ranked = self.ranked[state] = self.agent.rank(state)
        return ranked

    def policy(self, choose: Callable[[list[Decision]], Sequence[float]]) -> TurnPolicy:
        """The turn policy playing ``choose(ranking)`` (one probability per ranked action),
        remembered per state (a walk asks the same state once per path to it)."""
        chosen: dict[BluffState, dict[Any, float]] = {}

        def policy(state: BluffState) -> Mapping[Any, float]:
            probabilities = chosen.get(state)
            if probabilities is None:
                ranked = self(state)
                probabilities = chosen[state] = {d.action: p for d, p in zip(ranked, choose(ranked)) if p > 0}
            return probabilities

        return policy

    def equilibrium(self) -> TurnPolicy:
        return self.policy(lambda ranked: [d.detail["P(chosen)"] for d in ranked])


class BluffLevelLoss:
    """Exact losses of levels of one two-player bluff game (module docstring): ``loss(level)``
    or ``losses(levels)`` in chips per round; levels are :class:`LevelAgent` of this game
    around ``equilibrium`` (any temperatures). ``publics`` (liar's poker only): the public
    rolls to average over, with their weights; default every roll with its chance."""

    def __init__(self, game: Any, options: AgentOptions = AgentOptions(),
                 publics: Sequence[tuple[tuple[int, ...], float]] | None = None) -> None:
        if game.num_players != 2:
            raise LevelError(f"the exact loss of a bluff level is for two players, not {game.num_players}")
        if publics is not None and not isinstance(game, LiarsPokerGame):
            raise LevelError(f"{game.NAME} has no public roll to choose")
        self.game = game
        self.options = options
        self.agent = make_agent(EQUILIBRIUM, game, 0, options)
        self.chips = (game.rules.start_chips,) * 2
        self.abazs = isinstance(game, AbazsGame)
        if self.abazs:
            self.walk_game = walk_game(game.rules)
            self.rankings = _Rankings(self.agent)
        elif isinstance(game, LiarsPokerGame):
            rolls = round_game(game)
            self.publics = list(publics) if publics is not None else [
                (tuple(roll), float(p)) for roll, p in rolls.chance_outcomes(rolls.new_round_state(self.chips, starter=0))]
        else:
            self.publics = [(None, 1.0)]
        # one round walked at a time keeps its positions only while walked, unless it is the only one
        self._kept: dict[Any, tuple[Any, _Rankings, Any]] = {}

    def _check(self, level: LevelAgent) -> None:
        if not (isinstance(level, LevelAgent) and level.mixes_equilibrium and level.game.NAME == self.game.NAME):
            raise LevelError(f"not a level of {self.game.NAME} around {EQUILIBRIUM!r}: {level!r}")

    def loss(self, level: LevelAgent) -> float:
        return self.losses([level])[0]

    def losses(self, levels: Sequence[LevelAgent]) -> list[float]:
        """The exact loss of each level (chips per round; module docstring)."""
        for level in levels:
            self._check(level)
        if self.abazs:
            equilibrium = self.rankings.equilibrium()
            return [-match_value(self.walk_game, _round_policy(self.rankings.policy(level.probabilities)),
                                 _round_policy(equilibrium)).gain for level in levels]
        totals = [0.0] * len(levels)
        for public, weight in self.publics:
            walk, rankings, value = self._round(public)
            start = round_start(walk, self.chips, public)
            equilibrium = rankings.equilibrium()
            for i, level in enumerate(levels):
                mine = rankings.policy(level.probabilities)
                as_starter = BestResponseWalk(walk, [mine, equilibrium], 0).after(start)
                as_other = BestResponseWalk(walk, [equilibrium, mine], 1).after(start)
                totals[i] += weight * ((value[0] - as_starter) + (value[1] - as_other)) / 2
        return totals

    def _round(self, public: Any) -> tuple[Any, _Rankings, Any]:
        """The walk game, the rankings and the equilibrium's values (V0, V1) of the round
        after ``public``; kept where it is the only round."""
        if public in self._kept:
            return self._kept[public]
        walk, rankings = remembering_round_game(self.game), _Rankings(self.agent)
        start = round_start(walk, self.chips, public)
        equilibrium = rankings.equilibrium()
        value = tuple(BestResponseWalk(walk, [equilibrium, equilibrium], seat).after(start) for seat in (0, 1))
        if len(self.publics) == 1:
            self._kept[public] = (walk, rankings, value)
        return walk, rankings, value


def _round_policy(policy: TurnPolicy) -> Callable[[BluffState, Any], Mapping[Any, float]]:
    """A turn policy as Abázs's walks call it, ``policy(state, previous)``: the agents read
    the claim the standing claim beat from the state (``state.previous``), which is what
    the walks pass."""
    return lambda state, previous: policy(state)


__all__ = ["BluffLevelLoss", "remembering_round_game"]
