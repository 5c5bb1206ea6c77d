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
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles

__all__ = [
    "FLOAT_KEY_FAMILIES",
    "ILL_CONDITIONING",
    "Case",
    "Inputs",
    "KeyCase",
    "exact_key_matrices",
    "exact_keys_and_values",
    "exact_unit_key_matrices",
    "exact_value_matrices",
    "float_key_cases",
    "integer_matrices",
    "keys",
    "keys_and_values",
    "lp_instances",
    "precise_keys",
    "precise_values",
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

# The ladder's fixed exact keys live in theorems.claims._cases (kept there
# while other claim modules import them); this is their public name.
from theorems.claims._cases import precise_key_cases as _precise_key_cases  # noqa: E402
from theorems.claims._cases import precise_values as _precise_values  # noqa: E402


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
    what the family covers, in words (it becomes the check descriptions).
    """

    names: tuple[str, ...]
    exact: st.SearchStrategy
    precise: Callable[[Any], Sequence[tuple[str, tuple]]]
    floats: st.SearchStrategy
    about: str = ""

    def describe(self, args: tuple) -> dict:
        """An exact input as ``{name: value}``."""
        return dict(zip(self.names, args))


def _key_case(case: KeyCase, with_values: bool) -> Case:
    return Case((case.K, case.V) if with_values else (case.K,), case.describe())


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
                  "any keys: rank-deficient, duplicated, condition to 1e12 (float) and 1e20 (mpmath)")


def unit_keys() -> Inputs:
    """Unit-norm keys: exactly unit rational keys (some duplicated), the
    ladder's unit keys, float keys of every family normalised."""

    def ladder(ctx):
        return [(label, (K,)) for label, K in precise_keys(ctx, unit=True)]

    return Inputs(("K",), exact_unit_key_matrices().map(lambda K: (K,)), ladder,
                  unit_key_cases().map(lambda c: _key_case(c, False)),
                  "unit keys: duplicated, near copies (condition about 1e15 in mpmath)")


def keys_and_values(*, unit: bool = False) -> Inputs:
    """(K, V): any keys as in :func:`keys` (``unit=True``: as in
    :func:`unit_keys`) and integer (exact) or Gaussian (float) values with as
    many columns, p != d included."""

    def ladder(ctx):
        return [(label, (K, precise_values(K, ctx))) for label, K in precise_keys(ctx, unit=unit)]

    if unit:
        exact = exact_unit_key_matrices().flatmap(lambda K: exact_value_matrices(K.shape[1]).map(lambda V: (K, V)))
        return Inputs(("K", "V"), exact, ladder, unit_key_cases().map(lambda c: _key_case(c, True)),
                      "unit keys and any values: duplicated, near copies (condition about 1e15 in mpmath)")
    return Inputs(("K", "V"), exact_keys_and_values(), ladder,
                  float_key_cases().map(lambda c: _key_case(c, True)),
                  "any keys and values: rank-deficient, duplicated, condition to 1e12 (float) and 1e20 (mpmath)")


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
