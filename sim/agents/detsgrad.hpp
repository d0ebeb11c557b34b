// DETSGRAD (George & Gurram 2019): event-triggered consensus + innovation. Agent i broadcasts x_i
// to its neighbours only when ||x_i - x^_i|| > v_k (x^_i: the value it last broadcast), and every
// neighbour holds that copy until the next event. Update (docs/algorithms.md, "DETSGRAD"):
//   x_i <- x_i - beta_k * sum_{j in N_i} (x^_i - x^_j) - alpha_k * s * g_i.
// With a compression C it is SPARQ-SGD (Singh et al. 2020): an event sends q = C(x_i - x^_i)
// and x^_i += q at the sender and at every holder, so copies agree bit for bit and what C drops
// is sent later. A holder that has received every q of a sender adopts the sender's own x^_i
// (the same bits as adding q to its copy, without a copy per edge); after a lost message its copy
// is its own and each later q is added to it. With local_steps H, only iterations k with
// k % H == 0 check the trigger and apply the consensus term; the others are local steps.
// With a per-tensor trigger (granularity "layer", or EventGraD's adaptive one; tensor_events.hpp)
// an event sends only the tensors that fired and x^_i changes only there.
// In sync mode (SyncFastPath) the gradient term is applied inside the gradient computation
// (fused_local_step) whenever the consensus term does not read x_i itself; update() then adds the
// consensus term and computes the next drift norm in the same pass over the parameters.
// On a dynamic overlay (overlay.hpp; sync mode, full-model sends, no local steps) agent i
// broadcasts to the round's targets and its consensus term runs over the round's sources; a copy
// from an agent that is no longer a source is dropped. When an edge j -> i appears that was not
// in the previous round's graph, j sends i its current x_j in that round even if its trigger did
// not fire (a forced send: a message, not an event; x^_j, the drift reference, stays the last
// broadcast). docs/algorithms.md, "DETSGRAD on dynamic topologies".
// On a static overlay the consensus term may go through a robust rule (set_aggregation):
// with c = x^_i and M the rule's combination of {c} and the copies, each weighted 1/(d+1),
//   x_i <- x_i - beta_k (d+1) (c - M) - alpha_k s g_i,
// which for the mean is the sum above (a copy not yet received counts as c). With Byzantine
// agents (set_byzantine) an attacker sends each honest neighbour a crafted vector when its
// trigger fires, or at every iteration (docs/algorithms.md, "DETSGRAD under attack";
// detsgrad_robust.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "sim/agents/agent_compression.hpp"
#include "sim/agents/algorithm.hpp"
#include "sim/agents/byzantine.hpp"
#include "sim/agents/overlay.hpp"
#include "sim/agents/snapshot_pool.hpp"
#include "sim/agents/sync_fast_path.hpp"
#include "sim/agents/tensor_events.hpp"
#include "sim/agents/trigger.hpp"
#include "sim/robust/aggregation_rule.hpp"

namespace dlsim {

enum class ConsensusBase { kBroadcast, kState };  // x^_i - x^_j, or x_i - x^_j

struct DetsgradSpec {
  DecaySchedule alpha{0.1, 1.0, 1e-5};    // innovation step alpha_k
  DecaySchedule beta{0.2525, 0.1, 1e-5};  // consensus step beta_k
  double gradient_scale = 1.0;            // s: 1, or n (n*g_i estimates the full gradient)
  ConsensusBase consensus = ConsensusBase::kBroadcast;
  int64_t local_steps = 1;  // H: iterations k with k % H != 0 are local steps only (SPARQ-SGD)
};

class Detsgrad final : public Algorithm, public SyncFastPath, private PublishedModels {
 public:
  /// On the agents' overlay: a static graph is a fixed one (its weights are not used). A
  /// per-tensor trigger takes no compression. A dynamic overlay takes whole-model triggers
  /// without compression and with local_steps 1 (the loader refuses the rest: a new neighbour
  /// holds no copy to add a difference to).
  Detsgrad(const DetsgradSpec& spec, const TriggerSpec& trigger, Overlay overlay,
           const CompressionSpec& compression = {});

  /// Before start(): the consensus term through `rule` (header comment; static overlays only,
  /// every agent's neighbourhood plus itself must pass refusal()), with balance's progress =
  /// iteration / `iterations`. kMean keeps the plain sum.
  void set_aggregation(const AggregationSpec& rule, int64_t iterations);
  /// Before start(): the scenario's Byzantine agents. When their attack crafts messages they
  /// send crafted vectors (whole models, uncompressed, static overlay) when spec.sends says, and
  /// keep the plain sum themselves; a label_flip attack changes nothing here.
  void set_byzantine(const ByzantineSpec& spec, uint64_t seed);

  void start(std::span<Agent> agents) override;
  void begin_round(int64_t k, SimTime now) override;
  /// Precondition: a.x has not changed since this agent's last update() (the drift norm that
  /// update() computed for the new x is reused).
  void prepare(Agent& a) override;
  bool fused_local_step(Agent& a) override;
  void communicate(Agent& a, Outbox& out) override;
  void receive(Agent& a, const Message& m, Outbox& out) override;
  void update(Agent& a) override;
  void model_replaced(Agent& a) override { state_[a.id.value].drift_ready = false; }
  bool set_trigger_decider(TriggerDecider& decider) override {
    if (tensor_events_) return false;  // one decision per tensor: no single drift to give
    trigger_.set_decider(decider);
    return true;
  }
  void archive(AgentArchive& ar) override;

  /// The drift ||x_i - x^_i|| computed by the last prepare() (the trigger's statistic).
  double last_drift(AgentId i) const { return state_[i.value].drift; }
  /// x^_i as its neighbours hold it (null before i's first event), and agent i's copy of its
  /// neighbour number n's (neighbour order; null before one arrived).
  const ParamVector* public_copy(AgentId i) const { return state_[i.value].broadcast.get(); }
  const ParamVector* neighbour_copy(AgentId i, size_t n) const {
    return state_[i.value].copies.held[n].get();
  }
  /// Parameter buffers agent i's snapshots use (live or kept for reuse).
  size_t snapshot_buffers(AgentId i) const { return state_[i.value].pool.buffers(); }

 private:
  // Passes over the parameters run in blocks that stay in L1 between their steps: the models are
  // larger than the caches, so passes over memory, not flops, are what an iteration costs.
  static constexpr Eigen::Index kBlock = 2048;

  struct Steps {  // alpha_k, alpha_k * s and beta_k of one iteration: pow() once per agent
    int64_t k = -1;
    double alpha = 0.0;
    float alpha_s = 0.0f;
    float beta = 0.0f;
  };
  // A norm in the trigger's kind, accumulated block by block (float within a block, double across
  // blocks), so the same blocks give the same value whichever pass computes it.
  class NormAccumulator {
   public:
    explicit NormAccumulator(DriftNorm norm) : norm_(norm) {}
    template <class Block>
    void add(const Block& d) {
      switch (norm_) {
        case DriftNorm::kL2:
          total_ += static_cast<double>(d.squaredNorm());
          break;
        case DriftNorm::kL1:
          total_ += static_cast<double>(d.template lpNorm<1>());
          break;
        case DriftNorm::kLinf:
          total_ = std::max(total_, static_cast<double>(d.template lpNorm<Eigen::Infinity>()));
          break;
      }
    }
    double value() const { return norm_ == DriftNorm::kL2 ? std::sqrt(total_) : total_; }

   private:
    DriftNorm norm_;
    double total_ = 0.0;
  };
  struct UpdatePass {  // what update_begin decided for this iteration's pass over the blocks
    bool from_broadcast = false;  // the consensus reads x^_i (else x_i)
    bool compute = false;         // the consensus input is computed from the copies
    bool store = false;           // ... and written to the cache
    bool track = false;           // the pass computes the next drift norm
    float held = 0.0f;            // copies held
    float alpha_s = 0.0f;
    float beta = 0.0f;
    NormAccumulator drift{DriftNorm::kL2};
  };
  struct PerAgent {
    Snapshot broadcast;  // x^_i: what i last sent (null before its first event)
    // x^_j per neighbour, in neighbour order (null: none yet); with compression or per-tensor
    // events also the number of the last message received from each, and whether the copy is
    // the agent's own (a message from that neighbour was lost).
    PartialCopies copies;
    Snapshot pending;  // prepared snapshot to send, when the trigger fired
    // With compression the q of the pending event; with per-tensor events its tensors. Each
    // message carries the number of its event (events_sent).
    Delta pending_delta;
    // SPARQ: the last x^_i that prepare_compressed made (`made`), and the buffer of the x^_i
    // before it with the q that made the difference. Once nobody else holds that buffer, it
    // differs from x^_i only at q's entries when q is sparse: the next x^_i is then made in it
    // by copying those entries and adding the next q (2k entries written instead of d).
    std::shared_ptr<ParamVector> made;
    std::shared_ptr<ParamVector> before;
    Delta before_q;
    Parts pending_parts;
    uint32_t events_sent = 0;
    // Dynamic overlay only: the sources copies.held is parallel to (ascending), the targets
    // that are new this round (ascending), and x_i for them when the trigger did not fire.
    std::vector<uint32_t> sources;
    std::vector<uint32_t> fresh;
    Snapshot forced;
    SnapshotPool pool;  // buffers of i's snapshots
    // Consensus input: with a broadcast copy and kBroadcast, held * x^_i - sum_j x^_j;
    // otherwise sum_j x^_j (the term then reads x_i). Between events it stays fixed, so it is
    // cached while events are rare (allocated on first use), and recomputed block by block in
    // the update pass otherwise. Both give the same floats.
    ParamVector cache;
    size_t size = 0;          // parameters
    double dirty_rate = 0.0;  // recent fraction of iterations with an event (own or held)
    bool cache_valid = false;
    int held_count = 0;
    bool dirty = true;         // a copy changed since the last update
    bool fused = false;        // this iteration's gradient term is already in x
    bool drift_ready = false;  // next_drift is ||x - x^_i|| for the current x
    double drift = 0.0;
    double next_drift = 0.0;
    Steps steps;
    UpdatePass pass;
    // A robust rule's scratch (sized in start(); empty with the plain sum), its result M and
    // the weights 1/(d+1) of the copies.
    std::unique_ptr<AggregationWorkspace> robust;  // not inline: most agents have none
    ParamVector mixed;
    std::vector<double> equal_weights;
  };

  // update() in three parts: decide the pass, run it over [start, start + len) in L1 blocks
  // (start a multiple of kBlock), finish it.
  void update_begin(Agent& a);
  void update_block(Agent& a, Eigen::Index start, Eigen::Index len);
  void update_end(Agent& a);
  const Steps& steps(PerAgent& s, int64_t k) const;
  double drift_norm(const Agent& a) const;
  /// out = the consensus input for parameters [start, start + out.size()).
  void consensus_block(const PerAgent& s, bool from_broadcast, Eigen::Index start,
                       Eigen::Ref<ParamVector> out) const;
  /// Whether this update writes the cache; updates the event-rate estimate and cache state.
  bool store_cache(PerAgent& s, bool compute, size_t degree) const;
  Snapshot take_snapshot(PerAgent& s, const ParamVector& x) const;
  /// SPARQ: q = C(x - x^_i) into pending_delta, and x^_i + q into pending.
  void prepare_compressed(Agent& a, PerAgent& s);
  void receive_compressed(PerAgent& s, size_t n, const Snapshot& sent, const CompressedChange& m);
  bool local_only(int64_t k) const { return k % spec_.local_steps != 0; }
  std::span<const uint32_t> targets(uint32_t i) const {
    return overlay_.dynamic() ? overlay_.targets(i) : overlay_.neighbours(i);
  }
  std::span<const uint32_t> sources(uint32_t i) const {
    return overlay_.dynamic() ? std::span<const uint32_t>(state_[i].sources)
                              : overlay_.neighbours(i);
  }
  /// Forced sends of agent a's current x to its new targets (no event).
  void send_forced(Agent& a, PerAgent& s, Outbox& out);
  /// update() through the robust rule (header comment), in place of the three parts above.
  void robust_update(Agent& a, PerAgent& s);
  /// Sizes s's robust workspace unless a is an attacker that keeps the plain sum.
  void start_robust(const Agent& a, PerAgent& s);
  /// What a sends to target j in an event: x^_i, or an attacker's crafted vector.
  Snapshot params_for(const Agent& a, PerAgent& s, uint32_t j);
  /// Whether a fires at this iteration whatever its trigger says (an attacker sending always).
  bool always_fires(const Agent& a) const;
  /// An omniscient attacker's view of agent j: x^_j as its neighbours combine it this round
  /// (the snapshot it is about to send, else its last one; null before its first event or with
  /// consensus "state": then x_j).
  const ParamVector* published(uint32_t j) const override;

  DetsgradSpec spec_;
  Trigger trigger_;
  Overlay overlay_;
  std::vector<Snapshot> remap_;  // begin_round's workspace
  AgentCompression compression_;
  std::optional<TensorEvents> tensor_events_;  // per-tensor triggers only
  std::vector<PerAgent> state_;
  AggregationSpec aggregation_;
  int64_t iterations_ = 0;                      // the run's T, for balance's progress t / T
  std::unique_ptr<ByzantineSender> byzantine_;  // null without Byzantine senders
  uint64_t instance_;  // unique per object: the key of steps()' thread-local memo
};

}  // namespace dlsim
