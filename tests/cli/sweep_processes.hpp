// `dlsim sweep` as a separate process, for the tests that kill, resume or run it under mpirun:
// the built binary, a scratch folder per test process, and `mpirun -np 2` (whether it can start
// here, and the command with the sanitizer build's leak checks off in the ranks).
#pragma once

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "../skip.hpp"
#include "sim/sweep/rank_group.hpp"
#include "tests/sweep/sweep_csv_text.hpp"

namespace dlsim::testing {

inline const std::string kDlsimBinary = std::string(DLSIM_BINARY_DIR) + "/dlsim";

/// An empty folder for `name`: ctest runs test cases as parallel processes, so the process id
/// keeps theirs apart.
inline std::filesystem::path sweep_scratch(const std::string& name) {
  const std::filesystem::path p = std::filesystem::path(DLSIM_BINARY_DIR) / "tests" / "cli_sweeps" /
                                  (std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

/// True when `mpirun -np 2` can start here. Otherwise marks the test skipped and returns false,
/// or fails it: tools/setup.sh --tests installs Open MPI, so a build without MPI on a machine
/// that has mpirun is a mistake. `dir` receives the probe's log.
inline bool mpirun_works(const std::filesystem::path& dir) {
  if (!built_with_mpi()) {
    if (std::system("command -v mpirun > /dev/null 2>&1") == 0)
      FAIL("mpirun is installed but this build has no MPI: re-run cmake");
    skip_test("this build has no MPI (apt-get install libopenmpi-dev openmpi-bin)");
    return false;
  }
  const std::string log = (dir / "probe.log").string();
  if (std::system(fmt::format("timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 true "
                              "> {} 2>&1",
                              log)
                      .c_str()) != 0) {
    skip_test("mpirun -np 2 cannot start here: " + read_text(log));
    return false;
  }
  return true;
}

/// `dlsim sweep SWEEP -o OUT` under `mpirun -np 2`, stopped after `timeout_s`: its exit
/// code, and its output in *log_text when given.
inline int mpirun_sweep(const std::string& sweep, const std::filesystem::path& out, int timeout_s,
                        std::string* log_text = nullptr) {
#if defined(__SANITIZE_ADDRESS__)
  // Open MPI's plug-ins are unloaded before exit, so LeakSanitizer reports their allocations
  // without a module to attribute (or suppress) them by. The ranks run without leak checks; the
  // sweep tests in one process check dlsim's own sweep code for leaks.
  const std::string rank_env = "ASAN_OPTIONS=detect_leaks=0 ";
#else
  const std::string rank_env;
#endif
  const std::string log = out.string() + ".log";
  const int code = std::system(
      fmt::format("{}timeout {} mpirun --allow-run-as-root --oversubscribe -np 2 {} sweep {} -o "
                  "{} > {} 2>&1",
                  rank_env, timeout_s, kDlsimBinary, sweep, out.string(), log)
          .c_str());
  if (log_text) *log_text = read_text(log);
  return code;
}

}  // namespace dlsim::testing
