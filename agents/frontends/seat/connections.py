"""The HTTP seat's limits on one connection, below the app (docs/PROTOCOL.md, "HTTP"):
a deadline for each request head, a write timeout with a cap on the output a
connection may have queued, and the log of refused requests, quiet at warning level.

uvicorn times out an idle keep-alive connection, but keeps for ever one that is new or
sends its head a byte at a time (a slowloris), and one whose client does not read what
it asked for (a slow reader: pipelined requests whose answers are never read). And it
logs a warning for every malformed request or connection over the limit, so that a
public port can be made to flood the log. :class:`GuardedH11` is uvicorn's h11 protocol
with those three closed; :class:`RefusalLog` is the quiet log.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import socket
import struct
import threading
import time
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from kocka.agents.frontends.seat.workers import DEFAULT_WRITE_TIMEOUT

log = logging.getLogger("kocka.seat")

WRITE_BUFFER_BYTES = 64 * 1024
"""Answers one connection may have queued in the process before the seat stops making
more for it (asyncio's write buffer high-water mark: uvicorn waits while it is full)."""
SOCKET_SEND_BYTES = 64 * 1024
"""The kernel's send buffer of a connection (``SO_SNDBUF``; Linux doubles it): fixed, so
that a client that never reads cannot have megabytes queued in the kernel either."""
PROGRESS_CHECK_SECONDS = 0.5
"""How often a connection with output queued is checked for progress."""


class RefusalLog:
    """Refused requests and connections: each at debug level, and a warning that sums
    them up at most once per ``interval`` seconds (``"N requests refused in the last
    10 s: 403 forbidden x7, ..."``), so that a flood of hostile requests writes one line
    every ``interval`` seconds, not one per request. Safe from any thread."""

    def __init__(self, interval: float = 10.0, clock: Any = time.monotonic) -> None:
        self.interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._counts: collections.Counter[str] = collections.Counter()
        self._since: float | None = None  # when the last summary was written (None: never)

    def refused(self, kind: str, message: str) -> None:
        """One refusal: ``kind`` groups it in the summary (``"403 forbidden"``)."""
        log.debug("refused (%s): %s", kind, message)
        with self._lock:
            self._counts[kind] += 1
            now = self._clock()
            if self._since is not None and now - self._since < self.interval:
                return
            counts, self._counts = self._counts, collections.Counter()
            window = "" if self._since is None else f" in the last {now - self._since:.0f} s"
            self._since = now
        total = sum(counts.values())
        kinds = ", ".join(f"{k} x{n}" for k, n in counts.most_common())
        log.warning("%d request%s refused%s: %s (each is logged at debug level)", total, "" if total == 1 else "s", window, kinds)


class _QuietUvicornLogger:
    """uvicorn's logger with its per-request warnings (a malformed request, a connection
    over ``limit_concurrency``) counted by a :class:`RefusalLog` instead; everything else
    goes through unchanged."""

    def __init__(self, logger: logging.Logger, refusals: RefusalLog) -> None:
        self._logger = logger
        self._refusals = refusals

    def warning(self, message: str, *args: Any, **kwargs: Any) -> None:
        self._refusals.refused("uvicorn", message % args if args else message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._logger, name)


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with deadlines for the request head and for output.

    The head: the clock starts when a connection is made and after each response, and is
    not reset by further bytes; a connection whose request head is not complete
    ``head_timeout`` seconds later is closed.

    Output: a connection holds at most :data:`SOCKET_SEND_BYTES` in the kernel and
    :data:`WRITE_BUFFER_BYTES` in the process (beyond that uvicorn waits, and reads no
    further pipelined request, until the client reads). While output is queued, the
    queue must shrink: one that has not shrunk for ``write_timeout`` seconds (the client
    reads nothing) is dropped at once, its queued output thrown away; ``close()`` would
    wait for a flush that never comes.

    The subclass made by the server sets ``head_timeout``, ``write_timeout`` and
    ``refusals`` (the :class:`RefusalLog` of the server).
    """

    head_timeout: float = 5.0
    write_timeout: float = DEFAULT_WRITE_TIMEOUT
    refusals: RefusalLog | None = None
    _head_timer: asyncio.TimerHandle | None = None
    _write_timer: asyncio.TimerHandle | None = None
    _queued: int = 0
    _last_progress: float = 0.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.refusals is not None:
            self.logger = _QuietUvicornLogger(self.logger, self.refusals)  # type: ignore[assignment]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        transport.set_write_buffer_limits(high=WRITE_BUFFER_BYTES)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # a socket that takes no such option: the process's cap still holds
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SOCKET_SEND_BYTES)
        self._watch_head()
        self._watch_output()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None
        super().connection_lost(exc)

    # ----- the request head -----
    def _watch_head(self) -> None:
        if self.conn.their_state is h11.IDLE:  # no complete request head yet
            if self._head_timer is None and not self.transport.is_closing():
                self._head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)
        else:
            self._stop_head_timer()

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            log.debug("http: no request head within %g s; connection closed", self.head_timeout)
            self.transport.close()

    # ----- output -----
    def _watch_output(self) -> None:
        """Every :data:`PROGRESS_CHECK_SECONDS` for the life of the connection: has the
        queued output shrunk (or is there none)? Else, after ``write_timeout``, drop it.
        Writes add to the queue only while it is below the cap, so a queue that stays
        as long as it was is one the client is not reading."""
        self._write_timer = None
        queued = self.transport.get_write_buffer_size()
        now = self.loop.time()
        if queued == 0 or queued < self._queued:
            self._last_progress = now
        elif self._last_progress == 0.0:
            self._last_progress = now
        self._queued = queued
        if queued and now - self._last_progress >= self.write_timeout:
            message = f"the client read none of its {queued} queued bytes for {self.write_timeout:g} s; connection dropped"
            if self.refusals is not None:
                self.refusals.refused("slow reader", message)
            else:
                log.debug("http: %s", message)
            sock = self.transport.get_extra_info("socket")
            if sock is not None:  # a reset, not a FIN queued behind output that will never leave
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.transport.abort()
            return
        self._write_timer = self.loop.call_later(PROGRESS_CHECK_SECONDS, self._watch_output)
