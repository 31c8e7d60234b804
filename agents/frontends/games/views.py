"""How ``kocka play`` draws the position of each game family: the views that the game specs
name (``GameSpec.view``, ``"kocka.agents.frontends.games.views:render_..."``).

Each view draws one family's state, so it may read that family's state and engine; what
the terminal game itself needs of any game (:mod:`kocka.agents.frontends.games.play`)
comes from the base ``Game``, and a game without a view gets play's generic observation
view. What the views share with the game (the dice drawn as dice, the throw in words, the
moves as typed) comes from :mod:`~kocka.agents.frontends.games.play`.
"""
from __future__ import annotations

from typing import Any, Sequence

from kocka.agents.frontends.games.play import box_label, draw_dice, format_action, throw_text
from kocka.solver.base.i18n import _, current_language, ngettext
from kocka.solver.rules import CHANCE


def render_scorecard(game: Any, state: Any, seat_names: Sequence[str], viewer: int, show_turn: bool = True) -> str:
    """The five-dice scorecard games (HU, SK, Yahtzee, Yatzy): every seat's card, and what
    the dice would score in each box that may be written now."""
    player = state.player
    lines = []
    if show_turn and not game.is_terminal(state):
        lines.append(_to_play(game, state, seat_names[player]))
    if state.dice is not None:
        lines += ["", draw_dice(state.dice), ""]
    previews = game.box_scores_now(state)
    upper, bonus_name, total = _("upper section"), _("yahtzee bonus"), _("total")
    name_width = max(len(upper) + 2, len(bonus_name), len(total), *(len(_box_column(game, b)) for b in game.boxes))
    col = max(8, *(len(n) for n in seat_names)) + 1
    head = f"{_box_heading():<{name_width}}" + "".join(f"{n:>{col}}" for n in seat_names) + (f"{_now_heading():>{col}}" if previews else "")
    lines.append(head)
    for i, b in enumerate(game.boxes):
        if i == len(game.upper_boxes) and game.upper_boxes:
            lines.append(f"{'  ' + upper:<{name_width}}" + "".join(f"{_upper_summary(game, c):>{col}}" for c in state.cards))
        row = f"{_box_column(game, b):<{name_width}}"
        row += "".join(f"{'.' if c.entries[i] is None else c.entries[i]:>{col}}" for c in state.cards)
        if b in previews:
            row += f"{previews[b]:>{col}}"
        lines.append(row)
    bonus = [f"+{100 * c.yahtzee_bonuses}" if c.yahtzee_bonuses else "" for c in state.cards]
    if any(bonus):
        lines.append(f"{bonus_name:<{name_width}}" + "".join(f"{x:>{col}}" for x in bonus))
    lines.append(f"{total:<{name_width}}" + "".join(f"{game.card_total(c):>{col}}" for c in state.cards))
    return "\n".join(lines)


def _to_play(game: Any, state: Any, name: str) -> str:
    """The head line of a card: who is to play, which throw, the box declared."""
    declared = game.declared_box(state)
    if declared:
        return _("{name} to play, {throw}, declared box: {box}", name=name, throw=throw_text(game, state),
                 box=box_label(game, declared))
    return _("{name} to play, {throw}", name=name, throw=throw_text(game, state))


def _box_heading() -> str:
    return _("box")


def _now_heading() -> str:
    """The heading of the column of what the dice would score now."""
    return _("now")


def _box_column(game: Any, box: str) -> str:
    """A box as the card's first column names it: the game's own name, and the English
    one beside it when the player reads English and it differs."""
    own = box_label(game, box)
    english = game.box_label(box, "en")
    return f"{own} ({english})" if current_language() == "en" and english != own else own


def render_chip_bidding(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """The Hungarian card (HU-1..HU-8) and the betting (HU-10..HU-19)."""
    lines = [render_scorecard(game.card_game, state.card, seat_names, viewer, show_turn=state.phase == "play"), ""]
    paid = ", ".join(_("{name} {chips} (passed)", name=n, chips=p) if passed else f"{n} {p}"
                     for n, p, passed in zip(seat_names, state.paid, state.passed))
    lines.append(_("bank {bank}, stake {stake}; paid: {paid}", bank=state.bank, stake=state.stake, paid=paid))
    moves = " / ".join(format_action(a, game, state) for a in game.legal_actions(state)) \
        if not game.is_terminal(state) and game.current_player(state) != CHANCE else ""
    if state.phase == "raise":
        lines.append(_("{name} may raise the stake to {stake}: {moves}", name=seat_names[state.actor],
                       stake=state.stake + 1, moves=moves))
    elif state.phase == "respond":
        lines.append(_("{name} raised the stake to {stake}; {other} answers: {moves}", name=seat_names[state.actor],
                       stake=state.stake, other=seat_names[state.pending[0]], moves=moves))
    return "\n".join(lines)


def _upper_summary(game: Any, card: Any) -> str:
    """Net upper score (HU, SK) or upper total (Yahtzee, Yatzy) so far."""
    entries = [card.entries[i] or 0 for i in game.upper_boxes]
    net = game.NET_UPPER
    signed = format(sum(entries), "+d")
    return _("net {points}", points=signed) if net else _("sum {points}", points=sum(entries))


def render_polish(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """The Polish game (PL-8..PL-17): the stage's cards, every seat's fences, the stage totals."""
    player = state.player
    fences = ", ".join(f"{n} {f}" for n, f in zip(seat_names, state.fences))
    head = _("stage {stage}: {line}; fences: {fences}", stage=state.stage, line=_to_play(game, state, seat_names[player]),
             fences=fences)
    lines = [] if game.is_terminal(state) else [head]
    if state.dice is not None:
        lines += ["", draw_dice(state.dice), ""]
    previews = game.box_scores_now(state)
    boxes = game.rules.boxes
    stage_totals, game_total = _("stage totals"), _("game total")
    name_width = max(len(stage_totals), len(game_total), *(len(_box_column(game, b)) for b in boxes))
    col = max(8, *(len(n) for n in seat_names)) + 1
    lines.append(f"{_box_heading():<{name_width}}" + "".join(f"{n:>{col}}" for n in seat_names) + (f"{_now_heading():>{col}}" if previews else ""))
    for i, b in enumerate(boxes):
        row = f"{_box_column(game, b):<{name_width}}"
        row += "".join(f"{'.' if card[i] is None else card[i]:>{col}}" for card in state.cards[state.stage - 1])
        if b in previews:
            row += f"{previews[b]:>{col}}"
        lines.append(row)
    totals = game.stage_totals(state)
    lines.append(f"{stage_totals:<{name_width}}" + "".join(f"{'/'.join(map(str, t)):>{col}}" for t in totals))
    lines.append(f"{game_total:<{name_width}}" + "".join(f"{sum(t):>{col}}" for t in totals))
    return "\n".join(lines)


def render_polish_basic(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """The Polish basic game (PL-4..PL-7): every seat's record of the combinations."""
    player = state.player
    lines = [] if game.is_terminal(state) else [_to_play(game, state, seat_names[player])]
    if state.dice is not None:
        lines += ["", draw_dice(state.dice), ""]
    previews = game.box_scores_now(state)
    combination, total = _("combination"), _("total")
    name_width = max(len(combination), len(total), *(len(_box_column(game, b)) for b in game.card_boxes()))
    col = max(8, *(len(n) for n in seat_names)) + 1
    lines.append(f"{combination:<{name_width}}" + "".join(f"{n:>{col}}" for n in seat_names) + (f"{_now_heading():>{col}}" if previews else ""))
    for i, b in enumerate(game.card_boxes()):
        row = f"{_box_column(game, b):<{name_width}}"
        row += "".join(f"{'.' if rec[i] is None else rec[i]:>{col}}" for rec in state.records)
        if b in previews:
            row += f"{previews[b]:>{col}}"
        lines.append(row)
    lines.append(f"{total:<{name_width}}" + "".join(f"{t:>{col}}" for t in game.totals(state)))
    return "\n".join(lines)


def render_kocka(game: Any, state: Any, seat_names: Sequence[str], viewer: int) -> str:
    """Kocka (KOCKA-1..KOCKA-20): the banked scores, the turn so far, the roll or the choice due."""
    threshold = game.rules.series_threshold
    scores = ", ".join(
        f"{n} {s}" + (f" ({threshold}+)" if s >= threshold else "") for n, s in zip(seat_names, state.scores)
    )
    lines = [_("banked: {scores} (target {target})", scores=scores, target=game.rules.target)]
    if seat_names[state.player] == _("you"):  # the one human of kocka play
        turn = [_("your turn: turn total {total}", total=state.turn_total)]
    else:
        turn = [_("{name} on turn: turn total {total}", name=seat_names[state.player], total=state.turn_total)]
    if state.series is not None:
        face, collected = state.series
        turn.append(_("series of {face}s: {collected} of 6 aside", face=face, collected=collected))
        if state.joker is not None:
            turn.append(_("joker {face}", face=state.joker))
    lines.append("; ".join(turn))
    if state.roll is not None:
        lines += ["", draw_dice(state.roll)]
    elif state.stage == "bank_or_roll":
        if game.may_bank(state):
            lines.append(ngettext("{n} die left to roll; you may bank", "{n} dice left to roll; you may bank",
                                  state.dice_in_play))
        else:
            lines.append(ngettext("{n} die left to roll; roll on (the least you may bank is {minimum})",
                                  "{n} dice left to roll; roll on (the least you may bank is {minimum})",
                                  state.dice_in_play, minimum=game.rules.min_bank_points))
    elif state.stage == "joker":
        moves = " / ".join(format_action(a, game, state) for a in game.legal_actions(state))
        lines.append(_("five dice of the series aside: name a joker for the last die, or roll: {moves}", moves=moves))
    return "\n".join(lines)
