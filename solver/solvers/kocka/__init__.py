"""Kocka (10000) and Pig: the push-your-luck turn model and the races between players.

One idea a module, bottom up: ``turn_model`` (the generic turn and one turn's values),
``race`` (the two-player race to a goal), ``pig``, ``kocka_turn`` (the Kocka turn compiled
from the rules engine), ``single_turn`` (one turn's EV and reach chances), ``end_race``
(two players under the end rules, KOCKA-20), ``three_players`` and its ``dask_runner``,
``prospects`` (engine actions onto the model), ``ranking`` (ranked actions for agents and
hints) and ``tables`` (the table solvers the game's spec names).
"""
