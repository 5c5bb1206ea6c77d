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
from hypothesis import strategies as st

import linmem
from theorems.authoring import kit
from theorems.evidence._common import IMPLEMENTATION_ERRORS
from theorems.authoring.kit import integer_array, null_space
from theorems.core.residuals import exact_sq
from theorems.authoring.strategies import (
    Case, Inputs, exact_key_matrices, float_key_cases, integer_matrices, precise_keys)
from theorems.authoring.templates import counterexample, identity, swapped_projectors, witness_check, wrong
from theorems.core.tolerance import norm

__all__ = ["CLAIMS"]

#: Relative ridge of the negative control of cons.span-exact (lambda = this x ||K||_F^2).
CONTROL_RIDGE = Fraction(1, 1000)

RULE_ASSUMPTIONS = (
    "V = A K for a fixed A in R^{p x d}",
    "K any real d x M matrix: any rank, duplicated keys, M < d, M = d or M > d; unit norm not needed",
)


# --- keys, an integer rule A (p x d) and span coefficients C, or off-span queries q ---------


def _rules(extra: str) -> Inputs:
    """(K, A, X): any keys, a rule A (integer or Gaussian, p x d) and span
    coefficients (``extra="span"``) or queries (``extra="query"``, d x 2)."""
    span = extra == "span"

    @st.composite
    def exact(draw):
        K = draw(exact_key_matrices())
        A = draw(integer_matrices(draw(st.integers(1, 3)), K.shape[0]))
        return K, A, draw(integer_matrices(*((K.shape[1], 3) if span else (K.shape[0], 2))))

    def ladder(ctx):
        rng = ctx.rng(f"rule-precise {extra}")
        return [(label, (K, integer_array(rng, (2, K.shape[0])), integer_array(rng, (K.shape[1 if span else 0], 2))))
                for label, K in precise_keys(ctx)]

    def floats(c) -> Case:
        rng = kit.generator(c.seed, "rule")
        return Case((c.K, rng.standard_normal((c.p, c.d)), rng.standard_normal((c.M, 3) if span else (c.d, 2))),
                    c.describe())

    return Inputs(("K", "A", "coefficients" if span else "q"), exact(), ladder, float_key_cases().map(floats),
                  "any keys (rank-deficient, duplicated, condition to 1e20 on the ladder), integer or Gaussian rules")


def _rule_store(impl, K, A):
    return impl.least_squares_store(K, impl.consistent_values(A, K))


def _rule_projects(impl, K, A, C):
    return [(_rule_store(impl, K, A), A @ impl.projectors(K)[1])]


def _span_exact(impl, K, A, C):
    queries = K @ C  # points of col(K)
    return [(_rule_store(impl, K, A) @ queries, A @ queries)]


def _off_span(impl, K, A, q):
    W = _rule_store(impl, K, A)
    off = (kit.eye(K.shape[0], K) - impl.projectors(K)[1]) @ q
    return [(A @ q - W @ q, A @ off), (K.T @ off, 0 * (K.T @ q))]


def _ridge_store(K, V):
    """Wrong: a ridge fit V (K^T K + lambda I)^{-1} K^T in place of the pseudoinverse."""
    return linmem.ridge_store(K, V, ridge=np.sum(K * K) * CONTROL_RIDGE.numerator / CONTROL_RIDGE.denominator)


def _off_span_visible(impl, case) -> bool:
    """The off-span error A (I - Q) q is not zero: (I - Q) q is outside ker(A)."""
    K, A, q = case
    try:
        return any(x != 0 for x in A @ ((kit.eye(K.shape[0], K) - impl.projectors(K)[1]) @ q))
    except IMPLEMENTATION_ERRORS:
        return False


@st.composite
def _small_rules(draw):
    """Plain integer (K, A, q) of at most 3 x 3: few choices, so the shrink is
    short (entries drawn as flat lists, not nested strategies, which shrink faster)."""
    d, M, p = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
    flat = [kit.exact(draw(st.lists(st.integers(-3, 3), min_size=r * c, max_size=r * c))).reshape(r, c)
            for r, c in ((d, M), (p, d), (d, 1))]
    return _nonzero_keys(flat[0]), flat[1], flat[2]


def _off_span_verify(impl, case):
    try:
        (error, claimed), (missed, _) = _off_span(impl, *case)
    except IMPLEMENTATION_ERRORS:
        return False, None
    holds = exact_sq(error, claimed) == 0 and not np.any(missed) and np.any(error)
    return holds, exact_sq(error, 0 * error)


def _nonzero_keys(K):
    """Replace a zero column j by e_(j mod d): keys have a direction."""
    for j in range(K.shape[1]):
        if all(x == 0 for x in K[:, j]):
            K[j % K.shape[0], j] = Fraction(1)
    return K


# --- cons.exact-iff-kernel: (K, V, ||V (I - P)||^2), the last known on the ladder and in float64 ---


def _kernel(impl, K, V, broken_sq):
    """The characterisations agree with the truth (the exact rank, kit.rank, in exact
    arithmetic; by construction on the ladder and in float64), ||V(I - P)||^2
    has its exact value, K (I - P) = 0 with rank(I - P) = M - rank K, and
    W_LS fits consistent pairs."""
    residual, verdict = impl.consistency_residual(K, V), bool(impl.is_consistent(K, V))
    I_minus_P = kit.eye(K.shape[1], K) - impl.projectors(K)[0]
    if kit.is_exact(K):
        rank = kit.rank(K)
        solvable = kit.rank(np.concatenate([K, V], axis=0)) == rank  # some W with W K = V
        kernel_inside = all(x == 0 for x in (V @ null_space(K)).ravel())
        terms = [(int(claim), int(solvable)) for claim in (residual == 0, verdict, kernel_inside)]
        terms.append((kit.rank(I_minus_P), K.shape[1] - rank))
    else:
        solvable = broken_sq == 0
        terms = [(int(verdict), int(solvable)), (residual * residual, broken_sq)]
    terms.append((K @ I_minus_P, 0 * K))
    return terms + ([(impl.least_squares_store(K, V) @ K, V)] if solvable else [])


@st.composite
def _kernel_inputs(draw):
    """(K, V): V consistent (A K), arbitrary integers, or A K plus a component
    that breaks one dependency among the keys."""
    K = draw(exact_key_matrices())
    p = draw(st.integers(1, 3))
    how = draw(st.sampled_from(("rule", "arbitrary", "broken")))
    A = draw(integer_matrices(p, K.shape[0]))
    if how == "arbitrary":
        return K, draw(integer_matrices(p, K.shape[1])), None
    V = A @ K
    if how == "broken":
        N = null_space(K)
        if N.shape[1]:
            V = V + draw(integer_matrices(p, N.shape[1])) @ N.T
    return K, V, None


def _kernel_ladder_cases(ctx):
    """For each key matrix: V = A K (consistent) and V = A K + C with the rows
    of C in ker(K) (so ||V (I - P)||_F^2 = ||C||_F^2 exactly)."""
    rng = ctx.rng("kernel-precise")
    cases = []
    for label, K in precise_keys(ctx):
        V = integer_array(rng, (2, K.shape[0])) @ K
        N = null_space(K)
        C = integer_array(rng, (2, N.shape[1])) @ N.T  # zero when ker K = 0 (no draw then)
        cases.append((f"{label}, V = A K", (K, V, Fraction(0))))
        if np.any(C):
            cases.append((f"{label}, V = A K + C", (K, V + C, np.sum(C * C))))
    return cases


@st.composite
def _float_kernel_cases(draw):
    case, broken = draw(float_key_cases()), draw(st.booleans())
    K, rng = case.K, kit.generator(case.seed, "values")
    V = rng.standard_normal((case.p, case.d)) @ K
    N = np.linalg.svd(K)[2][kit.rank(K):].T  # the null space by LAPACK's rank rule (a reference)
    C = rng.standard_normal((case.p, N.shape[1])) @ N.T if broken and N.shape[1] else np.zeros_like(V)
    return Case((K, V + C, float(np.sum(C * C))), {**case.describe(), "broken": broken})


KERNEL_CASES = Inputs(("K", "V", "||V(I - P)||^2"), _kernel_inputs(), _kernel_ladder_cases, _float_kernel_cases(),
                      "consistent, arbitrary and broken values on any keys; condition to 1e20 on the ladder",
                      # dependent keys with consistent values, at every seed: where fitting is possible
                      # although rank K < M (the search met none at 3 of 20 quick seeds)
                      exact_examples=((kit.exact([[1, 2]]), kit.exact([[3, 6]]), None),
                                      (kit.exact([[1, 0, 1], [0, 1, 1]]), kit.exact([[2, -1, 1]]), None)))


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
    return not np.any(V @ (kit.eye(K.shape[0], K) - impl.projectors(K)[1]))


@st.composite
def _square_inputs(draw):
    """Square exact keys (d = M, the only shape where the swap type-checks) and integer values."""
    n = draw(st.integers(1, 3))
    return _nonzero_keys(draw(integer_matrices(n, n))), draw(integer_matrices(draw(st.integers(1, 2)), n))


def _roles_disagree(impl, case) -> bool:
    K, V = case
    try:
        return bool(impl.is_consistent(K, V)) != _swapped_verdict(impl, K, V)
    except IMPLEMENTATION_ERRORS:
        return False


def _kernel_roles_verify(impl, case):
    K, V = case
    rank, ker, ker_t = kit.rank(K), null_space(K), null_space(K.T)
    truth = kit.rank(np.concatenate([K, V], axis=0)) == rank
    # ker(K) = row(K)^perp: orthogonal to every row, complementary dimension
    perp = not np.any(K @ ker) and ker.shape[1] + rank == K.shape[1]
    different = kit.rank(np.concatenate([ker, ker_t], axis=1)) > ker.shape[1]  # ker K^T not inside ker K
    try:
        right = bool(impl.is_consistent(K, V)) == truth
        wrong = _swapped_verdict(impl, K, V) != truth
    except IMPLEMENTATION_ERRORS:
        return False, None
    return perp and different and right and wrong, 1.0


CLAIMS = [
    identity(
        "cons.rule-projects",
        title="Values from one linear rule: the least-squares store is the rule times the input projector",
        statement=r"V = AK \;\Longrightarrow\; W_{\mathrm{LS}} = AKK^{+} = AQ",
        source="000, App. H; 'Shared structure permits more exact pairs'",
        assumptions=RULE_ASSUMPTIONS,
        depends_on=("ls.pseudoinverse-minimizer", "proj.input-projector"),
        inputs=_rules("span"), terms=_rule_projects, scale=lambda K, A, C: kit.scale(K, A),
        control=wrong("least-squares store built as V K^T", least_squares_store=linmem.outer_product_store),
    ),
    identity(
        "cons.span-exact",
        title="A linear rule is recalled exactly on the whole key span, even with more pairs than dimensions",
        statement=(r"V = AK,\ q \in \operatorname{col}(K) \;\Longrightarrow\; W_{\mathrm{LS}}\,q = Aq"
                   r" \quad (\text{any } M, \text{ also } M > d)"),
        source="000, App. H; 'Shared structure permits more exact pairs'",
        assumptions=RULE_ASSUMPTIONS + ("queries q = K c for arbitrary coefficients c",),
        depends_on=("cons.rule-projects",),
        inputs=_rules("span"), terms=_span_exact, scale=lambda K, A, C: kit.scale(K, A) * (1 + norm(K) * norm(C)),
        control=wrong("ridge fit (lambda = 1e-3 ||K||_F^2) in place of the pseudoinverse",
                      least_squares_store=_ridge_store),
    ),
    identity(
        "cons.off-span-error",
        title="Off the key span the error is A (I - Q) q, a direction the keys miss but A need not annihilate",
        statement=(r"V = AK:\ Aq - W_{\mathrm{LS}}q = A(I_d - Q)q,\quad (I_d - Q)q \in \ker(K^{\top});"
                   r"\ \exists\, q: A(I_d - Q)q \ne 0"),
        source="000, App. H",
        assumptions=RULE_ASSUMPTIONS + ("q any query in R^d",),
        depends_on=("cons.rule-projects", "proj.input-projector"),
        inputs=_rules("query"), terms=_off_span, scale=lambda K, A, q: kit.scale(K, A, K, q),
        extra_checks=(witness_check(
            name="not-in-ker-A", about="minimal witness with a nonzero off-span error, verified exactly",
            search=_small_rules(), found=_off_span_visible, verify=_off_span_verify,
            describe=lambda c: {"K": c[0], "A": c[1], "q": c[2]},
            how="found by a Hypothesis search over integer keys, rules and queries, shrunk"),),
        control=wrong("projectors exchanged (Q taken as K^+ K)", projectors=swapped_projectors),
    ),
    identity(
        "cons.exact-iff-kernel",
        title="Some W fits every pair exactly iff ker K ⊆ ker V iff V (I - P) = 0; and col(I - P) = ker K",
        statement=(r"\exists W: WK = V \iff \ker K \subseteq \ker V \iff V(I_M - P) = 0,\qquad "
                   r"\operatorname{col}(I_M - P) = \ker K"),
        source="000, App. H",
        assumptions=("K any real d x M matrix, V any real p x M matrix",
                     "when the pairs are consistent, W_LS itself fits them exactly"),
        depends_on=("proj.coefficient-projector", "ls.pseudoinverse-minimizer"),
        inputs=KERNEL_CASES, terms=_kernel, scale=lambda K, V, broken: kit.scale(K, V, V),
        control=wrong("exact fitting judged possible only for independent keys (rank K = M)",
                      consistency_residual=_independence_residual, is_consistent=_independence_verdict),
    ),
    counterexample(
        "cons.kernel-roles",
        title="ker K (in R^M) and ker K^T (in R^d) play different roles: swapping them gives wrong answers",
        statement=(r"\ker(A) = \operatorname{row}(A)^{\perp};\ \ker K \subseteq \mathbb{R}^M \text{ and } "
                   r"\ker K^{\top} \subseteq \mathbb{R}^d \text{ differ: } \exists K \in \mathbb{R}^{n\times n}, V:"
                   r"\ (\ker K \subseteq \ker V) \ne (\ker K^{\top} \subseteq \ker V)"),
        source="000, App. A and App. H",
        assumptions=("square keys (d = M), the only shape in which the swapped condition is even defined",),
        depends_on=("cons.exact-iff-kernel", "cons.off-span-error", "svd.null-space"),
        search=_square_inputs(), found=_roles_disagree, verify=_kernel_roles_verify,
        describe=lambda c: {"K": c[0], "V": c[1]},
        about="minimal square witness; truth from the exact rank, ker K = row(K)^perp checked in sympy",
        how="found by a Hypothesis search over square integer keys and values, shrunk",
        control=wrong("projectors exchanged, so ker K^T is read as ker K", projectors=swapped_projectors),
    ),
]
