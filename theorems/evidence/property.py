"""Property evidence: Hypothesis over float64 inputs, every case measured as a
scaled residual ratio (or, for an inequality, a scaled violation) against the
shared :data:`~theorems.tolerance.THRESHOLD`. The search is steered toward
the worst case with ``hypothesis.target``; the minimal failing input is
recorded with a command that replays it.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from hypothesis import given, target
from hypothesis import strategies as st

from theorems.evidence._common import IMPLEMENTATION_ERRORS, SearchedDomain, formula_failure, hypothesis_seed, hypothesis_settings, jsonable, make, refuse_nan, timed
from theorems.model import Context, Evidence, EvidenceKind
from theorems.tolerance import THRESHOLD

__all__ = ["check"]


class _Violation(AssertionError):
    pass


def check(
    ctx: Context,
    strategy: st.SearchStrategy,
    measure: Callable[[Any], float],
    *,
    describe: Callable[[Any], Any] = jsonable,
    threshold: float = THRESHOLD,
    examples: int | None = None,
) -> Evidence:
    """Run ``measure`` (an input -> scaled ratio) over Hypothesis examples.

    Passes when every ratio is ``<= threshold``. A ``NaN`` ratio is an ERROR
    (:func:`~theorems.evidence._common.refuse_nan`), a failure under a negative control.
    """
    worst = {"ratio": 0.0, "n": 0, "failing": None}
    domain = SearchedDomain()

    @hypothesis_settings(examples or ctx.profile.examples, shrink=not ctx.control)
    @hypothesis_seed(ctx)
    @given(strategy)
    def run(example):
        worst["n"] += 1
        domain.see(example)
        try:
            ratio = float(refuse_nan(measure(example), ctx, "the scaled ratio"))
        except IMPLEMENTATION_ERRORS as exc:
            why = formula_failure(exc, ctx)  # re-raises a crash of the check itself
            worst["failing"], worst["ratio"], worst["error"] = example, math.inf, why
            raise _Violation(why) from None
        finite = ratio if math.isfinite(ratio) else 1e300
        target(math.log10(1e-300 + finite), label="log10 scaled ratio")
        if not (ratio <= threshold):
            worst["failing"] = example
            worst["ratio"] = ratio if math.isfinite(ratio) else math.inf
            raise _Violation(f"scaled ratio {ratio:.3g} > {threshold}")
        worst["ratio"] = max(worst["ratio"], ratio)

    with timed() as t:
        try:
            run()
            ok, cex = True, None
        except _Violation:
            ok, cex = False, describe(worst["failing"])
            if worst.get("error"):
                cex = {"input": cex, "raised": worst["error"]}
    return make(
        ctx,
        EvidenceKind.PROPERTY,
        ok,
        seconds=t["seconds"],
        figure=worst["ratio"],
        threshold=threshold,
        cases=worst["n"],
        counterexample=cex,
        detail="worst scaled residual ratio over float64 cases"
        + ("" if ok else "; minimal failing input recorded"),
        data={"domain": domain.to_json()},
    )
