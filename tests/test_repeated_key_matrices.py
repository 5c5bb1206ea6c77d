"""theorems.authoring.__import__('theorems.claims.recall', fromlist=['x']).repeated_key_matrices gives what its name says: exact
keys with a repeated nonzero column, so some key has leverage in (0, 1/2];
theorems.authoring.kit.leverage, the reference leverage it is judged by."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
import sympy
from hypothesis import find, given, settings

import linmem
from theorems.authoring import kit
from theorems.claims.recall import repeated_key_matrices


def _leverage(K):
    return kit.leverage(K)


@settings(max_examples=60, deadline=None)
@given(repeated_key_matrices())
def test_some_nonzero_key_is_repeated_and_strictly_inside_the_leverage_range(K):
    assert kit.is_exact(K) and K.shape[0] <= 3 and 2 <= K.shape[1] <= 4
    cols = [tuple(K[:, j]) for j in range(K.shape[1])]
    repeated = [j for j, c in enumerate(cols) if any(x != 0 for x in c) and cols.count(c) >= 2]
    assert repeated
    h = _leverage(K)
    assert all(0 < h[j] <= sympy.Rational(1, 2) for j in repeated)


@settings(max_examples=200, deadline=None)
@given(repeated_key_matrices())
def test_a_zeroed_column_is_the_only_way_to_a_zero_key(K):
    zero = [j for j in range(K.shape[1]) if all(x == 0 for x in K[:, j])]
    assert len(zero) <= 1


def test_a_zero_key_and_a_key_at_leverage_one_both_occur():
    find(repeated_key_matrices(), lambda K: any(all(x == 0 for x in K[:, j]) for j in range(K.shape[1])))
    find(repeated_key_matrices(), lambda K: 1 in _leverage(K))


@settings(max_examples=40, deadline=None)
@given(repeated_key_matrices(max_dim=4, max_count=4))
def test_the_reference_leverage_is_the_diagonal_of_the_coefficient_projector(K):
    h = kit.leverage(K)
    assert all(isinstance(x, sympy.Rational) and 0 <= x <= 1 for x in h)
    assert sum(h) == kit.rank(K)  # trace of P = rank K
    assert [F(int(x.p), int(x.q)) for x in h] == list(linmem.leverage_scores(K))


def test_the_reference_leverage_refuses_float_keys():
    with pytest.raises(TypeError, match="K must be a 2-D exact"):
        kit.leverage(np.eye(2))
