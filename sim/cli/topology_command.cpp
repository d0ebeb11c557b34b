#include "sim/cli/topology_command.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/topology_kind_keys.hpp"

namespace dlsim::cli {
namespace {

using topo::TopologyKind;

// "torus 4 x 4", "random_regular, degree 3", "edge_list net.txt": the kind and what sizes it.
std::string describe_kind(const topo::TopologySpec& s) {
  const std::string_view kind = topo::to_string(s.kind);
  if (s.kind == TopologyKind::kGrid || s.kind == TopologyKind::kTorus)
    return fmt::format("{} {} x {}", kind, s.rows, s.cols);
  if (s.kind == TopologyKind::kEdgeList || s.kind == TopologyKind::kDot)
    return fmt::format("{} {}", kind, s.file);
  std::string text(kind);
  for (const TopologyKindKey& key : topology_kind_keys(s.kind))
    key.with_field(s, [&](const auto& value) { text += fmt::format(", {} {}", key.name, value); });
  return text;
}

std::string diameter_text(const topo::GraphMetrics& m) {
  if (m.diameter) return fmt::format("{} hops", *m.diameter);
  if (m.components > 1) return "infinite (disconnected)";
  return fmt::format("not computed (more than {} nodes)", topo::kMaxDiameterNodes);
}

std::string spectral_text(const topo::GraphMetrics& m) {
  if (!m.spectral_gap)
    return fmt::format("not computed (more than {} nodes)", topo::kMaxSpectralNodes);
  return fmt::format("{:.6f} (1 - |lambda_2| of the {} weights)", *m.spectral_gap,
                     topo::to_string(m.mixing_rule));
}

}  // namespace

std::string format_topology_report(const TopologyFileReport& report) {
  const topo::GraphMetrics& m = report.metrics;
  const std::vector<std::pair<std::string, std::string>> rows{
      {"topology", fmt::format("{} (seed {})", describe_kind(report.spec), report.seed)},
      {"nodes", std::to_string(m.nodes)},
      {"edges", std::to_string(m.edges)},
      {"degree",
       fmt::format("min {}, mean {:.2f}, max {}", m.degree_min, m.degree_mean, m.degree_max)},
      {"components", std::to_string(m.components)},
      {"diameter", diameter_text(m)},
      {"spectral gap", spectral_text(m)},
      {"latency", fmt::format("min {}, max {}", format_duration(m.latency_min),
                              format_duration(m.latency_max))},
      {"bandwidth", fmt::format("min {}, max {}", format_rate(m.bandwidth_min_bps),
                                format_rate(m.bandwidth_max_bps))},
  };
  size_t width = 0;
  for (const auto& [label, value] : rows) width = std::max(width, label.size());
  std::string text;
  for (const auto& [label, value] : rows) text += fmt::format("{:<{}}  {}\n", label, width, value);
  return text;
}

void run_topology(const TopologyOptions& options, std::ostream& out) {
  const TopologyFileReport report = load_topology_file(options.file);
  out << format_topology_report(report);
  if (!options.dot.empty()) {
    write_topology_dot(report.graph, options.dot);
    out << fmt::format("wrote {}\n", options.dot);
  }
}

void add_topology_command(CLI::App& app, std::ostream& out) {
  auto options = std::make_shared<TopologyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "topology", "Build the topology a JSON file describes and print its metrics");
  cmd->add_option("file", options->file, "JSON file whose top level is a topology object")
      ->required();
  cmd->add_option("--dot", options->dot, "Also write the graph as GraphViz DOT to this file");
  cmd->callback([options, &out] { run_topology(*options, out); });
}

}  // namespace dlsim::cli
