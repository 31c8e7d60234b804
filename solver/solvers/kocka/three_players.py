"""The Kocka game of three or four players under ``kocka.end = immediate``, every player
maximising his own chance to win.

The rotation classes of banked scores ({(x, y, z), (y, z, x), (z, x, y)} with three
players, the four rotations of (w, x, y, z) with four) are solved in decreasing total (score
layers) by the Cython kernel, Newton steps on each class (a bank raises one score; only a
bust stays in the class). In a class whose best responses cycle there is no pure
equilibrium: :func:`resolve_class` settles it with mixed play. A runner solves the classes
of one total: :class:`LocalClassRunner` on this machine's OpenMP threads, or
:class:`~kocka.solver.solvers.kocka.dask_runner.DaskClassRunner` over a dask cluster. One
walk serves both player counts: three-player results are those of the former
three-player-only kernel, bit for bit.
"""
from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from kocka.solver.base.errors import InvalidStateError, RulesError
from kocka.solver.kernels import _kocka
from kocka.solver.solvers.kocka.kocka_turn import KockaModel
from kocka.solver.solvers.kocka.turn_model import TurnValues

THREE_MAX_ITER = 60
"""Newton steps per rotation class before it counts as a cycle (then
:func:`resolve_class` looks for mixed play)."""
MIX_GAIN_TOL = 1e-12
"""What a pure deviation may gain in a resolved class (the equilibrium check)."""


def players_kernel(model: KockaModel, win: np.ndarray) -> Any:
    """The kernel of :mod:`_kocka` bound to the table ``win`` of n = 3 or 4 players, shape
    (goal,) * n + (n,): the pruned turn and the one with every set-aside a choice, with the
    game's winning kind."""
    return _kocka.ManyPlayerKernel(model.turn.race_turn(model.win_kind), model.turn_full.race_turn(model.win_kind),
                                   win, bool(win.flags.writeable))


three_player_kernel = players_kernel
"""The kernel bound to a three-player table (the name its callers know)."""


def classes_with_total(goal: int, total: int, players: int = 3) -> np.ndarray:
    """The rotation classes of ``players`` banked scores below ``goal`` adding up to
    ``total``, each as its smallest rotation (lexicographic), shape (n, players) int32, in
    lexicographic order."""
    lead = np.meshgrid(*[np.arange(goal)] * (players - 1), indexing="ij")
    lead = [a.ravel() for a in lead]
    last = total - sum(lead)
    keep = (last >= 0) & (last < goal)
    cols = [a[keep].astype(np.int64) for a in lead] + [last[keep].astype(np.int64)]

    def code(order: Sequence[np.ndarray]) -> np.ndarray:
        out = np.zeros_like(cols[0])
        for a in order:
            out = out * goal + a
        return out

    own = code(cols)
    canonical = np.ones(len(own), dtype=bool)
    for r in range(1, players):
        canonical &= own <= code(cols[r:] + cols[:r])
    return np.ascontiguousarray(np.stack([a[canonical] for a in cols], axis=1).astype(np.int32))


def class_count(goal: int, players: int) -> int:
    """How many rotation classes the scores below ``goal`` form (Burnside: the rotation by
    r fixes goal^gcd(r, n) positions)."""
    return sum(goal ** math.gcd(r, players) for r in range(players)) // players


def rotate(u: np.ndarray) -> np.ndarray:
    """Values in the order of the next position (the mover's successor first) in the
    order of this one: (P u)_c = u_{c-1}."""
    return np.roll(np.asarray(u), 1)


def _cycle(R: Sequence[np.ndarray], beta: Sequence[float]) -> list[np.ndarray]:
    """W_i = R_i + beta_i P W_{i+1} around a rotation class of ``len(R)`` positions (P^n = 1
    for n players): the sum of the n terms b_i .. b_{i+k-1} P^k R_{i+k}, over 1 - the
    product of the n betas."""
    n, players = len(R), len(R[0])
    d = 1.0 - float(np.prod([beta[i % n] for i in range(players)]))
    out = []
    for i in range(n):
        acc, coef = R[i], 1.0
        for k in range(1, players):
            coef = beta[i] if k == 1 else coef * beta[(i + k - 1) % n]
            acc = acc + coef * np.roll(R[(i + k) % n], k)
        out.append(acc / d)
    return out


@dataclass(frozen=True)
class MixedClass:
    """A rotation class whose best responses cycle (no pure equilibrium):
    ``states`` the positions (mover first), ``probabilities[i]`` the chance that the mover
    of state i plays his first turn policy (None: a pure policy), ``gain`` the most a pure
    deviation gains at the stored values, ``policies`` how many distinct turn policies
    each mover took while the Newton steps cycled."""

    states: tuple[tuple[int, ...], ...]
    probabilities: tuple[float | None, ...]
    gain: float
    policies: tuple[int, ...]
    resolved: bool

    def to_json(self) -> dict[str, Any]:
        return {"states": [list(s) for s in self.states], "probabilities": list(self.probabilities),
                "gain": self.gain, "policies": list(self.policies), "resolved": self.resolved}


def _class_states(cls: Sequence[int]) -> list[tuple[int, ...]]:
    """The distinct positions of the rotation class of ``cls``, ``cls`` first."""
    s = tuple(int(v) for v in cls)
    out = [s]
    for r in range(1, len(s)):
        nxt = s[r:] + s[:r]
        if nxt == s:
            break
        out.append(nxt)
    return out


def class_gain(kernel: Any, win: np.ndarray, states: Sequence[tuple[int, ...]]) -> float:
    """The most any mover of the class gains by his best pure turn policy over the stored
    values (0 at an equilibrium, up to rounding)."""
    n = len(states)
    gain = 0.0
    for i, s in enumerate(states):
        X = rotate(win[states[(i + 1) % n]])
        best = kernel.evaluate(*s, *X)[0]
        gain = max(gain, best - float(win[s][0]))
    return gain


def resolve_class(kernel: Any, win: np.ndarray, cls: Sequence[int], max_iter: int = 120,
                  rounds: int = 8, mix: bool = True) -> MixedClass:
    """Settle a rotation class whose Newton steps cycled, writing its values into ``win``.

    The movers' best responses chase each other round the cycle: a player nearly
    indifferent between two turn policies moves another's bust value enough to flip that
    one's choice, which flips his back. This replays the steps and collects the turn
    policies each mover takes (as the affine values ``R + beta X`` they give). It then
    tries, for every mover, each of his policies pure, or a mix of two of them with the
    probability that makes him exactly indifferent (the cycle stays linear for fixed
    probabilities: Newton on those probabilities), fewest mixes first. Each candidate is
    checked with full turn evaluations: it stands when no mover gains more than
    :data:`MIX_GAIN_TOL` by any pure policy. If none stands, the best responses at the
    closest candidate join the policies and the search repeats (``rounds`` times).
    ``mix=False`` tries pure play only and stores the closest pure candidate (to measure
    what the mixing changes)."""
    states = _class_states(cls)
    n = len(states)
    W = [win[s].copy() for s in states]
    options: list[list[tuple[np.ndarray, float]]] = [[] for _ in range(n)]
    orbit: list[list[int]] = [[] for _ in range(n)]

    def remember(i: int, R: np.ndarray, beta: float) -> int:
        for j, (R2, b2) in enumerate(options[i]):
            if abs(b2 - beta) <= 1e-13 and np.max(np.abs(R2 - R)) <= 1e-13:
                return j
        options[i].append((R, beta))
        return len(options[i]) - 1

    def respond(i: int, W_: Sequence[np.ndarray]) -> tuple[np.ndarray, float, float, float]:
        X = rotate(W_[(i + 1) % n])
        *v, beta, lo, hi = kernel.evaluate(*states[i], *X)
        return np.array(v) - beta * X, beta, lo, hi

    for _ in range(max_iter):
        evs = [respond(i, W) for i in range(n)]
        for i, (R, beta, _lo, _hi) in enumerate(evs):
            orbit[i].append(remember(i, R, beta))
        new = _cycle([e[0] for e in evs], [e[1] for e in evs])
        inside = all(-evs[i][2] <= new[(i + 1) % n][-1] - W[(i + 1) % n][-1] <= evs[i][3] for i in range(n))
        W = new
        if inside:
            for st, w in zip(states, W):
                win[st] = w
            return MixedClass(tuple(states), (None,) * n, class_gain(kernel, win, states), (1,) * n, True)
    # keep the policies of the orbit the steps ended in
    keep = [sorted(set(o[-24:])) for o in orbit]
    options = [[options[i][j] for j in keep[i]] for i in range(n)]

    def store(Ws: Sequence[np.ndarray]) -> float:
        for st, w in zip(states, Ws):
            win[st] = w
        return class_gain(kernel, win, states)

    best: tuple[float, list[np.ndarray], tuple] | None = None
    tried: set[tuple] = set()
    for _ in range(rounds):
        plays = []
        for i in range(n):
            pure = [(j, j) for j in range(len(options[i]))]
            plays.append(pure + (list(itertools.combinations(range(len(options[i])), 2)) if mix else []))
        combos = sorted((c for c in itertools.product(*plays) if c not in tried), key=lambda c: sum(a != b for a, b in c))
        candidates: list[tuple[float, list[np.ndarray], tuple]] = []
        for combo in combos:
            tried.add(combo)
            switching = [i for i in range(n) if combo[i][0] != combo[i][1]]
            found = _mix(options, combo, switching)
            if found is None:
                continue
            probs, Ws = found
            gain = store(Ws)
            if gain <= MIX_GAIN_TOL:
                return MixedClass(tuple(states), probs, gain, tuple(len(o) for o in options), True)
            candidates.append((gain, Ws, probs))
        candidates.sort(key=lambda c: c[0])
        if candidates and (best is None or candidates[0][0] < best[0]):
            best = candidates[0]
        # the best responses where the search came closest become options too (a mover's
        # policy between his two may be the one that is best at a mixed point)
        grew = False
        for _gain, Ws, _probs in candidates[:40]:
            store(Ws)
            for i in range(n):
                R, beta, _lo, _hi = respond(i, Ws)
                size = len(options[i])
                remember(i, R, beta)
                grew |= len(options[i]) > size
        if not grew:
            break
    if best is None:  # no candidate at all: keep the last Newton iterate
        best = (float("inf"), W, (None,) * n)
    gain = store(best[1])
    return MixedClass(tuple(states), best[2], gain, tuple(len(o) for o in options), False)


def _mix(options: Sequence[Sequence[tuple[np.ndarray, float]]], plays: Sequence[tuple[int, int]],
         switching: Sequence[int]) -> tuple[tuple[float | None, ...], list[np.ndarray]] | None:
    """Mover i plays ``options[i][plays[i][0]]`` with probability p_i, else
    ``options[i][plays[i][1]]`` (pure when they are the same). Solve for the p_i of the
    ``switching`` movers that make each of them indifferent; None if Newton finds none in
    [0, 1]. Returns the probabilities (None for a pure mover) and the class's values."""
    n = len(options)

    def values(p: np.ndarray) -> list[np.ndarray]:
        R, beta = [], []
        for i in range(n):
            (Ra, ba), (Rb, bb) = options[i][plays[i][0]], options[i][plays[i][1]]
            q = p[switching.index(i)] if i in switching else 1.0
            R.append(q * Ra + (1 - q) * Rb)
            beta.append(q * ba + (1 - q) * bb)
        return _cycle(R, beta)

    if not switching:
        return (None,) * n, values(np.zeros(0))

    def gaps(p: np.ndarray) -> np.ndarray:
        Ws = values(p)
        out = []
        for i in switching:
            (Ra, ba), (Rb, bb) = options[i][plays[i][0]], options[i][plays[i][1]]
            X0 = Ws[(i + 1) % n][-1]
            out.append((Ra[0] + ba * X0) - (Rb[0] + bb * X0))
        return np.array(out)

    k = len(switching)
    starts = [np.full(k, 0.5)] + [np.array(c) for c in itertools.product((0.15, 0.5, 0.85), repeat=k)]
    for p in starts:
        p = _newton(gaps, p)
        if p is not None:
            probs = tuple(float(p[switching.index(i)]) if i in switching else None for i in range(n))
            return probs, values(p)
    return None


def _newton(gaps: Callable[[np.ndarray], np.ndarray], p: np.ndarray) -> np.ndarray | None:
    """A root of ``gaps`` in [0, 1]^k from ``p`` (Newton, central-difference Jacobian),
    or None."""
    for _ in range(40):
        f = gaps(p)
        if np.max(np.abs(f)) < 1e-16:
            break
        jac = np.empty((len(p), len(p)))
        for j in range(len(p)):
            h = np.zeros(len(p))
            h[j] = 1e-6
            jac[:, j] = (gaps(p + h) - gaps(p - h)) / 2e-6
        try:
            p = p - np.linalg.solve(jac, f)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(p)) or np.max(np.abs(p)) > 1e3:
            return None
    if not (np.all(p >= -1e-9) and np.all(p <= 1 + 1e-9)) or np.max(np.abs(gaps(p))) > 1e-14:
        return None
    return np.clip(p, 0.0, 1.0)


@dataclass(frozen=True)
class PlayersSolution:
    """``win[s_0, .., s_{n-1}, i]``: P(player i of the order wins) at banked units s, s_0
    to move, s_1 next and so on (i = 0 .. n-1), every player maximising his own chance."""

    win: np.ndarray
    seconds: float
    classes: int
    turn_evaluations: int
    turn_rows: int
    full_evaluations: int
    mixed: tuple[MixedClass, ...]

    @property
    def start(self) -> tuple[float, ...]:
        """P(seat 1 / 2 / .. wins) from the start (seat 1 moves first)."""
        return tuple(float(v) for v in self.win[(0,) * (self.win.ndim - 1)])

    @property
    def unresolved(self) -> int:
        return sum(not m.resolved for m in self.mixed)


class LocalClassRunner:
    """Solves the rotation classes of one total on this machine's OpenMP threads."""

    def __init__(self, model: KockaModel, win: np.ndarray, threads: int) -> None:
        self.kernel = players_kernel(model, win)
        self.threads = max(1, threads)

    def solve(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(status, rows, full)`` per class (see ``ManyPlayerKernel.solve_classes``)."""
        status = np.empty(len(classes), dtype=np.int32)
        rows = np.empty(len(classes), dtype=np.int64)
        full = np.empty(len(classes), dtype=np.int64)
        self.kernel.solve_classes(classes, status, rows, full, 1e-13, THREE_MAX_ITER, self.threads)
        return status, rows, full

    def publish(self, states: np.ndarray, values: np.ndarray) -> None:
        """Values settled elsewhere (resolved classes); the local table already holds them."""

    def close(self) -> None:
        pass


def solve_players(model: KockaModel, players: int, threads: int = 1, runner: Any = None,
                  progress: Callable[[int], None] | None = None, mix: bool = True) -> PlayersSolution:
    """Solve the game of ``players`` = 3 or 4 under ``kocka.end = immediate`` exactly.

    Rotation classes are solved in decreasing total of the scores (a bank raises one score;
    only a bust stays in the class), those of one total in parallel by ``runner``
    (default: :class:`LocalClassRunner` on ``threads`` OpenMP threads; the dask backend
    passes one that spreads them over a cluster). Classes whose Newton steps cycle are
    settled by :func:`resolve_class` (``mix=False``: pure play only, for comparison).
    ``progress(n)`` is told each time n more classes are done."""
    rules = model.rules
    if rules.end != "immediate":
        raise RulesError(f"the {players}-player table covers kocka.end='immediate' only, got {rules.end!r}")
    if players not in (3, 4):
        raise RulesError(f"the many-player solver takes 3 or 4 players, got {players!r}")
    goal = model.goal
    win = np.zeros((goal,) * players + (players,))
    own_runner = runner is None
    if own_runner:
        runner = LocalClassRunner(model, win, threads)
    else:
        runner.attach(model, win)
    kernel = players_kernel(model, win)
    start = time.perf_counter()
    evals = rows = full = n_classes = 0
    mixed: list[MixedClass] = []
    try:
        for total in range(players * (goal - 1), -1, -1):
            classes = classes_with_total(goal, total, players)
            status, done, with_all = runner.solve(classes)
            n_classes += len(classes)
            evals += int(np.abs(status).sum())
            rows += int(done.sum())
            full += int(with_all.sum())
            failed = classes[status < 0]
            if len(failed):
                settled = [resolve_class(kernel, win, c, mix=mix) for c in failed]
                mixed.extend(settled)
                states = np.array([s for m in settled for s in m.states], dtype=np.int32)
                runner.publish(states, win[tuple(states.T)])
            if progress is not None:
                progress(len(classes))
    finally:
        if not own_runner:
            runner.close()
    return PlayersSolution(win, time.perf_counter() - start, n_classes, evals, rows, full, tuple(mixed))


def solve_three(model: KockaModel, threads: int = 1, runner: Any = None,
                progress: Callable[[int], None] | None = None, mix: bool = True) -> PlayersSolution:
    """The three-player game (:func:`solve_players` with 3)."""
    return solve_players(model, 3, threads, runner, progress, mix)


def solve_four(model: KockaModel, threads: int = 1, runner: Any = None,
               progress: Callable[[int], None] | None = None, mix: bool = True) -> PlayersSolution:
    """The four-player game (:func:`solve_players` with 4)."""
    return solve_players(model, 4, threads, runner, progress, mix)


def players_turn_values(model: KockaModel, win: np.ndarray, scores: Sequence[int],
                        kernel: Any = None) -> tuple[TurnValues, np.ndarray]:
    """The turn of the mover at ``scores`` (units, in turn order from the mover), valued by
    the table of ``len(scores)`` players: his P(win) as :class:`TurnValues`, and
    ``others[j, t, slot]``, the P(win) of the player j + 1 seats after him under his
    choices."""
    goal = model.goal
    s = tuple(scores)
    if len(s) != win.ndim - 1 or not all(0 <= v < goal for v in s):
        raise InvalidStateError(f"{win.ndim - 1} scores below the goal of {goal} units are needed, got {s!r}")
    kernel = kernel if kernel is not None else players_kernel(model, win)
    n = len(s)
    arrays = tuple(np.zeros((kernel.rows, kernel.n_cols)) for _ in range(n + 1))
    X = rotate(win[s[1:] + s[:1]])
    *_, cap = kernel.evaluate(*s, *X, values=arrays)
    tm = model.turn_full
    phase = tm.phase_index(s[0])
    tv = TurnValues(tm, tm.phases[phase], arrays[0], arrays[n], cap, "goal", float(X[0]), 1.0, model.win_kind)
    return tv, np.stack(arrays[1:n])


def three_turn_values(model: KockaModel, win: np.ndarray, x: int, y: int, z: int,
                      kernel: Any = None) -> tuple[TurnValues, np.ndarray]:
    """:func:`players_turn_values` of the three-player table at (x, y, z)."""
    return players_turn_values(model, win, (x, y, z), kernel)


__all__ = [
    "MIX_GAIN_TOL", "THREE_MAX_ITER", "LocalClassRunner", "MixedClass", "PlayersSolution",
    "class_count", "class_gain", "classes_with_total", "players_kernel", "players_turn_values", "resolve_class", "rotate", "solve_four", "solve_players",
    "solve_three", "three_player_kernel", "three_turn_values",
]
