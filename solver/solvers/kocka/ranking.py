"""Ranking the legal actions of a Kocka decision state, for the agents and for ``kocka hint
kocka`` (:mod:`kocka.agents.advice.kocka`): :func:`rank` by a stored table (P(win) or the turn
EV), :func:`rank_by_turn_ev` by the turn EV computed for the rules, :func:`rank_with_details`
by P(win) with the turn EV and P(reaching the target this turn) beside it.

:func:`win_table_kind` names the win table a game of n players uses and
:func:`win_turn_values` says where its values are exact.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Hashable, Mapping, Sequence

import numpy as np

from kocka.solver.base.decision import Decision
from kocka.solver.base.errors import RulesError, TableError
from kocka.solver.base.table_file import Table
from kocka.solver.rules.kocka import KockaGame, KockaState
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.end_race import end_race_turn_values, final_turn_values
from kocka.solver.solvers.kocka.kocka_turn import kocka_model, kocka_rules_of, to_units
from kocka.solver.solvers.kocka.prospects import Prospect, action_prospects, prospect_value
from kocka.solver.solvers.kocka.race import race_turn_values
from kocka.solver.solvers.kocka.single_turn import ev_table_values, turn_ev_values, turn_reach_values
from kocka.solver.solvers.kocka.three_players import players_kernel, players_turn_values
from kocka.solver.solvers.kocka.turn_model import TurnValues


@lru_cache(maxsize=8)
def _cached_ev(rules: KockaRules, phase: int) -> TurnValues:
    return turn_ev_values(kocka_model(rules), phase)


@lru_cache(maxsize=512)
def _cached_reach(rules: KockaRules, phase: int, target_units: int) -> TurnValues:
    return turn_reach_values(kocka_model(rules), phase, target_units)


def _then(tv: TurnValues, p: Prospect) -> str:
    """For a set-aside into a free state: does the table bank or roll on there? (Ties
    bank, as in the kernel.)"""
    tm = tv.model
    if p.slot >= tm.n_kinds:
        return ""
    if p.total < tv.phase.min_bank:
        return "roll on"
    return "bank" if tv.value(p.total, tm.bank_slot) >= tv.value(p.total, tm.roll_slot(p.slot)) else "roll on"


def _decisions(game: KockaGame, state: KockaState, primary: TurnValues, others: Mapping[str, TurnValues]) -> list[Decision]:
    decisions = []
    for action, prospect, label in action_prospects(game, state):
        value = prospect_value(primary, prospect)
        detail: dict[str, Any] = {name: prospect_value(tv, prospect) for name, tv in others.items()}
        then = _then(primary, prospect)
        if then:
            detail["then"] = then
            label = f"{label}, then {then}"
        decisions.append(Decision(action, value, label, detail))
    decisions.sort(key=lambda d: -d.value)
    return decisions


# id(win table) -> (the table, kept alive so the id stays its own; turn values by position)
_WIN_VALUES: dict[int, tuple[np.ndarray, dict[Hashable, Any]]] = {}


def _win_cache(win: np.ndarray) -> dict[Hashable, Any]:
    if id(win) not in _WIN_VALUES:
        if len(_WIN_VALUES) >= 4:
            _WIN_VALUES.clear()
        _WIN_VALUES[id(win)] = (win, {})
    cache = _WIN_VALUES[id(win)][1]
    if len(cache) >= 4096:
        kernel = cache.get("kernel")
        cache.clear()
        if kernel is not None:
            cache["kernel"] = kernel
    return cache


MANY_PLAYER_KINDS = {"winprob3": 3, "winprob4": 4}
"""The exact tables of three or four players, and the seats each covers."""
WIN_KINDS = ("winprob", *MANY_PLAYER_KINDS)
"""The tables :func:`rank` values by P(win)."""


def win_table_kind(game: KockaGame) -> str:
    """The win table a game of ``game.num_players`` uses: ``winprob3`` for three or more
    players under ``kocka.end = immediate`` (exact for three; for four or more the two
    leading opponents stand for all, see docs/SOLVER.md), otherwise ``winprob`` (exact
    for two; with more, the race against the leading opponent)."""
    return "winprob3" if game.num_players >= 3 and game.rules.end == "immediate" else "winprob"


def leading_opponents(scores: Sequence[int], player: int, count: int) -> list[int]:
    """The ``count`` highest scores among the other players, kept in turn order after
    ``player`` (equal scores: the one moving sooner first).

    >>> leading_opponents((1000, 4000, 7000, 3000), 0, 2)
    [4000, 7000]
    >>> leading_opponents((1000, 4000, 7000, 3000), 2, 1)
    [4000]
    """
    return [scores[seat] for seat in leading_opponent_seats(scores, player, count)]


def leading_opponent_seats(scores: Sequence[int], player: int, count: int) -> list[int]:
    """The seats of :func:`leading_opponents` (the ``count`` highest scores among the other
    players, in turn order after ``player``; equal scores: the one moving sooner first).

    >>> leading_opponent_seats((1000, 4000, 7000, 3000), 0, 2)
    [1, 2]
    >>> leading_opponent_seats((1000, 4000, 7000, 7000), 2, 1)
    [3]
    """
    n = len(scores)
    order = [(player + k) % n for k in range(1, n)]
    chosen = sorted(sorted(range(len(order)), key=lambda i: -scores[order[i]])[:count])
    return [order[i] for i in chosen]


def win_turn_values(game: KockaGame, table: Table, state: KockaState) -> TurnValues:
    """The win-probability turn values for the player to move in ``state``.

    * A last turn (someone reached the target under ``last_turn`` / ``finish_round``):
      beat the best score of the others
      (:func:`~kocka.solver.solvers.kocka.end_race.final_turn_values`; exact for two
      players and for the last player to move).
    * ``winprob3`` table: three players exactly; four or more with the two leading
      opponents in turn order standing for all. ``winprob4``: four players exactly.
    * ``winprob`` table: two players exactly, under every end rule; three or more: the
      race against the leading opponent.

    The approximations are measured in docs/SOLVER.md.
    """
    rules = game.rules
    model = kocka_model(rules)
    n = game.num_players
    if n < 2:
        raise RulesError("win probabilities need at least two players; use the turn_ev table for one")
    win = table["win"]
    if win.shape[0] != model.goal:
        raise TableError(f"{table.meta.kind} table has {win.shape[0]} score rows, the rules need {model.goal}")
    me = to_units(state.scores[state.player])
    cache = _win_cache(win)
    top = model.goal - 1
    if state.final_turns is not None:
        others = [s for i, s in enumerate(state.scores) if i != state.player]
        best = max(others)
        key: Hashable = ("final", model.turn.phase_index(me), to_units(best) - me, others.count(best))
        if key not in cache:
            cache[key] = final_turn_values(model, key[1], key[2], 1.0 / (1 + key[3]))
        return cache[key]
    if table.meta.kind in MANY_PLAYER_KINDS:
        seats = MANY_PLAYER_KINDS[table.meta.kind]
        if table.meta.kind == "winprob4" and n != 4:
            raise TableError(f"the winprob4 table is for 4 players, this game has {n}")
        others = leading_opponents(state.scores, state.player, seats - 1)
        key = (table.meta.kind, min(me, top), *(min(to_units(s), top) for s in others))
        if key not in cache:
            if "kernel" not in cache:
                cache["kernel"] = players_kernel(model, win)
            cache[key] = players_turn_values(model, win, key[1:], cache["kernel"])[0]
        return cache[key]
    b = min(to_units(leading_opponents(state.scores, state.player, 1)[0]), top)
    a = min(me, top)
    if rules.end == "immediate":
        key = ("race", a, b)
        if key not in cache:
            cache[key] = race_turn_values(model.turn, win, a, b)
        return cache[key]
    # finish_round: is a player seated after me in this round (then my reaching the target
    # gives him a last turn, like the first seat of two)?
    seat = 0 if rules.end == "last_turn" or state.player < n - 1 else 1
    key = ("ends", seat, a, b)
    if key not in cache:
        second = table["win_second"] if rules.end == "finish_round" else win
        cache[key] = end_race_turn_values(model, win, second, table["final"], seat, a, b)
    return cache[key]


def rank(game: KockaGame, table: Table, state: KockaState) -> list[Decision]:
    """Every legal action at a decision state, best first, valued by ``table``:

    * ``winprob`` / ``winprob3``: P(win) of the player to move (:func:`win_turn_values`
      says where it is exact); detail ``ev``: expected points banked this turn;
    * ``turn_ev``: expected points banked this turn; detail none.
    """
    rules = kocka_rules_of(game)
    model = kocka_model(rules)
    phase = model.turn.phase_index(to_units(state.scores[state.player]))
    if table.meta.kind in WIN_KINDS:
        return _decisions(game, state, win_turn_values(game, table, state), {"ev": _cached_ev(rules, phase)})
    if table.meta.kind == "turn_ev":
        return _decisions(game, state, ev_table_values(model, table, phase), {})
    raise TableError(f"kocka rank needs a winprob, winprob3 or turn_ev table, got {table.meta.kind!r}")


def rank_by_turn_ev(game: KockaGame, state: KockaState) -> list[Decision]:
    """Every legal action at a decision state, best first, valued by the expected points
    banked this turn (computed for the rules, no stored table needed)."""
    rules = kocka_rules_of(game)
    phase = kocka_model(rules).turn.phase_index(to_units(state.scores[state.player]))
    return _decisions(game, state, _cached_ev(rules, phase), {})


def rank_with_details(game: KockaGame, table: Table, state: KockaState) -> list[Decision]:
    """As :func:`rank` with a ``winprob`` table, with two details per action: ``ev``
    (expected points banked this turn if the rest of it maximises them) and
    ``reach_target`` (P(this turn banks the points still needed to reach the target))."""
    rules = kocka_rules_of(game)
    if table.meta.kind not in WIN_KINDS:
        raise TableError(f"kocka rank_with_details needs a winprob table, got {table.meta.kind!r}")
    model = kocka_model(rules)
    phase = model.turn.phase_index(to_units(state.scores[state.player]))
    need = to_units(game.points_to_target(state))
    reach = _cached_reach(rules, phase, max(1, min(need, model.goal)))
    return _decisions(game, state, win_turn_values(game, table, state),
                      {"ev": _cached_ev(rules, phase), "reach_target": reach})


__all__ = ["MANY_PLAYER_KINDS", "WIN_KINDS", "leading_opponent_seats", "leading_opponents", "rank", "rank_by_turn_ev", "rank_with_details", "win_table_kind", "win_turn_values"]
