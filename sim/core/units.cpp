#include "sim/core/units.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

struct Unit {
  std::string_view suffix;
  double scale;
};

// Splits "1.5ms" into 1.5 and "ms"; nullopt when the number part does not parse.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  std::string_view rest(ptr, static_cast<size_t>(end - ptr));
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return std::pair{value, rest};
}

template <size_t N>
double parse_with_units(std::string_view text, const Unit (&units)[N], std::string_view what,
                        std::string_view example, bool unit_optional_for_zero) {
  const auto fail = [&]() -> InputError {
    return InputError(fmt::format("expected {} such as \"{}\", got \"{}\"", what, example, text));
  };
  const auto parsed = split_number(text);
  if (!parsed) throw fail();
  const auto [value, suffix] = *parsed;
  if (value < 0) throw InputError(fmt::format("{} must not be negative, got \"{}\"", what, text));
  if (suffix.empty() && unit_optional_for_zero && value == 0) return 0;
  for (const Unit& u : units)
    if (suffix == u.suffix) return value * u.scale;
  throw fail();
}

}  // namespace

SimTime parse_duration(std::string_view text) {
  static constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  const double ns = parse_with_units(text, kUnits, "a duration", "2ms", true);
  if (ns > 9.2e18) throw InputError(fmt::format("duration \"{}\" is too large", text));
  return SimTime{std::llround(ns)};
}

uint64_t parse_rate_bps(std::string_view text) {
  static constexpr Unit kUnits[] = {{"bps", 1}, {"kbps", 1e3}, {"Kbps", 1e3}, {"Mbps", 1e6},
                                    {"Gbps", 1e9}, {"Tbps", 1e12}};
  const double bps = parse_with_units(text, kUnits, "a rate", "10Mbps", false);
  if (bps < 1) throw InputError(fmt::format("a rate must be at least 1bps, got \"{}\"", text));
  return static_cast<uint64_t>(std::llround(bps));
}

uint64_t parse_size_bytes(std::string_view text) {
  static constexpr Unit kUnits[] = {{"B", 1},      {"KB", 1e3},           {"MB", 1e6},
                                    {"GB", 1e9},   {"KiB", 1024.0},       {"MiB", 1048576.0},
                                    {"GiB", 1073741824.0}};
  return static_cast<uint64_t>(std::llround(parse_with_units(text, kUnits, "a size", "1MB", true)));
}

namespace {

template <size_t N>
std::string format_with_units(double value, const Unit (&units)[N]) {
  // Largest unit whose value is at least one and prints exactly in up to 9 significant digits.
  for (size_t i = N; i-- > 0;) {
    const double scaled = value / units[i].scale;
    if (scaled >= 1 || i == 0) {
      std::string s = fmt::format("{:.9g}", scaled);
      if (std::llround(std::stod(s) * units[i].scale) == std::llround(value))
        return s + std::string(units[i].suffix);
    }
  }
  return fmt::format("{}{}", value, units[0].suffix);
}

}  // namespace

std::string format_duration(SimTime t) {
  static constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  return format_with_units(static_cast<double>(t.ns), kUnits);
}

std::string format_rate(uint64_t bps) {
  static constexpr Unit kUnits[] = {{"bps", 1}, {"kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9}};
  return format_with_units(static_cast<double>(bps), kUnits);
}

std::string format_size(uint64_t bytes) {
  static constexpr Unit kUnits[] = {{"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}};
  return format_with_units(static_cast<double>(bytes), kUnits);
}

}  // namespace dlsim
