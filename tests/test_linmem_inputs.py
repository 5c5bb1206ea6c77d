"""Bad input to every public linmem function gets a ValueError or TypeError
whose message names the argument, what it got and what it needs. One table.

Each row is (callable, args, kwargs, exception, fragment of the message); the
fragment always names the argument. Rows for the categories every array (or
integer, or positive real, ...) argument shares are expanded by the small
helpers below, so that a new function gets the whole battery from one line.
Sizes that would exhaust memory are built cheaply (``np.broadcast_to`` views,
or tiny arrays whose product would be huge): the functions must refuse them
before allocating. A meta-test checks that every public callable of linmem
has a row.
"""

from __future__ import annotations

import inspect
import types
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import linmem
from linmem import (
    capacity,
    ensembles,
    learn,
    optimality,
    retrieval,
    tolerances,
)

NAN_K = np.array([[1.0, np.nan], [0.0, 1.0]])
INF_K = np.array([[1.0, np.inf], [0.0, 1.0]])
K2 = np.eye(2)
V2 = np.ones((3, 2))
W32 = np.ones((3, 2))
I3 = np.eye(3)
T3 = np.array([[3.0, 1.0, 0.0], [2.0, 3.0, 0.0], [0.0, 0.0, 3.0]])
RNG = np.random.default_rng(0)
EXACT_K = linmem.exact_array([[1, 0], [0, 1]])
MP_NONUNIT = np.array([[mpmath.mpf(2), mpmath.mpf(0)], [mpmath.mpf(0), mpmath.mpf(1)]], dtype=object)


def _big(rows: int, cols: int) -> np.ndarray:
    """A rows x cols array of ones that costs one float (a broadcast view)."""
    return np.broadcast_to(1.0, (rows, cols))


#: n = 10**6 pairs: a full score matrix would need 7450.6 GiB.
BIG_N = 10**6
#: 10**5 x 10**5 float64 = 74.5 GiB, refused by check_memory.
TALL = 10**5
TALL_MEMORY = linmem.LinearMemory.fit(np.ones((1, 1)), np.ones((TALL, 1)))
GOOD_MEMORY = linmem.LinearMemory.fit(K2, V2)


# --------------------------------------------------------------------------
# row builders: one per category of argument
# --------------------------------------------------------------------------


def _with(args: tuple, kwargs: dict, slot: int | str, value) -> tuple[tuple, dict]:
    """Copy of (args, kwargs) with the argument at ``slot`` replaced by ``value``."""
    args, kwargs = list(args), dict(kwargs)
    if isinstance(slot, int):
        args[slot] = value
    else:
        kwargs[slot] = value
    return tuple(args), kwargs


def bad_arrays(
    func, args, kwargs, slot, name, *, ndim=2, float_only=False, any_ndim=False, allow_none=False
):
    """Every bad array category for the array argument ``name`` at ``slot``
    (``allow_none``: None means the default, as for ``init``)."""
    one_d = ndim == 1
    nan = np.array([1.0, np.nan]) if one_d else NAN_K
    inf = np.array([1.0, -np.inf]) if one_d else INF_K
    mp_nan = np.array([mpmath.mpf(1), mpmath.mpf("nan")], dtype=object)
    if not one_d:
        mp_nan = mp_nan.reshape(1, 2)
    non_numbers = np.array([["a", None]], dtype=object)
    if one_d:
        non_numbers = non_numbers.ravel()
    cases = [] if allow_none else [(None, TypeError, f"{name} must be a real array, got NoneType")]
    cases += [
        ("keys", TypeError, f"{name} must be a real array, got str"),
        ({"a": 1}, TypeError, f"{name} must be a real array, got dict"),
        ([[1.0, 2.0], [3.0]], TypeError, f"{name} must be a real array, got list"),
        (non_numbers, TypeError, f"{name} has object dtype with an entry of type str"),
        (np.eye(2)[0 if one_d else slice(None)] + 1j, TypeError, f"{name} must be real, got complex"),
        (np.eye(2, dtype=bool)[0 if one_d else slice(None)], TypeError, f"{name} must be a real numeric array, got dtype bool"),
        (np.array([["1", "2"]]), TypeError, f"{name} must be a real numeric array, got dtype <U1"),
        (nan, ValueError, f"{name} must have finite entries, got 1 NaN or inf"),
        (inf, ValueError, f"{name} must have finite entries, got 1 NaN or inf"),
        (mp_nan, ValueError, f"{name} must have finite entries, got NaN or inf"),
    ]
    if not any_ndim:
        wrong = np.ones((2, 2)) if one_d else np.ones(3)
        cases += [
            (np.ones((2, 2, 2)), ValueError, f"{name} must be a {ndim}-D array, got shape (2, 2, 2)"),
            (wrong, ValueError, f"{name} must be a {ndim}-D array, got shape {wrong.shape}"),
        ]
    empties = [np.zeros(0)] if one_d else [np.zeros((0, 3)), np.zeros((3, 0))]
    if any_ndim:
        empties = [np.zeros(0), np.zeros((0, 3)), np.zeros((3, 0))]
    cases += [(e, ValueError, f"{name} must be non-empty, got shape {e.shape}") for e in empties]
    if float_only:
        cases.append((EXACT_K, TypeError, f"{name} must be a float array"))
    return [(func, *_with(args, kwargs, slot, v), exc, frag) for v, exc, frag in cases]


def bad_ints(func, args, kwargs, slot, name, *, minimum=1, allow_none=False):
    """An integer argument: too small, a float, a string, None (unless it means
    the default), a bool."""
    cases = [
        (minimum - 1, ValueError, f"{name} must be an integer >= {minimum}, got {minimum - 1}"),
        (2.5, TypeError, f"{name} must be an integer, got float 2.5"),
        (np.float64(3.0), TypeError, f"{name} must be an integer, got float"),
        ("3", TypeError, f"{name} must be an integer, got str"),
        (None, TypeError, f"{name} must be an integer, got NoneType"),
        (True, TypeError, f"{name} must be an integer, got bool"),
    ]
    if allow_none:
        cases = [c for c in cases if c[0] is not None]
    return [(func, *_with(args, kwargs, slot, v), exc, frag) for v, exc, frag in cases]


def bad_positive_reals(func, args, kwargs, slot, name):
    """A real argument that must be finite and > 0 (beta, gamma of snr_capacity, d)."""
    cases = [
        (0, ValueError, f"{name} must be a finite number > 0, got 0"),
        (-1.0, ValueError, f"{name} must be a finite number > 0, got -1"),
        (float("nan"), ValueError, f"{name} must be a finite number > 0, got nan"),
        (float("inf"), ValueError, f"{name} must be a finite number > 0, got inf"),
        ("1", TypeError, f"{name} must be a real number, got str"),
        (None, TypeError, f"{name} must be a real number, got NoneType"),
        (True, TypeError, f"{name} must be a real number, got bool"),
        (1j, TypeError, f"{name} must be a real number, got complex"),
    ]
    return [(func, *_with(args, kwargs, slot, v), exc, frag) for v, exc, frag in cases]


def bad_nonnegative_reals(func, args, kwargs, slot, name):
    """A real argument that must be finite and >= 0 (tau, ridge, gamma of the repair)."""
    cases = [
        (-0.1, ValueError, f"{name} must be a finite number >= 0, got -0.1"),
        (-1, ValueError, f"{name} must be a finite number >= 0, got -1"),
        (float("nan"), ValueError, f"{name} must be a finite number >= 0, got nan"),
        (float("inf"), ValueError, f"{name} must be a finite number >= 0, got inf"),
        ("0.1", TypeError, f"{name} must be a real number, got str"),
        (None, TypeError, f"{name} must be a real number, got NoneType"),
        (True, TypeError, f"{name} must be a real number, got bool"),
    ]
    return [(func, *_with(args, kwargs, slot, v), exc, frag) for v, exc, frag in cases]


def bad_probabilities(func, args, kwargs, slot, name, *, arrays):
    """``r`` strictly inside (0, 1): the ends, outside, NaN, wrong types."""
    cases = [
        (0, ValueError, f"{name} must lie strictly between 0 and 1, got 0"),
        (0.0, ValueError, f"{name} must lie strictly between 0 and 1, got 0.0"),
        (1, ValueError, f"{name} must lie strictly between 0 and 1, got 1"),
        (1.0, ValueError, f"{name} must lie strictly between 0 and 1, got 1.0"),
        (1.5, ValueError, f"{name} must lie strictly between 0 and 1, got 1.5"),
        (-0.5, ValueError, f"{name} must lie strictly between 0 and 1, got -0.5"),
        (float("nan"), ValueError, f"{name} must lie strictly between 0 and 1, got nan"),
        (Fraction(3, 2), ValueError, f"{name} must lie strictly between 0 and 1, got 3/2"),
        (mpmath.mpf("nan"), ValueError, f"{name} must lie strictly between 0 and 1, got nan"),
        ("0.5", TypeError, f"{name} must be a real"),
        (None, TypeError, f"{name} must be a real"),
        (True, TypeError, f"{name} must be a real number, got bool"),
    ]
    if arrays:
        cases += [
            (np.array([0.5, 0.0]), ValueError, f"{name} must lie strictly between 0 and 1, got 0.0"),
            (np.array([[0.5], [1.0]]), ValueError, f"{name} must lie strictly between 0 and 1, got 1.0"),
            (np.array([0.5, np.nan]), ValueError, f"{name} must have finite entries"),
            (np.array(np.inf), ValueError, f"{name} must have finite entries"),
            (np.zeros(0), ValueError, f"{name} must be non-empty, got shape (0,)"),
            (np.zeros((0, 3)), ValueError, f"{name} must be non-empty, got shape (0, 3)"),
            ([[0.5, 0.5], [0.5]], TypeError, f"{name} must be a real array, got list"),
            (np.array([True]), TypeError, f"{name} must be a real numeric array, got dtype bool"),
            (np.array([0.5 + 0j]), TypeError, f"{name} must be real, got complex"),
            (np.array(["a"], dtype=object), TypeError, f"{name} has object dtype with an entry of type str"),
            (0.5j, TypeError, f"{name} must be real, got complex"),
        ]
    else:
        cases += [
            (np.array([0.5]), TypeError, f"{name} must be a real number, got an array of shape (1,)"),
            (0.5j, TypeError, f"{name} must be a real number, got complex"),
        ]
    return [(func, *_with(args, kwargs, slot, v), exc, frag) for v, exc, frag in cases]


def bad_leverages(func):
    """``h``: a leverage score or a 1-D array of them, each in [0, 1]."""
    cases = [
        (1.5, ValueError, "h must lie in [0, 1] (a leverage score), got 1.5"),
        (-0.2, ValueError, "h must lie in [0, 1] (a leverage score), got -0.2"),
        (float("nan"), ValueError, "h must lie in [0, 1] (a leverage score), got nan"),
        (Fraction(3, 2), ValueError, "h must lie in [0, 1] (a leverage score), got 3/2"),
        (np.array([0.2, 2.0]), ValueError, "h must lie in [0, 1] (leverage scores), got 2.0 at index 1"),
        (np.array([0.2, np.nan]), ValueError, "h must have finite entries"),
        (np.zeros(0), ValueError, "h must be non-empty, got shape (0,)"),
        (np.full((2, 2), 0.5), ValueError, "h must be a 1-D array, got shape (2, 2)"),
        ([[0.5, 0.5], [0.5]], TypeError, "h must be a real array, got list"),
        (np.array([0.5 + 0j]), TypeError, "h must be real, got complex"),
        (np.array([True]), TypeError, "h must be a real numeric array, got dtype bool"),
        (np.array(["a"], dtype=object), TypeError, "h has object dtype with an entry of type str"),
        ("0.5", TypeError, "h must be a real number or array, got str"),
        (None, TypeError, "h must be a real number or array, got NoneType"),
        ({}, TypeError, "h must be a real number or array, got dict"),
        (True, TypeError, "h must be a real number or array, got bool"),
        (0.5j, TypeError, "h must be a real number or array, got complex"),
    ]
    return [(func, (v,), {}, exc, frag) for v, exc, frag in cases]


def bad_rngs(func, args, kwargs, *, allow_none=False):
    """``rng`` must be an explicit numpy.random.Generator."""
    values = [0, "rng", np.random.RandomState(0)] + ([] if allow_none else [None])
    return [
        (func, *_with(args, kwargs, "rng", v), TypeError, "rng must be a numpy.random.Generator")
        for v in values
    ]


def bad_counts(func, kwargs):
    """``dim`` and ``count`` of an ensemble, and a size that would exhaust memory."""
    return (
        bad_ints(func, (3, 4), kwargs, 0, "dim")
        + bad_ints(func, (3, 4), kwargs, 1, "count")
        + [(func, (10**6, 10**6), kwargs, ValueError, "a dim x count = 1000000 x 1000000 float64 array would need 7450.6 GiB")]
    )


def bad_top1_problem(func, kwargs=None, *, min_pairs=2, float_only=True):
    """The (W, keys, targets) problem of linmem.retrieval: arrays, shapes, sizes, chunk
    (``float_only=False``: object arrays are taken, all three or none)."""
    kwargs = kwargs or {}
    args = (I3, I3, T3)
    rows = (
        bad_arrays(func, args, kwargs, 0, "W", float_only=float_only)
        + bad_arrays(func, args, kwargs, 1, "keys", float_only=float_only)
        + bad_arrays(func, args, kwargs, 2, "targets", float_only=float_only)
        + [
            (func, (I3, I3, np.ones((3, 4))), kwargs, ValueError, "keys and targets must have the same number of columns"),
            (func, (np.ones((3, 2)), I3, T3), kwargs, ValueError, "W must have shape (targets rows, keys rows) = (3, 3), got (3, 2)"),
        ]
    )
    if min_pairs == 2:
        rows.append((func, (np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1))), kwargs, ValueError,
                     "keys must have at least 2 columns"))
    if "chunk" in inspect.signature(func).parameters:
        rows += bad_ints(func, args, {**kwargs, "chunk": 2}, "chunk", "chunk")
        rows.append((func, (np.ones((1, 1)), _big(1, BIG_N), _big(1, BIG_N)), {**kwargs, "chunk": BIG_N}, ValueError,
                     "a score block of chunk x n = 1000000 x 1000000 (n = columns of keys) would need 7450.6 GiB"))
    return rows


def bad_pairs(func, kwargs=None):
    """The (keys, targets) of linmem.learn: arrays, counts, at least two pairs."""
    kwargs = kwargs or {}
    return (
        bad_arrays(func, (I3, T3), kwargs, 0, "keys", float_only=True)
        + bad_arrays(func, (I3, T3), kwargs, 1, "targets", float_only=True)
        + [
            (func, (I3, np.ones((3, 4))), kwargs, ValueError, "keys and targets must have the same number of columns"),
            (func, (np.ones((3, 1)), np.ones((3, 1))), kwargs, ValueError, "keys must have at least 2 columns"),
        ]
    )


# --------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------

CASES = [
    # (function, args, kwargs, exception, fragment of the message naming the argument)
    # -- stores ---------------------------------------------------------------
    (linmem.least_squares_store, (NAN_K, V2), {}, ValueError, "K must have finite entries"),
    (linmem.least_squares_store, (K2, np.full((3, 2), np.inf)), {}, ValueError, "V must have finite entries"),
    (linmem.outer_product_store, (INF_K, V2), {}, ValueError, "K must have finite entries"),
    (linmem.outer_product_store, (np.ones(3), V2), {}, ValueError, "K must be a 2-D array, got shape (3,)"),
    (linmem.outer_product_store, (K2, np.ones((3, 5))), {}, ValueError, "same number of columns"),
    (linmem.least_squares_store, ("keys", V2), {}, TypeError, "K must be a real array"),
    (linmem.least_squares_store, (K2.astype(bool), V2), {}, TypeError, "dtype bool"),
    (linmem.least_squares_store, (K2 + 1j, V2), {}, TypeError, "complex"),
    (linmem.least_squares_store, (np.array([[object()]], dtype=object), V2[:, :1]), {}, TypeError, "object dtype"),
    (linmem.least_squares_store, (np.zeros((2, 0)), np.zeros((3, 0))), {}, ValueError, "non-empty"),
    (linmem.single_pair_store, ([0.0, 0.0], [1.0]), {}, ValueError, "k must have nonzero columns"),
    (linmem.single_pair_store, ([[1.0]], [1.0]), {}, ValueError, "k must be a 1-D array"),
    *bad_arrays(linmem.least_squares_store, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.least_squares_store, (K2, V2), {}, 1, "V"),
    (linmem.least_squares_store, (K2, np.ones((3, 5))), {}, ValueError, "K and V must have the same number of columns (one per stored pair), got 2 and 5"),
    (linmem.least_squares_store, (_big(TALL, 1), _big(TALL, 1)), {}, ValueError, "the store W (100000 x 100000: rows of V x rows of K) would need 74.5 GiB"),
    *bad_arrays(linmem.outer_product_store, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.outer_product_store, (K2, V2), {}, 1, "V"),
    (linmem.outer_product_store, (_big(TALL, 1), _big(TALL, 1)), {}, ValueError, "the store W (100000 x 100000: rows of V x rows of K) would need 74.5 GiB"),
    *bad_arrays(linmem.single_pair_store, (np.ones(2), np.ones(3)), {}, 0, "k", ndim=1),
    *bad_arrays(linmem.single_pair_store, (np.ones(2), np.ones(3)), {}, 1, "v", ndim=1),
    (linmem.single_pair_store, (_big(TALL, 1)[:, 0], _big(TALL, 1)[:, 0]), {}, ValueError, "the store A (100000 x 100000: length of v x length of k) would need 74.5 GiB"),
    (linmem.LinearMemory.fit, (K2, V2), {"method": "ridge"}, ValueError, "method must be one of"),
    (linmem.LinearMemory.fit, (K2, V2), {"method": None}, ValueError, "method must be one of ['least_squares', 'outer_product'], got None"),
    (linmem.LinearMemory.fit, (K2, V2), {"method": ["least_squares"]}, ValueError, "method must be one of ['least_squares', 'outer_product'], got ['least_squares']"),
    (linmem.LinearMemory.fit, (K2, V2), {"method": {}}, ValueError, "method must be one of ['least_squares', 'outer_product'], got {}"),
    *bad_arrays(linmem.LinearMemory.fit, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.LinearMemory.fit, (K2, V2), {}, 1, "V"),
    (linmem.LinearMemory.fit, (K2, np.ones((3, 5))), {}, ValueError, "K and V must have the same number of columns"),
    (linmem.LinearMemory.fit, (_big(TALL, 1), _big(TALL, 1)), {"method": "outer_product"}, ValueError, "the store W (100000 x 100000: rows of V x rows of K) would need 74.5 GiB"),
    *bad_arrays(linmem.LinearMemory, (W32, K2, V2), {}, 0, "W"),
    *bad_arrays(linmem.LinearMemory, (W32, K2, V2), {}, 1, "K"),
    *bad_arrays(linmem.LinearMemory, (W32, K2, V2), {}, 2, "V"),
    (linmem.LinearMemory, (np.ones((2, 2)), K2, V2), {}, ValueError, "W must have shape (p, d) = (3, 2) to map keys to values, got (2, 2)"),
    (linmem.LinearMemory, (W32, K2, np.ones((3, 5))), {}, ValueError, "K and V must have the same number of columns"),
    (linmem.LinearMemory, (W32, K2, V2), {"method": "ridge"}, ValueError, "method must be one of ['least_squares', 'outer_product'], got 'ridge'"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.ones(3)), {}, ValueError, "q must have 2 rows (the key dimension), got 3"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.ones((2, 2, 2))), {}, ValueError, "q must be a 1-D query or a 2-D batch of queries as columns, got shape (2, 2, 2)"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, 1.0), {}, ValueError, "q must be a 1-D query or a 2-D batch of queries as columns, got shape ()"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, None), {}, TypeError, "q must be a real array, got NoneType"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, "q"), {}, TypeError, "q must be a real array, got str"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, {}), {}, TypeError, "q must be a real array, got dict"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, [[1.0, 2.0], [3.0]]), {}, TypeError, "q must be a real array, got list"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.array([1.0, np.nan])), {}, ValueError, "q must have finite entries"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.array([1.0, 1j])), {}, TypeError, "q must be real, got complex"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.array([True, False])), {}, TypeError, "q must be a real numeric array, got dtype bool"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.array(["a", None], dtype=object)), {}, TypeError, "q has object dtype with an entry of type str"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.zeros((2, 0))), {}, ValueError, "q must be non-empty, got shape (2, 0)"),
    (linmem.LinearMemory.recall, (GOOD_MEMORY, np.zeros(0)), {}, ValueError, "q must be non-empty, got shape (0,)"),
    (linmem.LinearMemory.recall, (TALL_MEMORY, _big(1, TALL)), {}, ValueError, "the recalled values W q (100000 x 100000: rows of W x queries in q) would need 74.5 GiB"),
    # -- spectral -------------------------------------------------------------
    (linmem.projectors, (NAN_K,), {}, ValueError, "K must have finite entries"),
    (linmem.compact_svd, (linmem.exact_array([[1, 2]]),), {}, TypeError, "exact rationals"),
    *bad_arrays(linmem.compact_svd, (K2,), {}, 0, "A"),
    *bad_arrays(linmem.condition_number, (K2,), {}, 0, "A"),
    (linmem.condition_number, (EXACT_K,), {}, TypeError, "A holds exact rationals"),
    *bad_arrays(linmem.numerical_rank, (K2,), {}, 0, "A"),
    *bad_arrays(linmem.pinv, (K2,), {}, 0, "A"),
    *bad_arrays(linmem.pinv_energy, (K2,), {}, 0, "K"),
    *bad_arrays(linmem.projectors, (K2,), {}, 0, "K"),
    (linmem.projectors, (_big(1, TALL),), {}, ValueError, "the projectors P (100000 x 100000) and Q (1 x 1) of K would need 74.5 GiB"),
    *bad_arrays(linmem.svd_key_value_view, (K2,), {}, 0, "W"),
    (linmem.svd_key_value_view, (EXACT_K,), {}, TypeError, "W holds exact rationals"),
    *bad_arrays(linmem.effective_pairs, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.effective_pairs, (K2, V2), {}, 1, "V"),
    (linmem.effective_pairs, (K2, np.ones((3, 5))), {}, ValueError, "K and V must have the same number of columns"),
    (linmem.effective_pairs, (EXACT_K, V2), {}, TypeError, "K holds exact rationals"),
    # -- recall ---------------------------------------------------------------
    (linmem.leverage_scores, (np.ones((2, 2, 2)),), {}, ValueError, "K must be a 2-D array"),
    (linmem.leverage_scores, (None,), {}, TypeError, "K must be a real array"),
    *bad_arrays(linmem.leverage_scores, (K2,), {}, 0, "K"),
    (linmem.leverage_scores, (linmem.exact_array(np.ones((1, TALL), dtype=int)),), {}, ValueError, "the projectors P (100000 x 100000) and Q (1 x 1) of K would need 74.5 GiB"),
    *bad_arrays(linmem.recall_decomposition, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.recall_decomposition, (K2, V2), {}, 1, "V"),
    (linmem.recall_decomposition, (K2, np.ones((3, 5))), {}, ValueError, "K and V must have the same number of columns"),
    (linmem.recall_decomposition, (_big(1, TALL), _big(1, TALL)), {}, ValueError, "the projectors P (100000 x 100000) and Q (1 x 1) of K would need 74.5 GiB"),
    (linmem.snr, (1.5,), {}, ValueError, "h must lie in [0, 1]"),
    (linmem.snr, (-0.2,), {}, ValueError, "h must lie in [0, 1]"),
    (linmem.snr, (np.array([0.2, np.nan]),), {}, ValueError, "h must have finite entries"),
    (linmem.snr, ("0.5",), {}, TypeError, "h must be a real number"),
    (linmem.snr, (mpmath.mpf(1),), {}, ValueError, "h must be < 1 for an exact or mpmath SNR"),
    (linmem.snr, (linmem.exact_array([Fraction(1, 2), 1]),), {}, ValueError, "h must be < 1 for an exact or mpmath SNR"),
    *bad_leverages(linmem.snr),
    (linmem.snr_jensen_gap, ([0.5, 1.0],), {}, ValueError, "h must lie in [0, 1) (at h = 1 the mean SNR is infinite), got 1 at index 1"),
    (linmem.snr_jensen_gap, ([0.2, 1.5],), {}, ValueError, "h must lie in [0, 1] (leverage scores), got 1.5 at index 1"),
    (linmem.snr_jensen_gap, (0.5,), {}, ValueError, "h must be a 1-D array, got shape ()"),
    (linmem.snr_jensen_gap, (["a"],), {}, TypeError, "h must be a real numeric array"),
    (linmem.snr_jensen_gap, ([0.1, 0.2], [1.0]), {}, ValueError, "weights must give one weight per leverage score (2), got 1"),
    (linmem.snr_jensen_gap, ([0.1, 0.2], [1.0, -1.0]), {}, ValueError, "weights must be nonnegative and not all zero"),
    (linmem.snr_jensen_gap, ([0.1, 0.2], [0.0, 0.0]), {}, ValueError, "weights must be nonnegative and not all zero"),
    (linmem.expected_error, (np.array([0.2, 2.0]),), {}, ValueError, "got 2.0 at index 1"),
    *bad_leverages(linmem.expected_error),
    *bad_leverages(linmem.crosstalk_power),
    *bad_arrays(linmem.mean_expected_error, (K2,), {}, 0, "K"),
    (linmem.query_noise_error, (K2,), {"tau": -0.1}, ValueError, "tau must be a finite number >= 0"),
    (linmem.query_noise_error, (K2,), {"tau": float("nan")}, ValueError, "tau must be a finite number >= 0"),
    (linmem.query_noise_error, (K2,), {"tau": "0.1"}, TypeError, "tau must be a real number"),
    *bad_arrays(linmem.query_noise_error, (K2,), {"tau": 0.1}, 0, "K"),
    *bad_nonnegative_reals(linmem.query_noise_error, (K2,), {"tau": 0.1}, "tau", "tau"),
    (linmem.query_noise_error, (K2,), {"tau": np.array([0.1])}, TypeError, "tau must be a real number, got an array"),
    (linmem.fixed_store_noise_error, (np.ones((3, 5)), K2, V2), {"tau": 0.1}, ValueError, "W must have shape (p, d) = (3, 2)"),
    *bad_arrays(linmem.fixed_store_noise_error, (W32, K2, V2), {"tau": 0.1}, 0, "W"),
    *bad_arrays(linmem.fixed_store_noise_error, (W32, K2, V2), {"tau": 0.1}, 1, "K"),
    *bad_arrays(linmem.fixed_store_noise_error, (W32, K2, V2), {"tau": 0.1}, 2, "V"),
    (linmem.fixed_store_noise_error, (W32, K2, np.ones((3, 5))), {"tau": 0.1}, ValueError, "K and V must have the same number of columns"),
    *bad_nonnegative_reals(linmem.fixed_store_noise_error, (W32, K2, V2), {"tau": 0.1}, "tau", "tau"),
    *bad_arrays(linmem.consistency_residual, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.consistency_residual, (K2, V2), {}, 1, "V"),
    (linmem.consistency_residual, (K2, np.ones((3, 5))), {}, ValueError, "K and V must have the same number of columns"),
    (linmem.is_consistent, (K2, np.ones((3, 4))), {}, ValueError, "same number of columns"),
    *bad_arrays(linmem.is_consistent, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.is_consistent, (K2, V2), {}, 1, "V"),
    (linmem.op_recall_decomposition, (np.array([[1.0, 0.0], [0.0, 0.0]]), V2), {}, ValueError, "K must have nonzero columns"),
    (linmem.op_recall_decomposition, (2 * K2, V2), {}, ValueError, "K must have unit-norm columns"),
    (linmem.op_recall_decomposition, (np.zeros((2, 2)), V2), {}, ValueError, "K must have nonzero columns, got zero column(s) at index [0, 1]"),
    (linmem.op_recall_decomposition, (np.array([[1.0, 0.6], [0.0, 0.9]]), V2), {}, ValueError, "K must have unit-norm columns, got squared norm"),
    (linmem.op_recall_decomposition, (MP_NONUNIT, V2), {}, ValueError, "K must have unit-norm columns"),
    (linmem.op_recall_decomposition, (linmem.exact_array([[Fraction(1, 2), 0], [0, 1]]), V2), {}, ValueError, "K must have unit-norm columns, got squared norm 1/4 in column 0"),
    *bad_arrays(linmem.op_recall_decomposition, (K2, V2), {}, 0, "K"),
    *bad_arrays(linmem.op_recall_decomposition, (K2, V2), {}, 1, "V"),
    (linmem.op_recall_decomposition, (K2, np.ones((3, 5))), {}, ValueError, "K and V must have the same number of columns"),
    (linmem.op_recall_decomposition, (_big(1, TALL), _big(1, TALL)), {}, ValueError, "the 100000 x 100000 Gram matrix K^T K would need 74.5 GiB"),
    (linmem.op_conditional_error, (np.array([[0.0, 1.0]]),), {}, ValueError, "nonzero columns"),
    (linmem.op_conditional_error, (np.zeros((3, 2)),), {}, ValueError, "K must have nonzero columns, got zero column(s) at index [0, 1]"),
    (linmem.op_conditional_error, (2 * K2,), {}, ValueError, "K must have unit-norm columns, got squared norm 4.0 in column 0"),
    (linmem.op_conditional_error, (np.array([[1.0, 0.6], [0.0, 0.9]]),), {}, ValueError, "K must have unit-norm columns, got squared norm"),
    (linmem.op_conditional_error, (MP_NONUNIT,), {}, ValueError, "K must have unit-norm columns"),
    (linmem.op_conditional_error, (linmem.exact_array([[Fraction(1, 2), 0], [0, 1]]),), {}, ValueError, "K must have unit-norm columns, got squared norm 1/4 in column 0"),
    *bad_arrays(linmem.op_conditional_error, (K2,), {}, 0, "K"),
    (linmem.op_conditional_error, (_big(1, TALL),), {}, ValueError, "the 100000 x 100000 Gram matrix K^T K would need 74.5 GiB"),
    # -- estimates ------------------------------------------------------------
    (linmem.uniform_leverage_snr, (4, 3), {}, ValueError, "M must exceed d"),
    (linmem.uniform_leverage_snr, (4, 4), {}, ValueError, "M must exceed d for the uniform-leverage estimate, got d=4, M=4"),
    *bad_positive_reals(linmem.uniform_leverage_snr, (4, 8), {}, 0, "d"),
    *bad_positive_reals(linmem.uniform_leverage_snr, (4, 8), {}, 1, "M"),
    (linmem.snr_capacity, (4, -1.0), {}, ValueError, "gamma must be a finite number > 0"),
    (linmem.snr_capacity, (4, -0.1), {}, ValueError, "gamma must be a finite number > 0, got -0.1"),
    *bad_positive_reals(linmem.snr_capacity, (4, 1.0), {}, 0, "d"),
    *bad_positive_reals(linmem.snr_capacity, (4, 1.0), {}, 1, "gamma"),
    (linmem.snr_capacity, (4, np.array([1.0])), {}, TypeError, "gamma must be a real number, got ndarray"),
    (linmem.op_spherical_snr, (4, 1), {}, ValueError, "M must exceed 1"),
    *bad_positive_reals(linmem.op_spherical_snr, (4, 5), {}, 0, "d"),
    *bad_positive_reals(linmem.op_spherical_snr, (4, 5), {}, 1, "M"),
    *bad_positive_reals(linmem.op_spherical_error, (4, 5), {}, 0, "d"),
    *bad_positive_reals(linmem.op_spherical_error, (4, 5), {}, 1, "M"),
    # -- ensembles ------------------------------------------------------------
    (linmem.spherical_vectors, (3, 4), {"rng": 0}, TypeError, "rng must be a numpy.random.Generator"),
    (linmem.spherical_vectors, (0, 4), {"rng": RNG}, ValueError, "dim must be an integer >= 1, got 0"),
    (linmem.gaussian_vectors, (2.5, 4), {"rng": RNG}, TypeError, "dim must be an integer"),
    (linmem.gaussian_vectors, (10**6, 10**6), {"rng": RNG}, ValueError, "would need 7450.6 GiB"),
    (linmem.gaussian_vectors, (10**400, 4), {"rng": RNG}, ValueError, "float64 array would need about 2**"),
    *bad_counts(linmem.gaussian_vectors, {"rng": RNG}),
    *bad_rngs(linmem.gaussian_vectors, (3, 4), {"rng": RNG}),
    *bad_counts(linmem.spherical_vectors, {"rng": RNG}),
    *bad_rngs(linmem.spherical_vectors, (3, 4), {"rng": RNG}),
    *bad_counts(linmem.random_sign_vectors, {"rng": RNG}),
    *bad_rngs(linmem.random_sign_vectors, (3, 4), {"rng": RNG}),
    (linmem.duplicated_keys, (3, 4), {"n_distinct": 5, "rng": RNG}, ValueError, "n_distinct must be <= count = 4"),
    (linmem.duplicated_keys, (1, 4), {"n_distinct": 3, "rng": RNG}, ValueError, "n_distinct must be <= 2 in dimension 1"),
    *bad_counts(linmem.duplicated_keys, {"n_distinct": 1, "rng": RNG}),
    *bad_ints(linmem.duplicated_keys, (3, 4), {"n_distinct": 2, "rng": RNG}, "n_distinct", "n_distinct"),
    *bad_rngs(linmem.duplicated_keys, (3, 4), {"n_distinct": 2, "rng": RNG}),
    (linmem.controlled_spectrum, (3, 4), {"cond": 0.5, "rng": RNG}, ValueError, "cond must be >= 1"),
    (linmem.controlled_spectrum, (3, 4), {"cond": 10.0, "rank": 4, "rng": RNG}, ValueError, "rank must be <= min(dim, count) = 3"),
    (linmem.controlled_spectrum, (3, 4), {"cond": -1.0, "rng": RNG}, ValueError, "cond must be >= 1 (s_max / s_min), got -1.0"),
    (linmem.controlled_spectrum, (3, 4), {"cond": float("nan"), "rng": RNG}, ValueError, "cond must be a finite number >= 1 (s_max / s_min), got nan"),
    (linmem.controlled_spectrum, (3, 4), {"cond": float("inf"), "rng": RNG}, ValueError, "cond must be a finite number >= 1 (s_max / s_min), got inf"),
    (linmem.controlled_spectrum, (3, 4), {"cond": 10**400, "rng": RNG}, ValueError, "cond must be a finite number >= 1"),
    (linmem.controlled_spectrum, (3, 4), {"cond": "10", "rng": RNG}, TypeError, "cond must be a finite real number, got str"),
    (linmem.controlled_spectrum, (3, 4), {"cond": None, "rng": RNG}, TypeError, "cond must be a finite real number, got NoneType"),
    (linmem.controlled_spectrum, (3, 4), {"cond": True, "rng": RNG}, TypeError, "cond must be a finite real number, got bool"),
    (linmem.controlled_spectrum, (3, 4), {"cond": 10j, "rng": RNG}, TypeError, "cond must be a finite real number, got complex"),
    *bad_counts(linmem.controlled_spectrum, {"cond": 10.0, "rng": RNG}),
    *bad_ints(linmem.controlled_spectrum, (3, 4), {"cond": 10.0, "rank": 2, "rng": RNG}, "rank", "rank", allow_none=True),
    *bad_rngs(linmem.controlled_spectrum, (3, 4), {"cond": 10.0, "rng": RNG}),
    (linmem.consistent_values, (np.ones((2, 3)), K2), {}, ValueError, "A must have 2 columns"),
    *bad_arrays(linmem.consistent_values, (np.ones((3, 2)), K2), {}, 0, "A"),
    *bad_arrays(linmem.consistent_values, (np.ones((3, 2)), K2), {}, 1, "K"),
    (linmem.consistent_values, (_big(TALL, 1), _big(1, TALL)), {}, ValueError, "the values A K (100000 x 100000: rows of A x columns of K) would need 74.5 GiB"),
    *bad_arrays(linmem.random_sign_values, (K2,), {"rng": RNG}, 0, "W0"),
    *bad_rngs(linmem.random_sign_values, (K2,), {"rng": RNG}),
    (ensembles.rational_orthogonal, (0,), {"rng": RNG}, ValueError, "n must be an integer >= 1"),
    *bad_ints(ensembles.rational_orthogonal, (3,), {"rng": RNG}, 0, "n"),
    *bad_ints(ensembles.rational_orthogonal, (3,), {"rng": RNG, "scale": 3}, "scale", "scale"),
    (ensembles.rational_orthogonal, (3,), {"rng": RNG, "scale": 2**63}, ValueError, "scale must be an integer in 1..9223372036854775806 (numpy draws int64), got 9223372036854775808"),
    (ensembles.rational_orthogonal, (TALL,), {"rng": RNG}, ValueError, "an n x n = 100000 x 100000 orthogonal matrix would need 74.5 GiB"),
    *bad_rngs(ensembles.rational_orthogonal, (3,), {"rng": RNG}),
    *bad_counts(ensembles.rational_unit_vectors, {"rng": RNG}),
    *bad_ints(ensembles.rational_unit_vectors, (3, 4), {"rng": RNG, "scale": 4}, "scale", "scale"),
    (ensembles.rational_unit_vectors, (3, 4), {"rng": RNG, "scale": 2**63}, ValueError, "scale must be an integer in 1..9223372036854775806"),
    *bad_rngs(ensembles.rational_unit_vectors, (3, 4), {"rng": RNG}),
    *bad_counts(ensembles.rational_controlled_spectrum, {"cond": 10, "rng": RNG}),
    *bad_ints(ensembles.rational_controlled_spectrum, (3, 4), {"cond": 10, "rng": RNG}, "cond", "cond"),
    *bad_ints(ensembles.rational_controlled_spectrum, (3, 4), {"cond": 10, "rank": 2, "rng": RNG}, "rank", "rank", allow_none=True),
    (ensembles.rational_controlled_spectrum, (3, 4), {"cond": 10, "rank": 4, "rng": RNG}, ValueError, "rank must be <= min(dim, count) = 3, got 4"),
    (ensembles.rational_controlled_spectrum, (3, 4), {"cond": 10**400, "rng": RNG}, ValueError, "cond must be an integer in 1..1.798e+308"),
    (ensembles.rational_controlled_spectrum, (1, TALL), {"cond": 10, "rng": RNG}, ValueError, "count x count = 100000 x 100000) would need 74.5 GiB"),
    *bad_rngs(ensembles.rational_controlled_spectrum, (3, 4), {"cond": 10, "rng": RNG}),
    # -- precise --------------------------------------------------------------
    *bad_arrays(linmem.exact_array, (K2,), {}, 0, "x", any_ndim=True),
    (linmem.exact_array, (linmem.mp_array(K2),), {}, TypeError, "x holds mpmath numbers, which have no exact rational form"),
    (linmem.exact_array, (np.array([mpmath.mpf(1), Fraction(1, 2)], dtype=object),), {}, TypeError, "x mixes mpmath.mpf and fractions.Fraction entries"),
    *bad_arrays(linmem.mp_array, (K2,), {}, 0, "x", any_ndim=True),
    (linmem.mp_array, (np.array([mpmath.mpf(1), Fraction(1, 2)], dtype=object),), {}, TypeError, "x mixes mpmath.mpf and fractions.Fraction entries"),
    *bad_arrays(linmem.to_float, (K2,), {}, 0, "x", any_ndim=True),
    (linmem.to_float, (np.array([mpmath.mpf(1), Fraction(1, 2)], dtype=object),), {}, TypeError, "x mixes mpmath.mpf and fractions.Fraction entries"),
    (linmem.to_float, (np.array([mpmath.mpf("1e400")], dtype=object),), {}, ValueError, "x must have entries within the float64 range"),
    (linmem.to_float, (np.array([Fraction(10**400)], dtype=object),), {}, ValueError, "x must have entries within the float64 range"),
    # -- capacity -------------------------------------------------------------
    *bad_probabilities(linmem.kappa, (0.3,), {}, 0, "r", arrays=True),
    *bad_probabilities(linmem.alpha_c, (0.3,), {}, 0, "r", arrays=True),
    *bad_probabilities(linmem.kappa_mp, (0.3,), {"dps": 20}, 0, "r", arrays=False),
    *bad_probabilities(linmem.alpha_c_mp, (0.3,), {"dps": 20}, 0, "r", arrays=False),
    *bad_ints(linmem.kappa_mp, (0.3,), {"dps": 20}, "dps", "dps"),
    *bad_ints(linmem.alpha_c_mp, (0.3,), {"dps": 20}, "dps", "dps"),
    (linmem.kappa_mp, (0.3,), {"dps": 10**11}, ValueError, "one mpmath number at dps = 100000000000 would need 38.6 GiB"),
    (linmem.alpha_c_mp, (0.3,), {"dps": 10**400}, ValueError, "one mpmath number at dps = 1000"),
    *[(f, (a,), kw, exc, msg) for f, kw in ((linmem.max_stability, {}), (linmem.percentile_edge, {}),
                                            (linmem.max_stability_mp, {"dps": 20}))
      for a, exc, msg in ((0, ValueError, "alpha must lie in (0, 2] (the load n / d^2 of a maximal stability >= 0), got 0"),
                          (2.5, ValueError, "alpha must lie in (0, 2]"), (-0.1, ValueError, "got -0.1"),
                          (float("nan"), ValueError, "alpha must lie in (0, 2]"),
                          (float("inf"), ValueError, "alpha must lie in (0, 2]"),
                          ("0.2", TypeError, "alpha must be a real number"), (None, TypeError, "alpha must be a real"),
                          (True, TypeError, "alpha must be a real number"))],
    (linmem.max_stability, (np.array([0.2, 3.0]),), {}, ValueError, "maximal stability >= 0), got 3.0"),
    (linmem.percentile_edge, (np.array([0.2, np.nan]),), {}, ValueError, "alpha must have finite entries"),
    (linmem.max_stability, (np.zeros(0),), {}, ValueError, "alpha must be non-empty"),
    *bad_ints(linmem.max_stability_mp, (0.2,), {"dps": 20}, "dps", "dps"),
    *bad_positive_reals(linmem.load_ratio, (100.0, 50.0), {}, 0, "d"),
    (linmem.load_ratio, (100.0, 1), {}, ValueError, "n must be a finite number > 1, got 1.0"),
    (linmem.load_ratio, (100.0, float("nan")), {}, ValueError, "n must be a finite number > 1, got nan"),
    (linmem.load_ratio, (100.0, 10**400), {}, ValueError, "n must be a finite number > 1, got inf"),
    (linmem.load_ratio, (100.0, "50"), {}, TypeError, "n must be a real number, got str"),
    (linmem.load_ratio, (100.0, None), {}, TypeError, "n must be a real number, got NoneType"),
    (linmem.critical_d, (1, 2.0), {}, ValueError, "n must be a finite number > 1, got 1.0"),
    (linmem.critical_d, (np.array([100.0]), 2.0), {}, TypeError, "n must be a real number, got ndarray"),
    *bad_positive_reals(linmem.critical_d, (100.0, 2.0), {}, 1, "constant"),
    *bad_positive_reals(linmem.critical_n, (100.0, 2.0), {}, 0, "d"),
    *bad_positive_reals(linmem.critical_n, (100.0, 2.0), {}, 1, "constant"),
    (linmem.critical_n, (1e200, 1e-200), {}, ValueError, "d^2 / constant must be a finite float to solve n ln n = d^2 / constant, got d = 1e+200, constant = 1e-200"),
    *bad_ints(capacity.cover_count, (4, 2), {}, 0, "n"),
    *bad_ints(capacity.cover_count, (4, 2), {}, 1, "D"),
    (capacity.cover_count, (10**12, 10**12), {}, ValueError, "Cover's count for n = 1000000000000, D = 1000000000000 would need 116.4 GiB"),
    *bad_ints(linmem.cover_probability, (4, 2), {}, 0, "n"),
    *bad_ints(linmem.cover_probability, (4, 2), {}, 1, "D"),
    (linmem.cover_probability, (10**12, 1), {}, ValueError, "2**n for n = 1000000000000 would need 116.4 GiB"),
    *bad_ints(capacity.cover_probability_float, (4, 2), {}, 0, "n"),
    *bad_ints(capacity.cover_probability_float, (4, 2), {}, 1, "D"),
    (capacity.cover_probability_float, (10**12, 1), {}, ValueError, "2**n for n = 1000000000000 would need 116.4 GiB"),
    # -- retrieval ------------------------------------------------------------
    *bad_arrays(linmem.cmm, (I3, T3), {}, 0, "keys", float_only=True),
    *bad_arrays(linmem.cmm, (I3, T3), {}, 1, "targets", float_only=True),
    (linmem.cmm, (I3, np.ones((3, 4))), {}, ValueError, "keys and targets must have the same number of columns (one per stored pair), got 3 and 4"),
    (linmem.cmm, (_big(TALL, 1), _big(TALL, 1)), {}, ValueError, "the memory W_CMM (100000 x 100000: rows of targets x rows of keys) would need 74.5 GiB"),
    *bad_top1_problem(linmem.scores, min_pairs=1),
    (linmem.scores, (np.ones((1, 1)), _big(1, BIG_N), _big(1, BIG_N)), {}, ValueError, "the full 1000000 x 1000000 score matrix (n = columns of keys) would need 7450.6 GiB"),
    *bad_top1_problem(linmem.margins),
    *bad_top1_problem(linmem.top1_correct),
    *bad_top1_problem(linmem.all_retrieved),
    *bad_top1_problem(linmem.percentile_rank),
    *bad_top1_problem(linmem.tam_margins, {"k": 1}, float_only=False),
    (linmem.tam_margins, (linmem.exact_array(T3), I3, T3), {"k": 1}, TypeError, "keys, targets must be object arrays like the others"),
    (linmem.tam_margins, tuple(map(linmem.exact_array, (I3, I3, T3))), {"k": 3}, ValueError, "k must be an integer in 1..2 (the number of competitors), got 3"),
    (linmem.tam_margins, tuple(linmem.exact_array([[1]]) for _ in range(3)), {"k": 1}, ValueError, "keys must have at least 2 columns"),
    *bad_ints(linmem.tam_margins, (I3, I3, T3), {"k": 1}, "k", "k"),
    (linmem.tam_margins, (I3, I3, T3), {"k": 3}, ValueError, "k must be an integer in 1..2 (the number of competitors), got 3"),
    *bad_arrays(linmem.topk_average, (T3, 1), {}, 0, "scores", any_ndim=True),
    *bad_ints(linmem.topk_average, (T3, 1), {}, 1, "k"),
    (linmem.topk_average, (T3, 3), {}, ValueError, "k must be an integer in 1..2 (the number of competitors), got 3"),
    (linmem.topk_average, (np.array([3.0, 1.0, 2.0]), 4), {}, ValueError, "k must be an integer in 1..3 (the number of competitors), got 4"),
    (linmem.topk_average, (np.ones((2, 3)), 1), {}, ValueError, "scores as a 2-D array must be a square n x n score matrix with n >= 2"),
    (linmem.topk_average, (np.ones((1, 1)), 1), {}, ValueError, "scores as a 2-D array must be a square n x n score matrix with n >= 2 (its diagonal holds the matched scores), got shape (1, 1)"),
    (linmem.topk_average, (np.ones((2, 2, 2)), 1), {}, ValueError, "scores must be a 1-D array of competitor scores or a square 2-D score matrix, got shape (2, 2, 2)"),
    (linmem.topk_average, (np.float64(1.0), 1), {}, ValueError, "scores must be a 1-D array of competitor scores or a square 2-D score matrix, got shape ()"),
    *bad_arrays(linmem.smoothed_topk_average, (T3, 1), {"beta": 2.0}, 0, "scores", any_ndim=True, float_only=True),
    *bad_ints(linmem.smoothed_topk_average, (T3, 1), {"beta": 2.0}, 1, "k"),
    (linmem.smoothed_topk_average, (T3, 3), {"beta": 2.0}, ValueError, "k must be an integer in 1..2 (the number of competitors), got 3"),
    (linmem.smoothed_topk_average, (np.array([3.0, 1.0, 2.0]), 4), {"beta": 2.0}, ValueError, "k must be an integer in 1..3"),
    *bad_positive_reals(linmem.smoothed_topk_average, (T3, 1), {"beta": 2.0}, "beta", "beta"),
    (linmem.smoothed_topk_average, (T3, 1), {"beta": 10**400}, ValueError, "beta must be a finite number > 0, got inf"),
    *bad_ints(retrieval.smoothed_topk_gap_bound, (4, 2), {"beta": 1.0}, 0, "n_competitors"),
    *bad_ints(retrieval.smoothed_topk_gap_bound, (4, 2), {"beta": 1.0}, 1, "k"),
    (retrieval.smoothed_topk_gap_bound, (4, 5), {"beta": 1.0}, ValueError, "k must be an integer in 1..4 (the number of competitors), got 5"),
    *bad_positive_reals(retrieval.smoothed_topk_gap_bound, (4, 2), {"beta": 1.0}, "beta", "beta"),
    *bad_arrays(retrieval.exact_dependence, (K2, K2, K2), {}, 0, "keys", float_only=True),
    *bad_arrays(retrieval.exact_dependence, (K2, K2, K2), {}, 1, "targets", float_only=True),
    *bad_arrays(retrieval.exact_dependence, (K2, K2, K2), {}, 2, "lam", float_only=True),
    (retrieval.exact_dependence, (K2, K2, I3), {}, ValueError, "lam must be an n x n array with n = 2 (columns of keys), got shape (3, 3)"),
    (retrieval.exact_dependence, (K2, I3, K2), {}, ValueError, "keys and targets must have the same number of columns"),
    *bad_positive_reals(linmem.loose_bound_crossover, (1.0,), {}, 0, "C"),
    (linmem.loose_bound_crossover, (mpmath.mpf(-2),), {}, ValueError, "C must be a finite number > 0, got -2.0"),
    *bad_ints(linmem.expected_gaussian_maximum, (3,), {}, 0, "m"),
    *bad_positive_reals(linmem.second_order_crossing, (10.0,), {}, 0, "n"),
    (linmem.second_order_crossing, (1.0,), {}, ValueError, "n must be > 1 (ln ln n is undefined otherwise), got 1.0"),
    *[row for f, n_min in ((linmem.competitor_variance, 2), (linmem.matched_variance, 1)) for row in [
        (f, (n_min - 1, 3), {}, ValueError, f"n must be an integer >= {n_min}, got {n_min - 1}"),
        (f, (4, 0), {}, ValueError, "d must be an integer >= 1, got 0"),
        (f, (4.0, 0.5), {}, ValueError, "d must be a finite number >= 1, got 0.5"),
        (f, (float("nan"), 2), {}, ValueError, f"n must be a finite number >= {n_min}, got nan"),
        (f, ("5", 2), {}, TypeError, "n must be a number or a sympy expression, got str '5'"),
        (f, (4, True), {}, TypeError, "d must be a number or a sympy expression, got bool True"),
        (f, (4, 2j), {}, TypeError, "d must be a number or a sympy expression, got complex 2j"),
        (f, (None, 2), {}, TypeError, "n must be a number or a sympy expression, got NoneType None"),
    ]],
    # -- learn ----------------------------------------------------------------
    *bad_pairs(learn.comparison_matrices),
    *bad_pairs(learn.fit_gradient_allowance),
    (learn.comparison_matrices, (_big(1, TALL), _big(1, TALL)), {}, ValueError, "comparison matrices A_ij of the 100000 keys and targets would need 74.5 GiB"),
    *bad_pairs(linmem.max_margin_memory),
    (linmem.max_margin_memory, (_big(1, TALL), _big(1, TALL)), {"method": "dense"}, ValueError, "comparison matrices A_ij of the 100000 keys and targets would need 223.5 GiB"),
    *bad_pairs(linmem.gordan_certificate),
    (linmem.gordan_certificate, (_big(1, TALL), _big(1, TALL)), {"method": "dense"}, ValueError, "comparison matrices A_ij of the 100000 keys and targets would need 223.5 GiB"),
    *bad_pairs(linmem.tam_feasible, {"k": 1}),
    *bad_ints(linmem.tam_feasible, (I3, T3), {"k": 1}, "k", "k"),
    (linmem.tam_feasible, (I3, T3), {"k": 3}, ValueError, "k must be an integer in 1..2 (the number of competitors), got 3"),
    (linmem.tam_feasible, (_big(1, TALL), _big(1, TALL)), {"k": 1}, ValueError, "score rows of the TAM LP for the 100000 keys and targets would need 223.5 GiB"),
    *bad_pairs(linmem.tam_erm, {"k": 1, "beta": 2.0}),
    *bad_ints(linmem.tam_erm, (I3, T3), {"k": 1, "beta": 2.0}, "k", "k"),
    (linmem.tam_erm, (I3, T3), {"k": 3, "beta": 2.0}, ValueError, "k must be an integer in 1..2 (the number of competitors), got 3"),
    *bad_positive_reals(linmem.tam_erm, (I3, T3), {"k": 1, "beta": 2.0}, "beta", "beta"),
    *bad_nonnegative_reals(linmem.tam_erm, (I3, T3), {"k": 1, "beta": 2.0, "ridge": 0.0}, "ridge", "ridge"),
    (linmem.tam_erm, (I3, T3), {"k": 1, "beta": 2.0, "ridge": 10**400}, ValueError, "ridge must be a finite float >= 0, got an integer of 1329 bits"),
    *bad_ints(linmem.tam_erm, (I3, T3), {"k": 1, "beta": 2.0, "maxiter": 5}, "maxiter", "maxiter"),
    *bad_arrays(linmem.tam_erm, (I3, T3), {"k": 1, "beta": 2.0, "init": np.zeros((3, 3))}, "init", "init", float_only=True, allow_none=True),
    (linmem.tam_erm, (I3, T3), {"k": 1, "beta": 2.0, "init": np.zeros((2, 3))}, ValueError, "init must have shape (3, 3), got (2, 3)"),
    (linmem.tam_erm, (_big(1, TALL), _big(1, TALL)), {"k": 1, "beta": 2.0}, ValueError, "the 100000 x 100000 score matrix of the ERM (n = columns of keys) would need 74.5 GiB"),
    *bad_pairs(linmem.cross_entropy_memory),
    *bad_nonnegative_reals(linmem.cross_entropy_memory, (I3, T3), {"ridge": 1e-3}, "ridge", "ridge"),
    *bad_ints(linmem.cross_entropy_memory, (I3, T3), {"maxiter": 5}, "maxiter", "maxiter"),
    *bad_arrays(linmem.cross_entropy_memory, (I3, T3), {"init": np.zeros((3, 3))}, "init", "init", float_only=True, allow_none=True),
    (linmem.cross_entropy_memory, (I3, T3), {"init": np.zeros((3, 2))}, ValueError, "init must have shape (3, 3), got (3, 2)"),
    (linmem.cross_entropy_memory, (_big(1, TALL), _big(1, TALL)), {}, ValueError, "the 100000 x 100000 score matrix of the cross-entropy (n = columns of keys) would need 74.5 GiB"),
    *bad_pairs(linmem.sparse_repair_memory, {"gamma": 0.1}),
    *bad_nonnegative_reals(linmem.sparse_repair_memory, (I3, T3), {"gamma": 0.1}, "gamma", "gamma"),
    *bad_ints(linmem.sparse_repair_memory, (I3, T3), {"gamma": 0.1, "small_block_width": 1}, "small_block_width", "small_block_width", allow_none=True),
    (linmem.sparse_repair_memory, (I3, T3), {"gamma": 0.1, "small_block_width": 3}, ValueError, "small_block_width must be an integer in 1..2, got 3"),
    (linmem.sparse_repair_memory, (I3, T3), {"gamma": 0.1, "layout": "diagonal"}, ValueError, "layout must be one of ('split', 'overlay'), got 'diagonal'"),
    (linmem.sparse_repair_memory, (I3, T3), {"gamma": 0.1, "layout": None}, ValueError, "layout must be one of ('split', 'overlay'), got None"),
    (linmem.sparse_repair_memory, (I3, T3), {"gamma": 0.1, "layout": ["split"]}, ValueError, "layout must be one of ('split', 'overlay'), got ['split']"),
    (linmem.sparse_repair_memory, (I3, np.ones((2, 3))), {"gamma": 0.1}, ValueError, "keys and targets must have the same dimension for the block split, got 3 and 2 rows"),
    (linmem.sparse_repair_memory, (np.ones((1, 3)), np.ones((1, 3))), {"gamma": 0.1}, ValueError, "keys must have at least 2 rows to split into blocks, got 1"),
    *bad_rngs(linmem.sparse_repair_memory, (I3, T3), {"gamma": 0.1}, allow_none=True),
    (linmem.sparse_repair_memory, (_big(TALL, 2), _big(TALL, 2)), {"gamma": 0.1}, ValueError, "the 100000 x 100000 repaired memory W (d = rows of keys) would need 74.5 GiB"),
    *bad_ints(learn.default_small_block_width, (10, 100), {}, 0, "d", minimum=2),
    *bad_ints(learn.default_small_block_width, (10, 100), {}, 1, "n", minimum=2),
    # -- tolerances -----------------------------------------------------------
    (tolerances.working_eps, ("double",), {}, ValueError, "kind must be 'float', 'mpmath' or 'exact', got 'double'"),
    (tolerances.working_eps, (None,), {}, ValueError, "kind must be 'float', 'mpmath' or 'exact', got None"),
    (tolerances.rank_tolerance, (1.0, (2, 3), "quad"), {}, ValueError, "kind must be 'float', 'mpmath' or 'exact', got 'quad'"),
    pytest.param(
        tolerances.rank_tolerance, (float("nan"), (2, 3), "float"), {}, ValueError, "s_max",
    ),
    pytest.param(
        tolerances.rank_tolerance, (1.0, "ab", "float"), {}, TypeError, "shape",
    ),
]



_TOKENIZER = {"model": {"vocab": {"[PAD]": 0, "[unused0]": 1, "a": 2}}}

#: linmem.assess and linmem.embeddings (issue 15).
CASES += [
    *bad_arrays(linmem.assess, (W32,), {}, 0, "W", float_only=True),
    *bad_arrays(linmem.assess, (W32, K2, V2), {}, 1, "K", float_only=True, allow_none=True),
    *bad_arrays(linmem.assess, (W32, K2, V2), {}, 2, "V", float_only=True, allow_none=True),
    *[row for row in bad_nonnegative_reals(linmem.assess, (W32, K2, V2), {"rng": RNG}, "tau", "tau")
      if row[2]["tau"] is not None],  # tau=None means no noise measurement
    *bad_ints(linmem.assess, (W32, K2, V2), {"tau": 0.1, "rng": RNG}, "noise_draws", "noise_draws"),
    (linmem.assess, (W32, K2), {}, ValueError, "K and V must be given together"),
    (linmem.assess, (W32, K2, np.ones((3, 3))), {}, ValueError, "K and V must have the same number of columns"),
    (linmem.assess, (np.ones((2, 2)), K2, V2), {}, ValueError, "W must have shape (rows of V, rows of K) = (3, 2)"),
    (linmem.assess, (W32, K2, V2), {"tau": 0.1}, TypeError, "rng must be a numpy.random.Generator"),
    (linmem.assess, (W32,), {"tau": 0.1, "rng": RNG}, ValueError, "tau needs the keys K and values V"),
    (linmem.assess, (W32, K2, linmem.mp_array(V2)), {}, TypeError, "W, K and V must all be float or all mpmath"),
    *bad_arrays(linmem.embeddings.condition_embeddings, (T3, "centered"), {}, 0, "X", float_only=True),
    (linmem.embeddings.condition_embeddings, (T3, "bogus"), {}, ValueError, "condition must be one of"),
    (linmem.embeddings.condition_embeddings, (np.ones((1, 3)), "raw"), {}, ValueError, "X must have at least 2 rows"),
    (linmem.embeddings.condition_embeddings, (np.ones((3, 2)), "centered"), {}, ValueError, "row(s) equal to the mean"),
    *bad_arrays(linmem.embeddings.random_subspace, (T3, 2), {"rng": RNG}, 0, "X", float_only=True),
    *bad_ints(linmem.embeddings.random_subspace, (T3, 2), {"rng": RNG}, 1, "d"),
    (linmem.embeddings.random_subspace, (T3, 4), {"rng": RNG}, ValueError, "d must be at most the 3 columns of X"),
    (linmem.embeddings.random_subspace, (T3, 2), {"rng": None}, TypeError, "rng must be a numpy.random.Generator"),
    *bad_arrays(linmem.embeddings.draw_pairs, (T3, 1), {"rng": RNG}, 0, "X", float_only=True),
    *bad_ints(linmem.embeddings.draw_pairs, (T3, 1), {"rng": RNG}, 1, "n"),
    (linmem.embeddings.draw_pairs, (T3, 2), {"rng": RNG}, ValueError, "n must be at most 1 (2n distinct rows"),
    (linmem.embeddings.draw_pairs, (T3, 1), {"rng": 0}, TypeError, "rng must be a numpy.random.Generator"),
    *bad_arrays(linmem.embeddings.critical_pairs, (len, I3, T3), {}, 1, "keys", float_only=True),
    *bad_arrays(linmem.embeddings.critical_pairs, (len, I3, T3), {}, 2, "targets", float_only=True),
    *bad_ints(linmem.embeddings.critical_pairs, (len, I3, T3), {}, "lo", "lo", minimum=2),
    (linmem.embeddings.critical_pairs, (None, I3, T3), {}, TypeError, "success must be callable"),
    (linmem.embeddings.critical_pairs, (len, I3, np.ones((3, 4))), {}, ValueError,
     "keys and targets must have the same number of columns"),
    (linmem.embeddings.critical_pairs, (len, I3, T3), {"lo": 4}, ValueError, "lo must be at most the 3 pairs"),
    *bad_arrays(linmem.embeddings.embedding_geometry, (T3,), {}, 0, "X", float_only=True),
    *bad_ints(linmem.embeddings.embedding_geometry, (T3,), {}, "top", "top"),
    *bad_ints(linmem.embeddings.embedding_geometry, (T3,), {}, "cosine_rows", "cosine_rows", minimum=2),
    (linmem.embeddings.embedding_geometry, (T3,), {"cosine_rows": 2}, TypeError,
     "rng must be a numpy.random.Generator when X has more than cosine_rows = 2 rows"),
    (linmem.embeddings.read_tensor, (None,), {}, TypeError, "path must be a file path"),
    (linmem.embeddings.read_tensor, ("/nonexistent/w.npy",), {}, FileNotFoundError, "path '/nonexistent/w.npy' does not exist"),
    (linmem.embeddings.read_tensor, (__file__, 5), {}, TypeError, "tensor must be a tensor name"),
    (linmem.embeddings.read_tensor, (__file__,), {}, ValueError, "must end in one of .safetensors, .npz, .npy"),
    (linmem.embeddings.untrained_rows, ({}, 3), {}, TypeError, "tokenizer must be a parsed tokenizer.json"),
    *bad_ints(linmem.embeddings.untrained_rows, (_TOKENIZER, 3), {}, 1, "n_rows"),
    (linmem.embeddings.untrained_rows, (_TOKENIZER, 1), {}, ValueError, "tokenizer maps '[unused0]' to id 1, outside the 1 rows"),
    (linmem.embeddings.load_minilm, (), {"tensor": 5}, TypeError, "tensor must be a tensor name"),
    (linmem.embeddings.load_sample, (), {"tensor": None}, TypeError, "tensor must be a tensor name"),
    (linmem.embeddings.load_sample, (), {"tensor": "nope"}, ValueError, "the shipped sample has no tensor 'nope'"),
    (linmem.embeddings.load_embeddings, (5,), {}, TypeError, "path must be a file path"),
    (linmem.embeddings.load_embeddings, (), {"tokenizer": "t.json"}, ValueError, "tokenizer applies to a file given by path"),
    *bad_ints(linmem.embeddings.gaussian_pairs, (2, 3), {"rng": RNG}, 0, "d"),
    *bad_ints(linmem.embeddings.gaussian_pairs, (2, 3), {"rng": RNG}, 1, "n"),
    (linmem.embeddings.gaussian_pairs, (2, 3), {"rng": None}, TypeError, "rng must be a numpy.random.Generator"),
    (linmem.embeddings.gaussian_pairs, (2, 3), {"rng": RNG, "unit": "yes"}, TypeError, "unit must be a bool, got str"),
    *bad_arrays(linmem.embeddings.spread_side, ([1.0, 2.0], [3.0]), {}, 0, "x", ndim=1),
    *bad_arrays(linmem.embeddings.spread_side, ([1.0, 2.0], [3.0]), {}, 1, "y", ndim=1),
    (linmem.embeddings.spread_side, ([1.0], [2.0]), {"percentiles": (75, 25)}, ValueError,
     "percentiles must be (lo, hi) with 0 <= lo <= hi <= 100, got (75, 25)"),
    *bad_arrays(linmem.embeddings.retrieval_failures, (I3, I3, T3), {}, 0, "scores"),
    *bad_arrays(linmem.embeddings.retrieval_failures, (I3, I3, T3), {}, 1, "keys"),
    *bad_arrays(linmem.embeddings.retrieval_failures, (I3, I3, T3), {}, 2, "targets"),
    (linmem.embeddings.retrieval_failures, (np.ones((3, 2)), I3, T3), {}, ValueError,
     "scores must be n x n for the n columns of keys and targets, got scores (3, 2)"),
    (linmem.embeddings.retrieval_failures, (I3, I3, T3), {"hub_fraction": 2.0}, ValueError,
     "hub_fraction must lie in (0, 1], got 2.0"),
    (linmem.embeddings.critical_size_draws, (None, dict), {"draws": 2, "reference": "cmm", "n_max": 10},
     TypeError, "success, pools and build must be callable (build may be None), got NoneType"),
    (linmem.embeddings.critical_size_draws, (len, None), {"draws": 2, "reference": "cmm", "n_max": 10},
     TypeError, "success, pools and build must be callable (build may be None)"),
    *bad_ints(linmem.embeddings.critical_size_draws, (len, dict), {"draws": 2, "reference": "cmm", "n_max": 10},
              "draws", "draws"),
    *bad_ints(linmem.embeddings.critical_size_draws, (len, dict), {"draws": 2, "reference": "cmm", "n_max": 10},
              "n_max", "n_max", minimum=2),
    *bad_arrays(linmem.ridge_store, (I3, T3), {"ridge": 1.0}, 0, "K"),
    *bad_arrays(linmem.ridge_store, (I3, T3), {"ridge": 1.0}, 1, "V"),
    *bad_positive_reals(linmem.ridge_store, (I3, T3), {"ridge": 1.0}, "ridge", "ridge"),
    *bad_ints(capacity.competitor_count, (10, 0.15), {}, 0, "n", minimum=2),
    *bad_probabilities(capacity.competitor_count, (10, 0.15), {}, 1, "r", arrays=False),
    *bad_ints(capacity.tied_smoothing_gap, (3, 1), {"beta": 1.0}, 0, "m"),
    *bad_ints(capacity.tied_smoothing_gap, (3, 1), {"beta": 1.0}, 1, "k"),
    *bad_positive_reals(capacity.tied_smoothing_gap, (3, 1), {"beta": 1.0}, "beta", "beta"),
    *bad_ints(capacity.smoothed_topk_average_mp, ([1.0, 2.0], 1), {"beta": 1.0}, 1, "k"),
    *bad_positive_reals(capacity.smoothed_topk_average_mp, ([1.0, 2.0], 1), {"beta": 1.0}, "beta", "beta"),
    *[(f, a, k, e, m.replace(">= 0, got", ">= 0 (kappa(r) of some r in (0, 1)), got"))
      for f, a, k, e, m in bad_nonnegative_reals(capacity.alpha_c_bounds, (1.0,), {}, 0, "kappa_r")],
    *bad_arrays(capacity.fm_separable, (T3,), {}, 0, "Y"),
    *bad_arrays(capacity.separable_fraction, (T3,), {}, 0, "X"),
    *bad_arrays(capacity.in_general_position, (T3,), {}, 0, "X"),
    *[(f, a, k, e, m.replace("A must be a float array", "A must be a float matrix (the LP runs in float64)"))
      for f, a, k, e, m in bad_arrays(capacity.lp_separable, (T3,), {}, 0, "A", float_only=True)],
]


#: linmem.optimality (the learners' optimality conditions, evaluated independently).
_LAM3 = (np.ones((3, 3)) - np.eye(3)) / 6
_LP3 = {"W": I3, "margin": 0.5, "multipliers": _LAM3}
_V4, _U4 = np.eye(3, 4), np.eye(3, 4)[::-1]
CASES += [
    *bad_top1_problem(optimality.comparison_gaps),
    *[row for f in (optimality.max_margin_kkt_defect, optimality.max_margin_support_defect) for row in (
        *bad_pairs(f, _LP3),
        *bad_arrays(f, (I3, T3), _LP3, "W", "W", float_only=True),
        (f, (I3, T3), {**_LP3, "W": np.ones((3, 2))}, ValueError, "W must have shape (targets rows, keys rows) = (3, 3), got (3, 2)"),
        *bad_arrays(f, (I3, T3), _LP3, "multipliers", "multipliers", float_only=True, allow_none=True),
        (f, (I3, T3), {**_LP3, "multipliers": np.ones((2, 2))}, ValueError, "multipliers must be n x n = (3, 3) for the 3 pairs, got (2, 2)"),
        (f, (I3, T3), {**_LP3, "margin": "0.5"}, TypeError, "margin must be a real number, got str"),
        (f, (I3, T3), {**_LP3, "margin": None}, TypeError, "margin must be a real number, got NoneType"),
        (f, (I3, T3), {**_LP3, "margin": True}, TypeError, "margin must be a real number, got bool"),
        (f, (I3, T3), {**_LP3, "margin": float("nan")}, ValueError, "margin must be finite, got nan"))],
    *bad_pairs(optimality.max_margin_allowance),
    *[row for f, kw in ((optimality.cross_entropy_objective_mp, {"ridge": 0.1}),
                        (optimality.tam_objective_mp, {"ridge": 0.1, "k": 1, "beta": 2.0})) for row in (
        *bad_arrays(f, (I3, I3, T3), kw, 0, "W"),
        *bad_arrays(f, (I3, I3, T3), kw, 1, "keys", float_only=True),
        *bad_arrays(f, (I3, I3, T3), kw, 2, "targets", float_only=True),
        (f, (np.ones((3, 2)), I3, T3), kw, ValueError, "W must have shape (targets rows, keys rows) = (3, 3), got (3, 2)"),
        (f, (I3, I3, np.ones((3, 4))), kw, ValueError, "keys and targets must have the same number of columns"),
        *bad_nonnegative_reals(f, (I3, I3, T3), kw, "ridge", "ridge"))],
    *bad_ints(optimality.tam_objective_mp, (I3, _V4, _U4), {"ridge": 0.1, "k": 1, "beta": 2.0}, "k", "k"),
    (optimality.tam_objective_mp, (I3, _V4, _U4), {"ridge": 0.1, "k": 3, "beta": 2.0}, ValueError,
     "k must be an integer in 1..2 (the number of competitors), got 3"),
    (optimality.tam_objective_mp, (np.ones((3, 3)), np.ones((3, 2)), np.ones((3, 2))), {"ridge": 0.1, "k": 1, "beta": 2.0},
     ValueError, "keys must have at least 3 columns (k < n - 1 competitors), got 2"),
    *bad_positive_reals(optimality.tam_objective_mp, (I3, _V4, _U4), {"ridge": 0.1, "k": 1, "beta": 2.0}, "beta", "beta"),
    (optimality.stationary_point_mp, (None, I3), {}, TypeError, "gradient must be callable, got NoneType"),
    *bad_arrays(optimality.stationary_point_mp, (np.negative, I3), {}, 1, "W0"),
    *bad_ints(optimality.stationary_point_mp, (np.negative, I3), {}, "maxsteps", "maxsteps"),
]


#: linmem.capacity's normal-law references and linmem.sweeps.paired_t (the tam claims).
CASES += [
    *bad_probabilities(capacity.normal_upper_quantile_mp, (0.3,), {"dps": 20}, 0, "r", arrays=False),
    *bad_ints(capacity.normal_upper_quantile_mp, (0.3,), {"dps": 20}, "dps", "dps"),
    *bad_ints(capacity.normal_partial_moment_mp, (2, 0.5), {"dps": 20}, 0, "j", minimum=0),
    *bad_ints(capacity.normal_partial_moment_mp, (2, 0.5), {"dps": 20}, "dps", "dps"),
    (capacity.normal_partial_moment_mp, (2, "0.5"), {}, TypeError, "a must be a real number, got str"),
    (capacity.normal_partial_moment_mp, (2, None), {}, TypeError, "a must be a real number, got NoneType"),
    (capacity.normal_partial_moment_mp, (2, True), {}, TypeError, "a must be a real number, got bool"),
    (capacity.normal_partial_moment_mp, (2, float("inf")), {}, ValueError, "a must be finite, got inf"),
    (capacity.normal_partial_moment_mp, (2, mpmath.mpf("nan")), {}, ValueError, "a must be finite, got nan"),
    (linmem.sweeps.paired_t, ("ab",), {}, TypeError, "gains must be a real 1-D array, got str"),
    (linmem.sweeps.paired_t, (None,), {}, TypeError, "gains must be a real 1-D array, got NoneType"),
    (linmem.sweeps.paired_t, ([True, False],), {}, TypeError, "gains must be a real 1-D array, got dtype bool"),
    (linmem.sweeps.paired_t, ([1.0],), {}, ValueError,
     "gains must be a 1-D array of at least 2 paired differences, got shape (1,)"),
    (linmem.sweeps.paired_t, (np.ones((2, 2)),), {}, ValueError, "paired differences, got shape (2, 2)"),
    (linmem.sweeps.paired_t, ([1.0, np.nan],), {}, ValueError, "gains must be finite, got NaN or inf"),
    (linmem.sweeps.recheck_crossing, ({}, len), {"keep": 2, "base_seed": 1, "name": "x"}, TypeError,
     "result must be a CrossingResult of bisect_crossing, got dict"),
]


#: linmem.embeddings: the real-against-Gaussian comparison's measurement procedures.
_STREAMS = np.random.default_rng
_SAMPLE12 = np.random.default_rng(0).standard_normal((12, 4))
CASES += [
    *bad_ints(linmem.embeddings.comparison_pool_size, (8, 1.0), {}, 0, "d"),
    *bad_positive_reals(linmem.embeddings.comparison_pool_size, (8, 1.0), {}, 1, "pool_ratio"),
    *bad_ints(linmem.embeddings.comparison_pool_size, (8, 1.0), {"rows": 10}, "rows", "rows", minimum=2,
              allow_none=True),
    *bad_arrays(linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": _STREAMS}, 0, "X", float_only=True),
    *bad_ints(linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": _STREAMS}, 1, "d"),
    *bad_ints(linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": _STREAMS}, 2, "n"),
    *bad_ints(linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": _STREAMS}, "draw", "draw", minimum=0),
    *bad_ints(linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": _STREAMS}, "n_gauss", "n_gauss",
              allow_none=True),
    (linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": None}, TypeError,
     "streams must be callable (a label -> numpy.random.Generator), got NoneType"),
    (linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": _STREAMS, "tag": 3}, TypeError,
     "tag must be a str (it labels the streams), got int"),
    (linmem.embeddings.comparison_pools, (T3, 2, 1), {"streams": _STREAMS, "conditions": "raw"}, ValueError,
     "conditions must be a tuple of ['raw', 'centered', 'project-then-whiten', 'whiten-then-project', 'gaussian', "
     "'gaussian-unit'], got 'raw'"),
    *bad_arrays(linmem.embeddings.capacity_comparison, (len, _SAMPLE12, (2,)),
                {"pool_ratio": 1.0, "draws": 2, "streams": _STREAMS, "tag": "t", "rate": 1e-3}, 1, "X", float_only=True),
    *bad_ints(linmem.embeddings.capacity_comparison, (len, _SAMPLE12, (2,)),
              {"pool_ratio": 1.0, "draws": 2, "streams": _STREAMS, "tag": "t", "rate": 1e-3}, "draws", "draws",
              minimum=2),
    (linmem.embeddings.capacity_comparison, (len, _SAMPLE12, (2.5,)),
     {"pool_ratio": 1.0, "draws": 2, "streams": _STREAMS, "tag": "t", "rate": 1e-3}, TypeError, "dims must be an integer, got float 2.5"),
    (linmem.embeddings.capacity_comparison, (len, _SAMPLE12, (0,)),
     {"pool_ratio": 1.0, "draws": 2, "streams": _STREAMS, "tag": "t", "rate": 1e-3}, ValueError, "dims must be an integer >= 1, got 0"),
    (linmem.embeddings.capacity_comparison, (len, _SAMPLE12, ()),
     {"pool_ratio": 1.0, "draws": 2, "streams": _STREAMS, "tag": "t", "rate": 1e-3}, ValueError,
     "dims must be a non-empty sequence of dimensions, got ()"),
    (linmem.embeddings.capacity_comparison, (None, _SAMPLE12, (2,)),
     {"pool_ratio": 1.0, "draws": 2, "streams": _STREAMS, "tag": "t", "rate": 1e-3}, TypeError,
     "success must be callable, got NoneType"),
    (linmem.embeddings.capacity_comparison, (len, _SAMPLE12, (2,)),
     {"pool_ratio": 1.0, "draws": 2, "streams": _STREAMS, "tag": "t", "rate": 1e-3, "conditions": ("whitened",)},
     ValueError, "conditions must be a non-empty tuple of ['raw', 'centered', 'project-then-whiten', "
     "'whiten-then-project'], got ('whitened',)"),
    (linmem.embeddings.paired_decision, ([1, 2], [1, 2, 3]), {"rate": 1e-3}, ValueError,
     "n_real and n_base must be paired (the same number of draws, at least 2), got 2 and 3"),
    (linmem.embeddings.paired_decision, ([1, 2], [1, 2]), {"rate": 2.0}, ValueError, "rate must lie in (0, 1), got 2.0"),
    *bad_arrays(linmem.embeddings.shuffle_columns, (T3,), {"rng": np.random.default_rng(0)}, 0, "X", float_only=True),
    *bad_arrays(linmem.embeddings.pool_statistics, (T3,), {}, 0, "X", float_only=True),
    (linmem.embeddings.capacity_comparison, (len, _SAMPLE12, (2,)),
     {"pool_ratio": 1.0, "draws": 2, "streams": "rng", "tag": "t", "rate": 1e-3}, TypeError, "streams must be callable"),
    (linmem.embeddings.geometry_figures, ([1.0],), {}, TypeError,
     "geometry must be a record of embedding_geometry (a dict), got list"),
    (linmem.embeddings.geometry_figures, ({"norms": {}},), {}, ValueError,
     "geometry must be a record of embedding_geometry; it has no norms/cv"),
    *bad_arrays(linmem.embeddings.geometry_comparison, (T3,), {"rows": 3, "draws": 1, "streams": _STREAMS}, 0, "X",
                float_only=True),
    *bad_ints(linmem.embeddings.geometry_comparison, (T3,), {"rows": 3, "draws": 1, "streams": _STREAMS},
              "rows", "rows", minimum=2),
    *bad_ints(linmem.embeddings.geometry_comparison, (T3,), {"rows": 3, "draws": 1, "streams": _STREAMS},
              "draws", "draws"),
    (linmem.embeddings.geometry_comparison, (T3,), {"rows": 3, "draws": 1, "streams": 0}, TypeError,
     "streams must be callable"),
    (linmem.embeddings.geometry_comparison, (T3,), {"rows": 3, "draws": 1, "streams": _STREAMS, "geometry": 1},
     TypeError, "geometry must be callable (like embedding_geometry), got int"),
    *bad_arrays(linmem.embeddings.learned_store_gaps, (_SAMPLE12,),
                {"d": 2, "ns": (2,), "draws": 1, "ridge": 0.1, "streams": _STREAMS}, 0, "X", float_only=True),
    *bad_ints(linmem.embeddings.learned_store_gaps, (_SAMPLE12,),
              {"d": 2, "ns": (2,), "draws": 1, "ridge": 0.1, "streams": _STREAMS}, "d", "d"),
    *bad_ints(linmem.embeddings.learned_store_gaps, (_SAMPLE12,),
              {"d": 2, "ns": (2,), "draws": 1, "ridge": 0.1, "streams": _STREAMS}, "draws", "draws"),
    *bad_nonnegative_reals(linmem.embeddings.learned_store_gaps, (_SAMPLE12,),
                           {"d": 2, "ns": (2,), "draws": 1, "ridge": 0.1, "streams": _STREAMS}, "ridge", "ridge"),
    (linmem.embeddings.learned_store_gaps, (_SAMPLE12,),
     {"d": 2, "ns": 2, "draws": 1, "ridge": 0.1, "streams": _STREAMS}, TypeError,
     "ns must be a sequence of pool sizes, got int"),
    (linmem.embeddings.learned_store_gaps, (_SAMPLE12,),
     {"d": 2, "ns": (0,), "draws": 1, "ridge": 0.1, "streams": _STREAMS}, ValueError,
     "ns must be an integer >= 1, got 0"),
    (linmem.embeddings.learned_store_gaps, (_SAMPLE12,),
     {"d": 2, "ns": (2,), "draws": 1, "ridge": 0.1, "streams": _STREAMS, "assess": "no"}, TypeError,
     "learn and assess must be callable"),
]


#: linmem.capacity.second_order_term (fs.second-order).
CASES += [
    *bad_positive_reals(capacity.second_order_term, (4.0, 9.5), {}, 0, "d"),
    (capacity.second_order_term, (4.0, 1), {}, ValueError, "n must be a finite number > 1, got 1.0"),
    (capacity.second_order_term, (4.0, "9.5"), {}, TypeError, "n must be a real number, got str"),
]


#: linmem.retrieval.score_statistics (t1.score-scales).
CASES += [
    *bad_arrays(retrieval.score_statistics, (K2,), {}, 0, "scores", float_only=True),
    (retrieval.score_statistics, (np.ones((2, 3)),), {}, ValueError,
     "scores must be a square n x n array with n >= 2, got shape (2, 3)"),
    (retrieval.score_statistics, (np.ones((1, 1)),), {}, ValueError,
     "scores must be a square n x n array with n >= 2, got shape (1, 1)"),
]


#: linmem.retrieval.paired_gain (t1.sparse-repair).
CASES += [
    (retrieval.paired_gain, ([1, 2], [2, 2], 0), {}, ValueError,
     "n must be a positive integer (pairs per instance), got 0"),
    (retrieval.paired_gain, ([1, 2], [2, 2], 2.5), {}, ValueError, "n must be a positive integer"),
    (retrieval.paired_gain, ([1, 2], [2, 2], True), {}, ValueError, "n must be a positive integer"),
    (retrieval.paired_gain, ("ab", [2, 2], 3), {}, TypeError, "before must be a 1-D array of counts, got str"),
    (retrieval.paired_gain, ([1, 2], None, 3), {}, TypeError, "after must be a 1-D array of counts, got NoneType"),
    (retrieval.paired_gain, ([True, False], [2, 2], 3), {}, TypeError,
     "before must be a 1-D array of counts, got dtype bool"),
    (retrieval.paired_gain, ([1], [2], 3), {}, ValueError,
     "before must be a 1-D array of at least 2 integer counts in [0, 3]"),
    (retrieval.paired_gain, ([1, 4], [2, 2], 3), {}, ValueError, "before must be a 1-D array of at least 2 integer counts"),
    (retrieval.paired_gain, ([1, 2], [2, 1.5], 3), {}, ValueError, "after must be a 1-D array of at least 2 integer counts"),
    (retrieval.paired_gain, ([1, 2], [2, np.nan], 3), {}, ValueError, "after must be a 1-D array of at least 2"),
    (retrieval.paired_gain, ([1, 2], [2, 2, 3], 3), {}, ValueError,
     "before and after must count the same instances, got 2 and 3"),
]


def _values(case) -> tuple:
    return tuple(case.values) if hasattr(case, "values") else tuple(case)


def _key(func) -> tuple[str, str]:
    """(module, qualified name): the same for a classmethod bound afresh on each access."""
    func = getattr(func, "__func__", func)
    return func.__module__, func.__qualname__


def _case_id(i: int, case) -> str:
    func, _, _, _, fragment = _values(case)
    return f"{_key(func)[1]}-{i}-{fragment[:48]}"


@pytest.mark.parametrize(
    "func, args, kwargs, exc, fragment",
    CASES,
    ids=[_case_id(i, c) for i, c in enumerate(CASES)],
)
def test_bad_input_is_refused_with_a_message_naming_it(func, args, kwargs, exc, fragment):
    with pytest.raises(exc) as info:
        func(*args, **kwargs)
    assert fragment in str(info.value)


def test_linear_memory_recall_checks_the_query_dimension():
    mem = linmem.LinearMemory.fit(K2, V2)
    with pytest.raises(ValueError, match="q must have 2 rows"):
        mem.recall(np.ones(3))


# --------------------------------------------------------------------------
# meta: every public callable has a row
# --------------------------------------------------------------------------

#: Public callables that take no user arrays or options to validate, with the reason.
NO_ARGUMENTS_TO_VALIDATE = {
    ("linmem.spectral", "CompactSVD"): "result record returned by compact_svd (a NamedTuple of its outputs)",
    ("linmem.learn", "ConvexFitResult"): "result record returned by tam_erm / cross_entropy_memory",
    ("linmem.learn", "GordanCertificate"): "result record returned by gordan_certificate; verify() rechecks it",
    ("linmem.learn", "MaxMarginResult"): "result record returned by max_margin_memory",
    ("linmem.learn", "SparseRepairResult"): "result record returned by sparse_repair_memory",
    ("linmem.learn", "TamFeasibility"): "result record returned by tam_feasible",
    ("linmem.learn", "LinearProgramError"): "an exception class, raised by linmem, not called with data",
    ("linmem.assess", "Assessment"): "result record returned by linmem.assess",
    ("linmem.embeddings", "TokenEmbeddings"): "result record returned by the embedding loaders",
    ("linmem.embeddings", "minilm_zip_path"): "takes no arguments (locates the installed wheel)",
}

#: The modules whose ``__all__`` is public: those re-exported by ``linmem``.
PUBLIC_MODULES = [
    obj for name in linmem.__all__ if isinstance(obj := getattr(linmem, name), types.ModuleType)
]


def _takes_arguments(method) -> bool:
    params = list(inspect.signature(method).parameters.values())
    if not inspect.ismethod(method):  # a plain function on the class: drop self
        params = params[1:]
    return bool(params)


def public_callables() -> set[tuple[str, str]]:
    """Functions, classes (their constructors) and the public methods and
    classmethods of those classes that take arguments, from every public
    module's ``__all__`` and from ``linmem.__all__``."""
    found = set()
    namespaces = [(linmem, linmem.__all__)] + [(m, m.__all__) for m in PUBLIC_MODULES]
    for module, names in namespaces:
        for name in names:
            obj = getattr(module, name)
            if isinstance(obj, types.ModuleType) or not callable(obj):
                continue
            found.add(_key(obj))
            if inspect.isclass(obj) and _key(obj) not in NO_ARGUMENTS_TO_VALIDATE:
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or isinstance(member, property):
                        continue
                    member = getattr(obj, attr)
                    if callable(member) and _takes_arguments(member):
                        found.add(_key(member))
    return found


def test_the_table_covers_every_public_callable():
    covered = {_key(_values(c)[0]) for c in CASES}
    public = public_callables()
    missing = sorted(public - covered - set(NO_ARGUMENTS_TO_VALIDATE))
    assert not missing, f"public linmem callables with no bad-input row: {missing}"
    stale = sorted(set(NO_ARGUMENTS_TO_VALIDATE) - public)
    assert not stale, f"allow-list entries that are no longer public: {stale}"
    assert not set(NO_ARGUMENTS_TO_VALIDATE) & covered, "an allow-listed callable has rows: drop it from the list"


def test_the_public_modules_are_found():
    names = {m.__name__ for m in PUBLIC_MODULES}
    assert {"linmem.stores", "linmem.recall", "linmem.learn", "linmem.retrieval"} <= names
    assert len(public_callables()) >= 70

