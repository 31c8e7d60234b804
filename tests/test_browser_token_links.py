"""Position links behind a token (issue 26: ``kocka web --token`` / ``--lan``), in a browser.

A link shared from the page carries the seat's token in its fragment, as the address
``kocka web --lan`` prints does (``#token=...``: browsers never send a fragment, so no log
or ``Referer`` holds it), so that a player at the table opens it on his own phone; the same
link without the token gets the seat's refusal, said on the page (a screenshot of it at
360 x 800, docs/screenshots/token-refused.png). Served on 127.0.0.1 only.
Needs the browser that tests/test_browser.py needs (skipped without it, as there).
"""
from __future__ import annotations

import urllib.parse
from typing import Iterator

import pytest

from test_browser import (  # noqa: F401  (browser: the module's fixture)
    THREE_BOXES, browser, build, fresh, hint_rows, link, outside_the_screen, screenshot, text_of, visible, wait_for,
)
from conftest import serving_in_thread
from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
from kocka.agents.frontends.seat.web import make_web_server

TOKEN = "our-table-secret"


@pytest.fixture(scope="module")
def guarded_site() -> Iterator[str]:
    """The page and the seat on 127.0.0.1 behind ``TOKEN``, with the small table it hints from."""
    build("kockapoker", ("boxes=sixes,chance,pair",))
    server = make_web_server(Seat(SeatOptions()), "127.0.0.1:0", token=TOKEN, request_timeout=30, shutdown_grace=0)
    with serving_in_thread(server) as base:
        yield base


def shared_link(browser) -> str:
    """The page's own link to the position on show, once drawn for it."""
    wait_for(browser, lambda d: hint_rows(d))
    return browser.find_element("id", "share-link").get_attribute("href")


@pytest.fixture(scope="module")
def opened_with_the_token(guarded_site, browser) -> tuple[str, list[list[str]]]:
    """The page opened by an address with the token (as ``kocka web --lan`` prints one): its
    own link to the position on show, and the hint it shows there."""
    fresh(browser, link(guarded_site, game="kockapoker", rules=THREE_BOXES, dice="11346", roll=1, lang="en")
          + f"#token={TOKEN}")
    return shared_link(browser), hint_rows(browser)


def test_a_shared_link_carries_the_token_and_opens_on_another_device(browser, opened_with_the_token):
    shared, first_hint = opened_with_the_token
    parts = urllib.parse.urlsplit(shared)
    assert parts.fragment == f"token={TOKEN}"  # the token the page was opened with, and only it
    assert urllib.parse.parse_qs(parts.query)["dice"] == ["11346"]
    # another device: nothing remembered (fresh clears the tab's storage), only the link
    fresh(browser, shared)
    wait_for(browser, lambda d: hint_rows(d))
    assert hint_rows(browser) == first_hint  # the same position, the same hint


def test_the_link_without_its_token_is_refused_in_words(browser, opened_with_the_token):
    bare = urllib.parse.urlsplit(opened_with_the_token[0])._replace(fragment="").geturl()
    fresh(browser, bare)  # the tab's storage cleared: the token the page kept is gone too
    wait_for(browser, lambda d: visible(d, "error") and text_of(d, "error"))
    # the page's own sentence for the seat's 401 (app.js reasonOf), in the link's language
    expected = "this server needs its token: open the address kocka web printed (it ends in #token=…) " \
               "or a link shared from a page that has it"
    assert expected in text_of(browser, "error")
    assert not hint_rows(browser)
    assert outside_the_screen(browser) == []
    # docs/screenshots/token-refused.png: what the phone shows (look at it after a change of the page)
    screenshot(browser, "token-refused.png")
