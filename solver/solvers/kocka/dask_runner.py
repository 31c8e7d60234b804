"""The Kocka race of three or four players on a dask cluster (``kocka-solve build kocka
--players 3|4 --backend dask``, or ``--scheduler ADDRESS``): the rotation classes of each
total (score layer) spread over the cluster's workers, each worker holding a copy of the
table that stays bitwise equal to the client's."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from kocka.solver.base.errors import TableError
from kocka.solver.base.parallel import cluster_client
from kocka.solver.rules.kocka_scoring import KockaRules
from kocka.solver.solvers.kocka.kocka_turn import KockaModel, kocka_model
from kocka.solver.solvers.kocka.three_players import LocalClassRunner


class PlayersWorker:
    """A dask actor holding its own copy of the table of ``players`` players: it solves the
    classes it is sent after taking in the values settled since its last call (every
    worker's, and the resolved mixed classes), so every copy stays bitwise equal to the
    client's."""

    def __init__(self, rules: Mapping[str, Any], threads: int = 1, players: int = 3) -> None:
        self.model = kocka_model(KockaRules.from_options(rules))
        goal = self.model.goal
        self.win = np.zeros((goal,) * players + (players,))
        self.runner = LocalClassRunner(self.model, self.win, threads)

    def solve(self, classes: np.ndarray, states: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
        if len(states):
            self.win[tuple(states.T)] = values
        status, rows, full = self.runner.solve(classes)
        return status, rows, full, self.win[tuple(_rotations(classes, self.win.ndim - 1).T)]


def _rotations(classes: np.ndarray, players: int) -> np.ndarray:
    """Every rotation of each class, (players n, players): the classes, then each rotated
    one seat further (a class with fewer distinct positions repeats some)."""
    if not len(classes):
        return np.zeros((0, players), dtype=np.int32)
    return np.concatenate([np.roll(classes, -r, axis=1) for r in range(players)])


class DaskClassRunner:
    """Spreads the classes of each total over the workers of a dask cluster, one
    :class:`PlayersWorker` actor per worker (each with ``threads`` OpenMP threads)."""

    def __init__(self, client: Any, threads: int = 1) -> None:
        self.client = client
        self.threads = max(1, threads)
        self.actors: list[Any] = []

    def attach(self, model: KockaModel, win: np.ndarray) -> None:
        self.win = win
        self.players = win.ndim - 1
        workers = sorted(self.client.scheduler_info()["workers"])
        if not workers:
            raise TableError("the dask cluster has no workers")
        futures = [self.client.submit(PlayersWorker, model.rules.options(), self.threads, self.players, actor=True,
                                      workers=[w], pure=False) for w in workers]
        self.actors = [f.result() for f in futures]
        self.sent = np.zeros((0, self.players), dtype=np.int32)

    def solve(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # the values settled at the previous total (the client's, mixed classes included)
        states = self.sent
        values = self.win[tuple(states.T)]
        chunks = np.array_split(classes, len(self.actors))
        calls = [actor.solve(chunk, states, values) for actor, chunk in zip(self.actors, chunks)]
        results = [c.result() for c in calls]
        for chunk, result in zip(chunks, results):
            self.win[tuple(_rotations(chunk, self.players).T)] = result[3]
        self.sent = _rotations(classes, self.players)
        return tuple(np.concatenate([r[i] for r in results]) for i in range(3))

    def publish(self, states: np.ndarray, values: np.ndarray) -> None:
        """Resolved classes are among the states sent with the next call."""

    def close(self) -> None:
        self.actors = []


def dask_class_runner(threads: int = 1) -> DaskClassRunner:
    """A :class:`DaskClassRunner` on the cluster of ``--backend dask``
    (``$DASK_SCHEDULER_ADDRESS``, or a local cluster)."""
    return DaskClassRunner(cluster_client("dask"), threads=1 if threads is None else threads)


__all__ = ["DaskClassRunner", "PlayersWorker", "dask_class_runner"]
