"""sweep.csv read into parameter points (one per combination of varied values, its seeds
averaged) and the Pareto front; sweep.json, when there, names the sweep and its grid and zip."""

import math
import os
import sys

from .readers import InputError, read_csv, read_json
from .sweep_layout import Layout, groups_from

REQUIRED = ["id", "seed", "status", "accuracy_mean", "accuracy_min", "accuracy_aggregate",
            "loss_mean", "distance_to_optimum", "events", "messages", "bytes"]
ACCURACY_LABELS = {
    "mean": "final test accuracy (mean over agents)",
    "min": "final test accuracy (worst agent)",
    "aggregate": "final test accuracy (averaged model)",
}
COMM_LABELS = {
    "events": "events (broadcasts, all agents)",
    "messages": "messages sent (all agents)",
    "bytes": "data sent ({unit}, all agents, with headers)",
    "tensor_sends": "tensor sends (layer weights or biases, all agents)",
}


class Stat:
    """Mean and spread of one measure over a point's seeds."""

    def __init__(self, values, spread):
        n = len(values)
        self.mean = sum(values) / n
        if spread == "minmax":
            # max(0, ...): the mean of equal floats can land an ulp outside them
            self.lo = max(0.0, self.mean - min(values))
            self.hi = max(0.0, max(values) - self.mean)
        else:
            var = sum((v - self.mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
            self.lo = self.hi = math.sqrt(var / n)


class Point:
    """One parameter point: its varied values (raw CSV text by key) and Stats over seeds."""

    def __init__(self, values, comm, quality, spread):
        self.values, self.seeds = values, len(comm)
        self.comm, self.quality = Stat(comm, spread), Stat(quality, spread)


class Sweep:
    """The points of a sweep (seeds averaged), the measures drawn and the layout (sweep_layout)
    that says which keys become panels, points and curves; title and description from
    sweep.json (the sweep file's name) when the folder has one."""

    def __init__(self, folder, args):
        path = os.path.join(folder, "sweep.csv")
        header, rows = read_csv(path, REQUIRED + [c for c in [args.comm] if c not in REQUIRED])
        self.keys = [h for h in header if h.startswith("/")]
        if args.along is not None and args.along not in self.keys:
            varied = ", ".join(self.keys) or "none"
            raise InputError(f"{path}:1: --along {args.along}: not a varied key (varied: {varied})")
        self.comm_col = args.comm
        self.quality_col, self.quality_label, self.higher_better = _quality(rows, args.accuracy)
        self.points = _points(path, rows, self.keys, self.comm_col, self.quality_col, args.spread)
        self.short = _short_names(self.keys)
        record = read_json(os.path.join(folder, "sweep.json"), required=False) or {}
        sweep = record.get("sweep") if isinstance(record.get("sweep"), dict) else {}
        groups = groups_from(sweep, self.keys, self.points)
        self.layout = Layout(self.points, self.keys, groups, self.short, args.along)
        self.title, self.description = _title(folder, record, sweep)

    def seeds_text(self):
        counts = sorted({p.seeds for p in self.points})
        n = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        return f"{n} seed{'s' if counts[-1] > 1 else ''}"


def _quality(rows, accuracy):
    """Column, axis label and direction of the final quality: the chosen accuracy, or for
    quadratic models (accuracy empty) the distance to the optimum, else the loss."""
    col = f"accuracy_{accuracy}"
    ok = [r for r in rows if r.text("status") == "ok"]
    if any(r.text(col) for r in ok):
        return col, ACCURACY_LABELS[accuracy], True
    if any(r.text("distance_to_optimum") for r in ok):
        return "distance_to_optimum", r"final distance to optimum $\Vert\bar{x} - x^\star\Vert$", \
            False
    return "loss_mean", "final test loss (mean over agents)", False


def _points(path, rows, keys, comm_col, quality_col, spread):
    """Groups the ok rows by their varied values; reports skipped runs on stderr."""
    groups, skipped = {}, {}
    for r in rows:
        status = r.text("status")
        quality = r.number(quality_col) if status == "ok" else None
        if status != "ok" or quality is None or not math.isfinite(quality):
            why = status if status != "ok" else f"no {quality_col}"
            skipped[why] = skipped.get(why, 0) + 1
            continue
        values = tuple(r.text(k) for k in keys)
        comm = groups.setdefault(values, ([], []))
        comm[0].append(r.number(comm_col, allow_empty=False))
        comm[1].append(quality)
    if skipped:
        detail = ", ".join(f"{n} {why}" for why, n in sorted(skipped.items()))
        print(f"plot.py: {path}: skipped {sum(skipped.values())} of {len(rows)} runs ({detail})",
              file=sys.stderr)
    if not groups:
        raise InputError(f"{path}: no run with status ok and a {quality_col} to plot")
    return [Point(dict(zip(keys, v)), c, q, spread) for v, (c, q) in groups.items()]


def _short_names(keys):
    """The shortest suffix of each pointer that no other varied key ends with."""
    short = {}
    for k in keys:
        parts = k.strip("/").split("/")
        for n in range(1, len(parts) + 1):
            name = "/".join(parts[-n:])
            if not any(o != k and ("/" + o.strip("/")).endswith("/" + name) for o in keys):
                break
        short[k] = name
    return short


def _title(folder, record, sweep):
    """The sweep file's name (sweep.json "file", without .json), else the folder's; and its
    description."""
    name = record.get("file")
    if isinstance(name, str) and name:
        name = os.path.splitext(os.path.basename(name))[0]
    else:
        name = os.path.basename(os.path.normpath(folder))
    description = sweep.get("description")
    return name, description if isinstance(description, str) else ""


def pareto_front(points, higher_better):
    """The points whose mean no other point beats in both communication (lower) and quality,
    sorted by communication."""
    sign = 1 if higher_better else -1
    front, best = [], -math.inf
    for p in sorted(points, key=lambda p: (p.comm.mean, -sign * p.quality.mean)):
        if sign * p.quality.mean > best:
            front.append(p)
            best = sign * p.quality.mean
    return front
