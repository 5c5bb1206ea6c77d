"""Learned linear memories: max-margin LP, Gordan certificates, TAM, cross-entropy,
and the sparse repair of the correlation matrix memory.

Conventions follow :mod:`linmem.retrieval`: ``keys`` (``d_keys x n``) and
``targets`` (``d_targets x n``) hold vectors as columns, the memory ``W`` is
``d_targets x d_keys`` and ``S[i, j] = u_j^T W v_i``. Every top-1 comparison
of query ``i`` against competitor ``j`` is linear in ``W``::

    S_ii - S_ij = <W, A_ij>,    A_ij = (u_i - u_j) v_i^T,

so "some W retrieves every pair top-1" is a strict linear feasibility
problem, decided with scipy's HiGHS linear programming solver; Gordan's
theorem of the alternative supplies the certificate when it fails.

Source: seed 004 (top-1 achievability and the dual certificate, TAM
feasibility and smoothed TAM ERM, the softmax cross-entropy proxy, the sparse
repair construction).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog, minimize
from scipy.special import expit, logsumexp, softmax

from linmem._validation import (
    check_generator,
    check_memory,
    check_nonnegative_scalar,
    check_positive_int,
    check_same_count,
)
from linmem.retrieval import (
    _check_k,
    _check_positive_real,
    _float_matrix,
    _smoothed_topk_rows,
    margins,
    tam_margins,
)
from linmem.tolerances import working_eps

__all__ = [
    "CERTIFICATE_RESIDUAL_FACTOR",
    "ConvexFitResult",
    "DEFAULT_MAXITER",
    "DEFAULT_RIDGE",
    "GordanCertificate",
    "LP_FEASIBILITY_TOL",
    "LinearProgramError",
    "MARGIN_ROUNDING_ULPS",
    "MAX_MARGIN_BOX",
    "MaxMarginResult",
    "SMALL_BLOCK_LOG_POWER",
    "SparseRepairResult",
    "TamFeasibility",
    "comparison_matrices",
    "cross_entropy_memory",
    "default_small_block_width",
    "gordan_certificate",
    "max_margin_memory",
    "sparse_repair_memory",
    "tam_erm",
    "tam_feasible",
]

#: Box bound |W_ab| <= MAX_MARGIN_BOX that makes the max-margin LP bounded.
MAX_MARGIN_BOX = 1.0

#: Primal and dual feasibility tolerance handed to HiGHS (its own default).
#: Solutions it returns satisfy each constraint only to about this absolute
#: amount, which is what a lambda certificate is judged against.
LP_FEASIBILITY_TOL = 1e-7

#: A lambda certificate passes when
#: ||sum lambda_ij A_ij||_F <= CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL
#: * sum lambda_ij ||A_ij||_F (sum lambda = 1).
CERTIFICATE_RESIDUAL_FACTOR = 100

#: A W certificate passes when every S_ii - S_ij exceeds the rounding error of
#: computing it: MARGIN_ROUNDING_ULPS * (d_keys + d_targets) * eps
#: * ||W||_F * ||v_i|| * (||u_i|| + ||u_j||).
MARGIN_ROUNDING_ULPS = 32

#: Default ridge of the cross-entropy proxy (weak: the loss terms are O(1)).
DEFAULT_RIDGE = 1e-6

#: Default iteration cap of the L-BFGS-B fits.
DEFAULT_MAXITER = 500

#: The sparse repair's small block has width about d / (ln n)**SMALL_BLOCK_LOG_POWER.
SMALL_BLOCK_LOG_POWER = 1 / 8

_EPS = working_eps("float")
_HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": LP_FEASIBILITY_TOL,
    "dual_feasibility_tolerance": LP_FEASIBILITY_TOL,
}
_LAYOUTS = ("split", "overlay")


class LinearProgramError(RuntimeError):
    """HiGHS returned neither an optimum nor a proof of infeasibility, or
    neither side of an alternative could be verified."""


# --------------------------------------------------------------------------
# guards and the comparison matrices
# --------------------------------------------------------------------------


def _pairs(keys: Any, targets: Any) -> tuple[np.ndarray, np.ndarray]:
    V = _float_matrix(keys, "keys")
    U = _float_matrix(targets, "targets")
    check_same_count(V, U, "keys", "targets")
    if V.shape[1] < 2:
        raise ValueError(
            "keys must have at least 2 columns (every query needs a competitor), "
            f"got {V.shape[1]}"
        )
    return V, U


def _float_scalar(x: Any, name: str) -> float:
    """A finite nonnegative scalar as a float (a ridge, a margin target)."""
    x = check_nonnegative_scalar(x, name)
    try:
        return float(x)
    except OverflowError:  # an integer beyond float range
        raise ValueError(f"{name} must be a finite float >= 0, got an integer of "
                         f"{int(x).bit_length()} bits") from None


def _offdiagonal_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    I, J = np.nonzero(~np.eye(n, dtype=bool))
    return I, J


def _comparison_rows(V: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows vec(A_ij) (row-major vec) for all i != j, in the order of (I, J)."""
    d_v, n = V.shape
    d_u = U.shape[0]
    P = n * (n - 1)
    check_memory(P * (d_u * d_v + 2), 8, f"the {P} comparison matrices A_ij of the {n} keys and targets")
    I, J = _offdiagonal_pairs(n)
    G = U[:, I] - U[:, J]  # d_u x P
    H = V[:, I]  # d_v x P
    rows = (G[:, None, :] * H[None, :, :]).reshape(d_u * d_v, I.size).T
    return rows, I, J


def comparison_matrices(keys: Any, targets: Any) -> np.ndarray:
    """The comparison matrices ``A_ij = (u_i - u_j) v_i^T`` as an ``(n, n, d_t, d_k)`` array.

    ``<W, A_ij> = S_ii - S_ij``; the diagonal ``A_ii`` is zero. For small
    instances (certificate checks); refused when too large.

    Source: 004 (pairwise comparisons of the top-1 dual certificate).

    >>> import numpy as np
    >>> V, U = np.eye(2), np.array([[2.0, 1.0], [0.0, 3.0]])
    >>> W = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> S = V.T @ W.T @ U
    >>> A = comparison_matrices(V, U)
    >>> float(np.sum(W * A[0, 1])), float(S[0, 0] - S[0, 1])
    (-8.0, -8.0)
    """
    V, U = _pairs(keys, targets)
    d_v, n = V.shape
    d_u = U.shape[0]
    check_memory(n * n * d_u * d_v, 8, f"the n x n comparison matrices A_ij of the {n} keys and targets")
    diff = U.T[:, None, :] - U.T[None, :, :]  # (i, j, a) = u_i[a] - u_j[a]
    return diff[:, :, :, None] * V.T[:, None, None, :]


# --------------------------------------------------------------------------
# (a) max-margin memory and Gordan's alternative
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MaxMarginResult:
    """Solution of the max-margin LP: ``W``, its margin ``t`` and HiGHS's status."""

    W: np.ndarray
    margin: float
    status: int
    message: str


def max_margin_memory(keys: Any, targets: Any) -> MaxMarginResult:
    """Box-constrained max-margin linear memory, by linear programming (HiGHS).

    Solves ``max t  s.t.  <W, A_ij> >= t  for all i != j,  -1 <= W_ab <= 1``
    with ``A_ij = (u_i - u_j) v_i^T`` (so ``<W, A_ij> = S_ii - S_ij``). The
    optimum ``t* >= 0`` (``W = 0`` is feasible) and ``t* > 0`` exactly when
    some memory retrieves every pair top-1. By LP duality
    ``t* = min { ||sum lambda_ij A_ij||_1 : lambda >= 0, sum lambda = 1 }``
    (entrywise 1-norm).

    Source: 004 (top-1 achievability as linear feasibility).

    >>> import numpy as np
    >>> res = max_margin_memory(np.eye(2), np.eye(2))
    >>> res.status, round(res.margin, 6)
    (0, 2.0)
    """
    V, U = _pairs(keys, targets)
    return _solve_max_margin(V, U)[0]


def _solve_max_margin(
    V: np.ndarray, U: np.ndarray
) -> tuple[MaxMarginResult, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The max-margin LP with its comparison rows and dual multipliers.

    Returns ``(result, rows, I, J, lam)``: ``lam`` (one entry per row) are the
    multipliers of the margin constraints; they sum to 1 and, when the
    optimal margin is 0, satisfy ``sum lam A = 0`` up to the LP tolerance.
    """
    rows, I, J = _comparison_rows(V, U)
    P, D = rows.shape
    d_u, d_v = U.shape[0], V.shape[0]
    # variables x = (vec W, t); minimise -t subject to t - <W, A_ij> <= 0
    A_ub = np.hstack([-rows, np.ones((P, 1))])
    c = np.zeros(D + 1)
    c[-1] = -1.0
    bounds = [(-MAX_MARGIN_BOX, MAX_MARGIN_BOX)] * D + [(None, None)]
    res = linprog(
        c, A_ub=A_ub, b_ub=np.zeros(P), bounds=bounds, method="highs",
        options=_HIGHS_OPTIONS,
    )
    if res.status != 0:
        raise LinearProgramError(
            f"the max-margin LP should always have an optimum; HiGHS returned "
            f"status {res.status}: {res.message}"
        )
    W = res.x[:D].reshape(d_u, d_v)
    result = MaxMarginResult(W=W, margin=float(-res.fun), status=int(res.status),
                             message=str(res.message))
    return result, rows, I, J, -res.ineqlin.marginals


@dataclass(frozen=True, eq=False)
class GordanCertificate:
    """Exactly one side of Gordan's alternative for the top-1 comparisons.

    Either ``W`` (every ``<W, A_ij> > 0``: all pairs retrieved top-1) or
    ``lam`` (an ``n x n`` array, zero diagonal, ``lam >= 0``, summing to 1,
    with ``sum_ij lam_ij A_ij = 0``: no memory retrieves all pairs). The
    other field is ``None``. ``keys`` and ``targets`` are kept so that
    :meth:`verify` can recheck without the solver.
    """

    W: np.ndarray | None
    lam: np.ndarray | None
    keys: np.ndarray = field(repr=False)
    targets: np.ndarray = field(repr=False)

    @property
    def separable(self) -> bool:
        """True when the certificate is a retrieving memory ``W``."""
        return self.W is not None

    def scaled_ratio(self) -> float:
        """The certificate's figure against its threshold; it passes below 1.

        For ``W``: ``max_ij tau_ij / (S_ii - S_ij)`` with ``tau_ij`` the
        rounding bound ``MARGIN_ROUNDING_ULPS (d_k + d_t) eps ||W||_F ||v_i||
        (||u_i|| + ||u_j||)`` (``inf`` when a margin is not positive). For
        ``lam``: ``||sum lam_ij A_ij||_F / (sum lam_ij ||A_ij||_F)`` divided
        by ``CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL``.
        """
        V, U = self.keys, self.targets
        n = V.shape[1]
        off = ~np.eye(n, dtype=bool)
        nv = np.linalg.norm(V, axis=0)
        nu = np.linalg.norm(U, axis=0)
        if self.W is not None:
            S = (V.T @ self.W.T) @ U
            gaps = (np.diag(S)[:, None] - S)[off]
            tau = (
                MARGIN_ROUNDING_ULPS * (V.shape[0] + U.shape[0]) * _EPS
                * np.linalg.norm(self.W) * (nv[:, None] * (nu[:, None] + nu[None, :]))
            )[off]
            if np.any(gaps <= 0):
                return math.inf
            return float(np.max(tau / gaps))
        lam = self.lam
        # sum_ij lam_ij (u_i - u_j) v_i^T, without forming the A_ij
        coef = np.diag(lam.sum(axis=1)) - lam  # coef[i, j]: weight of u_j v_i^T
        R = U @ coef.T @ V.T
        residual = float(np.linalg.norm(R))
        if residual == 0:
            return 0.0
        normA = np.linalg.norm(U[:, :, None] - U[:, None, :], axis=0) * nv[:, None]
        scale = float(np.sum(lam * normA))
        if scale == 0:  # every A_ij in the support is zero: the sum is exactly 0
            return 0.0
        return (residual / scale) / (
            CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL
        )

    def verify(self) -> bool:
        """Recheck the returned side without the solver (see :meth:`scaled_ratio`).

        ``W``: every margin ``S_ii - S_ij`` is positive beyond rounding.
        ``lam``: nonnegative, zero diagonal, sums to 1 within ``n^2 eps``,
        and the combination ``sum lam_ij A_ij`` vanishes within the LP
        tolerance.
        """
        if (self.W is None) == (self.lam is None):
            return False
        if self.lam is not None:
            lam = self.lam
            n = self.keys.shape[1]
            if lam.shape != (n, n) or np.any(lam < 0) or np.any(np.diag(lam) != 0):
                return False
            if abs(lam.sum() - 1.0) > n * n * _EPS:
                return False
        return self.scaled_ratio() < 1.0


def _polish_lambda(rows: np.ndarray, lam0: np.ndarray) -> np.ndarray:
    """Refine a HiGHS vertex on its support so that sum lam A = 0 to rounding.

    The vertex solves ``[A_S; 1^T] lam_S = (0, 1)``; a least-squares correction
    on the support removes the solver's ~1e-7 residual. The unpolished
    (clipped) vector is kept when the correction would leave the orthant.
    """
    lam0 = np.clip(lam0, 0.0, None)
    lam0 = lam0 / lam0.sum()
    support = np.flatnonzero(lam0 > LP_FEASIBILITY_TOL * lam0.max())
    M = np.vstack([rows[support].T, np.ones((1, support.size))])
    rhs = np.zeros(M.shape[0])
    rhs[-1] = 1.0
    delta = np.linalg.lstsq(M, rhs - M @ lam0[support], rcond=None)[0]
    lam_s = lam0[support] + delta
    if np.any(lam_s < 0):
        return lam0
    lam = np.zeros_like(lam0)
    lam[support] = lam_s / lam_s.sum()
    return lam


def _lambda_certificate(
    lam_flat: np.ndarray, I: np.ndarray, J: np.ndarray, V: np.ndarray, U: np.ndarray
) -> GordanCertificate:
    n = V.shape[1]
    lam = np.zeros((n, n))
    lam[I, J] = lam_flat
    return GordanCertificate(W=None, lam=lam, keys=V, targets=U)


def gordan_certificate(keys: Any, targets: Any) -> GordanCertificate:
    """Decide whether some W retrieves all pairs top-1, with a certificate either way.

    Gordan's alternative for the comparison matrices ``A_ij = (u_i - u_j) v_i^T``:
    exactly one of

    (i) some ``W`` has ``<W, A_ij> > 0`` for every ``i != j``;
    (ii) some ``lambda >= 0``, ``lambda != 0``, has ``sum_ij lambda_ij A_ij = 0``.

    Decided with HiGHS: the max-margin LP (:func:`max_margin_memory`) gives
    (i) when its ``W`` passes the rounding-aware check of
    :meth:`GordanCertificate.verify`; otherwise the feasibility LP
    ``sum lambda A = 0, sum lambda = 1, lambda >= 0`` gives (ii) (its vertex
    is then polished on its support; the LP dual multipliers of the
    max-margin constraints are tried first, as they form such a dependence
    whenever the optimal margin is 0). Raises :class:`LinearProgramError` if
    neither side verifies (an instance numerically on the boundary).

    Source: 004 (impossibility via a nonnegative linear dependence).

    >>> import numpy as np
    >>> keys = np.array([[1.0, 1.0]])           # the same key twice ...
    >>> targets = np.array([[1.0, -1.0]])       # ... with different targets
    >>> cert = gordan_certificate(keys, targets)
    >>> cert.separable, cert.verify(), cert.lam.round(6).tolist()
    (False, True, [[0.0, 0.5], [0.5, 0.0]])
    """
    V, U = _pairs(keys, targets)
    n = V.shape[1]
    mm, rows, I, J, lam_dual = _solve_max_margin(V, U)
    if mm.margin > 0:
        cert = GordanCertificate(W=mm.W, lam=None, keys=V, targets=U)
        if cert.verify():
            return cert
    scale = np.max(np.abs(rows))
    if scale == 0:  # every A_ij = 0: any lambda is a dependence
        return _lambda_certificate(np.full(I.size, 1.0 / I.size), I, J, V, U)
    # LP duality: the multipliers of the margin constraints are a dependence
    # whenever the optimal margin is 0; try them before a second LP.
    if np.max(lam_dual) > 0:
        cert = _lambda_certificate(_polish_lambda(rows / scale, lam_dual), I, J, V, U)
        if cert.verify():
            return cert
    lam_flat = _dependence_lp(rows / scale)
    if lam_flat is None:
        raise LinearProgramError(
            "neither side of Gordan's alternative could be established: the "
            f"max-margin LP gave margin {mm.margin:.3e} that did not verify and "
            "the dependence LP is infeasible; the instance is numerically on "
            "the boundary of separability"
        )
    cert = _lambda_certificate(lam_flat, I, J, V, U)
    if not cert.verify():
        raise LinearProgramError(
            "the dependence found by HiGHS does not pass the residual check "
            f"(scaled ratio {cert.scaled_ratio():.3g}); the instance is "
            "numerically on the boundary of separability"
        )
    return cert


def _dependence_lp(rows: np.ndarray) -> np.ndarray | None:
    """Solve ``sum lam_p rows_p = 0, sum lam = 1, lam >= 0`` with HiGHS.

    Returns the polished ``lam`` or ``None`` when HiGHS proves infeasibility.
    """
    P = rows.shape[0]
    A_eq = np.vstack([rows.T, np.ones((1, P))])
    b_eq = np.zeros(A_eq.shape[0])
    b_eq[-1] = 1.0
    res = linprog(
        np.zeros(P), A_eq=A_eq, b_eq=b_eq, bounds=(0, None), method="highs",
        options=_HIGHS_OPTIONS,
    )
    if res.status == 2:
        return None
    if res.status != 0:
        raise LinearProgramError(
            f"the dependence LP returned status {res.status}: {res.message}"
        )
    return _polish_lambda(rows, res.x)


# --------------------------------------------------------------------------
# (b) TAM: feasibility LP and smoothed ERM
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TamFeasibility:
    """Outcome of the TAM feasibility LP.

    ``feasible``: some W has every TAM margin >= 1 (equivalently > 0, by
    positive homogeneity). ``W`` is such a memory (``None`` otherwise) and
    ``min_margin`` its smallest TAM margin recomputed directly.
    """

    feasible: bool
    W: np.ndarray | None
    min_margin: float
    status: int
    message: str


def tam_feasible(keys: Any, targets: Any, *, k: int) -> TamFeasibility:
    """Whether some W gives every query a positive tail-average margin (LP, HiGHS).

    TAM margin: ``S_ii - T_k(S_i,-i)`` with ``T_k`` the average of the ``k``
    largest competitor scores. It is positively homogeneous in ``W``, so all
    margins can be made ``> 0`` iff all can be made ``>= 1``. With the
    epigraph form ``T_k(s) = min_t t + (1/k) sum_j (s_j - t)_+`` this is the
    LP in ``(W, t_i, xi_ij)``::

        xi_ij >= S_ij - t_i,  xi_ij >= 0           (i != j)
        S_ii - t_i - (1/k) sum_j xi_ij >= 1         (every i)

    ``1 <= k <= n - 1``.

    Source: 004 (TAM retrieval; the convex top-k surrogate).

    >>> import numpy as np
    >>> tam_feasible(np.eye(3), np.eye(3), k=1).feasible
    True
    """
    V, U = _pairs(keys, targets)
    d_v, n = V.shape
    d_u = U.shape[0]
    k = _check_k(k, n - 1)
    D = d_u * d_v
    P = n * (n - 1)
    check_memory(P * (D + 2), 8, f"the {P} x {D} score rows of the TAM LP for the {n} keys and targets")
    I, J = _offdiagonal_pairs(n)
    # S_ij = <W, u_j v_i^T>: row-major vec is kron(u_j, v_i)
    S_rows = (U[:, J][:, None, :] * V[:, I][None, :, :]).reshape(D, P).T
    diag_rows = (U[:, None, :] * V[None, :, :]).reshape(D, n).T
    # variables x = (vec W [D], t [n], xi [P])
    pair_t = sp.csr_matrix((-np.ones(P), (np.arange(P), I)), shape=(P, n))
    block1 = sp.hstack([sp.csr_matrix(S_rows), pair_t, -sp.identity(P, format="csr")])
    xi_sum = sp.csr_matrix((np.full(P, 1.0 / k), (I, np.arange(P))), shape=(n, P))
    block2 = sp.hstack([sp.csr_matrix(-diag_rows), sp.identity(n, format="csr"), xi_sum])
    A_ub = sp.vstack([block1, block2]).tocsc()
    b_ub = np.concatenate([np.zeros(P), -np.ones(n)])
    bounds = [(None, None)] * (D + n) + [(0, None)] * P
    res = linprog(
        np.zeros(D + n + P), A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs",
        options=_HIGHS_OPTIONS,
    )
    if res.status == 2:
        return TamFeasibility(False, None, math.nan, int(res.status), str(res.message))
    if res.status != 0:
        raise LinearProgramError(
            f"the TAM feasibility LP returned status {res.status}: {res.message}"
        )
    W = res.x[:D].reshape(d_u, d_v)
    m = float(np.min(tam_margins(W, V, U, k=k)))
    return TamFeasibility(True, W, m, int(res.status), str(res.message))


@dataclass(frozen=True, eq=False)
class ConvexFitResult:
    """A memory fitted by L-BFGS-B.

    ``loss`` is the full objective (data term + ridge), ``data_loss`` the
    data term alone, ``norm`` is ``||W||_F``.
    """

    W: np.ndarray
    loss: float
    data_loss: float
    norm: float
    n_iter: int
    converged: bool
    message: str


def _initial(init: Any, shape: tuple[int, int]) -> np.ndarray:
    if init is None:
        return np.zeros(shape)
    W0 = _float_matrix(init, "init")
    if W0.shape != shape:
        raise ValueError(f"init must have shape {shape}, got {W0.shape}")
    return W0


def _tam_loss_grad(
    W: np.ndarray, V: np.ndarray, U: np.ndarray, k: int, beta: float, ridge: float
) -> tuple[float, float, np.ndarray]:
    """(objective, data loss, gradient) of the smoothed-TAM logistic ERM."""
    n = V.shape[1]
    S = (V.T @ W.T) @ U
    off = ~np.eye(n, dtype=bool)
    C = S[off].reshape(n, n - 1)
    F, Pw = _smoothed_topk_rows(C, k, beta)
    m = np.diag(S) - F
    data = float(np.mean(np.logaddexp(0.0, -m)))
    g = -expit(-m) / n  # d data / d m_i
    # d m_i / dW = (u_i - sum_j P_ij u_j) v_i^T, P_ij the smoothing weights
    Pfull = np.zeros((n, n))
    Pfull[off] = Pw.ravel()
    M = g[:, None] * (np.eye(n) - Pfull)
    grad = U @ M.T @ V.T + 2.0 * ridge * W
    return data + ridge * float(np.sum(W * W)), data, grad


def _fit(fun_grad, W0: np.ndarray, maxiter: int) -> tuple[np.ndarray, Any]:
    shape = W0.shape

    def f(x: np.ndarray) -> tuple[float, np.ndarray]:
        val, _, grad = fun_grad(x.reshape(shape))
        return val, grad.ravel()

    res = minimize(f, W0.ravel(), jac=True, method="L-BFGS-B",
                   options={"maxiter": maxiter})
    return res.x.reshape(shape), res


def tam_erm(
    keys: Any,
    targets: Any,
    *,
    k: int,
    beta: float,
    ridge: float = 0.0,
    maxiter: int = DEFAULT_MAXITER,
    init: Any = None,
) -> ConvexFitResult:
    """Smoothed-TAM logistic ERM, ridgeless or weakly ridged (L-BFGS-B).

    Minimises the convex objective::

        L(W) = (1/n) sum_i log(1 + exp(-(S_ii - F_beta(S_i,-i))))
               + ridge ||W||_F^2

    with ``F_beta`` the smoothed top-k average of
    :func:`linmem.retrieval.smoothed_topk_average`. Gradient (envelope
    theorem): ``(1/n) sum_i -sigmoid(-m_i) (u_i - sum_j p_ij u_j) v_i^T
    + 2 ridge W``, ``p_ij = sigmoid(beta (S_ij - t_i*)) / k``. With
    ``ridge = 0`` in the separable phase the loss has no minimiser and the
    fit stops at ``maxiter`` or the gradient tolerance. ``init`` (default
    zero) is the starting memory.

    Source: 004 (TAM learning: logistic loss, ridge, exponentially smoothed TAM).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> V, U = rng.standard_normal((2, 6, 12)) / np.sqrt(6)
    >>> fit = tam_erm(V, U, k=3, beta=10.0, ridge=1e-3)
    >>> bool(fit.loss < np.log(2))
    True
    """
    V, U = _pairs(keys, targets)
    n = V.shape[1]
    k = _check_k(k, n - 1)
    beta = _check_positive_real(beta, "beta")
    ridge = _float_scalar(ridge, "ridge")
    maxiter = check_positive_int(maxiter, "maxiter")
    check_memory(n * n, 8, f"the {n} x {n} score matrix of the ERM (n = columns of keys)")
    W0 = _initial(init, (U.shape[0], V.shape[0]))
    W, res = _fit(lambda W: _tam_loss_grad(W, V, U, k, beta, ridge), W0, maxiter)
    loss, data, _ = _tam_loss_grad(W, V, U, k, beta, ridge)
    return ConvexFitResult(W, loss, data, float(np.linalg.norm(W)), int(res.nit),
                           bool(res.success), str(res.message))


def _ce_loss_grad(
    W: np.ndarray, V: np.ndarray, U: np.ndarray, ridge: float
) -> tuple[float, float, np.ndarray]:
    """(objective, data loss, gradient) of the ridged softmax cross-entropy."""
    n = V.shape[1]
    S = (V.T @ W.T) @ U
    data = float(np.mean(logsumexp(S, axis=1) - np.diag(S)))
    M = (softmax(S, axis=1) - np.eye(n)) / n  # d data / d S_ij
    grad = U @ M.T @ V.T + 2.0 * ridge * W
    return data + ridge * float(np.sum(W * W)), data, grad


def cross_entropy_memory(
    keys: Any,
    targets: Any,
    *,
    ridge: float = DEFAULT_RIDGE,
    maxiter: int = DEFAULT_MAXITER,
    init: Any = None,
) -> ConvexFitResult:
    """Weakly ridged softmax cross-entropy memory over the n candidates (L-BFGS-B).

    Minimises ``(1/n) sum_i [logsumexp_j S_ij - S_ii] + ridge ||W||_F^2``
    with gradient ``(1/n) sum_ij (softmax(S_i)_j - delta_ij) u_j v_i^T
    + 2 ridge W``. Returns the memory, the loss and ``||W||_F`` (whose peak
    over the load tracks the finite-size top-1 threshold).

    Source: 004 (finite-size cross-entropy proxy).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> V, U = rng.standard_normal((2, 8, 10)) / np.sqrt(8)
    >>> fit = cross_entropy_memory(V, U, ridge=1e-3)
    >>> bool(fit.data_loss < np.log(10))
    True
    """
    V, U = _pairs(keys, targets)
    n = V.shape[1]
    ridge = _float_scalar(ridge, "ridge")
    maxiter = check_positive_int(maxiter, "maxiter")
    check_memory(n * n, 8, f"the {n} x {n} score matrix of the cross-entropy (n = columns of keys)")
    W0 = _initial(init, (U.shape[0], V.shape[0]))
    W, res = _fit(lambda W: _ce_loss_grad(W, V, U, ridge), W0, maxiter)
    loss, data, _ = _ce_loss_grad(W, V, U, ridge)
    return ConvexFitResult(W, loss, data, float(np.linalg.norm(W)), int(res.nit),
                           bool(res.success), str(res.message))


# --------------------------------------------------------------------------
# (d) sparse repair of the correlation matrix memory
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SparseRepairResult:
    """The repaired memory and its parts.

    ``large``/``small``: coordinate indices of the two blocks; ``deficient``:
    queries whose CMM margin was below ``gamma``; ``weights``: the
    correction weight ``c_i`` of each deficient query (same order);
    ``cmm_margins``: the margins that defined the deficient set.
    """

    W: np.ndarray
    large: np.ndarray
    small: np.ndarray
    deficient: np.ndarray
    weights: np.ndarray
    cmm_margins: np.ndarray


def default_small_block_width(d: int, n: int) -> int:
    """Width of the repair's small block: ``round(d / (ln n)^(1/8))`` clipped to ``1..d-1``.

    The 1/8 power makes the block a vanishing fraction of ``d`` only
    asymptotically: at ``n = 1000`` it is still about 79% of ``d``.

    Source: 004 (sparse repair: small block of width about d / (log n)^(1/8)).

    >>> default_small_block_width(100, 1000)
    79
    """
    d = check_positive_int(d, "d", minimum=2)
    n = check_positive_int(n, "n", minimum=2)
    width = round(d / math.log(n) ** SMALL_BLOCK_LOG_POWER)
    return min(max(width, 1), d - 1)


def sparse_repair_memory(
    keys: Any,
    targets: Any,
    *,
    gamma: float,
    small_block_width: int | None = None,
    layout: str = "overlay",
    rng: np.random.Generator | None = None,
) -> SparseRepairResult:
    """CMM plus a one-shot outer-product correction of its deficient queries.

    The ``d`` coordinates (of keys and targets alike; both must have the same
    dimension) are split into a large block ``L`` and a small block ``B`` of
    width ``small_block_width`` (default :func:`default_small_block_width`);
    ``B`` is the last coordinates, or a random subset when ``rng`` is given.
    Write ``x^B`` for the restriction of ``x`` to ``B``.

    * ``layout="split"`` (the 004 construction as stated): ``W`` is block
      diagonal; on ``L x L`` it stores the rescaled CMM
      ``(d/|L|)^2 sum_l u_l^L v_l^L^T`` (matched signal about 1), and the
      CMM margins ``m_i`` are those of this block alone.
    * ``layout="overlay"`` (default, the finite-size variant): the CMM
      ``sum_l u_l v_l^T`` over all coordinates, with ``m_i`` its margins; the
      correction is added on ``B x B``. It keeps all of CMM's signal.

    Deficient set ``D = {i : m_i < gamma}``. Correction on ``B x B``::

        sum_{i in D} c_i u_i^B v_i^B^T,   c_i = (gamma - m_i) / (||u_i^B||^2 ||v_i^B||^2)

    so each deficient query's own term lifts its matched score by exactly
    its deficit ``gamma - m_i`` (the cross terms are the crosstalk the
    construction pays). The 004 analysis needs ``|B| = o(d)`` and a small
    deficient set. At moderate ``n`` neither holds: the default width is
    about 0.8 d for n in the hundreds to thousands, and the split layout then
    retrieves far fewer pairs than plain CMM (its large block keeps a fifth of
    the coordinates); even with ``|B| = d/8`` it only matches CMM near load
    ratio 8. The overlay layout retrieves at least as many pairs as CMM on
    average in every regime tested (d^2 / (n ln n) from 3 to 8, n = 300 and
    1000), and nearly all of them from ratio 4 up.

    Source: 004 (top-1 achievability via CMM plus sparse repair).

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> V, U = rng.standard_normal((2, 40, 60)) / np.sqrt(40)
    >>> rep = sparse_repair_memory(V, U, gamma=0.1, small_block_width=8, layout="split")
    >>> rep.W.shape, rep.small.size, bool(np.all(rep.W[:32, 32:] == 0))
    ((40, 40), 8, True)
    """
    V, U = _pairs(keys, targets)
    d, n = V.shape
    if U.shape[0] != d:
        raise ValueError(
            "keys and targets must have the same dimension for the block split, "
            f"got {d} and {U.shape[0]} rows"
        )
    if d < 2:
        raise ValueError(f"keys must have at least 2 rows to split into blocks, got {d}")
    gamma = _float_scalar(gamma, "gamma")
    if not isinstance(layout, str) or layout not in _LAYOUTS:
        raise ValueError(f"layout must be one of {_LAYOUTS}, got {layout!r}")
    if small_block_width is None:
        s = default_small_block_width(d, n)
    else:
        s = check_positive_int(small_block_width, "small_block_width")
        if s > d - 1:
            raise ValueError(
                f"small_block_width must be an integer in 1..{d - 1}, got {s}"
            )
    check_memory(d * d, 8, f"the {d} x {d} repaired memory W (d = rows of keys)")
    if rng is None:
        small = np.arange(d - s, d)
    else:
        rng = check_generator(rng, "rng")
        small = np.sort(rng.choice(d, size=s, replace=False))
    large = np.setdiff1d(np.arange(d), small)

    if layout == "split":
        W = np.zeros((d, d))
        W[np.ix_(large, large)] = (d / large.size) ** 2 * (U[large] @ V[large].T)
    else:
        W = U @ V.T
    m = margins(W, V, U)
    deficient = np.flatnonzero(m < gamma)
    us, vs = U[small][:, deficient], V[small][:, deficient]
    energy = np.sum(us * us, axis=0) * np.sum(vs * vs, axis=0)
    # a deficient key with no energy on the small block cannot be lifted there
    weights = np.zeros(deficient.size)
    ok = energy > 0
    weights[ok] = (gamma - m[deficient[ok]]) / energy[ok]
    W[np.ix_(small, small)] += (us * weights) @ vs.T
    return SparseRepairResult(W, large, small, deficient, weights, m)
