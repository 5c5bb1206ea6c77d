"""Conversions into the high-precision (mpmath) and exact (rational) number
systems. Every linmem formula accepts the arrays made here, so a formula is
written once and evaluated in float64, at any mpmath precision, or exactly.

Precision is never changed here: callers use ``mpmath.workdps``/``workprec``.

>>> import mpmath
>>> from linmem.recall import leverage_scores
>>> with mpmath.workdps(50):
...     h = leverage_scores(mp_array(exact_array([[1, 1, 1, 0], [0, 0, 0, 1]])))
...     print(mpmath.nstr(h[0], 40))
0.3333333333333333333333333333333333333333
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from linmem._validation import EXACT, MPMATH, as_matrix, number_kind

__all__ = ["exact_array", "mp_array", "to_float"]


def _as_any_dim(x, name):
    if isinstance(x, (str, bytes, dict)) or x is None:
        return as_matrix(x, name)  # refused with the type it got
    try:
        arr = x if isinstance(x, np.ndarray) and x.dtype == object else np.asarray(x)
    except (ValueError, TypeError):
        return as_matrix(x, name)  # ragged: refused with numpy's reason
    return as_matrix(x, name, ndim=max(arr.ndim, 1)) if arr.ndim else as_matrix(np.atleast_1d(x), name, ndim=1)


def exact_array(x, *, name: str = "x") -> np.ndarray:
    """An object array of ``Fraction``; floats convert exactly (their binary value).

    >>> exact_array([0.5, 2]).tolist()
    [Fraction(1, 2), Fraction(2, 1)]
    """
    arr = _as_any_dim(x, name)
    kind = number_kind(arr)
    if kind == MPMATH:
        raise TypeError(f"{name} holds mpmath numbers, which have no exact rational form here")
    if kind == EXACT:
        return np.vectorize(Fraction, otypes=[object])(arr)
    return np.vectorize(lambda e: Fraction(float(e)), otypes=[object])(arr)


def mp_array(x, *, name: str = "x") -> np.ndarray:
    """An object array of ``mpmath.mpf`` at the current working precision.

    Rationals are divided at that precision (so 1/3 gets more digits as the
    precision grows); floats are taken at their exact binary value.

    >>> with mpmath.workdps(30):
    ...     print(mp_array(exact_array([[1, 3]]) / 3)[0, 0])
    0.333333333333333333333333333333
    """
    arr = _as_any_dim(x, name)
    kind = number_kind(arr)
    if kind == MPMATH:
        return np.vectorize(lambda e: +e, otypes=[object])(arr)
    if kind == EXACT:
        return np.vectorize(
            lambda e: mpmath.mpf(Fraction(e).numerator) / Fraction(e).denominator, otypes=[object]
        )(arr)
    return np.vectorize(lambda e: mpmath.mpf(float(e)), otypes=[object])(arr)


def to_float(x, *, name: str = "x") -> np.ndarray:
    """Round any linmem array to float64.

    >>> to_float(exact_array([[1, 2]]) / 4).tolist()
    [[0.25, 0.5]]
    """
    arr = _as_any_dim(x, name)
    try:
        with np.errstate(over="ignore"):
            out = np.vectorize(float, otypes=[np.float64])(arr) if arr.dtype == object else arr
    except OverflowError:  # a Fraction beyond float range
        out = np.array([np.inf])
    if not np.all(np.isfinite(out)):  # an mpf beyond float range rounds to inf
        raise ValueError(
            f"{name} must have entries within the float64 range (|x| < 1.8e308), got larger ones"
        )
    return out.reshape(np.shape(x))
