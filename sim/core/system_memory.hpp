// How much memory this process may still use: what the kernel reports as available, capped by
// the cgroup (container or job) limit when there is one. Scenarios are checked against it before
// their buffers are allocated, since Linux overcommits: a run too large fails late, as an OOM kill.
#pragma once

#include <cstdint>
#include <optional>

namespace dlsim {

/// min(MemAvailable, cgroup v2 memory.max - memory.current) in bytes; nullopt when neither can be
/// read (not Linux, no /proc).
std::optional<uint64_t> available_memory_bytes();

}  // namespace dlsim
