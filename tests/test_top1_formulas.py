"""Tests of the top-1 scales in linmem.retrieval (004): the exact CMM score
variances, the crossover of CMM's bound with a loose one, the mean of a
Gaussian maximum and the second-order threshold."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

import linmem
from linmem import retrieval
from linmem.tolerances import QUADRATURE_RTOL

SEED = 20261201


def test_score_variances_are_exact_fractions_for_integers():
    assert retrieval.competitor_variance(2, 1) == Fraction(6)
    assert retrieval.competitor_variance(10, 4) == Fraction(10 + 8 + 2, 16)
    assert retrieval.matched_variance(10, 4) == Fraction(10 + 16 + 3, 16)
    assert isinstance(retrieval.matched_variance(np.int64(3), 2), Fraction)


def test_score_variances_of_floats_and_mpmath_are_the_same_formula():
    assert retrieval.competitor_variance(1000.0, 10) == pytest.approx(10.22, rel=1e-15)
    with mpmath.workdps(40):
        v = retrieval.matched_variance(mpmath.mpf(7), mpmath.mpf(3))
        assert isinstance(v, mpmath.mpf) and abs(v - mpmath.mpf(22) / 9) < mpmath.mpf(10) ** -38


def test_score_variances_are_polynomials_in_sympy_with_the_stated_limit():
    n, d = sympy.symbols("n d", positive=True)
    assert sympy.simplify(retrieval.competitor_variance(n, d) - (n + 2 * d + 2) / d**2) == 0
    assert sympy.simplify(retrieval.matched_variance(n, d) - retrieval.competitor_variance(n, d)
                          - (2 * d + 1) / d**2) == 0
    assert sympy.limit(retrieval.competitor_variance(n, d) * d**2 / n, n, sympy.oo) == 1


def test_competitor_variance_matches_a_gaussian_sample():
    """A crude independent witness (the claim t1.score-scales does it properly):
    2000 draws of S_01 at n = 5, d = 3 agree within 5 standard errors."""
    rng = np.random.default_rng(SEED)
    n, d, draws = 5, 3, 2000
    X = rng.standard_normal((draws, 2, d, n)) / math.sqrt(d)
    s01 = np.array([(x[1][:, 1] @ retrieval.cmm(x[0], x[1])) @ x[0][:, 0] for x in X])
    var = float(retrieval.competitor_variance(n, d))
    se = np.std(s01**2) / math.sqrt(draws)
    assert abs(np.mean(s01**2) - var) < 5 * se


@pytest.mark.parametrize("C", [1, 2.0, 24, 1000.0, Fraction(3, 2)])
def test_loose_bound_crossover_is_the_one_sign_change(C):
    star = retrieval.loose_bound_crossover(C)
    gap = lambda x: 8 * math.log(x) - float(C) * math.log(x) ** 4  # noqa: E731
    assert abs(gap(star)) < 64 * np.finfo(float).eps * 8 * math.log(star)
    assert gap(star * 1.001) < 0 < gap(1 + (star - 1) * 0.999)


def test_loose_bound_crossover_in_mpmath_and_sympy():
    assert retrieval.loose_bound_crossover(1) == pytest.approx(math.e**2, rel=1e-15)
    with mpmath.workdps(60):
        star = retrieval.loose_bound_crossover(mpmath.mpf(8))
        assert abs(star - mpmath.e) < mpmath.mpf(10) ** -58
    C = sympy.Symbol("C", positive=True)
    assert sympy.simplify(sympy.log(retrieval.loose_bound_crossover(C)) ** 3 * C - 8) == 0


@pytest.mark.parametrize("m, exact", [
    (1, 0.0),
    (2, 1 / math.sqrt(math.pi)),
    (3, 3 / (2 * math.sqrt(math.pi))),
])
def test_expected_gaussian_maximum_closed_forms(m, exact):
    assert retrieval.expected_gaussian_maximum(m) == pytest.approx(exact, rel=100 * QUADRATURE_RTOL, abs=1e-15)


@pytest.mark.parametrize("m", [10, 999, 10**5])
def test_expected_gaussian_maximum_against_mpmath_quadrature(m):
    with mpmath.workdps(30):
        pdf = lambda x: m * mpmath.npdf(x) * mpmath.ncdf(x) ** (m - 1)  # noqa: E731
        loc = mpmath.sqrt(2 * mpmath.log(m))
        ref = mpmath.quad(lambda x: x * pdf(x), [-mpmath.inf, 0, loc, 2 * loc, mpmath.inf])
    assert retrieval.expected_gaussian_maximum(m) == pytest.approx(float(ref), rel=1e-9)


def test_expected_gaussian_maximum_falls_short_of_sqrt_2_ln_m_ever_less():
    errs = [1 - retrieval.expected_gaussian_maximum(m) / math.sqrt(2 * math.log(m)) for m in (10, 10**3, 10**6)]
    assert 0 < errs[2] < errs[1] < errs[0] < 0.5


def test_second_order_crossing_values_and_limit():
    assert retrieval.second_order_crossing(math.e**math.e) == pytest.approx(2 - 3 / math.e, rel=1e-14)
    vals = [retrieval.second_order_crossing(n) for n in (20.0, 1e3, 1e6, 1e300)]
    assert vals == sorted(vals) and 1.9 < vals[-1] < 2


def _exact_combination(keys, targets, x):
    """sum_ij x_ij (u_i - u_j) v_i^T in Fractions, by the definition."""
    V = [[Fraction(float(a)) for a in row] for row in keys]
    U = [[Fraction(float(a)) for a in row] for row in targets]
    n = len(V[0])
    return [[sum(x[i, j] * (U[a][i] - U[a][j]) * V[b][i] for i in range(n) for j in range(n) if i != j)
             for b in range(len(V))] for a in range(len(U))]


@pytest.mark.parametrize("d, n", [(1, 4), (2, 9), (3, 12)])
def test_exact_dependence_of_a_solver_certificate_is_an_exact_certificate(d, n):
    rng = np.random.default_rng([SEED, d, n])
    for _ in range(20):  # find a non-separable instance (above the threshold load)
        keys, targets = rng.standard_normal((2, d, n))
        cert = linmem.gordan_certificate(keys, targets)
        if cert.lam is not None:
            break
    assert cert.lam is not None
    x = retrieval.exact_dependence(keys, targets, cert.lam)
    assert x is not None and all(v >= 0 for v in x.ravel()) and sum(x.ravel()) == 1
    assert all(v == 0 for row in _exact_combination(keys, targets, x) for v in row)
    assert all(x[i, j] == 0 for i in range(n) for j in range(n) if not cert.lam[i, j] > 0)


def test_exact_dependence_is_none_without_support_or_solution():
    keys, targets = np.eye(2), np.eye(2)  # separable: no dependence exists
    assert retrieval.exact_dependence(keys, targets, np.zeros((2, 2))) is None
    assert retrieval.exact_dependence(keys, targets, np.array([[0.0, 1.0], [0.0, 0.0]])) is None


@pytest.mark.parametrize("func, args, exc, fragment", [
    pytest.param(retrieval.competitor_variance, (1, 3), ValueError, "n must be an integer >= 2", id="competitor-n-1"),
    pytest.param(retrieval.competitor_variance, (4, 0), ValueError, "d must be an integer >= 1", id="competitor-d-0"),
    pytest.param(retrieval.competitor_variance, (4.0, -2.0), ValueError, "d must be a finite number >= 1",
                 id="competitor-d-negative"),
    pytest.param(retrieval.competitor_variance, (math.nan, 2), ValueError, "n must be a finite number >= 2",
                 id="competitor-n-nan"),
    pytest.param(retrieval.competitor_variance, ("5", 2), TypeError,
                 "n must be a number or a sympy expression, got str", id="competitor-n-str"),
    pytest.param(retrieval.matched_variance, (0, 2), ValueError, "n must be an integer >= 1", id="matched-n-0"),
    pytest.param(retrieval.matched_variance, (3, True), TypeError, "d must be a number", id="matched-d-bool"),
    pytest.param(retrieval.matched_variance, (3, None), TypeError, "got NoneType", id="matched-d-none"),
    pytest.param(retrieval.loose_bound_crossover, (0,), ValueError, "C must be a finite number > 0", id="loose-0"),
    pytest.param(retrieval.loose_bound_crossover, (-1.0,), ValueError, "C must be a finite number > 0", id="loose-neg"),
    pytest.param(retrieval.loose_bound_crossover, (mpmath.mpf(-2),), ValueError, "C must be a finite number > 0",
                 id="loose-mpf-neg"),
    pytest.param(retrieval.loose_bound_crossover, ("1",), TypeError, "C must be a real number, got str",
                 id="loose-str"),
    pytest.param(retrieval.expected_gaussian_maximum, (0,), ValueError, "m must be", id="gmax-0"),
    pytest.param(retrieval.expected_gaussian_maximum, (2.5,), TypeError, "m must be", id="gmax-float"),
    pytest.param(retrieval.second_order_crossing, (1.0,), ValueError, "n must be > 1", id="second-order-1"),
    pytest.param(retrieval.second_order_crossing, (math.inf,), ValueError, "n must be a finite number > 0",
                 id="second-order-inf"),
    pytest.param(retrieval.second_order_crossing, ([10.0],), TypeError, "n must be a real number, got list",
                 id="second-order-list"),
    pytest.param(retrieval.exact_dependence, (np.eye(2), np.eye(2), np.zeros((3, 3))), ValueError,
                 "lam must be an n x n array with n = 2 (columns of keys), got shape (3, 3)",
                 id="dependence-lam-shape"),
    pytest.param(retrieval.exact_dependence, (np.eye(2), np.eye(3), np.zeros((2, 2))), ValueError,
                 "keys and targets must have the same number of columns", id="dependence-count"),
    pytest.param(retrieval.exact_dependence, (np.eye(2), np.eye(2), np.full((2, 2), np.nan)), ValueError,
                 "lam must have finite entries", id="dependence-lam-nan"),
    pytest.param(retrieval.exact_dependence, (linmem.exact_array([[1, 0]]), np.eye(2), np.zeros((2, 2))),
                 TypeError, "keys must be a float array", id="dependence-exact-keys"),
])
def test_bad_input_is_refused_naming_the_argument(func, args, exc, fragment):
    with pytest.raises(exc) as info:
        func(*args)
    assert fragment in str(info.value)


# --- the instance families and references of t1.dual-certificate ------------------------

from hypothesis import given  # noqa: E402

from theorems.authoring import kit, strategies  # noqa: E402


@given(__import__('theorems.claims.top1', fromlist=['x']).integer_comparison_instances())
def test_integer_comparison_instances_are_small_integer_float_arrays(case):
    V, U = case
    assert V.dtype == U.dtype == float and V.shape[1] == U.shape[1] and 2 <= V.shape[1] <= 5
    assert 1 <= V.shape[0] <= 3 and 1 <= U.shape[0] <= 3
    for X in (V, U):
        assert np.array_equal(X, np.round(X)) and np.abs(X).max(initial=0) <= 3


@given(__import__('theorems.claims.top1', fromlist=['x']).float_comparison_instances())
def test_float_comparison_instances_have_their_family(case):
    recipe, V, U = case
    n, family = recipe["n"], recipe["family"]
    assert V.shape == (recipe["dk"], n) and U.shape == (recipe["dt"], n) and np.all(np.isfinite(V))
    if family == "duplicated":  # at most n // 2 distinct keys
        assert len({tuple(c) for c in V.T}) <= max(1, n // 2)
    if family == "rank_deficient" and min(V.shape) > 1:
        assert linmem.numerical_rank(V) == min(V.shape) - 1
    if family == "scaled":
        norms = np.linalg.norm(V, axis=0)
        assert norms.max() / norms.min() < 10.0 ** (2 * strategies.COMPARISON_SCALED_DECADES + 3)


def test_comparison_ladder_cases_are_labelled_rationals_with_the_stated_structure():
    cases = dict(__import__('theorems.claims.top1', fromlist=['x']).comparison_ladder_cases(np.random.default_rng(SEED)))
    assert len(cases) == 6
    V, U = cases["d=2, n=5, duplicated key"]
    assert np.array_equal(V[:, 0], V[:, 1]) and not np.array_equal(U[:, 0], U[:, 1])
    V, _ = cases["d=3, n=3, keys cond 1e6"]
    assert np.linalg.cond(V) == pytest.approx(1e6, rel=1e-6)
    V, U = cases["d=2, n=3"]
    for x in np.concatenate([V.ravel(), U.ravel()]):
        assert Fraction(x).limit_denominator(strategies.COMPARISON_LADDER_DENOMINATOR) == pytest.approx(x, abs=1e-15)


def test_comparisons_are_the_definition():
    V, U = np.array([[1.0, 2.0, 0.0]]), np.array([[1.0, 0.0, 3.0], [0.0, 1.0, 1.0]])
    A = kit.comparisons(V, U)
    assert sorted(A) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    assert np.array_equal(A[0, 2], np.outer(U[:, 0] - U[:, 2], V[:, 0]))
    assert np.array_equal(A[1, 0], [[-2.0], [2.0]])


def test_gordan_residual_is_zero_exactly_for_a_certificate_and_positive_otherwise():
    V, U = kit.exact([[1, 1]]), kit.exact([[1, -1]])  # one key, two targets: inseparable
    A = kit.comparisons(V, U)
    half = Fraction(1, 2)
    assert kit.gordan_residual(A, lam={(0, 1): half, (1, 0): half}) == (0, 2)
    assert kit.gordan_residual(A, lam={(0, 1): Fraction(1), (1, 0): Fraction(0)})[0] == 4 + 0 + 0
    assert kit.gordan_residual(A, lam={(0, 1): half, (1, 0): Fraction(3, 4)})[0] > 0  # sum is not 1
    assert kit.gordan_residual(A, W=kit.exact([[1]])) == (3, 1)  # margin -2 at (1, 0)
    sep = kit.comparisons(kit.exact([[1, 0], [0, 1]]), kit.exact([[1, 0], [0, 1]]))
    assert kit.gordan_residual(sep, W=kit.exact([[1, 0], [0, 1]])) == (0, 1)
    assert kit.gordan_residual(A) == (math.inf, 1)
    with mpmath.workdps(30):
        r, s = kit.gordan_residual(kit.to_mp(A), lam={(0, 1): mpmath.mpf(0.5), (1, 0): mpmath.mpf(0.5)})
        assert r == 0 and s == 4  # scale sum lam ||A|| = 2, times the support size


# --- exact Gaussian references of t1.score-scales -----------------------------------------


def test_gaussian_moment_is_isserlis():
    x, y = sympy.symbols("x y")
    s = sympy.Rational(1, 3)
    assert kit.gaussian_moment(x**4, (x, y), s) == 3 * s**2
    assert kit.gaussian_moment(x**2 * y**2 + x * y + x**3, (x, y), s) == s**2
    assert kit.gaussian_moment(x**6 - 2, (x,), s) == 15 * s**3 - 2


def test_gaussian_moment_of_a_cmm_score_is_the_competitor_variance():
    n, d = 3, 1
    u, v = sympy.symbols("u0:3"), sympy.symbols("v0:3")
    s01 = sum(u[1] * u[l] * v[l] * v[0] for l in range(n))
    assert kit.gaussian_moment(s01**2, (*u, *v), sympy.Rational(1, d)) == retrieval.competitor_variance(n, d)


def test_score_statistics_are_the_four_means():
    rng = np.random.default_rng(SEED)
    S = rng.standard_normal((5, 5))
    off = ~np.eye(5, dtype=bool)
    got = retrieval.score_statistics(S)
    want = (np.diag(S).mean(), S[off].mean(), (S[off] ** 2).mean(), ((np.diag(S) - 1) ** 2).mean())
    assert got == pytest.approx(want, rel=1e-13) and all(isinstance(x, float) for x in got)


def test_score_statistics_of_the_cmm_have_the_claimed_means():
    """A crude witness (t1.score-scales does it properly): 400 CMM instances at
    n = 6, d = 4 within 5 standard errors of 1, 0 and the exact variances."""
    rng = np.random.default_rng(SEED)
    n, d = 6, 4
    rows = []
    for _ in range(400):
        V, U = rng.standard_normal((2, d, n)) / math.sqrt(d)
        rows.append(retrieval.score_statistics(retrieval.scores(retrieval.cmm(V, U), V, U)))
    rows = np.array(rows)
    claimed = [1, 0, float(retrieval.competitor_variance(n, d)), float(retrieval.matched_variance(n, d))]
    z = (rows.mean(axis=0) - claimed) / (rows.std(axis=0, ddof=1) / math.sqrt(len(rows)))
    assert np.all(np.abs(z) < 5), z


def test_the_three_point_design_law_has_the_gaussian_moments_and_the_cmm_sums():
    """t1.score-scales' design: one coordinate's moments (in units sqrt(3/d))
    are N(0, 1/3)'s to order 5 (the defect its enumeration certifies is 0, a
    fair coin's is not), and over 2nd coordinates the exact means of the
    rescaled CMM score sums are 1, 0, the competitor variance and 1 + the
    matched variance."""
    from theorems.claims import top1

    assert top1._design_defect((2, 1), top1._THREE_POINT.stacked(4)) == 0
    assert top1._design_defect(None, None, kit.law([-1, 1])) == Fraction(8, 9)  # a coin: E e^2 = E e^4 = 1
    for n, d in ((2, 1), (3, 1)):
        law = top1._THREE_POINT.stacked(2 * n * d)
        got = law.mean(top1._design_sums(linmem, (n, d), law.outcomes[0])).tolist()
        assert got == [1, 0, retrieval.competitor_variance(n, d), 1 + retrieval.matched_variance(n, d)]


def test_decays_fails_a_vanishing_figure_with_an_infinite_figure():
    from theorems.evidence import simulation

    criterion = simulation.decays(max_slope=-0.5, max_last_over_first=0.5)
    assert criterion([10, 100], [1.0, 0.0])[:2] == (False, math.inf)
    assert criterion([10, 100], [1.0, math.nan])[:2] == (False, math.inf)
    ok, slope, threshold, _ = criterion([10, 100, 1000], [1.0, 0.1, 0.01])
    assert bool(ok) and slope == pytest.approx(-1.0) and threshold == -0.5
    assert not criterion([10, 100], [1.0, 0.9])[0]  # too slow


def test_paired_gain_is_the_mean_gain_its_t_and_the_failures_left():
    got = retrieval.paired_gain(np.array([8.0, 6.0, 7.0]), [10, 9, 9], 10)
    gains = np.array([2, 3, 2]) / 10
    assert got["gain"] == pytest.approx(gains.mean(), rel=1e-15)
    assert got["t"] == linmem.sweeps.paired_t(gains)
    assert got["unfixed"] == pytest.approx(2 / 9, rel=1e-15)  # CMM failed 9 pairs, the repair still fails 2
    perfect = retrieval.paired_gain([10, 10], [10, 9], 10)  # nothing to repair: 0 left, and a loss
    assert perfect["unfixed"] == 0.0 and perfect["gain"] == -0.05 and perfect["t"] < 0
    assert retrieval.paired_gain([4, 4], [4, 4], 5)["t"] == -math.inf  # no gain is no evidence of a gain
