"""``kocka-solve`` end to end on a tiny card: build, info, verify, list, and bad input."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kocka.agents.frontends.commands.solve_cli import main

# a two-box Yahtzee card solves in milliseconds
TINY = ["yahtzee", "-r", "boxes=sixes,chance"]


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_build_info_verify_list(tmp_path):
    built = run("build", *TINY, "--cache-dir", str(tmp_path), "-q")
    assert built.exit_code == 0, built.output
    assert "built yahtzee/ev" in built.output
    info = run("info", *TINY, "--cache-dir", str(tmp_path), "--json")
    facts = json.loads(info.output)
    assert facts["matches_rules"] is True and facts["format_version"] == 3
    assert facts["states"] > 0
    verified = run("verify", *TINY, "--cache-dir", str(tmp_path))
    assert verified.exit_code == 0 and verified.output.startswith("ok:")
    listed = run("list", "--cache-dir", str(tmp_path))
    assert "yahtzee/ev" in listed.output
    # the Kocka adaptive agent's best reply caches sit in the same folder: named, not
    # "unreadable" (they are no tables: no metadata record)
    import numpy as np

    from kocka.agents.bots.adaptive_kocka import table_path
    from kocka.solver.rules.kocka import KockaRules

    cache = table_path(KockaRules(), "heuristic", tmp_path)
    np.savez(cache, reply=np.zeros(2))
    listed = run("list", "--cache-dir", str(tmp_path))
    line = next(line for line in listed.output.splitlines() if cache.name in line)
    assert "best reply to 'heuristic'" in line and "unreadable" not in listed.output


def test_info_of_a_table_built_for_other_rules_is_an_error(tmp_path):
    run("build", *TINY, "--cache-dir", str(tmp_path), "-q")
    # same file name is impossible (the variant id differs), so move the file to where the
    # other variant's table would be: the recorded variant id must catch it
    other = ["yahtzee", "-r", "boxes=sixes,chance", "-r", "joker=forced"]
    src = next(tmp_path.glob("*.npz"))
    info_other = json.loads(run("info", *TINY, "--cache-dir", str(tmp_path), "--json").output)
    missing = run("info", *other, "--cache-dir", str(tmp_path))
    assert missing.exit_code == 2 and "kocka-solve build yahtzee" in missing.output
    target = missing.output.split("no table at '")[1].split("'")[0]
    src.rename(target)
    stale = run("info", *other, "--cache-dir", str(tmp_path))
    assert stale.exit_code == 2
    assert "was built for rules variant" in stale.output and info_other["variant_id"] in stale.output


def test_corrupt_table_fails_verify(tmp_path):
    run("build", *TINY, "--cache-dir", str(tmp_path), "-q")
    path = next(tmp_path.glob("*.npz"))
    path.write_bytes(path.read_bytes()[:100])
    result = run("verify", *TINY, "--cache-dir", str(tmp_path))
    assert result.exit_code == 2 and "corrupt" in result.output


@pytest.mark.parametrize("args, message", [
    (["build", "chess"], "there is no game chess"),
    (["build", "yahtzee", "-r", "joker=sometimes", "-q"], "joker"),
    (["build", "yahtzee", "-r", "nonsense", "-q"], "key=value"),
    (["build", "yahtzee", "--backend", "carrier-pigeon", "-q"], "unknown backend"),
    (["build", "kockapoker", "--kind", "winprob"], "has no table kind"),
])
def test_bad_input_is_one_clear_error(args, message, tmp_path):
    result = run(*args, "--cache-dir", str(tmp_path))
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not list(tmp_path.glob("*"))  # nothing half-written


# a Kocka race to 600 solves in well under a second
KOCKA_600 = ["kocka", "-r", "target=600", "-r", "series_threshold=300", "-r", "min_bank_points=150", "--players", "2"]
# and the Polish race on a card of the two straights
POLISH_RACE = ["polish-basic", "-r", "boxes=small_straight,large_straight", "--kind", "race"]


@pytest.mark.parametrize("args, fact, recorded", [
    (TINY, "expected_score", lambda table: table.meta.extra["expected_score"]),
    (TINY, "score_std", lambda table: table.meta.extra["distribution_std"]),
    (KOCKA_600, "P(first player wins)", lambda table: float(table["win"][0, 0])),
    (POLISH_RACE, "p_first_player_wins", lambda table: table.meta.extra["p_first_player_wins"]),
], ids=["yahtzee-expected-score", "yahtzee-std", "kocka-race", "polish-race"])
def test_info_json_gives_every_figure_at_full_precision(tmp_path, args, fact, recorded):
    # the figure as the table holds it, to the last bit; the text for people rounds it
    from kocka.solver.base.table_file import read_table

    assert run("build", *args, "--cache-dir", str(tmp_path), "-q").exit_code == 0
    facts = json.loads(run("info", *args, "--cache-dir", str(tmp_path), "--json").output)
    want = recorded(read_table(facts["path"]))
    assert facts[fact] == want and round(want, 6) != want  # more digits than the text shows
    text = run("info", *args, "--cache-dir", str(tmp_path)).output
    assert f"{fact}: {round(want, 6)}\n" in text
