"""The claim machinery: registry validation, status derivation, isolation of
failing checks, negative-control plumbing, report schema and atomic writes."""

from __future__ import annotations

import json
import math
import time

import pytest

from theorems.evidence._common import make
from theorems.core.impl import Impl
from theorems.core.model import (
    Check,
    Claim,
    ClaimKind,
    Evidence,
    EvidenceKind,
    EvidenceStatus,
    NegativeControl,
    Status,
)
from theorems.core.profiles import get_profile
from theorems.core.registry import Registry, load_claims, select
from theorems.reporting.report import build_report, render_markdown, validate_report, write_text_atomic
from theorems.core.runner import run

NC = NegativeControl("nothing", {"snr": lambda h: h})


def _check(status=EvidenceStatus.PASSED, kind=EvidenceKind.SIMULATION, name="c", figure=1.0):
    def run_(ctx):
        return make(ctx, kind, status == EvidenceStatus.PASSED or status == EvidenceStatus.SUPPORTED,
                    seconds=0.0, figure=figure, threshold=2.0,
                    passed=status if status in (EvidenceStatus.PASSED, EvidenceStatus.SUPPORTED) else EvidenceStatus.PASSED,
                    failed=status)
    return Check(name, kind, run_)


def _claim(cid, *checks, deps=(), kind=ClaimKind.ASYMPTOTIC):
    return Claim(cid, cid, "x", kind, "test", checks=checks or (_check(EvidenceStatus.SUPPORTED),),
                 depends_on=deps, negative_control=NC)


def test_an_empty_registry_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        Registry([])


def test_duplicate_ids_unknown_dependencies_and_cycles_are_refused():
    a = _claim("t.a")
    with pytest.raises(ValueError, match="duplicate"):
        Registry([a, a])
    with pytest.raises(ValueError, match="unknown claims"):
        Registry([_claim("t.b", deps=("t.zzz",))])
    with pytest.raises(ValueError, match="cycle"):
        Registry([_claim("t.c", deps=("t.d",)), _claim("t.d", deps=("t.c",))])


def test_a_claim_without_the_evidence_its_kind_needs_is_refused():
    with pytest.raises(ValueError, match="lacks required evidence"):
        Claim("t.x", "x", "x", ClaimKind.IDENTITY, "s", checks=(_check(kind=EvidenceKind.PROPERTY),),
              negative_control=NC)
    with pytest.raises(ValueError, match="negative control"):
        Claim("t.y", "y", "y", ClaimKind.ASYMPTOTIC, "s", checks=(_check(),))
    with pytest.raises(ValueError, match="needs a reason"):
        Claim("t.z", "z", "z", ClaimKind.UNDERSPECIFIED, "s")


def test_status_follows_evidence_then_dependencies():
    failing = _claim("t.fail", _check(EvidenceStatus.FAILED))
    child = _claim("t.child", deps=("t.fail",))
    ok = _claim("t.ok")
    under = Claim("t.under", "u", "u", ClaimKind.UNDERSPECIFIED, "s", reason="no constant given")
    reg = Registry([failing, child, ok, under])
    res = run(reg, profile=get_profile("quick"))
    status = {r.claim.id: r.status for r in res.results}
    assert status == {"t.fail": Status.FAILED, "t.child": Status.BLOCKED,
                      "t.ok": Status.SUPPORTED, "t.under": Status.UNDERSPECIFIED}
    assert [r.blocked_by for r in res.results if r.claim.id == "t.child"] == [["t.fail"]]
    assert not res.ok


def _raising(ctx):
    raise RuntimeError("boom")


def _nan(ctx):
    return make(ctx, EvidenceKind.SIMULATION, True, seconds=0.0, figure=math.nan, threshold=1.0,
                passed=EvidenceStatus.SUPPORTED)


def _slow(ctx):
    time.sleep(5)


def _slow_hypothesis(ctx):
    from hypothesis import strategies as st

    from theorems.evidence import property as prop

    def measure(x):
        time.sleep(0.05)
        return 0.0

    return prop.check(ctx, st.integers(), measure, examples=1000)


def test_a_raising_a_nan_and_a_slow_check_each_give_error_and_the_run_goes_on():
    claims = [
        _claim("t.raise", Check("c", EvidenceKind.SIMULATION, _raising)),
        _claim("t.nan", Check("c", EvidenceKind.SIMULATION, _nan)),
        _claim("t.slow", Check("c", EvidenceKind.SIMULATION, _slow)),
        _claim("t.slow-hyp", Check("c", EvidenceKind.SIMULATION, _slow_hypothesis)),
        _claim("t.after"),
    ]
    from dataclasses import replace

    profile = replace(get_profile("quick"), check_budget_s=0.3)
    start = time.perf_counter()
    res = run(Registry(claims), profile=profile)
    assert time.perf_counter() - start < 5, "a budget was not enforced"
    status = {r.claim.id: r.status for r in res.results}
    assert status == {"t.raise": Status.ERROR, "t.nan": Status.ERROR, "t.slow": Status.ERROR,
                      "t.slow-hyp": Status.ERROR, "t.after": Status.SUPPORTED}
    details = {r.claim.id: r.evidence[0].detail for r in res.results}
    assert "boom" in details["t.raise"] and "NaN" in details["t.nan"] and "budget" in details["t.slow"]
    assert "budget" in details["t.slow-hyp"]


def test_overrides_replace_one_formula_and_refuse_unknown_names():
    impl = Impl.default().with_overrides({"snr": lambda h: -1})
    assert impl.snr(0.5) == -1 and impl.overridden == ("snr",)
    assert float(Impl.default().snr(0.5)) == 1.0
    with pytest.raises(KeyError, match="unknown formulas"):
        Impl.default().with_overrides({"no_such_formula": abs})


def test_select_by_glob_prefix_and_kind_and_refuse_patterns_matching_nothing():
    reg = load_claims()
    glob = {c.id for c in select(reg, ["recall.*"])}
    assert {"recall.error", "recall.mean-error"} <= glob
    assert glob == {c for c in reg.ids() if c.startswith("recall.")}
    assert {c.id for c in select(reg, ["recall."])} == glob
    assert [c.id for c in select(reg, ["recall.error"])] == ["recall.error"]
    assert all(c.kind is ClaimKind.EXPECTATION for c in select(reg, kinds=["expectation"]))
    with pytest.raises(ValueError, match="match no claim"):
        select(reg, ["recall.nonexistent"])


def test_reports_validate_against_the_shipped_schema_and_render():
    reg = load_claims()
    res = run(select(reg, ["lev.range", "cap.*"]), profile=get_profile("quick"))
    report = build_report(res)
    validate_report(report)
    json.dumps(report)
    md = render_markdown(report)
    assert "`lev.range`" in md and "VERIFIED" in md


def test_atomic_write_leaves_the_old_file_when_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("old")

    def broken_replace(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr("theorems.reporting.report.os.replace", broken_replace)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_evidence_json_renders_exact_and_array_counterexamples():
    import numpy as np
    from fractions import Fraction

    ev = Evidence("c", EvidenceKind.SYMBOLIC, EvidenceStatus.FAILED, figure=math.inf,
                  counterexample={"K": np.array([[Fraction(1, 3)]], dtype=object)})
    out = ev.to_json()
    assert out["counterexample"] == {"K": [["1/3"]]} and out["figure"] == "inf"


class _SlowFinaliser:
    def __del__(self):
        time.sleep(0.02)


def _half_in_finalisers(ctx):
    for _ in range(1000):  # 40 s unbounded; half of it inside __del__, where an exception is swallowed
        _SlowFinaliser()
        time.sleep(0.02)
    return make(ctx, EvidenceKind.SIMULATION, True, seconds=0.0, figure=0.0, threshold=1.0,
                passed=EvidenceStatus.SUPPORTED)


def test_a_budget_alarm_swallowed_by_a_finaliser_is_repeated_until_the_check_stops():
    # an alarm that lands in a finaliser or weakref callback (garbage collection) is "unraisable": Python
    # prints and drops it; the budget repeats the alarm, and the dropped ones are not reported
    from dataclasses import replace

    profile = replace(get_profile("quick"), check_budget_s=0.3)
    start = time.perf_counter()
    res = run(Registry([_claim("t.finalisers", Check("c", EvidenceKind.SIMULATION, _half_in_finalisers))]),
              profile=profile)
    assert time.perf_counter() - start < 20, "the check ran on past its budget"
    assert res.results[0].status is Status.ERROR and "budget" in res.results[0].evidence[0].detail


def test_the_budget_alarm_reaches_the_main_thread_while_other_threads_run():
    # a process-wide alarm may be delivered to any thread; the budget aims it at the main thread
    import threading

    from theorems.core.runner import CheckTimeout, _budget

    stop = threading.Event()
    others = [threading.Thread(target=stop.wait, daemon=True) for _ in range(8)]
    for t in others:
        t.start()
    try:
        start = time.perf_counter()
        with pytest.raises(CheckTimeout):
            with _budget(0.2):
                time.sleep(30)
        assert time.perf_counter() - start < 10
    finally:
        stop.set()


def _says_passed(figure, comparison):
    def run_(ctx):
        return Evidence(check="c", kind=EvidenceKind.SIMULATION, status=EvidenceStatus.PASSED, figure=figure,
                        threshold=2.0, comparison=comparison, seeds=[ctx.seed])
    return Check("c", EvidenceKind.SIMULATION, run_)


@pytest.mark.parametrize("figure, comparison, ok", [
    (1.0, "<=", True), (2.0, "<=", True), (1e6, "<=", False), (2.0, "<", False),
    (3.0, ">=", True), (1.0, ">=", False), (2.0, ">", False), (5.0, ">", True),
])
def test_a_check_that_says_passed_with_its_figure_past_its_threshold_is_an_error(figure, comparison, ok):
    res = run(Registry([_claim("t.self", _says_passed(figure, comparison))]),
              profile=get_profile("quick"), in_process=True)
    ev = res.results[0].evidence[0]
    assert (res.results[0].status is Status.VERIFIED) is ok
    if not ok:
        assert ev.status is EvidenceStatus.ERROR and "says passed but its figure" in ev.detail


def test_an_unknown_comparison_is_unusable_evidence():
    res = run(Registry([_claim("t.cmp", _says_passed(1.0, "=<"))]),
              profile=get_profile("quick"), in_process=True)
    assert res.results[0].status is Status.ERROR and "comparison must be one of" in res.results[0].evidence[0].detail
