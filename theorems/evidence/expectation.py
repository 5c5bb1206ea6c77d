"""Exact expectation evidence: the expectation over a finite distribution that
satisfies exactly the stated moment assumptions, computed by enumeration in
exact rationals.

The workhorse distribution is *random signs times fixed unit vectors*:
``v_i = s_i w_i`` with independent fair signs and fixed exactly-unit rational
``w_i``. Its values are independent, zero-mean and unit-norm, so
``E[V^T V] = I``, which is all 000 assumes of the values.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, Callable, Iterable

import numpy as np
from hypothesis import strategies as st

from theorems.evidence.symbolic import exact_search
from theorems.core.model import Context, Evidence, EvidenceKind

__all__ = ["check", "sign_average", "uniform_average"]


def uniform_average(f: Callable[[Any], Any], outcomes: Iterable[Any]):
    """Exact average of ``f`` over equally likely ``outcomes``.

    >>> uniform_average(lambda x: x * x, [1, 2, 3])
    Fraction(14, 3)
    >>> uniform_average(lambda x: x, [])
    Traceback (most recent call last):
    ...
    ValueError: outcomes must be non-empty
    """
    total, n = Fraction(0), 0
    for outcome in outcomes:
        total += f(outcome)
        n += 1
    if n == 0:
        raise ValueError("outcomes must be non-empty")
    return total / n


def sign_average(f: Callable[[np.ndarray], Any], m: int):
    """``E_s f(s)`` over ``s`` uniform on ``{-1, +1}^m``, exactly (2^m terms).

    >>> sign_average(lambda s: (s[0] + s[1]) ** 2, 2)
    Fraction(2, 1)
    """
    return uniform_average(
        f, (np.array(s, dtype=object) for s in itertools.product((-1, 1), repeat=m))
    )


def check(ctx: Context, strategy: st.SearchStrategy, residual: Callable[[Any], Any], **kw) -> Evidence:
    """``residual(input)`` = exact expectation minus the claimed value; must be 0."""
    return exact_search(
        ctx, EvidenceKind.EXPECTATION, strategy, residual,
        detail="exact expectation by enumeration over a finite distribution, residual == 0",
        **kw,
    )
