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

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from linmem.precise import mp_array
from theorems.evidence import counterexample, precise, symbolic
from theorems.evidence import property as prop
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.residuals import diff_norm, exact_sq
from theorems.strategies import KeyCase, float_key_cases
from theorems.tolerance import norm, scaled_residual

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


def _ints(values) -> np.ndarray:
    return np.vectorize(Fraction, otypes=[object])(np.asarray(values))


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
    return _factors(p, d, s, _ints(q).reshape(d, n_queries), np.random.default_rng(seed))


def _spectrum(rank: int, cond: int) -> list[Fraction]:
    """``rank`` rational singular values from 1 down to exactly ``1/cond``."""
    if rank == 1:
        return [Fraction(1)]
    return [Fraction(1, round(cond ** (l / (rank - 1)))) for l in range(rank)]


#: Ladder inputs: (p, d, singular values, label), cycled to the profile's count.
_PRECISE_SPECS = (
    (4, 6, _spectrum(4, 10**20), "cond 1e20, full rank, 4x6"),
    (5, 3, _spectrum(2, 10**12), "cond 1e12, rank 2 of 3, 5x3"),
    (4, 4, [Fraction(3), Fraction(3), Fraction(1, 10**20)], "repeated s = 3, 3 and 1e-20, rank 3 of 4, 4x4"),
    (1, 5, [Fraction(7)], "one row, 1x5"),
    (6, 2, _spectrum(2, 10**20), "cond 1e20, full rank, 6x2"),
    (3, 3, [Fraction(1)] * 3, "all singular values equal (orthogonal W), 3x3"),
)


def _precise_factor_cases(ctx) -> list[tuple[str, _Factors]]:
    rng = ctx.rng("svd-precise")
    cases = []
    for i in range(max(3, ctx.profile.precise_cases)):
        p, d, s, label = _PRECISE_SPECS[i % len(_PRECISE_SPECS)]
        cases.append((label, _factors(p, d, s, _ints(rng.integers(-3, 4, size=(d, 3))), rng)))
    return cases


def _mp_identity(n: int) -> np.ndarray:
    out = np.full((n, n), mpmath.mpf(0), dtype=object)
    for i in range(n):
        out[i, i] = mpmath.mpf(1)
    return out


def _identity_like(A: np.ndarray, n: int) -> np.ndarray:
    """``I_n`` in the number system of ``A`` (float or mpmath)."""
    return _mp_identity(n) if A.dtype == object else np.eye(n)


# --- svd.recall-expansion -------------------------------------------------------------


def _expansion(U, s, Z, q):
    """``sum_l s_l u_l (z_l^T q)``, one term at a time (the reference)."""
    out = np.full(U.shape[0], Fraction(0), dtype=object)
    for l in range(len(s)):
        out = out + s[l] * U[:, l] * np.dot(Z[:, l], q)
    return out


def _recall_expansion_exact(ctx):
    def residual(f: _Factors):
        W, r = f.W, f.r
        I_r = np.eye(r, dtype=int)
        terms = exact_sq(f.U.T @ f.U, I_r) + exact_sq(f.Z.T @ f.Z, I_r)  # a compact SVD
        for q in f.queries.T:
            terms += exact_sq(W @ q, _expansion(f.U, f.s, f.Z, q))
        # The factors are W's compact SVD as linmem's exact pseudoinverse sees
        # it: W^+ = Z diag(1/s) U^T holds only for the SVD of this W.
        return terms + exact_sq(ctx.impl.pinv(W), (f.Z / f.s) @ f.U.T)

    return symbolic.check_exact(ctx, _exact_factors(), residual, describe=_Factors.describe)


def _expansion_error(impl, W, Q):
    keys, values = impl.svd_key_value_view(W)
    return diff_norm(W @ Q, values @ (keys.T @ Q))


def _recall_expansion_precise(ctx):
    def residual(f: _Factors):
        W, Q = mp_array(f.W), mp_array(f.queries)
        # A backward-stable SVD reproduces W to eps * ||W||: no condition factor.
        return _expansion_error(ctx.impl, W, Q), max(W.shape) * (1 + norm(W)) * (1 + norm(Q))

    return precise.check(ctx, _precise_factor_cases(ctx), residual)


def _float_queries(case: KeyCase, n: int = 3) -> np.ndarray:
    return np.random.default_rng(case.seed + 2).standard_normal((case.M, n))


def _recall_expansion_property(ctx):
    # The key matrices of every family serve as stores W (shape d x M):
    # duplicated columns, rank deficiency, condition up to 1e12, any shape.
    def measure(case: KeyCase):
        W, Q = case.K, _float_queries(case)
        err = _expansion_error(ctx.impl, W, Q)
        return scaled_residual(err, scale=max(W.shape) * norm(W) * norm(Q))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


# --- svd.key-returns-value ----------------------------------------------------------


def _key_returns_value_exact(ctx):
    def residual(f: _Factors):
        W, U, s, Z = f.W, f.U, f.s, f.Z
        values = U * s
        return (
            exact_sq(W @ Z, values)  # W z_j = s_j u_j, column by column
            + exact_sq(Z.T @ Z, np.eye(f.r, dtype=int))  # so z_j selects only its own term
            + exact_sq(W.T @ W @ Z, Z * (s * s))  # z_j are right singular vectors with gains s_j
            + exact_sq(ctx.impl.pinv(W) @ values, Z)  # and W^+ sends each value back to its key
        )

    return symbolic.check_exact(ctx, _exact_factors(), residual, describe=_Factors.describe)


def _column_norms(A) -> list:
    return [norm(A[:, j]) for j in range(A.shape[1])]


def _key_value_terms(impl, W, s_ref):
    """Relative residuals of ``W z_j = s_j u_j``, of orthonormal keys, and of
    the gains ``||s_j u_j||`` against reference singular values ``s_ref``
    (both padded with zeros to min(p, d))."""
    keys, values = impl.svd_key_value_view(W)
    if keys.shape[1] != values.shape[1]:
        return [np.inf]
    scale = 1 + norm(W)
    m = min(W.shape)
    gains = sorted(_column_norms(values), reverse=True)
    ref = sorted(list(s_ref), reverse=True)
    if len(gains) > m:
        return [np.inf]
    zero = 0 * scale
    gains += [zero] * (m - len(gains))
    ref += [zero] * (m - len(ref))
    return [
        diff_norm(W @ keys, values) / scale,
        diff_norm(keys.T @ keys, _identity_like(keys, keys.shape[1])),
        diff_norm(np.array(gains, dtype=object), np.array(ref, dtype=object)) / scale,
    ]


def _key_returns_value_precise(ctx):
    def residual(f: _Factors):
        W = mp_array(f.W)
        s_ref = list(mp_array(f.s)) if f.r else []
        return max(_key_value_terms(ctx.impl, W, s_ref)), max(W.shape)

    return precise.check(ctx, _precise_factor_cases(ctx), residual)


def _key_returns_value_property(ctx):
    def measure(case: KeyCase):
        W = case.K
        s_ref = np.linalg.svd(W, compute_uv=False)  # LAPACK's singular values, the reference
        return scaled_residual(max(float(x) for x in _key_value_terms(ctx.impl, W, s_ref)),
                               scale=max(W.shape))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


# --- svd.null-space --------------------------------------------------------------------


def _null_space_exact(ctx):
    def residual(f: _Factors):
        W, Z, d = f.W, f.Z, f.Z_full.shape[0]
        P, _ = ctx.impl.projectors(W)  # W^+ W: the projector onto row(W)
        ZZ = Z @ Z.T
        total = exact_sq(P, ZZ)  # row(W) = col(Z)
        total += exact_sq(W @ f.Z_perp, np.zeros((W.shape[0], d - f.r), dtype=int))  # col(Z)^perp in ker W
        total += (sympy.Matrix(W.tolist()).rank() - f.r) ** 2  # dim ker W = d - r: equality
        for q in f.queries.T:
            total += exact_sq(W @ q, W @ (ZZ @ q))  # W q = W Z Z^T q
            total += exact_sq(W @ (q - P @ q), np.zeros(W.shape[0], dtype=int))  # off-key part returns 0
        return total

    return symbolic.check_exact(ctx, _exact_factors(), residual, describe=_Factors.describe)


def _null_space_terms(impl, W, Z_perp, queries, cond):
    """Relative residuals of ``W = W Z Z^T``, of ``W q = 0`` for queries
    projected off ``col(Z)``, and of ``Z^T Z_perp = 0`` against the known
    kernel basis (divided by ``cond``: a singular subspace is determined to
    ``eps * ||W|| / s_min``), plus the dimension count ``r + dim ker = d``."""
    Z = impl.compact_svd(W).Z
    if Z.shape[0] != W.shape[1] or Z.shape[1] + Z_perp.shape[1] != W.shape[1]:
        return [np.inf]
    nW = norm(W)
    off = queries - Z @ (Z.T @ queries)
    return [
        diff_norm(W, W @ Z @ Z.T) / (1 + nW),
        diff_norm(W @ off, 0 * (W @ off)) / ((1 + nW) * (1 + norm(queries))),
        diff_norm(Z.T @ Z_perp, 0 * (Z.T @ Z_perp)) / cond,
    ]


def _null_space_precise(ctx):
    def residual(f: _Factors):
        W, Q = mp_array(f.W), mp_array(f.queries)
        # mp_array refuses empty arrays; a full-rank store has an empty kernel basis.
        Z_perp = mp_array(f.Z_perp) if f.Z_perp.size else f.Z_perp
        cond = mp_array(f.s[:1] / f.s[-1:])[0] if f.r else 1
        return max(_null_space_terms(ctx.impl, W, Z_perp, Q, cond)), max(W.shape)

    return precise.check(ctx, _precise_factor_cases(ctx), residual)


@st.composite
def _float_factored_stores(draw, *, max_dim: int = 8):
    """Float stores ``U diag(s) Z^T`` with Haar factors, rank 0 to full,
    condition up to 1e12 and an overall magnitude 1e-8 to 1e8; the trailing
    columns of the full orthogonal ``Z`` are an exact-rank kernel basis."""
    p = draw(st.integers(1, max_dim))
    d = draw(st.integers(1, max_dim))
    r = draw(st.integers(0, min(p, d)))
    cond = draw(st.sampled_from(FLOAT_CONDITIONING)) if r > 1 else 1.0
    magnitude = 10.0 ** draw(st.sampled_from((-8, 0, 8)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    s = magnitude * (np.geomspace(1.0, 1.0 / cond, r) if r > 1 else np.ones(r))
    U = np.linalg.qr(rng.standard_normal((p, p)))[0][:, :r]
    Z_full = np.linalg.qr(rng.standard_normal((d, d)))[0]
    recipe = {"p": p, "d": d, "rank": r, "cond": cond, "magnitude": magnitude, "seed": seed}
    return recipe, (U * s) @ Z_full[:, :r].T, Z_full[:, r:], rng.standard_normal((d, 3)), cond


def _null_space_property(ctx):
    def measure(case):
        _, W, Z_perp, Q, cond = case
        err = max(float(x) for x in _null_space_terms(ctx.impl, W, Z_perp, Q, cond))
        return scaled_residual(err, scale=max(W.shape))

    return prop.check(ctx, _float_factored_stores(), measure, describe=lambda c: c[0])


# --- svd.rank-vs-pairs -------------------------------------------------------------------


def _exact_rank(A) -> int:
    return int(sympy.Matrix(A.tolist()).rank())


def _rank_vs_pairs_witness(ctx):
    """A rank-2 rule A on R^3 and, for each pair count M, M distinct integer
    keys whose first M - 1 already span R^3 (so the last key depends on them)."""
    rng = ctx.rng("rank-vs-pairs")
    while True:
        A = _ints(rng.integers(-3, 4, size=(RULE_OUT_DIM, RULE_RANK)) @ rng.integers(-3, 4, size=(RULE_RANK, RULE_DIM)))
        if _exact_rank(A) == RULE_RANK:
            break
    instances = []
    for M in PAIR_COUNTS:
        while True:
            K = rng.integers(-4, 5, size=(RULE_DIM, M))
            distinct = len({tuple(c) for c in K.T}) == M
            if distinct and _exact_rank(K[:, :-1]) == RULE_DIM:
                break
        K = _ints(K)
        instances.append((A, K, ctx.impl.consistent_values(A, K)))
    return instances


def _rank_vs_pairs_verify(ctx):
    def verify(instances):
        holds, excess = True, []
        for A, K, V in instances:
            d, M = K.shape
            W = ctx.impl.least_squares_store(K, V)  # fitted from the pairs alone
            r = _exact_rank(W)
            # Unrelated values on the same keys: change one entry of the last value.
            V_bad = V.copy()
            V_bad[0, -1] += 1
            W_bad = ctx.impl.least_squares_store(K, V_bad)
            holds &= bool(
                exact_sq(V, A @ K) == 0  # the pairs follow the rule
                and exact_sq(W @ K, V) == 0  # the fitted store reproduces every pair exactly
                and r == _exact_rank(A) == RULE_RANK  # with only r SVD key-value pairs
                and M > d and M > r
                and exact_sq(W_bad @ K, V_bad) != 0  # which unrelated values could not get
            )
            excess.append(M - max(d, r))
        return holds, min(excess)

    return verify


def _rank_vs_pairs(ctx):
    def describe(instances):
        return [{"A": A, "K": K, "pairs": K.shape[1]} for A, K, _ in instances]

    return counterexample.check(
        ctx, _rank_vs_pairs_witness, _rank_vs_pairs_verify(ctx), describe=describe,
        how=(f"constructed: a rank-{RULE_RANK} rule on R^{RULE_DIM} with {', '.join(map(str, PAIR_COUNTS))} "
             "consistent pairs, each fitted exactly by a store of rank 2"),
    )


# --- wrong variants for the negative controls ------------------------------------------------


def _view_without_gain(W, **kw):
    svd = linmem.compact_svd(W)
    return svd.Z, svd.U


def _view_with_inverse_gain(W, **kw):
    svd = linmem.compact_svd(W)
    return svd.Z, svd.U / svd.s


def _svd_sides_swapped(A, **kw):
    svd = linmem.compact_svd(A)
    return linmem.CompactSVD(svd.Z, svd.s, svd.U, svd.rank)


def _ls_as_op(K, V):
    return linmem.outer_product_store(K, V)


def _projectors_swapped(K, **kw):
    P, Q = linmem.projectors(K)
    return Q, P


CLAIMS = [
    Claim(
        id="svd.recall-expansion",
        title="Any matrix answers a query as a sum over its SVD key-value pairs",
        statement=(r"W = U\Sigma Z^{\top}\ (\text{compact}):\quad "
                   r"Wq = \sum_{\ell=1}^{r_W} \sigma_\ell u_\ell \,(z_\ell^{\top} q)\quad \forall q"),
        kind=ClaimKind.IDENTITY,
        source="000, 'A matrix as a key-value store'",
        assumptions=("W any real p x d matrix (any rank, including 0)", "q any query in R^d"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _recall_expansion_exact,
                  "exact rationals: W built from exactly orthonormal factors; the term-by-term sum equals Wq"),
            Check("ladder", EvidenceKind.PRECISE, _recall_expansion_precise,
                  "mpmath ladder on linmem's SVD view: condition 1e20, repeated and zero singular values"),
            Check("float", EvidenceKind.PROPERTY, _recall_expansion_property,
                  "float64 over every key family used as a store"),
        ),
        negative_control=NegativeControl("values u_l without the gain s_l",
                                         {"svd_key_value_view": _view_without_gain}),
    ),
    Claim(
        id="svd.key-returns-value",
        title="Querying a store with a right singular vector returns that vector's value exactly",
        statement=(r"W z_j = \sigma_j u_j,\qquad z_i^{\top} z_j = \delta_{ij}\qquad (1 \le j \le r_W)"),
        kind=ClaimKind.IDENTITY,
        source="000, 'A matrix as a key-value store'",
        assumptions=("W any real p x d matrix", "(u_j, sigma_j, z_j) any compact SVD triple of W"),
        depends_on=("svd.recall-expansion",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _key_returns_value_exact,
                  "exact rationals: W Z = U S, Z^T Z = I, W^T W Z = Z S^2, W^+ U S = Z"),
            Check("ladder", EvidenceKind.PRECISE, _key_returns_value_precise,
                  "mpmath ladder: W z_j = s_j u_j, orthonormal keys, gains equal the exact singular values"),
            Check("float", EvidenceKind.PROPERTY, _key_returns_value_property,
                  "float64: the same against LAPACK's singular values"),
        ),
        negative_control=NegativeControl("values u_l / s_l (the pseudoinverse gain) in place of s_l u_l",
                                         {"svd_key_value_view": _view_with_inverse_gain}),
    ),
    Claim(
        id="svd.null-space",
        title="The row space of a store is spanned by its keys and everything orthogonal to them returns zero",
        statement=(r"\operatorname{row}(W) = \operatorname{col}(Z),\quad "
                   r"\ker(W) = \operatorname{col}(Z)^{\perp},\quad Wq = WZZ^{\top}q\ \ \forall q,\quad "
                   r"Z^{\top}q = 0 \Rightarrow Wq = 0"),
        kind=ClaimKind.IDENTITY,
        source="000, 'A matrix as a key-value store'; App. C (end)",
        assumptions=("W any real p x d matrix with compact SVD U S Z^T (any rank)",),
        depends_on=("svd.recall-expansion", "proj.coefficient-projector"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _null_space_exact,
                  "exact rationals: W^+ W = Z Z^T, W Z_perp = 0, rank W = r, W q = W Z Z^T q"),
            Check("ladder", EvidenceKind.PRECISE, _null_space_precise,
                  "mpmath ladder against the exactly known kernel, condition 1e20, rank-deficient"),
            Check("float", EvidenceKind.PROPERTY, _null_space_property,
                  "float64 stores with a known kernel: rank 0 to full, condition to 1e12"),
        ),
        negative_control=NegativeControl(
            "keys taken from the left singular vectors (U for Z, and W W^+ for W^+ W)",
            {"compact_svd": _svd_sides_swapped, "projectors": _projectors_swapped},
        ),
    ),
    Claim(
        id="svd.rank-vs-pairs",
        title="Rank does not count stored pairs: a rank-2 rule reproduces 48 consistent pairs in R^3 exactly",
        statement=(r"\exists A \in \mathbb{R}^{p\times d},\ \operatorname{rank} A = r,\ K \in \mathbb{R}^{d\times M},"
                   r"\ M > d > r:\ W_{\mathrm{LS}} K = V = AK,\ \operatorname{rank} W_{\mathrm{LS}} = r"),
        kind=ClaimKind.COUNTEREXAMPLE,
        source="000, 'A matrix as a key-value store'; App. H",
        assumptions=(
            "values consistent with one linear rule, V = A K",
            "a counterexample to 'a rank-r matrix holds at most r (or d) pairs'; "
            "the same keys with one value changed cannot be fitted exactly",
        ),
        depends_on=("svd.recall-expansion", "ls.pseudoinverse-minimizer"),
        checks=(
            Check("witness", EvidenceKind.COUNTEREXAMPLE, _rank_vs_pairs,
                  "rank-2 rule, 4, 12 and 48 pairs in R^3, verified in exact arithmetic"),
        ),
        negative_control=NegativeControl("store fitted as V K^T in place of V K^+",
                                         {"least_squares_store": _ls_as_op}),
    ),
]
