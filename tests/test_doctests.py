"""Every docstring example of the package runs with the suite.

The modules are found from the sources (any ``.py`` under ``solver/`` or ``agents/`` with
a ``>>>`` in it), so a module that gains an example is tested without being listed here.
They are found by path, not by ``--doctest-modules``: the import names (``kocka.solver``,
``kocka.agents``) are mapped onto the top-level folders by setup.py's package_dir, which
pytest's own collection of ``solver/*.py`` would not know.
"""
from __future__ import annotations

import doctest
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = {"solver": "kocka.solver", "agents": "kocka.agents"}


def modules_with_examples() -> list[str]:
    names = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if ">>>" not in path.read_text(encoding="utf-8"):
                continue
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join((package, *parts)))
    return names


MODULES = modules_with_examples()


def test_the_examples_are_found():
    # modules whose examples are part of their documentation (the rules engines' worked
    # examples, the dice helpers): missing them means the search, not the package, is broken
    assert {"kocka.solver.base.dice", "kocka.solver.rules.kocka_scoring", "kocka.solver.rules.polish_scoring"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, verbose=False, report=True)
    assert result.attempted > 0, f"{name}: a '>>>' in the source but no docstring example"
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
