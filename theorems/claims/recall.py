"""Recall strength of the least-squares store (000, "Measure the strength of
recall", App. D) and the duplicated-keys example (000, App. F)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from linmem.precise import mp_array
from theorems.evidence import expectation, montecarlo, precise, property, symbolic
from theorems.evidence.expectation import sign_average
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.residuals import diff_norm, exact_sq
from theorems.strategies import exact_key_matrices
from theorems.tolerance import scaled_residual

__all__ = ["CLAIMS", "sign_value_inputs", "spherical_value_sampler"]

VALUE_ASSUMPTIONS = (
    "values independent of each other and of K, zero-mean, unit-norm (so E[V^T V] = I_M)",
    "K fixed (expectation over the values only)",
)


@st.composite
def sign_value_inputs(draw, *, max_count: int = 5):
    """(K, W0): exact keys and fixed exactly-unit rational value directions;
    the values are ``v_i = s_i w_i`` with independent fair signs ``s_i``."""
    K = draw(exact_key_matrices(max_count=max_count))
    p = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    W0 = ensembles.rational_unit_vectors(p, K.shape[1], rng=np.random.default_rng(seed), scale=3)
    return K, W0


def _sq_cols(R):
    return np.sum(R * R, axis=0)


def _describe_kw(case):
    return {"K": case[0], "W0": case[1]}


def spherical_value_sampler(impl, keys: list[np.ndarray], p: int, quantity):
    """Monte Carlo sampler over spherical values for fixed keys.

    ``W_LS(V) = V K^+`` is linear in V, so the store of each sample is
    ``V @ G`` with ``G = impl.least_squares_store(K, I_M)``; ``quantity(V, G, K)``
    maps a batch ``V`` (size x p x M) to per-sample figures (size x q)."""
    Gs = [impl.least_squares_store(K, np.eye(K.shape[1])) for K in keys]

    def sample(rng, size):
        out = []
        for K, G in zip(keys, Gs):
            V = rng.standard_normal((size, p, K.shape[1]))
            V /= np.linalg.norm(V, axis=1, keepdims=True)
            out.append(quantity(V, G, K))
        return np.concatenate(out, axis=1)

    return sample


def _mc_keys(ctx):
    """Fixed float keys for the Monte Carlo checks: M > d spherical, M < d,
    rank-deficient and duplicated."""
    rng = ctx.rng("mc-keys")
    return [
        ensembles.spherical_vectors(4, 7, rng=rng),
        ensembles.spherical_vectors(6, 3, rng=rng),
        ensembles.controlled_spectrum(5, 6, cond=10.0, rank=3, rng=rng),
        ensembles.duplicated_keys(3, 5, n_distinct=2, rng=rng),
    ]


# --- recall.error -------------------------------------------------------------


def _error_symbolic(ctx):
    h = sympy.Symbol("h", positive=True)
    impl = ctx.impl
    return symbolic.check_scalar(ctx, [
        ("attenuation^2 + cross-talk power = 1 - h",
         (h - 1) ** 2 + impl.crosstalk_power(h) - impl.expected_error(h)),
    ])


def _error_exact(ctx):
    def residual(case):
        K, W0 = case
        impl = ctx.impl
        E = sign_average(lambda s: _sq_cols(impl.least_squares_store(K, W0 * s) @ K - W0 * s), K.shape[1])
        return exact_sq(E, impl.expected_error(impl.leverage_scores(K)))

    return expectation.check(ctx, sign_value_inputs(), residual, describe=_describe_kw)


def _error_montecarlo(ctx):
    impl = ctx.impl
    keys = _mc_keys(ctx)

    def per_key_error(V, G, K):
        R = V @ (G @ K) - V
        return np.sum(R * R, axis=1)

    claimed = np.concatenate([impl.expected_error(impl.leverage_scores(K)) for K in keys])
    return montecarlo.check(ctx, spherical_value_sampler(impl, keys, 3, per_key_error), claimed,
                            label="per-key squared error, spherical values in R^3")


# --- recall.mean-error -----------------------------------------------------------


def _mean_error_symbolic(ctx):
    M = 4
    hs = sympy.symbols("h1:4", positive=True)
    r = sympy.Symbol("r", positive=True)
    h_all = list(hs) + [r - sum(hs)]  # the trace identity: sum h_j = r_K
    expr = sum(ctx.impl.expected_error(h) for h in h_all) / M - (1 - r / M)
    return symbolic.check_scalar(ctx, [("mean of 1 - h_j with sum h_j = r is 1 - r/M", expr)])


def _mean_error_exact(ctx):
    def residual(case):
        K, W0 = case
        impl = ctx.impl
        M = K.shape[1]
        E = sign_average(
            lambda s: Fraction(1, M) * np.sum(_sq_cols(impl.least_squares_store(K, W0 * s) @ K - W0 * s)), M
        )
        rank = sympy.Matrix(K.tolist()).rank()
        return exact_sq(E, impl.mean_expected_error(K)) + exact_sq(E, 1 - Fraction(rank, M))

    return expectation.check(ctx, sign_value_inputs(), residual, describe=_describe_kw)


def _mean_error_montecarlo(ctx):
    impl = ctx.impl
    keys = _mc_keys(ctx)

    def mean_error(V, G, K):
        R = V @ (G @ K) - V
        return (np.sum(R * R, axis=(1, 2)) / K.shape[1])[:, None]

    claimed = [impl.mean_expected_error(K) for K in keys]
    return montecarlo.check(ctx, spherical_value_sampler(impl, keys, 3, mean_error), claimed,
                            label="(1/M) ||W_LS K - V||_F^2, spherical values in R^3")


def _mean_error_over_d(K):
    r = linmem.numerical_rank(K)
    d = K.shape[0]
    return 1 - (Fraction(r, d) if K.dtype == object else r / d)


# --- cex.duplicated-keys --------------------------------------------------------------

_THIRD = Fraction(1, 3)
_DUP_P = np.array(
    [[_THIRD] * 3 + [0]] * 3 + [[0, 0, 0, 1]], dtype=object
)


def _duplicated_terms(impl, K, V, e1, e2, conv):
    """Residuals of every figure the example states, for the keys embedded
    with orthonormal e1, e2 and arbitrary values V (p x 4); ``conv`` maps an
    exact array into the number system in use (float or mpmath)."""
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    W = impl.least_squares_store(K, V)
    t = Fraction(1, 3)

    def exact(xs):
        return conv(np.array(xs, dtype=object))

    return [
        diff_norm(P, conv(_DUP_P)),
        diff_norm(h, exact([t, t, t, 1])),
        diff_norm(np.array([impl.snr(x) for x in h[:3]]), exact([Fraction(1, 2)] * 3)),
        diff_norm(h[:3] * h[:3], exact([Fraction(1, 9)] * 3)),
        diff_norm(np.array([impl.crosstalk_power(x) for x in h[:3]]), exact([Fraction(2, 9)] * 3)),
        diff_norm(impl.expected_error(h), exact([2 * t, 2 * t, 2 * t, 0])),
        diff_norm(np.array([impl.mean_expected_error(K)]), exact([Fraction(1, 2)])),
        diff_norm(W @ e1, (V[:, 0] + V[:, 1] + V[:, 2]) / 3),
        diff_norm(W @ e2, V[:, 3]),
    ]


def _dup_keys(e1, e2):
    return np.stack([e1, e1, e1, e2], axis=1)


def _duplicated_exact(ctx):
    e1 = np.array([Fraction(1), Fraction(0)], dtype=object)
    e2 = np.array([Fraction(0), Fraction(1)], dtype=object)
    K = _dup_keys(e1, e2)

    @st.composite
    def values(draw):
        p = draw(st.integers(1, 3))
        return np.array([Fraction(x) for x in draw(st.lists(st.integers(-5, 5), min_size=4 * p, max_size=4 * p))],
                        dtype=object).reshape(p, 4)

    def residual(V):
        P, _ = ctx.impl.projectors(K)
        h = ctx.impl.leverage_scores(K)
        W = ctx.impl.least_squares_store(K, V)
        third = Fraction(1, 3)
        return (
            exact_sq(P, _DUP_P)
            + exact_sq(h, [third, third, third, 1])
            + exact_sq([ctx.impl.snr(x) for x in h[:3]], [Fraction(1, 2)] * 3)
            + exact_sq(h[:3] * h[:3], [Fraction(1, 9)] * 3)
            + exact_sq([ctx.impl.crosstalk_power(x) for x in h[:3]], [Fraction(2, 9)] * 3)
            + exact_sq(ctx.impl.expected_error(h), [2 * third] * 3 + [0])
            + exact_sq([ctx.impl.mean_expected_error(K)], [Fraction(1, 2)])
            + exact_sq(W @ e1, (V[:, 0] + V[:, 1] + V[:, 2]) / 3)
            + exact_sq(W @ e2, V[:, 3])
        )

    return symbolic.check_exact(ctx, values(), residual, describe=lambda V: {"V": V})


def _duplicated_precise(ctx):
    rng = ctx.rng("dup-precise")
    cases = []
    for i in range(max(2, ctx.profile.precise_cases)):
        d = 2 + i % 3
        Qm = ensembles.rational_orthogonal(d, rng=rng)
        V = np.vectorize(Fraction, otypes=[object])(rng.integers(-3, 4, size=(2, 4)))
        cases.append((f"e1, e2 rotated exactly in R^{d}", (Qm[:, 0], Qm[:, 1], V)))

    def residual(case):
        e1, e2, V = (mp_array(x) for x in case)
        K = _dup_keys(e1, e2)
        return max(_duplicated_terms(ctx.impl, K, V, e1, e2, mp_array)), 4 * (1 + np.sum(V * V))

    return precise.check(ctx, cases, residual)


def _duplicated_property(ctx):
    @st.composite
    def cases(draw):
        d = draw(st.integers(2, 8))
        p = draw(st.integers(1, 5))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        Qm, _ = np.linalg.qr(rng.standard_normal((d, 2)))
        return {"d": d, "p": p, "seed": seed}, Qm[:, 0], Qm[:, 1], rng.standard_normal((p, 4))

    def measure(case):
        _, e1, e2, V = case
        K = _dup_keys(e1, e2)
        err = max(_duplicated_terms(ctx.impl, K, V, e1, e2, linmem.to_float))
        return scaled_residual(err, scale=4 * (1 + float(np.linalg.norm(V))))

    return property.check(ctx, cases(), measure, describe=lambda c: c[0])


def _snr_plus(h):
    return h / (1 + h)


def _error_squared(h):
    return 1 - h * h


CLAIMS = [
    Claim(
        id="recall.error",
        title="Expected squared error of least-squares recall at key j is 1 - h_j",
        statement=r"\mathbb{E}_V \|W_{\mathrm{LS}} k_j - v_j\|^2 = (1-h_j)^2 + (h_j - h_j^2) = 1 - h_j",
        kind=ClaimKind.EXPECTATION,
        source="000, App. D",
        assumptions=VALUE_ASSUMPTIONS,
        depends_on=("proj.coefficient-projector", "lev.range"),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _error_symbolic, "sympy: (h-1)^2 + (h-h^2) = 1-h"),
            Check("enumeration", EvidenceKind.EXPECTATION, _error_exact,
                  "exact expectation over random signs times fixed unit rational values"),
            Check("montecarlo", EvidenceKind.MONTECARLO, _error_montecarlo,
                  "spherical values; M > d, M < d, rank-deficient and duplicated keys"),
        ),
        negative_control=NegativeControl("error 1 - h^2 in place of 1 - h", {"expected_error": _error_squared}),
    ),
    Claim(
        id="recall.mean-error",
        title="Average expected error over the stored pairs is 1 - r_K/M",
        statement=r"\frac{1}{M}\mathbb{E}_V \|W_{\mathrm{LS}} K - V\|_F^2 = 1 - \frac{r_K}{M}",
        kind=ClaimKind.EXPECTATION,
        source="000, boxed (Measure the strength of recall); App. D",
        assumptions=VALUE_ASSUMPTIONS,
        depends_on=("recall.error",),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _mean_error_symbolic,
                  "sympy: the mean of 1 - h_j under sum h_j = r is 1 - r/M"),
            Check("enumeration", EvidenceKind.EXPECTATION, _mean_error_exact,
                  "exact expectation over random signs; rank from sympy"),
            Check("montecarlo", EvidenceKind.MONTECARLO, _mean_error_montecarlo,
                  "spherical values, keys of rank 2 to 4"),
        ),
        negative_control=NegativeControl("1 - r_K/d in place of 1 - r_K/M",
                                         {"mean_expected_error": _mean_error_over_d}),
    ),
    Claim(
        id="cex.duplicated-keys",
        title="Duplicated keys: K = [e1, e1, e1, e2] has unequal leverage",
        statement=(r"K = [e_1, e_1, e_1, e_2]:\ h = (\tfrac13, \tfrac13, \tfrac13, 1),\ "
                   r"\mathrm{SNR}_{1,2,3} = \tfrac{1/9}{2/9} = \tfrac12,\ "
                   r"\mathbb{E}\,\mathrm{err} = (\tfrac23, \tfrac23, \tfrac23, 0),\ "
                   r"W_{\mathrm{LS}} e_1 = \tfrac13 (v_1 + v_2 + v_3)"),
        kind=ClaimKind.IDENTITY,
        source="000, App. F; 'What the dimension-only estimate leaves out'",
        assumptions=("e1, e2 orthonormal (any embedding in R^d)", "V arbitrary"),
        depends_on=("proj.coefficient-projector", "lev.range", "recall.error", "recall.mean-error"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _duplicated_exact,
                  "exact rationals: P, h, SNR, signal and cross-talk power, errors, mean, LS average"),
            Check("ladder", EvidenceKind.PRECISE, _duplicated_precise,
                  "mpmath ladder with e1, e2 exactly rotated into R^2..R^4"),
            Check("float", EvidenceKind.PROPERTY, _duplicated_property,
                  "float64, e1 e2 a random orthonormal pair in R^2..R^8"),
        ),
        negative_control=NegativeControl("SNR = h/(1+h) in place of h/(1-h)", {"snr": _snr_plus}),
    ),
]
