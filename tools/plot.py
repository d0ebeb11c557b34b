#!/usr/bin/python3
"""Plots a dlsim output folder for a paper: a run folder (metrics.csv) or a sweep folder
(sweep.csv + runs/<id>/). Figures go to OUT/plots/ as PNG and SVG, with report.html (all of them
inline, the summary or sweep table, warnings, scenario); the paths written are printed.
Bad input: one line on stderr naming the file (and CSV line), exit code 2, no plot written."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from plotting import run_data, sweep_data  # noqa: E402  (no matplotlib: quick to fail)
from plotting.readers import InputError  # noqa: E402

FORMATS = ("png", "svg", "pdf")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="tools/plot.py",
        description="Plot a dlsim run folder or sweep folder (PNG and SVG by default).")
    p.add_argument("out", metavar="OUT", help="run folder (metrics.csv) or sweep folder "
                   "(sweep.csv and runs/<id>/)")
    p.add_argument("--comm", choices=["events", "messages", "bytes", "tensor_sends"],
                   default="events",
                   help="communication measure on the x axis of the sweep's figures and of a "
                   "run's accuracy against communication (default events)")
    p.add_argument("--accuracy", choices=["mean", "min", "aggregate"], default="mean",
                   help="sweep: final accuracy over agents: mean, worst agent, or the averaged "
                   "model (default mean)")
    p.add_argument("--spread", choices=["minmax", "sem"], default="minmax",
                   help="sweep: error bars over seeds: min-max or standard error (default minmax)")
    p.add_argument("--along", metavar="/POINTER",
                   help="sweep: the key of interest, drawn as named points (or as curves when "
                   "numeric); the other keys become panels (default: a /name zip, else the key "
                   "with most values)")
    p.add_argument("--format", default="png,svg",
                   help="comma-separated formats among png, svg, pdf (default png,svg)")
    p.add_argument("--no-report", action="store_true",
                   help="no report.html (the summary or sweep table, the plots as inline SVG, "
                   "the warnings and the scenario in one self-contained page)")
    p.add_argument("-o", "--plot-dir", metavar="PLOTDIR", help="output folder (default OUT/plots)")
    args = p.parse_args(argv)
    args.formats = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    bad = [f for f in args.formats if f not in FORMATS]
    if bad or not args.formats:
        p.error(f"--format: expected formats among {', '.join(FORMATS)}, got {args.format!r}")
    return args


def load(out, args):
    """Reads and checks the folder; returns ("sweep", Sweep) or ("run", (RunData, title))."""
    if not os.path.isdir(out):
        raise InputError(f"{out}: no such folder")
    if os.path.isfile(os.path.join(out, "sweep.csv")):
        return "sweep", sweep_data.Sweep(out, args)
    if os.path.isfile(os.path.join(out, "metrics.csv")):
        return "run", run_data.load(out, run_data.COMM_COLUMNS[args.comm])
    raise InputError(f"{out}: neither metrics.csv (a run) nor sweep.csv (a sweep)")


def main(argv):
    args = parse_args(argv)
    try:
        kind, data = load(args.out, args)
    except InputError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    # The input is fully read and checked: only now load matplotlib and write figures.
    plot_dir = args.plot_dir or os.path.join(args.out, "plots")
    from plotting import common, report
    if kind == "sweep":
        from plotting import sweep_plots
        figures, title = sweep_plots.figures(data, args), data.title
    else:
        from plotting import run_plots
        figures, title = run_plots.figures(*data, args.comm), data[1]
    written = []
    for name, fig in figures:
        written += common.save_figure(fig, plot_dir, name, args.formats)
    if not args.no_report:
        written.append(report.write(plot_dir, args.out, kind, title, figures))
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
