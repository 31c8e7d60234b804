"""Hints: the ranked choices for a position and the words that explain them, one module per
game family; a game's spec names its hint, so front ends never import these by game.
"""
