"""The README states each figure once.

A figure written in two places drifts: the Polish full build was once given as 305 s /
2.36 GB in the Polish table and as 126.7 s / 780 MB under "Performance", measured a
release apart. So what a benchmark or a build measures (times, memory, sizes) lives in
the "Performance" section alone, and an exact value (an expected score, a probability, a
state count) is written on one line; elsewhere the README refers to that place by name.
"""
from __future__ import annotations

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
TEXT = README.read_text(encoding="utf-8")

# "0.69 s", "8-20 ms", "3.3 µs", "780 MB", "1.31 GB": a measured cost (a space before the
# time units, so that "a series of 1s" is no figure)
COST = re.compile(r"(?<![\w.])\d[\d,.]*(?:-\d[\d,.]*)?(?:\s(?:s|ms|µs)|\s?(?:KB|MB|GB|KiB|MiB|GiB))(?![\w])")
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
URL = re.compile(r"<?https?://\S+")


def sections() -> dict[str, str]:
    """The README's ``## `` sections by title (the text before the first: "")."""
    parts = re.split(r"(?m)^## ", TEXT)
    return {"": parts[0], **{part.split("\n", 1)[0].strip(): part for part in parts[1:]}}


def significant_digits(number: str) -> int:
    digits = number.replace(",", "")
    return len(digits.replace(".", "").lstrip("0")) if "." in digits else len(digits.strip("0"))


def test_measured_costs_are_stated_under_performance_only():
    stray = [(title, line.strip()) for title, text in sections().items() if title != "Performance"
             for line in text.splitlines() if COST.search(line)]
    assert "Performance" in sections()
    assert stray == [], "a time or memory figure outside \"Performance\" (state it there, refer to it here)"


def test_each_exact_value_is_written_on_one_line():
    # five or more significant digits (197.7979, 0.491510, 536,448): an exact value, not a
    # parameter such as 20,000 games; two on one line are two columns of one fact (our
    # value beside the published one)
    lines_of: dict[str, set[int]] = {}
    for number, line in ((m.group(0).rstrip(","), i) for i, text in enumerate(TEXT.splitlines())
                         for m in NUMBER.finditer(URL.sub("", text))):
        if significant_digits(number) >= 5:
            lines_of.setdefault(number.replace(",", ""), set()).add(line)
    repeated = {number: sorted(i + 1 for i in lines) for number, lines in lines_of.items() if len(lines) > 1}
    assert repeated == {}, "a value written twice (keep one, refer to it from the other place)"


def test_the_polish_build_is_one_row():
    # the figure of issue 23: one statement of the full build, the current one
    rows = [line for line in TEXT.splitlines() if "kocka-solve build polish --jobs 2" in line and COST.search(line)]
    assert len(rows) == 1 and "126.7 s wall" in rows[0] and "780 MB peak" in rows[0]


def test_each_performance_row_measures_its_own_thing():
    rows = [line.split("|")[1].strip() for line in sections()["Performance"].splitlines()
            if line.startswith("| ") and not line.startswith("| what")]
    assert rows and len(rows) == len(set(rows))


def test_the_places_referred_to_exist():
    headings = {m.group(1).strip() for m in re.finditer(r"(?m)^#{2,4} (.+)$", TEXT)}
    for name in re.findall(r'"(Performance|Numbers|Play to win)"', TEXT):
        assert any(h == name or h.startswith(name + " ") for h in headings), name
    assert any(h.startswith("Optimal expected scores, solitaire") for h in headings)
