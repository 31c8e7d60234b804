"""joblib backends for table builds: the local defaults, and clusters when installed.

``--backend loky`` (local processes, the default) and ``threading`` need nothing; ``dask``
and ``ray`` are optional extras (``pip install -e ".[dask]"`` / ``".[ray]"``) that run the
same chunked build on a cluster: dask connects to ``$DASK_SCHEDULER_ADDRESS`` when set and
otherwise starts a local cluster; ray joins ``$RAY_ADDRESS`` or starts locally.
"""
from __future__ import annotations

import os

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
