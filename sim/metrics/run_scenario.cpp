#include "sim/metrics/run_scenario.hpp"

#include <chrono>
#include <cmath>

#include "sim/metrics/evaluation.hpp"
#include "sim/metrics/metrics_csv.hpp"
#include "sim/metrics/output_folder.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace dlsim {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double mean_accuracy(const EvalPoint& p) {
  double sum = 0;
  for (const AgentPoint& a : p.agents) sum += a.score.accuracy;
  return sum / static_cast<double>(p.agents.size());
}

// Evaluates at iteration 0, every eval_every iterations and at the end; reports progress.
class Recorder final : public RunObserver {
 public:
  Recorder(World& world, ThreadPool& pool, MetricsCsv& csv, Progress& progress, RunTimes& times)
      : world_(world), pool_(pool), csv_(csv), progress_(progress), times_(times),
        evaluator_(world) {}

  void record(int64_t iteration) {
    const auto start = Clock::now();
    evaluator_.evaluate(pool_, iteration, last_);
    csv_.write(last_);
    has_point_ = true;
    times_.eval_s += since(start);
  }

  bool on_iterations_done(int64_t k) override {
    const RunSpec& run = world_.spec.run;
    if (k == run.iterations || (run.eval_every > 0 && k % run.eval_every == 0)) record(k);
    uint64_t events = 0;
    for (const Agent& a : world_.agents) events += a.events;
    progress_.update(k, world_.sim.now(), has_point_ ? mean_accuracy(last_) : NAN, events);
    return true;
  }

  const EvalPoint* last() const { return has_point_ ? &last_ : nullptr; }

 private:
  World& world_;
  ThreadPool& pool_;
  MetricsCsv& csv_;
  Progress& progress_;
  RunTimes& times_;
  Evaluator evaluator_;
  EvalPoint last_;
  bool has_point_ = false;
};

// A run whose losses stayed finite can still end on non-finite parameters: its last update.
void check_final_parameters(const World& world, RunOutcome& outcome) {
  if (outcome.status != RunStatus::kOk) return;
  for (const Agent& a : world.agents) {
    if (a.x.allFinite()) continue;
    outcome.status = RunStatus::kDiverged;
    outcome.diverged_iteration = a.iteration - 1;  // the update of the agent's last iteration
    outcome.diverged_agent = a.id.value;
    outcome.diverged_in = DivergedIn::kParameters;
    return;
  }
}

uint64_t final_fingerprint(const World& world) {
  Fingerprint f = world.sim.fingerprint();
  auto add = [&](const ParamVector& x) {
    f.add_bytes(std::as_bytes(std::span(x.data(), static_cast<size_t>(x.size()))));
  };
  for (const Agent& a : world.agents) add(a.x);
  if (const ParamVector* center = world.algorithm->center_model()) add(*center);
  return f.value();
}

}  // namespace

RunReport run_scenario(const ScenarioSpec& spec, const RunOptions& options, std::ostream& log) {
  const auto start = Clock::now();
  OutputFolder folder(options.out);
  RunTimes times;
  ThreadPool pool(options.threads);  // before the world: building it is parallel too
  const std::unique_ptr<World> world = build_world(spec, options.data_paths, pool);
  times.build_s = since(start);
  for (const std::string& w : world->warnings) log << "dlsim: warning: " << w << '\n';
  folder.write_text("scenario.json", scenario_to_json(spec).dump(2) + "\n");

  MetricsCsv csv(folder.file("metrics.csv"));
  Progress progress(options.progress, spec.run.iterations, log);
  Recorder recorder(*world, pool, csv, progress, times);
  world->driver.timings = &times.driver;
  recorder.record(0);
  RunOutcome outcome = run_driver(*world->swarm, pool, world->driver, recorder);
  check_final_parameters(*world, outcome);
  progress.finish();
  if (outcome.status == RunStatus::kDiverged)
    log << fmt::format("dlsim: diverged: agent {} {} at iteration {}\n", outcome.diverged_agent,
                       outcome.diverged_in == DivergedIn::kLoss ? "had a non-finite loss"
                                                                : "got non-finite parameters",
                       outcome.diverged_iteration);
  csv.close();
  times.wall_s = since(start);
  RunReport report;
  report.summary = make_summary(*world, outcome, recorder.last(), final_fingerprint(*world), times);
  folder.write_text("summary.json", report.summary.dump(2) + "\n");
  folder.commit();
  report.out = options.out;
  return report;
}

}  // namespace dlsim
