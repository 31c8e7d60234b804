"""Memory-mapped tables (format 3) and seat worker processes sharing them (issue 28).

The tables are the tiny Yahtzee card of tests/test_table_integrity.py (sixes and chance,
YZ rules): built in a second, every kind of check applies to it. The arrays a mapped load
gives are compared with numpy's own ``np.load`` of the same file (an independent reader),
and with the arrays of the format 2 file the old writer (``np.savez``) makes of them.
"""
from __future__ import annotations

import http.client
import json
import mmap
import re
import signal
import struct
import subprocess
import sys
import pathlib
import urllib.request
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner

from kocka.solver.base import table_file
from kocka.solver.base.errors import TableError
from kocka.solver.rules import get_game
from kocka.solver.store import table_store
from kocka.solver.store.table_store import build_table, open_table, solver_for

TINY_RULES = {"boxes": ["sixes", "chance"]}


@pytest.fixture(autouse=True)
def _fresh_process_cache(monkeypatch):
    monkeypatch.setattr(table_store, "_LOADED", {})


def tiny_game():
    return get_game("yahtzee", TINY_RULES)


def build_tiny(cache) -> pathlib.Path:
    game = tiny_game()
    return build_table(game, solver_for(game.NAME), cache_dir=cache).path


def load_tiny(cache, verify="recorded"):
    return open_table(tiny_game(), solver_for("yahtzee"), cache, verify=verify)


def mapping_of(array: np.ndarray):
    """The buffer at the bottom of ``array``'s chain of bases."""
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return base.obj if isinstance(base, memoryview) else base


def numpy_load(path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def rewrite_as_format_2(path, compress: bool) -> None:
    """The file as kocka's format 2 writer made it (np.savez, members wherever zip puts
    them) or compressed, the checksum recomputed for format 2 metadata."""
    arrays = numpy_load(path)
    doc = json.loads(arrays.pop("__meta__").tobytes())
    doc["format_version"] = 2
    doc["checksum"] = table_file.checksum(arrays, doc)
    write = np.savez_compressed if compress else np.savez
    with open(path, "wb") as fh:
        write(fh, **arrays, __meta__=np.frombuffer(json.dumps(doc, sort_keys=True).encode(), dtype=np.uint8))


def data_offsets(path) -> dict[str, int]:
    """Where each member's array data starts in the file, read from the zip local headers
    and the npy headers by hand (the zip and npy formats, not kocka's reader)."""
    raw = pathlib.Path(path).read_bytes()
    offsets = {}
    for info in zipfile.ZipFile(path).infolist():
        at = info.header_offset
        assert raw[at:at + 4] == b"PK\x03\x04"
        name_len, extra_len = struct.unpack("<HH", raw[at + 26:at + 30])
        npy = at + 30 + name_len + extra_len
        assert raw[npy:npy + 8] == b"\x93NUMPY\x01\x00"
        (header_len,) = struct.unpack("<H", raw[npy + 8:npy + 10])
        offsets[info.filename[:-4]] = npy + 10 + header_len
    return offsets


# ----------------------------------------------------------------------------------------
# Format 3: stored, aligned, mapped
# ----------------------------------------------------------------------------------------
def test_a_new_table_is_format_3_with_every_member_stored_and_64_byte_aligned(tmp_path):
    path = build_tiny(tmp_path)
    assert table_file.TABLE_FORMAT_VERSION == 3
    assert json.loads(numpy_load(path)["__meta__"].tobytes())["format_version"] == 3
    assert all(i.compress_type == zipfile.ZIP_STORED for i in zipfile.ZipFile(path).infolist())
    offsets = data_offsets(path)
    assert set(offsets) == {"__meta__", *solver_for("yahtzee").layout(tiny_game(), load_tiny(tmp_path).meta)}
    assert all(offset % 64 == 0 for offset in offsets.values()), offsets


def test_a_mapped_table_gives_the_arrays_numpy_reads_from_the_file(tmp_path):
    path = build_tiny(tmp_path)
    table = load_tiny(tmp_path, verify="full")
    expected = numpy_load(path)
    del expected["__meta__"]
    assert table.arrays.keys() == expected.keys()
    for name, array in table.arrays.items():
        assert array.dtype == expected[name].dtype and np.array_equal(array, expected[name]), name
        assert isinstance(mapping_of(array), mmap.mmap), name  # a view of the file, not a copy
        assert array.flags.aligned


@pytest.mark.parametrize("compress", [False, True], ids=["format 2 stored", "format 2 compressed"])
def test_an_old_format_2_table_still_loads_with_the_same_arrays(tmp_path, compress):
    path = build_tiny(tmp_path)
    new = {k: np.array(v) for k, v in load_tiny(tmp_path).arrays.items()}
    rewrite_as_format_2(path, compress)
    table_store._LOADED.clear()
    old = load_tiny(tmp_path, verify="full")
    assert old.meta.format_version == 2
    assert old.arrays.keys() == new.keys()
    assert all(np.array_equal(old[k], new[k]) and old[k].dtype == new[k].dtype for k in new)


def test_format_1_is_refused_with_the_rebuild_command(tmp_path):
    path = build_tiny(tmp_path)
    arrays = numpy_load(path)
    doc = json.loads(arrays.pop("__meta__").tobytes())
    doc["format_version"] = 1
    with open(path, "wb") as fh:
        table_file.write_npz(fh, {**arrays, "__meta__": np.frombuffer(json.dumps(doc).encode(), dtype=np.uint8)})
    with pytest.raises(TableError, match=r"has format version 1, this kocka reads 3 and 2; rebuild it with: "
                                         r"kocka-solve build yahtzee"):
        load_tiny(tmp_path)


@pytest.mark.parametrize("compress", [None, False, True], ids=["format 3", "format 2 stored", "format 2 compressed"])
def test_a_loaded_table_is_read_only(tmp_path, compress):
    path = build_tiny(tmp_path)
    if compress is not None:
        rewrite_as_format_2(path, compress)
    table = load_tiny(tmp_path)
    for name, array in table.arrays.items():
        assert not array.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            array.reshape(-1)[:1] = 0
        if isinstance(mapping_of(array), mmap.mmap):  # nor made writeable: the mapping itself is read-only
            with pytest.raises(ValueError):
                array.setflags(write=True)


def test_an_altered_mapped_file_is_refused_by_its_checksum(tmp_path):
    """A byte deep inside a mapped member: zipfile's CRC-32 sees only the first 4 KiB of a
    member (what it reads with the header), so the checksum is what refuses it."""
    game = get_game("yahtzee", {"boxes": ["ones", "twos", "threes", "fours", "fives", "sixes", "chance"]})
    path = build_table(game, solver_for("yahtzee"), cache_dir=tmp_path).path
    values_at, values = data_offsets(path)["values"], numpy_load(path)["values"]
    assert values.nbytes > 16384
    blob = bytearray(path.read_bytes())
    blob[values_at + 8 * (len(values) - 2) + 5] ^= 0x10  # one bit of a stored value; the size unchanged
    path.write_bytes(bytes(blob))
    with pytest.raises(TableError, match="fails its checksum: its arrays or metadata changed after it was built; "
                                         "rebuild it with: kocka-solve build yahtzee"):
        open_table(game, solver_for("yahtzee"), tmp_path)


@pytest.mark.parametrize("cut", [1, 100, 5000])
def test_a_truncated_mapped_file_is_refused(tmp_path, cut):
    path = build_tiny(tmp_path)
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.truncate(size - cut)
    with pytest.raises(TableError, match=r"is corrupt.*rebuild it with: kocka-solve build yahtzee") as refused:
        load_tiny(tmp_path)
    assert "\n" not in str(refused.value)


def test_a_table_replaced_while_mapped_keeps_the_bytes_that_were_verified(tmp_path):
    """Writes are atomic (a new file renamed over the old): a loaded table maps the old
    file, whose bytes no build changes."""
    build_tiny(tmp_path)
    before = load_tiny(tmp_path)
    kept = {k: np.array(v) for k, v in before.arrays.items()}
    arrays = {k: (v * 0.5 if k == "values" else v) for k, v in before.arrays.items()}
    table_file.save_table(before.path, arrays, before.meta)  # the same path, new values
    assert all(np.array_equal(before[k], kept[k]) for k in kept)
    assert np.array_equal(table_file.read_table(before.path)["values"], kept["values"] * 0.5)


# ----------------------------------------------------------------------------------------
# kocka seat --http --workers N
# ----------------------------------------------------------------------------------------
def test_workers_are_checked_before_anything_starts():
    from kocka.agents.frontends.commands.kocka_cli import main

    runner = CliRunner()
    cases = {
        ("--http", "127.0.0.1:0", "--workers", "0"): "--workers must be 1 to 64 processes, got 0",
        ("--workers", "2"): "are for --http",
        ("--http", "127.0.0.1:0", "--workers", "2", "--build-missing"): "--build-missing builds a table inside a request",
    }
    for args, message in cases.items():
        outcome = runner.invoke(main, ["seat", *args], env={"KOCKA_LANG": "en"})
        assert outcome.exit_code == 2 and message in outcome.output, (args, outcome.output)


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())


def test_two_workers_serve_requests_on_one_address_and_quit_stops_them_all():
    """The CLI end to end: two uvicorn worker processes (spawned: each imports kocka; the
    test takes 3-9 s, most of it those imports on a loaded machine), a request answered,
    a foreign Host refused, and quit (--allow-quit) ending the supervisor and both workers."""
    kocka = pathlib.Path(sys.executable).with_name("kocka")
    seat = subprocess.Popen([str(kocka), "seat", "--http", "127.0.0.1:0", "--workers", "2", "--allow-quit"],
                            stderr=subprocess.PIPE, text=True)
    try:
        announce = seat.stderr.readline()
        assert "(2 worker processes)" in announce, announce
        url = re.search(r"http://127\.0\.0\.1:\d+/", announce).group(0)
        answer = _post(url, {"id": 7, "method": "score", "game": "kockapoker", "dice": [3, 3, 3, 5, 5]})
        # HU-6: szemét is the sum of the five dice, 3+3+3+5+5; drill three 3s; HU-5: two 5s give (2-3)x5
        assert answer["id"] == 7
        assert (answer["result"]["points"]["chance"], answer["result"]["points"]["three_kind"],
                answer["result"]["points"]["fives"]) == (19, 9, -5)
        workers = [pid for pid in pathlib.Path(f"/proc/{seat.pid}/task/{seat.pid}/children").read_text().split()
                   if b"spawn_main" in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(workers) == 2
        # the guards of one process hold in each worker: a foreign Host is refused (DNS rebinding)
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        for _ in range(4):  # new connections, accepted by either worker
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", "/", headers={"Host": "evil.example"})
            assert conn.getresponse().status == 403
            conn.close()
        assert _post(url, {"id": 8, "method": "quit"})["id"] == 8
        assert seat.wait(60) == 0
        assert not any(pathlib.Path(f"/proc/{pid}").exists() and
                       "zombie" not in pathlib.Path(f"/proc/{pid}/status").read_text() for pid in workers)
    finally:
        if seat.poll() is None:
            seat.send_signal(signal.SIGTERM)
            seat.wait(30)
