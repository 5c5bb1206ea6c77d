"""Reports checked against their own evidence (issue 38 item 3): every
counterexample and case a report records replays from its recorded command
to the same residual, and the figures, rungs and searched domains agree
with their definitions.

Cheap: a user's false identity (its exact, ladder and float64 checks each
fail with a counterexample), a true one (every ladder case passes) and
recall.mean-error (exact enumeration and Monte Carlo), in this process."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
from fractions import Fraction
from pathlib import Path

import pytest

from theorems.cli import main

CORPUS = str(Path(__file__).with_name("user_corpus_claims.py"))
FALSE, TRUE, EXPECTATION = "corpus.false.scaling-wrong", "corpus.true.penrose-1", "recall.mean-error"


def _verify(argv: list[str], out: Path) -> dict:
    """``theorems verify ARGV`` in this process, writing to ``out``; its report."""
    with contextlib.redirect_stdout(io.StringIO()):
        code = main([*argv, "--in-process", "--out", str(out)])
    assert code in (0, 1), code
    return json.loads((out / "report.json").read_text())


def _evidence(report: dict, cid: str) -> dict[str, dict]:
    return {e["check"]: e for e in next(c for c in report["claims"] if c["id"] == cid)["evidence"]}


def _replay(command: str, out: Path) -> dict:
    argv = shlex.split(command)
    assert argv[:2] == ["theorems", "verify"], command
    return _verify(argv[1:], out)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    return _verify(["verify", "--claims", CORPUS, "--only", FALSE, "--only", TRUE, "--only", EXPECTATION],
                   tmp_path_factory.mktemp("report"))


def test_the_false_identity_fails_every_check_with_a_counterexample(report):
    failed = _evidence(report, FALSE)
    assert {name: e["status"] for name, e in failed.items()} == {"exact": "failed", "ladder": "failed",
                                                                 "float": "failed"}
    assert all(e["counterexample"] for e in failed.values())


def test_each_failed_case_replays_from_its_recorded_command_to_the_same_residual(report, tmp_path):
    for name in ("ladder", "float"):
        cex = _evidence(report, FALSE)[name]["counterexample"]
        again = _evidence(_replay(cex["replay_case"], tmp_path / name), FALSE)[name]
        assert again["status"] == "failed", name
        assert again["cases"] == (3 if name == "ladder" else 1), name  # that case alone (a ladder case: 3 rungs)
        replayed = again["counterexample"]
        if name == "float":
            assert replayed["float64_residual"] == cex["float64_residual"]
            assert replayed["arrays"] == cex["arrays"] and replayed["input"] == cex["input"]
            assert again["figure"] == _evidence(report, FALSE)[name]["figure"]
        else:
            assert (replayed["case"], replayed["digits"], replayed["why"]) == (cex["case"], cex["digits"], cex["why"])
            assert again["data"]["residuals"][cex["case"]] == _evidence(report, FALSE)[name]["data"]["residuals"][
                cex["case"]]


def test_the_whole_check_replays_from_its_recorded_command_to_the_same_figures(report, tmp_path):
    first = _evidence(report, FALSE)
    again = _evidence(_replay(first["exact"]["replay"], tmp_path), FALSE)
    for name, e in first.items():
        assert (again[name]["status"], again[name]["figure"], again[name]["cases"]) == (
            e["status"], e["figure"], e["cases"]), name
        assert again[name]["counterexample"] == e["counterexample"], name


def test_the_rebuild_snippet_prints_the_recorded_float64_residual(report):
    cex = _evidence(report, FALSE)["float"]["counterexample"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(cex["rebuild"], "<rebuild snippet>", "exec"), {})  # noqa: S102 - the report's own code
    assert float(printed.getvalue().strip()) == cex["float64_residual"]


def test_an_exact_counterexample_is_its_figure_and_a_nonzero_residual(report):
    e = _evidence(report, FALSE)["exact"]
    residual = Fraction(e["counterexample"]["residual"])
    assert residual != 0 and e["figure"] == float(abs(residual)) and e["threshold"] == 0


def test_ladder_rungs_and_cases_are_the_searched_domain(report):
    for cid in (FALSE, TRUE):
        e = _evidence(report, cid)["ladder"]
        data = e["data"]
        assert data["domain"]["digits"] == data["ladder"]
        assert list(data["residuals"]) == data["domain"]["cases"], cid
        assert all(len(row) == len(data["ladder"]) for row in data["residuals"].values()), cid
        assert e["cases"] == len(data["domain"]["cases"]) * len(data["ladder"]), cid
        assert set(data["fall_measured_from"]) <= set(data["domain"]["cases"])
        assert set(data["fall_measured_from"].values()) <= set(data["ladder"])
        if e["counterexample"]:
            assert e["counterexample"]["case"] in data["domain"]["cases"]
            assert e["counterexample"]["digits"] in data["ladder"]
            assert e["figure"] > e["threshold"]
        else:
            assert e["figure"] <= e["threshold"]


def test_a_float_counterexample_lies_in_the_searched_domain(report):
    e = _evidence(report, FALSE)["float"]
    recipe, domain = e["counterexample"]["input"], e["data"]["domain"]
    for size in ("d", "M"):
        low, high = domain[size]
        assert low <= recipe[size] <= high, size
    assert recipe["family"] in domain.get("families", [recipe["family"]])
    assert domain["examples"] == e["cases"] >= 1
    assert e["figure"] > e["threshold"]


def test_the_monte_carlo_figure_is_the_largest_recorded_standardised_error(report):
    e = _evidence(report, EXPECTATION)["montecarlo"]
    z = [abs(float(v)) for v in e["data"]["z"]]
    assert e["figure"] == pytest.approx(max(z), rel=1e-12, abs=0)
    assert len(z) == len(e["data"]["mean"]) == len(e["data"]["claimed"]) == len(e["data"]["names"])
    for mean, claimed, se, zi in zip(e["data"]["mean"], e["data"]["claimed"], e["data"]["standard_error"], z):
        assert zi == 0 or zi == pytest.approx(abs(mean - claimed) / se, rel=1e-9)
    assert e["status"] == "passed" and e["figure"] <= e["threshold"]
