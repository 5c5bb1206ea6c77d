"""The HTML report: one self-contained file rendered from the JSON report.

It works offline and loads nothing: the CSS and the small filtering script
are inline, every statement's LaTeX is rendered as MathML (latex2mathml),
plots are inline SVG (:mod:`theorems.reporting.plots`) and the page holds no URL at
all (inline SVG and MathML take their namespaces from the HTML parser, so
even the ``xmlns`` declarations go).

A statement that cannot be converted falls back to its escaped LaTeX source
in a ``<code class="latex-fallback">``, listed at the top of the page and by
:func:`math_fallbacks` (the CLI prints them). Titles, assumptions and check
descriptions may hold inline math between ``$...$``; it is rendered the same
way.
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from theorems.reporting.answers import answers_html
from theorems.reporting.junit import fail_on, result_message
from theorems.core.controls import missed_text
from theorems.reporting.plots import (
    KIND_SHAPES,
    STATUS_COLOURS,
    Plot,
    chain_status,
    dependency_graph_svg,
    draw_all,
    evidence_plots,
    ladder_all_zero,
    plot_sources,
    shape_path,
    topic,
)
from theorems.reporting.figures import closeness
from theorems.reporting.domains import domain_text, searched_domains, wider_than_searched
from theorems.reporting.mathml import (
    FUNCTION_NAMES,
    MathFallback,
    INLINE_MATH,
    ascii_chunks,
    ascii_math_spans,
    ascii_to_latex,
    is_prose,
    latex_to_mathml,
    split_statement,
)

__all__ = ["FUNCTION_NAMES", "MathFallback", "ascii_math_spans", "ascii_to_latex", "latex_to_mathml", "math_fallbacks",
           "is_prose", "render_html", "split_statement"]

#: Order of statuses in the summary and the filter (the order of ``Status``).
STATUS_ORDER = ("VERIFIED", "SUPPORTED", "ANSWERED", "INCONCLUSIVE", "NOT SUPPORTED", "FAILED", "ERROR",
                "UNDERSPECIFIED", "BLOCKED")

#: Evidence statuses that call for the counterexample and replay box.
_BAD_EVIDENCE = ("failed", "error", "not_supported", "inconclusive")

#: Longest counterexample, witness or traceback shown in full, characters.
MAX_BLOCK_CHARS = 4000

#: Which evidence a claim's "key figure" comes from, most telling first.
_KEY_KIND_ORDER = ("simulation", "montecarlo", "counterexample", "precise", "property", "expectation", "symbolic")

class _Renderer:
    def __init__(self, report: dict):
        self.report = report
        self.fallbacks: list[MathFallback] = []
        self.plot_count = 0
        self.drawn: dict[str, list[Plot]] = {}  # salt -> plots drawn ahead (render)

    # -- text helpers -----------------------------------------------------
    def math(self, latex: str, *, claim: str, where: str, display: bool) -> str:
        markup, error = latex_to_mathml(latex, display=display)
        if error:
            fallback = MathFallback(claim, where, latex, error)
            if fallback not in self.fallbacks:
                self.fallbacks.append(fallback)
        return markup

    def rich(self, text: str, *, claim: str, where: str, ascii_math: bool = False) -> str:
        """Escaped text with ``$...$`` pieces rendered as inline MathML, and
        the ASCII-math groups ``x^{...}`` and ``x_{...}`` of plain text as
        superscripts and subscripts."""
        out, last = [], 0
        for m in INLINE_MATH.finditer(text or ""):
            out.append(self.plain_math(text[last:m.start()], ascii_math=ascii_math))
            out.append(self.math(m.group(1), claim=claim, where=where, display=False))
            last = m.end()
        out.append(self.plain_math((text or "")[last:], ascii_math=ascii_math))
        return "".join(out)

    def plain_math(self, text: str, *, ascii_math: bool) -> str:
        """Plain text, its runs of ASCII math (``h_j/(1 - h_j)``) rendered as
        inline MathML when ``ascii_math`` (a run that does not convert stays
        text: ASCII math is never reported as a fallback)."""
        if not ascii_math or not text:
            return _plain(text)
        out, last = [], 0
        for a, b in ascii_math_spans(text):
            chunks = ascii_chunks(text[a:b])
            converted = [latex_to_mathml(ascii_to_latex(chunk)) for chunk in chunks]
            if any(error for _, error in converted):
                continue
            out.append(_plain(text[last:a]))
            # a long run is set as several pieces so that a narrow page can wrap it
            out.append(" ".join(m.replace("<math ", '<math class="ascii" ', 1) for m, _ in converted))
            last = b
        out.append(_plain(text[last:]))
        return "".join(out)

    # -- pieces -----------------------------------------------------------
    def header(self) -> str:
        r = self.report
        env = r["environment"]
        counts = r["counts"]
        total = len(r["claims"])
        checks = sum(len(c["evidence"]) for c in r["claims"])
        chips = "".join(
            f'<button type="button" class="chip" data-filter-status="{escape(s)}" style="--c:{STATUS_COLOURS[s]}"'
            f'{" disabled" if not counts.get(s) else ""}><b>{counts.get(s, 0)}</b> {escape(s)}</button>'
            for s in STATUS_ORDER
        )
        failing = fail_on(r)
        offending = ", ".join(f"{counts[s]} {s}" for s in failing if counts.get(s))
        verdict = (f'<span class="verdict ok">OK: no claim is {escape(" / ".join(failing))}</span>' if r["ok"]
                   else f'<span class="verdict bad">NOT OK: {escape(offending or "the run failed")}</span>')
        src = env.get("source") or {}
        if src.get("commit"):
            commit = (f'<code>{escape(src["commit"][:12])}</code>'
                      + (' <span class="dirty">tracked files changed</span>' if src.get("dirty") else ' (clean)'))
        else:
            commit = f'<span class="muted">unknown ({escape(str(src.get("reason", "not recorded")))})</span>'
        command = (f'<dt>command</dt><dd><code>{escape(env["command"])}</code></dd>' if env.get("command") else "")
        prof = r["profile"]
        profile_bits = ", ".join(f"{k} {escape(str(v))}" for k, v in prof.items() if k != "name")
        packages = "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>"
                           for k, v in env.get("packages", {}).items() if v)
        blas = ", ".join(f"{escape(str(k))} {escape(str(v))}" for k, v in (env.get("blas") or {}).items())
        sel = r.get("selection") or {}
        sel_text = "; ".join(f"{escape(k)}: {escape(', '.join(map(str, v)))}" for k, v in sel.items() if v) or "all claims"
        tool = r.get("tool") or {}
        n_reused = sum(1 for c in r["claims"] if c.get("reused"))
        reused = f"; {n_reused} reused from earlier runs (nothing they executed changed)" if n_reused else ""
        return f"""
<header>
  <h1>Theorem verification report</h1>
  <p class="lead">{verdict} <span class="muted">{total} claims, {checks} checks, in {r['duration_s']:.1f} s{reused}</span></p>
  <div class="chips" role="group" aria-label="claims per status">{chips}</div>
  <dl class="facts">
    <dt>profile</dt><dd><b>{escape(prof['name'])}</b> <span class="muted">({profile_bits})</span></dd>
    <dt>seed</dt><dd>{r['seed']}</dd>
    <dt>time taken</dt><dd>{r['duration_s']:.2f} s</dd>
    <dt>generated</dt><dd>{escape(r['generated_at'])} by {escape(str(tool.get('name', 'theorems')))} {escape(str(tool.get('version', '')))}</dd>
    <dt>selection</dt><dd>{sel_text}; fails on {escape(", ".join(failing))}</dd>
    <dt>commit</dt><dd>{commit}</dd>{command}
    <dt>environment</dt><dd>Python {escape(env['python'])} ({escape(str(env.get('implementation', '')))}) on
      {escape(env['platform'])}, {escape(str(env.get('cpu_count', '?')))} CPUs; BLAS: {blas or 'unknown'}
      <details><summary>package versions</summary><table class="env">{packages}</table></details></dd>
  </dl>
</header>"""

    def key_figure(self, claim: dict) -> str:
        ev = claim["evidence"]
        if not ev:
            return '<span class="muted">no checks</span>' if claim["kind"] == "underspecified" else ""
        bad = [e for e in ev if e["status"] in _BAD_EVIDENCE]
        pool = bad or ev

        def rank(e):
            kind = _KEY_KIND_ORDER.index(e["kind"]) if e["kind"] in _KEY_KIND_ORDER else len(_KEY_KIND_ORDER)
            return (kind, -(closeness(e) or 0.0))

        e = min(pool, key=rank)
        if e["figure"] is None:
            return f'<span title="{escape(e["kind"])}">{escape(e["check"])}: {_ev_badge(e["status"])}</span>'
        return (f'<span title="{escape(e["check"])} ({escape(e["kind"])})">{escape(e["check"])}: '
                f'{_num(e["figure"])} {_cmp(e["comparison"] if "comparison" in e else "<=")} '
                f'{_num(e["threshold"])}</span>')

    def table(self) -> str:
        claims = self.report["claims"]
        kinds = sorted({c["kind"] for c in claims})
        present = [s for s in STATUS_ORDER if self.report["counts"].get(s)]
        status_opts = "".join(f'<option value="{escape(s)}">{escape(s)} ({self.report["counts"][s]})</option>'
                              for s in present)
        kind_opts = "".join(
            f'<option value="{escape(k)}">{escape(k)} ({sum(c["kind"] == k for c in claims)})</option>' for k in kinds)
        rows = []
        for c in claims:
            rows.append(
                f'<tr data-status="{escape(c["status"])}" data-kind="{escape(c["kind"])}">'
                f'<td><a href="#claim-{escape(c["id"])}"><code>{escape(c["id"])}</code></a></td>'
                f'<td>{self.rich(c["title"], claim=c["id"], where="title", ascii_math=True)}</td>'
                f'<td>{escape(c["kind"])}</td><td>{_badge(c["status"])}</td>'
                f'<td class="fig">{self.key_figure(c)}</td><td class="num">{c["seconds"]:.2f}'
                + (f'<br><span class="muted small" title="reused: nothing it executed changed since the run of '
                   f'{escape(c["reused"]["at"])}">reused</span>' if c.get("reused") else "") + '</td></tr>'
            )
        return f"""
<section id="summary">
  <h2>Claims</h2>
  <form class="filters">
    <label>status <select id="filter-status"><option value="">all</option>{status_opts}</select></label>
    <label>kind <select id="filter-kind"><option value="">all</option>{kind_opts}</select></label>
    <span class="muted">showing <b id="shown">{len(claims)}</b> of {len(claims)}</span>
  </form>
  <div class="table-scroll"><table id="claims" class="grid">
    <thead><tr><th>claim</th><th>title</th><th>kind</th><th>status</th><th>key figure</th><th>s</th></tr></thead>
    <tbody>{''.join(rows)}</tbody>
  </table></div>
</section>"""

    def graph(self) -> str:
        claims = self.report["claims"]
        edges = sum(len(c["depends_on"]) for c in claims)
        chain = chain_status(claims)
        full = sum(v == "verified" for v in chain.values())
        legend = "".join(f'<span class="key" style="--c:{STATUS_COLOURS[s]}">{escape(s)}</span>'
                         for s in STATUS_ORDER if self.report["counts"].get(s))
        kinds = sorted({c["kind"] for c in claims})
        shapes = "".join(
            f'<span class="shape-key"><svg viewBox="0 0 44 18" width="44" height="18" aria-hidden="true">'
            f'<path class="shape{" dashed" if KIND_SHAPES.get(k) == "dashed" else ""}" '
            f'd="{shape_path(KIND_SHAPES.get(k, "rectangle"), 1, 1, 42, 16)}" fill="#8c959f"/></svg>'
            f'{escape(k)}</span>' for k in kinds)
        return f"""
<section id="graph">
  <h2>Dependencies</h2>
  <p class="muted">{len(claims)} claims in {len({topic(c["id"]) for c in claims})} topics, {edges} dependencies.
  Each band is a topic; within it a claim comes after the claims of its topic it depends on. Colour: status;
  shape: kind; a ring and &#x2713;: verified together with everything it depends on ({full} claims).
  Click a claim to light up what it uses (upstream) and what uses it (downstream); click it again to go to it.
  Wheel or the buttons zoom, drag pans.</p>
  <p class="small">{legend}</p><p class="small shapes">{shapes}</p>
  <div class="graph-tools" role="group" aria-label="graph view">
    <button type="button" data-zoom="in" title="zoom in">+</button>
    <button type="button" data-zoom="out" title="zoom out">&minus;</button>
    <button type="button" data-zoom="reset" title="whole graph">fit</button>
    <span id="graph-info" class="muted small" aria-live="polite">no claim selected</span>
  </div>
  <div class="graph-box">{dependency_graph_svg(claims)}</div>
</section>"""

    def evidence_table(self, c: dict) -> str:
        rows = []
        for e in c["evidence"]:
            desc = e.get("description") or ""
            where = f"check {e['check']}"
            rows.append(
                f'<tr class="row-{escape(e["status"])}"><td><b>{escape(e["check"])}</b>'
                + (f'<div class="muted small">{self.rich(desc, claim=c["id"], where=where, ascii_math=True)}</div>'
                   if desc else "")
                + f'</td><td>{escape(e["kind"])}</td><td>{_ev_badge(e["status"])}</td>'
                f'<td class="num">{_num(e["figure"])}</td>'
                f'<td class="num">{_cmp(e.get("comparison", "<="))} {_num(e["threshold"])}</td>'
                f'<td>{_gauge(e)}</td><td class="num">{e["cases"]}</td>'
                f'<td class="num">{e["seconds"]:.2f}</td>'
                f'<td class="small">{self.rich(e.get("detail") or "", claim=c["id"], where=where)}</td></tr>'
            )
        return ('<div class="table-scroll"><table class="grid evidence"><thead><tr><th>check</th><th>evidence</th><th>status</th>'
                '<th>figure</th><th>threshold</th><th>figure / threshold</th><th>cases</th><th>s</th>'
                f'<th>detail</th></tr></thead><tbody>{"".join(rows)}</tbody></table></div>')

    def problems(self, c: dict) -> str:
        out = []
        for e in c["evidence"]:
            if e["status"] not in _BAD_EVIDENCE:
                continue
            detail = self.rich(e.get("detail") or "", claim=c["id"], where="check " + e["check"])
            parts = [f'<h4>{escape(e["check"])}: {escape(e["status"].replace("_", " "))}</h4>',
                     f'<p class="result">{escape(result_message(e))}</p>', f"<p>{detail}</p>"]
            if e.get("counterexample") is not None:
                parts.append(_counterexample_html(e["counterexample"]))
            if e.get("replay"):
                parts.append(f'<p>Replay: <code class="replay">{escape(e["replay"])}</code></p>')
            tb = (e.get("data") or {}).get("traceback")
            if tb:
                parts.append(f"<details><summary>traceback</summary><pre>{escape(str(tb)[-MAX_BLOCK_CHARS:])}</pre></details>")
            out.append(f'<div class="problem">{"".join(parts)}</div>')
        return "".join(out)

    def plots(self, c: dict) -> str:
        figs = []
        for e in c["evidence"]:
            data = e.get("data") or {}
            if e["kind"] == "precise" and data.get("residuals"):
                try:
                    if ladder_all_zero(data):
                        figs.append(f'<p class="muted small">{escape(e["check"])}: every residual is exactly 0 '
                                    f'at every rung {escape(str(data.get("ladder")))}; nothing to plot.</p>')
                except (TypeError, ValueError, AttributeError):
                    pass
            if e["kind"] == "counterexample" and data.get("witness") is not None:
                figs.append(f'<div class="witness"><p>Witness ({escape(e["check"])}):</p>{_block(data["witness"])}</div>')
            salt = f"{c['id']}:{e['check']}"
            for p in self.drawn[salt] if salt in self.drawn else evidence_plots(e, salt=salt):
                figs.append(self.figure(p))
        return f'<div class="plots">{"".join(figs)}</div>' if figs else ""

    def figure(self, p: Plot) -> str:
        self.plot_count += 1
        if p.error:
            return (f'<figure class="plot-figure plot-error" data-plot="{escape(p.source)}"><figcaption>'
                    f'{escape(p.title)}: the data could not be drawn ({escape(p.error)})</figcaption></figure>')
        keys = "".join(
            f'<span class="key-entry"><i style="border-top:2px {k.line or "none"} {k.colour}">'
            + (f'<b style="background:{k.colour}"></b>' if k.marker else "")
            + f"</i>{escape(k.label)}</span>"
            for k in p.legend
        )
        legend = f'<div class="legend">{keys}</div>' if keys else ""
        return (f'<figure class="plot-figure" data-plot="{escape(p.source)}">{p.svg}{legend}'
                f'<figcaption>{escape(p.title)}</figcaption></figure>')

    def domain(self, c: dict) -> str:
        """The statement's domain and what each check searched; a warning
        when the statement is wider than every searched domain."""
        stated = domain_text(c.get("domain"))
        searched = searched_domains(c)
        if not stated and not searched:
            return ""
        out = ""
        if stated:
            out += f"<dt>statement's domain</dt><dd>{self.plain_math(stated, ascii_math=True)}</dd>"
        if searched:
            items = "".join(f"<li><b>{escape(check)}</b>: {self.plain_math(text, ascii_math=True)}</li>"
                            for check, text in searched)
            warn = ('<p class="wider">The statement is wider than what was searched: the checks cover only '
                    'the domains listed here.</p>' if wider_than_searched(c) else "")
            out += f'<dt>searched</dt><dd><ul>{items}</ul>{warn}</dd>'
        return out

    def negative_control(self, c: dict) -> str:
        nc = c.get("negative_control")
        if not nc or nc.get("description") is None:  # none (an underspecified claim)
            return ""
        desc = self.rich(nc.get("description") or "", claim=c["id"], where="negative control", ascii_math=True)
        if nc.get("caught") is None:
            return f'<p class="nc"><b>Negative control</b> (not run; use <code>--controls</code>): {desc}</p>'
        verdict = ('<span class="ev ev-passed">caught</span> the claim comes out '
                   f'{escape(str(nc.get("status")))} on it' if nc["caught"]
                   else f'<span class="ev ev-failed">NOT caught</span>: {escape(missed_text(nc))}')
        if not nc.get("controls"):  # a record of before schema 1.4, or a worker that died in the control
            checks = ", ".join(f"{escape(k)}: {escape(str(v))}" for k, v in (nc.get("checks") or {}).items())
            return (f'<p class="nc"><b>Negative control</b>: {desc}. {verdict} '
                    f'<span class="muted">({checks})</span></p>')
        return f'<div class="nc"><p><b>Negative control</b>: {desc}. {verdict}</p>{self.control_table(c, nc)}</div>'

    def control_table(self, c: dict, nc: dict) -> str:
        """Each check of the claim under each control: caught, missed or not
        applicable, with the check's status on the wrong variant and the reason."""
        controls = nc["controls"]
        several = len(controls) > 1
        head = "".join(f'<th>{"control " + str(k + 1) if several else "on the wrong variant"}</th>'
                       for k in range(len(controls)))
        rows = []
        for name, merged in (nc.get("per_check") or {}).items():
            cells = []
            for control in controls:
                row = (control.get("checks") or {}).get(name) or {}
                result = str(row.get("result", ""))
                status = f' <span class="muted">({escape(str(row["status"]))})</span>' if row.get("status") else ""
                reason = f'<div class="muted small">{escape(str(row.get("reason") or ""))}</div>' \
                    if result != "caught" and row.get("reason") else ""
                cells.append(f'<td><span class="ev {_CONTROL_CLASS.get(result, "ev-inconclusive")}">'
                             f'{escape(result)}</span>{status}{reason}</td>')
            rows.append(f'<tr class="control-{_CONTROL_CLASS.get(str(merged.get("result")), "other")}">'
                        f'<td><b>{escape(name)}</b></td>{"".join(cells)}</tr>')
        legend = ""
        if several:
            legend = "<ol class=\"small\">" + "".join(
                f'<li>{self.rich(str(k.get("description") or ""), claim=c["id"], where="negative control", ascii_math=True)}'
                f' <span class="muted">({escape(", ".join(k.get("aimed_at") or []) or "every check")})</span></li>'
                for k in controls) + "</ol>"
        return (f'<div class="table-scroll"><table class="grid controls"><thead><tr><th>check</th>{head}</tr></thead>'
                f'<tbody>{"".join(rows)}</tbody></table></div>{legend}')

    def claim(self, c: dict) -> str:
        cid = c["id"]
        status_of = {x["id"]: x["status"] for x in self.report["claims"]}
        deps = ", ".join(
            f'<a href="#claim-{escape(d)}"><code>{escape(d)}</code></a>'
            + (f" {_badge(status_of[d], small=True)}" if d in status_of else ' <span class="muted">(not in this run)</span>')
            for d in c["depends_on"]
        ) or '<span class="muted">none</span>'
        assumptions = "".join(f"<li>{self.rich(a, claim=cid, where='assumption', ascii_math=True)}</li>"
                              for a in c.get("assumptions") or [])
        blocked = (f'<dt>blocked by</dt><dd>{", ".join(f"<code>{escape(b)}</code>" for b in c["blocked_by"])}</dd>'
                   if c.get("blocked_by") else "")
        reason = (f'<dt>why it cannot be checked</dt><dd>{self.rich(c["reason"], claim=cid, where="reason")}</dd>'
                  if c.get("reason") else "")
        if is_prose(c["statement"]):
            statement = f'<p class="prose">{self.plain_math(c["statement"], ascii_math=True)}</p>'
        else:
            pieces = split_statement(c["statement"])
            if len(pieces) > 1 and any(latex_to_mathml(p, display=True)[1] for p in pieces):
                pieces = [c["statement"]]  # a cut that breaks the LaTeX: show it whole
            statement = "".join(self.math(piece, claim=cid, where="statement", display=True) for piece in pieces)
        domain = self.domain(c)
        body = [
            f'<div class="statement">{statement}</div>',
            f'<details class="source"><summary>LaTeX source</summary><code>{escape(c["statement"])}</code></details>',
            f'<dl class="facts"><dt>kind</dt><dd>{escape(c["kind"])}</dd><dt>source</dt><dd>{self.rich(c["source"], claim=cid, where="source")}</dd>'
            f'<dt>assumptions</dt><dd>{f"<ul>{assumptions}</ul>" if assumptions else "<span class=muted>none stated</span>"}</dd>'
            f'<dt>depends on</dt><dd>{deps}</dd>{blocked}{reason}{domain}</dl>',
        ]
        if c["evidence"]:
            body.append(self.evidence_table(c))
        body.append(self.problems(c))
        body.append(answers_html(c))
        body.append(self.plots(c))
        body.append(self.negative_control(c))
        return (f'<section class="claim" id="claim-{escape(cid)}" data-status="{escape(c["status"])}" '
                f'data-kind="{escape(c["kind"])}"><h3><code>{escape(cid)}</code> '
                f'{self.rich(c["title"], claim=cid, where="title", ascii_math=True)} {_badge(c["status"])}'
                f'<span class="muted small"> {c["seconds"]:.2f} s</span></h3>{"".join(body)}</section>')

    def notes(self) -> str:
        if not self.fallbacks:
            return ""
        items = "".join(f"<li><a href=\"#claim-{escape(f.claim)}\"><code>{escape(f.claim)}</code></a> "
                        f"({escape(f.where)}): {escape(f.error)}</li>" for f in self.fallbacks)
        return (f'<section id="math-fallbacks" class="notes"><h2>Rendering notes</h2><p>{len(self.fallbacks)} piece(s) of '
                f"LaTeX could not be rendered and are shown as source:</p><ul>{items}</ul></section>")

    def render(self) -> str:
        # every plot first, spread over the cores (the whole catalogue's take seconds one by one)
        jobs = [(e, f"{c['id']}:{e['check']}") for c in self.report["claims"] for e in c["evidence"]
                if plot_sources(e)]
        self.drawn = dict(zip((salt for _, salt in jobs), draw_all(jobs)))
        claims_html = "".join(self.claim(c) for c in self.report["claims"])
        head = self.header()
        table = self.table()
        graph = self.graph()
        notes = self.notes()
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>Theorem verification report: {escape(self.report["profile"]["name"])}, '
            f'{sum(self.report["counts"].values())} claims</title>'
            f"<style>{_CSS}</style></head><body>{head}{notes}{table}{graph}"
            f'<section id="details"><h2>Claims in detail</h2>{claims_html}</section>'
            f'<footer class="muted small">{self.plot_count} plots. Rendered from report.json '
            f'(schema {escape(self.report["schema_version"])}).</footer>'
            f"<script>{_JS}</script></body></html>\n"
        )


def _script_hash(script: str) -> str:
    import base64
    import hashlib

    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def render_html(report: dict) -> str:
    """The HTML report of a JSON report (see the module docstring)."""
    return _Renderer(report).render()


def math_fallbacks(report: dict) -> list[MathFallback]:
    """Every piece of LaTeX in ``report`` that the HTML shows as source."""
    r = _Renderer(report)
    for c in report["claims"]:
        for piece in ([] if is_prose(c["statement"]) else split_statement(c["statement"])):
            r.math(piece, claim=c["id"], where="statement", display=True)
        for where in ("title", "source", "reason"):
            r.rich(c.get(where) or "", claim=c["id"], where=where)
        for a in c.get("assumptions") or []:
            r.rich(a, claim=c["id"], where="assumption")
        for e in c["evidence"]:
            for text in (e.get("description"), e.get("detail")):
                r.rich(text or "", claim=c["id"], where=f"check {e['check']}")
        if c.get("negative_control"):
            r.rich(c["negative_control"].get("description") or "", claim=c["id"], where="negative control")
    return r.fallbacks


# ---------------------------------------------------------------------------
# small formatting helpers

_SCRIPT_GROUP = re.compile(r"([\^_])\{([^{}]*)\}")


def _plain(text: str) -> str:
    """Escaped plain text; ``^{...}`` and ``_{...}`` become <sup> and <sub>.

    >>> _plain("R^{p x d} & sum_{i != j}")
    'R<sup>p x d</sup> &amp; sum<sub>i != j</sub>'
    """
    out, last = [], 0
    for m in _SCRIPT_GROUP.finditer(text):
        tag = "sup" if m.group(1) == "^" else "sub"
        out.append(escape(text[last:m.start()]) + f"<{tag}>{escape(m.group(2))}</{tag}>")
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _num(x: Any) -> str:
    if x is None:
        return '<span class="muted">-</span>'
    if isinstance(x, str):
        return escape(x)
    if isinstance(x, float) and x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        return f"{x:.3e}"
    return f"{x:.4g}" if isinstance(x, float) else escape(str(x))


def _cmp(op: str) -> str:
    return {"<=": "&le;", ">=": "&ge;", "==": "=", "<": "&lt;", ">": "&gt;"}.get(op, escape(op))


def _gauge(e: dict) -> str:
    ratio = closeness(e)
    if ratio is None:
        return ""
    width = max(0.0, min(ratio, 1.0)) * 100
    cls = "over" if ratio > 1 else ""
    return (f'<span class="gauge {cls}" title="figure / threshold = {ratio:.3g}">'
            f'<span style="width:{width:.1f}%"></span></span> <span class="small">{ratio:.2g}</span>')


def _badge(status: str, *, small: bool = False) -> str:
    colour = STATUS_COLOURS.get(status, "#6e7781")
    return f'<span class="badge{" small" if small else ""}" style="--c:{colour}">{escape(status)}</span>'


#: The badge class of a check's result under a negative control (theorems.core.controls).
_CONTROL_CLASS = {"caught": "ev-passed", "missed": "ev-failed", "not applicable": "ev-inconclusive",
                  "not aimed": "ev-inconclusive"}


def _ev_badge(status: str) -> str:
    return f'<span class="ev ev-{escape(status)}">{escape(status.replace("_", " "))}</span>'


def _counterexample_html(cex: Any) -> str:
    """A check's minimal counterexample: a ladder failure's case and rung,
    the JSON (the arrays aside), a float counterexample's rebuild snippet in
    full and the command that reruns that case alone."""
    parts = []
    if isinstance(cex, dict) and "digits" in cex and "case" in cex:
        parts.append(f'<p>Fails at ladder case <code>{escape(str(cex["case"]))}</code>, {escape(str(cex["digits"]))} '
                     f'digits: {escape(str(cex.get("why", "")))}</p>')
    if isinstance(cex, dict) and isinstance(cex.get("enclosure"), dict):
        from theorems.numbers.words import enclosure_sentence

        parts.append(f"<p>{escape(enclosure_sentence(cex['enclosure']))}</p>")
    apart = ("arrays", "rebuild", "replay_case") + (("case",) if isinstance(cex, dict) and "arrays" in cex else ())
    shown = {k: v for k, v in cex.items() if k not in apart} if isinstance(cex, dict) else cex
    parts.append("<p>Minimal counterexample:</p>" + _block(shown))
    if isinstance(cex, dict) and isinstance(cex.get("rebuild"), str):
        parts.append('<p>Rebuild it in Python (the exact float64 arrays):</p>'
                     f'<pre class="snippet">{escape(cex["rebuild"])}</pre>')
    if isinstance(cex, dict) and isinstance(cex.get("replay_case"), str):
        parts.append(f'<p>Replay this case alone: <code class="replay">{escape(cex["replay_case"])}</code></p>')
    return "".join(parts)


def _block(value: Any) -> str:
    text = json.dumps(value, indent=1, sort_keys=False) if not isinstance(value, str) else value
    if len(text) > MAX_BLOCK_CHARS:
        text = text[:MAX_BLOCK_CHARS] + f"\n... ({len(text) - MAX_BLOCK_CHARS} more characters in report.json)"
    return f"<pre>{escape(text)}</pre>"


_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg);
 margin:0 auto;max-width:1280px;padding:16px 24px 48px}
h1{font-size:24px;margin:8px 0}h2{font-size:19px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:16px;margin:0 0 8px}h4{margin:4px 0}
code,pre{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:12.5px}
pre{background:var(--soft);padding:8px;overflow:auto;max-height:22em;border-radius:4px}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
.muted{color:var(--muted)}.small{font-size:12px}.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.lead{font-size:15px}.verdict{font-weight:600;padding:2px 8px;border-radius:4px;color:#fff}
.verdict.ok{background:#1a7f37}.verdict.bad{background:#cf222e}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0}
.chip{border:1px solid var(--c);border-left:6px solid var(--c);background:#fff;border-radius:4px;padding:3px 9px;
 font:inherit;cursor:pointer}.chip:disabled{opacity:.45;cursor:default}
.badge{display:inline-block;background:var(--c);color:#fff;border-radius:10px;padding:0 8px;font-size:12px;
 font-weight:600;white-space:nowrap;vertical-align:middle}.badge.small{font-size:10.5px;padding:0 6px}
.key{display:inline-block;margin-left:10px}.key::before{content:"";display:inline-block;width:11px;height:11px;
 background:var(--c);border-radius:2px;margin-right:4px;vertical-align:-1px}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 14px;margin:8px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}dl.facts ul{margin:0;padding-left:18px}
table.grid{border-collapse:collapse;width:100%;margin:8px 0}
table.grid th,table.grid td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
table.grid thead th{background:var(--soft);position:sticky;top:0}
table.env th{text-align:left;font-weight:normal;color:var(--muted);padding-right:12px}
#claims td.fig{font-size:12.5px;font-variant-numeric:tabular-nums}
.filters{display:flex;gap:16px;align-items:center;margin:6px 0}.filters select{font:inherit;padding:2px 4px}
.graph-box{border:1px solid var(--line);border-radius:6px;background:#fff;overflow:hidden;touch-action:none}
svg.depgraph{display:block;width:100%;height:auto;max-height:80vh;cursor:grab;user-select:none}
svg.depgraph.panning{cursor:grabbing}
svg.depgraph text{font:12px "DejaVu Sans Mono",ui-monospace,monospace;fill:#fff;pointer-events:none}
svg.depgraph .lane-bg{fill:#f6f8fa}svg.depgraph .lane-bg.odd{fill:#eef1f4}
svg.depgraph text.lane-title{fill:var(--muted);font:600 12px system-ui,sans-serif}
svg.depgraph .edge{fill:none;stroke-width:1.2;opacity:.45;pointer-events:none}
svg.depgraph .shape{stroke:#fff;stroke-width:1}svg.depgraph .shape.dashed{stroke:#1f2328;stroke-dasharray:4 3;fill-opacity:.55}
svg.depgraph .chain-mark{fill:none;stroke:#1a7f37;stroke-width:2}svg.depgraph text.chain-tick{fill:#fff;font-weight:700}
svg.depgraph a.node:hover .shape{stroke:#000;stroke-width:2}
svg.depgraph.focus a.node{opacity:.18}svg.depgraph.focus .edge{opacity:.06}
svg.depgraph.focus a.node.sel,svg.depgraph.focus a.node.up,svg.depgraph.focus a.node.down{opacity:1}
svg.depgraph a.node.sel .shape{stroke:#000;stroke-width:3}
svg.depgraph a.node.up .shape{stroke:#0969da;stroke-width:3}svg.depgraph a.node.down .shape{stroke:#bf3989;stroke-width:3}
svg.depgraph.focus .edge.up{opacity:1;stroke:#0969da;stroke-width:2}svg.depgraph.focus .edge.down{opacity:1;stroke:#bf3989;stroke-width:2}
.graph-tools{display:flex;gap:6px;align-items:center;margin:6px 0}
.graph-tools button{font:inherit;min-width:34px;padding:1px 8px;border:1px solid var(--line);border-radius:4px;background:#fff;cursor:pointer}
.shape-key{display:inline-flex;align-items:center;gap:4px;margin-right:12px}.shape-key svg{vertical-align:middle}
.table-scroll{overflow-x:auto;max-width:100%}
section.claim{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:14px 0;scroll-margin-top:8px}
section.claim:target{box-shadow:0 0 0 3px #0969da55}
.statement{font-size:17px;padding:6px 0;overflow-x:auto;display:flex;flex-wrap:wrap;justify-content:center;align-items:baseline;
 column-gap:2.4em;row-gap:6px;max-width:100%}
.statement math{margin:0}.statement p.prose{margin:0;font-size:15px;max-width:100%}
math.ascii{font-size:1.05em}
.dirty{background:#fff8c5;padding:0 4px;border-radius:3px}.wider{color:#9a6700;margin:2px 0}
p.result{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:12.5px;background:var(--soft);padding:4px 6px;
 overflow-wrap:anywhere}
.ev-inconclusive{background:#fff8c5;color:#7d4e00}.ev-answered{background:#ddf4ff;color:#0a5c9e}
math{font-family:"STIX Two Math","Latin Modern Math","DejaVu Math TeX Gyre",math}
details.source code{display:block;white-space:pre-wrap;background:var(--soft);padding:6px;border-radius:4px}
details.source summary{color:var(--muted);font-size:12px;cursor:pointer}
.ev{font-size:12px;font-weight:600;padding:0 6px;border-radius:3px;white-space:nowrap}
.ev-passed,.ev-supported{background:#dafbe1;color:#116329}.ev-failed,.ev-not_supported{background:#ffebe9;color:#a40e26}
.ev-error{background:#fbefff;color:#6e40c9}
.gauge{display:inline-block;width:70px;height:8px;background:var(--soft);border:1px solid var(--line);border-radius:4px;
 vertical-align:middle;overflow:hidden}.gauge span{display:block;height:100%;background:#2da44e}.gauge.over span{background:#cf222e}
.problem{border-left:4px solid #cf222e;background:#fff8f7;padding:6px 12px;margin:8px 0}
code.replay{background:var(--soft);padding:2px 6px;border-radius:4px;overflow-wrap:anywhere}
.plots{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0}
.answer{max-width:100%;overflow-x:auto}.answer-table{border-collapse:collapse;margin:6px 0}.answer-table td,.answer-table th{border:1px solid var(--line);padding:2px 6px;text-align:left}
figure.plot-figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:4px;background:#fff;flex:0 1 540px}
figure.plot-figure[data-plot=montecarlo]{flex-basis:860px}
figure.plot-figure svg.plot{display:block;width:100%;height:auto}
tr.row-failed,tr.row-not_supported,tr.row-error{background:#fff8f7}
figcaption{font-size:12px;color:var(--muted);text-align:center}
.legend{display:flex;flex-wrap:wrap;justify-content:center;gap:2px 14px;font-size:12px;margin:2px 6px}
.key-entry i{display:inline-block;position:relative;width:22px;height:0;margin-right:5px;vertical-align:middle}
.key-entry b{position:absolute;left:8px;top:-4px;width:6px;height:6px;border-radius:50%}
.plot-error{border-color:#cf222e}
code.latex-fallback{background:#fff8c5;padding:2px 4px}
.notes{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:4px 14px}
.nc{margin:6px 0}
[hidden]{display:none!important}
@media (max-width:760px){
 body{padding:8px 8px 32px}.statement{font-size:12.5px;column-gap:1.2em}
 #claims th:nth-child(3),#claims td:nth-child(3),#claims th:nth-child(5),#claims td:nth-child(5),
 #claims th:nth-child(6),#claims td:nth-child(6){display:none}
 table.grid td,table.grid th{overflow-wrap:anywhere}
 table.evidence th:nth-child(2),table.evidence td:nth-child(2),table.evidence th:nth-child(6),
 table.evidence td:nth-child(6),table.evidence th:nth-child(7),table.evidence td:nth-child(7),
 table.evidence th:nth-child(8),table.evidence td:nth-child(8){display:none}
 table.grid th,table.grid td{padding:3px 4px}td code,h3 code{overflow-wrap:anywhere}
 dl.facts{grid-template-columns:minmax(0,1fr)}dl.facts dt{margin-top:4px}dl.facts dd{min-width:0;overflow-wrap:anywhere}
 section.claim{padding:8px}figure.plot-figure{flex-basis:100%}
}
@media print{.filters,.chips{display:none}section.claim{break-inside:avoid}}
"""

_JS = """
(function(){
  var s=document.getElementById('filter-status'), k=document.getElementById('filter-kind');
  function match(el){return (!s.value||el.dataset.status===s.value)&&(!k.value||el.dataset.kind===k.value);}
  function apply(){
    var n=0;
    document.querySelectorAll('#claims tbody tr').forEach(function(tr){var m=match(tr);tr.hidden=!m;if(m)n++;});
    document.querySelectorAll('section.claim').forEach(function(sec){sec.hidden=!match(sec);});
    document.getElementById('shown').textContent=n;
  }
  s.addEventListener('change',apply); k.addEventListener('change',apply);
  s.form.addEventListener('submit',function(ev){ev.preventDefault();});
  document.querySelectorAll('[data-filter-status]').forEach(function(b){
    b.addEventListener('click',function(){s.value=(s.value===b.dataset.filterStatus)?'':b.dataset.filterStatus;apply();});
  });
  function reveal(){
    var id=decodeURIComponent(location.hash.slice(1)), el=id&&document.getElementById(id);
    if(el&&el.hidden){s.value='';k.value='';apply();el.scrollIntoView();}
  }
  window.addEventListener('hashchange',reveal);
  apply();
})();
(function(){
  // A statement piece wider than its box is scaled down to fit (MathML does not wrap).
  function fit(){
    document.querySelectorAll('.statement > math').forEach(function(m){
      m.style.fontSize='';
      var room=m.parentElement.clientWidth-2, w=m.getBoundingClientRect().width;
      if(w>room&&w>0) m.style.fontSize=Math.max(55,Math.floor(room/w*100))+'%';
    });
  }
  fit(); window.addEventListener('resize',fit);
})();
(function(){
  var svg=document.querySelector('svg.depgraph'); if(!svg) return;
  var W=+svg.dataset.width, H=+svg.dataset.height, view=[0,0,W,H], info=document.getElementById('graph-info');
  function set(v){view=v;svg.setAttribute('viewBox',v.map(function(x){return x.toFixed(1);}).join(' '));}
  function zoom(f,cx,cy){
    var w=Math.min(W*1.5,Math.max(W/12,view[2]*f)), h=w*H/W;
    if(cx===undefined){cx=view[0]+view[2]/2;cy=view[1]+view[3]/2;}
    set([cx-(cx-view[0])*w/view[2], cy-(cy-view[1])*h/view[3], w, h]);
  }
  function point(ev){var r=svg.getBoundingClientRect();
    return [view[0]+(ev.clientX-r.left)/r.width*view[2], view[1]+(ev.clientY-r.top)/r.height*view[3]];}
  svg.addEventListener('wheel',function(ev){ev.preventDefault();var p=point(ev);zoom(ev.deltaY>0?1.2:1/1.2,p[0],p[1]);},{passive:false});
  document.querySelectorAll('[data-zoom]').forEach(function(b){b.addEventListener('click',function(){
    var z=b.dataset.zoom; if(z==='reset') set([0,0,W,H]); else zoom(z==='in'?1/1.4:1.4);});});
  var drag=null, moved=false;
  svg.addEventListener('pointerdown',function(ev){drag=[ev.clientX,ev.clientY,view[0],view[1]];moved=false;});
  window.addEventListener('pointermove',function(ev){
    if(!drag) return; var r=svg.getBoundingClientRect(), dx=ev.clientX-drag[0], dy=ev.clientY-drag[1];
    if(Math.abs(dx)+Math.abs(dy)>4){moved=true;svg.classList.add('panning');}
    if(moved) set([drag[2]-dx/r.width*view[2], drag[3]-dy/r.height*view[3], view[2], view[3]]);});
  window.addEventListener('pointerup',function(){drag=null;svg.classList.remove('panning');});
  var nodes={}, users={};
  svg.querySelectorAll('a.node').forEach(function(a){nodes[a.dataset.id]=a;users[a.dataset.id]=[];});
  svg.querySelectorAll('a.node').forEach(function(a){(a.dataset.deps?a.dataset.deps.split(' '):[]).forEach(function(d){
    if(users[d]) users[d].push(a.dataset.id);});});
  function closure(start,next){var seen={},todo=next(start).slice();
    while(todo.length){var x=todo.pop(); if(seen[x]||x===start) continue; seen[x]=1; todo=todo.concat(next(x));}
    return Object.keys(seen);}
  function depsOf(id){var a=nodes[id];return a&&a.dataset.deps?a.dataset.deps.split(' ').filter(function(d){return nodes[d];}):[];}
  var selected=null;
  function clear(){selected=null;svg.classList.remove('focus');
    svg.querySelectorAll('.sel,.up,.down').forEach(function(e){e.classList.remove('sel','up','down');});
    info.textContent='no claim selected';}
  function select(id){
    clear(); selected=id; svg.classList.add('focus'); nodes[id].classList.add('sel');
    var up=closure(id,depsOf), down=closure(id,function(x){return users[x]||[];}), U={}, D={};
    up.forEach(function(x){nodes[x].classList.add('up');U[x]=1;});
    down.forEach(function(x){nodes[x].classList.add('down');D[x]=1;});
    svg.querySelectorAll('.edge').forEach(function(e){
      var f=e.dataset.from,t=e.dataset.to;
      if((U[f]||f===id)&&(U[t]||t===id)) e.classList.add('up');
      else if((D[t]||t===id)&&(D[f]||f===id)) e.classList.add('down');});
    info.textContent=id+': uses '+up.length+' claim(s), used by '+down.length+
      (nodes[id].dataset.chain==='verified'?'; verified with everything it depends on':'')+' (click again to open it)';
  }
  svg.querySelectorAll('a.node').forEach(function(a){a.addEventListener('click',function(ev){
    if(moved){ev.preventDefault();return;}
    if(selected!==a.dataset.id){ev.preventDefault();select(a.dataset.id);}});});
  svg.addEventListener('click',function(ev){if(!moved&&!ev.target.closest('a.node')) clear();});
  window.depgraph={select:select,clear:clear,zoom:zoom,view:function(){return view.slice();}};
})();
"""


#: The page's Content-Security-Policy: its one inline script (by hash) runs,
#: nothing is loaded from anywhere (no network, no file, no frame, no form),
#: and inline styles are allowed (they can load nothing: every fetch
#: directive is 'none'). Whatever a claim's author wrote, opening the report
#: runs none of it.
CONTENT_SECURITY_POLICY = (
    f"default-src 'none'; script-src '{_script_hash(_JS)}'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'"
)
