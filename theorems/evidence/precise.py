"""High-precision evidence: the same formula evaluated in mpmath at every rung
of :data:`~theorems.core.tolerance.PRECISION_LADDER`.

For an identity the residual must be within the scaled bound at every rung
(``scale`` carries the case's size, operand norm and condition, so an
ill-conditioned case gets a proportionally wider bound) and fall as the
precision climbs: by at least half the digits gained, measured from the
rung that resolves the case best (:func:`~theorems.core.tolerance.ladder_fall`),
or be exactly zero at the top rung. A formula that is only approximately
right stalls at its approximation error and falls from no rung; an
identity whose residual came out accidentally tiny at a low rung (a
cancellation on a rank-deficient or ill-conditioned input) still falls
from the next. For an inequality the quantity measured is the violation
(zero when the bound holds), judged at every rung with the same scaled
bound.

An exception raised by the formula under test on a case is a failing case;
any other exception is a defect of the check and propagates (ERROR).

Inputs are exact (rational) so that each rung rounds them afresh.

Measured mode (``relative=True``, the templates' default when a claim
gives no ``scale``): no guess of the case's conditioning is needed. An
identity passes when its residual falls with the precision as above, and
nothing else: conditioning moves the level of a true identity's residual,
never the rate at which it falls, while a false identity's residual falls
from no rung. The figure is the worst share ``required / achieved`` of the
fall (at most 1 passes). A bound that need not fall (``falls=False``)
passes when its violation at the top rung keeps at least
:data:`~theorems.core.tolerance.LADDER_MIN_KEPT_FRACTION` of the working digits
relative to the size of its terms (``residual(case)`` then returns
``(error, size)``); its figure is that relative violation in units of
``10**(-kept share x top digits)``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import mpmath

from theorems.evidence._common import IMPLEMENTATION_ERRORS, formula_failure, make, refuse_nan, timed
from theorems.core.model import Context, Evidence, EvidenceKind, EvidenceStatus
from theorems.core.tolerance import LADDER_MIN_KEPT_FRACTION, PRECISION_LADDER, THRESHOLD, ladder_fall, scaled_residual

__all__ = ["check"]


def check(
    ctx: Context,
    cases: Sequence[tuple[str, Any]],
    residual: Callable[[Any], tuple[Any, Any]],
    *,
    falls: bool = True,
    ladder: Sequence[int] = PRECISION_LADDER,
    relative: bool = False,
) -> Evidence:
    """``residual(case) -> (error, scale)`` is called inside ``mpmath.workdps``
    at each rung; ``error`` is an mpf norm, ``scale`` the size x operand-norm x
    condition factor of the tolerance model (``relative=True``: the size of
    the terms, see the module's measured mode). ``cases`` are (label, input)."""
    worst = 0.0
    table: dict[str, list[str]] = {}
    fall_from: dict[str, int] = {}
    failing = None
    why = ""
    with timed() as t:
        for label, case in cases:
            errs = []
            for dps in ladder:
                with mpmath.workdps(dps):
                    try:
                        err, scale = residual(case)
                        refuse_nan(err, ctx, f"the residual of case {label} at {dps} digits")
                    except IMPLEMENTATION_ERRORS as exc:
                        raised = formula_failure(exc, ctx)  # re-raises a crash of the check itself
                        err, scale = mpmath.inf, 1
                        if failing is None:
                            failing, why = (label, dps), raised
                    if relative:
                        top = dps == ladder[-1] and not falls
                        ratio = _kept(err, scale, dps) if top or not mpmath.isfinite(err) else 0.0
                    else:
                        ratio = scaled_residual(err, scale=scale, kind="mpmath")
                errs.append(err)
                worst = max(worst, ratio)
                if not ratio <= (1.0 if relative else THRESHOLD) and failing is None:
                    failing, why = (label, dps), (
                        f"relative residual {mpmath.nstr(err / scale if scale else err, 3)} at {dps} digits keeps "
                        f"fewer than {LADDER_MIN_KEPT_FRACTION:g} of the digits" if relative and mpmath.isfinite(err)
                        else f"scaled ratio {ratio:.3g} at {dps} digits")
            table[label] = [mpmath.nstr(e, 3) for e in errs]
            if falls and failing is None and all(mpmath.isfinite(e) for e in errs):
                ok_fall, achieved, required, rung = ladder_fall(errs, ladder)
                fall_from[label] = ladder[rung]
                if relative:  # the figure: share of the required fall not achieved
                    worst = max(worst, 0.0 if achieved == math.inf else required / max(achieved, 1e-300))
                if not ok_fall:
                    failing = (label, ladder[-1])
                    why = (f"residual fell at most {achieved:.1f} digits from {ladder[rung]} to {ladder[-1]} "
                           f"digits (need {required:g}): it stalls")
    ok = failing is None and bool(cases)  # a check over no case has checked nothing
    return make(
        ctx,
        EvidenceKind.PRECISE,
        ok,
        failed=EvidenceStatus.FAILED if failing is not None else EvidenceStatus.INCONCLUSIVE,
        seconds=t["seconds"],
        figure=worst,
        threshold=1.0 if relative else THRESHOLD,
        cases=len(cases) * len(ladder),
        counterexample=None if failing is None else {"case": failing[0], "digits": failing[1], "why": why},
        detail=("no ladder case: nothing was checked; " if not cases else "") + f"mpmath at {list(ladder)} digits; "
        + (("digits the residual must fall over digits it fell (worst case); " if falls else
            "top-rung violation relative to the terms, in units of 10^-(kept share x digits); ") if relative
           else "worst scaled ratio; ")
        + ("residual falls with precision" if falls else "violation within bound"),
        data={"ladder": list(ladder), "residuals": table, "fall_measured_from": fall_from,
              "domain": {"cases": [label for label, _ in cases], "digits": list(ladder)}},
    )


def _kept(err, size, dps: int) -> float:
    """The top-rung relative residual ``err / size`` in units of
    ``10**(-LADDER_MIN_KEPT_FRACTION * dps)`` (0 for an exact zero, inf for a
    non-finite residual or a nonzero residual of zero-sized terms)."""
    if err == 0:
        return 0.0
    if not mpmath.isfinite(err) or not size:
        return float("inf")
    return float(err / size * mpmath.power(10, LADDER_MIN_KEPT_FRACTION * dps))
