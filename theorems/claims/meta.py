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

import math
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from theorems.authoring import kit
from theorems.authoring.strategies import Case, Inputs, keys, keys_and_values
from theorems.authoring.templates import claim, identity, wrong
from theorems.core.model import ClaimKind, EvidenceKind
from theorems.core.tolerance import THRESHOLD, scaled_residual
from theorems.evidence import precise, symbolic
from theorems.evidence import property as prop

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


#: Key and target factors of the float-only relations (retrieval and the LP):
#: 10^a keys times 10^b targets, the product within 1e-300..1e300.
FLOAT_ONLY_EXPONENTS = (-150, -9, 0, 9, 150)


@st.composite
def _retrieval_cases(draw, max_d: int = 6, max_n: int = 8):
    """(recipe, K, U, a, b, Pi, R, Q): Gaussian keys (d x n) and targets
    (p x n), factors a = 10^i, b = 10^j, a permutation, Haar-orthogonal R
    (keys) and Q (targets)."""
    seed = draw(st.integers(0, 2**32 - 1))
    d, p, n = draw(st.integers(2, max_d)), draw(st.integers(2, max_d)), draw(st.integers(2, max_n))
    i, j = draw(st.sampled_from(FLOAT_ONLY_EXPONENTS)), draw(st.sampled_from(FLOAT_ONLY_EXPONENTS))
    rng = np.random.default_rng(seed)
    K, U = rng.standard_normal((d, n)), rng.standard_normal((p, n))
    _, Pm, R = _float_transform(n, d, seed, 0)
    Q = _float_transform(n, p, seed + 1, 0)[2]
    recipe = {"seed": seed, "d": d, "p": p, "n": n, "keys factor": f"1e{i}", "targets factor": f"1e{j}"}
    return recipe, K, U, 10.0**i, 10.0**j, Pm, R, Q


def _top1_run(ctx):
    impl = ctx.impl

    def measure(case):
        _, K, U, a, b, Pm, R, Q = case
        K2, U2 = a * (R @ K) @ Pm, b * (Q @ U) @ Pm
        W = impl.cmm(K, U)
        W2 = impl.cmm(K2, U2)
        size = float(np.max(np.abs(W))) * float(np.max(np.abs(K))) * float(np.max(np.abs(U))) * K.shape[0] ** 2
        m = impl.margins(W, K, U)
        Wt = W2 / (a * b)  # the memory of the scaled pairs, brought back to unit size: Q W R^T
        m2 = impl.margins(Wt, K2, U2) / (a * b)
        worst = max(float(np.max(np.abs(Wt - Q @ W @ R.T))) / (float(np.max(np.abs(W))) * K.shape[1]),
                    float(np.max(np.abs(m2 - Pm.T @ m))) / size)
        # the decision, where no margin is within rounding of 0
        clear = np.abs(Pm.T @ m) > 1e-8 * size
        hits = impl.top1_correct(Wt, K2, U2)
        if np.any(hits[clear] != (Pm.T @ impl.top1_correct(W, K, U))[clear]):
            return math.inf
        return scaled_residual(worst, scale=1.0)

    return prop.check(ctx, _retrieval_cases(), measure, describe=lambda c: c[0])


#: Exact cases of the float-only relations: small integer keys and targets,
#: factors 2^k and signed permutations for the bases, so that every float64
#: operation of the relation is exact and its residual exactly 0.
DYADIC_POWERS = (-120, -7, 0, 5, 120)


@st.composite
def _dyadic_cases(draw, max_d: int = 4, max_n: int = 6):
    seed = draw(st.integers(0, 2**32 - 1))
    d, p, n = draw(st.integers(2, max_d)), draw(st.integers(2, max_d)), draw(st.integers(2, max_n))
    i, j = draw(st.sampled_from(DYADIC_POWERS)), draw(st.sampled_from(DYADIC_POWERS))
    return _dyadic(seed, d, p, n, i, j)


def _dyadic(seed, d, p, n, i, j):
    rng = np.random.default_rng(seed)
    K, U = rng.integers(-3, 4, (d, n)).astype(float), rng.integers(-3, 4, (p, n)).astype(float)
    Pm = np.eye(n)[:, rng.permutation(n)]
    R = np.eye(d)[:, rng.permutation(d)] * rng.choice([-1.0, 1.0], d)
    Q = np.eye(p)[:, rng.permutation(p)] * rng.choice([-1.0, 1.0], p)
    recipe = {"seed": seed, "d": d, "p": p, "n": n, "keys factor": f"2^{i}", "targets factor": f"2^{j}"}
    return recipe, K, U, 2.0**i, 2.0**j, Pm, R, Q


DYADIC_LADDER = [(f"dyadic seed {s}, 2^{i}, 2^{j}", _dyadic(s, 3, 3, 3, i, j))
                 for s, i, j in ((1, -120, 120), (2, 5, -7), (3, 120, 0))]


def _top1_exact_residual(impl, case, *, permute=True):
    _, K, U, a, b, Pm, R, Q = case
    K2, U2 = a * (R @ K) @ Pm, b * (Q @ U) @ Pm
    W = impl.cmm(K, U)
    Wt = impl.cmm(K2, U2) / (a * b)
    m, m2 = impl.margins(W, K, U), impl.margins(Wt, K2, U2) / (a * b)
    hits, hits2 = impl.top1_correct(W, K, U), impl.top1_correct(Wt, K2, U2)
    return (sum(abs(Fraction(float(x))) for x in (Wt - Q @ W @ R.T).ravel())
            + sum(abs(Fraction(float(x))) for x in (m2 - Pm.T @ m))
            + int(np.sum(hits2 != Pm.T @ hits)))


def _lp_exact_residual(impl, case):
    # no permutation here: HiGHS may pivot differently on reordered rows; the
    # powers of two alone leave the normalised LP bit for bit the same
    _, K, U, a, b, _, _, _ = case
    t, t2 = impl.max_margin_memory(K, U, method="dense").margin, impl.max_margin_memory(a * K, b * U, method="dense").margin
    return abs(Fraction(t2) - Fraction(a) * Fraction(b) * Fraction(t))


def _exact_check(residual, strategy):
    return lambda ctx: symbolic.check_exact(ctx, strategy, lambda c: residual(ctx.impl, c), describe=lambda c: c[0])


def _ladder_check(residual):
    def run(ctx):
        return precise.check(ctx, DYADIC_LADDER, lambda c: (mpmath.mpf(float(residual(ctx.impl, c))), 1), falls=False)
    return run


def _margin_next_competitor(W, keys, targets, **options):
    """Wrong variant: the margin against the next pair (i + 1 mod n) only,
    not the strongest competitor (order-dependent)."""
    S = np.asarray(keys, float).T @ np.asarray(W, float).T @ np.asarray(targets, float)
    n = S.shape[0]
    return np.diagonal(S) - S[np.arange(n), (np.arange(n) + 1) % n]


def _lp_run(ctx):
    impl = ctx.impl

    def measure(case):
        _, K, U, a, b, Pm, _, _ = case
        res = impl.max_margin_memory(K, U, method="dense")
        res2 = impl.max_margin_memory(a * K @ Pm, b * U @ Pm, method="dense")
        if (res.margin > 0) != (res2.margin > 0) and max(res.margin, res2.margin / (a * b)) > \
                impl.max_margin_allowance(K, U):
            return math.inf
        return THRESHOLD * abs(res2.margin / (a * b) - res.margin) / impl.max_margin_allowance(K, U)

    return prop.check(ctx, _retrieval_cases(max_d=3, max_n=5), measure, describe=lambda c: c[0])


def _margin_not_rescaled(keys, targets, *, method="auto"):
    """Wrong variant: the LP's margin on the normalised instance, not
    multiplied back by the powers of two (scale-invariant, not a b t*)."""
    from linmem import learn as _learn

    V, U = _learn._pairs(keys, targets)
    Vn, Un, _ = _learn._normalised(V, U)
    return _learn._max_margin(Vn, Un, _learn._check_method(method))[0]


CLAIMS = [
    claim(
        "meta.top1-equivariant", kind=ClaimKind.IDENTITY,
        title="Top-1 margins scale with keys and targets and follow their bases and the order of the pairs",
        statement=r"W_{CMM}(aRK\Pi, bQU\Pi) = ab\,Q W_{CMM}(K,U) R^{\top},\quad "
                  r"m(QWR^{\top}, aRK\Pi, bQU\Pi) = ab\,\Pi^{\top} m(W, K, U),\ \text{same top-1 set}",
        source="ours (issue 24: scale, basis and order of the pairs)",
        assumptions=("a, b in 1e-150..1e150 (float64 only: linmem.retrieval has no exact path)",
                     "R, Q Haar-orthogonal", "Pi a permutation",
                     "the top-1 decision compared where |m| > 1e-8 x its scale"),
        checks={"exact dyadic": (EvidenceKind.SYMBOLIC, _exact_check(_top1_exact_residual, _dyadic_cases()),
                                 "integer pairs, factors 2^k, signed permutations: float64 exact, residual == 0"),
                "ladder dyadic": (EvidenceKind.PRECISE, _ladder_check(_top1_exact_residual),
                                  "three fixed dyadic cases (d = p = n = 3, separable, 2^+-120), residual 0 at every rung"),
                "float equivariance": (EvidenceKind.PROPERTY, _top1_run,
                                       "float64: Gaussian keys/targets, factors 1e-150..1e150, rotations, permutations")},
        control=wrong("margin against the next pair only (order-dependent)", margins=_margin_next_competitor),
    ),
    claim(
        "meta.max-margin-scaling", kind=ClaimKind.IDENTITY,
        title="The max-margin LP's margin scales as a b t* and its decision is unchanged by scaling and order",
        statement=r"t^*(aK\Pi, bU\Pi) = ab\,t^*(K, U),\quad t^* > 0 \text{ decided the same}",
        source="ours (issue 24; the scaling law of linmem.max_margin_memory's docstring)",
        assumptions=("a, b in 1e-150..1e150 (float64 only: HiGHS)", "Pi a permutation",
                     "the box |W_ab| <= 1 is not rotation-invariant: no basis relation",
                     "margins compared to max_margin_allowance(K, U)"),
        checks={"exact dyadic": (EvidenceKind.SYMBOLIC,
                                 _exact_check(_lp_exact_residual, _dyadic_cases(max_d=3, max_n=4)),
                                 "integer pairs, factors 2^k: the normalised LP is the same, t* exactly a b t*"),
                "ladder dyadic": (EvidenceKind.PRECISE, _ladder_check(_lp_exact_residual),
                                  "three fixed dyadic cases (d = p = n = 3, separable, 2^+-120), residual 0 at every rung"),
                "float scaling": (EvidenceKind.PROPERTY, _lp_run,
                                  "float64, dense LP, d <= 3, n <= 5, factors 1e-150..1e150, permutations")},
        control=wrong("margin of the normalised instance, not multiplied back", max_margin_memory=_margin_not_rescaled),
    ),
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
