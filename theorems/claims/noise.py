"""Claims of topic 'noise' (filled in by the 000 catalogue work)."""

from __future__ import annotations

__all__ = ["CLAIMS"]

CLAIMS: list = []
