#include "sim/scenario/run_json.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/scenario/failures_json.hpp"

namespace dlsim {

using nlohmann::json;

namespace {

// "uplink": "1Gbps" (every agent) or ["1Gbps", "100Mbps", ...] (one per agent).
void read_nic(JsonObject& nic, const std::string& key, uint32_t agents, uint64_t& every,
              std::vector<uint64_t>& each) {
  every = 0;
  each.clear();
  if (!nic.has(key)) return;
  if (!nic.raw(key).is_array()) {
    every = nic.rate_bps(key);
    return;
  }
  const json& list = nic.raw(key);
  const std::string where = child_pointer(nic.pointer(), key);
  if (list.size() != agents)
    nic.fail(key, fmt::format("{} rates for {} agents: give one per agent, or one string for all",
                              list.size(), agents));
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = child_pointer(where, i);
    if (!list[i].is_string())
      throw InputError(fmt::format("{}: {}: expected a rate such as \"1Gbps\", got {}",
                                   nic.file(), at, list[i].dump()));
    try {
      each.push_back(parse_rate_bps(list[i].get<std::string>()));
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}: {}", nic.file(), at, e.what()));
    }
  }
}

json nic_to_json(uint64_t every, const std::vector<uint64_t>& each) {
  if (each.empty()) return format_rate(every);
  json list = json::array();
  for (const uint64_t bps : each) list.push_back(format_rate(bps));
  return list;
}

// "send_buffer": 2 (messages) or "64KB" (bytes); "when_full": "coalesce", "block" or "drop".
void read_send_buffer(JsonObject& o, SendBufferConfig& b) {
  b = SendBufferConfig{};
  b.messages = kDefaultSendBufferMessages;
  if (o.has("send_buffer")) {
    const json& v = o.raw("send_buffer");
    if (v.is_string()) {
      b.messages = 0;
      b.bytes = o.size_bytes("send_buffer");
      if (b.bytes == 0) o.fail("send_buffer", "expected a size of at least 1 byte, got \"0\"");
    } else if (v.is_number()) {
      b.messages = static_cast<uint64_t>(o.integer("send_buffer", {}, 1, int64_t{1} << 40));
    } else {
      o.fail("send_buffer", fmt::format("expected a number of messages (an integer >= 1) or a "
                                        "size such as \"64KB\", got {}",
                                        v.dump()));
    }
  }
  b.when_full = o.choice<WhenFull>(
      "when_full",
      {{"coalesce", WhenFull::kCoalesce}, {"block", WhenFull::kBlock}, {"drop", WhenFull::kDrop}},
      WhenFull::kCoalesce);
}

json send_buffer_to_json(const SendBufferConfig& b) {
  return b.bytes != 0 ? json(format_size(b.bytes)) : json(b.messages);
}

const char* when_full_name(WhenFull w) {
  switch (w) {
    case WhenFull::kBlock:
      return "block";
    case WhenFull::kDrop:
      return "drop";
    default:
      return "coalesce";
  }
}

}  // namespace

NetworkConfig parse_network(JsonObject o, topo::TopologySpec& topology,
                            const json& topology_json, uint32_t agents) {
  NetworkConfig n;
  if (o.has("latency")) {
    const SimTime latency = o.duration("latency");
    if (!topology_json.contains("latency")) topology.latency = {latency, latency};
  }
  if (o.has("bandwidth")) {
    const uint64_t bps = o.rate_bps("bandwidth");
    if (!topology_json.contains("bandwidth")) topology.bandwidth_bps = {bps, bps};
  }
  n.loss_probability = o.number("loss", 0.0, 0.0, 1.0);
  n.jitter = o.duration("jitter", SimTime{});
  n.header_bytes = o.size_bytes("header", 0);
  read_send_buffer(o, n.send_buffer);
  n.sharing = o.choice<Sharing>("sharing", {{"fifo", Sharing::kFifo}, {"maxmin", Sharing::kMaxMin}},
                                Sharing::kFifo);
  if (o.has("failures")) n.failures = parse_link_failures(o.object("failures"), agents);
  JsonObject nic = o.object("nic", true);
  read_nic(nic, "uplink", agents, n.nic_uplink_bps, n.nic_uplink_bps_per_agent);
  read_nic(nic, "downlink", agents, n.nic_downlink_bps, n.nic_downlink_bps_per_agent);
  nic.finish();
  o.finish();
  return n;
}

json network_to_json(const NetworkConfig& n) {
  json j = {{"loss", n.loss_probability},
            {"jitter", format_duration(n.jitter)},
            {"header", format_size(n.header_bytes)},
            {"send_buffer", send_buffer_to_json(n.send_buffer)},
            {"when_full", when_full_name(n.send_buffer.when_full)},
            {"sharing", n.sharing == Sharing::kMaxMin ? "maxmin" : "fifo"},
            {"nic", json::object()}};
  if (n.nic_uplink_bps || !n.nic_uplink_bps_per_agent.empty())
    j["nic"]["uplink"] = nic_to_json(n.nic_uplink_bps, n.nic_uplink_bps_per_agent);
  if (n.nic_downlink_bps || !n.nic_downlink_bps_per_agent.empty())
    j["nic"]["downlink"] = nic_to_json(n.nic_downlink_bps, n.nic_downlink_bps_per_agent);
  if (n.failures.kind != FailureKind::kNone) j["failures"] = link_failures_to_json(n.failures);
  return j;
}

TimeSpec parse_time(JsonObject o, uint32_t agents) {
  TimeSpec t;
  t.mode = o.choice<TimeMode>("mode", {{"sync", TimeMode::kSync}, {"async", TimeMode::kAsync}},
                              TimeMode::kSync);
  JsonObject c = o.object("compute", true);
  ComputeSpec& s = t.compute;
  if (c.has("step")) {
    if (c.has("gflops")) c.fail("gflops", "give either \"step\" or \"gflops\", not both");
    s.step = c.duration("step");
  } else {
    s.gflops = c.number("gflops", 50.0, 1e-9);
  }
  if (c.has("speeds")) {
    s.speed_factors = c.numbers("speeds", 1e-9, 1e9);
    if (s.speed_factors.size() != agents)
      c.fail("speeds", fmt::format("expected one speed factor per agent ({}), got {}", agents,
                                   s.speed_factors.size()));
  }
  if (c.has("heterogeneity")) {
    JsonObject h = c.object("heterogeneity");
    s.speed_min = h.number("min", {}, 1e-9);
    s.speed_max = h.number("max", {}, s.speed_min);
    h.finish();
  }
  if (c.has("stragglers")) {
    JsonObject st = c.object("stragglers");
    s.straggler_fraction = st.number("fraction", {}, 0.0, 1.0);
    s.straggler_factor = st.number("factor", {}, 1.0);
    st.finish();
  }
  c.finish();
  o.finish();
  return t;
}

json time_to_json(const TimeSpec& t) {
  const ComputeSpec& s = t.compute;
  json c = json::object();
  if (s.step) c["step"] = format_duration(*s.step);
  else c["gflops"] = s.gflops;
  if (!s.speed_factors.empty()) c["speeds"] = s.speed_factors;
  c["heterogeneity"] = {{"min", s.speed_min}, {"max", s.speed_max}};
  c["stragglers"] = {{"fraction", s.straggler_fraction}, {"factor", s.straggler_factor}};
  return {{"mode", t.mode == TimeMode::kSync ? "sync" : "async"}, {"compute", c}};
}

RunSpec parse_run(JsonObject o) {
  RunSpec r;
  r.iterations = o.integer("iterations", {}, 1, int64_t{1} << 40);
  // Above the iterations it evaluates at 0 and at the end (the world warns): shortening a run
  // with --set /run/iterations needs no second edit.
  r.eval_every = o.integer("eval_every", 0, 0);
  r.eval_samples = static_cast<uint32_t>(o.integer("eval_samples", 2000, 1, 100000000));
  r.eval_batch = static_cast<uint32_t>(o.integer("eval_batch", 500, 1, 1 << 20));
  o.finish();
  return r;
}

json run_to_json(const RunSpec& r) {
  return {{"iterations", r.iterations}, {"eval_every", r.eval_every},
          {"eval_samples", r.eval_samples}, {"eval_batch", r.eval_batch}};
}

}  // namespace dlsim
