"""Tests of linmem.learn: max-margin LP, Gordan certificates, TAM, cross-entropy,
sparse repair (004)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings

from linmem import learn, optimality, retrieval
from linmem.tolerances import working_eps
from theorems.core.tolerance import THRESHOLD

EPS = working_eps("float")
SEED = 4004

#: Central differences with step h = eps^(1/3) are accurate to about eps^(2/3)
#: (truncation h^2 f''' and rounding eps f / h balance there).
FD_STEP = EPS ** (1 / 3)
FD_TOL = THRESHOLD * EPS ** (2 / 3)

#: Gordan instances: (d, n) on both sides of the top-1 feasibility boundary,
#: several seeds each (the d^2 = 2 n ln n rule is only asymptotic: at these
#: sizes the boundary sits near n ~ d^2 / 2).
GORDAN_SIZES = [(2, 3), (2, 4), (2, 6), (3, 4), (3, 6), (3, 9), (4, 6), (4, 9), (4, 14)]
GORDAN_SEEDS = range(4)

#: Sparse repair vs CMM: n = 300 at load d^2 / (n ln n) = 5, where CMM fails
#: about 9% of the pairs.
REPAIR_N, REPAIR_RATIO, REPAIR_GAMMA = 300, 5.0, 0.2
REPAIR_SEEDS = range(5)


def gaussian_pairs(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Keys and targets with i.i.d. N(0, I_d / d) columns (the 004 model)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((2, d, n)) / math.sqrt(d)


def direct_comparisons(W: np.ndarray, V: np.ndarray, U: np.ndarray) -> np.ndarray:
    """<W, A_ij> = (u_i - u_j)^T W v_i for all i != j, by explicit loops."""
    n = V.shape[1]
    return np.array(
        [(U[:, i] - U[:, j]) @ W @ V[:, i] for i in range(n) for j in range(n) if i != j]
    )


def dependence_residual(lam: np.ndarray, V: np.ndarray, U: np.ndarray) -> float:
    """||sum lam_ij A_ij||_F / sum lam_ij ||A_ij||_F, by explicit loops."""
    n = V.shape[1]
    total = np.zeros((U.shape[0], V.shape[0]))
    scale = 0.0
    for i in range(n):
        for j in range(n):
            if i != j:
                A = np.outer(U[:, i] - U[:, j], V[:, i])
                total += lam[i, j] * A
                scale += lam[i, j] * np.linalg.norm(A)
    return float(np.linalg.norm(total) / scale) if scale else 0.0


def check_certificate_independently(cert: learn.GordanCertificate, V, U) -> None:
    assert (cert.W is None) != (cert.lam is None)
    if cert.W is not None:
        assert np.all(direct_comparisons(cert.W, V, U) > 0)
        assert retrieval.all_retrieved(cert.W, V, U)
    else:
        lam = cert.lam
        n = V.shape[1]
        assert lam.shape == (n, n)
        assert np.all(lam >= 0) and np.all(np.diag(lam) == 0)
        assert abs(lam.sum() - 1) <= n * n * EPS
        limit = learn.CERTIFICATE_RESIDUAL_FACTOR * learn.LP_FEASIBILITY_TOL
        assert dependence_residual(lam, V, U) <= limit


# --------------------------------------------------------------------------
# (a) max-margin LP and Gordan's alternative
# --------------------------------------------------------------------------


def test_max_margin_of_orthonormal_pairs_is_two():
    res = learn.max_margin_memory(np.eye(3), np.eye(3))
    assert res.status == 0
    assert abs(res.margin - 2) <= THRESHOLD * EPS


def test_max_margin_solution_is_feasible_and_its_margin_is_the_smallest_comparison():
    V, U = gaussian_pairs(4, 5, SEED)
    res = learn.max_margin_memory(V, U)
    comps = direct_comparisons(res.W, V, U)
    assert np.max(np.abs(res.W)) <= learn.MAX_MARGIN_BOX + learn.LP_FEASIBILITY_TOL
    assert res.margin > 0
    scale = np.abs(comps).max()
    assert abs(comps.min() - res.margin) <= learn.CERTIFICATE_RESIDUAL_FACTOR * learn.LP_FEASIBILITY_TOL * scale


def test_comparison_matrices_give_score_differences():
    V, U = gaussian_pairs(3, 4, SEED)
    W = np.random.default_rng(SEED).standard_normal((3, 3))
    A = learn.comparison_matrices(V, U)
    S = retrieval.scores(W, V, U)
    got = np.einsum("ab,ijab->ij", W, A)
    expected = np.diag(S)[:, None] - S
    assert np.max(np.abs(got - expected)) / (EPS * 6 * np.abs(S).max()) <= THRESHOLD


def test_gordan_returns_exactly_one_verified_side_on_random_instances():
    sides = set()
    for d, n in GORDAN_SIZES:
        for seed in GORDAN_SEEDS:
            V, U = gaussian_pairs(d, n, 1000 * d + 10 * n + seed)
            cert = learn.gordan_certificate(V, U)
            assert cert.verify(), (d, n, seed)
            check_certificate_independently(cert, V, U)
            sides.add(cert.separable)
    assert sides == {True, False}  # both sides of the alternative were exercised


def test_duplicated_key_with_different_targets_is_certified_infeasible():
    V, U = gaussian_pairs(3, 5, SEED)
    V[:, 1] = V[:, 0]
    cert = learn.gordan_certificate(V, U)
    assert not cert.separable and cert.verify()
    check_certificate_independently(cert, V, U)


def test_too_many_pairs_for_the_dimension_is_certified_infeasible():
    V, U = gaussian_pairs(2, 25, SEED)
    cert = learn.gordan_certificate(V, U)
    assert not cert.separable and cert.verify()
    check_certificate_independently(cert, V, U)


def test_identical_targets_make_every_comparison_zero():
    V, _ = gaussian_pairs(3, 4, SEED)
    U = np.ones((3, 4))
    cert = learn.gordan_certificate(V, U)
    assert not cert.separable and cert.verify()


def test_orthonormal_pairs_are_certified_separable():
    cert = learn.gordan_certificate(np.eye(4), np.eye(4))
    assert cert.separable and cert.verify()
    check_certificate_independently(cert, np.eye(4), np.eye(4))


def test_the_dependence_lp_alone_finds_a_verified_lambda():
    # gordan_certificate usually reads lambda off the max-margin duals; the
    # separate feasibility LP is its fallback and is checked here directly.
    V, U = gaussian_pairs(2, 8, SEED)
    rows, I, J = learn._comparison_rows(V, U)
    lam_flat = learn._dependence_lp(rows / np.abs(rows).max())
    cert = learn._lambda_certificate(lam_flat, I, J, V, U)
    assert cert.verify()
    check_certificate_independently(cert, V, U)
    # and it reports infeasibility on a separable instance
    V, U = np.eye(3), np.eye(3)
    rows, _, _ = learn._comparison_rows(V, U)
    assert learn._dependence_lp(rows) is None


def test_verify_rejects_tampered_certificates():
    V, U = gaussian_pairs(3, 4, SEED + 1)
    good = learn.gordan_certificate(np.eye(3), np.eye(3))
    assert not learn.GordanCertificate(-good.W, None, good.keys, good.targets).verify()
    V, U = gaussian_pairs(2, 8, SEED)
    bad = learn.gordan_certificate(V, U)
    assert bad.lam is not None
    noise = np.random.default_rng(SEED).random((8, 8))
    np.fill_diagonal(noise, 0)
    perturbed = 0.5 * bad.lam + 0.5 * noise / noise.sum()
    assert not learn.GordanCertificate(None, perturbed, V, U).verify()
    negative = bad.lam.copy()
    i, j = np.argwhere(negative > 0)[0]
    negative[i, j] *= -1
    assert not learn.GordanCertificate(None, negative, V, U).verify()
    assert not learn.GordanCertificate(None, None, V, U).verify()
    # a W of the wrong shape (d_k x d_t for d_t x d_k) is refused, not a matmul error
    assert not learn.GordanCertificate(np.ones((3, 2)), None, np.eye(3), np.eye(2, 3)).verify()
    assert not learn.GordanCertificate(good.W.T[:, :2], None, good.keys, good.targets).verify()
    # lam must sum to 1 within n^2 eps: 1 + 0.4 n^2 eps passes, 1.001 does not
    n = 8
    assert learn.GordanCertificate(None, bad.lam * (1 + 0.4 * n * n * EPS), V, U).verify()
    assert not learn.GordanCertificate(None, bad.lam * 1.001, V, U).verify()


def test_polishing_keeps_every_entry_above_the_relative_support_threshold():
    # Support of a HiGHS vertex: entries above LP_FEASIBILITY_TOL * max(lam).
    # Rows A = [1], [-1], [0]: lam_0 = lam_1 balances, lam_2 is free; an entry
    # of 3 * 1e-7 * max survives the polish, one of 1e-9 * max is dropped.
    rows = np.array([[1.0], [-1.0], [0.0]])
    for third, kept in ((1.5e-7, True), (5e-10, False)):
        lam0 = np.array([0.5, 0.5 - third, third])
        lam = learn._polish_lambda(rows, lam0)
        assert bool(lam[2] > 0) is kept
        assert abs(lam[0] - lam[1]) <= 4 * EPS and abs(lam.sum() - 1) <= 4 * EPS


# --------------------------------------------------------------------------
# (b) TAM
# --------------------------------------------------------------------------


def test_scaled_ratio_of_a_memory_is_the_documented_rounding_bound_over_the_smallest_gap():
    # Recomputed pair by pair from the comparison matrices: tau_ij / <W, A_ij>
    # with tau_ij = ULPS (d_k + d_t) eps ||W||_F ||v_i|| (||u_i|| + ||u_j||).
    rng = np.random.default_rng(11)
    V, U = rng.standard_normal((4, 5)), rng.standard_normal((3, 5))  # d_k = 4, d_t = 3
    W = learn.max_margin_memory(V, U).W  # retrieves every pair: 5 pairs, 12 parameters
    A = learn.comparison_matrices(V, U)
    want = 0.0
    for i in range(5):
        for j in range(5):
            if i != j:
                gap = float(np.sum(W * A[i, j]))
                assert gap > 0
                tau = (learn.MARGIN_ROUNDING_ULPS * (4 + 3) * EPS * np.linalg.norm(W)
                       * np.linalg.norm(V[:, i]) * (np.linalg.norm(U[:, i]) + np.linalg.norm(U[:, j])))
                want = max(want, tau / gap)
    got = learn.GordanCertificate(W=W, lam=None, keys=V, targets=U).scaled_ratio()
    assert got == pytest.approx(want, rel=1e-12, abs=0)


def test_scaled_ratio_of_a_lambda_is_its_relative_residual_over_the_lp_tolerance():
    # ||sum lam_ij A_ij||_F / (sum lam_ij ||A_ij||_F), in units of
    # CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL, from the A_ij themselves.
    rng = np.random.default_rng(12)
    V, U = rng.standard_normal((2, 4)), rng.standard_normal((3, 4))
    lam = rng.random((4, 4))
    np.fill_diagonal(lam, 0.0)
    lam /= lam.sum()
    A = learn.comparison_matrices(V, U)
    residual = np.linalg.norm(np.einsum("ij,ijab->ab", lam, A))
    scale = sum(lam[i, j] * np.linalg.norm(A[i, j]) for i in range(4) for j in range(4))
    want = residual / scale / (learn.CERTIFICATE_RESIDUAL_FACTOR * learn.LP_FEASIBILITY_TOL)
    got = learn.GordanCertificate(W=None, lam=lam, keys=V, targets=U).scaled_ratio()
    assert got == pytest.approx(want, rel=1e-12, abs=0)


def test_zero_memory_has_an_infinite_scaled_ratio():
    V, U = gaussian_pairs(3, 4, SEED)
    cert = learn.GordanCertificate(W=np.zeros((3, 3)), lam=None, keys=V, targets=U)
    assert cert.scaled_ratio() == math.inf and not cert.verify()


def test_a_lambda_on_a_vanishing_comparison_has_scaled_ratio_exactly_zero():
    # keys 0 and 1 share their target: A_01 = (u_0 - u_1) v_0^T = 0
    V = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]])
    U = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    lam = np.zeros((3, 3))
    lam[0, 1] = 1.0
    cert = learn.GordanCertificate(W=None, lam=lam, keys=V, targets=U)
    assert cert.scaled_ratio() == 0.0 and cert.verify()


def test_a_lambda_on_vanishing_comparisons_with_rounding_residue_has_ratio_zero():
    # three keys share one target: every A_ij in the support is exactly zero,
    # while U coef^T V^T keeps a rounding residue (about 3e-17)
    V = np.array([[1.0, 0.0, 0.5, 0.2], [0.0, 1.0, 0.5, 0.9]])
    u = np.array([0.1, 0.7])
    U = np.stack([u, u, u, np.array([1.0, 0.0])], axis=1)
    lam = np.zeros((4, 4))
    lam[0, 1], lam[0, 2], lam[1, 0], lam[2, 1] = 0.1, 0.2, 0.3, 0.4
    assert learn.GordanCertificate(W=None, lam=lam, keys=V, targets=U).scaled_ratio() == 0.0


def test_verify_refuses_any_negative_weight():
    # keys 0 and 1 share their target, so A_01 = A_10 = 0: lam = (1.5, -0.5)
    # on them sums to 1 with zero residual, and only its sign is wrong
    V = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5]])
    U = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    lam = np.zeros((3, 3))
    lam[0, 1], lam[1, 0] = 1.5, -0.5
    assert not learn.GordanCertificate(W=None, lam=lam, keys=V, targets=U).verify()


def test_verify_threshold_is_a_scaled_ratio_of_one():
    # Mix a verified dependence with mass t on one comparison: the ratio grows
    # with t; a mix at ratio ~0.5 verifies, one at ratio ~1.5 does not.
    V, U = gaussian_pairs(2, 8, SEED)
    base = learn.gordan_certificate(V, U)
    assert base.lam is not None
    spike = np.zeros((8, 8))
    spike[0, 1] = 1.0

    def cert(t):
        return learn.GordanCertificate(W=None, lam=(1 - t) * base.lam + t * spike, keys=V, targets=U)

    for target, ok in ((0.5, True), (1.5, False)):
        lo, hi = 0.0, 1e-2  # bisect t for scaled_ratio = target
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if cert(mid).scaled_ratio() < target else (lo, mid)
        c = cert((lo + hi) / 2)
        assert abs(c.scaled_ratio() - target) < 0.01
        assert c.verify() is ok


def test_polishing_that_would_leave_the_orthant_returns_the_clipped_vertex():
    # A = [1], [1], [-1], [0]: the correction of (0.6, 1e-6, 0.4, -1e-9) to
    # sum lam A = 0 drives lam_1 to about -0.05, so the clipped, normalised
    # input comes back instead: no negative weight either way.
    rows = np.array([[1.0], [1.0], [-1.0], [0.0]])
    lam0 = np.array([0.6, 1e-6, 0.4, -1e-9])
    lam = learn._polish_lambda(rows, lam0)
    assert np.all(lam >= 0) and lam[3] == 0.0
    np.testing.assert_allclose(lam[:3], lam0[:3] / lam0[:3].sum(), rtol=4 * EPS)


def test_duals_of_the_margin_lp_certify_a_typical_infeasible_instance_without_a_second_lp(monkeypatch):
    # LP duality: at margin 0 the multipliers of the margin constraints are a
    # dependence; gordan_certificate uses them and skips the dependence LP.
    def no_second_lp(rows):
        raise AssertionError("the dependence LP was called")

    monkeypatch.setattr(learn, "_dependence_lp", no_second_lp)
    V, U = gaussian_pairs(2, 8, SEED)
    cert = learn.gordan_certificate(V, U)
    assert cert.lam is not None and cert.verify()


def test_dependence_lp_certifies_when_the_duals_do_not(monkeypatch):
    # Zero duals (as from a solver that reports none): the second LP must
    # produce the certificate, and it must verify.
    solve = learn._solve_max_margin

    def without_duals(V, U):
        mm, rows, I, J, lam_dual = solve(V, U)
        return mm, rows, I, J, np.zeros_like(lam_dual)

    monkeypatch.setattr(learn, "_solve_max_margin", without_duals)
    V, U = gaussian_pairs(2, 8, SEED)
    cert = learn.gordan_certificate(V, U)
    assert cert.lam is not None and cert.verify()


# --------------------------------------------------------------------------
# the cutting-plane max-margin LP against the dense one
# --------------------------------------------------------------------------


def kkt_defects(res: learn.MaxMarginResult, V, U) -> dict:
    """Optimality conditions of the max-margin LP for (W, t, lambda), by loops:
    primal feasibility (every comparison >= t, box), dual feasibility
    (lambda >= 0, sum 1), strong duality (t = ||sum lambda A||_1) and
    complementary slackness (sum lambda (<W, A> - t) = 0)."""
    n = V.shape[1]
    W, t, lam = res.W, res.margin, res.multipliers
    gaps = direct_comparisons(W, V, U)
    lam_off = lam[~np.eye(n, dtype=bool)]
    G = sum(lam[i, j] * np.outer(U[:, i] - U[:, j], V[:, i])
            for i in range(n) for j in range(n) if i != j)
    return {
        "primal": max(0.0, float(t - gaps.min()), float(np.abs(W).max() - learn.MAX_MARGIN_BOX)),
        "dual": max(0.0, float(-lam.min()), abs(float(lam.sum()) - 1.0), float(np.abs(np.diag(lam)).max())),
        "duality gap": abs(float(np.abs(G).sum()) - t),
        "slackness": abs(float(lam_off @ (gaps - t))),
    }


def assert_optimal(res, V, U) -> None:
    scale = 1.0 + float(np.max(np.abs(learn._comparison_rows(V, U)[0])))
    limit = 10 * learn.LP_FEASIBILITY_TOL * scale * V.shape[0] * U.shape[0]
    defects = kkt_defects(res, V, U)
    assert max(defects.values()) <= limit, defects


@pytest.mark.parametrize("d, n, seed", [(4, 12, 0), (6, 20, 1), (8, 25, 2), (12, 40, 1)])
def test_cutting_plane_reaches_the_dense_optimum_with_fewer_comparisons(d, n, seed):
    V, U = gaussian_pairs(d, n, seed)
    dense = learn.max_margin_memory(V, U, method="dense")
    cp = learn.max_margin_memory(V, U, method="cutting-plane")
    assert (dense.method, cp.method) == ("dense", "cutting-plane")
    assert dense.comparisons == n * (n - 1) and cp.comparisons < dense.comparisons
    assert cp.rounds >= 1 and cp.status == 0
    assert abs(cp.margin - dense.margin) <= 10 * learn.LP_FEASIBILITY_TOL
    assert_optimal(cp, V, U)
    assert_optimal(dense, V, U)


def test_cutting_plane_memory_and_multipliers_match_the_dense_ones_at_a_unique_optimum():
    # d = 12, n = 40, seed 1: margin 0.0253 > 0, a nondegenerate vertex
    V, U = gaussian_pairs(12, 40, 1)
    dense = learn.max_margin_memory(V, U, method="dense")
    cp = learn.max_margin_memory(V, U, method="cutting-plane")
    assert dense.margin > 0.02
    np.testing.assert_allclose(cp.W, dense.W, atol=1e-9)
    np.testing.assert_allclose(cp.multipliers, dense.multipliers, atol=1e-9)
    active = cp.multipliers > 0
    assert 0 < active.sum() <= 12 * 12 + 1  # a vertex has at most d^2 + 1 binding comparisons


def test_auto_method_takes_the_cutting_plane_above_the_dense_size_rule():
    small = gaussian_pairs(3, 6, 0)
    assert learn.max_margin_memory(*small).method == "dense"
    d, n = 8, 40
    assert n * (n - 1) * d * d > learn.CUTTING_PLANE_AUTO_ENTRIES
    assert learn.max_margin_memory(*gaussian_pairs(d, n, 0)).method == "cutting-plane"


def test_cutting_plane_certificates_agree_with_the_dense_ones_and_verify():
    for d, n, seed in [(3, 9, 0), (4, 14, 1), (6, 15, 2), (6, 40, 3)]:
        V, U = gaussian_pairs(d, n, seed)
        a = learn.gordan_certificate(V, U, method="dense")
        b = learn.gordan_certificate(V, U, method="cutting-plane")
        assert a.separable == b.separable
        check_certificate_independently(b, V, U)


def lp_instances():
    """(V, U) of the claims' LP family (theorems.authoring.__import__('theorems.claims.learn', fromlist=['x']).lp_instances) at
    d_k, d_t <= 8 and n <= 30: Gaussian, duplicated or scaled keys, n on both
    sides of separability."""
    return __import__('theorems.claims.learn', fromlist=['x']).lp_instances(max_d=8, max_n=30).map(lambda case: case[1:])


@settings(max_examples=40, deadline=None)
@given(lp_instances())
def test_cutting_plane_agrees_with_the_dense_lp_on_every_small_instance(case):
    V, U = case
    dense = learn.max_margin_memory(V, U, method="dense")
    cp = learn.max_margin_memory(V, U, method="cutting-plane")
    scale = 1.0 + float(np.max(np.abs(learn._comparison_rows(V, U)[0])))
    assert abs(cp.margin - dense.margin) <= 10 * learn.LP_FEASIBILITY_TOL * scale
    assert_optimal(cp, V, U)
    assert learn.gordan_certificate(V, U, method="cutting-plane").separable == (
        learn.gordan_certificate(V, U, method="dense").separable)


@settings(max_examples=30, deadline=None)
@given(lp_instances())
def test_cutting_plane_from_the_soft_min_start_agrees_with_the_dense_lp(case):
    # the size rule keeps these small memories on the correlation start; force the other one
    V, U = case
    dense = learn.max_margin_memory(V, U, method="dense")
    cp = learn._cutting_plane_max_margin(V, U, start="soft-min")[0]
    scale = 1.0 + float(np.max(np.abs(learn._comparison_rows(V, U)[0])))
    assert abs(cp.margin - dense.margin) <= 10 * learn.LP_FEASIBILITY_TOL * scale
    assert_optimal(cp, V, U)


def test_soft_min_start_recovers_from_a_near_singular_guessed_basis():
    # duplicated keys, not separable: the guessed basis stopped HiGHS at its first
    # iteration ("Not Set"); the cutting plane then re-solves from the slack basis
    rng = np.random.default_rng(452514674)
    V, U = rng.standard_normal((7, 18)), rng.standard_normal((6, 18))
    V = V[:, rng.integers(0, 9, size=18)]
    dense = learn.max_margin_memory(V, U, method="dense")
    cp = learn._cutting_plane_max_margin(V, U, start="soft-min")[0]
    assert abs(cp.margin - dense.margin) <= 10 * learn.LP_FEASIBILITY_TOL * (1.0 + float(np.max(np.abs(U))))
    assert_optimal(cp, V, U)


@pytest.mark.parametrize("d, n, seed", [(16, 40, 1), (16, 60, 0), (16, 90, 2)])
def test_both_cutting_plane_starts_reach_one_optimum(d, n, seed):
    V, U = gaussian_pairs(d, n, seed)
    assert d * d >= learn.CUTTING_PLANE_START_MIN_ENTRIES  # auto takes the soft-min start
    soft = learn._cutting_plane_max_margin(V, U)[0]
    corr = learn._cutting_plane_max_margin(V, U, start="correlation")[0]
    assert abs(soft.margin - corr.margin) <= 10 * learn.LP_FEASIBILITY_TOL
    assert soft.rounds <= corr.rounds
    assert_optimal(soft, V, U)


def test_soft_min_gradient_matches_finite_differences_across_row_blocks(monkeypatch):
    from scipy.optimize import approx_fprime

    monkeypatch.setattr(learn, "DEFAULT_CHUNK_ROWS", 3)  # several blocks, combined by their log-sum-exps
    rng = np.random.default_rng(SEED)
    V, U = rng.standard_normal((3, 10)), rng.standard_normal((2, 10))
    fun = learn._soft_min_value_grad(V, U, 4.0)
    x = rng.uniform(-1, 1, size=6)
    W = x.reshape(2, 3)
    S = V.T @ W.T @ U
    gaps = (np.diag(S)[:, None] - S)[~np.eye(10, dtype=bool)]
    value, grad = fun(x)
    assert value == pytest.approx(np.log(np.exp(-4.0 * gaps).sum()) / 4.0, rel=1e-12)
    np.testing.assert_allclose(grad, approx_fprime(x, lambda y: fun(y)[0], 1e-7), atol=1e-5)


def test_soft_min_memory_stays_in_the_box_and_beats_the_correlation_memory():
    V, U = gaussian_pairs(8, 30, 3)
    W = learn._soft_min_memory(V, U)
    assert np.abs(W).max() <= learn.MAX_MARGIN_BOX
    C = U @ V.T
    C = C / np.abs(C).max()
    assert direct_comparisons(W, V, U).min() > direct_comparisons(C, V, U).min()
    assert not learn._soft_min_memory(np.zeros((3, 5)), U[:, :5]).any()


@pytest.mark.parametrize("chunk", [1, 4, 256])
def test_smallest_gaps_are_the_k_smallest_over_all_blocks(monkeypatch, chunk):
    monkeypatch.setattr(learn, "DEFAULT_CHUNK_ROWS", chunk)
    rng = np.random.default_rng(SEED)
    V, U, W = rng.standard_normal((4, 12)), rng.standard_normal((3, 12)), rng.standard_normal((3, 4))
    gaps = np.array([[(U[:, i] - U[:, j]) @ W @ V[:, i] for j in range(12)] for i in range(12)])
    np.fill_diagonal(gaps, np.inf)
    for k in (1, 17, 12 * 11, 500):
        I, J = learn._smallest_gaps(W, V, U, k)
        assert I.size == min(k, 132) and len(set(zip(I, J))) == I.size and np.all(I != J)
        assert np.sort(gaps[I, J]) == pytest.approx(np.sort(gaps, axis=None)[:I.size])


def test_cutting_plane_never_forms_the_dense_rows(monkeypatch):
    def refuse(V, U):
        raise AssertionError("the dense comparison rows were formed")

    monkeypatch.setattr(learn, "_comparison_rows", refuse)
    V, U = gaussian_pairs(6, 30, 0)
    assert learn.max_margin_memory(V, U, method="cutting-plane").comparisons < 30 * 29


def test_cutting_plane_round_cap_raises(monkeypatch):
    monkeypatch.setattr(learn, "CUTTING_PLANE_MAX_ROUNDS", 1)
    with pytest.raises(learn.LinearProgramError, match="did not close in 1 rounds"):
        learn.max_margin_memory(*gaussian_pairs(6, 30, 0), method="cutting-plane")


def test_gordan_retries_with_unit_keys_when_the_instance_as_given_fails(monkeypatch):
    V, U = gaussian_pairs(3, 9, 0)
    V = V * 10.0 ** np.arange(-4, 5)
    calls = []
    inner = learn._gordan

    def first_fails(A, B, method):
        calls.append(np.linalg.norm(A, axis=0))
        if len(calls) == 1:
            raise learn.LinearProgramError("planted failure")
        return inner(A, B, method)

    monkeypatch.setattr(learn, "_gordan", first_fails)
    cert = learn.gordan_certificate(V, U)
    assert len(calls) == 2 and np.allclose(calls[1], 1.0)
    assert cert.verify() and cert.keys is not None and np.array_equal(cert.keys, V)
    check_certificate_independently(cert, V, U)


def test_tam_feasible_reposes_the_instance_when_highs_returns_unknown(monkeypatch):
    V, U = gaussian_pairs(4, 6, 0)  # feasible at k = 2
    inner = learn._tam_lp
    seen = []

    def unknown_twice(A, B, k):
        seen.append((A.copy(), B.copy()))
        res = inner(A, B, k)
        if len(seen) <= 2:
            res.status, res.message = 4, "planted unknown status"
        return res

    monkeypatch.setattr(learn, "_tam_lp", unknown_twice)
    out = learn.tam_feasible(V, U, k=2)
    assert out.reposed == 2 and out.feasible
    Vn = learn._normalised(V, U)[0]  # the LP sees the instance at max-abs (1/2, 1]
    np.testing.assert_array_equal(seen[1][0], Vn[:, ::-1])
    np.testing.assert_array_equal(seen[2][0], 2 * Vn)
    assert out.min_margin >= 1 - 1e-6  # the memory is mapped back to the original scale

    def always_unknown(A, B, k):
        res = inner(A, B, k)
        res.status, res.message = 4, "planted unknown status"
        return res

    monkeypatch.setattr(learn, "_tam_lp", always_unknown)
    with pytest.raises(learn.LinearProgramError, match="pairs reversed and its rescaling"):
        learn.tam_feasible(V, U, k=2)


def test_small_block_width_stays_at_least_one_for_astronomical_n():
    # (ln n)^(1/8) ~ 4.03 at n = 10^30000: d / 4.03 rounds to 0 for d = 2
    # and to 1 for d = 3; the width is clipped to 1..d-1.
    assert learn.default_small_block_width(2, 10**30000) == 1
    assert learn.default_small_block_width(3, 10**30000) == 1


def test_sparse_repair_deficiency_is_strictly_below_gamma():
    # Orthonormal pairs: every CMM margin is exactly 1.
    eye = np.eye(4)
    at_one = learn.sparse_repair_memory(eye, eye, gamma=1.0)
    assert at_one.deficient.size == 0 and np.array_equal(at_one.W, eye)
    above = learn.sparse_repair_memory(eye, eye, gamma=1.5)
    assert above.deficient.tolist() == [0, 1, 2, 3]


def test_sparse_repair_smallest_dimension_and_widest_small_block():
    rng = np.random.default_rng(SEED)
    V, U = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    assert learn.sparse_repair_memory(V, U, gamma=0.5).W.shape == (2, 2)  # d = 2 splits as 1 + 1
    V, U = rng.standard_normal((5, 6)), rng.standard_normal((5, 6))
    res = learn.sparse_repair_memory(V, U, gamma=0.5, small_block_width=4)  # s = d - 1
    assert res.small.size == 4 and res.large.size == 1


def test_sparse_repair_gives_zero_weight_to_keys_without_energy_on_the_small_block():
    # keys e_0, e_1 in R^4, small block {3}: nothing to lift there
    V = np.eye(4)[:, :2]
    res = learn.sparse_repair_memory(V, V, gamma=10.0, small_block_width=1)
    assert res.deficient.tolist() == [0, 1]
    assert res.weights.tolist() == [0.0, 0.0] and np.all(np.isfinite(res.W))


def test_tam_with_k_one_is_top1_feasibility():
    for d, n, seed in [(2, 3, 0), (2, 6, 1), (3, 5, 2), (3, 9, 3)]:
        V, U = gaussian_pairs(d, n, seed)
        tam = learn.tam_feasible(V, U, k=1)
        assert tam.feasible == learn.gordan_certificate(V, U).separable


def test_tam_feasibility_is_monotone_in_k_and_its_memory_has_margins_at_least_one():
    # d^2 = 16 < n = 20: top-1 (k = 1) is out of reach, the mean (k = n - 1) is not
    V, U = gaussian_pairs(4, 20, SEED)
    results = [learn.tam_feasible(V, U, k=k) for k in range(1, 20)]
    flags = [r.feasible for r in results]
    assert flags == sorted(flags)  # T_k decreases in k: feasible at k => at k + 1
    assert flags[0] is False and flags[-1] is True
    for k, r in enumerate(results, start=1):
        if r.feasible:
            margins = retrieval.tam_margins(r.W, V, U, k=k)
            scale = np.abs(retrieval.scores(r.W, V, U)).max()
            assert margins.min() >= 1 - learn.CERTIFICATE_RESIDUAL_FACTOR * learn.LP_FEASIBILITY_TOL * max(scale, 1)
            assert r.min_margin == pytest.approx(margins.min(), rel=THRESHOLD * EPS)


def directional_derivative_error(fun_grad, W: np.ndarray, seed: int) -> float:
    E = np.random.default_rng(seed).standard_normal(W.shape)
    E /= np.linalg.norm(E)
    f0, _, G = fun_grad(W)
    h = FD_STEP * max(1.0, np.abs(W).max())
    fd = (fun_grad(W + h * E)[0] - fun_grad(W - h * E)[0]) / (2 * h)
    return abs(fd - float(np.sum(G * E))) / (abs(f0) + np.linalg.norm(G))


@pytest.mark.parametrize("k", [1, 4, 11])
def test_tam_erm_gradient_matches_finite_differences(k):
    V, U = gaussian_pairs(5, 12, SEED + k)
    W = retrieval.cmm(V, U) * 2
    for ridge in [0.0, 0.3]:
        err = directional_derivative_error(
            lambda W: learn._tam_loss_grad(W, V, U, k, 3.0, ridge), W, SEED + k
        )
        assert err <= FD_TOL


def test_tam_erm_objective_is_convex_along_random_segments():
    V, U = gaussian_pairs(4, 10, SEED)
    rng = np.random.default_rng(SEED)
    for _ in range(10):
        A, B = rng.standard_normal((2, 4, 4)) * 3
        f = [learn._tam_loss_grad(W, V, U, 3, 5.0, 0.0)[0] for W in (A, B, (A + B) / 2)]
        assert f[2] <= (f[0] + f[1]) / 2 + THRESHOLD * EPS * (abs(f[0]) + abs(f[1]))


def test_tam_erm_below_threshold_drives_the_loss_down_and_the_margins_up():
    # load n / d^2 = 0.1 < alpha_c(0.15) ~ 0.294, r = k / n = 0.15
    d, n, k = 12, 14, 2
    V, U = gaussian_pairs(d, n, SEED)
    fit = learn.tam_erm(V, U, k=k, beta=10.0, maxiter=200)
    assert fit.loss < 0.05 < math.log(2)
    assert np.all(retrieval.tam_margins(fit.W, V, U, k=k) > 0)
    assert fit.norm == pytest.approx(np.linalg.norm(fit.W))


def test_tam_erm_ridge_is_part_of_the_reported_loss():
    V, U = gaussian_pairs(4, 8, SEED)
    fit = learn.tam_erm(V, U, k=2, beta=5.0, ridge=0.1)
    assert fit.loss == pytest.approx(fit.data_loss + 0.1 * fit.norm**2, rel=THRESHOLD * EPS)


def test_cross_entropy_gradient_matches_finite_differences():
    V, U = gaussian_pairs(5, 9, SEED)
    W = np.random.default_rng(SEED).standard_normal((5, 5))
    for ridge in [0.0, 0.5]:
        err = directional_derivative_error(lambda W: learn._ce_loss_grad(W, V, U, ridge), W, SEED)
        assert err <= FD_TOL


def test_cross_entropy_memory_at_low_load_retrieves_every_pair():
    V, U = gaussian_pairs(16, 20, SEED)
    fit = learn.cross_entropy_memory(V, U, ridge=1e-4, maxiter=300)
    assert fit.data_loss < math.log(20)  # below the W = 0 loss
    assert retrieval.all_retrieved(fit.W, V, U)
    assert fit.norm == pytest.approx(np.linalg.norm(fit.W))
    assert fit.loss == pytest.approx(fit.data_loss + 1e-4 * fit.norm**2, rel=THRESHOLD * EPS)


def test_cross_entropy_memory_starts_from_init():
    V, U = gaussian_pairs(4, 6, SEED)
    W0 = retrieval.cmm(V, U)
    fit = learn.cross_entropy_memory(V, U, ridge=1e-3, maxiter=1, init=W0)
    assert fit.loss <= learn._ce_loss_grad(W0, V, U, 1e-3)[0]


# --------------------------------------------------------------------------
# (d) sparse repair
# --------------------------------------------------------------------------


def test_default_small_block_width_rule():
    assert learn.default_small_block_width(100, 1000) == round(100 / math.log(1000) ** 0.125)
    assert learn.default_small_block_width(5, 2) == 4  # (ln 2)^(1/8) < 1: clipped to d - 1
    assert learn.default_small_block_width(2, 10**6) == 1


def test_split_layout_is_block_diagonal_with_a_rescaled_cmm_and_a_lifting_correction():
    d, n, s, gamma = 30, 80, 6, 0.3
    V, U = gaussian_pairs(d, n, SEED)
    rep = learn.sparse_repair_memory(V, U, gamma=gamma, small_block_width=s, layout="split")
    L, B = rep.large, rep.small
    np.testing.assert_array_equal(B, np.arange(d - s, d))
    W = rep.W
    assert np.all(W[np.ix_(L, B)] == 0) and np.all(W[np.ix_(B, L)] == 0)
    cmm_L = (d / L.size) ** 2 * U[L] @ V[L].T
    assert np.max(np.abs(W[np.ix_(L, L)] - cmm_L)) <= THRESHOLD * EPS * np.abs(cmm_L).max()
    WL = np.zeros((d, d))
    WL[np.ix_(L, L)] = cmm_L
    m = retrieval.margins(WL, V, U)
    np.testing.assert_array_equal(rep.deficient, np.flatnonzero(m < gamma))
    assert 0 < rep.deficient.size < n
    assert np.linalg.matrix_rank(W[np.ix_(B, B)]) <= rep.deficient.size
    # each deficient query's own correction term lifts its matched score by its deficit
    for c, i in zip(rep.weights, rep.deficient):
        lift = c * (U[B, i] @ U[B, i]) * (V[B, i] @ V[B, i])
        assert lift == pytest.approx(gamma - m[i], rel=THRESHOLD * EPS)


def test_overlay_layout_is_cmm_plus_a_correction_on_the_small_block():
    d, n = 30, 80
    V, U = gaussian_pairs(d, n, SEED)
    rep = learn.sparse_repair_memory(V, U, gamma=0.2, small_block_width=10, rng=np.random.default_rng(1))
    assert rep.small.size == 10 and np.all(np.diff(rep.small) > 0)
    delta = rep.W - retrieval.cmm(V, U)
    outside = np.ones((d, d), dtype=bool)
    outside[np.ix_(rep.small, rep.small)] = False
    assert np.all(delta[outside] == 0)


def test_overlay_repair_retrieves_at_least_as_many_pairs_as_cmm():
    d = round(math.sqrt(REPAIR_RATIO * REPAIR_N * math.log(REPAIR_N)))
    cmm_counts, repair_counts = [], []
    for seed in REPAIR_SEEDS:
        V, U = gaussian_pairs(d, REPAIR_N, SEED + seed)
        cmm_counts.append(retrieval.top1_correct(retrieval.cmm(V, U), V, U).sum())
        rep = learn.sparse_repair_memory(V, U, gamma=REPAIR_GAMMA)
        repair_counts.append(retrieval.top1_correct(rep.W, V, U).sum())
    assert np.mean(cmm_counts) < REPAIR_N  # a regime where CMM fails some pairs
    assert np.mean(repair_counts) >= np.mean(cmm_counts)


def test_sparse_repair_with_gamma_zero_only_touches_failed_pairs():
    V, U = gaussian_pairs(20, 120, SEED)
    rep = learn.sparse_repair_memory(V, U, gamma=0.0)
    failed = np.flatnonzero(~retrieval.top1_correct(retrieval.cmm(V, U), V, U))
    np.testing.assert_array_equal(rep.deficient, failed)


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------

_V, _U = gaussian_pairs(3, 5, SEED)
_NAN = _V.copy()
_NAN[2, 2] = np.nan
_INF = _U.copy()
_INF[0, 4] = -np.inf

BAD_INPUT = [
    pytest.param(learn.gordan_certificate, dict(keys=_NAN, targets=_U), ValueError, "finite", id="gordan-nan"),
    pytest.param(learn.max_margin_memory, dict(keys=_V, targets=_INF), ValueError, "finite", id="max-margin-inf"),
    pytest.param(learn.max_margin_memory, dict(keys=_V[0], targets=_U), ValueError, "2-D", id="max-margin-1d"),
    pytest.param(learn.max_margin_memory, dict(keys=_V, targets=_U, method="simplex"), ValueError, "method must be one of", id="max-margin-method"),
    pytest.param(learn.gordan_certificate, dict(keys=_V, targets=_U, method=None), ValueError, "method must be one of", id="gordan-method"),
    pytest.param(learn.gordan_certificate, dict(keys=_V, targets=_U[:, :3]), ValueError, "same number of columns", id="gordan-count"),
    pytest.param(learn.gordan_certificate, dict(keys=_V[:, :1], targets=_U[:, :1]), ValueError, "at least 2 columns", id="gordan-one-pair"),
    pytest.param(learn.gordan_certificate, dict(keys=_V > 0, targets=_U), TypeError, "bool", id="gordan-bool"),
    pytest.param(learn.comparison_matrices, dict(keys=_V, targets=_U * 1j), TypeError, "complex", id="comparisons-complex"),
    pytest.param(learn.tam_feasible, dict(keys=_V, targets=_U, k=5), ValueError, "k must be an integer in 1..4", id="tam-k-n"),
    pytest.param(learn.tam_feasible, dict(keys=_V, targets=_U, k=0), ValueError, "k must be an integer >= 1", id="tam-k-zero"),
    pytest.param(learn.tam_erm, dict(keys=_V, targets=_U, k=2, beta=0.0), ValueError, "beta must be a finite number > 0", id="erm-beta-zero"),
    pytest.param(learn.tam_erm, dict(keys=_V, targets=_U, k=2, beta=-3.0), ValueError, "beta must be a finite number > 0", id="erm-beta-negative"),
    pytest.param(learn.tam_erm, dict(keys=_V, targets=_U, k=2, beta=1.0, ridge=-1.0), ValueError, "ridge must be a finite number >= 0", id="erm-ridge-negative"),
    pytest.param(learn.tam_erm, dict(keys=_V, targets=_U, k=2, beta=1.0, init=np.eye(4)), ValueError, "init must have shape", id="erm-init-shape"),
    pytest.param(learn.cross_entropy_memory, dict(keys=_V, targets=_U, maxiter=0), ValueError, "maxiter must be an integer >= 1", id="ce-maxiter"),
    pytest.param(learn.cross_entropy_memory, dict(keys=_V, targets=_U, ridge=math.nan), ValueError, "ridge must be a finite", id="ce-ridge-nan"),
    pytest.param(learn.cross_entropy_memory, dict(keys=_V, targets=_U, ridge="0"), TypeError, "ridge must be a real number", id="ce-ridge-string"),
    pytest.param(learn.sparse_repair_memory, dict(keys=_V, targets=_U, gamma=-0.1), ValueError, "gamma must be a finite number >= 0", id="repair-gamma-negative"),
    pytest.param(learn.sparse_repair_memory, dict(keys=_V, targets=_U, gamma=0.1, rng=42), TypeError, "numpy.random.Generator", id="repair-rng-int"),
    pytest.param(learn.sparse_repair_memory, dict(keys=_V, targets=_U, gamma=0.1, rng=np.random.RandomState(0)), TypeError, "numpy.random.Generator", id="repair-rng-legacy"),
    pytest.param(learn.sparse_repair_memory, dict(keys=_V, targets=_U, gamma=0.1, small_block_width=3), ValueError, "small_block_width must be an integer in 1..2", id="repair-width-d"),
    pytest.param(learn.sparse_repair_memory, dict(keys=_V, targets=_U, gamma=0.1, small_block_width=0), ValueError, "small_block_width must be an integer >= 1", id="repair-width-zero"),
    pytest.param(learn.sparse_repair_memory, dict(keys=_V, targets=_U, gamma=0.1, layout="blocks"), ValueError, "layout must be one of", id="repair-layout"),
    pytest.param(learn.sparse_repair_memory, dict(keys=_V, targets=_U[:2], gamma=0.1), ValueError, "same dimension", id="repair-dims"),
    pytest.param(learn.default_small_block_width, dict(d=1, n=10), ValueError, "d must be an integer >= 2", id="width-d-one"),
]


@pytest.mark.parametrize("func, kwargs, exc, fragment", BAD_INPUT)
def test_bad_input_is_refused_with_a_message_naming_it(func, kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        func(**kwargs)


def test_public_names_are_sorted_and_exist():
    assert learn.__all__ == sorted(learn.__all__)
    assert all(hasattr(learn, name) for name in learn.__all__)


def _exact_lp_instances(seed):
    """The exact instances of the learn claims' precise checks at ``seed``
    (the claims draw them in this order from their "learn-exact" stream)."""
    from theorems.claims import learn as claims_learn
    from theorems.core.model import seed_sequence

    rng = np.random.default_rng(seed_sequence(seed, "learn-exact"))
    return claims_learn, {f"d={d}, n={n}": claims_learn._dyadic(rng, d, n) for d, n in claims_learn.EXACT_SIZES}


def _support_defect(res, V, U):
    return optimality.max_margin_support_defect(V, U, W=res.W, margin=res.margin, multipliers=res.multipliers)


@pytest.mark.parametrize("seed", [5, 8, 9])
def test_support_resolve_is_exact_at_a_primal_degenerate_vertex(seed):
    """At seeds 5, 8, 9 the d=2, n=3 optimum has a binding comparison with
    lambda = 0; re-solving only on lambda > 0 left a free parameter whose float
    value missed that comparison by ~1e-16 (an exact defect, a FAILED verdict)."""
    claims_learn, cases = _exact_lp_instances(seed)
    V, U = cases["d=2, n=3"]
    res = learn.max_margin_memory(V, U, method="cutting-plane")
    lam, n = res.multipliers, V.shape[1]
    slack = optimality.comparison_gaps(res.W, V, U) - res.margin
    binding = sum(abs(slack[i, j]) <= learn.LP_FEASIBILITY_TOL for i in range(n) for j in range(n) if i != j)
    assert binding > int(np.sum(lam > learn.LP_FEASIBILITY_TOL * lam.max()))  # the degeneracy is there
    assert _support_defect(res, V, U) == 0


@pytest.mark.parametrize("seed", [1, 5, 8])
def test_support_resolve_still_refuses_the_wrong_multipliers_and_the_early_stop(seed):
    claims_learn, cases = _exact_lp_instances(seed)
    for V, U in cases.values():  # separable instances: a multiplier on a slack comparison is caught
        if learn.max_margin_memory(V, U, method="dense").margin > 0:
            assert _support_defect(claims_learn._dense_dropping_a_row(V, U), V, U) != 0
    V, U = cases["d=3, n=5"]
    assert _support_defect(claims_learn._cp_stopped_early(V, U), V, U) != 0
