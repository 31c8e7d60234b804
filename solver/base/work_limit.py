"""A bound on the work of one request: a deadline and a cancel flag that long computations
check while they run, so work given up is stopped (and its memory freed) instead of being
left running in a thread nobody waits for.

The seat's worker (:mod:`kocka.agents.frontends.seat.workers`) runs each request inside
:func:`limited` with the request's :class:`WorkLimit`, and sets its flag
(:meth:`WorkLimit.cancel`) when the transport gives the request up. A computation reads
the limit of the request it serves with :func:`current_limit` (None: no bound, e.g. the
command line) and

* refuses, before it starts, work that cannot finish in the time left
  (:meth:`WorkLimit.admit`, raising :class:`TooExpensiveError`);
* polls :attr:`WorkLimit.flag` inside its loop (a kernel reads the one-element int32
  array without the interpreter lock) and stops with :class:`WorkCancelledError`.

A context variable carries the limit, so one thread's request never sees another's.
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from typing import Iterator

import numpy as np


class WorkCancelledError(RuntimeError):
    """The request this work was for has been given up (its deadline passed)."""


class TooExpensiveError(RuntimeError):
    """The work would not finish within the request's budget; it was not started. The
    message says what would make it cheap."""


class WorkLimit:
    """The bound of one request: ``deadline`` (a :func:`time.monotonic` instant, None: no
    deadline) and ``flag``, a one-element int32 array that is nonzero once the request is
    given up (kernels poll it)."""

    __slots__ = ("deadline", "flag")

    def __init__(self, budget: float | None = None) -> None:
        self.deadline = None if budget is None else time.monotonic() + budget
        self.flag = np.zeros(1, dtype=np.int32)

    def cancel(self) -> None:
        """Give the work up: every computation polling :attr:`flag` stops soon after."""
        self.flag[0] = 1

    @property
    def cancelled(self) -> bool:
        return bool(self.flag[0])

    def remaining(self) -> float | None:
        """Seconds left before the deadline (never below 0); None: no deadline."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def check(self) -> None:
        """Raise :class:`WorkCancelledError` if the work was given up or its deadline passed."""
        if self.cancelled or (self.deadline is not None and time.monotonic() >= self.deadline):
            self.cancel()
            raise WorkCancelledError("the request was given up at its deadline")

    def admit(self, seconds: float, what: str, cheaper: str) -> None:
        """Refuse work estimated at ``seconds`` when less time is left: one line naming
        ``what`` it is and ``cheaper``, what would make it cheap."""
        left = self.remaining()
        if left is not None and seconds > left:
            raise TooExpensiveError(f"{what} would take about {seconds:.1f} s, more than the {left:.1f} s left of this "
                                    f"request's budget; {cheaper}")


_current: contextvars.ContextVar[WorkLimit | None] = contextvars.ContextVar("kocka_work_limit", default=None)


def current_limit() -> WorkLimit | None:
    """The limit of the request being answered in this thread (None: unbounded)."""
    return _current.get()


@contextlib.contextmanager
def limited(limit: WorkLimit | None) -> Iterator[WorkLimit | None]:
    """Run the body under ``limit`` (None: unbounded)."""
    token = _current.set(limit)
    try:
        yield limit
    finally:
        _current.reset(token)


__all__ = ["TooExpensiveError", "WorkCancelledError", "WorkLimit", "current_limit", "limited"]
