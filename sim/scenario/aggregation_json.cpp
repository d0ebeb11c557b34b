#include "sim/scenario/aggregation_json.hpp"

#include <limits>

#include "sim/scenario/json_object.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

constexpr int64_t kMaxCount = std::numeric_limits<uint32_t>::max();

// clipped_gossip's "tau": a radius > 0, or "adaptive" (the paper's second largest distance).
void parse_tau(JsonObject& o, AggregationSpec& spec) {
  if (o.has("tau") && o.raw("tau").is_string()) {
    if (o.raw("tau") != "adaptive")
      o.fail("tau",
             fmt::format("expected a radius > 0 or \"adaptive\", got {}", o.raw("tau").dump()));
    spec.radius = ClipRadius::kAdaptive;
    return;
  }
  spec.radius = ClipRadius::kFixed;
  spec.tau = o.number("tau", 1.0);
  if (!(spec.tau > 0.0)) o.fail("tau", fmt::format("expected a radius > 0, got {}", spec.tau));
}

}  // namespace

AggregationSpec parse_aggregation(const json& value, const std::string& file,
                                  const std::string& pointer) {
  JsonObject o(value, file, pointer);
  AggregationSpec spec;
  spec.kind =
      o.choice<AggregationKind>("rule", {{"mean", AggregationKind::kMean},
                                         {"clipped_gossip", AggregationKind::kClippedGossip},
                                         {"trimmed_mean", AggregationKind::kTrimmedMean},
                                         {"median", AggregationKind::kMedian},
                                         {"krum", AggregationKind::kKrum},
                                         {"multi_krum", AggregationKind::kMultiKrum},
                                         {"geometric_median", AggregationKind::kGeometricMedian},
                                         {"balance", AggregationKind::kBalance}});
  switch (spec.kind) {
    case AggregationKind::kMean:
    case AggregationKind::kMedian:
      break;
    case AggregationKind::kClippedGossip:
      parse_tau(o, spec);
      break;
    case AggregationKind::kTrimmedMean:
      spec.trim = static_cast<uint32_t>(o.integer("trim", 1, 0, kMaxCount));
      break;
    case AggregationKind::kKrum:
    case AggregationKind::kMultiKrum:
      spec.byzantine = static_cast<uint32_t>(o.integer("f", 1, 0, kMaxCount));
      if (spec.kind == AggregationKind::kMultiKrum)
        spec.selected = static_cast<uint32_t>(o.integer("m", {}, 1, kMaxCount));
      break;
    case AggregationKind::kGeometricMedian:
      spec.iterations = static_cast<uint32_t>(o.integer("iterations", 8, 1, kMaxCount));
      spec.nu = o.number("nu", 0.1);
      if (!(spec.nu > 0.0)) o.fail("nu", fmt::format("expected a smoothing > 0, got {}", spec.nu));
      break;
    case AggregationKind::kBalance:
      spec.gamma = o.number("gamma", 2.0, 0.0);
      spec.kappa = o.number("kappa", 1.0, 0.0);
      spec.alpha = o.number("alpha", 0.5, 0.0, 1.0);
      break;
  }
  o.finish();
  // The parameters alone (a graph's neighbourhoods are checked when it is built): as many
  // members as any rule could want.
  const std::string why = refusal(spec, std::numeric_limits<uint32_t>::max());
  if (!why.empty()) o.fail_here(why);
  return spec;
}

json aggregation_to_json(const AggregationSpec& spec) {
  json j = {{"rule", std::string(to_string(spec.kind))}};
  switch (spec.kind) {
    case AggregationKind::kMean:
    case AggregationKind::kMedian:
      break;
    case AggregationKind::kClippedGossip:
      if (spec.radius == ClipRadius::kAdaptive)
        j["tau"] = "adaptive";
      else
        j["tau"] = spec.tau;
      break;
    case AggregationKind::kTrimmedMean:
      j["trim"] = spec.trim;
      break;
    case AggregationKind::kKrum:
      j["f"] = spec.byzantine;
      break;
    case AggregationKind::kMultiKrum:
      j["f"] = spec.byzantine;
      j["m"] = spec.selected;
      break;
    case AggregationKind::kGeometricMedian:
      j["iterations"] = spec.iterations;
      j["nu"] = spec.nu;
      break;
    case AggregationKind::kBalance:
      j["gamma"] = spec.gamma;
      j["kappa"] = spec.kappa;
      j["alpha"] = spec.alpha;
      break;
  }
  return j;
}

}  // namespace dlsim
