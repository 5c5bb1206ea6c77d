"""The outer-product store, built one pair at a time (000, "Two ways to
construct the memory matrix", App. B).

For one pair the smallest matrix (Frobenius norm) with ``A k = v`` is
``v k^T / ||k||^2``: every other solution adds a part ``B`` with ``B k = 0``
that is Frobenius-orthogonal to it. Summing these matrices over unit keys
gives ``W_OP = V K^T``, whose recall at a stored key is the wanted value plus
cross-talk weighted by the key overlaps ``k_i^T k_j``; orthonormal keys
remove the cross-talk.

Every feasible matrix for a pair is ``A = C + (v - C k) k^T / ||k||^2`` for
some ``C`` (take ``C = A``), so drawing ``C`` freely explores all of them.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
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
    exact_unit_key_matrices,
    exact_value_matrices,
    float_key_cases,
    unit_key_cases,
)
from theorems.tolerance import norm, scaled_residual

__all__ = ["CLAIMS"]

#: Decimal exponents of the entry magnitudes mixed into float single-pair
#: keys, so that one key spans up to twelve orders of magnitude.
KEY_EXPONENTS = (-12, -6, 0)

#: Lengths of the float non-unit keys.
KEY_LENGTHS = (1e-8, 3.0, 1e8)

#: Overall magnitudes of float values (the identities are scale-free).
VALUE_MAGNITUDES = (1e-8, 1.0, 1e8)


def _fractions(values) -> np.ndarray:
    return np.vectorize(Fraction, otypes=[object])(np.asarray(values))


def _sq(A):
    return np.sum(A * A)


# --- one pair: inputs --------------------------------------------------------------


@st.composite
def _exact_pairs(draw, *, unit: bool, max_dim: int = 4):
    """(k, v, C): an exactly unit rational key, or a nonzero rational key of
    any length; an integer value; an integer C fixing one feasible matrix."""
    d = draw(st.integers(1, max_dim))
    p = draw(st.integers(1, 3))
    if unit:
        seed = draw(st.integers(0, 2**32 - 1))
        k = ensembles.rational_unit_vectors(d, 1, rng=np.random.default_rng(seed), scale=3)[:, 0]
    else:
        entries = draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d).filter(any))
        k = _fractions(entries) / draw(st.integers(1, 3))
    v = _fractions(draw(st.lists(st.integers(-3, 3), min_size=p, max_size=p)))
    C = _fractions(draw(st.lists(st.integers(-3, 3), min_size=p * d, max_size=p * d))).reshape(p, d)
    return k, v, C


def _stereographic(t) -> np.ndarray:
    """Exactly unit vector in R^(len(t)+1) from rational coordinates ``t``."""
    n2 = sum(x * x for x in t)
    return np.array([2 * x / (1 + n2) for x in t] + [(1 - n2) / (1 + n2)], dtype=object)


def _precise_pair_cases(ctx, *, unit: bool) -> list[tuple[str, tuple]]:
    """Exact single pairs for the ladder: keys whose entries span 20 orders of
    magnitude (or whose length is 1e20 or 1e-20), values spanning 30."""
    rng = ctx.rng("pair-precise")
    big, small = Fraction(10**10), Fraction(1, 10**10)
    if unit:
        keys = [
            ("unit key with entries from 1 down to about 1e-20, d = 3",
             _stereographic([big, Fraction(1, 3)])),
            ("unit key near a coordinate axis (other entries about 1e-10), d = 5",
             _stereographic([small, -small, small / 7, small])),
            ("random rational unit key, d = 4", ensembles.rational_unit_vectors(4, 1, rng=rng, scale=3)[:, 0]),
            ("d = 1, k = -1", _fractions([-1])),
        ]
    else:
        # a positive last entry keeps every key nonzero
        nonzero = np.concatenate([rng.integers(-3, 4, 3), rng.integers(1, 4, 1)])
        keys = [
            ("key of length about 1e20, d = 4", _fractions(nonzero) * 10**20),
            ("key of length about 1e-20, d = 4", _fractions(nonzero) / 10**20),
            ("key with entries 1e10 and 1e-10, d = 2", _fractions([10**10, 0]) + _fractions([0, 1]) / 10**10),
            ("d = 1, k = 7/3", _fractions([7]) / 3),
        ]
    cases = []
    for i in range(max(3, ctx.profile.precise_cases)):
        label, k = keys[i % len(keys)]
        p = 1 + i % 3
        v = _fractions(rng.integers(-3, 4, p)) * _fractions([10**15, 1, Fraction(1, 10**15)][:p])
        v[0] += 1  # never the zero value
        C = _fractions(rng.integers(-3, 4, (p, len(k))))
        cases.append((f"{label}, p = {p}", (k, v, C)))
    return cases


@st.composite
def _float_pairs(draw, *, unit: bool, max_dim: int = 8):
    """(recipe, k, v, C) in float64: Gaussian key, optionally with entries
    over twelve orders of magnitude, then normalised (unit) or given a length
    1e-8, 1 or 1e8; value of magnitude 1e-8, 1 or 1e8; Gaussian C."""
    d = draw(st.integers(1, max_dim))
    p = draw(st.integers(1, max_dim))
    seed = draw(st.integers(0, 2**32 - 1))
    spread = draw(st.booleans())
    magnitude = draw(st.sampled_from(VALUE_MAGNITUDES))
    length = 1.0 if unit else draw(st.sampled_from(KEY_LENGTHS))
    rng = np.random.default_rng(seed)
    k = rng.standard_normal(d)
    if spread:
        k *= 10.0 ** rng.choice(KEY_EXPONENTS, size=d)
    k *= length / np.linalg.norm(k)
    recipe = {"d": d, "p": p, "seed": seed, "spread": spread, "magnitude": magnitude, "length": length}
    return recipe, k, magnitude * rng.standard_normal(p), rng.standard_normal((p, d))


# --- one pair: residuals -----------------------------------------------------------


def _pinv_row(k) -> np.ndarray:
    """``k^+`` (1 x d) by linmem's reference pseudoinverse, not by the formula under test."""
    return linmem.pinv(k.reshape(-1, 1))[0]


def _pair_parts(impl, k, v, C, *, unit: bool):
    """``(A0, A, B, formula, reference)`` for one pair in any number system,
    or None when the store has the wrong shape: ``A0`` from the formula under
    test, ``A = C + (v - C k) k^T / ||k||^2`` a feasible matrix, ``B = A - A0``,
    the claimed closed form, and the Moore-Penrose solution ``v k^+``."""
    A0 = impl.single_pair_store(k, v)
    if np.shape(A0) != (len(v), len(k)):
        return None
    nk2 = np.sum(k * k)
    A = C + np.outer(v - C @ k, k) / nk2
    formula = np.outer(v, k) if unit else np.outer(v, k) / nk2
    return A0, A, A - A0, formula, np.outer(v, _pinv_row(k))


def _pair_exact_residual(impl, k, v, C, *, unit: bool):
    parts = _pair_parts(impl, k, v, C, unit=unit)
    if parts is None:
        return float("inf")
    A0, A, B, formula, reference = parts
    zero = np.zeros(len(v), dtype=int)
    return (
        exact_sq(A0, formula)
        + exact_sq(A0 @ k, v)  # A0 is feasible
        + exact_sq(A0, reference)  # and is the Moore-Penrose solution v k^+
        + exact_sq(A @ k, v)
        + exact_sq(B @ k, zero)  # every feasible A is A0 + B with B k = 0
        + np.sum(A0 * B) ** 2  # <A0, B>_F = 0
        + (_sq(A) - _sq(A0) - _sq(B)) ** 2  # hence ||A||^2 = ||A0||^2 + ||B||^2 >= ||A0||^2
    )


def _relative(err, scale):
    return 0 * err if err == 0 else err / scale


def _pair_terms(impl, k, v, C, *, unit: bool) -> list:
    """The residuals of :func:`_pair_exact_residual` in float or mpmath, each
    divided by the size of what it compares."""
    parts = _pair_parts(impl, k, v, C, unit=unit)
    if parts is None:
        return [float("inf")]
    A0, A, B, formula, reference = parts
    nk, nv, nA, nA0, nB = norm(k), norm(v), norm(A), norm(A0), norm(B)
    n_formula = nv * nk if unit else nv / nk
    # A is formed from C with cancellation, so its rounding error scales with ||C||.
    operands = nA + nA0 + norm(C)
    return [
        _relative(diff_norm(A0, formula), n_formula),
        _relative(diff_norm(A0 @ k, v), nv),
        _relative(diff_norm(A0, reference), n_formula),
        _relative(diff_norm(B @ k, 0 * v), operands * nk),
        _relative(abs(np.sum(A0 * B)), nA0 * operands),
        _relative(abs(nA**2 - nA0**2 - nB**2), operands**2),
    ]


def _pair_exact(ctx, *, unit: bool):
    def residual(case):
        return _pair_exact_residual(ctx.impl, *case, unit=unit)

    return symbolic.check_exact(ctx, _exact_pairs(unit=unit), residual,
                                describe=lambda c: {"k": c[0], "v": c[1], "C": c[2]})


def _pair_precise(ctx, *, unit: bool):
    def residual(case):
        k, v, C = (mp_array(x) for x in case)
        return max(_pair_terms(ctx.impl, k, v, C, unit=unit)), len(k) + len(v)

    return precise.check(ctx, _precise_pair_cases(ctx, unit=unit), residual)


def _pair_property(ctx, *, unit: bool):
    def measure(case):
        _, k, v, C = case
        err = max(float(x) for x in _pair_terms(ctx.impl, k, v, C, unit=unit))
        return scaled_residual(err, scale=len(k) + len(v))

    return prop.check(ctx, _float_pairs(unit=unit), measure, describe=lambda c: c[0])


def _unit_pair_exact(ctx):
    return _pair_exact(ctx, unit=True)


def _unit_pair_precise(ctx):
    return _pair_precise(ctx, unit=True)


def _unit_pair_property(ctx):
    return _pair_property(ctx, unit=True)


def _nonunit_pair_exact(ctx):
    return _pair_exact(ctx, unit=False)


def _nonunit_pair_precise(ctx):
    return _pair_precise(ctx, unit=False)


def _nonunit_pair_property(ctx):
    return _pair_property(ctx, unit=False)


# --- op.sum-of-outer-products ------------------------------------------------------


def _outer_sum(K, V):
    """``sum_i v_i k_i^T``, one outer product at a time (the reference)."""
    total = np.outer(V[:, 0], K[:, 0])
    for i in range(1, K.shape[1]):
        total = total + np.outer(V[:, i], K[:, i])
    return total


def _single_pair_sum(impl, K, V):
    total = impl.single_pair_store(K[:, 0], V[:, 0])
    for i in range(1, K.shape[1]):
        total = total + impl.single_pair_store(K[:, i], V[:, i])
    return total


@st.composite
def _exact_keys_values(draw):
    """Integer keys of any length (duplicated, dependent), or exactly unit keys."""
    unit = draw(st.booleans())
    K = draw(exact_unit_key_matrices() if unit else exact_key_matrices())
    return K, draw(exact_value_matrices(K.shape[1])), unit


def _outer_sum_exact(ctx):
    def residual(case):
        K, V, unit = case
        W = ctx.impl.outer_product_store(K, V)
        total = exact_sq(W, _outer_sum(K, V))
        if unit:  # adding the single-pair minimum-norm solutions gives the same matrix
            total += exact_sq(W, _single_pair_sum(ctx.impl, K, V))
        return total

    return symbolic.check_exact(ctx, _exact_keys_values(), residual,
                                describe=lambda c: {"K": c[0], "V": c[1], "unit": c[2]})


def _outer_sum_terms(impl, K, V, unit):
    W = impl.outer_product_store(K, V)
    errs = [diff_norm(W, _outer_sum(K, V))]
    if unit:
        errs.append(diff_norm(W, _single_pair_sum(impl, K, V)))
    return max(errs), K.shape[1] * (1 + norm(V)) * (1 + norm(K))


def _outer_sum_precise(ctx):
    cases = [(f"{label}", (K, precise_values(K, ctx), False)) for label, K in precise_key_cases(ctx)]
    cases += [(f"{label}", (K, precise_values(K, ctx), True)) for label, K in precise_key_cases(ctx, unit=True)]

    def residual(case):
        K, V, unit = case
        return _outer_sum_terms(ctx.impl, mp_array(K), mp_array(V), unit)

    return precise.check(ctx, cases, residual)


def _outer_sum_property(ctx):
    def measure(case: KeyCase):
        err, scale = _outer_sum_terms(ctx.impl, case.K, case.V, case.unit)
        return scaled_residual(err, scale=scale)

    return prop.check(ctx, st.one_of(float_key_cases(), unit_key_cases()), measure, describe=KeyCase.describe)


# --- op.crosstalk-expansion --------------------------------------------------------------


def _crosstalk_reference(K, V):
    """``sum_{i != j} (k_i^T k_j) v_i`` for every j, term by term."""
    M = K.shape[1]
    cols = []
    for j in range(M):
        col = 0 * V[:, j]
        for i in range(M):
            if i != j:
                col = col + np.dot(K[:, i], K[:, j]) * V[:, i]
        cols.append(col)
    return np.stack(cols, axis=1)


def _crosstalk_exact(ctx):
    @st.composite
    def inputs(draw):
        K = draw(exact_unit_key_matrices())
        return K, draw(exact_value_matrices(K.shape[1]))

    def residual(case):
        K, V = case
        X = _crosstalk_reference(K, V)
        signal, crosstalk = ctx.impl.op_recall_decomposition(K, V)
        return (
            exact_sq(ctx.impl.outer_product_store(K, V) @ K, V + X)
            + exact_sq(signal, V)
            + exact_sq(crosstalk, X)
        )

    return symbolic.check_exact(ctx, inputs(), residual, describe=lambda c: {"K": c[0], "V": c[1]})


def _crosstalk_terms(impl, K, V):
    X = _crosstalk_reference(K, V)
    signal, crosstalk = impl.op_recall_decomposition(K, V)
    err = max(
        diff_norm(impl.outer_product_store(K, V) @ K, V + X),
        diff_norm(signal, V),
        diff_norm(crosstalk, X),
    )
    return err, K.shape[1] * (1 + norm(V)) * (1 + norm(K)) ** 2


def _crosstalk_precise(ctx):
    cases = [(label, (K, precise_values(K, ctx))) for label, K in precise_key_cases(ctx, unit=True)]

    def residual(case):
        return _crosstalk_terms(ctx.impl, *(mp_array(x) for x in case))

    return precise.check(ctx, cases, residual)


def _crosstalk_property(ctx):
    def measure(case: KeyCase):
        err, scale = _crosstalk_terms(ctx.impl, case.K, case.V)
        return scaled_residual(err, scale=scale)

    return prop.check(ctx, unit_key_cases(), measure, describe=KeyCase.describe)


# --- op.orthonormal-keys-exact ---------------------------------------------------------------


@st.composite
def _exact_orthonormal(draw, *, max_dim: int = 5):
    """M <= d exactly orthonormal rational keys (columns of a Cayley
    transform), integer values."""
    d = draw(st.integers(1, max_dim))
    M = draw(st.integers(1, d))
    seed = draw(st.integers(0, 2**32 - 1))
    K = ensembles.rational_orthogonal(d, rng=np.random.default_rng(seed))[:, :M]
    return K, draw(exact_value_matrices(M))


def _orthonormal_exact(ctx):
    def residual(case):
        K, V = case
        M = K.shape[1]
        _, crosstalk = ctx.impl.op_recall_decomposition(K, V)
        return (
            exact_sq(K.T @ K, np.eye(M, dtype=int))  # the hypothesis, exactly
            + exact_sq(ctx.impl.outer_product_store(K, V) @ K, V)
            + exact_sq(crosstalk, np.zeros(V.shape, dtype=int))
        )

    return symbolic.check_exact(ctx, _exact_orthonormal(), residual,
                                describe=lambda c: {"K": c[0], "V": c[1]})


def _orthonormal_terms(impl, K, V):
    _, crosstalk = impl.op_recall_decomposition(K, V)
    err = max(diff_norm(impl.outer_product_store(K, V) @ K, V), diff_norm(crosstalk, 0 * V))
    return err, K.shape[1] * (1 + norm(V))


#: Ladder shapes (d, M), M <= d, including M = d and a single key.
_ORTHONORMAL_SHAPES = ((5, 5), (6, 3), (4, 1), (3, 2), (6, 6), (2, 1))


def _orthonormal_precise(ctx):
    rng = ctx.rng("orthonormal-precise")
    cases = []
    for i in range(max(3, ctx.profile.precise_cases)):
        d, M = _ORTHONORMAL_SHAPES[i % len(_ORTHONORMAL_SHAPES)]
        K = ensembles.rational_orthogonal(d, rng=rng)[:, :M]
        p = 1 + (i + 1) % 4
        # values spanning 40 orders of magnitude
        V = _fractions(rng.integers(-3, 4, (p, M))) + _fractions(rng.integers(1, 4, (p, M))) / 10**20
        V[0] *= 10**20
        cases.append((f"exactly orthonormal keys, d = {d}, M = {M}, p = {p}", (K, V)))

    def residual(case):
        return _orthonormal_terms(ctx.impl, *(mp_array(x) for x in case))

    return precise.check(ctx, cases, residual)


def _orthonormal_property(ctx):
    @st.composite
    def cases(draw):
        d = draw(st.integers(1, 8))
        M = draw(st.integers(1, d))
        p = draw(st.integers(1, 8))
        seed = draw(st.integers(0, 2**32 - 1))
        rng = np.random.default_rng(seed)
        K = np.linalg.qr(rng.standard_normal((d, M)))[0]
        return {"d": d, "M": M, "p": p, "seed": seed}, K, rng.standard_normal((p, M))

    def measure(case):
        _, K, V = case
        err, scale = _orthonormal_terms(ctx.impl, K, V)
        return scaled_residual(err, scale=scale)

    return prop.check(ctx, cases(), measure, describe=lambda c: c[0])


# --- wrong variants for the negative controls -----------------------------------------------


def _one_coordinate_solution(k, v):
    """A feasible but not minimal solution: put all of v on k's largest coordinate."""
    m = max(range(len(k)), key=lambda i: abs(k[i]))
    e = 0 * np.asarray(k)
    e[m] = 1
    return np.outer(v, e) / k[m]


def _denominator_dropped(k, v):
    return np.outer(v, k)


def _normalised_outer_sum(K, V):
    return V @ (K / np.sum(K * K, axis=0)).T


def _self_term_kept(K, V):
    return V.copy(), V @ (K.T @ K)


def _transposed_store(K, V):
    return K @ V.T


_PAIR_ASSUMPTIONS = ("k in R^d, v in R^p (p and d independent)", "A ranges over all p x d matrices with A k = v")

CLAIMS = [
    Claim(
        id="op.single-pair-min-norm",
        title="For a unit key, v k^T is the unique minimum-norm matrix sending k to v",
        statement=(r"\|k\| = 1:\ A_0 = vk^{\top},\ A_0 k = v;\ \forall A: Ak = v \Rightarrow "
                   r"A = A_0 + B,\ Bk = 0,\ \langle A_0, B\rangle_F = 0,\ "
                   r"\|A\|_F^2 = \|A_0\|_F^2 + \|B\|_F^2"),
        kind=ClaimKind.IDENTITY,
        source="000, App. B",
        assumptions=("k a unit vector",) + _PAIR_ASSUMPTIONS,
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _unit_pair_exact,
                  "exact rationals: exactly unit keys, every feasible A, the Pythagorean split"),
            Check("ladder", EvidenceKind.PRECISE, _unit_pair_precise,
                  "mpmath ladder: key entries over 20 orders of magnitude, values over 30"),
            Check("float", EvidenceKind.PROPERTY, _unit_pair_property,
                  "float64: keys with entries over 12 orders of magnitude, p != d"),
        ),
        negative_control=NegativeControl(
            "a feasible but not minimal solution: v e_m^T / k_m on the largest coordinate m",
            {"single_pair_store": _one_coordinate_solution},
        ),
    ),
    Claim(
        id="op.single-pair-nonunit",
        title="For a nonzero key of any length the minimum-norm solution is v k^T / ||k||^2",
        statement=(r"k \ne 0:\ A_0 = \frac{vk^{\top}}{\|k\|^2} = vk^{+} = "
                   r"\arg\min\{\|A\|_F : Ak = v\},\ \|A\|_F^2 = \|A_0\|_F^2 + \|A - A_0\|_F^2"),
        kind=ClaimKind.IDENTITY,
        source="000, App. B",
        assumptions=("k any nonzero vector (unit or not)",) + _PAIR_ASSUMPTIONS,
        depends_on=("op.single-pair-min-norm",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _nonunit_pair_exact,
                  "exact rationals: rational keys of any length, every feasible A"),
            Check("ladder", EvidenceKind.PRECISE, _nonunit_pair_precise,
                  "mpmath ladder: key lengths 1e20 and 1e-20, entries 1e10 and 1e-10"),
            Check("float", EvidenceKind.PROPERTY, _nonunit_pair_property,
                  "float64: key lengths 1e-8 to 1e8, entries over 12 orders of magnitude"),
        ),
        negative_control=NegativeControl("v k^T (the unit-key formula) for a key of any length",
                                         {"single_pair_store": _denominator_dropped}),
    ),
    Claim(
        id="op.sum-of-outer-products",
        title="The outer-product store is the sum of the pairs' outer products, V K^T",
        statement=(r"W_{\mathrm{OP}} = \sum_{i=1}^{M} v_i k_i^{\top} = VK^{\top},\ "
                   r"\text{and for unit keys } W_{\mathrm{OP}} = \sum_{i=1}^{M} A_i"),
        kind=ClaimKind.IDENTITY,
        source="000, 'Two ways to construct the memory matrix'; App. B",
        assumptions=("K any real d x M matrix, V any real p x M matrix",
                     "A_i the single-pair minimum-norm solutions; equal to v_i k_i^T for unit keys"),
        depends_on=("op.single-pair-min-norm",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _outer_sum_exact,
                  "exact rationals: integer and exactly unit keys, duplicated and dependent"),
            Check("ladder", EvidenceKind.PRECISE, _outer_sum_precise,
                  "mpmath ladder: condition 1e20 keys, rank-deficient, duplicated, unit and not"),
            Check("float", EvidenceKind.PROPERTY, _outer_sum_property,
                  "float64 over every key family, unit and not"),
        ),
        negative_control=NegativeControl("sum of v_i k_i^T / ||k_i||^2 (normalised outer products)",
                                         {"outer_product_store": _normalised_outer_sum}),
    ),
    Claim(
        id="op.crosstalk-expansion",
        title="Outer-product recall at a unit key is its value plus overlap-weighted cross-talk",
        statement=r"\|k_i\| = 1:\ W_{\mathrm{OP}} k_j = v_j + \sum_{i \ne j} (k_i^{\top} k_j)\, v_i",
        kind=ClaimKind.IDENTITY,
        source="000, App. B; 'Recover Wang's capacity estimate'",
        assumptions=("unit keys (duplicates allowed)", "V any real p x M matrix"),
        depends_on=("op.sum-of-outer-products",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _crosstalk_exact,
                  "exact rationals: exactly unit keys, some duplicated"),
            Check("ladder", EvidenceKind.PRECISE, _crosstalk_precise,
                  "mpmath ladder: unit keys with condition about 1e15, duplicated"),
            Check("float", EvidenceKind.PROPERTY, _crosstalk_property,
                  "float64 over every key family, normalised"),
        ),
        negative_control=NegativeControl("cross-talk summed over all i, the self term k_j^T k_j v_j kept",
                                         {"op_recall_decomposition": _self_term_kept}),
    ),
    Claim(
        id="op.orthonormal-keys-exact",
        title="With orthonormal keys the outer-product store recalls every value exactly",
        statement=(r"K^{\top}K = I_M \ (M \le d):\quad W_{\mathrm{OP}} k_j = v_j\ \ \forall j,"
                   r"\ \text{i.e. } W_{\mathrm{OP}}K = V"),
        kind=ClaimKind.IDENTITY,
        source="000, App. B",
        assumptions=("orthonormal keys, hence M <= d", "V any real p x M matrix"),
        depends_on=("op.crosstalk-expansion",),
        checks=(
            Check("exact", EvidenceKind.SYMBOLIC, _orthonormal_exact,
                  "exact rationals: columns of Cayley transforms, M <= d"),
            Check("ladder", EvidenceKind.PRECISE, _orthonormal_precise,
                  "mpmath ladder: M < d and M = d, values over 40 orders of magnitude"),
            Check("float", EvidenceKind.PROPERTY, _orthonormal_property,
                  "float64: Q factors of Gaussian matrices, M <= d, p != d"),
        ),
        negative_control=NegativeControl("store built as K V^T (wrong transpose)",
                                         {"outer_product_store": _transposed_store}),
    ),
]
