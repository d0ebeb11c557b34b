"""Shared drawing pieces of tools/plot.py: the paper style (fonts, a grey-scale-safe
palette with markers), axis-scale choice and atomic figure writing."""

import math
import os

import matplotlib

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402  (after use())
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402


# Okabe & Ito (2008) colour-blind-safe palette without black (kept for the averaged model) and
# yellow (too light on white). Markers and dashes carry the distinction into grey-scale prints.
COLOURS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", "h", ">"]
DASHES = ["-", "--", "-.", ":"]
AVG_COLOUR = "#000000"
FRONT_COLOUR = "#555555"

# Figures are drawn at their printed size (inches), so these point sizes are what a reader sees.
SINGLE_SIZE = (6.0, 3.4)
STYLE = {
    "font.size": 10,
    "axes.titlesize": 10.5,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.title_fontsize": 9,
    "legend.framealpha": 0.9,
    "axes.grid": True,
    "grid.color": "#d0d0d0",
    "grid.linewidth": 0.6,
    "grid.linestyle": ":",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.4,
    "lines.markersize": 5,
    "errorbar.capsize": 2.5,
    "savefig.dpi": 200,
    "svg.hashsalt": "dlsim",  # stable SVG ids: the same data gives the same file
}


def series_style(i):
    """Colour, marker and line style of series i; all three cycle with co-prime-ish periods."""
    return {
        "color": COLOURS[i % len(COLOURS)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": DASHES[(i // len(COLOURS)) % len(DASHES)],
    }


def point_style(i):
    """Colour and marker of labelled point i: distinct for the first 60 (colour fastest)."""
    return {"color": COLOURS[i % len(COLOURS)],
            "marker": MARKERS[(i // len(COLOURS)) % len(MARKERS)]}


def blank_figure(size):
    """A constrained-layout Figure in the paper style, with no axes and no pyplot state."""
    matplotlib.rcParams.update(STYLE)
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)  # a renderer for measuring text (label placement)
    return fig


def new_figure(size=SINGLE_SIZE, rows=1, sharex=False):
    """A constrained-layout Figure and its axes (one, or a list for rows > 1)."""
    fig = blank_figure(size)
    axes = fig.subplots(rows, 1, sharex=sharex, squeeze=False)[:, 0]
    return fig, (axes[0] if rows == 1 else list(axes))


def finite(values):
    """The finite floats among values (None and NaN/inf dropped)."""
    return [v for v in values if v is not None and math.isfinite(v)]


def spans_decades(values):
    """True when the positive finite values cover more than a factor of 10."""
    pos = [v for v in finite(values) if v > 0]
    return len(pos) >= 2 and max(pos) / min(pos) > 10


def choose_scale(ax, axis, values):
    """Log scale on axis ('x' or 'y') when values span decades; symlog when zeros are present
    (e.g. a threshold of 0 or a run without communication), linear otherwise."""
    setter = ax.set_xscale if axis == "x" else ax.set_yscale
    vals = finite(values)
    if not spans_decades(vals):
        return "linear"
    if min(vals) > 0:
        setter("log")
        if max(vals) / min(vals) < 100:  # under two decades: tick 1-2-5 so there are labels
            (ax.xaxis if axis == "x" else ax.yaxis).set_major_locator(
                LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    else:
        smallest = min(v for v in vals if v > 0)
        setter("symlog", linthresh=smallest, linscale=0.5)
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(FuncFormatter(_plain_number))
    return "log" if min(vals) > 0 else "symlog"


def _plain_number(value, _pos):
    """Log-axis tick label: 0.01, 0.3, 1000 as written; powers of ten only beyond 10^5."""
    if value == 0 or 1e-3 <= abs(value) < 1e5:
        return f"{value:g}"
    return f"$10^{{{math.log10(abs(value)):.0f}}}$" if value > 0 else f"{value:.0e}"


def legend_outside(ax, **kwargs):
    """Legend to the right of the axes; constrained layout makes room for it."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kwargs)


def save_figure(fig, plot_dir, stem, formats):
    """Writes fig as plot_dir/stem.<fmt> for each format via a temporary name and an atomic
    rename, so an interrupted run never leaves a half-written plot. Returns the paths."""
    os.makedirs(plot_dir, exist_ok=True)
    written = []
    for fmt in formats:
        path = os.path.join(plot_dir, f"{stem}.{fmt}")
        tmp = os.path.join(plot_dir, f".{stem}.{fmt}.tmp{os.getpid()}")
        metadata = {"Date": None} if fmt in ("svg", "pdf") else {"Software": None}
        try:
            fig.savefig(tmp, format=fmt, metadata=metadata)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        written.append(path)
    return written
