"""The two-worker ``distributed.LocalCluster`` the cluster tests solve on, on loopback
only: the scheduler, its workers and the scheduler's HTTP routes (no dashboard) listen on
127.0.0.1, the HTTP routes on a free port, so two test runs on one machine do not meet on
the default port 8787."""
from __future__ import annotations

from typing import Any

import pytest


def loopback_cluster() -> Any:
    """A new two-worker ``LocalCluster`` (use it in a ``with``); skips the test without
    ``distributed``."""
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                    dashboard_address=None,
                                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
