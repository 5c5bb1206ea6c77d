"""The references the tam claims read from linmem and the kit (normal-law
quantile and partial moments by routes of their own, the paired t
statistic, the sweep cache under negative controls)."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
from scipy import integrate, special

from linmem import capacity, sweeps
from theorems.authoring import kit


@pytest.mark.parametrize("r", [1e-12, 0.025, 0.15, Fraction(3, 20), 0.5, 0.9, 1 - 2.0**-30])
def test_upper_quantile_matches_the_erfinv_route(r):
    with mpmath.workdps(60):
        q = capacity.normal_upper_quantile_mp(r, dps=60)
        rm = mpmath.mpf(r.numerator) / r.denominator if isinstance(r, Fraction) else mpmath.mpf(r)
        assert abs(mpmath.ncdf(-q) - rm) <= 1e-55 * rm  # the tail it was asked for
        assert abs(q - mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * rm)) <= 1e-50 * max(1, abs(q))
    assert float(q) == pytest.approx(-special.ndtri(float(r)), rel=1e-12, abs=1e-15)


def test_upper_quantile_of_one_half_is_zero_and_kappa_is_the_mean_beyond_it():
    assert abs(capacity.normal_upper_quantile_mp(0.5, dps=40)) < mpmath.mpf(10) ** -39
    with mpmath.workdps(40):
        q = capacity.normal_upper_quantile_mp(0.15, dps=40)
        kappa = mpmath.npdf(q) / mpmath.mpf(0.15)
        assert abs(kappa - capacity.kappa_mp(0.15, dps=40)) < mpmath.mpf(10) ** -35


@pytest.mark.parametrize("j", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("a", [-2.5, -0.3, 0.0, 0.7, 3.0])
def test_partial_moments_match_quadrature(j, a):
    with mpmath.workdps(30):
        value = capacity.normal_partial_moment_mp(j, a, dps=30)
        ref = mpmath.quad(lambda z: z**j * mpmath.npdf(z), [a, 0, 4, mpmath.inf] if a < 0 else [a, a + 4, mpmath.inf])
        assert abs(value - ref) <= mpmath.mpf(10) ** -25 * max(1, abs(ref))
    assert float(value) == pytest.approx(integrate.quad(lambda z: z**j * math.exp(-z * z / 2), a, 40)[0]
                                         / math.sqrt(2 * math.pi), rel=1e-9, abs=1e-12)


def test_partial_moments_closed_forms():
    with mpmath.workdps(50):
        a = mpmath.mpf("-0.8")
        assert abs(capacity.normal_partial_moment_mp(0, a, dps=50) - mpmath.ncdf(-a)) < mpmath.mpf(10) ** -48
        assert abs(capacity.normal_partial_moment_mp(1, a, dps=50) - mpmath.npdf(a)) < mpmath.mpf(10) ** -48
        # int_a^inf z^2 phi = a phi(a) + (1 - Phi(a))
        want = a * mpmath.npdf(a) + mpmath.ncdf(-a)
        assert abs(capacity.normal_partial_moment_mp(2, a, dps=50) - want) < mpmath.mpf(10) ** -48
    assert abs(capacity.normal_partial_moment_mp(2, Fraction(0), dps=30) - mpmath.mpf(1) / 2) < 1e-29


def test_paired_t_is_the_one_sample_t_of_the_differences():
    rng = np.random.default_rng(3)
    g = rng.normal(0.2, 1.0, 25)
    assert sweeps.paired_t(g) == pytest.approx(g.mean() / (g.std(ddof=1) / 5), rel=1e-14)
    assert sweeps.paired_t([1, 2, 3]) == pytest.approx(2 / (1 / math.sqrt(3)))
    assert sweeps.paired_t([-0.5, -0.5]) == -math.inf and sweeps.paired_t([0.25, 0.25]) == math.inf


def test_a_check_caches_through_its_context_and_a_negative_control_never_does(tmp_path):
    # the run hands its cache to every check (ctx.cache); under a wrong variant ctx.cache is None, whichever
    # formulas the computation calls (no list of formulas to keep in sync by hand)
    from theorems.authoring.templates import claim, wrong
    from theorems.core.model import ClaimKind, EvidenceKind
    from theorems.core.profiles import PROFILES
    from theorems.core.runner import run_check
    from theorems.core.impl import Impl
    from theorems.evidence._common import make
    from theorems.scale import sweepcache

    calls, seen = [], []

    def compute():
        calls.append(1)
        return [len(calls)]

    def check(ctx):
        seen.append(ctx.cache)
        value = kit.cached(ctx, compute, name="test.tam", params={"a": 1}, seed=[1, 2])
        return make(ctx, EvidenceKind.SIMULATION, True, seconds=0.0, figure=float(value[0]), threshold=9.0)

    c = claim("t.cached", kind=ClaimKind.ASYMPTOTIC, title="", statement="", source="test",
              checks={"sweep": (EvidenceKind.SIMULATION, check)}, control=wrong("x", snr=lambda h: h))
    store = sweepcache.SweepCache(tmp_path / "cache")
    honest = Impl.default()
    for _ in range(2):
        run_check(c, c.checks[0], impl=honest, profile=PROFILES["quick"], seed=0, cache=store)
    assert len(calls) == 1 and seen == [store, store]  # the second run read the cache
    run_check(c, c.checks[0], impl=honest.with_overrides(c.negative_control.overrides), profile=PROFILES["quick"],
              seed=0, cache=store)
    assert len(calls) == 2 and seen[-1] is None  # a control recomputes and stores nothing
    assert kit.sweep_cache(SimpleNamespace(cache=store)) is store
    run_check(c, c.checks[0], impl=honest, profile=PROFILES["quick"], seed=0, cache=None)
    assert len(calls) == 3 and seen[-1] is None  # a run without a cache


def test_plot_spec_is_what_the_report_draws():
    from theorems.reporting.plots import spec_plot

    spec = kit.plot("gap against beta", "beta", "gap", [kit.series("tied", [1.0, 10.0], [0.5, 0.05], "points"),
                                                        kit.series("bound", [1.0, 10.0], [0.7, 0.07])],
                    xscale="log", yscale="log", hlines=[{"y": 0.1, "label": "level"}])
    assert spec == {"title": "gap against beta", "x_label": "beta", "y_label": "gap", "xscale": "log", "yscale": "log",
                    "series": [{"label": "tied", "x": [1.0, 10.0], "y": [0.5, 0.05], "style": "points"},
                               {"label": "bound", "x": [1.0, 10.0], "y": [0.7, 0.07], "style": "line"}],
                    "hlines": [{"y": 0.1, "label": "level"}]}
    assert spec_plot(spec, salt="test") is not None
    with pytest.raises(ValueError, match="style must be 'line' or 'points', got 'bars'"):
        kit.series("a", [1], [1], "bars")
    with pytest.raises(ValueError, match="yscale must be 'linear' or 'log', got 'symlog'"):
        kit.plot("t", "x", "y", [], yscale="symlog")


def _planted(threshold_shift):
    """Succeeds when the instance's first key entry exceeds (n - 20 - shift) / 10: a crossing near n = 20 + shift."""
    return lambda V, U: bool(V[0, 0] > (V.shape[1] - 20 - threshold_shift) / 10)


def test_recheck_crossing_runs_the_stricter_test_on_the_sweeps_instances():
    sweep = sweeps.bisect_crossing(_planted(0), 4, load_kind="alpha", bracket=(0.4, 3.0), trials=12, steps=4,
                                   base_seed=7, name="test.sweep", cache=None)
    calls = []

    def stricter(V, U):  # implies the sweep's test: a crossing further down
        calls.append(V.shape[1])
        return _planted(0)(V, U) and _planted(-6)(V, U)

    res = sweeps.recheck_crossing(sweep, stricter, keep=8, base_seed=7, name="test.recheck", cache=None)
    counts = {n: int(np.sum(sweep.ns == n)) for n in set(sweep.ns.tolist())}
    assert res.ns.size == sum(min(8, c) for c in counts.values())
    assert len(calls) == int(res.first_outcomes.sum()) == res.evaluations and res.cache_hits == 0
    assert not np.any(res.second_outcomes & ~res.first_outcomes)  # never succeeds where the sweep failed
    assert res.second < res.first and 0 < res.agreement < 1
    # the same instances: a second test equal to the first agrees everywhere and refits the same crossing
    same = sweeps.recheck_crossing(sweep, _planted(0), keep=8, base_seed=7, name="test.recheck", cache=None)
    assert same.agreement == 1.0 and same.first == same.second == res.first
    # the kept instances are trials 0..keep-1 of each size: rebuilt here, the first test's outcomes match
    for n, ok, t in zip(res.ns.tolist(), res.first_outcomes.tolist(), _trials(res.ns)):
        V, U = sweeps.gaussian_pairs(4, n, rng=sweeps.instance_rng(7, 4, n, t))
        assert _planted(0)(V, U) == ok


def _trials(ns):
    seen = {}
    for n in ns.tolist():
        seen[n] = seen.get(n, -1) + 1
        yield seen[n]


def test_recheck_crossing_refuses_what_is_not_a_sweep():
    with pytest.raises(TypeError, match="result must be a CrossingResult of bisect_crossing, got dict"):
        sweeps.recheck_crossing({}, _planted(0), keep=2, base_seed=1, name="x", cache=None)
    sweep = sweeps.bisect_crossing(_planted(0), 3, load_kind="alpha", bracket=(0.5, 3.0), trials=2, steps=1,
                                   base_seed=1, name="x", cache=None)
    with pytest.raises(TypeError, match="success must be callable"):
        sweeps.recheck_crossing(sweep, None, keep=2, base_seed=1, name="x", cache=None)
    with pytest.raises(ValueError, match="keep must be an integer >= 1, got 0"):
        sweeps.recheck_crossing(sweep, _planted(0), keep=0, base_seed=1, name="x", cache=None)


def test_score_inputs_hold_what_their_docstring_says():
    from hypothesis import HealthCheck, given, settings

    from theorems.authoring import strategies

    plain, pairs = __import__('theorems.claims.tam', fromlist=['x']).score_inputs(), __import__('theorems.claims.tam', fromlist=['x']).score_inputs(pairs=True)
    labels = [label for label, _ in plain.precise(None)]
    assert len(labels) == 12 and {label.split(",")[0] for label in labels} == {"all tied", "two levels", "near ties",
                                                                              "wide"}
    for _, (s, k) in plain.precise(None):
        assert s.dtype == object and all(isinstance(x, Fraction) for x in s) and k in (1, 3, s.size)
    near = dict(plain.precise(None))["near ties, k=1"][0]
    assert min(np.diff(near)) == Fraction(1, 10**40)  # closer than float64 can tell apart
    for label, (a, b, k, theta) in pairs.precise(None):
        assert list(b) == list(a[::-1]) and theta in (Fraction(1, 2), Fraction(1, 3))
        assert label.endswith(f"theta={theta}")

    @settings(max_examples=60, database=None, suppress_health_check=list(HealthCheck))
    @given(plain.floats, pairs.floats)
    def drawn(case, pair):
        s, k = case.args
        assert s.dtype == float and 1 <= k <= s.size and case.recipe["kind"] in strategies.SCORE_KINDS
        a, b, k2, theta = pair.args
        assert a.shape == b.shape and 1 <= k2 <= a.size and 0 < theta < 1 and pair.recipe["theta"] == theta

    drawn()

    @settings(max_examples=30, database=None, suppress_health_check=list(HealthCheck))
    @given(plain.exact, pairs.exact)
    def exact(case, pair):  # the float draws at their binary values
        assert all(isinstance(x, Fraction) for x in case[0]) and isinstance(case[1], int)
        assert all(isinstance(x, Fraction) for x in (*pair[0], *pair[1], pair[3])) and isinstance(pair[2], int)

    exact()
