#!/usr/bin/python3
"""Prints a sweep's results as a Markdown table: one row per parameter point (the varied values),
each number the mean over the point's seeds, with the spread (min-max) when there are several.

    /usr/bin/python3 tools/sweep_table.py OUT [--columns accuracy_mean,events,...]

OUT is a `dlsim sweep` output folder (OUT/sweep.csv). Runs whose status is not "ok" are counted
in a `not ok` column and left out of the means. The numbers in scenarios/paper/REPLICATION.md
come from this script. Exit code 2, one line on stderr, for a missing or malformed sweep.csv.
"""
import argparse
import csv
import statistics
import sys
from pathlib import Path

DEFAULT_COLUMNS = ["accuracy_mean", "accuracy_min", "accuracy_max", "accuracy_aggregate",
                   "events", "savings"]
INTEGER_COLUMNS = {"events", "messages", "bytes", "tensor_sends"}
PERCENT_COLUMNS = {"savings", "tensor_savings"}


def fail(message):
    print(f"sweep_table.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_rows(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: cannot read ({e.strerror})")
    except csv.Error as e:
        fail(f"{path}: not CSV ({e})")
    if not rows:
        fail(f"{path}: no runs")
    for n, row in enumerate(rows, start=2):
        if None in row or any(v is None for v in row.values()):
            fail(f"{path}: line {n}: wrong number of cells")
    return rows


def number(text, column):
    value = float(text)
    if column in PERCENT_COLUMNS:
        return f"{100 * value:.1f} %"
    if column in INTEGER_COLUMNS:
        return f"{value:,.0f}"
    return f"{value:.4f}"


def cell(values, column):
    if not values:
        return ""
    mean = statistics.fmean(values)
    if len(values) == 1:
        return number(mean, column)
    return f"{number(mean, column)} ({number(min(values), column)}–{number(max(values), column)})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="a dlsim sweep output folder")
    parser.add_argument("--columns", default=",".join(DEFAULT_COLUMNS),
                        help="summary columns of sweep.csv to show (comma-separated)")
    args = parser.parse_args()
    path = Path(args.out) / "sweep.csv"
    rows = read_rows(path)
    varied = [c for c in rows[0].keys() if c.startswith("/")]
    columns = [c for c in args.columns.split(",") if c]
    for c in columns:
        if c not in rows[0]:
            fail(f"{path}: no column {c}")

    points = {}
    for row in rows:
        points.setdefault(tuple(row[v] for v in varied), []).append(row)

    header = varied + ["seeds", "not ok"] + columns
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for key, runs in points.items():
        ok = [r for r in runs if r["status"] == "ok"]
        cells = list(key) + [str(len(runs)), str(len(runs) - len(ok))]
        for c in columns:
            cells.append(cell([float(r[c]) for r in ok if r[c] != ""], c))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
