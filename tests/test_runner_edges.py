"""The supervised runner at its edges, in this process (the workers fork
from it): a negative control whose worker dies, the time a dead or failed
worker is charged, the workers closed after a run, what a recorded claim
says about sweeps run elsewhere. Each test pins one rule of
theorems/core/runner.py that the catalogue never reaches."""

from __future__ import annotations

import os

import pytest

from theorems import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.core import runner
from theorems.core.impl import Impl
from theorems.core.model import Evidence, EvidenceStatus, Status
from theorems.core.profiles import get_profile
from theorems.evidence._common import replay_command

QUICK = get_profile("quick")


def _passed(ctx) -> Evidence:
    return Evidence(check=ctx.check_name, kind=EvidenceKind.SIMULATION, status=EvidenceStatus.PASSED,
                    figure=0.0, threshold=1.0, cases=1, seeds=[ctx.seed], detail="0 <= 1", replay=replay_command(ctx))


def _dies_under_the_control(ctx) -> Evidence:
    if ctx.control:
        os._exit(3)
    return _passed(ctx)


@pytest.fixture
def workers_made(monkeypatch) -> list:
    """Every supervised worker the test's runs start, in the order started."""
    from theorems.scale import supervise

    made = []

    class Recorded(supervise.Worker):
        def __init__(self, handler):
            super().__init__(handler)
            made.append(self)

    monkeypatch.setattr(supervise, "Worker", Recorded)
    return made


def _claim(cid: str, body) -> Claim:
    return Claim(id=cid, title=cid, statement="x", kind=ClaimKind.CONJECTURE, source="test",
                 checks=(Check("first", EvidenceKind.SIMULATION, _passed),
                         Check("crash", EvidenceKind.SIMULATION, body)),
                 negative_control=NegativeControl("the identity for the projectors",
                                                  {"projectors": lambda K: (K, K)}))


def test_a_control_whose_worker_dies_is_not_caught_and_says_why_and_the_workers_are_closed(workers_made):
    made = workers_made
    result = runner.run([_claim("edge.control-dies", _dies_under_the_control)], profile=QUICK, controls=True,
                        jobs=1, cache=None)
    (res,) = result.results
    assert res.status == Status.VERIFIED  # the claim's own checks passed
    nc = res.negative_control
    assert nc["caught"] is False and nc["status"] == "ERROR"
    assert nc["checks"] == {"crash": "error"}
    assert nc["detail"].startswith("the negative control's ") and "exit code 3" in nc["detail"], nc["detail"]
    assert not result.ok  # a control that was not caught fails the run
    assert len(made) == 2  # the first, and a fresh one after it died
    assert all(w.process.exitcode is not None for w in made)  # every worker of the run has ended


def test_call_supervised_charges_a_failed_task_the_time_of_its_step():
    def task(_announce):
        raise RuntimeError("the runner's own code failed")

    died = runner.call_supervised(task, profile=QUICK, step=("claim", "first"))
    assert died.raised is not None and "RuntimeError" in died.raised
    assert died.step == ("claim", "first")
    assert 0.0 <= died.step_seconds < 60.0


def test_a_claim_whose_worker_fails_outside_its_checks_is_an_error_charged_its_own_time(monkeypatch):
    def broken(*_a, **_kw):
        raise RuntimeError("recording failed")

    monkeypatch.setattr(runner, "_run_claim_recorded", broken)  # forked into the worker with the rest
    (res,) = runner.run([_claim("edge.worker-fails", _passed)], profile=QUICK, jobs=1, cache=None).results
    assert res.status == Status.ERROR
    failed = [e for e in res.evidence if e.status == EvidenceStatus.ERROR]
    assert failed and "recording failed" in failed[0].detail
    assert all(0.0 <= e.seconds < 60.0 for e in res.evidence) and 0.0 <= res.seconds < 60.0


def test_a_recorded_claim_run_with_an_executor_says_its_sweeps_ran_remotely():
    claim = _claim("edge.recorded", _passed)
    res = runner._run_claim_recorded(claim, True, True, profile=QUICK, executor=object(), cache=None)
    assert res.executed is not None and res.executed["remote"] is True
    res = runner._run_claim_recorded(claim, True, True, profile=QUICK, cache=None)
    assert res.executed is not None and "remote" not in res.executed


def test_an_exception_while_settling_stops_every_worker_and_propagates(workers_made):
    made = workers_made

    def interrupted(*_args):
        raise KeyboardInterrupt

    claims = [_claim(f"edge.stopped-{k}", _passed) for k in range(3)]
    try:
        with pytest.raises(KeyboardInterrupt):
            runner.run(claims, profile=QUICK, jobs=2, cache=None, progress=interrupted)
        assert len(made) == 2
        assert all(w.process.exitcode is not None for w in made)  # none left running
    finally:
        for w in made:  # a runner that left them would hang this session at its exit
            if w.process.exitcode is None:
                w.stop()


def test_a_figure_without_a_threshold_or_a_threshold_without_a_figure_is_nothing_to_cross_check():
    for figure, threshold in ((None, 1.0), (1.0, None), (None, None)):
        ev = Evidence(check="c", kind=EvidenceKind.SIMULATION, status=EvidenceStatus.PASSED, figure=figure,
                      threshold=threshold)
        assert runner._figure_meets_threshold(ev) is True
        assert runner._invalid_evidence(ev) is None


def test_results_under_other_formulas_are_never_reused_nor_stored_and_reused_ones_settle_in_order(tmp_path):
    from theorems.core.impl import Impl
    from theorems.scale.reuse import ReuseStore

    claims = [_claim(f"edge.reuse-{k}", _passed) for k in range(3)]
    store = ReuseStore(tmp_path / "records")
    runner.run(claims, profile=QUICK, reuse=store, impl=Impl.default(), jobs=1, cache=None)
    assert store.stored == 0  # other formulas (impl given): nothing stored
    first = runner.run(claims[::2], profile=QUICK, reuse=store, jobs=1, cache=None)  # the first and the last
    assert store.stored == 2 and [r.reused for r in first.results] == [None, None]
    order = []
    again = runner.run(claims, profile=QUICK, reuse=ReuseStore(tmp_path / "records"), jobs=1, cache=None,
                       progress=lambda i, n, res: order.append((i, res.claim.id)))
    assert [r.reused is not None for r in again.results] == [True, False, True]
    assert order == [(k + 1, f"edge.reuse-{k}") for k in range(3)]  # reused or run, in the claims' order
    under_impl = runner.run(claims, profile=QUICK, reuse=ReuseStore(tmp_path / "records"), impl=Impl.default(),
                            jobs=1, cache=None)
    assert all(r.reused is None for r in under_impl.results)


def test_run_claim_runs_no_control_unless_asked():
    claim = _claim("edge.no-control", _passed)
    assert runner.run_claim(claim, profile=QUICK, cache=None).negative_control is None
    assert runner.run_claim(claim, profile=QUICK, cache=None, controls=True).negative_control["caught"] is False


def test_a_figure_is_a_real_number_and_a_zero_dimensional_array_is_one():
    import numpy as np

    assert runner._number(np.array(2.5), "figure") == 2.5
    assert runner._number(None, "figure") is None
    for bad in (True, np.array([1.0, 2.0]), "0.5", 1 + 2j):
        with pytest.raises(ValueError, match="^figure must be"):
            runner._number(bad, "figure")


def test_the_checks_after_one_past_its_budget_are_recorded_as_not_run():
    from dataclasses import replace

    def loops(ctx):
        while True:
            pass

    claim = Claim(id="edge.loops", title="t", statement="x", kind=ClaimKind.CONJECTURE, source="test",
                  checks=(Check("loops", EvidenceKind.SIMULATION, loops),
                          Check("after", EvidenceKind.SIMULATION, _passed)),
                  negative_control=NegativeControl("the identity for the projectors", {"projectors": lambda K: (K, K)}))
    res = runner.run_claim(claim, profile=replace(QUICK, check_budget_s=0.5), cache=None)
    after = {e.check: e for e in res.evidence}["after"]
    assert after.status == EvidenceStatus.ERROR and after.data == {"not_run": True, "overran": "loops"}


def test_a_check_budget_drops_only_the_alarms_that_land_in_a_finaliser(monkeypatch):
    import sys
    from types import SimpleNamespace

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: seen.append(unraisable.exc_value))
    other = ValueError("a finaliser's own error")
    with runner._budget(60.0):
        sys.unraisablehook(SimpleNamespace(exc_value=runner.CheckTimeout("swallowed alarm")))
        sys.unraisablehook(SimpleNamespace(exc_value=other))
    assert seen == [other]  # the swallowed alarm is expected and dropped; anything else reaches the previous hook


def test_evidence_whose_time_is_not_finite_is_refused_as_unwritable():
    for seconds in (float("nan"), float("inf")):
        ev = Evidence(check="c", kind=EvidenceKind.SIMULATION, status=EvidenceStatus.PASSED, figure=0.0,
                      threshold=1.0, cases=1, seeds=[1], detail="d", replay="r", seconds=seconds)
        assert runner._invalid_evidence(ev).startswith("it cannot be written as JSON: ValueError")


def test_a_worker_dead_outside_any_check_charges_the_first_unanswered_check_and_not_runs_the_rest():
    from theorems.scale.supervise import Died

    res = runner._worker_died(_claim("edge.died", _passed), Died(exitcode=-9), [], profile=QUICK, seed=1, impl=None,
                              controls=False, claims_modules=(), seconds=1.0)
    first, crash = res.evidence
    assert first.status == EvidenceStatus.ERROR and not first.data.get("not_run")
    assert crash.data == {"not_run": True} and crash.detail.startswith("not run: the worker process running check "
                                                                       "'first' of this claim ended")


def test_a_check_that_raises_is_an_error_charged_its_own_time():
    def raises(_ctx):
        raise RuntimeError("the check's own bug")

    claim = _claim("edge.raises", raises)
    ev = runner.run_check(claim, claim.checks[1], impl=Impl.default(), profile=QUICK, seed=1)
    assert ev.status == EvidenceStatus.ERROR and "the check's own bug" in ev.detail
    assert 0.0 <= ev.seconds < 60.0
