"""Pieces shared by the figures of a sweep: the communication axis's unit, error bars, the
title lines and the curves of a panel."""

from .sweep_data import COMM_LABELS


def comm_scale(sweep):
    """Divisor and axis label of the communication measure (bytes in kB, MB or GB)."""
    label = COMM_LABELS[sweep.comm_col]
    if sweep.comm_col != "bytes":
        return 1.0, label
    top = max(p.comm.mean + p.comm.hi for p in sweep.points)
    for div, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if top >= div:
            return div, label.format(unit=unit)
    return 1.0, label.format(unit="bytes")


def errorbar(ax, x, y, **kwargs):
    """Means as markers; spread bars thinner and lighter so close points stay legible."""
    _, caps, bars = ax.errorbar(x, y, elinewidth=0.8, ms=5.5, **kwargs)
    for artist in (*caps, *bars):
        artist.set_alpha(0.55)


def header(sweep, args, what):
    """Title lines: the sweep's name (and short description), then what is drawn how."""
    lay = sweep.layout
    bars = "min–max" if args.spread == "minmax" else "std. error"
    parts = [what] if what else []
    if lay.panel_dims:
        parts.append("panels: " + " × ".join(d.name for d in lay.panel_dims))
    parts.append(f"mean over {sweep.seeds_text()}, bars: {bars}")
    desc = sweep.description if len(sweep.description) <= 160 else ""
    return [desc, " · ".join(parts)]


def series(lay, pts):
    """Curves of a panel: {series label: points along the curve}."""
    out = {}
    for p in sorted(pts, key=lay.sort_key):
        out.setdefault(lay.series_label(p), []).append(p)
    return out
