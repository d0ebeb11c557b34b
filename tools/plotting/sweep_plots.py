"""Figures of a sweep folder, laid out by sweep_layout: communication against final accuracy
(one panel per value of the panel keys, each point or curve named, its Pareto front per panel),
and (key_plots) final accuracy and communication against the key of interest."""

from . import common, key_plots, panels, point_labels, sweep_parts
from .sweep_data import pareto_front

MAX_LABELLED = 16  # more points in a panel than this are all named in the legend


def _what(lay):
    if lay.along is None:
        return ""
    if lay.curves():
        return f"{lay.along.name} along the curves, labels on the points"
    folded = " + ".join(d.name for d in lay.rest)
    return f"points: {lay.along.name}" + (f" ({folded})" if folded else "")


def _labels(sweep):
    """Point labels in sweep order (their index gives a point's colour and marker)."""
    return list(dict.fromkeys(sweep.layout.point_label(p) for p in sorted(
        sweep.points, key=sweep.layout.sort_key)))


def comm_accuracy_figure(sweep, args, in_legend=None):
    """Communication (x) against final quality (y) in panels. Points are named beside them, or
    in the legend (the point labels in_legend; all when a panel has too many points): a first
    drawing finds the labels that have no free spot, a second names those in the legend."""
    lay = sweep.layout
    names = _labels(sweep)
    series = list(dict.fromkeys(lay.series_label(p) for p in sorted(sweep.points,
                                                                     key=lay.sort_key)))
    if in_legend is None:
        crowded = not lay.curves() and max(len(p) for _, p in lay.panels) > MAX_LABELLED
        in_legend = set(names) if crowded else set()
    entries = (series if lay.curves() else [n for n in names if n in in_legend])
    entries.append("Pareto front")
    rows, cols = lay.grid_shape()
    fig, axes, legend_ax = panels.panel_figure(rows, cols, entries)
    div, xlabel = sweep_parts.comm_scale(sweep)
    xy = {id(p): (p.comm.mean / div, p.quality.mean) for p in sweep.points}
    handles = {}
    for ax, (title, pts) in zip(axes, lay.panels):
        if lay.curves():
            for label, curve in sweep_parts.series(lay, pts).items():
                _draw(ax, curve, div, common.series_style(series.index(label)), label, handles)
        else:
            for p in pts:
                label = lay.point_label(p)
                _draw(ax, [p], div, _point_style(lay, p, names, in_legend),
                      label if label in in_legend else "_" + label, handles)
        _front(ax, pareto_front(pts, sweep.higher_better), xy, handles)
        panels.panel_title(ax, title, cols)
    for ax in axes[len(lay.panels):]:
        ax.set_visible(False)
    common.choose_scale(axes[0], "x", [(p.comm.mean + s) / div for p in sweep.points
                                       for s in (-p.comm.lo, 0, p.comm.hi)])
    if not sweep.higher_better:
        common.choose_scale(axes[0], "y", [p.quality.mean for p in sweep.points])
    panels.outer_labels(axes[:len(lay.panels)], cols, xlabel, sweep.quality_label)
    panels.titles(fig, sweep.title, sweep_parts.header(sweep, args, _what(lay)))
    if legend_ax is not None:
        panels.put_legend(fig, legend_ax, [handles[e] for e in entries], entries)
    fig.draw_without_rendering()  # settle the layout, then place labels in pixels
    unplaced = set()
    for ax, (_, pts) in zip(axes, lay.panels):
        unplaced |= _label_panel(ax, lay, [p for p in pts if lay.point_label(p) not in in_legend],
                                 pts, xy, div, series, names, in_legend)
    if unplaced and not lay.curves():  # curves are named in the legend already
        return comm_accuracy_figure(sweep, args, in_legend | unplaced)
    fig.set_layout_engine("none")  # the labels were placed for this layout: keep it
    return fig


def _front(ax, front, xy, handles):
    """The Pareto front of a panel: a dashed step line through rings round its points."""
    fx, fy = [xy[id(p)][0] for p in front], [xy[id(p)][1] for p in front]
    ax.step(fx, fy, where="post", color=common.FRONT_COLOUR, lw=1.0, ls=(0, (4, 2)), zorder=2)
    handles["Pareto front"] = ax.plot(fx, fy, ls="none", marker="o", ms=11, mfc="none",
                                      mec=common.FRONT_COLOUR, mew=1.0, zorder=4,
                                      label="Pareto front", gid="pareto")[0]


def _point_style(lay, p, names, in_legend):
    """Labelled points: colour by the along value, marker by the values folded into the label.
    Once some are named in the legend, each point needs a style of its own."""
    if in_legend:
        return common.point_style(names.index(lay.point_label(p)))
    along, rest = lay.point_style_index(p)
    return {"color": common.COLOURS[along % len(common.COLOURS)],
            "marker": common.MARKERS[rest % len(common.MARKERS)]}


def _draw(ax, pts, div, style, label, handles):
    sweep_parts.errorbar(ax, [p.comm.mean / div for p in pts], [p.quality.mean for p in pts],
              xerr=[[p.comm.lo / div for p in pts], [p.comm.hi / div for p in pts]],
              yerr=[[p.quality.lo for p in pts], [p.quality.hi for p in pts]],
              label=label, zorder=3, **style)
    handles.setdefault(label, ax.get_legend_handles_labels()[0][-1] if not
                       label.startswith("_") else None)


def _label_panel(ax, lay, named, pts, xy, div, series, names, in_legend):
    """Writes the names of the points `named` beside them, clear of every point of the panel
    (pts) and its error bars; returns the point labels that found no free spot. On curves the
    labels are the along values."""
    spans = []
    for p in pts:
        x, y = xy[id(p)]
        spans += [(x, y - p.quality.lo, x, y + p.quality.hi),
                  ((p.comm.mean - p.comm.lo) / div, y, (p.comm.mean + p.comm.hi) / div, y)]
    if lay.curves():
        items = [(*xy[id(p)], lay.along.label(p),
                  common.series_style(series.index(lay.series_label(p)))["color"]) for p in named]
    else:
        items = [(*xy[id(p)], lay.point_label(p),
                  _point_style(lay, p, names, in_legend)["color"]) for p in named]
    placed = point_labels.place(ax, items, [xy[id(p)] for p in pts], spans)
    return {lay.point_label(p) for p, ok in zip(named, placed) if not ok}


def figures(sweep, args):
    """[(file stem, Figure)] of a loaded sweep."""
    quality = "accuracy" if sweep.higher_better else sweep.quality_col.split("_")[0]
    out = [(f"{args.comm}_vs_{quality}", comm_accuracy_figure(sweep, args))]
    if sweep.layout.along:
        out.append((f"{quality}_vs_key", key_plots.key_figure(sweep, args, "quality")))
        out.append((f"{args.comm}_vs_key", key_plots.key_figure(sweep, args, "comm")))
    return out

