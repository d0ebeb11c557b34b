#include "sim/scenario/world.hpp"

#include <limits>
#include <numeric>
#include <optional>

#include "models/data/load_dataset.hpp"
#include "sim/agents/choco.hpp"
#include "sim/agents/detsgrad.hpp"
#include "sim/agents/dpsgd.hpp"
#include "sim/agents/easgd.hpp"
#include "sim/agents/elastic_gossip.hpp"
#include "sim/agents/eventgrad.hpp"
#include "sim/agents/gossip.hpp"
#include "sim/agents/no_communication.hpp"
#include "sim/agents/ring_allreduce.hpp"
#include "sim/scenario/underlay.hpp"
#include "topologies/generators.hpp"

namespace dlsim {
namespace {

// The agents' communication graph: the physical graph itself, or a dynamic overlay on it.
Overlay make_overlay(const World& w) {
  const ScenarioSpec& s = w.spec;
  if (!s.dynamic) return Overlay(w.graph, s.algorithm.mixing);
  std::vector<topo::Graph> graphs;
  for (const topo::TopologySpec& g : s.dynamic->graphs)
    graphs.push_back(topo::build_topology(g, s.seed));
  // Async mode: each agent draws its own targets (parse_scenario.cpp admits only the kinds and
  // algorithms that can).
  return Overlay(*s.dynamic, std::move(graphs), s.agents, s.algorithm.mixing, s.seed,
                 s.time.mode);
}

// The most copies a DETSGRAD agent's consensus term sums: the graph's largest degree; on a
// dynamic topology the largest in-degree of its graphs (one per round for one-peer and
// matchings; epidemic: s, the mean, as any in-degree up to n - 1 can be drawn).
uint32_t consensus_degree(const World& w) {
  const ScenarioSpec& s = w.spec;
  uint32_t max_degree = 0;
  const auto largest = [&max_degree](const topo::Graph& g) {
    for (uint32_t i = 0; i < g.node_count(); ++i) max_degree = std::max(max_degree, g.degree(i));
  };
  if (!s.dynamic) {
    largest(w.graph);
    return max_degree;
  }
  switch (s.dynamic->kind) {
    case topo::DynamicKind::kOnePeerExponential:
    case topo::DynamicKind::kRandomMatching:
      return 1;
    case topo::DynamicKind::kEpidemic:
      return s.dynamic->s;
    case topo::DynamicKind::kSequence:
      for (const topo::TopologySpec& g : s.dynamic->graphs)
        largest(topo::build_topology(g, s.seed));
      return max_degree;
  }
  return max_degree;
}

std::unique_ptr<Algorithm> make_algorithm(World& w) {
  const AlgorithmSpec& a = w.spec.algorithm;
  const TriggerSpec trigger = w.spec.trigger.value_or(TriggerSpec{});
  switch (a.kind) {
    case AlgorithmKind::kCentralized:
    case AlgorithmKind::kNone:
      return std::make_unique<NoCommunication>();
    case AlgorithmKind::kDpsgd:
      try {
        return std::make_unique<Dpsgd>(make_overlay(w), a.compression, a.order);
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: /algorithm/weights: {}", w.spec.file, e.what()));
      }
    case AlgorithmKind::kChoco:
      try {
        if (w.spec.dynamic)
          return std::make_unique<Choco>(make_overlay(w), a.choco_gamma, trigger, a.compression);
        return std::make_unique<Choco>(w.graph, a.mixing, a.choco_gamma, trigger, a.compression,
                                       a.local_steps);
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: /algorithm/weights: {}", w.spec.file, e.what()));
      }
    case AlgorithmKind::kEventgrad:
      try {
        return std::make_unique<Eventgrad>(w.graph, a.mixing, trigger);
      } catch (const InputError& e) {
        throw InputError(fmt::format("{}: /algorithm/weights: {}", w.spec.file, e.what()));
      }
    case AlgorithmKind::kDetsgrad:
      if (w.spec.dynamic) return std::make_unique<Detsgrad>(a.detsgrad, trigger, make_overlay(w));
      return std::make_unique<Detsgrad>(a.detsgrad, trigger, w.graph, a.compression);
    case AlgorithmKind::kGossip:
      if (w.spec.dynamic)
        return std::make_unique<GossipSgd>(a.gossip_mode, trigger, make_overlay(w), a.compression,
                                           a.order);
      return std::make_unique<GossipSgd>(a.gossip_mode, trigger, w.graph, a.compression, a.order);
    case AlgorithmKind::kElasticGossip:
      if (w.spec.dynamic)
        return std::make_unique<ElasticGossip>(a.elastic_alpha, trigger, make_overlay(w),
                                               w.spec.time.mode, a.compression);
      return std::make_unique<ElasticGossip>(a.elastic_alpha, trigger, w.graph, w.spec.time.mode,
                                             a.compression);
    case AlgorithmKind::kAllReduce:
      return std::make_unique<RingAllReduce>(ReduceWhat::kGradients, trigger);
    case AlgorithmKind::kLocalSgd:
      return std::make_unique<RingAllReduce>(ReduceWhat::kModels, trigger);
    case AlgorithmKind::kEasgd:
      return std::make_unique<Easgd>(a.easgd.alpha, trigger, w.spec.time.mode);
  }
  return nullptr;
}

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

void load_data(World& w, const models::DataPaths& paths, ThreadPool& pool) {
  const ScenarioSpec& s = w.spec;
  models::DatasetSplit split;
  try {
    split = models::load_dataset(s.data->dataset, paths, s.seed, pool);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: /data: {}", s.file, e.what()));
  }
  w.eval_set = make_eval_set(split.test, s.run.eval_samples, s.seed, pool);
  w.data = std::make_shared<const models::DatasetSplit>(std::move(split));
}

// Shards: the partition of the scenario, or (centralized) all training samples for one agent.
std::vector<std::vector<uint32_t>> make_shards(World& w, uint32_t agents) {
  const ScenarioSpec& s = w.spec;
  if (w.is_quadratic()) return std::vector<std::vector<uint32_t>>(agents);
  if (s.algorithm.kind == AlgorithmKind::kCentralized) {
    std::vector<uint32_t> all(w.data->train.size());
    std::iota(all.begin(), all.end(), 0u);
    return {all};
  }
  models::Partition p;
  try {
    p = models::make_partition(s.data->partition, w.data->train, agents, s.seed);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: /data/partition: {}", s.file, e.what()));
  }
  w.class_counts = std::move(p.class_counts);
  return std::move(p.shards);
}

// Each agent's model, initial parameters, learner and buffers are built on the pool (the first
// touch of their memory is most of the cost); every agent draws from its own streams, so the
// result does not depend on the thread count. Agents then join the world in id order.
void build_agents(World& w, uint32_t agents, const models::DataPaths& paths, ThreadPool& pool) {
  const ScenarioSpec& s = w.spec;
  if (s.data) load_data(w, paths, pool);
  std::vector<std::vector<uint32_t>> shards = make_shards(w, agents);
  const models::InputShape shape =
      w.is_quadratic() ? models::InputShape{1, 1, 1, 1}
                       : models::InputShape{w.data->train.channels, w.data->train.height,
                                            w.data->train.width, w.data->train.num_classes};
  // Centralized: the samples of all agents' batches in one (64-bit: batch x agents can be large;
  // a batch larger than the shard is the whole shard, see ModelLearner).
  const uint64_t batch = s.data
                             ? uint64_t{s.data->batch_size} *
                                   (s.algorithm.kind == AlgorithmKind::kCentralized ? s.agents : 1u)
                             : 1;
  std::shared_ptr<const models::Dataset> train(w.data, w.data ? &w.data->train : nullptr);
  std::vector<std::optional<Agent>> built(agents);
  std::vector<ModelLearner*> learners(agents);
  pool.parallel_for(agents, [&](size_t k) {
    const auto i = static_cast<uint32_t>(k);
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
  std::vector<const models::Model*> models;
  w.agents.reserve(agents);
  for (uint32_t i = 0; i < agents; ++i) {
    w.learners.push_back(learners[i]);
    w.agents.push_back(std::move(*built[i]));
    models.push_back(&learners[i]->model());
  }
  if (w.is_quadratic()) {
    auto optimum = std::make_shared<const Eigen::VectorXf>(models::quadratic_optimum(models));
    for (ModelLearner* l : w.learners) l->model().set_optimum(optimum);
  }
}

// EASGD: the workers' graph plus the server, node n, linked to every worker of server_links.
topo::Graph with_server(const topo::Graph& workers, const EasgdSpec& e) {
  const uint32_t n = workers.node_count();
  std::vector<topo::Edge> edges(workers.edges().begin(), workers.edges().end());
  std::vector<uint32_t> linked = e.server_links;
  if (linked.empty())
    for (uint32_t i = 0; i < n; ++i) linked.push_back(i);
  for (uint32_t i : linked) edges.push_back({i, n, e.server_latency, e.server_bandwidth_bps});
  return topo::Graph(n + 1, std::move(edges));
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

// Error feedback (SPARQ-SGD, CHOCO-SGD; docs/compression.md, "Stable consensus steps"): the
// consensus gain, the share of the distance to its neighbours' public copies an agent moves per
// iteration, must stay within a small multiple of what one message carries of a change, the
// compression's contraction factor delta; the theory's bound is linear in delta too.
void warn_about_compressed_gain(World& w) {
  constexpr double kGainPerDelta = 4.0;  // measured: docs/compression.md's table
  const AlgorithmSpec& a = w.spec.algorithm;
  // The factor was measured with sparsifiers; a quantizer's delta is a worst-case bound (rescaled
  // qsgd4 after top 1 % trains at 29 x it), so quantized messages are not judged.
  if (!a.compression.enabled() || w.spec.dynamic || a.compression.quantizer != Quantizer::kFloat32)
    return;
  const std::optional<double> delta = a.compression.contraction(w.parameter_count());
  if (!delta) return;
  double gain = 0.0;
  const char* key = "/algorithm/b";
  if (a.kind == AlgorithmKind::kDetsgrad) {
    gain = a.detsgrad.beta.at(0) * consensus_degree(w);
  } else {
    const topo::MixingWeights weights(w.graph, a.mixing);
    for (uint32_t i = 0; i < weights.node_count(); ++i)
      gain = std::max(gain, a.choco_gamma * (1.0 - weights.self_weight(i)));
    key = "/algorithm/gamma";
  }
  if (gain > kGainPerDelta * *delta)
    w.warnings.push_back(fmt::format(
        "{}: {}: the consensus gain {:.3g} (per iteration, the largest agent's) is more than {} "
        "times the compression's contraction factor {:.3g}: with error feedback the copies cannot "
        "follow and the agents fall to chance (docs/compression.md, \"Stable consensus "
        "steps\"); a gain up to {:.3g} trained",
        w.spec.file, key, gain, kGainPerDelta, *delta, kGainPerDelta * *delta));
}

void warn_about_stability(World& w) {
  const AlgorithmSpec& a = w.spec.algorithm;
  if (a.kind == AlgorithmKind::kEasgd) {
    // docs/algorithms.md, "EASGD": the synchronous centre update is z + beta (mean x - z), with
    // beta = n alpha.
    const double beta = a.easgd.alpha * static_cast<double>(w.agents.size());
    if (beta > 1.0)
      w.warnings.push_back(fmt::format(
          "{}: /algorithm/alpha: beta = agents x alpha = {} x {} = {:.3g} > 1: the centre variable "
          "overshoots the workers' mean (it oscillates, and diverges for beta > 2 in sync mode)",
          w.spec.file, w.agents.size(), a.easgd.alpha, beta));
    return;
  }
  if (a.kind == AlgorithmKind::kChoco) return warn_about_compressed_gain(w);
  if (a.kind != AlgorithmKind::kDetsgrad) return;
  const uint32_t max_degree = consensus_degree(w);
  const double beta0 = a.detsgrad.beta.at(0);
  if (beta0 * max_degree >= 1.0)
    w.warnings.push_back(fmt::format(
        "{}: /algorithm/b: beta_0 * max degree = {} * {} = {:.3g} >= 1: the consensus step is "
        "unstable until beta_k decays below 1/{}",
        w.spec.file, beta0, max_degree, beta0 * max_degree, max_degree));
  else
    warn_about_compressed_gain(w);
}

// The scenario's NIC rates are the workers': a centralized run has one agent and no messages,
// and EASGD's server (the node after the workers) has no NIC.
NetworkConfig network_config(const ScenarioSpec& spec, uint32_t agents) {
  NetworkConfig network = spec.network;
  network.complete_underlay = implicit_complete_underlay(spec);
  const bool server = spec.algorithm.kind == AlgorithmKind::kEasgd;
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
  auto w = std::make_unique<World>(spec);
  const bool centralized = spec.algorithm.kind == AlgorithmKind::kCentralized;
  const uint32_t agents = centralized ? 1 : spec.agents;
  if (agents == 1) {
    w->graph = topo::Graph(1, {});
  } else if (implicit_complete_underlay(spec)) {
    w->graph = topo::Graph(agents, {});  // the links stay implicit (complete_links.hpp)
  } else {
    w->graph = topo::build_topology(spec.topology, spec.seed);
  }
  // The physical network: the agents' graph, plus EASGD's server.
  const bool easgd = spec.algorithm.kind == AlgorithmKind::kEasgd;
  w->network =
      std::make_unique<Network>(easgd ? with_server(w->graph, spec.algorithm.easgd) : w->graph,
                                network_config(spec, agents), spec.seed);
  build_agents(*w, agents, paths, pool);
  w->algorithm = make_algorithm(*w);
  if (spec.churn) w->churn = std::make_unique<Churn>(*spec.churn, agents, spec.seed);
  w->algorithm->start(w->agents);
  const uint32_t batch = w->is_quadratic() ? 1 : w->learners.front()->batch_size();
  const double flops = w->learners.front()->model().flops_per_sample(models::Phase::kTrain) * batch;
  w->compute_time = compute_times(spec, agents, flops);
  check_time_fits(*w);
  warn_about_evaluation(*w);
  warn_about_stability(*w);
  return w;
}

}  // namespace dlsim
