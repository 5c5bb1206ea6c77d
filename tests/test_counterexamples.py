"""Counterexamples a person can use (issue 22, item 3): a float
counterexample of the identity/inequality templates is stored as its exact
arrays beside its recipe, with a Python snippet that rebuilds it and prints
its residual (executed here); a ladder failure names its case and rung; the
replay of a failed case reruns that case alone (``theorems verify --case``).
The false identities of ``tests/user_corpus_claims.py`` are the material."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings

from theorems.cli import main
from theorems.core.impl import Impl
from theorems.core.model import EvidenceStatus
from theorems.core.profiles import get_profile
from theorems.core.registry import load_claims
from theorems.core.runner import run_check
from theorems.authoring.strategies import KeyCase, keys, keys_and_values
from theorems.authoring.templates import array_from_json, claim_terms, rebuild_case
from theorems.core.tolerance import PRECISION_LADDER

ROOT = Path(__file__).resolve().parents[1]
CORPUS = str(Path(__file__).with_name("user_corpus_claims.py"))
PROFILE = get_profile(os.environ.get("THEOREMS_PROFILE") or "quick")
SEED = 1

#: False identities of the corpus over K alone and over (K, V).
FALSE_IDS = ("corpus.false.scaling-wrong", "corpus.false.gram-halved", "corpus.false.ls-exact")


@pytest.fixture(scope="module")
def corpus():
    return load_claims([CORPUS], builtin=False)


def _evidence(corpus, claim_id: str, check: str, *, impl=None):
    claim = corpus.get(claim_id)
    (chk,) = [c for c in claim.checks if c.name == check]
    return run_check(claim, chk, impl=impl or Impl.default(), profile=PROFILE, seed=SEED, claims_modules=(CORPUS,))


def _run_snippet(snippet: str, tmp_path: Path) -> str:
    script = tmp_path / "rebuild.py"
    script.write_text(snippet)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("claim_id", FALSE_IDS)
def test_a_float_counterexample_holds_its_arrays_exactly_beside_its_recipe(corpus, claim_id):
    ev = _evidence(corpus, claim_id, "float")
    assert ev.status is EvidenceStatus.FAILED
    cex = json.loads(json.dumps(ev.to_json()["counterexample"]))  # what report.json keeps
    recipe = cex["input"]
    assert set(recipe) >= {"family", "seed", "d", "M"}
    built = KeyCase.build(recipe["family"], recipe["d"], recipe["M"], recipe["p"], recipe["seed"],
                          cond=recipe["cond"], rank=recipe["rank"], unit=recipe["unit"])
    expected = {"K": built.K, "V": built.V}
    assert set(cex["arrays"]) == ({"K", "V"} if claim_id.startswith("corpus.false.ls-") else {"K"})
    for name, stored in cex["arrays"].items():
        assert stored["dtype"] == "float64" and stored["shape"] == list(expected[name].shape)
        got = array_from_json(stored)
        assert got.tobytes() == expected[name].tobytes(), name  # bit for bit
        # the same entries printed to 6 digits would not rebuild the case: the form matters
        lossy = np.array([float(f"{x:.6g}") for x in expected[name].ravel()])
        assert lossy.tobytes() != expected[name].ravel().tobytes()
    # the recipe is also the --case spec, and rebuilds the same arrays
    assert json.loads(cex["case"]) == recipe
    args = dict(zip(("K", "V"), rebuild_case(keys_and_values() if "V" in cex["arrays"] else keys(), cex["case"]).args))
    assert all(args[n].tobytes() == expected[n].tobytes() for n in cex["arrays"])


@pytest.mark.parametrize("claim_id", FALSE_IDS)
def test_the_rebuild_snippet_runs_and_prints_the_residual_the_check_measured(corpus, claim_id, tmp_path):
    cex = _evidence(corpus, claim_id, "float").to_json()["counterexample"]
    snippet = cex["rebuild"]
    assert "import numpy as np" in snippet and "claim_terms(claim)(impl," in snippet and "residual(items)" in snippet
    printed = _run_snippet(snippet, tmp_path)
    assert float(printed) == cex["float64_residual"] and cex["float64_residual"] > 0
    # the snippet evaluates the arrays it holds: one entry changed gives another residual
    first = cex["arrays"]["K"]["hex"][0]
    changed = snippet.replace(repr(first), repr((2 * float.fromhex(first) + 1).hex()), 1)
    assert changed != snippet and float(_run_snippet(changed, tmp_path)) != cex["float64_residual"]


def test_a_snippet_of_a_negative_control_uses_the_wrong_variant(corpus, tmp_path):
    claim = corpus.get("corpus.true.penrose-1")
    wrong = Impl.default().with_overrides(claim.negative_control.overrides)
    ev = _evidence(corpus, claim.id, "float", impl=wrong)
    assert ev.status is EvidenceStatus.FAILED
    cex = ev.to_json()["counterexample"]
    assert ".with_overrides(claim.negative_control.overrides)" in cex["rebuild"]
    assert float(_run_snippet(cex["rebuild"], tmp_path)) == cex["float64_residual"] > 0
    # the true claim's own float check passes, with no counterexample to rebuild
    assert _evidence(corpus, claim.id, "float").status is EvidenceStatus.PASSED


def test_a_ladder_failure_names_its_case_and_rung_and_the_command_for_that_case(corpus):
    claim = corpus.get("corpus.false.scaling-wrong")
    ev = _evidence(corpus, claim.id, "ladder")
    assert ev.status is EvidenceStatus.FAILED
    cex = ev.counterexample
    labels = claim.checks[1].run.case_labels(_ctx(claim, "ladder"))
    assert cex["case"] in labels and cex["digits"] in PRECISION_LADDER and cex["why"]
    assert shlex.split(cex["replay_case"])[-2:] == ["--case", f"ladder:{cex['case']}"]
    assert cex["replay_case"].startswith(ev.replay)


def _ctx(claim, check):
    from theorems.core.runner import _context

    (chk,) = [c for c in claim.checks if c.name == check]
    return _context(claim, chk, Impl.default(), PROFILE, SEED)


def _verify(argv: list[str], out: Path, capsys) -> tuple[int, dict]:
    code = main([*argv, "--out", str(out)])
    capsys.readouterr()
    return code, json.loads((out / "report.json").read_text())


def _replay_argv(command: str) -> list[str]:
    argv = shlex.split(command)
    assert argv[:2] == ["theorems", "verify"]
    argv = argv[1:]
    i = argv.index("--out")
    return argv[:i] + argv[i + 2:]


def test_the_replay_of_a_failed_case_reruns_that_case_alone(corpus, tmp_path, capsys):
    claim_id = "corpus.false.gram-halved"
    argv = ["verify", "--only", claim_id, "--claims", CORPUS, "--profile", PROFILE.name, "--seed", str(SEED)]
    code, whole = _verify(argv, tmp_path / "whole", capsys)
    assert code == 1
    (c,) = whole["claims"]
    by_check = {e["check"]: e for e in c["evidence"]}
    assert c["status"] == "FAILED" and {"ladder", "float"} <= {k for k, e in by_check.items() if e["status"] == "failed"}
    for check, cases in (("ladder", len(PRECISION_LADDER)), ("float", 1)):
        cex = by_check[check]["counterexample"]
        code, one = _verify(_replay_argv(cex["replay_case"]), tmp_path / check, capsys)
        (again,) = one["claims"]
        (ev,) = again["evidence"]
        assert code == 1 and again["status"] == "FAILED" and ev["check"] == check and ev["cases"] == cases
        assert one["selection"]["case"].startswith(f"{check}:")
        if check == "float":
            assert ev["counterexample"]["arrays"] == cex["arrays"] and ev["counterexample"]["float64_residual"] == cex["float64_residual"]
        else:
            assert (ev["counterexample"]["case"], ev["counterexample"]["digits"]) == (cex["case"], cex["digits"])
    # the same float case on a true identity passes: --case judges, it does not just fail
    recipe = by_check["float"]["counterexample"]["case"]
    code, true_run = _verify(["verify", "--only", "corpus.true.gram-pinv", "--claims", CORPUS, "--profile", PROFILE.name,
                              "--case", f"float:{recipe}"], tmp_path / "true", capsys)
    assert code == 0 and true_run["claims"][0]["status"] == "VERIFIED"


RECIPE = '{"family":"gaussian","d":2,"M":3,"p":1,"seed":7,"cond":1.0,"rank":null,"unit":false}'


@pytest.mark.parametrize("only, case, words", [
    pytest.param("corpus.false.*", "exact", "needs --only selecting exactly one claim, got 12", id="many-claims"),
    pytest.param("corpus.false.scaling-wrong", "nocheck", "has no check 'nocheck' (its checks: exact, ladder, float)",
                 id="unknown-check"),
    pytest.param("corpus.false.scaling-wrong", "ladder:nope", "the ladder of corpus.false.scaling-wrong has no case 'nope'",
                 id="unknown-ladder-case"),
    pytest.param("corpus.false.scaling-wrong", "ladder:", "name the case after the colon", id="empty-case"),
    pytest.param("corpus.false.scaling-wrong", "exact:1", "cannot run one case alone; give --case exact",
                 id="case-of-the-exact-check"),
    pytest.param("corpus.false.scaling-wrong", "float:{bad", "recipe must be the JSON of a float case's recipe",
                 id="recipe-not-json"),
    pytest.param("corpus.false.scaling-wrong", 'float:{"family": "gaussian"}', "recipe must be a mapping with the keys",
                 id="recipe-incomplete"),
    pytest.param("corpus.false.scaling-wrong", RECIPE.replace('"gaussian"', '"cubic"'), "no check",
                 id="recipe-without-check"),
    pytest.param("corpus.false.scaling-wrong", "float:" + RECIPE.replace('"gaussian"', '"cubic"'),
                 "does not build a case: family must be one of", id="recipe-of-no-family"),
    pytest.param("corpus.false.ls-exact", "float:" + RECIPE.replace("false}", "true}"), "recipe must have unit=False",
                 id="recipe-of-another-family"),
])
def test_a_bad_case_is_a_usage_error_of_one_line(only, case, words, tmp_path, capsys):
    code = main(["verify", "--only", only, "--claims", CORPUS, "--case", case, "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--case" in err and words in err, err
    assert not (tmp_path / "r").exists()  # found before anything ran


def test_the_reports_show_the_snippet_the_case_and_rung_and_the_case_replay(tmp_path, capsys):
    from theorems.reporting.report import render_markdown, validate_report
    from theorems.reporting.html import render_html

    code, report = _verify(["verify", "--only", "corpus.false.scaling-wrong", "--claims", CORPUS, "--profile",
                            PROFILE.name, "--seed", str(SEED)], tmp_path / "r", capsys)
    validate_report(report)
    by_check = {e["check"]: e for e in report["claims"][0]["evidence"]}
    float_cex, ladder_cex = by_check["float"]["counterexample"], by_check["ladder"]["counterexample"]
    md = (tmp_path / "r" / "report.md").read_text()
    assert md == render_markdown(report)
    assert "```python" in md and "    " + float_cex["rebuild"].splitlines()[-1] in md
    assert f"fails at ladder case `{ladder_cex['case']}`, {ladder_cex['digits']} digits" in md
    assert md.count("replay this case alone") == 2 and '"hex"' not in md  # the arrays only inside the snippet
    from theorems.reporting.junit import result_message

    message = result_message(by_check["float"])  # the one line of report.md, report.html and junit.xml
    assert message.startswith("float: scaled ratio ") and "(need ≤ 64)" in message and " at family = " in message
    assert "hex" not in message and "float64_residual" not in message
    html = render_html(report)
    assert '<pre class="snippet">' in html and "claim_terms(claim)(impl, K)" in html
    assert html.count("Replay this case alone") == 2 and "Fails at ladder case" in html
    # a summary short of room names the snippet instead of showing it
    short = render_markdown(report, max_chars=len(md) - 1)
    assert "```python" not in short and "is in report.json (the counterexample's `rebuild`)" in short


def test_the_schema_refuses_an_array_that_is_not_held_exactly(tmp_path, capsys):
    from jsonschema import ValidationError

    from theorems.reporting.report import validate_report

    code, report = _verify(["verify", "--only", "corpus.false.scaling-wrong", "--claims", CORPUS, "--case", "float",
                            "--profile", PROFILE.name], tmp_path / "r", capsys)
    (ev,) = report["claims"][0]["evidence"]
    ev["counterexample"]["arrays"]["K"]["dtype"] = "float32"
    with pytest.raises((ValidationError, ValueError), match="float64"):
        validate_report(report)


@settings(max_examples=25, deadline=None, database=None)
@given(keys_and_values().floats)
def test_the_stock_families_rebuild_every_float_case_from_its_recipe(case):
    again = rebuild_case(keys_and_values(), json.dumps(case.recipe))
    assert all(a.tobytes() == b.tobytes() for a, b in zip(case.args, again.args))


def test_claim_terms_refuses_a_claim_without_terms():
    claim = next(c for c in load_claims() if all(getattr(ch.run, "terms", None) is None for ch in c.checks))
    with pytest.raises(ValueError, match="claim must be built by identity or inequality"):
        claim_terms(claim)
