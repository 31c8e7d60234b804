"""The compiled kernels (Cython, ``.pyx``) and the dice transitions they are fed: small typed
loops with no Python objects inside, one generic kernel per kind of walk, fed by per-game
tables built above. Imports only :mod:`kocka.solver.base`.
"""
