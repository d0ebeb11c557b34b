"""metrics.csv, summary.json and scenario.json of one run folder read into per-point, per-agent
columns; no matplotlib, so bad input is reported before any plotting starts."""

import math
import os

from .readers import InputError, is_number, read_csv, read_json, scenario_name

METRIC_COLUMNS = ["iteration", "time_s", "agent", "test_loss", "test_accuracy", "events",
                  "consensus_distance"]
NUMERIC = ["iteration", "time_s", "test_loss", "test_accuracy", "distance_to_optimum", "events",
           "messages_sent", "bytes_sent", "consensus_distance", "tensor_sends"]
# --comm's choices -> the metrics.csv column that counts them
COMM_COLUMNS = {"events": "events", "messages": "messages_sent", "bytes": "bytes_sent",
                "tensor_sends": "tensor_sends"}
MAX_INDIVIDUAL = 10  # more agents than this are drawn as a min-max band and their mean


class RunData:
    """metrics.csv as columns: points (evaluation iterations, ascending), agents (ids, ascending),
    agent[col][p][a], avg[col][p] and center[col][p] (EASGD's centre variable; all None without
    one) as floats or None."""

    def __init__(self, path, rows, header):
        self.path = path
        self.columns = [c for c in NUMERIC if c in header]
        by_point = {}
        for row in rows:
            agent = row.text("agent")
            if agent not in ("avg", "center") and not agent.isdigit():
                raise InputError(f"{path}:{row.line}: column agent: expected an id, avg or "
                                 f"center, got {agent!r}")
            values = {c: row.number(c, allow_empty=(c != "iteration")) for c in self.columns}
            by_point.setdefault(values["iteration"], {})[agent] = values
        self.points = sorted(by_point)
        self.agents = sorted({int(a) for p in by_point.values() for a in p if a.isdigit()})
        if not self.agents:
            raise InputError(f"{path}: no per-agent rows")
        self.agent = {c: [[by_point[p].get(str(a), {}).get(c) for a in self.agents]
                          for p in self.points] for c in self.columns}
        self.avg = {c: [by_point[p].get("avg", {}).get(c) for p in self.points]
                    for c in self.columns}
        self.center = {c: [by_point[p].get("center", {}).get(c) for p in self.points]
                       for c in self.columns}
        self.quadratic = not any(is_number(v) for r in self.agent["test_accuracy"] for v in r)

    def per_point(self, col):
        """One value per point of a column that is the same on every row of a point (iteration,
        time_s, consensus_distance) or summed over agents on the avg row (events, messages_sent,
        bytes_sent): the avg row's, else the first agent's that has one."""
        if col == "iteration":
            return self.points
        return [a if is_number(a) else next((v for v in r if is_number(v)), math.nan)
                for a, r in zip(self.avg[col], self.agent[col])]


def load(folder, comm_col="events"):
    """RunData and figure title (scenario name, and where it diverged) of a run folder whose
    metrics.csv has comm_col besides the usual columns."""
    path = os.path.join(folder, "metrics.csv")
    header, rows = read_csv(path, METRIC_COLUMNS + [c for c in [comm_col]
                                                    if c not in METRIC_COLUMNS])
    data = RunData(path, rows, header)
    summary = read_json(os.path.join(folder, "summary.json"), required=False)
    title = scenario_name(folder, os.path.basename(os.path.normpath(folder)))
    if summary and summary.get("status") == "diverged":
        div = summary.get("diverged") or {}
        title += f" (diverged at iteration {div.get('iteration', '?')})"
    return data, title
