"""report.html of a run or sweep folder, beside its plots: one self-contained file (no network)
with the warnings, the figures as inline SVG, the summary (a run's, or the sweep's table,
sortable) and the scenario or sweep as read."""

import html
import io
import json
import os
import re

from .readers import InputError, read_csv, read_json
from .report_page import page

MAX_WARNINGS = 50  # a sweep whose runs all warn the same lists the first ones and a count


def write(plot_dir, folder, kind, title, figures):
    """Writes plot_dir/report.html (via a temporary name) and returns its path. kind: "run" or
    "sweep"; figures: [(file stem, Figure)] already drawn."""
    if kind == "sweep":
        description, warnings, summary, source = _sweep_parts(folder)
    else:
        description, warnings, summary, source = _run_parts(folder)
    sections = [("Warnings", _warnings(warnings)),
                ("Plots", "\n".join(_figure(i, stem, fig) for i, (stem, fig) in
                                    enumerate(figures))),
                ("Summary", summary),
                ("Sweep" if kind == "sweep" else "Scenario",
                 f"<pre>{html.escape(json.dumps(source, indent=2))}</pre>")]
    os.makedirs(plot_dir, exist_ok=True)
    path = os.path.join(plot_dir, "report.html")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page(title, description, sections))
    os.replace(tmp, path)
    return path


def _run_parts(folder):
    summary = read_json(os.path.join(folder, "summary.json"), required=False) or {}
    scenario = read_json(os.path.join(folder, "scenario.json"), required=False) or {}
    rows = [(k, v) for k, v in _flatten(summary) if k != "warnings"]
    table = "<table>\n" + "".join(f"<tr><th>{html.escape(k)}</th>{_cell(v)}</tr>\n"
                                  for k, v in rows) + "</table>"
    return scenario.get("description", ""), summary.get("warnings") or [], table, scenario


def _sweep_parts(folder):
    header, rows = read_csv(os.path.join(folder, "sweep.csv"), [])
    record = read_json(os.path.join(folder, "sweep.json"), required=False) or {}
    sweep = record.get("sweep") if isinstance(record.get("sweep"), dict) else {}
    warnings = []
    for r in rows:
        status = r.text("status") if "status" in header else "ok"
        if status != "ok":
            warnings.append(f"run {r.text('id')}: {status}")
        try:  # the table was checked before plotting; a run's own files are only read here
            run = read_json(os.path.join(folder, "runs", r.text("id"), "summary.json"),
                            required=False) or {}
        except InputError as e:
            run = {"warnings": [str(e)]}
        warnings += [f"run {r.text('id')}: {w}" for w in run.get("warnings") or []]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_cell(r.cells[h].strip()) for h in header) + "</tr>\n"
                   for r in rows)
    table = (f'<div class="scroll"><table class="sortable">\n<thead><tr>{head}</tr></thead>\n'
             f"<tbody>\n{body}</tbody></table></div>")
    return sweep.get("description", ""), warnings, table, sweep or record


def _flatten(value, prefix=""):
    """(dotted key, scalar) pairs of a JSON object; a list of scalars is one value."""
    for k, v in value.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            yield from _flatten(v, key + ".")
        elif isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
            continue
        else:
            yield key, v


def _cell(value):
    text = value if isinstance(value, str) else json.dumps(value)
    try:
        float(text)
        numeric = True
    except ValueError:
        numeric = False
    return f'<td{" class=number" if numeric else ""}>{html.escape(text)}</td>'


def _warnings(warnings):
    if not warnings:
        return "<p>None.</p>"
    items = "".join(f"<li>{html.escape(str(w))}</li>" for w in warnings[:MAX_WARNINGS])
    more = f"<p>and {len(warnings) - MAX_WARNINGS} more.</p>" if len(warnings) > MAX_WARNINGS \
        else ""
    return f'<ul class="warnings">{items}</ul>{more}'


def _figure(i, stem, fig):
    """A figure as inline SVG, its ids prefixed so that several figures share one page."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    for name in set(re.findall(r'id="([^"]+)"', svg)):
        new = f"f{i}-{name}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"').replace(f'"#{name}"', f'"#{new}"') \
            .replace(f"url(#{name})", f"url(#{new})")
    return f"<figure>{svg}<figcaption>{html.escape(stem)}</figcaption></figure>"
