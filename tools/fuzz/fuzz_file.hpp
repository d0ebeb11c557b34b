// What every harness shares: dlsim's loaders take file paths, so each fuzz input is written to a
// file in a scratch folder made once per process ($TMPDIR, else /dev/shm, else /tmp), and bad
// input, which the loaders answer with InputError, is not a finding. Anything else is: a crash, a
// sanitizer report, a DLSIM_CHECK (InvariantError) or any other exception escaping the harness
// (std::terminate aborts, and libFuzzer saves the input).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "sim/core/error.hpp"

namespace dlsim::fuzz {

/// The scratch folder of this process, created on first use and removed at a normal exit (a
/// crash leaves it behind for tools/fuzz.sh to clear). Held by a pointer that is never deleted:
/// the atexit handler may run after static destructors.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path* const dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = tmp && *tmp ? tmp : access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string pattern = base + "/dlsim-fuzz-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("dlsim fuzz: mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_dir(), ignored);
    });
    return new std::filesystem::path(pattern);
  }();
  return *dir;
}

/// Writes `bytes` to scratch_dir()/name (replacing it) and returns its path. A write that fails
/// is the machine's fault, not a finding about dlsim: abort loudly rather than fuzz nothing.
inline std::string write_file(const std::string& name, std::string_view bytes) {
  const std::string path = (scratch_dir() / name).string();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f)) {
    std::perror(("dlsim fuzz: " + path).c_str());
    std::abort();
  }
  return path;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `load`, ignoring the documented answers to bad input (InputError) and to a machine that
/// fails (EnvironmentError); every other exception propagates and aborts (a finding).
template <class Load>
void expect_input_errors_only(Load load) {
  try {
    load();
  } catch (const InputError&) {
  } catch (const EnvironmentError&) {
  }
}

}  // namespace dlsim::fuzz
