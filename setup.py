"""Build the Cython kernels; package metadata lives in pyproject.toml.

Import names live under one namespace (``kocka.solver``, ``kocka.agents``) while the
source directories stay ``solver/`` and ``agents/`` at the top level.
"""
from __future__ import annotations

import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

CYTHON_DIRECTIVES = {
    "language_level": "3",
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
}

KERNELS = ["_dicetables", "_scorecard", "_kocka"]
# kernels whose prange loops run on OpenMP threads
OPENMP_KERNELS = {"_kocka"}
# Developers rebuilding one kernel in place: KOCKA_KERNELS=_name python setup.py build_ext --inplace
if os.environ.get("KOCKA_KERNELS"):
    KERNELS = [k for k in KERNELS if k in os.environ["KOCKA_KERNELS"].split(",")]

extensions = [
    Extension(
        f"kocka.solver.{name}",
        [f"solver/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3"] + (["-fopenmp"] if name in OPENMP_KERNELS else []),
        extra_link_args=["-fopenmp"] if name in OPENMP_KERNELS else [],
    )
    for name in KERNELS
]

setup(
    # ``kocka`` itself is an implicit namespace package: only its two subpackages exist.
    packages=["kocka.solver", "kocka.solver.rules", "kocka.agents", "kocka.agents.frontends"],
    package_dir={"kocka.solver": "solver", "kocka.agents": "agents"},
    package_data={"kocka.solver": ["*.pyx", "*.pxd", "data/*.json"], "kocka.agents.frontends": ["*.json"]},
    ext_modules=cythonize(extensions, compiler_directives=CYTHON_DIRECTIVES),
    zip_safe=False,
)
