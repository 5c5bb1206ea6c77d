"""The tolerance model: one rule for every floating-point comparison.

A float check passes when its *scaled residual ratio*

    ratio = ||error|| / (scale * eps),   scale = size * ||operands|| * condition

is at most :data:`THRESHOLD` (the LAPACK test-suite convention). ``eps`` is
float64's unit roundoff, or ``2**-prec`` at the working mpmath precision.

High-precision evidence climbs :data:`PRECISION_LADDER`: an identity's
residual must stay within the scaled bound at every rung *and* fall as the
precision grows (an approximation's would not).

Monte Carlo checks each allow a false failure with probability
:data:`MC_FALSE_FAILURE_RATE`; with at most :data:`MC_MAX_CHECKS` of them in the
catalogue, a chance failure of a whole run is rarer than
:data:`SUITE_FALSE_FAILURE_RATE`.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from linmem.tolerances import working_eps

__all__ = [
    "LADDER_MIN_DROP_DIGITS",
    "MC_FALSE_FAILURE_RATE",
    "MC_MAX_CHECKS",
    "PRECISION_LADDER",
    "SUITE_FALSE_FAILURE_RATE",
    "THRESHOLD",
    "mc_critical_z",
    "norm",
    "passes",
    "scaled_residual",
]

#: The one pass threshold for scaled residual ratios.
THRESHOLD = 64.0

#: Working precisions (decimal digits) of the high-precision evidence.
PRECISION_LADDER = (50, 100, 150)

#: Between the lowest and highest rung a nonzero residual must fall by at
#: least this many decimal digits (half the precision gained).
LADDER_MIN_DROP_DIGITS = (PRECISION_LADDER[-1] - PRECISION_LADDER[0]) // 2

#: Probability that one correct Monte Carlo check fails by chance.
MC_FALSE_FAILURE_RATE = 1e-9

#: Upper bound on the number of Monte Carlo checks in the catalogue (tested).
MC_MAX_CHECKS = 500

#: The bound the two numbers above guarantee for a whole run (union bound).
SUITE_FALSE_FAILURE_RATE = MC_FALSE_FAILURE_RATE * MC_MAX_CHECKS

assert SUITE_FALSE_FAILURE_RATE < 1e-6


def norm(x) -> float | mpmath.mpf:
    """Frobenius (or Euclidean) norm in the number system of ``x``."""
    arr = np.asarray(x, dtype=object if np.asarray(x).dtype == object else float)
    if arr.dtype == object:
        total = sum((e * e for e in arr.ravel()), start=0)
        return mpmath.sqrt(total) if not isinstance(total, int) else math.sqrt(total)
    return float(np.linalg.norm(arr.ravel()))


def scaled_residual(error, *, scale, kind: str = "float"):
    """``error / (scale * eps)``; inf for a non-finite error or a shape mismatch
    reported as ``error=inf``. ``scale`` must be positive.

    >>> scaled_residual(1e-15, scale=1.0) < THRESHOLD
    True
    """
    eps = working_eps(kind)
    if scale <= 0:
        scale = 1
    if error == 0:
        return 0.0
    if not mpmath.isfinite(error):
        return math.inf
    return float(error / (scale * eps))


def passes(ratio) -> bool:
    """The shared rule: a scaled residual ratio passes when it is <= THRESHOLD."""
    return bool(ratio <= THRESHOLD)


def mc_critical_z(alpha: float = MC_FALSE_FAILURE_RATE) -> float:
    """Two-sided normal critical value for false-failure rate ``alpha``.

    >>> round(mc_critical_z(1e-9), 3)
    6.109
    """
    from scipy.special import ndtri

    return float(-ndtri(alpha / 2))
