"""The bidding bluff's and liar's kockapóker's equilibrium frequencies on the page (issue 26:
"the bluff hints show frequencies"), with the smallest tables there are for them: the
bidding bluff's round table of chips adding up to 4 (2 each, BLUFF-11..16) and the liar's
poker match table from 1 chip each (tests/conftest.py ``liars_match_table``, BLUFF-17..21).

At my first decision against the computer the page's hint lists the moves the seat's
equilibrium advice plays, each with its frequency, and its die-roll suggestion; the advice's
frequencies are the tables' own strategy (tests/test_bluff_frequencies.py holds them to
``claim_distribution`` and the match plan's ``distribution``), and here they add up to 1.
Needs the browser that tests/test_browser.py needs (skipped without it, as there).
"""
from __future__ import annotations

import json
from typing import Iterator

import pytest

from test_browser import (  # noqa: F401  (browser: the module's fixture)
    By, bluff_state, browser, my_first_decision, outside_the_screen, seat_answer, serving, start_against_the_ai,
    text_of, visible, wait_for,
)
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.rules.bluff import BiddingBluffGame, BiddingBluffRules
from kocka.solver.solvers.bluff.bidding import BiddingEquilibriumSolver
from kocka.solver.store.table_store import build_table


@pytest.fixture(scope="module")
def bidding_table() -> None:
    """The bidding bluff's round table for chips adding up to 4, in the session's cache
    where the seat looks (a fraction of a second)."""
    build_table(BiddingBluffGame(BiddingBluffRules(), 2), BiddingEquilibriumSolver(max_total=4, measured=()),
                BuildOptions(progress=False))


@pytest.fixture(scope="module")
def bluff_site(bidding_table, liars_match_table) -> Iterator[str]:
    with serving() as (base, _server):
        yield base


@pytest.mark.parametrize("name, chips", [("bidding-bluff", 2), ("liars-poker", 1)])
def test_the_page_shows_the_equilibriums_frequencies(bluff_site, browser, name, chips):
    start_against_the_ai(browser, bluff_site, name, {"start_chips": chips})
    my_first_decision(browser)
    wait_for(browser, lambda d: d.execute_script(
        "const f = document.getElementById('frequencies'); return f && f.dataset.position === document.body.dataset.position"))
    doc = bluff_state(browser)
    advice = seat_answer(bluff_site, {"method": "advice", "state": doc, "agent": "equilibrium", "lang": "en"})
    # each move as the hint's ranking words it (a claim with its stake; the seat's rank, as the page asks it)
    labels = {json.dumps(e["action"], sort_keys=True): e["label"] for e in seat_answer(
        bluff_site, {"method": "rank", "state": doc, "agent": "equilibrium", "lang": "en"})["actions"]}
    rows = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#frequencies li")]
    assert advice["frequencies"], advice  # a table answers: the equilibrium, not the stand-in
    assert rows == [f"{labels[json.dumps(f['action'], sort_keys=True)]}: {round(100 * f['probability'])}%"
                    for f in advice["frequencies"]]
    assert abs(sum(f["probability"] for f in advice["frequencies"]) - 1) < 1e-9
    assert text_of(browser, "suggestion") == advice["suggestion"]
    assert not visible(browser, "to-win-note")  # no stand-in: the equilibrium itself
    assert outside_the_screen(browser) == []
