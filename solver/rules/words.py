"""The words a player reads and types: box names per language, and actions as text.

One place for all of it. An engine's :meth:`~kocka.solver.rules.base.Game.describe_action`
and :meth:`~kocka.solver.rules.base.Game.box_label` come here, and so do the hint, play,
score, arena and seat labels and the engines' error messages, so an action reads the same
everywhere ("keep 6", "write kis sor", "bank", "claim 8 stake 2").

Moves are written with the verbs of the language in force
(:func:`~kocka.solver.base.i18n.current_language`; ``lang`` when given): English ``keep``,
``write``, ``bank``, ``roll``, ``take``, ``claim``; Hungarian "tartsd meg", "írd be", "húzd
ki", "írasd fel"; Polish "zostaw", "zapisz", "skreśl"; Slovak "nechaj", "zapíš",
"prečiarkni" (the ``words`` catalogues). Box names are the game's own (Hungarian for
kockapóker, Polish, Slovak; English for the validation games) unless a language is asked
for (``lang="en"``). A player may type a move with the verbs of any of the four languages
and a box in any of its languages, with or without accents (``irdbe full``, ``zapisz ful``,
``Write Szemet``).
"""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from kocka.solver.base.i18n import LANGUAGES as _LANGUAGE_CODES, N_, _, use_language

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
DICE_VERBS = ("keep", "hold", "k", "take", "set aside", "aside", "series", "start series",
              # the same verbs in Hungarian, Polish and Slovak, normalized (no accents)
              "tartsd meg", "tartsd", "tedd felre", "sorozat", "zostaw", "odloz", "seria", "nechaj")
"""Verbs followed by dice: the digits after them are split and sorted (``keep 511``)."""
JOINED_VERBS = {
    "irdbe": "ird be", "huzdki": "huzd ki", "tartsdmeg": "tartsd meg", "dobjujra": "dobj ujra",
    "irasdfel": "irasd fel", "teddfelre": "tedd felre", "monddbe": "mondd be", "rzucponownie": "rzuc ponownie",
    "zapiszpunkty": "zapisz punkty", "hodznova": "hod znova", "zapisbody": "zapis body",
}
"""Verbs of more than one word as people type them without the space (``irdbe full``)."""
MOVE_LANGUAGES = tuple(_LANGUAGE_CODES)
"""The languages whose verbs a typed move may use."""
HAND_NAMES = (
    N_("nothing"), N_("pair"), N_("two pairs"), N_("three of a kind"), N_("small straight"),
    N_("large straight"), N_("full house"), N_("four of a kind"), N_("five of a kind"),
)
"""The liar's poker hand categories (BLUFF-19) in the order of their rank, as claims name them."""


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
    if tokens and tokens[0] in JOINED_VERBS:
        tokens = JOINED_VERBS[tokens[0]].split() + tokens[1:]
    for verb in sorted(DICE_VERBS, key=lambda v: -len(v.split())):
        n = len(verb.split())
        if tokens[:n] == verb.split() and tokens[n:] and all(re.fullmatch(r"[1-6]+", t) for t in tokens[n:]):
            digits = sorted(ch for t in tokens[n:] for ch in t)
            return " ".join(tokens[:n] + digits)
    return " ".join(tokens)


GAME_TITLES = {
    "kocka": N_("Hungarian 10000 (Kocka)"), "kockapoker": N_("Hungarian kockapóker"),
    "slovak": N_("Slovak kockový poker (yatzi)"), "yahtzee": N_("Yahtzee (validation variant)"),
    "yatzy": N_("Scandinavian Yatzy (validation variant)"), "polish": N_("Polish poker dice (full game)"),
    "polish-basic": N_("Polish poker dice (basic game)"), "kockapoker-bid": N_("chip-bidding kockapóker"),
    "abazs": N_("Abázs"), "bidding-bluff": N_("bidding bluff"), "liars-poker": N_("liar’s kockapóker"),
}
"""Each game's name as a player says it (by its command name), in English; :func:`game_title`
gives it in the language in force."""


def game_title(game: Any) -> str:
    """The name of ``game`` (a game or its command name) in the language in force; a game
    not named here goes by its spec's title."""
    name = game if isinstance(game, str) else game.NAME
    if name in GAME_TITLES:
        return _(GAME_TITLES[name])
    return name if isinstance(game, str) else game.spec().title


def dice_text(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice)


def seat_label(seat: int, names: Sequence[str] | None = None) -> str:
    """How a player reads seat ``seat`` (0-based inside the engines): its name when the
    table has names, else 1-based in the language in force ("player 2", "2. játékos")."""
    if names is not None and 0 <= seat < len(names) and names[seat]:
        return names[seat]
    return _("player {number}", number=seat + 1)


def action_text(action: Any, game: Game | None = None, state: Any = None, lang: str | None = None) -> str:
    """What a player types for ``action`` (also how every front end prints it): the verbs
    in ``lang``, or the language in force when ``lang`` is None; box names in ``lang``, or
    the game's own when None."""
    with use_language(lang):
        return _action_text(action, game, state, _box_name(game, getattr(action, "box", None)
                                                             or getattr(action, "combo", None), lang))


def _action_text(action: Any, game: Game | None, state: Any, box_name: str) -> str:
    kind = type(action).__name__
    if kind == "Keep":
        if not action.dice:
            return _("roll") if state is not None and getattr(state, "dice", ()) is None else _("reroll all")
        return _("keep {dice}", dice=dice_text(action.dice))
    if kind == "SetAside":
        return _("take {dice}", dice=dice_text(action.dice))
    if kind == "StartSeries":
        return _("series {dice}", dice=dice_text([action.face] * action.count))
    if kind == "TakeSeries":
        if state is not None:
            return _("take {dice}", dice=dice_text(series_dice(action, state)))
        return _("take {count} series dice", count=action.count)
    if kind in BOX_VERBS:
        return box_action_text(kind, box_name)
    if kind == "NameJoker":
        return _("joker {face}", face=action.face)
    if kind == "Claim":
        if action.stake:
            return _("claim {claim} stake {stake}", claim=claim_text(action.claim), stake=action.stake)
        return _("claim {claim}", claim=claim_text(action.claim))
    if kind == "Reroll":
        return _("reroll both") if action.keep_shown is None else _("reroll keep {die}", die=action.keep_shown)
    fields = dataclasses.fields(action) if dataclasses.is_dataclass(action) else ()
    if not fields and kind in PLAIN_MOVES:
        return _(PLAIN_MOVES[kind])
    values = " ".join(str(getattr(action, f.name)) for f in fields)
    return f"{snake(kind).replace('_', ' ')} {values}".strip()


BOX_VERBS = {"Fill": N_("write {box}"), "Write": N_("write {box}"), "Record": N_("record {box}"),
             "Scratch": N_("scratch {box}"), "Declare": N_("declare {box}")}
"""The moves that name a box, by action class: how each is written."""
PLAIN_MOVES = {
    "Bank": N_("bank"), "Roll": N_("roll"), "EndTurn": N_("end turn"), "Accept": N_("accept"),
    "Challenge": N_("challenge"), "Pass": N_("pass"), "Bet": N_("bet"), "Raise": N_("raise"),
    "Decline": N_("decline"), "Hold": N_("hold"),
}
"""The moves of one word (no dice, no box), by action class."""


def box_action_text(kind: str, box_name: str) -> str:
    """The move of class ``kind`` (``Fill``, ``Scratch``, ...) on the box called
    ``box_name``, in the language in force ("write kis sor", "írd be: kis sor")."""
    return _(BOX_VERBS[kind], box=box_name)


def _box_name(game: Game | None, box: Any, lang: str | None) -> str:
    if box is None:
        return ""
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


def claim_range_text(claim: Any, low: int, high: int) -> str:
    """A claim whose stake may be any of ``low``..``high``, as a legal move lists it, in the
    language in force ("claim 9 stake 1..9"); the range stays ``low..high`` in every language
    (the seat page puts the stake picked in its place)."""
    return _("claim {claim} stake {low}..{high}", claim=claim_text(claim), low=low, high=high)


def claim_text(claim: Any) -> str:
    """A claim as a player says it, in the language in force ("8", "pair 5", "two pairs 5 2")."""
    kind = type(claim).__name__
    if kind == "TwoDiceClaim":
        if claim.kind == "sum":
            return f"{claim.value}"
        if claim.kind == "nonpair":
            return _("non pair {value}", value=claim.value)
        return _("pair {value}", value=claim.value)
    if kind == "DiceClaim":
        return _("dice {dice}", dice=dice_text(claim.dice))
    if kind == "Hand" and 0 <= claim.category < len(HAND_NAMES):
        name = _(HAND_NAMES[claim.category])
        return f"{name} {dice_text(claim.faces)}" if claim.faces else name
    return normalize(str(claim))


def action_phrases(action: Any, game: Game, state: Any) -> list[str]:
    """Every normalized phrase that means ``action`` here, the canonical one (in the
    language in force) first, then the English ones, then the Hungarian, Polish and Slovak
    ones (:func:`native_phrases`)."""
    phrases = [normalize(action_text(action, game, state))]
    with use_language("en"):
        phrases += _english_phrases(action, game, state)
    for lang in MOVE_LANGUAGES:
        if lang != "en":
            with use_language(lang):
                phrases += native_phrases(action, game, state)
    return list(dict.fromkeys(phrases))


def native_phrases(action: Any, game: Game, state: Any) -> list[str]:
    """The phrases of ``action`` with the verbs of the language in force: its text, and
    for a box every name of the box after the verb; a roll also as "reroll all"."""
    kind = type(action).__name__
    phrases = [normalize(action_text(action, game, state))]
    box = getattr(action, "box", None) or getattr(action, "combo", None)
    if kind in BOX_VERBS and isinstance(box, str):
        kinds = ("Fill", "Write", "Record") if kind in ("Fill", "Write", "Record") else (kind,)
        phrases += [normalize(box_action_text(k, alias)) for k in kinds for alias in game.words.box_aliases(box)]
    elif kind == "Keep" and not action.dice:
        phrases += [normalize(_("roll")), normalize(_("reroll all"))]
    elif kind == "Claim":
        phrases += [normalize(_("claim {claim} stake {stake}", claim=body, stake=action.stake) if action.stake
                              else _("claim {claim}", claim=body)) for body in claim_bodies(action.claim)]
        if action.stake == 1:
            phrases.append(normalize(_("claim {claim}", claim=claim_text(action.claim))))
    return phrases


def _english_phrases(action: Any, game: Game, state: Any) -> list[str]:
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


def claim_bodies(claim: Any) -> list[str]:
    """Every way to say ``claim`` (normalized) in the language in force, the canonical first."""
    bodies = [claim_text(claim)]
    if type(claim).__name__ == "TwoDiceClaim":
        if claim.kind == "sum":
            bodies.append(_("sum {value}", value=claim.value))
        elif claim.kind == "nonpair":
            bodies += [_("nonpair {value}", value=claim.value), f"{claim.value}"]
        else:
            bodies += [_("pair of {value}s", value=claim.value), f"{claim.value} {claim.value}"]
    return list(dict.fromkeys(normalize(b) for b in bodies if b))


def without_claim_verb(text: str) -> str:
    """A typed claim, normalized, without the verb it may start with in any language
    ("claim 8", "mondd 8", "zapowiedz 8": "8")."""
    wanted = normalize(text)
    verbs = set()
    for lang in MOVE_LANGUAGES:
        with use_language(lang):
            verbs.add(normalize(_("claim {claim}", claim="")))
    for verb in sorted(verbs, key=len, reverse=True):
        if verb and wanted.startswith(verb + " "):
            return wanted[len(verb) + 1:]
    return wanted


def _claim_phrases(action: Any) -> list[str]:
    stake = action.stake
    bodies = claim_bodies(action.claim)
    result = []
    for body in bodies:
        if stake:
            result += [f"claim {body} stake {stake}", f"claim {body} {stake}"]
            if stake == 1:
                result.append(f"claim {body}")  # the smallest stake needs no mention
        else:
            result.append(f"claim {body}")
    return result
