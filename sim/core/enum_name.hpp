// An enum value's name from a table of names in the enum's order: for enums numbered 0, 1, ...
// whose names are only printed (the table is shorter to read than a case per value).
#pragma once

#include <cstddef>
#include <string_view>

namespace dlsim {

/// names[value]; `unknown` for a value past the table (a corrupt one). kLast, the enum's last
/// value, checks at compile time that every value has a name.
template <auto kLast, size_t N>
constexpr std::string_view enum_name(const std::string_view (&names)[N], decltype(kLast) value,
                                     std::string_view unknown) {
  static_assert(N == static_cast<size_t>(kLast) + 1, "one name per enum value");
  const auto index = static_cast<size_t>(value);
  return index < N ? names[index] : unknown;
}

}  // namespace dlsim
