"""numpy's functions on exact rationals: FLINT's ``fmpq_mat`` (python-flint)
for ``inv``, ``det``, ``solve``, ``rank`` and ``rref`` (about ten times
faster than elimination in ``Fraction`` and than sympy at the stock
families' sizes: benchmarks/bench_exact_linalg.py), and :class:`NotExact`
wherever the value is irrational (eigenvalues, singular values, Cholesky
and QR factors, 2-norms, square roots of non-squares)."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import reduce

import numpy as np
from flint import fmpq, fmpq_mat

from theorems.numbers._base import NotExact, batched as _batched, square_stack as _square
from theorems.numbers import _norms

__all__ = ["FUNCTIONS", "UFUNCS", "exact_root", "rational_power"]

LinAlgError = np.linalg.LinAlgError


def _q(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)):
        raise NotExact(f"float64 value {float(x)!r}", "a float inside the exact terms")
    raise TypeError(f"an exact array must hold rationals, got {type(x).__name__}")


def _mat(A: np.ndarray) -> fmpq_mat:
    A = np.asarray(A, dtype=object)
    if A.ndim != 2:
        raise LinAlgError(f"{A.ndim}-dimensional array given. Array must be two-dimensional")
    rows, cols = A.shape
    entries = []
    for x in A.ravel():
        q = _q(x)
        entries.append(fmpq(q.numerator, q.denominator))
    return fmpq_mat(rows, cols, entries)


def _array(M: fmpq_mat) -> np.ndarray:
    rows, cols = M.nrows(), M.ncols()
    out = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            e = M[i, j]
            out[i, j] = Fraction(int(e.p), int(e.q))
    return out




@_batched
def inv(a):
    a = _square(a, "inv")
    M = _mat(a)
    if M.det() == 0:
        raise LinAlgError("Singular matrix")
    return _array(M.inv())


@_batched
def det(a):
    a = _square(a, "det")
    d = _mat(a).det()
    return Fraction(int(d.p), int(d.q))


def slogdet(a):
    d = det(a)
    if np.ndim(d) == 0 and abs(d) == 1:
        return (Fraction(1) if d > 0 else Fraction(-1), Fraction(0))
    raise NotExact("slogdet", "log |det| is irrational")


def solve(a, b):
    a = _square(a, "solve")
    b = np.asarray(b, dtype=object)
    M = _mat(a)
    if M.det() == 0:
        raise LinAlgError("Singular matrix")
    if b.ndim == 1:
        return _array(M.solve(_mat(b.reshape(-1, 1)))).reshape(-1)
    return _array(M.solve(_mat(b)))


def _rref(A):
    R, rank = _mat(A).rref()
    R = _array(R)
    pivots = []
    for i in range(rank):
        pivots.append(next(j for j in range(R.shape[1]) if R[i, j] != 0))
    return R[:rank], pivots


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    """Moore-Penrose inverse by the rank factorisation ``A = C F`` (pivot
    columns, nonzero rows of the reduced row echelon form):
    ``A^+ = F^T (F F^T)^-1 (C^T C)^-1 C^T``."""
    a = np.asarray(a, dtype=object)
    if a.ndim > 2:
        return np.array([pinv(a[i]) for i in np.ndindex(a.shape[:-2])], dtype=object).reshape(
            a.shape[:-2] + (a.shape[-1], a.shape[-2]))
    F, pivots = _rref(a)
    m, n = a.shape
    if not pivots:
        return np.zeros((n, m), dtype=int).astype(object)
    C = a[:, pivots]
    left = _array(_mat((F @ F.T)).inv())
    right = _array(_mat((C.T @ C)).inv())
    return F.T @ left @ right @ C.T


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    A = np.asarray(A, dtype=object)
    if A.ndim < 2:
        return int(any(x != 0 for x in A.ravel()))
    if A.ndim > 2:
        return np.array([matrix_rank(A[i]) for i in np.ndindex(A.shape[:-2])]).reshape(A.shape[:-2])
    if 0 in A.shape:
        return 0
    return int(_mat(A).rank())


def lstsq(a, b, rcond=None):
    a, b = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
    x = pinv(a) @ b
    rank = matrix_rank(a)
    m, n = a.shape
    if rank == n and m > n:
        r = a @ x - b
        residuals = np.array([sum(r * r)] if r.ndim == 1 else list((r * r).sum(axis=0)), dtype=object)
    else:
        residuals = np.zeros((0,), dtype=object)
    return x, residuals, rank, _Irrational("lstsq's singular values")


class _Irrational:
    """A value the exact system cannot give (lstsq's singular values): using it raises :class:`NotExact`."""

    def __init__(self, what):
        self.what = what

    def _raise(self, *a, **k):
        raise NotExact(self.what)

    __array__ = __getitem__ = __iter__ = __len__ = __add__ = __radd__ = __sub__ = __rsub__ = _raise
    __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __pow__ = __float__ = __lt__ = __le__ = _raise
    __gt__ = __ge__ = __neg__ = __abs__ = __matmul__ = __rmatmul__ = _raise
    __array_ufunc__ = None


def matrix_power(a, n):
    a = _square(a, "matrix_power")
    if not isinstance(n, (int, np.integer)):
        raise TypeError("exponent must be an integer")
    if n < 0:
        a, n = inv(a), -n
    out = np.eye(a.shape[-1], dtype=int).astype(object)
    base = a
    while n:
        if n & 1:
            out = out @ base
        base = base @ base
        n >>= 1
    return out


def multi_dot(arrays, *, out=None):
    arrays = [np.asarray(a, dtype=object) for a in arrays]
    first_vector, last_vector = arrays[0].ndim == 1, arrays[-1].ndim == 1
    result = reduce(lambda x, y: x @ y, arrays)
    return result


def exact_root(q, k: int = 2, what: str = "sqrt"):
    """The exact ``k``-th root of the rational ``q``, or :class:`NotExact`."""
    q = _q(q)
    if q < 0:
        if k % 2 == 0:
            raise NotExact(what, "the root of a negative number")
        return -exact_root(-q, k, what)
    p, r = _iroot(q.numerator, k), _iroot(q.denominator, k)
    if p is None or r is None:
        raise NotExact(what)
    return Fraction(p, r)


def _iroot(n: int, k: int):
    if k == 2:
        r = math.isqrt(n)
    else:
        r = round(n ** (1.0 / k)) if n < 2**1000 else int(round(float(n) ** (1.0 / k)))
        while r ** k > n:
            r -= 1
        while (r + 1) ** k <= n:
            r += 1
    return r if r ** k == n else None


def rational_power(a, b):
    """``a ** b`` for rationals: exact for an integer exponent, a rational root where it is rational."""
    b = _q(b)
    a = _q(a)
    if b.denominator == 1:
        return a ** int(b)
    root = exact_root(a, b.denominator, "power")
    return root ** b.numerator


def _elementwise(fn):
    def run(x, **kwargs):
        x = np.asarray(x, dtype=object)
        out = np.empty(x.shape, dtype=object)
        for idx in np.ndindex(x.shape):
            out[idx] = fn(x[idx])
        return out if out.ndim else out[()]

    return run


def _only(name, value_at):
    """An exact function defined at a few rational points (``exp(0) = 1``), not exact elsewhere."""
    def fn(x):
        q = _q(x)
        if q in value_at:
            return value_at[q]
        raise NotExact(name)

    return _elementwise(fn)


def _power(a, b, **kwargs):
    a, b = np.broadcast_arrays(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        out[idx] = rational_power(a[idx], b[idx])
    return out if out.ndim else out[()]


def _not_exact(name):
    def fn(*args, **kwargs):
        raise NotExact(name)

    return fn


ZERO, ONE = Fraction(0), Fraction(1)
UFUNCS = {
    "sqrt": _elementwise(lambda x: exact_root(x, 2, "sqrt")),
    "cbrt": _elementwise(lambda x: exact_root(x, 3, "cbrt")),
    "power": _power,
    "float_power": _power,
    "exp": _only("exp", {ZERO: ONE}),
    "expm1": _only("expm1", {ZERO: ZERO}),
    "log": _only("log", {ONE: ZERO}),
    "log1p": _only("log1p", {ZERO: ZERO}),
    "log2": _only("log2", {ONE: ZERO}),
    "log10": _only("log10", {ONE: ZERO}),
    "sin": _only("sin", {ZERO: ZERO}),
    "cos": _only("cos", {ZERO: ONE}),
    "tan": _only("tan", {ZERO: ZERO}),
    "arctan": _only("arctan", {ZERO: ZERO}),
    "sinh": _only("sinh", {ZERO: ZERO}),
    "cosh": _only("cosh", {ZERO: ONE}),
    "tanh": _only("tanh", {ZERO: ZERO}),
    "isfinite": _elementwise(lambda x: True),
    "isnan": _elementwise(lambda x: False),
    "isinf": _elementwise(lambda x: False),
}

la = np.linalg
_norm = _norms.make_norm(exact_root, None)
FUNCTIONS = {
    la.vector_norm: _norms.make_vector_norm(_norm), la.matrix_norm: _norms.make_matrix_norm(_norm),
    la.inv: inv, la.det: det, la.slogdet: slogdet, la.solve: solve, la.pinv: pinv, la.lstsq: lstsq,
    la.matrix_rank: matrix_rank, la.matrix_power: matrix_power, la.multi_dot: multi_dot,
    la.norm: _norm, la.cond: _norms.make_cond(exact_root, None, inv),
    la.eigvalsh: _not_exact("eigvalsh"), la.eigh: _not_exact("eigh"), la.eigvals: _not_exact("eigvals"),
    la.eig: _not_exact("eig"), la.svd: _not_exact("svd"), la.svdvals: _not_exact("svdvals"),
    la.cholesky: _not_exact("cholesky"), la.qr: _not_exact("qr"),
}
