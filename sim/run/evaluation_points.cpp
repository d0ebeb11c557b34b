#include "sim/run/evaluation_points.hpp"

#include <cmath>

#include "sim/agents/service_node.hpp"
#include "sim/metrics/comm_over_ranks.hpp"
#include "sim/run/wall_clock.hpp"

namespace dlsim {

// Over the honest agents, as summary.json's final scores.
double mean_accuracy(const EvalPoint& p) {
  double sum = 0, honest = 0;
  for (const AgentPoint& a : p.agents) {
    if (a.byzantine) continue;
    sum += a.score.accuracy;
    ++honest;
  }
  return sum / honest;
}

void EvaluationPoints::record(int64_t iteration) {
  const auto start = WallClock::now();
  // The centre model lives on the network node after the agents (EASGD's parameter server).
  const EvalInput in{iteration, world_.sim.now(), world_.agents, center_model_of(*world_.algorithm),
                     AgentId{static_cast<uint32_t>(world_.agents.size())}};
  if (ranks_) {
    const CommRecorder total = comm_over_ranks(comm_, *ranks_);
    evaluator_.evaluate_over_ranks(pool_, in, total, last_, *ranks_, first_, end_);
    events_ = total.events();
  } else {
    evaluator_.evaluate(pool_, in, comm_, last_);
  }
  has_point_ = true;
  if (csv_) {
    csv_->write(last_);
    if (watch_.observe(last_)) log_ << "dlsim: warning: " << *watch_.warning() << '\n';
  }
  eval_s_ += seconds_since(start);
}

bool EvaluationPoints::on_iterations_done(int64_t k) {
  const RunSpec& run = world_.spec.run;
  if (k == run.iterations || (run.eval_every > 0 && k % run.eval_every == 0)) record(k);
  // Over ranks the events shown are those of the last evaluation point: counting them at every
  // iteration would cost a reduction each.
  progress_.update(k, world_.sim.now(), has_point_ && csv_ ? mean_accuracy(last_) : NAN,
                   ranks_ ? events_ : comm_.events());
  if (between_) between_();
  return true;
}

}  // namespace dlsim
