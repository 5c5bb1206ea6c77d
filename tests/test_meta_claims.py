"""The residuals behind the meta.* claims (top-1, the LP, Gordan, TAM feasibility, the learners):
exactly zero on the dyadic cases with linmem, nonzero with the wrong
variants their controls install."""

from __future__ import annotations

import types

import numpy as np
import pytest

import linmem
from theorems.claims import meta


@pytest.mark.parametrize("label,case", meta.DYADIC_LADDER)
def test_dyadic_residuals_are_exactly_zero(label, case):
    assert meta._top1_exact_residual(linmem, case) == 0
    assert meta._lp_exact_residual(linmem, case) == 0


def _impl(**overrides):
    names = ("cmm", "margins", "top1_correct", "max_margin_memory")
    return types.SimpleNamespace(**{**{name: getattr(linmem, name) for name in names}, **overrides})


def test_next_competitor_margin_breaks_the_permutation_relation():
    wrong = _impl(margins=meta._margin_next_competitor)
    assert sum(meta._top1_exact_residual(wrong, case) for _, case in meta.DYADIC_LADDER) > 0


def test_unrescaled_lp_margin_breaks_the_scaling_law():
    wrong = _impl(max_margin_memory=meta._margin_not_rescaled)
    assert meta._lp_exact_residual(wrong, meta.DYADIC_LADDER[2][1]) > 0  # a b = 2^120


def test_max_margin_scales_across_float_range():
    rng = np.random.default_rng(1)
    K, U = rng.standard_normal((2, 3, 5))
    t = linmem.max_margin_memory(K, U).margin
    assert t > 0
    for a, b in ((1e-150, 1e-150), (1e150, 1e150), (1e-150, 1e150)):
        t2 = linmem.max_margin_memory(a * K, b * U).margin / (a * b)
        assert t2 == pytest.approx(t, rel=1e-6)


def _full_impl(**overrides):
    return types.SimpleNamespace(**{**{name: getattr(linmem, name) for name in linmem.__all__}, **overrides})


@pytest.mark.parametrize("label,case", meta.DYADIC_LADDER)
def test_certificate_residuals_are_exactly_zero(label, case):
    assert meta._gordan_exact_residual(linmem, case) == 0
    assert meta._tam_exact_residual(linmem, case) == 0


@pytest.mark.parametrize("label,case", meta.LEARNER_LADDER)
def test_learner_residuals_are_exactly_zero(label, case):
    assert meta._learners_exact_residual(linmem, case) == 0


def test_absolute_margin_gordan_breaks_the_scaling_law():
    # keys x 2^-120 on a separable instance: a b t* far below 1e-9
    case = meta._dyadic(1, 3, 3, 3, -120, 0)
    assert linmem.gordan_certificate(case[1], case[2]).separable
    wrong = _full_impl(gordan_certificate=meta._gordan_absolute)
    assert meta._gordan_exact_residual(wrong, case) > 0


def test_unnormalised_tam_lp_breaks_the_scaling_law():
    wrong = _full_impl(tam_feasible=meta._tam_unnormalised)
    assert sum(meta._tam_exact_residual(wrong, case) for _, case in meta.DYADIC_LADDER) > 0


def test_unnormalised_cross_entropy_breaks_the_scaling_law():
    wrong = _full_impl(cross_entropy_memory=meta._ce_unnormalised)
    assert sum(meta._learners_exact_residual(wrong, case) for _, case in meta.LEARNER_LADDER) > 0


def test_both_sides_of_the_alternative_are_searched():
    from hypothesis import given, settings

    seen = set()

    @settings(max_examples=60, database=None, deadline=None)
    @given(meta._certificate_cases())
    def run(case):
        seen.add(linmem.gordan_certificate(case[1], case[2]).separable)

    run()
    assert seen == {True, False}
