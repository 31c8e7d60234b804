"""The player's language: message catalogues (gettext, managed with Babel), the language in
force, and numbers written the way each language writes them.

Every sentence a player reads is written in English in the source, marked with
:func:`_` (or :func:`ngettext` for counts, :func:`N_` for a message translated later), and
translated from the catalogues in ``solver/base/locales/<lang>/LC_MESSAGES/<domain>.po``:
one ``.po`` per language and domain (a domain is a part of the house: the rules' words,
the hints, the companion, the page, ...), all domains of a language searched together.
``setup.py`` compiles them to ``.mo`` at install; a checkout whose ``.po`` is newer than its
``.mo`` (a developer editing a catalogue) reads the ``.po`` directly, so a translation
never lags its source. ``scripts/catalogues.py`` extracts the message ids and lists what
each language lacks; ``tests/test_catalogues.py`` fails on any gap.

**Which language.** A front end decides once per request or command, with
:func:`use_language`: ``--lang`` or the request's ``lang`` first, then ``KOCKA_LANG``, then
the game's own language (Hungarian for Kocka, kockapóker and the bluff games, Polish,
Slovak, English for the validation games). Below the front ends nothing chooses: an engine
raising an error or a hint writing its line calls :func:`_`, which reads the language in
force (a context variable, so each seat worker thread and each asyncio task has its own).

Placeholders are named, ``{dice}`` (``str.format``), filled after translation; a
translation may move them but must keep every one (the catalogue test checks).
"""
from __future__ import annotations

import contextlib
import contextvars
import gettext
import io
import os
import pathlib
from functools import lru_cache
from typing import Any, Iterator

LANGUAGES = {"en": "English", "hu": "magyar", "pl": "polski", "sk": "slovenčina"}
"""The languages a player may choose, by code, each in its own words."""
DEFAULT_LANGUAGE = "en"
"""The language when nothing else decides (no game known, no ``--lang``, no ``KOCKA_LANG``)."""
LOCALE_DIR = pathlib.Path(__file__).resolve().parent / "locales"
ENV_VAR = "KOCKA_LANG"

_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("kocka_language", default=None)


class LanguageError(ValueError):
    """An unknown language code (``--lang xx``, ``KOCKA_LANG=xx``, ``lang=xx``)."""


def check_language(lang: str, where: str = "language") -> str:
    """``lang`` if it is one of :data:`LANGUAGES`, else a :class:`LanguageError` naming them."""
    if lang not in LANGUAGES:
        raise LanguageError(f"{where} must be one of {', '.join(LANGUAGES)} "
                            f"({', '.join(f'{k}: {v}' for k, v in LANGUAGES.items())}), got {lang!r}")
    return lang


def env_language() -> str | None:
    """``KOCKA_LANG`` if set (checked), else None. An empty value counts as unset."""
    value = os.environ.get(ENV_VAR, "").strip()
    return check_language(value, ENV_VAR) if value else None


def choose_language(asked: str | None = None, game_language: str | None = None) -> str:
    """The language a front end uses: ``asked`` (``--lang``, a request's ``lang``), then
    ``KOCKA_LANG``, then the game's own language, then English."""
    if asked:
        return check_language(asked)
    return env_language() or game_language or DEFAULT_LANGUAGE


def current_language() -> str:
    """The language in force: the innermost :func:`use_language`, else ``KOCKA_LANG``, else
    English."""
    return _current.get() or env_language() or DEFAULT_LANGUAGE


@contextlib.contextmanager
def use_language(lang: str | None) -> Iterator[str]:
    """Messages inside the block are written in ``lang`` (None: leave the language in force)."""
    if lang is None:
        yield current_language()
        return
    token = _current.set(check_language(lang))
    try:
        yield lang
    finally:
        _current.reset(token)


def compile_catalogue(po: pathlib.Path) -> bytes:
    """The ``.mo`` bytes of one ``.po`` file (Babel); a malformed catalogue raises."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, abort_invalid=True)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    return buffer.getvalue()


def compile_catalogues(locale_dir: pathlib.Path = LOCALE_DIR) -> list[pathlib.Path]:
    """Write every ``.po`` under ``locale_dir`` as its ``.mo`` (``setup.py`` at install),
    each through a temporary file renamed over the old one; returns the files written."""
    written = []
    for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        part = mo.with_name(mo.name + ".part")
        part.write_bytes(compile_catalogue(po))
        os.replace(part, mo)
        written.append(mo)
    return written


def _read_catalogue(po: pathlib.Path) -> gettext.GNUTranslations:
    """One domain of one language: its compiled ``.mo`` when that is up to date, else the
    ``.po`` compiled in memory."""
    mo = po.with_suffix(".mo")
    if mo.is_file() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as f:
            return gettext.GNUTranslations(f)
    return gettext.GNUTranslations(io.BytesIO(compile_catalogue(po)))


@lru_cache(maxsize=None)
def translations(lang: str) -> gettext.NullTranslations:
    """Every domain of ``lang`` chained (the first domain that knows a message answers);
    English falls back to the message ids themselves."""
    folder = LOCALE_DIR / check_language(lang) / "LC_MESSAGES"
    chain: gettext.NullTranslations = gettext.NullTranslations()
    for po in sorted(folder.glob("*.po"), reverse=True):
        domain = _read_catalogue(po)
        domain.add_fallback(chain)
        chain = domain
    return chain


def _fill(text: str, params: dict[str, Any]) -> str:
    return text.format(**params) if params else text


@lru_cache(maxsize=16384)
def _translated(lang: str, msgid: str) -> str:
    """One message in ``lang`` (looked up once: the domains are a chain of fallbacks)."""
    return translations(lang).gettext(msgid)


def _(msgid: str, /, **params: Any) -> str:
    """``msgid`` (an English sentence) in the language in force, placeholders filled."""
    return _fill(_translated(current_language(), msgid), params)


def pgettext(context: str, msgid: str, /, **params: Any) -> str:
    """Like :func:`_` for a short word whose translation depends on where it stands
    (``context``: e.g. ``"button"``)."""
    return _fill(translations(current_language()).pgettext(context, msgid), params)


def ngettext(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The singular or plural sentence for count ``n`` (the language's own plural rule:
    Polish and Slovak have three forms); ``{n}`` is filled with ``n``."""
    text = translations(current_language()).ngettext(singular, plural, n)
    return _fill(text, {"n": n, **params})


def N_(msgid: str) -> str:
    """Mark ``msgid`` for the catalogues without translating it now (a constant translated
    where it is shown)."""
    return msgid


def number(value: float, digits: int = 1) -> str:
    """``value`` with ``digits`` decimals in the language in force: ``12.5`` in English,
    ``12,5`` in Hungarian, Polish and Slovak."""
    from babel.numbers import format_decimal

    pattern = "0" if digits <= 0 else "0." + "0" * digits
    return format_decimal(round(float(value), max(digits, 0)), format=pattern, locale=current_language(),
                          decimal_quantization=True)


def percent(probability: float, digits: int = 0) -> str:
    """``probability`` as a percentage in the language in force, each locale's own way:
    ``62.5%`` in English, ``62,5%`` in Hungarian and Polish, ``62,5 %`` in Slovak."""
    from babel import Locale
    from babel.numbers import format_percent

    lang = current_language()
    pattern = Locale.parse(lang).percent_formats[None].pattern.split(";")[0]
    if digits > 0:
        pattern = pattern.replace("0", "0." + "0" * digits, 1) if "0." not in pattern else pattern
    return format_percent(float(probability), format=pattern, locale=lang, decimal_quantization=True)


PAGE_DOMAIN = "page"
"""The domain of the web page's own strings (``static/app.js`` marks them with ``t(...)``)."""


@lru_cache(maxsize=None)
def catalogue_json(lang: str) -> dict[str, str | list[str]]:
    """The page's messages in ``lang``, by English id (what the page fetches: its strings
    come from the same catalogues as everything else); a message with plural forms is
    listed under its singular id with its forms in the language's order (the page picks
    one by ``Intl.PluralRules``)."""
    from babel.messages.pofile import read_po

    po = LOCALE_DIR / check_language(lang) / "LC_MESSAGES" / f"{PAGE_DOMAIN}.po"
    if not po.is_file():
        return {}
    with po.open("rb") as f:
        catalog = read_po(f)
    messages: dict[str, str | list[str]] = {}
    for m in catalog:
        if m.id and isinstance(m.id, str):
            messages[m.id] = str(m.string or m.id)
        elif m.id:  # (singular, plural): the forms, English's own when untranslated
            forms = [str(s) for s in m.string] if m.string and all(m.string) else [str(i) for i in m.id]
            messages[str(m.id[0])] = forms
    return messages
