#include "sim/core/system_memory.hpp"

#include <algorithm>
#include <fstream>
#include <string>

namespace dlsim {
namespace {

// "MemAvailable:   123456 kB" in /proc/meminfo.
std::optional<uint64_t> mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

// A cgroup v2 file holding one number, or "max" (no limit: nullopt).
std::optional<uint64_t> cgroup_value(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<uint64_t> available_memory_bytes() {
  std::optional<uint64_t> available = mem_available();
  const std::optional<uint64_t> limit = cgroup_value("/sys/fs/cgroup/memory.max");
  if (limit) {
    const uint64_t used = cgroup_value("/sys/fs/cgroup/memory.current").value_or(0);
    const uint64_t left = *limit > used ? *limit - used : 0;
    available = available ? std::min(*available, left) : left;
  }
  return available;
}

}  // namespace dlsim
