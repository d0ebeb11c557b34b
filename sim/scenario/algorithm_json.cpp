#include "sim/scenario/algorithm_json.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/units.hpp"
#include "sim/scenario/compression_json.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

constexpr std::pair<const char*, AlgorithmKind> kAlgorithms[] = {
    {"centralized", AlgorithmKind::kCentralized}, {"none", AlgorithmKind::kNone},
    {"dpsgd", AlgorithmKind::kDpsgd},             {"detsgrad", AlgorithmKind::kDetsgrad},
    {"gossip", AlgorithmKind::kGossip},           {"elastic_gossip", AlgorithmKind::kElasticGossip},
    {"allreduce", AlgorithmKind::kAllReduce},     {"local_sgd", AlgorithmKind::kLocalSgd},
    {"easgd", AlgorithmKind::kEasgd},             {"choco", AlgorithmKind::kChoco},
    {"eventgrad", AlgorithmKind::kEventgrad}};

// Algorithms whose messages carry parameter vectors that a `compression` may code.
bool takes_compression(AlgorithmKind kind) {
  switch (kind) {
    case AlgorithmKind::kDetsgrad:
    case AlgorithmKind::kDpsgd:
    case AlgorithmKind::kGossip:
    case AlgorithmKind::kElasticGossip:
    case AlgorithmKind::kChoco: return true;
    default: return false;
  }
}

topo::MixingRule parse_mixing(JsonObject& o) {
  const std::string rule = o.string("weights", "metropolis_hastings");
  const auto parsed = topo::mixing_rule_from_string(rule);
  if (!parsed)
    o.fail("weights", fmt::format("expected \"metropolis_hastings\", \"max_degree\" or "
                                  "\"uniform\", got \"{}\"", rule));
  return *parsed;
}

constexpr std::pair<const char*, MixingOrder> kOrders[] = {
    {"combine_then_adapt", MixingOrder::kCombineThenAdapt},
    {"adapt_then_combine", MixingOrder::kAdaptThenCombine}};

MixingOrder parse_order(JsonObject& o) {
  return o.choice<MixingOrder>("order", {kOrders[0], kOrders[1]}, MixingOrder::kCombineThenAdapt);
}

std::string_view to_string(MixingOrder order) {
  for (const auto& [name, o] : kOrders)
    if (o == order) return name;
  return "?";
}

DetsgradSpec parse_detsgrad(JsonObject& o, uint32_t agents, bool& scale_is_n) {
  DetsgradSpec d;
  d.alpha.a = o.number("a", 0.1, 0.0);
  d.alpha.d = o.number("da", 1.0, 0.0);
  d.beta.a = o.number("b", 2.525 * d.alpha.a, 0.0);
  d.beta.d = o.number("db", 0.1, 0.0);
  d.alpha.eps = d.beta.eps = o.number("eps", 1e-5, 0.0);
  scale_is_n = o.has("gradient_scale") && o.raw("gradient_scale").is_string();
  if (scale_is_n) {
    if (o.string("gradient_scale") != "n")
      o.fail("gradient_scale", "expected 1 or \"n\" (the number of agents)");
    d.gradient_scale = agents;
  } else {
    d.gradient_scale = o.number("gradient_scale", 1.0, 0.0);
  }
  d.consensus = o.choice<ConsensusBase>(
      "consensus", {{"broadcast", ConsensusBase::kBroadcast}, {"state", ConsensusBase::kState}},
      ConsensusBase::kBroadcast);
  d.local_steps = o.integer("local_steps", 1, 1);
  return d;
}

// The server's links default to the network's (the topology's constant edge values).
EasgdSpec parse_easgd(JsonObject& o, uint32_t agents, const topo::TopologySpec& topology) {
  EasgdSpec e;
  e.alpha = o.number("alpha", 0.1, 0.0, 1.0);
  if (e.alpha <= 0.0) o.fail("alpha", "the moving rate must be in (0, 1], got 0");
  JsonObject server = o.object("server", true);
  if (server.has("latency")) {
    e.server_latency = server.duration("latency");
  } else if (topology.latency.is_constant()) {
    e.server_latency = topology.latency.min;
  } else {
    server.fail("latency", "required when the topology draws its latencies from a range");
  }
  if (server.has("bandwidth")) {
    e.server_bandwidth_bps = server.rate_bps("bandwidth");
  } else if (topology.bandwidth_bps.is_constant()) {
    e.server_bandwidth_bps = topology.bandwidth_bps.min;
  } else {
    server.fail("bandwidth", "required when the topology draws its bandwidths from a range");
  }
  const bool all = !server.has("links") ||
                   (server.raw("links").is_string() && server.string("links") == "all");
  if (!all) {
    if (server.raw("links").is_string())
      server.fail("links", "expected \"all\" or a list of agent ids");
    const std::vector<int64_t> ids = server.integers("links", 0, int64_t{agents} - 1);
    if (ids.empty()) server.fail("links", "the server needs at least one link");
    for (int64_t id : ids) e.server_links.push_back(static_cast<uint32_t>(id));
    std::sort(e.server_links.begin(), e.server_links.end());
    if (std::adjacent_find(e.server_links.begin(), e.server_links.end()) != e.server_links.end())
      server.fail("links", "an agent is listed twice");
  }
  server.finish();
  return e;
}

}  // namespace

std::string_view to_string(AlgorithmKind kind) {
  for (const auto& [name, k] : kAlgorithms)
    if (k == kind) return name;
  return "?";
}

AlgorithmSpec parse_algorithm(JsonObject o, uint32_t agents, const topo::TopologySpec& topology) {
  AlgorithmSpec a;
  a.kind = o.choice<AlgorithmKind>(
      "kind", {kAlgorithms[0], kAlgorithms[1], kAlgorithms[2], kAlgorithms[3], kAlgorithms[4],
               kAlgorithms[5], kAlgorithms[6], kAlgorithms[7], kAlgorithms[8], kAlgorithms[9],
               kAlgorithms[10]});
  switch (a.kind) {
    case AlgorithmKind::kDetsgrad:
      a.detsgrad = parse_detsgrad(o, agents, a.gradient_scale_is_n);
      break;
    case AlgorithmKind::kGossip:
      a.gossip_mode = o.choice<GossipMode>("mode", {{"pull", GossipMode::kPull},
                                                    {"push", GossipMode::kPush}},
                                           GossipMode::kPull);
      a.order = parse_order(o);
      break;
    case AlgorithmKind::kElasticGossip: a.elastic_alpha = o.number("alpha", 0.5, 0.0, 1.0); break;
    case AlgorithmKind::kEasgd: a.easgd = parse_easgd(o, agents, topology); break;
    case AlgorithmKind::kDpsgd:
      a.mixing = parse_mixing(o);
      a.order = parse_order(o);
      break;
    case AlgorithmKind::kEventgrad: a.mixing = parse_mixing(o); break;
    case AlgorithmKind::kChoco:
      a.mixing = parse_mixing(o);
      a.choco_gamma = o.number("gamma", {}, 0.0, 1.0);
      if (a.choco_gamma <= 0.0) o.fail("gamma", "the consensus step size must be in (0, 1], got 0");
      a.local_steps = o.integer("local_steps", 1, 1);
      break;
    default: break;
  }
  if (o.has("compression")) {
    if (!takes_compression(a.kind))
      o.fail("compression",
             fmt::format("algorithm \"{}\" takes no compression (see scenarios/README.md, "
                         "\"compression\"); remove this key", to_string(a.kind)));
    a.compression = parse_compression(o.raw("compression"), o.file(),
                                      child_pointer(o.pointer(), "compression"));
  }
  o.finish();
  return a;
}

json algorithm_to_json(const AlgorithmSpec& a) {
  json j = {{"kind", std::string(to_string(a.kind))}};
  switch (a.kind) {
    case AlgorithmKind::kDetsgrad: {
      const DetsgradSpec& d = a.detsgrad;
      j.update({{"a", d.alpha.a}, {"da", d.alpha.d}, {"b", d.beta.a}, {"db", d.beta.d},
                {"eps", d.alpha.eps},
                {"consensus", d.consensus == ConsensusBase::kBroadcast ? "broadcast" : "state"}});
      if (a.gradient_scale_is_n) j["gradient_scale"] = "n";
      else j["gradient_scale"] = d.gradient_scale;
      j["local_steps"] = d.local_steps;
      break;
    }
    case AlgorithmKind::kGossip:
      j["mode"] = a.gossip_mode == GossipMode::kPull ? "pull" : "push";
      j["order"] = std::string(to_string(a.order));
      break;
    case AlgorithmKind::kElasticGossip: j["alpha"] = a.elastic_alpha; break;
    case AlgorithmKind::kEasgd: {
      const EasgdSpec& e = a.easgd;
      j["alpha"] = e.alpha;
      j["server"] = {{"latency", format_duration(e.server_latency)},
                     {"bandwidth", format_rate(e.server_bandwidth_bps)},
                     {"links", e.server_links.empty() ? json("all") : json(e.server_links)}};
      break;
    }
    case AlgorithmKind::kDpsgd:
      j["weights"] = std::string(topo::to_string(a.mixing));
      j["order"] = std::string(to_string(a.order));
      break;
    case AlgorithmKind::kEventgrad: j["weights"] = std::string(topo::to_string(a.mixing)); break;
    case AlgorithmKind::kChoco:
      j["weights"] = std::string(topo::to_string(a.mixing));
      j["gamma"] = a.choco_gamma;
      j["local_steps"] = a.local_steps;
      break;
    default: break;
  }
  if (a.compression.enabled()) j["compression"] = compression_to_json(a.compression);
  return j;
}

namespace {

// Which trigger kinds an algorithm takes; empty: it takes no trigger.
std::vector<TriggerKind> accepted_triggers(AlgorithmKind kind) {
  using T = TriggerKind;
  switch (kind) {
    case AlgorithmKind::kDetsgrad:
      return {T::kAlways, T::kNever, T::kPeriodic, T::kProbability, T::kThreshold, T::kAdaptive};
    case AlgorithmKind::kChoco:
      return {T::kAlways, T::kNever, T::kPeriodic, T::kProbability, T::kThreshold};
    case AlgorithmKind::kEventgrad: return {T::kThreshold, T::kAdaptive};
    case AlgorithmKind::kGossip:
    case AlgorithmKind::kElasticGossip: return {T::kAlways, T::kNever, T::kPeriodic, T::kProbability};
    case AlgorithmKind::kEasgd:
      return {T::kAlways, T::kNever, T::kPeriodic, T::kProbability, T::kThreshold};
    case AlgorithmKind::kLocalSgd: return {T::kAlways, T::kPeriodic};
    default: return {};
  }
}

// Which algorithms decide per tensor with a threshold (granularity "layer").
bool takes_layer_granularity(AlgorithmKind kind) {
  return kind == AlgorithmKind::kDetsgrad || kind == AlgorithmKind::kEventgrad;
}

TriggerSpec parse_trigger_object(JsonObject o, AlgorithmKind algorithm) {
  TriggerSpec t;
  t.kind = o.choice<TriggerKind>("kind", {{"always", TriggerKind::kAlways},
                                          {"never", TriggerKind::kNever},
                                          {"periodic", TriggerKind::kPeriodic},
                                          {"probability", TriggerKind::kProbability},
                                          {"threshold", TriggerKind::kThreshold},
                                          {"adaptive", TriggerKind::kAdaptive}});
  if (t.kind == TriggerKind::kPeriodic) t.period = o.integer("tau", {}, 1);
  if (t.kind == TriggerKind::kProbability) t.probability = o.number("p", {}, 0.0, 1.0);
  if (t.kind == TriggerKind::kThreshold) {
    t.v0 = o.number_or_inf("v0", {}, 0.0);
    t.form = o.choice<ThresholdForm>("form", {{"decay", ThresholdForm::kDecay},
                                              {"alpha", ThresholdForm::kAlpha}},
                                     ThresholdForm::kDecay);
    if (t.form == ThresholdForm::kDecay) {
      t.decay = o.number("decay", 0.1, 0.0);
      t.eps = o.number("eps", 1e-5, 0.0);
    }
    t.norm = o.choice<DriftNorm>("norm", {{"l2", DriftNorm::kL2}, {"l1", DriftNorm::kL1},
                                          {"linf", DriftNorm::kLinf}},
                                 DriftNorm::kL2);
    // EventGraD decides per tensor by nature; elsewhere the whole model is the default.
    const bool eventgrad = algorithm == AlgorithmKind::kEventgrad;
    t.granularity = o.choice<Granularity>(
        "granularity", {{"model", Granularity::kModel}, {"layer", Granularity::kLayer}},
        eventgrad ? Granularity::kLayer : Granularity::kModel);
    if (t.granularity == Granularity::kLayer && !takes_layer_granularity(algorithm))
      o.fail("granularity", fmt::format("algorithm \"{}\" decides on the whole model; per-tensor "
                                        "thresholds are for \"detsgrad\" and \"eventgrad\"",
                                        to_string(algorithm)));
    if (t.granularity == Granularity::kModel && eventgrad)
      o.fail("granularity", "\"eventgrad\" decides per tensor: use \"layer\"");
  }
  if (t.kind == TriggerKind::kAdaptive) {
    t.granularity = Granularity::kLayer;
    t.horizon = o.number("horizon", {}, 0.0);
    if (t.horizon <= 0.0 || !std::isfinite(t.horizon))
      o.fail("horizon", fmt::format("the threshold's factor per iteration must be positive and "
                                    "finite, got {}", t.horizon));
    t.warmup = o.integer("warmup", 30, 0);
  }
  o.finish();
  return t;
}

}  // namespace

std::optional<TriggerSpec> parse_trigger(const json* trigger, const std::string& file,
                                         const std::string& pointer, AlgorithmKind algorithm) {
  const std::vector<TriggerKind> accepted = accepted_triggers(algorithm);
  const std::string name(to_string(algorithm));
  if (accepted.empty()) {
    if (trigger)
      throw InputError(fmt::format("{}: {}: algorithm \"{}\" takes no trigger; remove it", file,
                                   pointer, name));
    return std::nullopt;
  }
  if (!trigger)
    throw InputError(fmt::format("{}: {}: algorithm \"{}\" needs a trigger", file, pointer, name));
  const TriggerSpec t = parse_trigger_object(JsonObject(*trigger, file, pointer), algorithm);
  if (std::find(accepted.begin(), accepted.end(), t.kind) == accepted.end())
    throw InputError(fmt::format("{}: {}/kind: algorithm \"{}\" does not take a \"{}\" trigger",
                                 file, pointer, name, to_string(t.kind)));
  return t;
}

json trigger_to_json(const TriggerSpec& t) {
  json j = {{"kind", std::string(to_string(t.kind))}};
  switch (t.kind) {
    case TriggerKind::kPeriodic: j["tau"] = t.period; break;
    case TriggerKind::kProbability: j["p"] = t.probability; break;
    case TriggerKind::kThreshold:
      if (std::isinf(t.v0)) j["v0"] = "inf";
      else j["v0"] = t.v0;
      j["form"] = std::string(to_string(t.form));
      if (t.form == ThresholdForm::kDecay) {
        j["decay"] = t.decay;
        j["eps"] = t.eps;
      }
      j["norm"] = std::string(to_string(t.norm));
      j["granularity"] = std::string(to_string(t.granularity));
      break;
    case TriggerKind::kAdaptive:
      j["horizon"] = t.horizon;
      j["warmup"] = t.warmup;
      break;
    default: break;
  }
  return j;
}

}  // namespace dlsim
