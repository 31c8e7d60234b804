"""``kocka play``: a real game in the terminal, any mix of humans and agents (1..6 seats).

What a human sees before each decision: the dice drawn as dice, the score card (with what
the dice would score in each box that may be filled now), and the prompt. Moves are typed
the way players say them (``keep 1 1 5``, ``box full`` / ``write full``, ``bank``,
``roll``, ``take 1 5``, ``series 6 6``, ``joker 2``, ``claim 8 stake 2``, ``challenge``);
``moves`` lists every legal move, ``#N`` picks the N-th of that list. Commands:

* ``?`` / ``hint`` -- the optimal agent's ranking of every legal move, with the loss of
  each versus the best (``? all`` for all of them);
* ``undo`` -- take back the last human decision (the dice that follow are the same
  again: rolls are keyed by position, see :class:`~kocka.agents.base.ChanceSampler`);
* ``help``, ``quit`` (also Ctrl-C or end of input: the game stops cleanly).

Bad input is answered with the reason (the rules engine's own message for an illegal
move) and the prompt comes back. At the end a summary says how much the humans'
decisions cost versus optimal play: the sum over their decisions of the optimal agent's
value of its best move minus the value of the move played (expected points, or win
probability in Kocka).
"""
from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from kocka.agents.base import Agent, AgentUnavailable, ChanceSampler, Event, derive_seed
from kocka.agents.registry import AgentOptions, make_agent
from kocka.solver.errors import KockaError, TableError
from kocka.solver.decision import Decision
from kocka.solver.rules import CHANCE, Game
from kocka.solver.rules.base import Game as _GameBase

HUMAN = "human"


class PlayError(KockaError):
    """A game that cannot be set up (bad seat list)."""


# ----------------------------------------------------------------------------------------
# Text <-> actions
# ----------------------------------------------------------------------------------------
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


DICE_VERBS = ("keep", "hold", "k", "take", "set aside", "aside", "series", "start series")

FACE_WORDS = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}

POLISH_LABELS = {
    "ones": "jedynki", "twos": "dwojki", "threes": "trojki", "fours": "czworki", "fives": "piatki",
    "sixes": "szostki", "pair": "para", "two_pairs": "dwie pary", "three_of_a_kind": "trojka",
    "small_straight": "maly strit", "large_straight": "duzy strit", "full": "ful",
    "four_of_a_kind": "kareta", "poker": "poker", "chance": "szansa",
}  # fmt: skip
"""Polish names of the boxes (PL-3, PL-8), accepted as input and shown on the card."""


def box_label(game: Game, box: str) -> str:
    """The name printed on the card for box id ``box``."""
    labels = getattr(game, "box_labels", None) or POLISH_LABELS
    return labels.get(box, box.replace("_", " "))


def box_aliases(game: Game, box: str) -> list[str]:
    """Everything a player may type for box id ``box`` (normalized): the id, its label,
    and for face boxes ``3``, ``3s``, ``threes``."""
    names = [box, box_label(game, box), POLISH_LABELS.get(box, box)]
    face = {v: k for k, v in FACE_WORDS.items()}.get(box)
    if face is not None:
        names += [str(face), f"{face}s", f"{face} s"]
    return list(dict.fromkeys(normalize(n) for n in names))


def _dice_text(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice)


def format_action(action: Any, game: Game | None = None, state: Any = None) -> str:
    """What a player types for ``action`` (also how moves are printed)."""
    kind = type(action).__name__
    box = getattr(action, "box", None) or getattr(action, "combo", None)
    if kind == "Keep":
        if not action.dice:
            return "roll" if state is not None and getattr(state, "dice", ()) is None else "reroll all"
        return f"keep {_dice_text(action.dice)}"
    if kind == "SetAside":
        return f"take {_dice_text(action.dice)}"
    if kind == "StartSeries":
        return f"series {_dice_text([action.face] * action.count)}"
    if kind == "TakeSeries":
        return f"take {_dice_text(_series_dice(action, state))}" if state is not None else f"take {action.count} series dice"
    if kind in ("Fill", "Write", "Record"):
        return f"{'box' if kind == 'Fill' else kind.lower()} {box.replace('_', ' ')}"
    if kind in ("Scratch", "Declare"):
        return f"{kind.lower()} {box.replace('_', ' ')}"
    if kind == "NameJoker":
        return f"joker {action.face}"
    if kind == "EndTurn":
        return "end turn"
    if kind == "Claim":
        text = f"claim {_claim_text(action.claim)}"
        return text + (f" stake {action.stake}" if action.stake else "")
    if kind == "Reroll":
        return "reroll both" if action.keep_shown is None else f"reroll keep {action.keep_shown}"
    fields = dataclasses.fields(action) if dataclasses.is_dataclass(action) else ()
    values = " ".join(str(getattr(action, f.name)) for f in fields)
    return f"{_snake(kind).replace('_', ' ')} {values}".strip()


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _series_dice(action: Any, state: Any) -> tuple[int, ...]:
    """The dice a TakeSeries sets aside: ``count`` dice of the series face, or the last
    die itself when it shows the named joker (KOCKA-18)."""
    face = state.series[0]
    roll = state.roll or ()
    if action.count == 1 and len(roll) == 1 and roll[0] != face:
        return roll
    return (face,) * action.count


def _claim_text(claim: Any) -> str:
    kind = type(claim).__name__
    if kind == "TwoDiceClaim":
        return {"sum": f"{claim.value}", "nonpair": f"non pair {claim.value}", "pair": f"pair {claim.value}"}[claim.kind]
    if kind == "DiceClaim":
        return f"dice {_dice_text(claim.dice)}"
    return normalize(str(claim))


def action_phrases(action: Any, game: Game, state: Any) -> list[str]:
    """Every normalized phrase that means ``action`` here, the canonical one first."""
    kind = type(action).__name__
    canonical = normalize(format_action(action, game, state))
    phrases = [canonical]
    box = getattr(action, "box", None) or getattr(action, "combo", None)
    if kind == "Keep":
        if action.dice:
            phrases += [normalize(f"{v} {_dice_text(action.dice)}") for v in ("hold", "k")]
        else:
            phrases += ["roll", "roll all", "reroll", "reroll all", "keep", "keep nothing", "keep none", "throw"]
    elif kind == "SetAside":
        phrases += [normalize(f"{v} {_dice_text(action.dice)}") for v in ("keep", "k", "set aside", "aside")]
        if action.dice == getattr(state, "roll", None):
            phrases += ["take all", "all", "keep all"]
    elif kind == "StartSeries":
        phrases += [normalize(f"start series {_dice_text([action.face] * action.count)}")]
    elif kind == "TakeSeries":
        phrases += [normalize(f"{v} {_dice_text(_series_dice(action, state))}") for v in ("keep", "k", "set aside")]
        if action.count == len(state.roll) or action.count == max(
                a.count for a in game.legal_actions(state) if type(a).__name__ == "TakeSeries"):
            phrases += ["take all", "all", "keep all"]
    elif box is not None:
        verbs = {"Fill": ("box", "write", "fill", "score", ""), "Write": ("write", "box", "fill", ""),
                 "Record": ("record", "box", "write", ""), "Scratch": ("scratch", "cross", "dash"),
                 "Declare": ("declare",)}.get(kind, (kind.lower(),))
        phrases += [f"{v} {alias}".strip() for v in verbs for alias in box_aliases(game, box)]
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
    bodies = [_claim_text(claim)]
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


@dataclass(frozen=True)
class Parsed:
    """What a line of input meant: a move, a command, or an error to show."""

    action: Any = None
    command: str | None = None
    argument: str = ""
    error: str | None = None


COMMANDS = {
    "?": "hint", "hint": "hint", "h": "hint", "undo": "undo", "u": "undo", "help": "help",
    "moves": "moves", "m": "moves", "quit": "quit", "exit": "quit", "q": "quit", "card": "show", "show": "show",
}


def parse_input(text: str, game: Game, state: Any) -> Parsed:
    """Turn a typed line into a legal action or a command; never raises."""
    line = text.strip()
    if not line:
        return Parsed(error="type a move (e.g. 'keep 1 1 5'), '?' for a hint, or 'help'")
    words = line.lower().split()
    if words[0] in COMMANDS:
        return Parsed(command=COMMANDS[words[0]], argument=" ".join(words[1:]))
    if line.startswith("?"):
        return Parsed(command="hint", argument=line[1:].strip())
    legal = game.legal_actions(state)
    if re.fullmatch(r"#\d+", line):
        n = int(line[1:])
        if 1 <= n <= len(legal):
            return Parsed(action=legal[n - 1])
        return Parsed(error=f"there are {len(legal)} moves; #{n} is not one of them (see 'moves')")
    wanted = normalize(line)
    table: dict[str, Any] = {}
    for action in legal:
        for phrase in action_phrases(action, game, state):
            table.setdefault(phrase, action)
    if wanted in table:
        return Parsed(action=table[wanted])
    # a box may be abbreviated ("box sm" for small straight) when only one fits
    named = {a for phrase, a in table.items() if _names_box(a) and phrase.startswith(wanted) and len(wanted) >= 3}
    if len(named) == 1:
        return Parsed(action=named.pop())
    if len(named) > 1:
        options = sorted({format_action(a, game, state) for a in named})
        return Parsed(error=f"{line!r} could mean: {', '.join(options[:8])}" + (" ..." if len(options) > 8 else ""))
    return Parsed(error=_explain(wanted, line, game, state, legal))


def _names_box(action: Any) -> bool:
    return getattr(action, "box", None) is not None or getattr(action, "combo", None) is not None


def _explain(wanted: str, line: str, game: Game, state: Any, legal: list) -> str:
    """Why ``line`` is not a legal move: the engine's own reason for the move it names,
    or examples of what it understands."""
    try:
        attempt = _construct(wanted, game, state)
        if attempt is not None:
            game.apply(state, attempt)
    except KockaError as exc:
        return f"not allowed: {exc}"
    examples = ", ".join(format_action(a, game, state) for a in legal[:3])
    return f"I don't understand {line!r}. Moves here look like: {examples} ('moves' lists all, '?' hints)"


def _construct(wanted: str, game: Game, state: Any) -> Any:
    """The action ``wanted`` names, legal or not (so the engine can say why not), or None.
    Impossible values (a die showing 9) raise the engine's error."""
    tokens = wanted.split()
    kinds = {cls.__name__: cls for cls in game.ACTIONS}
    digits = [int(t) for t in tokens[1:] if t.isdigit()]
    dice_ok = bool(digits) and len(digits) == len(tokens) - 1
    verb = tokens[0] if tokens else ""
    try:
        if verb in ("keep", "hold", "k") and "Keep" in kinds and dice_ok:
            return kinds["Keep"](tuple(digits))
        if verb in ("take", "keep", "k", "aside") and "SetAside" in kinds and dice_ok:
            if getattr(state, "series", None) is not None and "TakeSeries" in kinds:
                return kinds["TakeSeries"](len(digits))
            return kinds["SetAside"](tuple(digits))
        if verb == "series" and "StartSeries" in kinds and dice_ok:
            return kinds["StartSeries"](digits[0], len(digits))
        if verb == "joker" and "NameJoker" in kinds and len(digits) == 1:
            return kinds["NameJoker"](digits[0])
        for name in ("Bank", "Roll", "EndTurn", "Accept", "Challenge", "Pass", "Bet", "Hold", "Raise", "Decline"):
            if name in kinds and wanted in (name.lower(), _snake(name).replace("_", " ")):
                return kinds[name]()
        box_kind = {"box": "Fill", "fill": "Fill", "write": "Write", "record": "Record",
                    "scratch": "Scratch", "declare": "Declare"}.get(verb)
        if box_kind == "Fill" and "Fill" not in kinds:
            box_kind = "Write" if "Write" in kinds else "Record"
        if box_kind == "Write" and "Write" not in kinds:
            box_kind = "Fill" if "Fill" in kinds else "Record"
        if box_kind in kinds and len(tokens) > 1:
            rest = " ".join(tokens[1:])
            for box in _all_boxes(game):
                if rest in box_aliases(game, box):
                    field_name = dataclasses.fields(kinds[box_kind])[0].name
                    return kinds[box_kind](**{field_name: box})
            return kinds[box_kind](**{dataclasses.fields(kinds[box_kind])[0].name: rest})
    except (TypeError, AttributeError, IndexError):
        return None
    return None


def _all_boxes(game: Game) -> tuple[str, ...]:
    boxes = getattr(game, "boxes", None) or getattr(game.rules, "boxes", None)
    if boxes is None and game.NAME == "polish-basic":
        from kocka.solver.rules.polish import COMBINATIONS

        boxes = COMBINATIONS
    return tuple(boxes or ())


# ----------------------------------------------------------------------------------------
# Drawing
# ----------------------------------------------------------------------------------------
_PIPS = {
    1: ("       ", "   o   ", "       "),
    2: (" o     ", "       ", "     o "),
    3: (" o     ", "   o   ", "     o "),
    4: (" o   o ", "       ", " o   o "),
    5: (" o   o ", "   o   ", " o   o "),
    6: (" o   o ", " o   o ", " o   o "),
}


def draw_dice(dice: Sequence[int]) -> str:
    """Dice as pictures with their values underneath (ASCII, any terminal)."""
    if not dice:
        return "(no dice)"
    top = " ".join("+-------+" for _ in dice)
    rows = [" ".join(f"|{_PIPS[d][r]}|" for d in dice) for r in range(3)]
    values = " ".join(f"    {d}    " for d in dice)
    return "\n".join([top, *rows, top, values.rstrip()])


def hides_information(game: Game) -> bool:
    """Does this game hide part of the state from some players (bluff dice)?"""
    return type(game).observation is not _GameBase.observation


def render_state(game: Game, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """What ``viewer`` sees before a decision."""
    view = _VIEWS.get(game.NAME)
    if view is not None:
        return view(game, state, seat_names, viewer)
    return _render_observation(game, state, seat_names, viewer)


def _render_scorecard(game: Any, state: Any, seat_names: Sequence[str], viewer: int, show_turn: bool = True) -> str:
    player = state.player
    lines = []
    if show_turn and not game.is_terminal(state):
        lines.append(f"{seat_names[player]} to play, throw {state.throw} of 3")
        if state.declared:
            lines[0] += f", declared box: {box_label(game, state.declared)}"
    if state.dice is not None:
        lines += ["", draw_dice(state.dice), ""]
    previews: dict[str, int] = {}
    if state.dice is not None and game.current_player(state) == player:
        card = state.cards[player]
        yahtzee_box = getattr(game, "yahtzee_box", None)
        yahtzee_entry = None if yahtzee_box is None else card.entries[yahtzee_box]
        for action in game.legal_actions(state):
            if type(action).__name__ == "Fill":
                b = game.box_index(action.box)
                score = game.fill_score(b, state.dice, state.throw == 1, card.filled_mask, yahtzee_entry)
                previews[action.box] = score.entry + score.bonus
    name_width = max(len(f"{box_label(game, b)} ({b})") for b in game.boxes)
    col = max(8, *(len(n) for n in seat_names)) + 1
    head = f"{'box':<{name_width}}" + "".join(f"{n:>{col}}" for n in seat_names) + (f"{'now':>{col}}" if previews else "")
    lines.append(head)
    for i, b in enumerate(game.boxes):
        if i == len(game.upper_boxes) and game.upper_boxes:
            lines.append(f"{'  upper section':<{name_width}}" + "".join(f"{_upper_summary(game, c):>{col}}" for c in state.cards))
        row = f"{box_label(game, b) + ' (' + b + ')':<{name_width}}"
        row += "".join(f"{'.' if c.entries[i] is None else c.entries[i]:>{col}}" for c in state.cards)
        if b in previews:
            row += f"{previews[b]:>{col}}"
        lines.append(row)
    bonus = [f"+{100 * c.yahtzee_bonuses}" if c.yahtzee_bonuses else "" for c in state.cards]
    if any(bonus):
        lines.append(f"{'yahtzee bonus':<{name_width}}" + "".join(f"{x:>{col}}" for x in bonus))
    lines.append(f"{'total':<{name_width}}" + "".join(f"{game.card_total(c):>{col}}" for c in state.cards))
    return "\n".join(lines)


def _render_chip_bidding(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """The Hungarian card (HU-1..HU-8) and the betting (HU-10..HU-19)."""
    lines = [_render_scorecard(game.card_game, state.card, seat_names, viewer, show_turn=state.phase == "play"), ""]
    lines.append(f"bank {state.bank}, stake {state.stake}; paid: " + ", ".join(
        f"{n} {p}" + (" (passed)" if passed else "") for n, p, passed in zip(seat_names, state.paid, state.passed)))
    if state.phase == "raise":
        lines.append(f"{seat_names[state.actor]} may raise: pay {state.stake + 1} ('raise') or 'decline'")
    elif state.phase == "respond":
        lines.append(f"{seat_names[state.actor]} raised to {state.stake}: "
                     f"{seat_names[state.pending[0]]} answers 'hold' ({state.stake}), 'raise' ({state.stake + 1}) or 'pass'")
    return "\n".join(lines)


def _upper_summary(game: Any, card: Any) -> str:
    """Net upper score (HU, SK) or upper total (Yahtzee, Yatzy) so far."""
    entries = [card.entries[i] or 0 for i in game.upper_boxes]
    net = hasattr(game, "net_upper")
    return f"{'net ' if net else 'sum '}{sum(entries):+d}" if net else f"sum {sum(entries)}"


def _render_polish(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    from kocka.solver.rules.polish import box_value

    player = state.player
    budget = game.budget(state)
    head = f"stage {state.stage}: {seat_names[player]} to play, throw {state.throws} of {budget} (fences: " + \
        ", ".join(f"{n} {f}" for n, f in zip(seat_names, state.fences)) + ")"
    if state.declared:
        head += f", declared box: {box_label(game, state.declared)}"
    lines = [] if game.is_terminal(state) else [head]
    if state.dice is not None:
        lines += ["", draw_dice(state.dice), ""]
    previews: dict[str, int] = {}
    if state.dice is not None and game.current_player(state) == player:
        for action in game.legal_actions(state):
            if type(action).__name__ == "Write":
                previews[action.box] = box_value(action.box, state.dice, state.throws == 1, game.rules)
    boxes = game.rules.boxes
    name_width = max(len(f"{box_label(game, b)} ({b})") for b in boxes)
    col = max(8, *(len(n) for n in seat_names)) + 1
    lines.append(f"{'box':<{name_width}}" + "".join(f"{n:>{col}}" for n in seat_names) + (f"{'now':>{col}}" if previews else ""))
    for i, b in enumerate(boxes):
        row = f"{box_label(game, b) + ' (' + b + ')':<{name_width}}"
        row += "".join(f"{'.' if card[i] is None else card[i]:>{col}}" for card in state.cards[state.stage - 1])
        if b in previews:
            row += f"{previews[b]:>{col}}"
        lines.append(row)
    totals = game.stage_totals(state)
    lines.append(f"{'stage totals':<{name_width}}" + "".join(f"{'/'.join(map(str, t)):>{col}}" for t in totals))
    lines.append(f"{'game total':<{name_width}}" + "".join(f"{sum(t):>{col}}" for t in totals))
    return "\n".join(lines)


def _render_polish_basic(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    from kocka.solver.rules.polish import COMBINATIONS, basic_value

    player = state.player
    lines = [] if game.is_terminal(state) else [f"{seat_names[player]} to play, throw {state.throws} of 3"]
    if state.dice is not None:
        lines += ["", draw_dice(state.dice), ""]
    previews: dict[str, int] = {}
    if state.dice is not None and game.current_player(state) == player:
        for action in game.legal_actions(state):
            if type(action).__name__ == "Record":
                previews[action.combo] = basic_value(action.combo, state.dice, state.throws == 1, game.rules)
    name_width = max(len(f"{box_label(game, b)} ({b})") for b in COMBINATIONS)
    col = max(8, *(len(n) for n in seat_names)) + 1
    lines.append(f"{'combination':<{name_width}}" + "".join(f"{n:>{col}}" for n in seat_names) + (f"{'now':>{col}}" if previews else ""))
    for i, b in enumerate(COMBINATIONS):
        row = f"{box_label(game, b) + ' (' + b + ')':<{name_width}}"
        row += "".join(f"{'.' if rec[i] is None else rec[i]:>{col}}" for rec in state.records)
        if b in previews:
            row += f"{previews[b]:>{col}}"
        lines.append(row)
    lines.append(f"{'total':<{name_width}}" + "".join(f"{t:>{col}}" for t in game.totals(state)))
    return "\n".join(lines)


def _render_kocka(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    threshold = game.rules.series_threshold
    scores = ", ".join(
        f"{n} {s}" + (f" ({threshold}+)" if s >= threshold else "") for n, s in zip(seat_names, state.scores)
    )
    lines = [f"banked: {scores}   (target {game.rules.target})"]
    whose = "your" if seat_names[state.player] == "you" else f"{seat_names[state.player]}'s"
    turn = f"{whose} turn: turn total {state.turn_total}"
    if state.series is not None:
        face, collected = state.series
        turn += f", series of {face}s: {collected} of 6 aside"
        if state.joker is not None:
            turn += f", joker {state.joker}"
    lines.append(turn)
    if state.roll is not None:
        lines += ["", draw_dice(state.roll)]
    elif state.stage == "bank_or_roll":
        can_bank = "may bank" if game.may_bank(state) else f"must roll on (minimum bank {game.rules.min_bank_points})"
        lines.append(f"{state.dice_in_play} dice left to roll; {can_bank}")
    elif state.stage == "joker":
        lines.append("five dice of the series aside: name a joker for the last die ('joker N') or 'roll'")
    return "\n".join(lines)


def _render_observation(game: Game, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """Any game: the viewer's observation (hidden dice are null), dice drawn when visible."""
    doc = game.observation(state, viewer)["state"] if hides_information(game) else game.state_to_json(state)["state"]
    lines = [f"{seat_names[viewer]} to play"]
    for key in ("public", "dice"):
        dice = doc.get(key)
        if dice and all(isinstance(d, int) for d in dice):
            lines += [f"{key}:", draw_dice(dice)]
    if "chips" in doc:
        lines.append("chips: " + ", ".join(f"{n} {c}" for n, c in zip(seat_names, doc["chips"])) + f"; bank {doc.get('bank', 0)}")
    if doc.get("standing") is not None and hasattr(state, "standing"):
        lines.append(f"standing claim: {state.standing}" + (f", stake {state.stake}" if getattr(state, "stake", 0) else ""))
    if getattr(state, "history", ()):
        lines.append("claims this round: " + " < ".join(str(c) for c in state.history))
    if doc.get("bets"):
        lines.append("bets: " + ", ".join(f"{seat_names[p]} {k}" for p, k in doc["bets"]))
    if doc.get("revealed"):
        who, dice = doc["revealed"]
        lines.append(f"last reveal: {seat_names[who]} showed {' '.join(map(str, dice))}")
    if "active" in doc and doc["active"] >= 0:
        lines.append(f"phase: {doc['phase']}, active: {seat_names[doc['active']]}, round {doc.get('rounds', 0) + 1}")
    return "\n".join(lines)


_VIEWS: dict[str, Callable[..., str]] = {
    "kockapoker": _render_scorecard,
    "slovak": _render_scorecard,
    "yahtzee": _render_scorecard,
    "yatzy": _render_scorecard,
    "polish": _render_polish,
    "polish-basic": _render_polish_basic,
    "kocka": _render_kocka,
    "kockapoker-bid": _render_chip_bidding,
}


def final_scores_text(game: Game, state: Any, seat_names: Sequence[str]) -> str:
    from kocka.agents.frontends.arena import final_scores, win_shares

    scores = final_scores(game, state)
    shares = game.returns(state) if game.NAME == "kocka" else tuple(win_shares(game.returns(state)))
    winners = [n for n, s in zip(seat_names, shares) if s > 0]
    lines = ["final scores: " + ", ".join(f"{n} {s:g}" for n, s in zip(seat_names, scores))]
    if len(seat_names) > 1:
        lines.append(("winner: " if len(winners) == 1 else "shared win: ") + ", ".join(winners))
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------
# The session
# ----------------------------------------------------------------------------------------
@dataclass
class Mistake:
    """One human decision and its cost versus the optimal agent's best move."""

    seat: int
    played: str
    best: str
    loss: float


@dataclass
class _Snapshot:
    """Everything a human decision may be undone to."""

    state: Any
    rolls: int
    events: int
    mistakes: int


class _Quit(Exception):
    """The human asked to stop (``quit`` or end of input)."""


@dataclass
class PlaySession:
    """One terminal game. ``seats`` are ``"human"`` or agent names, in seat order.

    ``read`` returns a line of input or None at end of input; ``write`` prints a block
    of text. Build with :meth:`create`; run with :meth:`run`, which returns the exit code.
    """

    game: Game
    seats: list[str]
    seed: int
    options: AgentOptions
    read: Callable[[str], str | None]
    write: Callable[[str], None]
    agents: dict[int, Agent] = field(default_factory=dict)
    judge: Agent | None = None
    judge_error: str | None = None
    mistakes: list[Mistake] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    snapshots: list[_Snapshot] = field(default_factory=list)
    state: Any = None
    rolls: int = 0

    @classmethod
    def create(cls, game: Game, seats: Sequence[str], seed: int, options: AgentOptions,
               read: Callable[[str], str | None], write: Callable[[str], None]) -> "PlaySession":
        seats = [s.strip().lower() for s in seats]
        if not 1 <= len(seats) <= 6:
            raise PlayError(f"a game has 1 to 6 seats, got {len(seats)}: {seats!r}")
        lo, hi = game.player_range()
        if not lo <= len(seats) <= hi:
            raise PlayError(f"{game.NAME} seats {lo}..{hi} players, got {len(seats)}: {seats!r}")
        if game.num_players != len(seats):
            game = type(game)(game.rules, num_players=len(seats))
        session = cls(game=game, seats=seats, seed=seed, options=options, read=read, write=write)
        for seat, name in enumerate(seats):
            if name != HUMAN:
                session.agents[seat] = make_agent(name, game, derive_seed("play", seed, seat), options)
        if HUMAN in seats:
            session.judge, session.judge_error = _judge_for(game, options)
        return session

    @property
    def seat_names(self) -> list[str]:
        humans = self.seats.count(HUMAN)
        names = []
        for seat, name in enumerate(self.seats):
            if name == HUMAN:
                names.append("you" if humans == 1 else f"human {seat + 1}")
            else:
                names.append(name if self.seats.count(name) == 1 else f"{name} {seat + 1}")
        return names

    def run(self) -> int:
        """Play to the end; 0 when the game ends or the human quits, 130 on Ctrl-C."""
        try:
            self._play()
        except _Quit:
            self.write("the game is abandoned.")
            self._summary(final=False)
        except KeyboardInterrupt:
            self.write("\ninterrupted; the game is abandoned.")
            self._summary(final=False)
            return 130
        return 0

    # ----- the game loop -----
    def _play(self) -> None:
        game, names = self.game, self.seat_names
        sampler = ChanceSampler(derive_seed("play-chance", self.seed))
        hidden = hides_information(game)
        self.state, self.rolls = game.new_initial_state(), 0
        self.write(f"{game.NAME}: {', '.join(names)} (seed {self.seed}). Type 'help' for the commands.")
        while not game.is_terminal(self.state):
            before = self.state
            player = game.current_player(before)
            if player == CHANCE:
                outcome = sampler.sample(game, before, self.rolls)
                self.rolls += 1
                self._advance(CHANCE, outcome)
                if not hidden:
                    self._narrate_roll(before, outcome, self.state)
            elif self.seats[player] != HUMAN:
                action = self.agents[player].choose(before)
                self.write(f"  {names[player]}: {format_action(action, game, before)}")
                self._advance(player, action)
                self._narrate_after(self.state)
            else:
                action = self._ask(player)
                self.snapshots.append(_Snapshot(self.state, self.rolls, len(self.events), len(self.mistakes)))
                self._judge(self.state, self.game.current_player(self.state), action)
                self._advance(self.game.current_player(self.state), action)
                self._narrate_after(self.state)
        self.write("\ngame over.")
        if game.NAME in _VIEWS and game.NAME != "kocka":
            self.write(render_state(game, self.state, names, 0))
        self.write(final_scores_text(game, self.state, names))
        self._summary(final=True)

    def _advance(self, player: int, action: Any) -> None:
        self.state = self.game.apply(self.state, action)
        self._deliver(Event(player, None if player == CHANCE else action, self.state))

    def _ask(self, player: int) -> Any:
        """Read lines until one is a legal move of the human to play (``undo`` may move the
        game back to an earlier human decision); raise :class:`_Quit` to stop."""
        game, names = self.game, self.seat_names
        self.write("\n" + render_state(game, self.state, names, player))
        while True:
            line = self.read(f"{names[player]}> ")
            if line is None:
                self.write("")
                raise _Quit
            parsed = parse_input(line, game, self.state)
            if parsed.action is not None:
                return parsed.action
            if parsed.error:
                self.write(parsed.error)
            elif parsed.command == "quit":
                raise _Quit
            elif parsed.command == "help":
                self.write(HELP)
            elif parsed.command == "show":
                self.write(render_state(game, self.state, names, player))
            elif parsed.command == "moves":
                for i, a in enumerate(game.legal_actions(self.state), start=1):
                    self.write(f"  #{i:<3} {format_action(a, game, self.state)}")
            elif parsed.command == "hint":
                self.write(self._hint(self.state, parsed.argument))
            elif parsed.command == "undo":
                if not self.snapshots:
                    self.write("nothing to undo yet.")
                    continue
                self._undo()
                player = game.current_player(self.state)
                self.write("undone: back to your last decision.")
                self.write("\n" + render_state(game, self.state, names, player))

    def _undo(self) -> None:
        """Back to the state before the last human decision. The rolls after it are keyed
        by position, so the same dice come again; memory agents forget what followed."""
        snap = self.snapshots.pop()
        self.state, self.rolls = snap.state, snap.rolls
        del self.mistakes[snap.mistakes:]
        del self.events[snap.events:]
        for agent in self.agents.values():
            if agent.has_memory:
                agent.reset()
                for event in self.events:
                    agent.observe(event)

    def _deliver(self, event: Event) -> None:
        self.events.append(event)
        for agent in self.agents.values():
            if agent.has_memory:
                agent.observe(event)

    def _narrate_roll(self, before: Any, outcome: Any, after: Any) -> None:
        """Rolls made for agents are printed; a human sees his in the next view."""
        player = getattr(before, "player", None)
        if player is None and hasattr(before, "card"):  # chip bidding: the card's roller
            player = before.card.player
        if player is None or self.seats[player] == HUMAN and self.game.current_player(after) == player:
            return
        name = self.seat_names[player]
        text = f"  {name} {'roll' if name == 'you' else 'rolls'} {_dice_text(outcome)}"
        dice = getattr(after, "dice", None)
        if isinstance(dice, tuple) and len(dice) > len(outcome):
            text += f" (dice: {_dice_text(dice)})"
        self.write(text)
        self._narrate_after(after)

    def _narrate_after(self, state: Any) -> None:
        event = getattr(state, "last_event", None)
        if self.game.NAME == "kocka" and event == "bust":
            seat = (state.player - 1) % self.game.num_players if not self.game.is_terminal(state) else state.player
            name = self.seat_names[seat]
            self.write(f"  bust: {name} {'lose' if name == 'you' else 'loses'} the turn total")
        elif self.game.NAME == "kocka" and event == "bank" and not self.game.is_terminal(state):
            seat = (state.player - 1) % self.game.num_players
            name = self.seat_names[seat]
            self.write(f"  {name} {'bank' if name == 'you' else 'banks'}: now {state.scores[seat]}")

    # ----- hints and the cost of mistakes -----
    def _hint(self, state: Any, argument: str) -> str:
        from kocka.agents.frontends.hint import HintReport, render

        if self.judge is None:
            return f"no hint here: {self.judge_error}"
        try:
            ranking = self.judge.rank(state)
        except (AgentUnavailable, KockaError, TableError) as exc:
            return f"no hint here: {exc}"
        decisions = [Decision(d.action, d.value, _hint_label(d, self.game, state), d.detail) for d in ranking]
        report = HintReport(position=self.game.describe_state(state), value_name=self.judge.value_name, decisions=decisions)
        return render(report, top=0 if argument.strip() == "all" else 8)

    def _judge(self, state: Any, seat: int, action: Any) -> None:
        if self.judge is None:
            return
        try:
            ranked = self.judge.rank(state)
        except (AgentUnavailable, KockaError, TableError) as exc:
            self.judge, self.judge_error = None, str(exc)
            return
        best = ranked[0]
        played = next((d for d in ranked if d.action == action), None)
        if played is None:
            return
        self.mistakes.append(Mistake(seat, format_action(action, self.game, state),
                                     format_action(best.action, self.game, state), best.value - played.value))

    def _summary(self, final: bool) -> None:
        humans = [s for s, n in enumerate(self.seats) if n == HUMAN]
        if not humans:
            return
        names = self.seat_names
        if self.judge is None:
            self.write(f"cost of your decisions: not available ({self.judge_error})")
            return
        unit = self.judge.value_name
        for seat in humans:
            own = [m for m in self.mistakes if m.seat == seat]
            total = sum(m.loss for m in own)
            costly = sorted((m for m in own if m.loss > 1e-9), key=lambda m: -m.loss)
            self.write(
                f"{names[seat]}: {len(own)} decisions{'' if final else ' so far'}, {len(costly)} below "
                f"{self.judge.name}'s best; total cost {total:.4f} ({unit}) versus {self.judge.name} play"
            )
            for m in costly[:3]:
                self.write(f"    played '{m.played}' instead of '{m.best}': cost {m.loss:.4f}")


def _hint_label(decision: Decision, game: Game, state: Any) -> str:
    """The move as the player types it, plus the plan the solver attaches (Kocka: "then
    bank" / "then roll on")."""
    label = format_action(decision.action, game, state)
    then = decision.detail.get("then") if decision.detail else None
    return f"{label}, then {then}" if then else label


JUDGES = ("optimal", "ev", "equilibrium", "bayes", "bettor")
"""Agents whose ranking judges the humans' moves (hints, cost of mistakes): the first one
that plays the game. Exact tables first; in the bluff and betting games, where no exact
optimum exists for the whole match, the strongest bot's own valuation."""


def _judge_for(game: Game, options: AgentOptions) -> tuple[Agent | None, str | None]:
    """The first of :data:`JUDGES` available for ``game``, or None and why not."""
    from kocka.agents.registry import agent_names

    reasons = []
    for name in JUDGES:
        if name not in agent_names(game.NAME):
            continue
        try:
            return make_agent(name, game, 0, options), None
        except (AgentUnavailable, TableError) as exc:
            reasons.append(str(exc))
    return None, "; ".join(reasons) or f"no table agent plays {game.NAME!r}"


HELP = """moves: keep 1 1 5 | box full (or: write full, full) | roll | bank | take 1 5 | series 6 6 |
       joker 2 | declare fours | scratch poker | record pair | end turn | claim 8 stake 2 |
       accept | challenge | pass | bet | reroll keep 6 | #N (the N-th of 'moves')
commands: ? or hint (ranked moves; '? all' for every move), moves, undo, card, help, quit"""


def play(game: Game, seats: Sequence[str], seed: int, options: AgentOptions = AgentOptions(),
         read: Callable[[str], str | None] | None = None, write: Callable[[str], None] | None = None) -> int:
    """Play one game in the terminal (stdin/stdout by default); returns the exit code."""
    session = PlaySession.create(game, seats, seed, options, read or _read_stdin, write or print)
    return session.run()


def _read_stdin(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None
