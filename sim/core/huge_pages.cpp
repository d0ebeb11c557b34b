#include "sim/core/huge_pages.hpp"

#include <sys/auxv.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace dlsim {
namespace {

constexpr std::string_view kTunable = "glibc.malloc.hugetlb";

std::string_view environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

void restart_with_huge_pages(char** argv) {
  constexpr const char* kRestarted = "DLSIM_RESTARTED_FOR_HUGE_PAGES";
  const std::string_view tunables = environment("GLIBC_TUNABLES");
  if (tunables.find(kTunable) != std::string_view::npos) return;
  // Once only, whatever happens to the variable: the loader drops it in a setuid or
  // file-capability program (AT_SECURE), so without this mark such a program would loop.
  if (std::getenv(kRestarted) != nullptr || getauxval(AT_SECURE) != 0) return;
  if (environment("LD_PRELOAD").find("vgpreload") != std::string_view::npos) return;  // valgrind
  // No program interpreter: started as `ld.so dlsim ...`, where /proc/self/exe is the loader.
  if (getauxval(AT_BASE) == 0) return;
  const std::string old(tunables);
  const bool had = std::getenv("GLIBC_TUNABLES") != nullptr;
  std::string value = old;
  if (!value.empty()) value += ':';
  value += kTunable;
  value += "=1";
  if (setenv(kRestarted, "1", 1) != 0) return;
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) == 0) execv("/proc/self/exe", argv);
  // The exec failed: this process runs on as it started, and its environment says so.
  if (had) {
    setenv("GLIBC_TUNABLES", old.c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
  unsetenv(kRestarted);
}

bool malloc_huge_pages() {
  const std::string_view tunables = environment("GLIBC_TUNABLES");
  for (const char* mode : {"=1", "=2"})
    if (tunables.find(std::string(kTunable) + mode) != std::string_view::npos) return true;
  return false;
}

}  // namespace dlsim
