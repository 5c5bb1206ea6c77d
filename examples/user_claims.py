"""Checking one's own derivation with theorems: a user claim module.

Run it with the built-in catalogue or alone:

    theorems verify --claims examples/user_claims.py --only 'user.*'

Two statements about the outer-product store with spherical keys and
independent unit values, written exactly as a user would: a true one,
E ||W_OP k_j - v_j||^2 = (M - 1)/d, and a tempting wrong one, M/d (it forgets
that key j does not interfere with itself). The wrong one comes out FAILED
with a minimal counterexample and a replay command; the true one VERIFIED.

Both use the exact-enumeration and Monte Carlo helpers of
``theorems.evidence``. The exact part enumerates keys drawn uniformly from
the signed coordinate vectors {±e_1, ..., ±e_d}: their first two moments
(E k = 0, E k k^T = I/d, so E (k_i^T k_j)^2 = 1/d for independent keys) are
those of uniform spherical keys, and the claim depends on nothing else.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

from linmem import ensembles
from theorems import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.evidence import expectation, montecarlo

__all__ = ["CLAIMS"]


def _signed_axes(d: int) -> list[np.ndarray]:
    axes = []
    for i in range(d):
        for sign in (1, -1):
            e = np.array([Fraction(0)] * d, dtype=object)
            e[i] = Fraction(sign)
            axes.append(e)
    return axes


@st.composite
def _sizes(draw):
    return {"d": draw(st.integers(1, 2)), "M": draw(st.integers(1, 3)), "p": draw(st.integers(1, 2)),
            "seed": draw(st.integers(0, 2**16))}


def _exact_op_error(impl, d: int, M: int, p: int, seed: int) -> Fraction:
    """E ||W_OP k_1 - v_1||^2 over keys uniform on the signed axes and values
    v_i = s_i w_i (fair signs times fixed exactly-unit rational w_i)."""
    W0 = ensembles.rational_unit_vectors(p, M, rng=np.random.default_rng(seed), scale=3)
    total, count = Fraction(0), 0
    for keys in itertools.product(_signed_axes(d), repeat=M):
        K = np.stack(keys, axis=1)

        def err(s):
            V = W0 * s
            r = impl.outer_product_store(K, V) @ K[:, 0] - V[:, 0]
            return sum(x * x for x in r)

        total += expectation.sign_average(err, M)
        count += 1
    return total / count


def _op_error_sampler(impl, d: int, M: int, p: int):
    def sample(rng, size):
        out = np.empty(size)
        for b in range(size):
            K = ensembles.spherical_vectors(d, M, rng=rng)
            V = ensembles.spherical_vectors(p, M, rng=rng)
            r = impl.outer_product_store(K, V) @ K[:, 0] - V[:, 0]
            out[b] = r @ r
        return out

    return sample


def _make_claim(cid: str, title: str, formula, latex: str) -> Claim:
    def exact(ctx):
        return expectation.check(
            ctx, _sizes(), lambda c: _exact_op_error(ctx.impl, **c) - formula(c["d"], c["M"]),
        )

    def monte_carlo(ctx):
        d, M, p = 4, 6, 3
        return montecarlo.check(ctx, _op_error_sampler(ctx.impl, d, M, p), formula(d, M),
                                n=2000, label=f"spherical keys and values, d={d}, M={M}")

    return Claim(
        id=cid,
        title=title,
        statement=latex,
        kind=ClaimKind.EXPECTATION,
        source="user derivation",
        assumptions=("keys independent and uniform on the unit sphere",
                     "values independent, zero-mean, unit-norm, independent of the keys"),
        checks=(
            Check("enumeration", EvidenceKind.EXPECTATION, exact, "exact, keys on the signed axes"),
            Check("montecarlo", EvidenceKind.MONTECARLO, monte_carlo, "spherical keys and values"),
        ),
        negative_control=NegativeControl("outer-product store doubled",
                                          {"outer_product_store": lambda K, V: 2 * (V @ K.T)}),
    )


CLAIMS = [
    _make_claim("user.op-error", "Outer-product recall error is (M-1)/d for spherical keys",
                lambda d, M: Fraction(M - 1, d),
                r"\mathbb{E}\|W_{\mathrm{OP}}k_j - v_j\|^2 = \frac{M-1}{d}"),
    _make_claim("user.op-error-wrong", "Outer-product recall error is M/d (a wrong derivation)",
                lambda d, M: Fraction(M, d),
                r"\mathbb{E}\|W_{\mathrm{OP}}k_j - v_j\|^2 = \frac{M}{d}"),
]
