"""Test configuration: Hypothesis profiles for the linmem tests (the claim
checks seed themselves from the run seed), chosen by $HYPOTHESIS_PROFILE;
CI sets CI=true and gets the derandomized profile, so a green run replays."""

from __future__ import annotations

import os

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
