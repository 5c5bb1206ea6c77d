"""A claim whose check ends or hangs its process costs that claim alone: by
default and with --jobs 2 every claim runs in a supervised worker, so a
segfault, an abort, an os._exit(0) or a spin in C is that claim's ERROR
naming the cause and the check, the run goes on and the reports are written;
the same under pytest --theorems. Budgets are set from the command line and
spent once per claim."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crash_claims import CRASHES
from theorems.cli import main
from theorems.reporting.report import REPORT_FILES

CRASH_CLAIMS = Path(__file__).with_name("crash_claims.py")
HEALTHY = ("crash.healthy-a", "crash.healthy-b")


def _verify(tmp_path: Path, ids, *extra: str) -> tuple[int, dict, Path]:
    out = tmp_path / "out"
    only = [a for cid in ids for a in ("--only", cid)]
    code = main(["verify", "--claims", str(CRASH_CLAIMS), *only, "--out", str(out), *extra])
    report = json.loads((out / "report.json").read_text())
    return code, {c["id"]: c for c in report["claims"]}, out


def _evidence(claim: dict) -> dict[str, dict]:
    return {e["check"]: e for e in claim["evidence"]}


@pytest.mark.parametrize("extra", [pytest.param((), id="default"), pytest.param(("--jobs", "2"), id="jobs-2")])
def test_crashing_claims_are_errors_naming_their_cause_and_the_others_are_verified(tmp_path, extra, capsys):
    code, claims, out = _verify(tmp_path, [*CRASHES, *HEALTHY], *extra)
    assert code == 1
    assert sorted(p.name for p in out.iterdir()) == sorted(REPORT_FILES)
    assert {cid: c["status"] for cid, c in claims.items()} == {
        **{cid: "ERROR" for cid in CRASHES}, **{cid: "VERIFIED" for cid in HEALTHY}}
    for cid, cause in CRASHES.items():
        ev = _evidence(claims[cid])
        assert ev["first"]["status"] == "passed"  # what the claim did before the crash is kept
        assert ev["crash"]["status"] == "error" and cause in ev["crash"]["detail"], ev["crash"]["detail"]
        if cid != "crash.huge":  # numpy's MemoryError is an ordinary exception: the next check runs
            assert "check 'crash'" in ev["crash"]["detail"]
            assert ev["last"]["status"] == "error" and ev["last"]["detail"].startswith("not run")
    printed = capsys.readouterr().out
    assert "killed by signal SIGSEGV" in printed and "verdict: NOT OK: 4 ERROR" in printed


def test_a_check_that_spins_past_its_budget_costs_one_budget_and_its_neighbour_is_verified(tmp_path, capsys):
    start = time.monotonic()
    code, claims, _ = _verify(tmp_path, ["crash.spin", "crash.loop", "crash.healthy-a"], "--check-budget", "5")
    took = time.monotonic() - start
    assert code == 1 and took < 30, took
    assert claims["crash.healthy-a"]["status"] == "VERIFIED"
    spin, loop = _evidence(claims["crash.spin"]), _evidence(claims["crash.loop"])
    # blocked alarm, as C code that never returns to Python: the parent kills the worker
    assert claims["crash.spin"]["status"] == "ERROR"
    assert "ran past its budget of 5 s" in spin["crash"]["detail"] and "killed" in spin["crash"]["detail"]
    # a Python loop: the alarm ends it; the check after it does not run (one budget per claim)
    assert claims["crash.loop"]["status"] == "ERROR"
    assert "CheckTimeout" in loop["crash"]["detail"] and "remaining checks were not run" in loop["crash"]["detail"]
    assert loop["last"]["detail"].startswith("not run: check 'crash' of this claim ran past its budget of 5 s")
    assert loop["last"]["seconds"] == 0


def test_a_run_cut_by_a_budget_records_no_estimate_for_that_claim(tmp_path, monkeypatch, capsys):
    from theorems.reporting.progress import recorded_durations

    monkeypatch.setenv("THEOREMS_CACHE", str(tmp_path / "cache"))
    # the profile named, so that THEOREMS_PROFILE (standard in CI) cannot move the record
    _verify(tmp_path, ["crash.loop", "crash.healthy-a"], "--check-budget", "1", "--profile", "quick")
    assert set(recorded_durations("quick")) == {"crash.healthy-a"}


@pytest.mark.parametrize("value", ["0", "-3", "abc", "inf", "nan"])
def test_a_bad_check_budget_is_a_usage_error_in_one_line(value, capsys, monkeypatch, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(["verify", "--check-budget", value, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "--check-budget" in err and "number of seconds > 0" in err

    monkeypatch.setenv("THEOREMS_CHECK_BUDGET", value)
    code = main(["verify", "--claims", str(CRASH_CLAIMS), "--only", "crash.healthy-a", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err == (f"theorems verify: error: THEOREMS_CHECK_BUDGET must be a number of seconds > 0, "
                                 f"got {value!r}\n")


def test_the_budget_from_the_environment_is_the_runs_and_the_option_overrides_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("THEOREMS_CHECK_BUDGET", "7")
    _, _, out = _verify(tmp_path, ["crash.healthy-a"])
    assert json.loads((out / "report.json").read_text())["profile"]["check_budget_s"] == 7.0
    _, _, out = _verify(tmp_path, ["crash.healthy-a"], "--check-budget", "2.5")
    assert json.loads((out / "report.json").read_text())["profile"]["check_budget_s"] == 2.5


def test_in_process_and_jobs_together_are_a_usage_error(tmp_path, capsys):
    code = main(["verify", "--claims", str(CRASH_CLAIMS), "--only", "crash.healthy-a", "--in-process", "--jobs", "2",
                 "--out", str(tmp_path / "out")])
    assert code == 2 and "--in-process runs every claim in this process" in capsys.readouterr().err


#: Cheap catalogue claims with Hypothesis searches, exact and mpmath checks, random sampling.
_SAMPLE = ("svd.recall-expansion", "op.single-pair-min-norm", "recall.error", "op.crosstalk-expansion")


def test_verdicts_and_figures_do_not_depend_on_the_number_of_workers(tmp_path, capsys):
    def figures(*extra):
        out = tmp_path / "-".join(extra or ("default",))
        only = [a for cid in _SAMPLE for a in ("--only", cid)]
        main(["verify", *only, "--out", str(out), *extra])
        report = json.loads((out / "report.json").read_text())
        return {c["id"]: (c["status"], [(e["check"], e["status"], e["figure"]) for e in c["evidence"]])
                for c in report["claims"]}

    serial = figures("--in-process")
    assert len(serial) == len(_SAMPLE)
    assert figures("--jobs", "1") == serial
    assert figures("--jobs", "2") == serial
    assert figures() == serial


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_PROFILE", "PYTEST_ADDOPTS", "THEOREMS_PROFILE")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
                           "--theorems", "--theorems-claims", str(CRASH_CLAIMS), "-m", "not negative_control", *args],
                          cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


def test_under_pytest_a_crashing_check_fails_its_item_and_the_session_goes_on(tmp_path):
    ran = _pytest(tmp_path, "-k", "not spin and not loop")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    summary = ran.stdout.strip().splitlines()[-1]
    assert summary.startswith("4 failed, 12 passed"), summary
    for cid, cause in CRASHES.items():
        assert f"{cid}::crash - Failed" in ran.stdout
        assert cause in ran.stdout
    assert "crash.segfault [crash] error: check 'crash': its worker process was killed by signal SIGSEGV" in ran.stdout


def test_under_pytest_a_spinning_check_fails_once_and_the_claims_later_checks_are_not_run(tmp_path):
    start = time.monotonic()
    ran = _pytest(tmp_path, "-k", "spin or healthy-a", "--theorems-check-budget", "5")
    assert time.monotonic() - start < 40
    summary = ran.stdout.strip().splitlines()[-1]
    assert ran.returncode == 1 and summary.startswith("2 failed, 3 passed"), ran.stdout + ran.stderr
    assert "crash.spin [crash] error: check 'crash' ran past its budget of 5 s" in ran.stdout
    assert "crash.spin [last] not run: check 'crash' of this claim ran past its budget of 5 s" in ran.stdout
