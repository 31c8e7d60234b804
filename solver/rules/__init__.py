"""Rules engines, one module per game family; pure Python, no solver imports.

Each engine module registers its games' specs (:mod:`kocka.solver.rules.spec`) when it is
imported; importing this package imports them all. :func:`get_game` builds any game by
name with rule options; :func:`game_names` lists them, in registration order.
"""
from __future__ import annotations

from typing import Any, Mapping

# Importing the engine modules registers their games (in this order: the order of every list).
from kocka.solver.rules import kocka, scorecard, polish, chip_bidding, bluff  # noqa: F401  (registration)
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, Rules, play_random_game
from kocka.solver.rules.spec import GameSpec, game_names, game_specs, resolve, spec_for

GAME_NAMES = game_names()


def game_class(name: str) -> type[Game]:
    return spec_for(name).engine


def get_game(name: str, options: Mapping[str, Any] | None = None, num_players: int | None = None) -> Game:
    """Build game ``name`` with rule ``options`` (names as in RULES.md section 6) for
    ``num_players`` seats (``None``: the spec's default)."""
    spec = spec_for(name)
    players = spec.default_players if num_players is None else num_players
    return spec.engine(spec.engine.RULES.from_options(options), num_players=players)


__all__ = [
    "CHANCE", "TERMINAL", "GAME_NAMES", "Game", "GameSpec", "Rules", "game_class", "game_names", "game_specs",
    "get_game", "play_random_game", "resolve", "spec_for",
]  # fmt: skip
