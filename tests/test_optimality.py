"""linmem.optimality: the optimality conditions of the learners, evaluated
independently, hold at the learners' results and fail at perturbed ones."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import linmem
from linmem import learn, optimality
from linmem.learn import FIT_GRADIENT_TOL


def _dyadic(seed: int, d: int, n: int):
    rng = np.random.default_rng(seed)
    return np.round(rng.standard_normal((2, d, n)) * 2**20) / 2**20


def _solution(res):
    return {"W": res.W, "margin": res.margin, "multipliers": res.multipliers}


def test_comparison_gaps_are_the_score_differences():
    V, U = np.random.default_rng(1).standard_normal((2, 3, 5))
    W = np.random.default_rng(2).standard_normal((3, 3))
    S = V.T @ W.T @ U
    G = optimality.comparison_gaps(W, V, U)
    off = ~np.eye(5, dtype=bool)
    assert np.allclose(G[off], (np.diag(S)[:, None] - S)[off])
    assert np.all(np.isinf(np.diag(G)))


def test_comparison_gaps_match_the_comparison_matrices():
    V, U = _dyadic(3, 2, 4)
    W = np.array([[0.5, -1.0], [0.25, 1.0]])
    A = learn.comparison_matrices(V, U)
    G = optimality.comparison_gaps(W, V, U)
    for i in range(4):
        for j in range(4):
            if i != j:
                assert G[i, j] == pytest.approx(float(np.sum(W * A[i, j])), abs=1e-15)


@pytest.mark.parametrize("seed, d, n", [(0, 1, 2), (1, 2, 3), (2, 2, 6), (4, 3, 5), (5, 3, 12)])
@pytest.mark.parametrize("method", ["dense", "cutting-plane"])
def test_the_learners_solution_meets_the_kkt_conditions(seed, d, n, method):
    V, U = _dyadic(seed, d, n)
    res = linmem.max_margin_memory(V, U, method=method)
    assert optimality.max_margin_kkt_defect(V, U, **_solution(res)) <= 1
    if n <= 6:
        assert optimality.max_margin_support_defect(V, U, **_solution(res)) == 0


def test_a_raised_margin_or_moved_multiplier_breaks_the_conditions():
    V, U = _dyadic(2, 2, 6)
    res = linmem.max_margin_memory(V, U, method="dense")
    raised = dict(_solution(res), margin=res.margin + 1e-3)
    assert optimality.max_margin_kkt_defect(V, U, **raised) > 1
    lam = res.multipliers.copy()
    i, j = np.unravel_index(np.argmax(lam), lam.shape)
    slack = optimality.comparison_gaps(res.W, V, U)
    slack[i, j] = -np.inf
    k, m = np.unravel_index(np.argmax(np.where(np.isfinite(slack), slack, -np.inf)), lam.shape)
    lam[k, m], lam[i, j] = lam[k, m] + lam[i, j], 0.0
    moved = dict(_solution(res), multipliers=lam)
    assert optimality.max_margin_kkt_defect(V, U, **moved) > 1
    assert optimality.max_margin_support_defect(V, U, **moved) != 0


def test_missing_multipliers_are_no_certificate():
    V, U = _dyadic(1, 2, 3)
    res = linmem.max_margin_memory(V, U)
    none = dict(_solution(res), multipliers=None)
    assert optimality.max_margin_kkt_defect(V, U, **none) == math.inf
    assert optimality.max_margin_support_defect(V, U, **none) == math.inf


def test_the_allowance_scales_with_the_comparisons():
    V, U = _dyadic(1, 2, 3)
    base = optimality.max_margin_allowance(V, U)
    Vn, Un, e = learn._normalised(V, U)  # in the units the LP is solved in
    A = np.abs(Un[:, :, None] - Un[:, None, :]).max() * np.abs(Vn).max()
    assert base == pytest.approx(learn.CERTIFICATE_RESIDUAL_FACTOR * learn.LP_FEASIBILITY_TOL * (1 + A) * 2.0**e)
    assert optimality.max_margin_allowance(2.0**40 * V, U) == 2.0**40 * base
    assert optimality.max_margin_allowance(V, 2.0**-40 * U) == 2.0**-40 * base


def _central_difference(f, W, h):
    out = np.zeros(W.shape, dtype=object)
    for idx in np.ndindex(W.shape):
        Wp, Wm = W.copy(), W.copy()
        Wp[idx] += h
        Wm[idx] -= h
        out[idx] = (f(Wp) - f(Wm)) / (2 * h)
    return out


@pytest.mark.parametrize("which", ["ce", "tam"])
def test_objective_gradients_are_the_derivatives_of_the_values(which):
    V, U = np.random.default_rng(7).standard_normal((2, 2, 4)) / np.sqrt(2)
    W0 = np.random.default_rng(8).standard_normal((2, 2))
    if which == "ce":
        f = lambda W: optimality.cross_entropy_objective_mp(W, V, U, ridge=0.03)  # noqa: E731
    else:
        f = lambda W: optimality.tam_objective_mp(W, V, U, k=1, beta=4.0, ridge=0.03)  # noqa: E731
    with mpmath.workdps(40):
        W = linmem.mp_array(W0)
        _, grad = f(W)
        fd = _central_difference(lambda X: f(X)[0], W, mpmath.mpf(10) ** -12)
        assert max(abs(a - b) for a, b in zip(grad.ravel(), fd.ravel())) < mpmath.mpf(10) ** -18


def test_the_objectives_agree_with_the_learners_reported_losses():
    V, U = np.random.default_rng(9).standard_normal((2, 3, 5)) / np.sqrt(3)
    ce = linmem.cross_entropy_memory(V, U, ridge=0.01)
    tam = linmem.tam_erm(V, U, k=2, beta=4.0, ridge=0.01)
    with mpmath.workdps(30):
        val, grad = optimality.cross_entropy_objective_mp(ce.W, V, U, ridge=0.01)
        assert float(val) == pytest.approx(ce.loss, rel=1e-12)
        assert float(max(abs(x) for x in grad.ravel())) <= linmem.fit_gradient_allowance(V, U)
        val, grad = optimality.tam_objective_mp(tam.W, V, U, k=2, beta=4.0, ridge=0.01)
        assert float(val) == pytest.approx(tam.loss, rel=1e-12)
        assert float(max(abs(x) for x in grad.ravel())) <= linmem.fit_gradient_allowance(V, U)


def test_the_tam_objective_solves_saturated_smoothing_roots():
    # every row's competitor scores W v_i u_j spread by beta = 16 saturate the sigmoids of the smoothing
    # root: with mpmath's default budget of Anderson steps this raised "Could not find root"
    # (learn.tam-erm-stationary FAILED at run seed 28 on a d = 1, n = 5, k = 3, beta = 16 case)
    V, U, W = np.array([[-0.1, -1.2, 0.8, 1.7, -3.3]]), np.array([[-0.5, -2.0, -0.3, -2.6, 0.0]]), np.array([[1.8]])
    with mpmath.workdps(30):
        S = (linmem.mp_array(V).T @ linmem.mp_array(W).T) @ linmem.mp_array(U)  # as the objective forms them
        val, grad = optimality.tam_objective_mp(W, V, U, k=3, beta=16.0, ridge=0.01)
        margins = [S[i, i] - linmem.capacity.smoothed_topk_average_mp(np.delete(S[i], i), 3, beta=16.0, dps=30)
                   for i in range(5)]
        want = mpmath.fsum(mpmath.log1p(mpmath.exp(-m)) for m in margins) / 5 + mpmath.mpf(0.01) * mpmath.mpf(1.8) ** 2
        assert abs(val - want) <= 64 * mpmath.eps * (1 + abs(want))
        assert grad.shape == (1, 1) and mpmath.isfinite(grad[0, 0])


def test_a_wrong_ridge_is_seen_in_the_gradient():
    V, U = np.random.default_rng(9).standard_normal((2, 3, 5)) / np.sqrt(3)
    fit = linmem.cross_entropy_memory(V, U, ridge=0.01)
    with mpmath.workdps(30):
        _, grad = optimality.cross_entropy_objective_mp(fit.W, V, U, ridge=0.02)
    assert float(max(abs(x) for x in grad.ravel())) > 100 * FIT_GRADIENT_TOL


def test_the_stationary_point_is_a_root_near_the_fit():
    V, U = np.random.default_rng(10).standard_normal((2, 2, 3)) / np.sqrt(2)
    fit = linmem.cross_entropy_memory(V, U, ridge=0.1)
    with mpmath.workdps(50):
        def grad(W):
            return optimality.cross_entropy_objective_mp(W, V, U, ridge=0.1)[1]

        root, dist = optimality.stationary_point_mp(grad, fit.W)
        assert root.shape == fit.W.shape
        assert mpmath.norm(mpmath.matrix(list(grad(root).ravel()))) < mpmath.mpf(10) ** -40
        assert dist <= math.sqrt(fit.W.size) * linmem.fit_gradient_allowance(V, U) / (2 * 0.1)


def test_the_stationary_point_of_a_quadratic():
    with mpmath.workdps(30):
        root, dist = optimality.stationary_point_mp(lambda W: 3 * W - 1, np.array([[2.0]]))
        assert abs(root[0, 0] - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -25
        assert abs(dist - mpmath.mpf(5) / 3) < mpmath.mpf(10) ** -25


def test_the_module_lists_its_public_names():
    assert optimality.__all__ == sorted(optimality.__all__)
    assert all(getattr(linmem, name) is getattr(optimality, name) for name in optimality.__all__)
