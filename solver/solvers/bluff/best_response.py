"""The independent best response: one walk of the engine's own game that measures what a
best responder earns against a policy, for every equilibrium of the bluff family (Abázs's
round and match plans, the betting games' round and match plans) and for the bots
(``round_policy`` of agents/bots/bluff_bots.py). It reads the game through its API only
(``new_round_state``, ``is_terminal``, ``current_player``, ``chance_outcomes``,
``legal_actions``, ``apply``, ``observation``) and shares no code with the solvers it checks.

**The walk** (:class:`BestResponseWalk`). A *turn* is the roller's chance nodes and
decisions (his dice, claim and stake, a re-throw) and the answer to his claim; what
follows an answer that does not end the walk is a new turn, whose value is memoised on
its starting state with the claims older than the one to beat dropped: nothing a round
policy decides depends on them (the claimants' dice are gone), and keeping them would
multiply the memoised states by the number of claim sequences leading to each. A seat
whose policy is None best-responds knowing what his seat sees: as roller his own dice and
his whole turn, as answerer the observation of the answering position (he picks one
answer per observation, whatever the roller's hidden dice).

**Arithmetic.** In floats with the engine's chances, or ``exact``: the dice chances as the
fractions they are (k/36, k/216) and the chips in :class:`~fractions.Fraction`, so that an
exact policy gets an exact value (Abázs's round equilibrium is measured at exactly 0).

**Exploitability** (:func:`exploitability`): what a best responder earns against the policy
in each seat, and their mean, what he gains per round over the game's value (half the
NashConv; it needs no value, the seats' values cancel).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Callable, Mapping, Sequence

from kocka.solver.rules.base import CHANCE
from kocka.solver.rules.bluff import BluffState, single_round_game

TurnPolicy = Callable[[BluffState], Mapping[Any, Any]]
"""``policy(state) -> {action: probability}`` at any decision of a round: a claim (with
its stake), a re-throw, an answer (pass or bet; challenge or accept)."""


class RememberingGame:
    """A game class mixin (before the engine's class) that remembers its answers to
    ``apply``, ``legal_actions`` and ``chance_outcomes`` and what a player observes
    (:func:`observation_key`), for a game walked again and again: a measurement in the
    Abázs match walks one round some fifty times (the root search of
    ``abazs_match_exploitability``), and the engine's state checks, copies and JSON, not
    the walk's arithmetic, were most of its time. The answers are functions of the state
    and action alone (frozen states), so a walk gets the same values; keep it to games
    whose positions are few (an Abázs round has a few thousand), since every answer stays
    for the game's life."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._answers: dict[tuple, Any] = {}

    def _remembered(self, key: tuple, answer: Callable[[], Any]) -> Any:
        try:
            return self._answers[key]
        except KeyError:
            value = self._answers[key] = answer()
            return value
        except TypeError:  # unhashable (a roll given as a list): asked afresh
            return answer()

    def apply(self, state: Any, action: Any) -> Any:
        return self._remembered(("apply", state, action), lambda: super(RememberingGame, self).apply(state, action))

    def legal_actions(self, state: Any) -> list:
        legal = self._remembered(("legal", state), lambda: tuple(super(RememberingGame, self).legal_actions(state)))
        return list(legal)  # a list of the caller's own, as the engine gives

    def chance_outcomes(self, state: Any) -> list[tuple[Any, float]]:
        outcomes = self._remembered(("chance", state),
                                    lambda: tuple(super(RememberingGame, self).chance_outcomes(state)))
        return list(outcomes)

    def observation_key(self, state: Any, player: int) -> str:
        """:func:`observation_key`, remembered."""
        return self._remembered(("seen", state, player), lambda: _observed(self, state, player))


def observation_key(game: Any, state: BluffState, player: int) -> str:
    """What ``player`` sees of ``state`` (the engine's observation) as one string: a best
    answerer's information set."""
    return game.observation_key(state, player) if isinstance(game, RememberingGame) else _observed(game, state, player)


def _observed(game: Any, state: BluffState, player: int) -> str:
    return json.dumps(game.observation(state, player), sort_keys=True)


def exact_chances(game: Any, state: BluffState) -> list[tuple[Any, Fraction]]:
    """The engine's chance outcomes with their chances as exact fractions (dice chances
    are k/36 or k/216, which 1296 divides)."""
    return [(o, Fraction(p).limit_denominator(1296)) for o, p in game.chance_outcomes(state)]


class BestResponseWalk:
    """Expected result of ``player`` from a state when seat s plays ``policies[s]``; a None
    seat best-responds (module docstring). The walk ends where ``stop(state)`` holds (by
    default where the game or its first round is over) and is worth ``terminal(state)``
    there (by default the player's chips moved since the start, ``state.initial``)."""

    def __init__(self, game: Any, policies: Sequence[TurnPolicy | None], player: int,
                 terminal: Callable[[BluffState], Any] | None = None, exact: bool = False,
                 stop: Callable[[BluffState], bool] | None = None) -> None:
        self.game, self.policies, self.player = game, list(policies), player
        self.terminal, self.exact, self.stop = terminal, exact, stop
        # reach starts at one and a best answerer's earnings at zero, in the walk's arithmetic:
        # a float would turn an exact walk's fractions into floats
        self.one, self.zero = (1, 0) if exact else (1.0, 0.0)
        self.memo: dict[BluffState, Any] = {}

    def chances(self, state: BluffState) -> list[tuple[Any, Any]]:
        return exact_chances(self.game, state) if self.exact else self.game.chance_outcomes(state)

    def ended(self, state: BluffState) -> bool:
        if self.stop is not None:
            return self.stop(state)
        return self.game.is_terminal(state) or state.rounds >= 1

    def after(self, state: BluffState) -> Any:
        """The player's result from ``state`` on: the walk is over, or a turn starts."""
        game = self.game
        if self.ended(state):
            if self.terminal is not None:
                return self.terminal(state)
            moved = state.chips[self.player] - state.initial[self.player]
            return Fraction(moved) if self.exact else float(moved)
        if state.phase == "public":  # liar's poker: the round's public roll
            return sum(p * self.after(game.apply(state, o)) for o, p in self.chances(state))
        key = replace(state, history=state.history[-1:])  # older claims cannot matter
        if key not in self.memo:
            self.memo[key] = self.turn(key)
        return self.memo[key]

    def turn(self, state: BluffState) -> Any:
        roller = state.active
        if self.policies[roller] is None:
            return self.best(state)
        buckets: dict[str, dict[Any, Any]] = {}
        total = self.follow(state, self.one, buckets)
        return total + sum(max(earned.values()) for earned in buckets.values())

    def best(self, state: BluffState) -> Any:
        """The best-responding roller's value of his turn from ``state``."""
        game = self.game
        if game.current_player(state) == CHANCE:
            return sum(p * self.best(game.apply(state, o)) for o, p in self.chances(state))
        if state.phase == "answer":
            answers = self.policies[game.current_player(state)](state)
            return sum(q * self.after(game.apply(state, a)) for a, q in answers.items() if q)
        return max(self.best(game.apply(state, a)) for a in game.legal_actions(state))

    def follow(self, state: BluffState, reach: Any, buckets: dict) -> Any:
        """The roller follows his policy; a best-responding answerer's answers are summed
        per observation in ``buckets`` (he picks one answer per observation)."""
        game = self.game
        if game.current_player(state) == CHANCE:
            return sum(self.follow(game.apply(state, o), reach * p, buckets) for o, p in self.chances(state))
        mover = game.current_player(state)
        if state.phase != "answer":
            return sum(self.follow(game.apply(state, a), reach * q, buckets) for a, q in self.policies[mover](state).items() if q)
        if self.policies[mover] is None:
            earned = buckets.setdefault(observation_key(game, state, mover), {})
            for a in game.legal_actions(state):
                earned[a] = earned.get(a, self.zero) + reach * self.after(game.apply(state, a))
            return self.zero
        return sum(reach * q * self.after(game.apply(state, a)) for a, q in self.policies[mover](state).items() if q)


@dataclass(frozen=True)
class Exploitability:
    """Best responses to a policy played in both seats: ``best_response[s]`` is what seat s
    earns by best-responding, ``exploitability`` their mean, what a best responder gains
    per round over the game's value, averaged over the seats."""

    best_response: tuple[Any, Any]
    exploitability: Any

    @property
    def nash_conv(self) -> Any:
        """The sum of the best responses (twice the exploitability)."""
        return self.best_response[0] + self.best_response[1]


def exploitability(game: Any, start: BluffState, policy: TurnPolicy, exact: bool = False,
                   stop: Callable[[BluffState], bool] | None = None) -> Exploitability:
    """:class:`Exploitability` of ``policy`` from ``start`` (seat 0 moves first), each seat's
    best response walked by :class:`BestResponseWalk` against ``policy`` in the other."""
    br = (BestResponseWalk(game, [None, policy], 0, exact=exact, stop=stop).after(start),
          BestResponseWalk(game, [policy, None], 1, exact=exact, stop=stop).after(start))
    return Exploitability(br, (br[0] + br[1]) / 2)


# ----- the betting games' round from given chips -----
def round_game(game: Any, rounds: int = 1) -> Any:
    """The engine game of one round with ``game``'s rules (:func:`single_round_game`: seat
    order 0, 1; chip payoffs; the game ends with the round, or with ``rounds = 2`` where
    the engine's state names the next round's starter, BLUFF-16)."""
    options = {k: v for k, v in game.rules.options().items() if k not in ("seating", "max_rounds", "payoff")}
    return single_round_game(type(game), 2, max_rounds=rounds, **options)


def round_start(walk_game: Any, chips: Sequence[int], public: Sequence[int] | None = None) -> BluffState:
    """The round of ``walk_game`` from ``chips`` (seat 0 starts), after the public roll
    ``public`` when given (liar's poker)."""
    start = walk_game.new_round_state(tuple(chips), starter=0)
    return start if public is None else walk_game.apply(start, tuple(public))


def round_value(game: Any, chips: Sequence[int], policies: Sequence[TurnPolicy | None], player: int = 0,
                public: Sequence[int] | None = None) -> float:
    """Expected chips of seat ``player`` in one round from ``chips`` (seat 0 starts; liar's
    poker after the public roll ``public`` when given) when seat s plays ``policies[s]``
    (None: a best response)."""
    walk_game = round_game(game)
    return BestResponseWalk(walk_game, policies, player).after(round_start(walk_game, chips, public))


def round_exploitability(game: Any, chips: Sequence[int], policy: TurnPolicy,
                         public: Sequence[int] | None = None) -> Exploitability:
    """Exploitability of ``policy`` in one round from ``chips`` (both seats; liar's poker
    after the public roll ``public`` when given)."""
    walk_game = round_game(game)
    return exploitability(walk_game, round_start(walk_game, chips, public), policy)


__all__ = [
    "BestResponseWalk", "Exploitability", "RememberingGame", "TurnPolicy", "exact_chances", "exploitability",
    "observation_key", "round_exploitability", "round_game", "round_start", "round_value",
]  # fmt: skip
