"""sweep.csv read into parameter points (one per combination of varied values, its seeds
averaged), the choice of the key along each curve and the series, and the Pareto front."""

import json
import math
import os
import sys

from .readers import InputError, read_csv, scenario_name

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
    """The points of a sweep and how to draw them: along (key on the curve, or None), series
    (list of (label, [points sorted along the curve])), labels and direction of quality."""

    def __init__(self, folder, args):
        path = os.path.join(folder, "sweep.csv")
        header, rows = read_csv(path, REQUIRED)
        self.keys = [h for h in header if h.startswith("/")]
        if args.along is not None and args.along not in self.keys:
            varied = ", ".join(self.keys) or "none"
            raise InputError(f"{path}:1: --along {args.along}: not a varied key (varied: {varied})")
        self.comm_col = args.comm
        self.quality_col, self.quality_label, self.higher_better = _quality(rows, args.accuracy)
        self.points = _points(path, rows, self.keys, self.comm_col, self.quality_col, args.spread)
        self.along = _along(self.keys, self.points, args.along)
        self.short = _short_names(self.keys)
        self.numeric = {k: all(_as_float(p.values[k]) is not None for p in self.points)
                        for k in self.keys}
        self.series = self._series()
        self.title = _title(folder, rows)

    def order(self, key, value):
        """Sort key of a value of key: numeric when every value is a number, else first use."""
        if self.numeric[key]:
            return _as_float(value)
        return [p.values[key] for p in self.points].index(value)

    def _series(self):
        others = [k for k in self.keys if k != self.along]
        groups = {}
        for p in self.points:
            label = ", ".join(_value_label(self.short[k], p.values[k]) for k in others)
            groups.setdefault(label, []).append(p)
        if self.along:
            for pts in groups.values():
                pts.sort(key=lambda p: self.order(self.along, p.values[self.along]))
        return list(groups.items())

    def seeds_text(self):
        counts = sorted({p.seeds for p in self.points})
        n = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        return f"{n} seed{'s' if counts[-1] > 1 else ''}"


def _as_float(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


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


def _along(keys, points, requested):
    """The varied key along each curve: the requested one (checked), else the one with most
    values, the first of them on a tie."""
    if requested is not None:
        return requested
    if not keys:
        return None
    return max(keys, key=lambda k: (len({p.values[k] for p in points}), -keys.index(k)))


def _value_label(name, text):
    """"kind = ring"; a JSON object value reads as its fields, "kind" first:
    {"alpha":0.5,"kind":"elastic_gossip"} -> "elastic_gossip, alpha = 0.5"."""
    if text.startswith("{"):
        try:
            fields = json.loads(text)
        except ValueError:
            fields = None
        if isinstance(fields, dict):
            head = [str(fields.pop("kind"))] if "kind" in fields else []
            return ", ".join(head + [f"{k} = {v}" for k, v in fields.items()])
    return f"{name} = {text}"


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


def _title(folder, rows):
    for r in rows:
        if r.text("status") == "ok":
            return scenario_name(os.path.join(folder, "runs", r.text("id")),
                                 os.path.basename(os.path.normpath(folder)))
    return os.path.basename(os.path.normpath(folder))


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
