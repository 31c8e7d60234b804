"""The AI seat over HTTP: ``kocka seat --http HOST:PORT`` (docs/PROTOCOL.md, "HTTP").

uvicorn, with the h11 parser (strict HTTP/1.1 framing: chunked bodies decoded, malformed
heads and lengths refused with 400), serves a small starlette app. The app checks, in
this order, before a request reaches the seat:

0. not both ``Transfer-Encoding`` and ``Content-Length``, and at most one ``Host`` and one
   ``Origin`` -- 400 ``invalid_request``, and the connection is closed; headers within
   ``max_head_bytes`` -- 431 (or 400 from h11);
1. ``Host`` is a name of this server (refuses DNS rebinding) -- 403 ``forbidden``;
2. a browser's ``Origin`` is the server's own or one named by ``--allow-origin`` (then
   with CORS headers) -- 403 ``forbidden``;
3. ``Authorization: Bearer <token>`` when the seat has a ``--token`` -- 401 ``unauthorized``;
4. path and method (``POST /``, ``GET /`` is ``hello``) -- 404 / 405 ``invalid_request``;
5. ``Content-Type: application/json`` -- 415 ``invalid_request``;
6. the body, read with a cap and a deadline -- 413 ``invalid_request``, 408 ``timeout``;
7. a free worker (at most ``max_inflight`` requests at once) -- 503 ``busy``.

The seat then answers in a worker thread (:class:`kocka.agents.frontends.seat.workers.Workers`),
not on the event loop, so a slow request does not hold up others; at the request's
deadline the app answers ``timeout`` while the thread finishes on its own. Only
``hello``, a constant once it has been made, is answered on the event loop, so that it
never waits behind the requests in the workers. ``quit`` is
refused (403 ``forbidden``) unless ``--allow-quit``. Every other answer of the seat,
errors included, has status 200.

Connections that send no request head within ``head_timeout`` seconds are closed
(uvicorn closes idle keep-alive connections, but not a new or half-sent one), and so are
those that read none of their queued answers for ``write_timeout`` seconds (a slow
reader), whose queued output is capped meanwhile: see
:class:`~kocka.agents.frontends.seat.connections.GuardedH11`; idle keep-alive
connections after ``keep_alive`` seconds. Refusals are logged at debug level, with one
warning at most every 10 s that counts them
(:class:`~kocka.agents.frontends.seat.connections.RefusalLog`).

With ``workers`` > 1 (``kocka seat --http ... --workers N``) uvicorn's supervisor runs N
worker processes on the one listening socket (:func:`serve_workers`); each is the server
above, with every check, and maps the same table files, so their pages are shared.

This module is imported only for HTTP: the stdio seat runs on the standard library.
"""
from __future__ import annotations

import asyncio
import dataclasses
import hmac
import ipaddress
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TextIO

import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kocka.agents.frontends.seat.connections import GuardedH11, RefusalLog
from kocka.agents.frontends.seat.encoding import (
    MAX_LINE_BYTES, ProtocolError, busy_response, decode_request, encode_response, error_response, timeout_response,
)
from kocka.agents.frontends.seat.protocol import PROTOCOL_VERSION, Seat, SeatOptions, parse_address
from kocka.agents.frontends.seat.workers import (
    DEFAULT_MAX_INFLIGHT, DEFAULT_REQUEST_TIMEOUT, DEFAULT_WORKER_THREADS, DEFAULT_WRITE_TIMEOUT, Job, Workers, answer_work,
)

log = logging.getLogger("kocka.seat")

HELLO_BODY = b'{"id": null, "method": "hello"}'
ENDPOINTS = ("/", "/seat")
HELLO_ENDPOINTS = ("/", "/seat", "/hello")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
WILDCARD_HOSTS = ("0.0.0.0", "::", "")
QUIT_REFUSED = "quit is disabled over HTTP (start the seat with --allow-quit to allow it)"
MAX_WORKERS = 64
"""More worker processes than any machine the seat runs on has cores for."""
SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the GIL while others wait (Python's default is 0.005). The
server process uses 1 ms so that the event loop gets the interpreter back quickly from
worker threads that compute: measured with scripts/seat_load.py (8 clients), the p99 of
``hello`` while a CPU-bound request runs fell from 66 to 39 ms at the same throughput."""


# ----------------------------------------------------------------------------------------
# Options
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HTTPOptions:
    """How the HTTP seat listens and what it accepts (see the module docstring).

    ``allow_origins`` are normalised origins (``scheme://host[:port]``); ``allow_hosts``
    extra ``Host`` names (``name`` or ``name:port``). Times are in seconds;
    ``request_timeout`` None means no budget.
    """

    host: str = "127.0.0.1"
    port: int = 0
    token: str | None = None
    allow_origins: tuple[str, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    allow_quit: bool = False
    request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT
    max_inflight: int = DEFAULT_MAX_INFLIGHT
    worker_threads: int = DEFAULT_WORKER_THREADS
    max_body: int = MAX_LINE_BYTES
    head_timeout: float = 5.0
    body_timeout: float = 10.0
    write_timeout: float = DEFAULT_WRITE_TIMEOUT
    keep_alive: int = 5
    max_head_bytes: int = 16 * 1024
    max_connections: int = 1024
    shutdown_grace: int = 3
    workers: int = 1

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address) is the loopback interface: ``localhost`` or a
    loopback IP literal. Other names are not resolved: they count as non-loopback."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def normalise_origin(url: str) -> str:
    """``"http://LocalHost:5173/"`` -> ``"http://localhost:5173"``: an origin as browsers
    send it in ``Origin`` (default ports left out). Raises ValueError for anything else."""
    parts = urllib.parse.urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1 or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"--allow-origin needs an origin like http://localhost:5173 (scheme, host, port), got {url!r}")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default = {"http": 80, "https": 443}[parts.scheme]
    return f"{parts.scheme}://{host}" + ("" if port in (None, default) else f":{port}")


def http_options(address: str, **options: Any) -> HTTPOptions:
    """Checked :class:`HTTPOptions` for ``--http ADDRESS`` and the other command options.
    Raises ValueError (one line) for a bad address, origin or limit, and for a
    non-loopback address without a token."""
    host, port = parse_address(address)
    options["allow_origins"] = tuple(normalise_origin(o) for o in options.get("allow_origins", ()))
    options["allow_hosts"] = tuple(h.strip().lower() for h in options.get("allow_hosts", ()) if h.strip())
    result = HTTPOptions(host=host, port=port, **options)
    if result.token is not None and not result.token.strip():
        raise ValueError("--token must not be empty")
    if not result.loopback and result.token is None:
        raise ValueError(f"--http {address}: {host!r} is not a loopback address, so anyone who can reach it could use "
                         "the seat; give --token SECRET (or KOCKA_SEAT_TOKEN), or bind 127.0.0.1")
    if result.request_timeout is not None and not result.request_timeout > 0:
        raise ValueError(f"--request-timeout must be a positive number of seconds, got {result.request_timeout!r}")
    if result.max_inflight < 1:
        raise ValueError(f"--max-inflight must be 1 or more, got {result.max_inflight!r}")
    if result.worker_threads < 1:
        raise ValueError(f"--worker-threads must be 1 or more, got {result.worker_threads!r}")
    if not 0 < result.write_timeout < float("inf"):  # NaN too
        raise ValueError(f"--write-timeout must be a positive number of seconds, got {result.write_timeout!r}")
    if not 1 <= result.workers <= MAX_WORKERS:
        raise ValueError(f"--workers must be 1 to {MAX_WORKERS} processes, got {result.workers!r}")
    return result


def allowed_host_headers(options: HTTPOptions, port: int) -> frozenset[str] | None:
    """The ``Host`` header values this server answers (None: any, for a wildcard bind
    without ``allow_hosts``; such a bind needs a token)."""
    names: set[str] = set()
    host = options.host.lower()
    if options.loopback:
        names.update(LOOPBACK_NAMES)
        names.add(f"[{host}]" if ":" in host else host)
    elif host not in WILDCARD_HOSTS:
        names.add(f"[{host}]" if ":" in host else host)
    elif not options.allow_hosts:
        return None
    else:
        names.update(LOOPBACK_NAMES)
    allowed = {f"{name}:{port}" for name in names}
    for extra in options.allow_hosts:
        name, sep, extra_port = extra.rpartition(":")
        allowed.add(extra if sep and extra_port.isdigit() and not extra.endswith("]") else f"{extra}:{port}")
    if port == 80:
        allowed.update(name.rpartition(":")[0] for name in list(allowed) if name.endswith(":80"))
    return frozenset(allowed)


# ----------------------------------------------------------------------------------------
# The app
# ----------------------------------------------------------------------------------------
class _Refusal(Exception):
    """A request refused before the seat sees it: HTTP ``status``, protocol ``code``."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.headers = status, code, headers or {}


_CLOSE = {"Connection": "close"}


class SeatApp:
    """The checks of the module docstring in front of one :class:`Seat`."""

    def __init__(self, seat: Seat, options: HTTPOptions, port: int, on_quit: Callable[[], None] | None = None,
                 pages: Callable[["SeatApp"], Sequence[BaseRoute]] | None = None,
                 refusals: RefusalLog | None = None) -> None:
        self.seat = seat
        self.options = options
        self.refusals = RefusalLog() if refusals is None else refusals
        self.hosts = allowed_host_headers(options, port)
        own = set() if self.hosts is None else {f"http://{h}".removesuffix(":80") for h in self.hosts}
        self.origins = frozenset(options.allow_origins)
        self.same_origins = frozenset(own)
        self.refuse = {} if options.allow_quit else {"quit": QUIT_REFUSED}
        self.workers = Workers(options.max_inflight, options.worker_threads, options.request_timeout)
        self._hello_text: str | None = None  # the answer to GET /, once a worker has made it
        self.on_quit = on_quit
        methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        # ``pages``: routes served before the seat's own, made from this app (kocka web's page)
        own = [Route("/{path:path}", self.endpoint, methods=methods)]
        self.app = Starlette(routes=[*(pages(self) if pages is not None else ()), *own],
                             exception_handlers={HTTPException: self._http_exception})

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)

    # ----- one request -----
    async def endpoint(self, request: Request) -> Response:
        started = time.perf_counter()
        cors: dict[str, str] = {}
        background = None
        try:
            self.check_framing(request)
            self.check_host(request)
            cors = self.check_origin(request)
            if request.method == "OPTIONS":
                return self.preflight(request, cors)
            self.check_token(request)
            body = await self.body(request)
            status, text = await self.answer(body)
            if self.seat.quit_requested and self.on_quit is not None:
                background = BackgroundTask(self.on_quit)
        except _Refusal as refusal:
            status = refusal.status
            text = encode_response(error_response(None, refusal.code, str(refusal)))
            cors = {**cors, **refusal.headers}
            self.refusals.refused(f"{status} {refusal.code}", f"{request.method} {request.url.path[:100]!r}: {refusal}")
        except ClientDisconnect:
            return Response(status_code=400, headers=_CLOSE)
        log.debug("http %s %s -> %d in %.3f ms", request.method, request.url.path, status, 1000 * (time.perf_counter() - started))
        return Response(text, status, headers=cors, media_type="application/json", background=background)

    async def _http_exception(self, request: Request, exc: HTTPException) -> Response:
        """Starlette's own refusals (a method no route takes) in the protocol's shape."""
        code = "invalid_request"
        text = encode_response(error_response(None, code, f"HTTP {exc.status_code}: {exc.detail}; POST requests to /"))
        return Response(text, exc.status_code, headers={"Allow": "GET, POST, OPTIONS"}, media_type="application/json")

    def check_framing(self, request: Request) -> None:
        """h11 reads a request with both ``Transfer-Encoding`` and ``Content-Length`` by
        the former (RFC 9112 section 6.1) but keeps the connection; such a request is a
        smuggling attempt or a broken proxy, so it is refused and the connection closed,
        as the RFC requires, before anything pipelined behind it is read."""
        if "transfer-encoding" in request.headers and "content-length" in request.headers:
            raise _Refusal(400, "invalid_request", "a request with both Transfer-Encoding and Content-Length", _CLOSE)
        # the checks read the first Host and Origin; a second one is for whoever reads the
        # last (a proxy, a browser extension), so a request with two says two things (h11
        # refuses a second Host already; Host stays here so that no parser change lets one by)
        for name in (b"host", b"origin"):
            if sum(1 for key, _ in request.scope["headers"] if key == name) > 1:
                raise _Refusal(400, "invalid_request", f"a request with more than one {name.decode().title()} header", _CLOSE)
        # h11 caps a head that arrives in pieces; one that arrives in one read is counted here
        size = sum(len(name) + len(value) + 4 for name, value in request.scope["headers"])
        if size > self.options.max_head_bytes:
            raise _Refusal(431, "invalid_request", f"request headers longer than {self.options.max_head_bytes} bytes", _CLOSE)

    def check_host(self, request: Request) -> None:
        host = request.headers.get("host", "").strip().lower()
        if self.hosts is not None and host not in self.hosts:
            raise _Refusal(403, "forbidden", f"Host {host!r} is not a name of this seat; "
                                             "start it with --allow-host NAME to accept that name")

    def check_origin(self, request: Request) -> dict[str, str]:
        """CORS headers for an allowed foreign origin, {} for no or the own origin;
        raises for any other. A browser request from another site that shows no Origin
        (``Sec-Fetch-Site``) is refused too."""
        origin = request.headers.get("origin")
        if origin is None:
            if request.headers.get("sec-fetch-site", "").lower() in ("cross-site", "same-site"):
                raise _Refusal(403, "forbidden", "a cross-site browser request without an Origin the seat allows")
            return {}
        try:
            normal = normalise_origin(origin)
        except ValueError:
            normal = origin  # "null" (a sandboxed page, a file) and other odd values
        if normal in self.origins:
            return {"Access-Control-Allow-Origin": origin, "Vary": "Origin"}
        if normal in self.same_origins:
            return {}
        raise _Refusal(403, "forbidden", f"Origin {origin[:100]!r} is not allowed; start the seat with "
                                         "--allow-origin ORIGIN to let that page use it")

    def preflight(self, request: Request, cors: dict[str, str]) -> Response:
        headers = {"Allow": "GET, POST, OPTIONS"}
        if cors:
            headers.update(cors)
            headers.update({"Access-Control-Allow-Methods": "GET, POST",
                            "Access-Control-Allow-Headers": "Authorization, Content-Type",
                            "Access-Control-Max-Age": "600"})
            if request.headers.get("access-control-request-private-network", "").lower() == "true":
                headers["Access-Control-Allow-Private-Network"] = "true"
        return Response(status_code=204, headers=headers)

    def check_token(self, request: Request) -> None:
        token = self.options.token
        if token is None:
            return
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            raise _Refusal(401, "unauthorized", "this seat needs the header 'Authorization: Bearer <token>'",
                           {"WWW-Authenticate": 'Bearer realm="kocka seat"'})
        if not hmac.compare_digest(given.strip().encode(), token.encode()):
            raise _Refusal(401, "unauthorized", "wrong bearer token",
                           {"WWW-Authenticate": 'Bearer realm="kocka seat", error="invalid_token"'})

    async def body(self, request: Request) -> bytes:
        """The request to hand to the seat: ``hello`` for a GET, else the POST body."""
        path, method = request.url.path, request.method
        if method in ("GET", "HEAD"):
            if path not in HELLO_ENDPOINTS:
                raise _Refusal(404, "invalid_request", f"no endpoint {path[:100]!r}; GET / is hello, POST / takes requests")
            return HELLO_BODY
        if method != "POST":
            raise _Refusal(405, "invalid_request", f"method {method} is not served; POST requests to /",
                           {"Allow": "GET, POST, OPTIONS"})
        if path not in ENDPOINTS:
            raise _Refusal(404, "invalid_request", f"no endpoint {path[:100]!r}; POST requests to /")
        return await self.json_body(request)

    async def json_body(self, request: Request) -> bytes:
        """A POST's JSON body, read with the cap and the deadline (steps 5 and 6 of the
        module docstring); ``kocka web``'s own POST routes read theirs with it too."""
        media_type, *params = [p.strip().lower() for p in request.headers.get("content-type", "").split(";")]
        charsets = [p.partition("=")[2].strip('"') for p in params if p.startswith("charset=")]
        if media_type != "application/json" or any(c not in ("utf-8", "utf8") for c in charsets):
            raise _Refusal(415, "invalid_request", f"the body must be Content-Type: application/json (UTF-8), "
                                                   f"got {request.headers.get('content-type', 'none')[:100]!r}")
        cap = self.options.max_body
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise _Refusal(413, "invalid_request", f"request body longer than {cap} bytes", _CLOSE)
        data = bytearray()
        try:
            async with asyncio.timeout(self.options.body_timeout):
                async for chunk in request.stream():
                    if len(data) + len(chunk) > cap:
                        raise _Refusal(413, "invalid_request", f"request body longer than {cap} bytes", _CLOSE)
                    data += chunk
        except TimeoutError:
            raise _Refusal(408, "timeout", f"request body not received within {self.options.body_timeout:g} s", _CLOSE) from None
        return bytes(data)

    async def answer(self, body: bytes) -> tuple[int, str]:
        """The seat's answer to ``body`` from a worker thread, or ``timeout`` at the deadline.

        ``hello`` is answered here on the event loop once its result is known (it is a
        constant of the process): it never waits for a worker thread, however many
        requests are being worked on.
        """
        if self._hello_text is not None:
            hello = self._quick_hello(body)
            if hello is not None:
                return 200, hello
        loop = asyncio.get_running_loop()
        finished = loop.create_future()

        def on_done(job: Job) -> None:  # on the worker thread
            try:
                loop.call_soon_threadsafe(_settle, finished)
            except RuntimeError:  # the loop has closed: the server stopped meanwhile
                pass

        job = self.workers.submit(answer_work(self.seat, body, self.refuse), on_done)
        if job is None:
            raise _Refusal(503, "busy", busy_response()["error"]["message"], {"Retry-After": "1"})
        timeout = self.options.request_timeout
        try:
            await asyncio.wait_for(asyncio.shield(finished), timeout)
        except TimeoutError:
            self.workers.abandon(job)
            log.warning("request %r: no answer within %g s; answered timeout", job.request_id, timeout)
            return 200, encode_response(timeout_response(job.request_id, timeout))
        if body == HELLO_BODY and job.error_code is None:
            self._hello_text = job.value
        return (403 if job.error_code == "forbidden" else 200), job.value

    def _quick_hello(self, body: bytes) -> str | None:
        """The answer to a small ``hello`` request, None for any other body."""
        if body == HELLO_BODY:
            return self._hello_text
        if len(body) > 512 or b"hello" not in body:
            return None
        try:
            request = decode_request(body)
        except ProtocolError:
            return None
        if not (isinstance(request, dict) and request.get("method") == "hello" and set(request) <= {"id", "method", "client"}):
            return None
        return encode_response(self.seat.handle(request))


def _settle(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


# ----------------------------------------------------------------------------------------
# uvicorn
# ----------------------------------------------------------------------------------------
def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say so, and
    # without it every response (head, then body) waits ~40 ms for a delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def _uvicorn_settings(options: HTTPOptions, log_level: str) -> dict[str, Any]:
    """uvicorn's settings for the seat, the same in one process and in every worker."""
    return dict(ws="none", lifespan="off", interface="asgi3", log_config=None, log_level=log_level,
                access_log=False, server_header=False, proxy_headers=False, timeout_keep_alive=options.keep_alive,
                h11_max_incomplete_event_size=options.max_head_bytes, limit_concurrency=options.max_connections,
                timeout_graceful_shutdown=options.shutdown_grace)


class SeatHTTPServer:
    """The seat on a bound socket, served by uvicorn: :meth:`serve_forever` in one
    thread, :meth:`shutdown` from another (the shape of :mod:`socketserver`'s servers).

    Parameters
    ----------
    seat:
        The seat that answers.
    options:
        From :func:`http_options`.
    log_level:
        uvicorn's own log level (its log goes to the ``uvicorn`` loggers).
    pages:
        Routes to serve besides the seat's, made from the :class:`SeatApp` (``kocka web``).
    """

    def __init__(self, seat: Seat, options: HTTPOptions, log_level: str = "warning",
                 pages: Callable[[SeatApp], Sequence[BaseRoute]] | None = None) -> None:
        self.options = options
        self.socket = _bind(options.host, options.port)
        self.server_address: tuple[str, int] = self.socket.getsockname()[:2]
        self.refusals = RefusalLog()
        self.app = SeatApp(seat, options, self.server_address[1], on_quit=self._quit, pages=pages, refusals=self.refusals)
        protocol = type("SeatH11", (GuardedH11,), {"head_timeout": options.head_timeout,
                                                    "write_timeout": options.write_timeout, "refusals": self.refusals})
        self._server = uvicorn.Server(uvicorn.Config(self.app, http=protocol, **_uvicorn_settings(options, log_level)))
        self._running = threading.Event()
        self._stopped = threading.Event()

    @property
    def url(self) -> str:
        host, port = self.server_address
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/"

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown`, ``quit`` (with ``allow_quit``) or a signal."""
        self._running.set()
        try:
            asyncio.run(self._server.serve(sockets=[self.socket]))
        finally:
            self._stopped.set()

    def _quit(self) -> None:
        self._server.should_exit = True

    def shutdown(self) -> None:
        """Stop serving and wait until :meth:`serve_forever` has returned."""
        self._server.should_exit = True
        if self._running.is_set():
            self._stopped.wait()

    def server_close(self) -> None:
        self.socket.close()


def serve(seat: Seat, options: HTTPOptions, log_level: str = "warning") -> int:
    """``kocka seat --http``: bind, say where on stderr, serve until quit or Ctrl-C
    (``options.workers`` > 1: in that many processes, :func:`serve_workers`)."""
    if options.workers > 1:
        return serve_workers(seat.options, options, log_level)
    server = SeatHTTPServer(seat, options, log_level)
    return run_server(server, f"kocka seat: serving {PROTOCOL_VERSION} on {server.url}", remote_warning=_remote_warning(options))


def _remote_warning(options: HTTPOptions) -> str:
    return (f"kocka seat: warning: listening on {options.host}, not a loopback address: whoever can reach it and has "
            "the token can use the seat, and HTTP is not encrypted (put a TLS proxy in front)")


# ----------------------------------------------------------------------------------------
# Worker processes
# ----------------------------------------------------------------------------------------
WORKER_ENV = "KOCKA_SEAT_WORKER"
"""How :func:`serve_workers` hands its options to the worker processes: uvicorn starts
them with ``spawn`` and makes each one's app by calling :func:`worker_app` with no
arguments. Only the children (same user) can read a process's environment."""


class WorkerH11(GuardedH11):
    """The connection guards of a worker process (an import string for uvicorn, which
    pickles its settings to the workers); :func:`worker_app` sets the limits."""


def worker_app() -> SeatApp:
    """uvicorn's app factory in each worker process of :func:`serve_workers`: the seat and
    the checks of one process, from :data:`WORKER_ENV`. Every request carries its whole
    state (the protocol's state documents), so any worker answers any request."""
    doc = json.loads(os.environ[WORKER_ENV])
    options = HTTPOptions(**{k: tuple(v) if isinstance(v, list) else v for k, v in doc["http"].items()})
    logging.basicConfig(stream=sys.stderr, level=doc["log_level"].upper(),
                        format=f"kocka seat[{os.getpid()}]: %(levelname)s %(message)s")
    sys.setswitchinterval(SWITCH_INTERVAL)  # the process is the server's alone (run_server)
    refusals = RefusalLog()
    WorkerH11.head_timeout, WorkerH11.write_timeout, WorkerH11.refusals = \
        options.head_timeout, options.write_timeout, refusals
    supervisor = doc["supervisor"]

    def stop_all() -> None:  # ``quit`` (--allow-quit) stops the server, not one worker uvicorn would restart
        if os.getppid() == supervisor:
            os.kill(supervisor, signal.SIGTERM)

    return SeatApp(Seat(SeatOptions(**doc["seat"])), options, doc["port"], on_quit=stop_all, refusals=refusals)


def serve_workers(seat_options: SeatOptions, options: HTTPOptions, log_level: str = "warning",
                  stream: TextIO | None = None) -> int:
    """Bind once and serve on ``options.workers`` processes sharing the socket, under
    uvicorn's supervisor (it restarts a worker that dies, and stops them all on SIGINT or
    SIGTERM), until Ctrl-C, a signal, or ``quit`` with ``allow_quit``; returns 0."""
    from uvicorn.supervisors import Multiprocess

    out = sys.stderr if stream is None else stream
    sock = _bind(options.host, options.port)
    host, port = sock.getsockname()[:2]
    os.environ[WORKER_ENV] = json.dumps({
        "http": dataclasses.asdict(options), "port": port, "log_level": log_level, "supervisor": os.getpid(),
        "seat": {"cache_dir": None if seat_options.cache_dir is None else str(seat_options.cache_dir),
                 "build_missing": seat_options.build_missing},
    })
    config = uvicorn.Config(f"{__name__}:worker_app", factory=True, workers=options.workers,
                            http=f"{__name__}:{WorkerH11.__name__}", **_uvicorn_settings(options, log_level))
    if not options.loopback:
        print(_remote_warning(options), file=out, flush=True)
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/"
    print(f"kocka seat: serving {PROTOCOL_VERSION} on {url} ({options.workers} worker processes)", file=out, flush=True)
    try:
        Multiprocess(config, sockets=[sock]).run()
    except KeyboardInterrupt:
        pass
    finally:
        os.environ.pop(WORKER_ENV, None)
        sock.close()
    return 0


def run_server(server: SeatHTTPServer, announce: str, remote_warning: str | None = None,
               stream: TextIO | None = None) -> int:
    """Serve ``server`` in this process until ``quit``, :meth:`~SeatHTTPServer.shutdown`
    or Ctrl-C, then close its socket; returns 0, the exit status.

    Before serving, the process's thread switch interval becomes :data:`SWITCH_INTERVAL`
    (the process is the server's alone), and ``remote_warning`` (only when the server's
    address is not a loopback one) and then ``announce`` are printed to ``stream``
    (default: stderr at the time of the call), each flushed.

    Why one function: ``kocka seat --http`` (:func:`serve`), ``kocka web``
    (:func:`kocka.agents.frontends.seat.web.serve_web`) and the server child of
    ``scripts/seat_load.py`` start and stop a seat server the same way and differ only in
    what they print."""
    out = sys.stderr if stream is None else stream
    sys.setswitchinterval(SWITCH_INTERVAL)
    if remote_warning is not None and not server.options.loopback:
        print(remote_warning, file=out, flush=True)
    print(announce, file=out, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
