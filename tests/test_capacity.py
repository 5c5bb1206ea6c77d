"""Tests of linmem.capacity: kappa(r), alpha_c(r), top-1 load, Cover's count (004)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.special import lambertw

from linmem import capacity
from linmem.tolerances import working_eps
from theorems.core.tolerance import THRESHOLD

EPS = working_eps("float")

#: The brief's known answer: alpha_c(0.15) matches the mpmath value to this many ulps.
ALPHA_015_ULPS = 4

#: Float kappa and alpha_c against mpmath across (0, 1): a few ulps.
FLOAT_ULPS = 16

#: Digits of the mpmath references; the precision ladder for the quadrature check.
REFERENCE_DPS = 40
QUAD_DPS = (30, 60)

R_GRID = np.concatenate(
    [np.linspace(0.001, 0.95, 191), [1e-300, 1e-100, 1e-20, 1e-8, 0.15, 0.5]]
)


# --------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------


def test_alpha_c_at_015_matches_mpmath_to_four_ulps():
    ref = capacity.alpha_c_mp(0.15, dps=REFERENCE_DPS)
    got = capacity.alpha_c(0.15)
    assert round(got, 5) == 0.29444
    assert float(abs(got - ref) / ref) <= ALPHA_015_ULPS * EPS


def _normal_quantile(p):
    """Phi^{-1}(p) by bisection on [-12, 12] at the working precision (slow,
    sure, and independent of erfinv)."""
    lo, hi = mpmath.mpf(-12), mpmath.mpf(12)
    for _ in range(mpmath.mp.prec + 8):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mpmath.ncdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


def _kappa_reference(r):
    """kappa(r) = E[Z | Z > q] = (1/r) int_q^inf z phi(z) dz with q = Phi^{-1}(1 - r),
    by quadrature at the working precision."""
    q = _normal_quantile(1 - r)
    return mpmath.quad(lambda z: z * mpmath.npdf(z), [q, q + 1, mpmath.inf]) / r


@pytest.mark.parametrize("dps", QUAD_DPS)
@pytest.mark.parametrize("r", [2.0**-40, 0.01, 0.15, 0.5, 0.9, 1 - 2.0**-40])
def test_kappa_mp_is_the_conditional_mean_beyond_the_quantile(r, dps):
    # kappa(r) = E[Z | Z > q] = (1/r) int_q^inf z phi(z) dz, q = Phi^{-1}(1 - r)
    with mpmath.workdps(dps + 10):
        expected = _kappa_reference(mpmath.mpf(r))
    got = capacity.kappa_mp(r, dps=dps)
    with mpmath.workdps(dps):
        err = abs(got - expected) / expected
        assert err <= THRESHOLD * mpmath.mpf(2) ** (-mpmath.mp.prec)


def test_kappa_mp_of_a_rational_within_1e_20_of_one_gets_the_digits_it_needs():
    # r = 1 - 10^-20 as a Fraction: 1 - 2r sits 2e-20 from -1, where erfinv
    # amplifies the rounding of r; kappa_mp must add those 20 digits.
    r = Fraction(10**20 - 1, 10**20)
    with mpmath.workdps(80):
        expected = _kappa_reference(1 - mpmath.mpf(1) / 10**20)
    got = capacity.kappa_mp(r, dps=30)
    with mpmath.workdps(30):
        assert abs(got - expected) / expected <= THRESHOLD * mpmath.mpf(2) ** (-mpmath.mp.prec)


def test_kappa_at_one_half_is_sqrt_two_over_pi():
    assert abs(capacity.kappa(0.5) - math.sqrt(2 / math.pi)) <= FLOAT_ULPS * EPS
    with mpmath.workdps(60):
        assert abs(capacity.kappa_mp(0.5, dps=60) - mpmath.sqrt(2 / mpmath.pi)) < mpmath.mpf(10) ** -58


def test_float_kappa_and_alpha_c_match_mpmath_across_the_range():
    k = capacity.kappa(R_GRID)
    a = capacity.alpha_c(R_GRID)
    for i, r in enumerate(R_GRID):
        k_ref = capacity.kappa_mp(float(r), dps=REFERENCE_DPS)
        a_ref = capacity.alpha_c_mp(float(r), dps=REFERENCE_DPS)
        assert float(abs(k[i] - k_ref) / k_ref) <= FLOAT_ULPS * EPS, r
        assert float(abs(a[i] - a_ref) / a_ref) <= FLOAT_ULPS * EPS, r


def test_float_versions_are_vectorised_and_keep_the_shape():
    r = np.array([[0.1, 0.2], [0.3, 0.4]])
    assert capacity.alpha_c(r).shape == (2, 2)
    assert capacity.kappa(r)[1, 0] == capacity.kappa(0.3)
    assert isinstance(capacity.alpha_c(0.3), float)
    assert isinstance(capacity.alpha_c(np.float64(0.3)), float)


def test_alpha_c_increases_with_r_from_zero_to_two():
    # r -> 1: kappa -> 0 and alpha_c -> 1 / Phi(0) = 2; r -> 0: kappa ~ sqrt(2 ln(1/r))
    # and alpha_c ~ 1 / kappa^2 -> 0
    a = capacity.alpha_c(np.linspace(0.01, 0.99, 99))
    assert np.all(np.diff(a) > 0)
    assert abs(capacity.alpha_c(1 - 2**-40) - 2) < 1e-6
    assert capacity.alpha_c(1e-300) < 1 / capacity.kappa(1e-300) ** 2


def test_mpmath_versions_leave_the_global_precision_alone():
    before = mpmath.mp.prec
    capacity.kappa_mp(0.2, dps=80)
    capacity.alpha_c_mp(Fraction(3, 20), dps=80)
    assert mpmath.mp.prec == before


def test_mpmath_versions_accept_exact_fractions_and_mpf():
    with mpmath.workdps(40):
        a = capacity.alpha_c_mp(Fraction(1, 4), dps=40)
        b = capacity.alpha_c_mp(mpmath.mpf(1) / 4, dps=40)
        assert a == b


def test_mpmath_precision_ladder_residual_falls():
    # the float-vs-mpmath gap stays put; the mpmath-vs-mpmath gap falls with dps
    with mpmath.workdps(150):
        top = capacity.alpha_c_mp(0.15, dps=140)
        gaps = [abs(capacity.alpha_c_mp(0.15, dps=d) - top) for d in (30, 60, 90)]
    assert gaps[0] > gaps[1] > gaps[2]


# --------------------------------------------------------------------------
# top-1 load
# --------------------------------------------------------------------------


def test_top1_constants():
    assert capacity.CMM_TOP1_CONSTANT == 8
    assert capacity.OPTIMAL_TOP1_CONSTANT == 2


def test_critical_d_and_critical_n_invert_the_load_ratio():
    for n in [2.5, 10, 1000, 1e6]:
        for c in [capacity.OPTIMAL_TOP1_CONSTANT, capacity.CMM_TOP1_CONSTANT]:
            d = capacity.critical_d(n, c)
            assert abs(capacity.load_ratio(d, n) - c) <= THRESHOLD * EPS * c
            assert abs(capacity.critical_n(d, c) - n) <= THRESHOLD * EPS * n


def test_critical_n_matches_the_lambert_w_closed_form():
    for d in [1.0, 10.0, 256.0, 4096.0]:
        y = d * d / 2
        closed = y / lambertw(y).real
        assert abs(capacity.critical_n(d, 2) - closed) <= THRESHOLD * EPS * closed


def test_load_ratio_uses_the_natural_log():
    assert capacity.load_ratio(10, math.e) == pytest.approx(100 / math.e, rel=4 * EPS)


# --------------------------------------------------------------------------
# Cover's counting function
# --------------------------------------------------------------------------


@pytest.mark.parametrize("D", [1, 2, 5, 17, 60])
def test_cover_probability_is_one_up_to_D_points_and_one_half_at_2D(D):
    for n in range(1, D + 1):
        assert capacity.cover_probability(n, D) == 1
    assert capacity.cover_probability(2 * D, D) == Fraction(1, 2)
    assert capacity.cover_probability_float(2 * D, D) == 0.5


def test_cover_count_known_small_values():
    # n points on a line through the origin (D = 1): the two sign patterns
    assert capacity.cover_count(7, 1) == 2
    # n points in general position in the plane (D = 2): 2n dichotomies
    assert capacity.cover_count(7, 2) == 14
    assert capacity.cover_count(5, 3) == 2 * (1 + 4 + 6)


def test_cover_count_satisfies_covers_recursion():
    # C(n + 1, D) = C(n, D) + C(n, D - 1): add one point, split the dichotomies
    for n in range(1, 25):
        for D in range(2, 12):
            assert capacity.cover_count(n + 1, D) == capacity.cover_count(n, D) + capacity.cover_count(n, D - 1)


def test_cover_probability_float_is_correctly_rounded_for_large_n():
    p = capacity.cover_probability(3000, 1400)
    assert capacity.cover_probability_float(3000, 1400) == float(p)
    assert 0 < float(p) < 0.5


# --------------------------------------------------------------------------
# TAM helpers: competitor count, smoothing gap, sandwich bounds
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n, r, k", [(2, 0.15, 1), (3, 0.15, 1), (21, 0.15, 3), (11, 0.25, 2), (11, 0.35, 4),
                                     (5, 0.99, 4), (101, 0.5, 50)])
def test_competitor_count_rounds_r_times_the_competitors_into_one_to_n_minus_one(n, r, k):
    # round half to even: 0.25 * 10 = 2.5 -> 2, 0.35 * 10 = 3.5 -> 4
    assert capacity.competitor_count(n, r) == k


@pytest.mark.parametrize("m, k", [(2, 1), (4, 2), (6, 1), (5, 4), (8, 4), (7, 7)])
@pytest.mark.parametrize("beta", [0.5, 3.0, 100.0])
def test_tied_smoothing_gap_is_the_gap_of_the_smoothed_average_at_equal_scores(m, k, beta):
    # independent route: the objective t + (m / (k beta)) log(1 + e^{beta (1 - t)}) evaluated in mpmath at
    # its stationary point sigmoid(beta (1 - t)) = k/m, and checked to be a minimum against nearby t
    with mpmath.workdps(40):
        b = mpmath.mpf(beta)
        objective = lambda t: t + m * mpmath.log1p(mpmath.exp(b * (1 - t))) / (k * b) - 1  # noqa: E731
        if k == m:
            expected = mpmath.mpf(0)
        else:
            t = 1 - mpmath.log(mpmath.mpf(k) / (m - k)) / b
            expected = objective(t)
            assert objective(t - mpmath.mpf(1) / 10**6) > expected < objective(t + mpmath.mpf(1) / 10**6)
        got_mp = capacity.tied_smoothing_gap(m, k, beta=b)
        assert abs(got_mp - expected) <= THRESHOLD * mpmath.eps * (1 + abs(expected))
    assert abs(capacity.tied_smoothing_gap(m, k, beta=beta) - float(expected)) <= THRESHOLD * EPS * (1 + float(expected))


def test_tied_smoothing_gap_attains_the_general_bound_at_half_the_scores():
    assert capacity.tied_smoothing_gap(8, 4, beta=2.0) == pytest.approx(2 * math.log(2) / 2.0, rel=4 * EPS)


@pytest.mark.parametrize("scores, k, beta", [([3, 1, 2, -1, 2], 2, 3), ([1, 1, 1, 1], 2, 1), ([0.5], 1, 7),
                                             ([2, -1, 5], 3, 10)])
def test_smoothed_topk_average_mp_matches_linmem_float_and_its_own_higher_precision(scores, k, beta):
    from linmem import retrieval

    low = capacity.smoothed_topk_average_mp(scores, k, beta=beta, dps=30)
    high = capacity.smoothed_topk_average_mp(scores, k, beta=beta, dps=60)
    with mpmath.workdps(30):
        assert abs(low - high) <= THRESHOLD * mpmath.eps * (1 + abs(high))
    flt = retrieval.smoothed_topk_average(np.array(scores, dtype=float), k, beta=float(beta))
    assert abs(flt - float(high)) <= THRESHOLD * len(scores) * EPS * (1 + max(map(abs, scores)))


@pytest.mark.parametrize("dps", [30, 60, 120])
def test_smoothed_topk_average_mp_solves_saturated_sigmoids(dps):
    # beta times the spread of the scores saturates the sigmoids of the root equation; on these mpmath's
    # default budget of Anderson steps raised "Could not find root" (the first at 40 digits, seed 28 of
    # learn.tam-erm-stationary through the same equation)
    scores = [6.333526228249152, -22.035098806466507, 0.5202897425988651, 6.8368619077653445,
              10.039615758421697, -6.1790704470760085, 18.220113633283233]
    got = capacity.smoothed_topk_average_mp(scores, 2, beta=64.0, dps=dps)
    with mpmath.workdps(dps):
        b, s = mpmath.mpf(64), [mpmath.mpf(x) for x in scores]
        t = got - mpmath.fsum(mpmath.log1p(mpmath.exp(b * (x - got))) for x in s) / (2 * b)  # F >= t
        objective = lambda t: t + mpmath.fsum(mpmath.log1p(mpmath.exp(b * (x - t))) for x in s) / (2 * b)  # noqa
        # got is the minimum of the objective over t: no value below it on a grid around the top two scores
        assert min(objective(mpmath.mpf(c) / 100) for c in range(600, 2000)) >= got - THRESHOLD * mpmath.eps * 20
        assert t <= got


def test_smoothed_topk_average_mp_leaves_the_global_precision_alone():
    before = mpmath.mp.dps
    capacity.smoothed_topk_average_mp([1, 2, 3], 1, beta=2, dps=80)
    assert mpmath.mp.dps == before


@pytest.mark.parametrize("r", [1e-300, 1e-20, 1e-3, 0.15, 0.5, 0.9, 1 - 1e-9])
def test_alpha_c_lies_inside_its_sandwich_bounds_in_float_and_mpmath(r):
    lo, hi = capacity.alpha_c_bounds(capacity.kappa(r))
    assert lo <= capacity.alpha_c(r) <= hi * (1 + 4 * EPS)
    with mpmath.workdps(50):
        lo, hi = capacity.alpha_c_bounds(capacity.kappa_mp(r, dps=50))
        a = capacity.alpha_c_mp(r, dps=50)
        assert isinstance(lo, mpmath.mpf) and lo <= a <= hi


def test_alpha_c_bounds_pinch_to_two_at_kappa_zero():
    assert capacity.alpha_c_bounds(0.0) == (2.0, 2.0)


# --------------------------------------------------------------------------
# Cover: exact and LP separability
# --------------------------------------------------------------------------


def _separable_by_brute_force(Y):
    """Some w in a small integer grid with y_i . w > 0 for all rows (enough for the tiny examples below)."""
    D = len(Y[0])
    grid = itertools.product(range(-6, 7), repeat=D)
    return any(all(sum(a * b for a, b in zip(y, w)) > 0 for y in Y) for w in grid)


@pytest.mark.parametrize("seed", range(12))
def test_fm_separable_agrees_with_a_grid_search_and_the_lp_on_small_integer_rows(seed):
    rng = np.random.default_rng(seed)
    Y = rng.integers(-3, 4, size=(int(rng.integers(1, 6)), int(rng.integers(1, 3)))).tolist()
    exact = capacity.fm_separable(Y)
    if _separable_by_brute_force(Y):
        assert exact
    assert exact == capacity.lp_separable(np.array(Y, dtype=float))


def test_fm_separable_refuses_opposite_and_zero_rows():
    assert not capacity.fm_separable([[1, 2], [-1, -2]])
    assert not capacity.fm_separable([[0, 0]])
    assert capacity.fm_separable([[Fraction(1, 3), -1], [2, Fraction(-1, 7)]])


@pytest.mark.parametrize("D, n", [(1, 3), (2, 3), (2, 5), (3, 4), (3, 6)])
def test_separable_fraction_of_points_in_general_position_is_covers_probability(D, n):
    rng = np.random.default_rng(100 * D + n)
    X = rng.integers(-5, 6, size=(n, D))
    while not capacity.in_general_position(X):
        X = rng.integers(-5, 6, size=(n, D))
    assert capacity.separable_fraction(X) == capacity.cover_probability(n, D)


def test_separable_fraction_sees_points_out_of_general_position():
    # three collinear points in R^2 (two of them on one ray): fewer dichotomies than Cover's count
    X = [[1, 0], [2, 0], [0, 1]]
    assert not capacity.in_general_position(X)
    assert capacity.separable_fraction(X) < capacity.cover_probability(3, 2)


def test_in_general_position_checks_every_subset_exactly():
    assert capacity.in_general_position([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    assert not capacity.in_general_position([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
    assert capacity.in_general_position([[Fraction(1, 10**30), 1], [1, Fraction(1, 10**30)]])


def test_lp_separable_decides_gaussian_rows_like_covers_threshold_at_the_extremes():
    rng = np.random.default_rng(0)
    assert all(capacity.lp_separable(rng.standard_normal((3, 6))) for _ in range(10))  # n <= D: always
    assert not any(capacity.lp_separable(rng.standard_normal((40, 2))) for _ in range(10))  # P = 2 * 40 / 2^40


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------

BAD_INPUT = [
    pytest.param(capacity.kappa, dict(r=0.0), ValueError, "strictly between 0 and 1", id="kappa-zero"),
    pytest.param(capacity.kappa, dict(r=1.0), ValueError, "strictly between 0 and 1", id="kappa-one"),
    pytest.param(capacity.alpha_c, dict(r=-0.2), ValueError, "strictly between 0 and 1", id="alpha-negative"),
    pytest.param(capacity.alpha_c, dict(r=math.nan), ValueError, "strictly between 0 and 1", id="alpha-nan"),
    pytest.param(capacity.alpha_c, dict(r=[0.5, 1.5]), ValueError, "strictly between 0 and 1", id="alpha-array-outside"),
    pytest.param(capacity.kappa, dict(r=np.array([0.5, np.inf])), ValueError, "finite", id="kappa-array-inf"),
    pytest.param(capacity.kappa, dict(r="0.5"), TypeError, "r must be a real", id="kappa-string"),
    pytest.param(capacity.kappa, dict(r=True), TypeError, "r must be a real number", id="kappa-bool"),
    pytest.param(capacity.alpha_c, dict(r=np.array([True])), TypeError, "bool", id="alpha-bool-array"),
    pytest.param(capacity.alpha_c, dict(r=np.array([0.5 + 0j])), TypeError, "complex", id="alpha-complex"),
    pytest.param(capacity.kappa_mp, dict(r=1.5), ValueError, "strictly between 0 and 1", id="kappa-mp-outside"),
    pytest.param(capacity.alpha_c_mp, dict(r=0.5, dps=0), ValueError, "dps must be an integer >= 1", id="alpha-mp-dps"),
    pytest.param(capacity.alpha_c_mp, dict(r=0.5, dps=30.0), TypeError, "dps must be an integer", id="alpha-mp-dps-float"),
    pytest.param(capacity.load_ratio, dict(d=10, n=1), ValueError, "n must be a finite number > 1", id="load-n-one"),
    pytest.param(capacity.load_ratio, dict(d=-1, n=10), ValueError, "d must be a finite number > 0", id="load-d-negative"),
    pytest.param(capacity.critical_d, dict(n=100, constant=math.inf), ValueError, "constant must be a finite", id="critical-d-inf"),
    pytest.param(capacity.critical_n, dict(d=10, constant=0), ValueError, "constant must be a finite number > 0", id="critical-n-zero"),
    pytest.param(capacity.critical_n, dict(d="10", constant=2), TypeError, "d must be a real number", id="critical-n-string"),
    pytest.param(capacity.cover_probability, dict(n=0, D=1), ValueError, "n must be an integer >= 1", id="cover-n-zero"),
    pytest.param(capacity.cover_probability, dict(n=4, D=1.5), TypeError, "D must be an integer", id="cover-D-float"),
    pytest.param(capacity.competitor_count, dict(n=1, r=0.15), ValueError, "n must be an integer >= 2", id="count-n-one"),
    pytest.param(capacity.competitor_count, dict(n=10, r=1.0), ValueError, "r must lie strictly", id="count-r-one"),
    pytest.param(capacity.tied_smoothing_gap, dict(m=3, k=4, beta=1.0), ValueError, "k must be at most", id="tied-k"),
    pytest.param(capacity.tied_smoothing_gap, dict(m=3, k=1, beta=0.0), ValueError, "beta must be a finite number > 0",
                 id="tied-beta-zero"),
    pytest.param(capacity.tied_smoothing_gap, dict(m=3, k=1, beta="1"), TypeError, "beta must be a real", id="tied-beta-str"),
    pytest.param(capacity.smoothed_topk_average_mp, dict(scores=[], k=1, beta=1.0), ValueError, "scores",
                 id="smoothed-mp-empty"),
    pytest.param(capacity.smoothed_topk_average_mp, dict(scores=[1, 2], k=3, beta=1.0), ValueError, "k must be at most",
                 id="smoothed-mp-k"),
    pytest.param(capacity.alpha_c_bounds, dict(kappa_r=-0.5), ValueError, "kappa_r must be a finite number >= 0",
                 id="bounds-negative"),
    pytest.param(capacity.alpha_c_bounds, dict(kappa_r=None), TypeError, "kappa_r must be a real", id="bounds-none"),
    pytest.param(capacity.fm_separable, dict(Y=[1.0, 2.0]), ValueError, "Y", id="fm-1d"),
    pytest.param(capacity.fm_separable, dict(Y=[[1.0, math.nan]]), ValueError, "Y must have finite entries", id="fm-nan"),
    pytest.param(capacity.separable_fraction, dict(X=[[1.0, math.inf]]), ValueError, "X must have finite", id="sep-inf"),
    pytest.param(capacity.in_general_position, dict(X=[1, 2]), ValueError, "X", id="general-1d"),
    pytest.param(capacity.lp_separable, dict(A=[[1.0, math.nan]]), ValueError, "A must have finite entries", id="lp-nan"),
    pytest.param(capacity.lp_separable, dict(A=np.array([[Fraction(1)]], dtype=object)), TypeError, "A must be a float",
                 id="lp-exact"),
]


@pytest.mark.parametrize("func, kwargs, exc, fragment", BAD_INPUT)
def test_bad_input_is_refused_with_a_message_naming_it(func, kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        func(**kwargs)


def test_public_names_are_sorted_and_exist():
    assert capacity.__all__ == sorted(capacity.__all__)
    assert all(hasattr(capacity, name) for name in capacity.__all__)


def test_mpmath_object_arrays_of_loads_give_float_results():
    r = np.array([mpmath.mpf("0.25"), mpmath.mpf("0.5")], dtype=object)
    for f in (capacity.kappa, capacity.alpha_c):
        got = f(r)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, f(np.array([0.25, 0.5])))


def test_zero_dimensional_loads_give_python_floats_and_errors_name_the_first_bad_load():
    for f in (capacity.kappa, capacity.alpha_c):
        assert type(f(np.array(0.2))) is float
    with pytest.raises(ValueError, match="got 2.0$"):
        capacity.kappa(np.array([0.5, 2.0, 3.0]))


def test_second_order_term_is_what_the_critical_dimension_leaves_beyond_2_n_log_n():
    for n in (3.0, 50.0, 1e6):
        d = math.sqrt(n * (2 * math.log(n) - 3 * math.log(math.log(n))))
        assert capacity.second_order_term(d, n) == pytest.approx(-3 * math.log(math.log(n)), rel=1e-12)
    # at the leading-order dimension d^2 = 2 n log n the term vanishes; a larger d leaves a positive one
    assert capacity.second_order_term(math.sqrt(2 * 40 * math.log(40)), 40) == pytest.approx(0.0, abs=1e-12)
    assert capacity.second_order_term(20, 40) == pytest.approx(400 / 40 - 2 * math.log(40))
