"""Finite size (004): where the top-1 threshold sits at small d, and how fast
it approaches its limit c = n log n / d^2 = 1/2.

Both sweeps use nested pools of pairs (the first n pairs of one draw): the
cross-entropy fits are warm-started along n
(:func:`linmem.sweeps.cross_entropy_norm_peaks`), and separability is
monotone along the pool, so each pool's critical size is found by bisection
(:func:`linmem.sweeps.nested_critical_sizes`). Nothing is cached on disk: a
negative control or an in-memory mutant of linmem must recompute.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

import linmem
from linmem import sweeps
from theorems.evidence import simulation
from theorems.core.model import ClaimKind
from theorems.authoring import kit
from theorems.authoring.templates import sweep_claim, wrong

__all__ = ["CLAIMS", "CRITICAL_LOAD", "DRIFT_EFFECT", "DRIFT_SLOPE_SD", "EFFECTIVE_RIDGE", "PEAK_PROMINENCE"]

#: The asymptotic top-1 threshold in the load c = n log n / d^2.
CRITICAL_LOAD = 0.5

#: The ridge of the cross-entropy proxy, as lambda n / d^2 (004's choice).
EFFECTIVE_RIDGE = 1e-8

#: Dimensions of the norm sweep, per profile.
CE_DIMS = kit.per_profile(quick=(6, 8, 10, 12), standard=(6, 8, 12, 16, 24), thorough=(6, 8, 12, 16, 24, 32, 48))

#: Coarse grid of loads c of the norm sweep (every n it maps to is fitted).
CE_LOADS = tuple(round(0.5 + 0.1 * k, 2) for k in range(14))

#: Iteration cap of each L-BFGS-B fit (warm starts keep most fits far below it).
CE_MAXITER = 400

#: Sizes refitted between the coarse neighbours of the largest norm.
CE_REFINE_POINTS = 16

#: Pools at the largest dimension, per profile; a smaller d gets (d_max/d)^2
#: times as many (rounded up): a pool's peak scatters about as 1/d in c and a
#: fit costs about d^2, so every d contributes a similar standard error.
CE_POOLS = kit.per_profile(quick=2, standard=4, thorough=3)

#: The peak exists: the pools' geometric-mean norm at its maximum is at least
#: this many times its value at each end of the c grid. Power (quick, run
#: seeds 1..8): the log prominence is 1.65 +- 0.45 at the worst d (d = 8), so
#: log 1.1 lies 3.45 standard deviations below (about 1e-3 over the four d).
#: Without a peak (the negative control) the prominence is exactly 1.
PEAK_PROMINENCE = 1.1

#: The drift to resolve: the slope of the mean peak location c* against
#: log d (quick sizes, 8 run seeds: -0.12 on average, from -0.21 to +0.04).
DRIFT_EFFECT = 0.1

#: Spread across run seeds of the fitted drift slope: quick measured over
#: run seeds 1..8 (per-run standard errors 0.06 to 0.10); standard designed
#: for it: d = 6..24 (log d over a range of ln 4 instead of ln 2 at d =
#: 12..24, which halves the slope's spread) with 4 pools at d = 24 (64 at
#: d = 6). A run of that range with 6 pools at d = 24 (seed 20261130, 3 min 49 s
#: of CPU) gave slope -0.127 +- 0.0116 (per-run standard error); with the
#: shipped 4 pools, run seeds 1-6 (about 150 s of CPU each) gave slopes
#: -0.088 to -0.136 (spread 0.0166, per-run s.e. 0.0148-0.0172, mean 0.0158):
#: declared 0.016 (the effect 0.1 is 6.25 of them, 6.18 needed; thin: 5-6
#: pools at d = 24 would give headroom). docs/results/fs-ce-norm-peak-standard.md has the seeds run.
#: Thorough (d = 6..48, 3 pools at d = 48) scaled from those runs to about
#: 0.006, declared 0.009; one thorough run (seed 20261130, 472 s of CPU)
#: measured a per-run standard error of 0.005 (slope -0.112,
#: docs/results/fs-ce-norm-peak-thorough.md). simulation.drift states what
#: each falls short of.
DRIFT_SLOPE_SD = kit.per_profile(quick=0.09, standard=0.016, thorough=0.009)

#: A ridge this many times larger (lambda n / d^2 = 1e-2) keeps the norm
#: bounded: the negative control's peak disappears.
CONTROL_RIDGE_FACTOR = 1e6

#: Pools of the LP sweep per dimension, per profile (one LP at d = 12 takes
#: about a second; at d = 24 about a minute).
LP_POOLS = kit.per_profile(quick=8, standard=12, thorough=16)

#: Each pool's critical size is searched from 2 pairs up to this load c; at
#: most MAX_CENSORED_SHARE of a dimension's pools may lie outside.
LP_MAX_LOAD = 2.5
MAX_CENSORED_SHARE = 0.25

#: The conjectured coefficient of log log n in d_c^2 / n - 2 log n.
CONJECTURED_LOGLOG_COEFFICIENT = -3.0


def _norm_peaks(ctx, d, rng):
    pools = math.ceil(ctx.profile.pick(**CE_POOLS) * (ctx.profile.pick(**CE_DIMS)[-1] / d) ** 2)
    return sweeps.cross_entropy_norm_peaks(
        ctx.impl.cross_entropy_memory, d, CE_LOADS, pools=pools, base_seed=int(rng.integers(2**32)),
        effective_ridge=EFFECTIVE_RIDGE, maxiter=CE_MAXITER, refine=CE_REFINE_POINTS)


def _norm_peak_criterion(table):
    """The criterion fixed before the run. 1. At every d the peak exists
    (prominence >= PEAK_PROMINENCE) and its mean location minus the grid
    resolution lies above 1/2; else NOT SUPPORTED (the negative control has
    no interior maximum). 2. The drift of the pools' peak locations against
    log d (:func:`theorems.evidence.simulation.drift`, DRIFT_EFFECT to
    resolve at the profile's DRIFT_SLOPE_SD): upward contradicts the
    statement, INCONCLUSIVE where the profile cannot resolve it, else
    SUPPORTED iff its upper bound is below zero."""
    weak = table.where(lambda r: not r["prominence"] >= PEAK_PROMINENCE)
    low = table.where(lambda r: not r["peak"] - r["resolution"] > CRITICAL_LOAD)
    falls, table.summary["drift"], why = simulation.drift(
        table.sizes, table.column("seed_peaks"), effect=DRIFT_EFFECT, spread=table.profile.pick(**DRIFT_SLOPE_SD),
        profile=table.profile.name, better=table.profile.pick(quick="standard", standard=None, thorough=None))
    return False if weak or low else falls, table.summary["drift"]["upper_bound"], 0.0, (
        f"mean peak c* by d {dict(zip(table.sizes, np.round(table.figures, 3).tolist()))}; c* against log d: {why}; "
        f"peaks exist (prominence >= {PEAK_PROMINENCE:g}) at every d: {'no at d = ' + str(weak) if weak else 'yes'}; "
        f"c* - resolution > {CRITICAL_LOAD:g} at every d: {'no at d = ' + str(low) if low else 'yes'}")


def _ce_heavy_ridge(keys, targets, *, ridge=linmem.learn.DEFAULT_RIDGE, **options):
    """Wrong variant: the cross-entropy memory with a ridge CONTROL_RIDGE_FACTOR times larger."""
    return linmem.cross_entropy_memory(keys, targets, ridge=ridge * CONTROL_RIDGE_FACTOR, **options)


def _critical_size(ctx, d, rng):
    """n_c(d): the median over pools of the last size the max-margin LP
    separates, + 1/2 (the last separable and first inseparable sizes bracket
    the crossing), and its second-order term."""
    hi = max(3, math.ceil(sweeps.pairs_at_load("ratio", d, 1.0 / LP_MAX_LOAD)))
    res = sweeps.nested_critical_sizes(lambda V, U: bool(ctx.impl.gordan_certificate(V, U).separable), d,
                                       n_range=(2, hi), seeds=range(ctx.profile.pick(**LP_POOLS)),
                                       base_seed=int(rng.integers(2**32)), name="fs.second-order",
                                       executor=ctx.executor)
    n_c = float(np.median(res.n_star)) + 0.5
    return {"n_c": n_c, "c_c": n_c * math.log(n_c) / (d * d), "censored_share": res.censored / len(res.n_star),
            "loglog": math.log(math.log(n_c)), "term": ctx.impl.second_order_term(d, n_c),
            "n_star": res.n_star.tolist(), "n_range": [2, hi]}


def _second_order_criterion(table):
    """Fixed before the run: at every d at most MAX_CENSORED_SHARE of the
    pools censored and the term d^2/n_c - 2 log n_c negative, and the fitted
    coefficient of log log n negative (the conjectured sign, size by size
    and in the fit). Power (quick, run seeds 1..8): the coefficient is -2.74
    with spread 0.33 across seeds (8 standard deviations below zero); the term
    lies in [-3.5, -2.4] at every d (at d = 4 a term of 0 needs n_c = 4.4,
    below every one of 300 pools' critical sizes). The negative control (CMM's
    threshold 8 n log n) puts the term near +4.6 at every d."""
    a, b, se = sweeps.line_fit(table.column("loglog"), table.column("term"))
    censored = table.where(lambda r: r["censored_share"] > MAX_CENSORED_SHARE)
    positive = table.where(lambda r: not r["term"] < 0)
    table.summary.update(loglog_coefficient=a, loglog_coefficient_se=se, intercept=b)
    return a < 0 and not censored and not positive, a, 0.0, (
        f"second-order term d^2/n_c - 2 log n_c by d {dict(zip(table.sizes, np.round(table.column('term'), 2)))} "
        f"(need < 0 at every d: {'no at d = ' + str(positive) if positive else 'yes'}); fitted coefficient of "
        f"log log n: {a:.2f} (s.e. {se:.2f}; need < 0), conjectured {CONJECTURED_LOGLOG_COEFFICIENT:g}; "
        f"critical n_c by d {dict(zip(table.sizes, table.figures))}; pools censored beyond "
        f"{MAX_CENSORED_SHARE:g}: {'at d = ' + str(censored) if censored else 'none'}")


def _cmm_certificate(keys, targets):
    """Wrong variant: "separable" when the correlation matrix memory itself
    retrieves every pair top-1 (threshold 8 n log n, not 2 n log n)."""
    return SimpleNamespace(separable=bool(linmem.all_retrieved(linmem.cmm(keys, targets), keys, targets)))


CLAIMS = [
    sweep_claim(
        "fs.ce-norm-peak",
        title="The norm of the weakly ridged cross-entropy memory peaks above c = 1/2, and the peak drifts down with d",
        statement=(
            r"W_\lambda = \arg\min_{W}\ \frac{1}{n}\sum_{i=1}^{n}\Big[\log\sum_{j=1}^{n}"
            r"e^{u_j^\top W v_i} - u_i^\top W v_i\Big] + \lambda\|W\|_F^2,\quad \frac{\lambda n}{d^2} = 10^{-8};"
            r"\qquad c^\ast(d) = \arg\max_{c}\ \|W_\lambda\|_F,\ \ c = \frac{n\log n}{d^2}:"
            r"\qquad c^\ast(d) > \tfrac12,\quad c^\ast(d)\ \text{decreases toward}\ \tfrac12\ \text{as } d \to \infty"
        ),
        source="004, finite-size simulations (cross-entropy proxy)",
        assumptions=(
            "keys v_i and targets u_i i.i.d. N(0, I_d/d), n pairs, W is d x d",
            "while some W separates every matched score from its competitors the loss drives the norm up "
            "(only the ridge and the optimiser's tolerance stop it); at the separability threshold the "
            "margin vanishes and the norm spikes; beyond it the competitors confine W",
            "L-BFGS-B (scipy's default tolerances, at most CE_MAXITER iterations) warm-started along nested "
            "pools; each pool's peak is the argmax of the norm over a coarse grid of c refined to every n "
            "between the neighbours of the largest norm; the location at d is the mean over pools",
            "the sizes are small (d = 6..12 quick, 6..24 standard, 6..48 thorough), far below 004's "
            "300..1200; the drift counts only when the design resolves a drift of 0.1 per unit log d at 6.18 "
            "standard deviations of the fitted slope (wrong verdict at most 1e-3): at quick (d <= 12, 2 pools "
            "at d = 12) the spread is 0.09, so the evidence is INCONCLUSIVE there unless the peaks are missing "
            "or the drift is upward; standard (d = 6..24, 4 pools at d = 24) resolves it (spread 0.016)",
            "SUPPORTED means the criterion held at these sizes, not that the limit is proved",
        ),
        sizes=CE_DIMS, size_name="d",
        measure=_norm_peaks, statistic="peak", criterion=_norm_peak_criterion, check="norm-peak-drift",
        domain=lambda t: {"pools per d": t.column("pools"), "c": [CE_LOADS[0], CE_LOADS[-1]]},
        label=(f"location c* of the peak of ||W||_F of the cross-entropy memory (lambda n/d^2 = "
               f"{EFFECTIVE_RIDGE:g}), mean over pools; figure: upper confidence bound of the slope of c* "
               "against log d"),
        about="the norm peak exists at every d, lies above 1/2, and its location falls with d",
        plot={"title": "cross-entropy memory: norm against the load (geometric mean over pools)",
              "x_label": "c = n log n / d^2", "y_label": "||W||_F", "yscale": "log",
              "series": [{"each": "d = {d}", "x": "loads", "y": "mean_curve"}],
              "vlines": [{"x": CRITICAL_LOAD, "label": "asymptotic threshold c = 1/2"}]},
        control=wrong(f"cross-entropy memory with the ridge multiplied by {CONTROL_RIDGE_FACTOR:g} (lambda n/d^2 "
                      "= 1e-2)", cross_entropy_memory=_ce_heavy_ridge),
    ),
    sweep_claim(
        "fs.second-order",
        title="Conjectured second-order term of the critical dimension: d_c^2 = n(2 log n - 3 log log n + o(log log n))",
        statement=(
            r"d_c^2(n) = n\big(2\log n - 3\log\log n + o(\log\log n)\big)\quad (n \to \infty);"
            r"\qquad \text{fitted: } \frac{d^2}{n_c(d)} - 2\log n_c(d) = a\,\log\log n_c(d) + b,"
            r"\quad a_{\text{seed}} = -2.97\ \ (300 \le d \le 1200)"
        ),
        kind=ClaimKind.CONJECTURE,
        source="004, finite-size simulations (second-order correction)",
        assumptions=(
            "keys v_i and targets u_i i.i.d. N(0, I_d/d); n_c(d) is where the probability that some linear "
            "memory retrieves all n pairs top-1 crosses 1/2",
            "at finite size this is decided exactly on each instance by the max-margin LP and Gordan's "
            "alternative (linmem.gordan_certificate), bisected along nested pools; the seed instead fitted "
            "cross-entropy norm-peak locations",
            "the sizes are tiny next to the seed's (d = 4..7 quick, up to 10 standard, 12 thorough): the "
            "fitted coefficient absorbs the o(log log n) term and is reported, not required to equal -3; "
            "the criterion is the sign",
        ),
        sizes=kit.per_profile(quick=(4, 5, 6, 7), standard=tuple(range(4, 11)), thorough=tuple(range(4, 13))), size_name="d",
        measure=_critical_size, statistic="n_c", criterion=_second_order_criterion, check="loglog-coefficient",
        domain=lambda t: {"pools per d": len(t.rows[0]["n_star"]), "n": f"2 up to the size at c = {LP_MAX_LOAD:g}"},
        label=("finite-size critical size n_c(d) (exact LP threshold) and the fit d^2/n_c - 2 log n_c = "
               "a log log n_c + b"),
        about="the fitted coefficient of log log n at the exact finite-size threshold, beside -3",
        plot={"title": "second-order term: d^2/n_c - 2 log n_c against log log n_c", "x_label": "log log n_c",
              "y_label": "d^2/n_c - 2 log n_c",
              "series": [{"x": "loglog", "y": "term", "label": "measured (exact LP threshold)"},
                         {"x": "loglog", "y": "term", "slope": "loglog_coefficient",
                          "label": "fit, slope {loglog_coefficient:.2f}"},
                         {"x": "loglog", "y": "term", "slope": CONJECTURED_LOGLOG_COEFFICIENT,
                          "label": f"conjectured slope {CONJECTURED_LOGLOG_COEFFICIENT:g} through the centroid"}]},
        control=wrong("top-1 achievability decided by the correlation matrix memory alone instead of the LP",
                      gordan_certificate=_cmm_certificate),
    ),
]
