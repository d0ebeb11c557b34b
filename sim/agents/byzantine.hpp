// Byzantine agents (issue 30; docs/algorithms.md, "Attacks"): which agents are Byzantine, how
// they attack, and the sender side of a model-sending algorithm (D-PSGD, DETSGRAD) that lets an
// attacker send each honest neighbour its own crafted vector. The vectors are
// sim/robust/attacks.hpp's; this file decides which models they are computed from (the attacker's
// knowledge).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sim/agents/agent.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/core/random.hpp"

namespace dlsim {

class StateArchive;

enum class AttackKind : uint8_t { kAlie, kIpm, kSignFlip, kGaussian, kDissensus, kLabelFlip };

/// What the attacker reads: the copies it holds of its neighbours and its own model (the
/// default), or the current models of its target and of the target's honest neighbours.
enum class AttackKnowledge : uint8_t { kReceived, kOmniscient };

struct AttackSpec {
  AttackKind kind = AttackKind::kAlie;
  double z = 0.0;        // alie: given, or alie_z(agents, Byzantine count)
  double epsilon = 0.0;  // ipm (default 0.1), dissensus (default 1.0)
  double sigma = 1.0;    // gaussian: standard deviation of the noise
  AttackKnowledge knowledge = AttackKnowledge::kReceived;
};

/// When an attacker of an event-triggered algorithm (DETSGRAD) sends: when its own honest
/// trigger fires (the default: it looks like any other agent on the wire), or at every
/// iteration, ignoring the trigger. Algorithms that send every iteration (D-PSGD) have no choice.
enum class ByzantineTiming : uint8_t { kWithTrigger, kEveryIteration };

/// The "byzantine" section, resolved: the Byzantine agents and their attack.
struct ByzantineSpec {
  std::vector<uint32_t> agents;  ///< sorted, distinct, each < the number of agents
  bool placed = false;           ///< drawn from "count" (written back as count), not listed
  AttackSpec attack;
  ByzantineTiming sends = ByzantineTiming::kWithTrigger;  ///< "sends", read by DETSGRAD only
  bool sends_given = false;  ///< "sends" was in the scenario (written back only then)

  /// Whether the attack replaces messages (every kind but label_flip, which is data-side).
  bool crafts_messages() const { return attack.kind != AttackKind::kLabelFlip; }
  /// Whether `agent` mixes what it receives with the plain mean instead of the algorithm's
  /// aggregation rule: a Byzantine agent whose attack crafts messages. The rule is the honest
  /// agents' defence, so only their neighbourhoods must fit it; label flippers follow the
  /// honest protocol, rule included.
  bool mixes_with_mean(uint32_t agent) const {
    return crafts_messages() && std::binary_search(agents.begin(), agents.end(), agent);
  }
};

/// `count` distinct agents of `agents`, drawn from the stream (seed, "byzantine", 0), sorted.
std::vector<uint32_t> place_byzantine(uint64_t seed, uint32_t agents, uint32_t count);

/// Per agent: 1 when Byzantine (an empty list gives all zeros).
std::vector<uint8_t> byzantine_mask(std::span<const uint32_t> byzantine, uint32_t agents);

const char* to_string(AttackKind kind);
const char* to_string(AttackKnowledge knowledge);
const char* to_string(ByzantineTiming timing);

/// How the attacked agents weigh their neighbours, which dissensus scales its push by: with the
/// overlay's mixing weights (D-PSGD), or all alike (DETSGRAD's consensus term).
enum class TargetWeights : uint8_t { kOverlay, kEqual };

/// What an omniscient attacker reads as agent j's model: the vector j's neighbours combine. An
/// algorithm that mixes published copies rather than current models (DETSGRAD: x^_j) says which;
/// without one the attacker reads x_j.
class PublishedModels {
 public:
  virtual ~PublishedModels() = default;
  /// Agent j's model as its neighbours combine it this round; null: its current x_j.
  virtual const ParamVector* published(uint32_t j) const = 0;
};

/// The crafted vectors of a model-sending algorithm's Byzantine senders. Used in the event loop
/// only (communicate), which runs serially: it reads other agents' models there.
class ByzantineSender {
 public:
  /// seed: the scenario's; gaussian draws from (seed, "byzantine attack", agent).
  ByzantineSender(ByzantineSpec spec, uint64_t seed) : spec_(std::move(spec)), seed_(seed) {}

  const ByzantineSpec& spec() const { return spec_; }
  bool is_byzantine(uint32_t agent) const { return mask_[agent] != 0; }
  /// Sizes every workspace for `overlay`'s largest neighbourhood; keeps `agents` (omniscient
  /// knowledge reads their current models). The agents outlive this object.
  /// `published` (null: the current models) outlives this object.
  void start(std::span<const Agent> agents, const Overlay& overlay,
             TargetWeights weights = TargetWeights::kOverlay,
             const PublishedModels* published = nullptr);
  /// The vector Byzantine agent b sends to t, in a buffer of `pool`. `held`: b's copies of its
  /// sources (null: nothing arrived yet), parallel to overlay.sources(b).
  Snapshot craft(const Agent& b, uint32_t t, const Overlay& overlay, std::span<const Snapshot> held,
                 SnapshotPool& pool);
  /// The attackers' random streams.
  void archive(StateArchive& ar);

 private:
  /// alie and ipm's honest set H of b's message to t.
  void honest_set(const Agent& b, uint32_t t, const Overlay& overlay,
                  std::span<const Snapshot> held);
  /// dissensus: x_t (returned), the honest neighbours of t into honest_ and weights_, and the
  /// weight t gives its Byzantine neighbours.
  std::span<const float> dissensus_view(const Agent& b, uint32_t t, const Overlay& overlay,
                                        std::span<const Snapshot> held, double& byzantine_weight);
  /// Omniscient knowledge: agent j's model as its neighbours combine it.
  const ParamVector& model_of(uint32_t j) const {
    const ParamVector* p = published_ ? published_->published(j) : nullptr;
    return p ? *p : agents_[j].x;
  }

  ByzantineSpec spec_;
  uint64_t seed_;
  TargetWeights target_weights_ = TargetWeights::kOverlay;
  const PublishedModels* published_ = nullptr;
  std::vector<uint8_t> mask_;
  std::span<const Agent> agents_;
  std::vector<RandomStream> random_;            // per agent (only the Byzantine ones draw)
  std::vector<std::span<const float>> honest_;  // workspace: the models an attack reads
  std::vector<double> weights_;                 // workspace: dissensus's W_tj, parallel
};

}  // namespace dlsim
