"""The words a player reads and types: box names per language, and actions as text.

One place for all of it. An engine's :meth:`~kocka.solver.rules.base.Game.describe_action`
and :meth:`~kocka.solver.rules.base.Game.box_label` come here, and so do the hint, play,
score, arena and seat labels and the engines' error messages, so an action reads the same
everywhere ("keep 6", "write kis sor", "bank", "claim 8 stake 2").

Moves are typed with English verbs in every game (``keep``, ``write``, ``bank``, ``roll``,
``take``, ``claim``): one command language for all of them, as in ``kocka play``. Box
names are the game's own (Hungarian for kockapóker, Polish, Slovak; English for the
validation games) unless English is asked for (``lang="en"``); a player may type a box
in any of its languages.
"""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kocka.solver.base.i18n import _

if TYPE_CHECKING:  # base imports this module; the type is only for annotations
    from kocka.solver.rules.base import Game

LANGUAGES = {"en": "English", "hu": "magyar", "pl": "polski", "sk": "slovenčina"}

ENGLISH_BOXES: Mapping[str, str] = {
    "ones": "ones", "twos": "twos", "threes": "threes", "fours": "fours", "fives": "fives", "sixes": "sixes",
    "chance": "chance", "pair": "pair", "two_pairs": "two pairs", "three_kind": "three of a kind",
    "four_kind": "four of a kind", "five_kind": "five of a kind", "full_house": "full house",
    "small_straight": "small straight", "large_straight": "large straight", "poker": "poker",
    "yahtzee": "yahtzee", "yatzy": "yatzy",
}  # fmt: skip
"""English names of every box id any engine uses (the fallback of every game's words)."""

FACE_WORDS = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}
DICE_VERBS = ("keep", "hold", "k", "take", "set aside", "aside", "series", "start series")


@dataclass(frozen=True)
class Words:
    """A game's vocabulary: its own language and its box names in that language.

    ``boxes`` maps a box id to its label in the game's ``language``; English labels come
    from ``english`` (default :data:`ENGLISH_BOXES`), so a validation game in English
    needs only its printed names.
    """

    language: str = "en"
    boxes: Mapping[str, str] = field(default_factory=dict)
    english: Mapping[str, str] = field(default_factory=lambda: dict(ENGLISH_BOXES))

    def __post_init__(self) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"unknown language {self.language!r}; known: {', '.join(LANGUAGES)}")

    def lang(self, lang: str | None) -> str:
        """``lang`` checked, ``None`` meaning the game's own language."""
        if lang is None:
            return self.language
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
        return lang

    def box(self, box: str, lang: str | None = None) -> str:
        """The name of box ``box`` printed on the card in ``lang``."""
        lang = self.lang(lang)
        if lang == self.language and box in self.boxes:
            return self.boxes[box]
        if lang == "en" and box in self.english:
            return self.english[box]
        return self.boxes.get(box) or self.english.get(box) or box.replace("_", " ")

    def box_aliases(self, box: str) -> list[str]:
        """Everything a player may type for box ``box`` (normalized): its id, its names in
        both languages and, for face boxes, ``3``, ``3s``, ``threes``."""
        names = [box, self.box(box), self.box(box, "en")]
        face = {v: k for k, v in FACE_WORDS.items()}.get(box)
        if face is not None:
            names += [str(face), f"{face}s", f"{face} s", FACE_WORDS[face]]
        return list(dict.fromkeys(normalize(n) for n in names))


def normalize(text: str) -> str:
    """Lower case, accents dropped (``pár`` = ``par``), punctuation and ``_`` as spaces,
    single spaces; a dice list after a dice verb is split into digits and sorted
    (``keep 511`` = ``keep 1 1 5``)."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[_\-,;:()\[\]]", " ", text)
    tokens = text.split()
    for verb in sorted(DICE_VERBS, key=lambda v: -len(v.split())):
        n = len(verb.split())
        if tokens[:n] == verb.split() and tokens[n:] and all(re.fullmatch(r"[1-6]+", t) for t in tokens[n:]):
            digits = sorted(ch for t in tokens[n:] for ch in t)
            return " ".join(tokens[:n] + digits)
    return " ".join(tokens)


def dice_text(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice)


def seat_label(seat: int, names: Sequence[str] | None = None) -> str:
    """How a player reads seat ``seat`` (0-based inside the engines): its name when the
    table has names, else 1-based in the language in force ("player 2", "2. játékos")."""
    if names is not None and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return _("player {number}", number=seat + 1)


def action_text(action: Any, game: Game | None = None, state: Any = None, lang: str | None = None) -> str:
    """What a player types for ``action`` (also how every front end prints it)."""
    kind = type(action).__name__
    box = getattr(action, "box", None) or getattr(action, "combo", None)
    if kind == "Keep":
        if not action.dice:
            return "roll" if state is not None and getattr(state, "dice", ()) is None else "reroll all"
        return f"keep {dice_text(action.dice)}"
    if kind == "SetAside":
        return f"take {dice_text(action.dice)}"
    if kind == "StartSeries":
        return f"series {dice_text([action.face] * action.count)}"
    if kind == "TakeSeries":
        return f"take {dice_text(series_dice(action, state))}" if state is not None else f"take {action.count} series dice"
    if kind in ("Fill", "Write", "Record", "Scratch", "Declare"):
        verb = {"Fill": "write", "Write": "write"}.get(kind, kind.lower())
        return f"{verb} {_box_name(game, box, lang)}"
    if kind == "NameJoker":
        return f"joker {action.face}"
    if kind == "EndTurn":
        return "end turn"
    if kind == "Claim":
        text = f"claim {claim_text(action.claim)}"
        return text + (f" stake {action.stake}" if action.stake else "")
    if kind == "Reroll":
        return "reroll both" if action.keep_shown is None else f"reroll keep {action.keep_shown}"
    fields = dataclasses.fields(action) if dataclasses.is_dataclass(action) else ()
    values = " ".join(str(getattr(action, f.name)) for f in fields)
    return f"{snake(kind).replace('_', ' ')} {values}".strip()


def _box_name(game: Game | None, box: Any, lang: str | None) -> str:
    if not isinstance(box, str):  # an action document with a malformed box: name it as sent
        return repr(box)
    return game.words.box(box, lang) if game is not None else box.replace("_", " ")


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def series_dice(action: Any, state: Any) -> tuple[int, ...]:
    """The dice a TakeSeries sets aside: ``count`` dice of the series face, or the last
    die itself when it shows the named joker (KOCKA-18)."""
    face = state.series[0]
    roll = state.roll or ()
    if action.count == 1 and len(roll) == 1 and roll[0] != face:
        return roll
    return (face,) * action.count


def claim_text(claim: Any) -> str:
    kind = type(claim).__name__
    if kind == "TwoDiceClaim":
        return {"sum": f"{claim.value}", "nonpair": f"non pair {claim.value}", "pair": f"pair {claim.value}"}[claim.kind]
    if kind == "DiceClaim":
        return f"dice {dice_text(claim.dice)}"
    return normalize(str(claim))


def action_phrases(action: Any, game: Game, state: Any) -> list[str]:
    """Every normalized phrase that means ``action`` here, the canonical one first."""
    kind = type(action).__name__
    canonical = normalize(action_text(action, game, state))
    phrases = [canonical]
    box = getattr(action, "box", None) or getattr(action, "combo", None)
    if kind == "Keep":
        if action.dice:
            phrases += [normalize(f"{v} {dice_text(action.dice)}") for v in ("hold", "k")]
        else:
            phrases += ["roll", "roll all", "reroll", "reroll all", "keep", "keep nothing", "keep none", "throw"]
    elif kind == "SetAside":
        phrases += [normalize(f"{v} {dice_text(action.dice)}") for v in ("keep", "k", "set aside", "aside")]
        if action.dice == getattr(state, "roll", None):
            phrases += ["take all", "all", "keep all"]
    elif kind == "StartSeries":
        phrases += [normalize(f"start series {dice_text([action.face] * action.count)}")]
    elif kind == "TakeSeries":
        phrases += [normalize(f"{v} {dice_text(series_dice(action, state))}") for v in ("keep", "k", "set aside")]
        if action.count == len(state.roll) or action.count == max(
                a.count for a in game.legal_actions(state) if type(a).__name__ == "TakeSeries"):
            phrases += ["take all", "all", "keep all"]
    elif box is not None:
        verbs = {"Fill": ("box", "write", "fill", "score", ""), "Write": ("write", "box", "fill", ""),
                 "Record": ("record", "box", "write", ""), "Scratch": ("scratch", "cross", "dash"),
                 "Declare": ("declare",)}.get(kind, (kind.lower(),))
        phrases += [f"{v} {alias}".strip() for v in verbs for alias in game.words.box_aliases(box)]
    elif kind == "Bank":
        phrases += ["stop", "b"]
    elif kind == "Roll":
        phrases += ["roll on", "go", "throw", "r", "no joker", "roll without joker"]
    elif kind == "EndTurn":
        phrases += ["end", "pass", "done", "no record"]
    elif kind == "Accept":
        phrases += ["a"]
    elif kind == "Challenge":
        phrases += ["call", "c"]
    elif kind == "Pass":
        phrases += ["p"]
    elif kind == "Bet":
        phrases += ["b"]
    elif kind == "Reroll" and action.keep_shown is not None:
        phrases += [f"reroll {action.keep_shown}", f"reroll show {action.keep_shown}"]
    elif kind == "Claim":
        phrases += _claim_phrases(action)
    return list(dict.fromkeys(phrases))


def _claim_phrases(action: Any) -> list[str]:
    claim, stake = action.claim, action.stake
    bodies = [claim_text(claim)]
    kind = type(claim).__name__
    if kind == "TwoDiceClaim":
        if claim.kind == "sum":
            bodies.append(f"sum {claim.value}")
        elif claim.kind == "nonpair":
            bodies += [f"nonpair {claim.value}", f"{claim.value}"]
        else:
            bodies += [f"pair of {claim.value}s", f"{claim.value} {claim.value}"]
    bodies = [normalize(b) for b in bodies]
    result = []
    for body in bodies:
        if stake:
            result += [f"claim {body} stake {stake}", f"claim {body} {stake}"]
            if stake == 1:
                result.append(f"claim {body}")  # the smallest stake needs no mention
        else:
            result.append(f"claim {body}")
    return result
