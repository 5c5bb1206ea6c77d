"""Residuals in every number system, robust to wrong shapes.

A wrong implementation may return an array of the wrong shape; that is a
failed identity (infinite residual), never a crash of the check.

The residual contract of the claim templates (:mod:`theorems.authoring.templates`):
a claim's ``terms`` return a list whose entries are pairs ``(lhs, rhs)``
(claimed equal) or :func:`at_most` bounds (``lhs <= rhs`` entrywise).
:func:`exact_residual` turns the list into one exact number, zero exactly
when every term holds; :func:`residual` into one float or mpf, the largest
difference norm or bound violation, to be scaled by the tolerance model.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

__all__ = ["AtMost", "at_most", "diff_norm", "exact_residual", "exact_sq", "max_abs", "residual", "term_sizes"]


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
    """Largest absolute entry (0 for an empty array), in the entries' own
    number type.

    >>> from fractions import Fraction
    >>> max_abs([[1, Fraction(-7, 2)], [2, 0]])
    Fraction(7, 2)
    >>> max_abs([])
    0
    """
    A = _array(A)
    return max((abs(e) for e in A.ravel()), default=0)


class AtMost:
    """The term ``lhs <= rhs`` (entrywise; scalars broadcast)."""

    __slots__ = ("lhs", "rhs")

    def __init__(self, lhs, rhs):
        self.lhs, self.rhs = lhs, rhs

    def excess(self) -> np.ndarray | None:
        """The entries of ``lhs - rhs``, or None when the shapes do not broadcast."""
        A, B = _arrays(self.lhs, self.rhs)
        try:
            return np.broadcast_arrays(A, B)[0] - np.broadcast_arrays(A, B)[1]
        except ValueError:
            return None


def at_most(lhs, rhs) -> AtMost:
    """The bound ``lhs <= rhs`` as a term of the residual contract.

    >>> residual([at_most(np.array([1.0, 3.0]), 2.0)])
    1.0
    """
    return AtMost(lhs, rhs)


def _terms(terms):
    if isinstance(terms, AtMost):
        terms = [terms]
    for t in terms:
        if not isinstance(t, AtMost) and not (isinstance(t, tuple) and len(t) == 2):
            raise TypeError(
                f"terms must be a list of (lhs, rhs) pairs or at_most(lhs, rhs) bounds, "
                f"got an entry of type {type(t).__name__}"
            )
        yield t


def exact_residual(terms):
    """One exact number, zero exactly when every term holds: the sum of the
    squared differences of the pairs and of the positive excesses of the
    bounds (``inf`` for a shape mismatch).

    >>> from fractions import Fraction as F
    >>> exact_residual([(np.array([F(1)]), np.array([F(1)])), at_most(F(1, 2), 1)]) == 0
    True
    """
    total = 0
    for t in _terms(terms):
        if isinstance(t, AtMost):
            excess = t.excess()
            if excess is None:
                return math.inf
            total += sum((e for e in excess.ravel() if e > 0), start=0)
        else:
            total += exact_sq(*t)
    return total


def residual(terms):
    """The largest difference norm of the pairs and positive excess of the
    bounds, in the number system of the operands (``inf`` for a shape
    mismatch or a non-finite entry).

    >>> residual([(np.ones(4), np.zeros(4)), at_most(0.0, 1.0)])
    2.0
    """
    worst = 0.0
    for t in _terms(terms):
        if isinstance(t, AtMost):
            excess = t.excess()
            if excess is None:
                return math.inf
            value = max((e for e in excess.ravel()), default=0)
            value = (float(value) if isinstance(value, np.floating) else value) if value > 0 else 0.0
            if not mpmath.isfinite(value):
                return math.inf
        else:
            value = diff_norm(*t)
        worst = value if value > worst else worst
    return worst


def _norm(A):
    A = _array(A)
    return diff_norm(A, A * 0)


def term_sizes(terms) -> list[tuple]:
    """Per term ``(residual, size_lhs, size_rhs)`` in the operands' number
    system: the difference norm of a pair (or the largest positive excess of
    a bound) beside the Frobenius norms of its two sides, the scale against
    which the measured tolerance judges the residual.

    >>> [tuple(float(x) for x in t) for t in term_sizes([(np.ones(4), np.zeros(4))])]
    [(2.0, 2.0, 0.0)]
    """
    out = []
    for t in _terms(terms):
        lhs, rhs = (t.lhs, t.rhs) if isinstance(t, AtMost) else t
        out.append((residual([t]), _norm(lhs), _norm(rhs)))
    return out
