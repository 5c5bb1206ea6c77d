"""Residuals in every number system, robust to wrong shapes.

A wrong implementation may return an array of the wrong shape; that is a
failed identity (infinite residual), never a crash of the check.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

__all__ = ["diff_norm", "exact_sq", "max_abs"]


def _array(A):
    arr = np.asarray(A)
    return np.atleast_1d(np.asarray(A, dtype=object) if arr.dtype == object else arr)


def _arrays(A, B):
    return _array(A), _array(B)


def exact_sq(A, B):
    """Exact squared Frobenius norm of ``A - B`` (``inf`` if shapes differ).

    >>> from fractions import Fraction as F
    >>> exact_sq(np.array([F(1, 2)], dtype=object), np.array([0], dtype=object))
    Fraction(1, 4)
    """
    A, B = _arrays(A, B)
    if A.shape != B.shape:
        return math.inf
    D = (A - B).ravel()
    return sum((e * e for e in D), start=0)


def diff_norm(A, B):
    """Frobenius norm of ``A - B`` in the number system of the operands
    (float or mpf); ``inf`` if the shapes differ or an entry is not finite.

    >>> diff_norm(np.ones(4), np.zeros(4))
    2.0
    """
    A, B = _arrays(A, B)
    if A.shape != B.shape:
        return math.inf
    if A.dtype == object or B.dtype == object:
        D = (A - B).ravel()
        total = sum((e * e for e in D), start=mpmath.mpf(0))
        return mpmath.sqrt(total) if mpmath.isfinite(total) else math.inf
    val = float(np.linalg.norm((A - B).ravel()))
    return val if math.isfinite(val) else math.inf


def max_abs(A):
    """Largest absolute entry (0 for an empty array)."""
    A = _array(A)
    return max((abs(e) for e in A.ravel()), default=0)
