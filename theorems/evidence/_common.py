"""Shared pieces of the evidence checkers: timing, Hypothesis settings,
replay commands and JSON-able descriptions of inputs."""

from __future__ import annotations

import time
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, settings

from theorems.model import Context, Evidence, EvidenceKind, EvidenceStatus

__all__ = [
    "IMPLEMENTATION_ERRORS",
    "hypothesis_settings",
    "jsonable",
    "make",
    "replay_command",
    "timed",
]

#: Exceptions that, raised while the implementation evaluates one valid
#: input, mean the formula fails on that input (a wrong shape, a singular
#: solve, a division by zero): the check records a failing case. Anything
#: else is a defect of the check itself and makes the claim an ERROR.
IMPLEMENTATION_ERRORS = (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError, IndexError)


def hypothesis_settings(max_examples: int, *, shrink: bool = True) -> settings:
    """Deterministic settings: no example database, no deadline (timing is the
    runner's job), health checks that penalise slow linear algebra off, one
    failure reported (the minimal one), no 'explain' phase. ``shrink=False``
    (used for negative controls, where only the verdict matters) skips
    shrinking."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
    if shrink:
        phases.append(Phase.shrink)
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
        phases=phases,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.differing_executors,
        ],
    )


def replay_command(ctx: Context) -> str:
    """The command that reruns this check exactly (same claim, profile, seed)."""
    extra = "".join(f" --claims {m}" for m in ctx.claims_modules)
    return (
        f"theorems verify --only {ctx.claim_id} --profile {ctx.profile.name} "
        f"--seed {ctx.run_seed}{extra}"
    )


def jsonable(x: Any) -> Any:
    """A JSON-able rendering of an input: exact rationals as strings ``"p/q"``,
    arrays as nested lists, mpmath numbers as strings."""
    if isinstance(x, np.ndarray):
        return [jsonable(e) for e in x.tolist()] if x.ndim else jsonable(x.item())
    if isinstance(x, (list, tuple)):
        return [jsonable(e) for e in x]
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, Fraction):
        return str(x) if x.denominator != 1 else x.numerator
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, (float, np.floating)):
        return float(x) if np.isfinite(x) else str(x)
    if isinstance(x, np.integer):
        return int(x)
    return str(x)


@contextmanager
def timed():
    box = {"start": time.perf_counter()}
    yield box
    box["seconds"] = time.perf_counter() - box["start"]


def make(
    ctx: Context,
    kind: EvidenceKind,
    ok: bool,
    *,
    seconds: float,
    passed: EvidenceStatus = EvidenceStatus.PASSED,
    failed: EvidenceStatus = EvidenceStatus.FAILED,
    **fields: Any,
) -> Evidence:
    ev = Evidence(
        check=ctx.check_name,
        kind=kind,
        status=passed if ok else failed,
        seconds=seconds,
        seeds=[ctx.seed],
        replay=replay_command(ctx),
        **fields,
    )
    return ev
