#!/usr/bin/python3
"""Builds dlsim output folders without the simulator, for testing tools/plot.py: synthetic run
folders and sweep folders (sweep.csv in the `dlsim sweep` contract), or a sweep folder assembled
from real `dlsim run` folders.

  make_fake_sweep.py OUT --key /trigger/v0 [--key /P ...] RUN...   # from real run folders
  make_fake_sweep.py OUT --synthetic                               # fully made up
"""

import argparse
import csv
import hashlib
import json
import math
import os
import shutil
import sys

SUMMARY_COLUMNS = ["status", "accuracy_mean", "accuracy_min", "accuracy_max",
                   "accuracy_aggregate", "loss_mean", "consensus_distance",
                   "distance_to_optimum", "events", "messages", "bytes", "savings",
                   "simulated_s", "wall_s", "fingerprint"]
METRIC_HEADER = ["iteration", "time_s", "agent", "test_loss", "test_accuracy",
                 "distance_to_optimum", "events", "messages_sent", "bytes_sent",
                 "consensus_distance"]


def cell(value):
    """A sweep.csv cell: numbers as JSON numbers, strings plain, other JSON compact."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2)


def write_run(folder, name="fake-run", agents=4, iterations=60, eval_every=20, v0=0.1, seed=1,
              quadratic=False, center=False, tensor_sends=False):
    """A synthetic run folder (with EASGD-like `center` rows, and a tensor_sends column of three
    tensors per message, when asked); returns its summary's fields as sweep.csv cells by
    column."""
    os.makedirs(folder, exist_ok=True)
    rate = 1.0 / (1.0 + 10 * v0)  # share of iterations on which a trigger fires
    rows, points = [], list(range(0, iterations, eval_every)) + [iterations]
    for it in points:
        progress = 1 - math.exp(-it / (iterations / 3))
        for a in [str(i) for i in range(agents)] + ["avg"] + (["center"] if center else []):
            k = {"avg": agents, "center": 0}.get(a, 1)
            jitter = {"avg": 0, "center": -0.01}.get(a) if not a.isdigit() else \
                0.02 * math.sin(3 * it + 7 * int(a) + seed)
            acc = None if quadratic else 0.1 + (0.85 - 0.2 * v0 / (1 + v0)) * progress + jitter
            dist = 5 * math.exp(-it / 15) + 0.1 * v0 if quadratic else None
            events = k * round(rate * it)
            rows.append([it, it * 0.003, a, 2.3 * (1 - progress) + 0.1, acc, dist, events,
                         2 * events, 2 * events * 120, 0.5 * v0 * progress + 1e-3 * it]
                        + ([6 * events] if tensor_sends else []))
    with open(os.path.join(folder, "metrics.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(METRIC_HEADER + (["tensor_sends"] if tensor_sends else []))
        w.writerows([[cell(v) for v in r] for r in rows])
    last = [r for r in rows if r[0] == iterations]
    accs = [r[4] for r in last if r[2].isdigit()]
    events = next(r[6] for r in last if r[2] == "avg")
    summary = {
        "status": "ok", "accuracy_mean": None if quadratic else sum(accs) / len(accs),
        "accuracy_min": None if quadratic else min(accs),
        "accuracy_max": None if quadratic else max(accs),
        "accuracy_aggregate": next(r[4] for r in last if r[2] == "avg"), "loss_mean": last[0][3],
        "consensus_distance": last[-1][9], "distance_to_optimum": last[-1][5],
        "events": events, "messages": 2 * events, "bytes": 240 * events,
        "savings": 1 - events / (agents * iterations), "simulated_s": iterations * 0.003,
        "wall_s": 0.01, "fingerprint": f"0x{abs(hash((v0, seed))) % 16**16:016x}"}
    write_json(os.path.join(folder, "summary.json"), {"status": "ok", "name": name})
    write_json(os.path.join(folder, "scenario.json"),
               {"name": name, "seed": seed, "agents": agents, "trigger": {"v0": v0}})
    return summary


def write_sweep_csv(path, keys, rows):
    """rows: (id, seed, {key: value}, {summary column: value})."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "seed"] + keys + SUMMARY_COLUMNS)
        for run_id, seed, values, summary in rows:
            w.writerow([run_id, seed] + [cell(values[k]) for k in keys]
                       + [cell(summary.get(c)) for c in SUMMARY_COLUMNS])


def write_synthetic_sweep(out, v0s=(0, 0.1, 0.3, 1, 3), kinds=("ring", "torus"), seeds=(1, 2),
                          quadratic=False, failed=1):
    """A sweep over /trigger/v0 x /topology/kind (kinds empty: v0 only) x seeds; the last
    `failed` runs get status failed with empty cells."""
    keys = ["/trigger/v0"] + (["/topology/kind"] if kinds else [])
    combos = [(v, k) for k in (kinds or [None]) for v in v0s]
    rows = []
    for point, (v0, kind) in enumerate(combos):
        for seed in seeds:
            run_id = f"{point:04d}-s{seed}"
            summary = write_run(os.path.join(out, "runs", run_id), "fake-sweep", v0=v0 + 0.0,
                                seed=seed + (kind == "torus"), quadratic=quadratic)
            values = {"/trigger/v0": v0, "/topology/kind": kind}
            rows.append((run_id, seed, values, summary))
    for i in range(len(rows) - failed, len(rows)):
        rows[i] = (rows[i][0], rows[i][1], rows[i][2], {"status": "failed"})
    write_sweep_csv(os.path.join(out, "sweep.csv"), keys, rows)


def write_shaped_sweep(out, name, grid=None, zipped=None, seeds=(1,), description="",
                       crowded=False):
    """A sweep folder of any shape without run folders: sweep.json as `dlsim sweep` writes it
    (file name, grid, zip, seeds) and sweep.csv with made-up but distinct results per point (a
    hash of its values), so each drawn point can be traced back to its point; crowded: all but
    the first within a few per cent of each other."""
    grid, zipped = grid or {}, zipped or {}
    keys = list(grid) + list(zipped)
    combos = [{}]
    for key, values in grid.items():  # the last grid key varies fastest
        combos = [{**c, key: v} for c in combos for v in values]
    n_zip = len(next(iter(zipped.values()))) if zipped else 1
    combos = [{**c, **{k: zipped[k][i] for k in zipped}} for c in combos for i in range(n_zip)]
    rows = []
    for point, values in enumerate(combos):
        digest = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).digest()
        acc, comm = 0.5 + 0.45 * digest[0] / 255, 10 ** (2 + 4 * digest[1] / 255)
        if crowded:  # the first point far off, the others in a huddle
            acc, comm = (0.8 + 0.01 * digest[0] / 255, 10 ** (4 + 0.03 * digest[1] / 255)) \
                if point else (0.5, 100)
        for seed in seeds:
            jitter = 0.01 * math.sin(seed + point)
            summary = {"status": "ok", "accuracy_mean": acc + jitter, "accuracy_min": acc - 0.05,
                       "accuracy_max": acc + 0.03, "accuracy_aggregate": acc + 0.01,
                       "loss_mean": 1 - acc, "events": round(comm * (1 + jitter)),
                       "messages": round(2 * comm), "bytes": round(1e5 * comm)}
            rows.append((f"{point:04d}-s{seed}", seed, values, summary))
    os.makedirs(out, exist_ok=True)
    write_sweep_csv(os.path.join(out, "sweep.csv"), keys, rows)
    record = {"seeds": list(seeds), **({"grid": grid} if grid else {}),
              **({"zip": zipped} if zipped else {}),
              **({"description": description} if description else {})}
    write_json(os.path.join(out, "sweep.json"), {"file": f"{name}.json", "runs": len(rows),
                                                 "sweep": record})


def resolve(doc, pointer):
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        doc = doc[int(part)] if isinstance(doc, list) else doc.get(part)
        if doc is None:
            return None
    return doc


def summary_cells(summary):
    final, comm, time = summary.get("final", {}), summary.get("comm", {}), summary.get("time", {})
    out = {c: final.get(c) for c in SUMMARY_COLUMNS if c in final}
    out.update({c: comm.get(c) for c in ("events", "messages", "bytes", "savings")})
    out.update(simulated_s=time.get("simulated_s"), wall_s=time.get("wall_s"),
               status=summary.get("status"), fingerprint=summary.get("fingerprint"))
    return out


def sweep_from_runs(out, keys, run_dirs):
    """Copies run folders to out/runs/<id>/ and writes sweep.csv from their scenario.json
    (varied values, seed) and summary.json."""
    points, rows = {}, []
    for run in run_dirs:
        with open(os.path.join(run, "scenario.json"), encoding="utf-8") as f:
            scenario = json.load(f)
        with open(os.path.join(run, "summary.json"), encoding="utf-8") as f:
            summary = json.load(f)
        values = {k: resolve(scenario, k) for k in keys}
        point = points.setdefault(json.dumps(values, sort_keys=True), len(points))
        run_id = f"{point:04d}-s{scenario['seed']}"
        shutil.copytree(run, os.path.join(out, "runs", run_id), dirs_exist_ok=True)
        rows.append((run_id, scenario["seed"], values, summary_cells(summary)))
    write_sweep_csv(os.path.join(out, "sweep.csv"), keys, rows)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--key", action="append", default=[], help="varied JSON pointer")
    p.add_argument("--synthetic", action="store_true")
    p.add_argument("runs", nargs="*")
    args = p.parse_intermixed_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if args.synthetic:
        write_synthetic_sweep(args.out)
    else:
        sweep_from_runs(args.out, args.key, args.runs)
    print(os.path.join(args.out, "sweep.csv"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
