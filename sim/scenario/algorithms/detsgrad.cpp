// "detsgrad": event-triggered consensus plus innovation with decaying step sizes (DETSGRAD;
// with local steps and compression, SPARQ-SGD). docs/algorithms.md, "DETSGRAD".
#include "sim/scenario/algorithms/detsgrad.hpp"

#include "sim/scenario/algorithms/compressed_gain.hpp"
#include "sim/scenario/algorithms/overlay_build.hpp"

namespace dlsim {
namespace {

AlgorithmCapabilities capabilities_of_detsgrad() {
  using T = TriggerKind;
  AlgorithmCapabilities c;
  c.dynamic = c.churn = c.compression = c.per_tensor = c.alpha_threshold = c.aggregation = true;
  c.optimizer = false;  // its step sizes are /algorithm's a and b
  c.triggers = {T::kAlways, T::kNever, T::kPeriodic, T::kProbability, T::kThreshold, T::kAdaptive};
  return c;
}

class DetsgradDescriptor final : public DescriptorWith<DetsgradOptions> {
 public:
  DetsgradDescriptor()
      : DescriptorWith("detsgrad",
                       "DETSGRAD: event-triggered consensus + innovation, decaying step sizes",
                       capabilities_of_detsgrad()) {}

  // On a dynamic topology a new neighbour holds no copy: whole models, every iteration.
  void check(const ScenarioSpec& s) const override {
    if (!s.dynamic) return;
    if (s.algorithm.compression.enabled())
      throw InputError(
          fmt::format("{}: /algorithm/compression: DETSGRAD on a dynamic topology "
                      "sends whole models (a new neighbour holds no copy to add a "
                      "compressed difference to)",
                      s.file));
    if (s.algorithm.options_as<DetsgradOptions>().spec.local_steps != 1)
      throw InputError(
          fmt::format("{}: /algorithm/local_steps: DETSGRAD on a dynamic topology "
                      "communicates every iteration it may (local_steps 1)",
                      s.file));
    if (s.trigger && per_tensor(*s.trigger))
      throw InputError(
          fmt::format("{}: /trigger: DETSGRAD on a dynamic topology decides on the "
                      "whole model (a new neighbour holds no tensors to update)",
                      s.file));
  }

  // Broadcast x^_i, the pending snapshot, the consensus cache. Async: 0.6 more, measured
  // (10,000 quadratic agents on a torus: 6.6 vectors per agent against 5.7 in sync), for the
  // copies in flight while the links keep up. A robust rule: its result M, one more.
  AlgorithmCopies copies(const ScenarioSpec& s, const GraphDegrees&) const override {
    const double robust = s.algorithm.aggregation.kind != AggregationKind::kMean ? 1.0 : 0.0;
    return {(s.time.mode == TimeMode::kAsync ? 3.6 : 3.0) + robust, 0.0,
            AlgorithmCopies::Sends::kNeighbours};
  }

  void warn(World& w) const override {
    const uint32_t max_degree = consensus_degree(w);
    const double beta0 = w.spec.algorithm.options_as<DetsgradOptions>().spec.beta.at(0);
    const AggregationKind rule = w.spec.algorithm.aggregation.kind;
    if (rule != AggregationKind::kMean && beta0 * (max_degree + 1) >= 1.0)
      w.warnings.push_back(fmt::format(
          "{}: /algorithm/b: beta_0 * (max degree + 1) = {} * {} = {:.3g} >= 1: with \"{}\" the "
          "consensus step goes that fraction of the way to the rule's result, past it until "
          "beta_k decays below 1/{}",
          w.spec.file, beta0, max_degree + 1, beta0 * (max_degree + 1), to_string(rule),
          max_degree + 1));
    else if (beta0 * max_degree >= 1.0)
      w.warnings.push_back(fmt::format(
          "{}: /algorithm/b: beta_0 * max degree = {} * {} = {:.3g} >= 1: the consensus step is "
          "unstable until beta_k decays below 1/{}",
          w.spec.file, beta0, max_degree, beta0 * max_degree, max_degree));
    else
      warn_about_compressed_gain(w, "/algorithm/b", [&] { return beta0 * max_degree; });
  }

  std::string learning_suspect(const ScenarioSpec& s) const override {
    if (!s.algorithm.compression.enabled()) return {};
    return "check /algorithm/b: a compressed consensus step (SPARQ-SGD) must be small enough "
           "for what the compression carries (docs/compression.md, \"Stable consensus steps\")";
  }
  std::string step_size_advice() const override {
    return "check the step sizes /algorithm/a and /algorithm/b";
  }

  std::unique_ptr<Algorithm> build(World& w) const override {
    const DetsgradSpec& d = w.spec.algorithm.options_as<DetsgradOptions>().spec;
    const TriggerSpec trigger = w.spec.trigger.value_or(TriggerSpec{});
    check_aggregation_fits(w);
    // Its consensus term weighs every neighbour alike: the overlay's weights are not read.
    auto a = std::make_unique<Detsgrad>(d, trigger,
                                        make_overlay(w, topo::MixingRule::kMetropolisHastings),
                                        w.spec.algorithm.compression);
    a->set_aggregation(w.spec.algorithm.aggregation, w.spec.run.iterations);
    if (w.spec.byzantine) a->set_byzantine(*w.spec.byzantine, w.spec.seed);
    return a;
  }

 private:
  void read(JsonObject& o, const AlgorithmParseContext& c,
            DetsgradOptions& options) const override {
    DetsgradSpec& d = options.spec;
    d.alpha.a = o.number("a", 0.1, 0.0);
    d.alpha.d = o.number("da", 1.0, 0.0);
    d.beta.a = o.number("b", 2.525 * d.alpha.a, 0.0);
    d.beta.d = o.number("db", 0.1, 0.0);
    d.alpha.eps = d.beta.eps = o.number("eps", 1e-5, 0.0);
    options.gradient_scale_is_n = o.has("gradient_scale") && o.raw("gradient_scale").is_string();
    if (options.gradient_scale_is_n) {
      if (o.string("gradient_scale") != "n")
        o.fail("gradient_scale", "expected 1 or \"n\" (the number of agents)");
      d.gradient_scale = c.agents;
    } else {
      d.gradient_scale = o.number("gradient_scale", 1.0, 0.0);
    }
    d.consensus = o.choice<ConsensusBase>(
        "consensus", {{"broadcast", ConsensusBase::kBroadcast}, {"state", ConsensusBase::kState}},
        ConsensusBase::kBroadcast);
    d.local_steps = o.integer("local_steps", 1, 1);
  }

  void write(const DetsgradOptions& o, nlohmann::json& j) const override {
    const DetsgradSpec& d = o.spec;
    j.update({{"a", d.alpha.a},
              {"da", d.alpha.d},
              {"b", d.beta.a},
              {"db", d.beta.d},
              {"eps", d.alpha.eps},
              {"consensus", d.consensus == ConsensusBase::kBroadcast ? "broadcast" : "state"}});
    if (o.gradient_scale_is_n)
      j["gradient_scale"] = "n";
    else
      j["gradient_scale"] = d.gradient_scale;
    j["local_steps"] = d.local_steps;
  }
};

}  // namespace

const AlgorithmDescriptor& detsgrad_descriptor() { return the_descriptor<DetsgradDescriptor>(); }

}  // namespace dlsim
