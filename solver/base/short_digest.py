"""sha256 for short inputs (ids of rules variants) without loading OpenSSL.

``hashlib`` loads OpenSSL's libcrypto (3.6 MB of resident memory) when it is imported;
a table build computes its rules variant id long before the table's checksum, so that
import alone was part of the build's peak memory (issue 28). CPython's own sha256
module gives the same digest bytes (sha256 is one function, FIPS 180-4) and costs
nothing to load; it is slower than OpenSSL's on long data, so the table checksum, over
up to gigabytes, keeps ``hashlib`` (imported where it is computed, after the build).
"""
from __future__ import annotations

try:
    from _sha2 import sha256  # CPython 3.12+
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[no-redef]  # CPython 3.11
    except ImportError:  # another interpreter: the standard module
        from hashlib import sha256  # type: ignore[no-redef]

__all__ = ["sha256"]
