"""linmem.snr_jensen_gap (the convexity gap of the SNR, cap.jensen-gap's
formula) and the input strategies of the recall and capacity claims."""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import linmem
from theorems.authoring import kit
from theorems.claims import capacity
from theorems.claims.recall import repeated_key_matrices


def _direct_gap(h, w):
    m = sum(wi * x for wi, x in zip(w, h))
    return sum(wi * x / (1 - x) for wi, x in zip(w, h)) - m / (1 - m)


def test_the_jensen_gap_of_two_points_is_known_exactly():
    # E[h/(1-h)] over {0, 1/2} is 1/2, the SNR of the mean 1/4 is 1/3
    assert linmem.snr_jensen_gap([F(0), F(1, 2)]) == F(1, 6)
    assert linmem.snr_jensen_gap(kit.exact([F(1, 10), F(9, 10)]), [1, 3]) == _direct_gap(
        [F(1, 10), F(9, 10)], [F(1, 4), F(3, 4)])


def test_a_degenerate_law_has_no_gap_in_every_number_system():
    assert linmem.snr_jensen_gap([F(1, 3)] * 3) == 0
    assert linmem.snr_jensen_gap(np.full(4, 0.7)) == 0.0
    assert linmem.snr_jensen_gap(np.array([mpmath.mpf(1) / 3] * 2, dtype=object)) == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fractions(0, 1).filter(lambda x: x < 1), min_size=1, max_size=6),
       st.data())
def test_the_jensen_gap_equals_the_difference_and_is_positive_unless_degenerate(hs, data):
    ws = data.draw(st.lists(st.integers(1, 9), min_size=len(hs), max_size=len(hs)))
    gap = linmem.snr_jensen_gap(kit.exact(hs), ws)
    total = sum(ws)
    assert gap == _direct_gap(hs, [F(w, total) for w in ws])
    assert gap > 0 or len(set(hs)) == 1


def test_the_float_gap_avoids_the_cancellation_of_the_difference():
    # a spread of 1e-9 about 1/2: the difference of two numbers near 1 loses
    # every digit of the 4e-18 gap, the remainder keeps them
    h = np.array([0.5 - 1e-9, 0.5 + 1e-9])
    exact = linmem.snr_jensen_gap(kit.exact(h))
    assert abs(linmem.snr_jensen_gap(h) - float(exact)) <= 1e-6 * float(exact)


@pytest.mark.parametrize("h, weights, error, match", [
    pytest.param([F(1, 2), F(1)], None, ValueError, r"\[0, 1\).*index 1", id="h at 1"),
    pytest.param([1.5], None, ValueError, "h must lie in", id="h above 1"),
    pytest.param([-0.5], None, ValueError, "h must lie in", id="h negative"),
    pytest.param(0.5, None, ValueError, "1-D", id="scalar h"),
    pytest.param([[0.5]], None, ValueError, "1-D", id="2-D h"),
    pytest.param([0.1, 0.2], [1.0], ValueError, "one weight per leverage score", id="weights too short"),
    pytest.param([0.1, 0.2], [1.0, -1.0], ValueError, "nonnegative", id="negative weight"),
    pytest.param([0.1, 0.2], [0.0, 0.0], ValueError, "not all zero", id="zero weights"),
    pytest.param(["a"], None, (TypeError, ValueError), "h", id="not numbers"),
])
def test_snr_jensen_gap_refuses_bad_input_naming_the_argument(h, weights, error, match):
    with pytest.raises(error, match=match):
        linmem.snr_jensen_gap(h, weights)


@settings(max_examples=40, deadline=None)
@given(capacity.rank_d_keys_at_two_d())
def test_rank_d_keys_at_two_d_have_rank_d_and_2d_columns(K):
    d, M = K.shape
    assert M == 2 * d and kit.rank(K) == d and kit.is_exact(K)


@settings(max_examples=40, deadline=None)
@given(repeated_key_matrices())
def test_repeated_key_matrices_always_have_a_key_strictly_inside_0_1(K):
    assert any(0 < x < 1 for x in kit.leverage(K))
