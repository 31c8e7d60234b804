"""Scorecard games (Yahtzee, Yatzy, kockapóker, Slovak): expected-score values and the
play-to-win (target) tables.
"""
