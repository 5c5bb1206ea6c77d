"""The finite designs of theorems.strategies are what their names say: the
sphere's first two moments exactly (unit points, symmetric, tight frame; the
plane and orbit designs without an orthogonal pair), query noise of mean 0
and covariance tau^2 I with the stated extra structure, and exactly unit
rational columns."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from theorems import kit
from theorems.strategies import (
    NOISE_DESIGN_KINDS,
    noise_design,
    rational_unit_columns,
    sphere_design,
    sphere_designs,
)


def _second_moment(law):
    K = law.outcomes[0]
    return law.mean(K[:, :, None] * K[:, None, :])


@settings(max_examples=40, deadline=None)
@given(sphere_designs())
def test_every_sphere_design_has_unit_points_mean_zero_and_second_moment_identity_over_d(law):
    d = law.info["d"]
    K = law.outcomes[0]
    assert K.shape[1] == d and all(sum(x * x for x in k) == 1 for k in K)
    assert all(x == 0 for x in law.mean(K))
    assert (_second_moment(law) == kit.eye(d, K) * Fraction(1, d)).all()


@pytest.mark.parametrize("kind", ["plane", "orbit"])
def test_the_plane_and_orbit_designs_have_no_orthogonal_pair(kind):
    K = sphere_design(kind).outcomes[0]
    assert all(K[i] @ K[j] != 0 for i in range(len(K)) for j in range(len(K)))


def test_sphere_designs_reach_every_kind_and_sizes_are_the_documented_ones():
    assert len(sphere_design("coordinate", 3)) == 6 and len(sphere_design("sign", 4)) == 16
    assert len(sphere_design("plane")) == 6 and len(sphere_design("orbit")) == 24
    assert len(sphere_design("frame", 3, 5)) == 6


@pytest.mark.parametrize("call, message", [
    pytest.param(lambda: sphere_design("cube", 3), "kind must be one of", id="unknown sphere design"),
    pytest.param(lambda: sphere_design("coordinate", 0), "d must be an integer >= 1", id="coordinate in R^0"),
    pytest.param(lambda: sphere_design("sign", 3), "square dimension", id="sign design in R^3"),
    pytest.param(lambda: noise_design("gaussian", 2, 1), "kind must be one of", id="unknown noise design"),
    pytest.param(lambda: noise_design("coordinate", 3, 1), "square dimension", id="signed coordinate in R^3"),
    pytest.param(lambda: noise_design("rademacher", 0, 1), "d must be an integer >= 1", id="noise in R^0"),
])
def test_designs_refuse_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("kind", NOISE_DESIGN_KINDS)
@pytest.mark.parametrize("tau", [Fraction(1, 2), Fraction(3)])
def test_noise_designs_have_mean_zero_and_covariance_tau_squared_identity(kind, tau):
    law = noise_design(kind, 4, tau)
    eta = law.outcomes[0]
    assert eta.shape[1:] == (4, 1)
    assert all(x == 0 for x in law.mean(eta).ravel())
    assert (law.mean(eta @ np.swapaxes(eta, -1, -2)) == tau**2 * kit.eye(4, eta)).all()


def test_noise_designs_differ_from_a_gaussian_as_documented():
    skewed = noise_design("skewed", 1, Fraction(1))
    assert skewed.mean(skewed.outcomes[0] ** 3).item() != 0  # third moment
    coordinate = noise_design("coordinate", 4, Fraction(1)).outcomes[0][:, :, 0]
    assert all(np.count_nonzero(row) == 1 for row in coordinate)  # uncorrelated, dependent coordinates
    assert len(noise_design("rademacher", 3, Fraction(1))) == 8


@settings(max_examples=30, deadline=None)
@given(rational_unit_columns(3, 2))
def test_rational_unit_columns_are_exactly_unit(K):
    assert K.shape == (3, 2) and kit.unit_columns(K)
