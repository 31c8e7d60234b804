"""Worker threads and deadlines: a transport hands each request to :class:`Workers` and
answers ``timeout`` when it is not done within the seat's budget, ``busy`` when too many
are in progress; the seat keeps serving either way.

Each request runs under its own :class:`~kocka.solver.base.work_limit.WorkLimit` (the
budget counted from the moment it was handed over): long computations price themselves
against the time left and answer ``too_expensive`` instead of starting what cannot finish,
and poll the limit's flag, which :meth:`Workers.abandon` sets, so work given up at the
deadline stops and frees its memory instead of running on in a thread nobody waits for.
"""
from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Callable, Mapping, Protocol

from kocka.solver.base.work_limit import WorkLimit, limited
from kocka.agents.frontends.seat.encoding import (
    ProtocolError, busy_response, decode_request, encode_response, error_response, request_id_of, short, show,
    timeout_response,
)

DEFAULT_REQUEST_TIMEOUT = 5.0
"""Seconds a request may take before it is answered with ``timeout`` (``--request-timeout``)."""
DEFAULT_WRITE_TIMEOUT = 5.0
"""HTTP: seconds a connection's queued answers may go unread before it is closed (a slow
reader, ``--write-timeout``; the guard is :class:`kocka.agents.frontends.seat.connections.GuardedH11`)."""
DEFAULT_MAX_INFLIGHT = 64
"""Requests being worked on at once, abandoned ones included, before new ones get ``busy``."""
DEFAULT_WORKER_THREADS = 4
"""Threads computing answers at once; further requests wait their turn in a queue. The
answers are mostly Python holding the interpreter lock, so more threads add no
throughput: they only make every waiter, ``hello`` on the HTTP event loop included, wait
longer for the lock."""

log = logging.getLogger("kocka.seat")


class Handler(Protocol):
    """What the transports need of a seat (:class:`kocka.agents.frontends.seat.protocol.Seat`)."""

    quit_requested: bool

    def handle(self, request: Any, refuse: Mapping[str, str] | None = None) -> dict: ...

    def handle_line(self, line: bytes | str, refuse: Mapping[str, str] | None = None) -> str: ...


class Job:
    """One request handed to :class:`Workers`: ``done`` is set once ``value`` (the
    response line) is there, with ``error_code`` (None for a success); ``request_id``
    once the request is decoded, for a ``timeout`` answer given before ``done``;
    ``limit`` the bound its work runs under (cancelled when it is abandoned)."""

    __slots__ = ("work", "on_done", "done", "value", "request_id", "error_code", "started", "abandoned", "stuck", "limit")

    def __init__(self, work: Callable[["Job"], str], on_done: Callable[["Job"], None] | None,
                 budget: float | None = None) -> None:
        self.work = work
        self.on_done = on_done
        self.limit = WorkLimit(budget)
        self.done = threading.Event()
        self.value: str | None = None
        self.request_id: Any = None
        self.error_code: str | None = None
        self.started = False
        self.abandoned = False
        self.stuck = False


class Workers:
    """Threads that answer requests, so that a transport can give a request up at its
    deadline and answer ``timeout``.

    At most ``threads`` requests are computed at once (:data:`DEFAULT_WORKER_THREADS`);
    the others wait in a queue. ``budget``: the seconds a request may take (the
    transport's deadline; None: none), the time its work is priced against. A Python
    thread cannot be stopped from outside: a request given up (:meth:`abandon`) while it
    runs has its work limit cancelled, which the long computations poll (they stop within
    milliseconds); the rest finishes and its answer is dropped, and a new thread takes its
    place in the count meanwhile; a request given up before a thread took it is never
    computed. The threads are daemons, so one stuck in a request
    never keeps the process from exiting. ``limit`` bounds the requests submitted and not
    finished, abandoned ones included: :meth:`submit` refuses more (the transport answers
    ``busy``). Threads start when needed and wait for the next job when idle.
    """

    def __init__(self, limit: int = DEFAULT_MAX_INFLIGHT, threads: int = DEFAULT_WORKER_THREADS,
                 budget: float | None = None) -> None:
        if limit < 1:
            raise ValueError(f"the seat needs room for one request at least, got a limit of {limit}")
        if threads < 1:
            raise ValueError(f"the seat needs one worker thread at least, got {threads}")
        if budget is not None and not budget > 0:
            raise ValueError(f"a request's budget must be a positive number of seconds, got {budget!r}")
        self.limit = limit
        self.threads = threads
        self.budget = budget
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._running = 0  # submitted, not finished
        self._queued = 0   # submitted, not yet taken by a thread
        self._idle = 0     # threads waiting for a job
        self._started = 0  # threads alive
        self._stuck = 0    # threads finishing an abandoned job

    @property
    def running(self) -> int:
        """Requests submitted and not finished (abandoned ones included)."""
        return self._running

    def submit(self, work: Callable[[Job], str], on_done: Callable[[Job], None] | None = None,
               budget: float | None = None) -> Job | None:
        """Run ``work(job)`` on a worker thread; then ``on_done(job)`` there. None when
        ``limit`` requests are in progress. ``budget``: this request's seconds (default:
        the workers' ``budget``), counted from now."""
        with self._lock:
            if self._running >= self.limit:
                return None
            self._running += 1
            self._queued += 1
            start = self._start_needed()
        job = Job(work, on_done, self.budget if budget is None else budget)
        self._jobs.put(job)
        if start:
            self._start_thread()
        return job

    def abandon(self, job: Job) -> None:
        """The transport has answered ``timeout`` for ``job``: never start it, and if it
        is running, let another thread take its place."""
        job.limit.cancel()  # the work polls it: what runs stops, what waits never starts
        with self._lock:
            job.abandoned = True
            if job.started and not job.done.is_set() and not job.stuck:
                job.stuck = True
                self._stuck += 1
            start = self._start_needed()
        if start:
            self._start_thread()

    def _start_needed(self) -> bool:
        """Under the lock: whether a queued job has no idle thread and the cap allows
        another (then the thread is counted)."""
        if self._queued > self._idle and self._started - self._stuck < self.threads:
            self._started += 1
            return True
        return False

    def _start_thread(self) -> None:
        threading.Thread(target=self._serve, name=f"kocka-seat-{self._started}", daemon=True).start()

    def _serve(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            job = self._jobs.get()
            with self._lock:
                self._idle -= 1
                self._queued -= 1
                job.started = True
                skip = job.abandoned
            if not skip:
                try:
                    with limited(job.limit):
                        job.value = job.work(job)
                except BaseException as exc:  # noqa: BLE001 (the transport must get an answer)
                    log.exception("a worker failed")
                    job.value = encode_response(error_response(job.request_id, "internal_error", short(f"{type(exc).__name__}: {exc}")))
            with self._lock:
                self._running -= 1
                if job.stuck:
                    self._stuck -= 1
                    self._started -= 1  # this thread was replaced: it ends here
                    leave = True
                else:
                    leave = False
            job.done.set()
            if job.on_done is not None:
                job.on_done(job)
            if leave:
                return


def answer_work(seat: Handler, body: bytes | str, refuse: Mapping[str, str] | None = None) -> Callable[[Job], str]:
    """The work of one request for :meth:`Workers.submit`: decode, note the id, handle."""

    def work(job: Job) -> str:
        try:
            request = decode_request(body)
        except ProtocolError as exc:
            job.error_code = exc.code
            return encode_response(error_response(None, exc.code, str(exc)))
        job.request_id = request_id_of(request)
        response = seat.handle(request, refuse)
        job.error_code = response["error"]["code"] if "error" in response else None
        return encode_response(response)

    return work


def answer_within(seat: Handler, workers: Workers | None, line: bytes | str, timeout: float | None) -> str:
    """The response line to ``line``, or ``timeout`` when it takes longer than ``timeout``
    seconds (None: no limit, and no worker thread)."""
    if workers is None or timeout is None:
        return seat.handle_line(line)
    job = workers.submit(answer_work(seat, line), budget=timeout)
    if job is None:
        return encode_response(busy_response())
    if not job.done.wait(timeout):
        workers.abandon(job)
        log.warning("request %s: no answer within %g s; answered timeout", show(job.request_id), timeout)
        return encode_response(timeout_response(job.request_id, timeout))
    return job.value
