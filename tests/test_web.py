"""``kocka web`` without a browser: what the server sends (agents/frontends/seat/web.py), and the
seat methods the page needs (``distribution``, ``advice``, ``lang``; docs/PROTOCOL.md).

The positions are on a one-box card (szemét only: HU-6, the sum of the five dice), whose
numbers can be worked out by hand: a card without face boxes has net 0, so its house adds
63 (HU-7), and the final score is 63 + the sum written.
"""
from __future__ import annotations

import contextlib
import json
from typing import Any, Iterator

import httpx
import pytest
from click.testing import CliRunner

from conftest import serving_in_thread
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
from kocka.agents.frontends.seat.web import LANG_MARK, STATIC_FILES, make_web_server
from kocka.agents.bots.catalogue import AgentOptions
from kocka.agents.bots.target_agents import WinnerAgent
from kocka.solver.store.table_store import game_from_cli, get_table
from kocka.solver.rules import get_game

ONE_BOX = {"boxes": ["chance"]}


@pytest.fixture(scope="module")
def seat() -> Seat:
    get_table(game_from_cli("kockapoker", ("boxes=chance",)), build_missing=True)
    return Seat(SeatOptions())


@contextlib.contextmanager
def serving(lang: str | None = None, seat: Seat | None = None, **options: Any) -> Iterator[str]:
    server = make_web_server(seat or Seat(SeatOptions()), "127.0.0.1:0", lang, shutdown_grace=0, **options)
    with serving_in_thread(server) as base:
        yield base


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


def test_the_page_messages_are_served_per_language(site):
    """GET /i18n/LANG.json: the page's catalogue (domain page) in one language, and the
    languages for the switch, each in its own name."""
    doc = httpx.get(site + "/i18n/pl.json").json()
    assert doc["lang"] == "pl" and doc["messages"]["loss"] == "strata"  # issue 25's word for loss
    assert doc["languages"] == {"en": "English", "hu": "magyar", "pl": "polski", "sk": "slovenčina"}
    # a count in Polish has three forms (1 kość, 2-4 kości, 5+ kości), English two
    assert len(doc["messages"]["roll {n} die"]) == 3 and len(httpx.get(site + "/i18n/en.json").json()["messages"]["roll {n} die"]) == 2
    refused = httpx.get(site + "/i18n/xx.json")
    assert refused.status_code == 404 and "en, hu, pl, sk" in refused.text and "\n" not in refused.text.strip()


# ----------------------------------------------------------------------------------------
# The seat methods the page uses
# ----------------------------------------------------------------------------------------
def test_hello_lists_the_boxes_in_every_language(seat):
    games = {g["name"]: g for g in answer(seat, {"method": "hello"})["games"]}
    hu = games["kockapoker"]
    assert hu["language"] == "hu" and len(hu["boxes"]) == 15  # HU-1: fifteen boxes
    labels = {b["id"]: b["labels"] for b in hu["boxes"]}
    # a Hungarian box keeps its name in Polish and Slovak (words.py); English has its own
    assert labels["pair"] == {"hu": "pár", "pl": "pár", "sk": "pár", "en": "pair"}
    assert labels["full_house"] == {"hu": "full", "pl": "full", "sk": "full", "en": "full house"}
    assert games["kocka"]["boxes"] == []


def test_labels_in_another_language(seat):
    doc = position((3, 3, 3, 5, 5), 3)
    # the game's own language by default (kockapóker: Hungarian, its verb "írd be"), the
    # game's verbs of each language (issue 25's words), English box names only in English
    assert [a["label"] for a in answer(seat, {"method": "legal", "state": doc})["actions"]] == ["írd be: szemét"]
    assert [a["label"] for a in answer(seat, {"method": "legal", "state": doc, "lang": "pl"})["actions"]] == ["zapisz szemét"]
    assert [a["label"] for a in answer(seat, {"method": "legal", "state": doc, "lang": "en"})["actions"]] == ["write chance"]
    assert answer(seat, {"method": "rank", "state": doc, "lang": "en"})["actions"][0]["label"] == "write chance"
    assert answer(seat, {"method": "rank", "state": doc, "lang": "sk"})["actions"][0]["label"] == "zapíš szemét"
    bad = seat.handle({"method": "rank", "state": doc, "lang": "de"})
    assert bad["error"]["code"] == "invalid_request" and '"en", "hu", "pl", "sk"' in bad["error"]["message"]


def test_each_http_request_is_answered_in_its_own_language(site):
    """Over HTTP the seat answers in worker threads (workers.py): the language is set in the
    thread that answers, per request, so one request's language never sticks to the next."""
    doc = position((3, 3, 3, 5, 5), 3)
    labels = {}
    for lang in ("pl", "sk", None, "en", "hu"):
        request = {"id": 1, "method": "legal", "state": doc, **({"lang": lang} if lang else {})}
        labels[lang] = [a["label"] for a in httpx.post(site + "/", json=request).json()["result"]["actions"]]
    # the words of issue 25: zapisz / zapíš / írd be (write); English box names in English only
    assert labels == {"pl": ["zapisz szemét"], "sk": ["zapíš szemét"], None: ["írd be: szemét"], "en": ["write chance"],
                      "hu": ["írd be: szemét"]}
    # an error message in the request's language too (the seat's own sentence, seat.po)
    error = httpx.post(site + "/", json={"id": 2, "method": "score", "game": "kocka", "dice": [1, 2, 3, 4, 5],
                                         "lang": "pl"}).json()["error"]
    assert error["code"] == "not_supported" and error["message"].startswith("score działa dla gier z rubrykami")


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
    lines = [a["text"] for a in answer(seat, {"method": "advice", "state": doc, "top": 2, "lang": "en"})["advice"]]
    # the best keeps 5 6 (84.5, above); the next keeps 3 5 6: 63 + 14 + 2 x 3.5 = 84, half a point less
    assert lines == ["keep 5 6: going for chance (100%); the best play",
                     "keep 3 5 6: going for chance (100%); you give up 0.50 points on average"]
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


# ----------------------------------------------------------------------------------------
# "Play to win": rank with the winner agent (the target table), as the page asks for it
# ----------------------------------------------------------------------------------------
def test_the_page_offers_play_to_win(site):
    page = httpx.get(site + "/", headers={"Accept": "text/html"}).text
    assert 'id="to-win"' in page and 'id="to-win-note"' in page and "<script>" not in page  # no inline script (CSP)
    script = httpx.get(site + "/static/app.js").text
    # offered where hello lists the winner agent for the game and there are other players
    assert 'agents.includes("winner")' in script and "doc.players >= 2" in script
    assert 'agent: "winner"' in script and 't("No ranking to win: {reason}"' in script


@pytest.fixture(scope="module")
def win_cache(tmp_path_factory):
    """A cache with both tables of the one-box card (the target table builds in milliseconds)."""
    cache = tmp_path_factory.mktemp("target-tables")
    game = get_game("kockapoker", ONE_BOX, num_players=2)
    get_table(game, "target", cache, build_missing=True)
    get_table(game, cache_dir=cache, build_missing=True)
    return cache


def _anna_has_90():
    """Two players on the one-box card: Anna wrote 4+5+6+6+6 = 27 (63 + 27 = 90); Béla
    has thrown 4 6 6 6 6 (28) once."""
    game = get_game("kockapoker", ONE_BOX, num_players=2)
    state = game.apply(game.new_initial_state(), (4, 5, 6, 6, 6))
    state = game.apply(game.apply(state, game.action_from_json({"type": "Fill", "box": "chance"})), (4, 6, 6, 6, 6))
    return game, state


def test_play_to_win_ranks_by_the_chance_of_finishing_first(win_cache):
    game, state = _anna_has_90()
    doc = game.state_to_json(state)
    with serving(seat=Seat(SeatOptions(cache_dir=win_cache))) as base:
        ranked = httpx.post(base + "/", json={"id": 1, "method": "rank", "state": doc, "agent": "winner", "lang": "en"}).json()["result"]
        advice = httpx.post(base + "/", json={"id": 2, "method": "advice", "state": doc, "agent": "winner", "top": 2,
                                              "lang": "en"}).json()
    # by hand: writing 28 now, 91 > 90, wins surely; keeping 6 6 6 6 leaves one die with two
    # throws: 4+ wins, 3 ties, and with one throw left throwing again (1/2 + 1/12 = 7/12)
    # beats the tie's 1/2: 1/2 + 1/2 x 7/12 = 19/24. For points keep 6 6 6 6 is better:
    # 63 + 24 + 4.25 = 91.25 against 91 (a die thrown twice averages 4.25)
    assert ranked["agent"] == "winner" and ranked["value_name"] == "P(win)"
    top = {a["label"]: a for a in ranked["actions"][:2]}
    assert ranked["actions"][0]["label"] == "write chance" and ranked["win_probability"] == pytest.approx(1.0)
    assert top["write chance"]["value"] == pytest.approx(1.0) and top["keep 6 6 6 6"]["value"] == pytest.approx(19 / 24)
    assert top["write chance"]["detail"]["expected final score"] == pytest.approx(91)
    assert top["keep 6 6 6 6"]["detail"]["expected final score"] == pytest.approx(91.25)
    # and the agent itself, built here, agrees on every move
    agent = WinnerAgent(game, 0, AgentOptions(cache_dir=win_cache))
    assert [a["value"] for a in ranked["actions"]] == pytest.approx([d.value for d in agent.rank(state)], abs=1e-12)
    assert [a["text"] for a in advice["result"]["advice"]] == [
        "write chance: 28 points now; chance of winning 100.0%; the best play",
        "keep 6 6 6 6: going for chance (100%); chance of winning 79.2%; you give up 20.8 percentage points of winning chance"]


def test_play_to_win_unavailable_gets_the_seats_message(win_cache, tmp_path):
    seat = Seat(SeatOptions(cache_dir=win_cache))
    alone = get_game("kockapoker", ONE_BOX)
    doc = alone.state_to_json(alone.apply(alone.new_initial_state(), (4, 6, 6, 6, 6)))
    error = seat.handle({"id": 1, "method": "rank", "state": doc, "agent": "winner"})["error"]
    assert error["code"] == "agent_unavailable" and "plays against opponents" in error["message"]
    game, state = _anna_has_90()
    get_table(game, cache_dir=tmp_path, build_missing=True)  # the expected-score table, no target table
    error = Seat(SeatOptions(cache_dir=tmp_path)).handle(
        {"id": 2, "method": "rank", "state": game.state_to_json(state), "agent": "winner"})["error"]
    assert error["code"] == "table_missing"
    assert f"kocka-solve build kockapoker --kind target -r boxes=chance --cache-dir {tmp_path}" in error["message"]
