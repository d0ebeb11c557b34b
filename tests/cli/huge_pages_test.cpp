#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "binary_runner.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Runs build/dlsim on the DETSGRAD smoke scenario with GLIBC_TUNABLES set to `tunables` (unset
// when null) and the variable assignments in `more`; returns summary.json.
json run_with_tunables(const char* tunables, const std::string& tag, const std::string& more = "") {
  const fs::path out = fs::path(DLSIM_BINARY_DIR) / "tests" / "huge_pages" / tag;
  fs::remove_all(out);
  fs::create_directories(out.parent_path());
  const std::string env = tunables != nullptr ? std::string("env GLIBC_TUNABLES='") + tunables + "'"
                                              : std::string("env -u GLIBC_TUNABLES");
  const dlsim::testing::BinaryRun r = dlsim::testing::run_binary(
      "huge-pages-" + tag,
      std::string("run ") + DLSIM_SOURCE_DIR + "/scenarios/smoke/detsgrad.json -o " + out.string() +
          " --quiet",
      env + " " + more);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::ifstream in(out / "summary.json");
  return json::parse(in);
}

}  // namespace

TEST_CASE("dlsim restarts itself with huge pages unless GLIBC_TUNABLES names them") {
  const json unset = run_with_tunables(nullptr, "unset");
  const json other = run_with_tunables("glibc.malloc.tcache_count=0", "other");
  const json off = run_with_tunables("glibc.malloc.hugetlb=0", "off");
  CHECK(unset["time"]["huge_pages"] == true);
  CHECK(other["time"]["huge_pages"] == true);  // other tunables set: still asked for
  CHECK(off["time"]["huge_pages"] == false);
  // Never twice: a process marked as restarted already runs on as it is.
  CHECK(run_with_tunables(nullptr, "marked",
                          "DLSIM_RESTARTED_FOR_HUGE_PAGES=1")["time"]["huge_pages"] == false);
  // The restart passes the arguments on, and the memory layout changes no result.
  CHECK(unset["fingerprint"] == off["fingerprint"]);
  CHECK(other["fingerprint"] == off["fingerprint"]);
}
