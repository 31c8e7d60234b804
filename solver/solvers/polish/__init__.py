"""The Polish scorecard with fences: the solitaire values and the two-player basic race.
"""
