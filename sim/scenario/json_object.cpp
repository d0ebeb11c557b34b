#include "sim/scenario/json_object.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sim/core/units.hpp"

namespace dlsim {

using nlohmann::json;

std::string child_pointer(const std::string& pointer, const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '~')
      escaped += "~0";
    else if (c == '/')
      escaped += "~1";
    else
      escaped += c;
  }
  return pointer + "/" + escaped;
}

std::string child_pointer(const std::string& pointer, size_t index) {
  return fmt::format("{}/{}", pointer, index);
}

JsonObject::JsonObject(const json& j, std::string file, std::string pointer)
    : j_(j), file_(std::move(file)), pointer_(std::move(pointer)) {
  if (!j_.is_object()) fail_here(fmt::format("expected an object, got {}", j_.dump()));
}

namespace {

// Messages may quote the user's text, newlines included: an error stays on one line.
std::string one_line(std::string message) {
  for (size_t i = message.find('\n'); i != std::string::npos; i = message.find('\n', i))
    message.replace(i, 1, "\\n");
  return message;
}

}  // namespace

void JsonObject::fail_here(const std::string& message) const {
  throw InputError(
      fmt::format("{}: {}: {}", file_, pointer_.empty() ? "/" : pointer_, one_line(message)));
}

void JsonObject::fail_relative(const std::string& message) const {
  if (!message.empty() && message.front() == '/')
    throw InputError(fmt::format("{}: {}{}", file_, pointer_, one_line(message)));
  fail_here(message);
}

void JsonObject::fail(const std::string& key, const std::string& message) const {
  throw InputError(
      fmt::format("{}: {}: {}", file_, child_pointer(pointer_, key), one_line(message)));
}

const json& JsonObject::raw(const std::string& key) { return required(key); }

const json& JsonObject::required(const std::string& key) {
  if (!j_.contains(key)) fail(key, "required key is missing");
  read_.insert(key);
  return j_.at(key);
}

std::string JsonObject::string(const std::string& key, std::optional<std::string> fallback) {
  if (!has(key) && fallback) return *fallback;
  const json& v = required(key);
  if (!v.is_string()) fail(key, fmt::format("expected a string, got {}", v.dump()));
  return v.get<std::string>();
}

std::string JsonObject::file_path(const std::string& key) {
  const std::string name = string(key);
  if (name.empty()) fail(key, "the file name is empty");
  return (std::filesystem::path(file()).parent_path() / name).lexically_normal().string();
}

double JsonObject::number(const std::string& key, std::optional<double> fallback, double min,
                          double max) {
  if (!has(key) && fallback) return *fallback;
  const json& v = required(key);
  if (!v.is_number()) fail(key, fmt::format("expected a number, got {}", v.dump()));
  const double x = v.get<double>();
  if (!(x >= min && x <= max))
    fail(key, fmt::format("expected a number in [{}, {}], got {}", min, max, v.dump()));
  return x;
}

double JsonObject::number_or_inf(const std::string& key, std::optional<double> fallback,
                                 double min) {
  if (has(key) && j_.at(key).is_string()) {
    if (string(key) != "inf")
      fail(key, fmt::format("expected a number or \"inf\", got {}", j_.at(key).dump()));
    return std::numeric_limits<double>::infinity();
  }
  return number(key, fallback, min);
}

int64_t JsonObject::integer(const std::string& key, std::optional<int64_t> fallback, int64_t min,
                            int64_t max) {
  if (!has(key) && fallback) return *fallback;
  const json& v = required(key);
  const bool integral = v.is_number_integer() ||
                        (v.is_number_float() && std::trunc(v.get<double>()) == v.get<double>() &&
                         std::abs(v.get<double>()) < 9e15);
  if (!integral) fail(key, fmt::format("expected an integer, got {}", v.dump()));
  const int64_t x =
      v.is_number_integer() ? v.get<int64_t>() : static_cast<int64_t>(v.get<double>());
  // An open range reads as a bound, not as 2^63 - 1.
  const std::string range = max == std::numeric_limits<int64_t>::max()
                                ? fmt::format(">= {}", min)
                                : fmt::format("in [{}, {}]", min, max);
  if ((v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max)) || x < min ||
      x > max)
    fail(key, fmt::format("expected an integer {}, got {}", range, v.dump()));
  return x;
}

uint64_t JsonObject::unsigned_integer(const std::string& key, std::optional<uint64_t> fallback,
                                      uint64_t max) {
  if (!has(key) && fallback) return *fallback;
  const json& v = required(key);
  const bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
  if (!ok || v.get<uint64_t>() > max)
    fail(key, fmt::format("expected an integer in 0..{}, got {}", max, v.dump()));
  return v.get<uint64_t>();
}

bool JsonObject::boolean(const std::string& key, std::optional<bool> fallback) {
  if (!has(key) && fallback) return *fallback;
  const json& v = required(key);
  if (!v.is_boolean()) fail(key, fmt::format("expected true or false, got {}", v.dump()));
  return v.get<bool>();
}

namespace {

template <class Parse>
auto parse_unit(JsonObject& o, const std::string& key, const json& v, const char* what,
                Parse parse) {
  if (!v.is_string()) {
    // Bare numbers are ambiguous (seconds? milliseconds?): a unit is required.
    o.fail(key, fmt::format("expected {}, got {}", what, v.dump()));
  }
  try {
    return parse(v.get<std::string>());
  } catch (const InputError& e) {
    o.fail(key, e.what());
  }
}

}  // namespace

SimTime JsonObject::duration(const std::string& key, std::optional<SimTime> fallback) {
  if (!has(key) && fallback) return *fallback;
  return parse_unit(*this, key, required(key), "a duration string such as \"2ms\"", parse_duration);
}

SimTime JsonObject::positive_duration(const std::string& key) {
  const SimTime d = duration(key);
  if (d.ns <= 0) fail(key, "must be positive");
  return d;
}

uint64_t JsonObject::rate_bps(const std::string& key, std::optional<uint64_t> fallback) {
  if (!has(key) && fallback) return *fallback;
  return parse_unit(*this, key, required(key), "a rate string such as \"10Mbps\"", parse_rate_bps);
}

uint64_t JsonObject::size_bytes(const std::string& key, std::optional<uint64_t> fallback) {
  if (!has(key) && fallback) return *fallback;
  return parse_unit(*this, key, required(key), "a size string such as \"1MB\"", parse_size_bytes);
}

std::vector<double> JsonObject::numbers(const std::string& key, double min, double max) {
  const json& v = required(key);
  if (!v.is_array()) fail(key, fmt::format("expected an array of numbers, got {}", v.dump()));
  std::vector<double> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number() || !(v[i].get<double>() >= min && v[i].get<double>() <= max))
      throw InputError(fmt::format("{}: {}: expected a number in [{}, {}], got {}", file_,
                                   child_pointer(child_pointer(pointer_, key), i), min, max,
                                   v[i].dump()));
    out.push_back(v[i].get<double>());
  }
  return out;
}

std::vector<SimTime> JsonObject::durations(const std::string& key) {
  const json& v = required(key);
  if (!v.is_array()) fail(key, fmt::format("expected an array of durations, got {}", v.dump()));
  std::vector<SimTime> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = child_pointer(child_pointer(pointer_, key), i);
    if (!v[i].is_string())
      throw InputError(fmt::format("{}: {}: expected a duration string such as \"2ms\", got {}",
                                   file_, where, v[i].dump()));
    try {
      out.push_back(parse_duration(v[i].get<std::string>()));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}: {}", file_, where, e.what()));
    }
  }
  return out;
}

std::vector<int64_t> JsonObject::integers(const std::string& key, int64_t min, int64_t max) {
  const json& v = required(key);
  if (!v.is_array()) fail(key, fmt::format("expected an array of integers, got {}", v.dump()));
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_integer() || v[i].get<int64_t>() < min || v[i].get<int64_t>() > max)
      throw InputError(fmt::format("{}: {}: expected an integer in [{}, {}], got {}", file_,
                                   child_pointer(child_pointer(pointer_, key), i), min, max,
                                   v[i].dump()));
    out.push_back(v[i].get<int64_t>());
  }
  return out;
}

JsonObject JsonObject::object(const std::string& key, bool fallback_empty) {
  static const json kEmpty = json::object();
  if (!has(key) && fallback_empty) return JsonObject(kEmpty, file_, child_pointer(pointer_, key));
  return JsonObject(required(key), file_, child_pointer(pointer_, key));
}

std::vector<JsonObject> JsonObject::objects(const std::string& key) {
  const json& v = required(key);
  if (!v.is_array()) fail(key, fmt::format("expected an array, got {}", v.dump()));
  std::vector<JsonObject> out;
  for (size_t i = 0; i < v.size(); ++i)
    out.emplace_back(v[i], file_, child_pointer(child_pointer(pointer_, key), i));
  return out;
}

void JsonObject::expect_keys(std::span<const std::string> allowed, std::string_view hint) const {
  for (const auto& [key, value] : j_.items()) {
    (void)value;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      fail(key, fmt::format("unknown key; {}", hint));
  }
}

void JsonObject::finish() const {
  for (const auto& [key, value] : j_.items()) {
    (void)value;
    if (!read_.contains(key)) fail(key, "unknown key");
  }
}

}  // namespace dlsim
