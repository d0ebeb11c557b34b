#include "sim/scenario/world.hpp"

#include <limits>
#include <numeric>
#include <optional>

#include "models/data/load_dataset.hpp"
#include "models/data/shard_samples.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/underlay.hpp"

namespace dlsim {
namespace {

// Every field of `d` but its samples, without copying them: they step aside during the copy (an
// O(1) move each way), so a field added to Dataset is copied too.
models::Dataset fields_of(models::Dataset& d) {
  Eigen::MatrixXf samples = std::move(d.features);
  models::Dataset out = d;
  d.features = std::move(samples);
  return out;
}

// A random subset of the test set, fixed by the seed: every evaluation uses the same samples.
// Built column by column on the pool, without copying all of `test` first.
models::Dataset make_eval_set(models::Dataset& test, uint32_t samples, uint64_t seed,
                              ThreadPool& pool) {
  std::vector<uint32_t> order(test.size());
  std::iota(order.begin(), order.end(), 0u);
  RandomStream rng(seed, "eval", 0);
  rng.shuffle(std::span<uint32_t>(order));
  order.resize(std::min<size_t>(samples, order.size()));
  models::Dataset out = fields_of(test);
  out.features.resize(static_cast<Eigen::Index>(test.sample_dim()),
                      static_cast<Eigen::Index>(order.size()));
  out.labels.resize(order.size());
  pool.parallel_for(order.size(), [&](size_t k) {
    out.features.col(static_cast<Eigen::Index>(k)) = test.features.col(order[k]);
    out.labels[k] = test.labels[order[k]];
  });
  return out;
}

// The dataset as read, with the evaluation subset taken from its test part into `w`.
models::DatasetSplit load_data(World& w, const models::DataPaths& paths, ThreadPool& pool) {
  const ScenarioSpec& s = w.spec;
  models::DatasetSplit split;
  try {
    split = models::load_dataset(s.data->dataset, paths, s.seed, pool);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: /data: {}", s.file, e.what()));
  }
  w.eval_set = make_eval_set(split.test, s.run.eval_samples, s.seed, pool);
  return split;
}

// Shards: the partition of the scenario, or (centralized) all training samples for one agent.
std::vector<std::vector<uint32_t>> make_shards(World& w, const models::Dataset* train,
                                               uint32_t agents) {
  const ScenarioSpec& s = w.spec;
  if (!train) return std::vector<std::vector<uint32_t>>(agents);  // quadratic
  if (s.algorithm.descriptor->capabilities().centralized) {
    std::vector<uint32_t> all(train->size());
    std::iota(all.begin(), all.end(), 0u);
    return {all};
  }
  models::Partition p;
  try {
    p = models::make_partition(s.data->partition, *train, agents, s.seed);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: /data/partition: {}", s.file, e.what()));
  }
  w.class_counts = std::move(p.class_counts);
  return std::move(p.shards);
}

// The dataset and the shards. A world holding a block of the agents (a rank of a run over MPI
// ranks) keeps only its agents' training samples: the partition is drawn over the whole set,
// as in one process, then the others' samples are let go and the held shards renumbered.
std::vector<std::vector<uint32_t>> load_data_and_shards(World& w, uint32_t agents,
                                                        const models::DataPaths& paths,
                                                        ThreadPool& pool) {
  if (!w.spec.data) return make_shards(w, nullptr, agents);
  models::DatasetSplit split = load_data(w, paths, pool);
  std::vector<std::vector<uint32_t>> shards = make_shards(w, &split.train, agents);
  if (w.held.size() < agents) {
    for (uint32_t i = 0; i < agents; ++i)
      if (!w.held.contains(i)) std::vector<uint32_t>().swap(shards[i]);
    models::keep_shard_samples(split.train, shards);
  }
  w.data = std::make_shared<const models::DatasetSplit>(std::move(split));
  return shards;
}

// Each agent's model, initial parameters, learner and buffers are built on the pool (the first
// touch of their memory is most of the cost); every agent draws from its own streams, so the
// result does not depend on the thread count. Agents then join the world in id order.
void build_agents(World& w, uint32_t agents, const models::DataPaths& paths, ThreadPool& pool) {
  const ScenarioSpec& s = w.spec;
  std::vector<std::vector<uint32_t>> shards = load_data_and_shards(w, agents, paths, pool);
  const models::InputShape shape =
      w.is_quadratic() ? models::InputShape{1, 1, 1, 1}
                       : models::InputShape{w.data->train.channels, w.data->train.height,
                                            w.data->train.width, w.data->train.num_classes};
  // Centralized: the samples of all agents' batches in one (64-bit: batch x agents can be large;
  // a batch larger than the shard is the whole shard, see ModelLearner).
  const uint64_t batch =
      s.data ? uint64_t{s.data->batch_size} *
                   (s.algorithm.descriptor->capabilities().centralized ? s.agents : 1u)
             : 1;
  std::shared_ptr<const models::Dataset> train(w.data, w.data ? &w.data->train : nullptr);
  std::vector<std::optional<Agent>> built(agents);
  std::vector<ModelLearner*> learners(agents, nullptr);
  pool.parallel_for(agents, [&](size_t k) {
    const auto i = static_cast<uint32_t>(k);
    if (!w.held.contains(i)) {  // a place-holder: another rank holds it
      built[k].emplace(AgentId{i}, s.seed, nullptr, ParamVector());
      return;
    }
    RandomStream target_rng(s.seed, "target", i);
    models::Model model = models::Model::build(s.model, shape, target_rng);
    ParamVector x0(model.parameter_count());
    RandomStream init_rng(s.seed, "init", s.init == InitKind::kCommon ? 0 : i);
    model.initialize(x0, init_rng);
    auto learner = std::make_unique<ModelLearner>(std::move(model), s.optimizer, train,
                                                  std::move(shards[k]), batch, s.seed, AgentId{i});
    learners[k] = learner.get();
    built[k].emplace(AgentId{i}, s.seed, std::move(learner), std::move(x0));
  });
  // Quadratic models measure their distance to the optimum the honest agents seek: Byzantine
  // agents' objectives are left out, as their models are left out of every metric.
  const std::vector<uint8_t> byzantine = byzantine_mask(
      s.byzantine ? std::span<const uint32_t>(s.byzantine->agents) : std::span<const uint32_t>(),
      agents);
  w.agents.reserve(agents);
  for (uint32_t i = 0; i < agents; ++i) {
    w.learners.push_back(learners[i]);
    w.agents.push_back(std::move(*built[i]));
  }
  if (!w.is_quadratic()) return;
  // The targets of agents held elsewhere are drawn again here, one at a time, and dropped.
  models::QuadraticOptimum sum;
  for (uint32_t i = 0; i < agents; ++i) {
    if (byzantine[i]) continue;
    if (learners[i]) {
      sum.add(learners[i]->model().quadratic_target());
      continue;
    }
    RandomStream target_rng(s.seed, "target", i);
    sum.add(models::Model::build(s.model, shape, target_rng).quadratic_target());
  }
  auto optimum = std::make_shared<const Eigen::VectorXf>(sum.mean());
  for (ModelLearner* l : w.learners)
    if (l) l->model().set_optimum(optimum);
}

// Simulated time is int64 nanoseconds: iterations x the slowest step must fit (a sync round lasts
// at least its slowest compute; an async agent's clock advances by its own step per iteration).
void check_time_fits(const World& w) {
  const std::vector<SimTime>& steps = w.compute_time;
  const SimTime slowest = *std::max_element(steps.begin(), steps.end());
  const int64_t iterations = w.spec.run.iterations;
  if (slowest.ns > 0 && iterations > std::numeric_limits<int64_t>::max() / slowest.ns)
    throw InputError(fmt::format(
        "{}: /run/iterations: {} iterations of up to {:.6g} s each overflow the simulated clock "
        "(at most {:.6g} s)",
        w.spec.file, iterations, slowest.seconds(), SimTime::max().seconds()));
}

void warn_about_evaluation(World& w) {
  const RunSpec& run = w.spec.run;
  if (run.eval_every > run.iterations)
    w.warnings.push_back(fmt::format(
        "{}: /run/eval_every: {} exceeds the run's {} iterations: evaluating at 0 and at the end "
        "only",
        w.spec.file, run.eval_every, run.iterations));
}

// The scenario's NIC rates are the workers': a centralized run has one agent and no messages,
// and a service node (EASGD's server, the node after the workers) has no NIC.
NetworkConfig network_config(const ScenarioSpec& spec, uint32_t agents) {
  NetworkConfig network = spec.network;
  network.complete_underlay = implicit_complete_underlay(spec);
  const bool server = spec.algorithm.descriptor->capabilities().service_node;
  for (auto [every, each] :
       {std::pair{&network.nic_uplink_bps, &network.nic_uplink_bps_per_agent},
        std::pair{&network.nic_downlink_bps, &network.nic_downlink_bps_per_agent}}) {
    if (agents != spec.agents) each->clear();
    if (!server || (each->empty() && *every == 0)) continue;
    if (each->empty()) each->assign(agents, *every);  // a rate for every worker, not the server
    each->resize(agents + 1, 0);
  }
  return network;
}

}  // namespace

std::unique_ptr<World> build_world(const ScenarioSpec& spec, const models::DataPaths& paths) {
  ThreadPool serial(1);
  return build_world(spec, paths, serial);
}

std::unique_ptr<World> build_world(const ScenarioSpec& spec, const models::DataPaths& paths,
                                   ThreadPool& pool) {
  return build_world(spec, plan_run(spec), paths, pool);
}

std::unique_ptr<World> build_world(const ScenarioSpec& spec, RunPlan plan,
                                   const models::DataPaths& paths) {
  ThreadPool serial(1);
  return build_world(spec, std::move(plan), paths, serial);
}

std::unique_ptr<World> build_world(const ScenarioSpec& spec, RunPlan plan,
                                   const models::DataPaths& paths, ThreadPool& pool) {
  auto w = std::make_unique<World>(spec);
  const AlgorithmDescriptor& algorithm = *spec.algorithm.descriptor;
  const uint32_t agents = plan.agents;
  w->degrees = plan.degrees;
  w->graph = std::move(plan.graph);
  w->dynamic_graphs = std::move(plan.dynamic_graphs);
  DLSIM_CHECK(plan.held.first < plan.held.end && plan.held.end <= agents,
              "agents [{}, {}) of {} held here", plan.held.first, plan.held.end, agents);
  w->held = plan.held;
  // The physical network: the agents' graph, plus the algorithm's service nodes.
  w->network = std::make_unique<Network>(algorithm.network_graph(*w), network_config(spec, agents),
                                         spec.seed);
  build_agents(*w, agents, paths, pool);
  // label_flip (docs/algorithms.md, "Attacks"): the attackers train on labels 9 - y.
  if (spec.byzantine && spec.byzantine->attack.kind == AttackKind::kLabelFlip)
    for (uint32_t b : spec.byzantine->agents)
      if (w->learners[b]) w->learners[b]->flip_labels();
  w->algorithm = algorithm.build(*w);
  if (spec.churn) w->churn = std::make_unique<Churn>(*spec.churn, agents, spec.seed);
  w->algorithm->start(w->agents);
  ModelLearner& any = *w->learners[w->held.first];
  const uint32_t batch = w->is_quadratic() ? 1 : any.batch_size();
  const double flops = any.model().flops_per_sample(models::Phase::kTrain) * batch;
  w->compute_time = compute_times(spec, agents, flops);
  check_time_fits(*w);
  warn_about_evaluation(*w);
  algorithm.warn(*w);
  return w;
}

}  // namespace dlsim
