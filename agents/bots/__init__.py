"""The players: every agent behind one interface, ``choose(state) -> action``, and the
agent catalogue that builds them by name from the game specs.
"""
