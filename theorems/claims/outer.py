"""The outer-product store, built one pair at a time (000, "Two ways to
construct the memory matrix", App. B): the single-pair minimum-norm solution,
the sum ``W_OP = V K^T``, its cross-talk, and orthonormal keys without it.

Every feasible matrix for a pair is ``A = C + (v - C k) k^T / ||k||^2`` for
some ``C`` (take ``C = A``), so drawing ``C`` freely explores all of them.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from theorems.authoring import kit
from theorems.authoring.strategies import Case, Inputs, exact_value_matrices, keys_and_values, rng_seeds
from theorems.authoring.templates import identity, wrong
from theorems.core.tolerance import norm

__all__ = ["CLAIMS"]

#: Decimal exponents of the entry magnitudes mixed into float single-pair
#: keys, so that one key spans up to twelve orders of magnitude.
KEY_EXPONENTS = (-12, -6, 0)

#: Lengths of the float non-unit keys.
KEY_LENGTHS = (1e-8, 3.0, 1e8)

#: Overall magnitudes of float values (the identities are scale-free).
VALUE_MAGNITUDES = (1e-8, 1.0, 1e8)


# --- one pair: every feasible A is C + (v - C k) k^T / ||k||^2 for some C --------------


@st.composite
def _exact_pairs(draw, *, unit: bool, max_dim: int = 4):
    """(k, v, C): an exactly unit rational key, or a nonzero rational key of
    any length; an integer value; an integer C fixing one feasible matrix
    (raw lists: integer_matrices maps a new strategy per draw, a third slower)."""
    d, p = draw(st.integers(1, max_dim)), draw(st.integers(1, 3))
    if unit:
        k = ensembles.rational_unit_vectors(d, 1, rng=np.random.default_rng(draw(rng_seeds())),
                                            scale=3)[:, 0]
    else:
        k = kit.exact(draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d).filter(any))) / draw(st.integers(1, 3))
    v = kit.exact(draw(st.lists(st.integers(-3, 3), min_size=p, max_size=p)))
    return k, v, kit.exact(draw(st.lists(st.integers(-3, 3), min_size=p * d, max_size=p * d))).reshape(p, d)


def _precise_pairs(ctx, *, unit: bool) -> list[tuple[str, tuple]]:
    """Keys whose entries span 20 orders of magnitude (or of length 1e20 or
    1e-20), values spanning 30."""
    rng = ctx.rng("pair-precise")
    big, small = Fraction(10**10), Fraction(1, 10**10)
    if unit:
        keys = [("unit key with entries from 1 down to about 1e-20, d = 3", kit.stereographic([big, Fraction(1, 3)])),
                ("unit key near a coordinate axis (other entries about 1e-10), d = 5",
                 kit.stereographic([small, -small, small / 7, small])),
                ("random rational unit key, d = 4", ensembles.rational_unit_vectors(4, 1, rng=rng, scale=3)[:, 0]),
                ("d = 1, k = -1", kit.exact([-1]))]
    else:
        nonzero = kit.exact(np.concatenate([rng.integers(-3, 4, 3), rng.integers(1, 4, 1)]))
        keys = [("key of length about 1e20, d = 4", nonzero * 10**20),
                ("key of length about 1e-20, d = 4", nonzero / 10**20),
                ("key with entries 1e10 and 1e-10, d = 2", kit.exact([10**10, Fraction(1, 10**10)])),
                ("d = 1, k = 7/3", kit.exact([Fraction(7, 3)]))]
    cases = []
    for i in range(max(3, ctx.profile.precise_cases)):
        label, k = keys[i % len(keys)]
        p = 1 + i % 3
        v = kit.exact(rng.integers(-3, 4, p)) * kit.exact([10**15, 1, Fraction(1, 10**15)][:p])
        v[0] += 1  # never the zero value
        cases.append((f"{label}, p = {p}", (k, v, kit.integer_array(rng, (p, len(k))))))
    return cases


@st.composite
def _float_pairs(draw, *, unit: bool, max_dim: int = 8):
    """Gaussian key, optionally with entries over twelve orders of magnitude,
    normalised (unit) or of length 1e-8, 1 or 1e8; value of magnitude 1e-8,
    1 or 1e8; Gaussian C."""
    d, p, seed = draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim)), draw(rng_seeds())
    spread, magnitude = draw(st.booleans()), draw(st.sampled_from(VALUE_MAGNITUDES))
    length = 1.0 if unit else draw(st.sampled_from(KEY_LENGTHS))
    rng = np.random.default_rng(seed)
    k = rng.standard_normal(d) * (10.0 ** rng.choice(KEY_EXPONENTS, size=d) if spread else 1.0)
    k *= length / np.linalg.norm(k)
    recipe = {"d": d, "p": p, "seed": seed, "spread": spread, "magnitude": magnitude, "length": length}
    return Case((k, magnitude * rng.standard_normal(p), rng.standard_normal((p, d))), recipe)


def _pairs(unit: bool) -> Inputs:
    return Inputs(("k", "v", "C"), _exact_pairs(unit=unit), lambda ctx: _precise_pairs(ctx, unit=unit),
                  _float_pairs(unit=unit), "unit keys" if unit else "nonzero keys of any length")


def _pair(impl, k, v, C, *, unit: bool):
    """A0 = the formula, feasible and Moore-Penrose (v k^+); every feasible A
    is A0 + B with B k = 0 and <A0, B>_F = 0, so ||A||^2 = ||A0||^2 + ||B||^2.
    In float and mpmath each term is divided by the size of what it compares."""
    A0 = impl.single_pair_store(k, v)
    nk2 = np.sum(k * k)
    A = C + np.outer(v - C @ k, k) / nk2
    B = A - A0
    formula = np.outer(v, k) if unit else np.outer(v, k) / nk2
    exact = kit.is_exact(k)
    n_v = 1 if exact else norm(v)
    n_formula = 1 if exact else (n_v * norm(k) if unit else n_v / norm(k))
    # A is formed from C with cancellation: its rounding error scales with ||C||
    operands = 1 if exact else norm(A) + norm(A0) + norm(C)
    pythagoras = np.sum(A * A) - np.sum(A0 * A0) - np.sum(B * B)
    feasible = [(A @ k, v)] if exact else []  # in floats A k = v is C k minus itself: cancellation
    return feasible + [
        (A0 / n_formula, formula / n_formula), (A0 @ k / n_v, v / n_v),
        (A0 / n_formula, np.outer(v, linmem.pinv(k.reshape(-1, 1))[0]) / n_formula),
        (B @ k / (operands * (1 if exact else norm(k))), 0 * v),
        (np.sum(A0 * B) / (operands * (1 if exact else norm(A0))), 0 * nk2), (pythagoras / operands**2, 0 * nk2)]


# --- sums of outer products and their recall -----------------------------------------


def _sum_of_outer(impl, K, V, unit):
    """W_OP against the sum of v_i k_i^T and, for unit keys, of the single-pair
    minimum-norm solutions, added one pair at a time."""
    W, pairs = impl.outer_product_store(K, V), range(K.shape[1])
    terms = [(W, sum(np.outer(V[:, i], K[:, i]) for i in pairs))]
    return terms + ([(W, sum(impl.single_pair_store(K[:, i], V[:, i]) for i in pairs))] if unit else [])


#: keys_and_values() and its unit-key family, each input flagged ``unit`` (a float case's recipe has the flag).
_FAMILIES = ((False, keys_and_values()), (True, keys_and_values(unit=True)))
ANY_OR_UNIT = Inputs(
    ("K", "V", "unit"), st.one_of(*(f.exact.map(lambda a, u=u: a + (u,)) for u, f in _FAMILIES)),
    lambda ctx: [(label, a + (u,)) for u, f in _FAMILIES for label, a in f.precise(ctx)],
    st.one_of(*(f.floats for _, f in _FAMILIES)).map(lambda c: Case(c.args + (c.recipe["unit"],), c.recipe)),
    "integer and unit keys, duplicated and dependent; condition to 1e20 (mpmath)")


def _crosstalk_reference(K, V):
    """``sum_{i != j} (k_i^T k_j) v_i`` for every j, term by term."""
    M = K.shape[1]
    return np.stack([sum((np.dot(K[:, i], K[:, j]) * V[:, i] for i in range(M) if i != j), start=0 * V[:, j])
                     for j in range(M)], axis=1)


def _crosstalk(impl, K, V):
    X = _crosstalk_reference(K, V)
    signal, crosstalk = impl.op_recall_decomposition(K, V)
    return [(impl.outer_product_store(K, V) @ K, V + X), (signal, V), (crosstalk, X)]


@st.composite
def _exact_orthonormal(draw, *, max_dim: int = 5):
    """M <= d exactly orthonormal rational keys (columns of a Cayley transform)."""
    d = draw(st.integers(1, max_dim))
    M = draw(st.integers(1, d))
    K = ensembles.rational_orthogonal(d, rng=np.random.default_rng(draw(rng_seeds())))[:, :M]
    return K, draw(exact_value_matrices(M))


#: Ladder shapes (d, M), M <= d, including M = d and a single key.
_ORTHONORMAL_SHAPES = ((5, 5), (6, 3), (4, 1), (3, 2), (6, 6), (2, 1))


def _precise_orthonormal(ctx):
    rng = ctx.rng("orthonormal-precise")
    cases = []
    for i in range(max(3, ctx.profile.precise_cases)):
        d, M = _ORTHONORMAL_SHAPES[i % len(_ORTHONORMAL_SHAPES)]
        p = 1 + (i + 1) % 4
        # values spanning 40 orders of magnitude
        V = kit.exact(rng.integers(-3, 4, (p, M))) + kit.exact(rng.integers(1, 4, (p, M))) / 10**20
        V[0] *= 10**20
        cases.append((f"exactly orthonormal keys, d = {d}, M = {M}, p = {p}",
                      (ensembles.rational_orthogonal(d, rng=rng)[:, :M], V)))
    return cases


@st.composite
def _float_orthonormal(draw):
    d = draw(st.integers(1, 8))
    M, p, seed = draw(st.integers(1, d)), draw(st.integers(1, 8)), draw(rng_seeds())
    rng = np.random.default_rng(seed)
    K = np.linalg.qr(rng.standard_normal((d, M)))[0]
    return Case((K, rng.standard_normal((p, M))), {"d": d, "M": M, "p": p, "seed": seed})


ORTHONORMAL = Inputs(("K", "V"), _exact_orthonormal(), _precise_orthonormal, _float_orthonormal(),
                     "orthonormal keys (Cayley columns, Q factors), M <= d, values over 40 orders of magnitude")


def _orthonormal(impl, K, V):
    _, crosstalk = impl.op_recall_decomposition(K, V)
    return [(K.T @ K, kit.eye(K.shape[1], K)),  # the hypothesis itself
            (impl.outer_product_store(K, V) @ K, V), (crosstalk, 0 * V)]


# --- wrong variants for the negative controls -----------------------------------------------


def _one_coordinate_solution(k, v):
    """A feasible but not minimal solution: all of v on k's largest coordinate m, v e_m^T / k_m."""
    m = np.argmax(np.abs(k))
    return np.outer(v, np.eye(len(k), dtype=int)[m]) / k[m]


_PAIR_ASSUMPTIONS = ("k in R^d, v in R^p (p and d independent)", "A ranges over all p x d matrices with A k = v")


def _pair_size(k, v, C):
    return len(k) + len(v)


CLAIMS = [
    identity(
        "op.single-pair-min-norm",
        title="For a unit key, v k^T is the unique minimum-norm matrix sending k to v",
        statement=(r"\|k\| = 1:\ A_0 = vk^{\top},\ A_0 k = v;\ \forall A: Ak = v \Rightarrow "
                   r"A = A_0 + B,\ Bk = 0,\ \langle A_0, B\rangle_F = 0,\ "
                   r"\|A\|_F^2 = \|A_0\|_F^2 + \|B\|_F^2"),
        source="000, App. B", assumptions=("k a unit vector",) + _PAIR_ASSUMPTIONS,
        inputs=_pairs(True), terms=lambda impl, k, v, C: _pair(impl, k, v, C, unit=True), scale=_pair_size,
        control=wrong("a feasible but not minimal solution: v e_m^T / k_m on the largest coordinate m",
                      single_pair_store=_one_coordinate_solution),
    ),
    identity(
        "op.single-pair-nonunit",
        title="For a nonzero key of any length the minimum-norm solution is v k^T / ||k||^2",
        statement=(r"k \ne 0:\ A_0 = \frac{vk^{\top}}{\|k\|^2} = vk^{+} = "
                   r"\arg\min\{\|A\|_F : Ak = v\},\ \|A\|_F^2 = \|A_0\|_F^2 + \|A - A_0\|_F^2"),
        source="000, App. B", assumptions=("k any nonzero vector (unit or not)",) + _PAIR_ASSUMPTIONS,
        depends_on=("op.single-pair-min-norm",),
        inputs=_pairs(False), terms=lambda impl, k, v, C: _pair(impl, k, v, C, unit=False), scale=_pair_size,
        control=wrong("v k^T (the unit-key formula) for a key of any length", single_pair_store=np.outer),
    ),
    identity(
        "op.sum-of-outer-products",
        title="The outer-product store is the sum of the pairs' outer products, V K^T",
        statement=(r"W_{\mathrm{OP}} = \sum_{i=1}^{M} v_i k_i^{\top} = VK^{\top},\ "
                   r"\text{and for unit keys } W_{\mathrm{OP}} = \sum_{i=1}^{M} A_i"),
        source="000, 'Two ways to construct the memory matrix'; App. B",
        assumptions=("K any real d x M matrix, V any real p x M matrix",
                     "A_i the single-pair minimum-norm solutions; equal to v_i k_i^T for unit keys"),
        depends_on=("op.single-pair-min-norm",),
        inputs=ANY_OR_UNIT, terms=_sum_of_outer, scale=lambda K, V, unit: kit.scale(K, V, K, condition=False),
        control=wrong("sum of v_i k_i^T / ||k_i||^2 (normalised outer products)",
                      outer_product_store=lambda K, V: V @ (K / np.sum(K * K, axis=0)).T),
    ),
    identity(
        "op.crosstalk-expansion",
        title="Outer-product recall at a unit key is its value plus overlap-weighted cross-talk",
        statement=r"\|k_i\| = 1:\ W_{\mathrm{OP}} k_j = v_j + \sum_{i \ne j} (k_i^{\top} k_j)\, v_i",
        source="000, App. B; 'Recover Wang's capacity estimate'",
        assumptions=("unit keys (duplicates allowed)", "V any real p x M matrix"),
        depends_on=("op.sum-of-outer-products",),
        inputs=keys_and_values(unit=True), terms=_crosstalk,
        scale=lambda K, V: kit.scale(K, V, K, K, condition=False),
        control=wrong("cross-talk summed over all i, the self term k_j^T k_j v_j kept",
                      op_recall_decomposition=lambda K, V: (V.copy(), V @ (K.T @ K))),
    ),
    identity(
        "op.orthonormal-keys-exact",
        title="With orthonormal keys the outer-product store recalls every value exactly",
        statement=(r"K^{\top}K = I_M \ (M \le d):\quad W_{\mathrm{OP}} k_j = v_j\ \ \forall j,"
                   r"\ \text{i.e. } W_{\mathrm{OP}}K = V"),
        source="000, App. B",
        assumptions=("orthonormal keys, hence M <= d", "V any real p x M matrix"),
        depends_on=("op.crosstalk-expansion",),
        inputs=ORTHONORMAL, terms=_orthonormal,
        control=wrong("store built as K V^T (wrong transpose)", outer_product_store=lambda K, V: K @ V.T),
    ),
]
