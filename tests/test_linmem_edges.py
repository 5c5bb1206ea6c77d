"""Edge behaviour of linmem that the claims do not reach: conventions, the
rank-0 and rounding-slack branches, exact and mpmath consistency tests, and
the LinearMemory object with non-square shapes. (Written against survivors of
tools/mutation.py.)"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

import linmem
from linmem.recall import CONSISTENCY_ULPS, LEVERAGE_ROUNDING_ULPS

EPS = float(np.finfo(float).eps)


def test_compact_svd_sign_convention_largest_entry_of_each_u_positive():
    A = np.random.default_rng(0).standard_normal((5, 4))
    U = linmem.compact_svd(A).U
    for col in U.T:
        assert col[np.argmax(np.abs(col))] > 0
    with mpmath.workdps(30):
        Um = linmem.compact_svd(linmem.mp_array(A)).U
        for l in range(Um.shape[1]):
            col = list(Um[:, l])
            assert max(col, key=abs) > 0


def test_rank_zero_keys_have_condition_one_and_no_noise_gain():
    Z = np.zeros((2, 3))
    assert linmem.condition_number(Z) == 1.0
    assert linmem.pinv_energy(Z) == 0.0
    assert linmem.pinv_energy(np.zeros((1, 1))) == 0.0 and linmem.pinv_energy(np.zeros((1, 4))) == 0.0
    assert linmem.compact_svd(Z).rank == 0
    np.testing.assert_array_equal(linmem.query_noise_error(Z, tau=0.5), [1.0, 1.0, 1.0])


def test_projectors_refuse_a_huge_input_projector_before_allocating():
    with pytest.raises(ValueError, match="would need"):
        linmem.projectors(np.ones((100_000, 1)))


@pytest.mark.parametrize("excess", [1, 10, LEVERAGE_ROUNDING_ULPS])
def test_float_leverage_within_rounding_of_the_interval_is_moved_onto_it(excess):
    over, under = 1 + excess * EPS, -excess * EPS
    assert linmem.expected_error(over) == 0.0 and linmem.snr(over) == float("inf")
    assert linmem.expected_error(under) == 1.0 and linmem.crosstalk_power(under) == 0.0
    np.testing.assert_array_equal(linmem.expected_error(np.array([under, 0.5, over])), [1.0, 0.5, 0.0])


@pytest.mark.parametrize("h", [1 + 4 * LEVERAGE_ROUNDING_ULPS * EPS, -4 * LEVERAGE_ROUNDING_ULPS * EPS])
def test_float_leverage_beyond_rounding_is_refused(h):
    with pytest.raises(ValueError, match="must lie in"):
        linmem.expected_error(h)
    with pytest.raises(ValueError, match="must lie in"):
        linmem.expected_error(np.array([0.5, h]))


def test_mpmath_leverage_gets_the_slack_of_its_own_precision():
    with mpmath.workdps(50):
        eps = mpmath.mpf(2) ** -mpmath.mp.prec
        assert linmem.expected_error(1 + 10 * eps) == 0
        assert linmem.crosstalk_power(-10 * eps) == 0
        arr = np.array([1 + 10 * eps, mpmath.mpf("0.25")], dtype=object)
        assert list(linmem.expected_error(arr)) == [0, mpmath.mpf("0.75")]
        for bad in (1 + 4 * LEVERAGE_ROUNDING_ULPS * eps, mpmath.mpf(1) + mpmath.mpf(10) ** -40):
            with pytest.raises(ValueError, match="must lie in"):
                linmem.expected_error(bad)
            with pytest.raises(ValueError, match="must lie in"):
                linmem.expected_error(np.array([mpmath.mpf("0.5"), bad], dtype=object))


def test_exact_consistency_is_decided_exactly():
    K = linmem.exact_array([[1, 1]])
    assert linmem.consistency_residual(K, linmem.exact_array([[2, 2]])) == 0
    assert linmem.is_consistent(K, linmem.exact_array([[2, 2]])) is True
    assert linmem.consistency_residual(K, linmem.exact_array([[1, 2]])) == Fraction(1, 2)
    assert linmem.is_consistent(K, linmem.exact_array([[1, 2]])) is False


def test_mpmath_and_zero_values_consistency():
    with mpmath.workdps(40):
        K = linmem.mp_array(linmem.exact_array([[1, 1, 0], [0, 0, 1]]))
        good = linmem.mp_array(linmem.exact_array([[3, 3, -1]]))
        bad = linmem.mp_array(linmem.exact_array([[3, 2, -1]]))
        assert linmem.is_consistent(K, good) is True
        assert linmem.is_consistent(K, bad) is False
    assert linmem.is_consistent(np.ones((2, 3)), np.zeros((4, 3))) is True


def test_noise_formula_and_memory_accept_non_square_valid_shapes():
    rng = np.random.default_rng(1)
    K, V, W = rng.standard_normal((2, 5)), rng.standard_normal((3, 5)), rng.standard_normal((3, 2))
    got = linmem.fixed_store_noise_error(W, K, V, tau=0.5)
    want = np.sum((W @ K - V) ** 2, axis=0) + 0.25 * np.sum(W * W)
    np.testing.assert_allclose(got, want)
    mem = linmem.LinearMemory(W=W, K=K, V=V, method="outer_product")
    assert mem.W.shape == (3, 2)


def test_linear_memory_recall_batches_residuals_and_diagnostics():
    rng = np.random.default_rng(2)
    K, V = rng.standard_normal((3, 6)), rng.standard_normal((2, 6))
    mem = linmem.LinearMemory.fit(K, V)
    Q = rng.standard_normal((3, 4))
    np.testing.assert_allclose(mem.recall(Q), mem.W @ Q)
    np.testing.assert_allclose(mem.recall(Q[:, 0]), mem.W @ Q[:, 0])
    with pytest.raises(ValueError, match="q must be"):
        mem.recall(np.ones((3, 2, 2)))
    np.testing.assert_allclose(mem.residuals(), np.sum((mem.W @ K - V) ** 2, axis=0))
    diag = mem.diagnostics()
    assert diag["store_frobenius_sq"] == pytest.approx(float(np.sum(mem.W**2)))
    np.testing.assert_allclose(diag["measured_error"], mem.residuals())


def _boundary_case(scale_of_threshold, kind):
    """Keys of rank 2 in R^3 and values off the row space by ``scale_of_threshold``
    times the documented consistency threshold."""
    n = np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0)  # unit vector in ker K
    v0 = np.array([3.0, 3.0, -1.0])  # in the row space of K
    if kind == "mpmath":
        eps = mpmath.mpf(2) ** -mpmath.mp.prec
        n = np.array([mpmath.mpf(1), mpmath.mpf(-1), mpmath.mpf(0)], dtype=object) / mpmath.sqrt(2)
        v0 = np.array([mpmath.mpf(3), mpmath.mpf(3), mpmath.mpf(-1)], dtype=object)
        norm = mpmath.sqrt(sum(e * e for e in v0))
    else:
        eps, norm = EPS, float(np.linalg.norm(v0))
    threshold = CONSISTENCY_ULPS * 3 * eps * norm  # max(d, M) = 3
    return (v0 + scale_of_threshold * threshold * n).reshape(1, 3)


@pytest.mark.parametrize("keys", ["float", "exact"])
def test_float_consistency_threshold_is_the_documented_one(keys):
    # ||V(I-P)|| is compared with CONSISTENCY_ULPS * max(d, M) * eps * ||V||_F:
    # 0.7 of it is consistent, 2 times it is not. Exact keys with float values
    # are judged at float precision, not exactly.
    K = [[1, 1, 0], [0, 0, 1]]
    K = linmem.exact_array(K) if keys == "exact" else np.array(K, dtype=float)
    assert linmem.is_consistent(K, _boundary_case(0.7, "float")) is True
    assert linmem.is_consistent(K, _boundary_case(2.0, "float")) is False
    if keys == "exact":  # float keys with exact values: also float precision
        Kf = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        assert linmem.is_consistent(Kf, _boundary_case(0.7, "float")) is True


def test_mpmath_consistency_threshold_and_scale_invariance():
    with mpmath.workdps(40):
        K = linmem.mp_array(linmem.exact_array([[1, 1, 0], [0, 0, 1]]))
        assert linmem.is_consistent(K, _boundary_case(0.7, "mpmath")) is True
        assert linmem.is_consistent(K, _boundary_case(2.0, "mpmath")) is False
        # beyond float range: the value norm must stay an mpmath number
        huge = mpmath.mpf(10) ** 400
        bad = linmem.mp_array(linmem.exact_array([[3, 2, -1]])) * huge
        assert linmem.is_consistent(K, bad) is False
        assert linmem.is_consistent(K, linmem.mp_array(linmem.exact_array([[3, 3, -1]])) * huge) is True


def test_mpmath_leverage_arrays_clip_both_ends_and_accept_exact_zero():
    with mpmath.workdps(30):
        eps = mpmath.mpf(2) ** -mpmath.mp.prec
        h = np.array([mpmath.mpf(0), -10 * eps, mpmath.mpf("0.5"), 1 + 10 * eps], dtype=object)
        assert list(linmem.expected_error(h)) == [1, 1, mpmath.mpf("0.5"), 0]
        assert list(linmem.crosstalk_power(h[:2])) == [0, 0]


def test_wrong_store_shape_messages_name_the_needed_shape():
    # p = 3 values, d = 2 key dimension, M = 5 pairs: the message must say (3, 2).
    rng = np.random.default_rng(3)
    K, V = rng.standard_normal((2, 5)), rng.standard_normal((3, 5))
    with pytest.raises(ValueError, match=r"\(p, d\) = \(3, 2\).*got \(2, 3\)"):
        linmem.fixed_store_noise_error(np.ones((2, 3)), K, V, tau=0.1)
    with pytest.raises(ValueError, match=r"\(p, d\) = \(3, 2\).*got \(3, 5\)"):
        linmem.LinearMemory(W=np.ones((3, 5)), K=K, V=V)


def test_linear_memory_recall_counts_memory_per_query(monkeypatch):
    # W q for one query needs p values, for a batch of b queries p * b.
    import linmem._validation as validation

    mem = linmem.LinearMemory.fit(np.eye(2), np.ones((6, 2)))
    monkeypatch.setattr(validation, "MAX_ARRAY_BYTES", 6 * 8)
    assert mem.recall(np.ones(2)).shape == (6,)
    assert mem.recall(np.ones((2, 1))).shape == (6, 1)
    with pytest.raises(ValueError, match="recalled values"):
        mem.recall(np.ones((2, 2)))


def test_leverage_slack_boundary_is_inclusive_and_exact_numbers_get_none():
    with mpmath.workdps(30):
        slack = LEVERAGE_ROUNDING_ULPS * mpmath.mpf(2) ** -mpmath.mp.prec
        h = np.array([-slack, 1 + slack], dtype=object)
        assert list(linmem.expected_error(h)) == [1, 0]
    # exact rationals are exact: no rounding slack, even a tiny excess is refused
    with pytest.raises(ValueError, match="must lie in"):
        linmem.expected_error(Fraction(1) + Fraction(1, 10**30))


def test_leverage_error_names_the_first_bad_entry():
    with pytest.raises(ValueError, match=r"2\.0 at index 1"):
        linmem.expected_error(np.array([0.5, 2.0, 3.0]))


def test_precise_conversions_keep_rationals_exact_and_scalars_one_dimensional():
    third = linmem.exact_array([Fraction(1, 3), Fraction(2, 7)])
    assert third.tolist() == [Fraction(1, 3), Fraction(2, 7)]  # not via float
    assert linmem.exact_array(0.5).shape == (1,) and linmem.exact_array(0.5)[0] == Fraction(1, 2)
    assert linmem.mp_array(2).shape == (1,) and linmem.mp_array(2)[0] == 2


def test_recall_wrong_query_rows_message_gives_the_rows_it_got():
    mem = linmem.LinearMemory.fit(np.eye(2), np.ones((3, 2)))
    with pytest.raises(ValueError, match=r"q must have 2 rows \(the key dimension\), got 4"):
        mem.recall(np.ones((4, 3)))
