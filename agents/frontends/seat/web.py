"""``kocka web``: the hint companion in a browser, phone-sized, on the AI seat's HTTP server.

One process serves both: the page (``GET /`` from a browser, and ``/static/``: plain
HTML, CSS and one ES module, package data of :mod:`kocka.agents.frontends`, no build
step, nothing fetched from elsewhere) and the seat protocol (``POST /``, docs/PROTOCOL.md)
that the page speaks, with the seat's checks in front of both
(:mod:`kocka.agents.frontends.seat.http`: ``Host``, ``Origin``, token, limits). The page
holds the game itself (the state documents the seat hands it) and asks the seat for every
rule, hint and number, so it is also the reference client for frontend builders.

``GET /`` stays ``hello`` for programs: a request that does not accept ``text/html``
(no browser navigation) gets the seat's answer.
"""
from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from typing import Any, Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kocka.agents.frontends.seat.protocol import PROTOCOL_VERSION, Seat, SeatOptions
from kocka.agents.frontends.seat.http import SeatApp, SeatHTTPServer, _Refusal, http_options, run_server
from kocka.solver.rules.words import LANGUAGES

DEFAULT_ADDRESS = "127.0.0.1:8080"
STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
}
SECURITY_HEADERS = {
    # everything the page needs comes from this server; nothing runs that it did not send
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
LANG_MARK = "%KOCKA_LANG%"


def static_text(name: str) -> str:
    """One of the page's files, read from the installed package."""
    return (importlib.resources.files("kocka.agents.frontends.seat") / "static" / name).read_text(encoding="utf-8")


@dataclass
class WebPage:
    """The page's routes in front of one :class:`SeatApp`: ``GET /`` (the page for a
    browser, ``hello`` for others) and ``GET /static/NAME``. ``lang`` is the page's
    default language for box names (None: each game's own)."""

    app: SeatApp
    lang: str | None = None

    def __post_init__(self) -> None:
        if self.lang is not None and self.lang not in LANGUAGES:
            raise ValueError(f"--lang must be one of {', '.join(LANGUAGES)}, got {self.lang!r}")
        self.files = {name: static_text(name).encode("utf-8") for name in STATIC_FILES}
        self.files["index.html"] = self.files["index.html"].replace(LANG_MARK.encode(), (self.lang or "").encode())

    def routes(self) -> list[BaseRoute]:
        return [Route("/", self.index, methods=["GET", "HEAD"]),
                Route("/static/{name}", self.static, methods=["GET", "HEAD"])]

    async def index(self, request: Request) -> Response:
        if "text/html" not in request.headers.get("accept", ""):
            return await self.app.endpoint(request)  # a program's GET /: hello
        return self._file(request, "index.html")

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC_FILES or name == "index.html":
            return Response(f"no file {name[:80]!r} here\n", 404, media_type="text/plain")
        return self._file(request, name)

    def _file(self, request: Request, name: str) -> Response:
        try:
            self.app.check_host(request)
        except _Refusal as refusal:
            return Response(f"{refusal}\n", refusal.status, media_type="text/plain")
        body = b"" if request.method == "HEAD" else self.files[name]
        return Response(body, 200, headers={**SECURITY_HEADERS, "Content-Length": str(len(self.files[name]))},
                        media_type=STATIC_FILES[name])


def pages(lang: str | None) -> Any:
    """The ``pages`` hook of :class:`SeatHTTPServer` that serves the page."""
    return lambda app: WebPage(app, lang).routes()


def make_web_server(seat: Seat, address: str = DEFAULT_ADDRESS, lang: str | None = None, log_level: str = "warning",
                    **options: Any) -> SeatHTTPServer:
    """The page and the seat on ``address`` (``HOST:PORT``), bound and ready for
    ``serve_forever()``; ``options`` are :class:`~kocka.agents.frontends.seat.http.HTTPOptions`
    fields. Raises ValueError for a bad address, language or option, OSError when the
    address cannot be bound."""
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(f"--lang must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    return SeatHTTPServer(seat, http_options(address, **options), log_level, pages=pages(lang))


def page_url(server: SeatHTTPServer, token: str | None = None) -> str:
    """The address to open; a token travels in the fragment, which browsers never send."""
    return server.url + (f"#token={token}" if token else "")


def serve_web(address: str, seat_options: SeatOptions, lang: str | None = None, log_level: str = "warning",
              token: str | None = None, allow_hosts: Sequence[str] = (), request_timeout: float | None = 10.0) -> int:
    """``kocka web``: serve until Ctrl-C."""
    server = make_web_server(Seat(seat_options), address, lang, log_level, token=token, allow_hosts=tuple(allow_hosts),
                             request_timeout=request_timeout)
    return run_server(server, f"kocka web: {PROTOCOL_VERSION} and the page on {page_url(server, token)}",
                      remote_warning=f"kocka web: warning: listening on {server.options.host}, not a loopback "
                                     "address: whoever can reach it and has the token can use it, and HTTP is not "
                                     "encrypted")
