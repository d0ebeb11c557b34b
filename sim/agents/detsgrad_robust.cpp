// DETSGRAD's robust consensus and its Byzantine senders (detsgrad.hpp's header comment;
// docs/algorithms.md, "DETSGRAD under attack").
#include <algorithm>

#include "sim/agents/detsgrad.hpp"
#include "sim/core/error.hpp"

namespace dlsim {
namespace {

std::span<const float> view(const ParamVector& x) {
  return {x.data(), static_cast<size_t>(x.size())};
}

}  // namespace

void Detsgrad::set_aggregation(const AggregationSpec& rule, int64_t iterations) {
  DLSIM_CHECK(rule.kind == AggregationKind::kMean || !overlay_.dynamic(),
              "aggregation rule {} on a dynamic overlay", to_string(rule.kind));
  aggregation_ = rule;
  iterations_ = iterations;
}

void Detsgrad::set_byzantine(const ByzantineSpec& spec, uint64_t seed) {
  if (!spec.crafts_messages()) return;
  DLSIM_CHECK(!overlay_.dynamic() && !compression_.enabled() && !tensor_events_,
              "Byzantine DETSGRAD senders on a dynamic overlay, with compression or per-tensor "
              "triggers");
  byzantine_ = std::make_unique<ByzantineSender>(spec, seed);
}

// An attacker that crafts its messages keeps the plain sum (its own model feeds only sign_flip
// and gaussian), so one with a single neighbour does not make a rule too large for the graph.
void Detsgrad::start_robust(const Agent& a, PerAgent& s) {
  if (byzantine_ && byzantine_->spec().mixes_with_mean(a.id.value)) return;
  const size_t degree = s.copies.held.size();
  DLSIM_CHECK(refusal(aggregation_, degree + 1).empty(), "{}", refusal(aggregation_, degree + 1));
  s.robust = std::make_unique<AggregationWorkspace>(s.size, degree);
  s.mixed = ParamVector::Zero(static_cast<Eigen::Index>(s.size));
  s.equal_weights.assign(degree, 1.0 / static_cast<double>(degree + 1));
}

// The same steps as update_block's two cases, with (d+1) (c - M) in place of the sum of
// differences: the gradient term first (fused or not) when c = x^_i, in one expression with
// the consensus term when c = x_i; in the same blocks, the drift ||x_{k+1} - x^_i|| that the
// next prepare() compares with the threshold (the blocks drift_norm() would use: same value).
void Detsgrad::robust_update(Agent& a, PerAgent& s) {
  const Steps& st = steps(s, a.iteration);
  const bool from_broadcast = spec_.consensus == ConsensusBase::kBroadcast && s.broadcast;
  DLSIM_CHECK(from_broadcast || !s.fused, "fused DETSGRAD step without a broadcast copy");
  const ParamVector& centre = from_broadcast ? *s.broadcast : a.x;
  const std::vector<Snapshot>& held = s.copies.held;
  const std::span<std::span<const float>> views = s.robust->views(held.size());
  for (size_t k = 0; k < held.size(); ++k) views[k] = view(held[k] ? *held[k] : centre);
  const double progress =
      iterations_ > 0
          ? std::min(1.0, static_cast<double>(a.iteration) / static_cast<double>(iterations_))
          : 0.0;
  const Neighbourhood in{view(centre), views, 1.0 / static_cast<double>(held.size() + 1),
                         s.equal_weights};
  aggregate(aggregation_, in, progress,
            std::span<float>(s.mixed.data(), static_cast<size_t>(s.mixed.size())), *s.robust);
  const float step = st.beta * static_cast<float>(held.size() + 1);
  const bool track = !tensor_events_ && trigger_.needs_drift() && s.broadcast;
  NormAccumulator drift(trigger_.spec().norm);
  for (Eigen::Index start = 0; start < a.x.size(); start += kBlock) {
    const Eigen::Index n = std::min(kBlock, a.x.size() - start);
    auto x = a.x.segment(start, n);
    const auto m = s.mixed.segment(start, n);
    const auto g = a.g.segment(start, n);
    if (from_broadcast) {
      if (!s.fused) x.noalias() -= st.alpha_s * g;
      x.noalias() -= step * (centre.segment(start, n) - m);
    } else {
      x = x - step * (x - m) - st.alpha_s * g;
    }
    if (track) drift.add(x - s.broadcast->segment(start, n));
  }
  s.dirty = false;
  s.fused = false;
  s.cache_valid = false;
  s.drift_ready = track;
  s.next_drift = drift.value();
}

// In the event loop, where no other thread drops the attacker's copies (as in prepare()). To a
// fellow attacker it sends its honest x^_i.
Snapshot Detsgrad::params_for(const Agent& a, PerAgent& s, uint32_t j) {
  if (!byzantine_ || !byzantine_->is_byzantine(a.id.value) || byzantine_->is_byzantine(j))
    return s.broadcast;
  return byzantine_->craft(a, j, overlay_, s.copies.held, s.pool);
}

const ParamVector* Detsgrad::published(uint32_t j) const {
  const PerAgent& s = state_[j];
  if (spec_.consensus != ConsensusBase::kBroadcast) return nullptr;
  return s.pending ? s.pending.get() : s.broadcast.get();
}

bool Detsgrad::always_fires(const Agent& a) const {
  return byzantine_ && byzantine_->spec().sends == ByzantineTiming::kEveryIteration &&
         byzantine_->is_byzantine(a.id.value);
}

}  // namespace dlsim
