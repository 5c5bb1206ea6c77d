"""Bad input to every public linmem function gets a ValueError or TypeError
whose message names the argument, what it got and what it needs. One table."""

from __future__ import annotations

import numpy as np
import pytest

import linmem
from linmem import ensembles

NAN_K = np.array([[1.0, np.nan], [0.0, 1.0]])
INF_K = np.array([[1.0, np.inf], [0.0, 1.0]])
K2 = np.eye(2)
V2 = np.ones((3, 2))
RNG = np.random.default_rng(0)

CASES = [
    # (function, args, kwargs, exception, fragment of the message)
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
    (linmem.leverage_scores, (np.ones((2, 2, 2)),), {}, ValueError, "K must be a 2-D array"),
    (linmem.leverage_scores, (None,), {}, TypeError, "K must be a real array"),
    (linmem.projectors, (NAN_K,), {}, ValueError, "K must have finite entries"),
    (linmem.compact_svd, (linmem.exact_array([[1, 2]]),), {}, TypeError, "exact rationals"),
    (linmem.snr, (1.5,), {}, ValueError, "h must lie in [0, 1]"),
    (linmem.snr, (-0.2,), {}, ValueError, "h must lie in [0, 1]"),
    (linmem.snr, (np.array([0.2, np.nan]),), {}, ValueError, "h must have finite entries"),
    (linmem.snr, ("0.5",), {}, TypeError, "h must be a real number"),
    (linmem.expected_error, (np.array([0.2, 2.0]),), {}, ValueError, "got 2.0 at index 1"),
    (linmem.query_noise_error, (K2,), {"tau": -0.1}, ValueError, "tau must be a finite number >= 0"),
    (linmem.query_noise_error, (K2,), {"tau": float("nan")}, ValueError, "tau must be a finite number >= 0"),
    (linmem.query_noise_error, (K2,), {"tau": "0.1"}, TypeError, "tau must be a real number"),
    (linmem.fixed_store_noise_error, (np.ones((3, 5)), K2, V2), {"tau": 0.1}, ValueError, "W must have shape (p, d) = (3, 2)"),
    (linmem.op_recall_decomposition, (np.array([[1.0, 0.0], [0.0, 0.0]]), V2), {}, ValueError, "K must have nonzero columns"),
    (linmem.op_recall_decomposition, (2 * K2, V2), {}, ValueError, "K must have unit-norm columns"),
    (linmem.op_conditional_error, (np.array([[0.0, 1.0]]),), {}, ValueError, "nonzero columns"),
    (linmem.is_consistent, (K2, np.ones((3, 4))), {}, ValueError, "same number of columns"),
    (linmem.spherical_vectors, (3, 4), {"rng": 0}, TypeError, "rng must be a numpy.random.Generator"),
    (linmem.spherical_vectors, (0, 4), {"rng": RNG}, ValueError, "dim must be an integer >= 1, got 0"),
    (linmem.gaussian_vectors, (2.5, 4), {"rng": RNG}, TypeError, "dim must be an integer"),
    (linmem.gaussian_vectors, (10**6, 10**6), {"rng": RNG}, ValueError, "would need 7450.6 GiB"),
    (linmem.duplicated_keys, (3, 4), {"n_distinct": 5, "rng": RNG}, ValueError, "n_distinct must be <= count = 4"),
    (linmem.controlled_spectrum, (3, 4), {"cond": 0.5, "rng": RNG}, ValueError, "cond must be >= 1"),
    (linmem.controlled_spectrum, (3, 4), {"cond": 10.0, "rank": 4, "rng": RNG}, ValueError, "rank must be <= min(dim, count) = 3"),
    (linmem.consistent_values, (np.ones((2, 3)), K2), {}, ValueError, "A must have 2 columns"),
    (linmem.uniform_leverage_snr, (4, 3), {}, ValueError, "M must exceed d"),
    (linmem.snr_capacity, (4, -1.0), {}, ValueError, "gamma must be a finite number > 0"),
    (linmem.op_spherical_snr, (4, 1), {}, ValueError, "M must exceed 1"),
    (linmem.LinearMemory.fit, (K2, V2), {"method": "ridge"}, ValueError, "method must be one of"),
    (ensembles.rational_orthogonal, (0,), {"rng": RNG}, ValueError, "n must be an integer >= 1"),
]


@pytest.mark.parametrize(
    "func, args, kwargs, exc, fragment",
    CASES,
    ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)],
)
def test_bad_input_is_refused_with_a_message_naming_it(func, args, kwargs, exc, fragment):
    with pytest.raises(exc) as info:
        func(*args, **kwargs)
    assert fragment in str(info.value)


def test_linear_memory_recall_checks_the_query_dimension():
    mem = linmem.LinearMemory.fit(K2, V2)
    with pytest.raises(ValueError, match="q must have 2 rows"):
        mem.recall(np.ones(3))
