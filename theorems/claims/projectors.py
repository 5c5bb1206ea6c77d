"""Projectors and leverage (000, App. C and D)."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import linmem
from linmem.precise import mp_array
from theorems.claims._cases import precise_key_cases, precise_values
from theorems.evidence import precise, property, symbolic
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.residuals import diff_norm, exact_sq
from theorems.strategies import KeyCase, exact_key_matrices, exact_value_matrices, float_key_cases
from theorems.tolerance import norm, scaled_residual

__all__ = ["CLAIMS"]


# --- proj.coefficient-projector --------------------------------------------


def _coefficient_projector_exact(ctx):
    @st.composite
    def inputs(draw):
        K = draw(exact_key_matrices())
        return K, draw(exact_value_matrices(K.shape[1]))

    def residual(case):
        K, V = case
        impl = ctx.impl
        P, _ = impl.projectors(K)
        W = impl.least_squares_store(K, V)
        return (
            exact_sq(P, P.T)
            + exact_sq(P @ P, P)
            + exact_sq(P, impl.pinv(K) @ K)
            + exact_sq(W @ K, V @ P)
        )

    return symbolic.check_exact(ctx, inputs(), residual, describe=lambda c: {"K": c[0], "V": c[1]})


def _coefficient_projector_terms(impl, K, V):
    """The four residuals of the claim and the reference ``Z Z^T``."""
    P, _ = impl.projectors(K)
    Z = impl.compact_svd(K).Z
    W = impl.least_squares_store(K, V)
    return [
        diff_norm(P, P.T),
        diff_norm(P @ P, P),
        diff_norm(P, impl.pinv(K) @ K),
        diff_norm(P, Z @ Z.T),
        diff_norm(W @ K, V @ P),
    ]


def _coefficient_projector_precise(ctx):
    cases = [(label, (K, precise_values(K, ctx))) for label, K in precise_key_cases(ctx)]

    def residual(case):
        K, V = (mp_array(x) for x in case)
        cond = linmem.condition_number(K)
        err = max(_coefficient_projector_terms(ctx.impl, K, V))
        return err, max(K.shape) * cond * (1 + norm(V))

    return precise.check(ctx, cases, residual)


def _coefficient_projector_property(ctx):
    def measure(case: KeyCase):
        K, V = case.K, case.V
        cond = float(linmem.condition_number(K))
        err = max(_coefficient_projector_terms(ctx.impl, K, V))
        return scaled_residual(err, scale=max(K.shape) * cond * (1 + norm(V)))

    return property.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


# --- lev.range --------------------------------------------------------------


def _leverage_terms(impl, K):
    """(identity residual, range violation) for h = diag(P) = ||Z^T e_j||^2 in [0, 1]."""
    h = impl.leverage_scores(K)
    P, _ = impl.projectors(K)
    Z = impl.compact_svd(K).Z if not _is_exact(K) else None
    ident = diff_norm(h, np.diagonal(P))
    if Z is not None:
        ident = max(ident, diff_norm(h, np.sum(Z * Z, axis=1)))
    violation = max([0] + [-x for x in h] + [x - 1 for x in h])
    return ident, violation


def _is_exact(K):
    return K.dtype == object and not isinstance(K.ravel()[0], mpmath.mpf)


def _leverage_exact(ctx):
    def residual(K):
        h = ctx.impl.leverage_scores(K)
        P, _ = ctx.impl.projectors(K)
        out_of_range = sum(1 for x in h if not 0 <= x <= 1)
        return exact_sq(h, np.diagonal(P)) + out_of_range

    return symbolic.check_exact(ctx, exact_key_matrices(), residual, describe=lambda K: {"K": K})


def _leverage_precise(ctx):
    # Boundary cases: h = 1 exactly (a key orthogonal to the rest), h tiny
    # (a key 1e-30 times another), and the ladder's ill-conditioned keys.
    from fractions import Fraction

    tiny = np.array([[Fraction(1), Fraction(1, 10**30), Fraction(0)],
                     [Fraction(0), Fraction(0), Fraction(1)]], dtype=object)
    cases = [("h = 1 and h ~ 1e-60", tiny)] + precise_key_cases(ctx)

    def residual(K):
        K = mp_array(K)
        ident, violation = _leverage_terms(ctx.impl, K)
        return max(ident, violation), max(K.shape) * linmem.condition_number(K)

    return precise.check(ctx, cases, residual)


def _leverage_property(ctx):
    def measure(case: KeyCase):
        ident, violation = _leverage_terms(ctx.impl, case.K)
        cond = float(linmem.condition_number(case.K))
        return scaled_residual(max(ident, violation), scale=max(case.K.shape) * cond)

    return property.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _swap_projectors(K):
    P, Q = linmem.projectors(K)
    return Q, P


def _column_energy(K):
    return np.sum(K * K, axis=0)


CLAIMS = [
    Claim(
        id="proj.coefficient-projector",
        title="P = K^+ K is the orthogonal projector onto the row space of K",
        statement=r"P = K^{+}K = Z_K Z_K^{\top},\quad P^{\top} = P,\quad P^2 = P,\quad W_{\mathrm{LS}}K = VP",
        kind=ClaimKind.IDENTITY,
        source="000, App. C",
        assumptions=("K any real d x M matrix (any rank)", "V any real p x M matrix"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _coefficient_projector_exact,
                  "exact rationals: symmetric, idempotent, equal to K^+ K, W_LS K = V P"),
            Check("ladder", EvidenceKind.PRECISE, _coefficient_projector_precise,
                  "mpmath ladder, condition up to 1e20 and rank-deficient"),
            Check("float", EvidenceKind.PROPERTY, _coefficient_projector_property,
                  "float64 over every key family"),
        ),
        negative_control=NegativeControl(
            "P = K K^+ in place of K^+ K (the input projector Q)",
            {"projectors": _swap_projectors},
        ),
    ),
    Claim(
        id="lev.range",
        title="Leverage scores are diagonal entries of P and lie in [0, 1]",
        statement=r"h_j = P_{jj} = \|Z_K^{\top} e_j\|^2,\qquad 0 \le h_j \le 1",
        kind=ClaimKind.INEQUALITY,
        source="000, App. D",
        assumptions=("K any real d x M matrix",),
        depends_on=("proj.coefficient-projector",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _leverage_exact,
                  "exact rationals: h = diag(P) and 0 <= h <= 1"),
            Check("ladder", EvidenceKind.PRECISE, _leverage_precise,
                  "mpmath at the boundary: h = 1, h ~ 1e-60, condition 1e20"),
            Check("float", EvidenceKind.PROPERTY, _leverage_property,
                  "float64: identity residual and range violation, steered to the worst case"),
        ),
        negative_control=NegativeControl(
            "h_j = ||k_j||^2 (column energy) in place of P_jj", {"leverage_scores": _column_energy}
        ),
    ),
]
