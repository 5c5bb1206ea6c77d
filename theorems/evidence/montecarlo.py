"""Monte Carlo evidence over a continuous distribution.

``sample(rng, size)`` returns an array of shape ``(size,)`` or
``(size, k)``: ``k`` per-sample quantities whose expectations are claimed to
be ``expected``. Samples are drawn in chunks (BLAS-sized batches), the mean
and standard error accumulated, and each component tested with a two-sided
z-test at false-failure rate ``MC_FALSE_FAILURE_RATE / k`` (Bonferroni), so a
correct claim fails by chance with probability at most
:data:`~theorems.core.tolerance.MC_FALSE_FAILURE_RATE` per check.

A quantity that is deterministic up to rounding (zero variance, e.g. an
error that is exactly zero for independent keys) has a standard error at
rounding level; the deviation is then judged by the shared rounding rule
instead: ``|mean - claimed| <= THRESHOLD * eps * (1 + |claimed|)``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from theorems.evidence._common import make, timed
from theorems.evidence.simulation import one_blas_thread
from theorems.core.model import Context, Evidence, EvidenceKind
from theorems.core.tolerance import MC_FALSE_FAILURE_RATE, THRESHOLD, mc_critical_z

__all__ = ["CHUNK", "check"]

#: Samples drawn per batch.
CHUNK = 4096


def check(
    ctx: Context,
    sample: Callable[[np.random.Generator, int], np.ndarray],
    expected,
    *,
    n: int | None = None,
    label: str = "",
    alpha: float = MC_FALSE_FAILURE_RATE,
    names=None,
) -> Evidence:
    """``names`` (optional) names each quantity, in the order of
    ``expected``; without it the quantities are named by index (``q0``,
    ``q1``, ...). The names go into ``data["names"]`` (the report's plots
    and failure messages use them)."""
    n = int(n or ctx.profile.mc_samples)
    rng = ctx.rng("montecarlo")
    expected = np.atleast_1d(np.asarray(expected, dtype=float))
    k = expected.size
    if names is None:
        names = [f"q{i}" for i in range(k)]
    else:
        names = [str(x) for x in names]
        if len(names) != k:
            raise ValueError(f"names must name each of the {k} quantities, got {len(names)} names")
    total = np.zeros(k)
    total_sq = np.zeros(k)
    drawn = 0
    with timed() as t, one_blas_thread():
        while drawn < n:
            size = min(CHUNK, n - drawn)
            x = np.asarray(sample(rng, size), dtype=float).reshape(size, -1)
            if x.shape[1] != k:
                raise ValueError(f"sample returned {x.shape[1]} quantities, expected {k}")
            total += x.sum(axis=0)
            total_sq += (x * x).sum(axis=0)
            drawn += size
    mean = total / n
    var = np.maximum(total_sq / n - mean**2, 0.0) * n / max(n - 1, 1)
    se = np.sqrt(var / n)
    deviation = np.abs(mean - expected)
    rounding = THRESHOLD * np.finfo(float).eps * (1 + np.abs(expected))
    deviation = np.where(deviation <= rounding, 0.0, deviation)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, deviation / se, np.where(deviation == 0, 0.0, np.inf))
    crit = mc_critical_z(alpha / k)
    worst = float(np.max(z))
    ok = bool(np.all(z <= crit))
    return make(
        ctx,
        EvidenceKind.MONTECARLO,
        ok,
        seconds=t["seconds"],
        figure=worst,
        threshold=crit,
        cases=n,
        counterexample=None if ok else {
            "quantity": int(np.argmax(z)),
            "name": names[int(np.argmax(z))],
            "z": worst,
            "mean": float(mean[np.argmax(z)]),
            "claimed": float(expected[np.argmax(z)]),
            "standard_error": float(se[np.argmax(z)]),
        },
        detail=f"{label} |mean - claimed| / standard error over {n} samples; "
        f"false-failure rate {alpha:g} per check",
        data={
            "mean": mean.tolist(),
            "claimed": expected.tolist(),
            "standard_error": se.tolist(),
            "false_failure_rate": alpha,
            "names": names,
            # signed: (mean - claimed) / standard error, 0 at rounding level
            "z": [float(v) if np.isfinite(v) else str(v) for v in np.sign(mean - expected) * z],
        },
    )
