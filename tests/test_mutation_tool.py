"""The mutation tool makes the mutants it promises and patches linmem cleanly."""

from __future__ import annotations

import ast
import dataclasses

import numpy as np
import pytest

import linmem


@pytest.fixture(scope="module")
def mutation(load_tool):
    return load_tool("mutation")


def test_linmem_gets_mutants_of_every_matrix_and_classic_operator(mutation):
    ops = {m.operator for mod in mutation.MODULES for m in mutation.mutants_of(mod)}
    assert set(mutation.MATRIX_OPERATORS) <= ops
    for classic in ("ReplaceBinaryOperator_Mul_Div", "ReplaceComparisonOperator_Gt_GtE",
                    "NumberReplacer", "AddNot", "ZeroIterationForLoop"):
        assert classic in ops


def test_each_mutant_is_valid_python_that_differs_from_the_original_at_its_line(mutation):
    source = mutation._source("spectral")
    original = ast.dump(ast.parse(source))
    for m in mutation.mutants_of("spectral"):
        src = mutation.mutated_source(m)
        assert ast.dump(ast.parse(src)) != original, m
        if m.operator not in mutation.MATRIX_OPERATORS:  # cosmic-ray keeps the layout
            changed = [i + 1 for i, (a, b) in enumerate(zip(source.splitlines(), src.splitlines()))
                       if a != b]
            assert changed == [m.line], m


def test_mutants_skip_module_level_code_and_docstrings(mutation):
    for m in mutation.mutants_of("recall"):
        assert m.function and m.function != "<module>"
    lines = mutation._source("recall").splitlines()
    consts = [i + 1 for i, line in enumerate(lines) if line.startswith("CONSISTENCY_ULPS =")]
    assert consts and not any(m.line in consts for m in mutation.mutants_of("recall"))


def test_show_and_ids_name_one_mutant(mutation, tmp_path, capsys):
    m = next(m for m in mutation.mutants_of("recall") if m.operator == "ReplaceBinaryOperator_Mul_Div")
    text = mutation.show(m.id)
    assert text.startswith(m.id) and "\n-" in text and "\n+" in text and "/" in text
    with pytest.raises(SystemExit, match="no mutant"):
        mutation.show("recall:1:NumberReplacer:99999")
    listing = tmp_path / "survivors.txt"
    listing.write_text(f"# header\nsurvived  {m.id}  fn  desc\n{m.id.replace('Mul_Div', 'Div_Mul')}\n")
    assert mutation._read_ids(str(listing)) == {m.id, m.id.replace("Mul_Div", "Div_Mul")}
    assert mutation._read_ids("a:1:b:0, c:2:d:1") == {"a:1:b:0", "c:2:d:1"}
    many = [f"authoring.templates:{k}:ReplaceOrWithAnd:{k}" for k in range(40)]  # longer than a file name may be
    assert mutation._read_ids(",".join(many)) == set(many)


def test_every_listed_equivalent_mutant_exists(mutation):
    ids = {m.id for mod in mutation.MODULES + mutation.VERDICT_MODULES for m in mutation.mutants_of(mod)}
    entries = mutation._equivalent_entries()
    assert any(e.module in mutation.VERDICT_MODULES for e in entries)  # the verdict path's entries are read too
    assert entries and not mutation.stale_equivalents(), (
        "tools/equivalent_mutants.txt lists mutants whose line changed: re-check them (--check-equivalents)")
    found = mutation.load_equivalents()
    assert len(found) == len(entries) and set(found) <= ids  # one mutant per entry, none twice


def test_equivalents_survive_moved_code_and_go_stale_when_their_line_changes(mutation, tmp_path, monkeypatch):
    listed = tmp_path / "equivalent.txt"
    listed.write_text("# header\n" + "".join(
        f"{e.label} {e.reason}\n" for e in mutation._equivalent_entries() if e.module == "recall"))
    monkeypatch.setattr(mutation, "EQUIVALENT_FILE", listed)
    monkeypatch.setattr(mutation, "MODULES", ("recall",))
    before = mutation.load_equivalents()
    assert before
    source = mutation._source("recall")
    monkeypatch.setattr(mutation, "_source", lambda module: "\n\n" + source)  # every line moves by 2
    after = mutation.load_equivalents()  # the list is untouched and still current
    assert not mutation.stale_equivalents() and listed.read_text().count("\n") == len(before) + 1
    assert sorted(after.values()) == sorted(before.values())
    assert {f"recall:{int(i.split(':')[1]) + 2}:{i.split(':', 2)[2]}" for i in before} == set(after)
    # a listed mutant whose own line changed matches nothing: it must be re-checked by hand
    first = next(iter(after))
    line = int(first.split(":")[1])
    lines = ("\n\n" + source).splitlines()
    lines[line - 1] = lines[line - 1] + "  # edited"
    monkeypatch.setattr(mutation, "_source", lambda module: "\n".join(lines) + "\n")
    stale = mutation.stale_equivalents()
    assert len(stale) >= 1 and all(s.startswith("recall:") and " fp:" in s for s in stale)
    assert first not in mutation.load_equivalents()
    with pytest.raises(SystemExit, match="whose line changed"):
        mutation.main([])
    assert mutation.main(["--check-equivalents"]) == 1


def test_equivalent_line_and_a_malformed_entry(mutation, tmp_path, monkeypatch, capsys):
    m = next(m for m in mutation.mutants_of("recall") if m.operator.startswith("ReplaceBinaryOperator"))
    line = mutation.equivalent_line(m.id, "because")
    assert line.startswith(f"recall:{m.function} fp:") and line.endswith(" because")
    listed = tmp_path / "equivalent.txt"
    listed.write_text(line + "\n")
    monkeypatch.setattr(mutation, "EQUIVALENT_FILE", listed)
    assert mutation.load_equivalents() == {m.id: "because"}
    listed.write_text("recall:313:transpose-add-right:3 fp:9243240bd7 an old-style line\n")
    with pytest.raises(SystemExit, match=r"equivalent.txt:1: expected 'module:function fp:FINGERPRINT"):
        mutation.load_equivalents()
    with pytest.raises(SystemExit, match="no mutant 'recall:1:nothing:0'"):
        mutation.equivalent_line("recall:1:nothing:0", "x")


def test_patching_swaps_the_function_everywhere_and_restores_it(mutation):
    m = next(m for m in mutation.mutants_of("recall")
             if m.function == "crosstalk_power" and m.operator == "ReplaceBinaryOperator_Mul_Div")
    before = linmem.crosstalk_power
    with mutation._Patched("recall", mutation.mutated_source(m)):
        assert linmem.crosstalk_power is not before
        assert linmem.recall.crosstalk_power(0.5) != 0.25
    assert linmem.crosstalk_power is before and linmem.crosstalk_power(0.5) == 0.25
    np.testing.assert_allclose(linmem.recall.crosstalk_power(np.array([0.5])), [0.25])


def test_the_verdict_path_gets_mutants_and_a_patch_reaches_every_import_of_the_function(mutation):
    import theorems.authoring.templates as templates
    from theorems.core import residuals

    for module in mutation.VERDICT_MODULES:
        assert mutation.mutants_of(module), module
        assert mutation._path(module).exists() and mutation._import_name(module).startswith("theorems.")
    m = next(m for m in mutation.mutants_of("core.residuals")
             if m.function == "residual" and m.operator == "ReplaceComparisonOperator_Gt_GtE")
    assert "core/residuals.py" in mutation.show(m.id)
    before = residuals.residual
    with mutation._Patched("core.residuals", mutation.mutated_source(m)):
        assert templates.residual is residuals.residual is not before  # the templates' import by name too
    assert templates.residual is residuals.residual is before
    assert residuals.residual([residuals.at_most(2.0, 1.0)]) == 1.0


def test_report_counts_scores_per_module_and_lists_survivors(mutation, tmp_path):
    rows = [
        dict(module="recall", id="recall:1:A:0", function="f", description="a -> b", outcome="killed"),
        dict(module="recall", id="recall:2:A:1", function="f", description="a -> c",
             outcome="killed-by-unit-tests"),
        dict(module="recall", id="recall:3:A:2", function="g", description="x -> y", outcome="survived"),
        dict(module="learn", id="learn:4:B:0", function="h", description="p -> q", outcome="equivalent",
             reason="same value"),
        dict(module="learn", id="learn:5:B:1", function="h", description="p -> r", outcome="equivalent",
             reason="output-equivalent: only slower"),
        dict(module="learn", id="learn:6:B:2", function="h", description="p -> s", outcome="killed"),
        dict(module="learn", id="learn:7:B:3", function="h", description="p -> t", outcome="killed-by-report"),
    ]
    table = mutation.score_table(rows)
    assert "| recall | 3 | 0 | 0 | 1 | 0 | 1 | 1 | 33.3% | 33.3% | 66.7% | 66.7% |" in table
    assert "| learn | 4 | 2 | 1 | 1 | 1 | 0 | 0 | 50.0% | 100.0% | 100.0% | 66.7% |" in table
    assert "| **all** | 7 | 2 | 1 | 2 | 1 | 1 | 1 | 40.0% | 60.0% | 80.0% | 66.7% |" in table
    path = tmp_path / "report.md"
    mutation.write_report(rows, path, "header")
    text = path.read_text()
    assert "`recall:3:A:2` in `g`" in text and "same value" in text


def test_a_verdict_path_mutant_is_killed_by_a_moved_verdict_or_a_moved_report_entry(mutation):
    from types import SimpleNamespace

    from theorems.core.model import Evidence, EvidenceKind, EvidenceStatus, Status

    claim = SimpleNamespace(id="c.x", title="t", kind=SimpleNamespace(value="identity"), statement="s", source="",
                            assumptions=(), depends_on=(), reason="", checks=(), negative_control=None)

    def result(status=Status.VERIFIED, caught=True, figure=0.5, detail="d", seconds=1.0):
        ev = Evidence("float", EvidenceKind.PROPERTY, EvidenceStatus.PASSED, figure=figure, threshold=64.0,
                      detail=detail, seconds=seconds)
        return SimpleNamespace(claim=claim, status=status, evidence=[ev], seconds=seconds, blocked_by=[],
                               negative_control={"caught": caught, "checks": {"float": "failed"}})

    base = mutation._outcome_of(result())
    assert mutation._moved(result(seconds=7.0), base) is None  # timings are no change
    assert mutation._moved(result(status=Status.FAILED), base) == "verdict"
    assert mutation._moved(result(caught=False), base) == "verdict"
    assert mutation._moved(result(figure=0.6, detail="e"), base) == "report: float (detail, figure)"
    assert mutation._moved(result(figure=0.6), base, verdicts_only=True) is None
    late = result(detail="CheckTimeout: check exceeded its budget of 20 s")
    assert mutation._moved(late, base) is None  # a check past its budget: the load decides its report
    assert mutation._moved(result(figure=0.6), mutation._outcome_of(late)) is None
    late_and_failed = result(status=Status.ERROR, detail="CheckTimeout: check exceeded its budget of 20 s")
    assert mutation._moved(late_and_failed, base) == "verdict (past its budget)"


def test_a_mutant_runs_the_quickest_claims_through_its_function_within_the_budget(mutation):
    cost = {"a": 5.0, "b": 1.0, "c": 30.0, "d": 2.0}
    assert mutation.quickest_within(["a", "b", "c", "d"], cost, 8.0) == ["b", "d", "a"]
    assert mutation.quickest_within(["a", "b", "c", "d"], cost, 0.5) == ["b"]  # at least one
    assert mutation.quickest_within(["c"], cost, 1.0) == ["c"]
    assert mutation.quickest_within([], cost, 10.0) == []


def test_a_mutants_tests_are_taken_a_file_at_a_time_quickest_first_within_the_budget(mutation):
    cost = {"a.py::1": 0.1, "a.py::2": 0.2, "a.py::3": 0.3, "b.py::1": 5.0, "c.py::1": 1.0, "c.py::2": 50.0}
    every = list(cost)
    assert mutation.diverse_within(every, cost, 7.0) == ["a.py::1", "c.py::1", "b.py::1", "a.py::2", "a.py::3"]
    assert mutation.diverse_within(every, cost, 1.2) == ["a.py::1", "c.py::1"]  # no more fits
    assert mutation.diverse_within(["c.py::2"], cost, 1.0) == ["c.py::2"]  # at least one
    assert mutation.diverse_within([], cost, 1.0) == []


def test_a_mutated_line_is_judged_by_the_tests_that_execute_its_statement(mutation, monkeypatch):
    source = ("def f(x):\n"          # 1
              "    if (x >\n"        # 2
              "            0):\n"    # 3
              "        y = g(x,\n"   # 4
              "              1)\n"   # 5
              "    return y\n")      # 6
    assert list(mutation._statement_lines(source, 3)) == [2, 3]  # a compound statement: its header
    assert list(mutation._statement_lines(source, 5)) == [4, 5]  # a simple one: all its lines
    assert list(mutation._statement_lines(source, 6)) == [6]
    signature = "def f(x,\n      y=0):\n    z = x\n    return z + y\n"
    assert list(mutation._statement_lines(signature, 2)) == [3, 4]  # a default runs in every call: the body
    monkeypatch.setattr(mutation, "_source", lambda module: source)
    m = mutation.Mutant("core.tolerance", "f", 3, "ReplaceComparisonOperator_Gt_GtE", "", 0)
    testmap = {"sources": {"core.tolerance": mutation._sha(source)},
               "lines": {"core.tolerance": {"2": ["t::slow", "t::quick"], "3": ["t::mid"], "4": ["t::other"]}},
               "durations": {"t::slow": 100.0, "t::quick": 0.5, "t::mid": 2.0, "t::other": 0.1}}
    assert mutation.mapped_tests(testmap, m, budget_s=10.0) == ["t::quick", "t::mid"]  # quickest first, in budget
    assert mutation.mapped_tests(testmap, m, budget_s=1000.0) == ["t::quick", "t::mid", "t::slow"]
    assert mutation.mapped_tests(testmap, dataclasses.replace(m, line=6)) == []  # no test runs line 6
    assert mutation.mapped_tests(None, m) is None
    stale = dict(testmap, sources={"core.tolerance": "0" * 40})  # built from another version: line numbers moved
    assert mutation.mapped_tests(stale, m) is None


def test_the_mutant_plugin_runs_only_the_listed_tests_in_their_order(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    tools = Path(__file__).resolve().parents[1] / "tools"
    (tmp_path / "test_some.py").write_text("def test_pass():\n    pass\n\n\ndef test_fail():\n    assert False\n")
    listing = tmp_path / "tests.txt"

    def run(*nodeids):
        listing.write_text("".join(f"{n}\n" for n in nodeids))
        env = dict(os.environ, LINMEM_MUTANT_TESTS=str(listing), PYTHONPATH=str(tools))
        env.pop("LINMEM_MUTANT_MODULE", None)
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                               "_mutant_plugin", "test_some.py"], cwd=tmp_path, env=env, capture_output=True,
                              text=True)

    passed = run("test_some.py::test_pass")
    assert passed.returncode == 0 and "1 passed, 1 deselected" in passed.stdout
    failed = run("test_some.py::test_pass", "test_some.py::test_fail")
    assert failed.returncode == 1 and "1 failed, 1 passed" in failed.stdout
    assert run("test_some.py::renamed").returncode == 5  # nothing selected: no verdict, not a kill
    whole = run("test_some.py")  # a file named whole: every test of it
    assert whole.returncode == 1 and "1 failed, 1 passed" in whole.stdout


def test_test_files_edited_since_the_map_run_whole(mutation):
    files = mutation.testmap_files()
    assert files and "tests/test_claims.py" not in files and "tests/test_verdict_teeth.py" in files
    current = {f: mutation._sha((mutation.ROOT / f).read_text()) for f in files}
    assert mutation.edited_test_files({"tests": current}) == []
    assert mutation.edited_test_files({"tests": dict(current, **{files[0]: "0" * 40})}) == [files[0]]
    assert mutation.edited_test_files({"tests": {}}) == files  # a map without hashes: every file is new to it


def test_the_claims_a_template_builds_are_traced_and_built_again_under_a_mutant(mutation):
    from theorems.core.registry import load_claims

    ids = [c.id for c in load_claims()]
    built, origin = mutation.trace_builders(ids)
    assert set(origin) == set(ids)  # every catalogue claim comes from one module
    assert "svd.recall-expansion" in built["authoring.templates:identity"]
    again = mutation.fresh_claims(origin["svd.recall-expansion"])
    assert "svd.recall-expansion" in {c.id for c in again}
    m = next(m for m in mutation.mutants_of("authoring.templates")
             if m.function == "identity" and m.operator == "ReplaceTrueWithFalse")  # falls=True -> False
    with mutation._Patched("authoring.templates", mutation.mutated_source(m)):
        mutated = {c.id: c for c in mutation.fresh_claims(origin["svd.recall-expansion"])}["svd.recall-expansion"]
    from theorems.core.impl import Impl
    from theorems.core.model import Context
    from theorems.core.profiles import get_profile

    def ladder_detail(claim):
        check = next(c for c in claim.checks if c.name == "ladder")
        ctx = Context(impl=Impl.default(), profile=get_profile("quick"), seed=1, claim_id=claim.id,
                      check_name="ladder")
        return check.run(ctx).detail

    original = {c.id: c for c in load_claims()}["svd.recall-expansion"]
    assert ladder_detail(original).endswith("residual falls with precision")
    assert ladder_detail(mutated).endswith("violation within bound")  # built by the mutant: falls=False
    assert {c.id: c for c in mutation.fresh_claims(origin["svd.recall-expansion"])}[
        "svd.recall-expansion"].checks[1].name == "ladder"  # unpatched again
    assert ladder_detail({c.id: c for c in mutation.fresh_claims(origin["svd.recall-expansion"])}[
        "svd.recall-expansion"]).endswith("residual falls with precision")


def test_untracked_lists_what_git_neither_tracks_nor_ignores(mutation, tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("ignored/\n")
    (tmp_path / "ignored").mkdir()
    (tmp_path / "ignored" / "x.json").write_text("{}")
    assert mutation.untracked(tmp_path) == {".gitignore"}
    (tmp_path / "from-environment" / "00").mkdir(parents=True)  # a cache a mutant wrote into the checkout
    (tmp_path / "from-environment" / "00" / "k.json").write_text("{}")
    assert mutation.untracked(tmp_path) == {".gitignore", "from-environment/"}
    plain = tmp_path.parent / f"{tmp_path.name}-plain"  # beside the work tree, in none
    plain.mkdir()
    (plain / "k.json").write_text("{}")
    assert mutation.untracked(plain) == set() and mutation.untracked(plain / "no-such-folder") == set()
