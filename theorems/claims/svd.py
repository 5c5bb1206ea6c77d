"""Any matrix read as a key-value store through its SVD (000, "A matrix as a
key-value store", end of App. C, App. H).

A store ``W`` (p x d) with compact SVD ``U diag(s) Z^T`` answers a query ``q`` with
``sum_l (s_l u_l)(z_l^T q)``: the right singular vectors ``z_l`` are orthonormal keys,
``s_l u_l`` their values, and whatever of ``q`` lies outside ``col(Z)`` is annihilated; yet
the number of such pairs (the rank) does not bound how many consistent pairs W reproduces.
Singular values are irrational in general, so the exact and ladder stores are assembled from
exactly orthogonal rational factors (:func:`theorems.authoring.stores_and_queries`): their
compact SVD and a basis of their kernel are known without being computed.
"""

from __future__ import annotations


import numpy as np

import linmem
from theorems.authoring import kit
from theorems.core.residuals import exact_sq
from theorems.authoring.strategies import (
    Case, Inputs, STORE_LADDER, exact_factored, factored_cases, float_factored, float_key_cases, integer_matrices)
from theorems.authoring.templates import counterexample, identity, swapped_projectors, wrong
from theorems.core.tolerance import norm
from hypothesis import strategies as st

__all__ = ["CLAIMS"]


# --- this module's inputs (single-use input families, moved from theorems.authoring.strategies) ---


def stores_and_queries(*, float_factors: bool = False) -> Inputs:
    """``(W, queries, factors)``: a matrix W (p x d) read as a store, query
    vectors as the columns of ``queries`` (d x n) and W's factors (a
    :class:`Factored`, ``factors.A == W``), in the three number systems:
    exact stores from :func:`exact_factored` (every shape, rank 0 to full,
    repeated singular values and columns) with two integer queries; ladder
    stores :data:`STORE_LADDER` (``max(3, precise_cases)``) with three
    integer queries; float stores with three Gaussian queries, either the key
    matrices of every family of :data:`FLOAT_KEY_FAMILIES` with
    ``factors=None`` (LAPACK's singular values the reference) or, with
    ``float_factors``, :func:`float_factored` stores (Haar factors, rank 0 to
    full, condition to 1e12, magnitude 1e-8 to 1e8) with their factors."""

    @st.composite
    def exact(draw):
        F = draw(exact_factored())
        return F.A, draw(integer_matrices(F.Z_full.shape[0], 2)), F

    def ladder(ctx):
        rng = ctx.rng("svd queries")
        return [(label, (F.A, kit.integer_array(rng, (F.Z_full.shape[0], 3)), F))
                for label, F in factored_cases(ctx, STORE_LADDER, stream="svd-precise")]

    def queries(seed: int, d: int) -> np.ndarray:
        return kit.generator(seed, "queries").standard_normal((d, 3))

    if float_factors:
        floats = float_factored().map(lambda c: Case((c.args[0].A, queries(c.recipe["seed"], c.recipe["n"]),
                                                      c.args[0]), c.recipe))
        about = "float stores with Haar factors, rank 0 to full, condition to 1e12, magnitude 1e-8 to 1e8"
    else:
        floats = float_key_cases().map(lambda c: Case((c.K, queries(c.seed, c.M), None), c.describe()))
        about = "float stores of every key family"
    return Inputs(("W", "queries", "factors"), exact(), ladder, floats,
                  "stores U diag(s) Z^T with exactly orthonormal factors (condition 1e20, repeated and zero "
                  "singular values, repeated columns); " + about)


#: The rank-vs-pairs witnesses: a rank-2 rule on R^3 and growing pair counts,
#: every one larger than both the rank and the key dimension.
RULE_DIM, RULE_RANK, RULE_OUT_DIM = 3, 2, 4
PAIR_COUNTS = (4, 12, 48)

# float stores: the keys of every family, LAPACK's singular values the reference; the kernel claim needs factors
STORES, KERNELS = stores_and_queries(), stores_and_queries(float_factors=True)


# --- the terms ---------------------------------------------------------------------------


def _recall_expansion(impl, W, Q, F):
    if kit.is_exact(W):
        # the factors are a compact SVD of W, the one linmem's exact pseudoinverse sees
        U, s, Z = F.U, F.s, F.Z
        I_r = kit.eye(len(s), W)
        return [(U.T @ U, I_r), (Z.T @ Z, I_r), (W @ Q, (U * s) @ (Z.T @ Q)), (impl.pinv(W), (Z / s) @ U.T)]
    keys, values = impl.svd_key_value_view(W)
    return [(W @ Q, values @ (keys.T @ Q))]


def _key_returns_value(impl, W, Q, F):
    s = F.s if F is not None else np.linalg.svd(W, compute_uv=False)
    if kit.is_exact(W):
        return [(W @ F.Z, F.U * s),  # W z_j = s_j u_j, column by column
                (F.Z.T @ F.Z, kit.eye(len(s), W)),  # so z_j selects only its own term
                (W.T @ W @ F.Z, F.Z * (s * s)),  # z_j are right singular vectors with gains s_j
                (impl.pinv(W) @ (F.U * s), F.Z)]  # and W^+ sends each value back to its key
    # relative residuals; the gains ||s_j u_j|| against the reference singular values, both padded
    # with zeros to min(p, d) (more gains than that, or keys and values in different numbers: shapes differ)
    keys, values = impl.svd_key_value_view(W)
    gains = sorted((norm(values[:, j]) for j in range(values.shape[1])), reverse=True)
    m, scale = min(W.shape), 1 + norm(W)
    pad = lambda g: np.array(list(g) + [0 * scale] * (m - len(g)), dtype=object)  # noqa: E731
    return [(W @ keys / scale, values / scale), (keys.T @ keys, kit.eye(keys.shape[1], keys)),
            (pad(gains) / scale, pad(sorted(s, reverse=True)) / scale)]


def _null_space(impl, W, Q, F):
    Z, Z_perp, s = F.Z, F.Z_perp, F.s
    if kit.is_exact(W):
        P, _ = impl.projectors(W)  # W^+ W: the projector onto row(W)
        ZZ = Z @ Z.T
        return [(P, ZZ),  # row(W) = col(Z)
                (W @ Z_perp, 0 * (W @ Z_perp)),  # col(Z)^perp inside ker W
                (kit.rank(W), len(s)),  # dim ker W = d - r: equality
                (W @ Q, W @ (ZZ @ Q)), (W @ (Q - P @ Q), 0 * (W @ Q))]  # the off-key part returns 0
    # a singular subspace is determined to eps ||W|| / s_min: Z^T Z_perp is divided by cond
    Z = impl.compact_svd(W).Z
    if Z.shape[0] != W.shape[1] or Z.shape[1] + Z_perp.shape[1] != W.shape[1]:
        return [(np.inf, 0)]
    nW, cond = norm(W), s[0] / s[-1] if len(s) else 1
    off = Q - Z @ (Z.T @ Q)
    return [(W / (1 + nW), W @ Z @ Z.T / (1 + nW)), (W @ off / ((1 + nW) * (1 + norm(Q))), 0 * (W @ off)),
            (Z.T @ Z_perp / cond, 0 * (Z.T @ Z_perp))]


# --- svd.rank-vs-pairs -------------------------------------------------------------------


def _rank_vs_pairs_witness(ctx):
    """A rank-2 rule A on R^3 and, for each pair count M, M distinct integer
    keys whose first M - 1 already span R^3 (so the last key depends on them)."""
    rng = ctx.rng("rank-vs-pairs")
    A = np.zeros((1, 1))  # rejected: rank 0
    while kit.rank(A) != RULE_RANK:
        A = kit.exact(rng.integers(-3, 4, size=(RULE_OUT_DIM, RULE_RANK))
                      @ rng.integers(-3, 4, size=(RULE_RANK, RULE_DIM)))
    instances = []
    for M in PAIR_COUNTS:
        K = np.zeros((RULE_DIM, M), dtype=int)  # rejected: rank 0
        while len({tuple(c) for c in K.T}) < M or kit.rank(K[:, :-1]) < RULE_DIM:
            K = rng.integers(-4, 5, size=(RULE_DIM, M))
        K = kit.exact(K)
        instances.append((A, K, ctx.impl.consistent_values(A, K)))
    return instances


def _rank_vs_pairs_verify(impl, instances):
    holds, excess = True, []
    for A, K, V in instances:
        d, M = K.shape
        W = impl.least_squares_store(K, V)  # fitted from the pairs alone
        r = kit.rank(W)
        V_bad = V + np.eye(*V.shape, k=M - 1, dtype=int)  # unrelated values: 1 added to v_M's first entry
        holds &= bool(
            exact_sq(V, A @ K) == 0  # the pairs follow the rule
            and exact_sq(W @ K, V) == 0  # the fitted store reproduces every pair exactly
            and r == kit.rank(A) == RULE_RANK  # with only r SVD key-value pairs
            and M > d and M > r
            and exact_sq(impl.least_squares_store(K, V_bad) @ K, V_bad) != 0  # which unrelated values could not get
        )
        excess.append(M - max(d, r))
    return holds, min(excess)


# --- wrong variants for the negative controls ------------------------------------------------


def _view(gain):
    """Wrong SVD key-value view: values u_l times ``gain(s_l)`` in place of s_l u_l."""

    def view(W, **kw):
        svd = linmem.compact_svd(W)
        return svd.Z, svd.U * gain(svd.s)

    return view


def _svd_sides_swapped(A, **kw):
    svd = linmem.compact_svd(A)
    return linmem.CompactSVD(svd.Z, svd.s, svd.U, svd.rank)


#: The exact checks of the SVD identities read the SVD through the pseudo-inverse (irrational singular
#: vectors have no exact form): a control aimed at them.
_EXACT_PINV_TRANSPOSED = wrong("pseudo-inverse replaced by the transpose", aimed_at=("exact",),
                               pinv=lambda K: K.T)


CLAIMS = [
    identity(
        "svd.recall-expansion",
        title="Any matrix answers a query as a sum over its SVD key-value pairs",
        statement=(r"W = U\Sigma Z^{\top}\ (\text{compact}):\quad "
                   r"Wq = \sum_{\ell=1}^{r_W} \sigma_\ell u_\ell \,(z_\ell^{\top} q)\quad \forall q"),
        source="000, 'A matrix as a key-value store'",
        assumptions=("W any real p x d matrix (any rank, including 0)", "q any query in R^d"),
        # a backward-stable SVD reproduces W to eps ||W||: no condition factor
        inputs=STORES, terms=_recall_expansion, scale=lambda W, Q, F: kit.scale(W, W, Q, condition=False),
        control=(wrong("values u_l without the gain s_l", svd_key_value_view=_view(lambda s: 1)),
                 _EXACT_PINV_TRANSPOSED),
    ),
    identity(
        "svd.key-returns-value",
        title="Querying a store with a right singular vector returns that vector's value exactly",
        statement=(r"W z_j = \sigma_j u_j,\qquad z_i^{\top} z_j = \delta_{ij}\qquad (1 \le j \le r_W)"),
        source="000, 'A matrix as a key-value store'",
        assumptions=("W any real p x d matrix", "(u_j, sigma_j, z_j) any compact SVD triple of W"),
        depends_on=("svd.recall-expansion",),
        inputs=STORES, terms=_key_returns_value, scale=lambda W, *rest: kit.scale(W, condition=False),
        control=(wrong("values u_l / s_l (the pseudoinverse gain) in place of s_l u_l",
                       svd_key_value_view=_view(lambda s: 1 / s)), _EXACT_PINV_TRANSPOSED),
    ),
    identity(
        "svd.null-space",
        title="The row space of a store is spanned by its keys and everything orthogonal to them returns zero",
        statement=(r"\operatorname{row}(W) = \operatorname{col}(Z),\quad "
                   r"\ker(W) = \operatorname{col}(Z)^{\perp},\quad Wq = WZZ^{\top}q\ \ \forall q,\quad "
                   r"Z^{\top}q = 0 \Rightarrow Wq = 0"),
        source="000, 'A matrix as a key-value store'; App. C (end)",
        assumptions=("W any real p x d matrix with compact SVD U S Z^T (any rank)",),
        depends_on=("svd.recall-expansion", "proj.coefficient-projector"),
        inputs=KERNELS, terms=_null_space, scale=lambda W, *rest: kit.scale(W, condition=False),
        control=wrong("keys taken from the left singular vectors (U for Z, and W W^+ for W^+ W)",
                      compact_svd=_svd_sides_swapped, projectors=swapped_projectors),
    ),
    counterexample(
        "svd.rank-vs-pairs",
        title="Rank does not count stored pairs: a rank-2 rule reproduces 48 consistent pairs in R^3 exactly",
        statement=(r"\exists A \in \mathbb{R}^{p\times d},\ \operatorname{rank} A = r,\ K \in \mathbb{R}^{d\times M},"
                   r"\ M > d > r:\ W_{\mathrm{LS}} K = V = AK,\ \operatorname{rank} W_{\mathrm{LS}} = r"),
        source="000, 'A matrix as a key-value store'; App. H",
        assumptions=("values consistent with one linear rule, V = A K",
                     "a counterexample to 'a rank-r matrix holds at most r (or d) pairs'; the same keys with one "
                     "value changed cannot be fitted exactly"),
        depends_on=("svd.recall-expansion", "ls.pseudoinverse-minimizer"),
        witness=_rank_vs_pairs_witness, verify=_rank_vs_pairs_verify,
        describe=lambda instances: [{"A": A, "K": K, "pairs": K.shape[1]} for A, K, _ in instances],
        about="rank-2 rule, 4, 12 and 48 pairs in R^3, verified in exact arithmetic",
        how=(f"constructed: a rank-{RULE_RANK} rule on R^{RULE_DIM} with {', '.join(map(str, PAIR_COUNTS))} "
             "consistent pairs, each fitted exactly by a store of rank 2"),
        control=wrong("store fitted as V K^T in place of V K^+", least_squares_store=linmem.outer_product_store),
    ),
]
