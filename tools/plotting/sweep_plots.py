"""Figures of a sweep folder: communication against final accuracy (mean and spread over seeds,
one series per combination of the other varied keys, the Pareto front as a step line), and final
accuracy and communication against the varied key along the curves."""

from matplotlib.ticker import NullLocator

from . import common
from .sweep_data import COMM_LABELS, pareto_front


def _comm_scale(sweep):
    """Divisor and axis label of the communication measure (bytes in kB, MB or GB)."""
    label = COMM_LABELS[sweep.comm_col]
    if sweep.comm_col != "bytes":
        return 1.0, label
    top = max(p.comm.mean + p.comm.hi for p in sweep.points)
    for div, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if top >= div:
            return div, label.format(unit=unit)
    return 1.0, label.format(unit="bytes")


def _errorbar(ax, x, y, **kwargs):
    """Means as markers on a line; spread bars thinner and lighter so close points stay legible."""
    _, caps, bars = ax.errorbar(x, y, elinewidth=0.8, ms=5.5, **kwargs)
    for artist in (*caps, *bars):
        artist.set_alpha(0.55)


def _spread_text(args, sweep):
    bars = "min–max" if args.spread == "minmax" else "std. error"
    return f"mean over {sweep.seeds_text()}, bars: {bars}"


def _series_label(sweep, label):
    return label if label else "mean over seeds"


def comm_accuracy_figure(sweep, args):
    """Communication (x) against final quality (y), Pareto front over the point means."""
    fig, ax = common.new_figure()
    div, xlabel = _comm_scale(sweep)
    for i, (label, pts) in enumerate(sweep.series):
        st = common.series_style(i)
        _errorbar(ax, [p.comm.mean / div for p in pts], [p.quality.mean for p in pts],
                  xerr=[[p.comm.lo / div for p in pts], [p.comm.hi / div for p in pts]],
                  yerr=[[p.quality.lo for p in pts], [p.quality.hi for p in pts]],
                  label=_series_label(sweep, label), zorder=3, **st)
    front = pareto_front(sweep.points, sweep.higher_better)
    ax.step([p.comm.mean / div for p in front], [p.quality.mean for p in front], where="post",
            color=common.FRONT_COLOUR, lw=1.0, ls=(0, (4, 2)), zorder=2)
    ax.plot([p.comm.mean / div for p in front], [p.quality.mean for p in front], ls="none",
            marker="o", ms=11, mfc="none", mec=common.FRONT_COLOUR, mew=1.0,
            label="Pareto front", zorder=4)
    common.choose_scale(ax, "x", [(p.comm.mean + s) / div for p in sweep.points
                                  for s in (-p.comm.lo, 0, p.comm.hi)])
    if not sweep.higher_better:
        common.choose_scale(ax, "y", [p.quality.mean for p in sweep.points])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(sweep.quality_label)
    ax.set_title(f"{sweep.title}\n{_spread_text(args, sweep)}")
    _legend_front_last(ax, sweep)
    if sweep.along:  # the first series only: the others run through the same values
        pts = sweep.series[0][1]
        common.label_points(ax, [p.comm.mean / div for p in pts], [p.quality.mean for p in pts],
                            [p.values[sweep.along] for p in pts], common.COLOURS[0],
                            avoid=[(p.comm.mean / div, p.quality.mean) for p in sweep.points],
                            avoid_spans=_bars(sweep.points, div))
    return fig


def _bars(points, div):
    """The error bars of the points as (x0, y0, x1, y1) in data coordinates."""
    spans = []
    for p in points:
        x, y = p.comm.mean / div, p.quality.mean
        spans.append((x, y - p.quality.lo, x, y + p.quality.hi))
        spans.append(((p.comm.mean - p.comm.lo) / div, y, (p.comm.mean + p.comm.hi) / div, y))
    return spans


def _legend_front_last(ax, sweep):
    title = None
    if sweep.along:
        key = sweep.short[sweep.along]
        title = f"labels: {key}" if len(sweep.series) == 1 else f"{key} along curves"
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda j: labels[j] == "Pareto front")
    common.legend_outside(ax, handles=[handles[j] for j in order],
                          labels=[labels[j] for j in order], title=title, alignment="left",
                          handlelength=2.4)


def _positions(sweep, values, i):
    """x positions of series i's along-key values: the numbers themselves, or 0..k-1 for
    categories, each series shifted a little so that its error bars stay apart."""
    if sweep.numeric[sweep.along]:
        return [float(v) for v in values], None
    cats = sorted({p.values[sweep.along] for p in sweep.points},
                  key=lambda v: sweep.order(sweep.along, v))
    shift = 0.3 / max(1, len(sweep.series) - 1) * i - 0.15 if len(sweep.series) > 1 else 0
    return [cats.index(v) + shift for v in values], cats


def key_figure(sweep, args, measure):
    """Final quality (measure 'quality') or communication ('comm') against the along key."""
    fig, ax = common.new_figure()
    div, comm_label = _comm_scale(sweep) if measure == "comm" else (1.0, None)
    cats = None
    for i, (label, pts) in enumerate(sweep.series):
        x, cats = _positions(sweep, [p.values[sweep.along] for p in pts], i)
        stats = [getattr(p, measure) for p in pts]
        _errorbar(ax, x, [s.mean / div for s in stats],
                  yerr=[[s.lo / div for s in stats], [s.hi / div for s in stats]],
                  label=_series_label(sweep, label), **common.series_style(i))
    if cats is not None:
        ax.set_xticks(range(len(cats)), cats)
        ax.set_xlim(-0.5, len(cats) - 0.5)
    else:
        values = {p.values[sweep.along]: float(p.values[sweep.along]) for p in sweep.points}
        common.choose_scale(ax, "x", list(values.values()))
        if len(values) <= 8:  # few settings: tick exactly at them, as written in the sweep
            ax.set_xticks(list(values.values()), list(values.keys()))
            ax.xaxis.set_minor_locator(NullLocator())
    if measure == "comm" or not sweep.higher_better:
        values = [getattr(p, measure).mean / div for p in sweep.points]
        if common.choose_scale(ax, "y", values) == "linear" and measure == "comm":
            ax.set_ylim(bottom=0)
    ax.set_xlabel(sweep.along)
    ax.set_ylabel(comm_label or sweep.quality_label)
    ax.set_title(f"{sweep.title}\n{_spread_text(args, sweep)}")
    if len(sweep.series) > 1:
        common.legend_outside(ax, handlelength=2.4)
    return fig


def plot_sweep(sweep, plot_dir, args):
    """Draws the figures of a loaded sweep; returns the paths written."""
    quality = "accuracy" if sweep.higher_better else sweep.quality_col.split("_")[0]
    figures = [(f"{args.comm}_vs_{quality}", comm_accuracy_figure(sweep, args))]
    if sweep.along:
        figures.append((f"{quality}_vs_key", key_figure(sweep, args, "quality")))
        figures.append((f"{args.comm}_vs_key", key_figure(sweep, args, "comm")))
    written = []
    for name, fig in figures:
        written += common.save_figure(fig, plot_dir, name, args.formats)
    return written
