"""Hostile claims against the runner: a check that exits, returns evidence of
a bad type or measures NaN is that check's ERROR, never the end of the run
or a wrong verdict; claims modules that cannot load are usage errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from theorems.cli import main

#: A claims module with one claim per entry of ``RAISERS``: its only check
#: runs the body given, then a genuinely FAILED claim, so a run that stops
#: early loses it.
_MODULE = '''
import sys
from theorems import Check, Claim, ClaimKind, Evidence, EvidenceKind, EvidenceStatus, NegativeControl


class Custom(BaseException):
    pass


def _evidence(ctx, ok=True, **fields):
    return Evidence(check=ctx.check_name, kind=EvidenceKind.SIMULATION,
                    status=EvidenceStatus.PASSED if ok else EvidenceStatus.FAILED, **fields)


def _claim(cid, run):
    return Claim(id=cid, title=cid, statement="x", kind=ClaimKind.CONJECTURE, source="test",
                 checks=(Check("sweep", EvidenceKind.SIMULATION, run),),
                 negative_control=NegativeControl("nothing changed", {}))


def _raise(exc):
    def run(ctx):
        raise exc
    return run


CLAIMS = [_claim(cid, run) for cid, run in BODIES.items()] + [
    _claim("hostile.false", lambda ctx: _evidence(ctx, ok=False, figure=2.0, threshold=1.0))]
'''

_RAISERS = '''
BODIES = {
    "hostile.exit0": _raise(SystemExit(0)),
    "hostile.exit3": lambda ctx: sys.exit(3),
    "hostile.generator-exit": _raise(GeneratorExit("closed")),
    "hostile.custom": _raise(Custom("mine")),
}
'''

#: Claim id -> the exception name its ERROR detail must give.
_RAISED = {"hostile.exit0": "SystemExit", "hostile.exit3": "SystemExit: 3",
           "hostile.generator-exit": "GeneratorExit: closed", "hostile.custom": "Custom: mine"}


def _module(tmp_path: Path, bodies: str, name: str = "hostile_claims.py") -> Path:
    path = tmp_path / name
    head, tail = _MODULE.split("CLAIMS = ", 1)
    path.write_text(head + textwrap.dedent(bodies) + "\nCLAIMS = " + tail)
    return path


def _verify(tmp_path: Path, module: Path, *extra: str) -> tuple[int, dict]:
    out = tmp_path / "out"
    code = main(["verify", "--claims", str(module), "--only", "hostile.*", "--out", str(out), *extra])
    report = json.loads((out / "report.json").read_text())
    return code, {c["id"]: c for c in report["claims"]}


@pytest.mark.parametrize("jobs", [pytest.param("1", id="serial"), pytest.param("2", id="jobs-2")])
def test_a_check_raising_any_base_exception_is_its_error_and_the_run_goes_on(tmp_path, jobs, capsys):
    module = _module(tmp_path, _RAISERS)
    code, claims = _verify(tmp_path, module, "--jobs", jobs)
    assert code == 1
    assert claims["hostile.false"]["status"] == "FAILED"
    for cid, name in _RAISED.items():
        assert claims[cid]["status"] == "ERROR", cid
        ev = claims[cid]["evidence"][0]
        assert ev["detail"] == name or ev["detail"].startswith(name + ":"), ev["detail"]
        assert ev["data"]["raised_at"].startswith(f"{module}:"), ev["data"]  # where it was raised
    assert (tmp_path / "out" / "report.html").exists()


def _pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_PROFILE", "PYTEST_ADDOPTS", "THEOREMS_PROFILE")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q", *args],
                          cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


def test_the_pytest_plugin_fails_each_raising_check_and_runs_the_rest(tmp_path):
    _module(tmp_path, _RAISERS)
    ran = _pytest(tmp_path, "--theorems", "--theorems-claims", "hostile_claims.py", "-k", "hostile and not negative")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "5 failed" in ran.stdout.splitlines()[-1], ran.stdout
    for cid, name in _RAISED.items():
        assert f"{cid} [sweep] error: {name}" in ran.stdout, ran.stdout
    assert "hostile_claims.py" in ran.stdout  # the traceback says where


# --- NaN, unformable terms and shape mismatches: the user's bugs are ERROR ----------------


def _checked(value_of_figure):
    from theorems import Check, Claim, ClaimKind, Evidence, EvidenceKind, EvidenceStatus, NegativeControl

    def run(ctx):
        return Evidence(check=ctx.check_name, kind=EvidenceKind.SIMULATION, status=EvidenceStatus.PASSED,
                        figure=value_of_figure(), threshold=1.0)

    return Claim(id="hostile.figure", title="t", statement="x", kind=ClaimKind.CONJECTURE, source="test",
                 checks=(Check("sweep", EvidenceKind.SIMULATION, run),),
                 negative_control=NegativeControl("nothing changed", {}))


def _nan_figures():
    import mpmath
    import numpy as np

    rows = [("float", lambda: float("nan")), ("0-d array", lambda: np.array(np.nan)),
            ("0-d float32 array", lambda: np.array(np.nan, dtype=np.float32)),
            ("mpf", lambda: mpmath.mpf("nan")), ("mpc", lambda: mpmath.mpc("nan", 0))]
    rows += [(t.__name__, lambda t=t: t("nan")) for t in (np.float16, np.float32, np.float64, np.longdouble)]
    return [pytest.param(make, id=name) for name, make in rows]


@pytest.mark.parametrize("figure", _nan_figures())
def test_a_nan_figure_of_any_type_is_an_error(figure):
    from theorems.core.profiles import get_profile
    from theorems.core.runner import run_claim

    result = run_claim(_checked(figure), profile=get_profile("quick"))
    assert result.status.value == "ERROR"
    assert result.evidence[0].figure is None or result.evidence[0].figure != result.evidence[0].figure


def _custom_check(kind: str, value):
    """A check that measures ``value()`` with the property or ladder checker directly."""
    import mpmath
    from hypothesis import strategies as st

    from theorems import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
    from theorems.evidence import precise
    from theorems.evidence import property as prop

    if kind == "property":
        check = Check("float", EvidenceKind.PROPERTY, lambda ctx: prop.check(ctx, st.integers(0, 3), lambda x: value()))
    else:
        check = Check("ladder", EvidenceKind.PRECISE,
                      lambda ctx: precise.check(ctx, [("one", 1)], lambda c: (value(), mpmath.mpf(1))))
    return Claim(id="hostile.residual", title="t", statement="x", kind=ClaimKind.CONJECTURE, source="test",
                 checks=(check, _checked(lambda: 0.5).checks[0]), negative_control=NegativeControl("nothing changed", {}))


@pytest.mark.parametrize("kind, value", [
    pytest.param("property", lambda: __import__("numpy").float32("nan"), id="property-float32"),
    pytest.param("property", lambda: __import__("numpy").array(float("nan")), id="property-0d"),
    pytest.param("ladder", lambda: __import__("mpmath").mpf("nan"), id="ladder-mpf"),
])
def test_a_nan_residual_measured_by_a_checker_is_an_error_not_a_counterexample(kind, value):
    from theorems.core.profiles import get_profile
    from theorems.core.runner import run_claim

    result = run_claim(_custom_check(kind, value), profile=get_profile("quick"))
    ev, sweep = result.evidence
    assert ev.status.value == "error" and "is NaN" in ev.detail, ev.detail
    assert sweep.status.value == "passed" and result.status.value == "ERROR"


def _identity(terms):
    from theorems.authoring.strategies import keys
    from theorems.authoring.templates import identity, wrong

    return identity("hostile.identity", title="t", statement="x", source="test", inputs=keys(), terms=terms,
                    control=wrong("nothing", pinv=lambda K: K))


import scipy.linalg  # noqa: E402 - named in _expm_terms, as a user's module names it


def _pinv_terms(impl, K):
    import numpy as np

    return [(np.linalg.pinv(K), np.linalg.pinv(K))]  # numpy's pinv, routed to each number system


def _expm_terms(impl, K):
    G = K.T @ K
    return [(scipy.linalg.expm(G), scipy.linalg.expm(G))]  # scipy's float-only expm: no exact or mpmath version


@pytest.mark.parametrize("terms, statuses, words", [
    pytest.param(lambda impl, K: [(__import__("numpy").full(K.shape, float("nan")), K)], {"exact": "error", "ladder": "error", "float": "error"},
                 "is NaN", id="nan-terms"),
    pytest.param(_pinv_terms, {"exact": "passed", "ladder": "passed", "float": "passed"},
                 None, id="numpy-pinv-runs-in-every-number-system"),
    pytest.param(_expm_terms, {"exact": "error", "ladder": "error", "float": "passed"},
                 "scipy.linalg.expm", id="scipy-has-no-exact-or-mpmath-version"),
    pytest.param(lambda impl, K: [(K, __import__("numpy").vstack([K, K]))],
                 {"exact": "error", "ladder": "error", "float": "error"}, "different shapes on every input",
                 id="shapes-differ-everywhere"),
    pytest.param(lambda impl, K: [(K, K.T + 1)], {"exact": "failed", "ladder": "failed", "float": "failed"},
                 None, id="false-where-the-shapes-match"),
])
def test_the_users_bugs_are_errors_and_a_same_shape_counterexample_still_fails(terms, statuses, words):
    from theorems.core.profiles import get_profile
    from theorems.core.runner import run_claim

    result = run_claim(_identity(terms), profile=get_profile("quick"))
    got = {e.check: e.status.value for e in result.evidence}
    assert got == statuses, [(e.check, e.detail) for e in result.evidence]
    errors = [e for e in result.evidence if e.status.value == "error"]
    assert all(words in e.detail for e in errors), [e.detail for e in errors]
    if words and "shapes" in words:
        assert "lhs (" in errors[0].detail and "rhs (" in errors[0].detail
    for e in result.evidence:
        if e.status.value == "failed" and e.check == "exact":
            K = e.counterexample["input"]
            K = K.get("K", K) if isinstance(K, dict) else K
            assert len(K) == len(K[0]), e.counterexample  # square: the shapes match


# --- evidence of a bad type: that check's ERROR, the reports still written ------------------

_BAD_EVIDENCE = '''
def _cyclic(ctx):
    data = {"rows": []}
    data["rows"].append(data)
    return _evidence(ctx, data=data)


def _bad_status(ctx):
    ev = _evidence(ctx)
    ev.status = "passed"
    return ev


BODIES = {
    "hostile.status-string": _bad_status,
    "hostile.huge-figure": lambda ctx: _evidence(ctx, figure=10**400, threshold=1.0),
    "hostile.complex-figure": lambda ctx: _evidence(ctx, figure=1 + 2j, threshold=1.0),
    "hostile.cyclic-data": _cyclic,
    "hostile.string-figure": lambda ctx: _evidence(ctx, figure="0.5", threshold=1.0),
    "hostile.surrogate": lambda ctx: _evidence(ctx, detail="bad \\udc80 text"),
    "hostile.unpicklable": lambda ctx: _evidence(ctx, data={"f": lambda: 0, "g": (i for i in [])}),
}
'''

#: Claim id -> words of the reason its ERROR detail gives.
_BAD_REASONS = {"hostile.status-string": "status must be an EvidenceStatus, got str 'passed'",
                "hostile.huge-figure": "figure must fit a float, got int of 401 digits",
                "hostile.complex-figure": "figure must be a real number, got the complex (1+2j)",
                "hostile.cyclic-data": "contains itself",
                "hostile.string-figure": "figure must be a real number, got str '0.5'",
                "hostile.surrogate": "not valid Unicode"}


@pytest.mark.parametrize("jobs", [pytest.param("1", id="serial"), pytest.param("2", id="jobs-2")])
def test_evidence_of_a_bad_type_is_that_checks_error_and_the_reports_are_written(tmp_path, jobs, capsys):
    code, claims = _verify(tmp_path, _module(tmp_path, _BAD_EVIDENCE), "--jobs", jobs)
    assert code == 1
    assert claims["hostile.false"]["status"] == "FAILED"
    for cid, words in _BAD_REASONS.items():
        assert claims[cid]["status"] == "ERROR", cid
        assert words in claims[cid]["evidence"][0]["detail"], claims[cid]["evidence"][0]["detail"]
    assert claims["hostile.unpicklable"]["status"] == "VERIFIED"  # its data written as text, --jobs 2 too
    for name in ("report.md", "report.html", "junit.xml"):
        assert (tmp_path / "out" / name).exists(), name


# --- claims modules that cannot load: one line, a usage error ------------------------------

_IMPORT_RAISERS = [
    pytest.param("raise SystemExit(0)\n", "raised SystemExit", id="system-exit-0"),
    pytest.param("import sys\nsys.exit('bye')\n", "raised SystemExit: bye", id="sys-exit-text"),
    pytest.param("raise GeneratorExit('closed')\n", "raised GeneratorExit: closed", id="generator-exit"),
    pytest.param("class Mine(BaseException):\n    pass\n\n\nraise Mine('at import')\n", "raised Mine: at import",
                 id="base-exception-subclass"),
]


@pytest.mark.parametrize("body, words", _IMPORT_RAISERS)
def test_a_claims_module_raising_any_base_exception_at_import_is_one_line_exit_2(tmp_path, body, words, capsys):
    module = tmp_path / "raising_claims.py"
    module.write_text(body)
    assert main(["list", "--claims", str(module)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and f"{module}:" in err, err


@pytest.mark.parametrize("args, words", [
    pytest.param(("--theorems-claims", "missing.py"), "'missing.py' does not exist", id="missing-module"),
    pytest.param(("--theorems-claims", "broken.py"), "has a syntax error", id="syntax-error"),
    pytest.param(("--theorems-claims", "raising.py"), "raised Mine: at import", id="base-exception-at-import"),
    pytest.param(("--theorems-seed", "-1"), "must be an integer >= 0, got -1", id="negative-seed"),
])
def test_the_pytest_plugin_makes_bad_options_usage_errors(tmp_path, args, words):
    (tmp_path / "broken.py").write_text("CLAIMS = [\n")
    (tmp_path / "raising.py").write_text(_IMPORT_RAISERS[-1].values[0])
    ran = _pytest(tmp_path, "--theorems", "--co", *args)
    assert ran.returncode == 4, ran.stdout + ran.stderr  # pytest's usage error, not INTERNALERROR (3)
    assert words in ran.stderr and "INTERNALERROR" not in ran.stdout + ran.stderr, ran.stderr


# --- claim ids: one documented character set, checked at registration ----------------------


@pytest.mark.parametrize("cid", [
    pytest.param("mine", id="one-part"), pytest.param("Mine.x", id="uppercase"),
    pytest.param("mine.x y", id="space"), pytest.param("mine.<script>", id="html"),
    pytest.param("mine.a|b", id="pipe"), pytest.param("mine.`x`", id="backtick"),
    pytest.param("mine.x_y", id="underscore"), pytest.param("mine..x", id="empty-part"),
    pytest.param("-mine.x", id="leading-hyphen"), pytest.param("", id="empty"),
    pytest.param("mine.x\n", id="newline"), pytest.param("mine.\u00e9", id="non-ascii"),
])
def test_a_claim_id_outside_the_documented_character_set_is_refused_at_registration(cid):
    import dataclasses

    from theorems.core.registry import Registry

    good = _checked(lambda: 0.5)
    assert len(Registry([good])) == 1
    with pytest.raises(ValueError, match="is not a valid claim id") as info:
        Registry([dataclasses.replace(good, id=cid)])
    assert repr(cid) in str(info.value)


def test_every_catalogue_id_and_the_catalogue_tests_pattern_match_the_documented_set():
    import re

    from theorems.core.model import CLAIM_ID_PATTERN
    from theorems.core.registry import load_claims

    assert all(re.fullmatch(CLAIM_ID_PATTERN, cid) for cid in load_claims().ids())
    catalogue_test = (Path(__file__).parent / "test_catalogue.py").read_text()
    assert CLAIM_ID_PATTERN in catalogue_test.replace("\\\\", "\\")


# --- the user's claims alone in the pytest plugin; "control caught" in the console ----------


@pytest.mark.parametrize("extra, catalogue", [
    pytest.param((), False, id="claims-module-alone"),
    pytest.param(("--theorems-catalogue",), True, id="catalogue-on-request"),
])
def test_the_pytest_plugin_collects_the_claims_module_alone_unless_the_catalogue_is_asked_for(tmp_path, extra, catalogue):
    _module(tmp_path, _RAISERS)
    listed = _pytest(tmp_path, "--theorems", "--co", "--theorems-claims", "hostile_claims.py", *extra)
    ids = {line.split("::")[0] for line in listed.stdout.splitlines() if "::" in line}
    assert {"hostile.exit0", "hostile.false"} <= ids, listed.stdout + listed.stderr
    assert ("recall.snr" in ids) is catalogue and (len(ids) > 80) is catalogue, sorted(ids)


@pytest.mark.parametrize("caught, words", [
    pytest.param(True, "(control caught)", id="caught"),
    pytest.param(False, "(negative control NOT caught)", id="missed"),
])
def test_the_console_line_says_whether_the_control_was_caught(caught, words):
    from theorems.core.profiles import get_profile
    from theorems.reporting.progress import plain_line
    from theorems.core.runner import run_claim

    result = run_claim(_checked(lambda: 0.5), profile=get_profile("quick"))
    result.negative_control = {"caught": caught}
    assert plain_line(1, 1, result).endswith(words)


def test_report_json_records_the_sha256_of_each_claims_module(tmp_path, capsys):
    import hashlib

    module = _module(tmp_path, _RAISERS)
    _verify(tmp_path, module, "--only", "hostile.false")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["selection"]["claims_sha256"] == {str(module): hashlib.sha256(module.read_bytes()).hexdigest()}
