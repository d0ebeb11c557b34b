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

void LinkFailures::archive(StateArchive& ar) {
  const auto edges = down_.size();
  ar.sized_vector(down_, "another physical network: link failure states");
  for (SimTime& t : last_failure_) ar.value(t.ns);
  const uint64_t changes = ar.count(changes_.size());
  if (ar.loading()) {
    if (changes > edges) ar.fail("more pending link changes than links");
    changes_.resize(changes);
  }
  for (Change& c : changes_) {  // field by field: the struct has padding
    ar.value(c.at.ns);
    ar.value(c.edge);
    if (ar.loading() && c.edge >= edges) ar.fail("a link change of a link out of range");
  }
  if (ar.loading() && !std::is_heap(changes_.begin(), changes_.end(), Later{}))
    ar.fail("pending link changes out of order");
  ar.value(failures_);
  for (RandomStream& r : random_) r.archive(ar);
  ar.sized_vector(cursor_, "another link failure trace");
  if (ar.loading())
    for (size_t e = 0; e < cursor_.size(); ++e)
      if (cursor_[e] > trace_begin_[e + 1] - trace_begin_[e])
        ar.fail("a trace position out of range");
}

}  // namespace dlsim
