"""Every game through the one generic API (after OpenSpiel's random-play invariants).

The loop in ``play_with_legal_actions_and_apply`` is the "dozen lines" a stranger needs to
play any game from Python: it uses only ``legal_actions``, ``chance_outcomes``, ``apply``,
``is_terminal`` and ``returns``.
"""
from __future__ import annotations

import json
import pathlib
import random
import re

import pytest

from kocka.solver.errors import IllegalActionError, InvalidStateError
from kocka.solver.rules import GAME_NAMES, get_game

TESTS = pathlib.Path(__file__).parent
RULES_MD = TESTS.parents[1] / "shared" / "RULES.md"


def play_with_legal_actions_and_apply(game, seed):
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not game.is_terminal(state):
        if game.is_chance_node(state):
            outcomes, weights = zip(*game.chance_outcomes(state))
            state = game.apply(state, rng.choices(outcomes, weights)[0])
        else:
            state = game.apply(state, rng.choice(game.legal_actions(state)))
    return state, game.returns(state)


def _game(name):
    # bluff games run until someone is broke: a few chips keep random games short
    options = {"start_chips": 3} if name in ("abazs", "bidding-bluff", "liars-poker") else {}
    return get_game(name, options, num_players=2)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_full_game_with_only_legal_actions_and_apply(name):
    game = _game(name)
    final, returns = play_with_legal_actions_and_apply(game, seed=7)
    assert len(returns) == game.num_players
    assert game.legal_actions(final) == []
    with pytest.raises(IllegalActionError):
        game.apply(final, None)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_random_play_invariants(name):
    """Chance probabilities sum to 1, returns only at the end, states are independent
    values that survive a JSON round trip, and applying does not change its input."""
    game = _game(name)
    rng = random.Random(99)
    state = game.new_initial_state()
    steps = 0
    while not game.is_terminal(state) and steps < 400:
        doc = json.loads(json.dumps(game.state_to_json(state)))
        assert game.state_from_json(doc) == state
        with pytest.raises(IllegalActionError):
            game.returns(state)
        before = game.state_to_json(state)
        if game.is_chance_node(state):
            outcomes = game.chance_outcomes(state)
            assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)
            assert all(p > 0 for _, p in outcomes)
            nxt = game.apply(state, rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            actions = game.legal_actions(state)
            assert actions, f"{name}: a decision node without legal actions"
            action = rng.choice(actions)
            assert game.action_from_json(json.loads(json.dumps(game.action_to_json(action)))) == action
            nxt = game.apply(state, action)
        assert game.state_to_json(state) == before
        state, steps = nxt, steps + 1


@pytest.mark.parametrize("name", GAME_NAMES)
def test_malformed_state_documents_are_refused_with_a_message(name):
    game = _game(name)
    doc = game.state_to_json(game.new_initial_state())
    for broken, pattern in [
        ({**doc, "schema": "kocka.state/99"}, "schema"),
        ({**doc, "game": "chess"}, "chess"),
        ({**doc, "state": {"nonsense": 1}}, name),
        ("{not json", "JSON"),
    ]:
        with pytest.raises(InvalidStateError, match=pattern):
            game.state_from_json(broken)


@pytest.mark.skipif(not RULES_MD.is_file(), reason="needs ../shared/RULES.md beside the checkout")
def test_every_numbered_rule_is_cited_by_a_test():
    """RULES.md: every rule id (KOCKA-n, HU-n, BLUFF-n, PL-n, SK-n) appears in some test."""
    ids = set(re.findall(r"\*\*((?:KOCKA|HU|BLUFF|PL|SK)-\d+)\*\*", RULES_MD.read_text()))
    assert len(ids) == 20 + 19 + 21 + 17 + 11
    cited = "\n".join(p.read_text() for p in TESTS.glob("test_*.py") if p.name != pathlib.Path(__file__).name)
    missing = sorted(i for i in ids if not re.search(rf"\b{i}\b", cited))
    assert missing == []
