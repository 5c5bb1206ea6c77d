"""High-precision evidence: the same formula evaluated in mpmath at every rung
of :data:`~theorems.tolerance.PRECISION_LADDER`.

For an identity the residual must be within the scaled bound at every rung
and fall by at least :data:`~theorems.tolerance.LADDER_MIN_DROP_DIGITS`
decimal digits from the lowest rung to the highest (or be exactly zero): a
formula that is only approximately right stalls. For an inequality the
quantity measured is the violation (zero when the bound holds), judged at
every rung with the same scaled bound.

Inputs are exact (rational) so that each rung rounds them afresh.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import mpmath

from theorems.evidence._common import IMPLEMENTATION_ERRORS, make, timed
from theorems.model import Context, Evidence, EvidenceKind
from theorems.tolerance import LADDER_MIN_DROP_DIGITS, PRECISION_LADDER, THRESHOLD, scaled_residual

__all__ = ["check"]


def _log10_floor(x, digits: int) -> float:
    """log10 of a residual, an exact zero counted as one unit roundoff of its
    rung (so a zero low on the ladder and a tiny residual high on it is still
    a fall, while a residual that stalls is not)."""
    return -float(digits) if x == 0 else float(mpmath.log10(x))


def check(
    ctx: Context,
    cases: Sequence[tuple[str, Any]],
    residual: Callable[[Any], tuple[Any, Any]],
    *,
    falls: bool = True,
    ladder: Sequence[int] = PRECISION_LADDER,
) -> Evidence:
    """``residual(case) -> (error, scale)`` is called inside ``mpmath.workdps``
    at each rung; ``error`` is an mpf norm, ``scale`` the size x operand-norm x
    condition factor of the tolerance model. ``cases`` are (label, input)."""
    worst = 0.0
    table: dict[str, list[str]] = {}
    failing = None
    why = ""
    with timed() as t:
        for label, case in cases:
            errs = []
            for dps in ladder:
                with mpmath.workdps(dps):
                    try:
                        err, scale = residual(case)
                    except IMPLEMENTATION_ERRORS as exc:
                        err, scale = mpmath.inf, 1
                        if failing is None:
                            failing, why = (label, dps), f"raised {exc!r}"
                    ratio = scaled_residual(err, scale=scale, kind="mpmath")
                errs.append(err)
                worst = max(worst, ratio)
                if not ratio <= THRESHOLD and failing is None:
                    failing, why = (label, dps), f"scaled ratio {ratio:.3g} at {dps} digits"
            table[label] = [mpmath.nstr(e, 3) for e in errs]
            if falls and failing is None and errs[-1] != 0:
                drop = _log10_floor(errs[0], ladder[0]) - _log10_floor(errs[-1], ladder[-1])
                if not drop >= LADDER_MIN_DROP_DIGITS:
                    failing = (label, ladder[-1])
                    why = f"residual fell only {drop:.1f} digits over the ladder"
    ok = failing is None
    return make(
        ctx,
        EvidenceKind.PRECISE,
        ok,
        seconds=t["seconds"],
        figure=worst,
        threshold=THRESHOLD,
        cases=len(cases) * len(ladder),
        counterexample=None if ok else {"case": failing[0], "digits": failing[1], "why": why},
        detail=f"mpmath at {list(ladder)} digits; worst scaled ratio; "
        + ("residual falls with precision" if falls else "violation within bound"),
        data={"ladder": list(ladder), "residuals": table},
    )
