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

import itertools
import math
import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import brentq
from scipy.special import erfcx, ndtr, ndtri

from linmem._validation import as_matrix, check_memory, check_positive_int, check_positive_real, check_probability
from linmem.tolerances import SMOOTHING_ROOT_STEPS_PER_BIT, working_eps

__all__ = [
    "CMM_TOP1_CONSTANT",
    "DEFAULT_DPS",
    "OPTIMAL_TOP1_CONSTANT",
    "ROOT_RTOL_ULPS",
    "alpha_c",
    "alpha_c_bounds",
    "alpha_c_mp",
    "competitor_count",
    "cover_count",
    "cover_probability",
    "cover_probability_float",
    "critical_d",
    "critical_n",
    "fm_separable",
    "in_general_position",
    "kappa",
    "kappa_mp",
    "load_ratio",
    "lp_separable",
    "max_stability",
    "max_stability_mp",
    "normal_partial_moment_mp",
    "normal_upper_quantile_mp",
    "percentile_edge",
    "separable_fraction",
    "smoothed_topk_average_mp",
    "tied_smoothing_gap",
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
# the SAT-phase percentile edge: the inverse of the capacity function
# --------------------------------------------------------------------------

#: Below this load the maximal stability is ``sqrt((1 - alpha) / alpha)`` to
#: float64 rounding: there ``kappa* > 31``, and ``E[(kappa + Z)_+^2]`` differs
#: from ``1 + kappa^2`` by less than ``phi(kappa) < 1e-200``.
_LARGE_STABILITY_LOAD = 1e-3


def _loads(alpha: Any) -> tuple[np.ndarray, bool]:
    """``alpha`` as a float64 array in (0, 2]; True when it was a scalar."""
    if isinstance(alpha, bool) or (np.ndim(alpha) == 0 and not isinstance(alpha, (numbers.Real, mpmath.mpf, np.ndarray))):
        raise TypeError(f"alpha must be a real number or an array of them, got {type(alpha).__name__} {alpha!r}")
    if np.ndim(alpha) == 0 and not isinstance(alpha, np.ndarray):
        arr, scalar = np.asarray(float(alpha)), True
    else:
        arr, scalar = as_matrix(alpha, "alpha", ndim=np.ndim(alpha)), False
        if arr.dtype == object:
            arr = np.array([float(x) for x in arr.ravel()]).reshape(arr.shape)
    bad = ~((arr > 0) & (arr <= 2))
    if np.any(bad):
        raise ValueError(f"alpha must lie in (0, 2] (the load n / d^2 of a maximal stability >= 0), got "
                         f"{arr[bad].ravel()[0]}")
    return arr, scalar


def _second_moment(k: float) -> float:
    """``D(kappa) = E[(kappa + Z)_+^2] = (1 + kappa^2) Phi(kappa) + kappa phi(kappa)``."""
    return (1.0 + k * k) * float(ndtr(k)) + k * math.exp(-0.5 * k * k) / _SQRT_2PI


def _max_stability(a: float) -> float:
    if a < _LARGE_STABILITY_LOAD:
        return math.sqrt(1.0 - a) / math.sqrt(a)
    if a == 2.0:
        return 0.0
    # D(kappa) <= 1 + kappa^2 and D(kappa) >= (1 + kappa^2)/2 (kappa >= 0) bracket the root
    lo, hi = math.sqrt(max(0.0, 1.0 / a - 1.0)), math.sqrt(2.0 / a - 1.0)
    f = lambda k: a * _second_moment(k) - 1.0  # noqa: E731
    if hi <= lo or f(lo) >= 0:  # D(lo) = 1 + lo^2 to rounding when lo is large
        return lo
    return brentq(f, lo, hi, xtol=1e-300,
                  rtol=ROOT_RTOL_ULPS * np.finfo(float).eps)


def max_stability(alpha: Any) -> float | np.ndarray:
    """Gardner's maximal stability ``kappa*(alpha)``: the root of ``alpha = 1 / [(1 + k^2) Phi(k) + k phi(k)]``.

    The inverse of the capacity function ``alpha(kappa) = 1 / E[(kappa +
    Z)_+^2]``, whose value at ``kappa_r`` is :func:`alpha_c`: so
    ``max_stability(alpha_c(r)) = kappa(r)``. Defined for loads ``0 < alpha
    <= 2`` (where ``kappa* >= 0``; beyond 2 the replica-symmetric formula is
    not the maximal stability); decreasing, ``kappa* sqrt(alpha) -> 1`` as
    ``alpha -> 0`` and ``kappa* -> 0`` at ``alpha = 2`` (Cover's capacity).
    ``D(kappa) = E[(kappa + Z)_+^2]`` is convex and increasing, and ``(1 +
    kappa^2)/2 <= D <= 1 + kappa^2`` brackets the root for brentq (relative
    tolerance ROOT_RTOL_ULPS ulps); below ``alpha = 1e-3`` the root is
    ``sqrt((1 - alpha)/alpha)`` to rounding. Near ``alpha = 2`` the root is
    ill-conditioned (its relative error grows like ``1 / kappa*``).
    Vectorised over arrays.

    In the ridgeless TAM memory (004) this is the hard lower edge of the
    normalised signal, ``rho_alpha`` in ``p_alpha = Phi(rho_alpha)``: see
    :func:`percentile_edge`.

    Source: ours (Gardner 1988's maximal stability, read as 004's rho_alpha).

    >>> abs(max_stability(alpha_c(0.15)) - kappa(0.15)) < 1e-12
    True
    >>> round(max_stability(0.2), 4)
    2.0014
    """
    arr, scalar = _loads(alpha)
    out = np.vectorize(_max_stability, otypes=[float])(arr)
    return float(out) if scalar else out


def percentile_edge(alpha: Any) -> float | np.ndarray:
    """The SAT-phase signal-percentile edge ``p_alpha = Phi(rho_alpha)``, ``rho_alpha = max_stability(alpha)``.

    Our specification of 004's edge: the ridgeless TAM memory maximises the
    smallest TAM margin per unit ``||W||_F``; with Gaussian competitors of
    spread ``sigma = ||W||_F / d`` the margin of key ``i`` is ``sigma (s_i -
    kappa_r)`` (``s_i`` the matched score over ``sigma``), so it maximises
    the smallest ``s_i``: Gardner's maximal-stability problem in ``d^2``
    dimensions at load ``alpha``, whose stabilities have the hard lower edge
    ``kappa*(alpha)``. Vectorised over arrays of ``alpha`` in (0, 2].

    Source: ours (004's p_alpha = Phi(rho_alpha), rho_alpha derived).

    >>> round(percentile_edge(0.2), 4)
    0.9773
    """
    arr, scalar = _loads(alpha)
    out = ndtr(np.vectorize(_max_stability, otypes=[float])(arr))
    return float(out) if scalar else out


def _mp_load(alpha: Any) -> mpmath.mpf:
    """An exact mpmath copy of a load in (0, 2] (a Fraction rounded at the current precision)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"alpha must be a real number, got {type(alpha).__name__} {alpha!r}")
    if not (0 < alpha <= 2):
        raise ValueError(f"alpha must lie in (0, 2] (the load n / d^2 of a maximal stability >= 0), got {alpha}")
    if isinstance(alpha, Fraction):
        return mpmath.mpf(alpha.numerator) / alpha.denominator
    if isinstance(alpha, (mpmath.mpf, numbers.Integral)):
        return mpmath.mpf(alpha)
    return mpmath.mpf(float(alpha))


def max_stability_mp(alpha: Any, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """:func:`max_stability` in mpmath at ``dps`` decimal digits (inside ``workdps``).

    Newton's method on ``D(kappa) - 1/alpha`` from the upper bracket
    ``sqrt(2/alpha - 1)``: ``D`` is convex and increasing, so the iterates
    fall monotonically to the root; it stops when a step is below the
    guarded precision. ``alpha`` (float, int, ``Fraction`` or ``mpf``) in
    (0, 2] is converted exactly.

    Source: ours (Gardner's maximal stability, 004's rho_alpha).

    >>> mpmath.nstr(max_stability_mp(2, dps=30), 5)
    '0.0'
    """
    dps = _dps(dps)
    _mp_load(alpha)  # validates
    with mpmath.workdps(dps + _GUARD_DIGITS):
        a = _mp_load(alpha)
        target, k = 1 / a, mpmath.sqrt(2 / a - 1)
        tol = mpmath.ldexp(k + 1, -mpmath.mp.prec + 4)
        for _ in range(4 * mpmath.mp.prec):
            cdf, pdf = mpmath.ncdf(k), mpmath.npdf(k)
            step = ((1 + k * k) * cdf + k * pdf - target) / (2 * (k * cdf + pdf))
            k -= step
            if abs(step) <= tol:
                break
        else:  # pragma: no cover - Newton on a convex increasing function converges
            raise ArithmeticError(f"max_stability_mp did not converge at alpha = {alpha}")
        k = max(k, mpmath.mpf(0))
    with mpmath.workdps(dps):
        return +k


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
    d = check_positive_real(d, "d")
    n = check_positive_real(n, "n", above=1.0)
    return d * d / (n * math.log(n))


def critical_d(n: float, constant: float) -> float:
    """Dimension at which the load ratio equals ``constant``: ``sqrt(c n ln n)``.

    Source: 004 (d^2 = 2 n log n, and 8 n log n for CMM).

    >>> round(critical_d(1000, OPTIMAL_TOP1_CONSTANT), 3)
    117.539
    """
    n = check_positive_real(n, "n", above=1.0)
    c = check_positive_real(constant, "constant")
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
    d = check_positive_real(d, "d")
    c = check_positive_real(constant, "constant")
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


# --------------------------------------------------------------------------
# TAM: the competitor count, the smoothing gap, bounds on alpha_c
# --------------------------------------------------------------------------


def competitor_count(n: int, r: float) -> int:
    """The k of a TAM margin over ``n`` pairs at competitor fraction ``r``: ``round(r (n - 1))`` in ``1..n-1``.

    Each query has ``n - 1`` competitors; the top-k average takes the
    fraction ``r`` of them, rounded to the nearest integer (ties to even)
    and kept at least 1 and at most ``n - 1``.

    Source: 004 (k = r n competitors in the tail average).

    >>> competitor_count(21, 0.15), competitor_count(3, 0.15), competitor_count(5, 0.99)
    (3, 1, 4)
    """
    n = check_positive_int(n, "n", minimum=2)
    r = float(check_probability(r, "r"))
    return max(1, min(n - 1, int(round(r * (n - 1)))))


def _smoothing_args(m: Any, k: Any, beta: Any) -> tuple[int, int]:
    m = check_positive_int(m, "m")
    k = check_positive_int(k, "k")
    if k > m:
        raise ValueError(f"k must be at most the number of scores m = {m}, got {k}")
    if isinstance(beta, bool) or not isinstance(beta, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"beta must be a real number, got {type(beta).__name__} {beta!r}")
    if not (mpmath.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a finite number > 0, got {beta}")
    return m, k


def tied_smoothing_gap(m: int, k: int, *, beta: Any) -> Any:
    """Exact gap ``F_beta - T_k`` of the smoothed top-k average at ``m`` tied scores: ``c(k/m) / beta``.

    ``c(p) = log((1 - p)/p) - log(1 - p)/p`` (0 at ``k = m``, where the
    smoothed average is the plain mean): at tied scores the minimising
    ``t`` solves ``sigmoid(beta (s - t)) = k/m``. ``c(1/2) = 2 log 2``, so
    at ``k = m/2`` the gap equals the general bound ``(m/k) log 2 / beta``:
    the ``1/beta`` rate is attained. A float for a float ``beta``; an
    ``mpf`` at the working precision for an ``mpf`` ``beta``.

    Source: ours (the tight case of 004's exponentially smoothed TAM).

    >>> round(tied_smoothing_gap(4, 2, beta=1.0), 12) == round(2 * math.log(2), 12)
    True
    """
    m, k = _smoothing_args(m, k, beta)
    if k == m:
        return 0 * beta
    log = mpmath.log if isinstance(beta, mpmath.mpf) else math.log
    p = mpmath.mpf(k) / m if isinstance(beta, mpmath.mpf) else k / m
    return (log((1 - p) / p) - log(1 - p) / p) / beta


def smoothed_topk_average_mp(scores: Any, k: int, *, beta: Any, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """The smoothed top-k average ``min_t t + (1/k) sum_j log(1 + e^{beta (s_j - t)}) / beta`` in mpmath.

    The minimiser solves ``(1/k) sum_j sigmoid(beta (s_j - t)) = 1``,
    found by mpmath's Anderson root finder on a bracket of the scores
    shifted by ``log(k / (m - k)) / beta``; at ``k = m`` the infimum is the
    plain mean. ``scores`` (floats, ints, ``Fraction`` or ``mpf``) are
    rounded at ``dps`` digits, at which the value is computed.

    Source: 004 (exponentially smoothed TAM), the mpmath evaluation.

    >>> mpmath.nstr(smoothed_topk_average_mp([1, 1], 1, beta=1, dps=30), 20)  # 1 + 2 log 2 - log 1
    '2.3862943611198906188'
    """
    dps = _dps(dps)
    s = as_matrix(scores, "scores", ndim=1)
    if s.size == 0:
        raise ValueError("scores must hold at least one score, got an empty array")
    m, k = _smoothing_args(s.size, k, beta)
    with mpmath.workdps(dps):
        s = [mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x) for x in s]
        b = mpmath.mpf(beta.numerator) / beta.denominator if isinstance(beta, Fraction) else mpmath.mpf(beta)
        if k == m:
            return sum(s) / m
        g = lambda t: sum(1 / (1 + mpmath.exp(-b * (x - t))) for x in s) / k - 1  # noqa: E731
        shift = mpmath.log(mpmath.mpf(k) / (m - k)) / b
        t = mpmath.findroot(g, (min(s) - shift - 1, max(s) - shift + 1), solver="anderson",
                            maxsteps=SMOOTHING_ROOT_STEPS_PER_BIT * mpmath.mp.prec)
        return t + sum(mpmath.log1p(mpmath.exp(b * (x - t))) for x in s) / (k * b)


def alpha_c_bounds(kappa_r: Any) -> tuple[Any, Any]:
    """Sandwich bounds on ``alpha_c`` from ``kappa_r``: ``1/(1/2 + 2 phi(0) kappa + kappa^2)`` and ``min(2, 2/(1 + kappa^2))``.

    With ``D(kappa) = 1/alpha_c = E[(kappa + Z)_+^2]``: ``D(0) = 1/2`` and
    ``D' = 2 E[(kappa + Z)_+] <= 2 (kappa + phi(0))`` give the lower bound;
    ``Phi(kappa) >= 1/2`` for ``kappa >= 0`` gives ``D >= (1 + kappa^2)/2``,
    the upper one. Returns ``(lower, upper)``, mpf (working precision) for an
    mpf ``kappa_r``, float otherwise.

    Source: ours (limits of 004's alpha_c).

    >>> lo, hi = alpha_c_bounds(kappa(0.15))
    >>> lo <= alpha_c(0.15) <= hi
    True
    """
    if isinstance(kappa_r, bool) or not isinstance(kappa_r, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"kappa_r must be a real number, got {type(kappa_r).__name__} {kappa_r!r}")
    if not (mpmath.isfinite(kappa_r) and kappa_r >= 0):
        raise ValueError(f"kappa_r must be a finite number >= 0 (kappa(r) of some r in (0, 1)), got {kappa_r}")
    c = 2 / mpmath.sqrt(2 * mpmath.pi) if isinstance(kappa_r, mpmath.mpf) else 2 / _SQRT_2PI
    k2 = kappa_r * kappa_r
    return 1 / (0.5 + c * kappa_r + k2), min(2, 2 / (1 + k2))


# --------------------------------------------------------------------------
# Cover: exact and LP decisions of homogeneous strict separability
# --------------------------------------------------------------------------


def _rational_rows(Y: Any, name: str) -> list[list[Fraction]]:
    arr = as_matrix(Y, name)  # refuses non-finite entries
    return [[Fraction(x) for x in row] for row in arr.tolist()]


def fm_separable(Y: Any) -> bool:
    """Whether some ``w`` has ``y_i . w > 0`` for every row ``y_i`` of ``Y``, decided exactly.

    Fourier-Motzkin elimination in rationals on ``y_i . w >= 1`` (the same
    question, by scaling ``w``), one coordinate at a time, duplicates
    dropped after normalisation; the system is feasible iff no constraint
    ``0 >= b`` with ``b > 0`` remains. Entries: integers, ``Fraction`` or
    floats (taken at their binary value).

    Source: ours (the exact route to Cover's count).

    >>> from fractions import Fraction as F
    >>> fm_separable([[F(1), F(0)], [F(0), F(1)]]), fm_separable([[F(1)], [F(-1)]])
    (True, False)
    """
    cons = [(y, Fraction(1)) for y in _rational_rows(Y, "Y")]
    for v in range(len(cons[0][0])):
        pos = [(a, b) for a, b in cons if a[v] > 0]
        neg = [(a, b) for a, b in cons if a[v] < 0]
        new = [(a, b) for a, b in cons if a[v] == 0]
        for ap, bp in pos:
            for aq, bq in neg:
                cp, cq = -aq[v], ap[v]
                new.append(([cp * x + cq * y for x, y in zip(ap, aq)], cp * bp + cq * bq))
        seen, cons = set(), []
        for a, b in new:
            scale = max((abs(x) for x in a), default=0) or 1
            key = (tuple(x / scale for x in a), b / scale)
            if key not in seen:
                seen.add(key)
                cons.append((a, b))
    return all(b <= 0 for _, b in cons)


def separable_fraction(X: Any) -> Fraction:
    """Fraction of the ``2^n`` sign patterns ``s`` for which the rows ``s_i x_i`` of ``X`` are strictly separable, exactly.

    Each pattern is decided by :func:`fm_separable`; ``s`` and ``-s`` are
    separable together, so half the patterns are decided. For rows in
    general position this is Cover's ``C(n, D) / 2^n``
    (:func:`cover_probability`).

    Source: Cover (1965), by enumeration.

    >>> separable_fraction([[1, 0], [0, 1], [1, 1]])
    Fraction(3, 4)
    """
    rows = _rational_rows(X, "X")
    n = len(rows)
    check_memory(2 ** min(n, 62), 1, f"the 2^{n} sign patterns of {n} rows")
    count = 0
    for signs in itertools.product((1, -1), repeat=n - 1):
        if fm_separable([[s * x for x in row] for s, row in zip((1,) + signs, rows)]):
            count += 2
    return Fraction(count, 2**n)


def in_general_position(X: Any) -> bool:
    """Whether every ``min(n, D)`` of the ``n`` rows of ``X`` (n x D) are linearly independent, exactly.

    Ranks in rationals (:func:`linmem.numerical_rank` on exact input), so
    the answer is exact for integer or rational rows.

    Source: Cover (1965) (general position, the assumption of the count).

    >>> in_general_position([[1, 0], [0, 1], [1, 1]]), in_general_position([[1, 2], [2, 4]])
    (True, False)
    """
    from linmem.spectral import numerical_rank

    rows = _rational_rows(X, "X")
    m = min(len(rows), len(rows[0]))
    return all(numerical_rank(np.array([rows[i] for i in pick], dtype=object)) == m
               for pick in itertools.combinations(range(len(rows)), m))


def lp_separable(A: Any) -> bool:
    """Whether some ``w`` has ``a_i . w > 0`` for every row of ``A``, by a linear program (HiGHS).

    Maximise ``t`` subject to ``a_i . w >= t``, ``|w|_inf <= 1``, ``t <= 1``;
    separable when the optimum exceeds ``SEPARABILITY_LP_RTOL * max(1,
    max |a_ij|)`` (:mod:`linmem.tolerances`). Raises
    :class:`linmem.learn.LinearProgramError` when HiGHS returns neither an
    optimum nor infeasibility.

    Source: ours (the float route to Cover's count).

    >>> lp_separable(np.array([[1.0, 0.0], [0.0, 1.0]])), lp_separable(np.array([[1.0], [-1.0]]))
    (True, False)
    """
    from scipy.optimize import linprog

    from linmem.learn import LinearProgramError
    from linmem.tolerances import SEPARABILITY_LP_RTOL

    A = as_matrix(A, "A")
    if A.dtype == object:
        raise TypeError("A must be a float matrix (the LP runs in float64), got an object array; use fm_separable "
                        "for exact rows")
    n, D = A.shape
    c = np.zeros(D + 1)
    c[-1] = -1.0
    res = linprog(c, A_ub=np.hstack([-A, np.ones((n, 1))]), b_ub=np.zeros(n),
                  bounds=[(-1, 1)] * D + [(None, 1)], method="highs")
    if res.status != 0:
        raise LinearProgramError(f"separability LP: HiGHS status {res.status}: {res.message}")
    return bool(-res.fun > SEPARABILITY_LP_RTOL * max(1.0, float(np.max(np.abs(A)))))


# --------------------------------------------------------------------------
# normal-law references for the TAM threshold (independent routes)
# --------------------------------------------------------------------------


def normal_upper_quantile_mp(r: Any, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """``q = Phi^{-1}(1 - r)`` at ``dps`` digits by root finding on the normal
    distribution function, not through ``erfinv`` (the route of
    :func:`kappa_mp`): on the upper tail ``Phi(-q) = r`` for ``r < 1/2`` and
    on the lower one ``Phi(q) = 1 - r`` otherwise, so no tail probability is
    formed by cancellation (``1 - r`` is exact for binary or rational ``r``
    at that precision). ``r`` is converted as in :func:`kappa_mp`.

    Source: ours (an independent evaluation of 004's quantile).

    >>> mpmath.nstr(normal_upper_quantile_mp(0.025, dps=30), 12)
    '1.95996398454'
    """
    dps = _dps(dps)
    check_probability(r, "r")
    with mpmath.workdps(dps):
        rm = _mp_probability(r)
        if rm < mpmath.mpf(1) / 2:
            q = mpmath.findroot(lambda x: mpmath.ncdf(-x) - rm, mpmath.mpf(-float(ndtri(float(rm)))))
        else:
            tail = 1 - rm
            q = mpmath.findroot(lambda x: mpmath.ncdf(x) - tail, mpmath.mpf(float(ndtri(float(tail)))))
        return q  # findroot's last iterate, not rounded to dps (it carries a few more bits)


def normal_partial_moment_mp(j: int, a: Any, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """``int_a^inf z^j phi(z) dz`` (``phi`` the standard normal density) at
    ``dps`` digits through the upper incomplete gamma function:
    ``int_|a|^inf z^j phi = 2^((j-1)/2) Gamma((j+1)/2, a^2/2) / sqrt(2 pi)``,
    and for ``a < 0`` and even ``j`` the full moment minus the piece beyond
    ``|a|`` (for odd ``j`` the pieces over ``[a, |a|]`` cancel exactly, so no
    difference is formed). A route apart from closed forms and quadrature.

    Source: ours (the second moment of 004's alpha_c and the mean beyond a
    quantile, kappa_r).

    >>> mpmath.nstr(normal_partial_moment_mp(2, 0, dps=30), 10)  # E[Z^2 ; Z > 0]
    '0.5'
    """
    j = check_positive_int(j, "j", minimum=0)
    dps = _dps(dps)
    if isinstance(a, bool) or not isinstance(a, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"a must be a real number, got {type(a).__name__} {a!r}")
    if not mpmath.isfinite(a):
        raise ValueError(f"a must be finite, got {a}")
    with mpmath.workdps(dps):
        if not isinstance(a, mpmath.mpf):  # an mpf is used as it is, at whatever precision it carries
            a = mpmath.mpf(a.numerator) / a.denominator if isinstance(a, Fraction) else mpmath.mpf(a)
        half = (j + 1) / mpmath.mpf(2)
        c = 2 ** (half - 1) / mpmath.sqrt(2 * mpmath.pi)
        upper = c * mpmath.gammainc(half, a * a / 2)
        return upper if a >= 0 or j % 2 else 2 * c * mpmath.gamma(half) - upper


# --------------------------------------------------------------------------
# the second-order term of the top-1 threshold (004, conjectured)
# --------------------------------------------------------------------------

__all__ = sorted([*__all__, "second_order_term"])  # kept sorted (tests/test_capacity.py)


def second_order_term(d: float, n: float) -> float:
    """``d^2 / n - 2 ln n``: what the critical dimension ``d_c^2 = n (2 ln n
    - 3 ln ln n + o(ln ln n))`` leaves beyond its leading term; at a
    finite-size critical point ``(d, n_c)`` the conjecture puts it near
    ``-3 ln ln n_c``. Needs ``n > 1``.

    Source: 004 (finite-size simulations, the second-order correction).

    >>> n = 1000.0
    >>> d = math.sqrt(n * (2 * math.log(n) - 3 * math.log(math.log(n))))
    >>> round(second_order_term(d, n) / math.log(math.log(n)), 9)
    -3.0
    """
    d = check_positive_real(d, "d")
    n = check_positive_real(n, "n", above=1.0)
    return d * d / n - 2 * math.log(n)
