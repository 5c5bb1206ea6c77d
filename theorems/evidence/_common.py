"""Shared pieces of the evidence checkers: timing, Hypothesis settings,
replay commands and JSON-able descriptions of inputs."""

from __future__ import annotations

import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import seed as _hypothesis_seed_decorator

from theorems.core.impl import FORMULA_ERRORS, raised_by_formula
from theorems.core.model import Context, Evidence, EvidenceKind, EvidenceStatus, derive_seed, jsonable

__all__ = [
    "IMPLEMENTATION_ERRORS",
    "SearchedDomain",
    "TermsError",
    "TermsScreen",
    "claims_module_reference",
    "formula_failure",
    "hypothesis_run",
    "hypothesis_seed",
    "hypothesis_settings",
    "hypothesis_test",
    "is_nan",
    "jsonable",
    "make",
    "refuse_nan",
    "replay_command",
    "timed",
]

#: Exceptions that, raised *by a formula under test* while it evaluates one
#: valid input, mean the formula fails on that input (a wrong shape, a
#: singular solve, a division by zero): the check records a failing case.
#: The same exception raised by the check's own code (not tagged by
#: :mod:`theorems.core.impl`), or any other exception, is a defect of the check
#: and makes the claim an ERROR (see :func:`formula_failure`).
IMPLEMENTATION_ERRORS = FORMULA_ERRORS


class SearchedDomain:
    """What a search visited, for ``Evidence.data["domain"]``: the ranges of
    the key shapes (``d`` rows, ``M`` columns), of the generated ranks and
    condition numbers, and the families, read off each example that is (or
    holds, first in a tuple) a key matrix or a :class:`~theorems.authoring.strategies.KeyCase`.
    Examples of other shapes are counted only.

    >>> dom = SearchedDomain()
    >>> dom.see(np.zeros((3, 5))); dom.see((np.zeros((2, 7)), 1)); dom.see("other")
    >>> dom.to_json()
    {'examples': 3, 'd': [2, 3], 'M': [5, 7]}
    """

    def __init__(self):
        self.n = 0
        self.ranges: dict[str, list] = {}
        self.families: set[str] = set()

    def _note(self, name: str, value) -> None:
        if value is None:
            return
        value = float(value) if isinstance(value, (float, np.floating)) else int(value)
        lo_hi = self.ranges.setdefault(name, [value, value])
        lo_hi[0], lo_hi[1] = min(lo_hi[0], value), max(lo_hi[1], value)

    def see(self, example: Any) -> None:
        self.n += 1
        if isinstance(example, tuple) and example:
            example = example[0]
        recipe = getattr(example, "recipe", None)  # a template's float Case: its recipe names the family and sizes
        if isinstance(recipe, dict) and isinstance(recipe.get("family"), str) and "d" in recipe and "M" in recipe:
            self.families.add(recipe["family"])
            self._note("d", recipe["d"])
            self._note("M", recipe["M"])
            self._note("rank", recipe.get("rank"))
            if recipe.get("cond") not in (None, 1.0):
                self._note("cond", recipe["cond"])
            return
        args = getattr(example, "args", None)
        if isinstance(args, tuple) and args and isinstance(args[0], np.ndarray):
            example = args[0]  # a Case without a recipe of that form: its first argument's shape
        family = getattr(example, "family", None)
        if isinstance(family, str) and hasattr(example, "d"):
            self.families.add(family)
            self._note("d", example.d)
            self._note("M", example.M)
            self._note("rank", getattr(example, "rank", None))
            cond = getattr(example, "cond", None)
            if cond is not None and cond != 1.0:
                self._note("cond", cond)
            return
        if isinstance(example, np.ndarray) and example.ndim == 2:
            self._note("d", example.shape[0])
            self._note("M", example.shape[1])

    def to_json(self) -> dict:
        out: dict[str, Any] = {"examples": self.n}
        out.update({k: v for k, v in self.ranges.items()})
        if self.families:
            out["families"] = sorted(self.families)
        return out


def formula_failure(exc: BaseException, ctx: Context | None = None) -> str:
    """The failing-case description of ``exc`` when a formula under test
    raised it; otherwise ``exc`` is re-raised (the runner turns it into an
    ERROR with its traceback). Call it inside ``except IMPLEMENTATION_ERRORS``.

    Under a negative control (``ctx.control``) the implementation differs
    from the one the main run checks only in the overridden formulas, so an
    exception of these types raised by the check's own code while it
    evaluates a case comes from the wrong variant's output (a shape the
    statement does not allow, a zero it then divides by): a failing case,
    described as such."""
    name = raised_by_formula(exc)
    if name is not None:
        return f"formula {name} raised {exc!r}"
    if ctx is not None and ctx.control:
        return f"the check could not evaluate the wrong variant's output: {exc!r}"
    raise exc


class TermsError(Exception):
    """A defect of the claim's own terms or measure, not of a formula under
    test: a NaN residual, terms that cannot be formed from exact or mpmath
    input, lhs and rhs of different shapes on every input. Not one of
    :data:`IMPLEMENTATION_ERRORS`, so it reaches the runner, which makes the
    check an ERROR with this message."""


def is_nan(x: Any) -> bool:
    """Whether ``x`` is NaN or holds a NaN, in any number type: Python and
    numpy scalars of any width (complex too), arrays of any shape (object
    arrays entry by entry), mpmath ``mpf``/``mpc``.

    >>> import mpmath
    >>> [is_nan(v) for v in (float("nan"), np.float16("nan"), np.array(np.nan), mpmath.mpc(0, "nan"), 1.0)]
    [True, True, True, True, False]
    >>> [is_nan(v) for v in (np.int64(3), np.bool_(True), np.arange(3), 7, "nan")]  # integers are never NaN
    [False, False, False, False, False]
    """
    import mpmath

    if isinstance(x, (mpmath.mpf, mpmath.mpc)):
        return bool(mpmath.isnan(x))
    if isinstance(x, (float, complex, np.number)):
        return bool(np.isnan(x)) if isinstance(x, (float, complex, np.inexact)) else False
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return any(is_nan(e) for e in x.ravel())
        return bool(np.isnan(x).any()) if x.dtype.kind in "fc" else False
    if isinstance(x, (list, tuple)):
        return any(is_nan(e) for e in x)
    return False


def refuse_nan(value: Any, ctx: Context | None, what: str) -> Any:
    """``value``, unless it is NaN (:func:`is_nan`): then a :class:`TermsError`
    naming ``what``, as a NaN residual says nothing about the claim. Under a
    negative control the NaN comes from the wrong variant and is returned,
    a failing case like any other."""
    if is_nan(value) and not (ctx is not None and ctx.control):
        raise TermsError(f"{what} is NaN ({type(value).__name__}): the terms or the measure produced a NaN; "
                         "a NaN is neither a pass nor a counterexample")
    return value


def _shape(x: Any) -> tuple:
    return np.atleast_1d(np.asarray(x, dtype=object)).shape


class TermsScreen:
    """What a check of a claim's terms (the residual contract of
    :mod:`theorems.core.residuals`) sets apart from its verdict, in the main run:

    * terms that raise a ``TypeError`` on exact or mpmath input (numpy's
      float-only functions on rationals, say) cannot be formed: ERROR;
    * a term holding a NaN: ERROR (:func:`refuse_nan`);
    * terms empty on every input compare nothing: ERROR;
    * an input whose pair ``(lhs, rhs)`` has two shapes is not a
      counterexample: :meth:`mismatch` sets it aside. A same-shape failing
      input still makes the check FAILED; otherwise :meth:`settle` makes it
      ERROR naming both shapes (on every input, or on some of them).

    Under a negative control (``ctx.control``) nothing is set apart: a wrong
    variant's wrong shape or NaN is a failing case."""

    def __init__(self, ctx: Context, *, number_system: str):
        self.ctx, self.number_system = ctx, number_system
        self.matched = 0
        self.empty = 0
        self.mismatched: list[tuple[int, tuple, tuple]] = []

    def unformable(self, exc: BaseException) -> None:
        """Raise :class:`TermsError` for a ``TypeError`` of the terms on exact or mpmath input."""
        if isinstance(exc, TypeError) and self.number_system != "float64" and not self.ctx.control:
            raise TermsError(f"the terms cannot be formed on {self.number_system} input: "
                             f"{type(exc).__name__}: {exc}") from exc

    def mismatch(self, items: Any) -> bool:
        """Whether this input's terms are set aside (a pair of two shapes);
        raises :class:`TermsError` on a NaN entry."""
        if self.ctx.control:
            return False
        from theorems.core.residuals import AtMost

        if isinstance(items, list) and not items:
            self.empty += 1

        for i, t in enumerate([items] if isinstance(items, AtMost) else items):
            if isinstance(t, AtMost) or (isinstance(t, tuple) and len(t) == 2):
                lhs, rhs = (t.lhs, t.rhs) if isinstance(t, AtMost) else t
                refuse_nan(lhs, self.ctx, f"term {i}'s lhs")
                refuse_nan(rhs, self.ctx, f"term {i}'s rhs")
                if not isinstance(t, AtMost) and _shape(lhs) != _shape(rhs):
                    self.mismatched.append((i, _shape(lhs), _shape(rhs)))
                    return True
        self.matched += 1
        return False

    def _shapes_error(self) -> TermsError:
        i, a, b = self.mismatched[0]
        where = ("every input" if not self.matched
                 else f"{len(self.mismatched)} of {len(self.mismatched) + self.matched} inputs")
        return TermsError(f"lhs and rhs of term {i} have different shapes on {where} "
                          f"({self.number_system}): lhs {a}, rhs {b}")

    def settle(self, run: Callable[[], Evidence]) -> Evidence:
        """The evidence of ``run()``: a FAILED verdict (on a same-shape input)
        stands; otherwise an input set aside makes it a :class:`TermsError`."""
        from hypothesis.errors import Unsatisfiable

        try:
            ev = run()
        except Unsatisfiable:  # every generated input was set aside
            if self.mismatched:
                raise self._shapes_error() from None
            raise
        if self.mismatched and ev.status is not EvidenceStatus.FAILED:
            raise self._shapes_error()
        if self.matched and self.empty == self.matched and ev.status is not EvidenceStatus.FAILED:
            raise TermsError(f"the terms are empty on every input ({self.number_system}): nothing to compare")
        return ev


@dataclass(frozen=True)
class HypothesisOptions:
    """Hypothesis's options for the checks of a run, carried by each check's
    context (``ctx.hypothesis``; ``None`` there means these defaults):
    ``seed`` mixed into every check's seed (``pytest --hypothesis-seed``),
    ``database`` the example database (``None``: none read or written)."""

    seed: Any = None
    database: Any = None


@contextmanager
def _no_source_constants():
    """Hypothesis (6.131 on) sometimes draws constants it collects from the
    source of every local module imported so far. Then a figure would depend
    on an edit to an unrelated literal anywhere in the project (seen: figures
    of claims nobody touched moved between commits), on the modules a process
    happened to import (a user's ``--claims`` modules, the project the pytest
    plugin runs in), and on whether the project is installed editable
    (site-packages are not "local"). Inside this
    context that pool is empty, so the generated cases are a function of the
    strategies, the check's seed and Hypothesis's own fixed constants alone.
    A no-op on a Hypothesis without the pool."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - layout of another Hypothesis version
        yield
        return
    get, cache = getattr(providers, "_get_local_constants", None), getattr(providers, "CONSTANTS_CACHE", None)
    if get is None or not hasattr(providers, "Constants"):
        yield
        return
    providers._get_local_constants = lambda: providers.Constants()
    if cache is not None:
        cache.cache.clear()  # permitted constants computed from the old pool
    try:
        yield
    finally:
        providers._get_local_constants = get
        if cache is not None:
            cache.cache.clear()


@contextmanager
def hypothesis_run(*, seed: Any = None, database: bool = False):
    """Hypothesis's configuration while checks run.

    Hypothesis keeps its files (the example database, its constants and
    character caches) in ``<cache>/hypothesis`` (the folder of
    :func:`theorems.scale.sweepcache.default_cache_dir`, ``$THEOREMS_CACHE``), or in a
    temporary folder when the cache is off, never in ``.hypothesis/`` of the
    current directory; ``$HYPOTHESIS_STORAGE_DIRECTORY``, when set, wins.

    ``seed`` (``pytest --hypothesis-seed``) is mixed into every check's seed,
    so it changes the generated cases; ``None`` keeps them a function of the
    theorems seed alone. ``database=True`` lets the checks save and replay
    failing examples (Hypothesis's convention, used when a Hypothesis option
    is given); without it no example database is read or written, so a
    verdict depends only on the code and the theorems seed. Yields the
    :class:`HypothesisOptions` to pass to the run (``hypothesis=``), which
    hands them to every check in its context. Hypothesis's
    constants drawn from the project's source are off (:func:`_no_source_constants`),
    so the cases do not depend on which modules a run imported.
    """
    from hypothesis import configuration
    from hypothesis.database import DirectoryBasedExampleDatabase

    from theorems.scale.sweepcache import default_cache_dir

    home_attr = "__hypothesis_home_directory"
    previous_home = getattr(configuration, home_attr, None)
    scratch = None
    home = None
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        cache = default_cache_dir()
        if cache is None:
            scratch = tempfile.TemporaryDirectory(prefix="theorems-hypothesis-")
            home = scratch.name
        else:
            home = cache / "hypothesis"
        configuration.set_hypothesis_home_dir(home)
    db = None
    if database and scratch is None:
        db = DirectoryBasedExampleDatabase(configuration.storage_directory("examples").path)
    try:
        with _no_source_constants():
            yield HypothesisOptions(seed=seed, database=db)
    finally:
        if home is not None:
            configuration.set_hypothesis_home_dir(previous_home)
        if scratch is not None:
            scratch.cleanup()


def hypothesis_seed(ctx: Context):
    """Decorator for a check's ``@given`` test: seeds it from the check's seed
    (mixed with the ``--hypothesis-seed`` of the run, when given) and names it
    ``<claim id>::<check name>``, which becomes the ``property`` of
    Hypothesis's observations, the heading of its statistics and the key of
    its example database."""
    forced = getattr(ctx.hypothesis, "seed", None)
    value = ctx.seed if forced is None else derive_seed(forced, str(ctx.seed))
    name = f"{ctx.claim_id}::{ctx.check_name}"

    def decorate(test):
        test = _hypothesis_seed_decorator(value)(test)
        test.__name__ = test.__qualname__ = name
        inner = getattr(getattr(test, "hypothesis", None), "inner_test", None)
        if inner is not None:
            inner._hypothesis_internal_add_digest = name.encode()
        return test

    return decorate


def hypothesis_settings(max_examples: int, *, shrink: bool = True, database: Any = None) -> settings:
    """Deterministic settings: no example database (unless the run asks for
    one: ``database=ctx.hypothesis.database``, see :func:`hypothesis_run`), no deadline (timing is the
    runner's job), health checks that penalise slow linear algebra off, one
    failure reported (the minimal one), no 'explain' phase. ``shrink=False``
    (used for negative controls, where only the verdict matters) skips
    shrinking."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target]
    if shrink:
        phases.append(Phase.shrink)
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=database,
        derandomize=False,
        print_blob=False,
        report_multiple_bugs=False,
        phases=phases,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.differing_executors,
        ],
    )


def hypothesis_test(ctx: Context, strategy: Any, test: Callable[[Any], None], *, max_examples: int,
                    explicit: Sequence[Any] = ()) -> Callable[[], None]:
    """``test`` as a check's Hypothesis test: the ``explicit`` inputs first,
    in the order given and at every seed (Hypothesis's explicit examples),
    then ``strategy``'s, seeded by :func:`hypothesis_seed` under
    :func:`hypothesis_settings` (``max_examples``; no shrinking under a
    negative control; the run's example database, if it asked for one)."""
    for case in reversed(tuple(explicit)):
        test = example(case)(test)
    configured = hypothesis_settings(max_examples, shrink=not ctx.control,
                                     database=getattr(ctx.hypothesis, "database", None))
    return configured(hypothesis_seed(ctx)(given(strategy)(test)))


def claims_module_reference(spec: str) -> str:
    """A ``--claims`` module as a replay names it: a file (``.py``) or an
    existing path by its absolute path, so the replay works from any folder;
    an import name as it is."""
    return os.path.abspath(spec) if spec.endswith(".py") or os.path.exists(spec) else spec


def replay_command(ctx: Context) -> str:
    """The command that reruns this check exactly: same claim, profile and
    seed, user claim modules by absolute path (it works from any folder), and
    ``--out`` a scratch folder, ``<tmp>/theorems-replay/<claim id>``, so that
    a replay never replaces the reports of the run it came from."""
    import shlex

    extra = "".join(f" --claims {shlex.quote(claims_module_reference(m))}" for m in ctx.claims_modules)
    out = os.path.join(tempfile.gettempdir(), "theorems-replay", ctx.claim_id)
    return (
        f"theorems verify --only {shlex.quote(ctx.claim_id)} --profile {ctx.profile.name} "
        f"--seed {ctx.run_seed}{extra} --out {shlex.quote(out)}"
    )


@contextmanager
def timed():
    """``box["seconds"]``: the wall time the block took.

    >>> with timed() as t:
    ...     pass
    >>> 0.0 <= t["seconds"] < 1.0
    True
    """
    box = {"start": time.perf_counter()}
    yield box
    box["seconds"] = time.perf_counter() - box["start"]


def make(
    ctx: Context,
    kind: EvidenceKind,
    ok: bool,
    *,
    seconds: float,
    passed: EvidenceStatus = EvidenceStatus.PASSED,
    failed: EvidenceStatus = EvidenceStatus.FAILED,
    **fields: Any,
) -> Evidence:
    ev = Evidence(
        check=ctx.check_name,
        kind=kind,
        status=passed if ok else failed,
        seconds=seconds,
        seeds=[ctx.seed],
        replay=replay_command(ctx),
        **fields,
    )
    return ev
