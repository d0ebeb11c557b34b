#!/usr/bin/python3
"""tools/plot.py on made-up run and sweep folders (no simulator needed): every figure is written
as a real PNG and SVG, options change what is drawn, and bad input exits 2 with one line naming
the file and leaves no plot behind. Run: /usr/bin/python3 tests/tools/test_plot.py"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLOT = os.path.join(ROOT, "tools", "plot.py")
sys.path.insert(0, HERE)

import make_fake_sweep  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def start(*args):
    return subprocess.Popen(["/usr/bin/python3", PLOT, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(process):
    out, err = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def plot(*args):
    return finish(start(*args))


class PlotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dlsim-plot-test-")
        cls.run_dir = os.path.join(cls.tmp, "run")
        make_fake_sweep.write_run(cls.run_dir, name="tiny-run", agents=4)
        cls.quad = os.path.join(cls.tmp, "quad")
        make_fake_sweep.write_run(cls.quad, name="tiny-quadratic", agents=16, quadratic=True)
        cls.sweep = os.path.join(cls.tmp, "sweep")
        make_fake_sweep.write_synthetic_sweep(cls.sweep, v0s=(0, 0.1, 1), seeds=(1, 2))
        # The drawing runs are the slow part: start them together, on all cores.
        cls.quad_plots = os.path.join(cls.tmp, "quad-plots")
        cls.options_plots = os.path.join(cls.tmp, "sweep-options")
        cls.jobs = {
            "run": start(cls.run_dir),
            "quad": start(cls.quad, "-o", cls.quad_plots, "--format", "png"),
            "sweep": start(cls.sweep),
            "options": start(cls.sweep, "--comm", "bytes", "--accuracy", "min", "--spread",
                             "sem", "--along", "/topology/kind", "--format", "svg", "-o",
                             cls.options_plots, "--no-report"),
        }

    @classmethod
    def tearDownClass(cls):
        for job in cls.jobs.values():
            if job.poll() is None:  # a test failed before waiting for it
                job.kill()
                job.communicate()
        shutil.rmtree(cls.tmp)

    def assert_figures(self, folder, stems, formats=("png", "svg"), stdout=None, report=True):
        self.assertEqual(sorted(os.listdir(folder)),
                         sorted([f"{s}.{f}" for s in stems for f in formats]
                                + (["report.html"] if report else [])))
        for stem in stems:
            for fmt in formats:
                path = os.path.join(folder, f"{stem}.{fmt}")
                with open(path, "rb") as f:
                    data = f.read()
                self.assertGreater(len(data), 1000, path)
                if fmt == "png":
                    self.assertEqual(data[:8], PNG_MAGIC, path)
                else:
                    self.assertEqual(ET.fromstring(data).tag, "{http://www.w3.org/2000/svg}svg")
                if stdout is not None:
                    self.assertIn(path, stdout.splitlines())

    def assert_input_error(self, result, *named):
        self.assertEqual(result.returncode, 2, result.stderr)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        for text in named:
            self.assertIn(text, lines[0])
        self.assertEqual(result.stdout, "")

    def test_run_folder_writes_every_figure_as_png_and_svg(self):
        r = finish(self.jobs["run"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(os.path.join(self.run_dir, "plots"), ["accuracy_vs_iteration",
                            "accuracy_vs_events", "accuracy_vs_time", "events_vs_time",
                            "consensus_vs_iteration"],
                            stdout=r.stdout)

    def test_center_rows_are_read_and_drawn(self):
        folder = os.path.join(self.tmp, "easgd")
        make_fake_sweep.write_run(folder, name="tiny-easgd", agents=3, center=True)
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from plotting import run_data  # noqa: E402
        data, _ = run_data.load(folder)
        self.assertEqual(data.agents, [0, 1, 2])
        self.assertTrue(all(v is not None for v in data.center["test_accuracy"]))
        self.assertTrue(all(c < a for c, a in zip(data.center["test_accuracy"],
                                                 data.avg["test_accuracy"])))
        r = plot(folder, "--format", "png")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(os.path.join(folder, "plots"), ["accuracy_vs_iteration",
                            "accuracy_vs_events", "accuracy_vs_time", "events_vs_time",
                            "consensus_vs_iteration"],
                            formats=("png",))

    def test_tensor_sends_axis_reads_its_column_and_names_it_when_missing(self):
        folder = os.path.join(self.tmp, "tensors")
        make_fake_sweep.write_run(folder, name="tiny-tensors", agents=3, tensor_sends=True)
        r = plot(folder, "--comm", "tensor_sends", "--format", "svg", "--no-report")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(os.path.join(folder, "plots"), ["accuracy_vs_iteration",
                            "accuracy_vs_tensor_sends", "accuracy_vs_time", "events_vs_time",
                            "consensus_vs_iteration"], formats=("svg",), report=False)
        with open(os.path.join(folder, "plots", "accuracy_vs_tensor_sends.svg"),
                  encoding="utf-8") as f:
            self.assertIn("tensor sends", f.read())
        # A metrics.csv from before the column: one line naming it, no plot.
        older = os.path.join(self.tmp, "no-tensor-plots")
        self.assert_input_error(plot(self.run_dir, "--comm", "tensor_sends", "-o", older),
                                "metrics.csv", "tensor_sends")
        self.assertFalse(os.path.exists(older))

    def test_quadratic_run_plots_loss_and_distance_instead_of_accuracy(self):
        r = finish(self.jobs["quad"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(self.quad_plots, ["loss_vs_iteration", "loss_vs_events",
                                              "loss_vs_time", "events_vs_time",
                                              "consensus_vs_iteration"], formats=("png",))

    def test_sweep_folder_skips_failed_runs_and_says_so(self):
        r = finish(self.jobs["sweep"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("skipped 1 of 12 runs (1 failed)", r.stderr)
        self.assert_figures(os.path.join(self.sweep, "plots"),
                            ["events_vs_accuracy", "accuracy_vs_key", "events_vs_key"],
                            stdout=r.stdout)

    def test_sweep_options_bytes_min_sem_along_categorical_key(self):
        r = finish(self.jobs["options"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_figures(self.options_plots,
                            ["bytes_vs_accuracy", "accuracy_vs_key", "bytes_vs_key"],
                            formats=("svg",), report=False)

    def test_spread_of_equal_values_is_never_negative(self):
        # The mean of three 0.1 is an ulp above 0.1: a negative bar would crash errorbar().
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from plotting.sweep_data import Stat
        stat = Stat([0.1, 0.1, 0.1], "minmax")
        self.assertGreaterEqual(stat.lo, 0.0)
        self.assertGreaterEqual(stat.hi, 0.0)

    def test_object_values_read_as_the_fields_that_differ(self):
        sys.path.insert(0, os.path.join(ROOT, "tools"))
        from plotting.value_labels import short_labels
        gossip = '{"alpha":0.5,"kind":"elastic_gossip","p":0.1}'
        dpsgd = '{"alpha":0.5,"kind":"dpsgd"}'
        self.assertEqual(short_labels([gossip, dpsgd]),
                         {gossip: "elastic_gossip, p = 0.1", dpsgd: "dpsgd"})
        self.assertEqual(short_labels(['{"kind":"iid"}', '{"kind":"by_label","labels_per_agent":1}',
                                       ""]),
                         {'{"kind":"iid"}': "iid", "": "none",
                          '{"kind":"by_label","labels_per_agent":1}':
                              "by_label, labels_per_agent = 1"})
        self.assertEqual(short_labels(["ring", "torus"]), {"ring": "ring", "torus": "torus"})
        long = ['{"kind":"top_k","fraction":0.01,"note":"%s"}' % ("x" * i * 30) for i in (1, 2)]
        self.assertTrue(all(len(v) <= 49 for v in short_labels(long).values()))

    def test_missing_folder_exits_2_naming_it(self):
        missing = os.path.join(self.tmp, "nope")
        self.assert_input_error(plot(missing), missing)

    def test_folder_without_outputs_exits_2_naming_it(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty, exist_ok=True)
        self.assert_input_error(plot(empty), empty, "metrics.csv", "sweep.csv")
        self.assertEqual(os.listdir(empty), [])

    def broken_copy(self, source, name, csv_name, line, text):
        """A copy of source whose csv_name has its line (1-based) replaced by text."""
        folder = os.path.join(self.tmp, name)
        shutil.copytree(source, folder, ignore=shutil.ignore_patterns("plots"))
        path = os.path.join(folder, csv_name)
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        lines[line - 1] = text
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return folder, path

    def test_malformed_metrics_exit_2_naming_file_and_line(self):
        folder, path = self.broken_copy(self.run_dir, "bad-cells", "metrics.csv", 4, "20,0.06,1")
        self.assert_input_error(plot(folder), f"{path}:4:")
        self.assertFalse(os.path.exists(os.path.join(folder, "plots")))
        folder, path = self.broken_copy(self.run_dir, "bad-number", "metrics.csv", 3,
                                        "0,0,1,2.4,zero,,0,0,0,0")
        self.assert_input_error(plot(folder), f"{path}:3:", "test_accuracy", "'zero'")
        self.assertFalse(os.path.exists(os.path.join(folder, "plots")))

    def test_malformed_sweep_exit_2_naming_file_and_line(self):
        folder, path = self.broken_copy(self.sweep, "bad-sweep", "sweep.csv", 1, "id,seed,x")
        self.assert_input_error(plot(folder), f"{path}:1:", "missing column")
        folder, path = self.broken_copy(self.sweep, "bad-events", "sweep.csv", 5,
                                        "0003-s1,1,1,ring,ok,0.8,0.7,0.9,0.8,0.2,0.1,,,,,,,,")
        self.assert_input_error(plot(folder), f"{path}:5:", "events")
        self.assertFalse(os.path.exists(os.path.join(folder, "plots")))

    def test_unknown_along_key_exits_2(self):
        self.assert_input_error(plot(self.sweep, "--along", "/nope", "-o",
                                     os.path.join(self.tmp, "x")), "/nope", "sweep.csv")

    def test_script_runs_under_debian_python(self):
        with open(PLOT, encoding="utf-8") as f:
            self.assertEqual(f.readline().strip(), "#!/usr/bin/python3")
        self.assertTrue(os.access(PLOT, os.X_OK))


if __name__ == "__main__":
    unittest.main(verbosity=2)
