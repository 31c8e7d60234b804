"""Models several solvers share (the scorecard card model: card states, layers and the
kernel inputs built from a rules engine's tables).
"""
