"""The three-player Kocka race on a dask cluster (``kocka-solve build kocka --players 3
--backend dask``): the rotation classes of each total spread over the cluster's workers,
each worker holding a copy of the table that stays bitwise equal to the client's."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from kocka.solver.base.errors import TableError
from kocka.solver.base.parallel import cluster_client
from kocka.solver.rules.kocka import KockaRules
from kocka.solver.solvers.kocka.kocka_turn import KockaModel, kocka_model
from kocka.solver.solvers.kocka.three_players import LocalClassRunner


class ThreePlayerWorker:
    """A dask actor holding its own copy of the three-player table: it solves the classes
    it is sent after taking in the values settled since its last call (every worker's,
    and the resolved mixed classes), so every copy stays bitwise equal to the client's."""

    def __init__(self, rules: Mapping[str, Any], threads: int = 1) -> None:
        self.model = kocka_model(KockaRules.from_options(rules))
        goal = self.model.goal
        self.win = np.zeros((goal, goal, goal, 3))
        self.runner = LocalClassRunner(self.model, self.win, threads)

    def solve(self, classes: np.ndarray, states: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
        if len(states):
            self.win[states[:, 0], states[:, 1], states[:, 2]] = values
        status, rows, full = self.runner.solve(classes)
        rot = _rotations(classes)
        return status, rows, full, self.win[rot[:, 0], rot[:, 1], rot[:, 2]]


def _rotations(classes: np.ndarray) -> np.ndarray:
    """The three states of each class, (3 n, 3): (x, y, z), (y, z, x), (z, x, y)."""
    if not len(classes):
        return np.zeros((0, 3), dtype=np.int32)
    return np.concatenate([classes, np.roll(classes, -1, axis=1), np.roll(classes, -2, axis=1)])


class DaskClassRunner:
    """Spreads the classes of each total over the workers of a dask cluster, one
    :class:`ThreePlayerWorker` actor per worker (each with ``threads`` OpenMP threads)."""

    def __init__(self, client: Any, threads: int = 1) -> None:
        self.client = client
        self.threads = max(1, threads)
        self.actors: list[Any] = []

    def attach(self, model: KockaModel, win: np.ndarray) -> None:
        self.win = win
        workers = sorted(self.client.scheduler_info()["workers"])
        if not workers:
            raise TableError("the dask cluster has no workers")
        futures = [self.client.submit(ThreePlayerWorker, model.rules.options(), self.threads, actor=True,
                                      workers=[w], pure=False) for w in workers]
        self.actors = [f.result() for f in futures]
        self.sent = np.zeros((0, 3), dtype=np.int32)

    def solve(self, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # the values settled at the previous total (the client's, mixed classes included)
        states = self.sent
        values = self.win[states[:, 0], states[:, 1], states[:, 2]]
        chunks = np.array_split(classes, len(self.actors))
        calls = [actor.solve(chunk, states, values) for actor, chunk in zip(self.actors, chunks)]
        results = [c.result() for c in calls]
        for chunk, result in zip(chunks, results):
            rot = _rotations(chunk)
            self.win[rot[:, 0], rot[:, 1], rot[:, 2]] = result[3]
        self.sent = _rotations(classes)
        return tuple(np.concatenate([r[i] for r in results]) for i in range(3))

    def publish(self, states: np.ndarray, values: np.ndarray) -> None:
        """Resolved classes are among the states sent with the next call."""

    def close(self) -> None:
        self.actors = []


def dask_class_runner(threads: int = 1) -> DaskClassRunner:
    """A :class:`DaskClassRunner` on the cluster of ``--backend dask``
    (``$DASK_SCHEDULER_ADDRESS``, or a local cluster)."""
    return DaskClassRunner(cluster_client("dask"), threads=1 if threads is None else threads)


__all__ = ["DaskClassRunner", "ThreePlayerWorker", "dask_class_runner"]
