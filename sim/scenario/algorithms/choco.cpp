// "choco": CHOCO-SGD, compressed gossip with error feedback: every agent keeps public copies of
// its neighbours and moves towards them by gamma (docs/algorithms.md, "CHOCO-SGD").
#include "sim/scenario/algorithms/choco.hpp"

#include <algorithm>
#include <cmath>

#include "sim/agents/choco.hpp"
#include "sim/scenario/algorithms/compressed_gain.hpp"
#include "sim/scenario/algorithms/mixing_json.hpp"
#include "sim/scenario/algorithms/overlay_build.hpp"

namespace dlsim {
namespace {

// Copies a CHOCO agent keeps on a dynamic topology (sim/agents/choco.hpp): as many as the most
// sources it has had at once (the copies of sources that left are reused). One-peer graphs and
// matchings: 1; epidemic: an in-degree is about Binomial(n - 1, s / (n - 1)), counted at its mean
// plus three standard deviations; a sequence: its members' largest mean degree.
double dynamic_sources(const ScenarioSpec& s, const GraphDegrees& degrees) {
  switch (s.dynamic->kind) {
    case topo::DynamicKind::kOnePeerExponential:
    case topo::DynamicKind::kRandomMatching:
      return 1.0;
    case topo::DynamicKind::kEpidemic: {
      const double mean = static_cast<double>(s.dynamic->s);
      return std::min(static_cast<double>(s.agents - 1), mean + 3.0 * std::sqrt(mean));
    }
    case topo::DynamicKind::kSequence:
      return degrees.dynamic_mean;
  }
  return 0.0;
}

AlgorithmCapabilities capabilities_of_choco() {
  using T = TriggerKind;
  AlgorithmCapabilities c;
  c.dynamic = c.compression = true;
  c.async = false;
  c.sync_only_reason = "its local step comes before its send in every iteration";
  c.triggers = {T::kAlways, T::kNever, T::kPeriodic, T::kProbability, T::kThreshold};
  return c;
}

class ChocoDescriptor final : public DescriptorWith<ChocoOptions> {
 public:
  ChocoDescriptor()
      : DescriptorWith("choco", "CHOCO-SGD: compressed gossip with error feedback (public copies)",
                       capabilities_of_choco()) {}
  void check(const ScenarioSpec& s) const override {
    if (s.dynamic && s.algorithm.options_as<ChocoOptions>().local_steps != 1)
      throw InputError(
          fmt::format("{}: /algorithm/local_steps: CHOCO on a dynamic topology "
                      "communicates every iteration (local_steps 1): an edge that "
                      "appears in a local step would never carry its whole copy",
                      s.file));
  }
  // x^_i, a copy per neighbour, the messages of one event.
  AlgorithmCopies copies(const ScenarioSpec& s, const GraphDegrees& degrees) const override {
    if (s.dynamic)  // + the whole copy for new edges
      return {2.0 + dynamic_sources(s, degrees), 0.0, AlgorithmCopies::Sends::kNone};
    return {1.0 + degrees.mean, 0.0, AlgorithmCopies::Sends::kNone};
  }
  void warn(World& w) const override {
    const ChocoOptions& c = w.spec.algorithm.options_as<ChocoOptions>();
    warn_about_compressed_gain(w, "/algorithm/gamma", [&] {
      const topo::MixingWeights weights(w.graph, c.mixing);
      double gain = 0.0;
      for (uint32_t i = 0; i < weights.node_count(); ++i)
        gain = std::max(gain, c.gamma * (1.0 - weights.self_weight(i)));
      return gain;
    });
  }
  std::string learning_suspect(const ScenarioSpec& s) const override {
    if (!s.algorithm.compression.enabled()) return {};
    return "check /algorithm/gamma: CHOCO's consensus step must be small enough for what the "
           "compression carries (docs/compression.md, \"Stable consensus steps\")";
  }
  std::unique_ptr<Algorithm> build(World& w) const override {
    const ChocoOptions& c = w.spec.algorithm.options_as<ChocoOptions>();
    const TriggerSpec trigger = w.spec.trigger.value_or(TriggerSpec{});
    const CompressionSpec& compression = w.spec.algorithm.compression;
    return naming_weights(w, [&]() -> std::unique_ptr<Algorithm> {
      return std::make_unique<Choco>(make_overlay(w, c.mixing), c.gamma, trigger, compression,
                                     c.local_steps);
    });
  }

 private:
  void read(JsonObject& o, const AlgorithmParseContext&, ChocoOptions& c) const override {
    c.mixing = parse_mixing(o);
    c.gamma = o.number("gamma", {}, 0.0, 1.0);
    if (c.gamma <= 0.0) o.fail("gamma", "the consensus step size must be in (0, 1], got 0");
    c.local_steps = o.integer("local_steps", 1, 1);
  }
  void write(const ChocoOptions& c, nlohmann::json& j) const override {
    j["weights"] = std::string(topo::to_string(c.mixing));
    j["gamma"] = c.gamma;
    j["local_steps"] = c.local_steps;
  }
};

}  // namespace

const AlgorithmDescriptor& choco_descriptor() { return the_descriptor<ChocoDescriptor>(); }

}  // namespace dlsim
