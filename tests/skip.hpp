// Skipping a test that cannot run here (no data, no MPI, goldens of another build, a sanitizer
// that owns malloc). ctest's skip pattern (SKIP_REGULAR_EXPRESSION) would win whatever the exit
// code, so a test that failed and then skipped showed as Skipped; instead skip_test() only notes
// the skip, and the test's main (doctest_main.cpp) exits kSkipExitCode, ctest's SKIP_RETURN_CODE
// for every test (tests/CMakeLists.txt), only when no test case failed. A failure stays Failed.
#pragma once

#include <cstdio>
#include <string>

namespace dlsim {

/// Exit code of a test run in which something skipped and nothing failed (77, the Automake
/// convention that python/tests/run_pytest.py uses too).
inline constexpr int kSkipExitCode = 77;

/// Whether skip_test() was called in this process.
inline bool& test_skipped() {
  static bool skipped = false;
  return skipped;
}

/// Marks the running test case as skipped, saying why; the caller then returns.
inline void skip_test(const std::string& why) {
  std::printf("skipped: %s\n", why.c_str());
  std::fflush(stdout);
  test_skipped() = true;
}

}  // namespace dlsim
