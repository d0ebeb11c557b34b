// Byzantine agents in the metrics (issue 30): the averaged model, the consensus distance and
// summary.json's final scores cover the honest agents only; their traffic is counted apart.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "sim/metrics/evaluation.hpp"
#include "sim/metrics/metrics_csv.hpp"
#include "sim/metrics/summary.hpp"

using namespace dlsim;

namespace {

// Agents with quadratic models of 2 parameters, at `x`.
struct QuadraticAgents {
  explicit QuadraticAgents(const std::vector<std::pair<float, float>>& x) {
    std::vector<const models::Model*> models;
    for (size_t i = 0; i < x.size(); ++i) {
      RandomStream rng(1, "target", i);
      models::ModelSpec spec;
      spec.arch = models::QuadraticSpec{2, 0.0};
      auto learner = std::make_unique<ModelLearner>(
          models::Model::build(spec, models::InputShape{1, 1, 1, 1}, rng), models::OptimizerSpec{},
          nullptr, std::vector<uint32_t>{}, 1, 1, AgentId{static_cast<uint32_t>(i)});
      learners.push_back(learner.get());
      ParamVector xi(2);
      xi << x[i].first, x[i].second;
      agents.emplace_back(AgentId{static_cast<uint32_t>(i)}, 1, std::move(learner), xi);
    }
    for (ModelLearner* l : learners) models.push_back(&l->model());
    auto optimum = std::make_shared<const Eigen::VectorXf>(models::quadratic_optimum(models));
    for (ModelLearner* l : learners) l->model().set_optimum(optimum);
  }
  std::vector<Agent> agents;
  std::vector<ModelLearner*> learners;
};

}  // namespace

TEST_CASE("the consensus distance and averaged model leave a Byzantine agent's garbage out") {
  // Honest 0 and 2 at (0, 0) and (2, 0): mean (1, 0), distance sqrt((1 + 1) / 2) = 1.
  QuadraticAgents q({{0, 0}, {1e6f, -1e6f}, {2, 0}});
  ThreadPool pool(1);
  CommRecorder comm(3);
  EvalPoint honest_only, everyone;
  EvalInput in;
  in.agents = q.agents;
  Evaluator(q.learners, nullptr, 1, {1}).evaluate(pool, in, comm, honest_only);
  CHECK(honest_only.consensus_distance == doctest::Approx(1.0));
  CHECK(honest_only.agents[1].byzantine);
  CHECK_FALSE(honest_only.agents[0].byzantine);
  Evaluator(q.learners, nullptr, 1).evaluate(pool, in, comm, everyone);
  CHECK(everyone.consensus_distance > 1e5);
  CHECK(honest_only.aggregate.optimum_distance < everyone.aggregate.optimum_distance);
}

TEST_CASE("summary.json scores honest agents and counts Byzantine traffic apart") {
  CommRecorder comm(3);
  comm.message_sent({SimTime{}, AgentId{0}, AgentId{1}, 100});
  comm.message_sent({SimTime{}, AgentId{1}, AgentId{0}, 40});
  comm.message_sent({SimTime{}, AgentId{1}, AgentId{2}, 40});
  EvalPoint p;
  for (double accuracy : {0.8, 0.1, 0.6}) {
    AgentPoint a;
    a.score.accuracy = accuracy;
    a.score.loss = 1.0;
    p.agents.push_back(a);
  }
  p.agents[1].byzantine = true;
  RunFacts facts;
  facts.agents = 3;
  facts.byzantine = {1};
  const nlohmann::json s = make_summary(facts, comm, &p);
  CHECK(s["final"]["accuracy_mean"].get<double>() == doctest::Approx(0.7));
  CHECK(s["final"]["accuracy_min"].get<double>() == doctest::Approx(0.6));
  CHECK(s["comm"]["messages"] == 3);  // every sender's
  CHECK(s["comm"]["bytes"] == 180);
  CHECK(s["comm"]["byzantine_messages"] == 2);
  CHECK(s["comm"]["byzantine_bytes"] == 80);
  CHECK(s["byzantine"]["agents"] == nlohmann::json::array({1}));
  facts.byzantine.clear();
  p.agents[1].byzantine = false;
  const nlohmann::json without = make_summary(facts, comm, &p);
  CHECK_FALSE(without["comm"].contains("byzantine_messages"));
  CHECK(without["final"]["accuracy_mean"].get<double>() == doctest::Approx(0.5));
}

TEST_CASE("metrics.csv's avg row counts the honest agents online, whose model it averages") {
  QuadraticAgents q({{0, 0}, {1e6f, -1e6f}, {2, 0}});
  ThreadPool pool(1);
  CommRecorder comm(3);
  EvalPoint point;
  EvalInput in;
  in.agents = q.agents;
  Evaluator(q.learners, nullptr, 1, {1}).evaluate(pool, in, comm, point);
  const std::string path = std::string(DLSIM_BINARY_DIR) + "/tests/byzantine-metrics-" +
                           std::to_string(getpid()) + ".csv";
  {
    MetricsCsv csv(path);
    csv.write(point);
    csv.close();
  }
  std::ifstream file(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(file, line);) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  std::remove(path.c_str());
  REQUIRE(rows.size() == 1 + 3 + 1);  // header, three agents, avg
  const auto column = [&](const std::string& name) {
    return static_cast<size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  REQUIRE(column("online") < rows[0].size());
  CHECK(rows[2][column("online")] == "1");  // the attacker's own row: it was online
  CHECK(rows[4][column("agent")] == "avg");
  CHECK(rows[4][column("online")] == "2");
}
