"""The two-dice bluffing games: exact equilibria by linear programming.
"""
