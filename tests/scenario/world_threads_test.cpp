// build_world on a thread pool: the world does not depend on the thread count.
#include <doctest/doctest.h>

#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/world.hpp"

using namespace dlsim;

TEST_CASE("build_world gives the same agents, shards and evaluation set for 1, 2 and 3 threads") {
  const ScenarioSpec spec =
      load_scenario(std::string(DLSIM_SOURCE_DIR) + "/scenarios/smoke/detsgrad.json", {});
  const auto serial = build_world(spec, models::DataPaths{});
  for (unsigned threads : {2u, 3u}) {
    ThreadPool pool(threads);
    const auto world = build_world(spec, models::DataPaths{}, pool);
    REQUIRE(world->agents.size() == serial->agents.size());
    for (size_t i = 0; i < world->agents.size(); ++i) {
      CHECK(world->agents[i].id.value == i);
      CHECK(world->agents[i].x == serial->agents[i].x);
      CHECK(world->learners[i] == world->agents[i].learner.get());
    }
    CHECK(world->class_counts == serial->class_counts);
    CHECK(world->eval_set.features == serial->eval_set.features);
    CHECK(world->eval_set.labels == serial->eval_set.labels);
    CHECK(world->eval_set.name == world->data->test.name);  // the test set's fields, not defaults
    CHECK(world->eval_set.sample_dim() == world->data->test.sample_dim());
    CHECK(world->eval_set.num_classes == world->data->test.num_classes);
    CHECK(world->data->test.size() == 200);  // the test set itself keeps its samples
    CHECK(world->data->test.features.cols() == 200);
  }
}
