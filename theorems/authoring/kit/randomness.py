"""Randomness: SeedSequence streams from a parent seed and labels (no arithmetic offsets),
spherical batches, and a store linear in the values evaluated on a batch at the cost of one call."""

from __future__ import annotations

from typing import Callable

import numpy as np

from theorems.core.model import derive_seed, seed_sequence
from theorems.authoring.kit.numbers import exact, eye  # noqa: F401  (exact: the doctests)

__all__ = [
    "generator",
    "seed",
    "spherical_batch",
    "store",
]


def seed(parent: int, *labels: str) -> int:
    """A 32-bit seed for the stream ``labels`` under ``parent`` (the scheme
    of :func:`theorems.core.model.derive_seed`).

    >>> seed(1, "a") == seed(1, "a") != seed(1, "b")
    True
    """
    return derive_seed(parent, *labels)


def generator(parent: int, *labels: str) -> np.random.Generator:
    """A Generator on the stream named by ``labels`` under ``parent``, e.g.
    ``generator(case_seed, "free key")`` inside a Hypothesis recipe.

    >>> float(generator(0, "x").random()) == float(generator(0, "x").random())
    True
    """
    return np.random.default_rng(seed_sequence(parent, *labels))


def spherical_batch(rng: np.random.Generator, size: int, p: int, M: int) -> np.ndarray:
    """``size`` matrices p x M whose columns are independent and uniform on
    the unit sphere of R^p, shape (size, p, M)."""
    V = rng.standard_normal((size, p, M))
    return V / np.linalg.norm(V, axis=-2, keepdims=True)


def store(build: Callable[[np.ndarray, np.ndarray], np.ndarray], K, V) -> np.ndarray:
    """``build(K, V)``; for a batch ``V`` (size x p x M) the store of every
    sample as ``V @ build(K, I_M)``, exact for stores linear in the values
    (least squares ``V K^+``, outer product ``V K^T``). Write a quantity with
    it and with ``axis=-2`` column sums, and the same code serves the exact
    enumeration (2-D V) and the Monte Carlo (3-D batch); further leading
    batch axes (a product :class:`Law`) are kept. A batch of key matrices
    ``K`` (leading axes, e.g. the key outcomes of a joint law) builds
    ``build(K_n, I_M)`` once per key matrix and broadcasts it against ``V``.

    >>> K = exact([[[1, 0], [0, 1]], [[1, 1], [0, 1]]])
    >>> W = store(lambda K, V: V @ K.T, K, exact([[[[1, 2]]]]))
    >>> W.shape, W[0, :, 0].tolist() == [[1, 2], [3, 2]]
    ((1, 2, 1, 2), True)
    """
    if np.ndim(K) > 2:
        keys = np.reshape(K, (-1,) + np.shape(K)[-2:])
        built = np.stack([build(k, eye(k.shape[1], k)) for k in keys])
        return V @ built.reshape(np.shape(K)[:-2] + built.shape[-2:])
    if np.ndim(V) >= 3:
        return V @ build(K, eye(K.shape[1], K))
    return build(K, V)
