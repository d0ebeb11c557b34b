#include "sim/run/run_scenario.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sim/agents/service_node.hpp"
#include "sim/core/rank_totals.hpp"
#include "sim/core/system_memory.hpp"
#include "sim/metrics/comm_over_ranks.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/metrics/evaluation.hpp"
#include "sim/metrics/metrics_csv.hpp"
#include "sim/metrics/output_folder.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/checkpoint_writer.hpp"
#include "sim/run/driver.hpp"
#include "sim/run/evaluation_points.hpp"
#include "sim/run/learning_suspect.hpp"
#include "sim/run/message_shipping.hpp"
#include "sim/run/run_over_ranks.hpp"
#include "sim/run/virtual_ranks.hpp"
#include "sim/run/wall_clock.hpp"
#include "sim/scenario/algorithm_json.hpp"
#include "sim/scenario/load_scenario.hpp"
#include "sim/scenario/run_plan.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {
namespace {

namespace fs = std::filesystem;

// A run whose losses stayed finite can still end on non-finite parameters: its last update.
// Over MPI ranks each rank looks at its own agents, and the first of all is the ranks' minimum.
void check_final_parameters(const World& world, RunOutcome& outcome, RankCollectives* ranks) {
  if (outcome.status != RunStatus::kOk) return;
  int64_t first = INT64_MAX;
  for (const Agent& a : world.agents)
    if (world.sim.runs_here(a.id) && !a.x.allFinite()) {
      first = a.id.value;
      break;
    }
  if (ranks) ranks->all_reduce(std::span(&first, 1), Reduction::kMin);
  if (first == INT64_MAX) return;
  const Agent& a = world.agents[static_cast<size_t>(first)];
  int64_t iteration = a.iteration;  // its own rank's count (async: the others' is stale)
  if (ranks) {
    if (!world.sim.runs_here(a.id)) iteration = INT64_MIN;
    ranks->all_reduce(std::span(&iteration, 1), Reduction::kMax);
  }
  outcome.status = RunStatus::kDiverged;
  outcome.diverged_iteration = iteration - 1;  // the update of the agent's last iteration
  outcome.diverged_agent = first;
  outcome.diverged_in = DivergedIn::kParameters;
}

// The model's tensors by name, for the per-tensor send counts; one when the model is one tensor.
std::vector<std::string> tensor_names(const World& world) {
  std::vector<std::string> names;
  for (const TensorRange& t : first_held(world.agents).learner->parameter_tensors())
    names.push_back(t.name.empty() ? fmt::format("tensor{}", names.size()) : t.name);
  if (names.empty()) names.emplace_back("parameters");
  return names;
}

// Each agent's final parameters go into its node's hash, after its events; the nodes are then
// combined in node order (docs/partitioned-runs.md, design point 2), and EASGD's centre last.
// Over MPI ranks each rank hashes its own agents, and rank 0 combines every rank's nodes.
struct FinalCounts {
  uint64_t fingerprint = 0;
  uint64_t events = 0;
  int64_t iterations = 0;  // every agent's own iteration count, summed (async: some are ahead)
};

FinalCounts final_counts(const World& world, RankCollectives* ranks) {
  const std::span<const Fingerprint> events = world.sim.node_fingerprints();
  std::vector<Fingerprint> nodes(events.begin(), events.end());
  if (nodes.size() < world.agents.size()) nodes.resize(world.agents.size());
  auto add = [](Fingerprint& f, const ParamVector& x) {
    f.add_bytes(std::as_bytes(std::span(x.data(), static_cast<size_t>(x.size()))));
  };
  int64_t iterations = 0;
  for (const Agent& a : world.agents)
    if (world.sim.runs_here(a.id)) {
      add(nodes[a.id.value], a.x);
      iterations += a.iteration;
    }
  if (ranks) {
    ranks->all_reduce(std::span(&iterations, 1), Reduction::kSum);
    const RankTotals totals = totals_over_ranks(nodes, world.sim.events_processed(), *ranks);
    return {totals.fingerprint.value(), totals.events_handled, iterations};  // rank 0's count
  }
  Fingerprint f = combine_in_node_order(nodes);
  if (const ParamVector* center = center_model_of(*world.algorithm)) add(f, *center);
  return {f.value(), world.sim.events_processed(), iterations};
}

RunFacts facts_of(const World& world, const RunOutcome& outcome, const RunTimes& times,
                  const MemoryEstimate& memory, int64_t resumes, const CommRecorder& comm,
                  const FinalCounts& counts) {
  RunFacts f;
  f.resumes = resumes;
  f.memory_estimate_bytes = memory.total_bytes();
  f.name = world.spec.name;
  f.algorithm = std::string(world.spec.algorithm.name());
  f.agents = static_cast<uint32_t>(world.agents.size());
  f.parameters = world.parameter_count();
  f.iterations_done = outcome.iterations_done;
  // Decisions taken: each agent's own iteration count (in async mode some are ahead).
  f.decisions = static_cast<double>(counts.iterations);
  f.decisions -= static_cast<double>(comm.rounds_sat_out());  // churn: rounds without a step
  if (outcome.status == RunStatus::kDiverged)
    f.diverged = Divergence{outcome.diverged_iteration, outcome.diverged_agent,
                            outcome.diverged_in == DivergedIn::kLoss ? "loss" : "parameters"};
  f.fingerprint = counts.fingerprint;
  f.simulated = world.sim.now();
  f.events_processed = counts.events;
  f.quadratic = world.is_quadratic();
  f.times = times;
  f.warnings = world.warnings;
  f.class_counts = world.class_counts;
  f.byzantine = byzantine_of(world);
  return f;
}

}  // namespace

RunReport run_scenario(const ScenarioSpec& spec, const RunOptions& options, std::ostream& log) {
  const auto start = WallClock::now();
  RankCollectives* const ranks =
      options.ranks && options.ranks->ranks() > 1 ? options.ranks : nullptr;
  const bool leader = !ranks || ranks->rank() == 0;  // writes the folder, logs
  std::ostream silent(nullptr);                      // the other ranks' log: rank 0 says it once
  std::ostream& say = leader ? log : silent;
  const uint32_t rank = ranks ? ranks->rank() : 0, rank_count = ranks ? ranks->ranks() : 1;
  if (ranks) {  // before the plan: over ranks it is of this rank's block of agents
    refuse_over_ranks(options, rank_count);
    refuse_partitioning(spec, running_agents(spec), rank_count, PartitionsRun::kOverRanks);
  }
  // Refuses what cannot fit (over ranks: in the largest rank's share), before anything is
  // written.
  // Ranks that share a machine share its memory.
  RunPlan plan =
      ranks
          ? plan_run(spec,
                     available_memory_bytes().value_or(UINT64_MAX) / ranks->ranks_on_this_machine(),
                     rank_count, rank)
          : plan_run(spec);
  const MemoryEstimate memory = plan.memory;
  // A checkpoint in OUT.tmp: this run continues it, if it is this build's and scenario's, and
  // was written by as many ranks (each resumes its own part).
  const fs::path staging = OutputFolder::staging_path(options.out);
  const std::string checkpoint_file = checkpoint_name(rank, rank_count);
  fs::path checkpoint = staging / checkpoint_file;
  if (const uint32_t saved = checkpoint_ranks(staging); saved != 0 && saved != rank_count)
    throw InputError(fmt::format(
        "{}: holds the checkpoint of a run over {} MPI rank{}: resume it with as many (this "
        "run has {}), or remove the folder to start over",
        staging.string(), saved, saved == 1 ? "" : "s", rank_count));
  bool resuming = fs::exists(checkpoint);
  if (ranks) {  // every rank resumes, from parts of one iteration, or none does
    const std::optional<fs::path> part = agree_on_checkpoint(staging, checkpoint_file, *ranks);
    resuming = part.has_value();
    if (part) checkpoint = *part;
  }
  CheckpointPolicy policy = options.checkpoints;
  CheckpointIdentity identity;
  if (resuming || policy.enabled()) identity = checkpoint_identity(spec);
  if (resuming) {
    const CheckpointPolicy saved = check_checkpoint(checkpoint, identity);
    if (!policy.enabled()) policy = saved;
  }
  RunTimes times;
  ThreadPool pool(options.threads);  // before the world: building it is parallel too
  const std::unique_ptr<World> world =
      build_world(spec, std::move(plan), options.data_paths, pool);
  for (const std::string& w : world->warnings) say << "dlsim: warning: " << w << '\n';
  if (options.trigger && !world->algorithm->set_trigger_decider(*options.trigger))
    throw InputError(
        fmt::format("{}: /algorithm/kind: algorithm \"{}\" computes no drift for a "
                    "custom trigger (detsgrad, choco and easgd do, with a trigger "
                    "on the whole model)",
                    spec.file, spec.algorithm.name()));

  // The recorders: the network and the algorithm's events report to `comm`.
  CommRecorder comm(world->network->graph().node_count(), tensor_names(*world));
  world->network->set_listener(comm);
  Swarm swarm(world->sim, *world->network, *world->algorithm, world->agents, comm);
  swarm.set_churn(world->churn.get());
  if (options.virtual_ranks != 1)
    world->sim.partition(plan_partitions(*world, options.virtual_ranks));
  std::optional<MessageShipping> shipping;  // over MPI ranks: messages that cross them
  if (ranks) {
    const Partitions p = plan_partitions(*world, rank_count, PartitionsRun::kOverRanks);
    DLSIM_CHECK(p.of_node[world->held.first] == rank && p.of_node[world->held.end - 1] == rank,
                "rank {} holds agents [{}, {}) of another partition", rank, world->held.first,
                world->held.end);
    world->sim.partition(p, *ranks);
    if (options.shipping_round_bytes > 0)
      world->sim.set_shipping_round_bytes(options.shipping_round_bytes);
    shipping.emplace(swarm);
  }
  Resumed resumed;
  int64_t resumes = 0;
  if (resuming) {
    resumed = read_checkpoint(checkpoint, identity, *world, swarm, comm);
    times = resumed.counters.times;
    resumes = resumed.counters.resumes + 1;
    if (ranks) agree_on_iteration(resumed.counters.iterations, *ranks, staging);
    say << fmt::format("dlsim: resuming from {} at iteration {}\n",
                       ranks ? staging.string() : checkpoint.string(), resumed.counters.iterations);
  }
  // Over ranks, every rank is set up before rank 0 makes the folder: a rank that failed ends the
  // job (MPI_Abort) without leaving OUT.tmp behind.
  if (ranks) ranks->all_ok(true);
  std::optional<OutputFolder> folder;
  if (leader)
    folder.emplace(options.out,
                   resuming ? OutputFolder::Staging::kContinue : OutputFolder::Staging::kFresh);
  if (policy.enabled() && folder) folder->keep_on_failure();
  if (!resuming && folder)
    folder->write_text("scenario.json", scenario_to_json(spec).dump(2) + "\n");
  times.build_s += seconds_since(start);
  std::optional<MetricsCsv> csv;
  if (folder && resuming)
    csv.emplace(folder->file("metrics.csv"), resumed.counters.csv_bytes);
  else if (folder)
    csv.emplace(folder->file("metrics.csv"));
  Progress progress(leader ? options.progress : ProgressMode::kQuiet, spec.run.iterations, log);
  LearningWatch watch(world->is_quadratic() ? 0 : world->eval_set.num_classes,
                      learning_suspect(spec), resumed.counters.learning);
  EvaluationPoints points(*world, pool, comm, csv ? &*csv : nullptr, progress, times.eval_s,
                          options.between_iterations, watch, log);
  if (ranks) points.over_ranks(*ranks, world->held.first, world->held.end);
  DriverTimings driver_times{times.training_s, times.events_s, times.updates_s};
  std::optional<CheckpointWriter> checkpoints;
  if (policy.enabled())
    checkpoints.emplace(policy, identity, staging, checkpoint_file, *world, swarm, comm,
                        csv ? &*csv : nullptr, times, driver_times, watch, start, resumes, ranks);
  DriverConfig config{spec.time.mode, spec.run.iterations, world->compute_time, &driver_times};
  if (checkpoints) config.checkpoints = &*checkpoints;
  config.resume = resumed.reader.get();
  config.resume_iterations = resumed.counters.iterations;
  config.ranks = ranks;

  if (!resuming) points.record(0);
  RunOutcome outcome = run_driver(swarm, pool, config, points);
  check_final_parameters(*world, outcome, ranks);
  progress.finish();
  if (outcome.status == RunStatus::kDiverged)
    say << fmt::format("dlsim: diverged: agent {} {} at iteration {}\n", outcome.diverged_agent,
                       outcome.diverged_in == DivergedIn::kLoss ? "had a non-finite loss"
                                                                : "got non-finite parameters",
                       outcome.diverged_iteration);
  if (csv) csv->close();
  times.training_s = driver_times.training_s;
  times.events_s = driver_times.events_s;
  times.updates_s = driver_times.updates_s;
  const FinalCounts counts = final_counts(*world, ranks);
  std::optional<CommRecorder> comm_of_ranks;  // over MPI ranks: every rank's counts, on rank 0
  if (ranks) comm_of_ranks.emplace(comm_over_ranks(comm, *ranks));
  const CommRecorder& run_comm = comm_of_ranks ? *comm_of_ranks : comm;
  RunReport report;
  report.out = options.out;
  report.ok = outcome.status == RunStatus::kOk;
  // The other ranks leave (a diverged run with exit code 3, on which mpirun ends the job) only
  // once rank 0 has written the folder.
  if (!leader) {
    ranks->all_ok(true);
    return report;
  }
  times.wall_s += seconds_since(start);
  RunFacts facts = facts_of(*world, outcome, times, memory, resumes, run_comm, counts);
  if (const std::optional<std::string> stuck = watch.warning()) facts.warnings.push_back(*stuck);
  if (const std::optional<std::string> overload = run_comm.overload_warning()) {
    log << "dlsim: warning: " << *overload << '\n';
    facts.warnings.push_back(*overload);
  }
  if (checkpoints) facts.checkpoints = checkpoints->stats();
  facts.ranks = ranks ? ranks->ranks() : world->sim.partitions();
  facts.virtual_ranks = options.virtual_ranks != 1;
  report.summary = make_summary(facts, run_comm, points.last());
  folder->write_text("summary.json", report.summary.dump(2) + "\n");
  remove_checkpoint(folder->staging());
  folder->commit();
  if (ranks) ranks->all_ok(true);
  return report;
}

}  // namespace dlsim
