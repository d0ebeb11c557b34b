#include "sim/metrics/output_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "sim/core/error.hpp"

namespace dlsim {

namespace fs = std::filesystem;

namespace {

// "runs/x/" and "runs/./x" name the folder runs/x; "", "." and ".." name no new folder.
fs::path normalised(const fs::path& p) {
  fs::path n = p.lexically_normal();
  if (!n.empty() && !n.has_filename()) n = n.parent_path();
  if (n.empty() || n.filename() == "." || n.filename() == "..")
    throw InputError(fmt::format("{}: not a folder name for results", p.string()));
  return n;
}

// Only an earlier run's folder may be replaced: never a folder that holds anything else.
bool is_run_folder(const fs::path& p) {
  if (!fs::exists(p / "scenario.json")) return false;
  for (const fs::directory_entry& e : fs::directory_iterator(p)) {
    const std::string name = e.path().filename().string();
    const std::string ext = e.path().extension().string();
    const bool known_file = name == "scenario.json" || name == "metrics.csv" ||
                            name == "summary.json" || ext == ".png" || ext == ".svg";
    const bool plots = name == "plots" && e.is_directory();  // tools/plot.py's output
    if (!plots && !(e.is_regular_file() && known_file)) return false;
  }
  return true;
}

}  // namespace

void sync_to_disk(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // nothing to sync; a missing file shows up elsewhere
  ::fsync(fd);
  ::close(fd);
}

fs::path OutputFolder::staging_path(const fs::path& final_path) {
  return normalised(final_path).string() + ".tmp";
}

OutputFolder::OutputFolder(fs::path final_path, Staging staging)
    : final_(normalised(final_path)), staging_(final_.string() + ".tmp") {
  if (fs::exists(final_) && !is_run_folder(final_))
    throw InputError(fmt::format("{}: exists and is not the folder of an earlier run; choose "
                                 "another output folder (-o)", final_.string()));
  std::error_code ec;
  if (staging == Staging::kFresh) fs::remove_all(staging_, ec);
  fs::create_directories(staging_, ec);
  if (ec)
    throw EnvironmentError(
        fmt::format("{}: cannot create the folder: {}", staging_.string(), ec.message()));
}

OutputFolder::~OutputFolder() {
  if (committed_ || keep_on_failure_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void OutputFolder::write_text(const std::string& name, const std::string& text) const {
  errno = 0;
  std::ofstream out(file(name), std::ios::binary);
  out << text;
  out.close();
  if (!out)
    throw EnvironmentError(fmt::format("{}: cannot write: {}", file(name),
                                       errno ? std::strerror(errno) : "unknown reason"));
}

void OutputFolder::commit() {
  // Contents first, then the rename: after a power loss a folder that is in place is whole.
  for (const fs::directory_entry& e : fs::directory_iterator(staging_))
    if (e.is_regular_file()) sync_to_disk(e.path());
  sync_to_disk(staging_);
  std::error_code ec;
  const fs::path old = final_.string() + ".old";
  fs::remove_all(old, ec);
  const bool replacing = fs::exists(final_);
  if (replacing) fs::rename(final_, old, ec);
  if (!ec) fs::rename(staging_, final_, ec);
  if (ec) {
    std::error_code restore;
    if (replacing && !fs::exists(final_)) fs::rename(old, final_, restore);  // keep the earlier run
    throw EnvironmentError(fmt::format("{}: cannot move the results into place: {}",
                                       final_.string(), ec.message()));
  }
  fs::remove_all(old, ec);
  sync_to_disk(final_.parent_path().empty() ? fs::path(".") : final_.parent_path());
  committed_ = true;
}

}  // namespace dlsim
