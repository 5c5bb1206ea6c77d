"""Assessing a given store (ours, beyond 000): ``linmem.assess`` against
direct sums in every number system it accepts (mpmath, float64; exact
rationals it refuses by design), and the noise-gain identity in sympy (the
cross term has mean zero, ``E eta^T W^T W eta = tau^2 tr(W^T W)``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem.assess import MODEL_LABEL
from theorems.authoring import kit
from theorems.evidence import precise, property, symbolic
from theorems.core.model import ClaimKind, EvidenceKind
from theorems.authoring.strategies import float_key_cases, keys_and_values
from theorems.authoring.templates import claim, wrong
from theorems.core.tolerance import least_squares_tolerance, scaled_residual

__all__ = ["CLAIMS"]


def _noise_identity(ctx):
    """A symbolic 2 x 3 store: the mean of a quadratic in eta needs only its mean (0) and covariance
    (tau^2 I), so Isserlis' rule (:func:`theorems.authoring.kit.gaussian_moment`) gives it for every such noise."""
    tau = sympy.Symbol("tau", positive=True)
    W = sympy.Matrix(2, 3, sympy.symbols("w:2:3", real=True))
    k, eta = sympy.Matrix(sympy.symbols("k:3", real=True)), sympy.Matrix(sympy.symbols("e:3", real=True))
    v = sympy.Matrix(sympy.symbols("v:2", real=True))
    r, r0 = W * (k + eta) - v, W * k - v
    return symbolic.check_scalar(ctx, [("E ||W(k + eta) - v||^2 - (||W k - v||^2 + tau^2 ||W||_F^2), p x d = 2 x 3",
                                        kit.gaussian_moment(r.dot(r), eta, tau**2) - r0.dot(r0)
                                        - tau**2 * sum(x**2 for x in W))])


def _gap(impl, W, K, V, *, least_squares: bool | None, distance: bool = False, to=lambda x: x):
    """The largest gap of ``assess(W, K, V)`` (inputs through ``to``) to the direct sums ||W k_j - v_j||^2
    and ||W||_F^2 (formed in W's number system, then ``to``), and its distance to V K^+ with ``distance``;
    inf where it misreads: W = V K^+ recognised or not against ``least_squares`` (None: not asked), or
    1 - h_j not reported beside the residuals as the labelled model."""
    a = impl.assess(*to((W, K, V)))
    misread = least_squares is not None and bool(a.is_least_squares) is not least_squares
    if misread or a.model != MODEL_LABEL or not np.array_equal(a.expected_error, 1 - a.leverage):
        return math.inf
    R = W @ K - V
    gaps = [max(np.abs(a.residuals - to(np.sum(R * R, axis=0)))), abs(a.noise_gain - to(np.sum(W * W)))]
    return max(gaps + [a.least_squares_distance] * distance)


def _precise(ctx):
    """Exact keys and values; W_ls = V K^+ exactly must be recognised, W_ls + a rational perturbation not."""
    rng, cases = ctx.rng("assess-perturbation"), []
    for label, (K, V) in keys_and_values().precise(ctx):
        W_ls = V @ linmem.pinv(K)
        E = kit.integer_array(rng, W_ls.shape, bound=2) / 7
        E[0, 0] = Fraction(1, 7)  # never the zero perturbation
        cases.append((label, (K, V, W_ls, W_ls + E)))

    def residual(case):  # V K^+ recognised (its distance falls with precision), the perturbed store refused
        K, V, W_ls, W_off = case
        svd = linmem.compact_svd(kit.to_mp(K))
        return (max(_gap(ctx.impl, W_ls, K, V, least_squares=True, distance=True, to=kit.to_mp),
                    _gap(ctx.impl, W_off, K, V, least_squares=False, to=kit.to_mp)),
                max(max(W.shape + K.shape) * (1 + float(np.sum(W * W)) + float(np.sum(V * V)) + float(np.sum(K * K)))
                    * svd.s[0] / svd.s[-1] for W in (W_ls, W_off)))

    return precise.check(ctx, cases, residual)


def _property(ctx):
    cases = st.tuples(float_key_cases(), st.sampled_from((0.0, 1e-3, 1.0)))  # (keys and values, shift of W)

    def measure(example):
        case, shift = example
        K, V = case.K, case.V
        W = V @ np.linalg.pinv(K) + shift  # LAPACK's V K^+ (within the documented tolerance) recognised;
        # W + 1 refused only beyond twice that tolerance (at cond(K) ~ 1e9 a unit shift is within it)
        refused = shift == 1.0 and shift * math.sqrt(W.size) > 2 * least_squares_tolerance(K, V)
        gap = _gap(ctx.impl, W, K, V, least_squares=True if shift == 0.0 else False if refused else None)
        scale = max(K.shape + V.shape) * (float(np.sum(W * W)) * float(np.sum(K * K)) + float(np.sum(V * V)) + 1)
        return scaled_residual(float(gap), scale=scale)

    return property.check(ctx, cases, measure, describe=lambda e: {**e[0].describe(), "shift": e[1]})


def _gain_spectral(W, K=None, V=None, **kw):
    """Wrong: the noise gain taken as the squared spectral norm ||W||_2^2."""
    a = linmem.assess(W, K, V, **kw)
    s = a.w_singular_values
    return replace(a, noise_gain=(s[0] * s[0] if len(s) else 0 * a.noise_gain))


CLAIMS = [
    claim(
        "assess.measured-residuals",
        title="The assessment measures ||W k_j - v_j||^2 and ||W||_F^2 and recognises W = V K^+",
        statement=r"\mathrm{assess}(W,K,V):\ r_j = \|W k_j - v_j\|^2,\ "
                  r"\mathbb{E}_\eta \|W(k_j+\eta) - v_j\|^2 = r_j + \tau^2 \|W\|_F^2,\ "
                  r"W = V K^+ \text{ recognised};\ 1 - h_j \text{ reported as the model}",
        kind=ClaimKind.IDENTITY,
        source="ours (000, \"What to assess in a learned store\")",
        assumptions=("any W (p x d), keys K (d x n) and values V (p x n); query noise zero-mean with "
                     "covariance tau^2 I",),
        checks={
            "noise-identity": (EvidenceKind.SYMBOLIC, _noise_identity, "sympy: the expected noisy-query error of a "
                               "symbolic 2 x 3 store is the residual plus tau^2 ||W||_F^2"),
            "ladder": (EvidenceKind.PRECISE, _precise, "mpmath ladder on exact keys (cond 1e20, rank-deficient, duplicated): residuals and "
                       "noise gain against exact rationals, V K^+ recognised (distance falls), a perturbed store not, "
                       "1 - h_j labelled as the model"),
            "float": (EvidenceKind.PROPERTY, _property, "float keys of every family: residuals and ||W||_F^2 against direct sums, LAPACK's "
                      "V K^+ recognised, W + 1 refused where that shift exceeds twice the documented tolerance, "
                      "1 - h_j labelled as the model"),
        },
        control=wrong("noise gain taken as the squared spectral norm ||W||_2^2 instead of ||W||_F^2",
                               assess=_gain_spectral),
    ),
]
