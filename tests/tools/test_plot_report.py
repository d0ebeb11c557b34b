#!/usr/bin/python3
"""report.html from tools/plot.py, opened in a real browser (Debian's chromium, headless, with
every host name unresolvable and a net log of what the page requested): it loads from disk with
no console message and no request of its own, its script finishes, the sweep table sorts in the
browser, and a screenshot shows the plots. `bash tools/setup.sh --tests` installs chromium;
without it the test reports itself skipped. Run: /usr/bin/python3 tests/tools/test_plot_report.py"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLOT = os.path.join(ROOT, "tools", "plot.py")
sys.path.insert(0, HERE)

import make_fake_sweep  # noqa: E402
import matplotlib.image  # noqa: E402

CHROMIUM = shutil.which("chromium")


def browser(url, *extra):
    """Runs headless chromium on url; returns (stdout, the page's console lines and the
    requests the page itself made, from chromium's net log: any is a failure)."""
    with tempfile.TemporaryDirectory() as tmp:
        netlog = os.path.join(tmp, "net.json")
        r = subprocess.run([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
                            "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
                            "--host-resolver-rules=MAP * ~NOTFOUND", f"--log-net-log={netlog}",
                            "--virtual-time-budget=3000", *extra, url],
                           capture_output=True, text=True, timeout=120)
        with open(netlog, encoding="utf-8", errors="replace") as f:
            log = f.read()
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    # The browser's own traffic (updates, accounts) has no origin; a file:// page's is "null".
    loads = sorted(set(re.findall(r'"initiator":"(?!not an origin)[^"]*"', log)))
    return r.stdout, console + loads


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dlsim-report-test-")
        cls.run_dir = os.path.join(cls.tmp, "run")
        make_fake_sweep.write_run(cls.run_dir, name="report-run", agents=4)
        summary_path = os.path.join(cls.run_dir, "summary.json")
        with open(summary_path, encoding="utf-8") as f:
            summary = json.load(f)
        summary["warnings"] = ["agent 3 held no sample of digit 7 <on purpose>"]
        with open(summary_path, "w", encoding="utf-8") as f:
            json.dump(summary, f)
        cls.sweep_dir = os.path.join(cls.tmp, "sweep")
        make_fake_sweep.write_synthetic_sweep(cls.sweep_dir, v0s=(0, 0.1, 1), seeds=(1, 2))
        jobs = [subprocess.Popen(["/usr/bin/python3", PLOT, folder, "--format", "png"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for folder in (cls.run_dir, cls.sweep_dir)]
        cls.printed = [job.communicate(timeout=120)[0] for job in jobs]
        for job in jobs:
            assert job.returncode == 0, job.args

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def report(self, folder):
        return os.path.join(folder, "plots", "report.html")

    def test_plot_writes_report_html_beside_the_plots_and_prints_its_path(self):
        for folder, printed in zip((self.run_dir, self.sweep_dir), self.printed):
            self.assertIn(self.report(folder), printed.splitlines())

    def test_report_loads_nothing_from_elsewhere(self):
        for folder in (self.run_dir, self.sweep_dir):
            with open(self.report(folder), encoding="utf-8") as f:
                text = f.read()
            # Only in-page references (#id); namespaces (xmlns=) are names, not loads.
            self.assertEqual(re.findall(r'\b(?:src|href)\s*=\s*"(?!#)[^"]*"', text), [])
            self.assertNotRegex(text, r"<link\b|@import|url\((?!#)")

    def test_opens_in_chromium_with_no_console_message_and_every_plot_inline(self):
        for folder in (self.run_dir, self.sweep_dir):
            dom, console = browser("file://" + self.report(folder), "--dump-dom")
            self.assertEqual(console, [], folder)
            self.assertRegex(dom, r'<body[^>]*data-ready="1"')
            self.assertNotIn("data-error", dom)
            stems = sorted(os.path.splitext(f)[0] for f in os.listdir(os.path.join(folder,
                                                                                  "plots"))
                           if f.endswith(".png"))
            captions = sorted(re.findall(r"<figcaption>([^<]*)</figcaption>", dom))
            self.assertEqual(captions, stems)
            self.assertEqual(len(re.findall(r"<svg\b", dom)), len(stems))

    def test_run_report_shows_its_warnings_and_summary(self):
        dom, _ = browser("file://" + self.report(self.run_dir), "--dump-dom")
        self.assertIn("agent 3 held no sample of digit 7 &lt;on purpose&gt;", dom)
        self.assertRegex(dom, r"<th>name</th><td>report-run</td>")

    def test_sweep_table_sorts_in_the_browser(self):
        with open(os.path.join(self.sweep_dir, "sweep.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        for column, descending in (("accuracy_mean", True), ("events", False), ("id", True)):
            with self.subTest(column=column, descending=descending):
                sign = "-" if descending else ""
                url = f"file://{self.report(self.sweep_dir)}#sort={sign}{column}"
                dom, console = browser(url, "--dump-dom")
                self.assertEqual(console, [])
                body = dom[dom.index("<tbody>"):]
                shown = re.findall(r"<tr><td[^>]*>([^<]*)</td>", body)
                numeric = column != "id"
                full = [r for r in rows if r[column] != ""]
                key = (lambda r: float(r[column])) if numeric else (lambda r: r[column])
                expected = [r["id"] for r in sorted(full, key=key, reverse=descending)]
                expected += [r["id"] for r in rows if r[column] == ""]  # empty cells last
                self.assertEqual(shown, expected)
                order = "descending" if descending else "ascending"
                self.assertIn(f'<th aria-sort="{order}">{column}</th>', dom)

    def test_screenshot_shows_the_plots(self):
        for folder in (self.run_dir, self.sweep_dir):
            shot = os.path.join(self.tmp, os.path.basename(folder) + ".png")
            _, console = browser("file://" + self.report(folder), f"--screenshot={shot}",
                                 "--window-size=1280,1600")
            self.assertEqual(console, [])
            pixels = matplotlib.image.imread(shot)[:, :, :3]
            # Text, rules and tables are black and grey: coloured pixels are the plots' series.
            coloured = (pixels.max(axis=2) - pixels.min(axis=2) > 0.3).sum()
            self.assertGreater(coloured, 3000, f"{shot}: no plot on screen")


if __name__ == "__main__":
    if CHROMIUM is None:  # 77: ctest's SKIP_RETURN_CODE for this test (tests/CMakeLists.txt)
        print("skipped: chromium is not installed (bash tools/setup.sh --tests)")
        sys.exit(77)
    unittest.main(verbosity=2)
