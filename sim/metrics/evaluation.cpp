#include "sim/metrics/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

ModelScore Evaluator::score(size_t agent_index, const ParamVector& x) {
  models::Model& model = world_.learners[agent_index]->model();
  models::EvalResult& r = results_[agent_index];
  if (world_.is_quadratic()) {
    static const models::Dataset kNoData;
    model.evaluate(x, kNoData, 0, 1, r);
  } else {
    const size_t batch = std::min<size_t>(world_.spec.run.eval_batch, world_.eval_set.size());
    model.evaluate(x, world_.eval_set, world_.eval_set.size(), batch, r);
  }
  return ModelScore{r.loss, world_.is_quadratic() ? kNaN : r.accuracy,
                    world_.is_quadratic() ? r.optimum_distance : kNaN};
}

void Evaluator::evaluate(ThreadPool& pool, int64_t iteration, EvalPoint& out) {
  std::vector<Agent>& agents = world_.agents;
  const size_t n = agents.size();
  results_.resize(n);
  out.iteration = iteration;
  out.time = world_.sim.now();
  out.agents.resize(n);
  pool.parallel_for(n, [&](size_t i) { out.agents[i].score = score(i, agents[i].x); });
  for (size_t i = 0; i < n; ++i) {
    const AgentCounters& c = world_.network->counters(agents[i].id);
    out.agents[i].events = agents[i].events;
    out.agents[i].messages_sent = c.sent.messages;
    out.agents[i].bytes_sent = c.sent.bytes;
  }
  mean_.setZero(agents.front().x.size());
  mean_exact_.setZero(agents.front().x.size());
  for (const Agent& a : agents) {
    mean_ += a.x;
    mean_exact_ += a.x.cast<double>();
  }
  mean_ /= static_cast<float>(n);
  mean_exact_ /= static_cast<double>(n);
  double squared = 0.0;
  for (const Agent& a : agents) squared += (a.x.cast<double>() - mean_exact_).squaredNorm();
  out.consensus_distance = std::sqrt(squared / static_cast<double>(n));
  // The averaged model is scored with agent 0's workspace, after the parallel part.
  out.aggregate = score(0, mean_);
  if (world_.is_quadratic()) out.aggregate.loss = kNaN;  // its loss is agent 0's objective
  out.center.reset();
  if (const ParamVector* z = world_.algorithm->center_model()) {
    AgentPoint& center = out.center.emplace();
    center.score = score(0, *z);
    if (world_.is_quadratic()) center.score.loss = kNaN;
    // The centre lives on the network node after the agents (EASGD's parameter server).
    const AgentCounters& c = world_.network->counters(AgentId{static_cast<uint32_t>(n)});
    center.messages_sent = c.sent.messages;
    center.bytes_sent = c.sent.bytes;
  }
}

}  // namespace dlsim
