"""Sentences about the number systems for the reports (no imports: the
report writers read them without loading the systems)."""

from __future__ import annotations

__all__ = ["enclosure_sentence"]


def enclosure_sentence(enclosure: dict) -> str:
    """A failed ladder check's ball enclosure (:mod:`theorems.numbers.interval`) in words.

    >>> enclosure_sentence({"proved": False, "why": "no enclosure: qr has no interval version here"})
    'no proof by ball arithmetic: no enclosure: qr has no interval version here'
    """
    if enclosure.get("proved"):
        return (f"proved by ball arithmetic ({enclosure.get('bits')} bits) at the case's exact input: term "
                f"{enclosure.get('term')}, entry {enclosure.get('entry')}, {enclosure.get('what')}: "
                f"{enclosure.get('difference')}")
    return f"no proof by ball arithmetic: {enclosure.get('why', '')}"
