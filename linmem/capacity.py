"""Capacity formulas: the TAM threshold alpha_c(r), the top-1 load constants,
and Cover's counting function.

* TAM (quadratic load ``alpha = n / d^2``, competitor fraction ``r = k/n``)::

      kappa(r)   = phi(Phi^{-1}(1 - r)) / r          (= E[Z | Z > Phi^{-1}(1-r)])
      alpha_c(r) = 1 / [ (1 + kappa^2) Phi(kappa) + kappa phi(kappa) ]

  with ``phi``/``Phi`` the standard normal density and distribution
  function; ridgeless TAM learning succeeds below ``alpha_c(r)``.
* Top-1 (logarithmic load): all pairs are retrieved when
  ``d^2 / (n ln n)`` exceeds a constant: 8 for the correlation matrix memory,
  2 for the best linear memory (and no linear memory manages below 2).
* Cover (1965): ``n`` points in general position in ``R^D`` admit
  ``C(n, D) = 2 sum_{k<D} binom(n-1, k)`` homogeneous linear dichotomies out
  of ``2^n``.

Float versions use scipy.special (``ndtr``, ``ndtri``) and accept arrays;
the ``_mp`` versions evaluate the same formulas with mpmath inside
``mpmath.workdps`` (the global precision is never changed).

Source: seed 004 (alpha_c(r), kappa_r, the constants 8 and 2); Cover (1965)
for the counting function.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, ndtr, ndtri

from linmem._validation import as_matrix, check_memory, check_positive_int, check_probability
from linmem.tolerances import working_eps

__all__ = [
    "CMM_TOP1_CONSTANT",
    "DEFAULT_DPS",
    "OPTIMAL_TOP1_CONSTANT",
    "ROOT_RTOL_ULPS",
    "alpha_c",
    "alpha_c_mp",
    "cover_count",
    "cover_probability",
    "cover_probability_float",
    "critical_d",
    "critical_n",
    "kappa",
    "kappa_mp",
    "load_ratio",
]

#: CMM retrieves all n pairs top-1 when d^2 / (n ln n) > 8 (and fails below).
CMM_TOP1_CONSTANT = 8

#: Some linear memory retrieves all pairs top-1 iff d^2 / (n ln n) > 2 (sharp).
OPTIMAL_TOP1_CONSTANT = 2

#: Decimal digits of the mpmath versions unless told otherwise.
DEFAULT_DPS = 50

#: Relative tolerance, in ulps, of the root finder in :func:`critical_n`
#: (brentq accepts no less than 4).
ROOT_RTOL_ULPS = 4

_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)

#: Guard digits added inside the mpmath evaluations.
_GUARD_DIGITS = 10


# --------------------------------------------------------------------------
# guards private to this module
# --------------------------------------------------------------------------


def _probabilities(r: Any, name: str = "r") -> tuple[np.ndarray, bool]:
    """``r`` as a float64 array strictly inside (0, 1); True when it was a scalar."""
    if isinstance(r, (numbers.Real, mpmath.mpf)) and not isinstance(r, np.ndarray):
        return np.asarray(float(check_probability(r, name))), True
    try:
        ndim = np.ndim(r)
    except (ValueError, TypeError):
        ndim = 1  # let as_matrix report the unusable input
    arr = as_matrix(r, name, ndim=ndim)
    if arr.dtype == object:
        arr = np.array([float(x) for x in arr.ravel()]).reshape(arr.shape)
    bad = ~((arr > 0) & (arr < 1))
    if np.any(bad):
        raise ValueError(
            f"{name} must lie strictly between 0 and 1, got {arr[bad].ravel()[0]}"
        )
    return arr, ndim == 0


def _positive_real(x: Any, name: str, *, above: float = 0.0) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    try:
        x = float(x)
    except OverflowError:  # an integer beyond float range
        x = math.inf
    if not (math.isfinite(x) and x > above):
        raise ValueError(f"{name} must be a finite number > {above:g}, got {x}")
    return x


def _dps(dps: Any) -> int:
    """Decimal digits for the mpmath versions; one number of that many digits
    must fit in memory (about log2(10) / 8 bytes a digit)."""
    dps = check_positive_int(dps, "dps")
    check_memory(-(-dps * 415 // 1000), 1, f"one mpmath number at dps = {dps}")
    return dps


def _mp_probability(r: Any, name: str = "r") -> mpmath.mpf:
    """An exact mpmath copy of a probability in (0, 1) (the conversion of a
    float is exact; a Fraction is rounded at the current precision, so call
    inside workdps)."""
    check_probability(r, name)
    if isinstance(r, Fraction):
        return mpmath.mpf(r.numerator) / r.denominator
    if isinstance(r, mpmath.mpf):
        return r
    if isinstance(r, numbers.Integral):
        return mpmath.mpf(int(r))
    return mpmath.mpf(float(r))


# --------------------------------------------------------------------------
# TAM threshold
# --------------------------------------------------------------------------


def _kappa(r: np.ndarray) -> np.ndarray:
    # z = Phi^{-1}(1 - r) = -Phi^{-1}(r): no cancellation in 1 - r for small r.
    # Then kappa = phi(z) / (1 - Phi(z)) (the inverse Mills ratio at z), and
    # 1 - Phi(z) = erfcx(z / sqrt 2) exp(-z^2 / 2) / 2 gives
    # kappa = sqrt(2 / pi) / erfcx(z / sqrt 2): no exp to underflow, and the
    # Mills ratio is insensitive to the rounding of z (its slope is in (0, 1)).
    z = -ndtri(r)
    return _SQRT_2_OVER_PI / erfcx(z / _SQRT_2)


def kappa(r: Any) -> float | np.ndarray:
    """Mean of a standard normal beyond its upper ``r``-quantile: ``phi(Phi^{-1}(1-r)) / r``.

    ``kappa(r) = E[Z | Z > Phi^{-1}(1 - r)]`` (the inverse Mills ratio at
    the quantile ``z``). Vectorised over arrays of ``r`` in (0, 1). Computed
    as ``sqrt(2/pi) / erfcx(z / sqrt 2)`` with ``z = -ndtri(r)``, which is
    accurate to a few ulps from ``r = 1e-300`` up to ``r`` near 1.

    Source: 004 (kappa_r in the ridgeless TAM threshold).

    >>> round(kappa(0.5), 12) == round(2 / (2 * 3.141592653589793) ** 0.5, 12)
    True
    """
    arr, scalar = _probabilities(r)
    out = _kappa(arr)
    return float(out) if scalar else out


def alpha_c(r: Any) -> float | np.ndarray:
    """Ridgeless TAM threshold: ``1 / [(1 + kappa^2) Phi(kappa) + kappa phi(kappa)]``.

    ``kappa = kappa(r)``; TAM learning at load ``alpha = n / d^2`` succeeds
    for ``alpha < alpha_c(r)`` with ``r = k / n``. All terms of the
    denominator are positive, so no cancellation occurs. Vectorised over
    arrays of ``r``.

    Source: 004 (closed-form ridgeless TAM threshold; alpha_c(0.15) ~ 0.294).

    >>> round(alpha_c(0.15), 5)
    0.29444
    """
    arr, scalar = _probabilities(r)
    k = _kappa(arr)
    phi = np.exp(-0.5 * k * k) / _SQRT_2PI
    out = 1.0 / ((1.0 + k * k) * ndtr(k) + k * phi)
    return float(out) if scalar else out


def _kappa_mp(r: Any, dps: int) -> mpmath.mpf:
    """kappa at ``dps`` digits of a validated probability ``r``.

    erfinv(1 - 2r) near +-1 needs as many extra digits as 1 - 2r has leading
    nines, so those are added.
    """
    with mpmath.workdps(dps):
        r_mp = _mp_probability(r)
        tail = min(r_mp, 1 - r_mp)
        extra = int(mpmath.ceil(-mpmath.log10(tail))) + _GUARD_DIGITS
    with mpmath.workdps(dps + extra):
        r = _mp_probability(r)
        z = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * r)
        value = mpmath.npdf(z) / r
    with mpmath.workdps(dps):
        return +value


def kappa_mp(r: Any, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """:func:`kappa` in mpmath at ``dps`` decimal digits (inside ``workdps``).

    ``Phi^{-1}(1 - r) = sqrt(2) erfinv(1 - 2 r)``; ``r`` (a float, int,
    ``Fraction`` or ``mpf``) is converted exactly.

    Source: 004 (kappa_r).

    >>> mpmath.nstr(kappa_mp(0.5, dps=30), 25)  # sqrt(2/pi)
    '0.7978845608028653558798921'
    """
    dps = _dps(dps)
    check_probability(r, "r")
    return _kappa_mp(r, dps)


def alpha_c_mp(r: Any, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """:func:`alpha_c` in mpmath at ``dps`` decimal digits (inside ``workdps``).

    Source: 004 (closed-form ridgeless TAM threshold).

    >>> mpmath.nstr(alpha_c_mp(0.15, dps=30), 10)
    '0.2944394324'
    """
    dps = _dps(dps)
    check_probability(r, "r")
    k = _kappa_mp(r, dps + _GUARD_DIGITS)
    with mpmath.workdps(dps + _GUARD_DIGITS):
        value = 1 / ((1 + k * k) * mpmath.ncdf(k) + k * mpmath.npdf(k))
    with mpmath.workdps(dps):
        return +value


# --------------------------------------------------------------------------
# top-1 load
# --------------------------------------------------------------------------


def load_ratio(d: float, n: float) -> float:
    """The top-1 load ratio ``d^2 / (n ln n)`` (natural log; needs ``n > 1``).

    All pairs are retrievable top-1 above :data:`OPTIMAL_TOP1_CONSTANT` and
    by CMM above :data:`CMM_TOP1_CONSTANT`.

    Source: 004 (top-1 threshold d^2 / (n log n) = 2).

    >>> round(load_ratio(100, 1000), 4)
    1.4476
    """
    d = _positive_real(d, "d")
    n = _positive_real(n, "n", above=1.0)
    return d * d / (n * math.log(n))


def critical_d(n: float, constant: float) -> float:
    """Dimension at which the load ratio equals ``constant``: ``sqrt(c n ln n)``.

    Source: 004 (d^2 = 2 n log n, and 8 n log n for CMM).

    >>> round(critical_d(1000, OPTIMAL_TOP1_CONSTANT), 3)
    117.539
    """
    n = _positive_real(n, "n", above=1.0)
    c = _positive_real(constant, "constant")
    return math.sqrt(c * n * math.log(n))


def critical_n(d: float, constant: float) -> float:
    """Number of pairs at which the load ratio equals ``constant``: solve ``n ln n = d^2 / c``.

    The root ``n > 1`` is found by Brent's method on ``[1, max(e, y) + 1]``,
    ``y = d^2 / c`` (``n ln n`` increases from 0 there and exceeds ``y`` at
    the right end); it equals ``y / W(y)`` with ``W`` the Lambert function.

    Source: 004 (the top-1 threshold solved for n).

    >>> round(critical_n(critical_d(1000, 2), 2), 6)
    1000.0
    """
    d = _positive_real(d, "d")
    c = _positive_real(constant, "constant")
    y = d * d / c
    if not math.isfinite(y):
        raise ValueError(
            f"d^2 / constant must be a finite float to solve n ln n = d^2 / constant, "
            f"got d = {d}, constant = {c}"
        )
    hi = max(math.e, y) + 1.0
    return float(
        brentq(
            lambda n: n * math.log(n) - y, 1.0, hi,
            xtol=np.finfo(float).tiny, rtol=ROOT_RTOL_ULPS * working_eps("float"),
        )
    )


# --------------------------------------------------------------------------
# Cover's function counting theorem
# --------------------------------------------------------------------------


def cover_count(n: int, D: int) -> int:
    """Cover's count of linearly separable dichotomies: ``2 sum_{k<D} binom(n-1, k)``.

    For ``n`` points in general position in ``R^D`` (homogeneous
    separators). Exact (Python integers); ``2^n`` when ``n <= D``.

    Source: Cover (1965), the function counting theorem.

    >>> cover_count(4, 2), cover_count(3, 5)
    (8, 8)
    """
    n = check_positive_int(n, "n")
    D = check_positive_int(D, "D")
    # the count has up to min(n, D log2 n) bits
    check_memory(min(n, D * n.bit_length()) // 8 + 1, 1, f"Cover's count for n = {n}, D = {D}")
    return 2 * sum(math.comb(n - 1, k) for k in range(min(D, n)))


def cover_probability(n: int, D: int) -> Fraction:
    """Probability that a random dichotomy of n points in R^D is separable: ``C(n, D) / 2^n``.

    Exact ``Fraction``; equals 1 for ``n <= D`` and 1/2 at ``n = 2 D``.

    Source: Cover (1965).

    >>> cover_probability(4, 2), cover_probability(2, 5)
    (Fraction(1, 2), Fraction(1, 1))
    """
    count = cover_count(n, D)
    check_memory(n // 8 + 1, 1, f"2**n for n = {n}")
    return Fraction(count, 2**n)


def cover_probability_float(n: int, D: int) -> float:
    """:func:`cover_probability` as a correctly rounded float.

    Source: Cover (1965).

    >>> cover_probability_float(10, 5)
    0.5
    """
    return float(cover_probability(n, D))
