#include "sim/sweep/sweep_table.hpp"

#include <fmt/format.h>

#include <fstream>

#include "sim/scenario/json_depth.hpp"
#include "sim/sweep/sweep_folder.hpp"

namespace dlsim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Column name -> where summary.json holds it.
struct SummaryColumn {
  const char* name;
  const char* pointer;
};
constexpr SummaryColumn kColumns[] = {
    {"accuracy_mean", "/final/accuracy_mean"},
    {"accuracy_min", "/final/accuracy_min"},
    {"accuracy_max", "/final/accuracy_max"},
    {"accuracy_aggregate", "/final/accuracy_aggregate"},
    {"loss_mean", "/final/loss_mean"},
    {"consensus_distance", "/final/consensus_distance"},
    {"distance_to_optimum", "/final/distance_to_optimum"},
    {"events", "/comm/events"},
    {"messages", "/comm/messages"},
    {"bytes", "/comm/bytes"},
    {"savings", "/comm/savings"},
    {"tensor_sends", "/comm/tensor_sends"},
    {"tensor_savings", "/comm/tensor_savings"},
    {"simulated_s", "/time/simulated_s"},
    {"wall_s", "/time/wall_s"},
    {"fingerprint", "/fingerprint"},
};

json read_json(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return nullptr;
  try {
    return json::parse(in, json_depth_limit<json>(file.string()));
  } catch (const std::exception&) {
    return nullptr;  // a torn write from a killed process: the run counts as missing
  }
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// Strings as they are, numbers in nlohmann's shortest round-trip form, anything else as JSON.
std::string cell(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return csv_field(value.get<std::string>());
  return csv_field(value.dump());
}

}  // namespace

json finished_summary(const fs::path& run_folder, const SweepRun& run) {
  const json summary = read_json(run_folder / "summary.json");
  if (!summary.is_object()) return nullptr;
  const std::string status = summary.value("status", "");
  if (status != "ok" && status != "diverged") return nullptr;
  if (read_json(run_folder / "scenario.json") != run.resolved) return nullptr;
  return summary;
}

SweepCounts write_sweep_csv(const SweepSpec& spec, const fs::path& out) {
  std::string text = "id,seed";
  for (const std::string& pointer : spec.varied) text += "," + csv_field(pointer);
  text += ",status";
  for (const SummaryColumn& c : kColumns) text += fmt::format(",{}", c.name);
  text += "\n";

  SweepCounts counts;
  for (const SweepRun& run : spec.runs) {
    text += fmt::format("{},{}", csv_field(run.id), run.seed);
    for (const json& value : run.values) text += "," + cell(value);
    const fs::path folder = out / "runs" / run.id;
    json summary = finished_summary(folder, run);
    std::string status = "missing";
    if (summary.is_null()) {
      // A failed run leaves a summary with status "failed" and no numbers.
      const json failed = read_json(folder / "summary.json");
      if (failed.is_object() && failed.value("status", "") == "failed" &&
          read_json(folder / "scenario.json") == run.resolved)
        status = "failed";
    } else {
      status = summary.at("status").get<std::string>();
    }
    (status == "ok"         ? counts.ok
     : status == "diverged" ? counts.diverged
     : status == "failed"   ? counts.failed
                            : counts.missing)++;
    text += "," + status;
    for (const SummaryColumn& c : kColumns) {
      const json::json_pointer ptr(c.pointer);
      text += "," + (summary.is_object() && summary.contains(ptr) ? cell(summary.at(ptr)) : "");
    }
    text += "\n";
  }

  write_atomically(out / "sweep.csv", text);
  return counts;
}

}  // namespace dlsim
