#!/usr/bin/python3
"""Bytes against final accuracy of a sweep whose runs are named by `/name` and split by
`/data/partition`: one panel per partition, each configuration a labelled point (mean over its
seeds, bars min-max), the Pareto front (fewest bytes for the accuracy) as a dashed line.

    /usr/bin/python3 tools/examples/pareto_by_partition.py SWEEP_OUT OUT.png [--accuracy mean|min]

SWEEP_OUT is a `dlsim sweep` folder (its sweep.csv). Used for scenarios/paper/REPLICATION.md,
part 4. Exit code 2 with one line on stderr when sweep.csv is missing or lacks those columns."""

import argparse
import csv
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def fail(message):
    print(f"pareto_by_partition.py: {message}", file=sys.stderr)
    sys.exit(2)


def partition_label(value):
    p = json.loads(value) if value else {}
    if p.get("kind") == "by_label":
        n = p.get("labels_per_agent", 1)
        return f"{n} digit{'s' if n > 1 else ''} per agent"
    return p.get("kind", "default partition")


def load(folder, accuracy):
    path = Path(folder) / "sweep.csv"
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror})")
    column = f"accuracy_{accuracy}"
    for key in ("/name", "/data/partition", "bytes", column, "status"):
        if rows and key not in rows[0]:
            fail(f"{path}: no column {key}")
    points = defaultdict(lambda: defaultdict(list))  # partition -> name -> [(bytes, accuracy)]
    for row in rows:
        if row["status"] == "ok":
            points[partition_label(row["/data/partition"])][row["/name"].strip('"')].append(
                (float(row["bytes"]) / 1e9, float(row[column])))
    if not points:
        fail(f"{path}: no finished runs")
    return points


def pareto(means):
    front, best = [], -1.0
    for name, (x, y) in sorted(means.items(), key=lambda item: (item[1][0], -item[1][1])):
        if y > best:
            front.append((x, y))
            best = y
    return front


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep")
    parser.add_argument("out")
    parser.add_argument("--accuracy", choices=["mean", "min"], default="mean")
    args = parser.parse_args()
    points = load(args.sweep, args.accuracy)
    fig, axes = plt.subplots(1, len(points), figsize=(6.5 * len(points), 5.2), squeeze=False,
                             constrained_layout=True)
    for ax, (partition, configs) in zip(axes[0], sorted(points.items())):
        means = {}
        for name, runs in sorted(configs.items()):
            xs, ys = [r[0] for r in runs], [r[1] for r in runs]
            x, y = statistics.mean(xs), statistics.mean(ys)
            means[name] = (x, y)
            ax.errorbar(x, y, yerr=[[y - min(ys)], [max(ys) - y]], fmt="o", capsize=3)
            ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
        front = pareto(means)
        ax.plot([p[0] for p in front], [p[1] for p in front], "k--", lw=1, label="Pareto front")
        ax.set_xscale("log")
        ax.set_xlabel("data sent (GB, all agents, with headers)")
        ax.set_ylabel(f"final test accuracy ({args.accuracy} over agents)")
        ax.set_title(partition)
        ax.grid(True, which="both", ls=":", lw=0.5)
        ax.legend(loc="lower right")
    fig.savefig(args.out, dpi=110)
    print(args.out)


if __name__ == "__main__":
    main()
