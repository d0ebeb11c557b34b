// Building the physical network (wires.hpp), the overload watch and its checkpoint.
#include "sim/network/wires.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

std::vector<Serializer> make_nics(uint32_t n, uint64_t all_bps, const std::vector<uint64_t>& each,
                                  const char* what) {
  DLSIM_CHECK(each.empty() || each.size() == n, "{} per agent: {} entries for {} agents", what,
              each.size(), n);
  std::vector<Serializer> nics;
  nics.reserve(n);
  for (uint32_t i = 0; i < n; ++i) nics.emplace_back(each.empty() ? all_bps : each[i]);
  return nics;
}

}  // namespace

Wires::Wires(const topo::Graph& graph, const NetworkConfig& config, uint64_t seed)
    : graph_(graph),
      uplinks_(make_nics(graph.node_count(), config.nic_uplink_bps,
                         config.nic_uplink_bps_per_agent, "NIC uplink")),
      downlinks_(make_nics(graph.node_count(), config.nic_downlink_bps,
                           config.nic_downlink_bps_per_agent, "NIC downlink")),
      router_(graph),
      load_(graph.node_count() + 2 * static_cast<uint32_t>(graph.edges().size())) {
  links_.reserve(2 * graph.edges().size());
  link_target_.reserve(2 * graph.edges().size());
  for (const topo::Edge& e : graph.edges()) {
    const LinkSpec spec{e.latency, e.bandwidth_bps, config.loss_probability, config.jitter};
    links_.emplace_back(spec, RandomStream(seed, "link", links_.size()));
    link_target_.push_back(e.v);
    links_.emplace_back(spec, RandomStream(seed, "link", links_.size()));
    link_target_.push_back(e.u);
  }
  if (config.complete_underlay) {
    DLSIM_CHECK(graph.edges().empty() && config.sharing == Sharing::kFifo &&
                    config.failures.kind == FailureKind::kNone,
                "an implicit complete underlay over a graph with edges, maxmin or link failures");
    complete_.emplace(graph.node_count(),
                      LinkSpec{config.complete_underlay->latency,
                               config.complete_underlay->bandwidth_bps, config.loss_probability,
                               config.jitter},
                      seed);
  }
  out_begin_.assign(graph.node_count() + 1, 0);
  out_.reserve(links_.size());
  for (uint32_t i = 0; i < graph.node_count(); ++i) {
    for (uint32_t j : graph.neighbors(i)) out_.push_back(OutLink{j, directed_link(graph, i, j)});
    out_begin_[i + 1] = static_cast<uint32_t>(out_.size());
  }
}

uint32_t Wires::find_link(uint32_t from, uint32_t to) const {
  if (complete_) return kCompleteLink;
  const OutLink* first = out_.data() + out_begin_[from];
  const OutLink* last = out_.data() + out_begin_[from + 1];
  const OutLink* it =
      std::lower_bound(first, last, to, [](const OutLink& o, uint32_t v) { return o.to < v; });
  return it != last && it->to == to ? it->link : kNoLink;
}

void Wires::watch_load(Simulator& sim, SignalListener& listener, AgentId from, AgentId to,
                       uint32_t link, uint64_t bytes) {
  const Serializer& uplink = uplinks_[from.value];
  const bool nic = uplink.enabled();
  SimTime since;
  std::optional<double> utilisation;
  uint64_t bps = 0;
  if (nic) {
    bps = uplink.bandwidth_bps();
    utilisation = load_.offered(sim.now(), from.value, bytes, bps, &since);
  } else if (complete_) {
    bps = complete_->spec().bandwidth_bps;
    utilisation = complete_->watch_load(sim.now(), from.value, to.value, bytes, &since);
  } else {
    bps = links_[link].bandwidth_bps();
    utilisation = load_.offered(sim.now(), graph_.node_count() + link, bytes, bps, &since);
  }
  if (!utilisation) return;
  // The resource's far end: the agent itself for its uplink, else the link's (a detour's first
  // hop need not be `to`).
  const AgentId far = nic ? from : AgentId{far_end(link, to.value)};
  listener.link_overloaded(LinkOverload{from, far, bps, since, sim.now(), *utilisation});
}

void Wires::archive(StateArchive& ar) {
  ar.expect<uint64_t>(links_.size(), "another network: link count");
  for (Link& l : links_) l.archive(ar);
  for (auto* nics : {&uplinks_, &downlinks_}) {
    ar.expect<uint64_t>(nics->size(), "another network: NIC count");
    for (Serializer& s : *nics) {
      SimTime busy_until = s.busy_until();
      ar.value(busy_until);
      if (ar.loading()) s.resume_busy_until(busy_until);
    }
  }
  load_.archive(ar);
  router_.archive(ar);
  if (complete_) complete_->archive(ar);
}

}  // namespace dlsim
