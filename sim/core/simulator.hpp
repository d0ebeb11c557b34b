// The simulator: clock, event queue, random streams and fingerprints. Passed by reference to
// whoever schedules or handles events; never global. Single-threaded: events run one at a time
// in (time, origin, origin counter) order (event.hpp). An event's origin is the node whose event
// was being handled when it was scheduled; outside run()'s handler (a driver's set-up, a sync
// round's steps, churn's rejoin pulls at a round's start) it is the node the new event is for
// (its `agent`), so an initial event's origin is its own node. Each origin numbers its own
// events, so the order of simultaneous events does not depend on how different nodes'
// scheduling interleaves, and each node hashes the events it handles into its own fingerprint
// (docs/partitioned-runs.md, design points 1 and 2).
// A layer that schedules events which may later become obsolete (the network's flow ends under
// network.sharing "maxmin": a flow's end moves earlier when its rate goes up; its link change
// events, once no flow is left to lose) registers a stale filter for their kinds (one owner and
// filter, for one or more kinds): run() drops such events unseen (the clock does not move to
// them, they are neither counted nor fingerprinted) and save() leaves them out, so a run resumed
// from a checkpoint sees the same events as one that was not interrupted.
// A partitioned run (partition(): virtual ranks, docs/partitioned-runs.md slice (b)) keeps one
// queue and one clock per partition and runs them in windows of the lookahead L: from the
// earliest pending event T, each partition in turn runs its events before T + L. An event one
// partition schedules for another's node comes at least L after its handler's time, so it lands
// after the window, where the other partition has not been yet; each node sees its events in
// the same order as in one queue, whichever partition runs first. Over ranks (partition() with
// an exchange) a process runs its rank's partition; the others' queues are outboxes
// (rank_windows.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/core/fingerprint.hpp"
#include "sim/core/partition_exchange.hpp"
#include "sim/core/partitions.hpp"
#include "sim/core/random.hpp"
#include "sim/core/state_archive.hpp"

namespace dlsim {

class Simulator {
 public:
  explicit Simulator(uint64_t seed) : seed_(seed) {}

  /// The time of the event being handled; outside a handler, of the latest event run (in a
  /// partitioned run: by any partition).
  SimTime now() const { return now_; }
  uint64_t seed() const { return seed_; }
  size_t pending() const {  ///< stale events included; over ranks, this rank's and its outboxes'
    size_t n = 0;
    for (const EventQueue& q : queues_) n += q.size();
    return n;
  }
  uint64_t events_processed() const { return events_processed_; }  ///< over ranks: this rank's
  /// Each node's hash of the events it handled (EventFingerprints), by node id (over ranks: this
  /// rank's nodes only; rank_totals.hpp combines them).
  std::span<const Fingerprint> node_fingerprints() const { return fingerprints_.nodes(); }
  /// The events' fingerprint: the nodes' hashes combined in node order.
  Fingerprint fingerprint() const { return fingerprints_.combined(); }

  /// The random stream for (this run's seed, purpose, index).
  RandomStream stream(std::string_view purpose, uint64_t index) const {
    return RandomStream(seed_, purpose, index);
  }

  /// Schedules an event at absolute time `at` and returns its id (Event::id(): origin and origin
  /// counter, unique in the run). The origin is the node whose event is being handled, or
  /// `agent` outside a handler (header comment). Precondition: at >= now(). A node id of 2^24 or
  /// more, or a node's 2^32nd event, is an invariant violation: they would not fit the key.
  uint64_t schedule_at(SimTime at, EventKind kind, AgentId agent, uint32_t payload = 0) {
    DLSIM_CHECK(at >= now_, "event scheduled in the past: at={}ns now={}ns", at.ns, now_.ns);
    const uint32_t origin = handling_ != kNoNode ? handling_ : agent.value;
    if (origin >= counters_.size()) [[unlikely]]
      add_origin(origin);
    uint32_t& counter = counters_[origin];
    DLSIM_CHECK(counter != kCounterLimit - 1,
                "node {} scheduled {} events, the most one origin's counter holds", origin,
                counter);
    const uint64_t key = event_key(origin, counter++, kind);
    uint32_t part = 0;
    if (!partition_of_.empty()) [[unlikely]]
      part = partition_for(at, agent);
    queues_[part].push(Event{at, key, agent, payload});
    return key >> 8;
  }
  /// Schedules an event `delay` after now. Precondition: delay >= 0.
  void schedule_in(SimTime delay, EventKind kind, AgentId agent, uint32_t payload = 0) {
    schedule_at(now_ + delay, kind, agent, payload);
  }

  /// true: `e` (of one of the filter's kinds) is obsolete. `owner` is what set_stale_filter()
  /// was given.
  using StaleFilter = bool (*)(const void* owner, const Event& e);
  /// Events of `kind` for which filter(owner, e) holds are dropped unseen (header comment).
  /// One filter and owner per simulator, for any kinds: setting it again adds `kind` (a no-op
  /// when it has it already). `owner` outlives it.
  void set_stale_filter(EventKind kind, StaleFilter filter, const void* owner);

  /// Every pending event that is not stale, in (time, key) order, whatever the partitions.
  std::vector<Event> pending_events() const;

  /// Splits the nodes into partitions that run in windows (header comment). Precondition:
  /// nothing has been scheduled or loaded yet, one partition per node of the run, lookahead > 0.
  void partition(const Partitions& p);
  uint32_t partitions() const { return static_cast<uint32_t>(queues_.size()); }
  /// The same over processes: only partition exchange.rank() runs here (p.count == ranks(),
  /// `exchange` outlives the runs); other ranks' nodes get events only from handlers, L ahead.
  void partition(const Partitions& p, PartitionExchange& exchange);
  /// Whether `node`'s events run in this process (always, unless partitioned over ranks).
  bool runs_here(AgentId node) const { return !exchange_ || partition_of_[node.value] == current_; }
  /// Events of `kind` sent to another rank carry what `hook` packs (partition_exchange.hpp).
  /// `hook` outlives the runs.
  void set_shipping(EventKind kind, EventShipping& hook);
  /// Over ranks, a window's events travel in rounds of about this many bytes, split among the
  /// other ranks: what a rank holds of packed events at once, sent and received, whatever the
  /// window carries (every agent's first broadcast may weigh gigabytes). Small ones for tests.
  void set_shipping_round_bytes(size_t bytes) { shipping_round_bytes_ = bytes; }

  /// The clock, the origins' counters, the nodes' fingerprints and every pending event that is
  /// not stale, for checkpoints. Loading replaces them; the seed is the scenario's, checked by
  /// the caller.
  void archive(StateArchive& ar);

  /// Removes the stale events from the queue now (run() would drop them unseen when it reached
  /// them), for an owner that may leave many behind; the other events keep their order.
  void drop_stale();

  /// Asks run() to return after the event being handled. A partitioned run is stopped only
  /// outside its handlers (a WindowControl's window_done(): run() returns after that window):
  /// from a handler it would leave the partitions that ran first past the event.
  void stop() {
    DLSIM_CHECK(partition_of_.empty() || handling_ == kNoNode,
                "stop() from a handler of a partitioned run (node {})", handling_);
    stopped_ = true;
  }

  /// Runs events in order, calling handler(const Event&) for each, until the queue is empty,
  /// stop() is called, or the next event lies after `until`. Returns the events handled. A
  /// partitioned run goes in windows (header comment), each bounded by `windows`' horizon and
  /// followed by its window_done() when it is given. Over ranks, every rank calls run() alike,
  /// window_done() answering the same on each (the caller's duty: it reduces over ranks); a throw
  /// in a handler on one rank ends every rank's run() at the next agreement, one in
  /// window_done() leaves that rank's at once (rank_windows.cpp).
  template <class Handler>
  uint64_t run(Handler&& handler, SimTime until = SimTime::max(),
               WindowControl* windows = nullptr) {
    if (!partition_of_.empty())
      return exchange_ ? run_rank(HandlerRef::of(handler), until, windows)
                       : run_windows(handler, until, windows);
    stopped_ = false;
    const uint64_t start = events_processed_;
    CheckContext& context = current_check_context();
    struct Handling {  // outside the handler (also after a throw) events originate at their node
      uint32_t& node;
      ~Handling() { node = kNoNode; }
    } handling{handling_};
    EventQueue& queue = queues_[0];
    while (!stopped_ && !queue.empty() && queue.top().time <= until)
      handle_next(queue, handler, context);
    context = CheckContext{};
    return events_processed_ - start;
  }

  /// Partitioned runs, from a WindowControl's window_done(): runs f() as the rest of the
  /// handler of `e`, the last event its partition ran (the window's horizon): at e's time, and
  /// what f schedules originates at e's node, as it would have inside the handler.
  template <class F>
  void continue_handling(const Event& e, F&& f) {
    DLSIM_CHECK(e.agent.value < partition_of_.size(), "continued the handling of node {} of {}",
                e.agent.value, partition_of_.size());
    const uint32_t p = partition_of_[e.agent.value];
    DLSIM_CHECK(clocks_[p] == e.time,
                "node {}'s handling continued at {} ns, its partition at {} ns", e.agent.value,
                e.time.ns, clocks_[p].ns);
    current_ = p;
    now_ = e.time;
    handling_ = e.agent.value;
    CheckContext& context = current_check_context();
    context.time_ns = e.time.ns;
    context.agent = e.agent.value;
    struct Restore {
      Simulator& s;
      CheckContext& context;
      ~Restore() {
        s.handling_ = kNoNode;
        s.now_ = s.latest_clock();
        context = CheckContext{};
      }
    } restore{*this, context};
    f();
  }

 private:
  template <class Handler>
  void handle_next(EventQueue& queue, Handler& handler, CheckContext& context) {
    const Event e = queue.pop();
    if (stale_filter_ && stale(e)) return;
    now_ = e.time;
    ++events_processed_;
    fingerprints_.add(e);
    handling_ = e.agent.value;
    context.time_ns = e.time.ns;
    context.agent = e.agent.value;
    handler(e);
  }

  template <class Handler>
  uint64_t run_windows(Handler& handler, SimTime until, WindowControl* windows) {
    stopped_ = false;
    const uint64_t start = events_processed_;
    CheckContext& context = current_check_context();
    struct Outside {  // between windows, after them and after a throw: no handler, no partition
      Simulator& s;
      ~Outside() {
        s.handling_ = kNoNode;
        s.now_ = s.latest_clock();
      }
    } outside{*this};
    while (!stopped_) {
      SimTime first = SimTime::max();
      for (const EventQueue& q : queues_)
        if (!q.empty()) first = std::min(first, q.top().time);
      if (first == SimTime::max() || first > until) break;
      // Exclusive; saturated so that the last window of a run near the end of time still ends.
      const SimTime end =
          first.ns > SimTime::max().ns - lookahead_.ns ? SimTime::max() : first + lookahead_;
      const EventBound bound = windows ? windows->horizon() : EventBound{};
      const uint64_t before = events_processed_;
      const size_t before_pending = pending();
      for (uint32_t p = 0; p < queues_.size() && !stopped_; ++p) {
        current_ = p;
        now_ = clocks_[p];
        EventQueue& q = queues_[p];
        while (!stopped_ && !q.empty()) {
          const Event& top = q.top();
          if (top.time >= end || top.time > until || after(top, bound)) break;
          handle_next(q, handler, context);
        }
        clocks_[p] = now_;
        handling_ = kNoNode;
      }
      DLSIM_CHECK(events_processed_ != before || pending() != before_pending,
                  "a window from {} ns ran no event (its horizon: {} ns)", first.ns, bound.time.ns);
      now_ = latest_clock();
      if (windows && !stopped_ && !windows->window_done()) break;
    }
    context = CheckContext{};
    return events_processed_ - start;
  }

  struct HandlerRef {  // a handler of any type, for the window loop over ranks in the .cpp
    void* object;
    void (*call)(void*, const Event&);
    void operator()(const Event& e) const { call(object, e); }
    template <class H>
    static HandlerRef of(H& h) {
      return {const_cast<void*>(static_cast<const void*>(std::addressof(h))),
              [](void* o, const Event& e) { (*static_cast<H*>(o))(e); }};
    }
  };
  uint64_t run_rank(HandlerRef handler, SimTime until, WindowControl* windows);
  // Takes the outboxes' events whose content is final by `window_start` into to_ship_, each
  // rank's in (time, key) order; pack_round() then packs the next of them into outgoing_, each
  // rank's part in rank order, outgoing_counts_ bytes each, and says whether any are left.
  void collect_outboxes(SimTime window_start);
  bool pack_round();
  SimTime earliest_here() const;
  void push_incoming(std::span<const std::byte> bytes);

  static bool after(const Event& e, const EventBound& bound) { return bound < EventBound::of(e); }
  SimTime latest_clock() const {
    return clocks_.empty() ? now_ : *std::max_element(clocks_.begin(), clocks_.end());
  }
  // The partition of `agent`, checking that an event for another partition's node comes no
  // sooner than the lookahead: the window it runs in must not have started there.
  uint32_t partition_for(SimTime at, AgentId agent) const;
  bool stale(const Event& e) const {
    return stale_filter_ && static_cast<uint32_t>(e.kind()) < 64 &&
           (stale_kinds_ >> static_cast<uint32_t>(e.kind()) & 1) != 0 &&
           stale_filter_(stale_owner_, e);
  }

  static constexpr uint32_t kNoNode = UINT32_MAX;  // no handler running

  void add_origin(uint32_t origin);

  uint64_t seed_;
  SimTime now_{};
  uint32_t handling_ = kNoNode;     // the node of the event whose handler is running
  std::vector<uint32_t> counters_;  // by origin: the events it has scheduled
  uint64_t events_processed_ = 0;
  bool stopped_ = false;
  std::vector<EventQueue> queues_ = std::vector<EventQueue>(1);  // one per partition
  // Partitioned runs only (empty otherwise): each node's partition, and each partition's clock.
  std::vector<uint32_t> partition_of_;
  std::vector<SimTime> clocks_;
  uint32_t current_ = 0;  // the partition whose events run (or ran last)
  SimTime lookahead_;
  PartitionExchange* exchange_ = nullptr;  // over ranks only; then current_ is this rank
  std::vector<EventShipping*> shipping_;   // by kind; null: the payload travels as it is
  std::vector<EventShipping*> shipping_hooks_;  // each hook once, told when a window is shipped
  std::vector<std::byte> outgoing_;  // a round of a window's packed events (rank_windows.cpp)
  std::vector<size_t> outgoing_counts_;
  std::vector<std::vector<Event>> to_ship_;  // per rank: this window's events for it
  std::vector<size_t> ship_cursor_;          // per rank: the next of them to pack
  size_t shipping_round_bytes_ = size_t{64} << 20;
  EventFingerprints fingerprints_;
  uint64_t stale_kinds_ = 0;  // bit k: events of kind k go through the filter
  StaleFilter stale_filter_ = nullptr;
  const void* stale_owner_ = nullptr;
};

}  // namespace dlsim
