"""The input families of the capacity claims produce what their names say:
exactly uniform leverage d/M (theorems.authoring.__import__('theorems.claims.capacity', fromlist=['x']).uniform_leverage_keys),
d x 2d keys of rank exactly d with uneven leverage
(theorems.authoring.__import__('theorems.claims.capacity', fromlist=['x']).rank_d_keys_at_two_d), and finite laws of a leverage
score on [0, 1) (theorems.authoring.__import__('theorems.claims.capacity', fromlist=['x']).leverage_laws)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import find, given, settings

import linmem
from theorems.authoring import kit
from theorems.core.impl import Impl
from theorems.core.model import Context
from theorems.core.profiles import get_profile
from theorems.authoring.strategies import LEVERAGE_EDGES
from theorems.claims.capacity import leverage_laws, rank_d_keys_at_two_d, uniform_leverage_keys


@settings(max_examples=40, deadline=None)
@given(uniform_leverage_keys())
def test_uniform_leverage_keys_have_leverage_exactly_d_over_m(K):
    d, M = K.shape
    assert M in (2, 4, 8) and 1 <= d < M and kit.is_exact(K)
    assert kit.rank(K) == d
    assert list(linmem.leverage_scores(K)) == [Fraction(d, M)] * M


def _orthogonal_columns(K) -> bool:
    G = K.T @ K
    return all(G[i, j] == 0 for i in range(G.shape[0]) for j in range(G.shape[0]) if i != j)


def test_uniform_leverage_keys_are_neither_unit_nor_orthogonal_in_general():
    K = find(uniform_leverage_keys(), lambda K: not kit.unit_columns(K) and not _orthogonal_columns(K))
    assert list(linmem.leverage_scores(K)) == [Fraction(K.shape[0], K.shape[1])] * K.shape[1]


@settings(max_examples=40, deadline=None)
@given(rank_d_keys_at_two_d(max_dim=3))
def test_rank_d_keys_at_two_d_are_d_by_2d_of_rank_d(K):
    d, M = K.shape
    assert M == 2 * d and 1 <= d <= 3 and kit.is_exact(K) and kit.rank(K) == d
    assert sum(linmem.leverage_scores(K)) == d


def test_rank_d_keys_at_two_d_spread_the_leverage_unevenly():
    K = find(rank_d_keys_at_two_d(max_dim=3), lambda K: len(set(linmem.leverage_scores(K))) > 1)
    h = linmem.leverage_scores(K)
    assert max(h) > Fraction(1, 2) > min(h)


@settings(max_examples=60, deadline=None)
@given(leverage_laws().exact)
def test_exact_leverage_laws_are_laws_on_the_unit_interval(law):
    h, w = law
    assert kit.is_exact(h) and kit.is_exact(w) and len(h) == len(w) >= 1
    assert all(0 <= x < 1 for x in h) and all(x > 0 for x in w) and sum(w) == 1


def test_extreme_leverage_laws_reach_both_ends_and_degenerate_laws():
    ctx = Context(impl=Impl.default(), profile=get_profile("quick"), seed=1, claim_id="test.leverage-laws",
                  check_name="ladder")
    cases = dict(leverage_laws().precise(ctx))
    for h, w in cases.values():
        assert all(0 <= x < 1 for x in h) and all(x > 0 for x in w) and sum(w) == 1
    assert min(min(h) for h, _ in cases.values()) == Fraction(1, 10**30)
    assert max(max(h) for h, _ in cases.values()) == 1 - Fraction(1, 10**40)
    assert sum(len(set(h)) == 1 for h, _ in cases.values()) >= 2  # the equality cases
    assert any(label.startswith("leverage of") for label in cases)


@settings(max_examples=60, deadline=None)
@given(leverage_laws().floats)
def test_float_leverage_laws_are_laws_on_the_unit_interval(case):
    h, w = case.args
    assert h.dtype == w.dtype == np.float64 and h.shape == w.shape and h.size >= 1
    assert np.all((h >= 0) & (h <= 1)) and np.all(w > 0) and abs(np.sum(w) - 1) < 1e-12


def test_float_leverage_laws_include_the_edges_of_the_interval():
    case = find(leverage_laws().floats, lambda c: float(np.nextafter(1.0, 0.0)) in c.args[0])
    assert LEVERAGE_EDGES[-1] in case.args[0]
