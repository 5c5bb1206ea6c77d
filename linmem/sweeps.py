"""Finite-size simulation sweeps of the top-1 and TAM thresholds, with a result cache.

The 004 thresholds are statements about ``n, d -> infinity`` at a fixed *load*:
the top-1 load ratio ``d^2 / (n ln n)`` (kind ``"ratio"``) or the quadratic
load ``alpha = n / d^2`` (kind ``"alpha"``). At finite ``d`` the probability
that an instance "succeeds" (for example: a memory built from ``n`` Gaussian
pairs retrieves all of them top-1) falls from 1 to 0 as ``n`` grows, and the
*finite-size critical load* is where it crosses 1/2. This module estimates it.

Instances
    ``n`` pairs ``(v_i, u_i)`` with i.i.d. ``N(0, I_d / d)`` keys and targets
    (columns of ``keys`` and ``targets``), drawn pair by pair from an explicit
    :class:`numpy.random.Generator` seeded by integers (:func:`instance_rng`),
    so that the first ``m`` pairs of a pool of ``n`` are the pool of ``m``
    (:func:`gaussian_pairs`).

Success criterion
    A callable ``success(keys, targets) -> bool`` fixed by the caller before
    the run, e.g. "the CMM built from these pairs retrieves every pair top-1"::

        lambda V, U: linmem.all_retrieved(linmem.cmm(V, U), V, U)

Two estimators of the crossing, for two kinds of criterion:

:func:`nested_critical_sizes` (per-seed bisection on nested instances)
    For a *monotone* criterion -- success with ``n`` pairs implies success
    with any prefix of them -- one seed's pool has an exact critical size
    ``n*`` (the largest successful prefix), found by bisection in
    ``log2(range)`` evaluations. Feasibility problems are monotone: adding a
    pair adds constraints to the max-margin LP (existence of *some* memory
    retrieving all pairs) and leaves the old ones unchanged. The success
    probability at ``n`` is then exactly ``P(n* >= n)``, estimated without
    any model by the fraction of seeds with ``n* >= n``, and its 1/2 crossing
    by the median of ``n*`` (critical load taken at ``n* + 1/2``, midway
    between the last success and the first failure).

:func:`bisect_crossing` (bisection on the load with repeated seeds, then a
logistic fit)
    For a criterion that is *not* monotone on nested instances -- CMM and the
    least-squares memory: adding a pair changes every score, and a failing
    prefix can succeed again one pair later -- each evaluation uses a fresh
    instance. A bisection in ``log n`` evaluates ``trials`` independent
    instances at the midpoint and keeps the half where the success rate
    crosses 1/2; this places the evaluations near the crossing. The estimate
    is then the 1/2 crossing of a logistic fit
    ``P(success) = sigmoid(a + b log n)`` to *all* evaluations (maximum
    likelihood, Newton's method with a weak ridge so that a perfectly
    separated sample still yields a crossing between its last success and
    first failure). The bisection decisions only steer where instances are
    drawn; the fit is the estimator, and it reports its slope (the width of
    the transition window).

Generic helpers for other finite-size studies (e.g. the norm peak of the
cross-entropy memory, ``fs.*``): :func:`measure_grid` evaluates
``measure(keys, targets) -> float`` on independent instances over a grid of
``n`` and seeds (cached per instance), :func:`peak_location` locates the
maximum of a sampled curve by a local quadratic fit, :func:`logistic_crossing`
fits any ``(loads, outcomes)`` sample, :func:`load_value` and :func:`pairs_at_load`
convert between ``n`` and a load. For a figure that peaks along ``n``:
:func:`nested_peak_curve` fits it on one nested pool, warm-started, refined
around its maximum; :func:`pooled_peaks` summarises several pools' curves;
:func:`peak_drift` fits how the mean peak location moves with ``log d``
(spread pooled as ``s / d``), :func:`line_fit` any straight line.

Recipes (how the finite-size claims use it)
    Per-seed critical sizes of the best linear memory (the max-margin LP),
    then the crossing and the success curve::

        def some_memory_retrieves_all(V, U):
            res = max_margin_memory(V, U)
            return res.margin > 0 and GordanCertificate(
                W=res.W, lam=None, keys=V, targets=U).verify()

        res = nested_critical_sizes(some_memory_retrieves_all, d, n_range=(3, 60),
                                    seeds=range(16), base_seed=seed, name="lp",
                                    params={"code": my_version})
        res.crossing("ratio"), res.success_curve("ratio")

    CMM (not monotone on nested pools): ``bisect_crossing(lambda V, U:
    all_retrieved(cmm(V, U), V, U), d, load_kind="ratio", bracket=(4, 64),
    trials=12, steps=6, ...)`` and its ``.crossing`` / ``.success_curve()``.

    A curve over the load, e.g. the norm of the weakly ridged cross-entropy
    memory against ``c = n ln n / d^2 = 1 / ratio`` and its peak::

        ns = [round(pairs_at_load("ratio", d, 1 / c)) for c in cs]
        norms = measure_grid(
            lambda V, U: cross_entropy_memory(V, U, ridge=1e-8 * d**2 / V.shape[1]).norm,
            d, ns, seeds=range(8), base_seed=seed, name="ce-norm",
            params={"lambda_n_over_d2": 1e-8, "code": my_version})
        c_peak = peak_location([n * math.log(n) / d**2 for n in ns], norms.mean(axis=0))

Cache
    linmem keeps no results and has no module state. Every sweep takes
    ``cache=``: an object with ``key``/``get``/``put``
    (:class:`SweepCacheLike`; the theorems verifier's folder of JSON files is
    ``theorems.scale.sweepcache.SweepCache``) or ``None`` (default: no
    caching), and ``executor=``: ``None`` (default: serially, here) or a
    :class:`concurrent.futures.Executor` (:func:`check_executor`).
    Each instance result (one seed's ``n*``, one trial's outcome, one
    measurement) is looked up and stored on its own under ``(name, params,
    seed)``; ``name`` and ``params`` must identify the criterion completely
    (e.g. a version or source hash of the caller's code). The cache is used
    in the calling process, the computations run on the executor.

Source: seed 004 (the top-1 thresholds 8 and 2, the TAM threshold alpha_c(r),
finite-size sweeps); the estimators are standard (bisection, logistic
regression).

>>> import numpy as np
>>> # a planted monotone criterion: success iff n <= 20
>>> res = nested_critical_sizes(lambda V, U: V.shape[1] <= 20, 8, n_range=(2, 64),
...                             seeds=range(3), base_seed=0, name="doc", cache=None)
>>> res.n_star.tolist()
[20, 20, 20]
"""

from __future__ import annotations

import concurrent.futures
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from linmem._validation import check_generator, check_memory, check_positive_int, check_positive_real
# the shared statistics live in linmem.statistics; re-exported here, where they were first written
from linmem.statistics import (LOGISTIC_MAXITER, LOGISTIC_RIDGE, line_fit, logistic_crossing, paired_t, peak_drift,
                               peak_location)

__all__ = [
    "CrossingResult",
    "LOAD_KINDS",
    "LOGISTIC_MAXITER",
    "LOGISTIC_RIDGE",
    "NestedResult",
    "PeakCurve",
    "RecheckResult",
    "SweepCacheLike",
    "bisect_crossing",
    "canonical_json",
    "check_cache",
    "check_executor",
    "cross_entropy_norm_peaks",
    "gaussian_pairs",
    "instance_rng",
    "line_fit",
    "load_value",
    "logistic_crossing",
    "measure_grid",
    "nested_critical_sizes",
    "nested_peak_curve",
    "paired_t",
    "pairs_at_load",
    "peak_drift",
    "peak_location",
    "pooled_peaks",
    "recheck_crossing",
]

#: The load parametrisations: ``"ratio"`` is ``d^2 / (n ln n)`` (top-1),
#: ``"alpha"`` is ``n / d^2`` (TAM).
LOAD_KINDS = ("ratio", "alpha")

#: A logistic crossing more than this many e-folds of n away from the
#: bracket's geometric centre is reported as NaN (no crossing in range).
_MAX_LOG_EXTRAPOLATION = 5.0


# --------------------------------------------------------------------------
# guards
# --------------------------------------------------------------------------


def _check_callable(f: Any, name: str) -> Callable:
    if not callable(f):
        raise TypeError(f"{name} must be callable, got {type(f).__name__} {f!r}"[:160])
    return f


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string identifying the criterion, got {name!r}")
    return name


def _check_sequence(values: Any, name: str, what: str, each: Callable[[Any, str], Any], *,
                    nonempty: bool = True) -> list:
    """``values`` (not a string) as a list, every entry through
    ``each(entry, name + " entries")``; ``what`` names the entries in the
    error; empty refused unless ``nonempty=False`` (the caller checks more)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a sequence of {what}, got {values!r}")
    out = [each(v, f"{name} entries") for v in values]
    if nonempty and not out:
        raise ValueError(f"{name} must be non-empty")
    return out


def _check_seeds(seeds: Any) -> list[int]:
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Iterable):
        raise TypeError(f"seeds must be an iterable of nonnegative integers, got {seeds!r}")
    out = []
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0:
            raise ValueError(f"seeds must be nonnegative integers, got {s!r}")
        out.append(int(s))
    if not out:
        raise ValueError("seeds must be non-empty")
    if len(set(out)) != len(out):
        raise ValueError(f"seeds must be distinct, got {out}")
    return out


def _check_seed_int(x: Any, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 0:
        raise ValueError(f"{name} must be a nonnegative integer, got {x!r}")
    return int(x)


def _check_load_kind(kind: Any) -> str:
    if kind not in LOAD_KINDS:
        raise ValueError(f"load_kind must be one of {LOAD_KINDS}, got {kind!r}")
    return kind


def _check_n_range(n_range: Any) -> tuple[int, int]:
    try:
        lo, hi = n_range
    except (TypeError, ValueError):
        raise TypeError(f"n_range must be a pair (lo, hi) of integers, got {n_range!r}") from None
    lo = check_positive_int(lo, "n_range[0]", minimum=2)
    hi = check_positive_int(hi, "n_range[1]", minimum=2)
    if hi <= lo:
        raise ValueError(f"n_range must have lo < hi, got {(lo, hi)}")
    return lo, hi


def canonical_json(x: Any, name: str) -> Any:
    """A canonical JSON-able copy of ``x`` (tuples as lists, numpy arrays and
    scalars as Python lists and numbers, mappings with sorted string keys);
    refuses anything else (naming ``name``) so that cache keys are unambiguous.

    >>> canonical_json({"b": (1, np.float64(2.5)), "a": None}, "params")
    {'a': None, 'b': [1, 2.5]}
    """
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        x = float(x)
        if not math.isfinite(x):
            raise ValueError(f"{name} must hold finite numbers, got {x}")
        return x
    if isinstance(x, np.ndarray):
        return canonical_json(x.tolist(), name)
    if isinstance(x, (list, tuple)):
        return [canonical_json(e, name) for e in x]
    if isinstance(x, Mapping):
        if not all(isinstance(k, str) for k in x):
            raise TypeError(f"{name} must have string keys, got {list(x)!r}"[:160])
        return {k: canonical_json(v, name) for k, v in sorted(x.items())}
    raise TypeError(
        f"{name} must be JSON-able (numbers, strings, lists, dicts), got {type(x).__name__}"
    )


# --------------------------------------------------------------------------
# caching and executors (supplied by the caller)
# --------------------------------------------------------------------------


class SweepCacheLike(Protocol):
    """What a sweep needs of a cache: linmem keeps no results itself.

    ``key(name, params, seed)`` returns a string that identifies the instance
    (``params`` and ``seed`` are canonical JSON values, see :func:`canonical_json`);
    ``get(key)`` returns ``(True, value)`` or ``(False, None)``;
    ``put(key, value, note=None)`` stores a JSON value. An ``OSError`` from
    ``put`` costs speed, never a result: the sweep counts it in the cache's
    ``write_errors`` (when it has that attribute) and goes on. The theorems
    verifier supplies a folder of JSON files (``theorems.scale.sweepcache``).
    """

    def key(self, name: str, params: Mapping, seed: Any) -> str: ...

    def get(self, key: str) -> tuple[bool, Any]: ...

    def put(self, key: str, value: Any, *, note: Mapping | None = None) -> None: ...


def check_cache(cache: Any) -> Any:
    """The cache a sweep uses, passed explicitly (linmem keeps no default):
    ``None``/``False`` -> no caching, an object with ``key``, ``get`` and
    ``put`` (:class:`SweepCacheLike`) -> itself.

    >>> check_cache(None) is None, check_cache(False) is None
    (True, True)
    >>> check_cache(True)
    Traceback (most recent call last):
    ...
    TypeError: cache=True: linmem keeps no default cache; pass one (an object with key/get/put, e.g. theorems.scale.sweepcache.SweepCache(folder)) or None
    """
    if cache is None or cache is False:
        return None
    if cache is True:
        raise TypeError("cache=True: linmem keeps no default cache; pass one (an object with key/get/put, e.g. "
                        "theorems.scale.sweepcache.SweepCache(folder)) or None")
    if all(callable(getattr(cache, m, None)) for m in ("key", "get", "put")):
        return cache
    raise TypeError(
        "cache must be an object with key/get/put (e.g. theorems.scale.sweepcache.SweepCache) or None/False "
        f"(no caching), got {type(cache).__name__} {cache!r}"[:220]
    )


def check_executor(executor: Any) -> concurrent.futures.Executor | None:
    """Where a sweep's per-instance computations run, passed explicitly:
    ``None`` (serially, in this process) or any
    :class:`concurrent.futures.Executor` (a ``ProcessPoolExecutor``, or a
    dask.distributed ``Client(...).get_executor()`` on a cluster). The cache
    is read and written in the calling process: only the instances it does
    not hold are submitted, so a rerun anywhere reuses what any earlier run
    computed. Each instance has its own seed, so the results do not depend on
    the executor, the number of workers or the order of completion. The
    criterion must be picklable for a process or cluster executor (dask
    pickles closures; the standard library's process pool does not).

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> with ThreadPoolExecutor(2) as pool:
    ...     measure_grid(lambda V, U: float(V.shape[1]), 3, [4, 8], seeds=range(2),
    ...                  base_seed=0, name="doc", executor=pool).tolist()
    [[4.0, 8.0], [4.0, 8.0]]
    """
    if executor is not None and not isinstance(executor, concurrent.futures.Executor):
        raise TypeError(f"executor must be a concurrent.futures.Executor or None, got {type(executor).__name__}")
    return executor


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_finite_number(value: Any) -> bool:
    return (isinstance(value, float) and math.isfinite(value)) or _is_int(value)


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _cached_many(cache: Any, name: str, params: Mapping, seeds: list,
                 task: Callable, args: list[tuple], *,
                 valid: Callable[[Any], bool], executor: concurrent.futures.Executor | None = None,
                 ) -> list[tuple[Any, bool, Any]]:
    """``[(value, hit, extra)]`` for ``task(*args[i])``, each cached under
    ``seeds[i]``; ``task`` returns ``(value, extra)``. Misses run on the
    ``executor`` (see :func:`check_executor`); the cache is used here.
    A cached value that ``valid`` refuses (the wrong type: a string, ``null``
    or a dict where the task returns a bool) is a miss: it is computed again
    and rewritten, and moves the cache's counters from hits to misses."""
    out: list = [None] * len(seeds)
    misses = []
    for i, seed in enumerate(seeds):
        if cache is not None:
            hit, value = cache.get(cache.key(name, params, seed))
            if hit and not valid(value):
                hit = False
                if isinstance(getattr(cache, "hits", None), int) and isinstance(getattr(cache, "misses", None), int):
                    cache.hits -= 1
                    cache.misses += 1
            if hit:
                out[i] = (value, True, None)
                continue
        misses.append(i)
    if executor is None:
        results = [task(*args[i]) for i in misses]
    else:
        futures = [executor.submit(task, *args[i]) for i in misses]
        results = [f.result() for f in futures]
    for i, (value, extra) in zip(misses, results):
        value = canonical_json(value, "the computed value")
        if cache is not None:
            try:
                cache.put(cache.key(name, params, seeds[i]), value, note={"function": name, "seed": seeds[i]})
            except OSError:
                # an unwritable cache costs speed, never a result
                cache.write_errors = getattr(cache, "write_errors", 0) + 1
        out[i] = (value, False, extra)
    return out


# --------------------------------------------------------------------------
# instances and loads
# --------------------------------------------------------------------------


def instance_rng(*entropy: int) -> np.random.Generator:
    """A Generator seeded by a tuple of nonnegative integers (``SeedSequence``).

    >>> float(instance_rng(1, 2).standard_normal()) == float(instance_rng(1, 2).standard_normal())
    True
    """
    ints = [_check_seed_int(e, "entropy") for e in entropy]
    if not ints:
        raise ValueError("instance_rng needs at least one integer")
    return np.random.default_rng(np.random.SeedSequence(ints))


def gaussian_pairs(d: int, n: int, *, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` pairs of i.i.d. ``N(0, I_d / d)`` keys and targets, as columns.

    Drawn pair by pair (key, then target), so the first ``m`` columns of an
    ``n``-pair draw equal an ``m``-pair draw from the same generator state:
    pools of different sizes are nested.

    Source: 004 (keys and targets i.i.d. N(0, I_d/d)).

    >>> V, U = gaussian_pairs(3, 5, rng=instance_rng(0))
    >>> V2, _ = gaussian_pairs(3, 2, rng=instance_rng(0))
    >>> V.shape, bool(np.array_equal(V[:, :2], V2))
    ((3, 5), True)
    """
    d = check_positive_int(d, "d")
    n = check_positive_int(n, "n")
    rng = check_generator(rng)
    check_memory(2 * n * d, 8, f"{n} Gaussian pairs in dimension {d}")
    X = rng.standard_normal((n, 2, d)) / math.sqrt(d)
    return np.ascontiguousarray(X[:, 0, :].T), np.ascontiguousarray(X[:, 1, :].T)


def load_value(kind: str, d: float, n: float) -> float:
    """The load of ``n`` pairs in dimension ``d``: ``d^2/(n ln n)`` or ``n/d^2``.

    >>> round(load_value("ratio", 100, 1000), 4), load_value("alpha", 10, 25)
    (1.4476, 0.25)
    """
    kind = _check_load_kind(kind)
    d = check_positive_real(d, "d")
    n = check_positive_real(n, "n")
    if kind == "alpha":
        return n / (d * d)
    if n <= 1:
        raise ValueError(f"n must exceed 1 for the load ratio d^2/(n ln n), got {n}")
    return d * d / (n * math.log(n))


def pairs_at_load(kind: str, d: float, load: float) -> float:
    """The (real) number of pairs at which the load equals ``load``.

    ``alpha``: ``n = load d^2``. ``ratio``: the root ``n > 1`` of
    ``n ln n = d^2 / load`` (Newton's method from ``y / ln y``; ``n ln n`` is
    increasing there).

    >>> round(pairs_at_load("ratio", 100, load_value("ratio", 100, 1000)), 6)
    1000.0
    """
    kind = _check_load_kind(kind)
    d = check_positive_real(d, "d")
    load = check_positive_real(load, "load")
    if kind == "alpha":
        return load * d * d
    y = d * d / load
    n = max(y / max(math.log(y), 1.0), 1.5)
    for _ in range(100):
        step = (n * math.log(n) - y) / (math.log(n) + 1.0)
        n_new = max(n - step, 1.0 + (n - 1.0) / 2)
        if abs(n_new - n) <= 4 * np.finfo(float).eps * n:
            n = n_new
            break
        n = n_new
    return n


# --------------------------------------------------------------------------
# (a) per-seed bisection on nested instances
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class NestedResult:
    """Per-seed critical sizes from :func:`nested_critical_sizes`.

    ``n_star[s]``: the largest successful prefix size of seed ``s``'s pool in
    ``n_range`` (``lo - 1`` when even ``lo`` pairs fail, ``hi`` when all
    ``hi`` succeed: censored). ``evaluations``: criterion calls made (cache
    hits excluded); ``cache_hits``: seeds read from the cache.
    """

    d: int
    seeds: tuple[int, ...]
    n_star: np.ndarray
    n_range: tuple[int, int]
    evaluations: int
    cache_hits: int

    @property
    def censored(self) -> int:
        """Seeds whose critical size lies outside ``n_range``."""
        lo, hi = self.n_range
        return int(np.sum((self.n_star < lo) | (self.n_star >= hi)))

    def loads(self, kind: str) -> np.ndarray:
        """Per-seed critical loads, taken at ``n* + 1/2``."""
        return np.array([load_value(kind, self.d, n + 0.5) for n in self.n_star])

    def crossing(self, kind: str) -> float:
        """The median per-seed critical load: the 1/2 crossing of the success probability."""
        return float(np.median(self.loads(kind)))

    def window(self, kind: str) -> float:
        """Relative width of the transition: interquartile range of the
        per-seed critical loads over their median."""
        q1, q2, q3 = np.percentile(self.loads(kind), [25, 50, 75])
        return float((q3 - q1) / q2)

    def success_curve(self, kind: str, ns: Sequence[int] | None = None) -> tuple[list[float], list[float]]:
        """``(loads, P(success))`` at sizes ``ns`` (default: every size in
        range): the fraction of seeds with ``n* >= n``."""
        lo, hi = self.n_range
        ns = list(range(lo, hi + 1)) if ns is None else [int(n) for n in ns]
        probs = [float(np.mean(self.n_star >= n)) for n in ns]
        return [load_value(kind, self.d, n) for n in ns], probs


def _bisect_last_success(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """Largest n in [lo, hi] with ok(n), for ok monotone (True then False);
    lo - 1 if ok(lo) fails, hi if ok(hi) holds. For a non-monotone ok it
    returns a transition point: ok(n) and not ok(n + 1)."""
    if not ok(lo):
        return lo - 1
    if ok(hi):
        return hi
    return _bisect_bracket(ok, lo, hi)


def _gallop_last_success(ok: Callable[[int], bool], lo: int, hi: int, start: int) -> int:
    """:func:`_bisect_last_success` from a guess: ``ok(start)`` first, then
    steps of ``s, 2 s, 4 s, ...`` (``s = max(1, start // 8)``) away from it
    until the answer is bracketed, then bisection. For a monotone ok the same
    answer (the largest n in ``[lo, hi]`` with ok(n), ``lo - 1`` or ``hi``),
    with every evaluation within a few ``s`` of ``n*`` when the guess is
    good; the ends of the range are evaluated only when reached.

    >>> calls = []
    >>> def ok(n):
    ...     calls.append(n)
    ...     return n <= 57
    >>> _gallop_last_success(ok, 3, 440, 60), calls
    (57, [60, 53, 56, 58, 57])
    >>> [_gallop_last_success(lambda n: n <= m, 3, 40, 20) for m in (1, 3, 25, 40, 99)]
    [2, 3, 25, 40, 40]
    >>> all(_gallop_last_success(ok, 3, 40, g) == _bisect_last_success(ok, 3, 40)
    ...     for m in range(45) for g in range(1, 50) for ok in [lambda n, m=m: n <= m])
    True
    """
    start = min(max(start, lo), hi)
    step = max(1, start // 8)
    if ok(start):
        a = start
        while a < hi:
            b = min(a + step, hi)
            if not ok(b):
                return _bisect_bracket(ok, a, b)
            a, step = b, 2 * step
        return hi
    b = start
    while b > lo:
        a = max(b - step, lo)
        if ok(a):
            return _bisect_bracket(ok, a, b)
        b, step = a, 2 * step
    return lo - 1


def _bisect_bracket(ok: Callable[[int], bool], lo: int, hi: int) -> int:
    """A transition point n in [lo, hi) (ok(n) and not ok(n + 1)) for a
    bracket with ok(lo) true and ok(hi) false, found by bisection without
    evaluating either end again; for a monotone ok, the largest success.

    >>> _bisect_bracket(lambda n: n <= 7, 1, 20)
    7
    """
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def nested_critical_sizes(
    success: Callable[[np.ndarray, np.ndarray], bool],
    d: int,
    *,
    n_range: tuple[int, int],
    seeds: Iterable[int],
    base_seed: int,
    name: str,
    params: Mapping | None = None,
    cache: Any = None,
    executor: Any = None,
    start: int | None = None,
) -> NestedResult:
    """Per-seed critical size of a monotone criterion, by bisection on nested pools.

    Seed ``s`` draws a pool of ``n_range[1]`` Gaussian pairs from
    ``instance_rng(base_seed, d, s)``; its critical size is the largest
    ``n`` in ``n_range`` whose prefix (the first ``n`` pairs) satisfies
    ``success(keys, targets)``, found with ``2 + ceil(log2(hi - lo))``
    evaluations when the criterion is monotone (success of ``n`` pairs
    implies success of every prefix). With ``start`` (a guess of the
    critical size) the search begins there and gallops outwards before it
    bisects, which finds the same size of a monotone criterion with fewer
    evaluations, all near it (an expensive criterion far from its critical
    size, as an infeasible LP on the whole pool, is never evaluated); the
    cache key is the same either way. Each seed's result is cached under
    ``(name, params, d, n_range)`` and the seed.

    Source: 004 (finite-size top-1 threshold); see the module docstring for
    when to prefer :func:`bisect_crossing`.

    >>> res = nested_critical_sizes(lambda V, U: V.shape[1] <= 10 + int(4 * abs(V[0, 0])),
    ...                             4, n_range=(2, 40), seeds=[0, 1], base_seed=7,
    ...                             name="doc", cache=None)
    >>> bool(np.all((res.n_star >= 10) & (res.n_star <= 40)))
    True
    """
    success = _check_callable(success, "success")
    d = check_positive_int(d, "d")
    lo, hi = _check_n_range(n_range)
    seeds = _check_seeds(seeds)
    base_seed = _check_seed_int(base_seed, "base_seed")
    name = _check_name(name)
    store = check_cache(cache)
    executor = check_executor(executor)
    if start is not None:
        start = check_positive_int(start, "start")
    key_params = {"method": "nested-bisection", "d": d, "n_range": [lo, hi],
                  "criterion": canonical_json(params or {}, "params")}
    done = _cached_many(store, name, key_params, [[base_seed, s] for s in seeds], _nested_one_seed,
                        [(success, d, lo, hi, base_seed, s, start) for s in seeds],
                        executor=executor, valid=lambda v: _is_int(v) and lo - 1 <= v <= hi)
    n_star = [int(value) for value, _, _ in done]
    hits = sum(hit for _, hit, _ in done)
    calls = sum(extra for _, hit, extra in done if not hit)
    return NestedResult(d, tuple(seeds), np.array(n_star, dtype=int), (lo, hi), calls, hits)


def _nested_one_seed(success: Callable, d: int, lo: int, hi: int, base_seed: int, s: int,
                     start: int | None = None) -> tuple[int, int]:
    """One seed of :func:`nested_critical_sizes`: ``(n*, criterion calls)``."""
    V, U = gaussian_pairs(d, hi, rng=instance_rng(base_seed, d, s))
    calls = [0]

    def ok(n: int) -> bool:
        calls[0] += 1
        return bool(success(V[:, :n], U[:, :n]))

    if start is None:
        return _bisect_last_success(ok, lo, hi), calls[0]
    return _gallop_last_success(ok, lo, hi, start), calls[0]


# --------------------------------------------------------------------------
# (b) bisection on the load with repeated seeds, then a logistic fit
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CrossingResult:
    """Outcome of :func:`bisect_crossing`.

    ``ns``/``outcomes``: every evaluated instance (size, success);
    ``n50``: the logistic crossing in pairs; ``slope``: the fitted slope of
    the log-odds in ``log n`` (negative; steeper = sharper transition);
    ``bracket``: the final bisection bracket ``(n_easy, n_hard)``;
    ``censored``: True when the success rate at the bracket ends did not
    straddle 1/2 (the crossing may lie outside the initial bracket).
    """

    d: int
    load_kind: str
    ns: np.ndarray
    outcomes: np.ndarray
    n50: float
    slope: float
    bracket: tuple[int, int]
    censored: bool
    evaluations: int
    cache_hits: int
    steps: list = field(default_factory=list)

    @property
    def crossing(self) -> float:
        """The crossing as a load of kind ``load_kind``."""
        if not (math.isfinite(self.n50) and self.n50 > 1):
            return math.nan
        return load_value(self.load_kind, self.d, self.n50)

    def success_curve(self) -> tuple[list[float], list[float], list[int]]:
        """``(loads, success rates, trials)`` at each evaluated size."""
        sizes = sorted(set(int(n) for n in self.ns))
        loads, rates, counts = [], [], []
        for n in sizes:
            mask = self.ns == n
            loads.append(load_value(self.load_kind, self.d, n))
            rates.append(float(np.mean(self.outcomes[mask])))
            counts.append(int(mask.sum()))
        return loads, rates, counts


def bisect_crossing(
    success: Callable[[np.ndarray, np.ndarray], bool],
    d: int,
    *,
    load_kind: str,
    bracket: tuple[float, float],
    trials: int,
    steps: int,
    base_seed: int,
    name: str,
    params: Mapping | None = None,
    cache: Any = None,
    executor: Any = None,
    min_pairs: int = 2,
) -> CrossingResult:
    """Finite-size 1/2 crossing of the success probability: bisection in ``log n``
    with ``trials`` fresh instances per step, then a logistic fit to all of them.

    ``bracket`` gives two loads (any order) expected to lie on either side of
    the crossing; they become sizes ``n_easy < n_hard`` (at least
    ``min_pairs``). Both ends are evaluated, then ``steps`` bisection steps
    at ``round(sqrt(n_easy n_hard))``: a success rate of at least 1/2 moves
    ``n_easy`` up, otherwise ``n_hard`` comes down; it stops early when the
    bracket closes. Trial ``t`` at size ``n`` is the instance drawn from
    ``instance_rng(base_seed, d, n, t)`` and is cached on its own, so reruns
    and larger profiles reuse it. The estimate is
    :func:`logistic_crossing` in ``log n`` over every evaluation.

    Source: 004 (finite-size thresholds); see the module docstring.

    >>> from scipy.special import ndtr
    >>> def planted(V, U):  # succeeds with probability 1 / (1 + exp(0.6 (n - 30)))
    ...     u = ndtr(V[0, 0] * np.sqrt(V.shape[0]))  # uniform on (0, 1) per instance
    ...     return bool(u < 1 / (1 + np.exp(0.6 * (V.shape[1] - 30))))
    >>> res = bisect_crossing(planted, 5, load_kind="alpha", bracket=(0.2, 4.0), trials=24,
    ...                       steps=5, base_seed=3, name="doc", cache=None)
    >>> bool(abs(res.n50 - 30) < 4)
    True
    """
    success = _check_callable(success, "success")
    d = check_positive_int(d, "d")
    load_kind = _check_load_kind(load_kind)
    try:
        b1, b2 = bracket
    except (TypeError, ValueError):
        raise TypeError(f"bracket must be a pair of loads, got {bracket!r}") from None
    b1 = check_positive_real(b1, "bracket[0]")
    b2 = check_positive_real(b2, "bracket[1]")
    trials = check_positive_int(trials, "trials")
    steps = check_positive_int(steps, "steps", minimum=0)
    base_seed = _check_seed_int(base_seed, "base_seed")
    name = _check_name(name)
    min_pairs = check_positive_int(min_pairs, "min_pairs", minimum=2)
    store = check_cache(cache)
    executor = check_executor(executor)
    n1, n2 = (max(min_pairs, int(round(pairs_at_load(load_kind, d, b)))) for b in (b1, b2))
    n_easy, n_hard = min(n1, n2), max(n1, n2)
    if n_hard - n_easy < 1:
        raise ValueError(
            f"bracket {bracket!r} spans no pairs at d = {d} (both ends give n = {n_easy}); "
            "widen it"
        )
    key_params = {"method": "bisect-crossing", "d": d, "criterion": canonical_json(params or {}, "params")}
    counter = {"calls": 0, "hits": 0}
    ns: list[int] = []
    outs: list[bool] = []

    def evaluate(*sizes: int) -> list[float]:
        """Success rates at ``sizes``: their ``trials`` instances in one batch
        on the current executor (the cache read and written here)."""
        cells = [(n, t) for n in sizes for t in range(trials)]
        done = _cached_many(store, name, key_params, [[base_seed, n, t] for n, t in cells], _trial,
                            [(success, d, n, base_seed, t) for n, t in cells], executor=executor, valid=_is_bool)
        for (n, _), (value, hit, _) in zip(cells, done):
            counter["hits" if hit else "calls"] += 1
            ns.append(n)
            outs.append(bool(value))
        return [float(np.mean([bool(v) for v, _, _ in done[i * trials:(i + 1) * trials]]))
                for i in range(len(sizes))]

    rate_easy, rate_hard = evaluate(n_easy, n_hard)
    history = [(n_easy, rate_easy), (n_hard, rate_hard)]
    censored = not (rate_easy >= 0.5 > rate_hard)
    lo, hi = n_easy, n_hard
    for _ in range(steps):
        if hi - lo <= 1:
            break
        mid = int(round(math.sqrt(lo * hi)))
        mid = min(max(mid, lo + 1), hi - 1)
        (rate,) = evaluate(mid)
        history.append((mid, rate))
        if rate >= 0.5:
            lo = mid
        else:
            hi = mid
    n_arr = np.array(ns, dtype=int)
    o_arr = np.array(outs, dtype=bool)
    x50, slope = logistic_crossing(np.log(n_arr), o_arr)
    # a fit whose crossing lies far outside the sizes tried (all successes or
    # all failures) has no meaningful crossing
    inside = math.isfinite(x50) and abs(x50 - math.log(math.sqrt(n_easy * n_hard))) <= _MAX_LOG_EXTRAPOLATION
    n50 = math.exp(x50) if inside else math.nan
    return CrossingResult(d, load_kind, n_arr, o_arr, n50, slope, (lo, hi), censored,
                          counter["calls"], counter["hits"], history)


def _trial(success: Callable, d: int, n: int, base_seed: int, t: int) -> tuple[bool, None]:
    """One instance of :func:`bisect_crossing`: ``(success, None)``."""
    V, U = gaussian_pairs(d, n, rng=instance_rng(base_seed, d, n, t))
    return bool(success(V, U)), None


# --------------------------------------------------------------------------
# generic grids (for other finite-size studies, e.g. fs.*)
# --------------------------------------------------------------------------


def measure_grid(
    measure: Callable[[np.ndarray, np.ndarray], float],
    d: int,
    ns: Sequence[int],
    *,
    seeds: Iterable[int],
    base_seed: int,
    name: str,
    params: Mapping | None = None,
    cache: Any = None,
    executor: Any = None,
) -> np.ndarray:
    """``measure(keys, targets)`` on independent Gaussian instances: one per
    (seed, n), drawn from ``instance_rng(base_seed, d, n, seed)``.

    Returns a ``(len(seeds), len(ns))`` float array; every entry is cached on
    its own under ``(name, params, d)``, ``n`` and the seed. Use it for any
    scalar figure swept over the load (a norm, a loss, a success indicator
    as 0/1); :func:`peak_location` and :func:`logistic_crossing` then
    locate a peak or a crossing.

    Source: 004 (finite-size sweeps).

    >>> M = measure_grid(lambda V, U: float(V.shape[1]), 3, [4, 8], seeds=range(2),
    ...                  base_seed=0, name="doc", cache=None)
    >>> M.tolist()
    [[4.0, 8.0], [4.0, 8.0]]
    """
    measure = _check_callable(measure, "measure")
    d = check_positive_int(d, "d")
    ns = _check_sequence(ns, "ns", "integers", check_positive_int)
    seeds = _check_seeds(seeds)
    base_seed = _check_seed_int(base_seed, "base_seed")
    name = _check_name(name)
    store = check_cache(cache)
    executor = check_executor(executor)
    key_params = {"method": "grid", "d": d, "criterion": canonical_json(params or {}, "params")}
    cells = [(s, n) for s in seeds for n in ns]
    done = _cached_many(store, name, key_params, [[base_seed, n, s] for s, n in cells], _grid_cell,
                        [(measure, d, n, base_seed, s) for s, n in cells], executor=executor, valid=_is_finite_number)
    return np.array([float(value) for value, _, _ in done]).reshape(len(seeds), len(ns))


def _grid_cell(measure: Callable, d: int, n: int, base_seed: int, s: int) -> tuple[float, None]:
    """One instance of :func:`measure_grid`: ``(value, None)``."""
    V, U = gaussian_pairs(d, n, rng=instance_rng(base_seed, d, n, s))
    value = float(measure(V, U))
    if not math.isfinite(value):
        raise ValueError(f"measure returned a non-finite value {value} at n = {n}, seed {s}")
    return value, None


# --------------------------------------------------------------------------
# a figure's peak along nested pools, and how its location drifts with size
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PeakCurve:
    """One pool's curve from :func:`nested_peak_curve`.

    ``coarse_n``/``coarse_values``: the coarse grid and its values;
    ``fitted``: every size fitted (coarse and refined) -> value; ``peak_n``:
    the size of the largest fitted value; ``interior``: whether the coarse
    maximum lies strictly inside the coarse grid (at an end there is no peak
    in range).
    """

    coarse_n: tuple[int, ...]
    coarse_values: tuple[float, ...]
    fitted: dict
    peak_n: int
    interior: bool

    def resolution(self, load: Callable[[float], float]) -> float:
        """How finely the peak is located: the distance in ``load(n)`` from
        the peak to its farther fitted neighbour.

        >>> PeakCurve((2, 4), (1.0, 0.5), {2: 1.0, 3: 2.0, 4: 0.5}, 3, False).resolution(lambda n: n / 4)
        0.25
        """
        ns = sorted(self.fitted)
        i = ns.index(self.peak_n)
        return max(abs(load(ns[j]) - load(self.peak_n)) for j in (i - 1, i + 1) if 0 <= j < len(ns))


def nested_peak_curve(
    fit: Callable[[np.ndarray, np.ndarray, Any], tuple[float, Any]],
    d: int,
    ns: Sequence[int],
    *,
    rng: np.random.Generator,
    refine: int = 16,
) -> PeakCurve:
    """Where a figure fitted on nested pools peaks along ``n``.

    One pool of ``max(ns)`` Gaussian pairs is drawn from ``rng``
    (:func:`gaussian_pairs`; its first ``n`` pairs are the instance of size
    ``n``). ``fit(keys, targets, init) -> (value, state)`` is called at every
    size of the coarse grid ``ns`` (strictly increasing) in order, each warm-
    started with the previous ``state`` (``init=None`` at the first); then at
    the sizes strictly between the coarse neighbours of the largest value
    (every integer when there are at most ``refine``, else ``refine`` evenly
    spaced), warm-started upward from the lower neighbour. The peak is the
    largest value over every fitted size. Warm starts along a nested pool
    make a curve of an iterative fit (e.g. the norm of the cross-entropy
    memory, which spikes at the pool's separability threshold) cheap and
    smooth.

    Source: 004 (the norm peak of the weakly ridged cross-entropy memory).

    >>> def bump(V, U, init):  # a planted figure peaking at n = 13
    ...     return -abs(V.shape[1] - 13.0), None
    >>> curve = nested_peak_curve(bump, 3, [2, 6, 10, 20, 30], rng=np.random.default_rng(0))
    >>> curve.peak_n, curve.interior, len(curve.fitted)  # refined: every n from 7 to 19
    (13, True, 17)
    """
    fit = _check_callable(fit, "fit")
    d = check_positive_int(d, "d")
    ns = _check_sequence(ns, "ns", "integers", check_positive_int, nonempty=False)
    if not ns or any(b <= a for a, b in zip(ns, ns[1:])):
        raise ValueError(f"ns must be non-empty and strictly increasing, got {ns}")
    rng = check_generator(rng)
    refine = check_positive_int(refine, "refine")
    V, U = gaussian_pairs(d, ns[-1], rng=rng)

    def value_at(n, init):
        value, state = fit(V[:, :n], U[:, :n], init)
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"fit returned a non-finite value {value} at n = {n}")
        return value, state

    fitted, states, state = {}, {}, None
    for n in ns:
        fitted[n], state = value_at(n, state)
        states[n] = state
    values = [fitted[n] for n in ns]
    i = int(np.argmax(values))
    lo, hi = ns[max(i - 1, 0)], ns[min(i + 1, len(ns) - 1)]
    inner = list(range(lo + 1, hi))
    if len(inner) > refine:
        inner = sorted({int(round(x)) for x in np.linspace(lo + 1, hi - 1, refine)})
    state = states[lo]
    for n in inner:
        if n in fitted:
            state = states[n]
            continue
        fitted[n], state = value_at(n, state)
    peak = max(fitted, key=fitted.get)
    return PeakCurve(tuple(ns), tuple(values), fitted, peak, 0 < i < len(ns) - 1)


def pooled_peaks(curves: Sequence[PeakCurve], load: Callable[[float], float]) -> dict:
    """What the peaks of several pools' curves (one :func:`nested_peak_curve`
    each, on the same coarse grid) say, in the load ``load(n)``.

    ``peak``, ``peak_sd``, ``peak_median``, ``seed_peaks``: the pools' peak
    locations (their mean, spread, median and values); ``seed_peak_sizes``;
    ``resolution``: the coarsest :meth:`PeakCurve.resolution`;
    ``interior_share``: the share of pools whose coarse maximum is interior;
    ``loads``/``mean_curve``: the geometric mean curve over pools on the coarse
    grid; ``prominence``: its maximum over the larger of its two ends (1 when
    the maximum sits at an end: no peak); ``curve_peak``:
    :func:`peak_location` of the log of that curve.

    >>> c = PeakCurve((2, 3, 4), (1.0, 4.0, 2.0), {2: 1.0, 3: 4.0, 4: 2.0}, 3, True)
    >>> s = pooled_peaks([c, c], float)
    >>> s["peak"], s["prominence"], s["resolution"]
    (3.0, 2.0, 1.0)
    """
    curves = list(curves)
    if not curves or not all(isinstance(c, PeakCurve) for c in curves):
        raise TypeError("curves must be a non-empty sequence of PeakCurve")
    if len({c.coarse_n for c in curves}) != 1:
        raise ValueError("curves must share one coarse grid (they are averaged pointwise)")
    load = _check_callable(load, "load")
    peaks = np.array([load(c.peak_n) for c in curves], dtype=float)
    log_mean = np.mean([np.log(c.coarse_values) for c in curves], axis=0)
    curve = np.exp(log_mean)
    loads = [float(load(n)) for n in curves[0].coarse_n]
    return {
        "peak": float(np.mean(peaks)),
        "peak_sd": float(np.std(peaks, ddof=1)) if peaks.size > 1 else math.nan,
        "peak_median": float(np.median(peaks)),
        "seed_peaks": peaks.tolist(),
        "seed_peak_sizes": [c.peak_n for c in curves],
        "resolution": max(c.resolution(load) for c in curves),
        "interior_share": float(np.mean([c.interior for c in curves])),
        "prominence": float(min(curve.max() / curve[0], curve.max() / curve[-1])),
        "curve_peak": peak_location(loads, log_mean),
        "loads": loads,
        "mean_curve": curve.tolist(),
    }


# --------------------------------------------------------------------------
# 004's norm peak of the weakly ridged cross-entropy memory
# --------------------------------------------------------------------------


def cross_entropy_norm_peaks(
    memory: Callable[..., Any],
    d: int,
    loads: Sequence[float],
    *,
    pools: int,
    base_seed: int,
    effective_ridge: float,
    maxiter: int,
    refine: int = 16,
) -> dict:
    """Where ``||W||_F`` of the weakly ridged cross-entropy memory peaks in
    the load ``c = n ln n / d^2``, over ``pools`` nested pools of pairs.

    The coarse grid is ``n = max(2, round(n(c)))`` for each ``c`` in
    ``loads`` (:func:`pairs_at_load`; repeated sizes dropped). Pool ``s``
    draws its pairs from ``instance_rng(base_seed, d, s)``; at each size
    ``memory(keys, targets, ridge=effective_ridge * d^2 / n, maxiter=maxiter,
    init=W)`` is fitted warm-started upward and refined between the coarse
    neighbours of the largest norm (:func:`nested_peak_curve`). Returns
    :func:`pooled_peaks` of the pools' curves in ``c``, with ``pools`` and
    the coarse sizes ``coarse_n``. ``memory`` is any function with the
    signature of :func:`linmem.cross_entropy_memory` returning an object
    with ``W``.

    Source: 004 (finite-size simulations: the norm peaks at the separability
    threshold, whose load tends to 1/2).

    >>> from linmem import cross_entropy_memory
    >>> s = cross_entropy_norm_peaks(cross_entropy_memory, 4, (0.5, 1.0, 2.0), pools=1, base_seed=0,
    ...                              effective_ridge=1e-8, maxiter=50)
    >>> s["pools"], s["coarse_n"], len(s["mean_curve"])
    (1, [5, 8, 13], 3)
    """
    memory = _check_callable(memory, "memory")
    d = check_positive_int(d, "d")
    loads = _check_sequence(loads, "loads", "positive numbers", check_positive_real)
    pools = check_positive_int(pools, "pools")
    base_seed = _check_seed_int(base_seed, "base_seed")
    effective_ridge = check_positive_real(effective_ridge, "effective_ridge")
    maxiter = check_positive_int(maxiter, "maxiter")
    refine = check_positive_int(refine, "refine")
    coarse: list[int] = []
    for c in sorted(loads):
        n = max(2, int(round(pairs_at_load("ratio", d, 1.0 / c))))
        if not coarse or n > coarse[-1]:
            coarse.append(n)

    def norm(V, U, init):
        fit = memory(V, U, ridge=effective_ridge * d * d / V.shape[1], maxiter=maxiter, init=init)
        W = np.asarray(fit.W, dtype=float)
        return float(np.linalg.norm(W)), W

    curves = [nested_peak_curve(norm, d, coarse, rng=instance_rng(base_seed, d, s), refine=refine)
              for s in range(pools)]
    return {**pooled_peaks(curves, lambda n: n * math.log(n) / (d * d)), "pools": pools, "coarse_n": coarse}


# --------------------------------------------------------------------------
# a second success test on the instances of a crossing sweep
# --------------------------------------------------------------------------


#: A refitted crossing at ``|log n|`` beyond this is reported as NaN (no
#: crossing): the fit of an all-success or all-failure sample runs away.
RECHECK_MAX_LOG_N = 50.0


@dataclass(frozen=True)
class RecheckResult:
    """Outcome of :func:`recheck_crossing`: the sweep's crossing refitted on
    the kept instances (``first``) and the second test's (``second``), as
    loads of the sweep's kind (NaN when a fit has no crossing); the fraction
    of kept instances on which the two tests agree; the kept sizes, both
    tests' outcomes there, and the second test's evaluations and cache hits."""

    first: float
    second: float
    agreement: float
    ns: np.ndarray
    first_outcomes: np.ndarray
    second_outcomes: np.ndarray
    evaluations: int
    cache_hits: int


def recheck_crossing(
    result: CrossingResult,
    success: Callable[[np.ndarray, np.ndarray], bool],
    *,
    keep: int,
    base_seed: int,
    name: str,
    params: Mapping | None = None,
    cache: Any = None,
    executor: Any = None,
) -> RecheckResult:
    """A second, stricter success test on the instances of a
    :func:`bisect_crossing` sweep, and both crossings on the same instances.

    On the first ``keep`` trials at every size the sweep visited (trial ``t``
    at size ``n`` is the instance ``instance_rng(base_seed, d, n, t)``, as in
    the sweep: pass the sweep's ``base_seed``), ``success(keys, targets)``
    runs only where the sweep's test succeeded (the second test implies the
    first, e.g. a learner reaching a margin only a feasible instance has),
    each run cached on its own under ``(name, params)``. Both crossings are
    logistic fits in ``log n`` over the kept instances.

    Source: ours (004's transition measured by a learner on the LP's instances).

    >>> def planted(V, U):  # succeeds when the instance's first entry is positive, more often for small n
    ...     return bool(V[0, 0] > (V.shape[1] - 20) / 10)
    >>> res = bisect_crossing(planted, 4, load_kind="alpha", bracket=(0.5, 2.5), trials=8, steps=3,
    ...                       base_seed=1, name="doc", cache=None)
    >>> same = recheck_crossing(res, planted, keep=8, base_seed=1, name="doc.recheck", cache=None)
    >>> same.agreement, same.first == same.second
    (1.0, True)
    """
    if not isinstance(result, CrossingResult):
        raise TypeError(f"result must be a CrossingResult of bisect_crossing, got {type(result).__name__}")
    success = _check_callable(success, "success")
    keep = check_positive_int(keep, "keep")
    base_seed = _check_seed_int(base_seed, "base_seed")
    name = _check_name(name)
    store = check_cache(cache)
    executor = check_executor(executor)
    counts: dict[int, int] = {}
    trial = []
    for n in result.ns.tolist():  # the trial index of each evaluation at its size
        trial.append(counts.get(n, 0))
        counts[n] = trial[-1] + 1
    trial = np.array(trial, dtype=int)
    kept = trial < keep
    ns, first, trial = result.ns[kept], result.outcomes[kept], trial[kept]
    cells = [(int(n), int(t)) for n, ok, t in zip(ns, first, trial) if ok]
    key_params = {"method": "recheck-crossing", "d": result.d, "criterion": canonical_json(params or {}, "params")}
    done = iter(_cached_many(store, name, key_params, [[base_seed, n, t] for n, t in cells], _trial,
                             [(success, result.d, n, base_seed, t) for n, t in cells], executor=executor, valid=_is_bool))
    runs = [next(done) if ok else None for ok in first.tolist()]
    second = np.array([bool(r[0]) if r is not None else False for r in runs], dtype=bool)

    def load(outcomes):
        x50 = logistic_crossing(np.log(ns), outcomes)[0] if ns.size >= 2 else math.nan
        if not (math.isfinite(x50) and abs(x50) < RECHECK_MAX_LOG_N):
            return math.nan
        return load_value(result.load_kind, result.d, math.exp(x50))

    hits = sum(1 for r in runs if r is not None and r[1])
    return RecheckResult(load(first), load(second), float(np.mean(second == first)) if ns.size else math.nan, ns,
                         first, second, len(cells) - hits, hits)
