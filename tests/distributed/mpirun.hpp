// What the distributed suite shares: commands run under `timeout` with their output kept apart,
// mpirun's line for R ranks (as root, oversubscribed on 2 cores), and a probe that marks a test
// SKIPPED where mpirun cannot start.
#pragma once

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../skip.hpp"

namespace dlsim::testing {

namespace fs = std::filesystem;

/// A fresh folder under the build tree, named for this test process.
inline fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(DLSIM_BINARY_DIR) / "tests" / "distributed" /
                     (std::to_string(getpid()) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Outcome {
  int exit_code;  // the command's; 124: stopped by timeout
  std::string out, err;
};

/// `command` in `dir` with stdout and stderr kept apart, stopped after `seconds`.
inline Outcome run(const std::string& command, const fs::path& dir, int seconds = 60) {
  const fs::path out = dir / "out.txt", err = dir / "err.txt";
  const int status = std::system(fmt::format("cd {} && timeout {} {} > {} 2> {}", dir.string(),
                                             seconds, command, out.string(), err.string())
                                     .c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

inline std::string mpirun(int ranks) {
#if defined(__SANITIZE_ADDRESS__)
  // `env`: the command runs under `timeout`, which takes no variable assignments.
  const std::string env =
      "env ASAN_OPTIONS=detect_leaks=0 ";  // Open MPI's plug-ins: see CONTRIBUTING
#else
  const std::string env;
#endif
  return fmt::format("{}mpirun --allow-run-as-root --oversubscribe -np {} ", env, ranks);
}

/// True when mpirun can start two ranks here; otherwise marks the test skipped.
inline bool mpirun_works(const fs::path& dir) {
  const Outcome probe = run(mpirun(2) + "true", dir);
  if (probe.exit_code != 0) {
    dlsim::skip_test("mpirun -np 2 cannot start here: " + probe.out + probe.err);
    return false;
  }
  return true;
}

}  // namespace dlsim::testing
