"""The modules of ``scripts/`` for the tests (not a package: each is loaded from its file)."""
from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

SCRIPTS = pathlib.Path(__file__).resolve().parents[1] / "scripts"


def script_module(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module, loaded afresh."""
    spec = importlib.util.spec_from_file_location(f"{name}_script", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
