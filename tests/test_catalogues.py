"""The message catalogues (issue 25): complete in every language, placeholders kept,
numbers in each language's own format, the language in force private to each thread."""
from __future__ import annotations

import threading

import pytest

from kocka.solver.base import i18n
from script_modules import script_module


def _catalogues_script():
    return script_module("catalogues")


def test_every_message_is_translated_in_every_language():
    """Every id the source marks is in all four catalogues, non-empty, with the same
    placeholders, and not left in English (scripts/catalogues.py check lists the same)."""
    problems = _catalogues_script().problems()
    assert problems == [], "\n".join(problems[:40])


def test_the_check_finds_a_gap(tmp_path, monkeypatch):
    """The completeness check itself can fail: a source with a new sentence and no
    catalogue entry is reported for each language."""
    script = _catalogues_script()
    source = tmp_path / "solver" / "rules" / "new.py"
    source.parent.mkdir(parents=True)
    source.write_text('from kocka.solver.base.i18n import _\nMESSAGE = _("a sentence nobody translated {x}", x=1)\n')
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script, "LOCALE_DIR", tmp_path / "locales")
    found = script.problems()
    assert len(found) == 4 and all("not translated" in line for line in found)


@pytest.mark.parametrize("lang, text", [("en", "12.5"), ("hu", "12,5"), ("pl", "12,5"), ("sk", "12,5")])
def test_decimal_comma_where_people_write_one(lang, text):
    # CLDR: Hungarian, Polish and Slovak write a decimal comma (issue 25)
    with i18n.use_language(lang):
        assert i18n.number(12.5, 1) == text


def test_percent_in_each_language():
    with i18n.use_language("en"):
        assert i18n.percent(0.62) == "62%"
    with i18n.use_language("sk"):
        assert i18n.percent(0.625, 1).replace("\xa0", " ") == "62,5 %"


def test_language_is_private_to_a_thread():
    seen = {}

    def worker():
        seen["thread"] = i18n.current_language()

    with i18n.use_language("hu"):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        seen["here"] = i18n.current_language()
    assert seen == {"thread": "en", "here": "hu"}


def test_unknown_language_is_one_line_naming_the_choices(monkeypatch):
    with pytest.raises(i18n.LanguageError, match="must be one of en, hu, pl, sk"):
        i18n.choose_language("xx")
    monkeypatch.setenv("KOCKA_LANG", "xx")
    with pytest.raises(i18n.LanguageError, match="KOCKA_LANG must be one of"):
        i18n.current_language()


def test_choice_order_asked_then_environment_then_game(monkeypatch):
    monkeypatch.delenv("KOCKA_LANG", raising=False)
    assert i18n.choose_language(None, "hu") == "hu"
    monkeypatch.setenv("KOCKA_LANG", "pl")
    assert i18n.choose_language(None, "hu") == "pl"
    assert i18n.choose_language("sk", "hu") == "sk"
