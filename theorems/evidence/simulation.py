"""Simulation evidence for approximation, asymptotic and conjecture claims:
a sweep over sizes with a criterion fixed in the code before the run.
Never reports a claim as proved: the statuses are SUPPORTED / NOT SUPPORTED,
or INCONCLUSIVE when the profile's sizes cannot resolve the criterion with
the stated power.

Power. Every criterion is designed so that its verdict is wrong with
probability at most :data:`~theorems.core.tolerance.SIMULATION_WRONG_VERDICT_RATE`
(1e-3) per claim at the profile's sizes. The design is stated next to the
criterion: the figure's spread across seeds measured at the profile (the
check's own spread, not a textbook one), and the margin between the
figure's typical value and the threshold, which must be at least
:func:`~theorems.core.tolerance.required_margin_sd` standard deviations. When a
profile cannot reach that margin the criterion says so *before* looking at
the unresolved part of the figure (:func:`underpowered`): the evidence is
INCONCLUSIVE, with the reason and the profile that can. A decision taken on
the measured figure alone (SUPPORTED when a confidence bound clears the
threshold, else INCONCLUSIVE) would flip between seeds whenever the effect
sits near the bound; deciding on the design keeps one status at every seed.

Criteria are callables ``criterion(sizes, figures) -> (ok, figure,
threshold, why)``; ``ok`` is a bool (SUPPORTED / NOT SUPPORTED) or an
:class:`~theorems.core.model.EvidenceStatus` (e.g. INCONCLUSIVE). Two are built
in: :func:`shrinks` (one-sided: the figure falls at least this fast) and
:func:`rate` (two-sided: the fitted exponent lies within a band around the
claimed one, so a faster decay than claimed fails as well as a slower one).

Domain. Every sweep records what it searched in ``data["domain"]`` (the
swept sizes under ``label``, plus whatever the caller adds: dimensions,
counts, loads), so that a report can set it beside the claim's stated domain
(:attr:`~theorems.core.model.Claim.domain`).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from linmem import statistics
from theorems.evidence._common import make, timed
from theorems.core.model import Context, Evidence, EvidenceKind, EvidenceStatus
from theorems.core.tolerance import required_margin_sd

__all__ = [
    "check",
    "decays",
    "drift",
    "loglog_slope",
    "one_blas_thread",
    "rate",
    "shrinks",
    "sweep_domain",
    "underpowered",
]


def loglog_slope(sizes: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of log(value) against log(size).

    >>> round(loglog_slope([1, 2, 4], [1.0, 0.5, 0.25]), 6)
    -1.0
    """
    return statistics.line_fit(np.log(np.asarray(sizes, dtype=float)), np.log(np.asarray(values, dtype=float)))[0]


def _positive_finite(figures) -> bool:
    figures = np.asarray(figures, dtype=float)
    return bool(np.all(np.isfinite(figures)) and np.all(figures > 0))


def shrinks(*, max_slope: float, max_last_over_first: float):
    """Criterion: the figure falls with size: its log-log slope is at most
    ``max_slope`` (< 0) and the last figure is at most ``max_last_over_first``
    times the first. One-sided: any faster decay passes; a claim that states
    a rate uses :func:`rate`."""

    def criterion(sizes, figures) -> tuple[bool, float, float, str]:
        figures = np.asarray(figures, dtype=float)
        if not _positive_finite(figures):
            return False, float("nan"), max_slope, "a figure is not positive and finite"
        slope = loglog_slope(sizes, figures)
        ratio = figures[-1] / figures[0]
        ok = slope <= max_slope and ratio <= max_last_over_first
        return ok, slope, max_slope, (
            f"log-log slope {slope:.3f} (need <= {max_slope}); last/first {ratio:.3f} "
            f"(need <= {max_last_over_first})"
        )

    return criterion


def rate(*, exponent: float, band: float):
    """Two-sided rate criterion: the least-squares log-log slope of the
    figure against size lies within ``band`` of the claimed ``exponent``
    (the figure behaves like ``size**exponent``). The evidence's figure is
    ``|slope - exponent|`` against the threshold ``band``; a decay that is
    faster than claimed fails just as a slower one does.

    >>> ok, gap, band, why = rate(exponent=-0.5, band=0.1)([16, 64, 256], [0.25, 0.125, 0.0625])
    >>> ok, round(gap, 6), band
    (True, 0.0, 0.1)
    >>> rate(exponent=-0.5, band=0.1)([16, 64, 256], [1.0, 1 / 16, 1 / 256])[0]  # d^-2: too fast
    False
    """
    if not band > 0:
        raise ValueError(f"rate band must be positive, got {band!r}")

    def criterion(sizes, figures) -> tuple[bool, float, float, str]:
        if not _positive_finite(figures):
            return False, float("inf"), band, "a figure is not positive and finite"
        slope = loglog_slope(sizes, figures)
        gap = abs(slope - exponent)
        return gap <= band, gap, band, (
            f"fitted exponent {slope:.3f} against the claimed {exponent:g} (need within +- {band:g}: "
            f"{'yes' if gap <= band else 'no'})"
        )

    criterion.exponent = exponent  # type: ignore[attr-defined]
    criterion.band = band  # type: ignore[attr-defined]
    return criterion


def underpowered(*, effect: float, spread: float | None, profile: str, better: str | None) -> str | None:
    """The reason a profile cannot resolve an effect, or None when it can.

    ``effect`` is the smallest difference between the figure and its
    threshold the criterion must resolve (e.g. the drift it detects);
    ``spread`` the standard deviation of the figure across seeds at this
    profile (measured, stated in the claim module; None when not measured).
    The profile resolves it when ``effect >= required_margin_sd() *
    spread``: then a correct claim clears the threshold, and a claim whose
    figure sits on the wrong side is caught, each with probability at least
    ``1 - SIMULATION_WRONG_VERDICT_RATE``. ``better`` names the profile that
    can (None: none of the shipped ones).

    >>> underpowered(effect=0.1, spread=0.01, profile="quick", better=None) is None
    True
    >>> print(underpowered(effect=0.1, spread=0.09, profile="quick", better="standard"))
    the effect 0.1 is 1.11 standard deviations of the figure at profile quick (0.09 across seeds), below the 6.18 needed for a wrong verdict at most 0.001 of the time; run --profile standard
    """
    from theorems.core.tolerance import SIMULATION_WRONG_VERDICT_RATE

    need = required_margin_sd()
    if spread is not None and spread >= 0 and (spread == 0 or effect / spread >= need):
        return None
    measured = "not measured" if spread is None else f"{effect / spread:.3g} standard deviations"
    where = f"run --profile {better}" if better else "no shipped profile reaches it"
    return (
        f"the effect {effect:g} is {measured} of the figure at profile {profile}"
        + ("" if spread is None else f" ({spread:g} across seeds)")
        + f", below the {need:.3g} needed for a wrong verdict at most {SIMULATION_WRONG_VERDICT_RATE:g} "
        f"of the time; {where}"
    )


def _plain(x):
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return str(x)


def sweep_domain(label: str, sizes: Sequence[Any], **extra: Any) -> dict:
    """``data["domain"]`` of a sweep: the swept ``sizes`` under ``label``
    (with their range when numeric) and any ``extra`` named ranges.

    >>> sweep_domain("d", [16, 32, 64])
    {'d': {'values': [16, 32, 64], 'min': 16, 'max': 64}}
    """
    values = [_plain(s) for s in sizes]
    entry: dict[str, Any] = {"values": values}
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        entry["min"], entry["max"] = min(values), max(values)
    out = {label: entry}
    for name, value in extra.items():
        out[name] = value if isinstance(value, (dict, str)) else [_plain(v) for v in value] \
            if isinstance(value, (list, tuple)) else _plain(value)
    return out


@contextmanager
def one_blas_thread():
    """Run the block with BLAS on one thread (threadpoolctl), restoring the
    counts after. A sweep makes many small factorisations; on a busy machine
    multithreaded OpenBLAS spins its workers against other processes, and a
    128 x 256 SVD measured 0.6 to 1.8 s on two threads against 0.014 s on one
    (a 60 s check budget then ran out). Results do not depend on it beyond
    rounding."""
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def check(
    ctx: Context,
    sizes: Sequence[Any],
    measure: Callable[[Any, np.random.Generator], float],
    criterion: Callable[[Sequence[Any], Sequence[float]], tuple[Any, float, float, str]],
    *,
    label: str,
    size_name: str = "size",
    domain: Mapping[str, Any] | None = None,
) -> Evidence:
    """Measure the figure at each size (fresh generator per size) and apply
    the criterion; ``figure`` is what the criterion reports (e.g. a slope).
    ``size_name`` names the swept variable in ``data["domain"]`` (``d``,
    ``n``...); ``domain`` adds other searched ranges."""
    figures = []
    with timed() as t:
        with one_blas_thread():
            for size in sizes:
                figures.append(float(measure(size, ctx.rng(f"sweep:{size}"))))
        ok, figure, threshold, why = criterion(sizes, figures)
    status = ok if isinstance(ok, EvidenceStatus) else None
    ev = make(
        ctx,
        EvidenceKind.SIMULATION,
        bool(ok) if status is None else status is EvidenceStatus.SUPPORTED,
        seconds=t["seconds"],
        passed=EvidenceStatus.SUPPORTED,
        failed=EvidenceStatus.NOT_SUPPORTED if status is None else status,
        figure=figure,
        threshold=threshold,
        cases=len(sizes),
        detail=f"{label}: {why}",
        data={"sizes": [s if isinstance(s, (int, float)) else str(s) for s in sizes],
              "figures": figures,
              "domain": sweep_domain(size_name, sizes, **dict(domain or {}))},
    )
    return ev


# --- drift of a location that moves with size ---------------------------------------


def drift(sizes: Sequence[float], samples: Sequence[Sequence[float]], *, effect: float, spread: float | None,
          profile: str, falls: bool = True, better: str | None = None) -> tuple[Any, dict, str]:
    """Whether a location (a threshold, a peak) moves with size in the
    claimed direction, decided with the power stated: ``(verdict, summary,
    why)``.

    ``samples[i]`` are the per-pool (or per-seed) locations at ``sizes[i]``;
    the drift is the slope of their means against log size
    (:func:`linmem.statistics.peak_drift`, the scatter pooled as s/size), with
    one-sided Student-t bounds at ``1 - SIMULATION_WRONG_VERDICT_RATE``.
    ``effect`` is the drift the design must resolve and ``spread`` the
    slope's standard deviation across run seeds measured at ``profile``
    (stated in the claim module). The verdict: ``False`` when the drift is
    resolved against the claimed direction (``falls``: downward); else
    INCONCLUSIVE when the profile cannot resolve ``effect``
    (:func:`underpowered`, decided before the slope is read, so the status
    does not flip with the seed); else whether the bound on the claimed side
    clears zero. ``summary`` holds the slope, its standard error, degrees of
    freedom, t quantile, both bounds and the power (effect, spread, reason).

    >>> ok, summary, why = drift([6, 12, 24], [[1.2, 1.21], [1.0, 1.01], [0.8, 0.81]], effect=0.1, spread=0.01,
    ...                          profile="quick")
    >>> ok, round(summary["slope"], 3), summary["underpowered"] is None
    (True, -0.289, True)
    >>> drift([6, 12, 24], [[1.2, 1.21], [1.0, 1.01], [0.8, 0.81]], effect=0.1, spread=0.09, profile="quick")[0]
    <EvidenceStatus.INCONCLUSIVE: 'inconclusive'>
    >>> drift([6, 12, 24], [[0.8, 0.81], [1.0, 1.01], [1.2, 1.21]], effect=0.1, spread=0.09, profile="quick")[0]
    False
    """
    from scipy.special import stdtrit  # Student's t quantile (scipy.stats' t.ppf) without importing scipy.stats

    from theorems.core.tolerance import SIMULATION_WRONG_VERDICT_RATE

    slope, se, dof = statistics.peak_drift(sizes, samples)
    t = float(stdtrit(dof, 1 - SIMULATION_WRONG_VERDICT_RATE)) if dof > 0 else float("inf")
    lower, upper = slope - t * se, slope + t * se
    short = underpowered(effect=effect, spread=spread, profile=profile, better=better)
    against = lower > 0 if falls else upper < 0
    verdict = False if against else EvidenceStatus.INCONCLUSIVE if short else (upper < 0 if falls else lower > 0)
    summary = {"slope": slope, "se": se, "dof": dof, "t": t, "upper_bound": upper, "lower_bound": lower,
               "underpowered": short, "effect": effect, "spread": spread}
    need, wrong_side = ("upper < 0", "a lower bound > 0") if falls else ("lower > 0", "an upper bound < 0")
    return verdict, summary, (
        f"slope against log size {slope:.3f} +- {se:.3f} ({dof} dof), one-sided "
        f"{1 - SIMULATION_WRONG_VERDICT_RATE:.1%} bounds [{lower:.3f}, {upper:.3f}] (need {need}"
        + (f"; not resolvable here: {short}" if short else "")
        + f"; {wrong_side} contradicts the statement: {'yes' if against else 'no'})")


def decays(*, max_slope: float, max_last_over_first: float):
    """:func:`shrinks` for a figure that may vanish or blow up: a figure that
    is zero, negative or not finite fails with an infinite (not NaN) figure,
    so the sweep comes out NOT SUPPORTED rather than an error.

    >>> decays(max_slope=-0.5, max_last_over_first=0.5)([10, 100], [1.0, 0.0])[:2]
    (False, inf)
    >>> ok, slope, _, _ = decays(max_slope=-0.5, max_last_over_first=0.5)([10, 100], [1.0, 0.1])
    >>> bool(ok), round(slope, 6)
    (True, -1.0)
    """
    inner = shrinks(max_slope=max_slope, max_last_over_first=max_last_over_first)

    def criterion(sizes, figures) -> tuple[bool, float, float, str]:
        ok, fig, thr, why = inner(sizes, figures)
        return ok, (fig if np.isfinite(fig) else float("inf")), thr, why

    return criterion
