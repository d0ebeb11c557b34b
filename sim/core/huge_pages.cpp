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
  const std::string_view tunables = environment("GLIBC_TUNABLES");
  if (tunables.find(kTunable) != std::string_view::npos) return;
  if (environment("LD_PRELOAD").find("vgpreload") != std::string_view::npos) return;  // valgrind
  // No program interpreter: started as `ld.so dlsim ...`, where /proc/self/exe is the loader.
  if (getauxval(AT_BASE) == 0) return;
  std::string value(tunables);
  if (!value.empty()) value += ':';
  value += kTunable;
  value += "=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
}

bool malloc_huge_pages() {
  const std::string_view tunables = environment("GLIBC_TUNABLES");
  for (const char* mode : {"=1", "=2"})
    if (tunables.find(std::string(kTunable) + mode) != std::string_view::npos) return true;
  return false;
}

}  // namespace dlsim
