#include "sim/scenario/capability_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim {
namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string trigger_list(const AlgorithmCapabilities& c) {
  if (c.triggers.empty()) return "none";
  std::string out;
  for (TriggerKind k : c.triggers)
    out += fmt::format("{}{}", out.empty() ? "" : ", ", to_string(k));
  return out;
}

// A threshold on the whole model, per tensor, or both; "-" without threshold triggers.
std::string threshold_scope(const AlgorithmCapabilities& c) {
  const auto takes = [&c](TriggerKind k) {
    return std::find(c.triggers.begin(), c.triggers.end(), k) != c.triggers.end();
  };
  if (!takes(TriggerKind::kThreshold) && !takes(TriggerKind::kAdaptive)) return "-";
  if (c.per_tensor && c.model_trigger) return "model, tensor";
  if (c.per_tensor) return "tensor";
  return "model";
}

}  // namespace

std::string capability_table() {
  std::string out =
      "| algorithm | async | dynamic graph | dynamic, async | churn | loss, failures | "
      "compression | robust aggregation | threshold on | triggers |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const AlgorithmDescriptor* d : algorithm_descriptors()) {
    const AlgorithmCapabilities& c = d->capabilities();
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", d->name(),
                       c.rounds_in_async ? "rounds" : yes_no(c.async), yes_no(c.dynamic),
                       yes_no(c.dynamic_async), yes_no(c.churn), yes_no(c.lossy_links),
                       yes_no(c.compression), yes_no(c.aggregation), threshold_scope(c),
                       trigger_list(c));
  }
  return out;
}

}  // namespace dlsim
