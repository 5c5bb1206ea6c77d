"""Simulation evidence for approximation, asymptotic and conjecture claims:
a sweep over sizes with a criterion fixed in the code before the run.
Never reports a claim as proved: the statuses are SUPPORTED / NOT SUPPORTED.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from theorems.evidence._common import make, timed
from theorems.model import Context, Evidence, EvidenceKind, EvidenceStatus

__all__ = ["check", "loglog_slope", "shrinks"]


def loglog_slope(sizes: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of log(value) against log(size).

    >>> round(loglog_slope([1, 2, 4], [1.0, 0.5, 0.25]), 6)
    -1.0
    """
    x = np.log(np.asarray(sizes, dtype=float))
    y = np.log(np.asarray(values, dtype=float))
    return float(np.polyfit(x, y, 1)[0])


def shrinks(*, max_slope: float, max_last_over_first: float):
    """Criterion: the figure falls with size: its log-log slope is at most
    ``max_slope`` (< 0) and the last figure is at most ``max_last_over_first``
    times the first."""

    def criterion(sizes, figures) -> tuple[bool, float, float, str]:
        figures = np.asarray(figures, dtype=float)
        if np.any(~np.isfinite(figures)) or np.any(figures <= 0):
            return False, float("nan"), max_slope, "a figure is not positive and finite"
        slope = loglog_slope(sizes, figures)
        ratio = figures[-1] / figures[0]
        ok = slope <= max_slope and ratio <= max_last_over_first
        return ok, slope, max_slope, (
            f"log-log slope {slope:.3f} (need <= {max_slope}); last/first {ratio:.3f} "
            f"(need <= {max_last_over_first})"
        )

    return criterion


def check(
    ctx: Context,
    sizes: Sequence[Any],
    measure: Callable[[Any, np.random.Generator], float],
    criterion: Callable[[Sequence[Any], Sequence[float]], tuple[bool, float, float, str]],
    *,
    label: str,
) -> Evidence:
    """Measure the figure at each size (fresh generator per size) and apply
    the criterion; ``figure`` is what the criterion reports (e.g. a slope)."""
    figures = []
    with timed() as t:
        for size in sizes:
            figures.append(float(measure(size, ctx.rng(f"sweep:{size}"))))
        ok, figure, threshold, why = criterion(sizes, figures)
    return make(
        ctx,
        EvidenceKind.SIMULATION,
        ok,
        seconds=t["seconds"],
        passed=EvidenceStatus.SUPPORTED,
        failed=EvidenceStatus.NOT_SUPPORTED,
        figure=figure,
        threshold=threshold,
        cases=len(sizes),
        detail=f"{label}: {why}",
        data={"sizes": [s if isinstance(s, (int, float)) else str(s) for s in sizes],
              "figures": figures},
    )
