// Checkpoints of a run in progress, so that a long run survives a crash or a pre-emption:
// everything the run would compute next from (the clock and pending events, the network's queues
// and messages in flight, every agent's parameters, optimizer and streams, the algorithm's held
// copies, the counters, where metrics.csv stood) in one file, OUT.tmp/checkpoint.bin, replaced
// atomically each time (written aside, fsynced, renamed). A resumed run ends with the same
// fingerprint and the same metrics.csv as one that was never interrupted.
//
// A checkpoint names what it belongs to: the build (compiler, instruction set, and a hash of the
// binary, since any change of code may change the arithmetic) and the resolved scenario. Another
// build's or scenario's checkpoint is refused, saying which differs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "sim/agents/agent_archive.hpp"
#include "sim/metrics/comm_recorder.hpp"
#include "sim/metrics/learning_watch.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/swarm.hpp"
#include "sim/scenario/world.hpp"

namespace dlsim {

struct CheckpointPolicy {
  int64_t every_iterations = 0;  // 0: not by iterations
  double every_seconds = 0.0;    // 0: not by wall-clock time
  bool enabled() const { return every_iterations > 0 || every_seconds > 0.0; }
};

/// "--checkpoint-every": "1000" (iterations) or a wall-clock duration ("90s", "10min", "2h").
/// InputError otherwise.
CheckpointPolicy parse_checkpoint_every(const std::string& text);

inline constexpr const char* kCheckpointName = "checkpoint.bin";
/// The checkpoint of `rank` of a run over `ranks` MPI ranks: each rank writes its own part
/// (its agents, its events and messages, its counters); kCheckpointName in one process.
std::string checkpoint_name(uint32_t rank, uint32_t ranks);
/// How many ranks wrote the checkpoints in `folder` (1: kCheckpointName; 0: none), their
/// previous generation included. InputError naming the folder when they are of several runs.
uint32_t checkpoint_ranks(const std::filesystem::path& folder);
/// Over ranks each part's previous generation is kept beside it as NAME + this, until the next
/// one: a crash between two ranks' renames leaves parts of two iterations, and the older one is
/// then the one every rank has.
inline constexpr const char* kPreviousSuffix = ".previous";
/// The iterations completed at `file`'s checkpoint (read from its header and counters only).
/// InputError naming the file when it is not a checkpoint of this format.
int64_t checkpoint_iterations(const std::filesystem::path& file);

/// The run layer's own state besides the world's.
struct RunCounters {
  int64_t iterations = 0;  // completed by every agent
  uint64_t csv_bytes = 0;  // metrics.csv's size at the checkpoint
  RunTimes times;          // wall-clock seconds so far, over every part of the run
  int64_t resumes = 0;     // times the run was continued from a checkpoint before this one
  LearningProgress learning;  // what the learning watch has seen
};

/// What a checkpoint must match: the build and the resolved scenario.
struct CheckpointIdentity {
  std::string build;     // build_key() and a hash of this binary
  std::string scenario;  // the resolved scenario, as scenario.json holds it
};
CheckpointIdentity checkpoint_identity(const ScenarioSpec& spec);

/// Writes folder/name (checkpoint_name()) atomically and returns its size; with
/// `keep_previous` (over ranks) the file it replaces stays as name + kPreviousSuffix.
/// `driver_state` appends the driver's part last.
uint64_t write_checkpoint(const std::filesystem::path& folder, const std::string& name,
                          bool keep_previous, const CheckpointIdentity& identity,
                          const CheckpointPolicy& policy, const RunCounters& counters,
                          const World& world, const Swarm& swarm, const CommRecorder& comm,
                          const std::function<void(AgentArchive&)>& driver_state);

/// Removes folder's checkpoints (every rank's) and any half-written one (a kill while writing
/// leaves it): a finished run's folder holds its results only.
void remove_checkpoint(const std::filesystem::path& folder);

struct Resumed {
  std::unique_ptr<StateReader> reader;  // positioned at the driver's part
  RunCounters counters;
  CheckpointPolicy policy;  // the one the checkpoint was written under
};

/// The policy and identity in `file`'s header, without loading anything. InputError when the
/// file is not a checkpoint or belongs to another build or scenario.
CheckpointPolicy check_checkpoint(const std::filesystem::path& file,
                                  const CheckpointIdentity& identity);

/// Loads `file` into a world built from the same scenario (and its swarm and recorder): all but
/// the driver's part. InputError as check_checkpoint, or when the file is damaged.
Resumed read_checkpoint(const std::filesystem::path& file, const CheckpointIdentity& identity,
                        World& world, Swarm& swarm, CommRecorder& comm);

}  // namespace dlsim
