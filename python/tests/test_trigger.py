"""trigger=fn: the built-in rule in Python gives the built-in fingerprint; the calls come in the
same order for any thread count; errors in fn surface with the agent and iteration."""

import numpy as np
import pytest

import dlsim
from conftest import cli_run, smoke


@pytest.mark.parametrize("scenario", ["detsgrad", "detsgrad-async"])
def test_the_builtin_rule_in_python_gives_the_cli_fingerprint(tmp_path, scenario):
    reference = cli_run(smoke(scenario), tmp_path / "cli")
    spec = dlsim.validate(smoke(scenario))["trigger"]
    fn = dlsim.threshold_trigger(spec["v0"], spec["decay"], spec["eps"])
    for threads in (1, 3):
        r = dlsim.run(smoke(scenario), threads=threads, trigger=fn)
        assert r.fingerprint == reference["fingerprint"], threads
        assert r.summary["comm"]["events"] == reference["comm"]["events"]


def test_another_rule_changes_the_run_and_numpy_bools_are_bools():
    builtin = dlsim.run(smoke("detsgrad"), threads=1)
    never = dlsim.run(smoke("detsgrad"), threads=2, trigger=lambda a, k, d, s: np.bool_(False))
    assert never.summary["comm"]["events"] == 0
    every = dlsim.run(smoke("detsgrad"), threads=2, trigger=lambda a, k, d, s: True)
    assert every.summary["comm"]["events"] == 4 * 60
    assert builtin.summary["comm"]["events"] not in (0, 4 * 60)


@pytest.mark.parametrize("scenario", ["detsgrad", "detsgrad-async", "easgd"])
def test_calls_come_in_the_same_order_for_any_thread_count(scenario):
    def recorded(threads):
        calls = []

        def fn(agent, iteration, drift, step_size):
            calls.append((agent, iteration, drift, step_size))
            return len(calls) % 3 == 0  # depends on the order of the calls

        r = dlsim.run(smoke(scenario), set={"/run/iterations": 30}, threads=threads, trigger=fn)
        return calls, r.fingerprint

    one, fp1 = recorded(1)
    four, fp4 = recorded(4)
    assert one == four
    assert fp1 == fp4
    assert len(one) == 4 * 30
    if scenario == "detsgrad":  # sync: agent order within each iteration
        assert [a for a, *_ in one[:8]] == [0, 1, 2, 3, 0, 1, 2, 3]
        assert one[0][2] == float("inf")  # no broadcast yet: the drift is infinite


def test_an_exception_in_the_trigger_stops_the_run_naming_agent_and_iteration(tmp_path):
    def fn(agent, iteration, drift, step_size):
        if agent == 2 and iteration == 7:
            raise ValueError("my rule broke")
        return iteration == 0

    out = tmp_path / "run"
    with pytest.raises(ValueError, match="my rule broke") as e:
        dlsim.run(smoke("detsgrad"), threads=2, trigger=fn, out=out)
    notes = getattr(e.value, "__notes__", [])
    assert any("agent=2, iteration=7" in n for n in notes), notes
    assert not out.exists() and not (tmp_path / "run.tmp").exists()


def test_a_trigger_that_returns_a_non_bool_is_a_type_error():
    with pytest.raises(TypeError, match="trigger must return a bool, got float") as e:
        dlsim.run(smoke("detsgrad-async"), threads=1, trigger=lambda a, k, d, s: d)
    assert "agent 0, iteration 0" in str(e.value) or "iteration 0" in str(e.value)
    with pytest.raises(TypeError, match="got NoneType"):
        dlsim.run(smoke("detsgrad"), threads=2, trigger=lambda a, k, d, s: None)
    with pytest.raises(TypeError, match="callable"):
        dlsim.run(smoke("detsgrad"), trigger=True)


def test_an_algorithm_without_a_drift_refuses_a_trigger():
    with pytest.raises(dlsim.ScenarioError) as e:
        dlsim.run(smoke("dpsgd"), threads=1, trigger=lambda a, k, d, s: True)
    assert e.value.pointer == "/algorithm/kind"
    # A per-tensor trigger has a drift per tensor, not one to give the rule.
    with pytest.raises(dlsim.ScenarioError, match="whole model") as e:
        dlsim.run(smoke("detsgrad"), threads=1, trigger=lambda a, k, d, s: True,
                  set={"/trigger": {"kind": "adaptive", "horizon": 0.9}})
    assert e.value.pointer == "/algorithm/kind"


def test_a_python_trigger_does_not_continue_a_checkpoint(tmp_path):
    (tmp_path / "run.tmp").mkdir()
    (tmp_path / "run.tmp" / "checkpoint.bin").write_bytes(b"from an interrupted CLI run")
    with pytest.raises(dlsim.ScenarioError, match="does not continue one"):
        dlsim.run(smoke("detsgrad"), out=tmp_path / "run", trigger=lambda a, k, d, s: True)
    assert (tmp_path / "run.tmp" / "checkpoint.bin").exists()  # left for `dlsim run --resume`
