"""Seeded matches between agents, and the statistics that say who is stronger.

Two kinds of match (:func:`run_arena`):

* **Solitaire scorecard games** (specs with ``outcome = "score"``): every agent plays its own
  one-player card with the same dice seed (common random numbers: the same throw of the
  same turn shows the same dice, :class:`~kocka.agents.bots.base.ChanceSampler`). An agent's
  score is its card total; its *win rate* is its share of the top score in each game (a
  tie among m agents gives each 1/m), and the head-to-head matrix compares every pair over
  the paired games.
* **A scorecard game at one table** (``table=True``, ``kocka arena GAME --table``; for
  agents that watch the other cards, such as ``winner``): one seat per agent, seat order
  rotating as below, and the n rotations of games ``n k .. n k + n - 1`` share each seat's
  dice (common random numbers: every agent plays every seat's dice once).
* **Every other game**: the agents sit at one table, one seat each, and the seat order
  rotates from game to game (game i puts agent ``(s + i) mod n`` in seat s). The score is
  the final banked score (Kocka) or the game's return; the win rate is the game's win
  share (Kocka) or the share of the top return.

Reproducibility: game i draws its chance from ``derive_seed(seed, i)`` and seeds its
agents from ``(seed, i, agent)``, so every game's result depends on ``(seed, i)`` alone.
Games are split into chunks and played with joblib; the results are the same for any
``jobs``.

Confidence intervals (95 %): mean scores use the normal approximation, mean +- 1.96 s /
sqrt(n); win rates use the Wilson score interval with the tie-shared wins counted as
fractional successes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from kocka.agents.bots.base import Agent, ChanceSampler, Event, derive_seed
from kocka.agents.bots.catalogue import AgentOptions, make_agent
from kocka.solver.base.errors import KockaError
from kocka.solver.base.i18n import _, number
from kocka.solver.rules import CHANCE, Game, game_specs

Z95 = 1.959963984540054
"""Two-sided 95 % normal quantile."""

MAX_STEPS = 1_000_000
"""Actions plus rolls one game may take before the arena gives up on it (a random agent
in the basic Polish game can take very long to record its eight combinations)."""


class ArenaError(KockaError):
    """A match that cannot be set up or finished (bad agent list, a game that never ends)."""


class PlotUnavailable(RuntimeError):
    """``--plot`` without matplotlib installed."""


# ----------------------------------------------------------------------------------------
# One game
# ----------------------------------------------------------------------------------------
def play_match(game: Game, seat_agents: Sequence[Agent], sampler: ChanceSampler, max_steps: int = MAX_STEPS) -> Any:
    """Play one game to the end: seat s is played by ``seat_agents[s]``, chance comes
    from ``sampler``; agents with memory get every :class:`Event`. Returns the final state."""
    if len(seat_agents) != game.num_players:
        raise ArenaError(f"{game.NAME} has {game.num_players} seats, got {len(seat_agents)} agents")
    observers = [a for a in seat_agents if a.has_memory]
    state = game.new_initial_state()
    rolls = 0
    for _step in range(max_steps):
        player = game.current_player(state)
        if player == CHANCE:
            action = sampler.sample(game, state, rolls)
            rolls += 1
        elif player >= 0:
            action = seat_agents[player].choose(state)
        else:
            return state
        state = game.apply(state, action)
        for agent in observers:
            agent.observe(Event(player, None if player == CHANCE else action, state))
    names = sorted({a.name for a in seat_agents})
    raise ArenaError(f"{game.NAME}: no end after {max_steps} steps with agents {names!r}")


def final_scores(game: Game, state: Any) -> tuple[float, ...]:
    """Each seat's score at the end (the engine's :meth:`~kocka.solver.rules.base.Game.final_scores`)."""
    return game.final_scores(state)


def win_shares(values: Sequence[float]) -> np.ndarray:
    """1/m to each of the m entries equal to the maximum, 0 to the others."""
    v = np.asarray(values, dtype=float)
    top = v == v.max()
    return top / top.sum()


# ----------------------------------------------------------------------------------------
# Statistics
# ----------------------------------------------------------------------------------------
def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (successes may be fractional, for shared
    wins): centre (p + z^2/2n) / (1 + z^2/n), half-width z sqrt(p(1-p)/n + z^2/4n^2) /
    (1 + z^2/n)."""
    if n <= 0:
        raise ArenaError(f"a proportion needs at least one trial, got n={n!r}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)``: normal-approximation interval mean +- z s / sqrt(n), with s
    the sample standard deviation (n - 1); a single value has a zero-width interval."""
    v = np.asarray(values, dtype=float)
    mean = float(v.mean())
    if len(v) < 2:
        return mean, mean, mean
    half = z * float(v.std(ddof=1)) / math.sqrt(len(v))
    return mean, mean - half, mean + half


def histogram(values: Sequence[float], bins: int, lo: float | None = None, hi: float | None = None) -> tuple[list[float], list[int]]:
    """Counts over ``bins`` equal bins of a "nice" width (1, 2 or 5 x 10^k, at least 1)
    starting at a multiple of that width at or below ``lo``; returns (edges, counts)."""
    v = np.asarray(values, dtype=float)
    lo = float(v.min()) if lo is None else lo
    hi = float(v.max()) if hi is None else hi
    width = _nice_width((hi - lo) / max(bins, 1))
    start = math.floor(lo / width) * width
    n_bins = max(1, int(math.floor((hi - start) / width)) + 1)
    edges = [start + i * width for i in range(n_bins + 1)]
    idx = np.clip(np.floor((v - start) / width).astype(int), 0, n_bins - 1)
    counts = np.bincount(idx, minlength=n_bins)
    return edges, [int(c) for c in counts]


def _nice_width(raw: float) -> float:
    if raw <= 1:
        return 1.0
    exp = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * exp >= raw:
            return float(m * exp)
    return float(10 * exp)


# ----------------------------------------------------------------------------------------
# The arena
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AgentSummary:
    """One agent's figures over the whole arena."""

    label: str
    name: str
    mean: float
    mean_ci: tuple[float, float]
    sd: float
    win_rate: float
    win_ci: tuple[float, float]
    seat_win_rates: tuple[float, ...] = ()


@dataclass(frozen=True)
class ArenaResult:
    """Raw per-game results (``scores[i, a]``, ``wins[i, a]`` and ``seats[i, a]`` of agent
    a in game i) and the summaries derived from them."""

    game: str
    rules: dict
    mode: str
    seed: int
    labels: tuple[str, ...]
    names: tuple[str, ...]
    scores: np.ndarray
    wins: np.ndarray
    seats: np.ndarray
    value_notes: tuple[str, ...] = field(default=())
    series: bool = False

    @property
    def games(self) -> int:
        return int(self.scores.shape[0])

    def summaries(self) -> list[AgentSummary]:
        result = []
        n_seats = self.seats.shape[1] if self.mode == "table" else 1
        for a, (label, name) in enumerate(zip(self.labels, self.names)):
            mean, lo, hi = mean_interval(self.scores[:, a])
            wins = float(self.wins[:, a].sum())
            by_seat = ()
            if self.mode == "table" and n_seats > 1:
                by_seat = tuple(
                    float(self.wins[self.seats[:, a] == s, a].mean()) if (self.seats[:, a] == s).any() else float("nan")
                    for s in range(n_seats)
                )
            result.append(AgentSummary(
                label=label, name=name, mean=mean, mean_ci=(lo, hi),
                sd=float(self.scores[:, a].std(ddof=1)) if self.games > 1 else 0.0,
                win_rate=wins / self.games, win_ci=wilson_interval(wins, self.games), seat_win_rates=by_seat,
            ))
        return result

    def head_to_head(self) -> np.ndarray:
        """``[a, b]``: share of games where agent a scored more than agent b (a tie counts
        1/2); over the paired games of a solitaire arena."""
        n = len(self.labels)
        h2h = np.full((n, n), np.nan)
        for a in range(n):
            for b in range(n):
                if a != b:
                    diff = self.scores[:, a] - self.scores[:, b]
                    h2h[a, b] = float(np.mean((diff > 0) + 0.5 * (diff == 0)))
        return h2h

    def histograms(self, bins: int = 12) -> tuple[list[float], dict[str, list[int]]]:
        """Shared bin edges and each agent's counts."""
        lo, hi = float(self.scores.min()), float(self.scores.max())
        edges: list[float] = []
        counts: dict[str, list[int]] = {}
        for a, label in enumerate(self.labels):
            edges, counts[label] = histogram(self.scores[:, a], bins, lo, hi)
        return edges, counts

    def to_json(self, bins: int = 12) -> dict:
        edges, counts = self.histograms(bins)
        h2h = self.head_to_head()
        return {
            "game": self.game,
            "rules": self.rules,
            "mode": self.mode,
            "games": self.games,
            "seed": self.seed,
            "series": self.series,
            "intervals": {"mean": "normal approximation, 95%", "win_rate": "Wilson score, 95%, ties shared"},
            "agents": [
                {
                    "label": s.label, "agent": s.name, "mean_score": s.mean, "mean_ci": list(s.mean_ci), "sd": s.sd,
                    "win_rate": s.win_rate, "win_ci": list(s.win_ci),
                    **({"win_rate_by_seat": list(s.seat_win_rates)} if s.seat_win_rates else {}),
                    "histogram": counts[s.label],
                }
                for s in self.summaries()
            ],
            "histogram_edges": edges,
            **({"head_to_head": {
                a: {b: h2h[i, j] for j, b in enumerate(self.labels) if i != j} for i, a in enumerate(self.labels)
            }} if self.mode == "solitaire" and len(self.labels) > 1 else {}),
        }

    def render(self, bins: int = 12) -> str:
        """The human-readable report."""
        if self.mode == "solitaire":
            how = _("each agent on its own card, same dice (common random numbers)")
        elif self.game in _scorecard_games():
            how = _("{n} seats, seat order rotating; each seat's dice shared by the {n} rotations (common random numbers)",
                    n=len(self.labels))
        else:
            how = _("{n} seats, seat order rotating", n=len(self.labels))
        if self.series:
            how += "; " + _("one series: the agents keep what they learnt from game to game")
        rules = ", ".join(f"{k}={_short(v)}" for k, v in self.rules.items())
        lines = [_("{game}: {games} games, seed {seed}; {how}", game=self.game, games=self.games, seed=self.seed, how=how),
                 _("rules: {rules}", rules=rules), ""]
        summaries = self.summaries()
        width = max(8, *(len(s.label) for s in summaries))
        heads = (_("agent"), _("mean score"), _("95% CI (normal)"), _("win rate"), _("95% CI (Wilson)"))
        lines.append(f"{heads[0]:<{width}}  {heads[1]:>11}  {heads[2]:>21}  {heads[3]:>8}  {heads[4]:>17}")
        for s in summaries:
            mean_ci = f"{number(s.mean_ci[0], 2):>9} … {number(s.mean_ci[1], 2):>9}"
            win_ci = f"{number(s.win_ci[0], 4)} … {number(s.win_ci[1], 4)}"
            lines.append(f"{s.label:<{width}}  {number(s.mean, 2):>11}  {mean_ci:>21}  {number(s.win_rate, 4):>8}  {win_ci:>17}")
        if self.mode == "table" and len(self.labels) > 1:
            lines += ["", _("win rate by seat (seat 1 plays first):")]
            for s in summaries:
                lines.append(f"  {s.label:<{width}}  " + "  ".join(
                    _("seat {seat}: {rate}", seat=i + 1, rate=number(w, 4)) for i, w in enumerate(s.seat_win_rates)))
        if self.mode == "solitaire" and len(self.labels) > 1:
            h2h = self.head_to_head()
            lines += ["", _("head-to-head over paired games (row scores more than column; ties count 1/2):")]
            lines.append(" " * (width + 2) + "".join(f"{b:>{width + 2}}" for b in self.labels))
            for i, a in enumerate(self.labels):
                cells = "".join(f"{'-' if i == j else number(h2h[i, j], 4):>{width + 2}}" for j in range(len(self.labels)))
                lines.append(f"{a:<{width + 2}}{cells}")
        edges, counts = self.histograms(bins)
        lines += ["", _("score distribution:")]
        peak = max(max(c) for c in counts.values()) or 1
        for label, c in counts.items():
            lines.append(f"  {label}")
            for lo, hi, k in zip(edges, edges[1:], c):
                bar = "#" * max(1 if k else 0, round(40 * k / peak))
                lines.append(f"    [{_num(lo):>7}, {_num(hi):>7})  {bar:<40} {k}")
        lines.extend(self.value_notes)
        return "\n".join(lines)

    def plot(self, path: str, bins: int = 30) -> None:
        """Draw the score distributions to ``path`` (needs matplotlib, ``kocka[plot]``)."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise PlotUnavailable("--plot needs matplotlib: pip install 'kocka[plot]' (or pip install matplotlib)") from None
        edges, counts = self.histograms(bins)
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for label, c in counts.items():
            ax.stairs(c, edges, label=label)
        ax.set_xlabel("final score")
        ax.set_ylabel("games")
        ax.set_title(f"{self.game}: {self.games} games, seed {self.seed}")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


@dataclass(frozen=True)
class PairedGain:
    """The first agent's gain over a baseline agent in its seat, game by game.

    Both arenas play the same games: the same seed, so the same dice (each game's chance
    comes from ``(seed, game)``) and the other agents' same draws (``(seed, game, agent)``);
    only the first agent differs. The gain of game i is the first agent's result minus the
    baseline's in game i, and its interval (95 %, normal approximation) is taken over these
    differences: where the two agents' results move together (``correlation``), it is much
    narrower than the difference of the two arenas' own intervals."""

    agent: str
    baseline: str
    games: int
    score_gain: float
    score_ci: tuple[float, float]
    win_gain: float
    win_ci: tuple[float, float]
    correlation: float
    baseline_mean: float
    baseline_win_rate: float

    def to_json(self) -> dict:
        return {
            "agent": self.agent, "baseline": self.baseline, "games": self.games,
            "score_gain": self.score_gain, "score_gain_ci": list(self.score_ci),
            "win_gain": self.win_gain, "win_gain_ci": list(self.win_ci),
            "score_correlation": self.correlation,
            "baseline_mean_score": self.baseline_mean, "baseline_win_rate": self.baseline_win_rate,
            "interval": "normal approximation over the per-game differences, 95%",
        }

    def render(self) -> str:
        ci = lambda lo, hi, digits: f"{number(lo, digits)} … {number(hi, digits)}"  # noqa: E731
        return "\n".join([
            _("paired with {baseline} in the first seat (the same {games} games: the same dice and the same "
              "opponents' draws):", baseline=self.baseline, games=self.games),
            _("  {baseline}: mean score {mean}, win rate {rate}", baseline=self.baseline,
              mean=number(self.baseline_mean, 2), rate=number(self.baseline_win_rate, 4)),
            _("  gain of {agent} per game: score {gain} (95% CI {ci}), win rate {win} (95% CI {win_ci}); "
              "the two agents' scores correlate {r}", agent=self.agent, gain=number(self.score_gain, 4),
              ci=ci(*self.score_ci, 4), win=number(self.win_gain, 4), win_ci=ci(*self.win_ci, 4),
              r=number(self.correlation, 2)),
        ])


def paired_gain(result: ArenaResult, baseline: ArenaResult) -> PairedGain:
    """Compare two arenas that differ only in their first agent (:class:`PairedGain`)."""
    same = (result.game, result.rules, result.mode, result.seed, result.games, result.names[1:])
    if same != (baseline.game, baseline.rules, baseline.mode, baseline.seed, baseline.games, baseline.names[1:]):
        raise ArenaError("a paired comparison needs two arenas of the same games that differ only in the first agent")
    score_diff = result.scores[:, 0] - baseline.scores[:, 0]
    win_diff = result.wins[:, 0] - baseline.wins[:, 0]
    score_gain, score_lo, score_hi = mean_interval(score_diff)
    win_gain, win_lo, win_hi = mean_interval(win_diff)
    a, b = result.scores[:, 0], baseline.scores[:, 0]
    correlation = float(np.corrcoef(a, b)[0, 1]) if result.games > 1 and a.std() > 0 and b.std() > 0 else float("nan")
    return PairedGain(
        agent=result.labels[0], baseline=baseline.labels[0], games=result.games,
        score_gain=score_gain, score_ci=(score_lo, score_hi), win_gain=win_gain, win_ci=(win_lo, win_hi),
        correlation=correlation, baseline_mean=float(b.mean()), baseline_win_rate=float(baseline.wins[:, 0].mean()),
    )


def _num(x: float) -> str:
    return f"{x:g}"


def _short(v: Any) -> str:
    if isinstance(v, (tuple, list)):
        return ",".join(map(str, v)) if len(v) <= 4 else f"{len(v)} items"
    return str(v)


def agent_labels(names: Sequence[str]) -> tuple[str, ...]:
    """Names as labels; a name used more than once gets ``#1``, ``#2``, ... ."""
    labels = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            labels.append(f"{name}#{names[: i + 1].count(name)}")
        else:
            labels.append(name)
    return tuple(labels)


def _scorecard_games() -> set[str]:
    return {spec.name for spec in game_specs() if spec.outcome == "score"}


def is_solitaire(game: Game) -> bool:
    """Each player's card is independent of the others (within a game's rules), so agents
    are compared on their own cards with common dice."""
    return game.spec().outcome == "score"


def arena_game(game: Game, agents: Sequence[str], table: bool = False) -> tuple[Game, str]:
    """The game actually played and the mode: one seat per agent at one table, or one
    player per card for the solitaire games (unless ``table``: agents that watch the
    other cards, such as ``winner``, need them at one table)."""
    if is_solitaire(game) and not table:
        if game.num_players != 1:
            game = type(game)(game.rules, num_players=1)
        return game, "solitaire"
    lo, hi = game.player_range()
    if not lo <= len(agents) <= hi:
        raise ArenaError(f"{game.NAME} seats {lo}..{hi} players, got {len(agents)} agents {list(agents)!r}")
    if game.num_players != len(agents):
        game = type(game)(game.rules, num_players=len(agents))
    return game, "table"


def _play_chunk(game: Game, mode: str, names: Sequence[str], seed: int, start: int, stop: int,
                options: AgentOptions, series: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    agents = [make_agent(name, game, 0, options) for name in names]
    n = len(names)
    scores = np.zeros((stop - start, n))
    wins = np.zeros((stop - start, n))
    seats = np.zeros((stop - start, n), dtype=np.int64)
    for row, i in enumerate(range(start, stop)):
        for a, agent in enumerate(agents):
            # a series keeps what the agents learnt from game to game: reseeded, not reset;
            # an agent without memory starts each game as it always does
            (agent.reseed if series and row and agent.has_memory else agent.reset)(derive_seed("agent", seed, i, a))
        if mode == "solitaire":
            for a, agent in enumerate(agents):
                state = play_match(game, [agent], ChanceSampler(derive_seed("game", seed, i)))
                scores[row, a] = final_scores(game, state)[0]
            wins[row] = win_shares(scores[row])
        else:
            order = [(s + i) % n for s in range(n)]  # seat s -> agent order[s]
            # scorecard games at one table: the n rotations of a group share each seat's
            # dice (a roll's key names the seat), so every agent meets every seat's dice
            dice_seed = derive_seed("game", seed, i // n) if is_solitaire(game) else derive_seed("game", seed, i)
            state = play_match(game, [agents[a] for a in order], ChanceSampler(dice_seed))
            by_seat = final_scores(game, state)
            shares = win_shares(np.asarray(game.returns(state), dtype=float))  # Kocka's shares stay as they are
            for s, a in enumerate(order):
                scores[row, a] = by_seat[s]
                wins[row, a] = shares[s]
                seats[row, a] = s
    return scores, wins, seats


def _simulated(game: Game, mode: str, names: Sequence[str], seed: int, games: int, jobs: int,
               options: AgentOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_play_chunk`'s results for all the games, played by the agents' compiled
    players (:meth:`~kocka.agents.bots.base.Agent.simulator`, ``jobs`` threads), or ``None``
    when an agent has none. Each seat's card is played alone on the dice the match loop
    gives that seat (the roll keys name the seat), which is the same game for agents that
    look at their own card only, the only ones that have a compiled player. A player that
    ``needs_agent_seeds`` (a level: its games depend on its draws) gets the seed each game
    resets its agent with."""
    if not is_solitaire(game):
        return None
    agents = {name: make_agent(name, game, 0, options) for name in dict.fromkeys(names)}
    players = {name: agent.simulator() for name, agent in agents.items() if not agent.has_memory}
    if len(players) < len(agents) or any(p is None for p in players.values()):
        return None
    n = len(names)
    drawing = {name for name, player in players.items() if getattr(player, "needs_agent_seeds", False)}

    def agent_seeds(a: int, rows: np.ndarray) -> np.ndarray:
        return np.array([derive_seed("agent", seed, int(i), a) for i in rows], dtype=np.int64)

    if mode == "solitaire":
        seeds = np.array([derive_seed("game", seed, i) for i in range(games)], dtype=np.int64)
        by_name = {name: player.scores(seeds, 0, jobs) for name, player in players.items() if name not in drawing}
        rows = np.arange(games)
        scores = np.column_stack([players[name].scores(seeds, 0, jobs, agent_seeds=agent_seeds(a, rows))
                                  if name in drawing else by_name[name] for a, name in enumerate(names)])
        seats = np.zeros((games, n), dtype=np.int64)
    else:  # one table, seat order rotating; the n rotations of a group share each seat's dice
        seeds = np.array([derive_seed("game", seed, g) for g in range(math.ceil(games / n))], dtype=np.int64)
        by_seat = {(name, s): player.scores(seeds, s, jobs) for name, player in players.items() for s in range(n)
                   if name not in drawing}
        scores = np.zeros((games, n))
        seats = np.zeros((games, n), dtype=np.int64)
        for a, name in enumerate(names):
            for s in range(n):
                rows = np.arange((a - s) % n, games, n)  # the games that seat agent a at seat s
                if name in drawing:
                    scores[rows, a] = players[name].scores(seeds[rows // n], s, jobs, agent_seeds=agent_seeds(a, rows))
                else:
                    scores[rows, a] = by_seat[(name, s)][rows // n]
                seats[rows, a] = s
    top = scores == scores.max(axis=1, keepdims=True)  # the scorecard games' returns are the card totals
    return scores, top / top.sum(axis=1, keepdims=True), seats


def run_arena(
    game: Game, agents: Sequence[str], games: int, seed: int, jobs: int = 1,
    options: AgentOptions = AgentOptions(), progress: Callable[[int], None] | None = None, table: bool = False,
    kernels: bool = True, series: bool = False,
) -> ArenaResult:
    """Play ``games`` seeded games between ``agents`` (names in the agent catalogue); see the module
    docstring for the two modes (``table``: a scorecard game at one table). The result
    does not depend on ``jobs``. When every agent has a compiled player of whole games
    (:meth:`~kocka.agents.bots.base.Agent.simulator`: the ``optimal`` agent of the scorecard
    games and its levels) the games are played by it, the same games with the same results; ``kernels=False``
    plays them through the Python engine loop all the same. A ``series`` plays the games in
    order in one process, each agent keeping its memory from game to game (the agents that
    learn the table, e.g. ``adaptive``, over an evening of games; ``jobs`` unused)."""
    names = list(agents)
    if not names:
        raise ArenaError("the arena needs at least one agent")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ArenaError(f"number of games must be a positive integer, got {games!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ArenaError(f"jobs must be a positive integer, got {jobs!r}")
    game, mode = arena_game(game, names, table)
    for name in dict.fromkeys(names):  # fail here, before any worker starts, if one cannot play
        make_agent(name, game, 0, options)
    fast = _simulated(game, mode, names, seed, games, jobs, options) if kernels and not series else None
    chunk = games if series else max(1, math.ceil(games / (jobs * 8)))
    bounds = [(s, min(s + chunk, games)) for s in range(0, games, chunk)]
    if fast is not None:
        parts = [fast]
        if progress:
            progress(games)
    elif jobs == 1 or series:  # a series is one chunk, in order
        parts = []
        for lo, hi in bounds:
            parts.append(_play_chunk(game, mode, names, seed, lo, hi, options, series=series))
            if progress:
                progress(hi - lo)
    else:
        # joblib only when games run in parallel: every `kocka` command imports this module
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=jobs)(
            delayed(_play_chunk)(game, mode, names, seed, lo, hi, options) for lo, hi in bounds
        )
    scores, wins, seats = (np.concatenate([p[k] for p in parts]) for k in range(3))
    return ArenaResult(
        game=game.NAME, rules={k: _jsonable(v) for k, v in game.rules.options().items()}, mode=mode, seed=seed,
        labels=agent_labels(names), names=tuple(names), scores=scores, wins=wins, seats=seats, series=series,
    )


def _jsonable(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v
