"""What a report may contain (issue 37, item 1), without a browser: the
MathML of a claim's LaTeX passes an allowlist, every other text is escaped,
report.html carries its Content-Security-Policy with its own script's hash,
and the notebook fragment holds no script. A report.json whose every string
carries markup renders to a page whose only script is its own."""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

import pytest

from theorems.api import render_fragment
from theorems.reporting import html as report_html
from theorems.reporting.mathml import MATHML_ATTRIBUTES, MATHML_ELEMENTS, latex_to_mathml

PAYLOAD = "<script>window.x=1</script><img src=http://example.invalid/x onerror=alert(1)><a href=javascript:1>a</a>"


class _Tags(HTMLParser):
    """Every start tag of a page with its attributes, and the text of its scripts."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def _tags(markup: str) -> _Tags:
    parser = _Tags()
    parser.feed(markup)
    return parser


@pytest.mark.parametrize(("latex", "refused"), [
    (r"\text{<script>alert(1)</script>}", "<script>"),
    (r"\style{background-image:url(http://example.invalid/)}{x}", "'style' attribute"),
    (r"\href{javascript:alert(1)}{x}", "'href' attribute"),
    (r"\class{evil}{x}", "'class' attribute"),
    (r"\text{<b>x</b>}", "<b>"),
])
def test_latex_that_would_carry_markup_is_shown_as_escaped_source(latex, refused):
    markup, error = latex_to_mathml(latex)
    assert error is not None and refused in error
    assert markup.startswith('<code class="latex-fallback"')
    assert [t for t, _ in _tags(markup).tags] == ["code"]


@pytest.mark.parametrize(("mathml", "refused"), [
    ("<mtext onclick='alert(1)'>x</mtext>", "'onclick' attribute"),
    ("<svg xmlns='http://www.w3.org/2000/svg'><a/></svg>", "outside MathML"),
    ("<maction actiontype='statusline'>x</maction>", "<maction>"),
    ("<semantics><annotation-xml encoding='text/html'>x</annotation-xml></semantics>", "<semantics>"),
    ("<mi mathvariant='url(x)'>x</mi>", "the value 'url(x)'"),
    ("<mi xmlns:xlink='http://www.w3.org/1999/xlink' xlink:href='javascript:1'>x</mi>", "'href' attribute"),
    ("<mi id='claim-x'>x</mi>", "'id' attribute"),
])
def test_the_allowlist_refuses_what_a_converter_could_emit(mathml, refused):
    import xml.etree.ElementTree as ET

    from theorems.reporting.mathml import _disallowed

    tree = ET.fromstring(f"<math xmlns='http://www.w3.org/1998/Math/MathML'><mrow>{mathml}</mrow></math>")
    assert refused in _disallowed(tree)


def test_converted_mathml_holds_only_allowlisted_elements_and_attributes():
    markup, error = latex_to_mathml(r"\frac{1}{M}\sum_{i \ne j} \left\| W k_i \right\|^2 \le \color{red}{\log n}")
    assert error is None
    for tag, attrs in _tags(markup).tags:
        assert tag in MATHML_ELEMENTS and set(attrs) <= MATHML_ATTRIBUTES


def _hostile(report: dict) -> dict:
    """Every free-text string of ``report`` with markup appended."""
    keep = {"status", "kind", "comparison", "schema_version", "generated_at"}

    def walk(x, key=None):
        if isinstance(x, dict):
            return {k: walk(v, k) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v, key) for v in x]
        if isinstance(x, str) and key not in keep:
            return x + PAYLOAD
        return x

    return walk(report)


@pytest.fixture(scope="module")
def demo_report() -> dict:
    from test_reports import _demo_claims

    from theorems.core.profiles import get_profile
    from theorems.core.runner import run
    from theorems.reporting.report import build_report

    return build_report(run(_demo_claims(), profile=get_profile("quick"), controls=True))


def test_a_report_whose_every_string_carries_markup_renders_with_its_own_script_only(demo_report):
    page = report_html.render_html(_hostile(demo_report))
    tags = _tags(page)
    assert [t for t, _ in tags.tags if t == "script"] == ["script"] and tags.scripts == [report_html._JS]
    assert not [t for t, _ in tags.tags if t in ("img", "iframe", "object", "embed", "link", "base")]
    assert [t for t, _ in tags.tags if t == "form"] == ["form"]  # the page's own filters
    for tag, attrs in tags.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        assert not str(attrs.get("href", "")).lower().startswith("javascript"), (tag, attrs)


def test_the_page_policy_loads_nothing_and_allows_its_script_by_hash(demo_report):
    page = report_html.render_html(demo_report)
    metas = [a for t, a in _tags(page).tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert len(metas) == 1
    policy = dict(d.strip().split(" ", 1) for d in metas[0]["content"].split(";"))
    digest = base64.b64encode(hashlib.sha256(report_html._JS.encode()).digest()).decode()
    assert policy["default-src"] == "'none'" and policy["script-src"] == f"'sha256-{digest}'"
    assert policy["img-src"] == "data:" and policy["base-uri"] == "'none'" and policy["form-action"] == "'none'"
    # the policy comes before anything that could load or run
    assert page.index("Content-Security-Policy") < page.index("<style>") < page.index("<script>")


def test_the_notebook_fragment_of_a_hostile_report_holds_no_script_and_no_loading_element(demo_report):
    fragment = render_fragment(_hostile(demo_report))
    tags = _tags(fragment)
    assert not [t for t, _ in tags.tags if t in ("script", "img", "iframe", "object", "embed", "link", "base")]
    for tag, attrs in tags.tags:
        assert not [a for a in attrs if a.startswith("on")] and "href" not in attrs, (tag, attrs)
    assert re.search(r"&lt;script&gt;window\.x=1", fragment)  # the reader sees what was written
