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
from kocka.solver.rules.words import game_title

SHARED = ("--state", "--rule", "--top", "--json", "--cache-dir", "--build-missing")
SPECS = list(game_specs())


def run(*args: str):
    return CliRunner().invoke(main, ["hint", *args])


def test_hint_help_lists_every_game():
    out = run("--help")
    assert out.exit_code == 0, out.output
    for spec in SPECS:
        assert spec.name in out.output and game_title(spec.name) in out.output  # the name players say (words.py)
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
    out = run(*args, "--lang", "en")
    assert out.exit_code == 2 and "No such option" in out.output and option in out.output


def test_values_after_the_dice_option_are_collected_and_loose_values_refused():
    out = run("kocka", "1", "5", "--lang", "en")
    assert out.exit_code == 2 and out.output == "error: unexpected values 1 5: put dice after --dice\n"


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
    assert out.exit_code == 2 and "there is no game nosuch; the games are kocka, kockapoker" in out.output


# ----------------------------------------------------------------------------------------
# The player's language (issue 25): the game's own by default, --lang and KOCKA_LANG, and
# no internals (reprs, class names, rule ids) in any hint
# ----------------------------------------------------------------------------------------
TINY = {  # small variants of each game with hints, so their tables build in seconds
    "kockapoker": ("-r", "boxes=sixes,chance,pair"), "slovak": ("-r", "boxes=sixes,chance,pair"),
    "yahtzee": ("-r", "boxes=sixes,chance"), "yatzy": ("-r", "boxes=sixes,chance"),
    "polish": ("-r", "boxes=sixes,pair,chance", "-r", "stages=1", "-r", "fence_cap=2"),
    "polish-basic": ("-r", "boxes=pair,poker"),
}
POSITIONS = {  # one position per game with hints: the dice rolled, or a claim to answer
    "kocka": ("--dice", "1", "1", "3", "4", "5", "6"),
    "kockapoker": ("--dice", "1", "1", "3", "4", "6", "--roll", "1"),
    "slovak": ("--dice", "1", "1", "3", "4", "6", "--roll", "1"),
    "yahtzee": ("--dice", "1", "1", "3", "4", "6", "--roll", "2"),
    "yatzy": ("--dice", "1", "1", "3", "4", "6", "--roll", "3"),
    "polish": ("--dice", "1", "1", "3", "4", "6"),
    "polish-basic": ("--dice", "1", "1", "3", "4", "6"),
    "abazs": ("--claim", "9", "--previous", "6"),
    "bidding-bluff": ("--dice", "2", "4", "--standing", "7"),
    "liars-poker": ("--public", "2", "5", "5", "--claim", "two pairs 5 2", "--shown", "6"),
}
LANGS = ("en", "hu", "pl", "sk")
INTERNALS = re.compile(r"[\[\]']|\b[A-Z]{2,}(?:-[A-Z]+)?-\d+\b|\b(?:Keep|Fill|Write|Scratch|Declare|Record|Claim|"
                       r"TwoDiceClaim|DiceClaim|Hand|SetAside|TakeSeries|StartSeries|Decision|\w+State)\(|\bEV\b|"
                       r"P\(|reach_target|turn_total|_")
"""What a player must not read: a Python repr's brackets and quotes, a rule id (KOCKA-12,
PL-2, BLUFF-7), a class or a field name, the solvers' shorthand."""


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """The small variants' tables, built once into a folder of this module."""
    cache = tmp_path_factory.mktemp("hint-tables")
    for game, rules in TINY.items():
        out = run(game, *rules, *POSITIONS[game], "--cache-dir", str(cache), "--build-missing")
        assert out.exit_code == 0, out.output
    return str(cache)


def hint_text(tables, game, *more):
    out = run(game, *TINY.get(game, ()), *POSITIONS[game], "--cache-dir", tables, "--top", "0", *more)
    assert out.exit_code == 0, out.output
    return out.output


def test_kockapoker_is_hungarian_by_default_and_english_on_request(tables, monkeypatch):
    monkeypatch.delenv("KOCKA_LANG", raising=False)
    hungarian = hint_text(tables, "kockapoker")
    # the best keep of 1 1 3 4 6 on this card is the 6 (the table's ranking, shown first)
    assert "* tartsd meg: 6 " in hungarian and "egyszerűen: tartsd meg: 6 – cél: " in hungarian
    assert "írd be: szemét" in hungarian and "dobj újra" in hungarian and "keep" not in hungarian
    english = hint_text(tables, "kockapoker", "--lang", "en")
    assert "* keep 6 " in english and "in plain words: keep 6: going for " in english
    assert "write szemét" in english and "reroll all" in english  # box names: the card's own (HU-1)
    # the numbers are the same, written with a decimal comma in Hungarian
    first = lambda text: next(line for line in text.splitlines() if line.startswith("* ")).split()[-2:]
    assert [v.replace(",", ".") for v in first(hungarian)] == first(english)


@pytest.mark.parametrize("lang, keep, write, reroll", [
    ("pl", "zostaw 6", "zapisz szemét", "rzuć ponownie"),
    ("sk", "nechaj 6", "zapíš szemét", "hoď znova"),
])
def test_polish_and_slovak_verbs(tables, lang, keep, write, reroll):
    text = hint_text(tables, "kockapoker", "--lang", lang)
    assert f"* {keep} " in text and write in text and reroll in text


def test_kocka_lang_is_the_default_and_lang_beats_it(tables, monkeypatch):
    monkeypatch.setenv("KOCKA_LANG", "sk")
    assert "* nechaj 6 " in hint_text(tables, "kockapoker")
    assert "* zostaw 6 " in hint_text(tables, "kockapoker", "--lang", "pl")
    monkeypatch.setenv("KOCKA_LANG", "xx")
    out = run("kockapoker", *POSITIONS["kockapoker"])
    assert out.exit_code == 2 and out.output.startswith("error: KOCKA_LANG must be one of en, hu, pl, sk")


def test_each_game_defaults_to_its_own_language(tables, monkeypatch):
    monkeypatch.delenv("KOCKA_LANG", raising=False)
    assert "egyszerűen" not in hint_text(tables, "yahtzee") and "in plain words: keep" in hint_text(tables, "yahtzee")
    assert "po prostu: zostaw" in hint_text(tables, "polish-basic")
    assert "jednoducho: nechaj" in hint_text(tables, "slovak")
    assert "tedd félre: 1" in hint_text(tables, "kocka")
    assert "Zsetonok: te 10, 2. játékos 10." in hint_text(tables, "abazs")  # the other seat 1-based


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", sorted(POSITIONS))
def test_no_internals_in_any_hint(tables, game, lang):
    text = hint_text(tables, game, "--lang", lang)
    found = INTERNALS.findall(text)
    assert not found, (found, text)


@pytest.mark.parametrize("lang, claim", [("en", "claim 8 (true;"), ("hu", "mondd: 8 (igaz;"),
                                         ("pl", "zapowiedz 8 (prawda;"), ("sk", "ohlás 8 (pravda;")])
def test_bluff_claims_say_true_or_lie_in_each_language(lang, claim):
    # 3 + 5 = 8: the one true claim of the simple ranking (BLUFF-7)
    out = run("abazs", "--dice", "3", "5", "--top", "0", "--lang", lang)
    assert out.exit_code == 0 and out.output.count(claim) == 1
