"""Dimension-only recall estimates of 000: what the count M and dimension d
alone predict, under stated idealisations.

Source: 000, "Recover Wang's capacity estimate" and App. E. These scalar
formulas accept floats, ``Fraction``, ``mpmath.mpf`` and sympy expressions.
"""

from __future__ import annotations

import numbers
from typing import Any

import mpmath

__all__ = [
    "op_spherical_error",
    "op_spherical_snr",
    "snr_capacity",
    "uniform_leverage_snr",
]


def _is_symbolic(x: Any) -> bool:
    return type(x).__module__.startswith("sympy")


def _positive(x: Any, name: str):
    if _is_symbolic(x):
        return x
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    if not mpmath.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {x}")
    return x


def uniform_leverage_snr(d, M):
    """Least-squares SNR if every leverage equals d/M (M > d, full row rank):
    ``(d/M) / (1 - d/M) = d / (M - d)``. Source: 000, "Recover Wang's".

    >>> uniform_leverage_snr(10, 20)
    1.0
    """
    d = _positive(d, "d")
    M = _positive(M, "M")
    if not _is_symbolic(d) and not _is_symbolic(M) and not M > d:
        raise ValueError(f"M must exceed d for the uniform-leverage estimate, got d={d}, M={M}")
    return d / (M - d)


def snr_capacity(d, gamma):
    """Largest M with ``d / (M - d) >= gamma``: ``M = d (1 + 1/gamma)``
    (2d at gamma = 1). Source: 000, "Recover Wang's".

    >>> snr_capacity(100, 1)
    200.0
    """
    d = _positive(d, "d")
    gamma = _positive(gamma, "gamma")
    return d * (1 + 1 / gamma)


def op_spherical_error(d, M):
    """Expected outer-product recall error for independent spherical keys and
    unit values: ``(M - 1) / d``. Source: 000, "Recover Wang's", App. E.

    >>> op_spherical_error(10, 11)
    1.0
    """
    d = _positive(d, "d")
    M = _positive(M, "M")
    return (M - 1) / d


def op_spherical_snr(d, M):
    """Outer-product SNR for spherical keys, ``d / (M - 1)`` (unit signal power
    over the averaged cross-talk power). Source: 000, "Recover Wang's".

    >>> op_spherical_snr(10, 21)
    0.5
    """
    d = _positive(d, "d")
    M = _positive(M, "M")
    if not _is_symbolic(M) and not M > 1:
        raise ValueError(f"M must exceed 1 (cross-talk needs a second pair), got {M}")
    return d / (M - 1)
