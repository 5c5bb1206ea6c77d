"""Is a verdict the same at every seed? ``theorems stability``.

A verification whose verdict depends on the run seed is not one. This module
reruns a selection of claims at the seeds ``first, first + 1, ..., first +
N - 1`` (the command's default is 1..N), each seed a whole run exactly as
``theorems verify --seed S`` makes it (dependencies settled, so a BLOCKED or
INCONCLUSIVE claim counts as it would be reported), the seeds in parallel
processes. The sweep cache (``$THEOREMS_CACHE``) is shared by every process,
so a second stability run, or a ``verify`` at one of these seeds, reuses the
per-instance results a first one computed.

Per claim it reports the distribution of its status over the seeds, and per
check the spread (minimum, median, maximum) of its figure against its
threshold, with the seeds at which the check did not pass. A claim is
*stable* when it has one status at every seed (INCONCLUSIVE counts as one
status like any other) and, for a question, one answer: the answers its
checks record (``data["answers"]``, e.g. a decision per condition) are the
same at every seed where it has them.

>>> spread([3.0, None, 1.0, 2.0])
(1.0, 2.0, 3.0)
"""

from __future__ import annotations

import json
import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Sequence

from theorems.core.model import Claim, Status

__all__ = [
    "CheckSpread",
    "ClaimStability",
    "StabilityResult",
    "render_table",
    "run_stability",
    "seed_range",
    "spread",
]

#: Statuses in report order (for distributions).
_ORDER = [s.value for s in Status]

#: Longest detail kept per check and seed where it did not pass, characters.
_DETAIL_CHARS = 300

#: Evidence statuses that count as a pass of a check.
_PASSING = ("passed", "supported", "answered")


def seed_range(count: int, first: int = 1) -> list[int]:
    """The seeds ``first .. first + count - 1``.

    >>> seed_range(3)
    [1, 2, 3]
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be an integer >= 1, got {count!r}")
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise ValueError(f"first must be an integer >= 0, got {first!r}")
    return list(range(first, first + count))


def spread(values: Sequence[float | None]) -> tuple[float, float, float] | None:
    """(min, median, max) of the finite values, or None when there is none."""
    finite = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not finite:
        return None
    return min(finite), statistics.median(finite), max(finite)


@dataclass
class CheckSpread:
    """One check of one claim across the seeds."""

    check: str
    comparison: str
    figures: dict[int, float | None] = field(default_factory=dict)
    thresholds: dict[int, float | None] = field(default_factory=dict)
    statuses: dict[int, str] = field(default_factory=dict)
    details: dict[int, str] = field(default_factory=dict)  # what the check said where it did not pass

    @property
    def not_passing(self) -> list[int]:
        return sorted(s for s, st in self.statuses.items() if st not in _PASSING)

    def to_json(self) -> dict:
        fig = spread(list(self.figures.values()))
        thr = spread(list(self.thresholds.values()))
        return {
            "check": self.check,
            "comparison": self.comparison,
            "figure": None if fig is None else dict(zip(("min", "median", "max"), fig)),
            "threshold": None if thr is None else dict(zip(("min", "median", "max"), thr)),
            "statuses": {str(s): st for s, st in sorted(self.statuses.items())},
            "figures": {str(s): _num(v) for s, v in sorted(self.figures.items())},
            "not_passing": self.not_passing,
            "details": {str(s): d for s, d in sorted(self.details.items())},
        }


@dataclass
class ClaimStability:
    """One claim across the seeds."""

    id: str
    kind: str
    statuses: dict[int, str] = field(default_factory=dict)
    checks: list[CheckSpread] = field(default_factory=list)
    #: per seed, whether the negative control was caught (with --controls; None: no control)
    controls: dict[int, bool | None] = field(default_factory=dict)
    #: per seed, a question's answers ({check: data["answers"]}); empty for other claims
    answers: dict[int, dict] = field(default_factory=dict)

    @property
    def controls_missed(self) -> list[int]:
        return sorted(s for s, caught in self.controls.items() if caught is False)

    @property
    def distribution(self) -> dict[str, int]:
        counts = {s: 0 for s in _ORDER}
        for st in self.statuses.values():
            counts[st] += 1
        return {s: n for s, n in counts.items() if n}

    @property
    def answer_groups(self) -> list[tuple[dict, list[int]]]:
        """The distinct answers, each with the seeds that gave it (most seeds first)."""
        groups: dict[str, tuple[dict, list[int]]] = {}
        for seed, ans in sorted(self.answers.items()):
            groups.setdefault(json.dumps(ans, sort_keys=True, default=str), (ans, []))[1].append(seed)
        return sorted(groups.values(), key=lambda g: (-len(g[1]), g[1]))

    @property
    def answers_changed(self) -> bool:
        return len(self.answer_groups) > 1

    @property
    def stable(self) -> bool:
        """One status at every seed, one answer (a question), and (when controls ran) a control caught at every seed."""
        return len(set(self.statuses.values())) <= 1 and not self.controls_missed and not self.answers_changed

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "stable": self.stable,
            "distribution": self.distribution,
            "statuses": {str(s): st for s, st in sorted(self.statuses.items())},
            "checks": [c.to_json() for c in self.checks],
            **({"controls_caught": {str(s): c for s, c in sorted(self.controls.items())},
                "controls_missed": self.controls_missed} if self.controls else {}),
            **({"answers": {str(s): a for s, a in sorted(self.answers.items())},
                "answers_changed": self.answers_changed} if self.answers else {}),
        }


@dataclass
class StabilityResult:
    claims: list[ClaimStability]
    seeds: list[int]
    profile: str
    seconds: float
    processes: int

    @property
    def unstable(self) -> list[ClaimStability]:
        return [c for c in self.claims if not c.stable]

    @property
    def ok(self) -> bool:
        return not self.unstable

    def to_json(self) -> dict:
        return {
            "kind": "theorems stability",
            "profile": self.profile,
            "seeds": list(self.seeds),
            "processes": self.processes,
            "duration_s": round(self.seconds, 3),
            "stable": self.ok,
            "unstable": [c.id for c in self.unstable],
            "claims": [c.to_json() for c in self.claims],
        }


def _num(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else str(x)


def _figure(x) -> float | None:
    if x is None or isinstance(x, str):
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def _summarise(result) -> dict:
    """What one seed's run says, small enough to pass between processes."""
    from theorems.core.runner import _answers

    return {
        r.claim.id: {
            "status": r.status.value,
            "control": None if r.negative_control is None else r.negative_control.get("caught"),
            "answers": _answers(r.evidence),
            "checks": [(e.check, e.status.value, _figure(e.figure), _figure(e.threshold), e.comparison,
                        "" if e.status.value in _PASSING else " ".join(str(e.detail).split())[:_DETAIL_CHARS])
                       for e in r.evidence],
        }
        for r in result.results
    }


_SEED_CLAIMS: list[Claim] = []


def _run_seed(args) -> tuple[int, dict, float]:
    from theorems.core.runner import run

    profile, seed, modules, controls = args
    t0 = time.perf_counter()
    result = run(_SEED_CLAIMS, profile=profile, seed=seed, claims_modules=modules, controls=controls)
    return seed, _summarise(result), time.perf_counter() - t0


def run_stability(
    claims: Sequence[Claim],
    *,
    profile,
    seeds: Sequence[int],
    jobs: int = 1,
    claims_modules: Sequence[str] = (),
    progress: Callable[[int, dict, float], None] | None = None,
    controls: bool = False,
) -> StabilityResult:
    """Run ``claims`` at every seed of ``seeds`` (``jobs`` processes, one
    seed each at a time) and collect each claim's statuses and each check's
    figures; with ``controls`` also each negative control's verdict (a
    control missed at any seed makes the claim unstable). ``progress(seed, summary, seconds)`` is called as seeds finish.
    A KeyboardInterrupt stops the worker processes and propagates."""
    from theorems.core.runner import _ignore_sigint, _stop

    claims = list(claims)
    seeds = [int(s) for s in seeds]
    if not claims:
        raise ValueError("claims must not be empty")
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct and not empty, got {seeds!r}")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    modules = tuple(claims_modules)
    t0 = time.perf_counter()
    by_seed: dict[int, dict] = {}
    processes = min(jobs, len(seeds))
    _SEED_CLAIMS[:] = claims
    try:
        if processes == 1:
            for seed in seeds:
                s, summary, secs = _run_seed((profile, seed, modules, controls))
                by_seed[s] = summary
                if progress:
                    progress(s, summary, secs)
        else:
            import multiprocessing

            # fork, as the runner's --jobs: the workers inherit the claims
            # (user modules loaded by path included) without importing again.
            pool = ProcessPoolExecutor(max_workers=processes, mp_context=multiprocessing.get_context("fork"),
                                       initializer=_ignore_sigint)
            try:
                futures = [pool.submit(_run_seed, (profile, seed, modules, controls)) for seed in seeds]
                for fut in futures:
                    s, summary, secs = fut.result()
                    by_seed[s] = summary
                    if progress:
                        progress(s, summary, secs)
            except BaseException:
                _stop(pool)
                raise
            pool.shutdown()
    finally:
        _SEED_CLAIMS.clear()
    out = []
    for claim in claims:
        cs = ClaimStability(claim.id, claim.kind.value)
        checks: dict[str, CheckSpread] = {}
        for seed in seeds:
            entry = by_seed[seed][claim.id]
            cs.statuses[seed] = entry["status"]
            if controls:
                cs.controls[seed] = entry["control"]
            if entry.get("answers"):
                cs.answers[seed] = entry["answers"]
            for name, status, figure, threshold, comparison, detail in entry["checks"]:
                sp = checks.setdefault(name, CheckSpread(name, comparison))
                sp.statuses[seed] = status
                if detail:
                    sp.details[seed] = detail
                sp.figures[seed] = figure
                sp.thresholds[seed] = threshold
        cs.checks = list(checks.values())
        out.append(cs)
    name = getattr(profile, "name", str(profile))
    return StabilityResult(out, seeds, name, time.perf_counter() - t0, processes)


def _g(x: float | None) -> str:
    return "-" if x is None else f"{x:.4g}"


def _seed_list(seeds: Sequence[int]) -> str:
    return ", ".join(str(s) for s in seeds)


def render_table(res: StabilityResult) -> str:
    """The terminal table: per claim its status distribution (with the
    seeds of the minority statuses), per check the figure's min / median /
    max against its threshold and the seeds at which it did not pass."""
    id_w = max([len(c.id) for c in res.claims] + [len("claim")])
    lines = [f"{'claim':<{id_w}}  statuses over {len(res.seeds)} seeds",
             f"{'  [check]':<{id_w}}  {'figure min / median / max':<30}  {'threshold':<10}  not passing at seeds"]
    for c in res.claims:
        dist = c.distribution
        major = max(dist, key=dist.get)
        parts = []
        for s, n in dist.items():
            where = "" if s == major else f" (seeds {_seed_list(sorted(k for k, v in c.statuses.items() if v == s))})"
            parts.append(f"{s} {n}{where}")
        text = ", ".join(parts)
        if c.controls_missed:
            text += f"; negative control not caught at seeds {_seed_list(c.controls_missed)}"
        if c.answers_changed:
            text += f"; {len(c.answer_groups)} different answers"
        if not c.stable:
            text += "   UNSTABLE"
        lines.append(f"{c.id:<{id_w}}  {text}")
        for ch in c.checks:
            fig = spread(list(ch.figures.values()))
            thr = spread(list(ch.thresholds.values()))
            figure = "no figure" if fig is None else " / ".join(_g(v) for v in fig)
            threshold = "-" if thr is None else (
                f"{ch.comparison} {_g(thr[0])}" if thr[0] == thr[2] else f"{ch.comparison} {_g(thr[0])}..{_g(thr[2])}")
            bad = ch.not_passing
            where = "" if not bad else f"   {_seed_list(bad)} ({', '.join(sorted({ch.statuses[s] for s in bad}))})"
            lines.append(f"{'  [' + ch.check + ']':<{id_w}}  {figure:<30}  {threshold:<10}{where}".rstrip())
        for ans, seeds in c.answer_groups:
            where = "every seed" if len(c.answer_groups) == 1 else f"seeds {_seed_list(seeds)}"
            text = "; ".join(f"{k}: {v}" for check in ans.values() for k, v in
                             (check.items() if isinstance(check, dict) else [("answer", check)]))
            lines.append(f"  answer at {where}: {text}")
    changed = [c for c in res.claims if len(set(c.statuses.values())) > 1]
    turned = [c for c in res.claims if c.answers_changed]
    missed = [c for c in res.claims if c.controls_missed]
    lines.append("")
    if changed:
        lines.append(f"{len(changed)} of {len(res.claims)} claims changed status across seeds "
                     f"{_seed_list(res.seeds)}: {', '.join(c.id for c in changed)}")
    else:
        lines.append(f"every one of the {len(res.claims)} claims kept one status across seeds {_seed_list(res.seeds)}")
    if turned:
        lines.append(f"{len(turned)} of {len(res.claims)} questions gave different answers across seeds: "
                     f"{', '.join(c.id for c in turned)}")
    elif any(c.answers for c in res.claims):
        lines.append("every question gave one answer at every seed")
    if missed:
        lines.append(f"{len(missed)} of {len(res.claims)} claims had a negative control not caught at some seed: "
                     f"{', '.join(c.id for c in missed)}")
    elif any(c.controls for c in res.claims):
        lines.append("every negative control that was run was caught at every seed")
    return "\n".join(lines) + "\n"
