"""The LP functions of linmem.learn and linmem.optimality at every finite
positive scale of keys and targets (issue 24, item 1).

Scaling keys by ``a > 0`` and targets by ``b > 0`` scales every comparison
``<W, A_ij>`` and score by ``a b``: the separability and TAM feasibility
decisions and the Gordan side stay, the box-constrained max-margin ``t*``
becomes ``a b t*`` (same ``W``), a TAM memory with margins >= 1 becomes
``W / (a b)``, and the max-margin optimality defect (a ratio) stays.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import linmem
from linmem import gaussian_pairs, learn, optimality

FACTORS = (1e-300, 1e-150, 1e-9, 1.0, 1e9, 1e150, 1e300)
SIDES = ("keys", "targets")
#: relative agreement of a margin with its scale-1 value times the factor (the
#: LP is solved on the same power-of-two normalised instance up to rounding)
REL = 1e-6


def _scaled(V, U, side, f):
    return (V * f, U) if side == "keys" else (V, U * f)


@pytest.fixture(scope="module")
def separable():
    V, U = gaussian_pairs(4, 6, rng=np.random.default_rng(1))
    assert learn.max_margin_memory(V, U).margin > 0.1
    return V, U


@pytest.fixture(scope="module")
def inseparable():
    V, U = gaussian_pairs(2, 10, rng=np.random.default_rng(2))
    assert not learn.gordan_certificate(V, U).separable
    return V, U


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("f", FACTORS)
@pytest.mark.parametrize("method", ["dense", "cutting-plane"])
def test_max_margin_scales_with_the_product_of_the_factors(separable, method, f, side):
    V, U = separable
    base = learn.max_margin_memory(V, U, method=method)
    res = learn.max_margin_memory(*_scaled(V, U, side, f), method=method)
    assert res.margin == pytest.approx(f * base.margin, rel=REL)
    np.testing.assert_allclose(res.W, base.W, atol=1e-6)


@pytest.mark.parametrize("f", FACTORS)
def test_max_margin_of_an_inseparable_instance_stays_zero(inseparable, f):
    V, U = inseparable
    res = learn.max_margin_memory(V * f, U)
    assert abs(res.margin) <= f * learn.LP_FEASIBILITY_TOL


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("f", FACTORS)
def test_max_margin_optimality_defect_is_scale_free(separable, f, side):
    V, U = separable
    A, B = _scaled(V, U, side, f)
    res = learn.max_margin_memory(A, B, method="dense")
    sol = dict(W=res.W, margin=res.margin, multipliers=res.multipliers)
    assert optimality.max_margin_kkt_defect(A, B, **sol) <= 1
    # CERTIFICATE_RESIDUAL_FACTOR x LP_FEASIBILITY_TOL x (2**e + max |A|) with 2**e within a
    # factor 2 of max|keys| max|targets|: it scales with f up to that factor
    ratio = optimality.max_margin_allowance(A, B) / (f * optimality.max_margin_allowance(V, U))
    assert 0.5 <= ratio <= 2


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("f", FACTORS)
def test_gordan_side_is_scale_free(separable, inseparable, f, side):
    for (V, U), want in ((separable, True), (inseparable, False)):
        cert = learn.gordan_certificate(*_scaled(V, U, side, f))
        assert cert.separable is want
        assert cert.verify()


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("f", FACTORS)
def test_tam_feasibility_is_scale_free(separable, inseparable, f, side):
    V, U = separable
    base = learn.tam_feasible(V, U, k=2)
    out = learn.tam_feasible(*_scaled(V, U, side, f), k=2)
    assert base.feasible and out.feasible
    assert out.min_margin >= 1 - REL
    assert np.min(linmem.tam_margins(out.W, *_scaled(V, U, side, f), k=2)) >= 1 - REL
    V, U = inseparable
    assert not learn.tam_feasible(*_scaled(V, U, side, f), k=1).feasible


def test_a_margin_beyond_float_range_is_a_value_error(separable):
    V, U = separable
    with pytest.raises(ValueError, match="keys and targets.*range"):
        learn.max_margin_memory(V * 1e300, U * 1e300)
    with pytest.raises(ValueError, match="keys and targets.*range"):
        learn.max_margin_memory(V * 1e-300, U * 1e-300)


def test_a_tam_memory_beyond_float_range_is_a_value_error(separable):
    V, U = separable
    with pytest.raises(ValueError, match="keys and targets.*range"):
        learn.tam_feasible(V * 1e-300, U * 1e-300, k=2)


def test_power_of_two_scalings_give_the_same_lp_bit_for_bit(separable):
    V, U = separable
    base = learn.max_margin_memory(V, U, method="dense")
    res = learn.max_margin_memory(V * 2.0**-700, U * 2.0**300, method="dense")
    assert res.margin == math.ldexp(base.margin, -400)
    np.testing.assert_array_equal(res.W, base.W)
    tam, tam_scaled = learn.tam_feasible(V, U, k=2), learn.tam_feasible(V * 2.0**-700, U * 2.0**300, k=2)
    np.testing.assert_array_equal(tam_scaled.W, np.ldexp(tam.W, 400))
    assert tam_scaled.min_margin == tam.min_margin


# -- the learners: fitted on the power-of-two normalised instance ------------

#: Factor pairs (keys, targets) of the learner relations: the ridge scales as
#: (a b)^2 and the sparse repair's gamma as (a b)^2, so a b stays within 1e+-120.
LEARNER_FACTORS = ((1e-60, 1.0), (1.0, 1e60), (1e-9, 1e-9), (1e9, 1e-40), (1e-150, 1e150), (1e40, 1e20))
#: Agreement of two fits of the same strictly convex problem at different
#: scales: ||W - W*||_F <= ||grad||_F / (2 ridge), the fits stopping at a
#: projected gradient of FIT_GRADIENT_TOL on the normalised instance.
FIT_REL = 1e-3


def _learners(V, U, a, b):
    ab = a * b
    return {
        "cross_entropy_memory": (linmem.cross_entropy_memory(a * V, b * U, ridge=1e-2 * ab * ab).W * ab,
                                 linmem.cross_entropy_memory(V, U, ridge=1e-2).W),
        "tam_erm": (linmem.tam_erm(a * V, b * U, k=2, beta=5.0, ridge=1e-2 * ab * ab).W * ab,
                    linmem.tam_erm(V, U, k=2, beta=5.0, ridge=1e-2).W),
        "sparse_repair_memory": (linmem.sparse_repair_memory(a * V, b * U, gamma=0.1 * ab * ab,
                                                             small_block_width=2).W / ab,
                                 linmem.sparse_repair_memory(V, U, gamma=0.1, small_block_width=2).W),
    }


@pytest.fixture(scope="module")
def learner_pairs():
    return gaussian_pairs(5, 12, rng=np.random.default_rng(7))


@pytest.mark.parametrize(("a", "b"), LEARNER_FACTORS)
def test_learned_memories_scale_as_one_over_the_factors(learner_pairs, a, b):
    for name, (got, want) in _learners(*learner_pairs, a, b).items():
        tol = 1e-12 if name == "sparse_repair_memory" else FIT_REL
        assert np.linalg.norm(got - want) <= tol * np.linalg.norm(want), (name, a, b)


def test_learners_at_power_of_two_scales_are_bit_for_bit(learner_pairs):
    V, U = learner_pairs
    a, b = 2.0**-300, 2.0**100
    for name, (got, want) in _learners(V, U, a, b).items():
        np.testing.assert_array_equal(got, want, err_msg=name)
    fit = linmem.cross_entropy_memory(a * V, b * U, ridge=1e-2 * (a * b) ** 2)
    base = linmem.cross_entropy_memory(V, U, ridge=1e-2)
    assert (fit.loss, fit.data_loss, fit.n_iter) == (base.loss, base.data_loss, base.n_iter)
    rep = linmem.sparse_repair_memory(a * V, b * U, gamma=0.1 * (a * b) ** 2, small_block_width=2)
    ref = linmem.sparse_repair_memory(V, U, gamma=0.1, small_block_width=2)
    np.testing.assert_array_equal(rep.deficient, ref.deficient)
    np.testing.assert_array_equal(rep.weights, ref.weights)
    np.testing.assert_array_equal(rep.cmm_margins, ref.cmm_margins * (a * b) ** 2)


def test_a_ridge_beyond_float_range_at_the_inputs_scale_is_a_value_error(learner_pairs):
    V, U = learner_pairs
    # keys x 1e-200: unit-scale data would need a ridge of 1e-2 x 1e400
    with pytest.raises(ValueError, match="ridge.*range"):
        linmem.cross_entropy_memory(V * 1e-200, U, ridge=1e-2)
    with pytest.raises(ValueError, match="ridge.*range"):
        linmem.tam_erm(V * 1e200, U, k=2, beta=1.0, ridge=1e-300)
