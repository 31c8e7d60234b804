"""``kocka hint``: each game's command has the options its hint declares
(``GameSpec.hint_parameters``, agents/advice/hint.py ``hint_option``) and the shared ones,
and the hint functions receive typed parameters. The hints' values are tested with their
solvers (test_scorecard_solver, test_kocka_solver, test_polish_*, test_bluff_hint)."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from kocka.agents.advice.cards import ScorecardHintParams
from kocka.agents.advice.hint import HintParams, declared_options, hint, parameters_class, parse_options
from kocka.agents.advice.kocka import KockaHintParams
from kocka.agents.frontends.commands.kocka_cli import main
from kocka.solver.base.errors import RulesError
from kocka.solver.rules import game_specs, get_game, spec_for

SHARED = ("--state", "--rule", "--top", "--json", "--cache-dir", "--build-missing")
SPECS = list(game_specs())


def run(*args: str):
    return CliRunner().invoke(main, ["hint", *args])


def test_hint_help_lists_every_game():
    out = run("--help")
    assert out.exit_code == 0, out.output
    for spec in SPECS:
        assert spec.name in out.output and spec.title in out.output
    assert "no hints yet" in out.output  # the chip-bidding game


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_each_game_lists_its_own_options_with_help(spec):
    out = run(spec.name, "--help")
    assert out.exit_code == 0, out.output
    declared = declared_options(parameters_class(spec))
    flags = [option.spelling(name) for name, option in declared]
    for flag in (*flags, *SHARED):
        assert re.search(rf"[ ,]{flag}[ ,]", out.output), (spec.name, flag)
    assert all(len(option.help) > 20 for _, option in declared)
    every_flag = {option.spelling(name) for s in SPECS for name, option in declared_options(parameters_class(s))}
    for other in every_flag - set(flags):
        assert not re.search(rf"[ ,]{other}[ ,]", out.output), (spec.name, other)


@pytest.mark.parametrize("args, option", [
    (("kocka", "--dice", "1", "5", "--card", "pair=2"), "--card"),
    (("kockapoker", "--dice", "1", "1", "3", "4", "6", "--score", "100"), "--score"),
    (("polish-basic", "--dice", "1", "1", "3", "4", "6", "--fences", "2"), "--fences"),
    (("polish", "--dice", "1", "1", "3", "4", "6", "--opponent", "pair=8"), "--opponent"),
])
def test_a_game_refuses_the_options_of_another(args, option):
    out = run(*args)
    assert out.exit_code == 2 and "No such option" in out.output and option in out.output


def test_values_after_the_dice_option_are_collected_and_loose_values_refused():
    out = run("kocka", "1", "5")
    assert out.exit_code == 2 and out.output == "error: unexpected values [1, 5]: put dice after --dice\n"


def test_options_are_parsed_into_typed_fields():
    kocka = parse_options(KockaHintParams, {"opponents": "4500, 8000", "score": 100, "dice": None})
    assert kocka == {"opponents": (4500, 8000), "score": 100}
    cards = parse_options(ScorecardHintParams, {"card": "pair=12,full=19", "opponents": "chance=25; {}"})
    assert cards == {"card": {"pair": 12, "full": 19}, "opponents": [{"chance": 25}, {}]}
    basic = parse_options(parameters_class(spec_for("polish-basic")), {"opponent": ""})
    assert basic == {"opponent": {}}  # an empty card: the race from its start


def test_a_plain_state_document_reaches_any_hint_and_a_wrong_class_is_refused():
    game = get_game("kocka")
    doc = game.state_to_json(game.position((0,), roll=(2, 3, 3, 4, 5, 6)))
    assert hint(game, HintParams(state=doc)).to_json() == hint(game, KockaHintParams(state=doc)).to_json()
    with pytest.raises(RulesError, match="takes KockaHintParams, got ScorecardHintParams"):
        hint(game, ScorecardHintParams(dice=(1, 1, 3, 4, 6)))


def test_an_unknown_game_is_named_with_the_known_ones():
    out = run("nosuch", "--dice", "1")
    assert out.exit_code == 2 and "unknown game 'nosuch'; games: kocka, kockapoker" in out.output
