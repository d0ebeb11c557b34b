#include "sim/metrics/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

ModelScore Evaluator::score(size_t agent_index, const ParamVector& x) {
  models::Model& model = learners_[agent_index]->model();
  models::EvalResult& r = results_[agent_index];
  if (quadratic()) {
    static const models::Dataset kNoData;
    model.evaluate(x, kNoData, 0, 1, r);
  } else {
    const size_t batch = std::min(eval_batch_, eval_set_->size());
    model.evaluate(x, *eval_set_, eval_set_->size(), batch, r);
  }
  return ModelScore{r.loss, quadratic() ? kNaN : r.accuracy,
                    quadratic() ? r.optimum_distance : kNaN};
}

void Evaluator::fill_counts(const EvalInput& in, const CommRecorder& comm, EvalPoint& out) const {
  const std::span<const Agent> agents = in.agents;
  out.iteration = in.iteration;
  out.time = in.time;
  out.agents.resize(agents.size());
  for (size_t i = 0; i < agents.size(); ++i) {
    const NodeTraffic& c = comm.node(agents[i].id);
    out.agents[i].events = c.events;
    out.agents[i].messages_sent = c.sent.messages;
    out.agents[i].bytes_sent = c.sent.bytes;
    out.agents[i].tensor_sends = c.tensor_sends;
    out.agents[i].online = comm.online(agents[i].id);
    out.agents[i].byzantine = false;
  }
  for (uint32_t b : byzantine_) out.agents.at(b).byzantine = true;
}

void Evaluator::score_aggregate(EvalPoint& out) {
  out.aggregate = score(0, mean_);
  if (quadratic()) out.aggregate.loss = kNaN;  // its loss is agent 0's objective
}

void Evaluator::evaluate(ThreadPool& pool, const EvalInput& in, const CommRecorder& comm,
                         EvalPoint& out) {
  const std::span<const Agent> agents = in.agents;
  const size_t n = agents.size();
  results_.resize(n);
  fill_counts(in, comm, out);
  pool.parallel_for(n, [&](size_t i) { out.agents[i].score = score(i, agents[i].x); });
  // The averaged model and the consensus distance are those of the online honest agents (churn,
  // Byzantine agents), or of every honest agent when none is online.
  size_t online = 0, honest = 0;
  for (const AgentPoint& a : out.agents) {
    if (a.byzantine) continue;
    ++honest;
    online += a.online ? 1 : 0;
  }
  const size_t m = online == 0 ? honest : online;
  mean_.setZero(agents.front().x.size());
  mean_exact_.setZero(agents.front().x.size());
  for (size_t i = 0; i < n; ++i) {
    if (!counted(out.agents[i], online)) continue;
    mean_ += agents[i].x;
    mean_exact_ += agents[i].x.cast<double>();
  }
  mean_ /= static_cast<float>(m);
  mean_exact_ /= static_cast<double>(m);
  double squared = 0.0;
  for (size_t i = 0; i < n; ++i)
    if (counted(out.agents[i], online))
      squared += (agents[i].x.cast<double>() - mean_exact_).squaredNorm();
  out.consensus_distance = std::sqrt(squared / static_cast<double>(m));
  // The averaged model is scored with agent 0's workspace, after the parallel part.
  score_aggregate(out);
  out.center.reset();
  if (in.center) {
    AgentPoint& center = out.center.emplace();
    center.score = score(0, *in.center);
    if (quadratic()) center.score.loss = kNaN;
    const NodeTraffic& c = comm.node(in.center_node);
    center.messages_sent = c.sent.messages;
    center.bytes_sent = c.sent.bytes;
    center.tensor_sends = c.tensor_sends;
  }
}

}  // namespace dlsim
