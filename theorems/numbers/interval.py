"""Ball arithmetic (python-flint's ``arb``, ``arb_mat``, ``acb_mat``): a
claim's terms evaluated rigorously at an exact input, so that a residual
whose ball excludes zero proves the input a counterexample. Covers
arithmetic, ``inv``, ``det``, ``solve``, ``matrix_power``, ``norm`` (every
order), ``eigvalsh`` and ``svdvals`` (FLINT's certified eigenvalues),
``sqrt``, ``exp``, ``log``; any other function raises
:class:`~theorems.numbers.NotExact` naming it (no interval version)."""

from __future__ import annotations

from fractions import Fraction
import numpy as np
from flint import acb_mat, arb, arb_mat, ctx, fmpq

from theorems.numbers import _norms
from theorems.numbers._base import NotExact, SystemArray, decimal_value

__all__ = ["ArbArray", "enclose"]

#: Working precision of the enclosures, in bits.
ENCLOSURE_BITS = 256


def _arb(x) -> arb:
    if isinstance(x, arb):
        return x
    if isinstance(x, Fraction):
        return arb(fmpq(x.numerator, x.denominator))
    if isinstance(x, (int, np.integer)):
        return arb(int(x))
    if isinstance(x, (float, np.floating)):
        q = decimal_value(x)
        return arb(fmpq(q.numerator, q.denominator)) if q is not None else arb(float(x))
    raise NotExact(f"interval value of {type(x).__name__}")


def _mat(A) -> arb_mat:
    A = np.asarray(A, dtype=object)
    if A.ndim != 2:
        raise np.linalg.LinAlgError("Array must be two-dimensional")
    return arb_mat(A.shape[0], A.shape[1], [_arb(x) for x in A.ravel()])


def _array(M) -> np.ndarray:
    out = np.empty((M.nrows(), M.ncols()), dtype=object)
    for i in range(M.nrows()):
        for j in range(M.ncols()):
            out[i, j] = M[i, j]
    return out


def _sorted(values):
    """Rigorous enclosures of the sorted values (a sorting network of ball min/max)."""
    v = list(values)
    for i in range(len(v)):
        for j in range(len(v) - 1 - i):
            a, b = v[j], v[j + 1]
            v[j], v[j + 1] = a.min(b), a.max(b)
    return v


def inv(a):
    try:
        return _array(_mat(a).inv())
    except ZeroDivisionError:
        raise NotExact("inv", "the ball matrix could not be certified invertible") from None


def det(a):
    return _mat(a).det()


def solve(a, b):
    b = np.asarray(b, dtype=object)
    out = inv(a) @ b
    return out


def matrix_power(a, n):
    if n < 0:
        a, n = inv(a), -n
    out = np.array([[arb(int(i == j)) for j in range(np.shape(a)[0])] for i in range(np.shape(a)[0])], dtype=object)
    for _ in range(n):
        out = out @ np.asarray(a, dtype=object)
    return out


def eigvalsh(a, UPLO="L"):
    a = np.asarray(a, dtype=object)
    sym = np.tril(a) + np.tril(a, -1).T
    try:
        eig = acb_mat(_mat(sym)).eig(multiple=True)
    except (ValueError, ArithmeticError):
        raise NotExact("eigvalsh", "FLINT could not isolate the eigenvalues") from None
    return np.array(_sorted([e.real for e in eig]), dtype=object)


def svdvals(a, /):
    a = np.asarray(a, dtype=object)
    gram = a.T @ a if a.shape[0] >= a.shape[1] else a @ a.T
    values = eigvalsh(gram)
    return np.array(_sorted([_sqrtpos(v) for v in values])[::-1], dtype=object)


def _sqrtpos(x: arb) -> arb:
    """sqrt of the nonnegative part of the ball (a Gram eigenvalue's ball may reach below zero)."""
    return x.max(arb(0)).sqrt()


def _root(q, k, what):
    q = _arb(q)
    return _sqrtpos(q) if k == 2 else q.max(arb(0)) ** arb(fmpq(1, k))


def _elementwise(fn):
    def run(*xs, **kwargs):
        arrays = np.broadcast_arrays(*[np.asarray(x, dtype=object) for x in xs])
        out = np.empty(arrays[0].shape, dtype=object)
        for idx in np.ndindex(out.shape):
            out[idx] = fn(*[_arb(a[idx]) for a in arrays])
        return out if out.ndim else out[()]

    return run


def _none(name):
    def fn(*a, **k):
        raise NotExact(name, "no interval version")

    return fn


class ArbArray(SystemArray):
    """An array of ``arb`` balls."""

    system = "interval"

    @classmethod
    def number(cls, x):
        return _arb(x)

    @classmethod
    def power(cls, a, b):
        return _arb(a) ** _arb(b) if not isinstance(b, int) else _arb(a) ** b


la = np.linalg
ArbArray.functions = {
    **{fn: _none(fn.__name__) for fn in (la.eigh, la.eig, la.eigvals, la.svd, la.cholesky, la.qr, la.pinv, la.lstsq,
                                         la.matrix_rank, la.slogdet, la.cond)},
    la.inv: inv, la.det: det, la.solve: solve, la.matrix_power: matrix_power, la.eigvalsh: eigvalsh,
    la.svdvals: svdvals, la.norm: _norms.make_norm(_root, svdvals),
    la.multi_dot: lambda arrays, *, out=None: _multi(arrays),
}
ArbArray.ufuncs = {
    "sqrt": _elementwise(lambda x: x.sqrt()), "exp": _elementwise(lambda x: x.exp()),
    "log": _elementwise(lambda x: x.log()), "absolute": _elementwise(abs),
    "power": _elementwise(lambda a, b: a ** b),
}


def _multi(arrays):
    out = np.asarray(arrays[0], dtype=object)
    for a in arrays[1:]:
        out = out @ np.asarray(a, dtype=object)
    return out


def _enter(x):
    if isinstance(x, tuple):
        return tuple(_enter(e) for e in x)
    if isinstance(x, list):
        return [_enter(e) for e in x]
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return np.vectorize(_arb, otypes=[object])(x).view(ArbArray) if x.size else x.view(ArbArray)
        if x.dtype.kind == "f":
            return ArbArray.from_floats(x)
        return x
    if isinstance(x, (Fraction, float, np.floating)):
        return _arb(x)
    return x


def enclose(terms, impl, args) -> dict:
    """The terms at the exact input ``args`` in ball arithmetic: for each
    term the ball of its largest entrywise difference (a pair) or excess (a
    bound), and whether one excludes zero, which proves the input a
    counterexample. ``{"proved": False, "why": ...}`` where a function has
    no interval version or a ball is too wide to decide."""
    from theorems.core.residuals import AtMost

    old = ctx.prec
    ctx.prec = ENCLOSURE_BITS
    try:
        try:
            items = terms(_IntervalImpl(impl) if impl is not None else None, *_enter(tuple(args)))
        except NotExact as exc:
            return {"proved": False, "why": f"no enclosure: {exc.function} has no interval version here"}
        for i, t in enumerate([items] if isinstance(items, AtMost) else items):
            lhs, rhs = (t.lhs, t.rhs) if isinstance(t, AtMost) else t
            L, R = (np.atleast_1d(np.asarray(_enter(x), dtype=object)) for x in (lhs, rhs))
            try:
                L, R = np.broadcast_arrays(L, R)
            except ValueError:
                continue
            for idx in np.ndindex(L.shape):
                d = _arb(L[idx]) - _arb(R[idx])
                certain = d > 0 if isinstance(t, AtMost) else (d > 0 or d < 0)
                if certain:
                    return {"proved": True, "term": i, "entry": [int(k) for k in idx],
                            "difference": d.str(10, radius=True) if hasattr(d, "str") else str(d),
                            "what": ("lhs - rhs of the bound, certainly positive" if isinstance(t, AtMost)
                                     else "lhs - rhs, a ball that excludes zero"),
                            "bits": ENCLOSURE_BITS}
        return {"proved": False, "why": "every ball of the residual contains zero at this input"}
    except (ArithmeticError, ValueError, TypeError) as exc:
        return {"proved": False, "why": f"no enclosure: {type(exc).__name__}: {exc}"}
    finally:
        ctx.prec = old


class _IntervalImpl:
    def __init__(self, impl):
        self._impl = impl

    def __getattr__(self, name):
        def formula(*a, **k):
            raise NotExact(f"impl.{name}", "linmem's formulas have no interval version")

        return formula

