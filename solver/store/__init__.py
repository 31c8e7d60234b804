"""The value-table store: which solver builds which table kind of a game, where a table lives
on disk, loading with verification, building on demand.
"""
