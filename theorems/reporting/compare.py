"""Compare two JSON reports: which claims changed status, which appeared or
disappeared, which kept their status with different evidence, which checks
got slower.

Evidence is compared only between reports of the same profile and seed (at
another seed every figure is a different draw): two runs of the same code
write the same evidence, timings aside, so a refactor of the checking code
that should change nothing shows here if it changed a figure, a detail, a
counterexample, a searched domain or a control's per-check verdict.

A check counts as slower when its time grew by at least
:data:`SLOWER_RATIO` times *and* by at least :data:`SLOWER_MIN_SECONDS`
seconds: the ratio alone would flag noise on millisecond checks, the
difference alone would flag every long check.

A report that cannot be read (missing, not JSON, not a report, a schema
major version this tool does not read, breaking the schema, or contradicting
itself: a claim id twice, counts that do not count its statuses, an ``ok``
its ``fail_on`` does not give) raises
:class:`ReportError`, whose message names the file and the problem.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Comparison",
    "ReportError",
    "SLOWER_MIN_SECONDS",
    "SLOWER_RATIO",
    "check_consistency",
    "compare_reports",
    "evidence_changes",
    "without_volatile",
    "load_report",
    "render_comparison",
]

#: A check is slower when new / old time >= this ratio ...
SLOWER_RATIO = 1.5
#: ... and new - old time >= this many seconds.
SLOWER_MIN_SECONDS = 0.5

#: Schema major version this tool reads (any minor version of it).
READABLE_MAJOR = "1"


class ReportError(ValueError):
    """A report file that cannot be compared or rendered; the message names
    the file and the problem."""


#: The deepest nesting of arrays and objects a report.json may have (a
#: report's own is under 12); deeper JSON is refused before it is parsed.
MAX_JSON_DEPTH = 64

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str, limit: int = MAX_JSON_DEPTH) -> int:
    """The nesting depth of JSON ``text`` (brackets outside strings), counted
    up to ``limit + 1`` at most (so a hostile text costs no more than that).

    >>> json_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    depth = deepest = 0
    for m in _JSON_BRACKET.finditer(_JSON_STRING.sub('""', text)):
        depth += 1 if m.group(0) in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                break
    return deepest


def load_report(path: str | Path) -> dict:
    """Read and validate a JSON report, or raise :class:`ReportError`."""
    from theorems.reporting.report import load_schema

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ReportError(f"{path}: is a folder, not a report.json") from None
    except UnicodeDecodeError as exc:
        raise ReportError(f"{path}: not a text file ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ReportError(f"{path}: cannot be read ({exc.strerror})") from None
    if json_depth(text) > MAX_JSON_DEPTH:
        raise ReportError(f"{path}: not a theorems report (its JSON nests deeper than {MAX_JSON_DEPTH} levels)")
    try:
        report = json.loads(text)
    except RecursionError:
        raise ReportError(f"{path}: not a theorems report (its JSON nests too deeply to read)") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(report, dict):
        raise ReportError(f"{path}: not a theorems report (the JSON is a {type(report).__name__}, not an object)")
    version = report.get("schema_version")
    if version is None:
        raise ReportError(f"{path}: not a theorems report (no schema_version)")
    if not isinstance(version, str) or version.split(".")[0] != READABLE_MAJOR:
        raise ReportError(
            f"{path}: schema version {version!r} is incompatible: this tool reads {READABLE_MAJOR}.x reports"
        )
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise ReportError(f"{path}: does not match the report schema at {where}: {first.message}{more}")
    check_consistency(report, path)
    return report


def check_consistency(report: dict, path: str | Path = "report") -> None:
    """Raise :class:`ReportError` when a schema-valid report contradicts
    itself: a claim id listed twice, ``counts`` that do not count the
    claims' statuses, or an ``ok`` that its ``fail_on`` set does not give."""
    ids = [c["id"] for c in report["claims"]]
    seen: dict[str, int] = {}
    for cid in ids:
        seen[cid] = seen.get(cid, 0) + 1
    dup = [cid for cid, n in seen.items() if n > 1]
    if dup:
        raise ReportError(f"{path}: claim id {dup[0]!r} appears {seen[dup[0]]} times"
                          + (f" (and {len(dup) - 1} more ids twice or more)" if len(dup) > 1 else "")
                          + "; a report lists each claim once")
    actual: dict[str, int] = {}
    for c in report["claims"]:
        actual[c["status"]] = actual.get(c["status"], 0) + 1
    counts = report["counts"]
    wrong = [s for s in sorted(set(counts) | set(actual)) if counts.get(s, 0) != actual.get(s, 0)]
    if wrong:
        s = wrong[0]
        raise ReportError(f"{path}: counts say {counts.get(s, 0)} {s} but {actual.get(s, 0)} claims have that status"
                          + (f" (and {len(wrong) - 1} more statuses miscounted)" if len(wrong) > 1 else ""))
    if "fail_on" in report:
        failing = [c["id"] for c in report["claims"] if c["status"] in report["fail_on"]]
        missed = [c["id"] for c in report["claims"]
                  if (c.get("negative_control") or {}).get("caught") is False]
        expected = not failing and not missed
        if report["ok"] is not expected:
            why = (f"{len(failing)} claims have a status in fail_on {report['fail_on']}" if failing else
                   f"{len(missed)} negative controls were not caught" if missed else
                   f"no claim has a status in fail_on {report['fail_on']}")
            raise ReportError(f"{path}: ok is {str(report['ok']).lower()} but {why}")


@dataclass
class Comparison:
    """What changed between two reports."""

    old_label: str
    new_label: str
    changed: list[tuple[str, str, str]] = field(default_factory=list)  # id, old, new
    appeared: list[tuple[str, str]] = field(default_factory=list)  # id, status
    disappeared: list[tuple[str, str]] = field(default_factory=list)
    slower: list[tuple[str, str, float, float]] = field(default_factory=list)  # id, check, old s, new s
    #: claims of the same status whose evidence differs: id, [(part, fields)] (see :func:`evidence_changes`)
    evidence: list[tuple[str, list[tuple[str, list[str]]]]] = field(default_factory=list)
    unchanged: int = 0
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "old": self.old_label,
            "new": self.new_label,
            "changed": [{"id": i, "old": o, "new": n} for i, o, n in self.changed],
            "appeared": [{"id": i, "status": s} for i, s in self.appeared],
            "disappeared": [{"id": i, "status": s} for i, s in self.disappeared],
            "slower": [{"id": i, "check": c, "old_s": o, "new_s": n, "ratio": _ratio(o, n)}
                       for i, c, o, n in self.slower],
            "evidence_changed": [{"id": i, "parts": [{"part": p, "fields": f} for p, f in parts]}
                                 for i, parts in self.evidence],
            "unchanged": self.unchanged,
            "thresholds": {"ratio": SLOWER_RATIO, "min_seconds": SLOWER_MIN_SECONDS},
            "notes": self.notes,
        }


#: What two runs of the same code may differ in: how long things took, where
#: a result reused from a cache came from, and where in the code an error
#: was raised (its file and line move with any edit; its message is compared).
VOLATILE_FIELDS = frozenset({"seconds", "reused", "traceback", "raised_at"})


def without_volatile(entry: Any) -> Any:
    """A claim's report entry (or any part of it) without :data:`VOLATILE_FIELDS`,
    at any depth: what two runs of the same code at the same seed and profile
    write identically (unless a check ran out of its time budget, which the
    load of the machine decides)."""
    if isinstance(entry, dict):
        return {k: without_volatile(v) for k, v in entry.items() if k not in VOLATILE_FIELDS}
    if isinstance(entry, list):
        return [without_volatile(v) for v in entry]
    return entry


def _differing(a: dict, b: dict) -> list[str]:
    """The keys whose values differ between ``a`` and ``b`` (one missing counts), sorted."""
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def evidence_changes(old: dict, new: dict) -> list[tuple[str, list[str]]]:
    """Where two report entries of one claim differ, volatile fields aside
    (:func:`without_volatile`): ``(part, fields)`` for each part that differs,
    a part being a check's evidence (by its name), ``"negative_control"`` or
    ``"claim"`` (its text, status and the rest); ``[]`` when they agree."""
    was, now = without_volatile(old), without_volatile(new)
    out = []
    checks_was = {e["check"]: e for e in was.get("evidence", [])}
    checks_now = {e["check"]: e for e in now.get("evidence", [])}
    for name in list(checks_was) + [n for n in checks_now if n not in checks_was]:
        a, b = checks_was.get(name), checks_now.get(name)
        if a is None or b is None:
            out.append((name, ["(only in the " + ("new" if a is None else "old") + " report)"]))
        elif a != b:
            out.append((name, _differing(a, b)))
    a, b = was.get("negative_control") or {}, now.get("negative_control") or {}
    if a != b:
        out.append(("negative_control", _differing(a, b)))
    rest_was = {k: v for k, v in was.items() if k not in ("evidence", "negative_control")}
    rest_now = {k: v for k, v in now.items() if k not in ("evidence", "negative_control")}
    if rest_was != rest_now:
        out.append(("claim", _differing(rest_was, rest_now)))
    return out


def _ratio(old: float, new: float) -> float | None:
    return round(new / old, 3) if old > 0 else None


def _label(report: dict, name: str) -> str:
    return f"{name} (profile {report['profile']['name']}, seed {report['seed']}, {report['generated_at']})"


def compare_reports(old: dict, new: dict, *, old_name: str = "old", new_name: str = "new") -> Comparison:
    """Compare two validated reports (see :func:`load_report`)."""
    out = Comparison(_label(old, old_name), _label(new, new_name))
    before = {c["id"]: c for c in old["claims"]}
    after = {c["id"]: c for c in new["claims"]}
    if old["profile"]["name"] != new["profile"]["name"]:
        out.notes.append(f"profiles differ ({old['profile']['name']} -> {new['profile']['name']}): "
                         "timings are not comparable")
    if old["seed"] != new["seed"]:
        out.notes.append(f"seeds differ ({old['seed']} -> {new['seed']})")
    same_draws = old["seed"] == new["seed"] and old["profile"] == new["profile"]
    if not same_draws:
        out.notes.append("evidence not compared: only runs of the same profile and seed draw the same cases")
    for cid, c in after.items():
        if cid not in before:
            out.appeared.append((cid, c["status"]))
            continue
        was = before[cid]
        if was["status"] != c["status"]:
            out.changed.append((cid, was["status"], c["status"]))
        else:
            out.unchanged += 1
            parts = evidence_changes(was, c) if same_draws else []
            if parts:
                out.evidence.append((cid, parts))
        old_times = {e["check"]: float(e["seconds"]) for e in was["evidence"]}
        for e in c["evidence"]:
            if e["check"] not in old_times:
                continue
            t0, t1 = old_times[e["check"]], float(e["seconds"])
            if t1 - t0 >= SLOWER_MIN_SECONDS and t1 >= SLOWER_RATIO * t0:
                out.slower.append((cid, e["check"], t0, t1))
    out.disappeared = [(cid, c["status"]) for cid, c in before.items() if cid not in after]
    out.slower.sort(key=lambda s: s[3] - s[2], reverse=True)
    return out


def render_comparison(cmp: Comparison) -> str:
    """A plain-text rendering for the terminal."""
    lines = [f"old: {cmp.old_label}", f"new: {cmp.new_label}"]
    lines += [f"note: {n}" for n in cmp.notes]
    lines.append("")
    lines.append(f"status changes: {len(cmp.changed)}")
    lines += [f"  {cid}: {o} -> {n}" for cid, o, n in cmp.changed]
    lines.append(f"appeared: {len(cmp.appeared)}")
    lines += [f"  {cid} ({s})" for cid, s in cmp.appeared]
    lines.append(f"disappeared: {len(cmp.disappeared)}")
    lines += [f"  {cid} (was {s})" for cid, s in cmp.disappeared]
    lines.append(f"slower checks (x{SLOWER_RATIO:g} and +{SLOWER_MIN_SECONDS:g} s or more): {len(cmp.slower)}")
    for cid, check, t0, t1 in cmp.slower:
        ratio = f"x{t1 / t0:.1f}" if t0 > 0 else "from 0 s"
        lines.append(f"  {cid} [{check}]: {t0:.2f} s -> {t1:.2f} s ({ratio})")
    lines.append(f"same status, different evidence: {len(cmp.evidence)}")
    for cid, parts in cmp.evidence:
        lines.append(f"  {cid}: " + "; ".join(f"{part} ({', '.join(fields)})" for part, fields in parts))
    lines.append(f"unchanged status: {cmp.unchanged} claims")
    return "\n".join(lines) + "\n"
