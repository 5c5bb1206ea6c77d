"""Reports: JSON first (a versioned schema shipped as ``report.schema.json``),
then Markdown, HTML (:mod:`theorems.report_html`) and JUnit XML
(:mod:`theorems.junit`), all rendered from that JSON. Files are written
atomically: a temporary file in the same folder, then ``os.replace``, so an
interrupted run leaves the previous report intact."""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from datetime import datetime, timezone
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from theorems.runner import RunResult

__all__ = [
    "REPORT_FILES",
    "SCHEMA_VERSION",
    "build_report",
    "environment",
    "load_schema",
    "render_markdown",
    "validate_report",
    "write_reports",
    "write_text_atomic",
]

#: Minor versions add optional fields only; a reader of 1.x reads any 1.y.
#: 1.1: ``evidence[].description`` (what the check does).
#: 1.2: statuses INCONCLUSIVE and ANSWERED (claims and evidence), kind ``question``.
SCHEMA_VERSION = "1.2"

#: What :func:`write_reports` writes, in order (the JSON first).
REPORT_FILES = ("report.json", "report.md", "report.html", "junit.xml")

_PACKAGES = ("numpy", "scipy", "sympy", "mpmath", "hypothesis", "linmem-theorems")


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def _blas() -> dict:
    try:
        import numpy as np

        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        info = {k: blas.get(k) for k in ("name", "version") if blas.get(k)}
    except Exception:  # noqa: BLE001 - environment probing must not break a report
        info = {}
    try:
        from threadpoolctl import threadpool_info

        pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        if pools:
            info.update({"threads": pools[0].get("num_threads"),
                         "internal_api": pools[0].get("internal_api"),
                         "architecture": pools[0].get("architecture")})
    except Exception:  # noqa: BLE001
        pass
    return info


def environment() -> dict:
    """Versions of Python and the dependencies, BLAS and the platform."""
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "packages": {p: _version(p) for p in _PACKAGES},
        "blas": _blas(),
    }


def build_report(result: RunResult, *, selection: dict | None = None) -> dict:
    """The JSON report of a run (see ``report.schema.json``)."""
    claims = []
    for r in result.results:
        c = r.claim
        described = {ch.name: ch.description for ch in c.checks}
        claims.append({
            "id": c.id,
            "title": c.title,
            "kind": c.kind.value,
            "status": r.status.value,
            "statement": c.statement,
            "source": c.source,
            "assumptions": list(c.assumptions),
            "depends_on": list(c.depends_on),
            "blocked_by": list(r.blocked_by),
            "reason": c.reason,
            "seconds": round(r.seconds, 4),
            "evidence": [{**e.to_json(), "description": described.get(e.check, "")} for e in r.evidence],
            "negative_control": r.negative_control or (
                {"description": c.negative_control.description, "caught": None, "status": None, "checks": {}}
                if c.negative_control else None
            ),
        })
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "tool": {"name": "theorems", "version": _version("linmem-theorems")},
        "environment": environment(),
        "profile": result.profile.to_json(),
        "seed": result.seed,
        "selection": selection or {},
        "duration_s": round(result.seconds, 3),
        "counts": result.counts(),
        "ok": result.ok,
        "claims": claims,
    }


def load_schema() -> dict:
    return json.loads(resources.files("theorems").joinpath("report.schema.json").read_text())


def validate_report(report: dict) -> None:
    """Raise ``jsonschema.ValidationError`` if ``report`` breaks the schema."""
    import jsonschema

    jsonschema.validate(report, load_schema())


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old or the new file, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            # mkstemp makes the file private (0600); a report gets the mode any new file would.
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fh.fileno(), 0o666 & ~umask)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _fmt(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def render_markdown(report: dict) -> str:
    """A Markdown rendering of a JSON report."""
    lines = [
        "# Theorem verification report",
        "",
        f"- profile: **{report['profile']['name']}**, seed {report['seed']}, "
        f"{report['duration_s']:.1f} s, generated {report['generated_at']}",
        f"- Python {report['environment']['python']} on {report['environment']['platform']}; "
        + ", ".join(f"{k} {v}" for k, v in report["environment"]["packages"].items() if v),
        "- counts: " + ", ".join(f"{k} {v}" for k, v in report["counts"].items() if v),
        "",
        "| claim | kind | status | checks | seconds |",
        "|---|---|---|---|---|",
    ]
    for c in report["claims"]:
        checks = ", ".join(f"{e['check']}:{e['status']}" for e in c["evidence"])
        lines.append(f"| `{c['id']}` | {c['kind']} | **{c['status']}** | {checks} | {c['seconds']:.2f} |")
    for c in report["claims"]:
        lines += ["", f"## `{c['id']}`: {c['title']}", "", f"**{c['status']}** ({c['kind']}; {c['source']})", "",
                  f"$$ {c['statement']} $$", ""]
        if c["assumptions"]:
            lines.append("Assumptions: " + "; ".join(c["assumptions"]) + ".")
        if c["depends_on"]:
            lines.append("Depends on: " + ", ".join(f"`{d}`" for d in c["depends_on"]) + ".")
        if c["blocked_by"]:
            lines.append("Blocked by: " + ", ".join(f"`{d}`" for d in c["blocked_by"]) + ".")
        if c["reason"]:
            lines.append(f"Why it cannot be checked: {c['reason']}")
        if c["evidence"]:
            lines += ["", "| check | evidence | status | figure | threshold | cases | seconds |",
                      "|---|---|---|---|---|---|---|"]
            for e in c["evidence"]:
                lines.append(
                    f"| {e['check']} | {e['kind']} | {e['status']} | {_fmt(e['figure'])} | "
                    f"{e['comparison']} {_fmt(e['threshold'])} | {e['cases']} | {e['seconds']:.2f} |"
                )
            for e in c["evidence"]:
                if e["status"] in ("failed", "error", "not_supported"):
                    lines += ["", f"- `{e['check']}` {e['status']}: {e['detail']}"]
                    if e["counterexample"] is not None:
                        lines.append(f"  - minimal counterexample: `{json.dumps(e['counterexample'])[:2000]}`")
                    lines.append(f"  - replay: `{e['replay']}`")
        nc = c.get("negative_control")
        if nc and nc.get("caught") is not None:
            lines.append(f"\nNegative control ({nc['description']}): "
                         + ("caught, the claim fails on it" if nc["caught"] else "**NOT caught**"))
    return "\n".join(lines) + "\n"


def write_reports(report: dict, out_dir: Path, *, names: tuple[str, ...] = REPORT_FILES) -> list[Path]:
    """Write :data:`REPORT_FILES` (JSON, Markdown, HTML, JUnit XML), or the
    ``names`` among them, into ``out_dir``, each atomically, in that order
    (the JSON first); return the paths."""
    from theorems.junit import render_junit
    from theorems.report_html import render_html

    out_dir = Path(out_dir)
    renderers = {
        "report.json": lambda r: json.dumps(r, indent=2, sort_keys=False) + "\n",
        "report.md": render_markdown,
        "report.html": render_html,
        "junit.xml": render_junit,
    }
    paths = []
    unknown = sorted(set(names) - set(REPORT_FILES))
    if unknown:
        raise ValueError(f"names must be among {list(REPORT_FILES)}, got {unknown}")
    for name in (n for n in REPORT_FILES if n in names):
        path = out_dir / name
        write_text_atomic(path, renderers[name](report))
        paths.append(path)
    return paths
