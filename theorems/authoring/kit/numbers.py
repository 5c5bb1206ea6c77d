"""Number systems: inputs moved between float64, mpmath and exact rationals, and reference
computations in each (rank, norms, the tolerance scale, sympy round trips, exact constructions)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

import linmem
from linmem.precise import EXACT, MPMATH, exact_array, mp_array, number_kind

__all__ = [
    "exact",
    "eye",
    "from_sympy",
    "integer_array",
    "is_exact",
    "norm",
    "null_space",
    "rank",
    "rational_spectrum",
    "scale",
    "sq",
    "stereographic",
    "to_mp",
    "to_sympy",
    "unit_columns",
]


def exact(x) -> np.ndarray:
    """``x`` (integers, rationals or floats at their binary value) as an
    object array of ``Fraction``.

    >>> exact([[1, 2]]).tolist()
    [[Fraction(1, 1), Fraction(2, 1)]]
    """
    return exact_array(x, name="x")


def is_exact(x) -> bool:
    """True for exact rational arrays and numbers (not float, not mpmath).

    >>> is_exact(exact([1])), is_exact(np.ones(1))
    (True, False)
    """
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return True
    arr = np.asarray(x)
    return arr.dtype == object and arr.size > 0 and number_kind(arr) == EXACT


def to_mp(x: Any) -> Any:
    """Exact inputs rounded at the current mpmath precision: arrays of any
    number system through :func:`linmem.mp_array`, ``Fraction`` scalars
    divided at that precision; tuples, lists and dicts entry by entry;
    Python ints (indices, counts) and strings left alone."""
    if isinstance(x, np.ndarray):
        return mp_array(x) if x.size else x
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, tuple):  # named tuples keep their type
        values = [to_mp(e) for e in x]
        return type(x)(*values) if hasattr(x, "_fields") else tuple(values)
    if isinstance(x, list):
        return [to_mp(e) for e in x]
    if isinstance(x, dict):
        return {k: to_mp(v) for k, v in x.items()}
    return x


def eye(n: int, like) -> np.ndarray:
    """The n x n identity in the number system of ``like``: Python ints for
    exact and mpmath arrays (no float creeps into exact arithmetic), float64
    otherwise.

    >>> eye(2, exact([1])).dtype, eye(2, np.ones(1)).dtype
    (dtype('O'), dtype('float64'))
    """
    if np.asarray(like).dtype == object:
        return np.eye(n, dtype=int).astype(object)
    return np.eye(n)


def rank(A) -> int:
    """Reference rank of a matrix, computed outside the implementation under
    test: Gaussian elimination in Fractions for exact rationals, mpmath singular values above
    ``sqrt(eps) * s_max`` for mpmath arrays (the ladder's inputs are at most
    1e20-conditioned and the lowest rung has 50 digits, so the rule separates
    the nonzero from the rounded-zero singular values), LAPACK's
    ``matrix_rank`` for float64.

    >>> rank(exact([[1, 2], [2, 4]])), rank(np.eye(3))
    (1, 3)
    """
    arr = np.asarray(A)
    if arr.ndim != 2:
        raise ValueError(f"A must be a 2-D array, got shape {arr.shape}")
    if 0 in arr.shape:
        return 0
    kind = number_kind(arr) if arr.dtype == object else None
    if kind == EXACT:
        return _exact_rank(arr)
    if kind == MPMATH:
        s = mpmath.svd_r(mpmath.matrix(arr.tolist()), compute_uv=False)
        top = max(abs(x) for x in s)
        cut = top * mpmath.sqrt(mpmath.eps)
        return int(sum(1 for x in s if abs(x) > cut))
    return int(np.linalg.matrix_rank(np.asarray(arr, dtype=float)))


def _exact_rank(A: np.ndarray) -> int:
    """Rank by Gaussian elimination in Fractions (about 30 times faster than
    sympy on the small matrices a witness search draws by the thousand)."""
    rows = [[Fraction(x) for x in row] for row in A]
    rank = 0
    for col in range(A.shape[1]):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(rank + 1, len(rows)):
            if rows[i][col] != 0:
                f = rows[i][col] / rows[rank][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
    return rank


def _norm(x):
    from theorems.core.tolerance import norm

    return norm(x)


def scale(K, *operands, condition: bool = True):
    """The tolerance scale of the tolerance model for terms built from keys
    ``K``: ``max(shape K) * cond(K) * prod_X (1 + ||X||)`` over the array
    operands (non-arrays, e.g. an index, are skipped); ``condition=False``
    drops the condition number (identities that only use orthonormality).

    >>> float(scale(np.diag([4.0, 1.0]), np.ones((1, 2))))
    19.31370849898476
    """
    K = np.asarray(K)
    size = max(K.shape) if K.ndim else 1
    out = size * (linmem.condition_number(K) if condition and K.ndim == 2 and K.size else 1)
    for X in operands:
        if isinstance(X, np.ndarray) and X.size:
            out = out * (1 + _norm(X))
    return out


def sq(A):
    """Squared Frobenius norm ``sum(A * A)`` in the number system of ``A``.

    >>> sq(exact([[1, 2]]))
    Fraction(5, 1)
    """
    return np.sum(A * A)


_NORM_KINDS = ("fro", "max", "1", "inf", "2")


def norm(A, kind: str = "fro"):
    """A matrix or vector norm in the number system of ``A``, so a claim's
    terms never branch on exact, mpmath or float64 input: ``"fro"``
    (Frobenius; Euclidean for a vector), ``"max"`` (largest absolute entry),
    ``"1"`` (largest column sum of absolute values), ``"inf"`` (largest row
    sum), ``"2"`` (largest singular value). Exact input gives an exact value
    (a ``Fraction``, or a sympy number where a square root is irrational),
    mpmath input an ``mpf`` at the working precision, float input a float.

    >>> norm(exact([[3, 4]])), norm(exact([[1, 1]])), norm(np.array([[3.0, 4.0]]))
    (Fraction(5, 1), sqrt(2), 5.0)
    >>> norm(exact([[1, -2], [3, 4]]), "1"), norm(exact([[1, -2], [3, 4]]), "inf")
    (Fraction(6, 1), Fraction(7, 1))
    """
    import sympy

    if kind not in _NORM_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, _NORM_KINDS))}, got {kind!r}")
    A = np.asarray(A)
    if A.ndim == 0:
        A = A.reshape(1, 1)
    M = A.reshape(-1, 1) if A.ndim == 1 else A
    if M.ndim != 2:
        raise ValueError(f"A must be a scalar, vector or matrix, got shape {A.shape}")
    if A.dtype != object:
        M = M.astype(float)
        order = {"fro": "fro", "max": None, "1": 1, "inf": np.inf, "2": 2}[kind]
        return float(np.max(np.abs(M), initial=0.0)) if order is None else float(np.linalg.norm(M, order))
    exact_input = is_exact(M)
    absolute = np.vectorize(abs, otypes=[object])(M) if M.size else M
    if kind == "max":
        return max(absolute.ravel(), default=0)
    if kind in ("1", "inf"):
        sums = [sum(col, start=0) for col in (absolute.T if kind == "1" else absolute)]
        return max(sums, default=0)
    if kind == "fro":
        total = sum((e * e for e in M.ravel()), start=0)
        if exact_input:
            root = sympy.sqrt(sympy.Rational(total.numerator, total.denominator) if isinstance(total, Fraction)
                              else sympy.Integer(total))
            return Fraction(int(root.p), int(root.q)) if root.is_Rational else root
        return mpmath.sqrt(total)
    if exact_input:
        try:
            root = to_sympy(M).norm(2)
        except (ValueError, TypeError):  # sympy cannot order roots it writes with I (casus irreducibilis)
            from theorems.numbers import NotExact

            raise NotExact("kit.norm(A, '2')", "sympy cannot order the singular values") from None
        return Fraction(int(root.p), int(root.q)) if root.is_Rational else root
    return max(mpmath.svd_r(mpmath.matrix(M.tolist()), compute_uv=False), default=mpmath.mpf(0))


def unit_columns(K) -> bool:
    """True when every column of the exact matrix ``K`` has norm exactly one.

    >>> unit_columns(exact([[1, 0], [0, -1]])), unit_columns(exact([[2]]))
    (True, False)
    """
    return all(sum(x * x for x in K[:, j]) == 1 for j in range(K.shape[1]))


def stereographic(t) -> np.ndarray:
    """The exactly unit vector of R^(n+1) that inverse stereographic
    projection gives for the rational point ``t`` of R^n:
    ``(2 t, 1 - |t|^2) / (1 + |t|^2)``.

    >>> [str(x) for x in stereographic([Fraction(1, 2)])]
    ['4/5', '3/5']
    """
    n2 = sum(x * x for x in t)
    return np.array([2 * x / (1 + n2) for x in t] + [(1 - n2) / (1 + n2)], dtype=object)


def to_sympy(A):
    """An exact 2-D array (integers or ``Fraction``) as a sympy ``Rational`` matrix.

    >>> to_sympy(exact([[1, 2]])).rank()
    1
    """
    import sympy

    A = np.asarray(A)
    if A.ndim != 2:
        raise ValueError(f"A must be a 2-D array, got shape {A.shape}")
    return sympy.Matrix(A.shape[0], A.shape[1],
                        [sympy.Rational(f.numerator, f.denominator) for f in (Fraction(x) for x in A.ravel())])


def from_sympy(S) -> np.ndarray:
    """A sympy matrix of rationals as an object array of ``Fraction``.

    >>> from_sympy(to_sympy(exact([[1, 2]]))).tolist()
    [[Fraction(1, 1), Fraction(2, 1)]]
    """
    return np.array([[Fraction(int(x.p), int(x.q)) for x in S.row(i)] for i in range(S.rows)],
                    dtype=object).reshape(S.rows, S.cols)


def null_space(A) -> np.ndarray:
    """A rational basis of ``ker A`` as the columns of an n x dim array
    (sympy's exact null space: a reference, not under test).

    >>> null_space(exact([[1, 1]])).tolist()
    [[Fraction(-1, 1)], [Fraction(1, 1)]]
    """
    basis = to_sympy(A).nullspace()
    n = np.shape(A)[1]
    if not basis:
        return np.zeros((n, 0), dtype=object)
    return np.concatenate([from_sympy(b) for b in basis], axis=1)


def integer_array(rng: np.random.Generator, shape, *, bound: int = 3) -> np.ndarray:
    """Integers uniform in [-bound, bound] of the given shape, as a Fraction array.

    >>> integer_array(np.random.default_rng(0), (2, 2)).shape
    (2, 2)
    """
    return exact(rng.integers(-bound, bound + 1, size=shape))


def rational_spectrum(rank: int, cond: int) -> np.ndarray:
    """``rank`` rational singular values from 1 down to exactly ``1/cond``,
    geometrically spaced (``1 / round(cond^(l/(rank-1)))``), the spectrum of
    :func:`linmem.ensembles.rational_controlled_spectrum`.

    >>> [str(s) for s in rational_spectrum(3, 100)]
    ['1', '1/10', '1/100']
    """
    return np.array([Fraction(1, round(cond ** (l / (rank - 1)))) if rank > 1 else Fraction(1)
                     for l in range(rank)], dtype=object)
