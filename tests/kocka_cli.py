"""What tests/test_kocka_three.py and tests/test_kocka_four.py share: the win-table build
through ``kocka-solve`` at the small test variant (target 600, series from 300, 150
minimum bank), and solves on a two-worker ``distributed.LocalCluster``."""
from __future__ import annotations

import pathlib
from typing import Any, Callable

from click.testing import CliRunner

from dask_cluster import loopback_cluster
from kocka.agents.frontends.commands.solve_cli import main as solve_cli
from kocka.solver.solvers.kocka.dask_runner import DaskClassRunner

SMALL_RULE_ARGS = ["-r", "target=600", "-r", "series_threshold=300", "-r", "min_bank_points=150"]


def build_and_verify(players: int, cache_dir: pathlib.Path) -> str:
    """``kocka-solve build kocka --players N`` then ``verify`` at the small variant into
    ``cache_dir``; both must succeed. Returns the build's output."""
    cache = ["--cache-dir", str(cache_dir)]
    runner = CliRunner()
    out = runner.invoke(solve_cli, ["build", "kocka", "--players", str(players), "-q", *SMALL_RULE_ARGS, *cache])
    assert out.exit_code == 0, out.output
    checked = runner.invoke(solve_cli, ["verify", "kocka", "--players", str(players), *SMALL_RULE_ARGS, *cache])
    assert checked.exit_code == 0, checked.output
    return out.output


def solve_on_local_cluster(*solves: tuple[Callable[..., Any], Any]) -> list[Any]:
    """``solve(model, runner=...)`` for each ``(solve, model)`` in turn, with the classes
    spread over one two-worker ``distributed.LocalCluster`` (started once: its worker
    processes cost more than the small solves; skips the test without ``distributed``)."""
    with loopback_cluster() as cluster:
        import distributed

        with distributed.Client(cluster) as client:
            return [solve(model, runner=DaskClassRunner(client)) for solve, model in solves]
