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
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/core/fingerprint.hpp"
#include "sim/core/random.hpp"
#include "sim/core/state_archive.hpp"

namespace dlsim {

class Simulator {
 public:
  explicit Simulator(uint64_t seed) : seed_(seed) {}

  SimTime now() const { return now_; }
  uint64_t seed() const { return seed_; }
  size_t pending() const { return queue_.size(); }  ///< stale events included
  uint64_t events_processed() const { return events_processed_; }
  /// Each node's hash of the events it handled (fingerprint.hpp, EventFingerprints), by node id.
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
    queue_.push(Event{at, key, agent, payload});
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
  void set_stale_filter(EventKind kind, StaleFilter filter, const void* owner) {
    DLSIM_CHECK(stale_filter_ == nullptr || (stale_filter_ == filter && stale_owner_ == owner),
                "a second stale-event filter");
    DLSIM_CHECK(static_cast<uint32_t>(kind) < 64, "event kind {} beyond the filter's mask",
                static_cast<int>(kind));
    stale_kinds_ |= uint64_t{1} << static_cast<uint32_t>(kind);
    stale_filter_ = filter;
    stale_owner_ = owner;
  }

  /// The clock, the origins' counters, the nodes' fingerprints and every pending event that is
  /// not stale, for checkpoints. Loading replaces them; the seed is the scenario's, checked by
  /// the caller.
  void archive(StateArchive& ar) {
    ar.value(now_);
    ar.vector(counters_);
    ar.value(events_processed_);
    std::vector<uint64_t> fingerprints = fingerprints_.values();
    ar.vector(fingerprints);
    std::vector<Event> events;
    if (!ar.loading()) {  // stale events are left out: they would be dropped unseen anyway
      events = queue_.pending();
      std::erase_if(events, [&](const Event& e) { return stale(e); });
    }
    ar.vector(events);
    if (!ar.loading()) return;
    if (counters_.size() > kOriginLimit) ar.fail("more origins than an event key holds");
    fingerprints_ = EventFingerprints::resume_from(fingerprints);
    queue_.clear();
    for (const Event& e : events) {
      const uint32_t origin = e.origin().value;
      if (e.time < now_ || origin >= counters_.size() || e.counter() >= counters_[origin])
        ar.fail("an event outside the saved clock");
      queue_.push(e);
    }
  }

  /// Removes the stale events from the queue now (run() would drop them unseen when it reached
  /// them), for an owner that may leave many behind; the other events keep their order.
  void drop_stale() {
    std::vector<Event> events = queue_.pending();
    std::erase_if(events, [&](const Event& e) { return stale(e); });
    queue_.clear();
    for (const Event& e : events) queue_.push(e);
  }

  /// Asks run() to return after the event being handled.
  void stop() { stopped_ = true; }

  /// Runs events in order, calling handler(const Event&) for each, until the queue is empty,
  /// stop() is called, or the next event lies after `until`. Returns the events handled.
  template <class Handler>
  uint64_t run(Handler&& handler, SimTime until = SimTime::max()) {
    stopped_ = false;
    const uint64_t start = events_processed_;
    CheckContext& context = current_check_context();
    struct Handling {  // outside the handler (also after a throw) events originate at their node
      uint32_t& node;
      ~Handling() { node = kNoNode; }
    } handling{handling_};
    while (!stopped_ && !queue_.empty() && queue_.top().time <= until) {
      const Event e = queue_.pop();
      if (stale_filter_ && stale(e)) continue;
      now_ = e.time;
      ++events_processed_;
      fingerprints_.add(e);
      handling_ = e.agent.value;
      context.time_ns = e.time.ns;
      context.agent = e.agent.value;
      handler(e);
    }
    context = CheckContext{};
    return events_processed_ - start;
  }

 private:
  bool stale(const Event& e) const {
    return stale_filter_ && static_cast<uint32_t>(e.kind()) < 64 &&
           (stale_kinds_ >> static_cast<uint32_t>(e.kind()) & 1) != 0 &&
           stale_filter_(stale_owner_, e);
  }

  static constexpr uint32_t kNoNode = UINT32_MAX;  // no handler running

  void add_origin(uint32_t origin) {
    DLSIM_CHECK(origin < kOriginLimit, "node {} beyond the {} origins an event key holds", origin,
                kOriginLimit);
    counters_.resize(origin + 1, 0);
  }

  uint64_t seed_;
  SimTime now_{};
  uint32_t handling_ = kNoNode;     // the node of the event whose handler is running
  std::vector<uint32_t> counters_;  // by origin: the events it has scheduled
  uint64_t events_processed_ = 0;
  bool stopped_ = false;
  EventQueue queue_;
  EventFingerprints fingerprints_;
  uint64_t stale_kinds_ = 0;  // bit k: events of kind k go through the filter
  StaleFilter stale_filter_ = nullptr;
  const void* stale_owner_ = nullptr;
};

}  // namespace dlsim
