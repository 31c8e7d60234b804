"""What a player reads, checked in every language: seeded whole games typed as a player
would (in the language's own words), and a scan of every line printed.

The games are small variants (a few boxes, a Kocka race to 1000, one or two bluff rounds)
so each plays to its end in well under a second. The lines typed are worked out here from
the rules engine alone: the same seeded rolls the session draws (``kocka play``: its
:class:`~kocka.agents.bots.base.ChanceSampler`; ``kocka table``: the dice typed are the
outcomes drawn here) and moves picked by a seeded ``random.Random``, each written as the
engine words it in that language (:meth:`~kocka.solver.rules.base.Game.describe_action`),
so the session must understand its own words.
"""
from __future__ import annotations

import random
import re
from typing import Any, Sequence

from kocka.agents.bots.base import ChanceSampler, derive_seed
from kocka.solver.base.i18n import use_language
from kocka.solver.rules import CHANCE, Game

LANGS = ("en", "hu", "pl", "sk")

SMALL_RULES = {
    "kocka": ("target=1000",),
    "kockapoker": ("boxes=sixes,chance,pair",),
    "slovak": ("boxes=sixes,pair,full_house",),
    "yahtzee": ("boxes=chance,yahtzee",),
    "yatzy": ("boxes=chance,pair",),
    "polish": ("boxes=sixes,pair,chance", "stages=1"),
    "polish-basic": ("boxes=pair,three_kind",),
    "kockapoker-bid": ("boxes=chance,pair",),
    "abazs": ("max_rounds=2",),
    "bidding-bluff": ("max_rounds=1", "start_chips=3"),
    "liars-poker": ("max_rounds=1",),
}
"""A small variant of every game, as ``-r`` options."""

# What must never reach a player: list and tuple reprs, a quoted repr ('full'), rule ids
# (KOCKA-12), CamelCase class names, field=value reprs, identifiers with underscores,
# Python's None/True/False, and placeholders left unfilled.
_FORBIDDEN = [
    (re.compile(r"[\[\]]"), "a bracket"),
    (re.compile(r"(?<![^\W\d_])'|'(?![^\W\d_])"), "a quote mark ' (a Python repr)"),
    (re.compile(r"\b[A-Z]{2,}-\d+"), "a rule id"),
    (re.compile(r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\b"), "a class name"),
    (re.compile(r"\b\w+=\w"), "a field=value repr"),
    (re.compile(r"\b[a-z]+_[a-z_]+\b"), "an identifier"),
    (re.compile(r"\b(None|True|False)\b"), "a Python constant"),
    (re.compile(r"[{}]"), "an unfilled placeholder"),
]
_BUILD_COMMAND = re.compile(r"kocka-solve build .*$")  # the command to type may carry -r key=value


def problems(text: str, hide: Sequence[str] = ()) -> list[str]:
    """Every line of ``text`` that shows something internal, with what it shows (the
    strings ``hide``, such as a save file's path, are left out of the scan)."""
    found = []
    for line in text.splitlines():
        scanned = _BUILD_COMMAND.sub("", line)
        for secret in hide:
            scanned = scanned.replace(secret, "FILE")
        for pattern, what in _FORBIDDEN:
            if pattern.search(scanned):
                found.append(f"{what}: {line!r}")
    return found


def _pick(rng: random.Random, game: Game, state: Any) -> Any:
    """A seeded choice among the legal moves; a scorecard turn keeps throwing now and then."""
    legal = game.legal_actions(state)
    boxes = [a for a in legal if getattr(a, "box", None) or getattr(a, "combo", None)]
    if boxes and rng.random() < 0.6:  # write a box more often than at random: the game ends sooner
        return boxes[rng.randrange(len(boxes))]
    return legal[rng.randrange(len(legal))]


def play_lines(game: Game, seed: int, lang: str, humans: Sequence[int], max_steps: int = 400) -> list[str]:
    """The lines the human seats of ``kocka play`` type for a whole seeded game in ``lang``
    (every seat human: the rolls are the session's own, from its ChanceSampler). The first
    decision also asks for the hint, the moves, the card, the help, a line nobody
    understands and an undo (then makes the move again)."""
    sampler = ChanceSampler(derive_seed("play-chance", seed))
    rng = random.Random(seed)
    state, rolls, lines = game.new_initial_state(), 0, []
    with use_language(lang):
        for _step in range(max_steps):
            if game.is_terminal(state):
                return lines
            player = game.current_player(state)
            if player == CHANCE:
                state, rolls = game.apply(state, sampler.sample(game, state, rolls)), rolls + 1
                continue
            assert player in humans
            action = _pick(rng, game, state)
            typed = game.describe_action(action, state)
            if not lines:
                lines += ["?", "moves", "card", "help", "fly away", typed, "undo"]
            elif len(lines) < 12:
                lines.append("?")
            lines.append(typed)
            state = game.apply(state, action)
    raise AssertionError(f"{game.NAME}: no end after {max_steps} steps")


def table_lines(game: Game, seed: int, lang: str, max_steps: int = 400) -> list[str]:
    """The lines typed into ``kocka table`` for a whole seeded game in ``lang``: each roll
    as its digits (after a keep only the dice thrown), each move in the engine's words;
    the first decision also asks for the hint, the moves, the cards, the help, a line
    nobody understands and an undo (then makes the move again)."""
    rng = random.Random(seed)
    state, lines = game.new_initial_state(), []
    with use_language(lang):
        for _step in range(max_steps):
            if game.is_terminal(state):
                return lines + ["cards"]
            if game.current_player(state) == CHANCE:
                outcomes = game.chance_outcomes(state)
                weights = [p for _o, p in outcomes]
                outcome = rng.choices([o for o, _p in outcomes], weights)[0]
                lines.append("".join(map(str, outcome)))
                state = game.apply(state, outcome)
                continue
            action = _pick(rng, game, state)
            typed = game.describe_action(action, state)
            if not any(line.startswith("?") for line in lines):
                lines += ["?", "moves", "cards", "help", "fly away", typed, "undo"]
            lines.append(typed)
            state = game.apply(state, action)
    raise AssertionError(f"{game.NAME}: no end after {max_steps} steps")
