"""Claims of topic 'finite_size' (filled in by the 004 catalogue work)."""

from __future__ import annotations

__all__ = ["CLAIMS"]

CLAIMS: list = []
