"""Hypothesis strategies for the inputs of the claims.

Float key matrices are drawn as *recipes* (family, sizes, seed, condition
number, rank) and built with :mod:`linmem.ensembles`, so that a failing case
shrinks to small sizes and replays from its JSON description. Exact inputs
are small integer or exactly-unit rational matrices drawn entry by entry, so
they shrink to the simplest matrix that fails.

Every strategy is tested (tests/test_strategies.py) to produce what its name
promises: the rank, the condition number, the duplicates, the unit norms.

Input families (:class:`Inputs`) bundle one kind of input in the three number
systems a claim template needs, every element a tuple of arguments in the
same order: Hypothesis-generated exact inputs, labelled exact cases for the
precision ladder (rounded afresh at each rung), and float64 cases with the
recipe that replays them. The families of the catalogue are :func:`keys`,
:func:`unit_keys` and :func:`keys_and_values`; a claim module builds its own
with :class:`Inputs` when its inputs have a special structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles

__all__ = [
    "COMPARISON_LADDER_DENOMINATOR",
    "COMPARISON_SCALED_DECADES",
    "CONTINUOUS_NOISE_KINDS",
    "Case",
    "FACTORED_CONDITIONING",
    "FACTORED_LADDER",
    "FLOAT_KEY_FAMILIES",
    "Factored",
    "HADAMARD4",
    "ILL_CONDITIONING",
    "INDEPENDENT_SHAPES",
    "Inputs",
    "KeyCase",
    "LEVERAGE_EDGES",
    "NOISE_DESIGN_KINDS",
    "SCORE_KINDS",
    "SIGN_VALUE_DIRECTIONS",
    "SPHERE_DESIGN_KINDS",
    "STORE_LADDER",
    "comparison_ladder_cases",
    "continuous_noise",
    "design_keys_and_sign_values",
    "exact_factored",
    "exact_independent_keys",
    "exact_key_matrices",
    "exact_keys_and_values",
    "exact_unit_key_matrices",
    "exact_value_matrices",
    "factored",
    "factored_cases",
    "factored_keys_and_values",
    "float_comparison_instances",
    "float_factored",
    "float_independent_key_cases",
    "float_key_cases",
    "general_position_points",
    "independent_keys_and_values",
    "independent_ladder_keys",
    "integer_comparison_instances",
    "integer_matrices",
    "keys",
    "keys_and_values",
    "leverage_laws",
    "lp_instances",
    "memory_instances",
    "near_parallel_gain",
    "near_parallel_key_matrix",
    "near_parallel_queries",
    "near_parallel_smallest_sq",
    "noise_design",
    "noise_design_defect",
    "orthogonal_matrices",
    "precise_keys",
    "precise_values",
    "rank_d_keys_at_two_d",
    "rational_unit_columns",
    "repeated_key_matrices",
    "score_inputs",
    "score_vectors",
    "sphere_design",
    "sphere_design_and_key",
    "sphere_designs",
    "stores_and_queries",
    "uniform_leverage_keys",
    "unit_key_cases",
    "unit_keys",
]

FLOAT_KEY_FAMILIES = (
    "gaussian",
    "spherical",
    "sign",
    "duplicated",
    "rank_deficient",
    "ill_conditioned",
)

#: Condition numbers drawn for ill-conditioned float keys (up to 1e12 in float64).
ILL_CONDITIONING = (1e2, 1e6, 1e9, 1e12)


@dataclass(frozen=True)
class KeyCase:
    """A float key matrix and its values, built from a replayable recipe."""

    family: str
    d: int
    M: int
    p: int
    seed: int
    cond: float = 1.0
    rank: int | None = None
    unit: bool = False
    K: np.ndarray = field(repr=False, compare=False, default=None)
    V: np.ndarray = field(repr=False, compare=False, default=None)

    @classmethod
    def build(cls, family, d, M, p, seed, *, cond=1.0, rank=None, unit=False) -> "KeyCase":
        rng = np.random.default_rng(seed)
        if family == "gaussian":
            K = ensembles.gaussian_vectors(d, M, rng=rng)
        elif family == "spherical":
            K = ensembles.spherical_vectors(d, M, rng=rng)
        elif family == "sign":
            K = ensembles.random_sign_vectors(d, M, rng=rng)
        elif family == "duplicated":
            K = ensembles.duplicated_keys(d, M, n_distinct=rank or 1, rng=rng)
        elif family in ("rank_deficient", "ill_conditioned"):
            K = ensembles.controlled_spectrum(d, M, cond=cond, rank=rank, rng=rng)
        else:
            raise ValueError(f"family must be one of {FLOAT_KEY_FAMILIES}, got {family!r}")
        if unit:
            K = K / np.linalg.norm(K, axis=0)
        V = ensembles.gaussian_vectors(p, M, rng=rng)
        return cls(family, d, M, p, seed, cond, rank, unit, K, V)

    def describe(self) -> dict:
        """The recipe, enough to rebuild the case with :meth:`build`."""
        return {
            "family": self.family, "d": self.d, "M": self.M, "p": self.p,
            "seed": self.seed, "cond": self.cond, "rank": self.rank, "unit": self.unit,
        }


@st.composite
def float_key_cases(
    draw,
    *,
    families=FLOAT_KEY_FAMILIES,
    max_dim: int = 8,
    max_count: int = 12,
    unit: bool = False,
) -> KeyCase:
    """Float keys of every shape (M < d, M = d, M > d), p != d, in the named families."""
    family = draw(st.sampled_from(families))
    d = draw(st.integers(1, max_dim))
    M = draw(st.integers(1, max_count))
    p = draw(st.integers(1, max_dim))
    seed = draw(st.integers(0, 2**32 - 1))
    top = min(d, M)
    cond, rank = 1.0, None
    if family == "duplicated":
        # number of distinct keys; the unit "sphere" of R^1 has only two points
        rank = draw(st.integers(1, M if d > 1 else min(M, 2)))
    elif family == "rank_deficient":
        rank = draw(st.integers(1, max(top - 1, 1)))
        cond = draw(st.sampled_from((1.0, 10.0, 1e3)))
    elif family == "ill_conditioned" and top > 1:
        cond = draw(st.sampled_from(ILL_CONDITIONING))
    return KeyCase.build(family, d, M, p, seed, cond=cond, rank=rank, unit=unit)


def unit_key_cases(**kw) -> st.SearchStrategy[KeyCase]:
    """Float cases whose keys are normalised to unit columns."""
    return float_key_cases(unit=True, **kw)


@st.composite
def exact_key_matrices(draw, *, max_dim: int = 4, max_count: int = 6, nonzero_columns: bool = True):
    """Small integer matrices as exact Fraction arrays, with duplicated columns
    and columns that are combinations of others (rank deficiency) mixed in."""
    d = draw(st.integers(1, max_dim))
    M = draw(st.integers(1, max_count))
    cols = []
    for j in range(M):
        how = draw(st.sampled_from(("fresh", "duplicate", "combine"))) if cols else "fresh"
        if how == "duplicate":
            col = list(cols[draw(st.integers(0, len(cols) - 1))])
        elif how == "combine":
            a, b = draw(st.integers(0, len(cols) - 1)), draw(st.integers(0, len(cols) - 1))
            ca, cb = draw(st.integers(-2, 2)), draw(st.integers(-2, 2))
            col = [ca * x + cb * y for x, y in zip(cols[a], cols[b])]
        else:
            col = draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d))
        if nonzero_columns and all(x == 0 for x in col):
            col = [0] * d
            col[draw(st.integers(0, d - 1))] = 1
        cols.append(col)
    return np.array([[Fraction(cols[j][i]) for j in range(M)] for i in range(d)], dtype=object)


@st.composite
def exact_keys_and_values(draw, *, max_dim: int = 4, max_count: int = 6):
    """(K, V): exact keys from :func:`exact_key_matrices` and integer values
    with as many columns."""
    K = draw(exact_key_matrices(max_dim=max_dim, max_count=max_count))
    return K, draw(exact_value_matrices(K.shape[1]))


@st.composite
def exact_unit_key_matrices(draw, *, max_dim: int = 4, max_count: int = 6):
    """Exactly unit rational keys (some duplicated), as Fraction arrays."""
    d = draw(st.integers(1, max_dim))
    M = draw(st.integers(1, max_count))
    seed = draw(st.integers(0, 2**32 - 1))
    base = ensembles.rational_unit_vectors(d, M, rng=np.random.default_rng(seed), scale=3)
    picks = draw(st.lists(st.integers(0, M - 1), min_size=M, max_size=M))
    use_dups = draw(st.booleans())
    return base[:, picks] if use_dups else base


@st.composite
def exact_value_matrices(draw, M: int, *, max_dim: int = 3):
    """Integer values p x M as a Fraction array."""
    p = draw(st.integers(1, max_dim))
    entries = draw(st.lists(st.integers(-3, 3), min_size=p * M, max_size=p * M))
    return np.array([Fraction(e) for e in entries], dtype=object).reshape(p, M)


def integer_matrices(rows: int, cols: int, *, bound: int = 3) -> st.SearchStrategy[np.ndarray]:
    """Integer matrices rows x cols with entries in [-bound, bound], as
    Fraction arrays drawn entry by entry (they shrink to zero).

    >>> from hypothesis import find
    >>> find(integer_matrices(2, 3), lambda A: True).tolist()[0]
    [Fraction(0, 1), Fraction(0, 1), Fraction(0, 1)]
    """
    return st.lists(st.integers(-bound, bound), min_size=rows * cols, max_size=rows * cols).map(
        lambda e: np.array([Fraction(x) for x in e], dtype=object).reshape(rows, cols))


# --- input families of the claim templates -------------------------------------------

# The ladder's fixed exact keys live in theorems.authoring.cases (kept there
# while other claim modules import them); this is their public name.
from theorems.authoring.cases import precise_key_cases as _precise_key_cases  # noqa: E402
from theorems.authoring.cases import precise_values as _precise_values  # noqa: E402


def precise_keys(ctx, *, unit: bool = False) -> list[tuple[str, np.ndarray]]:
    """Labelled exact key matrices for a precision ladder (at least 3, the
    profile's ``precise_cases``): condition 1e20 full rank, condition 1e12
    rank-deficient, duplicated integer keys, in shapes M < d, M = d, M > d;
    ``unit=True`` gives exactly unit columns with the same duplicate pattern
    and a near copy (condition about 1e15)."""
    return _precise_key_cases(ctx, unit=unit)


def precise_values(K: np.ndarray, ctx, p: int = 3) -> np.ndarray:
    """Integer values p x M (exact) for the key matrix ``K``."""
    return _precise_values(K, ctx, p)


@dataclass(frozen=True)
class Case:
    """A float64 input: the arguments and the JSON-able recipe that rebuilds them."""

    args: tuple
    recipe: Any


@dataclass(frozen=True)
class Inputs:
    """One input family in three number systems, elements tuples of arguments.

    ``exact``: strategy of exact argument tuples; ``precise(ctx)``: labelled
    exact argument tuples for the ladder; ``floats``: strategy of
    :class:`Case`; ``names``: the argument names (for reports); ``about``:
    what the family covers, in words (it becomes the check descriptions);
    ``rebuild``: a float case from its recipe (``rebuild(case.recipe)``
    gives the same arrays), so ``theorems verify --case float:RECIPE``
    reruns one float case; None when the family cannot.
    """

    names: tuple[str, ...]
    exact: st.SearchStrategy
    precise: Callable[[Any], Sequence[tuple[str, tuple]]]
    floats: st.SearchStrategy
    about: str = ""
    rebuild: Callable[[Any], Case] | None = None

    def describe(self, args: tuple) -> dict:
        """An exact input as ``{name: value}``; an argument with a ``describe()``
        method (e.g. a :class:`Factored`) as what that returns."""
        return {name: a.describe() if hasattr(a, "describe") else a for name, a in zip(self.names, args)}


def _key_case(case: KeyCase, with_values: bool) -> Case:
    return Case((case.K, case.V) if with_values else (case.K,), case.describe())


def _key_case_rebuilder(with_values: bool, *, unit: bool) -> Callable[[Any], Case]:
    """The ``rebuild`` of the stock key families: :meth:`KeyCase.build` of
    the recipe :meth:`KeyCase.describe` wrote (a ValueError naming the
    recipe when it is not one)."""
    fields = ("family", "d", "M", "p", "seed", "cond", "rank", "unit")

    def rebuild(recipe: Any) -> Case:
        if not isinstance(recipe, dict) or set(recipe) != set(fields):
            raise ValueError(f"recipe must be a mapping with the keys {', '.join(fields)}, got {recipe!r}")
        if bool(recipe["unit"]) != unit:
            raise ValueError(f"recipe must have unit={unit} for this input family, got {recipe['unit']!r}")
        try:
            case = KeyCase.build(recipe["family"], int(recipe["d"]), int(recipe["M"]), int(recipe["p"]),
                                 int(recipe["seed"]), cond=float(recipe["cond"]),
                                 rank=None if recipe["rank"] is None else int(recipe["rank"]), unit=unit)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"recipe {recipe!r} does not build a case: {exc}") from None
        return _key_case(case, with_values)

    return rebuild


def keys(*, unit: bool = False, unit_ladder: bool = True) -> Inputs:
    """Any keys K (d x M, every rank, duplicated columns, ill-conditioned):
    exact integer keys, ladder keys of condition up to 1e20 (and their
    exactly unit versions unless ``unit_ladder=False``), float keys of every
    family of :data:`FLOAT_KEY_FAMILIES`. ``unit=True``: see :func:`unit_keys`."""
    if unit:
        return unit_keys()

    def ladder(ctx):
        cases = precise_keys(ctx) + (precise_keys(ctx, unit=True) if unit_ladder else [])
        return [(label, (K,)) for label, K in cases]

    return Inputs(("K",), exact_key_matrices().map(lambda K: (K,)), ladder,
                  float_key_cases().map(lambda c: _key_case(c, False)),
                  "any keys: rank-deficient, duplicated, condition to 1e12 (float) and 1e20 (mpmath)",
                  rebuild=_key_case_rebuilder(False, unit=False))


def unit_keys() -> Inputs:
    """Unit-norm keys: exactly unit rational keys (some duplicated), the
    ladder's unit keys, float keys of every family normalised."""

    def ladder(ctx):
        return [(label, (K,)) for label, K in precise_keys(ctx, unit=True)]

    return Inputs(("K",), exact_unit_key_matrices().map(lambda K: (K,)), ladder,
                  unit_key_cases().map(lambda c: _key_case(c, False)),
                  "unit keys: duplicated, near copies (condition about 1e15 in mpmath)",
                  rebuild=_key_case_rebuilder(False, unit=True))


def keys_and_values(*, unit: bool = False) -> Inputs:
    """(K, V): any keys as in :func:`keys` (``unit=True``: as in
    :func:`unit_keys`) and integer (exact) or Gaussian (float) values with as
    many columns, p != d included."""

    def ladder(ctx):
        return [(label, (K, precise_values(K, ctx))) for label, K in precise_keys(ctx, unit=unit)]

    if unit:
        exact = exact_unit_key_matrices().flatmap(lambda K: exact_value_matrices(K.shape[1]).map(lambda V: (K, V)))
        return Inputs(("K", "V"), exact, ladder, unit_key_cases().map(lambda c: _key_case(c, True)),
                      "unit keys and any values: duplicated, near copies (condition about 1e15 in mpmath)",
                      rebuild=_key_case_rebuilder(True, unit=True))
    return Inputs(("K", "V"), exact_keys_and_values(), ladder,
                  float_key_cases().map(lambda c: _key_case(c, True)),
                  "any keys and values: rank-deficient, duplicated, condition to 1e12 (float) and 1e20 (mpmath)",
                  rebuild=_key_case_rebuilder(True, unit=False))


@st.composite
def lp_instances(draw, *, max_d: int = 4, max_n: int = 14):
    """Max-margin LP instances ``(recipe, V, U)``: Gaussian keys ``V`` (d_k x n)
    and targets ``U`` (d_t x n), d_k != d_t allowed, both at most ``max_d``;
    n from 2 to about ``2 d_k d_t`` (capped at ``max_n``: both sides of
    separability); keys ``duplicated`` (columns repeated) or ``scaled`` over 4
    decades in some draws. ``recipe`` (sizes, family, seed) replays the draw."""
    dk, dt = draw(st.integers(1, max_d)), draw(st.integers(1, max_d))
    n = draw(st.integers(2, max(3, min(max_n, 2 * dk * dt + 2))))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    V, U = rng.standard_normal((dk, n)), rng.standard_normal((dt, n))
    family = draw(st.sampled_from(("gaussian", "duplicated", "scaled")))
    if family == "duplicated":
        V = V[:, rng.integers(0, max(1, n // 2), size=n)]
    elif family == "scaled":
        V = V * 10.0 ** rng.uniform(-2, 2, size=n)
    return {"dk": dk, "dt": dt, "n": n, "family": family, "seed": seed}, V, U


# --- keys and targets for the top-1 comparisons --------------------------------------


#: Denominator bound of the rational Gaussian entries of :func:`comparison_ladder_cases`.
COMPARISON_LADDER_DENOMINATOR = 10**6

#: Keys of the ``scaled`` family of :func:`float_comparison_instances` have
#: norms ``10^e``, ``e`` in ``-COMPARISON_SCALED_DECADES..COMPARISON_SCALED_DECADES``.
COMPARISON_SCALED_DECADES = 6


@st.composite
def integer_comparison_instances(draw):
    """``(V, U)``: integer keys (d_k x n) and targets (d_t x n), entries in
    -3..3, n in 2..5, d_k and d_t in 1..3, as float arrays (so linmem works
    in float64 and every product is exact); duplicated, zero and collinear
    columns arise and shrink to the simplest failing instance."""
    n, dk, dt = draw(st.integers(2, 5)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    entries = lambda rows: st.lists(st.integers(-3, 3), min_size=rows * n, max_size=rows * n)  # noqa: E731
    return (np.array(draw(entries(dk)), dtype=float).reshape(dk, n),
            np.array(draw(entries(dt)), dtype=float).reshape(dt, n))


@st.composite
def float_comparison_instances(draw):
    """``(recipe, V, U)``: Gaussian keys and targets at every load (n in
    2..12, d_k and d_t in 1..4, d_k != d_t allowed) in one of four families:
    ``gaussian``; ``scaled`` (each key times ``10^e`` over
    ``2 COMPARISON_SCALED_DECADES`` decades); ``duplicated`` (at most n // 2
    distinct keys); ``rank_deficient`` (keys of rank min(d_k, n) - 1,
    condition 1e6, when min(d_k, n) > 1). ``recipe`` replays the draw."""
    n, dk, dt = draw(st.integers(2, 12)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    family = draw(st.sampled_from(("gaussian", "scaled", "duplicated", "rank_deficient")))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    V, U = rng.standard_normal((dk, n)), rng.standard_normal((dt, n))
    if family == "scaled":
        V = V * 10.0 ** rng.integers(-COMPARISON_SCALED_DECADES, COMPARISON_SCALED_DECADES + 1, size=n)
    elif family == "duplicated":
        V = V[:, rng.integers(0, max(1, n // 2), size=n)]
    elif family == "rank_deficient" and min(dk, n) > 1:
        V = ensembles.controlled_spectrum(dk, n, cond=1e6, rank=min(dk, n) - 1, rng=rng)
    return {"n": n, "dk": dk, "dt": dt, "family": family, "seed": seed}, V, U


def comparison_ladder_cases(rng: np.random.Generator) -> list[tuple[str, tuple[np.ndarray, np.ndarray]]]:
    """Six labelled float ``(V, U)`` for the precision ladder, from ``rng``:
    Gaussian entries rounded to rationals of denominator at most
    :data:`COMPARISON_LADDER_DENOMINATOR` at (d, n) = (2, 3), (2, 6), (3, 4),
    (3, 9) (both sides of the threshold), (2, 5) with a duplicated key under
    different targets (no memory separates), and (3, 3) with rational keys
    of condition 1e6."""
    rational = lambda X: np.array([Fraction(x).limit_denominator(COMPARISON_LADDER_DENOMINATOR)  # noqa: E731
                                   for x in X.ravel()], dtype=object).reshape(X.shape)
    cases = []
    for i, (d, n) in enumerate([(2, 3), (2, 6), (3, 4), (3, 9), (2, 5), (3, 3)]):
        V, U = rational(rng.standard_normal((d, n))), rational(rng.standard_normal((d, n)))
        if i == 4:
            V[:, 1] = V[:, 0]
        if i == 5:
            V = ensembles.rational_controlled_spectrum(d, n, cond=10**6, rng=rng)
        cases.append((f"d={d}, n={n}" + {4: ", duplicated key", 5: ", keys cond 1e6"}.get(i, ""),
                      (V.astype(float), U.astype(float))))
    return cases


# --- matrices given by exact factors (their SVD known without computing it) ----------


#: The 4 x 4 Hadamard matrix: ``kron(HADAMARD4, Z) / 2`` is orthogonal when Z is,
#: and its first block column repeats Z four times, halved.
HADAMARD4 = np.array([[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 1, -1], [1, -1, -1, 1]], dtype=object)


class Factored(NamedTuple):
    """A matrix ``A = U diag(s) Z^T`` (m x n) given by its factors: ``U``
    (m x r) with orthonormal columns, ``s`` positive and non-increasing,
    ``Z_full`` (n x n) orthogonal, ``Z`` its first r columns. With exact
    rational factors this *is* the compact SVD of A (up to the usual freedom
    where singular values coincide), known without computing it, and the
    trailing columns ``Z_perp`` are an orthonormal basis of ker A."""

    U: np.ndarray
    s: np.ndarray
    Z_full: np.ndarray

    @property
    def Z(self) -> np.ndarray:
        return self.Z_full[:, : len(self.s)]

    @property
    def Z_perp(self) -> np.ndarray:
        return self.Z_full[:, len(self.s):]

    @property
    def A(self) -> np.ndarray:
        return (self.U * self.s) @ self.Z.T

    def describe(self) -> dict:
        """The factors and the matrix, for a report."""
        return {"U": self.U, "s": self.s, "Z_full": self.Z_full, "A": self.A}


def _duplicated(Z_full: np.ndarray, rows) -> np.ndarray:
    """``kron(HADAMARD4, Z_full) / 2`` with its rows permuted by ``rows``: still
    orthogonal, and its first ``n`` columns are Z_full stacked four times,
    halved, so every column of ``U diag(s) Z^T`` appears four times."""
    return (np.kron(HADAMARD4, Z_full) / 2)[list(rows), :]


@st.composite
def orthogonal_matrices(draw, n: int):
    """Exactly orthogonal rational n x n matrices: a product of up to n
    Householder reflections ``I - 2 w w^T / (w^T w)`` with integer ``w`` in
    -2..2, then a column permutation. No sympy, so Hypothesis can afford many
    draws; they shrink to the identity."""
    H = np.eye(n, dtype=int).astype(object) + Fraction(0)
    for _ in range(draw(st.integers(0, n))):
        w = draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
        ww = sum(x * x for x in w)
        if ww:
            w = np.array(w, dtype=object)
            H = H - np.outer(H @ w, w) * Fraction(2, ww)
    return H[:, list(draw(st.permutations(range(n))))]


@st.composite
def exact_factored(draw, *, max_rows: int = 4, max_cols: int = 5, min_rank: int = 0,
                   duplicates: bool = True) -> Factored:
    """Exactly factored rational matrices (:class:`Factored`) of every shape
    (m < n, m = n, m > n) and every rank from ``min_rank`` (0: the zero
    matrix) to full; singular values ``k / den`` (k in 1..8, den in 1..3),
    coinciding in some draws; with ``duplicates``, some draws repeat every
    column four times (n = 4 or 8)."""
    m = draw(st.integers(1, max_rows))
    tiled = duplicates and draw(st.booleans())
    n = draw(st.integers(1, 2 if tiled else max_cols))
    r = draw(st.integers(min(min_rank, m, n), min(m, n)))
    U = draw(orthogonal_matrices(m))[:, :r]
    Z_full = draw(orthogonal_matrices(n))
    if tiled:
        Z_full = _duplicated(Z_full, draw(st.permutations(range(4 * n))))
    den = draw(st.integers(1, 3))
    nums = draw(st.lists(st.integers(1, 8), min_size=r, max_size=r))
    return Factored(U, np.array(sorted((Fraction(k, den) for k in nums), reverse=True), dtype=object), Z_full)


def factored(m: int, n: int, s, *, rng: np.random.Generator, duplicated: bool = False) -> Factored:
    """The exact m x n (``4n`` columns if ``duplicated``) matrix with
    singular values ``s`` (positive, non-increasing; ``len(s) <= min(m,
    n)``) and random exactly orthogonal factors
    (:func:`linmem.ensembles.rational_orthogonal`).

    >>> F = factored(3, 2, [2, 1], rng=np.random.default_rng(0))
    >>> F.A.shape, [str(x) for x in F.s], (F.U.T @ F.U).tolist() == [[1, 0], [0, 1]]
    ((3, 2), ['2', '1'], True)
    """
    s = np.array([Fraction(x) for x in s], dtype=object)
    if len(s) > min(m, n) or any(x <= 0 for x in s) or any(a < b for a, b in zip(s, s[1:])):
        raise ValueError(f"s must be at most min(m, n) = {min(m, n)} positive non-increasing values, got {list(s)}")
    U = ensembles.rational_orthogonal(m, rng=rng)[:, : len(s)]
    Z_full = ensembles.rational_orthogonal(n, rng=rng)
    return Factored(U, s, _duplicated(Z_full, rng.permutation(4 * n)) if duplicated else Z_full)


def _factored_label(F: Factored) -> str:
    (m, n), s = F.A.shape, F.s
    parts = [f"{m}x{n}", f"rank {len(s)} of {min(m, n)}"]
    if len(s) > 1 and s[0] != s[-1]:
        parts.append(f"cond 1e{round(np.log10(float(s[0] / s[-1])))}")
    if len(set(s)) < len(s):
        parts.append("repeated singular values")
    return ", ".join(parts)


def factored_cases(ctx, specs: Sequence[tuple[int, int, Sequence, bool]], *, stream: str = "factored cases",
                   minimum: int = 3) -> list[tuple[str, Factored]]:
    """Labelled exact ladder matrices with known factors: ``max(minimum,
    ctx.profile.precise_cases)`` of them, the ``specs`` ``(m, n, s,
    duplicated)`` of :func:`factored` cycled, from the stream ``stream``."""
    rng = ctx.rng(stream)
    cases = []
    for i in range(max(minimum, ctx.profile.precise_cases)):
        m, n, s, dup = specs[i % len(specs)]
        F = factored(m, n, s, rng=rng, duplicated=dup)
        cases.append((_factored_label(F) + (", each column four times" if dup else ""), F))
    return cases


#: Condition numbers of :func:`float_factored` (to 1e12 in float64).
FACTORED_CONDITIONING = (1.0, 1e3, 1e6, 1e12)


@st.composite
def float_factored(draw, *, max_dim: int = 8):
    """Float :class:`Factored` matrices as :class:`Case` ``((F,), recipe)``:
    Haar factors, m, n in 1..``max_dim``, rank 0 to full, condition up to 1e12
    (:data:`FACTORED_CONDITIONING`), overall magnitude 1e-8, 1 or 1e8."""
    m, n = draw(st.integers(1, max_dim)), draw(st.integers(1, max_dim))
    r = draw(st.integers(0, min(m, n)))
    cond = draw(st.sampled_from(FACTORED_CONDITIONING)) if r > 1 else 1.0
    magnitude = 10.0 ** draw(st.sampled_from((-8, 0, 8)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    s = magnitude * (np.geomspace(1.0, 1.0 / cond, r) if r > 1 else np.ones(r))
    F = Factored(np.linalg.qr(rng.standard_normal((m, m)))[0][:, :r], s, np.linalg.qr(rng.standard_normal((n, n)))[0])
    return Case((F,), {"m": m, "n": n, "rank": r, "cond": cond, "magnitude": magnitude, "seed": seed})


# --- scores and memories of retrieval claims (top-k averages, TAM margins, Cover) ----


#: The kinds of :func:`score_vectors`.
SCORE_KINDS = ("gaussian", "ties", "tied", "wide")


@st.composite
def score_vectors(draw, *, max_m: int = 12):
    """``(recipe, s, k)``: ``m <= max_m`` float competitor scores of one kind
    of :data:`SCORE_KINDS` (Gaussian; integer ties in -2..2; all tied at an
    integer in -3..3; Gaussian times magnitudes over 16 decades) and ``k``
    from 1 to m. ``recipe`` (m, kind, seed, k) replays the draw."""
    m, kind = draw(st.integers(1, max_m)), draw(st.sampled_from(SCORE_KINDS))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    s = {"gaussian": lambda: rng.standard_normal(m), "ties": lambda: rng.integers(-2, 3, size=m).astype(float),
         "tied": lambda: np.full(m, float(rng.integers(-3, 4))),
         "wide": lambda: rng.standard_normal(m) * 10.0 ** rng.integers(-8, 9, size=m)}[kind]()
    k = draw(st.integers(1, m))
    return {"m": m, "kind": kind, "seed": seed, "k": k}, s, k


@st.composite
def memory_instances(draw, *, max_n: int = 9, max_d: int = 4):
    """``(recipe, W, V, U, k)``: Gaussian keys ``V`` (d_k x n) and targets
    ``U`` (d_t x n), d_k != d_t allowed (1..``max_d``), n in 2..``max_n``; the
    memory ``W`` Gaussian or the correlation memory ``U V^T``; ``k`` in
    1..n-1 (a TAM competitor count). ``recipe`` (n, dk, dt, seed, k) replays
    the arrays; W's choice is the last draw."""
    n, dk, dt = draw(st.integers(2, max_n)), draw(st.integers(1, max_d)), draw(st.integers(1, max_d))
    seed, k = draw(st.integers(0, 2**32 - 1)), draw(st.integers(1, n - 1))
    rng = np.random.default_rng(seed)
    V, U = rng.standard_normal((dk, n)), rng.standard_normal((dt, n))
    W = rng.standard_normal((dt, dk)) if draw(st.booleans()) else U @ V.T
    return {"n": n, "dk": dk, "dt": dt, "seed": seed, "k": k}, W, V, U, k


@st.composite
def general_position_points(draw, *, max_D: int = 3, max_n: int = 7, bound: int = 5, tries: int = 100):
    """``(recipe, X)``: n <= ``max_n`` integer points (rows of an object
    array) in R^D, D <= ``max_D``, entries in -bound..bound, in general
    position (every min(n, D) of them independent, checked exactly by
    :func:`linmem.capacity.in_general_position`): the first of ``tries``
    draws from the recipe's seed that is."""
    D, n, seed = draw(st.integers(1, max_D)), draw(st.integers(1, max_n)), draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    for _ in range(tries):
        X = rng.integers(-bound, bound + 1, size=(n, D)).astype(object)
        if linmem.capacity.in_general_position(X):
            return {"D": D, "n": n, "seed": seed}, X
    raise ValueError(f"no {n} points of R^{D} with entries in -{bound}..{bound} in general position in {tries} "
                     f"draws from seed {seed}; widen bound")  # pragma: no cover


# --- exact keys with a prescribed leverage (the capacity claims) ------------------------


def _integer_lower_triangular(draw, d: int, diagonal: tuple[int, ...]) -> np.ndarray:
    """An invertible integer lower-triangular d x d matrix: diagonal entries
    from ``diagonal`` (nonzero), entries below it in -2..2."""
    L = np.zeros((d, d), dtype=int)
    for i in range(d):
        L[i, i] = draw(st.sampled_from(diagonal))
        for j in range(i):
            L[i, j] = draw(st.integers(-2, 2))
    return L


@st.composite
def uniform_leverage_keys(draw):
    """Exact d x M keys (M in 2, 4, 8; 1 <= d < M) whose leverage is exactly
    d/M for every key: ``A H_S D Pi``, with ``H_S`` any d rows of a
    Sylvester-Hadamard matrix of order M (orthogonal rows of equal norm, so
    ``P = H_S^T H_S / M``), ``A`` an invertible integer matrix (the row space,
    hence P, is unchanged), ``D`` random column signs and ``Pi`` a column
    permutation (they conjugate P by a signed permutation, keeping its
    diagonal uniform). The keys are neither unit nor orthogonal in general."""
    import scipy.linalg

    M = draw(st.sampled_from((2, 4, 8)))
    d = draw(st.integers(1, M - 1))
    rows = draw(st.lists(st.integers(0, M - 1), min_size=d, max_size=d, unique=True))
    A = _integer_lower_triangular(draw, d, (1, -1, 2, -3))
    signs = np.array(draw(st.lists(st.sampled_from((1, -1)), min_size=M, max_size=M)))
    perm = draw(st.permutations(range(M)))
    return linmem.exact_array(((A @ scipy.linalg.hadamard(M)[rows]) * signs)[:, list(perm)])


@st.composite
def rank_d_keys_at_two_d(draw, *, max_dim: int = 3):
    """Exact d x 2d keys of rank exactly d (d <= ``max_dim``): ``L [I_d | X]``
    with its columns permuted, ``L`` invertible lower-triangular, every
    column of ``X`` a copy of a basis key (a duplicate) or a nonzero integer
    combination of them, so the leverage is spread unevenly."""
    d = draw(st.integers(1, max_dim))
    L = _integer_lower_triangular(draw, d, (1, -1, 2, 3))
    X = np.zeros((d, d), dtype=int)
    for j in range(d):
        if draw(st.booleans()):
            X[draw(st.integers(0, d - 1)), j] = 1
        else:
            col = draw(st.lists(st.integers(-2, 2), min_size=d, max_size=d))
            X[:, j] = col if any(col) else [1] * d
    perm = draw(st.permutations(range(2 * d)))
    return linmem.exact_array((L @ np.hstack([np.eye(d, dtype=int), X]))[:, list(perm)])


# --- finite designs: exact stand-ins for the sphere and for query noise --------------

import functools  # noqa: E402
import itertools  # noqa: E402
import math  # noqa: E402

from theorems.authoring import kit  # noqa: E402


#: The finite key laws of :func:`sphere_design`.
SPHERE_DESIGN_KINDS = ("coordinate", "frame", "sign", "plane", "orbit")

#: The finite noise laws of :func:`noise_design`.
NOISE_DESIGN_KINDS = ("rademacher", "skewed", "coordinate")


def _exact_column(xs) -> np.ndarray:
    """An exact column; integral entries stay Python ints, which keeps exact arithmetic fast."""
    fr = [Fraction(x) for x in xs]
    return np.array([int(x) if x.denominator == 1 else x for x in fr], dtype=object)


def _symmetric_law(name: str, halves: list, half_weights: list) -> kit.Law:
    """Points ``±x`` with the weight of ``x`` split evenly between the two signs."""
    points = [p for x in halves for p in (x, -x)]
    return kit.law(points, [w / 2 for w in half_weights for _ in (1, -1)], name, d=len(halves[0]))


def _square_root(d: int, what: str) -> int:
    root = math.isqrt(d) if isinstance(d, int) and d >= 1 else 0
    if root * root != d:
        raise ValueError(f"the {what} design needs a square dimension d >= 1 (rational sqrt(d)), got {d!r}")
    return root


@functools.lru_cache(maxsize=None)
def sphere_design(kind: str, d: int = 0, seed: int = 0) -> kit.Law:
    """A finite key law with exactly the first two moments of a uniform unit
    key of R^d (``E k = 0``, ``E k k^T = I/d``) and exactly-unit rational
    points (the rows of ``law.outcomes[0]``, shape (N, d); ``law.info["d"]``):

    * ``coordinate``: ``±e_a``, each with probability ``1/(2d)``;
    * ``frame``: ``±q_a`` for the columns of an exactly orthogonal rational
      matrix (:func:`linmem.ensembles.rational_orthogonal` at ``seed``);
    * ``sign``: the ``2^d`` vectors ``s / sqrt(d)`` (d a square: rational);
    * ``plane`` (d = 2): (1, 0) with weight 7/32 and (3/5, ±4/5) with weight
      25/64 each, both signs: second moment diag(7/32 + 9/32, 16/32) = I/2,
      and no orthogonal pair (inner products ±1, ±3/5, ±7/25);
    * ``orbit`` (d = 3): uniform on the 24 signed permutations of (4, 4, 7)/9,
      invariant under the hyperoctahedral group (second moment I/3), no
      orthogonal pair (|inner product| >= 16/81).

    Each is symmetric under ``k -> -k``. A statement that uses only these two
    moments of the key law holds on the sphere exactly when it holds here.

    >>> plane = sphere_design("plane")
    >>> K = plane.outcomes[0]
    >>> plane.mean(K[:, :, None] * K[:, None, :]).tolist() == [[Fraction(1, 2), 0], [0, Fraction(1, 2)]]
    True
    """
    if kind in ("coordinate", "frame") and not (isinstance(d, int) and d >= 1):
        raise ValueError(f"d must be an integer >= 1 for the {kind} design, got {d!r}")
    if kind == "coordinate":
        return _symmetric_law("coordinate", [_exact_column([int(a == b) for b in range(d)]) for a in range(d)],
                              [Fraction(1, d)] * d)
    if kind == "frame":
        Q = ensembles.rational_orthogonal(d, rng=np.random.default_rng(seed))
        return _symmetric_law(f"frame(seed={seed})", [Q[:, a].copy() for a in range(d)], [Fraction(1, d)] * d)
    if kind == "sign":
        r = _square_root(d, "sign")
        points = [_exact_column([Fraction(s, r) for s in signs]) for signs in itertools.product((-1, 1), repeat=d)]
        return kit.law(points, label=f"sign(d={d})", d=d)
    if kind == "plane":
        halves = [_exact_column([1, 0]), _exact_column([Fraction(3, 5), Fraction(4, 5)]),
                  _exact_column([Fraction(3, 5), Fraction(-4, 5)])]
        return _symmetric_law("plane", halves, [Fraction(7, 32), Fraction(25, 64), Fraction(25, 64)])
    if kind == "orbit":
        points = {tuple(s * x for s, x in zip(signs, perm)) for perm in itertools.permutations((4, 4, 7))
                  for signs in itertools.product((-1, 1), repeat=3)}
        return kit.law([_exact_column([Fraction(x, 9) for x in p]) for p in sorted(points)], label="orbit", d=3)
    raise ValueError(f"kind must be one of {SPHERE_DESIGN_KINDS}, got {kind!r}")


@st.composite
def sphere_designs(draw, *, kinds: Sequence[str] = SPHERE_DESIGN_KINDS) -> kit.Law:
    """A :func:`sphere_design` of one of ``kinds``: coordinate in R^1..R^6,
    frame in R^1..R^4 (8 seeds), sign in R^1 and R^4, plane, orbit."""
    kind = draw(st.sampled_from(kinds))
    if kind == "coordinate":
        return sphere_design(kind, draw(st.integers(1, 6)))
    if kind == "frame":
        return sphere_design(kind, draw(st.integers(1, 4)), draw(st.integers(0, 7)))
    if kind == "sign":
        return sphere_design(kind, draw(st.sampled_from((1, 4))))
    return sphere_design(kind)


@st.composite
def rational_unit_columns(draw, dim: int, count: int) -> np.ndarray:
    """``count`` exactly unit rational vectors in R^dim (a dim x count object
    array) by inverse stereographic projection (:func:`theorems.authoring.kit.stereographic`)
    of small rational points, drawn entry by entry, so that a failing case
    shrinks in a few steps (toward e_dim); ±1 in R^1."""
    cols = []
    for _ in range(count):
        if dim == 1:
            cols.append(_exact_column([draw(st.sampled_from((1, -1)))]))
        else:
            t = [Fraction(draw(st.integers(-3, 3)), draw(st.integers(1, 3))) for _ in range(dim - 1)]
            cols.append(_exact_column(kit.stereographic(t)))
    return np.stack(cols, axis=1)


@functools.lru_cache(maxsize=None)
def noise_design(kind: str, d: int, tau) -> kit.Law:
    """A finite law of query noise in R^d with exactly ``E eta = 0`` and
    ``Cov eta = tau^2 I_d`` and nothing else in common with a Gaussian; the
    noise columns are ``law.outcomes[0]``, shape (N, d, 1):

    * ``rademacher``: ``eta = tau s``, ``s`` uniform on ``{-1, +1}^d``;
    * ``skewed``: i.i.d. coordinates ``2 tau`` (probability 1/5) or ``-tau/2``
      (probability 4/5), third moment not zero;
    * ``coordinate``: ``±tau sqrt(d) e_i`` uniformly (2d outcomes),
      coordinates uncorrelated but dependent; d a square (rational sqrt(d)).

    >>> law = noise_design("skewed", 1, Fraction(1, 2))
    >>> [law.mean(law.outcomes[0] ** k).item() for k in (1, 2, 3)]
    [Fraction(0, 1), Fraction(1, 4), Fraction(3, 16)]
    """
    if not (isinstance(d, int) and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if kind == "coordinate":
        root = _square_root(d, "signed-coordinate")
        return kit.law([s * root * tau * kit.eye(d, np.zeros((1, 1), dtype=object))[:, i:i + 1]
                        for i in range(d) for s in (1, -1)], label="signed coordinate")
    levels = {"rademacher": ((-1, Fraction(1, 2)), (1, Fraction(1, 2))),
              "skewed": ((2, Fraction(1, 5)), (Fraction(-1, 2), Fraction(4, 5)))}.get(kind)
    if levels is None:
        raise ValueError(f"kind must be one of {NOISE_DESIGN_KINDS}, got {kind!r}")
    outcomes = list(itertools.product(levels, repeat=d))
    return kit.Law([np.array([[[tau * x] for x, _ in o] for o in outcomes], dtype=object).reshape(-1, d, 1)],
                   [math.prod(p for _, p in o) for o in outcomes], kind)


# --- exact keys with a repeated key (leverage strictly inside (0, 1)) -----------------


@st.composite
def repeated_key_matrices(draw, *, max_dim: int = 3, max_count: int = 3):
    """Exact keys of :func:`exact_key_matrices` with one (nonzero) column
    inserted again at a drawn position: a key present twice has leverage
    ``0 < h <= 1/2``, so every draw has a key strictly inside (0, 1) (where a
    per-key SNR is defined). Another column may be zeroed (``h = 0``); a key
    outside the span of the rest has ``h = 1``. At most ``max_count + 1``
    columns (``max_count = 3``: at most 16 sign patterns)."""
    K = draw(exact_key_matrices(max_dim=max_dim, max_count=max_count))
    j = draw(st.integers(0, K.shape[1] - 1))
    pos = draw(st.integers(0, K.shape[1]))
    K = np.concatenate([K[:, :pos], K[:, j:j + 1], K[:, pos:]], axis=1)
    others = [i for i in range(K.shape[1]) if i not in (pos, j if j < pos else j + 1)]
    if others and draw(st.booleans()):
        K[:, draw(st.sampled_from(others))] = Fraction(0)
    return K

# --- keys with known factors, and values: the family of the key-SVD claims -----------


#: Ladder keys of :func:`factored_keys_and_values`, ``(d, M, singular values, each
#: key four times)``: full rank at condition 1e20 with M > d and M = d,
#: rank-deficient M < d, duplicated keys with M > d, and rank one; the singular
#: values spaced geometrically from 1 down to 1/cond.
FACTORED_LADDER = (
    (4, 6, kit.rational_spectrum(4, 10**20), False),
    (5, 3, kit.rational_spectrum(2, 10**12), False),
    (3, 2, kit.rational_spectrum(2, 10**8), True),
    (4, 4, kit.rational_spectrum(4, 10**20), False),
    (6, 5, kit.rational_spectrum(3, 10**16), False),
    (2, 5, [1], False),
)


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


# --- linearly independent keys (M <= d) ------------------------------------------------


#: Shapes (d, M), M <= d, of the independent ladder keys at condition 1e20.
INDEPENDENT_SHAPES = ((5, 3), (4, 4), (6, 2), (7, 5), (3, 1), (2, 2))


@st.composite
def exact_independent_keys(draw, *, max_dim: int = 4):
    """Linearly independent exact keys (M <= d <= ``max_dim``), integer or
    exactly unit, drawn and kept when their exact rank is M."""
    from hypothesis import assume

    d = draw(st.integers(1, max_dim))
    M = draw(st.integers(1, d))
    if draw(st.booleans()):
        seed = draw(st.integers(0, 2**32 - 1))
        K = ensembles.rational_unit_vectors(d, M, rng=np.random.default_rng(seed), scale=3)
    else:
        K = draw(integer_matrices(d, M))
    assume(kit.rank(K) == M)
    return K


def independent_ladder_keys(ctx) -> list[tuple[str, np.ndarray]]:
    """``max(4, precise_cases)`` labelled independent exact keys: exactly unit
    keys two of which are 1e-15 apart (condition ~1e15), then
    full-column-rank keys at condition 1e20 in the shapes
    :data:`INDEPENDENT_SHAPES` (M < d and M = d)."""
    rng = ctx.rng("independent-precise")
    t = [Fraction(1, 2), Fraction(-1, 3)]
    near = [x + Fraction(1, 10**15) for x in t]
    cols = [kit.stereographic(t), kit.stereographic(near), kit.stereographic([Fraction(2), Fraction(1, 5)])]
    cases = [("unit keys, two 1e-15 apart, 3x3", np.array(cols, dtype=object).T)]
    for i in range(max(4, ctx.profile.precise_cases) - 1):
        d, M = INDEPENDENT_SHAPES[i % len(INDEPENDENT_SHAPES)]
        cases.append((f"cond 1e20, {d}x{M}", ensembles.rational_controlled_spectrum(d, M, cond=10**20, rng=rng)))
    return cases


@st.composite
def float_independent_key_cases(draw, *, max_dim: int = 8) -> KeyCase:
    """Float keys with M <= d in the families whose columns are independent
    (Gaussian, spherical, controlled condition up to 1e12), unit or not."""
    family = draw(st.sampled_from(("gaussian", "spherical", "ill_conditioned")))
    d = draw(st.integers(1, max_dim))
    M = draw(st.integers(1, d))
    p = draw(st.integers(1, max_dim))
    cond = draw(st.sampled_from(ILL_CONDITIONING)) if family == "ill_conditioned" and M > 1 else 1.0
    return KeyCase.build(family, d, M, p, draw(st.integers(0, 2**32 - 1)), cond=cond, unit=draw(st.booleans()))


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


# --- matrices with known factors read as stores, and queries ---------------------------


#: Ladder stores of :func:`stores_and_queries`, ``(p, d, singular values, columns
#: repeated)``, cycled to the profile's count: condition 1e20 and 1e12, repeated
#: s = 3, 3 beside 1e-20, one row, an orthogonal W.
STORE_LADDER = (
    (4, 6, kit.rational_spectrum(4, 10**20), False),
    (5, 3, kit.rational_spectrum(2, 10**12), False),
    (4, 4, [3, 3, Fraction(1, 10**20)], False),
    (1, 5, [7], False),
    (6, 2, kit.rational_spectrum(2, 10**20), False),
    (3, 3, [1, 1, 1], False),
)


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


# --- finite laws of a leverage score (claims about E f(h), h in [0, 1)) -----------------


#: Leverage values at the edges of [0, 1) for the float laws of :func:`leverage_laws`.
LEVERAGE_EDGES = (0.0, 5e-324, 1e-300, 0.5, 1 - 1e-8, float(np.nextafter(1.0, 0.0)))


@st.composite
def _exact_leverage_laws(draw):
    """A finite law of h in [0, 1): values k/q and positive integer weights."""
    n, q = draw(st.integers(1, 6)), draw(st.integers(2, 60))
    hs = [Fraction(draw(st.integers(0, q - 1)), q) for _ in range(n)]
    ws = [draw(st.integers(1, 9)) for _ in range(n)]
    return kit.exact(hs), kit.exact([Fraction(w, sum(ws)) for w in ws])


def _extreme_leverage_laws(ctx):
    """Extreme finite laws of h (exact): both ends of [0, 1), rare leverage
    near 1, near-degenerate and degenerate laws, and the leverage of exact
    keys (uniform over the keys; keys with some h = 1 left out)."""
    e30, half, third = Fraction(1, 10**30), Fraction(1, 2), Fraction(1, 3)
    laws = [
        ("two points 1e-30 and 1 - 1e-30", [e30, 1 - e30], [half, half]),
        ("weight 1e-20 at 1 - 1e-25, the rest at 1e-30",
         [e30, 1 - Fraction(1, 10**25)], [1 - Fraction(1, 10**20), Fraction(1, 10**20)]),
        ("spread 1e-20 about 1/2", [half - Fraction(1, 10**20), half + Fraction(1, 10**20)], [half, half]),
        ("degenerate at 1/3 (equality)", [third] * 3, [third] * 3),
        ("degenerate at 1 - 1e-40 (equality)", [1 - Fraction(1, 10**40)], [Fraction(1)]),
    ]
    key_cases = [("[e1, e1, e1, e2, e2]", kit.exact([[1, 1, 1, 0, 0], [0, 0, 0, 1, 1]]))]
    key_cases += [(label, K) for label, K in precise_keys(ctx) if label.startswith("cond 1e20")]
    for label, K in key_cases:
        h = list(linmem.leverage_scores(K))  # the law's producer: the law under test is that of h
        if all(x < 1 for x in h):
            laws.append((f"leverage of {label}", h, [Fraction(1, len(h))] * len(h)))
    return [(label, (kit.exact(hs), kit.exact(ws))) for label, hs, ws in laws]


@st.composite
def _float_leverage_laws(draw):
    """Explicit laws (edge values included), near-degenerate laws (spread
    1e-15 to 1e-4) and the leverage of float keys of every family."""
    how = draw(st.sampled_from(("explicit", "near-degenerate", "keys")))
    if how == "keys":
        case = draw(float_key_cases())
        h = np.clip(linmem.leverage_scores(case.K), 0.0, 1.0)  # the law's producer, not under test
        return Case((h, np.full(len(h), 1 / len(h))), {"law": case.describe()})
    n = draw(st.integers(1, 8))
    value = st.one_of(st.floats(0.0, 1.0, exclude_max=True), st.sampled_from(LEVERAGE_EDGES))
    if how == "explicit":
        h = np.array([draw(value) for _ in range(n)])
    else:
        step = draw(st.sampled_from((1e-15, 1e-12, 1e-8, 1e-4)))
        h = np.clip(draw(value) + step * np.array([draw(st.integers(-3, 3)) for _ in range(n)]), 0.0,
                    float(np.nextafter(1.0, 0.0)))
    w = np.array([draw(st.floats(1e-6, 1.0)) for _ in range(n)])
    return Case((h, w / np.sum(w)), {"law": how, "h": h.tolist(), "weights": (w / np.sum(w)).tolist()})


def leverage_laws() -> Inputs:
    """``(h, weights)``: a finite law of a leverage score, values ``h`` and
    their probabilities ``weights`` (positive, summing to one), for claims
    about ``E f(h)`` (e.g. the mean SNR). Exact: values k/q (q <= 60) in
    [0, 1) with integer weights normalised exactly. Ladder: both ends of
    [0, 1) at 1e-30, a weight 1e-20 at 1 - 1e-25, a spread 1e-20 about 1/2,
    degenerate laws (at 1/3 and at 1 - 1e-40), and the leverage of exact
    keys (precise_keys' condition-1e20 keys, duplicated keys), uniform over
    the keys. Float: explicit laws with :data:`LEVERAGE_EDGES` (0, the
    smallest subnormal, the largest float below 1), near-degenerate laws
    (spread 1e-15 to 1e-4), and the leverage of float keys of every family
    (uniform; clipped to [0, 1], so h = 1 may occur there)."""
    return Inputs(("h", "weights"), _exact_leverage_laws(), _extreme_leverage_laws, _float_leverage_laws(),
                  "laws of h on [0, 1): both ends, rare leverage near 1, (near-)degenerate, leverage of keys")


# --- near-parallel unit keys: a small singular value on purpose -----------------------


def near_parallel_key_matrix(t, d: int, M: int, R) -> np.ndarray:
    """Unit keys ``e_1`` and ``(cos theta, sin theta, 0, ...)`` with
    ``tan(theta/2) = t`` (:func:`theorems.authoring.kit.stereographic`), then ``e_3 ..
    e_M`` (``2 <= M <= d``: independent keys), rotated by the orthogonal
    ``R`` (d x d); exactly unit when ``t`` and ``R`` are rational. The
    smallest singular value is ``s_min = sqrt(2) t / sqrt(1 + t^2)``.

    >>> near_parallel_key_matrix(Fraction(1, 2), 2, 2, kit.eye(2, np.zeros((1, 1), dtype=object))).tolist()
    [[1, Fraction(3, 5)], [0, Fraction(4, 5)]]
    """
    if not (isinstance(d, int) and isinstance(M, int) and 2 <= M <= d):
        raise ValueError(f"d and M must be integers with 2 <= M <= d, got d={d!r}, M={M!r}")
    if np.shape(R) != (d, d):
        raise ValueError(f"R must be a {d} x {d} orthogonal matrix, got shape {np.shape(R)}")
    K0 = kit.eye(d, np.array([t]))[:, :M]
    K0[:2, 1] = kit.stereographic([t])[::-1]
    return R @ K0


def near_parallel_gain(t, M):
    """``||K^+||_F^2`` of :func:`near_parallel_key_matrix` in closed form (any
    number system, sympy symbols included): ``(1 + t^2)^2 / (2 t^2) + M - 2``.

    >>> near_parallel_gain(Fraction(1, 2), 3)
    Fraction(33, 8)
    """
    return (1 + t * t) ** 2 / (2 * t * t) + (M - 2)


def near_parallel_smallest_sq(t):
    """``s_min^2 = 1 - cos(theta) = 2 t^2 / (1 + t^2)`` of
    :func:`near_parallel_key_matrix` for ``0 < t <= 1``."""
    return 2 * t * t / (1 + t * t)


@st.composite
def _exact_near_parallel(draw, taus):
    t = draw(st.one_of(
        st.integers(1, 10**6).map(lambda n: Fraction(1, n)),
        st.integers(1, 40).map(lambda k: Fraction(1, 10**k)),
        st.tuples(st.integers(1, 9), st.integers(1, 9)).map(lambda ab: Fraction(min(ab), max(ab))),
    ))
    d = draw(st.integers(2, 4))
    M = draw(st.integers(2, d))
    R = ensembles.rational_orthogonal(d, rng=np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
    return near_parallel_key_matrix(t, d, M, R), draw(exact_value_matrices(M)), t, draw(st.sampled_from(taus))


def _precise_near_parallel(stream: str, tau):
    def cases(ctx):
        rng = ctx.rng(stream)
        out = []
        for k, d, M in ((10, 2, 2), (20, 3, 3), (30, 4, 3), (40, 3, 2)):
            t = Fraction(1, 10**k)
            K = near_parallel_key_matrix(t, d, M, ensembles.rational_orthogonal(d, rng=rng))
            # s_min = sqrt(2) t / sqrt(1 + t^2), i.e. 1.41e-k to many digits
            out.append((f"s_min = 1.41e-{k}, {d}x{M} unit keys", (K, kit.exact(rng.integers(-3, 4, size=(2, M))), t,
                                                                   tau)))
        return out

    return cases


@st.composite
def _float_near_parallel(draw, taus):
    d = draw(st.integers(2, 8))
    M, p = draw(st.integers(2, d)), draw(st.integers(1, 5))
    t, tau = 10.0 ** -draw(st.floats(0, 12)), draw(st.sampled_from(taus))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    R, _ = np.linalg.qr(rng.standard_normal((d, d)))
    K = near_parallel_key_matrix(t, d, M, R).astype(float)
    return Case((K, rng.standard_normal((p, M)), t, tau), {"d": d, "M": M, "p": p, "t": t, "tau": tau, "seed": seed})


def near_parallel_queries(taus: Sequence, *, float_taus: Sequence[float] = (0.1, 1.0, 3.0),
                          stream: str = "near-parallel keys") -> Inputs:
    """``(K, V, t, tau)``: :func:`near_parallel_key_matrix` keys (d <= 4,
    ``t`` from 1/10^6 and 1/10^40 to 1, any rational rotation; exact), their
    values and a noise level, for claims about a small singular value (noise
    gain, conditioning). Exact: integer values, ``tau`` from ``taus``.
    Ladder: ``s_min`` 1.4e-10 to 1.4e-40 in 2x2, 3x3, 4x3, 3x2 keys (rotations
    from ``ctx.rng(stream)``), integer values, ``tau = taus[0]``. Float: d <= 8,
    ``t`` down to 1e-12, a random orthogonal rotation, Gaussian values,
    ``tau`` from ``float_taus``."""
    return Inputs(("K", "V", "t", "tau"), _exact_near_parallel(tuple(taus)), _precise_near_parallel(stream, taus[0]),
                  _float_near_parallel(tuple(float_taus)),
                  "two unit keys at tan(theta/2) = t plus orthonormal others: t to 1e-40 (exact), "
                  "s_min 1.4e-10 to 1.4e-40 (mpmath), t to 1e-12 (float64)")


# --- continuous query noise of mean 0 and covariance tau^2 I --------------------------


#: The continuous noise laws of :func:`continuous_noise`.
CONTINUOUS_NOISE_KINDS = ("gaussian", "uniform", "laplace")


def continuous_noise(kind: str, rng: np.random.Generator, shape, tau: float) -> np.ndarray:
    """Independent coordinates of mean 0 and variance ``tau^2`` (so covariance
    ``tau^2 I``): ``gaussian`` N(0, tau^2), ``uniform`` on ``[-sqrt(3) tau,
    sqrt(3) tau]``, ``laplace`` with scale ``tau / sqrt(2)``; the Monte Carlo
    counterpart of :func:`noise_design`.

    >>> x = continuous_noise("laplace", np.random.default_rng(0), (200_000,), 0.5)
    >>> round(float(np.var(x)), 2)
    0.25
    """
    if kind == "gaussian":
        return tau * rng.standard_normal(shape)
    if kind == "uniform":
        half_width = math.sqrt(3) * tau  # variance (sqrt(3) tau)^2 / 3 = tau^2
        return rng.uniform(-half_width, half_width, shape)
    if kind == "laplace":
        return rng.laplace(0.0, tau / math.sqrt(2), shape)  # variance 2 b^2 = tau^2
    raise ValueError(f"kind must be one of {CONTINUOUS_NOISE_KINDS}, got {kind!r}")


# --- spherical designs with a fixed key, and with sign values -------------------------


@st.composite
def sphere_design_and_key(draw, *, kinds: Sequence[str] = SPHERE_DESIGN_KINDS):
    """``(k_j, design)``: a :func:`sphere_designs` law and a fixed exactly unit
    key ``k_j`` of its dimension (for statements conditional on one key): a
    generic rational unit vector (:func:`rational_unit_columns`), a
    coordinate vector or one of the design's own points."""
    design = draw(sphere_designs(kinds=kinds))
    d = design.info["d"]
    how = draw(st.sampled_from(("rational", "coordinate", "design point")))
    if how == "rational":
        kj = draw(rational_unit_columns(d, 1))[:, 0]
    elif how == "coordinate":
        a = draw(st.integers(0, d - 1))
        kj = np.array([int(b == a) for b in range(d)], dtype=object)
    else:
        kj = design.outcomes[0][draw(st.integers(0, len(design) - 1))]
    return kj, design


#: Fixed exactly-unit value directions ``w_i`` by value dimension p (some not
#: orthogonal to each other) for the sign values ``v_i = s_i w_i``; integral
#: entries stay ints (fast exact arithmetic).
SIGN_VALUE_DIRECTIONS = {
    1: tuple(np.array([[1], [-1]], dtype=object)),
    2: tuple(np.array([[1, 0], [0, 1], [Fraction(3, 5), Fraction(4, 5)], [Fraction(-5, 13), Fraction(12, 13)]],
                      dtype=object)),
}


@functools.lru_cache(maxsize=None)
def _design_counts(designs: tuple, max_outcomes: int, max_count: int, unit_snr: bool) -> tuple:
    out = []
    for spec in designs:
        N, d = len(sphere_design(*spec)), sphere_design(*spec).info["d"]
        out += [(spec, M) for M in range(1, max_count + 1)
                if (2 * N) ** M <= max_outcomes or (unit_snr and M == d + 1 == 3)]
    return tuple(sorted(out, key=lambda c: len(sphere_design(*c[0])) ** c[1]))


@st.composite
def design_keys_and_sign_values(draw, designs: Sequence[tuple], *, max_outcomes: int, max_count: int = 5,
                                unit_snr: bool = False):
    """``(d, M, law)``: the joint law of M independent keys from one of the
    :func:`sphere_design` specs ``designs`` (``(N^M, 1, d, M)``) and the sign
    values ``v_i = s_i w_i`` (``(1, 2^M, p, M)``), the directions ``w_i``
    drawn from :data:`SIGN_VALUE_DIRECTIONS` (p = 1 or 2). The pairs (design,
    M) are those with ``M <= max_count`` whose enumeration, ``(2N)^M`` joint
    outcomes, stays within ``max_outcomes``, and with ``unit_snr`` also
    M = d + 1 for d = 2 (the outer product's unit-SNR point); cheapest (N^M)
    first, where a failing case shrinks to."""
    specs = _design_counts(tuple(tuple(x) for x in designs), max_outcomes, max_count, unit_snr)
    spec, M = draw(st.sampled_from(specs))
    table = SIGN_VALUE_DIRECTIONS[draw(st.sampled_from(sorted(SIGN_VALUE_DIRECTIONS)))]
    W0 = np.stack([table[draw(st.integers(0, len(table) - 1))] for _ in range(M)], axis=1)
    design = sphere_design(*spec)
    return design.info["d"], M, design.stacked(M) * kit.sign_law(W0)


@functools.lru_cache(maxsize=None)
def noise_design_defect(kind: str, d: int, tau) -> Fraction:
    """Exact ``||E eta||^2 + ||E eta eta^T - tau^2 I_d||_F^2`` of
    :func:`noise_design` ``(kind, d, tau)``, recomputed from its outcomes and
    weights: zero by construction, so a check that averages over the design
    can certify the two moments it relies on (cached per design).

    >>> noise_design_defect("skewed", 2, Fraction(1, 3))
    Fraction(0, 1)
    """
    law = noise_design(kind, d, tau)
    eta = law.outcomes[0]
    second = law.mean(eta @ np.swapaxes(eta, -1, -2))
    return Fraction(kit.sq(law.mean(eta)) + kit.sq(second - tau**2 * kit.eye(d, eta)))


# --- competitor scores in three number systems (the top-k average claims) ----------------


@st.composite
def _score_pairs(draw):
    """Case ``(a, b, k, theta)``: ``a, k`` from :func:`score_vectors`, ``b``
    Gaussian times ``1 + max |a|`` (integers half the time: ties in b too)."""
    info, a, k = draw(score_vectors())
    seed = draw(st.integers(0, 2**32 - 1))
    b = np.random.default_rng(seed).standard_normal(a.size) * (1 + np.max(np.abs(a)))
    b = np.round(b) if draw(st.booleans()) else b
    theta = draw(st.sampled_from((0.5, 1 / 3, 0.9, 1e-3)))
    return Case((a, b, k, theta), {**info, "seed_b": seed, "theta": theta})


def score_inputs(*, pairs: bool = False) -> Inputs:
    """Competitor scores ``(s, k)``: float64 :func:`score_vectors` (Gaussian,
    integer ties, all tied, 16 decades), the same draws as exact rationals
    (their binary values), and on the ladder exact vectors all tied, at two
    levels, near-tied 1e-40 apart and over 16 decades, k = 1, 3, m.
    ``pairs=True``: ``(a, b, k, theta)``, segments between two score vectors
    (``b`` Gaussian, integer half the time, theta in {1/2, 1/3, 0.9, 1e-3};
    on the ladder ``b`` is ``a`` reversed and theta 1/2 or 1/3)."""
    tiny = Fraction(1, 10**40)
    vectors = [("all tied", [Fraction(3)] * 6), ("two levels", [Fraction(2)] * 3 + [Fraction(-1)] * 3),
               ("near ties", [Fraction(1) + i * tiny for i in range(6)]),
               ("wide", [Fraction(10) ** e * (-1) ** (e % 2) for e in range(-8, 9, 3)])]
    cases = [(f"{label}, k={k}", (np.array(vec, dtype=object), k)) for label, vec in vectors for k in (1, 3, len(vec))]
    if pairs:
        cases = [(f"{label}, theta={th}", (s, s[::-1], k, th)) for label, (s, k) in cases
                 for th in (Fraction(1, 2), Fraction(1, 3))]

    def exact(case):  # the float draw at its binary value
        return tuple(x if isinstance(x, int) else kit.exact(x) if isinstance(x, np.ndarray) else Fraction(x)
                     for x in case.args)

    floats = _score_pairs() if pairs else score_vectors().map(lambda c: Case(c[1:], c[0]))
    return Inputs(("a", "b", "k", "theta") if pairs else ("s", "k"), floats.map(exact), lambda ctx: cases, floats,
                  "competitor scores: ties, all tied, near-ties 1e-40 apart (mpmath), 16 decades"
                  + (", segments between two score vectors" if pairs else ""))
