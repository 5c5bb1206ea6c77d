"""Numerical rules linmem itself applies: machine epsilon per number system,
the numerical-rank rule, the unit-norm tolerance, and the tolerances of the
learners (the max-margin LP's certificates, the fits' gradient rule).

The evidence side (scaled residual ratios, the pass threshold, the mpmath
precision ladder) lives in :mod:`theorems.core.tolerance`, which builds on these.
"""

from __future__ import annotations

import mpmath
import numpy as np

__all__ = [
    "CERTIFICATE_RESIDUAL_FACTOR",
    "CONSTANT_SPREAD_TOL",
    "FIT_GRADIENT_TOL",
    "LP_FEASIBILITY_TOL",
    "MARGIN_ROUNDING_ULPS",
    "QUADRATURE_RTOL",
    "QUADRATURE_SUBDIVISIONS",
    "RANK_RULE",
    "SEPARABILITY_LP_RTOL",
    "SMOOTHING_ROOT_STEPS_PER_BIT",
    "UNIT_NORM_RTOL",
    "UNIT_NORM_ULPS",
    "rank_tolerance",
    "working_eps",
]

#: Unit keys are accepted when | ||k||^2 - 1 | <= UNIT_NORM_ULPS * d * eps.
UNIT_NORM_ULPS = 64

#: Human-readable statement of the numerical-rank rule (shown in docs and reports).
RANK_RULE = "singular values s_l > max(m, n) * eps * s_max count toward the rank"

UNIT_NORM_RTOL = UNIT_NORM_ULPS * float(np.finfo(np.float64).eps)


def working_eps(kind: str):
    """Unit roundoff of a number system: float64 eps, ``2**-prec`` for mpmath
    at the current working precision, and 0 for exact rationals.

    >>> working_eps("float") == float(np.finfo(float).eps)
    True
    >>> working_eps("exact")
    0
    """
    if kind == "float":
        return float(np.finfo(np.float64).eps)
    if kind == "mpmath":
        return mpmath.mpf(2) ** (-mpmath.mp.prec)
    if kind == "exact":
        return 0
    raise ValueError(f"kind must be 'float', 'mpmath' or 'exact', got {kind!r}")


def rank_tolerance(s_max, shape: tuple[int, int], kind: str):
    """Threshold below which a singular value counts as zero.

    The rule is numpy's and LAPACK's default: ``max(m, n) * eps * s_max``,
    with ``eps`` the unit roundoff of the number system in use (so at 100
    digits of mpmath a singular value of 1e-60 relative still counts).

    >>> bool(rank_tolerance(2.0, (3, 5), "float") == 5 * 2.0 * np.finfo(float).eps)
    True
    """
    eps = working_eps(kind)
    if (
        not isinstance(shape, tuple)
        or len(shape) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
    ):
        raise TypeError(f"shape must be a (rows, columns) tuple of integers >= 0, got {shape!r}")
    if isinstance(s_max, bool) or not isinstance(s_max, (int, float, mpmath.mpf, np.floating)):
        raise TypeError(f"s_max must be a real number, got {type(s_max).__name__} {s_max!r}")
    if not mpmath.isfinite(s_max) or s_max < 0:
        raise ValueError(f"s_max must be a finite number >= 0 (the largest singular value), got {s_max}")
    return max(shape) * eps * s_max


#: Relative accuracy asked of scipy's adaptive quadrature where linmem
#: integrates a smooth density (e.g. the mean of a Gaussian maximum), with at
#: most QUADRATURE_SUBDIVISIONS subintervals per integral.
QUADRATURE_RTOL = 1e-12
QUADRATURE_SUBDIVISIONS = 200

#: The smoothed top-k average's minimiser t solves (1/k) sum sigmoid(beta
#: (s_j - t)) = 1, a decreasing function of t on a known bracket; mpmath's
#: Anderson (bracketing regula falsi) root search stays in the bracket and
#: converges, but slowly where beta times the spread of the scores saturates
#: the sigmoids. It may take SMOOTHING_ROOT_STEPS_PER_BIT steps per bit of the
#: working precision: mpmath's default budget failed on 165 of 3,000 random
#: score sets (beta up to 64, spreads up to 10) at 40 digits; 4 per bit
#: solved all of 1,500 harder ones (beta up to 256, spreads up to 1000, up
#: to 24 scores) at 30, 60 and 120 digits.
SMOOTHING_ROOT_STEPS_PER_BIT = 4


#: linmem.capacity.lp_separable: rows count as strictly separable when the
#: LP's optimal margin (|w|_inf <= 1) exceeds this times max(1, max |a_ij|).
SEPARABILITY_LP_RTOL = 1e-9


#: linmem.assess.Assessment.model_gap: a per-key figure whose standard
#: deviation is at most this counts as constant (values in [0, 1], e.g. the
#: leverage h_j), and its correlation with another is undefined.
CONSTANT_SPREAD_TOL = 1e-12


# --- linmem.learn: the max-margin LP's certificates and the L-BFGS-B fits ----------
# (importable from linmem.learn as well)

#: Primal and dual feasibility tolerance handed to HiGHS (its own default).
#: Solutions it returns satisfy each constraint only to about this absolute
#: amount, which is what a lambda certificate is judged against.
LP_FEASIBILITY_TOL = 1e-7

#: A lambda certificate passes when
#: ||sum lambda_ij A_ij||_F <= CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL
#: * sum lambda_ij ||A_ij||_F (sum lambda = 1).
CERTIFICATE_RESIDUAL_FACTOR = 100

#: A W certificate passes when every S_ii - S_ij exceeds the rounding error of
#: computing it: MARGIN_ROUNDING_ULPS * (d_keys + d_targets) * eps
#: * ||W||_F * ||v_i|| * (||u_i|| + ||u_j||).
MARGIN_ROUNDING_ULPS = 32

#: Gradient tolerance of the L-BFGS-B fits (scipy's ``gtol``; its
#: relative-reduction rule is switched off): a fit reports ``converged`` only
#: when every entry of the gradient is at most this in absolute value, on the
#: instance normalised by powers of two to max-abs entries in (1/2, 1] (on the
#: instance as given: ``linmem.learn.fit_gradient_allowance``).
FIT_GRADIENT_TOL = 1e-5
