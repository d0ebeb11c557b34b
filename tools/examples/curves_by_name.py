#!/usr/bin/python3
"""Learning curves of a sweep whose runs are named by `/name`: the agents' mean test accuracy
(averaged over seeds) against iterations and against messages sent, one line per name, and a
table of the first evaluated iteration at which each name reaches each target accuracy, with the
messages sent by then.

    /usr/bin/python3 tools/examples/curves_by_name.py SWEEP_FOLDER OUT.png --targets 0.9 0.93
"""
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
    print(f"curves_by_name.py: {message}", file=sys.stderr)
    sys.exit(2)


def run_curve(folder):
    """iteration -> (mean agent accuracy, messages sent by all agents so far)."""
    acc, messages = defaultdict(list), {}
    with open(folder / "metrics.csv", newline="") as f:
        for row in csv.DictReader(f):
            k = int(row["iteration"])
            if row["agent"] == "avg":
                messages[k] = int(row["messages_sent"])
            elif row["agent"] != "center":
                acc[k].append(float(row["test_accuracy"]))
    return {k: (statistics.mean(v), messages[k]) for k, v in acc.items()}


def load(sweep):
    curves = defaultdict(list)  # name -> [curve per seed]
    runs = sorted(Path(sweep, "runs").glob("*"))
    for run in runs:
        if run.suffix == ".tmp" or not (run / "summary.json").exists():
            continue
        name = json.loads((run / "scenario.json").read_text())["name"]
        curves[name].append(run_curve(run))
    if not curves:
        fail(f"{sweep}: no finished runs")
    means = {}
    for name, seeds in curves.items():
        its = sorted(set.intersection(*(set(c) for c in seeds)))
        means[name] = [(k, statistics.mean(c[k][0] for c in seeds),
                        statistics.mean(c[k][1] for c in seeds)) for k in its]
    return means, {name: len(seeds) for name, seeds in curves.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep")
    parser.add_argument("out")
    parser.add_argument("--targets", type=float, nargs="*", default=[0.9])
    args = parser.parse_args()
    means, seeds = load(args.sweep)
    print("| name | seeds | " + " | ".join(f"reaches {t:g} at (messages)" for t in args.targets)
          + " | final |")
    print("|---|---|" + "---|" * len(args.targets) + "---|")
    for name, curve in means.items():
        cells = []
        for t in args.targets:
            hit = next(((k, m) for k, a, m in curve if a >= t), None)
            cells.append(f"{hit[0]:,} ({hit[1]:,.0f})" if hit else "never")
        print(f"| {name} | {seeds[name]} | " + " | ".join(cells) + f" | {curve[-1][1]:.4f} |")
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), constrained_layout=True)
    for name, curve in means.items():
        left.plot([k for k, _, _ in curve], [a for _, a, _ in curve], marker=".", label=name)
        later = [(a, m) for k, a, m in curve if k > 0]  # no messages before the first iteration
        right.plot([m for _, m in later], [a for a, _ in later], marker=".", label=name)
    left.set_xlabel("iteration")
    right.set_xlabel("messages sent (all agents)")
    right.set_xscale("log")
    for ax in (left, right):
        ax.set_ylabel("mean test accuracy of the agents")
        ax.grid(alpha=0.3)
        ax.set_ylim(bottom=max(0.0, min(a for c in means.values() for _, a, _ in c[1:]) - 0.02))
    left.legend()
    fig.savefig(args.out, dpi=120)


if __name__ == "__main__":
    main()
