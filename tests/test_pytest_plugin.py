"""The pytest plugin as a researcher meets it in their own project: a folder
with no tests, ``pytest --theorems``, markers, ``--lf``, Hypothesis's own
options; and this repository's test_claims.py with the plugin disabled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: A property check (float64 Hypothesis search) and an exact search of one claim.
PROPERTY_ITEM = "svd.recall-expansion::float"
EXACT_ITEM = "svd.recall-expansion::exact"

_RECORDING_CONFTEST = '''
import json
from hypothesis import settings

settings.register_profile("few", max_examples=5)


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:
            if key == "theorems_evidence":
                with open("evidence.jsonl", "a") as f:
                    f.write(json.dumps({"nodeid": report.nodeid, **value}) + "\\n")
'''

_TOY_CLAIMS = '''
from theorems import Check, Claim, ClaimKind, Evidence, EvidenceKind, EvidenceStatus, NegativeControl


def _simulation(ok):
    def run(ctx):
        return Evidence(check=ctx.check_name, kind=EvidenceKind.SIMULATION,
                        status=EvidenceStatus.PASSED if ok else EvidenceStatus.FAILED,
                        figure=0.5 if ok else 2.0, threshold=1.0, detail="toy sweep")
    return run


def _claim(cid, *checks):
    return Claim(id=cid, title=cid, statement="x", kind=ClaimKind.CONJECTURE, source="test",
                 checks=tuple(Check(name, EvidenceKind.SIMULATION, _simulation(ok)) for name, ok in checks),
                 negative_control=NegativeControl("nothing changed", {}))


CLAIMS = [_claim("toy.good", ("sweep", True)), _claim("toy.bad", ("sweep", False), ("other", True))]
'''


def _pytest(cwd: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_PROFILE", "PYTEST_ADDOPTS", "THEOREMS_PROFILE")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-q", *args],
        cwd=cwd, capture_output=True, text=True, env=full_env, timeout=600,
    )


@pytest.fixture
def project(tmp_path):
    """A project of its own: no test files, no pytest configuration."""
    (tmp_path / "conftest.py").write_text(_RECORDING_CONFTEST)
    return tmp_path


def _evidence(project: Path) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for line in (project / "evidence.jsonl").read_text().splitlines():
        row = json.loads(line)
        out.setdefault(row["nodeid"], []).append(row)
    return out


def test_a_project_without_tests_collects_and_runs_a_claim_with_markers(project):
    listed = _pytest(project, "--theorems", "--co", "-k", "recall.snr", "--strict-markers")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    ids = [line for line in listed.stdout.splitlines() if line.startswith("recall.snr::")]
    assert "recall.snr::negative-control" in ids and "recall.snr::montecarlo" in ids and len(ids) >= 3

    ran = _pytest(project, "--theorems", "-k", "recall.snr", "--strict-markers", "-p", "no:cacheprovider")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"{len(ids)} passed" in ran.stdout
    # Hypothesis keeps its files in the theorems cache, not in the project.
    assert not (project / ".hypothesis").exists()

    by_marks = _pytest(project, "--theorems", "--co", "-m", "expectation and montecarlo", "--strict-markers")
    chosen = [line for line in by_marks.stdout.splitlines() if "::" in line]
    assert "recall.snr::montecarlo" in chosen
    assert chosen and all(line.split("::")[1].startswith("montecarlo") for line in chosen), chosen
    controls = _pytest(project, "--theorems", "--co", "-m", "negative_control and identity")
    assert controls.stdout.count("::negative-control") >= 1
    assert "::negative-control" not in by_marks.stdout


def test_without_the_option_nothing_is_collected(project):
    plain = _pytest(project, "--co")
    assert plain.returncode == 5 and "::" not in plain.stdout  # exit 5: no tests collected


def test_user_claims_modules_fail_with_the_figure_and_lf_reruns_only_the_failure(project):
    (project / "toy_claims.py").write_text(_TOY_CLAIMS)
    first = _pytest(project, "--theorems", "--theorems-claims", "toy_claims.py", "-k", "toy and not negative")
    assert first.returncode == 1
    assert "FAILED toy.bad::sweep" in first.stdout and "figure 2.0, required <= 1.0" in first.stdout
    assert "1 failed, 2 passed" in first.stdout
    again = _pytest(project, "--theorems", "--theorems-claims", "toy_claims.py", "--lf")
    assert again.returncode == 1
    assert "1 failed" in again.stdout and "passed" not in again.stdout.splitlines()[-1]


def test_an_item_that_passed_and_whose_code_is_unchanged_passes_from_the_reuse_cache(project, tmp_path):
    (project / "toy_claims.py").write_text(_TOY_CLAIMS)
    env = {"THEOREMS_CACHE": str(tmp_path / "cache")}
    args = ("--theorems", "--theorems-claims", "toy_claims.py", "-vv", "-p", "no:cacheprovider")
    first = _pytest(project, *args, env=env)
    assert "2 failed, 3 passed" in first.stdout and "reused" not in first.stdout
    again = _pytest(project, *args, env=env)
    assert "2 failed, 3 passed" in again.stdout
    for item in ("toy.good::sweep", "toy.bad::negative-control", "toy.bad::other"):
        assert f"{item} PASSED (reused)" in again.stdout
    assert "toy.bad::sweep FAILED" in again.stdout  # a failure always runs again
    assert "theorems: 3 claim items passed from the reuse cache" in again.stdout
    assert _evidence(project)["toy.good::sweep"][-1]["figure"] == 0.5  # the stored evidence, reported as run


def test_hypothesis_seed_changes_the_cases_and_no_option_replays_them(project):
    figures = {}
    for label, args in (("none", ()), ("none-again", ()), ("1", ("--hypothesis-seed=1",)),
                        ("2", ("--hypothesis-seed=2",))):
        (project / "evidence.jsonl").unlink(missing_ok=True)
        run = _pytest(project, "--theorems", "-k", PROPERTY_ITEM, "-p", "no:cacheprovider", "--theorems-fresh", *args)
        assert run.returncode == 0, run.stdout + run.stderr
        (ev,) = _evidence(project)[PROPERTY_ITEM]
        figures[label] = ev["figure"]
    assert figures["none"] == figures["none-again"]
    assert len({figures["none"], figures["1"], figures["2"]}) == 3, figures


def test_hypothesis_profile_sets_the_case_count_and_statistics_show_per_check(project):
    counts = {}
    for label, args, env in (("default", (), {}), ("few", ("--hypothesis-profile=few",), {}),
                             ("env", (), {"HYPOTHESIS_PROFILE": "few"}),
                             ("standard", ("--hypothesis-profile=theorems-standard",), {})):
        (project / "evidence.jsonl").unlink(missing_ok=True)
        run = _pytest(project, "--theorems", "-k", f"{PROPERTY_ITEM} or {EXACT_ITEM}", *args, env=env)
        assert run.returncode == 0, run.stdout + run.stderr
        got = _evidence(project)
        counts[label] = (got[PROPERTY_ITEM][0]["cases"], got[EXACT_ITEM][0]["cases"])
    assert counts["default"] == (30, 8)  # the quick profile
    assert counts["few"] == counts["env"] == (5, 1)  # the exact search scales with it
    assert counts["standard"] == (120, 25)

    stats = _pytest(project, "--theorems", "-k", PROPERTY_ITEM, "--hypothesis-show-statistics")
    section = stats.stdout.split("Hypothesis Statistics", 1)[1]
    assert f"{PROPERTY_ITEM}:" in section and "30 passing" in section

    bad = _pytest(project, "--theorems", "-k", PROPERTY_ITEM, "--hypothesis-profile=nope")
    assert bad.returncode != 0 and "nope" in bad.stdout + bad.stderr


def test_this_repository_collects_the_claims_once_and_skips_them_without_the_plugin():
    ours = _pytest(REPO, "tests/test_claims.py", "--co", "-k", "recall.snr")
    assert "tests/test_claims.py::test_claim_check_holds[recall.snr::montecarlo]" in ours.stdout
    assert "tests/test_claims.py::test_negative_control_makes_claim_fail[recall.snr]" in ours.stdout
    both = _pytest(REPO, "tests/test_claims.py", "--theorems", "--co", "-k", "recall.snr")
    assert "test_claims.py::" not in both.stdout and "recall.snr::montecarlo" in both.stdout
    marked = _pytest(REPO, "tests/test_claims.py", "--co", "-m", "negative_control", "-k", "recall.snr")
    assert marked.stdout.count("::") == 1
    disabled = _pytest(REPO, "tests/test_claims.py", "-p", "no:theorems")
    assert disabled.returncode == 0 and "2 skipped" in disabled.stdout, disabled.stdout + disabled.stderr

