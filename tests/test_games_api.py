"""Every game through the one generic API (after OpenSpiel's random-play invariants).

The loop in ``play_with_legal_actions_and_apply`` is the "dozen lines" a stranger needs to
play any game from Python: it uses only ``legal_actions``, ``chance_outcomes``, ``apply``,
``is_terminal`` and ``returns``.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import random
import re

import pytest

from kocka.solver.base.errors import IllegalActionError, InvalidStateError
from kocka.solver.rules import GAME_NAMES, get_game
from kocka.solver.rules.words import normalize

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
def test_check_state_remembers_valid_states_only(name, monkeypatch):
    """Game.check_state runs the engine's check once per valid state (states are frozen and
    the rules fixed, so an equal copy is valid too) and every time for a refused one."""
    game = _game(name)
    real = game._check_state
    calls = []
    verdict = {"valid": False}

    def counted(state):
        calls.append(state)
        if not verdict["valid"]:
            raise InvalidStateError("refused by the test")
        real(state)

    monkeypatch.setattr(game, "_check_state", counted)
    state = game.new_initial_state()
    for _ in range(2):
        with pytest.raises(InvalidStateError):
            game.check_state(state)
    assert len(calls) == 2  # a refused state is not remembered
    verdict["valid"] = True
    game.check_state(state)
    game.check_state(dataclasses.replace(state))
    assert len(calls) == 3  # the equal copy was not checked again


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
        ({**doc, "state": {"nonsense": 1}}, "the state has no field nonsense"),
        ("{not json", "JSON"),
    ]:
        with pytest.raises(InvalidStateError, match=pattern):
            game.state_from_json(broken)


# ---------------------------------------------------------------------------------------
# Every numbered rule of RULES.md, played through its engine (tests/data/rule_examples/)
# ---------------------------------------------------------------------------------------
# One JSON file per game family: {"game": default game, "examples": [...]}. An example is
# a position and what the rule says happens there, checked through the public API only:
#   rule, what     the rule id and what the example shows
#   game, players, options   (defaults: the file's game, 2 players, the default rules)
#   state          fields that replace those of the initial state's JSON document
#   steps          played in order: at a chance node the outcome as JSON (the dice),
#                  at a decision what a player types (matched with game.action_phrases)
#                  or an action as JSON
#   state_after    fields the resulting state's JSON must have
#   legal          every legal action, as game.describe_action writes it (any order);
#   legal_includes / legal_excludes    some of them
#   illegal        [{"move": action JSON, "says": regex}]: apply refuses it with that reason
#   returns        the returns at the end
RULE_EXAMPLES_DIR = TESTS / "data" / "rule_examples"
RULE_ID = r"\*\*((?:KOCKA|HU|BLUFF|PL|SK)-\d+)\*\*"


def _rule_examples():
    examples = []
    for path in sorted(RULE_EXAMPLES_DIR.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        for example in doc["examples"]:
            examples.append({"game": doc["game"], **example})
    return examples


RULE_EXAMPLES = _rule_examples()


def _as_json(value):
    return json.loads(json.dumps(value, default=lambda v: dataclasses.asdict(v) if dataclasses.is_dataclass(v) else list(v)))


def _example_position(example):
    game = get_game(example["game"], example.get("options", {}), num_players=example.get("players", 2))
    doc = game.state_to_json(game.new_initial_state())
    doc["state"].update(example.get("state", {}))
    state = game.state_from_json(doc)
    for step in example.get("steps", []):
        if game.is_chance_node(state):
            outcomes = [o for o, _ in game.chance_outcomes(state) if _as_json(o) == step]
            assert outcomes, f"{step!r} is not a possible outcome of {game.describe_state(state)}"
            action = outcomes[0]
        elif isinstance(step, str):
            legal = game.legal_actions(state)
            matches = [a for a in legal if normalize(step) in game.action_phrases(a, state)]
            assert len(matches) == 1, (f"{step!r} must name one legal action in {game.describe_state(state)}; "
                                       f"legal: {[game.describe_action(a, state) for a in legal]}")
            action = matches[0]
        else:
            action = game.action_from_json(step)
        state = game.apply(state, action)
    return game, state


@pytest.mark.parametrize("example", RULE_EXAMPLES, ids=lambda e: f"{e['rule']}: {e['what']}")
def test_rule_example(example):
    game, state = _example_position(example)
    fields = game.state_to_json(state)["state"]
    for name, value in example.get("state_after", {}).items():
        assert fields[name] == value, f"{name}: {fields[name]!r} != {value!r} in {game.describe_state(state)}"
    texts = sorted(game.describe_action(a, state) for a in game.legal_actions(state))
    if "legal" in example:
        assert texts == sorted(example["legal"])
    assert [t for t in example.get("legal_includes", []) if t not in texts] == []
    assert [t for t in example.get("legal_excludes", []) if t in texts] == []
    for refused in example.get("illegal", []):
        with pytest.raises(IllegalActionError, match=refused["says"]):
            game.apply(state, game.action_from_json(refused["move"]))
    if "returns" in example:
        assert list(game.returns(state)) == pytest.approx(example["returns"])


@pytest.mark.skipif(not RULES_MD.is_file(), reason="needs ../shared/RULES.md beside the checkout")
def test_every_numbered_rule_has_an_example_played_through_its_engine():
    """RULES.md: every rule id (KOCKA-n, HU-n, BLUFF-n, PL-n, SK-n) of a family that has
    examples (tests/data/rule_examples/) has one, played by :func:`test_rule_example`.
    A family with no examples file yet is held only to having each id cited by a test,
    until its file is added."""
    ids = set(re.findall(RULE_ID, RULES_MD.read_text()))
    assert len(ids) == 20 + 19 + 21 + 17 + 11
    shown = {e["rule"] for e in RULE_EXAMPLES}
    assert sorted(shown - ids) == []  # no example names a rule RULES.md lacks
    families = {rule.split("-")[0] for rule in shown}
    assert sorted(i for i in ids if i.split("-")[0] in families and i not in shown) == []
    cited = "\n".join(p.read_text() for p in TESTS.glob("test_*.py") if p.name != pathlib.Path(__file__).name)
    pending = sorted(i for i in ids if i.split("-")[0] not in families and not re.search(rf"\b{i}\b", cited))
    assert pending == []
