"""Text labels beside markers, each at the nearby spot that covers the least of the markers,
error bars and labels already placed (a leader line when it sits away from its marker). A label
with no free spot inside its axes is left out and reported, so that a crowded point can be named
in a legend instead of printed over another label."""

from matplotlib.path import Path
from matplotlib.transforms import Bbox

# Label offsets (points) from a marker, tried in order: beside it first, then further out.
# The text's nearest corner or edge sits at the offset (va/ha below), clear of a marker's box.
_OFFSETS = [(6, 2), (6, -2), (-6, 2), (-6, -2), (0, 7), (0, -7), (7, 0), (-7, 0),
            (14, 14), (14, -14), (-14, 14), (-14, -14), (0, 24), (0, -24), (26, 0), (-26, 0),
            (20, 30), (-20, 30), (20, -30), (-20, -30), (0, 40), (0, -40), (40, 18), (-40, 18),
            (40, -18), (-40, -18)]
MARKER_PT = 5  # half the size of a marker (points), the box labels keep off


def place(ax, items, avoid=(), spans=()):
    """Annotates ax with items [(x, y, text, colour)] (data coordinates). avoid: further marker
    positions (x, y); spans: error bars (x0, y0, x1, y1). The figure's layout must be settled
    (drawn) first. A label that finds no spot clear of the other labels and markers inside the
    axes is left out. Returns, per item, whether it was labelled."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    pad = fig.dpi * MARKER_PT / 72
    px = ax.transData.transform
    markers = [Bbox.from_extents(x - pad, y - pad, x + pad, y + pad)
               for x, y in (px(xy) for xy in [*((i[0], i[1]) for i in items), *avoid])]
    bars = [Bbox([px((x0, y0)), px((x1, y1))]).padded(1) for x0, y0, x1, y1 in spans]
    labels, leaders, placed = [], [], []
    inside = ax.bbox
    for x, y, text, colour in items:
        # The text's size does not depend on where it goes: measure it once, then try the spots
        # by arithmetic (ha/va align the box's edges or centre on the offset point).
        probe = _annotate(ax, x, y, text, 0, 0, colour, leader=False)
        size = probe.get_window_extent(renderer)
        probe.remove()
        at = px((x, y))
        best = None
        for dx, dy in _OFFSETS:
            box = _box_at(at, dx, dy, size.width, size.height, fig.dpi)
            line = _leader(at, dx, dy, box)
            hard = sum(_overlap(box, b) for b in labels) + _outside(box, inside) \
                + 100 * sum(seg.intersects_bbox(box) for seg in leaders) \
                + 100 * (line is not None and sum(line.intersects_bbox(b) for b in labels))
            touch = sum(_overlap(box, b) for b in markers)
            cost = 10 * (hard + touch) + 0.1 * sum(_overlap(box, b) for b in bars)
            if best is None or cost < best[0]:
                best = (cost, box, hard == 0 and touch <= 0.1 * pad * pad, dx, dy, line)
            if cost <= 0:
                break
        _, box, ok, dx, dy, line = best
        if ok:  # away from its marker, a leader line shows whose label it is
            labels.append(box)
            leaders += [line] if line is not None else []
            _annotate(ax, x, y, text, dx, dy, colour, leader=line is not None)
        placed.append(ok)
    return placed


def _box_at(at, dx, dy, width, height, dpi):
    """The box (pixels) of a width x height text placed as _annotate places it at offset
    (dx, dy) points from the point at (pixels)."""
    x, y = at[0] + dx * dpi / 72, at[1] + dy * dpi / 72
    x0 = x if dx > 0 else x - width if dx < 0 else x - width / 2
    y0 = y if dy > 0 else y - height if dy < 0 else y - height / 2
    return Bbox.from_bounds(x0, y0, width, height)


def _leader(xy_px, dx, dy, box):
    """The leader line (pixels) from a marker to its label's box at offset (dx, dy) points, or
    None when the label sits beside its marker (no line). matplotlib aims it at the box's
    centre and cuts it at the box's edge."""
    if abs(dx) + abs(dy) <= 20:
        return None
    return Path([xy_px, ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)])


def _annotate(ax, x, y, text, dx, dy, colour, leader):
    return ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=8.5,
                       color=colour, va="center" if dy == 0 else "bottom" if dy > 0 else "top",
                       ha="left" if dx > 0 else "right" if dx < 0 else "center",
                       arrowprops=dict(arrowstyle="-", lw=0.6, color=colour, shrinkA=1,
                                       shrinkB=4) if leader else None)


def _overlap(a, b):
    """Area shared by two boxes (pixels²)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(w, 0) * max(h, 0)


def _outside(box, frame):
    """Area of box outside frame (pixels²)."""
    return box.width * box.height - _overlap(box, frame)
