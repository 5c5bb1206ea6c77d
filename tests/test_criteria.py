"""Criteria a reviewer can trust: a crash is an ERROR (only a measured
violation fails), the precision ladder allows for conditioning but not for
approximations, rate criteria are two-sided, underpowered profiles give
INCONCLUSIVE, sweeps record their domain, declared check kinds are enforced,
and the finite-size criteria tell the negative controls from the truth."""

from __future__ import annotations

import math
from dataclasses import replace

import mpmath
import numpy as np
import pytest
from hypothesis import strategies as st

import linmem
from theorems.claims import finite_size, recall
from theorems.evidence import precise, simulation
from theorems.evidence import property as prop
from theorems.evidence._common import formula_failure, make
from theorems.core.impl import FORMULA_ERRORS, Impl, raised_by_formula
from theorems.core.model import (
    Check,
    Claim,
    ClaimKind,
    Context,
    EvidenceKind,
    EvidenceStatus,
    NegativeControl,
    Status,
)
from theorems.core.profiles import PROFILES, get_profile
from theorems.core.registry import Registry, load_claims
from theorems.core.runner import run, run_check
from theorems.authoring.templates import SweepTable
from theorems.core.tolerance import (
    LADDER_MIN_DROP_DIGITS,
    PRECISION_LADDER,
    ladder_fall,
    margin_sd,
    required_margin_sd,
)

QUICK = get_profile("quick")
#: quick sizes without the wall-clock budget: a loaded test machine must not turn a sweep into an ERROR
UNHURRIED = replace(QUICK, check_budget_s=0.0)
NC = NegativeControl("nothing", {"snr": lambda h: h})


def _ctx(impl=None, *, control=False, seed=1, check="c") -> Context:
    return Context(impl=impl or Impl.default(), profile=QUICK, seed=seed, claim_id="t.x", check_name=check,
                   control=control)


def _supported(ctx):
    return make(ctx, EvidenceKind.SIMULATION, True, seconds=0.0, figure=0.0, threshold=1.0,
                passed=EvidenceStatus.SUPPORTED)


def _claim(*checks, kind=ClaimKind.APPROXIMATION, cid="t.x"):
    """A claim around ``checks`` (plus a supported sweep, so that any check
    kind may be tested under the approximation kind)."""
    checks = checks + (Check("sweep-ok", EvidenceKind.SIMULATION, _supported),)
    return Claim(cid, cid, "x", kind, "test", checks=checks, negative_control=NC)


# --- crash is ERROR ----------------------------------------------------------------------


def test_a_formula_exception_is_tagged_with_the_formula_name_and_a_check_exception_is_not():
    impl = Impl.default()
    with pytest.raises(FORMULA_ERRORS) as info:
        impl.leverage_scores("not a matrix")
    assert raised_by_formula(info.value) == "leverage_scores"
    assert raised_by_formula(ValueError("from the check")) is None
    # overrides are formulas too; classes pass through unwrapped (isinstance works)
    bad = impl.with_overrides({"snr": lambda h: 1 / 0})
    with pytest.raises(ZeroDivisionError) as info:
        bad.snr(0.5)
    assert raised_by_formula(info.value) == "snr"
    assert isinstance(impl.GordanCertificate, type)


def test_formula_failure_counts_only_tagged_exceptions_except_under_a_control():
    impl = Impl.default()
    try:
        impl.snr("x")
    except FORMULA_ERRORS as exc:
        assert "formula snr raised" in formula_failure(exc, _ctx())
    with pytest.raises(ValueError, match="check's own"):
        formula_failure(ValueError("the check's own bug"), _ctx())
    why = formula_failure(ValueError("shapes (4,4) (6,6)"), _ctx(control=True))
    assert "wrong variant's output" in why


def test_a_check_that_crashes_in_its_own_code_is_error_with_a_traceback_and_a_formula_crash_fails():
    def own_bug(ctx):
        def measure(x):
            return max([])  # the check's own defect, like recall's empty interior

        return prop.check(ctx, st.integers(0, 3), measure, examples=5)

    def formula_raises(ctx):
        def measure(x):
            return float(ctx.impl.snr(x))

        return prop.check(ctx, st.integers(0, 3), measure, examples=5)

    bad_snr = Impl.default().with_overrides({"snr": lambda h: [][h]})
    claim = _claim(Check("own", EvidenceKind.PROPERTY, own_bug))
    ev = run_check(claim, claim.checks[0], impl=Impl.default(), profile=QUICK, seed=1)
    assert ev.status is EvidenceStatus.ERROR
    assert "max()" in ev.detail and "Traceback" in ev.data["traceback"]
    ev = run_check(claim, Check("formula", EvidenceKind.PROPERTY, formula_raises), impl=bad_snr,
                   profile=QUICK, seed=1)
    assert ev.status is EvidenceStatus.FAILED
    assert "formula snr raised" in ev.counterexample["raised"]


def test_the_precise_checker_lets_a_check_crash_through_and_fails_a_raising_formula():
    def residual_bug(case):
        raise ValueError("residual bug")

    with pytest.raises(ValueError, match="residual bug"):
        precise.check(_ctx(), [("a", 1)], residual_bug)
    bad = Impl.default().with_overrides({"snr": lambda h: 1 / 0})
    ev = precise.check(_ctx(bad), [("a", mpmath.mpf(1) / 3)], lambda h: (bad.snr(h), 1))
    assert ev.status is EvidenceStatus.FAILED and "formula snr raised" in ev.counterexample["why"]


@pytest.mark.parametrize("seed", range(1, 21))
def test_the_rms_ladder_duplicates_a_nonzero_column_so_every_case_has_an_interior_key(seed):
    # seed 4 once duplicated a zero column of a rank-deficient case: no 0 < h < 1, max() of nothing
    prepared = recall._rms_ladder(_ctx(seed=seed, check="ladder"))
    assert prepared and all(interior for _, (K, W0, interior, half) in prepared)
    assert any(half for _, (K, W0, interior, half) in prepared)  # the unit threshold h = 1/2 is on the ladder


# --- the precision ladder ------------------------------------------------------------------


def test_ladder_fall_measures_from_the_rung_that_resolves_the_case():
    assert ladder_fall([1e-50, 1e-100, 1e-150], PRECISION_LADDER)[0]
    # lev.column-energy, "cond 1e12, rank 2, 5x3, unit columns" at seed 6: a lucky first rung
    assert ladder_fall([mpmath.mpf("2.21e-101"), mpmath.mpf("3.19e-101"), mpmath.mpf("2.29e-151")],
                       PRECISION_LADDER)[0]
    assert ladder_fall([0, 0, 0], PRECISION_LADDER)[0]
    assert ladder_fall([0, 1e-120, 1e-151], PRECISION_LADDER)[0]
    # stalls: an approximation's error does not follow the precision
    for stall in ([1e-75, 1e-75, 1e-75], [1e-50, 1e-75, 1e-75], [1e-50, 1e-90, 1e-90]):
        assert not ladder_fall(stall, PRECISION_LADDER)[0]
    assert LADDER_MIN_DROP_DIGITS == 50
    with pytest.raises(ValueError, match="one residual per rung"):
        ladder_fall([1e-50], PRECISION_LADDER)


def test_ladder_passes_identities_with_accidental_cancellation_and_fails_stalled_approximations():
    # a vacuous scale (1e200) takes the per-rung bound out: the fall alone decides
    lucky = {50: mpmath.mpf("1e-101")}

    def identity(case):
        dps = mpmath.mp.dps
        return lucky.get(dps, mpmath.mpf(10) ** -dps * case) if case == 3 else mpmath.mpf(10) ** -dps * case, 1e200

    def approximation(case):
        return max(mpmath.mpf(10) ** -mpmath.mp.dps, mpmath.mpf(10) ** -case), 1e200

    ok = precise.check(_ctx(), [("plain", 1), ("lucky", 3)], identity)
    assert ok.status is EvidenceStatus.PASSED, ok.counterexample
    for digits in (60, 75, 90):
        bad = precise.check(_ctx(), [(f"error 1e-{digits}", digits)], approximation)
        assert bad.status is EvidenceStatus.FAILED and "stalls" in bad.counterexample["why"], digits


HARDEST = ("lev.column-energy", "recall.rms-convention", "proj.coefficient-projector", "lev.range")


@pytest.fixture(scope="module")
def catalogue():
    return load_claims()


@pytest.mark.parametrize("cid", HARDEST)
def test_identity_ladders_pass_on_the_hardest_generated_families_at_every_seed(catalogue, cid):
    """cond 1e12 and 1e20, rank-deficient, duplicated, near-parallel unit keys (cond ~1e15), seeds 1..10
    (seed 6 is lev.column-energy's accidental cancellation)."""
    if cid not in catalogue:
        pytest.skip(f"{cid} not in the catalogue")
    claim = catalogue.get(cid)
    ladders = [c for c in claim.checks if c.kind is EvidenceKind.PRECISE]
    assert ladders
    for seed in range(1, 11):
        for check in ladders:
            ev = run_check(claim, check, impl=Impl.default(), profile=UNHURRIED, seed=seed)
            assert ev.status is EvidenceStatus.PASSED, (seed, check.name, ev.counterexample)


def test_an_approximate_leverage_formula_still_fails_the_ladder(catalogue):
    import linmem

    def approximate(K):
        h = linmem.leverage_scores(K)
        return h + h * mpmath.mpf(10) ** -40 if getattr(h, "dtype", None) == object else h

    claim = catalogue.get("lev.column-energy")
    check = next(c for c in claim.checks if c.kind is EvidenceKind.PRECISE)
    impl = Impl.default().with_overrides({"leverage_scores": approximate})
    for seed in (1, 6):
        ev = run_check(claim, check, impl=impl, profile=UNHURRIED, seed=seed)
        assert ev.status is EvidenceStatus.FAILED, (seed, ev.detail)


# --- rate, power, domain -----------------------------------------------------------------


def test_the_rate_criterion_is_two_sided():
    crit = simulation.rate(exponent=-0.5, band=0.1)
    sizes = [16, 32, 64, 128]
    assert crit(sizes, [d**-0.5 for d in sizes])[0]
    assert crit(sizes, [d**-0.45 for d in sizes])[0]
    assert not crit(sizes, [d**-1.0 for d in sizes])[0]  # faster than claimed: a planted false rate
    assert not crit(sizes, [d**-0.2 for d in sizes])[0]
    assert not crit(sizes, [1.0, 0.5, 0.0, 0.1])[0]
    ok, gap, band, _ = crit(sizes, [d**-0.5 for d in sizes])
    assert gap == pytest.approx(0.0, abs=1e-12) and band == 0.1
    # the one-sided criterion lets the too-fast decay through: that is what rate() is for
    assert simulation.shrinks(max_slope=-0.3, max_last_over_first=0.6)(sizes, [d**-1.0 for d in sizes])[0]
    with pytest.raises(ValueError, match="band must be positive"):
        simulation.rate(exponent=-0.5, band=0)


def test_underpowered_decides_on_the_design_and_names_the_profile_that_can():
    assert round(margin_sd(), 2) == 3.09 and required_margin_sd() == pytest.approx(2 * margin_sd())
    assert simulation.underpowered(effect=0.1, spread=0.016, profile="quick", better=None) is None
    why = simulation.underpowered(effect=0.1, spread=0.09, profile="quick", better="standard")
    assert "run --profile standard" in why and "0.09" in why
    assert "not measured" in simulation.underpowered(effect=0.1, spread=None, profile="quick", better=None)


def _sweep_claim(criterion, cid="t.sweep"):
    def run_(ctx):
        return simulation.check(ctx, [8, 16, 32], lambda d, rng: d**-0.5, criterion, label="t",
                                size_name="d", domain={"M/d": [2]})

    return _claim(Check("sweep", EvidenceKind.SIMULATION, run_), cid=cid)


def test_simulation_check_records_its_domain_and_passes_an_inconclusive_status_through():
    inconclusive = _sweep_claim(lambda s, f: (EvidenceStatus.INCONCLUSIVE, 1.0, 0.0, "too few pools"))
    supported = _sweep_claim(simulation.rate(exponent=-0.5, band=0.1), cid="t.ok")
    res = run(Registry([inconclusive, supported]), profile=QUICK)
    status = {r.claim.id: r.status for r in res.results}
    assert status == {"t.sweep": Status.INCONCLUSIVE, "t.ok": Status.SUPPORTED}
    ev = res.results[1].evidence[0]
    assert ev.data["domain"] == {"d": {"values": [8, 16, 32], "min": 8, "max": 32}, "M/d": [2]}


def test_a_check_returning_another_kind_than_declared_is_an_error_and_claims_declare_domains():
    def wrong_kind(ctx):
        return make(ctx, EvidenceKind.PROPERTY, True, seconds=0.0, figure=0.0, threshold=1.0)

    claim = _claim(Check("sim", EvidenceKind.SIMULATION, wrong_kind))
    ev = run_check(claim, claim.checks[0], impl=Impl.default(), profile=QUICK, seed=1)
    assert ev.status is EvidenceStatus.ERROR and "declared as simulation" in ev.detail
    c = Claim("t.d", "d", "x", ClaimKind.APPROXIMATION, "s", checks=claim.checks, negative_control=NC,
              domain={"d": [1, None]})
    assert c.domain == {"d": [1, None]}
    with pytest.raises(TypeError, match="domain must be a mapping"):
        Claim("t.e", "e", "x", ClaimKind.APPROXIMATION, "s", checks=claim.checks, negative_control=NC,
              domain=[("d", 1)])


def test_every_catalogue_check_returns_the_kind_it_declares(catalogue):
    # the rate sweeps are cheap; the rest of the catalogue is covered by the verify runs
    for cid in ("cap.uniform-leverage-accuracy", "sph.distance"):
        claim = catalogue.get(cid)
        for check in claim.checks:
            ev = run_check(claim, check, impl=Impl.default(), profile=UNHURRIED, seed=3)
            assert ev.kind is check.kind and ev.status in (EvidenceStatus.PASSED, EvidenceStatus.SUPPORTED), \
                (cid, check.name, ev.detail)
            if check.kind is EvidenceKind.SIMULATION:
                assert ev.data["domain"]["d"]["min"] < ev.data["domain"]["d"]["max"]


# --- the finite-size criteria against their controls -----------------------------------


def _ce_table(peaks_by_d, prominence=5.0, resolution=0.01, profile="quick"):
    rows = [{"peak": float(np.mean(p)), "seed_peaks": list(p), "prominence": prominence,
             "resolution": resolution} for p in peaks_by_d.values()]
    return SweepTable(tuple(peaks_by_d), rows, "peak", PROFILES[profile], "d")


def test_the_norm_peak_drift_is_inconclusive_where_the_design_cannot_resolve_it():
    dims = (6, 8, 10, 12)
    rng = np.random.default_rng(0)
    falling = {d: 1.2 - 0.15 * math.log(d / 6) + rng.normal(0, 0.1 / d * 6, 4) for d in dims}
    verdict, bound, thr, why = finite_size._norm_peak_criterion(_ce_table(falling))
    assert verdict is EvidenceStatus.INCONCLUSIVE and "not resolvable here" in why
    # the negative control: no interior maximum, prominence exactly 1 -> NOT SUPPORTED, never INCONCLUSIVE
    assert finite_size._norm_peak_criterion(_ce_table(falling, prominence=1.0))[0] is False
    # a drift resolved upward contradicts the statement
    rising = {d: 0.8 + 1.0 * math.log(d / 6) + np.array([0.0, 0.001, -0.001, 0.0]) for d in dims}
    assert finite_size._norm_peak_criterion(_ce_table(rising))[0] is False


def test_the_norm_peak_drift_is_resolved_at_standard_and_thorough_but_not_at_quick():
    sd = finite_size.DRIFT_SLOPE_SD
    assert finite_size.DRIFT_EFFECT / sd["quick"] < required_margin_sd()
    for level in ("standard", "thorough"):
        assert finite_size.DRIFT_EFFECT / sd[level] >= required_margin_sd(), level


def test_the_quick_norm_peak_evidence_names_standard_as_the_profile_that_resolves_it():
    dims = (6, 8, 10, 12)
    rng = np.random.default_rng(0)
    falling = {d: 1.2 - 0.15 * math.log(d / 6) + rng.normal(0, 0.1 / d * 6, 4) for d in dims}
    assert "run --profile standard" in finite_size._norm_peak_criterion(_ce_table(falling))[3]


def test_the_standard_norm_peak_design_decides_a_falling_peak():
    dims = (6, 8, 12, 16, 24)
    rng = np.random.default_rng(0)
    falling = {d: 1.14 - 0.127 * math.log(d / 6) + rng.normal(0, 0.6 / d, 8) for d in dims}
    verdict, bound, _, why = finite_size._norm_peak_criterion(_ce_table(falling, profile="standard"))
    assert verdict is True and bound < 0, why


def test_the_second_order_criterion_fails_the_cmm_decider_at_every_dimension():
    dims = (4, 5, 6, 7)
    truth = {4: 9.0, 5: 11.5, 6: 14.5, 7: 19.0}  # run seed 3, quick
    control = {4: 2.5, 5: 3.0, 6: 3.5, 7: 2.5}  # the CMM-decider control, default seed
    for n_c, expect in ((truth, True), (control, False)):
        rows = [{"n_c": n, "censored_share": 0.0, "loglog": math.log(math.log(n)),
                 "term": linmem.capacity.second_order_term(d, n)} for d, n in n_c.items()]
        table = SweepTable(dims, rows, "n_c", PROFILES["quick"], "d")
        ok, a, _, why = finite_size._second_order_criterion(table)
        assert ok is expect, why
    assert "no at d = [4, 5, 6, 7]" in why


def test_property_and_exact_searches_record_the_shapes_they_visited():
    from theorems.evidence import symbolic
    from theorems.authoring.strategies import float_key_cases

    ev = prop.check(_ctx(), float_key_cases(), lambda case: 0.0, examples=15)
    dom = ev.data["domain"]
    assert dom["examples"] == ev.cases and dom["d"][0] <= dom["d"][1] and dom["families"]
    matrices = st.integers(1, 4).map(lambda d: np.zeros((d, d + 1), dtype=object))
    ev = symbolic.check_exact(_ctx(), matrices, lambda K: 0, examples=10)
    assert ev.data["domain"]["examples"] == ev.cases and 1 <= ev.data["domain"]["d"][0]
    assert ev.data["domain"]["M"][0] == ev.data["domain"]["d"][0] + 1
