"""theorems.authoring.questions: a question's figure is read only where its measured design resolves it."""

from __future__ import annotations

import pytest

from theorems.authoring.questions import design_note, design_resolution, question_evidence

DESIGN = {"quick": {"a": (0.5, 0.2), "b": (-0.3, 0.01), "c": (0.09, 0.004)},
          "standard": {"a": (0.5, 0.01)}}


def test_resolved_when_the_typical_value_is_6_18_spreads_from_the_threshold():
    assert design_resolution(DESIGN, "b", "quick") is None  # 30 spreads from 0
    why = design_resolution(DESIGN, "a", "quick")  # 2.5 spreads at quick, 50 at standard
    assert why.startswith("a (typical 0.5, threshold 0): ") and "6.18" in why and why.endswith("run --profile standard")
    assert design_resolution(DESIGN, "a", "standard") is None


def test_the_margin_is_to_the_nearer_threshold():
    assert design_resolution(DESIGN, "c", "quick", thresholds=(0.0,)) is None  # 22 spreads from 0
    why = design_resolution(DESIGN, "c", "quick", thresholds=(-0.1, 0.1))  # 2.5 spreads from 0.1
    assert "threshold 0.1" in why and "no shipped profile reaches it" in why
    assert "(not measured at standard, thorough)" in why


def test_an_unmeasured_figure_or_level_is_unresolved_saying_so():
    why = design_resolution(DESIGN, "b", "thorough", where="the test table")
    assert why == ("b: its spread across seeds is not measured at profile thorough (the test table), so the design "
                   "cannot promise a stable verdict")
    with pytest.raises(ValueError, match="level must be one of"):
        design_resolution(DESIGN, "a", "fast")
    with pytest.raises(ValueError, match="thresholds must be a non-empty sequence"):
        design_resolution(DESIGN, "a", "quick", thresholds=())


def test_design_note_lists_the_measured_figures():
    assert design_note(DESIGN, "quick", ["b", "z", "a"]) == "b -0.3 +- 0.01; a 0.5 +- 0.2"
    assert design_note(DESIGN, "thorough", ["a"]) == ""


def test_question_evidence_is_answered_or_inconclusive_with_its_data():
    from theorems.claims import real
    from theorems.core.profiles import get_profile
    from theorems.core.runner import Impl, _context

    claim = real.CLAIMS[0]
    ctx = _context(claim, claim.checks[0], Impl.default(), get_profile("quick"), 1)
    yes = question_evidence(ctx, True, {"answer": "x"}, detail="d", figure=2.0, threshold=2.0)
    no = question_evidence(ctx, False, {"answer": "y"}, detail="d")
    assert (yes.status.value, no.status.value) == ("answered", "inconclusive")
    assert yes.data == {"answer": "x"} and yes.figure == 2.0 and yes.check == claim.checks[0].name


def test_question_declares_an_answer_and_a_reference_check():
    from theorems.core.model import ClaimKind, EvidenceKind
    from theorems.authoring.questions import question
    from theorems.authoring.templates import wrong

    claim = question("doc.q", title="t", statement="s", source="ours", answer=len, reference=len,
                     control=wrong("w", snr=abs), about=("what answers", "what recomputes it"), tags=("x",))
    assert claim.kind is ClaimKind.QUESTION and claim.tags == ("x",) and claim.depends_on == ()
    assert [(c.name, c.kind) for c in claim.checks] == [("answer", EvidenceKind.SIMULATION),
                                                         ("reference", EvidenceKind.PROPERTY)]
    assert [c.description for c in claim.checks] == ["what answers", "what recomputes it"]


def test_question_checks_run_on_one_blas_thread():
    from threadpoolctl import threadpool_info, threadpool_limits

    from theorems.authoring.questions import question
    from theorems.authoring.templates import wrong

    def blas_threads(ctx):
        return {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}

    if not blas_threads(None):
        pytest.skip("no BLAS thread pool visible to threadpoolctl")
    claim = question("doc.q", title="t", statement="s", source="ours", answer=blas_threads, reference=blas_threads,
                     control=wrong("w", snr=abs), about=("a", "r"))
    with threadpool_limits(limits=2, user_api="blas"):  # outside the checks, two threads
        assert [c.run(None) for c in claim.checks] == [{1}, {1}]
    assert claim.checks[0].run.__name__ == "blas_threads"  # the declared check, wrapped


def test_a_reading_answers_the_resolved_figures_and_counts_them():
    from theorems.claims import real
    from theorems.core.profiles import get_profile
    from theorems.authoring.questions import read_design
    from theorems.core.runner import Impl, _context

    read = read_design(DESIGN, "quick", {"x": "a", "y": "b", "z": "unmeasured"}, where="the test table")
    assert read.resolved == ["y"] and read.note == "a 0.5 +- 0.2; b -0.3 +- 0.01"
    assert read.whys == [read.underpowered["x"], read.underpowered["z"]] and "the test table" in read.whys[1]
    assert read.answers(lambda key: f"answer {key}") == {"x": "not resolvable at quick", "y": "answer y",
                                                       "z": "not resolvable at quick"}
    claim = real.CLAIMS[0]
    ctx = _context(claim, claim.checks[0], Impl.default(), get_profile("quick"), 1)
    partly = read.evidence(ctx, {}, detail="d")
    assert (partly.status.value, partly.figure, partly.threshold) == ("inconclusive", 1.0, 3.0)
    whole = read_design(DESIGN, "standard", {"x": "a"}).evidence(ctx, {"k": 1}, detail="d", cases=4)
    assert (whole.status.value, whole.figure, whole.threshold, whole.cases, whole.data) == ("answered", 1.0, 1.0, 4,
                                                                                           {"k": 1})
    assert read_design(DESIGN, "quick", {"x": "b"}, thresholds=(-0.3, 0.3)).resolved == []  # at a threshold


def test_reference_evidence_passes_within_the_threshold_and_names_the_failing_figures():
    import numpy as np

    from theorems.claims import real
    from theorems.core.profiles import get_profile
    from theorems.authoring.questions import reference_evidence
    from theorems.core.runner import Impl, _context
    from theorems.core.tolerance import THRESHOLD

    claim = real.CLAIMS[0]
    ctx = _context(claim, claim.checks[1], Impl.default(), get_profile("quick"), 1)
    eps = float(np.finfo(float).eps)
    got = {"a": np.array([1.0, 2.0 + 4 * eps]), "b": 0.5}
    ok = reference_evidence(ctx, got, {"a": np.array([1.0, 2.0]), "b": 0.5}, {"a": 1.0, "b": 1.0}, what="w")
    assert ok.status.value == "passed" and ok.figure == 4.0 and ok.cases == 2 and ok.counterexample is None
    assert ok.detail == "w; worst scaled ratio 4" and ok.threshold == THRESHOLD
    bad = reference_evidence(ctx, got, {"a": np.array([1.0, 2.0]), "b": 0.5 + 1e-6}, {"a": 1.0, "b": 1.0}, what="w")
    assert bad.status.value == "failed" and list(bad.counterexample) == ["b"]
    assert bad.counterexample["b"]["gap"] == abs(0.5 - (0.5 + 1e-6)) and bad.figure > THRESHOLD
