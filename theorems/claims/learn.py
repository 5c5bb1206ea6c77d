"""Learners of :mod:`linmem.learn` pinned to the objectives they document
(ours): the max-margin LP satisfies its optimality conditions, the
cutting-plane LP reaches the dense LP's optimum, and the cross-entropy and
smoothed-TAM fits are stationary points of their documented objectives,
with the loss they report being that objective.

Everything the checks compare against is evaluated here, independently of
linmem: the comparisons ``<W, A_ij> = (u_i - u_j)^T W v_i`` by einsum, the
objectives and their gradients in mpmath from the documented formulas
(the smoothed top-k's inner minimiser by a bracketed root search), and the
LP's optimum re-solved exactly on the support linmem's solution names.
"""

from __future__ import annotations

import math
from functools import partial

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem import learn as _learn
from linmem.learn import CERTIFICATE_RESIDUAL_FACTOR, FIT_GRADIENT_TOL, LP_FEASIBILITY_TOL, GordanCertificate
from theorems import kit
from theorems.evidence import precise, property, symbolic
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.strategies import lp_instances
from theorems.tolerance import THRESHOLD, scaled_residual

__all__ = ["CLAIMS"]

#: Ridges of the fit checks: strongly convex objectives (the fit converges), and
#: large enough that a wrong ridge term moves the fit far beyond FIT_GRADIENT_TOL.
FIT_RIDGES = (1e-2, 3e-2, 1e-1)

#: Exact instances (d, n, seed) of the precise checks: both sides of separability.
EXACT_SIZES = ((1, 2, 0), (2, 3, 1), (2, 4, 2), (2, 6, 3), (3, 5, 4))

#: Digits of the mpmath evaluation inside the float property checks.
PROPERTY_DPS = 30


# --------------------------------------------------------------------------
# instances
# --------------------------------------------------------------------------


@st.composite
def _fit_instances(draw):
    d, n = draw(st.integers(1, 3)), draw(st.integers(3, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    V, U = rng.standard_normal((2, d, n)) / math.sqrt(d)
    ridge = draw(st.sampled_from(FIT_RIDGES))
    k, beta = draw(st.integers(1, n - 2)), draw(st.sampled_from((1.0, 4.0, 16.0)))
    return {"d": d, "n": n, "ridge": ridge, "k": k, "beta": beta}, V, U


def _exact_instances(ctx):
    rng = ctx.rng("learn-exact")
    out = []
    for d, n, _ in EXACT_SIZES:
        V, U = np.round(rng.standard_normal((2, d, n)) * 2**20) / 2**20  # dyadic, exact in float64; no ties
        out.append((f"d={d}, n={n}", (V, U)))
    return out


# --------------------------------------------------------------------------
# the LP's optimality conditions, independently
# --------------------------------------------------------------------------


def _gaps(W, V, U):
    """<W, A_ij> for all i != j, as an (n, n) array with an inf diagonal."""
    Q = np.einsum("ab,bi->ai", W, V)  # W v_i
    G = np.einsum("ai,ai->i", U, Q)[:, None] - np.einsum("aj,ai->ij", U, Q)
    np.fill_diagonal(G, np.inf)
    return G


def _kkt_ratio(res, V, U) -> float:
    """THRESHOLD x the largest KKT defect of (W, t, lambda) over the allowance
    CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL * (1 + max |A|) * d_k d_t."""
    W, t, lam = np.asarray(res.W, float), float(res.margin), res.multipliers
    n = V.shape[1]
    if lam is None or W.shape != (U.shape[0], V.shape[0]) or np.shape(lam) != (n, n):
        return math.inf
    lam = np.asarray(lam, float)
    gaps = _gaps(W, V, U)
    off = ~np.eye(n, dtype=bool)
    G = np.einsum("ij,ai,bi->ab", lam, U, V) - np.einsum("ij,aj,bi->ab", lam, U, V)  # sum lam A
    defects = (max(0.0, t - gaps[off].min()), max(0.0, np.abs(W).max() - _learn.MAX_MARGIN_BOX),
               max(0.0, -lam.min()), abs(lam.sum() - 1), np.abs(np.diag(lam)).max(),
               abs(np.abs(G).sum() - t), abs(lam[off] @ (gaps[off] - t)))
    A = np.abs(U[:, :, None] - U[:, None, :]).max() * np.abs(V).max()
    allow = CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL * (1 + A) * V.shape[0] * U.shape[0]
    return THRESHOLD * max(defects) / allow


def _support_resolve(res, V, U):
    """The exact KKT defect (a sympy Rational, 0 when optimal) of the LP's
    optimum re-solved in rationals on the support of ``res``: multipliers on
    the comparisons with lambda > 0, <W, A_p> = t on those and on every other
    comparison binding in the float solution (a primal-degenerate vertex has
    binding comparisons with lambda_p = 0), entries of W strictly inside the
    box free, the others at their sign; free parameters of a degenerate
    support are set to the float solution's values. Defects: the equations, every comparison's
    feasibility, the box, lambda >= 0, and the sign of W against sum lambda A
    on the entries at the box."""
    W0, lam0 = np.asarray(res.W, float), np.asarray(res.multipliers, float)
    n, du, dv = V.shape[1], U.shape[0], V.shape[0]
    R = lambda x: sympy.Rational(float(x))  # noqa: E731  exact: V, U are dyadic
    Vq, Uq = sympy.Matrix(dv, n, [R(x) for x in V.ravel()]), sympy.Matrix(du, n, [R(x) for x in U.ravel()])
    B = [(i, j) for i in range(n) for j in range(n) if i != j and lam0[i, j] > LP_FEASIBILITY_TOL * lam0.max()]
    # binding comparisons: every p in B, and those at t with lambda_p = 0 (a
    # primal-degenerate vertex), which otherwise a free parameter set to its
    # float value would miss by a rounding error
    slack = _gaps(W0, V, U) - res.margin
    scale = LP_FEASIBILITY_TOL * (1 + np.abs(U[:, :, None] - U[:, None, :]).max() * np.abs(V).max())
    P = sorted(set(B) | {(i, j) for i in range(n) for j in range(n) if i != j and abs(slack[i, j]) <= scale})
    fixed = np.abs(W0) >= _learn.MAX_MARGIN_BOX * (1 - LP_FEASIBILITY_TOL)
    F = [(a, b) for a in range(du) for b in range(dv) if not fixed[a, b]]
    if not B:
        return sympy.oo
    A = {p: (Uq[:, p[0]] - Uq[:, p[1]]) * Vq[:, p[0]].T for p in P}
    sgn = {(a, b): int(np.sign(W0[a, b])) for a in range(du) for b in range(dv) if fixed[a, b]}
    rows, rhs = [], []
    for p in P:  # <W, A_p> - t = 0
        rows.append([A[p][a, b] for a, b in F] + [-1] + [0] * len(B))
        rhs.append(-sum(A[p][a, b] * s for (a, b), s in sgn.items()))
    for a, b in F:  # (sum lam A)_ab = 0 on the free entries
        rows.append([0] * (len(F) + 1) + [A[p][a, b] for p in B])
        rhs.append(0)
    rows.append([0] * (len(F) + 1) + [1] * len(B))
    rhs.append(1)
    try:
        x, params = sympy.Matrix(rows).gauss_jordan_solve(sympy.Matrix(rhs))
    except ValueError:  # no solution on this support
        return sympy.oo
    guess = [W0[a, b] for a, b in F] + [res.margin] + [lam0[p] for p in B]
    if params.shape[0]:
        free = {}
        for t in params:
            col = next(q for q in range(len(x)) if x[q] == t)
            free[t] = R(guess[col])
        x = x.subs(free)
    W = sympy.Matrix(du, dv, lambda a, b: sgn.get((a, b), 0))
    for q, (a, b) in enumerate(F):
        W[a, b] = x[q]
    t, lam = x[len(F)], {p: x[len(F) + 1 + q] for q, p in enumerate(B)}
    G = sum((lam[p] * A[p] for p in B), sympy.zeros(du, dv))
    WV = W * Vq
    gaps = [((Uq[:, i] - Uq[:, j]).T * WV[:, i])[0, 0] for i in range(n) for j in range(n) if i != j]
    return (max(0, t - min(gaps)) + max([0] + [abs(W[a, b]) - 1 for a, b in F])
            + max([0] + [-v for v in lam.values()]) + max([0] + [-s * G[a, b] for (a, b), s in sgn.items()]))


# --------------------------------------------------------------------------
# learn.max-margin-kkt and learn.cutting-plane-exact
# --------------------------------------------------------------------------


def _lp_duality_algebra(ctx):
    """Sum of lambda_p (<W, A_p> - t) = <W, sum lambda A> - t sum lambda, and
    <W, A_ij> = S_ii - S_ij (the scorer's gap is the LP row), on a symbolic
    3-pair instance with 1 x 2 memories."""
    w = sympy.Matrix(1, 2, sympy.symbols("w0:2"))
    us = [sympy.Symbol(f"u{i}") for i in range(3)]
    vs = [sympy.Matrix(sympy.symbols(f"v{i}_0:2")) for i in range(3)]
    t = sympy.Symbol("t")
    pairs = [(i, j) for i in range(3) for j in range(3) if i != j]
    lam = {p: sympy.Symbol(f"l{p[0]}{p[1]}") for p in pairs}
    A = {p: (us[p[0]] - us[p[1]]) * vs[p[0]].T for p in pairs}
    inner = lambda X: (w * X.T)[0, 0]  # noqa: E731
    G = sum((lam[p] * A[p] for p in pairs), start=sympy.zeros(1, 2))
    S = lambda i, j: us[j] * (w * vs[i])[0, 0]  # noqa: E731
    return symbolic.check_scalar(ctx, [
        ("sum lam (<W, A> - t) = <W, G> - t sum lam",
         sum(lam[p] * (inner(A[p]) - t) for p in pairs) - (inner(G) - t * sum(lam.values()))),
        *[(f"<W, A_{i}{j}> = S_{i}{i} - S_{i}{j}", inner(A[(i, j)]) - (S(i, i) - S(i, j))) for i, j in pairs],
    ])


def _kkt_property(ctx):
    return property.check(ctx, lp_instances(), lambda c: _kkt_ratio(ctx.impl.max_margin_memory(c[1], c[2]), c[1], c[2]),
                          describe=lambda c: c[0])


def _kkt_precise(ctx, method="auto"):
    """The defect is exact (0 when the support names an optimum): at every rung
    it is that rational in mpmath, so it is exactly 0 at the top rung."""
    cases = []
    for label, (V, U) in _exact_instances(ctx):
        res = ctx.impl.max_margin_memory(V, U, method=method)
        cases.append((label, (_support_resolve(res, V, U), V.size + U.size)))

    def residual(case):
        defect, size = case
        return (mpmath.inf if defect == sympy.oo else mpmath.mpf(sympy.Rational(defect).p) / sympy.Rational(defect).q), size

    return precise.check(ctx, cases, residual)


def _separable(res, V, U) -> bool:
    return bool(res.margin > 0 and GordanCertificate(W=np.asarray(res.W, float), lam=None, keys=V, targets=U).verify())


def _cp_property(ctx):
    def measure(case):
        _, V, U = case
        dense = _learn.max_margin_memory(V, U, method="dense")  # the reference, not under test
        cp = ctx.impl.max_margin_memory(V, U, method="cutting-plane")
        if _separable(dense, V, U) != _separable(cp, V, U):
            return math.inf
        A = np.abs(U[:, :, None] - U[:, None, :]).max() * np.abs(V).max()
        allow = CERTIFICATE_RESIDUAL_FACTOR * LP_FEASIBILITY_TOL * (1 + A)
        return max(THRESHOLD * abs(cp.margin - dense.margin) / allow, _kkt_ratio(cp, V, U))

    return property.check(ctx, lp_instances(max_d=8, max_n=30), measure, describe=lambda c: c[0])


def _cp_stopped_early(keys, targets, *, method="auto"):
    """Wrong variant: the cutting plane stopped one LP solve before no
    comparison is violated (a relaxation's optimum)."""
    V, U = np.asarray(keys, float), np.asarray(targets, float)
    res = _learn._cutting_plane_max_margin(V, U)[0]
    return _learn._cutting_plane_max_margin(V, U, stop_after=max(1, res.rounds - 1))[0]


def _dense_dropping_a_row(keys, targets, *, method="auto"):
    """Wrong variant: the multipliers of the dense LP with the largest one moved
    onto a non-binding comparison."""
    res = linmem.max_margin_memory(keys, targets, method="dense")
    lam = res.multipliers.copy()
    n = lam.shape[0]
    i, j = np.unravel_index(np.argmax(lam), lam.shape)
    slack = _gaps(res.W, np.asarray(keys, float), np.asarray(targets, float))
    slack[i, j] = -np.inf
    k, m = np.unravel_index(np.argmax(np.where(np.isfinite(slack), slack, -np.inf)), (n, n))
    lam[k, m], lam[i, j] = lam[k, m] + lam[i, j], 0.0
    return _learn.MaxMarginResult(W=res.W, margin=res.margin, status=res.status, message=res.message,
                                  multipliers=lam, method="dense", rounds=1, comparisons=res.comparisons)


# --------------------------------------------------------------------------
# learn.cross-entropy-stationary and learn.tam-erm-stationary
# --------------------------------------------------------------------------


def _scores_mp(W, V, U):
    return (kit.to_mp(V).T @ W.T) @ kit.to_mp(U)


def _ce_objective_mp(W, V, U, ridge):
    """(objective, gradient) of (1/n) sum_i [log sum_j e^{S_ij} - S_ii] + ridge ||W||^2."""
    n = V.shape[1]
    S = _scores_mp(W, V, U)
    lse = [mpmath.log(mpmath.fsum(mpmath.exp(S[i, j]) for j in range(n))) for i in range(n)]
    val = mpmath.fsum(lse[i] - S[i, i] for i in range(n)) / n + ridge * mpmath.fsum(x * x for x in W.ravel())
    P = np.array([[mpmath.exp(S[i, j] - lse[i]) - int(i == j) for j in range(n)] for i in range(n)], dtype=object) / n
    grad = kit.to_mp(U) @ P.T @ kit.to_mp(V).T + 2 * ridge * W
    return val, grad


def _smoothed_topk_mp(s, k, beta):
    """(F_beta(s), weights) with F = min_t t + (1/k) sum sp_beta(s_j - t): the
    minimiser solves (1/k) sum sigmoid(beta (s_j - t)) = 1, bracketed in
    [min s - c, max s - c], c = ln(k / (m - k)) / beta."""
    m = len(s)
    c = mpmath.log(mpmath.mpf(k) / (m - k)) / beta
    g = lambda t: mpmath.fsum(1 / (1 + mpmath.exp(-beta * (x - t))) for x in s) / k - 1  # noqa: E731
    t = mpmath.findroot(g, (min(s) - c - 1, max(s) - c + 1), solver="anderson")
    F = t + mpmath.fsum(mpmath.log1p(mpmath.exp(beta * (x - t))) for x in s) / (k * beta)
    return F, [1 / (1 + mpmath.exp(-beta * (x - t))) / k for x in s]


def _tam_objective_mp(W, V, U, ridge, k, beta):
    """(objective, gradient) of (1/n) sum_i log(1 + e^{-m_i}) + ridge ||W||^2,
    m_i = S_ii - F_beta(S_i,-i) (envelope theorem for the gradient)."""
    n = V.shape[1]
    S = _scores_mp(W, V, U)
    M = np.zeros((n, n), dtype=object) * mpmath.mpf(0)
    val = 0
    for i in range(n):
        others = [j for j in range(n) if j != i]
        F, p = _smoothed_topk_mp([S[i, j] for j in others], k, beta)
        mi = S[i, i] - F
        val += mpmath.log1p(mpmath.exp(-mi)) / n
        gi = -1 / (1 + mpmath.exp(mi)) / n
        M[i, i] = gi
        for j, pj in zip(others, p):
            M[i, j] = -gi * pj
    grad = kit.to_mp(U) @ M.T @ kit.to_mp(V).T + 2 * ridge * W
    return val + ridge * mpmath.fsum(x * x for x in W.ravel()), grad


def _fit(ctx, which, V, U, info):
    if which == "ce":
        return ctx.impl.cross_entropy_memory(V, U, ridge=info["ridge"])
    return ctx.impl.tam_erm(V, U, k=info["k"], beta=info["beta"], ridge=info["ridge"])


def _objective(which, info):
    if which == "ce":
        return lambda W, V, U: _ce_objective_mp(W, V, U, mpmath.mpf(info["ridge"]))
    return lambda W, V, U: _tam_objective_mp(W, V, U, mpmath.mpf(info["ridge"]), info["k"], mpmath.mpf(info["beta"]))


def _stationary_ratio(ctx, which, case) -> float:
    """max of: THRESHOLD x max |gradient| / FIT_GRADIENT_TOL (stationary to the
    documented tolerance), and the scaled difference between the reported loss
    and the objective evaluated here."""
    info, V, U = case
    fit = _fit(ctx, which, V, U, info)
    with mpmath.workdps(PROPERTY_DPS):
        W = kit.to_mp(fit.W)
        val, grad = _objective(which, info)(W, V, U)
        g = float(max(abs(x) for x in grad.ravel()))
        loss_err = scaled_residual(abs(val - mpmath.mpf(float(fit.loss))), scale=V.shape[1] * (1 + abs(val)) * W.size)
    return max(THRESHOLD * g / FIT_GRADIENT_TOL, loss_err)


def _stationary_precise(ctx, which):
    """Newton on the gradient of the objective (evaluated here) from the fitted
    W, at each rung: the error is the gradient at the root, and a fit farther
    from it than the strong-convexity bound sqrt(D) FIT_GRADIENT_TOL / (2 ridge)
    scores inf."""
    rng = ctx.rng(f"learn-{which}-precise")
    cases = []
    for d, n in ((1, 3), (2, 3), (2, 4)):
        V, U = np.round(rng.standard_normal((2, d, n)) * 2**20) / 2**20
        info = {"ridge": FIT_RIDGES[-1], "k": 1, "beta": 4.0}
        cases.append((f"d={d}, n={n}, ridge={info['ridge']}", (info, V, U, np.asarray(_fit(ctx, which, V, U, info).W, float))))

    def residual(case):
        info, V, U, W0 = case
        shape = W0.shape
        f = _objective(which, info)

        def grad(*x):
            return list(f(np.array(x, dtype=object).reshape(shape), V, U)[1].ravel())

        x = mpmath.findroot(grad, [mpmath.mpf(float(v)) for v in W0.ravel()], tol=mpmath.eps, maxsteps=60, verify=False)
        x = [x[q] for q in range(W0.size)] if isinstance(x, mpmath.matrix) else [x]
        dist = mpmath.sqrt(mpmath.fsum((xi - float(w)) ** 2 for xi, w in zip(x, W0.ravel())))
        if dist > math.sqrt(W0.size) * FIT_GRADIENT_TOL / (2 * info["ridge"]):
            return mpmath.inf, 1
        return mpmath.norm(mpmath.matrix(grad(*x))), V.shape[1] * W0.size

    return precise.check(ctx, cases, residual)


def _gradient_symbolic(ctx, which):
    """The documented gradient is the derivative of the documented objective, on
    a symbolic 1 x 1 memory with 3 pairs (k = 1 for TAM, at its inner minimiser
    by the envelope theorem: dF/ds_j = sigmoid(beta (s_j - t*)) / k)."""
    w, lam, beta, t = sympy.symbols("w lambda beta t", positive=True)
    v = sympy.symbols("v0:3")
    u = sympy.symbols("u0:3")
    S = [[u[j] * w * v[i] for j in range(3)] for i in range(3)]
    sig = lambda x: 1 / (1 + sympy.exp(-x))  # noqa: E731
    if which == "ce":
        L = sum(sympy.log(sum(sympy.exp(S[i][j]) for j in range(3))) - S[i][i] for i in range(3)) / 3 + lam * w**2
        documented = sum((sympy.exp(S[i][j]) / sum(sympy.exp(S[i][l]) for l in range(3)) - int(i == j)) * u[j] * v[i]
                         for i in range(3) for j in range(3)) / 3 + 2 * lam * w
        return symbolic.check_scalar(ctx, [("d/dw of the cross-entropy objective = the documented gradient",
                                            sympy.diff(L, w) - documented)])
    s = sympy.symbols("s0:2")
    Fobj = t + sum(sympy.log(1 + sympy.exp(beta * (x - t))) / beta for x in s)  # k = 1, two competitors
    stat = sympy.diff(Fobj, t)
    envelope = [sympy.diff(Fobj, x) - sig(beta * (x - t)) for x in s]
    m = sympy.Symbol("m")
    return symbolic.check_scalar(ctx, [
        ("d/dt of the smoothed top-1 objective = 1 - sum sigmoid(beta (s_j - t))",
         stat - (1 - sum(sig(beta * (x - t)) for x in s))),
        *[(f"d/ds_{q} at fixed t = sigmoid(beta (s_{q} - t)) / k", e) for q, e in enumerate(envelope)],
        ("d/dm log(1 + e^-m) = -sigmoid(-m)", sympy.diff(sympy.log(1 + sympy.exp(-m)), m) + sig(-m)),
    ])


def _ce_ridge_three(keys, targets, *, ridge=_learn.DEFAULT_RIDGE, maxiter=_learn.DEFAULT_MAXITER, init=None):
    """Wrong variant: the ridge term of the gradient is 3 lambda W (the objective 2)."""
    V, U = np.asarray(keys, float), np.asarray(targets, float)

    def fg(W):
        val, data, grad = _learn._ce_loss_grad(W, V, U, ridge)
        return val, data, grad + ridge * W

    W, res = _learn._fit(fg, np.zeros((U.shape[0], V.shape[0])) if init is None else init, maxiter)
    val, data, _ = _learn._ce_loss_grad(W, V, U, ridge)
    return _learn.ConvexFitResult(W, val, data, float(np.linalg.norm(W)), int(res.nit), bool(res.success), str(res.message))


def _tam_loss_e(keys, targets, *, k, beta, ridge=0.0, maxiter=_learn.DEFAULT_MAXITER, init=None):
    """Wrong variant: the loss log(e + e^-m) in place of log(1 + e^-m) (value only)."""
    fit = linmem.tam_erm(keys, targets, k=k, beta=beta, ridge=ridge, maxiter=maxiter, init=init)
    V, U = np.asarray(keys, float), np.asarray(targets, float)
    S = (V.T @ fit.W.T) @ U
    m = np.diag(S) - linmem.smoothed_topk_average(S, k, beta=beta)
    data = float(np.mean(np.logaddexp(1.0, -m)))
    return _learn.ConvexFitResult(fit.W, data + ridge * float(np.sum(fit.W**2)), data, fit.norm, fit.n_iter,
                                  fit.converged, fit.message)


def _claim(cid, title, statement, checks, control, assumptions=()):
    return Claim(id=cid, title=title, statement=statement, kind=ClaimKind.IDENTITY, source="ours",
                 checks=tuple(checks), assumptions=tuple(assumptions), negative_control=control, tags=("learn",))


def _stationary_claim(cid, which, title, statement, control, assumption):
    """A learner's fit is a stationary point of its documented objective (the same three checks for each)."""
    return _claim(cid, title, statement + r",\ \text{reported loss} = L(W)", [
        Check("documented gradient", EvidenceKind.SYMBOLIC, partial(_gradient_symbolic, which=which)),
        Check("Newton root near the fit", EvidenceKind.PRECISE, partial(_stationary_precise, which=which)),
        Check("gradient and loss by an independent evaluation", EvidenceKind.PROPERTY,
              lambda ctx: property.check(ctx, _fit_instances(), partial(_stationary_ratio, ctx, which),
                                         describe=lambda c: c[0]))], control, [assumption])


CLAIMS = [
    _claim(
        "learn.max-margin-kkt", "The max-margin LP's solution satisfies the LP's optimality conditions",
        r"\langle W, A_{ij}\rangle \ge t\ (i \ne j),\ |W_{ab}| \le 1,\ \lambda \ge 0,\ \textstyle\sum \lambda = 1,\ "
        r"t = \|\textstyle\sum \lambda_{ij} A_{ij}\|_1,\ \sum \lambda_{ij} (\langle W, A_{ij}\rangle - t) = 0,\ "
        r"A_{ij} = (u_i - u_j) v_i^\top",
        [Check("lp-duality algebra", EvidenceKind.SYMBOLIC, _lp_duality_algebra),
         Check("optimum re-solved exactly on its support", EvidenceKind.PRECISE, _kkt_precise),
         Check("KKT defects of the float solution", EvidenceKind.PROPERTY, _kkt_property)],
        NegativeControl("the largest multiplier moved onto a non-binding comparison",
                        {"max_margin_memory": _dense_dropping_a_row}),
        ["defects judged against CERTIFICATE_RESIDUAL_FACTOR x LP_FEASIBILITY_TOL x (1 + max |A|) x d_k d_t"]),
    _claim(
        "learn.cutting-plane-exact", "The cutting-plane max-margin LP reaches the dense LP's optimum",
        r"t^*_{\text{cutting-plane}} = t^*_{\text{dense}},\ \text{same separability},\ (W, \lambda) "
        r"\text{ optimal for the LP with all } n(n-1) \text{ comparisons}",
        [Check("scorer gap = LP row", EvidenceKind.SYMBOLIC, _lp_duality_algebra),
         Check("optimum re-solved exactly on its support",
               EvidenceKind.PRECISE, partial(_kkt_precise, method="cutting-plane")),
         Check("agreement with the dense LP (d <= 8)", EvidenceKind.PROPERTY, _cp_property)],
        NegativeControl("the cutting plane stopped one LP solve early", {"max_margin_memory": _cp_stopped_early})),
    _stationary_claim(
        "learn.cross-entropy-stationary", "ce",
        "The ridged cross-entropy memory is a stationary point of its objective",
        r"\|\nabla L(W)\|_\infty \le \mathtt{FIT\_GRADIENT\_TOL},\ L(W) = \tfrac1n \textstyle\sum_i "
        r"\big[\log \sum_j e^{S_{ij}} - S_{ii}\big] + \lambda \|W\|_F^2",
        NegativeControl("ridge term of the gradient 3 lambda W", {"cross_entropy_memory": _ce_ridge_three}),
        f"ridges {FIT_RIDGES} (strongly convex: the fit converges)"),
    _stationary_claim(
        "learn.tam-erm-stationary", "tam", "TAM ERM's result is a stationary point of its smoothed objective",
        r"\|\nabla L(W)\|_\infty \le \mathtt{FIT\_GRADIENT\_TOL},\ L(W) = \tfrac1n \textstyle\sum_i "
        r"\log\big(1 + e^{-(S_{ii} - F_\beta(S_{i,-i}))}\big) + \lambda \|W\|_F^2",
        NegativeControl("loss log(e + e^-m) in place of log(1 + e^-m)", {"tam_erm": _tam_loss_e}),
        f"ridges {FIT_RIDGES}, k < n - 1 (the smoothed top-k's minimiser is attained)"),
]
