"""Property evidence: Hypothesis over float64 inputs, every case measured as a
scaled residual ratio (or, for an inequality, a scaled violation) against the
shared :data:`~theorems.core.tolerance.THRESHOLD`. The search is steered toward
the worst case with ``hypothesis.target``; the minimal failing input is
recorded with a command that replays it.

``measure`` may return :data:`BEYOND_FLOAT64` for a case whose terms keep
no significant digit in float64 (the templates' measured tolerance decides
this): such a case is counted and reported, never a counterexample, and
the check passes only when at least
:data:`~theorems.core.tolerance.FLOAT_MIN_RESOLVABLE_SHARE` of its cases were
resolvable (else it is INCONCLUSIVE). ``measure`` returns :data:`UNMEASURED`
for a case that failed the cheap test and could not be measured (its
mpmath reference could not be formed): counted and reported, and a check
with such a case is INCONCLUSIVE, never passed on its other cases alone.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from hypothesis import target
from hypothesis import strategies as st

from theorems.evidence._common import IMPLEMENTATION_ERRORS, SearchedDomain, formula_failure, hypothesis_test, jsonable, make, refuse_nan, timed
from theorems.core.model import Context, Evidence, EvidenceKind, EvidenceStatus
from theorems.core.tolerance import FLOAT_MIN_RESOLVABLE_SHARE, THRESHOLD

__all__ = ["BEYOND_FLOAT64", "UNMEASURED", "check"]

#: What ``measure`` returns for a case float64 cannot resolve.
BEYOND_FLOAT64 = type("BeyondFloat64", (), {"__repr__": lambda self: "BEYOND_FLOAT64"})()
#: What ``measure`` returns for a case that failed the cheap test and whose reference could not be formed:
#: neither a pass nor a counterexample, and a check whose only doubtful cases are these does not pass.
UNMEASURED = type("Unmeasured", (), {"__repr__": lambda self: "UNMEASURED"})()


class _Violation(AssertionError):
    pass


def _final_replay() -> bool:
    """Whether Hypothesis is running the minimal failing example again to
    report it (not a case of its own: ``--case float:RECIPE`` runs one)."""
    from hypothesis.control import current_build_context

    try:
        return bool(current_build_context().is_final)
    except Exception:  # noqa: BLE001 - outside a build context, or another Hypothesis layout
        return False


def check(
    ctx: Context,
    strategy: st.SearchStrategy,
    measure: Callable[[Any], float],
    *,
    describe: Callable[[Any], Any] = jsonable,
    threshold: float = THRESHOLD,
    examples: int | None = None,
    explicit: Sequence[Any] = (),
) -> Evidence:
    """Run ``measure`` (an input -> scaled ratio) over Hypothesis examples,
    the ``explicit`` inputs first at every seed (Hypothesis's explicit
    examples; they are not counted among the cases, which are the search's).

    Passes when every ratio is ``<= threshold``. A ``NaN`` ratio is an ERROR
    (:func:`~theorems.evidence._common.refuse_nan`), a failure under a negative control.
    """
    worst = {"ratio": 0.0, "n": 0, "beyond": 0, "unmeasured": 0, "failing": None}
    domain = SearchedDomain()

    def run(example):
        if not _final_replay():  # Hypothesis runs the minimal failing example once more to report it
            worst["n"] += 1
            domain.see(example)
        try:
            ratio = measure(example)
            if ratio is BEYOND_FLOAT64:
                worst["beyond"] += 1
                return
            if ratio is UNMEASURED:
                worst["unmeasured"] += 1
                return
            ratio = float(refuse_nan(ratio, ctx, "the scaled ratio"))
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

    run = hypothesis_test(ctx, strategy, run, max_examples=examples or ctx.profile.examples, explicit=explicit)

    with timed() as t:
        try:
            run()
            ok, cex = True, None
        except _Violation:
            ok, cex = False, describe(worst["failing"])
            if worst.get("error"):
                # a describe that already gives {"input": recipe, ...} (the templates' arrays) keeps its form
                cex = ({**cex, "raised": worst["error"]} if isinstance(cex, dict) and "input" in cex
                       else {"input": cex, "raised": worst["error"]})
    resolvable = worst["n"] - worst["beyond"] - worst["unmeasured"]
    enough = resolvable >= max(1, math.ceil(FLOAT_MIN_RESOLVABLE_SHARE * worst["n"]))
    beyond = (f"; {worst['beyond']} of {worst['n']} cases beyond float64 (their terms keep no significant digit), "
              f"{resolvable} resolvable" if worst["beyond"] else "")
    if ok and not enough:
        beyond += f" (need at least {FLOAT_MIN_RESOLVABLE_SHARE:g} of the cases resolvable: float64 cannot judge these inputs)"
    if worst["unmeasured"]:
        beyond += (f"; {worst['unmeasured']} of {worst['n']} cases failed the cheap test and their mpmath reference "
                   "could not be formed: not measured, so the check does not pass on the others alone")
    return make(
        ctx,
        EvidenceKind.PROPERTY,
        ok and enough and not worst["unmeasured"],
        failed=EvidenceStatus.FAILED if not ok else EvidenceStatus.INCONCLUSIVE,
        seconds=t["seconds"],
        figure=worst["ratio"],
        threshold=threshold,
        cases=worst["n"],
        counterexample=cex,
        detail="worst scaled residual ratio over float64 cases"
        + ("" if ok else "; minimal failing input recorded") + beyond,
        data={"domain": domain.to_json(), "beyond_float64": worst["beyond"], "resolvable": resolvable,
              "unmeasured": worst["unmeasured"]},
    )
