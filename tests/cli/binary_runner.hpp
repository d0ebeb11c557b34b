// Runs the built dlsim as a child process, as a user would, for the tests of what only a whole
// process shows (exit codes, the huge-page restart).
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dlsim::testing {

inline const std::filesystem::path kBinaryScratch =
    std::filesystem::path(DLSIM_BINARY_DIR) / "test-files" / "cli";

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct BinaryRun {
  int exit_code = -1;
  std::string out, err;
};

/// Runs `env build/dlsim args` (env: a command prefix such as "env -u VAR", or empty), capturing
/// stdout and stderr in files named after `tag`.
inline BinaryRun run_binary(const std::string& tag, const std::string& args,
                            const std::string& env = "") {
  std::filesystem::create_directories(kBinaryScratch);
  const auto out = kBinaryScratch / (tag + ".out"), err = kBinaryScratch / (tag + ".err");
  const std::string command =
      env + " " + DLSIM_BINARY_DIR + "/dlsim " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
}

}  // namespace dlsim::testing
