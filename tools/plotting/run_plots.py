"""Figures of one run folder (metrics.csv, summary.json, scenario.json): accuracy (or loss and
distance to the optimum for quadratic models) per agent and of the averaged model against
iterations, against communication so far (beside iterations) and against simulated time,
cumulative events per agent, and consensus distance."""

import math

from . import common
from .readers import is_number
from .run_data import MAX_INDIVIDUAL

LABELS = {
    "test_accuracy": "test accuracy",
    "test_loss": "test loss",
    "distance_to_optimum": r"distance to optimum $\Vert x_i - x^\star\Vert$",
}


COMM = {"events": ("events", "events (broadcasts, all agents, so far)"),
        "messages": ("messages_sent", "messages sent (all agents, so far)"),
        "bytes": ("bytes_sent", "data sent ({unit}, all agents, so far)"),
        "tensor_sends": ("tensor_sends", "tensor sends (layer weights or biases, all agents, "
                         "so far)")}


def _x(data, col):
    """x values and axis label: iterations, communication so far (the avg row sums the agents'
    counters; bytes in kB, MB or GB), or simulated time in ms, s or h by its range."""
    if col == "iteration":
        return data.points, "iteration"
    if col in ("events", "messages_sent", "bytes_sent", "tensor_sends"):
        total = data.per_point(col)
        label = next(text for c, text in COMM.values() if c == col)
        end = max(common.finite(total), default=0)
        div, unit = next(((d, u) for d, u in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"))
                          if end >= d), (1, "bytes"))
        div = div if col == "bytes_sent" else 1
        return [v / div for v in total], label.format(unit=unit)
    t = data.per_point("time_s")
    end = max(common.finite(t), default=0)
    div, unit = (1e-3, "ms") if 0 < end < 1 else (3600, "h") if end >= 7200 else (1, "s")
    return [v / div for v in t], f"simulated time ({unit})"


def _nan(values):
    return [v if is_number(v) else math.nan for v in values]


def _draw_agents(ax, data, xcol, ycol, avg=True):
    """One line per agent (distinct colour, marker, dash), or a band for many agents; the
    averaged model in black on top, and EASGD's centre variable beside it (dotted)."""
    x = _x(data, xcol)[0]
    step = max(1, len(x) // 8)
    n = len(data.agents)
    if n <= MAX_INDIVIDUAL:
        for i, a in enumerate(data.agents):
            st = common.series_style(i)
            ax.plot(x, _nan([r[i] for r in data.agent[ycol]]), label=f"{a}", lw=1.1,
                    markevery=(i % step, step), ms=4, **st)
    else:
        rows = [common.finite(r) for r in data.agent[ycol]]
        lo = [min(r) if r else math.nan for r in rows]
        hi = [max(r) if r else math.nan for r in rows]
        mean = [sum(r) / len(r) if r else math.nan for r in rows]
        ax.fill_between(x, lo, hi, color=common.COLOURS[4], alpha=0.35, lw=0,
                        label=f"{n} agents, min–max")
        ax.plot(x, mean, color=common.COLOURS[0], ls="--", marker="s", markevery=step, ms=4,
                label="mean over agents")
    if avg and any(is_number(v) for v in data.avg[ycol]):
        ax.plot(x, _nan(data.avg[ycol]), color=common.AVG_COLOUR, lw=2.2, marker="o", ms=4.5,
                markevery=step, label="avg. model", zorder=5)
    if avg and any(is_number(v) for v in data.center[ycol]):
        ax.plot(x, _nan(data.center[ycol]), color=common.AVG_COLOUR, lw=1.8, ls=":", marker="D",
                ms=4, markevery=step, label="centre z", zorder=5)


def _legend(ax, data, extra=()):
    """One legend beside ax for the series of ax and of the extra axes (a label once)."""
    entries = {}
    for a in [ax, *extra]:
        for handle, label in zip(*a.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    individual = len(data.agents) <= MAX_INDIVIDUAL
    ncol = 2 if individual and len(data.agents) > 5 else 1
    common.legend_outside(ax, handles=list(entries.values()), labels=list(entries),
                          ncol=ncol, columnspacing=0.8, handlelength=2.4,
                          title="agent" if individual else None, alignment="left")


def quality_figure(data, title, xcol):
    """Accuracy per agent and averaged model against xcol; for quadratic models two panels:
    test loss and distance to the optimum."""
    panels = ["test_accuracy"] if not data.quadratic else \
        [c for c in ("test_loss", "distance_to_optimum") if c in data.columns]
    size = common.SINGLE_SIZE if len(panels) == 1 else (common.SINGLE_SIZE[0], 5.2)
    fig, axes = common.new_figure(size, rows=len(panels), sharex=True)
    axes = axes if isinstance(axes, list) else [axes]
    for ax, col in zip(axes, panels):
        _draw_agents(ax, data, xcol, col)
        ax.set_ylabel(LABELS[col])
        if col != "test_accuracy":
            common.choose_scale(ax, "y", [v for r in data.agent[col] for v in r] + data.avg[col]
                                + data.center[col])
    axes[-1].set_xlabel(_x(data, xcol)[1])
    axes[0].set_title(title)
    _legend(axes[0], data, extra=axes[1:])
    return fig


def comm_figure(data, title, comm):
    """Accuracy (or loss and distance) per agent and of the averaged model against iterations
    (left) and against the communication spent so far by all agents (right): what each unit
    of communication bought, beside how fast it came."""
    col = COMM[comm][0]
    panels = ["test_accuracy"] if not data.quadratic else \
        [c for c in ("test_loss", "distance_to_optimum") if c in data.columns]
    fig = common.blank_figure((9.0, 3.4 if len(panels) == 1 else 5.6))
    axes = fig.subplots(len(panels), 2, sharey="row", squeeze=False)
    for row, ycol in zip(axes, panels):
        for ax, xcol in zip(row, ("iteration", col)):
            _draw_agents(ax, data, xcol, ycol)
            if ycol != "test_accuracy":
                common.choose_scale(ax, "y", [v for r in data.agent[ycol] for v in r]
                                    + data.avg[ycol] + data.center[ycol])
        row[0].set_ylabel(LABELS[ycol])
    for ax, xcol in zip(axes[-1], ("iteration", col)):
        ax.set_xlabel(_x(data, xcol)[1])
    fig.suptitle(title, fontsize=10.5)
    _legend(axes[0][1], data, extra=[a for r in axes[1:] for a in r])
    return fig


def events_figure(data, title):
    """Cumulative trigger events per agent against simulated time, with the every-iteration
    reference (a trigger that always fires)."""
    fig, ax = common.new_figure()
    _draw_agents(ax, data, "time_s", "events", avg=False)
    t, xlabel = _x(data, "time_s")
    ax.plot(t, data.points, color=common.FRONT_COLOUR, ls=(0, (1, 1.5)), lw=1.4)
    if len(t) > 1 and is_number(t[-1]):
        ax.annotate("trigger fires every iteration", (t[-1], data.points[-1]), ha="right",
                    va="bottom", xytext=(-4, 2), textcoords="offset points", fontsize=9,
                    color=common.FRONT_COLOUR)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("events per agent (cumulative)")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    _legend(ax, data)
    return fig


def consensus_figure(data, title):
    """Consensus distance sqrt(mean_i ||x_i - x̄||²) against iterations."""
    fig, ax = common.new_figure()
    y = data.per_point("consensus_distance")
    ax.plot(data.points, y, color=common.COLOURS[0], marker="o", ms=4.5,
            markevery=max(1, len(y) // 12))
    if common.choose_scale(ax, "y", y) == "linear":
        ax.set_ylim(bottom=0)
    ax.set_xlabel("iteration")
    ax.set_ylabel(r"consensus distance (rms$_i\,\Vert x_i - \bar{x}\Vert$)")
    ax.set_title(title)
    return fig


def figures(data, title, comm="events"):
    """[(file stem, Figure)] of a loaded run folder. comm: events, messages or bytes, the x axis
    of the accuracy-against-communication figure."""
    stem = "loss" if data.quadratic else "accuracy"
    return [
        (f"{stem}_vs_iteration", quality_figure(data, title, "iteration")),
        (f"{stem}_vs_{comm}", comm_figure(data, title, comm)),
        (f"{stem}_vs_time", quality_figure(data, title, "time_s")),
        ("events_vs_time", events_figure(data, title)),
        ("consensus_vs_iteration", consensus_figure(data, title)),
    ]

