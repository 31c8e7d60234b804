"""``adaptive`` for Kocka: learns how each opponent banks and plays the best reply to it.

**What it assumes.** Every opponent plays one fixed policy of a small family
(:data:`HYPOTHESES`): the catalogue's rule bots (``heuristic``, ``cautious``, ``bold``,
:mod:`kocka.agents.bots.heuristic`), three threshold players (the heuristic's set-asides,
banking once the turn total reaches 500, 1000 or 1500 points, or when the bank wins), and
the equilibrium (``optimal``) itself. Each decision an opponent makes at the table
(:meth:`observe`) updates his posterior over the family: likelihood ``1 - ERROR_RATE``
when a hypothesis makes the same choice in the same position, ``ERROR_RATE`` shared among
the other legal actions otherwise, so no hypothesis ever reaches zero.

**What it plays.** The equilibrium move (agent ``optimal``) until the opponent it races
is *fitted*: his most likely hypothesis holds at least :data:`CONFIDENT` of the posterior
after at least :data:`MIN_DECISIONS` decisions with a choice, and explains at least
:data:`MIN_AGREEMENT` of them (a model check: a player outside the family is never
fitted). Then, when the fit is not the equilibrium itself, it plays by the best reply
table against that policy (:mod:`kocka.solver.solvers.kocka.best_reply`: the opponent's
exact turn outcomes under the policy, :mod:`kocka.solver.solvers.kocka.policy_turns`,
and the race solved one-sided). With two players the opponent raced is the other one.
With three, once both opponents are fitted to policies other than the equilibrium and
their joint table is at hand (Cost, below), it plays the exact joint best reply to the
two (the next player's and the last one's turn chains, every score triple solved
one-sided: :func:`best_reply_three_table`); while only one is fitted, or one is fitted to
the equilibrium (whose turns depend on all three scores), and with four or more players,
it races the leading opponent when he is fitted (as ``leader`` does; not exact there: the
others are left out of the table). Under ``kocka.end`` other than ``immediate`` it always
plays the equilibrium move.

**Cost.** Per fitted policy and rules, once: the turn outcomes (about 16 s CPU per phase
at the default rules) and the two-player table (about 7 s); per ordered pair of fitted
policies at a three-player table, the joint table (8,000,000 score triples, 1.24 turn
evaluations each: about 1,400 s CPU, 15 minutes on two cores with other work beside it, at
the default rules; 64 MB), computed only where missing tables may be built
(``--build-missing``: else, until it is in the cache, the agent races the leader); all
kept in memory and in the table cache (``kocka-adaptive-*.npz``). Per move: one turn
evaluation (0.1 ms) after the first in a position, plus, per opponent decision seen, the
choice of each of the seven hypotheses.

Memory lasts one game (:meth:`reset` forgets it, and the seats rotate between games).
"""
from __future__ import annotations

import hashlib
import math
import os
import pathlib
import sys
import zipfile
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from kocka.agents.bots.base import Agent, Event
from kocka.agents.bots.catalogue import AgentOptions, kocka_optimal
from kocka.agents.bots.heuristic import KockaBold, KockaCautious, KockaHeuristic
from kocka.solver.base.decision import Decision
from kocka.solver.base.table_file import default_cache_dir
from kocka.solver.rules import CHANCE, Game
from kocka.solver.rules.kocka import KockaGame
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.best_reply import (
    BestReply, BestReplyThree, best_reply_three_turn_values, best_reply_turn_values, solve_best_reply,
    solve_best_reply_three,
)
from kocka.solver.solvers.kocka.kocka_turn import kocka_model, to_units
from kocka.solver.solvers.kocka.policy_turns import policy_turn_outcomes
from kocka.solver.solvers.kocka.prospects import action_prospects, prospect_value
from kocka.solver.solvers.kocka.ranking import leading_opponent_seats

ERROR_RATE = 0.03
"""P(a player departs from his policy at one decision), shared among the other actions."""

CONFIDENT = 0.95
"""Posterior mass of the best hypothesis from which the agent plays the best reply."""

MIN_DECISIONS = 4
"""Decisions with a choice seen of an opponent before he can be fitted."""

MIN_AGREEMENT = 0.9
"""Share of an opponent's decisions the fitted hypothesis must have made the same way."""

TABLE_VERSION = 1
"""Part of the cached tables' names: raise it when the way they are computed changes."""


class ThresholdPlayer(KockaHeuristic):
    """The heuristic's set-asides, banking once the turn total reaches ``threshold``
    points whatever the dice left (or when the bank wins)."""

    threshold = 0

    def __init__(self, game: Game, seed: int = 0) -> None:
        super().__init__(game, seed)
        self.BANK_THRESHOLD = {left: self.threshold for left in range(1, 6)}


def threshold_player(points: int) -> type[ThresholdPlayer]:
    return type(f"Threshold{points}", (ThresholdPlayer,), {"threshold": points, "name": f"bank-{points}"})


@dataclass(frozen=True)
class Hypothesis:
    """One policy an opponent may play: ``make(game)`` builds it as an agent of ``game``;
    ``equilibrium``: the equilibrium itself, whose best reply is the equilibrium move."""

    name: str
    make: Callable[[Game, AgentOptions], Agent]
    equilibrium: bool = False


def _bot(cls: type[Agent]) -> Callable[[Game, AgentOptions], Agent]:
    return lambda game, options: cls(game, 0)


HYPOTHESES: tuple[Hypothesis, ...] = (
    Hypothesis("heuristic", _bot(KockaHeuristic)),
    Hypothesis("cautious", _bot(KockaCautious)),
    Hypothesis("bold", _bot(KockaBold)),
    *(Hypothesis(f"bank-{t}", _bot(threshold_player(t))) for t in (500, 1000, 1500)),
    Hypothesis("equilibrium", lambda game, options: kocka_optimal(game, 0, options), equilibrium=True),
)


class OpponentFit:
    """The posterior over :data:`HYPOTHESES` of one opponent (log weights, uniform prior)."""

    def __init__(self, count: int) -> None:
        self.log_weight = np.zeros(count)
        self.agreed = np.zeros(count, dtype=np.int64)
        self.decisions = 0

    def update(self, predicted: list[bool], actions: int) -> None:
        """One decision among ``actions`` legal ones; ``predicted[h]``: did hypothesis h
        choose what the opponent chose?"""
        hit = np.asarray(predicted, dtype=bool)
        self.log_weight += np.where(hit, math.log(1.0 - ERROR_RATE), math.log(ERROR_RATE / (actions - 1)))
        self.agreed += hit
        self.decisions += 1

    def posterior(self) -> np.ndarray:
        w = np.exp(self.log_weight - self.log_weight.max())
        return w / w.sum()

    def fitted(self) -> int | None:
        """The index of the fitted hypothesis (see the module docstring), or ``None``."""
        if self.decisions < MIN_DECISIONS:
            return None
        post = self.posterior()
        best = int(np.argmax(post))
        if post[best] < CONFIDENT or self.agreed[best] < MIN_AGREEMENT * self.decisions:
            return None
        return best


# ----------------------------------------------------------------------------------------
# best reply tables, by (rules, hypothesis): in memory and in the table cache
# ----------------------------------------------------------------------------------------
_TABLES: dict[tuple[KockaRules, str], BestReply] = {}


CACHE_PREFIX = "kocka-adaptive-"
"""The file names of the best reply caches in the table cache: the prefix, the hypothesis,
a digest of the rules and TABLE_VERSION."""


def table_path(rules: KockaRules, hypothesis: str, cache_dir: str | pathlib.Path | None) -> pathlib.Path:
    digest = hashlib.blake2b(f"{TABLE_VERSION}/{rules!r}".encode(), digest_size=6).hexdigest()
    return pathlib.Path(cache_dir or default_cache_dir()) / f"{CACHE_PREFIX}{hypothesis}-{digest}.npz"


def cache_file_description(path: str | pathlib.Path) -> str | None:
    """What ``path`` in the table cache is, when it is one of these best reply caches (not a
    table: no metadata record, computed again when missing or damaged); else None."""
    name = pathlib.Path(path).name
    if not (name.startswith(CACHE_PREFIX) and name.endswith(".npz")):
        return None
    hypothesis = name[len(CACHE_PREFIX):-len(".npz")].rsplit("-", 1)[0]
    opponents = " then ".join(f"'{name}'" for name in hypothesis.split("+"))
    return (f"the Kocka adaptive agent's best reply to {opponents} (a cache for its rules digest, "
            "computed again when missing or damaged)")


def _load(path: pathlib.Path, build: Callable[..., Any], names: tuple[str, ...], shape: tuple[int, ...]) -> Any:
    """A table kept in the cache at ``path`` (``build`` of its arrays, the first of shape
    ``shape``), or None when it is missing, damaged or of another shape (then computed
    again)."""
    if not path.is_file():
        return None
    try:
        with np.load(path) as stored:
            if stored[names[0]].shape != shape:
                return None
            return build(*(stored[name] for name in names))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def _keep(path: pathlib.Path, arrays: dict[str, Any]) -> None:
    """Write a cache file whole (a partial file renamed into place) or not at all."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial.npz")
        np.savez(partial, **arrays)
        partial.replace(path)
    except OSError:
        pass  # a read-only cache: the table stays in memory


def _cores() -> int:
    """The cores this process may run on (every one of them solves the joint table)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else (os.cpu_count() or 1)


def _outcomes(rules: KockaRules, hypothesis: Hypothesis, options: AgentOptions) -> list[Any]:
    """The turn outcomes of ``hypothesis`` in the two phases."""
    return [policy_turn_outcomes(rules, lambda game: hypothesis.make(game, options).choose, high)
            for high in (False, True)]


def best_reply_table(rules: KockaRules, hypothesis: Hypothesis, options: AgentOptions = AgentOptions()) -> BestReply:
    """The best reply table against ``hypothesis`` under ``rules`` (computed once)."""
    key = (rules, hypothesis.name)
    if key in _TABLES:
        return _TABLES[key]
    path = table_path(rules, hypothesis.name, options.cache_dir)
    model = kocka_model(rules)
    table = _load(path, lambda reply, waiting, evaluations: BestReply(reply, waiting, int(evaluations)),
                  ("reply", "waiting", "turn_evaluations"), (model.goal,) * 2)
    if table is None:
        table = solve_best_reply(model.turn, model.goal, _outcomes(rules, hypothesis, options))
        _keep(path, {"reply": table.reply, "waiting": table.waiting, "turn_evaluations": table.turn_evaluations})
    _TABLES[key] = table
    return table


_THREE_TABLES: dict[tuple[KockaRules, str, str], BestReplyThree] = {}
_THREE_UNUSABLE: dict[pathlib.Path, int] = {}
"""Cache files found damaged where none may be built, by modification time: not read again
at every move until they change."""
THREE_TABLES_KEPT = 2
"""Three-player best reply tables kept in memory (64 MB each at the default rules)."""


def best_reply_three_table(rules: KockaRules, next_player: Hypothesis, last_player: Hypothesis,
                           options: AgentOptions = AgentOptions(), threads: int | None = None
                           ) -> BestReplyThree | None:
    """The best reply table of a player followed by ``next_player`` and then ``last_player``
    (three players) under ``rules``, from memory or the table cache; when it is in neither,
    computed (module docstring: minutes, announced on standard error) if
    ``options.build_missing``, else None (the agent then races the leader)."""
    key = (rules, next_player.name, last_player.name)
    if key in _THREE_TABLES:
        return _THREE_TABLES[key]
    path = table_path(rules, f"{next_player.name}+{last_player.name}", options.cache_dir)
    names = ("to_next", "starts", "turn_evaluations")
    model = kocka_model(rules)
    stamp = path.stat().st_mtime_ns if path.is_file() else None
    table = None
    if stamp is not None and _THREE_UNUSABLE.get(path) != stamp:
        table = _load(path, lambda to_next, starts, evaluations: BestReplyThree(to_next, tuple(map(float, starts)),
                                                                                int(evaluations)),
                      names, (model.goal,) * 3)
    if table is None:
        if not options.build_missing:
            if stamp is not None:
                _THREE_UNUSABLE[path] = stamp
            return None
        print(f"computing the adaptive agent's best reply to '{next_player.name}' then '{last_player.name}' "
              f"({path}; about 15 minutes on two cores, once) ...", file=sys.stderr, flush=True)
        table = solve_best_reply_three(model.turn, model.goal, _outcomes(rules, next_player, options),
                                       _outcomes(rules, last_player, options),
                                       threads or _cores())
        _keep(path, dict(zip(names, (table.to_next, np.asarray(table.starts), table.turn_evaluations))))
    while len(_THREE_TABLES) >= THREE_TABLES_KEPT:
        _THREE_TABLES.pop(next(iter(_THREE_TABLES)))
    _THREE_TABLES[key] = table
    return table


# ----------------------------------------------------------------------------------------
# the agent
# ----------------------------------------------------------------------------------------
class AdaptiveKocka(Agent):
    """See the module docstring."""

    name = "adaptive"
    description = "fits each opponent's banking policy at the table and plays the best reply once confident"
    value_name = "P(win)"
    has_memory = True

    def __init__(self, game: Game, seed: int, options: AgentOptions) -> None:
        super().__init__(game, seed)
        self.options = options
        self.equilibrium = kocka_optimal(game, seed, options)
        self.stand_in = self.equilibrium.stand_in
        self.policies = [h.make(game, options) for h in HYPOTHESES]
        self.model = kocka_model(game.rules)
        self._turns: dict[tuple[str, int, int], Any] = {}
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.fits = [OpponentFit(len(HYPOTHESES)) for _seat in range(self.game.num_players)]
        self._before: Any = self.game.new_initial_state()

    def observe(self, event: Event) -> None:
        before, self._before = self._before, event.state
        if event.player == CHANCE or event.player < 0:
            return
        actions = self.game.legal_actions(before)
        if len(actions) < 2:
            return
        predicted = [policy.choose(before) == event.action for policy in self.policies]
        self.fits[event.player].update(predicted, len(actions))

    def fitted(self, seat: int) -> Hypothesis | None:
        """The hypothesis seat ``seat`` is fitted to, or ``None``."""
        index = self.fits[seat].fitted()
        return None if index is None else HYPOTHESES[index]

    def rank(self, state: Any) -> list[Decision]:
        player = self.require_decision(state)
        rules: KockaRules = self.game.rules
        if self.game.num_players < 2 or rules.end != "immediate":
            return self.equilibrium.rank(state)
        top = self.model.goal - 1
        units = [min(to_units(score), top) for score in state.scores]
        joint = self._joint_fit(player)
        three = None if joint is None else best_reply_three_table(rules, *joint, self.options)
        if three is not None:
            seats = [(player + k) % 3 for k in range(3)]
            key: tuple = (joint[0].name, joint[1].name, *(units[seat] for seat in seats))
            fitted = f"{joint[0].name}, {joint[1].name}"

            def turn_values() -> Any:
                return best_reply_three_turn_values(self.model.turn, three, *key[2:])
        else:
            opponent = leading_opponent_seats(state.scores, player, 1)[0]
            hypothesis = self.fitted(opponent)
            if hypothesis is None or hypothesis.equilibrium:
                return self.equilibrium.rank(state)
            key, fitted = (hypothesis.name, units[player], units[opponent]), hypothesis.name

            def turn_values() -> Any:
                table = best_reply_table(rules, hypothesis, self.options)
                return best_reply_turn_values(self.model.turn, table, *key[1:])
        if key not in self._turns:
            if len(self._turns) >= 4096:
                self._turns.clear()
            self._turns[key] = turn_values()
        values = self._turns[key]
        decisions = [Decision(action, prospect_value(values, prospect), label, {"fitted": fitted})
                     for action, prospect, label in action_prospects(self.game, state)]
        decisions.sort(key=lambda d: -d.value)
        return decisions

    def _joint_fit(self, player: int) -> tuple[Hypothesis, Hypothesis] | None:
        """With three players, the fits of the next and the last player when both are
        fitted to a policy other than the equilibrium (whose turns depend on every score,
        so they are no chain of its own): the exact joint best reply then replies to both."""
        if self.game.num_players != 3:
            return None
        fits = [self.fitted((player + k) % 3) for k in (1, 2)]
        if any(fit is None or fit.equilibrium for fit in fits):
            return None
        return fits[0], fits[1]


def adaptive_factory(game: Game, seed: int, options: AgentOptions) -> Agent:
    if not isinstance(game, KockaGame):
        raise TypeError(f"the adaptive Kocka agent plays Kocka, not {game.NAME!r}")
    return AdaptiveKocka(game, seed, options)


__all__ = ["AdaptiveKocka", "HYPOTHESES", "Hypothesis", "OpponentFit", "ThresholdPlayer", "adaptive_factory",
           "best_reply_table", "best_reply_three_table", "table_path", "threshold_player"]
