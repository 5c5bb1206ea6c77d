"""Observations of a run in Hypothesis's observability format (JSON lines).

``theorems verify --observe FILE`` (or :class:`Observer` around a run)
writes one line per observation, in the format Hypothesis documents for its
observability output ("PBT observations"), so the tools that read
Hypothesis's observations read these:

* one ``test_case`` line per check run: ``property`` is
  ``<claim id>::<check name>``, ``status`` passed (PASSED, SUPPORTED,
  ANSWERED), failed (FAILED, ERROR, NOT SUPPORTED) or gave_up
  (INCONCLUSIVE), ``status_reason`` the evidence's detail when it did not
  pass, ``arguments`` the case (claim, check, profile, seeds, and the
  failing input when there is one), ``features`` the measured figures
  (figure, threshold, cases, and the scalar figures of the evidence's data),
  ``timing`` the check's seconds, ``metadata`` the replay command and, for
  an ERROR, the traceback;
* every observation Hypothesis itself makes inside a check (one per
  generated case), forwarded with ``property`` set to the same
  ``<claim id>::<check name>`` and ``metadata.theorems`` saying whether it
  came from a negative control;
* ``info`` lines: one per claim (its status) and one for the run (counts).

Hypothesis's line-coverage collection stays off (``coverage`` is null): it
would trace every line of the linear algebra.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import threading
import time
from pathlib import Path
from typing import Any, Iterable

from theorems.core.model import Claim, Evidence, EvidenceStatus

__all__ = ["Observer", "evidence_observation"]

_STATUS = {
    EvidenceStatus.PASSED: "passed",
    EvidenceStatus.SUPPORTED: "passed",
    EvidenceStatus.ANSWERED: "passed",
    EvidenceStatus.INCONCLUSIVE: "gave_up",
    EvidenceStatus.FAILED: "failed",
    EvidenceStatus.ERROR: "failed",
    EvidenceStatus.NOT_SUPPORTED: "failed",
}


def _finite(x: Any) -> Any:
    """JSON has no inf or NaN: those become strings, as in the JSON report."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def _scalars(data: dict) -> dict:
    out = {}
    for key, value in (data or {}).items():
        if isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= 200):
            out[f"data:{key}"] = _finite(value)
    return out


def evidence_observation(claim: Claim, ev: Evidence, *, profile: str, run_seed: int, run_start: float,
                         control: bool = False) -> dict:
    """The ``test_case`` observation of one check's evidence."""
    j = ev.to_json()
    arguments: dict[str, Any] = {"claim": claim.id, "check": ev.check, "profile": profile, "run_seed": run_seed,
                                 "seeds": j["seeds"]}
    if j["counterexample"] is not None:
        arguments["counterexample"] = j["counterexample"]
    ok = _STATUS[ev.status] == "passed"
    features = {"figure": j["figure"], "threshold": j["threshold"], "comparison": j["comparison"],
                "cases": j["cases"], "evidence_kind": j["kind"], "evidence_status": j["status"]}
    features.update(_scalars(j["data"]))
    metadata: dict[str, Any] = {"replay": j["replay"], "detail": j["detail"], "theorems": {"control": control}}
    tb = (j["data"] or {}).get("traceback")
    if tb:
        metadata["traceback"] = tb
    representation = f"{claim.id}::{ev.check} (profile {profile}, seed {run_seed})"
    if j["counterexample"] is not None:
        representation += f" counterexample {json.dumps(j['counterexample'])[:2000]}"
    return {
        "type": "test_case",
        "status": _STATUS[ev.status],
        "status_reason": "" if ok else f"{ev.status.value}: {ev.detail}",
        "representation": representation,
        "arguments": arguments,
        "how_generated": f"theorems {ev.kind.value} check" + (" (negative control)" if control else ""),
        "features": features,
        "coverage": None,
        "timing": {"execute:test": max(0.0, float(ev.seconds))},
        "metadata": metadata,
        "property": f"{claim.id}::{ev.check}",
        "run_start": run_start,
    }


def _hypothesis_json(observation) -> dict:
    """A Hypothesis observation as the JSON Hypothesis itself writes."""
    try:
        from hypothesis.strategies._internal.utils import to_jsonable

        out = to_jsonable(observation, avoid_realization=False)
    except ImportError:  # pragma: no cover - an older or newer Hypothesis layout
        out = {f.name: getattr(observation, f.name) for f in dataclasses.fields(observation)}
        if hasattr(out.get("metadata"), "to_json"):
            out["metadata"] = out["metadata"].to_json()
    return json.loads(json.dumps(out, default=str))


class Observer:
    """Write a run's observations to ``path`` (JSON lines; the file is
    replaced). Use as a context manager around the run; pass the claims
    through :meth:`wrap` so Hypothesis's own observations are named after
    the check they come from, and call :meth:`claim_done` with each
    :class:`~theorems.core.runner.ClaimResult` (the CLI does it from its
    progress callback) and :meth:`run_done` with the counts.

    Checks run in worker processes that were forked from this one keep
    forwarding Hypothesis's observations (lines are appended in one write).
    """

    def __init__(self, path: str | os.PathLike, *, profile: str, seed: int, run_start: float | None = None):
        self.path = Path(path)
        if self.path.is_dir():
            raise ValueError(f"--observe needs a file name, got the folder {str(path)!r}")
        if not self.path.parent.exists():
            raise FileNotFoundError(f"--observe: the folder of {str(path)!r} does not exist")
        self.profile, self.seed = profile, seed
        self.run_start = time.time() if run_start is None else run_start
        self._local = threading.local()
        self._saved_coverage = None
        self.lines = 0
        #: Why the file stopped being written (an OSError during the run), or
        #: None. A failed write never reaches the checks or the run: the
        #: verdicts and the reports are the same with or without --observe.
        self.failed: str | None = None

    # -- writing ----------------------------------------------------------
    def write(self, observation: dict) -> None:
        if self.failed is not None:
            return
        try:
            line = (json.dumps(observation, allow_nan=False) + "\n").encode()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except (OSError, ValueError, TypeError) as exc:  # disk full, permission lost, an unencodable value
            self.failed = f"{type(exc).__name__}: {getattr(exc, 'strerror', None) or exc}"
            return
        self.lines += 1

    def _forward(self, observation, thread_id=None) -> None:
        current = getattr(self._local, "check", None)
        out = _hypothesis_json(observation)
        if current is not None:
            name, control = current
            out["property"] = name
            if out.get("type") == "test_case":
                meta = out.get("metadata") if isinstance(out.get("metadata"), dict) else {}
                meta["theorems"] = {"control": control}
                out["metadata"] = meta
        self.write(out)

    # -- life cycle -------------------------------------------------------
    def __enter__(self):
        from hypothesis.internal import observability

        try:
            self.path.write_bytes(b"")
        except OSError as exc:
            raise ValueError(f"--observe: {str(self.path)!r} cannot be written ({exc.strerror})") from None
        self._saved_coverage = observability.OBSERVABILITY_COLLECT_COVERAGE
        observability.OBSERVABILITY_COLLECT_COVERAGE = False
        observability.add_observability_callback(self._forward, all_threads=True)
        return self

    def __exit__(self, *exc):
        from hypothesis.internal import observability

        observability.remove_observability_callback(self._forward)
        observability.OBSERVABILITY_COLLECT_COVERAGE = self._saved_coverage
        if self.failed is not None:
            import sys

            print(f"theorems: warning: --observe {str(self.path)!r} stopped being written after {self.lines} "
                  f"lines ({self.failed}); the verdicts and the reports are not affected", file=sys.stderr)
        return False

    def wrap(self, claims: Iterable[Claim]) -> list[Claim]:
        """The claims with every check run under its name (for forwarding)."""
        local = self._local

        def named(claim: Claim, check):
            inner = check.run

            def run(ctx):
                previous = getattr(local, "check", None)
                local.check = (f"{claim.id}::{check.name}", bool(ctx.control))
                try:
                    return inner(ctx)
                finally:
                    local.check = previous

            return dataclasses.replace(check, run=run)

        return [dataclasses.replace(c, checks=tuple(named(c, ch) for ch in c.checks)) if c.checks else c
                for c in claims]

    def with_progress(self, progress=None) -> "_ObservingProgress":
        """A progress callback for :func:`theorems.core.runner.run` that writes
        the observations of each claim as it settles (and calls ``progress``)."""
        return _ObservingProgress(self, progress)

    def claim_done(self, result) -> None:
        for ev in result.evidence:
            self.write(evidence_observation(result.claim, ev, profile=self.profile, run_seed=self.seed,
                                            run_start=self.run_start))
        content: dict[str, Any] = {"status": result.status.value, "seconds": round(result.seconds, 4),
                                   "blocked_by": list(result.blocked_by)}
        if result.negative_control is not None:
            content["negative_control"] = result.negative_control
        self.write({"type": "info", "title": f"{result.claim.id}: {result.status.value}", "content": content,
                    "property": result.claim.id, "run_start": self.run_start})

    def run_done(self, counts: dict, seconds: float) -> None:
        self.write({"type": "info", "title": "theorems verify",
                    "content": {"counts": counts, "profile": self.profile, "seed": self.seed,
                                "seconds": round(seconds, 3)},
                    "property": "theorems verify", "run_start": self.run_start})


class _ObservingProgress:
    """A progress callback that also writes each claim's observations, and
    the run's summary after the last claim."""

    def __init__(self, observer: Observer, progress):
        self.observer, self.progress = observer, progress
        self.counts: dict[str, int] = {}
        self.start = time.perf_counter()

    def __call__(self, i: int, n: int, result) -> None:
        if self.progress is not None:
            self.progress(i, n, result)
        self.observer.claim_done(result)
        self.counts[result.status.value] = self.counts.get(result.status.value, 0) + 1
        if i == n:
            self.observer.run_done(self.counts, time.perf_counter() - self.start)

    def close(self) -> None:
        close = getattr(self.progress, "close", None)
        if close is not None:
            close()
