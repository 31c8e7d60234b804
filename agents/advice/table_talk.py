"""What the companion (``kocka table``, :mod:`kocka.agents.frontends.games.companion`) says
of a game beyond the engine's own words: the position of the player on turn in one line,
the chances of finishing first, a note after a move, and whether it ranks the moves "to
win".

The companion names no game: it asks the game's spec for its :class:`TableTalk` (the
spec's ``companion``, a ``"module:attribute"`` reference; none: the generic
:data:`GENERIC_TALK`, which says what the engine says). A family's talk lives here because
it reads the family's value tables (a floor the front ends do not import).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from kocka.agents.advice.cards import describe_scorecard
from kocka.agents.advice.kocka import move_words as kocka_move_words
from kocka.agents.bots.catalogue import AgentOptions
from kocka.solver.base.i18n import _, percent
from kocka.solver.rules.words import dice_text
from kocka.solver.models.finishing import first_place_shares
from kocka.solver.rules import Game, resolve
from kocka.solver.rules.kocka import KockaGame
from kocka.solver.rules.scorecard import ScorecardGame
from kocka.solver.solvers.kocka import ranking as kocka_ranking
from kocka.solver.solvers.scorecard.target import is_exact
from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import TableError
from kocka.solver.store.table_store import get_table, path_for, solver_for

MAX_CACHED = 64
"""Distributions :func:`finish_chances` keeps between calls (cards waiting for their turn)."""


def distribution_tables(game: Game, cache_dir: Any = None) -> dict[str, Any]:
    """The extra tables the spec's ``distribution`` reads when they are built: ``target``,
    the game's target table, whose stored distributions answer from any card in
    milliseconds (:func:`kocka.solver.solvers.scorecard.distribution.fast_distribution`)
    instead of the forward pass; ``{}`` when the game has none or it is not built (never
    built here: that takes minutes)."""
    try:
        solver = solver_for(game.NAME, "target")
    except TableError:
        return {}
    if not path_for(game, solver, cache_dir).is_file():
        return {}
    try:
        return {"target": get_table(game, "target", cache_dir=cache_dir)}
    except TableError:  # unusable (stale, damaged): the forward pass answers, the hint says why
        return {}


def finish_chances(game: Game, table: Any, state: Any, cache: dict | None = None,
                   tables: dict[str, Any] | None = None) -> list[float]:
    """Each player's chance of finishing first from ``state`` (ties shared), if everyone
    plays for the best expected score from now on: each seat's final-score distribution
    from its :meth:`~kocka.solver.rules.base.Game.final_score_position` (the player on turn
    from the position now, the others from their cards) by the spec's ``distribution``
    (:func:`kocka.solver.solvers.scorecard.values.score_distribution`); a full card counts
    its total. Exact when every other card is full (then it is the chance of the player
    on turn under the play that maximises his expected score). ``cache`` keeps the
    distributions of the cards waiting for their turn; ``tables``: those of
    :func:`distribution_tables` (the target table makes every distribution a look-up)."""
    cache = {} if cache is None else cache
    tables = tables or {}
    distribution = resolve(game.spec().distribution)
    dists = []
    for seat in range(game.num_players):
        where = game.final_score_position(state, seat)
        if where not in cache:
            if len(cache) > MAX_CACHED:
                cache.clear()
            d = distribution(game, table, where, **tables)
            cache[where] = (d.first, d.probs)
        dists.append(cache[where])
    return first_place_shares(dists)


class TableTalk:
    """The generic talk: the engine's description of the position, no chances, no notes."""

    def position(self, game: Game, state: Any, names: Sequence[str], throw: str) -> str:
        """The position of the player on turn in one line (``throw``: which throw of the
        turn, in words)."""
        return game.describe_state(state)

    def chances(self, game: Game, state: Any, names: Sequence[str], options: AgentOptions, cache: dict) -> str:
        """The chances of finishing first, in one line ("": none to say); ``cache`` lives
        as long as the session. A missing table raises
        :class:`~kocka.solver.base.errors.TableError`."""
        return ""

    def plays_to_win(self, game: Game) -> bool:
        """Whether the hint also ranks the moves by the ``winner`` agent's chance of
        finishing first (the target table)."""
        return False

    def to_win_basis(self, game: Game, state: Any) -> str:
        """How exact the "to win" ranking is in ``state``, in a few words."""
        return ""

    def move_note(self, game: Game, state: Any, player: int, action: Mapping[str, Any]) -> str:
        """What to add after ``player``'s move ``action`` (its JSON document) that led to
        ``state``, e.g. the points it wrote."""
        return ""

    def roll_due(self, game: Game, state: Any, names: Sequence[str], dice: int) -> str | None:
        """The status line while the player on turn is to throw ``dice`` dice (None: the
        generic one)."""
        return None

    def move_words(self, game: Game, state: Any, decisions: list[Decision]) -> list[Decision]:
        """The judge's ranking ``decisions`` of ``state`` with each move worded as the
        game's hint words it (the generic talk: the judge's own labels)."""
        return decisions


GENERIC_TALK = TableTalk()


class ScorecardTalk(TableTalk):
    """The scorecard games: the card so far, every player's chance of finishing first, the
    points a box got, and the moves "to win" (two or more players)."""

    def position(self, game: ScorecardGame, state: Any, names: Sequence[str], throw: str) -> str:
        return describe_scorecard(game, state)

    def chances(self, game: ScorecardGame, state: Any, names: Sequence[str], options: AgentOptions,
                cache: dict) -> str:
        table = get_table(game, cache_dir=options.cache_dir, build_missing=options.build_missing)
        shares = finish_chances(game, table, state, cache, distribution_tables(game, options.cache_dir))
        others_done = all(c.is_full for i, c in enumerate(state.cards) if i != state.player)
        how = (_("exact: the other cards are full") if others_done
               else _("if everyone plays for the best expected score from now on"))
        chances = ", ".join(f"{n} {percent(p, 1)}" for n, p in zip(names, shares))
        return _("chance of finishing first: {chances} ({how})", chances=chances, how=how)

    def plays_to_win(self, game: ScorecardGame) -> bool:
        return game.num_players > 1

    def to_win_basis(self, game: ScorecardGame, state: Any) -> str:
        others = [c for i, c in enumerate(state.cards) if i != state.player]
        return (_("exact: the other cards are full") if is_exact(state.cards[state.player], others)
                else _("this turn exact, the later turns valued as played for points"))

    def move_note(self, game: ScorecardGame, state: Any, player: int, action: Mapping[str, Any]) -> str:
        if action.get("type") != "Fill":
            return ""
        card = state.cards[player]
        entry = card.entries[game.box_index(action["box"])]
        return " " + _("({entry} points; {total} on the card)", entry=entry, total=game.card_total(card))


class KockaTalk(TableTalk):
    """Kocka: the turn total, series and banked scores, and the win probability of the
    player on turn at the start of his turn (the win table)."""

    def position(self, game: KockaGame, state: Any, names: Sequence[str], throw: str) -> str:
        words = dict(throw=throw, dice=dice_text(state.roll or ()), banked=_banked(game, state, names),
                     target=game.rules.target)
        if state.series:
            words.update(face=state.series[0], aside=state.series[1])
            if state.roll:
                return _("{throw} {dice}, a series of {face} ({aside} of 6 aside); banked: {banked} (target {target})",
                         **words)
            return _("{throw}, a series of {face} ({aside} of 6 aside); banked: {banked} (target {target})", **words)
        if state.roll:
            return _("{throw} {dice}; banked: {banked} (target {target})", **words)
        return _("{throw}; banked: {banked} (target {target})", **words)

    def chances(self, game: KockaGame, state: Any, names: Sequence[str], options: AgentOptions, cache: dict) -> str:
        if not (state.stage == "roll" and state.is_opening):
            return ""
        table = get_table(game, "winprob", cache_dir=options.cache_dir, build_missing=options.build_missing)
        p = kocka_ranking.win_turn_values(game, table, state).opening
        how = (_("exact two-player table") if game.num_players == 2
               else _("two-player table against the leading opponent, an approximation"))
        return _("chance of winning for {player} from the start of this turn: {chance} ({how})",
                 player=names[state.player], chance=percent(p, 1), how=how)

    def move_note(self, game: KockaGame, state: Any, player: int, action: Mapping[str, Any]) -> str:
        return " " + _("(banked {points})", points=state.scores[player]) if state.last_event == "bank" else ""

    def move_words(self, game: KockaGame, state: Any, decisions: list[Decision]) -> list[Decision]:
        """The moves as ``kocka hint kocka`` says them, in the language in force ("set aside
        1 (+100, 5 dice left), then roll on")."""
        return kocka_move_words(game, state, decisions)

    def roll_due(self, game: KockaGame, state: Any, names: Sequence[str], dice: int) -> str | None:
        name = names[game.seat_on_turn(state)]
        return _("{player} to play ({banked}; turn total {total}): type the {dice} dice thrown", player=name,
                 banked=_banked(game, state, names), total=state.turn_total, dice=dice)


SCORECARD_TALK = ScorecardTalk()
KOCKA_TALK = KockaTalk()


def talk_for(game: Game) -> TableTalk:
    """The talk the spec of ``game`` names (:data:`GENERIC_TALK` if none)."""
    reference = game.spec().companion
    return GENERIC_TALK if reference is None else resolve(reference)


def _banked(game: Game, state: Any, names: Sequence[str]) -> str:
    return ", ".join(f"{n} {s}" for n, s in zip(names, game.scores_so_far(state)))


__all__ = ["GENERIC_TALK", "KOCKA_TALK", "KockaTalk", "SCORECARD_TALK", "ScorecardTalk", "TableTalk", "distribution_tables", "finish_chances",
           "talk_for"]
