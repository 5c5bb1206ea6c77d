"""The verdict path's own tests (issue 38 item 2): each pins a rule that turns
measurements into a verdict, a figure or a report field, where a planted
one-line bug survived the claims (tools/verdict-mutation-report.md lists
them): the Monte Carlo standard error, the rung a bound declared
``falls=False`` is judged at, the terms' shape screen, Hypothesis reporting
one failure, and the sympy check's figure, threshold and counterexample."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy

from theorems.authoring.strategies import keys
from theorems.authoring.templates import gram_projectors, identity, wrong
from theorems.core.model import Context, EvidenceStatus
from theorems.core.profiles import PROFILES
from theorems.core.runner import run_claim
from theorems.core.tolerance import MC_FALSE_FAILURE_RATE, mc_critical_z
from theorems.evidence import montecarlo, precise, symbolic

QUICK = PROFILES["quick"]


def _ctx(check: str = "c") -> Context:
    return Context(impl=None, profile=QUICK, seed=7, claim_id="t.teeth", check_name=check)


# --- Monte Carlo: the standard error and the figure ------------------------------------------------


def _alternating(low: float, high: float):
    """A sample of known moments: low, high, low, high, ... (mean (low + high)
    / 2, population variance ((high - low) / 2)^2), whatever the stream."""
    return lambda rng, size: np.where(np.arange(size) % 2 == 0, low, high)


N = 1000  # even, and under one chunk


def test_the_monte_carlo_standard_error_is_the_sample_standard_deviation_over_root_n():
    ev = montecarlo.check(_ctx(), _alternating(1.0, 3.0), 2.0, n=N)
    # population variance 1, unbiased N / (N - 1); the standard error sqrt(var / N)
    assert ev.data["standard_error"][0] == pytest.approx(math.sqrt(1 / (N - 1)), rel=1e-12)
    assert ev.data["mean"] == [2.0] and ev.status is EvidenceStatus.PASSED and ev.figure == 0.0


@pytest.mark.parametrize("offset_in_se, passes", [(0.5, True), (3.0, True), (10.0, False), (-10.0, False)])
def test_a_monte_carlo_claim_is_judged_by_its_distance_in_standard_errors(offset_in_se, passes):
    se = math.sqrt(1 / (N - 1))
    ev = montecarlo.check(_ctx(), _alternating(1.0, 3.0), 2.0 + offset_in_se * se, n=N)
    assert ev.status is (EvidenceStatus.PASSED if passes else EvidenceStatus.FAILED)
    assert ev.figure == pytest.approx(abs(offset_in_se), rel=1e-9)
    assert ev.threshold == pytest.approx(mc_critical_z(MC_FALSE_FAILURE_RATE))
    assert ev.data["z"][0] == pytest.approx(-offset_in_se, rel=1e-9)


def test_a_deterministic_quantity_equal_to_its_claim_has_figure_zero_and_unequal_fails():
    exact = montecarlo.check(_ctx(), lambda rng, size: np.full(size, 0.25), 0.25, n=N)
    assert exact.status is EvidenceStatus.PASSED and exact.figure == 0.0 and exact.data["z"] == [0.0]
    off = montecarlo.check(_ctx(), lambda rng, size: np.full(size, 0.25), 0.2500001, n=N)
    assert off.status is EvidenceStatus.FAILED and off.figure == math.inf


def test_monte_carlo_bonferroni_divides_the_rate_over_the_quantities():
    ev = montecarlo.check(_ctx(), lambda rng, size: np.stack([np.full(size, 1.0), np.full(size, 2.0)], axis=1),
                          [1.0, 2.0], n=N, names=["a", "b"])
    assert ev.threshold == pytest.approx(mc_critical_z(MC_FALSE_FAILURE_RATE / 2))
    bad = montecarlo.check(_ctx(), lambda rng, size: np.stack([np.full(size, 1.0), np.full(size, 2.5)], axis=1),
                           [1.0, 2.0], n=N, names=["a", "b"])
    assert bad.counterexample["name"] == "b" and bad.counterexample["quantity"] == 1


# --- the ladder: a bound that need not fall is judged at the top rung ------------------------------


def _constant(err: str):
    return lambda case: (mpmath.mpf(err), mpmath.mpf(1))


def test_a_falls_false_bound_is_judged_at_the_top_rung_where_a_small_violation_shows():
    # 1e-60 keeps half the digits at 50 (unit 1e-25) and at 100 (1e-50), not at 150 (1e-75)
    ev = precise.check(_ctx(), [("a", None)], _constant("1e-60"), falls=False, relative=True)
    assert ev.status is EvidenceStatus.FAILED
    assert ev.counterexample["digits"] == 150 and ev.counterexample["case"] == "a"
    assert ev.figure == pytest.approx(1e15, rel=1e-9)


def test_a_falls_false_bound_below_the_top_rungs_unit_passes_and_zero_has_figure_zero():
    assert precise.check(_ctx(), [("a", None)], _constant("1e-100"), falls=False, relative=True).status \
        is EvidenceStatus.PASSED
    zero = precise.check(_ctx(), [("a", None)], _constant("0"), falls=False, relative=True)
    assert zero.status is EvidenceStatus.PASSED and zero.figure == 0.0


def test_a_ladder_over_no_case_has_checked_nothing():
    ev = precise.check(_ctx(), [], _constant("0"), falls=False, relative=True)
    assert ev.status is EvidenceStatus.INCONCLUSIVE and ev.detail.startswith("no ladder case")
    assert ev.figure == 0.0 and ev.cases == 0  # no ratio measured: the figure is no worse than zero


# --- the terms' shape screen ----------------------------------------------------------------------


def _claim(terms, cid="t.screen"):
    return identity(cid, title="t", statement="t", source="test", inputs=keys(), terms=terms,
                    control=wrong("P = K^T K", projectors=gram_projectors))


def _evidence(claim, check):
    return {e.check: e for e in run_claim(claim, profile=QUICK, seed=1).evidence}[check]


def test_a_pair_written_as_a_list_is_refused_as_the_wrong_type_not_compared_by_shape():
    # [lhs, rhs] with two shapes: not a pair at all, so not set aside as a shape mismatch
    ev = _evidence(_claim(lambda impl, K: [[K, np.zeros((K.shape[0] + 1, K.shape[1]))]]), "float")
    assert ev.status is EvidenceStatus.ERROR
    assert "terms must be a list of (lhs, rhs) pairs" in ev.detail and "different shapes" not in ev.detail


def test_a_pair_of_two_shapes_is_an_error_naming_both():
    ev = _evidence(_claim(lambda impl, K: [(K, np.zeros((K.shape[0] + 1, K.shape[1])))]), "float")
    assert ev.status is EvidenceStatus.ERROR and "different shapes on every input" in ev.detail


def test_a_false_identity_that_fails_two_ways_is_failed_not_an_error():
    """Some inputs raise inside a formula, the rest are merely wrong: two
    distinct failures to Hypothesis, reported as one (FAILED), never as an
    exception group (ERROR)."""
    def terms(impl, K):
        if K.shape[1] % 2:
            impl.snr(np.array([2.0]))  # h > 1: snr's own ValueError
        return [(K, 2 * K)]

    for check in ("exact", "float"):
        ev = _evidence(_claim(terms, "t.two-ways"), check)
        assert ev.status is EvidenceStatus.FAILED, (check, ev.detail)


# --- sympy: figure, threshold, the first failing identity, the exact detail -----------------------


def test_the_sympy_check_counts_its_failures_and_shows_the_first():
    x = sympy.Symbol("x")
    ev = symbolic.check_scalar(_ctx(), [("ok", (x + 1) ** 2 - x**2 - 2 * x - 1), ("first", x - 1), ("second", x)])
    assert ev.status is EvidenceStatus.FAILED and ev.figure == 2.0 and ev.threshold == 0.0
    assert ev.counterexample == {"identity": "first", "residual": "x - 1"}
    ok = symbolic.check_scalar(_ctx(), [("ok", sympy.sin(x) ** 2 + sympy.cos(x) ** 2 - 1)])
    assert ok.status is EvidenceStatus.PASSED and ok.figure == 0.0 and ok.threshold == 0.0 and ok.cases == 1


def test_an_exact_check_on_rational_terms_says_nothing_of_irrational_cases():
    ev = _evidence(_claim(lambda impl, K: [(K @ K.T, (K @ K.T).T)]), "exact")
    assert ev.status is EvidenceStatus.PASSED and ev.cases > 0
    assert "not_exact" not in ev.data and not ev.detail.startswith("not exact")


def test_the_top_rung_figure_is_infinite_for_a_nonzero_residual_of_terms_of_size_zero():
    """A bound whose terms have size 0 yet a nonzero residual keeps no digit:
    its figure is inf, and an exact zero is 0 whatever the size."""
    with mpmath.workdps(50):
        assert precise._kept(mpmath.mpf("1e-60"), 0, 50) == math.inf
        assert precise._kept(mpmath.mpf("0"), 0, 50) == 0.0
        assert precise._kept(mpmath.inf, 1, 50) == math.inf
        assert precise._kept(mpmath.mpf("1e-60"), 1, 50) == pytest.approx(1e-35)


# --- the number system: a float literal side is the decimal written --------------------------------


def test_a_float_literal_side_is_the_decimal_written_in_the_exact_and_ladder_checks():
    """``0.1`` on a side means 1/10 exactly: a difference of 1e-20 from it is
    seen by the exact check (float64 would round it away), and an exact 1/10
    is no counterexample at any rung of the ladder."""
    off = _claim(lambda impl, K: [((K * 0)[:1, :1] + 1e-20 + 0.1, np.full((1, 1), 0.1))], "t.decimal-off")
    on = _claim(lambda impl, K: [((K * 0)[:1, :1] + 0.1, np.full((1, 1), 0.1))], "t.decimal-on")
    assert _evidence(off, "exact").status is EvidenceStatus.FAILED
    for check in ("exact", "ladder"):
        assert _evidence(on, check).status is EvidenceStatus.PASSED, check


# --- the searched domain: condition numbers ------------------------------------------------------


def test_the_searched_domain_records_every_condition_number_but_the_orthonormal_one():
    from types import SimpleNamespace

    from theorems.evidence._common import SearchedDomain

    domain = SearchedDomain()
    for cond in (1.0, 2.0, 1e6):
        domain.see(SimpleNamespace(family="conditioned", d=3, M=2, cond=cond))
    out = domain.to_json()
    assert out["cond"] == [2.0, 1e6] and out["examples"] == 3 and out["families"] == ["conditioned"]
    only_orthonormal = SearchedDomain()
    only_orthonormal.see(SimpleNamespace(family="orthonormal", d=3, M=2, cond=1.0))
    assert "cond" not in only_orthonormal.to_json()


# --- the property check: why float64 could not judge --------------------------------------------


def test_a_property_check_beyond_float64_says_why_it_is_inconclusive_and_a_failure_does_not():
    from hypothesis import strategies as st

    from theorems.evidence import property as prop

    beyond = prop.check(_ctx(), st.integers(0, 9), lambda x: prop.BEYOND_FLOAT64, examples=20)
    assert beyond.status is EvidenceStatus.INCONCLUSIVE and "need at least" in beyond.detail
    failed = prop.check(_ctx(), st.integers(0, 9), lambda x: prop.BEYOND_FLOAT64 if x < 5 else 10 * prop.THRESHOLD,
                        examples=20)
    assert failed.status is EvidenceStatus.FAILED and "need at least" not in failed.detail


# --- a sweep table with the template's defaults -----------------------------------------------------


def test_a_sweep_table_without_columns_or_domain_records_every_column_and_the_sizes_alone():
    from theorems.authoring import templates

    def check(**options):
        return templates.sweep_table_check(
            "t", sizes=dict(quick=(2, 3), standard=(2, 3), thorough=(2, 3)), statistic="t", label="t",
            measure=lambda ctx, n, rng: {"t": 2.0 * n, "u": -n}, criterion=lambda t: (True, 0.0, 0.0, ""),
            **options).run(_ctx("t"))

    plain = check()
    assert plain.data["table"] == {"columns": ["size", "t", "u"], "rows": [[2, 4.0, -2], [3, 6.0, -3]]}
    assert plain.data["domain"] == {"size": {"values": [2, 3], "min": 2, "max": 3}}
    named = check(columns=["u"], domain={"family": "gaussian"})
    assert named.data["table"]["columns"] == ["size", "u"] and named.data["domain"]["family"] == "gaussian"


# --- supervision: a check's budget ends with its evidence; an executor excludes jobs ----------------


def test_a_supervised_task_is_held_to_a_check_budget_only_until_the_check_answers(monkeypatch):
    """Between checks (after ``("evidence", ...)``) no budget runs: a task
    that then takes longer than the last check's allowance is not killed;
    one still inside its check is."""
    import dataclasses
    import time

    from theorems.core import runner
    from theorems.scale.supervise import Died

    monkeypatch.setattr(runner, "BUDGET_GRACE_S", 0.0)
    profile = dataclasses.replace(QUICK, check_budget_s=0.3)

    def task(answered: bool):
        def run(send):
            send("check", "claim", "c")
            if answered:
                send("evidence", None)
            time.sleep(1.2)
            return "done"
        return run

    assert runner.call_supervised(task(True), profile=profile) == "done"
    died = runner.call_supervised(task(False), profile=profile)
    assert isinstance(died, Died) and died.step == ("claim", "c")


def test_a_run_with_an_executor_refuses_several_jobs_and_one_without_takes_them():
    from theorems.core import runner

    claim = _claim(lambda impl, K: [(K, K)], "t.jobs")
    with pytest.raises(ValueError, match="with an executor"):
        runner.run([claim], profile=QUICK, seed=1, jobs=2, executor=object())
    result = runner.run([claim], profile=QUICK, seed=1, jobs=2)
    assert [r.status.value for r in result.results] == ["VERIFIED"]
    one = runner.run([claim], profile=QUICK, seed=1, jobs=1, executor=object())  # one job beside an executor is fine
    assert [r.status.value for r in one.results] == ["VERIFIED"]


# --- the third sample's survivors -------------------------------------------------------------------


def test_a_residual_that_stalls_is_reported_at_the_top_rung():
    ev = precise.check(_ctx(), [("a", None)], _constant("1e-30"), falls=True, relative=True)
    assert ev.status is EvidenceStatus.FAILED and ev.counterexample["why"].endswith("it stalls")
    assert ev.counterexample["case"] == "a" and ev.counterexample["digits"] == 150


def test_a_bound_tight_at_zero_steers_the_search_as_the_tightest(monkeypatch):
    from theorems.authoring import templates
    from theorems.core.residuals import at_most

    seen = []
    monkeypatch.setattr(templates, "target", lambda value, label: seen.append(value))
    loose = at_most(np.array([1.0]), np.array([2.0]))  # slack (2 - 1) / (1 + 2)
    templates._steer_to_bounds([at_most(np.zeros(2), np.zeros(2)), loose])
    templates._steer_to_bounds([loose])
    assert seen == [0.0, pytest.approx(-1 / 3)]


def test_a_float_case_whose_quick_ratio_is_at_the_threshold_passes_without_a_reference(monkeypatch):
    """The float check's quick ratio passes at the threshold itself (``<=``,
    as everywhere); only a ratio above it is measured against the mpmath reference."""
    from theorems.authoring import templates
    from theorems.core.tolerance import THRESHOLD

    formed = []
    monkeypatch.setattr(templates, "scaled_residual", lambda *a, **k: THRESHOLD)
    monkeypatch.setattr(templates, "_measured_ratio", lambda *a, **k: formed.append(a) or math.inf)
    ev = _evidence(_claim(lambda impl, K: [(K, K)], "t.at-threshold"), "float")
    assert ev.status is EvidenceStatus.PASSED and ev.figure == THRESHOLD and not formed


def test_a_monte_carlo_check_of_values_names_the_shapes_of_its_keys():
    from theorems.authoring import templates

    check = templates.montecarlo_values("mc", lambda impl, K, V: np.zeros(V.shape[0]), lambda impl, K: 0.0,
                                        mc_keys=lambda rng: [np.ones((3, 5)), np.ones((2, 7))], mc_samples=200)
    ev = check.run(_ctx("mc"))
    assert ev.status is EvidenceStatus.PASSED and "keys 3x5, 2x7" in ev.detail


def test_a_control_record_naming_a_control_it_does_not_hold_is_reported_without_the_name():
    from theorems.core.controls import missed_text

    controls = [{"description": "first"}, {"description": "second"}]
    row = {"result": "missed", "reason": "passed"}
    named = missed_text({"per_check": {"float": {**row, "controls": [1]}}, "controls": controls})
    assert named == "check 'float' missed it under control 2 (second) (passed)"
    beyond = missed_text({"per_check": {"float": {**row, "controls": [2]}}, "controls": controls})
    assert beyond == "check 'float' missed it (passed)"


def test_a_nan_is_refused_in_the_main_run_and_a_failing_case_under_a_control():
    import dataclasses

    from theorems.evidence._common import TermsError, refuse_nan

    with pytest.raises(TermsError, match="the ratio is NaN"):
        refuse_nan(math.nan, _ctx(), "the ratio")
    assert math.isnan(refuse_nan(math.nan, dataclasses.replace(_ctx(), control=True), "the ratio"))
    assert refuse_nan(0.5, _ctx(), "the ratio") == 0.5


def test_the_tolerance_norm_stays_in_the_number_system_of_its_input():
    from fractions import Fraction

    from theorems.core.tolerance import norm

    floats = norm(np.array([3.0, 4.0]))
    assert type(floats) is float and floats == 5.0
    assert norm(np.array([Fraction(3), Fraction(4)], dtype=object)) == 5.0
    precise_norm = norm(np.array([mpmath.mpf(1), mpmath.mpf(1)], dtype=object))
    assert isinstance(precise_norm, mpmath.mpf) and precise_norm == mpmath.sqrt(2)


def test_a_check_budget_of_zero_is_no_budget_and_a_budget_off_the_main_thread_is_not_armed():
    import threading
    import time

    from theorems.core import runner

    with runner._budget(0):
        time.sleep(0.3)
    raised = []

    def off_main():
        try:
            with runner._budget(0.05):
                time.sleep(0.2)
        except BaseException as exc:  # noqa: BLE001 - what the thread met is the finding
            raised.append(exc)

    worker = threading.Thread(target=off_main)
    worker.start()
    worker.join()
    assert raised == []


def test_an_expectation_counterexample_names_its_keys_and_its_directions():
    from fractions import Fraction

    from hypothesis import strategies as st

    from theorems.authoring import templates

    K = np.array([[Fraction(i + j) for j in range(2)] for i in range(4)], dtype=object)
    claim = templates.expectation("t.expect", title="t", statement="t", source="test", keys=st.just(K),
                                  quantity=lambda impl, K, V: V[..., 0, 0] * 0 + 1, claimed=lambda impl, K: 0,
                                  control=wrong("none needed", snr=abs))
    cex = _evidence(claim, "enumeration").counterexample
    assert np.array_equal(cex["input"]["K"], K) and cex["input"]["W0"].shape[1] == 2 and cex["residual"] == "1"


def test_a_recorded_claim_run_records_what_it_executed_and_an_unrecorded_one_does_not():
    from theorems.core import runner

    claim = _claim(lambda impl, K: [(K, K)], "t.recorded")
    assert runner._run_claim_recorded(claim, True, profile=QUICK, seed=1).executed is not None
    assert runner._run_claim_recorded(claim, False, profile=QUICK, seed=1).executed is None


def test_a_ladder_failure_states_its_relative_residual_to_three_digits():
    ev = precise.check(_ctx(), [("a", None)], _constant("1.23456e-60"), falls=False, relative=True)
    assert ev.counterexample["why"] == "relative residual 1.23e-60 at 150 digits keeps fewer than 0.5 of the digits"


def test_a_rebuild_snippet_names_claim_files_and_folders_by_absolute_path_and_modules_by_name(tmp_path,
                                                                                              monkeypatch):
    import dataclasses
    import os

    from theorems.authoring.templates import rebuild_snippet

    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims_folder").mkdir()
    ctx = dataclasses.replace(_ctx(), claims_modules=("gone.py", "claims_folder", "my.claims"))
    snippet = rebuild_snippet(ctx, [], {}, 0.0)
    expected = [os.path.abspath("gone.py"), os.path.abspath("claims_folder"), "my.claims"]
    assert f"load_claims({expected!r})" in snippet


def test_a_residual_of_exactly_one_at_every_rung_stalls_and_an_exact_zero_at_the_top_falls():
    from theorems.core.tolerance import ladder_fall

    assert ladder_fall([1, 1, 1], (50, 100, 150))[0] is False
    assert ladder_fall([mpmath.mpf("1e-50"), mpmath.mpf("1e-100"), mpmath.mpf(0)], (50, 100, 150)) == (
        True, math.inf, 0.0, 0)
    ev = precise.check(_ctx(), [("a", None)], _constant("1"), falls=True, relative=True)
    assert ev.status is EvidenceStatus.FAILED and ev.counterexample["why"].endswith("it stalls")


def test_an_exact_zero_sympy_cannot_see_at_a_glance_is_decided_by_its_minimal_polynomial():
    """cos(2 pi/7) + cos(4 pi/7) + cos(6 pi/7) = -1/2: sympy's ``is_zero`` is
    None on the residual; the minimal polynomial proves it zero, and a
    residual off by 1e-30 nonzero."""
    from theorems.evidence.symbolic import _is_zero

    residual = sum(sympy.cos(2 * k * sympy.pi / 7) for k in (1, 2, 3)) + sympy.Rational(1, 2)
    assert residual.is_zero is None
    assert _is_zero(residual) is True
    assert _is_zero(residual + sympy.Rational(1, 10**30)) is False


def test_a_constant_sample_whose_rounded_variance_is_negative_has_zero_spread():
    """2.3 a thousand times: the sum of squares over n minus the squared
    mean rounds to -8.9e-16; the variance is clamped at 0, so the standard
    error is 0 and a claim equal to the constant passes with figure 0."""
    ev = montecarlo.check(_ctx(), lambda rng, size: np.full(size, 2.3), 2.3, n=N)
    assert ev.status is EvidenceStatus.PASSED and ev.figure == 0.0 and ev.data["standard_error"] == [0.0]


def test_a_residual_falls_from_the_rung_that_resolves_it_best_even_the_one_below_the_top():
    from theorems.core.tolerance import ladder_fall

    # from rung 0 it fell 30 digits (50 needed); from rung 1, 50 digits (25 needed)
    falls, achieved, required, rung = ladder_fall([1e-120, 1e-100, 1e-150], (50, 100, 150))
    assert (falls, rung, required) == (True, 1, 25.0) and achieved == pytest.approx(50.0)


def test_a_worker_that_exits_in_a_check_costs_that_check_and_the_rest_are_not_run():
    """Supervised (jobs=2): ``os._exit(0)`` in the second of three checks;
    the first check's evidence is kept, the second is an ERROR naming the
    exit and the check, the third is 'not run', and the healthy claim beside
    it is VERIFIED."""
    import crash_claims

    from theorems.core import runner

    by_id = {c.id: c for c in crash_claims.CLAIMS}
    result = runner.run([by_id["crash.exit0"], by_id["crash.healthy-a"]], profile=QUICK, seed=1, jobs=2)
    crashed, healthy = result.results
    assert healthy.status.value == "VERIFIED" and crashed.status.value == "ERROR"
    ev = {e.check: e for e in crashed.evidence}
    assert [e.check for e in crashed.evidence] == ["first", "crash", "last"]
    assert ev["first"].status is EvidenceStatus.PASSED
    assert ev["crash"].status is EvidenceStatus.ERROR and "exit code 0" in ev["crash"].detail
    assert "check 'crash'" in ev["crash"].detail
    assert ev["last"].status is EvidenceStatus.ERROR and ev["last"].detail.startswith("not run")


def test_the_ladder_figure_is_the_share_of_the_required_fall_not_achieved():
    """Residuals 1e-50, 1e-100, 1e-150: a fall of 100 digits where 50 are
    required, so the figure is 50 / 100."""
    ev = precise.check(_ctx(), [("a", None)], lambda case: (mpmath.mpf(10) ** -mpmath.mp.dps, mpmath.mpf(1)),
                       falls=True, relative=True)
    assert ev.status is EvidenceStatus.PASSED and ev.figure == pytest.approx(0.5, rel=1e-12)


def test_a_term_float64_cannot_resolve_counts_as_beyond_only_when_it_shows_a_residual():
    """A term whose sides cancel to 0 in float64 (1 + 1e20 - 1e20; exactly 1
    in mpmath) keeps no digit, but with a zero float residual it shows no
    violation to judge: the case is measured by its other term, not set
    aside as beyond float64."""
    from theorems.authoring import templates
    from theorems.evidence import property as prop

    def terms(impl, x):
        cancelled = (x + 1e20) - 1e20
        return [(cancelled, cancelled), (3 * x, 3 * x)]

    args = (np.array([1.0]),)
    items = terms(None, *args)
    assert templates._measured_ratio(terms, _ctx("float"), args, items) == 0.0

    def shows(impl, x):
        return [((x + 1e20) - 1e20, x), (3 * x, 3 * x)]

    assert templates._measured_ratio(shows, _ctx("float"), args, shows(None, *args)) is prop.BEYOND_FLOAT64


def test_evidence_without_seconds_is_written_with_zero_seconds():
    from theorems.core import runner
    from theorems.core.model import Evidence, EvidenceKind

    ev = Evidence(check="c", kind=EvidenceKind.PROPERTY, status=EvidenceStatus.PASSED, figure=0.0, threshold=1.0,
                  cases=1, seeds=[1], detail="d", replay="r", seconds=None)
    assert runner._invalid_evidence(ev) is None and ev.seconds == 0.0


def _raises_deep():
    raise ValueError("deep")


def _calls_deep():
    _raises_deep()


def test_an_error_is_placed_at_the_deepest_frame_of_the_users_code():
    from theorems.core import runner

    try:
        _calls_deep()
    except ValueError as exc:
        where = runner._raised_where(exc)
    assert where.endswith(" in _raises_deep") and "test_" in where.split(":")[0]


def test_a_replay_command_names_claim_files_and_folders_by_absolute_path_and_modules_by_name(tmp_path, monkeypatch):
    import dataclasses
    import os
    import shlex

    from theorems.evidence._common import replay_command

    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims_folder").mkdir()
    ctx = dataclasses.replace(_ctx(), claims_modules=("gone.py", "claims_folder", "my.claims"))
    argv = shlex.split(replay_command(ctx))
    named = [argv[i + 1] for i, a in enumerate(argv) if a == "--claims"]
    assert named == [os.path.abspath("gone.py"), os.path.abspath("claims_folder"), "my.claims"]


def test_one_job_is_a_valid_run_and_zero_is_refused():
    from theorems.core import runner

    claim = _claim(lambda impl, K: [(K, K)], "t.one-job")
    assert [r.status.value for r in runner.run([claim], profile=QUICK, seed=1, jobs=1).results] == ["VERIFIED"]
    with pytest.raises(ValueError, match="jobs must be an int >= 1"):
        runner.run([claim], profile=QUICK, seed=1, jobs=0)



def test_explicit_exact_examples_run_first_at_every_seed():
    """An exact check's ``explicit`` inputs run at every seed, before and
    beside its search: a residual nonzero on one explicit input alone fails,
    whatever the search draws."""
    from hypothesis import strategies as st

    seen = []

    def residual(x):
        seen.append(x)
        return 1 if x == -1 else 0

    for seed in (1, 2, 3):
        ctx = Context(impl=None, profile=QUICK, seed=seed, claim_id="t.explicit", check_name="exact")
        seen.clear()
        ev = symbolic.check_exact(ctx, st.integers(0, 9), residual, explicit=(-1,))
        assert ev.status is EvidenceStatus.FAILED and seen[0] == -1 and ev.counterexample["input"] == -1
    ok = symbolic.check_exact(_ctx(), st.integers(0, 9), lambda x: 0, explicit=(-1, -2))
    assert ok.status is EvidenceStatus.PASSED and ok.cases >= 2


def test_explicit_float_examples_run_first_at_every_seed():
    from hypothesis import strategies as st

    from theorems.evidence import property as prop

    for seed in (1, 2, 3):
        ctx = Context(impl=None, profile=QUICK, seed=seed, claim_id="t.explicit", check_name="float")
        ev = prop.check(ctx, st.integers(0, 9), lambda x: 10 * prop.THRESHOLD if x == -1 else 0.0, explicit=(-1,))
        assert ev.status is EvidenceStatus.FAILED and ev.counterexample == -1
    ok = prop.check(_ctx(), st.integers(0, 9), lambda x: 0.0, explicit=(-1,))
    assert ok.status is EvidenceStatus.PASSED


def test_terms_that_raise_on_float_input_are_an_error_of_the_claim_not_a_counterexample():
    def terms(impl, K):
        if K.dtype == np.float64:
            raise TypeError("the claim's own slip")
        return [(K, K)]

    ev = _evidence(_claim(terms, "t.raising-terms"), "float")
    assert ev.status is EvidenceStatus.ERROR and "the terms raised TypeError" in ev.detail


def test_stopping_a_pool_ends_its_running_workers_at_once():
    """What ``theorems stability`` does on Ctrl-C: a worker in a 60 s task is
    ended now, not when its task would finish."""
    import multiprocessing
    import time
    from concurrent.futures import ProcessPoolExecutor

    from theorems.core import runner

    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    pool.submit(time.sleep, 60)
    queued = [pool.submit(time.sleep, 60) for _ in range(4)]  # the first two already handed to the worker's queue
    time.sleep(0.5)  # the worker has taken the first task
    procs = list(pool._processes.values())
    start = time.monotonic()
    runner._stop(pool)
    assert procs and not any(p.is_alive() for p in procs) and time.monotonic() - start < 4
    assert queued[-1].cancelled()  # what had not started is cancelled, not left to fail as a broken pool


def test_a_worker_that_dies_after_every_check_answered_keeps_each_answer_and_says_so_on_the_last():
    """The evidence a dead worker had sent stays; with no check left to blame,
    the last one becomes the ERROR, its own detail kept after the cause."""
    from theorems.core.runner import _worker_died
    from theorems.scale.supervise import Died

    claim = _claim(lambda impl, K: [(K, K)], cid="t.died")
    received = run_claim(claim, profile=QUICK, seed=1).evidence
    last_detail = received[-1].detail
    result = _worker_died(claim, Died(exitcode=-9), received, profile=QUICK, seed=1, impl=None, controls=False,
                          claims_modules=(), seconds=1.0)
    assert [e.check for e in result.evidence] == [c.name for c in claim.checks]
    assert result.evidence[-1].status is EvidenceStatus.ERROR
    assert result.evidence[-1].detail == (f"after this check the claim's worker: {Died(exitcode=-9).describe()}; "
                                          + last_detail)
    assert result.status.value == "ERROR"


def test_on_a_tie_the_ladder_reports_the_lowest_rung_the_widest_span():
    """Rungs 0 and 1 clear their requirement by the same 50 digits: the one
    reported is the lowest (the widest span), not whichever came last."""
    from theorems.core.tolerance import ladder_fall

    assert ladder_fall([1e-50, 1e-75, 1e-150], (50, 100, 150)) == (True, 100.0, 50.0, 0)


def test_the_monte_carlo_keys_are_the_four_documented_designs():
    """M > d spherical, M < d, rank-deficient non-unit, duplicated: (d, M) =
    (4, 7), (6, 3), (5, 6) of rank 3, and (3, 5) with 2 distinct columns."""
    from theorems.authoring.templates import montecarlo_keys

    keys = montecarlo_keys(np.random.default_rng(0))
    assert [K.shape for K in keys] == [(4, 7), (6, 3), (5, 6), (3, 5)]
    for K in keys[:2]:
        np.testing.assert_allclose(np.linalg.norm(K, axis=0), 1.0)
    assert np.linalg.matrix_rank(keys[2]) == 3 and not np.allclose(np.linalg.norm(keys[2], axis=0), 1.0)
    assert len({tuple(col) for col in keys[3].T}) == 2


def test_an_exact_zero_at_a_lower_rung_counts_as_that_rungs_unit_roundoff():
    # rung 100 falls only 10 digits (needs 25); the exact zero at rung 50 reads as 1e-50 and falls 100
    from theorems.core.tolerance import ladder_fall

    assert ladder_fall([0, 1e-140, 1e-150], (50, 100, 150)) == (True, 100.0, 50.0, 0)


def test_a_searched_case_without_a_recipe_is_measured_by_its_first_argument():
    from theorems.authoring.strategies import Case
    from theorems.evidence._common import SearchedDomain

    domain = SearchedDomain()
    domain.see(Case(args=(np.zeros((3, 5)), np.zeros((2, 5))), recipe=None))
    assert domain.to_json() == {"examples": 1, "d": [3, 3], "M": [5, 5]}


@pytest.mark.parametrize("comparison, passes_at_equality", [("<=", True), ("<", False), (">=", True), (">", False)])
def test_a_figure_equal_to_its_threshold_meets_it_only_by_a_non_strict_comparison(comparison, passes_at_equality):
    from theorems.core.model import Evidence, EvidenceKind
    from theorems.core.runner import _figure_meets_threshold

    ev = Evidence(check="c", kind=EvidenceKind.PROPERTY, status=EvidenceStatus.PASSED, figure=2.0, threshold=2.0,
                  comparison=comparison)
    assert _figure_meets_threshold(ev) is passes_at_equality


def test_a_long_missed_detail_is_cut_to_its_limit_with_an_ellipsis():
    from theorems.core import controls
    from theorems.core.model import Evidence, EvidenceKind

    ev = Evidence(check="c", kind=EvidenceKind.PROPERTY, status=EvidenceStatus.PASSED, detail="x" * 1000)
    verdict, text = controls.judge_check(ev)
    detail = text.split(": ", 1)[1]
    assert verdict == controls.MISSED and len(detail) == controls._DETAIL_CHARS and detail.endswith("…")


def test_a_stalled_ladder_names_the_rung_it_measured_from_and_the_top_rung():
    ev = precise.check(_ctx(), [("a", None)], _constant("1"), falls=True, relative=True)
    assert ev.counterexample["why"] == "residual fell at most 0.0 digits from 100 to 150 digits (need 25): it stalls"


def test_a_relative_ladder_failure_states_the_residual_relative_to_its_scale():
    ev = precise.check(_ctx(), [("a", None)], lambda case: (mpmath.mpf("2.5e-60"), mpmath.mpf(5)), falls=False,
                       relative=True)
    assert ev.counterexample["why"] == "relative residual 5.0e-61 at 150 digits keeps fewer than 0.5 of the digits"


def test_a_check_past_its_budget_stops_the_claims_remaining_checks_in_process_too():
    import dataclasses
    import time

    def terms(impl, K):
        time.sleep(30)  # a Python-level wait: the budget's alarm ends it
        return [(K, K)]

    start = time.monotonic()
    evidence = run_claim(_claim(terms, "t.overrun"), profile=dataclasses.replace(QUICK, check_budget_s=0.5),
                         seed=1).evidence
    assert time.monotonic() - start < 10  # one budget for the claim, not one per check
    first, rest = evidence[0], evidence[1:]
    assert first.status is EvidenceStatus.ERROR and "remaining checks were not run" in first.detail
    assert rest and all(e.status is EvidenceStatus.ERROR and e.detail.startswith(
        f"not run: check {first.check!r} of this claim ran past its budget") for e in rest)


def test_the_exact_check_counts_only_the_cases_it_decided_exactly():
    """A norm is irrational on most integer keys: those cases are the
    ladder's and float64's, and the exact check's case count leaves them out."""
    claim = _claim(lambda impl, K: [(np.linalg.norm(K) * 2, 2 * np.linalg.norm(K))], "t.not-exact")
    ev = _evidence(claim, "exact")
    skipped = ev.data["not_exact"]
    assert ev.status is EvidenceStatus.PASSED and 0 < skipped["cases"] < skipped["of"]
    assert ev.cases == skipped["of"] - skipped["cases"]
    assert ev.detail.startswith(f"not exact: norm (irrational on {skipped['cases']} of {skipped['of']} cases; ")


@pytest.mark.parametrize("field", ["check", "detail", "comparison", "replay"])
def test_evidence_whose_text_field_is_not_a_str_is_invalid_naming_the_field(field):
    from theorems.core import runner
    from theorems.core.model import Evidence, EvidenceKind

    ev = Evidence(check="c", kind=EvidenceKind.PROPERTY, status=EvidenceStatus.PASSED, figure=0.0, threshold=1.0,
                  cases=1, seeds=[1], detail="d", replay="r")
    setattr(ev, field, 5)
    assert runner._invalid_evidence(ev) == f"{field} must be a str, got int"


def _chain_of_calls(depth):
    """f{depth-1}() calls f{depth-2}() ... f0(), which raises: distinct frames (a recursion's would be folded)."""
    namespace: dict = {}
    exec("def f0():\n    raise ValueError('deep')\n" + "".join(f"def f{i}():\n    f{i - 1}()\n" for i in range(1, depth)),
         namespace)
    return namespace[f"f{depth - 1}"]


def test_a_check_that_raises_keeps_the_first_eight_frames_of_its_traceback():
    from theorems.core.model import Check, EvidenceKind
    from theorems.core.impl import Impl
    from theorems.core.runner import run_check

    claim = _claim(lambda impl, K: [(K, K)], "t.deep")
    deep = _chain_of_calls(20)
    check = Check("deep", EvidenceKind.PROPERTY, lambda ctx: deep())
    ev = run_check(claim, check, impl=Impl.default(), profile=QUICK, seed=1)
    assert ev.status is EvidenceStatus.ERROR
    assert ev.data["traceback"].count('\n  File "') == 8  # run_check's, the check's and six of the chain


def test_only_float_and_complex_arrays_can_hold_a_nan():
    from theorems.evidence._common import is_nan

    assert not is_nan(np.array([1, 2])) and not is_nan(np.array([True]))
    assert is_nan(np.array([1.0, np.nan])) and is_nan(np.array([complex(np.nan, 0)]))


def test_each_check_keys_its_hypothesis_examples_by_its_own_name():
    """Checks made by one template share their test function's code, so
    Hypothesis would give them one example-database key; the claim and
    check name added to the digest keeps their examples apart."""
    from hypothesis import given, strategies as st

    from theorems.evidence._common import hypothesis_seed

    def check_body(x):
        pass

    test = hypothesis_seed(_ctx("one"))(given(st.integers())(check_body))
    assert test.__name__ == "t.teeth::one"
    assert test.hypothesis.inner_test._hypothesis_internal_add_digest == b"t.teeth::one"


def test_a_recipe_records_its_condition_number_unless_it_is_one():
    from theorems.authoring.strategies import Case
    from theorems.evidence._common import SearchedDomain

    domain = SearchedDomain()
    domain.see(Case(args=(np.eye(3),), recipe={"family": "f", "d": 3, "M": 4, "cond": 1.0}))
    assert "cond" not in domain.to_json()
    domain.see(Case(args=(np.eye(3),), recipe={"family": "f", "d": 3, "M": 4, "cond": 2.0}))
    assert domain.to_json()["cond"] == [2.0, 2.0]


@pytest.mark.parametrize("falls, says", [
    (True, "digits the residual must fall over digits it fell (worst case); "),
    (False, "top-rung violation relative to the terms, in units of 10^-(kept share x digits); ")])
def test_a_relative_ladder_says_what_its_figure_measures(falls, says):
    ev = precise.check(_ctx(), [("a", None)], lambda case: (mpmath.mpf(0), mpmath.mpf(1)), falls=falls,
                       relative=True)
    assert ev.status is EvidenceStatus.PASSED and says in ev.detail
    assert ev.detail.endswith("residual falls with precision" if falls else "violation within bound")


def test_a_float_check_with_no_case_beyond_float64_says_nothing_of_them():
    ev = _evidence(_claim(lambda impl, K: [(K, K)], "t.none-beyond"), "float")
    assert ev.status is EvidenceStatus.PASSED and "beyond float64" not in ev.detail


def test_a_transcendental_residual_is_decided_when_it_has_no_minimal_polynomial():
    """cos(1) is not algebraic: sympy's minimal_polynomial raises NotAlgebraic
    (not a PolynomialError), and equals(0) decides instead."""
    from theorems.evidence.symbolic import _is_zero

    zero = sympy.sin(1) ** 2 + sympy.cos(1) ** 2 - 1
    assert zero.is_zero is None  # sympy cannot tell at a glance
    assert _is_zero(zero) is True and _is_zero(zero - 1) is False
