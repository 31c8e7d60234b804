"""The solvers, one folder per game family: each turns a rules engine into a value table
(expected score, win probability, reach probability, equilibrium). The families are
independent of each other (pyproject.toml, the independence contract).
"""
