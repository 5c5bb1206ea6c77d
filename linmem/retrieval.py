"""Retrieval scores of a linear key-value memory, computed in row chunks.

A memory ``W`` (``d_targets x d_keys``) stores ``n`` pairs ``(v_i, u_i)``; the
arrays hold vectors as columns (``keys[:, i] = v_i``, ``targets[:, j] = u_j``).
Presenting key ``v_i`` scores every candidate target::

    S[i, j] = u_j^T W v_i        (row = query key i, column = candidate j)

Pair ``i`` is retrieved top-1 when ``S[i, i] > max_{j != i} S[i, j]``
(strict). The competitors of query ``i`` are the ``n - 1`` scores
``S[i, j]``, ``j != i``.

Everything that reduces over the competitors works on blocks of ``chunk``
rows of ``S``: memory is ``O(n d + d^2 + chunk n)`` and an ``n x n`` matrix
is never held whole. Only :func:`scores` returns the full matrix, and it
refuses sizes above :data:`linmem._validation.MAX_ARRAY_BYTES`.

The tail-average margin (TAM) replaces the largest competitor by the average
of the ``k`` largest ones; :func:`smoothed_topk_average` is a convex,
smooth upper bound of that average used for learning (see its docstring for
the construction and the gap bound).

In the examples ``W`` and ``keys`` are identities, so ``S`` is the
``targets`` matrix itself.

The scales of the top-1 problem close the module: the exact variances of
the CMM scores, the mean of a Gaussian maximum (the extreme-value cost),
the second-order threshold and where CMM's bound meets a loose one. These
scalar formulas take integers (exact results), floats, mpmath numbers or
sympy expressions. :func:`exact_dependence` turns a float certificate of
non-retrievability into an exact one.

Source: seed 004 (top-1 retrieval, correlation matrix memory, TAM and its
exponential smoothing). The score functions work in float64; mpmath and
exact object arrays are refused, except by :func:`topk_average` and
:func:`tam_margins`, which take either and compute by sorting, in the
number system of their input.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import integrate
from scipy.special import expit, log_ndtr

from linmem._validation import (
    as_matrix,
    check_memory,
    check_positive_int,
    check_positive_real,
    check_same_count,
)
from linmem.tolerances import QUADRATURE_RTOL, QUADRATURE_SUBDIVISIONS, working_eps

__all__ = [
    "DEFAULT_CHUNK_ROWS",
    "SMOOTHING_NEWTON_MAXITER",
    "SMOOTHING_TOL_ULPS",
    "all_retrieved",
    "cmm",
    "competitor_variance",
    "exact_dependence",
    "expected_gaussian_maximum",
    "loose_bound_crossover",
    "margins",
    "matched_variance",
    "percentile_rank",
    "scores",
    "second_order_crossing",
    "smoothed_topk_average",
    "smoothed_topk_gap_bound",
    "tam_margins",
    "top1_correct",
    "topk_average",
]

#: Rows of the score matrix computed per block by the chunked functions.
#: 256 rows keep the block GEMM efficient and the block small (256 n floats).
DEFAULT_CHUNK_ROWS = 256

#: Iteration cap of the safeguarded Newton solve for the smoothing threshold t.
SMOOTHING_NEWTON_MAXITER = 200

#: The Newton solve stops when its step is below this many ulps of the scale
#: of the scores (max |s_j| + |logit(k / m)| / beta).
SMOOTHING_TOL_ULPS = 8

_FLOAT_EPS = working_eps("float")

#: Index pair (rows, columns) of the matched scores inside a row block.
_Diag = tuple[np.ndarray, np.ndarray]


# --------------------------------------------------------------------------
# guards private to this module
# --------------------------------------------------------------------------


def _float_matrix(x: Any, name: str, *, ndim: int = 2) -> np.ndarray:
    arr = as_matrix(x, name, ndim=ndim)
    if arr.dtype == object:
        raise TypeError(
            f"{name} must be a float array (linmem.retrieval works in float64), "
            "got an object array of mpmath or exact entries; convert with "
            ".astype(float)"
        )
    return arr


def _check_problem(
    W: Any, keys: Any, targets: Any, *, min_pairs: int, exact: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a memory and its pairs; return (W, keys, targets) as float64
    (``exact``: object arrays of exact or mpmath entries kept as they are)."""
    matrix = as_matrix if exact else _float_matrix
    W = matrix(W, "W")
    V = matrix(keys, "keys")
    U = matrix(targets, "targets")
    check_same_count(V, U, "keys", "targets")
    if W.shape != (U.shape[0], V.shape[0]):
        raise ValueError(
            "W must have shape (targets rows, keys rows) = "
            f"{(U.shape[0], V.shape[0])}, got {W.shape}"
        )
    n = V.shape[1]
    if n < min_pairs:
        raise ValueError(
            f"keys must have at least {min_pairs} columns (every query needs a "
            f"competitor), got {n}"
        )
    return W, V, U


def _check_k(k: Any, n_competitors: int, name: str = "k") -> int:
    k = check_positive_int(k, name)
    if k > n_competitors:
        raise ValueError(
            f"{name} must be an integer in 1..{n_competitors} (the number of "
            f"competitors), got {k}"
        )
    return k


def _competitor_rows(scores: Any, name: str, *, exact: bool = False) -> tuple[np.ndarray, bool]:
    """Competitor scores as an (m, c) array; True when the input was 1-D
    (``exact``: an object array of exact or mpmath entries is kept as it is)."""
    try:
        ndim = np.ndim(scores)
    except (ValueError, TypeError):
        ndim = 2  # let as_matrix report the unusable input
    S = (as_matrix if exact else _float_matrix)(scores, name, ndim=ndim)
    if ndim not in (1, 2):
        raise ValueError(
            f"{name} must be a 1-D array of competitor scores or a square 2-D "
            f"score matrix, got shape {S.shape}"
        )
    if ndim == 1:
        return S[None, :], True
    n = S.shape[0]
    if S.shape != (n, n) or n < 2:
        raise ValueError(
            f"{name} as a 2-D array must be a square n x n score matrix with "
            f"n >= 2 (its diagonal holds the matched scores), got shape {S.shape}"
        )
    return S[~np.eye(n, dtype=bool)].reshape(n, n - 1), False


# --------------------------------------------------------------------------
# the chunked scorer
# --------------------------------------------------------------------------


def _row_blocks(
    W: np.ndarray, V: np.ndarray, U: np.ndarray, chunk: int
) -> Iterator[tuple[int, np.ndarray, _Diag]]:
    """Yield (start, block, diagonal index) for row blocks of S.

    ``block`` is ``S[start:start + c, :]`` in a reused buffer (valid until the
    next iteration); ``diag`` is ``(rows, start + rows)`` indexing the matched
    scores inside it.
    """
    n = V.shape[1]
    chunk = min(chunk, n)
    check_memory(chunk * n, 8, f"a score block of chunk x n = {chunk} x {n} (n = columns of keys)")
    # Q^T = V^T W^T (n x d_targets): the queries mapped into target space.
    QT = np.ascontiguousarray(V.T @ W.T)
    buf = np.empty((chunk, n))
    rows = np.arange(chunk)
    for start in range(0, n, chunk):
        c = min(chunk, n - start)
        block = buf[:c]
        np.matmul(QT[start : start + c], U, out=block)
        yield start, block, (rows[:c], start + rows[:c])


def _reduce_blocks(
    W: Any,
    keys: Any,
    targets: Any,
    chunk: Any,
    reducer: Callable[[np.ndarray, _Diag], np.ndarray],
    *,
    dtype: type = float,
) -> np.ndarray:
    W, V, U = _check_problem(W, keys, targets, min_pairs=2)
    chunk = check_positive_int(chunk, "chunk")
    out = np.empty(V.shape[1], dtype=dtype)
    for start, block, diag in _row_blocks(W, V, U, chunk):
        out[start : start + block.shape[0]] = reducer(block, diag)
    return out


def _block_margins(block: np.ndarray, diag: _Diag) -> np.ndarray:
    matched = block[diag].copy()
    block[diag] = -np.inf
    return matched - block.max(axis=1)


def cmm(keys: Any, targets: Any) -> np.ndarray:
    """Correlation matrix memory: the superposition of the stored outer products.

    ``W_CMM = sum_l u_l v_l^T = targets @ keys^T`` (``d_targets x d_keys``).

    Source: 004 (the classical CMM baseline of the top-1 analysis).

    >>> import numpy as np
    >>> cmm(np.eye(2), np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[1., 2.],
           [3., 4.]])
    """
    V = _float_matrix(keys, "keys")
    U = _float_matrix(targets, "targets")
    check_same_count(V, U, "keys", "targets")
    p, d = U.shape[0], V.shape[0]
    check_memory(p * d, 8, f"the memory W_CMM ({p} x {d}: rows of targets x rows of keys)")
    return U @ V.T


def scores(W: Any, keys: Any, targets: Any) -> np.ndarray:
    """The full score matrix ``S[i, j] = u_j^T W v_i`` (for small n).

    ``S = keys^T W^T targets`` (``n x n``). Refused up front when the matrix
    would exceed ``MAX_ARRAY_BYTES``; use the chunked functions then.

    Source: 004 (retrieval scores).

    >>> import numpy as np
    >>> scores(np.eye(2), np.eye(2), np.array([[1.0, 0.0], [1.0, 1.0]]))
    array([[1., 0.],
           [1., 1.]])
    """
    W, V, U = _check_problem(W, keys, targets, min_pairs=1)
    n = V.shape[1]
    check_memory(n * n, 8, f"the full {n} x {n} score matrix (n = columns of keys)")
    return (V.T @ W.T) @ U


def margins(
    W: Any, keys: Any, targets: Any, *, chunk: int = DEFAULT_CHUNK_ROWS
) -> np.ndarray:
    """Top-1 margin of every query: ``S_ii - max_{j != i} S_ij``.

    Positive exactly when pair ``i`` is retrieved top-1. Computed in blocks
    of ``chunk`` rows; needs ``n >= 2``.

    Source: 004 (top-1 margins).

    >>> import numpy as np
    >>> margins(np.eye(2), np.eye(2), np.array([[2.0, 0.5], [0.0, 1.0]]))
    array([1.5, 1. ])
    """
    return _reduce_blocks(W, keys, targets, chunk, _block_margins)


def top1_correct(
    W: Any, keys: Any, targets: Any, *, chunk: int = DEFAULT_CHUNK_ROWS
) -> np.ndarray:
    """Which pairs are retrieved top-1: ``S_ii > max_{j != i} S_ij`` (strict).

    Returns a boolean array of length n; computed in row blocks.

    Source: 004 (top-1 retrieval criterion).

    >>> import numpy as np
    >>> top1_correct(np.eye(2), np.eye(2), np.array([[1.0, 1.0], [0.0, 1.0]]))
    array([False,  True])
    """

    def reducer(block: np.ndarray, diag: _Diag) -> np.ndarray:
        return _block_margins(block, diag) > 0

    return _reduce_blocks(W, keys, targets, chunk, reducer, dtype=bool)


def all_retrieved(
    W: Any, keys: Any, targets: Any, *, chunk: int = DEFAULT_CHUNK_ROWS
) -> bool:
    """Whether every pair is retrieved top-1: ``min_i (S_ii - max_{j!=i} S_ij) > 0``.

    Stops at the first block that holds a failure.

    Source: 004 (simultaneous top-1 retrieval of all n pairs).

    >>> import numpy as np
    >>> all_retrieved(np.eye(3), np.eye(3), np.eye(3))
    True
    """
    W, V, U = _check_problem(W, keys, targets, min_pairs=2)
    chunk = check_positive_int(chunk, "chunk")
    for _, block, diag in _row_blocks(W, V, U, chunk):
        if not np.all(_block_margins(block, diag) > 0):
            return False
    return True


def percentile_rank(
    W: Any, keys: Any, targets: Any, *, chunk: int = DEFAULT_CHUNK_ROWS
) -> np.ndarray:
    """Fraction of competitors the matched score beats, per query.

    ``rank_i = #{j != i : S_ij < S_ii} / (n - 1)``; 1 means top-1.

    Source: 004 (percentile retrieval in the quadratic-load regime).

    >>> import numpy as np
    >>> percentile_rank(np.eye(3), np.eye(3), np.array([[1.0, 2, 0], [0, 1, 0], [0, 0, 1]]))
    array([0.5, 1. , 1. ])
    """

    def reducer(block: np.ndarray, diag: _Diag) -> np.ndarray:
        matched = block[diag].copy()
        block[diag] = np.inf  # the matched entry never counts as beaten
        return np.count_nonzero(block < matched[:, None], axis=1)

    n_beaten = _reduce_blocks(W, keys, targets, chunk, reducer)
    return n_beaten / (n_beaten.shape[0] - 1)


# --------------------------------------------------------------------------
# tail averages
# --------------------------------------------------------------------------


def _topk_rows(C: np.ndarray, k: int) -> np.ndarray:
    c = C.shape[1]
    return np.partition(C, c - k, axis=1)[:, c - k :].sum(axis=1) / k


def topk_average(scores: Any, k: int) -> np.ndarray | float:
    """Average of the ``k`` largest competitor scores.

    ``T_k(s) = (1/k) sum_{l=1..k} s_[l]`` with ``s_[1] >= s_[2] >= ...`` the
    competitor scores; equivalently ``T_k(s) = min_t { t + (1/k) sum_j
    (s_j - t)_+ }``. ``scores`` is either a 1-D array of one query's
    competitor scores (matched score already removed; returns a float) or a
    square score matrix ``S`` whose diagonal holds the matched scores, which
    are excluded row by row (returns one value per row). ``k`` ranges over
    ``1..(number of competitors)``. Object arrays of exact (``Fraction``,
    int) or mpmath entries are averaged by sorting, in their number system
    (a ``Fraction`` or ``mpf``, or an object array of them).

    Source: 004 (tail-average margin).

    >>> import numpy as np
    >>> topk_average(np.array([3.0, 1.0, 2.0]), 2)
    2.5
    >>> topk_average(np.array([[9.0, 1.0, 2.0], [0.0, 9.0, 4.0], [1.0, 1.0, 9.0]]), 1)
    array([2., 4., 1.])
    >>> from fractions import Fraction
    >>> topk_average(np.array([Fraction(1, 3), Fraction(1), Fraction(1, 2)], dtype=object), 2)
    Fraction(3, 4)
    """
    C, is_vector = _competitor_rows(scores, "scores", exact=True)
    k = _check_k(k, C.shape[1])
    if C.dtype == object:
        out = _sorted_topk_rows(C, k)
        return out[0] if is_vector else out
    out = _topk_rows(C, k)
    return float(out[0]) if is_vector else out


def smoothed_topk_gap_bound(n_competitors: int, k: int, *, beta: float) -> float:
    """Upper bound on ``smoothed_topk_average - topk_average``: ``(m/k) log(2)/beta``.

    ``m`` is the number of competitors. The bound holds for every score
    vector and is attained by tied scores with ``k = m/2``; it is 0 when
    ``k = m``, where the plain mean is returned.

    Source: 004 (exponentially smoothed TAM); bound derived in
    :func:`smoothed_topk_average`.

    >>> round(smoothed_topk_gap_bound(4, 2, beta=1.0), 6)
    1.386294
    """
    m = check_positive_int(n_competitors, "n_competitors")
    k = _check_k(k, m)
    beta = check_positive_real(beta, "beta")
    if k == m:
        return 0.0
    return (m / k) * math.log(2.0) / beta


def _smoothed_topk_rows(
    C: np.ndarray, k: int, beta: float
) -> tuple[np.ndarray, np.ndarray]:
    """Smoothed top-k average of each row of C and its gradient weights.

    Returns ``(F, P)`` with ``F[r] = min_t t + (1/k) sum_j sp_beta(C[r, j] - t)``
    and ``P[r, j] = dF[r]/dC[r, j] = sigmoid(beta (C[r, j] - t*_r)) / k``
    (nonnegative, each row summing to 1).
    """
    m, c = C.shape
    if k == c:
        # The objective decreases to mean(s) as t -> -inf and the infimum is
        # not attained: the value is the plain mean, with uniform weights.
        return C.mean(axis=1), np.full((m, c), 1.0 / c)
    logit = math.log(k / (c - k))
    shift = logit / beta
    lo = C.min(axis=1) - shift
    hi = C.max(axis=1) - shift
    scale = np.max(np.abs(C), axis=1) + abs(shift)
    tol = SMOOTHING_TOL_ULPS * _FLOAT_EPS * np.maximum(scale, np.finfo(float).tiny)
    # start between the k-th and (k+1)-th largest scores: the beta -> inf optimum
    part = np.partition(C, (c - k - 1, c - k), axis=1)
    t = 0.5 * (part[:, c - k - 1] + part[:, c - k])
    t = np.clip(t, lo, hi)
    active = np.ones(m, dtype=bool)
    for _ in range(SMOOTHING_NEWTON_MAXITER):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        sig = expit(beta * (C[idx] - t[idx, None]))
        g = sig.sum(axis=1) / k - 1.0
        dg = -(beta / k) * (sig * (1.0 - sig)).sum(axis=1)
        ti = t[idx]
        lo[idx] = np.where(g > 0, ti, lo[idx])
        hi[idx] = np.where(g > 0, hi[idx], ti)
        with np.errstate(divide="ignore", invalid="ignore"):
            tn = ti - g / dg
        root = g == 0
        # a Newton step leaving the open bracket falls back to bisection
        bad = ~root & (~np.isfinite(tn) | (tn <= lo[idx]) | (tn >= hi[idx]))
        tn = np.where(root, ti, np.where(bad, 0.5 * (lo[idx] + hi[idx]), tn))
        done = root | (np.abs(tn - ti) <= tol[idx]) | (hi[idx] - lo[idx] <= tol[idx])
        t[idx] = tn
        active[idx[done]] = False
    z = beta * (C - t[:, None])
    F = t + np.logaddexp(0.0, z).sum(axis=1) / (k * beta)
    P = expit(z) / k
    return F, P


def smoothed_topk_average(scores: Any, k: int, *, beta: float) -> np.ndarray | float:
    """Convex smooth upper bound of the top-k average (softplus-smoothed CVaR form).

    The top-k average is ``T_k(s) = min_t { t + (1/k) sum_j (s_j - t)_+ }``
    (Rockafellar-Uryasev). Replacing ``(x)_+`` by
    ``sp_beta(x) = log(1 + exp(beta x)) / beta`` gives::

        F_beta(s) = min_t { t + (1/k) sum_j sp_beta(s_j - t) }.

    Properties (m = number of competitors):

    * upper bound: ``sp_beta(x) >= (x)_+`` so ``F_beta(s) >= T_k(s)``;
    * convex in ``s``: a partial minimisation over ``t`` of a function jointly
      convex in ``(s, t)``;
    * gap: ``0 <= F_beta(s) - T_k(s) <= (m/k) log(2) / beta`` (evaluate the
      objective at ``t = s_[k]`` and use ``sp_beta(x) - (x)_+ <= log(2)/beta``),
      so ``F_beta -> T_k`` at rate ``O(1/beta)``. The rate is attained when
      scores tie at the k-th place: for m equal scores the gap is exactly
      ``c(k/m)/beta`` with ``c(p) = log((1-p)/p) - log(1-p)/p``, and with only
      the k-th and (k+1)-th largest tied ``beta * gap -> 2 log(2) / k``.
      Without a tie there the gap decays exponentially in ``beta`` times the
      spacing. See :func:`smoothed_topk_gap_bound`.

    The optimal ``t`` solves ``(1/k) sum_j sigmoid(beta (s_j - t)) = 1``,
    found by a bracketed, safeguarded Newton iteration. When ``k = m`` the
    infimum is the plain mean (attained only as ``t -> -inf``), returned
    exactly. ``scores`` follows :func:`topk_average`: a 1-D array of
    competitor scores, or a square score matrix whose diagonal is excluded.

    Source: 004 (exponentially smoothed TAM, which keeps the ERM convex).

    >>> import numpy as np
    >>> s = np.array([3.0, 1.0, 2.0])
    >>> bool(topk_average(s, 2) <= smoothed_topk_average(s, 2, beta=50.0) <= 2.5 + 1.5 * np.log(2) / 50)
    True
    """
    C, is_vector = _competitor_rows(scores, "scores")
    k = _check_k(k, C.shape[1])
    beta = check_positive_real(beta, "beta")
    F, _ = _smoothed_topk_rows(C, k, beta)
    return float(F[0]) if is_vector else F


def tam_margins(
    W: Any, keys: Any, targets: Any, *, k: int, chunk: int = DEFAULT_CHUNK_ROWS
) -> np.ndarray:
    """Tail-average margin of every query: ``S_ii - T_k(S_i,-i)``.

    ``T_k`` is the average of the ``k`` largest competitor scores
    (:func:`topk_average`), ``1 <= k <= n - 1``. A positive TAM margin puts
    the matched target among the top ``k`` candidates, since the average of
    the k largest competitors is at least the k-th largest. When all of
    ``W``, ``keys`` and ``targets`` are object arrays of exact or mpmath
    entries, ``S`` is formed whole and each row sorted, in their number
    system (an object array).

    Source: 004 (tail-average margin).

    >>> import numpy as np
    >>> tam_margins(np.eye(3), np.eye(3), np.array([[3.0, 1, 0], [2, 3, 0], [0, 0, 3]]), k=2)
    array([2.5, 2. , 3. ])
    """
    if any(isinstance(x, np.ndarray) and x.dtype == object for x in (W, keys, targets)):
        return _sorted_tam_margins(W, keys, targets, k, chunk)
    W, V, U = _check_problem(W, keys, targets, min_pairs=2)
    k = _check_k(k, V.shape[1] - 1)
    chunk = check_positive_int(chunk, "chunk")
    n = V.shape[1]
    out = np.empty(n)
    for start, block, diag in _row_blocks(W, V, U, chunk):
        matched = block[diag].copy()
        block[diag] = -np.inf  # never among the k largest since k <= n - 1
        top = np.partition(block, n - k, axis=1)[:, n - k :]
        out[start : start + block.shape[0]] = matched - top.sum(axis=1) / k
    return out


# --------------------------------------------------------------------------
# scales of the CMM scores and of the top-1 thresholds (004)
# --------------------------------------------------------------------------


def _is_symbolic(x: Any) -> bool:
    return type(x).__module__.split(".")[0] == "sympy"


def _size_argument(x: Any, name: str, minimum: int) -> Any:
    """``n`` or ``d`` of a moment formula: an integer >= ``minimum``, a real
    >= ``minimum`` (finite), or a sympy expression (left to sympy)."""
    if _is_symbolic(x):
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a number or a sympy expression, got {type(x).__name__} {x!r}")
    if isinstance(x, numbers.Integral):
        if x < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {x}")
        return int(x)
    if not (math.isfinite(x) and x >= minimum):
        raise ValueError(f"{name} must be a finite number >= {minimum}, got {x}")
    return x


def _score_moment(n: Any, d: Any, n_min: int, d_coef: int, const: int) -> Any:
    n, d = _size_argument(n, "n", n_min), _size_argument(d, "d", 1)
    if isinstance(n, int) and isinstance(d, int):
        return Fraction(n + d_coef * d + const, d * d)
    return (n + d_coef * d + const) / (d * d)


def competitor_variance(n: Any, d: Any) -> Any:
    """Exact variance of a CMM competitor score, ``Var S_ij = (n + 2d + 2) / d^2``.

    ``S_ij = u_j^T W v_i`` (``j != i``) for ``W = sum_l u_l v_l^T`` and ``n``
    pairs of keys and targets i.i.d. ``N(0, I_d / d)``; its mean is 0. Of
    the three kinds of term of ``S_ij``, ``(u_j.u_i)|v_i|^2``,
    ``|u_j|^2 (v_j.v_i)`` and ``(u_j.u_l)(v_l.v_i)`` (``l != i, j``),
    uncorrelated, the first two give ``2 (1/d)(1 + 2/d)`` and the others
    ``(n - 2) / d^2``. The standard deviation is about ``sqrt(n) / d`` only
    when ``n >> d``. Integers give an exact ``Fraction``, other reals a float
    (or an mpmath number), sympy expressions an expression.

    Source: 004 (the competitor scale of the extreme-value heuristic).

    >>> competitor_variance(2, 1)
    Fraction(6, 1)
    >>> competitor_variance(1000, 10.0)
    10.22
    """
    return _score_moment(n, d, 2, 2, 2)


def matched_variance(n: Any, d: Any) -> Any:
    """Exact variance of a CMM matched score, ``Var S_ii = (n + 4d + 3) / d^2``.

    Same setting as :func:`competitor_variance`; ``E S_ii = 1``. The own
    term ``|u_i|^2 |v_i|^2`` has variance ``(1 + 2/d)^2 - 1`` and each of the
    ``n - 1`` others ``1 / d^2``.

    Source: 004 (the matched score of order one).

    >>> matched_variance(2, 1)
    Fraction(9, 1)
    """
    return _score_moment(n, d, 1, 4, 3)


def loose_bound_crossover(C: Any) -> Any:
    """Where ``8 n ln n`` meets ``C n (ln n)^4`` (``n > 1``): ``n* = exp(2 C^(-1/3))``.

    ``8 n ln n - C n ln^4 n = n ln n (8 - C ln^3 n)`` changes sign once, at
    ``ln n = 2 C^(-1/3)``: below ``n*`` the CMM bound ``8 n ln n`` is the
    larger, above it the smaller. Floats and integers give a float, mpmath
    numbers an mpmath number at the working precision, sympy expressions an
    expression.

    Source: 004 (table: d^2 >= C n (log n)^4 against CMM's 8 n log n).

    >>> round(loose_bound_crossover(1), 6)  # e^2
    7.389056
    """
    if _is_symbolic(C):
        import sympy

        return sympy.exp(2 * C ** sympy.Rational(-1, 3))
    if isinstance(C, mpmath.mpf):
        if not (mpmath.isfinite(C) and C > 0):
            raise ValueError(f"C must be a finite number > 0, got {C}")
        return mpmath.exp(2 * C ** (-mpmath.mpf(1) / 3))
    return math.exp(2 * check_positive_real(C, "C") ** (-1.0 / 3.0))


def expected_gaussian_maximum(m: int) -> float:
    """``E max`` of ``m`` i.i.d. standard normals, by quadrature.

    ``E max = int_0^inf (1 - Phi(x)^m) dx - int_-inf^0 Phi(x)^m dx``, with
    ``Phi^m = exp(m log Phi)`` evaluated through ``log_ndtr`` (no underflow)
    and the upper integral split at ``sqrt(2 ln m)``, where the integrand
    falls from 1 to 0. Relative accuracy
    :data:`linmem.tolerances.QUADRATURE_RTOL`. It grows like
    ``sqrt(2 ln m)`` with a relative deficit of order ``ln ln m / ln m``.

    Source: 004 (the log n factor as an extreme-value cost).

    >>> expected_gaussian_maximum(1)
    0.0
    >>> round(expected_gaussian_maximum(2), 12) == round(1 / math.sqrt(math.pi), 12)
    True
    """
    m = check_positive_int(m, "m")
    tail = lambda x: -np.expm1(m * log_ndtr(x))  # noqa: E731
    body = lambda x: np.exp(m * log_ndtr(x))  # noqa: E731
    split = math.sqrt(2 * math.log(max(m, 2)))
    opts = dict(limit=QUADRATURE_SUBDIVISIONS, epsabs=0.0, epsrel=QUADRATURE_RTOL)
    with warnings.catch_warnings():
        # a roundoff notice from quad would only restate its error estimate
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        upper = integrate.quad(tail, 0, split, **opts)[0] + integrate.quad(tail, split, np.inf, **opts)[0]
        lower = integrate.quad(body, -np.inf, 0, **opts)[0]
    return 0.0 if m == 1 else upper - lower


def second_order_crossing(n: float) -> float:
    """The conjectured finite-size top-1 threshold ``2 - 3 ln ln n / ln n``.

    The load ratio ``d^2 / (n ln n)`` at which some linear memory retrieves
    all ``n`` pairs with probability 1/2, to second order; it tends to
    :data:`linmem.capacity.OPTIMAL_TOP1_CONSTANT` = 2 only as ``n -> inf``
    and is about 0.9 for ``n`` = 5..40. Needs ``n > 1``.

    Source: 004 (the second-order correction to the threshold 2, conjectured).

    >>> round(second_order_crossing(math.e ** math.e), 6)
    0.896362
    """
    n = check_positive_real(n, "n")
    if not n > 1:
        raise ValueError(f"n must be > 1 (ln ln n is undefined otherwise), got {n}")
    return 2 - 3 * math.log(math.log(n)) / math.log(n)


def _solve_near(M: Any, rhs: Any, guess: Any) -> Any:
    """A solution of the exact system ``M x = rhs`` (sympy matrices), or
    ``None`` when it has none; the free parameters of an underdetermined
    system (each its own unknown's entry in Gauss-Jordan's solution) take
    that unknown's float value in ``guess``, exactly, so a float solution
    re-solved on its support stays where the solver put it."""
    import sympy

    try:
        x, params = M.gauss_jordan_solve(rhs)
    except ValueError:
        return None
    if params.shape[0]:
        x = x.subs({t: sympy.Rational(float(guess[next(k for k in range(len(x)) if x[k] == t)])) for t in params})
    return x


def exact_dependence(keys: Any, targets: Any, lam: Any) -> np.ndarray | None:
    """An exact dependence among the top-1 comparisons, re-solved on the support of a float one.

    Gordan's second alternative (see :func:`linmem.gordan_certificate`) is a
    ``lam >= 0`` with ``sum_ij lam_ij A_ij = 0`` and ``sum lam = 1``,
    ``A_ij = (u_i - u_j) v_i^T``. A solver's float ``lam`` satisfies it to
    rounding; this solves ``sum_{(i,j) in S} x_ij A_ij = 0, sum x = 1`` in
    rationals on its support ``S = {(i, j): lam_ij > 0}``, with ``keys`` and
    ``targets`` at their binary values, free parameters of the solution set
    to ``lam``'s own values. Returns ``x`` (an ``n x n`` object array of
    ``Fraction``, zero off ``S``), or ``None`` when ``S`` is empty or carries
    no exact solution. ``x`` is not checked for ``x >= 0``: that, and the
    zero sum, are the caller's to verify. Meant for small instances (sympy's
    Gauss-Jordan on ``d_t d_k + 1`` equations in ``|S|`` unknowns).

    Source: 004 (impossibility via a nonnegative linear dependence).

    >>> keys, targets = np.array([[1.0, 1.0]]), np.array([[1.0, -1.0]])  # one key, two targets
    >>> exact_dependence(keys, targets, np.array([[0.0, 0.5], [0.5, 0.0]])).tolist()
    [[Fraction(0, 1), Fraction(1, 2)], [Fraction(1, 2), Fraction(0, 1)]]
    """
    import sympy

    V, U = _float_matrix(keys, "keys"), _float_matrix(targets, "targets")
    check_same_count(V, U, "keys", "targets")
    n = V.shape[1]
    lam = _float_matrix(lam, "lam")
    if lam.shape != (n, n):
        raise ValueError(f"lam must be an n x n array with n = {n} (columns of keys), got shape {lam.shape}")
    support = [(i, j) for i in range(n) for j in range(n) if i != j and lam[i, j] > 0]
    if not support:
        return None
    R = lambda x: sympy.Rational(Fraction(float(x)))  # noqa: E731  the binary value, exactly
    A = [sympy.Matrix(U.shape[0], 1, [R(a) - R(b) for a, b in zip(U[:, i], U[:, j])])
         * sympy.Matrix(1, V.shape[0], [R(x) for x in V[:, i]]) for i, j in support]
    M = sympy.Matrix([[Ap[r] for Ap in A] for r in range(U.shape[0] * V.shape[0])] + [[1] * len(support)])
    sol = _solve_near(M, sympy.Matrix([0] * (M.rows - 1) + [1]), [lam[p] for p in support])
    if sol is None:  # no solution on this support
        return None
    x = np.full((n, n), Fraction(0), dtype=object)
    for p, v in zip(support, sol):
        x[p] = Fraction(int(sympy.fraction(v)[0]), int(sympy.fraction(v)[1]))
    return x


__all__ = sorted([*__all__, "score_statistics"])


def score_statistics(scores: Any) -> tuple[float, float, float, float]:
    """The four score scales of a square score matrix, as 004 reads them.

    ``scores`` is ``S`` with ``S_ij = u_j^T W v_i`` (:func:`scores`), ``n x n``
    with ``n >= 2``. Returns ``(mean S_ii, mean S_ij, mean S_ij^2, mean
    (S_ii - 1)^2)``, the means over ``i`` and over ``i != j``. For the CMM on
    ``n`` Gaussian ``N(0, I_d / d)`` pairs their expectations are 1, 0,
    :func:`competitor_variance` and :func:`matched_variance`.

    Source: 004 (the extreme-value heuristic's score scales).

    >>> score_statistics(np.array([[1.0, 2.0], [0.0, 3.0]]))
    (2.0, 1.0, 2.0, 2.0)
    """
    S = _float_matrix(scores, "scores")
    n = S.shape[0]
    if S.shape != (n, n) or n < 2:
        raise ValueError(f"scores must be a square n x n array with n >= 2, got shape {S.shape}")
    diag, pairs = np.diag(S), n * (n - 1)
    comp_sq = np.einsum("ij,ij->", S, S) - diag @ diag
    return (float(diag.mean()), float((S.sum() - diag.sum()) / pairs), float(comp_sq / pairs),
            float(((diag - 1) ** 2).mean()))


# --------------------------------------------------------------------------
# Paired comparison of two memories on the same instances
# --------------------------------------------------------------------------

__all__ = sorted([*__all__, "paired_gain"])


def paired_gain(before: Any, after: Any, n: int) -> dict:
    """How much a memory improves on a baseline, from per-instance counts.

    ``before`` and ``after`` hold, per instance (the same instances, at
    least two), the number of its ``n`` pairs retrieved top-1 by the
    baseline (e.g. CMM) and by the competitor (e.g. its sparse repair).
    Returns ``gain`` (the mean per-instance gain as a fraction of ``n``),
    ``t`` (:func:`linmem.statistics.paired_t` of those gains) and ``unfixed`` (the baseline's
    failures, pooled over the instances, that the competitor also leaves:
    ``sum(n - after) / sum(n - before)``, 0 when the baseline fails none).

    Source: 004 (the sparse repair retrieves more pairs than CMM).

    >>> r = paired_gain([8, 6, 7], [10, 9, 9], 10)
    >>> round(r["gain"], 4), round(r["t"], 3), round(r["unfixed"], 4)
    (0.2333, 7.0, 0.2222)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer (pairs per instance), got {n!r}")
    counts = []
    for name, x in (("before", before), ("after", after)):
        if isinstance(x, (str, bytes)) or x is None:
            raise TypeError(f"{name} must be a 1-D array of counts, got {type(x).__name__}")
        c = np.asarray(x)
        if c.dtype == bool or not (np.issubdtype(c.dtype, np.floating) or np.issubdtype(c.dtype, np.integer)):
            raise TypeError(f"{name} must be a 1-D array of counts, got dtype {c.dtype}")
        c = c.astype(float)
        if c.ndim != 1 or c.size < 2 or not np.all((c >= 0) & (c <= n) & (c == np.round(c))):
            raise ValueError(f"{name} must be a 1-D array of at least 2 integer counts in [0, {n}], "
                             f"got {np.array2string(c, threshold=6)}")
        counts.append(c)
    if counts[0].shape != counts[1].shape:
        raise ValueError(f"before and after must count the same instances, got {counts[0].size} and {counts[1].size}")
    from linmem.statistics import paired_t

    gain = (counts[1] - counts[0]) / n
    failed = float(np.sum(n - counts[0]))
    return {"gain": float(gain.mean()), "t": paired_t(gain),
            "unfixed": float(np.sum(n - counts[1])) / failed if failed > 0 else 0.0}


# --------------------------------------------------------------------------
# the top-k average and the TAM margins in exact rationals and mpmath
# --------------------------------------------------------------------------


def _sorted_topk_rows(C: np.ndarray, k: int) -> np.ndarray:
    """The mean of the k largest entries of each row of an object array, by
    sorting: a ``Fraction`` for exact entries (ints included), an ``mpf`` at
    the working precision for mpmath ones."""
    out = np.empty(C.shape[0], dtype=object)
    for i, row in enumerate(C):
        total = sum(sorted(row, reverse=True)[:k])
        out[i] = Fraction(total, k) if isinstance(total, numbers.Integral) else total / k
    return out


def _sorted_tam_margins(W: Any, keys: Any, targets: Any, k: Any, chunk: Any) -> np.ndarray:
    """:func:`tam_margins` of object arrays: ``S`` whole, each row sorted."""
    W, V, U = _check_problem(W, keys, targets, min_pairs=2, exact=True)
    floats = [name for name, x in (("W", W), ("keys", V), ("targets", U)) if x.dtype != object]
    if floats:
        raise TypeError(
            f"{', '.join(floats)} must be object arrays like the others (exact "
            "or mpmath entries in all three, or float64 in all three), got float64"
        )
    k = _check_k(k, V.shape[1] - 1)
    check_positive_int(chunk, "chunk")
    S = (V.T @ W.T) @ U
    C, _ = _competitor_rows(S, "scores", exact=True)
    return np.diagonal(S) - _sorted_topk_rows(C, k)
