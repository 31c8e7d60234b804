"""A damaged table is never used (issue 12): every load checks the format, the recorded
rules against the variant id, the arrays against the solver's declared layout, and the
checksum over arrays and metadata (or the verified record of an unchanged file).

Each damage is made to a tiny table (a two-box Yahtzee card, built in milliseconds) and
must be refused by :func:`get_table`, ``kocka hint``, ``kocka-solve info`` and the seat's
``rank``, with one line naming the file, what is wrong and the rebuild command.
"""
from __future__ import annotations

import json
import os
import random
import time
import zipfile
from typing import Any, Callable

import numpy as np
import pytest
from click.testing import CliRunner

from kocka.solver.store import table_store
from kocka.solver.base import table_file
from kocka.solver.base.errors import TableError
from kocka.solver.store.table_store import build_table, get_table, open_table, path_for, solver_for
from kocka.solver.rules import get_game
from kocka.solver.base.table_file import TABLE_FORMAT_VERSION, check_layout, verified_path
from script_modules import script_module

TINY_RULES = {"boxes": ["sixes", "chance"]}
TINY_CLI_RULES = ["-r", "boxes=sixes,chance"]
REBUILD = "rebuild it with: kocka-solve build yahtzee -r boxes=sixes,chance --cache-dir "


@pytest.fixture(autouse=True)
def _fresh_process_cache(monkeypatch):
    """get_table shares loaded tables per process; every test here loads its own file."""
    monkeypatch.setattr(table_store, "_LOADED", {})


def tiny_game():
    return get_game("yahtzee", TINY_RULES)


def build_tiny(cache) -> Any:
    game = tiny_game()
    return build_table(game, solver_for(game.NAME), cache_dir=cache).path


def mid_game_state() -> dict:
    """Sixes written (18), the chance box open, 1 2 3 4 6 thrown once."""
    game = tiny_game()
    state = game.apply(game.new_initial_state(), (1, 2, 6, 6, 6))
    state = game.apply(state, game.action_from_json({"type": "Fill", "box": "sixes"}))
    return game.state_to_json(game.apply(state, (1, 2, 3, 4, 6)))


# ----------------------------------------------------------------------------------------
# The damages: each rewrites the file in place as a valid .npz (same inode, as an editor
# or a careless script would), keeping the metadata record byte for byte unless it is
# what the damage edits.
# ----------------------------------------------------------------------------------------
def rewrite(path, change: Callable[[dict[str, np.ndarray], dict[str, Any]], None], *, resign: bool = False) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    raw = arrays.pop("__meta__")
    doc = json.loads(raw.tobytes())
    change(arrays, doc)
    if resign:  # a forger who recomputes the checksum: the other checks must still hold
        doc["checksum"] = table_file.checksum(arrays, doc)
    text = json.dumps(doc, sort_keys=True).encode()
    assert resign or text == raw.tobytes() or change in (blank_checksum, edit_rules, edit_expected_score, old_format)
    with open(path, "wb") as fh:  # in place, in the layout save_table writes (same size, same inode)
        table_file.write_npz(fh, {**arrays, "__meta__": np.frombuffer(text, dtype=np.uint8)})


def halve_values(arrays, doc):
    arrays["values"] = arrays["values"] * 0.5


def float32_values(arrays, doc):
    arrays["values"] = arrays["values"].astype(np.float32)


def drop_tclass(arrays, doc):
    del arrays["tclass"]


def shorten_values(arrays, doc):
    arrays["values"] = arrays["values"][:-1]


def blank_checksum(arrays, doc):
    doc["checksum"] = ""


def edit_rules(arrays, doc):
    assert doc["rules"]["joker"] == "free"
    doc["rules"]["joker"] = "forced"  # the variant id (and so the file name) unchanged


def edit_expected_score(arrays, doc):
    doc["extra"]["expected_score"] *= 0.5  # shown in every hint's notes


def old_format(arrays, doc):
    doc["format_version"] = 1


def flip_a_byte(path, seed: int = 0) -> None:
    """Flip one random byte inside the stored ``values`` array (npy header or data)."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("values.npy")
    blob = bytearray(path.read_bytes())
    name_len, extra_len = int.from_bytes(blob[info.header_offset + 26:info.header_offset + 28], "little"), \
        int.from_bytes(blob[info.header_offset + 28:info.header_offset + 30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    at = random.Random(seed).randrange(start, start + info.compress_size)
    blob[at] ^= 0xFF
    with open(path, "r+b") as fh:
        fh.write(blob)


DAMAGES = {
    "values x 0.5": (lambda p: rewrite(p, halve_values), "fails its checksum"),
    "float32 values": (lambda p: rewrite(p, float32_values), "array 'values' has dtype '<f4', not '<f8'"),
    "missing array": (lambda p: rewrite(p, drop_tclass), "lacks the array(s) 'tclass'"),
    "shortened array": (lambda p: rewrite(p, shorten_values), "array 'values' has shape (3,), not (4,)"),
    "blank checksum": (lambda p: rewrite(p, blank_checksum), "has no checksum"),
    "rules edited in the metadata": (lambda p: rewrite(p, edit_rules), "records the rules"),
    "metadata fact edited": (lambda p: rewrite(p, edit_expected_score), "fails its checksum"),
    "format 1": (lambda p: rewrite(p, old_format), f"has format version 1, this kocka reads {TABLE_FORMAT_VERSION}"),
    "random byte flip": (flip_a_byte, "is corrupt"),  # zip's CRC-32 sees it before the sha256
}


def assert_one_line_refusal(message: str, path, phrase: str) -> None:
    assert "Traceback" not in message
    lines = [line for line in message.splitlines() if line.strip()]
    assert len(lines) == 1, message
    assert repr(str(path)) in lines[0], message
    assert phrase in lines[0], message
    assert REBUILD + str(path.parent) in lines[0], message


@pytest.fixture
def damaged(request, tmp_path):
    """(path, phrase) of the tiny table with the damage named by the test's parameter."""
    path = build_tiny(tmp_path)
    damage, phrase = DAMAGES[request.param]
    damage(path)
    return path, phrase


# ----------------------------------------------------------------------------------------
# The four ways in: get_table, kocka hint, kocka-solve info, the seat's rank
# ----------------------------------------------------------------------------------------
def via_get_table(path) -> str:
    with pytest.raises(TableError) as exc:
        get_table(tiny_game(), cache_dir=path.parent)
    return str(exc.value)


def via_hint(path) -> str:
    from kocka.agents.frontends.commands.kocka_cli import main

    result = CliRunner().invoke(main, ["hint", "yahtzee", *TINY_CLI_RULES, "--state", json.dumps(mid_game_state()),
                                       "--cache-dir", str(path.parent)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.output.removeprefix("error: ")


def via_info(path) -> str:
    from kocka.agents.frontends.commands.solve_cli import main

    result = CliRunner().invoke(main, ["info", "yahtzee", *TINY_CLI_RULES, "--cache-dir", str(path.parent)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.output.removeprefix("error: ")


def via_seat_rank(path) -> str:
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions

    seat = Seat(SeatOptions(cache_dir=path.parent))
    line = seat.handle_line(json.dumps({"id": 1, "method": "rank", "state": mid_game_state(), "agent": "optimal"}))
    response = json.loads(line)
    assert "error" in response, response
    assert response["error"]["code"] == "table_missing", response
    return response["error"]["message"].removeprefix("agent 'optimal' needs a value table: ")


WAYS_IN = {"get_table": via_get_table, "kocka hint": via_hint, "kocka-solve info": via_info, "seat rank": via_seat_rank}


@pytest.mark.parametrize("damaged", list(DAMAGES), indirect=True)
@pytest.mark.parametrize("way_in", list(WAYS_IN))
def test_a_damaged_table_is_refused_in_one_line(damaged, way_in):
    path, phrase = damaged
    assert_one_line_refusal(WAYS_IN[way_in](path), path, phrase)


def test_the_undamaged_table_serves_every_way_in(tmp_path):
    """The control: the same requests on the intact table give the hand-computed value."""
    from kocka.agents.frontends.commands.kocka_cli import main as kocka
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions
    from kocka.agents.frontends.commands.solve_cli import main as kocka_solve

    build_tiny(tmp_path)
    # the chance box with two throws left: keep the 6, a rerolled die is worth E2 = 4.25
    # (keep 4..6 of the first reroll, else 3.5), so 18 (sixes) + 6 + 4 x 4.25 = 41
    e2 = 3 / 6 * 5 + 3 / 6 * 3.5
    assert get_table(tiny_game(), cache_dir=tmp_path)["values"].shape == (4,)
    hint = CliRunner().invoke(kocka, ["hint", "yahtzee", *TINY_CLI_RULES, "--state", json.dumps(mid_game_state()),
                                      "--cache-dir", str(tmp_path), "--json"])
    assert hint.exit_code == 0, hint.output
    best = json.loads(hint.output)["actions"][0]
    assert best["action"] == "keep 6" and best["value"] == pytest.approx(18 + 6 + 4 * e2)
    info = CliRunner().invoke(kocka_solve, ["info", "yahtzee", *TINY_CLI_RULES, "--cache-dir", str(tmp_path), "--json"])
    assert info.exit_code == 0 and json.loads(info.output)["format_version"] == TABLE_FORMAT_VERSION
    seat = Seat(SeatOptions(cache_dir=tmp_path))
    ranked = json.loads(seat.handle_line(json.dumps(
        {"id": 1, "method": "rank", "state": mid_game_state(), "agent": "optimal"})))["result"]["actions"]
    assert ranked[0]["value"] == pytest.approx(18 + 6 + 4 * e2)


# ----------------------------------------------------------------------------------------
# The checks do not lean on one another
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("change, phrase", [
    (float32_values, "array 'values' has dtype '<f4', not '<f8'"),
    (drop_tclass, "lacks the array(s) 'tclass'"),
    (shorten_values, "array 'values' has shape (3,), not (4,)"),
    (edit_rules, "records the rules"),
    (lambda arrays, doc: arrays.update(extra=np.zeros(3)), "holds unexpected array(s) 'extra'"),
    (lambda arrays, doc: arrays.update(tclass=arrays["tclass"][:, :-1]), "array 'tclass' has shape (2, 30), not (2, 31)"),
    (lambda arrays, doc: arrays.update(nflag=arrays["nflag"].astype(np.int64)), "array 'nflag' has dtype '<i8', not '|i1'"),
    (lambda arrays, doc: arrays.update(values=arrays["values"][:, None]), "array 'values' has shape (4, 1), not (4,)"),
    (lambda arrays, doc: doc["rules"].update(joker="sometimes"), "records rules that are not valid yahtzee rules"),
    (lambda arrays, doc: doc["extra"].pop("states"), "has metadata its solver cannot read: KeyError('states')"),
])
def test_a_forged_checksum_does_not_hide_a_wrong_layout_or_rules(tmp_path, change, phrase):
    path = build_tiny(tmp_path)
    rewrite(path, change, resign=True)
    assert_one_line_refusal(via_get_table(path), path, phrase)


def test_every_byte_flip_is_refused_or_leaves_the_content_intact(tmp_path):
    """Anywhere in the file: either a one-line refusal, or (a zip field nothing reads, such
    as a time stamp) arrays and metadata identical to the intact table's."""
    path = build_tiny(tmp_path)
    game, solver = tiny_game(), solver_for("yahtzee")
    intact = open_table(game, solver, tmp_path)
    original = path.read_bytes()
    rng = random.Random(12)
    refused = 0
    for at in rng.sample(range(len(original)), 80):
        blob = bytearray(original)
        blob[at] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(blob))
        try:
            table = open_table(game, solver, tmp_path, verify="full")
        except TableError as exc:
            assert "\n" not in str(exc) and repr(str(path)) in str(exc)
            refused += 1
            continue
        assert table.meta == intact.meta
        assert table.arrays.keys() == intact.arrays.keys()
        assert all(np.array_equal(table[k], intact[k]) and table[k].dtype == intact[k].dtype for k in table.arrays)
    assert refused > 60  # nearly every byte of a small table is array data or metadata


# ----------------------------------------------------------------------------------------
# The verified record: the full hash once per file, never for a changed file
# ----------------------------------------------------------------------------------------
@pytest.fixture
def hashes(monkeypatch) -> list[int]:
    """Counts full checksums; the record's age margin at 0, so a record written a few
    clock ticks after the table counts (the 2 s default only delays it)."""
    calls: list[int] = []
    real = table_file.checksum

    def counting(arrays, meta):
        calls.append(1)
        return real(arrays, meta)

    monkeypatch.setattr(table_file, "checksum", counting)
    monkeypatch.setattr(table_file, "_RACY_NS", 0)
    return calls


def _trusted_record(tmp_path, hashes):
    path = build_tiny(tmp_path)
    hashes.clear()  # the build's own checksum
    time.sleep(0.05)  # file times tick coarsely: the record must be written in a later tick
    game, solver = tiny_game(), solver_for("yahtzee")
    open_table(game, solver, tmp_path)
    assert verified_path(path).is_file() and len(hashes) == 1
    open_table(game, solver, tmp_path)
    assert len(hashes) == 1  # the unchanged file was not hashed again
    return path


def test_the_record_spares_the_hash_of_an_unchanged_file(tmp_path, hashes):
    path = _trusted_record(tmp_path, hashes)
    record = json.loads(verified_path(path).read_text())
    st = os.stat(path)
    assert record["size"] == st.st_size and record["mtime_ns"] == st.st_mtime_ns and record["inode"] == st.st_ino


@pytest.mark.parametrize("keep_mtime", [False, True])
def test_the_record_never_vouches_for_a_changed_file(tmp_path, hashes, keep_mtime):
    path = _trusted_record(tmp_path, hashes)
    before = os.stat(path)
    rewrite(path, halve_values)  # same size, same inode
    if keep_mtime:  # put the old mtime back: the ctime still moves
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_ino) == (before.st_size, before.st_ino)
    with pytest.raises(TableError, match="fails its checksum"):
        open_table(tiny_game(), solver_for("yahtzee"), tmp_path)
    assert len(hashes) == 2


def test_a_fresh_file_gets_no_record_until_it_is_old_enough(tmp_path, monkeypatch):
    calls = []
    real = table_file.checksum
    monkeypatch.setattr(table_file, "checksum", lambda arrays, meta: calls.append(1) or real(arrays, meta))
    path = build_tiny(tmp_path)  # just written: younger than the 2 s margin
    calls.clear()
    for _ in range(2):
        open_table(tiny_game(), solver_for("yahtzee"), tmp_path)
    assert len(calls) == 2 and not verified_path(path).exists()


def test_verify_ignores_the_record(tmp_path, hashes):
    """``kocka-solve verify`` always hashes: a record that lies (forged here to match the
    halved file, as bit rot under an unchanged stat would) does not fool it."""
    from kocka.agents.frontends.commands.solve_cli import main

    path = _trusted_record(tmp_path, hashes)
    rewrite(path, halve_values)
    st = os.stat(path)
    record = json.loads(verified_path(path).read_text())
    record.update(size=st.st_size, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns, inode=st.st_ino)
    verified_path(path).write_text(json.dumps(record))
    time.sleep(0.05)
    verified_path(path).write_text(json.dumps(record))  # the record now newer than the file
    with pytest.raises(TableError, match="disagrees with the rules"):  # the record spares the hash,
        open_table(tiny_game(), solver_for("yahtzee"), tmp_path)  # not the load's spot check
    result = CliRunner().invoke(main, ["verify", "yahtzee", *TINY_CLI_RULES, "--cache-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert_one_line_refusal(result.output.removeprefix("error: "), path, "fails its checksum")


def test_a_rebuild_replaces_the_record(tmp_path, hashes):
    path = _trusted_record(tmp_path, hashes)
    build_tiny(tmp_path)
    assert not verified_path(path).exists()


# ----------------------------------------------------------------------------------------
# Every solver's declared layout fits what it builds, and refuses what it does not
# ----------------------------------------------------------------------------------------
LAYOUT_CASES = [
    ("yahtzee", TINY_RULES, None),
    ("slovak", {}, None),
    ("kocka", {"target": 1000}, "turn_ev"),
    ("kocka", {"target": 1000}, "turn_reach"),
    ("kocka", {"target": 1000}, "winprob"),
    ("polish", {"boxes": ["fives", "pair"], "stages": 2, "fence_cap": 0}, None),
    ("polish-basic", {}, None),
]  # abazs (6 s to build) is loaded through get_table by the equilibrium agent's tests


@pytest.mark.parametrize("name, rules, kind", LAYOUT_CASES)
def test_every_layout_fits_its_fresh_table_and_refuses_a_changed_one(tmp_path, name, rules, kind):
    game = get_game(name, rules, num_players=2 if kind == "winprob" else None)
    solver = solver_for(game.NAME, kind)
    table = build_table(game, solver, cache_dir=tmp_path)
    layout = solver.layout(game, table.meta)
    check_layout(table, layout)
    assert open_table(game, solver, tmp_path, verify="full").arrays.keys() == table.arrays.keys()
    first = next(k for k, (shape, _) in layout.items() if shape and shape[0] is not None)
    for changed in (table[first].astype(np.float32 if table[first].dtype != np.float32 else np.float64),
                    table[first][:-1], table[first][None]):
        bad = table_file.Table({**table.arrays, first: changed}, table.meta, table.path)
        with pytest.raises(TableError, match=repr(first)):
            check_layout(bad, layout)
    with pytest.raises(TableError, match="lacks the array"):
        check_layout(table_file.Table({k: v for k, v in table.arrays.items() if k != first}, table.meta, table.path), layout)


def test_a_missing_table_still_names_the_build_command(tmp_path):
    message = via_get_table(path_for(tiny_game(), solver_for("yahtzee"), tmp_path))
    assert "no yahtzee/ev table" in message and "build it with: kocka-solve build yahtzee" in message


# ----------------------------------------------------------------------------------------
# Crafted tables (issue 24): refused from their headers, in one line, before any array
# is inflated; the attacks are scripts/attack_tables.py's
# ----------------------------------------------------------------------------------------
attacks = script_module("attack_tables")
CRAFTED = {
    "huge header": (attacks.huge_header, "declares 1,099,511,627,776 values of <f8"),
    "huge header and zip size": (attacks.huge_header_and_zip_size, "which do not fit in the file"),
    "deep metadata": (attacks.deep_meta, "nests deeper than"),
    "pickle values": (attacks.pickle_values, "tables never contain pickled objects"),
    "pickle metadata": (attacks.pickle_meta, "tables never contain pickled objects"),
    "object array": (attacks.object_values, "tables never contain pickled objects"),
    "zip bomb": (attacks.zip_bomb(2 ** 22), "array 'values' has shape (524288,), not (4,)"),
    "halved values, checksum recomputed": (attacks.halved_and_resigned, "disagrees with the rules"),
    "system file": (attacks.system_file, "is not a kocka table"),
}


@pytest.mark.parametrize("attack", list(CRAFTED))
def test_a_crafted_table_is_refused_in_one_line(tmp_path, attack):
    damage, phrase = CRAFTED[attack]
    path = build_tiny(tmp_path)
    damage(path)
    message = via_get_table(path)
    assert_one_line_refusal(message, path, phrase)
    assert "allow_pickle" not in message


def test_a_zip_bomb_is_not_inflated(tmp_path, monkeypatch):
    """The bomb's header alone is read: no stream is read past its first kilobyte."""
    path = build_tiny(tmp_path)
    attacks.zip_bomb(2 ** 22)(path)
    reads = []
    real_open = zipfile.ZipFile.open

    def counting_open(self, name, *args, **kwargs):
        stream = real_open(self, name, *args, **kwargs)
        real_read = stream.read
        stream.read = lambda n=-1: reads.append(n) or real_read(n)
        return stream

    monkeypatch.setattr(zipfile.ZipFile, "open", counting_open)
    with pytest.raises(TableError, match="has shape"):
        open_table(tiny_game(), solver_for("yahtzee"), tmp_path)
    assert reads and all(0 <= n <= 10_000 for n in reads)


def test_a_compressed_member_within_its_layout_is_read(tmp_path):
    """np.savez_compressed's deflated members are tables too, read through the bounded stream."""
    path = build_tiny(tmp_path)
    members = attacks.members_of(path)
    attacks.write_members(path, members, compress=set(members))
    assert get_table(tiny_game(), cache_dir=tmp_path)["values"].shape == (4,)


# ----------------------------------------------------------------------------------------
# Builds check their destination before they compute, and clean up after dead builds
# ----------------------------------------------------------------------------------------
def _counting_build(monkeypatch) -> list[int]:
    solver = solver_for("yahtzee")
    calls: list[int] = []
    real = type(solver).build
    monkeypatch.setattr(type(solver), "build", lambda self, game, options: calls.append(1) or real(self, game, options))
    return calls


def test_a_read_only_cache_fails_in_one_line_before_the_build(tmp_path, monkeypatch):
    from kocka.agents.frontends.commands.solve_cli import main

    calls = _counting_build(monkeypatch)
    folder = attacks.unwritable_folder(tmp_path)
    start = time.perf_counter()
    result = CliRunner().invoke(main, ["build", "yahtzee", *TINY_CLI_RULES, "--cache-dir", str(folder), "-q"])
    assert time.perf_counter() - start < 1.0
    assert result.exit_code == 2 and result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot write tables to") and "Traceback" not in result.output
    assert calls == []


def test_a_full_disk_fails_before_the_build(tmp_path, monkeypatch):
    calls = _counting_build(monkeypatch)
    monkeypatch.setattr(table_file.shutil, "disk_usage", lambda p: type("Usage", (), {"free": 1000})())
    with pytest.raises(TableError, match="not enough space"):
        build_tiny(tmp_path)
    assert calls == []


def test_a_failed_build_missing_is_not_retried_per_request(tmp_path, monkeypatch):
    calls = _counting_build(monkeypatch)
    monkeypatch.setattr(table_store, "_FAILED_BUILDS", {})
    folder = attacks.unwritable_folder(tmp_path)
    messages = []
    for _ in range(3):
        with pytest.raises(TableError) as exc:
            get_table(tiny_game(), cache_dir=folder, build_missing=True, announce=lambda m: None)
        messages.append(str(exc.value))
    assert calls == [] and all("cannot write tables to" in m and "\n" not in m for m in messages)
    assert "not retried" in messages[-1]


def test_the_seat_answers_table_missing_when_build_missing_fails(tmp_path, monkeypatch):
    from kocka.agents.frontends.seat.protocol import Seat, SeatOptions

    monkeypatch.setattr(table_store, "_FAILED_BUILDS", {})
    calls = _counting_build(monkeypatch)
    seat = Seat(SeatOptions(cache_dir=attacks.unwritable_folder(tmp_path), build_missing=True))
    for i in range(3):
        response = json.loads(seat.handle_line(json.dumps(
            {"id": i, "method": "rank", "state": mid_game_state(), "agent": "optimal"})))
        assert response["error"]["code"] == "table_missing", response
        assert "cannot write tables to" in response["error"]["message"]
    assert calls == []


def test_a_stale_temporary_file_is_listed_and_removed_by_the_next_build(tmp_path):
    from kocka.agents.frontends.commands.solve_cli import main

    path = build_tiny(tmp_path)
    stale = path.with_name(path.name + ".k9x1.tmp")  # what kill -9 during a write leaves
    stale.write_bytes(b"PK\x03\x04 half a table")
    old = time.time() - 60
    os.utime(stale, (old, old))
    listed = CliRunner().invoke(main, ["list", "--cache-dir", str(tmp_path)]).output
    assert f"{stale.name}: temporary file" in listed and "stale" in listed
    build_tiny(tmp_path)
    assert not stale.exists()
    assert "temporary file" not in CliRunner().invoke(main, ["list", "--cache-dir", str(tmp_path)]).output


def test_a_live_write_is_not_taken_for_stale(tmp_path):
    path = build_tiny(tmp_path)
    live = path.with_name(path.name + ".live.tmp")
    with open(live, "wb") as fh:
        table_file._lock(fh)
        old = time.time() - 60
        os.utime(live, (old, old))
        assert table_file.temporary_files(path) == [live] and not table_file.is_stale(live)
        assert table_file.remove_stale_temporaries(path) == []
    assert table_file.is_stale(live)


# ----------------------------------------------------------------------------------------
# Tables that cannot lie (issue 24, point 6): every load re-solves a few states from the
# rules, so a table whose values were halved and its checksum recomputed is refused, for
# every kind; scripts/attack_tables.py runs the same attack on every kind
# ----------------------------------------------------------------------------------------
class OneClassLiars(__import__("kocka.solver.solvers.bluff.liars", fromlist=["x"]).LiarsEquilibriumSolver):
    """The liar's poker round table of one public-roll class (the class of [6,6,6]) only:
    the same stages, rows and layout as the full table's (48 s to build at 1 chip each),
    in about a second; the spot check draws among the public rolls a table holds."""

    def build(self, game, options):
        from kocka.solver.solvers.bluff import liars

        members = next(c for c in liars.public_classes(game) if (6, 6, 6) in c)
        total = 2 * game.rules.start_chips
        rows = liars.solve_liars_class(game.rules, members, total)
        return liars.liars_arrays(rows, len(game.claims()), total), {"total": total}


def _small_kind(label: str):
    make_game, make_solver = attacks.small_kinds()[label]
    return make_game(), (OneClassLiars(measured=()) if label == "liars-poker/equilibrium" else make_solver())


SPOT_CHECKED = ["yahtzee/target", "kocka/turn_ev", "kocka/turn_reach", "abazs/equilibrium", "bidding-bluff/equilibrium",
                "bidding-bluff/match", "liars-poker/equilibrium", "liars-poker/match"]
"""The kinds whose load-time spot checks came with issue 24 (the others': the tests above)."""


@pytest.fixture
def small_table(request, tmp_path):
    """(game, solver, path) of the kind named by the test's parameter, built small into
    ``tmp_path`` (the liar's poker match and Abázs, some ten seconds each to build: the
    run's shared tables, tests/conftest.py, copied; each asked for only by its own kind,
    so that a run of the other kinds builds neither)."""
    import shutil

    from kocka.solver.base.build_options import BuildOptions

    label = request.param
    game, solver = _small_kind(label)
    if label == "liars-poker/match":
        source = request.getfixturevalue("liars_match_table").path
    elif label == "abazs/equilibrium":
        source = request.getfixturevalue("abazs_equilibrium_table").path
    else:
        return game, solver, build_table(game, solver, BuildOptions(jobs=1, progress=False), cache_dir=tmp_path).path
    path = tmp_path / source.name
    shutil.copyfile(source, path)
    return game, solver, path


def _open_message(game, solver, path) -> str:
    with pytest.raises(TableError) as exc:
        open_table(game, solver, path.parent)
    return str(exc.value)


@pytest.mark.parametrize("small_table", SPOT_CHECKED, indirect=True)
def test_a_halved_table_with_a_recomputed_checksum_is_refused_and_the_intact_one_used(small_table):
    """The intact table passes the spot check (its states are what the rules give from the
    states they lead to, RULES.md KOCKA-*, BLUFF-*, the scorecard's boxes) and loads; the
    same table with its value arrays halved and the checksum recomputed passes every other
    check (format, layout, checksum) and is refused in one line naming the rebuild
    command."""
    game, solver, path = small_table
    intact = open_table(game, solver, path.parent, verify="full")
    assert solver.spot_check(game, intact, 0) == [] and solver.spot_check(game, intact, 1) == []
    halved = attacks.scaled_and_resigned(path)
    assert halved and all(name in intact.arrays for name in halved)
    message = _open_message(game, solver, path)
    assert "\n" not in message and "Traceback" not in message
    assert repr(str(path)) in message and "disagrees with the rules" in message, message
    assert f"rebuild it with: {table_store.build_command(game, solver, path.parent)}" in message


@pytest.mark.parametrize("small_table", ["yahtzee/ev"], indirect=True)
def test_an_ev_table_with_its_values_and_fill_points_scaled_together_is_refused(small_table):
    """Halving the values together with the stored points of every fill and the tracker
    offsets keeps the table consistent with its own recurrence; the load check holds the
    stored points to the rules' scoring (the Yahtzee boxes of RULES.md's validation
    variant), so it is refused."""
    game, solver, path = small_table
    attacks.scaled_and_resigned(path, names=["values", "fill_rewards", "special_rewards", "toffset", "dist_probs"])
    message = _open_message(game, solver, path)
    assert "differ from the rules' scoring" in message and "\n" not in message, message


@pytest.mark.parametrize("small_table", ["abazs/equilibrium"], indirect=True)
def test_an_abazs_table_with_other_challenge_payoffs_is_refused(small_table):
    """Scaling every payoff and value of an equilibrium keeps it an equilibrium (of another
    game): the spot check holds the challenge payoffs to BLUFF-10's +-1 chip (the round;
    the match adds the value of starting next), so halving them with the values is refused."""
    game, solver, path = small_table
    attacks.scaled_and_resigned(path, names=["round_challenged", "round_stage_value"])
    assert "a challenge pays [0.5, -0.5], the rules [1.0, -1.0]" in _open_message(game, solver, path)


def test_a_forged_run_offset_never_reaches_the_target_kernel(tmp_path):
    """The target kernel reads runs by the stored offsets (C pointers): a table whose
    offsets point outside its values (checksum recomputed) is refused before the kernel
    runs, in one line."""
    game, solver = _small_kind("yahtzee/target")
    path = build_table(game, solver, cache_dir=tmp_path).path

    def forge(arrays, doc):
        arrays["reach_off"] = arrays["reach_off"] + 10 ** 9

    rewrite(path, forge, resign=True)
    message = _open_message(game, solver, path)
    assert "disagrees with the rules" in message and "run offsets are not a partition" in message, message
