"""Compact SVD with an explicit numerical-rank rule, the pseudoinverse, the two
projectors and the SVD key-value view of a matrix.

Notation (000, "Two ways to construct the memory matrix" and App. C): the
compact SVD of keys ``K`` (d x M) is ``K = U_K diag(s_K) Z_K^T`` with ``r_K``
positive singular values; ``K^+ = Z_K diag(1/s_K) U_K^T``;
``P = K^+ K = Z_K Z_K^T`` (M x M, on the coefficients of the stored pairs) and
``Q = K K^+ = U_K U_K^T`` (d x d, on inputs).

Every function here works in the three number systems of
:mod:`linmem._validation` (float64, mpmath, exact rationals), except the SVD
itself, which has no exact rational form.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import NamedTuple

import mpmath
import numpy as np

from linmem._validation import EXACT, FLOAT, as_matrix, check_memory, check_representable, max_abs, number_kind
from linmem.tolerances import rank_tolerance

__all__ = [
    "CompactSVD",
    "compact_svd",
    "condition_number",
    "effective_pairs",
    "numerical_rank",
    "pinv",
    "pinv_energy",
    "projectors",
    "svd_key_value_view",
]


class CompactSVD(NamedTuple):
    """``A = U diag(s) Z^T`` with ``s`` positive and decreasing, ``rank = len(s)``;
    each column of ``U`` has its largest-magnitude entry positive."""

    U: np.ndarray
    s: np.ndarray
    Z: np.ndarray
    rank: int


def _full_svd(A: np.ndarray, kind: str):
    if kind == FLOAT:
        # LAPACK on A / max|a_ij|, then s rescaled: at 1e-300 or 1e300 the
        # unscaled SVD underflows or overflows (its rank then depends on the
        # scale); U and Z do not depend on it.
        c = max_abs(A)
        if c == 0.0:
            U, s, Vt = np.linalg.svd(A, full_matrices=False)
            return U, s, Vt.T
        U, s, Vt = np.linalg.svd(A / c, full_matrices=False)
        with np.errstate(over="ignore"):
            s = s * c
        check_representable(s, "the singular values of the matrix",
                            "divide it by a positive factor (every figure scales with it)")
        return U, s, Vt.T
    m, n = A.shape
    M = mpmath.matrix(A.tolist())
    U, S, Vt = mpmath.svd_r(M, full_matrices=False, compute_uv=True)
    k = min(m, n)
    U = np.array(U.tolist(), dtype=object).reshape(m, k)
    s = np.array([S[i] for i in range(k)], dtype=object)
    Z = np.array(Vt.T.tolist(), dtype=object).reshape(n, k)
    order = sorted(range(k), key=lambda i: -s[i])
    return U[:, order], s[order], Z[:, order]


def compact_svd(A, *, name: str = "A") -> CompactSVD:
    """Compact SVD ``A = U diag(s) Z^T`` keeping only numerically nonzero ``s``.

    Rank rule (:data:`linmem.tolerances.RANK_RULE`): ``s_l`` counts when
    ``s_l > max(m, n) * eps * s_max``, with ``eps`` the unit roundoff of the
    number system (float64, or ``2**-prec`` at the current mpmath precision).
    Source: 000, "A matrix as a key-value store" and App. A.

    >>> svd = compact_svd(np.array([[1.0, 1.0], [0.0, 0.0]]))
    >>> svd.rank, round(float(svd.s[0]) ** 2, 12)
    (1, 2.0)
    """
    A = as_matrix(A, name)
    kind = number_kind(A)
    if kind == EXACT:
        raise TypeError(
            f"{name} holds exact rationals, whose singular values are in general "
            "irrational; convert with linmem.precise.mp_array for an mpmath SVD, "
            "or use pinv/projectors/leverage_scores, which stay exact"
        )
    U, s, Z = _full_svd(A, kind)
    # Sign convention: the largest-magnitude entry of each u_l is positive,
    # so the SVD (and the key-value view) is reproducible across backends.
    for l in range(U.shape[1]):
        col = list(U[:, l])
        pivot = max(range(len(col)), key=lambda i: abs(col[i]))
        if col[pivot] < 0:
            U[:, l] = -U[:, l]
            Z[:, l] = -Z[:, l]
    if len(s) == 0 or s[0] == 0:
        r = 0
    else:
        tol = rank_tolerance(s[0], A.shape, kind)
        r = int(sum(1 for x in s if x > tol))
    return CompactSVD(U[:, :r], s[:r], Z[:, :r], r)


def _exact_pinv(A: np.ndarray) -> np.ndarray:
    key = (A.shape, tuple(Fraction(e) for e in A.ravel()))
    return _exact_pinv_cached(key).copy()


@functools.lru_cache(maxsize=256)
def _exact_pinv_cached(key) -> np.ndarray:
    # Exact pseudoinverses are expensive (sympy) and exact evidence enumerates
    # many value draws for one key matrix: cache by the exact entries.
    import sympy

    shape, entries = key
    A = np.array(entries, dtype=object).reshape(shape)
    if all(e == 0 for e in A.ravel()):
        return np.full((A.shape[1], A.shape[0]), Fraction(0), dtype=object)
    S = sympy.Matrix(
        A.shape[0], A.shape[1], [sympy.Rational(e.numerator, e.denominator)
                                 if isinstance(e, Fraction) else sympy.Integer(e)
                                 for e in A.ravel()]
    )
    Sp = S.pinv()
    out = np.empty(Sp.shape, dtype=object)
    for i in range(Sp.shape[0]):
        for j in range(Sp.shape[1]):
            q = sympy.Rational(Sp[i, j])
            out[i, j] = Fraction(int(q.p), int(q.q))
    return out


def pinv(A, *, name: str = "A") -> np.ndarray:
    """Moore-Penrose pseudoinverse ``A^+ = Z diag(1/s) U^T`` (000, App. A).

    Exact rationals give the exact pseudoinverse (through a full-rank
    factorisation, no SVD); float64 and mpmath use :func:`compact_svd`.

    >>> from fractions import Fraction as F
    >>> pinv(np.array([[F(1), F(1)]], dtype=object)).tolist()
    [[Fraction(1, 2)], [Fraction(1, 2)]]
    """
    A = as_matrix(A, name)
    if number_kind(A) == EXACT:
        return _exact_pinv(A)
    U, s, Z, _ = compact_svd(A, name=name)
    return (Z / s) @ U.T


def numerical_rank(A, *, name: str = "A") -> int:
    """Rank under the rule of :func:`compact_svd` (exact rank for rationals).

    >>> numerical_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))
    1
    """
    A = as_matrix(A, name)
    if number_kind(A) == EXACT:
        import sympy

        return int(sympy.Matrix(A.tolist()).rank())
    return compact_svd(A, name=name).rank


def condition_number(A, *, name: str = "A"):
    """``s_max / s_min`` over the retained singular values (1 for a zero matrix).

    >>> float(condition_number(np.diag([4.0, 0.5])))
    8.0
    """
    svd = compact_svd(A, name=name)
    if svd.rank == 0:
        return 1.0
    return svd.s[0] / svd.s[-1]


def projectors(K, *, name: str = "K") -> tuple[np.ndarray, np.ndarray]:
    """The coefficient projector ``P = K^+ K = Z_K Z_K^T`` (M x M) and the input
    projector ``Q = K K^+ = U_K U_K^T`` (d x d). Source: 000, App. C.

    >>> P, Q = projectors(np.array([[1.0, 1.0]]))
    >>> P.round(12).tolist(), Q.round(12).tolist()
    ([[0.5, 0.5], [0.5, 0.5]], [[1.0]])
    """
    K = as_matrix(K, name)
    d, M = K.shape
    check_memory(M * M + d * d, 8, f"the projectors P ({M} x {M}) and Q ({d} x {d}) of {name}")
    if number_kind(K) == EXACT:
        Kp = _exact_pinv(K)
        return Kp @ K, K @ Kp
    U, _, Z, _ = compact_svd(K, name=name)
    return Z @ Z.T, U @ U.T


def pinv_energy(K, *, name: str = "K"):
    """``||K^+||_F^2 = sum_l s_{K,l}^{-2}``, the query-noise gain of W_LS (000, App. G).

    >>> float(pinv_energy(np.diag([2.0, 0.5])))
    4.25
    """
    K = as_matrix(K, name)
    if number_kind(K) == EXACT:
        Kp = _exact_pinv(K)
        return np.sum(Kp * Kp)
    s = compact_svd(K, name=name).s
    if not len(s):
        return 0 * K[0, 0]
    if number_kind(K) != FLOAT:
        return np.sum(1 / (s * s))
    # (s_1 / s_l)^2 <= cond^2 is representable; only the final 1 / s_1^2 may
    # leave the range, which is then said instead of returning inf.
    with np.errstate(over="ignore", divide="ignore"):
        energy = np.sum((s[0] / s) ** 2) / s[0] / s[0]
    if energy == 0.0:
        energy = np.inf  # underflow below the subnormals: as unrepresentable as overflow
    return check_representable(
        energy, f"||{name}^+||_F^2 = sum_l s_l^-2 (smallest singular value {s[-1]:.3g})",
        f"scale {name} so that its singular values lie between about 1e-154 and 1e154",
    )


def svd_key_value_view(W, *, name: str = "W") -> tuple[np.ndarray, np.ndarray]:
    """Read any matrix as a key-value store: keys ``z_l`` (columns of Z) and
    values ``s_l u_l``, so that ``W q = sum_l (s_l u_l)(z_l^T q)``.
    Source: 000, "A matrix as a key-value store".

    >>> keys, values = svd_key_value_view(np.array([[0.0, 2.0]]))
    >>> np.abs(keys).round(12).tolist(), values.round(12).tolist()
    ([[0.0], [1.0]], [[2.0]])
    """
    U, s, Z, _ = compact_svd(W, name=name)
    return Z, U * s


def effective_pairs(K, V, *, name_keys: str = "K", name_values: str = "V"):
    """The effective pairs of the least-squares store: orthonormal keys
    ``u_{K,l}`` and values ``V z_{K,l} / s_{K,l}``, with
    ``W_LS = sum_l (V z_{K,l} / s_{K,l}) u_{K,l}^T``. Source: 000, "Two ways".

    >>> keys, values = effective_pairs(np.eye(2) * 2, np.eye(2))
    >>> np.allclose(values @ keys.T, np.eye(2) / 2)
    True
    """
    from linmem._validation import check_same_count

    K = as_matrix(K, name_keys)
    V = as_matrix(V, name_values)
    check_same_count(K, V, name_keys, name_values)
    U, s, Z, _ = compact_svd(K, name=name_keys)
    return U, (V @ Z) / s
