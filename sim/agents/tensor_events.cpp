#include "sim/agents/tensor_events.hpp"

#include <cmath>
#include <limits>

#include "sim/agents/agent_archive.hpp"
#include "sim/agents/drift_norm.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

TensorEvents::TensorEvents(const TriggerSpec& spec) : spec_(spec), rule_(spec) {
  DLSIM_CHECK(per_tensor(spec), "trigger {} is not per tensor", to_string(spec.kind));
}

void TensorEvents::start(size_t agents, std::vector<TensorRange> layout, Eigen::Index size) {
  if (layout.empty()) layout.push_back({0, size, "parameters"});
  Eigen::Index next = 0;
  for (const TensorRange& r : layout) {
    DLSIM_CHECK(r.offset == next && r.size > 0, "tensor at {} of {} does not follow {}", r.offset,
                r.size, next);
    next += r.size;
  }
  DLSIM_CHECK(next == size, "tensors cover {} of {} parameters", next, size);
  layout_ = std::move(layout);
  tensors_.assign(agents * layout_.size(), PerTensor{});
  lists_.assign(agents, {});
}

bool TensorEvents::fires(PerTensor& t, int64_t k, const ParamVector& x, const ParamVector* sent,
                         const TensorRange& r, double alpha_k) const {
  const auto xp = x.segment(r.offset, r.size);
  if (spec_.kind == TriggerKind::kThreshold) {  // the whole-model rule on this tensor's drift
    const double drift = sent ? norm_of(xp - sent->segment(r.offset, r.size), spec_.norm)
                              : std::numeric_limits<double>::infinity();
    return rule_.threshold_fires({k, drift, alpha_k});
  }
  // EventGraD's rule, in the authors' order: decay, compare, and on a send the new threshold.
  t.threshold *= spec_.horizon;
  const double norm = norm_of(xp, DriftNorm::kL2);
  const double change = std::fabs(norm - t.last_norm);
  if (!(change >= t.threshold || k < spec_.warmup)) return false;
  t.slopes[0] = t.slopes[1];
  t.slopes[1] = change / static_cast<double>(k - t.last_k);
  t.threshold = 0.5 * (t.slopes[0] + t.slopes[1]);
  t.last_norm = norm;
  t.last_k = k;
  return true;
}

Parts TensorEvents::decide(uint32_t i, int64_t k, const ParamVector& x, const ParamVector* sent,
                           double alpha_k) {
  DLSIM_CHECK(x.size() == layout_.back().offset + layout_.back().size, "{} parameters", x.size());
  // A list nobody holds any more (its messages were delivered or dropped), else a new one: as
  // many as this agent has events in flight.
  std::shared_ptr<std::vector<uint32_t>> list;
  for (auto& candidate : lists_[i])
    if (candidate.use_count() == 1) {
      list = candidate;
      break;
    }
  if (!list) {
    list = lists_[i].emplace_back(std::make_shared<std::vector<uint32_t>>());
    list->reserve(layout_.size());
  }
  list->clear();
  PerTensor* mine = &tensors_[i * layout_.size()];
  for (size_t p = 0; p < layout_.size(); ++p)
    if (fires(mine[p], k, x, sent, layout_[p], alpha_k)) list->push_back(static_cast<uint32_t>(p));
  if (list->empty()) return nullptr;
  return list;
}

uint64_t TensorEvents::payload_bytes(const std::vector<uint32_t>& parts) const {
  uint64_t floats = 0;
  for (uint32_t p : parts) floats += static_cast<uint64_t>(layout_[p].size);
  const uint64_t mask = layout_.size() > 1 ? (layout_.size() + 7) / 8 : 0;
  return floats * sizeof(float) + mask;
}

Snapshot TensorEvents::next_sent(SnapshotPool& pool, const ParamVector* base, const ParamVector& x,
                                 const std::vector<uint32_t>& parts) const {
  if (parts.size() == layout_.size()) return pool.take_copy(x);
  std::shared_ptr<ParamVector> next = base ? pool.take_copy(*base) : pool.take(x.size());
  if (!base) next->setZero();
  copy_parts(*next, x, parts);
  return next;
}

void TensorEvents::copy_parts(ParamVector& copy, const ParamVector& from,
                              const std::vector<uint32_t>& parts) const {
  for (uint32_t p : parts)
    copy.segment(layout_[p].offset, layout_[p].size) =
        from.segment(layout_[p].offset, layout_[p].size);
}

void TensorEvents::archive(StateArchive& ar) {
  ar.expect<uint64_t>(tensors_.size(), "another number of tensors or agents");
  for (PerTensor& t : tensors_) {
    ar.value(t.threshold);
    ar.value(t.last_norm);
    ar.value(t.last_k);
    ar.value(t.slopes[0]);
    ar.value(t.slopes[1]);
  }
}

void PartialCopies::receive(const TensorEvents& events, SnapshotPool& pool, size_t n,
                            const Message& m, const ParamVector& x) {
  const TensorParts* p = m.payload_if<TensorParts>();
  DLSIM_CHECK(m.params && p && p->parts, "a per-tensor message without its parts");
  if (!own[n] && p->sequence == received[n] + 1) {
    held[n] = m.params;  // = our copy with the parts replaced: it was the sender's previous x^
  } else {
    // A message of this sender was lost: from now on the copy is ours, as on a real network.
    std::shared_ptr<ParamVector> copy = pool.take_copy(held[n] ? *held[n] : x);
    events.copy_parts(*copy, *m.params, *p->parts);
    held[n] = std::move(copy);
    own[n] = 1;
  }
  received[n] = p->sequence;
}

void TensorParts::archive(StateArchive& ar) {
  archive_parts(ar, parts);
  ar.value(sequence);
}

void archive_parts(StateArchive& ar, Parts& p) {  // a few indices: written with every holder
  bool present = p != nullptr;
  ar.value(present);
  if (!present) return p.reset();
  std::vector<uint32_t> indices;
  if (!ar.loading()) indices = *p;
  ar.vector(indices);
  if (ar.loading()) p = std::make_shared<const std::vector<uint32_t>>(std::move(indices));
}

void PartialCopies::archive(AgentArchive& ar) {
  ar.fixed_list(held);
  ar.vector(received);
  ar.vector(own);
  if (ar.loading() && (received.size() != held.size() || own.size() != held.size()))
    ar.fail("another number of neighbours");
}

}  // namespace dlsim
