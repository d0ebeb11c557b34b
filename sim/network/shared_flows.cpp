#include "sim/network/shared_flows.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim {

SharedFlows::SharedFlows(std::vector<double> capacity_bps)
    : capacity_bps_(std::move(capacity_bps)),
      on_(capacity_bps_.size()),
      resource_seen_(capacity_bps_.size()),
      local_(capacity_bps_.size()) {}

void SharedFlows::start(Simulator& sim, uint32_t id, uint64_t bits, std::span<const uint32_t> route,
                        AgentId agent) {
  if (id >= flows_.size()) flows_.resize(id + 1);
  Flow& f = flows_[id];
  DLSIM_CHECK(f.route.empty() && !route.empty() && bits > 0,
              "flow {} started twice, without a route or without bits", id);
  f.route.assign(route.begin(), route.end());
  f.bits_left = static_cast<double>(bits);
  f.rate_bps = 0;
  f.updated = sim.now();
  f.end_at = SimTime::max();
  f.has_event = false;
  f.agent = agent;
  ++active_;
  for (const uint32_t r : route) {
    DLSIM_CHECK(r < capacity_bps_.size() && capacity_bps_[r] > 0, "flow {} on resource {}", id, r);
    on_[r].push_back(id);
  }
  recompute(sim, f.route);
}

bool SharedFlows::end(Simulator& sim, const Event& e) {
  const uint32_t id = e.payload;
  if (!active(id)) return false;
  Flow& f = flows_[id];
  if (!f.has_event || f.event_seq != e.id()) return false;  // superseded by an earlier end
  if (f.end_at > sim.now()) {  // the rate went down since: the end moved later
    f.event_seq = sim.schedule_at(f.end_at, EventKind::kFlowEnd, f.agent, id);
    f.event_at = f.end_at;
    return false;
  }
  remove(sim, id);
  return true;
}

void SharedFlows::abort(Simulator& sim, uint32_t id) {
  DLSIM_CHECK(active(id), "flow {} aborted but not active", id);
  remove(sim, id);
}

// The flow leaves its resources; those it shared them with get their new rates now.
void SharedFlows::remove(Simulator& sim, uint32_t id) {
  Flow& f = flows_[id];
  f.has_event = false;
  --active_;
  for (const uint32_t r : f.route) {
    std::vector<uint32_t>& list = on_[r];
    list.erase(std::find(list.begin(), list.end(), id));
  }
  seeds_.assign(f.route.begin(), f.route.end());
  f.route.clear();
  f.rate_bps = 0;
  f.bits_left = 0;
  recompute(sim, seeds_);
}

// The flows reachable from the seed resources through shared resources, and their resources.
void SharedFlows::collect(std::span<const uint32_t> seeds) {
  resources_.clear();
  members_.clear();
  if (flow_seen_.size() < flows_.size()) flow_seen_.resize(flows_.size());
  for (const uint32_t r : seeds) {
    if (resource_seen_[r]) continue;
    resource_seen_[r] = 1;
    resources_.push_back(r);
  }
  for (size_t i = 0; i < resources_.size(); ++i) {
    for (const uint32_t id : on_[resources_[i]]) {
      if (flow_seen_[id]) continue;
      flow_seen_[id] = 1;
      members_.push_back(id);
      for (const uint32_t q : flows_[id].route) {
        if (resource_seen_[q]) continue;
        resource_seen_[q] = 1;
        resources_.push_back(q);
      }
    }
  }
  for (const uint32_t r : resources_) resource_seen_[r] = 0;
  for (const uint32_t id : members_) flow_seen_[id] = 0;
  // Id order: the solver's ties and float sums then do not depend on the order flows came in.
  std::sort(resources_.begin(), resources_.end());
  std::sort(members_.begin(), members_.end());
}

void SharedFlows::recompute(Simulator& sim, std::span<const uint32_t> seeds) {
  collect(seeds);
  if (members_.empty()) return;
  // Two common cases without the solver, with the very doubles it would compute: one flow gets
  // its slowest resource; flows on one resource alone get capacity / count.
  if (members_.size() == 1) {
    double rate = capacity_bps_[resources_[0]];
    for (const uint32_t r : resources_) rate = std::min(rate, capacity_bps_[r]);
    apply(sim, members_[0], rate);
    return;
  }
  if (resources_.size() == 1) {
    const double share = capacity_bps_[resources_[0]] / static_cast<double>(members_.size());
    for (const uint32_t id : members_) apply(sim, id, share);
    return;
  }
  capacity_.clear();
  for (size_t k = 0; k < resources_.size(); ++k) {
    local_[resources_[k]] = static_cast<uint32_t>(k);
    capacity_.push_back(capacity_bps_[resources_[k]]);
  }
  begin_.assign(1, 0);
  routes_.clear();
  for (const uint32_t id : members_) {
    for (const uint32_t r : flows_[id].route) routes_.push_back(local_[r]);
    begin_.push_back(static_cast<uint32_t>(routes_.size()));
  }
  rates_.resize(members_.size());
  solver_.solve(capacity_, begin_, routes_, rates_);
  for (size_t k = 0; k < members_.size(); ++k) apply(sim, members_[k], rates_[k]);
}

void SharedFlows::apply(Simulator& sim, uint32_t id, double rate_bps) {
  Flow& f = flows_[id];
  if (rate_bps == f.rate_bps) return;
  DLSIM_CHECK(rate_bps > 0, "flow {} got rate {}", id, rate_bps);
  const SimTime now = sim.now();
  if (f.rate_bps > 0)
    f.bits_left =
        std::max(0.0, f.bits_left - f.rate_bps * static_cast<double>((now - f.updated).ns) / 1e9);
  f.updated = now;
  f.rate_bps = rate_bps;
  const double ns = std::ceil(f.bits_left * 1e9 / rate_bps * (1.0 - 1e-12));
  DLSIM_CHECK(ns < 9e18, "flow {} would take {} ns", id, ns);
  f.end_at = now + SimTime{static_cast<int64_t>(ns)};
  if (f.has_event && f.event_at <= f.end_at) return;  // fires early, then moves (end())
  f.event_seq = sim.schedule_at(f.end_at, EventKind::kFlowEnd, f.agent, id);
  f.event_at = f.end_at;
  f.has_event = true;
}

void SharedFlows::archive(StateArchive& ar) {
  const uint64_t n = ar.count(flows_.size());
  if (ar.loading()) flows_.resize(n);
  for (Flow& f : flows_) {
    ar.value(f.bits_left);
    ar.value(f.rate_bps);
    ar.value(f.updated);
    ar.value(f.end_at);
    ar.value(f.event_at);
    ar.value(f.event_seq);
    ar.value(f.has_event);
    ar.value(f.agent);
    ar.vector(f.route);
  }
  if (!ar.loading()) return;
  // Which flows cross each resource, and how many are active, follow from the loaded routes.
  for (std::vector<uint32_t>& list : on_) list.clear();
  active_ = 0;
  for (uint32_t id = 0; id < flows_.size(); ++id) {
    if (!flows_[id].route.empty()) ++active_;
    for (const uint32_t r : flows_[id].route) {
      if (r >= on_.size()) ar.fail("a flow on a resource out of range");
      on_[r].push_back(id);  // the order within a resource does not matter (collect() sorts)
    }
  }
}

}  // namespace dlsim
