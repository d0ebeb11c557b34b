"""ctest's entry to python/tests: runs pytest on this folder. Exit 77 (ctest's SKIP_RETURN_CODE,
reported as skipped, never passed) when the module was not built or pytest is not installed."""

import os
import sys

SKIP = 77

if __name__ == "__main__":
    if os.environ.get("DLSIM_PYTHON_BUILT") not in ("ON", "1", "TRUE", "YES"):
        print("skipped: the dlsim Python module was not built (apt-get install pybind11-dev "
              "python3-dev, then configure again)")
        sys.exit(SKIP)
    try:
        import pytest
    except ImportError:
        print("skipped: pytest is missing (apt-get install python3-pytest)")
        sys.exit(SKIP)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(pytest.main([here, "-q", "-p", "no:cacheprovider", "-rs"]))
