"""The game registry (kocka.solver.rules.spec): one spec per game, and nothing else names a game.

Issue 11's acceptance check is "grep for a game's name finds it only in its spec, its engine
and the tests"; :func:`test_game_names_appear_only_in_their_engine_module` is that grep.
"""
from __future__ import annotations

import pathlib
import random
import re

import pytest

from kocka.agents.frontends.commands.kocka_cli import main as kocka_main
from kocka.agents.frontends.seat.protocol import describe_server
from kocka.agents.bots.catalogue import agent_games, agent_names
from kocka.solver.rules import game_names, game_specs, get_game, resolve, spec_for
from kocka.solver.rules.words import Words

ROOT = pathlib.Path(__file__).resolve().parents[1]
SPECS = list(game_specs())
REPR = re.compile(r"\b[A-Z][A-Za-z]+\([a-z_]+=")  # a dataclass repr such as SetAside(dice=(2,))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_reference_of_a_spec_resolves(spec):
    for table in spec.tables:
        solver = resolve(table.solver)
        assert solver.kind == table.kind, f"{spec.name}: {table.solver} builds kind {solver.kind!r}"
    if spec.hint is not None:
        assert callable(resolve(spec.hint))
    if spec.view is not None:
        assert callable(resolve(spec.view))
    for entry in spec.agents:
        assert callable(resolve(entry.factory)), entry
    names = {a.name for a in spec.agents}
    assert set(spec.judges) <= names, f"{spec.name}: judges {spec.judges} must be agents of the game"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_spec_facts_match_the_engine(spec):
    lo, hi = spec.players
    game = get_game(spec.name)
    assert game.num_players == spec.default_players and game.player_range() == (lo, hi)
    assert type(game) is spec.engine and game.spec() is spec
    with pytest.raises(Exception):
        spec.engine(num_players=hi + 1)
    if lo > 1:
        with pytest.raises(Exception):
            spec.engine(num_players=lo - 1)


def test_front_ends_list_exactly_the_registered_games():
    names = game_names()
    assert [g["name"] for g in describe_server()["games"]] == list(names)
    hint_choices = kocka_main.commands["hint"].params[0].type.choices
    assert list(hint_choices) == list(names)
    assert all(spec.name in (kocka_main.help or "") for spec in SPECS)


def test_agents_come_from_the_specs():
    for spec in SPECS:
        assert agent_names(spec.name) == [a.name for a in spec.agents] + ["random"]
    assert agent_games("random") is None
    assert agent_games("equilibrium") == [s.name for s in SPECS if s.agent("equilibrium")]


def test_game_names_appear_only_in_their_engine_module():
    """A quoted game name in the package (solver/, agents/) stands only in the module that
    registers that game's spec (its engine). (scripts/ are clients and benchmarks that
    name what they measure; words.py's "yahtzee" and "yatzy" are box ids.)"""
    words_module = ROOT / "solver" / "rules" / "words.py"
    sources = [p for d in ("solver", "agents") for p in (ROOT / d).rglob("*.py") if p != words_module]
    offenders = []
    for spec in SPECS:
        if spec.name == "kocka":
            continue  # also the project's own name (the command, the cache folder, the package)
        home = pathlib.Path(__import__(spec.engine.__module__, fromlist=["x"]).__file__).resolve()
        quoted = re.compile(rf"""["']{re.escape(spec.name)}["']""")
        for path in sources:
            if path.resolve() == home:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if quoted.search(code) and not _in_docstring_or_example(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "game names outside their spec:\n" + "\n".join(offenders)


def _in_docstring_or_example(line: str) -> bool:
    """Usage examples in docstrings and help texts (``kocka hint kockapoker ...``) name games
    the way a user types them; they are prose, not lists of games."""
    stripped = line.strip()
    return stripped.startswith(("kocka ", "python ", "$ ", "echo ")) or "kocka hint" in stripped or "kocka-solve" in stripped


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_players_read_words_not_reprs(spec):
    """Every action of a few random games reads as words (``keep 6``, ``write kis sor``),
    never a dataclass repr, in the game's language and in English."""
    game = get_game(spec.name)
    rng = random.Random(7)
    for _ in range(3):
        state = game.new_initial_state()
        for _ in range(200):
            if game.is_terminal(state):
                break
            if game.is_chance_node(state):
                outcomes = game.chance_outcomes(state)
                state = game.apply(state, outcomes[rng.randrange(len(outcomes))][0])
                continue
            actions = game.legal_actions(state)
            for action in actions[:40]:
                for lang in (None, "en"):
                    text = game.describe_action(action, state, lang)
                    assert text and not REPR.search(text), f"{spec.name}: {text!r}"
            assert not REPR.search(game.describe_state(state)), game.describe_state(state)
            state = game.apply(state, actions[rng.randrange(len(actions))])


def test_box_names_in_the_games_language_and_in_english():
    """Box labels come from each game's Words: kockapóker's are Hungarian (HU-1), Polish
    ones Polish (PL-3), and every game answers in English on request."""
    hu, pl = spec_for("kockapoker").words, spec_for("polish").words
    assert (hu.language, hu.box("small_straight"), hu.box("small_straight", "en")) == ("hu", "kis sor", "small straight")
    assert (pl.language, pl.box("four_kind"), pl.box("four_kind", "en")) == ("pl", "kareta", "four of a kind")
    assert "kis sor" in hu.box_aliases("small_straight") and "small straight" in hu.box_aliases("small_straight")
    with pytest.raises(ValueError):
        Words("xx")
    for spec in SPECS:
        game = get_game(spec.name)
        for box in game.card_boxes():
            assert game.box_label(box) and "_" not in game.box_label(box, "en")
