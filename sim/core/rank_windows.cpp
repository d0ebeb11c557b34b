// The window loop of one rank of a run partitioned over processes (docs/partitioned-runs.md,
// "Slice (c), first part"): this rank's partition runs the events of each window; the events
// its handlers scheduled for other ranks' nodes wait in those partitions' queues (outboxes) and
// travel through the PartitionExchange at the next window's start (or later, while their
// content may still change: EventShipping::content_final_at).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <exception>

#include "sim/core/simulator.hpp"

namespace dlsim {
namespace {

// An event on the wire: time, key, agent, payload, the sending rank, then the shipping hook's
// content and its size.
struct WireHeader {
  int64_t time_ns;
  uint64_t key;
  uint32_t agent;
  uint32_t payload;
  uint32_t from_rank;
  uint32_t unused;
  uint64_t content_bytes;
};
static_assert(sizeof(WireHeader) == 40, "no padding on the wire");

}  // namespace

void Simulator::set_shipping(EventKind kind, EventShipping& hook) {
  const size_t k = static_cast<size_t>(kind);
  if (shipping_.size() <= k) shipping_.resize(k + 1, nullptr);
  shipping_[k] = &hook;
  if (std::find(shipping_hooks_.begin(), shipping_hooks_.end(), &hook) == shipping_hooks_.end())
    shipping_hooks_.push_back(&hook);
}

void Simulator::collect_outboxes(SimTime window_start) {
  to_ship_.resize(queues_.size());
  ship_cursor_.assign(queues_.size(), 0);
  std::vector<Event> held;
  for (uint32_t r = 0; r < queues_.size(); ++r) {
    std::vector<Event>& ship = to_ship_[r];
    ship.clear();
    if (r == current_ || queues_[r].empty()) continue;
    // In (time, key) order, so the hooks release slots in the same order whatever the queue.
    std::vector<Event> events = queues_[r].pending();
    queues_[r].clear();
    std::sort(events.begin(), events.end(), runs_before);
    held.clear();
    for (const Event& e : events) {
      if (stale(e)) continue;
      const size_t k = static_cast<size_t>(e.kind());
      EventShipping* hook = k < shipping_.size() ? shipping_[k] : nullptr;
      // Its content may still change: it waits here, as it may (EventShipping's contract).
      if (hook && hook->content_final_at(e) > window_start) {
        DLSIM_CHECK(e.time.ns - lookahead_.ns >= window_start.ns,
                    "an event for node {} at {} ns held back in a window from {} ns", e.agent.value,
                    e.time.ns, window_start.ns);
        held.push_back(e);
        continue;
      }
      ship.push_back(e);
    }
    for (const Event& e : held) queues_[r].push(e);
  }
}

bool Simulator::pack_round() {
  std::vector<std::byte>& bytes = outgoing_;  // reused: its pages stay mapped
  bytes.clear();
  outgoing_counts_.assign(queues_.size(), 0);
  // Each other rank's share of the round; at least one event per rank that has one.
  const size_t others = std::max<size_t>(queues_.size() - 1, 1);
  const size_t limit = std::max<size_t>(shipping_round_bytes_ / others, 1);
  bool more = false;
  for (uint32_t r = 0; r < to_ship_.size(); ++r) {
    const std::vector<Event>& ship = to_ship_[r];
    size_t& next = ship_cursor_[r];
    const size_t before = bytes.size();
    while (next < ship.size() && bytes.size() - before < limit) {  // at least one event
      const Event& e = ship[next++];
      const size_t k = static_cast<size_t>(e.kind());
      EventShipping* hook = k < shipping_.size() ? shipping_[k] : nullptr;
      const size_t at = bytes.size();
      bytes.resize(at + sizeof(WireHeader));
      if (hook) hook->pack(e, r, bytes);
      const WireHeader h{e.time.ns,
                         e.key,
                         e.agent.value,
                         e.payload,
                         current_,
                         0,
                         bytes.size() - at - sizeof(WireHeader)};
      std::memcpy(bytes.data() + at, &h, sizeof h);
    }
    outgoing_counts_[r] = bytes.size() - before;
    more = more || next < ship.size();
  }
  return more;
}

// The earliest event this rank holds: its own, and those waiting in its outboxes.
SimTime Simulator::earliest_here() const {
  SimTime first = SimTime::max();
  for (const EventQueue& q : queues_)
    if (!q.empty()) first = std::min(first, q.top().time);
  return first;
}

void Simulator::push_incoming(std::span<const std::byte> bytes) {
  struct Incoming {
    Event event;
    uint32_t from_rank;
    std::span<const std::byte> content;
  };
  std::vector<Incoming> incoming;
  for (size_t at = 0; at < bytes.size();) {
    DLSIM_CHECK(bytes.size() - at >= sizeof(WireHeader), "a truncated event from another rank");
    WireHeader h;
    std::memcpy(&h, bytes.data() + at, sizeof h);
    at += sizeof h;
    DLSIM_CHECK(bytes.size() - at >= h.content_bytes, "a truncated event from another rank");
    const Event e{SimTime{h.time_ns}, h.key, AgentId{h.agent}, h.payload};
    DLSIM_CHECK(h.from_rank < queues_.size() && h.from_rank != current_,
                "an event from rank {} on rank {} of {}", h.from_rank, current_, queues_.size());
    incoming.push_back({e, h.from_rank, bytes.subspan(at, h.content_bytes)});
    at += h.content_bytes;
  }
  // (time, key) order: the hooks allocate their slots in an order that does not depend on which
  // rank's bytes came first (the queue's order does not depend on it anyway: keys are unique).
  std::sort(incoming.begin(), incoming.end(),
            [](const Incoming& a, const Incoming& b) { return runs_before(a.event, b.event); });
  for (Incoming& in : incoming) {
    Event& e = in.event;
    DLSIM_CHECK(e.agent.value < partition_of_.size() && partition_of_[e.agent.value] == current_,
                "rank {} received an event for node {}, not its own", current_, e.agent.value);
    DLSIM_CHECK(e.time >= clocks_[current_],
                "an event from another rank at {} ns, in the past of rank {} (at {} ns): the "
                "window was wider than the lookahead",
                e.time.ns, current_, clocks_[current_].ns);
    const size_t k = static_cast<size_t>(e.kind());
    if (k < shipping_.size() && shipping_[k])
      e.payload = shipping_[k]->unpack(e, in.from_rank, in.content);
    queues_[current_].push(e);
  }
}

// Each window: agree on T (and that every rank is fine), ship what the outboxes hold whose
// content is final by T, run this rank's events before T + L, then (with a WindowControl) agree
// on the latest clock and call window_done(). A throw in a handler, a shipping hook or the
// horizon on this rank is held until the next agreement, this rank still taking part in every
// collective up to it (sending nothing), so no rank waits forever in one: then every rank
// throws, this one its own exception, the others OtherRankFailed. A throw in window_done()
// leaves at once (below).
uint64_t Simulator::run_rank(HandlerRef handler, SimTime until, WindowControl* windows) {
  stopped_ = false;
  const uint64_t start = events_processed_;
  CheckContext& context = current_check_context();
  struct Outside {  // between windows, after them and after a throw: no handler
    Simulator& s;
    ~Outside() {
      s.handling_ = kNoNode;
      s.now_ = s.clocks_[s.current_];
    }
  } outside{*this};
  PartitionExchange& exchange = *exchange_;
  std::exception_ptr failure;
  auto attempt = [&](auto&& f) {
    if (failure) return;
    try {
      f();
    } catch (...) {
      failure = std::current_exception();
    }
  };
  auto give_up = [&](SimTime at) {
    context = CheckContext{};
    if (failure) std::rethrow_exception(failure);
    throw OtherRankFailed(fmt::format(
        "rank {}: another rank failed in the window from {} ns (its own error is in its output)",
        current_, at.ns));
  };
  EventQueue& mine = queues_[current_];
  SimTime first{};
  for (bool ending = false;;) {
    // T first (the outboxes' events are pending too), then the events whose content is final
    // by T travel.
    const WindowStart w = exchange.start_window(earliest_here(), failure == nullptr);
    if (!w.all_ok) give_up(first);
    first = w.earliest;
    if (ending || stopped_ || first == SimTime::max() || first > until) break;
    // In rounds of a bounded size, until no rank has more: a window's messages may weigh
    // gigabytes (every agent's first broadcast), which would otherwise be packed, sent and
    // received whole.
    attempt([&] { collect_outboxes(first); });
    for (bool more = true; more;) {
      bool have_more = false;
      attempt([&] { have_more = pack_round(); });
      if (failure) {  // this rank sends nothing until the next agreement
        outgoing_.clear();
        outgoing_counts_.assign(queues_.size(), 0);
        have_more = false;
      }
      const ExchangeRound round = exchange.exchange(outgoing_, outgoing_counts_, have_more);
      attempt([&] { push_incoming(round.incoming); });
      more = round.more;
    }
    attempt([&] {
      for (EventShipping* hook : shipping_hooks_) hook->window_shipped();
    });
    const SimTime end =
        first.ns > SimTime::max().ns - lookahead_.ns ? SimTime::max() : first + lookahead_;
    attempt([&] {
      const EventBound bound = windows ? windows->horizon() : EventBound{};
      now_ = clocks_[current_];
      while (!stopped_ && !mine.empty()) {
        const Event& top = mine.top();
        if (top.time >= end || top.time > until || after(top, bound)) break;
        handle_next(mine, handler, context);
      }
    });
    clocks_[current_] = now_;
    handling_ = kNoNode;
    context = CheckContext{};
    if (windows) {  // no rank's driver looks at a window in which one rank failed
      const WindowEnd w = exchange.end_window(clocks_[current_], failure == nullptr);
      if (!w.all_ok) give_up(first);
      now_ = w.latest;  // as in one process, window_done() sees the latest event any rank ran
      // Not held: window_done() runs the drivers' own collectives (evaluations, agreements), and
      // a throw half-way through them cannot be carried to an agreement. It leaves run() at
      // once; the caller ends the job (sim/cli/run_command.cpp: MPI_Abort).
      ending = !windows->window_done();
    }
  }
  // As in one queue, the clock stands at the latest event any rank ran: the next sync round
  // starts there on every rank. No event can arrive before it: it was run at most L after T.
  clocks_[current_] = exchange.end_window(clocks_[current_], true).latest;
  context = CheckContext{};
  return events_processed_ - start;
}

}  // namespace dlsim
