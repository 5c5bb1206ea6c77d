"""The command line as a user drives it: list, show, verify and its reports."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from theorems.cli import main
from theorems.report import validate_report


def test_list_prints_every_claim_and_json_is_machine_readable(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "recall.error" in out and "claims" in out
    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"id", "kind", "title", "depends_on", "checks"} <= set(rows[0])


def test_show_describes_a_claim_and_refuses_an_unknown_id(capsys):
    assert main(["show", "recall.error"]) == 0
    out = capsys.readouterr().out
    assert "expectation" in out and "negative control" in out
    assert main(["show", "recall.nope"]) == 2
    assert "no claim 'recall.nope'" in capsys.readouterr().err


def test_verify_writes_valid_reports_and_exits_zero(tmp_path, capsys):
    code = main(["verify", "--only", "lev.range", "--only", "recall.error", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    report = json.loads((tmp_path / "report.json").read_text())
    validate_report(report)
    assert [c["id"] for c in report["claims"]] == ["lev.range", "recall.error"]
    assert all(c["status"] == "VERIFIED" for c in report["claims"])
    for c in report["claims"]:
        for e in c["evidence"]:
            assert {"kind", "status", "figure", "threshold", "cases"} <= set(e)
    assert report["environment"]["packages"]["numpy"]
    assert (tmp_path / "report.md").read_text().startswith("# Theorem verification report")
    assert "[  1/2] lev.range" in out


def test_verify_writes_html_and_junit_beside_the_json(tmp_path, capsys):
    assert main(["verify", "--only", "lev.range", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for name in ("report.json", "report.md", "report.html", "junit.xml"):
        assert str(tmp_path / name) in out
    page = (tmp_path / "report.html").read_text()
    assert 'id="claim-lev.range"' in page and "<math" in page
    cases = ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    assert {(k.get("classname"), k.get("name")) for k in cases} == {
        ("lev.range", e["check"]) for e in json.loads((tmp_path / "report.json").read_text())["claims"][0]["evidence"]}


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_verify_on_a_terminal_shows_a_progress_bar_with_an_eta(tmp_path, monkeypatch):
    term = _Terminal()
    monkeypatch.setattr(sys, "stdout", term)
    monkeypatch.setenv("TERM", "xterm")
    assert main(["verify", "--only", "lev.range", "--only", "recall.mean-error", "--out", str(tmp_path)]) == 0
    out = term.getvalue()
    assert "\r[" in out and "ETA" in out and "2/2 100%" in out
    assert "[  1/2]" not in out  # passing claims leave no line of their own on a terminal
    assert "reports: " in out


def test_verify_with_controls_reports_each_control_caught(tmp_path, capsys):
    assert main(["verify", "--only", "recall.mean-error", "--controls", "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["claims"][0]["negative_control"]["caught"] is True


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["verify", "--only", "no.such"], "match no claim"),
        (["verify", "--kind", "wishful"], "kind must be one of"),
        (["verify", "--claims", "does/not/exist.py"], "does not exist"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv, fragment, capsys):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["verify", "--profile", "huge"], ["verify", "--seed", "-1"], ["verify", "--jobs", "0"]])
def test_argparse_refuses_out_of_range_options(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_the_console_script_runs_as_a_module():
    proc = subprocess.run([sys.executable, "-m", "theorems", "list"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and "recall.error" in proc.stdout
