"""Test configuration: Hypothesis profiles for the linmem tests, loaded from
$HYPOTHESIS_PROFILE (else "ci" when CI=true, derandomized so a green run
replays, else "dev"). The claim items (tests/test_claims.py) seed themselves
from the theorems seed and take their example counts from the theorems
profile; only an explicit Hypothesis option ($HYPOTHESIS_PROFILE,
--hypothesis-profile, --hypothesis-seed) changes them (see
theorems/pytest_plugin.py)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import mpmath
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", max_examples=100, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(autouse=True)
def _reset_mpmath_precision():
    """Precision is changed only inside workdps; fail a test that leaks it."""
    before = mpmath.mp.prec
    yield
    leaked = mpmath.mp.prec
    mpmath.mp.prec = before
    assert leaked == before, f"mpmath precision leaked: {before} -> {leaked}"


TOOLS = Path(__file__).resolve().parents[1] / "tools"


@pytest.fixture(scope="session")
def load_tool():
    """``load_tool(name)``: the script ``tools/<name>.py`` imported as the
    module ``<name>_tool`` (registered in ``sys.modules``, which dataclasses
    and pickling of its objects need)."""

    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"{name}_tool", TOOLS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module

    return load


#: Test items that take minutes at the standard profile (CI's): the real-embedding capacity
#: questions, the finite-size sweeps and the LP crossing (measured in a CI rehearsal: 100-273 s
#: each, against under 40 s for every other item). They start first, so that under
#: ``pytest -n auto`` none of them begins last and leaves the other workers idle at the end.
LONG_ITEMS = ("[real.cmm-capacity", "[real.ls-capacity", "[real.optimal-capacity", "[fs.ce-norm-peak",
              "[fs.second-order", "[t1.sharp-threshold-2")


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: not any(mark in item.nodeid for mark in LONG_ITEMS))  # stable: order kept otherwise
