// Test cases that pass, skip, or fail around a skip, for check_skip.py: built with the suites'
// own main (doctest_main.cpp) but never registered with ctest, as two of them fail on purpose.
#include <doctest/doctest.h>

#include "../skip.hpp"

TEST_CASE("passes") { CHECK(1 + 1 == 2); }

TEST_CASE("skips") { return dlsim::skip_test("the probe skips on purpose"); }

TEST_CASE("fails then skips") {
  CHECK(1 + 1 == 3);
  return dlsim::skip_test("the probe failed, then skipped");
}

TEST_CASE("skips then fails") {
  dlsim::skip_test("the probe skipped, then failed");
  CHECK(1 + 1 == 3);
}
