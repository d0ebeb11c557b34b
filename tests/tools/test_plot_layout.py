#!/usr/bin/python3
"""tools/plot.py's sweep figures for a battery of sweep shapes (grid only, zip only, grid x zip,
seeds only, one run, 1 to 40 variants, long JSON values), drawn in-process and checked on the
figures as they are saved: every text and legend inside the image, every point labelled or in
the legend, labels not on top of each other, no panel mixing two values of a panel key, and each
panel's Pareto front made of that panel's non-dominated points.
Run: /usr/bin/python3 tests/tools/test_plot_layout.py"""

import argparse
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))

import make_fake_sweep  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from plotting import (common, run_data, run_plots, sweep_data, sweep_parts,  # noqa: E402
                      sweep_plots)

NAMES = ["dpsgd", "detsgrad", "sparq-top1", "sparq-top10", "choco-top1", "choco-sign",
         "naive-dpsgd-top1"]
ALGOS = [{"kind": "dpsgd"}, {"kind": "detsgrad", "a": 0.1, "b": 0.2525},
         {"kind": "detsgrad", "a": 0.1, "b": 0.02, "compression": {"kind": "top_k",
                                                                   "fraction": 0.01}},
         {"kind": "detsgrad", "a": 0.1, "b": 0.1, "compression": {"kind": "top_k",
                                                                  "fraction": 0.1}},
         {"kind": "choco", "gamma": 0.05, "compression": {"kind": "top_k", "fraction": 0.01}},
         {"kind": "choco", "gamma": 0.3, "compression": {"kind": "sign"}},
         {"kind": "dpsgd", "compression": {"kind": "top_k", "fraction": 0.01}}]
PARTITIONS = [{"kind": "by_label", "labels_per_agent": 1}, {"kind": "iid"}]


def many(n):
    return {"/name": [f"variant-{i:02d}" for i in range(n)],
            "/algorithm": [{"kind": "detsgrad", "a": 0.1, "b": round(0.01 * (i + 1), 2)}
                           for i in range(n)]}


# name: (sweep shape, the keys expected as panels, a key expected along the points or None)
SHAPES = {
    "grid-only": (dict(grid={"/trigger/v0": [0, 0.1, 0.3, 1, 3],
                             "/topology/kind": ["ring", "torus"]}, seeds=(1, 2)),
                  ["/topology/kind"], "/trigger/v0"),
    "zip-only": (dict(zipped={"/name": NAMES, "/algorithm": ALGOS}, seeds=(1, 2)), [], "/name"),
    "grid-x-zip": (dict(grid={"/data/partition": PARTITIONS},
                        zipped={"/name": NAMES, "/algorithm": ALGOS}, seeds=(1, 2),
                        description="Bytes against accuracy, one digit per agent and i.i.d."),
                   ["/data/partition"], "/name"),
    "two-panel-keys": (dict(grid={"/data/partition": PARTITIONS,
                                  "/topology/kind": ["ring", "torus"]},
                            zipped={"/name": NAMES[:4], "/algorithm": ALGOS[:4]}),
                       ["/data/partition", "/topology/kind"], "/name"),
    "curves-and-panels": (dict(grid={"/data/partition": PARTITIONS,
                                     "/optimizer/lr": [0.01, 0.02, 0.05, 0.1, 0.2, 0.5],
                                     "/trigger/v0": [0, 0.1, 0.3, 1, 3, 10, 30]}),
                          ["/data/partition"], "/trigger/v0"),
    "names-fewer-than-a-grid-key": (dict(grid={"/trigger/v0": [0, 0.1, 0.3, 1, 3]},
                                         zipped={"/name": NAMES[:3], "/algorithm": ALGOS[:3]}),
                                    [], "/name"),
    "crowded": (dict(zipped={"/name": NAMES + ["extra-a", "extra-b", "extra-c"],
                             "/algorithm": ALGOS + ALGOS[:3]}, crowded=True), [], "/name"),
    "seeds-only": (dict(seeds=(1, 2, 3)), [], None),
    "one-run": (dict(), [], None),
    "one-variant": (dict(zipped={"/name": ["only"], "/algorithm": [ALGOS[1]]}), [], None),
    "forty-variants": (dict(grid={"/data/partition": PARTITIONS}, zipped=many(40)),
                       ["/data/partition"], "/name"),
    "long-values": (dict(grid={"/topology": [{"kind": "ring"}, {"kind": "torus", "rows": 4}]},
                         zipped={"/algorithm": ALGOS,
                                 "/trigger": [{"kind": "threshold", "v0": 0.1 * i,
                                               "decay": 0.1, "granularity": "layer"}
                                              for i in range(7)]}),
                    ["/topology"], "/algorithm"),
}


def args(**over):
    base = dict(along=None, comm="bytes", accuracy="mean", spread="minmax", formats=["png"])
    return argparse.Namespace(**{**base, **over})


class LayoutTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dlsim-plot-layout-")
        cls.drawn = {}
        for name, (shape, _, _) in SHAPES.items():
            folder = os.path.join(cls.tmp, f"out-{name}")  # the title is the sweep's name
            make_fake_sweep.write_shaped_sweep(folder, name, **shape)
            sweep = sweep_data.Sweep(folder, args())
            figs = sweep_plots.figures(sweep, args())
            for _, fig in figs:  # as save_figure writes them: at the saving resolution
                fig.set_dpi(common.STYLE["savefig.dpi"])
                fig.draw_without_rendering()
            cls.drawn[name] = (sweep, figs)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def shapes(self):
        """(name, Sweep, [(stem, Figure)]) of each shape."""
        return [(name, sweep, figs) for name, (sweep, figs) in self.drawn.items()]

    def test_every_text_and_legend_lies_inside_the_image_clear_of_the_panels(self):
        for name, _, figs in self.shapes():
            with self.subTest(shape=name):
                for stem, fig in figs:
                    assert_inside(self, fig, f"{name}/{stem}")

    def test_every_point_is_labelled_or_in_the_legend_and_labels_never_collide(self):
        for name, sweep, figs in self.shapes():
            with self.subTest(shape=name):
                fig = figs[0][1]
                renderer = fig.canvas.get_renderer()
                legend = {t.get_text() for leg in legends(fig) for t in leg.get_texts()}
                for ax in panels(fig):
                    notes = [t for t in ax.texts if t.get_text()]
                    for line, (x, y) in drawn_points(ax):
                        named = any(close(t.xy, (x, y)) for t in notes)
                        self.assertTrue(named or series_label(ax, line) in legend,
                                        f"{name}: point ({x}, {y}) neither labelled nor in legend")
                    boxes = [text_box(t, renderer) for t in notes]
                    for i, a in enumerate(boxes):
                        for b in boxes[i + 1:]:
                            self.assertFalse(a.overlaps(b), f"{name}: labels overlap: {a} {b}")
                    for t in notes:  # a leader line crosses no other label
                        if t.arrow_patch is None:
                            continue
                        line = t.arrow_patch._get_path_in_displaycoord()[0]
                        line = line[0] if isinstance(line, list) else line
                        for other, box in zip(notes, boxes):
                            self.assertFalse(other is not t and line.intersects_bbox(box),
                                             f"{name}: {t.get_text()}'s line crosses "
                                             f"{other.get_text()}")

    def test_tick_labels_never_overlap(self):
        for name, _, figs in self.shapes():
            with self.subTest(shape=name):
                for stem, fig in figs:
                    renderer = fig.canvas.get_renderer()
                    for ax in panels(fig):
                        for axis, lim in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
                            lo, hi = sorted(lim)
                            boxes = [t.label1.get_window_extent(renderer)
                                     for t in axis.get_major_ticks()
                                     if t.label1.get_visible() and t.label1.get_text()
                                     and lo <= t.get_loc() <= hi]
                            for i, a in enumerate(boxes):
                                for b in boxes[i + 1:]:
                                    self.assertFalse(a.overlaps(b),
                                                     f"{name}/{stem}: tick labels overlap")

    def test_layout_is_chosen_from_the_sweep_and_titled_by_its_name(self):
        for name, sweep, figs in self.shapes():
            with self.subTest(shape=name):
                _, panel_keys, along = SHAPES[name]
                lay = sweep.layout
                self.assertEqual(sorted(k for d in lay.panel_dims for k in d.keys),
                                 sorted(panel_keys))
                if along:
                    self.assertIn(along, lay.along.keys)
                else:
                    self.assertIsNone(lay.along)
                for stem, fig in figs:
                    self.assertEqual(fig._suptitle.get_text().splitlines()[0], name, stem)

    def test_without_sweep_json_the_zip_is_inferred_from_values_that_pair_one_to_one(self):
        for name in ("grid-x-zip", "two-panel-keys", "grid-only"):
            with self.subTest(shape=name):
                folder = os.path.join(self.tmp, f"bare-{name}")
                shutil.copytree(os.path.join(self.tmp, f"out-{name}"), folder)
                os.remove(os.path.join(folder, "sweep.json"))
                bare, full = sweep_data.Sweep(folder, args()).layout, self.drawn[name][0].layout
                self.assertEqual([d.keys for d in bare.panel_dims],
                                 [d.keys for d in full.panel_dims])
                self.assertEqual(bare.along.keys, full.along.keys)
                self.assertEqual(sweep_data.Sweep(folder, args()).title, f"bare-{name}")

    def test_no_panel_mixes_two_values_of_a_panel_key(self):
        for name, sweep, figs in self.shapes():
            with self.subTest(shape=name):
                panel_keys = SHAPES[name][1]
                where = point_coordinates(sweep)
                seen = set()
                for ax in panels(figs[0][1]):
                    values = {tuple(where[round_xy(xy)].values[k] for k in panel_keys)
                              for _, xy in drawn_points(ax)}
                    self.assertEqual(len(values), 1, f"{name}: a panel mixes {values}")
                    seen |= values
                expected = {tuple(p.values[k] for k in panel_keys) for p in sweep.points}
                self.assertEqual(seen, expected, f"{name}: panels missing")

    def test_each_panel_has_the_pareto_front_of_its_own_points(self):
        for name, sweep, figs in self.shapes():
            with self.subTest(shape=name):
                for ax in panels(figs[0][1]):
                    pts = [xy for _, xy in drawn_points(ax)]
                    front = [(x, y) for x, y in pts
                             if not any(a <= x and b >= y and (a, b) != (x, y) for a, b in pts)]
                    rings = [tuple(xy) for line in ax.lines if line.get_gid() == "pareto"
                             for xy in line.get_xydata()]
                    self.assertEqual(sorted(map(round_xy, rings)), sorted(map(round_xy, front)),
                                     name)


class RunLayoutTest(unittest.TestCase):
    """The figures of single runs: few agents, many agents (a band), a quadratic model (two
    rows), an EASGD centre; accuracy against communication beside accuracy against iterations."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dlsim-plot-run-layout-")
        cls.drawn = {}
        for name, kwargs, comm in [("four-agents", dict(agents=4), "events"),
                                   ("sixteen-agents", dict(agents=16), "bytes"),
                                   ("quadratic", dict(agents=6, quadratic=True), "messages"),
                                   ("centre", dict(agents=3, center=True), "bytes")]:
            folder = os.path.join(cls.tmp, name)
            make_fake_sweep.write_run(folder, name=f"run {name}", **kwargs)
            data, title = run_data.load(folder)
            figs = run_plots.figures(data, title, comm)
            for _, fig in figs:
                fig.set_dpi(common.STYLE["savefig.dpi"])
                fig.draw_without_rendering()
            cls.drawn[name] = (data, comm, figs)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_every_text_and_legend_lies_inside_the_image_clear_of_the_panels(self):
        for name, (_, _, figs) in self.drawn.items():
            with self.subTest(run=name):
                for stem, fig in figs:
                    assert_inside(self, fig, f"{name}/{stem}")

    def test_communication_panel_draws_the_same_curves_against_all_agents_traffic(self):
        for name, (data, comm, figs) in self.drawn.items():
            with self.subTest(run=name):
                stem, fig = figs[1]
                self.assertTrue(stem.endswith(f"_vs_{comm}"), stem)
                col = run_plots.COMM[comm][0]
                total = [sum(r) for r in data.agent[col]]  # every agent's counter, summed
                ratio = total[-1] / fig.axes[1].lines[0].get_xdata()[-1]
                div = min((1, 1e3, 1e6, 1e9), key=lambda d: abs(ratio / d - 1))
                self.assertAlmostEqual(ratio / div, 1, places=9)
                rows = [fig.axes[i:i + 2] for i in range(0, len(fig.axes), 2)]
                for left, right in rows:
                    self.assertEqual(len(left.lines), len(right.lines))
                    for a, b in zip(left.lines, right.lines):
                        self.assertEqual(list(a.get_xdata()), data.points)
                        self.assertEqual(list(b.get_ydata()), list(a.get_ydata()))
                        for x, t in zip(b.get_xdata(), total):
                            self.assertAlmostEqual(x * div, t, delta=1e-9 * max(1, t))


def assert_inside(test, fig, what):
    """Every axes (with its tick labels, titles, labels, annotations), figure text and legend
    inside the image; the figure's texts and legends off the panels."""
    renderer = fig.canvas.get_renderer()
    frame = fig.bbox.padded(0.5)
    boxes = [(ax, ax.get_tightbbox(renderer)) for ax in fig.axes if ax.get_visible()]
    outer = [(t, t.get_window_extent(renderer)) for t in fig.texts]
    outer += [(leg, leg.get_window_extent(renderer)) for leg in legends(fig)]
    for artist, box in boxes + outer:
        test.assertTrue(frame.x0 <= box.x0 and box.x1 <= frame.x1 and
                        frame.y0 <= box.y0 and box.y1 <= frame.y1,
                        f"{what}: {artist} at {box} outside {fig.bbox}")
    # Titles and legends sit beside the panels, never on them (a legend beside its own axes is
    # part of that axes' decorations: it must only keep off its plotting area).
    for artist, box in outer:
        for ax in panels(fig):
            own = getattr(artist, "axes", None) is ax
            test.assertFalse(box.overlaps(ax.bbox if own else ax.get_tightbbox(renderer)),
                             f"{what}: {artist} over a panel")


def legends(fig):
    """Every legend of a figure: the figure's own and its axes'."""
    return list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]


def panels(fig):
    """The visible panels of a figure (the legend row has no data lines)."""
    return [ax for ax in fig.axes if ax.get_visible() and ax.lines]


def drawn_points(ax):
    """(line, (x, y)) for every mean marker drawn (not error bar caps, not the front's rings)."""
    out = []
    for line in ax.lines:
        if line.get_gid() == "pareto" or line.get_marker() in ("None", "", None, "|", "_"):
            continue
        out += [(line, (x, y)) for x, y in line.get_xydata()]
    return out


def text_box(note, renderer):
    """The box of an annotation's text, without its leader line."""
    note.update_positions(renderer)
    return Text.get_window_extent(note, renderer)


def series_label(ax, line):
    """The legend label of a line: its errorbar container's (errorbar() labels the container)."""
    return next((c.get_label() for c in ax.containers if c.lines[0] is line), line.get_label())


def point_coordinates(sweep):
    """{rounded (x, y): point} with the figure's scaling of communication."""
    div = sweep_parts.comm_scale(sweep)[0]
    return {round_xy((p.comm.mean / div, p.quality.mean)): p for p in sweep.points}


def round_xy(xy):
    return (round(float(xy[0]), 6), round(float(xy[1]), 6))


def close(a, b):
    return round_xy(a) == round_xy(b)


if __name__ == "__main__":
    unittest.main(verbosity=2)
