"""The seat over standard input and output: one request line in, one response line out,
on the standard library alone (HTTP: :mod:`kocka.agents.frontends.seat.http`)."""
from __future__ import annotations

from typing import BinaryIO

from kocka.agents.frontends.seat.encoding import MAX_LINE_BYTES, encode_response, error_response
from kocka.agents.frontends.seat.workers import DEFAULT_MAX_INFLIGHT, DEFAULT_REQUEST_TIMEOUT, Handler, Workers, answer_within


def serve_stdio(seat: Handler, stdin: BinaryIO, stdout: BinaryIO, request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
                max_inflight: int = DEFAULT_MAX_INFLIGHT) -> None:
    """Answer one request line after another until ``quit`` or end of input.

    Blank lines are skipped without an answer. A line longer than
    :data:`MAX_LINE_BYTES` is read to its end and answered with ``invalid_request``.
    A request is worked on in a worker thread and answered ``timeout`` when it takes
    longer than ``request_timeout`` seconds (None: no limit, no worker thread); the next
    line is read meanwhile. ``max_inflight`` bounds the abandoned requests still running
    (then ``busy``).
    """
    workers = None if request_timeout is None else Workers(max_inflight)
    while True:
        line = stdin.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:  # skip the rest of the oversized line
                rest = stdin.readline(MAX_LINE_BYTES)
                if not rest or rest.endswith(b"\n"):
                    break
            answer = encode_response(error_response(None, "invalid_request", f"request line longer than {MAX_LINE_BYTES} bytes"))
        elif not line.strip():
            continue
        else:
            answer = answer_within(seat, workers, line, request_timeout)
        stdout.write(answer.encode("ascii") + b"\n")
        stdout.flush()
        if seat.quit_requested:
            return
