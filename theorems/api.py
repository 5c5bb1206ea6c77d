"""The Python API: verify claims from a notebook or a script.

>>> import theorems
>>> run = theorems.verify(only="lev.range")          # doctest: +SKIP
>>> run.ok, run.counts["VERIFIED"]                   # doctest: +SKIP
(True, 1)
>>> run                                              # doctest: +SKIP
<theorems run: 1 VERIFIED; profile quick, seed 20261130, 0.3 s: OK>

In Jupyter the run shows itself as an HTML table (:meth:`Run._repr_html_`):
a fragment whose styles are scoped to it and whose element ids are unique
per rendering, so it never restyles the notebook and can be shown any number
of times on one page. ``run.write("reports")`` writes the same reports as
``theorems verify`` (report.json, report.md, report.html, junit.xml).
"""

from __future__ import annotations

import re
import threading
import uuid
from html import escape
from pathlib import Path
from typing import Any, Iterable, Sequence

from theorems.core.profiles import DEFAULT_SEED, get_profile

__all__ = ["Run", "verify"]

#: One run at a time in a process: mpmath's working precision, Hypothesis's
#: settings and numpy's error state are process-wide, so two runs in threads
#: would change each other's figures. A second :func:`verify` waits for the
#: first and then gives what it gives alone.
_RUN_LOCK = threading.RLock()


def _strings(name: str, value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, dict)):
        out = list(value)
        bad = [v for v in out if not isinstance(v, str)]
        if not bad:
            return out
        raise TypeError(f"{name} must be a string or a sequence of strings, got an entry {bad[0]!r}")
    raise TypeError(f"{name} must be a string or a sequence of strings, got {type(value).__name__}")


def verify(
    only: str | Sequence[str] | None = None,
    kind: str | Sequence[str] | None = None,
    profile: str | None = None,
    seed: int = DEFAULT_SEED,
    claims: str | Sequence[str] | None = None,
    *,
    controls: bool = False,
    jobs: int | None = None,
    in_process: bool = False,
    fresh: bool = False,
) -> "Run":
    """Run the checks of the selected claims, as ``theorems verify`` does.

    ``only``: claim ids, globs (``"recall.*"``) or prefixes ending in '.';
    ``kind``: claim kinds (``"expectation"``, ...); ``profile``: quick
    (default, or ``$THEOREMS_PROFILE``), standard or thorough; ``seed``: the
    run seed; ``claims``: claim modules of one's own (import names or paths
    to .py files defining ``CLAIMS``); ``controls``: also run every negative
    control; ``jobs``: worker processes, each claim in a fresh supervised one
    (default: one per core; a check that crashes its process is that claim's
    ERROR); ``in_process``: run the claims in this process instead (for a
    debugger); ``fresh``: run every claim, reusing no earlier result (by
    default a claim whose last result at these settings is on record beside
    the sweep cache is reused when nothing it executed has changed,
    :mod:`theorems.scale.reuse`; ``THEOREMS_CACHE=off`` turns that off).
    Nothing is written until :meth:`Run.write`.

    Safe to call from several threads: runs in one process are serialized
    (the working precision of mpmath is process-wide), so each gives the
    verdicts and figures it gives alone.
    """
    from theorems.evidence._common import hypothesis_run
    from theorems.core.registry import load_claims, select
    from theorems.reporting.report import build_report
    from theorems.core.runner import run as run_claims

    only_l, kind_l, modules = _strings("only", only), _strings("kind", kind), _strings("claims", claims)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be an int >= 1 or None (one per core), got {jobs!r}")
    if not isinstance(in_process, bool):
        raise TypeError(f"in_process must be True or False, got {in_process!r}")
    if not isinstance(controls, bool):
        raise TypeError(f"controls must be True or False, got {controls!r}")
    if not isinstance(fresh, bool):
        raise TypeError(f"fresh must be True or False, got {fresh!r}")
    from theorems.reporting.report import source_state
    from theorems.scale.reuse import default_store

    chosen_profile = get_profile(profile)
    with _RUN_LOCK:  # runs in threads are serialized (see _RUN_LOCK)
        selected = select(load_claims(modules), only_l, kinds=kind_l)
        with hypothesis_run():
            result = run_claims(selected, profile=chosen_profile, seed=seed, controls=controls, jobs=jobs,
                                claims_modules=modules, in_process=in_process,
                                reuse=default_store(lookup=not fresh, source=source_state))
        report = build_report(result, selection={"only": only_l, "kind": kind_l, "claims_modules": modules})
    return Run(result, report)


class Run:
    """The outcome of :func:`verify`.

    ``ok``: no claim has a failing status (FAILED, ERROR, BLOCKED, NOT
    SUPPORTED by default); ``counts``: claims per status; ``claims``: the
    claim records of the JSON report (id, title, kind, status, evidence, ...);
    ``report``: the whole JSON report; ``result``: the runner's
    :class:`~theorems.core.runner.RunResult`.
    """

    def __init__(self, result, report: dict):
        self.result = result
        self.report = report

    @property
    def ok(self) -> bool:
        return bool(self.report["ok"])

    @property
    def counts(self) -> dict[str, int]:
        return dict(self.report["counts"])

    @property
    def claims(self) -> list[dict]:
        return self.report["claims"]

    def __getitem__(self, claim_id: str) -> dict:
        for c in self.claims:
            if c["id"] == claim_id:
                return c
        raise KeyError(f"claim {claim_id!r} is not in this run; it has {[c['id'] for c in self.claims]}")

    def __len__(self) -> int:
        return len(self.claims)

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write report.json, report.md, report.html and junit.xml to
        ``out_dir`` (created if needed); returns their paths."""
        from theorems.reporting.report import write_reports

        if not isinstance(out_dir, (str, Path)):
            raise TypeError(f"out_dir must be a str or a Path, got {type(out_dir).__name__}")
        return write_reports(self.report, Path(out_dir))

    def html(self) -> str:
        """The full, self-contained HTML page (``report.html``)."""
        from theorems.reporting.html import render_html

        return render_html(self.report)

    def __repr__(self) -> str:
        counts = ", ".join(f"{n} {s}" for s, n in self.counts.items() if n) or "no claims"
        return (f"<theorems run: {counts}; profile {self.report['profile']['name']}, seed {self.report['seed']}, "
                f"{self.report['duration_s']:.1f} s: {'OK' if self.ok else 'NOT OK'}>")

    def _repr_html_(self) -> str:
        return render_fragment(self.report)


# ---------------------------------------------------------------------------
# the notebook fragment

_INLINE_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$")

#: Styles of the fragment as (selectors, declarations); every selector is
#: prefixed with the fragment's own id, so nothing outside it changes.
_RULES = (
    ("", "font:13px/1.4 system-ui,-apple-system,'Segoe UI','DejaVu Sans',sans-serif;color:#1f2328"),
    (".th-summary", "margin:4px 0 6px"),
    (".th-badge", "display:inline-block;background:var(--c);color:#fff;border-radius:10px;padding:0 8px;"
                  "font-size:12px;font-weight:600;white-space:nowrap"),
    (".th-verdict", "font-weight:600;padding:1px 7px;border-radius:4px;color:#fff"),
    (".th-ok", "background:#1a7f37"),
    (".th-bad", "background:#cf222e"),
    ("table.th-claims", "border-collapse:collapse;width:100%"),
    ("table.th-claims th, table.th-claims td", "border-bottom:1px solid #d1d9e0;padding:3px 8px;text-align:left;"
                                               "vertical-align:top"),
    ("table.th-claims thead th", "background:#f6f8fa"),
    (".th-num", "text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap"),
    (".th-ev", "font-size:12px;white-space:nowrap"),
    (".th-ev-bad", "color:#a40e26;font-weight:600"),
    (".th-muted", "color:#59636e"),
    ("code", "font-size:12px"),
    ("pre", "background:#f6f8fa;padding:6px;max-height:16em;overflow:auto;white-space:pre-wrap;margin:4px 0"),
)


def _scoped_css(uid: str) -> str:
    return "".join(
        ",".join(f"#{uid} {s.strip()}".rstrip() for s in selectors.split(",")) + "{" + body + "}"
        for selectors, body in _RULES
    )

_BAD_EVIDENCE = ("failed", "error", "not_supported")


def _rich(text: str) -> str:
    """Escaped text with its ``$...$`` math as MathML (via the HTML report)."""
    from theorems.reporting.html import latex_to_mathml

    out, last = [], 0
    for m in _INLINE_MATH.finditer(text):
        out.append(escape(text[last:m.start()]))
        out.append(latex_to_mathml(m.group(1))[0])
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _num(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return escape(x)
    return f"{x:.3g}"


def render_fragment(report: dict) -> str:
    """An HTML fragment of a JSON report for a notebook: a summary line and
    one table row per claim (status, title, each check's figure against its
    threshold, and for a failing check its detail, counterexample and replay
    command). Styles are scoped to the fragment's id, which is new on every
    call."""
    from theorems.reporting.plots import STATUS_COLOURS

    uid = f"theorems-run-{uuid.uuid4().hex[:12]}"
    css = _scoped_css(uid)
    badges = " ".join(
        f'<span class="th-badge" style="--c:{STATUS_COLOURS.get(s, "#6e7781")}">{n} {escape(s)}</span>'
        for s, n in report["counts"].items() if n
    ) or '<span class="th-muted">no claims</span>'
    verdict = ('<span class="th-verdict th-ok">OK</span>' if report["ok"]
               else '<span class="th-verdict th-bad">NOT OK</span>')
    rows = []
    for i, c in enumerate(report["claims"]):
        checks, problems = [], []
        for e in c["evidence"]:
            bad = e["status"] in _BAD_EVIDENCE
            checks.append(f'<span class="th-ev{" th-ev-bad" if bad else ""}" title="{escape(e["kind"])}">'
                          f'{escape(e["check"])}: {_num(e["figure"])} {escape(e["comparison"])} '
                          f'{_num(e["threshold"])} ({escape(e["status"])})</span>')
            if bad:
                cex = e.get("counterexample")
                problems.append(
                    f'<div><b>{escape(e["check"])}</b> {escape(e["status"])}: {escape(e.get("detail") or "")}'
                    + (f"<pre>{escape(str(cex))[:4000]}</pre>" if cex is not None else "")
                    + f'<div>replay: <code>{escape(e.get("replay") or "")}</code></div></div>')
        detail = (f'<details id="{uid}-c{i}"><summary>why</summary>{"".join(problems)}</details>'
                  if problems else "")
        colour = STATUS_COLOURS.get(c["status"], "#6e7781")
        rows.append(
            f'<tr data-status="{escape(c["status"])}"><td><code>{escape(c["id"])}</code></td>'
            f'<td><span class="th-badge" style="--c:{colour}">{escape(c["status"])}</span></td>'
            f'<td>{_rich(c["title"])}{detail}</td><td>{"<br>".join(checks)}</td>'
            f'<td class="th-num">{c["seconds"]:.2f}</td></tr>'
        )
    return (
        f'<div id="{uid}" class="theorems-run"><style>{css}</style>'
        f'<p class="th-summary"><b>theorems</b> {badges} {verdict} '
        f'<span class="th-muted">profile {escape(report["profile"]["name"])}, seed {report["seed"]}, '
        f'{report["duration_s"]:.1f} s</span></p>'
        '<table class="th-claims"><thead><tr><th>claim</th><th>status</th><th>title</th>'
        '<th>checks: figure vs threshold</th><th class="th-num">s</th></tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table></div>'
    )
