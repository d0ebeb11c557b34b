"""dlsim.sweep: the CLI's sweep, its table returned; started again, it reuses finished runs."""

import dlsim
from conftest import assert_table_equals_rows, cli, read_rows, smoke


def write_sweep(tmp_path):
    path = tmp_path / "v0.json"
    path.write_text('{"base": "%s", "set": {"/run/iterations": 20},'
                    ' "grid": {"/trigger/v0": [0, 0.05, 1]}, "seeds": [1, 2]}' % smoke("detsgrad"))
    return path


def test_the_table_equals_the_cli_sweep(tmp_path):
    path = write_sweep(tmp_path)
    table = dlsim.sweep(path, tmp_path / "py", jobs=2)
    cli("sweep", str(path), "-o", str(tmp_path / "cli"), "--jobs", "2", "--quiet")
    rows = read_rows(tmp_path / "cli" / "sweep.csv")
    assert table.path == str(tmp_path / "py" / "sweep.csv")
    assert len(table["id"]) == 6
    assert_table_equals_rows(table, rows, skip=[n for n in rows[0] if "wall" in n])
    assert set(table["status"]) == {"ok"}


def test_started_again_it_reuses_the_finished_runs(tmp_path):
    path = write_sweep(tmp_path)
    first = dlsim.sweep(path, tmp_path / "s", jobs=1)
    stamp = (tmp_path / "s" / "runs").stat().st_mtime_ns
    again = dlsim.sweep(path, tmp_path / "s", jobs=2)
    assert list(again["id"]) == list(first["id"])
    assert (tmp_path / "s" / "runs").stat().st_mtime_ns == stamp  # no run folder was replaced
