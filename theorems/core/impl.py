"""The implementation under test, as a namespace of formulas.

Checks call formulas through ``ctx.impl`` (``ctx.impl.snr(h)``), never by
importing linmem directly, so that a negative control can swap one formula
for a wrong variant and watch the claim fail.

Every formula is wrapped so that an exception of :data:`FORMULA_ERRORS`
raised *inside* it is tagged with the formula's name
(:func:`raised_by_formula`). A formula that raises on a valid input fails
on that input, and the evidence records a failing case; an exception that
does not carry the tag was raised by the check itself (its generator, its
residual, its bookkeeping) and makes the check an ERROR, with its traceback
in the evidence. Classes (result types such as ``GordanCertificate``) are
passed through unwrapped, so ``isinstance`` keeps working.
"""

from __future__ import annotations

import functools
import inspect
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

import linmem

__all__ = ["FORMULA_ERRORS", "Impl", "formula_names", "raised_by_formula"]

#: Exceptions that, raised by a formula on a valid input, mean the formula
#: fails there (a wrong shape, a singular solve, a division by zero).
FORMULA_ERRORS = (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError, IndexError)

_TAG = "__theorems_formula__"


def raised_by_formula(exc: BaseException) -> str | None:
    """The name of the formula under test that raised ``exc`` (None when the
    exception was not raised inside a formula of :class:`Impl`).

    >>> impl = Impl.default()
    >>> try:
    ...     impl.snr("not a number")
    ... except FORMULA_ERRORS as exc:
    ...     print(raised_by_formula(exc))
    snr
    >>> raised_by_formula(ValueError("raised by a check"))
    """
    return getattr(exc, _TAG, None)


def _tagged(name: str, fn: Callable) -> Callable:
    """``fn`` with every FORMULA_ERRORS exception tagged by ``name`` (the
    innermost formula keeps its tag when formulas call formulas)."""
    if inspect.isclass(fn) or getattr(fn, _TAG, None) is not None:
        return fn

    @functools.wraps(fn)
    def formula(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except FORMULA_ERRORS as exc:
            if getattr(exc, _TAG, None) is None:
                try:
                    setattr(exc, _TAG, name)
                except AttributeError:  # an exception type without a __dict__
                    raise _Tagged(name, exc) from exc
            raise

    setattr(formula, _TAG, name)
    return formula


class _Tagged(ValueError):
    """Carrier for a formula exception whose type refuses attributes."""

    def __init__(self, name: str, exc: BaseException):
        super().__init__(f"{name} raised {exc!r}")
        setattr(self, _TAG, name)


class Impl:
    """A read-only namespace of linmem's public callables, with overrides.

    >>> impl = Impl.default()
    >>> float(impl.snr(0.5))
    1.0
    >>> float(impl.with_overrides({"snr": lambda h: h / (1 + h)}).snr(0.5))
    0.3333333333333333
    """

    def __init__(self, functions: Mapping[str, Callable], overridden: tuple[str, ...] = ()):
        self._functions = MappingProxyType({name: _tagged(name, fn) for name, fn in functions.items()})
        self.overridden = overridden
        self._reads: set[str] = set()  # the formulas looked up since take_reads

    @classmethod
    def default(cls) -> "Impl":
        funcs = {}
        for module in _modules():
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name)
                if callable(obj):
                    funcs.setdefault(name, obj)
        return cls(funcs)

    def with_overrides(self, overrides: Mapping[str, Callable]) -> "Impl":
        unknown = sorted(set(overrides) - set(self._functions))
        if unknown:
            raise KeyError(f"negative control overrides unknown formulas {unknown}")
        merged = dict(self._functions)
        merged.update({name: _tagged(name, fn) for name, fn in overrides.items()})
        return Impl(merged, tuple(sorted(overrides)))

    def __reduce__(self):
        # picklable (for sweeps on a cluster): rebuilt from its functions, which
        # keep their formula tags; __getattr__ never runs on a half-built object
        return (Impl, (dict(self._functions), self.overridden))

    def __getattr__(self, name: str) -> Any:
        try:
            fn = self._functions[name]
        except KeyError:
            raise AttributeError(f"implementation has no formula {name!r}") from None
        self._reads.add(name)
        return fn

    def take_reads(self) -> frozenset[str]:
        """The formulas looked up on this namespace (in this process) since
        the last call, and start afresh: a check under a negative control
        that looked up none of the formulas it replaces cannot see the
        control (theorems.core.controls).

        >>> impl = Impl.default().with_overrides({"snr": lambda h: h})
        >>> _ = impl.leverage_scores, impl.snr
        >>> sorted(impl.take_reads()), sorted(impl.take_reads())
        (['leverage_scores', 'snr'], [])
        """
        reads, self._reads = frozenset(self._reads), set()
        return reads

    def names(self) -> list[str]:
        return sorted(self._functions)


def _modules():
    from linmem import (
        capacity,
        ensembles,
        estimates,
        learn,
        recall,
        retrieval,
        spectral,
        stores,
    )

    return [linmem, spectral, recall, stores, estimates, ensembles, capacity, retrieval, learn]


@functools.lru_cache(maxsize=1)
def formula_names() -> frozenset[str]:
    """The names of linmem's formulas (what a negative control may replace).

    >>> "snr" in formula_names()
    True
    """
    return frozenset(Impl.default()._functions)
