"""Reports: JSON first (a versioned schema shipped as ``report.schema.json``),
then Markdown, HTML (:mod:`theorems.reporting.html`) and JUnit XML
(:mod:`theorems.reporting.junit`), all rendered from that JSON. The four are replaced
as one set (:mod:`theorems.reporting.folder`: a folder written beside the target,
then swapped in), so an interrupted run leaves the previous set intact and
never a mix of two runs."""

from __future__ import annotations

import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from theorems.core.model import Status
from theorems.core.controls import missed_text
from theorems.reporting.answers import answers_markdown
from theorems.reporting.figures import closeness
from theorems.reporting.domains import _fmt, domain_text, wider_than_searched
from theorems.core.runner import ClaimResult, RunResult

__all__ = [
    "REPORT_FILES",
    "SCHEMA_VERSION",
    "build_report",
    "claim_entry",
    "environment",
    "MAX_MARKDOWN_CHARS",
    "command_line",
    "load_schema",
    "render_markdown",
    "requirements",
    "source_state",
    "verdict_line",
    "validate_report",
    "write_reports",
    "write_text_atomic",
]

#: Minor versions add optional fields only; a reader of 1.x reads any 1.y.
#: 1.1: ``evidence[].description`` (what the check does).
#: 1.2: statuses INCONCLUSIVE and ANSWERED (claims and evidence), kind ``question``.
#: 1.3: ``environment.source`` (commit and dirty state of the code checked),
#: ``environment.command``, ``environment.requirements`` (every declared
#: dependency, installed version or null); ``evidence[].data.names`` (Monte
#: Carlo quantity names); ``fail_on`` (the statuses that fail the run, from
#: ``verify --fail-on``; ``ok`` is derived from it).
#: 1.4: ``negative_control.per_check``, ``counts`` and ``controls`` (each check judged on each
#: wrong variant: caught, missed or not applicable with its reason).
#: 1.5: ``claims[].reused`` (the result was reused from an earlier run: its time and commit).
SCHEMA_VERSION = "1.5"

#: What :func:`write_reports` writes, in order (the JSON first).
REPORT_FILES = ("report.json", "report.md", "report.html", "junit.xml")

#: The distribution whose declared requirements :func:`environment` records.
DISTRIBUTION = "linmem-theorems"

#: Longest wait for a ``git`` query, seconds (a report never hangs on git).
GIT_TIMEOUT_S = 10.0

_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


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


def requirements(distribution: str = DISTRIBUTION) -> dict[str, str | None]:
    """Every requirement ``distribution`` declares (extras included), by
    name, with the installed version or None when it is not installed."""
    try:
        declared = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return {}
    names = []
    for line in declared:
        m = _REQUIREMENT_NAME.match(line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return {name: _version(name) for name in names}


def source_state(root: Path | None = None) -> dict:
    """The commit of the code checked and whether its tracked files differ
    from it: ``{"commit", "dirty", "root"}``, or ``{"commit": None,
    "reason"}`` when git or a repository is not there."""
    root = Path(root) if root is not None else Path(__file__).resolve().parents[2]
    git = shutil.which("git")
    if git is None:
        return {"commit": None, "reason": "git is not installed"}

    def ask(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([git, "-C", str(root), *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, check=False)

    try:
        head = ask("rev-parse", "HEAD")
        if head.returncode != 0:
            why = " ".join(head.stderr.split())[:200] or f"git exited {head.returncode}"
            return {"commit": None, "reason": f"{root} is not a git checkout ({why})"}
        status = ask("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"commit": None, "reason": f"git could not be asked ({type(exc).__name__}: {exc})"}
    out = {"commit": head.stdout.strip(), "root": str(root)}
    if status.returncode == 0:
        changed = [line[3:] for line in status.stdout.splitlines() if line.strip()]
        out["dirty"] = bool(changed)
        if changed:
            out["changed"] = changed[:50]
    else:
        out["dirty"] = None
        out["reason"] = "git status failed: " + " ".join(status.stderr.split())[:200]
    return out


def command_line(argv: list[str] | None = None) -> str:
    """The command line of this process, shell-quoted (``theorems`` for the
    console script, whatever path started it)."""
    argv = list(sys.argv if argv is None else argv)
    if argv and Path(argv[0]).name in ("theorems", "__main__.py"):
        argv[0] = "theorems"
    return shlex.join(argv)


def environment() -> dict:
    """Versions of Python and the dependencies, BLAS and the platform; the
    commit of the code checked and the command line."""
    reqs = requirements()
    packages = {DISTRIBUTION: _version(DISTRIBUTION), **{k: v for k, v in reqs.items()}}
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "packages": packages,
        "requirements": sorted(reqs),
        "blas": _blas(),
        "source": source_state(),
        "command": command_line(),
    }


def claim_entry(r: ClaimResult) -> dict:
    """One claim's entry in the JSON report: what it says, its status, each
    check's evidence and its negative control's per-check verdicts."""
    c = r.claim
    described = {ch.name: ch.description for ch in c.checks}
    return {
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
        **({"reused": r.reused.to_json()} if getattr(r, "reused", None) is not None else {}),
    }


def build_report(result: RunResult, *, selection: dict | None = None) -> dict:
    """The JSON report of a run (see ``report.schema.json``)."""
    claims = [claim_entry(r) for r in result.results]
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
        "fail_on": [s.value for s in Status if s in result.fail_on],
        "ok": result.ok,
        "claims": claims,
    }


def load_schema() -> dict:
    return json.loads(resources.files("theorems.reporting").joinpath("report.schema.json").read_text())


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


#: A pull-request comment holds at most this many characters (GitHub).
MAX_MARKDOWN_CHARS = 65_536

#: Statuses that need no look in a CI summary.
_QUIET_STATUSES = ("VERIFIED", "SUPPORTED")

#: Longest counterexample in the Markdown summary, characters (shortened
#: further when the whole summary would not fit).
MD_COUNTEREXAMPLE_CHARS = 600

_STATUS_ORDER = ("VERIFIED", "SUPPORTED", "ANSWERED", "INCONCLUSIVE", "NOT SUPPORTED", "FAILED", "ERROR",
                 "UNDERSPECIFIED", "BLOCKED")




#: Characters of Markdown syntax a text is escaped against with a backslash:
#: code spans, links and images, table cells (and the backslash itself).
_MD_PUNCTUATION = re.compile(r"([\\`\[\]|])")


def _cell(text: Any) -> str:
    """Text (a claim's title, a detail, a reason) shown as itself in
    Markdown, in a table cell or a list: one line, HTML's ``& < >`` as
    entities (no tag such as ``<script>`` or ``</details>`` takes effect)
    and the backslash, backtick, brackets and ``|`` escaped (no code span,
    link, image, link definition or extra table cell begins).

    >>> _cell("<img src=x onerror=alert(1)> [x](javascript:alert(1)) a|b `c`")
    '&lt;img src=x onerror=alert(1)&gt; \\\\[x\\\\](javascript:alert(1)) a\\\\|b \\\\`c\\\\`'
    """
    import html

    one_line = " ".join(str(text).split())
    return _MD_PUNCTUATION.sub(r"\\\1", html.escape(one_line, quote=False))


def _code(text: Any, *, in_table: bool = False) -> str:
    """``text`` (a claim id, a replay command) as a Markdown code span; in a
    table its ``|`` is escaped, as GitHub's tables need even inside code.
    Text holding a backtick or one of ``< > &`` is written as escaped plain
    text (:func:`_cell`) instead: a renderer that reads HTML inside code, or
    a fence miscounted, then still shows it as itself.

    >>> _code("a.b"), _code("a|b", in_table=True), _code("a`b</details>")
    ('`a.b`', '`a\\\\|b`', 'a\\\\`b&lt;/details&gt;')
    """
    body = " ".join(str(text).split())
    if not body or re.search(r"[`<>&]", body):
        return _cell(body)
    return f"`{body.replace('|', chr(92) + '|') if in_table else body}`"


def _control_cell(c: dict) -> str:
    """A claim's negative control in the table: caught, NOT caught, or empty
    (none, or not run: ``verify`` without ``--controls``)."""
    caught = (c.get("negative_control") or {}).get("caught")
    return "" if caught is None else ("caught" if caught else "**NOT caught**")


def verdict_line(report: dict) -> str:
    """The first line of a summary: OK or NOT OK (from the report's ``ok``),
    the counts, the profile, seed, time and commit."""
    counts = report["counts"]
    counted = ", ".join(f"{counts[s]} {s}" for s in _STATUS_ORDER if counts.get(s))
    failing = [s for s in _fail_on(report) if counts.get(s)]
    if report["ok"]:
        head = "**OK**"
    else:
        head = "**NOT OK** (" + ", ".join(f"{counts[s]} {s}" for s in failing) + ")" if failing else "**NOT OK**"
    src = (report.get("environment") or {}).get("source") or {}
    commit = src.get("commit")
    at = f"; commit `{commit[:12]}`{' (dirty)' if src.get('dirty') else ''}" if commit else ""
    n_reused = sum(1 for c in report["claims"] if c.get("reused"))
    reused = f"; {n_reused} reused from earlier runs (nothing they executed changed)" if n_reused else ""
    return (f"{head}: {len(report['claims'])} claims ({counted}); profile {report['profile']['name']}, "
            f"seed {report['seed']}, {report['duration_s']:.1f} s{at}{reused}")


def _fail_on(report: dict) -> tuple[str, ...]:
    from theorems.reporting.junit import fail_on

    return fail_on(report)


def _control_counts(claims: list[dict]) -> dict[str, int]:
    """How many checks caught, missed or were not applicable to their claims'
    controls (schema 1.4's ``counts``); empty for a report without them."""
    rows = [(c["negative_control"].get("counts") or {}) for c in claims]
    if not any(rows):
        return {}
    return {k: sum(int(r.get(k, 0)) for r in rows) for k in ("caught", "missed", "not applicable")}


def _control_table(claims: list[dict]) -> list[str]:
    """The per-check control table of report.md: for each claim whose
    controls ran, the checks that caught them, those that missed (with the
    reason) and those not applicable (with the reason)."""
    rows = [c for c in claims if c["negative_control"].get("per_check")]
    if not rows:
        return []
    out = ["| claim | caught by | missed by | not applicable |", "|---|---|---|---|"]
    for c in rows:
        per = c["negative_control"]["per_check"]

        def cell(result, why):
            names = [(n, r.get("reason") or "") for n, r in per.items() if r.get("result") == result]
            return _cell(", ".join(f"{n} ({w})" if why and w else n for n, w in names))

        out.append(f"| {_code(c['id'], in_table=True)} | {cell('caught', False)} | {cell('missed', True)} | "
                   f"{cell('not applicable', True)} |")
    return out


def _not_exact_note(c: dict) -> str:
    """Where an exact check did not apply (irrational terms, theorems.numbers), why: '; exact check: not exact: eigvalsh'."""
    for e in c.get("evidence", ()):
        info = (e.get("data") or {}).get("not_exact")
        if isinstance(info, dict) and info.get("cases") == info.get("of"):
            return f"; {e['check']} check did not apply: not exact: {', '.join(map(str, info.get('functions', [])))}"
    return ""


def _problem_entry(c: dict, cex_chars: int) -> list[str]:
    from theorems.reporting.junit import result_message

    lines = [f"### {_code(c['id'])} **{c['status']}**: {_cell(c['title'])}", ""]
    if c.get("blocked_by"):
        lines.append("- blocked by " + ", ".join(_code(b) for b in c["blocked_by"]))
    if c.get("reason"):
        lines.append(f"- why it cannot be checked: {_cell(c['reason'])}")
    nc = c.get("negative_control") or {}
    if nc.get("caught") is not None:
        lines.append(f"- negative control {'caught' if nc['caught'] else 'NOT caught'}: "
                     f"{_cell(nc.get('description') or '')} (comes out {_cell(nc.get('status'))}"
                     + ("" if nc["caught"] else f"; {_cell(missed_text(nc))}") + ")")
    if wider_than_searched(c):
        lines.append(f"- the statement is wider than what was searched: it covers {domain_text(c['domain'])}")
    replay = ""
    for e in c["evidence"]:
        if e["status"] in ("passed", "supported"):
            continue
        lines.append(f"- {_cell(result_message(e))}")
        searched = domain_text((e.get("data") or {}).get("domain"))
        if searched:
            lines.append(f"  - searched: {_cell(searched)}")
        if e.get("counterexample") is not None:
            lines += _counterexample_lines(e["counterexample"], cex_chars)
        replay = replay or e.get("replay") or ""
    if replay:
        lines.append(f"- replay: {_code(replay)}")
    return lines + [""]


#: Longest rebuild snippet of a float counterexample shown in the Markdown
#: summary, characters (a longer one, or any when the summary is short of
#: room, is named as being in report.json).
MD_SNIPPET_CHARS = 8000

#: Keys of a counterexample shown apart from its JSON in the summaries.
_SHOWN_APART = ("arrays", "rebuild", "replay_case")


def _counterexample_lines(cex: Any, cex_chars: int) -> list[str]:
    """A check's minimal counterexample in the Markdown summary: its JSON
    (the arrays aside), shortened to ``cex_chars``; a ladder failure's case
    and rung; a float counterexample's rebuild snippet as a Python block
    (while the summary has room); the command that reruns that case alone."""
    lines = []
    if isinstance(cex, dict) and "digits" in cex and "case" in cex:
        lines.append(f"  - fails at ladder case {_code(cex['case'])}, {cex['digits']} digits: {_cell(cex.get('why', ''))}")
    if isinstance(cex, dict) and isinstance(cex.get("enclosure"), dict):
        from theorems.numbers.words import enclosure_sentence

        lines.append(f"  - {_cell(enclosure_sentence(cex['enclosure']))}")
    apart = _SHOWN_APART + (("case",) if isinstance(cex, dict) and "arrays" in cex else ())  # a float recipe's JSON
    shown = {k: v for k, v in cex.items() if k not in apart} if isinstance(cex, dict) else cex
    text = json.dumps(shown, separators=(",", ":"))
    if len(text) > cex_chars:
        text = text[:cex_chars] + f"... ({len(text) - cex_chars} more characters in report.json)"
    lines.append(f"  - minimal counterexample: {_code(text)}")
    if not isinstance(cex, dict):
        return lines
    snippet = cex.get("rebuild")
    if isinstance(snippet, str):
        if len(snippet) <= MD_SNIPPET_CHARS and cex_chars >= MD_COUNTEREXAMPLE_CHARS:
            fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", snippet)), default=0))
            lines += ["  - rebuild it in Python (the exact float64 arrays):", "",
                      f"    {fence}python", *("    " + line if line else "" for line in snippet.splitlines()),
                      f"    {fence}", ""]
        else:
            lines.append(f"  - a Python snippet that rebuilds it ({len(snippet)} characters) is in report.json "
                         "(the counterexample's `rebuild`)")
    if isinstance(cex.get("replay_case"), str):
        lines.append(f"  - replay this case alone: {_code(cex['replay_case'])}")
    return lines


def _key_figure(c: dict) -> str:
    from theorems.reporting.junit import figure_name

    bad = [e for e in c["evidence"] if e["status"] not in ("passed", "supported")]
    if bad:
        e = bad[0]
    else:  # the check that came closest to its threshold says most
        scored = [e for e in c["evidence"] if isinstance(e.get("figure"), (int, float))]
        e = max(scored, key=lambda e: -1.0 if closeness(e) is None else closeness(e), default=None)
    if e is None or e.get("figure") is None:
        return ""
    op = {"<=": "≤", ">=": "≥"}.get(e.get("comparison") or "<=", e.get("comparison"))
    return f"{e['check']}: {figure_name(e)} {_fmt(e['figure'])} {op} {_fmt(e['threshold'])}"


def render_markdown(report: dict, *, max_chars: int = MAX_MARKDOWN_CHARS) -> str:
    """The Markdown summary of a report, for a CI job summary or a
    pull-request comment: the verdict line first; then every claim that is
    not VERIFIED or SUPPORTED, failing ones first, each with its measured
    figure, threshold, minimal counterexample and replay command; then,
    under ``<details>``, every claim in a table and the environment. At
    most ``max_chars`` characters: counterexamples are shortened first,
    then the table, then the list of problems is cut with a note."""
    failing = set(_fail_on(report))
    rank = {s: n for n, s in enumerate(_STATUS_ORDER)}
    problems = [c for c in report["claims"] if c["status"] not in _QUIET_STATUSES]
    problems.sort(key=lambda c: (c["status"] not in failing, -rank.get(c["status"], 0)))
    env = report["environment"]
    src = env.get("source") or {}
    header = [verdict_line(report), "", "# Theorem verification report", ""]
    controls = [c for c in report["claims"] if (c.get("negative_control") or {}).get("caught") is not None]
    if controls:
        missed = [c for c in controls if not c["negative_control"]["caught"]]
        line = f"Negative controls: {len(controls) - len(missed)} of {len(controls)} caught"
        counted = _control_counts(controls)
        if counted:
            line += (f" (checks on their wrong variants: {counted['caught']} caught, {counted['missed']} missed, "
                     f"{counted['not applicable']} not applicable)")
        if missed:
            line += "; NOT caught: " + ", ".join(_code(c["id"]) for c in missed)
        header += [line + ".", ""]
        header += [f"- {_code(c['id'])}: {_cell(missed_text(c['negative_control']))}" for c in missed]
        header += [""] if missed else []
    per_check = _control_table(controls)
    table = ["| claim | kind | status | key figure | negative control | s |", "|---|---|---|---|---|---|"]
    for c in report["claims"]:
        table.append(f"| {_code(c['id'], in_table=True)} | {_cell(c['kind'])} | {_cell(c['status'])} | "
                     f"{_cell(_key_figure(c) + _not_exact_note(c))} | {_control_cell(c)} | {c['seconds']:.2f} |")
    commit = (f"commit `{src['commit']}`{' (tracked files changed)' if src.get('dirty') else ''}"
              if src.get("commit") else f"commit unknown ({src.get('reason', 'not recorded')})")
    environment = [
        "<details><summary>Environment</summary>", "",
        f"- {commit}",
        f"- command: {_code(env.get('command', ''))}" if env.get("command") else "",
        f"- generated {report['generated_at']}; fail on: {', '.join(_fail_on(report))}",
        f"- Python {_cell(env['python'])} on {_cell(env['platform'])}",
        "- " + ", ".join(_cell(f"{k} {v}") for k, v in env["packages"].items() if v),
        "", "</details>", "",
    ]
    environment = [x for x in environment if x != ""] + [""]

    answers = answers_markdown(report)

    def assemble(cex_chars: int, with_table: bool, shown: int) -> str:
        body = list(header) + answers
        if problems:
            body += [f"## Needs a look: {len(problems)} claim(s)", ""]
            for c in problems[:shown]:
                body += _problem_entry(c, cex_chars)
            if shown < len(problems):
                rest = ", ".join(f"{_code(c['id'])} ({c['status']})" for c in problems[shown:])
                body += [f"... and {len(problems) - shown} more, in report.json: {rest}", ""]
        else:
            body += ["Every claim is VERIFIED or SUPPORTED (or underspecified and listed below).", ""]
        if with_table:
            body += [f"<details><summary>All {len(report['claims'])} claims</summary>", "", *table, "",
                     "</details>", ""]
            if per_check:
                body += ["<details><summary>Negative controls, check by check</summary>", "", *per_check, "",
                         "</details>", ""]
        body += environment
        return "\n".join(body)

    text = assemble(MD_COUNTEREXAMPLE_CHARS, True, len(problems))
    for cex_chars, with_table in ((200, True), (80, True), (80, False)):
        if len(text) <= max_chars:
            break
        text = assemble(cex_chars, with_table, len(problems))
    shown = len(problems)
    while len(text) > max_chars and shown > 0:
        shown = max(0, shown - max(1, shown // 10))
        text = assemble(80, False, shown)
    if len(text) > max_chars:  # only a pathological header or environment gets here
        text = text[: max_chars - 40] + "\n\n... (cut; see report.json)\n"
    return text


def write_reports(report: dict, out_dir: Path, *, names: tuple[str, ...] = REPORT_FILES) -> list[Path]:
    """Write :data:`REPORT_FILES` (JSON, Markdown, HTML, JUnit XML), or the
    ``names`` among them, into ``out_dir`` as one set: all are rendered
    first, then the folder is swapped for one holding them (and every other
    entry it held), so that a reader or a kill never sees a mix of two runs
    (:func:`theorems.reporting.folder.replace_set`); return the paths, the JSON first."""
    from theorems.reporting.junit import render_junit
    from theorems.reporting.html import render_html
    from theorems.reporting.folder import replace_set

    renderers = {
        "report.json": lambda r: json.dumps(r, indent=2, sort_keys=False) + "\n",
        "report.md": render_markdown,
        "report.html": render_html,
        "junit.xml": render_junit,
    }
    unknown = sorted(set(names) - set(REPORT_FILES))
    if unknown:
        raise ValueError(f"names must be among {list(REPORT_FILES)}, got {unknown}")
    texts = {name: renderers[name](report) for name in REPORT_FILES if name in names}
    return replace_set(Path(out_dir), texts)
