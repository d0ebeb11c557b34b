// The mixing step D-PSGD and EventGraD share, against sim/robust's mean rule: the rule that will
// replace it (issue 30) must give today's results bit for bit when it is `mean`.
#include "sim/agents/mixing_step.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "sim/core/random.hpp"
#include "sim/robust/aggregation_rule.hpp"

using namespace dlsim;

TEST_CASE("sim/robust's mean rule is mix_with_copies bit for bit") {
  RandomStream rng(5, "mixing-test", 0);
  auto draw = [&] {
    ParamVector v(1001);  // not a multiple of any vector width: the tail is compared too
    for (float& x : v) x = static_cast<float>(rng.normal(0.0, 3.0));
    return v;
  };
  const ParamVector own = draw();
  std::vector<Snapshot> held;
  for (int k = 0; k < 3; ++k) held.push_back(std::make_shared<const ParamVector>(draw()));
  const std::vector<double> weights{0.3, 0.2, 0.25};
  const double self_weight = 0.25;

  ParamVector mixed = own, workspace;
  mix_with_copies(self_weight, weights, held, mixed, workspace);

  std::vector<std::span<const float>> views;
  for (const Snapshot& s : held) views.emplace_back(s->data(), static_cast<size_t>(s->size()));
  AggregationWorkspace ws(static_cast<size_t>(own.size()), views.size());
  std::vector<float> out(static_cast<size_t>(own.size()));
  mean_rule(
      Neighbourhood{std::span<const float>(own.data(), out.size()), views, self_weight, weights},
      out, ws);
  CHECK(std::memcmp(out.data(), mixed.data(), out.size() * sizeof(float)) == 0);
}
