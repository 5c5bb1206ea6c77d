"""The retrieval input families of theorems.authoring.strategies produce what their
names say: score vectors of each kind with k in range, memory instances with
their shapes and W's two forms, integer points in general position."""

from __future__ import annotations

import itertools

import numpy as np
import sympy
from hypothesis import given, settings

from theorems.authoring import strategies


@settings(max_examples=200, deadline=None)
@given(__import__('theorems.claims.tam', fromlist=['x']).score_vectors())
def test_score_vectors_are_of_their_kind(case):
    recipe, s, k = case
    m = recipe["m"]
    assert s.shape == (m,) and s.dtype == float and np.all(np.isfinite(s)) and 1 <= k <= m == len(s)
    assert recipe["k"] == k and recipe["kind"] in strategies.SCORE_KINDS
    if recipe["kind"] == "ties":
        assert set(s.tolist()) <= {-2.0, -1.0, 0.0, 1.0, 2.0}
    elif recipe["kind"] == "tied":
        assert np.all(s == s[0]) and s[0] in range(-3, 4)


def test_score_vectors_reach_every_kind_and_sixteen_decades():
    from hypothesis import find

    for kind in strategies.SCORE_KINDS:
        recipe, s, _ = find(__import__('theorems.claims.tam', fromlist=['x']).score_vectors(), lambda c: c[0]["kind"] == kind and c[0]["m"] >= 8,
                            settings=settings(database=None, max_examples=2000))
        assert recipe["kind"] == kind
    wide = find(__import__('theorems.claims.tam', fromlist=['x']).score_vectors(), lambda c: c[0]["kind"] == "wide" and c[0]["m"] >= 8
                and np.log10(np.max(np.abs(c[1])) / np.min(np.abs(c[1]))) > 10,
                settings=settings(database=None, max_examples=2000))
    assert np.log10(np.max(np.abs(wide[1])) / np.min(np.abs(wide[1]))) > 10


@settings(max_examples=100, deadline=None)
@given(__import__('theorems.claims.tam', fromlist=['x']).memory_instances())
def test_memory_instances_have_their_shapes(case):
    recipe, W, V, U, k = case
    n, dk, dt = recipe["n"], recipe["dk"], recipe["dt"]
    assert V.shape == (dk, n) and U.shape == (dt, n) and W.shape == (dt, dk) and 1 <= k <= n - 1
    rng = np.random.default_rng(recipe["seed"])
    assert np.array_equal(V, rng.standard_normal((dk, n))) and np.array_equal(U, rng.standard_normal((dt, n)))
    gaussian_w = rng.standard_normal((dt, dk))
    assert np.array_equal(W, gaussian_w) or np.array_equal(W, U @ V.T)


@settings(max_examples=60, deadline=None)
@given(__import__('theorems.claims.tam', fromlist=['x']).general_position_points())
def test_general_position_points_are_in_general_position(case):
    recipe, X = case
    n, D = recipe["n"], recipe["D"]
    assert X.shape == (n, D) and X.dtype == object and all(abs(int(x)) <= 5 for x in X.ravel())
    m = min(n, D)
    for rows in itertools.combinations(range(n), m):  # every m of them independent, by sympy's exact rank
        assert sympy.Matrix([[int(x) for x in X[i]] for i in rows]).rank() == m
