"""Tests of linmem.retrieval: chunked scores, margins, tail averages (004)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

import linmem
from linmem import retrieval
from linmem.tolerances import working_eps
from theorems.core.tolerance import THRESHOLD

EPS = working_eps("float")
SEED = 20240507
N_CONVEXITY_PAIRS = 40


def gaussian_pairs(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys and targets with i.i.d. N(0, I_d / d) columns (the 004 model)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((2, d, n)) / math.sqrt(d)


def score_rounding_scale(W: np.ndarray, V: np.ndarray, U: np.ndarray) -> float:
    """Size of the rounding error of one score u_j^T W v_i, in units of eps."""
    return (W.shape[0] + W.shape[1]) * np.linalg.norm(W) * (
        np.linalg.norm(V, axis=0).max() * np.linalg.norm(U, axis=0).max()
    )


def dense_margins(S: np.ndarray) -> np.ndarray:
    off = np.where(np.eye(S.shape[0], dtype=bool), -np.inf, S)
    return np.diag(S) - off.max(axis=1)


# --------------------------------------------------------------------------
# known answers
# --------------------------------------------------------------------------


def test_cmm_is_the_sum_of_stored_outer_products():
    V, U = gaussian_pairs(5, 7, SEED)
    expected = sum(np.outer(U[:, l], V[:, l]) for l in range(7))
    err = np.max(np.abs(retrieval.cmm(V, U) - expected))
    assert err / (7 * EPS * np.abs(expected).max()) <= THRESHOLD


def test_cmm_allows_keys_and_targets_of_different_dimensions():
    V, _ = gaussian_pairs(4, 6, SEED)
    _, U = gaussian_pairs(3, 6, SEED + 1)
    assert retrieval.cmm(V, U).shape == (3, 4)


def test_scores_follow_the_definition_entry_by_entry():
    V, U = gaussian_pairs(4, 6, SEED)
    W = np.random.default_rng(SEED).standard_normal((4, 4))
    S = retrieval.scores(W, V, U)
    expected = np.array([[U[:, j] @ W @ V[:, i] for j in range(6)] for i in range(6)])
    assert np.max(np.abs(S - expected)) / (EPS * score_rounding_scale(W, V, U)) <= THRESHOLD


def test_margins_top1_and_percentile_rank_on_a_hand_computed_matrix():
    # With W = keys = I the score matrix is the targets matrix.
    S = np.array([[3.0, 1.0, 5.0], [0.0, 2.0, 1.0], [1.0, 1.0, 1.0]])
    eye = np.eye(3)
    np.testing.assert_array_equal(retrieval.margins(eye, eye, S), [-2.0, 1.0, 0.0])
    np.testing.assert_array_equal(retrieval.top1_correct(eye, eye, S), [False, True, False])
    np.testing.assert_array_equal(retrieval.percentile_rank(eye, eye, S), [0.5, 1.0, 0.0])
    assert retrieval.all_retrieved(eye, eye, S) is False
    np.testing.assert_array_equal(
        retrieval.tam_margins(eye, eye, S, k=2), [0.0, 1.5, 0.0]
    )


def test_topk_average_of_a_vector_and_of_a_matrix_excluding_its_diagonal():
    assert retrieval.topk_average(np.array([4.0, -1.0, 2.0, 3.0]), 3) == 3.0
    S = np.array([[100.0, 1.0, 2.0], [5.0, 100.0, 7.0], [-1.0, -2.0, 100.0]])
    np.testing.assert_array_equal(retrieval.topk_average(S, 2), [1.5, 6.0, -1.5])


# --------------------------------------------------------------------------
# the chunked scorer equals the dense product
# --------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [1, 3, 7, 23, 24, 100])
def test_chunked_reductions_equal_the_dense_ones_for_every_chunk_size(chunk):
    d, n, k = 9, 23, 4
    V, U = gaussian_pairs(d, n, SEED + chunk)
    W = retrieval.cmm(V, U) + np.random.default_rng(chunk).standard_normal((d, d)) / d
    S = retrieval.scores(W, V, U)
    scale = EPS * score_rounding_scale(W, V, U)

    got = retrieval.margins(W, V, U, chunk=chunk)
    assert np.max(np.abs(got - dense_margins(S))) / scale <= THRESHOLD

    tam = retrieval.tam_margins(W, V, U, k=k, chunk=chunk)
    dense_tam = np.diag(S) - retrieval.topk_average(S, k)
    assert np.max(np.abs(tam - dense_tam)) / scale <= THRESHOLD

    np.testing.assert_array_equal(
        retrieval.top1_correct(W, V, U, chunk=chunk), dense_margins(S) > 0
    )
    beaten = (S < np.diag(S)[:, None]).sum(axis=1) / (n - 1)
    np.testing.assert_array_equal(retrieval.percentile_rank(W, V, U, chunk=chunk), beaten)
    assert retrieval.all_retrieved(W, V, U, chunk=chunk) == bool(np.all(dense_margins(S) > 0))


def test_all_retrieved_agrees_with_top1_on_a_memory_that_succeeds():
    V, U = gaussian_pairs(120, 20, SEED)
    W = retrieval.cmm(V, U)
    assert retrieval.top1_correct(W, V, U, chunk=7).all()
    assert retrieval.all_retrieved(W, V, U, chunk=7) is True


def test_positive_tam_margin_puts_the_match_in_the_top_k():
    # T_k >= k-th largest competitor, so a positive TAM margin leaves at most
    # k - 1 competitors above the matched score.
    d, n, k = 12, 200, 10
    V, U = gaussian_pairs(d, n, SEED)
    W = retrieval.cmm(V, U)
    tam = retrieval.tam_margins(W, V, U, k=k, chunk=64)
    rank = retrieval.percentile_rank(W, V, U, chunk=64)
    assert 0 < np.count_nonzero(tam > 0) < n  # both cases occur
    assert np.all(rank[tam > 0] >= (n - 1 - (k - 1)) / (n - 1))


def test_percentile_rank_is_one_exactly_for_top1_retrieved_pairs():
    V, U = gaussian_pairs(15, 120, SEED)
    W = retrieval.cmm(V, U)
    np.testing.assert_array_equal(
        retrieval.percentile_rank(W, V, U) == 1.0, retrieval.top1_correct(W, V, U)
    )


# --------------------------------------------------------------------------
# the smoothed top-k average
# --------------------------------------------------------------------------


def tied_gap_constant(p: float) -> float:
    """beta * (F_beta - T_k) for m tied scores and k = p m."""
    return math.log((1 - p) / p) - math.log(1 - p) / p


def smoothing_scale(s: np.ndarray, k: int, beta: float) -> float:
    m = s.size
    return float(np.max(np.abs(s))) + abs(math.log(k / (m - k))) / beta + 1.0 / beta


@pytest.mark.parametrize("k", [1, 3, 7, 11])
@pytest.mark.parametrize("beta", [0.5, 4.0, 50.0, 1e4])
def test_smoothed_topk_lies_between_the_topk_average_and_the_gap_bound(k, beta):
    s = np.random.default_rng(SEED + k).standard_normal(12)
    T = retrieval.topk_average(s, k)
    F = retrieval.smoothed_topk_average(s, k, beta=beta)
    tol = THRESHOLD * EPS * smoothing_scale(s, k, beta)
    bound = retrieval.smoothed_topk_gap_bound(12, k, beta=beta)
    assert T - tol <= F <= T + bound + tol


@pytest.mark.parametrize("m, k", [(10, 5), (12, 3), (7, 6), (9, 1)])
def test_gap_on_tied_scores_is_exactly_c_over_beta(m, k):
    s = np.full(m, 0.375)
    for beta in [1.0, 10.0, 100.0, 1000.0]:
        gap = retrieval.smoothed_topk_average(s, k, beta=beta) - 0.375
        expected = tied_gap_constant(k / m) / beta
        assert abs(gap - expected) / (EPS * smoothing_scale(s, k, beta)) <= THRESHOLD
        bound = retrieval.smoothed_topk_gap_bound(m, k, beta=beta)
        assert gap <= bound + THRESHOLD * EPS * smoothing_scale(s, k, beta)


def test_tied_gap_attains_the_bound_when_k_is_half_the_competitors():
    assert math.isclose(
        tied_gap_constant(0.5), 2 * math.log(2), rel_tol=THRESHOLD * EPS
    )


def test_gap_shrinks_like_one_over_beta_with_the_known_constant():
    # The k-th and (k+1)-th largest scores tied, the rest well apart: as
    # beta -> inf, beta * gap -> 2 log(2) / k (the two tied terms share the
    # threshold). Without a tie at the boundary the gap decays faster.
    k = 6
    s = np.array([9.0, 8.0, 7.0, 6.0, 5.0, 4.0, 4.0, 1.0, 0.0, -1.0, -2.0, -3.0])
    T = retrieval.topk_average(s, k)
    betas = [1.0, 4.0, 16.0, 64.0, 256.0, 1024.0]
    gaps = [retrieval.smoothed_topk_average(s, k, beta=b) - T for b in betas]
    assert all(g1 > g2 > 0 for g1, g2 in zip(gaps, gaps[1:]))
    scaled = [g * b for g, b in zip(gaps, betas)]
    assert max(scaled) <= (s.size / k) * math.log(2)
    limit = 2 * math.log(2) / k
    # beta * gap - limit is O(exp(-beta)) here (the next score is 1 apart)
    assert abs(scaled[-1] - limit) / (EPS * betas[-1] * smoothing_scale(s, k, betas[-1])) <= THRESHOLD
    assert abs(scaled[-3] - limit) < abs(scaled[0] - limit)


def test_gap_without_a_tie_decays_faster_than_one_over_beta():
    s = np.array([3.0, 2.0, 1.0, 0.0])
    gaps = [
        (retrieval.smoothed_topk_average(s, 2, beta=b) - 2.5) * b for b in (10.0, 40.0)
    ]
    assert gaps[1] < gaps[0] / 100


def test_smoothed_topk_is_the_minimum_of_its_one_dimensional_objective():
    rng = np.random.default_rng(SEED)
    for beta in [0.3, 3.0, 30.0]:
        s = rng.standard_normal(15)
        k = 4

        def objective(t: float) -> float:
            return t + np.logaddexp(0.0, beta * (s - t)).sum() / (k * beta)

        ref = minimize_scalar(objective, bracket=(s.min() - 5, s.max() + 5)).fun
        F = retrieval.smoothed_topk_average(s, k, beta=beta)
        assert F <= ref + THRESHOLD * EPS * smoothing_scale(s, k, beta)


def test_smoothed_topk_is_convex_midpoint_inequality_on_random_pairs():
    rng = np.random.default_rng(SEED)
    for _ in range(N_CONVEXITY_PAIRS):
        m = int(rng.integers(2, 30))
        k = int(rng.integers(1, m))
        beta = float(10 ** rng.uniform(-1, 3))
        a, b = rng.standard_normal((2, m)) * 10 ** rng.uniform(-2, 2)
        Fa, Fb, Fm = (retrieval.smoothed_topk_average(x, k, beta=beta) for x in (a, b, (a + b) / 2))
        scale = smoothing_scale(np.concatenate([a, b]), k, beta)
        assert Fm <= (Fa + Fb) / 2 + THRESHOLD * EPS * scale


def test_smoothed_topk_with_k_equal_to_all_competitors_is_the_mean():
    s = np.array([1.0, 2.0, 6.0])
    assert retrieval.smoothed_topk_average(s, 3, beta=0.01) == pytest.approx(3.0, rel=4 * EPS)
    assert retrieval.smoothed_topk_gap_bound(3, 3, beta=0.01) == 0.0


def test_smoothed_topk_of_a_matrix_is_row_by_row_on_the_competitors():
    S = np.random.default_rng(SEED).standard_normal((6, 6))
    rows = retrieval.smoothed_topk_average(S, 2, beta=7.0)
    for i in range(6):
        one = retrieval.smoothed_topk_average(np.delete(S[i], i), 2, beta=7.0)
        assert rows[i] == pytest.approx(one, rel=THRESHOLD * EPS)


def test_smoothed_topk_survives_extreme_beta_and_scale():
    s = np.array([1e6, -1e6, 3.0, 2.9999])
    for beta in [1e-8, 1e8]:
        F = retrieval.smoothed_topk_average(s, 2, beta=beta)
        assert np.isfinite(F) and F >= retrieval.topk_average(s, 2) - THRESHOLD * EPS * 1e6


def _smoothed_topk_reference(s, k, beta, dps=50):
    """F = min_t t + (1/k) sum_j softplus(beta (s_j - t)) / beta at ``dps``
    digits: the root of (1/k) sum_j sigmoid(beta (s_j - t)) = 1, bracketed."""
    with mpmath.workdps(dps):
        s = [mpmath.mpf(float(x)) for x in s]
        beta = mpmath.mpf(beta)

        def g(t):
            return sum(1 / (1 + mpmath.exp(-beta * (x - t))) for x in s) / k - 1

        shift = mpmath.log(mpmath.mpf(k) / (len(s) - k)) / beta
        lo, hi = min(s) - shift, max(s) - shift
        for _ in range(400):  # bisection: slow and sure
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
        t = (lo + hi) / 2
        return t + sum(mpmath.log1p(mpmath.exp(beta * (x - t))) for x in s) / (k * beta)


def _assert_matches_reference(s, k, beta):
    """smoothed_topk_average within THRESHOLD ulps of the scores' scale (plus
    the shift log(k / (c - k)) / beta) of the 50-digit reference."""
    got = retrieval.smoothed_topk_average(s, k, beta=beta)
    want = float(_smoothed_topk_reference(s, k, beta))
    shift = abs(math.log(k / (s.size - k))) / beta
    assert abs(got - want) <= THRESHOLD * EPS * (np.max(np.abs(s)) + shift), (k, beta, got, want)


@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e8])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_smoothed_topk_matches_a_50_digit_reference_at_every_scale(scale, k):
    # beta * scale of order one to ten: the smoothing matters, and the answer
    # must be right to a few ulps of the scores' scale whatever that scale is.
    s = scale * np.random.default_rng(SEED + k).standard_normal(12)
    for beta in (0.5 / scale, 10.0 / scale):
        _assert_matches_reference(s, k, beta)


@pytest.mark.parametrize("scale", [1e-8, 1.0, 1e8])
def test_smoothed_topk_newton_converges_within_a_dozen_steps(scale, monkeypatch):
    # The safeguarded Newton iteration for the optimal t converges
    # quadratically from its start between the k-th and (k+1)-th largest
    # scores (4 to 5 steps on these cases); bisection alone would need ~50.
    monkeypatch.setattr(retrieval, "SMOOTHING_NEWTON_MAXITER", 12)
    for k in (1, 3, 7, 11):
        s = scale * np.random.default_rng(SEED + k).standard_normal(12)
        for beta in (0.5 / scale, 10.0 / scale, 1e4 / scale):
            _assert_matches_reference(s, k, beta)


def test_all_retrieved_needs_a_strict_win():
    # keys 0 and 1 identical: their scores tie, a tie is not a retrieval
    V = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    U = np.eye(3)
    W = U @ V.T
    assert retrieval.all_retrieved(W, V, U) is False
    assert not retrieval.top1_correct(W, V, U)[:2].any()
    assert retrieval.all_retrieved(np.eye(3), np.eye(3), np.eye(3)) is True


def test_wrong_memory_shape_message_names_the_needed_shape():
    V, U = np.ones((3, 5)), np.ones((4, 5))  # keys in R^3, targets in R^4
    with pytest.raises(ValueError, match=r"= \(4, 3\), got \(3, 4\)"):
        retrieval.scores(np.ones((3, 4)), V, U)


def test_scores_of_a_single_pair():
    assert retrieval.scores(np.array([[2.0]]), np.array([[3.0]]), np.array([[5.0]])).tolist() == [[30.0]]


def test_topk_of_the_smallest_square_score_matrix():
    S = np.array([[2.0, 1.0], [5.0, 3.0]])  # n = 2: one competitor per row
    np.testing.assert_array_equal(retrieval.topk_average(S, 1), [1.0, 5.0])
    np.testing.assert_allclose(retrieval.smoothed_topk_average(S, 1, beta=4.0), [1.0, 5.0])


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------

_V, _U = gaussian_pairs(3, 5, SEED)
_W = np.eye(3)
_NAN = _V.copy()
_NAN[0, 0] = np.nan
_INF = _U.copy()
_INF[1, 1] = np.inf
_S = np.random.default_rng(SEED).standard_normal((5, 5))

BAD_INPUT = [
    pytest.param(retrieval.margins, dict(W=_W, keys=_NAN, targets=_U), ValueError, "finite", id="nan-keys"),
    pytest.param(retrieval.top1_correct, dict(W=_W, keys=_V, targets=_INF), ValueError, "finite", id="inf-targets"),
    pytest.param(retrieval.scores, dict(W=_W, keys=_V[:, 0], targets=_U), ValueError, "2-D", id="keys-1d"),
    pytest.param(retrieval.scores, dict(W=_W[None], keys=_V, targets=_U), ValueError, "2-D", id="W-3d"),
    pytest.param(retrieval.margins, dict(W=_W, keys=_V, targets=_U[:, :4]), ValueError, "same number of columns", id="count-mismatch"),
    pytest.param(retrieval.margins, dict(W=np.eye(4), keys=_V, targets=_U), ValueError, "W must have shape", id="W-shape"),
    pytest.param(retrieval.margins, dict(W=np.eye(3), keys=_V[:, :1], targets=_U[:, :1]), ValueError, "at least 2 columns", id="single-pair"),
    pytest.param(retrieval.margins, dict(W=_W.astype(bool), keys=_V, targets=_U), TypeError, "bool", id="bool-W"),
    pytest.param(retrieval.tam_margins, dict(W=_W, keys=_V.astype(complex), targets=_U, k=1), TypeError, "complex", id="complex-keys"),
    pytest.param(retrieval.cmm, dict(keys="keys", targets=_U), TypeError, "keys must be a real array", id="string-keys"),
    pytest.param(retrieval.cmm, dict(keys=np.array([[mpmath.mpf(1)]], dtype=object), targets=np.ones((1, 1))), TypeError, "float array", id="mpmath-keys"),
    pytest.param(retrieval.margins, dict(W=_W, keys=_V, targets=_U, chunk=0), ValueError, "chunk must be an integer >= 1", id="chunk-zero"),
    pytest.param(retrieval.margins, dict(W=_W, keys=_V, targets=_U, chunk=2.0), TypeError, "chunk must be an integer", id="chunk-float"),
    pytest.param(retrieval.tam_margins, dict(W=_W, keys=_V, targets=_U, k=0), ValueError, "k must be an integer >= 1", id="tam-k-zero"),
    pytest.param(retrieval.tam_margins, dict(W=_W, keys=_V, targets=_U, k=5), ValueError, "k must be an integer in 1..4", id="tam-k-n"),
    pytest.param(retrieval.topk_average, dict(scores=_S, k=5), ValueError, "1..4", id="topk-k-too-big"),
    pytest.param(retrieval.topk_average, dict(scores=np.ones(3), k=True), TypeError, "k must be an integer", id="topk-k-bool"),
    pytest.param(retrieval.topk_average, dict(scores=np.ones((3, 4)), k=1), ValueError, "square", id="topk-nonsquare"),
    pytest.param(retrieval.topk_average, dict(scores=np.ones((2, 2, 2)), k=1), ValueError, "1-D array of competitor", id="topk-3d"),
    pytest.param(retrieval.topk_average, dict(scores=np.array([1.0, np.nan]), k=1), ValueError, "finite", id="topk-nan"),
    pytest.param(retrieval.smoothed_topk_average, dict(scores=np.ones(4), k=2, beta=0.0), ValueError, "beta must be a finite number > 0", id="beta-zero"),
    pytest.param(retrieval.smoothed_topk_average, dict(scores=np.ones(4), k=2, beta=-1.0), ValueError, "beta must be a finite number > 0", id="beta-negative"),
    pytest.param(retrieval.smoothed_topk_average, dict(scores=np.ones(4), k=2, beta=math.inf), ValueError, "beta must be a finite number > 0", id="beta-inf"),
    pytest.param(retrieval.smoothed_topk_average, dict(scores=np.ones(4), k=2, beta="big"), TypeError, "beta must be a real number", id="beta-string"),
    pytest.param(retrieval.smoothed_topk_average, dict(scores=np.ones(4), k=0, beta=1.0), ValueError, "k must be an integer >= 1", id="smoothed-k-zero"),
    pytest.param(retrieval.smoothed_topk_gap_bound, dict(n_competitors=3, k=4, beta=1.0), ValueError, "1..3", id="gap-k-too-big"),
    pytest.param(retrieval.scores, dict(W=np.ones((1, 1)), keys=np.ones((1, 40000)), targets=np.ones((1, 40000))), ValueError, "GiB", id="scores-too-big"),
]


@pytest.mark.parametrize("func, kwargs, exc, fragment", BAD_INPUT)
def test_bad_input_is_refused_with_a_message_naming_it(func, kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        func(**kwargs)


def test_public_names_are_sorted_and_exist():
    assert retrieval.__all__ == sorted(retrieval.__all__)
    assert all(hasattr(retrieval, name) for name in retrieval.__all__)


@pytest.mark.parametrize("seed", range(20))
def test_topk_average_and_tam_margins_of_exact_and_mpmath_arrays_follow_the_definition(seed):
    # integer memories: the scores are integers, the exact margins S_ii - (sum of the k largest)/k
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(2, 7)), int(rng.integers(1, 4))
    W, V, U = (rng.integers(-2, 3, size=shape) for shape in ((d, d), (d, n), (d, n)))
    k = int(rng.integers(1, n))
    S = V.T @ W.T @ U
    top = [sorted(np.delete(S[i], i).tolist(), reverse=True)[:k] for i in range(n)]
    tops = [Fraction(sum(t), k) for t in top]
    ref = [S[i, i] - tops[i] for i in range(n)]
    exact = retrieval.tam_margins(*(linmem.exact_array(x) for x in (W, V, U)), k=k)
    assert all(isinstance(m, Fraction) for m in exact) and exact.tolist() == ref
    assert retrieval.topk_average(linmem.exact_array(S), k).tolist() == tops
    assert retrieval.topk_average(linmem.exact_array(np.delete(S[0], 0)), k) == tops[0]
    with mpmath.workdps(30):
        mp = retrieval.tam_margins(*(linmem.mp_array(x) for x in (W, V, U)), k=k)
        assert all(isinstance(m, mpmath.mpf) and abs(m - r) < mpmath.mpf(10) ** -25 for m, r in zip(mp, ref))
    flt = retrieval.tam_margins(*(x.astype(float) for x in (W, V, U)), k=k)
    np.testing.assert_allclose(flt, [float(r) for r in ref], rtol=0, atol=THRESHOLD * EPS * (1 + np.abs(S).max()))


def test_exact_topk_average_keeps_near_ties_float64_cannot_see():
    tiny = Fraction(1, 10**40)
    s = np.array([Fraction(1) + i * tiny for i in range(4)], dtype=object)
    assert retrieval.topk_average(s, 2) == 1 + Fraction(5, 2) * tiny
    with mpmath.workdps(60):
        mean = retrieval.topk_average(linmem.mp_array(s), 2)
        assert abs(mean - (1 + mpmath.mpf(5) / 2 * mpmath.mpf(10) ** -40)) < mpmath.mpf(10) ** -55
