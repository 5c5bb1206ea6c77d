"""Projectors and leverage (000, App. C and D)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from theorems.authoring import kit
from theorems.core.residuals import at_most
from theorems.authoring.strategies import (ILL_CONDITIONING, Case, Inputs, exact_key_matrices, exact_unit_key_matrices,
                                 exact_value_matrices, float_key_cases, keys, keys_and_values, precise_keys,
                                 precise_values, rng_seeds)
from theorems.authoring.templates import gram_input_projector, gram_projectors, identity, inequality, swapped_projectors, wrong

__all__ = ["CLAIMS"]

#: A key 1e-30 times another beside a key orthogonal to both: h = 1 exactly
#: and h ~ 1e-60, still positive (the ends of the range [0, 1]).
TINY = kit.exact([[1, Fraction(1, 10**30), 0], [0, 0, 1]])


def _svd_parts(impl, K) -> tuple:
    """Z_K and U_K of the compact SVD; none in exact arithmetic (irrational)."""
    if kit.is_exact(K):
        return None, None
    svd = impl.compact_svd(K)
    return svd.Z, svd.U


def _coefficient_projector(impl, K, V):
    P, _ = impl.projectors(K)
    W = impl.least_squares_store(K, V)
    Z, _ = _svd_parts(impl, K)
    return [(P, P.T), (P @ P, P), (P, impl.pinv(K) @ K), (W @ K, V @ P)] + ([] if Z is None else [(P, Z @ Z.T)])


def _leverage(impl, K):
    h = impl.leverage_scores(K)
    P, _ = impl.projectors(K)
    Z, _ = _svd_parts(impl, K)
    return [(h, np.diagonal(P)), at_most(0, h), at_most(h, 1)] + ([] if Z is None else [(h, np.sum(Z * Z, axis=1))])


def _input_projector(impl, K):
    # Symmetric + idempotent makes Q an orthogonal projector; Q K = K puts
    # col(K) in its range and tr Q = rank K makes the range exactly col(K).
    _, Q = impl.projectors(K)
    _, U = _svd_parts(impl, K)
    terms = [(Q, Q.T), (Q @ Q, Q), (Q, K @ impl.pinv(K)), (Q @ K, K), (np.trace(Q), kit.rank(K))]
    return terms + ([] if U is None else [(Q, U @ U.T)])


def _trace(impl, K):
    P, _ = impl.projectors(K)
    return [(np.trace(P), kit.rank(K)), (np.sum(impl.leverage_scores(K)), kit.rank(K))]


def _column_energy(impl, K):
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    off = P * (1 - kit.eye(K.shape[1], P))  # P without its diagonal: the sum over i != j
    return [(np.sum(P * P, axis=0), h), (np.sum(off * off, axis=0), impl.crosstalk_power(h))]


# --- lev.zero-means-zero-key: column j of P is K^+ k_j, so h_j = ||K^+ k_j||^2
# and k_j = K (K^+ k_j); hence ||k_j||^2 <= ||K||_F^2 h_j and h_j = 0 iff k_j = 0
# (exactly so in the terms: a zero key gives a zero column of K^+ K, hence h_j = 0).


def _zero_key(impl, K):
    h = impl.leverage_scores(K)
    C = impl.pinv(K) @ K
    key_sq = np.sum(K * K, axis=0)
    return [(h, np.sum(C * C, axis=0)), (K @ C, K), at_most(key_sq, np.sum(key_sq) * h)]


@st.composite
def _exact_zeroed(draw):
    """Exact keys with a drawn subset of columns zeroed, or exactly unit keys."""
    if draw(st.booleans()):
        return (draw(exact_unit_key_matrices()),)
    K = draw(exact_key_matrices()).copy()
    K[:, np.array(draw(st.lists(st.booleans(), min_size=K.shape[1], max_size=K.shape[1])))] = Fraction(0)
    return (K,)


@st.composite
def _float_zeroed(draw):
    case = draw(st.booleans().flatmap(lambda unit: float_key_cases(unit=unit)))
    zeroed = np.array(draw(st.lists(st.booleans(), min_size=case.M, max_size=case.M)))
    K = case.K.copy()
    K[:, zeroed] = 0.0
    return Case((K,), {**case.describe(), "zeroed": np.flatnonzero(zeroed).tolist()})


def _zeroed_ladder(ctx):
    cases = [("h ~ 1e-60 beside a zero key", (np.insert(TINY, 2, Fraction(0), axis=1),))]
    for i, (label, K) in enumerate(precise_keys(ctx)):
        K = K.copy()
        K[:, i % K.shape[1]] = Fraction(0)
        cases.append((label + ", a column zeroed", (K,)))
    return cases + [(label, (K,)) for label, K in precise_keys(ctx, unit=True)]


ZEROED_KEYS = Inputs(("K",), _exact_zeroed(), _zeroed_ladder, _float_zeroed(),
                     "keys with columns zeroed, or unit keys; h ~ 1e-60 beside a zero key, condition to 1e20")


# --- lev.one-means-exact: ||P e_j - e_j||^2 = 1 - h_j (P symmetric idempotent),
# so h_j = 1 forces P e_j = e_j, exact recall and zero cross-talk. Inputs carry a
# key with a component outside the span of the others, hidden by a rotation.


def _free_key(impl, K, V, free):
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    W = impl.least_squares_store(K, V)
    _, n = impl.recall_decomposition(K, V)
    E = kit.eye(K.shape[1], K)
    terms = [(np.sum((P - E) * (P - E), axis=0), 1 - h)]
    # in exact arithmetic every key with h = 1, not only the constructed one
    ones = [i for i in range(K.shape[1]) if i != free and h[i] == 1] if kit.is_exact(K) else []
    for j in [free] + ones:
        terms += [(h[j], 1), (P[:, j], E[:, j]), (W @ K[:, j], V[:, j]), (n[:, j], 0 * V[:, j])]
    return terms


def _append_free_key(rest, x, c, pos: int, R):
    """R [rest; 0] with the key (x, c), c != 0, inserted at column ``pos``."""
    return R @ np.insert(np.vstack([rest, 0 * rest[:1]]), pos, np.append(x, c), axis=1)


@st.composite
def _exact_free(draw):
    rest = draw(exact_key_matrices(max_dim=3, max_count=5))
    x = kit.exact(draw(st.lists(st.integers(-3, 3), min_size=rest.shape[0], max_size=rest.shape[0])))
    pos = draw(st.integers(0, rest.shape[1]))
    R = ensembles.rational_orthogonal(rest.shape[0] + 1, rng=np.random.default_rng(draw(rng_seeds())),
                                      scale=1)
    K = _append_free_key(rest, x, Fraction(draw(st.sampled_from((1, -1, 2, 3)))), pos, R)
    return K, draw(exact_value_matrices(K.shape[1])), pos


def _free_ladder(ctx):
    # outside component 1e-15: the free key lies within 1e-15 of the span of
    # the others (ill-conditioned beyond float64) and still has h = 1 exactly
    rng = ctx.rng("free-key")
    cases = []
    for label, rest in precise_keys(ctx):
        pos = int(rng.integers(0, rest.shape[1] + 1))
        R = ensembles.rational_orthogonal(rest.shape[0] + 1, rng=rng)
        in_span = rest @ kit.exact(rng.integers(-3, 4, rest.shape[1]))  # so the key is 1e-15 off the span
        K = _append_free_key(rest, in_span, Fraction(1, 10**15), pos, R)
        cases.append((f"{label} + a key 1e-15 off their span", (K, precise_values(K, ctx), pos)))
    return cases


@st.composite
def _float_free(draw):
    case = draw(float_key_cases(max_dim=7))
    c, pos = draw(st.sampled_from((1.0, 1e-6))), draw(st.integers(0, case.M))
    if case.cond / c > max(ILL_CONDITIONING):
        c = 1.0  # cond(rest) / c bounds cond(K): keep it within float64's reach (1e12)
    rng = kit.generator(case.seed, "free key")
    R, _ = np.linalg.qr(rng.standard_normal((case.d + 1, case.d + 1)))
    K = _append_free_key(case.K, rng.standard_normal(case.d), c, pos, R)
    return Case((K, rng.standard_normal((case.p, case.M + 1)), pos),
                {**case.describe(), "free key at": pos, "outside component": c})


FREE_KEY = Inputs(("K", "V", "free key"), _exact_free(), _free_ladder, _float_free(),
                  "any keys plus a key outside their span (1e-15 off it on the ladder), rotated")


def _key_energy(K):
    return np.sum(K * K, axis=0)


CLAIMS = [
    identity(
        "proj.coefficient-projector",
        title="P = K^+ K is the orthogonal projector onto the row space of K",
        statement=r"P = K^{+}K = Z_K Z_K^{\top},\quad P^{\top} = P,\quad P^2 = P,\quad W_{\mathrm{LS}}K = VP",
        source="000, App. C",
        assumptions=("K any real d x M matrix (any rank)", "V any real p x M matrix"),
        inputs=keys_and_values(), terms=_coefficient_projector,
        control=wrong("P = K K^+ in place of K^+ K (the input projector Q)", projectors=swapped_projectors),
    ),
    inequality(
        "lev.range",
        title="Leverage scores are diagonal entries of P and lie in [0, 1]",
        statement=r"h_j = P_{jj} = \|Z_K^{\top} e_j\|^2,\qquad 0 \le h_j \le 1",
        source="000, App. D",
        assumptions=("K any real d x M matrix",),
        depends_on=("proj.coefficient-projector",),
        inputs=keys(unit_ladder=False), terms=_leverage, boundary=[("h = 1 and h ~ 1e-60", (TINY,))],
        control=wrong("h_j = ||k_j||^2 (column energy) in place of P_jj", leverage_scores=_key_energy),
    ),
    identity(
        "proj.input-projector",
        title="Q = K K^+ is the orthogonal projector onto the column space of K",
        statement=(r"Q = KK^{+} = U_K U_K^{\top},\quad Q^{\top} = Q,\quad Q^2 = Q,\quad "
                   r"QK = K,\quad \operatorname{tr} Q = r_K "
                   r"\ \Rightarrow\ \operatorname{range}(Q) = \operatorname{col}(K)"),
        source="000, App. C",
        assumptions=("K any real d x M matrix (any rank, zero columns allowed)",),
        inputs=keys(), terms=_input_projector, scale=lambda K: kit.scale(K, K),
        control=wrong("Q = K K^T (Gram matrix, no pseudoinverse) in place of K K^+",
                      projectors=gram_input_projector),
    ),
    identity(
        "proj.trace-is-rank",
        title="The leverage scores sum to the rank of the keys",
        statement=r"\operatorname{tr} P = \sum_{j=1}^{M} h_j = \operatorname{tr}(Z_K^{\top} Z_K) = r_K",
        source="000, App. D",
        assumptions=("K any real d x M matrix (any rank)",),
        depends_on=("proj.coefficient-projector", "lev.range"),
        # tr(Z Z^T) = ||Z||_F^2 = r_K for orthonormal Z whatever cond(K): size-only bound
        inputs=keys(), terms=_trace, scale=lambda K: kit.scale(K, condition=False),
        control=wrong("Gram matrix K^T K in place of P, and its diagonal ||k_j||^2 as leverage",
                      projectors=gram_projectors, leverage_scores=_key_energy),
    ),
    identity(
        "lev.column-energy",
        title="Column j of P carries energy h_j; off the diagonal, h_j - h_j^2",
        statement=(r"\sum_{i=1}^{M} P_{ij}^2 = (P^{\top}P)_{jj} = P_{jj} = h_j,\qquad "
                   r"\sum_{i \ne j} P_{ij}^2 = h_j - h_j^2"),
        source="000, App. D",
        assumptions=("K any real d x M matrix (any rank)",),
        depends_on=("proj.coefficient-projector", "lev.range"),
        # only the symmetry and idempotence of P enter: size-only bound
        inputs=keys(), terms=_column_energy, scale=lambda K: kit.scale(K, condition=False),
        control=wrong("off-diagonal energy h_j (the i = j term not removed) in place of h_j - h_j^2",
                      crosstalk_power=lambda h: h),
    ),
    identity(
        "lev.zero-means-zero-key",
        title="Only a zero key has zero leverage; unit keys have h_j >= 1/M",
        statement=(r"P e_j = K^{+}k_j,\quad h_j = \|K^{+}k_j\|^2,\quad k_j = K K^{+} k_j "
                   r"\ \Rightarrow\ \|k_j\|^2 \le \|K\|_2^2\, h_j \le \|K\|_F^2\, h_j;\ "
                   r"h_j = 0 \iff k_j = 0,\ \ \|k_i\| = 1\ \forall i \Rightarrow h_j \ge \tfrac{1}{M}"),
        source="000, App. D",
        assumptions=("K any real d x M matrix; zero columns allowed (they are the h_j = 0 case)",),
        depends_on=("proj.coefficient-projector", "lev.range"),
        inputs=ZEROED_KEYS, terms=_zero_key, scale=lambda K: kit.scale(K, K, K),
        control=wrong("leverage read off diag(Q) = diag(K K^+) (input space) in place of diag(K^+ K)",
                      leverage_scores=lambda K: np.diagonal(linmem.projectors(K)[1]).copy()),
    ),
    identity(
        "lev.one-means-exact",
        title="Leverage one means exact recall with no cross-talk",
        statement=(r"\|P e_j - e_j\|^2 = 1 - h_j;\quad h_j = 1 \Rightarrow P e_j = e_j,\ "
                   r"W_{\mathrm{LS}} k_j = v_j,\ n_j = \sum_{i \ne j} P_{ij} v_i = 0"),
        source="000, App. D",
        assumptions=("K any real d x M matrix, V any real p x M matrix",
                     "inputs carry a key with a component outside the span of the others "
                     "(h_j = 1 exactly, though not orthogonal to them), hidden by a rotation"),
        depends_on=("proj.coefficient-projector", "lev.range", "lev.column-energy", "recall.decomposition"),
        inputs=FREE_KEY, terms=_free_key,
        control=wrong("outer-product store V K^T in place of the least-squares store V K^+",
                      least_squares_store=linmem.outer_product_store),
    ),
]
