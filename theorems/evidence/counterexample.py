"""Counterexample evidence: a witness that something does NOT hold in general,
built by hand or found by a Hypothesis search (shrunk to a minimal case),
then verified in exact arithmetic."""

from __future__ import annotations

from typing import Any, Callable

from hypothesis import find
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from theorems.evidence._common import hypothesis_settings, jsonable, make, timed
from theorems.core.model import Context, Evidence, EvidenceKind

__all__ = ["check", "search"]


def search(ctx: Context, strategy: st.SearchStrategy, condition: Callable[[Any], bool], *, examples: int | None = None):
    """The minimal example of ``strategy`` satisfying ``condition``, or None."""
    try:
        return find(
            strategy,
            condition,
            settings=hypothesis_settings(examples or max(200, ctx.profile.examples * 10), shrink=not ctx.control,
                                        database=getattr(ctx.hypothesis, "database", None)),
            random=__import__("random").Random(ctx.seed),
        )
    except NoSuchExample:
        return None


def check(
    ctx: Context,
    witness: Callable[[Context], Any],
    verify: Callable[[Any], tuple],
    *,
    describe: Callable[[Any], Any] = jsonable,
    how: str,
) -> Evidence:
    """``witness(ctx)`` builds or finds the witness (None if none was found);
    ``verify(w) -> (holds, figure)`` checks it exactly. Passes iff a witness
    exists and verifies. The report shows ``describe(w)`` of it, or the
    ``details`` of a verifier returning ``(holds, figure, details)``."""
    with timed() as t:
        w = witness(ctx)
        holds, figure, *details = (False, None) if w is None else verify(w)
    ok = w is not None and bool(holds)
    return make(
        ctx,
        EvidenceKind.COUNTEREXAMPLE,
        ok,
        seconds=t["seconds"],
        figure=None if figure is None else float(figure),
        threshold=0.0,
        comparison=">",
        cases=1 if w is not None else 0,
        counterexample=None,
        detail=f"witness {how}; "
        + ("verified in exact arithmetic" if ok else "no witness verified"),
        data={"witness": None if w is None else details[0] if details else describe(w)},
    )
