"""Real token embeddings (ours, beyond 004): is the extreme-value tax of
top-1 retrieval heavier or lighter than with Gaussian embeddings?

Keys and targets are distinct rows of a real token-embedding matrix (the
MiniLM wheel's 29,528 trained rows when installed, else the shipped sample
of 4,000) paired at random, against Gaussian baselines, measured by
:mod:`linmem.embeddings`' comparison procedures. This module states the sizes,
the deciding figures (read only where the profile resolves them by design:
:data:`DESIGN`, :mod:`theorems.authoring.questions`) and a reference check per question
that can fail: the pipeline's figures recomputed with plain numpy/scipy.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np
from scipy.optimize import linprog

import linmem
from linmem import embeddings
from linmem.embeddings import COMPARED_CONDITIONS, CONDITIONS
from linmem.learn import LP_FEASIBILITY_TOL
from theorems.authoring import kit
from theorems.evidence._common import make
from theorems.evidence.simulation import one_blas_thread
from theorems.core.model import Claim, EvidenceKind
from theorems.authoring.questions import Reading, by_design, question, question_evidence, read_design, reference_evidence
from theorems.authoring.templates import wrong
from theorems.core.tolerance import REFERENCE_CONDITION_ALLOWANCE, required_margin_sd

__all__ = ["CLAIMS", "DECISION_RULE", "DESIGN", "design_figures"]

SOURCE = "ours (004, open question)"
TAGS = ("real-embeddings",)

DECISION_RULE = (
    "per condition at the largest d: the figure (CMM, LS: mean fraction retrieved at the fixed n, real minus "
    "baseline; LP: mean ln n*, real minus baseline) below 0: heavier, above: lighter, read only where the "
    f"profile resolves it by design (its typical value >= {required_margin_sd():.2f} standard deviations across "
    "seeds from 0, measured: DESIGN); ANSWERED when every condition is resolved, INCONCLUSIVE by design otherwise"
)

#: Typical value and spread across run seeds of every deciding figure, by row source and level.
DESIGN = embeddings.COMPARISON_DESIGN

#: Draws (subspace + pool) per condition and d, by profile level.
DRAWS = dict(quick=5, standard=9, thorough=11)

#: Dimensions per memory and level; 384 is the model's own width (no projection).
#: (All-pairs top-1 at d = 384 scores n ~ 5000 Gaussian pairs per step: thorough only.)
DIMS = {
    "cmm": dict(quick=(32, 64), standard=(32, 64, 128), thorough=(32, 64, 128, 384)),
    "ls": dict(quick=(16, 32), standard=(16, 32, 64), thorough=(16, 32, 64, 128)),
    "lp": dict(quick=(6,), standard=(6, 8), thorough=(6, 8, 10)),
}

#: Pools at this load ratio d^2/(n ln n), well past every critical size seen (the search gallops
#: up from 2 pairs, so only prefixes up to about twice n* are scored).
POOL_RATIO = {"cmm": 2.5, "ls": 1.2, "lp": 0.5}

MEMORY_NAMES = {"cmm": "correlation-matrix memory", "ls": "least-squares memory U V^+",
                "lp": "best linear memory (max-margin LP)"}

#: Rows per geometry draw (a random subset; the Gaussian baseline has as many), and the deciding figure.
GEOMETRY_ROWS = dict(quick=600, standard=2000, thorough=4000)
GEOMETRY_HEADLINE = "cosine_rms_over_isotropic_raw"

#: The learned store: the projection, pool sizes (n < d, n = d, n > d) and the cross-entropy ridge.
LEARNED_D = 32
LEARNED_NS = (16, 32, 96)
LEARNED_RIDGE = 1e-4
#: 1 - h_j "describes" the best-scale residuals at n when the mean gap lies within +-DESCRIBE_TOL.
DESCRIBE_TOL = 0.1


@lru_cache(maxsize=1)
def _source() -> embeddings.TokenEmbeddings:
    return embeddings.load_embeddings()


@lru_cache(maxsize=1)
def _trained() -> np.ndarray:
    X = _source().trained
    X.flags.writeable = False
    return X


def _rows() -> str:
    return "wheel" if _source().full_vocabulary else "sample"


def _read(ctx, figures: dict, thresholds: tuple[float, ...] = (0.0,)) -> Reading:
    return read_design(DESIGN.get(_rows(), {}), ctx.profile.level, figures, thresholds=thresholds,
                       where=f"with {_rows()} rows: linmem.embeddings.COMPARISON_DESIGN")


# --- the capacity questions (CMM, LS, LP) ------------------------------------------


def _memory(impl, memory: str):
    """The store whose fraction retrieved is read (None for the LP: beyond n* its memory is ~0)."""
    return {"cmm": impl.cmm, "ls": impl.least_squares_store}.get(memory)


def _success(impl, memory: str):
    if memory == "lp":
        def ok(V, U):
            res = impl.max_margin_memory(V, U)
            return bool(res.margin > 0 and impl.GordanCertificate(W=res.W, lam=None, keys=V, targets=U).verify())
        return ok
    build = _memory(impl, memory)
    return lambda V, U: bool(impl.all_retrieved(build(V, U), V, U))


def _measure(ctx, memory: str) -> dict:
    return embeddings.capacity_comparison(
        _success(ctx.impl, memory), _trained(), ctx.profile.pick(**DIMS[memory]), pool_ratio=POOL_RATIO[memory],
        draws=ctx.profile.pick(**DRAWS), streams=ctx.rng, tag=memory, build=_memory(ctx.impl, memory))


def _capacity_question(memory: str):
    def run(ctx):
        read, source = _read(ctx, {c: f"{memory}:{c}" for c in CONDITIONS}), _source().source
        if not read.resolved:  # decided on the design alone: nothing here to read, so nothing is measured
            return read.evidence(
                ctx, {"rows": [], "answers": {c: "not resolvable" for c in CONDITIONS},
                      "underpowered": read.underpowered, "rule": DECISION_RULE, "embeddings": source},
                detail=f"{MEMORY_NAMES[memory]}: no condition is resolvable at profile {ctx.profile.level} with rows "
                       f"from {source} (measured across seeds: {read.note or 'not measured'}); not run. "
                       + "; ".join(read.whys))
        measured = _measure(ctx, memory)
        rows, figures, d_top = measured["rows"], measured["figures"], measured["d"]
        answers = read.answers(lambda c: "heavier" if figures[c] < 0 else "lighter")
        parts = []
        for r in rows:
            r["memory"] = memory
            if r["d"] == d_top and r["condition"] in answers:
                r["answer"], r["figure"] = answers[r["condition"]], figures[r["condition"]]
                b = next(x for x in rows if x["d"] == d_top and x["condition"] == r["baseline"])
                frac = (f"; fraction at n = {r['n_fixed']}: {r['fraction_at_n']:.2f} vs {b['fraction_at_n']:.2f}"
                        if r["fraction_at_n"] is not None else "")
                parts.append(f"{r['condition']}: {r['answer']} (figure {r['figure']:+.3f}; n* IQR {r['n_star_iqr']}"
                             f" vs {r['baseline']} {b['n_star_iqr']}; d^2/(n* ln n*) {r['ratio']:.2f} vs "
                             f"{b['ratio']:.2f}{frac})")
        data = {"rows": rows, "answers": answers, "condition_figures": figures, "answer_d": d_top,
                "rule": DECISION_RULE, "underpowered": read.underpowered, "diagnosis": measured["diagnosis"],
                "embeddings": source, "plot": _ratio_plot(memory, rows)}
        return read.evidence(
            ctx, data, cases=len(rows) * measured["draws"],
            detail=f"{MEMORY_NAMES[memory]}, d = {d_top}, {measured['draws']} draws, rows from {source}: "
                   + "; ".join(parts) + f"; design (typical +- sd across seeds): {read.note}"
                   + "; ".join(["", *read.whys]))

    return run


def _ratio_plot(memory: str, rows: list[dict]) -> dict:
    by = {c: [r for r in rows if r["condition"] == c] for c in COMPARED_CONDITIONS}
    return kit.plot(f"{MEMORY_NAMES[memory]}: critical d^2/(n* ln n*) over draws (median, interquartile range)",
                    "d", "d^2 / (n* ln n*)", [kit.series(c, [r["d"] for r in rs], [r["ratio"] for r in rs], yerr=[
                        [r["ratio"] - r["ratio_iqr"][0] for r in rs], [r["ratio_iqr"][1] - r["ratio"] for r in rs]])
                        for c, rs in by.items()], xscale="log", yscale="log")


def _ref_correct(W, V, U) -> np.ndarray:
    S = (V.T @ W.T) @ U
    diag = np.diag(S).copy()
    np.fill_diagonal(S, -np.inf)
    return diag > S.max(axis=1)


def _ref_memory(memory: str, V, U):
    """The CMM U V^T or LAPACK's least squares U V^+."""
    return U @ V.T if memory == "cmm" else np.linalg.lstsq(V.T, U.T, rcond=None)[0].T


def _ref_success(memory: str, V, U) -> bool:
    if memory != "lp":
        return bool(np.all(_ref_correct(_ref_memory(memory, V, U), V, U)))
    # the max-margin LP in its own formulation: max t s.t. <W, A_ij> >= t, |W_ab| <= 1 (A by theorems.authoring.kit)
    rows = np.array([A.ravel() for A in kit.comparisons(V, U).values()])
    D = rows.shape[1]
    res = linprog(np.r_[np.zeros(D), -1.0], A_ub=np.hstack([-rows, np.ones((len(rows), 1))]), b_ub=np.zeros(len(rows)),
                  bounds=[(-1, 1)] * D + [(None, None)], method="highs")
    return bool(-res.fun > LP_FEASIBILITY_TOL)


def _capacity_reference(memory: str):
    """Fresh pools at the smallest d: the pipeline's n* is a transition of the
    reference criterion, and its fraction retrieved matches the reference."""

    def run(ctx):
        impl, d = ctx.impl, ctx.profile.pick(**DIMS[memory])[0]
        success, build = _success(impl, memory), _memory(impl, memory)
        n_pool = embeddings.comparison_pool_size(d, POOL_RATIO[memory], rows=len(_trained()))
        bad, cases = [], 0
        for c, (V, U) in embeddings.comparison_pools(_trained(), d, n_pool, streams=ctx.rng,
                                                     tag=f"ref-{memory}").items():
            n = int(impl.critical_pairs(success, V, U))
            sides = [(n, True)] * (n >= 2) + [(max(n + 1, 2), False)] * (n < n_pool)
            bad += [f"{c}: reference says {'failure' if want else 'success'} at n = {m} (n* = {n})"
                    for m, want in sides if _ref_success(memory, V[:, :m], U[:, :m]) is not want]
            cases += len(sides)
            if build is not None:  # top-1 per pair where the fraction retrieved is read
                m = max(2, min(n_pool, n + 1))
                Vf, Uf = V[:, :m], U[:, :m]
                wrong_top1 = int(np.sum(impl.top1_correct(build(Vf, Uf), Vf, Uf)
                                        != _ref_correct(_ref_memory(memory, Vf, Uf), Vf, Uf)))
                cases += 1
                bad += [f"{c}: top-1 of {wrong_top1} of {m} pairs differ from the reference"] * bool(wrong_top1)
        return make(ctx, EvidenceKind.PROPERTY, not bad, seconds=0.0, figure=float(len(bad)),
                    threshold=0.0, cases=cases, counterexample=bad[0] if bad else None,
                    detail=f"{MEMORY_NAMES[memory]} at d = {d}: n* and n* + 1 against the numpy/scipy reference "
                           f"criterion, top-1 per pair against the reference memory"
                           + (f"; {len(bad)} disagreements" if bad else ""))

    return run


# --- geometry --------------------------------------------------------------------------


def _geometry(ctx) -> tuple[dict, float]:
    """The geometry comparison and its deciding figure (median RMS cosine, real minus Gaussian)."""
    g = embeddings.geometry_comparison(_trained(), rows=ctx.profile.pick(**GEOMETRY_ROWS),
                                       draws=ctx.profile.pick(**DRAWS), streams=ctx.rng,
                                       geometry=ctx.impl.embedding_geometry)
    return g, g["figures"][GEOMETRY_HEADLINE]["real"] - g["figures"][GEOMETRY_HEADLINE]["gaussian"]


def _geometry_question(ctx):
    read = _read(ctx, {"geometry": "geometry"})  # decided on the design, before any draw
    if read.whys:
        return question_evidence(ctx, False, {"answer": "not resolvable", "underpowered": read.whys[0],
                                              "embeddings": _source().source}, detail=f"not run: {read.whys[0]}")
    g, figure = _geometry(ctx)
    figures, head = g["figures"], g["figures"][GEOMETRY_HEADLINE]
    answer = ("more" if figure > 0 else "less") + " correlated than isotropic Gaussian rows"
    data = {"answer": answer, "geometry": figures, "figure": figure, "rows_per_draw": g["rows"],
            "embeddings": _source().source, "untrained_rows": int(_source().untrained.sum()),
            "rule": "median RMS cosine (x sqrt d) real minus Gaussian, above 0: more correlated, below: less; "
                    + by_design()}
    return question_evidence(
        ctx, True, data, figure=figure, comparison=">=" if figure > 0 else "<=",
        cases=2 * len(g["real"]),
        detail=f"{answer}: RMS pairwise cosine {head['real']:.3f} x 1/sqrt(d) (IQR {head['real_iqr']}) vs "
               f"Gaussian {head['gaussian']:.3f} (IQR {head['gaussian_iqr']}); "
               + "; ".join(f"{k} {v['real']:.4g} vs {v['gaussian']:.4g} ({v['versus_gaussian']})"
                           for k, v in figures.items() if k != GEOMETRY_HEADLINE)
               + f"; {len(g['real'])} draws of {g['rows']} rows from {_source().source}; design: the difference "
                 f"of medians across seeds {read.note}")


def _geometry_reference(ctx):
    """The geometry of one draw against direct numpy formulas."""
    X = _trained()
    sub = X[np.sort(ctx.rng("geometry-ref").choice(len(X), min(len(X), 600), replace=False))]
    m, d = sub.shape
    got = embeddings.geometry_figures(ctx.impl.embedding_geometry(sub, cosine_rows=m))
    norms, mu = np.sqrt(np.einsum("ij,ij->i", sub, sub)), sub.mean(axis=0)
    lam = np.linalg.eigvalsh((sub - mu).T @ (sub - mu))

    def rms_cosine(Y, norms):  # over all distinct pairs of a full Gram matrix, times sqrt(d)
        Y = Y / norms[:, None]
        return np.sqrt(np.mean((Y @ Y.T)[np.triu_indices(len(Y), 1)] ** 2) * d)

    ref = {"norm_cv": norms.std() / norms.mean(), "mean_share": mu @ mu / np.mean(norms**2),
           "top1_energy_share": lam.max() / lam.sum(), "participation_share": lam.sum()**2 / np.sum(lam**2) / d,
           "cosine_rms_over_isotropic_raw": rms_cosine(sub, norms),
           "cosine_rms_over_isotropic_centered": rms_cosine(sub - mu, np.linalg.norm(sub - mu, axis=1))}
    return reference_evidence(ctx, got, ref, {k: m * d * max(1.0, abs(ref[k])) for k in ref},
                              what="norm spread, mean share, top-1 energy share, participation ratio and RMS "
                                   f"cosines of {m} rows against eigvalsh and a full Gram matrix")


# --- a learned store, assessed -----------------------------------------------------------


def _learned(ctx) -> dict[int, dict]:
    return embeddings.learned_store_gaps(_trained(), d=LEARNED_D, ns=LEARNED_NS, draws=ctx.profile.pick(**DRAWS),
                                         ridge=LEARNED_RIDGE, streams=ctx.rng,
                                         learn=ctx.impl.cross_entropy_memory, assess=ctx.impl.assess)


def _learned_question(ctx):
    read = _read(ctx, {n: f"learned:{n}" for n in LEARNED_NS}, (-DESCRIBE_TOL, DESCRIBE_TOL))
    per, ff = _learned(ctx), _feed_forward_view(ctx.impl)
    answers = read.answers(lambda n: "1 - h_j " + ("describes" if abs(per[n]["gap_mean"]) <= DESCRIBE_TOL
                                                   else "does not describe"))
    verdicts = {n: {"answer": answers[n], **s, "underpowered": read.underpowered[n]} for n, s in per.items()}
    data = {"answers": {str(n): v for n, v in verdicts.items()}, "tolerance": DESCRIBE_TOL,
            "feed_forward": ff, "embeddings": _source().source}
    return read.evidence(
        ctx, data, cases=sum(s["draws"] for s in per.values()),
        detail=f"cross-entropy memory (ridge {LEARNED_RIDGE}) on centred real pairs at d = {LEARNED_D}: "
               + "; ".join(f"n = {n}: {v['answer']} (residuals after the best scale: mean "
                           f"{v['mean_scaled_residual']:.3f} vs model {v['mean_model']:.3f}, mean gap "
                           f"{v['gap_mean']:+.3f} against +-{DESCRIBE_TOL}, gap IQR "
                           f"[{v['gap_iqr'][0]:.3f}, {v['gap_iqr'][1]:.3f}]; top-1 {v['top1_rate']:.2f})"
                           for n, v in verdicts.items())
               + f"; feed-forward {ff['name']}: rank {ff['rank']} of {min(ff['shape'])}, participation ratio "
                 f"{ff['participation_ratio']:.1f}; design (mean gap across seeds): "
               + read.note + "; ".join(["", *read.whys]))


def _feed_forward_view(impl) -> dict:
    W = embeddings.load_embeddings(tensor=embeddings.MINILM_FEED_FORWARD_TENSOR)  # from the rows' source
    return {"name": embeddings.MINILM_FEED_FORWARD_TENSOR, **impl.assess(W).spectrum(),
            "float16": not _source().full_vocabulary}


def _learned_reference(ctx):
    impl = ctx.impl
    P = impl.condition_embeddings(impl.random_subspace(_trained(), LEARNED_D, rng=ctx.rng("ref-sub")), "centered")
    V, U = impl.draw_pairs(P, LEARNED_NS[-1], rng=ctx.rng("ref-pairs"))
    W = impl.cross_entropy_memory(V, U, ridge=LEARNED_RIDGE).W
    a, WK = impl.assess(W, V, U), W @ V
    R, Rs = WK - U, np.sum(WK * U) / np.sum(WK * WK) * WK - U
    h = np.diag(V.T @ np.linalg.pinv(V.T))
    scale = V.shape[1] * (np.sum(WK * WK) + np.sum(U * U) + 1)
    return reference_evidence(
        ctx, {"residuals": a.residuals, "scaled_residuals": a.scaled_residuals, "expected_error": a.expected_error},
        {"residuals": np.sum(R * R, axis=0), "scaled_residuals": np.sum(Rs * Rs, axis=0), "expected_error": 1 - h},
        {"residuals": scale, "scaled_residuals": scale, "expected_error": V.shape[1] * REFERENCE_CONDITION_ALLOWANCE},
        what="residuals, best-scale residuals and 1 - h_j of a learned store against numpy (LAPACK pinv leverage)")


def design_figures(ctx, question: str) -> dict[str, float]:
    """The deciding figures of one run of ``question`` (``cmm``, ``ls``, ``lp``,
    ``learned`` or ``geometry``), measured whatever :data:`DESIGN` says: what
    :data:`DESIGN` records across seeds (``ctx`` as the ``answer`` check gets it)."""
    with one_blas_thread():
        if question in DIMS:
            return {f"{question}:{c}": v for c, v in _measure(ctx, question)["figures"].items()}
        if question == "learned":
            return {f"learned:{n}": s["gap_mean"] for n, s in _learned(ctx).items()}
        if question == "geometry":
            return {"geometry": _geometry(ctx)[1]}
    raise ValueError(f"question must be one of cmm, ls, lp, learned, geometry, got {question!r}")


# --- negative controls (wrong variants) and the declarations ---------------------------------


def _max_margin_negated(keys, targets):
    res = linmem.max_margin_memory(keys, targets)
    return replace(res, W=-res.W)


def _geometry_uncentred(X, **kw):
    Xa = np.asarray(X, dtype=float)
    s = np.linalg.svd(Xa, compute_uv=False) ** 2  # wrong: energy of the uncentred rows
    return {**linmem.embedding_geometry(X, **kw),
            "participation_share": float(s.sum() ** 2 / np.sum(s * s) / Xa.shape[1])}


def _assess_unscaled(W, K=None, V=None, **kw):
    a = linmem.assess(W, K, V, **kw)
    return replace(a, scaled_residuals=a.residuals) if K is not None else a


def _capacity_claim(cid: str, memory: str, title: str, control) -> Claim:
    return question(
        cid, title=title, source=SOURCE, tags=TAGS,
        statement=r"n^*_{\text{real}} \gtrless n^*_{\text{Gaussian}}:\ \frac{d^2}{n^* \ln n^*} "
                  r"\text{ per condition (raw, centred, whitened), outside the spread over draws}",
        assumptions=("keys and targets: distinct token rows paired at random; conditions raw, centred + unit "
                     "norm, whitened + unit norm; baselines N(0, I/d) and unit-norm Gaussian at the same d, n",
                     "lower d by Haar-random subspace projection; n* by bisection on nested pools (a transition "
                     "point for CMM and LS, which are not monotone along a pool)",
                     DECISION_RULE),
        answer=_capacity_question(memory), reference=_capacity_reference(memory), control=control,
        about=("n* and fraction retrieved per condition and d over draws; the answer per condition",
               "the pipeline's n* and top-1 against numpy/scipy references on fresh pools"))


CLAIMS = [
    question(
        "real.geometry", source=SOURCE, tags=TAGS,
        title="Geometry of real token embeddings against isotropic Gaussian rows",
        statement=r"\text{norm spread, } \|\bar x\|^2/\overline{\|x\|^2},\ \text{top energy share, participation "
                  r"ratio, RMS}\cos \text{ vs } 1/\sqrt d",
        assumptions=("rows: the trained token embeddings (untrained [unusedN] rows removed); draws: random "
                     "subsets of rows, against N(0, I/d) matrices of the same shape",),
        answer=_geometry_question, reference=_geometry_reference,
        control=wrong("participation ratio from the uncentred rows", embedding_geometry=_geometry_uncentred),
        about=("each figure over draws against the Gaussian's spread; the RMS cosine decides",
               "the geometry figures against direct numpy formulas")),
    _capacity_claim("real.cmm-capacity", "cmm",
                    "CMM top-1 capacity with real token embeddings: heavier or lighter than Gaussian",
                    wrong("CMM built as keys targets^T (keys and targets swapped)",
                          cmm=lambda keys, targets: linmem.cmm(targets, keys))),
    _capacity_claim("real.ls-capacity", "ls",
                    "Least-squares top-1 capacity with real token embeddings: heavier or lighter than Gaussian",
                    wrong("the least-squares store replaced by the outer-product store",
                          least_squares_store=linmem.outer_product_store)),
    _capacity_claim("real.optimal-capacity", "lp",
                    "Best linear memory (max-margin LP) with real token embeddings at small d",
                    wrong("the max-margin memory returned negated", max_margin_memory=_max_margin_negated)),
    question(
        "real.learned-store-assessed", tags=TAGS,
        title="A cross-entropy store learned on real pairs, assessed against the least-squares model",
        statement=r"\overline{\|a W k_j - v_j\|^2} \text{ vs } \overline{1 - h_j}\ (n < d,\ n = d,\ n > d)",
        source="ours (000 and 004)",
        assumptions=(f"centred unit-norm real pairs projected to d = {LEARNED_D}; the weakly ridged cross-entropy "
                     "memory; residuals after the store's best single scale a (top-1 training fixes no scale)",
                     f"describes: the mean gap over draws within +-{DESCRIBE_TOL}; does not: outside; "
                     + by_design("typical gap", "the nearer bound")),
        depends_on=("assess.measured-residuals",),
        answer=_learned_question, reference=_learned_reference,
        control=wrong("best-scale residuals reported unscaled", assess=_assess_unscaled),
        about=("the gap between measured (best-scale) residuals and 1 - h_j per n, with the SVD view of a "
               "real feed-forward matrix", "the assessment of a learned store against numpy")),
]
