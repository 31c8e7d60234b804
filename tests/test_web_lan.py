"""``kocka web`` for a phone at the table (issue 26, "A link a phone opens";
agents/frontends/seat/web.py): ``--lan`` (the address finder, the token, the QR code), short
position links (``POST /link``, ``POST /link/open``), the web app manifest and the service
worker.

Everything here listens on loopback only: the address finder is tried on a stand-in socket,
and ``kocka web --lan`` is run with the finder answering 127.0.0.1. The short links are
checked through the server that makes and reads them (one implementation, there): a
position played out by the seat from each game's start goes in, and the same state
document, names and ``legal`` answer must come back; the browser tests at the end check
the page's side (the link it shows, the link it opens, the worker).
"""
from __future__ import annotations

import contextlib
import errno
import ipaddress
import json
import random
import re
import struct
import urllib.parse
from typing import Any, Iterator

import httpx
import pytest
import segno
from click.testing import CliRunner

from conftest import serving_in_thread
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.frontends.seat import web
from kocka.agents.frontends.seat.http import HTTPOptions, SeatHTTPServer, allowed_host_headers
from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
from kocka.agents.frontends.seat.web import (
    ROUTE_PROBE, SECURITY_HEADERS, STATIC_FILES, lan_address, lan_announcement, link_code, make_web_server, pack,
)
from kocka.solver.base.i18n import LANGUAGES, _, catalogue_json, use_language

try:  # the browser tests share test_browser's headless Chromium; without one they are skipped
    from test_browser import browser, fresh, text_of, visible, wait_for  # noqa: F401 (browser: a fixture)
except pytest.skip.Exception as missing:
    NO_BROWSER = str(missing)

    @pytest.fixture(scope="module")
    def browser():
        pytest.skip(NO_BROWSER)

SAMPLE_LAN_HOST = "http://192.168.100.200:8080"
"""A long LAN address (27 characters) the length of a short link is counted with."""


@pytest.fixture(scope="module")
def seat() -> Seat:
    return Seat(SeatOptions())


@contextlib.contextmanager
def serving(seat: Seat, **options: Any) -> Iterator[str]:
    server = make_web_server(seat, "127.0.0.1:0", None, shutdown_grace=0, **options)
    with serving_in_thread(server) as base:
        yield base


@pytest.fixture(scope="module")
def site(seat) -> Iterator[str]:
    with serving(seat) as base:
        yield base


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One client for the module: a new one per request costs tens of milliseconds."""
    with httpx.Client() as client:
        yield client


def answer(seat: Seat, **request: Any) -> dict:
    response = seat.handle({"id": 1, **request})
    assert "result" in response, response
    return json.loads(json.dumps(response["result"]))  # as it travels: lists, not tuples


# ----------------------------------------------------------------------------------------
# The address on the network
# ----------------------------------------------------------------------------------------
class StandInSocket:
    """A UDP socket that records what is done with it; ``connect`` picks ``address`` as its
    own (as the kernel picks the route's source address) or raises ``refusal``."""

    made: list["StandInSocket"] = []

    def __init__(self, family: int, kind: int, address: str = "192.168.1.23", refusal: OSError | None = None) -> None:
        self.family, self.kind, self.address, self.refusal = family, kind, address, refusal
        self.connected_to: tuple | None = None
        self.sent: list[bytes] = []
        self.closed = False
        StandInSocket.made.append(self)

    def connect(self, target: tuple) -> None:
        if self.refusal is not None:
            raise self.refusal
        self.connected_to = target

    def getsockname(self) -> tuple[str, int]:
        return (self.address if self.connected_to else "0.0.0.0", 40000)

    def send(self, data: bytes) -> int:  # pragma: no cover - the finder must never call it
        self.sent.append(data)
        return len(data)

    sendto = send

    def __enter__(self) -> "StandInSocket":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.closed = True


def stand_in(monkeypatch, **kwargs: Any) -> list[StandInSocket]:
    StandInSocket.made = []
    monkeypatch.setattr(web.socket, "socket", lambda family, kind: StandInSocket(family, kind, **kwargs))
    return StandInSocket.made


def test_the_lan_address_is_the_routes_source_and_nothing_is_sent(monkeypatch):
    made = stand_in(monkeypatch, address="192.168.1.23")
    assert lan_address() == "192.168.1.23"
    (probe,) = made
    assert (probe.family, probe.kind) == (web.socket.AF_INET, web.socket.SOCK_DGRAM)  # UDP: connect sends nothing
    assert probe.connected_to == ROUTE_PROBE and probe.sent == [] and probe.closed
    # RFC 5737: 192.0.2.0/24 is for documentation, no machine's address
    assert ipaddress.ip_address(ROUTE_PROBE[0]) in ipaddress.ip_network("192.0.2.0/24")


@pytest.mark.parametrize("kwargs", [
    {"refusal": OSError(errno.ENETUNREACH, "Network is unreachable")},  # no network at all
    {"address": "127.0.0.1"},  # only the loopback
    {"address": "0.0.0.0"},
])
def test_no_network_address_is_one_clear_line(monkeypatch, kwargs):
    stand_in(monkeypatch, **kwargs)
    with pytest.raises(OSError, match=r"no address on a network .*--host ADDRESS") as raised:
        lan_address()
    assert "\n" not in str(raised.value)


def test_the_lan_host_is_allowed_and_nothing_else():
    # a bound LAN address is the one Host name (with its port) the server answers
    assert allowed_host_headers(HTTPOptions(host="192.168.1.23", token="t"), 8080) == {"192.168.1.23:8080"}


class StandInServer:
    """What :func:`page_url` reads of a server bound to all interfaces (none is bound here)."""

    def __init__(self, allow_hosts: tuple[str, ...] = ()) -> None:
        self.options = HTTPOptions(host="0.0.0.0", port=8080, token="t", allow_hosts=allow_hosts)
        self.server_address = ("0.0.0.0", 8080)
        self.url = "http://0.0.0.0:8080/"
        self.app = type("App", (), {"hosts": allowed_host_headers(self.options, 8080)})()


@pytest.mark.parametrize("allow_hosts, finder, expected", [
    ((), lambda: "192.168.1.23", "http://192.168.1.23:8080/#token=t"),  # any Host is answered
    (("laptop.local",), lambda: "192.168.1.23", "http://127.0.0.1:8080/#token=t"),  # the LAN address is not
    (("192.168.1.23",), lambda: "192.168.1.23", "http://192.168.1.23:8080/#token=t"),
    ((), None, "http://127.0.0.1:8080/#token=t"),  # no network
])
def test_on_all_interfaces_the_printed_address_is_one_a_browser_opens(monkeypatch, allow_hosts, finder, expected):
    if finder is None:
        stand_in(monkeypatch, refusal=OSError(errno.ENETUNREACH, "Network is unreachable"))
    else:
        monkeypatch.setattr(web, "lan_address", finder)
    assert web.page_url(StandInServer(allow_hosts), "t") == expected


# ----------------------------------------------------------------------------------------
# The QR code
# ----------------------------------------------------------------------------------------
HALF_BLOCKS = {" ": (1, 1), "\u2580": (0, 1), "\u2584": (1, 0), "\u2588": (0, 0)}
"""A printed character -> its (upper, lower) modules, 1 dark: segno's compact terminal form
(a dark module is left blank, for a light-on-dark terminal)."""


def printed_modules(lines: list[str]) -> list[list[int]]:
    rows: list[list[int]] = []
    for line in lines:
        pairs = [HALF_BLOCKS[c] for c in line]
        rows += [[upper for upper, _lower in pairs], [lower for _upper, lower in pairs]]
    return rows


def segno_modules(url: str, border: int = 4) -> list[list[int]]:
    """segno's matrix for ``url`` (1 dark) inside a light quiet zone of ``border``."""
    matrix = [list(row) for row in segno.make(url, error="m").matrix]
    width = len(matrix[0]) + 2 * border
    light = [[0] * width for _ in range(border)]
    return light + [[0] * border + row + [0] * border for row in matrix] + light


def qr_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and set(line) <= set(HALF_BLOCKS)]


def test_the_printed_qr_code_is_segnos_code_of_the_address():
    url = "http://192.168.1.23:8080/#token=Zm9vYmFyYmF6cXV4"
    text = lan_announcement(url)
    assert f"  {url}\n" in text
    printed = printed_modules(qr_lines(text))
    expected = segno_modules(url)
    # an odd number of rows: the last line's lower half is blank (dark) past the code
    assert printed[:len(expected)] == expected and all(m == 1 for row in printed[len(expected):] for m in row)


def ports_and_urls(text: str) -> list[str]:
    return re.findall(r"http://127\.0\.0\.1:\d+/#token=[A-Za-z0-9_-]+", text)


def run_lan(monkeypatch, *args: str) -> Any:
    """``kocka web --lan ARGS`` with the address finder answering loopback and the server
    returning at once (it is bound, announced and closed)."""
    monkeypatch.setattr(web, "lan_address", lambda: "127.0.0.1")
    monkeypatch.setattr(SeatHTTPServer, "serve_forever", lambda self: None)
    return CliRunner().invoke(main, ["web", "--lan", "--port", "0", *args])


def test_kocka_web_lan_prints_the_address_with_a_fresh_token_and_its_qr_code(monkeypatch):
    first, second = run_lan(monkeypatch, "--lang", "hu"), run_lan(monkeypatch, "--lang", "hu")
    assert first.exit_code == 0, first.output
    urls = ports_and_urls(first.output)
    assert urls and len(set(urls)) == 1  # the same address in the line and under the sentence
    token = urls[0].partition("#token=")[2]
    assert len(token) >= 22 and token != ports_and_urls(second.output)[0].partition("#token=")[2]
    assert printed_modules(qr_lines(first.output))[:len(segno_modules(urls[0]))] == segno_modules(urls[0])
    with use_language("hu"):
        sentence = _("Open this address on a phone on the same network (Wi-Fi), or scan the code:")
    assert sentence in first.output and sentence != "Open this address on a phone on the same network (Wi-Fi), or scan the code:"


def test_kocka_web_lan_keeps_a_token_given(monkeypatch):
    result = run_lan(monkeypatch, "--token", "our-table-secret", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert ports_and_urls(result.output)[0].endswith("#token=our-table-secret")


def test_kocka_web_lan_refuses_a_host_too(monkeypatch):
    result = run_lan(monkeypatch, "--host", "127.0.0.1", "--lang", "en")
    assert result.exit_code == 2 and "give either --lan or --host" in result.output


def test_kocka_web_lan_without_a_network_says_so(monkeypatch):
    stand_in(monkeypatch, refusal=OSError(errno.ENETUNREACH, "Network is unreachable"))
    monkeypatch.setattr(SeatHTTPServer, "serve_forever", lambda self: None)
    result = CliRunner().invoke(main, ["web", "--lan", "--port", "0", "--lang", "en"])
    assert result.exit_code == 2 and "no address on a network" in result.output and "Traceback" not in result.output


# ----------------------------------------------------------------------------------------
# Short position links
# ----------------------------------------------------------------------------------------
def played(seat: Seat, game: str, players: int, steps: int, seed: int, rules: dict | None = None) -> list[dict]:
    """The positions of one game played out from its start by uniform random legal moves and
    outcomes (every position on the way, the start included), as the seat's state documents
    travel (``new`` and ``apply`` answer ``state_to_json`` of its game's state). Played on
    the game the seat holds rather than by requests: a ``legal`` request reads the document
    back and words every move, most of this module's CPU."""
    rng = random.Random(seed)
    engine = seat.game(game, rules or {}, players)
    state = engine.new_initial_state()
    seen = [state]
    for _step in range(steps):
        if engine.is_terminal(state):
            break
        if engine.is_chance_node(state):
            state = engine.apply(state, rng.choice(engine.chance_outcomes(state))[0])
        else:
            state = engine.apply(state, rng.choice(engine.legal_actions(state)))
        seen.append(state)
    return [json.loads(json.dumps(engine.state_to_json(s))) for s in seen]  # as it travels: lists, not tuples


def make_link(http: httpx.Client, site: str, doc: dict, names: list[str]) -> dict:
    response = http.post(site + "/link", json={"state": doc, "names": names})
    assert response.status_code == 200, response.text
    return response.json()["result"]["params"]


def open_link(http: httpx.Client, site: str, params: dict, lang: str = "en") -> httpx.Response:
    return http.post(site + "/link/open", json={**params, "lang": lang})


def game_names(seat: Seat) -> list[str]:
    return [g["name"] for g in answer(seat, method="hello")["games"]]


@pytest.mark.parametrize("players", [1, 2, 3])
def test_a_short_link_opens_the_same_position_in_every_game(seat, site, players, http):
    for game in game_names(seat):
        limits = next(g["players"] for g in answer(seat, method="hello")["games"] if g["name"] == game)
        if not limits["min"] <= players <= limits["max"]:
            continue
        names = ["Anna", "Béla", "Čeněk"][:players]
        positions = played(seat, game, players, 80, seed=players)
        for doc in positions[::13] + positions[-1:]:  # every 13th from the start, and the last
            params = make_link(http, site, doc, names)
            assert set(params) == {"game", "n", "z"} and params["game"] == game and params["n"] == str(players)
            opened = open_link(http, site, params)
            assert opened.status_code == 200, (game, opened.text)
            result = opened.json()["result"]
            legal = answer(seat, method="legal", state=doc)
            assert (result["state"], result["names"]) == (doc, names), game
            assert (result["node"], result["player"]) == (legal["node"], legal["player"]), game


@pytest.mark.parametrize("game, rules", [("kockapoker", {"boxes": ["sixes", "chance", "pair"]}), ("kocka", {"target": 1000}),
                                         ("yahtzee", {"joker": "forced"})])
def test_a_short_link_carries_the_rules_that_differ(seat, site, game, rules, http):
    described = {r["name"]: r for r in next(g for g in answer(seat, method="hello")["games"] if g["name"] == game)["rules"]}
    assert all(value != described[key]["default"] for key, value in rules.items())  # they are not the defaults
    for doc in played(seat, game, 2, 40, seed=5, rules=rules)[::9]:
        result = open_link(http, site, make_link(http, site, doc, [])).json()["result"]
        assert result["state"] == doc and all(result["state"]["rules"][k] == v for k, v in rules.items())


def test_a_mid_game_kockapoker_link_for_three_is_short(seat, site, http):
    """Issue 26: under ~200 characters mid-game for kockapóker with three players. Mid-game:
    the first position where each card has 7 or 8 of its 15 boxes written."""
    positions = played(seat, "kockapoker", 3, 400, seed=26)
    mid = next(doc for doc in positions
               if all(7 <= sum(v is not None for v in card["entries"].values()) <= 8 for card in doc["state"]["cards"]))
    params = make_link(http, site, mid, ["Anna", "Béla", "me"])
    address = f"{SAMPLE_LAN_HOST}/?{urllib.parse.urlencode(params)}"
    long_form = len(json.dumps(mid["state"]))  # the state alone, before base64 (the old link's is 4/3 of it)
    assert len(address) < 200 and long_form > 5 * len(address), (len(address), address)


def corrupted(params: dict, **changes: str) -> dict:
    return {**params, **changes}


@pytest.fixture(scope="module")
def a_link(seat, site, http) -> dict:
    return make_link(http, site, played(seat, "kockapoker", 2, 30, seed=1)[-1], ["Anna", "Béla"])


@pytest.mark.parametrize("change, message", [
    (lambda p: {"z": p["z"][:-4]}, "cannot be read (cut short or changed?)"),
    (lambda p: {"z": p["z"][:20] + ("A" if p["z"][20] != "A" else "B") + p["z"][21:]}, ""),
    (lambda p: {"z": "2" + p["z"][1:]}, "cannot be read"),
    (lambda p: {"z": p["z"] + "!"}, "cannot be read"),
    (lambda p: {"z": ""}, "has no position"),
    (lambda p: {"z": "1" + "A" * 5000}, "longer than 4096 characters"),
    (lambda p: {"n": "7"}, ""),
    (lambda p: {"n": "two"}, "number of players (n=...) must be 1 to 20"),
    (lambda p: {"game": "tarokk"}, "tarokk"),
])
def test_a_corrupt_short_link_is_refused_with_one_clear_line(site, a_link, change, message, http):
    response = open_link(http, site, corrupted(a_link, **change(a_link)))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_link" and message in error["message"] and "\n" not in error["message"]


def test_a_small_link_that_inflates_to_much_is_refused(seat, site, http):
    # 1 MB of spaces deflates to about a kilobyte: more than a position can unpack to
    initial = answer(seat, method="new", game="kocka", players=2)["state"]
    bomb = link_code(" " * 1_000_000, web.compact_json(pack(initial["state"], initial["state"])))
    assert len(bomb) < 4096
    response = open_link(http, site, {"game": "kocka", "n": "2", "z": bomb})
    assert response.status_code == 400 and "cannot be read" in response.json()["error"]["message"]


def test_a_well_packed_impossible_position_gets_the_seats_message(seat, site, http):
    # HU-5: an entry of 6-osok is (c - 3) x 6, a multiple of 6: 5 is none
    initial = answer(seat, method="new", game="kockapoker", players=1)["state"]
    impossible = json.loads(json.dumps(initial["state"]))
    impossible["cards"][0]["entries"]["sixes"] = 5
    dictionary = web.compact_json(pack(initial["state"], initial["state"]))
    z = link_code([[], {}, pack(impossible, initial["state"])], dictionary)
    response = open_link(http, site, {"game": "kockapoker", "n": "1", "z": z})
    assert response.status_code == 400
    seat_says = seat.handle({"id": 1, "method": "legal", "lang": "en", "state": {**initial, "state": impossible}})
    assert response.json()["error"]["message"] == seat_says["error"]["message"]


def test_the_link_messages_are_in_the_requests_language(site, a_link, http):
    response = open_link(http, site, corrupted(a_link, z=a_link["z"][:-4]), lang="pl")
    with use_language("pl"):
        expected = _("the link's position cannot be read (cut short or changed?)")
    assert response.json()["error"]["message"] == expected != "the link's position cannot be read (cut short or changed?)"


def test_the_link_routes_keep_the_seats_checks(seat, a_link, http):
    with serving(seat, token="s3cret") as base:
        assert open_link(http, base, a_link).status_code == 401
        with_token = http.post(base + "/link/open", json=a_link, headers={"Authorization": "Bearer s3cret"})
        assert with_token.status_code == 200
        foreign = http.post(base + "/link/open", json=a_link,
                             headers={"Authorization": "Bearer s3cret", "Host": "evil.example"})
        assert foreign.status_code == 403
        cross = http.post(base + "/link", json=a_link,
                           headers={"Authorization": "Bearer s3cret", "Origin": "http://evil.example"})
        assert cross.status_code == 403
        text = http.post(base + "/link/open", content=b"{}", headers={"Authorization": "Bearer s3cret",
                                                                     "Content-Type": "text/plain"})
        assert text.status_code == 415


# ----------------------------------------------------------------------------------------
# Installable: the manifest, the icons, the service worker
# ----------------------------------------------------------------------------------------
def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (PNG spec 11.2.2)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_makes_the_page_installable(site):
    response = httpx.get(site + "/manifest.webmanifest")
    assert response.status_code == 200 and response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone" and manifest["name"]
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    sizes = set()
    for icon in manifest["icons"]:
        served = httpx.get(site + icon["src"])
        assert served.status_code == 200 and served.headers["content-type"] == icon["type"]
        if icon["type"] == "image/png":
            width, height = png_size(served.content)
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    assert {192, 512} <= sizes  # what browsers ask of an installable app
    page = httpx.get(site + "/", headers={"Accept": "text/html"}).text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert f'<meta name="theme-color" content="{manifest["theme_color"]}">' in page


def test_the_service_worker_is_served_for_the_whole_page_and_keeps_only_its_files(site):
    response = httpx.get(site + "/sw.js")
    assert response.status_code == 200 and response.headers["content-type"] == "text/javascript; charset=utf-8"
    # the security headers are the page's, unchanged: 'self' covers the worker and the manifest
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name.lower()] == value
    csp = SECURITY_HEADERS["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "worker-src" not in csp and "manifest-src" not in csp
    # every file the worker keeps is one the server serves
    kept = json.loads(re.search(r"PAGE_FILES = (\[[^\]]*\])", response.text).group(1).replace("\n", ""))
    for path in kept:
        assert httpx.get(site + path).status_code == 200, path
    page_files = {f"/static/{name}" for name in STATIC_FILES if name not in ("index.html", "sw.js", "manifest.webmanifest")}
    assert set(kept) >= page_files | {"/manifest.webmanifest"} | {f"/i18n/{lang}.json" for lang in LANGUAGES}


# ----------------------------------------------------------------------------------------
# In the browser
# ----------------------------------------------------------------------------------------
def long_link(base: str, doc: dict, names: list[str]) -> str:
    """The page's old link of a whole position (state=, base64url of the state's JSON)."""
    import base64

    state = base64.urlsafe_b64encode(json.dumps(doc["state"]).encode()).decode().rstrip("=")
    return f"{base}/?" + urllib.parse.urlencode({"game": doc["game"], "state": state, "players": ",".join(names), "lang": "en"})


def shown(browser) -> tuple[str, Any]:
    return text_of(browser, "turn"), browser.execute_script(
        "const t = document.getElementById('cards-table');"
        "return t ? [...t.querySelectorAll('tr')].map((r) => [...r.cells].map((c) => c.textContent)) : null;")


def test_the_page_shows_a_short_link_and_it_opens_the_same_position(seat, site, browser):
    doc = played(seat, "kockapoker", 3, 45, seed=3)[-1]
    fresh(browser, long_link(site, doc, ["Anna", "Béla", "me"]))  # an old long link still opens
    wait_for(browser, lambda d: "z=" in text_of(d, "share-link"))
    before = shown(browser)
    short = text_of(browser, "share-link")
    assert short.startswith(site + "/?game=kockapoker&n=3&z=") and "state=" not in short
    fresh(browser, short)
    wait_for(browser, lambda d: "z=" in text_of(d, "share-link") and shown(d)[1] is not None)
    assert shown(browser) == before and text_of(browser, "share-link") == short


def test_a_corrupt_short_link_in_the_page_gets_the_banner(site, browser, a_link):
    fresh(browser, f"{site}/?" + urllib.parse.urlencode({**a_link, "z": a_link["z"][:-4], "lang": "en"}))
    wait_for(browser, lambda d: visible(d, "error"))
    assert text_of(browser, "error").startswith("This link cannot be opened: the link's position cannot be read")


def test_the_worker_keeps_the_page_for_when_the_server_is_away(seat, browser):
    with serving(seat) as base:
        fresh(browser, base + "/?lang=hu")
        wait_for(browser, lambda d: visible(d, "setup"))
        wait_for(browser, lambda d: d.execute_script("return Boolean(navigator.serviceWorker.controller)"))
    browser.get(base + "/?lang=hu")  # the server is gone: the page comes from the worker's cache
    message = catalogue_json("hu")["The seat is not answering (is kocka web still running?); trying again…"]
    wait_for(browser, lambda d: visible(d, "error") and text_of(d, "error").startswith(message))
