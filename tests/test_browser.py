"""report.html in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by selenium.

The page holds the demo run of tests/test_reports.py (every status, every
kind of plot, a failure, a crash) and the built-in catalogue's claims run at
a light profile; the sweep claims (approximation, asymptotic, conjecture)
are left out to keep the test short: their sweeps take minutes, and their
plot kind is in the demo run. Every statement of the whole catalogue is
converted without a browser in tests/test_reports.py.

Without Chromium the test is skipped locally and FAILS when $CI is set
(.ci/run installs it), so CI cannot go green without having looked.
A screenshot goes to reports/screenshot.png and to the test's tmp path.

What the page must do in a browser (issue 12): MathML with no raw LaTeX in
any token and function names applied (U+2061), titles and assumptions with
their ASCII math rendered; nothing clipped at 1400 px and at 500 px (each
plot's text inside its plot, each plot inside its figure, each statement
inside its box, no table wider than its scroll box, no page-wide scroll);
the dependency graph in topic bands, shaped by kind, zooming and panning,
and lighting up exactly what a clicked claim uses and what uses it.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from theorems.reporting.plots import KIND_SHAPES, ancestors, chain_status, plot_sources, topic
from theorems.core.profiles import get_profile
from theorems.core.registry import load_claims
from theorems.reporting.report import build_report, validate_report, write_reports
from theorems.core.runner import run

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
SCREENSHOT = Path(__file__).resolve().parents[1] / "reports" / "screenshot.png"

#: Flags Chromium needs on this machine: no sandbox as root, no GPU, and no
#: background networking (without those its connections are refused).
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--window-size=1400,1000",
)

#: Claim kinds whose checks are long sweeps, left out of the browser run.
SWEEP_KINDS = ("approximation", "asymptotic", "conjecture")

#: Raw LaTeX that must not reach the rendered text.
RAW_LATEX = re.compile(r"\\[A-Za-z]+|\^\{|_\{|\$")


def _missing() -> list[str]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    return missing


def _require(page):
    """The (driver, report) pair; without Chromium, skip the test, or fail
    it when $CI is set. Called in the test body, so that CI reports a failed
    test, not an error in a fixture."""
    missing = _missing()
    if missing:
        why = (f"headless Chromium is needed: missing {', '.join(missing)} "
               "(apt-get install -y chromium chromium-driver)")
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return page


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    from test_reports import _demo_claims

    light = dataclasses.replace(get_profile("quick"), examples=3, exact_cases=2, precise_cases=1, mc_samples=4096)
    catalogue = [c for c in load_claims() if c.kind.value not in SWEEP_KINDS]
    # Forking a process that has threads warns from Python 3.12 on (warnings are errors here).
    jobs = 2 if sys.version_info < (3, 12) else 1
    result = run(catalogue, profile=light, jobs=jobs)
    demo = run(_demo_claims(), profile=get_profile("quick"), controls=True)
    result.results = demo.results + result.results
    report = build_report(result)
    validate_report(report)
    out = tmp_path_factory.mktemp("browser-report")
    write_reports(report, out)
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def page(request):
    """The report open in Chromium, or None when Chromium is missing."""
    import json

    if _missing():
        return None
    browser = request.getfixturevalue("browser")
    report_dir = request.getfixturevalue("report_dir")
    browser.get((report_dir / "report.html").as_uri())
    browser.execute_script("window.scrollTo(0, 0)")
    return browser, json.loads((report_dir / "report.json").read_text())


def _visible_text_outside_code(driver) -> str:
    return driver.execute_script("""
        const hidden = Array.from(document.querySelectorAll('code, pre'));
        hidden.forEach(el => el.dataset.display = el.style.display);
        hidden.forEach(el => el.style.display = 'none');
        const text = document.body.innerText;
        hidden.forEach(el => el.style.display = el.dataset.display);
        return text;
    """)


def test_the_page_shows_no_raw_latex_and_no_fallbacks(page):
    driver, report = _require(page)
    text = _visible_text_outside_code(driver)
    raw = sorted({m.group(0) for m in RAW_LATEX.finditer(text)})
    context = [text[max(0, m.start() - 40): m.end() + 40] for m in RAW_LATEX.finditer(text)][:5]
    assert not raw, f"raw LaTeX visible: {raw}; e.g. {context}"
    assert driver.find_elements("css selector", "code.latex-fallback") == []
    assert driver.find_elements("id", "math-fallbacks") == []
    from theorems.reporting.html import split_statement

    from theorems.reporting.html import is_prose

    maths = driver.find_elements("css selector", ".statement > math")
    assert len(maths) == sum(len(split_statement(c["statement"])) for c in report["claims"]
                             if not is_prose(c["statement"]))
    # MathML is laid out (a box with a size), not shown as a string of tags.
    sizes = driver.execute_script(
        "return Array.from(document.querySelectorAll('.statement > math')).map(m => m.getBoundingClientRect().height)")
    assert min(sizes) > 10


def test_every_claim_section_and_every_plot_is_present(page):
    driver, report = _require(page)
    sections = driver.execute_script("return Array.from(document.querySelectorAll('section.claim')).map(s => s.id)")
    assert sections == [f"claim-{c['id']}" for c in report["claims"]]
    expected = {c["id"]: sum(len(plot_sources(e)) for e in c["evidence"]) for c in report["claims"]}
    drawn = driver.execute_script("""
        const out = {};
        document.querySelectorAll('section.claim').forEach(s => {
            out[s.id.slice(6)] = Array.from(s.querySelectorAll('figure.plot-figure svg.plot'))
                .filter(svg => svg.getBoundingClientRect().width > 200 && svg.querySelector('path')).length;
        });
        return out;
    """)
    assert drawn == expected
    assert sum(expected.values()) >= 6
    kinds = set(driver.execute_script(
        "return Array.from(document.querySelectorAll('figure.plot-figure')).map(f => f.dataset.plot)"))
    assert kinds == {"simulation", "montecarlo", "ladder", "spec"}
    assert driver.find_elements("css selector", "figure.plot-error") == []
    nodes = driver.find_elements("css selector", "svg.depgraph a.node")
    assert len(nodes) == len(report["claims"])


def test_the_status_filter_shows_only_rows_of_that_status(page):
    from selenium.webdriver.support.ui import Select

    driver, report = _require(page)
    counts = report["counts"]
    status = Select(driver.find_element("id", "filter-status"))
    kind = Select(driver.find_element("id", "filter-kind"))

    def visible_rows():
        return driver.execute_script(
            "return Array.from(document.querySelectorAll('#claims tbody tr')).filter(r => r.offsetParent !== null)"
            ".map(r => [r.dataset.status, r.dataset.kind])")

    present = [s for s, n in counts.items() if n]
    assert len(present) >= 4
    for s in present:
        status.select_by_value(s)
        rows = visible_rows()
        assert len(rows) == counts[s] and {r[0] for r in rows} == {s}
        assert driver.find_element("id", "shown").text == str(counts[s])
        shown_sections = driver.execute_script(
            "return Array.from(document.querySelectorAll('section.claim')).filter(x => !x.hidden).length")
        assert shown_sections == counts[s]
    status.select_by_value("")
    kind.select_by_value("identity")
    assert {r[1] for r in visible_rows()} == {"identity"}
    assert len(visible_rows()) == sum(c["kind"] == "identity" for c in report["claims"])
    kind.select_by_value("")
    assert len(visible_rows()) == len(report["claims"])
    # A status chip at the top filters too.
    driver.find_element("css selector", "button.chip[data-filter-status='FAILED']").click()
    assert [r[0] for r in visible_rows()] == ["FAILED"] * counts["FAILED"]
    status.select_by_value("")


def test_a_screenshot_of_the_report_is_saved(page, tmp_path):
    driver, _ = _require(page)
    driver.execute_script("window.scrollTo(0, 0)")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOT))
    assert driver.save_screenshot(str(tmp_path / "screenshot.png"))
    driver.execute_script("document.getElementById('claim-demo.trend').querySelector('.plots').scrollIntoView()")
    assert driver.save_screenshot(str(tmp_path / "screenshot-plots.png"))
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and SCREENSHOT.stat().st_size > 20_000


# ---------------------------------------------------------------------------
# issue 12: math (point 2), nothing clipped (point 3), the graph (point 7)


def test_mathml_tokens_hold_no_latex_and_function_names_are_applied(page):
    from theorems.reporting.html import FUNCTION_NAMES

    driver, report = _require(page)
    found = driver.execute_script("""
        const names = new Set(arguments[0]);
        const scripts = new Set(['msub','msup','msubsup','munder','mover','munderover','mfrac','mroot']);
        const out = {tokens: 0, backslash: [], bare: [], applied: 0};
        document.querySelectorAll('math mi, math mo, math mn, math mtext').forEach(t => {
            out.tokens++;
            if (t.textContent.includes('\\\\')) out.backslash.push(t.outerHTML);
            const name = t.textContent.trim();
            if (!names.has(name)) return;
            let el = t;  // the base of a script applies as the script does: log_2 n
            while (el.parentElement && scripts.has(el.parentElement.localName)
                   && el.parentElement.firstElementChild === el) el = el.parentElement;
            if (el.parentElement && scripts.has(el.parentElement.localName)) return;  // a script itself
            const next = el.nextElementSibling;
            if (next && (next.textContent === '\\u2061' || next.textContent === ' ')) out.applied++;
            else out.bare.push(el.parentElement.outerHTML.slice(0, 300));
        });
        return out;
    """, sorted(FUNCTION_NAMES))
    assert found["tokens"] > 1000
    assert found["backslash"] == [], found["backslash"][:3]
    assert found["bare"] == [], found["bare"][:3]
    assert found["applied"] > 20
    # Titles and assumptions: their ASCII math is MathML, no "h_j" or "R^d" left as text.
    leftovers = driver.execute_script("""
        const raw = /(^|[^A-Za-z0-9])[A-Za-z]_[A-Za-z0-9{]|[A-Za-z0-9)]\\^[A-Za-z0-9{+-]/;
        const out = [];
        document.querySelectorAll('section.claim h3, section.claim dl.facts li').forEach(el => {
            const copy = el.cloneNode(true);
            copy.querySelectorAll('math, code').forEach(m => m.remove());
            if (raw.test(copy.textContent)) out.push(copy.textContent.trim().slice(0, 120));
        });
        return out;
    """)
    assert leftovers == [], leftovers[:5]
    assert len(driver.find_elements("css selector", "section.claim h3 math.ascii")) >= 10


_CLIPPED = """
    const out = [];
    const inside = (a, b, slack) => a.left >= b.left - slack && a.right <= b.right + slack
        && a.top >= b.top - slack && a.bottom <= b.bottom + slack;
    const name = el => (el.closest('section.claim') || {}).id || el.closest('section, header').id;
    document.querySelectorAll('figure.plot-figure').forEach(fig => {
        const svg = fig.querySelector('svg.plot');
        if (!svg) return;
        const box = svg.getBoundingClientRect();
        if (!inside(box, fig.getBoundingClientRect(), 1)) out.push(['plot outside its figure', name(fig)]);
        svg.querySelectorAll('text').forEach(t => {
            const r = t.getBoundingClientRect();
            if (r.width && !inside(r, box, 1)) out.push(['plot text clipped', name(fig), t.textContent]);
        });
    });
    document.querySelectorAll('.statement').forEach(st => {
        const box = st.getBoundingClientRect();
        st.querySelectorAll(':scope > math').forEach(m => {
            const r = m.getBoundingClientRect();
            if (r.left < box.left - 1 || r.right > box.right + 1) out.push(['statement wider than its box', name(st),
                Math.round(r.width) + ' px in ' + Math.round(box.width) + ' px']);
        });
        if (st.scrollWidth > st.clientWidth + 1) out.push(['statement scrolls', name(st)]);
    });
    document.querySelectorAll('.table-scroll').forEach(t => {
        if (t.scrollWidth > t.clientWidth + 1) out.push(['table wider than the page', name(t),
            t.scrollWidth + ' px in ' + t.clientWidth + ' px']);
    });
    document.querySelectorAll('section.claim').forEach(sec => {
        if (sec.scrollWidth > sec.clientWidth + 1) out.push(['claim section overflows', sec.id]);
    });
    if (document.documentElement.scrollWidth > window.innerWidth + 1)
        out.push(['the page scrolls sideways', document.documentElement.scrollWidth + ' px']);
    return out;
"""


@pytest.mark.parametrize("width", [1400, 500])
def test_nothing_is_clipped(page, width):
    driver, _ = _require(page)
    try:
        driver.set_window_size(width, 1000)
        time.sleep(0.5)  # the page refits its statements on resize
        inner = driver.execute_script("return window.innerWidth")
        assert abs(inner - width) < 40, inner
        problems = driver.execute_script(_CLIPPED)
        assert problems == [], problems[:8]
        assert driver.execute_script("return document.querySelectorAll('figure.plot-figure svg.plot').length") >= 6
    finally:
        driver.set_window_size(1400, 1000)


def test_the_graph_is_grouped_shaped_zoomable_and_highlights_what_a_claim_uses(page):
    from selenium.webdriver.common.action_chains import ActionChains

    driver, report = _require(page)
    claims = report["claims"]
    driver.execute_script("document.getElementById('graph').scrollIntoView()")
    nodes = driver.execute_script("""
        return Array.from(document.querySelectorAll('svg.depgraph a.node')).map(a => {
            const r = a.querySelector('path.shape').getBoundingClientRect();
            return {id: a.dataset.id, kind: a.dataset.kind, shape: a.dataset.shape, chain: a.dataset.chain,
                    topic: a.dataset.topic, y: r.top + r.height / 2};
        });
    """)
    assert [n["id"] for n in nodes] == [c["id"] for c in claims]
    assert all(n["shape"] == KIND_SHAPES[n["kind"]] for n in nodes)
    assert len({n["shape"] for n in nodes}) >= 5  # the kinds look different
    # One band per topic, each holding exactly the claims of its topic.
    lanes = driver.execute_script("""
        return Array.from(document.querySelectorAll('svg.depgraph g.lane')).map(g => {
            const r = g.querySelector('rect').getBoundingClientRect();
            return {topic: g.dataset.topic, top: r.top, bottom: r.bottom};
        });
    """)
    assert [l["topic"] for l in lanes] == list(dict.fromkeys(topic(c["id"]) for c in claims))
    for n in nodes:
        (lane,) = [l for l in lanes if l["top"] <= n["y"] <= l["bottom"]]
        assert lane["topic"] == n["topic"] == topic(n["id"])
    # The mark for "verified with everything it depends on".
    chain = chain_status(claims)
    assert {n["id"] for n in nodes if n["chain"] == "verified"} == {k for k, v in chain.items() if v == "verified"}
    assert 0 < sum(v == "verified" for v in chain.values()) < len(claims)

    def view():
        return driver.execute_script(
            "return document.querySelector('svg.depgraph').getAttribute('viewBox').split(' ').map(Number)")

    full = view()
    driver.find_element("css selector", "[data-zoom='in']").click()
    zoomed = view()
    assert zoomed[2] < full[2] * 0.8 and zoomed[3] < full[3] * 0.8
    svg = driver.find_element("css selector", "svg.depgraph")
    driver.execute_script("""
        const s = arguments[0], r = s.getBoundingClientRect();
        s.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: r.left + 50, clientY: r.top + 50,
                                                  bubbles: true, cancelable: true}));
    """, svg)
    wheeled = view()
    assert wheeled[2] < zoomed[2]
    ActionChains(driver).move_to_element_with_offset(svg, 5, 5).click_and_hold().move_by_offset(-60, -40) \
        .release().perform()
    panned = view()
    assert panned[0] > wheeled[0] and panned[1] > wheeled[1] and panned[2] == pytest.approx(wheeled[2])
    driver.find_element("css selector", "[data-zoom='reset']").click()
    assert view() == pytest.approx(full)
    # Clicking a claim lights up exactly what it uses and what uses it.
    ups = ancestors(claims)
    downs = {c["id"]: {d for d, a in ups.items() if c["id"] in a} for c in claims}
    target = max((c["id"] for c in claims), key=lambda cid: min(len(ups[cid]), len(downs[cid])))
    assert ups[target] and downs[target]
    hash_before = driver.execute_script("return location.hash")
    driver.execute_script("window.depgraph.clear()")
    node = driver.find_element("css selector", f"svg.depgraph a.node[data-id='{target}']")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", node)
    node.click()
    lit = driver.execute_script("""
        const ids = sel => Array.from(document.querySelectorAll('svg.depgraph a.node' + sel)).map(a => a.dataset.id);
        return {sel: ids('.sel'), up: ids('.up'), down: ids('.down'),
                focus: document.querySelector('svg.depgraph').classList.contains('focus'),
                info: document.getElementById('graph-info').textContent, hash: location.hash};
    """)
    assert lit["sel"] == [target] and lit["focus"]
    assert set(lit["up"]) == ups[target] and set(lit["down"]) == downs[target]
    assert lit["hash"] == hash_before, "the first click highlights; it does not navigate"
    assert f"uses {len(ups[target])} claim(s), used by {len(downs[target])}" in lit["info"]
    edges = driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.depgraph .edge.up')).map(e => [e.dataset.from, e.dataset.to])")
    assert edges and all(f in ups[target] and (t in ups[target] or t == target) for f, t in edges)
    node.click()  # a second click goes to the claim
    assert driver.execute_script("return location.hash") == f"#claim-{target}"
    driver.execute_script("window.depgraph.clear(); window.scrollTo(0, 0)")


# ---------------------------------------------------------------------------
# A report is safe to open whoever wrote the claims (issue 37, item 1): a
# script and a URL written into a claim's statement and title neither run
# nor load, in report.html, in a report rendered again from its JSON and in
# the notebook fragment.

#: What a hostile claim's author writes; {url} is a local server that
#: records every request.
HOSTILE_STATEMENT = (r"x = \text{<script>window.__pwned = 'statement'</script>} + "
                     r"\style{background-image:url({url}/statement-style)}{y} + \href{javascript:window.__pwned='href'}{z}"
                     r" + \text{<img src='{url}/statement-img' onerror='window.__pwned=1'>}")
HOSTILE_TITLE = ("A title $\\text{<script>window.__pwned = 'title'</script>}$ with "
                 "<script>window.__pwned = 'raw title'</script><img src=\"{url}/title-img\"> in it")


@pytest.fixture(scope="module")
def listener():
    """A local HTTP server and the list of paths it was asked for."""
    import http.server
    import threading

    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server name
            asked.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def _hostile_report(url: str) -> dict:
    from fake_claims import CLAIMS

    stable = [c for c in CLAIMS if c.id == "fake.stable"]
    report = build_report(run(stable, profile=get_profile("quick")))
    for c in report["claims"]:
        c["statement"] = HOSTILE_STATEMENT.replace("{url}", url)
        c["title"] = HOSTILE_TITLE.replace("{url}", url)
        c["assumptions"] = [HOSTILE_TITLE.replace("{url}", url)]
    return report


def _opened_safely(driver, path: Path, asked: list[str]) -> None:
    driver.get(path.as_uri())
    time.sleep(0.5)  # give any load that was started the time to reach the server
    assert driver.execute_script("return window.__pwned === undefined")
    assert asked == []
    assert not driver.execute_script(
        "return Array.from(document.querySelectorAll('[href^=\"javascript\"], math [style], math [href], "
        "math script, math img')).length")


def test_a_hostile_claim_runs_nothing_and_loads_nothing_in_report_html(browser, listener, tmp_path):
    _require(True)
    url, asked = listener
    report = _hostile_report(url)
    write_reports(report, tmp_path, names=("report.json", "report.html"))
    html = (tmp_path / "report.html").read_text()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    _opened_safely(browser, tmp_path / "report.html", asked)
    # the page's own script (allowed by its hash) still runs: the filter counted the rows
    assert browser.find_element("id", "shown").text == "1"
    # the title and the statement are shown as text, for the reader to see what was written
    assert "window.__pwned = 'raw title'" in browser.find_element("tag name", "body").text


def test_a_report_json_rendered_again_runs_nothing_and_loads_nothing(browser, listener, tmp_path):
    import json

    _require(True)
    url, asked = listener
    src = tmp_path / "sent"
    src.mkdir()
    (src / "report.json").write_text(json.dumps(_hostile_report(url)))
    out = tmp_path / "again"
    proc = subprocess.run([sys.executable, "-m", "theorems", "report", str(src / "report.json"), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    _opened_safely(browser, out / "report.html", asked)


def test_the_content_security_policy_stops_what_a_sanitizer_would_miss(browser, listener, tmp_path, monkeypatch):
    """With the MathML allowlist switched off, the page's policy alone still
    keeps the script from running and the URL from loading."""
    from theorems.reporting import mathml

    _require(True)
    url, asked = listener
    monkeypatch.setattr(mathml, "_disallowed", lambda tree: None)
    monkeypatch.setattr(mathml, "_nh3_agrees", lambda markup: True)
    mathml.latex_to_mathml.cache_clear()
    try:
        report = _hostile_report(url)
        write_reports(report, tmp_path, names=("report.html",))
        assert "<script>window.__pwned" in (tmp_path / "report.html").read_text()  # the script is in the page
        browser.get((tmp_path / "report.html").as_uri())
        time.sleep(0.5)
        assert browser.execute_script("return window.__pwned === undefined") and asked == []
    finally:
        mathml.latex_to_mathml.cache_clear()


def test_the_notebook_fragment_runs_nothing_and_loads_nothing(browser, listener, tmp_path):
    from theorems.api import render_fragment

    _require(True)
    url, asked = listener
    fragment = render_fragment(_hostile_report(url))
    assert "<script" not in fragment.lower()
    page = tmp_path / "notebook.html"  # a notebook page sets no policy of its own
    page.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{fragment}</body></html>")
    _opened_safely(browser, page, asked)


def test_the_listener_does_see_a_load_that_is_not_stopped(browser, listener, tmp_path):
    """The control of the tests above: a page without policy or sanitizer
    that loads the URL and runs the script is seen doing both."""
    _require(True)
    url, asked = listener
    page = tmp_path / "open.html"
    page.write_text(f"<!DOCTYPE html><html><body><img src='{url}/control'>"
                    "<script>window.__pwned = 'control'</script></body></html>")
    browser.get(page.as_uri())
    time.sleep(0.5)
    assert browser.execute_script("return window.__pwned") == "control"
    assert "/control" in asked
    asked.clear()
