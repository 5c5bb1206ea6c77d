"""A tiny claims module for the command-line tests: claims whose verdict is
set by construction, so that every test runs in well under a second.

- ``fake.stable``: VERIFIED at every seed (its figure moves with the seed,
  always below its threshold);
- ``fake.flaky``: seed-dependent on purpose: NOT SUPPORTED at odd run seeds
  (figure 1 against <= 0.5), SUPPORTED at even ones (figure 0);
- ``fake.undecided``: INCONCLUSIVE at every seed;
- ``fake.array-cex``: FAILED with a counterexample holding numpy arrays;
- ``fake.sleep``: sleeps (for the Ctrl-C tests; never selected otherwise);
- ``fake.weak-control``: VERIFIED at every seed, but its negative control is
  caught (FAILED) only at even run seeds (for ``stability --controls``);
- ``fake.turncoat``: a question ANSWERED at every seed, "heavier" at odd run
  seeds and "lighter" at even ones (for ``stability``'s answer comparison).
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from theorems import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.evidence._common import replay_command
from theorems.core.model import Evidence, EvidenceStatus

__all__ = ["CLAIMS", "SLEEP_S"]

#: How long ``fake.sleep`` sleeps (the Ctrl-C tests interrupt it long before).
SLEEP_S = 60.0


def _evidence(ctx, status, figure, threshold, detail, counterexample=None) -> Evidence:
    return Evidence(check="sim", kind=EvidenceKind.SIMULATION, status=status, figure=figure, threshold=threshold,
                    cases=1, seeds=[ctx.seed], detail=detail, counterexample=counterexample,
                    replay=replay_command(ctx))


def _stable(ctx):
    figure = 0.1 * (ctx.run_seed % 3)
    return _evidence(ctx, EvidenceStatus.PASSED, figure, 1.0, f"figure {figure:g} <= 1")


def _flaky(ctx):
    figure = float(ctx.run_seed % 2)
    status = EvidenceStatus.NOT_SUPPORTED if figure > 0.5 else EvidenceStatus.SUPPORTED
    return _evidence(ctx, status, figure, 0.5, f"the run seed is {'odd' if figure else 'even'}")


def _undecided(ctx):
    return _evidence(ctx, EvidenceStatus.INCONCLUSIVE, 0.2, 0.1,
                     "the spread 0.2 exceeds the resolution 0.1; run --profile standard")


def _array_cex(ctx):
    cex = {"K": np.array([[1.0, 2.0], [3.0, np.inf]]), "n": np.int64(2)}
    return _evidence(ctx, EvidenceStatus.FAILED, 3.0, 1.0, "residual 3 > 1", counterexample=cex)


def _sleep(ctx):
    end = time.monotonic() + SLEEP_S
    while time.monotonic() < end:
        time.sleep(0.05)
    return _evidence(ctx, EvidenceStatus.PASSED, 0.0, 1.0, "slept")


def _weak_control(ctx):
    if ctx.control and ctx.run_seed % 2 == 0:
        return _evidence(ctx, EvidenceStatus.FAILED, 2.0, 1.0, "the wrong variant is seen at even seeds")
    return _evidence(ctx, EvidenceStatus.PASSED, 0.0, 1.0, "figure 0 <= 1")


def _turncoat(ctx):
    answer = "heavier" if ctx.run_seed % 2 else "lighter"
    ev = _evidence(ctx, EvidenceStatus.ANSWERED, 1.0, 1.0, f"answer: {answer}")
    return replace(ev, data={"answers": {"raw": answer}})


def _claim(cid: str, run, title: str, control: NegativeControl | None = None,
           kind: ClaimKind = ClaimKind.APPROXIMATION) -> Claim:
    return Claim(id=cid, title=title, statement=r"x = x", kind=kind, source="test fixture",
                 checks=(Check("sim", EvidenceKind.SIMULATION, run, "a check with a verdict set by construction"),),
                 negative_control=control or NegativeControl("none needed here", {}))


CLAIMS = [
    _claim("fake.stable", _stable, "VERIFIED at every seed"),
    _claim("fake.flaky", _flaky, "NOT SUPPORTED at odd seeds"),
    _claim("fake.undecided", _undecided, "INCONCLUSIVE at every seed"),
    _claim("fake.array-cex", _array_cex, "FAILED with an array counterexample"),
    _claim("fake.sleep", _sleep, "sleeps"),
    _claim("fake.weak-control", _weak_control, "its control is caught at even seeds only",
           NegativeControl("the identity for the projectors", {"projectors": lambda K: (K, K)})),
    _claim("fake.turncoat", _turncoat, "a question answered differently at odd and even seeds",
           kind=ClaimKind.QUESTION),
]
