"""Projectors and leverage (000, App. C and D)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from linmem.precise import mp_array
from theorems.claims._cases import precise_key_cases, precise_values
from theorems.evidence import precise, symbolic
from theorems.evidence import property as prop
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.residuals import diff_norm, exact_sq
from theorems.strategies import (
    KeyCase,
    exact_key_matrices,
    exact_keys_and_values,
    exact_unit_key_matrices,
    exact_value_matrices,
    float_key_cases,
)
from theorems.tolerance import norm, scaled_residual

__all__ = ["CLAIMS", "identity_like"]


# --- proj.coefficient-projector --------------------------------------------


def _coefficient_projector_exact(ctx):
    def residual(case):
        K, V = case
        impl = ctx.impl
        P, _ = impl.projectors(K)
        W = impl.least_squares_store(K, V)
        return (
            exact_sq(P, P.T)
            + exact_sq(P @ P, P)
            + exact_sq(P, impl.pinv(K) @ K)
            + exact_sq(W @ K, V @ P)
        )

    return symbolic.check_exact(ctx, exact_keys_and_values(), residual, describe=lambda c: {"K": c[0], "V": c[1]})


def _coefficient_projector_terms(impl, K, V):
    """The four residuals of the claim and the reference ``Z Z^T``."""
    P, _ = impl.projectors(K)
    Z = impl.compact_svd(K).Z
    W = impl.least_squares_store(K, V)
    return [
        diff_norm(P, P.T),
        diff_norm(P @ P, P),
        diff_norm(P, impl.pinv(K) @ K),
        diff_norm(P, Z @ Z.T),
        diff_norm(W @ K, V @ P),
    ]


def _coefficient_projector_precise(ctx):
    cases = [(label, (K, precise_values(K, ctx))) for label, K in precise_key_cases(ctx)]

    def residual(case):
        K, V = (mp_array(x) for x in case)
        cond = linmem.condition_number(K)
        err = max(_coefficient_projector_terms(ctx.impl, K, V))
        return err, max(K.shape) * cond * (1 + norm(V))

    return precise.check(ctx, cases, residual)


def _coefficient_projector_property(ctx):
    def measure(case: KeyCase):
        K, V = case.K, case.V
        cond = float(linmem.condition_number(K))
        err = max(_coefficient_projector_terms(ctx.impl, K, V))
        return scaled_residual(err, scale=max(K.shape) * cond * (1 + norm(V)))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


# --- lev.range --------------------------------------------------------------


def _leverage_terms(impl, K):
    """(identity residual, range violation) for h = diag(P) = ||Z^T e_j||^2 in [0, 1]."""
    h = impl.leverage_scores(K)
    P, _ = impl.projectors(K)
    Z = impl.compact_svd(K).Z if not _is_exact(K) else None
    ident = diff_norm(h, np.diagonal(P))
    if Z is not None:
        ident = max(ident, diff_norm(h, np.sum(Z * Z, axis=1)))
    violation = max([0] + [-x for x in h] + [x - 1 for x in h])
    return ident, violation


def _is_exact(K):
    return K.dtype == object and not isinstance(K.ravel()[0], mpmath.mpf)


def _leverage_exact(ctx):
    def residual(K):
        h = ctx.impl.leverage_scores(K)
        P, _ = ctx.impl.projectors(K)
        out_of_range = sum(1 for x in h if not 0 <= x <= 1)
        return exact_sq(h, np.diagonal(P)) + out_of_range

    return symbolic.check_exact(ctx, exact_key_matrices(), residual, describe=lambda K: {"K": K})


def _leverage_precise(ctx):
    # Boundary cases: h = 1 exactly (a key orthogonal to the rest), h tiny
    # (a key 1e-30 times another), and the ladder's ill-conditioned keys.
    from fractions import Fraction

    tiny = np.array([[Fraction(1), Fraction(1, 10**30), Fraction(0)],
                     [Fraction(0), Fraction(0), Fraction(1)]], dtype=object)
    cases = [("h = 1 and h ~ 1e-60", tiny)] + precise_key_cases(ctx)

    def residual(K):
        K = mp_array(K)
        ident, violation = _leverage_terms(ctx.impl, K)
        return max(ident, violation), max(K.shape) * linmem.condition_number(K)

    return precise.check(ctx, cases, residual)


def _leverage_property(ctx):
    def measure(case: KeyCase):
        ident, violation = _leverage_terms(ctx.impl, case.K)
        cond = float(linmem.condition_number(case.K))
        return scaled_residual(max(ident, violation), scale=max(case.K.shape) * cond)

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _swap_projectors(K):
    P, Q = linmem.projectors(K)
    return Q, P


def _column_energy(K):
    return np.sum(K * K, axis=0)


# --- shared helpers of the claims below (recall.py uses them too) --------------------


def identity_like(n: int, like) -> np.ndarray:
    """Identity of size n in the number system of ``like``: Python ints for exact
    and mpmath arrays (so no float creeps into exact arithmetic), float64 otherwise."""
    if np.asarray(like).dtype == object:
        return np.eye(n, dtype=int).astype(object)
    return np.eye(n)


def _exact_rank(K) -> int:
    """Reference rank of an exact matrix (sympy, not the implementation under test)."""
    return int(sympy.Matrix(K.tolist()).rank())


def _float_rank(K) -> int:
    """Reference rank of a float matrix (LAPACK through numpy, not under test)."""
    return int(np.linalg.matrix_rank(K))


def _gram_projectors(K):
    """Wrong variant: the Gram matrices K^T K and K K^T in place of the projectors."""
    return K.T @ K, K @ K.T


# --- proj.input-projector ---------------------------------------------------------


def _input_projector_exact(ctx):
    # Symmetric + idempotent makes Q an orthogonal projector; Q K = K puts
    # col(K) inside its range and tr Q = rank K (the rank of a projector is
    # its trace) makes the range exactly col(K).
    def residual(K):
        impl = ctx.impl
        _, Q = impl.projectors(K)
        return (
            exact_sq(Q, Q.T)
            + exact_sq(Q @ Q, Q)
            + exact_sq(Q, K @ impl.pinv(K))
            + exact_sq(Q @ K, K)
            + exact_sq(np.trace(Q), _exact_rank(K))
        )

    return symbolic.check_exact(ctx, exact_key_matrices(), residual, describe=lambda K: {"K": K})


def _input_projector_terms(impl, K, rank):
    """Residuals of Q = K K^+ = U_K U_K^T, symmetric, idempotent, fixing col(K), trace = rank."""
    _, Q = impl.projectors(K)
    U = impl.compact_svd(K).U
    return [
        diff_norm(Q, Q.T),
        diff_norm(Q @ Q, Q),
        diff_norm(Q, K @ impl.pinv(K)),
        diff_norm(Q, U @ U.T),
        diff_norm(Q @ K, K),
        diff_norm(np.trace(Q), rank),
    ]


def _input_projector_precise(ctx):
    cases = precise_key_cases(ctx) + precise_key_cases(ctx, unit=True)

    def residual(K_exact):
        K = mp_array(K_exact)
        err = max(_input_projector_terms(ctx.impl, K, _exact_rank(K_exact)))
        return err, max(K.shape) * linmem.condition_number(K) * (1 + norm(K))

    return precise.check(ctx, cases, residual)


def _input_projector_property(ctx):
    def measure(case: KeyCase):
        K = case.K
        err = max(_input_projector_terms(ctx.impl, K, _float_rank(K)))
        return scaled_residual(err, scale=max(K.shape) * float(linmem.condition_number(K)) * (1 + norm(K)))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _input_projector_gram(K):
    """Wrong variant: Q = K K^T (the Gram matrix, no pseudoinverse); P left right."""
    P, _ = linmem.projectors(K)
    return P, K @ K.T


# --- proj.trace-is-rank -----------------------------------------------------------


def _trace_terms(impl, K, rank):
    """|tr P - r_K| and |sum_j h_j - r_K|."""
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    return [diff_norm(np.trace(P), rank), diff_norm(np.sum(h), rank)]


def _trace_exact(ctx):
    def residual(K):
        P, _ = ctx.impl.projectors(K)
        h = ctx.impl.leverage_scores(K)
        r = _exact_rank(K)
        return exact_sq(np.trace(P), r) + exact_sq(np.sum(h), r)

    return symbolic.check_exact(ctx, exact_key_matrices(), residual, describe=lambda K: {"K": K})


def _trace_precise(ctx):
    cases = precise_key_cases(ctx) + precise_key_cases(ctx, unit=True)

    # tr(Z Z^T) = ||Z||_F^2 = r_K for any Z with orthonormal columns, whatever
    # the condition of K: the bound scales with the size only.
    def residual(K_exact):
        K = mp_array(K_exact)
        return max(_trace_terms(ctx.impl, K, _exact_rank(K_exact))), max(K.shape)

    return precise.check(ctx, cases, residual)


def _trace_property(ctx):
    def measure(case: KeyCase):
        K = case.K
        return scaled_residual(max(_trace_terms(ctx.impl, K, _float_rank(K))), scale=max(K.shape))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


# --- lev.column-energy ----------------------------------------------------------------


def _column_energy_terms(impl, K):
    """Both sides of sum_i P_ij^2 = h_j and of sum_{i != j} P_ij^2 = crosstalk_power(h_j):
    (column energies, h, off-diagonal column energies, crosstalk_power(h))."""
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    M = K.shape[1]
    off = P * (1 - identity_like(M, P))  # P with its diagonal removed: the sum over i != j
    return (
        np.sum(P * P, axis=0), h,
        np.sum(off * off, axis=0), impl.crosstalk_power(h),
    )


def _column_energy_exact(ctx):
    def residual(K):
        full, h, off, claimed = _column_energy_terms(ctx.impl, K)
        return exact_sq(full, h) + exact_sq(off, claimed)

    return symbolic.check_exact(ctx, exact_key_matrices(), residual, describe=lambda K: {"K": K})


def _column_energy_precise(ctx):
    cases = precise_key_cases(ctx) + precise_key_cases(ctx, unit=True)

    # Only the symmetry and idempotence of the computed P enter, both good to
    # the working precision whatever the condition of K: size-only bound.
    def residual(K_exact):
        K = mp_array(K_exact)
        full, h, off, claimed = _column_energy_terms(ctx.impl, K)
        return max(diff_norm(full, h), diff_norm(off, claimed)), max(K.shape)

    return precise.check(ctx, cases, residual)


def _column_energy_property(ctx):
    def measure(case: KeyCase):
        full, h, off, claimed = _column_energy_terms(ctx.impl, case.K)
        return scaled_residual(max(diff_norm(full, h), diff_norm(off, claimed)), scale=max(case.K.shape))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _crosstalk_keeps_diagonal(h):
    """Wrong variant: the sum over i != j taken over all i (h in place of h - h^2)."""
    return h


# --- lev.zero-means-zero-key ------------------------------------------------------------
#
# The identity behind the claim: column j of P is K^+ k_j, so
#     h_j = ||K^+ k_j||^2   and   k_j = K (K^+ k_j).
# Hence h_j = 0 forces K^+ k_j = 0 and then k_j = 0; quantitatively
# ||k_j||^2 <= ||K||_2^2 h_j <= ||K||_F^2 h_j, so a unit key has h_j >= 1/M.


@st.composite
def _keys_with_zero_columns(draw):
    """Exact keys with a drawn subset of columns set to zero (possibly none or all),
    or exactly unit keys (which the claim says have h_j > 0)."""
    if draw(st.booleans()):
        return draw(exact_unit_key_matrices())
    K = draw(exact_key_matrices())
    zeroed = draw(st.lists(st.booleans(), min_size=K.shape[1], max_size=K.shape[1]))
    K = K.copy()
    for j, z in enumerate(zeroed):
        if z:
            K[:, j] = Fraction(0)
    return K


def _zero_key_exact(ctx):
    def residual(K):
        impl = ctx.impl
        M = K.shape[1]
        h = impl.leverage_scores(K)
        C = impl.pinv(K) @ K  # column j is K^+ k_j
        key_sq = np.sum(K * K, axis=0)
        identities = exact_sq(h, np.sum(C * C, axis=0)) + exact_sq(K @ C, K)
        if identities != 0:
            return identities
        # the consequences: zero leverage exactly at the zero keys, and
        # ||k_j||^2 <= ||K||_F^2 h_j (so h_j >= 1/M for unit keys)
        total = np.sum(key_sq)
        zero_set_mismatch = sum(1 for j in range(M) if (h[j] == 0) != (key_sq[j] == 0))
        bound_violations = sum(1 for j in range(M) if key_sq[j] > total * h[j])
        return zero_set_mismatch + bound_violations

    return symbolic.check_exact(ctx, _keys_with_zero_columns(), residual, describe=lambda K: {"K": K})


def _zero_key_terms(impl, K):
    """Residuals of h_j = ||K^+ k_j||^2 and K K^+ k_j = k_j, and the violation of
    ||k_j||^2 <= ||K||_F^2 h_j (zero when the bound holds)."""
    h = impl.leverage_scores(K)
    C = impl.pinv(K) @ K
    key_sq = np.sum(K * K, axis=0)
    total = np.sum(key_sq)
    violation = max([0] + [key_sq[j] - total * h[j] for j in range(K.shape[1])])
    return [diff_norm(h, np.sum(C * C, axis=0)), diff_norm(K @ C, K), violation]


def _with_zero_column(K, j: int):
    K = K.copy()
    K[:, j % K.shape[1]] = Fraction(0)
    return K


def _zero_key_precise(ctx):
    # Boundary cases: a key 1e-30 times another (h ~ 1e-60, yet positive)
    # beside a zero key (h = 0), and the ladder's keys with one column zeroed.
    tiny = np.array([[Fraction(1), Fraction(1, 10**30), Fraction(0), Fraction(0)],
                     [Fraction(0), Fraction(0), Fraction(0), Fraction(1)]], dtype=object)
    cases = [("h ~ 1e-60 beside a zero key", tiny)]
    cases += [(label + ", a column zeroed", _with_zero_column(K, i))
              for i, (label, K) in enumerate(precise_key_cases(ctx))]
    cases += precise_key_cases(ctx, unit=True)

    def residual(K_exact):
        K = mp_array(K_exact)
        err = max(_zero_key_terms(ctx.impl, K))
        return err, max(K.shape) * linmem.condition_number(K) * (1 + norm(K)) ** 2

    return precise.check(ctx, cases, residual)


@st.composite
def _float_keys_with_zero_columns(draw):
    case = draw(st.booleans().flatmap(lambda unit: float_key_cases(unit=unit)))
    zeroed = draw(st.lists(st.booleans(), min_size=case.M, max_size=case.M))
    K = case.K.copy()
    K[:, np.array(zeroed, dtype=bool)] = 0.0
    return {**case.describe(), "zeroed": [j for j, z in enumerate(zeroed) if z]}, K


def _zero_key_property(ctx):
    def measure(case):
        _, K = case
        err = max(_zero_key_terms(ctx.impl, K))
        cond = float(linmem.condition_number(K))
        return scaled_residual(err, scale=max(K.shape) * cond * (1 + norm(K)) ** 2)

    return prop.check(ctx, _float_keys_with_zero_columns(), measure, describe=lambda c: c[0])


def _leverage_from_input_projector(K):
    """Wrong variant: h read off the diagonal of Q = K K^+ (the input space)."""
    _, Q = linmem.projectors(K)
    return np.diagonal(Q).copy()


# --- lev.one-means-exact ---------------------------------------------------------------
#
# The identity behind the claim: ||P e_j - e_j||^2 = h_j - 2 h_j + 1 = 1 - h_j
# (P symmetric idempotent), so h_j = 1 forces P e_j = e_j; then
# W_LS k_j = V P e_j = v_j and n_j = sum_{i != j} P_ij v_i = 0.
# Inputs: a key with a component outside the span of the others (h_j = 1
# exactly although it need not be orthogonal to them), hidden by a rotation.


def _free_key_terms(impl, K, V, free: int):
    """Residuals: ||P e_i - e_i||^2 = 1 - h_i for every key, and at the key
    ``free`` (h = 1 exactly): h = 1, P e_j = e_j, W_LS k_j = v_j, n_j = 0."""
    P, _ = impl.projectors(K)
    h = impl.leverage_scores(K)
    W = impl.least_squares_store(K, V)
    _, n = impl.recall_decomposition(K, V)
    E = identity_like(K.shape[1], K)
    D = P - E
    return [
        diff_norm(np.sum(D * D, axis=0), 1 - h),
        diff_norm(h[free], 1),
        diff_norm(P[:, free], E[:, free]),
        diff_norm(W @ K[:, free], V[:, free]),
        diff_norm(n[:, free], 0 * V[:, free]),
    ]


def _append_free_key(rest, x, c, pos: int, R):
    """R [rest, (x, c)]: the keys of ``rest`` padded with a zero coordinate and
    the key (x, c), c != 0, inserted at column ``pos`` (a key outside their
    span), all rotated by the orthogonal R."""
    zero = rest[0, 0] * 0
    cols = [list(rest[:, j]) + [zero] for j in range(rest.shape[1])]
    cols.insert(pos, list(x) + [c])
    return R @ np.array(cols, dtype=rest.dtype).T


@st.composite
def _exact_free_key_inputs(draw):
    rest = draw(exact_key_matrices(max_dim=3, max_count=5))
    d0 = rest.shape[0]
    x = [Fraction(e) for e in draw(st.lists(st.integers(-3, 3), min_size=d0, max_size=d0))]
    c = Fraction(draw(st.sampled_from((1, -1, 2, 3))))
    pos = draw(st.integers(0, rest.shape[1]))
    seed = draw(st.integers(0, 2**32 - 1))
    R = ensembles.rational_orthogonal(d0 + 1, rng=np.random.default_rng(seed), scale=1)
    K = _append_free_key(rest, x, c, pos, R)
    V = draw(exact_value_matrices(K.shape[1]))
    return K, V, pos


def _one_exact(ctx):
    def residual(case):
        K, V, free = case
        impl = ctx.impl
        P, _ = impl.projectors(K)
        h = impl.leverage_scores(K)
        W = impl.least_squares_store(K, V)
        _, n = impl.recall_decomposition(K, V)
        E = identity_like(K.shape[1], K)
        D = P - E
        out = exact_sq(np.sum(D * D, axis=0), 1 - h)
        # every key with h = 1, not only the constructed one
        for j in [free] + [i for i in range(K.shape[1]) if i != free and h[i] == 1]:
            out += (
                exact_sq(h[j], 1) + exact_sq(P[:, j], E[:, j])
                + exact_sq(W @ K[:, j], V[:, j]) + exact_sq(n[:, j], 0 * V[:, j])
            )
        return out

    return symbolic.check_exact(ctx, _exact_free_key_inputs(), residual,
                                describe=lambda c: {"K": c[0], "V": c[1], "free key": c[2]})


def _one_precise(ctx):
    # The free key's outside component is 1e-15: the key lies within 1e-15 of
    # the span of the others (so K is ill-conditioned beyond float64) and
    # still has h = 1 exactly.
    rng = ctx.rng("free-key")
    cases = []
    for label, rest in precise_key_cases(ctx):
        d0, m = rest.shape
        x = [Fraction(int(e)) for e in rng.integers(-3, 4, d0)]
        pos = int(rng.integers(0, m + 1))
        R = ensembles.rational_orthogonal(d0 + 1, rng=rng)
        K = _append_free_key(rest, x, Fraction(1, 10**15), pos, R)
        cases.append((f"{label} + a key 1e-15 off their span", (K, precise_values(K, ctx), pos)))

    def residual(case):
        K, V, free = mp_array(case[0]), mp_array(case[1]), case[2]
        err = max(_free_key_terms(ctx.impl, K, V, free))
        return err, max(K.shape) * linmem.condition_number(K) * (1 + norm(V))

    return precise.check(ctx, cases, residual)


@st.composite
def _float_free_key_inputs(draw):
    case = draw(float_key_cases(max_dim=7))
    c = draw(st.sampled_from((1.0, 1e-6)))
    pos = draw(st.integers(0, case.M))
    rng = np.random.default_rng(case.seed ^ 0x5EED)
    R, _ = np.linalg.qr(rng.standard_normal((case.d + 1, case.d + 1)))
    K = _append_free_key(case.K, rng.standard_normal(case.d), c, pos, R)
    V = rng.standard_normal((case.p, case.M + 1))
    return {**case.describe(), "free key at": pos, "outside component": c}, K, V, pos


def _one_property(ctx):
    def measure(case):
        _, K, V, free = case
        err = max(_free_key_terms(ctx.impl, K, V, free))
        return scaled_residual(err, scale=max(K.shape) * float(linmem.condition_number(K)) * (1 + norm(V)))

    return prop.check(ctx, _float_free_key_inputs(), measure, describe=lambda c: c[0])


def _outer_product_as_least_squares(K, V):
    """Wrong variant: the outer-product store V K^T in place of V K^+."""
    return linmem.outer_product_store(K, V)


CLAIMS = [
    Claim(
        id="proj.coefficient-projector",
        title="P = K^+ K is the orthogonal projector onto the row space of K",
        statement=r"P = K^{+}K = Z_K Z_K^{\top},\quad P^{\top} = P,\quad P^2 = P,\quad W_{\mathrm{LS}}K = VP",
        kind=ClaimKind.IDENTITY,
        source="000, App. C",
        assumptions=("K any real d x M matrix (any rank)", "V any real p x M matrix"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _coefficient_projector_exact,
                  "exact rationals: symmetric, idempotent, equal to K^+ K, W_LS K = V P"),
            Check("ladder", EvidenceKind.PRECISE, _coefficient_projector_precise,
                  "mpmath ladder, condition up to 1e20 and rank-deficient"),
            Check("float", EvidenceKind.PROPERTY, _coefficient_projector_property,
                  "float64 over every key family"),
        ),
        negative_control=NegativeControl(
            "P = K K^+ in place of K^+ K (the input projector Q)",
            {"projectors": _swap_projectors},
        ),
    ),
    Claim(
        id="lev.range",
        title="Leverage scores are diagonal entries of P and lie in [0, 1]",
        statement=r"h_j = P_{jj} = \|Z_K^{\top} e_j\|^2,\qquad 0 \le h_j \le 1",
        kind=ClaimKind.INEQUALITY,
        source="000, App. D",
        assumptions=("K any real d x M matrix",),
        depends_on=("proj.coefficient-projector",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _leverage_exact,
                  "exact rationals: h = diag(P) and 0 <= h <= 1"),
            Check("ladder", EvidenceKind.PRECISE, _leverage_precise,
                  "mpmath at the boundary: h = 1, h ~ 1e-60, condition 1e20"),
            Check("float", EvidenceKind.PROPERTY, _leverage_property,
                  "float64: identity residual and range violation, steered to the worst case"),
        ),
        negative_control=NegativeControl(
            "h_j = ||k_j||^2 (column energy) in place of P_jj", {"leverage_scores": _column_energy}
        ),
    ),
    Claim(
        id="proj.input-projector",
        title="Q = K K^+ is the orthogonal projector onto the column space of K",
        statement=(r"Q = KK^{+} = U_K U_K^{\top},\quad Q^{\top} = Q,\quad Q^2 = Q,\quad "
                   r"QK = K,\quad \operatorname{tr} Q = r_K "
                   r"\ \Rightarrow\ \operatorname{range}(Q) = \operatorname{col}(K)"),
        kind=ClaimKind.IDENTITY,
        source="000, App. C",
        assumptions=("K any real d x M matrix (any rank, zero columns allowed)",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _input_projector_exact,
                  "exact rationals: symmetric, idempotent, equal to K K^+, Q K = K, tr Q = rank K (sympy)"),
            Check("ladder", EvidenceKind.PRECISE, _input_projector_precise,
                  "mpmath ladder, also against U_K U_K^T; condition up to 1e20, rank-deficient, unit keys"),
            Check("float", EvidenceKind.PROPERTY, _input_projector_property,
                  "float64 over every key family; rank from LAPACK"),
        ),
        negative_control=NegativeControl(
            "Q = K K^T (Gram matrix, no pseudoinverse) in place of K K^+", {"projectors": _input_projector_gram}
        ),
    ),
    Claim(
        id="proj.trace-is-rank",
        title="The leverage scores sum to the rank of the keys",
        statement=r"\operatorname{tr} P = \sum_{j=1}^{M} h_j = \operatorname{tr}(Z_K^{\top} Z_K) = r_K",
        kind=ClaimKind.IDENTITY,
        source="000, App. D",
        assumptions=("K any real d x M matrix (any rank)",),
        depends_on=("proj.coefficient-projector", "lev.range"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _trace_exact,
                  "exact rationals: tr P and sum h equal the sympy rank"),
            Check("ladder", EvidenceKind.PRECISE, _trace_precise,
                  "mpmath ladder against the exact rank; condition up to 1e20, rank-deficient"),
            Check("float", EvidenceKind.PROPERTY, _trace_property,
                  "float64 over every key family; rank from LAPACK"),
        ),
        negative_control=NegativeControl(
            "Gram matrix K^T K in place of P, and its diagonal ||k_j||^2 as leverage",
            {"projectors": _gram_projectors, "leverage_scores": _column_energy},
        ),
    ),
    Claim(
        id="lev.column-energy",
        title="Column j of P carries energy h_j; off the diagonal, h_j - h_j^2",
        statement=(r"\sum_{i=1}^{M} P_{ij}^2 = (P^{\top}P)_{jj} = P_{jj} = h_j,\qquad "
                   r"\sum_{i \ne j} P_{ij}^2 = h_j - h_j^2"),
        kind=ClaimKind.IDENTITY,
        source="000, App. D",
        assumptions=("K any real d x M matrix (any rank)",),
        depends_on=("proj.coefficient-projector", "lev.range"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _column_energy_exact,
                  "exact rationals: both column sums, the second against crosstalk_power(h)"),
            Check("ladder", EvidenceKind.PRECISE, _column_energy_precise,
                  "mpmath ladder, condition up to 1e20, rank-deficient, unit keys"),
            Check("float", EvidenceKind.PROPERTY, _column_energy_property,
                  "float64 over every key family"),
        ),
        negative_control=NegativeControl(
            "off-diagonal energy h_j (the i = j term not removed) in place of h_j - h_j^2",
            {"crosstalk_power": _crosstalk_keeps_diagonal},
        ),
    ),
    Claim(
        id="lev.zero-means-zero-key",
        title="Only a zero key has zero leverage; unit keys have h_j >= 1/M",
        statement=(r"P e_j = K^{+}k_j,\quad h_j = \|K^{+}k_j\|^2,\quad k_j = K K^{+} k_j "
                   r"\ \Rightarrow\ \|k_j\|^2 \le \|K\|_2^2\, h_j \le \|K\|_F^2\, h_j;\ "
                   r"h_j = 0 \iff k_j = 0,\ \ \|k_i\| = 1\ \forall i \Rightarrow h_j \ge \tfrac{1}{M}"),
        kind=ClaimKind.IDENTITY,
        source="000, App. D",
        assumptions=("K any real d x M matrix; zero columns allowed (they are the h_j = 0 case)",),
        depends_on=("proj.coefficient-projector", "lev.range"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _zero_key_exact,
                  "exact rationals with zeroed columns, or exactly unit keys: the identities, "
                  "{h_j = 0} = {k_j = 0} and the lower bound"),
            Check("ladder", EvidenceKind.PRECISE, _zero_key_precise,
                  "mpmath ladder: h ~ 1e-60 beside a zero key, zeroed columns, condition up to 1e20, unit keys"),
            Check("float", EvidenceKind.PROPERTY, _zero_key_property,
                  "float64 over every key family (unit or not) with random columns zeroed"),
        ),
        negative_control=NegativeControl(
            "leverage read off diag(Q) = diag(K K^+) (input space) in place of diag(K^+ K)",
            {"leverage_scores": _leverage_from_input_projector},
        ),
    ),
    Claim(
        id="lev.one-means-exact",
        title="Leverage one means exact recall with no cross-talk",
        statement=(r"\|P e_j - e_j\|^2 = 1 - h_j;\quad h_j = 1 \Rightarrow P e_j = e_j,\ "
                   r"W_{\mathrm{LS}} k_j = v_j,\ n_j = \sum_{i \ne j} P_{ij} v_i = 0"),
        kind=ClaimKind.IDENTITY,
        source="000, App. D",
        assumptions=("K any real d x M matrix, V any real p x M matrix",
                     "inputs carry a key with a component outside the span of the others "
                     "(h_j = 1 exactly, though not orthogonal to them), hidden by a rotation"),
        depends_on=("proj.coefficient-projector", "lev.range", "lev.column-energy", "recall.decomposition"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _one_exact,
                  "exact rationals: ||Pe_j - e_j||^2 = 1 - h_j for all j; at every h_j = 1 key "
                  "P e_j = e_j, exact recall, zero cross-talk"),
            Check("ladder", EvidenceKind.PRECISE, _one_precise,
                  "mpmath ladder, free key 1e-15 off the span of ill-conditioned / rank-deficient keys"),
            Check("float", EvidenceKind.PROPERTY, _one_property,
                  "float64 over every key family plus a free key (outside component 1 or 1e-6)"),
        ),
        negative_control=NegativeControl(
            "outer-product store V K^T in place of the least-squares store V K^+",
            {"least_squares_store": _outer_product_as_least_squares},
        ),
    ),
]
