"""A test that fails must show as Failed under ctest even when it also skipped (issue 29).

Checks the suites' configuration (no test uses SKIP_REGULAR_EXPRESSION, which wins whatever the
exit code; every doctest suite has the same SKIP_RETURN_CODE), then runs skip_probe's cases under
ctest with that property and reads the verdicts ctest gives.

Usage: check_skip.py SKIP_PROBE BUILD_DIR CTEST
"""

import json
import os
import re
import subprocess
import sys
import tempfile

EXPECTED = {"passes": "Passed", "skips": "Skipped", "fails then skips": "Failed",
            "skips then fails": "Failed"}


def fail(message):
    print(f"check_skip.py: {message}")
    sys.exit(1)


def suite_skip_code(build_dir, ctest):
    """The SKIP_RETURN_CODE every doctest suite test has; fails on any skip pattern."""
    shown = subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1"],
                           capture_output=True, text=True, check=True).stdout
    codes = set()
    for test in json.loads(shown)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        if "SKIP_REGULAR_EXPRESSION" in props:
            fail(f"{test['name']}: SKIP_REGULAR_EXPRESSION hides failures; exit 77 instead")
        command = test.get("command", [""])
        if os.path.basename(command[0]).startswith("test_"):  # a doctest suite
            codes.add(props.get("SKIP_RETURN_CODE"))
    if len(codes) != 1 or None in codes:
        fail(f"doctest suites' SKIP_RETURN_CODE values: {codes}; expected one value")
    return codes.pop()


def verdicts(probe, ctest, skip_code):
    """Runs each probe case as its own ctest test, as doctest discovery does; name -> verdict."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "CTestTestfile.cmake"), "w") as f:
            for name in EXPECTED:
                f.write(f'add_test("{name}" "{probe}" "--test-case={name}")\n'
                        f'set_tests_properties("{name}" PROPERTIES SKIP_RETURN_CODE {skip_code})\n')
        out = subprocess.run([ctest, "--test-dir", tmp], capture_output=True, text=True).stdout
    found = dict(re.findall(r"Test +#\d+: (.+?) \.+ *(?:\*+)?(Passed|Failed|Skipped)", out))
    return found, out


if __name__ == "__main__":
    probe, build_dir, ctest = sys.argv[1:4]
    found, out = verdicts(probe, ctest, suite_skip_code(build_dir, ctest))
    if found != EXPECTED:
        fail(f"ctest's verdicts {found}, expected {EXPECTED}:\n{out}")
    print("ok: a failing test is Failed whether or not it skipped; a skip alone is Skipped")
