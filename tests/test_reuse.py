"""Reuse of a claim's last result when nothing its run executed has changed
(theorems.scale.reuse): tiny claims in a temporary user module that call
helpers in another user module, each run with a store in a temporary folder."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from theorems.core.model import Status
from theorems.core.profiles import get_profile
from theorems.core.registry import load_claims
from theorems.core.runner import run
from theorems.scale.reuse import FORMAT, WHOLE_FILE, Recorder, ReuseStore, default_store, run_key

HELPERS = '''
import functools


@functools.lru_cache(maxsize=None)
def table(n):
    return float(n) * 3.0


def scale(x):
    return 2.0 * x


def offset(x):
    return x + 1.0
'''

CLAIMS = '''
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import reuse_helpers as h

from theorems import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.core.model import Evidence, EvidenceStatus


def _ev(ctx, figure, status=EvidenceStatus.PASSED):
    return Evidence(check="sim", kind=EvidenceKind.SIMULATION, status=status, figure=figure, threshold=10.0,
                    cases=1, seeds=[ctx.seed], detail="by construction")


def uses_scale(ctx):
    return _ev(ctx, h.scale(1.0) + (ctx.seed % 7) / 10)


def uses_offset(ctx):
    return _ev(ctx, h.offset(1.0))


def uses_both(ctx):
    return _ev(ctx, h.offset(h.scale(0.5)))


def uses_none(ctx):
    return _ev(ctx, 0.5)


def uses_table(ctx):
    return _ev(ctx, h.table(2))


def fails(ctx):
    return _ev(ctx, 20.0, EvidenceStatus.FAILED)


def errs(ctx):
    raise RuntimeError("a check that breaks")


def _claim(cid, fn):
    return Claim(id=cid, title=cid, statement="x = x", kind=ClaimKind.APPROXIMATION, source="test",
                 checks=(Check("sim", EvidenceKind.SIMULATION, fn, "a check"),),
                 negative_control=NegativeControl("none needed here", {}))


CLAIMS = [_claim("user.scale", uses_scale), _claim("user.offset", uses_offset), _claim("user.both", uses_both),
          _claim("user.none", uses_none), _claim("user.fails", fails), _claim("user.errs", errs),
          _claim("user.table", uses_table), _claim("user.table-again", uses_table)]
'''

QUICK = get_profile("quick")
PASSING = {"user.scale", "user.offset", "user.both", "user.none", "user.table", "user.table-again"}


@pytest.fixture
def user(tmp_path, monkeypatch):
    """A claims module and its helpers in a temporary folder, loaded afresh by ``load()``."""
    (tmp_path / "reuse_helpers.py").write_text(HELPERS)
    module = tmp_path / "reuse_claims.py"
    module.write_text(CLAIMS)
    monkeypatch.setenv("THEOREMS_CACHE", str(tmp_path / "cache"))

    def load():
        sys.modules.pop("reuse_helpers", None)
        return list(load_claims([str(module)], builtin=False))

    yield tmp_path, module, load
    sys.modules.pop("reuse_helpers", None)
    while str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


def _run(claims, module, store, **kw):
    return run(claims, profile=QUICK, claims_modules=[str(module)], reuse=store, jobs=kw.pop("jobs", 1), **kw)


def _summary(result):
    return [(r.claim.id, r.status, [e.figure for e in r.evidence]) for r in result.results]


def _reused(result) -> set[str]:
    return {r.claim.id for r in result.results if r.reused is not None}


def _executed(store: ReuseStore, claims, module, function: str) -> set[str]:
    """The claims whose stored record says they executed ``function`` of reuse_helpers.py."""
    out = set()
    for claim in claims:
        record = store.read(run_key(claim.id, profile=QUICK, seed=20261130, controls=False,
                                    claims_modules=[str(module)]))
        if record and any(path.endswith("reuse_helpers.py") and function in names
                          for path, names in record["functions"].items()):
            out.add(claim.id)
    return out


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_rerun_with_nothing_changed_reuses_every_passing_claim_with_the_same_statuses_and_figures(user, jobs):
    tmp, module, load = user
    store = ReuseStore(tmp / "records")
    first = _run(load(), module, store, jobs=jobs)  # each worker's record travels back with its result
    assert store.stored == len(PASSING)
    second = _run(load(), module, ReuseStore(tmp / "records"), jobs=jobs)
    assert _summary(second) == _summary(first)
    assert _reused(second) == PASSING
    reused = next(r for r in second.results if r.claim.id == "user.scale").reused
    assert reused.at and reused.at.endswith("Z")


def test_failed_and_error_results_are_never_reused(user):
    tmp, module, load = user
    _run(load(), module, ReuseStore(tmp / "records"))
    again = _run(load(), module, ReuseStore(tmp / "records"))
    statuses = {r.claim.id: r.status for r in again.results}
    assert statuses["user.fails"] is Status.FAILED and statuses["user.errs"] is Status.ERROR
    assert not {"user.fails", "user.errs"} & _reused(again)


def test_an_edit_to_one_helper_reruns_exactly_the_claims_that_executed_it(user):
    tmp, module, load = user
    _run(load(), module, ReuseStore(tmp / "records"))
    helpers = tmp / "reuse_helpers.py"
    helpers.write_text(HELPERS.replace("return 2.0 * x", "return 2.0 * x  + 0.0"))
    edited = _run(load(), module, ReuseStore(tmp / "records"))
    fresh_store = ReuseStore(tmp / "fresh", lookup=False)
    fresh = _run(load(), module, fresh_store)
    assert not _reused(fresh)
    ran_scale = _executed(fresh_store, load(), module, "scale")
    assert ran_scale == {"user.scale", "user.both"}
    # user.table-again read a memo user.table filled (in the same worker): any edit to a loaded file reruns it
    assert PASSING - _reused(edited) == ran_scale
    assert _summary(edited) == _summary(fresh)


def test_a_claim_that_read_a_memo_another_claim_filled_depends_on_what_filled_it(user):
    tmp, module, load = user
    store = ReuseStore(tmp / "records")
    _run(load(), module, store)
    record = store.read(run_key("user.table-again", profile=QUICK, seed=20261130, controls=False,
                                claims_modules=[str(module)]))
    assert any(name.endswith(".table") for name in record["memo_hits"])
    assert "table" in record["functions"][str(tmp / "reuse_helpers.py")]  # what filled it, in user.table's run
    assert "scale" not in record["functions"][str(tmp / "reuse_helpers.py")]  # not what ran before it


def test_a_comment_or_a_reformatting_reruns_nothing(user):
    tmp, module, load = user
    _run(load(), module, ReuseStore(tmp / "records"))
    (tmp / "reuse_helpers.py").write_text("# helpers\n" + HELPERS.replace("2.0 * x", "2.0*x  # doubled"))
    again = _run(load(), module, ReuseStore(tmp / "records"))
    assert _reused(again) == PASSING


def test_an_edit_to_a_check_in_the_claims_module_reruns_its_claims_alone(user):
    tmp, module, load = user
    _run(load(), module, ReuseStore(tmp / "records"))
    module.write_text(CLAIMS.replace("return _ev(ctx, h.offset(1.0))", "return _ev(ctx, h.offset(1.0) + 0.0)"))
    again = _run(load(), module, ReuseStore(tmp / "records"))
    assert _reused(again) == PASSING - {"user.offset"}


def test_a_corrupt_truncated_or_foreign_record_is_ignored_and_the_claim_reruns(user):
    tmp, module, load = user
    first = _run(load(), module, ReuseStore(tmp / "records"))
    files = sorted((tmp / "records").glob("*.json"))
    assert len(files) == len(PASSING)
    files[0].write_text(files[0].read_text()[:100])
    files[1].write_bytes(b"\x00\xff not json")
    record = json.loads(files[2].read_text())
    files[2].write_text(json.dumps({**record, "format": 999}))
    record = json.loads(files[3].read_text())
    record["result"]["evidence"] = "not a list"
    files[3].write_text(json.dumps(record))
    record = json.loads(files[4].read_text())
    files[4].write_text(json.dumps({**record, "key": {**record["key"], "seed": 1}}))  # another run's
    files[5].write_text("")
    again = _run(load(), module, ReuseStore(tmp / "records"))
    assert not _reused(again)
    assert _summary(again) == _summary(first)


def test_a_changed_profile_seed_or_control_setting_is_a_different_record(user):
    tmp, module, load = user
    _run(load(), module, ReuseStore(tmp / "records"))
    other_seed = run(load(), profile=QUICK, seed=7, claims_modules=[str(module)],
                     reuse=ReuseStore(tmp / "records"), jobs=1)
    assert not _reused(other_seed)
    with_controls = _run(load(), module, ReuseStore(tmp / "records"), controls=True)
    assert not _reused(with_controls)


def test_fresh_runs_everything_and_still_records(user):
    tmp, module, load = user
    store = ReuseStore(tmp / "records", lookup=False)
    _run(load(), module, store)
    again = _run(load(), module, ReuseStore(tmp / "records", lookup=False))
    assert not _reused(again) and store.stored == len(PASSING)


def test_a_claim_run_in_this_process_is_recorded_and_reused_as_one_in_a_worker(user):
    tmp, module, load = user
    first = _run(load(), module, ReuseStore(tmp / "records"), in_process=True, jobs=None)
    again = _run(load(), module, ReuseStore(tmp / "records"), jobs=1)
    assert _reused(again) == PASSING and _summary(again) == _summary(first)


def test_the_store_is_off_when_the_cache_is_off(monkeypatch, tmp_path):
    monkeypatch.setenv("THEOREMS_CACHE", "off")
    assert default_store() is None
    monkeypatch.setenv("THEOREMS_CACHE", str(tmp_path))
    assert default_store().directory == tmp_path / "reuse" / f"v{FORMAT}"


def test_explain_reuse_names_the_changed_function_and_verify_marks_reused_claims(user, capsys):
    from theorems.cli import main

    tmp, module, load = user
    out = tmp / "reports"
    argv = ["verify", "--claims", str(module), "--only", "user.scale", "--only", "user.none", "--out", str(out)]
    assert main(argv) == 0
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "2 of 2 reused" in text
    report = json.loads((out / "report.json").read_text())
    assert all("reused" in c for c in report["claims"])
    assert main(["verify", "--claims", str(module), "--explain-reuse", "user.scale"]) == 0
    assert "would be reused" in capsys.readouterr().out
    (tmp / "reuse_helpers.py").write_text(HELPERS.replace("return 2.0 * x", "return x * 2.0"))
    assert main(["verify", "--claims", str(module), "--explain-reuse", "user.scale"]) == 0
    said = capsys.readouterr().out
    assert "would rerun" in said and "function scale of" in said and "reuse_helpers.py changed" in said
    assert main(["verify", "--claims", str(module), "--explain-reuse", "user.none"]) == 0
    assert "would be reused" in capsys.readouterr().out
    assert main(["verify", "--claims", str(module), "--explain-reuse", "no.such"]) == 2


def test_a_probe_notes_each_function_a_module_loaded_meanwhile_or_changed_since_loading_counts_whole(tmp_path,
                                                                                                   monkeypatch):
    (tmp_path / "probed_mod.py").write_text("def f(x):\n    return g(x) + 1\n\n\ndef g(x):\n"
                                            "    return (lambda y: y * 2)(x)\n\n\ndef unused():\n    return 0\n")
    (tmp_path / "changed_mod.py").write_text("def f():\n    return 1\n")
    (tmp_path / "late_mod.py").write_text("def f():\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        import changed_mod
        import probed_mod

        (tmp_path / "changed_mod.py").write_text("def f():\n    return 2\n")
        with Recorder() as rec:
            assert probed_mod.f(1) == 3
            import late_mod  # noqa: F401
        ours = {(Path(p).name, q) for p, q in rec.functions if Path(p).parent == tmp_path}
        assert ours == {("probed_mod.py", "f"), ("probed_mod.py", "g"), ("probed_mod.py", "g.<locals>.<lambda>"),
                        ("changed_mod.py", WHOLE_FILE), ("late_mod.py", WHOLE_FILE)}
        assert changed_mod.f() == 1  # the loaded code runs unchanged
        with Recorder() as rec:
            late_mod.f()
        assert {(Path(p).name, q) for p, q in rec.functions if Path(p).parent == tmp_path} == {
            ("late_mod.py", "f"), ("changed_mod.py", WHOLE_FILE)}
    finally:
        for name in ("probed_mod", "changed_mod", "late_mod"):
            sys.modules.pop(name, None)


def test_a_function_patched_in_from_a_test_module_turns_reuse_off_while_it_is_there(monkeypatch):
    # an in-process patch changes no file: while one is in place nothing is reused or stored
    import linmem.capacity
    from theorems.scale.reuse import patched_functions

    assert patched_functions() == []

    def wrong_snr(*args, **kwargs):
        return 0.0

    monkeypatch.setattr(linmem.capacity, "snr_from_leverage", wrong_snr, raising=False)
    assert patched_functions() == ["linmem.capacity.snr_from_leverage"]


def test_the_plain_code_of_a_file_is_read_from_a_fresh_bytecode_cache_and_compiled_when_stale(tmp_path):
    """Probing compares each loaded function with the code its file compiles
    to; that code comes from the file's bytecode cache when the import
    system would use it (same modification time and size), else from
    compiling the source as it is now."""
    import py_compile

    from theorems.scale.reuse import _plain_code

    path = tmp_path / "m.py"
    path.write_text("def f(x):\n    return x + 1\n")
    py_compile.compile(str(path), doraise=True)
    source = path.read_bytes()
    assert _plain_code(str(path)) == compile(source, str(path), "exec", dont_inherit=True)
    path.write_text("def f(x):\n    return x + 22\n")  # another size: the cache is stale
    edited = path.read_bytes()
    code = _plain_code(str(path))
    assert code == compile(edited, str(path), "exec", dont_inherit=True)
    assert code != compile(source, str(path), "exec", dont_inherit=True)
