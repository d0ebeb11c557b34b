// metrics.csv: one row per evaluation point and agent, plus one row for the parameter-averaged
// model (agent "avg"), streamed as the run goes. Columns (README.md, "Outputs"):
//   iteration, time_s, agent, test_loss, test_accuracy, distance_to_optimum, events,
//   messages_sent, bytes_sent, consensus_distance
// Empty cells where a value does not apply (accuracy of a quadratic model, its distance for a
// classifier). Floats are written with 9 significant digits.
#pragma once

#include <cstdio>
#include <string>

#include "sim/metrics/evaluation.hpp"

namespace dlsim {

class MetricsCsv {
 public:
  /// Creates (truncates) path and writes the header. InputError if it cannot be opened.
  explicit MetricsCsv(const std::string& path);
  ~MetricsCsv();
  MetricsCsv(const MetricsCsv&) = delete;
  MetricsCsv& operator=(const MetricsCsv&) = delete;

  void write(const EvalPoint& point);
  /// Flushes and closes; InputError if anything failed to reach the disk.
  void close();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace dlsim
