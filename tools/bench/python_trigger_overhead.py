#!/usr/bin/python3
"""What a Python trigger costs (issue 16, goal: within 1.2x): runs a scenario with its built-in
threshold trigger and with dlsim.threshold_trigger (the same rule in Python) in alternation, so
that both see the same moments of a shared host; checks that the fingerprints are the same and
equal to `dlsim run`'s; prints each pair's wall times and the median of each and of the ratios.

    PYTHONPATH=build/python /usr/bin/python3 tools/bench/python_trigger_overhead.py \\
        [--pairs 3] [--threads 2] [--scenario scenarios/default.json] [--set /run/iterations=N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import dlsim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--scenario", default=os.path.join(ROOT, "scenarios", "default.json"))
    parser.add_argument("--set", action="append", default=[], help="POINTER=JSON, as --set")
    args = parser.parse_args()
    sets = {p: json.loads(v) for p, v in (s.split("=", 1) for s in args.set)}

    trigger = dlsim.validate(args.scenario, set=sets)["trigger"]
    assert trigger["kind"] == "threshold" and trigger.get("form", "decay") == "decay", trigger
    rule = dlsim.threshold_trigger(trigger["v0"], trigger["decay"], trigger["eps"])

    with tempfile.TemporaryDirectory() as out:
        cli = [os.path.join(ROOT, "build", "dlsim"), "run", args.scenario, "-o", out + "/cli",
               "--quiet", "--threads", str(args.threads)]
        for s in args.set:
            cli += ["--set", s]
        subprocess.run(cli, check=True, stdout=subprocess.DEVNULL)
        with open(out + "/cli/summary.json") as f:
            reference = json.load(f)["fingerprint"]

    builtin, python, ratios = [], [], []
    for p in range(args.pairs):
        start = time.monotonic()
        a = dlsim.run(args.scenario, set=sets, threads=args.threads)
        builtin.append(time.monotonic() - start)
        start = time.monotonic()
        b = dlsim.run(args.scenario, set=sets, threads=args.threads, trigger=rule)
        python.append(time.monotonic() - start)
        assert a.fingerprint == b.fingerprint == reference, (a.fingerprint, b.fingerprint)
        ratios.append(python[-1] / builtin[-1])
        print("pair {}: built-in {:.2f} s, Python trigger {:.2f} s, ratio {:.3f}, events {}".format(
            p + 1, builtin[-1], python[-1], ratios[-1], b.summary["comm"]["events"]))
    print("median: built-in {:.2f} s, Python trigger {:.2f} s, ratio {:.3f} (fingerprint {} "
          "= dlsim run's)".format(statistics.median(builtin), statistics.median(python),
                                  statistics.median(ratios), reference))


if __name__ == "__main__":
    sys.exit(main())
