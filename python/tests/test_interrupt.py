"""Ctrl-C: a SIGINT sent from another thread while the engine runs raises KeyboardInterrupt in
the caller and leaves no folder (neither OUT nor OUT.tmp); a sweep keeps only finished runs."""

import os
import signal
import threading
import time

import pytest

import dlsim
from conftest import smoke

LONG = {"/run/iterations": 1000000, "/run/eval_every": 0}  # far longer than the test waits


def interrupt_after(seconds):
    main = threading.get_ident()
    timer = threading.Timer(seconds, lambda: signal.pthread_kill(main, signal.SIGINT))
    timer.start()
    return timer


@pytest.mark.parametrize("scenario", ["detsgrad", "detsgrad-async"])
def test_sigint_stops_a_run_and_leaves_no_folder(tmp_path, scenario):
    out = tmp_path / "run"
    started = time.monotonic()
    timer = interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        dlsim.run(smoke(scenario), set=LONG, threads=2, out=out)
    timer.join()
    assert time.monotonic() - started < 10
    assert os.listdir(tmp_path) == []


def test_sigint_stops_a_run_with_a_python_trigger(tmp_path):
    timer = interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        dlsim.run(smoke("detsgrad"), set=LONG, threads=2, out=tmp_path / "run",
                  trigger=lambda a, k, d, s: k % 2 == 0)
    timer.join()
    assert os.listdir(tmp_path) == []


def test_sigint_stops_a_sweep_keeping_no_partial_run(tmp_path):
    sweep_file = tmp_path / "long.json"
    sweep_file.write_text(
        '{"base": "%s", "set": {"/run/iterations": 1000000, "/run/eval_every": 0},'
        ' "grid": {"/trigger/v0": [0.1, 0.2, 0.3]}}' % smoke("detsgrad"))
    out = tmp_path / "sweep"
    timer = interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        dlsim.sweep(sweep_file, out, jobs=2)
    timer.join()
    runs = out / "runs"
    left = os.listdir(runs) if runs.exists() else []
    assert [name for name in left if name.endswith(".tmp")] == []
    assert not (out / "sweep.csv").exists()


def test_sigint_reaches_a_sweep_whose_calling_thread_has_no_run_left(tmp_path):
    # Two jobs, a short run and a long one: whichever thread gets the short run is idle long
    # before the sweep ends, and the interrupt must still be seen.
    sweep_file = tmp_path / "uneven.json"
    sweep_file.write_text(
        '{"base": "%s", "set": {"/run/eval_every": 0},'
        ' "grid": {"/run/iterations": [10, 1000000]}}' % smoke("detsgrad"))
    out = tmp_path / "sweep"
    started = time.monotonic()
    timer = interrupt_after(1.5)
    with pytest.raises(KeyboardInterrupt):
        dlsim.sweep(sweep_file, out, jobs=2)
    timer.join()
    assert time.monotonic() - started < 10
    left = os.listdir(out / "runs")
    assert len(left) == 1 and not left[0].endswith(".tmp")  # the short run, whole
    assert not (out / "sweep.csv").exists()
