"""Recall strength of the least-squares store (000, "Measure the strength of
recall", App. D) and the duplicated-keys example (000, App. F).

Every expectation is over values independent of each other and of K,
zero-mean and unit (``E[V^T V] = I_M``), for fixed keys; the store is
measured through :func:`theorems.authoring.kit.store`, so one quantity serves the exact
enumeration (one value matrix) and the Monte Carlo (a batch)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from theorems.authoring import kit
from theorems.authoring.strategies import (
    Case, Inputs, exact_key_matrices, float_key_cases, integer_matrices, keys_and_values, precise_keys, rng_seeds)
from theorems.authoring.templates import MC_VALUE_DIM, expectation, identity, montecarlo_values, wrong
from theorems.core.tolerance import THRESHOLD, norm

__all__ = ["CLAIMS", "mean_error_algebra", "mean_error_twice"]


# --- this module's inputs (single-use input families, moved from theorems.authoring.strategies) ---


@st.composite
def repeated_key_matrices(draw, *, max_dim: int = 3, max_count: int = 3):
    """Exact keys of :func:`exact_key_matrices` with one (nonzero) column
    inserted again at a drawn position: a key present twice has leverage
    ``0 < h <= 1/2``, so every draw has a key strictly inside (0, 1) (where a
    per-key SNR is defined). Another column may be zeroed (``h = 0``); a key
    outside the span of the rest has ``h = 1``. At most ``max_count + 1``
    columns (``max_count = 3``: at most 16 sign patterns)."""
    K = draw(exact_key_matrices(max_dim=max_dim, max_count=max_count))
    j = draw(st.integers(0, K.shape[1] - 1))
    pos = draw(st.integers(0, K.shape[1]))
    K = np.concatenate([K[:, :pos], K[:, j:j + 1], K[:, pos:]], axis=1)
    others = [i for i in range(K.shape[1]) if i not in (pos, j if j < pos else j + 1)]
    if others and draw(st.booleans()):
        K[:, draw(st.sampled_from(others))] = Fraction(0)
    return K


VALUE_ASSUMPTIONS = (
    "values independent of each other and of K, zero-mean, unit-norm (so E[V^T V] = I_M)",
    "K fixed (expectation over the values only)",
)

#: How the cross-talk claims measure (:func:`_crosstalk_expectation`).
CROSSTALK_DESIGN = (
    "cross-talk measured from the store: n_j = W_LS k_j - h_j v_j",
    "enumeration: v_i = s_i w_i, fair independent signs s_i, fixed exactly-unit rational w_i "
    "(independent, zero-mean, unit: exactly the assumptions)",
    "Monte Carlo: values uniform on the sphere, and anisotropic v = A g/||A g|| "
    "(symmetric law, so zero-mean and unit, but directions not uniform)",
)

#: The leverage as a sympy symbol, for the scalar algebra.
_H = sympy.Symbol("h", positive=True)

#: A of the anisotropic values v = A g / ||A g||, g standard Gaussian (CROSSTALK_DESIGN).
ANISOTROPY = np.diag([3.0, 1.0, 0.2])


def _anisotropic(rng, size, p, M):
    X = np.einsum("ab,sbm->sam", ANISOTROPY[:p, :p], rng.standard_normal((size, p, M)))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _crosstalk_expectation(id, *, quantity, claimed, about, assumptions=(), finish=None, zero_mean=None, **fields):
    """An expectation measured as CROSSTALK_DESIGN says: the template's enumeration and
    spherical Monte Carlo on the cross-talk key families, then anisotropic unit values."""
    anisotropic = montecarlo_values(
        "montecarlo-anisotropic", quantity, claimed, mc_keys=_crosstalk_keys, values=_anisotropic, about=about,
        values_label=f"anisotropic unit values in R^{MC_VALUE_DIM}", zero_mean=zero_mean, finish=finish)
    return expectation(id, quantity=quantity, claimed=claimed, mc_keys=_crosstalk_keys, zero_mean=zero_mean,
                       finish=finish, assumptions=VALUE_ASSUMPTIONS + CROSSTALK_DESIGN + tuple(assumptions),
                       extra_checks=(anisotropic,), **fields)


def _residuals(impl, K, V):
    """``W_LS(V) K - V`` for one value matrix or a batch."""
    return kit.store(impl.least_squares_store, K, V) @ K - V


_LAST_CROSSTALK: list = [None]


def _crosstalk(impl, K, V):
    """``n_j = W_LS k_j - h_j v_j``, measured from the store, as the columns.
    The last result is kept with its inputs (held, so no id is reused; one
    tuple, read once, so threads cannot mix two) because the mean and the
    power of one batch ask for the same cross-talk."""
    last = _LAST_CROSSTALK[0]
    if last is not None and last[0] is impl and last[1] is K and last[2] is V:
        return last[3]
    N = kit.store(impl.least_squares_store, K, V) @ K - V * impl.leverage_scores(K)
    _LAST_CROSSTALK[0] = (impl, K, V, N)
    return N


def _off_diagonal(P):
    """P with its diagonal removed: column j of ``V @ _off_diagonal(P)`` is sum_{i != j} P_ij v_i."""
    return P * (1 - kit.eye(P.shape[0], P))


def _interior_mask(h, M: int) -> np.ndarray:
    """Float keys with 0 < h < 1 beyond rounding: the SNR is defined only
    there. Keys within ``THRESHOLD * M * eps`` of 0 or 1 are the boundary
    cases h = 0 (zero key) and h = 1 (exact recall) and are excluded."""
    bound = THRESHOLD * M * np.finfo(float).eps
    h = np.asarray(h, dtype=float)
    return (h > bound) & (h < 1 - bound)


def _interior(impl, K) -> np.ndarray:
    """Indices of the keys with 0 < h < 1: exact reference leverage for exact
    keys, :func:`_interior_mask` of the computed leverage in float64."""
    if kit.is_exact(K):
        idx = [j for j, x in enumerate(kit.leverage(K)) if 0 < x < 1]
        if not idx:
            raise AssertionError("the strategy must produce a key with 0 < h < 1")
        return np.array(idx, dtype=int)
    return np.flatnonzero(_interior_mask(impl.leverage_scores(K), K.shape[1]))


def _crosstalk_keys(rng) -> list[np.ndarray]:
    """Fixed float keys: M > d with leverage spread from about 0.2 to near 1,
    rank-deficient, ill-conditioned (1e6), duplicated, a duplicated pair beside
    free keys and a zero key (h = 1/2, 1 and 0), and M < d (every h = 1, no
    cross-talk)."""
    base = np.concatenate([ensembles.spherical_vectors(4, 3, rng=rng), np.zeros((4, 1))], axis=1)
    return [
        ensembles.spherical_vectors(4, 7, rng=rng), ensembles.spherical_vectors(2, 9, rng=rng),
        ensembles.spherical_vectors(5, 6, rng=rng), ensembles.controlled_spectrum(5, 6, cond=10.0, rank=3, rng=rng),
        ensembles.controlled_spectrum(4, 6, cond=1e6, rng=rng), ensembles.duplicated_keys(3, 5, n_distinct=2, rng=rng),
        base[:, [0, 0, 1, 2, 3]], ensembles.spherical_vectors(6, 3, rng=rng),
    ]


# --- cex.duplicated-keys: K = [e1, e1, e1, e2], every figure of the example --------


def _duplicated(impl, e1, e2, V):
    """The example's figures for orthonormal e1, e2 (any embedding) and any
    values V (p x 4); ``t = e1.e1 / 3`` is 1/3 in the inputs' number system."""
    K = np.stack([e1, e1, e1, e2], axis=1)
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    W = impl.least_squares_store(K, V)
    t, ones = (e1 @ e1) / 3, np.ones(3, dtype=int)
    return [(P, np.array([[1, 1, 1, 0]] * 3 + [[0, 0, 0, 3]]) * t), (h, np.array([1, 1, 1, 3]) * t),
            (np.array([impl.snr(x) for x in h[:3]]), ones * 3 * t / 2), (h[:3] * h[:3], ones * t * t),
            (np.array([impl.crosstalk_power(x) for x in h[:3]]), ones * 2 * t * t),
            (impl.expected_error(h), np.array([2, 2, 2, 0]) * t), (impl.mean_expected_error(K), 3 * t / 2),
            (W @ e1, (V[:, 0] + V[:, 1] + V[:, 2]) / 3), (W @ e2, V[:, 3])]


def _duplicated_ladder(ctx):
    rng = ctx.rng("dup-precise")  # each rotation is drawn just before its values
    rotations = (ensembles.rational_orthogonal(2 + i % 3, rng=rng) for i in range(max(2, ctx.profile.precise_cases)))
    return [(f"e1, e2 rotated exactly in R^{Q.shape[0]}", (Q[:, 0], Q[:, 1], kit.integer_array(rng, (2, 4))))
            for Q in rotations]


@st.composite
def _duplicated_floats(draw):
    d, p, seed = draw(st.integers(2, 8)), draw(st.integers(1, 5)), draw(rng_seeds())
    rng = np.random.default_rng(seed)
    Qm, _ = np.linalg.qr(rng.standard_normal((d, 2)))
    return Case((Qm[:, 0], Qm[:, 1], rng.standard_normal((p, 4))), {"d": d, "p": p, "seed": seed})


_E1, _E2 = kit.exact([1, 0]), kit.exact([0, 1])
DUPLICATED_INPUTS = Inputs(
    ("e1", "e2", "V"),
    st.integers(1, 3).flatmap(lambda p: integer_matrices(p, 4, bound=5)).map(lambda V: (_E1, _E2, V)),
    _duplicated_ladder, _duplicated_floats(),
    "e1, e2 the standard pair (exact), exactly rotated into R^2..R^4 (mpmath), a random orthonormal pair in "
    "R^2..R^8 (float64); any values")

# --- recall.decomposition -------------------------------------------------------------


def _decomposition(impl, K, V):
    signal, crosstalk = impl.recall_decomposition(K, V)
    P, _ = impl.projectors(K)
    return [(signal, V * impl.leverage_scores(K)), (crosstalk, V @ _off_diagonal(P)),
            (signal + crosstalk, impl.least_squares_store(K, V) @ K)]


ANY_KEYS_BOTH_LADDERS = Inputs(
    ("K", "V"), keys_and_values().exact,
    lambda ctx: list(keys_and_values().precise(ctx)) + list(keys_and_values(unit=True).precise(ctx)),
    keys_and_values().floats,
    "any keys and values: rank-deficient, duplicated, condition to 1e12 (float), 1e20 and unit keys (mpmath)")

# --- recall.crosstalk-power and recall.snr ------------------------------------------------


def _crosstalk_algebra(impl):
    """sum_{i != j} P_ij^2 = h - h^2 on generic rank-1 and rank-2 projectors of R^3
    (P = z z^T / z^T z and its complement, rational functions of z)."""
    z = sympy.Matrix(sympy.symbols("z1:4", real=True))
    P1 = z * z.T / (z.T * z)[0, 0]
    return [(f"{label} projector, column {j + 1}: sum_(i != j) P_ij^2 = h - h^2",
             sum(P[i, j] ** 2 for i in range(3) if i != j) - impl.crosstalk_power(P[j, j]))
            for label, P in (("rank 1", P1), ("rank 2", sympy.eye(3) - P1)) for j in range(3)]


def _crosstalk_power(impl, K, V):
    return np.sum(_crosstalk(impl, K, V) ** 2, axis=-2)


def _normalised_noise(impl, K, V):
    """``||n_j / h_j||^2`` at the keys with 0 < h_j < 1."""
    j = _interior(impl, K)
    return np.sum(_crosstalk(impl, K, V)[..., j] ** 2, axis=-2) / impl.leverage_scores(K)[j] ** 2


def _snr_plot(ev, impl, Ks):
    """Per-key plot: measured 1 / E||n/h||^2 with its standard error (delta
    method) against h, and the claimed curve h/(1-h); the boundary keys."""
    hs = [np.asarray(impl.leverage_scores(K), dtype=float) for K in Ks]
    keep = np.concatenate([_interior_mask(x, len(x)) for x in hs])
    h, excluded = np.concatenate(hs)[keep], np.concatenate(hs)[~keep]
    mean, se = np.asarray(ev.data["mean"]), np.asarray(ev.data["standard_error"])
    order, grid = np.argsort(h), np.linspace(float(np.min(h)), float(np.max(h)), 33)
    ev.data["excluded_boundary_leverage"] = [float(x) for x in excluded]
    ev.detail += f"; {excluded.size} keys with h = 0 or 1 (SNR undefined) excluded, {h.size} kept"
    ev.data["leverage"] = [float(x) for x in h]
    ev.data["plot"] = kit.plot(
        "Per-key SNR of least-squares recall: measured against h/(1-h)", "leverage h_j", "1 / E||n_j/h_j||^2",
        [kit.series("measured 1 / mean ||n_j/h_j||^2 (Monte Carlo)", h[order].tolist(), (1 / mean[order]).tolist(),
                    "points", yerr=(se / mean**2)[order].tolist()),
         kit.series("claimed SNR h/(1-h) (ctx.impl.snr)", grid.tolist(), [float(x) for x in impl.snr(grid)])],
        yscale="log", hlines=[{"y": 1.0, "label": "unit SNR (h = 1/2)"}], vlines=[])
    return ev


# --- recall.rms-convention ------------------------------------------------------------


def _rms_algebra(impl):
    """The identity for every h (so SNR = gamma exactly where the ratio is
    gamma^(-1/2)), and the unit threshold of both at h = 1/2."""
    ratio = sympy.sqrt(impl.crosstalk_power(_H)) / _H  # RMS interference / signal amplitude
    half = sympy.Rational(1, 2)
    return [("(RMS / amplitude)^(-2) = SNR", ratio ** -2 - impl.snr(_H)),
            ("SNR = 1 at h = 1/2", impl.snr(half) - 1),
            ("RMS = amplitude at h = 1/2", ratio.subs(_H, half) - 1)]


def _rms(impl, K, W0, interior, half):
    """a_s^2 / SNR_j = a_n^2 (a_n = sqrt(E||n_j||^2), a_s = h_j; no division by
    the small 1 - h near h = 1) at the keys with 0 < h_j < 1 (``interior``, or
    :func:`_interior`), a_n^2 by exact enumeration of the store over ``v_i =
    s_i w_i`` when ``W0`` is given, else sum_{i != j} P_ij^2; exactly, SNR >= 1
    iff a_n <= a_s (and = with =). At the keys in ``half`` (h = 1/2 exactly)
    SNR = 1 and a_n = a_s, divided by cond(K): the computed h is off 1/2 by
    rounding times the condition, the identity's scale is size-only."""
    h = impl.leverage_scores(K)
    noise = (kit.sign_expectation(lambda V: _crosstalk_power(impl, K, V), W0) if W0 is not None
             else np.sum(_off_diagonal(impl.projectors(K)[0]) ** 2, axis=0))
    interior = list(_interior(impl, K) if interior is None else interior)
    snr = {j: impl.snr(h[j]) for j in interior}
    terms = [(np.array([h[j] ** 2 / snr[j] for j in interior]), noise[interior])]
    if kit.is_exact(K):  # the two facts, each side as 0/1
        terms += [(int(snr[j] >= 1), int(noise[j] <= h[j] ** 2)) for j in interior]
        terms += [(int(snr[j] == 1), int(noise[j] == h[j] ** 2)) for j in interior]
    c = linmem.condition_number(K) if half else 1
    return terms + [pair for j in half for pair in ((impl.snr(h[j]) / c, 1 / c), (mpmath.sqrt(noise[j]) / c, h[j] / c))]


def _rms_ladder(ctx):
    """Every ladder key matrix with one nonzero column duplicated (two equal
    nonzero keys share h = P_jj in (0, 1/2]: some key inside (0, 1)), and a
    pair at h = 1/2 exactly (the unit threshold) beside a free key; the
    interior and h = 1/2 keys from the exact reference leverage."""
    rng = ctx.rng("rms-precise")
    cases = []
    for label, K in precise_keys(ctx) + precise_keys(ctx, unit=True):
        j = int(rng.choice(np.flatnonzero(np.any(K != 0, axis=0))))
        cases.append((label + f", column {j} duplicated", np.concatenate([K, K[:, j:j + 1]], axis=1)))
    cases.append(("a pair at h = 1/2 beside a free key", ensembles.rational_orthogonal(3, rng=rng)[:, [0, 0, 1]]))
    return [(label, (K, None, [j for j, x in enumerate(kit.leverage(K)) if 0 < x < 1],
                     [j for j, x in enumerate(kit.leverage(K)) if x == sympy.Rational(1, 2)]))
            for label, K in cases]


RMS_INPUTS = Inputs(
    ("K", "W0", "interior", "half"),
    st.tuples(repeated_key_matrices(), st.integers(1, 2), rng_seeds()).map(lambda c: (
        c[0], ensembles.rational_unit_vectors(c[1], c[0].shape[1], rng=np.random.default_rng(c[2]), scale=1), None, [])),
    _rms_ladder, float_key_cases().map(lambda c: Case((c.K, None, None, []), c.describe())),
    "exact: keys with a duplicate, powers by enumeration over random signs; mpmath: ill-conditioned, rank-deficient "
    "and unit keys with a duplicate, h = 1/2 exactly; float64: every key family, interior keys")


def mean_error_algebra(impl, M: int, r):
    """``(1/M) sum_j (1 - h_j) - (1 - r/M)`` in sympy (0 for the true per-key
    error): M - 1 free leverage scores, the last fixed by the trace identity
    ``sum_j h_j = r_K = r`` (recall.mean-error, cap.mean-error-at-two-d)."""
    hs = list(sympy.symbols(f"h1:{M}", positive=True))
    return sum(impl.expected_error(h) for h in hs + [r - sum(hs)]) / M - (1 - sympy.sympify(r) / M)


def mean_error_twice(impl, K, V):
    """(1/M) ||W_LS K - V||_F^2 for one value matrix or a batch, twice: against
    the formula and against 1 - r_K/M (recall.mean-error, cap.mean-error-at-two-d)."""
    R = _residuals(impl, K, V)
    q = np.sum(R * R, axis=(-2, -1)) / K.shape[1]
    return np.stack([q, q], axis=-1)


def _mean_error_claimed(impl, K):
    M = Fraction(K.shape[1]) if kit.is_exact(K) else K.shape[1]
    return np.array([impl.mean_expected_error(K), 1 - kit.rank(K) / M])


CLAIMS = [
    expectation(
        "recall.error",
        title="Expected squared error of least-squares recall at key j is 1 - h_j",
        statement=r"\mathbb{E}_V \|W_{\mathrm{LS}} k_j - v_j\|^2 = (1-h_j)^2 + (h_j - h_j^2) = 1 - h_j",
        source="000, App. D", assumptions=VALUE_ASSUMPTIONS,
        depends_on=("proj.coefficient-projector", "lev.range", "recall.decomposition", "recall.crosstalk-power"),
        keys=exact_key_matrices(max_count=5),
        quantity=lambda impl, K, V: np.sum(_residuals(impl, K, V) ** 2, axis=-2),
        claimed=lambda impl, K: impl.expected_error(impl.leverage_scores(K)),
        algebra=lambda impl: [("attenuation^2 + cross-talk power = 1 - h",
                               (_H - 1) ** 2 + impl.crosstalk_power(_H) - impl.expected_error(_H))],
        control=wrong("error 1 - h^2 in place of 1 - h", expected_error=lambda h: 1 - h * h),
    ),
    expectation(
        "recall.mean-error",
        title="Average expected error over the stored pairs is 1 - r_K/M",
        statement=r"\frac{1}{M}\mathbb{E}_V \|W_{\mathrm{LS}} K - V\|_F^2 = 1 - \frac{r_K}{M}",
        source="000, boxed (Measure the strength of recall); App. D", assumptions=VALUE_ASSUMPTIONS,
        depends_on=("recall.error",), keys=exact_key_matrices(max_count=5),
        quantity=mean_error_twice, claimed=_mean_error_claimed,
        algebra=lambda impl: [("mean of 1 - h_j with sum h_j = r is 1 - r/M",
                               mean_error_algebra(impl, 4, sympy.Symbol("r", positive=True)))],
        control=(wrong("1 - r_K/d in place of 1 - r_K/M", mean_expected_error=lambda K: (
            1 - linmem.numerical_rank(K) / (Fraction(K.shape[0]) if K.dtype == object else K.shape[0]))),
                 wrong("per-key error 1 - h_j^2", aimed_at=("algebra",), expected_error=lambda h: 1 - h * h)),
    ),
    identity(
        "cex.duplicated-keys",
        title="Duplicated keys: K = [e1, e1, e1, e2] has unequal leverage",
        statement=(r"K = [e_1, e_1, e_1, e_2]:\ h = (\tfrac13, \tfrac13, \tfrac13, 1),\ "
                   r"\mathrm{SNR}_{1,2,3} = \tfrac{1/9}{2/9} = \tfrac12,\ "
                   r"\mathbb{E}\,\mathrm{err} = (\tfrac23, \tfrac23, \tfrac23, 0),\ "
                   r"W_{\mathrm{LS}} e_1 = \tfrac13 (v_1 + v_2 + v_3)"),
        source="000, App. F; 'What the dimension-only estimate leaves out'",
        assumptions=("e1, e2 orthonormal (any embedding in R^d)", "V arbitrary"),
        depends_on=("proj.coefficient-projector", "lev.range", "recall.error", "recall.mean-error"),
        inputs=DUPLICATED_INPUTS, terms=_duplicated, scale=lambda e1, e2, V: 4 * (1 + norm(V)),
        control=wrong("SNR = h/(1+h) in place of h/(1-h)", snr=lambda h: h / (1 + h)),
    ),
    identity(
        "recall.decomposition",
        title="Least-squares recall at a stored key is attenuated signal plus cross-talk",
        statement=(r"W_{\mathrm{LS}} k_j = (VP)e_j = h_j v_j + n_j,\qquad "
                   r"n_j = \sum_{i \ne j} P_{ij} v_i"),
        source="000, 'Measure the strength of recall'; App. D",
        assumptions=("K any real d x M matrix (any rank)", "V any real p x M matrix (no assumption on the values)"),
        depends_on=("proj.coefficient-projector", "lev.range"),
        inputs=ANY_KEYS_BOTH_LADDERS, terms=_decomposition,
        control=wrong("signal v_j (unattenuated) in place of h_j v_j, the remainder called cross-talk",
                      recall_decomposition=lambda K, V: (V.copy(), V @ linmem.projectors(K)[0] - V)),
    ),
    _crosstalk_expectation(
        "recall.crosstalk-power",
        title="Cross-talk has mean zero and expected power h_j - h_j^2",
        statement=(r"\mathbb{E}_V\, n_j = 0,\qquad \mathbb{E}_V \|n_j\|^2 = "
                   r"\sum_{i \ne j}\sum_{l \ne j} P_{ij}P_{lj}\,\mathbb{E}_V[v_i^{\top} v_l] = "
                   r"\sum_{i \ne j} P_{ij}^2 = h_j - h_j^2"),
        source="000, App. D", depends_on=("recall.decomposition", "lev.column-energy"),
        keys=exact_key_matrices(max_count=5), zero_mean=_crosstalk,
        quantity=_crosstalk_power, claimed=lambda impl, K: impl.crosstalk_power(impl.leverage_scores(K)),
        algebra=_crosstalk_algebra,
        about="anisotropic unit values (directions not uniform), same key families",
        control=wrong("cross-talk power 1 - h (the error) in place of h - h^2", crosstalk_power=lambda h: 1 - h),
    ),
    _crosstalk_expectation(
        "recall.snr",
        title="Per-key SNR of least-squares recall is h_j/(1 - h_j) for 0 < h_j < 1",
        statement=(r"0 < h_j < 1:\quad \mathrm{SNR}_j = \frac{\|h_j v_j\|^2}{\mathbb{E}_V\|n_j\|^2} "
                   r"= \frac{h_j^2}{h_j - h_j^2} = \frac{h_j}{1-h_j},\qquad "
                   r"\mathbb{E}_V\Big\|\frac{n_j}{h_j}\Big\|^2 = \frac{1-h_j}{h_j} = \frac{1}{\mathrm{SNR}_j}"),
        source="000, 'Measure the strength of recall' (boxed); App. D",
        assumptions=(
            "defined for 0 < h_j < 1 only: keys with h_j = 0 (zero key) or h_j = 1 (exact recall, no "
            "cross-talk) are excluded from every SNR quantity (exact reference leverage in the "
            "enumeration, h within THRESHOLD * M * eps of 0 or 1 in float64)",
            "unit values make the signal power ||h_j v_j||^2 = h_j^2, so E||n_j/h_j||^2 = 1/SNR_j is the "
            "measured power ratio",
        ),
        depends_on=("recall.crosstalk-power",),
        keys=repeated_key_matrices(), quantity=_normalised_noise, finish=_snr_plot,
        claimed=lambda impl, K: np.array([1 / impl.snr(x) for x in impl.leverage_scores(K)[_interior(impl, K)]]),
        algebra=lambda impl: [
            ("signal power h^2 over cross-talk power h - h^2 is SNR", _H**2 / impl.crosstalk_power(_H) - impl.snr(_H)),
            ("E||n/h||^2 = (h - h^2)/h^2 is 1/SNR", impl.crosstalk_power(_H) / _H**2 - 1 / impl.snr(_H))],
        about="anisotropic unit values, same key families",
        control=wrong("SNR = h/(1+h) in place of h/(1-h)", snr=lambda h: h / (1 + h)),
    ),
    identity(
        "recall.rms-convention",
        title="Power SNR is the inverse square of the RMS interference-to-signal amplitude ratio",
        statement=(r"\mathrm{SNR}_j = \left(\frac{\sqrt{\mathbb{E}_V\|n_j\|^2}}{\|h_j v_j\|}\right)^{-2} "
                   r"= \left(\frac{\sqrt{h_j - h_j^2}}{h_j}\right)^{-2};\quad "
                   r"\mathrm{SNR}_j \ge 1 \iff \sqrt{\mathbb{E}_V\|n_j\|^2} \le \|h_j v_j\| "
                   r"\iff h_j \ge \tfrac12"),
        source="000, 'Measure the strength of recall'",
        assumptions=VALUE_ASSUMPTIONS + (
            "0 < h_j < 1 (keys at h = 0 or 1 excluded, as for the SNR)",
            "RMS interference amplitude sqrt(E||n_j||^2) = sqrt(sum_{i != j} P_ij^2); "
            "signal amplitude ||h_j v_j|| = h_j",
        ),
        depends_on=("recall.snr", "recall.crosstalk-power"),
        inputs=RMS_INPUTS, terms=_rms, scale=lambda K, *rest: max(K.shape), algebra=_rms_algebra,
        control=(
            wrong("amplitude ratio sqrt(h/(1-h)) reported as the power SNR", snr=lambda h: linmem.snr(h) ** 0.5,
                  not_applicable={"exact": "the exact family's interior keys (duplicated columns) have SNR 1 (h = 1/2), "
                                           "where the amplitude ratio equals the power SNR, or an SNR whose root is "
                                           "irrational (not exact: power); control 2 reaches the exact check"}),
            wrong("SNR = h (signal power over total power, not over the cross-talk)", aimed_at=("exact",),
                  snr=lambda h: h)),
    ),
]
