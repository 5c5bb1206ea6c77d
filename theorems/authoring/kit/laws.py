"""Finite laws: exact averages over designs (the random-sign value design, weighted outcomes,
products and stacks of independent draws) standing in for continuous random inputs."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

import linmem
from theorems.authoring.kit.numbers import exact

__all__ = [
    "Law",
    "law",
    "sign_expectation",
    "sign_law",
    "sign_values",
]


def sign_values(p: int, M: int, rng: np.random.Generator) -> np.ndarray:
    """Fixed exactly-unit rational value directions ``W0`` (p x M) of the
    design ``v_i = s_i w_i``: independent, zero-mean, unit values
    (``E[V^T V] = I``), all that 000 assumes of values."""
    return linmem.ensembles.rational_unit_vectors(p, M, rng=rng, scale=3)


def sign_expectation(f: Callable[[np.ndarray], Any], W0: np.ndarray):
    """``E_s f(W0 diag(s))`` over fair independent signs, exactly (2^M terms).

    >>> float(sign_expectation(lambda V: V.sum() ** 2, exact([[1, 1]])))
    2.0
    """
    M = W0.shape[1]
    total, n = None, 0
    for s in itertools.product((-1, 1), repeat=M):
        value = f(W0 * np.array(s, dtype=object))
        total = value if total is None else total + value
        n += 1
    return Fraction(total, n) if isinstance(total, int) else total / n


class Law:
    """A finite distribution for exact expectations: exact ``weights``
    summing to one and ``outcomes``, a tuple of arrays whose leading axes run
    over the outcomes (e.g. keys ``(N, d)``, or key and value matrices
    ``(N, d, M)`` and ``(N, p, M)`` of a joint law). A quantity written for
    a batch of outcomes (leading axes the batch, numpy broadcasting) serves
    both this law and a Monte Carlo batch; :meth:`mean` is its exact
    weighted average.

    The product ``a * b`` of independent laws is not spelled out: its
    weights are the outer product ``(N_a, N_b)`` and its outcomes broadcast
    against them (``a``'s as ``(N_a, 1, ...)``, ``b``'s as ``(1, N_b,
    ...)``), so each factor's part of a quantity is computed once per
    outcome of that factor. ``label`` and ``info`` are what a report shows.

    >>> coin = law([exact([1]), exact([-1])])
    >>> coin.mean(coin.outcomes[0] ** 2).tolist(), len(coin * coin)
    ([Fraction(1, 1)], 4)
    """

    def __init__(self, outcomes, weights, label: str = "", **info: Any):
        outcomes = tuple(outcomes)
        weights = exact(np.asarray(weights, dtype=object))
        k = weights.ndim
        if k == 0 or not outcomes or any(np.ndim(o) < k or any(n not in (1, m) for n, m in
                                                              zip(np.shape(o)[:k], weights.shape)) for o in outcomes):
            raise ValueError(f"outcomes must be arrays whose leading axes match the weights' shape {weights.shape} "
                             f"(or are 1), got shapes {[np.shape(o) for o in outcomes]}")
        if weights.size == 0 or np.sum(weights) != 1 or np.any(weights < 0):
            raise ValueError(f"weights must be non-negative and sum to exactly 1, got sum {np.sum(weights)}")
        self.outcomes, self.weights, self.label, self.info = outcomes, weights, label, info

    @classmethod
    def _built(cls, outcomes, weights, label, info) -> "Law":
        """A law from parts already checked (a product or repetition of laws)."""
        out = cls.__new__(cls)
        out.outcomes, out.weights, out.label, out.info = tuple(outcomes), weights, label, info
        return out

    def __len__(self) -> int:
        return self.weights.size

    def mean(self, values):
        """``sum_n w_n values[n]`` exactly, over the leading (outcome) axes of ``values``."""
        k = self.weights.ndim
        values = np.asarray(values, dtype=object)
        if values.ndim < k or any(n not in (1, m) for n, m in zip(values.shape[:k], self.weights.shape)):
            raise ValueError(f"values must have leading axes {self.weights.shape} (one entry per outcome), "
                             f"got shape {values.shape}")
        values = np.broadcast_to(values, self.weights.shape + values.shape[k:])
        return np.tensordot(self.weights, values, axes=(list(range(k)), list(range(k))))

    def __mul__(self, other: "Law") -> "Law":
        """The independent joint law: outcomes of ``self`` then of ``other``, weights multiplied."""
        a, b = self.weights.ndim, other.weights.ndim
        mine = [o.reshape(o.shape[:a] + (1,) * b + o.shape[a:]) for o in self.outcomes]
        theirs = [o.reshape((1,) * a + o.shape) for o in other.outcomes]
        return Law._built(mine + theirs, np.multiply.outer(self.weights, other.weights),
                          f"{self.label} x {other.label}", {**self.info, **other.info})

    def stacked(self, M: int, axis: int = -1) -> "Law":
        """``M`` independent draws of a one-outcome law, each outcome stacked
        along a new ``axis`` (keys ``(N, d)`` become key matrices ``(N^M, d, M)``)."""
        if len(self.outcomes) != 1 or self.weights.ndim != 1:
            raise ValueError(f"stacked needs a law with one outcome array and one outcome axis, got "
                             f"{len(self.outcomes)} arrays over {self.weights.ndim} axes")
        idx = np.array(list(itertools.product(range(len(self)), repeat=M)), dtype=int).reshape(-1, M)
        points = np.stack([self.outcomes[0][idx[:, m]] for m in range(M)], axis=axis)
        one = np.array(Fraction(1), dtype=object)  # the products of M weights, in the order of idx
        weights = functools.reduce(np.multiply.outer, [self.weights] * M, one).ravel()
        return Law._built([points], weights, f"{M} draws of {self.label}", dict(self.info))

    def describe(self) -> dict:
        return {"law": self.label, "outcomes": len(self), **self.info}

    def __repr__(self) -> str:
        return f"Law({self.label!r}, {len(self)} outcomes{''.join(f', {k}={v!r}' for k, v in self.info.items())})"


def law(outcomes: Sequence, weights: Sequence | None = None, label: str = "", **info: Any) -> Law:
    """A :class:`Law` over the list ``outcomes`` (each an array), equally
    likely unless ``weights`` are given.

    >>> law([exact([0, 1]), exact([1, 0])]).mean(np.stack([exact([0, 1]), exact([1, 0])])).tolist()
    [Fraction(1, 2), Fraction(1, 2)]
    """
    n = len(outcomes)
    if n == 0:
        raise ValueError("outcomes must be non-empty")
    return Law([np.stack([np.asarray(o, dtype=object) for o in outcomes])],
               [Fraction(1, n)] * n if weights is None else weights, label, **info)


def sign_law(W0: np.ndarray) -> Law:
    """The random values ``V = W0 diag(s)`` over fair independent signs
    ``s`` (2^M equally likely value matrices, shape ``(2^M, p, M)``): with
    exactly-unit columns of ``W0`` (:func:`sign_values`) independent,
    zero-mean, unit values, all that 000 assumes of values.

    >>> len(sign_law(exact([[1, 1]])))
    4
    """
    signs = [np.array(s, dtype=object) for s in itertools.product((-1, 1), repeat=W0.shape[1])]
    return law([W0 * s for s in signs], label="random-sign values")
