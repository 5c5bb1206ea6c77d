"""The strategies produce what their names promise (rank, condition number,
duplicates, unit norms, exactness)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy
from hypothesis import given, settings

import linmem
from theorems.strategies import (
    KeyCase,
    exact_key_matrices,
    exact_unit_key_matrices,
    float_key_cases,
    unit_key_cases,
)


@given(float_key_cases(families=("rank_deficient",)))
def test_rank_deficient_cases_have_the_stated_rank(case):
    assert linmem.numerical_rank(case.K) == case.rank
    assert case.rank < min(case.d, case.M) or min(case.d, case.M) == 1


@given(float_key_cases(families=("ill_conditioned",)))
def test_ill_conditioned_cases_have_the_stated_condition(case):
    s = np.linalg.svd(case.K, compute_uv=False)
    assert s[0] / s[-1] == np.float64(case.cond) or abs(np.log10(s[0] / s[-1]) - np.log10(case.cond)) < 0.05


@given(float_key_cases(families=("duplicated",)))
def test_duplicated_cases_repeat_columns(case):
    distinct = {tuple(c) for c in case.K.T.tolist()}
    assert len(distinct) == case.rank


@given(unit_key_cases())
def test_unit_cases_have_unit_columns(case):
    np.testing.assert_allclose(np.linalg.norm(case.K, axis=0), 1, atol=1e-14)


@given(float_key_cases())
def test_cases_replay_from_their_description(case):
    again = KeyCase.build(**{k: v for k, v in case.describe().items() if k not in ("cond", "rank", "unit")},
                          cond=case.cond, rank=case.rank, unit=case.unit)
    np.testing.assert_array_equal(again.K, case.K)
    np.testing.assert_array_equal(again.V, case.V)


@settings(max_examples=60)
@given(exact_key_matrices())
def test_exact_key_matrices_are_exact_and_have_no_zero_column(K):
    assert all(isinstance(x, Fraction) for x in K.ravel())
    assert all(any(x != 0 for x in K[:, j]) for j in range(K.shape[1]))


def test_exact_key_matrices_include_rank_deficient_and_duplicated():
    seen = {"deficient": False, "duplicated": False}

    @settings(max_examples=200, derandomize=True)
    @given(exact_key_matrices())
    def look(K):
        if sympy.Matrix(K.tolist()).rank() < min(K.shape):
            seen["deficient"] = True
        if len({tuple(c) for c in K.T.tolist()}) < K.shape[1]:
            seen["duplicated"] = True

    look()
    assert seen == {"deficient": True, "duplicated": True}


@given(exact_unit_key_matrices())
def test_exact_unit_key_matrices_have_exactly_unit_columns(K):
    assert all(sum(x * x for x in K[:, j]) == 1 for j in range(K.shape[1]))
