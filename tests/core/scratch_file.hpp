// A path for a test's file under the build tree: build/test-files/<folder>/<name>, the folder
// made if missing. The checkpoint-stream tests write and read their files there.
#pragma once

#include <filesystem>
#include <string>

namespace dlsim::testing {

inline std::string scratch_file(const std::string& folder, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(DLSIM_BINARY_DIR) / "test-files" / folder;
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

}  // namespace dlsim::testing
