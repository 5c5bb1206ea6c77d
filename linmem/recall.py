"""Recall at the stored keys: leverage, the signal/cross-talk split, SNR,
expected reconstruction error, query-noise sensitivity and the kernel
(consistency) condition.

Source: 000, "Measure the strength of recall", "Sensitivity to query
perturbations", "Shared structure" and Appendices D, G, H. The expectations
are over values that are independent, zero-mean and unit-norm, independent
of the keys (so ``E_V[V^T V] = I_M``), with ``K`` held fixed.

Scalar formulas (:func:`snr`, :func:`expected_error`, :func:`crosstalk_power`)
accept floats, arrays, ``fractions.Fraction``, ``mpmath.mpf`` and sympy
expressions alike, so that one formula serves numeric and symbolic evidence.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from linmem._validation import (
    EXACT,
    FLOAT,
    MPMATH,
    as_matrix,
    as_vector,
    check_nonnegative_scalar,
    check_memory,
    check_representable,
    check_same_count,
    check_unit_columns,
    frobenius,
    frobenius_sq,
    number_kind,
)
from linmem.spectral import compact_svd, numerical_rank, pinv_energy, projectors
from linmem.tolerances import working_eps

__all__ = [
    "CONSISTENCY_ULPS",
    "LEVERAGE_ROUNDING_ULPS",
    "op_conditional_error",
    "op_recall_decomposition",
    "consistency_residual",
    "crosstalk_power",
    "expected_error",
    "fixed_store_noise_error",
    "is_consistent",
    "leverage_scores",
    "mean_expected_error",
    "query_noise_error",
    "recall_decomposition",
    "snr",
    "snr_jensen_gap",
]

#: ``is_consistent`` accepts ``||V(I - P)||_F <= CONSISTENCY_ULPS * max(d, M) * eps * ||V||_F``.
CONSISTENCY_ULPS = 64


def _is_symbolic(x: Any) -> bool:
    return type(x).__module__.startswith("sympy")


#: Float and mpmath leverage scores may leave [0, 1] by rounding (h = sum of
#: squares of a computed orthonormal row); up to LEVERAGE_ROUNDING_ULPS * eps
#: (eps of the number system) outside is taken as the boundary value, anything
#: further is refused. Exact scores get no slack.
LEVERAGE_ROUNDING_ULPS = 256


def _leverage_value(h: Any, name: str):
    """Accept a leverage score: a scalar or a 1-D array with entries in [0, 1]
    (float values within rounding of the interval are moved onto it)."""
    if _is_symbolic(h):
        return h
    try:
        ndim = np.ndim(h)
    except (ValueError, TypeError):
        ndim = 1  # let as_vector report the unusable input
    if not isinstance(h, np.ndarray) and ndim == 0:
        if isinstance(h, bool) or not isinstance(h, (numbers.Real, mpmath.mpf)):
            raise TypeError(f"{name} must be a real number or array, got {type(h).__name__} {h!r}")
        if isinstance(h, (float, mpmath.mpf)) and mpmath.isfinite(h):
            slack = LEVERAGE_ROUNDING_ULPS * working_eps(MPMATH if isinstance(h, mpmath.mpf) else FLOAT)
            if -slack <= h <= 1 + slack:
                return min(max(h, 0 * h), 0 * h + 1)
        if not mpmath.isfinite(h) or not (0 <= h <= 1):
            raise ValueError(f"{name} must lie in [0, 1] (a leverage score), got {h}")
        return h
    arr = as_vector(h, name)
    kind = number_kind(arr)
    if kind == FLOAT:
        slack = LEVERAGE_ROUNDING_ULPS * working_eps(FLOAT)
        near = (arr >= -slack) & (arr <= 1 + slack)
        arr = np.where(near, np.clip(arr, 0.0, 1.0), arr)
    elif kind == MPMATH:
        slack = LEVERAGE_ROUNDING_ULPS * working_eps(MPMATH)
        arr = np.array([min(max(e, 0 * e), 0 * e + 1) if -slack <= e <= 1 + slack else e for e in arr],
                       dtype=object)
    bad = [i for i, e in enumerate(arr) if not (0 <= e <= 1)]
    if bad:
        raise ValueError(
            f"{name} must lie in [0, 1] (leverage scores), got {arr[bad[0]]} at index {bad[0]}"
        )
    return arr


def leverage_scores(K, *, name: str = "K") -> np.ndarray:
    """Leverage ``h_j = P_jj = ||Z_K^T e_j||^2``, each in [0, 1], summing to r_K.
    Source: 000, "Measure the strength of recall" and App. D.

    >>> leverage_scores(np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])).round(12).tolist()
    [0.333333333333, 0.333333333333, 0.333333333333, 1.0]
    """
    K = as_matrix(K, name)
    if number_kind(K) == EXACT:
        P, _ = projectors(K, name=name)
        return np.diagonal(P).copy()
    Z = compact_svd(K, name=name).Z
    return np.sum(Z * Z, axis=1)


def recall_decomposition(K, V, *, name_keys: str = "K", name_values: str = "V"):
    """Split least-squares recall at every stored key into signal and cross-talk:
    ``W_LS k_j = h_j v_j + n_j`` with ``n_j = sum_{i != j} P_ij v_i``.
    Returns ``(signal, crosstalk)``, both p x M, column j for key j.
    Source: 000, "Measure the strength of recall".

    >>> s, n = recall_decomposition(np.eye(2), np.ones((1, 2)))
    >>> s.tolist(), float(np.abs(n).max())
    ([[1.0, 1.0]], 0.0)
    """
    K = as_matrix(K, name_keys)
    V = as_matrix(V, name_values)
    check_same_count(K, V, name_keys, name_values)
    P, _ = projectors(K, name=name_keys)
    h = np.diagonal(P)
    signal = V * h
    return signal, V @ P - signal


def snr(h):
    """Power signal-to-noise ratio of least-squares recall, ``h / (1 - h)``.

    Signal power ``h^2`` over expected cross-talk power ``h - h^2``; infinite at
    ``h = 1`` (exact recall). Source: 000, "Measure the strength" (boxed).

    >>> snr(0.5), snr(np.array([0.25, 0.75])).tolist()
    (1.0, [0.3333333333333333, 3.0])
    """
    h = _leverage_value(h, "h")
    if isinstance(h, np.ndarray) and number_kind(h) == FLOAT:
        with np.errstate(divide="ignore"):
            return h / (1.0 - h)
    if isinstance(h, float) and h == 1.0:
        return float("inf")
    if not _is_symbolic(h) and np.any(np.asarray(h, dtype=object) == 1):
        raise ValueError(
            "h must be < 1 for an exact or mpmath SNR (h = 1 means exact recall "
            "and an infinite SNR)"
        )
    return h / (1 - h)


def snr_jensen_gap(h, weights=None):
    """Jensen gap of the SNR over a finite law of leverage scores,
    ``E[h/(1-h)] - m/(1-m) = E[(h - m)^2 / ((1 - h)(1 - m)^2)]`` with ``m = E h``.

    The right side is the exact tangent-line remainder of the convex
    ``h/(1-h)`` at ``m``, so the gap is formed without the cancellation of the
    difference: it is >= 0, and 0 only for a degenerate law. ``h``: a 1-D
    array of leverage scores in [0, 1) (at h = 1 the mean SNR is infinite);
    ``weights``: as many nonnegative numbers, not all zero, normalised to sum
    1 (default: uniform). Exact for ``Fraction`` input, mpmath for ``mpf``.
    Source: 000, App. E (the convexity of the SNR behind the dimension-only
    estimate; ours).

    >>> from fractions import Fraction as F
    >>> snr_jensen_gap([F(0), F(1, 2)])
    Fraction(1, 6)
    >>> float(snr_jensen_gap([0.25, 0.25]))
    0.0
    """
    h = _leverage_value(as_vector(h, "h"), "h")
    hs = list(h)
    at_one = [i for i, x in enumerate(hs) if not x < 1]
    if at_one:
        raise ValueError(f"h must lie in [0, 1) (at h = 1 the mean SNR is infinite), got 1 at index {at_one[0]}")
    if weights is None:
        ws = [1] * len(hs)
    elif number_kind(h) == EXACT and np.asarray(weights).dtype.kind in "iuO":
        ws = list(as_vector(np.asarray(weights, dtype=object), "weights"))  # integers and fractions stay exact
    else:
        ws = list(as_vector(weights, "weights"))
    if len(ws) != len(hs):
        raise ValueError(f"weights must give one weight per leverage score ({len(hs)}), got {len(ws)}")
    if any(not w >= 0 for w in ws) or not sum(ws) > 0:
        raise ValueError(f"weights must be nonnegative and not all zero, got {ws}")
    one = hs[0] * 0 + 1  # 1 in the number system of h
    total = one * sum(ws)
    ws = [one * w / total for w in ws]
    m = sum(w * x for w, x in zip(ws, hs))
    return sum(w * (x - m) ** 2 / ((1 - x) * (1 - m) ** 2) for w, x in zip(ws, hs))


def crosstalk_power(h):
    """Expected cross-talk power ``E_V ||n_j||^2 = h - h^2`` (000, App. D).

    >>> crosstalk_power(0.5)
    0.25
    """
    h = _leverage_value(h, "h")
    return h - h * h


def expected_error(h):
    """Expected squared reconstruction error of least-squares recall, ``1 - h``
    (000, App. D): attenuation ``(1 - h)^2`` plus cross-talk ``h - h^2``.

    >>> expected_error(0.25)
    0.75
    """
    h = _leverage_value(h, "h")
    return 1 - h


def mean_expected_error(K, *, name: str = "K"):
    """Average expected error over the stored pairs, ``1 - r_K / M`` (000, boxed).

    Exact (a ``Fraction``) when ``K`` holds exact rationals.

    >>> mean_expected_error(np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]))
    0.5
    """
    K = as_matrix(K, name)
    r = numerical_rank(K, name=name)
    M = K.shape[1]
    if number_kind(K) == EXACT:
        return 1 - Fraction(r, M)
    return 1 - r / M


def query_noise_error(K, *, tau, name: str = "K"):
    """Expected error of least-squares recall from a noisy stored key,
    ``E_{V,eta} ||W_LS (k_j + eta) - v_j||^2 = 1 - h_j + tau^2 sum_l s_{K,l}^{-2}``,
    for zero-mean query noise with covariance ``tau^2 I`` (any distribution).
    Returns one value per key. Source: 000, "Sensitivity" (boxed) and App. G.

    >>> query_noise_error(np.eye(2), tau=0.5).tolist()
    [0.5, 0.5]
    """
    K = as_matrix(K, name)
    tau = check_nonnegative_scalar(tau, "tau")
    if number_kind(K) != FLOAT:
        return expected_error(leverage_scores(K, name=name)) + tau * tau * pinv_energy(K, name=name)
    # One SVD for both terms; tau / s_l before squaring, so that tau and K
    # scaled together by any factor give the same figure.
    _, s, Z, _ = compact_svd(K, name=name)
    with np.errstate(over="ignore"):
        gain = float(np.sum((tau / s) ** 2)) if tau > 0 and len(s) else 0.0
    check_representable(gain, f"tau^2 ||{name}^+||_F^2 (tau = {tau}, smallest singular value "
                        f"{s[-1] if len(s) else 0:.3g})", f"scale tau and {name} by a common factor")
    return expected_error(np.sum(Z * Z, axis=1)) + gain


def fixed_store_noise_error(W, K, V, *, tau):
    """For a fixed store W: ``E_eta ||W(k_j + eta) - v_j||^2 = ||W k_j - v_j||^2 + tau^2 ||W||_F^2``
    for zero-mean noise with covariance ``tau^2 I``. One value per key. Source: 000, App. G.

    >>> fixed_store_noise_error(np.eye(2), np.eye(2), np.eye(2), tau=1.0).tolist()
    [2.0, 2.0]
    """
    W = as_matrix(W, "W")
    K = as_matrix(K, "K")
    V = as_matrix(V, "V")
    check_same_count(K, V, "K", "V")
    if W.shape != (V.shape[0], K.shape[0]):
        raise ValueError(
            f"W must have shape (p, d) = {(V.shape[0], K.shape[0])} to map keys to "
            f"values, got {W.shape}"
        )
    tau = check_nonnegative_scalar(tau, "tau")
    R = W @ K - V
    if R.dtype == object or W.dtype == object:
        return np.sum(R * R, axis=0) + tau * tau * np.sum(W * W)
    with np.errstate(over="ignore"):
        out = np.sum(R * R, axis=0) + frobenius_sq(W, float(tau))
    nonzero = np.any(R != 0, axis=0) | bool(tau > 0 and np.any(W != 0))
    return check_representable(out, "the squared recall errors ||W(k_j + eta) - v_j||^2",
                               "scale W and V (or V alone) by a common factor", nonzero=nonzero)


def consistency_residual(K, V):
    """``||V (I - P)||_F``: zero exactly when some W fits every pair (``ker K ⊆ ker V``).
    Source: 000, App. H.

    >>> round(float(consistency_residual(np.array([[1.0, 1.0]]), np.array([[1.0, 2.0]]))), 12)
    0.707106781187
    """
    K = as_matrix(K, "K")
    V = as_matrix(V, "V")
    check_same_count(K, V, "K", "V")
    if number_kind(K) == FLOAT and number_kind(V) == FLOAT:
        # V (I - P) = V - (V Z_K) Z_K^T from the thin SVD: O(M d) memory, no
        # M x M projector, and a norm that neither underflows nor overflows.
        Z = compact_svd(K).Z
        return frobenius(V - (V @ Z) @ Z.T)
    P, _ = projectors(K)
    R = V - V @ P
    total = np.sum(R * R)
    if number_kind(K) == EXACT and number_kind(V) == EXACT:
        return total  # squared norm, exact: zero iff consistent
    return mpmath.sqrt(total) if not isinstance(total, float) else float(np.sqrt(total))


def is_consistent(K, V) -> bool:
    """Whether exact fitting ``W K = V`` is possible, i.e. ``ker(K) ⊆ ker(V)``,
    i.e. ``V (I - P) = 0`` (000, App. H). Exact for rationals; for floats the
    residual is compared with ``CONSISTENCY_ULPS * max(d, M) * eps * ||V||_F``.

    >>> is_consistent(np.array([[1.0, 1.0]]), np.array([[2.0, 2.0]]))
    True
    >>> is_consistent(np.array([[1.0, 1.0]]), np.array([[1.0, 2.0]]))
    False
    """
    K = as_matrix(K, "K")
    V = as_matrix(V, "V")
    res = consistency_residual(K, V)
    if number_kind(K) == EXACT and number_kind(V) == EXACT:
        return res == 0
    kind = number_kind(K) if number_kind(K) != EXACT else number_kind(V)
    vnorm = mpmath.sqrt(np.sum(V * V)) if kind != FLOAT else frobenius(V)
    return bool(res <= CONSISTENCY_ULPS * max(K.shape) * working_eps(kind) * vnorm)


def _check_gram_memory(K: np.ndarray) -> None:
    M = K.shape[1]
    check_memory(M * M, 8, f"the {M} x {M} Gram matrix K^T K")


def op_recall_decomposition(K, V):
    """Split outer-product recall at every stored unit key:
    ``W_OP k_j = v_j + sum_{i != j} (k_i^T k_j) v_i``. Returns
    ``(signal, crosstalk)``, both p x M. Keys must have unit norm.
    Source: 000, App. B.

    >>> s, n = op_recall_decomposition(np.eye(2), np.array([[1.0, 2.0]]))
    >>> s.tolist(), n.tolist()
    ([[1.0, 2.0]], [[0.0, 0.0]])
    """
    K = as_matrix(K, "K")
    V = as_matrix(V, "V")
    check_same_count(K, V, "K", "V")
    check_unit_columns(K, "K")
    _check_gram_memory(K)
    G = K.T @ K
    off = G - np.diag(np.diagonal(G))
    return V.copy(), V @ off


def op_conditional_error(K):
    """Expected outer-product recall error given unit keys, over values with
    ``E[V^T V] = I``: ``E_V ||W_OP k_j - v_j||^2 = sum_{i != j} (k_i^T k_j)^2``.
    One value per key. Source: 000, App. E.

    >>> op_conditional_error(np.array([[1.0, 0.6], [0.0, 0.8]])).round(12).tolist()
    [0.36, 0.36]
    """
    K = as_matrix(K, "K")
    check_unit_columns(K, "K")
    _check_gram_memory(K)
    G = K.T @ K
    off = G - np.diag(np.diagonal(G))
    return np.sum(off * off, axis=0)
