"""Guards every public linmem function calls before touching its arguments.

Each guard either returns a cleaned value or raises ``TypeError`` (wrong type)
or ``ValueError`` (right type, wrong value) with a message naming the
argument, what it got and what it needs.

Three number systems are accepted for arrays, and every formula in linmem is
written once for all of them:

* ``float``: real ``float64`` arrays (ints are promoted; bool, complex and
  other objects are refused);
* ``mpmath``: object arrays whose entries are all ``mpmath.mpf``, for the
  high-precision evidence (see :mod:`linmem.precise`);
* ``exact``: object arrays whose entries are all ``int`` or
  ``fractions.Fraction``, for exact rational arithmetic.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

__all__ = [
    "FLOAT",
    "EXACT",
    "MPMATH",
    "MAX_ARRAY_BYTES",
    "as_matrix",
    "as_vector",
    "check_generator",
    "check_in_closed_interval",
    "check_memory",
    "check_nonnegative_scalar",
    "check_nonzero_columns",
    "check_positive_int",
    "check_positive_real",
    "check_probability",
    "check_representable",
    "check_same_count",
    "check_unit_columns",
    "frobenius",
    "frobenius_sq",
    "max_abs",
    "number_kind",
]

FLOAT = "float"
MPMATH = "mpmath"
EXACT = "exact"

#: Largest array a linmem function will allocate in one piece, in bytes.
#: Requests above it are refused up front with the size they would need.
MAX_ARRAY_BYTES = 8 * 2**30


def _describe(x: Any) -> str:
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape} and dtype {x.dtype}"
    return f"{type(x).__name__} {x!r}"[:120]


def _object_kind(arr: np.ndarray, name: str) -> str:
    flat = arr.ravel()
    if flat.size == 0:
        return EXACT
    if any(isinstance(e, mpmath.mpf) for e in flat) and all(
        isinstance(e, mpmath.mpf) or (isinstance(e, int) and not isinstance(e, bool)) for e in flat
    ):
        return MPMATH  # integers are exact at any precision
    if any(isinstance(e, mpmath.mpf) for e in flat) and any(isinstance(e, Fraction) for e in flat):
        raise TypeError(
            f"{name} mixes mpmath.mpf and fractions.Fraction entries; convert the whole "
            "array with linmem.mp_array (high precision) or linmem.exact_array (exact)"
        )
    if all(isinstance(e, (int, Fraction)) and not isinstance(e, bool) for e in flat):
        return EXACT
    bad = next(
        e
        for e in flat
        if not isinstance(e, (mpmath.mpf, int, Fraction)) or isinstance(e, bool)
    )
    raise TypeError(
        f"{name} has object dtype with an entry of type {type(bad).__name__}; "
        "object arrays must hold only mpmath.mpf (high precision) or only "
        "int/fractions.Fraction (exact) entries"
    )


def number_kind(arr: np.ndarray) -> str:
    """Return ``"float"``, ``"mpmath"`` or ``"exact"`` for a validated array."""
    if arr.dtype != object:
        return FLOAT
    return _object_kind(arr, "array")


def as_matrix(
    x: Any, name: str, *, ndim: int = 2, allow_empty: bool = False
) -> np.ndarray:
    """Validate ``x`` as a real finite array with ``ndim`` dimensions.

    Returns a float64 array, or the object array unchanged for the mpmath and
    exact number systems.

    >>> as_matrix([[1, 2]], "K").dtype
    dtype('float64')
    >>> as_matrix([1, 2], "K")
    Traceback (most recent call last):
    ...
    ValueError: K must be a 2-D array, got shape (2,)
    """
    if isinstance(x, (str, bytes)) or x is None or isinstance(x, dict):
        raise TypeError(f"{name} must be a real array, got {_describe(x)}")
    if isinstance(x, np.ndarray) and x.dtype == object:
        arr = x
    else:
        try:
            arr = np.asarray(x)
        except (ValueError, TypeError) as exc:
            raise TypeError(
                f"{name} must be a real array, got {_describe(x)} ({exc})"
            ) from None
    if arr.dtype == object:
        if arr.ndim != ndim:
            raise ValueError(
                f"{name} must be a {ndim}-D array, got shape {arr.shape}"
            )
        kind = _object_kind(arr, name)
        if kind == MPMATH and not all(mpmath.isfinite(e) for e in arr.ravel()):
            raise ValueError(f"{name} must have finite entries, got NaN or inf")
        _check_nonempty(arr, name, allow_empty)
        return arr
    if arr.dtype == bool:
        raise TypeError(
            f"{name} must be a real numeric array, got dtype bool; "
            "convert explicitly with .astype(float)"
        )
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real, got complex dtype {arr.dtype}")
    if not (
        np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)
    ):
        raise TypeError(
            f"{name} must be a real numeric array, got dtype {arr.dtype}"
        )
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    _check_nonempty(arr, name, allow_empty)
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} must have finite entries, got {bad} NaN or inf entries"
        )
    return arr


def _check_nonempty(arr: np.ndarray, name: str, allow_empty: bool) -> None:
    if not allow_empty and arr.size == 0:
        raise ValueError(f"{name} must be non-empty, got shape {arr.shape}")


def as_vector(x: Any, name: str) -> np.ndarray:
    """Validate ``x`` as a real finite 1-D array (see :func:`as_matrix`)."""
    return as_matrix(x, name, ndim=1)


def check_same_count(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    """Keys and values pair up column by column: both need the same column count."""
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(
            f"{name_a} and {name_b} must have the same number of columns "
            f"(one per stored pair), got {a.shape[-1]} and {b.shape[-1]}"
        )


def _column_norms_sq(K: np.ndarray) -> np.ndarray:
    return np.sum(K * K, axis=0)


def check_nonzero_columns(K: np.ndarray, name: str) -> None:
    """Refuse a zero column (a key with no direction)."""
    # Nonzero entries, not squared norms: a key of size 1e-300 is a key.
    zero = [j for j in range(K.shape[1]) if not any(e != 0 for e in K[:, j])]
    if zero:
        raise ValueError(
            f"{name} must have nonzero columns, got zero column(s) at index {zero[:5]}"
        )


def check_unit_columns(K: np.ndarray, name: str, *, rtol: float | None = None) -> None:
    """Refuse columns whose norm is not one (within ``rtol`` for floats).

    Exact arrays must have norm exactly one; mpmath arrays within a few ulps
    of the working precision; float arrays within ``rtol`` (default
    ``linmem.tolerances.UNIT_NORM_RTOL``).
    """
    from linmem.tolerances import UNIT_NORM_RTOL, working_eps

    check_nonzero_columns(K, name)
    norms = _column_norms_sq(K)
    kind = number_kind(K)
    if kind == EXACT:
        bad = [j for j, n in enumerate(norms) if n != 1]
    else:
        tol = rtol if rtol is not None else UNIT_NORM_RTOL * (
            1.0 if kind == FLOAT else float(working_eps(kind)) / np.finfo(float).eps
        )
        bad = [j for j, n in enumerate(norms) if abs(n - 1) > tol * max(1, K.shape[0])]
    if bad:
        j = bad[0]
        raise ValueError(
            f"{name} must have unit-norm columns, got squared norm {norms[j]} "
            f"in column {j}; normalise the keys or use a function that allows "
            "non-unit keys"
        )


def check_nonnegative_scalar(x: Any, name: str) -> float:
    """A real, finite, nonnegative scalar (a noise level, a ridge)."""
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"{name} must be a real number, got {_describe(x)}")
    if not mpmath.isfinite(x) or x < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {x}")
    return x


def check_probability(x: Any, name: str) -> float:
    """A probability strictly inside (0, 1)."""
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"{name} must be a real number, got {_describe(x)}")
    if not (0 < x < 1):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {x}")
    return x


def check_in_closed_interval(x: Any, name: str, lo: float, hi: float) -> Any:
    """A real scalar in [lo, hi]."""
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, mpmath.mpf)):
        raise TypeError(f"{name} must be a real number, got {_describe(x)}")
    if not (lo <= x <= hi):
        raise ValueError(f"{name} must lie in [{lo}, {hi}], got {x}")
    return x


def check_positive_real(x: Any, name: str, *, above: float = 0.0) -> float:
    """A finite real number > ``above`` (0 by default; not a bool) as a
    float; an integer beyond float range is refused as not finite, never an
    OverflowError."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__} {x!r}")
    try:
        x = float(x)
    except OverflowError:  # an integer beyond float range
        x = math.inf
    if not (math.isfinite(x) and x > above):
        raise ValueError(f"{name} must be a finite number > {above:g}, got {x}")
    return x


def check_positive_int(n: Any, name: str, *, minimum: int = 1) -> int:
    """An integer (not a bool) at least ``minimum``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_describe(n)}")
    if n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {n}")
    return int(n)


def check_generator(rng: Any, name: str = "rng") -> np.random.Generator:
    """Randomness only through an explicit ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (e.g. "
            f"numpy.random.default_rng(0)), got {_describe(rng)}"
        )
    return rng


def check_memory(n_items: int, itemsize: int, what: str) -> None:
    """Refuse, before allocating, an array larger than :data:`MAX_ARRAY_BYTES`."""
    need = int(n_items) * int(itemsize)
    if need > MAX_ARRAY_BYTES:
        # integer sizes beyond float range (dim = 10**400) still get a message
        bits = need.bit_length()
        size = f"{need / 2**30:.1f}" if bits < 1000 else f"about 2**{bits - 31}"
        raise ValueError(
            f"{what} would need {size} GiB, more than the "
            f"{MAX_ARRAY_BYTES / 2**30:.0f} GiB linmem allocates at once; "
            "use a smaller size or the chunked variant"
        )


def max_abs(A: np.ndarray) -> float:
    """Largest ``|a_ij|`` of a float array (0.0 for an all-zero one): the
    factor linmem divides by before an SVD or a norm, so that neither
    underflows nor overflows at any finite scale of the input."""
    return float(np.max(np.abs(A))) if A.size else 0.0


def frobenius(A: np.ndarray) -> float:
    """``||A||_F`` of a float array without overflow or underflow of the
    squares: ``c ||A / c||_F`` with ``c`` the largest ``|a_ij|``."""
    c = max_abs(A)
    if c == 0.0:
        return 0.0
    B = A / c
    return c * float(np.sqrt(np.sum(B * B)))


def frobenius_sq(A: np.ndarray, factor: float = 1.0) -> float:
    """``(factor ||A||_F)^2`` of a float array, formed as ``(factor c)^2
    ||A / c||_F^2`` with ``c`` the largest ``|a_ij|`` (no overflow or
    underflow of the squares; inf only when the result itself overflows)."""
    c = max_abs(A)
    if c == 0.0:
        return 0.0
    B = A / c
    with np.errstate(over="ignore"):
        return float((np.float64(factor) * c) ** 2 * np.sum(B * B))


def check_representable(x: Any, what: str, hint: str, *, nonzero: Any = None) -> Any:
    """Refuse a float figure that left float64's range (about 2.2e-308 to
    1.8e308 in magnitude, subnormals down to 4.9e-324): raise ``ValueError``
    naming ``what`` and how to bring the inputs into range (``hint``).
    ``nonzero`` (a boolean mask like ``x``) marks entries known to be
    nonzero, whose rounding to 0 is an underflow refused the same way."""
    arr = np.asarray(x)
    if arr.dtype != object and not np.all(np.isfinite(arr)):
        raise ValueError(
            f"{what} exceeds float64's range (magnitudes up to about 1.8e308): {hint}"
        )
    if nonzero is not None and arr.dtype != object and np.any((arr == 0) & np.asarray(nonzero)):
        raise ValueError(
            f"{what} falls below float64's range (nonzero magnitudes down to about 4.9e-324) "
            f"and would read as exactly 0: {hint}"
        )
    return x

