"""The finite designs of theorems.authoring.strategies are what their names say: the
sphere's first two moments exactly (unit points, symmetric, tight frame; the
plane and orbit designs without an orthogonal pair), query noise of mean 0
and covariance tau^2 I with the stated extra structure, and exactly unit
rational columns."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis.errors import NoSuchExample
from hypothesis import strategies as st

import linmem
from theorems.authoring import kit
from theorems.authoring.strategies import CONTINUOUS_NOISE_KINDS, near_parallel_key_matrix, rational_unit_columns
from theorems.claims.noise import NOISE_DESIGN_KINDS, continuous_noise, near_parallel_gain, near_parallel_queries, near_parallel_smallest_sq, noise_design, noise_design_defect
from theorems.claims.spherical import design_keys_and_sign_values, sphere_design, sphere_design_and_key, sphere_designs


def _second_moment(law):
    K = law.outcomes[0]
    return law.mean(K[:, :, None] * K[:, None, :])


@settings(max_examples=40, deadline=None)
@given(sphere_designs())
def test_every_sphere_design_has_unit_points_mean_zero_and_second_moment_identity_over_d(law):
    d = law.info["d"]
    K = law.outcomes[0]
    assert K.shape[1] == d and all(sum(x * x for x in k) == 1 for k in K)
    assert all(x == 0 for x in law.mean(K))
    assert (_second_moment(law) == kit.eye(d, K) * Fraction(1, d)).all()


@pytest.mark.parametrize("kind", ["plane", "orbit"])
def test_the_plane_and_orbit_designs_have_no_orthogonal_pair(kind):
    K = sphere_design(kind).outcomes[0]
    assert all(K[i] @ K[j] != 0 for i in range(len(K)) for j in range(len(K)))


def test_sphere_designs_reach_every_kind_and_sizes_are_the_documented_ones():
    assert len(sphere_design("coordinate", 3)) == 6 and len(sphere_design("sign", 4)) == 16
    assert len(sphere_design("plane")) == 6 and len(sphere_design("orbit")) == 24
    assert len(sphere_design("frame", 3, 5)) == 6


@pytest.mark.parametrize("call, message", [
    pytest.param(lambda: sphere_design("cube", 3), "kind must be one of", id="unknown sphere design"),
    pytest.param(lambda: sphere_design("coordinate", 0), "d must be an integer >= 1", id="coordinate in R^0"),
    pytest.param(lambda: sphere_design("sign", 3), "square dimension", id="sign design in R^3"),
    pytest.param(lambda: noise_design("gaussian", 2, 1), "kind must be one of", id="unknown noise design"),
    pytest.param(lambda: noise_design("coordinate", 3, 1), "square dimension", id="signed coordinate in R^3"),
    pytest.param(lambda: noise_design("rademacher", 0, 1), "d must be an integer >= 1", id="noise in R^0"),
])
def test_designs_refuse_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("kind", NOISE_DESIGN_KINDS)
@pytest.mark.parametrize("tau", [Fraction(1, 2), Fraction(3)])
def test_noise_designs_have_mean_zero_and_covariance_tau_squared_identity(kind, tau):
    law = noise_design(kind, 4, tau)
    eta = law.outcomes[0]
    assert eta.shape[1:] == (4, 1)
    assert all(x == 0 for x in law.mean(eta).ravel())
    assert (law.mean(eta @ np.swapaxes(eta, -1, -2)) == tau**2 * kit.eye(4, eta)).all()


def test_noise_designs_differ_from_a_gaussian_as_documented():
    skewed = noise_design("skewed", 1, Fraction(1))
    assert skewed.mean(skewed.outcomes[0] ** 3).item() != 0  # third moment
    coordinate = noise_design("coordinate", 4, Fraction(1)).outcomes[0][:, :, 0]
    assert all(np.count_nonzero(row) == 1 for row in coordinate)  # uncorrelated, dependent coordinates
    assert len(noise_design("rademacher", 3, Fraction(1))) == 8


@settings(max_examples=30, deadline=None)
@given(rational_unit_columns(3, 2))
def test_rational_unit_columns_are_exactly_unit(K):
    assert K.shape == (3, 2) and kit.unit_columns(K)


@pytest.mark.parametrize("kind", CONTINUOUS_NOISE_KINDS)
def test_continuous_noise_has_mean_zero_and_variance_tau_squared(kind):
    x = continuous_noise(kind, np.random.default_rng(1), (400_000,), 0.6)
    se = 0.36 * np.sqrt(6 / x.size)  # standard error of the variance (Laplace: kurtosis 6)
    assert abs(np.mean(x)) < 6 * 0.6 / np.sqrt(x.size) and abs(np.var(x) - 0.36) < 6 * se


def test_continuous_noise_laws_are_the_named_ones():
    rng = np.random.default_rng(2)
    assert np.max(np.abs(continuous_noise("uniform", rng, (10_000,), 1.0))) <= np.sqrt(3)
    laplace = continuous_noise("laplace", rng, (200_000,), 1.0)
    assert abs(np.mean(np.abs(laplace)) - 1 / np.sqrt(2)) < 0.01  # E|x| = b for Laplace(0, b)
    with pytest.raises(ValueError, match="kind must be one of"):
        continuous_noise("cauchy", rng, (3,), 1.0)


@settings(max_examples=40, deadline=None)
@given(near_parallel_queries((Fraction(1, 2), Fraction(2))).exact)
def test_near_parallel_keys_are_unit_independent_with_the_stated_spectrum(args):
    K, V, t, tau = args
    d, M = K.shape
    assert 2 <= M <= d <= 4 and V.shape[1] == M and tau in (Fraction(1, 2), Fraction(2))
    assert kit.unit_columns(K) and kit.rank(K) == M
    assert K[:, 0] @ K[:, 1] == (1 - t * t) / (1 + t * t)  # cos(theta), tan(theta/2) = t
    assert kit.pinv_energy(K) == near_parallel_gain(t, M)
    G = K.T @ K  # s_min^2 is the smallest root of the 2 x 2 block's characteristic polynomial
    lam = near_parallel_smallest_sq(t)
    assert (G[0, 0] - lam) * (G[1, 1] - lam) - G[0, 1] ** 2 == 0


@settings(max_examples=20, deadline=None)
@given(near_parallel_queries((Fraction(1),)).floats)
def test_float_near_parallel_keys_have_the_stated_smallest_singular_value(case):
    K, V, t, tau = case.args
    assert np.allclose(np.linalg.norm(K, axis=0), 1.0)
    s = np.linalg.svd(K, compute_uv=False)
    assert abs(s[-1] - np.sqrt(near_parallel_smallest_sq(t))) <= 16 * np.finfo(float).eps * s[0]  # backward stable
    assert case.recipe["t"] == t and tau in (0.1, 1.0, 3.0)


def test_near_parallel_ladder_reaches_s_min_1e_40_and_refuses_bad_shapes():
    from types import SimpleNamespace

    ctx = SimpleNamespace(rng=lambda label: np.random.default_rng(0))
    cases = near_parallel_queries((Fraction(1, 3),)).precise(ctx)
    assert [args[2] for _, args in cases] == [Fraction(1, 10**k) for k in (10, 20, 30, 40)]
    assert all(kit.unit_columns(args[0]) and args[3] == Fraction(1, 3) for _, args in cases)
    with pytest.raises(ValueError, match="2 <= M <= d"):
        near_parallel_key_matrix(Fraction(1, 2), 2, 3, np.eye(2))
    with pytest.raises(ValueError, match="R must be a 3 x 3"):
        near_parallel_key_matrix(Fraction(1, 2), 3, 2, np.eye(2))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_reference_pinv_energy_is_the_frobenius_norm_of_the_pseudoinverse(d, M, seed):
    rng = np.random.default_rng(seed)
    K = kit.exact(rng.integers(-2, 3, size=(d, M)))
    expected = np.sum(np.linalg.pinv(K.astype(float)) ** 2)
    assert np.isclose(float(kit.pinv_energy(K)), expected, rtol=1e-9, atol=1e-12)
    with pytest.raises(TypeError, match="exact"):
        kit.pinv_energy(K.astype(float))


@settings(max_examples=40, deadline=None)
@given(sphere_design_and_key())
def test_a_design_and_key_gives_an_exactly_unit_key_of_the_designs_dimension(case):
    kj, design = case
    assert kj.shape == (design.info["d"],) and sum(x * x for x in kj) == 1


_DESIGNS = (("coordinate", 1), ("coordinate", 2), ("plane",), ("sign", 4))


@settings(max_examples=40, deadline=None)
@given(design_keys_and_sign_values(_DESIGNS, max_outcomes=64, unit_snr=True))
def test_design_keys_and_sign_values_are_the_joint_law_within_the_outcome_limit(case):
    d, M, law = case
    K, V = law.outcomes
    N = K.shape[0] ** (1 / M)
    assert K.shape[1:] == (1, d, M) and V.shape[0] == 1 and V.shape[1] == 2**M and V.shape[-1] == M
    assert len(law) == K.shape[0] * 2**M and (len(law) <= 64 or (d == 2 and M == 3))
    assert round(N) ** M == K.shape[0]
    EVV = law.mean(np.swapaxes(V, -1, -2) @ V)  # independent, zero-mean, unit values: E[V^T V] = I_M
    assert (EVV == kit.eye(M, EVV)).all()
    assert all(kit.unit_columns(k) for k in K[:, 0])


def test_design_keys_and_sign_values_reach_every_count_within_the_limit_and_no_more():
    strategy = design_keys_and_sign_values((("coordinate", 1),), max_outcomes=64)  # (2 * 2)^M <= 64: M <= 3
    for M in (1, 2, 3):
        assert find(strategy, lambda case, M=M: case[1] == M)[1] == M
    with pytest.raises(NoSuchExample):
        find(strategy, lambda case: case[1] > 3)


def test_kit_store_builds_once_per_key_matrix_of_a_batch_of_keys():
    law = sphere_design("plane").stacked(2) * kit.sign_law(kit.exact([[1, Fraction(3, 5)], [0, Fraction(4, 5)]]))
    K, V = law.outcomes
    W = kit.store(linmem.outer_product_store, K, V)
    assert W.shape == (K.shape[0], V.shape[1], 2, 2)
    assert (W == V @ np.swapaxes(K, -1, -2)).all()


@pytest.mark.parametrize("kind", NOISE_DESIGN_KINDS)
def test_noise_design_defect_certifies_each_design_exactly(kind):
    for tau in (Fraction(1, 2), Fraction(3, 2)):
        defect = noise_design_defect(kind, 4, tau)
        assert isinstance(defect, Fraction) and defect == 0
