"""The implementation under test, as a namespace of formulas.

Checks call formulas through ``ctx.impl`` (``ctx.impl.snr(h)``), never by
importing linmem directly, so that a negative control can swap one formula
for a wrong variant and watch the claim fail.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Callable, Mapping

import linmem

__all__ = ["Impl"]


class Impl:
    """A read-only namespace of linmem's public callables, with overrides.

    >>> impl = Impl.default()
    >>> float(impl.snr(0.5))
    1.0
    >>> float(impl.with_overrides({"snr": lambda h: h / (1 + h)}).snr(0.5))
    0.3333333333333333
    """

    def __init__(self, functions: Mapping[str, Callable], overridden: tuple[str, ...] = ()):
        self._functions = MappingProxyType(dict(functions))
        self.overridden = overridden

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
        merged.update(overrides)
        return Impl(merged, tuple(sorted(overrides)))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"implementation has no formula {name!r}") from None

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
