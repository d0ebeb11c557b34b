#include "sim/scenario/memory_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "models/model.hpp"
#include "models/workspace_probe.hpp"
#include "sim/core/error.hpp"
#include "sim/core/system_memory.hpp"
#include "sim/network/send_buffers.hpp"
#include "sim/scenario/algorithm_descriptor.hpp"
#include "sim/scenario/underlay.hpp"

namespace dlsim {
namespace {

// Calibration constants, measured with `tools/bench/memory_bench.sh` (docs/memory.md): the
// resident size of a run with one tiny agent (binary, libraries, thread stacks, allocator
// arenas), and what one agent costs besides its vectors and workspace (its streams, model and
// learner objects, the algorithm's per-agent records, its share of the event queue and network).
constexpr uint64_t kProcessBytes = 9ull << 20;
constexpr uint64_t kAgentBytes = 3ull << 10;
// Over MPI ranks (docs/partitioned-runs.md, slice (d)): an agent another rank holds is a
// place-holder here that still has its Agent record and streams, the algorithm's per-agent record
// and its node's network state; and each agent of another rank whose messages come into this
// rank's block brings copies of its model: the one its neighbours here hold, the next arriving,
// the pools' spares, and its share of the window's bytes sent and received (once per window and
// rank however many neighbours it has here; rounds of 64 MiB bound what a window holds).
// Measured (tools/bench/rank_memory.sh, 100,000 quadratic agents of 1,000 parameters, async
// DETSGRAD, 20 iterations, 2 ranks; one process peaked at 3.28 GB): on a torus (a cut of two
// rows) 1.84 GB per rank, 0.20 GB above half of one process for 50,000 place-holders; on a
// random 4-regular graph 2.52 GB, with 46,859 of the other rank's agents sending into a block:
// 0.68 GB more, 3.6 vectors each.
constexpr uint64_t kPlaceHolderBytes = 4ull << 10;
constexpr double kVectorsPerSender = 3.6;

// A compression's messages and scratch, in parameter vectors per agent: about two messages
// alive (the one being sent and the last one still held), each k indices and k values (d values
// when nothing is sparsified). sim/agents/agent_compression.hpp.
double compression_vectors(const CompressionSpec& c, uint64_t parameters) {
  if (!c.enabled() || parameters == 0) return 0.0;
  const double kept = static_cast<double>(c.kept(parameters)) / static_cast<double>(parameters);
  return 2.0 * (c.sparsifier == Sparsifier::kNone ? 1.0 : 2.0 * kept);
}

double optimizer_vectors(const models::OptimizerSpec& o) {
  return o.momentum == models::Momentum::kNone ? 0.0 : 1.0;
}

std::string model_pointer(const ScenarioSpec& s) {
  if (std::holds_alternative<models::MlpSpec>(s.model.arch)) return "/model/hidden";
  if (std::holds_alternative<models::CnnSpec>(s.model.arch)) return "/model/layers";
  return "/model/dim";
}

uint64_t saturating_mul(double a, double b) {
  const double v = a * b;
  return v >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(v);
}

// Probing runs one training step: past this many FLOPs (a few seconds) the model's parameters
// dominate its memory anyway, and the activations' lower bound stands in for the workspace.
constexpr double kMaxProbeFlops = 2e10;

ModelFacts model_facts(const ScenarioSpec& s, uint64_t train_batch) {
  ModelFacts f;
  if (const auto* q = std::get_if<models::QuadraticSpec>(&s.model.arch)) {
    f.parameters = q->dim;
    f.flops_per_step = 3.0 * static_cast<double>(q->dim);  // models::Model::flops_per_sample
    return f;
  }
  const models::DatasetSize d = models::dataset_size(s.data->dataset);
  const models::InputShape shape{d.channels, d.height, d.width, d.classes};
  f.sample_floats = uint64_t{d.channels} * d.height * d.width;
  RandomStream unused(s.seed, "target", 0);  // only quadratic models draw from it
  models::Model model = models::Model::build(s.model, shape, unused);
  f.parameters = static_cast<uint64_t>(model.parameter_count());
  // Evaluations run batches of eval_batch over the evaluation subset: no larger than it.
  const uint64_t eval_samples = std::min<uint64_t>(s.run.eval_samples, d.test);
  const uint64_t eval_batch = std::min<uint64_t>(s.run.eval_batch, eval_samples);
  f.batch = std::max<uint64_t>(train_batch, eval_batch);
  f.activation_bytes = static_cast<uint64_t>(model.activation_floats_per_sample()) * sizeof(float);
  const uint64_t activations =
      saturating_mul(static_cast<double>(f.activation_bytes), static_cast<double>(f.batch));
  const uint64_t vectors = saturating_mul(static_cast<double>(f.parameters), 2.0 * sizeof(float));
  const uint64_t available = available_memory_bytes().value_or(UINT64_MAX);
  const double flops =
      model.flops_per_sample(models::Phase::kTrain) * static_cast<double>(train_batch);
  f.flops_per_step = flops;
  if (activations > available / 4 || vectors > available / 4 || flops > kMaxProbeFlops) {
    f.work_bytes = activations;
    return f;
  }
  const std::optional<float> background =
      d.has_background ? std::optional<float>(0.0f) : std::nullopt;
  f.work_bytes = models::probe_workspace_bytes(
      model, shape, background, static_cast<Eigen::Index>(train_batch),
      static_cast<Eigen::Index>(eval_batch), static_cast<Eigen::Index>(eval_samples));
  return f;
}

// Async runs: the snapshots a sender keeps alive while its messages travel or wait, beyond the
// one the algorithm's own count holds. An agent copies its model once per iteration (at most);
// a copy lives until its last message has arrived. While a model crosses the slowest link
// (latency and transmission) faster than the fastest agent steps, that is the one copy already
// counted. Otherwise: the copies on the wire, those made during one wire time, as many as the
// links hold at once (a link is given one per transmission time at most); the next one, being
// made; and, once a link's transmissions take longer than the copies it is given, the send
// buffers' B waiting per destination (network.send_buffer). On a static graph of alike links an
// iteration's copy travels to every neighbour together: one destination; where links differ or
// gossip picks one neighbour at a time, every neighbour. On a dynamic overlay each iteration
// goes to s of the n - 1 others: when each link holds one copy at a time, those on the wire are
// the first ones sent to each destination, from about (n - 1) / s x H(n - 1) iterations (a
// coupon collector's), and the B waiting for each destination come from the last B (n - 1) / s
// iterations. Never more than the iterations. Measured (quadratic agents over
// 100 Mbit/s links unless said): 500 agents of 200,000 parameters, 30 iterations, peaked at
// 3.0 GiB on a ring (estimate 3.4) and 12.7 GiB with epidemic s = 7 (13.0); 100 agents of
// 200,000, 400 iterations, epidemic s = 7: 7.8 GiB (8.1); 40 agents of 20,000 over 10 Mbit/s,
// epidemic s = 3: 224 MiB after 100 iterations and 241 MiB after 3,000 (226).
double in_flight_vectors(const ScenarioSpec& s, const ModelFacts& m, const GraphDegrees& degrees,
                         AlgorithmCopies::Sends sends) {
  if (s.time.mode != TimeMode::kAsync || m.parameters == 0 || s.agents < 2 ||
      sends == AlgorithmCopies::Sends::kNone)
    return 0.0;
  const topo::TopologySpec& links = s.topology;  // with a dynamic overlay: its underlay
  uint64_t bandwidth = links.bandwidth_bps.min;
  SimTime latency = links.latency.max;
  for (const topo::EdgeOverride& o : links.overrides) {
    if (o.bandwidth_bps) bandwidth = std::min(bandwidth, *o.bandwidth_bps);
    if (o.latency) latency = std::max(latency, *o.latency);
  }
  if (s.network.nic_uplink_bps > 0) bandwidth = std::min(bandwidth, s.network.nic_uplink_bps);
  const CompressionSpec& c = s.algorithm.compression;
  const double per_message =
      c.enabled() && c.sparsifier != Sparsifier::kNone
          ? 2.0 * static_cast<double>(c.kept(m.parameters)) / static_cast<double>(m.parameters)
          : 1.0;
  const double bytes = per_message * static_cast<double>(m.parameters) * sizeof(float) +
                       static_cast<double>(s.network.header_bytes);
  const double transmit_s = 8.0 * bytes / static_cast<double>(std::max<uint64_t>(bandwidth, 1));
  const double wire_s = latency.seconds() + s.network.jitter.seconds() + transmit_s;
  const ComputeSpec& compute = s.time.compute;
  double fastest = compute.speed_max;
  if (!compute.speed_factors.empty())
    fastest *= *std::max_element(compute.speed_factors.begin(), compute.speed_factors.end());
  const double step_s =
      (compute.step ? compute.step->seconds() : m.flops_per_step / (compute.gflops * 1e9)) /
      fastest;
  const double ratio = wire_s / step_s;  // copies made while one crosses the slowest link
  if (!(ratio > 1.0)) return 0.0;        // also 0 / 0: no time on the wire, none to step
  // The links a sender uses and how many of them each iteration's copy goes to.
  double destinations = 1.0, per_iteration = 1.0;
  if (s.dynamic) {
    destinations = static_cast<double>(s.agents - 1);
    if (s.dynamic->kind == topo::DynamicKind::kEpidemic)
      per_iteration = std::max(1.0, static_cast<double>(s.dynamic->s));
  } else {
    const bool alike = links.latency.is_constant() && links.bandwidth_bps.is_constant() &&
                       links.overrides.empty() && links.kind != topo::TopologyKind::kEdgeList &&
                       links.kind != topo::TopologyKind::kDot;
    const bool one_peer = sends == AlgorithmCopies::Sends::kOnePeer;
    if (!alike || one_peer) {  // one copy travels together on alike links: one destination
      destinations = std::max(1u, degrees.largest);
      per_iteration = one_peer ? 1.0 : destinations;
    }
  }
  // A link is given a copy every `interval` at most, and each stays wire_s on it.
  const double interval = std::max(transmit_s, step_s * destinations / per_iteration);
  const double per_link = std::max(1.0, std::round(wire_s / interval));
  double on_wire = std::min(std::ceil(ratio), destinations * per_link);
  if (per_link == 1.0 && per_iteration < destinations) {
    // The copies on the wire are the first ones sent to each destination: those of the
    // iterations until every destination had one (a coupon collector's).
    double harmonic = 0.0;
    for (double j = 1.0; j <= destinations && j <= 1e6; ++j) harmonic += 1.0 / j;
    on_wire = std::min(on_wire, std::ceil(destinations / per_iteration * harmonic));
  }
  const SendBufferConfig& buffer = s.network.send_buffer;
  const double iterations = static_cast<double>(s.run.iterations);
  const double per_destination =
      buffer.messages != 0 ? static_cast<double>(buffer.messages)
      : buffer.bytes != 0  ? std::max(1.0, std::floor(static_cast<double>(buffer.bytes) / bytes))
                           : iterations;
  const bool links_fall_behind = transmit_s * per_iteration / destinations > step_s;
  const double waiting =
      links_fall_behind ? std::ceil(per_destination * destinations / per_iteration) : 0.0;
  const double copies = on_wire + waiting + 1.0;  // and the next one, being made
  return std::max(0.0, std::min(copies, iterations) - 1.0) * per_message;
}

// The key to blame for the activations: the batch when the model's would fit at ordinary batch
// sizes (kOrdinaryBatch samples per forward pass), the model otherwise.
std::string work_pointer(const ScenarioSpec& s, const ModelFacts& m, uint64_t agents,
                         uint64_t available) {
  constexpr double kOrdinaryBatch = 500;  // the default evaluation batch
  if (!s.data) return "/agents";          // quadratic: no activations
  if (saturating_mul(static_cast<double>(m.activation_bytes) * kOrdinaryBatch,
                     static_cast<double>(agents)) > available)
    return model_pointer(s);
  return m.batch > s.data->batch_size ? "/run/eval_batch" : "/data/batch_size";
}

MemoryPart data_part(const ScenarioSpec& s) {
  MemoryPart p{"data", "/data/dataset", 0, "no dataset"};
  if (!s.data) return p;
  const models::DatasetSize d = models::dataset_size(s.data->dataset);
  const double sample = static_cast<double>(d.channels) * d.height * d.width * sizeof(float) + 1;
  // Read whole, then cut to the limits (a copy), then the evaluation subset and the shards'
  // indices.
  double samples = static_cast<double>(d.train_raw + d.test_raw);
  if (d.train != d.train_raw || d.test != d.test_raw)
    samples += static_cast<double>(d.train + d.test);
  samples += std::min<double>(s.run.eval_samples, static_cast<double>(d.test));
  p.bytes = saturating_mul(samples, sample) + d.train * sizeof(uint32_t);
  p.detail = fmt::format("{} samples of {} B", samples, sample);
  return p;
}

}  // namespace

uint64_t MemoryEstimate::total_bytes() const {
  uint64_t total = 0;
  for (const MemoryPart& p : parts)
    total = p.bytes > UINT64_MAX - total ? UINT64_MAX : total + p.bytes;
  return total;
}

const MemoryPart& MemoryEstimate::largest() const {
  return *std::max_element(
      parts.begin(), parts.end(),
      [](const MemoryPart& a, const MemoryPart& b) { return a.bytes < b.bytes; });
}

// Measured: 1,024 quadratic agents over a complete underlay peaked 223 MB above the same run
// over a ring (523,776 edges: two Links, the Edge and its CSR entries, the routing table).
constexpr uint64_t kCompleteEdgeBytes = 430;

MemoryEstimator::MemoryEstimator(const ScenarioSpec& spec, uint64_t available_bytes)
    : spec_(spec), available_bytes_(available_bytes) {
  const bool centralized = spec.algorithm.descriptor->capabilities().centralized;
  batch_ = spec.data ? uint64_t{spec.data->batch_size} * (centralized ? spec.agents : 1u) : 1;
  model_ = model_facts(spec, batch_);
}

MemoryEstimate MemoryEstimator::before_graphs() const {
  return estimate(GraphDegrees{}, false, RankShare{});
}

MemoryEstimate MemoryEstimator::before_graphs(const RankShare& share) const {
  return estimate(GraphDegrees{}, false, RankShare{share.ranks, share.held, 0});
}

MemoryEstimate MemoryEstimator::estimate(const GraphDegrees& degrees) const {
  return estimate(degrees, true, RankShare{});
}

MemoryEstimate MemoryEstimator::estimate(const GraphDegrees& degrees,
                                         const RankShare& share) const {
  return estimate(degrees, true, share);
}

MemoryEstimate MemoryEstimator::estimate(const GraphDegrees& degrees, bool in_flight_part,
                                         const RankShare& share) const {
  const ScenarioSpec& s = spec_;
  const ModelFacts& m = model_;
  const uint64_t batch = batch_;
  const AlgorithmDescriptor& algorithm = *s.algorithm.descriptor;
  // Over MPI ranks a rank holds its block in full and the other agents as place-holders.
  const bool over_ranks = share.ranks > 1;
  const uint64_t agents = over_ranks ? share.held : s.agents;
  const uint64_t model_agents = algorithm.capabilities().centralized ? 1 : agents;
  // The parameter-sized vectors the algorithm holds besides each agent's x and g (snapshot pools
  // hold the buffer in use plus the one neighbours still read until the next copy arrives).
  const AlgorithmCopies copies = algorithm.copies(s, degrees);
  const bool quadratic = std::holds_alternative<models::QuadraticSpec>(s.model.arch);

  MemoryEstimate e;
  e.parameters = m.parameters;
  e.vectors_per_agent = 2.0 + optimizer_vectors(s.optimizer) + copies.per_agent +
                        compression_vectors(s.algorithm.compression, m.parameters) +
                        (quadratic ? 1.0 : 0.0);
  const double vector_bytes = static_cast<double>(m.parameters) * sizeof(float);
  const double vectors = e.vectors_per_agent * static_cast<double>(model_agents) + copies.shared;
  e.parts.push_back({"process", "", kProcessBytes, "binary, libraries, thread stacks"});
  e.parts.push_back(data_part(s));
  e.parts.push_back({"params", model_agents > m.parameters ? "/agents" : model_pointer(s),
                     saturating_mul(vectors, vector_bytes),
                     fmt::format("{} agents x {:.3g} vectors x {} parameters x 4 B", model_agents,
                                 e.vectors_per_agent, m.parameters)});
  const uint64_t batch_bytes = batch * (m.sample_floats * sizeof(float) + 1);
  e.parts.push_back({"work", work_pointer(s, m, model_agents, available_bytes_),
                     saturating_mul(static_cast<double>(model_agents),
                                    static_cast<double>(m.work_bytes + batch_bytes)),
                     fmt::format("{} agents x {} of activations and scratch", model_agents,
                                 format_bytes(m.work_bytes + batch_bytes))});
  const double in_flight =
      in_flight_part ? in_flight_vectors(s, m, degrees, copies.async_sends) : 0.0;
  if (in_flight > 0.0)
    e.parts.push_back(
        {"in flight", "/network/bandwidth",
         saturating_mul(in_flight * static_cast<double>(agents), vector_bytes),
         fmt::format("{} agents x {:.3g} copies kept while messages travel x {} parameters x 4 B",
                     agents, in_flight, m.parameters)});
  if (over_ranks && share.senders > 0)
    e.parts.push_back(
        {"ranks", "/agents",
         saturating_mul(kVectorsPerSender * static_cast<double>(share.senders), vector_bytes),
         fmt::format("{} other ranks' agents sending here x {:.3g} copies x {} parameters x 4 B",
                     share.senders, kVectorsPerSender, m.parameters)});
  // An attacker that crafts its messages makes one vector per honest target where an honest
  // sender shares one snapshot: its targets hold the last ones while it makes the next.
  if (s.byzantine && s.byzantine->crafts_messages()) {
    const double crafted =
        static_cast<double>(s.byzantine->agents.size()) * 2.0 * degrees.largest;
    e.parts.push_back({"crafted", "/byzantine", saturating_mul(crafted, vector_bytes),
                       fmt::format("{} attackers x 2 x {} neighbours' crafted vectors x {} "
                                   "parameters x 4 B",
                                   s.byzantine->agents.size(), degrees.largest, m.parameters)});
  }
  if (over_ranks)
    e.parts.push_back(
        {"agents", "/agents", agents * kAgentBytes + (s.agents - agents) * kPlaceHolderBytes,
         fmt::format("{} agents x {} and {} place-holders x {}", agents, format_bytes(kAgentBytes),
                     s.agents - agents, format_bytes(kPlaceHolderBytes))});
  else
    e.parts.push_back({"agents", "/agents", s.agents * kAgentBytes,
                       fmt::format("{} agents x {}", s.agents, format_bytes(kAgentBytes))});
  // A complete physical graph (the default underlay of a dynamic topology) is n(n-1)/2 edges,
  // each two links and its graph entries; the other kinds have O(n) edges, inside "agents".
  // Markov link failures add each edge's state: its stream, flag, last failure, pending change.
  // An implicit complete underlay keeps only the links busy at once (complete_links.hpp).
  if (s.topology.kind == topo::TopologyKind::kComplete && s.agents > 1 &&
      !implicit_complete_underlay(s)) {
    const double edges = static_cast<double>(s.agents) * (s.agents - 1) / 2.0;
    const uint64_t per_edge =
        kCompleteEdgeBytes + (s.network.failures.kind == FailureKind::kMarkov
                                  ? sizeof(RandomStream) + 1 + 2 * sizeof(SimTime) + 8
                                  : 0);
    e.parts.push_back({"links", s.dynamic ? "/network/underlay" : "/topology",
                       saturating_mul(edges, static_cast<double>(per_edge)),
                       fmt::format("{:.0f} edges of a complete graph x {} B", edges, per_edge)});
  }
  return e;
}

void check_memory_fits(const ScenarioSpec& s, const MemoryEstimate& e, uint64_t available_bytes) {
  const uint64_t total = e.total_bytes();
  if (total <= available_bytes) return;
  const MemoryPart& big = e.largest();
  throw InputError(fmt::format(
      "{}: {}: the run needs an estimated {} ({} for {}: {}) but {} of memory is available", s.file,
      big.pointer, format_bytes(total), format_bytes(big.bytes), big.name, big.detail,
      format_bytes(available_bytes)));
}

std::string format_bytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024 * 1024)
    return fmt::format("{:.3g} TiB", b / (1024.0 * 1024 * 1024 * 1024));
  if (b >= 1024.0 * 1024 * 1024) return fmt::format("{:.3g} GiB", b / (1024.0 * 1024 * 1024));
  if (b >= 1024.0 * 1024) return fmt::format("{:.3g} MiB", b / (1024.0 * 1024));
  return fmt::format("{:.3g} KiB", b / 1024.0);
}

}  // namespace dlsim
