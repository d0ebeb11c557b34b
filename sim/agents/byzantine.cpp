#include "sim/agents/byzantine.hpp"

#include <algorithm>
#include <numeric>

#include "sim/core/error.hpp"
#include "sim/core/state_archive.hpp"
#include "sim/robust/attacks.hpp"

namespace dlsim {
namespace {

std::span<const float> view(const ParamVector& x) {
  return {x.data(), static_cast<size_t>(x.size())};
}

// b's copy of j, or null when j is not one of b's sources or nothing arrived from it yet.
const ParamVector* held_copy(std::span<const uint32_t> sources, std::span<const Snapshot> held,
                             uint32_t j) {
  const auto it = std::lower_bound(sources.begin(), sources.end(), j);
  if (it == sources.end() || *it != j) return nullptr;
  return held[static_cast<size_t>(it - sources.begin())].get();
}

}  // namespace

std::vector<uint32_t> place_byzantine(uint64_t seed, uint32_t agents, uint32_t count) {
  std::vector<uint32_t> order(agents);
  std::iota(order.begin(), order.end(), 0u);
  RandomStream random(seed, "byzantine", 0);
  random.shuffle(std::span<uint32_t>(order));
  order.resize(count);
  std::sort(order.begin(), order.end());
  return order;
}

std::vector<uint8_t> byzantine_mask(std::span<const uint32_t> byzantine, uint32_t agents) {
  std::vector<uint8_t> mask(agents, 0);
  for (uint32_t b : byzantine) mask.at(b) = 1;
  return mask;
}

const char* to_string(AttackKind kind) {
  switch (kind) {
    case AttackKind::kAlie:
      return "alie";
    case AttackKind::kIpm:
      return "ipm";
    case AttackKind::kSignFlip:
      return "sign_flip";
    case AttackKind::kGaussian:
      return "gaussian";
    case AttackKind::kDissensus:
      return "dissensus";
    case AttackKind::kLabelFlip:
      return "label_flip";
  }
  return "?";
}

const char* to_string(AttackKnowledge knowledge) {
  return knowledge == AttackKnowledge::kReceived ? "received" : "omniscient";
}

const char* to_string(ByzantineTiming timing) {
  return timing == ByzantineTiming::kWithTrigger ? "with_trigger" : "every_iteration";
}

void ByzantineSender::start(std::span<const Agent> agents, const Overlay& overlay,
                            TargetWeights weights, const PublishedModels* published) {
  const auto n = static_cast<uint32_t>(agents.size());
  agents_ = agents;
  target_weights_ = weights;
  published_ = published;
  mask_ = byzantine_mask(spec_.agents, n);
  random_.clear();
  random_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) random_.emplace_back(seed_, "byzantine attack", i);
  size_t largest = 0;
  for (uint32_t i = 0; i < n; ++i) largest = std::max(largest, overlay.sources(i).size());
  honest_.reserve(largest + 1);
  weights_.reserve(largest + 1);
}

// Received: b's own model and every copy it holds (its fellow attackers send it their own
// honest models, so every copy is an honestly trained model). Omniscient: the target's current
// model and those of its honest neighbours, as He et al.'s code hands the attack (as the target
// combines them: model_of).
void ByzantineSender::honest_set(const Agent& b, uint32_t t, const Overlay& overlay,
                                 std::span<const Snapshot> held) {
  honest_.clear();
  if (spec_.attack.knowledge == AttackKnowledge::kReceived) {
    honest_.push_back(view(b.x));
    for (const Snapshot& c : held)
      if (c) honest_.push_back(view(*c));
    return;
  }
  honest_.push_back(view(model_of(t)));
  for (uint32_t j : overlay.sources(t))
    if (!is_byzantine(j)) honest_.push_back(view(model_of(j)));
}

// Both views weigh with t's mixing weights, which the topology makes public (all alike for
// TargetWeights::kEqual: only their ratios enter the attack). Received: the
// copy b holds of t and of those honest neighbours of t that b hears too (x_b for t when nothing
// arrived yet); omniscient: the current models.
std::span<const float> ByzantineSender::dissensus_view(const Agent& b, uint32_t t,
                                                       const Overlay& overlay,
                                                       std::span<const Snapshot> held,
                                                       double& byzantine_weight) {
  const bool omniscient = spec_.attack.knowledge == AttackKnowledge::kOmniscient;
  const std::span<const uint32_t> own_sources = overlay.sources(b.id.value);
  honest_.clear();
  weights_.clear();
  byzantine_weight = 0.0;
  const std::span<const uint32_t> sources = overlay.sources(t);
  const std::span<const double> w = overlay.weights(t);
  for (size_t k = 0; k < sources.size(); ++k) {
    const uint32_t j = sources[k];
    const double weight = target_weights_ == TargetWeights::kEqual ? 1.0 : w[k];
    if (is_byzantine(j)) {
      byzantine_weight += weight;
      continue;
    }
    const ParamVector* x = omniscient ? &model_of(j) : held_copy(own_sources, held, j);
    if (x == nullptr) continue;
    honest_.push_back(view(*x));
    weights_.push_back(weight);
  }
  if (omniscient) return view(model_of(t));
  const ParamVector* target = held_copy(own_sources, held, t);
  return view(target ? *target : b.x);
}

Snapshot ByzantineSender::craft(const Agent& b, uint32_t t, const Overlay& overlay,
                                std::span<const Snapshot> held, SnapshotPool& pool) {
  std::shared_ptr<ParamVector> buffer = pool.take(b.x.size());
  const std::span<float> out(buffer->data(), static_cast<size_t>(buffer->size()));
  const AttackSpec& a = spec_.attack;
  switch (a.kind) {
    case AttackKind::kAlie:
      honest_set(b, t, overlay, held);
      alie(honest_, a.z, out);
      break;
    case AttackKind::kIpm:
      honest_set(b, t, overlay, held);
      ipm(honest_, a.epsilon, out);
      break;
    case AttackKind::kSignFlip:
      sign_flip(view(b.x), out);
      break;
    case AttackKind::kGaussian:
      gaussian(view(b.x), a.sigma, random_[b.id.value], out);
      break;
    case AttackKind::kDissensus: {
      double byzantine_weight = 0.0;
      const std::span<const float> target = dissensus_view(b, t, overlay, held, byzantine_weight);
      DLSIM_CHECK(byzantine_weight > 0.0, "agent {} attacks {}, which gives it no weight",
                  b.id.value, t);
      dissensus(target, honest_, weights_, byzantine_weight, a.epsilon, out);
      break;
    }
    case AttackKind::kLabelFlip:
      DLSIM_CHECK(false, "label_flip crafts no message (agent {})", b.id.value);
  }
  return buffer;
}

void ByzantineSender::archive(StateArchive& ar) {
  ar.expect<uint64_t>(random_.size(), "another number of agents");
  for (uint32_t b : spec_.agents) random_[b].archive(ar);
}

}  // namespace dlsim
