"""The arrays a claim's terms receive in the exact and the mpmath number
systems, and how numbers from outside (Python floats, float64 arrays) enter
them.

:class:`SystemArray` is an ``ndarray`` subclass of ``dtype=object``: every
operator, index, transpose and method of numpy works on it unchanged, and
NumPy's dispatch protocols route the rest here. ``__array_function__``
(NEP 18) sends a function of the supported table (``np.linalg.inv``, also
when bound at import as ``from numpy.linalg import inv``) to the number
system's implementation; ``__array_ufunc__`` (NEP 13) turns each Python
float or float64 array that meets the array into the decimal it is written
as (:func:`decimal_value`) and evaluates ``np.sqrt``, ``np.exp``, ... in the
system. Scalars the system returns (a ``det``, a ``trace``, an entry) are
:class:`ExactScalar` / :class:`MpScalar`, which read a float that meets them
the same way.

Where an exact value is irrational the exact system raises
:class:`NotExact` (the exact check then does not apply to that case);
a function with no version in a system raises :class:`Unsupported`
naming it and what to use instead.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Callable

import mpmath
import numpy as np

from theorems.evidence._common import TermsError

__all__ = ["EXACT", "MPMATH", "ExactArray", "ExactScalar", "MpArray", "MpScalar", "NotExact", "SystemArray",
           "Unsupported", "decimal_value", "plain"]

EXACT, MPMATH = "exact", "mpmath"

#: A float has at most this many significant digits in its shortest repr when it is read as the decimal a
#: user wrote (0.1, 2.5e-3); a float with more is the result of a float64 computation.
LITERAL_DIGITS = 15
#: A float without a short decimal stands for the simplest fraction with at most this denominator that
#: rounds to it (``1/3`` written in Python is the float 0.3333333333333333), when there is one.
LITERAL_DENOMINATOR = 10**6


class NotExact(Exception):
    """The exact value of a term is not rational (a square root, an
    eigenvalue, a 2-norm) or left the exact system (a float64 result): the
    exact check does not apply to this case. ``function`` names where."""

    def __init__(self, function: str, why: str = ""):
        self.function = function
        super().__init__(f"not exact: {function}" + (f" ({why})" if why else ""))


class Unsupported(TermsError):
    """A function the terms call has no version in this number system (one
    line: the function and what to use instead). An ERROR of the claim."""


_SIGNIFICANT = re.compile(r"^-?(\d+)(?:\.(\d+))?(?:e[-+]?\d+)?$")


def decimal_value(x: float) -> Fraction | None:
    """The rational a Python float or float64 stands for when it meets exact
    or mpmath arithmetic: the decimal it prints as (``repr``) when that has at
    most :data:`LITERAL_DIGITS` significant digits, else the simplest fraction
    with denominator up to :data:`LITERAL_DENOMINATOR` that rounds to it, else
    None (a float64 result, not a literal).

    >>> decimal_value(0.1), decimal_value(1 / 3), decimal_value(2.5e-3)
    (Fraction(1, 10), Fraction(1, 3), Fraction(1, 400))
    >>> decimal_value(0.1 + 0.2) is None
    True
    """
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        return None
    text = repr(x)
    m = _SIGNIFICANT.match(text)
    if m:
        digits = (m.group(1) + (m.group(2) or "")).lstrip("0").rstrip("0")
        if len(digits) <= LITERAL_DIGITS:
            return Fraction(text)
    f = Fraction(x).limit_denominator(LITERAL_DENOMINATOR)
    return f if float(f) == x else None


def plain(x: Any) -> Any:
    """``x`` with every system array viewed as a plain ndarray (tuples and lists entry by entry)."""
    if isinstance(x, SystemArray):
        return x.view(np.ndarray)
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(plain(e) for e in x)
    return x


def _is_float(x) -> bool:
    return isinstance(x, (float, np.floating)) and not isinstance(x, bool)


class _Scalar:
    """Arithmetic of a system scalar with a float operand: the float enters
    the system first (:meth:`SystemArray.number`)."""

    _system: type

    @classmethod
    def _wrap(cls, value):
        raise NotImplementedError


def _scalar_ops(cls, base, system):
    # the operation runs on a plain copy of the scalar: a reflected operation of the base type that calls
    # the forward one again (mpf's __rsub__ computes t - s) must not come back here
    def make(name):
        op = getattr(base, name)

        def method(self, other):
            if _is_float(other):
                other = system.number(other)
            elif isinstance(other, np.ndarray):
                return NotImplemented
            out = op(base(self), other)
            return system.scalar(out)

        method.__name__ = name
        return method

    for name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                 "__rtruediv__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        setattr(cls, name, make(name))

    def pow_(self, other):
        if _is_float(other):
            other = system.number(other)
        if isinstance(other, np.ndarray):
            return NotImplemented
        return system.scalar(system.power(base(self), other))

    def rpow(self, other):
        if _is_float(other):
            other = system.number(other)
        return system.scalar(system.power(other, base(self)))

    cls.__pow__, cls.__rpow__ = pow_, rpow
    cls.__neg__ = lambda self: system.scalar(base.__neg__(base(self)))
    cls.__abs__ = lambda self: system.scalar(base.__abs__(base(self)))
    cls.__hash__ = base.__hash__

    def array_ufunc(self, ufunc, method, *inputs, **kwargs):
        # np.sqrt(det(A)): the scalar as a 0-d array of its system, the result a scalar again
        inputs = [np.asarray(base(x), dtype=object).view(system) if isinstance(x, cls) else x for x in inputs]
        out = getattr(ufunc, method)(*inputs, **kwargs)
        if isinstance(out, np.ndarray) and out.ndim == 0:
            out = out[()]
        return out

    cls.__array_ufunc__ = array_ufunc
    return cls


class ExactScalar(Fraction):
    """A rational the exact system returned; a float that meets it is its decimal."""

    __slots__ = ()

    def __repr__(self):
        return f"Fraction({self.numerator}, {self.denominator})"


class MpScalar(mpmath.mpf):
    """An mpf the mpmath system returned; a float that meets it is its decimal."""

    __slots__ = ()


class SystemArray(np.ndarray):
    """An object array in one number system (see the module)."""

    system: str = ""

    # --- what each system defines -------------------------------------------------------
    @classmethod
    def number(cls, x):  # a float entering the system
        raise NotImplementedError

    @classmethod
    def scalar(cls, x):  # a result scalar of the system
        return x

    @classmethod
    def power(cls, a, b):
        return a ** b

    functions: dict = {}
    ufuncs: dict = {}

    # --- entering -----------------------------------------------------------------------
    @classmethod
    def enter(cls, x: Any) -> Any:
        """``x`` in this system: object arrays viewed as this class, float
        arrays and floats read as decimals, scalars of the system wrapped."""
        if isinstance(x, cls):
            return x
        if isinstance(x, np.ndarray):
            if x.dtype == object:
                return x.view(cls)
            if x.dtype.kind == "f":
                return cls.from_floats(x)
            return x
        if _is_float(x):
            return cls.scalar(cls.number(x))
        return cls.scalar(x)

    @classmethod
    def from_floats(cls, x: np.ndarray) -> "SystemArray":
        out = np.empty(x.shape, dtype=object)
        flat = out.reshape(-1)
        for i, v in enumerate(x.reshape(-1)):
            flat[i] = cls.number(v)
        return out.view(cls)

    def _result(self, out):
        cls = type(self)
        if isinstance(out, np.ndarray):
            return out.view(cls) if out.dtype == object else out
        if isinstance(out, tuple):
            values = [self._result(e) for e in out]
            return type(out)(*values) if hasattr(out, "_fields") else tuple(values)
        if isinstance(out, list):
            return [self._result(e) for e in out]
        return cls.scalar(out)

    def _inputs(self, items):
        cls = type(self)
        out = []
        for x in items:
            if isinstance(x, SystemArray):
                out.append(x.view(np.ndarray))
            elif isinstance(x, np.ndarray) and x.dtype.kind == "f":
                out.append(cls.from_floats(x).view(np.ndarray))
            elif _is_float(x):
                out.append(cls.number(x))
            else:
                out.append(x)
        return out

    # --- the protocols ------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        cls = type(self)
        args = self._inputs(inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(plain(o) for o in kwargs["out"])
        special = cls.ufuncs.get(ufunc.__name__)
        if special is not None and method == "__call__":
            return self._result(special(*args, **kwargs))
        try:
            out = getattr(ufunc, method)(*args, **kwargs)
        except TypeError as exc:
            if "object" in str(exc) or "not supported" in str(exc):
                raise Unsupported(f"np.{ufunc.__name__} has no {cls.system} version here: "
                                  f"see the supported functions in docs/writing-claims.md") from exc
            raise
        return self._result(out)

    def __array_function__(self, func, types, args, kwargs):
        cls = type(self)
        impl = cls.functions.get(func)
        if impl is not None:  # float64 array operands enter the system; scalars (an ord, an rcond) stay
            arrays = lambda xs: [cls.from_floats(x).view(np.ndarray) if isinstance(x, np.ndarray) and x.dtype.kind == "f"
                                 else plain(x) for x in xs]
            return self._result(impl(*_deep(arrays, args), **kwargs))
        out = func._implementation(*_deep(lambda xs: [cls.enter(x) if isinstance(x, np.ndarray) and x.dtype.kind == "f"
                                                       else x for x in xs], args), **kwargs)
        if isinstance(out, np.ndarray) and out.dtype.kind in "fc" and _holds_objects(args):
            name = _function_name(func)
            raise Unsupported(f"{name} computed in float64 on {cls.system} input: it has no {cls.system} version; "
                              "see the supported functions in docs/writing-claims.md")
        return self._result(out)

    def __getitem__(self, key):
        out = super().__getitem__(key)
        return out if isinstance(out, np.ndarray) else type(self).scalar(out)

    def astype(self, dtype, *args, **kwargs):
        if np.dtype(dtype).kind in "fc":
            raise NotExact(f"astype({np.dtype(dtype).name})", "the terms convert to float64") if self.system == EXACT \
                else Unsupported(f"astype({np.dtype(dtype).name}) leaves mpmath for float64: keep the terms in "
                                 "numpy's arithmetic")
        return super().astype(dtype, *args, **kwargs)


def _holds_objects(args) -> bool:
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype == object:
            return True
        if isinstance(a, (list, tuple)) and _holds_objects(a):
            return True
    return False


def _deep(convert: Callable, args):
    """``convert`` (a list -> list) applied to ``args`` and, one level down, to list and tuple arguments."""
    top = convert(list(args))
    return [type(a)(convert(list(a))) if isinstance(a, (list, tuple)) and not hasattr(a, "_fields") else a
            for a in top]


def _function_name(func) -> str:
    module = getattr(func, "__module__", "") or ""
    if module.startswith("numpy"):
        parts = [p for p in module.split(".") if not p.startswith("_")]
        module = ".".join(["np"] + parts[1:])
    return f"{module}.{func.__name__}"


class ExactArray(SystemArray):
    """An array of exact rationals (``Fraction``)."""

    system = EXACT

    @classmethod
    def number(cls, x):
        if not np.isfinite(x):
            return float(x)  # a NaN or an infinity stays one: the terms' screen refuses it, never "not exact"
        value = decimal_value(x)
        if value is None:
            raise NotExact(f"float64 value {float(x)!r}", "a number computed in float64, not a decimal literal")
        return value

    @classmethod
    def scalar(cls, x):
        if isinstance(x, Fraction) and not isinstance(x, ExactScalar):
            return ExactScalar(x)
        return x



class MpArray(SystemArray):
    """An array of mpmath numbers at the working precision."""

    system = MPMATH

    @classmethod
    def number(cls, x):
        value = decimal_value(x)
        if value is None:
            return mpmath.mpf(float(x))
        return mpmath.mpf(value.numerator) / value.denominator

    @classmethod
    def scalar(cls, x):
        if isinstance(x, mpmath.mpf) and not isinstance(x, MpScalar):
            return MpScalar(x)
        if isinstance(x, Fraction):
            return MpScalar(mpmath.mpf(x.numerator) / x.denominator)
        return x

    @classmethod
    def power(cls, a, b):
        return mpmath.power(a, b)


_scalar_ops(ExactScalar, Fraction, ExactArray)
_scalar_ops(MpScalar, mpmath.mpf, MpArray)


def square_stack(A, name):
    """``A`` as an object array whose last two dimensions are square, else
    numpy's own LinAlgError for ``np.linalg.<name>``."""
    A = np.asarray(A, dtype=object)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise np.linalg.LinAlgError(f"Last 2 dimensions of the array must be square (np.linalg.{name})")
    return A


def batched(fn):
    """``fn`` on a 2-D array, applied over the leading dimensions of a stack."""
    def run(A, *args, **kwargs):
        A = np.asarray(A, dtype=object)
        if A.ndim <= 2:
            return fn(A, *args, **kwargs)
        outs = [fn(A[idx], *args, **kwargs) for idx in np.ndindex(A.shape[:-2])]
        return np.array(outs, dtype=object).reshape(A.shape[:-2] + np.shape(outs[0]))

    run.__name__ = fn.__name__
    return run
