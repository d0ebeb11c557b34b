// A rule's name, the parameters and neighbourhood sizes it refuses, and the dispatch on its kind.
#include "sim/robust/aggregation_rule.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/core/enum_name.hpp"
#include "sim/core/error.hpp"

namespace dlsim {

std::string_view to_string(AggregationKind kind) {
  static constexpr std::string_view kNames[] = {
      "mean", "clipped_gossip", "trimmed_mean",     "median",
      "krum", "multi_krum",     "geometric_median", "balance"};
  return enum_name<AggregationKind::kBalance>(kNames, kind, "unknown");
}

std::string refusal(const AggregationSpec& spec, size_t members) {
  if (members == 0) return "no model to aggregate";
  switch (spec.kind) {
    case AggregationKind::kMean:
    case AggregationKind::kMedian:
      return {};
    case AggregationKind::kClippedGossip:
      if (spec.radius == ClipRadius::kFixed && !(spec.tau > 0.0 && std::isfinite(spec.tau)))
        return fmt::format("clipped_gossip needs a finite tau > 0, got {}", spec.tau);
      return {};
    case AggregationKind::kTrimmedMean:
      if (members <= 2 * static_cast<size_t>(spec.trim))
        return fmt::format(
            "trimmed_mean drops 2b = {} values per coordinate, needs more than {} "
            "models (own included), has {}",
            2 * spec.trim, 2 * spec.trim, members);
      return {};
    case AggregationKind::kKrum:
    case AggregationKind::kMultiKrum: {
      const size_t need = 2 * static_cast<size_t>(spec.byzantine) + 3;
      if (members < need)
        return fmt::format("{} needs at least 2f + 3 = {} models (own included) for f = {}, has {}",
                           to_string(spec.kind), need, spec.byzantine, members);
      if (spec.kind == AggregationKind::kMultiKrum &&
          (spec.selected < 1 || spec.selected > members))
        return fmt::format("multi_krum needs 1 <= m <= {} (models, own included), got m = {}",
                           members, spec.selected);
      return {};
    }
    case AggregationKind::kGeometricMedian:
      if (!(spec.nu > 0.0 && std::isfinite(spec.nu)))
        return fmt::format("geometric_median needs a finite nu > 0, got {}", spec.nu);
      return {};
    case AggregationKind::kBalance:
      if (!(spec.gamma >= 0.0 && std::isfinite(spec.gamma)))
        return fmt::format("balance needs a finite gamma >= 0, got {}", spec.gamma);
      if (!(spec.kappa >= 0.0 && std::isfinite(spec.kappa)))
        return fmt::format("balance needs a finite kappa >= 0, got {}", spec.kappa);
      if (!(spec.alpha >= 0.0 && spec.alpha <= 1.0))
        return fmt::format("balance needs alpha in [0, 1], got {}", spec.alpha);
      return {};
  }
  return "unknown aggregation rule";
}

void aggregate(const AggregationSpec& spec, const Neighbourhood& in, double progress,
               std::span<float> out, AggregationWorkspace& ws) {
  const std::string why = refusal(spec, in.others.size() + 1);  // empty: no allocation
  DLSIM_CHECK(why.empty(), "{}", why);
  switch (spec.kind) {
    case AggregationKind::kMean:
      return mean_rule(in, out, ws);
    case AggregationKind::kClippedGossip:
      return clipped_gossip(in, spec.radius, spec.tau, out, ws);
    case AggregationKind::kTrimmedMean:
      return trimmed_mean(in, spec.trim, out, ws);
    case AggregationKind::kMedian:
      return coordinate_median(in, out, ws);
    case AggregationKind::kKrum:
      return multi_krum(in, spec.byzantine, 1, out, ws);
    case AggregationKind::kMultiKrum:
      return multi_krum(in, spec.byzantine, spec.selected, out, ws);
    case AggregationKind::kGeometricMedian:
      return geometric_median(in, spec.iterations, spec.nu, out, ws);
    case AggregationKind::kBalance:
      return balance(in, spec.gamma, spec.kappa, spec.alpha, progress, out, ws);
  }
}

}  // namespace dlsim
