"""Rules engines, one module per game family; pure Python, no solver imports.

:func:`get_game` builds any game by name with rule options; :data:`GAME_NAMES` lists them.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any, Mapping

from kocka.solver.errors import RulesError
from kocka.solver.rules.base import CHANCE, TERMINAL, Game, Rules, play_random_game

# game name -> "module:GameClass" (imported lazily so one broken engine cannot hide others)
_REGISTRY: dict[str, str] = {
    "kocka": "kocka.solver.rules.kocka:KockaGame",
    "kockapoker": "kocka.solver.rules.scorecard:HungarianGame",
    "slovak": "kocka.solver.rules.scorecard:SlovakGame",
    "yahtzee": "kocka.solver.rules.scorecard:YahtzeeGame",
    "yatzy": "kocka.solver.rules.scorecard:YatzyGame",
    "polish": "kocka.solver.rules.polish:PolishGame",
    "polish-basic": "kocka.solver.rules.polish:PolishBasicGame",
    "kockapoker-bid": "kocka.solver.rules.chip_bidding:ChipBiddingGame",
    "abazs": "kocka.solver.rules.bluff:AbazsGame",
    "bidding-bluff": "kocka.solver.rules.bluff:BiddingBluffGame",
    "liars-poker": "kocka.solver.rules.bluff:LiarsPokerGame",
}
GAME_NAMES = tuple(_REGISTRY)


def game_class(name: str) -> type[Game]:
    if name not in _REGISTRY:
        raise RulesError(f"unknown game {name!r}; known: {', '.join(GAME_NAMES)}")
    module, cls = _REGISTRY[name].split(":")
    return getattr(import_module(module), cls)


def get_game(name: str, options: Mapping[str, Any] | None = None, num_players: int = 1) -> Game:
    """Build game ``name`` with rule ``options`` (names as in RULES.md section 6)."""
    cls = game_class(name)
    return cls(cls.RULES.from_options(options), num_players=num_players)


__all__ = ["CHANCE", "TERMINAL", "GAME_NAMES", "Game", "Rules", "game_class", "get_game", "play_random_game"]
