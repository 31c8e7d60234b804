"""``winner``: plays the two-player Polish basic game to win (RULES.md PL-4..PL-7).

The basic game is a race: it ends when a player has recorded all his combinations (the
round completed first under ``pl.basic_end = finish_round``), and the higher total wins.
The ``optimal`` agent maximises its expected total over a fixed horizon of turns (the
solitaire table, :class:`kocka.solver.solvers.polish.values.PolishBasicEV`) and never looks at the
other card; ``winner`` plays every action by its exact win share (P(win), a tie counting
one half) from the race table (:mod:`kocka.solver.solvers.polish.race`), so it hurries to close the
game when ahead and waits for better throws when behind.
"""
from __future__ import annotations

from kocka.agents.bots.base import Agent, AgentUnavailable
from kocka.agents.bots.catalogue import AgentOptions, TableAgent, TableBackend
from kocka.solver.solvers.polish import race as polish_race
from kocka.solver.rules import Game

WINNER = TableBackend("race", polish_race.rank, polish_race.VALUE_NAME, min_players=2)


def polish_basic_winner(game: Game, seed: int, options: AgentOptions) -> Agent:
    """The ``winner`` agent (two players only: the race table is the two-player game)."""
    if game.num_players != 2:
        raise AgentUnavailable(
            f"'winner' plays {game.NAME!r} with exactly 2 players (its table is the two-player race), "
            f"got {game.num_players}; alone or with more players use 'optimal'")
    return TableAgent(game, seed, options, WINNER, "winner")
