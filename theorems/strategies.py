"""Hypothesis strategies for the inputs of the claims.

Float key matrices are drawn as *recipes* (family, sizes, seed, condition
number, rank) and built with :mod:`linmem.ensembles`, so that a failing case
shrinks to small sizes and replays from its JSON description. Exact inputs
are small integer or exactly-unit rational matrices drawn entry by entry, so
they shrink to the simplest matrix that fails.

Every strategy is tested (tests/test_strategies.py) to produce what its name
promises: the rank, the condition number, the duplicates, the unit norms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import linmem
from linmem import ensembles

__all__ = [
    "FLOAT_KEY_FAMILIES",
    "ILL_CONDITIONING",
    "KeyCase",
    "exact_key_matrices",
    "exact_keys_and_values",
    "exact_unit_key_matrices",
    "exact_value_matrices",
    "float_key_cases",
    "unit_key_cases",
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
