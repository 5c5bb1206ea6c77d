"""The Python API (``theorems.verify`` and its run object, shown in a
notebook) and the command line's light paths (``--version``, ``verify
--help``, ``list``/``show`` from the catalogue index)."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser

import pytest

import theorems
from theorems.cli import main
from theorems.reporting.report import validate_report


@pytest.fixture(scope="module")
def one_claim_run():
    return theorems.verify(only="lev.range", seed=3)


def test_verify_runs_one_claim_and_writes_the_reports(one_claim_run, tmp_path):
    run = one_claim_run
    assert run.ok and run.counts["VERIFIED"] == 1 and sum(run.counts.values()) == 1
    assert [c["id"] for c in run.claims] == ["lev.range"] and len(run) == 1
    assert run["lev.range"]["status"] == "VERIFIED" and run.report["seed"] == 3
    assert "1 VERIFIED" in repr(run) and "OK" in repr(run)
    paths = run.write(tmp_path / "out")
    assert {p.name for p in paths} >= {"report.json", "report.html"}
    written = json.loads((tmp_path / "out" / "report.json").read_text())
    validate_report(written)
    assert written["claims"][0]["evidence"] == run.claims[0]["evidence"]
    with pytest.raises(KeyError, match="recall.snr"):
        run["recall.snr"]


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: list[str] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.ids += [v for k, v in attrs if k == "id"]
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)


def test_the_html_fragment_renders_twice_on_one_page_without_clashes(one_claim_run):
    first, second = one_claim_run._repr_html_(), one_claim_run._repr_html_()
    page = _Page()
    page.feed(f"<!DOCTYPE html><html><head></head><body>{first}{second}</body></html>")
    assert len(page.ids) == len(set(page.ids)) >= 2, page.ids
    roots = [i for i in page.ids if i.startswith("theorems-run-") and "-c" not in i[len("theorems-run-"):]]
    assert len(roots) == 2 and len(page.styles) == 2
    for root, css in zip(roots, page.styles):
        assert "body{" not in css and "*{" not in css and ":root" not in css and "html{" not in css
        for rule in css.split("}"):
            if rule.strip():
                selectors = rule.split("{")[0].split(",")
                assert all(s.strip().startswith(f"#{root}") for s in selectors), rule
    assert "lev.range" in first and "VERIFIED" in first and "<html" not in first


def test_a_failing_check_shows_its_detail_and_replay_in_the_fragment():
    from theorems.api import render_fragment

    report = {"counts": {"FAILED": 1}, "ok": False, "profile": {"name": "quick"}, "seed": 1, "duration_s": 0.5,
              "claims": [{"id": "x.y", "status": "FAILED", "title": "a <b> claim with $h_j$", "seconds": 0.1,
                          "evidence": [{"check": "float", "kind": "property", "status": "failed", "figure": 3.0,
                                        "threshold": 1.0, "comparison": "<=", "detail": "too big",
                                        "counterexample": [1, 2], "replay": "theorems verify --only x.y"}]}]}
    html = render_fragment(report)
    assert "NOT OK" in html and "too big" in html and "theorems verify --only x.y" in html
    assert "a &lt;b&gt; claim" in html and "<math" in html


@pytest.mark.parametrize("kwargs, error, words", [
    ({"only": 3}, TypeError, "only must be a string"),
    ({"kind": ["expectation", 1]}, TypeError, "kind must be a string"),
    ({"seed": -1}, ValueError, "seed must be >= 0"),
    ({"seed": 1.5}, TypeError, "seed must be an int"),
    ({"profile": "fast"}, ValueError, "profile must be one of"),
    ({"only": "nope.*"}, ValueError, "match no claim id"),
    ({"jobs": 0}, ValueError, "jobs must be"),
])
def test_bad_arguments_are_refused_naming_the_argument(kwargs, error, words):
    with pytest.raises(error, match=words):
        theorems.verify(**kwargs)


def test_importing_theorems_stays_light_and_version_help_describe_the_cli(capsys):
    probe = ("import sys, theorems, theorems.cli; "
             "print(sorted(m for m in ('scipy', 'sympy', 'hypothesis', 'matplotlib') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "[]"
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith(f"theorems {theorems.__version__}")
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    helptext = capsys.readouterr().out
    assert "exit status" in helptext and "usage error" in helptext and "--observe FILE" in helptext
    for word in ("quick (default)", "standard", "thorough", "identity", "expectation", "counterexample",
                 "underspecified"):
        assert word in helptext


_LIST_PROBE = """
import io, json, sys, contextlib
from theorems.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    main(["list", "--json"]); main(["show", "recall.snr"])
heavy = sorted(m for m in ("scipy", "sympy", "hypothesis", "matplotlib") if m in sys.modules)
print(json.dumps({"out": out.getvalue(), "heavy": heavy}))
"""


def _probe(env_cache: str) -> dict:
    import os

    env = {**os.environ, "THEOREMS_CACHE": env_cache}
    done = subprocess.run([sys.executable, "-c", _LIST_PROBE], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def test_list_and_show_read_the_index_without_importing_claims_and_print_the_same(tmp_path):
    from theorems.index import INDEX_FILE

    cache = tmp_path / "cache"
    building = _probe(str(cache))  # first call: imports the catalogue, writes the index
    assert (cache / INDEX_FILE).exists() and "sympy" in building["heavy"]
    indexed = _probe(str(cache))
    assert indexed["heavy"] == [] and indexed["out"] == building["out"]
    assert _probe("off")["out"] == building["out"]  # cache off: the claims as before

    stored = json.loads((cache / INDEX_FILE).read_text())
    stored["key"] = "stale"
    stored["claims"] = stored["claims"][:1]
    (cache / INDEX_FILE).write_text(json.dumps(stored))
    rebuilt = _probe(str(cache))
    assert rebuilt["out"] == building["out"] and json.loads((cache / INDEX_FILE).read_text())["key"] != "stale"


def test_indexed_checks_describe_but_do_not_run_and_the_cache_folder_matches_linmem(tmp_path, monkeypatch):
    from theorems.scale.sweepcache import default_cache_dir
    from theorems import index

    for value in (str(tmp_path / "c"), "off", "0", "~/x"):
        monkeypatch.setenv("THEOREMS_CACHE", value)
        assert index.cache_dir() == default_cache_dir()
    monkeypatch.delenv("THEOREMS_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert index.cache_dir() == default_cache_dir()

    monkeypatch.setenv("THEOREMS_CACHE", str(tmp_path / "c"))
    index.catalogue()
    reg = index.catalogue()
    claim = reg.get("recall.snr")
    assert claim.checks[0].description and claim.negative_control.description
    with pytest.raises(RuntimeError, match="metadata only"):
        claim.checks[0].run(None)
