"""dlsim.run and dlsim.validate against the CLI: the same fingerprint, the same metrics.csv, the
same folder; a dict and a path give the same run; no leftovers without `out`."""

import json
import os
import tempfile

import numpy as np

import dlsim
from conftest import assert_table_equals_rows, cli_run, read_rows, smoke


def test_fingerprint_and_metrics_equal_the_cli(tmp_path):
    reference = cli_run(smoke("detsgrad"), tmp_path / "cli")
    r = dlsim.run(smoke("detsgrad"), threads=2)
    assert r.fingerprint == reference["fingerprint"]
    assert r.summary["comm"] == reference["comm"]
    assert r.summary["final"] == reference["final"]
    rows = read_rows(tmp_path / "cli" / "metrics.csv")
    assert list(r.metrics) == rows[0]
    assert_table_equals_rows(r.metrics, rows)
    with open(tmp_path / "cli" / "scenario.json") as f:
        assert r.scenario == json.load(f)


def test_async_run_and_set_equal_the_cli(tmp_path):
    sets = {"/trigger/v0": 0.2, "/run/iterations": 40}
    reference = cli_run(smoke("detsgrad-async"), tmp_path / "cli",
                        ["/trigger/v0=0.2", "/run/iterations=40"])
    r = dlsim.run(smoke("detsgrad-async"), set=sets, threads=3)
    assert r.fingerprint == reference["fingerprint"]
    assert r.scenario["trigger"]["v0"] == 0.2


def test_a_dict_and_its_file_give_the_same_run():
    with open(smoke("dpsgd")) as f:
        scenario = json.load(f)
    from_path = dlsim.run(smoke("dpsgd"), threads=1)
    from_dict = dlsim.run(scenario, threads=2)
    assert from_dict.fingerprint == from_path.fingerprint
    assert from_dict.summary["final"] == from_path.summary["final"]
    for name in from_path.metrics:
        np.testing.assert_array_equal(from_dict.metrics[name], from_path.metrics[name])


def test_out_is_the_cli_folder_and_no_out_leaves_nothing(tmp_path):
    def ours():  # other tests run at the same time may use the temporary folder too
        return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("dlsim-run-")}

    before = ours()
    r = dlsim.run(smoke("gossip-push"), threads=1, out=tmp_path / "py")
    assert r.out == str(tmp_path / "py")
    assert sorted(os.listdir(tmp_path / "py")) == ["metrics.csv", "scenario.json", "summary.json"]
    cli_run(smoke("gossip-push"), tmp_path / "cli")
    for name in ("metrics.csv", "scenario.json"):
        assert (tmp_path / "py" / name).read_text() == (tmp_path / "cli" / name).read_text()
    assert not os.path.exists(str(tmp_path / "py") + ".tmp")
    assert dlsim.run(smoke("gossip-push"), threads=1).out is None
    assert ours() - before == set()


def test_validate_returns_the_resolved_scenario(tmp_path):
    resolved = dlsim.validate(smoke("detsgrad"), set={"/model/init": "pytorch"})
    assert resolved["model"]["init"] == "pytorch"
    assert resolved["trigger"]["v0"] == 0.05
    r = dlsim.run(resolved, threads=1)  # the resolved scenario runs as its source does
    assert r.scenario["model"]["init"] == "pytorch"
    assert r.fingerprint == cli_run(smoke("detsgrad"), tmp_path / "cli",
                                    ["/model/init=\"pytorch\""])["fingerprint"]


def test_to_pandas_when_pandas_is_installed():
    import pytest
    pandas = pytest.importorskip("pandas")
    frame = dlsim.run(smoke("none"), threads=1).to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert "test_accuracy" in frame.columns
