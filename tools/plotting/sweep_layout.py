"""How a sweep is drawn, chosen from its shape: the dimensions it varies (each grid key alone, the
zip keys together, as sweep.json records; inferred from sweep.csv without it), the dimension of
interest whose values become the labelled points or the curve (`--along`, else a `/name` zip,
else the one with most values), the dimensions with few values that become panels, and the rest
(folded into point labels, or one curve each). No matplotlib here."""

import math

from .value_labels import short_labels

MAX_PANELS = 6  # more panels than this shrink past reading: further dimensions go into labels
MAX_PANEL_VALUES = 4  # a dimension with more values is compared inside a panel, not across


class Dim:
    """Keys that vary together and their value combinations (tuples of raw texts), in sweep
    order, or ascending for one numeric key."""

    def __init__(self, keys, points, short):
        self.keys = keys
        self.values = list(dict.fromkeys(self.of(p) for p in points))
        self.numeric = len(keys) == 1 and all(_number(v[0]) is not None for v in self.values)
        if self.numeric:
            self.values.sort(key=lambda v: _number(v[0]))
        labels = {k: short_labels([v[i] for v in self.values]) for i, k in enumerate(keys)}
        # One key whose values alone tell the combinations apart names them: /name if there.
        naming = [k for k in keys if len({v[keys.index(k)] for v in self.values}) ==
                  len(self.values)]
        naming.sort(key=lambda k: k != "/name")
        shown = naming[:1] or keys
        self.name = " + ".join(short[k] for k in shown)
        self._label = {v: ", ".join(labels[k][v[keys.index(k)]] for k in shown)
                       for v in self.values}

    def of(self, point):
        return tuple(point.values[k] for k in self.keys)

    def label(self, point):
        return self._label[self.of(point)]

    def value_label(self, value):
        """The label of one of self.values."""
        return self._label[value]

    def index(self, point):
        return self.values.index(self.of(point))


class Layout:
    """along (a Dim or None), panel_dims, rest (the other varied Dims), and panels: a list of
    (title parts, points) with every panel Dim at one value in each."""

    def __init__(self, points, keys, groups, short, along_key=None):
        dims = [Dim(g, points, short) for g in groups]
        dims = [d for d in dims if len(d.values) > 1]
        self.along = _along(dims, along_key)
        others = [d for d in dims if d is not self.along]
        self.panel_dims, n = [], 1
        for d in sorted(others, key=lambda d: len(d.values)):
            if len(d.values) <= MAX_PANEL_VALUES and n * len(d.values) <= MAX_PANELS \
                    and len(self.panel_dims) < 2:
                self.panel_dims.append(d)
                n *= len(d.values)
        self.rest = [d for d in others if d not in self.panel_dims]
        self.panels = self._panels(points)

    def _panels(self, points):
        groups = {}
        for p in points:
            groups.setdefault(tuple(d.index(p) for d in self.panel_dims), []).append(p)
        panels = []
        for index in sorted(groups):
            pts = groups[index]
            panels.append(([f"{d.name}: {d.label(pts[0])}" for d in self.panel_dims], pts))
        return panels

    def grid_shape(self):
        """(rows, cols) of the panels: the two panel dims as rows x columns, else up to 3 a row."""
        n = len(self.panels)
        if len(self.panel_dims) == 2:
            return len(self.panel_dims[0].values), len(self.panel_dims[1].values)
        cols = min(n, 3)
        return math.ceil(n / cols), cols

    def point_label(self, p):
        """A point's name on the figure: its along value, then the values folded into it (each
        with its key's name: "dpsgd, v0 = 0.1")."""
        parts = ([self.along.label(p)] if self.along else []) + \
            [f"{d.name} = {d.label(p)}" for d in self.rest]
        return ", ".join(parts) or "mean over seeds"

    def point_style_index(self, p):
        """(along index, index of the folded values): colour by the first, marker by the second."""
        rest = 0
        for d in self.rest:
            rest = rest * len(d.values) + d.index(p)
        return (self.along.index(p) if self.along else 0), rest

    def series_label(self, p):
        """The curve a point is on when along is numeric: the values of the rest."""
        return ", ".join(f"{d.name} = {d.label(p)}" for d in self.rest) or "mean over seeds"

    def curves(self):
        """True when along is numeric and drawn as lines through its values."""
        return self.along is not None and self.along.numeric

    def sort_key(self, p):
        return tuple(d.index(p) for d in [*self.rest, *([self.along] if self.along else [])])


def _along(dims, along_key):
    if along_key is not None:
        return next((d for d in dims if along_key in d.keys), None)
    named = [d for d in dims if "/name" in d.keys]
    if named:
        return named[0]
    return max(dims, key=lambda d: (len(d.values), -dims.index(d)), default=None)


def groups_from(record, keys, points):
    """The dimensions' keys: from sweep.json's "sweep" (grid keys alone, zip keys together) when
    given, else keys whose values pair one to one across the points are taken as zipped."""
    if record:
        grid = [k for k in record.get("grid", {}) if k in keys]
        zipped = [k for k in record.get("zip", {}) if k in keys]
        groups = [[k] for k in grid] + ([zipped] if zipped else [])
        return groups + [[k] for k in keys if k not in grid + zipped]
    groups = []
    for k in keys:
        for g in groups:
            if _one_to_one(points, g[0], k):
                g.append(k)
                break
        else:
            groups.append([k])
    return groups


def _one_to_one(points, a, b):
    pairs = {(p.values[a], p.values[b]) for p in points}
    return len(pairs) == len({x for x, _ in pairs}) == len({y for _, y in pairs})


def _number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None
