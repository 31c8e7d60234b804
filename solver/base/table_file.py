"""On-disk value tables: atomic writes, recorded rules variant, format version, checksum.

A table is one uncompressed ``.npz`` file holding named numpy arrays plus a JSON
metadata record (``__meta__``). Loading checks, before any value is used, the format
version, the game, the table kind, the rules variant id, that the recorded rules give
that variant id, the names, shapes and dtypes of the arrays against the solver's
declared layout, and the checksum over the arrays and the metadata: a table built for
other rules, or damaged in any way the checksum sees, is an error
(:class:`~kocka.solver.base.errors.TableError`), never a silent wrong answer.

The full checksum costs more than reading a table (sha256 runs at about 2 GB/s, a
memory copy at several), so a file that passed it gets a *verified record* beside it
(``<table>.npz.verified``): its size, mtime, ctime, inode and device, and the checksum.
Later loads of an unchanged file trust the record; any write to the file, or ``touch``,
changes its ctime, so a changed file is hashed again (docs/SOLVER.md, "Table integrity").
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import struct
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from kocka.solver.base.errors import TableError

TABLE_FORMAT_VERSION = 2
"""2: the checksum covers the metadata as well as the arrays (issue 12)."""
_META_KEY = "__meta__"
VERIFIED_SUFFIX = ".verified"
_RACY_NS = 2_000_000_000
"""A verified record vouches only for a file last changed this long before the record was
written (both times from the file system's clock). A later change then always gets a
newer mtime and ctime, even where file times tick coarsely; the margin covers the clock
stepping back a little (git's "racily clean" problem)."""
VERIFY_MODES = ("recorded", "full")

Layout = Mapping[str, tuple[tuple[int | None, ...], Any]]
"""What a solver declares its table holds: array name -> (shape, dtype); an int is an
exact length, None a length only the data decides (the number of axes still counts)."""


@dataclass(frozen=True)
class TableMeta:
    """What a table was built for, and how."""

    game: str
    kind: str
    variant_id: str
    rules: Mapping[str, Any]
    format_version: int = TABLE_FORMAT_VERSION
    checksum: str = ""
    built_at: str = ""
    build_seconds: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {
                "game": self.game,
                "kind": self.kind,
                "variant_id": self.variant_id,
                "rules": dict(self.rules),
                "format_version": self.format_version,
                "checksum": self.checksum,
                "built_at": self.built_at,
                "build_seconds": self.build_seconds,
                "extra": dict(self.extra),
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> "TableMeta":
        doc = json.loads(text)
        return cls(**doc)


@dataclass(frozen=True)
class Table:
    """A loaded (or freshly built) table: arrays by name and their metadata."""

    arrays: Mapping[str, np.ndarray]
    meta: TableMeta
    path: pathlib.Path | None = None

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]


def default_cache_dir() -> pathlib.Path:
    """``$KOCKA_CACHE``, else the checkout's ``cache/`` (editable installs), else
    ``~/.cache/kocka``."""
    env = os.environ.get("KOCKA_CACHE")
    if env:
        return pathlib.Path(env).expanduser()
    checkout_cache = pathlib.Path(__file__).resolve().parents[2] / "cache"
    if (checkout_cache / "README.md").is_file():
        return checkout_cache
    return pathlib.Path.home() / ".cache" / "kocka"


def table_path(cache_dir: pathlib.Path | str, game: str, kind: str, variant_id: str) -> pathlib.Path:
    """Where the table for (game, kind, rules variant) lives in ``cache_dir``."""
    digest = variant_id.split(":", 1)[-1]
    return pathlib.Path(cache_dir) / f"{game}-{kind}-{digest}.npz"


def canonical_meta(meta: TableMeta | Mapping[str, Any]) -> bytes:
    """The metadata the checksum covers: every field but ``checksum``, as compact JSON with
    sorted keys (a :class:`TableMeta` or the parsed ``__meta__`` record alike)."""
    doc = json.loads(meta.to_json()) if isinstance(meta, TableMeta) else dict(meta)
    doc.pop("checksum", None)
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def checksum(arrays: Mapping[str, np.ndarray], meta: TableMeta | Mapping[str, Any]) -> str:
    """sha256 over the metadata (:func:`canonical_meta`), then the names, dtypes, shapes
    and bytes of every array, in name order."""
    h = hashlib.sha256(b"kocka-table/2\0" + canonical_meta(meta))
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"\0{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a)  # the array's own buffer: no copy (tables reach 0.7 GB)
    return h.hexdigest()


def save_table(path: pathlib.Path | str, arrays: Mapping[str, np.ndarray], meta: TableMeta) -> Table:
    """Write atomically (temp file in the same folder, then rename); return the Table
    with the checksum and build time filled in."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if _META_KEY in arrays:
        raise ValueError(f"array name {_META_KEY!r} is reserved")
    doc = {**json.loads(meta.to_json()),
           "built_at": meta.built_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    meta = TableMeta(**{**doc, "checksum": checksum(arrays, doc)})
    payload = dict(arrays)
    payload[_META_KEY] = np.frombuffer(meta.to_json().encode(), dtype=np.uint8)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would hide shared tables
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
    verified_path(path).unlink(missing_ok=True)  # it vouched for the file replaced
    return Table(arrays=dict(arrays), meta=meta, path=path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


LAZY_BYTES = 64 * 2**20
"""Arrays at least this big are mapped from the file (read-only) instead of read: their
pages are read when used, so a hint that touches a few states of a gigabyte table
(the scorecard target tables) does not wait for the whole file (0: read everything)."""


def _mapped(path: pathlib.Path, fh: Any, archive: zipfile.ZipFile, name: str) -> np.ndarray | None:
    """The array ``name`` of an ``.npz`` mapped from the file, or None when it is small,
    compressed or not a plain array (then it is read)."""
    info = archive.getinfo(name + ".npy")
    if info.compress_type != zipfile.ZIP_STORED or info.file_size < LAZY_BYTES:
        return None
    fh.seek(info.header_offset)
    local = fh.read(30)  # the member's local header: its name and extra field come next
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise ValueError(f"member {name!r} has no local header")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    fh.seek(info.header_offset + 30 + name_len + extra_len)
    version = np.lib.format.read_magic(fh)
    read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran, dtype = read_header(fh)
    if dtype.hasobject:
        return None
    return np.memmap(path, dtype=dtype, mode="r", offset=fh.tell(), shape=shape, order="F" if fortran else "C")


def _read(path: pathlib.Path) -> tuple[Table, dict[str, Any], os.stat_result]:
    """The arrays, the parsed metadata record and the file's stat (taken on the file
    that was read); TableError if the file is missing, corrupt or of another format."""
    where = repr(str(path))
    if not path.is_file():
        raise TableError(f"no table at {where}")
    try:
        with open(path, "rb") as fh:
            stat = os.fstat(fh.fileno())
            with np.load(fh, allow_pickle=False) as data:
                arrays = {k: _mapped(path, fh, data.zip, k) if LAZY_BYTES else None for k in data.files}
                arrays = {k: data[k] if a is None else a for k, a in arrays.items()}
    except MemoryError:
        raise  # too big for this machine is not damage
    except Exception as exc:  # zipfile/numpy raise many types for damaged files
        raise TableError(f"table {where} is corrupt: {_one_line(exc)}") from None
    raw = arrays.pop(_META_KEY, None)
    if raw is None:
        raise TableError(f"table {where} has no metadata record")
    try:
        doc = json.loads(raw.tobytes().decode())
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError included
        raise TableError(f"table {where} has unreadable metadata: {_one_line(exc)}") from None
    if not isinstance(doc, dict):
        raise TableError(f"table {where} has unreadable metadata: not a JSON object")
    version = doc.get("format_version")
    if version != TABLE_FORMAT_VERSION:
        raise TableError(f"table {where} has format version {version!r}, this kocka reads {TABLE_FORMAT_VERSION}")
    try:
        meta = TableMeta(**doc)
    except TypeError as exc:
        raise TableError(f"table {where} has unreadable metadata: {_one_line(exc)}") from None
    for name, types in (("game", str), ("kind", str), ("variant_id", str), ("checksum", str), ("built_at", str),
                        ("rules", dict), ("extra", dict), ("build_seconds", (int, float))):
        if not isinstance(getattr(meta, name), types):
            raise TableError(f"table {where} has a malformed metadata field {name!r}: {getattr(meta, name)!r:.80}")
    return Table(arrays=arrays, meta=meta, path=path), doc, stat


def verified_path(path: pathlib.Path | str) -> pathlib.Path:
    """The verified record of the table at ``path`` (see the module docstring)."""
    path = pathlib.Path(path)
    return path.with_name(path.name + VERIFIED_SUFFIX)


def _stat_key(stat: os.stat_result, digest: str) -> dict[str, Any]:
    return {"checksum": digest, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "ctime_ns": stat.st_ctime_ns,
            "inode": stat.st_ino, "device": stat.st_dev}


def _is_recorded(path: pathlib.Path, stat: os.stat_result, digest: str) -> bool:
    """Whether the verified record vouches for this very file with this checksum."""
    try:
        with open(verified_path(path), "rb") as fh:
            written = os.fstat(fh.fileno()).st_mtime_ns
            record = json.loads(fh.read(4096))
    except (OSError, ValueError):
        return False
    last_change = max(stat.st_mtime_ns, stat.st_ctime_ns)
    return record == _stat_key(stat, digest) and last_change + _RACY_NS < written


def _record_verified(path: pathlib.Path, stat: os.stat_result, digest: str) -> None:
    """Write the verified record atomically; quietly none where the folder is read-only
    (then every load hashes the file) or while the file is too fresh to vouch for."""
    if time.time_ns() < max(stat.st_mtime_ns, stat.st_ctime_ns) + _RACY_NS:
        return  # it would not be trusted yet (the reader checks again, by the file system's clock)
    if _is_recorded(path, stat, digest):
        return  # ``kocka-solve verify`` of a file already vouched for
    record = verified_path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=record.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w") as fh:
                json.dump(_stat_key(stat, digest), fh)
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, record)
        except BaseException:
            pathlib.Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass


def _check_checksum(table: Table, doc: Mapping[str, Any], stat: os.stat_result, verify: str) -> None:
    where = repr(str(table.path))
    if not table.meta.checksum:
        raise TableError(f"table {where} has no checksum")
    if verify == "recorded" and _is_recorded(table.path, stat, table.meta.checksum):
        return
    if checksum(table.arrays, doc) != table.meta.checksum:
        raise TableError(f"table {where} fails its checksum: its arrays or metadata changed after it was built")
    _record_verified(table.path, stat, table.meta.checksum)


def check_layout(table: Table, layout: Layout) -> None:
    """Refuse a table whose arrays differ from ``layout`` in names, number of axes, lengths
    or dtypes (TableError naming the file and the first difference)."""
    where = repr(str(table.path))
    missing = sorted(set(layout) - set(table.arrays))
    if missing:
        raise TableError(f"table {where} lacks the array(s) {', '.join(map(repr, missing))}")
    unexpected = sorted(set(table.arrays) - set(layout))
    if unexpected:
        raise TableError(f"table {where} holds unexpected array(s) {', '.join(map(repr, unexpected))}")
    for name, (shape, dtype) in layout.items():
        a = table.arrays[name]
        if a.dtype != np.dtype(dtype):
            raise TableError(f"table {where}: array {name!r} has dtype {a.dtype.str!r}, not {np.dtype(dtype).str!r}")
        if a.ndim != len(shape) or any(want is not None and got != want for got, want in zip(a.shape, shape)):
            want_text = "(" + ", ".join("any" if w is None else str(w) for w in shape) + ("," if len(shape) == 1 else "") + ")"
            raise TableError(f"table {where}: array {name!r} has shape {a.shape!r}, not {want_text}")


def read_table(path: pathlib.Path | str, *, verify: str = "recorded") -> Table:
    """Read any table file and check its checksum (``verify``: ``"recorded"`` trusts the
    verified record of an unchanged file, ``"full"`` always hashes); TableError if it is
    missing, corrupt, damaged or of another format."""
    if verify not in VERIFY_MODES:
        raise ValueError(f"verify must be one of {VERIFY_MODES!r}, got {verify!r}")
    table, doc, stat = _read(pathlib.Path(path))
    _check_checksum(table, doc, stat, verify)
    return table


def load_table(
    path: pathlib.Path | str, *, game: str, kind: str, variant_id: str,
    variant_of: Callable[[Mapping[str, Any]], str] | None = None,
    layout: Callable[[TableMeta], Layout] | None = None, verify: str = "recorded",
) -> Table:
    """Read a table and check it was built for exactly this game, kind and rules variant.

    ``variant_of(recorded rules)`` recomputes the variant id from the rules the metadata
    records (it must be the recorded one); ``layout(meta)`` is what the solver declares the
    table holds (:func:`check_layout`). The checksum comes last (``verify``: see
    :func:`read_table`), so a table of the wrong shape says what is wrong with it.
    """
    if verify not in VERIFY_MODES:
        raise ValueError(f"verify must be one of {VERIFY_MODES!r}, got {verify!r}")
    table, doc, stat = _read(pathlib.Path(path))
    meta, where = table.meta, repr(str(path))
    if (meta.game, meta.kind) != (game, kind):
        raise TableError(f"table {where} is a {meta.game}/{meta.kind} table, not {game}/{kind}")
    if meta.variant_id != variant_id:
        raise TableError(
            f"table {where} was built for rules variant {meta.variant_id!r} "
            f"({json.dumps(dict(meta.rules), sort_keys=True)}), not {variant_id!r}"
        )
    if variant_of is not None:
        try:
            recomputed = variant_of(meta.rules)
        except (ValueError, TypeError) as exc:  # RulesError is a ValueError
            raise TableError(f"table {where} records rules that are not valid {game} rules: {_one_line(exc)}") from None
        if recomputed != meta.variant_id:
            raise TableError(
                f"table {where} records the rules {json.dumps(dict(meta.rules), sort_keys=True)}, which are variant "
                f"{recomputed!r}, not its recorded variant {meta.variant_id!r}"
            )
    if layout is not None:
        try:
            expected = layout(meta)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise TableError(f"table {where} has metadata its solver cannot read: {exc!r:.200}") from None
        check_layout(table, expected)
    _check_checksum(table, doc, stat, verify)
    return table
