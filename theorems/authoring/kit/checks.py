"""What a check hands the run: the sweep cache of its context, plot specifications for the
report, and sizes per profile level."""

from __future__ import annotations

from typing import Any, Callable, Sequence


__all__ = [
    "cached",
    "levels",
    "per_profile",
    "plot",
    "series",
    "sweep_cache",
]


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


def per_profile(*, quick: Any, standard: Any, thorough: Any) -> dict:
    """A value per profile level, the one way a claim declares its sizes,
    draws and budgets (all three levels, by name), read in a check with
    ``ctx.profile.pick(**value)``; :func:`levels` builds nested sizes in the
    same form.

    >>> per_profile(quick=8, standard=16, thorough=32)
    {'quick': 8, 'standard': 16, 'thorough': 32}
    """
    return dict(quick=quick, standard=standard, thorough=thorough)


def levels(quick: Sequence, *, standard: Sequence = (), thorough: Sequence = ()) -> dict:
    """Nested sizes per profile level (:func:`per_profile`'s form): the
    quick sizes, and the sizes standard and thorough add to them.

    >>> levels((32, 64), standard=(128,), thorough=(128, 256))
    {'quick': (32, 64), 'standard': (32, 64, 128), 'thorough': (32, 64, 128, 256)}
    """
    quick = tuple(quick)
    return per_profile(quick=quick, standard=quick + tuple(standard), thorough=quick + tuple(thorough))
