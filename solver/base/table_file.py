"""On-disk value tables: atomic writes, recorded rules variant, format version, checksum.

A table is one uncompressed ``.npz`` file holding named numpy arrays plus a JSON
metadata record (``__meta__``). Format 3 stores every member uncompressed with its data
aligned to 64 bytes in the file (the zip local header padded by an extra field, the npy
header padded by numpy), so a load maps the file once (``mmap``, read-only) and every
array is a view of that mapping: nothing is copied, pages are read when used, and the
processes that map one table file (``kocka seat --http --workers N``) share one copy of it
in the page cache. Arrays are read-only whichever way they were loaded. Format 2 tables
(unaligned, or compressed by hand) still load: their aligned or big stored members are
mapped, the others read. Loading checks, before any value is used, the format
version, the game, the table kind, the rules variant id, that the recorded rules give
that variant id, the names, shapes and dtypes of the arrays against the solver's
declared layout, and the checksum over the arrays and the metadata: a table built for
other rules, or damaged in any way the checksum sees, is an error
(:class:`~kocka.solver.base.errors.TableError`), never a silent wrong answer.

The full checksum reads every page of a table (over a mapping as over a copy): sha256 runs
at 0.5-2 GB/s, 2.5-8 s for the 1.3 GB kockapóker target table on a loaded machine
(``scripts/bench_seat_workers.py``), where a mapped load takes milliseconds. So a file that
passed it gets a *verified record* beside it (``<table>.npz.verified``): its size, mtime,
ctime, inode and device, and the checksum. Later loads of an unchanged file trust the
record; any write to the file, or ``touch``, changes its ctime, so a changed file is
hashed again before any of it is used (docs/SOLVER.md, "Table integrity"); the spot
checks run on every load either way. kocka never writes a table in place (a new file is
renamed over the old), so a table already mapped keeps the bytes that were verified; a
file edited in place under a running process changes what that process reads, as any
mapped file does, and is hashed again by the next load.

A table file may be crafted, so it is read defensively (issue 24): never through
``np.load``, and nothing is unpickled (a pickle or an object array is refused, in words
that say tables never contain one). The zip directory (member count, names, declared
sizes inside the file) and the metadata record (its size and nesting depth) are checked
before the record is parsed; the game, kind, rules and layout from the metadata before
any array is read; then every array header against its layout entry and its declared
size, and only then the data, through a stream that inflates no more than that size.
Writes are locked while under way, so a later build can tell a live write from the
temporary file of one that died, and removes the latter.
"""
from __future__ import annotations

import glob
import io
import json
import mmap
import os
import pathlib
import re
import shutil
import struct
import tempfile
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, stale temporary files are kept
    fcntl = None  # type: ignore[assignment]

from kocka.solver.base.errors import TableError

TABLE_FORMAT_VERSION = 3
"""2: the checksum covers the metadata as well as the arrays (issue 12); 3: members stored
with their data 64-byte aligned, so that every array is mapped (issue 28). The checksum is
the same in both."""
READABLE_FORMAT_VERSIONS = (2, 3)
"""The formats this kocka loads (format 1 is refused with the command that rebuilds it)."""
_ALIGN = 64
"""Each member's data starts at a multiple of this in the file (numpy's own npy header
alignment, and a cache line): every dtype is aligned, whatever its size."""
_PADDING_EXTRA_ID = 0xD935
"""The zip extra field that pads a local header (the id Android's ``zipalign`` uses for the
same purpose); readers skip extra fields they do not know."""
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
    import hashlib  # OpenSSL (3.6 MB resident): loaded here, after a build's peak (issue 28)

    h = hashlib.sha256(b"kocka-table/2\0" + canonical_meta(meta))
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"\0{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a)  # the array's own buffer: no copy (tables reach 0.7 GB)
    return h.hexdigest()


def save_table(path: pathlib.Path | str, arrays: Mapping[str, np.ndarray], meta: TableMeta) -> Table:
    """Write atomically (temp file in the same folder, locked while it is written, then
    renamed); return the Table with the checksum and build time filled in. A folder that
    cannot take the file is a one-line TableError."""
    path = pathlib.Path(path)
    if _META_KEY in arrays:
        raise ValueError(f"array name {_META_KEY!r} is reserved")
    doc = {**json.loads(meta.to_json()),
           "built_at": meta.built_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    meta = TableMeta(**{**doc, "checksum": checksum(arrays, doc)})
    payload = dict(arrays)
    payload[_META_KEY] = np.frombuffer(meta.to_json().encode(), dtype=np.uint8)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=_TMP_SUFFIX, dir=path.parent)
    except OSError as exc:
        raise TableError(f"cannot write the table {str(path)!r}: {_one_line(exc)}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            _lock(fh)  # held until closed: a later build sees a live writer, not a stale file
            write_npz(fh, payload)
            fh.flush()
            os.fsync(fh.fileno())
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 would hide shared tables
            os.replace(tmp, path)
    except OSError as exc:  # a full disk, a folder made read-only meanwhile
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise TableError(f"cannot write the table {str(path)!r}: {_one_line(exc)}") from None
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
    verified_path(path).unlink(missing_ok=True)  # it vouched for the file replaced
    return Table(arrays=dict(arrays), meta=meta, path=path)


def write_npz(fh: Any, payload: Mapping[str, np.ndarray]) -> None:
    """The arrays as an ``.npz`` (any zip or numpy reader opens it) whose members are stored
    uncompressed, each one's data starting at a multiple of :data:`_ALIGN` in the file.
    The data is written from the arrays' own buffers, in chunks: no copy of a big table."""
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, value in payload.items():
            array = np.asanyarray(value)
            if not (array.flags.c_contiguous or array.flags.f_contiguous):
                array = np.ascontiguousarray(array)
            header_data = np.lib.format.header_data_from_array_1_0(array)
            npy_header = io.BytesIO()
            np.lib.format.write_array_header_1_0(npy_header, header_data)
            head = npy_header.getvalue()
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            info.file_size = len(head) + array.nbytes
            # the local header: 30 bytes, the name, this padding field, the zip64 sizes (20
            # bytes: forced, so that its length does not depend on the size)
            unpadded = archive.start_dir + 30 + len(info.filename.encode()) + 4 + 20 + len(head)
            pad = -unpadded % _ALIGN
            info.extra = struct.pack("<HH", _PADDING_EXTRA_ID, pad) + bytes(pad)
            flat = array.reshape(-1, order="F" if header_data["fortran_order"] else "C").view(np.uint8)
            with archive.open(info, "w", force_zip64=True) as stream:
                stream.write(head)
                for start in range(0, len(flat), 2**24):
                    stream.write(flat[start:start + 2**24])


_TMP_SUFFIX = ".tmp"
STALE_AFTER_S = 10.0
"""A temporary file unlocked and untouched this long is left by a writer that died
(``kill -9``); a live writer holds its lock, and the verified record's tiny temp file
lives milliseconds."""


def _lock(fh: Any) -> None:
    if fcntl is not None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _is_locked(path: pathlib.Path) -> bool:
    """Whether a live writer holds ``path`` (without fcntl, a file counts as locked)."""
    if fcntl is None:
        return True
    try:
        with open(path, "rb") as fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            return False
    except OSError:
        return True


def temporary_files(path: pathlib.Path | str) -> list[pathlib.Path]:
    """The temporary files of writes of the table at ``path`` (its own and its verified
    record's), live or stale."""
    path = pathlib.Path(path)
    if not path.parent.is_dir():
        return []
    return sorted(p for p in path.parent.glob(glob.escape(path.name) + ".*" + _TMP_SUFFIX) if p.is_file())


def is_stale(tmp: pathlib.Path, now: float | None = None) -> bool:
    """Whether ``tmp`` was left by a write that can no longer finish: not locked by a
    live writer and untouched for :data:`STALE_AFTER_S`."""
    try:
        age = (time.time() if now is None else now) - tmp.stat().st_mtime
    except OSError:
        return False
    return age >= STALE_AFTER_S and not _is_locked(tmp)


def remove_stale_temporaries(path: pathlib.Path | str) -> list[pathlib.Path]:
    """Remove the stale temporary files of the table at ``path``; the ones removed."""
    removed = []
    for tmp in temporary_files(path):
        if is_stale(tmp):
            try:
                tmp.unlink()
                removed.append(tmp)
            except OSError:
                pass  # a read-only folder: check_destination says so
    return removed


def check_destination(path: pathlib.Path | str, estimated_bytes: int) -> None:
    """Refuse, before a build computes anything, a destination that cannot take its
    table: a folder that cannot be made or written (a file is created and removed there,
    the only test that sees read-only mounts and ACLs alike), or less free space than
    ``estimated_bytes`` (the table, plus the one it replaces until the rename)."""
    path = pathlib.Path(path)
    where = repr(str(path.parent))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=path.name + ".", suffix=".probe" + _TMP_SUFFIX, dir=path.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise TableError(f"cannot write tables to {where}: {_one_line(exc)}; "
                         "choose another folder with --cache-dir or $KOCKA_CACHE") from None
    free = shutil.disk_usage(path.parent).free
    if free < estimated_bytes:
        raise TableError(f"not enough space in {where} for the {path.name} table: about {estimated_bytes:,} bytes "
                         f"needed, {free:,} free; free some space or choose another folder with --cache-dir")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


LAZY_BYTES = 64 * 2**20
"""A stored member is mapped from the file when its data is aligned for its dtype (every
member of a format 3 table), or, unaligned (format 2), when it is at least this big: a
hint that touches a few states of a gigabyte table (the scorecard target tables) does not
wait for the whole file; a small unaligned member is read (copied) instead."""

MAX_MEMBERS = 4096
"""More arrays than any solver declares (the Polish table, the largest, has about 40)."""
MAX_META_BYTES = 16 * 2**20
"""The metadata record is a few kilobytes of JSON; a record beyond this is not one."""
MAX_META_DEPTH = 64
"""The metadata nests four or five levels; the bound keeps a crafted record (200,000
brackets deep) from exhausting the parser's recursion."""
_NPY_MAGIC = b"\x93NUMPY"
_NPY_MAX_HEADER = 10_000
"""numpy's own bound on an array header (``max_header_size``); kocka's are 128 bytes."""
_PICKLE_PROTOCOLS = tuple(bytes([0x80, p]) for p in range(2, 6))
NO_PICKLE = "tables never contain pickled objects, and kocka never unpickles a file"


@dataclass(frozen=True)
class _Member:
    """One array of an ``.npz`` as its headers declare it, before any of it is read."""

    name: str
    info: zipfile.ZipInfo
    shape: tuple[int, ...]
    dtype: np.dtype
    fortran: bool
    header_bytes: int  # the npy magic and header, before the data

    @property
    def data_bytes(self) -> int:
        return _count(self.shape) * self.dtype.itemsize


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for length in shape:
        n *= length  # Python ints: a crafted header cannot overflow the product
    return n


class _Damage(ValueError):
    """What the reader found wrong, worded for the reader's one line."""


@dataclass
class _TableFile:
    """An open table file: its zip directory checked, its metadata parsed, no array read."""

    path: pathlib.Path
    fh: Any
    archive: zipfile.ZipFile
    mapping: mmap.mmap
    stat: os.stat_result
    members: dict[str, zipfile.ZipInfo]  # array name -> its zip entry, metadata excluded
    doc: dict[str, Any]
    meta: TableMeta

    @property
    def where(self) -> str:
        return repr(str(self.path))

    def close(self) -> None:
        """Close the file; the mapping stays while an array maps it (it is closed at once
        where none does, so that nothing holds a table that was refused)."""
        self.archive.close()
        self.fh.close()
        _release(self.mapping)


def _release(mapping: mmap.mmap) -> None:
    try:
        mapping.close()
    except BufferError:  # arrays view it: it is unmapped when the last of them goes
        pass


def _open_file(path: pathlib.Path) -> _TableFile:
    """Open the table at ``path`` and read its metadata record, and nothing else: the
    zip directory (member count, names, declared sizes) and the record's size and nesting
    are checked before the record is parsed. TableError for anything that is not a table."""
    where = repr(str(path))
    if not path.is_file():
        raise TableError(f"no table at {where}")
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise TableError(f"table {where} cannot be read: {_one_line(exc)}") from None
    try:
        stat = os.fstat(fh.fileno())
        lead = fh.read(4)
        fh.seek(0)
        if lead.startswith(_PICKLE_PROTOCOLS):
            raise TableError(f"table {where} is a pickle, not a table: {NO_PICKLE}")
        if lead not in (b"PK\x03\x04", b"PK\x05\x06"):
            raise TableError(f"{where} is not a kocka table (a table is a zip archive of numpy arrays, "
                             f"this file starts with {lead!r})")
        try:
            archive = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
            raise TableError(f"table {where} is corrupt: {_one_line(exc)}") from None
        try:
            # read-only: an array of it cannot be written, and the file never is
            mapping = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            archive.close()
            raise TableError(f"table {where} cannot be mapped: {_one_line(exc)}") from None
        try:
            members = _directory(archive, stat.st_size)
            doc = _meta_record(archive, mapping, members.pop(_META_KEY, None))
        except _Damage as exc:
            archive.close()
            _release(mapping)
            raise TableError(f"table {where} {exc}") from None
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as exc:
            archive.close()
            _release(mapping)
            raise TableError(f"table {where} is corrupt: {_one_line(exc)}") from None
    except BaseException:
        fh.close()
        raise
    table_file = _TableFile(path, fh, archive, mapping, stat, members, doc, None)  # type: ignore[arg-type]
    try:
        table_file.meta = _parse_meta(where, doc)
    except BaseException:
        table_file.close()
        raise
    return table_file


def _directory(archive: zipfile.ZipFile, file_size: int) -> dict[str, zipfile.ZipInfo]:
    """The zip entries by array name; every entry a ``.npy`` member, once, lying inside
    the file, stored or deflated (what ``np.savez`` and ``np.savez_compressed`` write)."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise _Damage(f"is corrupt: it holds {len(infos)} members, more than any table ({MAX_MEMBERS})")
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        if not info.filename.endswith(".npy"):
            raise _Damage(f"is corrupt: member {info.filename!r:.80} is not a numpy array (.npy)")
        name = info.filename[:-4]
        if name in members:
            raise _Damage(f"is corrupt: member {info.filename!r:.80} appears twice")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _Damage(f"is corrupt: member {info.filename!r:.80} uses zip method {info.compress_type}, "
                          "not stored or deflated")
        if info.header_offset + info.compress_size > file_size or (
                info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size):
            raise _Damage(f"is corrupt: member {info.filename!r:.80} declares {info.file_size:,} bytes, "
                          f"which do not fit in the file's {file_size:,}")
        members[name] = info
    return members


def _meta_record(archive: zipfile.ZipFile, mapping: mmap.mmap, info: zipfile.ZipInfo | None) -> dict[str, Any]:
    """The parsed ``__meta__`` record: a byte array of at most :data:`MAX_META_BYTES`
    holding a JSON object nested at most :data:`MAX_META_DEPTH` deep."""
    if info is None:
        raise _Damage("has no metadata record")
    member = _bounded(_header(archive, _META_KEY, info), MAX_META_BYTES)
    if member.dtype != np.dtype(np.uint8) or len(member.shape) != 1:
        raise _Damage(f"has unreadable metadata: the record is a {member.dtype.str} array of shape "
                      f"{member.shape!r:.80}, not bytes")
    raw = _read_member(archive, mapping, member).tobytes()
    try:
        text = raw.decode()
        if _json_depth(text) > MAX_META_DEPTH:
            raise _Damage(f"has unreadable metadata: the record nests deeper than {MAX_META_DEPTH} levels")
        doc = json.loads(text)
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError included
        if isinstance(exc, _Damage):
            raise
        raise _Damage(f"has unreadable metadata: {_one_line(exc)}") from None
    if not isinstance(doc, dict):
        raise _Damage("has unreadable metadata: not a JSON object")
    return doc


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _json_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not
    count), without parsing it: a few array operations, however deep the text."""
    if text.count("[") + text.count("{") <= MAX_META_DEPTH:
        return 0  # too few brackets to nest that deep (the common case: no scan at all)
    codes = np.frombuffer(_JSON_STRING.sub('""', text).encode(), dtype=np.uint8)
    steps = (codes == ord("[")).astype(np.int64) + (codes == ord("{")) - (codes == ord("]")) - (codes == ord("}"))
    return int(np.cumsum(steps).max(initial=0))


def _parse_meta(where: str, doc: dict[str, Any]) -> TableMeta:
    version = doc.get("format_version")
    if type(version) is not int or version not in READABLE_FORMAT_VERSIONS:
        raise TableError(f"table {where} has format version {version!r:.80}, this kocka reads "
                         f"{' and '.join(map(str, sorted(READABLE_FORMAT_VERSIONS, reverse=True)))}")
    try:
        meta = TableMeta(**doc)
    except TypeError as exc:
        raise TableError(f"table {where} has unreadable metadata: {_one_line(exc)}") from None
    for name, types in (("game", str), ("kind", str), ("variant_id", str), ("checksum", str), ("built_at", str),
                        ("rules", dict), ("extra", dict), ("build_seconds", (int, float))):
        if not isinstance(getattr(meta, name), types):
            raise TableError(f"table {where} has a malformed metadata field {name!r}: {getattr(meta, name)!r:.80}")
    return meta


def _header(archive: zipfile.ZipFile, name: str, info: zipfile.ZipInfo) -> _Member:
    """The array ``name`` as its npy header declares it, read through a stream that
    inflates no more than the header: a plain dtype (no Python objects) and a size that
    is the member's declared size."""
    label = f"member {info.filename!r}"
    with archive.open(info) as stream:
        lead = stream.read(8)
        if lead[:6] != _NPY_MAGIC:
            if lead.startswith(_PICKLE_PROTOCOLS):
                raise _Damage(f"holds a pickled Python object as {label}: {NO_PICKLE}")
            raise _Damage(f"is corrupt: {label} is not a numpy array (it starts with {lead!r})")
        version = (lead[6], lead[7])
        if version not in ((1, 0), (2, 0)):
            raise _Damage(f"is corrupt: {label} has npy format {version!r}, not 1.0 or 2.0")
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        try:
            shape, fortran, dtype = read(stream, max_header_size=_NPY_MAX_HEADER)
        except ValueError as exc:
            text = _one_line(exc)
            if "allow_pickle" in text or "pickle" in text.lower():
                raise _Damage(f"holds Python objects as {label}: {NO_PICKLE}") from None
            raise _Damage(f"is corrupt: {label} has an unreadable header: {text:.200}") from None
        header_bytes = stream.tell()
    if dtype.hasobject:
        raise _Damage(f"holds Python objects as {label} (dtype {dtype.str!r}), which only a pickle stores: {NO_PICKLE}")
    if dtype.fields is not None or dtype.subdtype is not None:
        raise _Damage(f"is corrupt: {label} has the compound dtype {str(dtype)!r:.80}, not a plain number type")
    if any(length < 0 for length in shape):
        raise _Damage(f"is corrupt: {label} declares the shape {shape!r:.80}")
    member = _Member(name, info, tuple(shape), dtype, fortran, header_bytes)
    if header_bytes + member.data_bytes != info.file_size:
        raise _Damage(f"is corrupt: {label} declares {_count(member.shape):,} values of {dtype.str} "
                      f"({member.data_bytes:,} bytes) but holds {info.file_size - header_bytes:,}")
    return member


def _bounded(member: _Member, cap: int) -> _Member:
    """``member``, unless it would inflate to more than ``cap`` bytes (a zip bomb: a
    deflated member of gigabytes in a small file is refused before it is inflated)."""
    if member.data_bytes > cap:
        raise _Damage(f"is corrupt: member {member.info.filename!r} declares {member.data_bytes:,} bytes, "
                      f"more than the {cap:,} it may hold")
    return member


def _read_member(archive: zipfile.ZipFile, mapping: mmap.mmap, member: _Member) -> np.ndarray:
    """The data of a checked member, read-only: a view of the file's mapping when it is
    stored and aligned for its dtype (or big: :data:`LAZY_BYTES`), else read through the
    zip stream into an array of exactly the declared size (the stream ends there, and its
    CRC-32 is checked)."""
    info = member.info
    order = "F" if member.fortran else "C"
    if info.compress_type == zipfile.ZIP_STORED:
        offset = _data_offset(mapping, member)
        if offset % member.dtype.alignment == 0 or (LAZY_BYTES and info.file_size >= LAZY_BYTES):
            if not member.data_bytes:  # np.frombuffer takes no empty view at the end of a buffer
                array = np.empty(member.shape, dtype=member.dtype, order=order)
                array.setflags(write=False)
                return array
            flat = np.frombuffer(mapping, dtype=member.dtype, count=_count(member.shape), offset=offset)
            return flat.reshape(member.shape, order=order)
    array = np.empty(member.shape, dtype=member.dtype, order=order)
    view = memoryview(array.reshape(-1, order="A")).cast("B") if array.size else memoryview(b"")
    with archive.open(info) as stream:
        stream.read(member.header_bytes)
        filled = 0
        while filled < len(view):
            got = stream.readinto(view[filled:filled + 2**24])
            if not got:
                raise _Damage(f"is corrupt: member {info.filename!r} ends early")
            filled += got
        if stream.read(1):  # reads to the end: zipfile checks the CRC-32 there
            raise _Damage(f"is corrupt: member {info.filename!r} holds more than it declares")
    array.setflags(write=False)  # as a mapped one: a table is never written in place
    return array


def _data_offset(mapping: mmap.mmap, member: _Member) -> int:
    """Where the data of a stored member starts in the file: after its local header (whose
    name and extra field lengths may differ from the central directory's) and npy header."""
    info = member.info
    local = mapping[info.header_offset:info.header_offset + 30]
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise _Damage(f"is corrupt: member {info.filename!r} has no local header")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    offset = info.header_offset + 30 + name_len + extra_len + member.header_bytes
    if offset + member.data_bytes > len(mapping):
        raise _Damage(f"is corrupt: member {info.filename!r} runs past the end of the file")
    return offset


def _read_arrays(table_file: _TableFile, layout: Layout | None) -> dict[str, np.ndarray]:
    """Every array, in the order of ``layout`` (or of the names), each header checked
    against the layout and every size bounded before its data is read; with no layout, no
    member may inflate beyond the size of the file (kocka writes tables uncompressed)."""
    where, members, file_size = table_file.where, table_file.members, table_file.stat.st_size
    if layout is not None:
        _check_names(where, members, layout)
    names = list(layout) if layout is not None else sorted(members)
    try:
        checked = []
        for name in names:  # every header before any data
            want = layout[name] if layout is not None else None
            member = _header(table_file.archive, name, members[name])
            if want is not None:
                _check_array(where, name, member.dtype, member.shape, want)
            # the layout fixed an exact size (just checked); an open length may not pass the file's size
            checked.append(_bounded(member, file_size) if want is None or None in want[0] else member)
        return {m.name: _read_member(table_file.archive, table_file.mapping, m) for m in checked}
    except _Damage as exc:
        raise TableError(f"table {where} {exc}") from None
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as exc:
        raise TableError(f"table {where} is corrupt: {_one_line(exc)}") from None


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
    _check_names(where, table.arrays, layout)
    for name, want in layout.items():
        _check_array(where, name, table.arrays[name].dtype, table.arrays[name].shape, want)


def _check_names(where: str, names: Mapping[str, Any], layout: Layout) -> None:
    missing = sorted(set(layout) - set(names))
    if missing:
        raise TableError(f"table {where} lacks the array(s) {', '.join(map(repr, missing))}")
    unexpected = sorted(set(names) - set(layout))
    if unexpected:
        raise TableError(f"table {where} holds unexpected array(s) {', '.join(map(repr, unexpected))}")


def _check_array(where: str, name: str, dtype: np.dtype, shape: tuple[int, ...],
                 want: tuple[tuple[int | None, ...], Any]) -> None:
    """One array (or its header, before it is read) against its layout entry."""
    want_shape, want_dtype = want
    if dtype != np.dtype(want_dtype):
        raise TableError(f"table {where}: array {name!r} has dtype {dtype.str!r}, not {np.dtype(want_dtype).str!r}")
    if len(shape) != len(want_shape) or any(w is not None and got != w for got, w in zip(shape, want_shape)):
        want_text = "(" + ", ".join("any" if w is None else str(w) for w in want_shape) + ("," if len(want_shape) == 1 else "") + ")"
        raise TableError(f"table {where}: array {name!r} has shape {tuple(shape)!r:.200}, not {want_text}")


def read_table(path: pathlib.Path | str, *, verify: str = "recorded") -> Table:
    """Read any table file and check its checksum (``verify``: ``"recorded"`` trusts the
    verified record of an unchanged file, ``"full"`` always hashes); TableError if it is
    missing, corrupt, damaged or of another format."""
    if verify not in VERIFY_MODES:
        raise ValueError(f"verify must be one of {VERIFY_MODES!r}, got {verify!r}")
    table_file = _open_file(pathlib.Path(path))
    try:
        table = Table(arrays=_read_arrays(table_file, None), meta=table_file.meta, path=table_file.path)
    finally:
        table_file.close()  # mapped arrays keep their own mapping
    _check_checksum(table, table_file.doc, table_file.stat, verify)
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
    table_file = _open_file(pathlib.Path(path))
    try:
        expected = _check_identity(table_file, game, kind, variant_id, variant_of, layout)
        table = Table(arrays=_read_arrays(table_file, expected), meta=table_file.meta, path=table_file.path)
    finally:
        table_file.close()
    _check_checksum(table, table_file.doc, table_file.stat, verify)
    return table


def _check_identity(
    table_file: _TableFile, game: str, kind: str, variant_id: str,
    variant_of: Callable[[Mapping[str, Any]], str] | None, layout: Callable[[TableMeta], Layout] | None,
) -> Layout | None:
    """Refuse, from the metadata alone, a table of another game, kind or rules variant;
    the layout its solver declares for it (None: not checked)."""
    meta, where = table_file.meta, table_file.where
    if (meta.game, meta.kind) != (game, kind):
        raise TableError(f"table {where} is a {meta.game:.40}/{meta.kind:.40} table, not {game}/{kind}")
    if meta.variant_id != variant_id:
        raise TableError(
            f"table {where} was built for rules variant {meta.variant_id!r:.80} "
            f"({json.dumps(dict(meta.rules), sort_keys=True):.400}), not {variant_id!r}"
        )
    if variant_of is not None:
        try:
            recomputed = variant_of(meta.rules)
        except (ValueError, TypeError) as exc:  # RulesError is a ValueError
            raise TableError(f"table {where} records rules that are not valid {game} rules: {_one_line(exc)}") from None
        if recomputed != meta.variant_id:
            raise TableError(
                f"table {where} records the rules {json.dumps(dict(meta.rules), sort_keys=True):.400}, which are variant "
                f"{recomputed!r}, not its recorded variant {meta.variant_id!r}"
            )
    if layout is None:
        return None
    try:
        return layout(meta)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise TableError(f"table {where} has metadata its solver cannot read: {exc!r:.200}") from None
