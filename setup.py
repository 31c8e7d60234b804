"""Build the Cython kernels; package metadata lives in pyproject.toml.

Import names live under one namespace (``kocka.solver``, ``kocka.agents``) while the
source directories stay ``solver/`` and ``agents/`` at the top level.

A kernel already built in place is reused when nothing that goes into it has changed
(:class:`ReusingBuildExt`): pip builds in a fresh isolated environment each time, whose
newly installed Cython and numpy headers are newer than any generated C file, so the
usual timestamp check would recompile every kernel on each ``pip install -e``.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
import shutil
import sys

import Cython
import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent

CYTHON_DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    # Cython's -Wextra: a kernel builds without a warning, so a new one shows
    "warn.maybe_uninitialized": True,
    "warn.unreachable": True,
    "warn.unused": True,
}

KERNELS = ["_dicetables", "_scorecard", "_kocka", "_target", "_polish_race", "_simulate"]
# kernels whose prange loops run on OpenMP threads
OPENMP_KERNELS = {"_kocka", "_polish_race"}
# Developers rebuilding one kernel in place: KOCKA_KERNELS=_name python setup.py build_ext --inplace
if os.environ.get("KOCKA_KERNELS"):
    KERNELS = [k for k in KERNELS if k in os.environ["KOCKA_KERNELS"].split(",")]

# -ffp-contract=off: no multiply-add is fused, so every version of a vector loop (the AVX2
# ones the kernels also carry, or any wider one a compiler may pick) gives the same bits as
# the plain one: a table does not depend on the CPU that built it
KERNEL_DIR = HERE / "solver" / "kernels"

extensions = [
    Extension(
        f"kocka.solver.kernels.{name}",
        [f"solver/kernels/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-ffp-contract=off"] + (["-fopenmp"] if name in OPENMP_KERNELS else []),
        extra_link_args=["-fopenmp"] if name in OPENMP_KERNELS else [],
    )
    for name in KERNELS
]

def build_stamp(ext: Extension) -> str:
    """What a kernel's binary depends on: every kernel source (a ``.pxd`` can be shared),
    the Cython, numpy and Python versions, directives and compiler flags."""
    h = hashlib.sha256()
    for source in sorted(KERNEL_DIR.glob("*.p[yx][xdi]")):
        h.update(source.name.encode() + b"\0" + source.read_bytes())
    h.update(repr((ext.name, Cython.__version__, np.__version__, sys.version, sorted(CYTHON_DIRECTIVES.items()),
                   ext.extra_compile_args, ext.extra_link_args, ext.define_macros)).encode())
    return h.hexdigest()


def compile_catalogues() -> None:
    """The message catalogues compiled (``.po`` -> ``.mo``) in the source tree, by the
    function the package itself uses (:mod:`kocka.solver.base.i18n`, loaded from its file:
    the package is not installed yet)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("kocka_i18n_for_setup", HERE / "solver" / "base" / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.compile_catalogues()
    print(f"compiled {len(written)} message catalogues")


class CataloguesBuildPy(build_py):
    """build_py that compiles the catalogues before it copies the package data."""

    def run(self) -> None:
        compile_catalogues()
        super().run()


class ReusingBuildExt(build_ext):
    """build_ext that copies a kernel built in place before (``solver/kernels/_x.*.so`` with a
    matching ``solver/kernels/_x.build-stamp``) instead of cythonizing and compiling it again."""

    def run(self) -> None:
        compile_catalogues()  # an editable install runs build_ext in place, not build_py
        super().run()

    def build_extension(self, ext: Extension) -> None:
        name = ext.name.rsplit(".", 1)[-1]
        suffix = pathlib.Path(self.get_ext_filename(ext.name)).name.split(".", 1)[1]
        in_place = KERNEL_DIR / f"{name}.{suffix}"
        stamp_file = KERNEL_DIR / f"{name}.build-stamp"
        stamp = build_stamp(ext)
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        if in_place.is_file() and stamp_file.is_file() and stamp_file.read_text().strip() == stamp:
            print(f"reusing {in_place.name} (sources, Cython and numpy unchanged)")
            if target.resolve() != in_place.resolve():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(in_place, target)
            return
        # the kernels cimport their shared declarations (keep_lattice.pxd) by its bare name: the
        # folder is not laid out as the package it installs into (solver/ -> kocka.solver)
        (compiled,) = cythonize([ext], compiler_directives=CYTHON_DIRECTIVES, include_path=[str(KERNEL_DIR)], force=True)
        ext.sources = compiled.sources  # the generated C file; ``ext`` keeps setuptools' own attributes
        super().build_extension(ext)
        if target.resolve() != in_place.resolve():
            # a new file renamed over the old one: a running process keeps its mapped kernel
            part = in_place.with_name(in_place.name + ".part")
            shutil.copy2(target, part)
            os.replace(part, in_place)
        stamp_file.write_text(stamp + "\n")


def floor_packages() -> list[str]:
    """Every package under the two source folders: one folder per floor of the layers
    contract (pyproject.toml), each with its own ``__init__.py``."""
    found = []
    for top in ("solver", "agents"):
        for init in sorted((HERE / top).rglob("__init__.py")):
            found.append(".".join(("kocka", *init.parent.relative_to(HERE).parts)))
    return found


setup(
    # ``kocka`` itself is an implicit namespace package: only its two subpackages exist.
    packages=floor_packages(),
    package_dir={"kocka.solver": "solver", "kocka.agents": "agents"},
    package_data={"kocka.solver.kernels": ["*.pyx", "*.pxd"],
                  "kocka.solver.base": ["locales/*/LC_MESSAGES/*.po", "locales/*/LC_MESSAGES/*.mo"],
                  "kocka.agents.frontends.seat": ["*.json", "static/*"]},
    ext_modules=extensions,
    cmdclass={"build_ext": ReusingBuildExt, "build_py": CataloguesBuildPy},
    zip_safe=False,
)
