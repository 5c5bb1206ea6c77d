"""Tail-average margin (TAM) retrieval in the quadratic-load regime (004): the
top-k average as a convex surrogate of the k-th score, its exponential
smoothing, the closed-form threshold alpha_c(r), Cover's counting function
(the r -> 1 limit), the finite-size TAM transition and its independence of
the smoothing, and the percentile rank of CMM against the TAM-learned memory.

Notation: for query i the competitor scores are ``S_ij`` (j != i), ``T_k`` is
the average of the k largest, the TAM margin is ``S_ii - T_k``; ``k`` is the
fraction ``r`` of the ``n - 1`` competitors (``k = round(r (n - 1))``,
clipped to ``1..n-1``); the load is ``alpha = n / d^2``::

    kappa(r)   = phi(Phi^{-1}(1 - r)) / r = E[Z | Z > Phi^{-1}(1 - r)]
    alpha_c(r) = 1 / [(1 + kappa^2) Phi(kappa) + kappa phi(kappa)]
               = 1 / E[(kappa + Z)_+^2]

Finite-size sweeps use :mod:`linmem.sweeps` (bisection on the load with fresh
instances and a logistic fit: TAM feasibility with k tied to n is not
monotone on nested instances). TAM feasibility is linmem's LP
(``tam_feasible``), which re-poses an instance on which HiGHS returns an
unknown status (pairs reversed, keys and targets rescaled: both leave the
answer unchanged); one that no form decides counts as undecided.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import warnings
import zlib
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st
from scipy import integrate, special
from scipy.optimize import linprog

import linmem
from linmem import sweeps
from linmem.learn import ConvexFitResult, LinearProgramError
from theorems.evidence import expectation, montecarlo, precise, property, simulation, symbolic
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.tolerance import THRESHOLD, scaled_residual

__all__ = ["CLAIMS", "competitor_count", "fm_separable"]

# --------------------------------------------------------------------------
# sizes, seeds, criteria (fixed before any run)
# --------------------------------------------------------------------------

_CODE = sweeps.source_fingerprint(__file__)

#: The competitor fraction of the sweeps: 004's r = 0.15 (alpha_c = 0.2944).
TAM_R = 0.15

#: Dimensions of the TAM feasibility sweep (quick) and those added per level.
TAM_DIMS = (4, 5, 6)
TAM_DIMS_EXTRA = (7, 8)

#: Bisection: loads bracket (as multiples of alpha_c), fresh instances per
#: step, steps.
TAM_BRACKET = (0.6, 3.0)
TAM_TRIALS = 10
TAM_STEPS = 4

#: Criterion of the finite-size transition: every crossing alpha_50 in
#: [alpha_c, TAM_BAND * alpha_c], and the relative gap alpha_50/alpha_c - 1
#: falls with d: log-log slope <= -0.1, last/first <= 0.9 (the gap falls from
#: about 0.8 at d = 4 to about 0.55 at d = 6; ten trials per step leave it a
#: spread of about 0.1). Power (quick, run seeds 1..8): slope -1.23 +- 0.32,
#: 3.5 standard deviations below -0.1 (at -0.3 it was 2.9: a wrong verdict
#: about 2e-3 of the time); last/first 0.61 +- 0.07, 4 below 0.9. The
#: negative control (a wrong alpha_c) fails the band at every d.
TAM_BAND = 2.5
TAM_CRITERION = dict(max_slope=-0.1, max_last_over_first=0.9)

#: Smoothing parameters and dimensions of the beta-independence sweep, per level.
BETAS = ((5.0, 50.0), (5.0, 30.0, 100.0), (5.0, 30.0, 100.0))
BETA_DIMS = (4,)
BETA_DIMS_EXTRA = (5, 6)

#: Iteration cap of the TAM ERM fits.
ERM_MAXITER = 300

#: The ERM runs on the first BETA_TRIALS of the TAM_TRIALS instances at every
#: size the LP sweep visited (each fit costs tens of milliseconds).
BETA_TRIALS = 6

#: Criterion: every ERM crossing agrees with the LP's (and with each other)
#: within one pair, the resolution of a sweep over integer n: |delta alpha| <= 1/d^2.
BETA_RESOLUTION_PAIRS = 1.0

#: Percentile comparison: load, dimensions, seeds, smoothing; criterion: at
#: every d the TAM-learned memory's mean percentile exceeds CMM's, and the
#: paired t statistic of the gain pooled over every (d, seed) is >= PB_MIN_T
#: (one-sided normal 1e-3). Power (quick, run seeds 1..8): the gain is 0.10
#: to 0.19 at every d (per-d t 4 to 18); the smallest per-d t, the figure
#: before, was 7.4 +- 2.4 against 2 (2.3 standard deviations: a wrong verdict
#: about 1e-2 of the time), while the pooled t over 18 pairs is about 12 and
#: a per-d mean gain at or below zero needs a per-d t below 0. The negative
#: control's gain is -0.26 to -0.32 (t -7 to -12) at every d.
PB_ALPHA = 0.25
PB_DIMS = (6, 8, 10)
PB_DIMS_EXTRA = (12, 16)
PB_SEEDS = 6
PB_BETA = 30.0
PB_MIN_T = 3.09

#: Cover's function: exact enumeration sizes (D, n) and Monte Carlo configs.
COVER_MAX_D = 3
COVER_MAX_N = 7
COVER_GAUSSIAN = ((4, 8), (6, 12), (9, 16))
COVER_TAM = ((2, 2, 8), (2, 3, 12))
COVER_TRIALS = 80

#: Smoothing: betas of the rate sweep and the tied worst case (m, k).
RATE_BETAS = (1.0, 10.0, 100.0, 1e3, 1e4)
RATE_TIED = (8, 4)
RATE_SLOPE = (-1.05, -0.95)

#: The float quadratures of alpha-c-as-integral, and the precision ladder of
#: the mpmath quadratures (two rungs 70 digits apart: the residual must fall
#: by 50 of them; mpmath.quad at 150 digits costs over a second per integral).
QUAD_EPSREL = 1e-13
QUAD_LADDER = (50, 120)

_SQRT_2PI = math.sqrt(2 * math.pi)


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _level(ctx) -> int:
    return max(0, int(round(math.log2(max(1, ctx.profile.sweep)))))


def _dims(ctx, base, extra):
    return tuple(base) + tuple(extra[: _level(ctx)])


def _shared_seed(ctx, label: str) -> int:
    return zlib.crc32(f"{ctx.run_seed}:{label}".encode())


def _cache(ctx, *formulas: str):
    return None if set(formulas) & set(getattr(ctx.impl, "overridden", ())) else True


def _finite_or_inf(criterion):
    def wrapped(sizes, figures):
        ok, fig, thr, why = criterion(sizes, figures)
        return ok, (fig if math.isfinite(fig) else math.inf), thr, why

    return wrapped


def competitor_count(n: int, r: float = TAM_R) -> int:
    """``k = round(r (n - 1))`` clipped to ``1..n-1``.

    >>> competitor_count(21), competitor_count(3)
    (3, 1)
    """
    return max(1, min(n - 1, int(round(r * (n - 1)))))


def _tam_feasible(impl, V, U, k, counter=None) -> bool:
    """TAM feasibility by impl.tam_feasible (which re-poses the instance when
    HiGHS gives up); re-posed and undecided instances are counted, and an
    instance no form decides counts as infeasible."""
    try:
        res = impl.tam_feasible(V, U, k=k)
    except LinearProgramError:
        if counter is not None:
            counter["undecided"] = counter.get("undecided", 0) + 1
        return False
    if counter is not None and getattr(res, "reposed", 0):
        counter["reposed"] = counter.get("reposed", 0) + res.reposed
    return bool(res.feasible)


def _tam_sweep(ctx, d, counter):
    """Logistic crossing of TAM feasibility at dimension d (alpha units)."""
    ac = float(linmem.alpha_c(TAM_R))

    def success(V, U):
        return _tam_feasible(ctx.impl, V, U, competitor_count(V.shape[1]), counter)

    return sweeps.bisect_crossing(
        success, d, load_kind="alpha", bracket=(TAM_BRACKET[0] * ac, TAM_BRACKET[1] * ac),
        trials=TAM_TRIALS, steps=TAM_STEPS, base_seed=_shared_seed(ctx, "tam-lp"), name="tam.lp",
        params={"code": _CODE, "r": TAM_R}, cache=_cache(ctx, "tam_feasible"))


def _alpha_c_complement(r):
    return linmem.alpha_c(1 - r)


@st.composite
def _score_vectors(draw, *, max_m: int = 12, min_m: int = 1):
    """Competitor scores: Gaussian, integer ties, all tied, and magnitudes over
    16 decades; with k from 1 to m."""
    m = draw(st.integers(min_m, max_m))
    kind = draw(st.sampled_from(("gaussian", "ties", "tied", "wide")))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "gaussian":
        s = rng.standard_normal(m)
    elif kind == "ties":
        s = rng.integers(-2, 3, size=m).astype(float)
    elif kind == "tied":
        s = np.full(m, float(rng.integers(-3, 4)))
    else:
        s = rng.standard_normal(m) * 10.0 ** rng.integers(-8, 9, size=m)
    k = draw(st.integers(1, m))
    return {"m": m, "kind": kind, "seed": seed, "k": k}, s, k


def _kth_largest(s, k):
    return float(np.sort(s)[::-1][k - 1])


def _topk_mp(s, k):
    """Top-k average in the current mpmath precision, two ways: by sorting,
    and by the variational form min_t t + (1/k) sum (s_j - t)_+ (the minimum
    is attained at a score)."""
    vals = sorted(s, reverse=True)
    by_sort = sum(vals[:k]) / k
    by_min = min(t + sum(max(x - t, 0) for x in vals) / k for t in vals)
    return by_sort, by_min


def _precise_score_cases():
    """Exact boundary cases: all tied, two levels, near-ties 1e-40 apart,
    sixteen decades of magnitude; k = 1, middle, m."""
    tiny = Fraction(1, 10**40)
    vectors = [
        ("all tied", [Fraction(3)] * 6),
        ("two levels", [Fraction(2)] * 3 + [Fraction(-1)] * 3),
        ("near ties", [Fraction(1) + i * tiny for i in range(6)]),
        ("wide", [Fraction(10) ** e * (-1) ** (e % 2) for e in range(-8, 9, 3)]),
    ]
    return [(f"{label}, k={k}", (vec, k)) for label, vec in vectors for k in (1, 3, len(vec))]


# --------------------------------------------------------------------------
# tam.upper-bound
# --------------------------------------------------------------------------


def _upper_symbolic(ctx):
    out = []
    for k in range(1, 6):
        sk = sympy.Symbol("s_k")
        gaps = sympy.symbols(f"g1:{k}", nonnegative=True) if k > 1 else ()
        top = [sk + g for g in gaps] + [sk]  # the k largest: s_k plus nonnegative gaps
        avg = sum(top) / k
        out.append((f"k={k}: T_k - s_[k] = (1/k) sum of the gaps >= 0", avg - sk - sum(gaps) / k))
    return symbolic.check_scalar(ctx, out)


@st.composite
def _tam_instances(draw):
    """A random memory and pairs (d_k != d_t allowed) with k in 1..n-1."""
    n = draw(st.integers(2, 9))
    dk = draw(st.integers(1, 4))
    dt = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    k = draw(st.integers(1, n - 1))
    V, U = rng.standard_normal((dk, n)), rng.standard_normal((dt, n))
    W = rng.standard_normal((dt, dk)) if draw(st.booleans()) else U @ V.T
    return {"n": n, "dk": dk, "dt": dt, "seed": seed, "k": k}, W, V, U, k


def _upper_property(ctx):
    def measure(case):
        kind = case[0]
        if kind == "scores":
            _, s, k = case[1]
            avg = ctx.impl.topk_average(s, k)
            viol = max(0.0, _kth_largest(s, k) - avg)
            return scaled_residual(viol, scale=len(s) * float(np.max(np.abs(s)) or 1.0))
        _, W, V, U, k = case[1]
        margins = ctx.impl.tam_margins(W, V, U, k=k)
        S = (V.T @ W.T) @ U
        n = S.shape[0]
        eps = np.finfo(float).eps
        worst = 0.0
        for i in range(n):
            tau = 4 * n * eps * (abs(S[i, i]) + np.max(np.abs(S[i])))
            above = int(np.sum(np.delete(S[i], i) >= S[i, i]))
            if margins[i] > tau and above > k - 1:
                worst = math.inf  # a certified query outside the top k
        return worst

    strategy = st.one_of(st.tuples(st.just("scores"), _score_vectors()),
                         st.tuples(st.just("memory"), _tam_instances()))
    return property.check(ctx, strategy, measure, describe=lambda c: c[1][0])


def _upper_precise(ctx):
    def residual(case):
        vec, k = case
        s = [mpmath.mpf(x.numerator) / x.denominator for x in vec]
        by_sort, by_min = _topk_mp(s, k)
        kth = sorted(s, reverse=True)[k - 1]
        scale = len(s) * max(abs(x) for x in s)
        return max(0, kth - by_sort) + abs(by_sort - by_min), scale

    return precise.check(ctx, _precise_score_cases(), residual, falls=False)


def _topk_wrong_denominator(scores, k):
    C = np.asarray(scores, dtype=float)
    return linmem.topk_average(C, k) * k / (k + 1)


# --------------------------------------------------------------------------
# tam.convex
# --------------------------------------------------------------------------


def _convex_symbolic(ctx):
    out = []
    for m, k in ((3, 1), (4, 2), (5, 3), (4, 4)):
        s = sympy.symbols(f"s1:{m + 1}")
        # sorted s1 >= s2 >= ...: the variational form at t = s_k is the top-k average
        form = s[k - 1] + sum(s[j] - s[k - 1] for j in range(k)) / k
        out.append((f"m={m}, k={k}: t + (1/k) sum (s_j - t)_+ at t = s_[k] is T_k", form - sum(s[:k]) / k))
    return symbolic.check_scalar(ctx, out)


@st.composite
def _convex_cases(draw):
    info, a, k = draw(_score_vectors(min_m=1))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    b = rng.standard_normal(a.size) * (1 + np.max(np.abs(a)))
    if draw(st.booleans()):
        b = np.round(b)  # ties in b too
    theta = draw(st.sampled_from((0.5, 1 / 3, 0.9, 1e-3)))
    return {**info, "seed_b": seed, "theta": theta}, a, b, k, theta


def _subset_max(s, k):
    return max(sum(c) / k for c in itertools.combinations(s.tolist(), k))


def _convex_property(ctx):
    def measure(case):
        kind = case[0]
        if kind == "scores":
            _, a, b, k, th = case[1]
            T = lambda x: ctx.impl.topk_average(x, k)  # noqa: E731
            scale = a.size * (np.max(np.abs(a)) + np.max(np.abs(b)) + 1e-300)
            viol = max(0.0, T(th * a + (1 - th) * b) - th * T(a) - (1 - th) * T(b))
            if a.size <= 8:  # the top-k average is the largest mean over k-subsets
                viol = max(viol, abs(T(a) - _subset_max(a, k)))
            return scaled_residual(viol, scale=scale)
        _, W, V, U, k = case[1]
        rng = np.random.default_rng(case[1][0]["seed"] + 1)
        W2 = rng.standard_normal(W.shape)
        m = lambda X: ctx.impl.tam_margins(X, V, U, k=k)  # noqa: E731
        viol = float(np.max(0.5 * m(W) + 0.5 * m(W2) - m(0.5 * W + 0.5 * W2)))
        scale = V.shape[1] * (np.linalg.norm(W) + np.linalg.norm(W2)) * np.linalg.norm(V) * np.linalg.norm(U)
        return scaled_residual(max(0.0, viol), scale=scale)

    strategy = st.one_of(st.tuples(st.just("scores"), _convex_cases()),
                         st.tuples(st.just("memory"), _tam_instances()))
    return property.check(ctx, strategy, measure, describe=lambda c: c[1][0])


def _convex_precise(ctx):
    cases = []
    for label, (vec, k) in _precise_score_cases():
        other = list(reversed(vec))
        for theta in (Fraction(1, 2), Fraction(1, 3)):
            cases.append((f"{label}, theta={theta}", (vec, other, k, theta)))

    def residual(case):
        a, b, k, th = case
        conv = lambda xs: [mpmath.mpf(x.numerator) / x.denominator for x in xs]  # noqa: E731
        A, B = conv(a), conv(b)
        t = mpmath.mpf(th.numerator) / th.denominator
        mix = [t * x + (1 - t) * y for x, y in zip(A, B)]
        T = lambda xs: _topk_mp(xs, k)[0]  # noqa: E731
        scale = len(A) * (max(abs(x) for x in A) + max(abs(x) for x in B))
        return max(0, T(mix) - t * T(A) - (1 - t) * T(B)), scale

    return precise.check(ctx, cases, residual, falls=False)


def _topk_order_statistic(scores, k):
    C = np.asarray(scores, dtype=float)
    if C.ndim == 1:
        return _kth_largest(C, k)
    n = C.shape[0]
    off = C[~np.eye(n, dtype=bool)].reshape(n, n - 1)
    return np.sort(off, axis=1)[:, ::-1][:, k - 1]


# --------------------------------------------------------------------------
# tam.smoothed
# --------------------------------------------------------------------------


def _tied_gap(m, k, beta):
    """Exact gap of the smoothed top-k average for m equal scores:
    c(p)/beta with p = k/m, c(p) = log((1-p)/p) - log(1-p)/p."""
    p = k / m
    if k == m:
        return 0.0
    return (math.log((1 - p) / p) - math.log(1 - p) / p) / beta


@st.composite
def _smoothed_cases(draw):
    info, s, k = draw(_score_vectors())
    beta = draw(st.sampled_from((0.1, 1.0, 7.0, 100.0, 1e4)))
    if draw(st.booleans()) and s.size >= 2:  # the tight case: ties and k = m/2
        s = np.full(s.size, s[0])
        k = max(1, s.size // 2)
    return {**info, "k": k, "beta": beta}, s, k, beta


def _smoothed_property(ctx):
    def measure(case):
        info, s, k, beta = case
        impl = ctx.impl
        F = impl.smoothed_topk_average(s, k, beta=beta)
        T = impl.topk_average(s, k)
        bound = impl.smoothed_topk_gap_bound(s.size, k, beta=beta)
        scale = s.size * (float(np.max(np.abs(s))) + abs(math.log(k / s.size) if k < s.size else 0) / beta + bound)
        viol = max(0.0, T - F, F - T - bound)
        if np.all(s == s[0]):  # the gap of tied scores is known exactly
            viol = max(viol, abs((F - T) - _tied_gap(s.size, k, beta)))
        rng = np.random.default_rng(info["seed"] + 7)
        b = rng.standard_normal(s.size) * (1 + float(np.max(np.abs(s))))
        Fb = impl.smoothed_topk_average(b, k, beta=beta)
        Fm = impl.smoothed_topk_average(0.5 * s + 0.5 * b, k, beta=beta)
        viol = max(viol, Fm - 0.5 * F - 0.5 * Fb)
        return scaled_residual(viol, scale=scale + s.size * float(np.max(np.abs(b))))

    return property.check(ctx, _smoothed_cases(), measure, describe=lambda c: c[0])


def _smoothed_mp(s, k, beta):
    """F_beta(s) in mpmath: solve (1/k) sum sigmoid(beta (s_j - t)) = 1 for t
    (bisection then Newton), then evaluate the objective."""
    m = len(s)
    if k == m:
        return sum(s) / m
    g = lambda t: sum(1 / (1 + mpmath.exp(-beta * (x - t))) for x in s) / k - 1  # noqa: E731
    shift = mpmath.log(mpmath.mpf(k) / (m - k)) / beta
    lo, hi = min(s) - shift - 1, max(s) - shift + 1
    t = mpmath.findroot(g, (lo, hi), solver="anderson")
    return t + sum(mpmath.log1p(mpmath.exp(beta * (x - t))) for x in s) / (k * beta)


def _smoothed_precise(ctx):
    cases = []
    for m, k in ((4, 2), (6, 1), (5, 4), (8, 4)):
        for beta in (1, 100):
            cases.append((f"tied m={m}, k={k}, beta={beta}", ("tied", m, k, beta)))
    cases.append(("mixed m=5, k=2, beta=3", ("mixed", 5, 2, 3)))

    def residual(case):
        kind, m, k, beta = case
        beta = mpmath.mpf(beta)
        if kind == "tied":
            s = [mpmath.mpf(1)] * m
        else:
            s = [mpmath.mpf(x) for x in (3, 1, 2, -1, 2)]
        F = _smoothed_mp(s, k, beta)
        T = _topk_mp(s, k)[0]
        bound = (mpmath.mpf(m) / k) * mpmath.log(2) / beta if k < m else 0
        err = max(0, T - F) + max(0, F - T - bound)
        if kind == "tied" and k < m:
            p = mpmath.mpf(k) / m
            exact = (mpmath.log((1 - p) / p) - mpmath.log(1 - p) / p) / beta
            err += abs((F - T) - exact)
        return err, m * (1 + bound)

    return precise.check(ctx, cases, residual, falls=False)


def _smoothed_rate(ctx):
    """The gap against beta, through linmem: for tied scores (the worst case,
    k = m/2) it must equal c(1/2)/beta = (m/k) log 2 / beta to rounding, so
    its log-log slope is -1; for distinct scores it stays under the bound and
    decays faster. Each beta is a property case; the slope is a condition of
    every case."""
    m, k = RATE_TIED
    tied = np.ones(m)
    generic = np.linspace(1.0, 0.0, m)  # the k-th and (k+1)-th largest apart
    table = {}
    for beta in RATE_BETAS:
        table[beta] = {
            "tied": ctx.impl.smoothed_topk_average(tied, k, beta=beta) - ctx.impl.topk_average(tied, k),
            "generic": ctx.impl.smoothed_topk_average(generic, k, beta=beta) - ctx.impl.topk_average(generic, k),
            "bound": ctx.impl.smoothed_topk_gap_bound(m, k, beta=beta),
        }
    gaps = np.array([table[b]["tied"] for b in RATE_BETAS])
    slope = (simulation.loglog_slope(RATE_BETAS, gaps)
             if np.all(np.isfinite(gaps)) and np.all(gaps > 0) else math.nan)
    slope_ok = RATE_SLOPE[0] <= slope <= RATE_SLOPE[1]

    def measure(beta):
        row = table[beta]
        # scores of size 1: the rounding of F and T is a few eps times m
        viol = max(abs(row["tied"] - _tied_gap(m, k, beta)), row["tied"] - row["bound"],
                   row["generic"] - row["bound"], 0.0)
        return scaled_residual(viol, scale=m) if slope_ok else math.inf

    ev = property.check(ctx, st.sampled_from(RATE_BETAS), measure, describe=lambda b: {"beta": b, "m": m, "k": k})
    ev.detail += f"; tied gap vs beta: log-log slope {slope:.4f} (need in {RATE_SLOPE})"
    ev.data["slope"] = slope
    ev.data["table"] = {str(b): v for b, v in table.items()}
    ev.data["plot"] = {
        "title": "Smoothing gap F_beta - T_k against beta",
        "x_label": "beta", "y_label": "gap", "xscale": "log", "yscale": "log",
        "series": [
            {"label": "tied scores (worst case)", "x": list(RATE_BETAS),
             "y": [table[b]["tied"] for b in RATE_BETAS], "style": "points"},
            {"label": "distinct scores (gap 0 in float64 not shown)",
             "x": [b for b in RATE_BETAS if table[b]["generic"] > 0],
             "y": [table[b]["generic"] for b in RATE_BETAS if table[b]["generic"] > 0], "style": "points"},
            {"label": "bound (m/k) log 2 / beta", "x": list(RATE_BETAS),
             "y": [table[b]["bound"] for b in RATE_BETAS], "style": "line"},
        ],
    }
    return ev


def _gap_bound_without_ratio(n_competitors, k, *, beta):
    return 0.0 if k == n_competitors else math.log(2.0) / beta


# --------------------------------------------------------------------------
# tam.alpha-c-closed-form, tam.alpha-c-as-integral, tam.alpha-c-limits
# --------------------------------------------------------------------------


def _mp_r(r):
    """An exact mpmath copy of r (float or Fraction)."""
    if isinstance(r, Fraction):
        return mpmath.mpf(r.numerator) / r.denominator
    return mpmath.mpf(r)


def _quantile_independent(r):
    """q = Phi^{-1}(1 - r) at the working precision, by root finding on the
    normal distribution function (not linmem's erfinv route): on the upper
    tail for r < 1/2 and on the lower one otherwise, so that no tail
    probability is formed by cancellation (1 - r is exact for the binary or
    rational r used here)."""
    rm = _mp_r(r)
    if rm < mpmath.mpf(1) / 2:
        guess = mpmath.mpf(-float(special.ndtri(float(rm))))
        return mpmath.findroot(lambda x: mpmath.ncdf(-x) - rm, guess)
    tail = 1 - rm
    guess = mpmath.mpf(float(special.ndtri(float(tail))))
    return mpmath.findroot(lambda x: mpmath.ncdf(x) - tail, guess)


def _kappa_independent(r):
    """kappa = phi(q) / r with q from :func:`_quantile_independent`."""
    return mpmath.npdf(_quantile_independent(r)) / _mp_r(r)


def _alpha_from_kappa(k):
    return 1 / ((1 + k * k) * mpmath.ncdf(k) + k * mpmath.npdf(k))


def _closed_symbolic(ctx):
    z = sympy.Symbol("z", real=True)
    phi = sympy.exp(-z**2 / 2) / sympy.sqrt(2 * sympy.pi)
    tail = sympy.erfc(z / sympy.sqrt(2)) / 2
    erfcx = sympy.exp(z**2 / 2) * sympy.erfc(z / sympy.sqrt(2))
    half = sympy.Rational(1, 2)
    zq = sympy.sqrt(2) * sympy.erfinv(1 - 2 * half)
    k_half = (sympy.exp(-zq**2 / 2) / sympy.sqrt(2 * sympy.pi)) / half
    kr = sympy.Symbol("kappa", positive=True)
    Phi_k = (1 + sympy.erf(kr / sympy.sqrt(2))) / 2
    alpha_expr = 1 / ((1 + kr**2) * Phi_k + kr * sympy.exp(-kr**2 / 2) / sympy.sqrt(2 * sympy.pi))
    r = sympy.Rational(3, 20)
    zr = sympy.sqrt(2) * sympy.erfinv(1 - 2 * r)
    kappa_r = (sympy.exp(-zr**2 / 2) / sympy.sqrt(2 * sympy.pi)) / r
    value = sympy.N(alpha_expr.subs(kr, kappa_r), 30)
    return symbolic.check_scalar(ctx, [
        ("phi(z) / (1 - Phi(z)) = sqrt(2/pi) / erfcx(z / sqrt 2) (linmem's evaluation)",
         phi / tail - sympy.sqrt(2 / sympy.pi) / erfcx),
        ("r = 1/2: Phi^{-1}(1/2) = 0 and kappa = sqrt(2/pi)", k_half - sympy.sqrt(2 / sympy.pi)),
        ("alpha_c(3/20) = 0.294 to three digits", sympy.Rational(round(float(value) * 1000), 1000)
         - sympy.Rational(294, 1000)),
    ])


#: r values of the precision ladders: 004's r (as the float 0.15 and as the
#: exact 3/20), the symmetric point, tails of 1e-12 and 1 - 2^-30.
_R_CASES = (("0.15 (float)", 0.15), ("3/20", Fraction(3, 20)), ("1/2", 0.5),
            ("1e-12", 1e-12), ("1 - 2^-30", 1 - 2.0**-30))


def _closed_precise(ctx):
    def residual(r):
        dps = mpmath.mp.dps
        k_ind = _kappa_independent(r)
        a_ind = _alpha_from_kappa(k_ind)
        err = (abs(ctx.impl.alpha_c_mp(r, dps=dps) - a_ind) / a_ind
               + abs(ctx.impl.kappa_mp(r, dps=dps) - k_ind) / k_ind)
        return err, 1

    return precise.check(ctx, list(_R_CASES), residual, falls=True)


def _alpha_reference(r, dps=30):
    with mpmath.workdps(dps):
        return float(_alpha_from_kappa(_kappa_independent(r)))


_r_floats = st.one_of(
    st.floats(1e-300, 1 - 2.0**-40, allow_nan=False),
    st.floats(-300.0, -1.0).map(lambda e: 10.0**e),
    st.floats(-40.0, -1.0).map(lambda e: 1 - 2.0**e),
    st.just(0.15),
)


def _closed_property(ctx):
    def measure(r):
        got = ctx.impl.alpha_c(r)
        ref = _alpha_reference(r)
        return scaled_residual(abs(got - ref), scale=abs(ref))

    return property.check(ctx, _r_floats, measure, describe=lambda r: {"r": r})


def _alpha_dropped_kappa_phi(r):
    """Wrong variant: 1 / [(1 + kappa^2) Phi(kappa)] (the kappa phi(kappa) term dropped)."""
    k = linmem.kappa(r)
    return 1 / ((1 + k * k) * special.ndtr(k))


def _alpha_mp_dropped(r, *, dps=50):
    k = linmem.kappa_mp(r, dps=dps)
    with mpmath.workdps(dps):
        return 1 / ((1 + k * k) * mpmath.ncdf(k))


def _integral_symbolic(ctx):
    k = sympy.Symbol("kappa", positive=True)
    z = sympy.Symbol("z", real=True)
    a = sympy.Symbol("a", real=True)
    phi = sympy.exp(-z**2 / 2) / sympy.sqrt(2 * sympy.pi)
    Phi_k = (1 + sympy.erf(k / sympy.sqrt(2))) / 2
    phi_k = sympy.exp(-k**2 / 2) / sympy.sqrt(2 * sympy.pi)
    integral = sympy.integrate((k + z) ** 2 * phi, (z, -k, sympy.oo))
    tail_mean = sympy.integrate(z * phi, (z, a, sympy.oo))
    return symbolic.check_scalar(ctx, [
        ("int_{-kappa}^inf (kappa + z)^2 phi(z) dz = (1 + kappa^2) Phi(kappa) + kappa phi(kappa)",
         (integral - ((1 + k**2) * Phi_k + k * phi_k)).rewrite(sympy.erf)),
        ("int_a^inf z phi(z) dz = phi(a), so E[Z | Z > a] = phi(a) / P(Z > a)",
         tail_mean - sympy.exp(-a**2 / 2) / sympy.sqrt(2 * sympy.pi)),
    ])


def _quad_mp_both(impl, r):
    """(alpha residual, kappa residual) of the two integrals by mpmath.quad
    against linmem's mpmath values at the working precision."""
    dps = mpmath.mp.dps
    rm = _mp_r(r)
    kap = impl.kappa_mp(r, dps=dps)
    alpha = impl.alpha_c_mp(r, dps=dps)
    q = _quantile_independent(r)
    tail = mpmath.quad(lambda x: x * mpmath.npdf(x), [q, q + 1, q + 4, mpmath.inf]) / rm
    second = mpmath.quad(lambda x: (kap + x) ** 2 * mpmath.npdf(x), [-kap, 0, 4, mpmath.inf])
    return abs(second * alpha - 1), abs(tail - kap) / kap


def _integral_precise_quad(ctx):
    def residual(r):
        ea, ek = _quad_mp_both(ctx.impl, r)
        return ea + ek, 1

    return precise.check(ctx, [("r = 0.15", 0.15)], residual, falls=True, ladder=QUAD_LADDER)


def _integral_precise_gamma(ctx):
    """The same two integrals through the regularised incomplete gamma
    function (a different route from both the closed form and quadrature):
    int_a^inf z^j phi(z) dz for j = 0, 1, 2."""

    def moment(j, a):
        # int_a^inf z^j phi(z) dz, via Gamma((j+1)/2, a^2/2) on each side of 0
        half = (j + 1) / mpmath.mpf(2)
        c = 2 ** (half - 1) / mpmath.sqrt(2 * mpmath.pi)
        upper = c * mpmath.gammainc(half, a * a / 2)  # int_{|a|}^inf z^j phi
        full = c * mpmath.gamma(half)  # int_0^inf z^j phi
        if a >= 0:
            return upper
        # a < 0: add int_a^0 z^j phi = (-1)^j (full - upper); for odd j the two
        # pieces over [a, |a|] cancel exactly, so no difference is formed
        return upper if j % 2 else 2 * full - upper

    def residual(r):
        dps = mpmath.mp.dps
        rm = _mp_r(r)
        kap = ctx.impl.kappa_mp(r, dps=dps)
        alpha = ctx.impl.alpha_c_mp(r, dps=dps)
        q = _quantile_independent(r)
        second = (kap * kap * moment(0, -kap) + 2 * kap * moment(1, -kap) + moment(2, -kap))
        return abs(second * alpha - 1) + abs(moment(1, q) / rm - kap) / kap, 1

    return precise.check(ctx, list(_R_CASES), residual, falls=True)


def _integral_ratio(impl, r) -> float:
    """Scaled residual of both integrals by scipy quad (beyond quad's own
    error estimate) against 1/alpha_c(r) and kappa(r) in float64."""
    kap = impl.kappa(r)
    q = -special.ndtri(r)
    with warnings.catch_warnings():
        # quad's error estimate is subtracted below; its roundoff notice adds nothing
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        second, err2 = integrate.quad(lambda x: (kap + x) ** 2 * math.exp(-x * x / 2) / _SQRT_2PI,
                                      -kap, np.inf, epsabs=0, epsrel=QUAD_EPSREL, limit=200)
        tail, err1 = integrate.quad(lambda x: x * math.exp(-x * x / 2) / _SQRT_2PI, q, np.inf,
                                    epsabs=0, epsrel=QUAD_EPSREL, limit=200)
    closed = 1 / impl.alpha_c(r)
    da = max(0.0, abs(second - closed) - err2)
    dk = max(0.0, abs(tail / r - kap) - err1 / r)
    return max(scaled_residual(da, scale=closed), scaled_residual(dk, scale=kap))


def _integral_property(ctx):
    rs = st.one_of(st.floats(1e-6, 1 - 1e-6), st.floats(-12.0, -1.0).map(lambda e: 10.0**e))
    return property.check(ctx, rs, lambda r: _integral_ratio(ctx.impl, r), describe=lambda r: {"r": r})


def _kappa_as_quantile(r):
    return -special.ndtri(np.asarray(r, dtype=float)) if np.ndim(r) else float(-special.ndtri(r))


def _kappa_mp_as_quantile(r, *, dps=50):
    with mpmath.workdps(dps):
        return -mpmath.sqrt(2) * mpmath.erfinv(2 * _mp_r(r) - 1)


def _limits_symbolic(ctx):
    k = sympy.Symbol("kappa", positive=True)
    z = sympy.Symbol("z", real=True)
    Phi = lambda x: (1 + sympy.erf(x / sympy.sqrt(2))) / 2  # noqa: E731
    phi = lambda x: sympy.exp(-x**2 / 2) / sympy.sqrt(2 * sympy.pi)  # noqa: E731
    D = (1 + k**2) * Phi(k) + k * phi(k)
    mills = phi(z) / (1 - Phi(z))
    return symbolic.check_scalar(ctx, [
        ("D'(kappa) = 2 (kappa Phi(kappa) + phi(kappa)) = 2 E[(kappa + Z)_+] > 0", sympy.diff(D, k)
         - 2 * (k * Phi(k) + phi(k))),
        ("kappa -> 0: 1/D -> 2 (Cover)", sympy.limit(1 / D, k, 0) - 2),
        ("kappa -> oo: 1/D -> 0", sympy.limit(1 / D, k, sympy.oo)),
        ("r -> 1 (z -> -oo): kappa = phi(z)/(1 - Phi(z)) -> 0", sympy.limit(mills, z, -sympy.oo)),
        ("r -> 0 (z -> oo): kappa / z -> 1, so kappa -> oo", sympy.limit(mills / z, z, sympy.oo) - 1),
    ])


def _limit_violations(a, k):
    """Violations of 1/(1/2 + 2 phi(0) kappa + kappa^2) <= alpha_c <= min(2, 2/(1 + kappa^2))."""
    c = 2 / mpmath.sqrt(2 * mpmath.pi) if isinstance(a, mpmath.mpf) else 2 / _SQRT_2PI
    lower = 1 / (0.5 + c * k + k * k)
    upper = min(2, 2 / (1 + k * k))
    return max(0, lower - a, a - upper)


@st.composite
def _r_pairs(draw):
    r1 = draw(_r_floats)
    step = draw(st.one_of(st.floats(-15.0, 0.0).map(lambda e: 10.0**e), st.just(0.5)))
    r2 = r1 + (1 - r1) * step
    if not (r1 < r2 < 1):
        r2 = (r1 + 1) / 2 if r1 < 1 else r1
    return float(r1), float(r2)


def _limits_property(ctx):
    def measure(pair):
        r1, r2 = pair
        a1, a2 = ctx.impl.alpha_c(r1), ctx.impl.alpha_c(r2)
        worst = 0.0
        if r1 < r2:
            worst = max(worst, scaled_residual(max(0.0, a1 - a2), scale=4 * a2))
        for r, a in ((r1, a1), (r2, a2)):
            worst = max(worst, scaled_residual(_limit_violations(a, ctx.impl.kappa(r)), scale=4 * max(a, 1e-300)))
        return worst

    return property.check(ctx, _r_pairs(), measure, describe=lambda p: {"r1": p[0], "r2": p[1]})


def _limits_precise(ctx):
    exps = (100, 20, 5, 1)
    cases = [("r = 10^-100 .. 1 - 10^-30 (monotone chain and sandwich bounds)", None)]

    def residual(_):
        dps = mpmath.mp.dps
        rs = [Fraction(1, 10**e) for e in exps] + [Fraction(1, 2)] + [1 - Fraction(1, 10**e) for e in (1, 5, 30)]
        alphas = [ctx.impl.alpha_c_mp(r, dps=dps) for r in rs]
        kappas = [ctx.impl.kappa_mp(r, dps=dps) for r in rs]
        err = sum(max(0, alphas[i] - alphas[i + 1]) for i in range(len(rs) - 1))
        err += sum(_limit_violations(a, k) for a, k in zip(alphas, kappas))
        return err, 4

    ev = precise.check(ctx, cases, residual, falls=False)
    with mpmath.workdps(30):
        ev.data["values"] = {f"1e-{e}": float(ctx.impl.alpha_c_mp(Fraction(1, 10**e), dps=30)) for e in (300, 100, 5)}
        ev.data["values"].update({f"1-1e-{e}": float(ctx.impl.alpha_c_mp(1 - Fraction(1, 10**e), dps=30))
                                  for e in (1, 5, 30)})
    return ev


def _alpha_dropped_one(r):
    k = linmem.kappa(r)
    return 1 / (k * k * special.ndtr(k) + k * np.exp(-0.5 * k * k) / _SQRT_2PI)


def _alpha_mp_dropped_one(r, *, dps=50):
    k = linmem.kappa_mp(r, dps=dps)
    with mpmath.workdps(dps):
        return 1 / (k * k * mpmath.ncdf(k) + k * mpmath.npdf(k))


# --------------------------------------------------------------------------
# tam.cover-counting
# --------------------------------------------------------------------------


def fm_separable(Y) -> bool:
    """Exact decision, by Fourier-Motzkin elimination in rationals, of
    whether some w has ``y_i . w > 0`` for every row ``y_i`` of Y
    (equivalently ``y_i . w >= 1``).

    >>> from fractions import Fraction as F
    >>> fm_separable([[F(1), F(0)], [F(0), F(1)]]), fm_separable([[F(1)], [F(-1)]])
    (True, False)
    """
    cons = [(list(map(Fraction, y)), Fraction(1)) for y in Y]
    D = len(cons[0][0]) if cons else 0
    for v in range(D):
        pos = [(a, b) for a, b in cons if a[v] > 0]
        neg = [(a, b) for a, b in cons if a[v] < 0]
        new = [(a, b) for a, b in cons if a[v] == 0]
        for ap, bp in pos:
            for aq, bq in neg:
                cp, cq = -aq[v], ap[v]
                new.append(([cp * x + cq * y for x, y in zip(ap, aq)], cp * bp + cq * bq))
        seen, cons = set(), []
        for a, b in new:  # normalise to drop duplicates
            scale = max((abs(x) for x in a), default=0) or 1
            key = (tuple(x / scale for x in a), b / scale)
            if key not in seen:
                seen.add(key)
                cons.append((a, b))
    return all(b <= 0 for _, b in cons)


def _general_position(X) -> bool:
    """Every min(D, n)-subset of the n points in R^D is linearly independent (exact)."""
    n, D = len(X), len(X[0])
    m = min(n, D)
    for rows in itertools.combinations(range(n), m):
        M = sympy.Matrix([[X[i][j] for j in range(D)] for i in rows])
        if M.rank() < m:
            return False
    return True


@st.composite
def _cover_instances(draw):
    D = draw(st.integers(1, COVER_MAX_D))
    n = draw(st.integers(1, COVER_MAX_N))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    for _ in range(100):
        X = [[Fraction(int(x)) for x in rng.integers(-5, 6, size=D)] for _ in range(n)]
        if _general_position(X):
            return {"D": D, "n": n, "seed": seed}, X
    raise AssertionError("no point set in general position found")  # pragma: no cover


def _cover_enumeration(ctx):
    def residual(case):
        info, X = case
        n = len(X)
        count = 0
        for signs in itertools.product((1, -1), repeat=n - 1):
            s = (1,) + signs  # s and -s are separable together: count half, double
            if fm_separable([[si * x for x in row] for si, row in zip(s, X)]):
                count += 2
        prob = Fraction(count, 2**n)
        return (prob - ctx.impl.cover_probability(n, info["D"])) ** 2

    return expectation.check(ctx, _cover_instances(), residual, describe=lambda c: c[0])


def _cover_recursion(ctx):
    def C(n, D):
        return ctx.impl.cover_probability(n, D) * 2**n

    @st.composite
    def sizes(draw):
        return draw(st.integers(1, 60)), draw(st.integers(2, 30))

    def residual(nd):
        n, D = nd
        rec = C(n + 1, D) - C(n, D) - C(n, D - 1)
        return (rec ** 2 + (C(1, D) - 2) ** 2 + (C(n, 1) - 2) ** 2
                + (C(n, n + D) - 2**n) ** 2 + (ctx.impl.cover_probability(2 * D, D) - Fraction(1, 2)) ** 2)

    return symbolic.check_exact(ctx, sizes(), residual, describe=lambda nd: {"n": nd[0], "D": nd[1]})


def _lp_separable(A) -> bool:
    """Reference decision by HiGHS: max t s.t. a_i . w >= t, |w|_inf <= 1."""
    n, D = A.shape
    c = np.zeros(D + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-A, np.ones((n, 1))])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(n), bounds=[(-1, 1)] * D + [(None, 1)], method="highs")
    if res.status != 0:
        raise LinearProgramError(f"reference LP status {res.status}: {res.message}")
    return bool(-res.fun > 1e-9 * max(1.0, float(np.max(np.abs(A)))))


def _cover_montecarlo(ctx):
    impl = ctx.impl
    expected = [float(impl.cover_probability(n, D)) for D, n in COVER_GAUSSIAN]
    expected += [float(impl.cover_probability(n, du * dv)) for du, dv, n in COVER_TAM]
    counter = {}

    def sample(rng, size):
        # the rows depend only on the generator's state (not on the formula
        # under test): cache them under a hash of that state
        state = hashlib.sha256(json.dumps(rng.bit_generator.state, sort_keys=True, default=str).encode())
        value, _ = sweeps.cached_call(lambda: draw(rng, size).tolist(), name="tam.cover.mc",
                                      params={"code": _CODE, "size": size}, seed=state.hexdigest()[:32],
                                      cache=_cache(ctx, "tam_feasible"))
        return np.asarray(value, dtype=float)

    def draw(rng, size):
        out = np.empty((size, len(expected)))
        for s in range(size):
            col = 0
            for D, n in COVER_GAUSSIAN:
                out[s, col] = _lp_separable(rng.standard_normal((n, D)))
                col += 1
            for du, dv, n in COVER_TAM:
                V = rng.standard_normal((dv, n))
                U = rng.standard_normal((du, n))
                out[s, col] = _tam_feasible(impl, V, U, n - 1, counter)
                col += 1
        return out

    names = ([f"Gaussian D={D}, n={n}" for D, n in COVER_GAUSSIAN]
             + [f"TAM D={du * dv}, n={n}" for du, dv, n in COVER_TAM])
    ev = montecarlo.check(ctx, sample, expected, n=COVER_TRIALS * ctx.profile.sweep, names=names,
                          label="satisfiability frequency of n random homogeneous constraints in D "
                                "dimensions (Gaussian a_i by a reference LP; TAM at k = n-1 by tam_feasible)")
    ev.data["configs"] = ([{"route": "gaussian", "D": D, "n": n} for D, n in COVER_GAUSSIAN]
                          + [{"route": "tam k=n-1", "D": du * dv, "n": n} for du, dv, n in COVER_TAM])
    ev.data["lp_reposed"] = counter
    return ev


def _cover_wrong_binomial(n, D):
    """Wrong variant: binom(n, k) in place of binom(n - 1, k)."""
    return Fraction(2 * sum(math.comb(n, k) for k in range(min(D, n + 1))), 2**n)


# --------------------------------------------------------------------------
# tam.threshold, tam.beta-independent, tam.cmm-percentile-behind
# --------------------------------------------------------------------------


def _threshold(ctx):
    dims = _dims(ctx, TAM_DIMS, TAM_DIMS_EXTRA)
    counter = {}
    table = {d: _tam_sweep(ctx, d, counter) for d in dims}
    ac = float(ctx.impl.alpha_c(TAM_R))
    inner = _finite_or_inf(simulation.shrinks(**TAM_CRITERION))

    def measure(d, rng):
        a = table[d].crossing
        return a / ac - 1 if math.isfinite(a) else math.inf

    def criterion(sizes, figures):
        crossings = [table[d].crossing for d in sizes]
        bad = [d for d in sizes if table[d].censored or not math.isfinite(table[d].crossing)
               or not (ac <= table[d].crossing <= TAM_BAND * ac)]
        ok, fig, thr, why = inner(sizes, figures)
        return ok and not bad, fig, thr, (
            f"alpha_50 {[round(c, 4) for c in crossings]} vs alpha_c({TAM_R}) = {ac:.4f} "
            f"(band [alpha_c, {TAM_BAND} alpha_c]); relative gap: {why}"
            + (f"; outside the band or censored at d = {bad}" if bad else ""))

    ev = simulation.check(ctx, dims, measure, criterion,
                          label=f"TAM feasibility (LP) at r = {TAM_R}: alpha_50 / alpha_c - 1")
    ev.data["crossings"] = {str(d): {"alpha_50": r.crossing, "n50": r.n50, "censored": r.censored,
                                     "evaluations": r.evaluations, "cache_hits": r.cache_hits}
                            for d, r in table.items()}
    ev.data["lp_reposed"] = counter
    rs = np.linspace(0.01, 0.99, 99)
    series = [{"label": "alpha_c(r)", "x": rs.tolist(), "y": [float(x) for x in ctx.impl.alpha_c(rs)],
               "style": "line"}]
    for d, res in table.items():
        series.append({"label": f"finite-size crossing, d = {d}", "x": [TAM_R], "y": [res.crossing],
                       "style": "points"})
    series.append({"label": "r -> 1: Cover, P = 1/2 exactly at n = 2 d^2", "x": [1.0], "y": [2.0],
                   "style": "points"})
    ev.data["plot"] = {"title": "TAM threshold alpha_c(r) and finite-size feasibility crossings",
                       "x_label": "r = k / n", "y_label": "alpha = n / d^2", "xscale": "linear",
                       "yscale": "linear", "series": series}
    return ev


def _beta_independent(ctx):
    dims = _dims(ctx, BETA_DIMS, BETA_DIMS_EXTRA)
    betas = BETAS[min(_level(ctx), len(BETAS) - 1)]
    counter = {}
    info = {}
    base = _shared_seed(ctx, "tam-lp")
    erm_cache = _cache(ctx, "tam_erm", "tam_margins")
    for d in dims:
        lp = _tam_sweep(ctx, d, counter)
        # the first BETA_TRIALS trials at every size of the LP sweep
        trial = np.arange(lp.ns.size) % TAM_TRIALS
        keep = trial < BETA_TRIALS
        ns, lp_out, trial = lp.ns[keep], lp.outcomes[keep], trial[keep]
        x50, _ = sweeps.logistic_crossing(np.log(ns), lp_out)
        row = {"lp": _alpha_from_log_n(x50, d)}
        for beta in betas:
            outs = []
            for n, feasible, t in zip(ns.tolist(), lp_out.tolist(), trial.tolist()):
                if not feasible:  # no memory has positive TAM margins there, so no ERM either
                    outs.append(False)
                    continue
                k = competitor_count(n)

                def fit(n=n, t=t, k=k):
                    V, U = sweeps.gaussian_pairs(d, n, rng=sweeps.instance_rng(base, d, n, t))
                    res = ctx.impl.tam_erm(V, U, k=k, beta=beta, ridge=0.0, maxiter=ERM_MAXITER)
                    return bool(np.all(ctx.impl.tam_margins(res.W, V, U, k=k) > 0))

                ok, _ = sweeps.cached_call(fit, name="tam.erm", params={"code": _CODE, "d": d, "n": n, "k": k,
                                                                      "beta": beta, "maxiter": ERM_MAXITER},
                                           seed=[base, n, t], cache=erm_cache)
                outs.append(bool(ok))
            x50, _ = sweeps.logistic_crossing(np.log(ns), np.array(outs))
            row[beta] = _alpha_from_log_n(x50, d)
            row[f"agree_{beta}"] = float(np.mean(np.array(outs) == lp_out))
        info[d] = row

    def measure(d, rng):
        vals = [info[d]["lp"]] + [info[d][b] for b in betas]
        if not all(math.isfinite(v) for v in vals):
            return math.inf
        return (max(vals) - min(vals)) * d * d  # spread in pairs

    def criterion(sizes, figures):
        worst = max(figures)
        ok = worst <= BETA_RESOLUTION_PAIRS
        return ok, worst, BETA_RESOLUTION_PAIRS, (
            f"crossings alpha_50 (LP, then beta = {list(betas)}): "
            f"{ {d: [round(info[d][key], 4) for key in ['lp', *betas]] for d in sizes} }; largest spread "
            f"{worst:.2f} pairs (need <= {BETA_RESOLUTION_PAIRS})")

    ev = simulation.check(ctx, dims, measure, criterion,
                          label="ridgeless smoothed-TAM ERM at several beta against the TAM feasibility LP")
    ev.data["crossings"] = {str(d): {str(k): v for k, v in row.items()} for d, row in info.items()}
    ev.data["lp_reposed"] = counter
    return ev


def _alpha_from_log_n(x50: float, d: int) -> float:
    """The load n/d^2 at a logistic crossing in log n (NaN when there is none)."""
    return math.exp(x50) / d**2 if math.isfinite(x50) and abs(x50) < 50 else math.nan


def _erm_ridge_grows_with_beta(keys, targets, *, k, beta, ridge=0.0, maxiter=500, init=None):
    """Wrong variant: a ridge that grows with the smoothing parameter
    (ridge + beta / 1000), which ties the transition to beta."""
    return linmem.tam_erm(keys, targets, k=k, beta=beta, ridge=ridge + beta / 1000, maxiter=maxiter, init=init)


def _percentile_behind(ctx):
    dims = _dims(ctx, PB_DIMS, PB_DIMS_EXTRA)
    base = _shared_seed(ctx, "tam-percentile")
    table = {}
    for d in dims:
        n = max(3, int(round(PB_ALPHA * d * d)))
        k = competitor_count(n)
        rows = []
        for s in range(PB_SEEDS):
            def cmm_rank(s=s):
                V, U = sweeps.gaussian_pairs(d, n, rng=sweeps.instance_rng(base, d, n, s))
                return float(np.mean(ctx.impl.percentile_rank(ctx.impl.cmm(V, U), V, U)))

            def tam_rank(s=s):
                V, U = sweeps.gaussian_pairs(d, n, rng=sweeps.instance_rng(base, d, n, s))
                fit = ctx.impl.tam_erm(V, U, k=k, beta=PB_BETA, ridge=0.0, maxiter=ERM_MAXITER)
                return float(np.mean(ctx.impl.percentile_rank(fit.W, V, U)))

            key = {"code": _CODE, "d": d, "n": n, "k": k, "beta": PB_BETA}
            c, _ = sweeps.cached_call(cmm_rank, name="tam.pct.cmm", params=key, seed=[base, s],
                                      cache=_cache(ctx, "cmm", "percentile_rank"))
            t, _ = sweeps.cached_call(tam_rank, name="tam.pct.erm", params=key, seed=[base, s],
                                      cache=_cache(ctx, "tam_erm", "percentile_rank"))
            rows.append((c, t))
        rows = np.array(rows)
        gain = rows[:, 1] - rows[:, 0]
        se = gain.std(ddof=1) / math.sqrt(len(gain))
        tstat = gain.mean() / se if se > 0 else (math.inf if gain.mean() > 0 else -math.inf)
        table[d] = {"n": n, "k": k, "cmm": float(rows[:, 0].mean()), "tam": float(rows[:, 1].mean()),
                    "gain": float(gain.mean()), "t": float(tstat), "gains": gain.tolist()}

    def measure(d, rng):
        return table[d]["t"]

    def criterion(sizes, figures):
        gains = np.concatenate([table[d]["gains"] for d in sizes])
        se = gains.std(ddof=1) / math.sqrt(gains.size)
        pooled = gains.mean() / se if se > 0 else (math.inf if gains.mean() > 0 else -math.inf)
        ok = all(table[d]["gain"] > 0 for d in sizes) and pooled >= PB_MIN_T
        return ok, float(pooled), PB_MIN_T, (
            f"mean percentile CMM vs TAM-learned (gain, t): "
            f"{ {d: (round(table[d]['cmm'], 4), round(table[d]['tam'], 4), round(table[d]['gain'], 4), round(table[d]['t'], 1)) for d in sizes} } "
            f"(need gain > 0 at every d); paired t of the gain pooled over {gains.size} (d, seed) pairs "
            f"{pooled:.1f} (need >= {PB_MIN_T})")

    ev = simulation.check(ctx, dims, measure, criterion,
                          label=f"signal percentile at alpha = n/d^2 = {PB_ALPHA}, r = {TAM_R}")
    ev.comparison = ">="
    ev.data["table"] = {str(d): v for d, v in table.items()}
    ev.data["plot"] = {
        "title": f"Mean percentile rank of the matched target at alpha = {PB_ALPHA}",
        "x_label": "d", "y_label": "mean percentile rank", "xscale": "linear", "yscale": "linear",
        "series": [{"label": "CMM", "x": list(dims), "y": [table[d]["cmm"] for d in dims], "style": "line"},
                   {"label": f"TAM-learned (beta = {PB_BETA:g})", "x": list(dims),
                    "y": [table[d]["tam"] for d in dims], "style": "line"}],
        "hlines": [{"y": 1 - TAM_R, "label": "1 - r"}],
    }
    return ev


def _erm_transposed(keys, targets, *, k, beta, ridge=0.0, maxiter=500, init=None):
    fit = linmem.tam_erm(keys, targets, k=k, beta=beta, ridge=ridge, maxiter=maxiter, init=init)
    return ConvexFitResult(fit.W.T.copy(), fit.loss, fit.data_loss, fit.norm, fit.n_iter, fit.converged,
                           fit.message)


# --------------------------------------------------------------------------
# the claims
# --------------------------------------------------------------------------

_TAM_SETTING = ("keys and targets i.i.d. N(0, I_d/d); k = round(r (n - 1)) of the n - 1 competitors; "
                "load alpha = n / d^2")

CLAIMS = [
    Claim(
        id="tam.upper-bound",
        title="The top-k average is at least the k-th largest score; a positive TAM margin puts the match in the top k",
        statement=(r"T_k(s) = \tfrac1k\sum_{l\le k} s_{[l]} \ \ge\ s_{[k]};\quad "
                   r"S_{ii} - T_k(S_{i,-i}) > 0 \Rightarrow \#\{j \ne i: S_{ij} \ge S_{ii}\} \le k - 1"),
        kind=ClaimKind.INEQUALITY,
        source="004 (the tail-average margin certifies top-k membership)",
        assumptions=("any real scores, ties allowed; 1 <= k <= number of competitors",),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _upper_symbolic,
                  "sympy: T_k - s_[k] is the mean of nonnegative gaps"),
            Check("ladder", EvidenceKind.PRECISE, _upper_precise,
                  "mpmath: ties, near-ties 1e-40 apart, 16 decades; sorting and variational forms agree"),
            Check("float", EvidenceKind.PROPERTY, _upper_property,
                  "float64 scores with ties and wide ranges; certified queries of random memories are in the top k"),
        ),
        negative_control=NegativeControl("top-k sum divided by k + 1", {"topk_average": _topk_wrong_denominator}),
    ),
    Claim(
        id="tam.convex",
        title="The top-k average is convex (a maximum of subset means), so the TAM margin is concave in W",
        statement=(r"T_k(s) = \max_{|J| = k} \tfrac1k \sum_{j \in J} s_j,\quad "
                   r"T_k(\theta a + (1-\theta) b) \le \theta T_k(a) + (1-\theta) T_k(b)"),
        kind=ClaimKind.INEQUALITY,
        source="004 (the TAM program is convex)",
        assumptions=("any real scores; theta in [0, 1]",
                     "the TAM margin S_ii - T_k(S_i,-i) is linear minus convex in W, hence concave"),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _convex_symbolic,
                  "sympy: the variational form t + (1/k) sum (s_j - t)_+ at t = s_[k] is T_k"),
            Check("ladder", EvidenceKind.PRECISE, _convex_precise,
                  "mpmath: convexity along segments through ties and near-ties"),
            Check("float", EvidenceKind.PROPERTY, _convex_property,
                  "float64: convex combinations, subset-maximum form, concavity of tam_margins in W"),
        ),
        negative_control=NegativeControl("the k-th largest score in place of the top-k average",
                                          {"topk_average": _topk_order_statistic}),
    ),
    Claim(
        id="tam.smoothed",
        title="The smoothed top-k average is convex, bounds T_k from above, and is within (m/k) log 2 / beta of it",
        statement=(r"F_\beta(s) = \min_t\, t + \tfrac1k \sum_j \tfrac1\beta \log(1 + e^{\beta(s_j - t)}):\ "
                   r"F_\beta \text{ convex},\ 0 \le F_\beta - T_k \le \tfrac{m}{k}\tfrac{\log 2}{\beta}"),
        kind=ClaimKind.INEQUALITY,
        source="004 (exponentially smoothed TAM keeps the ERM convex)",
        assumptions=("m competitor scores, 1 <= k <= m, beta > 0",
                     "the 1/beta rate is attained by tied scores (gap c(k/m)/beta, c(p) = log((1-p)/p) - "
                     "log(1-p)/p, equal to the bound at k = m/2); without a tie at the k-th place the gap decays "
                     "exponentially"),
        checks=(
            Check("ladder", EvidenceKind.PRECISE, _smoothed_precise,
                  "mpmath: the smoothed value by root finding, the exact tied gap, the bound"),
            Check("float", EvidenceKind.PROPERTY, _smoothed_property,
                  "float64: lower bound, gap bound, exact tied gap, midpoint convexity"),
            Check("rate", EvidenceKind.PROPERTY, _smoothed_rate,
                  "gap against beta = 1..1e4: exactly (m/k) log 2 / beta when tied (slope -1), under the bound"),
        ),
        negative_control=NegativeControl("gap bound log 2 / beta (the m/k factor dropped)",
                                          {"smoothed_topk_gap_bound": _gap_bound_without_ratio}),
    ),
    Claim(
        id="tam.alpha-c-closed-form",
        title="alpha_c(r) = 1/[(1 + kappa^2) Phi(kappa) + kappa phi(kappa)], kappa = phi(Phi^{-1}(1-r))/r; "
              "alpha_c(0.15) = 0.2944",
        statement=(r"\alpha_c(r) = \frac{1}{(1+\kappa_r^2)\Phi(\kappa_r) + \kappa_r\varphi(\kappa_r)},\ "
                   r"\kappa_r = \frac{\varphi(\Phi^{-1}(1-r))}{r};\quad \alpha_c(0.15) \approx 0.294"),
        kind=ClaimKind.IDENTITY,
        source="004 (closed-form ridgeless TAM threshold)",
        assumptions=("0 < r < 1", "linmem evaluates kappa as sqrt(2/pi)/erfcx(z/sqrt 2), z = -Phi^{-1}(r)"),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _closed_symbolic,
                  "sympy: the erfcx rewrite, kappa(1/2) = sqrt(2/pi), alpha_c(3/20) = 0.294"),
            Check("ladder", EvidenceKind.PRECISE, _closed_precise,
                  "mpmath: alpha_c_mp and kappa_mp against an independent quantile-by-root-finding evaluation"),
            Check("float", EvidenceKind.PROPERTY, _closed_property,
                  "float64 alpha_c against a 30-digit reference, r from 1e-300 to 1 - 2^-40"),
        ),
        negative_control=NegativeControl("alpha_c without the kappa phi(kappa) term",
                                          {"alpha_c": _alpha_dropped_kappa_phi, "alpha_c_mp": _alpha_mp_dropped}),
    ),
    Claim(
        id="tam.alpha-c-as-integral",
        title="(1 + kappa^2) Phi(kappa) + kappa phi(kappa) = E[(kappa + Z)_+^2] and kappa_r = E[Z | Z > Phi^{-1}(1-r)]",
        statement=(r"(1+\kappa^2)\Phi(\kappa) + \kappa\varphi(\kappa) = \mathbb{E}\,(\kappa + Z)_+^2,\quad "
                   r"\kappa_r = \mathbb{E}[Z \mid Z > \Phi^{-1}(1-r)],\ Z \sim N(0,1)"),
        kind=ClaimKind.IDENTITY,
        source="ours (anchors 004's alpha_c)",
        assumptions=("kappa > 0 for the first identity (it holds for every real kappa); 0 < r < 1",),
        depends_on=("tam.alpha-c-closed-form",),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _integral_symbolic, "sympy: both integrals in closed form"),
            Check("ladder-quad", EvidenceKind.PRECISE, _integral_precise_quad,
                  "mpmath.quad at 50 and 100 digits against alpha_c_mp and kappa_mp"),
            Check("ladder-gamma", EvidenceKind.PRECISE, _integral_precise_gamma,
                  "incomplete-gamma evaluation of the same integrals, 50-150 digits"),
            Check("float", EvidenceKind.PROPERTY, _integral_property,
                  "scipy quad against alpha_c and kappa in float64"),
        ),
        negative_control=NegativeControl("kappa = Phi^{-1}(1 - r) (the threshold, not the mean beyond it)",
                                          {"kappa": _kappa_as_quantile, "kappa_mp": _kappa_mp_as_quantile}),
    ),
    Claim(
        id="tam.alpha-c-limits",
        title="alpha_c(r) increases in r, tends to 0 as r -> 0 and to 2 (Cover's capacity) as r -> 1",
        statement=(r"\alpha_c \uparrow \text{ in } r,\quad \frac{1}{\tfrac12 + 2\varphi(0)\kappa_r + \kappa_r^2} "
                   r"\le \alpha_c(r) \le \min\!\Big(2, \frac{2}{1 + \kappa_r^2}\Big),\quad "
                   r"\lim_{r\to0}\alpha_c = 0,\ \lim_{r\to1}\alpha_c = 2"),
        kind=ClaimKind.INEQUALITY,
        source="ours (limits of 004's alpha_c; Cover 1965 at r -> 1)",
        assumptions=("0 < r < 1; kappa_r decreases from infinity to 0 as r goes from 0 to 1",
                     "the sandwich bounds follow from D(kappa) >= (1 + kappa^2)/2 and D' <= 2(kappa + phi(0)), "
                     "D(0) = 1/2"),
        depends_on=("tam.alpha-c-closed-form",),
        checks=(
            Check("algebra", EvidenceKind.SYMBOLIC, _limits_symbolic,
                  "sympy: D' = 2 E[(kappa + Z)_+] > 0 and the four limits"),
            Check("ladder", EvidenceKind.PRECISE, _limits_precise,
                  "mpmath: monotone from r = 1e-100 to 1 - 1e-30, inside the sandwich bounds"),
            Check("float", EvidenceKind.PROPERTY, _limits_property,
                  "float64: monotone on close pairs, sandwich bounds"),
        ),
        negative_control=NegativeControl("alpha_c with the '1 +' dropped: 1/[kappa^2 Phi + kappa phi]",
                                          {"alpha_c": _alpha_dropped_one, "alpha_c_mp": _alpha_mp_dropped_one}),
    ),
    Claim(
        id="tam.cover-counting",
        title="n sign-symmetric homogeneous constraints in general position in R^D are jointly satisfiable "
              "with probability C(n, D)/2^n",
        statement=(r"\Pr[\exists W:\ \langle W, A_i\rangle > 0\ \forall i \le n] = \frac{C(n, D)}{2^n},\ "
                   r"C(n, D) = 2\sum_{k < D}\binom{n-1}{k},\ C(n+1, D) = C(n, D) + C(n, D-1)"),
        kind=ClaimKind.EXPECTATION,
        source="ours (Cover 1965; the r -> 1 limit of 004's TAM, where alpha_c -> 2)",
        assumptions=(
            "the A_i in general position and their joint law unchanged by flipping the sign of any subset",
            "exact evidence: fixed rational points in general position (checked exactly) with uniform random "
            "signs, which satisfies exactly these assumptions; each sign pattern decided by Fourier-Motzkin "
            "elimination in rationals",
            "Monte Carlo: Gaussian a_i in R^D (reference LP, HiGHS) and A_i = (u_i - mean of the other u_j) "
            "v_i^T, the TAM constraints at k = n - 1 (linmem's tam_feasible)",
        ),
        checks=(
            Check("recursion", EvidenceKind.SYMBOLIC, _cover_recursion,
                  "exact integers: C(n+1, D) = C(n, D) + C(n, D-1), boundary values, 1/2 at n = 2D"),
            Check("enumeration", EvidenceKind.EXPECTATION, _cover_enumeration,
                  "every sign pattern of small point sets decided exactly"),
            Check("montecarlo", EvidenceKind.MONTECARLO, _cover_montecarlo,
                  "LP satisfiability frequencies against C(n, D)/2^n"),
        ),
        negative_control=NegativeControl("binom(n, k) in place of binom(n - 1, k)",
                                          {"cover_probability": _cover_wrong_binomial}),
    ),
    Claim(
        id="tam.threshold",
        title="Ridgeless TAM retrieves all keys below alpha_c(r): finite-size feasibility crossings fall toward alpha_c",
        statement=(r"\alpha = n/d^2 < \alpha_c(r):\ \text{TAM loss} \to 0,\ \text{almost all keys TAM-retrieved};"
                   r"\quad \alpha > \alpha_c(r):\ \text{limiting loss} > 0"),
        kind=ClaimKind.ASYMPTOTIC,
        source="004 (ridgeless TAM threshold)",
        assumptions=(
            _TAM_SETTING,
            "finite-size proxy: some W gives every key a positive TAM margin (the LP tam_feasible; the "
            "ridgeless loss can then be driven to 0); crossing where P(feasible) = 1/2, by bisection on "
            "alpha with fresh instances and a logistic fit",
            f"r = {TAM_R}; reachable d = 4..6 (quick) to 8 (thorough): the crossing sits well above alpha_c "
            "(about 0.51 at d = 4, 0.42 at d = 6, against 0.294) and falls toward it",
        ),
        depends_on=("tam.alpha-c-closed-form", "tam.convex"),
        checks=(
            Check("feasibility-crossing", EvidenceKind.SIMULATION, _threshold,
                  "alpha_50 in [alpha_c, 2.5 alpha_c] and alpha_50/alpha_c - 1 shrinking with d"),
        ),
        negative_control=NegativeControl("alpha_c(1 - r) (the complement fraction)",
                                          {"alpha_c": _alpha_c_complement}),
    ),
    Claim(
        id="tam.beta-independent",
        title="The TAM transition does not depend on the smoothing beta: ERM crossings agree within one pair",
        statement=(r"\alpha_{50}^{\mathrm{ERM}}(\beta_1) = \alpha_{50}^{\mathrm{ERM}}(\beta_2) "
                   r"= \alpha_{50}^{\mathrm{LP}} \ \text{(within the sweep's resolution } 1/d^2)"),
        kind=ClaimKind.ASYMPTOTIC,
        source="004 (the threshold does not depend on beta)",
        assumptions=(
            _TAM_SETTING,
            "ridgeless smoothed-TAM logistic ERM (tam_erm, L-BFGS-B, at most 300 iterations) succeeds when "
            "every plain TAM margin of its W is positive; it is run on the instances of the LP sweep and "
            "cannot succeed where the LP is infeasible",
        ),
        depends_on=("tam.smoothed", "tam.threshold"),
        checks=(
            Check("crossings-agree", EvidenceKind.SIMULATION, _beta_independent,
                  "spread of the LP and ERM crossings, in pairs"),
        ),
        negative_control=NegativeControl("ERM with a ridge growing with beta (ridge + beta/1000)",
                                          {"tam_erm": _erm_ridge_grows_with_beta}),
    ),
    Claim(
        id="tam.percentile-edge",
        title="In the SAT phase the signal percentile has a hard lower edge p_alpha = Phi(rho_alpha)",
        statement=r"p_\alpha = \Phi(\rho_\alpha)",
        kind=ClaimKind.UNDERSPECIFIED,
        source="004 (SAT-phase signal percentile)",
        reason=("004 names the edge p_alpha = Phi(rho_alpha) but gives neither rho_alpha nor the variational "
                "problem that defines it (only that the high-dimensional limit is a two-parameter scalar "
                "problem), so there is no value to compare a simulated percentile with."),
    ),
    Claim(
        id="tam.cmm-percentile-behind",
        title="At the same load the CMM signal percentile sits below the TAM-learned one",
        statement=(r"\overline{\mathrm{pct}}(W_{\mathrm{CMM}}) < \overline{\mathrm{pct}}(W_{\mathrm{TAM}}),\quad "
                   r"\mathrm{pct}_i = \tfrac{\#\{j \ne i:\ S_{ij} < S_{ii}\}}{n - 1}"),
        kind=ClaimKind.ASYMPTOTIC,
        source="004 (the unoptimised CMM percentile sits further back)",
        assumptions=(_TAM_SETTING, f"alpha = {PB_ALPHA} (SAT side at these sizes), r = {TAM_R}, beta = {PB_BETA:g}, "
                     "ridgeless, at most 300 L-BFGS-B iterations; paired over seeds"),
        depends_on=("tam.threshold",),
        checks=(
            Check("percentile-gap", EvidenceKind.SIMULATION, _percentile_behind,
                  "paired gain of the TAM-learned mean percentile over CMM's at every d"),
        ),
        negative_control=NegativeControl("TAM-learned memory returned transposed", {"tam_erm": _erm_transposed}),
    ),
]
