"""The reports a person and a CI read: report.html (self-contained, MathML,
plots, a section per claim, the dependency graph), junit.xml, the comparison
of two reports, the progress display, and the schema every report obeys.

Most tests render a small *demo run*: claims made here whose checks use the
real evidence checkers on cheap formulas, chosen so that one run holds every
status and every kind of plot (sweep, Monte Carlo, precision ladder, an
explicit ``data["plot"]``), a failure with its counterexample and replay, a
crash, a blocked and an underspecified claim, and negative controls caught
and not caught.
"""

from __future__ import annotations

import copy
import io
import json
import re
import xml.etree.ElementTree as ET
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from theorems.cli import main
from theorems.reporting.compare import (SLOWER_MIN_SECONDS, SLOWER_RATIO, ReportError, compare_reports,
                                       evidence_changes, load_report)
from hypothesis import strategies as st

from theorems.evidence import expectation, montecarlo, precise, property as property_ev, simulation
from theorems.evidence._common import make
from theorems.reporting.junit import junit_cases, render_junit, result_message
from theorems.core.model import Check, Claim, ClaimKind, EvidenceKind, EvidenceStatus, NegativeControl, Status
from theorems.reporting.plots import ancestors, chain_status, dependency_graph_svg, evidence_plots, simulation_mode, spec_plot
from theorems.core.profiles import get_profile
from theorems.reporting.progress import Progress, plain_line
from theorems.core.registry import load_claims
from theorems.reporting.report import (
    MAX_MARKDOWN_CHARS,
    REPORT_FILES,
    build_report,
    command_line,
    environment,
    render_markdown,
    source_state,
    validate_report,
    write_reports,
)
from theorems.reporting.html import (
    ascii_math_spans,
    ascii_to_latex,
    latex_to_mathml,
    math_fallbacks,
    render_html,
    split_statement,
)
from theorems.core.runner import run, run_check

# ---------------------------------------------------------------------------
# the demo run

#: A wrong SNR formula (constant 1) for the negative controls.
CONSTANT_SNR = NegativeControl("SNR = 1 whatever the leverage", {"snr": lambda h: 0 * h + 1})

#: demo.trend's control: only its sweep reads a formula, its other checks measure fixed things.
TREND_CONTROL = NegativeControl("SNR = 1 whatever the leverage", {"snr": lambda h: 0 * h + 1}, not_applicable={
    name: f"{what}: no formula under test" for name, what in (
        ("moments", "second moments of N(0, 1)"), ("ladder", "sin(k pi) at two fractions"),
        ("zeros", "a ladder of zeros"), ("drawn", "a fixed plot spec"))})

PLOT_SPEC = {
    "title": "margin against load",
    "x_label": "n / d",
    "y_label": "margin",
    "xscale": "linear",
    "yscale": "linear",
    "series": [
        {"label": "measured", "x": [0.5, 1.0, 1.5, 2.0], "y": [0.9, 0.6, 0.2, -0.1], "style": "line",
         "yerr": [0.05, 0.05, 0.04, 0.04]},
        {"label": "predicted", "x": [0.5, 1.0, 1.5, 2.0], "y": [0.95, 0.55, 0.25, -0.05], "style": "points"},
    ],
    "hlines": [{"y": 0.0, "label": "zero margin"}],
    "vlines": [{"x": 1.7, "label": "threshold"}],
}


def _sweep(ctx):
    # snr(1/d) = 1/(d-1) falls like 1/d: a supported trend.
    return simulation.check(ctx, [8, 16, 32, 64], lambda d, rng: float(ctx.impl.snr(1.0 / d)),
                            simulation.shrinks(max_slope=-0.5, max_last_over_first=0.5), label="snr at h = 1/d")


def _mc(ctx):
    return montecarlo.check(ctx, lambda rng, n: rng.standard_normal((n, 3)) ** 2, [1.0, 1.0, 1.0],
                            n=8192, label="second moments of N(0, 1)")


def _ladder(ctx):
    def residual(x):  # sin(k pi) = 0: a residual at rounding level, falling with precision
        return abs(mpmath.sin(mpmath.pi * x.denominator)), 1

    return precise.check(ctx, [("one third", Fraction(1, 3)), ("two sevenths", Fraction(2, 7))], residual)


def _zero_ladder(ctx):
    return precise.check(ctx, [("integers", 3)], lambda x: (mpmath.mpf(0), 1), falls=False)


def _with_plot(ctx):
    return make(ctx, EvidenceKind.SIMULATION, True, seconds=0.0, figure=0.2, threshold=0.5,
                passed=EvidenceStatus.SUPPORTED, failed=EvidenceStatus.NOT_SUPPORTED,
                cases=4, detail="an explicit plot", data={"plot": PLOT_SPEC})


def _wrong(ctx):
    ok = float(ctx.impl.snr(0.5)) == 3.0  # false: snr(1/2) = 1
    return make(ctx, EvidenceKind.SYMBOLIC, ok, seconds=0.0, figure=2.0, threshold=0.0, cases=1,
                counterexample={"h": "1/2", "snr": 1, "claimed": 3}, detail="snr(1/2) == 3")


def _crash(ctx):
    raise RuntimeError("the check itself is broken")


def _demo_claims() -> list[Claim]:
    sweep = Check("sweep", EvidenceKind.SIMULATION, _sweep, "snr at $h = 1/d$ falls with $d$")
    return [
        Claim("demo.trend", r"SNR falls like $1/d$ when $h = 1/d$",
              r"\mathrm{SNR}(h) = \frac{h}{1-h},\quad \mathrm{SNR}(1/d) \to 0 \quad (d \to \infty)",
              ClaimKind.APPROXIMATION, "demo, section 1",
              checks=(sweep, Check("moments", EvidenceKind.MONTECARLO, _mc, "Monte Carlo second moments"),
                      Check("ladder", EvidenceKind.PRECISE, _ladder, "a ladder that falls"),
                      Check("zeros", EvidenceKind.PRECISE, _zero_ladder, "a ladder of exact zeros"),
                      Check("drawn", EvidenceKind.SIMULATION, _with_plot, "an explicit plot spec")),
              assumptions=(r"keys with leverage $h_j \le 1$", "plain text with K^+ and v_i"),
              negative_control=TREND_CONTROL),
        Claim("demo.wrong", "A false identity", r"\mathrm{SNR}(\tfrac12) = 3", ClaimKind.APPROXIMATION, "demo",
              checks=(sweep, Check("exact", EvidenceKind.SYMBOLIC, _wrong, "evaluate at one half")),
              negative_control=CONSTANT_SNR),
        Claim("demo.crash", "A check that crashes", r"\|W\|_F \ge 0", ClaimKind.APPROXIMATION, "demo",
              checks=(Check("crash", EvidenceKind.SIMULATION, _crash),), negative_control=CONSTANT_SNR),
        Claim("demo.downstream", "Built on the false identity", r"\mathbb{E}\,\mathrm{err} = 1 - h",
              ClaimKind.APPROXIMATION, "demo", checks=(sweep,), depends_on=("demo.trend", "demo.wrong"),
              negative_control=CONSTANT_SNR),
        Claim("demo.vague", "Not checkable", r"\kappa(r) \approx \alpha_c(r)", ClaimKind.UNDERSPECIFIED, "demo",
              reason="the seed does not say which norm"),
    ]


@pytest.fixture(scope="module")
def demo_report() -> dict:
    result = run(_demo_claims(), profile=get_profile("quick"), controls=True)
    return build_report(result, selection={"only": ["demo.*"]})


def demo_report_for(claims_extra=()) -> dict:
    """The demo run (and ``claims_extra``) as a report; for the browser test."""
    result = run([*_demo_claims(), *claims_extra], profile=get_profile("quick"), controls=True)
    return build_report(result)


def test_the_demo_run_holds_every_status_a_report_must_show(demo_report):
    status = {c["id"]: c["status"] for c in demo_report["claims"]}
    assert status == {
        "demo.trend": "SUPPORTED", "demo.wrong": "FAILED", "demo.crash": "ERROR",
        "demo.downstream": "BLOCKED", "demo.vague": "UNDERSPECIFIED",
    }
    caught = {c["id"]: c["negative_control"]["caught"] for c in demo_report["claims"] if c["negative_control"]}
    assert caught["demo.trend"] is True and caught["demo.crash"] is False
    trend = {c["id"]: c for c in demo_report["claims"]}["demo.trend"]["negative_control"]
    assert trend["per_check"]["sweep"] == {"result": "caught", "reason": "not_supported", "controls": [0]}
    assert trend["per_check"]["zeros"] == {"result": "not applicable", "reason": "a ladder of zeros: no formula "
                                           "under test", "controls": [0]}
    assert trend["counts"] == {"caught": 1, "missed": 0, "not applicable": 4}
    crash = {c["id"]: c for c in demo_report["claims"]}["demo.crash"]["negative_control"]
    assert crash["per_check"]["crash"]["result"] == "missed"
    assert crash["per_check"]["crash"]["reason"].startswith("error: RuntimeError: the check itself is broken")


# ---------------------------------------------------------------------------
# report.html


def test_html_is_self_contained_with_no_url_at_all(demo_report):
    page = render_html(demo_report)
    assert not re.search(r"https?://", page), re.search(r".{40}https?://.{40}", page).group(0)
    assert not re.search(r"<(script|img|link|iframe|object|embed)\b[^>]*\b(src|href)=", page)
    assert not re.search(r"\b(src|href)=\"(?!#)", page), "only in-page links"
    assert "@import" not in page and "url(http" not in page
    assert page.count("<style>") == 1 and page.count("<script>") == 1


def test_html_renders_statements_as_mathml_and_keeps_the_source_in_code(demo_report):
    page = render_html(demo_report)
    assert page.count('<div class="statement">') == len(demo_report["claims"])
    assert page.count('<math display="block"') == sum(len(split_statement(c["statement"]))
                                                      for c in demo_report["claims"])
    assert "<mfrac>" in page  # \frac and \tfrac
    # Inline $...$ in titles, assumptions and check descriptions become MathML too.
    visible = re.sub(r"<code[^>]*>.*?</code>|<math.*?</math>|<svg.*?</svg>|<script>.*?</script>|<pre>.*?</pre>",
                     "", page, flags=re.S)
    assert "\\frac" not in visible and "\\mathrm" not in visible and "^{" not in visible and "$" not in visible
    assert math_fallbacks(demo_report) == []


def test_html_has_a_section_per_claim_with_evidence_failures_and_controls(demo_report):
    page = render_html(demo_report)
    for c in demo_report["claims"]:
        assert page.count(f'<section class="claim" id="claim-{c["id"]}"') == 1
        assert f'<tr data-status="{c["status"]}" data-kind="{c["kind"]}">' in page
    wrong = page.split('id="claim-demo.wrong"')[1].split("</section>")[0]
    assert "Minimal counterexample" in wrong and "&quot;claimed&quot;: 3" in wrong
    assert "theorems verify --only demo.wrong --profile quick --seed" in wrong
    crash = page.split('id="claim-demo.crash"')[1].split("</section>")[0]
    assert "RuntimeError: the check itself is broken" in crash and "traceback" in crash
    assert "NOT caught" in crash
    trend = page.split('id="claim-demo.trend"')[1].split("</section>")[0]
    table = trend.split('<table class="grid controls">')[1].split("</table>")[0]
    assert '<td><b>sweep</b></td><td><span class="ev ev-passed">caught</span>' in table
    assert ('<td><b>zeros</b></td><td><span class="ev ev-inconclusive">not applicable</span>'
            '<div class="muted small">a ladder of zeros: no formula under test</div>') in table
    vague = page.split('id="claim-demo.vague"')[1].split("</section>")[0]
    assert "the seed does not say which norm" in vague and "Negative control" not in vague
    assert "blocked by" in page.split('id="claim-demo.downstream"')[1].split("</section>")[0]
    for header in ("VERIFIED", "profile", "seed", "time taken", "environment", "numpy"):
        assert header in page.split('<section id="summary">')[0]


def test_html_draws_every_plot_kind_and_notes_a_ladder_of_zeros(demo_report):
    page = render_html(demo_report)
    kinds = re.findall(r'<figure class="plot-figure" data-plot="(\w+)"><svg class="plot"', page)
    # demo.trend: sweep, Monte Carlo, ladder, explicit spec; demo.wrong and demo.downstream: a sweep each.
    assert sorted(kinds) == sorted(["simulation", "montecarlo", "ladder", "spec", "simulation", "simulation"])
    assert "figure class=\"plot-figure plot-error\"" not in page
    assert "every residual is exactly 0" in page
    trend = page.split('id="claim-demo.trend"')[1].split("</section>")[0]
    assert "margin against load" in trend and "zero margin" in trend  # the spec's title and hline label


def test_html_shows_the_dependency_graph_coloured_by_status(demo_report):
    svg = dependency_graph_svg(demo_report["claims"])
    assert svg.count('<a href="#claim-') == len(demo_report["claims"])
    assert svg.count('class="edge"') == sum(len(c["depends_on"]) for c in demo_report["claims"])
    assert 'data-status="BLOCKED"' in svg and 'data-topic="demo"' in svg
    shapes = dict(re.findall(r'data-kind="([a-z]+)" data-shape="([a-z-]+)"', svg))
    assert shapes == {"approximation": "parallelogram", "underspecified": "dashed"}
    assert svg in render_html(demo_report)


def _chain_claims():
    def claim(cid, status, deps=(), kind="identity"):
        return {"id": cid, "status": status, "depends_on": list(deps), "kind": kind, "title": cid}

    return [claim("a.base", "VERIFIED"), claim("a.sup", "SUPPORTED", kind="approximation"),
            claim("b.on-base", "VERIFIED", ["a.base"]), claim("b.on-both", "VERIFIED", ["b.on-base", "a.sup"]),
            claim("c.on-failed", "VERIFIED", ["c.failed"]), claim("c.failed", "FAILED"),
            claim("c.outside", "VERIFIED", ["z.not-in-run"])]


def test_the_graph_marks_claims_verified_with_everything_they_depend_on():
    claims = _chain_claims()
    assert chain_status(claims) == {"a.base": "verified", "a.sup": "ok", "b.on-base": "verified",
                                    "b.on-both": "ok", "c.on-failed": "open", "c.failed": "open",
                                    "c.outside": "open"}
    assert ancestors(claims)["b.on-both"] == {"b.on-base", "a.base", "a.sup"}
    svg = dependency_graph_svg(claims)
    marked = re.findall(r'data-id="([^"]+)"[^>]*data-chain="verified"', svg)
    assert sorted(marked) == ["a.base", "b.on-base"]
    assert svg.count('class="chain-mark"') == 2
    lanes = re.findall(r'<g class="lane" data-topic="([^"]+)"', svg)
    assert lanes == ["a", "b", "c"]  # one band per topic, in catalogue order
    # within a band a claim comes after the claims of its topic it depends on
    pos = {m[0]: (float(m[2]), float(m[1])) for m in re.findall(
        r'data-id="([^"]+)".*?<path class="shape[^"]*" d="M([\d.]+),([\d.]+)', svg)}
    assert pos["c.failed"] < pos["c.on-failed"]


def test_a_statement_that_cannot_be_converted_falls_back_to_escaped_source(demo_report):
    broken = copy.deepcopy(demo_report)
    broken["claims"][0]["statement"] = r"\text{a < b}"
    broken["claims"][1]["statement"] = r"\unknowncommand{x} = 1"
    broken["claims"][2]["statement"] = r"\frac{1}{M"
    page = render_html(broken)
    assert '<code class="latex-fallback"' in page and r"\text{a &lt; b}" in page
    assert 'id="math-fallbacks"' in page
    found = math_fallbacks(broken)
    assert [(f.claim, f.where) for f in found] == [
        ("demo.trend", "statement"), ("demo.wrong", "statement"), ("demo.crash", "statement")]
    assert "not well-formed" in found[0].error
    assert "\\unknowncommand" in found[1].error and "unbalanced braces" in found[2].error


@pytest.mark.parametrize(
    "latex, ok",
    [
        (r"\frac{1}{M}\mathbb{E}_V \|W K - V\|_F^2 = 1 - \frac{r_K}{M}", True),
        (r"W \in \arg\min_W \|WK - V\|_F", True),
        (r"\text{a < b}", False),  # the converter emits a raw '<': not well-formed
        (r"\begin{aligned} a &= b \end{aligned}", False),  # the converter leaves '&'
        (r"x^{2", False),
        (r"\frobnicate x", False),
    ],
)
def test_latex_conversion_refuses_what_it_cannot_render_faithfully(latex, ok):
    markup, error = latex_to_mathml(latex)
    assert (error is None) is ok
    if ok:
        ET.fromstring(markup.replace("<math", '<math xmlns="http://www.w3.org/1998/Math/MathML"', 1))
    else:
        assert markup.startswith('<code class="latex-fallback"')


def test_every_statement_of_the_catalogue_renders_as_mathml():
    claims = []
    for c in load_claims():
        claims.append({
            "id": c.id, "title": c.title, "statement": c.statement, "assumptions": list(c.assumptions),
            "evidence": [{"check": ch.name, "description": ch.description} for ch in c.checks],
            "negative_control": {"description": c.negative_control.description} if c.negative_control else None,
        })
    bad = math_fallbacks({"claims": claims})
    assert bad == [], "\n".join(f"{f.claim} ({f.where}): {f.error}: {f.latex}" for f in bad)


def test_a_malformed_plot_spec_becomes_a_note_not_a_crash():
    plot = spec_plot({"series": [{"x": [1, 2], "y": [1]}]}, salt="t")
    assert plot.svg == "" and "x has 2 values, y has 1" in plot.error
    assert spec_plot({"series": []}, salt="t").error
    assert spec_plot([1, 2], salt="t").error
    ev = {"check": "c", "kind": "simulation", "status": "supported", "data": {"plot": {"series": "nope"}}}
    assert [p.source for p in evidence_plots(ev, salt="t")] == ["spec"]


def test_a_spec_plot_draws_symmetric_and_asymmetric_error_bars():
    def spec(yerr):
        return {"series": [{"label": "m", "x": [1, 2, 3], "y": [1.0, 2.0, 3.0], "style": "points", "yerr": yerr}]}

    symmetric = spec_plot(spec([0.1, 0.2, 0.1]), salt="t")
    lower_upper = spec_plot(spec([[0.1, 0.2, 0.1], [0.3, 0.3, 0.3]]), salt="t")  # e.g. an interquartile range
    same_lower = spec_plot(spec([[0.1, 0.2, 0.1], [0.1, 0.2, 0.1]]), salt="t")
    for plot in (symmetric, lower_upper, same_lower):
        assert plot.error == "" and "<path" in plot.svg
    assert same_lower.svg == symmetric.svg and lower_upper.svg != symmetric.svg  # the upper list is drawn
    wrong = spec_plot(spec([0.1, 0.2]), salt="t")
    assert wrong.svg == "" and "yerr must have 3 values or two lists of 3" in wrong.error


def test_plot_svgs_are_inline_ready_and_have_unique_ids(demo_report):
    trend = next(c for c in demo_report["claims"] if c["id"] == "demo.trend")
    plots = [p for e in trend["evidence"] for p in evidence_plots(e, salt=f"demo.trend:{e['check']}")]
    assert len(plots) == 4
    sweep, mc, ladder, spec = plots
    slope = trend["evidence"][0]["figure"]
    assert [k.label for k in sweep.legend] == ["measured", f"fit, slope {slope:.3g} (the figure)",
                                               "slope -0.5 (the bound: need ≤)"]
    crit = trend["evidence"][1]["threshold"]
    assert [k.label for k in mc.legend] == [f"± critical z {crit:.3g}", "z of a quantity"]
    assert [k.label for k in ladder.legend] == ["one third", "two sevenths", "rounding unit 10^-digits",
                                                "threshold 64 x 10^-digits"]
    keys = {k.label: (k.line, k.marker) for k in spec.legend}
    assert keys == {"measured": ("solid", True), "predicted": ("", True),
                    "zero margin": ("dashed", False), "threshold": ("dotted", False)}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", k.colour) for p in plots for k in p.legend)
    ids = []
    for p in plots:
        assert p.svg.startswith('<svg class="plot"') and "<?xml" not in p.svg and "xmlns" not in p.svg
        assert "<!--" not in p.svg and "<metadata>" not in p.svg
        ids += re.findall(r'\sid="([^"]+)"', p.svg)
    assert ids and len(ids) == len(set(ids))
    page_ids = re.findall(r'\sid="([^"]+)"', render_html(demo_report))
    assert len(page_ids) == len(set(page_ids)), "ids are unique in the whole page"


# ---------------------------------------------------------------------------
# junit.xml


def test_junit_has_one_testcase_per_check_with_failures_and_errors(demo_report):
    root = ET.fromstring(render_junit(demo_report))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    checks = [(c["id"], e["check"]) for c in demo_report["claims"] for e in c["evidence"]]
    extra = {("demo.vague", "underspecified"), ("demo.downstream", "dependencies")} | {
        (c["id"], "negative-control") for c in demo_report["claims"]
        if c["negative_control"] and c["negative_control"]["caught"] is not None}
    got = [(k.get("classname"), k.get("name")) for k in cases]
    assert sorted(got) == sorted(checks + sorted(extra))
    assert len(got) == len(set(got))
    for el in (root, suite):
        assert int(el.get("tests")) == len(cases)
        assert int(el.get("failures")) == sum(k.find("failure") is not None for k in cases)
        assert int(el.get("errors")) == sum(k.find("error") is not None for k in cases)
        float(el.get("time"))
    assert int(suite.get("skipped")) == sum(k.find("skipped") is not None for k in cases)
    assert set(root.attrib) == {"name", "tests", "failures", "errors", "time"}
    by = {(k.get("classname"), k.get("name")): k for k in cases}
    failure = by[("demo.wrong", "exact")].find("failure")
    assert failure.get("type") == "failed"
    assert failure.get("message") == "exact: residual 2 (need 0) at h = 1/2, snr = 1, claimed = 3"
    assert by[("demo.wrong", "exact")].get("status") == "failed"
    assert "minimal counterexample" in failure.text and "replay: theorems verify --only demo.wrong" in failure.text
    error = by[("demo.crash", "crash")].find("error")
    assert "RuntimeError" in error.get("message") and "Traceback" in error.text
    assert by[("demo.vague", "underspecified")].find("skipped") is not None
    assert by[("demo.downstream", "dependencies")].find("failure").get("type") == "blocked"
    assert by[("demo.crash", "negative-control")].find("failure") is not None
    # A pass carries its figure and threshold in <system-out> (junit-10.xsd has no per-case
    # <properties>), and its status: a SUPPORTED sweep is not a VERIFIED identity.
    sweep = by[("demo.trend", "sweep")]
    assert [c.tag for c in sweep] == ["system-out"] and sweep.get("status") == "supported"
    facts = dict(line.split(": ", 1) for line in sweep.find("system-out").text.splitlines())
    ev = demo_report["claims"][0]["evidence"][0]
    assert facts == {"status": "supported", "figure": f"{ev['figure']:.3g}", "threshold": "<= -0.5",
                     "cases": "4"}
    assert by[("demo.trend", "ladder")].get("status") == "passed"
    for k in cases:
        assert set(k.attrib) == {"classname", "name", "time", "status"}
        float(k.get("time"))
        for child in k:
            assert child.tag in ("failure", "error", "skipped", "system-out")
            assert "\n" not in child.get("message", "")
    assert {p.get("name") for p in suite.find("properties")} >= {"profile", "seed", "python"}


def test_junit_escapes_markup_and_characters_xml_cannot_hold(demo_report):
    nasty = copy.deepcopy(demo_report)
    ev = nasty["claims"][1]["evidence"][1]
    ev["detail"] = 'a < b & "c" \x00\x1b]0;'
    ev["counterexample"] = {"K": "<script>"}
    root = ET.fromstring(render_junit(nasty))
    case = [k for k in root.iter("testcase") if k.get("classname") == "demo.wrong" and k.get("name") == "exact"][0]
    assert case.find("failure").get("message").endswith("at K = <script>")
    assert 'a < b & "c" \ufffd\ufffd]0;' in case.find("failure").text and "<script>" in case.find("failure").text
    assert len(junit_cases(nasty)) == len(list(root.iter("testcase")))


# ---------------------------------------------------------------------------
# writing, the schema


def test_write_reports_writes_all_four_and_every_report_validates(demo_report, tmp_path):
    validate_report(demo_report)
    paths = write_reports(demo_report, tmp_path)
    assert [p.name for p in paths] == list(REPORT_FILES)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(REPORT_FILES)  # no temporary files left
    validate_report(json.loads((tmp_path / "report.json").read_text()))
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    ET.parse(tmp_path / "junit.xml")
    assert (tmp_path / "report.json").stat().st_mode & 0o044, "reports are readable by others, like any file"


def test_the_schema_checks_plot_specs_and_negative_controls(demo_report):
    from jsonschema import ValidationError

    bad = copy.deepcopy(demo_report)
    bad["claims"][0]["evidence"][4]["data"]["plot"]["series"][0]["style"] = "bars"
    with pytest.raises(ValidationError, match="bars"):
        validate_report(bad)
    bad = copy.deepcopy(demo_report)
    bad["claims"][0]["negative_control"]["status"] = "MAYBE"
    with pytest.raises(ValidationError):
        validate_report(bad)


# ---------------------------------------------------------------------------
# comparing two reports


def _timed(report: dict) -> dict:
    """The report with every check taking 1 s, except a 1 ms ladder and a 10 s sweep."""
    old = copy.deepcopy(report)
    special = {("demo.trend", "ladder"): 0.001, ("demo.downstream", "sweep"): 10.0}
    for c in old["claims"]:
        for e in c["evidence"]:
            e["seconds"] = special.get((c["id"], e["check"]), 1.0)
    return old


def _changed(report: dict) -> dict:
    new = _timed(report)
    by = {c["id"]: c for c in new["claims"]}
    by["demo.trend"]["status"] = "NOT SUPPORTED"
    by["demo.wrong"]["evidence"][0]["seconds"] = SLOWER_RATIO + SLOWER_MIN_SECONDS  # both thresholds met
    by["demo.wrong"]["evidence"][1]["seconds"] = 1.0 + SLOWER_MIN_SECONDS / 2  # too small a difference
    by["demo.trend"]["evidence"][2]["seconds"] = SLOWER_MIN_SECONDS / 2  # a big ratio, a small difference
    by["demo.downstream"]["evidence"][0]["seconds"] = 10.0 + 2 * SLOWER_MIN_SECONDS  # a big difference, a small ratio
    new["claims"] = [c for c in new["claims"] if c["id"] != "demo.vague"]
    extra = copy.deepcopy(by["demo.crash"])
    extra["id"] = "demo.new-claim"
    new["claims"].append(extra)
    new["counts"] = {s: sum(c["status"] == s for c in new["claims"]) for s in new["counts"]}  # a consistent report
    return new


def test_compare_finds_status_changes_new_and_gone_claims_and_slower_checks(demo_report):
    cmp = compare_reports(_timed(demo_report), _changed(demo_report))
    assert cmp.changed == [("demo.trend", "SUPPORTED", "NOT SUPPORTED")]
    assert cmp.appeared == [("demo.new-claim", "ERROR")]
    assert cmp.disappeared == [("demo.vague", "UNDERSPECIFIED")]
    assert [(s[0], s[1]) for s in cmp.slower] == [("demo.wrong", "sweep")]
    assert cmp.unchanged == 3
    assert compare_reports(demo_report, demo_report).to_json()["changed"] == []


def test_report_compare_on_the_command_line(demo_report, tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_timed(demo_report)))
    new.write_text(json.dumps(_changed(demo_report)))
    assert main(["report", "--compare", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "demo.trend: SUPPORTED -> NOT SUPPORTED" in out
    assert "demo.new-claim (ERROR)" in out and "demo.vague (was UNDERSPECIFIED)" in out
    assert "demo.wrong [sweep]" in out and "slower checks" in out
    assert main(["report", "--compare", str(old), str(new), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["thresholds"] == {"ratio": SLOWER_RATIO, "min_seconds": SLOWER_MIN_SECONDS}


def test_compare_lists_claims_that_kept_their_status_with_other_evidence(demo_report, tmp_path, capsys):
    old = _timed(demo_report)
    new = copy.deepcopy(old)
    by = {c["id"]: c for c in new["claims"]}
    for c in new["claims"]:  # timings alone are no change
        c["seconds"] = 99.0
        for e in c["evidence"]:
            e["seconds"] *= 3
    by["demo.wrong"]["evidence"][0]["figure"] = 0.5
    by["demo.wrong"]["evidence"][0]["detail"] += " (reworded)"
    control = next(c for c in new["claims"] if c["negative_control"] and c["negative_control"]["checks"])
    check = next(iter(control["negative_control"]["checks"]))
    was = control["negative_control"]["checks"][check]
    control["negative_control"]["checks"][check] = "passed" if was != "passed" else "failed"
    cmp = compare_reports(old, new)
    first = by["demo.wrong"]["evidence"][0]["check"]
    assert ("demo.wrong", [(first, ["detail", "figure"])]) in cmp.evidence
    assert (control["id"], [("negative_control", ["checks"])]) in cmp.evidence
    assert len(cmp.evidence) == (1 if control["id"] == "demo.wrong" else 2)
    assert cmp.changed == [] and cmp.unchanged == len(old["claims"])
    assert compare_reports(old, copy.deepcopy(old)).evidence == []
    assert evidence_changes(old["claims"][0], old["claims"][0]) == []
    gone = copy.deepcopy(old["claims"][0])
    gone["evidence"] = gone["evidence"][1:]
    assert evidence_changes(old["claims"][0], gone)[0] == (
        old["claims"][0]["evidence"][0]["check"], ["(only in the old report)"])

    other_seed = copy.deepcopy(new)
    other_seed["seed"] = new["seed"] + 1
    cmp = compare_reports(old, other_seed)
    assert cmp.evidence == [] and any("evidence not compared" in n for n in cmp.notes)

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(old))
    b.write_text(json.dumps(new))
    assert main(["report", "--compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert f"demo.wrong: {first} (detail, figure)" in out
    assert "same status, different evidence: " in out
    assert main(["report", "--compare", str(a), str(b), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"id": "demo.wrong", "parts": [{"part": first, "fields": ["detail", "figure"]}]} in data["evidence_changed"]


def _mutate(report, how):
    r = copy.deepcopy(report)
    how(r)
    return json.dumps(r)


@pytest.mark.parametrize(
    "content, fragment",
    [
        ('{"schema_version": "1.1", "claims": [', "not valid JSON (Expecting value at line 1"),
        ("[1, 2, 3]", "the JSON is a list, not an object"),
        ('{"claims": []}', "no schema_version"),
        (lambda r: _mutate(r, lambda x: x.update(schema_version="2.0")), "schema version '2.0' is incompatible"),
        (lambda r: _mutate(r, lambda x: x["claims"][2].update(status="MAYBE")),
         "does not match the report schema at claims/2/status: 'MAYBE' is not one of"),
        (lambda r: _mutate(r, lambda x: x.pop("counts")), "'counts' is a required property"),
        (b"\xff\xfe\x00garbage", "not a text file"),
    ],
)
def test_a_corrupt_or_incompatible_report_is_a_clear_error_naming_the_file(
        demo_report, tmp_path, capsys, content, fragment):
    bad = tmp_path / "bad.json"
    content = content(demo_report) if callable(content) else content
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ReportError, match=re.escape(fragment)):
        load_report(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(demo_report))
    assert main(["report", "--compare", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"theorems report: error: {bad}: ") and fragment in err


def test_a_missing_report_is_a_clear_error(tmp_path, capsys):
    assert main(["report", "--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert f"{tmp_path / 'a.json'}: no such file" in capsys.readouterr().err
    assert main(["report"]) == 2
    assert "--compare" in capsys.readouterr().err


def test_report_renders_a_json_report_again(demo_report, tmp_path, capsys):
    src = tmp_path / "in" / "report.json"
    src.parent.mkdir()
    src.write_text(json.dumps(demo_report))
    assert main(["report", str(src), "--out", str(tmp_path / "out")]) == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(set(REPORT_FILES) - {"report.json"})
    assert (tmp_path / "out" / "report.html").read_text() == render_html(demo_report)
    assert main(["report", str(src)]) == 0
    assert sorted(p.name for p in src.parent.iterdir()) == sorted(REPORT_FILES)
    assert json.loads(src.read_text()) == demo_report


# ---------------------------------------------------------------------------
# progress


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _results(demo_claims_statuses):
    class R:
        def __init__(self, cid, status):
            self.claim = type("C", (), {"id": cid})()
            self.status = Status(status)
            self.seconds = 1.25
            self.negative_control = None

    return [R(cid, s) for cid, s in demo_claims_statuses]


def test_progress_is_a_bar_with_an_eta_on_a_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("TERM", "xterm")
    ticks = iter([0.0, 10.0, 20.0, 30.0, 40.0])
    term = _Terminal()
    progress = Progress(term, clock=lambda: next(ticks))
    results = _results([("a.one", "VERIFIED"), ("a.two", "FAILED"), ("a.three", "SUPPORTED")])
    for i, r in enumerate(results, 1):
        progress(i, 4, r)
    progress.close()
    out = term.getvalue()
    assert "\r[" in out and "\x1b[K" in out and out.endswith("\n")
    assert "1/4" in out and "ETA 0:30" in out  # 10 s per claim so far, 3 to go
    assert "3/4" in out and "ETA 0:10" in out
    # Only the claim that needs a look leaves a line of its own.
    assert plain_line(2, 4, results[1]) in out and plain_line(1, 4, results[0]) not in out


def test_progress_is_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    progress = Progress(out)
    for i, r in enumerate(_results([("a.one", "VERIFIED"), ("a.two", "FAILED")]), 1):
        progress(i, 2, r)
    progress.close()
    assert out.getvalue().splitlines() == [
        "[  1/2] a.one                                VERIFIED         1.25 s",
        "[  2/2] a.two                                FAILED           1.25 s",
    ]


# ---------------------------------------------------------------------------
# failure messages: the measured figure, the threshold and the minimal case


def _enumeration_wrong(ctx):
    return expectation.check(ctx, st.just({"K": [[1]]}), lambda x: Fraction(-1))


def _mc_biased(ctx):
    return montecarlo.check(ctx, lambda rng, n: np.column_stack([rng.standard_normal(n), rng.standard_normal(n) + 0.1]),
                            [0.0, 0.0], n=8192, label="two means", names=["unbiased", "shifted by 0.1"])


def _ladder_stalls(ctx):
    return precise.check(ctx, [("one", 1)], lambda x: (mpmath.mpf("1e-3"), 1))


def _float_breaks(ctx):
    return property_ev.check(ctx, st.integers(0, 10), lambda x: 100.0 if x >= 3 else 0.0)


def _exact_ok(ctx):
    return make(ctx, EvidenceKind.SYMBOLIC, True, seconds=0.0, figure=0.0, threshold=0.0, cases=1, detail="exact")


def _failing_claims() -> list[Claim]:
    return [
        Claim("bad.expectation", "A wrong expectation", r"\mathbb{E}\,X = 0", ClaimKind.EXPECTATION, "demo",
              checks=(Check("enumeration", EvidenceKind.EXPECTATION, _enumeration_wrong),
                      Check("montecarlo", EvidenceKind.MONTECARLO, _mc_biased)), negative_control=CONSTANT_SNR),
        Claim("bad.identity", "A wrong identity", r"\log x = x", ClaimKind.IDENTITY, "demo",
              checks=(Check("exact", EvidenceKind.SYMBOLIC, _exact_ok), Check("ladder", EvidenceKind.PRECISE, _ladder_stalls),
                      Check("float", EvidenceKind.PROPERTY, _float_breaks)), negative_control=CONSTANT_SNR),
    ]


@pytest.fixture(scope="module")
def failing_report() -> dict:
    result = run([*_failing_claims(), *_demo_claims()], profile=get_profile("quick"))
    report = build_report(result)
    validate_report(report)
    return report


def _evidence(report, cid, check):
    claim = next(c for c in report["claims"] if c["id"] == cid)
    return next(e for e in claim["evidence"] if e["check"] == check)


def test_failure_messages_give_the_figure_the_threshold_and_the_minimal_case(failing_report):
    enum = _evidence(failing_report, "bad.expectation", "enumeration")
    assert result_message(enum) == "enumeration: residual -1 (need 0) at K = [[1]]"
    mc = _evidence(failing_report, "bad.expectation", "montecarlo")
    assert mc["data"]["names"] == ["unbiased", "shifted by 0.1"]
    z = mc["figure"]
    assert z > 6 and mc["counterexample"]["name"] == "shifted by 0.1"
    assert re.fullmatch(
        rf"montecarlo: z {z:.3g} \(need ≤ {mc['threshold']:.3g}\) at quantity shifted by 0\.1, "
        r"mean 0\.\d+ vs claimed 0, s\.e\. 0\.0\d+", result_message(mc)), result_message(mc)
    assert mc["data"]["z"][1] == pytest.approx(z) and abs(mc["data"]["z"][0]) < mc["threshold"]
    ladder = _evidence(failing_report, "bad.identity", "ladder")
    assert re.fullmatch(r"ladder: scaled ratio \S+ \(need ≤ 64\) at case 'one', \d+ digits \(scaled ratio .+\)",
                        result_message(ladder)), result_message(ladder)
    assert result_message(_evidence(failing_report, "bad.identity", "float")) == \
        "float: scaled ratio 100 (need ≤ 64) at 3"
    crash = _evidence(failing_report, "demo.crash", "crash")
    assert result_message(crash) == "crash: error: RuntimeError: the check itself is broken"
    sweep = _evidence(failing_report, "demo.trend", "sweep")
    assert result_message(sweep).startswith(f"sweep: figure {sweep['figure']:.3g} (need ≤ -0.5); snr at h = 1/d: ")


def test_the_junit_markdown_and_html_carry_those_messages(failing_report):
    messages = {(c["id"], e["check"]): result_message(e) for c in failing_report["claims"] for e in c["evidence"]}
    root = ET.fromstring(render_junit(failing_report))
    for case in root.iter("testcase"):
        bad = case.find("failure")
        if bad is not None and case.get("name") not in ("dependencies", "negative-control"):
            assert bad.get("message") == messages[(case.get("classname"), case.get("name"))]
    md = render_markdown(failing_report)
    assert "- enumeration: residual -1 (need 0) at K = \\[\\[1\\]\\]" in md  # brackets escaped: no link
    assert "- float: scaled ratio 100 (need ≤ 64) at 3" in md
    assert md.count("- replay: `theorems verify --only bad.identity --profile quick --seed") == 1
    page = render_html(failing_report)
    assert '<p class="result">enumeration: residual -1 (need 0) at K = [[1]]</p>' in page


# ---------------------------------------------------------------------------
# report.md: a CI summary


def test_markdown_starts_with_the_verdict_then_failures_then_the_rest_collapsed(failing_report):
    md = render_markdown(failing_report)
    first = md.splitlines()[0]
    assert first.startswith("**NOT OK** (") and "3 FAILED" in first and "1 ERROR" in first and "1 BLOCKED" in first
    assert f"seed {failing_report['seed']}" in first
    commit = failing_report["environment"]["source"]["commit"]
    assert commit is None or f"commit `{commit[:12]}`" in first
    heads = re.findall(r"^### `([^`]+)` \*\*([A-Z ]+)\*\*", md, flags=re.M)
    statuses = [h[1] for h in heads]
    failing = set(failing_report["fail_on"] if "fail_on" in failing_report else ["FAILED", "ERROR", "BLOCKED",
                                                                                  "NOT SUPPORTED"])
    # failing claims first; every claim not VERIFIED or SUPPORTED is listed once
    assert statuses == sorted(statuses, key=lambda st_: st_ not in failing)
    assert sorted(h[0] for h in heads) == sorted(
        c["id"] for c in failing_report["claims"] if c["status"] not in ("VERIFIED", "SUPPORTED"))
    assert md.index("## Needs a look") < md.index("<details><summary>All ")
    table = md.split("<details><summary>All ")[1].split("</details>")[0]
    assert all(f"| `{c['id']}` |" in table for c in failing_report["claims"])


HOSTILE_TEXT = ("<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) "
                "</details> `code` a|b [ref]: javascript:alert(2)")


def test_markdown_escapes_hostile_ids_titles_and_details(failing_report):
    hostile = copy.deepcopy(failing_report)
    claim = next(c for c in hostile["claims"] if c["id"] == "bad.expectation")
    claim["id"] = "bad.`x`|<b>id</details>"
    claim["title"] = HOSTILE_TEXT
    claim["reason"] = HOSTILE_TEXT
    for e in claim["evidence"]:
        e["detail"] = HOSTILE_TEXT
        e["check"] = "chk|<i>`"
        e["kind"] = "simulation"  # its detail goes into the message
        e["replay"] = "theorems verify --only 'a`b' </details>"
    md = render_markdown(hostile)
    # no tag of the text takes effect: the only tags are the summary's own two <details> blocks
    tags = re.findall(r"<[^>]*>", md)
    assert sorted(set(tags)) == ["</details>", "</summary>", "<details>", "<summary>"], tags
    assert md.count("</details>") == md.count("<details>") == 2
    # no link, image or link definition begins, no code span opens, no table cell is added
    assert not re.search(r"(?<!\\)\]\(javascript", md) and "\\[x\\](javascript" in md
    assert not re.search(r"(?<!\\)\[ref(?<!\\)\]:", md)
    assert "\\`code\\`" in md and "`code`" not in md
    table = md.split("<details><summary>All ")[1].split("</details>")[0]
    rows = [r for r in table.splitlines() if r.startswith("| ")]
    assert len({len(re.findall(r"(?<!\\)\|", r)) for r in rows}) == 1, rows
    assert "| bad.\\`x\\`\\|&lt;b&gt;id&lt;/details&gt; |" in table
    assert "### bad.\\`x\\`\\|&lt;b&gt;id&lt;/details&gt; **FAILED**: &lt;script&gt;alert(1)&lt;/script&gt;" in md
    assert "- replay: theorems verify --only 'a\\`b' &lt;/details&gt;" in md
    # the HTML report escapes the same claim (as it did before)
    page = render_html(hostile)
    assert "<script>alert(1)" not in page and "<img src=x" not in page


def test_markdown_says_which_negative_controls_were_caught(failing_report):
    report = copy.deepcopy(failing_report)
    caught, missed = report["claims"][0], report["claims"][1]
    caught["negative_control"] = {"description": "a wrong variant", "caught": True, "status": "FAILED",
                                  "checks": {}}
    missed["negative_control"] = {"description": "another variant", "caught": False, "status": "VERIFIED",
                                  "checks": {}}
    md = render_markdown(report)
    assert f"Negative controls: 1 of 2 caught; NOT caught: `{missed['id']}`." in md
    assert f"- `{missed['id']}`: the claim still comes out VERIFIED on the wrong variant" in md
    table = md.split("<details><summary>All ")[1].split("</details>")[0]
    assert "| negative control |" in table
    row = {r.split(" | ")[0][2:]: r for r in table.splitlines() if r.startswith("| `")}
    assert "| caught |" in row[f"`{caught['id']}`"] and "| **NOT caught** |" in row[f"`{missed['id']}`"]
    if caught["status"] not in ("VERIFIED", "SUPPORTED"):
        assert "- negative control caught: a wrong variant (comes out FAILED)" in md
    untouched = render_markdown(failing_report)
    assert "Negative controls:" not in untouched


def test_markdown_shows_each_check_on_the_wrong_variant(demo_report):
    md = render_markdown(demo_report)
    assert ("Negative controls: 3 of 4 caught (checks on their wrong variants: 4 caught, 1 missed, "
            "4 not applicable); NOT caught: `demo.crash`.") in md
    assert "- `demo.crash`: check 'crash' missed it (error: RuntimeError: the check itself is broken" in md
    table = md.split("<summary>Negative controls, check by check</summary>")[1].split("</details>")[0]
    assert "| claim | caught by | missed by | not applicable |" in table
    assert ("| `demo.trend` | sweep |  | moments (second moments of N(0, 1): no formula under test), ladder (sin(k "
            "pi) at two fractions: no formula under test), zeros (a ladder of zeros: no formula under test), drawn "
            "(a fixed plot spec: no formula under test) |") in table


def test_markdown_of_any_size_fits_a_pull_request_comment(failing_report):
    big = copy.deepcopy(failing_report)
    template = next(c for c in big["claims"] if c["id"] == "bad.expectation")
    big["claims"] = []
    for n in range(400):
        c = copy.deepcopy(template)
        c["id"] = f"bad.claim-{n}"
        for e in c["evidence"]:
            e["counterexample"] = {"K": [[n] * 50] * 20}
        big["claims"].append(c)
    big["counts"] = {**big["counts"], "FAILED": 400}
    md = render_markdown(big)
    assert len(md) <= MAX_MARKDOWN_CHARS
    assert md.splitlines()[0].startswith("**NOT OK**")
    assert "more characters in report.json" in md or "more, in report.json" in md


@pytest.fixture(scope="module")
def quick_catalogue_report() -> dict:
    """The whole built-in catalogue at the quick profile (the run CI does)."""
    result = run(load_claims(), profile=get_profile("quick"))
    report = build_report(result)
    validate_report(report)
    return report


def test_report_md_of_the_whole_quick_catalogue_fits_a_pull_request_comment(quick_catalogue_report, tmp_path):
    md = render_markdown(quick_catalogue_report)
    assert len(md) < MAX_MARKDOWN_CHARS, len(md)
    assert len(md) < 65_536
    write_reports(quick_catalogue_report, tmp_path)
    validate_report(json.loads((tmp_path / "report.json").read_text()))
    assert (tmp_path / "report.md").read_text() == md
    # Every claim is in the table, every plot drew, no statement fell back to LaTeX source.
    assert all(f"| `{c['id']}` |" in md for c in quick_catalogue_report["claims"])
    page = (tmp_path / "report.html").read_text()
    broken = re.findall(r'<figure class="plot-figure plot-error"[^>]*><figcaption>(.*?)</figcaption>', page, flags=re.S)
    assert broken == [], broken  # each names the plot and why it could not be drawn
    assert '<code class="latex-fallback"' not in page


def test_sweep_checks_are_charged_with_their_precomputation(quick_catalogue_report):
    """A sweep whose LP bisections run before simulation.check (shared by
    its checks) is charged with them: the claim's time is in its checks. The
    time outside them may reach 20% of the claim's or one second, whichever
    is more: a garbage-collector or scheduler pause on a loaded machine (0.44 s
    of a 0.52 s claim under a concurrent stability run, 0.59 s of a 0.91 s
    claim in a CI rehearsal with both cores busy; on a quiet machine it is
    1-4 ms), below the seconds an uncharged sweep's bisections take."""
    for c in quick_catalogue_report["claims"]:
        if c["evidence"] and c["seconds"] > 1.0:
            uncharged = c["seconds"] - sum(e["seconds"] for e in c["evidence"])
            assert uncharged <= max(0.2 * c["seconds"], 1.0), (c["id"], c["seconds"], uncharged)


def test_a_check_is_charged_with_what_it_did_before_its_checker_timed_it():
    def slow(ctx):
        import time

        time.sleep(0.2)  # a precomputation the checker does not see
        return simulation.check(ctx, [1, 2], lambda d, rng: 1.0 / d,
                                simulation.shrinks(max_slope=-0.5, max_last_over_first=0.9), label="fast part")

    claim = Claim("demo.slow", "slow", "x = x", ClaimKind.APPROXIMATION, "demo",
                  checks=(Check("sweep", EvidenceKind.SIMULATION, slow),), negative_control=CONSTANT_SNR)
    from theorems.core.impl import Impl

    ev = run_check(claim, claim.checks[0], impl=Impl.default(), profile=get_profile("quick"), seed=1)
    assert ev.seconds >= 0.2


# ---------------------------------------------------------------------------
# new statuses


def _answered(ctx):
    return make(ctx, EvidenceKind.SIMULATION, True, seconds=0.0, figure=0.7, threshold=0.5, comparison=">=",
                passed=EvidenceStatus.ANSWERED, cases=3, detail="answer: yes, the crossing moves right")


def _inconclusive(ctx):
    return make(ctx, EvidenceKind.SIMULATION, False, seconds=0.0, figure=0.1, threshold=0.05,
                failed=EvidenceStatus.INCONCLUSIVE, cases=3,
                detail="the confidence interval straddles 0 at these sizes; --profile thorough resolves it")


def _status_claims():
    return [Claim("st.answered", "A question", r"x = ?", ClaimKind.QUESTION, "demo",
                  checks=(Check("decide", EvidenceKind.SIMULATION, _answered),), negative_control=CONSTANT_SNR),
            Claim("st.inconclusive", "Not resolved", r"x \to 0", ClaimKind.CONJECTURE, "demo",
                  checks=(Check("trend", EvidenceKind.SIMULATION, _inconclusive),), negative_control=CONSTANT_SNR)]


def test_inconclusive_and_answered_in_junit_markdown_and_html():
    result = run(_status_claims(), profile=get_profile("quick"))
    report = build_report(result)
    validate_report(report)
    assert [c["status"] for c in report["claims"]] == ["ANSWERED", "INCONCLUSIVE"]
    assert report["ok"] is True
    root = ET.fromstring(render_junit(report))
    cases = {k.get("classname"): k for k in root.iter("testcase")}
    assert cases["st.answered"].get("status") == "answered" and len(cases["st.answered"]) == 1
    assert "answer: yes" in cases["st.answered"].find("system-out").text
    skipped = cases["st.inconclusive"].find("skipped")
    assert skipped is not None and "--profile thorough resolves it" in skipped.get("message")
    assert root.get("failures") == "0"
    strict = {**report, "fail_on": ["FAILED", "ERROR", "BLOCKED", "NOT SUPPORTED", "INCONCLUSIVE"], "ok": False}
    root = ET.fromstring(render_junit(strict))
    assert root.get("failures") == "1"
    md = render_markdown(report)
    assert md.startswith("**OK**") and "`st.inconclusive` **INCONCLUSIVE**" in md and "`st.answered` **ANSWERED**" in md
    assert md.startswith("**NOT OK** (1 INCONCLUSIVE)", 0) is False
    assert render_markdown(strict).startswith("**NOT OK** (1 INCONCLUSIVE)")
    page = render_html(report)
    assert 'class="ev ev-inconclusive"' in page and 'class="ev ev-answered"' in page
    verdict = re.search(r'<span class="verdict ok">OK: no claim is ([^<]+)</span>', page).group(1)
    assert sorted(verdict.split(" / ")) == sorted(report["fail_on"])


# ---------------------------------------------------------------------------
# report.json: what was checked, how, with what


def test_report_json_records_commit_command_line_and_every_requirement(demo_report):
    env = demo_report["environment"]
    for name in ("numpy", "scipy", "sympy", "mpmath", "hypothesis", "jsonschema", "matplotlib", "latex2mathml",
                 "threadpoolctl"):
        assert env["packages"][name], name
        assert name in env["requirements"]
    src = env["source"]
    assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]) and isinstance(src["dirty"], bool)
    assert env["command"] == command_line()
    assert command_line(["/usr/bin/theorems", "verify", "--only", "a b"]) == "theorems verify --only 'a b'"
    validate_report(demo_report)


def test_source_state_without_git_or_outside_a_checkout(tmp_path, monkeypatch):
    outside = source_state(tmp_path)
    assert outside["commit"] is None and "not a git checkout" in outside["reason"]
    import theorems.reporting.report as report_module

    monkeypatch.setattr(report_module.shutil, "which", lambda name: None)
    assert source_state() == {"commit": None, "reason": "git is not installed"}
    env = environment()
    assert env["source"] == {"commit": None, "reason": "git is not installed"}
    from jsonschema import ValidationError

    report = demo_report_for()
    report["environment"] = env
    validate_report(report)
    report["environment"]["source"] = {"commit": None}
    with pytest.raises(ValidationError):
        validate_report(report)


def test_montecarlo_names_must_match_the_quantities():
    from theorems.core.impl import Impl
    from theorems.core.model import Context

    ctx = Context(impl=Impl.default(), profile=get_profile("quick"), seed=1, claim_id="demo.x", check_name="mc")
    with pytest.raises(ValueError, match="names must name each of the 2 quantities, got 1 names"):
        montecarlo.check(ctx, lambda rng, n: rng.standard_normal((n, 2)), [0, 0], n=100, names=["a"])
    ev = montecarlo.check(ctx, lambda rng, n: rng.standard_normal((n, 2)), [0, 0], n=100)
    assert ev.data["names"] == ["q0", "q1"]


# ---------------------------------------------------------------------------
# math


def _catalogue_texts():
    for c in load_claims():
        yield c.id, "statement", c.statement
        yield c.id, "title", c.title
        for a in c.assumptions:
            yield c.id, "assumption", a


def test_no_mathml_token_of_the_catalogue_holds_a_backslash_or_a_bare_function_name():
    from theorems.reporting.html import FUNCTION_NAMES, _Renderer

    r = _Renderer({"claims": []})
    for cid, where, text in _catalogue_texts():
        markup = (r.math(text, claim=cid, where=where, display=True) if where == "statement"
                  else r.rich(text, claim=cid, where=where, ascii_math=True))
        for m in re.finditer(r"<math.*?</math>", markup, flags=re.S):
            tree = ET.fromstring(m.group(0))
            tokens = [el for el in tree.iter() if el.tag in ("mi", "mo", "mn", "mtext")]
            assert not any("\\" in (t.text or "") for t in tokens), (cid, where, m.group(0))
            for parent in tree.iter():
                kids = list(parent)
                for i, k in enumerate(kids):
                    base = k
                    while base.tag in ("msub", "msup", "msubsup", "munder", "mover") and len(base):
                        base = base[0]
                    name = (base.text or "").strip() if base.tag in ("mi", "mo") else ""
                    if name in FUNCTION_NAMES and base is k and parent.tag not in (
                            "msub", "msup", "msubsup", "munder", "mover", "mfrac"):
                        nxt = kids[i + 1] if i + 1 < len(kids) else None
                        assert nxt is not None and (nxt.text or "") in ("\u2061", " "), (cid, where, name)
    assert r.fallbacks == []


@pytest.mark.parametrize("latex, want, unwanted", [
    (r"\mathbb{E}_V\Big\|\frac{n}{h}\Big\|^2", "\u2016", "\\|"),
    (r"2\log n - 3\log\log n", "<mi>log</mi><mo lspace=\"0\" rspace=\"0.1667em\">\u2061</mo>", "<mi>log</mi><mi>"),
    (r"n\ln\ln n", "<mi>ln</mi><mo lspace=\"0\" rspace=\"0.1667em\">\u2061</mo>", "<mi>ln</mi><mi>n"),
    (r"\log_2 n", "</msub><mo lspace=\"0\" rspace=\"0.1667em\">\u2061</mo>", None),
])
def test_latex_conversion_mends_norms_and_applies_functions(latex, want, unwanted):
    markup, error = latex_to_mathml(latex)
    assert error is None and want in markup
    assert unwanted is None or unwanted not in markup


@pytest.mark.parametrize("text, spans", [
    ("Per-key SNR is h_j/(1 - h_j) for 0 < h_j < 1", [("h_j/(1 - h_j)", "h_{j}/(1 - h_{j})"),
                                                      ("0 < h_j < 1", r"0 < h_{j} < 1")]),
    ("values unit-norm (so E[V^T V] = I_M)", [("E[V^T V] = I_M", r"\mathbb{E}[V^{\top} V] = I_{M}")]),
    ("q any query in R^d", [("R^d", r"\mathbb{R}^{d}")]),
    ("scores S_ij = u_j^T W v_i", [("S_ij = u_j^T W v_i", r"S_{ij} = u_{j}^{\top} W v_{i}")]),
    ("crossing 2 - 3 lnln n/ln n", [("2 - 3 lnln n/ln n", r"2 - 3 \ln\ln n/\ln n")]),
    ("the witness's shapes and tam_erm, L-BFGS-B", []),
    ("a W with every <W, A_ij> > 0", [("A_ij", "A_{ij}")]),
    ("plain English, with a b c and no math", []),
])
def test_ascii_math_in_titles_and_assumptions_is_found_and_translated(text, spans):
    got = [(text[a:b], ascii_to_latex(text[a:b])) for a, b in ascii_math_spans(text)]
    assert got == spans


def test_statements_break_only_where_they_list_pieces():
    for c in load_claims():
        pieces = split_statement(c.statement)
        assert all(latex_to_mathml(p, display=True)[1] is None for p in pieces), c.id
        flat = re.sub(r"\\q?quad|\\ |\s", "", c.statement)
        assert re.sub(r"\\q?quad|\\ |\s", "", "".join(pieces)) == flat, c.id
    long = next(c for c in load_claims() if c.id == "fs.ce-norm-peak")
    assert len(split_statement(long.statement)) >= 3
    assert split_statement(r"\Big(a,\quad b\Big)") == [r"\Big(a,\quad b\Big)"]
    assert split_statement(r"\left(a,\quad b\right),\quad c") == [r"\left(a,\quad b\right),", "c"]


# ---------------------------------------------------------------------------
# plots: the judged quantity


def _sim(figures, figure, threshold, comparison="<=", **data):
    return {"check": "c", "kind": "simulation", "status": "supported", "figure": figure, "threshold": threshold,
            "comparison": comparison, "cases": len(figures), "detail": "gap to 2: whatever",
            "data": {"sizes": [4, 8, 16, 32][: len(figures)], "figures": figures, **data}}


def test_sweep_plots_draw_what_the_criterion_judged():
    slope = simulation.loglog_slope([4, 8, 16, 32], [1.0, 0.5, 0.26, 0.12])
    cases = {
        "slope": _sim([1.0, 0.5, 0.26, 0.12], slope, -0.5),
        "extreme": _sim([0.1, 0.17, 0.01, 0.05], 0.17, 0.3),
        "drift": _sim([1.2, 1.1, 1.09, 0.94], -0.07, 0.0, drift={"slope": -0.33, "upper_bound": -0.07}),
        "other": _sim([1.0, 2.0, 3.0, 4.0], 0.5, 1.0),
    }
    for mode, ev in cases.items():
        assert simulation_mode(ev) == mode
        (plot,) = evidence_plots(ev, salt=mode)
        assert not plot.error, plot.error
        labels = [k.label for k in plot.legend]
        if mode == "slope":
            assert labels[1] == f"fit, slope {slope:.3g} (the figure)" and labels[2] == "slope -0.5 (the bound: need ≤)"
        if mode == "extreme":
            assert labels == ["per size", "largest 0.17 (the figure)", "threshold: need ≤ 0.3"]
            assert "log-log" not in plot.svg
        if mode == "drift":
            assert labels[1].startswith("fitted slope against log size -0.33")
            assert labels[2] == "confidence bound -0.07 (the figure: need ≤ 0)"
        # the y axis names the swept figure (a drift: the located peak)
        assert ("located peak per size" if mode == "drift" else "gap to 2") in plot.svg
    # the largest gap is the figure of a ">=" check too (its smallest value)
    assert simulation_mode(_sim([7.8, 8.4, 14.3], 7.8, 2.0, ">=")) == "extreme"


def test_plots_drawn_in_forked_processes_are_the_plots_drawn_in_one():
    """report.html's plots are drawn over the cores (plots.draw_all): the same
    SVG, byte for byte and in order, as drawn one after the other."""
    from theorems.reporting import plots

    jobs = [({"kind": "montecarlo", "check": f"mc{i}", "cases": 100, "threshold": 4.0,
              "data": {"mean": [0.1 * i, 1.0], "claimed": [0.1 * i + 0.01, 1.0], "standard_error": [0.02, 0.5],
                       "names": ["a", "b"]}}, f"t.x:mc{i}") for i in range(plots.PARALLEL_PLOTS_MIN)]
    together = plots.draw_all(jobs, processes=2)
    alone = plots.draw_all(jobs, processes=1)
    assert [[p.svg for p in ps] for ps in together] == [[p.svg for p in ps] for ps in alone]
    assert all(ps and ps[0].svg.startswith("<svg") for ps in alone)
