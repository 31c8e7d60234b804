"""What every two-player equilibrium of the bluff family shares: the rules it is solved for
(two players, BLUFF-3 escalation, so that a round must end), the kinds of table it is stored
in, and the two-dice claims' table rows and representative dice (Abázs and the bidding
bluff, BLUFF-7).
"""
from __future__ import annotations

from typing import Any

from kocka.solver.base.dice import all_outcomes
from kocka.solver.base.errors import RulesError
from kocka.solver.rules.base import Game
from kocka.solver.rules.bluff import TwoDiceClaim, actual_result

EQUILIBRIUM_KIND = "equilibrium"
"""The table kind of a round equilibrium (Abázs's holds its round and match plans)."""
MATCH_KIND = "match"
"""The table kind of the betting games' match plans (``kocka-solve build GAME --kind match``)."""
VALUE_TIE_DIGITS = 9
"""Decimals to which the rankings of the equilibrium plans compare values: values equal
but for float noise (the moves a mixed strategy plays are worth the same) tie, and the
tie goes to the move the equilibrium plays most often."""


def check_two_player_round(game: Game, name: str, more_players: str = "") -> None:
    """A round equilibrium (Abázs, the bidding bluff, liar's poker) is solved for two
    players, and only where the round must end: BLUFF-3 escalation ``strict``. Every solver
    here refuses other games with this one check, so they say the same thing. ``name``
    names the equilibrium in the message; ``more_players`` is added to the message about
    the number of players."""
    if game.num_players != 2:
        raise RulesError(f"the {name} equilibrium is for 2 players, got {game.num_players!r}{more_players}")
    if game.rules.escalation != "strict":
        raise RulesError(
            f"the {name} equilibrium needs bluff.escalation 'strict' (BLUFF-3): without it a round need not end, "
            f"got {game.rules.escalation!r}"
        )


def standing_index(standing: TwoDiceClaim | None) -> int:
    """The table row of a standing two-dice claim: 0 for none, else the claim's rank + 1
    (its position in the ranking's claims, lowest first, + 1)."""
    return 0 if standing is None else standing.rank + 1


def result_dice(ranking: str) -> dict[Any, tuple[int, int]]:
    """One pair of dice per result of ``ranking``: truth depends on the result only
    (BLUFF-4, BLUFF-7), so a stage's types are the results and one pair stands for each."""
    reps: dict[Any, tuple[int, int]] = {}
    for dice in all_outcomes(2):
        reps.setdefault(actual_result(dice, ranking), tuple(dice))  # type: ignore[arg-type]
    return reps


__all__ = ["EQUILIBRIUM_KIND", "MATCH_KIND", "VALUE_TIE_DIGITS", "check_two_player_round", "result_dice", "standing_index"]
