"""Crafted tables against the table reader (issue 24, points 5-8): each attack of the list
is made from a tiny table (a two-box Yahtzee card) in a temporary folder and loaded the way
the seat and ``kocka hint`` load it; the outcome of each is printed, one line each.

    python scripts/attack_tables.py            # the list, with a 2 GiB zip bomb
    python scripts/attack_tables.py --small    # the bomb at 32 MiB (what the tests use)
    python scripts/attack_tables.py --small --kinds kocka/turn_ev abazs/equilibrium

After the crafted files, every table kind a spec names is built on a small variant, its
value arrays halved and its checksum recomputed, and loaded: the load-time spot checks
(:meth:`TableSolver.spot_check`) must refuse each, one line per kind.

Every attack must end in a one-line TableError (or, for the read-only cache, a one-line
error within a second), never a traceback, a MemoryError or a RecursionError, and the
peak memory must stay near the start's. The crafting functions are shared with
``tests/test_table_integrity.py``.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import pathlib
import pickle
import resource
import sys
import tempfile
import time
import zipfile
from typing import Callable

import numpy as np

from kocka.solver.base import table_file
from kocka.solver.base.errors import TableError
from kocka.solver.rules import get_game
from kocka.solver.store import table_store
from kocka.solver.store.table_store import build_table, open_table, solver_for

TINY_RULES = {"boxes": ["sixes", "chance"]}


def tiny_game():
    return get_game("yahtzee", TINY_RULES)


def build_tiny(folder: pathlib.Path) -> pathlib.Path:
    game = tiny_game()
    return build_table(game, solver_for(game.NAME), cache_dir=folder).path


def npy_bytes(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    return out.getvalue()


def npy_header(descr: str, shape: tuple[int, ...]) -> bytes:
    """An npy magic and header declaring ``shape`` of ``descr``, whatever data follows."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()  # the magic string included


def members_of(path: pathlib.Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def write_members(path: pathlib.Path, members: dict[str, bytes | Callable[[zipfile.ZipFile, str], None]],
                  compress: set[str] = frozenset()) -> None:
    """Rewrite the table at ``path`` with ``members`` (bytes, or a writer for a member too
    big to hold in memory), the ones named in ``compress`` deflated."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            method = zipfile.ZIP_DEFLATED if name in compress else zipfile.ZIP_STORED
            if callable(content):
                content(archive, name)
            else:
                archive.writestr(zipfile.ZipInfo(name), content, compress_type=method)


def replace_member(path: pathlib.Path, name: str, content: bytes, compress: bool = False) -> None:
    members = members_of(path)
    members[name] = content
    write_members(path, members, {name} if compress else set())


# ----------------------------------------------------------------------------------------
# The attacks: each damages the tiny table at ``path`` in place
# ----------------------------------------------------------------------------------------
def huge_header(path: pathlib.Path) -> None:
    """``values.npy`` declaring 2^40 float64 values (8 TiB) over its real 32 bytes."""
    data = members_of(path)["values.npy"]
    replace_member(path, "values.npy", npy_header("<f8", (2 ** 40,)) + data[-32:])


def huge_header_and_zip_size(path: pathlib.Path) -> None:
    """As :func:`huge_header`, the zip's central directory declaring 4 GiB for the member."""
    huge_header(path)
    blob = bytearray(path.read_bytes())
    pos = 0
    while (pos := blob.find(b"PK\x01\x02", pos)) >= 0:  # each central-directory entry
        name_len = int.from_bytes(blob[pos + 28:pos + 30], "little")
        if blob[pos + 46:pos + 46 + name_len] == b"values.npy":
            blob[pos + 24:pos + 28] = (2 ** 32 - 2).to_bytes(4, "little")  # its uncompressed size
        pos += 4
    path.write_bytes(bytes(blob))


def deep_meta(path: pathlib.Path) -> None:
    """``__meta__`` a JSON array nested 200,000 deep."""
    depth = 200_000
    replace_member(path, "__meta__.npy", npy_bytes(np.frombuffer(b"[" * depth + b"]" * depth, dtype=np.uint8)))


def pickle_values(path: pathlib.Path) -> None:
    """Raw pickle bytes as ``values.npy`` (a loader that unpickles would run them)."""
    replace_member(path, "values.npy", pickle.dumps(np.zeros(4), protocol=4))


def pickle_meta(path: pathlib.Path) -> None:
    """Raw pickle bytes as ``__meta__.npy``."""
    replace_member(path, "__meta__.npy", pickle.dumps({"game": "yahtzee"}, protocol=4))


def object_values(path: pathlib.Path) -> None:
    """``values.npy`` an object array (numpy stores it as a pickle after the header)."""
    replace_member(path, "values.npy", npy_header("|O", (4,)) + pickle.dumps([0.0] * 4, protocol=4))


def zip_bomb(size_bytes: int) -> Callable[[pathlib.Path], None]:
    """``values.npy`` deflated: a header declaring ``size_bytes`` of float64 zeros and the
    zeros themselves (2 GiB deflate to about 2 MB, 11 MB with the zip's framing)."""
    def attack(path: pathlib.Path) -> None:
        members: dict[str, bytes | Callable] = dict(members_of(path))

        def write(archive: zipfile.ZipFile, name: str) -> None:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as out:
                out.write(npy_header("<f8", (size_bytes // 8,)))
                zeros = bytes(2 ** 24)
                for _ in range(size_bytes // len(zeros)):
                    out.write(zeros)
                out.write(bytes(size_bytes % len(zeros)))

        members["values.npy"] = write
        write_members(path, members)
    attack.__doc__ = f"a deflated values.npy of {size_bytes:,} bytes of zeros"
    return attack


NOT_VALUES = ("prob", "policy", "reward", "off")
"""Floating-point arrays that are no values: a strategy's probabilities, and the rules'
data a table carries for its kernel (fill rewards, tracker offsets)."""


def value_arrays(arrays: dict[str, np.ndarray]) -> list[str]:
    """The arrays of a table that hold values (floating point, none of :data:`NOT_VALUES`):
    what a forger who wants other answers scales."""
    return [name for name, a in arrays.items()
            if name != "__meta__" and a.dtype.kind == "f" and not any(word in name for word in NOT_VALUES)]


def scaled_and_resigned(path: pathlib.Path, factor: float = 0.5, names: list[str] | None = None) -> list[str]:
    """The value arrays (``names``, default :func:`value_arrays`) scaled by ``factor`` and
    the checksum recomputed (the checksum is a plain digest anyone can recompute): a
    table consistent in every way but the rules. Returns the arrays scaled."""
    members = members_of(path)
    arrays = {name[:-4]: np.load(io.BytesIO(data), allow_pickle=False) for name, data in members.items()}
    doc = json.loads(arrays.pop("__meta__").tobytes())
    names = value_arrays(arrays) if names is None else names
    for name in names:
        arrays[name] = (arrays[name] * factor).astype(arrays[name].dtype)
    doc["checksum"] = table_file.checksum(arrays, doc)
    arrays["__meta__"] = np.frombuffer(json.dumps(doc, sort_keys=True).encode(), dtype=np.uint8)
    write_members(path, {f"{name}.npy": npy_bytes(a) for name, a in arrays.items()})
    return names


def halved_and_resigned(path: pathlib.Path) -> None:
    """Every value halved and the checksum recomputed (the checksum is a plain digest)."""
    scaled_and_resigned(path)


def system_file(path: pathlib.Path) -> None:
    """The table a symlink to a system file."""
    path.unlink()
    path.symlink_to("/etc/passwd" if os.path.exists("/etc/passwd") else sys.executable)


ATTACKS: dict[str, Callable[[pathlib.Path], None]] = {
    "header declaring 2^40 float64": huge_header,
    "header and zip directory declaring 8 TiB": huge_header_and_zip_size,
    "__meta__ nested 200,000 deep": deep_meta,
    "pickle bytes as values.npy": pickle_values,
    "pickle bytes as __meta__.npy": pickle_meta,
    "object array as values.npy": object_values,
    "halved values, checksum recomputed": halved_and_resigned,
    "symlink to a system file": system_file,
}


def refusal(path: pathlib.Path, game=None, solver=None) -> str:
    """The one-line refusal of loading ``path`` as the table of ``solver`` for ``game``
    (default: the tiny game's expected-score table), '' if it was used."""
    table_store._LOADED.clear()
    game = game or tiny_game()
    try:
        open_table(game, solver or solver_for(game.NAME), path.parent)
    except TableError as exc:
        return str(exc)
    return ""


# ----------------------------------------------------------------------------------------
# Every table kind, on a variant small enough to build in seconds: the halved-values attack
# ----------------------------------------------------------------------------------------
def small_kinds() -> dict[str, tuple[Callable[[], object], Callable[[], object]]]:
    """``"game/kind": (game factory, solver factory)`` for every table kind a spec names,
    each on a small variant (the solvers the seat uses, or the same solver class sized
    down where the table's size is the solver's: the bidding bluff's chips in play, the
    measured positions)."""
    from kocka.solver.solvers.bluff import bidding, liars, match

    def game(name: str, rules: dict, players: int | None = None) -> Callable[[], object]:
        return lambda: get_game(name, rules, num_players=players)

    def solver(name: str, kind: str) -> Callable[[], object]:
        return lambda: solver_for(name, kind)

    kinds = {
        "yahtzee/ev": (game("yahtzee", TINY_RULES), solver("yahtzee", "ev")),
        "yahtzee/target": (game("yahtzee", {"boxes": ["sixes", "yahtzee", "chance"]}), solver("yahtzee", "target")),
        "kocka/winprob": (game("kocka", {"target": 1000}, 2), solver("kocka", "winprob")),
        "kocka/winprob3": (game("kocka", {"target": 600}, 3), solver("kocka", "winprob3")),
        "kocka/turn_ev": (game("kocka", {"target": 1000}), solver("kocka", "turn_ev")),
        "kocka/turn_reach": (game("kocka", {"target": 1000}), solver("kocka", "turn_reach")),
        "polish/ev": (game("polish", {"boxes": ["fives", "pair"], "stages": 2, "fence_cap": 0}), solver("polish", "ev")),
        "polish-basic/ev": (game("polish-basic", {}), solver("polish-basic", "ev")),
        "polish-basic/race": (game("polish-basic", {"boxes": ["small_straight", "large_straight"]}, 2),
                              solver("polish-basic", "race")),
        "abazs/equilibrium": (game("abazs", {}, 2), solver("abazs", "equilibrium")),
        "bidding-bluff/equilibrium": (game("bidding-bluff", {}, 2),
                                      lambda: bidding.BiddingEquilibriumSolver(max_total=6, measured=((2, 2),))),
        "bidding-bluff/match": (game("bidding-bluff", {"start_chips": 2}, 2), lambda: match.BiddingMatchSolver(measure_steps=0)),
        "liars-poker/equilibrium": (game("liars-poker", {"start_chips": 1}, 2), lambda: liars.LiarsEquilibriumSolver(measured=())),
        "liars-poker/match": (game("liars-poker", {"start_chips": 1}, 2), lambda: match.LiarsMatchSolver(measure_steps=0)),
    }
    return kinds


def halved_kind(folder: pathlib.Path, label: str, make_game: Callable[[], object],
                make_solver: Callable[[], object]) -> tuple[str, str]:
    """Build ``label``'s small table in ``folder``, halve its value arrays with the
    checksum recomputed and load it: (what was halved, the refusal or '')."""
    from kocka.solver.base.build_options import BuildOptions

    game, solver = make_game(), make_solver()
    path = build_table(game, solver, BuildOptions(jobs=1, progress=False), cache_dir=folder).path
    if refusal(path, game, solver):
        return "nothing (the intact table was refused)", "NOT USED INTACT: " + refusal(path, game, solver)
    names = scaled_and_resigned(path)
    return ", ".join(names), refusal(path, game, solver)


def unwritable_folder(base: pathlib.Path) -> pathlib.Path:
    """A cache folder no build can write: read-only by mode, or (for root, whom modes do
    not stop) a folder under a plain file."""
    if os.geteuid() != 0:
        folder = base / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    (base / "a-file").write_text("")
    return base / "a-file" / "cache"


def read_only_build(base: pathlib.Path, game_name: str = "kockapoker") -> tuple[float, float, str, int]:
    """``kocka-solve build GAME --cache-dir <unwritable>``: the seconds of the whole
    process, the seconds from ``main()`` (its imports done) to the refusal, the output and
    the exit code."""
    import subprocess

    folder = unwritable_folder(base)
    clock = base / "read-only-build.seconds"
    command = ("import atexit, sys, time; from kocka.agents.frontends.commands.solve_cli import main; "
               f"start = time.perf_counter(); atexit.register(lambda: open({str(clock)!r}, 'w').write("
               "str(time.perf_counter() - start))); main()")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", command, "build", game_name, "--cache-dir", str(folder), "-q"],
                          capture_output=True, text=True)
    whole = time.perf_counter() - start
    return whole, float(clock.read_text()), (done.stdout + done.stderr).strip(), done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="a 32 MiB zip bomb instead of 2 GiB")
    parser.add_argument("--kinds", nargs="*", metavar="GAME/KIND",
                        help="the table kinds of the halved-values attack (default: every kind, small variants)")
    args = parser.parse_args()
    attacks = dict(ATTACKS)
    bomb = 2 ** 25 if args.small else 2 ** 31
    attacks[f"zip bomb: values.npy of {bomb:,} bytes deflated"] = zip_bomb(bomb)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for number, (name, attack) in enumerate(attacks.items()):
            folder = pathlib.Path(tmp) / str(number)
            path = build_tiny(folder)
            attack(path)
            size = os.path.getsize(path)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            start = time.perf_counter()
            try:
                message = refusal(path)
            except BaseException as exc:  # what the attack list is about: nothing but a TableError
                message, failures = f"NOT REFUSED CLEANLY: {type(exc).__name__}: {exc}", failures + 1
            ms = (time.perf_counter() - start) * 1000
            grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
            ok = message and "\n" not in message and "allow_pickle" not in message and "NOT REFUSED" not in message
            failures += not ok
            print(f"{'refused' if ok else 'used   ' if not message else 'FAILED '}  {name} ({size:,} bytes, {ms:.0f} ms, peak +{grown:.0f} MB): "
                  f"{message or 'the table was used'}")
        kinds = small_kinds()
        for label in args.kinds or kinds:
            if label not in kinds:
                raise SystemExit(f"unknown kind {label!r}; kinds: {', '.join(kinds)}")
            start = time.perf_counter()
            try:
                halved, message = halved_kind(pathlib.Path(tmp) / label.replace("/", "-"), label, *kinds[label])
            except BaseException as exc:  # a traceback here is a failure of the attack list too
                halved, message = "?", f"NOT REFUSED CLEANLY: {type(exc).__name__}: {exc}"
            ok = bool(message) and "\n" not in message and "NOT " not in message and "rebuild it with: kocka-solve build" in message
            failures += not ok
            print(f"{'refused' if ok else 'used   ' if not message else 'FAILED '}  halved values, checksum recomputed, "
                  f"{label} ({halved}; {time.perf_counter() - start:.1f} s with the build): {message or 'the table was used'}",
                  flush=True)
        whole, seconds, output, code = read_only_build(pathlib.Path(tmp))
        ok = code != 0 and len(output.splitlines()) == 1 and seconds < 1.0 and "Traceback" not in output
        failures += not ok
        print(f"{'refused' if ok else 'FAILED '}  build into an unwritable cache ({seconds:.2f} s from the command's "
              f"start, {whole:.2f} s with Python's start and the imports, exit {code}): {output}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
