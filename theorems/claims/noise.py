"""Recall from perturbed queries (000, "Sensitivity to query perturbations",
App. G) and the counterexample that unit-norm keys need not have uniform
leverage (000, "What the dimension-only estimate leaves out").

The noise claims assume only that the query noise ``eta`` is independent of
keys and values, has mean zero and covariance ``tau^2 I_d``. The exact
evidence therefore enumerates finite noise designs with exactly those two
moments and nothing else in common with a Gaussian
(:func:`theorems.authoring.noise_design`), and recomputes their moments
exactly inside the checks; the Monte Carlo evidence uses Gaussian, uniform
and Laplace noise of variance ``tau^2`` per coordinate. Values follow 000's
assumptions: ``v_i = s_i w_i`` with fair signs and fixed exactly-unit
rational ``w_i`` (exact), or uniform on the sphere (Monte Carlo).
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from theorems.authoring import kit
from theorems.evidence import precise
from theorems.evidence._common import IMPLEMENTATION_ERRORS
from theorems.core.model import Check, EvidenceKind
from theorems.core.residuals import at_most
from theorems.authoring.strategies import (
    CONTINUOUS_NOISE_KINDS, Case, Inputs, square_root, exact_key_matrices, exact_keys_and_values,
    exact_unit_key_matrices, exact_value_matrices, integer_matrices, near_parallel_key_matrix, precise_keys, rng_seeds)
from theorems.authoring.templates import counterexample, design_expectation, identity, keys_and_directions, montecarlo_keys, wrong
from typing import Sequence
from linmem import ensembles
import functools
import itertools
import math

__all__ = ["CLAIMS"]


# --- this module's inputs (single-use input families, moved from theorems.authoring.strategies) ---


#: The finite noise laws of :func:`noise_design`.
NOISE_DESIGN_KINDS = ("rademacher", "skewed", "coordinate")


@functools.lru_cache(maxsize=None)
def noise_design(kind: str, d: int, tau) -> kit.Law:
    """A finite law of query noise in R^d with exactly ``E eta = 0`` and
    ``Cov eta = tau^2 I_d`` and nothing else in common with a Gaussian; the
    noise columns are ``law.outcomes[0]``, shape (N, d, 1):

    * ``rademacher``: ``eta = tau s``, ``s`` uniform on ``{-1, +1}^d``;
    * ``skewed``: i.i.d. coordinates ``2 tau`` (probability 1/5) or ``-tau/2``
      (probability 4/5), third moment not zero;
    * ``coordinate``: ``±tau sqrt(d) e_i`` uniformly (2d outcomes),
      coordinates uncorrelated but dependent; d a square (rational sqrt(d)).

    >>> law = noise_design("skewed", 1, Fraction(1, 2))
    >>> [law.mean(law.outcomes[0] ** k).item() for k in (1, 2, 3)]
    [Fraction(0, 1), Fraction(1, 4), Fraction(3, 16)]
    """
    if not (isinstance(d, int) and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if kind == "coordinate":
        root = square_root(d, "signed-coordinate")
        return kit.law([s * root * tau * kit.eye(d, np.zeros((1, 1), dtype=object))[:, i:i + 1]
                        for i in range(d) for s in (1, -1)], label="signed coordinate")
    levels = {"rademacher": ((-1, Fraction(1, 2)), (1, Fraction(1, 2))),
              "skewed": ((2, Fraction(1, 5)), (Fraction(-1, 2), Fraction(4, 5)))}.get(kind)
    if levels is None:
        raise ValueError(f"kind must be one of {NOISE_DESIGN_KINDS}, got {kind!r}")
    outcomes = list(itertools.product(levels, repeat=d))
    return kit.Law([np.array([[[tau * x] for x, _ in o] for o in outcomes], dtype=object).reshape(-1, d, 1)],
                   [math.prod(p for _, p in o) for o in outcomes], kind)


def near_parallel_gain(t, M):
    """``||K^+||_F^2`` of :func:`near_parallel_key_matrix` in closed form (any
    number system, sympy symbols included): ``(1 + t^2)^2 / (2 t^2) + M - 2``.

    >>> near_parallel_gain(Fraction(1, 2), 3)
    Fraction(33, 8)
    """
    return (1 + t * t) ** 2 / (2 * t * t) + (M - 2)


def near_parallel_smallest_sq(t):
    """``s_min^2 = 1 - cos(theta) = 2 t^2 / (1 + t^2)`` of
    :func:`near_parallel_key_matrix` for ``0 < t <= 1``."""
    return 2 * t * t / (1 + t * t)


@st.composite
def _exact_near_parallel(draw, taus):
    t = draw(st.one_of(
        st.integers(1, 10**6).map(lambda n: Fraction(1, n)),
        st.integers(1, 40).map(lambda k: Fraction(1, 10**k)),
        st.tuples(st.integers(1, 9), st.integers(1, 9)).map(lambda ab: Fraction(min(ab), max(ab))),
    ))
    d = draw(st.integers(2, 4))
    M = draw(st.integers(2, d))
    R = ensembles.rational_orthogonal(d, rng=np.random.default_rng(draw(rng_seeds())))
    return near_parallel_key_matrix(t, d, M, R), draw(exact_value_matrices(M)), t, draw(st.sampled_from(taus))


def _precise_near_parallel(stream: str, tau):
    def cases(ctx):
        rng = ctx.rng(stream)
        out = []
        for k, d, M in ((10, 2, 2), (20, 3, 3), (30, 4, 3), (40, 3, 2)):
            t = Fraction(1, 10**k)
            K = near_parallel_key_matrix(t, d, M, ensembles.rational_orthogonal(d, rng=rng))
            # s_min = sqrt(2) t / sqrt(1 + t^2), i.e. 1.41e-k to many digits
            out.append((f"s_min = 1.41e-{k}, {d}x{M} unit keys", (K, kit.exact(rng.integers(-3, 4, size=(2, M))), t,
                                                                   tau)))
        return out

    return cases


@st.composite
def _float_near_parallel(draw, taus):
    d = draw(st.integers(2, 8))
    M, p = draw(st.integers(2, d)), draw(st.integers(1, 5))
    t, tau = 10.0 ** -draw(st.floats(0, 12)), draw(st.sampled_from(taus))
    seed = draw(rng_seeds())
    rng = np.random.default_rng(seed)
    R, _ = np.linalg.qr(rng.standard_normal((d, d)))
    K = near_parallel_key_matrix(t, d, M, R).astype(float)
    return Case((K, rng.standard_normal((p, M)), t, tau), {"d": d, "M": M, "p": p, "t": t, "tau": tau, "seed": seed})


def near_parallel_queries(taus: Sequence, *, float_taus: Sequence[float] = (0.1, 1.0, 3.0),
                          stream: str = "near-parallel keys") -> Inputs:
    """``(K, V, t, tau)``: :func:`near_parallel_key_matrix` keys (d <= 4,
    ``t`` from 1/10^6 and 1/10^40 to 1, any rational rotation; exact), their
    values and a noise level, for claims about a small singular value (noise
    gain, conditioning). Exact: integer values, ``tau`` from ``taus``.
    Ladder: ``s_min`` 1.4e-10 to 1.4e-40 in 2x2, 3x3, 4x3, 3x2 keys (rotations
    from ``ctx.rng(stream)``), integer values, ``tau = taus[0]``. Float: d <= 8,
    ``t`` down to 1e-12, a random orthogonal rotation, Gaussian values,
    ``tau`` from ``float_taus``."""
    return Inputs(("K", "V", "t", "tau"), _exact_near_parallel(tuple(taus)), _precise_near_parallel(stream, taus[0]),
                  _float_near_parallel(tuple(float_taus)),
                  "two unit keys at tan(theta/2) = t plus orthonormal others: t to 1e-40 (exact), "
                  "s_min 1.4e-10 to 1.4e-40 (mpmath), t to 1e-12 (float64)")


def continuous_noise(kind: str, rng: np.random.Generator, shape, tau: float) -> np.ndarray:
    """Independent coordinates of mean 0 and variance ``tau^2`` (so covariance
    ``tau^2 I``): ``gaussian`` N(0, tau^2), ``uniform`` on ``[-sqrt(3) tau,
    sqrt(3) tau]``, ``laplace`` with scale ``tau / sqrt(2)``; the Monte Carlo
    counterpart of :func:`noise_design`.

    >>> x = continuous_noise("laplace", np.random.default_rng(0), (200_000,), 0.5)
    >>> round(float(np.var(x)), 2)
    0.25
    """
    if kind == "gaussian":
        return tau * rng.standard_normal(shape)
    if kind == "uniform":
        half_width = math.sqrt(3) * tau  # variance (sqrt(3) tau)^2 / 3 = tau^2
        return rng.uniform(-half_width, half_width, shape)
    if kind == "laplace":
        return rng.laplace(0.0, tau / math.sqrt(2), shape)  # variance 2 b^2 = tau^2
    raise ValueError(f"kind must be one of {CONTINUOUS_NOISE_KINDS}, got {kind!r}")


@functools.lru_cache(maxsize=None)
def noise_design_defect(kind: str, d: int, tau) -> Fraction:
    """Exact ``||E eta||^2 + ||E eta eta^T - tau^2 I_d||_F^2`` of
    :func:`noise_design` ``(kind, d, tau)``, recomputed from its outcomes and
    weights: zero by construction, so a check that averages over the design
    can certify the two moments it relies on (cached per design).

    >>> noise_design_defect("skewed", 2, Fraction(1, 3))
    Fraction(0, 1)
    """
    law = noise_design(kind, d, tau)
    eta = law.outcomes[0]
    second = law.mean(eta @ np.swapaxes(eta, -1, -2))
    return Fraction(kit.sq(law.mean(eta)) + kit.sq(second - tau**2 * kit.eye(d, eta)))


#: Noise levels of the exact evidence (none equal to 1, so that a tau / tau^2
#: mix-up cannot hide).
EXACT_TAUS = (Fraction(1, 2), Fraction(3, 2), Fraction(2), Fraction(1, 3))

#: Noise level of the Monte Carlo evidence.
MC_TAU = 0.6

#: Dimension of the signed-coordinate design (sqrt(d) must be rational).
COORDINATE_DIM = 4

NOISE_ASSUMPTIONS = (
    "query noise eta independent of K and V, E eta = 0, Cov eta = tau^2 I_d; no other "
    "property of its distribution is used",
    "the intended output of the noisy query is still v_j; the query is not renormalised",
)

VALUE_ASSUMPTIONS = (
    "values independent of each other and of K and eta, zero-mean, unit-norm (E[V^T V] = I_M)",
    "K fixed; keys of any norm and rank (unit norm is not needed for these identities)",
)


# --- finite noise designs (exact) -------------------------------------------------


class _Query(NamedTuple):
    """A noisy query: keys K, noise level tau, and a fixed store W with its
    values V, or ``W = None`` for the least-squares store of random values.
    ``design`` names the exact noise design, ``noises`` the kinds of
    :func:`theorems.authoring.continuous_noise` of the Monte Carlo."""

    K: Any
    tau: Any
    W: Any = None
    V: Any = None
    design: tuple = ()
    noises: tuple = ()


def _noisy_errors(impl, q: _Query, *outcomes):
    """||W (k_j + eta) - v_j||^2 for every key j, outcome and noise: outcomes
    ``(eta, ...)`` for a fixed store, ``(V, eta, ...)`` for W_LS = V K^+ of
    random values V (:func:`theorems.authoring.kit.store` makes a batch of stores one
    call); one noise in the exact laws, one per noise law in the Monte Carlo."""
    V, etas = (q.V, outcomes) if q.W is not None else (outcomes[0], outcomes[1:])
    W = q.W if q.W is not None else kit.store(impl.least_squares_store, q.K, V)
    fit = W @ q.K - V  # R = (W k_j - v_j) + W eta: over a product law, each factor's part once
    return np.concatenate([np.sum(R * R, axis=-2) for R in (fit + W @ eta for eta in etas)], axis=-1)


def _claimed_error(impl, q: _Query):
    one = (impl.query_noise_error(q.K, tau=q.tau) if q.W is None
           else impl.fixed_store_noise_error(q.W, q.K, q.V, tau=q.tau))
    return np.concatenate([one] * max(1, len(q.noises)))


@st.composite
def _noise_inputs(draw):
    """(K, V, W, W0, tau): any keys (d <= 3, M <= 5, rank-deficient and
    duplicated included), integer values V, a store W that is an arbitrary
    integer p x 4 matrix (its first d columns are used) or None for the
    least-squares store of (K, V), and fixed unit rational value directions W0
    for the random values v_i = s_i w_i."""
    K, V = draw(exact_keys_and_values(max_dim=3, max_count=5))
    W = draw(integer_matrices(V.shape[0], COORDINATE_DIM)) if draw(st.booleans()) else None
    seed = draw(rng_seeds())
    W0 = kit.sign_values(draw(st.integers(1, 3)), K.shape[1], np.random.default_rng(seed))
    return K, V, W, W0, draw(st.sampled_from(EXACT_TAUS))


def _describe(case):
    K, V, W, W0, tau = case
    return {"K": K, "V": V, "W": "least-squares store" if W is None else W, "W0": W0, "tau": tau}


def _noise_laws(case, names, fixed, ls):
    """The exact laws of a case: for each noise design, the fixed store (the
    drawn W, or W_LS of the drawn V: an input, not under test) over the noise,
    and W_LS over the joint law of sign values and noise; keys padded with
    zero rows to the design's dimension (the signed-coordinate design: still any keys)."""
    K, V, W, W0, tau = case
    out = []
    for name in names:
        pad = COORDINATE_DIM - K.shape[0] if name == "coordinate" else 0
        Kd = np.pad(K, ((0, pad), (0, 0)), constant_values=Fraction(0))
        design = (name, Kd.shape[0], tau)
        if fixed:
            Wd = linmem.least_squares_store(Kd, V) if W is None else W[:, : Kd.shape[0]]
            out.append((_Query(Kd, tau, Wd, V, design), noise_design(*design)))
        if ls:
            out.append((_Query(Kd, tau, design=design), kit.sign_law(W0) * noise_design(*design)))
    return out


# --- Monte Carlo (continuous noise) -------------------------------------------------------


def _mc_keys(rng):
    """templates.montecarlo_keys (M > d spherical, M < d, rank-deficient scaled
    to non-unit norm, duplicated) and ill-conditioned keys (condition 1e3)."""
    K = montecarlo_keys(rng)
    return K[:2] + [K[2] * 1.7, K[3], linmem.ensembles.controlled_spectrum(3, 4, cond=1e3, rng=rng)]


def _mc_queries(rng, noises, fixed, ls):
    """Monte Carlo queries at tau = MC_TAU for each noise law: fixed stores of
    three kinds (arbitrary, least-squares, outer-product) on the first three
    keys, and W_LS of spherical values on every key matrix."""
    keys = _mc_keys(rng)
    out = []
    if fixed:
        V1, V2, V3 = (linmem.ensembles.gaussian_vectors(p, K.shape[1], rng=rng) for p, K in zip((3, 2, 4), keys))
        stores = [(rng.standard_normal((3, keys[0].shape[0])), keys[0], V1),
                  (linmem.least_squares_store(keys[1], V2), keys[1], V2),
                  (linmem.outer_product_store(keys[2], V3), keys[2], V3)]
        out += [_Query(K, MC_TAU, W, V, noises=noises) for W, K, V in stores]
    if ls:
        out += [_Query(K, MC_TAU, noises=noises) for K in keys]
    return out


def _draw_noisy(impl, q: _Query, rng, size):
    """Noise independent per key (and spherical values in R^3 for W_LS)."""
    V = () if q.W is not None else (kit.spherical_batch(rng, size, 3, q.K.shape[1]),)
    return V + tuple(continuous_noise(kind, rng, (size,) + q.K.shape, q.tau) for kind in q.noises)


def _noise_claim(id, *, noises, mc_label, designs=("rademacher",), fixed=True, ls=True, **fields):
    """A noise claim on the fixed-store formula, the least-squares one or both: the exact enumeration over the
    finite noise ``designs`` (certifying their moments), the Monte Carlo over the continuous ``noises``."""
    return design_expectation(
        id, cases=_noise_inputs(), law=partial(_noise_laws, names=designs, fixed=fixed, ls=ls), quantity=_noisy_errors,
        claimed=_claimed_error, describe=_describe, hypotheses=lambda q, law: noise_design_defect(*q.design),
        mc_cases=partial(_mc_queries, noises=noises, fixed=fixed, ls=ls), mc_draw=_draw_noisy,
        mc_stream="noise-mc-keys", mc_label=f"{mc_label}, tau = {MC_TAU}", **fields)


def _with_noise_term(term):
    """Wrong fixed-store formula: ||W k_j - v_j||^2 (linmem's at tau = 0) plus ``term(W, K, tau)``."""
    return lambda W, K, V, *, tau: linmem.fixed_store_noise_error(W, K, V, tau=0 * tau) + term(W, K, tau)


def _with_ls_noise_term(term):
    """Wrong least-squares formula: 1 - h_j plus ``term(K, tau)``."""
    return lambda K, *, tau: linmem.expected_error(linmem.leverage_scores(K)) + term(K, tau)


# --- cex.unit-norm-not-uniform-leverage ------------------------------------------------------


def _nonuniform_full_rank(impl, K) -> bool:
    """M > d, distinct columns, full row rank, yet not every h_j = d/M."""
    d, M = K.shape
    if M <= d or len({tuple(K[:, j]) for j in range(M)}) < M:
        return False
    try:
        h = impl.leverage_scores(K)
    except IMPLEMENTATION_ERRORS:
        return False
    return kit.rank(K) == d and any(x != Fraction(d, M) for x in h)


def _unit_norm_verify(impl, K):
    h = impl.leverage_scores(K)
    spread = max(h) - min(h)
    return kit.unit_columns(K) and _nonuniform_full_rank(impl, K) and spread > 0, spread


def _leverage_from_norms(K):
    """Wrong: leverage read off the key norms, h_j = ||k_j||^2 r_K / M (exact keys stay exact)."""
    return np.sum(K * K, axis=0) * Fraction(linmem.numerical_rank(K), K.shape[1])


# --- noise.pinv-energy ----------------------------------------------------------------------


def _store_energy(impl, case, V):
    """||V K^+||_F^2 of every value matrix of the batch."""
    W = kit.store(impl.least_squares_store, case[0], V)
    return np.sum(W * W, axis=(-2, -1))


def _pinv_energy_precise(ctx):
    """||K^+||_F^2 = sum s^-2 at condition up to 1e20 against the exact value."""
    cases = [(label, (K, kit.pinv_energy(K))) for label, K in precise_keys(ctx)]

    def residual(case):
        Km, ref = kit.to_mp(case)
        err = max(abs(ctx.impl.pinv_energy(Km) - ref), abs(np.sum(ctx.impl.pinv(Km) ** 2) - ref))
        return err, kit.scale(Km) * ref

    return precise.check(ctx, cases, residual)


def _flat_spectrum_energy(K):
    """Wrong: the energy of K^+ as if the spectrum were flat, r_K^2 / ||K||_F^2."""
    r = linmem.numerical_rank(K)
    total = np.sum(K * K)
    return Fraction(r * r) / total if kit.is_exact(total) else r * r / total  # exact keys stay exact


# --- noise.small-singular-unstable -----------------------------------------------------------------------


def _small_singular_algebra(impl):
    """sympy, symbolic in t: the 2-key block fits exactly (K^-1 K = I), its
    noise gain is the closed form, equals s_min^-2 + s_max^-2, and grows like
    1/(2 t^2) without bound as t -> 0 while s_min -> 0."""
    t = sympy.Symbol("t", positive=True)
    c, s = (1 - t**2) / (1 + t**2), 2 * t / (1 + t**2)
    K = sympy.Matrix([[1, c], [0, s]])
    Kinv = K.inv()
    gain = sum(x**2 for x in Kinv)
    eig = sorted(sympy.Matrix(K.T * K).eigenvals(), key=lambda e: sympy.limit(e, t, 0))
    return [
        ("keys exactly unit", sum(x**2 for x in K[:, 1]) - 1),
        ("exact fit: K^-1 K = I", sum(sympy.simplify(x) ** 2 for x in (Kinv * K - sympy.eye(2)))),
        ("||K^-1||_F^2 = (1+t^2)^2/(2t^2)", gain - near_parallel_gain(t, 2)),
        ("s_min^2 = 2t^2/(1+t^2)", eig[0] - near_parallel_smallest_sq(t)),
        ("gain = s_min^-2 + s_max^-2", gain - 1 / eig[0] - 1 / eig[1]),
        ("t^2 gain -> 1/2 as t -> 0 (gain unbounded)", sympy.limit(t**2 * gain, t, 0) - sympy.Rational(1, 2)),
        ("s_min -> 0 as t -> 0", sympy.limit(eig[0], t, 0)),
    ]


def _small_singular(impl, K, V, t, tau):
    """Fit, h = 1, the closed-form gain, the noisy error and the bound
    gain >= s_min^-2, each in units of the gain (its natural size)."""
    gain = near_parallel_gain(t, K.shape[1])
    energy = impl.pinv_energy(K)
    h = impl.leverage_scores(K)
    return [(impl.least_squares_store(K, V) @ K * gain, V * gain), (h * gain, (h * 0 + 1) * gain), (energy, gain),
            (impl.query_noise_error(K, tau=tau) / (tau * tau), h * 0 + gain),
            at_most(1 / near_parallel_smallest_sq(t), energy)]


CLAIMS = [
    counterexample(
        "cex.unit-norm-not-uniform-leverage",
        title="Unit-norm keys do not make the leverage scores uniform, even distinct keys of full row rank",
        statement=(r"\exists K = [k_1,\dots,k_M],\ \|k_i\| = 1,\ k_i \text{ distinct},\ M > d,\ "
                   r"\operatorname{rank} K = d:\ h_j \ne \tfrac{d}{M} \text{ for some } j"),
        source="000, 'What the dimension-only estimate leaves out' (unequal recall across keys)",
        assumptions=("exactly unit rational keys", "the witness excludes duplicates, so it is not the "
                     "duplicated-keys example again"),
        depends_on=("lev.range", "proj.trace-is-rank", "cex.duplicated-keys"),
        search=exact_unit_key_matrices(max_dim=3, max_count=5), found=_nonuniform_full_rank, verify=_unit_norm_verify,
        describe=lambda K: {"K": K, "leverage": linmem.leverage_scores(K)},
        about="minimal witness found by search, unit norms and leverage verified exactly",
        how="found by a Hypothesis search over exactly-unit rational keys (distinct, M > d, full row rank), shrunk",
        control=wrong("leverage read off the key norms, h_j = ||k_j||^2 r_K / M", leverage_scores=_leverage_from_norms),
    ),
    _noise_claim(
        "noise.fixed-store",
        title="A fixed store's error at a noisy key adds tau^2 ||W||_F^2, whatever the noise distribution",
        statement=(r"\mathbb{E}_\eta \|W(k_j + \eta) - v_j\|^2 = \|W k_j - v_j\|^2 + \tau^2 \|W\|_F^2,"
                   r"\qquad \mathbb{E}\eta = 0,\ \operatorname{Cov}\eta = \tau^2 I_d"),
        source="000, App. G; 'Sensitivity to query perturbations'",
        assumptions=NOISE_ASSUMPTIONS + ("W, K, V fixed and arbitrary (any store, any keys)",),
        noises=("gaussian", "uniform"), ls=False,
        about="exact expectation over Rademacher noise tau s; arbitrary integer and least-squares stores",
        mc_label="per-key ||W(k_j + eta) - v_j||^2, Gaussian and uniform noise",
        mc_about="Gaussian and uniform noise; arbitrary, least-squares and outer-product stores",
        control=wrong("noise of total variance tau^2 (covariance tau^2 I / d)",
                      fixed_store_noise_error=_with_noise_term(lambda W, K, tau: tau * tau * np.sum(W * W)
                                                               / K.shape[0])),
    ),
    design_expectation(
        "noise.pinv-energy",
        title="Over random values the least-squares store's energy is ||K^+||_F^2 = sum of s_l^-2",
        statement=(r"\mathbb{E}_V \|V K^{+}\|_F^2 = \|K^{+}\|_F^2 = \sum_{\ell=1}^{r_K} \sigma_{K,\ell}^{-2}"),
        source="000, App. G",
        assumptions=VALUE_ASSUMPTIONS,
        cases=keys_and_directions(exact_key_matrices(max_count=5)), law=lambda case: kit.sign_law(case[1]),
        quantity=lambda impl, case, V: np.stack([_store_energy(impl, case, V)] * 2, axis=-1),
        claimed=lambda impl, case: [impl.pinv_energy(case[0]), kit.pinv_energy(case[0])],
        describe=lambda case: {"K": case[0], "W0": case[1]},
        about="exact expectation over random signs; sum s^-2 from the Gram characteristic polynomial",
        mc_cases=lambda rng: [(K, None) for K in _mc_keys(rng)], mc_stream="noise-mc-keys",
        mc_draw=lambda impl, case, rng, size: (kit.spherical_batch(rng, size, 3, case[0].shape[1]),),
        mc_quantity=_store_energy, mc_claimed=lambda impl, case: impl.pinv_energy(case[0]),
        mc_label="||V K^+||_F^2, spherical values in R^3",
        mc_about="spherical values; M > d, M < d, rank-deficient, duplicated, condition 1e3",
        extra_checks=(Check("ladder", EvidenceKind.PRECISE, _pinv_energy_precise,
                            "mpmath: ||K^+||_F^2 against the exact sum s^-2, condition up to 1e20, rank-deficient"),),
        # keys with singular values 1 and 2, at every seed: the flat-spectrum shortcut is exact on
        # keys of one singular value (rank 1, orthogonal columns), all the search drew at 1 of 20 quick seeds
        examples=((kit.exact([[1, 0], [0, 2]]), kit.exact([[1, 1]])),),
        control=wrong("flat-spectrum shortcut r_K^2 / ||K||_F^2", pinv_energy=_flat_spectrum_energy),
    ),
    _noise_claim(
        "noise.ls-total",
        title="Least-squares recall at a noisy key: expected error 1 - h_j + tau^2 sum s_l^-2",
        statement=(r"\mathbb{E}_{V,\eta}\|W_{\mathrm{LS}}(k_j+\eta) - v_j\|^2 = 1 - h_j + "
                   r"\tau^2 \sum_{\ell=1}^{r_K} \sigma_{K,\ell}^{-2}"),
        source="000, 'Sensitivity to query perturbations' (boxed); App. G",
        assumptions=VALUE_ASSUMPTIONS + NOISE_ASSUMPTIONS,
        depends_on=("noise.fixed-store", "noise.pinv-energy", "recall.error"),
        noises=("gaussian", "uniform"), fixed=False,
        about="exact joint expectation over value signs and Rademacher noise",
        mc_label="per-key ||W_LS(k_j + eta) - v_j||^2, spherical values, Gaussian and uniform noise",
        control=wrong("noise gain sum s^2 = ||K||_F^2 in place of sum s^-2",
                      query_noise_error=_with_ls_noise_term(lambda K, tau: tau * tau * np.sum(K * K))),
    ),
    _noise_claim(
        "noise.no-gaussian-needed",
        title="Both noise formulas hold for any noise with mean zero and covariance tau^2 I",
        statement=(r"\text{for every } \eta \text{ with } \mathbb{E}\eta = 0,\ \operatorname{Cov}\eta = "
                   r"\tau^2 I_d:\ \mathbb{E}_\eta\|W(k_j+\eta)-v_j\|^2 = \|Wk_j - v_j\|^2 + \tau^2\|W\|_F^2,"
                   r"\ \mathbb{E}_{V,\eta}\|W_{\mathrm{LS}}(k_j+\eta)-v_j\|^2 = 1 - h_j + "
                   r"\tau^2\sum_\ell \sigma_{K,\ell}^{-2}"),
        source="000, App. G (no Gaussian assumption is needed)",
        assumptions=NOISE_ASSUMPTIONS + VALUE_ASSUMPTIONS[:1] + (
            "exact designs: Rademacher, skewed two-point (nonzero third moment), signed coordinate "
            "(dependent coordinates); Monte Carlo: uniform and Laplace",),
        depends_on=("noise.fixed-store", "noise.ls-total"),
        designs=NOISE_DESIGN_KINDS, noises=("uniform", "laplace"),
        about="exact expectation over three non-Gaussian designs, both formulas",
        mc_label="both noise formulas, uniform and Laplace noise",
        control=wrong(
            "tau in place of tau^2 in both formulas",
            fixed_store_noise_error=_with_noise_term(lambda W, K, tau: tau * np.sum(W * W)),
            query_noise_error=_with_ls_noise_term(lambda K, tau: tau * linmem.pinv_energy(K))),
    ),
    identity(
        "noise.small-singular-unstable",
        title="An exact fit with a small key singular value amplifies query noise without bound",
        statement=(r"M \le d \text{ independent unit keys: } W_{\mathrm{LS}}K = V,\ h_j = 1,\ "
                   r"\mathbb{E}\|W_{\mathrm{LS}}(k_j+\eta)-v_j\|^2 = \tau^2\sum_\ell\sigma_{K,\ell}^{-2} "
                   r"\ge \tau^2 \sigma_{\min}^{-2} \to \infty \ (\sigma_{\min} \to 0)"),
        source="000, 'Sensitivity to query perturbations'",
        assumptions=(
            "keys: two unit keys at angle theta with tan(theta/2) = t (s_min^2 = 2t^2/(1+t^2)) plus "
            "orthonormal others, M <= d, rotated; exactly unit rationals for the exact evidence",
            "values arbitrary; the noise term is the expectation of noise.ls-total with h_j = 1",
        ),
        depends_on=("noise.ls-total", "ls.independent-keys-exact", "lev.one-means-exact"),
        inputs=near_parallel_queries(EXACT_TAUS, stream="small-singular-precise"), terms=_small_singular,
        algebra=_small_singular_algebra,
        scale=lambda K, V, t, tau: kit.scale(K, V) * near_parallel_gain(t, K.shape[1]),
        control=wrong("flat-spectrum noise gain r_K^2 / ||K||_F^2 (bounded for unit keys)",
                      pinv_energy=_flat_spectrum_energy,
                      query_noise_error=_with_ls_noise_term(lambda K, tau: tau * tau * _flat_spectrum_energy(K))),
    ),
]
