// Unit strings as users write them in scenarios and topology files: durations ("2ms"), rates
// ("100Mbps") and sizes ("1MB"). Decimal prefixes, as networking uses: 1 KB = 1000 B,
// 1 Mbps = 10^6 bit/s. Errors throw InputError with a message the caller prefixes with the file
// and JSON pointer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/time.hpp"

namespace dlsim {

/// "1.5ms", "200us", "10ns", "2s", "0". Negative values are rejected.
SimTime parse_duration(std::string_view text);
/// "100Mbps", "1Gbps", "56kbps", "9600bps" -> bits per second (> 0).
uint64_t parse_rate_bps(std::string_view text);
/// "512B", "4KB", "1.5MB", "2GB", "1KiB", "1MiB" -> bytes (>= 0).
uint64_t parse_size_bytes(std::string_view text);

/// Renders for humans and for resolved scenario files: the largest unit that keeps the number
/// short, e.g. "2ms", "1.5us"; parse_duration(format_duration(t)) == t.
std::string format_duration(SimTime t);
std::string format_rate(uint64_t bps);
std::string format_size(uint64_t bytes);

}  // namespace dlsim
