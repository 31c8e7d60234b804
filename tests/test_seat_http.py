"""The seat's HTTP transport (agents/frontends/seat/http.py), its time budget and limits,
the front ends' safe JSON loader (solver/base/jsonio.py), and the CLI's one-line
errors for hostile JSON. docs/PROTOCOL.md ("HTTP") is the contract checked here.

Servers run in-process: uvicorn on an ephemeral loopback port in a thread. A slow request
is a test-only method that waits on an event, so no test depends on timing.
"""
from __future__ import annotations

import contextlib
import io
import json
import socket
import subprocess
import sys
import threading
from typing import Any, Iterator

import httpx
import pytest
from click.testing import CliRunner

from conftest import serving_in_thread
from kocka.solver.base import jsonio
from kocka.agents.frontends.seat import protocol
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.frontends.seat.protocol import Seat, serve_stdio

HU_DOC = None  # a kockapoker decision state, built once below


def _hu_doc() -> dict:
    global HU_DOC
    if HU_DOC is None:
        from kocka.solver.rules import get_game

        game = get_game("kockapoker")
        HU_DOC = game.state_to_json(game.apply(game.new_initial_state(), (1, 1, 3, 4, 6)))
    return HU_DOC


class SlowMethod:
    """A test-only seat method ``slow``: it says when it has started and answers once
    released (or after 30 s, so that a failing test cannot hang)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self, request: dict) -> dict:
        self.started.set()
        self.release.wait(30)
        return {"slept": True}


def slow_seat() -> tuple[Seat, SlowMethod]:
    seat = Seat()
    slow = SlowMethod()
    seat.handlers["slow"] = slow
    return seat, slow


@contextlib.contextmanager
def serving(seat: Seat | None = None, **options: Any) -> Iterator[tuple[str, Any]]:
    """(base URL, server) of a seat served in a thread until the block ends."""
    server = protocol.make_http_server(seat or Seat(), "127.0.0.1:0", **options)
    with serving_in_thread(server) as base:
        yield base + "/", server


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving(max_body=16384) as (base, _):
        yield base


def post(url: str, body: Any, headers: dict | None = None, **kwargs: Any) -> httpx.Response:
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return httpx.post(url, content=data, headers={"Content-Type": "application/json", **(headers or {})}, timeout=30, **kwargs)


def error_code(response: httpx.Response) -> str:
    return response.json()["error"]["code"]


def raw_exchange(port: int, data: bytes) -> bytes:
    """Send ``data`` on a fresh connection and read until the server closes it."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


# ----------------------------------------------------------------------------------------
# What the seat accepts over HTTP
# ----------------------------------------------------------------------------------------
def test_requests_and_hello_are_answered(url):
    answer = post(url, {"id": 1, "method": "score", "game": "kockapoker", "dice": [6, 6, 6, 6, 6], "box": "sixes"})
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    assert answer.json() == {"id": 1, "result": {"dice": [6, 6, 6, 6, 6], "first_throw": False, "points": {"sixes": 12}}}
    hello = httpx.get(url, timeout=30)
    assert hello.status_code == 200 and hello.json()["result"]["protocol"] == protocol.PROTOCOL_VERSION
    assert post(url, {"id": 2, "method": "nope"}).json()["error"]["code"] == "unknown_method"  # protocol errors: 200


@pytest.mark.parametrize("content_type, body", [
    ("text/plain", b'{"id": 1, "method": "hello"}'),
    ("application/x-www-form-urlencoded", b"id=1&method=hello"),
    ("multipart/form-data; boundary=x", b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n'),
    ("application/json; charset=latin-1", b'{"id": 1, "method": "hello"}'),
    (None, b'{"id": 1, "method": "hello"}'),
])
def test_bodies_that_are_not_json_are_refused_415(url, content_type, body):
    headers = {} if content_type is None else {"Content-Type": content_type}
    answer = httpx.post(url, content=body, headers=headers, timeout=30)
    assert answer.status_code == 415 and error_code(answer) == "invalid_request"
    assert post(url, b'{"id": 1, "method": "hello"}', {"Content-Type": "application/json; charset=utf-8"}).status_code == 200


def test_a_body_over_the_limit_is_refused_413(url):
    big = json.dumps({"id": 1, "method": "hello", "client": "x" * 20000})
    answer = post(url, big)
    assert answer.status_code == 413 and error_code(answer) == "invalid_request"

    def chunks():  # no Content-Length: read with the cap
        for _ in range(10):
            yield b" " * 2000

    answer = httpx.post(url, content=chunks(), headers={"Content-Type": "application/json"}, timeout=30)
    assert answer.status_code == 413 and error_code(answer) == "invalid_request"


def test_a_chunked_request_is_read_whole(url):
    port = httpx.URL(url).port
    body = b'{"id": 7, "method": "score", "game": "kockapoker", "dice": [6, 6, 6, 6, 6], "box": "sixes"}'
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:10], body[10:])) + b"0\r\n\r\n"
    reply = raw_exchange(port, b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n%s" % (port, chunked))
    assert reply.startswith(b"HTTP/1.1 200")
    assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["result"]["points"] == {"sixes": 12}


def test_ambiguous_framing_and_huge_heads_are_refused_400(url):
    port = httpx.URL(url).port
    smuggle = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\nContent-Length: 4\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /hello HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (port, port))
    reply = raw_exchange(port, smuggle)  # refused, and the connection closed before the GET behind it is read
    assert reply.startswith(b"HTTP/1.1 400") and reply.count(b"HTTP/1.1") == 1
    huge = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Big: %s\r\n\r\n" % (port, b"a" * 20000)
    assert raw_exchange(port, huge)[:12] in (b"HTTP/1.1 431", b"HTTP/1.1 400")  # by the app, or by h11 if in pieces


def test_paths_and_methods(url):
    assert post(url + "nowhere", {"id": 1, "method": "hello"}).status_code == 404
    assert httpx.get(url + "nowhere", timeout=30).status_code == 404
    assert httpx.get(url + "hello", timeout=30).status_code == 200
    answer = httpx.put(url, content=b"{}", headers={"Content-Type": "application/json"}, timeout=30)
    assert answer.status_code == 405 and error_code(answer) == "invalid_request" and "POST" in answer.headers["allow"]


def test_hostile_json_is_invalid_request_over_http(url):
    assert error_code(post(url, "[" * 3000 + "]" * 3000)) == "invalid_request"
    assert error_code(post(url, '{"id": 1, "method": "new", "game": "kocka", "rules": ' + "[" * 990 + "]" * 990 + "}")) \
        == "invalid_request"
    answer = post(url, '{"id": 3, "method": "choose", "seed": ' + "9" * 5000 + "}")
    assert answer.status_code == 200 and answer.json() == {"id": None, "error": {
        "code": "invalid_request", "message": "request: an integer of 5000 digits (at most 64 are accepted)"}}


# ----------------------------------------------------------------------------------------
# Who may use it: Host, Origin, token
# ----------------------------------------------------------------------------------------
def test_a_rebinding_host_is_refused_403(url):
    port = httpx.URL(url).port
    answer = post(url, {"id": 1, "method": "hello"}, {"Host": f"attacker.example:{port}"})
    assert answer.status_code == 403 and error_code(answer) == "forbidden"
    assert httpx.get(url, headers={"Host": "attacker.example"}, timeout=30).status_code == 403
    for name in ("localhost", "127.0.0.1", "[::1]"):
        assert post(url, {"id": 1, "method": "hello"}, {"Host": f"{name}:{port}"}).status_code == 200


def test_a_foreign_origin_is_refused_403(url):
    port = httpx.URL(url).port
    for origin in ("http://evil.example", "null", f"http://localhost:{port + 1}"):
        answer = post(url, {"id": 1, "method": "hello"}, {"Origin": origin})
        assert answer.status_code == 403 and error_code(answer) == "forbidden", origin
        assert "access-control-allow-origin" not in answer.headers
    assert post(url, {"id": 1, "method": "hello"}, {"Origin": f"http://127.0.0.1:{port}"}).status_code == 200  # its own
    # a cross-site request whose browser sent no Origin
    assert httpx.get(url, headers={"Sec-Fetch-Site": "cross-site"}, timeout=30).status_code == 403


def test_an_allowed_origin_gets_cors_headers():
    frontend = "http://localhost:5173"
    with serving(allow_origins=[frontend + "/"], token="s3cret") as (base, _):
        preflight = httpx.options(base, headers={"Origin": frontend, "Access-Control-Request-Method": "POST",
                                                 "Access-Control-Request-Headers": "authorization, content-type"}, timeout=30)
        assert preflight.status_code == 204  # no token on a preflight: browsers send none
        assert preflight.headers["access-control-allow-origin"] == frontend
        assert "POST" in preflight.headers["access-control-allow-methods"]
        assert "Authorization" in preflight.headers["access-control-allow-headers"]
        answer = post(base, {"id": 1, "method": "hello"}, {"Origin": frontend, "Authorization": "Bearer s3cret"})
        assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == frontend
        refused = post(base, {"id": 1, "method": "hello"}, {"Origin": frontend})
        assert refused.status_code == 401 and refused.headers["access-control-allow-origin"] == frontend  # readable
        assert post(base, {"id": 1, "method": "hello"}, {"Origin": "http://localhost:5174"}).status_code == 403


def test_a_token_is_checked_on_every_request_401():
    with serving(token="s3cret") as (base, _):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic czNjcmV0"}, {"Authorization": "Bearer"}):
            answer = post(base, {"id": 1, "method": "hello"}, headers)
            assert answer.status_code == 401 and error_code(answer) == "unauthorized", headers
            assert answer.headers["www-authenticate"].startswith("Bearer")
        assert httpx.get(base, timeout=30).status_code == 401
        assert post(base, {"id": 1, "method": "hello"}, {"Authorization": "Bearer s3cret"}).status_code == 200
        assert httpx.get(base, headers={"Authorization": "bearer s3cret"}, timeout=30).status_code == 200


def test_quit_is_refused_without_allow_quit(url):
    answer = post(url, {"id": "q", "method": "quit"})
    assert answer.status_code == 403
    assert answer.json()["id"] == "q" and answer.json()["error"]["code"] == "forbidden"
    assert "--allow-quit" in answer.json()["error"]["message"]
    assert httpx.get(url, timeout=30).status_code == 200  # still serving


def test_non_loopback_addresses_need_a_token():
    from kocka.agents.frontends.seat.http import http_options, normalise_origin

    with pytest.raises(ValueError, match="--token"):
        http_options("0.0.0.0:8765")
    with pytest.raises(ValueError, match="--token"):
        http_options("seat.example.org:8765")
    assert http_options("0.0.0.0:8765", token="s3cret").token == "s3cret"
    assert http_options("[::1]:8765").loopback and http_options("localhost:0").loopback
    assert normalise_origin("HTTP://LocalHost:80/") == "http://localhost"
    with pytest.raises(ValueError, match="origin"):
        normalise_origin("http://localhost:5173/page")
    outcome = CliRunner().invoke(main, ["seat", "--http", "0.0.0.0:0"])
    assert outcome.exit_code == 2 and outcome.output.count("\n") == 1 and "--token" in outcome.output
    outcome = CliRunner().invoke(main, ["seat", "--allow-quit"])
    assert outcome.exit_code == 2 and "--http" in outcome.output


# ----------------------------------------------------------------------------------------
# Concurrency, the time budget, the in-flight cap, idle connections
# ----------------------------------------------------------------------------------------
def test_a_slow_request_does_not_block_hello():
    seat, slow = slow_seat()
    with serving(seat) as (base, _):
        answers: list[httpx.Response] = []
        worker = threading.Thread(target=lambda: answers.append(post(base, {"id": "s", "method": "slow"})))
        worker.start()
        assert slow.started.wait(30)
        hello = httpx.get(base, timeout=30)  # answered while "slow" still runs
        assert hello.status_code == 200 and hello.json()["result"]["protocol"] == protocol.PROTOCOL_VERSION
        legal = post(base, {"id": 2, "method": "legal", "state": _hu_doc()})
        assert len(legal.json()["result"]["actions"]) == 38
        assert worker.is_alive() and not answers
        slow.release.set()
        worker.join(30)
        assert answers[0].json() == {"id": "s", "result": {"slept": True}}


def test_a_request_over_its_budget_is_answered_timeout():
    seat, slow = slow_seat()
    with serving(seat, request_timeout=0.2) as (base, _):
        try:
            answer = post(base, {"id": "late", "method": "slow"})
            assert answer.status_code == 200
            assert answer.json()["id"] == "late" and answer.json()["error"]["code"] == "timeout"
            assert slow.started.is_set() and not slow.release.is_set()  # answered while the work goes on
            assert httpx.get(base, timeout=30).status_code == 200
        finally:
            slow.release.set()


def test_requests_beyond_the_inflight_cap_get_503_busy():
    seat, slow = slow_seat()
    with serving(seat, max_inflight=1) as (base, _):
        assert httpx.get(base, timeout=30).status_code == 200  # hello, made once by a worker
        answers: list[httpx.Response] = []
        worker = threading.Thread(target=lambda: answers.append(post(base, {"id": "s", "method": "slow"})))
        worker.start()
        try:
            assert slow.started.wait(30)
            busy = post(base, {"id": 2, "method": "new", "game": "yatzy"})
            assert busy.status_code == 503 and error_code(busy) == "busy" and busy.headers["retry-after"] == "1"
            # hello does not need a worker once it is known
            assert httpx.get(base, timeout=30).json()["result"]["protocol"] == protocol.PROTOCOL_VERSION
            assert post(base, {"id": "h", "method": "hello", "client": "t"}).json()["id"] == "h"
        finally:
            slow.release.set()
            worker.join(30)
        assert answers[0].status_code == 200
        assert httpx.get(base, timeout=30).status_code == 200


def test_concurrent_equal_requests_get_equal_answers():
    request = {"id": 1, "method": "choose", "state": _hu_doc(), "agent": "random", "seed": 3}
    with serving() as (base, _):
        answers: list[dict] = []

        def ask() -> None:
            with httpx.Client(timeout=30) as client:
                for _ in range(5):
                    answers.append(client.post(base, json=request).json())

        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    assert len(answers) == 40 and all(a == answers[0] for a in answers) and "result" in answers[0]


def test_a_connection_without_a_request_head_is_closed():
    with serving(head_timeout=0.2) as (base, server):
        port = server.server_address[1]
        with socket.create_connection(("127.0.0.1", port), timeout=30) as silent, \
                socket.create_connection(("127.0.0.1", port), timeout=30) as half:
            half.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1")  # and never the rest
            assert silent.recv(100) == b""  # closed by the server (recv would raise on the 30 s timeout)
            assert half.recv(100) == b""
        assert httpx.get(base, timeout=30).status_code == 200


def test_a_slow_reader_is_dropped():
    """Issue 24, point 2 (scripts/attack_slow_reader.py at full size): pipelined requests
    whose answers are never read hold a connection no longer than the write timeout,
    with at most the output cap queued meanwhile."""
    import struct
    import time

    from kocka.agents.frontends.seat.connections import WRITE_BUFFER_BYTES

    with serving(write_timeout=1.0) as (base, server):
        port = server.server_address[1]
        with socket.create_connection(("127.0.0.1", port), timeout=30) as reader:
            reader.setblocking(False)
            data = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode() * 2000
            started = time.monotonic()
            while data and time.monotonic() - started < 2:
                try:
                    data = data[reader.send(data):]
                except BlockingIOError:
                    time.sleep(0.01)
            sent, queued = time.monotonic(), 0
            while time.monotonic() - sent < 8:
                tcp_state = struct.unpack("B", reader.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1))[0]
                if tcp_state == 7:  # TCP_CLOSE: reset by the server
                    break
                queued = max([queued] + [c.transport.get_write_buffer_size() for c in list(server._server.server_state.connections)
                                         if c.transport is not None])
                time.sleep(0.05)
            dropped_after = time.monotonic() - sent
        assert dropped_after < 4, dropped_after
        answer = httpx.get(base, timeout=30)
        assert answer.status_code == 200
        # the cap, and the one answer (body and head) that went over it
        assert 0 < queued <= WRITE_BUFFER_BYTES + len(answer.content) + 1024, (queued, len(answer.content))


def test_two_host_or_origin_headers_are_refused_400(url):
    """Issue 24, point 8: the checks read the first; whoever reads the last is told otherwise."""
    port = httpx.URL(url).port
    own = f"http://127.0.0.1:{port}"
    for doubled in (f"Origin: {own}\r\nOrigin: http://evil.example", f"Origin: {own}\r\nOrigin: {own}",
                    f"Host: 127.0.0.1:{port}"):
        reply = raw_exchange(port, (f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{doubled}\r\n\r\n").encode())
        assert reply.startswith(b"HTTP/1.1 400"), (doubled, reply[:200])
        assert b"more than one Origin" in reply or doubled.startswith("Host")  # h11 refuses a second Host itself
    assert httpx.get(url, headers={"Origin": own}, timeout=30).status_code == 200


def test_refusals_are_logged_at_debug_with_a_summary_at_most_every_10_s(url, caplog):
    import logging

    from kocka.agents.frontends.seat.connections import RefusalLog

    clock = [0.0]
    refusals = RefusalLog(interval=10, clock=lambda: clock[0])
    with caplog.at_level(logging.DEBUG, logger="kocka.seat"):
        for step in range(200):
            clock[0] = step * 0.1  # 200 refusals in 20 s
            refusals.refused("403 forbidden", f"refusal {step}")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    debugs = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert len(debugs) == 200 and len(warnings) == 2, warnings
    assert warnings[0].startswith("1 request refused: 403 forbidden x1")
    assert warnings[1].startswith("100 requests refused in the last 10 s: 403 forbidden x100")
    caplog.clear()
    with caplog.at_level(logging.INFO):  # over HTTP: 30 refused requests, at most one warning
        for _ in range(30):
            assert post(url, {"id": 1, "method": "hello"}, {"Origin": "http://evil.example"}).status_code == 403
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) <= 1


def test_the_lru_makes_a_value_once_under_threads():
    cache = protocol._LRU(4)
    go, made, got = threading.Event(), [], []

    def make() -> object:
        made.append(1)
        go.wait(30)
        return object()

    threads = [threading.Thread(target=lambda: got.append(cache.get_or_make("k", make))) for _ in range(8)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join(30)
    assert len(made) == 1 and len(got) == 8 and all(v is got[0] for v in got)


def test_stdio_answers_timeout_and_goes_on():
    seat, slow = slow_seat()
    lines = b'{"id": "late", "method": "slow"}\n{"id": 2, "method": "score", "game": "yatzy", "dice": [1, 1, 1, 1, 1], "box": "yatzy"}\n'
    out = io.BytesIO()
    try:
        serve_stdio(seat, io.BytesIO(lines), out, request_timeout=0.2)
    finally:
        slow.release.set()
    first, second = [json.loads(line) for line in out.getvalue().splitlines()]
    assert first["id"] == "late" and first["error"]["code"] == "timeout"
    assert second == {"id": 2, "result": {"dice": [1, 1, 1, 1, 1], "first_throw": False, "points": {"yatzy": 50}}}


def test_stdio_mode_imports_no_http_stack():
    code = ("import sys, io; from kocka.agents.frontends.commands import kocka_cli; from kocka.agents.frontends.seat import protocol as seat; "
            "seat.serve_stdio(seat.Seat(), io.BytesIO(b'{\"id\": 1, \"method\": \"hello\"}\\n'), io.BytesIO()); "
            "print(sorted(m for m in ('starlette', 'uvicorn', 'h11', 'anyio') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# ----------------------------------------------------------------------------------------
# The safe JSON loader, in the seat and the CLI
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, kind", [
    ("[" * 30_000 + "]" * 30_000, jsonio.JSONLimitError),
    ('{"a": ' * 12_000 + "1" + "}" * 12_000, jsonio.JSONLimitError),
    ("[" * 990 + "]" * 990, jsonio.JSONLimitError),
    ("[" * (jsonio.MAX_DEPTH + 1) + "]" * (jsonio.MAX_DEPTH + 1), jsonio.JSONLimitError),
    ("9" * 5000, jsonio.JSONLimitError),
    ("-" + "9" * (jsonio.MAX_INT_DIGITS + 1), jsonio.JSONLimitError),
    ("[1e400]", jsonio.JSONLimitError),
    ("[NaN]", jsonio.JSONInputError),
    ("{", jsonio.JSONInputError),
    (b"\xff", jsonio.JSONInputError),
])
def test_the_loader_refuses_hostile_json(text, kind):
    with pytest.raises(kind) as caught:
        jsonio.loads(text, "input")
    assert type(caught.value) is kind and "input" in str(caught.value) and "\n" not in str(caught.value)


def test_the_loader_accepts_what_the_limits_allow():
    deep = "[" * jsonio.MAX_DEPTH + "]" * jsonio.MAX_DEPTH
    assert jsonio.loads(deep) == eval(deep)
    assert jsonio.loads(str(2**63 - 1)) == 2**63 - 1 and jsonio.loads("-" + "9" * jsonio.MAX_INT_DIGITS) == -int("9" * 64)
    assert jsonio.loads('{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')["a"].startswith("[")
    assert jsonio.loads(b'{"x": 1.5}') == {"x": 1.5}


@pytest.mark.parametrize("line", ["[" * 990 + "]" * 990, '{"id": 1, "method": "new", "game": "kocka", "rules": {"a": '
                                  + "[" * 990 + "]" * 990 + "}}", '{"id": 1, "method": "hello", "client": ' + "7" * 5000 + "}"])
def test_hostile_json_is_invalid_request_in_the_seat(line):
    response = json.loads(Seat().handle_line(line))
    assert response["id"] is None and response["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("option, value, message", [
    ("--card", '{"pair": ' + "9" * 5000 + "}", "--card: an integer of 5000 digits"),
    ("--card", "[" * 30_000 + "]" * 30_000, "--card nests deeper than"),
    ("--state", '{"a": ' * 12_000 + "1" + "}" * 12_000, "--state nests deeper than"),
    ("--card", '{"pair": ', "--card is not valid JSON"),
])
def test_cli_hint_turns_hostile_json_into_one_line(option, value, message):
    outcome = CliRunner().invoke(main, ["hint", "kockapoker", "--dice", "1", "1", "3", "4", "6", "--roll", "1", "--lang", "en", option, value])
    assert outcome.exit_code == 2, outcome.output
    assert outcome.output.startswith("error: ") and outcome.output.count("\n") == 1
    assert message in outcome.output
    assert outcome.exception is None or isinstance(outcome.exception, SystemExit)


@pytest.mark.parametrize("command", [["seat", "--http", "127.0.0.1:0"], ["web", "--port", "0"]])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_write_timeout_must_be_a_positive_number_of_seconds(command, value):
    """--write-timeout (issue 24, point 2) is refused in one line before anything is bound
    unless it is a positive, finite number of seconds."""
    outcome = CliRunner().invoke(main, [*command, "--write-timeout", value])
    assert outcome.exit_code == 2 and "--write-timeout must be a positive number of seconds" in outcome.output, outcome.output


def test_write_timeout_reaches_the_connection_guard():
    """The option's value is the guard's: ``http_options`` carries it to the server's
    connections (tests/test_seat_http.py::test_a_slow_reader_is_dropped measures it)."""
    from kocka.agents.frontends.seat.http import http_options
    from kocka.agents.frontends.seat.workers import DEFAULT_WRITE_TIMEOUT

    assert http_options("127.0.0.1:0").write_timeout == DEFAULT_WRITE_TIMEOUT
    assert http_options("127.0.0.1:0", write_timeout=2.5).write_timeout == 2.5
    outcome = CliRunner().invoke(main, ["seat", "--write-timeout", "2"])
    assert outcome.exit_code == 2 and "are for --http" in outcome.output
