#include "sim/sweep/sweep_spec.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/scenario/json_object.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace dlsim {
namespace {

// The most runs one sweep file may expand to (docs: README, "Sweeps").
constexpr size_t kMaxRuns = 100000;


namespace fs = std::filesystem;
using json = nlohmann::json;
using ordered = nlohmann::ordered_json;

// One variation: a pointer into the scenario and the values it takes.
struct Variation {
  std::string pointer;
  std::string entry;  // where it is written in the sweep file: /grid/~1trigger~1v0
  std::vector<json> values;
};

class SweepReader {
 public:
  // Read in file order (nlohmann::json sorts keys): grid keys nest in the order they are written.
  explicit SweepReader(const std::string& path)
      : path_(path), source_(read_ordered_json_file(path)) {
    if (!source_.is_object()) fail("", "a sweep file is a JSON object");
  }

  SweepSpec read() {
    for (const auto& [key, value] : source_.items())
      if (!kKeys.contains(key)) fail(child_pointer("", key), "unknown key");
    read_base();
    read_set();
    read_variations("grid");
    read_variations("zip");
    read_seeds();
    check_zip_lengths();

    SweepSpec spec;
    spec.file = path_;
    spec.base = base_path_;
    spec.seeds = seeds_;
    spec.source = source_;
    for (const Variation& v : variations_) spec.varied.push_back(v.pointer);
    expand(spec);
    return spec;
  }

 private:
  static inline const std::set<std::string> kKeys{"base", "set", "grid", "zip", "seeds",
                                                   "description"};

  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw InputError(fmt::format("{}: {}: {}", path_, pointer.empty() ? "/" : pointer, message));
  }

  void read_base() {
    if (!source_.contains("base")) fail("/base", "missing: the base scenario file");
    if (!source_["base"].is_string()) fail("/base", "expected a file name");
    fs::path base = source_["base"].get<std::string>();
    if (base.is_relative()) base = fs::path(path_).parent_path() / base;
    base_path_ = base.lexically_normal().string();
    try {
      base_ = read_json_file(base_path_);
    } catch (const InputError& e) {
      fail("/base", e.what());
    }
    // Every run sets keys in it ("seed" at least): anything but an object cannot take them.
    if (!base_.is_object())
      fail("/base", fmt::format("{}: a scenario is a JSON object, got {}", base_path_,
                                base_.type_name()));
  }

  void check_pointer(const std::string& entry, const std::string& pointer) {
    try {
      (void)json::json_pointer(pointer);
    } catch (const json::exception&) {
      fail(entry, fmt::format("\"{}\" is not a JSON pointer such as /trigger/v0", pointer));
    }
    if (pointer.empty()) fail(entry, "the empty pointer would replace the whole scenario");
    if (!pointers_.insert(pointer).second) fail(entry, "this pointer is varied or set twice");
  }

  void read_set() {
    if (!source_.contains("set")) return;
    if (!source_["set"].is_object()) fail("/set", "expected an object {\"/json/pointer\": value}");
    for (const auto& [pointer, value] : source_["set"].items()) {
      const std::string entry = child_pointer("/set", pointer);
      check_pointer(entry, pointer);
      if (pointer == "/seed" && source_.contains("seeds"))
        fail(entry, "/seed is varied by \"seeds\"; set it in one place");
      set_.push_back({pointer, entry, {json::parse(value.dump())}});
    }
  }

  void read_variations(const std::string& section) {
    if (!source_.contains(section)) return;
    const std::string where = "/" + section;
    if (!source_[section].is_object())
      fail(where, "expected an object {\"/json/pointer\": [values...]}");
    for (const auto& [pointer, values] : source_[section].items()) {
      const std::string entry = child_pointer(where, pointer);
      check_pointer(entry, pointer);
      if (pointer == "/seed" && source_.contains("seeds"))
        fail(entry, "/seed is varied by \"seeds\"; vary it there");
      if (!values.is_array()) fail(entry, "expected a list of values");
      if (values.empty()) fail(entry, "the list of values is empty");
      Variation v{pointer, entry, {}};
      for (const auto& value : values) v.values.push_back(json::parse(value.dump()));
      (section == "zip" ? zip_ : grid_).push_back(v);
      variations_.push_back(std::move(v));
    }
  }

  void read_seeds() {
    if (!source_.contains("seeds")) return;
    const ordered& s = source_["seeds"];
    if (!s.is_array()) fail("/seeds", "expected a list of seeds such as [1, 2, 3]");
    if (s.empty()) fail("/seeds", "the list of seeds is empty");
    std::set<uint64_t> seen;
    for (size_t i = 0; i < s.size(); ++i) {
      if (!s[i].is_number_unsigned())
        fail(child_pointer("/seeds", i), "expected a non-negative integer");
      const uint64_t seed = s[i].get<uint64_t>();
      if (!seen.insert(seed).second) fail(child_pointer("/seeds", i), "this seed is repeated");
      seeds_.push_back(seed);
    }
  }

  void check_zip_lengths() {
    for (const Variation& v : zip_)
      if (v.values.size() != zip_.front().values.size())
        fail(v.entry, fmt::format("has {} values but {} has {}: zip varies its keys together",
                                  v.values.size(), zip_.front().pointer,
                                  zip_.front().values.size()));
  }

  // Which of a point's values each variation takes: grid keys nest in file order (the last
  // fastest), then the zip dimension.
  std::vector<size_t> choices(size_t point) const {
    std::vector<size_t> pick(variations_.size());
    size_t rest = point;
    if (!zip_.empty()) {
      const size_t z = zip_.front().values.size();
      for (size_t i = grid_.size(); i < variations_.size(); ++i) pick[i] = rest % z;
      rest /= z;
    }
    for (size_t i = grid_.size(); i-- > 0;) {
      pick[i] = rest % grid_[i].values.size();
      rest /= grid_[i].values.size();
    }
    return pick;
  }

  // A sweep file of a few hundred bytes can ask for 2^64 points: the product would wrap (to 0, an
  // empty sweep that validated nothing).
  size_t point_count() const {
    size_t n = zip_.empty() ? 1 : zip_.front().values.size();
    for (const Variation& v : grid_) {
      if (n > std::numeric_limits<size_t>::max() / v.values.size())
        fail(v.entry, "the sweep would have 2^64 points or more");
      n *= v.values.size();
    }
    return n;
  }

  void assign(json& scenario, const Variation& v, const json& value) const {
    try {
      const json::json_pointer ptr(v.pointer);
      if (value.is_null()) {
        if (scenario.contains(ptr)) scenario.at(ptr.parent_pointer()).erase(ptr.back());
      } else {
        scenario[ptr] = value;
      }
    } catch (const json::exception&) {
      fail(v.entry, fmt::format("cannot set {} in the base scenario {}", v.pointer, base_path_));
    }
  }

  void expand(SweepSpec& spec) const {
    const size_t points = point_count();
    // Each run holds its validated scenario (about 8 KB): a sweep file of a few lines could
    // otherwise ask for more memory and time than any study needs before one run starts.
    const size_t seeds = std::max<size_t>(1, seeds_.size());
    if (points > kMaxRuns / seeds)
      fail(grid_.empty() ? (zip_.empty() ? "/seeds" : "/zip") : "/grid",
           fmt::format("the sweep would have {} points x {} seeds, more than {} runs; split it "
                       "into several sweep files",
                       points, seeds, kMaxRuns));
    const int width = std::max<int>(4, static_cast<int>(std::to_string(points - 1).size()));
    for (size_t p = 0; p < points; ++p) {
      const std::vector<size_t> pick = choices(p);
      json scenario = base_;
      for (const Variation& s : set_) assign(scenario, s, s.values.front());
      std::vector<json> values;
      for (size_t i = 0; i < variations_.size(); ++i) {
        values.push_back(variations_[i].values[pick[i]]);
        assign(scenario, variations_[i], values.back());
      }
      const std::vector<uint64_t> seeds =
          seeds_.empty() ? std::vector<uint64_t>{base_seed(scenario)} : seeds_;
      for (const uint64_t seed : seeds) {
        SweepRun run;
        run.id = fmt::format("{:0{}}-s{}", p, width, seed);
        run.point = p;
        run.seed = seed;
        run.values = values;
        json with_seed = scenario;
        with_seed["seed"] = seed;
        run.scenario = validated(with_seed, run, pick);
        run.resolved = scenario_to_json(run.scenario);
        spec.runs.push_back(std::move(run));
      }
    }
  }

  uint64_t base_seed(const json& scenario) const {
    const auto it = scenario.find("seed");
    if (it == scenario.end() || !it->is_number_unsigned())
      fail("/base", fmt::format("{}: /seed: needed as a non-negative integer when the sweep has "
                                "no \"seeds\"", base_path_));
    return it->get<uint64_t>();
  }

  // Validates a run's scenario; an error names the sweep entry whose value it is about.
  ScenarioSpec validated(const json& scenario, const SweepRun& run,
                         const std::vector<size_t>& pick) const {
    try {
      return parse_scenario(scenario, base_path_);
    } catch (const InputError& e) {
      const std::string message = e.what();
      const std::string at = scenario_pointer_of(message);
      std::string entry = "/base";
      auto under = [&](const std::string& p) { return at == p || at.starts_with(p + "/"); };
      for (const Variation& s : set_)
        if (under(s.pointer)) entry = s.entry;
      for (size_t i = 0; i < variations_.size(); ++i)
        if (under(variations_[i].pointer))
          entry = child_pointer(variations_[i].entry, pick[i]);
      std::string values;
      for (size_t i = 0; i < variations_.size(); ++i)
        values += fmt::format("{}{}={}", i ? ", " : "", variations_[i].pointer,
                              run.values[i].dump());
      fail(entry, fmt::format("run {}{}: {}", run.id, values.empty() ? "" : " (" + values + ")",
                              message));
    }
  }

  // "base.json: /trigger/v00: unknown key" -> "/trigger/v00".
  std::string scenario_pointer_of(const std::string& message) const {
    const std::string prefix = base_path_ + ": ";
    if (!message.starts_with(prefix)) return "";
    const size_t end = message.find(": ", prefix.size());
    const std::string p = message.substr(prefix.size(), end - prefix.size());
    return p.starts_with("/") ? p : "";
  }

  std::string path_;
  ordered source_;
  std::string base_path_;
  json base_;
  std::set<std::string> pointers_;
  std::vector<Variation> set_, grid_, zip_;
  std::vector<Variation> variations_;  // grid_ then zip_
  std::vector<uint64_t> seeds_;
};

}  // namespace

SweepSpec load_sweep(const std::string& path) { return SweepReader(path).read(); }

}  // namespace dlsim
