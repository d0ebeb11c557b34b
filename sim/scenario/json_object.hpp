// Strict reading of one JSON object: typed getters whose errors name the file and the JSON
// pointer, documented defaults, and an unknown-key check. The one reader of dlsim's JSON input:
// every section of a scenario, topology objects and files, sweep files read through this, so
// every error has the same one-line form:
//   scenarios/ring.json: /network/bandwidth: expected a rate such as "10Mbps", got "10 MB"
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/time.hpp"

namespace dlsim {

/// The JSON pointer of `key` inside the object at `pointer` ('~' and '/' escaped).
std::string child_pointer(const std::string& pointer, const std::string& key);
std::string child_pointer(const std::string& pointer, size_t index);

class JsonObject {
 public:
  /// Throws InputError unless j is an object.
  JsonObject(const nlohmann::json& j, std::string file, std::string pointer);

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void fail_here(const std::string& message) const;
  /// For errors of a library validator whose message may start with a path relative to this
  /// object ("/mu: must be below 1"): the path is appended to this object's pointer.
  [[noreturn]] void fail_relative(const std::string& message) const;

  bool has(const std::string& key) const { return j_.contains(key); }
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  /// The raw value (marks the key as read). Precondition: has(key).
  const nlohmann::json& raw(const std::string& key);

  std::string string(const std::string& key, std::optional<std::string> fallback = {});
  /// A non-empty file name, resolved against the scenario file's folder (normalised).
  std::string file_path(const std::string& key);
  double number(const std::string& key, std::optional<double> fallback = {},
                double min = -std::numeric_limits<double>::infinity(),
                double max = std::numeric_limits<double>::infinity());
  /// Also accepts the string "inf" (JSON has no infinity).
  double number_or_inf(const std::string& key, std::optional<double> fallback, double min);
  int64_t integer(const std::string& key, std::optional<int64_t> fallback = {},
                  int64_t min = std::numeric_limits<int64_t>::min(),
                  int64_t max = std::numeric_limits<int64_t>::max());
  /// An integer in [0, max], up to 2^64 - 1 (seeds).
  uint64_t unsigned_integer(const std::string& key, std::optional<uint64_t> fallback = {},
                            uint64_t max = std::numeric_limits<uint64_t>::max());
  bool boolean(const std::string& key, std::optional<bool> fallback = {});
  SimTime duration(const std::string& key, std::optional<SimTime> fallback = {});
  /// A required duration > 0 ("must be positive" otherwise).
  SimTime positive_duration(const std::string& key);
  uint64_t rate_bps(const std::string& key, std::optional<uint64_t> fallback = {});
  uint64_t size_bytes(const std::string& key, std::optional<uint64_t> fallback = {});
  std::vector<double> numbers(const std::string& key, double min, double max);
  std::vector<int64_t> integers(const std::string& key, int64_t min, int64_t max);
  /// An array of duration strings ("0", "10s", ...).
  std::vector<SimTime> durations(const std::string& key);
  /// A nested object; fallback_empty: a missing key reads as {}.
  JsonObject object(const std::string& key, bool fallback_empty = false);
  /// The objects of an array (each read on its own, pointer key/i).
  std::vector<JsonObject> objects(const std::string& key);

  /// One of `choices` by name; the error lists them.
  template <class E>
  E choice(const std::string& key, std::initializer_list<std::pair<const char*, E>> choices,
           std::optional<E> fallback = {}) {
    if (!has(key) && fallback) return *fallback;
    const std::string name = string(key);
    std::string names;
    for (const auto& [n, value] : choices) {
      if (name == n) return value;
      names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", n);
    }
    fail(key, fmt::format("expected one of {}, got \"{}\"", names, name));
  }

  /// Throws InputError for the first key (in sorted order) that was never read.
  void finish() const;
  /// Throws InputError for the first key (in sorted order) not in `allowed`, with `hint` (e.g.
  /// which keys are allowed) after "unknown key; ". For objects whose keys depend on a kind.
  void expect_keys(std::span<const std::string> allowed, std::string_view hint) const;

 private:
  const nlohmann::json& required(const std::string& key);

  const nlohmann::json& j_;
  std::string file_;
  std::string pointer_;
  std::set<std::string> read_;
};

}  // namespace dlsim
