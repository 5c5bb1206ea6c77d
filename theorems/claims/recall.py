"""Recall strength of the least-squares store (000, "Measure the strength of
recall", App. D) and the duplicated-keys example (000, App. F)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from linmem.precise import mp_array
from theorems.claims._cases import precise_key_cases, precise_values
from theorems.claims.projectors import identity_like
from theorems.evidence import expectation, montecarlo, precise, symbolic
from theorems.evidence import property as prop
from theorems.evidence.expectation import sign_average
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.residuals import diff_norm, exact_sq
from theorems.strategies import KeyCase, exact_key_matrices, exact_keys_and_values, float_key_cases
from theorems.tolerance import THRESHOLD, norm, scaled_residual

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

    return prop.check(ctx, cases(), measure, describe=lambda c: c[0])


def _snr_plus(h):
    return h / (1 + h)


def _error_squared(h):
    return 1 - h * h


# --- shared pieces of the claims below -----------------------------------------------


def _off_diagonal(P):
    """P with its diagonal removed, so that ``V @ _off_diagonal(P)`` has column
    j equal to sum_{i != j} P_ij v_i."""
    return P * (1 - identity_like(P.shape[0], P))


def _exact_leverage(K) -> list:
    """Reference leverage of exact keys (sympy's pseudoinverse, not the
    implementation under test); used to sort keys into h = 0, 0 < h < 1, h = 1."""
    S = sympy.Matrix(K.shape[0], K.shape[1], [sympy.Rational(e.numerator, e.denominator) for e in K.ravel()])
    P = S.pinv() * S
    return [sympy.Rational(P[j, j]) for j in range(K.shape[1])]


def _interior_mask(h, M: int) -> np.ndarray:
    """Float keys with 0 < h < 1 beyond rounding: the SNR is defined only
    there. Keys within ``THRESHOLD * M * eps`` of 0 or 1 are the boundary
    cases h = 0 (zero key) and h = 1 (exact recall) and are excluded."""
    bound = THRESHOLD * M * np.finfo(float).eps
    h = np.asarray(h, dtype=float)
    return (h > bound) & (h < 1 - bound)


@st.composite
def _interior_sign_inputs(draw):
    """(K, W0) as in :func:`sign_value_inputs`, with one column of K duplicated:
    a nonzero key present twice has 0 < h <= 1/2, so every input has keys
    inside (0, 1), where the SNR is defined. Other keys may sit at h = 1 (a
    key outside the span of the rest) or at h = 0 (a column zeroed here)."""
    # Sizes kept small (M <= 4, 16 sign patterns): the enumeration is exact
    # rational arithmetic, and a failing input is shrunk over many re-runs.
    K = draw(exact_key_matrices(max_dim=3, max_count=3))
    j = draw(st.integers(0, K.shape[1] - 1))
    pos = draw(st.integers(0, K.shape[1]))
    K = np.concatenate([K[:, :pos], K[:, j:j + 1], K[:, pos:]], axis=1)
    others = [i for i in range(K.shape[1]) if i not in (pos, j if j < pos else j + 1)]
    if others and draw(st.booleans()):
        K[:, draw(st.sampled_from(others))] = Fraction(0)
    p = draw(st.integers(1, 2))
    seed = draw(st.integers(0, 2**32 - 1))
    W0 = ensembles.rational_unit_vectors(p, K.shape[1], rng=np.random.default_rng(seed), scale=1)
    return K, W0


def _sign_moments(impl, K, W0):
    """Exact expectations over the values v_i = s_i w_i (independent fair signs):
    returns (E n, E ||n_j||^2, E ||h_j v_j||^2, h) with the cross-talk measured
    from the store, n_j = W_LS k_j - h_j v_j.

    The store is linear in the values, W_LS(V) = V W_LS(I_M), so it is fitted
    once on I_M and every sign pattern's recall is V W_LS(I_M) K (as in
    :func:`spherical_value_sampler`); this keeps the 2^M exact terms cheap."""
    h = impl.leverage_scores(K)
    p, M = W0.shape
    recall_of_identity = impl.least_squares_store(K, identity_like(M, K)) @ K

    def moments(s):
        V = W0 * s
        N = V @ recall_of_identity - V * h
        S = V * h
        return np.vstack([N, _sq_cols(N)[None, :], _sq_cols(S)[None, :]])

    E = sign_average(moments, M)
    return E[:p], E[p], E[p + 1], h


# --- recall.decomposition ----------------------------------------------------------------


def _decomposition_terms(impl, K, V):
    """(signal, h V), (cross-talk, V P_offdiag), (signal + cross-talk, W_LS K)."""
    signal, crosstalk = impl.recall_decomposition(K, V)
    h = impl.leverage_scores(K)
    P, _ = impl.projectors(K)
    W = impl.least_squares_store(K, V)
    return [
        (signal, V * h),
        (crosstalk, V @ _off_diagonal(P)),
        (signal + crosstalk, W @ K),
    ]


def _decomposition_exact(ctx):
    def residual(case):
        return sum(exact_sq(a, b) for a, b in _decomposition_terms(ctx.impl, *case))

    return symbolic.check_exact(ctx, exact_keys_and_values(), residual, describe=lambda c: {"K": c[0], "V": c[1]})


def _decomposition_precise(ctx):
    cases = [(label, (K, precise_values(K, ctx))) for label, K in precise_key_cases(ctx)]
    cases += [(label, (K, precise_values(K, ctx))) for label, K in precise_key_cases(ctx, unit=True)]

    def residual(case):
        K, V = (mp_array(x) for x in case)
        err = max(diff_norm(a, b) for a, b in _decomposition_terms(ctx.impl, K, V))
        return err, max(K.shape) * linmem.condition_number(K) * (1 + norm(V))

    return precise.check(ctx, cases, residual)


def _decomposition_property(ctx):
    def measure(case: KeyCase):
        K, V = case.K, case.V
        err = max(diff_norm(a, b) for a, b in _decomposition_terms(ctx.impl, K, V))
        return scaled_residual(err, scale=max(K.shape) * float(linmem.condition_number(K)) * (1 + norm(V)))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _decomposition_unattenuated(K, V):
    """Wrong variant: the signal taken as v_j (not h_j v_j), the rest called cross-talk."""
    P, _ = linmem.projectors(K)
    return V.copy(), V @ P - V


# --- recall.crosstalk-power ---------------------------------------------------------------


def _generic_projectors():
    """Symbolic projectors in R^3: rank one, P = z z^T / z^T z, and its rank-two
    complement; their entries are rational functions of z."""
    z = sympy.Matrix(sympy.symbols("z1:4", real=True))
    P1 = z * z.T / (z.T * z)[0, 0]
    return [("rank 1", P1), ("rank 2", sympy.eye(3) - P1)]


def _crosstalk_symbolic(ctx):
    items = []
    for label, P in _generic_projectors():
        for j in range(3):
            off = sum(P[i, j] ** 2 for i in range(3) if i != j)
            items.append((f"{label} projector, column {j + 1}: sum_(i != j) P_ij^2 = h - h^2",
                          off - ctx.impl.crosstalk_power(P[j, j])))
    return symbolic.check_scalar(ctx, items)


def _crosstalk_exact(ctx):
    def residual(case):
        K, W0 = case
        En, En2, _, h = _sign_moments(ctx.impl, K, W0)
        return exact_sq(En, 0 * En) + exact_sq(En2, ctx.impl.crosstalk_power(h))

    return expectation.check(ctx, sign_value_inputs(), residual, describe=_describe_kw)


def _crosstalk_keys(ctx) -> list[np.ndarray]:
    """Fixed float keys: M > d with leverage spread from about 0.2 to near 1,
    rank-deficient, ill-conditioned (1e6), duplicated, a duplicated pair beside
    free keys and a zero key (h = 1/2, 1 and 0), and M < d (every h = 1, no
    cross-talk)."""
    rng = ctx.rng("crosstalk-keys")
    base = np.concatenate([ensembles.spherical_vectors(4, 3, rng=rng), np.zeros((4, 1))], axis=1)
    return [
        ensembles.spherical_vectors(4, 7, rng=rng),
        ensembles.spherical_vectors(2, 9, rng=rng),
        ensembles.spherical_vectors(5, 6, rng=rng),
        ensembles.controlled_spectrum(5, 6, cond=10.0, rank=3, rng=rng),
        ensembles.controlled_spectrum(4, 6, cond=1e6, rng=rng),
        ensembles.duplicated_keys(3, 5, n_distinct=2, rng=rng),
        base[:, [0, 0, 1, 2, 3]],
        ensembles.spherical_vectors(6, 3, rng=rng),
    ]


#: Output dimension of the Monte Carlo values.
MC_VALUE_DIM = 3

#: Direction-shaping matrix of the anisotropic value distribution: v = A g / ||A g||
#: with g standard Gaussian. Its law is symmetric (v and -v equally likely), so
#: the values are zero-mean and unit-norm, but their directions are not uniform.
ANISOTROPY = np.diag([3.0, 1.0, 0.2])


def _crosstalk_sampler(impl, keys, quantity, *, shape=None):
    """Monte Carlo sampler: independent zero-mean unit values (uniform on the
    sphere, or with directions shaped by ``shape``) for each fixed key set.

    The store is linear in the values, W_LS(V) = V W_LS(I_M), so the
    cross-talk of every sample comes from one evaluation of the store under
    test: n_j = W_LS(V) k_j - h_j v_j, i.e. N = V (W_LS(I_M) K) - V diag(h).
    ``quantity(N, V, h)`` maps a batch to per-sample figures."""
    fitted = [(impl.least_squares_store(K, np.eye(K.shape[1])) @ K, impl.leverage_scores(K)) for K in keys]

    def sample(rng, size):
        out = []
        for R, h in fitted:
            X = rng.standard_normal((size, MC_VALUE_DIM, R.shape[0]))
            if shape is not None:
                X = np.einsum("ab,sbm->sam", shape, X)
            V = X / np.linalg.norm(X, axis=1, keepdims=True)
            out.append(quantity(V @ R - V * h, V, h))
        return np.concatenate(out, axis=1)

    return sample, [h for _, h in fitted]


def _crosstalk_montecarlo(ctx, *, shape=None, label=""):
    impl = ctx.impl
    keys = _crosstalk_keys(ctx)

    def per_key(N, V, h):
        # the p coordinates of every n_j (mean zero) and every ||n_j||^2
        return np.concatenate([N.reshape(N.shape[0], -1), np.sum(N * N, axis=1)], axis=1)

    sample, hs = _crosstalk_sampler(impl, keys, per_key, shape=shape)
    claimed = np.concatenate([
        np.concatenate([np.zeros(MC_VALUE_DIM * len(h)), impl.crosstalk_power(h)]) for h in hs
    ])
    return montecarlo.check(ctx, sample, claimed, label=label)


def _crosstalk_spherical(ctx):
    return _crosstalk_montecarlo(ctx, label=f"E n_j = 0 and E||n_j||^2, spherical values in R^{MC_VALUE_DIM}")


def _crosstalk_anisotropic(ctx):
    return _crosstalk_montecarlo(ctx, shape=ANISOTROPY,
                                 label=f"E n_j = 0 and E||n_j||^2, anisotropic unit values in R^{MC_VALUE_DIM}")


def _crosstalk_as_error(h):
    """Wrong variant: the reconstruction error 1 - h taken for the cross-talk power."""
    return 1 - h


# --- recall.snr ---------------------------------------------------------------------


def _snr_symbolic(ctx):
    h = sympy.Symbol("h", positive=True)
    impl = ctx.impl
    return symbolic.check_scalar(ctx, [
        ("signal power h^2 over cross-talk power h - h^2 is SNR", h**2 / impl.crosstalk_power(h) - impl.snr(h)),
        ("E||n/h||^2 = (h - h^2)/h^2 is 1/SNR", impl.crosstalk_power(h) / h**2 - 1 / impl.snr(h)),
    ])


def _snr_exact(ctx):
    # Keys with h = 0 or h = 1 (exact reference leverage) are excluded: the
    # SNR is defined for 0 < h < 1 only. The strategy guarantees interior keys.
    def residual(case):
        K, W0 = case
        impl = ctx.impl
        _, En2, Es2, h = _sign_moments(impl, K, W0)
        interior = [j for j, x in enumerate(_exact_leverage(K)) if 0 < x < 1]
        if not interior:
            raise AssertionError("the strategy must produce a key with 0 < h < 1")
        out = 0
        for j in interior:
            snr = impl.snr(h[j])
            out += (Es2[j] / En2[j] - snr) ** 2  # measured power ratio
            out += (En2[j] / (h[j] * h[j]) - 1 / snr) ** 2  # E||n_j / h_j||^2 = 1/SNR
        return out

    return expectation.check(ctx, _interior_sign_inputs(), residual, describe=_describe_kw)


def _snr_plot(ev, h, claimed_snr):
    """Per-key plot: measured 1 / E||n/h||^2 with its standard error (delta
    method) against h, and the claimed curve h/(1-h)."""
    mean = np.asarray(ev.data["mean"])
    se = np.asarray(ev.data["standard_error"])
    order = np.argsort(h)
    grid = np.linspace(float(np.min(h)), float(np.max(h)), 33)
    ev.data["leverage"] = [float(x) for x in h]
    ev.data["plot"] = {
        "title": "Per-key SNR of least-squares recall: measured against h/(1-h)",
        "x_label": "leverage h_j",
        "y_label": "1 / E||n_j/h_j||^2",
        "xscale": "linear",
        "yscale": "log",
        "series": [
            {"label": "measured 1 / mean ||n_j/h_j||^2 (Monte Carlo)", "style": "points",
             "x": [float(x) for x in h[order]], "y": [float(x) for x in 1 / mean[order]],
             "yerr": [float(x) for x in (se / mean**2)[order]]},
            {"label": "claimed SNR h/(1-h) (ctx.impl.snr)", "style": "line",
             "x": grid.tolist(), "y": [float(x) for x in claimed_snr(grid)]},
        ],
        "hlines": [{"y": 1.0, "label": "unit SNR (h = 1/2)"}],
        "vlines": [],
    }
    return ev


def _snr_montecarlo(ctx, *, shape=None, label=""):
    impl = ctx.impl
    keys = _crosstalk_keys(ctx)

    def normalised_noise(N, V, h):
        inside = _interior_mask(h, len(h))
        return np.sum(N[:, :, inside] ** 2, axis=1) / h[inside] ** 2

    sample, hs = _crosstalk_sampler(impl, keys, normalised_noise, shape=shape)
    masks = [_interior_mask(h, len(h)) for h in hs]
    h_in = np.concatenate([h[m] for h, m in zip(hs, masks)])
    excluded = np.concatenate([h[~m] for h, m in zip(hs, masks)])
    ev = montecarlo.check(ctx, sample, 1 / impl.snr(h_in), label=label)
    ev.data["excluded_boundary_leverage"] = [float(x) for x in excluded]
    ev.detail += f"; {excluded.size} keys with h = 0 or 1 (SNR undefined) excluded, {h_in.size} kept"
    return _snr_plot(ev, h_in, impl.snr)


def _snr_spherical(ctx):
    return _snr_montecarlo(ctx, label=f"E||n_j/h_j||^2 = 1/SNR_j, spherical values in R^{MC_VALUE_DIM}")


def _snr_anisotropic(ctx):
    return _snr_montecarlo(ctx, shape=ANISOTROPY,
                           label=f"E||n_j/h_j||^2 = 1/SNR_j, anisotropic unit values in R^{MC_VALUE_DIM}")


# --- recall.rms-convention ------------------------------------------------------------
#
# RMS interference amplitude a_n = sqrt(E||n_j||^2), signal amplitude
# a_s = ||h_j v_j|| = h_j; the claim: SNR_j = (a_n / a_s)^(-2). Numerically it
# is checked in the well-conditioned form a_s^2 / SNR_j = a_n^2 (no division
# by the small 1 - h near h = 1).


def _rms_symbolic(ctx):
    h = sympy.Symbol("h", positive=True)
    gamma = sympy.Symbol("gamma", positive=True)
    impl = ctx.impl
    ratio = sympy.sqrt(impl.crosstalk_power(h)) / h  # RMS interference / signal amplitude
    snr_one = sympy.solve(sympy.Eq(impl.snr(h), 1), h)
    ratio_one = sympy.solve(sympy.Eq(ratio, 1), h)
    same_unit_threshold = (snr_one[0] - ratio_one[0]) if len(snr_one) == len(ratio_one) == 1 else sympy.Integer(1)
    # the key at which SNR = gamma has amplitude ratio gamma^(-1/2): every
    # power threshold corresponds to one amplitude threshold
    h_gamma = sympy.solve(sympy.Eq(impl.snr(h), gamma), h)
    at_gamma = (ratio.subs(h, h_gamma[0]) - 1 / sympy.sqrt(gamma)) if len(h_gamma) == 1 else sympy.Integer(1)
    return symbolic.check_scalar(ctx, [
        ("(RMS / amplitude)^(-2) = SNR", ratio ** -2 - impl.snr(h)),
        ("SNR = 1 and RMS = amplitude at the same h", same_unit_threshold),
        ("SNR = gamma where RMS / amplitude = gamma^(-1/2)", at_gamma),
    ])


def _rms_exact(ctx):
    # Powers measured by exact enumeration: a_s^2 = E||h_j v_j||^2 and
    # a_n^2 = E||n_j||^2; interior keys only (exact reference leverage).
    def residual(case):
        K, W0 = case
        impl = ctx.impl
        _, En2, Es2, h = _sign_moments(impl, K, W0)
        out = 0
        for j, x in enumerate(_exact_leverage(K)):
            if not 0 < x < 1:
                continue
            snr = impl.snr(h[j])
            out += (Es2[j] / snr - En2[j]) ** 2
            # the unit threshold: SNR >= 1 exactly when the RMS interference is
            # at most the signal amplitude (and = with =)
            out += int((snr >= 1) != (En2[j] <= Es2[j])) + int((snr == 1) != (En2[j] == Es2[j]))
        return out

    return symbolic.check_exact(ctx, _interior_sign_inputs(), residual, describe=_describe_kw)


def _rms_terms(impl, K, interior, half):
    """(identity, threshold) residuals: |a_s^2 / SNR - a_n^2| over the interior
    keys, with a_n^2 = sum_{i != j} P_ij^2 (the cross-talk power under
    E[V^T V] = I) and a_s = h_j; and at the keys in ``half`` (h = 1/2 exactly)
    |SNR - 1| and |a_n - a_s|, both zero when the unit thresholds coincide."""
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    off = _off_diagonal(P)
    noise = np.sum(off * off, axis=0)
    identity = max(abs(h[j] ** 2 / impl.snr(h[j]) - noise[j]) for j in interior)
    threshold = max([abs(impl.snr(h[j]) - 1) for j in half]
                    + [abs(mpmath.sqrt(noise[j]) - h[j]) for j in half], default=0)
    return identity, threshold


def _rms_precise(ctx):
    # Every ladder key matrix with one nonzero column duplicated (two equal
    # nonzero keys share their leverage, h = P_jj <= 1/2, and h > 0: so some
    # 0 < h < 1; a zero column, which rank-deficient cases may have, would
    # leave no key inside), and a pair at h = 1/2 exactly (the unit
    # threshold) beside a free key.
    rng = ctx.rng("rms-precise")
    cases = []
    for label, K in precise_key_cases(ctx) + precise_key_cases(ctx, unit=True):
        nonzero = [j for j in range(K.shape[1]) if any(x != 0 for x in K[:, j])]
        j = int(nonzero[rng.integers(0, len(nonzero))])
        cases.append((label + f", column {j} duplicated", np.concatenate([K, K[:, j:j + 1]], axis=1)))
    Qm = ensembles.rational_orthogonal(3, rng=rng)
    cases.append(("a pair at h = 1/2 beside a free key", Qm[:, [0, 0, 1]]))
    prepared = []
    for label, K in cases:
        h = _exact_leverage(K)
        prepared.append((label, (K, [j for j, x in enumerate(h) if 0 < x < 1],
                                 [j for j, x in enumerate(h) if x == sympy.Rational(1, 2)])))

    # The identity compares two figures of the same computed P, which is
    # symmetric and idempotent to the working precision whatever the
    # condition of K: a size-only bound. The threshold compares the computed
    # h with the exact 1/2, off by rounding times the condition of K: its
    # residual is divided by the condition to share that bound.
    def residual(case):
        K, interior, half = case
        K = mp_array(K)
        identity, threshold = _rms_terms(ctx.impl, K, interior, half)
        err = max(identity, threshold / linmem.condition_number(K))
        return err, max(K.shape)

    return precise.check(ctx, prepared, residual)


def _rms_property(ctx):
    def measure(case: KeyCase):
        K = case.K
        h = ctx.impl.leverage_scores(K)
        interior = np.flatnonzero(_interior_mask(h, K.shape[1]))
        P, _ = ctx.impl.projectors(K)
        off = _off_diagonal(P)
        noise = np.sum(off * off, axis=0)
        errs = [abs(h[j] ** 2 / ctx.impl.snr(h[j]) - noise[j]) for j in interior]
        return scaled_residual(max(errs, default=0.0), scale=max(K.shape))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _snr_amplitude(h):
    """Wrong variant: the amplitude ratio sqrt(h/(1-h)) reported as the power SNR."""
    x = linmem.snr(h)
    if type(x).__module__.startswith("sympy"):
        return sympy.sqrt(x)
    if isinstance(x, mpmath.mpf):
        return mpmath.sqrt(x)
    return np.sqrt(np.asarray(x, dtype=float)) if isinstance(x, np.ndarray) else float(x) ** 0.5


CLAIMS = [
    Claim(
        id="recall.error",
        title="Expected squared error of least-squares recall at key j is 1 - h_j",
        statement=r"\mathbb{E}_V \|W_{\mathrm{LS}} k_j - v_j\|^2 = (1-h_j)^2 + (h_j - h_j^2) = 1 - h_j",
        kind=ClaimKind.EXPECTATION,
        source="000, App. D",
        assumptions=VALUE_ASSUMPTIONS,
        depends_on=("proj.coefficient-projector", "lev.range", "recall.decomposition", "recall.crosstalk-power"),
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
    Claim(
        id="recall.decomposition",
        title="Least-squares recall at a stored key is attenuated signal plus cross-talk",
        statement=(r"W_{\mathrm{LS}} k_j = (VP)e_j = h_j v_j + n_j,\qquad "
                   r"n_j = \sum_{i \ne j} P_{ij} v_i"),
        kind=ClaimKind.IDENTITY,
        source="000, 'Measure the strength of recall'; App. D",
        assumptions=("K any real d x M matrix (any rank)", "V any real p x M matrix (no assumption on the values)"),
        depends_on=("proj.coefficient-projector", "lev.range"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _decomposition_exact,
                  "exact rationals: signal = h_j v_j, cross-talk = sum_{i != j} P_ij v_i, sum = W_LS k_j"),
            Check("ladder", EvidenceKind.PRECISE, _decomposition_precise,
                  "mpmath ladder, condition up to 1e20, rank-deficient, duplicated, unit keys"),
            Check("float", EvidenceKind.PROPERTY, _decomposition_property,
                  "float64 over every key family, p != d"),
        ),
        negative_control=NegativeControl(
            "signal v_j (unattenuated) in place of h_j v_j, the remainder called cross-talk",
            {"recall_decomposition": _decomposition_unattenuated},
        ),
    ),
    Claim(
        id="recall.crosstalk-power",
        title="Cross-talk has mean zero and expected power h_j - h_j^2",
        statement=(r"\mathbb{E}_V\, n_j = 0,\qquad \mathbb{E}_V \|n_j\|^2 = "
                   r"\sum_{i \ne j}\sum_{l \ne j} P_{ij}P_{lj}\,\mathbb{E}_V[v_i^{\top} v_l] = "
                   r"\sum_{i \ne j} P_{ij}^2 = h_j - h_j^2"),
        kind=ClaimKind.EXPECTATION,
        source="000, App. D",
        assumptions=VALUE_ASSUMPTIONS + (
            "cross-talk measured from the store: n_j = W_LS k_j - h_j v_j",
            "enumeration: v_i = s_i w_i, fair independent signs s_i, fixed exactly-unit rational w_i "
            "(independent, zero-mean, unit: exactly the assumptions)",
            "Monte Carlo: values uniform on the sphere, and anisotropic v = A g/||A g|| "
            "(symmetric law, so zero-mean and unit, but directions not uniform)",
        ),
        depends_on=("recall.decomposition", "lev.column-energy"),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _crosstalk_symbolic,
                  "sympy: sum_{i != j} P_ij^2 = h - h^2 on generic rank-1 and rank-2 projectors of R^3"),
            Check("enumeration", EvidenceKind.EXPECTATION, _crosstalk_exact,
                  "exact expectation over random signs times fixed unit rational values"),
            Check("montecarlo", EvidenceKind.MONTECARLO, _crosstalk_spherical,
                  "spherical values; M > d, M < d, rank-deficient, cond 1e6, duplicated keys, h = 1 keys"),
            Check("montecarlo-anisotropic", EvidenceKind.MONTECARLO, _crosstalk_anisotropic,
                  "anisotropic unit values (directions not uniform), same keys"),
        ),
        negative_control=NegativeControl("cross-talk power 1 - h (the error) in place of h - h^2",
                                         {"crosstalk_power": _crosstalk_as_error}),
    ),
    Claim(
        id="recall.snr",
        title="Per-key SNR of least-squares recall is h_j/(1 - h_j) for 0 < h_j < 1",
        statement=(r"0 < h_j < 1:\quad \mathrm{SNR}_j = \frac{\|h_j v_j\|^2}{\mathbb{E}_V\|n_j\|^2} "
                   r"= \frac{h_j^2}{h_j - h_j^2} = \frac{h_j}{1-h_j},\qquad "
                   r"\mathbb{E}_V\Big\|\frac{n_j}{h_j}\Big\|^2 = \frac{1-h_j}{h_j} = \frac{1}{\mathrm{SNR}_j}"),
        kind=ClaimKind.EXPECTATION,
        source="000, 'Measure the strength of recall' (boxed); App. D",
        assumptions=VALUE_ASSUMPTIONS + (
            "defined for 0 < h_j < 1 only: keys with h_j = 0 (zero key) or h_j = 1 (exact recall, no "
            "cross-talk) are excluded from every SNR quantity (exact reference leverage in the "
            "enumeration, h within THRESHOLD * M * eps of 0 or 1 in float64)",
            "cross-talk measured from the store: n_j = W_LS k_j - h_j v_j",
            "enumeration: random signs times fixed exactly-unit rational values; Monte Carlo: "
            "spherical and anisotropic unit values",
        ),
        depends_on=("recall.crosstalk-power",),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _snr_symbolic,
                  "sympy: h^2/(h - h^2) = SNR and (h - h^2)/h^2 = 1/SNR"),
            Check("enumeration", EvidenceKind.EXPECTATION, _snr_exact,
                  "exact: measured signal power / E||n_j||^2 and E||n_j/h_j||^2 against the SNR, "
                  "interior keys (a duplicated key guarantees some)"),
            Check("montecarlo", EvidenceKind.MONTECARLO, _snr_spherical,
                  "spherical values: E||n_j/h_j||^2 = 1/SNR_j per interior key, plotted against h"),
            Check("montecarlo-anisotropic", EvidenceKind.MONTECARLO, _snr_anisotropic,
                  "anisotropic unit values, same keys"),
        ),
        negative_control=NegativeControl("SNR = h/(1+h) in place of h/(1-h)", {"snr": _snr_plus}),
    ),
    Claim(
        id="recall.rms-convention",
        title="Power SNR is the inverse square of the RMS interference-to-signal amplitude ratio",
        statement=(r"\mathrm{SNR}_j = \left(\frac{\sqrt{\mathbb{E}_V\|n_j\|^2}}{\|h_j v_j\|}\right)^{-2} "
                   r"= \left(\frac{\sqrt{h_j - h_j^2}}{h_j}\right)^{-2};\quad "
                   r"\mathrm{SNR}_j \ge 1 \iff \sqrt{\mathbb{E}_V\|n_j\|^2} \le \|h_j v_j\| "
                   r"\iff h_j \ge \tfrac12"),
        kind=ClaimKind.IDENTITY,
        source="000, 'Measure the strength of recall'",
        assumptions=VALUE_ASSUMPTIONS + (
            "0 < h_j < 1 (keys at h = 0 or 1 excluded, as for the SNR)",
            "RMS interference amplitude sqrt(E||n_j||^2) = sqrt(sum_{i != j} P_ij^2); "
            "signal amplitude ||h_j v_j|| = h_j",
        ),
        depends_on=("recall.snr", "recall.crosstalk-power"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _rms_exact,
                  "exact: powers measured by enumeration; a_s^2/SNR = a_n^2 and the unit thresholds agree"),
            Check("algebra", EvidenceKind.SYMBOLIC, _rms_symbolic,
                  "sympy: (RMS/amplitude)^(-2) = SNR; unit threshold at h = 1/2 for both; SNR = gamma "
                  "exactly where the ratio is gamma^(-1/2)"),
            Check("ladder", EvidenceKind.PRECISE, _rms_precise,
                  "mpmath ladder: ill-conditioned, rank-deficient and unit keys with a duplicate; h = 1/2 exactly"),
            Check("float", EvidenceKind.PROPERTY, _rms_property,
                  "float64 over every key family, interior keys"),
        ),
        negative_control=NegativeControl("amplitude ratio sqrt(h/(1-h)) reported as the power SNR",
                                         {"snr": _snr_amplitude}),
    ),
]
