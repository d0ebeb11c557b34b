"""A figure of panels sharing their axes, with its title wrapped to the figure's width and a
legend in a row of its own below the panels, sized before drawing so constrained layout keeps
everything inside the image (matplotlib 3.6 does not lay out figure legends)."""

import math
import textwrap

from . import common

PANEL_IN = (3.6, 2.9)  # one panel's size (inches) with its tick labels
LEGEND_PT = 9  # legend font size (points)


def legend_columns(labels, width_in):
    """Columns of a legend of these labels that fit across width_in (estimated from lengths)."""
    longest = max((len(s) for s in labels), default=1)
    entry_pt = 0.56 * LEGEND_PT * longest + 38  # text + handle + spacing
    return max(1, min(len(labels), int(width_in * 72 * 0.92 // entry_pt)))


def panel_figure(rows, cols, legend_labels=(), sharex=True, sharey=True, panel_height=None):
    """A constrained-layout Figure, its panel axes (row-major list) and, when legend_labels are
    given, a frameless axes below the panels for their legend (else None). panel_height:
    inches per panel row (default PANEL_IN's)."""
    width = max(common.SINGLE_SIZE[0], min(PANEL_IN[0] * cols + 0.9, 11.5))
    ncol = legend_columns(legend_labels, width)
    legend_rows = math.ceil(len(legend_labels) / ncol) if legend_labels else 0
    legend_in = 0.2 * legend_rows + 0.1 if legend_rows else 0
    panel_height = panel_height or PANEL_IN[1]
    height = panel_height * rows + 1.1 + legend_in
    fig = common.blank_figure((width, height))
    ratios = [panel_height] * rows + ([legend_in] if legend_rows else [])
    grid = fig.add_gridspec(len(ratios), cols, height_ratios=ratios)
    axes = []
    for r in range(rows):
        for c in range(cols):
            share = axes[0] if axes else None
            axes.append(fig.add_subplot(grid[r, c], sharex=share if sharex else None,
                                        sharey=share if sharey else None))
    legend_ax = None
    if legend_rows:
        legend_ax = fig.add_subplot(grid[rows, :])
        legend_ax.axis("off")
    return fig, axes, legend_ax


def put_legend(fig, legend_ax, handles, labels, title=None):
    """The legend of the whole figure in its row below the panels."""
    ncol = legend_columns(labels, fig.get_figwidth())  # as panel_figure sized the row
    return legend_ax.legend(handles, labels, loc="upper center", ncol=ncol,
                            frameon=False, fontsize=LEGEND_PT, title=title, borderaxespad=0,
                            handlelength=2.2, columnspacing=1.2)


def outer_labels(axes, cols, xlabel, ylabel):
    """Axis labels on the bottom row and left column only; inner tick labels hidden."""
    rows = math.ceil(len(axes) / cols)
    for i, ax in enumerate(axes):
        r, c = divmod(i, cols)
        if r == rows - 1 or i + cols >= len(axes):
            ax.set_xlabel(xlabel)
        else:
            ax.tick_params(labelbottom=False)
        if c == 0:
            ax.set_ylabel(ylabel)
        else:
            ax.tick_params(labelleft=False)


def titles(fig, title, lines):
    """Suptitle: the title, then the lines, each wrapped to the figure's width (constrained
    layout makes room above the panels, not beside them)."""
    chars = int(fig.get_figwidth() * 72 / (0.55 * 10))
    text = "\n".join(textwrap.fill(s, chars) for s in [title, *lines] if s)
    fig.suptitle(text, fontsize=10)


def panel_title(ax, parts, cols):
    """A panel's title: its parts on one line where they fit the panel's width, else one part
    a line, each wrapped."""
    chars = int((ax.figure.get_figwidth() - 0.9) / cols * 72 / (0.55 * 10.5))
    one = " · ".join(parts)
    text = one if len(one) <= chars else "\n".join(textwrap.fill(p, chars) for p in parts)
    ax.set_title(text)
