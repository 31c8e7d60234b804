"""``kocka web`` without a browser: what the server sends (agents/frontends/web.py), and the
seat methods the page needs (``distribution``, ``advice``, ``lang``; docs/PROTOCOL.md).

The positions are on a one-box card (szemét only: HU-6, the sum of the five dice), whose
numbers can be worked out by hand: a card without face boxes has net 0, so its house adds
63 (HU-7), and the final score is 63 + the sum written.
"""
from __future__ import annotations

import contextlib
import json
import threading
from typing import Any, Iterator

import httpx
import pytest
from click.testing import CliRunner

from kocka.agents.frontends.cli import main
from kocka.agents.frontends.seat import Seat, SeatOptions
from kocka.agents.frontends.web import LANG_MARK, STATIC_FILES, make_web_server
from kocka.solver.registry import game_from_cli, get_table
from kocka.solver.rules import get_game

ONE_BOX = {"boxes": ["chance"]}


@pytest.fixture(scope="module")
def seat() -> Seat:
    get_table(game_from_cli("kockapoker", ("boxes=chance",)), build_missing=True)
    return Seat(SeatOptions())


@contextlib.contextmanager
def serving(lang: str | None = None, **options: Any) -> Iterator[str]:
    server = make_web_server(Seat(SeatOptions()), "127.0.0.1:0", lang, shutdown_grace=0, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def site(seat) -> Iterator[str]:
    with serving() as base:
        yield base


def position(dice: tuple[int, ...], throw: int) -> dict:
    """A one-box kockapóker position with ``dice`` showing after ``throw`` throws."""
    game = get_game("kockapoker", ONE_BOX)
    doc = game.state_to_json(game.new_initial_state())
    doc["state"].update(throw=throw, dice=list(dice))
    return doc


def answer(seat: Seat, request: dict) -> dict:
    response = seat.handle(request)
    assert "result" in response, response
    return response["result"]


# ----------------------------------------------------------------------------------------
# The server
# ----------------------------------------------------------------------------------------
def test_a_browser_gets_the_page_and_a_program_gets_hello(site):
    page = httpx.get(site + "/", headers={"Accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/app.js">' in page.text and LANG_MARK not in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    hello = httpx.get(site + "/")
    assert hello.json()["result"]["protocol"] == "kocka.seat/1"
    post = httpx.post(site + "/", json={"id": 1, "method": "hello"})
    assert "distribution" in post.json()["result"]["methods"] and "advice" in post.json()["result"]["methods"]


@pytest.mark.parametrize("name", [n for n in STATIC_FILES if n != "index.html"])
def test_the_static_files_are_served_with_their_types(site, name):
    response = httpx.get(f"{site}/static/{name}")
    assert response.status_code == 200 and response.headers["content-type"] == STATIC_FILES[name]
    assert response.headers["x-content-type-options"] == "nosniff"
    head = httpx.head(f"{site}/static/{name}")
    assert head.status_code == 200 and head.content == b"" and int(head.headers["content-length"]) == len(response.content)


def test_the_page_loads_nothing_from_elsewhere(site):
    # offline: every script, style and request of the page is this server's own
    for name in STATIC_FILES:
        text = httpx.get(f"{site}/static/{name}" if name != "index.html" else site + "/", headers={"Accept": "text/html"}).text
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text, name


def test_unknown_files_and_foreign_hosts_are_refused(site):
    assert httpx.get(site + "/static/secret.py").status_code == 404
    assert httpx.get(site + "/static/..%2Fweb.py").status_code == 404
    rebinding = httpx.get(site + "/", headers={"Accept": "text/html", "Host": "evil.example"})
    assert rebinding.status_code == 403 and "not a name of this seat" in rebinding.text


def test_the_default_language_reaches_the_page():
    with serving(lang="en") as base:
        page = httpx.get(base + "/", headers={"Accept": "text/html"}).text
    assert '<meta name="kocka-lang" content="en">' in page


def test_kocka_web_refuses_bad_options_in_one_line():
    outcome = CliRunner().invoke(main, ["web", "--host", "0.0.0.0", "--port", "0"])
    assert outcome.exit_code == 2 and outcome.output.count("\n") == 1 and "--token" in outcome.output
    outcome = CliRunner().invoke(main, ["web", "--port", "70000"])
    assert outcome.exit_code == 2 and "--port must be 0..65535" in outcome.output


# ----------------------------------------------------------------------------------------
# The seat methods the page uses
# ----------------------------------------------------------------------------------------
def test_hello_lists_the_boxes_in_both_languages(seat):
    games = {g["name"]: g for g in answer(seat, {"method": "hello"})["games"]}
    hu = games["kockapoker"]
    assert hu["language"] == "hu" and len(hu["boxes"]) == 15  # HU-1: fifteen boxes
    labels = {b["id"]: b["labels"] for b in hu["boxes"]}
    assert labels["pair"] == {"hu": "pár", "en": "pair"} and labels["full_house"] == {"hu": "full", "en": "full house"}
    assert games["kocka"]["boxes"] == []


def test_labels_in_another_language(seat):
    doc = position((3, 3, 3, 5, 5), 3)
    assert [a["label"] for a in answer(seat, {"method": "legal", "state": doc})["actions"]] == ["write szemét"]
    assert [a["label"] for a in answer(seat, {"method": "legal", "state": doc, "lang": "en"})["actions"]] == ["write chance"]
    assert answer(seat, {"method": "rank", "state": doc, "lang": "en"})["actions"][0]["label"] == "write chance"
    bad = seat.handle({"method": "rank", "state": doc, "lang": "de"})
    assert bad["error"]["code"] == "invalid_request" and "'lang' must be one of" in bad["error"]["message"]


def test_distribution_after_the_last_throw_is_certain(seat):
    # 3 + 3 + 3 + 5 + 5 = 19 in szemét, and the house of 63: the final score is 82
    result = answer(seat, {"method": "distribution", "state": position((3, 3, 3, 5, 5), 3)})
    assert result["first"] == 82 and result["probs"] == [1.0] and result["mean"] == 82
    # the card total so far: nothing written, but the house counts once every face box is
    # filled, and a card without face boxes has them all (scorecard.py, card_total)
    assert result["seat"] == 0 and result["totals"] == [63]


def test_distribution_mean_is_the_hint_value(seat):
    doc = position((1, 2, 3, 5, 6), 2)
    dist = answer(seat, {"method": "distribution", "state": doc})
    # keep 5 6 and throw three dice: 63 + 11 + 3 x 3.5 = 84.5 (a die stays before the last
    # throw when it beats 3.5, the mean of a throw)
    assert dist["mean"] == pytest.approx(84.5)
    assert sum(dist["probs"]) == pytest.approx(1.0)
    best = answer(seat, {"method": "rank", "state": doc})["actions"][0]
    assert best["action"] == {"type": "Keep", "dice": [5, 6]} and best["value"] == pytest.approx(84.5)


def test_distribution_of_another_seat_and_of_other_games(seat):
    game = get_game("kockapoker", ONE_BOX, num_players=2)
    state = game.apply(game.apply(game.new_initial_state(), (2, 3, 4, 5, 6)), game.action_from_json({"type": "Fill", "box": "chance"}))
    doc = game.state_to_json(state)
    # seat 0 is done: 63 + 20 = 83 for sure; seat 1 is to play
    done = answer(seat, {"method": "distribution", "state": doc, "seat": 0})
    assert (done["first"], done["probs"], done["totals"]) == (83, [1.0], [83, 63])
    assert answer(seat, {"method": "distribution", "state": doc, "seat": 1})["seat"] == 1
    assert seat.handle({"method": "distribution", "state": doc, "seat": 2})["error"]["code"] == "invalid_request"
    kocka = get_game("kocka", num_players=2)
    other = seat.handle({"method": "distribution", "state": kocka.state_to_json(kocka.new_initial_state())})
    assert other["error"]["code"] == "not_supported"


def test_advice_words_the_best_moves(seat):
    doc = position((1, 2, 3, 5, 6), 2)
    lines = [a["text"] for a in answer(seat, {"method": "advice", "state": doc, "top": 2})["advice"]]
    # the best keeps 5 6 (84.5, above); the next keeps 3 5 6: 63 + 14 + 2 x 3.5 = 84, half a point less
    assert lines == ["keep 5 6: going for szemét (100%); the best play",
                     "keep 3 5 6: going for szemét (100%); you give up 0.50 points on average"]
    final = answer(seat, {"method": "advice", "state": position((3, 3, 3, 5, 5), 3), "lang": "en"})["advice"]
    assert [a["text"] for a in final] == ["write chance: 19 points now; the best play"]
    assert seat.handle({"method": "advice", "state": doc, "top": 0})["error"]["code"] == "invalid_request"


def test_one_seat_hints_solitaire_and_multi_player_positions_of_the_same_rules(seat):
    """A shared link is a one-player position, a game at the table has several players:
    one seat process answers both, with one table. The hint depends on the card of the
    player to move only: on a one-box card at throw 3 with 3 3 3 5 5, writing szemét is
    worth 63 + 19 = 82 whoever else plays."""
    solo = answer(seat, {"method": "rank", "state": position((3, 3, 3, 5, 5), 3)})
    game = get_game("kockapoker", ONE_BOX, num_players=3)
    three = game.state_to_json(game.apply(game.new_initial_state(), (3, 3, 3, 5, 5)))
    three["state"]["throw"] = 3
    together = answer(seat, {"method": "rank", "state": three})
    again = answer(seat, {"method": "rank", "state": position((3, 3, 3, 5, 5), 3)})
    assert solo["actions"][0]["value"] == together["actions"][0]["value"] == again["actions"][0]["value"] == 82
