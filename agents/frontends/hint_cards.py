"""``kocka hint`` for the card games: the scorecard games (kockapóker, Slovak yatzi,
Yahtzee, Yatzy) and Polish poker dice (the full game and the basic game).

Each function turns what a person types (:class:`~kocka.agents.frontends.hint.HintParams`:
the dice, the throws made, the card as JSON, or a whole state document) into a position,
and lists every legal action there with its value from the game's exact table
(:func:`kocka.solver.scorecard_solver.rank`, :func:`kocka.solver.polish_solver.rank`).
The card is read by the engine (``card_from_entries``: box ids, or box names in any of the
game's languages); the words come from the game (``describe_action``, ``box_label``).
"""
from __future__ import annotations

from typing import Any

from kocka.agents.frontends.hint import HintParams, HintReport
from kocka.solver import polish_solver, scorecard_solver
from kocka.solver.dice import validate_dice
from kocka.solver.errors import DiceError, InvalidStateError
from kocka.solver.registry import get_table
from kocka.solver.rules.polish import PolishBasicGame, PolishBasicState, PolishGame, PolishState
from kocka.solver.rules.scorecard import MAX_THROWS, ScorecardGame, ScorecardState

DICE_NEEDED = "give the five dice showing with --dice, e.g. --dice 1 1 3 4 6"


def _card_document(doc: Any) -> Any:
    """``--card`` as the engine takes it: a JSON object of box to entry (or nothing)."""
    if doc is not None and not isinstance(doc, dict):
        raise InvalidStateError(f"--card must be a JSON object of box: entry, got {doc!r}")
    return doc


# ----------------------------------------------------------------------------------------
# The scorecard games
# ----------------------------------------------------------------------------------------
def scorecard_hint(game: ScorecardGame, params: HintParams) -> HintReport:
    """Rank every action of a scorecard position: ``--dice`` after ``--roll`` throws
    (1..3) on the ``--card`` given, or ``--state``."""
    if params.state is not None:
        state = game.state_from_json(params.state)
    else:
        if params.dice is None:
            raise DiceError(DICE_NEEDED)
        dice = validate_dice(params.dice, 5)
        roll = 1 if params.roll is None else params.roll
        if isinstance(roll, bool) or roll not in range(1, MAX_THROWS + 1):
            raise InvalidStateError(f"--roll must be 1, 2 or 3 (throws made this turn), got {roll!r}")
        card = game.card_from_entries(_card_document(params.card))
        state = ScorecardState(cards=(card,) * game.num_players, throw=roll, dice=dice)
        game.check_state(state)
        if card.is_full:
            raise InvalidStateError(f"{game.NAME}: the card is full; there is nothing to decide")
    table = get_table(game, cache_dir=params.cache_dir, build_missing=params.build_missing)
    decisions = scorecard_solver.rank(game, table, state)
    notes = [f"values: {scorecard_solver.VALUE_NAME} of this card under optimal solitaire play "
             f"(optimum from an empty card: {table.meta.extra['expected_score']:.4f})"]
    return HintReport(position=describe_scorecard(game, state), value_name=scorecard_solver.VALUE_NAME,
                      decisions=decisions, notes=notes)


def describe_scorecard(game: ScorecardGame, state: ScorecardState) -> str:
    """The position as the hint prints it: throw, dice, declaration and the card so far."""
    card = state.cards[state.player]
    filled = [f"{game.box_label(b)} {e}" for b, e in zip(game.boxes, card.entries) if e is not None]
    dice = " ".join(map(str, state.dice)) if state.dice else "-"
    declared = f", declared {game.box_label(state.declared)}" if state.declared else ""
    card_text = ", ".join(filled) if filled else "empty"
    return (f"{game.NAME}: throw {state.throw} of {MAX_THROWS}, dice {dice}{declared}; card ({len(filled)} of "
            f"{game.num_boxes} filled, {game.entries_total(card)} points so far): {card_text}")


# ----------------------------------------------------------------------------------------
# Polish poker dice
# ----------------------------------------------------------------------------------------
def polish_hint(game: PolishGame | PolishBasicGame, params: HintParams) -> HintReport:
    """``kocka hint polish``: every action with its value, including spending a fence (a
    throw beyond the third), scratching for fences and which box to declare; the full
    game also takes ``stage``, ``fences`` and ``declare`` (extra parameters)."""
    if params.state is not None:
        state = game.state_from_json(params.state)
    else:
        extra = dict(params.extra)
        roll = 1 if params.roll is None else params.roll
        dice = None
        if roll > 0:
            if params.dice is None:
                raise DiceError(DICE_NEEDED)
            dice = validate_dice(params.dice, 5)
        card = game.card_from_entries(_card_document(params.card))
        if isinstance(game, PolishBasicGame):
            state = PolishBasicState(player=0, records=(card,), throws=roll, dice=dice)
        else:
            fences = int(extra.get("fences") or 0)
            stage = int(extra.get("stage") or 1)
            # earlier stages count as zeros: the values are then the points from this stage on
            empty, zeros = game.card_from_entries(None), (0,) * len(game.rules.boxes)
            cards = tuple(((zeros if k < stage else card if k == stage else empty),)
                          for k in range(1, game.rules.stages + 1))
            declared = extra.get("declare") or None
            state = PolishState(stage=stage, player=0, cards=cards, fences=(fences,), throws=roll, dice=dice,
                                declared=declared)
        game.check_state(state)
    table = get_table(game, cache_dir=params.cache_dir, build_missing=params.build_missing)
    decisions = polish_solver.rank(game, table, state)
    notes = [f"values: {polish_solver.VALUE_NAME} under optimal solitaire play (optimum from the start: "
             f"{table.meta.extra['expected_score']:.4f})"]
    if isinstance(game, PolishGame):
        notes.append("a keep after the third throw spends a fence; writing after t throws leaves F + 3 - t fences (PL-12)")
        if params.state is None and state.stage > 1:
            notes.append(f"stage {state.stage}: earlier stages are entered as cards of zeros, so every value "
                         "counts the points from this stage on (pass --state for a whole game)")
    return HintReport(position=game.describe_state(state), value_name=polish_solver.VALUE_NAME,
                      decisions=decisions, notes=notes)
