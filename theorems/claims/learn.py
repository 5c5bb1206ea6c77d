"""Learners of :mod:`linmem.learn` pinned to the objectives they document
(ours): the max-margin LP meets its optimality conditions, the cutting plane
reaches the dense optimum, and the cross-entropy and smoothed-TAM fits are
stationary points of their objectives, whose value is the loss they report.
The optimality conditions are evaluated independently of the learners, by
:mod:`linmem.optimality` through ``ctx.impl`` (negative controls reach it)."""

from __future__ import annotations

import dataclasses
import math
from functools import partial

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem import learn as _learn
from theorems.authoring import kit
from theorems.authoring.strategies import rng_seeds
from theorems.evidence import precise, property, symbolic
from theorems.core.model import ClaimKind, EvidenceKind
from theorems.authoring.templates import claim, wrong
from theorems.core.tolerance import THRESHOLD, scaled_residual

__all__ = ["CLAIMS"]


# --- this module's inputs (single-use input families, moved from theorems.authoring.strategies) ---


@st.composite
def lp_instances(draw, *, max_d: int = 4, max_n: int = 14):
    """Max-margin LP instances ``(recipe, V, U)``: Gaussian keys ``V`` (d_k x n)
    and targets ``U`` (d_t x n), d_k != d_t allowed, both at most ``max_d``;
    n from 2 to about ``2 d_k d_t`` (capped at ``max_n``: both sides of
    separability); keys ``duplicated`` (columns repeated) or ``scaled`` over 4
    decades in some draws. ``recipe`` (sizes, family, seed) replays the draw."""
    dk, dt = draw(st.integers(1, max_d)), draw(st.integers(1, max_d))
    n = draw(st.integers(2, max(3, min(max_n, 2 * dk * dt + 2))))
    seed = draw(rng_seeds())
    rng = np.random.default_rng(seed)
    V, U = rng.standard_normal((dk, n)), rng.standard_normal((dt, n))
    family = draw(st.sampled_from(("gaussian", "duplicated", "scaled")))
    if family == "duplicated":
        V = V[:, rng.integers(0, max(1, n // 2), size=n)]
    elif family == "scaled":
        V = V * 10.0 ** rng.uniform(-2, 2, size=n)
    return {"dk": dk, "dt": dt, "n": n, "family": family, "seed": seed}, V, U


#: Ridges of the fit checks: strongly convex objectives (the fit converges), and
#: large enough that a wrong ridge term moves the fit far beyond FIT_GRADIENT_TOL.
FIT_RIDGES = (1e-2, 3e-2, 1e-1)

#: Exact instances (d, n) of the precise checks: both sides of separability.
EXACT_SIZES = ((1, 2), (2, 3), (2, 4), (2, 6), (3, 5))

#: Digits of the mpmath evaluation inside the float property checks.
PROPERTY_DPS = 30


@st.composite
def _fit_instances(draw):
    d, n = draw(st.integers(1, 3)), draw(st.integers(3, 6))
    rng = np.random.default_rng(draw(rng_seeds()))
    V, U = rng.standard_normal((2, d, n)) / math.sqrt(d)
    ridge = draw(st.sampled_from(FIT_RIDGES))
    k, beta = draw(st.integers(1, n - 2)), draw(st.sampled_from((1.0, 4.0, 16.0)))
    return {"d": d, "n": n, "ridge": ridge, "k": k, "beta": beta}, V, U


def _dyadic(rng, d, n):
    """Keys and targets on a 2^-20 grid: exact in float64, no ties."""
    return np.round(rng.standard_normal((2, d, n)) * 2**20) / 2**20


def _solution(res) -> dict:
    return {"W": res.W, "margin": res.margin, "multipliers": res.multipliers}


# --- learn.max-margin-kkt and learn.cutting-plane-exact ---------------------------


def _lp_duality_algebra(ctx):
    """Sum of lambda_p (<W, A_p> - t) = <W, sum lambda A> - t sum lambda, and
    <W, A_ij> = S_ii - S_ij (the scorer's gap is the LP row), on a symbolic
    3-pair instance with 1 x 2 memories (A_ij = (u_i - u_j) v_i^T by :func:`theorems.authoring.kit.comparisons`)."""
    t, W = sympy.Symbol("t"), np.array([sympy.symbols("w0:2")])
    V, U = np.array(sympy.symbols("v0:6")).reshape(2, 3), np.array([sympy.symbols("u0:3")])
    A, S = kit.comparisons(V, U), V.T @ W.T @ U  # S_ij = u_j^T W v_i
    lam = {p: sympy.Symbol(f"l{p[0]}{p[1]}") for p in A}
    inner, G = (lambda X: np.sum(W * X)), sum(lam[p] * A[p] for p in A)
    return symbolic.check_scalar(ctx, [
        ("sum lam (<W, A> - t) = <W, G> - t sum lam",
         sum(lam[p] * (inner(A[p]) - t) for p in A) - (inner(G) - t * sum(lam.values()))),
        *[(f"<W, A_{i}{j}> = S_{i}{i} - S_{i}{j}", inner(A[i, j]) - (S[i, i] - S[i, j])) for i, j in A],
    ])


def _kkt_score(impl, res, V, U) -> float:
    """THRESHOLD x the largest KKT defect over its allowance (linmem.optimality)."""
    return THRESHOLD * impl.max_margin_kkt_defect(V, U, **_solution(res))


def _kkt_precise(ctx, method="auto"):
    """The optimum re-solved exactly on the solution's support (once per instance): the defect is
    a rational, 0 when optimal, at every rung that rational in mpmath (exactly 0 at the top)."""
    rng, memo = ctx.rng("learn-exact"), {}
    cases = [(f"d={d}, n={n}", _dyadic(rng, d, n)) for d, n in EXACT_SIZES]

    def residual(case):
        V, U = case
        if id(case) not in memo:
            res = ctx.impl.max_margin_memory(V, U, method=method)
            memo[id(case)] = ctx.impl.max_margin_support_defect(V, U, **_solution(res))
        return kit.to_mp(memo[id(case)]), V.size + U.size

    return precise.check(ctx, cases, residual)


def _separable(res, V, U) -> bool:
    return bool(res.margin > 0 and _learn.GordanCertificate(
        W=np.asarray(res.W, float), lam=None, keys=V, targets=U).verify())


def _cp_property(ctx):
    def measure(case):
        _, V, U = case
        dense = _learn.max_margin_memory(V, U, method="dense")  # the reference, not under test
        cp = ctx.impl.max_margin_memory(V, U, method="cutting-plane")
        if _separable(dense, V, U) != _separable(cp, V, U):
            return math.inf
        gap = THRESHOLD * abs(cp.margin - dense.margin) / ctx.impl.max_margin_allowance(V, U)
        return max(gap, _kkt_score(ctx.impl, cp, V, U))

    return property.check(ctx, lp_instances(max_d=8, max_n=30), measure, describe=lambda c: c[0])


def _cp_stopped_early(keys, targets, *, method="auto"):
    """Wrong variant: the cutting plane stopped one LP solve before no
    comparison is violated (a relaxation's optimum)."""
    res = _learn._cutting_plane_max_margin(keys, targets)[0]
    return _learn._cutting_plane_max_margin(keys, targets, stop_after=max(1, res.rounds - 1))[0]


def _cp_halved(keys, targets, *, method="auto"):
    """Wrong variant: the cutting plane's memory and margin halved (W/2 is inside the box |W_ab| <= 1, off
    the optimum's vertex)."""
    res = linmem.max_margin_memory(keys, targets, method=method)
    return dataclasses.replace(res, W=res.W / 2, margin=res.margin / 2)


def _tam_fit_short(keys, targets, *, k, beta, ridge=0.0, **options):
    """Wrong variant: the TAM ERM fit stopped 1% short of its optimum (W scaled by 0.99)."""
    fit = linmem.tam_erm(keys, targets, k=k, beta=beta, ridge=ridge, **options)
    return dataclasses.replace(fit, W=0.99 * fit.W)


def _dense_dropping_a_row(keys, targets, *, method="auto"):
    """Wrong variant: the multipliers of the dense LP with the largest one moved
    onto the comparison with the most slack (a non-binding one)."""
    res = linmem.max_margin_memory(keys, targets, method="dense")
    lam, slack = res.multipliers.copy(), linmem.comparison_gaps(res.W, keys, targets)
    i, j = np.unravel_index(np.argmax(lam), lam.shape)
    slack[i, j] = -np.inf
    np.fill_diagonal(slack, -np.inf)
    k, m = np.unravel_index(np.argmax(slack), lam.shape)
    lam[k, m], lam[i, j] = lam[k, m] + lam[i, j], 0.0
    return dataclasses.replace(res, multipliers=lam)


# --- learn.cross-entropy-stationary and learn.tam-erm-stationary ---------------------


def _stationary_score(ctx, fit, objective, case) -> float:
    """The larger of THRESHOLD x max |gradient| / its allowance (FIT_GRADIENT_TOL at the
    inputs' scale, linmem.fit_gradient_allowance) and the scaled gap
    between the reported loss and the objective (both at PROPERTY_DPS digits)."""
    info, V, U = case
    res = fit(ctx.impl, V, U, info)
    with mpmath.workdps(PROPERTY_DPS):
        val, grad = objective(ctx.impl, res.W, V, U, info)
        g = float(max(abs(x) for x in grad.ravel()))
        loss_err = scaled_residual(abs(val - mpmath.mpf(float(res.loss))),
                                   scale=V.shape[1] * (1 + abs(val)) * res.W.size)
    return max(THRESHOLD * g / linmem.fit_gradient_allowance(V, U), loss_err)


def _stationary_precise(ctx, which, fit, objective):
    """Newton on the gradient from the fitted W at each rung: the error is the gradient at the root;
    a fit farther from it than sqrt(D) x the gradient allowance / (2 ridge) (strong convexity) scores inf."""
    rng, info = ctx.rng(f"learn-{which}-precise"), {"ridge": FIT_RIDGES[-1], "k": 1, "beta": 4.0}
    pairs = [_dyadic(rng, d, n) for d, n in ((1, 3), (2, 3), (2, 4))]
    cases = [(f"d={V.shape[0]}, n={V.shape[1]}, ridge={info['ridge']}",
              (V, U, np.asarray(fit(ctx.impl, V, U, info).W, float))) for V, U in pairs]

    def residual(case):
        V, U, W0 = case
        grad = lambda W: objective(ctx.impl, W, V, U, info)[1]  # noqa: E731
        root, dist = ctx.impl.stationary_point_mp(grad, W0)
        if dist > math.sqrt(W0.size) * linmem.fit_gradient_allowance(V, U) / (2 * info["ridge"]):
            return mpmath.inf, 1
        return mpmath.norm(mpmath.matrix(list(grad(root).ravel()))), V.shape[1] * W0.size

    return precise.check(ctx, cases, residual)


def _ce_gradient_algebra(ctx):
    """d/dw of the objective is the documented gradient (a symbolic 1 x 1 memory, 3 pairs)."""
    w, lam = sympy.symbols("w lambda", positive=True)
    v, u = sympy.symbols("v0:3"), sympy.symbols("u0:3")
    S = [[u[j] * w * v[i] for j in range(3)] for i in range(3)]
    L = sum(sympy.log(sum(sympy.exp(S[i][j]) for j in range(3))) - S[i][i] for i in range(3)) / 3 + lam * w**2
    documented = sum((sympy.exp(S[i][j]) / sum(sympy.exp(S[i][l]) for l in range(3)) - int(i == j)) * u[j] * v[i]
                     for i in range(3) for j in range(3)) / 3 + 2 * lam * w
    return symbolic.check_scalar(ctx, [("d/dw of the cross-entropy objective = the documented gradient",
                                        sympy.diff(L, w) - documented)])


def _tam_gradient_algebra(ctx):
    """The documented TAM gradient's pieces (k = 1, two competitors): the inner minimiser's condition,
    dF/ds_j = sigmoid(beta (s_j - t*)) / k (envelope theorem), the logistic loss's derivative."""
    beta, t, m = sympy.Symbol("beta", positive=True), sympy.Symbol("t", positive=True), sympy.Symbol("m")
    s = sympy.symbols("s0:2")
    sig = lambda x: 1 / (1 + sympy.exp(-x))  # noqa: E731
    Fobj = t + sum(sympy.log(1 + sympy.exp(beta * (x - t))) / beta for x in s)
    return symbolic.check_scalar(ctx, [
        ("d/dt of the smoothed top-1 objective = 1 - sum sigmoid(beta (s_j - t))",
         sympy.diff(Fobj, t) - (1 - sum(sig(beta * (x - t)) for x in s))),
        *[(f"d/ds_{q} at fixed t = sigmoid(beta (s_{q} - t)) / k", sympy.diff(Fobj, x) - sig(beta * (x - t)))
          for q, x in enumerate(s)],
        ("d/dm log(1 + e^-m) = -sigmoid(-m)", sympy.diff(sympy.log(1 + sympy.exp(-m)), m) + sig(-m)),
    ])


def _ce_ridge_three(keys, targets, *, ridge=_learn.DEFAULT_RIDGE, **options):
    """Wrong variant: the ridge term of the gradient is 3 lambda W (the objective's is 2), so the fit is the
    stationary point of the data term + 1.5 lambda ||W||_F^2; its loss is reported at lambda."""
    fit = linmem.cross_entropy_memory(keys, targets, ridge=1.5 * ridge, **options)
    return dataclasses.replace(fit, loss=fit.data_loss + ridge * float(np.sum(fit.W**2)))


def _tam_loss_e(keys, targets, *, k, beta, ridge=0.0, **options):
    """Wrong variant: the loss log(e + e^-m) in place of log(1 + e^-m) (value only)."""
    fit = linmem.tam_erm(keys, targets, k=k, beta=beta, ridge=ridge, **options)
    S = (np.asarray(keys, float).T @ fit.W.T) @ np.asarray(targets, float)
    data = float(np.mean(np.logaddexp(1.0, -(np.diag(S) - linmem.smoothed_topk_average(S, k, beta=beta)))))
    return dataclasses.replace(fit, loss=data + ridge * float(np.sum(fit.W**2)), data_loss=data)


_claim = partial(claim, kind=ClaimKind.IDENTITY, source="ours", tags=("learn",))


def _stationary_claim(cid, title, statement, *, which, fit, objective, algebra, control, assumption):
    """A fit is a stationary point of its objective: algebra, Newton root, independent gradient and loss."""
    return _claim(cid, title=title, statement=statement + r",\ \text{reported loss} = L(W)", checks={
        "documented gradient": (EvidenceKind.SYMBOLIC, algebra),
        "Newton root near the fit": (EvidenceKind.PRECISE,
                                     partial(_stationary_precise, which=which, fit=fit, objective=objective)),
        "gradient and loss by an independent evaluation": (EvidenceKind.PROPERTY, lambda ctx: property.check(
            ctx, _fit_instances(), partial(_stationary_score, ctx, fit, objective), describe=lambda c: c[0]))},
        control=control, assumptions=(assumption,))


CLAIMS = [
    _claim(
        "learn.max-margin-kkt", title="The max-margin LP's solution satisfies the LP's optimality conditions",
        statement=r"\langle W, A_{ij}\rangle \ge t\ (i \ne j),\ |W_{ab}| \le 1,\ \lambda \ge 0,\ "
        r"\textstyle\sum \lambda = 1,\ t = \|\textstyle\sum \lambda_{ij} A_{ij}\|_1,\ "
        r"\sum \lambda_{ij} (\langle W, A_{ij}\rangle - t) = 0,\ A_{ij} = (u_i - u_j) v_i^\top",
        checks={"lp-duality algebra": (EvidenceKind.SYMBOLIC, _lp_duality_algebra),
                "optimum re-solved exactly on its support": (EvidenceKind.PRECISE, _kkt_precise),
                "KKT defects of the float solution": (EvidenceKind.PROPERTY, lambda ctx: property.check(
                    ctx, lp_instances(), lambda c: _kkt_score(ctx.impl, ctx.impl.max_margin_memory(*c[1:]), *c[1:]),
                    describe=lambda c: c[0]))},
        control=wrong("the largest multiplier moved onto a non-binding comparison",
                               max_margin_memory=_dense_dropping_a_row),
        assumptions=("defects judged against CERTIFICATE_RESIDUAL_FACTOR x LP_FEASIBILITY_TOL x (1 + max |A|) "
                     "x d_k d_t",)),
    _claim(
        "learn.cutting-plane-exact", title="The cutting-plane max-margin LP reaches the dense LP's optimum",
        statement=r"t^*_{\text{cutting-plane}} = t^*_{\text{dense}},\ \text{same separability},\ (W, \lambda) "
        r"\text{ optimal for the LP with all } n(n-1) \text{ comparisons}",
        checks={"scorer gap = LP row": (EvidenceKind.SYMBOLIC, _lp_duality_algebra),
                "optimum re-solved exactly on its support": (EvidenceKind.PRECISE,
                                                             partial(_kkt_precise, method="cutting-plane")),
                "agreement with the dense LP (d <= 8)": (EvidenceKind.PROPERTY, _cp_property)},
        control=(
            wrong("the cutting plane stopped one LP solve early", max_margin_memory=_cp_stopped_early,
                  not_applicable={"optimum re-solved exactly on its support": (
                      "its five small exact instances (d <= 3, n <= 6) are solved in the cutting plane's first LP, "
                      "where stopping one solve early changes nothing; control 2 reaches it")}),
            wrong("the cutting plane's memory and margin halved (off the optimum)", max_margin_memory=_cp_halved,
                  aimed_at=("optimum re-solved exactly on its support",)))),
    _stationary_claim(
        "learn.cross-entropy-stationary", "The ridged cross-entropy memory is a stationary point of its objective",
        r"\|\nabla L(W)\|_\infty \le \mathtt{FIT\_GRADIENT\_TOL},\ L(W) = \tfrac1n \textstyle\sum_i "
        r"\big[\log \sum_j e^{S_{ij}} - S_{ii}\big] + \lambda \|W\|_F^2",
        which="ce", fit=lambda impl, V, U, c: impl.cross_entropy_memory(V, U, ridge=c["ridge"]),
        objective=lambda impl, W, V, U, c: impl.cross_entropy_objective_mp(W, V, U, ridge=c["ridge"]),
        algebra=_ce_gradient_algebra,
        control=wrong("ridge term of the gradient 3 lambda W", cross_entropy_memory=_ce_ridge_three),
        assumption=f"ridges {FIT_RIDGES} (strongly convex: the fit converges)"),
    _stationary_claim(
        "learn.tam-erm-stationary", "TAM ERM's result is a stationary point of its smoothed objective",
        r"\|\nabla L(W)\|_\infty \le \mathtt{FIT\_GRADIENT\_TOL},\ L(W) = \tfrac1n \textstyle\sum_i "
        r"\log\big(1 + e^{-(S_{ii} - F_\beta(S_{i,-i}))}\big) + \lambda \|W\|_F^2",
        which="tam", fit=lambda impl, V, U, c: impl.tam_erm(V, U, k=c["k"], beta=c["beta"], ridge=c["ridge"]),
        objective=lambda impl, W, V, U, c: impl.tam_objective_mp(W, V, U, k=c["k"], beta=c["beta"], ridge=c["ridge"]),
        algebra=_tam_gradient_algebra,
        control=(
            wrong("loss log(e + e^-m) in place of log(1 + e^-m)", tam_erm=_tam_loss_e, not_applicable={
                "Newton root near the fit": "the wrong variant changes the reported loss only; the fitted W is the "
                                            "true one, whose stationarity this check verifies (control 2 moves W)"}),
            wrong("the fit stopped 1% short (W scaled by 0.99)", tam_erm=_tam_fit_short,
                  aimed_at=("Newton root near the fit",))),
        assumption=f"ridges {FIT_RIDGES}, k < n - 1 (the smoothed top-k's minimiser is attained)"),
]
