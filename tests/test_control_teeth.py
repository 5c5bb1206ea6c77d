"""Every check has teeth of its own (issue 38): under ``--controls`` each
check of a claim is judged on the wrong variant, and a control is caught
only when every applicable check catches it. A bug planted in one evidence
path (the residual contract's bounds, the ladder's top rung) is then noticed
even where another check still catches the control.

The bugs are planted in this process (``--in-process``) on two cheap claims:
a user's bound with irrational terms (``tests/irrational_bound_claims.py``,
no exact check applies: the ladder and float64 alone judge it) and
``sph.chebyshev``, a catalogue bound whose exact check would still catch
the control alone."""

from __future__ import annotations

import inspect
import json
import textwrap
from pathlib import Path

import pytest

from theorems.cli import main
from theorems.core import controls, residuals
from theorems.core.model import ClaimKind, Evidence, EvidenceKind, EvidenceStatus, NegativeControl
from theorems.evidence import precise

USER_CLAIMS = str(Path(__file__).with_name("irrational_bound_claims.py"))


def _planted(module, name: str, old: str, new: str):
    """``module.name`` recompiled from its source with ``old`` replaced by
    ``new`` (exactly once), in the module's namespace: a one-line bug."""
    source = textwrap.dedent(inspect.getsource(getattr(module, name)))
    assert source.count(old) == 1, f"{module.__name__}.{name} no longer contains {old!r}"
    namespace = dict(vars(module))
    exec(compile(source.replace(old, new), module.__file__, "exec"), namespace)  # noqa: S102 - our own source
    return namespace[name]


def _verify(tmp_path, *only: str) -> tuple[int, dict]:
    argv = ["verify", "--controls", "--in-process", "--claims", USER_CLAIMS, "--out", str(tmp_path)]
    for cid in only:
        argv += ["--only", cid]
    code = main(argv)
    return code, {c["id"]: c for c in json.loads((tmp_path / "report.json").read_text())["claims"]}


def _results(claim: dict) -> dict[str, str]:
    return {name: row["result"] for name, row in claim["negative_control"]["per_check"].items()}


def _drop_bound_violations(monkeypatch):
    """The residual contract with its sign test flipped: every ``at_most``
    violation is dropped (issue 38: no catalogue status or control moved)."""
    flipped = _planted(residuals, "residual", "if value > 0 else 0.0", "if value < 0 else 0.0")
    monkeypatch.setattr(residuals, "residual", flipped)
    import theorems.authoring.templates as templates

    monkeypatch.setattr(templates, "residual", flipped)


def _skip_top_rung(monkeypatch):
    """The ladder's flag flipped: a bound declared ``falls=False`` is no
    longer judged at its top rung (issue 38: the catalogue did not notice)."""
    monkeypatch.setattr(precise, "check", _planted(precise, "check", "top = dps == ladder[-1] and not falls",
                                                   "top = dps == ladder[-1] and falls"))


def test_every_applicable_check_of_the_chosen_claims_catches_its_control(tmp_path):
    code, claims = _verify(tmp_path, "teeth.projector-norm", "sph.chebyshev")
    assert code == 0
    assert _results(claims["teeth.projector-norm"]) == {"exact": "not applicable", "ladder": "caught",
                                                        "float": "caught"}
    assert claims["teeth.projector-norm"]["negative_control"]["per_check"]["exact"]["reason"] == \
        "not exact: norm(ord=2)"
    assert set(_results(claims["sph.chebyshev"]).values()) == {"caught"}


def test_a_residual_contract_that_drops_bound_violations_fails_the_run_with_controls(tmp_path, monkeypatch):
    _drop_bound_violations(monkeypatch)
    code, claims = _verify(tmp_path, "teeth.projector-norm", "sph.chebyshev")
    assert code == 1
    for cid in ("teeth.projector-norm", "sph.chebyshev"):
        nc = claims[cid]["negative_control"]
        assert nc["caught"] is False, cid
        assert {"ladder", "float"} <= {n for n, r in _results(claims[cid]).items() if r == "missed"}, cid
    # the exact check (its own exact residual) still catches the catalogue claim's control: alone, as
    # before per-check controls, that hid the blind ladder and float64 checks
    assert _results(claims["sph.chebyshev"])["exact"] == "caught"


def test_a_ladder_that_skips_the_top_rung_of_a_bound_that_need_not_fall_fails_the_run_with_controls(
        tmp_path, monkeypatch):
    _skip_top_rung(monkeypatch)
    code, claims = _verify(tmp_path, "teeth.projector-norm")
    assert code == 1
    assert _results(claims["teeth.projector-norm"]) == {"exact": "not applicable", "ladder": "missed",
                                                        "float": "caught"}


def test_a_check_is_judged_alone_on_the_wrong_variant():
    def ev(status, **data):
        return Evidence("c", EvidenceKind.PROPERTY, EvidenceStatus(status), detail="d", data=data)

    assert controls.judge_check(ev("failed")) == ("caught", "failed")
    assert controls.judge_check(ev("not_supported")) == ("caught", "not_supported")
    assert controls.judge_check(ev("passed")) == ("missed", "passed: d")
    assert controls.judge_check(ev("inconclusive")) == ("missed", "inconclusive: d")
    assert controls.judge_check(ev("error")) == ("missed", "error: d")
    # an exact check that judged some cases is applicable, however many were irrational
    assert controls.judge_check(ev("passed", not_exact={"functions": ["sqrt"], "cases": 2, "of": 8}))[0] == "missed"
    assert controls.judge_check(ev("passed", not_exact={"functions": ["sqrt"], "cases": 8, "of": 8})) == \
        ("not applicable", "not exact: sqrt")
    assert controls.judge_check(ev("answered", answers={"x": 2}), right_answers={"c": {"x": 1}}) == \
        ("caught", "the answer moved")
    assert controls.judge_check(ev("answered", answers={"x": 1}), right_answers={"c": {"x": 1}})[0] == "missed"


def _claim_with(*cs):
    from theorems.authoring.templates import claim

    def run(ctx):  # never run here
        raise AssertionError

    return claim("t.aimed", kind=ClaimKind.APPROXIMATION, title="t", statement="x", source="s",
                 checks={"a": (EvidenceKind.SIMULATION, run), "b": (EvidenceKind.SIMULATION, run)}, control=cs)


def test_a_claim_aims_several_controls_and_each_check_needs_one():
    from theorems.authoring.templates import wrong

    import linmem

    first = wrong("one", aimed_at=("a",), snr=lambda h: 2 * h)
    second = wrong("two", aimed_at=("b",), not_applicable={"a": "why not"}, snr=lambda h: 3 * h)
    c = _claim_with(first, second)
    assert c.controls == (first, second) and c.negative_control is first
    assert [x.runs("a") for x in c.controls] == [True, False] and [x.runs("b") for x in c.controls] == [False, True]
    with pytest.raises(ValueError, match="no negative control runs the check 'b'"):
        _claim_with(first)
    with pytest.raises(ValueError, match="names the check 'z'"):
        _claim_with(wrong("z", aimed_at=("z",), snr=linmem.snr))
    with pytest.raises(TypeError, match=r"aimed_at must be a sequence of check names.*write \('a',\)"):
        NegativeControl("d", {"snr": linmem.snr}, aimed_at="a")
    with pytest.raises(TypeError, match="not_applicable must map check names to the reason"):
        NegativeControl("d", {"snr": linmem.snr}, not_applicable={"a": ""})


def test_a_control_is_caught_only_when_every_applicable_check_it_runs_catches_it():
    from theorems.authoring.templates import wrong
    from theorems.core.model import Status

    first = wrong("one", snr=lambda h: 2 * h)
    second = wrong("two", aimed_at=("b",), snr=lambda h: 3 * h)
    c = _claim_with(first, second)

    def ev(name, status):
        return Evidence(name, EvidenceKind.SIMULATION, EvidenceStatus(status))

    one = controls.judge_control(c, first, [ev("a", "failed"), ev("b", "passed")], Status.FAILED)
    two = controls.judge_control(c, second, [ev("b", "failed")], Status.FAILED)
    assert (one["caught"], two["caught"]) == (False, True)
    assert two["checks"]["a"]["result"] == "not aimed"
    record = controls.summarise(c, [one, two])
    assert record["caught"] is False  # caught by b under the second control does not excuse the first's miss
    assert record["per_check"]["b"] == {"result": "missed", "reason": "passed", "controls": [0]}
    assert record["counts"] == {"caught": 1, "missed": 1, "not applicable": 0}
    assert "check 'b' missed it under control 1 (one) (passed)" == controls.missed_text(record)
