"""Capacity: the dimension-only estimates of 000 ("Recover Wang's capacity
estimate", App. E)."""

from __future__ import annotations

import numpy as np

from linmem import ensembles
from theorems.evidence import simulation
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl

__all__ = ["CLAIMS", "LOAD_RATIO", "SWEEP_DIMS"]

#: Fixed load M/d of the sweeps (the boxed operating point M = 2d).
LOAD_RATIO = 2

#: Key dimensions of the sweeps at sweep multiplier 1 (the profile scales them).
SWEEP_DIMS = (16, 32, 64, 128)

#: Keys pooled per dimension (over repeated draws), so every figure averages
#: about the same number of leverage scores.
POOLED_KEYS = 2048

#: Criterion fixed before the run: fluctuations of an average over d
#: coordinates fall like d^(-1/2); require at least slope -0.3 and a drop to
#: 0.6 of the first figure over an eightfold growth of d.
CRITERION = simulation.shrinks(max_slope=-0.3, max_last_over_first=0.6)


def _dims(ctx):
    return tuple(d * ctx.profile.sweep for d in SWEEP_DIMS)


def _leverage_pool(impl, d, rng):
    M = LOAD_RATIO * d
    reps = max(1, POOLED_KEYS // M)
    return np.concatenate([impl.leverage_scores(ensembles.spherical_vectors(d, M, rng=rng)) for _ in range(reps)]), M


def _spread(ctx):
    def measure(d, rng):
        h, M = _leverage_pool(ctx.impl, d, rng)
        return float(np.sqrt(np.mean((h - d / M) ** 2)))

    return simulation.check(ctx, _dims(ctx), measure, CRITERION,
                            label=f"RMS of h_j - d/M for spherical keys at M = {LOAD_RATIO}d")


def _snr_gap(ctx):
    def measure(d, rng):
        h, M = _leverage_pool(ctx.impl, d, rng)
        return float(np.mean(np.abs(ctx.impl.snr(h) - ctx.impl.uniform_leverage_snr(d, M))))

    return simulation.check(ctx, _dims(ctx), measure, CRITERION,
                            label=f"mean |SNR_j - d/(M-d)| for spherical keys at M = {LOAD_RATIO}d")


def _snr_d_over_m(d, M):
    return d / M


CLAIMS = [
    Claim(
        id="cap.uniform-leverage-accuracy",
        title="For spherical keys, leverage concentrates at d/M and the SNR at d/(M-d) as d grows",
        statement=(r"k_j \sim \mathrm{Unif}(S^{d-1}),\ M/d \text{ fixed}:\ "
                   r"h_j - \tfrac{d}{M} \to 0,\quad \tfrac{h_j}{1-h_j} - \tfrac{d}{M-d} \to 0 \quad (d \to \infty)"),
        kind=ClaimKind.APPROXIMATION,
        source="000, App. E; 'Recover Wang's capacity estimate'",
        assumptions=("independent uniform spherical keys", "M/d fixed (here 2), M > d, full row rank"),
        depends_on=("lev.range",),
        checks=(
            Check("leverage-spread", EvidenceKind.SIMULATION, _spread,
                  "RMS deviation of h_j from d/M falls with d"),
            Check("snr-gap", EvidenceKind.SIMULATION, _snr_gap,
                  "mean gap between per-key SNR and d/(M-d) falls with d"),
        ),
        negative_control=NegativeControl("uniform-leverage SNR d/M in place of d/(M-d)",
                                          {"uniform_leverage_snr": _snr_d_over_m}),
    ),
]
