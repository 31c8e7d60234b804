"""The two console scripts: ``kocka`` (hint, play, table, web, seat, arena) and
``kocka-solve`` (tables). The top of the house: nothing imports it.
"""
