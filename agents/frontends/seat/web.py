"""``kocka web``: the hint companion in a browser, phone-sized, on the AI seat's HTTP server.

One process serves both: the page (``GET /`` from a browser, and ``/static/``: plain
HTML, CSS and one ES module, package data of :mod:`kocka.agents.frontends`, no build
step, nothing fetched from elsewhere) and the seat protocol (``POST /``, docs/PROTOCOL.md)
that the page speaks, with the seat's checks in front of both
(:mod:`kocka.agents.frontends.seat.http`: ``Host``, ``Origin``, token, limits). The page
holds the game itself (the state documents the seat hands it) and asks the seat for every
rule, hint and number, so it is also the reference client for frontend builders.

The page's own words come from the same message catalogues as everything else
(:mod:`kocka.solver.base.i18n`, domain ``page``): ``GET /i18n/<lang>.json`` is one
language's messages by English id, which ``app.js`` reads through ``t(...)``; every seat
request it sends carries that language as ``lang``, so the seat's labels, advice and error
messages come back in it too.

``GET /`` stays ``hello`` for programs: a request that does not accept ``text/html``
(no browser navigation) gets the seat's answer.

A phone at the table (docs/TABLE.md, "On a phone"): ``kocka web --lan`` binds this
machine's address on the local network (:func:`lan_address`) with a fresh token and prints
the address and a QR code of it (:func:`lan_announcement`). The page is installable: a web
app manifest (``GET /manifest.webmanifest``) and a service worker (``GET /sw.js``) that keeps
the page's own files for when the server is away; the hints always come from the server.

Short position links (:class:`PositionLinks`): ``POST /link`` turns a state document into
the few query fields of a link (``game``, ``n`` players, ``z`` the position packed), ``POST
/link/open`` turns them back into the state document, checked by the seat. One
implementation, here; the page only asks.
"""
from __future__ import annotations

import base64
import binascii
import importlib.resources
import ipaddress
import io
import json
import re
import secrets
import socket
import sys
import zlib
from dataclasses import dataclass, field
from typing import Any, Sequence, TextIO

import segno
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kocka.agents.frontends.seat.encoding import encode_response, error_response
from kocka.agents.frontends.seat.protocol import PROTOCOL_VERSION, Seat, SeatOptions, request_language
from kocka.agents.frontends.seat.http import (
    WILDCARD_HOSTS, SeatApp, SeatHTTPServer, _Refusal, http_options, run_server,
)
from kocka.agents.frontends.seat.workers import DEFAULT_WRITE_TIMEOUT
from kocka.solver.base.i18n import LANGUAGES, LanguageError, _, catalogue_json, check_language, use_language

DEFAULT_ADDRESS = "127.0.0.1:8080"
STATIC_FILES = {
    "index.html": "text/html; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "sw.js": "text/javascript; charset=utf-8",
    "manifest.webmanifest": "application/manifest+json",
    "icon.svg": "image/svg+xml",
    "icon-192.png": "image/png",
    "icon-512.png": "image/png",
}
ROOT_FILES = {"/sw.js": "sw.js", "/manifest.webmanifest": "manifest.webmanifest"}
"""Files served at the top as well: a service worker controls only the paths under its own
(``/sw.js``: the whole page), and the manifest is where browsers look for it."""
SECURITY_HEADERS = {
    # everything the page needs comes from this server; nothing runs that it did not send
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
LANG_MARK = "%KOCKA_LANG%"


def static_bytes(name: str) -> bytes:
    """One of the page's files, read from the installed package."""
    return (importlib.resources.files("kocka.agents.frontends.seat") / "static" / name).read_bytes()


def static_text(name: str) -> str:
    """One of the page's text files, read from the installed package."""
    return static_bytes(name).decode("utf-8")


@dataclass
class WebPage:
    """The page's routes in front of one :class:`SeatApp`: ``GET /`` (the page for a
    browser, ``hello`` for others), ``GET /static/NAME`` and ``GET /i18n/LANG.json`` (the
    page's messages in one language). ``lang`` is the page's default language (None: each
    game's own)."""

    app: SeatApp
    lang: str | None = None
    links: "PositionLinks" = field(init=False)

    def __post_init__(self) -> None:
        if self.lang is not None and self.lang not in LANGUAGES:
            raise ValueError(f"--lang must be one of {', '.join(LANGUAGES)}, got {self.lang!r}")
        self.files = {name: static_bytes(name) for name in STATIC_FILES}
        self.files["index.html"] = self.files["index.html"].replace(LANG_MARK.encode(), (self.lang or "").encode())
        self.links = PositionLinks(self.app)

    def routes(self) -> list[BaseRoute]:
        return [Route("/", self.index, methods=["GET", "HEAD"]),
                *(Route(path, self.root_file, methods=["GET", "HEAD"]) for path in ROOT_FILES),
                Route("/static/{name}", self.static, methods=["GET", "HEAD"]),
                Route("/i18n/{name}", self.messages, methods=["GET", "HEAD"]),
                Route("/link", self.links.make, methods=["POST", "OPTIONS"]),
                Route("/link/open", self.links.open, methods=["POST", "OPTIONS"])]

    async def root_file(self, request: Request) -> Response:
        return self._file(request, ROOT_FILES[request.url.path])

    async def index(self, request: Request) -> Response:
        if "text/html" not in request.headers.get("accept", ""):
            return await self.app.endpoint(request)  # a program's GET /: hello
        return self._file(request, "index.html")

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC_FILES or name == "index.html":
            return Response(f"no file {name[:80]!r} here\n", 404, media_type="text/plain")
        return self._file(request, name)

    async def messages(self, request: Request) -> Response:
        """``/i18n/LANG.json``: the page's messages in LANG with the languages on offer
        (each in its own name, for the switch); an unknown language is a 404 naming them."""
        try:
            self.app.check_host(request)
        except _Refusal as refusal:
            return Response(f"{refusal}\n", refusal.status, media_type="text/plain")
        name = request.path_params["name"]
        lang = name.removesuffix(".json")
        try:
            check_language(lang, "the page's language")
        except LanguageError as exc:
            return Response(f"no messages for {name[:20]!r}: {exc}\n", 404, media_type="text/plain")
        doc = {"lang": lang, "languages": LANGUAGES, "messages": catalogue_json(lang)}
        body = b"" if request.method == "HEAD" else json.dumps(doc, ensure_ascii=False).encode("utf-8")
        return Response(body, 200, headers=SECURITY_HEADERS, media_type="application/json")

    def _file(self, request: Request, name: str) -> Response:
        try:
            self.app.check_host(request)
        except _Refusal as refusal:
            return Response(f"{refusal}\n", refusal.status, media_type="text/plain")
        body = b"" if request.method == "HEAD" else self.files[name]
        return Response(body, 200, headers={**SECURITY_HEADERS, "Content-Length": str(len(self.files[name]))},
                        media_type=STATIC_FILES[name])


# ----------------------------------------------------------------------------------------
# Short position links
# ----------------------------------------------------------------------------------------
LINK_FORMAT = "1"
"""The first character of ``z``: how the rest is made (a later format gets another)."""
MAX_LINK_CODE = 4096
"""Characters of ``z`` read at most (a link this long is not short any more)."""
MAX_LINK_JSON = 256 * 1024
"""Bytes a link's position may unpack to (a small ``z`` that inflates to more is refused)."""
MAX_LINK_PLAYERS = 20
MAX_NAME_LENGTH = 100
LINK_CODE_CHARS = re.compile(r"[A-Za-z0-9_-]*")


class LinkProblem(ValueError):
    """A link that cannot be made or opened; the message is for the player."""


def pack(value: Any, template: Any) -> Any:
    """``value`` with what ``template`` (the game's initial state, same rules and players)
    already says left out: an object with the template's keys in its order becomes the list
    of its values, a list as long as the template's is packed item by item, anything else
    is ``{"~": value}`` in place of an object or list of the template and itself in place
    of a scalar (an object or list there is ``{"~": value}`` too). :func:`unpack` with the
    same template gives ``value`` back."""
    if isinstance(template, dict):
        if isinstance(value, dict) and list(value) == list(template):
            return [pack(value[key], template[key]) for key in template]
        return {"~": value}
    if isinstance(template, list):
        if isinstance(value, list) and len(value) == len(template):
            return [pack(item, shape) for item, shape in zip(value, template)]
        return {"~": value}
    return {"~": value} if isinstance(value, (dict, list)) else value


def unpack(packed: Any, template: Any) -> Any:
    """The inverse of :func:`pack`; raises :class:`LinkProblem` for anything that
    :func:`pack` cannot have made against ``template``."""
    if isinstance(packed, dict):
        if list(packed) != ["~"]:
            raise LinkProblem(_("the link's position does not fit this game"))
        return packed["~"]
    if isinstance(template, (dict, list)):
        if not isinstance(packed, list) or len(packed) != len(template):
            raise LinkProblem(_("the link's position does not fit this game"))
        if isinstance(template, dict):
            return {key: unpack(item, template[key]) for key, item in zip(template, packed)}
        return [unpack(item, shape) for item, shape in zip(packed, template)]
    if isinstance(packed, list):
        raise LinkProblem(_("the link's position does not fit this game"))
    return packed


def compact_json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def link_code(payload: Any, dictionary: bytes) -> str:
    """``payload`` as the ``z`` of a link: compact JSON, raw deflate primed with
    ``dictionary`` (the game's initial state, packed: most of a position repeats it), URL-safe
    base64 without padding, after the format character."""
    squeezer = zlib.compressobj(9, zlib.DEFLATED, -15, zdict=dictionary)
    data = squeezer.compress(compact_json(payload)) + squeezer.flush()
    return LINK_FORMAT + base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def read_link_code(code: str, dictionary: bytes) -> Any:
    """The payload of ``z`` (:func:`link_code`); raises :class:`LinkProblem` for a code
    cut short, changed, too long, or of another format."""
    if not isinstance(code, str) or not code:
        raise LinkProblem(_("the link has no position (z=...)"))
    if len(code) > MAX_LINK_CODE:
        raise LinkProblem(_("the link's position is longer than {n} characters", n=MAX_LINK_CODE))
    if code[0] != LINK_FORMAT or not LINK_CODE_CHARS.fullmatch(code[1:]) or len(code[1:]) % 4 == 1:
        raise LinkProblem(_("the link's position cannot be read (cut short or changed?)"))
    try:
        data = base64.urlsafe_b64decode(code[1:] + "=" * (-len(code[1:]) % 4))
        opener = zlib.decompressobj(-15, zdict=dictionary)
        text = opener.decompress(data, MAX_LINK_JSON)
        if opener.unconsumed_tail or not opener.eof or opener.unused_data:
            raise LinkProblem(_("the link's position cannot be read (cut short or changed?)"))
        return json.loads(text.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, LinkProblem):
            raise
        raise LinkProblem(_("the link's position cannot be read (cut short or changed?)")) from None


@dataclass
class PositionLinks:
    """``POST /link`` and ``POST /link/open`` (see the module docstring), behind the seat's
    checks (``Host``, ``Origin``, token, the body's type and size). Both ask the seat for
    the game's initial state (``new``), which :func:`pack` and the deflate dictionary build
    on, and for ``legal``: a link is made only of a position the seat takes, and opened only
    when the seat takes what it unpacks to.

    ``z`` packs ``[names, rules, state]``: the players' names, the rules that differ from
    the game's defaults, and the state packed against the initial state under those rules;
    the deflate dictionary is the initial state under the default rules, so that it is
    known before ``z`` is read."""

    app: SeatApp

    async def make(self, request: Request) -> Response:
        return await self._serve(request, self._make)

    async def open(self, request: Request) -> Response:
        return await self._serve(request, self._open)

    async def _serve(self, request: Request, work: Any) -> Response:
        """The seat's checks in the order of :class:`SeatApp`, then ``work`` on the body in
        the request's language; a refusal (a check, the seat busy) in the protocol's shape,
        a link that cannot be made or opened as 400 ``invalid_link``."""
        cors: dict[str, str] = {}
        try:
            self.app.check_framing(request)
            self.app.check_host(request)
            cors = self.app.check_origin(request)
            if request.method == "OPTIONS":
                return self.app.preflight(request, cors)
            self.app.check_token(request)
            asked = self._object(await self.app.json_body(request))
            with use_language(request_language(asked)):
                result = await work(asked)
        except _Refusal as refusal:
            text = encode_response(error_response(None, refusal.code, str(refusal)))
            return Response(text, refusal.status, headers={**cors, **refusal.headers}, media_type="application/json")
        except LinkProblem as problem:
            text = encode_response(error_response(None, "invalid_link", str(problem)))
            return Response(text, 400, headers=cors, media_type="application/json")
        return Response(encode_response({"id": None, "result": result}), 200, headers=cors, media_type="application/json")

    @staticmethod
    def _object(body: bytes) -> dict:
        try:
            asked = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            asked = None
        if not isinstance(asked, dict):
            raise LinkProblem(_("the body must be a JSON object"))
        return asked

    async def _seat(self, lang: Any, method: str, **fields: Any) -> dict:
        """The seat's result for one request (through the app's workers, like the page's
        own requests); its error message becomes a :class:`LinkProblem`."""
        request = {"id": None, "method": method, **fields}
        if isinstance(lang, str) and lang in LANGUAGES:
            request["lang"] = lang
        _status, text = await self.app.answer(json.dumps(request).encode("utf-8"))
        answer = json.loads(text)
        if "error" in answer:
            raise LinkProblem(answer["error"]["message"])
        return answer["result"]

    async def _initial(self, lang: Any, game: str, players: int, rules: dict) -> dict:
        return (await self._seat(lang, "new", game=game, players=players, rules=rules))["state"]

    async def _make(self, asked: dict) -> dict:
        """``{"state": DOC, "names": [...]}`` -> ``{"params": {"game", "n", "z"}}``."""
        lang, doc, names = asked.get("lang"), asked.get("state"), asked.get("names", [])
        if not isinstance(doc, dict) or not isinstance(doc.get("game"), str) or not isinstance(doc.get("rules"), dict) \
                or not isinstance(doc.get("players"), int) or "state" not in doc:
            raise LinkProblem(_("a link is made of a state document (game, rules, players, state)"))
        if not isinstance(names, list) or not all(isinstance(n, str) and len(n) <= MAX_NAME_LENGTH for n in names):
            raise LinkProblem(_("the players' names must be a list of names"))
        game, players = doc["game"], doc["players"]
        default = await self._initial(lang, game, players, {})
        changed = {key: value for key, value in doc["rules"].items() if default["rules"].get(key) != value}
        template = await self._initial(lang, game, players, changed) if changed else default
        if template["rules"] != doc["rules"]:
            raise LinkProblem(_("the position's rules are not the seat's own spelling of them"))
        code = link_code([names, changed, pack(doc["state"], template["state"])], self._dictionary(default))
        params = {"game": game, "n": str(players), "z": code}
        opened = await self._open({"lang": lang, **params})
        if opened["state"] != doc or opened["names"] != names:  # never hand out a link that opens elsewhere
            raise LinkProblem(_("this position has no short link"))
        return {"params": params}

    async def _open(self, asked: dict) -> dict:
        """``{"game", "n", "z"}`` (a link's fields) -> ``{"state": DOC, "names": [...],
        "node", "player"}``, the seat's ``legal`` of the state included."""
        lang, game, count = asked.get("lang"), asked.get("game"), asked.get("n")
        if not isinstance(game, str) or not game:
            raise LinkProblem(_("the link names no game"))
        if not isinstance(count, str) or not count.isdigit() or not 1 <= int(count) <= MAX_LINK_PLAYERS:
            raise LinkProblem(_("the link's number of players (n=...) must be 1 to {most}", most=MAX_LINK_PLAYERS))
        players = int(count)
        default = await self._initial(lang, game, players, {})
        payload = read_link_code(asked.get("z"), self._dictionary(default))
        if not (isinstance(payload, list) and len(payload) == 3 and isinstance(payload[0], list)
                and isinstance(payload[1], dict)):
            raise LinkProblem(_("the link's position cannot be read (cut short or changed?)"))
        names, rules, packed = payload
        if len(names) > players or not all(isinstance(n, str) and len(n) <= MAX_NAME_LENGTH for n in names):
            raise LinkProblem(_("the link's players' names do not fit its number of players"))
        template = await self._initial(lang, game, players, rules) if rules else default
        doc = {**template, "state": unpack(packed, template["state"])}
        legal = await self._seat(lang, "legal", state=doc)
        return {"state": doc, "names": names, "node": legal["node"], "player": legal["player"]}

    @staticmethod
    def _dictionary(initial: dict) -> bytes:
        return compact_json(pack(initial["state"], initial["state"]))


# ----------------------------------------------------------------------------------------
# On the local network: kocka web --lan
# ----------------------------------------------------------------------------------------
ROUTE_PROBE = ("192.0.2.1", 9)
"""An address of TEST-NET-1 (RFC 5737: for documentation, never any machine's), whose route
is the default one: the source address of that route is this machine's on its network."""


def lan_address(probe: tuple[str, int] = ROUTE_PROBE) -> str:
    """This machine's IPv4 address on the local network, found without sending anything:
    ``connect`` on a UDP socket only picks the route (and with it the source address) to
    ``probe``; no packet leaves. Raises :class:`OSError` (one line for the player) when the
    machine has no network or only its loopback."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe_socket:
        try:
            probe_socket.connect(probe)
            address = probe_socket.getsockname()[0]
        except OSError:
            address = None
    try:
        ip = ipaddress.IPv4Address(address) if address else None
    except ValueError:
        ip = None
    if ip is None or ip.is_loopback or ip.is_unspecified:
        raise OSError(_("this machine has no address on a network (is the Wi-Fi on?); give --host ADDRESS "
                        "to choose one"))
    return str(ip)


def new_token() -> str:
    """A fresh bearer token for one ``kocka web --lan`` (128 random bits, URL-safe)."""
    return secrets.token_urlsafe(16)


QUIET_ZONE = 4
"""Light modules around the QR code (ISO/IEC 18004: 4); the terminal around it may be dark."""


def qr_text(url: str, stream: TextIO | None = None) -> str:
    """``url`` as a QR code in text, by segno: two rows of modules a line in Unicode half
    blocks (a light module is a block, so on the usual dark terminal the code is dark on
    light as cameras read it), with the quiet zone of 4 the standard asks; where ``stream`` cannot write those
    characters, in ANSI colours instead."""
    code = segno.make(url, error="m")
    out = io.StringIO()
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "\u2580\u2584\u2588".encode(encoding)
        code.terminal(out=out, compact=True, border=QUIET_ZONE)
    except (UnicodeEncodeError, LookupError):
        code.terminal(out=out, border=QUIET_ZONE)
    return out.getvalue()


def lan_announcement(url: str, stream: TextIO | None = None) -> str:
    """What ``kocka web --lan`` prints: the address to open on a phone, with its token, and
    its QR code, in the language in force."""
    return "\n".join((
        _("Open this address on a phone on the same network (Wi-Fi), or scan the code:"),
        f"  {url}",
        qr_text(url, stream).rstrip("\n"),
        _("The address carries the token: give it only to the players at this table. Ctrl-C stops the server."),
    ))


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
    """The address to open; a token travels in the fragment, which browsers never send.
    On all interfaces (``--host 0.0.0.0``) that is this machine's network address when
    the server answers to it (else loopback): ``0.0.0.0`` is no address a browser opens."""
    url = server.url
    if server.options.host in WILDCARD_HOSTS:
        port = server.server_address[1]
        try:
            host = lan_address()
        except OSError:
            host = "127.0.0.1"
        if server.app.hosts is not None and f"{host}:{port}" not in server.app.hosts:
            host = "127.0.0.1"
        url = f"http://{host}:{port}/"
    return url + (f"#token={token}" if token else "")


def serve_web(address: str, seat_options: SeatOptions, lang: str | None = None, log_level: str = "warning",
              token: str | None = None, allow_hosts: Sequence[str] = (), request_timeout: float | None = 10.0,
              write_timeout: float = DEFAULT_WRITE_TIMEOUT, qr: bool = False, stream: TextIO | None = None) -> int:
    """``kocka web``: serve until Ctrl-C; with ``qr`` (``--lan``) the address is printed
    for a phone too (:func:`lan_announcement`), to ``stream`` (default: stderr)."""
    server = make_web_server(Seat(seat_options), address, lang, log_level, token=token, allow_hosts=tuple(allow_hosts),
                             request_timeout=request_timeout, write_timeout=write_timeout)
    url = page_url(server, token)
    announce = f"kocka web: {PROTOCOL_VERSION} and the page on {url}"
    if qr:
        announce += "\n" + lan_announcement(url, stream if stream is not None else sys.stderr)
    return run_server(server, announce, stream=stream,
                      remote_warning=f"kocka web: warning: listening on {server.options.host}, not a loopback "
                                     "address: whoever can reach it and has the token can use it, and HTTP is not "
                                     "encrypted")
