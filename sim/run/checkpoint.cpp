#include "sim/run/checkpoint.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "sim/agents/agent_archive.hpp"
#include "sim/core/build_info.hpp"
#include "sim/core/error.hpp"
#include "sim/core/fingerprint.hpp"
#include "sim/core/units.hpp"
#include "sim/metrics/output_folder.hpp"
#include "sim/scenario/load_scenario.hpp"

namespace dlsim {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'D', 'L', 'S', 'I', 'M', 'C', 'K', 'P'};
// 2: per-tensor send counts; 3: the network saved as wires, messages, then its transport;
// 4: a message's algorithm-owned content as one tagged payload (AgentArchive::payload);
// 5: events ordered by origin: the simulator saves each origin's counter and each node's
// fingerprint instead of one sequence counter and one fingerprint; 6: send buffers count the
// bytes waiting per sender
constexpr uint32_t kFormat = 6;
// Section tags: a reader out of step with the writer stops at the next one.
constexpr uint32_t kRunPart = 0x52554e31, kSimPart = 0x53494d31, kNetworkPart = 0x4e455431,
                   kMessagesPart = 0x4d534731, kAgentsPart = 0x41474e31,
                   kAlgorithmPart = 0x414c4731, kCommPart = 0x434f4d31;

// A hash of the running binary: a rebuild with other code is another build even when the
// compiler and flags are the same. Read once per process.
const std::string& binary_hash() {
  static const std::string hash = [] {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    if (!in) return std::string("unknown binary");
    Fingerprint f;
    std::vector<char> block(size_t{1} << 20);
    while (in) {
      in.read(block.data(), static_cast<std::streamsize>(block.size()));
      f.add_bytes(std::as_bytes(std::span(block.data(), static_cast<size_t>(in.gcount()))));
    }
    return fmt::format("binary {:016x}", f.value());
  }();
  return hash;
}

struct Header {
  CheckpointIdentity identity;
  CheckpointPolicy policy;
};

// The header: what the file is, which build and scenario wrote it, and its policy. Loading
// refuses another file or format here, before the identity is compared.
void archive_header(StateArchive& ar, Header& h) {
  char magic[8];
  std::copy(kMagic, kMagic + 8, magic);
  for (char& c : magic) ar.value(c);
  if (ar.loading() && !std::equal(magic, magic + 8, kMagic)) ar.fail("not a dlsim checkpoint");
  uint32_t format = kFormat;
  ar.value(format);
  if (format != kFormat)
    ar.fail(fmt::format("format {}, this build reads format {}", format, kFormat));
  ar.string(h.identity.build);
  ar.string(h.identity.scenario);
  ar.value(h.policy.every_iterations);
  ar.value(h.policy.every_seconds);
}

Header read_header(StateReader& in) {
  StateArchive ar(in);
  Header h;
  archive_header(ar, h);
  return h;
}

// Every part of the run but the driver's, in file order. One archive for the messages and the
// algorithm: a snapshot in flight is often also held.
void archive_run(AgentArchive& ar, RunCounters& counters, World& world, Swarm& swarm,
                 CommRecorder& comm) {
  ar.section(kRunPart);
  ar.value(counters);
  ar.section(kSimPart);
  world.sim.archive(ar);
  ar.section(kNetworkPart);
  world.network->archive(ar);
  ar.section(kMessagesPart);
  swarm.archive(ar);
  ar.section(kAgentsPart);
  for (Agent& a : world.agents)
    if (a.held()) archive_agent(a, ar);  // over MPI ranks: this rank's block
  ar.section(kAlgorithmPart);
  world.algorithm->archive(ar);
  ar.section(kCommPart);
  comm.archive(ar);
}

// The first key where two resolved scenarios differ, for the refusal.
std::string first_difference(const std::string& a, const std::string& b) {
  try {
    const nlohmann::json patch =
        nlohmann::json::diff(nlohmann::json::parse(a), nlohmann::json::parse(b));
    if (!patch.empty()) return patch.front().at("path").get<std::string>();
  } catch (const nlohmann::json::exception&) {
  }
  return "/";
}

void check_identity(const fs::path& file, const Header& h, const CheckpointIdentity& expected) {
  if (h.identity.build != expected.build)
    throw InputError(fmt::format(
        "{}: written by another build of dlsim ({}; this is {}): its results would not be "
        "reproduced; remove the folder or resume with that build",
        file.string(), h.identity.build, expected.build));
  if (h.identity.scenario != expected.scenario)
    throw InputError(fmt::format(
        "{}: written for another scenario (they differ at {}); remove the folder or choose "
        "another output folder (-o)",
        file.string(), first_difference(h.identity.scenario, expected.scenario)));
}

}  // namespace

CheckpointPolicy parse_checkpoint_every(const std::string& text) {
  CheckpointPolicy p;
  auto fail = [&] {
    return InputError(fmt::format(
        "--checkpoint-every: expected iterations (\"1000\") or a duration (\"90s\", \"10min\", "
        "\"2h\"), got \"{}\"",
        text));
  };
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    try {
      p.every_iterations = std::stoll(text);
    } catch (const std::exception&) {
      throw fail();
    }
    if (p.every_iterations <= 0) throw fail();
    return p;
  }
  // Minutes and hours besides the scenario units (s, ms, us, ns): checkpoints are wall time.
  auto scaled = [&](std::string_view unit, double factor) -> bool {
    if (text.size() <= unit.size() || !text.ends_with(unit)) return false;
    const std::string number = text.substr(0, text.size() - unit.size());
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(number, &used);
    } catch (const std::exception&) {
      throw fail();
    }
    if (used != number.size() || !(v > 0) || !std::isfinite(v)) throw fail();
    p.every_seconds = v * factor;
    return true;
  };
  if (scaled("min", 60.0) || scaled("h", 3600.0)) return p;
  try {
    p.every_seconds = parse_duration(text).seconds();
  } catch (const InputError&) {
    throw fail();
  }
  if (!(p.every_seconds > 0)) throw fail();
  return p;
}

CheckpointIdentity checkpoint_identity(const ScenarioSpec& spec) {
  return {build_key() + ", " + binary_hash(), scenario_to_json(spec).dump()};
}

std::string checkpoint_name(uint32_t rank, uint32_t ranks) {
  return ranks == 1 ? kCheckpointName : fmt::format("checkpoint.rank{}-of-{}.bin", rank, ranks);
}

uint32_t checkpoint_ranks(const fs::path& folder) {
  std::error_code ec;
  uint32_t found = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    uint32_t rank = 0, ranks = 0;
    std::string name = e.path().filename().string();
    if (name.ends_with(kPreviousSuffix)) name.resize(name.size() - std::strlen(kPreviousSuffix));
    if (name == kCheckpointName)
      ranks = 1;
    else if (std::sscanf(name.c_str(), "checkpoint.rank%u-of-%u.bin", &rank, &ranks) != 2 ||
             name != checkpoint_name(rank, ranks))
      continue;
    if (found != 0 && found != ranks)
      throw InputError(
          fmt::format("{}: holds checkpoints of runs over {} and {} ranks: remove "
                      "the folder to start over",
                      folder.string(), found, ranks));
    found = ranks;
  }
  return found;
}

uint64_t write_checkpoint(const fs::path& folder, const std::string& name, bool keep_previous,
                          const CheckpointIdentity& identity, const CheckpointPolicy& policy,
                          const RunCounters& counters, const World& world, const Swarm& swarm,
                          const CommRecorder& comm,
                          const std::function<void(AgentArchive&)>& driver_state) {
  const fs::path final_file = folder / name;
  const fs::path partial = folder / (name + ".partial");
  uint64_t bytes = 0;
  {
    StateWriter out(partial.string());
    AgentArchive ar(out);
    Header h{identity, policy};
    archive_header(ar, h);
    // A saving archive only reads what it is handed: the parts are not changed.
    RunCounters saved = counters;
    archive_run(ar, saved, const_cast<World&>(world), const_cast<Swarm&>(swarm),
                const_cast<CommRecorder&>(comm));
    driver_state(ar);
    out.finish();
    bytes = out.bytes_written() + sizeof(uint64_t);  // and the trailer
  }
  std::error_code ec;
  if (keep_previous && fs::exists(final_file)) {
    fs::rename(final_file, folder / (name + kPreviousSuffix), ec);
    if (ec)
      throw EnvironmentError(fmt::format("{}: cannot keep the previous checkpoint: {}",
                                         final_file.string(), ec.message()));
  }
  fs::rename(partial, final_file, ec);
  if (ec)
    throw EnvironmentError(fmt::format("{}: cannot move the checkpoint into place: {}",
                                       final_file.string(), ec.message()));
  sync_to_disk(folder);
  return bytes;
}

void remove_checkpoint(const fs::path& folder) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("checkpoint.") &&
        (name.ends_with(".bin") || name.ends_with(".bin.partial") ||
         name.ends_with(std::string(".bin") + kPreviousSuffix)))
      files.push_back(e.path());
  }
  for (const fs::path& f : files) fs::remove(f, ec);
}

CheckpointPolicy check_checkpoint(const fs::path& file, const CheckpointIdentity& identity) {
  StateReader in(file.string());
  const Header h = read_header(in);
  check_identity(file, h, identity);
  return h.policy;
}

int64_t checkpoint_iterations(const fs::path& file) {
  StateReader in(file.string());
  read_header(in);
  StateArchive ar(in);
  ar.section(kRunPart);
  RunCounters counters;
  ar.value(counters);
  return counters.iterations;
}

Resumed read_checkpoint(const fs::path& file, const CheckpointIdentity& identity, World& world,
                        Swarm& swarm, CommRecorder& comm) {
  Resumed r;
  r.reader = std::make_unique<StateReader>(file.string());
  StateReader& in = *r.reader;
  const Header h = read_header(in);
  check_identity(file, h, identity);
  r.policy = h.policy;
  AgentArchive ar(in);
  archive_run(ar, r.counters, world, swarm, comm);
  return r;
}

}  // namespace dlsim
