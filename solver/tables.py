"""On-disk value tables: atomic writes, recorded rules variant, format version, checksum.

A table is one uncompressed ``.npz`` file holding named numpy arrays plus a JSON
metadata record (``__meta__``). Loading checks the format version, the game, the table
kind and the rules variant id before any value is used: a table built for other rules
is an error (:class:`~kocka.solver.errors.TableError`), never a silent wrong answer.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from kocka.solver.errors import TableError

TABLE_FORMAT_VERSION = 1
_META_KEY = "__meta__"


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
    checkout_cache = pathlib.Path(__file__).resolve().parent.parent / "cache"
    if (checkout_cache / "README.md").is_file():
        return checkout_cache
    return pathlib.Path.home() / ".cache" / "kocka"


def table_path(cache_dir: pathlib.Path | str, game: str, kind: str, variant_id: str) -> pathlib.Path:
    """Where the table for (game, kind, rules variant) lives in ``cache_dir``."""
    digest = variant_id.split(":", 1)[-1]
    return pathlib.Path(cache_dir) / f"{game}-{kind}-{digest}.npz"


def checksum(arrays: Mapping[str, np.ndarray]) -> str:
    """sha256 over names, dtypes, shapes and bytes of every array, in name order."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save_table(path: pathlib.Path | str, arrays: Mapping[str, np.ndarray], meta: TableMeta) -> Table:
    """Write atomically (temp file in the same folder, then rename); return the Table
    with the checksum and build time filled in."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if _META_KEY in arrays:
        raise ValueError(f"array name {_META_KEY!r} is reserved")
    meta = TableMeta(
        **{**json.loads(meta.to_json()),
           "checksum": checksum(arrays),
           "built_at": meta.built_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    )
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
    return Table(arrays=dict(arrays), meta=meta, path=path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def read_table(path: pathlib.Path | str, *, verify_checksum: bool = False) -> Table:
    """Read any table file; raise TableError if it is missing, corrupt or of another format."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise TableError(f"no table at {str(path)!r}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except Exception as exc:  # zipfile/numpy raise many types for damaged files
        raise TableError(f"table {str(path)!r} is corrupt: {exc}") from None
    raw = arrays.pop(_META_KEY, None)
    if raw is None:
        raise TableError(f"table {str(path)!r} has no metadata record")
    try:
        meta = TableMeta.from_json(raw.tobytes().decode())
    except (ValueError, TypeError) as exc:
        raise TableError(f"table {str(path)!r} has unreadable metadata: {exc}") from None
    if meta.format_version != TABLE_FORMAT_VERSION:
        raise TableError(
            f"table {str(path)!r} has format version {meta.format_version!r}, this kocka reads "
            f"{TABLE_FORMAT_VERSION}; rebuild it with kocka-solve build {meta.game}"
        )
    if verify_checksum and checksum(arrays) != meta.checksum:
        raise TableError(f"table {str(path)!r} fails its checksum: the file is damaged")
    return Table(arrays=arrays, meta=meta, path=path)


def load_table(
    path: pathlib.Path | str, *, game: str, kind: str, variant_id: str, verify_checksum: bool = False
) -> Table:
    """Read a table and check it was built for exactly this game, kind and rules variant."""
    table = read_table(path, verify_checksum=verify_checksum)
    meta = table.meta
    if (meta.game, meta.kind) != (game, kind):
        raise TableError(f"table {str(path)!r} is a {meta.game}/{meta.kind} table, not {game}/{kind}")
    if meta.variant_id != variant_id:
        raise TableError(
            f"table {str(path)!r} was built for rules variant {meta.variant_id!r} "
            f"({json.dumps(dict(meta.rules), sort_keys=True)}), not {variant_id!r}"
        )
    return table
