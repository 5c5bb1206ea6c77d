"""Constructing the store: outer-product and least-squares (000, "Two ways to
construct the memory matrix", "Recover Wang's capacity estimate", App. B, C, D).

Rational keys have irrational singular values in general, so the key-SVD
claims build their exact and ladder keys (condition to 1e20) *from* exactly
orthonormal rational factors, ``K = U diag(s) Z^T``
(:class:`theorems.authoring.strategies.Factored`): the SVD is known without being computed."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from theorems.authoring import kit
from theorems.authoring.kit import integer_array, sq
from theorems.core.residuals import at_most, exact_sq
from theorems.authoring.strategies import (
    Case, FACTORED_LADDER, Factored, HADAMARD4, Inputs, KeyCase, exact_factored, exact_independent_keys,
    exact_keys_and_values, exact_unit_key_matrices, exact_value_matrices, factored_cases,
    float_independent_key_cases, float_key_cases, independent_ladder_keys, integer_matrices, keys_and_values,
    precise_keys, precise_values, rng_seeds)
from theorems.authoring.templates import (counterexample, exact_check, gram_input_projector, gram_projectors, identity,
                                inequality, swapped_stores, wrong)
from theorems.core.tolerance import norm
from typing import Sequence

__all__ = ["CLAIMS"]


# --- this module's inputs (single-use input families, moved from theorems.authoring.strategies) ---


def factored_keys_and_values(*, operands: Sequence[str] = (), min_rank: int = 1) -> Inputs:
    """``(K, V, *operands, factors)``: keys with known factors (``factors`` a
    :class:`Factored` with ``factors.A == K``), values p x M and further p x d
    matrices named by ``operands`` (e.g. ``("B", "W")``), in the three number
    systems: exact keys from :func:`exact_factored` (every shape, rank
    ``min_rank`` to full, each key four times in some draws) with integer
    values and operands; ladder keys :data:`FACTORED_LADDER` (condition to
    1e20, ``max(4, precise_cases)`` of them) with integer values and
    operands; float keys of every family of :data:`FLOAT_KEY_FAMILIES` with
    Gaussian values and operands and ``factors=None`` (the claim then uses
    the computed SVD)."""

    @st.composite
    def exact(draw):
        F = draw(exact_factored(min_rank=min_rank))
        V = draw(exact_value_matrices(F.Z_full.shape[0]))
        return (F.A, V, *(draw(integer_matrices(V.shape[0], F.U.shape[0])) for _ in operands), F)

    def ladder(ctx):
        rng = ctx.rng("factored keys and values")
        return [(label, (F.A, kit.integer_array(rng, (3, F.Z_full.shape[0])),
                         *(kit.integer_array(rng, (3, F.U.shape[0])) for _ in operands), F))
                for label, F in factored_cases(ctx, FACTORED_LADDER, stream="factored keys", minimum=4)]

    def floats(c: KeyCase) -> Case:
        rng = kit.generator(c.seed, "operands")
        return Case((c.K, c.V, *(rng.standard_normal((c.p, c.d)) for _ in operands), None), c.describe())

    return Inputs(("K", "V", *operands, "factors"), exact(), ladder, float_key_cases().map(floats),
                  "keys U diag(s) Z^T with exactly orthonormal factors (duplicated, condition to 1e20); "
                  "float keys of every family against the computed SVD")


def independent_keys_and_values() -> Inputs:
    """(K, V): linearly independent keys (:func:`exact_independent_keys`,
    :func:`independent_ladder_keys`, :func:`float_independent_key_cases`)
    and integer (exact) or Gaussian (float) values with as many columns."""
    return Inputs(
        ("K", "V"), exact_independent_keys().flatmap(lambda K: exact_value_matrices(K.shape[1]).map(lambda V: (K, V))),
        lambda ctx: [(label, (K, precise_values(K, ctx))) for label, K in independent_ladder_keys(ctx)],
        float_independent_key_cases().map(lambda c: Case((c.K, c.V), c.describe())),
        "independent keys, M <= d: integer or unit, condition to 1e20 (mpmath) and 1e12 (float), "
        "unit keys 1e-15 apart")


# --- ls.pseudoinverse-minimizer: (K, V, B, t) -------------------------------------------


@st.composite
def _with_operand(draw, last):
    """(K, V, an integer p x d operand, ``last``): integer keys with duplicated and dependent columns."""
    K, V = draw(exact_keys_and_values())
    return K, V, draw(integer_matrices(V.shape[0], K.shape[0])), last


def _precise_with_operand(ctx, stream: str) -> list:
    """The ladder's keys and values (:func:`keys_and_values`) and an integer p x d operand from ``stream``."""
    rng = ctx.rng(stream)
    return [(label, (K, V, integer_array(rng, (V.shape[0], K.shape[0]))))
            for label, (K, V) in keys_and_values().precise(ctx)]


def _precise_perturbed(ctx):
    # both signs of the small step: a non-minimiser improves along one of them
    return [(f"{label}, step {t}", (*args, t)) for label, args in _precise_with_operand(ctx, "minimizer-precise")
            for t in (Fraction(1), Fraction(1, 10**8), Fraction(-1, 10**8))]


@st.composite
def _float_perturbed(draw):
    c, t = draw(float_key_cases()), draw(st.sampled_from((1.0, 1e-3, 1e-6)))
    return Case((c.K, c.V, kit.generator(c.seed, "B").standard_normal((c.p, c.d)), t), {**c.describe(), "step": t})


PERTURBED = Inputs(("K", "V", "B", "step"), _with_operand(Fraction(1)), _precise_perturbed, _float_perturbed(),
                   "any keys and values, perturbations of steps 1 down to 1e-8; condition to 1e20 (mpmath)")


def _minimizer(impl, K, V, B, t):
    """Exactly, the Pythagorean splits that prove both halves on each instance:
    ||WK - V||^2 = ||W_LS K - V||^2 + ||(W - W_LS) K||^2 for every W, and
    ||W_LS + B(I - Q)||^2 = ||W_LS||^2 + ||B(I - Q)||^2 with the same fit.
    In float and mpmath: no perturbation fits better, no co-minimiser is
    smaller, nor is LAPACK's minimum-norm solution (float64)."""
    W_ls = impl.least_squares_store(K, V)
    _, Q = linmem.projectors(K)
    W, other = W_ls + t * B, W_ls + t * B @ (kit.eye(K.shape[0], K) - Q)
    if kit.is_exact(K):
        return [(sq(W @ K - V), sq(W_ls @ K - V) + sq((W - W_ls) @ K)), (other @ K, W_ls @ K),
                (sq(other), sq(W_ls) + sq(other - W_ls))]
    bounds = [at_most(sq(W_ls @ K - V), sq(W @ K - V)), at_most(sq(W_ls), sq(other))]
    if K.dtype != object:
        W_ref = np.linalg.lstsq(K.T, V.T, rcond=None)[0].T
        bounds += [at_most(sq(W_ls @ K - V), sq(W_ref @ K - V)), at_most(sq(W_ls), sq(W_ref))]
    return bounds


#: The witness searches of op.not-least-squares and ls.per-key-not-dominant:
#: exactly unit keys (d <= 3, M <= 4, some duplicated) and integer values (p <= 2).
@st.composite
def _small_unit_pairs(draw):
    K = draw(exact_unit_key_matrices(max_dim=3, max_count=4))
    return K, draw(exact_value_matrices(K.shape[1], max_dim=2))


SMALL_UNIT_PAIRS = _small_unit_pairs()


def _ls_op_errors(impl, K, V) -> tuple[list, list]:
    """Exact per-key recall errors ||W k_j - v_j||^2 of the LS and of the OP store."""
    stores = impl.least_squares_store(K, V), impl.outer_product_store(K, V)
    return tuple(list(np.sum((W @ K - V) ** 2, axis=0)) for W in stores)


def _op_gap(impl, K, V):
    """||W_OP K - V||^2 - ||W_LS K - V||^2, exactly."""
    return sq(impl.outer_product_store(K, V) @ K - V) - sq(impl.least_squares_store(K, V) @ K - V)


def _not_ls_verify(impl, w):
    gap = _op_gap(impl, *w)
    return kit.unit_columns(w[0]) and gap > 0, gap


def _is_least_squares(W, K, V) -> bool:
    """W is V K^+ by its definition: it solves the normal equations W K K^T =
    V K^T and its rows lie in col(K) (minimum norm); exact references only."""
    return exact_sq(W @ K @ K.T, V @ K.T) == 0 and kit.rank(np.concatenate([K, W.T], axis=1)) == kit.rank(K)


# --- keys given by their exact SVD factors (theorems.authoring.strategies.Factored) -------------------------

def _scaled(terms: list, *scales) -> list:
    """Each pair of ``terms`` divided by its own scale (float terms of different sizes)."""
    return [(a / c, b / c) for (a, b), c in zip(terms, scales)]


def _svd(impl, K, F) -> tuple:
    """(U, s, Z): the exact factors when given, else the implementation's compact SVD."""
    svd = F if F is not None else impl.compact_svd(K)
    return svd.U, svd.s, svd.Z


def _pinv_norm(K) -> float:
    """||K^+||_2 = 1 / s_min (a scale, not under test)."""
    s = linmem.compact_svd(K).s
    return 1 / s[-1] if len(s) else 1


FACTORED = factored_keys_and_values()


# --- ls.residual-split: (K, V, W, exact factors or None) ---------------------------------------


SPLIT = dataclasses.replace(factored_keys_and_values(operands=("W",)),
                            precise=lambda ctx: [(label, (*args, None))
                                                 for label, args in _precise_with_operand(ctx, "split-precise")],
                            about="exact factors with duplicated keys; the computed SVD at condition to 1e20 "
                            "(mpmath); float64 over every key family, arbitrary W")


def _residual_split(impl, K, V, W, F):
    """Against the exact factors or the computed SVD; on integer keys (whose SVD
    is irrational) the SVD-free form: W U S - V Z = (WK - V) Z, whose norm is
    ||(WK - V) P||, so the split reads ||WK - V||^2 = ||(WK - V) P||^2 + ||V(I - P)||^2."""
    P, _ = impl.projectors(K)
    floor = sq(V @ (kit.eye(K.shape[1], K) - P))
    if F is None and kit.is_exact(K):
        return [(sq(W @ K - V), sq((W @ K - V) @ P) + floor)]
    U, s, Z = _svd(impl, K, F)
    return [(sq(W @ K - V), sq(W @ (U * s) - V @ Z) + floor)]


# --- ls.all-minimizers: (K, V, B, W, exact factors or None) ------------------


def _normal_equation_minimiser(K, V, params) -> np.ndarray:
    """A minimiser found without the formula: sympy's Gauss-Jordan solution of the normal equations
    W K K^T = V K^T, free parameters set to ``params`` (by convexity, the minimisers are the solutions)."""
    Ks = kit.to_sympy(K)
    sol, tau = (Ks * Ks.T).gauss_jordan_solve(Ks * kit.to_sympy(V).T)
    return kit.from_sympy(sol.subs(dict(zip(list(tau), params)))).T


def _all_minimisers(impl, K, V, B, W, F):
    """The formula's particular minimiser W0 = V Z S^-1 U^T is W_LS; every W0 + B(I - Q)
    reaches the least error ||V(I - P)||^2 and its norm splits; the excess error of any W
    is ||(WQ - W0) K||^2, so W minimises only if WQ = W0; exactly, a minimiser solved from
    the normal equations (its free parameters set to W's integer entries) has the form.
    Float terms are divided by their own scale."""
    U, s, Z = _svd(impl, K, F)
    W0, W_ls = ((V @ Z) / s) @ U.T, impl.least_squares_store(K, V)
    P, Q = impl.projectors(K)
    floor, off = sq(V @ (kit.eye(K.shape[1], K) - P)), kit.eye(K.shape[0], K) - Q
    terms = [(W0, W_ls), (sq((W0 + B @ off) @ K - V), floor), (sq(W0 + B @ off), sq(W0) + sq(B @ off)),
             (sq(W @ K - V), floor + sq((W @ Q - W0) @ K))]
    if kit.is_exact(K):
        W_ne = _normal_equation_minimiser(K, V, W.ravel())
        return terms + [(W_ne, W0 + W_ne @ off), (sq(W_ne @ K - V), floor)]
    # squared terms are bounded by (||V|| + (||W0|| + ||B|| + ||W||)(1 + ||K||))^2; the
    # pseudoinverse is accurate to ||K^+|| cond eps (Wedin)
    size = max(K.shape) * (1 + norm(V) + (norm(W0) + norm(B) + norm(W)) * (1 + norm(K))) ** 2
    pinv = max(K.shape) * (1 + norm(V)) * (1 + _pinv_norm(K)) * linmem.condition_number(K)
    return _scaled(terms, pinv, size, size, size)


# --- ls.svd-forms and ls.effective-pairs over FACTORED -------------------------------------------


def _svd_forms(impl, K, V, F):
    U, s, Z = _svd(impl, K, F)
    terms = [(impl.outer_product_store(K, V), (V @ Z * s) @ U.T), (impl.least_squares_store(K, V), (V @ Z / s) @ U.T)]
    if kit.is_exact(K):
        return terms
    # against exact factors the computed pseudoinverse carries cond ||K^+|| eps;
    # against the implementation's own SVD (float) no condition factor
    size = max(K.shape) * (1 + norm(V))
    return _scaled(terms, size * (1 + norm(K)), size * (1 + 1 / s[-1]) * (1 if F is None else s[0] / s[-1]))


def _effective(impl, K, V, F):
    """Exactly (linmem's effective_pairs needs an SVD, which rationals lack):
    W_LS = sum_l e_l u_l^T and W_LS u_l = e_l from the exact factors. Else
    effective_pairs rebuilds W_LS, W_LS u_l = e_l, the keys are orthonormal,
    and given exact factors each pair equals (u_l, V z_l / s_l), signs aligned."""
    W = impl.least_squares_store(K, V)
    if kit.is_exact(K):
        E = (V @ F.Z) / F.s
        return [(W, E @ F.U.T), (W @ F.U, E)]
    keys, values = impl.effective_pairs(K, V)
    # given exact factors, a singular pair is resolved to cond eps, an effective value to ||V|| cond^2 eps / s_max
    scale = max(K.shape) * (1 + norm(V)) * ((1 + _pinv_norm(K)) if F is None else (F.s[0] / F.s[-1]) ** 2 / F.s[0])
    terms = [(values @ keys.T / scale, W / scale), (W @ keys / scale, values / scale),
             (keys.T @ keys * ((1 + norm(W)) / scale), kit.eye(keys.shape[1], K) * ((1 + norm(W)) / scale))]
    if F is not None:
        if keys.shape[1] != len(F.s):
            return [(np.inf, 0)]
        signs = np.where(np.sum(keys * F.U, axis=0) >= 0, 1, -1)
        terms.append((values * signs / scale, (V @ F.Z) / F.s / scale))
    return terms


def _gain_not_inverted(K, V):
    svd = linmem.compact_svd(K)
    return svd.U, (V @ svd.Z) * svd.s


# --- ls.effective-not-svd -----------------------------------------------------------------


def _effective_gram(F: Factored, V):
    E = (V @ F.Z) / F.s
    return E, E.T @ E


def _not_svd_example() -> tuple[Factored, np.ndarray]:
    """Unit keys [e1, e1, e1, e1, e2]: four copies of one key make the SVD rational, U = I,
    s = (2, 1), z_1 = (1, 1, 1, 1, 0)/2, z_2 = e5. The first effective value is the average of
    the four values stored at e1, the second the value at e2; these are not orthogonal. (Two
    distinct unit keys would not do: their Z_K is (1, +-1)/sqrt(2), irrational.) The rest of
    Z_full is the Hadamard basis of the sums-zero vectors on the four copies."""
    Z_full = kit.exact(np.zeros((5, 5), dtype=int))
    Z_full[:4, :4], Z_full[4, 4] = kit.exact(HADAMARD4) / 2, 1
    F = Factored(kit.exact(np.eye(2, dtype=int)), kit.exact([2, 1]), Z_full[:, [0, 4, 1, 2, 3]])
    return F, kit.exact([[1, 0, 1, 2, 1], [0, 1, 0, -1, 1]])


def _not_svd_verify(impl, w):
    F, V = w
    K, r = F.A, len(F.s)
    E, G = _effective_gram(F, V)
    W = impl.least_squares_store(K, V)
    # The factors are K's SVD (orthonormal U, Z; distinct positive s: unique up to signs) and W_LS is exactly
    # the effective expansion, with rank E = r_K terms like the SVD of W_LS; were it that SVD, its singular
    # values would be the norms ||e_l||, and sum_l ||e_l||^4 would equal tr((W^T W)^2) = sum_l sigma_l^4;
    # it falls short by exactly the off-diagonal energy of the values' Gram matrix.
    factored = (exact_sq(F.U.T @ F.U, kit.eye(r, K)) == 0 and exact_sq(F.Z.T @ F.Z, kit.eye(r, K)) == 0
                and all(F.s[i] > F.s[i + 1] for i in range(r - 1)) and F.s[-1] > 0)
    expansion = exact_sq(W, E @ F.U.T) == 0 and exact_sq(W @ F.U, E) == 0
    norms4 = sum(np.diagonal(G) ** 2)  # sum_l ||e_l||^4
    off = kit.sq(G) - norms4  # the off-diagonal energy of the Gram matrix
    sigma4 = kit.sq(W.T @ W)  # sum_l sigma_l^4 = tr((W^T W)^2)
    holds = factored and kit.unit_columns(K) and expansion and off > 0 and sigma4 - norms4 == off and kit.rank(E) == r
    return holds, sigma4 - norms4, {"K": K, "U": F.U, "s": F.s, "Z": F.Z, "V": V, "effective values": E,
                                    "Gram of effective values": G}


# --- ls.ranks-differ ------------------------------------------------------------------------


def _ranks_example() -> tuple[np.ndarray, np.ndarray]:
    """Unit keys [e1, e1, e2] with opposite values at the repeated key: least
    squares averages them to zero, so the store keeps one direction of two.
    Smallest case that rules out the trivial reasons: r_K = 2 needs d >= 2,
    p >= d and rank V >= 2, and M = r_K would give W_LS K = V, rank W_LS >= 2."""
    return kit.exact([[1, 1, 0], [0, 0, 1]]), kit.exact([[1, -1, 0], [0, 0, 1]])


def _ranks_verify(impl, w):
    K, V = w
    W = impl.least_squares_store(K, V)
    rK, rW = impl.numerical_rank(K), impl.numerical_rank(W)
    exact = {"r_K": kit.rank(K), "r_W": kit.rank(W), "rank V": kit.rank(V)}
    ranks_right = rK == exact["r_K"] and rW == exact["r_W"]
    # Not explained by the shapes (p >= d, M >= d), by poor values or by an empty store.
    nontrivial = min(V.shape[0], K.shape[1]) >= K.shape[0] and exact["rank V"] >= rK and any(e != 0 for e in W.ravel())
    holds = _is_least_squares(W, K, V) and ranks_right and nontrivial and rK != rW
    return holds, rK - rW, {"K": K, "V": V, "W_LS": W, **exact}


# --- ls.independent-keys-exact ------------------------------------------------------------------


def _independent(impl, K, V):
    M = K.shape[1]
    P, _ = impl.projectors(K)
    return [(impl.numerical_rank(K), M), (P, kit.eye(M, K)), (impl.least_squares_store(K, V) @ K, V)]


# --- ls.total-error-le-op ------------------------------------------------------------------------


def _le_op(impl, K, V):
    """Exactly the split ||W_OP K - V||^2 = ||W_LS K - V||^2 + ||(W_OP - W_LS) K||^2
    (W_LS K = VP is the projection); in floats the bound itself."""
    W_op, W_ls = impl.outer_product_store(K, V), impl.least_squares_store(K, V)
    if kit.is_exact(K):
        return [(sq(W_op @ K - V), sq(W_ls @ K - V) + sq((W_op - W_ls) @ K))]
    return [at_most(sq(W_ls @ K - V), sq(W_op @ K - V))]


def _le_op_precise_cases(ctx):
    """The boundary (orthonormal keys: the stores coincide), a hair off it,
    and the ill-conditioned, rank-deficient and duplicated ladder keys."""
    rng = ctx.rng("le-op-precise")
    O = ensembles.rational_orthogonal(5, rng=rng)
    hair = O[:, :3] + Fraction(1, 10**30) * kit.exact(rng.integers(-1, 2, size=(5, 3)))
    boundary = [("orthonormal keys, 5x3 (equality)", O[:, :3]), ("orthonormal keys, 5x5 (equality)", O),
                ("orthonormal keys moved 1e-30", hair)]
    keys = boundary + precise_keys(ctx) + precise_keys(ctx, unit=True)
    return [(label, (K, precise_values(K, ctx))) for label, K in keys]


@st.composite
def _near_orthonormal_cases(draw):
    """Keys at or near the boundary: orthonormal columns (M <= d) moved by t."""
    d = draw(st.integers(1, 8))
    M, p = draw(st.integers(1, d)), draw(st.integers(1, 8))
    t = draw(st.sampled_from((0.0, 1e-12, 1e-6, 1e-2)))
    rng = np.random.default_rng(draw(rng_seeds()))
    K = ensembles.controlled_spectrum(d, M, cond=1.0, rng=rng) + t * rng.standard_normal((d, M))
    return Case((K, ensembles.gaussian_vectors(p, M, rng=rng)), {"d": d, "M": M, "p": p, "t": t})


LE_OP = Inputs(
    ("K", "V"), st.one_of(keys_and_values().exact, keys_and_values(unit=True).exact), _le_op_precise_cases,
    st.one_of(keys_and_values().floats, keys_and_values(unit=True).floats, _near_orthonormal_cases()),
    "orthonormal keys (equality), 1e-30 and 1e-12 off them, ill-conditioned, duplicated and unit keys")


# --- ls.per-key-not-dominant -----------------------------------------------------------------------


def _nonparallel(K) -> bool:
    """No two keys equal or opposite (so the witness is not a duplicate trick)."""
    cols = [tuple(K[:, j]) for j in range(K.shape[1])]
    return len(set(cols)) == len(cols) and not set(cols) & {tuple(-x for x in c) for c in cols}


def _per_key_gain(impl, K, V):
    """Largest per-key advantage of OP over LS: max_j (e_LS,j - e_OP,j)."""
    return max(a - b for a, b in zip(*_ls_op_errors(impl, K, V)))


def _per_key_verify(impl, w):
    K, V = w
    ls, op = _ls_op_errors(impl, K, V)
    gain = max(a - b for a, b in zip(ls, op))
    ls_true = _is_least_squares(impl.least_squares_store(K, V), K, V)
    return kit.unit_columns(K) and ls_true and _nonparallel(K) and gain > 0, gain, {
        "K": K, "V": V, "LS error per key": ls, "OP error per key": op, "LS total": sum(ls), "OP total": sum(op)}


CLAIMS = [
    inequality(
        "ls.pseudoinverse-minimizer",
        title="V K^+ minimises the recall error, with the smallest norm among minimisers",
        statement=(r"W_{\mathrm{LS}} = VK^{+} \in \arg\min_W \|WK - V\|_F,\quad "
                   r"\|W_{\mathrm{LS}}\|_F \le \|W\|_F \text{ for every minimiser } W"),
        source="000, App. C",
        assumptions=("K any real d x M matrix", "V any real p x M matrix"),
        depends_on=("proj.coefficient-projector",),
        inputs=PERTURBED, terms=_minimizer, falls=False,  # the operands include W_LS, ||W_LS||^2 ~ cond^2:
        scale=lambda K, V, B, t: kit.scale(K) * (1 + sq(V) + sq(V @ linmem.pinv(K))) * (1 + sq(B)),
        control=wrong("least-squares store built as V K^T", least_squares_store=linmem.outer_product_store),
    ),
    counterexample(
        "op.not-least-squares",
        title="The outer-product store does not minimise the total recall error in general",
        statement=r"\exists K, V:\ \|W_{\mathrm{OP}}K - V\|_F > \|W_{\mathrm{LS}}K - V\|_F",
        source="000, 'Two ways to construct the memory matrix'",
        assumptions=("unit keys",),
        depends_on=("ls.pseudoinverse-minimizer",),
        search=SMALL_UNIT_PAIRS, found=lambda impl, c: _op_gap(impl, *c) > 0, verify=_not_ls_verify,
        describe=lambda w: {"K": w[0], "V": w[1]},
        about="minimal witness found by search, gap verified in exact arithmetic",
        how="found by a Hypothesis search over exactly-unit rational keys, shrunk",
        control=wrong("outer-product store built as V K^+", outer_product_store=linmem.least_squares_store),
    ),
    identity(
        "ls.residual-split",
        title="The recall error splits into a part W controls and a floor it cannot touch",
        statement=(r"\|WK - V\|_F^2 = \|W U_K \Sigma_K - V Z_K\|_F^2 + \|V(I_M - P)\|_F^2"
                   r"\quad\text{for every } W \in \mathbb{R}^{p\times d}"),
        source="000, App. C",
        assumptions=("K any real d x M matrix (any rank) with compact SVD U_K S_K Z_K^T",
                     "V any real p x M matrix, W any real p x d matrix"),
        depends_on=("proj.coefficient-projector",),
        inputs=SPLIT, terms=_residual_split,  # every term a squared norm of at most (||W|| ||K|| + ||V||)^2:
        scale=lambda K, V, W, F: max(K.shape) * (1 + norm(W) * norm(K) + norm(V)) ** 2,
        extra_checks=(exact_check("exact-keys", exact=_with_operand(None), terms=_residual_split, names=SPLIT.names,
                                  about="the SVD-free form ||WK-V||^2 = ||(WK-V)P||^2 + ||V(I-P)||^2 on integer "
                                  "keys, duplicated and dependent columns"),),
        control=wrong("P = K^T K (the Gram matrix, a projector only for orthonormal keys)", projectors=gram_projectors),
    ),
    identity(
        "ls.all-minimizers",
        title="Every minimiser is V Z S^-1 U^T plus a free action off col(K), and the norms add",
        statement=(r"\arg\min_W \|WK - V\|_F = \{V Z_K \Sigma_K^{-1} U_K^{\top} + B(I_d - Q) : "
                   r"B \in \mathbb{R}^{p\times d}\},\quad "
                   r"\|V Z_K \Sigma_K^{-1} U_K^{\top} + B(I_d - Q)\|_F^2 = "
                   r"\|V Z_K \Sigma_K^{-1} U_K^{\top}\|_F^2 + \|B(I_d - Q)\|_F^2"),
        source="000, App. C",
        assumptions=("K any real d x M matrix (any rank) with compact SVD U_K S_K Z_K^T",
                     "V any real p x M matrix, B any real p x d matrix"),
        depends_on=("ls.residual-split", "ls.pseudoinverse-minimizer", "proj.input-projector"),
        inputs=factored_keys_and_values(operands=("B", "W")), terms=_all_minimisers, scale=lambda *args: 1,
        control=wrong("Q = K K^T (the Gram matrix in place of the input projector)", projectors=gram_input_projector),
    ),
    identity(
        "ls.svd-forms",
        title="Both stores in the key SVD: the same directions, gains s_l versus 1/s_l",
        statement=(r"W_{\mathrm{OP}} = V Z_K \Sigma_K U_K^{\top},\qquad "
                   r"W_{\mathrm{LS}} = V Z_K \Sigma_K^{-1} U_K^{\top}"),
        source="000, 'Two ways to construct the memory matrix'",
        assumptions=("K any real d x M matrix (any rank) with compact SVD U_K S_K Z_K^T",
                     "V any real p x M matrix"),
        depends_on=("op.sum-of-outer-products",),
        inputs=FACTORED, terms=_svd_forms, scale=lambda *args: 1,
        control=wrong("the two stores swapped (V K^+ as OP, V K^T as LS)", **swapped_stores()),
    ),
    identity(
        "ls.effective-pairs",
        title="The least-squares store holds the effective pairs (V z_l / s_l, u_l)",
        statement=(r"W_{\mathrm{LS}} = \sum_{\ell=1}^{r_K} \frac{V z_{K,\ell}}{\sigma_{K,\ell}}\, "
                   r"u_{K,\ell}^{\top},\qquad "
                   r"W_{\mathrm{LS}}\, u_{K,\ell} = \frac{V z_{K,\ell}}{\sigma_{K,\ell}}"),
        source="000, 'Two ways to construct the memory matrix'",
        assumptions=("K any real d x M matrix (any rank) with compact SVD U_K S_K Z_K^T",
                     "V any real p x M matrix"),
        depends_on=("ls.svd-forms",),
        inputs=FACTORED, terms=_effective, scale=lambda *args: 1,
        control=(wrong("effective values V z_l s_l (the gain not inverted)", effective_pairs=_gain_not_inverted),
                 wrong("least-squares store built as V K^T", aimed_at=("exact",),
                       least_squares_store=linmem.outer_product_store)),
    ),
    counterexample(
        "ls.effective-not-svd",
        title="The effective values need not be orthogonal, so the expansion need not be the SVD of W_LS",
        statement=(r"\exists K, V:\ (V z_{K,\ell})^{\top} (V z_{K,m}) \ne 0 \text{ for some } \ell \ne m,"
                   r"\ \text{so } \textstyle\sum_\ell \frac{V z_{K,\ell}}{\sigma_{K,\ell}} u_{K,\ell}^{\top}"
                   r"\text{ is not an SVD of } W_{\mathrm{LS}}"),
        source="000, 'Two ways to construct the memory matrix'",
        assumptions=("unit keys", "distinct singular values of K, so its SVD (and the expansion) is unique "
                     "up to signs", "the witness has rank E = r_K: the expansion has as many terms as the "
                     "SVD of W_LS, so only orthogonality is at stake"),
        depends_on=("ls.effective-pairs",),
        witness=lambda ctx: _not_svd_example(), verify=_not_svd_verify,
        about="constructed witness; expansion, Gram matrix and sum of sigma^4 exact",
        how="constructed: unit keys [e1, e1, e1, e1, e2], whose SVD is rational",
        control=wrong("least-squares store built as V K^T", least_squares_store=linmem.outer_product_store),
    ),
    counterexample(
        "ls.ranks-differ",
        title="The rank of the least-squares store need not equal the rank of the keys",
        statement=(r"\exists K, V \text{ with } M \ge d,\ p \ge d,\ \operatorname{rank} V \ge r_K:\ "
                   r"r_W = \operatorname{rank}(VK^{+}) \ne r_K"),
        source="000, 'Two ways to construct the memory matrix'; App. A",
        assumptions=("unit keys", "the witness's shapes (M >= d, p >= d) and values (rank V >= r_K, "
                     "W_LS != 0) rule out the trivial reasons for a gap"),
        depends_on=("ls.svd-forms",),
        witness=lambda ctx: _ranks_example(), verify=_ranks_verify,
        about="constructed witness of the smallest shape; W_LS checked against its definition, ranks exact",
        how="constructed: unit keys [e1, e1, e2], opposite values at the repeated key",
        control=wrong("rank read off the shape, min(m, n) (full rank assumed)",
                      numerical_rank=lambda A: min(np.shape(A))),
    ),
    identity(
        "ls.independent-keys-exact",
        title="Linearly independent keys are fitted exactly: r_K = M, P = I_M, W_LS K = V",
        statement=(r"\operatorname{rank} K = M \le d \implies r_K = M,\quad P = I_M,\quad "
                   r"W_{\mathrm{LS}} K = V"),
        source="000, 'Recover Wang's capacity estimate'; App. D",
        assumptions=("the M keys are linearly independent (so M <= d); unit norm not needed",
                     "V any real p x M matrix"),
        depends_on=("proj.coefficient-projector",),
        inputs=independent_keys_and_values(), terms=_independent,
        control=wrong("K^+ taken as K^T (keys treated as orthonormal) in the store and P",
                      least_squares_store=linmem.outer_product_store, projectors=gram_projectors),
    ),
    inequality(
        "ls.total-error-le-op",
        title="The least-squares store never has a larger total recall error than the outer-product store",
        statement=r"\|W_{\mathrm{LS}}K - V\|_F \le \|W_{\mathrm{OP}}K - V\|_F\quad\text{for every } K, V",
        source="ours (follows from the optimality of W_LS, 000 App. C)",
        assumptions=("K any real d x M matrix (unit keys not needed)", "V any real p x M matrix"),
        depends_on=("ls.pseudoinverse-minimizer",),
        inputs=LE_OP, terms=_le_op, falls=False,  # errors up to ||V|| (1 + ||K||^2), squared; K^+ adds cond:
        scale=lambda K, V: kit.scale(K) * ((1 + norm(V)) * (1 + norm(K) ** 2)) ** 2,
        control=wrong("the two stores swapped (V K^+ as OP, V K^T as LS)", **swapped_stores()),
    ),
    counterexample(
        "ls.per-key-not-dominant",
        title="Some key can be recalled better by the outer-product store than by least squares",
        statement=(r"\exists K \text{ (unit keys)}, V, j:\ \|W_{\mathrm{OP}}k_j - v_j\| < "
                   r"\|W_{\mathrm{LS}}k_j - v_j\|"),
        source="000, 'Recover Wang's capacity estimate'",
        assumptions=("unit keys, no two equal or opposite",),
        depends_on=("ls.total-error-le-op",),
        search=SMALL_UNIT_PAIRS, found=lambda impl, c: _nonparallel(c[0]) and _per_key_gain(impl, *c) > 0,
        verify=_per_key_verify,
        about="minimal witness found by search; W_LS checked against its definition, errors exact",
        how="found by a Hypothesis search over exactly-unit rational keys, no two equal or opposite, shrunk",
        control=wrong("least-squares store built as V K^T", least_squares_store=linmem.outer_product_store),
    ),
]
