"""Final accuracy and communication against the key of interest, in the panels of the sweep's
layout, one line per combination of the other keys; many categories are laid along the y axis
so that their names stay apart."""

from matplotlib.ticker import NullLocator

from . import common, panels, sweep_parts


def key_figure(sweep, args, measure):
    """Final quality (measure 'quality') or communication ('comm') against the along key, in
    the same panels, one line per combination of the other keys. Categories whose names would
    not fit side by side go down the y axis, one line of text each."""
    lay = sweep.layout
    along = lay.along
    series = list(dict.fromkeys(lay.series_label(p) for p in sweep.points))
    names = [along.value_label(v) for v in along.values]
    down = not along.numeric and max(len(s) for s in names) * len(names) > 40
    rows, cols = lay.grid_shape()
    fig, axes, legend_ax = panels.panel_figure(
        rows, cols, series if len(series) > 1 else (),
        panel_height=max(panels.PANEL_IN[1], 0.2 * len(names) + 0.8) if down else None)
    div, comm_label = sweep_parts.comm_scale(sweep) if measure == "comm" else (1.0, None)
    handles = {}
    for ax, (title, pts) in zip(axes, lay.panels):
        for label, curve in sweep_parts.series(lay, pts).items():
            i = series.index(label)
            at = [float(along.of(p)[0]) if along.numeric else along.index(p) + _shift(i, series)
                  for p in curve]
            stats = [getattr(p, measure) for p in curve]
            means = [s.mean / div for s in stats]
            bars = [[s.lo / div for s in stats], [s.hi / div for s in stats]]
            style = common.series_style(i)
            if not along.numeric:  # categories have no order to draw a line along
                style["linestyle"] = "none"
            if down:
                sweep_parts.errorbar(ax, means, at, xerr=bars, label=label, **style)
            else:
                sweep_parts.errorbar(ax, at, means, yerr=bars, label=label, **style)
            handles.setdefault(label, ax.get_legend_handles_labels()[0][-1])
        panels.panel_title(ax, title, cols)
    for ax in axes[len(lay.panels):]:
        ax.set_visible(False)
    value_axis = "x" if down else "y"
    _along_ticks(axes[0], along, names, down)
    if measure == "comm" or not sweep.higher_better:
        values = [getattr(p, measure).mean / div for p in sweep.points]
        if common.choose_scale(axes[0], value_axis, values) == "linear" and measure == "comm":
            (axes[0].set_xlim if down else axes[0].set_ylim)(0, None)
    measure_label = comm_label or sweep.quality_label
    panels.outer_labels(axes[:len(lay.panels)], cols, *((measure_label, along.name) if down
                                                        else (along.name, measure_label)))
    panels.titles(fig, sweep.title, sweep_parts.header(sweep, args, ""))
    if legend_ax is not None:
        panels.put_legend(fig, legend_ax, [handles[s] for s in series], series)
    return fig


def _shift(i, series):
    """Categories: each series a little aside so that error bars stay apart."""
    return 0.3 / (len(series) - 1) * i - 0.15 if len(series) > 1 else 0


def _along_ticks(ax, along, names, down):
    """Ticks at the along values: categories by name (down the y axis, first on top, when
    down), numbers on their scale, labelled as the sweep wrote them when few."""
    if down:
        ax.set_yticks(range(len(names)), names)
        ax.set_ylim(len(names) - 0.5, -0.5)
        return
    if not along.numeric:
        ax.set_xticks(range(len(names)), names)
        ax.set_xlim(-0.5, len(names) - 0.5)
        return
    values = {v[0]: float(v[0]) for v in along.values}
    common.choose_scale(ax, "x", list(values.values()))
    if len(values) <= 8:  # few settings: tick exactly at them, as written in the sweep
        ax.set_xticks(list(values.values()), list(values.keys()))
        ax.xaxis.set_minor_locator(NullLocator())
