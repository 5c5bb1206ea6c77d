"""theorems.evidence.simulation.drift: a location's drift with size, decided
with the power stated (False against the claimed direction, INCONCLUSIVE
when the profile cannot resolve the effect, else the bound on the claimed
side)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from linmem import sweeps
from theorems.evidence import simulation
from theorems.core.model import EvidenceStatus
from theorems.core.tolerance import SIMULATION_WRONG_VERDICT_RATE

SIZES = [6, 8, 10, 12]


def _samples(slope: float, scatter: float, pools: int = 6, seed: int = 0) -> list[np.ndarray]:
    """Per-pool locations 1 + slope log(size), scattered as scatter / size."""
    rng = np.random.default_rng(seed)
    return [1 + slope * math.log(n) + scatter / n * rng.standard_normal(pools) for n in SIZES]


def test_a_resolved_fall_is_supported_and_the_summary_states_the_power():
    ok, summary, why = simulation.drift(SIZES, _samples(-0.3, 0.01), effect=0.1, spread=0.01, profile="quick")
    slope, se, dof = sweeps.peak_drift(SIZES, _samples(-0.3, 0.01))
    assert ok is True and summary["slope"] == slope and summary["se"] == se and summary["dof"] == dof
    assert summary["upper_bound"] < 0 and summary["effect"] == 0.1 and summary["spread"] == 0.01
    assert summary["underpowered"] is None and "need upper < 0" in why


def test_an_unresolved_fall_is_inconclusive_before_the_slope_is_read():
    # the same clear fall, but the profile's stated spread cannot resolve the effect
    ok, summary, why = simulation.drift(SIZES, _samples(-0.3, 0.01), effect=0.1, spread=0.09, profile="quick")
    assert ok is EvidenceStatus.INCONCLUSIVE and summary["underpowered"] and "not resolvable here" in why


@pytest.mark.parametrize("spread", [0.01, 0.09])
def test_a_resolved_rise_contradicts_a_claimed_fall_at_any_power(spread):
    ok, summary, why = simulation.drift(SIZES, _samples(+0.3, 0.01), effect=0.1, spread=spread, profile="quick")
    assert ok is False and summary["lower_bound"] > 0 and "contradicts the statement: yes" in why


def test_a_claimed_rise_mirrors_the_fall():
    up = simulation.drift(SIZES, _samples(+0.3, 0.01), effect=0.1, spread=0.01, profile="quick", falls=False)
    down = simulation.drift(SIZES, _samples(-0.3, 0.01), effect=0.1, spread=0.01, profile="quick", falls=False)
    assert up[0] is True and down[0] is False


def test_no_drift_is_not_supported_when_resolvable():
    # flat locations: neither bound clears zero, so a resolvable fall is not shown
    ok, summary, _ = simulation.drift(SIZES, _samples(0.0, 0.05), effect=0.1, spread=0.01, profile="quick")
    assert ok is False and summary["lower_bound"] < 0 < summary["upper_bound"]


def test_the_bounds_use_the_stated_wrong_verdict_rate():
    _, summary, _ = simulation.drift(SIZES, _samples(-0.3, 0.01), effect=0.1, spread=0.01, profile="quick")
    import scipy.stats

    t = scipy.stats.t.ppf(1 - SIMULATION_WRONG_VERDICT_RATE, summary["dof"])
    assert summary["t"] == pytest.approx(t) and summary["upper_bound"] == summary["slope"] + t * summary["se"]


def test_bad_samples_are_refused():
    with pytest.raises(ValueError, match="same length"):
        simulation.drift([6], [[1.0]], effect=0.1, spread=0.01, profile="quick")
