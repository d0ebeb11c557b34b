#!/usr/bin/python3
"""A notebook-style study run as a script: DETSGRAD's threshold v0 swept from Python on the
default scenario (10 agents on a ring, one digit each), bytes sent against final accuracy.

    PYTHONPATH=build/python /usr/bin/python3 tools/examples/threshold_study.py [OUT.png]
        [--iterations N] [--v0 0,0.5,1,1.5,2,3] [--threads T]

Each point is one dlsim.run (the same engine and fingerprint as `dlsim run`); nothing is written
but the figure. Needs python3-matplotlib (Agg: no display)."""

import argparse
import os
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import dlsim  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="threshold_study.png")
    parser.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "default.json"))
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--v0", default="0,0.5,1,1.5,2,3")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()

    points = []
    for v0 in [float(v) for v in args.v0.split(",")]:
        start = time.monotonic()
        r = dlsim.run(args.scenario, threads=args.threads,
                      set={"/trigger/v0": v0, "/run/iterations": args.iterations,
                           "/run/eval_every": args.iterations})
        s = r.summary
        points.append((v0, s["comm"]["bytes"], s["final"]["accuracy_mean"]))
        print("v0 {:<5g} bytes {:>14,}  accuracy {:.4f}  events {:>6}  ({:.1f} s)".format(
            v0, s["comm"]["bytes"], s["final"]["accuracy_mean"], s["comm"]["events"],
            time.monotonic() - start), file=sys.stderr)

    fig, ax = plt.subplots(figsize=(5.5, 3.6), dpi=100)
    ax.plot([b / 1e9 for _, b, _ in points], [a for _, _, a in points], "-", color="0.8",
            zorder=1)
    for v0, b, a in points:  # one colour per v0: several points lie close together
        ax.scatter([b / 1e9], [a], label="v0 = {:g}".format(v0), zorder=2)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_xscale("log")  # a high v0 sends a thousand times less than v0 = 0
    ax.set_xlabel("bytes sent (GB, all agents, log scale)")
    ax.set_ylabel("final test accuracy (mean over agents)")
    ax.set_title("DETSGRAD threshold v0, {} iterations".format(args.iterations), fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out)
    print("figure       " + args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
