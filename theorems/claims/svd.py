"""Any matrix read as a key-value store through its SVD (000, "A matrix as a
key-value store", end of App. C, App. H).

A store ``W`` (p x d) with compact SVD ``U diag(s) Z^T`` answers a query
``q`` with ``sum_l (s_l u_l)(z_l^T q)``: the right singular vectors ``z_l``
are orthonormal keys, ``s_l u_l`` their values, and whatever of ``q`` lies
outside ``col(Z)`` is annihilated. The last claim shows that the number of
such SVD pairs (the rank) does not bound how many consistent pairs one
matrix reproduces.

Singular values are irrational in general, so the exact evidence uses
matrices assembled as ``W = U diag(s) Z^T`` from exactly orthogonal rational
``U`` and ``Z`` (Cayley transforms, :func:`linmem.ensembles.rational_orthogonal`)
and rational ``s``: their compact SVD, and a basis of their kernel, are then
known exactly. The same exact matrices, rounded afresh at each rung, feed the
precision ladders, with condition numbers up to 1e20, repeated singular
values and rank deficiency.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from theorems import kit
from theorems.residuals import exact_sq
from theorems.strategies import Case, Inputs, float_key_cases
from theorems.templates import counterexample, identity, swapped_projectors, wrong
from theorems.tolerance import norm

__all__ = ["CLAIMS"]

#: Rational singular values the exact strategy draws from (repeats allowed,
#: so some SVDs are not unique and the identities must hold for any choice).
EXACT_GAINS = (Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5))

#: Condition numbers of the float stores whose kernel is known (to 1e12 in float64).
FLOAT_CONDITIONING = (1.0, 1e3, 1e6, 1e12)

#: The rank-vs-pairs witnesses: a rank-2 rule on R^3 and growing pair counts,
#: every one larger than both the rank and the key dimension.
RULE_DIM, RULE_RANK, RULE_OUT_DIM = 3, 2, 4
PAIR_COUNTS = (4, 12, 48)


# --- exact stores with a known SVD ---------------------------------------------


@dataclass(frozen=True)
class _Factors:
    """``W = U diag(s) Z^T`` with ``Z`` the first ``r`` columns of the
    orthogonal ``Z_full``, whose remaining columns ``Z_perp`` span ``ker W``.
    ``queries`` holds query vectors as columns."""

    U: np.ndarray
    s: np.ndarray
    Z_full: np.ndarray
    queries: np.ndarray
    r: int
    Z: np.ndarray
    Z_perp: np.ndarray
    W: np.ndarray

    @classmethod
    def build(cls, U, s, Z_full, queries) -> "_Factors":
        r = len(s)
        Z = Z_full[:, :r]
        return cls(U, s, Z_full, queries, r, Z, Z_full[:, r:], (U * s) @ Z.T)

    def describe(self) -> dict:
        return {"U": self.U, "s": self.s, "Z_full": self.Z_full, "queries": self.queries}


def _factors(p: int, d: int, s, queries, rng) -> _Factors:
    s = np.array(list(s), dtype=object)
    U = ensembles.rational_orthogonal(p, rng=rng)[:, : len(s)]
    Z_full = ensembles.rational_orthogonal(d, rng=rng)
    return _Factors.build(U, s, Z_full, queries)


@st.composite
def _exact_factors(draw, *, max_dim: int = 4, n_queries: int = 2):
    """Exact stores of every shape (p < d, p = d, p > d) and every rank from 0
    (the zero matrix) to full, with repeated singular values mixed in."""
    p = draw(st.integers(1, max_dim))
    d = draw(st.integers(1, max_dim))
    r = draw(st.integers(0, min(p, d)))
    s = sorted(draw(st.lists(st.sampled_from(EXACT_GAINS), min_size=r, max_size=r)), reverse=True)
    seed = draw(st.integers(0, 2**32 - 1))
    q = draw(st.lists(st.integers(-3, 3), min_size=d * n_queries, max_size=d * n_queries))
    return _factors(p, d, s, kit.exact(q).reshape(d, n_queries), np.random.default_rng(seed))


#: Ladder inputs: (p, d, singular values, label), cycled to the profile's count.
_PRECISE_SPECS = (
    (4, 6, kit.rational_spectrum(4, 10**20), "cond 1e20, full rank, 4x6"),
    (5, 3, kit.rational_spectrum(2, 10**12), "cond 1e12, rank 2 of 3, 5x3"),
    (4, 4, [Fraction(3), Fraction(3), Fraction(1, 10**20)], "repeated s = 3, 3 and 1e-20, rank 3 of 4, 4x4"),
    (1, 5, [Fraction(7)], "one row, 1x5"),
    (6, 2, kit.rational_spectrum(2, 10**20), "cond 1e20, full rank, 6x2"),
    (3, 3, [Fraction(1)] * 3, "all singular values equal (orthogonal W), 3x3"),
)


def _precise_factor_cases(ctx) -> list[tuple[str, _Factors]]:
    rng = ctx.rng("svd-precise")
    cases = []
    for i in range(max(3, ctx.profile.precise_cases)):
        p, d, s, label = _PRECISE_SPECS[i % len(_PRECISE_SPECS)]
        cases.append((label, _factors(p, d, s, kit.integer_array(rng, (d, 3)), rng)))
    return cases


# --- input families: exact stores with known factors; float stores ----------------------


def _float_queries(seed: int, M: int, n: int = 3) -> np.ndarray:
    return kit.generator(seed, "queries").standard_normal((M, n))


def _as_stores(f: _Factors) -> tuple:
    return f.W, f.s, f.queries, f.U, f.Z


STORES = Inputs(
    ("W", "s", "queries", "U", "Z"), _exact_factors().map(_as_stores),
    lambda ctx: [(label, _as_stores(f)) for label, f in _precise_factor_cases(ctx)],
    # the key matrices of every family serve as stores (duplicated columns, rank
    # deficiency, condition to 1e12, any shape), LAPACK's singular values the reference
    float_key_cases().map(lambda c: Case((c.K, np.linalg.svd(c.K, compute_uv=False), _float_queries(c.seed, c.M),
                                          None, None), c.describe())),
    "stores U diag(s) Z^T with exactly orthonormal factors (condition 1e20, repeated and zero "
    "singular values), float stores of every key family")


@st.composite
def _float_factored_stores(draw, *, max_dim: int = 8):
    """Float stores ``U diag(s) Z^T`` with Haar factors, rank 0 to full,
    condition up to 1e12 and an overall magnitude 1e-8 to 1e8; the trailing
    columns of the full orthogonal ``Z`` are an exact-rank kernel basis."""
    p, d = draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim))
    r = draw(st.integers(0, min(p, d)))
    cond = draw(st.sampled_from(FLOAT_CONDITIONING)) if r > 1 else 1.0
    magnitude = 10.0 ** draw(st.sampled_from((-8, 0, 8)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    s = magnitude * (np.geomspace(1.0, 1.0 / cond, r) if r > 1 else np.ones(r))
    U = np.linalg.qr(rng.standard_normal((p, p)))[0][:, :r]
    Z_full = np.linalg.qr(rng.standard_normal((d, d)))[0]
    recipe = {"p": p, "d": d, "rank": r, "cond": cond, "magnitude": magnitude, "seed": seed}
    return Case(((U * s) @ Z_full[:, :r].T, Z_full[:, :r], Z_full[:, r:], rng.standard_normal((d, 3)), s), recipe)


def _as_kernel(f: _Factors) -> tuple:
    return f.W, f.Z, f.Z_perp, f.queries, f.s


KERNELS = Inputs(
    ("W", "Z", "Z_perp", "queries", "s"), _exact_factors().map(_as_kernel),
    lambda ctx: [(label, _as_kernel(f)) for label, f in _precise_factor_cases(ctx)],
    _float_factored_stores(),
    "stores with an exactly known kernel: rank 0 to full, condition to 1e20 (mpmath) and 1e12 (float)")


# --- the terms ---------------------------------------------------------------------------


def _recall_expansion(impl, W, s, Q, U, Z):
    if kit.is_exact(W):
        # the factors are a compact SVD of W, the one linmem's exact pseudoinverse sees
        I_r = kit.eye(len(s), W)
        return [(U.T @ U, I_r), (Z.T @ Z, I_r), (W @ Q, (U * s) @ (Z.T @ Q)), (impl.pinv(W), (Z / s) @ U.T)]
    keys, values = impl.svd_key_value_view(W)
    return [(W @ Q, values @ (keys.T @ Q))]


def _key_returns_value(impl, W, s, Q, U, Z):
    if kit.is_exact(W):
        return [(W @ Z, U * s),  # W z_j = s_j u_j, column by column
                (Z.T @ Z, kit.eye(len(s), W)),  # so z_j selects only its own term
                (W.T @ W @ Z, Z * (s * s)),  # z_j are right singular vectors with gains s_j
                (impl.pinv(W) @ (U * s), Z)]  # and W^+ sends each value back to its key
    # relative residuals; the gains ||s_j u_j|| against the reference singular
    # values, both padded with zeros to min(p, d)
    keys, values = impl.svd_key_value_view(W)
    gains = sorted((norm(values[:, j]) for j in range(values.shape[1])), reverse=True)
    m, scale = min(W.shape), 1 + norm(W)
    if keys.shape[1] != values.shape[1] or len(gains) > m:
        return [(math.inf, 0)]
    pad = lambda g: np.array(list(g) + [0 * scale] * (m - len(g)), dtype=object)  # noqa: E731
    return [(W @ keys / scale, values / scale), (keys.T @ keys, kit.eye(keys.shape[1], keys)),
            (pad(gains) / scale, pad(sorted(s, reverse=True)) / scale)]


def _null_space(impl, W, Z, Z_perp, Q, s):
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
        return [(math.inf, 0)]
    nW, cond = norm(W), s[0] / s[-1] if len(s) else 1
    off = Q - Z @ (Z.T @ Q)
    return [(W / (1 + nW), W @ Z @ Z.T / (1 + nW)), (W @ off / ((1 + nW) * (1 + norm(Q))), 0 * (W @ off)),
            (Z.T @ Z_perp / cond, 0 * (Z.T @ Z_perp))]


# --- svd.rank-vs-pairs -------------------------------------------------------------------


def _rank_vs_pairs_witness(ctx):
    """A rank-2 rule A on R^3 and, for each pair count M, M distinct integer
    keys whose first M - 1 already span R^3 (so the last key depends on them)."""
    rng = ctx.rng("rank-vs-pairs")
    while True:
        A = kit.exact(rng.integers(-3, 4, size=(RULE_OUT_DIM, RULE_RANK)) @ rng.integers(-3, 4, size=(RULE_RANK, RULE_DIM)))
        if kit.rank(A) == RULE_RANK:
            break
    instances = []
    for M in PAIR_COUNTS:
        while True:
            K = rng.integers(-4, 5, size=(RULE_DIM, M))
            distinct = len({tuple(c) for c in K.T}) == M
            if distinct and kit.rank(K[:, :-1]) == RULE_DIM:
                break
        K = kit.exact(K)
        instances.append((A, K, ctx.impl.consistent_values(A, K)))
    return instances


def _rank_vs_pairs_verify(impl, instances):
    holds, excess = True, []
    for A, K, V in instances:
        d, M = K.shape
        W = impl.least_squares_store(K, V)  # fitted from the pairs alone
        r = kit.rank(W)
        # Unrelated values on the same keys: change one entry of the last value.
        V_bad = V.copy()
        V_bad[0, -1] += 1
        W_bad = impl.least_squares_store(K, V_bad)
        holds &= bool(
            exact_sq(V, A @ K) == 0  # the pairs follow the rule
            and exact_sq(W @ K, V) == 0  # the fitted store reproduces every pair exactly
            and r == kit.rank(A) == RULE_RANK  # with only r SVD key-value pairs
            and M > d and M > r
            and exact_sq(W_bad @ K, V_bad) != 0  # which unrelated values could not get
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


CLAIMS = [
    identity(
        "svd.recall-expansion",
        title="Any matrix answers a query as a sum over its SVD key-value pairs",
        statement=(r"W = U\Sigma Z^{\top}\ (\text{compact}):\quad "
                   r"Wq = \sum_{\ell=1}^{r_W} \sigma_\ell u_\ell \,(z_\ell^{\top} q)\quad \forall q"),
        source="000, 'A matrix as a key-value store'",
        assumptions=("W any real p x d matrix (any rank, including 0)", "q any query in R^d"),
        # a backward-stable SVD reproduces W to eps ||W||: no condition factor
        inputs=STORES, terms=_recall_expansion, scale=lambda W, s, Q, U, Z: kit.scale(W, W, Q, condition=False),
        control=wrong("values u_l without the gain s_l", svd_key_value_view=_view(lambda s: 1)),
    ),
    identity(
        "svd.key-returns-value",
        title="Querying a store with a right singular vector returns that vector's value exactly",
        statement=(r"W z_j = \sigma_j u_j,\qquad z_i^{\top} z_j = \delta_{ij}\qquad (1 \le j \le r_W)"),
        source="000, 'A matrix as a key-value store'",
        assumptions=("W any real p x d matrix", "(u_j, sigma_j, z_j) any compact SVD triple of W"),
        depends_on=("svd.recall-expansion",),
        inputs=STORES, terms=_key_returns_value, scale=lambda W, *rest: kit.scale(W, condition=False),
        control=wrong("values u_l / s_l (the pseudoinverse gain) in place of s_l u_l",
                      svd_key_value_view=_view(lambda s: 1 / s)),
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
        assumptions=(
            "values consistent with one linear rule, V = A K",
            "a counterexample to 'a rank-r matrix holds at most r (or d) pairs'; "
            "the same keys with one value changed cannot be fitted exactly",
        ),
        depends_on=("svd.recall-expansion", "ls.pseudoinverse-minimizer"),
        witness=_rank_vs_pairs_witness, verify=_rank_vs_pairs_verify,
        describe=lambda instances: [{"A": A, "K": K, "pairs": K.shape[1]} for A, K, _ in instances],
        about="rank-2 rule, 4, 12 and 48 pairs in R^3, verified in exact arithmetic",
        how=(f"constructed: a rank-{RULE_RANK} rule on R^{RULE_DIM} with {', '.join(map(str, PAIR_COUNTS))} "
             "consistent pairs, each fitted exactly by a store of rank 2"),
        control=wrong("store fitted as V K^T in place of V K^+", least_squares_store=linmem.outer_product_store),
    ),
]
