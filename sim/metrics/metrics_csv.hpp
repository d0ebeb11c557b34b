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
  /// Creates (truncates) path and writes the header. EnvironmentError if it cannot be opened.
  explicit MetricsCsv(const std::string& path);
  /// Continues a file that durable_size() once returned `size` for (a resumed run): cuts what
  /// was written after that point, and appends. InputError if the file is shorter.
  MetricsCsv(const std::string& path, uint64_t size);
  ~MetricsCsv();
  MetricsCsv(const MetricsCsv&) = delete;
  MetricsCsv& operator=(const MetricsCsv&) = delete;

  void write(const EvalPoint& point);
  /// Flushes the rows so far to the disk (fsync) and returns the file's size: a checkpoint
  /// records it.
  uint64_t durable_size();
  /// Flushes and closes; InputError if anything failed to reach the disk.
  void close();

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace dlsim
