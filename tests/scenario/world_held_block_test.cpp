// A world that holds only a block of its agents (a rank of a run over MPI ranks): the block's
// agents are built as in the whole world, the others are place-holders without parameters or a
// learner, and what every agent shares (the quadratic optimum, the model's size) is the same.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/agents/model_learner.hpp"
#include "sim/core/partitions.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;

namespace {

std::unique_ptr<World> world_holding(const ScenarioSpec& spec, NodeBlock held) {
  RunPlan plan = plan_run(spec);
  plan.held = held;
  return build_world(spec, std::move(plan), models::DataPaths{});
}

void check_block(const World& whole, const World& part, NodeBlock held) {
  REQUIRE(part.agents.size() == whole.agents.size());
  CHECK(part.held == held);
  CHECK(part.parameter_count() == whole.parameter_count());
  CHECK(part.compute_time == whole.compute_time);
  for (uint32_t i = 0; i < part.agents.size(); ++i) {
    const Agent& a = part.agents[i];
    CAPTURE(i);
    CHECK(a.id.value == i);
    CHECK(a.held() == held.contains(i));
    CHECK((part.learners[i] != nullptr) == held.contains(i));
    if (held.contains(i)) {
      CHECK(a.x == whole.agents[i].x);
      CHECK(a.g.size() == whole.agents[i].g.size());
    } else {
      CHECK(a.x.size() == 0);
      CHECK(a.g.size() == 0);
    }
  }
  CHECK(&first_held(part.agents) == &part.agents[held.first]);
}

}  // namespace

TEST_CASE("a world holding agents 1 and 2 of 4 builds them as the whole world does") {
  const ScenarioSpec spec =
      load_scenario(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/detsgrad.json", {});
  const auto whole = build_world(spec, models::DataPaths{});
  const NodeBlock held{1, 3};
  const auto part = world_holding(spec, held);
  check_block(*whole, *part, held);
}

TEST_CASE("algorithms start with place-holders: EventGraD, a robust rule, per-tensor events") {
  // Each reads the model's tensors or sizes workspaces: from a held agent, never agent 0 here.
  const std::vector<std::pair<std::string, std::vector<std::string>>> variants = {
      {"detsgrad",
       {R"(/algorithm={"kind":"eventgrad"})", R"(/trigger={"kind":"threshold","v0":0.1})"}},
      {"detsgrad", {R"(/algorithm/aggregation={"rule":"median"})"}},
      {"detsgrad", {R"(/trigger={"kind":"threshold","v0":0.1,"granularity":"layer"})"}},
      {"dpsgd", {R"(/algorithm/aggregation={"rule":"trimmed_mean"})"}}};
  for (const auto& [name, sets] : variants) {
    CAPTURE(sets.front());
    const ScenarioSpec spec =
        load_scenario(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/" + name + ".json", sets);
    const auto whole = build_world(spec, models::DataPaths{});
    const NodeBlock held{1, 3};
    const auto part = world_holding(spec, held);
    check_block(*whole, *part, held);
  }
}

TEST_CASE("a quadratic world holding one block draws every honest agent's target for the optimum") {
  ScenarioSpec spec =
      load_scenario(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/quadratic-detsgrad.json", {});
  const auto whole = build_world(spec, models::DataPaths{});
  const uint32_t n = spec.agents;
  for (uint32_t rank : {0u, 1u, 2u}) {
    const NodeBlock held = contiguous_block(n, 3, rank);
    const auto part = world_holding(spec, held);
    check_block(*whole, *part, held);
    const Eigen::VectorXf* mine = part->learners[held.first]->model().optimum();
    const Eigen::VectorXf* all = whole->learners[0]->model().optimum();
    REQUIRE(mine != nullptr);
    REQUIRE(all != nullptr);
    CHECK(*mine == *all);  // the same bits: the same targets, added in the same order
  }
}

TEST_CASE("a world holding a block keeps only its agents' training samples, which batches draw") {
  const ScenarioSpec spec =
      load_scenario(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/detsgrad.json", {});
  const auto whole = build_world(spec, models::DataPaths{});
  const NodeBlock held{1, 3};
  const auto part = world_holding(spec, held);
  const size_t kept = part->learners[1]->shard_size() + part->learners[2]->shard_size();
  CHECK(part->data->train.size() == kept);
  CHECK(part->data->train.features.cols() == static_cast<Eigen::Index>(kept));
  CHECK(kept < whole->data->train.size() / 2 + 2);  // 4 equal i.i.d. shards
  // Three epochs of batches (each reshuffles the renumbered shard): the whole world's samples.
  for (uint32_t i = held.first; i < held.end; ++i) {
    CAPTURE(i);
    ModelLearner& mine = *part->learners[i];
    ModelLearner& theirs = *whole->learners[i];
    ParamVector x = part->agents[i].x, g(x.size());
    for (size_t step = 0; step < 3 * mine.shard_size() / mine.batch_size(); ++step) {
      mine.gradient(x, g);
      theirs.gradient(x, g);
      REQUIRE(mine.batch().labels().size() == theirs.batch().labels().size());
      CHECK(std::equal(mine.batch().labels().begin(), mine.batch().labels().end(),
                       theirs.batch().labels().begin()));
      CHECK(mine.batch().features() == theirs.batch().features());
    }
  }
}
