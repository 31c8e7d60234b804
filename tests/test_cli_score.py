"""``kocka score`` and ``kocka rules``: values from RULES.md section 7 reference cases."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from kocka.agents.frontends.commands.kocka_cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


# (game, dice, box, first throw, points, reference case of RULES.md section 7)
CASES = [
    ("kockapoker", "3 3 3 5 5", "full_house", False, 19, 14),
    ("kockapoker", "3 3 3 5 5", "two_pairs", False, 16, 14),
    ("kockapoker", "3 3 3 5 5", "fives", False, -5, 15),
    ("kockapoker", "6 6 6 6 6", "five_kind", False, 50, 16),
    ("polish", "3 3 6 6 6", "full_house", True, 72, 21),
    ("polish", "1 4 4 4 4", "four_kind", True, 48, 25),
    ("slovak", "4 4 4 4 4", "poker", True, 90, 35),
    ("slovak", "2 3 4 5 6", "large_straight", True, 40, 36),
]


@pytest.mark.parametrize("game, dice, box, first, points, case", CASES)
def test_score_matches_reference_cases(game, dice, box, first, points, case):
    args = ["score", game, "--dice", *dice.split(), "--box", box] + (["--first-throw"] if first else [])
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert result.output.split() == [box, str(points)], f"RULES.md reference case {case}"


@pytest.mark.parametrize("args, message", [
    (["score", "kockapoker", "--dice", "1", "2", "7", "1", "1"], "the dice must be values from 1 to 6, not 1 2 7 1 1"),
    (["score", "kockapoker", "--dice", "1", "2", "3"], "the dice must be 5 dice, not 1 2 3"),
    (["score", "kockapoker", "--dice", "1", "2", "3", "4", "5", "--box", "yatzy"], "no box yatzy"),
    (["score", "kocka", "--dice", "1", "1", "1", "1", "1"], "no score card"),
    (["rules", "kocka", "-r", "min_bank=never"], "min_bank"),
])
def test_bad_input_gives_one_line_error(args, message):
    result = run(*args, "--lang", "en")
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_rules_lists_options_and_variant_id():
    out = run("rules", "kocka", "-r", "kocka.min_bank=always", "--lang", "en").output
    assert "min_bank = always; it may be one of: below_2500, always" in out
    assert "value tables): kocka:" in out
