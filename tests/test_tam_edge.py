"""The SAT-phase percentile edge: rho_alpha = kappa*(alpha), the inverse of
the capacity function (our specification of 004's p_alpha = Phi(rho_alpha))."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.special import ndtr

import linmem
from theorems.claims import tam


@pytest.mark.parametrize("r", [1e-9, 0.05, 0.15, 0.5, 0.9])
def test_the_edge_meets_kappa_r_exactly_at_the_tam_threshold(r):
    assert linmem.max_stability(linmem.alpha_c(r)) == pytest.approx(linmem.kappa(r), rel=1e-12)


def test_the_mp_edge_solves_the_capacity_equation_to_the_working_precision():
    k = linmem.max_stability_mp(Fraction(1, 5), dps=60)
    with mpmath.workdps(60):
        D = (1 + k * k) * mpmath.ncdf(k) + k * mpmath.npdf(k)
        assert abs(D / 5 - 1) < mpmath.mpf(10) ** -55


def test_the_edge_falls_with_the_load_from_infinity_to_zero_at_covers_two():
    alphas = np.geomspace(1e-6, 2.0, 200)
    k = linmem.max_stability(alphas)
    assert np.all(np.diff(k) < 0)
    assert k[-1] == 0.0
    assert linmem.max_stability(1e-12) * 1e-6 == pytest.approx(1.0, rel=1e-9)


def test_the_float_edge_agrees_with_the_mp_edge():
    for a in (1e-300, 1e-3, 0.0011, 0.2, 1.0, 1.9):
        assert linmem.max_stability(a) == pytest.approx(float(linmem.max_stability_mp(a, dps=30)), rel=1e-13)


def test_the_percentile_edge_at_load_one_fifth_is_about_0977():
    assert linmem.percentile_edge(0.2) == pytest.approx(ndtr(linmem.max_stability(0.2)))
    assert round(linmem.percentile_edge(0.2), 3) == 0.977


def test_the_maximal_stability_memory_puts_every_matched_score_at_or_above_one():
    rng = np.random.default_rng(3)
    d, n = 8, 13
    V, U = rng.standard_normal((2, d, n)) / np.sqrt(d)
    S = np.einsum("ai,ab,bi->i", U, tam._max_stability_memory(V, U), V)
    assert S.min() == pytest.approx(1.0, rel=1e-6) and np.all(S >= 1 - 1e-6)
