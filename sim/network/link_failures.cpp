#include "sim/network/link_failures.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

// The heap order: the earliest change first, ties by edge.
struct Later {
  template <class C>
  bool operator()(const C& a, const C& b) const {
    return a.at != b.at ? a.at > b.at : a.edge > b.edge;
  }
};

}  // namespace

LinkFailures::LinkFailures(const LinkFailureSpec& spec, const topo::Graph& graph, uint64_t seed)
    : kind_(spec.kind), mtbf_(spec.mtbf), mttr_(spec.mttr) {
  const auto edges = static_cast<uint32_t>(graph.edges().size());
  down_.assign(edges, 0);
  last_failure_.assign(edges, SimTime{-1});
  if (kind_ == FailureKind::kMarkov) {
    DLSIM_CHECK(mtbf_.ns > 0 && mttr_.ns > 0, "link failure means must be positive");
    random_.reserve(edges);
    for (uint32_t e = 0; e < edges; ++e) {
      random_.emplace_back(seed, "link_failure", e);
      schedule(e, exponential_time(random_[e], mtbf_));
    }
    return;
  }
  if (kind_ != FailureKind::kTrace) return;
  // The trace is sorted by node pair; edges are numbered otherwise: a counting sort by edge,
  // stable, keeps each edge's intervals in time order.
  std::vector<uint32_t> edge_of(spec.intervals.size());
  trace_begin_.assign(edges + 1, 0);
  for (size_t k = 0; k < spec.intervals.size(); ++k) {
    const LinkDownInterval& d = spec.intervals[k];
    const int64_t e = d.u < graph.node_count() && d.v < graph.node_count()
                          ? graph.edge_index(d.u, d.v)
                          : -1;
    if (e < 0)
      throw InputError(fmt::format("{}:{}: no link between {} and {} in the physical network",
                                   spec.file, d.line, d.u, d.v));
    edge_of[k] = static_cast<uint32_t>(e);
    ++trace_begin_[e + 1];
  }
  for (uint32_t e = 0; e < edges; ++e) trace_begin_[e + 1] += trace_begin_[e];
  trace_.resize(spec.intervals.size());
  std::vector<uint32_t> fill(trace_begin_.begin(), trace_begin_.end() - 1);
  for (size_t k = 0; k < spec.intervals.size(); ++k)
    trace_[fill[edge_of[k]]++] = spec.intervals[k].down;
  cursor_.assign(edges, 0);
  for (uint32_t e = 0; e < edges; ++e)
    if (trace_begin_[e] < trace_begin_[e + 1]) schedule(e, trace_[trace_begin_[e]].from);
}

void LinkFailures::schedule(uint32_t edge, SimTime at) {
  changes_.push_back(Change{at, edge});
  std::push_heap(changes_.begin(), changes_.end(), Later{});
}

bool LinkFailures::apply_until(SimTime now) {
  went_down_.clear();
  while (!changes_.empty() && changes_.front().at <= now) {
    std::pop_heap(changes_.begin(), changes_.end(), Later{});
    const Change c = changes_.back();
    changes_.pop_back();
    down_[c.edge] ^= 1;
    if (down_[c.edge]) {
      last_failure_[c.edge] = c.at;
      ++failures_;
      went_down_.push_back(c.edge);
    }
    const SimTime next = change_after(c.edge, c.at);
    if (next != SimTime::max()) schedule(c.edge, next);
  }
  return true;
}

// When `edge`, which changed state at `now`, changes next (SimTime::max(): never).
SimTime LinkFailures::change_after(uint32_t edge, SimTime now) {
  if (kind_ == FailureKind::kMarkov)
    return now + exponential_time(random_[edge], down_[edge] ? mttr_ : mtbf_);
  const uint32_t first = trace_begin_[edge];
  const uint32_t count = trace_begin_[edge + 1] - first;
  if (down_[edge]) return trace_[first + cursor_[edge]].until;
  return ++cursor_[edge] < count ? trace_[first + cursor_[edge]].from : SimTime::max();
}

void LinkFailures::save(StateWriter& out) const {
  out.put_vector(down_);
  for (SimTime t : last_failure_) out.put(t.ns);
  out.put<uint64_t>(changes_.size());
  for (const Change& c : changes_) {  // field by field: the struct has padding
    out.put(c.at.ns);
    out.put(c.edge);
  }
  out.put(failures_);
  for (const RandomStream& r : random_) r.save(out);
  out.put_vector(cursor_);
}

void LinkFailures::load(StateReader& in) {
  const auto edges = down_.size();
  down_ = in.get_vector<uint8_t>();
  if (down_.size() != edges) in.fail("another physical network: link failure states");
  for (SimTime& t : last_failure_) t = SimTime{in.get<int64_t>()};
  const auto changes = in.get<uint64_t>();
  if (changes > edges) in.fail("more pending link changes than links");
  changes_.clear();
  for (uint64_t k = 0; k < changes; ++k) {
    Change c{SimTime{in.get<int64_t>()}, 0};
    c.edge = in.get<uint32_t>();
    if (c.edge >= edges) in.fail("a link change of a link out of range");
    changes_.push_back(c);
  }
  if (!std::is_heap(changes_.begin(), changes_.end(), Later{}))
    in.fail("pending link changes out of order");
  failures_ = in.get<uint64_t>();
  for (RandomStream& r : random_) r.load(in);
  const std::vector<uint32_t> cursor = in.get_vector<uint32_t>();
  if (cursor.size() != cursor_.size()) in.fail("another link failure trace");
  for (size_t e = 0; e < cursor.size(); ++e)
    if (cursor[e] > trace_begin_[e + 1] - trace_begin_[e]) in.fail("a trace position out of range");
  cursor_ = cursor;
}

}  // namespace dlsim
