"""Claims whose checks end or hang their own process, beside two healthy
ones (for tests/test_supervision.py):

- ``crash.segfault``: reads address 0 through ctypes (SIGSEGV);
- ``crash.abort``: ``os.abort()`` (SIGABRT);
- ``crash.exit0``: ``os._exit(0)``, the exit that looks like success;
- ``crash.huge``: asks numpy for 8 TB (``np.ones((10**6, 10**6))``);
- ``crash.spin``: blocks the budget's alarm and spins, as C code that never
  returns to Python would: it never ends unless its process is killed (select
  it only with a short ``--check-budget``);
- ``crash.loop``: a ``while True`` in Python, which the alarm reaches (its
  third check must not run; same caution);
- ``crash.healthy-a``, ``crash.healthy-b``: VERIFIED.

Each crashing check is the claim's second: its first check passes, so the
report must keep that evidence; a third check after it must be "not run".
"""

from __future__ import annotations

import ctypes
import os
import signal

import numpy as np

from theorems import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.core.model import Evidence, EvidenceStatus
from theorems.evidence._common import replay_command

__all__ = ["CLAIMS", "CRASHES"]


def _passed(ctx) -> Evidence:
    """PASSED, FAILED under the negative control (its wrong variant)."""
    figure = 2.0 if ctx.control else 0.0
    return Evidence(check=ctx.check_name, kind=EvidenceKind.SIMULATION,
                    status=EvidenceStatus.FAILED if ctx.control else EvidenceStatus.PASSED,
                    figure=figure, threshold=1.0, cases=1, seeds=[ctx.seed], detail=f"figure {figure:g} <= 1",
                    replay=replay_command(ctx))


def _segfault(ctx):
    ctypes.string_at(0)


def _abort(ctx):
    os.abort()


def _exit0(ctx):
    os._exit(0)


def _huge(ctx):
    np.ones((10**6, 10**6))


def _spin(ctx):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        pass


def _loop(ctx):
    while True:
        pass


#: Claim id -> what its ERROR must name.
CRASHES = {"crash.segfault": "SIGSEGV", "crash.abort": "SIGABRT", "crash.exit0": "exit code 0",
           "crash.huge": "MemoryError"}


def _claim(cid: str, body=None) -> Claim:
    checks = [Check("first", EvidenceKind.SIMULATION, _passed)]
    if body is not None:
        checks.append(Check("crash", EvidenceKind.SIMULATION, body))
    checks.append(Check("last", EvidenceKind.SIMULATION, _passed))
    return Claim(id=cid, title=cid, statement="x", kind=ClaimKind.CONJECTURE, source="test", checks=tuple(checks),
                 negative_control=NegativeControl("the identity for the projectors", {"projectors": lambda K: (K, K)}))


CLAIMS = [
    _claim("crash.healthy-a"),
    _claim("crash.segfault", _segfault),
    _claim("crash.abort", _abort),
    _claim("crash.exit0", _exit0),
    _claim("crash.huge", _huge),
    _claim("crash.healthy-b"),
    _claim("crash.spin", _spin),
    _claim("crash.loop", _loop),
]
