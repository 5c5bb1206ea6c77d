"""The two ways of building a linear memory from pairs, and a small object over them.

Keys are the columns of ``K`` (d x M), values the columns of ``V`` (p x M);
a store ``W`` is p x d and answers a query ``q`` with ``W q``.
Source: 000, "Two ways to construct the memory matrix" and Appendices B, C.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Literal

import mpmath
import numpy as np

from linmem._validation import (
    EXACT,
    _describe,
    as_matrix,
    as_vector,
    check_memory,
    check_nonzero_columns,
    check_representable,
    check_same_count,
    max_abs,
    number_kind,
)
from linmem.recall import expected_error, leverage_scores, snr
from linmem.spectral import compact_svd, pinv, pinv_energy

__all__ = [
    "LinearMemory",
    "least_squares_store",
    "outer_product_store",
    "ridge_store",
    "single_pair_store",
]


def _keys_values(K, V):
    K = as_matrix(K, "K")
    V = as_matrix(V, "V")
    check_same_count(K, V, "K", "V")
    return K, V


def _check_store_memory(K: np.ndarray, V: np.ndarray) -> None:
    p, d = V.shape[0], K.shape[0]
    check_memory(p * d, 8, f"the store W ({p} x {d}: rows of V x rows of K)")


def outer_product_store(K, V) -> np.ndarray:
    """Outer-product (correlation) store ``W_OP = sum_i v_i k_i^T = V K^T``.

    Source: 000, "Two ways" and App. B.

    >>> outer_product_store(np.eye(2), np.array([[1.0, 2.0]])).tolist()
    [[1.0, 2.0]]
    """
    K, V = _keys_values(K, V)
    _check_store_memory(K, V)
    return V @ K.T


def least_squares_store(K, V) -> np.ndarray:
    """Least-squares store ``W_LS = V K^+``: the minimum-Frobenius-norm minimiser
    of ``||W K - V||_F``. The pseudoinverse uses the numerical-rank rule of
    :func:`linmem.spectral.compact_svd` (exact for rational input).

    Source: 000, "Two ways" and App. C.

    >>> least_squares_store(np.array([[1.0, 1.0]]), np.array([[1.0, 3.0]])).round(12).tolist()
    [[2.0]]
    """
    K, V = _keys_values(K, V)
    _check_store_memory(K, V)
    return V @ pinv(K, name="K")


def single_pair_store(k, v) -> np.ndarray:
    """Minimum-Frobenius-norm ``A`` with ``A k = v``: ``A = v k^T / ||k||^2``
    (``v k^T`` for a unit key). Source: 000, App. B.

    >>> single_pair_store([2.0, 0.0], [1.0]).tolist()
    [[0.5, 0.0]]
    """
    k = as_vector(k, "k")
    v = as_vector(v, "v")
    check_nonzero_columns(k[:, None], "k")
    check_memory(v.size * k.size, 8, f"the store A ({v.size} x {k.size}: length of v x length of k)")
    if k.dtype == object or v.dtype == object:
        return np.outer(v, k) / np.sum(k * k)
    # v k^T / ||k||^2 = v (k / c)^T / (c ||k / c||^2): no underflow of the squares.
    c = max_abs(k)
    kn = k / c
    with np.errstate(over="ignore", under="ignore"):
        A = np.outer(v, kn / (c * np.sum(kn * kn)))
    return check_representable(A, "the store v k^T / ||k||^2", "scale k or v nearer 1")


def _solve(G: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``G^{-1} B`` for a nonsingular ``G`` in the number system of the
    operands: LAPACK for float64, Gauss-Jordan with partial pivoting for
    object arrays (exact rationals stay exact, mpmath keeps its precision)."""
    if G.dtype != object and B.dtype != object:
        return np.linalg.solve(G, B)
    n = G.shape[0]
    aug = np.concatenate([G, B], axis=1).astype(object)
    for col in range(n):
        pivot = max(range(col, n), key=lambda i: abs(aug[i, col]))
        aug[[col, pivot]] = aug[[pivot, col]]
        aug[col] = aug[col] / aug[col, col]
        for i in range(n):
            if i != col:
                aug[i] = aug[i] - aug[i, col] * aug[col]
    return aug[:, n:]


def ridge_store(K, V, *, ridge) -> np.ndarray:
    """Ridge (Tikhonov) store ``W = V (K^T K + ridge I_M)^{-1} K^T``, the
    minimiser of ``||W K - V||_F^2 + ridge ||W||_F^2`` for ``ridge > 0``; it
    tends to ``V K^+`` as ``ridge -> 0`` and is never exact on a consistent
    pair set unless ``V = 0``. ``ridge`` may be an int, ``Fraction``, float
    or mpf; with exact keys an exact ``ridge`` keeps the store exact.

    Source: the standard regularised least-squares fit (not in 000; a
    biased neighbour of :func:`least_squares_store`).

    >>> ridge_store(np.array([[1.0, 1.0]]), np.array([[1.0, 3.0]]), ridge=1.0).round(12).tolist()
    [[1.333333333333]]
    """
    K, V = _keys_values(K, V)
    _check_store_memory(K, V)
    if isinstance(ridge, bool) or not isinstance(ridge, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"ridge must be a real number, got {_describe(ridge)}")
    if not mpmath.isfinite(ridge) or ridge <= 0:
        raise ValueError(f"ridge must be a finite number > 0, got {ridge} (ridge = 0 is least_squares_store)")
    M = K.shape[1]
    if number_kind(K) == EXACT and number_kind(V) == EXACT:
        eye = np.eye(M, dtype=int).astype(object)
        return V @ _solve(K.T @ K + ridge * eye, K.T)
    if K.dtype == object or V.dtype == object:
        # mpmath: the compact SVD, not the Gram matrix, whose solve loses
        # cond(K)^2 (a ridge of 1e-30 on duplicated keys lost 20 of 50 digits)
        U, s, Z, _ = compact_svd(K, name="K")
        return ((V @ Z) * (s / (s * s + ridge))) @ U.T
    # With c = max|k_ij|: W = (V / c) (K'^T K' + (ridge / c^2) I)^{-1} K'^T for
    # K' = K / c, so the Gram matrix neither overflows nor underflows.
    c = max_abs(K)
    if c == 0.0:
        return np.zeros((V.shape[0], K.shape[0]))
    with np.errstate(over="ignore", under="ignore"):
        rho = float(ridge) / c / c
    check_representable(rho, f"ridge / max|K|^2 (ridge = {ridge}, max|K| = {c:.3g})",
                        "bring ridge and max|K|^2 within about 1e300 of each other")
    # (K^T K + rho I)^{-1} K^T = Z diag(s / (s^2 + rho)) U^T on the compact SVD
    # of K / c: no Gram matrix, stable for any rho >= 0 (rho below the
    # range is the least-squares store, as the formula's limit says).
    U, s, Z, _ = compact_svd(K / c, name="K")
    with np.errstate(over="ignore", under="ignore"):
        W = ((V @ Z) * (s / (s * s + rho) / c)) @ U.T
    return check_representable(W, "the ridge store", "divide V by a positive factor")


_METHODS = ("least_squares", "outer_product")


@dataclass
class LinearMemory:
    """A fitted linear memory: the store ``W`` plus its keys and values.

    >>> mem = LinearMemory.fit(np.eye(2), np.array([[1.0, -1.0]]))
    >>> mem.recall([1.0, 0.0]).tolist()
    [1.0]
    """

    W: np.ndarray
    K: np.ndarray
    V: np.ndarray
    method: str = field(default="least_squares")

    def __post_init__(self) -> None:
        # The constructor is public: refuse a store that does not map the keys
        # to the values' space, before recall or diagnostics trip over it.
        if not isinstance(self.method, str) or self.method not in _METHODS:
            raise ValueError(f"method must be one of {sorted(_METHODS)}, got {self.method!r}")
        self.K, self.V = _keys_values(self.K, self.V)
        self.W = as_matrix(self.W, "W")
        if self.W.shape != (self.V.shape[0], self.K.shape[0]):
            raise ValueError(
                f"W must have shape (p, d) = {(self.V.shape[0], self.K.shape[0])} to map "
                f"keys to values, got {self.W.shape}"
            )

    @classmethod
    def fit(
        cls, K, V, *, method: Literal["least_squares", "outer_product"] = "least_squares"
    ) -> "LinearMemory":
        """Build the store from keys ``K`` and values ``V`` with the chosen rule."""
        builders = {"least_squares": least_squares_store, "outer_product": outer_product_store}
        if not isinstance(method, str) or method not in builders:
            raise ValueError(
                f"method must be one of {sorted(builders)}, got {method!r}"
            )
        K, V = _keys_values(K, V)
        return cls(W=builders[method](K, V), K=K, V=V, method=method)

    def recall(self, q) -> np.ndarray:
        """``W q`` for one query (1-D) or a batch of queries as columns (2-D)."""
        try:
            ndim = np.ndim(q)
        except (ValueError, TypeError):
            ndim = 2  # let as_matrix report the unusable input
        if ndim not in (1, 2) and not (isinstance(q, (str, bytes, dict)) or q is None):
            raise ValueError(
                "q must be a 1-D query or a 2-D batch of queries as columns, got "
                f"shape {np.shape(q)}"
            )
        q = as_matrix(q, "q", ndim=ndim if ndim in (1, 2) else 2)
        if q.shape[0] != self.W.shape[1]:
            raise ValueError(
                f"q must have {self.W.shape[1]} rows (the key dimension), got {q.shape[0]}"
            )
        batch = q.shape[1] if q.ndim == 2 else 1
        p = self.W.shape[0]
        check_memory(p * batch, 8, f"the recalled values W q ({p} x {batch}: rows of W x queries in q)")
        return self.W @ q

    def residuals(self) -> np.ndarray:
        """Measured squared recall error ``||W k_j - v_j||^2`` per stored pair."""
        R = self.W @ self.K - self.V
        return np.sum(R * R, axis=0)

    def diagnostics(self) -> dict:
        """Leverage, SNR, expected and measured errors, and the noise gain.

        ``expected_error`` is ``1 - h_j``, the expectation over random values;
        ``measured_error`` is the residual of these particular values.
        """
        h = leverage_scores(self.K)
        svd = compact_svd(self.K)
        return {
            "leverage": h,
            "snr": snr(h),
            "expected_error": expected_error(h),
            "measured_error": self.residuals(),
            "key_rank": svd.rank,
            "noise_gain": pinv_energy(self.K),
            "store_frobenius_sq": float(np.sum(self.W * self.W)),
        }
