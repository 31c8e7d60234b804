"""Error types. Every message is one sentence a player can read, in the language in force
(:mod:`kocka.solver.base.i18n`): dice as dice, options as words, no Python reprs.

A message that follows from a rule of ``RULES.md`` keeps the rule's id out of its text and
in :attr:`KockaError.rule` (``"KOCKA-12"``; several ids joined by ``", "``), so a front end
shows it only when the player asks (``--explain``).
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from kocka.solver.base.i18n import _


class KockaError(ValueError):
    """Base class of every error about bad input: dice, states, actions, rule options.

    ``str(error)`` is the sentence; ``error.rule`` the rule id(s) it follows from, or None.
    """

    def __init__(self, message: Any = "", *args: Any, rule: str | None = None) -> None:
        super().__init__(message, *args)
        self.rule = rule if rule is not None else getattr(message, "rule", None)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rule ids of :attr:`rule`, one by one."""
        return tuple(r.strip() for r in self.rule.split(",")) if self.rule else ()

    def __reduce__(self) -> tuple[Any, ...]:  # keep ``rule`` across processes (joblib, pickle)
        return (type(self), self.args, self.__dict__)


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


class Reason(str):
    """A sentence saying why something is not allowed, with the rule id(s) it cites
    (``rule``): what the engines' ``_why_illegal`` return, so the error raised from it
    carries the rule without the sentence naming it."""

    rule: str | None

    def __new__(cls, sentence: str, rule: str | None = None) -> Reason:
        reason = super().__new__(cls, sentence)
        reason.rule = rule
        return reason


def shown(value: Any, limit: int = 80) -> str:
    """A value from bad input as a player reads it: numbers and words as they are, lists
    as their items separated by spaces (``1 3 3``; lists of lists by commas), no quotes
    or brackets; cut after ``limit`` characters."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, Mapping):
        text = ", ".join(f"{shown(k)} {shown(v)}" for k, v in value.items())
    elif isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        nested = any(isinstance(v, (list, tuple, set, frozenset, Mapping)) for v in items)
        text = (", " if nested else " ").join(shown(v) for v in items)
    elif value is None:
        text = _("nothing")
    elif isinstance(value, bool):
        text = _("yes") if value else _("no")
    else:
        text = str(value)
    text = text.replace("[", "").replace("]", "").replace("'", "").replace("(", "").replace(")", "").strip()
    if not text:  # an empty list or string: say so rather than leave a gap in the sentence
        return _("nothing")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def either(options: Iterable[Any]) -> str:
    """Options as words: ``zero or count``, ``1, 2 or 3`` (the language's own "or")."""
    words = [shown(o) for o in options]
    if len(words) <= 1:
        return "".join(words)
    return _("{earlier} or {last}", earlier=", ".join(words[:-1]), last=words[-1])
