"""The kit: the building blocks every claim (ours or a user's) shares.

Number systems. linmem runs one formula in float64, in mpmath and in exact
rationals (``Fraction`` object arrays), so a claim's terms are written once;
the helpers here move inputs between those systems and give reference
computations that are *not* under test:

* :func:`exact` (integers, floats or rationals to ``Fraction`` arrays),
  :func:`to_mp` (exact inputs rounded at the working mpmath precision, tuples
  and dicts converted entry by entry), :func:`is_exact`, :func:`eye`;
* :func:`rank`, the reference rank in the number system of its argument;
* :func:`scale`, the one tolerance scale ``max(shape K) * cond(K) *
  prod(1 + ||X||)`` of the tolerance model, so nobody invents a scale.

Randomness. :func:`seed` and :func:`generator` derive every stream from a
parent seed and labels through :class:`numpy.random.SeedSequence` (the same
scheme as :meth:`theorems.core.model.Context.rng`): no arithmetic offsets.
The base seed of a sweep that several checks of a run share (one cache
entry serves them all) is ``seed(run_seed, label)``, without the claim id.

Distributions. :func:`spherical_batch` draws batches of unit columns;
:func:`store` evaluates a store that is linear in the values on a batch of
value matrices at the cost of one call (``W(V) = V W(I)``), which is what
makes Monte Carlo over values cheap; :func:`sign_values` builds the exact
random-value design ``v_i = s_i w_i`` (fair signs times fixed exactly-unit
rational ``w_i``) and :func:`sign_expectation` averages over it exactly.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Any, Callable, Sequence

import mpmath
import numpy as np

import linmem
from linmem.precise import EXACT, MPMATH, exact_array, mp_array, number_kind
from theorems.core.model import derive_seed, seed_sequence

__all__ = [
    "exact",
    "eye",
    "from_sympy",
    "generator",
    "integer_array",
    "is_exact",
    "norm",
    "null_space",
    "rank",
    "rational_spectrum",
    "scale",
    "seed",
    "sign_expectation",
    "sign_values",
    "spherical_batch",
    "sq",
    "stereographic",
    "store",
    "to_mp",
    "to_sympy",
    "unit_columns",
]


def exact(x) -> np.ndarray:
    """``x`` (integers, rationals or floats at their binary value) as an
    object array of ``Fraction``.

    >>> exact([[1, 2]]).tolist()
    [[Fraction(1, 1), Fraction(2, 1)]]
    """
    return exact_array(x, name="x")


def is_exact(x) -> bool:
    """True for exact rational arrays and numbers (not float, not mpmath).

    >>> is_exact(exact([1])), is_exact(np.ones(1))
    (True, False)
    """
    if isinstance(x, (int, Fraction)) and not isinstance(x, bool):
        return True
    arr = np.asarray(x)
    return arr.dtype == object and arr.size > 0 and number_kind(arr) == EXACT


def to_mp(x: Any) -> Any:
    """Exact inputs rounded at the current mpmath precision: arrays of any
    number system through :func:`linmem.mp_array`, ``Fraction`` scalars
    divided at that precision; tuples, lists and dicts entry by entry;
    Python ints (indices, counts) and strings left alone."""
    if isinstance(x, np.ndarray):
        return mp_array(x) if x.size else x
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, tuple):  # named tuples keep their type
        values = [to_mp(e) for e in x]
        return type(x)(*values) if hasattr(x, "_fields") else tuple(values)
    if isinstance(x, list):
        return [to_mp(e) for e in x]
    if isinstance(x, dict):
        return {k: to_mp(v) for k, v in x.items()}
    return x


def eye(n: int, like) -> np.ndarray:
    """The n x n identity in the number system of ``like``: Python ints for
    exact and mpmath arrays (no float creeps into exact arithmetic), float64
    otherwise.

    >>> eye(2, exact([1])).dtype, eye(2, np.ones(1)).dtype
    (dtype('O'), dtype('float64'))
    """
    if np.asarray(like).dtype == object:
        return np.eye(n, dtype=int).astype(object)
    return np.eye(n)


def rank(A) -> int:
    """Reference rank of a matrix, computed outside the implementation under
    test: Gaussian elimination in Fractions for exact rationals, mpmath singular values above
    ``sqrt(eps) * s_max`` for mpmath arrays (the ladder's inputs are at most
    1e20-conditioned and the lowest rung has 50 digits, so the rule separates
    the nonzero from the rounded-zero singular values), LAPACK's
    ``matrix_rank`` for float64.

    >>> rank(exact([[1, 2], [2, 4]])), rank(np.eye(3))
    (1, 3)
    """
    arr = np.asarray(A)
    if arr.ndim != 2:
        raise ValueError(f"A must be a 2-D array, got shape {arr.shape}")
    if 0 in arr.shape:
        return 0
    kind = number_kind(arr) if arr.dtype == object else None
    if kind == EXACT:
        return _exact_rank(arr)
    if kind == MPMATH:
        s = mpmath.svd_r(mpmath.matrix(arr.tolist()), compute_uv=False)
        top = max(abs(x) for x in s)
        cut = top * mpmath.sqrt(mpmath.eps)
        return int(sum(1 for x in s if abs(x) > cut))
    return int(np.linalg.matrix_rank(np.asarray(arr, dtype=float)))


def _exact_rank(A: np.ndarray) -> int:
    """Rank by Gaussian elimination in Fractions (about 30 times faster than
    sympy on the small matrices a witness search draws by the thousand)."""
    rows = [[Fraction(x) for x in row] for row in A]
    rank = 0
    for col in range(A.shape[1]):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(rank + 1, len(rows)):
            if rows[i][col] != 0:
                f = rows[i][col] / rows[rank][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
    return rank


def _norm(x):
    from theorems.core.tolerance import norm

    return norm(x)


def scale(K, *operands, condition: bool = True):
    """The tolerance scale of the tolerance model for terms built from keys
    ``K``: ``max(shape K) * cond(K) * prod_X (1 + ||X||)`` over the array
    operands (non-arrays, e.g. an index, are skipped); ``condition=False``
    drops the condition number (identities that only use orthonormality).

    >>> float(scale(np.diag([4.0, 1.0]), np.ones((1, 2))))
    19.31370849898476
    """
    K = np.asarray(K)
    size = max(K.shape) if K.ndim else 1
    out = size * (linmem.condition_number(K) if condition and K.ndim == 2 and K.size else 1)
    for X in operands:
        if isinstance(X, np.ndarray) and X.size:
            out = out * (1 + _norm(X))
    return out


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


# --- exact references and constructions several claims share -------------------------


def sq(A):
    """Squared Frobenius norm ``sum(A * A)`` in the number system of ``A``.

    >>> sq(exact([[1, 2]]))
    Fraction(5, 1)
    """
    return np.sum(A * A)


_NORM_KINDS = ("fro", "max", "1", "inf", "2")


def norm(A, kind: str = "fro"):
    """A matrix or vector norm in the number system of ``A``, so a claim's
    terms never branch on exact, mpmath or float64 input: ``"fro"``
    (Frobenius; Euclidean for a vector), ``"max"`` (largest absolute entry),
    ``"1"`` (largest column sum of absolute values), ``"inf"`` (largest row
    sum), ``"2"`` (largest singular value). Exact input gives an exact value
    (a ``Fraction``, or a sympy number where a square root is irrational),
    mpmath input an ``mpf`` at the working precision, float input a float.

    >>> norm(exact([[3, 4]])), norm(exact([[1, 1]])), norm(np.array([[3.0, 4.0]]))
    (Fraction(5, 1), sqrt(2), 5.0)
    >>> norm(exact([[1, -2], [3, 4]]), "1"), norm(exact([[1, -2], [3, 4]]), "inf")
    (Fraction(6, 1), Fraction(7, 1))
    """
    import sympy

    if kind not in _NORM_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, _NORM_KINDS))}, got {kind!r}")
    A = np.asarray(A)
    if A.ndim == 0:
        A = A.reshape(1, 1)
    M = A.reshape(-1, 1) if A.ndim == 1 else A
    if M.ndim != 2:
        raise ValueError(f"A must be a scalar, vector or matrix, got shape {A.shape}")
    if A.dtype != object:
        M = M.astype(float)
        order = {"fro": "fro", "max": None, "1": 1, "inf": np.inf, "2": 2}[kind]
        return float(np.max(np.abs(M), initial=0.0)) if order is None else float(np.linalg.norm(M, order))
    exact_input = is_exact(M)
    absolute = np.vectorize(abs, otypes=[object])(M) if M.size else M
    if kind == "max":
        return max(absolute.ravel(), default=0)
    if kind in ("1", "inf"):
        sums = [sum(col, start=0) for col in (absolute.T if kind == "1" else absolute)]
        return max(sums, default=0)
    if kind == "fro":
        total = sum((e * e for e in M.ravel()), start=0)
        if exact_input:
            root = sympy.sqrt(sympy.Rational(total.numerator, total.denominator) if isinstance(total, Fraction)
                              else sympy.Integer(total))
            return Fraction(int(root.p), int(root.q)) if root.is_Rational else root
        return mpmath.sqrt(total)
    if exact_input:
        root = to_sympy(M).norm(2)
        return Fraction(int(root.p), int(root.q)) if root.is_Rational else root
    return max(mpmath.svd_r(mpmath.matrix(M.tolist()), compute_uv=False), default=mpmath.mpf(0))


def unit_columns(K) -> bool:
    """True when every column of the exact matrix ``K`` has norm exactly one.

    >>> unit_columns(exact([[1, 0], [0, -1]])), unit_columns(exact([[2]]))
    (True, False)
    """
    return all(sum(x * x for x in K[:, j]) == 1 for j in range(K.shape[1]))


def stereographic(t) -> np.ndarray:
    """The exactly unit vector of R^(n+1) that inverse stereographic
    projection gives for the rational point ``t`` of R^n:
    ``(2 t, 1 - |t|^2) / (1 + |t|^2)``.

    >>> [str(x) for x in stereographic([Fraction(1, 2)])]
    ['4/5', '3/5']
    """
    n2 = sum(x * x for x in t)
    return np.array([2 * x / (1 + n2) for x in t] + [(1 - n2) / (1 + n2)], dtype=object)


def to_sympy(A):
    """An exact 2-D array (integers or ``Fraction``) as a sympy ``Rational`` matrix.

    >>> to_sympy(exact([[1, 2]])).rank()
    1
    """
    import sympy

    A = np.asarray(A)
    if A.ndim != 2:
        raise ValueError(f"A must be a 2-D array, got shape {A.shape}")
    return sympy.Matrix(A.shape[0], A.shape[1],
                        [sympy.Rational(f.numerator, f.denominator) for f in (Fraction(x) for x in A.ravel())])


def from_sympy(S) -> np.ndarray:
    """A sympy matrix of rationals as an object array of ``Fraction``.

    >>> from_sympy(to_sympy(exact([[1, 2]]))).tolist()
    [[Fraction(1, 1), Fraction(2, 1)]]
    """
    return np.array([[Fraction(int(x.p), int(x.q)) for x in S.row(i)] for i in range(S.rows)],
                    dtype=object).reshape(S.rows, S.cols)


def null_space(A) -> np.ndarray:
    """A rational basis of ``ker A`` as the columns of an n x dim array
    (sympy's exact null space: a reference, not under test).

    >>> null_space(exact([[1, 1]])).tolist()
    [[Fraction(-1, 1)], [Fraction(1, 1)]]
    """
    basis = to_sympy(A).nullspace()
    n = np.shape(A)[1]
    if not basis:
        return np.zeros((n, 0), dtype=object)
    return np.concatenate([from_sympy(b) for b in basis], axis=1)


def integer_array(rng: np.random.Generator, shape, *, bound: int = 3) -> np.ndarray:
    """Integers uniform in [-bound, bound] of the given shape, as a Fraction array.

    >>> integer_array(np.random.default_rng(0), (2, 2)).shape
    (2, 2)
    """
    return exact(rng.integers(-bound, bound + 1, size=shape))


def rational_spectrum(rank: int, cond: int) -> np.ndarray:
    """``rank`` rational singular values from 1 down to exactly ``1/cond``,
    geometrically spaced (``1 / round(cond^(l/(rank-1)))``), the spectrum of
    :func:`linmem.ensembles.rational_controlled_spectrum`.

    >>> [str(s) for s in rational_spectrum(3, 100)]
    ['1', '1/10', '1/100']
    """
    return np.array([Fraction(1, round(cond ** (l / (rank - 1)))) if rank > 1 else Fraction(1)
                     for l in range(rank)], dtype=object)


# --- Gordan's alternative for the top-1 comparisons (a reference, not under test) ------

__all__ += ["comparisons", "gordan_residual"]


def comparisons(V, U) -> dict:
    """The top-1 comparison matrices ``A_ij = (u_i - u_j) v_i^T``, ``i != j``,
    keyed by ``(i, j)``, in the number system of the keys ``V`` and targets
    ``U`` (columns are pairs); independent of linmem.

    >>> comparisons(exact([[1, 2]]), exact([[1, 0]]))[0, 1].tolist()
    [[Fraction(1, 1)]]
    """
    n = V.shape[1]
    return {(i, j): np.outer(U[:, i] - U[:, j], V[:, i]) for i in range(n) for j in range(n) if i != j}


def gordan_residual(A: dict, *, W=None, lam: dict | None = None):
    """``(residual, scale)`` of one side of Gordan's alternative for the
    comparisons ``A`` (:func:`comparisons`), in the number system of the side:
    for a memory ``W``, 0 when every ``<W, A_ij> > 0``, else ``1 + |worst
    margin|``; for a dependence ``lam`` (``{(i, j): weight}`` on its support),
    ``||sum lam A|| + negative mass + |sum lam - 1|`` (the squared norm in
    exact rationals, so the residual is 0 exactly when ``lam`` is a
    certificate) with scale ``max(1, sum lam ||A||) * |support|`` (1 when
    exact). Neither side given: ``(inf, 1)``.

    >>> A = comparisons(exact([[1, 1]]), exact([[1, -1]]))
    >>> gordan_residual(A, lam={(0, 1): Fraction(1, 2), (1, 0): Fraction(1, 2)})
    (Fraction(0, 1), 2)
    >>> gordan_residual(A, W=exact([[1]]))[0]
    Fraction(3, 1)
    """
    if W is None and lam is None:
        return float("inf"), 1
    if W is not None:
        worst = min(np.sum(W * Aij) for Aij in A.values())
        return (0 if worst > 0 else abs(worst) + 1), 1
    is_rational = is_exact(next(iter(lam.values())))
    total = sum((v * A[p] for p, v in lam.items()), start=0 * next(iter(A.values())))
    sq = sum(e * e for e in total.ravel())
    resid = (sq if is_rational else mpmath.sqrt(sq)) + sum(max(0, -x) for x in lam.values()) + abs(sum(lam.values()) - 1)
    scale = 1 if is_rational else sum(v * mpmath.sqrt(sum(e * e for e in A[p].ravel())) for p, v in lam.items())
    return resid, max(scale, 1) * len(lam)


# --- finite laws: exact averages over designs --------------------------------------

__all__ += ["Law", "law", "sign_law"]


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


# --- the sweep cache under negative controls -----------------------------------------

__all__ += ["cached", "sweep_cache"]


def sweep_cache(ctx):
    """The ``cache=`` of a sweep (:func:`linmem.sweeps.bisect_crossing`,
    :func:`theorems.scale.sweepcache.cached_call`): the run's cache from the
    check's context, ``None`` under a negative control (which must recompute,
    never read what the true formulas stored). With ``executor=ctx.executor``
    it is all a sweep needs from the run.

    >>> from types import SimpleNamespace as NS
    >>> sweep_cache(NS(cache=None)) is None
    True
    """
    return ctx.cache


def cached(ctx, compute: Callable[[], Any], *, name: str, params: dict, seed: Any):
    """``compute()`` (JSON-able) through the run's sweep cache under ``(name,
    params, seed)`` (:func:`theorems.scale.sweepcache.cached_call`), computed
    afresh and not stored under a negative control (``ctx.cache`` is then
    ``None``); the value alone.

    >>> from types import SimpleNamespace as NS
    >>> cached(NS(cache=None), lambda: [1, 2], name="doc", params={}, seed=0)
    [1, 2]
    """
    from theorems.scale.sweepcache import cached_call

    return cached_call(compute, name=name, params=params, seed=seed, cache=ctx.cache)[0]


# --- exact Gaussian moments (references, not under test) ------------------------------

__all__ += ["gaussian_moment"]


def gaussian_moment(expr, variables, variance):
    """``E expr`` exactly for a sympy polynomial ``expr`` in the
    ``variables``, independent ``N(0, variance)``: Isserlis' rule
    coordinatewise (``E x^(2k) = (2k-1)!! variance^k``, odd moments 0).

    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> gaussian_moment((x + y) ** 4, (x, y), sympy.Rational(1, 2))
    3
    """
    import sympy

    total = sympy.Rational(0)
    for exps, coeff in sympy.Poly(sympy.expand(expr), *variables).terms():
        if not any(e % 2 for e in exps):
            total += coeff * sympy.prod(sympy.factorial2(e - 1) * variance ** (e // 2) for e in exps)
    return total


# --- report plots --------------------------------------------------------------------

__all__ += ["plot", "series"]


def series(label: str, x, y, style: str = "line", **more) -> dict:
    """One series of a :func:`plot`: JSON-able ``x`` and ``y``, ``style``
    ``"line"`` or ``"points"``; ``more`` e.g. ``yerr=`` (error bars).

    >>> series("bound", [1, 2], [0.5, 0.25])["style"]
    'line'
    """
    if style not in ("line", "points"):
        raise ValueError(f"style must be 'line' or 'points', got {style!r}")
    return {"label": label, "x": x, "y": y, "style": style, **more}


def plot(title: str, x_label: str, y_label: str, series: list, *, xscale: str = "linear", yscale: str = "linear",
         **more) -> dict:
    """The ``data["plot"]`` spec the HTML report draws
    (:func:`theorems.reporting.plots.spec_plot`): axes labels and scales, the
    :func:`series`, and in ``more`` e.g. ``hlines=[{"y": 1, "label": ...}]``
    or ``vlines=[{"x": ..., "label": ...}]``.

    >>> sorted(plot("t", "x", "y", [series("a", [1], [2], "points")], yscale="log"))
    ['series', 'title', 'x_label', 'xscale', 'y_label', 'yscale']
    """
    for name, value in (("xscale", xscale), ("yscale", yscale)):
        if value not in ("linear", "log"):
            raise ValueError(f"{name} must be 'linear' or 'log', got {value!r}")
    return {"title": title, "x_label": x_label, "y_label": y_label, "xscale": xscale, "yscale": yscale,
            "series": list(series), **more}


# --- reference leverage ----------------------------------------------------------------

__all__ += ["leverage"]


def leverage(K) -> list:
    """Reference leverage scores ``h_j = P_jj`` (``P = K^+ K``) of exact keys,
    as sympy ``Rational``: computed outside the implementation under test
    (sympy's pseudoinverse), cached (an enumeration asks once per sign pattern).

    >>> leverage(exact([[1, 1, 1, 0], [0, 0, 0, 1]]))
    [1/3, 1/3, 1/3, 1]
    """
    if not is_exact(K) or np.ndim(K) != 2:
        raise TypeError(f"K must be a 2-D exact (integer or Fraction) array, got {type(K).__name__}")
    return _sympy_leverage(K.shape, tuple(Fraction(x) for x in K.ravel()))


@functools.lru_cache(maxsize=4096)
def _sympy_leverage(shape: tuple[int, int], entries: tuple[Fraction, ...]) -> list:
    import sympy

    S = to_sympy(np.array(entries, dtype=object).reshape(shape))
    P = S.pinv() * S
    return [sympy.Rational(P[j, j]) for j in range(shape[1])]


# --- reference energy of the pseudoinverse ---------------------------------------------

__all__ += ["pinv_energy"]


def pinv_energy(K) -> Fraction:
    """Reference ``||K^+||_F^2 = sum_l s_l^-2`` of exact keys, without
    singular values or the implementation under test: the nonzero
    eigenvalues ``mu`` of the smaller Gram matrix are the ``s_l^2``, and with
    its characteristic polynomial ``x^n + a_1 x^(n-1) + ...`` of rank ``r``,
    ``sum 1/mu = -a_(r-1) / a_r`` (sympy, exact).

    >>> pinv_energy(exact([[1, 1], [0, 1]])), pinv_energy(exact([[0, 0]]))
    (Fraction(3, 1), Fraction(0, 1))
    """
    import sympy

    if not is_exact(K) or np.ndim(K) != 2:
        raise TypeError(f"K must be a 2-D exact (integer or Fraction) array, got {type(K).__name__}")
    G = K.T @ K if K.shape[1] <= K.shape[0] else K @ K.T
    S = sympy.Matrix(G.tolist())
    r = S.rank()
    a = S.charpoly().all_coeffs()
    value = sympy.Rational(-a[r - 1], a[r]) if r else sympy.Integer(0)
    return Fraction(int(value.p), int(value.q))


# --- reference law of the inner product of spherical keys -----------------------------

__all__ += ["sphere_tail"]


def sphere_tail(d: int, t):
    """Reference ``Pr(|k_i^T k_j| >= t)`` for independent uniform unit keys of
    R^d, in the number system of ``t`` (an mpmath ``mpf`` at the working
    precision, or a float): ``(1 + k_i^T k_j)/2 ~ Beta((d-1)/2, (d-1)/2)``
    for d >= 2, so the tail is ``2 I_{(1-t)/2}((d-1)/2, (d-1)/2)``; d = 1 is
    the two-point sphere (``k_i^T k_j = ±1``). Closed forms: ``(2/pi) arccos t``
    for d = 2, ``1 - t`` for d = 3 (Archimedes).

    >>> round(sphere_tail(3, 0.25), 12), sphere_tail(1, 0.5), sphere_tail(2, 1.0)
    (0.75, 1.0, 0.0)
    """
    import mpmath
    from scipy.special import betainc

    if not (isinstance(d, int) and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if not t > 0:
        raise ValueError(f"t must be > 0, got {t!r}")
    one = t * 0 + 1
    if d == 1 or t >= 1:
        return one * (d == 1 and t <= 1)
    if isinstance(t, float):
        return float(2 * betainc((d - 1) / 2, (d - 1) / 2, (1 - t) / 2))
    a = mpmath.mpf(d - 1) / 2
    return 2 * mpmath.betainc(a, a, 0, (1 - t) / 2, regularized=True)


# --- sizes per profile level -----------------------------------------------------------

__all__ += ["levels"]


def levels(quick: Sequence, *, standard: Sequence = (), thorough: Sequence = ()) -> dict:
    """Nested sizes per profile level as data (for ``profile.pick``): the
    quick sizes, and the sizes standard and thorough add to them.

    >>> levels((32, 64), standard=(128,), thorough=(128, 256))
    {'quick': (32, 64), 'standard': (32, 64, 128), 'thorough': (32, 64, 128, 256)}
    """
    quick = tuple(quick)
    return dict(quick=quick, standard=quick + tuple(standard), thorough=quick + tuple(thorough))
