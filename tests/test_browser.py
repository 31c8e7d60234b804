"""``kocka web`` in a real browser: headless Chromium driven by selenium.

Needs Debian's ``chromium`` and ``chromium-driver`` and pip's ``selenium`` (the
``browser`` extra); ``.ci/run`` installs them. Without them every test here is skipped
with one line saying what to install.

The page is served by :func:`kocka.agents.frontends.seat.web.make_web_server` in a thread of
this process, on the seat of this test session (its tables in the session's isolated
cache, tests/conftest.py, built once here before the server starts). Small rule variants
keep the tables quick: a three-box kockapóker card, a Kocka race to 1000; the one figure
of the full card (the hint for 1 1 3 4 6) needs the whole kockapóker table, about 10 s to
build once.

Every step waits for a state of the page, never for time: the page marks the position it
shows (``body[data-position]``, one more for each position) and the hint and the card it
drew for a position (``data-position`` of ``#hint-table`` and ``#card-table``), so a test
reads a hint or taps a box only once they belong to the position on show.
"""
from __future__ import annotations

import contextlib
import json
import shutil
import urllib.parse
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
from kocka.solver.store.table_store import game_from_cli, get_table

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
if webdriver is None or CHROMIUM is None or DRIVER is None:
    pytest.skip("no browser: apt-get install chromium chromium-driver and pip install selenium (.ci/run does)",
                allow_module_level=True)

THREE_BOXES = {"boxes": ["sixes", "chance", "pair"]}
KOCKA_1000 = {"target": 1000}
WAIT = 30  # seconds: the first request of a table loads it


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


@pytest.fixture(scope="session")
def full_card_table() -> None:
    """The whole kockapóker table (about 10 s), for the one test that needs it."""
    build("kockapoker", ())


@contextlib.contextmanager
def serving(port: int = 0) -> Iterator[tuple[str, Any]]:
    server = make_web_server(Seat(SeatOptions()), f"127.0.0.1:{port}", request_timeout=30, shutdown_grace=0)
    with serving_in_thread(server) as base:
        yield base, server


@pytest.fixture(scope="module")
def site(tables) -> Iterator[str]:
    with serving() as (base, _):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=360,900"):
        options.add_argument(flag)
    options.binary_location = CHROMIUM
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    except WebDriverException as exc:
        pytest.skip(f"chromium did not start: {exc.msg.splitlines()[0] if exc.msg else exc}")
    # a phone's screen: 360 CSS pixels wide (a desktop window cannot be made this narrow)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 800, "deviceScaleFactor": 2,
                                                                  "mobile": True})
    yield driver
    driver.quit()


def wait_for(browser, condition, timeout: float = WAIT):
    """Until ``condition`` holds; an element redrawn while it was read is read again."""
    return WebDriverWait(browser, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(
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


def play(browser, element) -> int:
    """Clicks a move and returns the position shown before it: the caller waits for a
    later one."""
    before = shown_position(browser)
    element.click()
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
        browser.find_element(By.ID, f"face-{face}").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "enter-roll").is_enabled())
    before = play(browser, browser.find_element(By.ID, "enter-roll"))
    wait_for(browser, lambda d: moved_on(d, before))


def fresh(browser, url: str) -> None:
    browser.get(url)
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")


def start_kockapoker(browser, site: str, rules: dict, players: str | None = None, against_ai: bool = False) -> None:
    """A new kockapóker game through the page's setup form, from a fresh page: the players'
    names (or the AI as the other player), the rules as JSON, then Start; the caller waits
    for what the game shows first.

    Why one helper: the scenarios that start a game by clicks go through the same form in
    the same order, so a change of the form is followed here once."""
    fresh(browser, site + "/")
    wait_for(browser, lambda d: visible(d, "setup"))
    browser.find_element(By.CSS_SELECTOR, "#game-select option[value='kockapoker']").click()
    if players is not None:
        browser.find_element(By.ID, "players").clear()
        browser.find_element(By.ID, "players").send_keys(players)
    if against_ai:
        browser.find_element(By.ID, "mode-ai").click()
    browser.find_element(By.TAG_NAME, "summary").click()
    browser.find_element(By.ID, "rules").send_keys(json.dumps(rules))
    browser.find_element(By.ID, "start").click()


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
    assert text_of(browser, "advice").startswith("keep 6 6 6: going for 6-osok")
    for i in (2, 3, 4):                              # the dice are sorted: 2 3 6 6 6
        browser.find_element(By.ID, f"die-{i}").click()
    keep = browser.find_element(By.ID, "keep")
    assert keep.text == "keep 6 6 6"
    before = play(browser, keep)
    wait_for(browser, lambda d: moved_on(d, before))
    assert "roll 2 dice" in text_of(browser, "turn")
    tap_faces(browser, "66")
    assert "throw 2 of 3" in text_of(browser, "turn")
    # HU-5: five 6s in 6-osok: (5 - 3) x 6 = 12, shown as what the box would score now
    wait_for(browser, lambda d: drawn_for_the_position_shown(d, "card-table"))
    assert ["6-osok", "", "12"] in drawn_for_the_position_shown(browser, "card-table")
    before = write_box(browser, "sixes")
    wait_for(browser, lambda d: moved_on(d, before))
    assert "throw 0 of 3" in text_of(browser, "turn")
    assert table_rows(browser, "cards-table")[0] == ["6-osok", "12"]
    assert "Anna: write 6-osok" in text_of(browser, "message")


def test_the_shared_link_opens_to_its_hint(site, browser, full_card_table):
    fresh(browser, link(site, game="kockapoker", dice="11346", roll=1))
    wait_for(browser, lambda d: hint_rows(d))
    # the README's hint for 1 1 3 4 6 on the first throw of an empty card (kocka hint, the same table)
    assert hint_rows(browser)[0][:2] == ["keep 6", "194.9346"]
    shared = browser.find_element(By.ID, "share-link").get_attribute("href")
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(shared).query) == {"game": ["kockapoker"], "dice": ["11346"], "roll": ["1"]}


def test_a_link_in_english_and_with_a_card(site, browser):
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="33355", roll=3, card="pár:6", lang="en"))
    wait_for(browser, lambda d: hint_rows(d))
    labels = [row[0] for row in hint_rows(browser)]
    # throw 3 of 3: only the two open boxes; in English by the switch (words.py)
    assert sorted(labels) == ["write chance", "write sixes"]


def test_a_kocka_turn_with_bank_or_roll_advice(site, browser):
    fresh(browser, link(site, game="kocka", rules=KOCKA_1000, dice="111552"))
    wait_for(browser, lambda d: hint_rows(d))
    for i in (0, 1, 2):                              # the three 1s: 1000 points (KOCKA-5)
        browser.find_element(By.ID, f"die-{i}").click()
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
    wait_for(browser, lambda d: "P(win)" in text_of(d, "advice"))
    before = play(browser, browser.find_element(By.CSS_SELECTOR, "button.move[data-type='Bank']"))
    wait_for(browser, lambda d: moved_on(d, before))
    assert text_of(browser, "turn") == "Game over: me 1000, opponent 0; winner: me"


@pytest.mark.parametrize("params, message", [
    ({"game": "kockapoker", "dice": "7"}, "the link's dice must be digits 1 to 6"),
    ({"game": "kockapoker", "dice": "1134"}, "the link's dice must be the five dice showing"),
    ({"game": "tarokk", "dice": "11346"}, 'the game "tarokk"'),
    ({"game": "kockapoker", "dice": "11346", "card": "pairs:3"}, '"pairs", which is not a box'),
])
def test_a_bad_link_says_what_is_wrong(site, browser, params, message):
    fresh(browser, link(site, **params))
    wait_for(browser, lambda d: visible(d, "error"))
    assert text_of(browser, "error").startswith("This link cannot be opened:") and message in text_of(browser, "error")
    assert visible(browser, "setup")


def test_an_impossible_position_in_a_link_gets_the_seats_message(site, browser):
    # HU-5: (c - 3) x 6 for c sixes is a multiple of 6 from -18 to 12; 5 is no entry of 6-osok
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="11346", roll=1, card="sixes:5"))
    wait_for(browser, lambda d: visible(d, "error"))
    assert "not a possible entry of 6-osok" in text_of(browser, "error")


def test_the_page_survives_the_seat_restarting(tables, browser):
    with serving() as (base, server):
        port = server.server_address[1]
        fresh(browser, link(base, game="kockapoker", rules=THREE_BOXES, dice="23666", roll=1))
        wait_for(browser, lambda d: hint_rows(d))
    # the seat is gone: the page says so and keeps trying
    for i in (2, 3, 4):
        browser.find_element(By.ID, f"die-{i}").click()
    browser.find_element(By.ID, "keep").click()
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


def test_the_page_fits_a_phone(site, browser):
    fresh(browser, link(site, game="kockapoker", rules=THREE_BOXES, dice="11346", roll=1))
    wait_for(browser, lambda d: hint_rows(d))
    width = browser.execute_script("return document.documentElement.clientWidth")
    scroll = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 360 and scroll <= width  # nothing sticks out sideways at 360 px


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
    browser.find_element(By.ID, "to-win").click()
    wait_for(browser, lambda d: visible(d, "to-win-note"))
    # by hand: writing 28 (91 > 90) wins surely; keep 6 6 6 6 wins 19/24 = 79.2% (the last
    # die from two throws: 4+ wins, 3 ties, and with one throw left a new throw's 7/12
    # beats the tie's 1/2: 1/2 + 1/2 x 7/12)
    rows = hint_rows(browser)
    assert rows[0] == ["write szemét", "100.0%", "0.0 pp", "91.0000"]
    assert rows[1] == ["keep 6 6 6 6", "79.2%", "20.8 pp", "91.2500"]
    assert text_of(browser, "to-win-note") == (
        "P(win) 100.0% with write szemét (ties shared), if the others play for points. To win, write szemét rather "
        "than keep 6 6 6 6, the best for points: 100.0% against 79.2%, and gives up 0.25 points on average.")
    wait_for(browser, lambda d: "P(win) 100.0%" in text_of(d, "advice"))
    # a card whose target table is not built: the seat's message, and the hint for points
    build("kockapoker", ("boxes=fives,chance",))
    browser.find_element(By.ID, "new-game").click()
    wait_for(browser, lambda d: visible(d, "setup"))
    browser.find_element(By.ID, "rules").clear()
    browser.find_element(By.ID, "rules").send_keys(json.dumps({"boxes": ["fives", "chance"]}))
    before = play(browser, browser.find_element(By.ID, "start"))
    wait_for(browser, lambda d: moved_on(d, before))
    tap_faces(browser, "12355")
    wait_for(browser, lambda d: hint_rows(d) and visible(d, "to-win-note"))
    assert text_of(browser, "to-win-note").startswith("No ranking to win: agent 'winner' needs the target table")
    assert "kocka-solve build kockapoker --kind target -r boxes=fives,chance" in text_of(browser, "to-win-note")
    assert "expected final score" in browser.find_element(By.ID, "hint-table").text
