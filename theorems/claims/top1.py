"""Claims of topic 'top1' (filled in by the 004 catalogue work)."""

from __future__ import annotations

__all__ = ["CLAIMS"]

CLAIMS: list = []
