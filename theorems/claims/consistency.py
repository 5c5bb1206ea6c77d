"""Values that follow one linear rule, and exact fitting in general (000,
"Shared structure permits more exact pairs", App. H; kernels as in App. A).

If ``V = A K`` the least-squares store is ``A Q`` (``Q = K K^+``): it recalls
``A q`` exactly on the key span, however many pairs there are, and errs by
``A (I - Q) q`` off it. In general some ``W`` fits every pair iff
``ker K ⊆ ker V`` iff ``V (I - P) = 0``. The two kernels involved,
``ker K ⊆ R^M`` (dependencies among the pairs) and ``ker K^T ⊆ R^d``
(input directions the keys miss), are different spaces; the last claim
exhibits a case where mixing them up gives the wrong answer.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

import linmem
from linmem.precise import mp_array
from theorems.claims._cases import precise_key_cases
from theorems.evidence import counterexample, precise, symbolic
from theorems.evidence import property as prop
from theorems.evidence._common import IMPLEMENTATION_ERRORS
from theorems.model import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.residuals import diff_norm, exact_sq
from theorems.strategies import KeyCase, exact_key_matrices, float_key_cases
from theorems.tolerance import norm, scaled_residual

__all__ = ["CLAIMS"]

#: Relative ridge of the negative control of cons.span-exact (lambda = this x ||K||_F^2).
CONTROL_RIDGE = Fraction(1, 1000)

RULE_ASSUMPTIONS = (
    "V = A K for a fixed A in R^{p x d}",
    "K any real d x M matrix: any rank, duplicated keys, M < d, M = d or M > d; unit norm not needed",
)


# --- shared helpers ------------------------------------------------------------------


def _integers(rng, shape) -> np.ndarray:
    return np.vectorize(Fraction, otypes=[object])(rng.integers(-3, 4, size=shape))


def _identity(n: int, like) -> np.ndarray:
    """n x n identity in the number system of the scalar ``like``."""
    one, zero = like * 0 + 1, like * 0
    I = np.full((n, n), zero, dtype=object)
    for i in range(n):
        I[i, i] = one
    return I


def _in_number_system(K, q: Fraction):
    """The rational ``q`` as a scalar of K's number system."""
    if K.dtype != object:
        return float(q)
    return mpmath.mpf(q.numerator) / q.denominator if isinstance(K.flat[0], mpmath.mpf) else q


def _eye_for(K, n):
    return np.eye(n) if K.dtype != object else _identity(n, K.flat[0])


@st.composite
def _rule_inputs(draw, *, queries: int = 0, max_dim: int = 4, max_count: int = 6):
    """(K, A, C): exact keys, an integer rule A (p x d), and integer
    coefficients C (M x ``queries``) for span queries K C."""
    K = draw(exact_key_matrices(max_dim=max_dim, max_count=max_count))
    p = draw(st.integers(1, 3))
    A = _integer_matrix(draw, p, K.shape[0])
    C = _integer_matrix(draw, K.shape[1], queries) if queries else None
    return K, A, C


def _integer_matrix(draw, rows, cols):
    entries = draw(st.lists(st.integers(-3, 3), min_size=rows * cols, max_size=rows * cols))
    return np.array([Fraction(e) for e in entries], dtype=object).reshape(rows, cols)


def _nonzero_keys(K):
    """Replace a zero column j by e_(j mod d): keys have a direction."""
    for j in range(K.shape[1]):
        if all(x == 0 for x in K[:, j]):
            K[j % K.shape[0], j] = Fraction(1)
    return K


def _rule_store(impl, K, A):
    return impl.least_squares_store(K, impl.consistent_values(A, K))


def _precise_rule_cases(ctx):
    rng = ctx.rng("rule-precise")
    return [(label, (K, _integers(rng, (2, K.shape[0])), _integers(rng, (K.shape[1], 2))))
            for label, K in precise_key_cases(ctx)]


def _float_rule_case(case: KeyCase, cols: int):
    rng = np.random.default_rng(case.seed + 1)
    return rng.standard_normal((case.p, case.d)), rng.standard_normal((case.M, cols))


# --- cons.rule-projects ------------------------------------------------------------


def _rule_projects_exact(ctx):
    def residual(case):
        K, A, _ = case
        _, Q = ctx.impl.projectors(K)
        return exact_sq(_rule_store(ctx.impl, K, A), A @ Q)

    return symbolic.check_exact(ctx, _rule_inputs(), residual, describe=lambda c: {"K": c[0], "A": c[1]})


def _rule_projects_deviation(impl, K, A):
    _, Q = impl.projectors(K)
    err = diff_norm(_rule_store(impl, K, A), A @ Q)
    return err, max(K.shape) * linmem.condition_number(K) * (1 + norm(A))


def _rule_projects_precise(ctx):
    def residual(case):
        K, A, _ = case
        return _rule_projects_deviation(ctx.impl, mp_array(K), mp_array(A))

    return precise.check(ctx, _precise_rule_cases(ctx), residual)


def _rule_projects_property(ctx):
    def measure(case: KeyCase):
        A, _ = _float_rule_case(case, 1)
        err, scale = _rule_projects_deviation(ctx.impl, case.K, A)
        return scaled_residual(err, scale=float(scale))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _outer_product_as_ls(K, V):
    """Wrong: the least-squares store built as V K^T (the outer-product store)."""
    return linmem.outer_product_store(K, V)


# --- cons.span-exact ------------------------------------------------------------------


def _span_exact_exact(ctx):
    def residual(case):
        K, A, C = case
        queries = K @ C  # points of col(K)
        return exact_sq(_rule_store(ctx.impl, K, A) @ queries, A @ queries)

    return symbolic.check_exact(ctx, _rule_inputs(queries=3), residual,
                                describe=lambda c: {"K": c[0], "A": c[1], "coefficients": c[2]})


def _span_exact_deviation(impl, K, A, C):
    queries = K @ C
    err = diff_norm(_rule_store(impl, K, A) @ queries, A @ queries)
    return err, max(K.shape) * linmem.condition_number(K) * (1 + norm(A)) * (1 + norm(K) * norm(C))


def _span_exact_precise(ctx):
    def residual(case):
        return _span_exact_deviation(ctx.impl, *(mp_array(x) for x in case))

    return precise.check(ctx, _precise_rule_cases(ctx), residual)


def _span_exact_property(ctx):
    def measure(case: KeyCase):
        A, C = _float_rule_case(case, 3)
        err, scale = _span_exact_deviation(ctx.impl, case.K, A, C)
        return scaled_residual(err, scale=float(scale))

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _solve(G, B):
    """G^{-1} B for a nonsingular G, in any number system (Gauss-Jordan with
    partial pivoting for object arrays)."""
    if G.dtype != object:
        return np.linalg.solve(G, B)
    n = G.shape[0]
    aug = np.concatenate([G, B], axis=1).astype(object)
    for col in range(n):
        pivot = max(range(col, n), key=lambda i: abs(aug[i, col]))
        aug[[col, pivot]] = aug[[pivot, col]]
        aug[col] = aug[col] / aug[col, col]
        for i in range(n):
            if i != col:
                aug[i] = aug[i] - aug[i, col] * aug[col]
    return aug[:, n:]


def _ridge_store(K, V):
    """Wrong: a ridge fit V (K^T K + lambda I)^{-1} K^T in place of the pseudoinverse."""
    ridge = np.sum(K * K) * _in_number_system(K, CONTROL_RIDGE)
    G = K.T @ K + ridge * _eye_for(K, K.shape[1])
    return V @ _solve(G, K.T)


# --- cons.off-span-error ------------------------------------------------------------------


def _off_span_terms(impl, K, A, q, I_d):
    """(error identity residual, residual of K^T (I - Q) q = 0)."""
    W = _rule_store(impl, K, A)
    _, Q = impl.projectors(K)
    off = (I_d - Q) @ q
    return diff_norm(A @ q - W @ q, A @ off), diff_norm(K.T @ off, 0 * (K.T @ q))


def _off_span_exact(ctx):
    @st.composite
    def inputs(draw):
        K, A, _ = draw(_rule_inputs())
        return K, A, _integer_matrix(draw, K.shape[0], 2)

    def residual(case):
        K, A, q = case
        W = _rule_store(ctx.impl, K, A)
        _, Q = ctx.impl.projectors(K)
        off = (_identity(K.shape[0], Fraction(0)) - Q) @ q
        return exact_sq(A @ q - W @ q, A @ off) + exact_sq(K.T @ off, np.zeros((K.shape[1], q.shape[1]), dtype=int))

    return symbolic.check_exact(ctx, inputs(), residual, describe=lambda c: {"K": c[0], "A": c[1], "q": c[2]})


def _off_span_precise(ctx):
    rng = ctx.rng("off-span-precise")
    cases = [(label, (K, A, _integers(rng, (K.shape[0], 2)))) for label, (K, A, _) in _precise_rule_cases(ctx)]

    def residual(case):
        K, A, q = (mp_array(x) for x in case)
        errs = _off_span_terms(ctx.impl, K, A, q, _identity(K.shape[0], K[0, 0]))
        return max(errs), max(K.shape) * linmem.condition_number(K) * (1 + norm(A)) * (1 + norm(K)) * (1 + norm(q))

    return precise.check(ctx, cases, residual)


def _off_span_property(ctx):
    def measure(case: KeyCase):
        K = case.K
        A, _ = _float_rule_case(case, 1)
        q = np.random.default_rng(case.seed + 2).standard_normal((case.d, 2))
        errs = _off_span_terms(ctx.impl, K, A, q, np.eye(case.d))
        scale = max(K.shape) * float(linmem.condition_number(K)) * (1 + norm(A)) * (1 + norm(K)) * (1 + norm(q))
        return scaled_residual(max(errs), scale=scale)

    return prop.check(ctx, float_key_cases(), measure, describe=KeyCase.describe)


def _off_span_visible(impl, case) -> bool:
    """The off-span error A (I - Q) q is not zero: (I - Q) q is outside ker(A)."""
    K, A, q = case
    try:
        _, Q = impl.projectors(K)
        off = (_identity(K.shape[0], Fraction(0)) - Q) @ q
        return any(x != 0 for x in A @ off)
    except IMPLEMENTATION_ERRORS:
        return False


def _off_span_witness(ctx):
    @st.composite
    def inputs(draw):
        # plain integer matrices of at most 3 x 3: few choices, so the shrink is short
        d, M, p = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
        return _nonzero_keys(_integer_matrix(draw, d, M)), _integer_matrix(draw, p, d), _integer_matrix(draw, d, 1)

    def find(ctx):
        return counterexample.search(ctx, inputs(), lambda c: _off_span_visible(ctx.impl, c))

    def verify(case):
        K, A, q = case
        try:
            W = _rule_store(ctx.impl, K, A)
            _, Q = ctx.impl.projectors(K)
            off = (_identity(K.shape[0], Fraction(0)) - Q) @ q
            error = A @ q - W @ q
            holds = (exact_sq(error, A @ off) == 0 and all(x == 0 for x in K.T @ off)
                     and any(x != 0 for x in error))
        except IMPLEMENTATION_ERRORS:
            return False, None
        return holds, exact_sq(error, 0 * error)

    return counterexample.check(ctx, find, verify, describe=lambda c: {"K": c[0], "A": c[1], "q": c[2]},
                                how="found by a Hypothesis search over integer keys, rules and queries, shrunk")


def _swapped_projectors(K):
    """Wrong: the two projectors exchanged (Q taken as K^+ K, P as K K^+)."""
    P, Q = linmem.projectors(K)
    return Q, P


# --- cons.exact-iff-kernel ---------------------------------------------------------------------


def _sympy(X) -> sympy.Matrix:
    return sympy.Matrix(X.shape[0], X.shape[1], [sympy.Rational(e.numerator, e.denominator)
                                                 for e in (Fraction(x) for x in X.ravel())])


def _kernel_basis(K) -> np.ndarray:
    """Rational basis of ker(K) as columns (M x dim), from sympy (a reference)."""
    basis = _sympy(K).nullspace()
    M = K.shape[1]
    if not basis:
        return np.zeros((M, 0), dtype=object)
    return np.array([[Fraction(int(b[i].p), int(b[i].q)) for b in basis] for i in range(M)], dtype=object)


def _kernel_facts(impl, K, V):
    """Exact mismatches between the four characterisations, and the kernel of I - P."""
    rank = _sympy(K).rank()
    solvable = _sympy(np.concatenate([K, V], axis=0)).rank() == rank  # some W with W K = V
    mismatches = sum(x != solvable for x in (impl.consistency_residual(K, V) == 0, bool(impl.is_consistent(K, V))))
    if mismatches:
        return mismatches  # a wrong verdict: no need for the rest, and a failure shrinks faster
    N = _kernel_basis(K)
    mismatches += all(x == 0 for x in (V @ N).ravel()) != solvable
    P, _ = impl.projectors(K)
    I_minus_P = _identity(K.shape[1], Fraction(0)) - P
    col_is_kernel = (exact_sq(K @ I_minus_P, np.zeros(K.shape, dtype=int))
                     + (_sympy(I_minus_P).rank() - (K.shape[1] - rank)) ** 2)
    fit = exact_sq(impl.least_squares_store(K, V) @ K, V) if solvable else 0
    return mismatches + col_is_kernel + fit


@st.composite
def _kernel_inputs(draw):
    """(K, V): V consistent (A K), arbitrary integers, or A K plus a component
    that breaks one dependency among the keys."""
    K = draw(exact_key_matrices())
    p = draw(st.integers(1, 3))
    how = draw(st.sampled_from(("rule", "arbitrary", "broken")))
    A = _integer_matrix(draw, p, K.shape[0])
    if how == "arbitrary":
        return K, _integer_matrix(draw, p, K.shape[1])
    V = A @ K
    if how == "broken":
        N = _kernel_basis(K)
        if N.shape[1]:
            V = V + _integer_matrix(draw, p, N.shape[1]) @ N.T
    return K, V


def _exact_iff_exact(ctx):
    return symbolic.check_exact(ctx, _kernel_inputs(), lambda c: _kernel_facts(ctx.impl, *c),
                                describe=lambda c: {"K": c[0], "V": c[1]})


def _kernel_ladder_cases(ctx):
    """For each key matrix: V = A K (consistent) and V = A K + C with the rows
    of C in ker(K) (so ||V (I - P)||_F^2 = ||C||_F^2 exactly)."""
    rng = ctx.rng("kernel-precise")
    cases = []
    for label, K in precise_key_cases(ctx):
        V = _integers(rng, (2, K.shape[0])) @ K
        cases.append((f"{label}, V = A K", (K, V, Fraction(0))))
        N = _kernel_basis(K)
        if N.shape[1]:
            C = _integers(rng, (2, N.shape[1])) @ N.T
            if any(x != 0 for x in C.ravel()):
                cases.append((f"{label}, V = A K + C", (K, V + C, np.sum(C * C))))
    return cases


def _kernel_deviation(impl, K, V, broken_sq, I_M):
    """Deviation of ||V(I - P)||^2 from its exact value; infinite if the
    verdict is wrong; the fit residual when the pairs are consistent."""
    residual = impl.consistency_residual(K, V)
    verdict = impl.is_consistent(K, V)
    consistent = broken_sq == 0
    if bool(verdict) != consistent:
        return mpmath.inf if K.dtype == object else np.inf
    P, _ = impl.projectors(K)
    dev = max(abs(residual * residual - broken_sq), diff_norm(K @ (I_M - P), 0 * K))
    if consistent:
        dev = max(dev, diff_norm(impl.least_squares_store(K, V) @ K, V))
    return dev


def _exact_iff_precise(ctx):
    def residual(case):
        K, V, broken = case
        Km, Vm = mp_array(K), mp_array(V)
        b = mpmath.mpf(broken.numerator) / broken.denominator
        dev = _kernel_deviation(ctx.impl, Km, Vm, b, _identity(K.shape[1], Km[0, 0]))
        return dev, max(K.shape) * linmem.condition_number(Km) * (1 + norm(Vm)) ** 2

    return precise.check(ctx, _kernel_ladder_cases(ctx), residual)


def _exact_iff_property(ctx):
    @st.composite
    def cases(draw):
        case = draw(float_key_cases())
        return case, draw(st.booleans())

    def measure(c):
        case, broken = c
        K = case.K
        rng = np.random.default_rng(case.seed + 3)
        V = rng.standard_normal((case.p, case.d)) @ K
        # the null space by the documented rank rule, from LAPACK directly (a reference)
        _, s, Vt = np.linalg.svd(K)
        r = int(np.sum(s > max(K.shape) * np.finfo(float).eps * s[0]))
        N = Vt[r:].T
        C = rng.standard_normal((case.p, N.shape[1])) @ N.T if broken and N.shape[1] else np.zeros_like(V)
        dev = _kernel_deviation(ctx.impl, K, V + C, float(np.sum(C * C)), np.eye(case.M))
        scale = max(K.shape) * float(linmem.condition_number(K)) * (1 + norm(V + C)) ** 2
        return scaled_residual(dev, scale=scale)

    return prop.check(ctx, cases(), measure, describe=lambda c: {**c[0].describe(), "broken": c[1]})


def _independence_residual(K, V):
    """Wrong: fitting judged possible only for independent keys (rank K = M)."""
    total = np.sum(V * V) * (K.shape[1] - linmem.numerical_rank(K))
    if K.dtype != object:
        return float(np.sqrt(total))
    return mpmath.sqrt(total) if isinstance(K.flat[0], mpmath.mpf) else total  # exact: squared, as linmem


def _independence_verdict(K, V) -> bool:
    return linmem.numerical_rank(K) == K.shape[1]


# --- cons.kernel-roles ----------------------------------------------------------------------------


def _swapped_verdict(impl, K, V) -> bool:
    """The kernel condition with ker(K^T) = col(I - Q) in place of ker(K) = col(I - P)."""
    _, Q = impl.projectors(K)
    return all(x == 0 for x in (V @ (_identity(K.shape[0], Fraction(0)) - Q)).ravel())


@st.composite
def _square_inputs(draw):
    """Square exact keys (d = M, the only shape where the swap type-checks) and integer values."""
    n = draw(st.integers(1, 3))
    return _nonzero_keys(_integer_matrix(draw, n, n)), _integer_matrix(draw, draw(st.integers(1, 2)), n)


def _roles_disagree(impl, case) -> bool:
    K, V = case
    try:
        return bool(impl.is_consistent(K, V)) != _swapped_verdict(impl, K, V)
    except IMPLEMENTATION_ERRORS:
        return False


def _kernel_roles_witness(ctx):
    def find(ctx):
        return counterexample.search(ctx, _square_inputs(), lambda c: _roles_disagree(ctx.impl, c))

    def verify(case):
        K, V = case
        Ks = _sympy(K)
        rank = Ks.rank()
        truth = _sympy(np.concatenate([K, V], axis=0)).rank() == rank
        ker, ker_t = Ks.nullspace(), Ks.T.nullspace()
        # ker(K) = row(K)^perp: orthogonal to every row, complementary dimension
        perp = all((Ks[i, :] * b)[0] == 0 for b in ker for i in range(Ks.rows)) and len(ker) + rank == K.shape[1]
        different = sympy.Matrix.hstack(*(ker + ker_t)).rank() > len(ker) if ker else bool(ker_t)
        try:
            right = bool(ctx.impl.is_consistent(K, V)) == truth
            wrong = _swapped_verdict(ctx.impl, K, V) != truth
        except IMPLEMENTATION_ERRORS:
            return False, None
        return perp and different and right and wrong, 1.0

    return counterexample.check(ctx, find, verify, describe=lambda c: {"K": c[0], "V": c[1]},
                                how="found by a Hypothesis search over square integer keys and values, shrunk")


CLAIMS = [
    Claim(
        id="cons.rule-projects",
        title="Values from one linear rule: the least-squares store is the rule times the input projector",
        statement=r"V = AK \;\Longrightarrow\; W_{\mathrm{LS}} = AKK^{+} = AQ",
        kind=ClaimKind.IDENTITY,
        source="000, App. H; 'Shared structure permits more exact pairs'",
        assumptions=RULE_ASSUMPTIONS,
        depends_on=("ls.pseudoinverse-minimizer", "proj.input-projector"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _rule_projects_exact,
                  "exact rationals, any rank and shape: W_LS = A Q"),
            Check("ladder", EvidenceKind.PRECISE, _rule_projects_precise,
                  "mpmath ladder, condition up to 1e20, rank-deficient and duplicated keys"),
            Check("float", EvidenceKind.PROPERTY, _rule_projects_property, "float64 over every key family"),
        ),
        negative_control=NegativeControl("least-squares store built as V K^T",
                                          {"least_squares_store": _outer_product_as_ls}),
    ),
    Claim(
        id="cons.span-exact",
        title="A linear rule is recalled exactly on the whole key span, even with more pairs than dimensions",
        statement=(r"V = AK,\ q \in \operatorname{col}(K) \;\Longrightarrow\; W_{\mathrm{LS}}\,q = Aq"
                   r" \quad (\text{any } M, \text{ also } M > d)"),
        kind=ClaimKind.IDENTITY,
        source="000, App. H; 'Shared structure permits more exact pairs'",
        assumptions=RULE_ASSUMPTIONS + ("queries q = K c for arbitrary coefficients c",),
        depends_on=("cons.rule-projects",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _span_exact_exact,
                  "exact rationals, three span queries per case, M > d included"),
            Check("ladder", EvidenceKind.PRECISE, _span_exact_precise,
                  "mpmath ladder, condition up to 1e20, M up to 7 > d"),
            Check("float", EvidenceKind.PROPERTY, _span_exact_property, "float64 over every key family"),
        ),
        negative_control=NegativeControl("ridge fit (lambda = 1e-3 ||K||_F^2) in place of the pseudoinverse",
                                          {"least_squares_store": _ridge_store}),
    ),
    Claim(
        id="cons.off-span-error",
        title="Off the key span the error is A (I - Q) q, a direction the keys miss but A need not annihilate",
        statement=(r"V = AK:\ Aq - W_{\mathrm{LS}}q = A(I_d - Q)q,\quad (I_d - Q)q \in \ker(K^{\top});"
                   r"\ \exists\, q: A(I_d - Q)q \ne 0"),
        kind=ClaimKind.IDENTITY,
        source="000, App. H",
        assumptions=RULE_ASSUMPTIONS + ("q any query in R^d",),
        depends_on=("cons.rule-projects", "proj.input-projector"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _off_span_exact,
                  "exact rationals: error identity and K^T (I - Q) q = 0"),
            Check("ladder", EvidenceKind.PRECISE, _off_span_precise,
                  "mpmath ladder, condition up to 1e20, rank-deficient"),
            Check("float", EvidenceKind.PROPERTY, _off_span_property, "float64 over every key family"),
            Check("not-in-ker-A", EvidenceKind.COUNTEREXAMPLE, _off_span_witness,
                  "minimal witness with a nonzero off-span error, verified exactly"),
        ),
        negative_control=NegativeControl("projectors exchanged (Q taken as K^+ K)",
                                          {"projectors": _swapped_projectors}),
    ),
    Claim(
        id="cons.exact-iff-kernel",
        title="Some W fits every pair exactly iff ker K ⊆ ker V iff V (I - P) = 0; and col(I - P) = ker K",
        statement=(r"\exists W: WK = V \iff \ker K \subseteq \ker V \iff V(I_M - P) = 0,\qquad "
                   r"\operatorname{col}(I_M - P) = \ker K"),
        kind=ClaimKind.IDENTITY,
        source="000, App. H",
        assumptions=("K any real d x M matrix, V any real p x M matrix",
                     "when the pairs are consistent, W_LS itself fits them exactly"),
        depends_on=("proj.coefficient-projector", "ls.pseudoinverse-minimizer"),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _exact_iff_exact,
                  "exact rationals: solvability (sympy rank), kernel inclusion (sympy null space), "
                  "consistency_residual, is_consistent and col(I - P) = ker K agree"),
            Check("ladder", EvidenceKind.PRECISE, _exact_iff_precise,
                  "mpmath: consistent and broken values, ||V(I - P)||^2 against its exact value"),
            Check("float", EvidenceKind.PROPERTY, _exact_iff_property,
                  "float64: verdict and residual for consistent and broken values, every key family"),
        ),
        negative_control=NegativeControl(
            "exact fitting judged possible only for independent keys (rank K = M)",
            {"consistency_residual": _independence_residual, "is_consistent": _independence_verdict},
        ),
    ),
    Claim(
        id="cons.kernel-roles",
        title="ker K (in R^M) and ker K^T (in R^d) play different roles: swapping them gives wrong answers",
        statement=(r"\ker(A) = \operatorname{row}(A)^{\perp};\ \ker K \subseteq \mathbb{R}^M \text{ and } "
                   r"\ker K^{\top} \subseteq \mathbb{R}^d \text{ differ: } \exists K \in \mathbb{R}^{n\times n}, V:"
                   r"\ (\ker K \subseteq \ker V) \ne (\ker K^{\top} \subseteq \ker V)"),
        kind=ClaimKind.COUNTEREXAMPLE,
        source="000, App. A and App. H",
        assumptions=("square keys (d = M), the only shape in which the swapped condition is even defined",),
        depends_on=("cons.exact-iff-kernel", "cons.off-span-error", "svd.null-space"),
        checks=(
            Check("witness", EvidenceKind.COUNTEREXAMPLE, _kernel_roles_witness,
                  "minimal square witness; truth from sympy, ker K = row(K)^perp checked exactly"),
        ),
        negative_control=NegativeControl("projectors exchanged, so ker K^T is read as ker K",
                                          {"projectors": _swapped_projectors}),
    ),
]
