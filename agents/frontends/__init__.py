"""Front ends: the top floor, in three rooms of their own floors (pyproject.toml): local
games (``games``: terminal play, the arena, the table companion), the AI seat and its web
page (``seat``), and the two console scripts (``commands``).

A front end is generic: what it needs of a game (its hint, its moves, its view) comes
through the game's spec or the base ``Game``, never from a game family's module.
"""
