"""``theorems verify --observe FILE``: Hypothesis's observability format,
checked against the schema Hypothesis documents for it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from theorems.cli import main

REPO = Path(__file__).resolve().parents[1]

# The observation format documented by Hypothesis ("PBT observations",
# hypothesis-python/docs/schema_observations.json), restated here as a JSON
# schema: the fields, their types and enumerations, which are required, and
# that no others may appear.
_TEST_CASE = {
    "type": "object",
    "properties": {
        "type": {"const": "test_case"},
        "status": {"enum": ["passed", "failed", "gave_up"]},
        "status_reason": {"type": "string"},
        "representation": {"type": "string"},
        "arguments": {"type": "object"},
        "how_generated": {"type": ["string", "null"]},
        "features": {"type": "object"},
        "coverage": {
            "type": ["object", "null"],
            "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 1}, "uniqueItems": True},
        },
        "timing": {"type": "object", "additionalProperties": {"type": "number", "minimum": 0}},
        "metadata": {"type": "object"},
        "property": {"type": "string"},
        "run_start": {"type": "number"},
    },
    "required": ["type", "status", "status_reason", "representation", "arguments", "how_generated", "features",
                 "coverage", "timing", "metadata", "property", "run_start"],
    "additionalProperties": False,
}
_INFO = {
    "type": "object",
    "properties": {
        "type": {"enum": ["info", "alert", "error"]},
        "title": {"type": "string"},
        "content": {"type": ["string", "object"]},
        "property": {"type": "string"},
        "run_start": {"type": "number"},
    },
    "required": ["type", "title", "content", "property", "run_start"],
    "additionalProperties": False,
}
OBSERVATION_SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "oneOf": [_TEST_CASE, _INFO]}


def _observations(path: Path) -> list[dict]:
    validator = jsonschema.Draft202012Validator(OBSERVATION_SCHEMA)
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        row = json.loads(line)
        errors = sorted(validator.iter_errors(row), key=str)
        assert not errors, f"line {n}: {errors[0].message}\n{line[:600]}"
        rows.append(row)
    return rows


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.setenv("THEOREMS_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_observations_validate_name_every_check_and_forward_hypothesis(workdir, capsys):
    obs = workdir / "obs.jsonl"
    code = main(["verify", "--only", "lev.range", "--only", "recall.snr", "--controls", "--out", str(workdir / "rep"),
                 "--observe", str(obs)])
    assert code == 0, capsys.readouterr().out
    rows = _observations(obs)
    report = json.loads((workdir / "rep" / "report.json").read_text())

    ours = {r["property"]: r for r in rows if r["type"] == "test_case" and r["how_generated"].startswith("theorems")}
    expected = {f"{c['id']}::{e['check']}": e for c in report["claims"] for e in c["evidence"]}
    assert set(ours) == set(expected)
    for name, row in ours.items():
        ev = expected[name]
        assert row["status"] == "passed" and row["status_reason"] == ""
        assert row["features"]["figure"] == ev["figure"] and row["features"]["cases"] == ev["cases"]
        assert row["arguments"]["seeds"] == ev["seeds"] and row["arguments"]["check"] == ev["check"]
        assert row["timing"]["execute:test"] >= 0 and row["metadata"]["replay"] == ev["replay"]

    # Hypothesis's own observations, one per generated case, carry the check's name.
    forwarded = [r for r in rows if r["type"] == "test_case" and not r["how_generated"].startswith("theorems")]
    float_cases = [r for r in forwarded if r["property"] == "lev.range::float"]
    assert len([r for r in float_cases if not r["metadata"]["theorems"]["control"]]) >= expected[
        "lev.range::float"]["cases"]
    assert any(r["metadata"]["theorems"]["control"] for r in float_cases)  # the negative control's cases
    assert {r["property"] for r in forwarded} <= set(expected)

    infos = {r["property"]: r for r in rows if r["type"] == "info" and r["title"].startswith(r["property"])}
    assert infos["lev.range"]["content"]["status"] == "VERIFIED"
    assert infos["recall.snr"]["content"]["negative_control"]["caught"] is True
    (summary,) = [r for r in rows if r["property"] == "theorems verify"]
    assert summary["content"]["counts"]["VERIFIED"] == 2
    assert len({r["run_start"] for r in ours.values()} | {summary["run_start"]}) == 1  # one run
    assert not (workdir / ".hypothesis").exists()


def test_a_failing_check_is_a_failed_case_with_its_counterexample(workdir, capsys):
    obs = workdir / "obs.jsonl"
    code = main(["verify", "--claims", str(REPO / "examples" / "user_claims.py"), "--only", "user.op-error-wrong",
                 "--out", str(workdir / "rep"), "--observe", str(obs)])
    assert code == 1
    rows = _observations(obs)
    failed = [r for r in rows if r["type"] == "test_case" and r["how_generated"].startswith("theorems")
              and r["status"] == "failed"]
    assert failed, capsys.readouterr().out
    row = failed[0]
    assert row["property"].startswith("user.op-error-wrong::") and row["status_reason"].startswith("failed")
    assert "counterexample" in row["arguments"] and "counterexample" in row["representation"]
    assert "--claims" in row["metadata"]["replay"]


def test_observe_refuses_a_folder_in_one_line(workdir, capsys):
    code = main(["verify", "--only", "lev.range", "--out", str(workdir / "rep"), "--observe", str(workdir)])
    err = capsys.readouterr().err
    assert code == 2 and "--observe" in err and len(err.strip().splitlines()) == 1
