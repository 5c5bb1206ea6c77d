"""The residuals behind meta.top1-equivariant and meta.max-margin-scaling:
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
