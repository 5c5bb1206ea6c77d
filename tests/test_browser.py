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
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from pathlib import Path

import pytest

from theorems.plots import plot_sources
from theorems.profiles import get_profile
from theorems.registry import load_claims
from theorems.report import build_report, validate_report, write_reports
from theorems.runner import run

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
    maths = driver.find_elements("css selector", ".statement math")
    assert len(maths) == len(report["claims"])
    # MathML is laid out (a box with a size), not shown as a string of tags.
    sizes = driver.execute_script(
        "return Array.from(document.querySelectorAll('.statement math')).map(m => m.getBoundingClientRect().height)")
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
