"""Final accuracy and communication against the key of interest, in the panels of the sweep's
layout, one line per combination of the other keys; many categories are laid along the y axis
so that their names stay apart."""

from matplotlib.ticker import NullLocator

from . import common, panels, sweep_parts


def key_figure(sweep, args, measure):
    """Final quality (measure 'quality') or communication ('comm') against the along key, in
    the same panels, one line per combination of the other keys."""
    lay = sweep.layout
    series = list(dict.fromkeys(lay.series_label(p) for p in sweep.points))
    rows, cols = lay.grid_shape()
    fig, axes, legend_ax = panels.panel_figure(rows, cols, series if len(series) > 1 else ())
    div, comm_label = sweep_parts.comm_scale(sweep) if measure == "comm" else (1.0, None)
    along = lay.along
    handles = {}
    for ax, (title, pts) in zip(axes, lay.panels):
        for label, curve in sweep_parts.series(lay, pts).items():
            i = series.index(label)
            x = [float(along.of(p)[0]) if along.numeric else along.index(p) + _shift(i, series)
                 for p in curve]
            stats = [getattr(p, measure) for p in curve]
            style = common.series_style(i)
            if not along.numeric:  # categories have no order to draw a line along
                style["linestyle"] = "none"
            sweep_parts.errorbar(ax, x, [s.mean / div for s in stats], label=label,
                      yerr=[[s.lo / div for s in stats], [s.hi / div for s in stats]], **style)
            handles.setdefault(label, ax.get_legend_handles_labels()[0][-1])
        panels.panel_title(ax, title, cols)
    for ax in axes[len(lay.panels):]:
        ax.set_visible(False)
    _along_ticks(axes[0], sweep)
    if measure == "comm" or not sweep.higher_better:
        values = [getattr(p, measure).mean / div for p in sweep.points]
        if common.choose_scale(axes[0], "y", values) == "linear" and measure == "comm":
            axes[0].set_ylim(bottom=0)
    panels.outer_labels(axes[:len(lay.panels)], cols, along.name,
                        comm_label or sweep.quality_label)
    panels.titles(fig, sweep.title, sweep_parts.header(sweep, args, ""))
    if legend_ax is not None:
        panels.put_legend(fig, legend_ax, [handles[s] for s in series], series)
    return fig


def _shift(i, series):
    """Categories: each series a little aside so that error bars stay apart."""
    return 0.3 / (len(series) - 1) * i - 0.15 if len(series) > 1 else 0


def _along_ticks(ax, sweep):
    along = sweep.layout.along
    labels = [along.value_label(v) for v in along.values]
    if not along.numeric:
        longest = max(len(s) for s in labels)
        turn = longest * len(labels) > 40  # would collide side by side
        ax.set_xticks(range(len(labels)), labels)
        for a in ax.get_shared_x_axes().get_siblings(ax):
            a.tick_params(axis="x", labelrotation=45 if turn else 0,
                          labelsize=8 if len(labels) > 12 else 9)
            for t in a.get_xticklabels():
                t.set_ha("right" if turn else "center")
                t.set_rotation_mode("anchor")
        ax.set_xlim(-0.5, len(labels) - 0.5)
        return
    values = {v[0]: float(v[0]) for v in along.values}
    common.choose_scale(ax, "x", list(values.values()))
    if len(values) <= 8:  # few settings: tick exactly at them, as written in the sweep
        ax.set_xticks(list(values.values()), list(values.keys()))
        ax.xaxis.set_minor_locator(NullLocator())
