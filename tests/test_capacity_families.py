"""The key families of the capacity claims produce what their names say:
exactly uniform leverage d/M (theorems.strategies.uniform_leverage_keys) and
d x 2d keys of rank exactly d with uneven leverage
(theorems.strategies.rank_d_keys_at_two_d)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import find, given, settings

import linmem
from theorems import kit
from theorems.strategies import rank_d_keys_at_two_d, uniform_leverage_keys


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
