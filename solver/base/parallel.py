"""The worker pool of a table build: joblib backends, local or on a cluster, and the one
pool every solver runs its chunks in (:func:`parallel_pool`, :func:`run_calls`).

``--backend loky`` (local processes, the default) and ``threading`` need nothing; ``dask``
and ``ray`` are optional extras (``pip install -e ".[dask]"`` / ``".[ray]"``) that run the
same chunked build on a cluster: dask connects to ``$DASK_SCHEDULER_ADDRESS`` when set and
otherwise starts a local cluster; ray joins ``$RAY_ADDRESS`` or starts locally.

joblib is imported only when a pool is made: a one-job build never loads it (it costs
about 12 MB of the build's memory, and every table kind of a game is resolved, so its
solver module is imported, by any build of that game).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Sequence

from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.errors import RulesError

LOCAL_BACKENDS = ("loky", "threading", "multiprocessing")
CLUSTER_BACKENDS = ("dask", "ray")

_clients: dict[str, object] = {}


def prepare_backend(name: str) -> str:
    """Check ``name`` and make it usable by ``joblib.Parallel(backend=name)``."""
    if name in LOCAL_BACKENDS:
        return name
    if name not in CLUSTER_BACKENDS:
        raise RulesError(f"unknown backend {name!r}; use one of {list(LOCAL_BACKENDS + CLUSTER_BACKENDS)!r}")
    if name in _clients:
        return name
    try:
        if name == "dask":
            from dask.distributed import Client
            from joblib import parallel_config

            address = os.environ.get("DASK_SCHEDULER_ADDRESS")
            _clients[name] = Client(address) if address else Client(processes=True)
            with parallel_config(backend="dask"):  # joblib registers its "dask" backend on first use
                pass
        else:
            import ray
            from ray.util.joblib import register_ray

            ray.init(address=os.environ.get("RAY_ADDRESS"), ignore_reinit_error=True)
            register_ray()
            _clients[name] = ray
    except ImportError:
        raise RulesError(
            f"backend {name!r} is not installed; install the optional extra: pip install 'kocka[{name}]'"
        ) from None
    return name


def cluster_client(name: str) -> object:
    """The client of cluster backend ``name`` (a dask ``Client``; for ray the ``ray``
    module), prepared by :func:`prepare_backend` if it is not yet."""
    if name not in CLUSTER_BACKENDS:
        raise RulesError(f"{name!r} is not a cluster backend; use one of {list(CLUSTER_BACKENDS)!r}")
    prepare_backend(name)
    return _clients[name]


@contextmanager
def parallel_pool(options: BuildOptions, *, local_backend: str | None = None, lazy: bool = False) -> Iterator[Any]:
    """``with parallel_pool(options) as parallel``: a joblib ``Parallel`` for the chunks of a
    build, or None when the build runs in this process (one job on a local backend).

    A cluster backend (dask, ray: prepared by :func:`prepare_backend`) gets every worker of
    the cluster, set through ``parallel_config`` (joblib's dask backend cannot be named in
    ``Parallel`` itself: it takes the nesting level for a task argument). Otherwise
    ``options.jobs`` workers of ``local_backend`` (default ``options.backend``: a solver
    whose kernel releases the GIL and whose chunks read one large shared array passes
    ``"threading"``, since processes would copy the array to every worker). ``lazy``: the
    pool hands results back one by one as they are done, in order (for :func:`iter_calls`).
    """
    cluster = options.backend in CLUSTER_BACKENDS
    if not cluster and int(options.jobs) <= 1:
        yield None
        return
    from joblib import Parallel, parallel_config

    return_as = "generator" if lazy else "list"
    if cluster:
        with parallel_config(backend=options.backend), Parallel(n_jobs=-1, return_as=return_as) as parallel:
            yield parallel
    else:
        with Parallel(n_jobs=int(options.jobs), backend=local_backend or options.backend,
                      return_as=return_as) as parallel:
            yield parallel


def iter_calls(parallel: Any, fn: Callable, calls: Iterable[Sequence]) -> Iterator:
    """``fn(*args)`` for each argument tuple of ``calls``, in order, as they are done: by the
    workers of ``parallel`` (from :func:`parallel_pool`), or here one after another when it
    is None."""
    if parallel is None:
        return (fn(*args) for args in calls)
    from joblib import delayed

    return iter(parallel(delayed(fn)(*args) for args in calls))


def run_calls(parallel: Any, fn: Callable, calls: Iterable[Sequence]) -> list:
    """``[fn(*args) for args in calls]``, by the workers of ``parallel`` when given (see
    :func:`iter_calls`)."""
    return list(iter_calls(parallel, fn, calls))
