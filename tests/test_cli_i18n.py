"""The ``kocka`` commands in the player's language (issue 25): ``--lang`` and ``KOCKA_LANG``
on every command, ``--help`` written in the language (the commands' own sentences and
click's headings), one-line errors naming the languages, rule ids only with ``--explain``,
and options and values written as words (no Python reprs).

The expected words are written out here from the catalogues' translations (a known
phrase per language), not read back through the code under test."""
from __future__ import annotations

import json
import os
import re

import pytest
from click.testing import CliRunner

from kocka.agents.frontends.commands.kocka_cli import main
from kocka.solver.rules import game_names, get_game

# A phrase of each language's help (the help option's own line, the section headings) and
# click's English headings, which must not be left in a translated help.
HELP_WORDS = {
    "en": ("Usage:", "Options:", "Show this message and exit."),
    "hu": ("Használat:", "Kapcsolók:", "Kiírja ezt a súgót, és kilép."),
    "pl": ("Użycie:", "Opcje:", "Pokaż tę pomoc i zakończ."),
    "sk": ("Použitie:", "Voľby:", "Zobrazí túto pomoc a skončí."),
}
ENGLISH_HEADINGS = ("Usage:", "Options:", "Commands:", "Games:", "Show this message and exit.", "[OPTIONS]")
# The first sentence of each command's own help, per language (kocka_cli.py, cli.po).
COMMAND_WORDS = {
    (): {"en": "Play and analyse Central-European dice games", "hu": "Közép-európai kockajátékok játéka",
         "pl": "Graj w środkowoeuropejskie gry w kości", "sk": "Hraj a analyzuj stredoeurópske kockové hry"},
    ("hint",): {"en": "Rank every legal action in a position of GAME", "hu": "minden szabályos lépést rangsorol",
                "pl": "Szereguje każdy dozwolony ruch", "sk": "Zoradí každý povolený ťah"},
    ("table",): {"en": "The hint companion for a game with real dice", "hu": "Tippadó segítő igazi kockákkal",
                 "pl": "Pomocnik z podpowiedziami do gry prawdziwymi kośćmi",
                 "sk": "Pomocník s radami pre hru so skutočnými kockami"},
    ("play",): {"en": "Play GAME in the terminal against the AI", "hu": "a terminálban a gép ellen",
                "pl": "w terminalu z komputerem", "sk": "v termináli proti počítaču"},
}
LANGS = tuple(HELP_WORDS)


def run(args, lang_env=None, monkeypatch=None, input=None):
    if monkeypatch is not None:
        if lang_env is None:
            monkeypatch.delenv("KOCKA_LANG", raising=False)
        else:
            monkeypatch.setenv("KOCKA_LANG", lang_env)
    return CliRunner().invoke(main, list(args), input=input)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("command", list(COMMAND_WORDS), ids=lambda c: " ".join(c) or "kocka")
def test_help_is_written_in_the_language_of_kocka_lang(command, lang, monkeypatch):
    out = run([*command, "--help"], lang, monkeypatch)
    assert out.exit_code == 0, out.output
    for phrase in HELP_WORDS[lang]:
        assert phrase in out.output, (lang, phrase)
    assert COMMAND_WORDS[command][lang] in out.output
    if lang != "en":
        for heading in ENGLISH_HEADINGS:
            assert heading not in out.output, (lang, heading)


def test_a_games_help_is_in_its_own_language_and_lang_beats_it(monkeypatch):
    # kockapóker is a Hungarian game (RULES.md HU-1): its help is Hungarian unless asked
    own = run(["hint", "kockapoker", "--help"], None, monkeypatch)
    assert own.exit_code == 0 and "Használat:" in own.output and "Kapcsolók:" in own.output
    assert "A(z) kockapóker egy állásában minden szabályos lépést rangsorol" in own.output
    english = run(["hint", "kockapoker", "--help", "--lang", "en"], None, monkeypatch)
    assert "Usage:" in english.output and "Használat:" not in english.output
    polish = run(["rules", "polish", "--help"], None, monkeypatch)  # the Polish game (RULES.md PL-1)
    assert "rules [OPCJE] GRA" in polish.output and polish.output.startswith("Użycie: ")


# Each game's own hint options (agents/advice, advice.po), one phrase per language.
HINT_OPTION_WORDS = {
    ("kockapoker", "en"): ("Throws made this turn: 1, 2 or 3 (default 1).", "The filled boxes as box=points pairs"),
    ("kockapoker", "hu"): ("Ebben a körben megtett dobások: 1, 2 vagy 3 (alapból 1).", "A kitöltött rovatok rovat=pont"),
    ("kockapoker", "pl"): ("Rzuty wykonane w tej turze: 1, 2 lub 3 (domyślnie 1).", "Wypełnione rubryki jako pary"),
    ("kockapoker", "sk"): ("Hody v tomto kole: 1, 2 alebo 3 (predvolene 1).", "Vyplnené políčka ako dvojice"),
    ("liars-poker", "hu"): ("Válaszkor: a bemondás tétje (alapból 1).", "A három nyílt kocka, pl. --public 2 5 5."),
    ("kocka", "sk"): ("Tvoje zapísané body (predvolene 0).", "Body už odložené v tomto kole (predvolene 0)."),
    ("polish", "pl"): ("Płotki posiadane na początku tej tury (domyślnie 0).", "Rozgrywany etap: 1, 2 lub 3"),
}


@pytest.mark.parametrize("game, lang", sorted(HINT_OPTION_WORDS))
def test_a_games_hint_options_are_helped_in_the_language(game, lang, monkeypatch):
    out = run(["hint", game, "--help", "--lang", lang], None, monkeypatch)
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())  # click rewraps the help to the terminal's width
    for phrase in HINT_OPTION_WORDS[game, lang]:
        assert phrase in text, (game, lang, phrase)


@pytest.mark.parametrize("args", [
    ["rules", "kocka", "--lang", "xx"], ["hint", "kockapoker", "--dice", "1", "1", "3", "4", "6", "--lang=xx"],
    ["play", "yahtzee", "--lang", "xx"], ["seat", "--lang", "xx"], ["web", "--lang", "xx"],
    ["score", "kockapoker", "--dice", "1", "2", "3", "4", "5", "--lang", "xx"],
])
def test_a_bad_lang_is_one_line_naming_the_languages(args, monkeypatch):
    out = run(args, None, monkeypatch)
    assert out.exit_code == 2 and out.output.count("\n") == 1, out.output
    assert "--lang" in out.output and "en, hu, pl, sk" in out.output and "xx" in out.output
    assert "'" not in out.output and "Traceback" not in out.output


@pytest.mark.parametrize("args", [["--help"], ["rules", "kocka"], ["hint", "kocka", "--help"], ["seat"]])
def test_a_bad_kocka_lang_is_one_line_naming_the_languages(args, monkeypatch):
    out = run(args, "xx", monkeypatch)
    assert out.exit_code == 2 and out.output.count("\n") == 1, out.output
    assert out.output.startswith("error: KOCKA_LANG must be one of en, hu, pl, sk") and "xx" in out.output


def test_a_bad_kocka_lang_is_written_in_the_lang_asked(monkeypatch):
    out = run(["rules", "kocka", "--lang", "pl"], "xx", monkeypatch)
    assert out.exit_code == 2 and out.output.startswith("błąd: KOCKA_LANG musi być jednym z: en, hu, pl, sk")


# BLUFF-12 (RULES.md): the stake k is 1 <= k <= the claimer's chips; a player starts with 10
# chips (--chips default), so a stake of 11 is refused by that rule.
STAKE_TOO_HIGH = ["hint", "bidding-bluff", "--claim", "9", "--stake", "11"]
RULE_ID = re.compile(r"\b[A-Z]+-\d+\b")


@pytest.mark.parametrize("lang, follows", [
    ("en", "This follows from rule BLUFF-12"), ("hu", "szabályából következik"),
    ("pl", "Wynika to z reguły BLUFF-12"), ("sk", "Vyplýva to z pravidla BLUFF-12"),
])
def test_explain_names_the_rule_of_an_illegal_move_and_without_it_no_rule_id(lang, follows, monkeypatch):
    explained = run([*STAKE_TOO_HIGH, "--explain", "--lang", lang], None, monkeypatch)
    assert explained.exit_code == 2 and follows in explained.output and "BLUFF-12" in explained.output
    assert explained.output.count("\n") == 2  # the error, then its rule
    plain = run([*STAKE_TOO_HIGH, "--lang", lang], None, monkeypatch)
    assert plain.exit_code == 2 and plain.output.count("\n") == 1
    assert not RULE_ID.search(plain.output), plain.output


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", game_names())
def test_rules_are_sentences_without_reprs(game, lang, monkeypatch):
    out = run(["rules", game, "--lang", lang], None, monkeypatch)
    assert out.exit_code == 0, out.output
    options = get_game(game).rules.options()
    lines = [line.strip() for line in out.output.splitlines() if line.startswith("  ")]
    assert len(lines) == len(options)
    for line, (key, value) in zip(lines, options.items()):
        assert line.startswith(f"{key} = ") and not re.search(r"[()\[\]'\"]", line), line
        if isinstance(value, (list, tuple)):  # a list of boxes: its items with commas
            assert line == f"{key} = {', '.join(map(str, value))}"


def test_opponent_card_error_names_the_opponent_option(monkeypatch):
    out = run(["hint", "polish-basic", "--dice", "1", "1", "3", "4", "6", "--opponent", "abc", "--lang", "en"],
              None, monkeypatch)
    assert out.exit_code == 2 and out.output.count("\n") == 1
    assert out.output.startswith("error: --opponent takes box=points pairs") and out.output.rstrip().endswith("got abc")
    assert "--card" not in out.output and "JSON:" not in out.output


@pytest.mark.parametrize("args, lang, wanted", [
    (["seat", "--log-level", "loud"], "en", "loud is not one of debug, info, warning, error"),
    (["rules", "nosuch"], "en", "nosuch is not one of kocka, kockapoker"),
    (["hint", "kockapoker", "--dice", "1", "1", "3", "4", "6", "--roll", "x"], "en", "x is not a whole number"),
    (["hint", "kockapoker", "--dice", "1", "1", "3", "4", "6", "--fences", "2"], "hu", "Nincs ilyen kapcsoló: --fences."),
    (["rules"], "pl", "Wybierz jedno z: kocka, kockapoker"),
    (["hint", "kockapoker", "--dice", "1", "1", "3", "4", "6", "--scor", "1"], "sk", "Voľba --scor neexistuje."),
])
def test_usage_errors_name_options_and_values_as_words(args, lang, wanted, monkeypatch):
    out = run(args, lang, monkeypatch)
    assert out.exit_code == 2 and wanted in out.output, out.output
    first = out.output.splitlines()[0]
    assert first.startswith({"en": "error: ", "hu": "hiba: ", "pl": "błąd: ", "sk": "chyba: "}[lang])
    assert not re.search(r"[\[\]'\"]", out.output), out.output


def test_seat_lang_is_the_default_of_requests_without_lang(monkeypatch):
    request = json.dumps({"id": 1, "method": "nosuch"}) + "\n" + json.dumps({"id": 2, "method": "nosuch", "lang": "sk"})
    out = run(["seat", "--lang", "pl"], None, monkeypatch, input=request + "\n")
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[0]["error"]["message"].startswith("nieznana metoda")  # seat.po (pl)
    assert answers[1]["error"]["message"].startswith("neznáma metóda")  # the request's own lang wins
    assert "KOCKA_LANG" not in os.environ  # --lang was this command's, not left behind
