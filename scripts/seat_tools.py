"""What the seat's benchmark and fuzz scripts share: the seat process's resident memory,
latency quantiles, and the request mutator of the fuzzers (``scripts/seat_fuzz.py`` and
``tests/test_seat.py``). Standard library only, like the scripts: they speak to the seat
as a frontend would, importing nothing from kocka."""
from __future__ import annotations

import pathlib
import random
from typing import Any


def rss_kib(pid: int) -> int | None:
    """Resident memory of process ``pid`` in KiB (Linux /proc), None elsewhere."""
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` by the nearest-rank method (nan for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(round(q * len(ordered) + 0.5)) - 1))]


def mutate(value: Any, rng: random.Random, replacement: Any) -> Any:
    """``value`` (JSON) with one randomly chosen node anywhere in it replaced by
    ``replacement``, dropped, or extended with it."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        out = dict(value)
        roll = rng.random()
        if roll < 0.1:
            del out[key]
        elif roll < 0.2:
            out["x" + key] = replacement
        elif roll < 0.4:
            out[key] = replacement
        else:
            out[key] = mutate(value[key], rng, replacement)
        return out
    if isinstance(value, list) and value and rng.random() < 0.8:
        i = rng.randrange(len(value))
        out = list(value)
        roll = rng.random()
        if roll < 0.15:
            del out[i]
        elif roll < 0.3:
            out.append(replacement)
        else:
            out[i] = mutate(value[i], rng, replacement)
        return out
    return replacement
