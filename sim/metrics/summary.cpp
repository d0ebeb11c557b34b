#include "sim/metrics/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <sys/resource.h>

#include "sim/core/huge_pages.hpp"

namespace dlsim {

using nlohmann::json;

std::string fingerprint_string(uint64_t fingerprint) { return fmt::format("0x{:016x}", fingerprint); }

namespace {

// The process's peak resident memory so far, in MiB (getrusage: KiB on Linux).
double peak_rss_mb() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return std::nan("");
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// NaN is not JSON: absent values are null.
json number(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

json final_section(bool quadratic, const EvalPoint& p) {
  double sum = 0, lo = INFINITY, hi = -INFINITY, loss = 0, honest = 0;
  for (const AgentPoint& a : p.agents) {
    if (a.byzantine) continue;
    ++honest;
    sum += a.score.accuracy;
    lo = std::min(lo, a.score.accuracy);
    hi = std::max(hi, a.score.accuracy);
    loss += a.score.loss;
  }
  const double n = honest;
  json f = {{"iteration", p.iteration},
            {"loss_mean", number(loss / n)},
            {"consensus_distance", number(p.consensus_distance)}};
  if (quadratic) {
    double distance = 0;
    for (const AgentPoint& a : p.agents)
      if (!a.byzantine) distance += a.score.optimum_distance;
    f["distance_to_optimum"] = number(distance / n);
    f["distance_to_optimum_aggregate"] = number(p.aggregate.optimum_distance);
    if (p.center) f["distance_to_optimum_center"] = number(p.center->score.optimum_distance);
  } else {
    f.update({{"accuracy_mean", number(sum / n)}, {"accuracy_min", number(lo)},
              {"accuracy_max", number(hi)}, {"accuracy_aggregate", number(p.aggregate.accuracy)},
              {"loss_aggregate", number(p.aggregate.loss)}});
    if (p.center) {
      f.update({{"accuracy_center", number(p.center->score.accuracy)},
                {"loss_center", number(p.center->score.loss)}});
    }
  }
  return f;
}

// EventGraD's savings in tensor sends, 1 - sends / (neighbours x tensors x agents x iterations),
// with "neighbours" read as the messages that carry tensors per event (docs/algorithms.md,
// "Per-tensor send counts"): 1 - (sends / (tensors x model messages)) x (events / decisions).
// Null when no message carried tensors (all-reduce, no communication).
json tensor_savings(const NodeTraffic& total, size_t tensors, double decisions) {
  if (total.model_messages == 0 || total.events == 0 || decisions <= 0) return nullptr;
  const double per_message = static_cast<double>(total.tensor_sends) /
                             (static_cast<double>(tensors) * static_cast<double>(total.model_messages));
  return 1.0 - per_message * static_cast<double>(total.events) / decisions;
}

json tensor_sends_by_name(const CommRecorder& comm) {
  json by_name = json::object();
  for (size_t p = 0; p < comm.tensor_names().size(); ++p)
    by_name[comm.tensor_names()[p]] = comm.tensor_sends()[p];
  return by_name;
}

}  // namespace

json make_summary(const RunFacts& facts, const CommRecorder& comm, const EvalPoint* last) {
  const NodeTraffic total = comm.total();
  json per_agent = json::array();
  for (uint32_t i = 0; i < facts.agents; ++i) per_agent.push_back(comm.node(AgentId{i}).events);
  json blocked_per_agent = json::array();
  for (uint32_t i = 0; i < facts.agents; ++i)
    blocked_per_agent.push_back(comm.node(AgentId{i}).blocked.seconds());
  const RunTimes& t = facts.times;
  const double events = static_cast<double>(total.events);
  json s = {{"name", facts.name},
            {"status", facts.diverged ? "diverged" : "ok"},
            {"fingerprint", fingerprint_string(facts.fingerprint)},
            {"agents", facts.agents},
            {"parameters", facts.parameters},
            {"algorithm", facts.algorithm},
            {"iterations", facts.iterations_done},
            {"comm", {{"events", total.events},
                      {"events_per_agent", per_agent},
                      {"messages", total.sent.messages},
                      {"bytes", total.sent.bytes},
                      {"bytes_uncompressed", total.sent.bytes + total.bytes_saved},
                      {"compression_ratio",
                       total.sent.bytes > 0 ? static_cast<double>(total.sent.bytes +
                                                                  total.bytes_saved) /
                                                  static_cast<double>(total.sent.bytes)
                                            : 1.0},
                      {"messages_dropped", total.dropped.messages},
                      {"dropped_by_reason", {{"loss", comm.dropped(DropReason::kLoss)},
                                             {"offline", comm.dropped(DropReason::kOffline)},
                                             {"link_down", comm.dropped(DropReason::kLinkDown)}}},
                      {"send_buffers", {{"superseded", total.superseded.messages},
                                        {"dropped", total.buffer_dropped.messages},
                                        {"peak_queued_bytes", comm.peak_queued_bytes()},
                                        {"blocked_s", total.blocked.seconds()},
                                        {"blocked_s_per_agent", blocked_per_agent}}},
                      {"savings", facts.decisions > 0 ? 1.0 - events / facts.decisions : 0.0},
                      {"tensor_sends", total.tensor_sends},
                      {"tensor_sends_by_name", tensor_sends_by_name(comm)},
                      {"tensor_savings",
                       tensor_savings(total, comm.tensor_names().size(), facts.decisions)}}},
            {"time", {{"simulated_s", facts.simulated.seconds()},
                      {"wall_s", t.wall_s},
                      {"build_s", t.build_s},
                      {"eval_s", t.eval_s},
                      {"training_s", t.training_s},
                      {"events_s", t.events_s},
                      {"updates_s", t.updates_s},
                      {"events_processed", facts.events_processed},
                      {"peak_rss_mb", number(peak_rss_mb())},
                      {"memory_estimate_mb",
                       static_cast<double>(facts.memory_estimate_bytes) / (1024.0 * 1024.0)},
                      {"huge_pages", malloc_huge_pages()}}},
            {"warnings", facts.warnings},
            {"resumes", facts.resumes},
            {"ranks", {{"count", facts.ranks}, {"virtual", facts.virtual_ranks}}},
            {"checkpoints",
             {{"written", facts.checkpoints.written},
              {"seconds", facts.checkpoints.seconds},
              {"last_mb", static_cast<double>(facts.checkpoints.last_bytes) / (1024.0 * 1024.0)}}}};
  if (!facts.byzantine.empty()) {
    // Their messages are part of comm's totals too; here on their own.
    uint64_t messages = 0, bytes = 0;
    for (uint32_t b : facts.byzantine) {
      messages += comm.node(AgentId{b}).sent.messages;
      bytes += comm.node(AgentId{b}).sent.bytes;
    }
    s["byzantine"] = {{"agents", facts.byzantine}};
    s["comm"]["byzantine_messages"] = messages;
    s["comm"]["byzantine_bytes"] = bytes;
  }
  if (last) s["final"] = final_section(facts.quadratic, *last);
  // Per-agent class counts of the shards (empty for quadratic and centralized runs).
  s["shards"] = {{"class_counts", facts.class_counts}};
  if (facts.diverged)
    s["diverged"] = {{"iteration", facts.diverged->iteration},
                     {"agent", facts.diverged->agent},
                     {"in", facts.diverged->in}};
  return s;
}

}  // namespace dlsim
