// "easgd": elastic averaging around a parameter server's centre variable; the server is node n
// of the network, after the agents, with links of its own (docs/algorithms.md, "EASGD").
#include "sim/scenario/algorithms/easgd.hpp"

#include <algorithm>

#include "sim/agents/easgd.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {
namespace {

AlgorithmCapabilities capabilities_of_easgd() {
  using T = TriggerKind;
  AlgorithmCapabilities c;
  c.alpha_threshold = c.service_node = true;
  c.triggers = {T::kAlways, T::kNever, T::kPeriodic, T::kProbability, T::kThreshold};
  return c;
}

// A server link's latency or bandwidth: its own `key`, else the network's, which must then be
// the same on every edge (`plural` names the values in the error).
template <class T>
T server_link_value(JsonObject& server, const std::string& key,
                    T (JsonObject::*read)(const std::string&, std::optional<T>),
                    const topo::ValueRange<T>& network, std::string_view plural) {
  if (server.has(key)) return (server.*read)(key, std::nullopt);
  if (network.is_constant()) return network.min;
  server.fail(key, fmt::format("required when the topology draws its {} from a range", plural));
}

class EasgdDescriptor final : public DescriptorWith<EasgdOptions> {
 public:
  EasgdDescriptor()
      : DescriptorWith("easgd",
                       "EASGD: elastic averaging around a parameter server's centre variable",
                       capabilities_of_easgd()) {}

  // Pending and sent copies, the server's reply; the centre z.
  AlgorithmCopies copies(const ScenarioSpec&, const GraphDegrees&) const override {
    return {3.0, 1.0, AlgorithmCopies::Sends::kNone};
  }

  // The workers' graph plus the server, node n, linked to every worker of server_links.
  topo::Graph network_graph(const World& w) const override {
    const auto& e = w.spec.algorithm.options_as<EasgdOptions>();
    const uint32_t n = w.graph.node_count();
    std::vector<topo::Edge> edges(w.graph.edges().begin(), w.graph.edges().end());
    std::vector<uint32_t> linked = e.server_links;
    if (linked.empty())
      for (uint32_t i = 0; i < n; ++i) linked.push_back(i);
    for (uint32_t i : linked) edges.push_back({i, n, e.server_latency, e.server_bandwidth_bps});
    return topo::Graph(n + 1, std::move(edges));
  }

  // docs/algorithms.md, "EASGD": the synchronous centre update is z + beta (mean x - z), with
  // beta = n alpha.
  void warn(World& w) const override {
    const double alpha = w.spec.algorithm.options_as<EasgdOptions>().alpha;
    const double beta = alpha * static_cast<double>(w.agents.size());
    if (beta > 1.0)
      w.warnings.push_back(fmt::format(
          "{}: /algorithm/alpha: beta = agents x alpha = {} x {} = {:.3g} > 1: the centre variable "
          "overshoots the workers' mean (it oscillates, and diverges for beta > 2 in sync mode)",
          w.spec.file, w.agents.size(), alpha, beta));
  }

  std::unique_ptr<Algorithm> build(World& w) const override {
    return std::make_unique<Easgd>(w.spec.algorithm.options_as<EasgdOptions>().alpha,
                                   w.spec.trigger.value_or(TriggerSpec{}), w.spec.time.mode);
  }

 private:
  // The server's links default to the network's (the topology's constant edge values).
  void read(JsonObject& o, const AlgorithmParseContext& c, EasgdOptions& e) const override {
    e.alpha = o.number("alpha", 0.1, 0.0, 1.0);
    if (e.alpha <= 0.0) o.fail("alpha", "the moving rate must be in (0, 1], got 0");
    JsonObject server = o.object("server", true);
    const topo::TopologySpec& topology = *c.topology;
    e.server_latency =
        server_link_value(server, "latency", &JsonObject::duration, topology.latency, "latencies");
    e.server_bandwidth_bps = server_link_value(server, "bandwidth", &JsonObject::rate_bps,
                                               topology.bandwidth_bps, "bandwidths");
    const bool all = !server.has("links") ||
                     (server.raw("links").is_string() && server.string("links") == "all");
    if (!all) {
      if (server.raw("links").is_string())
        server.fail("links", "expected \"all\" or a list of agent ids");
      const std::vector<int64_t> ids = server.integers("links", 0, int64_t{c.agents} - 1);
      if (ids.empty()) server.fail("links", "the server needs at least one link");
      for (int64_t id : ids) e.server_links.push_back(static_cast<uint32_t>(id));
      std::sort(e.server_links.begin(), e.server_links.end());
      if (std::adjacent_find(e.server_links.begin(), e.server_links.end()) != e.server_links.end())
        server.fail("links", "an agent is listed twice");
    }
    server.finish();
  }

  void write(const EasgdOptions& e, nlohmann::json& j) const override {
    j["alpha"] = e.alpha;
    j["server"] = {
        {"latency", format_duration(e.server_latency)},
        {"bandwidth", format_rate(e.server_bandwidth_bps)},
        {"links", e.server_links.empty() ? nlohmann::json("all") : nlohmann::json(e.server_links)}};
  }
};

}  // namespace

const AlgorithmDescriptor& easgd_descriptor() { return the_descriptor<EasgdDescriptor>(); }

}  // namespace dlsim
