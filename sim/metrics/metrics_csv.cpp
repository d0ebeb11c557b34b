#include "sim/metrics/metrics_csv.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "sim/core/error.hpp"

namespace dlsim {
namespace {

std::string cell(double v) { return std::isnan(v) ? std::string() : fmt::format("{:.9g}", v); }

}  // namespace

MetricsCsv::MetricsCsv(const std::string& path)
    : path_(path), file_(std::fopen(path.c_str(), "w")) {
  if (!file_)
    throw EnvironmentError(
        fmt::format("{}: cannot create the file: {}", path, std::strerror(errno)));
  fmt::print(file_,
             "iteration,time_s,agent,test_loss,test_accuracy,distance_to_optimum,events,"
             "messages_sent,bytes_sent,consensus_distance,online,tensor_sends\n");
}

MetricsCsv::MetricsCsv(const std::string& path, uint64_t size) : path_(path) {
  std::error_code ec;
  const uint64_t found = std::filesystem::file_size(path, ec);
  if (ec || found < size)
    throw InputError(fmt::format("{}: holds {} bytes, but the checkpoint was written after {}",
                                 path, ec ? 0 : found, size));
  std::filesystem::resize_file(path, size, ec);
  file_ = ec ? nullptr : std::fopen(path.c_str(), "a");
  if (!file_)
    throw EnvironmentError(fmt::format("{}: cannot continue the file: {}", path,
                                       ec ? ec.message() : std::strerror(errno)));
}

uint64_t MetricsCsv::durable_size() {
  // In append mode the position is the end only after a write: seek there first.
  const bool ok = std::fflush(file_) == 0 && ::fsync(fileno(file_)) == 0 &&
                  std::fseek(file_, 0, SEEK_END) == 0;
  const long size = std::ftell(file_);
  if (!ok || size < 0)
    throw EnvironmentError(fmt::format("{}: cannot write: {}", path_, std::strerror(errno)));
  return static_cast<uint64_t>(size);
}

MetricsCsv::~MetricsCsv() {
  if (file_) std::fclose(file_);
}

void MetricsCsv::write(const EvalPoint& p) {
  const std::string time = fmt::format("{:.9g}", p.time.seconds());
  const std::string consensus = cell(p.consensus_distance);
  // online: 1 or 0 per agent, the number online on the "avg" row, empty for a centre model.
  auto row = [&](const std::string& agent, const AgentPoint& a, const std::string& online) {
    fmt::print(file_, "{},{},{},{},{},{},{},{},{},{},{},{}\n", p.iteration, time, agent,
               cell(a.score.loss), cell(a.score.accuracy), cell(a.score.optimum_distance), a.events,
               a.messages_sent, a.bytes_sent, consensus, online, a.tensor_sends);
  };
  AgentPoint avg{p.aggregate};  // the averaged model, with every agent's counters summed
  size_t online = 0;
  for (size_t i = 0; i < p.agents.size(); ++i) {
    const AgentPoint& a = p.agents[i];
    row(std::to_string(i), a, a.online ? "1" : "0");
    avg.events += a.events;
    avg.messages_sent += a.messages_sent;
    avg.bytes_sent += a.bytes_sent;
    avg.tensor_sends += a.tensor_sends;
    online += a.online && !a.byzantine ? 1 : 0;  // the agents whose average `avg` scores
  }
  row("avg", avg, std::to_string(online));
  if (p.center) row("center", *p.center, "");
}

void MetricsCsv::close() {
  if (!file_) return;
  errno = 0;
  const bool failed = std::ferror(file_) != 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed || !closed)
    throw EnvironmentError(fmt::format("{}: cannot write: {}", path_,
                                       errno ? std::strerror(errno) : "unknown reason"));
}

}  // namespace dlsim
