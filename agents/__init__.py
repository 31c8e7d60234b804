"""kocka.agents: every player behind one interface, ``choose(state) -> action``."""
