#include "sim/run/checkpoint.hpp"
#include "sim/sweep/sweep_folder.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/metrics/output_folder.hpp"

namespace dlsim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// What a first start leaves before sweep.json is in place: its lock and a torn sweep.json.tmp.
bool only_first_start_leftovers(const fs::path& out) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(out, ec)) {
    const std::string name = e.path().filename().string();
    if (name != kSweepLockFile && name != "sweep.json.tmp") return false;
  }
  return !ec;
}

}  // namespace

void check_sweep_folder(const fs::path& out) {
  std::error_code ec;
  const fs::file_status status = fs::status(out, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw InputError(fmt::format("{}: exists and is not a folder; choose another (-o)",
                                 out.string()));
  if (fs::exists(out / "sweep.json", ec) || only_first_start_leftovers(out)) return;
  throw InputError(fmt::format("{}: exists and is not a sweep's folder; choose another output "
                               "folder (-o)", out.string()));
}

void create_sweep_folder(const fs::path& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec)
    throw EnvironmentError(
        fmt::format("{}: cannot create the folder: {}", out.string(), ec.message()));
}

void write_atomically(const fs::path& file, const std::string& text) {
  const fs::path tmp = file.string() + ".tmp";
  {
    errno = 0;
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f)
      throw EnvironmentError(fmt::format("{}: cannot write: {}", tmp.string(),
                                         errno ? std::strerror(errno) : "unknown reason"));
  }
  sync_to_disk(tmp);
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) throw EnvironmentError(fmt::format("{}: cannot write: {}", file.string(), ec.message()));
  sync_to_disk(file.parent_path());
}

void prepare_sweep_folder(const SweepSpec& spec, const fs::path& out) {
  json record;
  record["file"] = spec.file;
  record["base"] = spec.base;
  record["varied"] = spec.varied;
  record["runs"] = spec.runs.size();
  record["sweep"] = json::parse(spec.source.dump());
  write_atomically(out / "sweep.json", record.dump(2) + "\n");

  const fs::path runs = out / "runs";
  std::error_code ec;
  fs::create_directories(runs, ec);
  if (ec)
    throw EnvironmentError(
        fmt::format("{}: cannot create the folder: {}", runs.string(), ec.message()));
  // A run killed while writing (<id>.tmp) or while replacing an earlier record (<id>.old): both
  // hold nothing a finished run needs, unless <id>.tmp holds the run's checkpoint: the run
  // continues from it.
  std::vector<fs::path> stale;
  for (const fs::directory_entry& e : fs::directory_iterator(runs, ec)) {
    const std::string ext = e.path().extension().string();
    const bool resumable = ext == ".tmp" && fs::exists(e.path() / kCheckpointName);
    if ((ext == ".tmp" && !resumable) || ext == ".old") stale.push_back(e.path());
  }
  for (const fs::path& p : stale) fs::remove_all(p, ec);
}

}  // namespace dlsim
