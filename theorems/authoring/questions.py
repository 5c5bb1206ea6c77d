"""Questions decided by a measured design.

A question claim (:attr:`theorems.core.model.ClaimKind.QUESTION`) answers from a
figure whose sign or side of a threshold is the answer. Its verdict must not
depend on the run seed, so it is read only where the profile resolves the
figure *by design*: the claim states, per profile level, the figure's
typical value and its standard deviation across run seeds (measured once
and kept as data), and the
check decides from that table alone, before any draw, whether the figure is
resolved (:func:`design_resolution`). The evidence is then ANSWERED when
every figure of the question is resolved and INCONCLUSIVE (by design, with
the reason) otherwise, at every seed alike (:func:`question_evidence`).

>>> design = {"quick": {"gap": (0.5, 0.2)}, "standard": {"gap": (0.5, 0.01)}}
>>> print(design_resolution(design, "gap", "quick"))  # doctest: +ELLIPSIS
gap (typical 0.5, threshold 0): the effect 0.5 is 2.5 standard deviations ...; run --profile standard
>>> design_resolution(design, "gap", "standard") is None
True
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from theorems.evidence import simulation
from theorems.authoring.templates import controls_of
from theorems.evidence._common import make
from theorems.core.model import Check, Claim, ClaimKind, Context, EvidenceKind, EvidenceStatus, NegativeControl
from theorems.core.profiles import LEVELS
from theorems.core.tolerance import THRESHOLD, required_margin_sd, scaled_residual

__all__ = ["Reading", "by_design", "design_note", "design_resolution", "question", "question_evidence", "read_design",
           "reference_evidence"]

#: A measured design: {profile level: {figure: (typical value, sd across run seeds)}}.
Design = Mapping[str, Mapping[str, tuple[float, float]]]


def design_resolution(design: Design, figure: str, level: str, *, thresholds: Sequence[float] = (0.0,),
                      where: str = "the claim's design") -> str | None:
    """Why profile ``level`` cannot resolve ``figure`` (None when it can),
    from ``design`` alone.

    Resolved when its typical value lies at least
    :func:`theorems.core.tolerance.required_margin_sd` standard deviations from
    the nearest of ``thresholds`` (:func:`theorems.evidence.simulation.underpowered`).
    The reason names the first later level that resolves it, and the later
    levels where it is not measured; a figure not measured at ``level`` is
    unresolved, saying so (``where`` names the table)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {list(LEVELS)}, got {level!r}")
    if isinstance(thresholds, (str, bytes)) or not len(thresholds):
        raise ValueError(f"thresholds must be a non-empty sequence of numbers, got {thresholds!r}")
    later = LEVELS[LEVELS.index(level) + 1:]

    def effect(entry):
        return min(abs(entry[0] - t) for t in thresholds)

    entry = design.get(level, {}).get(figure)
    if entry is None:
        return (f"{figure}: its spread across seeds is not measured at profile {level} ({where}), so the "
                "design cannot promise a stable verdict")
    better = next((name for name in later if (e := design.get(name, {}).get(figure)) is not None
                   and simulation.underpowered(effect=effect(e), spread=e[1], profile=name, better=None) is None),
                  None)
    typical, sd = entry
    why = simulation.underpowered(effect=effect(entry), spread=sd, profile=level, better=better)
    if why is None:
        return None
    unmeasured = [name for name in later if figure not in design.get(name, {})]
    near = min(thresholds, key=lambda t: abs(typical - t))
    return (f"{figure} (typical {typical:.4g}, threshold {near:g}): {why}"
            + (f" (not measured at {', '.join(unmeasured)})" if better is None and unmeasured else ""))


def design_note(design: Design, level: str, figures: Sequence[str]) -> str:
    """``figure typical +- sd; ...`` for the ``figures`` measured at ``level``.

    >>> design_note({"quick": {"a": (0.1234, 0.01)}}, "quick", ["a", "b"])
    'a 0.123 +- 0.01'
    """
    table = design.get(level, {})
    return "; ".join(f"{f} {table[f][0]:.3g} +- {table[f][1]:.2g}" for f in figures if f in table)


@dataclasses.dataclass(frozen=True)
class Reading:
    """What a measured design says of a question's figures at one profile
    level, before any draw (:func:`read_design`): ``underpowered`` maps each
    figure's key to why the level cannot resolve it (None where it can),
    ``note`` is their :func:`design_note`."""

    level: str
    underpowered: dict
    note: str

    @property
    def resolved(self) -> list:
        """The keys of the figures the level resolves, in order."""
        return [key for key, why in self.underpowered.items() if why is None]

    @property
    def whys(self) -> list[str]:
        """Why each unresolved figure is unresolved, in order."""
        return [why for why in self.underpowered.values() if why is not None]

    def answers(self, answer: Callable[[Any], str]) -> dict:
        """``answer(key)`` for each resolved figure, ``not resolvable at <level>`` for the others."""
        return {key: answer(key) if why is None else f"not resolvable at {self.level}"
                for key, why in self.underpowered.items()}

    def evidence(self, ctx: Context, data: dict, *, detail: str, **fields: Any):
        """The answer evidence (:func:`question_evidence`): ANSWERED when the
        level resolves every figure, its figure the number resolved against
        the number asked (unless ``fields`` set them)."""
        counts = {"figure": float(len(self.resolved)), "threshold": float(len(self.underpowered))}
        return question_evidence(ctx, not self.whys, data, detail=detail, **{**counts, **fields})


def read_design(design: Design, level: str, figures: Mapping[Any, str], *, thresholds: Sequence[float] = (0.0,),
                where: str = "the claim's design") -> Reading:
    """The :class:`Reading` of ``figures`` (key, e.g. a condition -> the
    figure's name in ``design``) at profile ``level``: each figure's
    :func:`design_resolution` against ``thresholds``.

    >>> r = read_design({"quick": {"m:a": (0.5, 0.01), "m:b": (0.5, 0.2)}}, "quick", {"a": "m:a", "b": "m:b"})
    >>> r.resolved, r.answers(lambda key: "up"), r.note
    (['a'], {'a': 'up', 'b': 'not resolvable at quick'}, 'm:a 0.5 +- 0.01; m:b 0.5 +- 0.2')
    """
    return Reading(level, {key: design_resolution(design, f, level, thresholds=thresholds, where=where)
                           for key, f in figures.items()}, design_note(design, level, list(figures.values())))


def by_design(typical: str = "typical", reference: str = "0", *, table: str = "DESIGN") -> str:
    """The rule's clause for a figure read by design, with the margin of
    :func:`theorems.core.tolerance.required_margin_sd` (never retyped).

    >>> by_design("typical gap", "the nearer bound")  # doctest: +ELLIPSIS
    'read only where ... by design (typical gap >= 6.18 sd across seeds from the nearer bound: DESIGN), else ...'
    """
    return (f"read only where the profile resolves it by design ({typical} >= {required_margin_sd():.2f} sd across "
            f"seeds from {reference}: {table}), else INCONCLUSIVE")


def question_evidence(ctx: Context, answered: bool, data: dict, *, detail: str, seconds: float = 0.0,
                      figure: float = 0.0, threshold: float = 0.0, comparison: str = ">=", cases: int = 0,
                      **fields: Any):
    """A question's ``answer`` evidence: ANSWERED when ``answered`` (every
    figure resolved by design), else INCONCLUSIVE, carrying ``data``."""
    ev = make(ctx, EvidenceKind.SIMULATION, answered, seconds=seconds, passed=EvidenceStatus.ANSWERED,
              failed=EvidenceStatus.INCONCLUSIVE, figure=figure, threshold=threshold, comparison=comparison,
              cases=cases, detail=detail, **fields)
    ev.data = data
    return ev


def _one_blas_thread(run: Callable) -> Callable:
    @functools.wraps(run)
    def on_one_thread(ctx):
        with simulation.one_blas_thread():
            return run(ctx)

    return on_one_thread


def reference_evidence(ctx: Context, got: Mapping[str, Any], ref: Mapping[str, Any], scales: Mapping[str, Any], *,
                       what: str):
    """A question's ``reference`` evidence (property, can fail): each
    figure the pipeline measured (``got[name]``, a number or an array)
    against its independent recomputation ``ref[name]``, the largest
    entrywise gap as a scaled residual ratio over ``scales[name]``
    (:func:`theorems.core.tolerance.scaled_residual`); passed when the worst is
    within :data:`theorems.core.tolerance.THRESHOLD`, else the failing figures
    are the counterexample (ratio and gap)."""
    gaps = {k: float(np.max(np.abs(np.asarray(got[k], dtype=float) - np.asarray(ref[k], dtype=float)))) for k in ref}
    ratios = {k: scaled_residual(gap, scale=scales[k]) for k, gap in gaps.items()}
    worst = max(ratios.values())
    bad = {k: {"ratio": r, "gap": gaps[k]} for k, r in ratios.items() if not r <= THRESHOLD}
    return make(ctx, EvidenceKind.PROPERTY, not bad, seconds=0.0, figure=worst, threshold=THRESHOLD, cases=len(ratios),
                counterexample=bad or None, detail=f"{what}; worst scaled ratio {worst:.3g}")


def question(id: str, *, title: str, statement: str, source: str, answer: Callable, reference: Callable,
             control: NegativeControl | Sequence[NegativeControl], about: tuple[str, str], assumptions: Sequence[str] = (),
             depends_on: Sequence[str] = (), tags: Sequence[str] = (), **fields: Any) -> Claim:
    """A question claim: the ``answer`` check (simulation evidence through
    :func:`question_evidence`, decided by design) and a ``reference`` check
    (property evidence that can fail: the pipeline's figures recomputed
    independently), described by ``about`` = (answer, reference). Both run
    on one BLAS thread (:func:`theorems.evidence.simulation.one_blas_thread`:
    a measured design's spreads were measured so, and many small
    factorisations run faster so); the runner times them."""
    checks = (Check("answer", EvidenceKind.SIMULATION, _one_blas_thread(answer), about[0]),
              Check("reference", EvidenceKind.PROPERTY, _one_blas_thread(reference), about[1]))
    return Claim(id=id, title=title, statement=statement, kind=ClaimKind.QUESTION, source=source, checks=checks,
                 assumptions=tuple(assumptions), depends_on=tuple(depends_on), **controls_of(control),
                 tags=tuple(tags), **fields)
