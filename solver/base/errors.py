"""Error types. Every message names the offending value (with ``!r``)."""
from __future__ import annotations


class KockaError(ValueError):
    """Base class of every error about bad input: dice, states, actions, rule options."""


class DiceError(KockaError):
    """Impossible dice, e.g. a 7 or the wrong number of dice."""


class IllegalActionError(KockaError):
    """An action that the rules do not allow in the given state."""


class InvalidStateError(KockaError):
    """A state that cannot occur under the rules (or a malformed state document)."""


class RulesError(KockaError):
    """An unknown rule option or option value."""


class TableError(RuntimeError):
    """A missing, corrupt or stale value table (built for other rules or format)."""
