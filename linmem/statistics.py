"""Statistics the sweeps and the claims share: a logistic crossing fitted by
maximum likelihood, the peak of a sampled curve, the drift of a peak with
size, a least-squares line with its standard error, the paired t statistic.

Each takes plain arrays, validates them (a clear ValueError or TypeError
naming the argument), and knows nothing of sweeps, pools or caches.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from linmem._validation import check_positive_real

__all__ = ["LOGISTIC_MAXITER", "LOGISTIC_RIDGE", "line_fit", "logistic_crossing", "paired_t", "peak_drift",
           "peak_location"]

#: Weak ridge (per observation) of the logistic fit: keeps the fit finite
#: when the sample is perfectly separated, too weak to move a fit that is not.
LOGISTIC_RIDGE = 1e-3

#: Newton iterations of the logistic fit (it converges in a handful).
LOGISTIC_MAXITER = 100


def logistic_crossing(x: Any, outcomes: Any, *, ridge: float = LOGISTIC_RIDGE) -> tuple[float, float]:
    """Fit ``P(outcome) = sigmoid(a + b x)`` by maximum likelihood; return ``(x50, b)``.

    ``x50 = -a / b`` is where the fitted probability is 1/2 (``nan`` when the
    fit has no crossing: slope 0). ``x`` is centred and scaled before the fit
    and a weak ridge ``ridge * len(x)`` penalises the slope, so that a
    perfectly separated sample (all successes below some x, all failures
    above) still gives a finite crossing between the two groups. Newton's
    method (IRLS) on the two parameters.

    Source: standard logistic regression (used for the 004 finite-size
    crossings).

    >>> x = np.repeat(np.arange(10.0), 20)
    >>> y = (np.random.default_rng(0).random(x.size) < 1 / (1 + np.exp(2.0 * (x - 4.5))))
    >>> x50, b = logistic_crossing(x, y)
    >>> bool(abs(x50 - 4.5) < 0.5 and b < 0)
    True
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(outcomes, dtype=float).ravel()
    if x.size != y.size or x.size < 2:
        raise ValueError(
            f"x and outcomes must have the same length >= 2, got {x.size} and {y.size}"
        )
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("outcomes must be 0/1 (or booleans)")
    ridge = float(ridge)
    if not (math.isfinite(ridge) and ridge > 0):
        raise ValueError(f"ridge must be a finite number > 0, got {ridge}")
    mu, sd = float(np.mean(x)), float(np.std(x))
    if sd == 0:
        return math.nan, 0.0
    z = (x - mu) / sd
    X = np.column_stack([np.ones_like(z), z])
    penalty = np.diag([0.0, ridge * x.size])
    beta = np.zeros(2)
    for _ in range(LOGISTIC_MAXITER):
        p = 1.0 / (1.0 + np.exp(-(X @ beta)))
        grad = X.T @ (y - p) - penalty @ beta
        w = p * (1.0 - p)
        H = (X * w[:, None]).T @ X + penalty
        # a tiny intercept regulariser keeps H invertible when every p saturates
        H[0, 0] += np.finfo(float).eps * x.size
        step = np.linalg.solve(H, grad)
        beta = beta + step
        if np.max(np.abs(step)) <= 1e-12 * (1.0 + np.max(np.abs(beta))):
            break
    a, b = beta
    if b == 0:
        return math.nan, 0.0
    return float(mu - sd * a / b), float(b / sd)


def peak_location(x: Any, y: Any) -> float:
    """Location of the maximum of a sampled curve: vertex of the parabola
    through the largest sample and its two neighbours (the sample itself at
    an end, or when the three are collinear).

    >>> xs = np.linspace(0, 2, 21)
    >>> round(peak_location(xs, -(xs - 0.73) ** 2), 6)
    0.73
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.size != y.size or x.size < 1:
        raise ValueError(f"x and y must have the same non-zero length, got {x.size} and {y.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite")
    order = np.argsort(x)
    x, y = x[order], y[order]
    i = int(np.argmax(y))
    if i == 0 or i == x.size - 1:
        return float(x[i])
    x0, x1, x2 = x[i - 1 : i + 2]
    y0, y1, y2 = y[i - 1 : i + 2]
    denom = (x0 - x1) * (x0 - x2) * (x1 - x2)
    A = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denom
    B = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denom
    if A >= 0:
        return float(x1)
    return float(-B / (2 * A))


def peak_drift(sizes: Sequence[float], samples: Sequence[Sequence[float]]) -> tuple[float, float, int]:
    """``(slope, standard error, degrees of freedom)`` of the least-squares
    line of the mean of ``samples[i]`` against ``log sizes[i]``.

    For locations whose scatter narrows like ``1/size`` (a finite-size
    threshold window): the spread is pooled over every size in the model
    ``sd(size) = s / size``, so a few samples per size still give a standard
    error, with ``sum(len(samples[i])) - len(sizes)`` degrees of freedom.

    Source: standard weighted least squares (used for 004's drifting peak).

    >>> slope, se, dof = peak_drift([6, 12], [[1.2, 1.0], [0.9, 1.0]])
    >>> round(slope, 4), dof
    (-0.2164, 2)
    """
    x = np.log([check_positive_real(s, "sizes entries") for s in sizes])
    samples = [np.asarray(s, dtype=float).ravel() for s in samples]
    if len(samples) != x.size or x.size < 2 or any(s.size == 0 for s in samples):
        raise ValueError(f"sizes and samples must have the same length >= 2 and no empty sample, got {x.size} "
                         f"sizes and {len(samples)} samples")
    size = np.exp(x)
    means = np.array([np.mean(s) for s in samples])
    scaled = np.concatenate([n * (s - m) for n, s, m in zip(size, samples, means)])
    dof = scaled.size - x.size
    s = math.sqrt(float(np.sum(scaled**2)) / dof) if dof > 0 else math.inf
    ses = np.array([s / (n * math.sqrt(p.size)) for n, p in zip(size, samples)])
    w = (x - x.mean()) / np.sum((x - x.mean()) ** 2)
    return float(w @ means), float(math.sqrt(np.sum(w * w * ses * ses))), dof


def line_fit(x: Any, y: Any) -> tuple[float, float, float]:
    """Least-squares line ``y = a x + b``: ``(a, b, standard error of a)``
    (``nan`` with fewer than three points or no spread in ``x``).

    >>> a, b, se = line_fit([0, 1, 2, 3], [1, 3, 5, 7.5])
    >>> round(a, 3), round(b, 3), round(se, 3)
    (2.15, 0.9, 0.087)
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.size != y.size or x.size < 2:
        raise ValueError(f"x and y must have the same length >= 2, got {x.size} and {y.size}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x and y must be finite")
    (a, b), res = np.polyfit(x, y, 1, full=True)[:2]
    dof = x.size - 2
    sxx = float(np.sum((x - x.mean()) ** 2))
    se = math.sqrt(float(res[0]) / dof / sxx) if dof > 0 and res.size and sxx > 0 else math.nan
    return float(a), float(b), se


def paired_t(gains: Any) -> float:
    """The paired t statistic of ``gains`` (one difference per pair, at least
    two): their mean over its standard error ``sd / sqrt(n)`` (``ddof = 1``).
    Equal gains (``sd = 0``) give ``+inf`` for a positive mean and ``-inf``
    otherwise (a zero gain is no evidence of a gain).

    >>> round(paired_t([0.1, 0.2, 0.3]), 4)
    3.4641
    >>> paired_t([0.5, 0.5]), paired_t([0.0, 0.0])
    (inf, -inf)
    """
    if isinstance(gains, (str, bytes)) or gains is None:
        raise TypeError(f"gains must be a real 1-D array, got {type(gains).__name__}")
    g = np.asarray(gains)
    if g.dtype == bool or not (np.issubdtype(g.dtype, np.floating) or np.issubdtype(g.dtype, np.integer)):
        raise TypeError(f"gains must be a real 1-D array, got dtype {g.dtype}")
    if g.ndim != 1 or g.size < 2:
        raise ValueError(f"gains must be a 1-D array of at least 2 paired differences, got shape {g.shape}")
    g = g.astype(float)
    if not np.all(np.isfinite(g)):
        raise ValueError("gains must be finite, got NaN or inf")
    se = g.std(ddof=1) / math.sqrt(g.size)
    return float(g.mean() / se) if se > 0 else (math.inf if g.mean() > 0 else -math.inf)
