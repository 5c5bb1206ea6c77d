"""Pieces the benchmark scripts share (importable because a script's own
folder is first on ``sys.path``)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable


def peak_bytes(fn: Callable[[], object]) -> int:
    """Peak ``tracemalloc`` memory of one call of ``fn`` (numpy and Python
    allocations; memory a C library allocates itself is not seen)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
