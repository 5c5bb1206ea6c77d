"""Fixed exact inputs for the precision ladders: ill-conditioned (far beyond
float64), rank-deficient and duplicated keys, in every shape (M < d, M = d,
M > d). Exact rationals, so each rung of the ladder rounds them afresh."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from linmem import ensembles
from theorems.authoring import kit
from theorems.core.model import Context

__all__ = ["precise_key_cases", "precise_values"]

#: Condition number of the ill-conditioned exact keys (beyond float64's reach).
PRECISE_COND = 10**20


def precise_key_cases(ctx: Context, *, unit: bool = False) -> list[tuple[str, np.ndarray]]:
    """``ctx.profile.precise_cases`` (at least 3) labelled exact key matrices."""
    rng = ctx.rng("precise-keys")
    cases: list[tuple[str, np.ndarray]] = []
    shapes = [(4, 6), (5, 3), (4, 4), (3, 7), (6, 5), (2, 5)]
    for i in range(max(3, ctx.profile.precise_cases)):
        d, M = shapes[i % len(shapes)]
        top = min(d, M)
        which = i % 3
        if which == 0:
            K = ensembles.rational_controlled_spectrum(d, M, cond=PRECISE_COND, rng=rng)
            label = f"cond 1e20, full rank, {d}x{M}"
        elif which == 1:
            K = ensembles.rational_controlled_spectrum(d, M, cond=10**12, rank=max(top - 1, 1), rng=rng)
            label = f"cond 1e12, rank {max(top - 1, 1)}, {d}x{M}"
        else:
            base = rng.integers(-3, 4, size=(d, max(top - 1, 1)))
            base[0, np.all(base == 0, axis=0)] = 1
            K = kit.exact(base[:, rng.integers(0, base.shape[1], M)])
            label = f"duplicated integer keys, {d}x{M}"
        if unit:
            K = _rational_unit_columns(K, rng)
            label += ", unit columns"
        cases.append((label, K))
    return cases


def _stereographic(t: list[Fraction]) -> list[Fraction]:
    """Exactly unit vector in R^(len(t)+1) from a rational point t."""
    n2 = sum(x * x for x in t)
    return [2 * x / (1 + n2) for x in t] + [(1 - n2) / (1 + n2)]


def _rational_unit_columns(K: np.ndarray, rng) -> np.ndarray:
    """Exactly unit rational keys with K's duplicate pattern; each distinct
    column gets a random rational point, and the second distinct column is a
    near copy of the first (points 1e-15 apart), so the keys are also
    ill-conditioned (condition about 1e15, beyond float64)."""
    d = K.shape[0]
    out = np.empty_like(K)
    seen: dict[tuple, list[Fraction]] = {}
    points: list[list[Fraction]] = []
    for j in range(K.shape[1]):
        key = tuple(K[:, j])
        if key not in seen:
            if len(points) == 1 and d > 1:
                t = [x + Fraction(1, 10**15) for x in points[0]]
            else:
                t = [Fraction(int(a), int(b)) for a, b in zip(rng.integers(-3, 4, d - 1), rng.integers(1, 4, d - 1))]
            points.append(t)
            seen[key] = _stereographic(t) if d > 1 else [Fraction(1)]
        out[:, j] = seen[key]
    return out


def precise_values(K: np.ndarray, ctx: Context, p: int = 3) -> np.ndarray:
    """Integer values p x M (exact) for a key matrix."""
    rng = ctx.rng("precise-values")
    return kit.exact(rng.integers(-3, 4, size=(p, K.shape[1])))
