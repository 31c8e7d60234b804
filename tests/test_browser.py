"""``kocka web`` in a real browser: headless Chromium driven by selenium.

Needs Debian's ``chromium`` and ``chromium-driver`` and pip's ``selenium`` (the
``browser`` extra); ``.ci/run`` installs them. Without them every test here is skipped
with one line saying what to install.

The page is served by :func:`kocka.agents.frontends.seat.web.make_web_server` in a thread of
this process, on the seat of this test session (its tables in the session's isolated
cache, tests/conftest.py, built once here before the server starts). Small rule variants
keep the tables quick (a three-box kockapóker card, a one-box card whose hints are worked
out by hand, a Kocka race to 1000); the one large table, Abázs's equilibrium, is the run's
shared one (tests/conftest.py). One Chromium serves every browser module of a process.

Every step waits for a state of the page, never for time: the page marks the position it
shows (``body[data-position]``, one more for each position) and the hint and the card it
drew for a position (``data-position`` of ``#hint-table`` and ``#card-table``), so a test
reads a hint or taps a box only once they belong to the position on show; its language is
``body[data-lang]``, set once the page is drawn in it.

The scenarios of a whole game run in English (``lang=en`` in the link, or the switch); the
language tests at the end open the page in Hungarian, Polish, Slovak and English and
compare its words with the words the design fixes for each language (/tmp/i18n_common.md,
copied in :data:`WORDS`), not with the catalogues the page reads them from.
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import pathlib
import re
import shutil
import tempfile
import urllib.parse
import urllib.request
from typing import Any, Iterator

import pytest

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # pragma: no cover - the skip says what to install
    webdriver = None

from conftest import serving_in_thread
from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
from kocka.agents.frontends.seat.web import make_web_server
from kocka.solver.store.table_store import game_from_cli, get_table, solver_for

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
if webdriver is None or CHROMIUM is None or DRIVER is None:
    pytest.skip("no browser: apt-get install chromium chromium-driver and pip install selenium (.ci/run does)",
                allow_module_level=True)

THREE_BOXES = {"boxes": ["sixes", "chance", "pair"]}
KOCKA_1000 = {"target": 1000}
WAIT = 30  # seconds: the first request of a table loads it
POLL = 0.05  # seconds between two readings of a condition the test waits for
ROOT = pathlib.Path(__file__).resolve().parent.parent


def build(name: str, rules: tuple[str, ...]) -> None:
    game = game_from_cli(name, rules, num_players=2)
    get_table(game, "winprob" if name == "kocka" else None, build_missing=True)


@pytest.fixture(scope="module")
def tables() -> None:
    """The small tables the page needs here, built before the server answers its first
    request (the seat itself never builds one)."""
    for name, rules in (("kockapoker", ("boxes=sixes,chance,pair",)), ("kockapoker", ("boxes=chance",)),
                        ("kocka", ("target=1000",))):
        build(name, rules)


@contextlib.contextmanager
def serving(port: int = 0) -> Iterator[tuple[str, Any]]:
    server = make_web_server(Seat(SeatOptions()), f"127.0.0.1:{port}", request_timeout=30, shutdown_grace=0)
    with serving_in_thread(server) as base:
        yield base, server


@pytest.fixture(scope="module")
def site(tables) -> Iterator[str]:
    with serving() as (base, _):
        yield base


_CHROMIUM: list[Any] = []
"""The process's one headless Chromium, started by the first module that asks for it and
shared by every browser module (test_browser_bluff_frequencies, test_browser_token_links,
test_web_lan) until the run ends: a start costs about a second of CPU and more of wall.
Each test opens its page with :func:`fresh`, so nothing of one test's page is left for the
next (a module's own server is another origin, with storage of its own)."""


@pytest.fixture(scope="module")
def browser(request) -> Iterator[Any]:
    if not _CHROMIUM:
        options = Options()
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=360,900"):
            options.add_argument(flag)
        options.binary_location = CHROMIUM
        try:
            driver = webdriver.Chrome(service=Service(DRIVER), options=options)
        except WebDriverException as exc:
            pytest.skip(f"chromium did not start: {exc.msg.splitlines()[0] if exc.msg else exc}")
        request.config.add_cleanup(driver.quit)
        # a phone's screen: 360 CSS pixels wide (a desktop window cannot be made this narrow)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 800, "deviceScaleFactor": 2,
                                                                      "mobile": True})
        _CHROMIUM.append(driver)
    yield _CHROMIUM[0]


def wait_for(browser, condition, timeout: float = WAIT):
    """Until ``condition`` holds; an element redrawn while it was read is read again. The
    condition is read every 50 ms (Selenium's default of 500 ms made each wait for the page
    cost half a second, and the suite tens of seconds)."""
    return WebDriverWait(browser, timeout, poll_frequency=POLL, ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda d: condition(d))


def text_of(browser, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def visible(browser, element_id: str) -> bool:
    elements = browser.find_elements(By.ID, element_id)
    return bool(elements) and elements[0].is_displayed()


def shown_position(browser) -> int:
    """The page's count of the positions it has shown (0 before the first)."""
    return int(browser.execute_script("return document.body.dataset.position || '0'"))


def drawn_for_the_position_shown(browser, table_id: str) -> list[list[str]] | None:
    """The rows of a table the page draws for a position (``hint-table``, ``card-table``),
    read in one go, or None while the table on show is one drawn for an earlier position
    (or none is drawn yet)."""
    return browser.execute_script(
        "const t = document.getElementById(arguments[0]);"
        "if (!t || t.dataset.position !== document.body.dataset.position) return null;"
        "return [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent));", table_id)


def hint_rows(browser) -> list[list[str]]:
    """The hint's rows for the position on show; empty while its hint is still coming."""
    return drawn_for_the_position_shown(browser, "hint-table") or []


def table_rows(browser, table_id: str) -> list[list[str]]:
    """A table's cells' text, read in one go (the page may redraw it meanwhile)."""
    return browser.execute_script(
        "const t = document.getElementById(arguments[0]);"
        "return t ? [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent)) : [];",
        table_id)


TAP = """
const e = arguments[0], view = document.documentElement;
let box = e.getBoundingClientRect();
if (box.top < 0 || box.left < 0 || box.bottom > view.clientHeight || box.right > view.clientWidth) {
  e.scrollIntoView({block: "end", inline: "nearest"});  // where WebDriver's click scrolls it
  box = e.getBoundingClientRect();
}
const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
if (!hit || !e.contains(hit)) return hit ? hit.outerHTML.slice(0, 120) : "nothing";
e.click();
return null;
"""
"""A tap as WebDriver's click makes one, in the page: scrolled into view when it is not,
the element must be the one at its centre (shown, with a size, under nothing else), then
its click (a button's, a checkbox's, a summary's or a submit button's own action too)."""

TYPE = """
const [e, text] = arguments;
if (!e.checkVisibility() || e.disabled || e.readOnly) return false;
e.value = text;
e.dispatchEvent(new Event("input", {bubbles: true}));
return true;
"""
"""Text put in a field that is shown and editable, as if typed over what it held."""


def tap(browser, element) -> None:
    """A tap on ``element`` (:data:`TAP`). Why not WebDriver's click: its mouse events wait
    for frames to be drawn, about 90 ms of Chromium's CPU a tap against 8 ms this way, and
    the taps were a fifth of these tests' CPU. A ``<select>``'s option is still picked by
    WebDriver (a click on an option in a page does not pick it)."""
    covered = browser.execute_script(TAP, element)
    assert covered is None, f"{element.get_attribute('id') or element.tag_name} cannot be tapped: under {covered}"


def type_into(browser, element_id: str, text: str) -> None:
    """``text`` in field ``element_id`` (:data:`TYPE`), in place of what it held. Why not
    WebDriver's typing: a key at a time, a quarter of a second of Chromium's CPU for a line
    of rules (the page reads the field when the form is sent, and its keys go to no field)."""
    assert browser.execute_script(TYPE, browser.find_element(By.ID, element_id), text), f"{element_id} cannot be typed in"


def play(browser, element) -> int:
    """Taps a move and returns the position shown before it: the caller waits for a
    later one."""
    before = shown_position(browser)
    tap(browser, element)
    return before


def moved_on(browser, before: int) -> bool:
    return shown_position(browser) > before


def write_box(browser, box: str) -> int:
    """Taps a box of the card once the card is the one drawn for the position on show
    (before that its rows are an earlier position's, with no move behind them)."""
    wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table") is not None)
    return play(browser, browser.find_element(By.ID, f"box-{box}"))


def link(base: str, **params: Any) -> str:
    return f"{base}/?" + urllib.parse.urlencode({k: json.dumps(v) if isinstance(v, dict) else v for k, v in params.items()})


def tap_faces(browser, faces: str) -> None:
    for face in faces:
        tap(browser, browser.find_element(By.ID, f"face-{face}"))
    wait_for(browser, lambda d: d.find_element(By.ID, "enter-roll").is_enabled())
    before = play(browser, browser.find_element(By.ID, "enter-roll"))
    wait_for(browser, lambda d: moved_on(d, before))


FORGET = "Storage.prototype.setItem = () => {}; localStorage.clear(); sessionStorage.clear();"
"""Run on a page of the site: its storage emptied, after its own writes are stopped (a page
of the game may still save a move in flight, which would be remembered)."""


def fresh(browser, url: str) -> None:
    """``url`` opened with nothing remembered (the page reads the remembered language as it
    starts): the storage is cleared (:data:`FORGET`) on the page on show when it is of the
    same site, else on a file of the site opened first. A navigation costs Chromium about a
    tenth of a second of CPU; opening the file before every page was a third of the loads.
    The same address but for its fragment would not load again, so it goes by the file."""
    parts = urllib.parse.urlsplit(url)
    here = urllib.parse.urlsplit(browser.current_url)
    if here[:2] != parts[:2] or here._replace(fragment="") == parts._replace(fragment=""):
        browser.get(f"{parts.scheme}://{parts.netloc}/static/style.css")
    browser.execute_script(FORGET)
    browser.get(url)


def page_language(browser) -> str:
    """The language the page is drawn in (``body[data-lang]``, set once its messages are
    loaded and what it shows is redrawn in it); ``html[lang]`` says the same."""
    return browser.execute_script("return document.body.dataset.lang === document.documentElement.lang"
                                  " ? document.body.dataset.lang : ''")


def pick_language(browser, lang: str) -> None:
    """Picks ``lang`` on the page's switch and waits until the page shows it."""
    browser.find_element(By.CSS_SELECTOR, f"#lang option[value='{lang}']").click()
    wait_for(browser, lambda d: page_language(d) == lang)


def start_kockapoker(browser, site: str, rules: dict, players: str | None = None, against_ai: bool = False) -> None:
    """A new kockapóker game through the page's setup form, from a fresh page: the players'
    names (or the AI as the other player), the rules as JSON, then Start; the caller waits
    for what the game shows first.

    Why one helper: the scenarios that start a game by clicks go through the same form in
    the same order, so a change of the form is followed here once."""
    # in English by the link (picked: the game chosen then keeps it)
    fresh(browser, site + "/?lang=en")
    wait_for(browser, lambda d: visible(d, "setup") and page_language(d) == "en")
    browser.find_element(By.CSS_SELECTOR, "#game-select option[value='kockapoker']").click()
    if players is not None:
        type_into(browser, "players", players)
    if against_ai:
        tap(browser, browser.find_element(By.ID, "mode-ai"))
    tap(browser, browser.find_element(By.TAG_NAME, "summary"))
    type_into(browser, "rules", json.dumps(rules))
    tap(browser, browser.find_element(By.ID, "start"))


# ----------------------------------------------------------------------------------------
# Scenarios
# ----------------------------------------------------------------------------------------
def test_a_whole_kockapoker_turn_by_clicks(site, browser):
    start_kockapoker(browser, site, THREE_BOXES, players="Anna")
    wait_for(browser, lambda d: visible(d, "face-6"))
    assert "Anna: roll 5 dice" in text_of(browser, "turn")
    tap_faces(browser, "66623")                      # the roll, entered face by face
    wait_for(browser, lambda d: hint_rows(d) and "throw 1 of 3" in text_of(d, "turn"))
    rows = hint_rows(browser)
    assert rows[0][0] == "keep 6 6 6" and rows[0][2] == "0.0000"
    wait_for(browser, lambda d: "going for" in text_of(d, "advice"))
    assert text_of(browser, "advice").startswith("keep 6 6 6: going for sixes")
    for i in (2, 3, 4):                              # the dice are sorted: 2 3 6 6 6
        tap(browser, browser.find_element(By.ID, f"die-{i}"))
    keep = browser.find_element(By.ID, "keep")
    assert keep.text == "keep 6 6 6"
    before = play(browser, keep)
    wait_for(browser, lambda d: moved_on(d, before))
    assert "roll 2 dice" in text_of(browser, "turn")
    tap_faces(browser, "66")
    assert "throw 2 of 3" in text_of(browser, "turn")
    # HU-5: five 6s in 6-osok: (5 - 3) x 6 = 12, shown as what the box would score now
    wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table"))
    assert ["sixes", "", "12"] in drawn_for_the_position_shown(browser, "card-table")
    before = write_box(browser, "sixes")
    wait_for(browser, lambda d: moved_on(d, before))
    assert "throw 0 of 3" in text_of(browser, "turn")
    assert table_rows(browser, "cards-table")[0] == ["sixes", "12"]
    assert "Anna: write sixes" in text_of(browser, "message")


def test_the_shared_link_opens_to_its_hint(site, browser):
    # a one-box card (szemét, the sum of the dice, HU-6) with one rule at its default, spelt out
    fresh(browser, link(site, game="kockapoker", rules={"boxes": ["chance"], "house_negative": "zero"}, dice="11346",
                        roll=1, lang="en"))
    wait_for(browser, lambda d: hint_rows(d))
    # by hand: no face box, so net 0 and the house scores 63 (HU-7), and the total is 63 + the
    # sum. The sum is each die's own, so a die is kept while it beats a new throw of it: one
    # throw left is worth 3.5, two (4 + 5 + 6)/6 + 3/6 x 3.5 = 4.25. 1 1 3 4 6 on throw 1 of
    # 3 (HU-2): keep 6, 63 + 6 + 4 x 4.25 = 86; keep 4 6, the 4 kept again for the last throw
    # (4 > 3.5), 63 + 10 + 3 x 4.25 = 85.75; keep 1 6, the 1 thrown again then, 63 + 6 + 3.5
    # + 3 x 4.25 = 85.25
    rows = hint_rows(browser)
    assert rows[:2] == [["keep 6", "86.0000", "0.0000"], ["keep 4 6", "85.7500", "0.2500"]]
    assert ["keep 1 6", "85.2500", "0.7500"] in rows
    shared = browser.find_element(By.ID, "share-link").get_attribute("href")
    # the position in the link, with the rules that differ from the defaults (house_negative does not)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(shared).query) == {
        "game": ["kockapoker"], "rules": ['{"boxes":["chance"]}'], "dice": ["11346"], "roll": ["1"], "lang": ["en"]}


def test_a_link_in_english_and_with_a_card(site, browser):
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="33355", roll=3, card="pár:6", lang="en"))
    wait_for(browser, lambda d: hint_rows(d))
    labels = [row[0] for row in hint_rows(browser)]
    # throw 3 of 3: only the two open boxes; in English by the switch (words.py)
    assert sorted(labels) == ["write chance", "write sixes"]


def test_a_kocka_turn_with_bank_or_roll_advice(site, browser):
    open_the_kocka_hint(site, browser, "en")  # the hint in English, as in each other language, then the turn
    for i in (0, 1, 2):                              # the three 1s: 1000 points (KOCKA-5)
        tap(browser, browser.find_element(By.ID, f"die-{i}"))
    keep = browser.find_element(By.ID, "keep")
    assert keep.text == "take 1 1 1"
    before = play(browser, keep)
    # the hint drawn for the position after the keep, not the rows of the roll before it
    wait_for(browser, lambda d: moved_on(d, before) and hint_rows(d))
    assert "turn total 1000" in text_of(browser, "turn")
    labels = [row[0] for row in hint_rows(browser)]
    assert any(label.startswith("bank 1000") for label in labels) and any(label.startswith("roll 3 dice") for label in labels)
    # banking 1000 reaches the target of 1000: the game is won (KOCKA-20), so banking is best
    assert hint_rows(browser)[0][0].startswith("bank 1000") and hint_rows(browser)[0][1] == "100.0%"
    wait_for(browser, lambda d: text_of(d, "advice"))
    before = play(browser, browser.find_element(By.CSS_SELECTOR, "button.move[data-type='Bank']"))
    wait_for(browser, lambda d: moved_on(d, before))
    assert text_of(browser, "turn") == "Game over: me 1000, opponent 0; winner: me"


@pytest.mark.parametrize("params, message", [
    ({"game": "kockapoker", "dice": "7"}, "the link's dice must be digits 1 to 6"),
    ({"game": "kockapoker", "dice": "1134"}, "the link's dice must be the five dice showing"),
    ({"game": "tarokk", "dice": "11346"}, 'the game "tarokk"'),
    ({"game": "kockapoker", "dice": "11346", "card": "pairs:3"}, '"pairs", which is not a box'),
    # a scorecard turn has three throws (HU-2): the dice come from throw 1, 2 or 3
    ({"game": "kockapoker", "dice": "11346", "roll": "5"}, "the link's roll is the throw the dice come from, 1, 2 or 3; it is 5"),
])
def test_a_bad_link_says_what_is_wrong(site, browser, params, message):
    fresh(browser, link(site, **params, lang="en"))
    wait_for(browser, lambda d: visible(d, "error"))
    assert text_of(browser, "error").startswith("This link cannot be opened:") and message in text_of(browser, "error")
    assert visible(browser, "setup")


def test_an_impossible_position_in_a_link_gets_the_seats_message(site, browser):
    # HU-5: (c - 3) x 6 for c sixes is a multiple of 6 from -18 to 12; 5 is no entry of 6-osok
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="11346", roll=1, card="sixes:5", lang="en"))
    wait_for(browser, lambda d: visible(d, "error"))
    # the engine's sentence (its wording is the rules' catalogue's): it names the entry and the box
    error = text_of(browser, "error")
    assert error.startswith("This link cannot be opened: ") and "5" in error and ("6-osok" in error or "sixes" in error)


def test_the_page_survives_the_seat_restarting(tables, browser):
    with serving() as (base, server):
        port = server.server_address[1]
        fresh(browser, link(base, game="kockapoker", rules=THREE_BOXES, dice="23666", roll=1, lang="en"))
        wait_for(browser, lambda d: hint_rows(d))
    # the seat is gone: the page says so and keeps trying
    for i in (2, 3, 4):
        tap(browser, browser.find_element(By.ID, f"die-{i}"))
    tap(browser, browser.find_element(By.ID, "keep"))
    wait_for(browser, lambda d: visible(d, "error") and "not answering" in text_of(d, "error"))
    with serving(port):
        wait_for(browser, lambda d: "roll 2 dice" in text_of(d, "turn"))
        assert not visible(browser, "error")
        tap_faces(browser, "66")
        wait_for(browser, lambda d: "throw 2 of 3" in text_of(d, "turn"))


def test_play_against_the_ai(site, browser):
    start_kockapoker(browser, site, {"boxes": ["chance"]}, against_ai=True)
    wait_for(browser, lambda d: visible(d, "roll-for-me"))
    before = play(browser, browser.find_element(By.ID, "roll-for-me"))
    wait_for(browser, lambda d: moved_on(d, before) and hint_rows(d))
    write_box(browser, "chance")  # one box: the game is over after each has one turn
    wait_for(browser, lambda d: "Game over" in text_of(d, "turn"))
    # the AI rolled and wrote its own box: two totals, each 63 (house of a card without face boxes) + a sum of 5..30
    totals = [int(part.rsplit(" ", 1)[1]) for part in text_of(browser, "turn").split(": ", 1)[1].split(";")[0].split(", ")]
    assert len(totals) == 2 and all(68 <= t <= 93 for t in totals)


def test_play_to_win_shows_the_chance_of_finishing_first(site, browser):
    # the target table of the one-box card, built into the session's cache before the
    # first "play to win" (milliseconds); the seat itself never builds one
    get_table(game_from_cli("kockapoker", ("boxes=chance",), num_players=2), "target", build_missing=True)
    start_kockapoker(browser, site, {"boxes": ["chance"]}, players="Anna,Bela")
    wait_for(browser, lambda d: visible(d, "face-6"))
    tap_faces(browser, "45666")
    wait_for(browser, lambda d: hint_rows(d))
    assert visible(browser, "to-win-label")       # two players: offered
    before = write_box(browser, "chance")  # Anna: 4+5+6+6+6 = 27, 63 + 27 = 90 (HU-6, HU-7)
    wait_for(browser, lambda d: moved_on(d, before))
    assert "Bela: roll 5 dice" in text_of(browser, "turn")
    tap_faces(browser, "46666")
    wait_for(browser, lambda d: hint_rows(d))
    assert "throw 1 of 3" in text_of(browser, "turn")
    # for points, keep 6 6 6 6: 63 + 24 + 4.25 = 91.25 against 91 for writing 28 now
    assert hint_rows(browser)[0][:2] == ["keep 6 6 6 6", "91.2500"]
    tap(browser, browser.find_element(By.ID, "to-win"))
    wait_for(browser, lambda d: visible(d, "to-win-note"))
    # by hand: writing 28 (91 > 90) wins surely; keep 6 6 6 6 wins 19/24 = 79.2% (the last
    # die from two throws: 4+ wins, 3 ties, and with one throw left a new throw's 7/12
    # beats the tie's 1/2: 1/2 + 1/2 x 7/12)
    rows = hint_rows(browser)
    assert rows[0] == ["write chance", "100.0%", "0.0 pp", "91.0000"]
    assert rows[1] == ["keep 6 6 6 6", "79.2%", "20.8 pp", "91.2500"]
    assert text_of(browser, "to-win-note") == (
        "Chance of winning 100.0% with write chance (ties shared), if the others play for points. To win, write chance "
        "rather than keep 6 6 6 6, the best for points: 100.0% against 79.2%, and it gives up 0.25 points on average.")
    wait_for(browser, lambda d: "100.0%" in text_of(d, "advice") or "100%" in text_of(d, "advice"))
    # a card whose target table is not built: the seat's message, and the hint for points
    build("kockapoker", ("boxes=fives,chance",))
    tap(browser, browser.find_element(By.ID, "new-game"))
    wait_for(browser, lambda d: visible(d, "setup"))
    type_into(browser, "rules", json.dumps({"boxes": ["fives", "chance"]}))
    before = play(browser, browser.find_element(By.ID, "start"))
    wait_for(browser, lambda d: moved_on(d, before))
    tap_faces(browser, "12355")
    wait_for(browser, lambda d: hint_rows(d) and visible(d, "to-win-note"))
    # what to run on the computer serving the page, and no file of its cache (a path, a hash)
    assert text_of(browser, "to-win-note").startswith(
        "No ranking to win: the tables for this are not built yet; on the computer serving this page, run: "
        "kocka-solve build kockapoker --kind target -r boxes=fives,chance")
    assert ".npz" not in text_of(browser, "to-win-note") and "/" not in text_of(browser, "to-win-note")
    assert "expected score" in browser.find_element(By.ID, "hint-table").text


# ----------------------------------------------------------------------------------------
# The page in each language (issue 25)
# ----------------------------------------------------------------------------------------
LANGUAGE_NAMES = ["magyar", "polski", "slovenčina", "English"]
"""The switch's languages, each in its own name, in the page's order (hu, pl, sk, en)."""
WORDS = {
    # the hint table's headings and the turn line of the first throw of three, as the design
    # of issue 25 fixes them for each language (move, expected score, loss; throw 1 of 3)
    "hu": {"move": "lépés", "value": "várható pontszám", "loss": "veszteség", "throw": "dobás: 1/3", "decimal": ","},
    "pl": {"move": "ruch", "value": "oczekiwany wynik", "loss": "strata", "throw": "rzut 1 z 3", "decimal": ","},
    "sk": {"move": "ťah", "value": "očakávané skóre", "loss": "strata", "throw": "hod 1 z 3", "decimal": ","},
    "en": {"move": "move", "value": "expected score", "loss": "loss", "throw": "throw 1 of 3", "decimal": "."},
}
ENGLISH_LEFTOVERS = ("Hint", "Everybody", "This position as a link", "undo", "new game", "written", "loss",
                     "throw 1 of 3", "tap the dice to keep", "reroll all", "Loading")
"""Words of the page that must not be left in English on a page in another language."""
PERCENT = {"hu": r"^\d{1,3},\d%$", "pl": r"^\d{1,3},\d%$", "sk": r"^\d{1,3},\d\u00a0%$", "en": r"^\d{1,3}\.\d%$"}
"""A percentage with one decimal, each language's own way (CLDR: 62,5% in Hungarian and
Polish, 62,5 % with a no-break space in Slovak, 62.5% in English)."""


def headings(browser, table_id: str) -> list[str]:
    return browser.execute_script(
        "const t = document.getElementById(arguments[0]);"
        "return t ? [...t.querySelectorAll('thead th')].map((c) => c.textContent) : [];", table_id)


def seat_answer(site: str, request: dict) -> dict:
    """The result of one request to the seat behind the page (POST /, docs/PROTOCOL.md)."""
    post = urllib.request.Request(site + "/", data=json.dumps(request).encode(), method="POST",
                                  headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(post) as response:
        return json.loads(response.read())["result"]


def seat_label(site: str, method: str, lang: str, doc: dict, action: dict) -> str:
    """The seat's own label of ``action`` in ``lang`` from ``legal`` (the engine's words) or
    ``rank`` (a solver's): what the page must show as it is."""
    result = seat_answer(site, {"method": method, "state": doc, "lang": lang})
    return next(a["label"] for a in result["actions"] if a["action"] == action)


@pytest.mark.parametrize("lang", ["hu", "pl", "sk", "en"])
def test_a_kockapoker_hint_in_each_language(site, browser, lang):
    """The hint's headings, values and labels in LANG; in hu, pl and sk no English word
    left and the screenshot docs/screenshots/page-LANG.png of the page at 360 x 800 (the
    docs show them; look at them after a change of the page)."""
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="11346", roll=1, lang=lang))
    # the whole page drawn: the hint, its plain words and the card
    wait_for(browser, lambda d: hint_rows(d) and page_language(d) == lang and text_of(d, "advice")
             and drawn_for_the_position_shown(d, "card-table") is not None)
    words = WORDS[lang]
    assert headings(browser, "hint-table")[:3] == [words["move"], words["value"], words["loss"]]
    assert words["throw"] in text_of(browser, "turn")
    rows = hint_rows(browser)
    # values with four decimals in the language's way: 12,3456 (hu, pl, sk), 12.3456 (en)
    assert all(re.fullmatch(r"-?\d+" + re.escape(words["decimal"]) + r"\d{4}", row[1]) for row in rows)
    # the move labels are the seat's, in the same language (the words' catalogue)
    best = json.loads(browser.find_element(By.CSS_SELECTOR, "#hint-table tbody tr").get_attribute("data-action"))
    doc = browser.execute_script("return JSON.parse(localStorage.getItem('kocka-web-game')).position.state")
    # kockapóker's ranking labels its moves with the engine's words, in the page's language
    assert rows[0][0] == seat_label(site, "legal", lang, doc, best) == seat_label(site, "rank", lang, doc, best)
    assert browser.find_element(By.ID, "lang").get_attribute("value") == lang
    if lang != "en":
        body = browser.find_element(By.TAG_NAME, "body").text
        assert [w for w in ENGLISH_LEFTOVERS if re.search(r"\b" + re.escape(w) + r"\b", body)] == []
    assert outside_the_screen(browser) == []
    if lang != "en":
        screenshot(browser, f"page-{lang}.png")


def open_the_kocka_hint(site: str, browser, lang: str) -> None:
    """The Kocka link of 1 1 1 5 5 2 in a race to 1000, opened in ``lang``, and its hint in
    the language's words and numbers."""
    fresh(browser, link(site, game="kocka", rules=KOCKA_1000, dice="111552", lang=lang))
    wait_for(browser, lambda d: hint_rows(d) and page_language(d) == lang)
    # Kocka's values are chances of winning (P(win)): percentages in the language's way
    assert headings(browser, "hint-table")[1] == {"hu": "nyerési esély", "pl": "szansa na wygraną",
                                                  "sk": "šanca na výhru", "en": "chance of winning"}[lang]
    assert all(re.fullmatch(PERCENT[lang], row[1]) for row in hint_rows(browser))
    best = json.loads(browser.find_element(By.CSS_SELECTOR, "#hint-table tbody tr").get_attribute("data-action"))
    doc = browser.execute_script("return JSON.parse(localStorage.getItem('kocka-web-game')).position.state")
    assert hint_rows(browser)[0][0] == seat_label(site, "rank", lang, doc, best)
    # the longer words of each language still leave every value column on a 360 px screen
    assert outside_the_screen(browser) == []


@pytest.mark.parametrize("lang", ["hu", "pl", "sk"])  # English: test_a_kocka_turn_with_bank_or_roll_advice
def test_a_kocka_hint_in_each_language(site, browser, lang):
    open_the_kocka_hint(site, browser, lang)


def test_the_switch_changes_the_language_and_remembers_it(site, browser):
    # nothing picked: kockapóker's own language, Hungarian
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="11346", roll=1))
    wait_for(browser, lambda d: hint_rows(d) and page_language(d) == "hu")
    width = browser.execute_script("return document.documentElement.clientWidth")
    scroll = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 360 and scroll <= width  # the page fits a phone: nothing sticks out sideways at 360 px
    options = browser.find_elements(By.CSS_SELECTOR, "#lang option")
    assert [o.text for o in options] == LANGUAGE_NAMES
    assert headings(browser, "hint-table")[2] == "veszteség"
    pick_language(browser, "sk")
    # the hint drawn again, for the same position, in Slovak
    wait_for(browser, lambda d: headings(d, "hint-table")[:1] == ["ťah"] and hint_rows(d))
    assert headings(browser, "hint-table")[2] == "strata" and WORDS["sk"]["throw"] in text_of(browser, "turn")
    # remembered: after a reload, and on a link of another game without a language
    browser.refresh()
    wait_for(browser, lambda d: hint_rows(d) and page_language(d) == "sk")
    assert browser.find_element(By.ID, "lang").get_attribute("value") == "sk"
    browser.get(link(site, game="kocka", rules=KOCKA_1000, dice="111552"))
    wait_for(browser, lambda d: hint_rows(d) and page_language(d) == "sk")
    assert headings(browser, "hint-table")[1] == "šanca na výhru"


def test_an_unknown_language_in_a_link_says_so_and_opens_the_link(site, browser):
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="11346", roll=1, lang="xx"))
    wait_for(browser, lambda d: visible(d, "banner"))
    banner = text_of(browser, "banner")
    # in English and in the language shown instead (the game's own: Hungarian)
    assert 'This link asks for the language "xx", which this page does not have; it is shown in magyar instead.' in banner
    assert 'Ez a link a(z) "xx" nyelvet kéri' in banner
    assert all(name in banner for name in LANGUAGE_NAMES)
    wait_for(browser, lambda d: hint_rows(d))
    assert page_language(browser) == "hu" and not visible(browser, "loading")


# ----------------------------------------------------------------------------------------
# A page per game at 360 x 800 (issue 26)
# ----------------------------------------------------------------------------------------
GAMES = {
    # every game the page offers (hello's games with the optimal agent), each on a small card
    # so that its table builds in about a second; the rules as the setup form takes them
    "kockapoker": {"boxes": ["sixes", "chance", "pair"]},
    "slovak": {"boxes": ["sixes", "chance"]},
    "yahtzee": {"boxes": ["sixes", "chance"]},
    "yatzy": {"boxes": ["sixes", "chance"]},
    "polish": {"boxes": ["chance", "sixes"], "stages": 2},
    "polish-basic": {"boxes": ["pair", "poker"]},
    "kocka": {"target": 1000},
}


def cli_rules(rules: dict) -> tuple[str, ...]:
    return tuple(f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in rules.items())


@pytest.fixture(scope="module")
def game_tables() -> None:
    for name, rules in GAMES.items():
        build(name, cli_rules(rules))


# The bluff games (BLUFF-1..21) against the computer, 2 chips each: a stake of 1 or 2 to pick
# (BLUFF-12), and a round or two decide the game. Their equilibrium tables take minutes to
# build, so here the page plays with the stand-in (the Bayesian bot) and says so.
BLUFF_GAMES = {
    "abazs": {"start_chips": 2},
    "bidding-bluff": {"start_chips": 2},
    "liars-poker": {"start_chips": 2},
}


def offered_games(site: str) -> set[str]:
    """The games the page lists: hello's available games with an agent that plays from the
    exact solution, optimal or equilibrium (app.js loadGames, EXACT_AGENTS)."""
    return {g["name"] for g in seat_answer(site, {"method": "hello"})["games"]
            if g["available"] and {"optimal", "equilibrium"} & set(g["agents"])}


def outside_the_screen(browser) -> list[str]:
    """Every element of the hint table, the card, everybody's cards, the dice and the
    controls whose box is not inside the 360 px viewport (getBoundingClientRect), and the
    page's own sideways scroll: empty when every value column fits."""
    return browser.execute_script("""
        const width = document.documentElement.clientWidth, out = [];
        if (document.documentElement.scrollWidth > width) out.push('page scrolls sideways: ' + document.documentElement.scrollWidth);
        for (const root of ['hint-table', 'card-table', 'cards-table', 'scores-table', 'chips-table', 'dice', 'controls', 'bluff', 'frequencies']) {
          const node = document.getElementById(root);
          if (!node || !node.offsetParent) continue;
          for (const e of [node, ...node.querySelectorAll('*')]) {
            const r = e.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            if (r.left < -0.5 || r.right > width + 0.5) out.push(root + ' ' + e.tagName + ' "' + e.textContent.slice(0, 30) + '" ' + r.left + '..' + r.right);
          }
        }
        return out;""")


def start_against_the_ai(browser, site: str, name: str, rules: dict | None = None) -> None:
    """A new game of ``name`` against one computer player, by the setup form, the
    computer's moves without the page's pause before each (``pace=0``)."""
    # in English by the link (picked: the game chosen then keeps it)
    fresh(browser, site + "/?lang=en&pace=0")
    wait_for(browser, lambda d: visible(d, "setup") and page_language(d) == "en")
    browser.find_element(By.CSS_SELECTOR, f"#game-select option[value='{name}']").click()
    tap(browser, browser.find_element(By.ID, "mode-ai"))
    tap(browser, browser.find_element(By.TAG_NAME, "summary"))
    type_into(browser, "rules", json.dumps(GAMES[name] if rules is None else rules))
    tap(browser, browser.find_element(By.ID, "start"))


def events(browser) -> str:
    """The history's lines, newest first, and the message above it: what the page holds
    (the list scrolls within a few lines' height, so a line scrolled out of view is still
    there for a player to scroll back to; Selenium's visible text would miss it)."""
    return browser.execute_script(
        "return [...document.querySelectorAll('#events li')].map((li) => li.textContent)"
        ".concat([document.getElementById('message').textContent]).join('\\n');")


def my_turn(browser) -> bool:
    return text_of(browser, "turn").startswith("me:")


def my_first_decision(browser) -> None:
    """Rolls for me until the page shows my first decision (or the round is decided)."""
    for _step in range(20):
        wait_for(browser, lambda d: (my_turn(d) and (visible(d, "roll-for-me") or hint_rows(d))) or "shows" in events(d))
        if not visible(browser, "roll-for-me"):
            return
        before = play(browser, browser.find_element(By.ID, "roll-for-me"))
        wait_for(browser, lambda d: moved_on(d, before))


def screenshot(browser, name: str) -> None:
    """NAME: what the 360 x 800 screen shows, into the folder ``KOCKA_SCREENSHOTS`` names
    (``KOCKA_SCREENSHOTS=docs/screenshots`` renews the ones docs/TABLE.md shows; a plain
    run writes them to a temporary folder, so the tests leave the checkout as it was)."""
    chosen = os.environ.get("KOCKA_SCREENSHOTS")
    out = pathlib.Path(chosen) if chosen else pathlib.Path(tempfile.gettempdir()) / "kocka-screenshots"
    out.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(out / name))


def test_the_setup_page_opens_on_no_game(site, browser):
    fresh(browser, site + "/?lang=en")
    wait_for(browser, lambda d: visible(d, "setup") and page_language(d) == "en")
    assert browser.find_element(By.ID, "game-select").get_attribute("value") == ""
    assert text_of(browser, "game-description") == "Choose the game to play."
    assert not browser.find_element(By.ID, "start").is_enabled()


@pytest.mark.parametrize("name", list(GAMES))
def test_a_whole_turn_of_each_game_on_a_phone(site, browser, game_tables, name):
    """Each game against the computer at 360 x 800, by taps: my turn until it passes
    (the hint's best move each time, a question answered yes), every value column inside
    the screen at each decision; then the computer's turn, its rolls shown; a screenshot
    of the first decision in docs/screenshots/game-NAME.png."""
    assert set(GAMES) | set(BLUFF_GAMES) == offered_games(site)  # every game the page offers is here
    start_against_the_ai(browser, site, name)
    wait_for(browser, lambda d: my_turn(d))
    title = seat_answer(site, {"method": "hello", "lang": "en"})
    assert text_of(browser, "title") == next(g["title"] for g in title["games"] if g["name"] == name)
    shot = False
    for _step in range(40):
        # my turn is over once the computer has moved (at pace 0 it may be mine again already)
        if not my_turn(browser) or "computer" in events(browser):
            break
        if visible(browser, "confirm-yes"):
            before = play(browser, browser.find_element(By.ID, "confirm-yes"))
        elif visible(browser, "roll-for-me"):
            if name == "kocka":  # Kocka by the faces: a 5 (50 points), then five dice with nothing to take: the turn is lost
                tap_faces(browser, "523466" if "turn total" not in text_of(browser, "turn") or "turn total 0" in text_of(browser, "turn") else "22346")
                continue
            before = play(browser, browser.find_element(By.ID, "roll-for-me"))
        else:
            wait_for(browser, lambda d: hint_rows(d) or visible(d, "confirm-yes") or not my_turn(d))
            if not my_turn(browser) or visible(browser, "confirm-yes"):
                continue
            wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table") is not None or not visible(d, "card-panel"))
            assert outside_the_screen(browser) == []
            bank_or_roll = name == "kocka" and "turn total 50" in text_of(browser, "turn")
            if bank_or_roll:
                # bank or roll: the 5 set aside and the five dice left (KOCKA: 6 - 1)
                assert len(browser.find_elements(By.CSS_SELECTOR, "#dice [id^='aside-']")) == 1
                assert len(browser.find_elements(By.CSS_SELECTOR, "#dice [id^='left-']")) == 5
                assert text_of(browser, "dice-note") == "set aside 5; 5 dice left to throw"
            # the first decision with dice on show (Kocka: the bank-or-roll screen)
            if not shot and (bank_or_roll if name == "kocka" else bool(browser.find_elements(By.ID, "die-0"))):
                screenshot(browser, f"game-{name}.png")
                if visible(browser, "card-panel"):  # the card, with its sums, scrolled into view
                    browser.execute_script("document.getElementById('card-panel').scrollIntoView()")
                    screenshot(browser, f"game-{name}-card.png")
                    browser.execute_script("window.scrollTo(0, 0)")
                shot = True
            before = play(browser, browser.find_element(By.CSS_SELECTOR, "#hint-table tbody tr"))
        wait_for(browser, lambda d: moved_on(d, before) or visible(d, "confirm-yes"))
    assert shot and (not my_turn(browser) or "computer" in events(browser))
    # the computer's turn: its rolls are shown, not only what it wrote
    wait_for(browser, lambda d: my_turn(d) or "Game over" in text_of(d, "turn"))
    assert "computer threw" in events(browser)
    assert outside_the_screen(browser) == []


def test_the_polish_card_and_scratching_behind_a_question(site, browser, game_tables):
    start_against_the_ai(browser, site, "polish")
    wait_for(browser, lambda d: my_turn(d) and drawn_for_the_position_shown(d, "card-table") is not None)
    assert visible(browser, "card-panel") and len(table_rows(browser, "cards-table")) >= 2
    # one "scratch…" control, not a button per box
    assert len(browser.find_elements(By.CSS_SELECTOR, "#controls button")) == 2  # roll, scratch…
    tap(browser, browser.find_element(By.ID, "scratch"))
    choices = browser.find_elements(By.CSS_SELECTOR, ".scratch-choice")
    assert sorted(c.text for c in choices) == ["scratch chance", "scratch sixes"]
    tap(browser, next(c for c in choices if c.text == "scratch sixes"))
    assert text_of(browser, "confirm-text") == "scratch sixes: sure? The box is used up."
    tap(browser, browser.find_element(By.ID, "confirm-no"))  # nothing scratched
    assert not visible(browser, "confirm-text") and visible(browser, "scratch")
    tap(browser, browser.find_element(By.ID, "scratch"))
    tap(browser, next(c for c in browser.find_elements(By.CSS_SELECTOR, ".scratch-choice") if c.text == "scratch sixes"))
    before = play(browser, browser.find_element(By.ID, "confirm-yes"))
    wait_for(browser, lambda d: moved_on(d, before))
    # back at my turn after the computer's: sixes scratched before a throw, -3 x 6 = -18
    # (PL-11), and 3 fences for a turn without a throw (PL-12): a budget of 6 throws
    wait_for(browser, lambda d: my_turn(d) and drawn_for_the_position_shown(d, "card-table"))
    assert "throw 0 of 6" in text_of(browser, "turn") and "3 fences" in text_of(browser, "turn")
    card = drawn_for_the_position_shown(browser, "card-table")
    assert ["sixes", "-18", ""] in card
    # PL-9: a net upper score below 0 gives -20 (one face box on this card, all filled)
    sums = table_rows(browser, "card-table")
    assert browser.find_element(By.ID, "sum-upper").text.split()[-1] == "-18"
    assert browser.find_element(By.ID, "sum-bonus").text.split()[-1] == "-20"
    assert browser.find_element(By.ID, "sum-house").text.split()[-1] == "-38"
    assert sums and text_of(browser, "title") == "Polish poker dice (full game)"


def test_the_kockapoker_card_shows_the_house(site, browser):
    # HU-5: four 6s in 6-osok write (4 - 3) x 6 = +6; HU-7: net +6 >= 0, the house scores 63 + 6 = 69
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="23666", roll=3, card="sixes:6", lang="en"))
    wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table"))
    assert browser.find_element(By.ID, "sum-upper").text == "upper section (1-6), net +6"
    assert browser.find_element(By.ID, "sum-bonus").text == "upper bonus as it stands +63"
    assert browser.find_element(By.ID, "sum-house").text == "upper section with its bonus 69"
    assert browser.find_element(By.ID, "sum-total").text == "total 69"
    assert outside_the_screen(browser) == []


def test_writing_a_zero_asks_first(site, browser):
    build("kockapoker", ("boxes=full_house,chance",))
    # HU-6: 1 2 4 5 5 is no full: writing full scores 0 (HU-4)
    fresh(browser, link(site, game="kockapoker", rules={"boxes": ["full_house", "chance"]}, dice="12455", roll=3, lang="en"))
    wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table"))
    before = write_box(browser, "full_house")
    wait_for(browser, lambda d: visible(d, "confirm-text"))
    assert text_of(browser, "confirm-text") == "this writes 0 in full house: write it?"
    assert shown_position(browser) == before  # nothing written yet
    tap(browser, browser.find_element(By.ID, "confirm-no"))
    write_box(browser, "full_house")
    wait_for(browser, lambda d: visible(d, "confirm-yes"))
    before = play(browser, browser.find_element(By.ID, "confirm-yes"))
    wait_for(browser, lambda d: moved_on(d, before))
    assert ["full house", "0"] in table_rows(browser, "cards-table")


def test_the_polish_card_marks_what_scores_from_hand(site, browser):
    # a Polish stage-1 position after the first throw 3 3 6 6 6, made by the seat itself
    rules = {"boxes": ["full_house", "chance"], "stages": 1}
    doc = seat_answer(site, {"method": "new", "game": "polish", "rules": rules, "players": 1})["state"]
    doc = seat_answer(site, {"method": "apply", "state": doc, "action": {"type": "Keep", "dice": []}})["state"]
    doc = seat_answer(site, {"method": "apply", "state": doc, "outcome": [3, 3, 6, 6, 6]})["state"]
    state = base64.urlsafe_b64encode(json.dumps(doc["state"]).encode()).decode().rstrip("=")
    fresh(browser, link(site, game="polish", rules=rules, state=state, players="", lang="en"))
    wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table"))
    card = drawn_for_the_position_shown(browser, "card-table")
    # PL-13: a full from hand is 3 x the sum, 3 x 24 = 72, marked; chance has no bonus: 24
    assert ["full", "", "72 ★"] in card or ["full house", "", "72 ★"] in card
    assert ["chance", "", "24"] in card
    assert "★ from hand" in text_of(browser, "card-panel")
    assert outside_the_screen(browser) == []


def test_a_polish_declaration_is_made_on_the_card(site, browser):
    # stage 2 of a two-stage game (PL-15): after the first throw the player declares one
    # open box, by a tap on the card, and this turn only that box can be filled
    rules = {"boxes": ["chance", "sixes"], "stages": 2}
    doc = seat_answer(site, {"method": "new", "game": "polish", "rules": rules, "players": 1})["state"]
    # stage 1 done: chance 20, sixes scratched before a throw (-3 x 6 = -18, PL-11), 3 + 3 fences
    doc["state"].update(stage=2, fences=[6])
    doc["state"]["cards"][0] = [[-18, 20]]  # the card in the engine's box order: sixes, chance
    doc = seat_answer(site, {"method": "apply", "state": doc, "action": {"type": "Keep", "dice": []}})["state"]
    doc = seat_answer(site, {"method": "apply", "state": doc, "outcome": [1, 2, 3, 6, 6]})["state"]
    state = base64.urlsafe_b64encode(json.dumps(doc["state"]).encode()).decode().rstrip("=")
    fresh(browser, link(site, game="polish", rules=rules, state=state, players="", lang="en"))
    wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table"))
    assert "stage 2" in text_of(browser, "turn") and visible(browser, "declare-note")
    assert browser.find_elements(By.CSS_SELECTOR, "#controls button.move[data-type='Declare']") == []
    before = write_box(browser, "sixes")
    wait_for(browser, lambda d: moved_on(d, before) and drawn_for_the_position_shown(d, "card-table"))
    assert "declared" in browser.find_element(By.ID, "box-sixes").get_attribute("class")
    assert "declared: sixes; this turn only this box" in text_of(browser, "card-panel")
    # the stage's card is new; the game total has stage 1's (PL-17, PL-9: its net -18 < 0 gives -20:
    # 20 - 18 - 20 = -18)
    assert browser.find_element(By.ID, "sum-total").text == "total -18"
    assert outside_the_screen(browser) == []


def bluff_state(browser) -> dict:
    """The state document of the position on show (what the page holds, and saves)."""
    return browser.execute_script("return JSON.parse(localStorage.getItem('kocka-web-game')).position.state")


@pytest.mark.parametrize("name", list(BLUFF_GAMES))
def test_a_whole_round_of_each_bluff_game_on_a_phone(site, browser, name):
    """A bluff game against the computer at 360 x 800, by taps, until a round is decided:
    my own dice shown and the computer's face down (the state the page holds says which are
    whose), the standing claim and the chips above them, a claim with a stake picked on the
    stake picker where the claims carry one, else the hint's best move; the computer's moves
    and the reveal in the history; every element inside the screen; a screenshot of my first
    decision in docs/screenshots/game-NAME.png."""
    start_against_the_ai(browser, site, name, BLUFF_GAMES[name])
    wait_for(browser, lambda d: my_turn(d) or "shows" in events(d))
    shot = False
    seen: set[str] = set()  # every line the history showed (it keeps the latest few)
    for _step in range(60):
        seen |= set(events(browser).splitlines())
        if "shows" in events(browser) or "Game over" in text_of(browser, "turn"):
            break
        if not my_turn(browser):
            wait_for(browser, lambda d: my_turn(d) or "shows" in events(d) or "Game over" in text_of(d, "turn"))
            continue
        if visible(browser, "roll-for-me"):
            before = play(browser, browser.find_element(By.ID, "roll-for-me"))
            wait_for(browser, lambda d: moved_on(d, before))
            continue
        wait_for(browser, lambda d: hint_rows(d) or not my_turn(d))
        if not my_turn(browser):
            continue
        doc = bluff_state(browser)["state"]
        me, cup = 0, 1  # the setup's seats: me first, the computer after me
        assert doc["chips"] == [int(x) for x in re.findall(r"(?:me|computer) (\d+)", text_of(browser, "chips"))]
        if doc["dice"] and doc["active"] == me:  # my dice face up, as the state has them
            shown = [int(b.get_attribute("aria-label").rsplit(" ", 1)[1]) for b in browser.find_elements(By.CSS_SELECTOR, "#dice [id^='mine-'] svg")]
            assert shown == doc["dice"]
        if doc["dice"] and doc["active"] == cup:  # the computer's under the cup: as many dice, no pips
            assert len(browser.find_elements(By.CSS_SELECTOR, "#dice .die.hidden")) >= len(doc["dice"]) - (doc["shown"] > 0)
            assert not browser.find_elements(By.CSS_SELECTOR, "#dice [id^='mine-']")
        if doc["standing"]:
            assert text_of(browser, "standing").startswith("standing — computer: claim " if doc["active"] == cup else "standing — me: claim ")
        assert outside_the_screen(browser) == []
        if not shot:
            screenshot(browser, f"game-{name}.png")
            shot = True
        claims = browser.find_elements(By.CSS_SELECTOR, "#controls button.move[data-type='Claim']")
        if visible(browser, "stake-up") and browser.find_element(By.ID, "stake-up").is_enabled() and claims:
            # a stake of 2 (the range is 1..2 at 2 chips, BLUFF-12): the claim's words say it
            tap(browser, browser.find_element(By.ID, "stake-up"))
            wait_for(browser, lambda d: text_of(d, "stake") == "2")
            claim = browser.find_element(By.CSS_SELECTOR, "#controls button.move[data-type='Claim']")
            words = claim.text
            assert words.endswith(" 2") and ".." not in words
            positions = "const g = JSON.parse(localStorage.getItem('kocka-web-game'));" \
                        "return [...g.history, g.position].map((p) => p.state.state);"
            tapped_at = len(browser.execute_script(positions)) - 1  # the position the claim is made in
            before = play(browser, claim)
            wait_for(browser, lambda d: moved_on(d, before))
            # the position my claim made (on show, or already under the computer's answer, and
            # the computer may have played on since): stake 2, among those after the tap
            made = browser.execute_script(positions)[tapped_at:]
            assert any(m["phase"] == "answer" and m["active"] == me and m["stake"] == 2 for m in made), made
            assert "me: " + words in events(browser)
            continue
        before = play(browser, browser.find_element(By.CSS_SELECTOR, "#hint-table tbody tr"))
        wait_for(browser, lambda d: moved_on(d, before))
    wait_for(browser, lambda d: "shows" in events(d))
    seen |= set(events(browser).splitlines())
    assert shot and any(line.startswith("computer: ") for line in seen)  # the computer's moves are in the history
    assert any(line.startswith("for the seating, me threw ") for line in seen), seen
    # the computer's dice are never told before the reveal: its rolls are "under the cup"
    assert all(line == "computer threw under the cup" for line in seen if line.startswith("computer threw"))
    assert any(re.fullmatch(r"(me|computer) shows \d( \d)*", line) for line in seen)
    assert outside_the_screen(browser) == []


@pytest.fixture(scope="module")
def abazs_equilibrium(shared_tables) -> None:
    """Abázs's equilibrium table (BLUFF-10; one table serves every chip count, as the
    match's values are per chip): the run's shared table (tests/conftest.py), copied into
    the session's cache where the seat looks."""
    shared_tables.install(game_from_cli("abazs", (), num_players=2), solver_for("abazs", "equilibrium"))


def test_the_bluff_hint_lists_the_equilibriums_frequencies(site, browser, abazs_equilibrium):
    """Abázs against the computer with its equilibrium table: at my first decision the hint
    lists the equilibrium's mixed strategy (each move it plays with its frequency, as the
    seat's advice gives them: the same moves, percentages adding up to 100) and the seat's
    die-roll suggestion, and the line about the stand-in is gone."""
    start_against_the_ai(browser, site, "abazs", BLUFF_GAMES["abazs"])
    my_first_decision(browser)
    wait_for(browser, lambda d: browser.execute_script(
        "const f = document.getElementById('frequencies'); return f && f.dataset.position === document.body.dataset.position"))
    doc = bluff_state(browser)
    advice = seat_answer(site, {"method": "advice", "state": doc, "agent": "equilibrium", "lang": "en"})
    rows = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#frequencies li")]
    labels = {json.dumps(e["action"], sort_keys=True): e["label"]
              for e in seat_answer(site, {"method": "legal", "state": doc, "lang": "en"})["actions"]}
    expected = [f"{labels[json.dumps(f['action'], sort_keys=True)]}: {round(100 * f['probability'])}%" for f in advice["frequencies"]]
    assert rows == expected
    assert abs(sum(f["probability"] for f in advice["frequencies"]) - 1) < 1e-9
    assert text_of(browser, "suggestion") == advice["suggestion"]
    assert not visible(browser, "to-win-note")  # no stand-in: the equilibrium itself
    assert outside_the_screen(browser) == []
    screenshot(browser, "game-abazs-frequencies.png")
