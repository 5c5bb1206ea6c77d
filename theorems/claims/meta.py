"""Metamorphic relations (ours): what a positive scaling, an orthogonal change
of basis of the keys and a permutation of the pairs do to linmem's answers.

Every relation here follows from the definitions in one line (``(cK)^+ =
K^+ / c``; ``(R K Pi)^+ = Pi^T K^+ R^T`` for orthogonal ``R`` and a permutation
``Pi``), so a failure is a numerical defect of the implementation at that
scale or basis, never a question of mathematics: these claims are the
witnesses of issue 24. Each input is a base family of keys (and values)
extended by a factor ``c``, a permutation matrix ``Pi`` and an orthogonal
``R``: exactly rational ones (Cayley transforms; factors ``10^{+-30}``,
``7/3``, ``2/9``) for the exact check, the same on the mpmath ladder, and
Haar-orthogonal ``R`` with ``c`` from ``10^{-300}`` to ``10^{300}`` (where
the relation's figures are representable) in float64.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from theorems.authoring import kit
from theorems.authoring.strategies import Case, Inputs, keys, keys_and_values
from theorems.authoring.templates import identity, wrong

__all__ = ["CLAIMS"]

#: Exact factors: any positive rational, here far from 1 both ways. (10^+-30,
#: not 10^+-150: a wrong variant's exact residual grows like c^8, and the
#: exact check reports its figure as a float, which overflows beyond 1e308.)
EXACT_FACTORS = (Fraction(10**30), Fraction(1, 10**30), Fraction(7, 3), Fraction(2, 9))
#: float64 factors, per relation: as wide as the relation's figures stay
#: representable for the base family (condition up to 1e12).
WIDE_FLOAT_EXPONENTS = (-300, -150, -9, 0, 9, 150, 300)
STORE_FLOAT_EXPONENTS = (-150, -9, 0, 9, 150)  # W_OP and the ridge c^2 stay representable
#: Factors at which ||K^+||_F^2 / c^2 is compared (it must stay below 1e308).
ENERGY_RANGE = (1e-100, 1e100)
#: The query-noise level of the noise relations (exact 1/2 in every number system).
TAU = Fraction(1, 2)


def _exact_transform(M: int, d: int, seed: int, factor: Fraction) -> tuple:
    rng = np.random.default_rng(seed)
    Pm = kit.exact(np.eye(M, dtype=int)[:, rng.permutation(M)])
    R = ensembles.rational_orthogonal(d, rng=rng, scale=1)
    return factor, Pm, kit.exact(R)


def _float_transform(M: int, d: int, seed: int, exponent: int) -> tuple:
    rng = np.random.default_rng(seed)
    Pm = np.eye(M)[:, rng.permutation(M)]
    R, T = np.linalg.qr(rng.standard_normal((d, d)))
    return 10.0**exponent, Pm, R * np.sign(np.diagonal(T))


def transformed(base: Inputs, exponents: tuple[int, ...]) -> Inputs:
    """``base``'s argument tuples followed by ``(c, Pi, R)``: a factor, an
    M x M permutation matrix and a d x d orthogonal matrix, exact rationals
    in the exact and ladder checks, float64 (``c = 10^e``, ``e`` in
    ``exponents``) in the float check."""
    seeds = st.integers(0, 2**32 - 1)

    def exact_args(args):
        K = args[0]
        return st.tuples(seeds, st.sampled_from(EXACT_FACTORS)).map(
            lambda t: args + _exact_transform(K.shape[1], K.shape[0], *t))

    def ladder(ctx):
        rng = ctx.rng("meta-transform")
        out = []
        for i, (label, args) in enumerate(base.precise(ctx)):
            factor = EXACT_FACTORS[i % 2]
            K = args[0]
            out.append((f"{label}, c = {float(factor):g}",
                        args + _exact_transform(K.shape[1], K.shape[0], int(rng.integers(2**32)), factor)))
        return out

    def float_case(case: Case):
        K = case.args[0]
        return st.tuples(seeds, st.sampled_from(exponents)).map(
            lambda t: Case(case.args + _float_transform(K.shape[1], K.shape[0], *t),
                           {**(case.recipe if isinstance(case.recipe, dict) else {"base": case.recipe}),
                            "transform seed": t[0], "factor": f"1e{t[1]}"}))

    return Inputs(base.names + ("c", "Pi", "R"), base.exact.flatmap(exact_args), ladder,
                  base.floats.flatmap(float_case),
                  f"{base.about}; times c (exact 10^+-30, 7/3, 2/9; float 1e{min(exponents)}..1e{max(exponents)}), "
                  "pairs permuted, keys rotated")


def _stores(impl, K, V, c, Pm, R):
    K2, V2 = c * (R @ K) @ Pm, c * V @ Pm
    W = impl.least_squares_store(K, V)
    return [(impl.least_squares_store(K2, V2), W @ R.T),
            (impl.outer_product_store(K2, V @ Pm) / c, impl.outer_product_store(K, V) @ R.T),
            (impl.ridge_store(K2, V2, ridge=c * c), impl.ridge_store(K, V, ridge=1) @ R.T),
            # ridge / c^2 is what counts: a ridge of c at scale c is one of 1/c at scale 1
            (impl.ridge_store(K2, V2, ridge=c), impl.ridge_store(K, V, ridge=1 / c) @ R.T)]


def _projectors(impl, K, c, Pm, R):
    K2 = c * (R @ K) @ Pm
    P, Q = impl.projectors(K)
    P2, Q2 = impl.projectors(K2)
    return [(P2, Pm.T @ P @ Pm), (Q2, R @ Q @ R.T), (impl.leverage_scores(K2), Pm.T @ impl.leverage_scores(K)),
            (impl.mean_expected_error(K2), impl.mean_expected_error(K))]


def _noise(impl, K, V, c, Pm, R):
    K2 = c * (R @ K) @ Pm
    tau = TAU if kit.is_exact(K) else type(c)(TAU.numerator) / TAU.denominator
    W = impl.least_squares_store(K, V)
    # ||K^+||_F^2 / c^2 itself leaves float64's range beyond about 1e+-100
    # for the base family; tau / s_l and tau ||W|| are scale-free at any c.
    energy = [(impl.pinv_energy(K2) * c * c, impl.pinv_energy(K))] if ENERGY_RANGE[0] <= c <= ENERGY_RANGE[1] else []
    terms = energy + [(impl.query_noise_error(K2, tau=c * tau), Pm.T @ impl.query_noise_error(K, tau=tau))]
    with np.errstate(over="ignore"):
        W2 = W @ R.T / c  # the store for the scaled keys; beyond float64 for c = 1e-300 and a large W
    if W2.dtype == object or np.all(np.isfinite(W2)):
        terms.append((impl.fixed_store_noise_error(W2, K2, V @ Pm, tau=c * tau),
                      Pm.T @ impl.fixed_store_noise_error(W, K, V, tau=tau)))
    return terms


def _consistency(impl, K, V, c, Pm, R):
    K2, V2 = c * (R @ K) @ Pm, V @ Pm / c
    res, res2 = impl.consistency_residual(K, V), impl.consistency_residual(K2, V2)
    # exact rationals give the squared residual (zero iff consistent)
    scaled = res2 * c * c if kit.is_exact(K) else res2 * c
    return [(np.array([int(impl.is_consistent(K2, V2))]), np.array([int(impl.is_consistent(K, V))])),
            (scaled, res)]


def _absolute_ridge_store(K, V):
    return linmem.ridge_store(K, V, ridge=1)


def _gram_leverage(K):
    return np.diagonal(K.T @ K).copy()


def _frobenius_energy(K):
    return np.sum(K * K)


def _absolute_consistency(K, V):
    return bool(linmem.consistency_residual(K, V) <= 1)


def _kv_scale(K, V, *rest):
    # the stores and noise figures grow with ||K^+|| (W = V K^+, e = tau^2 ||K^+||^2)
    Kp = linmem.pinv(K)
    return kit.scale(K, V, Kp, Kp)


def _k_scale(K, *rest):
    return kit.scale(K)


CLAIMS = [
    identity(
        "meta.stores-equivariant",
        title="The stores follow a scaling, a rotation of the keys and a permutation of the pairs",
        statement=r"W_{LS}(cRK\Pi, cV\Pi) = W_{LS}(K,V)R^{\top},\quad W_{OP}(cRK\Pi, V\Pi) = c\,W_{OP}(K,V)R^{\top},"
                  r"\quad W_{\lambda c^2}(cRK\Pi, cV\Pi) = W_{\lambda}(K,V)R^{\top}",
        source="ours (issue 24: scale, basis and order of the pairs)",
        assumptions=("c > 0 rational (exact) or 1e-150..1e150 (float)", "R orthogonal d x d",
                     "Pi an M x M permutation"),
        inputs=transformed(keys_and_values(), STORE_FLOAT_EXPONENTS), terms=_stores, scale=_kv_scale,
        control=wrong("least-squares store with an absolute ridge of 1 (not scale-equivariant)",
                      least_squares_store=_absolute_ridge_store),
    ),
    identity(
        "meta.projectors-invariant",
        title="Projectors, leverage and the mean expected error are scale-free and follow the basis and order",
        statement=r"P(cRK\Pi) = \Pi^{\top}P(K)\Pi,\quad Q(cRK\Pi) = RQ(K)R^{\top},\quad h(cRK\Pi) = \Pi^{\top}h(K),"
                  r"\quad 1 - r/M\ \text{unchanged}",
        source="ours (issue 24: scale, basis and order of the pairs)",
        assumptions=("c > 0 rational (exact) or 1e-300..1e300 (float)", "R orthogonal", "Pi a permutation"),
        inputs=transformed(keys(unit_ladder=False), WIDE_FLOAT_EXPONENTS), terms=_projectors, scale=_k_scale,
        control=wrong("leverage as the Gram diagonal ||k_j||^2 (scales with c^2)", leverage_scores=_gram_leverage),
    ),
    identity(
        "meta.noise-scaling",
        title="The noise formulas scale as tau / s_K and follow the basis and order of the pairs",
        statement=r"\|(cRK\Pi)^{+}\|_F^2 = c^{-2}\|K^{+}\|_F^2,\quad e_{\tau c}(cRK\Pi) = \Pi^{\top}e_{\tau}(K),"
                  r"\quad e^{W R^{\top}/c}_{\tau c}(cRK\Pi, V\Pi) = \Pi^{\top}e^{W}_{\tau}(K, V)",
        source="ours (issue 24: scale, basis and order of the pairs)",
        assumptions=("c > 0 rational (exact) or 1e-300..1e300 (float; the energy itself compared for c in "
                     "1e-100..1e100, where ||K^+||_F^2 / c^2 is representable, the fixed store where W / c is)",
                     "R orthogonal", "Pi a permutation", "tau = 1/2"),
        inputs=transformed(keys_and_values(), WIDE_FLOAT_EXPONENTS), terms=_noise, scale=_kv_scale,
        control=wrong("noise gain ||K||_F^2 in place of ||K^+||_F^2", pinv_energy=_frobenius_energy),
    ),
    identity(
        "meta.consistency-invariant",
        title="Consistency is decided the same at every scale, basis and order; its residual scales with V",
        statement=r"\ker(cRK\Pi)\subseteq\ker(V\Pi/c) \iff \ker K\subseteq\ker V,\quad"
                  r"\|V\Pi c^{-1}(I - P(cRK\Pi))\|_F = c^{-1}\|V(I-P(K))\|_F",
        source="ours (issue 24: scale, basis and order of the pairs)",
        assumptions=("c > 0 rational (exact) or 1e-300..1e300 (float)", "R orthogonal", "Pi a permutation"),
        inputs=transformed(keys_and_values(), WIDE_FLOAT_EXPONENTS), terms=_consistency, scale=_kv_scale,
        control=wrong("consistency with an absolute allowance of 1 on the residual", is_consistent=_absolute_consistency),
    ),
]
