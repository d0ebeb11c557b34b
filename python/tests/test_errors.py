"""Bad input: dlsim.validate and dlsim.run raise ScenarioError with the CLI's message, file and
JSON pointer, for a sample of the inputs the CLI rejects with exit code 2."""

import json

import pytest

import dlsim
from conftest import cli, smoke

# (scenario, --set assignment): each one a different check of the loader or the world builder.
BAD = [
    ("detsgrad", "/agents=\"ten\""),
    ("detsgrad", "/network/bandwidth=\"10 MB\""),
    ("detsgrad", "/network/latncy=\"1ms\""),
    ("detsgrad", "/trigger/v0=-1"),
    ("detsgrad", "/model/init=\"xavier\""),
    ("detsgrad", "/algorithm/kind=\"gossipy\""),
    ("dpsgd", "/trigger={\"kind\": \"always\"}"),
    ("gossip-push", "/trigger/p=1.5"),
    ("easgd", "/time/mode=\"sometimes\""),
    ("quadratic-detsgrad", "/model/init=\"pytorch\""),
    ("detsgrad", "/data/batch_size=0"),
]


def cli_error(scenario, assignment):
    done = cli("validate", smoke(scenario), "--set", assignment, check=False)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("dlsim: ")
    return line[len("dlsim: "):]


@pytest.mark.parametrize("scenario,assignment", BAD)
def test_the_same_error_as_the_cli(scenario, assignment):
    expected = cli_error(scenario, assignment)
    pointer, value = assignment.split("=", 1)
    with pytest.raises(dlsim.ScenarioError) as e:
        dlsim.validate(smoke(scenario), set={pointer: json.loads(value)})
    assert str(e.value) == expected
    assert e.value.file == smoke(scenario)
    assert e.value.pointer is not None and expected.startswith(
        "{}: {}: ".format(e.value.file, e.value.pointer))
    with pytest.raises(dlsim.ScenarioError) as run_error:  # run() refuses it the same way
        dlsim.run(smoke(scenario), set={pointer: json.loads(value)}, threads=1)
    assert str(run_error.value) == expected


def test_a_dict_names_its_pointer():
    with open(smoke("detsgrad")) as f:
        scenario = json.load(f)
    scenario["trigger"]["v0"] = "high"
    with pytest.raises(dlsim.ScenarioError) as e:
        dlsim.validate(scenario)
    assert e.value.file == "<dict>"
    assert e.value.pointer == "/trigger/v0"


def test_a_missing_file_and_a_bad_argument():
    with pytest.raises(dlsim.ScenarioError) as e:
        dlsim.validate("no/such/scenario.json")
    assert e.value.file == "no/such/scenario.json"
    with pytest.raises(TypeError):
        dlsim.run(42)
    with pytest.raises(TypeError):
        dlsim.run(smoke("detsgrad"), set=["/agents=3"])
