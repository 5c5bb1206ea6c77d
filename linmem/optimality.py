"""Optimality conditions of the learners of :mod:`linmem.learn`, evaluated
independently of them: the measurement procedures that say whether a
learner's result solves the problem it documents.

Nothing here calls the learners or their private helpers. The comparisons
``<W, A_ij> = (u_i - u_j)^T W v_i`` are formed by ``einsum``; the max-margin
LP's optimum is re-solved in exact rationals (sympy) on the support a
solution names; the cross-entropy and smoothed-TAM objectives and their
gradients are evaluated in mpmath from the documented formulas (the smoothed
top-k's inner minimiser by a bracketed root search); a stationary point is
found by Newton's method in mpmath.

Conventions as in :mod:`linmem.learn`: ``keys`` (``d_k x n``), ``targets``
(``d_t x n``), memory ``W`` (``d_t x d_k``), ``S_ij = u_j^T W v_i``.

Source: ours (the optimality conditions of seed 004's learners).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import mpmath
import numpy as np
import sympy

from linmem._validation import MPMATH, as_matrix, check_positive_int, check_positive_real, number_kind
from linmem.learn import MAX_MARGIN_BOX, _float_scalar, _normalised, _pairs
from linmem.precise import mp_array
from linmem.retrieval import _check_k, _float_matrix, _solve_near
from linmem.tolerances import CERTIFICATE_RESIDUAL_FACTOR, LP_FEASIBILITY_TOL, SMOOTHING_ROOT_STEPS_PER_BIT

__all__ = [
    "comparison_gaps",
    "cross_entropy_objective_mp",
    "max_margin_allowance",
    "max_margin_kkt_defect",
    "max_margin_support_defect",
    "stationary_point_mp",
    "tam_objective_mp",
]

#: Newton steps of :func:`stationary_point_mp` before it gives up.
STATIONARY_MAXSTEPS = 60


def _memory(W: Any, V: np.ndarray, U: np.ndarray, *, exact_ok: bool = False) -> np.ndarray:
    W = as_matrix(W, "W") if exact_ok else _float_matrix(W, "W")
    if W.shape != (U.shape[0], V.shape[0]):
        raise ValueError(f"W must have shape (targets rows, keys rows) = {(U.shape[0], V.shape[0])}, got {W.shape}")
    return W


def _lp_solution(keys, targets, W, margin, multipliers):
    """The inputs of an LP solution, on the instance divided by powers of two
    to max-abs entries in ``(1/2, 1]`` (exact in binary; the margin with it):
    the LP's optimality conditions are the same at every positive scale."""
    V, U = _pairs(keys, targets)
    W = _memory(W, V, U)
    t = float(_check_real(margin, "margin"))
    V, U, e = _normalised(V, U)
    t = math.ldexp(t, -e)
    if multipliers is None:
        return V, U, W, t, None
    lam = _float_matrix(multipliers, "multipliers")
    n = V.shape[1]
    if lam.shape != (n, n):
        raise ValueError(f"multipliers must be n x n = {(n, n)} for the {n} pairs, got {lam.shape}")
    return V, U, W, t, lam


def _check_real(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    if not math.isfinite(float(x)):
        raise ValueError(f"{name} must be finite, got {x}")
    return float(x)


def comparison_gaps(W: Any, keys: Any, targets: Any) -> np.ndarray:
    """``<W, A_ij> = (u_i - u_j)^T W v_i`` for all pairs, as an ``n x n``
    array with ``inf`` on the diagonal (a query is not its own competitor).

    >>> V, U = np.eye(2), np.array([[2.0, 1.0], [0.0, 3.0]])
    >>> comparison_gaps(np.eye(2), V, U).tolist()
    [[inf, 1.0], [3.0, inf]]
    """
    V, U = _pairs(keys, targets)
    W = _memory(W, V, U)
    Q = np.einsum("ab,bi->ai", W, V)  # W v_i
    G = np.einsum("ai,ai->i", U, Q)[:, None] - np.einsum("aj,ai->ij", U, Q)
    np.fill_diagonal(G, np.inf)
    return G


def max_margin_allowance(keys: Any, targets: Any) -> float:
    """The max-margin LP's tolerance on one comparison, in the instance's
    units: ``CERTIFICATE_RESIDUAL_FACTOR x LP_FEASIBILITY_TOL x (1 + max |A|)``
    with ``max |A| = max_ij |u_i - u_j|_max |V|_max`` (HiGHS's feasibility
    tolerance is absolute, the comparisons scale with the entries of A),
    evaluated where :func:`linmem.learn.max_margin_memory` solves the LP: on
    keys and targets divided by powers of two ``2**e_k``, ``2**e_t`` to
    max-abs entries in ``(1/2, 1]``, and multiplied back by ``2**(e_k + e_t)``
    (so it scales with the comparisons).

    >>> max_margin_allowance(np.eye(2), np.eye(2)) == 100 * 1e-7 * 2
    True
    """
    V, U, e = _normalised(*_pairs(keys, targets))
    return math.ldexp(float(CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL * (1 + _largest_comparison_entry(V, U))), e)


def _largest_comparison_entry(V: np.ndarray, U: np.ndarray) -> float:
    """An upper bound on max |A_ij|: max |u_i - u_j| x max |V|."""
    return np.abs(U[:, :, None] - U[:, None, :]).max() * np.abs(V).max()


def max_margin_kkt_defect(keys: Any, targets: Any, *, W: Any, margin: Any, multipliers: Any) -> float:
    """The largest defect of the max-margin LP's optimality conditions at
    ``(W, t, lambda)``, over :func:`max_margin_allowance` ``x d_k d_t``
    (at most 1: optimal to the LP's tolerance; ``inf`` when no multipliers).

    The LP ``max t s.t. <W, A_ij> >= t (i != j), |W_ab| <= MAX_MARGIN_BOX``
    is optimal at ``(W, t)`` with multipliers ``lambda`` iff: primal
    feasibility ``t - min <W, A_ij> <= 0`` and ``|W|_max <= 1``; dual
    feasibility ``lambda >= 0``, ``sum lambda = 1``, ``lambda_ii = 0``; no
    duality gap ``||sum lambda_ij A_ij||_1 = t``; and complementary
    slackness ``sum lambda_ij (<W, A_ij> - t) = 0``. Each is measured as a
    nonnegative defect and the largest is returned, on keys and targets
    divided by powers of two to max-abs entries in ``(1/2, 1]`` (with the
    margin): the figure is the same at every positive scale of the inputs.

    >>> V = U = np.eye(2)
    >>> lam = np.array([[0.0, 0.5], [0.5, 0.0]])
    >>> W = np.array([[1.0, -1.0], [-1.0, 1.0]])
    >>> max_margin_kkt_defect(V, U, W=W, margin=2.0, multipliers=lam)
    0.0
    >>> max_margin_kkt_defect(V, U, W=W, margin=2.5, multipliers=lam) > 1
    True
    """
    V, U, W, t, lam = _lp_solution(keys, targets, W, margin, multipliers)
    if lam is None:
        return math.inf
    n = V.shape[1]
    gaps = comparison_gaps(W, V, U)
    off = ~np.eye(n, dtype=bool)
    G = np.einsum("ij,ai,bi->ab", lam, U, V) - np.einsum("ij,aj,bi->ab", lam, U, V)  # sum lambda_ij A_ij
    defects = (max(0.0, t - gaps[off].min()), max(0.0, np.abs(W).max() - MAX_MARGIN_BOX),
               max(0.0, -lam.min()), abs(lam.sum() - 1), np.abs(np.diag(lam)).max(),
               abs(np.abs(G).sum() - t), abs(lam[off] @ (gaps[off] - t)))
    return float(max(defects) / (max_margin_allowance(V, U) * V.shape[0] * U.shape[0]))


def max_margin_support_defect(keys: Any, targets: Any, *, W: Any, margin: Any, multipliers: Any) -> Any:
    """The exact optimality defect (a ``Fraction``, 0 when optimal; ``inf``
    when the support names no solution) of the max-margin LP re-solved in
    rationals on the support of a float solution ``(W, t, lambda)``.

    The support: multipliers on the comparisons with ``lambda > LP_FEASIBILITY_TOL
    x max lambda``; ``<W, A_p> = t`` on those and on every other comparison
    binding in the float solution to ``LP_FEASIBILITY_TOL x (1 + max |A|)`` (a
    primal-degenerate vertex has binding comparisons with ``lambda_p = 0``);
    entries of ``W`` strictly inside the box free, the others at their sign;
    ``(sum lambda A)_ab = 0`` on the free entries and ``sum lambda = 1``.
    Free parameters of a degenerate support take the float solution's
    values. The defect sums the violations of every comparison's
    feasibility, of the box, of ``lambda >= 0`` and of the sign of ``W``
    against ``sum lambda A`` on the entries at the box. Keys and targets are
    taken at their exact binary values, divided by powers of two to max-abs
    entries in ``(1/2, 1]`` (exact; the margin with them), so the defect is
    in those units and is 0 at every positive scale of an optimal solution.

    >>> V = U = np.eye(2)
    >>> lam = np.array([[0.0, 0.5], [0.5, 0.0]])
    >>> W = np.array([[1.0, -1.0], [-1.0, 1.0]])
    >>> max_margin_support_defect(V, U, W=W, margin=2.0, multipliers=lam)
    Fraction(0, 1)
    """
    V, U, W0, t0, lam0 = _lp_solution(keys, targets, W, margin, multipliers)
    if lam0 is None:
        return math.inf
    n, du, dv = V.shape[1], U.shape[0], V.shape[0]
    R = lambda x: sympy.Rational(float(x))  # noqa: E731  floats are exact binary rationals
    Vq, Uq = sympy.Matrix(dv, n, [R(x) for x in V.ravel()]), sympy.Matrix(du, n, [R(x) for x in U.ravel()])
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    B = [p for p in pairs if lam0[p] > LP_FEASIBILITY_TOL * lam0.max()]
    if not B:
        return math.inf
    # a binding comparison with lambda_p = 0, left free, would be set to its
    # float value and miss t by a rounding error: bind it too
    slack = comparison_gaps(W0, V, U) - t0
    tol = LP_FEASIBILITY_TOL * (1 + _largest_comparison_entry(V, U))
    P = sorted(set(B) | {p for p in pairs if abs(slack[p]) <= tol})
    fixed = np.abs(W0) >= MAX_MARGIN_BOX * (1 - LP_FEASIBILITY_TOL)
    F = [(a, b) for a in range(du) for b in range(dv) if not fixed[a, b]]
    A = {p: (Uq[:, p[0]] - Uq[:, p[1]]) * Vq[:, p[0]].T for p in P}
    sgn = {(a, b): int(np.sign(W0[a, b])) for a in range(du) for b in range(dv) if fixed[a, b]}
    box = sympy.Rational(MAX_MARGIN_BOX)
    rows, rhs = [], []
    for p in P:  # <W, A_p> - t = 0
        rows.append([A[p][a, b] for a, b in F] + [-1] + [0] * len(B))
        rhs.append(-sum(A[p][a, b] * s * box for (a, b), s in sgn.items()))
    for a, b in F:  # (sum lambda A)_ab = 0 on the free entries
        rows.append([0] * (len(F) + 1) + [A[p][a, b] for p in B])
        rhs.append(0)
    rows.append([0] * (len(F) + 1) + [1] * len(B))
    rhs.append(1)
    x = _solve_near(sympy.Matrix(rows), sympy.Matrix(rhs), [W0[a, b] for a, b in F] + [t0] + [lam0[p] for p in B])
    if x is None:  # no solution on this support
        return math.inf
    Wq = sympy.Matrix(du, dv, lambda a, b: sgn.get((a, b), 0) * box)
    for q, (a, b) in enumerate(F):
        Wq[a, b] = x[q]
    t, lam = x[len(F)], {p: x[len(F) + 1 + q] for q, p in enumerate(B)}
    G = sum((lam[p] * A[p] for p in B), sympy.zeros(du, dv))
    WV = Wq * Vq
    gaps = [((Uq[:, i] - Uq[:, j]).T * WV[:, i])[0, 0] for i, j in pairs]
    defect = (max(0, t - min(gaps)) + max([0] + [abs(Wq[a, b]) - box for a, b in F])
              + max([0] + [-v for v in lam.values()]) + max([0] + [-s * G[a, b] for (a, b), s in sgn.items()]))
    defect = sympy.Rational(defect)
    return Fraction(int(defect.p), int(defect.q))


def _objective_inputs(W, keys, targets, ridge):
    V, U = _pairs(keys, targets)
    W = _memory(W, V, U, exact_ok=True)
    ridge = _float_scalar(ridge, "ridge")
    # an mpmath W is evaluated as given (a root found at raised precision is not rounded)
    return (W if number_kind(W) == MPMATH else mp_array(W)), mp_array(V), mp_array(U), mpmath.mpf(ridge)


def _ridged(W, Vm, Um, M, data, ridge):
    """(data + ridge ||W||^2, U M^T V^T + 2 ridge W) for ``M = d data / d S``."""
    grad = Um @ M.T @ Vm.T + 2 * ridge * W
    return data + ridge * mpmath.fsum(x * x for x in W.ravel()), grad


def cross_entropy_objective_mp(W: Any, keys: Any, targets: Any, *, ridge: Any) -> tuple[Any, np.ndarray]:
    """``(L(W), grad L(W))`` of the ridged softmax cross-entropy in mpmath at
    the working precision (``mpmath.workdps``), from its formula::

        L(W) = (1/n) sum_i [log sum_j e^{S_ij} - S_ii] + ridge ||W||_F^2,
        grad = (1/n) sum_ij (e^{S_ij} / sum_l e^{S_il} - delta_ij) u_j v_i^T + 2 ridge W.

    ``W`` may be float, mpmath (evaluated as given, not rounded) or exact;
    keys and targets are float.

    >>> with mpmath.workdps(30):
    ...     val, grad = cross_entropy_objective_mp(np.zeros((2, 2)), np.eye(2), np.eye(2), ridge=0.0)
    ...     mpmath.nstr(val, 12), grad.shape
    ('0.69314718056', (2, 2))
    """
    W, Vm, Um, ridge = _objective_inputs(W, keys, targets, ridge)
    n = Vm.shape[1]
    S = (Vm.T @ W.T) @ Um
    lse = [mpmath.log(mpmath.fsum(mpmath.exp(S[i, j]) for j in range(n))) for i in range(n)]
    data = mpmath.fsum(lse[i] - S[i, i] for i in range(n)) / n
    M = np.array([[mpmath.exp(S[i, j] - lse[i]) - int(i == j) for j in range(n)] for i in range(n)], dtype=object) / n
    return _ridged(W, Vm, Um, M, data, ridge)


def _smoothed_topk(s, k, beta):
    """(F_beta(s), dF/ds) with F = min_t t + (1/k) sum sp_beta(s_j - t): the
    minimiser solves (1/k) sum sigmoid(beta (s_j - t)) = 1, bracketed in
    [min s - c - 1, max s - c + 1], c = ln(k / (m - k)) / beta."""
    c = mpmath.log(mpmath.mpf(k) / (len(s) - k)) / beta
    g = lambda t: mpmath.fsum(1 / (1 + mpmath.exp(-beta * (x - t))) for x in s) / k - 1  # noqa: E731
    t = mpmath.findroot(g, (min(s) - c - 1, max(s) - c + 1), solver="anderson",
                        maxsteps=SMOOTHING_ROOT_STEPS_PER_BIT * mpmath.mp.prec)
    F = t + mpmath.fsum(mpmath.log1p(mpmath.exp(beta * (x - t))) for x in s) / (k * beta)
    return F, [1 / (1 + mpmath.exp(-beta * (x - t))) / k for x in s]


def tam_objective_mp(W: Any, keys: Any, targets: Any, *, k: int, beta: Any, ridge: Any) -> tuple[Any, np.ndarray]:
    """``(L(W), grad L(W))`` of the smoothed-TAM logistic ERM in mpmath at
    the working precision, from its formula::

        L(W) = (1/n) sum_i log(1 + e^{-m_i}) + ridge ||W||_F^2,  m_i = S_ii - F_beta(S_i,-i),

    ``F_beta`` the smoothed top-k average of the ``n - 1`` competitor scores
    (its minimiser found by a bracketed root search, not linmem's); the
    gradient by the envelope theorem, ``dF/dS_ij = sigmoid(beta (S_ij - t_i*)) / k``.
    Needs ``k < n - 1`` (the minimiser is attained).

    >>> with mpmath.workdps(30):
    ...     val, _ = tam_objective_mp(np.zeros((1, 1)), np.ones((1, 3)), np.ones((1, 3)), k=1, beta=1.0, ridge=0.0)
    ...     mpmath.nstr(val, 12)  # log(1 + e^F) = log 5: equal scores 0, F = 2 log 2
    '1.60943791243'
    """
    W, Vm, Um, ridge = _objective_inputs(W, keys, targets, ridge)
    n = Vm.shape[1]
    if n < 3:
        raise ValueError(f"keys must have at least 3 columns (k < n - 1 competitors), got {n}")
    k = _check_k(k, n - 2)
    beta = mpmath.mpf(check_positive_real(beta, "beta"))
    S = (Vm.T @ W.T) @ Um
    M = np.zeros((n, n), dtype=object) * mpmath.mpf(0)
    data = mpmath.mpf(0)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        F, p = _smoothed_topk([S[i, j] for j in others], k, beta)
        mi = S[i, i] - F
        data += mpmath.log1p(mpmath.exp(-mi)) / n
        M[i, i] = -1 / (1 + mpmath.exp(mi)) / n
        for j, pj in zip(others, p):
            M[i, j] = -M[i, i] * pj
    return _ridged(W, Vm, Um, M, data, ridge)


def stationary_point_mp(gradient: Callable[[np.ndarray], Any], W0: Any, *,
                        maxsteps: int = STATIONARY_MAXSTEPS) -> tuple[np.ndarray, Any]:
    """Newton's method (``mpmath.findroot``) on ``gradient`` from ``W0`` at
    the working precision: ``(W*, ||W* - W0||_F)``, ``W*`` an mpmath array of
    ``W0``'s shape. ``gradient(W)`` takes and returns arrays of that shape;
    the root is not verified here (the caller measures ``gradient(W*)``).

    >>> with mpmath.workdps(30):
    ...     W, dist = stationary_point_mp(lambda W: 2 * W - 1, np.zeros((1, 2)))
    ...     mpmath.nstr(W[0, 1], 10), mpmath.nstr(dist, 10)
    ('0.5', '0.7071067812')
    """
    if not callable(gradient):
        raise TypeError(f"gradient must be callable, got {type(gradient).__name__}")
    W0 = as_matrix(W0, "W0")
    maxsteps = check_positive_int(maxsteps, "maxsteps")
    start = mp_array(W0)
    shape = start.shape

    def f(*x):
        return list(np.asarray(gradient(np.array(x, dtype=object).reshape(shape))).ravel())

    x = mpmath.findroot(f, list(start.ravel()), tol=mpmath.eps, maxsteps=maxsteps, verify=False)
    x = [x[q] for q in range(start.size)] if isinstance(x, mpmath.matrix) else [x]
    root = np.array(x, dtype=object).reshape(shape)
    return root, mpmath.sqrt(mpmath.fsum((a - b) ** 2 for a, b in zip(root.ravel(), start.ravel())))
