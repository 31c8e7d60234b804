"""``kocka hint`` for the card games: the scorecard games (kockapóker, Slovak yatzi,
Yahtzee, Yatzy) and Polish poker dice (the full game and the basic game).

Each function turns what a person types (:class:`ScorecardHintParams`,
:class:`PolishHintParams`, :class:`PolishBasicHintParams`: the dice, the throws made, the
card, or a whole state document) into a position,
and lists every legal action there with its value from the game's exact table
(:func:`kocka.solver.solvers.scorecard.values.rank`, :func:`kocka.solver.solvers.polish.values.rank`).
The card is read by the engine (``card_from_entries``: box ids, or box names in any of the
game's languages); the words come from the game (``describe_action``, ``box_label``).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from kocka.agents.advice.hint import (
    HintParams, HintReport, hint_option, is_probability, or_list, points_instead_line, value_words,
)
from kocka.agents.bots.fallback import points_instead
from kocka.solver.base.i18n import N_, _, ngettext, number, percent, use_language
from kocka.solver.base.jsonio import loads as load_json
from kocka.solver.solvers.polish import race as polish_race
from kocka.solver.solvers.polish import values as polish_values
from kocka.solver.solvers.scorecard import values as scorecard_values
from kocka.solver.solvers.scorecard import target as scorecard_target
from kocka.solver.base.decision import Decision
from kocka.solver.base.dice import validate_dice
from kocka.solver.base.errors import DiceError, InvalidStateError, KockaError, TableError
from kocka.solver.store.table_store import get_table
from kocka.solver.rules.polish import PolishBasicGame, PolishBasicState, PolishGame, PolishState
from kocka.solver.rules.scorecard import MAX_THROWS, ScorecardGame, ScorecardState

DICE_NEEDED = N_("give the five dice showing with --dice, e.g. --dice 1 1 3 4 6")


# ----------------------------------------------------------------------------------------
# What a person types: the options of `kocka hint GAME`
# ----------------------------------------------------------------------------------------
def card_option(text: str | None, option: str = "--card") -> Any:
    """``--card`` as the engines' ``card_from_entries`` reads it: JSON (an object), or
    ``box=points`` pairs separated by commas (``pair=12,full=19``, ``"kis sor=15"``,
    ``ones=-3``); the box names are checked by the engine. None for no card. ``option`` is
    the option named in an error (``--opponent`` reads a card too)."""
    if text is None or not text.strip():
        return None
    if text.lstrip()[:1] in ("{", "[", '"'):  # JSON (the engine refuses what is not an object)
        return load_json(text, option)
    entries: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.rpartition("=")
        name = name.strip()
        if not sep or not name or not re.fullmatch(r"[+-]?\d{1,6}", value.strip()):
            raise KockaError(_("{option} takes box=points pairs such as pair=12,full=19 (or a JSON object), got {text}",
                               option=option, text=part.strip()))
        if name in entries:
            raise KockaError(_("{option} names {box} twice", option=option, box=name))
        entries[name] = int(value)
    return entries


def opponent_card_option(text: str) -> Any:
    """``--opponent`` of the Polish basic game: the other player's card, read as
    :func:`card_option` reads ``--card`` (nothing: an empty card); a number is refused."""
    if re.fullmatch(r"\s*[+-]?\d+\s*", text):
        raise InvalidStateError(_("polish-basic: --opponent takes the card of the other player, e.g. --opponent "
                                  "pair=8, not a number"))
    card = card_option(text, "--opponent")
    return {} if card is None else card


def opponent_documents(value: Any) -> list[Any]:
    """``--opponents`` as card documents: a JSON list of cards (or one card), or cards
    written as ``box=points`` pairs separated by ``;`` (``pair=12,full=19; chance=20``;
    ``{}`` or nothing between two ``;`` is an empty card)."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, dict):
        return [value]
    text = str(value).strip()
    if text.startswith("[") or text.startswith("{"):
        doc = load_json(text, "--opponents")
        return doc if isinstance(doc, list) else [doc]
    cards: list[Any] = []
    for part in text.split(";"):
        entries: dict[str, int] = {}
        for pair in part.split(","):
            if not pair.strip() or pair.strip() == "{}":
                continue
            name, sep, points = pair.rpartition("=")
            try:
                entries[name.strip()] = int(points)
            except ValueError:
                sep = ""
            if not sep or not name.strip():
                raise InvalidStateError(_("--opponents takes cards of box=points pairs separated by semicolons (or a "
                                          "JSON list), got {text}", text=pair.strip()))
        cards.append(entries)
    return cards


CARD_HELP = N_("The filled boxes as box=points pairs, e.g. pair=12,full=19 (box ids or the names on the card, in "
                "any of the game's languages), or as JSON, e.g. '{\"pair\": 12}' (default: an empty card).")
"""``--card`` in every card game (in the full Polish game, the card of the stage being played)."""


@dataclass(frozen=True)
class CardHintParams(HintParams):
    """What ``kocka hint`` takes in every card game: the dice, the throws made, the card."""

    dice: tuple[int, ...] | None = hint_option(
        N_("The five dice showing, e.g. --dice 1 1 3 4 6 (the values after --dice are collected)."), type=int, rest=True,
        metavar="DIE")
    roll: int | None = hint_option(N_("Throws made this turn: 1, 2 or 3 (default 1)."), type=int)
    card: Any = hint_option(CARD_HELP, parse=card_option, metavar="CARD")


@dataclass(frozen=True)
class ScorecardHintParams(CardHintParams):
    """``kocka hint`` in the scorecard games: ranked by expected final score, or with
    ``target`` or ``opponents`` by the chance to reach it or to win (the target table)."""

    target: int | None = hint_option(
        N_("Rank by P(final total >= TARGET), e.g. --target 250 (the table of kocka-solve build GAME --kind target)."),
        type=int)
    opponents: list[Any] | None = hint_option(
        N_("The other players' cards, to rank by P(win) against them: a JSON list of cards, or cards as box=points "
           "pairs separated by ';' (an empty card: {}), e.g. 'chance=25,full=28; {}' (the table of kocka-solve build "
           "GAME --kind target)."), parse=opponent_documents, metavar="CARDS")


def _polish_roll() -> Any:
    return hint_option(N_("Throws made this turn (default 1; 0: before the first; a fourth and later throw spends a "
                          "fence)."), type=int)


@dataclass(frozen=True)
class PolishHintParams(CardHintParams):
    """``kocka hint polish``: the card of the stage being played, the fences, the box declared."""

    roll: int | None = _polish_roll()
    fences: int | None = hint_option(N_("Fences held at the start of this turn (default 0)."), type=int)
    stage: int | None = hint_option(
        N_("The stage being played: 1, 2 or 3 (default 1; earlier stages count as cards of zeros)."), type=int)
    declare: str | None = hint_option(N_("Stage 2: the box declared this turn, e.g. --declared pair."),
                                      flag="--declared", metavar="BOX")


@dataclass(frozen=True)
class PolishBasicHintParams(CardHintParams):
    """``kocka hint polish-basic``: solitaire, or with the other card the two-player race."""

    roll: int | None = _polish_roll()
    opponent: Any = hint_option(
        N_("The other player's card (written like --card): ranks by P(win) in the two-player race (the table of "
           "kocka-solve build polish-basic --kind race)."), parse=opponent_card_option, metavar="CARD")


def _polish_throw(params: CardHintParams) -> tuple[int, tuple[int, ...] | None]:
    """The throws made (``--roll``, 1 when not given) and the five dice showing, for both
    Polish hints (solitaire and race): before the first throw (roll 0) there are no dice;
    after it ``--dice`` is needed."""
    roll = 1 if params.roll is None else params.roll
    if roll <= 0:
        return roll, None
    if params.dice is None:
        raise DiceError(_(DICE_NEEDED))
    return roll, validate_dice(params.dice, 5)


def _card_document(doc: Any, option: str = "--card") -> Any:
    """``--card`` (or ``option``) as the engine takes it: a JSON object of box to entry (or nothing)."""
    if doc is not None and not isinstance(doc, dict):
        raise InvalidStateError(f"{option} must be a JSON object of box: entry, got {doc!r}")
    return doc


# ----------------------------------------------------------------------------------------
# The scorecard games
# ----------------------------------------------------------------------------------------
def scorecard_hint(game: ScorecardGame, params: ScorecardHintParams) -> HintReport:
    """Rank every action of a scorecard position: ``--dice`` after ``--roll`` throws
    (1..3) on the ``--card`` given, or ``--state``."""
    if params.state is not None:
        state = game.state_from_json(params.state)
    else:
        if params.dice is None:
            raise DiceError(_(DICE_NEEDED))
        dice = validate_dice(params.dice, 5)
        roll = 1 if params.roll is None else params.roll
        if isinstance(roll, bool) or roll not in range(1, MAX_THROWS + 1):
            raise InvalidStateError(_("--roll must be 1, 2 or 3 (throws made this turn), got {roll}", roll=roll))
        card = game.card_from_entries(_card_document(params.card))
        state = ScorecardState(cards=(card,) * game.num_players, throw=roll, dice=dice)
        game.check_state(state)
        if card.is_full:
            raise InvalidStateError(_("{game}: the card is full; there is nothing to decide", game=game.NAME))
    if params.target is not None or params.opponents is not None:
        return play_to_win_hint(game, params, state)
    return points_hint(game, params, state)


def points_hint(game: ScorecardGame, params: ScorecardHintParams, state: ScorecardState) -> HintReport:
    """Every action of ``state`` ranked by its expected final score (the expected-score table)."""
    table = get_table(game, cache_dir=params.cache_dir, build_missing=params.build_missing)
    decisions = scorecard_values.rank(game, table, state)
    notes = [_("values: {value} of this card under optimal solitaire play (the best from an empty card: {optimum})",
               value=value_words(scorecard_values.VALUE_NAME), optimum=number(table.meta.extra["expected_score"], 4))]
    notes += _plain_notes(game, state, decisions, scorecard_values.VALUE_NAME, lambda s: scorecard_values.rank(game, table, s),
                          targets=lambda s, a: scorecard_values.turn_shares(game, table, s, a))
    return HintReport(position=describe_scorecard(game, state), value_name=scorecard_values.VALUE_NAME,
                      decisions=decisions, notes=notes)


def play_to_win_hint(game: ScorecardGame, params: ScorecardHintParams, state: ScorecardState) -> HintReport:
    """``--target T``: every action with P(final >= T) under the play that maximises it
    (:func:`~kocka.solver.solvers.scorecard.target.rank_target`); ``--opponents CARDS``: every action
    with the win chance against those cards, each at the start of a turn, whose owners
    play for expected points (:func:`~kocka.solver.solvers.scorecard.target.rank_winner`). Both show
    the expected final score beside it (from the target table, ``--kind target``). Without
    the target table: the ranking by points (:func:`points_hint`), with the line that says
    what playing to win needs (:func:`~kocka.agents.advice.hint.points_instead_line`)."""
    if params.target is not None and params.opponents is not None:
        raise InvalidStateError(_("give --target or --opponents, not both"))
    if params.target is not None and (isinstance(params.target, bool) or not isinstance(params.target, int)):
        raise InvalidStateError(_("--target must be a whole number of points, got {target}", target=params.target))
    try:
        table = get_table(game, "target", cache_dir=params.cache_dir, build_missing=params.build_missing)
    except TableError:  # not built (or not usable): rank by points, and say what playing to win needs
        report = points_hint(game, params, state)
        line = points_instead_line(points_instead(game, params.cache_dir))
        return dataclasses.replace(report, notes=(line, *report.notes))
    expected = "expected final score"  # the detail shown as a column (value_words names it)
    if params.target is not None:
        target = params.target
        if isinstance(target, bool) or not isinstance(target, int):
            raise InvalidStateError(_("--target must be a whole number of points, got {target}", target=target))
        decisions = scorecard_target.rank_target(game, table, state, target)
        value_name = f"P(final >= {target})"
        notes = [_("values: the chance that the final total reaches {target}, playing for that from here on; "
                   "{expected}: playing for points instead", target=target, expected=value_words(expected))]
    else:
        opponents = [_opponent_card(game, doc, i) for i, doc in enumerate(opponent_documents(params.opponents))]
        decisions = scorecard_target.rank_winner(game, table, state, opponents)
        value_name = "P(win)"
        finished = all(c.is_full for c in opponents)
        how = (_("exact: every opponent has finished") if finished else
               _("this turn exact, the later turns valued as played for points (a play you can follow)"))
        notes = [ngettext("values: the chance of finishing first (ties shared) against {n} opponent who plays for "
                          "points, from his card at the start of a turn; {how}",
                          "values: the chance of finishing first (ties shared) against {n} opponents who play for "
                          "points, from their cards at the start of a turn; {how}", len(opponents), how=how)]
    return HintReport(position=describe_scorecard(game, state), value_name=value_name, decisions=decisions,
                      notes=notes, columns=(expected,))


def _opponent_card(game: ScorecardGame, doc: Any, i: int) -> Any:
    """One ``--opponents`` card, checked by the engine."""
    if doc is not None and not isinstance(doc, dict):
        raise InvalidStateError(f"--opponents: card {i + 1} must be an object of box: entry, got {doc!r}")
    card = game.card_from_entries(doc)
    solo = type(game)(game.rules, num_players=1)
    try:
        solo.check_state(ScorecardState(cards=(card,)))
    except InvalidStateError as exc:
        raise InvalidStateError(_("--opponents: card {number}: {reason}", number=i + 1, reason=exc)) from None
    return card


def describe_scorecard(game: ScorecardGame, state: ScorecardState) -> str:
    """The position as the hint prints it: throw, dice, declaration and the card so far."""
    card = state.cards[state.player]
    filled = [f"{game.box_label(b)} {e}" for b, e in zip(game.boxes, card.entries) if e is not None]
    dice = " ".join(map(str, state.dice)) if state.dice else "-"
    card_text = ", ".join(filled) if filled else _("empty")
    words = dict(game=game.NAME, throw=game.turn_progress(state).throw_text(), dice=dice, filled=len(filled),
                 boxes=game.num_boxes, points=game.entries_total(card), card=card_text)
    if state.declared:
        return _("{game}: {throw}, dice {dice}, declared {box}; card ({filled} of {boxes} filled, "
                 "{points} points so far): {card}", box=game.box_label(state.declared), **words)
    return _("{game}: {throw}, dice {dice}; card ({filled} of {boxes} filled, {points} points so "
             "far): {card}", **words)


# ----------------------------------------------------------------------------------------
# Polish poker dice
# ----------------------------------------------------------------------------------------
def polish_hint(game: PolishGame | PolishBasicGame, params: PolishHintParams | PolishBasicHintParams) -> HintReport:
    """``kocka hint polish``: every action with its value, including spending a fence (a
    throw beyond the third), scratching for fences and which box to declare; the full
    game also takes ``stage``, ``fences`` and ``declare`` (:class:`PolishHintParams`). The
    basic game with ``--opponent`` (the other card) or a two-seat ``--state`` is the
    two-player race, valued by P(win) (:func:`polish_basic_race_hint`)."""
    if isinstance(game, PolishBasicGame) and _race_wanted(params):
        return polish_basic_race_hint(game, params)
    if params.state is not None:
        state = game.state_from_json(params.state)
    else:
        roll, dice = _polish_throw(params)
        card = game.card_from_entries(_card_document(params.card))
        if isinstance(game, PolishBasicGame):
            state = PolishBasicState(player=0, records=(card,), throws=roll, dice=dice)
        else:
            fences = int(params.fences or 0)
            stage = int(params.stage or 1)
            # earlier stages count as zeros: the values are then the points from this stage on
            empty, zeros = game.card_from_entries(None), (0,) * len(game.rules.boxes)
            cards = tuple(((zeros if k < stage else card if k == stage else empty),)
                          for k in range(1, game.rules.stages + 1))
            declared = params.declare or None
            state = PolishState(stage=stage, player=0, cards=cards, fences=(fences,), throws=roll, dice=dice,
                                declared=declared)
        game.check_state(state)
    table = get_table(game, cache_dir=params.cache_dir, build_missing=params.build_missing)
    decisions = polish_values.rank(game, table, state)
    notes = [_("values: {value} under optimal solitaire play (the best from the start: {optimum})",
               value=value_words(polish_values.VALUE_NAME), optimum=number(table.meta.extra["expected_score"], 4))]
    notes += _plain_notes(game, state, decisions, polish_values.VALUE_NAME, lambda s: polish_values.rank(game, table, s))
    if isinstance(game, PolishBasicGame) and decisions:
        notes.append(solitaire_reading(game.rules))
        notes.append(ngettext("here {n} turn is left (one per combination still open plus the spare turns); for "
                              "the two-player race give the other card with --opponent",
                              "here {n} turns are left (one per combination still open plus the spare turns); for "
                              "the two-player race give the other card with --opponent",
                              decisions[0].detail["turns_left"]))
    if isinstance(game, PolishGame):
        notes.append(_("a keep after the third throw spends a fence; each of the three throws you leave unused gains one"))
        if params.state is None and state.stage > 1:
            notes.append(_("stage {stage}: earlier stages are entered as cards of zeros, so every value counts the "
                           "points from this stage on (pass --state for a whole game)", stage=state.stage))
    return HintReport(position=game.describe_state(state), value_name=polish_values.VALUE_NAME,
                      decisions=decisions, notes=notes)


def solitaire_reading(rules: Any) -> str:
    """How the Polish basic game's solitaire table reads the game (its ``solo_turns`` and
    ``solo_zero_entries``, with ``basic_record``), in the player's words."""
    if rules.solo_zero_entries == "yes":
        record = (_("every turn fills a combination, 0 if the dice do not show it") if rules.basic_record == "optional"
                  else _("every turn fills a combination, a 0 only when the dice show no new combination"))
    elif rules.basic_record == "optional":
        record = _("a turn may end without a record, no zero entries")
    else:
        record = _("a shown new combination must be recorded, no zero entries")
    return ngettext("solitaire reading: {n} turn available; {record}", "solitaire reading: {n} turns available; {record}",
                    rules.solo_turns, record=record)


def _race_wanted(params: PolishBasicHintParams) -> bool:
    """An opponent's card, or a state document of two seats: the race, not solitaire."""
    if params.opponent is not None:
        return True
    body = params.state.get("state") if isinstance(params.state, dict) else None
    return isinstance(body, dict) and isinstance(body.get("records"), list) and len(body["records"]) == 2


def polish_basic_race_hint(game: PolishBasicGame, params: PolishBasicHintParams) -> HintReport:
    """``kocka hint polish-basic ... --opponent CARD``: every action of the two-player race
    with its P(win) (a tie counting one half) from the race table (PL-7). You move first
    in the round (seat 1 of 2) unless the other card is complete: then this is your last
    turn (``pl.basic_end = finish_round``). A two-seat ``--state`` gives any position."""
    two = type(game)(game.rules, num_players=2)
    if params.state is not None:
        state = two.state_from_json(params.state)
    else:
        roll, dice = _polish_throw(params)
        mine = two.card_from_entries(_card_document(params.card))
        theirs = two.card_from_entries(_card_document(params.opponent, "--opponent"))
        if None not in theirs and game.rules.basic_end == "immediate":
            raise InvalidStateError(_("polish-basic: the other card is complete, so the game is over (under these "
                                      "rules the game ends at once)"))
        if None not in mine:
            raise InvalidStateError(_("polish-basic: your card is complete; there is nothing to decide"))
        seat = 1 if None not in theirs else 0
        records = (theirs, mine) if seat == 1 else (mine, theirs)
        state = PolishBasicState(player=seat, records=records, throws=roll, dice=dice)
        two.check_state(state)
    table = get_table(two, "race", cache_dir=params.cache_dir, build_missing=params.build_missing)
    decisions = polish_race.rank(two, table, state)
    totals = two.totals(state)
    me = state.player
    last = me == 1 and None not in state.records[0]
    dice = " ".join(map(str, state.dice)) if state.dice else _("none yet")
    words = dict(seat=me + 1, throw=two.turn_progress(state).throw_text(), dice=dice, mine=totals[me],
                 theirs=totals[1 - me])
    if last:
        position = _("polish-basic race: you are player {seat} of 2, {throw}, dice {dice}; your total "
                     "{mine}, the other player {theirs}; your last turn", **words)
    else:
        position = _("polish-basic race: you are player {seat} of 2, {throw}, dice {dice}; your total "
                     "{mine}, the other player {theirs}", **words)
    notes = [_("values: your chance of winning the two-player race with both playing to win (a tie counts one "
               "half; the game ends when a player has recorded all his combinations)")]
    notes += _plain_notes(two, state, decisions, polish_race.VALUE_NAME, lambda s: polish_race.rank(two, table, s))
    if last:
        notes.append(_("this is your last turn: the other has completed his card, and the round ends with you"))
    notes.append(_("the chance that the first player wins, from the start: {chance}",
                   chance=percent(table.meta.extra["p_first_player_wins"], 1)))
    return HintReport(position=position, value_name=polish_race.VALUE_NAME, decisions=decisions, notes=notes)


# ----------------------------------------------------------------------------------------
# The plain-words line: "keep 6 6 6: going for sixes (45%) or three of a kind (20%); ..."
# ----------------------------------------------------------------------------------------
PLAIN_SHARE = 0.1
"""A box is named in "going for ..." when the turn ends in it with at least this chance."""
PLAIN_BOXES = 3
"""At most this many boxes are named."""


def _box_of(action: Any) -> str | None:
    """The box an action writes, records or scratches (None for keeps, declarations, rolls)."""
    if type(action).__name__ == "Declare":
        return None
    return getattr(action, "box", None) or getattr(action, "combo", None)


def turn_targets(game: Any, state: Any, action: Any, rank: Callable[[Any], Sequence[Decision]],
                 memo: dict | None = None) -> dict[str, float]:
    """Where the turn ends after ``action``: P(box) that the turn writes (records,
    scratches) box ``box``, if the rest of the turn follows ``rank``'s best action.

    Exact: every roll outcome of the throws left is followed, with its probability, and
    the best action of ``rank`` taken there (a keep is followed further; a Polish basic
    turn may end without a record, which counts for no box, so the shares may sum to less
    than 1). ``memo`` (a dict, shared between calls for the same turn) keeps the targets
    of every position reached and of every throw about to be made (the dice kept), so
    ranking all keeps of a throw costs one walk of the turn: the many rolls whose best
    keep is the same (6 6 kept from any roll with two 6s and nothing better) throw the
    same dice from the same position, followed once.
    """
    memo = {} if memo is None else memo
    box = _box_of(action)
    if box is not None:
        return {box: 1.0}
    kind = type(action).__name__
    if kind not in ("Keep", "Declare"):
        return {}  # ending the turn without a box
    player = game.current_player(state)
    after = game.apply(state, action)
    if kind == "Declare":
        return _best_targets(game, after, player, rank, memo)
    throw = (_THROW, after, player)  # the chance node after the keep: not a state, so no state's key
    if throw in memo:
        return memo[throw]
    shares: dict[str, float] = {}
    for outcome, p in game.chance_outcomes(after):
        for name, q in _best_targets(game, game.apply(after, outcome), player, rank, memo).items():
            shares[name] = shares.get(name, 0.0) + p * q
    memo[throw] = shares
    return shares


_THROW = object()
"""Marks a key of :func:`turn_targets`'s memo that holds a throw's shares (the others are states)."""


def _best_targets(game: Any, state: Any, player: int, rank: Callable[[Any], Sequence[Decision]],
                  memo: dict) -> dict[str, float]:
    if state in memo:
        return memo[state]
    if game.current_player(state) != player:  # the turn is over (it cannot be, mid-turn, but be safe)
        return {}
    decisions = rank(state)
    targets = turn_targets(game, state, decisions[0].action, rank, memo) if decisions else {}
    memo[state] = targets
    return targets


def loss_words(loss: float, value_name: str) -> str:
    """What giving up ``loss`` of a value called ``value_name`` means, in words."""
    if loss <= 1e-9:
        return _("the best play")
    if is_probability(value_name):
        return _("you give up {points} percentage points of winning chance", points=number(100 * loss, 1))
    return _("you give up {points} points on average", points=number(loss, 2))


def plain_words(game: Any, state: Any, decision: Decision, best_value: float, value_name: str,
                rank: Callable[[Any], Sequence[Decision]] | None = None, memo: dict | None = None,
                lang: str | None = None, targets: Callable[[Any, Any], dict[str, float]] | None = None) -> str:
    """One decision of a hint in a sentence: the move, what it is going for (the boxes
    the turn ends in, from :func:`turn_targets`, when ``rank`` is given and the game has
    boxes) or what it writes now, and what it gives up against the best.

    ``"keep 6 6 6: going for 6-osok (45%) or drill (21%); you give up 0.50 points on
    average"``; ``"write full: 19 points now; the best play"``. Box names are in the
    game's language, or ``lang``; the move as :meth:`describe_action` words it (or, where
    the solver labels it with more, its label: Kocka's "set aside 5 (+50, 5 dice left),
    then roll on").
    """
    with use_language(lang):  # the sentence in the language of its box names and verbs
        return _plain_words(game, state, decision, best_value, value_name, rank, memo, lang, targets)


def _plain_words(game: Any, state: Any, decision: Decision, best_value: float, value_name: str,
                 rank: Callable[[Any], Sequence[Decision]] | None, memo: dict | None, lang: str | None,
                 targets: Callable[[Any, Any], dict[str, float]] | None) -> str:
    action = decision.action
    plain = game.describe_action(action, state)
    head = game.describe_action(action, state, lang) if decision.label in (None, "", plain) else decision.label
    parts = []
    box = _box_of(action)
    if box is not None:
        points = decision.detail.get("points") if decision.detail else None
        if points is None and type(action).__name__ == "Scratch":
            points = 0
        if points is None and getattr(state, "dice", None) is not None:
            first = getattr(state, "throw", getattr(state, "throws", 0)) == 1
            points = game.box_points(box, state.dice, first)
        if points is not None:
            parts.append(ngettext("{n} point now", "{n} points now", points))
    elif (rank is not None or targets is not None) and game.card_boxes() and type(action).__name__ in ("Keep", "Declare"):
        # ``targets(state, action)``: the same shares from a solver in one call (scorecard games)
        found = targets(state, action) if targets is not None else turn_targets(game, state, action, rank, memo)
        shares = sorted(found.items(), key=lambda kv: -kv[1])
        named = [(b, p) for b, p in shares if p >= PLAIN_SHARE][:PLAIN_BOXES] or shares[:1]
        if named:
            texts = [f"{game.box_label(b, lang)} ({percent(p)})" for b, p in named]
            parts.append(_("going for {boxes}", boxes=or_list(texts)))
    if is_probability(value_name):
        parts.append(_("{value} {chance}", value=value_words(value_name), chance=percent(decision.value, 1)))
    parts.append(loss_words(best_value - decision.value, value_name))
    return _("{move}: {reasons}", move=head, reasons="; ".join(parts))


def _plain_notes(game: Any, state: Any, decisions: Sequence[Decision], value_name: str,
                 rank: Callable[[Any], Sequence[Decision]], targets: Callable[[Any, Any], dict] | None = None) -> list[str]:
    """The hint's note on the best action in plain words (:func:`plain_words`)."""
    return [_("in plain words: {advice}", advice=line) for line in advice_lines(game, state, decisions, value_name, rank, top=1, targets=targets)]


def advice_lines(game: Any, state: Any, decisions: Sequence[Decision], value_name: str,
                 rank: Callable[[Any], Sequence[Decision]] | None = None, top: int = 3,
                 lang: str | None = None, targets: Callable[[Any, Any], dict] | None = None) -> list[str]:
    """:func:`plain_words` for the first ``top`` of ``decisions`` (best first), sharing one
    walk of the turn."""
    if not decisions:
        return []
    memo: dict = {}
    best = decisions[0].value
    return [plain_words(game, state, d, best, value_name, rank, memo, lang, targets) for d in decisions[:top]]
