"""Local games: terminal play, the arena (many seeded games between agents) and the
companion for a real table (``kocka table``).
"""
