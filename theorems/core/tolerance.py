"""The tolerance model: one rule for every floating-point comparison.

A float check passes when its *scaled residual ratio*

    ratio = ||error|| / (scale * eps),   scale = size * ||operands|| * condition

is at most :data:`THRESHOLD` (the LAPACK test-suite convention). ``eps`` is
float64's unit roundoff, or ``2**-prec`` at the working mpmath precision.

High-precision evidence climbs :data:`PRECISION_LADDER`: an identity's
residual must stay within the scaled bound at every rung *and* fall as the
precision grows (an approximation's would not). The fall is measured from
the rung that resolves the case best (see :func:`ladder_fall`), so an
accidentally tiny residual at a low rung (a cancellation, common on
ill-conditioned and rank-deficient inputs) is not taken for a stall.

Monte Carlo checks each allow a false failure with probability
:data:`MC_FALSE_FAILURE_RATE`; with at most :data:`MC_MAX_CHECKS` of them in the
catalogue, a chance failure of a whole run is rarer than
:data:`SUITE_FALSE_FAILURE_RATE`.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from linmem.recall import CONSISTENCY_ULPS
from linmem.tolerances import rank_tolerance, working_eps

__all__ = [
    "FLOAT_MIN_RESOLVABLE_SHARE",
    "FLOAT_REFERENCE_DIGITS",
    "FLOAT_UNRESOLVED_SHARE",
    "LADDER_MIN_DROP_DIGITS",
    "LADDER_MIN_FALL_FRACTION",
    "LADDER_MIN_KEPT_FRACTION",
    "MC_FALSE_FAILURE_RATE",
    "MC_MAX_CHECKS",
    "PRECISION_LADDER",
    "SUITE_FALSE_FAILURE_RATE",
    "THRESHOLD",
    "SIMULATION_WRONG_VERDICT_RATE",
    "CERTIFIED_MARGIN_ULPS",
    "REFERENCE_CONDITION_ALLOWANCE",
    "REFERENCE_QUAD_EPSREL",
    "ladder_fall",
    "least_squares_tolerance",
    "margin_sd",
    "required_margin_sd",
    "mc_critical_z",
    "norm",
    "scaled_residual",
]

#: The one pass threshold for scaled residual ratios.
THRESHOLD = 64.0

#: Working precisions (decimal digits) of the high-precision evidence.
PRECISION_LADDER = (50, 100, 150)

#: Share of the precision gained between a rung and the top rung by which
#: an identity's nonzero residual must fall (see :func:`ladder_fall`).
LADDER_MIN_FALL_FRACTION = 0.5

#: The measured tolerance (templates without ``scale=``), precision ladder:
#: an identity is judged by the fall of its residual alone; a bound that
#: need not fall (``falls=False``) must, at the top rung, keep at least this
#: share of the working digits relative to the size of its terms. At 150
#: digits this admits an amplification of up to 1e75 (a term as sensitive
#: as sigma_min**-2 at condition 1e20 costs 40), while a false bound's
#: violation keeps none.
LADDER_MIN_KEPT_FRACTION = 0.5

#: The measured tolerance, float64: working precision (decimal digits) at
#: which a float case that fails the cheap default-scale test is evaluated
#: again, on the same (exactly converted) float inputs, as the reference
#: against which each side's float64 error is measured. 60 digits leave 20
#: to spare after an amplification of 1e40 (a sigma_min**-2 term at the
#: float families' condition 1e12 costs 24).
FLOAT_REFERENCE_DIGITS = 60

#: A float term whose float64 error (against the reference) reaches this share of its own size
#: keeps no significant digit in float64: the case is beyond float64, counted
#: and reported, never a counterexample.
FLOAT_UNRESOLVED_SHARE = 0.1

#: Share of a float search's cases that must be resolvable in float64 for
#: the check to pass (below it the check is INCONCLUSIVE: float64 cannot
#: judge the statement on these inputs).
FLOAT_MIN_RESOLVABLE_SHARE = 0.5

#: The fall required over the whole ladder (lowest rung to the highest).
LADDER_MIN_DROP_DIGITS = (PRECISION_LADDER[-1] - PRECISION_LADDER[0]) * LADDER_MIN_FALL_FRACTION

#: Probability that one correct Monte Carlo check fails by chance.
MC_FALSE_FAILURE_RATE = 1e-9

#: Upper bound on the number of Monte Carlo checks in the catalogue (tested).
MC_MAX_CHECKS = 500

#: The bound the two numbers above guarantee for a whole run (union bound).
SUITE_FALSE_FAILURE_RATE = MC_FALSE_FAILURE_RATE * MC_MAX_CHECKS

assert SUITE_FALSE_FAILURE_RATE < 1e-6

#: Probability that a statistical or finite-size criterion (a sweep, a
#: crossing, a drift, a fitted slope) gives a wrong verdict on one claim at
#: the profile's sizes, by design (see :mod:`theorems.evidence.simulation`).
SIMULATION_WRONG_VERDICT_RATE = 1e-3

#: A float64 score margin (matched score minus a competitor average, sums of
#: n terms) certifies a strict inequality only above its rounding:
#: CERTIFIED_MARGIN_ULPS * n * eps * (|S_ii| + max_j |S_ij|).
CERTIFIED_MARGIN_ULPS = 4

#: Conditioning allowance of a reference recomputation of leverage 1 - h_j
#: through another pseudoinverse path (LAPACK pinv of V^T against the
#: implementation's): the gap is scaled by M * REFERENCE_CONDITION_ALLOWANCE * eps.
#: The real-embedding pairs it serves have cond(V) about 4 (d = 32, M = 96).
REFERENCE_CONDITION_ALLOWANCE = 1e3

#: Relative accuracy asked of a float reference quadrature (scipy's quad on
#: the TAM integrals); its own error estimate is subtracted from the gap
#: before the gap is scaled and judged against THRESHOLD.
REFERENCE_QUAD_EPSREL = 1e-13


def margin_sd(rate: float = SIMULATION_WRONG_VERDICT_RATE) -> float:
    """Standard deviations between a figure's typical value and its
    threshold for a one-sided normal error rate ``rate``.

    >>> round(margin_sd(), 2)
    3.09
    """
    from scipy.special import ndtri

    return float(-ndtri(rate))


def required_margin_sd(rate: float = SIMULATION_WRONG_VERDICT_RATE) -> float:
    """Standard deviations of the figure an effect must span to be resolved:
    a test at ``rate`` that also misses the effect at most at ``rate``
    (``2 * margin_sd(rate)``).

    >>> round(required_margin_sd(), 2)
    6.18
    """
    return 2 * margin_sd(rate)


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


def mc_critical_z(alpha: float = MC_FALSE_FAILURE_RATE) -> float:
    """Two-sided normal critical value for false-failure rate ``alpha``.

    >>> round(mc_critical_z(1e-9), 3)
    6.109
    """
    from scipy.special import ndtri

    return float(-ndtri(alpha / 2))


def ladder_fall(residuals, ladder) -> tuple[bool, float, float, int]:
    """Does a residual fall as the precision climbs the ladder?

    ``residuals[i]`` is the residual norm at ``ladder[i]`` decimal digits.
    The top rung's residual must lie at least ``LADDER_MIN_FALL_FRACTION *
    (ladder[-1] - ladder[i])`` decimal digits below the residual at *some*
    lower rung ``i`` (the rung that resolves the case best). An identity's
    residual tracks the working precision (about ``10**-digits`` times a
    conditioning factor), so from a rung at its rounding level it falls by
    the full precision gained; an approximation's residual stalls at its
    approximation error and falls from no rung. Measuring from the best
    rung, not always from the lowest, allows for a low rung whose residual
    happened to come out far below its rounding level (an accidental
    cancellation on an ill-conditioned or rank-deficient input), which
    would otherwise read as a stall.

    A top residual of exactly zero falls (exact arithmetic at that rung); an
    exact zero at a lower rung counts as one unit roundoff of that rung.
    Returns ``(falls, achieved_digits, required_digits, rung_index)`` for
    the rung that comes closest to (or exceeds) its requirement.

    >>> ladder_fall([1e-50, 1e-100, 1e-150], (50, 100, 150))
    (True, 100.0, 50.0, 0)
    >>> ladder_fall([1e-60, 1e-60, 1e-60], (50, 100, 150))[0]
    False
    >>> ladder_fall([2e-101, 3e-101, 2e-151], (50, 100, 150))[0]  # lucky low rung
    True
    >>> ladder_fall([1e-50, 1e-100, 3e-100], (50, 100, 150))  # half a digit short of the 50 required
    (False, 49.52287874528034, 50.0, 0)
    """
    if len(residuals) != len(ladder) or len(ladder) < 2:
        raise ValueError(f"ladder_fall needs one residual per rung (at least 2), got {len(residuals)} "
                         f"residuals for {len(ladder)} rungs")
    if residuals[-1] == 0:
        return True, math.inf, 0.0, 0
    top = float(mpmath.log10(residuals[-1]))
    best = None
    for i in range(len(ladder) - 1):
        level = -float(ladder[i]) if residuals[i] == 0 else float(mpmath.log10(residuals[i]))
        achieved = level - top
        required = LADDER_MIN_FALL_FRACTION * (ladder[-1] - ladder[i])
        margin = achieved - required
        if best is None or margin > best[0]:
            best = (margin, achieved, required, i)
    margin, achieved, required, i = best
    return margin >= 0, achieved, required, i


def least_squares_tolerance(K, V) -> float:
    """The documented tolerance of ``W = V K^+`` recomputed from numpy's
    singular values, outside the assessment under test:
    ``CONSISTENCY_ULPS * max(p, d, n) * eps * ||V||_F * ||K^+||_2 * cond(K)``
    on K's numerical range (0 for a zero K).

    >>> least_squares_tolerance(np.zeros((2, 2)), np.ones((1, 2)))
    0.0
    >>> least_squares_tolerance(np.ones(2), np.ones((1, 2)))
    Traceback (most recent call last):
    ...
    ValueError: K and V must be 2-D with as many columns, got shapes (2,) and (1, 2)

    The size factor is the largest of p (V's rows) and K's d and n: eight
    rows of values at K = I_2 (||V||_F = 4, every singular value 1) give

    >>> least_squares_tolerance(np.eye(2), np.ones((8, 2))) == CONSISTENCY_ULPS * 8 * working_eps("float") * 4.0
    True
    """
    K, V = np.asarray(K, dtype=float), np.asarray(V, dtype=float)
    if K.ndim != 2 or V.ndim != 2 or V.shape[1] != K.shape[1]:
        raise ValueError(f"K and V must be 2-D with as many columns, got shapes {K.shape} and {V.shape}")
    s = np.linalg.svd(K, compute_uv=False)
    if not s.size or s[0] == 0:
        return 0.0
    s = s[s > rank_tolerance(float(s[0]), K.shape, "float")]
    return (CONSISTENCY_ULPS * max(V.shape[0], *K.shape) * working_eps("float") * float(np.linalg.norm(V))
            * float(s[0]) / float(s[-1]) ** 2)
