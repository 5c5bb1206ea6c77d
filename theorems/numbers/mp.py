"""numpy's functions in mpmath at the working precision (the rung of the
precision ladder): ``mpmath.inverse``, ``det``, ``lu_solve``, ``eigsy``,
``svd_r``, ``cholesky``, ``qr``, ``eig``; a pseudo-inverse and a rank that
cut singular values at ``sqrt(eps) * s_max`` (exact inputs rounded at a
rung of at least 50 digits keep rounded-zero singular values far below
that, true ones far above: the ladder's inputs are at most 1e20-conditioned)."""

from __future__ import annotations

import mpmath
import numpy as np

from theorems.numbers import _norms
from theorems.numbers._base import batched as _batched, square_stack as _square

__all__ = ["FUNCTIONS", "UFUNCS"]

LinAlgError = np.linalg.LinAlgError


def _mat(A) -> mpmath.matrix:
    A = np.asarray(A, dtype=object)
    if A.ndim != 2:
        raise LinAlgError(f"{A.ndim}-dimensional array given. Array must be two-dimensional")
    return mpmath.matrix([[_mpf(x) for x in row] for row in A]) if A.size else mpmath.matrix(*A.shape)


def _mpf(x):
    from fractions import Fraction

    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, (mpmath.mpf, mpmath.mpc)):
        return x
    if isinstance(x, (float, np.floating)):
        from theorems.numbers._base import MpArray

        return MpArray.number(x)
    return mpmath.mpf(int(x)) if isinstance(x, (int, np.integer)) else mpmath.mpmathify(x)


def _array(M: mpmath.matrix) -> np.ndarray:
    out = np.empty((M.rows, M.cols), dtype=object)
    for i in range(M.rows):
        for j in range(M.cols):
            out[i, j] = M[i, j]
    return out


def _vector(M: mpmath.matrix) -> np.ndarray:
    return np.array([M[i] for i in range(M.rows)], dtype=object) if M.cols == 1 else _array(M).ravel()




@_batched
def inv(a):
    a = _square(a, "inv")
    try:
        return _array(mpmath.inverse(_mat(a)))
    except ZeroDivisionError:
        raise LinAlgError("Singular matrix") from None


@_batched
def det(a):
    return mpmath.det(_mat(_square(a, "det")))


def slogdet(a):
    d = det(a)
    return (mpmath.sign(d), mpmath.log(abs(d)) if d != 0 else mpmath.ninf)


def solve(a, b):
    a = _square(a, "solve")
    b = np.asarray(b, dtype=object)
    A = _mat(a)
    try:
        if b.ndim == 1:
            return _vector(mpmath.lu_solve(A, _mat(b.reshape(-1, 1))))
        cols = [_vector(mpmath.lu_solve(A, _mat(b[:, j:j + 1]))) for j in range(b.shape[1])]
    except ZeroDivisionError:
        raise LinAlgError("Singular matrix") from None
    return np.array(cols, dtype=object).T.copy()


def _svd(a, full_matrices=False, compute_uv=True):
    """numpy's convention: ``U, s, Vh`` with ``s`` descending, ``a = U diag(s) Vh``."""
    A = _mat(a)
    m, n = A.rows, A.cols
    if min(m, n) == 0:
        s = np.zeros((0,), dtype=object)
        return (np.zeros((m, 0), dtype=object), s, np.zeros((0, n), dtype=object)) if compute_uv else s
    if not compute_uv:
        s = mpmath.svd_r(A, compute_uv=False)
        return np.array(sorted((s[i] for i in range(s.rows)), reverse=True), dtype=object)
    U, S, V = mpmath.svd_r(A, full_matrices=full_matrices, compute_uv=True)
    s = [S[i] for i in range(S.rows)]
    order = sorted(range(len(s)), key=lambda i: -s[i])
    U, V = _array(U), _array(V)
    k = len(s)
    U[:, :k] = U[:, order]
    V[:k, :] = V[order, :]
    return U, np.array([s[i] for i in order], dtype=object), V


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    return _svd(a, full_matrices, compute_uv)


def svdvals(x, /):
    return _svd(x, compute_uv=False)


def _cut(s):
    top = max(s, default=mpmath.mpf(0))
    return top * mpmath.sqrt(mpmath.eps)


def pinv(a, rcond=None, hermitian=False, *, rtol=None):
    a = np.asarray(a, dtype=object)
    m, n = a.shape
    if min(m, n) == 0:
        return np.zeros((n, m), dtype=object)
    U, s, Vh = _svd(a)
    cut = _cut(s)
    inv_s = np.array([1 / x if x > cut else mpmath.mpf(0) for x in s], dtype=object)
    return (Vh.T * inv_s) @ U.T


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    A = np.asarray(A, dtype=object)
    if A.ndim < 2:
        return int(any(x != 0 for x in A.ravel()))
    if 0 in A.shape:
        return 0
    s = _svd(A, compute_uv=False)
    cut = _cut(s)
    return int(sum(1 for x in s if x > cut))


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
    return x, residuals, rank, svdvals(a)


def matrix_power(a, n):
    a = _square(a, "matrix_power")
    if not isinstance(n, (int, np.integer)):
        raise TypeError("exponent must be an integer")
    if n < 0:
        a, n = inv(a), -n
    out = np.array([[mpmath.mpf(int(i == j)) for j in range(a.shape[0])] for i in range(a.shape[0])], dtype=object)
    base = a
    while n:
        if n & 1:
            out = out @ base
        base = base @ base
        n >>= 1
    return out


def multi_dot(arrays, *, out=None):
    result = np.asarray(arrays[0], dtype=object)
    for a in arrays[1:]:
        result = result @ np.asarray(a, dtype=object)
    return result


def _symmetric(a):
    a = _square(a, "eigh")
    # numpy reads the lower triangle (UPLO='L')
    low = np.tril(a) + np.tril(a, -1).T
    return _mat(low)


def eigvalsh(a, UPLO="L"):
    E = mpmath.eigsy(_symmetric(a), eigvals_only=True)
    return np.array(sorted(E[i] for i in range(E.rows)), dtype=object)


def eigh(a, UPLO="L"):
    E, Q = mpmath.eigsy(_symmetric(a))
    e = [E[i] for i in range(E.rows)]
    order = sorted(range(len(e)), key=lambda i: e[i])
    Q = _array(Q)[:, order]
    return np.array([e[i] for i in order], dtype=object), Q


def eigvals(a):
    E = mpmath.eig(_mat(_square(a, "eigvals")), left=False, right=False)
    return np.array([E[i] for i in range(len(E))], dtype=object)


def eig(a):
    E, ER = mpmath.eig(_mat(_square(a, "eig")), left=False, right=True)
    return np.array([E[i] for i in range(len(E))], dtype=object), _array(ER)


def cholesky(a, /, *, upper=False):
    a = _square(a, "cholesky")
    try:
        L = _array(mpmath.cholesky(_symmetric(a)))
    except ValueError:
        raise LinAlgError("Matrix is not positive definite") from None
    return L.T.copy() if upper else L


def qr(a, mode="reduced"):
    a = np.asarray(a, dtype=object)
    m, n = a.shape
    if m >= n:
        Q, R = mpmath.qr(_mat(a), mode="full" if mode == "complete" else "skinny")
        Q, R = _array(Q), _array(R)
        if mode == "complete":
            R = np.vstack([R[:n], np.array([[mpmath.mpf(0)] * n] * (m - n), dtype=object).reshape(m - n, n)]) \
                if R.shape[0] != m else R
    else:  # wide: QR of the leading square block, the rest of R is Q^T times the remaining columns
        Q, R1 = qr(a[:, :m], "reduced")
        R = np.hstack([R1, Q.T @ a[:, m:]])
    if mode == "r":
        return R
    return Q, R


def _elementwise(fn):
    def run(*xs, **kwargs):
        arrays = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in xs])
        out = np.empty(arrays[0].shape, dtype=object)
        for idx in np.ndindex(out.shape):
            out[idx] = fn(*[_mpf(a[idx]) for a in arrays])
        return out if out.ndim else out[()]

    return run


UFUNCS = {name: _elementwise(fn) for name, fn in {
    "sqrt": mpmath.sqrt, "cbrt": mpmath.cbrt, "exp": mpmath.exp, "expm1": mpmath.expm1, "log": mpmath.log,
    "log1p": mpmath.log1p, "log2": lambda x: mpmath.log(x, 2), "log10": mpmath.log10, "sin": mpmath.sin,
    "cos": mpmath.cos, "tan": mpmath.tan, "arctan": mpmath.atan, "sinh": mpmath.sinh, "cosh": mpmath.cosh,
    "tanh": mpmath.tanh, "power": mpmath.power, "float_power": mpmath.power,
    "isfinite": mpmath.isfinite, "isnan": mpmath.isnan, "isinf": mpmath.isinf,
}.items()}

la = np.linalg
_norm = _norms.make_norm(lambda q, k, what: mpmath.root(q, k), svdvals)
FUNCTIONS = {
    la.vector_norm: _norms.make_vector_norm(_norm), la.matrix_norm: _norms.make_matrix_norm(_norm),
    la.inv: inv, la.det: det, la.slogdet: slogdet, la.solve: solve, la.pinv: pinv, la.lstsq: lstsq,
    la.matrix_rank: matrix_rank, la.matrix_power: matrix_power, la.multi_dot: multi_dot,
    la.norm: _norm,
    la.cond: _norms.make_cond(lambda q, k, what: mpmath.root(q, k), svdvals, inv),
    la.eigvalsh: eigvalsh, la.eigh: eigh, la.eigvals: eigvals, la.eig: eig, la.svd: svd, la.svdvals: svdvals,
    la.cholesky: cholesky, la.qr: qr,
}
