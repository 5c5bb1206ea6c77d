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

__all__ = [
    "LegendEntry",
    "Plot",
    "STATUS_COLOURS",
    "dependency_graph_svg",
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

#: Statuses a dependent claim may build on (as ``theorems.model.Status.ok``).
_OK_STATUSES = ("VERIFIED", "SUPPORTED", "ANSWERED")

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


def _canvas(panels: int):
    """A figure with ``panels`` axes side by side, reused across plots (one
    per thread): building axes and their ticks costs as much as drawing, so
    each plot clears the artists of the last one instead of starting anew."""
    from matplotlib.figure import Figure

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
        fig.savefig(buf, format="svg", metadata=_SVG_METADATA)
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


def _simulation(ev: dict, salt: str) -> Plot:
    data = ev["data"]
    title = f"{ev['check']}: {ev.get('detail') or 'figure against size'}"

    def build():
        import numpy as np

        sizes_raw = list(data["sizes"])
        ys = np.array(_floats(data["figures"]))
        numeric = all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in sizes_raw)
        xs = np.array([float(s) for s in sizes_raw]) if numeric else np.arange(len(sizes_raw), dtype=float)
        finite = np.isfinite(xs) & np.isfinite(ys)
        loglog = numeric and bool(np.all(xs[finite] > 0)) and bool(np.all(ys[finite] > 0)) and finite.sum() >= 2
        fig, (ax,) = _canvas(1)
        ax.plot(xs[finite], ys[finite], "o-", color="#0969da", label="measured")
        if loglog:
            ax.set_xscale("log")
            ax.set_yscale("log")
            slope, icpt = np.polyfit(np.log(xs[finite]), np.log(ys[finite]), 1)
            grid = np.array([xs[finite].min(), xs[finite].max()])
            ax.plot(grid, np.exp(icpt) * grid**slope, "--", color="#6e7781",
                    label=f"log-log fit, slope {slope:.3g}")
        _plain_ticks(ax, x_log=loglog, y_log=loglog)
        if not numeric:
            ax.set_xticks(xs, [str(s) for s in sizes_raw])
        elif len(xs) <= SIZE_TICKS_MAX:
            ax.set_xticks(xs[finite], [f"{v:g}" for v in xs[finite]])
        ax.set_xlabel("size")
        ax.set_ylabel("figure")
        ax.set_title(f"{ev['check']} ({ev['status']})")
        return fig

    return _draw(title, "simulation", salt, build)


def _montecarlo(ev: dict, salt: str) -> Plot:
    from theorems.tolerance import THRESHOLD

    data = ev["data"]
    title = (f"{ev['check']}: per quantity, the measured mean ± 1 standard error beside the claimed expectation "
             "(left) and the deviation in standard errors against the critical z of the check (right)")

    def build():
        import numpy as np

        mean = np.array(_floats(data["mean"]))
        claimed = np.array(_floats(data["claimed"]))
        se = np.array(_floats(data["standard_error"]))
        # Judged as the checker judges: deviations at rounding level count as 0.
        dev = mean - claimed
        rounding = THRESHOLD * np.finfo(float).eps * (1 + np.abs(claimed))
        dev = np.where(np.abs(dev) <= rounding, 0.0, dev)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, dev / se, np.where(dev == 0, 0.0, np.inf))
        z = np.clip(z, -1e3, 1e3)
        idx = np.arange(mean.size)
        fig, (left, right) = _canvas(2)
        left.plot(idx, claimed, "_", ms=9, mew=1.6, color="#6e7781", label="claimed expectation")
        # All error bars as one path broken by NaNs: errorbar() and vlines()
        # write an SVG element per bar.
        left.plot(np.repeat(idx, 3), np.column_stack([mean - se, mean + se, np.full_like(mean, np.nan)]).ravel(),
                  "-", color="#0969da", lw=1.0)
        left.plot(idx, mean, "o", ms=3, color="#0969da", label="measured mean ± 1 s.e.")
        left.set_xlabel("quantity")
        left.set_ylabel("expectation")
        left.set_title(f"{ev['check']}: {mean.size} quantities, {ev['cases']} samples")
        crit = _floats([ev.get("threshold")])[0]
        over = np.abs(z) > crit if math.isfinite(crit) else np.zeros(z.shape, dtype=bool)
        right.plot(idx[~over], z[~over], "o", ms=3, color="#0969da", label="(mean - claimed) / s.e.")
        if over.any():
            right.plot(idx[over], z[over], "o", ms=3.5, color="#cf222e", label="beyond critical z")
        if math.isfinite(crit):
            right.axhline(crit, ls="--", color="#cf222e", lw=0.9, label=f"± critical z {crit:.3g}")
            right.axhline(-crit, ls="--", color="#cf222e", lw=0.9)
        right.axhline(0, color="#6e7781", lw=0.6)
        finite_z = np.abs(z[np.isfinite(z)])
        top = max(crit * 1.15 if math.isfinite(crit) else 1.0, float(finite_z.max()) * 1.1 if finite_z.size else 1.0)
        right.set_ylim(-top, top)
        right.set_xlabel("quantity")
        right.set_ylabel("standardised deviation")
        right.set_title("deviation per quantity")
        for ax in (left, right):
            _plain_ticks(ax, x_log=False, y_log=False, integer_x=True)
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


def _ladder(ev: dict, salt: str) -> Plot:
    data = ev["data"]
    title = (f"{ev['check']}: residual against working precision, per case; dotted: the rounding unit "
             "10^-digits")

    def build():
        import numpy as np

        ladder, table = _ladder_residuals(data)
        digits = np.array(ladder)
        fig, (ax,) = _canvas(1)
        ax.set_yscale("log")
        ax.plot(digits, 10.0 ** -digits, ":", color="#6e7781", lw=1.0, label="10^-digits")
        markers = "osD^v<>ph"
        for n, (label, row) in enumerate(table.items()):
            y = np.array(row, dtype=float)
            keep = np.isfinite(y) & (y > 0)
            zeros = int(np.sum(y == 0))
            name = label if len(label) <= LEGEND_LABEL_MAX else label[: LEGEND_LABEL_MAX - 3] + "..."
            if zeros:
                name += f" ({zeros} rung{'s' if zeros > 1 else ''} exactly 0)"
            if keep.any():
                ax.plot(digits[keep], y[keep], "-" + markers[n % len(markers)], ms=3.5, lw=1.0, label=name)
            else:
                ax.plot([], [], markers[n % len(markers)], label=name)
        _plain_ticks(ax, x_log=False, y_log=True)
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
                ax.errorbar(x, y, yerr=np.array(_floats(s["yerr"])), fmt=fmt, ms=3.5, capsize=2,
                            label=s.get("label"))
            else:
                ax.plot(x, y, fmt, ms=3.5, label=s.get("label"))
        for h in spec.get("hlines", []) or []:
            ax.axhline(float(h["y"]), ls="--", color="#cf222e", lw=0.9, label=h.get("label"))
        for v in spec.get("vlines", []) or []:
            ax.axvline(float(v["x"]), ls=":", color="#6e7781", lw=0.9, label=v.get("label"))
        _plain_ticks(ax, x_log=xscale == "log", y_log=yscale == "log")
        ax.set_xlabel(str(spec.get("x_label", "")))
        ax.set_ylabel(str(spec.get("y_label", "")))
        ax.set_title(title)
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


# ---------------------------------------------------------------------------
# the dependency graph

#: Geometry of the dependency graph, in SVG user units (px).
GRAPH_NODE_HEIGHT = 22
GRAPH_ROW_GAP = 8
GRAPH_COLUMN_GAP = 70
GRAPH_CHAR_WIDTH = 7.0
GRAPH_MAX_ROWS = 22
GRAPH_MARGIN = 12


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


def dependency_graph_svg(claims: Sequence[dict], *, link_prefix: str = "claim-") -> str:
    """The claims' dependency graph as inline SVG: one column per dependency
    depth (a claim sits right of everything it depends on), nodes coloured by
    status and linked to ``#<link_prefix><id>``, an edge from each dependency
    to its dependent (drawn in the dependency's colour when it did not pass).
    Tall layers wrap into several sub-columns.
    """
    if not claims:
        return ""
    by_id = {c["id"]: c for c in claims}
    depth = _depths(claims)
    order = {c["id"]: n for n, c in enumerate(claims)}
    dependents: dict[str, list[str]] = {cid: [] for cid in by_id}
    for c in claims:
        for d in c.get("depends_on", []):
            if d in dependents:
                dependents[d].append(c["id"])
    layers: dict[int, list[str]] = {}
    for c in claims:
        layers.setdefault(depth[c["id"]], []).append(c["id"])
    # Order each layer by the mean position of its dependencies (barycentre),
    # then layer 0 by the mean position of its dependents; claims with no
    # edge at all go last.
    pos: dict[str, float] = {cid: order[cid] for cid in by_id}
    for k in sorted(layers)[1:]:
        layers[k].sort(key=lambda cid: (sum(pos[d] for d in by_id[cid]["depends_on"] if d in pos)
                                        / max(1, len(by_id[cid]["depends_on"])), order[cid]))
        for n, cid in enumerate(layers[k]):
            pos[cid] = n
    if 1 in layers:
        def key0(cid):
            kids = dependents[cid]
            return (0, sum(pos[k] for k in kids) / len(kids), order[cid]) if kids else (1, 0, order[cid])
        layers[0].sort(key=key0)

    width = max(len(cid) for cid in by_id) * GRAPH_CHAR_WIDTH + 16
    step_y = GRAPH_NODE_HEIGHT + GRAPH_ROW_GAP
    xy: dict[str, tuple[float, float]] = {}
    x = GRAPH_MARGIN
    tallest = 0
    for k in sorted(layers):
        ids = layers[k]
        cols = math.ceil(len(ids) / GRAPH_MAX_ROWS)
        rows = math.ceil(len(ids) / cols)
        for n, cid in enumerate(ids):
            col, row = divmod(n, rows)
            xy[cid] = (x + col * (width + GRAPH_COLUMN_GAP / 3), GRAPH_MARGIN + 26 + row * step_y)
        tallest = max(tallest, rows)
        x += cols * width + (cols - 1) * GRAPH_COLUMN_GAP / 3 + GRAPH_COLUMN_GAP
    total_w = x - GRAPH_COLUMN_GAP + GRAPH_MARGIN
    total_h = GRAPH_MARGIN * 2 + 26 + tallest * step_y

    esc = html.escape
    parts = [
        f'<svg class="depgraph" viewBox="0 0 {total_w:.0f} {total_h:.0f}" width="{total_w:.0f}" '
        f'height="{total_h:.0f}" role="img" aria-label="dependency graph of the claims">',
        '<defs><marker id="depgraph-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#8c959f"/></marker></defs>',
    ]
    for k in sorted(layers):
        first = min(xy[cid][0] for cid in layers[k])
        parts.append(f'<text class="layer" x="{first:.1f}" y="{GRAPH_MARGIN + 12}">depth {k}</text>')
    for c in claims:
        cx, cy = xy[c["id"]]
        for d in c.get("depends_on", []):
            if d not in xy:
                continue
            dx, dy = xy[d]
            x0, y0 = dx + width, dy + GRAPH_NODE_HEIGHT / 2
            x1, y1 = cx, cy + GRAPH_NODE_HEIGHT / 2
            bend = max(20.0, (x1 - x0) / 2)
            dep_status = by_id[d]["status"]
            colour = "#8c959f" if dep_status in _OK_STATUSES else STATUS_COLOURS.get(dep_status, "#8c959f")
            parts.append(
                f'<path class="edge" d="M{x0:.1f},{y0:.1f} C{x0 + bend:.1f},{y0:.1f} {x1 - bend:.1f},{y1:.1f} '
                f'{x1:.1f},{y1:.1f}" stroke="{colour}" marker-end="url(#depgraph-arrow)"/>'
            )
    for c in claims:
        cid = c["id"]
        cx, cy = xy[cid]
        colour = STATUS_COLOURS.get(c["status"], "#6e7781")
        parts.append(
            f'<a href="#{esc(link_prefix + cid)}" class="node" data-status="{esc(c["status"])}">'
            f'<title>{esc(cid)}: {esc(c["status"])} ({esc(c.get("kind", ""))}). {esc(c.get("title", ""))}</title>'
            f'<rect x="{cx:.1f}" y="{cy:.1f}" width="{width:.0f}" height="{GRAPH_NODE_HEIGHT}" rx="4" '
            f'fill="{colour}"/>'
            f'<text x="{cx + 8:.1f}" y="{cy + GRAPH_NODE_HEIGHT / 2 + 4:.1f}">{esc(cid)}</text></a>'
        )
    parts.append("</svg>")
    return "".join(parts)
