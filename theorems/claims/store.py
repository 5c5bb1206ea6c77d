"""Constructing the store: outer-product and least-squares (000, "Two ways to
construct the memory matrix", App. B and C)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem.precise import mp_array
from theorems.claims._cases import precise_key_cases, precise_values
from theorems.evidence import counterexample, precise, property, symbolic
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.residuals import exact_sq
from theorems.strategies import (
    KeyCase,
    exact_key_matrices,
    exact_unit_key_matrices,
    exact_value_matrices,
    float_key_cases,
)
from theorems.tolerance import scaled_residual

__all__ = ["CLAIMS"]


def _sq(A):
    return np.sum(A * A)


# --- ls.pseudoinverse-minimizer -------------------------------------------------


def _minimizer_exact(ctx):
    """Exact Pythagorean splits that prove both halves on each instance:
    ||WK - V||^2 = ||W_LS K - V||^2 + ||(W - W_LS) K||^2 for every W, and
    ||W_LS + B(I - Q)||^2 = ||W_LS||^2 + ||B(I - Q)||^2 with the same fit."""

    @st.composite
    def inputs(draw):
        K = draw(exact_key_matrices())
        V = draw(exact_value_matrices(K.shape[1]))
        p, d = V.shape[0], K.shape[0]
        entries = draw(st.lists(st.integers(-3, 3), min_size=p * d, max_size=p * d))
        B = np.array([Fraction(e) for e in entries], dtype=object).reshape(p, d)
        return K, V, B

    def residual(case):
        K, V, B = case
        impl = ctx.impl
        W_ls = impl.least_squares_store(K, V)
        _, Q = linmem.projectors(K)
        other = W_ls + B @ (np.eye(K.shape[0], dtype=int) - Q)
        W = W_ls + B
        return (
            (_sq(W @ K - V) - _sq(W_ls @ K - V) - _sq((W - W_ls) @ K)) ** 2
            + exact_sq(other @ K, W_ls @ K)
            + (_sq(other) - _sq(W_ls) - _sq(other - W_ls)) ** 2
        )

    return symbolic.check_exact(ctx, inputs(), residual,
                                describe=lambda c: {"K": c[0], "V": c[1], "B": c[2]})


def _minimizer_violations(impl, K, V, B, t):
    """(fit violation, norm violation): how much W_LS + tB fits better
    than W_LS, and how much a co-minimiser W_LS + tB(I - Q) is smaller."""
    W_ls = impl.least_squares_store(K, V)
    _, Q = linmem.projectors(K)
    I = np.eye(K.shape[0]) if K.dtype != object else _identity_like(K)
    fit = _sq(W_ls @ K - V) - _sq((W_ls + t * B) @ K - V)
    smaller = _sq(W_ls) - _sq(W_ls + t * B @ (I - Q))
    return fit, smaller


def _identity_like(K):
    one = K.ravel()[0] * 0 + 1
    I = np.full((K.shape[0], K.shape[0]), one * 0, dtype=object)
    for i in range(K.shape[0]):
        I[i, i] = one
    return I


def _minimizer_precise(ctx):
    rng = ctx.rng("minimizer-precise")
    cases = []
    for label, K in precise_key_cases(ctx):
        V = precise_values(K, ctx)
        B = np.vectorize(Fraction, otypes=[object])(rng.integers(-3, 4, size=(V.shape[0], K.shape[0])))
        for t in (Fraction(1), Fraction(1, 10**8)):
            cases.append((f"{label}, step {t}", (K, V, B, t)))

    def residual(case):
        K, V, B = (mp_array(x) for x in case[:3])
        t = mp_array(np.array([case[3]], dtype=object))[0]
        fit, smaller = _minimizer_violations(ctx.impl, K, V, B, t)
        cond = linmem.condition_number(K)
        scale = max(K.shape) * cond * (1 + _sq(V)) * (1 + _sq(B))
        return max(0, fit, smaller), scale

    return precise.check(ctx, cases, residual, falls=False)


def _minimizer_property(ctx):
    @st.composite
    def cases(draw):
        case = draw(float_key_cases())
        t = draw(st.sampled_from((1.0, 1e-3, 1e-6)))
        B = np.random.default_rng(case.seed + 1).standard_normal((case.p, case.d))
        return case, B, t

    def measure(c):
        case, B, t = c
        K, V = case.K, case.V
        fit, smaller = _minimizer_violations(ctx.impl, K, V, B, t)
        W_ref = np.linalg.lstsq(K.T, V.T, rcond=None)[0].T  # LAPACK's minimum-norm solution
        W_ls = ctx.impl.least_squares_store(K, V)
        vs_ref = max(_sq(W_ls @ K - V) - _sq(W_ref @ K - V), _sq(W_ls) - _sq(W_ref))
        cond = float(linmem.condition_number(K))
        scale = max(K.shape) * cond * (1 + _sq(V)) * (1 + _sq(B))
        return scaled_residual(max(0.0, fit, smaller, vs_ref), scale=scale)

    return property.check(ctx, cases(), measure,
                          describe=lambda c: {**c[0].describe(), "step": c[2]})


# --- op.not-least-squares ------------------------------------------------------------


@st.composite
def _unit_keys_and_values(draw):
    K = draw(exact_unit_key_matrices(max_dim=3, max_count=4))
    V = draw(exact_value_matrices(K.shape[1], max_dim=2))
    return K, V


def _op_gap(impl, K, V):
    """||W_OP K - V||^2 - ||W_LS K - V||^2, exactly."""
    return _sq(impl.outer_product_store(K, V) @ K - V) - _sq(impl.least_squares_store(K, V) @ K - V)


def _not_ls_witness(ctx):
    def find(ctx):
        return counterexample.search(ctx, _unit_keys_and_values(), lambda c: _op_gap(ctx.impl, *c) > 0)

    def verify(w):
        K, V = w
        unit = all(sum(x * x for x in K[:, j]) == 1 for j in range(K.shape[1]))
        gap = _op_gap(ctx.impl, K, V)
        return unit and gap > 0, gap

    return counterexample.check(ctx, find, verify, describe=lambda w: {"K": w[0], "V": w[1]},
                                how="found by a Hypothesis search over exactly-unit rational keys, shrunk")


def _op_as_ls(K, V):
    return linmem.least_squares_store(K, V)


def _ls_as_op(K, V):
    return linmem.outer_product_store(K, V)


CLAIMS = [
    Claim(
        id="ls.pseudoinverse-minimizer",
        title="V K^+ minimises the recall error, with the smallest norm among minimisers",
        statement=(r"W_{\mathrm{LS}} = VK^{+} \in \arg\min_W \|WK - V\|_F,\quad "
                   r"\|W_{\mathrm{LS}}\|_F \le \|W\|_F \text{ for every minimiser } W"),
        kind=ClaimKind.INEQUALITY,
        source="000, App. C",
        assumptions=("K any real d x M matrix", "V any real p x M matrix"),
        depends_on=("proj.coefficient-projector",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _minimizer_exact,
                  "exact Pythagorean splits of the fit and of the norm"),
            Check("ladder", EvidenceKind.PRECISE, _minimizer_precise,
                  "mpmath: no perturbation improves the fit, no co-minimiser is smaller (steps 1 and 1e-8)"),
            Check("float", EvidenceKind.PROPERTY, _minimizer_property,
                  "float64 against perturbations and against LAPACK's lstsq"),
        ),
        negative_control=NegativeControl("least-squares store built as V K^T", {"least_squares_store": _ls_as_op}),
    ),
    Claim(
        id="op.not-least-squares",
        title="The outer-product store does not minimise the total recall error in general",
        statement=r"\exists K, V:\ \|W_{\mathrm{OP}}K - V\|_F > \|W_{\mathrm{LS}}K - V\|_F",
        kind=ClaimKind.COUNTEREXAMPLE,
        source="000, 'Two ways to construct the memory matrix'",
        assumptions=("unit keys",),
        depends_on=("ls.pseudoinverse-minimizer",),
        checks=(
            Check("witness", EvidenceKind.COUNTEREXAMPLE, _not_ls_witness,
                  "minimal witness found by search, gap verified in exact arithmetic"),
        ),
        negative_control=NegativeControl("outer-product store built as V K^+",
                                          {"outer_product_store": _op_as_ls}),
    ),
]
