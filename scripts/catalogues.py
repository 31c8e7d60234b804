"""The message catalogues: extract every marked sentence from the source, bring each
language's ``.po`` files up to date, and list what a language still lacks.

    python scripts/catalogues.py update [DOMAIN ...]  # new ids added (empty), gone ones dropped
    python scripts/catalogues.py check    # exit 1 and a list when anything is missing

A message belongs to the domain of the file it is written in (:data:`DOMAINS`: the page,
the seat, the commands, the companion, the local games, the advice, the rules, the rest of
the solver), so people translating one part of the house edit one file per language. The
English catalogue carries each sentence as its own translation (English wording can then
change without changing the ids). Markers: ``_``, ``N_``, ``pgettext``, ``ngettext`` in
Python; ``t`` and ``tn`` in the page's JavaScript. A ``# TRANSLATORS:`` comment above a
message travels into the catalogue.
"""
from __future__ import annotations

import copy
import pathlib
import re
import sys

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.pofile import read_po, write_po

ROOT = pathlib.Path(__file__).resolve().parent.parent
LOCALE_DIR = ROOT / "solver" / "base" / "locales"
LANGUAGES = ("en", "hu", "pl", "sk")
KEYWORDS = {**DEFAULT_KEYWORDS, "t": None, "tn": (1, 2)}
DOMAINS = (  # (path prefix, domain): the first prefix that a file's path starts with
    ("agents/frontends/seat/static/", "page"),
    ("agents/frontends/seat/", "seat"),
    ("agents/frontends/commands/", "cli"),
    ("agents/frontends/games/companion.py", "companion"),
    ("agents/frontends/games/", "play"),
    ("agents/", "advice"),
    ("solver/rules/words.py", "words"),
    ("solver/rules/", "rules"),
    ("solver/", "solver"),
)
PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")
ALLOWED_ENGLISH = {"poker", "OK", "Kocka", "kocka", "Yahtzee", "Yatzy", "EV", "P(win)", "AI", "%", "{n}"}
"""Translations that may equal their English id in every language (names and symbols)."""


def domain_of(path: pathlib.Path) -> str | None:
    rel = path.relative_to(ROOT).as_posix()
    return next((d for prefix, d in DOMAINS if rel.startswith(prefix)), None)


def sources() -> list[tuple[pathlib.Path, str]]:
    found = []
    for top in ("solver", "agents"):
        for path in sorted((ROOT / top).rglob("*")):
            method = {".py": "python", ".js": "javascript"}.get(path.suffix)
            if method and "locales" not in path.parts:
                found.append((path, method))
    return found


def templates() -> dict[str, Catalog]:
    """One template catalogue per domain, from the source as it is now."""
    out: dict[str, Catalog] = {}
    for path, method in sources():
        domain = domain_of(path)
        if domain is None:
            continue
        with path.open("rb") as f:
            for lineno, message, comments, context in extract_from_file(
                    method, str(path), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
                catalog = out.setdefault(domain, Catalog(domain=domain))
                catalog.add(message, locations=[(path.relative_to(ROOT).as_posix(), lineno)],
                            auto_comments=comments, context=context)
    return out


def po_path(lang: str, domain: str) -> pathlib.Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{domain}.po"


def read(lang: str, domain: str) -> Catalog:
    path = po_path(lang, domain)
    if not path.is_file():
        return Catalog(locale=lang, domain=domain)
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def update(domains: list[str] | None = None) -> None:
    """Each domain's catalogues (all, or those named) brought up to the source."""
    for domain, template in templates().items():
        if domains and domain not in domains:
            continue
        for lang in LANGUAGES:
            catalog = read(lang, domain)
            catalog.update(copy.deepcopy(template), no_fuzzy_matching=True)  # update shares the template's messages
            catalog.obsolete.clear()
            if lang == "en":
                for message in catalog:
                    if message.id and not all(_strings(message)):
                        message.string = message.id  # a plural message: its (singular, plural)
            path = po_path(lang, domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as f:
                write_po(f, catalog, width=100, sort_output=False, omit_header=False, include_previous=False)
            print(f"{path.relative_to(ROOT)}: {len([m for m in catalog if m.id])} messages")


def _strings(message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


def _ids(message) -> list[str]:
    return list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]


def problems() -> list[str]:
    """Every gap: a message missing or empty in a language, a translation that drops or adds
    a placeholder, a non-English translation equal to its English sentence (outside
    :data:`ALLOWED_ENGLISH`), a catalogue entry no source uses any more."""
    found = []
    for domain, template in sorted(templates().items()):
        wanted = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in template if m.id}
        for lang in LANGUAGES:
            catalog = read(lang, domain)
            have = {}
            for m in catalog:
                if m.id:
                    have[(m.context, m.id if isinstance(m.id, str) else tuple(m.id))] = m
            for key in sorted(wanted, key=str):
                m = have.get(key)
                label = f"{lang}/{domain}: {key[1]!r}"
                if m is None or not all(_strings(m)):
                    found.append(f"{label} is not translated")
                    continue
                names = {n for i in _ids(m) for n in PLACEHOLDER.findall(i)}
                for s in _strings(m):
                    if set(PLACEHOLDER.findall(s)) != names:
                        found.append(f"{label}: the translation {s!r} has placeholders {sorted(set(PLACEHOLDER.findall(s)))}, not {sorted(names)}")
                if lang != "en" and _strings(m)[0] == _ids(m)[0] and re.search(r"[A-Za-z]{3}", _ids(m)[0]) \
                        and _ids(m)[0] not in ALLOWED_ENGLISH:
                    found.append(f"{label} is still English")
            for key in sorted(set(have) - wanted, key=str):
                found.append(f"{lang}/{domain}: {key[1]!r} is in the catalogue but no source uses it")
    return found


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "update":
        update(argv[2:])
        return 0
    if command == "check":
        found = problems()
        for line in found:
            print(line)
        print(f"{len(found)} problems" if found else "every message is translated in every language")
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
