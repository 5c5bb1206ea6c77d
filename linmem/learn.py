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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, linprog, minimize
from scipy.special import expit, logsumexp, softmax
from threadpoolctl import threadpool_limits

from linmem._validation import (
    check_generator,
    check_memory,
    check_nonnegative_scalar,
    check_positive_int,
    check_positive_real,
    check_same_count,
)
from linmem.retrieval import (
    DEFAULT_CHUNK_ROWS,
    _check_k,
    _float_matrix,
    _row_blocks,
    _smoothed_topk_rows,
    margins,
    tam_margins,
)
from linmem.tolerances import (CERTIFICATE_RESIDUAL_FACTOR, FIT_GRADIENT_TOL, LP_FEASIBILITY_TOL, MARGIN_ROUNDING_ULPS,
                                working_eps)

__all__ = [
    "CERTIFICATE_RESIDUAL_FACTOR",
    "CUTTING_PLANE_AUTO_ENTRIES",
    "CUTTING_PLANE_BOUND_GAP",
    "CUTTING_PLANE_MAX_ROUNDS",
    "CUTTING_PLANE_PER_KEY",
    "CUTTING_PLANE_START_BETAS",
    "CUTTING_PLANE_START_FACTOR",
    "CUTTING_PLANE_START_MAXITER",
    "CUTTING_PLANE_START_MIN_ENTRIES",
    "ConvexFitResult",
    "DEFAULT_MAXITER",
    "DEFAULT_RIDGE",
    "FIT_GRADIENT_TOL",
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
    "fit_gradient_allowance",
    "gordan_certificate",
    "max_margin_memory",
    "sparse_repair_memory",
    "tam_erm",
    "tam_feasible",
]

#: Box bound |W_ab| <= MAX_MARGIN_BOX that makes the max-margin LP bounded.
MAX_MARGIN_BOX = 1.0

#: The max-margin LP's ``method="auto"`` takes the cutting plane when the dense
#: comparison rows would hold more than this many numbers (n (n - 1) d_k d_t).
CUTTING_PLANE_AUTO_ENTRIES = 20_000

#: Comparisons added per key and round by the cutting plane.
CUTTING_PLANE_PER_KEY = 2

#: The cutting plane starts from the CUTTING_PLANE_START_FACTOR * (d_k d_t + 1)
#: comparisons with the smallest gaps under the soft-minimum memory (a vertex
#: of the LP has at most d_k d_t + 1 binding comparisons). At d = 20, n = 80
#: the 1.5 (d^2 + 1) smallest held every one of the 363 binding comparisons.
CUTTING_PLANE_START_FACTOR = 1.5

#: The cutting plane takes that soft-minimum start when the memory has at
#: least this many entries d_k d_t; below, each key's CUTTING_PLANE_PER_KEY
#: strongest correlation-memory competitors are the first working set. On a
#: busy host the soft-min start won from d = 16 on, separable or not
#: (d = 16, n = 100, t* = 0: 4.0 s against 4.3 s; d = 20, n = 120: 16 s
#: against 23 s), and was mixed at d = 12 (n = 40: 0.9 s against 1.8 s;
#: n = 80, t* = 0: 1.03 s against 0.72 s) and slower at d = 8, where its
#: L-BFGS-B fits cost more than the LP (n = 80: 0.31 s against 0.17 s).
CUTTING_PLANE_START_MIN_ENTRIES = 200

#: Sharpness schedule of the soft-minimum start, in units of 1 / (mean |S_ij|)
#: under the box-normalised correlation memory; each stage is an L-BFGS-B fit
#: of at most CUTTING_PLANE_START_MAXITER iterations from the last.
CUTTING_PLANE_START_BETAS = (3.0, 30.0, 300.0)

#: Iteration cap of each stage of the soft-minimum start.
CUTTING_PLANE_START_MAXITER = 100

#: The first LP of the soft-minimum start begins from a guessed basis in which
#: entries of that memory within this distance of the box sit at the bound
#: (d = 20, n = 80: 346 simplex iterations at 1e-2, 426 at 1e-3, 362 at 3e-2,
#: 1545 from the slack basis).
CUTTING_PLANE_BOUND_GAP = 1e-2

#: The cutting plane gives up (LinearProgramError) after this many LP solves.
CUTTING_PLANE_MAX_ROUNDS = 500

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
_METHODS = ("auto", "dense", "cutting-plane")


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


def _binary_exponent(X: np.ndarray) -> int:
    """The ``e`` with ``max |X| / 2**e`` in ``(1/2, 1]`` (0 for an all-zero ``X``)."""
    m = float(np.max(np.abs(X))) if X.size else 0.0
    if m == 0:
        return 0
    mant, e = math.frexp(m)
    return e - 1 if mant == 0.5 else e


def _normalised(V: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Keys and targets divided by powers of two to max-abs entries in ``(1/2, 1]``.

    Returns ``(V', U', e)`` with ``V = 2**e_v V'``, ``U = 2**e_u U'`` and
    ``e = e_v + e_u``: every comparison ``<W, A_ij>`` and score is ``2**e``
    times its normalised value, exactly in binary (division by a power of
    two rounds only entries that fall below the normal range, which are
    below ``2**-1022`` of the largest). The LPs see O(1) data, so HiGHS's
    absolute tolerances mean the same at every scale of the inputs.
    """
    ev, eu = _binary_exponent(V), _binary_exponent(U)
    return np.ldexp(V, -ev), np.ldexp(U, -eu), ev + eu


def _rescaled_margin(t: float, e: int) -> float:
    """``t * 2**e``, or ValueError when a positive margin is beyond float range."""
    try:
        out = math.ldexp(t, e)
    except OverflowError:
        out = math.inf
    if not math.isfinite(out) or (t > LP_FEASIBILITY_TOL and out == 0):
        raise ValueError(
            f"keys and targets: the margin is {t!r} x 2**{e} for these inputs, outside float64's range "
            f"(about 4.9e-324 to 1.8e308); scale keys or targets so that max|keys| x max|targets| is nearer 1")
    return out


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
    """Solution of the max-margin LP: ``W``, its margin ``t`` and HiGHS's status.

    ``multipliers`` (``n x n``, zero diagonal, ``>= 0``, summing to 1) are the
    LP dual multipliers ``lambda_ij`` of the comparisons ``<W, A_ij> >= t``;
    with ``W`` they satisfy the LP's optimality conditions (zero off the
    comparisons that bind). ``method`` is the solver path taken (``"dense"``
    or ``"cutting-plane"``), ``rounds`` the number of LP solves and
    ``comparisons`` the number of comparisons in the final LP (all
    ``n (n - 1)`` for the dense path).
    """

    W: np.ndarray
    margin: float
    status: int
    message: str
    multipliers: np.ndarray | None = field(default=None, repr=False)
    method: str = "dense"
    rounds: int = 1
    comparisons: int = 0


def max_margin_memory(keys: Any, targets: Any, *, method: str = "auto") -> MaxMarginResult:
    """Box-constrained max-margin linear memory, by linear programming (HiGHS).

    Solves ``max t  s.t.  <W, A_ij> >= t  for all i != j,  -1 <= W_ab <= 1``
    with ``A_ij = (u_i - u_j) v_i^T`` (so ``<W, A_ij> = S_ii - S_ij``). The
    optimum ``t* >= 0`` (``W = 0`` is feasible) and ``t* > 0`` exactly when
    some memory retrieves every pair top-1. By LP duality
    ``t* = min { ||sum lambda_ij A_ij||_1 : lambda >= 0, sum lambda = 1 }``
    (entrywise 1-norm). Under positive scalings ``keys * a``,
    ``targets * b`` the box stays, the comparisons scale by ``a b``, so the
    same ``W`` and multipliers are optimal and ``t*`` becomes ``a b t*``: the
    LP is solved on the instance divided by powers of two to max-abs entries
    in ``(1/2, 1]`` and its margin multiplied back (ValueError when that
    margin is beyond float64's range).

    ``method``:

    * ``"dense"``: one LP with all ``n (n - 1)`` comparisons (``d^2``
      columns, memory ``n^2 d^2``);
    * ``"cutting-plane"``: constraint generation on one warm-started HiGHS
      model. From ``CUTTING_PLANE_START_MIN_ENTRIES`` memory entries on it starts
      from the ``CUTTING_PLANE_START_FACTOR * (d_k d_t + 1)`` comparisons
      with the smallest gaps under the maximiser of a soft minimum of the
      gaps (L-BFGS-B in the box), which at d = 20 already holds every
      binding one, and a basis guessed from that memory; on smaller
      memories from the ``CUTTING_PLANE_PER_KEY``
      strongest competitors of each key under the correlation memory. After
      each solve it adds, per key, the ``CUTTING_PLANE_PER_KEY`` most violated
      comparisons (``S_ii - S_ij < t - LP_FEASIBILITY_TOL``, the same
      absolute rule HiGHS applies to the rows of the dense LP), found with the
      chunked scorer of :mod:`linmem.retrieval` (the ``n x n`` score matrix is
      never formed whole). It stops when none is violated: the memory is then
      feasible for every comparison to the dense LP's tolerance, and as the
      restricted LP is a relaxation its optimum is the dense one (``t*`` to
      that tolerance; the multipliers, zero on comparisons never added, are
      dual feasible for the full LP);
    * ``"auto"`` (default): the cutting plane when the dense comparison rows
      would hold more than ``CUTTING_PLANE_AUTO_ENTRIES`` numbers, else dense.

    Source: 004 (top-1 achievability as linear feasibility); constraint
    generation is the standard cutting-plane method for LPs with many rows.

    >>> import numpy as np
    >>> res = max_margin_memory(np.eye(2), np.eye(2))
    >>> res.status, round(res.margin, 6)
    (0, 2.0)
    >>> rng = np.random.default_rng(0)
    >>> V, U = rng.standard_normal((2, 4, 12)) / 2
    >>> dense = max_margin_memory(V, U, method="dense")
    >>> cp = max_margin_memory(V, U, method="cutting-plane")
    >>> bool(abs(dense.margin - cp.margin) < 1e-6), cp.comparisons < dense.comparisons
    (True, True)
    """
    V, U = _pairs(keys, targets)
    method = _check_method(method)
    Vn, Un, e = _normalised(V, U)
    res = _max_margin(Vn, Un, method)[0]
    return replace(res, margin=_rescaled_margin(res.margin, e))


def _check_method(method: Any) -> str:
    if not isinstance(method, str) or method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    return method


def _resolve_method(method: str, V: np.ndarray, U: np.ndarray) -> str:
    if method != "auto":
        return method
    n = V.shape[1]
    entries = n * (n - 1) * V.shape[0] * U.shape[0]
    return "cutting-plane" if entries > CUTTING_PLANE_AUTO_ENTRIES else "dense"


def _max_margin(
    V: np.ndarray, U: np.ndarray, method: str
) -> tuple[MaxMarginResult, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The max-margin LP by ``method``, with the comparison rows it ended with.

    Returns ``(result, rows, I, J, lam)``: ``rows[p] = vec A_{I[p] J[p]}`` for
    the comparisons of the final LP (all of them for the dense path) and
    ``lam`` their multipliers (summing to 1; when the optimal margin is 0
    they satisfy ``sum lam A = 0`` up to the LP tolerance).
    """
    if _resolve_method(method, V, U) == "dense":
        return _solve_max_margin(V, U)
    return _cutting_plane_max_margin(V, U)


def _multiplier_matrix(n: int, I: np.ndarray, J: np.ndarray, lam: np.ndarray) -> np.ndarray:
    out = np.zeros((n, n))
    out[I, J] = np.clip(lam, 0.0, None)
    return out


def _solve_max_margin(
    V: np.ndarray, U: np.ndarray
) -> tuple[MaxMarginResult, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The dense max-margin LP with its comparison rows and dual multipliers.

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
    lam = -res.ineqlin.marginals
    result = MaxMarginResult(W=W, margin=float(-res.fun), status=int(res.status),
                             message=str(res.message),
                             multipliers=_multiplier_matrix(V.shape[1], I, J, lam),
                             method="dense", rounds=1, comparisons=int(P))
    return result, rows, I, J, lam


def _pair_rows(V: np.ndarray, U: np.ndarray, I: np.ndarray, J: np.ndarray) -> np.ndarray:
    """Rows vec(A_ij) (row-major) for the listed pairs only."""
    G = U[:, I] - U[:, J]
    H = V[:, I]
    return (G[:, None, :] * H[None, :, :]).reshape(U.shape[0] * V.shape[0], I.size).T


def _strongest_competitors(
    W: np.ndarray, V: np.ndarray, U: np.ndarray, per_key: int, threshold: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per key ``i``, up to ``per_key`` competitors ``j`` with the smallest
    gaps ``S_ii - S_ij`` (chunked scorer), restricted to gaps below
    ``threshold`` when one is given. Returns the pairs ``(I, J)``."""
    n = V.shape[1]
    m = min(per_key, n - 1)
    out_i, out_j = [], []
    for start, block, diag in _row_blocks(W, V, U, DEFAULT_CHUNK_ROWS):
        gaps = block[diag][:, None] - block
        gaps[diag] = np.inf
        cols = np.argpartition(gaps, m - 1, axis=1)[:, :m]
        g = np.take_along_axis(gaps, cols, axis=1)
        rows = np.broadcast_to(np.arange(start, start + block.shape[0])[:, None], cols.shape)
        keep = np.isfinite(g) if threshold is None else g < threshold
        out_i.append(rows[keep])
        out_j.append(cols[keep])
    return np.concatenate(out_i), np.concatenate(out_j)


def _soft_min_memory(V: np.ndarray, U: np.ndarray) -> np.ndarray:
    """A box-feasible memory near the max-margin optimum: the maximiser of the
    soft minimum ``-(1/beta) log sum_{i != j} exp(-beta (S_ii - S_ij))`` over
    ``|W_ab| <= 1`` (L-BFGS-B), sharpened along ``CUTTING_PLANE_START_BETAS``
    from the box-normalised correlation memory, with the chunked scorer.

    Only a starting guess for the cutting plane's working set: any memory
    gives the same LP optimum, this one makes the first LP nearly the last.
    """
    d_u, d_v = U.shape[0], V.shape[0]
    W = U @ V.T
    peak = float(np.abs(W).max())
    if not (math.isfinite(peak) and peak > 0):
        return np.zeros((d_u, d_v))
    W = W / peak
    unit = float(np.mean([np.abs(block).mean() for _, block, _ in _row_blocks(W, V, U, DEFAULT_CHUNK_ROWS)]))
    if not (math.isfinite(unit) and unit > 0):
        return W
    # one BLAS thread: L-BFGS-B's vector updates on a few hundred entries run
    # 10-20x slower on multithreaded OpenBLAS when the cores are busy
    with threadpool_limits(limits=1, user_api="blas"):
        for beta in CUTTING_PLANE_START_BETAS:
            fun = _soft_min_value_grad(V, U, beta / unit)
            W = minimize(fun, W.ravel(), jac=True, method="L-BFGS-B", bounds=Bounds(-MAX_MARGIN_BOX, MAX_MARGIN_BOX),
                         options={"maxiter": CUTTING_PLANE_START_MAXITER}).x.reshape(d_u, d_v)
    return W


def _soft_min_value_grad(V: np.ndarray, U: np.ndarray, beta: float):
    """``x -> (f, grad f)`` of ``f(W) = (1/beta) log sum_{i != j} exp(-beta g_ij)``,
    ``g_ij = S_ii - S_ij``, by row blocks of ``S``: the gradient is
    ``-sum p_ij (u_i - u_j) v_i^T`` with ``p`` the softmax weights."""
    d_u, d_v = U.shape[0], V.shape[0]

    def fun(x: np.ndarray) -> tuple[float, np.ndarray]:
        logs, grads = [], []
        for start, block, diag in _row_blocks(x.reshape(d_u, d_v), V, U, DEFAULT_CHUNK_ROWS):
            z = beta * (block - block[diag][:, None])  # -beta g_ij
            z[diag] = -np.inf
            top = z.max()
            p = np.exp(z - top)
            total = p.sum()
            p /= total
            Vb = V[:, start:start + block.shape[0]]
            grads.append(U @ (p.T @ Vb.T) - (U[:, start:start + block.shape[0]] * p.sum(axis=1)) @ Vb.T)
            logs.append(top + math.log(total))
        logs_arr = np.array(logs)
        value = float(logsumexp(logs_arr))
        weights = np.exp(logs_arr - value)
        return value / beta, sum(w * g for w, g in zip(weights, grads)).ravel()

    return fun


def _smallest_gaps(W: np.ndarray, V: np.ndarray, U: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` comparisons ``(I, J)`` with the smallest gaps ``S_ii - S_ij``
    under ``W`` over all ``i != j`` (chunked scorer; ties broken arbitrarily)."""
    n = V.shape[1]
    k = min(k, n * (n - 1))
    keep_i, keep_j, keep_g = np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp), np.empty(0)
    for start, block, diag in _row_blocks(W, V, U, DEFAULT_CHUNK_ROWS):
        gaps = block[diag][:, None] - block
        gaps[diag] = np.inf
        flat = gaps.ravel()
        m = min(k, flat.size)
        idx = np.argpartition(flat, m - 1)[:m]
        rows, cols = np.divmod(idx, n)
        keep_i = np.concatenate([keep_i, rows + start])
        keep_j = np.concatenate([keep_j, cols])
        keep_g = np.concatenate([keep_g, flat[idx]])
        if keep_g.size > k:
            best = np.argpartition(keep_g, k - 1)[:k]
            keep_i, keep_j, keep_g = keep_i[best], keep_j[best], keep_g[best]
    finite = np.isfinite(keep_g)
    return keep_i[finite], keep_j[finite]


def _set_guessed_basis(h: Any, guess: np.ndarray, k: int) -> None:
    """Start HiGHS from the vertex the soft-minimum memory points at.

    Entries of ``guess`` within ``CUTTING_PLANE_BOUND_GAP`` of the box start
    nonbasic at that bound, the others and ``t`` basic; of the
    ``k`` comparison rows (sorted by their gap under ``guess``) the first
    ``free + 1`` start binding, so the basis is square. Only a start: HiGHS
    repairs a singular guess with slacks and the simplex ends at the LP's
    optimum from any basis (at d = 32, n = 130 the first solve took 984
    iterations, 42 s on a busy host, against more than 120 s from the
    slack basis). A guess near singular (duplicated keys give equal rows)
    can still stop HiGHS; the caller then solves from the slack basis."""
    import highspy

    status = highspy.HighsBasisStatus
    w = guess.ravel()
    free = np.abs(w) < MAX_MARGIN_BOX - CUTTING_PLANE_BOUND_GAP
    cols = np.where(free, status.kBasic, np.where(w > 0, status.kUpper, status.kLower)).tolist()
    binding = min(k, int(free.sum()) + 1)
    basis = highspy.HighsBasis()
    basis.col_status = cols + [status.kBasic]
    basis.row_status = [status.kUpper] * binding + [status.kBasic] * (k - binding)
    basis.valid = True
    h.setBasis(basis)


def _silent_highs() -> Any:
    """A HiGHS instance that prints nothing.

    highspy 1.16's ``Highs()`` prints its banner while enabling callbacks in
    its constructor, before ``output_flag`` can be set (it interrupted
    ``theorems verify``'s progress lines); the core class it extends has every
    method used here and no callbacks to enable.
    """
    import highspy

    core = getattr(getattr(highspy, "_core", None), "_Highs", None)
    h = core() if core is not None else highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


def _cutting_plane_max_margin(
    V: np.ndarray, U: np.ndarray, stop_after: int | None = None, start: str = "auto"
) -> tuple[MaxMarginResult, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The max-margin LP by constraint generation (see :func:`max_margin_memory`).

    ``stop_after`` returns the solution of that LP solve even if comparisons
    are still violated (a relaxation's optimum: for the negative control).
    ``start`` picks the first working set: ``"soft-min"`` (the smallest gaps
    under the soft-minimum memory), ``"correlation"`` (each key's strongest
    correlation-memory competitors) or ``"auto"`` (soft-min from
    ``CUTTING_PLANE_START_MIN_ENTRIES`` memory entries on). Every start ends
    at the same LP optimum."""
    import highspy

    d_v, n = V.shape
    d_u = U.shape[0]
    D = d_u * d_v
    if start == "auto":
        start = "soft-min" if D >= CUTTING_PLANE_START_MIN_ENTRIES else "correlation"
    # Two posings of one LP. From the correlation start (small instances)
    # the images q_i = W v_i are free columns, with rows q_i - W v_i = 0, so
    # each comparison <W, A_ij> = (u_i - u_j)^T q_i has d_u entries; from the
    # soft-min start's guessed basis the rows vec A_ij are dense in W: with a
    # non-slack basis the image posing cost 6.6 ms per simplex iteration
    # against 1.3-2 ms (d = 20, n = 80: 2.35 s against 0.44-0.75 s).
    images = n * d_u if start != "soft-min" else 0
    if images:
        check_memory(n * d_u * (d_v + 2), 8,
                     f"the {n * d_u} image rows q_i = W v_i of the cutting-plane LP for the {n} keys and targets")
    h = _silent_highs()
    for name, value in _HIGHS_OPTIONS.items():
        h.setOptionValue(name, value)
    # each re-solve starts from the last optimal basis (dual simplex on the
    # added rows); presolving every re-solve cost a third of the time
    # (6.8 s against 4.4 s at d = 20, n = 80)
    h.setOptionValue("presolve", "off")
    inf = highspy.kHighsInf
    none_i, none_f = np.array([], dtype=np.int32), np.array([])
    # columns: vec W (row-major) in the box, t free (maximised)[, the images]
    h.addCols(D, np.zeros(D), np.full(D, -MAX_MARGIN_BOX), np.full(D, MAX_MARGIN_BOX), 0, none_i, none_i, none_f)
    h.addCols(1, np.array([-1.0]), np.array([-inf]), np.array([inf]), 0, none_i, none_i, none_f)
    Q0 = D + 1
    if images:
        h.addCols(images, np.zeros(images), np.full(images, -inf), np.full(images, inf), 0, none_i, none_i, none_f)
        # rows q_{i,a} - sum_b W_ab V_bi = 0
        i_idx, a_idx = np.divmod(np.arange(images), d_u)
        cols = np.hstack([(a_idx * d_v)[:, None] + np.arange(d_v)[None, :], (Q0 + i_idx * d_u + a_idx)[:, None]])
        vals = np.hstack([-V.T[i_idx], np.ones((images, 1))])
        h.addRows(images, np.zeros(images), np.zeros(images), cols.size,
                  np.arange(0, cols.size, d_v + 1, dtype=np.int32), cols.ravel().astype(np.int32), vals.ravel())
    first = images  # the comparison rows come after the image rows
    act_i = np.empty(0, dtype=np.intp)
    act_j = np.empty(0, dtype=np.intp)
    guess = None
    if start == "soft-min":
        guess = _soft_min_memory(V, U)
        I, J = _smallest_gaps(guess, V, U, math.ceil(CUTTING_PLANE_START_FACTOR * (D + 1)))
        order = np.argsort(np.einsum("pa,pa->p", (U[:, I] - U[:, J]).T, (guess @ V[:, I]).T), kind="stable")
        I, J = I[order], J[order]
    else:
        I, J = _strongest_competitors(U @ V.T, V, U, CUTTING_PLANE_PER_KEY, None)
    rounds = 0
    while True:
        k = I.size
        if images:
            cols = np.hstack([np.full((k, 1), D), Q0 + I[:, None] * d_u + np.arange(d_u)[None, :]])
            vals = np.hstack([np.ones((k, 1)), -(U[:, I] - U[:, J]).T])
        else:
            check_memory(k * (D + 1) * 2, 8, f"{k} comparison rows of {D} memory entries")
            cols = np.broadcast_to(np.arange(D + 1), (k, D + 1))
            vals = np.hstack([-_pair_rows(V, U, I, J), np.ones((k, 1))])
        width = cols.shape[1]
        h.addRows(k, np.full(k, -inf), np.zeros(k), cols.size,
                  np.arange(0, cols.size, width, dtype=np.int32), cols.ravel().astype(np.int32), vals.ravel())
        act_i, act_j = np.concatenate([act_i, I]), np.concatenate([act_j, J])
        if guess is not None:
            _set_guessed_basis(h, guess, k)
            guess = None
        h.run()
        if rounds == 0 and start == "soft-min" and h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            h.clearSolver()  # a near-singular guessed basis (duplicated keys): from the slack basis
            h.run()
        rounds += 1
        status = h.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            raise LinearProgramError(
                "the max-margin LP should always have an optimum; HiGHS returned "
                f"{h.modelStatusToString(status)} in round {rounds} of the cutting plane"
            )
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        W, t = x[:D].reshape(d_u, d_v), float(x[D])
        if rounds == stop_after:
            break
        if rounds >= CUTTING_PLANE_MAX_ROUNDS:
            raise LinearProgramError(
                f"the cutting plane did not close in {CUTTING_PLANE_MAX_ROUNDS} rounds "
                f"({act_i.size} comparisons added)")
        I, J = _strongest_competitors(W, V, U, CUTTING_PLANE_PER_KEY, t - LP_FEASIBILITY_TOL)
        if I.size:
            # a comparison already in the LP binds it to HiGHS's tolerance: never re-add
            fresh = ~np.isin(I * n + J, act_i * n + act_j)
            I, J = I[fresh], J[fresh]
        if not I.size:
            break
    lam = -np.asarray(sol.row_dual)[first:]
    rows = _pair_rows(V, U, act_i, act_j)
    result = MaxMarginResult(
        W=W, margin=t, status=0, message=f"cutting plane: optimal after {rounds} LP solves",
        multipliers=_multiplier_matrix(n, act_i, act_j, lam), method="cutting-plane",
        rounds=rounds, comparisons=int(act_i.size))
    return result, rows, act_i, act_j, lam


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

        Computed on keys and targets divided by powers of two to max-abs
        entries in ``(1/2, 1]`` (both figures are ratios that positive
        scalings leave unchanged; so they stay clear of under- and overflow).

        For ``W``: ``max_ij tau_ij / (S_ii - S_ij)`` with ``tau_ij`` the
        rounding bound ``MARGIN_ROUNDING_ULPS (d_k + d_t) eps ||W||_F ||v_i||
        (||u_i|| + ||u_j||)`` (``inf`` when a margin is not positive). For
        ``lam``: ``||sum lam_ij A_ij||_F / (sum lam_ij ||A_ij||_F)`` divided
        by ``CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL``.
        """
        V, U, _ = _normalised(self.keys, self.targets)  # a ratio: the same at every scale
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

        ``W``: of shape ``(d_t, d_k)``, every margin ``S_ii - S_ij`` positive
        beyond rounding. ``lam``: nonnegative, zero diagonal, sums to 1 within
        ``n^2 eps``, and the combination ``sum lam_ij A_ij`` vanishes within
        the LP tolerance.
        """
        if (self.W is None) == (self.lam is None):
            return False
        if self.W is not None and np.shape(self.W) != (len(self.targets), len(self.keys)):
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


def gordan_certificate(keys: Any, targets: Any, *, method: str = "auto") -> GordanCertificate:
    """Decide whether some W retrieves all pairs top-1, with a certificate either way.

    Gordan's alternative for the comparison matrices ``A_ij = (u_i - u_j) v_i^T``:
    exactly one of

    (i) some ``W`` has ``<W, A_ij> > 0`` for every ``i != j``;
    (ii) some ``lambda >= 0``, ``lambda != 0``, has ``sum_ij lambda_ij A_ij = 0``.

    Decided with HiGHS: the max-margin LP (:func:`max_margin_memory`, by
    ``method``) gives (i) when its ``W`` passes the rounding-aware check of
    :meth:`GordanCertificate.verify`; otherwise its final dual multipliers,
    polished on their support, give (ii) (they form such a dependence
    whenever the optimal margin is 0), and failing that the feasibility LP
    ``sum lambda A = 0, sum lambda = 1, lambda >= 0`` on the comparisons of
    the final LP, then on all of them. When no side verifies on the instance
    as given, the equivalent instance with unit keys is decided (each key's
    comparisons scaled by ``1 / ||v_i|| > 0``, which changes no sign) and its
    certificate mapped back (the same ``W``; ``lambda_ij / ||v_i||``
    renormalised) and verified on the original. Both sides are invariant
    under positive scalings of keys and targets, so the instance is first
    divided by powers of two to max-abs entries in ``(1/2, 1]``. Raises
    :class:`LinearProgramError` if neither side verifies either way (an
    instance numerically on the boundary).

    Source: 004 (impossibility via a nonnegative linear dependence).

    >>> import numpy as np
    >>> keys = np.array([[1.0, 1.0]])           # the same key twice ...
    >>> targets = np.array([[1.0, -1.0]])       # ... with different targets
    >>> cert = gordan_certificate(keys, targets)
    >>> cert.separable, cert.verify(), cert.lam.round(6).tolist()
    (False, True, [[0.0, 0.5], [0.5, 0.0]])
    """
    V0, U0 = _pairs(keys, targets)
    method = _check_method(method)
    V, U, _ = _normalised(V0, U0)  # positive scalings change no sign of any comparison
    try:
        cert = _gordan(V, U, method)
        return GordanCertificate(W=cert.W, lam=cert.lam, keys=V0, targets=U0)
    except LinearProgramError as exc:
        first = exc
    norms = np.linalg.norm(V, axis=0)
    c = np.where(norms > 0, norms, 1.0)
    try:
        unit = _gordan(V / c, U, method)
    except LinearProgramError as exc:
        raise LinearProgramError(f"{first}; the same with unit keys: {exc}") from None
    lam = unit.lam
    if lam is not None:
        lam = lam / c[:, None]
        lam = lam / lam.sum()
    cert = GordanCertificate(W=unit.W, lam=lam, keys=V0, targets=U0)
    if not cert.verify():
        raise LinearProgramError(
            f"{first}; the certificate of the instance with unit keys does not verify "
            f"on the original (scaled ratio {cert.scaled_ratio():.3g})")
    return cert


def _gordan(V: np.ndarray, U: np.ndarray, method: str) -> GordanCertificate:
    """One attempt at :func:`gordan_certificate` on the instance as given."""
    mm, rows, I, J, lam_dual = _max_margin(V, U, method)
    if mm.margin > 0:
        cert = GordanCertificate(W=mm.W, lam=None, keys=V, targets=U)
        if cert.verify():
            return cert
    scale = np.max(np.abs(rows))
    if scale == 0:  # every A_ij in the LP = 0: a dependence among them
        return _lambda_certificate(np.full(I.size, 1.0 / I.size), I, J, V, U)
    # LP duality: the multipliers of the margin constraints are a dependence
    # whenever the optimal margin is 0; try them before a second LP.
    if np.max(lam_dual) > 0:
        cert = _lambda_certificate(_polish_lambda(rows / scale, lam_dual), I, J, V, U)
        if cert.verify():
            return cert
    lam_flat = _dependence_lp(rows / scale)
    if lam_flat is None and rows.shape[0] < V.shape[1] * (V.shape[1] - 1):
        rows, I, J = _comparison_rows(V, U)  # the comparisons the cutting plane left out
        scale = np.max(np.abs(rows))
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
    ``min_margin`` its smallest TAM margin recomputed directly. ``reposed``:
    how many equivalent forms of the instance were tried before HiGHS decided
    it (0: the instance as given; see :func:`tam_feasible`).
    """

    feasible: bool
    W: np.ndarray | None
    min_margin: float
    status: int
    message: str
    reposed: int = 0


def tam_feasible(keys: Any, targets: Any, *, k: int) -> TamFeasibility:
    """Whether some W gives every query a positive tail-average margin (LP, HiGHS).

    TAM margin: ``S_ii - T_k(S_i,-i)`` with ``T_k`` the average of the ``k``
    largest competitor scores. It is positively homogeneous in ``W``, so all
    margins can be made ``> 0`` iff all can be made ``>= 1``. With the
    epigraph form ``T_k(s) = min_t t + (1/k) sum_j (s_j - t)_+`` this is the
    LP in ``(W, t_i, xi_ij)``::

        xi_ij >= S_ij - t_i,  xi_ij >= 0           (i != j)
        S_ii - t_i - (1/k) sum_j xi_ij >= 1         (every i)

    ``1 <= k <= n - 1``. HiGHS occasionally returns neither an optimum nor
    a proof of infeasibility (status 4); the instance is then re-posed, with
    its pairs in reverse order and then with keys x2 and targets x3 (neither
    changes the answer; the memory is mapped back), and
    :class:`LinearProgramError` is raised only when no form is decided.
    Scaling keys by ``a > 0`` and targets by ``b > 0`` scales every margin by
    ``a b``: the decision stays and the memory becomes ``W / (a b)``. The LP
    is posed on the instance divided by powers of two to max-abs entries in
    ``(1/2, 1]`` and its memory mapped back (ValueError when that memory is
    beyond float64's range); ``min_margin`` is the same at every scale.

    Source: 004 (TAM retrieval; the convex top-k surrogate).

    >>> import numpy as np
    >>> tam_feasible(np.eye(3), np.eye(3), k=1).feasible
    True
    """
    V, U = _pairs(keys, targets)
    n = V.shape[1]
    k = _check_k(k, n - 1)
    check_memory(n * (n - 1) * (U.shape[0] * V.shape[0] + 2), 8,
                 f"the {n * (n - 1)} x {U.shape[0] * V.shape[0]} score rows of the TAM LP "
                 f"for the {n} keys and targets")
    V0, U0 = V, U
    V, U, e = _normalised(V0, U0)
    order = np.arange(n)[::-1]
    # forms that leave the answer unchanged: the pairs reversed; keys x2 and
    # targets x3 (scores x6, so W' = W / 6); tried in turn when HiGHS returns
    # neither an optimum nor infeasibility (its status 4, "unknown", occurs)
    forms = ((V, U, 1.0), (V[:, order], U[:, order], 1.0), (2.0 * V, 3.0 * U, 6.0))
    failures = []
    for reposed, (A, B, factor) in enumerate(forms):
        res = _tam_lp(A, B, k)
        if res.status == 2 and "infeasible" in str(res.message).lower():
            return TamFeasibility(False, None, math.nan, int(res.status), str(res.message), reposed)
        if res.status == 0:
            W = factor * res.x[: U.shape[0] * V.shape[0]].reshape(U.shape[0], V.shape[0])
            # the scores of (2**-e W, V0, U0) are those of (W, V, U), exactly in binary
            m = float(np.min(tam_margins(W, V, U, k=k)))
            W = _memory_back(W, e, "TAM memory with margins >= 1")
            return TamFeasibility(True, W, m, int(res.status), str(res.message), reposed)
        failures.append(f"status {res.status}: {res.message}")
    raise LinearProgramError(
        "the TAM feasibility LP returned neither an optimum nor infeasibility on the "
        f"instance, its pairs reversed and its rescaling ({'; '.join(failures)})"
    )


def _memory_back(W: np.ndarray, e: int, what: str) -> np.ndarray:
    """``2**-e W``, the memory of the normalised instance mapped back to the
    original; ValueError when its entries leave float64's range."""
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(W, -e)
    if not np.all(np.isfinite(out)) or (np.any(W != 0) and not np.any(out != 0)):
        raise ValueError(
            f"keys and targets: the {what} has entries {np.abs(W).max():.3g} x 2**{-e}, "
            "outside float64's range (about 4.9e-324 to 1.8e308); scale keys or targets so that "
            "max|keys| x max|targets| is nearer 1")
    return out


def _tam_lp(V: np.ndarray, U: np.ndarray, k: int) -> Any:
    """The TAM feasibility LP of :func:`tam_feasible` on one form of the instance."""
    d_v, n = V.shape
    d_u = U.shape[0]
    D = d_u * d_v
    P = n * (n - 1)
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
    return linprog(
        np.zeros(D + n + P), A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs",
        options=_HIGHS_OPTIONS,
    )


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
                   options={"maxiter": maxiter, "gtol": FIT_GRADIENT_TOL, "ftol": 0.0})
    return res.x.reshape(shape), res


def fit_gradient_allowance(keys: Any, targets: Any) -> float:
    """The largest gradient entry a converged fit may leave, at the scale of ``keys`` and ``targets``.

    :func:`cross_entropy_memory` and :func:`tam_erm` stop when every entry
    of the gradient is at most :data:`FIT_GRADIENT_TOL` on the instance
    divided by powers of two to max-abs entries in ``(1/2, 1]``; a gradient
    in ``W`` scales as keys times targets, so on the instance as given that
    is ``FIT_GRADIENT_TOL * 2**(e_keys + e_targets)`` (between 1 and 4 times
    ``FIT_GRADIENT_TOL max|keys| max|targets|``).

    >>> import numpy as np
    >>> fit_gradient_allowance(np.ones((2, 3)), 3 * np.ones((2, 3))) == 4 * FIT_GRADIENT_TOL
    True
    """
    V, U = _pairs(keys, targets)
    return math.ldexp(FIT_GRADIENT_TOL, _normalised(V, U)[2])


def _fit_normalised(loss_grad, V: np.ndarray, U: np.ndarray, ridge: float, init: Any,
                    maxiter: int) -> ConvexFitResult:
    """Fit ``loss_grad(W, V, U, ridge)`` on the instance divided by powers of
    two (:func:`_normalised`) and map the memory back.

    The scores of ``(W, V, U)`` equal those of ``(2**e W, V', U')``, so the
    normalised problem has ridge ``2**-2e ridge``, start ``2**e init`` and the
    same objective values: the fit, its stopping rule and its loss are the
    same at every scale of keys and targets (exactly, for powers of two).
    ValueError when the rescaled ridge, start or memory leaves float64's range.
    """
    Vn, Un, e = _normalised(V, U)
    W0 = _initial(init, (U.shape[0], V.shape[0]))
    try:
        ridge_n = math.ldexp(ridge, -2 * e)
    except OverflowError:
        ridge_n = math.inf
    with np.errstate(over="ignore"):
        W0n = np.ldexp(W0, e)
    if ridge and not (np.finfo(float).tiny <= ridge_n < math.inf):
        raise ValueError(
            f"ridge: {ridge!r} for keys and targets of scale 2**{e} is a ridge of {ridge!r} x 2**{-2 * e} "
            "on unit-scale data, outside float64's normal range; scale the ridge with max|keys| x max|targets| squared")
    if not np.all(np.isfinite(W0n)):
        raise ValueError(f"init: {np.abs(W0).max():.3g} x 2**{e} on unit-scale data is beyond float64's range")
    W, res = _fit(lambda W: loss_grad(W, Vn, Un, ridge_n), W0n, maxiter)
    loss, data, _ = loss_grad(W, Vn, Un, ridge_n)
    norm = _rescaled_norm(float(np.linalg.norm(W)), -e)
    return ConvexFitResult(_memory_back(W, e, "fitted memory"), loss, data, norm, int(res.nit),
                           bool(res.success), str(res.message))


def _rescaled_norm(x: float, e: int) -> float:
    """``x * 2**e`` for a norm; ValueError beyond float64's range."""
    try:
        return math.ldexp(x, e)
    except OverflowError:
        raise ValueError(f"keys and targets: the fitted memory's norm {x:.3g} x 2**{e} is beyond float64's "
                         "range; scale keys or targets so that max|keys| x max|targets| is nearer 1") from None


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
    zero) is the starting memory. The fit runs on keys and targets divided
    by powers of two to max-abs entries in ``(1/2, 1]`` (the ridge and start
    rescaled to match), so scaling keys by ``a`` and targets by ``b``, with
    the same ``beta`` and ``ridge (a b)^2``, gives the memory ``W / (a b)``
    (the same scores) and the same loss (bit for bit when ``a`` and ``b`` are powers of two).

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
    beta = check_positive_real(beta, "beta")
    ridge = _float_scalar(ridge, "ridge")
    maxiter = check_positive_int(maxiter, "maxiter")
    check_memory(n * n, 8, f"the {n} x {n} score matrix of the ERM (n = columns of keys)")
    return _fit_normalised(lambda W, V, U, ridge: _tam_loss_grad(W, V, U, k, beta, ridge),
                           V, U, ridge, init, maxiter)


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
    over the load tracks the finite-size top-1 threshold). As for
    :func:`tam_erm`, the fit runs on the instance normalised by powers of two:
    keys times ``a`` and targets times ``b`` with ``ridge (a b)^2`` give
    ``W / (a b)`` and the same loss at every scale.

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
    return _fit_normalised(_ce_loss_grad, V, U, ridge, init, maxiter)


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

    Keys times ``a`` and targets times ``b`` with ``gamma (a b)^2`` give the
    memory ``a b W``, the same deficient set and weights and the margins
    ``(a b)^2 m`` (built on the instance normalised by powers of two, so at
    every scale where those are representable).

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
    # built on the instance divided by powers of two (every score 2**-2e of
    # its value, W 2**-e of it, the weights c_i unchanged), so that no
    # product of four entries under- or overflows where the answer is held
    V, U, e = _normalised(V, U)
    try:
        gamma = math.ldexp(gamma, -2 * e)
    except OverflowError:
        gamma = math.inf
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
    with np.errstate(over="ignore", under="ignore"):
        m = np.ldexp(m, 2 * e)
    return SparseRepairResult(_memory_back(W, -e, "repaired memory"), large, small, deficient, weights, m)
