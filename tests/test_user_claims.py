"""A user's own claims, loaded by path: the true one is VERIFIED; the planted
false one is FAILED with a minimal counterexample and a replay command."""

from __future__ import annotations

import json
from pathlib import Path

from theorems.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "user_claims.py"


def test_user_claims_true_verified_and_false_failed_with_counterexample(tmp_path, capsys):
    code = main(["verify", "--claims", str(EXAMPLE), "--only", "user.*", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out  # a claim FAILED
    report = json.loads((tmp_path / "report.json").read_text())
    status = {c["id"]: c["status"] for c in report["claims"]}
    assert status == {"user.op-error": "VERIFIED", "user.op-error-wrong": "FAILED"}
    wrong = next(c for c in report["claims"] if c["id"] == "user.op-error-wrong")
    exact = next(e for e in wrong["evidence"] if e["check"] == "enumeration")
    assert exact["status"] == "failed"
    # Hypothesis shrinks to the smallest case: one pair, where the true error is 0.
    assert exact["counterexample"]["input"]["M"] == 1
    assert exact["counterexample"]["input"]["d"] == 1
    assert f"--claims {EXAMPLE}" in exact["replay"] and "--only user.op-error-wrong" in exact["replay"]
    assert "replay:" in out


def test_replay_command_reproduces_the_failure(tmp_path, capsys):
    main(["verify", "--claims", str(EXAMPLE), "--only", "user.op-error-wrong", "--out", str(tmp_path)])
    first = json.loads((tmp_path / "report.json").read_text())["claims"][0]["evidence"][0]
    replay = first["replay"].split()[2:]  # drop "theorems verify"
    assert main(["verify", *replay, "--out", str(tmp_path / "again")]) == 1
    again = json.loads((tmp_path / "again" / "report.json").read_text())["claims"][0]["evidence"][0]
    assert again["counterexample"] == first["counterexample"]


def test_a_module_without_claims_is_a_clear_error(tmp_path, capsys):
    empty = tmp_path / "nothing.py"
    empty.write_text("X = 1\n")
    assert main(["list", "--claims", str(empty)]) == 2
    assert "defines no list CLAIMS" in capsys.readouterr().err
