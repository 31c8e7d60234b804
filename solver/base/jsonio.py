"""JSON from outside the program, parsed with limits: the one loader of the front ends.

Everything a front end parses from another program or a person (a seat request, ``kocka
hint --card`` / ``--state``) goes through :func:`loads`. The standard library parser has
two ways to fail that are not ``JSONDecodeError``: ``RecursionError`` for nesting near
the interpreter's recursion limit (about 1000 levels), and ``ValueError`` for an integer
longer than ``sys.get_int_max_str_digits()`` (4300 digits in Python 3.11); and a document
nested a few hundred levels deep parses but can still exhaust the recursion limit in
whatever walks it next (``repr``, ``json.dumps``, an engine). :func:`loads` turns every
one of these into :class:`JSONLimitError` and refuses, besides, what no document of ours
needs: nesting deeper than :data:`MAX_DEPTH`, an integer longer than
:data:`MAX_INT_DIGITS` digits (checked on the digit string, before ``int()`` runs), a
number beyond the range of a double, and ``NaN`` / ``Infinity``.

>>> loads('{"dice": [1, 2, 3]}')
{'dice': [1, 2, 3]}
>>> loads("[" * 40 + "]" * 40)
Traceback (most recent call last):
...
kocka.solver.base.jsonio.JSONLimitError: JSON nests deeper than 32 levels
"""
from __future__ import annotations

import json
import math
from typing import Any

MAX_DEPTH = 32
"""Deepest nesting accepted; the deepest request of ours (a seat request carrying a
``kockapoker-bid`` state document) nests 8 levels."""
MAX_INT_DIGITS = 64
"""Longest integer literal accepted, in digits (seeds go up to 2**63 - 1: 19 digits)."""

__all__ = ["JSONInputError", "JSONLimitError", "MAX_DEPTH", "MAX_INT_DIGITS", "loads"]


class JSONInputError(ValueError):
    """The text is not JSON (or not UTF-8)."""


class JSONLimitError(JSONInputError):
    """The text is JSON, but nested too deeply or with a number too large to accept."""


_DIGITS_AS_ZEROS = bytes(ord("0") if chr(i).isdigit() and i < 128 else ord(" ") for i in range(256))
_LONG_DIGIT_RUN = b"0" * (MAX_INT_DIGITS + 1)


def _has_long_digit_run(text: str) -> bool:
    """Whether ``text`` holds more ASCII digits in a row than an accepted integer has: a
    text without such a run holds no integer literal over the limit, and is parsed without
    a Python call per integer. (Its UTF-8 with every digit a ``0`` and every other byte a
    space: a few microseconds less than a regular expression.)"""
    return _LONG_DIGIT_RUN in text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZEROS)


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise JSONLimitError(f"an integer of {len(digits.lstrip('-'))} digits (at most {MAX_INT_DIGITS} are accepted)")
    return int(digits)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONLimitError(f"the number {text[:40]} is beyond the range of a double")
    return value


def _parse_constant(name: str) -> Any:
    raise JSONInputError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_float=_parse_float, parse_constant=_parse_constant)
_DECODER_CHECKING_INTS = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
"""The decoders, made once (``json.loads`` with hooks makes one per call); the second for
a text with a long run of digits."""


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests deeper than ``limit`` (iteratively: no recursion to exhaust)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def loads(data: str | bytes | bytearray, what: str = "JSON") -> Any:
    """Decode ``data`` (text, or UTF-8 bytes) with the limits of the module docstring.

    Raises :class:`JSONLimitError` for input over a limit and :class:`JSONInputError` for
    anything else that is not JSON; ``what`` names the input in the messages (e.g.
    ``"--card"``). Never raises ``RecursionError``.
    """
    if isinstance(data, (bytes, bytearray)):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONInputError(f"{what} is not UTF-8: {exc}") from None
    try:
        if data.startswith("\ufeff"):  # what json.loads refuses before decoding
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", data, 0)
        value = (_DECODER_CHECKING_INTS if _has_long_digit_run(data) else _DECODER).decode(data)
    except JSONLimitError as exc:
        raise JSONLimitError(f"{what}: {exc}") from None
    except RecursionError:  # the C scanner gives up near the recursion limit
        raise JSONLimitError(f"{what} nests deeper than {MAX_DEPTH} levels") from None
    except JSONInputError as exc:
        raise JSONInputError(f"{what} is not valid JSON: {exc}") from None
    except ValueError as exc:  # JSONDecodeError
        raise JSONInputError(f"{what} is not valid JSON: {exc}") from None
    # cheap pre-check: a text with few brackets cannot nest deeply
    if isinstance(value, (dict, list)) and data.count("[") + data.count("{") > MAX_DEPTH and _too_deep(value, MAX_DEPTH):
        raise JSONLimitError(f"{what} nests deeper than {MAX_DEPTH} levels")
    return value
