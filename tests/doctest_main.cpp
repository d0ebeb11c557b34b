// The main of every doctest suite. ctest runs one test case per process; a run in which a test
// case skipped (tests/skip.hpp) and none failed exits kSkipExitCode, which ctest reports as
// Skipped. Any failure keeps doctest's own exit code, so it is reported as Failed even when the
// failing test case also called skip_test().
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "skip.hpp"

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int code = context.run();
  if (code != 0) return code;
  return dlsim::test_skipped() ? dlsim::kSkipExitCode : 0;
}
