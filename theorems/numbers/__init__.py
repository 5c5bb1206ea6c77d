"""The number systems a claim's terms run in: exact rationals, mpmath at
the working precision, float64; one room for their arrays, their dispatch
and the table of what runs where.

The templates hand the terms :class:`ExactArray` or :class:`MpArray`
inputs (:func:`enter`); the user's numpy code then runs unchanged
(``np.linalg.inv(A)``, ``from numpy.linalg import inv``, ``0.1 * A``,
``np.sqrt(x)``), routed by NumPy's dispatch protocols
(:mod:`theorems.numbers._base`) to :mod:`theorems.numbers.exact` (FLINT) or
:mod:`theorems.numbers.mp` (mpmath). :data:`TABLE` lists every supported
function and how it runs in each system; docs/writing-claims.md prints it.

>>> import numpy as np
>>> A = enter(np.array([[2, 1], [1, 1]], dtype=object), EXACT)
>>> np.linalg.inv(0.1 * A).tolist()
[[Fraction(10, 1), Fraction(-10, 1)], [Fraction(-10, 1), Fraction(20, 1)]]
"""

from __future__ import annotations

import inspect
import types
from typing import Any, Callable

import mpmath
import numpy as np

from theorems.numbers import exact as _exact
from theorems.numbers import mp as _mp
from theorems.numbers._base import (EXACT, MPMATH, ExactArray, ExactScalar, MpArray, MpScalar, NotExact, SystemArray,
                                    Unsupported, decimal_value, plain)

__all__ = ["EXACT", "FLOAT64", "MPMATH", "TABLE", "ExactArray", "ExactScalar", "MpArray", "MpScalar", "NotExact",
           "Unsupported", "decimal_value", "enter", "expm", "logm", "plain", "refuse_foreign", "settle", "sqrtm",
           "system_impl", "table_markdown", "table_rows"]

FLOAT64 = "float64"

ExactArray.functions, ExactArray.ufuncs = _exact.FUNCTIONS, _exact.UFUNCS
ExactArray.power = classmethod(lambda cls, a, b: _exact.rational_power(a, b))
MpArray.functions, MpArray.ufuncs = _mp.FUNCTIONS, _mp.UFUNCS

_CLASSES = {EXACT: ExactArray, MPMATH: MpArray}


def enter(x: Any, system: str) -> Any:
    """``x`` (an argument, or a tuple/list/dict of them) in ``system``:
    object arrays become the system's arrays, floats its decimals; float64
    leaves everything as it is."""
    if system == FLOAT64:
        return x
    cls = _CLASSES[system]
    if isinstance(x, tuple):
        values = [enter(e, system) for e in x]
        return type(x)(*values) if hasattr(x, "_fields") else tuple(values)
    if isinstance(x, list):
        return [enter(e, system) for e in x]
    if isinstance(x, dict):
        return {k: enter(v, system) for k, v in x.items()}
    if isinstance(x, (np.ndarray, float, np.floating)) or isinstance(x, (mpmath.mpf,)) or _is_fraction(x):
        return cls.enter(x)
    return x


def _is_fraction(x) -> bool:
    from fractions import Fraction

    return isinstance(x, Fraction)


class _SystemImpl:
    """``impl`` whose formulas take plain arrays (as linmem always got them)
    and return the system's arrays, so their outputs keep dispatching."""

    def __init__(self, impl, system: str):
        self._impl, self._system = impl, system

    def __getattr__(self, name):
        fn = getattr(self._impl, name)
        if not callable(fn) or inspect.isclass(fn):
            return fn
        system = self._system

        def formula(*args, **kwargs):
            out = fn(*plain(args), **{k: plain(v) for k, v in kwargs.items()})
            return enter(out, system)

        formula.__name__ = getattr(fn, "__name__", name)
        formula.__wrapped__ = fn
        return formula


def system_impl(impl, system: str):
    """``impl`` for terms evaluated in ``system`` (itself for float64)."""
    return impl if system == FLOAT64 or impl is None else _SystemImpl(impl, system)


def _side(x: Any, system: str) -> Any:
    cls = _CLASSES[system]
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            return cls.from_floats(x)
        if x.dtype == object:
            for e in x.ravel():
                if isinstance(e, (float, np.floating)) and np.isfinite(e):  # a NaN is the screen's to refuse
                    if system == EXACT:
                        raise NotExact(f"float64 value {float(e)!r}",
                                       "a rational became a float64 inside the terms (Python arithmetic with a float)")
                    raise Unsupported(f"the mpmath terms hold a float64 value ({float(e)!r}): a computation left "
                                      "mpmath; keep the terms in numpy's arithmetic on the arrays they receive")
        return x
    if isinstance(x, (float, np.floating)):
        value = cls.number(x)
        return value
    return x


def settle(items: Any, system: str) -> Any:
    """The terms of a claim evaluated in ``system`` as the residuals read
    them: float64 arrays and floats on a side are decimals (literals such as
    ``np.zeros(3)`` or ``0.5``); a float64 number inside an exact array
    (a rational that met a float in Python arithmetic) is :class:`NotExact`,
    inside an mpmath array :class:`Unsupported`."""
    if system == FLOAT64:
        return items
    from theorems.core.residuals import AtMost

    def one(t):
        if isinstance(t, AtMost):
            return AtMost(_side(t.lhs, system), _side(t.rhs, system))
        if isinstance(t, tuple) and len(t) == 2:
            return (_side(t[0], system), _side(t[1], system))
        return t

    if isinstance(items, AtMost):
        return one(items)
    if isinstance(items, (list, tuple)):
        return [one(t) for t in items]
    return items


# --- functions outside numpy's dispatch ------------------------------------------------------

def _by_system(name: str, exact: Callable | None, precise: Callable, floating: Callable) -> Callable:
    def fn(A):
        if isinstance(A, ExactArray) or (isinstance(A, np.ndarray) and A.dtype == object and
                                         any(_is_fraction(e) for e in A.ravel()[:1])):
            if exact is None:
                raise NotExact(name)
            return exact(A)
        if isinstance(A, MpArray) or (isinstance(A, np.ndarray) and A.dtype == object):
            M = precise(_mp._mat(A))
            return MpArray.enter(_mp._array(M))
        return floating(A)

    fn.__name__ = name
    fn.__doc__ = (f"The matrix {name} in the number system of ``A``: not exact on exact input, "
                  f"mpmath.{name} on mpmath input, scipy.linalg.{name} on float64.")
    return fn


def _scipy(name):
    def run(A):
        import scipy.linalg

        return getattr(scipy.linalg, name)(A)

    return run


expm = _by_system("expm", None, mpmath.expm, _scipy("expm"))
sqrtm = _by_system("sqrtm", None, mpmath.sqrtm, _scipy("sqrtm"))
logm = _by_system("logm", None, mpmath.logm, _scipy("logm"))

#: What to use instead of a function that computes in float64 whatever it is given.
ALTERNATIVES = {
    "scipy.linalg.expm": "kit.expm (mpmath.expm on the ladder, scipy's in float64)",
    "scipy.linalg.sqrtm": "kit.sqrtm (mpmath.sqrtm on the ladder, scipy's in float64)",
    "scipy.linalg.logm": "kit.logm (mpmath.logm on the ladder, scipy's in float64)",
    "scipy.linalg.inv": "np.linalg.inv", "scipy.linalg.pinv": "np.linalg.pinv", "scipy.linalg.det": "np.linalg.det",
    "scipy.linalg.solve": "np.linalg.solve", "scipy.linalg.lstsq": "np.linalg.lstsq",
    "scipy.linalg.norm": "np.linalg.norm", "scipy.linalg.svd": "np.linalg.svd", "scipy.linalg.svdvals": "np.linalg.svdvals",
    "scipy.linalg.eigh": "np.linalg.eigh", "scipy.linalg.eigvalsh": "np.linalg.eigvalsh",
    "scipy.linalg.cholesky": "np.linalg.cholesky", "scipy.linalg.qr": "np.linalg.qr",
    "scipy.linalg.kron": "np.kron", "math.sqrt": "np.sqrt", "math.exp": "np.exp", "math.log": "np.log",
}


def _public_name(obj) -> str:
    module = getattr(obj, "__module__", "") or ""
    parts = [p for p in module.split(".") if not p.startswith("_")]
    return ".".join(parts + [getattr(obj, "__name__", "?")])


def _codes(fn):
    code = getattr(fn, "__code__", None)
    stack = [code] if code is not None else []
    while stack:
        c = stack.pop()
        yield c
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))


def refuse_foreign(terms: Callable, system: str) -> None:
    """:class:`Unsupported` when the terms call a scipy function (scipy
    computes in float64 whatever it is given, so on exact or mpmath input its
    result would pass a float off as exact): one line naming the function and
    what to use instead. Reads the names the terms' code refers to."""
    if system == FLOAT64:
        return
    scope = dict(getattr(terms, "__globals__", {}))
    closure = getattr(terms, "__closure__", None) or ()
    for name, cell in zip(getattr(getattr(terms, "__code__", None), "co_freevars", ()), closure):
        try:
            scope[name] = cell.cell_contents
        except ValueError:
            pass
    for code in _codes(terms):
        names = code.co_names
        found = [scope.get(name) for name in names + code.co_freevars]
        modules = [m for m in found if isinstance(m, types.ModuleType) and m.__name__.split(".")[0] == "scipy"]
        candidates = [f for f in found if not isinstance(f, types.ModuleType)]
        while modules:  # scipy.linalg.expm: the attributes the code names, module by module
            module = modules.pop()
            for attr in names:
                value = getattr(module, attr, None) if not attr.startswith("_") else None
                if isinstance(value, types.ModuleType):
                    if value is not module and value.__name__.startswith(module.__name__ + "."):
                        modules.append(value)
                elif value is not None:
                    candidates.append(value)
        for cand in candidates:
            if callable(cand) and (getattr(cand, "__module__", "") or "").split(".")[0] == "scipy":
                public = _public_name(cand)
                public = next((k for k in ALTERNATIVES if k.endswith("." + cand.__name__)
                               and k.split(".")[0] == "scipy"), public)
                instead = ALTERNATIVES.get(public, "a function of the table in docs/writing-claims.md")
                raise Unsupported(f"{public} computes in float64 on any input, so it has no exact or mpmath "
                                  f"version: use {instead}")


# --- the table of supported functions ----------------------------------------------------------

def _linalg(name):
    return getattr(np.linalg, name)


_NOT_EXACT = {"eigvalsh", "eigh", "eigvals", "eig", "svd", "svdvals", "cholesky", "qr"}
_WHERE_RATIONAL = {"norm": "exact for ord 1, -1, inf, -inf, 0 and where the root is rational; not exact for 2, -2, "
                           "'nuc' and irrational roots",
                   "vector_norm": "exact where the root is rational", "matrix_norm": "as norm",
                   "cond": "exact for p 1, -1, inf, -inf ('fro' where the root is rational); not exact for 2, -2, None",
                   "slogdet": "exact only where |det| = 1",
                   "lstsq": "exact solution, residuals and rank; its singular values are not exact"}
_ELEMENTWISE_EXACT = {"sqrt": "exact for squares of rationals", "cbrt": "exact for cubes of rationals",
                      "power": "exact for integer exponents and rational roots", "exp": "exact at 0 only",
                      "expm1": "exact at 0 only", "log": "exact at 1 only", "log1p": "exact at 0 only",
                      "log2": "exact at 1 only", "log10": "exact at 1 only", "sin": "exact at 0 only",
                      "cos": "exact at 0 only", "tan": "exact at 0 only", "arctan": "exact at 0 only",
                      "sinh": "exact at 0 only", "cosh": "exact at 0 only", "tanh": "exact at 0 only",
                      "float_power": "as power", "isfinite": "exact", "isnan": "exact", "isinf": "exact"}
#: numpy functions that run through numpy's own object-array code in the exact and mpmath systems.
GENERIC = ("abs", "absolute", "sign", "maximum", "minimum", "sum", "prod", "max", "min", "mean", "diag", "diagonal",
           "trace", "outer", "kron", "triu", "tril", "einsum", "transpose", "matmul", "dot", "vdot", "inner",
           "tensordot", "concatenate", "stack", "hstack", "vstack", "block", "reshape", "where", "cumsum",
           "eye", "zeros", "ones", "full", "identity")


_MP_HOW = {"inv": "mpmath.inverse", "det": "mpmath.det", "slogdet": "mpmath.det, log", "solve": "mpmath.lu_solve",
           "pinv": "mpmath.svd_r, cut at sqrt(eps) s_max", "matrix_rank": "mpmath.svd_r, cut at sqrt(eps) s_max",
           "lstsq": "pinv times b", "eigvalsh": "mpmath.eigsy", "eigh": "mpmath.eigsy", "svd": "mpmath.svd_r",
           "svdvals": "mpmath.svd_r", "cholesky": "mpmath.cholesky", "qr": "mpmath.qr", "eig": "mpmath.eig",
           "eigvals": "mpmath.eig", "norm": "mpmath (2, -2, 'nuc': mpmath.svd_r)", "cond": "mpmath.svd_r or norms",
           "vector_norm": "as norm", "matrix_norm": "as norm", "matrix_power": "repeated products",
           "multi_dot": "products"}


def table_rows() -> list[tuple[str, str, str, str, str]]:
    """``(function, exact, mpmath, float64, ball enclosure)`` for every
    supported function: how it runs in each number system and whether a
    failed check's enclosure (:mod:`theorems.numbers.interval`) covers it
    (:data:`TABLE`)."""
    from theorems.numbers.interval import ArbArray

    def ball(fn=None, ufunc=None):
        if fn is not None:
            impl = ArbArray.functions.get(fn)
            return "yes" if impl is not None and getattr(impl, "__name__", "") != "fn" else "no"
        return "yes" if ufunc in ArbArray.ufuncs else "no"

    rows = []
    for fn in sorted(_exact.FUNCTIONS, key=lambda f: f.__name__):
        name = fn.__name__
        exact_how = ("not exact" if name in _NOT_EXACT else _WHERE_RATIONAL.get(name, "exact (FLINT fmpq_mat)"
                     if name in ("inv", "det", "solve", "matrix_rank", "pinv") else "exact"))
        rows.append((f"np.linalg.{name}", exact_how, _MP_HOW[name] if fn in _mp.FUNCTIONS else "-", "numpy",
                     ball(fn=fn)))
    for name in sorted(_exact.UFUNCS):
        rows.append((f"np.{name}", _ELEMENTWISE_EXACT[name], f"mpmath.{name}" if name in _mp.UFUNCS else "-",
                     "numpy", ball(ufunc=name)))
    for name in GENERIC:
        literal = name in ("eye", "zeros", "ones", "full", "identity")
        rows.append((f"np.{name}", "float64 operand, read as decimals" if literal else "exact (numpy on Fractions)",
                     "float64 operand, decimals at the rung" if literal else "numpy on mpf", "numpy",
                     "yes" if literal or name not in ("sign", "where", "cumsum") else "no"))
    for name in ("expm", "sqrtm", "logm"):
        rows.append((f"kit.{name}", "not exact", f"mpmath.{name}", f"scipy.linalg.{name}", "no"))
    return rows


TABLE = table_rows()


def table_markdown() -> str:
    """:data:`TABLE` as the markdown table docs/writing-claims.md prints (kept equal by a test)."""
    lines = ["| function | exact rationals | mpmath (the ladder) | float64 | ball enclosure |", "|---|---|---|---|---|"]
    lines += [f"| `{row[0]}` | " + " | ".join(row[1:]) + " |" for row in TABLE]
    return "\n".join(lines)
