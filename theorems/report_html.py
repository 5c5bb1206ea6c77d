"""The HTML report: one self-contained file rendered from the JSON report.

It works offline and loads nothing: the CSS and the small filtering script
are inline, every statement's LaTeX is rendered as MathML (latex2mathml),
plots are inline SVG (:mod:`theorems.plots`) and the page holds no URL at
all (inline SVG and MathML take their namespaces from the HTML parser, so
even the ``xmlns`` declarations go).

A statement that cannot be converted falls back to its escaped LaTeX source
in a ``<code class="latex-fallback">``, listed at the top of the page and by
:func:`math_fallbacks` (the CLI prints them). Titles, assumptions and check
descriptions may hold inline math between ``$...$``; it is rendered the same
way.
"""

from __future__ import annotations

import functools
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html import escape
from typing import Any

from theorems.plots import STATUS_COLOURS, Plot, dependency_graph_svg, evidence_plots, ladder_all_zero

__all__ = ["MathFallback", "latex_to_mathml", "math_fallbacks", "render_html"]

#: Order of statuses in the summary and the filter (the order of ``Status``).
STATUS_ORDER = ("VERIFIED", "SUPPORTED", "ANSWERED", "INCONCLUSIVE", "NOT SUPPORTED", "FAILED", "ERROR",
                "UNDERSPECIFIED", "BLOCKED")

#: Evidence statuses that call for the counterexample and replay box.
_BAD_EVIDENCE = ("failed", "error", "not_supported")

#: Longest counterexample, witness or traceback shown in full, characters.
MAX_BLOCK_CHARS = 4000

#: Which evidence a claim's "key figure" comes from, most telling first.
_KEY_KIND_ORDER = ("simulation", "montecarlo", "counterexample", "precise", "property", "expectation", "symbolic")

_LEFTOVER_COMMAND = re.compile(r"\\[A-Za-z]+")

#: Standard LaTeX that latex2mathml does not know, rewritten before conversion
#: (``\arg`` as in ``\arg\min``; equation bookkeeping that renders as nothing).
_LATEX_REWRITES = (
    (re.compile(r"\\arg(?![A-Za-z])"), r"\\operatorname{arg}"),
    (re.compile(r"\\nonumber(?![A-Za-z])|\\label\{[^{}]*\}"), ""),
)
_INLINE_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$")


@dataclass(frozen=True)
class MathFallback:
    """A piece of LaTeX shown as source because it could not be converted."""

    claim: str
    where: str
    latex: str
    error: str


@functools.lru_cache(maxsize=4096)
def latex_to_mathml(latex: str, *, display: bool = False) -> tuple[str, str | None]:
    """``(markup, error)``: MathML for ``latex``, or, when it cannot be
    converted faithfully, escaped source in ``<code class="latex-fallback">``
    and the reason.

    The conversion is refused (so the reader sees the source, not a wrong
    formula) when latex2mathml raises, when its output is not well-formed
    XML, when a command it did not know is left in the output, or when the
    braces of the source do not balance.

    >>> markup, error = latex_to_mathml(r"\\frac{1}{M}")
    >>> error is None and markup.startswith("<math") and "<mfrac>" in markup
    True
    >>> latex_to_mathml(r"\\frac{1}{")[1] is not None
    True
    """
    import latex2mathml.converter

    def fallback(why: str) -> tuple[str, str]:
        return f'<code class="latex-fallback" title="{escape(why)}">{escape(latex)}</code>', why

    depth = 0
    for i, ch in enumerate(latex):
        if ch in "{}" and (i == 0 or latex[i - 1] != "\\"):
            depth += 1 if ch == "{" else -1
            if depth < 0:
                return fallback("unbalanced braces: a '}' closes nothing")
    if depth:
        return fallback(f"unbalanced braces: {depth} '{{' left open")
    source = latex
    for pattern, repl in _LATEX_REWRITES:
        source = pattern.sub(repl, source)
    try:
        markup = latex2mathml.converter.convert(source, display="block" if display else "inline")
    except Exception as exc:  # noqa: BLE001 - any converter failure means: show the source
        return fallback(f"latex2mathml could not convert it ({type(exc).__name__}: {exc})".replace(" ()", ""))
    try:
        tree = ET.fromstring(markup)
    except ET.ParseError as exc:
        return fallback(f"the converted MathML is not well-formed ({exc})")
    for node in tree.iter():
        left = _LEFTOVER_COMMAND.search(node.text or "")
        if left:
            return fallback(f"unknown command {left.group(0)}")
    # The HTML parser puts <math> in the MathML namespace by itself.
    markup = markup.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "", 1)
    return markup, None


class _Renderer:
    def __init__(self, report: dict):
        self.report = report
        self.fallbacks: list[MathFallback] = []
        self.plot_count = 0

    # -- text helpers -----------------------------------------------------
    def math(self, latex: str, *, claim: str, where: str, display: bool) -> str:
        markup, error = latex_to_mathml(latex, display=display)
        if error:
            fallback = MathFallback(claim, where, latex, error)
            if fallback not in self.fallbacks:
                self.fallbacks.append(fallback)
        return markup

    def rich(self, text: str, *, claim: str, where: str) -> str:
        """Escaped text with ``$...$`` pieces rendered as inline MathML, and
        the ASCII-math groups ``x^{...}`` and ``x_{...}`` of plain text as
        superscripts and subscripts."""
        out, last = [], 0
        for m in _INLINE_MATH.finditer(text or ""):
            out.append(_plain(text[last:m.start()]))
            out.append(self.math(m.group(1), claim=claim, where=where, display=False))
            last = m.end()
        out.append(_plain((text or "")[last:]))
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
        verdict = ('<span class="verdict ok">OK: no claim failed, errored or is blocked</span>' if r["ok"]
                   else '<span class="verdict bad">NOT OK: a claim failed, errored or is blocked</span>')
        prof = r["profile"]
        profile_bits = ", ".join(f"{k} {escape(str(v))}" for k, v in prof.items() if k != "name")
        packages = "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>"
                           for k, v in env.get("packages", {}).items() if v)
        blas = ", ".join(f"{escape(str(k))} {escape(str(v))}" for k, v in (env.get("blas") or {}).items())
        sel = r.get("selection") or {}
        sel_text = "; ".join(f"{escape(k)}: {escape(', '.join(map(str, v)))}" for k, v in sel.items() if v) or "all claims"
        tool = r.get("tool") or {}
        return f"""
<header>
  <h1>Theorem verification report</h1>
  <p class="lead">{verdict} <span class="muted">{total} claims, {checks} checks, in {r['duration_s']:.1f} s</span></p>
  <div class="chips" role="group" aria-label="claims per status">{chips}</div>
  <dl class="facts">
    <dt>profile</dt><dd><b>{escape(prof['name'])}</b> <span class="muted">({profile_bits})</span></dd>
    <dt>seed</dt><dd>{r['seed']}</dd>
    <dt>time taken</dt><dd>{r['duration_s']:.2f} s</dd>
    <dt>generated</dt><dd>{escape(r['generated_at'])} by {escape(str(tool.get('name', 'theorems')))} {escape(str(tool.get('version', '')))}</dd>
    <dt>selection</dt><dd>{sel_text}</dd>
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
            return (kind, -_closeness(e))

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
                f'<td>{self.rich(c["title"], claim=c["id"], where="title")}</td>'
                f'<td>{escape(c["kind"])}</td><td>{_badge(c["status"])}</td>'
                f'<td class="fig">{self.key_figure(c)}</td><td class="num">{c["seconds"]:.2f}</td></tr>'
            )
        return f"""
<section id="summary">
  <h2>Claims</h2>
  <form class="filters" onsubmit="return false">
    <label>status <select id="filter-status"><option value="">all</option>{status_opts}</select></label>
    <label>kind <select id="filter-kind"><option value="">all</option>{kind_opts}</select></label>
    <span class="muted">showing <b id="shown">{len(claims)}</b> of {len(claims)}</span>
  </form>
  <table id="claims" class="grid">
    <thead><tr><th>claim</th><th>title</th><th>kind</th><th>status</th><th>key figure</th><th>s</th></tr></thead>
    <tbody>{''.join(rows)}</tbody>
  </table>
</section>"""

    def graph(self) -> str:
        claims = self.report["claims"]
        edges = sum(len(c["depends_on"]) for c in claims)
        legend = "".join(f'<span class="key" style="--c:{STATUS_COLOURS[s]}">{escape(s)}</span>'
                         for s in STATUS_ORDER if self.report["counts"].get(s))
        return f"""
<section id="graph">
  <h2>Dependencies</h2>
  <p class="muted">{edges} dependencies. A claim stands right of every claim it depends on; an edge from a claim
  that did not pass is drawn in its colour. Click a claim to go to it. {legend}</p>
  <div class="scroll">{dependency_graph_svg(claims)}</div>
</section>"""

    def evidence_table(self, c: dict) -> str:
        rows = []
        for e in c["evidence"]:
            desc = e.get("description") or ""
            where = f"check {e['check']}"
            rows.append(
                f'<tr class="row-{escape(e["status"])}"><td><b>{escape(e["check"])}</b>'
                + (f'<div class="muted small">{self.rich(desc, claim=c["id"], where=where)}</div>'
                   if desc else "")
                + f'</td><td>{escape(e["kind"])}</td><td>{_ev_badge(e["status"])}</td>'
                f'<td class="num">{_num(e["figure"])}</td>'
                f'<td class="num">{_cmp(e.get("comparison", "<="))} {_num(e["threshold"])}</td>'
                f'<td>{_gauge(e)}</td><td class="num">{e["cases"]}</td>'
                f'<td class="num">{e["seconds"]:.2f}</td>'
                f'<td class="small">{self.rich(e.get("detail") or "", claim=c["id"], where=where)}</td></tr>'
            )
        return ('<table class="grid evidence"><thead><tr><th>check</th><th>evidence</th><th>status</th>'
                '<th>figure</th><th>threshold</th><th>figure / threshold</th><th>cases</th><th>s</th>'
                f'<th>detail</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')

    def problems(self, c: dict) -> str:
        out = []
        for e in c["evidence"]:
            if e["status"] not in _BAD_EVIDENCE:
                continue
            detail = self.rich(e.get("detail") or "", claim=c["id"], where="check " + e["check"])
            parts = [f'<h4>{escape(e["check"])}: {escape(e["status"].replace("_", " "))}</h4>', f"<p>{detail}</p>"]
            if e.get("counterexample") is not None:
                parts.append("<p>Minimal counterexample:</p>" + _block(e["counterexample"]))
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
            for p in evidence_plots(e, salt=f"{c['id']}:{e['check']}"):
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

    def negative_control(self, c: dict) -> str:
        nc = c.get("negative_control")
        if not nc or nc.get("description") is None:  # none (an underspecified claim)
            return ""
        desc = self.rich(nc.get("description") or "", claim=c["id"], where="negative control")
        if nc.get("caught") is None:
            return f'<p class="nc"><b>Negative control</b> (not run; use <code>--controls</code>): {desc}</p>'
        verdict = ('<span class="ev ev-passed">caught</span> the claim comes out '
                   f'{escape(str(nc.get("status")))} on it' if nc["caught"]
                   else f'<span class="ev ev-failed">NOT caught</span>: the claim still comes out '
                        f'{escape(str(nc.get("status")))} on the wrong variant')
        checks = ", ".join(f"{escape(k)}: {escape(v)}" for k, v in (nc.get("checks") or {}).items())
        return f'<p class="nc"><b>Negative control</b>: {desc}. {verdict} <span class="muted">({checks})</span></p>'

    def claim(self, c: dict) -> str:
        cid = c["id"]
        status_of = {x["id"]: x["status"] for x in self.report["claims"]}
        deps = ", ".join(
            f'<a href="#claim-{escape(d)}"><code>{escape(d)}</code></a>'
            + (f" {_badge(status_of[d], small=True)}" if d in status_of else ' <span class="muted">(not in this run)</span>')
            for d in c["depends_on"]
        ) or '<span class="muted">none</span>'
        assumptions = "".join(f"<li>{self.rich(a, claim=cid, where='assumption')}</li>"
                              for a in c.get("assumptions") or [])
        blocked = (f'<dt>blocked by</dt><dd>{", ".join(f"<code>{escape(b)}</code>" for b in c["blocked_by"])}</dd>'
                   if c.get("blocked_by") else "")
        reason = (f'<dt>why it cannot be checked</dt><dd>{self.rich(c["reason"], claim=cid, where="reason")}</dd>'
                  if c.get("reason") else "")
        statement = self.math(c["statement"], claim=cid, where="statement", display=True)
        body = [
            f'<div class="statement">{statement}</div>',
            f'<details class="source"><summary>LaTeX source</summary><code>{escape(c["statement"])}</code></details>',
            f'<dl class="facts"><dt>kind</dt><dd>{escape(c["kind"])}</dd><dt>source</dt><dd>{self.rich(c["source"], claim=cid, where="source")}</dd>'
            f'<dt>assumptions</dt><dd>{f"<ul>{assumptions}</ul>" if assumptions else "<span class=muted>none stated</span>"}</dd>'
            f'<dt>depends on</dt><dd>{deps}</dd>{blocked}{reason}</dl>',
        ]
        if c["evidence"]:
            body.append(self.evidence_table(c))
        body.append(self.problems(c))
        body.append(self.plots(c))
        body.append(self.negative_control(c))
        return (f'<section class="claim" id="claim-{escape(cid)}" data-status="{escape(c["status"])}" '
                f'data-kind="{escape(c["kind"])}"><h3><code>{escape(cid)}</code> '
                f'{self.rich(c["title"], claim=cid, where="title")} {_badge(c["status"])}'
                f'<span class="muted small"> {c["seconds"]:.2f} s</span></h3>{"".join(body)}</section>')

    def notes(self) -> str:
        if not self.fallbacks:
            return ""
        items = "".join(f"<li><a href=\"#claim-{escape(f.claim)}\"><code>{escape(f.claim)}</code></a> "
                        f"({escape(f.where)}): {escape(f.error)}</li>" for f in self.fallbacks)
        return (f'<section id="math-fallbacks" class="notes"><h2>Rendering notes</h2><p>{len(self.fallbacks)} piece(s) of '
                f"LaTeX could not be rendered and are shown as source:</p><ul>{items}</ul></section>")

    def render(self) -> str:
        claims_html = "".join(self.claim(c) for c in self.report["claims"])
        head = self.header()
        table = self.table()
        graph = self.graph()
        notes = self.notes()
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>Theorem verification report: {escape(self.report["profile"]["name"])}, '
            f'{sum(self.report["counts"].values())} claims</title>'
            f"<style>{_CSS}</style></head><body>{head}{notes}{table}{graph}"
            f'<section id="details"><h2>Claims in detail</h2>{claims_html}</section>'
            f'<footer class="muted small">{self.plot_count} plots. Rendered from report.json '
            f'(schema {escape(self.report["schema_version"])}).</footer>'
            f"<script>{_JS}</script></body></html>\n"
        )


def render_html(report: dict) -> str:
    """The HTML report of a JSON report (see the module docstring)."""
    return _Renderer(report).render()


def math_fallbacks(report: dict) -> list[MathFallback]:
    """Every piece of LaTeX in ``report`` that the HTML shows as source."""
    r = _Renderer(report)
    for c in report["claims"]:
        r.math(c["statement"], claim=c["id"], where="statement", display=True)
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


def _closeness(e: dict) -> float:
    """How close a figure came to its threshold: figure / threshold for a
    ``<=`` check against a positive threshold, else 0 (unknown)."""
    f, t = e.get("figure"), e.get("threshold")
    if isinstance(f, (int, float)) and isinstance(t, (int, float)) and t > 0 and f >= 0:
        if e.get("comparison", "<=") in ("<=", "<"):
            return f / t
        if e.get("comparison") in (">=", ">"):
            return t / f if f > 0 else float("inf")
    return 0.0


def _gauge(e: dict) -> str:
    f, t = e.get("figure"), e.get("threshold")
    if not (isinstance(f, (int, float)) and isinstance(t, (int, float)) and t > 0 and f >= 0):
        return ""
    ratio = _closeness(e)
    width = max(0.0, min(ratio, 1.0)) * 100
    cls = "over" if ratio > 1 else ""
    return (f'<span class="gauge {cls}" title="figure / threshold = {ratio:.3g}">'
            f'<span style="width:{width:.1f}%"></span></span> <span class="small">{ratio:.2g}</span>')


def _badge(status: str, *, small: bool = False) -> str:
    colour = STATUS_COLOURS.get(status, "#6e7781")
    return f'<span class="badge{" small" if small else ""}" style="--c:{colour}">{escape(status)}</span>'


def _ev_badge(status: str) -> str:
    return f'<span class="ev ev-{escape(status)}">{escape(status.replace("_", " "))}</span>'


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
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}dl.facts ul{margin:0;padding-left:18px}
table.grid{border-collapse:collapse;width:100%;margin:8px 0}
table.grid th,table.grid td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
table.grid thead th{background:var(--soft);position:sticky;top:0}
table.env th{text-align:left;font-weight:normal;color:var(--muted);padding-right:12px}
#claims td.fig{font-size:12.5px;font-variant-numeric:tabular-nums}
.filters{display:flex;gap:16px;align-items:center;margin:6px 0}.filters select{font:inherit;padding:2px 4px}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:6px;padding:4px;background:#fff}
svg.depgraph text{font:12px "DejaVu Sans Mono",ui-monospace,monospace;fill:#fff}
svg.depgraph text.layer{fill:var(--muted);font-family:system-ui,sans-serif}
svg.depgraph .edge{fill:none;stroke-width:1.3;opacity:.75}svg.depgraph a:hover rect{stroke:#000;stroke-width:2}
section.claim{border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:14px 0;scroll-margin-top:8px}
section.claim:target{box-shadow:0 0 0 3px #0969da55}
.statement{font-size:17px;overflow-x:auto;padding:6px 0}
math{font-family:"STIX Two Math","Latin Modern Math","DejaVu Math TeX Gyre",math}
details.source code{display:block;white-space:pre-wrap;background:var(--soft);padding:6px;border-radius:4px}
details.source summary{color:var(--muted);font-size:12px;cursor:pointer}
.ev{font-size:12px;font-weight:600;padding:0 6px;border-radius:3px;white-space:nowrap}
.ev-passed,.ev-supported{background:#dafbe1;color:#116329}.ev-failed,.ev-not_supported{background:#ffebe9;color:#a40e26}
.ev-error{background:#fbefff;color:#6e40c9}
.gauge{display:inline-block;width:70px;height:8px;background:var(--soft);border:1px solid var(--line);border-radius:4px;
 vertical-align:middle;overflow:hidden}.gauge span{display:block;height:100%;background:#2da44e}.gauge.over span{background:#cf222e}
.problem{border-left:4px solid #cf222e;background:#fff8f7;padding:6px 12px;margin:8px 0}
code.replay{background:var(--soft);padding:2px 6px;border-radius:4px}
.plots{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0}
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
"""
