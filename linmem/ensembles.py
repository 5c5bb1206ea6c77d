"""Random and structured keys and values, each drawn from an explicit
``numpy.random.Generator``.

Float ensembles return float64 arrays with vectors as columns. The exact
constructions (:func:`rational_orthogonal`, :func:`rational_unit_vectors`)
return object arrays of ``fractions.Fraction`` with exactly orthonormal or
exactly unit columns, for evidence in exact arithmetic.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from linmem._validation import (
    as_matrix,
    check_generator,
    check_memory,
    check_positive_int,
)

__all__ = [
    "consistent_values",
    "controlled_spectrum",
    "duplicated_keys",
    "gaussian_vectors",
    "random_sign_values",
    "random_sign_vectors",
    "rational_controlled_spectrum",
    "rational_orthogonal",
    "rational_unit_vectors",
    "spherical_vectors",
]


#: Largest ``scale`` of the exact constructions: numpy draws the integers in
#: ``[-scale, scale]`` as int64.
_MAX_INTEGER_SCALE = int(np.iinfo(np.int64).max) - 1


def _scale(scale) -> int:
    scale = check_positive_int(scale, "scale")
    if scale > _MAX_INTEGER_SCALE:
        raise ValueError(
            f"scale must be an integer in 1..{_MAX_INTEGER_SCALE} (numpy draws int64), got {scale}"
        )
    return scale


_MAX_FLOAT_INT = int(np.finfo(np.float64).max)


def _dims(dim, count):
    dim = check_positive_int(dim, "dim")
    count = check_positive_int(count, "count")
    check_memory(dim * count, 8, f"a dim x count = {dim} x {count} float64 array")
    return dim, count


def gaussian_vectors(dim: int, count: int, *, rng: np.random.Generator) -> np.ndarray:
    """``count`` i.i.d. ``N(0, I_dim / dim)`` vectors as columns (004's ensemble).

    >>> gaussian_vectors(3, 5, rng=np.random.default_rng(0)).shape
    (3, 5)
    """
    dim, count = _dims(dim, count)
    rng = check_generator(rng)
    return rng.standard_normal((dim, count)) / np.sqrt(dim)


def spherical_vectors(dim: int, count: int, *, rng: np.random.Generator) -> np.ndarray:
    """``count`` independent vectors uniform on the unit sphere of R^dim, as columns.

    >>> X = spherical_vectors(4, 3, rng=np.random.default_rng(0))
    >>> np.allclose(np.linalg.norm(X, axis=0), 1)
    True
    """
    dim, count = _dims(dim, count)
    rng = check_generator(rng)
    X = rng.standard_normal((dim, count))
    norms = np.linalg.norm(X, axis=0)
    while np.any(norms == 0):  # probability zero, but never divide by it
        zero = norms == 0
        X[:, zero] = rng.standard_normal((dim, int(zero.sum())))
        norms = np.linalg.norm(X, axis=0)
    return X / norms


def random_sign_vectors(dim: int, count: int, *, rng: np.random.Generator) -> np.ndarray:
    """Vectors with i.i.d. entries ``±1/sqrt(dim)``: unit norm, a finite design.

    >>> X = random_sign_vectors(4, 2, rng=np.random.default_rng(1))
    >>> sorted(set(np.abs(X).ravel().tolist()))
    [0.5]
    """
    dim, count = _dims(dim, count)
    rng = check_generator(rng)
    return rng.choice([-1.0, 1.0], size=(dim, count)) / np.sqrt(dim)


def random_sign_values(W0, *, rng: np.random.Generator) -> np.ndarray:
    """``v_i = s_i w_i`` with independent fair signs ``s_i`` and fixed columns ``w_i``.

    With unit ``w_i`` these values are independent, zero-mean and unit-norm:
    exactly the value assumptions of 000 (App. A), on a finite distribution.

    >>> random_sign_values(np.eye(2), rng=np.random.default_rng(0)).shape
    (2, 2)
    """
    W0 = as_matrix(W0, "W0")
    rng = check_generator(rng)
    return W0 * rng.choice([-1, 1], size=W0.shape[1])


def duplicated_keys(
    dim: int, count: int, *, n_distinct: int, rng: np.random.Generator
) -> np.ndarray:
    """``count`` spherical keys drawn with repetition from ``n_distinct`` distinct
    ones; every distinct key appears at least once, so the rank is
    ``min(n_distinct, dim)`` almost surely.

    >>> K = duplicated_keys(3, 6, n_distinct=2, rng=np.random.default_rng(0))
    >>> len({tuple(c) for c in K.T.round(12).tolist()})
    2
    """
    dim, count = _dims(dim, count)
    n_distinct = check_positive_int(n_distinct, "n_distinct")
    if n_distinct > count:
        raise ValueError(
            f"n_distinct must be <= count = {count}, got {n_distinct}"
        )
    if dim == 1 and n_distinct > 2:
        raise ValueError(f"n_distinct must be <= 2 in dimension 1 (only ±1 are unit), got {n_distinct}")
    rng = check_generator(rng)
    base = spherical_vectors(dim, n_distinct, rng=rng)
    if dim == 1:
        base = np.array([[1.0, -1.0][:n_distinct]])
    idx = np.concatenate([np.arange(n_distinct), rng.integers(0, n_distinct, count - n_distinct)])
    return base[:, rng.permutation(idx)]


def controlled_spectrum(
    dim: int,
    count: int,
    *,
    cond: float,
    rank: int | None = None,
    rng: np.random.Generator,
) -> np.ndarray:
    """Keys ``U diag(s) V^T`` with Haar-random orthonormal ``U``, ``V``, ``rank``
    singular values spaced geometrically from 1 down to ``1/cond`` and the
    rest exactly zero (as LAPACK's dlatms mode 3).

    >>> K = controlled_spectrum(5, 7, cond=1e6, rank=3, rng=np.random.default_rng(0))
    >>> s = np.linalg.svd(K, compute_uv=False)
    >>> round(float(s[0] / s[2])), bool(s[3] < 1e-12)
    (1000000, True)
    """
    dim, count = _dims(dim, count)
    rng = check_generator(rng)
    top = min(dim, count)
    rank = top if rank is None else check_positive_int(rank, "rank")
    if rank > top:
        raise ValueError(f"rank must be <= min(dim, count) = {top}, got {rank}")
    if isinstance(cond, bool) or not isinstance(cond, numbers.Real):
        raise TypeError(f"cond must be a finite real number, got {type(cond).__name__} {cond!r}")
    try:
        finite = math.isfinite(cond)
    except OverflowError:  # an integer beyond float range
        finite = False
    if not finite:
        raise ValueError(f"cond must be a finite number >= 1 (s_max / s_min), got {cond}")
    if cond < 1:
        raise ValueError(f"cond must be >= 1 (s_max / s_min), got {cond}")
    s = np.geomspace(1.0, 1.0 / cond, rank) if rank > 1 else np.ones(1)
    U = _haar(dim, rank, rng)
    V = _haar(count, rank, rng)
    return (U * s) @ V.T


def _haar(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    Q, R = np.linalg.qr(rng.standard_normal((n, k)))
    return Q * np.sign(np.diagonal(R))


def consistent_values(A, K) -> np.ndarray:
    """Values that follow one linear rule, ``V = A K`` (000, App. H).

    >>> consistent_values(np.ones((1, 2)), np.eye(2)).tolist()
    [[1.0, 1.0]]
    """
    A = as_matrix(A, "A")
    K = as_matrix(K, "K")
    if A.shape[1] != K.shape[0]:
        raise ValueError(
            f"A must have {K.shape[0]} columns (the key dimension of K), got shape {A.shape}"
        )
    p, M = A.shape[0], K.shape[1]
    check_memory(p * M, 8, f"the values A K ({p} x {M}: rows of A x columns of K)")
    return A @ K


def rational_orthogonal(n: int, *, rng: np.random.Generator, scale: int = 3) -> np.ndarray:
    """An exactly orthogonal n x n matrix of rationals: the Cayley transform
    ``(I - S)(I + S)^{-1}`` of a random skew-symmetric integer ``S`` (entries
    in ``[-scale, scale]``), times a random signed permutation.

    >>> Qm = rational_orthogonal(3, rng=np.random.default_rng(0))
    >>> bool(np.all(Qm.T @ Qm == np.eye(3, dtype=int)))
    True
    """
    import sympy

    n = check_positive_int(n, "n")
    check_memory(n * n, 8, f"an n x n = {n} x {n} orthogonal matrix")
    rng = check_generator(rng)
    scale = _scale(scale)
    S = np.zeros((n, n), dtype=int)
    iu = np.triu_indices(n, 1)
    S[iu] = rng.integers(-scale, scale + 1, size=len(iu[0]))
    S = S - S.T
    I = sympy.eye(n)
    Sm = sympy.Matrix(S.tolist())
    C = (I - Sm) * (I + Sm).inv()
    out = np.array([[Fraction(int(x.p), int(x.q)) for x in row] for row in C.tolist()], dtype=object)
    perm = rng.permutation(n)
    signs = rng.choice([-1, 1], size=n)
    return out[:, perm] * signs


def rational_unit_vectors(dim: int, count: int, *, rng: np.random.Generator, scale: int = 4) -> np.ndarray:
    """Exactly unit vectors with rational entries (inverse stereographic
    projection of random rational points), as a ``dim x count`` Fraction array.

    >>> X = rational_unit_vectors(3, 2, rng=np.random.default_rng(0))
    >>> [sum(x * x for x in col) for col in X.T]
    [Fraction(1, 1), Fraction(1, 1)]
    """
    dim, count = _dims(dim, count)
    rng = check_generator(rng)
    scale = _scale(scale)
    if dim == 1:
        return np.array([[Fraction(int(s)) for s in rng.choice([-1, 1], size=count)]], dtype=object)
    out = np.empty((dim, count), dtype=object)
    for j in range(count):
        t = [Fraction(int(a), int(b)) for a, b in zip(
            rng.integers(-scale, scale + 1, dim - 1), rng.integers(1, scale + 1, dim - 1))]
        n2 = sum(x * x for x in t)
        col = [2 * x / (1 + n2) for x in t] + [(1 - n2) / (1 + n2)]
        out[:, j] = [col[i] for i in rng.permutation(dim)]
    return out


def rational_controlled_spectrum(
    dim: int, count: int, *, cond: int, rank: int | None = None, rng: np.random.Generator
) -> np.ndarray:
    """Exact rational keys ``U diag(s) V^T`` with exactly orthonormal rational
    ``U``, ``V`` (:func:`rational_orthogonal`), singular values
    ``s_l = 1 / round(cond^(l/(rank-1)))`` (so the condition number is exactly
    ``cond``) and exact rank ``rank``: the exact counterpart of
    :func:`controlled_spectrum`, for mpmath and exact evidence.

    >>> K = rational_controlled_spectrum(4, 5, cond=10**12, rank=3, rng=np.random.default_rng(0))
    >>> import sympy; sympy.Matrix(K.tolist()).rank()
    3
    """
    dim, count = _dims(dim, count)
    rng = check_generator(rng)
    top = min(dim, count)
    rank = top if rank is None else check_positive_int(rank, "rank")
    if rank > top:
        raise ValueError(f"rank must be <= min(dim, count) = {top}, got {rank}")
    cond = check_positive_int(cond, "cond")
    check_memory(dim * dim + count * count, 8,
                 f"the orthogonal factors (dim x dim = {dim} x {dim}, count x count = {count} x {count})")
    if cond > _MAX_FLOAT_INT:
        raise ValueError(
            f"cond must be an integer in 1..{_MAX_FLOAT_INT:.3e} (its powers are taken "
            f"in float), got {cond}"
        )
    s = [Fraction(1, round(cond ** (l / (rank - 1)))) if rank > 1 else Fraction(1) for l in range(rank)]
    U = rational_orthogonal(dim, rng=rng)[:, :rank]
    V = rational_orthogonal(count, rng=rng)[:, :rank]
    return (U * np.array(s, dtype=object)) @ V.T
