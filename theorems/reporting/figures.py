"""How close an evidence record's figure came to its threshold, one rule for
every report (the Markdown key figure, the HTML key figure and gauge)."""

from __future__ import annotations

import math

__all__ = ["closeness"]


def closeness(e: dict) -> float | None:
    """figure / threshold of a ``<=`` (or ``<``) check, threshold / figure of
    a ``>=`` (or ``>``) one: 1 is on the threshold, above 1 past it. ``None``
    when there is nothing to compare (no number, a threshold <= 0, a negative
    figure, an unknown comparison); a ``>=`` figure of 0 is infinitely far.

    >>> closeness({"figure": 2.0, "threshold": 4.0}), closeness({"figure": 2, "threshold": 1, "comparison": ">="})
    (0.5, 0.5)
    >>> closeness({"figure": 0.0, "threshold": 1.0, "comparison": ">="}), closeness({"figure": None, "threshold": 1})
    (inf, None)
    """
    f, t = e.get("figure"), e.get("threshold")
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in (f, t))
    if not (numbers and t > 0 and f >= 0):
        return None
    comparison = e.get("comparison") or "<="
    if comparison in ("<=", "<"):
        return f / t
    if comparison in (">=", ">"):
        return t / f if f > 0 else math.inf
    return None
