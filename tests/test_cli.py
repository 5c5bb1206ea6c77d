"""The command line as a user drives it: list, show, verify, stability and
report; one verdict across exit code and reports (``--fail-on``); every
usage error in one table (exit 2, one line, no traceback, nothing run);
report sets replaced as a whole; Ctrl-C."""

from __future__ import annotations

import copy
import io
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli_run import run_cli as _run
from theorems.cli import main
from theorems.reporting.report import REPORT_FILES, build_report, validate_report

FAKE = Path(__file__).resolve().with_name("fake_claims.py")


def _fake_report(**changes) -> dict:
    from theorems.core.profiles import get_profile
    from theorems.core.registry import load_claims, select
    from theorems.core.runner import run

    claims = select(load_claims([str(FAKE)], builtin=False), ["fake.stable", "fake.flaky"])
    report = build_report(run(claims, profile=get_profile("quick"), seed=2))
    report.update(changes)
    return report


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
    assert "# Theorem verification report" in (tmp_path / "report.md").read_text()
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


def test_the_console_script_runs_as_a_module():
    proc = subprocess.run([sys.executable, "-m", "theorems", "list"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and "recall.error" in proc.stdout


# ---------------------------------------------------------------------------
# one verdict: exit code, report.json, Markdown, HTML, JUnit and the terminal


def _verdicts(folder: Path) -> dict:
    report = json.loads((folder / "report.json").read_text())
    root = ET.parse(folder / "junit.xml").getroot()
    page = (folder / "report.html").read_text()
    return {
        "json": report["ok"],
        "fail_on": report["fail_on"],
        "junit": int(root.get("failures")) + int(root.get("errors")) == 0,
        "html": '<span class="verdict ok">' in page and '<span class="verdict bad">' not in page,
        "markdown": (folder / "report.md").read_text().lstrip().startswith("**OK**"),
    }


@pytest.mark.parametrize(
    "only, seed, fail_on, code, fail_set",
    [
        pytest.param(["fake.stable"], 1, None, 0, ["NOT SUPPORTED", "FAILED", "ERROR", "BLOCKED"], id="verified"),
        pytest.param(["fake.flaky"], 1, None, 1, ["NOT SUPPORTED", "FAILED", "ERROR", "BLOCKED"],
                     id="not-supported-fails-by-default"),
        pytest.param(["fake.flaky"], 2, None, 0, ["NOT SUPPORTED", "FAILED", "ERROR", "BLOCKED"],
                     id="supported-passes"),
        pytest.param(["fake.flaky"], 1, "FAILED,ERROR", 0, ["FAILED", "ERROR"], id="not-supported-tolerated"),
        pytest.param(["fake.undecided"], 1, None, 0, ["NOT SUPPORTED", "FAILED", "ERROR", "BLOCKED"],
                     id="inconclusive-passes-by-default"),
        pytest.param(["fake.undecided"], 1, "inconclusive", 1, ["INCONCLUSIVE"], id="inconclusive-chosen"),
        pytest.param(["fake.array-cex"], 1, "none", 0, [], id="fail-on-none"),
        pytest.param(["fake.array-cex"], 1, "not_supported,Failed", 1, ["NOT SUPPORTED", "FAILED"],
                     id="spellings"),
    ],
)
def test_exit_code_and_every_report_give_one_verdict(only, seed, fail_on, code, fail_set, tmp_path, capsys):
    argv = ["verify", "--claims", FAKE, "--seed", seed, "--out", tmp_path / "r"]
    argv += [x for o in only for x in ("--only", o)] + (["--fail-on", fail_on] if fail_on else [])
    got, out, err = _run(argv, capsys)
    assert got == code, out + err
    verdicts = _verdicts(tmp_path / "r")
    assert verdicts.pop("fail_on") == fail_set
    assert verdicts == dict.fromkeys(verdicts, code == 0)
    assert ("verdict: OK" if code == 0 else "verdict: NOT OK") in out


@pytest.mark.parametrize("fail_on, outcome", [(None, "1 failed"), ("FAILED,ERROR", "1 skipped")])
def test_pytest_items_follow_the_same_fail_on_set(fail_on, outcome, tmp_path):
    """A NOT SUPPORTED check fails its pytest item as it fails verify, and is
    skipped (with its reason) where --theorems-fail-on leaves it out."""
    argv = [sys.executable, "-m", "pytest", "--theorems", "--theorems-claims", str(FAKE), "--theorems-seed", "1",
            "-k", "fake.flaky and not negative", "-q", "-p", "no:cacheprovider", "-rs"]
    argv += ["--theorems-fail-on", fail_on] if fail_on else []
    proc = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert f"{outcome}, " in proc.stdout, proc.stdout + proc.stderr
    assert proc.returncode == (1 if fail_on is None else 0)
    if fail_on:
        assert "not_supported, not in --theorems-fail-on: the run seed is odd" in proc.stdout


def test_the_summary_names_every_claim_not_verified_with_figure_and_threshold(tmp_path, capsys):
    argv = ["verify", "--claims", FAKE, "--seed", 1, "--out", tmp_path]
    for cid in ("fake.stable", "fake.flaky", "fake.undecided", "fake.array-cex"):
        argv += ["--only", cid]
    code, out, _ = _run(argv, capsys)
    assert code == 1
    summary = out.split("\n\n", 1)[1]
    assert "fake.stable" not in summary
    assert "fake.flaky NOT SUPPORTED (fails the run)" in summary
    assert "[sim] not_supported: figure 1 against <= 0.5" in summary
    assert "fake.undecided INCONCLUSIVE\n" in summary and "figure 0.2 against <= 0.1" in summary
    # a counterexample holding arrays is rendered through jsonable; the failures after it still show
    assert "fake.array-cex FAILED (fails the run)" in summary
    assert 'counterexample: {"K": [[1.0, 2.0], [3.0, "inf"]], "n": 2}' in summary
    assert "verdict: NOT OK: 1 NOT SUPPORTED, 1 FAILED" in summary


def test_replay_commands_write_to_a_scratch_folder_and_name_the_module_absolutely(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(FAKE.parent)
    code, _, _ = _run(["verify", "--claims", FAKE.name, "--only", "fake.flaky", "--seed", 1,
                       "--out", tmp_path / "r"], capsys)
    assert code == 1
    replay = json.loads((tmp_path / "r" / "report.json").read_text())["claims"][0]["evidence"][0]["replay"]
    scratch = os.path.join(os.path.realpath(os.environ.get("TMPDIR", "/tmp")), "theorems-replay", "fake.flaky")
    assert f"--claims {FAKE}" in replay and replay.endswith(f"--out {scratch}") or replay.endswith(
        "--out " + os.path.join(__import__("tempfile").gettempdir(), "theorems-replay", "fake.flaky"))
    monkeypatch.chdir(tmp_path)  # the replay works from anywhere and leaves ./reports alone
    assert _run(replay.split()[1:], capsys)[0] == 1
    assert not (tmp_path / "reports").exists()


def test_a_partial_run_says_it_replaces_the_full_report(tmp_path, capsys):
    full = _fake_report(selection={"only": [], "kind": [], "claims_modules": []})
    (tmp_path / "report.json").write_text(json.dumps(full))
    code, out, _ = _run(["verify", "--claims", FAKE, "--only", "fake.stable", "--out", tmp_path], capsys)
    assert code == 0
    assert "partial run (1 of " in out and f"it replaces the full report in {tmp_path} (2 claims)" in out
    assert "give --out to write beside it" in out
    code, out, _ = _run(["verify", "--claims", FAKE, "--only", "fake.stable", "--out", tmp_path / "new"], capsys)
    assert f"reports go to {tmp_path / 'new'}" in out


# ---------------------------------------------------------------------------
# usage errors: exit 2, one line naming the option and the value, no
# traceback, no claim run


def _files(tmp: Path) -> None:
    (tmp / "afile").write_text("x")
    (tmp / "withsub" / "sub").mkdir(parents=True)
    (tmp / "raises.py").write_text("X = 1\nraise RuntimeError('boom at import')\n")
    (tmp / "syntax.py").write_text("CLAIMS = [\n")
    (tmp / "five.py").write_text("CLAIMS = 5\n")
    (tmp / "text.py").write_text("CLAIMS = 'abc'\n")
    (tmp / "entries.py").write_text("CLAIMS = ['not a claim']\n")
    (tmp / "nothing.py").write_text("X = 1\n")
    (tmp / "deps.py").write_text("import os\nimport no_such_package_for_theorems_tests\nCLAIMS = []\n")
    (tmp / "exits.py").write_text("import sys\nsys.exit(3)\n")
    (tmp / "notes.txt").write_text("CLAIMS = []\n")
    (tmp / "pkgdir").mkdir()
    good = _fake_report()
    (tmp / "good.json").write_text(json.dumps(good))
    dup = copy.deepcopy(good)
    dup["claims"].append(copy.deepcopy(dup["claims"][0]))
    dup["counts"][dup["claims"][0]["status"]] += 1
    (tmp / "dup.json").write_text(json.dumps(dup))
    miscount = copy.deepcopy(good)
    miscount["counts"]["VERIFIED"] += 3
    (tmp / "miscount.json").write_text(json.dumps(miscount))
    wrong_ok = copy.deepcopy(good)
    wrong_ok["claims"][1]["status"] = "FAILED"
    wrong_ok["counts"] = {s: sum(c["status"] == s for c in wrong_ok["claims"]) for s in wrong_ok["counts"]}
    (tmp / "wrong_ok.json").write_text(json.dumps(wrong_ok))
    (tmp / "other").mkdir()
    (tmp / "other" / "report.json").write_text(json.dumps(good))


USAGE_ERRORS = [
    # selection
    pytest.param(["verify", "--only", "no.such"], "match no claim", id="only-matches-nothing"),
    pytest.param(["verify", "--kind", "wishful"], "kind must be one of", id="unknown-kind"),
    pytest.param(["show", "recall.nope"], "no claim 'recall.nope'", id="show-unknown-id"),
    pytest.param(["nonsense"], "invalid choice: 'nonsense'", id="unknown-command"),
    # option values (argparse)
    pytest.param(["verify", "--profile", "huge"], "argument --profile: invalid choice: 'huge'", id="profile"),
    pytest.param(["verify", "--seed", "-1"], "argument --seed: must be an integer in 0 .. 2**128 - 1, got -1", id="seed"),
    pytest.param(["verify", "--jobs", "0"], "argument --jobs: must be an integer >= 1, got 0", id="jobs"),
    pytest.param(["verify", "--fail-on", "FAILED,SOMETIMES"], "argument --fail-on: needs statuses among",
                 id="fail-on-unknown-status"),
    pytest.param(["verify", "--bogus"], "unrecognized arguments: --bogus", id="unknown-option"),
    pytest.param(["stability", "--seeds", "0"], "argument --seeds: must be an integer >= 1, got 0", id="seeds"),
    # --out, checked before any claim runs
    pytest.param(["verify", "--out", "{tmp}/afile"], "--out '{tmp}/afile' is a file, not a folder",
                 id="out-is-a-file"),
    pytest.param(["verify", "--out", ""], "--out got ''; needs a folder path", id="out-empty"),
    pytest.param(["verify", "--out", "/proc/forbidden"], "--out '/proc/forbidden' cannot be written",
                 id="out-unwritable"),
    pytest.param(["verify", "--out", "{tmp}/afile/below"], "cannot be created: {tmp}/afile is a file",
                 id="out-below-a-file"),
    pytest.param(["verify", "--out", "/"], "--out '/' is the root folder", id="out-root"),
    pytest.param(["verify", "--out", "{tmp}/withsub"], "--out '{tmp}/withsub' holds folders (sub)",
                 id="out-holds-folders"),
    pytest.param(["verify", "--out", "."], "--out '.' is or holds the current folder", id="out-current-folder"),
    pytest.param(["stability", "--out", "{tmp}/afile"], "--out '{tmp}/afile' is a file", id="stability-out-file"),
    # the sweep cache, checked before any claim runs
    pytest.param(["verify", "--only", "lev.range", "--out", "{tmp}/r", "ENV:THEOREMS_CACHE={tmp}/afile"],
                 "THEOREMS_CACHE='{tmp}/afile' names a file, not a folder", id="cache-is-a-file"),
    pytest.param(["verify", "--only", "lev.range", "--out", "{tmp}/r", "ENV:THEOREMS_CACHE={tmp}/afile/c"],
                 "cannot be created: {tmp}/afile is a file", id="cache-below-a-file"),
    # claims modules
    pytest.param(["verify", "--claims", "does/not/exist.py"], "claims module 'does/not/exist.py' does not exist",
                 id="claims-missing"),
    pytest.param(["verify", "--claims", "{tmp}/raises.py"],
                 "claims module '{tmp}/raises.py' failed to import: raised RuntimeError: boom at import "
                 "(at {tmp}/raises.py:2)", id="claims-raises"),
    pytest.param(["verify", "--claims", "{tmp}/syntax.py"], "failed to import: has a syntax error", id="claims-syntax"),
    pytest.param(["verify", "--claims", "{tmp}/five.py"], "CLAIMS must be a list of Claim objects, got int 5",
                 id="claims-is-an-int"),
    pytest.param(["verify", "--claims", "{tmp}/text.py"], "CLAIMS must be a list of Claim objects, got str 'abc'",
                 id="claims-is-a-string"),
    pytest.param(["list", "--claims", "{tmp}/five.py"], "CLAIMS must be a list of Claim objects, got int",
                 id="list-claims-is-an-int"),
    pytest.param(["verify", "--claims", "{tmp}/entries.py"], "CLAIMS[0] must be a Claim, got str",
                 id="claims-entry-not-a-claim"),
    pytest.param(["list", "--claims", "{tmp}/nothing.py"], "defines no list CLAIMS", id="claims-absent"),
    pytest.param(["verify", "--claims", "{tmp}/deps.py"],
                 "claims module '{tmp}/deps.py' failed to import: raised ModuleNotFoundError: No module named "
                 "'no_such_package_for_theorems_tests' (at {tmp}/deps.py:2)", id="claims-import-error-inside"),
    pytest.param(["verify", "--claims", "{tmp}/exits.py"], "failed to import: raised SystemExit: 3",
                 id="claims-exits"),
    pytest.param(["verify", "--claims", "{tmp}/notes.txt"], "'{tmp}/notes.txt' is not a .py file",
                 id="claims-not-py"),
    pytest.param(["verify", "--claims", "{tmp}/pkgdir"], "'{tmp}/pkgdir' is a folder", id="claims-folder"),
    pytest.param(["verify", "--claims", "no_such_claims_module_xyz"],
                 "claims module 'no_such_claims_module_xyz' cannot be found", id="claims-name-not-found"),
    pytest.param(["verify", "--claims", str(FAKE), "--claims", str(FAKE)], "already defined by",
                 id="claims-twice"),
    # reports
    pytest.param(["report"], "give a report.json to render, or --compare", id="report-nothing"),
    pytest.param(["report", "{tmp}/missing.json"], "{tmp}/missing.json: no such file", id="report-missing"),
    pytest.param(["report", "{tmp}/good.json", "--out", "{tmp}/afile"], "--out '{tmp}/afile' is a file",
                 id="report-out-is-a-file"),
    pytest.param(["report", "{tmp}/good.json", "--out", "{tmp}/other"],
                 "holds the report.json of another run", id="report-out-would-mix-runs"),
    pytest.param(["report", "--compare", "{tmp}/good.json", "{tmp}/dup.json"],
                 "claim id 'fake.stable' appears 2 times", id="compare-duplicate-id"),
    pytest.param(["report", "{tmp}/miscount.json"], "counts say 4 VERIFIED but 1 claims have that status",
                 id="report-inconsistent-counts"),
    pytest.param(["report", "{tmp}/wrong_ok.json"], "ok is true but 1 claims have a status in fail_on",
                 id="report-inconsistent-ok"),
]


@pytest.mark.parametrize("argv, fragment", USAGE_ERRORS)
def test_usage_errors_exit_2_with_one_line_and_run_nothing(argv, fragment, tmp_path, capsys, monkeypatch):
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    fill = lambda s: s.replace("{tmp}", str(tmp_path))  # noqa: E731
    for a in argv:
        if a.startswith("ENV:"):
            name, value = a[4:].split("=", 1)
            monkeypatch.setenv(name, fill(value))
    args = [fill(a) for a in argv if not a.startswith("ENV:")]
    code, out, err = _run(args, capsys)
    assert code == 2, out + err
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    command = args[0] if args[0] in ("verify", "list", "show", "report", "stability") else None
    assert err.startswith(f"theorems {command}: error: " if command else "theorems: error: "), err
    assert fill(fragment) in err
    assert "Traceback" not in out + err
    assert "claims, profile" not in out and "claims x" not in out  # nothing ran
    assert not (tmp_path / "r").exists()


def test_the_usage_table_holds_every_case_the_issue_lists():
    ids = {p.id for p in USAGE_ERRORS}
    assert {"out-is-a-file", "report-out-is-a-file", "claims-raises", "claims-syntax", "claims-is-an-int",
            "claims-is-a-string", "claims-not-py", "claims-folder", "list-claims-is-an-int", "out-unwritable",
            "out-empty", "compare-duplicate-id", "report-inconsistent-counts", "cache-is-a-file",
            "claims-import-error-inside"} <= ids
    assert len(ids) == len(USAGE_ERRORS)


def test_a_usage_error_through_the_console_script_prints_no_traceback(tmp_path):
    (tmp_path / "raises.py").write_text("raise RuntimeError('boom')\n")
    proc = subprocess.run([sys.executable, "-m", "theorems", "list", "--claims", str(tmp_path / "raises.py")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr and "boom" in proc.stderr


# ---------------------------------------------------------------------------
# the report set: replaced as a whole, stale temporaries removed


def test_the_report_set_is_swapped_in_whole_and_other_files_are_kept(tmp_path, capsys):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "README.md").write_text("kept\n")
    (out / ".report.json.k3y.tmp").write_text("left by a killed run of the per-file writer")
    (tmp_path / ".reports.new-999999999-ab12.tmp").mkdir()  # a killed run's half-written set
    inode = (out / "README.md").stat().st_ino
    assert _run(["verify", "--claims", FAKE, "--only", "fake.stable", "--out", out], capsys)[0] == 0
    assert sorted(p.name for p in out.iterdir()) == sorted([*REPORT_FILES, "README.md"])
    assert (out / "README.md").stat().st_ino == inode  # carried over by hard link, not copied
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_a_swap_killed_between_its_two_renames_is_undone_by_the_next_command(tmp_path, capsys):
    # the state a SIGKILL leaves after ``reports`` -> old and before new -> ``reports``
    old, new = tmp_path / ".reports.old-999999999-cd34.tmp", tmp_path / ".reports.new-999999999-cd34.tmp"
    old.mkdir()
    new.mkdir()
    (old / "report.json").write_text(json.dumps(_fake_report()))
    (new / "report.json").write_text('{"run": "new"}')
    for name in REPORT_FILES[1:]:
        (old / name).write_text("old")
        (new / name).write_text("new")
    code, _, err = _run(["report", tmp_path / "reports" / "report.json", "--out", tmp_path / "again"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again", "reports"]
    assert all((tmp_path / "reports" / n).read_text() == "old" for n in REPORT_FILES[1:])


def test_an_interrupted_write_keeps_the_previous_set(tmp_path, capsys, monkeypatch):
    out = tmp_path / "reports"
    assert _run(["verify", "--claims", FAKE, "--only", "fake.stable", "--out", out], capsys)[0] == 0
    before = {n: (out / n).read_text() for n in REPORT_FILES}
    real_rename = os.rename
    calls = []

    def rename(src, dst):
        calls.append(dst)
        if len(calls) == 2:  # between moving the old set aside and moving the new one in
            raise KeyboardInterrupt
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    code, _, err = _run(["verify", "--claims", FAKE, "--only", "fake.flaky", "--seed", 1, "--out", out], capsys)
    monkeypatch.setattr(os, "rename", real_rename)
    assert code == 130 and err == f"theorems verify: interrupted; the previous reports in {out} were kept\n"
    assert {n: (out / n).read_text() for n in REPORT_FILES} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_exits_130_with_one_line_and_keeps_the_reports(jobs, tmp_path):
    out = tmp_path / "reports"
    base = [sys.executable, "-m", "theorems", "verify", "--claims", str(FAKE), "--out", str(out)]
    subprocess.run(base + ["--only", "fake.stable"], capture_output=True, check=True)
    before = (out / "report.json").read_text()
    # SIG_DFL in the child: a shell without job control starts background jobs with SIGINT ignored, and
    # Python then never raises KeyboardInterrupt (so the test does not depend on how pytest was launched)
    proc = subprocess.Popen(base + ["--only", "fake.sleep", "--only", "fake.stable", "--jobs", str(jobs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    header = proc.stdout.readline()
    while "claims, profile" not in header:
        header = proc.stdout.readline()
        assert header, proc.stderr.read()
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the whole process group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == f"theorems verify: interrupted; the previous reports in {out} were kept\n"
    assert (out / "report.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]
