#include "sim/scenario/algorithm_json.hpp"

#include <algorithm>
#include <cmath>

#include "sim/scenario/aggregation_json.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/compression_json.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

// "kind": one of the registry's names; the error lists them.
const AlgorithmDescriptor& parse_kind(JsonObject& o) {
  const std::string kind = o.string("kind");
  if (const AlgorithmDescriptor* d = find_algorithm(kind)) return *d;
  std::string names;
  for (const AlgorithmDescriptor* d : algorithm_descriptors())
    names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", d->name());
  o.fail("kind", fmt::format("expected one of {}, got \"{}\"", names, kind));
}

}  // namespace

AlgorithmSpec parse_algorithm(JsonObject o, uint32_t agents, const topo::TopologySpec& topology) {
  AlgorithmSpec a;
  a.descriptor = &parse_kind(o);
  // Before the options: a rule the algorithm cannot take is the first thing to fix.
  if (o.has("aggregation")) {
    a.aggregation = parse_aggregation(o.raw("aggregation"), o.file(),
                                      child_pointer(o.pointer(), "aggregation"));
    if (a.aggregation.kind != AggregationKind::kMean && !a.descriptor->capabilities().aggregation)
      o.fail("aggregation",
             fmt::format("algorithm \"{}\" mixes with the mean only; a robust rule works with {} "
                         "so far (see scenarios/README.md, \"aggregation\")",
                         a.name(), algorithms_with(&AlgorithmCapabilities::aggregation)));
  }
  a.options = a.descriptor->parse(o, AlgorithmParseContext{agents, &topology});
  if (o.has("compression")) {
    if (!a.descriptor->capabilities().compression)
      o.fail("compression",
             fmt::format("algorithm \"{}\" takes no compression (see scenarios/README.md, "
                         "\"compression\"); remove this key", a.name()));
    a.compression = parse_compression(o.raw("compression"), o.file(),
                                      child_pointer(o.pointer(), "compression"));
  }
  o.finish();
  return a;
}

json algorithm_to_json(const AlgorithmSpec& a) {
  json j = {{"kind", std::string(a.name())}};
  if (a.options) a.descriptor->to_json(a.options.get(), j);
  if (a.compression.enabled()) j["compression"] = compression_to_json(a.compression);
  // D-PSGD has written its rule since it took one; the others write it when it is not the mean,
  // so that the scenario.json of their runs in existing sweep folders stays equal to a resolved
  // one (a sweep reuses a finished run only then).
  if (a.name() == "dpsgd" || a.aggregation.kind != AggregationKind::kMean)
    j["aggregation"] = aggregation_to_json(a.aggregation);
  return j;
}

namespace {

TriggerSpec parse_trigger_object(JsonObject o, const AlgorithmDescriptor& algorithm) {
  const AlgorithmCapabilities& caps = algorithm.capabilities();
  TriggerSpec t;
  t.kind = o.choice<TriggerKind>("kind", {{"always", TriggerKind::kAlways},
                                          {"never", TriggerKind::kNever},
                                          {"periodic", TriggerKind::kPeriodic},
                                          {"probability", TriggerKind::kProbability},
                                          {"threshold", TriggerKind::kThreshold},
                                          {"adaptive", TriggerKind::kAdaptive}});
  if (t.kind == TriggerKind::kPeriodic) t.period = o.integer("tau", {}, 1);
  if (t.kind == TriggerKind::kProbability) t.probability = o.number("p", {}, 0.0, 1.0);
  if (t.kind == TriggerKind::kThreshold) {
    t.v0 = o.number_or_inf("v0", {}, 0.0);
    t.form = o.choice<ThresholdForm>("form", {{"decay", ThresholdForm::kDecay},
                                              {"alpha", ThresholdForm::kAlpha}},
                                     ThresholdForm::kDecay);
    if (t.form == ThresholdForm::kDecay) {
      t.decay = o.number("decay", 0.1, 0.0);
      t.eps = o.number("eps", 1e-5, 0.0);
    }
    t.norm = o.choice<DriftNorm>("norm", {{"l2", DriftNorm::kL2}, {"l1", DriftNorm::kL1},
                                          {"linf", DriftNorm::kLinf}},
                                 DriftNorm::kL2);
    // Algorithms that decide per tensor by nature (EventGraD) default to it.
    t.granularity = o.choice<Granularity>(
        "granularity", {{"model", Granularity::kModel}, {"layer", Granularity::kLayer}},
        caps.model_trigger ? Granularity::kModel : Granularity::kLayer);
    if (t.granularity == Granularity::kLayer && !caps.per_tensor)
      o.fail("granularity", fmt::format("algorithm \"{}\" decides on the whole model; per-tensor "
                                        "thresholds are for {}", algorithm.name(),
                                        algorithms_with(&AlgorithmCapabilities::per_tensor)));
    if (t.granularity == Granularity::kModel && !caps.model_trigger)
      o.fail("granularity", fmt::format("\"{}\" decides per tensor: use \"layer\"",
                                        algorithm.name()));
  }
  if (t.kind == TriggerKind::kAdaptive) {
    t.granularity = Granularity::kLayer;
    t.horizon = o.number("horizon", {}, 0.0);
    if (t.horizon <= 0.0 || !std::isfinite(t.horizon))
      o.fail("horizon", fmt::format("the threshold's factor per iteration must be positive and "
                                    "finite, got {}", t.horizon));
    t.warmup = o.integer("warmup", 30, 0);
  }
  o.finish();
  return t;
}

}  // namespace

std::string algorithms_with(bool AlgorithmCapabilities::*capability, std::string_view last) {
  std::vector<std::string_view> names;
  for (const AlgorithmDescriptor* d : algorithm_descriptors())
    if (d->capabilities().*capability) names.push_back(d->name());
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += fmt::format("{}\"{}\"",
                       i == 0 ? "" : i + 1 == names.size() ? fmt::format(" {} ", last) : ", ",
                       names[i]);
  return out;
}

std::optional<TriggerSpec> parse_trigger(const json* trigger, const std::string& file,
                                         const std::string& pointer,
                                         const AlgorithmDescriptor& algorithm) {
  const std::vector<TriggerKind>& accepted = algorithm.capabilities().triggers;
  const std::string name(algorithm.name());
  if (accepted.empty()) {
    if (trigger)
      throw InputError(fmt::format("{}: {}: algorithm \"{}\" takes no trigger; remove it", file,
                                   pointer, name));
    return std::nullopt;
  }
  if (!trigger)
    throw InputError(fmt::format("{}: {}: algorithm \"{}\" needs a trigger", file, pointer, name));
  const TriggerSpec t = parse_trigger_object(JsonObject(*trigger, file, pointer), algorithm);
  if (std::find(accepted.begin(), accepted.end(), t.kind) == accepted.end())
    throw InputError(fmt::format("{}: {}/kind: algorithm \"{}\" does not take a \"{}\" trigger",
                                 file, pointer, name, to_string(t.kind)));
  // Only once the kind is one it takes: the form is the second thing to fix, not the first.
  if (t.kind == TriggerKind::kThreshold && t.form == ThresholdForm::kAlpha &&
      !algorithm.capabilities().alpha_threshold)
    throw InputError(fmt::format("{}: {}/form: \"alpha\" scales the threshold by DETSGRAD's step "
                                 "size; use \"decay\" with \"{}\"", file, pointer, name));
  return t;
}

json trigger_to_json(const TriggerSpec& t) {
  json j = {{"kind", std::string(to_string(t.kind))}};
  switch (t.kind) {
    case TriggerKind::kPeriodic: j["tau"] = t.period; break;
    case TriggerKind::kProbability: j["p"] = t.probability; break;
    case TriggerKind::kThreshold:
      if (std::isinf(t.v0)) j["v0"] = "inf";
      else j["v0"] = t.v0;
      j["form"] = std::string(to_string(t.form));
      if (t.form == ThresholdForm::kDecay) {
        j["decay"] = t.decay;
        j["eps"] = t.eps;
      }
      j["norm"] = std::string(to_string(t.norm));
      j["granularity"] = std::string(to_string(t.granularity));
      break;
    case TriggerKind::kAdaptive:
      j["horizon"] = t.horizon;
      j["warmup"] = t.warmup;
      break;
    default: break;
  }
  return j;
}

}  // namespace dlsim
