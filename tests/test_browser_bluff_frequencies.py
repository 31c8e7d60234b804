"""The bidding bluff's and liar's kockapóker's equilibrium frequencies on the page (issue 26:
"the bluff hints show frequencies"), with the smallest tables there are for them: the
bidding bluff's round table of chips adding up to 4 (2 each, BLUFF-11..16) and the liar's
poker match table from 1 chip each (tests/conftest.py ``liars_match_table``, BLUFF-17..21).

At my first decision against the computer the page lists each move the equilibrium plays
with its frequency. The frequencies are held to values found without the seat, the agent or
the plan that reads the table for them (that path is what the page shows, so comparing with
it could not catch a wrong one):

- the bidding bluff: the round's stages solved again here
  (:func:`~kocka.solver.solvers.bluff.bidding.solve_two_dice_orbit`, the orbit of 2/2 chips:
  a pass makes 2/2 into 1/3 and back), the claimant's messages of the stage type holding
  my result added up per (claim, stake), and for the answerer the stage's own chance of a
  bet (``message_payoffs``);
- liar's poker: the match table's arrays read by their documented layout
  (``LiarsEquilibriumSolver.layout``): the rows under my private roll's key added up per
  move, and for the answerer the stored lie value lambda: from 1 chip each every bet and
  every pass ends the match, so to the claimant a pass is worth 1, a bet on a true claim 1
  and on a lie 0, and the bet that leaves a liar no more than lambda is 1 - lambda (a
  forced top claim is always bet on, BLUFF-5).

Which decision comes first (a claim, or an answer to the computer's claim) depends on the
seating roll (BLUFF-1); both are computed. Needs the browser that tests/test_browser.py
needs (skipped without it, as there).
"""
from __future__ import annotations

import base64
import json
import re
from typing import Any, Iterator

import numpy as np
import pytest

from test_browser import (  # noqa: F401  (browser: the module's fixture)
    By, bluff_state, browser, fresh, link, my_first_decision, outside_the_screen, seat_answer, serving,
    start_against_the_ai, text_of, visible, wait_for,
)
from kocka.agents.advice.bluff import BettingHintParams, typed_position
from kocka.solver.base.build_options import BuildOptions
from kocka.solver.base.dice import all_outcomes
from kocka.solver.rules import get_game
from kocka.solver.rules.bluff import (
    Bet, BiddingBluffGame, BiddingBluffRules, Claim, Pass, Reroll, actual_result, top_claim,
)
from kocka.solver.solvers.bluff.bidding import BiddingEquilibriumSolver, solve_two_dice_orbit
from kocka.solver.solvers.bluff.stage import message_payoffs
from kocka.solver.store.table_store import build_table

FLOOR = 1e-9
"""A probability at or below this is the solver's zero (a float of an exact 0): the page
lists no such move (agents/advice/bluff.py FREQUENCY_FLOOR says the same)."""


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


@pytest.fixture(scope="module")
def bidding_stages() -> dict:
    """The bidding bluff's stages of 2/2 and 1/3 chips, solved here (0.1 s), by (standing
    claim, (claimant's chips, answerer's chips))."""
    return {(st.standing, st.chips): st for st in solve_two_dice_orbit(BiddingBluffRules(), ((2, 2), (1, 3)))}


def added_up(pairs) -> dict[Any, float]:
    """(move, probability) pairs as one probability per move."""
    out: dict[Any, float] = {}
    for move, p in pairs:
        out[move] = out.get(move, 0.0) + float(p)
    return out


def bidding_expected(stages: dict, state) -> dict[Any, float]:
    """The equilibrium's mix at ``state`` from the stages solved here."""
    claimant, answerer = state.chips[state.active], state.chips[1 - state.active]
    if state.phase == "claim":
        st = stages[(state.standing, (claimant, answerer))]
        result = actual_result(state.dice, BiddingBluffRules().ranking)  # BLUFF-7: the sum of the two dice, or the pair
        t = next(i for i, results in enumerate(st.types) if result in results)
        return added_up(((Claim(st.claims[m.claim], m.stake), p) for m, p in st.solution.sender[t].items()))
    st = stages[(state.previous, (claimant, answerer))]
    beta = float(message_payoffs(st.game, st.solution.lie_value, st.claims.index(state.standing), state.stake)[0])
    return {Bet(): beta, Pass(): 1.0 - beta}


def liars_expected(table, game, state) -> dict[Any, float]:
    """The equilibrium's mix at ``state`` (the round's first claim, or the answer to it)
    from the match table's arrays (module docstring). Key of the claimant's rows:
    ((((p (n + 1) + s) total + x) 8 + slot) 21 + private roll, p the public roll and the
    private roll in ``all_outcomes`` order, s the standing (0: none), x his chips, slot 0
    before a re-throw, the shown die after one (7: both thrown again)."""
    claims, total = game.claims(), int(table.meta.extra["total"])
    p = [tuple(d) for d in all_outcomes(3)].index(tuple(state.public))
    x = state.chips[state.active]
    assert state.previous is None and (state.phase == "answer" or state.standing is None)  # the round's first claim
    if state.phase == "claim":
        assert not state.rerolled
        key = ((((p * (len(claims) + 1) + 0) * total + x) * 8 + 0) * 21) + [tuple(d) for d in all_outcomes(2)].index(tuple(sorted(state.dice)))
        rows = np.flatnonzero(np.asarray(table["claim_key"]) == key)
        assert len(rows)
        choices, probs = np.asarray(table["claim_choice"]), np.asarray(table["claim_prob"])
        return added_up(((Claim(claims[int(choices[r, 0])], int(choices[r, 1])) if choices[r, 0] >= 0
                          else Reroll(None if choices[r, 0] == -7 else -int(choices[r, 0])), probs[r]) for r in rows))
    assert state.chips == (1, 1)  # where 1 - lambda is the bet (module docstring)
    slot = 0 if not state.rerolled else (state.shown or 7)
    lam = float(np.asarray(table["lie_value"])[p, 0, x, slot])
    forced = state.standing == top_claim(tuple(state.public), game.rules) and game.rules.top_claim == "first_must_bet"
    beta = 1.0 if forced else min(1.0, max(0.0, 1.0 - lam))
    return {Bet(): beta, Pass(): 1.0 - beta}


def frequencies_shown(browser) -> bool:
    return browser.execute_script(
        "const f = document.getElementById('frequencies'); return f && f.dataset.position === document.body.dataset.position")


def check_the_rows(browser, site: str, game, doc: dict, expected: dict[Any, float]) -> None:
    """The page's frequency rows against ``expected``: the same moves (those above the
    solver's zero), each whole percent within half a percent of its value, in the words of
    the hint's ranking; the seat's die-roll line under them."""
    assert abs(sum(expected.values()) - 1) < 1e-9  # a mixed strategy: the table's own, added up here
    # the rows as the page drew them: the move each one plays (a tap plays it) and its text
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#frequencies li')].map((li) => [li.dataset.action, li.textContent]);")
    moves = [game.action_from_json(json.loads(action)) for action, _text in shown]
    percents = [int(re.fullmatch(r".+: (\d+)%", text).group(1)) for _action, text in shown]
    assert len(set(moves)) == len(moves)
    assert set(moves) == {m for m, p in expected.items() if p > FLOOR}, expected
    for move, percent in zip(moves, percents):  # whole percents, rounded either way at a half
        assert abs(percent - 100 * expected[move]) <= 0.5 + 1e-9, (move, percent, expected[move])
    # each row's words as the hint's ranking gives the move (the seat's rank, as the page asks it)
    labels = {json.dumps(e["action"], sort_keys=True): e["label"] for e in seat_answer(
        site, {"method": "rank", "state": doc, "agent": "equilibrium", "lang": "en"})["actions"]}
    assert [text for _a, text in shown] == [f"{labels[json.dumps(json.loads(a), sort_keys=True)]}: {p}%"
                                            for (a, _t), p in zip(shown, percents)]
    # the die-roll line is the seat's, shown as it comes (tests/test_bluff_frequencies.py
    # holds the recipe to the frequencies)
    advice = seat_answer(site, {"method": "advice", "state": doc, "agent": "equilibrium", "lang": "en"})
    if advice.get("suggestion"):
        assert text_of(browser, "suggestion") == advice["suggestion"]
    else:
        assert not browser.find_elements(By.ID, "suggestion")
    assert not visible(browser, "to-win-note")  # no stand-in: the equilibrium itself
    assert outside_the_screen(browser) == []


@pytest.mark.parametrize("name, chips", [("bidding-bluff", 2), ("liars-poker", 1)])
def test_the_page_shows_the_equilibriums_frequencies(bluff_site, browser, bidding_stages, liars_match_table, name, chips):
    start_against_the_ai(browser, bluff_site, name, {"start_chips": chips})
    my_first_decision(browser)
    wait_for(browser, frequencies_shown)
    doc = bluff_state(browser)
    game = get_game(name, {"start_chips": chips})
    state = game.state_from_json(doc)
    expected = (bidding_expected(bidding_stages, state) if name == "bidding-bluff"
                else liars_expected(liars_match_table, game, state))
    check_the_rows(browser, bluff_site, game, doc, expected)


# Positions where the bidding bluff's equilibrium mixes, at 2/2 chips (found in the stages
# solved here; from 2 chips each the first decisions above are mostly pure, and liar's poker
# from 1 chip each is pure everywhere: the answerer always bets, lambda = 0): with 1 4 over a
# standing 5 the claimant spreads over seven claims and stakes; answering a claim of 6 with
# stake 1 over a 4 the answerer bets about 15 % of the time.
MIXED = {
    "claim": BettingHintParams(dice=(1, 4), standing="5", chips=(2, 2)),
    "answer": BettingHintParams(claim="6", stake=1, previous="4", chips=(2, 2)),
}


@pytest.mark.parametrize("where", list(MIXED))
def test_a_mixed_strategy_opened_by_a_link(bluff_site, browser, bidding_stages, where):
    game = get_game("bidding-bluff", {"start_chips": 2})
    doc = game.state_to_json(typed_position(game, MIXED[where]))
    state = base64.urlsafe_b64encode(json.dumps(doc["state"]).encode()).decode().rstrip("=")
    fresh(browser, link(bluff_site, game="bidding-bluff", rules={"start_chips": 2}, state=state, players="Anna,Béla",
                        lang="en"))
    wait_for(browser, frequencies_shown)
    expected = bidding_expected(bidding_stages, game.state_from_json(doc))
    assert len([p for p in expected.values() if p > 0.05]) >= 2  # a real mix
    check_the_rows(browser, bluff_site, game, bluff_state(browser), expected)
