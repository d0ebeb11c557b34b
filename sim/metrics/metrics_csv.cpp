#include "sim/metrics/metrics_csv.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

std::string cell(double v) { return std::isnan(v) ? std::string() : fmt::format("{:.9g}", v); }

}  // namespace

MetricsCsv::MetricsCsv(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "w")) {
  if (!file_) throw InputError(fmt::format("{}: cannot create the file", path));
  fmt::print(file_,
             "iteration,time_s,agent,test_loss,test_accuracy,distance_to_optimum,events,"
             "messages_sent,bytes_sent,consensus_distance\n");
}

MetricsCsv::~MetricsCsv() {
  if (file_) std::fclose(file_);
}

void MetricsCsv::write(const EvalPoint& p) {
  const std::string time = fmt::format("{:.9g}", p.time.seconds());
  const std::string consensus = cell(p.consensus_distance);
  uint64_t events = 0, messages = 0, bytes = 0;
  for (size_t i = 0; i < p.agents.size(); ++i) {
    const AgentPoint& a = p.agents[i];
    fmt::print(file_, "{},{},{},{},{},{},{},{},{},{}\n", p.iteration, time, i, cell(a.score.loss),
               cell(a.score.accuracy), cell(a.score.optimum_distance), a.events, a.messages_sent,
               a.bytes_sent, consensus);
    events += a.events;
    messages += a.messages_sent;
    bytes += a.bytes_sent;
  }
  fmt::print(file_, "{},{},avg,{},{},{},{},{},{},{}\n", p.iteration, time, cell(p.aggregate.loss),
             cell(p.aggregate.accuracy), cell(p.aggregate.optimum_distance), events, messages,
             bytes, consensus);
  if (p.center) {
    fmt::print(file_, "{},{},center,{},{},{},0,{},{},{}\n", p.iteration, time, cell(p.center->loss),
               cell(p.center->accuracy), cell(p.center->optimum_distance), p.center_messages_sent,
               p.center_bytes_sent, consensus);
  }
}

void MetricsCsv::close() {
  if (!file_) return;
  const bool failed = std::ferror(file_) != 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed || !closed) throw InputError(fmt::format("{}: write failed", path_));
}

}  // namespace dlsim
