"""Plots for the HTML report, drawn from the JSON of evidence records, as
inline SVG.

Drawn with matplotlib's object-oriented API (``matplotlib.figure.Figure``
rendered by the SVG backend) and never through ``pyplot``: no global figure
registry that could leak figures, no GUI backend chosen behind a user's
back, nothing to close. What gets a plot:

- simulation evidence (``data["sizes"]``, ``data["figures"]``): the figure
  against the size, log-log with the fitted slope when every value is
  positive;
- Monte Carlo evidence (``data["mean"]``, ``data["claimed"]``,
  ``data["standard_error"]``): the measured mean +- one standard error
  against the claimed value per quantity, and each quantity's standardised
  deviation against the critical z of the check;
- precision ladders (``data["ladder"]``, ``data["residuals"]``): the residual
  against the working precision, log scale, beside the rounding unit
  10^-digits (a ladder whose residuals are all exactly zero needs no plot);
- an explicit ``data["plot"]`` spec (docs/writing-claims.md, rule 7).

Speed matters (a whole catalogue renders in a few seconds): tick labels are
plain text (no mathtext), log axes carry no minor ticks, the legend is
returned as data for the page to show as text (:class:`LegendEntry`), and
text stays text in the SVG (``svg.fonttype: none``).

The dependency graph of the claims is drawn by hand as SVG, layered by
dependency depth (:func:`dependency_graph_svg`).
"""

from __future__ import annotations

import html
import io
import math
import re
import threading
from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple, Sequence

from theorems.core.model import Status

__all__ = [
    "KIND_SHAPES",
    "LegendEntry",
    "Plot",
    "STATUS_COLOURS",
    "ancestors",
    "chain_status",
    "dependency_graph_svg",
    "draw_all",
    "evidence_plots",
    "ladder_all_zero",
    "plot_sources",
    "spec_plot",
]

#: Fill colour of each claim status (the HTML report and the graph share it).
STATUS_COLOURS = {
    "VERIFIED": "#1a7f37",
    "SUPPORTED": "#0f7b8a",
    "ANSWERED": "#0a5c9e",
    "INCONCLUSIVE": "#9a6700",
    "NOT SUPPORTED": "#b35900",
    "FAILED": "#cf222e",
    "ERROR": "#8250df",
    "UNDERSPECIFIED": "#6e7781",
    "BLOCKED": "#7d4e00",
}

#: Statuses a dependent claim may build on (as ``theorems.core.model.Status.ok``).
_OK_STATUSES = frozenset(s.value for s in Status if s.ok)

#: Size of one plot, inches (at matplotlib's 72 pt per inch in SVG).
PLOT_SIZE_IN = (4.6, 2.9)
#: Size of the two-panel Monte Carlo plot, inches.
WIDE_PLOT_SIZE_IN = (7.4, 2.9)

_RC = {
    "svg.fonttype": "none",
    "font.size": 8.5,
    "axes.titlesize": 9.0,
    "axes.labelsize": 8.5,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.formatter.use_mathtext": False,
    "text.usetex": False,
    "figure.dpi": 72,
    # A fixed title height spares matplotlib measuring every tick label.
    "axes.titley": 1.01,
    "xtick.major.size": 3.0,
    "ytick.major.size": 3.0,
}

#: Margins of every plot (fractions of the figure); fixed, since automatic
#: layout engines cost more than the drawing itself.
_MARGINS = {"left": 0.14, "right": 0.97, "bottom": 0.16, "top": 0.9, "wspace": 0.3}

#: A log axis whose data spans less than this ratio gets ticks at 1, 2, 5.
LOG_NARROW_RATIO = 100.0

#: Longest case label in a ladder's legend, characters.
LEGEND_LABEL_MAX = 80

#: A plot title longer than this wraps onto more lines, characters.
SPEC_TITLE_CHARS = 64

#: A sweep with at most this many sizes gets a tick at each size.
SIZE_TICKS_MAX = 10

#: Kept out of the SVG: no creator or date (reports diff cleanly), no RDF.
_SVG_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}


class LegendEntry(NamedTuple):
    """One key of a plot's legend: ``line`` is a CSS border style (``solid``,
    ``dashed``, ``dotted``) or ``""`` for markers only; ``marker`` whether
    points are drawn."""

    label: str
    colour: str
    line: str
    marker: bool


@dataclass(frozen=True)
class Plot:
    """One drawn plot: ``svg`` is inline ``<svg>`` markup, or empty with
    ``error`` saying why the data could not be drawn. The legend is kept
    apart, for the page to show as text under the plot: a matplotlib legend
    costs as much as the rest of a small plot."""

    title: str
    source: str
    svg: str = ""
    error: str = ""
    legend: tuple[LegendEntry, ...] = ()


# ---------------------------------------------------------------------------
# matplotlib plumbing


_CANVASES = threading.local()


def _canvas(panels: int, *, wide: bool = False):
    """A figure with ``panels`` axes side by side, reused across plots (one
    per thread): building axes and their ticks costs as much as drawing, so
    each plot clears the artists of the last one instead of starting anew.
    ``wide``: a fresh one-panel figure of the wide size (its tick labels are
    rotated names, which a reused axes would carry over)."""
    from matplotlib.figure import Figure

    if wide:
        fig = Figure(figsize=WIDE_PLOT_SIZE_IN)
        fig.subplots_adjust(**{**_MARGINS, "left": 0.08})
        return fig, tuple(fig.subplots(1, panels, squeeze=False)[0])
    cache = _CANVASES.__dict__.setdefault("figures", {})
    if panels not in cache:
        fig = Figure(figsize=PLOT_SIZE_IN if panels == 1 else WIDE_PLOT_SIZE_IN)
        fig.subplots_adjust(**(_MARGINS if panels == 1 else {**_MARGINS, "left": 0.08}))
        axes = tuple(fig.subplots(1, panels, squeeze=False)[0])
        cache[panels] = (fig, axes)
    fig, axes = cache[panels]
    for ax in axes:
        _reset(ax)
    return fig, axes


def _reset(ax) -> None:
    """Clear what a plot drew on ``ax``, keeping the axes and their ticks."""
    for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.texts, *ax.images]:
        artist.remove()
    ax.containers.clear()
    legend = ax.get_legend()
    if legend is not None:
        legend.remove()
    ax.set_prop_cycle(None)
    ax.set_xscale("linear")
    ax.set_yscale("linear")
    ax.set_title("")
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.relim()
    ax.autoscale(True)


def _plain_ticks(ax, *, x_log: bool, y_log: bool, integer_x: bool = False) -> None:
    """Few ticks with plain-text labels (tick artists and mathtext are the
    slowest part of a small plot) and no minor ticks on log axes; a log axis
    spanning under two decades gets ticks at 1, 2 and 5 of each decade so
    that it has labels at all. Call after the data is plotted."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator

    fmt = FuncFormatter(lambda v, _pos: f"{v:.3g}")
    for axis, log, (lo, hi) in ((ax.xaxis, x_log, ax.dataLim.intervalx), (ax.yaxis, y_log, ax.dataLim.intervaly)):
        if log:
            narrow = lo > 0 and math.isfinite(hi / lo) and hi / lo < LOG_NARROW_RATIO
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if narrow else (1.0,), numticks=6))
            axis.set_minor_locator(NullLocator())
        else:
            axis.set_major_locator(MaxNLocator(nbins=5, integer=integer_x and axis is ax.xaxis))
        axis.set_major_formatter(fmt)


_SVG_CLEAN = [
    (re.compile(r"<\?xml[^>]*\?>\s*"), ""),
    (re.compile(r"<!DOCTYPE[^>]*>\s*", re.S), ""),
    (re.compile(r"<!--.*?-->\s*", re.S), ""),
    (re.compile(r"<metadata>.*?</metadata>\s*", re.S), ""),
    # Inline SVG in HTML gets its namespaces from the parser; dropping the
    # declarations leaves the file without a single URL.
    (re.compile(r'\s+xmlns(:\w+)?="[^"]*"'), ""),
    # Group ids (figure_1, axes_1, ...) repeat in every plot; ids must be
    # unique in a page. Clip paths and markers keep theirs (salted, unique).
    (re.compile(r'<g id="[^"]*"'), "<g"),
]


def _to_svg(fig, salt: str) -> str:
    """The figure as inline SVG markup. ``salt`` makes the ids of clip paths
    and markers unique within the HTML page, and deterministic."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "none"}):
        # "tight": the saved box holds every label, however long its ticks.
        fig.savefig(buf, format="svg", metadata=_SVG_METADATA, bbox_inches="tight", pad_inches=0.04)
    svg = buf.getvalue()
    for pattern, repl in _SVG_CLEAN:
        svg = pattern.sub(repl, svg)
    # Scale with the page: keep the viewBox, drop the fixed size.
    svg = re.sub(r'<svg width="[^"]*" height="[^"]*"', '<svg class="plot" role="img"', svg, count=1)
    return svg.strip()


def _draw(title: str, source: str, salt: str, build) -> Plot:
    """Run ``build() -> Figure`` and render it; a drawing error becomes a
    Plot carrying the error, never an exception out of the report."""
    import matplotlib

    try:
        with matplotlib.rc_context(_RC):
            fig = build()
            svg = _to_svg(fig, salt)
            legend = _legend(fig)
        return Plot(title, source, svg=svg, legend=legend)
    except Exception as exc:  # noqa: BLE001 - a bad plot must not break a report
        return Plot(title, source, error=f"{type(exc).__name__}: {exc}")


_DASHES = {"-": "solid", "--": "dashed", "-.": "dashed", ":": "dotted"}


def _legend(fig) -> tuple[LegendEntry, ...]:
    """The labelled artists of every axes of ``fig``, once per label."""
    from matplotlib.colors import to_hex

    out: dict[str, LegendEntry] = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            line = handle[0] if isinstance(handle, tuple) else handle  # an errorbar container
            if label in out or not hasattr(line, "get_linestyle"):
                continue
            out[label] = LegendEntry(label, to_hex(line.get_color()), _DASHES.get(line.get_linestyle(), ""),
                                     line.get_marker() not in ("None", "", " ", None))
    return tuple(out.values())


def _yerr(yerr: Any, n: int, label: str) -> np.ndarray:
    """Error bars of a series: ``n`` symmetric half-widths, or ``[lower, upper]``
    (two lists of ``n``) for an asymmetric band such as an interquartile range."""
    import numpy as np

    if len(yerr) == 2 and all(isinstance(e, (list, tuple)) for e in yerr):
        arr = np.array([_floats(yerr[0]), _floats(yerr[1])])
    else:
        arr = np.array(_floats(yerr))
    if arr.shape not in ((n,), (2, n)):
        raise ValueError(f"series {label!r}: yerr must have {n} values or two lists of {n}, got shape {arr.shape}")
    return np.abs(arr)


def _floats(values: Iterable[Any]) -> list[float]:
    """Numbers from JSON (non-finite numbers arrive as strings like "nan")."""
    out = []
    for v in values:
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            out.append(math.nan)
    return out


# ---------------------------------------------------------------------------
# one builder per kind of data


def _close(a: float, b: float) -> bool:
    """Two reported numbers agree (to the printing precision of a report)."""
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= 1e-6 * (1 + abs(b))


def _axis_title(ev: dict) -> str:
    """The name of the swept figure: ``data["figure_label"]``, else the
    label the check gave the sweep (the detail up to its first colon)."""
    data = ev.get("data") or {}
    if data.get("figure_label"):
        return str(data["figure_label"])
    head = str(ev.get("detail") or "").split(": ", 1)[0]
    return head if 0 < len(head) <= 48 else "figure per size"


def _wrap(text: str, width: int = 62) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text


def simulation_mode(ev: dict) -> str:
    """What a sweep's criterion judged, read off its record: ``"slope"``
    (the figure is the log-log slope of the swept figures), ``"extreme"``
    (the figure is their largest, or for ``>=`` smallest, value),
    ``"drift"`` (``data["drift"]``: a slope with a confidence bound),
    ``"loglog-fit"`` (``data["fitted_loglog_coefficient"]``: the
    coefficient of a second-order fit) or ``"other"``."""
    import numpy as np

    data = ev.get("data") or {}
    fig = _floats([ev.get("figure")])[0]
    sizes = data.get("sizes") or []
    ys = np.array(_floats(data.get("figures") or []))
    numeric = bool(sizes) and all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in sizes)
    if isinstance(data.get("drift"), dict) and "slope" in data["drift"]:
        return "drift"
    if "fitted_loglog_coefficient" in data and numeric:
        return "loglog-fit"
    if numeric and ys.size >= 2 and np.all(np.isfinite(ys)) and np.all(ys > 0) and all(s > 0 for s in sizes):
        slope = float(np.polyfit(np.log(np.array(sizes, dtype=float)), np.log(ys), 1)[0])
        if _close(slope, fig):
            return "slope"
    finite = ys[np.isfinite(ys)]
    if finite.size and math.isfinite(fig):
        extreme = float(finite.min() if ev.get("comparison") in (">=", ">") else finite.max())
        if _close(extreme, fig):
            return "extreme"
    return "other"


def _simulation(ev: dict, salt: str) -> Plot:
    data = ev["data"]
    mode = simulation_mode(ev)
    op = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}.get(ev.get("comparison") or "<=", "≤")
    fig_v, thr = _floats([ev.get("figure")])[0], _floats([ev.get("threshold")])[0]
    judged = {
        "slope": "log-log slope of the swept figure",
        "extreme": ("smallest" if op in ("≥", ">") else "largest") + " value over the sweep",
        "drift": "upper confidence bound of the slope",
        "loglog-fit": "fitted coefficient of log log n",
        "other": "criterion figure",
    }[mode]
    title = (f"{ev['check']}: {judged} {fig_v:.3g} (need {op} {thr:.3g}). {ev.get('detail') or ''}")
    size_name = str(data.get("size_label") or "swept size")

    def build():
        import numpy as np

        sizes_raw = list(data["sizes"])
        ys = np.array(_floats(data["figures"]))
        numeric = all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in sizes_raw)
        xs = np.array([float(s) for s in sizes_raw]) if numeric else np.arange(len(sizes_raw), dtype=float)
        finite = np.isfinite(xs) & np.isfinite(ys)
        fig, (ax,) = _canvas(1)
        x_log = y_log = False
        if mode == "slope":
            x_log = y_log = True
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.plot(xs, ys, "o", color="#0969da", ms=4.5, label="measured", zorder=3)
            lx = np.log(xs)
            slope, icpt = np.polyfit(lx, np.log(ys), 1)
            grid = np.array([xs.min(), xs.max()])
            ax.plot(grid, np.exp(icpt) * grid**slope, "-", color="#1f2328", lw=1.1,
                    label=f"fit, slope {slope:.3g} (the figure)")
            if math.isfinite(thr):
                cx, cy = float(np.mean(lx)), float(np.mean(np.log(ys)))
                ax.plot(grid, np.exp(cy + thr * (np.log(grid) - cx)), "--", color="#cf222e", lw=1.0,
                        label=f"slope {thr:.3g} (the bound: need {op})")
            ax.set_ylabel(_axis_title(ev))
        elif mode == "extreme":
            ax.plot(xs[finite], ys[finite], "o-", color="#0969da", ms=4, lw=1.0, label="per size", zorder=3)
            worst = int(np.nanargmin(np.where(finite, ys, np.nan)) if op in ("≥", ">")
                        else np.nanargmax(np.where(finite, ys, np.nan)))
            ax.plot([xs[worst]], [ys[worst]], "o", ms=9, mfc="none", mew=1.5, color="#1f2328",
                    label=f"{'smallest' if op in ('≥', '>') else 'largest'} {ys[worst]:.3g} (the figure)", zorder=4)
            if math.isfinite(thr):
                ax.axhline(thr, ls="--", color="#cf222e", lw=1.0, label=f"threshold: need {op} {thr:.3g}")
                lo, hi = ax.get_ylim()
                lo, hi = min(lo, thr), max(hi, thr)
                pad = 0.08 * (hi - lo or 1.0)
                lo, hi = lo - pad, hi + pad
                if op in ("≤", "<"):
                    ax.axhspan(thr, hi, color="#cf222e", alpha=0.08, lw=0)
                else:
                    ax.axhspan(lo, thr, color="#cf222e", alpha=0.08, lw=0)
                ax.set_ylim(lo, hi)
            ax.set_ylabel(_axis_title(ev))
        elif mode == "drift":
            drift = data["drift"]
            x_log = True
            ax.set_xscale("log")
            ax.plot(xs[finite], ys[finite], "o", color="#0969da", ms=4.5, label="located peak (mean over pools)",
                    zorder=3)
            lx = np.log(xs[finite])
            cx, cy = float(np.mean(lx)), float(np.mean(ys[finite]))
            grid = np.linspace(lx.min(), lx.max(), 20)
            slope = float(drift["slope"])
            ax.plot(np.exp(grid), cy + slope * (grid - cx), "-", color="#1f2328", lw=1.1,
                    label=f"fitted slope against log size {slope:.3g} (all pools)")
            if "upper_bound" in drift:
                ub = float(drift["upper_bound"])
                ax.plot(np.exp(grid), cy + ub * (grid - cx), "--", color="#cf222e", lw=1.0,
                        label=f"confidence bound {ub:.3g} (the figure: need {op} {thr:.3g})")
            ax.set_ylabel(str(data.get("figure_label") or "located peak per size"))
        elif mode == "loglog-fit":
            nc = ys
            ok = finite & (nc > 1)
            d = xs[ok]
            xv = np.log(np.log(nc[ok]))
            yv = d**2 / nc[ok] - 2 * np.log(nc[ok])
            ax.plot(xv, yv, "o", color="#0969da", ms=4.5, label="measured", zorder=3)
            a = float(data["fitted_loglog_coefficient"])
            b = float(data.get("fitted_intercept", float(np.mean(yv) - a * np.mean(xv))))
            grid = np.array([xv.min(), xv.max()])
            ax.plot(grid, a * grid + b, "-", color="#1f2328", lw=1.1, label=f"fit, coefficient {a:.3g} (the figure)")
            if data.get("conjectured_loglog_coefficient") is not None:
                c = float(data["conjectured_loglog_coefficient"])
                ax.plot(grid, c * (grid - np.mean(xv)) + np.mean(yv), "--", color="#6e7781", lw=1.0,
                        label=f"conjectured coefficient {c:.3g}")
            ax.set_xlabel("log log n_c")
            ax.set_ylabel("d^2 / n_c - 2 log n_c")
        else:
            ax.plot(xs[finite], ys[finite], "o-", color="#0969da", ms=4, lw=1.0, label="per size")
            ax.set_ylabel(_axis_title(ev))
        _plain_ticks(ax, x_log=x_log, y_log=y_log)
        if mode != "loglog-fit":
            if not numeric:
                ax.set_xticks(xs, [str(s) for s in sizes_raw])
            elif len(xs) <= SIZE_TICKS_MAX:
                ax.set_xticks(xs[finite], [f"{v:g}" for v in xs[finite]])
            ax.set_xlabel(size_name)
        ax.set_title(f"{ev['check']} ({ev['status'].replace('_', ' ')})")
        return fig

    return _draw(title, "simulation", salt, build)


#: Monte Carlo plots name each quantity on the x axis up to this many.
MC_NAMED_TICKS_MAX = 24


def _montecarlo(ev: dict, salt: str) -> Plot:
    from theorems.core.tolerance import THRESHOLD

    data = ev["data"]
    title = (f"{ev['check']}: standardised error z = (mean - claimed) / standard error of each quantity, "
             f"{ev['cases']} samples, against the ± critical z of the check (Bonferroni over the quantities)")

    def build():
        import numpy as np

        mean = np.array(_floats(data["mean"]))
        claimed = np.array(_floats(data["claimed"]))
        se = np.array(_floats(data["standard_error"]))
        if data.get("z") is not None and len(data["z"]) == mean.size:
            z = np.array(_floats(data["z"]))
        else:  # judged as the checker judges: deviations at rounding level count as 0
            dev = mean - claimed
            rounding = THRESHOLD * np.finfo(float).eps * (1 + np.abs(claimed))
            dev = np.where(np.abs(dev) <= rounding, 0.0, dev)
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.where(se > 0, dev / se, np.where(dev == 0, 0.0, np.inf * np.sign(dev)))
        names = [str(n) for n in data.get("names") or []]
        if len(names) != mean.size:
            names = [f"q{i}" for i in range(mean.size)]
        crit = _floats([ev.get("threshold")])[0]
        idx = np.arange(mean.size)
        fig, (ax,) = _canvas(1, wide=True)
        top = max(crit * 1.3 if math.isfinite(crit) else 3.0, 1.0)
        finite_z = z[np.isfinite(z)]
        if finite_z.size:
            top = max(top, min(float(np.abs(finite_z).max()) * 1.1, 4 * top))
        shown = np.clip(np.where(np.isfinite(z), z, np.sign(z) * top), -top, top)
        over = np.abs(z) > crit if math.isfinite(crit) else np.zeros(z.shape, dtype=bool)
        if math.isfinite(crit):
            ax.axhspan(-crit, crit, color="#2da44e", alpha=0.10, lw=0)
            ax.axhline(crit, ls="--", color="#cf222e", lw=0.9, label=f"± critical z {crit:.3g}")
            ax.axhline(-crit, ls="--", color="#cf222e", lw=0.9)
        ax.axhline(0, color="#6e7781", lw=0.6)
        ax.plot(idx[~over], shown[~over], "o", ms=3.5, color="#0969da", label="z of a quantity", zorder=3)
        if over.any():
            ax.plot(idx[over], shown[over], "D", ms=5, color="#cf222e", label="beyond the critical z", zorder=4)
        ax.set_ylim(-top, top)
        ax.set_xlim(-0.7, mean.size - 0.3)
        _plain_ticks(ax, x_log=False, y_log=False, integer_x=True)
        if mean.size <= MC_NAMED_TICKS_MAX:
            ax.set_xticks(idx, names, rotation=40 if max(len(n) for n in names) > 3 else 0,
                          ha="right" if max(len(n) for n in names) > 3 else "center")
            ax.set_xlabel("quantity")
        else:
            ax.set_xlabel(f"quantity (index; the {mean.size} names are in report.json)")
        ax.set_ylabel("z (standard errors)")
        ax.set_title(f"{ev['check']}: {mean.size} quantities, {ev['cases']} samples")
        return fig

    return _draw(title, "montecarlo", salt, build)


def _ladder_residuals(data: dict) -> tuple[list[float], dict[str, list[float]]]:
    ladder = _floats(data["ladder"])
    table = {str(k): _floats(v) for k, v in data["residuals"].items()}
    return ladder, table


def ladder_all_zero(data: dict) -> bool:
    """True when every residual of a precision ladder is exactly zero."""
    _, table = _ladder_residuals(data)
    return all(v == 0 for row in table.values() for v in row)


def _decade_ticks(axis, lo: float, hi: float) -> None:
    """Ticks at round decades of a log axis: every decade over a short
    span, else every 2nd, 5th, 10th, 20th, ... so that about five show."""
    from matplotlib.ticker import FixedLocator, NullLocator

    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    span = max(1, b - a)
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000) if span / s <= 6)
    first = math.ceil(a / step) * step
    axis.set_major_locator(FixedLocator([10.0 ** k for k in range(first, b + 1, step)]))
    axis.set_minor_locator(NullLocator())


def _ladder(ev: dict, salt: str) -> Plot:
    from theorems.core.tolerance import THRESHOLD

    data = ev["data"]
    title = (f"{ev['check']}: residual against working precision, per case; the band runs from the rounding "
             f"unit 10^-digits to the threshold {THRESHOLD:g} x 10^-digits (at unit scale: the check scales "
             "the threshold by each case's size and conditioning)")

    def build():
        import numpy as np

        ladder, table = _ladder_residuals(data)
        digits = np.array(ladder)
        fig, (ax,) = _canvas(1)
        ax.set_yscale("log")
        unit = 10.0 ** -digits
        ax.fill_between(digits, unit, THRESHOLD * unit, color="#2da44e", alpha=0.15, lw=0, zorder=1)
        markers = "osD^v<>ph"
        values = [*unit, *(THRESHOLD * unit)]
        for n, (label, row) in enumerate(table.items()):
            y = np.array(row, dtype=float)
            keep = np.isfinite(y) & (y > 0)
            zeros = int(np.sum(y == 0))
            name = label if len(label) <= LEGEND_LABEL_MAX else label[: LEGEND_LABEL_MAX - 3] + "..."
            if zeros:
                name += f" ({zeros} rung{'s' if zeros > 1 else ''} exactly 0)"
            if keep.any():
                ax.plot(digits[keep], y[keep], "-" + markers[n % len(markers)], ms=3.5, lw=1.0, label=name, zorder=3)
                values += list(y[keep])
            else:
                ax.plot([], [], markers[n % len(markers)], label=name)
        ax.plot(digits, unit, ":", color="#1f2328", lw=1.3, label="rounding unit 10^-digits", zorder=5)
        ax.plot(digits, THRESHOLD * unit, "--", color="#cf222e", lw=1.1, label=f"threshold {THRESHOLD:g} x 10^-digits",
                zorder=5)
        _plain_ticks(ax, x_log=False, y_log=True)
        positive = [v for v in values if v > 0 and math.isfinite(v)]
        _decade_ticks(ax.yaxis, min(positive), max(positive))
        ax.set_xticks(digits, [f"{d:g}" for d in digits])
        ax.set_xlabel("working precision, decimal digits")
        ax.set_ylabel("residual")
        ax.set_title(f"{ev['check']} ({ev['status']})")
        return fig

    return _draw(title, "ladder", salt, build)


def spec_plot(spec: dict, *, salt: str, default_title: str = "plot") -> Plot:
    """Draw a ``data["plot"]`` spec (docs/writing-claims.md, rule 7):
    ``{"title", "x_label", "y_label", "xscale", "yscale", "series": [{"label",
    "x", "y", "style": "line"|"points", "yerr"?}], "hlines": [{"y", "label"}],
    "vlines": [{"x", "label"}]}``."""
    title = str(spec.get("title") or default_title) if isinstance(spec, dict) else default_title

    def build():
        import numpy as np

        if not isinstance(spec, dict):
            raise TypeError(f"a plot spec must be an object, got {type(spec).__name__}")
        series = spec.get("series")
        if not isinstance(series, list) or not series:
            raise ValueError("a plot spec needs a non-empty list 'series'")
        fig, (ax,) = _canvas(1)
        xscale = spec.get("xscale", "linear")
        yscale = spec.get("yscale", "linear")
        for name, scale in (("xscale", xscale), ("yscale", yscale)):
            if scale not in ("linear", "log", "symlog"):
                raise ValueError(f"{name} must be linear, log or symlog, got {scale!r}")
        ax.set_xscale(xscale)
        ax.set_yscale(yscale)
        xs = {v for s in series for v in _floats(s.get("x") or []) if math.isfinite(v)}
        if len(xs) == 1:  # one abscissa: matplotlib would put its only tick on the frame's edge, half cut off
            (x0,) = xs
            ax.set_xlim(x0 * 0.8, x0 * 1.25) if x0 > 0 else ax.set_xlim(x0 - 1, x0 + 1)
        for s in series:
            x = np.array(_floats(s["x"]))
            y = np.array(_floats(s["y"]))
            if x.shape != y.shape:
                raise ValueError(f"series {s.get('label', '')!r}: x has {x.size} values, y has {y.size}")
            style = s.get("style", "line")
            if style not in ("line", "points"):
                raise ValueError(f"series style must be 'line' or 'points', got {style!r}")
            fmt = "o-" if style == "line" else "o"
            if s.get("yerr") is not None:
                ax.errorbar(x, y, yerr=_yerr(s["yerr"], y.size, s.get("label", "")), fmt=fmt, ms=3.5,
                            capsize=2, label=s.get("label"))
            else:
                ax.plot(x, y, fmt, ms=3.5, label=s.get("label"))
        for h in spec.get("hlines", []) or []:
            ax.axhline(float(h["y"]), ls="--", color="#cf222e", lw=0.9, label=h.get("label"))
        for v in spec.get("vlines", []) or []:
            ax.axvline(float(v["x"]), ls=":", color="#6e7781", lw=0.9, label=v.get("label"))
        _plain_ticks(ax, x_log=xscale == "log", y_log=yscale == "log")
        ax.set_xlabel(str(spec.get("x_label", "")))
        ax.set_ylabel(str(spec.get("y_label", "")))
        ax.set_title(_wrap(title, SPEC_TITLE_CHARS))
        return fig

    return _draw(title, "spec", salt, build)


def plot_sources(ev: dict) -> list[str]:
    """Which plots :func:`evidence_plots` draws for an evidence record (JSON
    form), without drawing them: some of ``"simulation"``, ``"montecarlo"``,
    ``"ladder"`` (not for a ladder of exact zeros), then ``"spec"``."""
    data = ev.get("data") or {}
    kind = ev.get("kind")
    out = []
    if kind == "simulation" and {"sizes", "figures"} <= set(data) and len(data["sizes"]) >= 2:
        out.append("simulation")
    elif kind == "montecarlo" and {"mean", "claimed", "standard_error"} <= set(data) and data["mean"]:
        out.append("montecarlo")
    elif kind == "precise" and {"ladder", "residuals"} <= set(data) and data["residuals"]:
        try:
            zero = ladder_all_zero(data)
        except (TypeError, ValueError, AttributeError):
            zero = False
        if not zero:
            out.append("ladder")
    if "plot" in data:
        out.append("spec")
    return out


def evidence_plots(ev: dict, *, salt: str) -> list[Plot]:
    """Every plot of one evidence record (JSON form), in the order of
    :func:`plot_sources`: the standard plot of its kind, then its explicit
    ``data["plot"]`` spec."""
    draw = {
        "simulation": lambda: _simulation(ev, f"{salt}:sim"),
        "montecarlo": lambda: _montecarlo(ev, f"{salt}:mc"),
        "ladder": lambda: _ladder(ev, f"{salt}:ladder"),
        "spec": lambda: spec_plot((ev.get("data") or {})["plot"], salt=f"{salt}:spec",
                                  default_title=ev.get("check", "plot")),
    }
    return [draw[source]() for source in plot_sources(ev)]


#: Below this many records to draw, a report draws its plots in its own process (forking costs more
#: than it saves); at or above it, on several cores, :func:`draw_all` spreads them over forked processes.
PARALLEL_PLOTS_MIN = 24


def _draw_one(job: tuple[dict, str]) -> list[Plot]:
    ev, salt = job
    return evidence_plots(ev, salt=salt)


def draw_all(jobs: Sequence[tuple[dict, str]], processes: int | None = None) -> list[list[Plot]]:
    """:func:`evidence_plots` of each ``(evidence record, salt)``, in order.
    With :data:`PARALLEL_PLOTS_MIN` records or more and several usable cores
    (``processes``: how many; default, the cores this process may use), they
    are drawn in forked processes, one per core: the same plots (each is a
    function of its record and salt alone), in a fraction of the time that a
    report of the whole catalogue spends drawing them one after the other.
    Where forking is not possible or the pool fails, they are drawn here.

    >>> [len(p) for p in draw_all([({"kind": "precise", "data": {}}, "a")])]
    [0]
    """
    import os

    from theorems.scale.supervise import default_jobs

    jobs = list(jobs)
    n = min(default_jobs() if processes is None else processes, len(jobs))
    if n > 1 and len(jobs) >= PARALLEL_PLOTS_MIN and hasattr(os, "fork"):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        try:  # forked: the processes start without importing anything; each record travels once
            with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork")) as pool:
                return list(pool.map(_draw_one, jobs, chunksize=max(1, len(jobs) // (4 * n))))
        except (OSError, BrokenProcessPool):
            pass  # drawn here instead
    return [evidence_plots(ev, salt=salt) for ev, salt in jobs]


# ---------------------------------------------------------------------------
# the dependency graph

#: Geometry of the dependency graph, in SVG user units (px).
GRAPH_NODE_HEIGHT = 22
GRAPH_ROW_GAP = 6
GRAPH_COLUMN_GAP = 24
GRAPH_CHAR_WIDTH = 7.0
GRAPH_MARGIN = 12
#: The gap between topic lanes.
GRAPH_LANE_GAP = 10
#: Width of the lane titles on the left.
GRAPH_LANE_LABEL_WIDTH = 70
#: Width the graph is laid out for (it scales with the page, and zooms).
GRAPH_WIDTH = 1240

#: The shape of a claim's node, by kind (the page's legend shows them).
KIND_SHAPES = {
    "identity": "rectangle",
    "inequality": "pill",
    "expectation": "hexagon",
    "approximation": "parallelogram",
    "asymptotic": "arrow",
    "conjecture": "notched",
    "counterexample": "octagon",
    "question": "diamond-ends",
    "underspecified": "dashed",
}


def shape_path(shape: str, x: float, y: float, w: float, h: float) -> str:
    """SVG path data of a node shape in the box ``(x, y, w, h)``."""
    s = h / 2  # slant / point depth
    r = x + w
    b = y + h
    m = y + h / 2
    if shape == "pill":
        return (f"M{x + s:.1f},{y:.1f} H{r - s:.1f} A{s:.1f},{s:.1f} 0 0 1 {r - s:.1f},{b:.1f} "
                f"H{x + s:.1f} A{s:.1f},{s:.1f} 0 0 1 {x + s:.1f},{y:.1f} Z")
    if shape == "hexagon":
        return f"M{x + s:.1f},{y:.1f} H{r - s:.1f} L{r:.1f},{m:.1f} L{r - s:.1f},{b:.1f} H{x + s:.1f} L{x:.1f},{m:.1f} Z"
    if shape == "parallelogram":
        return f"M{x + s:.1f},{y:.1f} H{r:.1f} L{r - s:.1f},{b:.1f} H{x:.1f} Z"
    if shape == "arrow":
        return f"M{x:.1f},{y:.1f} H{r - s:.1f} L{r:.1f},{m:.1f} L{r - s:.1f},{b:.1f} H{x:.1f} Z"
    if shape == "notched":
        return f"M{x:.1f},{y:.1f} H{r:.1f} L{r - s:.1f},{m:.1f} L{r:.1f},{b:.1f} H{x:.1f} L{x + s:.1f},{m:.1f} Z"
    if shape == "octagon":
        c = h / 3
        return (f"M{x + c:.1f},{y:.1f} H{r - c:.1f} L{r:.1f},{y + c:.1f} V{b - c:.1f} L{r - c:.1f},{b:.1f} "
                f"H{x + c:.1f} L{x:.1f},{b - c:.1f} V{y + c:.1f} Z")
    if shape == "diamond-ends":
        return f"M{x + s:.1f},{y:.1f} H{r - s:.1f} L{r:.1f},{m:.1f} L{r - s:.1f},{b:.1f} H{x + s:.1f} L{x:.1f},{m:.1f} Z"
    return f"M{x:.1f},{y:.1f} H{r:.1f} V{b:.1f} H{x:.1f} Z"  # rectangle, dashed


def topic(claim_id: str) -> str:
    """A claim's topic: its id up to the first dot (``recall.snr`` -> ``recall``)."""
    return claim_id.split(".", 1)[0]


def _depths(claims: Sequence[dict]) -> dict[str, int]:
    known = {c["id"]: c for c in claims}
    depth: dict[str, int] = {}

    def visit(cid: str, stack: tuple[str, ...]) -> int:
        if cid in depth:
            return depth[cid]
        if cid in stack:  # a cycle cannot be registered; stay finite anyway
            return 0
        deps = [d for d in known[cid].get("depends_on", []) if d in known]
        depth[cid] = 0 if not deps else 1 + max(visit(d, stack + (cid,)) for d in deps)
        return depth[cid]

    for c in claims:
        visit(c["id"], ())
    return depth


def ancestors(claims: Sequence[dict]) -> dict[str, set[str]]:
    """Every claim's transitive dependencies (among ``claims``)."""
    known = {c["id"]: [d for d in c.get("depends_on", []) if d != c["id"]] for c in claims}
    memo: dict[str, set[str]] = {}

    def visit(cid: str, stack: frozenset) -> set[str]:
        if cid in memo:
            return memo[cid]
        out: set[str] = set()
        for d in known.get(cid, []):
            out.add(d)
            if d in known and d not in stack:
                out |= visit(d, stack | {cid})
        memo[cid] = out
        return out

    for c in claims:
        visit(c["id"], frozenset())
    return memo


def chain_status(claims: Sequence[dict]) -> dict[str, str]:
    """Per claim: ``"verified"`` when it and everything it depends on
    (transitively) is VERIFIED; ``"ok"`` when they all have a status a
    dependent may build on (VERIFIED, SUPPORTED, ANSWERED); ``"open"``
    otherwise (a dependency outside the run counts as open)."""
    status = {c["id"]: c["status"] for c in claims}
    out = {}
    for cid, deps in ancestors(claims).items():
        chain = [status.get(d) for d in deps] + [status[cid]]
        if all(s == "VERIFIED" for s in chain):
            out[cid] = "verified"
        elif all(s in _OK_STATUSES for s in chain):
            out[cid] = "ok"
        else:
            out[cid] = "open"
    return out


def dependency_graph_svg(claims: Sequence[dict], *, link_prefix: str = "claim-") -> str:
    """The claims' dependency graph as inline SVG.

    One band per topic (the id's prefix), in catalogue order; within a band
    the claims read like text, left to right and top to bottom, each after
    every claim of its topic it depends on. Nodes are coloured by status, shaped by
    kind (:data:`KIND_SHAPES`) and linked to ``#<link_prefix><id>``; a ring
    marks a claim verified together with everything it depends on
    (:func:`chain_status`). An edge goes from each dependency to its
    dependent, drawn over the nodes (thin, translucent), in the
    dependency's colour when it did not pass. Every node carries
    ``data-id``, ``data-deps`` and ``data-chain`` for the page's script
    (zoom, pan, highlighting of what a claim uses and what uses it).
    """
    if not claims:
        return ""
    by_id = {c["id"]: c for c in claims}
    depth = _depths(claims)
    chain = chain_status(claims)
    order = {c["id"]: n for n, c in enumerate(claims)}
    lanes: dict[str, list[str]] = {}
    for c in claims:
        lanes.setdefault(topic(c["id"]), []).append(c["id"])
    width = max(len(cid) for cid in by_id) * GRAPH_CHAR_WIDTH + 30
    step_x = width + GRAPH_COLUMN_GAP
    step_y = GRAPH_NODE_HEIGHT + GRAPH_ROW_GAP
    x0 = GRAPH_MARGIN + GRAPH_LANE_LABEL_WIDTH
    per_row = max(1, int((GRAPH_WIDTH - x0 - GRAPH_MARGIN + GRAPH_COLUMN_GAP) // step_x))
    xy: dict[str, tuple[float, float]] = {}
    lane_boxes = []
    y = GRAPH_MARGIN
    for name, ids in lanes.items():
        members = set(ids)
        local = _depths([{**by_id[c], "depends_on": [d for d in by_id[c].get("depends_on", []) if d in members]}
                         for c in ids])
        ranked = sorted(ids, key=lambda c: (local[c], depth[c], order[c]))
        rows = math.ceil(len(ranked) / per_row)
        for n, cid in enumerate(ranked):
            row, col = divmod(n, per_row)
            xy[cid] = (x0 + col * step_x, y + 4 + row * step_y)
        height = rows * step_y - GRAPH_ROW_GAP + 8
        lane_boxes.append((name, y, height, len(ids)))
        y += height + GRAPH_LANE_GAP
    total_w = x0 + min(per_row, max(len(v) for v in lanes.values())) * step_x - GRAPH_COLUMN_GAP + GRAPH_MARGIN
    total_h = y - GRAPH_LANE_GAP + GRAPH_MARGIN

    esc = html.escape
    parts = [
        f'<svg class="depgraph" viewBox="0 0 {total_w:.0f} {total_h:.0f}" data-width="{total_w:.0f}" '
        f'data-height="{total_h:.0f}" role="img" aria-label="dependency graph of the claims, by topic">',
        '<defs><marker id="depgraph-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#57606a"/></marker></defs>',
        '<g class="viewport">',
    ]
    for n, (name, top, height, count) in enumerate(lane_boxes):
        parts.append(
            f'<g class="lane" data-topic="{esc(name)}"><rect class="lane-bg{" odd" if n % 2 else ""}" '
            f'x="{GRAPH_MARGIN / 2:.1f}" y="{top:.1f}" width="{total_w - GRAPH_MARGIN:.1f}" height="{height:.1f}" '
            f'rx="6"/><text class="lane-title" x="{GRAPH_MARGIN:.1f}" y="{top + 17:.1f}">{esc(name)} '
            f'({count})</text></g>')
    for c in claims:
        cid = c["id"]
        cx, cy = xy[cid]
        colour = STATUS_COLOURS.get(c["status"], "#6e7781")
        kind = c.get("kind", "")
        shape = KIND_SHAPES.get(kind, "rectangle")
        deps = " ".join(d for d in c.get("depends_on", []) if d in by_id)
        mark = ""
        if chain[cid] == "verified":
            mark = (f'<path class="chain-mark" d="{shape_path(shape, cx - 2.5, cy - 2.5, width + 5, GRAPH_NODE_HEIGHT + 5)}"/>'
                    f'<text class="chain-tick" x="{cx + width - 14:.1f}" y="{cy + GRAPH_NODE_HEIGHT / 2 + 4:.1f}">'
                    "\u2713</text>")
        parts.append(
            f'<a href="#{esc(link_prefix + cid)}" class="node" data-id="{esc(cid)}" data-deps="{esc(deps)}" '
            f'data-status="{esc(c["status"])}" data-kind="{esc(kind)}" data-shape="{shape}" '
            f'data-chain="{chain[cid]}" data-topic="{esc(topic(cid))}">'
            f'<title>{esc(cid)}: {esc(c["status"])} ({esc(kind)}). {esc(c.get("title", ""))}'
            f'{" Verified with everything it depends on." if chain[cid] == "verified" else ""}</title>'
            f'{mark}<path class="shape{" dashed" if shape == "dashed" else ""}" '
            f'd="{shape_path(shape, cx, cy, width, GRAPH_NODE_HEIGHT)}" fill="{colour}"/>'
            f'<text x="{cx + GRAPH_NODE_HEIGHT / 2 + 3:.1f}" y="{cy + GRAPH_NODE_HEIGHT / 2 + 4:.1f}">{esc(cid)}</text></a>'
        )
    for c in claims:
        cx, cy = xy[c["id"]]
        for d in c.get("depends_on", []):
            if d not in xy:
                continue
            dx, dy = xy[d]
            ax, ay = dx + width, dy + GRAPH_NODE_HEIGHT / 2
            bx, by = cx, cy + GRAPH_NODE_HEIGHT / 2
            bend = max(24.0, (bx - ax) / 2)
            dep_status = by_id[d]["status"]
            colour = "#57606a" if dep_status in _OK_STATUSES else STATUS_COLOURS.get(dep_status, "#57606a")
            parts.append(
                f'<path class="edge" data-from="{esc(d)}" data-to="{esc(c["id"])}" d="M{ax:.1f},{ay:.1f} '
                f'C{ax + bend:.1f},{ay:.1f} {bx - bend:.1f},{by:.1f} {bx:.1f},{by:.1f}" stroke="{colour}" '
                'marker-end="url(#depgraph-arrow)"/>'
            )
    parts.append("</g></svg>")
    return "".join(parts)
