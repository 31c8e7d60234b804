"""Progress on long work: a one-line bar on stderr with rate and ETA."""
from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``Progress(total, label)``; call :meth:`advance` as work completes, :meth:`close`
    at the end. Silent when ``enabled`` is false (tests, library use)."""

    def __init__(self, total: int, label: str, unit: str = "states", *, enabled: bool = True,
                 stream: TextIO | None = None, min_interval: float = 0.2) -> None:
        self.total = max(int(total), 1)
        self.label = label
        self.unit = unit
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.min_interval = min_interval
        self.done = 0
        self.start = time.perf_counter()
        self._last = 0.0

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._last >= self.min_interval or self.done >= self.total):
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        frac = min(self.done / self.total, 1.0)
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        bar = "#" * int(frac * 24)
        self.stream.write(
            f"\r{self.label}: [{bar:<24}] {frac:6.1%} {self.done:,}/{self.total:,} {self.unit}"
            f"  {rate:,.0f}/s  ETA {eta:5.1f}s "
        )
        self.stream.flush()

    def close(self) -> float:
        """Finish the line; return the elapsed seconds."""
        elapsed = time.perf_counter() - self.start
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write(f" done in {elapsed:.2f}s\n")
            self.stream.flush()
        return elapsed
