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
        detail = claims[cid]["evidence"][0]["detail"]
        assert detail.startswith(name), detail
        assert f"{module}:" in detail, detail  # where it was raised
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
