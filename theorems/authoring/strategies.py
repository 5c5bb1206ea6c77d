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
    "SCORE_KINDS",
    "SIGN_VALUE_DIRECTIONS",
    "SPHERE_DESIGN_KINDS",
    "STORE_LADDER",
    "exact_column",
    "exact_factored",
    "exact_independent_keys",
    "exact_key_matrices",
    "exact_keys_and_values",
    "exact_unit_key_matrices",
    "exact_value_matrices",
    "factored",
    "factored_cases",
    "float_factored",
    "float_independent_key_cases",
    "float_key_cases",
    "independent_ladder_keys",
    "integer_matrices",
    "keys",
    "keys_and_values",
    "near_parallel_key_matrix",
    "orthogonal_matrices",
    "precise_keys",
    "precise_values",
    "rational_unit_columns",
    "rng_seeds",
    "square_root",
    "unit_key_cases",
    "unit_keys",
]


def rng_seeds() -> st.SearchStrategy[int]:
    """Seeds of the numpy generators a strategy draws its floats from: the
    whole range ``np.random.default_rng`` takes from a 32-bit integer,
    shrinking toward 0."""
    return st.integers(0, 2**32 - 1)


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
    seed = draw(rng_seeds())
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
    seed = draw(rng_seeds())
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
    reruns one float case; None when the family cannot. ``exact_examples``:
    exact argument tuples the exact check runs first at every seed, beside
    its search (a case that must always be seen, e.g. the one where a
    claim's negative control differs from the claim); ``float_examples``:
    :class:`Case` objects the float check runs first at every seed.
    """

    names: tuple[str, ...]
    exact: st.SearchStrategy
    precise: Callable[[Any], Sequence[tuple[str, tuple]]]
    floats: st.SearchStrategy
    about: str = ""
    rebuild: Callable[[Any], Case] | None = None
    exact_examples: tuple = ()
    float_examples: tuple = ()

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


# --- keys and targets for the top-1 comparisons --------------------------------------


#: Denominator bound of the rational Gaussian entries of :func:`comparison_ladder_cases`.
COMPARISON_LADDER_DENOMINATOR = 10**6

#: Keys of the ``scaled`` family of :func:`float_comparison_instances` have
#: norms ``10^e``, ``e`` in ``-COMPARISON_SCALED_DECADES..COMPARISON_SCALED_DECADES``.
COMPARISON_SCALED_DECADES = 6


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
    seed = draw(rng_seeds())
    rng = np.random.default_rng(seed)
    s = magnitude * (np.geomspace(1.0, 1.0 / cond, r) if r > 1 else np.ones(r))
    F = Factored(np.linalg.qr(rng.standard_normal((m, m)))[0][:, :r], s, np.linalg.qr(rng.standard_normal((n, n)))[0])
    return Case((F,), {"m": m, "n": n, "rank": r, "cond": cond, "magnitude": magnitude, "seed": seed})


# --- scores and memories of retrieval claims (top-k averages, TAM margins, Cover) ----


#: The kinds of :func:`score_vectors`.
SCORE_KINDS = ("gaussian", "ties", "tied", "wide")


# --- exact keys with a prescribed leverage (the capacity claims) ------------------------


# --- finite designs: exact stand-ins for the sphere and for query noise --------------

import math  # noqa: E402

from theorems.authoring import kit  # noqa: E402


#: The finite key laws of :func:`sphere_design`.
SPHERE_DESIGN_KINDS = ("coordinate", "frame", "sign", "plane", "orbit")


def exact_column(xs) -> np.ndarray:
    """An exact column; integral entries stay Python ints, which keeps exact arithmetic fast."""
    fr = [Fraction(x) for x in xs]
    return np.array([int(x) if x.denominator == 1 else x for x in fr], dtype=object)


def square_root(d: int, what: str) -> int:
    root = math.isqrt(d) if isinstance(d, int) and d >= 1 else 0
    if root * root != d:
        raise ValueError(f"the {what} design needs a square dimension d >= 1 (rational sqrt(d)), got {d!r}")
    return root


@st.composite
def rational_unit_columns(draw, dim: int, count: int) -> np.ndarray:
    """``count`` exactly unit rational vectors in R^dim (a dim x count object
    array) by inverse stereographic projection (:func:`theorems.authoring.kit.stereographic`)
    of small rational points, drawn entry by entry, so that a failing case
    shrinks in a few steps (toward e_dim); ±1 in R^1."""
    cols = []
    for _ in range(count):
        if dim == 1:
            cols.append(exact_column([draw(st.sampled_from((1, -1)))]))
        else:
            t = [Fraction(draw(st.integers(-3, 3)), draw(st.integers(1, 3))) for _ in range(dim - 1)]
            cols.append(exact_column(kit.stereographic(t)))
    return np.stack(cols, axis=1)


# --- exact keys with a repeated key (leverage strictly inside (0, 1)) -----------------


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
        seed = draw(rng_seeds())
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
    return KeyCase.build(family, d, M, p, draw(rng_seeds()), cond=cond, unit=draw(st.booleans()))


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


# --- finite laws of a leverage score (claims about E f(h), h in [0, 1)) -----------------


#: Leverage values at the edges of [0, 1) for the float laws of :func:`leverage_laws`.
LEVERAGE_EDGES = (0.0, 5e-324, 1e-300, 0.5, 1 - 1e-8, float(np.nextafter(1.0, 0.0)))


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


# --- continuous query noise of mean 0 and covariance tau^2 I --------------------------


#: The continuous noise laws of :func:`continuous_noise`.
CONTINUOUS_NOISE_KINDS = ("gaussian", "uniform", "laplace")


# --- spherical designs with a fixed key, and with sign values -------------------------


#: Fixed exactly-unit value directions ``w_i`` by value dimension p (some not
#: orthogonal to each other) for the sign values ``v_i = s_i w_i``; integral
#: entries stay ints (fast exact arithmetic).
SIGN_VALUE_DIRECTIONS = {
    1: tuple(np.array([[1], [-1]], dtype=object)),
    2: tuple(np.array([[1, 0], [0, 1], [Fraction(3, 5), Fraction(4, 5)], [Fraction(-5, 13), Fraction(12, 13)]],
                      dtype=object)),
}


# --- competitor scores in three number systems (the top-k average claims) ----------------


