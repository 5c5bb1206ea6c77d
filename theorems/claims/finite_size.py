"""Finite size (004): where the top-1 threshold sits at small d, and how fast
it approaches its limit.

In the load ``c = n log n / d^2`` the top-1 threshold of linear memories is
``c = 1/2`` as ``n, d -> infinity`` (all ``n`` Gaussian pairs can be
retrieved top-1 below it, none above). At finite size the threshold is
higher, and it comes down slowly. Two finite-size figures are measured here.

* ``fs.ce-norm-peak``: the Frobenius norm of the weakly ridged softmax
  cross-entropy memory, swept over ``c``. While some ``W`` separates every
  matched score from its competitors, the loss keeps pushing the norm up
  (only the tiny ridge and the optimiser's tolerance stop it, at a norm of
  order ``1/margin``); at the separability threshold the largest margin
  vanishes and the norm spikes; beyond it the competitors confine ``W``. So
  the norm peaks at the finite-size threshold.
* ``fs.second-order``: the exact finite-size critical size ``n_c(d)`` (the
  max-margin LP with Gordan's alternative decides top-1 achievability on
  every instance), and the coefficient ``a`` of ``log log n`` in
  ``d^2 / n_c - 2 log n_c = a log log n_c + b``, next to the conjectured
  ``-3``.

Both sweeps use nested pools of pairs (the first ``n`` pairs of one draw):
the cross-entropy fits are warm-started along ``n``, and separability is
monotone along the pool, so each seed's critical size is found by bisection
(:func:`linmem.sweeps.nested_critical_sizes`). Results are not cached on
disk: a negative control or an in-memory mutant of linmem must recompute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.stats

import linmem
from linmem import sweeps
from theorems.evidence import simulation
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, EvidenceStatus, NegativeControl
from theorems.tolerance import SIMULATION_WRONG_VERDICT_RATE

__all__ = [
    "CE_DIMS",
    "CE_LOADS",
    "CE_MAXITER",
    "CE_REFINE_POINTS",
    "CE_SEEDS",
    "CLAIMS",
    "CONJECTURED_LOGLOG_COEFFICIENT",
    "CONTROL_RIDGE_FACTOR",
    "CRITICAL_LOAD",
    "DRIFT_CONFIDENCE",
    "DRIFT_EFFECT",
    "DRIFT_SLOPE_SD",
    "EFFECTIVE_RIDGE",
    "LP_DIMS",
    "LP_MAX_LOAD",
    "LP_SEEDS",
    "MAX_CENSORED_SHARE",
    "PEAK_PROMINENCE",
    "SEED_DIM_RANGE",
    "SEED_FITTED_LOGLOG_COEFFICIENT",
    ]

#: The asymptotic top-1 threshold in the load c = n log n / d^2 (d^2 = 2 n log n).
CRITICAL_LOAD = 0.5

#: The ridge of the cross-entropy proxy, as lambda n / d^2 (004's choice).
EFFECTIVE_RIDGE = 1e-8

# --- fs.ce-norm-peak: sweep sizes and the criterion fixed before the run -------

#: Dimensions of the norm sweep, per profile.
CE_DIMS = dict(quick=(6, 8, 10, 12), standard=(12, 16, 20, 24), thorough=(24, 32, 40, 48))

#: Independent pools of pairs at the largest dimension, per profile. A
#: smaller d gets (d_max / d)^2 times as many (rounded up): single pools
#: scatter about as 1/d in c and a fit costs about d^2, so every d then
#: contributes a similar standard error for a similar time.
CE_SEEDS = dict(quick=2, standard=4, thorough=3)

#: Coarse grid of loads c; every n it maps to is fitted, warm-started upward.
CE_LOADS = tuple(round(0.5 + 0.1 * k, 2) for k in range(14))

#: Iteration cap of each L-BFGS-B fit (warm starts keep most fits far below it;
#: the fits right at the spike reach it at the largest dimensions).
CE_MAXITER = 400

#: Sizes refitted between the coarse neighbours of the largest norm: every
#: integer n when there are at most this many, else this many evenly spaced.
CE_REFINE_POINTS = 16

#: The peak exists: at every d the seed-averaged (geometric mean) norm at its
#: maximum is at least this many times the norm at each end of the c grid.
#: Power (quick, run seeds 1..8, 32 values): the prominence is 2.7 to 11.4,
#: its log 1.65 +- 0.45 at the worst d (d = 8), so 1.1 lies 3.45 standard
#: deviations below (about 3e-4 per d, 1e-3 over the four d). Without a peak
#: (the negative control) the maximum sits at an end of the grid and the
#: prominence is exactly 1.
PEAK_PROMINENCE = 1.1

#: The drift the criterion must resolve: the slope of the mean peak location
#: c* against log d. Measured at the quick sizes (d = 6..12, 8 run seeds) it
#: is -0.12 on average (the seed runs' slopes spread from -0.21 to +0.04).
DRIFT_EFFECT = 0.1

#: Standard deviation across run seeds of the fitted drift slope, by sweep
#: multiplier. Quick: 0.09, measured over run seeds 1..8 (the per-run
#: standard error from the pooled spread agrees: 0.06 to 0.10). Standard:
#: 0.033, the per-run standard error at run seed 1 (the design predicts 0.032:
#: twice the dimension and twice the pools at the top dimension divide it by
#: 2 sqrt 2); its slope there, -0.126, sits 3.8 of them below zero, so the
#: 99.9% bound would clear zero at only about two seeds in three. Thorough:
#: about 0.019 by the same scaling (not measured). All are short of
#: DRIFT_EFFECT / 6.18 = 0.016.
DRIFT_SLOPE_SD = {1: 0.09, 2: 0.033, 4: 0.019}

#: One-sided confidence of the drift's bounds (Student's t with the pooled
#: degrees of freedom): 1 - SIMULATION_WRONG_VERDICT_RATE.
DRIFT_CONFIDENCE = 1 - SIMULATION_WRONG_VERDICT_RATE

#: The wrong variant of the negative control: a ridge this many times larger
#: (lambda n / d^2 = 1e-2) keeps the norm bounded, and the peak disappears.
CONTROL_RIDGE_FACTOR = 1e6

# --- fs.second-order ------------------------------------------------------------

#: Dimensions of the LP sweep per profile (one LP at d = 12 takes about a
#: second; at d = 24 about a minute).
LP_DIMS = dict(quick=(4, 5, 6, 7), standard=(4, 5, 6, 7, 8, 9, 10), thorough=(4, 5, 6, 7, 8, 9, 10, 11, 12))

#: Independent pools per dimension, per profile.
LP_SEEDS = dict(quick=8, standard=12, thorough=16)

#: Each pool's critical size is searched from 2 pairs up to this load c.
LP_MAX_LOAD = 2.5

#: At most this share of a dimension's pools may have its critical size
#: outside the searched range (else the median is not measured).
MAX_CENSORED_SHARE = 0.25

#: The conjectured coefficient of log log n in d_c^2 / n - 2 log n.
CONJECTURED_LOGLOG_COEFFICIENT = -3.0

#: The seed's fitted coefficient, and the dimensions it was fitted over.
SEED_FITTED_LOGLOG_COEFFICIENT = -2.97
SEED_DIM_RANGE = (300, 1200)


# --- shared helpers ------------------------------------------------------------------


def _load(d: int, n: float) -> float:
    """c = n log n / d^2."""
    return n * math.log(n) / (d * d)


def _pairs_at(d: int, c: float) -> float:
    """The (real) n with n log n / d^2 = c."""
    return sweeps.pairs_at_load("ratio", d, 1.0 / c)


def _base_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(2**32))


# --- fs.ce-norm-peak -----------------------------------------------------------------


def _coarse_sizes(d: int) -> list[int]:
    out: list[int] = []
    for c in CE_LOADS:
        n = max(2, int(round(_pairs_at(d, c))))
        if not out or n > out[-1]:
            out.append(n)
    return out


def _ce_curve(impl, d: int, base: int, seed: int) -> sweeps.PeakCurve:
    """One pool's norm curve: the ridged cross-entropy memory (through the
    implementation under test) over CE_LOADS, warm-started upward, refined
    between the coarse neighbours of the largest norm."""

    def norm(V, U, init):
        W = np.asarray(impl.cross_entropy_memory(V, U, ridge=EFFECTIVE_RIDGE * d * d / V.shape[1],
                                                 maxiter=CE_MAXITER, init=init).W, dtype=float)
        return float(np.linalg.norm(W)), W

    return sweeps.nested_peak_curve(norm, d, _coarse_sizes(d), rng=sweeps.instance_rng(base, d, seed),
                                    refine=CE_REFINE_POINTS)


def _norm_peak_criterion(record: dict, *, sweep: int, profile: str):
    """The criterion fixed before the run.

    1. At every d the peak exists (the averaged norm rises PEAK_PROMINENCE-fold
       above both ends of the c grid) and its mean location lies above 1/2 by
       more than the grid resolution; else NOT SUPPORTED. These hold by a wide
       margin when the statement is right, and fail outright when the peak is
       gone (the negative control's norm has no interior maximum: prominence 1).
    2. The drift (least-squares slope of the mean location against log d,
       bounds at one-sided DRIFT_CONFIDENCE): resolved upward (lower bound
       above zero) contradicts the statement: NOT SUPPORTED. Otherwise, when
       the profile's design cannot resolve a drift of DRIFT_EFFECT (its
       measured spread DRIFT_SLOPE_SD is above DRIFT_EFFECT / 6.18), the
       evidence is INCONCLUSIVE, decided before the drift is read, so the
       status does not flip with the seed. When the design can, the drift must
       be below zero at DRIFT_CONFIDENCE: SUPPORTED, else NOT SUPPORTED.
    """

    def criterion(dims, peaks):
        rows = [record[d] for d in dims]
        weak = [d for d, r in zip(dims, rows) if not r["prominence"] >= PEAK_PROMINENCE]
        low = [d for d, r in zip(dims, rows) if not r["peak"] - r["resolution"] > CRITICAL_LOAD]
        slope, se, dof = sweeps.peak_drift(dims, [record[d]["seed_peaks"] for d in dims])
        t = float(scipy.stats.t.ppf(DRIFT_CONFIDENCE, dof)) if dof > 0 else math.inf
        bound, lower = slope + t * se, slope - t * se
        short = simulation.underpowered(effect=DRIFT_EFFECT, spread=_by_sweep(DRIFT_SLOPE_SD, sweep),
                                        profile=profile, better=None)
        record["drift"] = {"slope": slope, "se": se, "dof": dof, "t": t, "upper_bound": bound,
                           "lower_bound": lower, "underpowered": short}
        peaks_ok = not weak and not low
        if not peaks_ok or lower > 0:
            verdict = False
        elif short:
            verdict = EvidenceStatus.INCONCLUSIVE
        else:
            verdict = bound < 0
        why = (
            f"mean peak c* by d {dict(zip(dims, np.round(peaks, 3).tolist()))}; "
            f"slope of c* against log d {slope:.3f} +- {se:.3f} ({dof} dof), one-sided "
            f"{DRIFT_CONFIDENCE:.1%} bounds [{lower:.3f}, {bound:.3f}] (need upper < 0"
            + (f"; not resolvable here: {short}" if short else "")
            + f"; a lower bound > 0 contradicts the statement: {'yes' if lower > 0 else 'no'}); "
            f"peaks exist (prominence >= {PEAK_PROMINENCE:g} at every d): "
            f"{'yes' if not weak else 'no at d = ' + str(weak)}; "
            f"c* - resolution > {CRITICAL_LOAD:g} at every d: {'yes' if not low else 'no at d = ' + str(low)}"
        )
        return verdict, bound, 0.0, why

    return criterion


def _by_sweep(table: dict, sweep: int):
    """The entry of a per-sweep table for ``sweep`` (the largest key not above it)."""
    return table[max(k for k in table if k <= sweep)]


def _norm_peak(ctx):
    record: dict = {}
    dims = ctx.profile.pick(**CE_DIMS)
    seeds = {d: math.ceil(ctx.profile.pick(**CE_SEEDS) * (dims[-1] / d) ** 2) for d in dims}

    def measure(d, rng):
        base = _base_seed(rng)
        record[d] = sweeps.pooled_peaks([_ce_curve(ctx.impl, d, base, s) for s in range(seeds[d])],
                                        lambda n: _load(d, n))
        return record[d]["peak"]

    ev = simulation.check(
        ctx, dims, measure, _norm_peak_criterion(record, sweep=ctx.profile.sweep, profile=ctx.profile.name),
        size_name="d",
        domain={"pools per d": [seeds[d] for d in dims], "c": [CE_LOADS[0], CE_LOADS[-1]]},
        label=(f"location c* of the peak of ||W||_F of the cross-entropy memory (lambda n/d^2 = "
               f"{EFFECTIVE_RIDGE:g}), mean over {list(seeds.values())} pools at d = {list(dims)}; "
               f"figure: upper confidence bound of the slope of c* against log d"),
    )
    ev.data.update({
        "per_dimension": {str(d): record[d] for d in dims if d in record},
        "drift": record.get("drift"),
        "effective_ridge": EFFECTIVE_RIDGE,
        "seeds_per_dimension": {str(d): n for d, n in seeds.items()},
        "maxiter": CE_MAXITER,
        "plot": {
            "title": "cross-entropy memory: norm against the load (geometric mean over pools)",
            "x_label": "c = n log n / d^2",
            "y_label": "||W||_F",
            "xscale": "linear",
            "yscale": "log",
            "series": [{"label": f"d = {d}", "x": record[d]["loads"], "y": record[d]["mean_curve"],
                        "style": "line"} for d in dims if d in record],
            "vlines": [{"x": CRITICAL_LOAD, "label": "asymptotic threshold c = 1/2"}],
        },
    })
    return ev


def _ce_heavy_ridge(keys, targets, *, ridge=linmem.learn.DEFAULT_RIDGE, maxiter=linmem.learn.DEFAULT_MAXITER,
                    init=None):
    """Wrong variant: the cross-entropy memory with a ridge CONTROL_RIDGE_FACTOR times larger."""
    return linmem.cross_entropy_memory(keys, targets, ridge=ridge * CONTROL_RIDGE_FACTOR, maxiter=maxiter,
                                       init=init)


# --- fs.second-order -----------------------------------------------------------------


def _lp_size_range(d: int) -> tuple[int, int]:
    """From 2 pairs (the fewest with a competitor) to the load LP_MAX_LOAD."""
    return 2, max(3, int(math.ceil(_pairs_at(d, LP_MAX_LOAD))))


def _second_order_terms(d: float, n: float) -> tuple[float, float]:
    """(log log n, d^2/n - 2 log n) at a critical point (d, n)."""
    return math.log(math.log(n)), d * d / n - 2 * math.log(n)


def _second_order_criterion(record: dict):
    """The criterion fixed before the run: at every d at most
    MAX_CENSORED_SHARE of the pools have their critical size outside the
    searched range; the second-order term d^2/n_c - 2 log n_c is negative at
    every d, and the fitted coefficient of log log n is negative (the
    correction has the conjectured sign, size by size and in the fit).

    Power (quick, run seeds 1..8): the fitted coefficient is -2.74 with
    spread 0.33 across seeds (8 standard deviations below zero); the term is
    between -3.5 and -2.4 at every d (d = 4: n_c = 8.5..9.5, and a term of 0
    would need n_c = 4.4, below every one of 300 pools' critical sizes). A
    decider with the wrong threshold (the negative control, CMM's 8 n log n)
    puts n_c at 2.5..3.5 and the term at about +4.6: it fails at every d,
    while its fitted coefficient alone (-13 +- 26) has no resolved sign."""

    def criterion(dims, n_c):
        x, y = zip(*(_second_order_terms(d, n) for d, n in zip(dims, n_c)))
        a, b, se = sweeps.line_fit(x, y)
        censored = [d for d in dims if record[d]["censored_share"] > MAX_CENSORED_SHARE]
        positive = [d for d, term in zip(dims, y) if not term < 0]
        ok = a < 0 and not censored and not positive
        record["fit"] = {"a": a, "b": b, "se": se, "x": list(x), "y": list(y)}
        why = (
            f"second-order term d^2/n_c - 2 log n_c by d {dict(zip(dims, np.round(y, 2).tolist()))} "
            f"(need < 0 at every d: {'yes' if not positive else 'no at d = ' + str(positive)}); "
            f"fitted coefficient of log log n: {a:.2f} (s.e. {se:.2f}; need < 0), "
            f"conjectured {CONJECTURED_LOGLOG_COEFFICIENT:g}, seed's fit {SEED_FITTED_LOGLOG_COEFFICIENT:g} "
            f"at d = {SEED_DIM_RANGE[0]}..{SEED_DIM_RANGE[1]}; critical n_c by d "
            f"{dict(zip(dims, np.round(n_c, 2).tolist()))}; pools censored beyond {MAX_CENSORED_SHARE:g}: "
            f"{'none' if not censored else 'at d = ' + str(censored)}"
        )
        return ok, a, 0.0, why

    return criterion


def _second_order(ctx):
    dims, seeds = ctx.profile.pick(**LP_DIMS), ctx.profile.pick(**LP_SEEDS)
    record: dict = {}

    def separable(V, U) -> bool:
        return bool(ctx.impl.gordan_certificate(V, U).separable)

    def measure(d, rng):
        lo, hi = _lp_size_range(d)
        res = sweeps.nested_critical_sizes(separable, d, n_range=(lo, hi), seeds=range(seeds),
                                           base_seed=_base_seed(rng), name="fs.second-order", cache=None)
        # the last separable size and the first inseparable one bracket the crossing
        n_c = float(np.median(res.n_star)) + 0.5
        record[d] = {"n_star": res.n_star.tolist(), "n_range": [lo, hi], "n_c": n_c,
                     "c_c": _load(d, n_c), "censored_share": res.censored / len(res.n_star)}
        return n_c

    ev = simulation.check(
        ctx, dims, measure, _second_order_criterion(record), size_name="d",
        domain={"pools per d": seeds, "n": "2 up to the size at c = %g" % LP_MAX_LOAD},
        label=(f"finite-size critical size n_c(d) (median over {seeds} pools of the last size the max-margin LP "
               "separates, + 1/2) and the fit d^2/n_c - 2 log n_c = a log log n_c + b"),
    )
    fit = record.get("fit")
    ev.data.update({
        "per_dimension": {str(d): record[d] for d in dims if d in record},
        "fitted_loglog_coefficient": None if fit is None else fit["a"],
        "fitted_loglog_coefficient_se": None if fit is None else fit["se"],
        "fitted_intercept": None if fit is None else fit["b"],
        "conjectured_loglog_coefficient": CONJECTURED_LOGLOG_COEFFICIENT,
        "seed_fitted_loglog_coefficient": SEED_FITTED_LOGLOG_COEFFICIENT,
        "seed_dim_range": list(SEED_DIM_RANGE),
        "seeds_per_dimension": seeds,
    })
    if fit is not None:
        x = np.array(fit["x"])
        grid = np.linspace(x.min(), x.max(), 20)
        centre = (float(np.mean(fit["x"])), float(np.mean(fit["y"])))
        ev.data["plot"] = {
            "title": "second-order term: d^2/n_c - 2 log n_c against log log n_c",
            "x_label": "log log n_c",
            "y_label": "d^2/n_c - 2 log n_c",
            "xscale": "linear",
            "yscale": "linear",
            "series": [
                {"label": "measured (exact LP threshold)", "x": fit["x"], "y": fit["y"], "style": "points"},
                {"label": f"fit, slope {fit['a']:.2f}", "x": grid.tolist(),
                 "y": (fit["a"] * grid + fit["b"]).tolist(), "style": "line"},
                {"label": f"conjectured slope {CONJECTURED_LOGLOG_COEFFICIENT:g} through the centroid",
                 "x": grid.tolist(),
                 "y": (centre[1] + CONJECTURED_LOGLOG_COEFFICIENT * (grid - centre[0])).tolist(),
                 "style": "line"},
            ],
        }
    return ev


@dataclass(frozen=True)
class _Verdict:
    separable: bool


def _cmm_certificate(keys, targets):
    """Wrong variant: "separable" when the correlation matrix memory itself
    retrieves every pair top-1 (one memory among all; its threshold is 8
    n log n, not 2 n log n)."""
    return _Verdict(bool(linmem.all_retrieved(linmem.cmm(keys, targets), keys, targets)))


CLAIMS = [
    Claim(
        id="fs.ce-norm-peak",
        title="The norm of the weakly ridged cross-entropy memory peaks above c = 1/2, and the peak drifts down with d",
        statement=(
            r"W_\lambda = \arg\min_{W}\ \frac{1}{n}\sum_{i=1}^{n}\Big[\log\sum_{j=1}^{n}"
            r"e^{u_j^\top W v_i} - u_i^\top W v_i\Big] + \lambda\|W\|_F^2,\quad \frac{\lambda n}{d^2} = 10^{-8};"
            r"\qquad c^\ast(d) = \arg\max_{c}\ \|W_\lambda\|_F,\ \ c = \frac{n\log n}{d^2}:"
            r"\qquad c^\ast(d) > \tfrac12,\quad c^\ast(d)\ \text{decreases toward}\ \tfrac12\ \text{as } d \to \infty"
        ),
        kind=ClaimKind.ASYMPTOTIC,
        source="004, finite-size simulations (cross-entropy proxy)",
        assumptions=(
            "keys v_i and targets u_i i.i.d. N(0, I_d/d), n pairs, W is d x d",
            "ridge lambda = 1e-8 d^2/n; L-BFGS-B (scipy's default tolerances, at most CE_MAXITER iterations) "
            "warm-started along nested pools of pairs",
            "each pool's peak is the argmax of the norm over a coarse grid of c refined to every n between "
            "the neighbours of the largest norm (the norm spikes at the pool's last separable size); the "
            "location at d is the mean over pools",
            "the sizes are small (d = 6..12 in the quick profile, 12..24 standard, 24..48 thorough), far "
            "below 004's 300..1200; the drift counts only when the design resolves it (a drift of 0.1 per "
            "unit log d spans at least 6.18 standard deviations of the fitted slope across seeds, so the "
            "verdict is wrong at most 1e-3 of the time): at d <= 12 the slope's spread is 0.09, so the "
            "evidence is INCONCLUSIVE there unless the peaks are missing or the drift is resolved upward",
            "SUPPORTED means the criterion held at these sizes, not that the limit is proved",
        ),
        checks=(
            Check("norm-peak-drift", EvidenceKind.SIMULATION, _norm_peak,
                  "the norm peak exists at every d, lies above 1/2, and its location falls with d"),
        ),
        negative_control=NegativeControl(
            f"cross-entropy memory with the ridge multiplied by {CONTROL_RIDGE_FACTOR:g} (lambda n/d^2 = 1e-2)",
            {"cross_entropy_memory": _ce_heavy_ridge},
        ),
    ),
    Claim(
        id="fs.second-order",
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
            "the sizes are tiny next to the seed's (d = 4..7 in the quick profile, up to 10 standard, "
            "12 thorough): the fitted coefficient absorbs the o(log log n) term and is reported, not "
            "required to equal -3; the criterion is the sign",
        ),
        checks=(
            Check("loglog-coefficient", EvidenceKind.SIMULATION, _second_order,
                  "the fitted coefficient of log log n at the exact finite-size threshold, beside -3"),
        ),
        negative_control=NegativeControl(
            "top-1 achievability decided by the correlation matrix memory alone instead of the LP",
            {"gordan_certificate": _cmm_certificate},
        ),
    ),
]
