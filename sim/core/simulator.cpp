#include "sim/core/simulator.hpp"

#include <algorithm>

namespace dlsim {

std::vector<Event> Simulator::pending_events() const {
  std::vector<Event> events;
  for (const EventQueue& q : queues_) {
    std::vector<Event> part = q.pending();
    events.insert(events.end(), part.begin(), part.end());
  }
  std::erase_if(events, [&](const Event& e) { return stale(e); });
  if (queues_.size() > 1) std::sort(events.begin(), events.end(), runs_before);
  return events;
}

void Simulator::partition(const Partitions& p) {
  DLSIM_CHECK(pending() == 0 && events_processed_ == 0, "partitioned after events were scheduled");
  DLSIM_CHECK(p.count >= 1 && p.lookahead > SimTime{}, "{} partitions with a lookahead of {} ns",
              p.count, p.lookahead.ns);
  if (p.count == 1) return;
  for (uint32_t part : p.of_node)
    DLSIM_CHECK(part < p.count, "a node in partition {} of {}", part, p.count);
  partition_of_ = p.of_node;
  lookahead_ = p.lookahead;
  queues_ = std::vector<EventQueue>(p.count);
  clocks_.assign(p.count, now_);
}

void Simulator::partition(const Partitions& p, PartitionExchange& exchange) {
  DLSIM_CHECK(p.count == exchange.ranks() && exchange.rank() < p.count,
              "{} partitions over {} ranks (this one rank {})", p.count, exchange.ranks(),
              exchange.rank());
  partition(p);
  if (p.count == 1) return;
  exchange_ = &exchange;
  current_ = exchange.rank();
}

// Over ranks each rank saves its own part: its clock, its nodes' counters and hashes, its events
// and its outboxes' (their payloads are this rank's message slots, saved with its network). Its
// clock, not now(): between windows now() is the latest of any rank's, which may lie after this
// rank's next event.
void Simulator::archive(StateArchive& ar) {
  SimTime clock = exchange_ ? clocks_[current_] : now_;
  ar.value(clock);
  if (ar.loading()) now_ = clock;
  ar.vector(counters_);
  ar.value(events_processed_);
  std::vector<uint64_t> fingerprints = fingerprints_.values();
  ar.vector(fingerprints);
  std::vector<Event> events;
  if (!ar.loading()) events = pending_events();  // in one order, however partitioned
  ar.vector(events);
  if (!ar.loading()) return;
  if (counters_.size() > kOriginLimit) ar.fail("more origins than an event key holds");
  fingerprints_ = EventFingerprints::resume_from(fingerprints);
  for (EventQueue& q : queues_) q.clear();
  std::fill(clocks_.begin(), clocks_.end(), now_);
  for (const Event& e : events) {
    // Over ranks an event from another rank's node was counted by that rank's counter.
    const uint32_t origin = e.origin().value;
    const bool counted_here =
        !exchange_ || (origin < partition_of_.size() && partition_of_[origin] == current_);
    if (e.time < now_ ||
        (counted_here && (origin >= counters_.size() || e.counter() >= counters_[origin])))
      ar.fail("an event outside the saved clock");
    if (!partition_of_.empty() && e.agent.value >= partition_of_.size())
      ar.fail("an event for a node the run does not have");
    queues_[partition_of_.empty() ? 0 : partition_of_[e.agent.value]].push(e);
  }
}

void Simulator::set_stale_filter(EventKind kind, StaleFilter filter, const void* owner) {
  DLSIM_CHECK(stale_filter_ == nullptr || (stale_filter_ == filter && stale_owner_ == owner),
              "a second stale-event filter");
  DLSIM_CHECK(static_cast<uint32_t>(kind) < 64, "event kind {} beyond the filter's mask",
              static_cast<int>(kind));
  stale_kinds_ |= uint64_t{1} << static_cast<uint32_t>(kind);
  stale_filter_ = filter;
  stale_owner_ = owner;
}

void Simulator::drop_stale() {
  for (EventQueue& q : queues_) {
    std::vector<Event> events = q.pending();
    std::erase_if(events, [&](const Event& e) { return stale(e); });
    q.clear();
    for (const Event& e : events) q.push(e);
  }
}

uint32_t Simulator::partition_for(SimTime at, AgentId agent) const {
  DLSIM_CHECK(agent.value < partition_of_.size(), "an event for node {} of {}", agent.value,
              partition_of_.size());
  const uint32_t p = partition_of_[agent.value];
  // Over ranks an origin's counter lives on its node's rank: outside a handler (where the origin
  // is `agent`) only this rank's nodes may be given events.
  DLSIM_CHECK(exchange_ == nullptr || p == current_ || handling_ != kNoNode,
              "an event for node {} (rank {}) scheduled outside a handler on rank {}", agent.value,
              p, current_);
  DLSIM_CHECK(p == current_ || handling_ == kNoNode || at.ns - now_.ns >= lookahead_.ns,
              "node {} scheduled an event for node {} (another partition) {} ns ahead, sooner "
              "than the lookahead of {} ns",
              handling_, agent.value, at.ns - now_.ns, lookahead_.ns);
  return p;
}

void Simulator::add_origin(uint32_t origin) {
  DLSIM_CHECK(origin < kOriginLimit, "node {} beyond the {} origins an event key holds", origin,
              kOriginLimit);
  counters_.resize(origin + 1, 0);
}

}  // namespace dlsim
