"""Front ends: the ``kocka`` command, hints, terminal play, the arena and the AI seat.

The top floor: it may import every layer below (bots, solvers, engines), and nothing
below imports it (``lint-imports`` checks this in CI).
"""
