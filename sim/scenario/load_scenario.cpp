#include "sim/scenario/load_scenario.hpp"

#include <filesystem>
#include <fstream>
#include <variant>

#include "models/model.hpp"
#include "sim/scenario/algorithm_json.hpp"
#include "sim/scenario/json_depth.hpp"
#include "sim/scenario/learning_json.hpp"
#include "sim/scenario/run_json.hpp"
#include "sim/scenario/topology_json.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

// e.what() is "[json.exception.parse_error.101] parse error at line 3, column 5: ...": the part
// after the bracketed id.
std::string json_message(const json::exception& e) {
  const std::string what = e.what();
  const size_t at = what.find("] ");
  return at == std::string::npos ? what : what.substr(at + 2);
}

// Both JSON flavours: sorted keys (scenarios) and file order (sweeps, whose grids nest in order).
template <class Json>
Json parse_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the file", path));
  try {
    return Json::parse(in, json_depth_limit<Json>(path));
  } catch (const typename Json::parse_error& e) {
    throw InputError(fmt::format("{}: byte {}: {}", path, e.byte, json_message(e)));
  } catch (const typename Json::out_of_range& e) {
    // A number beyond a double ("1e999") is valid JSON that nlohmann cannot hold; it quotes the
    // number but gives no offset.
    throw InputError(fmt::format("{}: {}", path, json_message(e)));
  }
}

}  // namespace

json read_json_file(const std::string& path) { return parse_json_file<json>(path); }

nlohmann::ordered_json read_ordered_json_file(const std::string& path) {
  return parse_json_file<nlohmann::ordered_json>(path);
}

void apply_override(json& scenario, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (assignment.empty() || assignment[0] != '/' || eq == std::string::npos)
    throw InputError(fmt::format("--set {}: expected /json/pointer=VALUE", assignment));
  const std::string pointer = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  json value;
  try {
    value = json::parse(text, json_depth_limit<json>("--set " + pointer));
  } catch (const json::parse_error&) {
    value = text;  // not JSON: a plain string such as 10Mbps
  } catch (const json::out_of_range& e) {  // JSON, but a number beyond a double ("1e999")
    throw InputError(fmt::format("--set {}: {}", pointer, json_message(e)));
  }
  try {
    const json::json_pointer ptr(pointer);
    if (value.is_null()) {
      if (scenario.contains(ptr)) scenario.at(ptr.parent_pointer()).erase(ptr.back());
    } else {
      scenario[ptr] = value;
    }
  } catch (const json::exception& e) {
    throw InputError(fmt::format("--set {}: cannot set this pointer ({})", pointer, e.what()));
  }
}

ScenarioSpec load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  json j = read_json_file(path);
  for (const std::string& o : overrides) apply_override(j, o);
  return parse_scenario(j, path);
}

}  // namespace dlsim
