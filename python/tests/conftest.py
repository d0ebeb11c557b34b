"""Shared helpers of the Python module's tests: where the sources and build/dlsim are, and the
CLI run as a subprocess (the reference every Python result is compared with)."""

import csv
import json
import os
import subprocess

import numpy as np
import pytest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY_DIR = os.environ.get("DLSIM_BINARY_DIR", os.path.join(SOURCE, "build"))
DLSIM = os.path.join(BINARY_DIR, "dlsim")
SMOKE = os.path.join(SOURCE, "scenarios", "smoke")


def smoke(name):
    return os.path.join(SMOKE, name + ".json")


def cli(*args, check=True):
    """build/dlsim with args; returns the CompletedProcess (text)."""
    done = subprocess.run([DLSIM, *args], capture_output=True, text=True, cwd=SOURCE)
    if check and done.returncode != 0:
        raise AssertionError("dlsim {} exited {}: {}".format(" ".join(args), done.returncode,
                                                             done.stderr))
    return done


def cli_run(scenario, out, sets=(), threads=1):
    """`dlsim run` into out; returns its summary.json."""
    args = ["run", scenario, "-o", str(out), "--quiet", "--threads", str(threads)]
    for s in sets:
        args += ["--set", s]
    cli(*args)
    with open(os.path.join(str(out), "summary.json")) as f:
        return json.load(f)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def assert_table_equals_rows(table, rows, skip=()):
    """A dlsim.Table equals a CSV file's rows: numeric columns as float64 (empty cells NaN),
    the others (metrics.csv's agent column: 0, 1, ..., "avg") as the strings themselves."""
    assert list(table) == rows[0]
    for i, name in enumerate(rows[0]):
        if name in skip:
            continue
        cells = [row[i] for row in rows[1:]]
        if table[name].dtype.kind == "f":
            expected = np.array([float(c) if c else np.nan for c in cells])
            np.testing.assert_array_equal(table[name], expected, err_msg=name)
        else:
            assert list(table[name]) == cells, name


@pytest.fixture(scope="session", autouse=True)
def built_cli():
    if not os.path.exists(DLSIM):
        pytest.fail("build/dlsim is missing: the tests compare against it")
