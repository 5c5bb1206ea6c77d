"""Tests of linmem.capacity: kappa(r), alpha_c(r), top-1 load, Cover's count (004)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.special import lambertw

from linmem import capacity
from linmem.tolerances import working_eps
from theorems.tolerance import THRESHOLD

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
