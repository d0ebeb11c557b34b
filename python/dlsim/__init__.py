"""dlsim from Python: the same engine as the `dlsim` command, for notebooks and scripts.

    import dlsim
    r = dlsim.run("scenarios/smoke/detsgrad.json", set={"/trigger/v0": 0.1})
    r.summary["fingerprint"], r.metrics["test_accuracy"], r.to_pandas()

run() and validate() take a scenario file's path or a dict (errors then name the file
"<dict>"); `set` maps JSON pointers to values, as `dlsim run --set POINTER=VALUE` does (None
removes the key). Bad input raises ScenarioError with the message the CLI prints after "dlsim: ".
The engine runs without the GIL. Ctrl-C (or any signal whose Python handler raises) is seen
between two iterations (within 20 ms of the next one, once the world is built): the run stops,
removes its output folder, and the handler's exception (KeyboardInterrupt) is raised.
"""

import json
import os
import shutil
import tempfile
from collections.abc import Mapping

from . import _core
from ._table import Table, read_csv

__all__ = ["run", "validate", "sweep", "Result", "Table", "ScenarioError", "threshold_trigger"]


class ScenarioError(ValueError):
    """Input the CLI rejects with exit code 2. str(e) is the CLI's line without "dlsim: ";
    .file is the file it names (a path, "<dict>", or None for a --set style override) and
    .pointer the JSON pointer in it (None when the error is not about one key)."""

    def __init__(self, message):
        super().__init__(message)
        self.file, self.pointer = _locate(message)


def _locate(message):
    if message.startswith("--set "):  # "--set /a/b: ..." (an override that is not valid)
        head = message[len("--set "):].split(": ", 1)[0]
        return None, head if head.startswith("/") else None
    parts = message.split(": ")
    pointer = parts[1] if len(parts) > 2 and parts[1].startswith("/") else None
    return parts[0], pointer


class Result:
    """One finished run: .summary (summary.json), .metrics (a Table of metrics.csv's columns),
    .scenario (the resolved scenario.json) and .out (the folder, None when run without `out`).
    A diverged run is a Result too: summary["status"] says so."""

    def __init__(self, summary, metrics, scenario, out):
        self.summary = summary
        self.metrics = metrics
        self.scenario = scenario
        self.out = out

    @property
    def fingerprint(self):
        return self.summary["fingerprint"]

    def to_pandas(self):
        """metrics as a pandas DataFrame (needs pandas)."""
        return self.metrics.to_pandas()

    def __repr__(self):
        return "Result({!r}, status={!r}, fingerprint={!r})".format(
            self.summary.get("name"), self.summary.get("status"), self.summary.get("fingerprint"))


def _source(scenario):
    """(path, JSON text, the name errors give the file) of a path or a dict."""
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        return path, None, path
    if isinstance(scenario, Mapping):
        return None, json.dumps(scenario), "<dict>"
    raise TypeError("scenario must be a path or a dict, not " + type(scenario).__name__)


def _overrides(values):
    # The CLI's --set POINTER=VALUE parses VALUE as JSON: json.dumps gives exactly that value.
    if values is None:
        return []
    if not isinstance(values, Mapping):
        raise TypeError("set must be a dict of JSON pointer -> value")
    return ["{}={}".format(pointer, json.dumps(value)) for pointer, value in values.items()]


def _engine(call, *args):
    try:
        return call(*args)
    except _core.InputError as e:
        raise ScenarioError(str(e)) from None


def validate(scenario, set=None, data_dir=None):
    """Checks a scenario as `dlsim validate` does (loading its data and building every model)
    and returns the resolved scenario (every default filled in). ScenarioError when bad."""
    path, text, label = _source(scenario)
    return json.loads(_engine(_core.validate, path, text, label, _overrides(set), data_dir))


def run(scenario, set=None, threads=None, out=None, progress=False, trigger=None, data_dir=None):
    """Runs a scenario; returns a Result. Same results, bit for bit, as `dlsim run` (same
    fingerprint) for any `threads` (default: all cores).

    out: a folder written exactly as `dlsim run -o OUT` writes it. Without it the run goes to a
      temporary folder that is read back and removed before run() returns.
    progress: a progress line per evaluation point on sys.stderr.
    trigger: fn(agent, iteration, drift, step_size) -> bool replaces the scenario's trigger rule
      (DETSGRAD, CHOCO, EASGD). drift is ||x_i - x^_i|| in the scenario's trigger norm (+inf before the
      agent's first broadcast), step_size the algorithm's alpha_k. In sync mode fn is called in
      agent order within each iteration, in async mode in event order, whatever `threads`: the
      sequence of calls is the same on every run. An exception in fn stops the run and is raised
      here with a note naming the agent and iteration; a result that is not a bool (or
      numpy.bool_) raises TypeError.
    """
    path, text, label = _source(scenario)
    if trigger is not None and not callable(trigger):
        raise TypeError("trigger must be callable: fn(agent, iteration, drift, step_size) -> bool")
    temporary = tempfile.mkdtemp(prefix="dlsim-run-") if out is None else None
    folder = os.path.join(temporary, "run") if temporary else os.fspath(out)
    try:
        summary = json.loads(_engine(_core.run, path, text, label, _overrides(set), folder,
                                     threads or 0, bool(progress), trigger, data_dir))
        with open(os.path.join(folder, "scenario.json")) as f:
            resolved = json.load(f)
        metrics = read_csv(os.path.join(folder, "metrics.csv"))
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    return Result(summary, metrics, resolved, None if temporary else folder)


def sweep(path, out, jobs=None, progress=False, data_dir=None):
    """Runs a sweep file into `out` as `dlsim sweep FILE -o OUT --jobs N` does (resumable: runs
    finished before are reused) and returns its table, sweep.csv, as a Table (.path says where).
    Runs that failed are rows with status "failed", as in the CLI's table. Ctrl-C stops the runs
    in progress (their folders are not left behind), keeps those finished, and raises
    KeyboardInterrupt; the same call again runs what is missing."""
    csv_path = _engine(_core.sweep, os.fspath(path), os.fspath(out), jobs or 0, bool(progress),
                       data_dir)
    return read_csv(csv_path)


def threshold_trigger(v0, decay=0.1, eps=1e-5):
    """The built-in rule of {"kind": "threshold", "form": "decay"} in Python: communicate when
    drift > v0 / (eps*k + 1)^decay, always at k = 0, never when v0 is infinite. A starting point
    for your own rule; passed as trigger= it gives the built-in trigger's fingerprint."""

    def fire(agent, iteration, drift, step_size):
        if v0 == float("inf"):
            return False
        if iteration == 0 or v0 == 0.0:
            return True
        return drift > v0 / (eps * iteration + 1.0) ** decay

    return fire
