#include "sim/scenario/algorithms/mixing_json.hpp"

namespace dlsim {
namespace {

constexpr std::pair<const char*, MixingOrder> kOrders[] = {
    {"combine_then_adapt", MixingOrder::kCombineThenAdapt},
    {"adapt_then_combine", MixingOrder::kAdaptThenCombine}};

}  // namespace

topo::MixingRule parse_mixing(JsonObject& o) {
  const std::string rule = o.string("weights", "metropolis_hastings");
  const auto parsed = topo::mixing_rule_from_string(rule);
  if (!parsed)
    o.fail("weights", fmt::format("expected \"metropolis_hastings\", \"max_degree\", "
                                  "\"uniform\" or \"lazy_metropolis_hastings\", got \"{}\"",
                                  rule));
  return *parsed;
}

MixingOrder parse_order(JsonObject& o) {
  return o.choice<MixingOrder>("order", {kOrders[0], kOrders[1]}, MixingOrder::kCombineThenAdapt);
}

std::string_view to_string(MixingOrder order) {
  for (const auto& [name, o] : kOrders)
    if (o == order) return name;
  return "?";
}

}  // namespace dlsim
