"""Known answers and cross-checks for the linmem core (000), kept apart from
the claim checks: these pin the library's behaviour and conventions."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.linalg

import linmem
from linmem import ensembles

DUP = np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def test_duplicated_keys_known_answer_in_all_three_number_systems():
    third = Fraction(1, 3)
    want = [third, third, third, Fraction(1)]
    assert linmem.leverage_scores(linmem.exact_array(DUP)).tolist() == want
    np.testing.assert_allclose(linmem.leverage_scores(DUP), [float(x) for x in want], rtol=0, atol=4e-16)
    with mpmath.workdps(60):
        h = linmem.leverage_scores(linmem.mp_array(linmem.exact_array(DUP)))
        assert abs(h[0] - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -58


def test_least_squares_store_matches_scipy_pinv_on_ill_conditioned_keys():
    rng = np.random.default_rng(1)
    K = ensembles.controlled_spectrum(6, 9, cond=1e8, rng=rng)
    V = rng.standard_normal((3, 9))
    want = V @ scipy.linalg.pinv(K)
    got = linmem.least_squares_store(K, V)
    assert np.linalg.norm(got - want) <= 1e-6 * np.linalg.norm(want)


def test_rank_rule_drops_rounding_level_singular_values():
    rng = np.random.default_rng(2)
    K = ensembles.controlled_spectrum(5, 8, cond=1e3, rank=2, rng=rng)
    svd = linmem.compact_svd(K)
    assert svd.rank == 2
    assert svd.U.shape == (5, 2) and svd.Z.shape == (8, 2)
    np.testing.assert_allclose((svd.U * svd.s) @ svd.Z.T, K, atol=1e-14)


def test_exact_pinv_satisfies_the_four_penrose_conditions():
    K = linmem.exact_array([[1, 2, 3], [2, 4, 6]])  # rank 1
    X = linmem.pinv(K)
    assert np.all(K @ X @ K == K)
    assert np.all(X @ K @ X == X)
    assert np.all((K @ X).T == K @ X)
    assert np.all((X @ K).T == X @ K)


def test_projectors_have_the_documented_shapes_and_traces():
    rng = np.random.default_rng(3)
    K = ensembles.gaussian_vectors(4, 7, rng=rng)
    P, Q = linmem.projectors(K)
    assert P.shape == (7, 7) and Q.shape == (4, 4)
    assert np.trace(P) == pytest.approx(4) and np.trace(Q) == pytest.approx(4)


def test_svd_key_value_view_reconstructs_the_matrix():
    rng = np.random.default_rng(4)
    W = rng.standard_normal((3, 5))
    keys, values = linmem.svd_key_value_view(W)
    np.testing.assert_allclose(values @ keys.T, W, atol=1e-14)
    np.testing.assert_allclose(keys.T @ keys, np.eye(3), atol=1e-14)


def test_effective_pairs_rebuild_the_least_squares_store():
    rng = np.random.default_rng(5)
    K = ensembles.spherical_vectors(4, 6, rng=rng)
    V = rng.standard_normal((2, 6))
    keys, values = linmem.effective_pairs(K, V)
    np.testing.assert_allclose(values @ keys.T, linmem.least_squares_store(K, V), atol=1e-12)


def test_snr_is_infinite_at_exact_recall_and_refused_exactly():
    assert linmem.snr(1.0) == float("inf")
    assert np.isinf(linmem.snr(np.array([0.5, 1.0]))[1])
    with pytest.raises(ValueError, match="infinite SNR"):
        linmem.snr(Fraction(1))


def test_mean_expected_error_is_exact_for_rationals():
    assert linmem.mean_expected_error(linmem.exact_array(DUP)) == Fraction(1, 2)


def test_query_noise_error_adds_the_pinv_energy():
    K = np.diag([2.0, 0.5])
    np.testing.assert_allclose(linmem.query_noise_error(K, tau=0.1), [0.0425, 0.0425])


def test_consistency_detects_values_outside_the_rule():
    rng = np.random.default_rng(6)
    K = ensembles.gaussian_vectors(3, 6, rng=rng)
    A = rng.standard_normal((2, 3))
    assert linmem.is_consistent(K, ensembles.consistent_values(A, K))
    assert not linmem.is_consistent(K, rng.standard_normal((2, 6)))


def test_linear_memory_diagnostics_report_leverage_and_measured_error():
    mem = linmem.LinearMemory.fit(DUP, np.array([[1.0, 2.0, 3.0, 4.0]]))
    diag = mem.diagnostics()
    np.testing.assert_allclose(diag["leverage"], [1 / 3, 1 / 3, 1 / 3, 1])
    np.testing.assert_allclose(diag["measured_error"], [1.0, 0.0, 1.0, 0.0], atol=1e-14)
    assert diag["key_rank"] == 2


def test_single_pair_store_is_minimum_norm_for_non_unit_keys():
    A = linmem.single_pair_store([3.0, 4.0], [1.0, 2.0])
    np.testing.assert_allclose(A @ np.array([3.0, 4.0]), [1.0, 2.0])
    np.testing.assert_allclose(A, np.outer([1.0, 2.0], [3.0, 4.0]) / 25)


class TestEnsemblesProduceWhatTheirNamesSay:
    def test_spherical_vectors_are_unit(self):
        X = ensembles.spherical_vectors(7, 50, rng=np.random.default_rng(0))
        np.testing.assert_allclose(np.linalg.norm(X, axis=0), 1, atol=1e-15)

    def test_gaussian_vectors_have_covariance_identity_over_d(self):
        X = ensembles.gaussian_vectors(4, 200_000, rng=np.random.default_rng(0))
        np.testing.assert_allclose(X @ X.T / X.shape[1], np.eye(4) / 4, atol=3e-3)

    def test_controlled_spectrum_has_the_chosen_condition_and_rank(self):
        K = ensembles.controlled_spectrum(6, 9, cond=1e12, rank=4, rng=np.random.default_rng(0))
        s = np.linalg.svd(K, compute_uv=False)
        assert s[0] / s[3] == pytest.approx(1e12, rel=1e-3)
        assert s[4] < 1e-14

    def test_duplicated_keys_have_exactly_n_distinct_columns(self):
        K = ensembles.duplicated_keys(4, 9, n_distinct=3, rng=np.random.default_rng(0))
        assert len({tuple(c) for c in K.T.tolist()}) == 3

    def test_rational_orthogonal_is_exactly_orthogonal(self):
        Q = ensembles.rational_orthogonal(5, rng=np.random.default_rng(0))
        assert np.all(Q.T @ Q == np.eye(5, dtype=int))

    def test_rational_controlled_spectrum_has_exact_rank_and_condition(self):
        K = ensembles.rational_controlled_spectrum(4, 6, cond=10**9, rank=3, rng=np.random.default_rng(0))
        with mpmath.workdps(60):
            svd = linmem.compact_svd(linmem.mp_array(K))
            assert svd.rank == 3
            assert abs(svd.s[0] / svd.s[-1] - 10**9) < mpmath.mpf(10) ** -40

    def test_random_sign_values_are_signs_times_the_fixed_columns(self):
        W0 = ensembles.spherical_vectors(3, 5, rng=np.random.default_rng(0))
        V = ensembles.random_sign_values(W0, rng=np.random.default_rng(1))
        np.testing.assert_allclose(np.abs(V), np.abs(W0))


def test_ridge_store_solves_the_regularised_normal_equations_in_every_number_system():
    rng = np.random.default_rng(7)
    K, V = rng.standard_normal((3, 5)), rng.standard_normal((2, 5))
    W = linmem.ridge_store(K, V, ridge=0.5)
    # gradient of ||WK - V||^2 + ridge ||W||^2 vanishes: (WK - V) K^T + ridge W = 0
    assert np.allclose((W @ K - V) @ K.T + 0.5 * W, 0, atol=1e-12)
    Kt, Vt = rng.standard_normal((5, 3)), rng.standard_normal((2, 3))  # independent keys: K^T K nonsingular
    assert np.allclose(linmem.ridge_store(Kt, Vt, ridge=1e-12), linmem.least_squares_store(Kt, Vt), atol=1e-8)
    Ke = linmem.exact_array([[1, 2, 0], [0, 1, 1]])
    Ve = linmem.exact_array([[1, 0, 2]])
    We = linmem.ridge_store(Ke, Ve, ridge=Fraction(1, 3))
    assert all(isinstance(x, Fraction) for x in We.ravel())
    assert all(x == 0 for x in ((We @ Ke - Ve) @ Ke.T + Fraction(1, 3) * We).ravel())
    with mpmath.workdps(40):
        Wm = linmem.ridge_store(linmem.mp_array(Ke), linmem.mp_array(Ve), ridge=mpmath.mpf(1) / 3)
        assert all(abs(a - b) < mpmath.mpf(10) ** -35 for a, b in zip(Wm.ravel(), We.ravel()))


@pytest.mark.parametrize("ridge, exc, match", [
    (0, ValueError, "ridge must be a finite number > 0, got 0"),
    (-1.0, ValueError, "ridge must be a finite number > 0"),
    (float("nan"), ValueError, "ridge must be a finite number > 0"),
    (float("inf"), ValueError, "ridge must be a finite number > 0"),
    ("1", TypeError, "ridge must be a real number, got str"),
    (True, TypeError, "ridge must be a real number, got bool"),
])
def test_ridge_store_refuses_a_ridge_that_is_not_a_positive_number(ridge, exc, match):
    with pytest.raises(exc, match=match):
        linmem.ridge_store(np.eye(2), np.ones((1, 2)), ridge=ridge)
